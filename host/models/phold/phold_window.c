/* PHOLD's window: the execution sets, then at the window's end the delivery of remote events
 * (across devices too), the rare paths (full slots, full outbox), and the least pending time
 * that begins the next window. */
#include <stdlib.h>
#include <string.h>

#include "cl/phold/phold_layout.clh"
#include "models/phold/phold.h"
#include "models/phold/phold_model.h"

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

static int finish(phold_device *d, cn_error *err)
{
    cl_int st = clFinish(d->dev->queue);
    return cl_check(st, "clFinish", d->dev->info.name, err);
}

int phold_plan_window(struct model *m, window_plan *plan, cn_error *err)
{
    phold_model *pm = phold_of(m);
    (void)err;
    pm->tend = plan->begin + pm->lookahead < pm->T ? plan->begin + pm->lookahead : pm->T;
    plan->end = pm->tend;
    for (int i = 0; i < pm->n_devs; i++)
        pm->dev[i].ran = 0;
    for (uint32_t p = 0; p < pm->n_parts; p++)
        if (pm->part_min[p] < pm->tend)
            plan->sets[plan->n_sets++] = (event_set){PHOLD_EXECUTE, (int)p, part_size(pm, p)};
    return 0;
}

static int launch_execute(phold_model *pm, phold_device *d, uint32_t p, cl_event *ev,
                          cn_error *err)
{
    cl_uint first = part_first(pm, p), n = part_size(pm, p), N = pm->N, E = pm->E;
    cl_uint cap = d->out_cap;
    cl_long tend = pm->tend, A = pm->lookahead;
    cl_ulong thr = pm->remote_thr;
    cl_uint2 key = {{(cl_uint)pm->sc.seed, (cl_uint)(pm->sc.seed >> 32)}};
    cl_kernel k = d->k[PK_EXECUTE];
    int rc = kernel_args(d->dev, k, "phold_execute", err, 17, KARG(first), KARG(n), KARG(tend),
                         KARG(N), KARG(E), KARG(thr), KARG(A), KARG(key), KBUF(d->exp_table),
                         KBUF(d->cnt), KBUF(d->slot_t), KBUF(d->slot_os), KBUF(d->stats),
                         KBUF(d->out_ev), KBUF(d->out_dest), KARG(cap), KBUF(d->ctl));
    if (!rc)
        rc = enqueue_1d(d->dev, k, phold_kernel_profile_name(PK_EXECUTE), n,
                        d->local[PK_EXECUTE], ev, err);
    d->ran = 1;
    return rc;
}

int phold_run_set(struct model *m, const window_plan *plan, const event_set *set,
                  device_ctx *dev, cl_event *evs, int *n_evs, cn_error *err)
{
    phold_model *pm = phold_of(m);
    (void)plan;
    phold_device *d = device_of(pm, dev);
    uint32_t p = (uint32_t)set->partition;
    if (!d || &pm->dev[pm->home[p]] != d)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: phold partition %u is not held by "
                       "device '%s'", p, dev->info.name);
    int rc = launch_execute(pm, d, p, &evs[0], err);
    *n_evs = rc ? 0 : 1;
    d->sets++;
    return rc;
}

/* Enqueues the delivery of D's outbox and the read of its control words. */
static int deliver(phold_model *pm, phold_device *d, cn_error *err)
{
    cl_uint cap = d->out_cap, N = pm->N, C = d->slots_per_lp, part_lps = pm->part_lps;
    cl_kernel k = d->k[PK_DELIVER];
    int rc = kernel_args(d->dev, k, "phold_deliver", err, 15, KBUF(d->ctl), KARG(cap),
                         KBUF(d->out_ev), KBUF(d->out_dest), KARG(N), KARG(C), KARG(part_lps),
                         KBUF(d->here), KBUF(d->cnt), KBUF(d->slot_t), KBUF(d->slot_os),
                         KBUF(d->ovf_ev),
                         KBUF(d->ovf_dest), KBUF(d->x_ev), KBUF(d->x_dest));
    /* a grid-stride loop: enough work-items that each handles at most 64 records */
    size_t items = cap / 64 + 1;
    if (!rc)
        rc = enqueue_1d(d->dev, k, phold_kernel_profile_name(PK_DELIVER), items,
                        d->local[PK_DELIVER], NULL, err);
    if (!rc)
        rc = dbuf_read(d->dev, &d->ctl, 0, sizeof d->ctl_host, d->ctl_host, 0, err);
    return rc;
}

static int write_ctl(phold_device *d, cn_error *err)
{
    return dbuf_write(d->dev, &d->ctl, 0, sizeof d->ctl_host, d->ctl_host, 1, err);
}

/* Delivers again, until none is left, the records that found their LP's slots full: the
 * slots grow by half each time. D's control words are read (ctl_host) on entry. */
static int settle_overflow(phold_model *pm, phold_device *d, cn_error *err)
{
    int rc = 0;
    while (rc == 0 && d->ctl_host[CTL_OVERFLOW] > 0) {
        uint32_t n = d->ctl_host[CTL_OVERFLOW];
        /* half as many again: a few LPs overflow, and every LP pays for the rows */
        uint64_t c_new = (uint64_t)d->slots_per_lp + d->slots_per_lp / 2 + 1;
        if (c_new > 0x7fffffffu)
            return device_fail(err, d->dev->info.name, CN_ERR_RUNTIME,
                               "a phold LP holds more than 2^30 pending events on device '%s'",
                               d->dev->info.name);
        rc = phold_grow_slots(pm, d, (uint32_t)c_new, err);
        cl_int st = CL_SUCCESS;
        if (!rc) {
            st = clEnqueueCopyBuffer(d->dev->queue, d->ovf_ev.mem, d->out_ev.mem, 0, 0,
                                     16 * (size_t)n, 0, NULL, NULL);
            if (st == CL_SUCCESS)
                st = clEnqueueCopyBuffer(d->dev->queue, d->ovf_dest.mem, d->out_dest.mem, 0, 0,
                                         4 * (size_t)n, 0, NULL, NULL);
            rc = cl_check(st, "clEnqueueCopyBuffer", d->dev->info.name, err);
        }
        if (!rc) {
            d->ctl_host[CTL_OUT] = n;
            d->ctl_host[CTL_OVERFLOW] = 0;
            rc = write_ctl(d, err);
        }
        if (!rc)
            rc = deliver(pm, d, err);
        if (!rc)
            rc = finish(d, err);
    }
    return rc;
}

/* Delivers D's outbox, waits, and delivers again whatever found its LP full. */
static int deliver_and_settle(phold_model *pm, phold_device *d, cn_error *err)
{
    int rc = deliver(pm, d, err);
    if (!rc)
        rc = finish(d, err);
    return rc ? rc : settle_overflow(pm, d, err);
}

static int grow_stage(phold_model *pm, size_t need, cn_error *err)
{
    if (need <= pm->stage_cap)
        return 0;
    size_t cap = pm->stage_cap ? pm->stage_cap : 4096;
    while (cap < need)
        cap *= 2;
    uint32_t *dest = realloc(pm->stage_dest, cap * sizeof *dest);
    if (dest)
        pm->stage_dest = dest;
    uint32_t(*ev)[4] = realloc(pm->stage_ev, cap * sizeof *ev);
    if (ev)
        pm->stage_ev = ev;
    if (!dest || !ev)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the phold records between "
                       "devices");
    pm->stage_cap = cap;
    return 0;
}

/* Carries the records every device exported to the devices that hold their LPs: read to the
 * host, grouped by destination, written into each destination's outbox (in chunks of its
 * capacity) and delivered there. */
static int exchange(phold_model *pm, uint64_t *moved, cn_error *err)
{
    size_t total = 0;
    for (int i = 0; i < pm->n_devs; i++)
        total += pm->dev[i].ctl_host[CTL_EXPORT];
    if (total == 0)
        return 0;
    int rc = grow_stage(pm, 2 * total, err);
    size_t at = 0;
    for (int i = 0; i < pm->n_devs && rc == 0; i++) {
        phold_device *d = &pm->dev[i];
        uint32_t n = d->ctl_host[CTL_EXPORT];
        if (n == 0)
            continue;
        rc = dbuf_read(d->dev, &d->x_ev, 0, 16 * (size_t)n, pm->stage_ev[at], 0, err);
        if (!rc)
            rc = dbuf_read(d->dev, &d->x_dest, 0, 4 * (size_t)n, pm->stage_dest + at, 1, err);
        d->ctl_host[CTL_EXPORT] = 0;
        at += n;
    }
    *moved += 20 * (uint64_t)total;
    /* the second half of the staging area: the records of one destination device */
    uint32_t *dest = pm->stage_dest + total;
    uint32_t(*ev)[4] = pm->stage_ev + total;
    for (int i = 0; i < pm->n_devs && rc == 0; i++) {
        phold_device *d = &pm->dev[i];
        size_t n = 0;
        for (size_t r = 0; r < total; r++)
            if (&pm->dev[pm->home[pm->stage_dest[r] / pm->part_lps]] == d) {
                dest[n] = pm->stage_dest[r];
                memcpy(ev[n], pm->stage_ev[r], sizeof ev[n]);
                n++;
            }
        for (size_t off = 0; off < n && rc == 0; off += d->out_cap) {
            uint32_t chunk = n - off < d->out_cap ? (uint32_t)(n - off) : d->out_cap;
            rc = dbuf_write(d->dev, &d->out_ev, 0, 16 * (size_t)chunk, ev[off], 0, err);
            if (!rc)
                rc = dbuf_write(d->dev, &d->out_dest, 0, 4 * (size_t)chunk, dest + off, 0, err);
            d->ctl_host[CTL_OUT] = chunk;
            d->ctl_host[CTL_EXPORT] = 0;
            if (!rc)
                rc = write_ctl(d, err);
            if (!rc)
                rc = deliver_and_settle(pm, d, err);
        }
    }
    return rc;
}

/* Runs the window again on D, whose outbox filled: the LPs that stopped go on from where they
 * stopped (the others have nothing left before the window's end). */
static int rerun_stalled(phold_model *pm, phold_device *d, cn_error *err)
{
    uint64_t cap = 2 * (uint64_t)d->out_cap;
    if (cap > (1u << 30))
        cap = 1u << 30;
    int rc = phold_grow_outbox(pm, d, (uint32_t)cap, err);
    memset(d->ctl_host, 0, sizeof d->ctl_host);
    if (!rc)
        rc = write_ctl(d, err);
    for (uint32_t p = 0; p < pm->n_parts && rc == 0; p++)
        if (&pm->dev[pm->home[p]] == d && pm->part_min[p] < pm->tend)
            rc = launch_execute(pm, d, p, NULL, err);
    return rc ? rc : deliver_and_settle(pm, d, err);
}

/* Whether a device's control words ask for more than the delivery already done. */
static int needs_more(const phold_device *d)
{
    return d->ctl_host[CTL_OVERFLOW] || d->ctl_host[CTL_EXPORT] || d->ctl_host[CTL_STALLED] ||
           d->ctl_host[CTL_SERIAL];
}

/* The rare paths, until every record is delivered: full slots, records for other devices,
 * LPs stopped by a full outbox. */
static int settle(phold_model *pm, uint64_t *moved, cn_error *err)
{
    int rc = 0;
    for (int i = 0; i < pm->n_devs && rc == 0; i++)
        rc = settle_overflow(pm, &pm->dev[i], err);
    for (int again = 1; again && rc == 0;) {
        rc = exchange(pm, moved, err);
        again = 0;
        for (int i = 0; i < pm->n_devs && rc == 0; i++) {
            phold_device *d = &pm->dev[i];
            if (d->ctl_host[CTL_SERIAL] > 0)
                return device_fail(err, d->dev->info.name, CN_ERR_RUNTIME,
                                   "a phold LP executed 2^32 events less its population: its "
                                   "serial numbers no longer fit 32 bits; use a shorter "
                                   "duration");
            if (d->ctl_host[CTL_STALLED] > 0) {
                rc = rerun_stalled(pm, d, err);
                again = 1;
            }
        }
    }
    return rc;
}

int phold_end_window(struct model *m, const window_plan *plan, window_outcome *out,
                     cn_error *err)
{
    phold_model *pm = phold_of(m);
    int rc = 0;
    for (int i = 0; i < pm->n_devs; i++)
        memset(pm->dev[i].ctl_host, 0, sizeof pm->dev[i].ctl_host);
    for (int i = 0; i < pm->n_devs && rc == 0; i++)
        if (pm->dev[i].ran)
            rc = deliver(pm, &pm->dev[i], err);
    /* The usual window needs nothing more than the delivery: the least times are computed
     * with it, and the host waits once. With several devices holding partitions records may
     * cross, so the minimum waits for the exchange. */
    int alone = 1;
    for (uint32_t p = 1; p < pm->n_parts; p++)
        alone &= pm->home[p] == pm->home[0];
    if (!rc && alone)
        rc = phold_enqueue_minimum(pm, err);
    double t0 = wall_seconds();
    for (int i = 0; i < pm->n_devs && rc == 0; i++)
        rc = finish(&pm->dev[i], err);
    pm->wait_s += wall_seconds() - t0;
    int more = !alone;
    for (int i = 0; i < pm->n_devs; i++)
        more |= needs_more(&pm->dev[i]);
    uint64_t moved = 0;
    if (!rc && more) {
        rc = settle(pm, &moved, err);
        if (!rc)
            rc = phold_enqueue_minimum(pm, err);
        t0 = wall_seconds();
        for (int i = 0; i < pm->n_devs && rc == 0; i++)
            rc = finish(&pm->dev[i], err);
        pm->wait_s += wall_seconds() - t0;
    }
    /* the control words start the next window at zero (ordered before its launches) */
    for (int i = 0; i < pm->n_devs && rc == 0; i++)
        if (pm->dev[i].ran || more)
            rc = dbuf_zero(pm->dev[i].dev, &pm->dev[i].ctl, 0, pm->dev[i].ctl.bytes, err);
    if (!rc)
        phold_collect_minimum(pm);
    pm->windows++;
    pm->exchanged += moved;
    if (pm->acc.peak > pm->peak_bytes)
        pm->peak_bytes = pm->acc.peak;
    memset(out, 0, sizeof *out);
    out->finished = pm->next_begin >= pm->T;
    out->events = pm->executed;
    out->next_window = plan->index + 1;
    out->estimated_end = pm->T;
    out->drained = 1;
    return rc;
}

int phold_enqueue_minimum(phold_model *pm, cn_error *err)
{
    int rc = 0;
    for (uint32_t p = 0; p < pm->n_parts && rc == 0; p++) {
        phold_device *d = &pm->dev[pm->home[p]];
        cl_uint first = part_first(pm, p), n = part_size(pm, p), N = pm->N;
        cl_uint C = d->slots_per_lp, base = pm->group_base[p];
        rc = kernel_args(d->dev, d->k[PK_MIN], "phold_min", err, 10, KARG(first), KARG(n),
                         KARG(N), KARG(C), KBUF(d->cnt), KBUF(d->slot_t), KBUF(d->stats),
                         KBUF(d->group_min), KARG(base), KLOCAL(8 * pm->reduce_local));
        if (!rc)
            rc = enqueue_1d(d->dev, d->k[PK_MIN], phold_kernel_profile_name(PK_MIN), n,
                            pm->reduce_local, NULL, err);
        size_t g0 = pm->group_base[p], gn = pm->group_base[p + 1] - g0;
        if (!rc)
            rc = dbuf_read(d->dev, &d->group_min, 16 * g0, 16 * gn, pm->group_min_host + 2 * g0,
                           0, err);
    }
    return rc;
}

void phold_collect_minimum(phold_model *pm)
{
    pm->next_begin = INT64_MAX;
    pm->executed = 0;
    for (uint32_t p = 0; p < pm->n_parts; p++) {
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
    double t0 = wall_seconds();
    for (int i = 0; i < pm->n_devs && rc == 0; i++)
        rc = finish(&pm->dev[i], err);
    pm->wait_s += wall_seconds() - t0;
    if (!rc)
        phold_collect_minimum(pm);
    return rc;
}
