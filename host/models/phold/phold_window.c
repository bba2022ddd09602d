/* PHOLD's window: the execution sets, then at the window's end the delivery of remote events
 * through the core exchange (engine/exchange.h: across devices too, full slots, full outbox),
 * and the least pending time that begins the next window. */
#include <stdlib.h>
#include <string.h>

#include "cl/phold/phold_layout.clh"
#include "dist/dist.h"
#include "models/phold/phold.h"
#include "models/phold/phold_model.h"

_Static_assert(CTL_SERIAL >= XCH_MODEL && CTL_SERIAL < XCH_WORDS,
               "PHOLD's control word is one of the exchange's model words");

static uint32_t part_first(const phold_model *pm, uint32_t p) { return p * pm->part_lps; }

static uint32_t part_size(const phold_model *pm, uint32_t p)
{
    uint32_t first = part_first(pm, p);
    return pm->N - first < pm->part_lps ? pm->N - first : pm->part_lps;
}

static phold_device *device_of(phold_model *pm, const device_ctx *dev)
{
    for (int i = 0; i < pm->n_devs; i++)
        if (pm->dev[i].dev == dev)
            return &pm->dev[i];
    return NULL;
}

/* Waits for every device (when RC is 0), the wait counted in wait_s; returns RC or the
 * first failure. */
static int wait_devices(phold_model *pm, int rc, cn_error *err)
{
    double t0 = wall_seconds();
    for (int i = 0; i < pm->n_devs && rc == 0; i++)
        rc = cl_check(clFinish(pm->dev[i].dev->queue), "clFinish", pm->dev[i].dev->info.name,
                      err);
    pm->wait_s += wall_seconds() - t0;
    return rc;
}

int phold_plan_window(struct model_state *m, window_plan *plan, cn_error *err)
{
    phold_model *pm = phold_of(m);
    (void)err;
    pm->plan_t = wall_seconds();
    pm->tend = plan->begin + pm->lookahead < pm->T ? plan->begin + pm->lookahead : pm->T;
    plan->end = pm->tend;
    pm->until = plan->until;
    for (int i = 0; i < pm->n_devs; i++)
        pm->dev[i].ran = 0;
    for (uint32_t p = pm->p_lo; p < pm->p_hi; p++)
        if (pm->part_min[p] < pm->tend)
            plan->sets[plan->n_sets++] = (event_set){PHOLD_EXECUTE, (int)p, part_size(pm, p)};
    return 0;
}

/* Runs the window on the LPs FROM .. TO - 1 of partition P (offsets within it); a chained
 * window (CHAINED) to the end phold_next found on the device. */
static int launch_execute(phold_model *pm, phold_device *d, uint32_t p, uint32_t from,
                          uint32_t to, int chained, cl_event *ev, cn_error *err)
{
    /* the kernel's LP g of the block is global id g, FROM .. TO - 1 here; it stops at N */
    cl_uint first = part_first(pm, p), n = to, N = pm->N, E = pm->E;
    cl_uint P = pm->part_lps, blk = pm->block[p], C = d->slots_per_lp;
    exchange_device *x = &pm->ex.dev[d - pm->dev];
    cl_uint cap = x->cap;
    cl_long tend = chained ? -1 : pm->tend, A = pm->lookahead;
    cl_ulong thr = pm->remote_thr;
    cl_uint2 key = {{(cl_uint)pm->sc.seed, (cl_uint)(pm->sc.seed >> 32)}};
    cl_kernel k = d->k[PK_EXECUTE];
    int rc = kernel_args(d->dev, k, "phold.execute", err, 21, KARG(first), KARG(n), KARG(P),
                         KARG(blk), KARG(C), KARG(tend), KARG(N), KARG(E), KARG(thr), KARG(A),
                         KARG(key), KBUF(d->exp_table),
                         KBUF(d->cnt), KBUF(d->slot_t), KBUF(d->slot_os), KBUF(d->stats),
                         KBUF(x->out_rec), KBUF(x->out_dest), KARG(cap), KBUF(x->ctl),
                         KBUF(d->win));
    if (!rc && d->cpu_shape) /* phold_execute_cpu: the compact delay table after them */
        rc = kernel_args_from(d->dev, k, "phold.execute", err, 21, 2, KBUF(d->exp_base),
                              KBUF(d->exp_off));
    if (!rc)
        rc = enqueue_1d_from(d->dev, k, phold_kernel_profile_name(PK_EXECUTE), from, to - from,
                             d->local[PK_EXECUTE], ev, err);
    d->ran = 1;
    return rc;
}

/* Over several ranks a launch's records for other ranks leave as soon as it is done (its
 * records for this device take their slots at once: their times are past the window). What a
 * device's last launch exports waits for nothing else to leave, and the other ranks wait for
 * it: the window's last partition runs in slices, so that it is a slice's. */
enum { LAST_SLICES = 4 };
_Static_assert(LAST_SLICES <= ENGINE_MAX_SET_EVENTS, "a slice's event is the set's");

int phold_run_set(struct model_state *m, const window_plan *plan, const event_set *set,
                  device_ctx *dev, cl_event *evs, int *n_evs, cn_error *err)
{
    phold_model *pm = phold_of(m);
    phold_device *d = device_of(pm, dev);
    uint32_t p = (uint32_t)set->partition;
    *n_evs = 0;
    if (!d || &pm->dev[pm->home[p]] != d)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: phold partition %u is not held by "
                       "device '%s'", p, dev->info.name);
    uint64_t n = part_size(pm, p);
    int slices = pm->ex.streaming && set == &plan->sets[plan->n_sets - 1] ? LAST_SLICES : 1;
    int rc = 0;
    for (int s = 0; s < slices && rc == 0; s++) {
        uint32_t from = (uint32_t)(n * (uint64_t)s / (uint64_t)slices);
        uint32_t to = (uint32_t)(n * (uint64_t)(s + 1) / (uint64_t)slices);
        if (from == to)
            continue;
        rc = launch_execute(pm, d, p, from, to, 0, &evs[*n_evs], err);
        if (!rc)
            ++*n_evs;
        if (!rc)
            rc = exchange_segment(&pm->ex, (int)(d - pm->dev), err);
    }
    d->sets++;
    return rc;
}

/* The exchange's consumer: PHOLD's delivery of device DEV's outbox (or inbox) into slots. */
static int consume(void *ctx, int dev, cn_error *err)
{
    phold_model *pm = ctx;
    phold_device *d = &pm->dev[dev];
    exchange_device *x = &pm->ex.dev[dev];
    cl_uint cap = x->cap, C = d->slots_per_lp, part_lps = pm->part_lps;
    cl_int chained = pm->chaining; /* a chained window's: nothing once the chain stopped */
    cl_kernel k = d->k[PK_DELIVER];
    int rc = kernel_args(d->dev, k, "phold.deliver", err, 17, KBUF(x->ctl), KARG(cap),
                         KBUF(x->out_rec), KBUF(x->out_dest), KARG(C), KARG(part_lps),
                         KBUF(x->here), KBUF(d->block_map), KBUF(d->cnt), KBUF(d->slot_t),
                         KBUF(d->slot_os),
                         KBUF(x->def_rec), KBUF(x->def_dest), KBUF(x->x_rec),
                         KBUF(x->x_dest), KBUF(d->win), KARG(chained));
    /* a grid-stride loop: enough work-items that each handles at most 64 records */
    size_t items = cap / 64 + 1;
    if (!rc)
        rc = enqueue_1d(d->dev, k, phold_kernel_profile_name(PK_DELIVER), items,
                        d->local[PK_DELIVER], NULL, err);
    return rc;
}

/* Records found their LP's slots full: the slots grow by half (a few LPs overflow, and every
 * LP pays for the rows). */
static int make_room(void *ctx, int dev, uint32_t n, cn_error *err)
{
    phold_model *pm = ctx;
    phold_device *d = &pm->dev[dev];
    (void)n;
    uint64_t c_new = (uint64_t)d->slots_per_lp + d->slots_per_lp / 2 + 1;
    if (c_new > 0x7fffffffu)
        return device_fail(err, d->dev->info.name, CN_ERR_RUNTIME,
                           "a phold LP holds more than 2^30 pending events on device '%s'",
                           d->dev->info.name);
    return phold_grow_slots(pm, d, (uint32_t)c_new, err);
}

/* Runs the window again on DEV, whose outbox filled: the LPs that stopped go on from where
 * they stopped (the others have nothing left before the window's end). */
static int redo(void *ctx, int dev, cn_error *err)
{
    phold_model *pm = ctx;
    phold_device *d = &pm->dev[dev];
    int rc = 0;
    for (uint32_t p = pm->p_lo; p < pm->p_hi && rc == 0; p++)
        if (&pm->dev[pm->home[p]] == d && pm->part_min[p] < pm->tend)
            rc = launch_execute(pm, d, p, 0, part_size(pm, p), 0, NULL, err);
    return rc;
}

static int check_words(void *ctx, int dev, const uint32_t *words, cn_error *err)
{
    phold_model *pm = ctx;
    if (words[CTL_SERIAL] > 0)
        return device_fail(err, pm->dev[dev].dev->info.name, CN_ERR_RUNTIME,
                           "a phold LP executed 2^32 events less its population: its serial "
                           "numbers no longer fit 32 bits; use a shorter duration");
    return 0;
}

/* The rank that holds partition P (exchange_config.rank). */
static int partition_rank(const struct model_state *m, int p)
{
    return phold_of_c(m)->rank_of[p];
}

int phold_exchange_init(phold_model *pm, uint32_t capacity, cn_error *err)
{
    device_ctx *devs[ENGINE_MAX_DEVICES];
    for (int i = 0; i < pm->n_devs; i++)
        devs[i] = pm->dev[i].dev;
    exchange_config cfg = {
        .record_bytes = 16,
        .n_parts = pm->n_parts,
        .span = pm->part_lps,
        .capacity = capacity,
        .home = phold_model_ops.partition_home,
        .rank = partition_rank,
        .model = (const struct model_state *)(const void *)pm,
        .consumer = {pm, consume, make_room, redo, check_words},
    };
    pm->ex_ready = 1; /* released on destroy, however far it got */
    return exchange_init(&pm->ex, &cfg, devs, pm->n_devs, &pm->acc, err);
}

/* What the engine learns at the end of a step: its window, and the CHAINED ones after it
 * (with several ranks, of this rank's partitions: the engine agrees on the run's). IRREGULAR:
 * the step grew a buffer and ran sets again. */
static int window_done(phold_model *pm, const window_plan *plan, int64_t chained,
                       int irregular, window_outcome *out)
{
    pm->windows += 1 + chained;
    if (pm->acc.peak > pm->peak_bytes)
        pm->peak_bytes = pm->acc.peak;
    window_outcome_event(out, plan, pm->next_begin, pm->T, pm->executed);
    out->next_window += chained;
    out->reached = pm->tend;
    out->irregular = irregular;
    return 0;
}

static int enqueue_min(phold_model *pm, int read, cn_error *err);

/* Windows the step runs: the value in force when the run may chain them, at most those left
 * before the duration (each next window ends a lookahead or more later); one when its first
 * window reaches the step's limit already (window_plan.until; phold_next stops at it). */
static int64_t step_windows(const phold_model *pm)
{
    if (!pm->chain || pm->per_read <= 1 || pm->tend >= pm->T || pm->tend >= pm->until)
        return 1;
    int64_t left = 1 + (pm->T - pm->tend + pm->lookahead - 1) / pm->lookahead;
    return pm->per_read < left ? pm->per_read : left;
}

/* phold_next on the one device: arms the next chained window, or stops the chain. */
static int launch_next(phold_model *pm, phold_device *d, cn_error *err)
{
    cl_uint n = d->n_chain_groups;
    cl_long A = pm->lookahead, T = pm->T, until = pm->until;
    cl_kernel k = d->k[PK_NEXT];
    int rc = kernel_args(d->dev, k, "phold.next", err, 9, KBUF(pm->ex.dev[0].ctl),
                         KBUF(d->win), KBUF(d->group_min), KBUF(d->chain_groups), KARG(n),
                         KARG(A), KARG(T), KARG(until), KLOCAL(8 * d->local[PK_NEXT]));
    return rc ? rc : enqueue_1d(d->dev, k, phold_kernel_profile_name(PK_NEXT),
                                d->local[PK_NEXT], d->local[PK_NEXT], NULL, err);
}

/* The W - 1 chained windows after the step's first (one device, one process), enqueued
 * behind it: each begins where phold_next finds the least pending time on the device, runs
 * every partition (an LP with nothing due returns at once), delivers and takes its least
 * times; once phold_next stops the chain (the exchange needs the host, or the duration is
 * reached) the rest do nothing. Then the one read-back: the least times, the exchange's
 * words and the chain's (WIN_TEND: the end of the last window armed, whose words these are). */
static int enqueue_chain(phold_model *pm, int64_t w, cn_error *err)
{
    phold_device *d = &pm->dev[0];
    pm->win_start[WIN_TEND] = pm->tend;
    int rc = dbuf_write(d->dev, &d->win, 0, sizeof pm->win_start, pm->win_start, 0, err);
    pm->chaining = 1;
    /* At most PHOLD_CHAIN_AHEAD windows are enqueued beyond the one the device runs: every
     * half of it the chain's words are read back (not blocking) behind the window armed, and
     * the host waits for the read made that many windows back. What it read says whether the
     * chain stopped: then no more windows are enqueued, for the rest would do nothing and
     * yet cost their launches (a thousand windows of them, a tenth of a second on an H200). */
    cl_event mark[2] = {NULL, NULL};
    int m = 0, stopped = 0;
    for (int64_t j = 1; j < w && rc == 0 && !stopped; j++) {
        rc = launch_next(pm, d, err);
        for (uint32_t p = pm->p_lo; p < pm->p_hi && rc == 0; p++)
            rc = launch_execute(pm, d, p, 0, part_size(pm, p), 1, NULL, err);
        if (!rc)
            rc = consume(pm, 0, err);
        if (!rc)
            rc = enqueue_min(pm, 0, err);
        if (rc || j % (PHOLD_CHAIN_AHEAD / 2) != 0)
            continue;
        if (mark[m]) {
            rc = cl_check(clWaitForEvents(1, &mark[m]), "clWaitForEvents", d->dev->info.name,
                          err);
            clReleaseEvent(mark[m]);
            mark[m] = NULL;
            stopped = !rc && pm->win_mark[m][WIN_STOP] != 0;
        }
        if (!rc && !stopped)
            rc = dbuf_read_event(d->dev, &d->win, 0, sizeof pm->win_mark[m], pm->win_mark[m],
                                 0, &mark[m], err);
        m ^= 1;
    }
    pm->chaining = 0;
    for (int i = 0; i < 2; i++)
        if (mark[i])
            clReleaseEvent(mark[i]);
    if (!rc) /* the last window's least times */
        rc = enqueue_min(pm, 1, err);
    if (!rc)
        rc = exchange_read_words(&pm->ex, 0, err);
    if (!rc)
        rc = dbuf_read(d->dev, &d->win, 0, sizeof pm->win_host, pm->win_host, 0, err);
    return rc;
}

int phold_end_window(struct model_state *m, const window_plan *plan, window_outcome *out,
                     cn_error *err)
{
    phold_model *pm = phold_of(m);
    exchange *ex = &pm->ex;
    int rc = 0;
    exchange_clear_words(ex);
    for (int i = 0; i < pm->n_devs && rc == 0; i++)
        if (pm->dev[i].ran)
            rc = exchange_deliver(ex, i, err);
    /* The usual window needs nothing more than the delivery: the least times are computed
     * with it, and the host waits once. With several devices holding partitions records may
     * cross, so the minimum waits for the exchange; with several ranks it waits for
     * phold_end_ranks, after the records between ranks. */
    int alone = exchange_single_home(ex), ranks = dist_size() > 1;
    int64_t w = step_windows(pm), chained = 0;
    if (!rc && alone)
        rc = enqueue_min(pm, w == 1, err);
    if (!rc && w > 1)
        rc = enqueue_chain(pm, w, err);
    if (!rc)
        rc = exchange_stream(ex, err);
    rc = wait_devices(pm, rc, err);
    if (!rc && w > 1) { /* the last window armed: its end, and its words were read */
        chained = pm->win_host[WIN_RAN];
        pm->tend = pm->win_host[WIN_TEND];
    }
    int more = !alone || exchange_needs_more(ex);
    if (!rc && more) {
        rc = exchange_settle(ex, err);
        if (!rc && !ranks)
            rc = phold_enqueue_minimum(pm, err);
        rc = wait_devices(pm, rc, err);
    }
    /* the control words start the next window at zero (ordered before its launches) */
    for (int i = 0; i < pm->n_devs && rc == 0 && !ranks; i++)
        if (pm->dev[i].ran || more)
            rc = exchange_reset(ex, i, err);
    if (!rc && !ranks)
        phold_collect_minimum(pm);
    /* this rank's own work (the coordinator's measure): the waits for others come after */
    pm->busy_s += wall_seconds() - pm->plan_t;
    return rc || ranks ? rc : window_done(pm, plan, chained, more && alone, out);
}

int phold_end_ranks(struct model_state *m, const window_plan *plan, int failed,
                    window_outcome *out, cn_error *err)
{
    phold_model *pm = phold_of(m);
    int rc = exchange_flush(&pm->ex, failed, err), settled = 0;
    /* the least times are computed behind the arrivals' delivery, with one wait for both,
     * and again if records were deferred past it */
    if (!rc)
        rc = phold_enqueue_minimum(pm, err);
    rc = wait_devices(pm, rc, err);
    if (!rc)
        rc = exchange_settle_arrivals(&pm->ex, &settled, err);
    if (!rc && settled)
        rc = phold_find_minimum(pm, err);
    else if (!rc)
        phold_collect_minimum(pm);
    for (int i = 0; i < pm->n_devs && rc == 0; i++)
        rc = exchange_reset(&pm->ex, i, err);
    /* every rank, whatever failed: the coordinator's look is a collective */
    rc = phold_balance(pm, rc, err);
    return rc ? rc : window_done(pm, plan, 0, 0, out);
}

int phold_enqueue_minimum(phold_model *pm, cn_error *err) { return enqueue_min(pm, 1, err); }

/* phold_min on every partition, and when READ the least times read back (not blocking). */
static int enqueue_min(phold_model *pm, int read, cn_error *err)
{
    int rc = 0;
    for (uint32_t p = pm->p_lo; p < pm->p_hi && rc == 0; p++) {
        phold_device *d = &pm->dev[pm->home[p]];
        cl_uint n = part_size(pm, p), P = pm->part_lps, blk = pm->block[p];
        cl_uint C = d->slots_per_lp, base = (cl_uint)phold_group_at(pm, p);
        rc = kernel_args(d->dev, d->k[PK_MIN], "phold.min", err, 10, KARG(n), KARG(P),
                         KARG(blk), KARG(C), KBUF(d->cnt), KBUF(d->slot_t), KBUF(d->stats),
                         KBUF(d->group_min), KARG(base), KLOCAL(8 * pm->reduce_local));
        if (!rc)
            rc = enqueue_1d(d->dev, d->k[PK_MIN], phold_kernel_profile_name(PK_MIN), n,
                            pm->reduce_local, NULL, err);
        size_t g0 = pm->group_base[p], gn = pm->group_base[p + 1] - g0;
        if (!rc && read)
            rc = dbuf_read(d->dev, &d->group_min, 16 * (size_t)base, 16 * gn,
                           pm->group_min_host + 2 * g0, 0, err);
    }
    return rc;
}

void phold_collect_minimum(phold_model *pm)
{
    pm->next_begin = INT64_MAX;
    pm->executed = 0;
    for (uint32_t p = pm->p_lo; p < pm->p_hi; p++) {
        int64_t mn = INT64_MAX;
        for (uint32_t g = pm->group_base[p]; g < pm->group_base[p + 1]; g++) {
            if (pm->group_min_host[2 * g] < mn)
                mn = pm->group_min_host[2 * g];
            pm->executed += (uint64_t)pm->group_min_host[2 * g + 1];
        }
        pm->part_min[p] = mn;
        if (mn < pm->next_begin)
            pm->next_begin = mn;
    }
}

int phold_find_minimum(phold_model *pm, cn_error *err)
{
    int rc = phold_enqueue_minimum(pm, err);
    rc = wait_devices(pm, rc, err);
    if (!rc)
        phold_collect_minimum(pm);
    return rc;
}
