/* Kademlia's window: each partition's peers run their events before the window's end; at the
 * end, the least pending time of every partition, and the control words that say whether a
 * peer needed more lookup records (the window then runs again on that device) or whether the
 * rows must be read back. */
#include <stdlib.h>
#include <string.h>

#include "cl/kademlia/kademlia_layout.clh"
#include "dist/dist.h"
#include "models/kademlia/kademlia.h"
#include "models/kademlia/kademlia_model.h"

int kad_plan_window(struct model_state *m, window_plan *plan, cn_error *err)
{
    kad_model *km = kad_of(m);
    (void)err;
    /* W windows of latency_min: within them each peer runs its lookups as far as they go
     * (none waits on another peer's) */
    int64_t span = km->T - plan->begin, w = km->batch;
    if (plan->until > plan->begin && (plan->until - plan->begin - 1) / km->lmin + 1 < w)
        w = (plan->until - plan->begin - 1) / km->lmin + 1; /* its first end at or after it */
    km->tend = w <= span / km->lmin ? plan->begin + w * km->lmin : km->T;
    plan->end = km->tend;
    for (int i = 0; i < km->n_devs; i++)
        km->dev[i].ran = 0;
    for (uint32_t p = km->p_lo; p < km->p_hi; p++)
        if (km->part_min[p] < km->tend)
            plan->sets[plan->n_sets++] = (event_set){KADEMLIA_WINDOW, (int)p,
                                                     kad_part_size(km, p)};
    return 0;
}

static int launch_window(kad_model *km, kad_device *d, uint32_t p, cl_event *ev, cn_error *err)
{
    cl_uint first = kad_part_first(km, p), n = kad_part_size(km, p), P = km->part_peers;
    cl_uint blk = km->block[p], S = d->slots, N = km->N, B = km->B;
    cl_uint peers = (cl_uint)km->targets_peers, rows_on = (cl_uint)km->rows_on;
    cl_uint row_cap = d->row_cap;
    cl_long tend = km->tend, lmin = km->lmin;
    cl_ulong span1 = (cl_ulong)(km->lmax - km->lmin) + 1, d1 = (cl_ulong)km->gap_max + 1;
    cl_uint2 key = {{(cl_uint)km->sc.seed, (cl_uint)(km->sc.seed >> 32)}};
    cl_uint base = (cl_uint)((size_t)blk * km->block_groups);
    int kk = km->fused ? KK_WINDOW_MIN : KK_WINDOW;
    cl_kernel k = d->k[kk];
    const char *name = kad_kernel_profile_name(kk);
    /* the arguments that change between launches first: most launches set only those */
    cl_uint churn = km->session > 0;
    cl_long rto = km->rto;
    int rc = kernel_args_cached(d->dev, k, &d->window_args, name, err, 0, 30, KARG(first),
                                KARG(n), KARG(blk), KARG(tend), KARG(S), KARG(P), KARG(N),
                                KARG(B), KARG(lmin), KARG(span1), KARG(d1), KARG(peers),
                                KARG(key), KARG(rows_on), KARG(row_cap), KBUF(d->ids),
                                KBUF(d->toff), KBUF(d->lbase), KBUF(d->lpos), KBUF(d->contacts),
                                KBUF(d->pstate), KBUF(d->look), KBUF(d->stats), KBUF(d->hist),
                                KBUF(d->ctl), KBUF(d->rows), KARG(churn), KARG(rto),
                                KBUF(d->bounds), KBUF(d->boff));
    if (!rc && km->fused)
        rc = kernel_args_cached(d->dev, k, &d->window_args, name, err, 30, 3, KARG(base),
                                KBUF(d->group_min), KLOCAL(8 * km->reduce_local));
    /* the fused kernel's work-groups are the reduction's: every device's of one size */
    if (!rc)
        rc = enqueue_1d(d->dev, k, name, n, km->fused ? km->reduce_local : d->local[kk], ev,
                        err);
    d->ran = 1;
    return rc;
}

int kad_run_set(struct model_state *m, const window_plan *plan, const event_set *set,
                device_ctx *dev, cl_event *evs, int *n_evs, cn_error *err)
{
    kad_model *km = kad_of(m);
    uint32_t p = (uint32_t)set->partition;
    (void)plan;
    *n_evs = 0;
    kad_device *d = &km->dev[km->home[p]];
    if (d->dev != dev)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: kademlia partition %u is not held "
                       "by device '%s'", p, dev->info.name);
    int rc = launch_window(km, d, p, &evs[0], err);
    if (!rc)
        *n_evs = 1;
    return rc;
}

/* Enqueues the reads of every partition's groups (their least pending times and events run)
 * and of the control words; no wait. The groups are computed first (kad_min) for every
 * partition when COMPUTE is MIN_ALL (at the start), for those that ran this window when
 * MIN_RAN (kad_window leaves them to kad_min), for none when MIN_NONE (kad_window_min
 * computed them in its launch); a partition that did not run keeps its groups. */
enum { MIN_NONE, MIN_RAN, MIN_ALL };

static int enqueue_minimum(kad_model *km, int compute, cn_error *err)
{
    int rc = 0;
    cl_uint P = km->part_peers;
    for (uint32_t p = km->p_lo; p < km->p_hi && rc == 0; p++) {
        kad_device *d = &km->dev[km->home[p]];
        cl_uint n = kad_part_size(km, p), blk = km->block[p];
        cl_uint base = (cl_uint)((size_t)blk * km->block_groups);
        const char *name = kad_kernel_profile_name(KK_MIN);
        int run = compute == MIN_ALL || (compute == MIN_RAN && km->part_min[p] < km->tend);
        if (run)
            rc = kernel_args_cached(d->dev, d->k[KK_MIN], &d->min_args, name, err, 0, 8,
                                    KARG(n), KARG(blk), KARG(base), KARG(P), KBUF(d->pstate),
                                    KBUF(d->stats), KBUF(d->group_min),
                                    KLOCAL(8 * km->reduce_local));
        if (!rc && run)
            rc = enqueue_1d(d->dev, d->k[KK_MIN], name, n, km->reduce_local, NULL, err);
        size_t g0 = km->group_base[p], gn = km->group_base[p + 1] - g0;
        if (!rc)
            rc = dbuf_read(d->dev, &d->group_min, 16 * (size_t)base, 16 * gn,
                           km->group_min_host + 2 * g0, 0, err);
    }
    for (int i = 0; i < km->n_devs && rc == 0; i++)
        rc = dbuf_read(km->dev[i].dev, &km->dev[i].ctl, 0, sizeof km->dev[i].words,
                       km->dev[i].words, 0, err);
    return rc;
}

static void collect_minimum(kad_model *km)
{
    km->next_begin = INT64_MAX;
    km->executed = 0;
    for (uint32_t p = km->p_lo; p < km->p_hi; p++) {
        int64_t mn = INT64_MAX;
        for (uint32_t g = km->group_base[p]; g < km->group_base[p + 1]; g++) {
            if (km->group_min_host[2 * g] < mn)
                mn = km->group_min_host[2 * g];
            km->executed += (uint64_t)km->group_min_host[2 * g + 1];
        }
        km->part_min[p] = mn;
        if (mn < km->next_begin)
            km->next_begin = mn;
    }
}

/* The control words of device D: an error the run cannot go past. */
static int check_words(const kad_model *km, const kad_device *d, cn_error *err)
{
    if (d->words[CTL_NUMBERS] > 0)
        return device_fail(err, d->dev->info.name, CN_ERR_RUNTIME,
                           "a kademlia peer started 2^32 lookups: their numbers no longer fit "
                           "32 bits; use a shorter duration or a longer lookup_gap_max");
    if (km->rows_on && d->words[CTL_ROWS] > d->row_cap)
        return device_fail(err, d->dev->info.name, CN_ERR_RUNTIME,
                           "internal error: the kademlia lookup rows passed their room on "
                           "device '%s'", d->dev->info.name);
    return 0;
}

int kad_find_minimum(kad_model *km, int start, cn_error *err)
{
    int rc = enqueue_minimum(km, start ? MIN_ALL : km->fused ? MIN_NONE : MIN_RAN, err);
    rc = kad_wait(km, rc, err);
    for (int i = 0; i < km->n_devs && rc == 0; i++)
        rc = check_words(km, &km->dev[i], err);
    if (!rc)
        collect_minimum(km);
    return rc;
}

/* A device whose peers needed more lookup records: they grow by a quarter (at least one),
 * and the window runs again there, where only the starts left have something to do. Every
 * peer of the device gets them (the busiest peer sets the pace), hence the small steps. */
static int regrow(kad_model *km, kad_device *d, cn_error *err)
{
    uint64_t want = (uint64_t)d->slots + (d->slots / 4 ? d->slots / 4 : 1);
    if (d->words[CTL_SLOTS] > want)
        want = d->words[CTL_SLOTS];
    uint32_t zero = 0;
    int rc = want > 0xffff ? device_fail(err, d->dev->info.name, CN_ERR_RUNTIME,
                                         "a kademlia peer needs more than 65535 lookups open at "
                                         "once on device '%s'; use a longer lookup_gap_max",
                                         d->dev->info.name)
                           : kad_grow_records(km, d, (uint32_t)want, err);
    if (!rc)
        rc = dbuf_write(d->dev, &d->ctl, 4 * CTL_SLOTS, 4, &zero, 1, err);
    if (!rc)
        rc = kad_fit_rows(km, d, err);
    for (uint32_t p = km->p_lo; p < km->p_hi && rc == 0; p++)
        if (&km->dev[km->home[p]] == d && km->part_min[p] < km->tend)
            rc = launch_window(km, d, p, NULL, err);
    return rc;
}

int kad_fit_rows(kad_model *km, kad_device *d, cn_error *err)
{
    uint64_t cap = 4 * d->held * d->slots + 1024;
    if (!km->rows_on || cap <= d->row_cap || cap >= (1u << 30))
        return 0;
    int rc = kad_drain_rows(km, err);
    dbuf_release(&d->rows, &km->acc);
    if (!rc)
        rc = dbuf_alloc(d->dev, &d->rows, 4 * ROW_WORDS * (size_t)cap, &km->acc,
                        "kademlia lookup rows", err);
    if (!rc)
        d->row_cap = (uint32_t)cap;
    memset(&d->window_args, 0, sizeof d->window_args);
    return rc;
}

int kad_add_row(kad_model *km, const uint32_t *w)
{
    int64_t *c = record_table_append(&km->rows);
    if (!c)
        return -1;
    uint32_t outcome = w[6] & 3u, target[5];
    kad_target_words(km, w[0], w[1], target);
    c[0] = w[0];
    c[1] = w[1];
    c[2] = (int64_t)(((uint64_t)w[3] << 32) | w[2]);
    for (int q = 0; q < 5; q++)
        c[3 + q] = target[q];
    c[8] = outcome < 3 ? outcome : ROW_OPEN; /* the labels are the outcomes, in ROW_* order */
    c[9] = outcome == ROW_OPEN ? -1 : (int64_t)(((uint64_t)w[5] << 32) | w[4]);
    c[10] = outcome == ROW_COMPLETED ? (int64_t)w[7] : -1;
    c[11] = w[8];
    c[12] = (w[6] >> 2) & 1u;
    return 0;
}

void kad_row_words(const int64_t *c, uint32_t *w)
{
    uint64_t start = (uint64_t)c[2], end = c[9] < 0 ? 0 : (uint64_t)c[9];
    w[0] = (uint32_t)c[0];
    w[1] = (uint32_t)c[1];
    w[2] = (uint32_t)start;
    w[3] = (uint32_t)(start >> 32);
    w[4] = (uint32_t)end;
    w[5] = (uint32_t)(end >> 32);
    w[6] = (uint32_t)c[8] | (uint32_t)c[12] << 2;
    w[7] = c[10] < 0 ? 0xffffffffu : (uint32_t)c[10];
    w[8] = (uint32_t)c[11];
}

int kad_drain_rows(kad_model *km, cn_error *err)
{
    int rc = 0;
    for (int i = 0; i < km->n_devs && rc == 0; i++) {
        kad_device *d = &km->dev[i];
        uint32_t got[CTL_WORDS];
        rc = dbuf_read(d->dev, &d->ctl, 0, sizeof got, got, 1, err);
        uint32_t n = got[CTL_ROWS] < d->row_cap ? got[CTL_ROWS] : d->row_cap;
        uint32_t *rows = rc || n == 0 ? NULL : malloc(4 * ROW_WORDS * (size_t)n);
        if (!rc && n > 0 && !rows)
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the lookups' rows");
        if (!rc && n > 0)
            rc = dbuf_read(d->dev, &d->rows, 0, 4 * ROW_WORDS * (size_t)n, rows, 1, err);
        for (uint32_t r = 0; r < n && rc == 0; r++)
            if (kad_add_row(km, rows + (size_t)r * ROW_WORDS) != 0)
                rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the lookups' rows");
        free(rows);
        if (!rc && n > 0) {
            uint32_t zero = 0;
            rc = dbuf_write(d->dev, &d->ctl, 4 * CTL_ROWS, 4, &zero, 1, err);
        }
    }
    return rc;
}

/* What the engine learns at the end of a window (with several ranks, of this rank's
 * partitions: the engine agrees on the run's). */
static int window_done(kad_model *km, const window_plan *plan, window_outcome *out)
{
    km->windows++;
    if (km->acc.peak > km->peak_bytes)
        km->peak_bytes = km->acc.peak;
    window_outcome_event(out, plan, km->next_begin, km->T, km->executed);
    out->irregular = km->regrew; /* its time is the launches' again: not the knob's doing */
    return 0;
}

int kad_end_window(struct model_state *m, const window_plan *plan, window_outcome *out,
                   cn_error *err)
{
    kad_model *km = kad_of(m);
    int rc = kad_find_minimum(km, 0, err);
    /* peers that needed more lookup records: grown, and the window again there */
    km->regrew = 0;
    for (int again = 1; again && rc == 0;) {
        again = 0;
        for (int i = 0; i < km->n_devs && rc == 0; i++)
            if (km->dev[i].words[CTL_SLOTS] > 0) {
                rc = regrow(km, &km->dev[i], err);
                again = km->regrew = 1;
            }
        if (again && !rc)
            rc = kad_find_minimum(km, 0, err);
    }
    /* the rows are read back before a window could close more than are left room for */
    int drain = 0;
    for (int i = 0; i < km->n_devs && km->rows_on; i++) {
        const kad_device *d = &km->dev[i];
        drain |= (uint64_t)d->words[CTL_ROWS] + d->held * d->slots > d->row_cap;
    }
    if (!rc && drain)
        rc = kad_drain_rows(km, err);
    /* several ranks: the engine calls kad_end_ranks next (nothing crosses ranks) */
    if (rc || dist_size() > 1)
        return rc;
    return window_done(km, plan, out);
}

int kad_end_ranks(struct model_state *m, const window_plan *plan, int failed,
                  window_outcome *out, cn_error *err)
{
    (void)err;
    return failed ? failed : window_done(kad_of(m), plan, out);
}
