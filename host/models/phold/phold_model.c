/* PHOLD's description for the engine, its results and the migration of LP ranges. */
#include <stdlib.h>
#include <string.h>

#include "cl/phold/phold_layout.clh"
#include "models/phold/phold.h"
#include "models/phold/phold_model.h"

static const event_kind phold_kinds[PHOLD_N_KINDS] = {
    [PHOLD_EXECUTE] = {"execute", 0x1, 0x1},
};
static const char *const phold_flows[] = {"events"};

/* The determinism contract of docs/models/phold.md, in the order of its JSON members. */
static const model_metric phold_metrics[] = {
    {.name = "lps", .contract = 1},
    {.name = "population", .reduce = METRIC_MAX, .contract = 1}, /* events per LP */
    {.name = "events", .contract = 1},
    {.name = "remote", .contract = 1},
    {.name = "time_sum_ns", .contract = 1},     /* modulo 2^64, as every U64 sum */
    {.name = "lp_weighted_sum", .contract = 1},
    {.name = "lp_events_min", .reduce = METRIC_MIN, .contract = 1},
    {.name = "lp_events_max", .reduce = METRIC_MAX, .contract = 1},
    {.name = "last_time_ns", .reduce = METRIC_MAX, .contract = 1},
    /* outside the contract: windows depend on nothing but the events, but the spec does not
     * name them; written after the "contract" list */
    {.name = "windows", .kind = METRIC_I64, .reduce = METRIC_MAX,
     .summary = METRIC_SUMMARY_MODEL},
};
static const metric_set phold_metric_set = {
    phold_metrics, (int)(sizeof phold_metrics / sizeof phold_metrics[0]), NULL, NULL, NULL};

static sim_time_ns phold_lookahead(const struct model_state *m)
{
    return phold_of_c(m)->lookahead;
}

static sim_time_ns phold_next_begin(const struct model_state *m)
{
    return phold_of_c(m)->next_begin;
}

static int phold_n_partitions(const struct model_state *m)
{
    return (int)phold_of_c(m)->n_parts;
}

static int phold_partition_home(const struct model_state *m, int p)
{
    return phold_of_c(m)->home[p];
}

static uint32_t lps_of(const phold_model *pm, uint32_t p, uint32_t *first)
{
    *first = p * pm->part_lps;
    return pm->N - *first < pm->part_lps ? pm->N - *first : pm->part_lps;
}

static uint64_t phold_partition_bytes(const struct model_state *m, int p)
{
    const phold_model *pm = phold_of_c(m);
    uint32_t first;
    uint64_t n = lps_of(pm, (uint32_t)p, &first);
    return n * (4 + 8 * STAT_WORDS + 16 * (uint64_t)pm->dev[pm->home[p]].slots_per_lp);
}

int phold_results(struct model_state *m, run_results *res, cn_error *err)
{
    phold_model *pm = phold_of(m);
    uint64_t groups = pm->group_base[pm->n_parts];
    /* zeroed: the analysers cannot see that the partitions' reads fill every group */
    uint64_t *part = calloc(RES_WORDS * (groups ? groups : 1), 8);
    if (!part)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = 0;
    for (uint32_t p = pm->p_lo; p < pm->p_hi && rc == 0; p++) {
        phold_device *d = &pm->dev[pm->home[p]];
        cl_uint first, n = lps_of(pm, p, &first), P = pm->part_lps, blk = pm->block[p];
        cl_uint base = (cl_uint)phold_group_at(pm, p);
        rc = kernel_args(d->dev, d->k[PK_RESULTS], "phold.results", err, 7, KARG(n), KARG(P),
                         KARG(blk), KBUF(d->stats), KBUF(d->group_res), KARG(base),
                         KLOCAL(8 * pm->reduce_local));
        if (!rc)
            rc = enqueue_1d(d->dev, d->k[PK_RESULTS], phold_kernel_profile_name(PK_RESULTS), n,
                            pm->reduce_local, NULL, err);
        size_t g0 = pm->group_base[p], gn = pm->group_base[p + 1] - g0;
        if (!rc)
            rc = dbuf_read(d->dev, &d->group_res, 8 * RES_WORDS * (size_t)base, 8 * RES_WORDS * gn,
                           part + RES_WORDS * g0, 0, err);
    }
    for (int i = 0; i < pm->n_devs && rc == 0; i++)
        rc = cl_check(clFinish(pm->dev[i].dev->queue), "clFinish", pm->dev[i].dev->info.name,
                      err);
    if (rc) {
        free(part);
        return rc;
    }
    snprintf(res->model, sizeof res->model, "phold");
    res->seed = pm->sc.seed;
    res->windows = pm->windows;
    res->end_time_ns = pm->T;
    results_declare(res, &phold_metric_set);
    results_set(res, "lps", pm->N);
    results_set(res, "population", pm->E);
    /* each work-group's partial values, reduced by the core as the metrics declare (sums
     * modulo 2^64, least, greatest) */
    static const struct { int word; const char *name; } words[] = {
        {RES_EVENTS, "events"},           {RES_REMOTE, "remote"},
        {RES_TIME_SUM, "time_sum_ns"},    {RES_WEIGHTED_SUM, "lp_weighted_sum"},
        {RES_EVENTS_MIN, "lp_events_min"}, {RES_EVENTS_MAX, "lp_events_max"},
        {RES_LAST, "last_time_ns"}};
    wide_int *values = malloc(sizeof *values * (groups ? groups : 1));
    if (!values)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    /* the groups of this rank's partitions (all of them with one process; none on a rank
     * that holds no partition, whose metrics then count for nothing over the ranks) */
    uint64_t g0 = pm->group_base[pm->p_lo], g1 = pm->group_base[pm->p_hi];
    for (size_t i = 0; i < sizeof words / sizeof words[0] && rc == 0; i++) {
        for (uint64_t g = g0; g < g1; g++)
            values[g - g0] = (wide_int)part[RES_WORDS * g + (uint64_t)words[i].word];
        rc = results_reduce(res, words[i].name, values, (size_t)(g1 - g0), err);
    }
    free(values);
    free(part);
    if (rc)
        return rc;
    results_set(res, "windows", pm->windows);
    uint64_t events = (uint64_t)results_value(res, "events");
    res->model_events = events;
    res->device_bytes = pm->peak_bytes;
    res->host.wait_s = pm->wait_s;
    res->injector.exchanged_bytes = pm->ex.moved_bytes;
    res->ranks.sent_bytes = exchange_rank_bytes(&pm->ex);
    res->ranks.moves = pm->rank_moves;
    res->ranks.looks = pm->rank_looks;
    return 0;
}

int phold_block_read(phold_model *pm, uint32_t p, phold_blob *blob, cn_error *err)
{
    uint32_t first, n = lps_of(pm, p, &first);
    phold_device *a = &pm->dev[pm->home[p]];
    size_t P = pm->part_lps;
    memset(blob, 0, sizeof *blob);
    blob->n = n;
    blob->stat_bytes = 8 * STAT_WORDS * P;
    uint32_t *cnt = malloc(4 * P);
    int rc = cnt ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc) /* blocking: the rows in use are known from the counts */
        rc = dbuf_read(a->dev, &a->cnt, 4 * phold_lp_at(pm, p), 4 * (size_t)n, cnt, 1, err);
    for (uint32_t i = 0; i < n && rc == 0; i++) /* the first rows of the block: those in use */
        blob->rows = cnt[i] > blob->rows ? cnt[i] : blob->rows;
    blob->row_bytes = 8 * P * blob->rows;
    blob->bytes = 4 * P + blob->stat_bytes + 2 * blob->row_bytes;
    blob->data = rc ? NULL : malloc(blob->bytes);
    if (!rc && !blob->data)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for phold partition %u", p);
    unsigned char *at = blob->data;
    if (!rc) {
        memcpy(at, cnt, 4 * (size_t)n);
        rc = dbuf_read(a->dev, &a->stats, 8 * phold_stat_at(pm, p, 0), blob->stat_bytes,
                       at + 4 * P, 0, err);
    }
    size_t slot = 8 * phold_slot_at(pm, p, 0);
    at += 4 * P + blob->stat_bytes;
    if (!rc && blob->rows)
        rc = dbuf_read(a->dev, &a->slot_t, slot, blob->row_bytes, at, 0, err);
    if (!rc && blob->rows) /* blocking: the caller reads the blob next */
        rc = dbuf_read(a->dev, &a->slot_os, slot, blob->row_bytes, at + blob->row_bytes, 1,
                       err);
    free(cnt);
    return rc;
}

int phold_block_write(phold_model *pm, uint32_t p, int to, const phold_blob *blob,
                      cn_error *err)
{
    phold_device *b = &pm->dev[to];
    size_t P = pm->part_lps;
    uint32_t blk = 0;
    int rc = phold_take_block(pm, b, p, &blk, err);
    uint32_t c_new = b->slots_per_lp;
    while (c_new < blob->rows)
        c_new *= 2;
    if (!rc && c_new != b->slots_per_lp)
        rc = phold_grow_slots(pm, b, c_new, err);
    const unsigned char *at = blob->data + 4 * P + blob->stat_bytes;
    size_t slot = 8 * (size_t)blk * b->slots_per_lp * P;
    if (!rc && blob->rows)
        rc = dbuf_write(b->dev, &b->slot_t, slot, blob->row_bytes, at, 0, err);
    if (!rc && blob->rows)
        rc = dbuf_write(b->dev, &b->slot_os, slot, blob->row_bytes, at + blob->row_bytes, 0,
                        err);
    if (!rc)
        rc = dbuf_write(b->dev, &b->cnt, 4 * (size_t)blk * P, 4 * (size_t)blob->n, blob->data,
                        0, err);
    if (!rc) /* blocking: the blob is freed next */
        rc = dbuf_write(b->dev, &b->stats, (size_t)blk * blob->stat_bytes, blob->stat_bytes,
                        blob->data + 4 * P, 1, err);
    if (!rc) {
        pm->home[p] = to;
        pm->block[p] = blk;
    }
    if (pm->acc.peak > pm->peak_bytes)
        pm->peak_bytes = pm->acc.peak;
    return rc;
}

/* Moves partition P's block (counts, statistics, and the rows of slots in use) to a block of
 * device TO, through the host (devices of different contexts share no buffers); the block it
 * leaves is free for the next partition that arrives there. */
int phold_migrate(struct model_state *m, int partition, int to, uint64_t *bytes, cn_error *err)
{
    phold_model *pm = phold_of(m);
    uint32_t p = (uint32_t)partition;
    int from = pm->home[p];
    uint32_t old = pm->block[p];
    *bytes = 0;
    if (from == to)
        return 0;
    phold_blob blob;
    int rc = phold_block_read(pm, p, &blob, err);
    if (!rc)
        rc = phold_block_write(pm, p, to, &blob, err);
    if (!rc)
        rc = exchange_move_home(&pm->ex, (int)p, from, to, err);
    free(blob.data);
    if (rc)
        return rc;
    phold_give_block(pm, &pm->dev[from], old);
    *bytes = 4 * (uint64_t)blob.n + blob.stat_bytes + 2 * (uint64_t)blob.row_bytes;
    pm->migrated += *bytes;
    return 0;
}

/* Windows per read-back (docs/models/phold.md, "How clnetsim runs it"): with one device in
 * one process, chosen by the run when the scenario leaves it at 0, between one and every
 * window of the run (at most PHOLD_PER_READ_MAX); elsewhere every window ends on the host. */
static int phold_knob_range(const struct model_state *m, int64_t *lo, int64_t *hi,
                            int64_t *start)
{
    const phold_model *pm = phold_of_c(m);
    if (!pm->chain)
        return -1;
    int64_t all = (pm->T + pm->lookahead - 1) / pm->lookahead;
    *lo = 1;
    *hi = all < PHOLD_PER_READ_MAX ? all : PHOLD_PER_READ_MAX;
    *start = pm->per_read;
    return pm->per_read_auto;
}

static void phold_knob_set(struct model_state *m, int64_t value)
{
    phold_of(m)->per_read = value;
}

/* proportional: a window costs about the same wherever it runs in a step, which adds a
 * read-back and the host's turn */
static const model_knob phold_knob = {"phold.windows_per_read", phold_knob_range,
                                      phold_knob_set, 1};

const model_ops phold_model_ops = {
    .name = "phold",
    .kinds = phold_kinds,
    .n_kinds = PHOLD_N_KINDS,
    .flows = phold_flows,
    .n_flows = 1,
    .sync = ENGINE_SYNC_EVENT,
    .next_begin = phold_next_begin,
    .knob = &phold_knob,
    /* the devices' kernel-shape self-test and work-group tuning (phold_shapes.c) */
    .features = MODEL_KERNEL_SHAPES,
    .metrics = &phold_metric_set,
    .bench = &phold_bench,
    .create = phold_create,
    .lookahead = phold_lookahead,
    .plan_window = phold_plan_window,
    .run_set = phold_run_set,
    .n_partitions = phold_n_partitions,
    .partition_home = phold_partition_home,
    .partition_bytes = phold_partition_bytes,
    .migrate = phold_migrate,
    .end_window = phold_end_window,
    .end_ranks = phold_end_ranks,
    .can_checkpoint = phold_can_checkpoint,
    .check_checkpoint = phold_checkpoint_check,
    .save = phold_save,
    .restore = phold_restore,
    .results = phold_results,
    .destroy = phold_destroy,
};
