/* Kademlia's description for the engine, its results and its rows. */
#include <stdlib.h>
#include <string.h>

#include "cl/kademlia/kademlia_layout.clh"
#include "dist/dist.h"
#include "models/kademlia/kademlia.h"
#include "models/kademlia/kademlia_ckpt_format.h"
#include "models/kademlia/kademlia_model.h"

static const event_kind kad_kinds[KADEMLIA_N_KINDS] = {
    [KADEMLIA_WINDOW] = {"window", 0x1, 0x1},
};
static const char *const kad_flows[] = {"lookups"};

/* The determinism contract of docs/models/kademlia.md, in the order of its JSON members. */
static const model_metric kad_metrics[] = {
    {.name = "peers", .contract = 1},
    {.name = "id_bits", .contract = 1},
    {.name = "bucket_size", .contract = 1},
    {.name = "alpha", .contract = 1},
    {.name = "lookups_started", .kind = METRIC_I64, .contract = 1},
    {.name = "lookups_completed", .kind = METRIC_I64, .contract = 1},
    {.name = "lookups_failed", .kind = METRIC_I64, .contract = 1},
    {.name = "lookups_found", .kind = METRIC_I64, .contract = 1},
    {.name = "messages", .kind = METRIC_I64, .contract = 1},
    {.name = "events", .kind = METRIC_I64, .contract = 1},
    {.name = "hops_sum", .kind = METRIC_I64, .contract = 1},
    /* the least over completed lookups: 0 when none completed anywhere */
    {.name = "hops_min", .kind = METRIC_I64, .reduce = METRIC_MIN, .contract = 1,
     .absent_zero = 1},
    {.name = "hops_max", .kind = METRIC_I64, .reduce = METRIC_MAX, .contract = 1},
    {.name = "latency_sum_ns", .kind = METRIC_I64, .contract = 1},
    {.name = "latency_min_ns", .kind = METRIC_I64, .reduce = METRIC_MIN, .contract = 1,
     .absent_zero = 1},
    {.name = "latency_max_ns", .kind = METRIC_I64, .reduce = METRIC_MAX, .contract = 1},
    {.name = "hops_histogram", .kind = METRIC_I64, .contract = 1,
     .summary = METRIC_SUMMARY_MODEL, .elements = KAD_HOPS_BINS},
    {.name = "latency_histogram", .kind = METRIC_I64, .contract = 1,
     .summary = METRIC_SUMMARY_MODEL, .elements = KAD_LATENCY_BINS},
    {.name = "peers_alive", .kind = METRIC_I64, .contract = 1},
    {.name = "last_time_ns", .kind = METRIC_I64, .reduce = METRIC_MAX, .contract = 1},
    /* outside the contract: windows depend on nothing but the events, but the spec does not
     * name them */
    {.name = "windows", .kind = METRIC_I64, .reduce = METRIC_MAX,
     .summary = METRIC_SUMMARY_MODEL},
    /* the lookup records each peer had at the end (the most of any device): they follow the
     * busiest peer's open lookups */
    {.name = "lookup_records", .kind = METRIC_I64, .reduce = METRIC_MAX,
     .summary = METRIC_SUMMARY_MODEL},
};
static void kad_summary_tail(const run_results *r, FILE *out);
static const metric_set kad_metric_set = {kad_metrics,
                                          (int)(sizeof kad_metrics / sizeof kad_metrics[0]),
                                          NULL, NULL, kad_summary_tail};

/* --lookups (docs/models/kademlia.md, "Outputs"): one row per lookup started, by (origin,
 * number); the target is the B-bit integer in hexadecimal */
static const record_column kad_row_columns[] = {
    {"origin", RECORD_INT, 0},   {"number", RECORD_INT, 0},  {"start_ns", RECORD_INT, 0},
    {"target", RECORD_HEX, 5},   {"outcome", RECORD_LABEL, 0}, {"end_ns", RECORD_INT, 0},
    {"hops", RECORD_INT, 0},     {"requests", RECORD_INT, 0}, {"found", RECORD_INT, 0},
};
const record_shape kad_rows_shape = {
    kad_row_columns, (int)(sizeof kad_row_columns / sizeof kad_row_columns[0]), 0};

static sim_time_ns kad_lookahead(const struct model_state *m) { return kad_of_c(m)->lmin; }
static sim_time_ns kad_next_begin(const struct model_state *m) { return kad_of_c(m)->next_begin; }
static int kad_n_partitions(const struct model_state *m) { return (int)kad_of_c(m)->n_parts; }
static int kad_partition_home(const struct model_state *m, int p) { return kad_of_c(m)->home[p]; }

static uint64_t kad_partition_bytes(const struct model_state *m, int p)
{
    const kad_model *km = kad_of_c(m);
    uint64_t n = kad_part_size(km, (uint32_t)p);
    return n * (8 * PS_WORDS + 8 * KS_WORDS + 4ull * km->dev[km->home[p]].slots * km->lw);
}

/* Each partition's counters, read from its home: PARTS[p * KAD_PART_VALUES + v]. */
enum {
    PV_STARTED, PV_COMPLETED, PV_FAILED, PV_FOUND, PV_MESSAGES, PV_EVENTS, PV_HOPS_SUM,
    PV_HOPS_MIN, PV_HOPS_MAX, PV_LAT_SUM, PV_LAT_MIN, PV_LAT_MAX, PV_LAST,
    PV_HIST, /* the histograms' bins after */
    KAD_PART_VALUES = PV_HIST + KAD_HOPS_BINS + KAD_LATENCY_BINS
};

static int read_partition(kad_model *km, uint32_t p, wide_int *v, cn_error *err)
{
    kad_device *d = &km->dev[km->home[p]];
    size_t P = km->part_peers, n = kad_part_size(km, p), b = km->block[p];
    int64_t *ps = malloc(8 * PS_WORDS * P);
    uint64_t *st = malloc(8 * KS_WORDS * P);
    uint32_t hist[KAD_HIST_WORDS];
    int rc = ps && st ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc)
        rc = dbuf_read(d->dev, &d->pstate, 8 * b * PS_WORDS * P, 8 * PS_WORDS * P, ps, 0, err);
    if (!rc)
        rc = dbuf_read(d->dev, &d->stats, 8 * b * KS_WORDS * P, 8 * KS_WORDS * P, st, 0, err);
    if (!rc)
        rc = dbuf_read(d->dev, &d->hist, 4 * b * KAD_HIST_WORDS, sizeof hist, hist, 1, err);
    uint64_t hmin = UINT64_MAX, lmin = UINT64_MAX, hmax = 0, lmax = 0, last = 0;
    wide_int sum[KS_WORDS] = {0}, started = 0;
    for (size_t g = 0; g < n && rc == 0; g++) {
        started += ps[PS_STARTED * P + g];
        for (int s = 0; s < KS_WORDS; s++)
            sum[s] += (wide_int)st[s * P + g];
        hmin = st[KS_HOPS_MIN * P + g] < hmin ? st[KS_HOPS_MIN * P + g] : hmin;
        lmin = st[KS_LAT_MIN * P + g] < lmin ? st[KS_LAT_MIN * P + g] : lmin;
        hmax = st[KS_HOPS_MAX * P + g] > hmax ? st[KS_HOPS_MAX * P + g] : hmax;
        lmax = st[KS_LAT_MAX * P + g] > lmax ? st[KS_LAT_MAX * P + g] : lmax;
        last = st[KS_LAST * P + g] > last ? st[KS_LAST * P + g] : last;
    }
    if (!rc) {
        v[PV_STARTED] = started - sum[KS_SKIPPED]; /* churn: starts while offline were none */
        v[PV_COMPLETED] = sum[KS_COMPLETED];
        v[PV_FAILED] = sum[KS_FAILED];
        v[PV_FOUND] = sum[KS_FOUND];
        v[PV_MESSAGES] = sum[KS_MESSAGES];
        v[PV_EVENTS] = sum[KS_EVENTS];
        v[PV_HOPS_SUM] = sum[KS_HOPS_SUM];
        v[PV_LAT_SUM] = sum[KS_LAT_SUM];
        v[PV_HOPS_MIN] = (wide_int)hmin; /* UINT64_MAX: none completed here */
        v[PV_LAT_MIN] = (wide_int)lmin;
        v[PV_HOPS_MAX] = (wide_int)hmax;
        v[PV_LAT_MAX] = (wide_int)lmax;
        v[PV_LAST] = (wide_int)last;
        for (int h = 0; h < KAD_HOPS_BINS + KAD_LATENCY_BINS; h++)
            v[PV_HIST + h] = (wide_int)(((uint64_t)hist[2 * h + 1] << 32) | hist[2 * h]);
    }
    free(ps);
    free(st);
    return rc;
}

/* Several ranks: every rank's rows to rank 0 (their labels are the same indices everywhere:
 * kad_create registers them in order), which then holds them all. */
static int gather_rows(kad_model *km, cn_error *err)
{
    if (dist_size() == 1)
        return 0;
    size_t w = (size_t)record_row_cells(&kad_rows_shape);
    void *all = NULL;
    uint64_t total = 0;
    int rc = dist_gatherv(km->rows.cells, (uint64_t)km->rows.n * w, sizeof(int64_t), &all,
                          &total, err);
    if (!rc && dist_rank() == 0) {
        km->rows.n = 0; /* its own come back first, in rank order */
        for (uint64_t r = 0; r < total / w && rc == 0; r++) {
            int64_t *c = record_table_append(&km->rows);
            if (!c)
                rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the lookups' rows");
            else
                memcpy(c, (const int64_t *)all + r * w, w * sizeof *c);
        }
    }
    free(all);
    return rc;
}

/* The open lookups' rows, then every row the devices still hold, then (several ranks) every
 * rank's on rank 0. */
static int finish_rows(kad_model *km, run_results *res, cn_error *err)
{
    int rc = 0;
    cl_uint P = km->part_peers;
    for (uint32_t p = km->p_lo; p < km->p_hi && rc == 0; p++) {
        kad_device *d = &km->dev[km->home[p]];
        cl_uint first = kad_part_first(km, p), n = kad_part_size(km, p), blk = km->block[p];
        cl_uint S = d->slots, cap = d->row_cap;
        const char *name = kad_kernel_profile_name(KK_OPEN_ROWS);
        rc = kernel_args(d->dev, d->k[KK_OPEN_ROWS], name, err, 9, KARG(first), KARG(n),
                         KARG(P), KARG(blk), KARG(S), KBUF(d->look), KBUF(d->ctl), KBUF(d->rows),
                         KARG(cap));
        if (!rc)
            rc = enqueue_1d(d->dev, d->k[KK_OPEN_ROWS], name, n, d->local[KK_OPEN_ROWS], NULL,
                            err);
    }
    rc = kad_wait(km, rc, err);
    for (int i = 0; i < km->n_devs && rc == 0; i++) {
        uint32_t got[CTL_WORDS];
        rc = dbuf_read(km->dev[i].dev, &km->dev[i].ctl, 0, sizeof got, got, 1, err);
        if (!rc && got[CTL_ROWS] > km->dev[i].row_cap)
            rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: the kademlia lookup rows passed "
                         "their room on device '%s'", km->dev[i].dev->info.name);
    }
    if (!rc)
        rc = kad_drain_rows(km, err);
    /* a collective: every rank takes part, whatever failed here */
    int grc = gather_rows(km, err);
    if (!rc)
        rc = grc;
    if (!rc) {
        res->records = km->rows;
        memset(&km->rows, 0, sizeof km->rows);
    }
    return rc;
}

int kad_results(struct model_state *m, run_results *res, cn_error *err)
{
    kad_model *km = kad_of(m);
    /* this rank's partitions (every one with one process; none on a rank that holds none,
     * whose parts then count for nothing over the ranks) */
    uint32_t n_local = km->p_hi - km->p_lo;
    wide_int *parts = calloc((size_t)(n_local ? n_local : 1) * KAD_PART_VALUES, sizeof *parts);
    wide_int *vals = calloc(n_local ? n_local : 1, sizeof *vals);
    int rc = parts && vals ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t q = 0; q < n_local && rc == 0; q++)
        rc = read_partition(km, km->p_lo + q, parts + (size_t)q * KAD_PART_VALUES, err);
    if (km->rows_on) { /* a collective over the ranks: every rank comes, whatever failed */
        int rrc = finish_rows(km, res, err);
        if (!rc)
            rc = rrc;
    }
    if (!rc) {
        snprintf(res->model, sizeof res->model, "kademlia");
        res->seed = km->sc.seed;
        res->windows = km->windows;
        res->end_time_ns = km->T;
        results_declare(res, &kad_metric_set);
        results_set(res, "peers", km->N);
        results_set(res, "id_bits", km->B);
        results_set(res, "bucket_size", km->K);
        results_set(res, "alpha", km->alpha);
        int64_t alive = 0; /* every rank holds every peer's periods: each counts them all */
        for (uint32_t j = 0; j < km->N; j++)
            alive += kad_online(km, j, km->T);
        results_set(res, "peers_alive", alive);
        results_set(res, "windows", km->windows);
    }
    /* each device's, the most over the devices (and the ranks) */
    wide_int records[ENGINE_MAX_DEVICES];
    for (int i = 0; i < km->n_devs; i++)
        records[i] = km->dev[i].slots;
    if (!rc)
        rc = results_reduce(res, "lookup_records", records, (size_t)km->n_devs, err);
    static const struct { int v; const char *name; } sums[] = {
        {PV_STARTED, "lookups_started"}, {PV_COMPLETED, "lookups_completed"},
        {PV_FAILED, "lookups_failed"},   {PV_FOUND, "lookups_found"},
        {PV_MESSAGES, "messages"},       {PV_EVENTS, "events"},
        {PV_HOPS_SUM, "hops_sum"},       {PV_LAT_SUM, "latency_sum_ns"},
        {PV_HOPS_MAX, "hops_max"},       {PV_LAT_MAX, "latency_max_ns"},
        {PV_LAST, "last_time_ns"},
    };
    for (size_t s = 0; s < sizeof sums / sizeof sums[0] && rc == 0; s++) {
        for (uint32_t q = 0; q < n_local; q++)
            vals[q] = parts[(size_t)q * KAD_PART_VALUES + sums[s].v];
        rc = results_reduce(res, sums[s].name, vals, n_local, err);
    }
    /* the least of the partitions where a lookup completed; none here: no part (0 when no
     * partition of any rank completed one: the metrics' absent_zero) */
    static const struct { int v; const char *name; } mins[] = {
        {PV_HOPS_MIN, "hops_min"}, {PV_LAT_MIN, "latency_min_ns"}};
    for (size_t s = 0; s < 2 && rc == 0; s++) {
        size_t n = 0;
        for (uint32_t q = 0; q < n_local; q++)
            if (parts[(size_t)q * KAD_PART_VALUES + mins[s].v] != (wide_int)UINT64_MAX)
                vals[n++] = parts[(size_t)q * KAD_PART_VALUES + mins[s].v];
        rc = results_reduce(res, mins[s].name, vals, n, err);
    }
    for (int h = 0; h < KAD_HOPS_BINS + KAD_LATENCY_BINS && rc == 0; h++) {
        for (uint32_t q = 0; q < n_local; q++)
            vals[q] = parts[(size_t)q * KAD_PART_VALUES + PV_HIST + h];
        rc = h < KAD_HOPS_BINS
                 ? results_reduce_at(res, "hops_histogram", h, vals, n_local, err)
                 : results_reduce_at(res, "latency_histogram", h - KAD_HOPS_BINS, vals, n_local,
                                     err);
    }
    free(parts);
    free(vals);
    if (rc)
        return rc;
    res->model_events = (uint64_t)results_value(res, "events");
    res->device_bytes = km->peak_bytes;
    res->host.wait_s = km->wait_s;
    return 0;
}

/* The summary's lines in the model's words. */
static void kad_summary_tail(const run_results *r, FILE *out)
{
    int64_t done = results_i64(r, "lookups_completed");
    fprintf(out, "lookups      %lld started, %lld completed, %lld failed\n",
            (long long)results_i64(r, "lookups_started"), (long long)done,
            (long long)results_i64(r, "lookups_failed"));
    if (done > 0)
        fprintf(out, "hops         mean %.3f (%lld to %lld); latency mean %.6f s\n",
                (double)results_i64(r, "hops_sum") / (double)done,
                (long long)results_i64(r, "hops_min"), (long long)results_i64(r, "hops_max"),
                (double)results_i64(r, "latency_sum_ns") / (double)done * 1e-9);
    fprintf(out, "windows      %lld\n", (long long)results_i64(r, "windows"));
    /* the scale a device holds (the JSON's device_bytes over peers): the routing tables and
     * ids, which every device holds whole, and each peer's state and lookup records */
    int64_t peers = results_i64(r, "peers");
    if (peers > 0)
        fprintf(out, "per peer     %.0f bytes on the devices (at the peak)\n",
                (double)r->device_bytes / (double)peers);
}

/* Windows per launch (docs/models/kademlia.md, "How clnetsim runs it"): chosen by the run
 * when the scenario leaves it at 0, between one and every window of the run. */
static int kad_knob_range(const struct model_state *m, int64_t *lo, int64_t *hi,
                          int64_t *start)
{
    const kad_model *km = kad_of_c(m);
    int64_t all = (km->T + km->lmin - 1) / km->lmin;
    *lo = 1;
    *hi = all < KAD_BATCH_MAX ? all : KAD_BATCH_MAX;
    *start = km->batch; /* KAD_BATCH_START when chosen (the engine keeps it within range) */
    return km->batch_auto;
}

static void kad_knob_set(struct model_state *m, int64_t value) { kad_of(m)->batch = value; }

/* proportional: more windows in a launch only spread its fixed cost (no peer waits on
 * another's events, docs/models/kademlia.md) */
static const model_knob kad_knob = {"kademlia.windows_per_launch", kad_knob_range,
                                    kad_knob_set, 1};

const model_ops kademlia_model_ops = {
    .name = "kademlia",
    .kinds = kad_kinds,
    .n_kinds = KADEMLIA_N_KINDS,
    .flows = kad_flows,
    .n_flows = 1,
    .sync = ENGINE_SYNC_EVENT,
    .next_begin = kad_next_begin,
    .features = MODEL_PACKET_ROWS,
    .rows_option = "--lookups",
    .knob = &kad_knob,
    .metrics = &kad_metric_set,
    .bench = &kademlia_bench,
    .create = kad_create,
    .lookahead = kad_lookahead,
    .plan_window = kad_plan_window,
    .run_set = kad_run_set,
    .n_partitions = kad_n_partitions,
    .partition_home = kad_partition_home,
    .partition_bytes = kad_partition_bytes,
    .end_window = kad_end_window,
    .end_ranks = kad_end_ranks,
    .results = kad_results,
    .destroy = kad_destroy,
    .can_checkpoint = kad_can_checkpoint,
    .check_checkpoint = kad_checkpoint_check,
    .save = kad_save,
    .restore = kad_restore,
};
