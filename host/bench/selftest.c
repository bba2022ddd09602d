/* `clnetsim selftest` on one device: the Philox known answers of docs/model.md, then small
 * scenarios covering every part of the flood model (grid, uniform and areas placement, 2-D
 * and 3-D, ranges wider than the spacing, drop, TTL, duration, random waypoint with pauses, odd
 * work-group sizes) whose counters must equal those of the sequential reference model
 * (host/oracle), computed here on the host; then small PHOLD scenarios (ties, only remote
 * events, odd sizes) whose declared contract members must equal those of the PHOLD oracle.
 * Each case's reference is its model's (model_ops.bench->reference): nothing here knows a
 * model beyond the scenarios' text.  * A broken driver or compiler shows up here as a failed device, not as wrong science. */
#include <stdlib.h>
#include <string.h>

#include "version.h"
#include "bench/bench.h"
#include "dist/dist.h"
#include "engine/engine.h"

typedef struct selftest_case {
    const char *name;
    size_t work_group;   /* 0: the device's own choice */
    const char *ini;
} selftest_case;

static const selftest_case cases[] = {
    {"grid, drop 0.2", 0,
     "[simulation]\nseed = 7\n[topology]\nplacement = grid\nrows = 12\ncols = 10\nspacing = 100\n"
     "[connectivity]\nrange = 100\n[traffic]\npackets = 8\ninterval = 1\n"
     "[flood]\nrelay_delay = 1\ndrop_probability = 0.2\n"},
    {"grid, drop 0.2, work-groups of 1", 1,
     "[simulation]\nseed = 7\n[topology]\nplacement = grid\nrows = 12\ncols = 10\nspacing = 100\n"
     "[connectivity]\nrange = 100\n[traffic]\npackets = 8\ninterval = 1\n"
     "[flood]\nrelay_delay = 1\ndrop_probability = 0.2\n"},
    {"grid, diagonal range, TTL 5", 0,
     "[simulation]\nseed = 11\n[topology]\nplacement = grid\nrows = 9\ncols = 9\nspacing = 100\n"
     "[connectivity]\nrange = 150\n[traffic]\npackets = 5\ninterval = 0.5\nsource = 40\n"
     "[flood]\nrelay_delay = 0.25\ndrop_probability = 0\nttl = 5\n"},
    {"grid, duration cut", 0,
     "[simulation]\nseed = 2\nduration = 10\n[topology]\nplacement = grid\nrows = 15\ncols = 15\n"
     "spacing = 50\n[connectivity]\nrange = 50\n[traffic]\npackets = 20\ninterval = 1\n"
     "[flood]\nrelay_delay = 1\ndrop_probability = 0.05\n"},
    {"uniform 3-D, random waypoint with pauses", 0,
     "[simulation]\nseed = 3\n[topology]\nplacement = uniform\nnodes = 300\nwidth = 800\n"
     "height = 800\ndepth = 100\n[connectivity]\nrange = 120\n[mobility]\nmodel = rwp\n"
     "speed_min = 1\nspeed_max = 20\npause_min = 0\npause_max = 2\n"
     "[traffic]\npackets = 6\ninterval = 2\n[flood]\nrelay_delay = 1\ndrop_probability = 0.1\n"},
    {"uniform 2-D, random direction with bounces", 0,
     "[simulation]\nseed = 5\n[topology]\nplacement = uniform\nnodes = 250\nwidth = 500\n"
     "height = 400\ndepth = 0\n[connectivity]\nrange = 90\n[mobility]\nmodel = random_direction\n"
     "speed_min = 2\nspeed_max = 40\ntravel_min = 1\ntravel_max = 6\npause_max = 1\n"
     "boundary = bounce\n[traffic]\npackets = 6\ninterval = 1.5\n[flood]\nrelay_delay = 1\n"
     "drop_probability = 0.1\n"},
    {"uniform 2-D, Manhattan grid walk", 0,
     "[simulation]\nseed = 6\n[topology]\nplacement = uniform\nnodes = 250\nwidth = 450\n"
     "height = 450\ndepth = 0\n[connectivity]\nrange = 90\n[mobility]\nmodel = grid_walk\n"
     "speed_min = 5\nspeed_max = 60\nstreet_spacing = 40\n[traffic]\npackets = 6\n"
     "interval = 1\n[flood]\nrelay_delay = 1\ndrop_probability = 0.1\n"},
    {"uniform 2-D, mobility groups (static, walk, rwp, street grid), drop drawn per node", 0,
     "[simulation]\nseed = 8\n[topology]\nplacement = uniform\nnodes = 300\nwidth = 500\n"
     "height = 500\ndepth = 0\n[connectivity]\nrange = 80\n[mobility]\nspeed_min = 1\n"
     "speed_max = 15\n[mobility.group walk]\nnodes = 60-149\nmodel = random_walk\n"
     "boundary = wrap\n[mobility.group rwp]\nnodes = 150-219, 290-299\nmodel = rwp\n"
     "pause_max = 2\n[mobility.group cars]\nnodes = 220-289\nmodel = grid_walk\n"
     "street_spacing = 50\n[traffic]\npackets = 6\ninterval = 1\n[flood]\nrelay_delay = 1\n"
     "drop_probability = uniform(0, 0.2)\n"},
    {"uniform 2-D, qudg under a neighbour cap of 6", 0,
     "[simulation]\nseed = 10\n[topology]\nplacement = uniform\nnodes = 400\nwidth = 500\n"
     "height = 500\ndepth = 0\n[connectivity]\nmodel = qudg\nrange = 90\nrange_min = 50\n"
     "link_probability = 0.6\nmax_neighbors = 6\n[traffic]\npackets = 6\ninterval = 1\n"
     "[flood]\nrelay_delay = 1\ndrop_probability = 0.1\n"},
    {"uniform 3-D, random walk under a neighbour cap of 8", 0,
     "[simulation]\nseed = 12\n[topology]\nplacement = uniform\nnodes = 300\nwidth = 400\n"
     "height = 400\ndepth = 150\n[connectivity]\nrange = 100\nmax_neighbors = 8\n"
     "[mobility]\nmodel = random_walk\nspeed_min = 1\nspeed_max = 20\nboundary = wrap\n"
     "[traffic]\npackets = 6\ninterval = 1\n[flood]\nrelay_delay = 1\n"
     "drop_probability = 0.1\n"},
    {"grid, traffic flows (unicast from ranges, broadcast, per-node laws)", 0,
     "[simulation]\nseed = 13\nduration = 4\n[topology]\nplacement = grid\nrows = 12\n"
     "cols = 12\nspacing = 100\n[connectivity]\nrange = 100\n[traffic]\ndestination = 0\n"
     "[traffic.flow up]\nsource = 120-131, 60\npackets = 0\ninterval = exponential(0.6)\n"
     "start = uniform(0, 0.4)\n[traffic.flow all]\nsource = all\ndestination = broadcast\n"
     "packets = 2\ninterval = uniform(0.5, 1.5)\ninterval_draw = node\n"
     "start = uniform(0, 2)\n[flood]\nrelay_delay = 0.05\ndrop_probability = 0.1\n"},
    {"uniform, counter scheme with assessment delays, a broadcast flow", 0,
     "[simulation]\nseed = 14\n[topology]\nplacement = uniform\nnodes = 300\nwidth = 400\n"
     "height = 400\n[connectivity]\nrange = 100\n[traffic]\npackets = 6\ninterval = 0.2\n"
     "[traffic.flow alarm]\nsource = 5, 77\ndestination = broadcast\npackets = 2\n"
     "[flood]\nrelay_delay = 0.01\ndrop_probability = 0.05\nscheme = counter\n"
     "counter_threshold = 3\nassessment_delay = 0.04\n"},
    {"activity areas: 4 grids of 6 x 5 in a chain, border links", 0,
     "[simulation]\nseed = 15\n[topology]\nplacement = areas\nrows = 6\ncols = 5\n"
     "spacing = 100\n[areas]\ncount = 4\nborder_links = 0.3\n[connectivity]\nrange = 100\n"
     "[traffic]\npackets = 8\ninterval = 1\n[flood]\nrelay_delay = 1\n"
     "drop_probability = 0.1\n"},
    {"uniform 2-D, random waypoint, receive capacity and energy budgets drawn per node", 0,
     "[simulation]\nseed = 15\n[topology]\nplacement = uniform\nnodes = 300\nwidth = 500\n"
     "height = 500\ndepth = 0\n[connectivity]\nrange = 100\n[mobility]\nmodel = rwp\n"
     "speed_min = 1\nspeed_max = 20\n[traffic]\npackets = 8\ninterval = 0.4\n"
     "[flood]\nrelay_delay = 1\ndrop_probability = 0.1\n[resources]\nrx_capacity = 6\n"
     "energy_budget = uniform(0.0005, 0.003)\ntx_fixed = 0.0001\nrx_fixed = 0.00002\n"
     "rx_per_byte = 0.00000001\n"},
    /* PHOLD (docs/models/phold.md): against its own oracle, member by member */
    {"phold: 300 LPs, remote 0.25", 0,
     "[simulation]\nmodel = phold\nseed = 21\nduration = 4\n[phold]\nlps = 300\n"
     "population = 4\nremote = 0.25\nlookahead = 0.1\nmean = 0.9\n"},
    /* mean 0: every delay is the lookahead, so LPs hold many events of one time and only
     * the key order (t, origin, serial) decides which runs first */
    {"phold: ties (mean 0), 200 LPs, remote 0.5", 0,
     "[simulation]\nmodel = phold\nseed = 22\nduration = 2\n[phold]\nlps = 200\n"
     "population = 3\nremote = 0.5\nlookahead = 0.1\nmean = 0\n"},
    {"phold: 257 LPs, only remote events, odd lookahead, work-groups of 1", 1,
     "[simulation]\nmodel = phold\nseed = 0xfeedfacecafe\nduration = 1.5\n[phold]\n"
     "lps = 257\npopulation = 3\nremote = 1\nlookahead = 0.013\nmean = 0.25\n"},
    /* Kademlia (docs/models/kademlia.md): against its own oracle, member by member */
    {"kademlia: 600 peers, random targets", 0,
     "[simulation]\nmodel = kademlia\nseed = 31\nduration = 6\n[kademlia]\npeers = 600\n"
     "lookup_gap_max = 2\n"},
    {"kademlia: 300 peers, 160-bit ids, k = 20, lookups of peers, work-groups of 1", 1,
     "[simulation]\nmodel = kademlia\nseed = 32\nduration = 3\n[kademlia]\npeers = 300\n"
     "id_bits = 160\nbucket_size = 20\nalpha = 4\nlookup_gap_max = 0.5\ntargets = peers\n"},
};

/* The first difference between a run R and the reference WANT, both as declared metrics:
 * model, seed, then every contract member R has against WANT's member of that name (a ratio
 * derived from other members aside), every member WANT has and R lacks, and the table's rows.
 * WANT comes from a sequential reference: what a model declares is the contract it is held
 * to, and the reference must give each member. */
int selftest_reference_differs(const run_results *r, const run_results *want, char *buf,
                               size_t cap)
{
    if (strcmp(r->model, want->model) != 0) {
        snprintf(buf, cap, "model %.31s, reference %s", r->model, want->model);
        return 1;
    }
    if (r->seed != want->seed) {
        snprintf(buf, cap, "seed %llu, reference %llu", (unsigned long long)r->seed,
                 (unsigned long long)want->seed);
        return 1;
    }
    int declared = 0;
    for (int i = 0; i < r->n_metrics; i++) {
        const model_metric *m = results_metric(r, i);
        if (!r->metrics[i].set || !m->contract)
            continue;
        declared++;
        int k = results_find_at(want, r->metrics[i].name, r->metrics[i].elem);
        if (k < 0) {
            snprintf(buf, cap, "member %s has no reference value", r->metrics[i].name);
            return 1;
        }
        if (m->kind != METRIC_LOSS && r->metrics[i].value != want->metrics[k].value) {
            char g[WIDE_TEXT], w[WIDE_TEXT], at[16] = "";
            if (m->elements > 1) /* an array's element: "hops_histogram[3]" */
                snprintf(at, sizeof at, "[%d]", r->metrics[i].elem);
            snprintf(buf, cap, "%s%s %s, reference %s", r->metrics[i].name, at,
                     wide_format(r->metrics[i].value, g), wide_format(want->metrics[k].value, w));
            return 1;
        }
    }
    if (declared == 0) {
        snprintf(buf, cap, "the run declared no contract members");
        return 1;
    }
    for (int k = 0; k < want->n_metrics; k++)
        if (want->metrics[k].set && results_metric(want, k)->contract &&
            results_find(r, want->metrics[k].name) < 0) {
            snprintf(buf, cap, "member %s of the reference is missing from the run",
                     want->metrics[k].name);
            return 1;
        }
    const metric_table *t = want->declared ? want->declared->table : NULL;
    if (r->n_rows != want->n_rows) {
        snprintf(buf, cap, "%d %s, reference %d", r->n_rows, t ? t->name : "rows", want->n_rows);
        return 1;
    }
    for (int i = 0; i < r->n_rows && t; i++)
        for (int c = 0; c < t->n_cols && c < REPORT_MAX_COLUMNS; c++)
            if (r->rows[i].values[c] != want->rows[i].values[c]) {
                char g[WIDE_TEXT], w[WIDE_TEXT];
                snprintf(buf, cap, "%s %s: %s %s, reference %s", t->name, r->rows[i].name,
                         t->cols[c].name, wide_format(r->rows[i].values[c], g),
                         wide_format(want->rows[i].values[c], w));
                return 1;
            }
    return 0;
}

/* SC's model, when it has a reference (model_ops.bench), or NULL with WHY set. */
static const model_ops *reference_of(const scenario *sc, char *why, size_t cap)
{
    const model_ops *ops = model_find(sc->model);
    if (!ops || !ops->bench || !ops->bench->reference) {
        snprintf(why, cap, "the %s model has no sequential reference", sc->model);
        return NULL;
    }
    return ops;
}

/* One scenario on DEV against the reference; 0 when equal, else the reason in DETAIL. */
static int check_case(device_ctx *dev, int position, const selftest_case *c,
                      const model_ops **model, char *detail, size_t cap)
{
    cn_error err = {0};
    scenario *sc = calloc(1, sizeof *sc);
    run_results *res = calloc(1, sizeof *res);
    run_results *want = calloc(1, sizeof *want);
    char why[512] = "";
    int bad = 1;
    *model = NULL;
    if (!sc || !res || !want) {
        snprintf(detail, cap, "out of memory");
    } else if (config_load_string("selftest.ini", c->ini, NULL, 0, sc, &err) != 0) {
        snprintf(detail, cap, "internal error in scenario '%s': %.1800s", c->name, err.msg);
    } else if (!(*model = reference_of(sc, why, sizeof why)) ||
               (*model)->bench->reference(sc, want, why, sizeof why) != 0) {
        snprintf(detail, cap, "internal error: the reference model refused scenario '%s': %s",
                 c->name, why);
    } else {
        size_t saved = dev->local_size_override;
        dev->local_size_override = c->work_group ? c->work_group : saved;
        engine_options eo = {0};
        device_ctx *ptr = dev;
        dist_alone_begin(); /* this device's own run: no other rank takes part */
        int rc = engine_run(sc, &ptr, 1, &eo, res, &err);
        dist_alone_end();
        dev->local_size_override = saved;
        char diff[256];
        if (rc) {
            snprintf(detail, cap, "scenario '%s' failed to run: %.1800s", c->name, err.msg);
        } else {
            bench_apply_test_skew(position, res);
            if (selftest_reference_differs(res, want, diff, sizeof diff))
                snprintf(detail, cap, "scenario '%s' gave wrong results: %s", c->name, diff);
            else
                bad = 0;
        }
    }
    free(sc);
    free(res);
    free(want);
    return bad;
}

void selftest_device(device_ctx *dev, int position, selftest_verdict *v, FILE *log)
{
    memset(v, 0, sizeof *v);
    v->index = dev->info.index;
    snprintf(v->name, sizeof v->name, "%s", dev->info.name);
    snprintf(v->platform, sizeof v->platform, "%s", dev->info.platform_name);
    cn_error err = {0};
    v->checks = 1;
    if (device_selftest(dev, &err) != 0) {
        snprintf(v->detail, sizeof v->detail, "%s", err.msg);
        return;
    }
    /* every kernel shape a run of each model may choose, against its reference; the bad ones
     * are left out of the scenarios below, as of a run, and cached for the runs */
    shapes_report *rep = malloc(sizeof *rep);
    if (!rep) {
        snprintf(v->detail, sizeof v->detail, "out of memory");
        return;
    }
    char shapes[1200] = "", tested[600] = "", first_tested[300] = "";
    size_t used_tested = 0;
    int n_tested = 0;
    for (int m = 0; model_at(m); m++) {
        const model_ops *model = model_at(m);
        if (!shapes_of(model))
            continue;
        int bad_rc = shapes_test(dev, model, rep, log);
        if (bad_rc == 0) {
            device_shapes_store(dev, model->name, rep->first_bad, rep->sizes, rep->refused);
            shapes_warn(dev, rep->first_bad, stderr);
        }
        if (bad_rc != 0 || rep->refused[0]) {
            size_t used = 0;
            for (int i = 0; i < dev->n_bad && used < sizeof shapes; i++) {
                int w = snprintf(shapes + used, sizeof shapes - used, "%s%s at %zu",
                                 used ? ", " : "", dev->bad[i].kernel, dev->bad[i].size);
                used = w > 0 ? used + (size_t)w : sizeof shapes;
            }
            if (bad_rc != 0)
                snprintf(v->detail, sizeof v->detail, "%s", rep->detail);
            else
                snprintf(v->detail, sizeof v->detail, "every work-group size of %.190s differs "
                         "from the sequential reference (shapes failed: %.1000s; first: %.500s)",
                         rep->refused, shapes, rep->n_failures ? rep->failures[0] : "");
            free(rep);
            return;
        }
        /* the table's first model is the closing "every kernel shape (...)"; the others are
         * named before it */
        if (n_tested++ == 0) {
            snprintf(first_tested, sizeof first_tested, "every kernel shape (%d runs at "
                     "work-groups of %.200s)", rep->runs, rep->sizes);
        } else if (used_tested < sizeof tested) {
            int w = snprintf(tested + used_tested, sizeof tested - used_tested,
                             ", every %s kernel shape (%d runs at work-groups of %.200s)",
                             model->bench->title, rep->runs, rep->sizes);
            used_tested = w > 0 ? used_tested + (size_t)w : sizeof tested;
        }
    }
    free(rep);
    {
        size_t used = 0;
        for (int i = 0; i < dev->n_bad && used < sizeof shapes; i++) {
            int w = snprintf(shapes + used, sizeof shapes - used, "%s%s at %zu",
                             used ? ", " : "", dev->bad[i].kernel, dev->bad[i].size);
            used = w > 0 ? used + (size_t)w : sizeof shapes;
        }
    }
    /* the cases per model, in the order the models first appear: the verdict's words */
    const model_ops *models[SELFTEST_MAX_CASES] = {NULL};
    int per_model[SELFTEST_MAX_CASES] = {0}, n_models = 0;
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) {
        v->checks++;
        if (log)
            fprintf(log, "device %d: %s...\n", v->index, cases[i].name);
        struct selftest_case_run *run = &v->cases[v->n_cases];
        const model_ops *model = NULL;
        int bad = check_case(dev, position, &cases[i], &model, v->detail, sizeof v->detail);
        if (v->n_cases < SELFTEST_MAX_CASES) {
            *run = (struct selftest_case_run){cases[i].name, model ? model->name : "?", !bad};
            v->n_cases++;
        }
        if (bad)
            return;
        int k = 0;
        while (k < n_models && models[k] != model)
            k++;
        if (k == n_models && n_models < SELFTEST_MAX_CASES)
            models[n_models++] = model;
        if (k < n_models)
            per_model[k]++;
    }
    v->passed = 1;
    char what[400];
    size_t used = (size_t)snprintf(what, sizeof what, "Philox known answers");
    for (int k = 0; k < n_models && used < sizeof what; k++) {
        int w = snprintf(what + used, sizeof what - used, "%s%d %s scenarios equal to %s",
                         k == 0 ? ", " : k == n_models - 1 ? " and " : ", ", per_model[k],
                         models[k]->bench->title, models[k]->bench->reference_name);
        used = w > 0 ? used + (size_t)w : sizeof what;
    }
    if (dev->n_bad)
        snprintf(v->detail, sizeof v->detail, "%s; shapes failed and left out: %.1500s", what,
                 shapes);
    else if (n_tested)
        snprintf(v->detail, sizeof v->detail, "%s%.600s, and %.300s", what, tested,
                 first_tested);
    else
        snprintf(v->detail, sizeof v->detail, "%s", what);
}

void selftest_print_json(FILE *f, const selftest_verdict *v, int n)
{
    fprintf(f, "{\n  \"clnetsim_selftest\": 1,\n  \"version\": ");
    json_print_string(f, CLNETSIM_VERSION);
    fprintf(f, ",\n  \"commit\": ");
    json_print_string(f, CLNETSIM_GIT_COMMIT);
    fprintf(f, ",\n  \"devices\": [");
    for (int d = 0; d < n; d++) {
        const selftest_verdict *x = &v[d];
        fprintf(f, "%s\n    {\"index\": %d, \"name\": ", d ? "," : "", x->index);
        json_print_string(f, x->name);
        fprintf(f, ", \"platform\": ");
        json_print_string(f, x->platform);
        fprintf(f, ", \"passed\": %s, \"checks\": %d, \"detail\": ",
                x->passed ? "true" : "false", x->checks);
        json_print_string(f, x->detail);
        fprintf(f, ",\n     \"cases\": [");
        for (int i = 0; i < x->n_cases; i++) {
            fprintf(f, "%s\n      {\"name\": ", i ? "," : "");
            json_print_string(f, x->cases[i].name);
            fprintf(f, ", \"model\": \"%s\", \"passed\": %s}", x->cases[i].model,
                    x->cases[i].passed ? "true" : "false");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
}
