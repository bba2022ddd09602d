/* Keeping the ranks of a run in step and combining their results (rank_step.h). */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "engine/rank_step.h"

int rank_several(void)
{
    return dist_size() > 1;
}

/* The agreed outcome of a failure somewhere: every rank calls this once the agreement said
 * a rank failed. OWN_REAL: this rank's own error is in ERR (not a peer's report). */
static int agreed_failure(int own_real, int rc, cn_error *err)
{
    int code = dist_agree(own_real ? (rc ? rc : CN_ERR_RUNTIME) : 0, err);
    return code ? code : CN_ERR_RUNTIME;
}

/* One agreement: V reduced by HOW (N values, V[0] whether any rank failed), timed into AG.
 * REAL: this rank's failure RC is its own. Returns 0, or the agreed error (or MPI's). */
static int agree(int64_t *v, const dist_op *how, int n, int real, int rc, rank_agreement *ag,
                 cn_error *err)
{
    cn_error own = {0};
    double t0 = wall_seconds();
    int crc = dist_allreduce_each(v, how, n, &own);
    ag->agree_s += wall_seconds() - t0;
    if (crc) {
        cn_error_clear(err);
        *err = own;
        return crc;
    }
    return v[0] ? agreed_failure(real, rc, err) : 0;
}

int rank_agree_start(int rc, sim_time_ns begin, rank_agreement *ag, cn_error *err)
{
    memset(ag, 0, sizeof *ag);
    ag->begin = begin;
    if (!rank_several())
        return rc;
    int64_t v[2] = {rc != 0, rc ? INT64_MAX : begin};
    const dist_op ops[2] = {DIST_MAX, DIST_MIN};
    int arc = agree(v, ops, 2, rc != 0, rc, ag, err);
    if (!arc)
        ag->begin = v[1];
    return arc;
}

int rank_end_window(const model_ops *ops, struct model_state *m, const window_plan *plan,
                    int rc, int stop, int event_sync, window_outcome *out,
                    rank_agreement *ag, cn_error *err)
{
    double t0 = wall_seconds();
    window_outcome mine;
    memset(&mine, 0, sizeof mine);
    int r2 = ops->end_ranks(m, plan, rc, &mine, err);
    /* a failure is this rank's own unless the exchange only reported another rank's */
    int real = rc != 0 || (r2 != 0 && r2 != DIST_PEER_FAILED);
    if (rc == 0)
        rc = r2;
    ag->exchange_s += wall_seconds() - t0;
    int64_t v[8] = {real, stop, !mine.finished,
                    event_sync && !rc ? ops->next_begin(m) : INT64_MAX, (int64_t)mine.events,
                    mine.next_window > plan->index ? mine.next_window : plan->index + 1,
                    ag->step_s > 0 && ag->step_s < 1e9 ? (int64_t)(ag->step_s * 1e9) : 0,
                    mine.irregular != 0};
    const dist_op how[8] = {DIST_MAX, DIST_MAX, DIST_MAX, DIST_MIN, DIST_SUM, DIST_MIN,
                            DIST_MAX, DIST_MAX};
    int arc = agree(v, how, 8, real, rc, ag, err);
    if (arc)
        return arc;
    *out = mine;
    ag->stop = (int)v[1];
    out->finished = v[2] == 0;
    ag->begin = v[3];
    out->events = (uint64_t)v[4];
    out->next_window = v[5];
    ag->step_s = (double)v[6] * 1e-9;
    out->irregular = v[7] != 0;
    return 0;
}

/* What each rank hands the others of its results. */
typedef struct rank_share {
    int32_t failed;
    int32_t n_metrics, n_devices;
    int32_t partial[REPORT_MAX_METRICS];
    wide_int value[REPORT_MAX_METRICS];
    uint64_t model_events, device_bytes, exchanged, sent, migrations, switches, decisions[4];
    uint64_t moves, looks;
    double exchange_s, agree_s;
    device_report devices[REPORT_MAX_DEVICES];
} rank_share;

static void share_of(const run_results *res, const rank_agreement *ag, int rc, rank_share *s)
{
    memset(s, 0, sizeof *s);
    s->failed = rc != 0;
    s->n_metrics = res->n_metrics;
    for (int i = 0; i < res->n_metrics; i++) {
        s->partial[i] = res->metrics[i].partial;
        s->value[i] = res->metrics[i].value;
    }
    s->model_events = res->model_events;
    s->device_bytes = res->device_bytes;
    s->exchanged = res->injector.exchanged_bytes;
    s->sent = res->ranks.sent_bytes;
    s->moves = res->ranks.moves;
    s->looks = res->ranks.looks;
    s->migrations = res->injector.migrations;
    s->switches = res->injector.switches;
    memcpy(s->decisions, res->injector.decisions, sizeof s->decisions);
    s->exchange_s = ag ? ag->exchange_s : 0;
    s->agree_s = ag ? ag->agree_s : 0;
    s->n_devices = res->n_devices;
    memcpy(s->devices, res->devices, sizeof s->devices);
    for (int d = 0; d < s->n_devices; d++)
        s->devices[d].rank = dist_rank();
}

/* Metric I over the ranks' shares ALL (N of them) into RES. */
static int combine_metric(run_results *res, int i, const rank_share *all, int n, cn_error *err)
{
    const model_metric *m = results_metric(res, i);
    const char *name = res->metrics[i].name;
    if (all[0].partial[i] == 0) { /* set whole: the same everywhere */
        for (int r = 1; r < n; r++)
            if (all[r].partial[i] != 0 || all[r].value[i] != all[0].value[i])
                return cn_fail(err, CN_ERR_RUNTIME, "internal error: the metric %s differs "
                               "between MPI ranks 0 and %d", name, r);
        return 0;
    }
    int have = 0;
    wide_int v = 0;
    for (int r = 0; r < n; r++) {
        if (all[r].partial[i] == 0)
            return cn_fail(err, CN_ERR_RUNTIME, "internal error: the metric %s is whole on MPI "
                           "rank %d and partial on rank 0", name, r);
        if (all[r].partial[i] != 1)
            continue; /* that rank held no part of it */
        v = have ? metric_combine(m, v, all[r].value[i]) : all[r].value[i];
        have = 1;
    }
    if (!have && m->absent_zero) {
        res->metrics[i].value = 0;
        res->metrics[i].partial = 1;
        return 0;
    }
    if (!have)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: no partial values of metric %s to "
                       "reduce", name);
    int rc = results_fits(m, name, v, err);
    if (rc)
        return rc;
    res->metrics[i].value = v;
    res->metrics[i].partial = 1;
    return 0;
}

/* The run's results from the ranks' shares ALL (N of them). */
static int combine(run_results *res, const rank_share *all, int n, cn_error *err)
{
    int rc = 0;
    for (int i = 0; i < res->n_metrics && rc == 0; i++)
        rc = combine_metric(res, i, all, n, err);
    if (rc || n == 1)
        return rc;
    res->model_events = res->device_bytes = 0;
    memset(&res->injector.decisions, 0, sizeof res->injector.decisions);
    res->injector.exchanged_bytes = res->injector.migrations = res->injector.switches = 0;
    res->ranks = (ranks_report){.count = n};
    int k = 0;
    for (int r = 0; r < n; r++) {
        const rank_share *s = &all[r];
        res->model_events += s->model_events;
        res->device_bytes += s->device_bytes;
        res->injector.exchanged_bytes += s->exchanged;
        res->injector.migrations += s->migrations;
        res->injector.switches += s->switches;
        for (int p = 0; p < 4; p++)
            res->injector.decisions[p] += s->decisions[p];
        res->ranks.sent_bytes += s->sent;
        if (s->moves > res->ranks.moves) /* every rank counts every move, and look */
            res->ranks.moves = s->moves;
        if (s->looks > res->ranks.looks)
            res->ranks.looks = s->looks;
        if (s->exchange_s > res->ranks.exchange_s)
            res->ranks.exchange_s = s->exchange_s;
        if (s->agree_s > res->ranks.agree_s)
            res->ranks.agree_s = s->agree_s;
        for (int d = 0; d < s->n_devices && k < REPORT_MAX_DEVICES; d++)
            res->devices[k++] = s->devices[d];
    }
    res->n_devices = k;
    /* each device's share of the events of every rank's devices */
    uint64_t all_events = 0;
    for (int d = 0; d < k; d++)
        all_events += res->devices[d].events;
    for (int d = 0; d < k; d++)
        res->devices[d].share = all_events ? (double)res->devices[d].events /
                                                 (double)all_events
                                           : 0;
    return 0;
}

int rank_combine_results(int rc, run_results *res, const rank_agreement *ag, cn_error *err)
{
    int n = dist_size();
    rank_share *all = calloc((size_t)n, sizeof *all);
    rank_share *mine = malloc(sizeof *mine);
    if (!all || !mine) {
        free(all);
        free(mine);
        if (n > 1) { /* the others wait in the gather: this rank cannot leave them there */
            fprintf(stderr, "clnetsim: error: MPI rank %d of %d: out of host memory for the "
                    "results\n", dist_rank(), n);
            dist_abort(CN_ERR_RUNTIME);
        }
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the results");
    }
    share_of(res, ag, rc, mine);
    cn_error own = {0};
    int crc = dist_allgather(mine, all, sizeof *mine, &own);
    int failed = 0;
    for (int r = 0; r < n && !crc; r++)
        failed |= all[r].failed;
    if (!crc && !failed)
        rc = combine(res, all, n, err);
    free(all);
    free(mine);
    if (crc) {
        cn_error_clear(err);
        *err = own;
        return crc;
    }
    /* a combination that failed fails alike on every rank (the same shares) */
    return failed ? agreed_failure(rc != 0, rc, err) : rc;
}
