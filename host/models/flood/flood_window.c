/* Flood model: the window loop's side (plan, run, end of window, results). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cl/flood/flood_layout.clh"
#include "dist/dist.h"
#include "models/flood/flood_ckpt_format.h"
#include "models/flood/flood_metrics.h"
#include "models/flood/flood_model.h"

static const event_kind flood_kinds[FLOOD_N_KINDS] = {
    /* flows: 0 positions, 1 cell lists, 2 seen bitsets, 3 frontier, 4 counters */
    [FLOOD_MOVE] = {"move", 1u << 0, 1u << 0},
    [FLOOD_BIN] = {"bin", 1u << 0, 1u << 1},
    [FLOOD_TRANSMIT] = {"transmit", (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3),
                        (1u << 2) | (1u << 3) | (1u << 4)},
    /* whole packets (flood_packets.c): reads the neighbour lists, writes its own state */
    [FLOOD_PACKETS] = {"flood_packets", 1u << 1, (1u << 2) | (1u << 3) | (1u << 4)},
};
static const char *const flood_flows[] = {"positions", "cells", "seen", "frontier", "counters"};

/* Words of a new packet in the window descriptor: (slot, packet), and with flows its source,
 * time (lo, hi), destination and flow (cl/flood/flood.cl, NEW_WORDS). */
static uint32_t new_words(const flood_model *m)
{
    return m->flows ? 7u : 2u;
}

static sim_time_ns flood_lookahead(const struct model_state *state)
{
    const flood_model *m = flood_const_of(state);
    return m->L;
}

static void add_set(window_plan *plan, int kind, int partition, uint64_t multiplicity)
{
    event_set *s = &plan->sets[plan->n_sets++];
    s->kind = kind;
    s->partition = partition;
    s->multiplicity = multiplicity;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Bound on the relays of a window of ENTRIES entries whose packets hold IN_FLIGHT slots:
 * every node relays each packet at most once (its seen bit), so never more than IN_FLIGHT x n;
 * static, also every entry relays to at most the maximum degree. Moving nodes have no degree
 * bound (max_degree is that of static graphs; their graph changes with every window). */
static uint64_t relays_bound(const flood_model *m, uint64_t entries, uint64_t in_flight)
{
    uint64_t by_nodes = in_flight * m->n; /* both below 2^32 */
    /* (over several ranks max_degree is of this rank's partitions only) */
    return m->mobile || m->ranked ? by_nodes
                                                        : min_u64(entries * m->max_degree,
                                                                  by_nodes);
}

/* Slots whose packets may still relay: those neither free nor retired (a slot is freed or
 * retired only once its packet made no relay in a window read back). */
static uint64_t in_flight(const flood_model *m)
{
    return (uint64_t)(m->slots - m->n_free - m->n_dirty);
}

/* Bound on the entries of window W (its relays-in plus its new packets). Exact when the host
 * has read back window W - 1; one window later the relays of window W - 1 are bounded as
 * relays_bound says, by its entries and by the packets in flight (planned before window W's
 * new packets take slots, these are window W - 1's). */
static uint64_t entries_bound(const flood_model *m, int64_t w, uint32_t n_new)
{
    if (m->processed == w - 1)
        return (uint64_t)m->relays_known + n_new;
    uint64_t prev = (uint64_t)m->relays_known + m->n_new_of[(w - 1) & 3];
    return relays_bound(m, prev, in_flight(m)) + n_new;
}

/* The transmissions partition P's set of the planned window handles: once the last window
 * has been read back, the relays its nodes made there (known per device: the device's count
 * shared among the HELD[d] partitions it held) and the new packets; before that, the window's
 * bound. Each partition's own share, not the window's total, is what the injector prices:
 * with the total, a device holding a quiet partition would look fast for every partition. */
static uint64_t transmit_multiplicity(const flood_model *m, uint32_t p, const uint32_t *held)
{
    /* Run ahead with moving nodes, the bound is some 20 times the true count (packets in
     * flight x n): priced by it, the device's per-event cost would be learnt that much too
     * low. The last window read back made about as many relays as the one under way. */
    if (m->mobile && m->processed != m->planned - 1)
        return min_u64((uint64_t)m->relays_known + m->n_new, m->entries_bound);
    if (m->n_parts == 1 || m->processed != m->planned - 1)
        return m->entries_bound;
    int d = m->home[p];
    if (!(m->relays_mask & (1 << d)))
        return m->n_new; /* its device made no relays last window */
    return ((uint64_t)m->relays_of[d] + held[d] - 1) / held[d] + m->n_new;
}

/* The first partition each replica holds (-1: none), which names its MOVE and BIN sets. */
static void first_partitions(const flood_model *m, int *first)
{
    for (int d = 0; d < m->n_rep; d++)
        first[d] = -1;
    for (uint32_t p = m->p_hi; p-- > m->p_lo;)
        first[m->home[p]] = (int)p;
}

static int prepare_transmit(flood_model *m, const window_plan *plan, transmit_prep *p,
                            cn_error *err);

/* The host's side of window PLAN on a rank holding no partition: what run_transmit's first
 * and last sets do to the host's state on the ranks that run it. */
static int bystander_window(flood_model *m, const window_plan *plan, cn_error *err)
{
    int rc = prepare_transmit(m, plan, &m->prep, err);
    if (rc)
        return rc;
    m->prep_window = plan->index;
    m->cur ^= 1;
    return 0;
}

static int flood_plan(struct model_state *state, window_plan *plan, cn_error *err)
{
    flood_model *m = flood_of(state);
    if (m->whole)
        return flood_packets_plan(m, plan);
    m->transmitted = 0;
    m->ran_mask = 0;
    m->busy_t0 = wall_seconds(); /* several ranks: the coordinator's busy time */
    m->export_pending = 0;
    /* After a jump over idle windows nothing was in flight: they count as read back. */
    if (m->rb_count == 0 && m->processed < plan->index - 1)
        m->processed = plan->index - 1;
    m->n_new = flood_packets_due(m, plan->end);
    m->n_new_of[plan->index & 3] = m->n_new;
    m->planned = plan->index;
    m->entries_bound = entries_bound(m, plan->index, m->n_new);
    /* Positions and cell lists are replicated: one set each per device holding partitions,
     * named after its first partition. A transmit set on a device that skipped them (its
     * partition just migrated there) catches up first. */
    int first[FLOOD_MAX_REPLICAS];
    first_partitions(m, first);
    if (m->mobile && plan->index >= 1)
        for (int d = 0; d < m->n_rep; d++)
            if (first[d] >= 0)
                add_set(plan, FLOOD_MOVE, first[d], m->n);
    /* under a scheme, packets whose nodes wait for decisions need the window too */
    if (m->entries_bound == 0 && !(m->scheme_window && m->scheme_waiting > 0))
        return 0;
    /* a rank holding no partition (several ranks, fewer partitions): no set, but the
     * window's packets take their slots here as on the ranks that run it, whose relays it
     * applies at the window's end (flood_ranks.c), so that every rank plans alike */
    if (m->p_lo == m->p_hi)
        return bystander_window(m, plan, err);
    if (m->mobile)
        for (int d = 0; d < m->n_rep; d++)
            if (first[d] >= 0)
                add_set(plan, FLOOD_BIN, first[d], m->n);
    /* Per partition: the transmissions whose receptions in the partition it handles. */
    uint32_t held[FLOOD_MAX_REPLICAS] = {0};
    for (uint32_t p = m->p_lo; p < m->p_hi; p++)
        held[m->home[p]]++;
    /* (several ranks: this rank's partitions) */
    for (uint32_t p = m->p_lo; p < m->p_hi; p++) {
        if (plan->n_sets == ENGINE_MAX_SETS)
            return cn_fail(err, CN_ERR_INPUT, "%u partitions make more than the %d event sets "
                           "a window can hold; use fewer partitions", m->n_parts,
                           ENGINE_MAX_SETS);
        add_set(plan, FLOOD_TRANSMIT, (int)p, transmit_multiplicity(m, p, held));
    }
    return 0;
}

/* Gives each new packet of the window a free slot; returns the window descriptor (new
 * packets, then the retired slots this window clears) in *DESC, its length in *LEN. */
static int assign_packets(flood_model *m, const window_plan *plan, uint32_t **desc,
                          uint32_t *len, cl_uint *n_clear, cn_error *err)
{
    int rc = 0;
    if (m->n_free < m->n_new) /* packets dead in windows not yet read back free their slots */
        rc = flood_process_until(m, plan->index - 1, err);
    if (!rc && m->n_free < m->n_new && m->n_dirty > 0) {
        /* rare: too few clean slots; clear the retired ones now rather than grow */
        size_t slot_bytes = (size_t)m->words * 4;
        for (uint32_t i = 0; i < m->n_dirty && !rc; i++) {
            for (int d = 0; d < m->n_rep && !rc; d++) {
                size_t sb = flood_scheme_slot_bytes(m);
                rc = dbuf_zero(m->rep[d].dev, &m->rep[d].seen, m->dirty_slots[i] * slot_bytes,
                               slot_bytes, err);
                if (!rc && sb)
                    rc = dbuf_zero(m->rep[d].dev, &m->rep[d].scheme_state,
                                   m->dirty_slots[i] * sb, sb, err);
            }
            m->free_slots[m->n_free++] = m->dirty_slots[i];
        }
        m->n_dirty = 0;
    }
    while (!rc && m->n_free < m->n_new)
        rc = flood_grow_slots(m, err);
    if (rc)
        return rc;
    /* This parity's last write (window - 2) has completed: that window has been read back. */
    int par = (int)(plan->index & 1);
    uint32_t nw = new_words(m), need = nw * m->n_new + m->n_dirty;
    if (need > m->desc_cap[par]) {
        uint32_t *nd = realloc(m->desc_host[par], (size_t)need * 2 * sizeof *nd);
        if (!nd)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        m->desc_host[par] = nd;
        m->desc_cap[par] = need * 2;
    }
    uint32_t *dh = m->desc_host[par];
    /* stamps wrap at 2^32 windows: cl/flood/flood_layout.clh, SLOT_FRESH */
    int stale_words = plan->index >= ((int64_t)1 << 32) - 2;
    for (uint32_t q = 0; q < m->n_new; q++) {
        uint32_t slot = m->free_slots[--m->n_free];
        departure dep;
        flood_take_packet(m, slot, plan->index, &dep);
        cl_uint fresh = (cl_uint)(plan->index + 1) ^ SLOT_FRESH;
        for (int d = 0; stale_words && d < m->n_rep && !rc; d++)
            if (!m->rep[d].dead)
                rc = dbuf_write(m->rep[d].dev, &m->rep[d].ctl, ((size_t)CTL_WORDS + slot) * 4,
                                4, &fresh, 1, err);
        uint32_t *e = dh + (size_t)nw * q;
        e[0] = slot;
        e[1] = (uint32_t)m->slot_pkt[slot];
        if (m->flows) {
            e[2] = dep.source;
            e[3] = (uint32_t)(uint64_t)dep.t;
            e[4] = (uint32_t)((uint64_t)dep.t >> 32);
            e[5] = dep.destination;
            e[6] = dep.flow;
        }
    }
    /* Cleared by this window's kernel: free for any later window (the queue is in order). */
    for (uint32_t i = 0; i < m->n_dirty; i++) {
        dh[nw * m->n_new + i] = m->dirty_slots[i];
        m->free_slots[m->n_free++] = m->dirty_slots[i];
    }
    *desc = dh;
    *len = need;
    *n_clear = m->n_dirty;
    m->n_dirty = 0;
    m->desc_len = need; /* each replica writes it to its device (flood_replica_ready) */
    return rc;
}

static void window_args_fill(window_args *a, const window_plan *plan)
{
    a->T = plan->begin;
}

/* The host's side of a window's transmissions, once for all partitions and devices. */
static int prepare_transmit(flood_model *m, const window_plan *plan, transmit_prep *p,
                            cn_error *err)
{
    if (m->rb_count == 2) {
        int rc = flood_process_until(m, m->rb[m->rb_head].window, err);
        if (rc)
            return rc;
    }
    uint32_t *dh = NULL, dlen = 0;
    p->n_clear = 0;
    int rc = assign_packets(m, plan, &dh, &dlen, &p->n_clear, err);
    if (rc)
        return rc;
    p->relays_bound = relays_bound(m, m->entries_bound, in_flight(m));
    memset(&p->inline_desc, 0, sizeof p->inline_desc);
    if (dlen <= 16 && dh)
        memcpy(&p->inline_desc, dh, (size_t)dlen * 4);
    int64_t w = plan->index;
    p->in_word = CTL_COUNT + (cl_uint)(w % CTL_ROTATION);
    p->out_word = CTL_COUNT + (cl_uint)((w + 1) % CTL_ROTATION);
    p->clear_word = CTL_COUNT + (cl_uint)((w + 2) % CTL_ROTATION);
    p->pend_word = CTL_PEND + (cl_uint)(w % CTL_ROTATION);
    p->next_pend_word = CTL_PEND + (cl_uint)((w + 1) % CTL_ROTATION);
    p->stamp = (cl_uint)(w + 1);
    window_args_fill(&p->a, plan);
    return 0;
}

/* A node moves at most floor(speed_max x L) per window along each axis (move_rwp, move_walk;
 * a wrapping walk can jump to the opposite side, so its reach is everything). A mobile
 * partition's nodes
 * were in its tile at the positions its tiling was made from (flood_epoch_positions), so at
 * window W they are within (W - that window) moves of it: the tile widened by that, EXTRA
 * moves more and the range. Static nodes do not move: their box widened by the range. */
void flood_reach_box(const flood_model *m, uint32_t part, int64_t w, int extra, cl_long4 *lo,
                     cl_long4 *hi)
{
    for (int c = 0; c < 4; c++)
        lo->s[c] = INT64_MIN, hi->s[c] = INT64_MAX;
    if (m->n_parts <= 1 || (m->mobile ? !m->cuts.x : !m->box))
        return;
    if (m->mobile && m->wraps)
        return;
    /* speeds and windows are bounded by the configuration checks; the product is kept below
     * 2^62 so that the bounds cannot wrap */
    if (m->speed_max > 0 && m->L > INT64_MAX / m->speed_max)
        return;
    int64_t step = m->mobile ? m->speed_max * m->L / 1000000000 + 1 : 0;
    int64_t moves = m->mobile ? w - flood_epoch_positions(m, w) + extra : 0;
    int64_t reach = step > 0 && moves > ((int64_t)1 << 61) / step ? (int64_t)1 << 62
                                                                  : moves * step;
    reach += flood_values_of(&m->sc)->range_mm + 1;
    if (reach > ((int64_t)1 << 62))
        return;
    if (m->mobile) { /* tiles span every height; their outer cuts are +/- 2^61 */
        int64_t tlo[2], thi[2];
        partition_cut_box(&m->cuts, part, tlo, thi);
        for (int c = 0; c < 2; c++) {
            lo->s[c] = tlo[c] - reach;
            hi->s[c] = thi[c] + reach;
        }
        return;
    }
    for (int c = 0; c < 3; c++) {
        lo->s[c] = m->box[part][0][c] - reach;
        hi->s[c] = m->box[part][1][c] + reach;
    }
}

/* Whether the window can run ahead of its read-back: scenarios whose partitions all sit on
 * one device that is not a CPU (CLNETSIM_TEST_RUN_AHEAD overrides the CPU rule). Moving
 * nodes only in one partition and without node resources: a re-tiling reads its counts with
 * the read-back, and resources were not proven to keep one relay per node and packet. */
static int can_run_ahead(const flood_model *m)
{
    /* Under a scheme the next window's relays come from decisions, which a degree bound
     * does not bound; the nodes of the packets in flight do (a node relays a packet at most
     * once), and that is the moving scenarios' bound (relays_bound) */
    if (m->run_ahead_env == 0 || (m->scheme_window && !m->mobile) || dist_size() > 1)
        return 0;
    if (m->mobile && (m->n_parts != 1 || m->resources))
        return 0;
    for (uint32_t p = 1; p < m->n_parts; p++)
        if (m->home[p] != m->home[0])
            return 0;
    return m->run_ahead_env == 1 || !m->rep[m->home[0]].cpu;
}

static int enqueue_transmit(flood_model *m, uint32_t part, flood_replica *r, int64_t w,
                            cl_event *evs, int *n_evs, cn_error *err);

/* The next of EVS for a launch's profiling event; NULL (a launch without one, an untimed
 * window) when EVS is NULL. */
static cl_event *next_event(cl_event *evs, int *n_evs)
{
    return evs ? &evs[(*n_evs)++] : NULL;
}

/* One partition's transmit set on replica R: the window's first set prepares the host side
 * (slots, descriptor, frontier bounds), each replica is brought to the window before its first
 * set, and the last partition's set queues the read-backs and flips the frontiers. */
static int run_transmit(flood_model *m, const window_plan *plan, uint32_t part,
                        flood_replica *r, cl_event *evs, int *n_evs, cn_error *err)
{
    device_ctx *d = r->dev;
    int64_t w = plan->index;
    int nxt = m->cur ^ 1;
    transmit_prep *p = &m->prep;
    int rc = 0;
    if (m->prep_window != w) {
        rc = prepare_transmit(m, plan, p, err);
        /* Static scenarios on one device: the relays of this window fit in the next frontier
         * whenever the degree bound is within budget, which lets the loop run ahead.
         * Otherwise the frontier grows on demand: overflow spills and is gathered when the
         * window is read back, before the next one is enqueued. */
        p->sized = can_run_ahead(m) && p->relays_bound <= m->lag_budget;
        int holders = flood_holders(m);
        /* several ranks: partitions elsewhere whatever this rank holds */
        p->spread = (holders & (holders - 1)) != 0 || m->ranked;
        m->prep_window = w;
    }
    /* deferred read-backs of windows this one does not follow go before this transmit
     * changes what they read */
    if (!rc && m->n_deferred > 0 && m->deferred[m->n_deferred - 1].window != w - 1)
        rc = flood_undefer(m, err);
    if (!rc)
        rc = flood_replica_ready(m, r, w, err);
    /* static qudg under a cap: the window's thresholds (mobile: with the cell lists) */
    if (!rc && m->cap_live && r->capped != w)
        rc = flood_cap_select(m, r, w, next_event(evs, n_evs), err);
    if (!rc && m->mobile && r->x_window != w)
        rc = flood_export_setup(m, r, w, err);
    if (!rc)
        rc = flood_scheme_prepare(m, r, w, err);
    if (!rc && m->resources)
        rc = flood_resources_transmit(m, r, p, w, evs, n_evs, err);
    else if (!rc)
        rc = enqueue_transmit(m, part, r, w, evs, n_evs, err);
    /* under a scheme the partition's decisions, once every copy of the window is counted */
    if (!rc && m->scheme_window)
        rc = flood_scheme_decide(m, part, r, w, evs, n_evs, err);
    /* partitions on several devices: this one starts while the host feeds the others */
    if (!rc && p->spread)
        rc = cl_check(clFlush(d->queue), "clFlush", d->info.name, err);
    if (rc)
        return rc;
    m->ran_mask |= 1 << (int)(r - m->rep);
    if (m->mobile)
        r->exports_clean = w + 1;
    if (part + 1 < m->p_hi)
        return 0;
    /* several devices ran the window (or ranks): each exports what the others may need */
    if ((m->ran_mask & (m->ran_mask - 1)) || m->ranked)
        rc = flood_export_border(m, w, p->out_word, nxt, err);
    /* a re-tiling due now goes before the read-back, which then carries its counts */
    if (!rc)
        rc = flood_retile_queue(m, w, 1, err);
    if (!rc && flood_may_defer(m, w, p->sized))
        flood_defer_readback(m, w, p->out_word, nxt);
    else if (!rc)
        rc = flood_queue_readback(m, w, p->out_word, nxt, p->sized, err);
    if (!rc)
        m->transmitted = 1;
    /* Every replica that ran the window holds its count words for the next one, and its own
     * relays; the exchange adds the others' when there were several. */
    for (int k = 0; k < m->n_rep; k++)
        if (m->ran_mask & (1 << k))
            m->rep[k].counts_clean = m->rep[k].synced = m->rep[k].deliv_clean = w + 1;
    m->cur = nxt;
    return rc;
}

/* The transmit kernel of partition PART's set of window W on replica R (the host's side of
 * the window is prepared in m->prep). */
static int enqueue_transmit(flood_model *m, uint32_t part, flood_replica *r, int64_t w,
                            cl_event *evs, int *n_evs, cn_error *err)
{
    device_ctx *d = r->dev;
    const flood_values *sc = flood_values_of(&m->sc);
    int cur = m->cur, nxt = cur ^ 1;
    transmit_prep *p = &m->prep;
    int rc = 0;
    cl_uint n_new = m->n_new, nparts = m->n_parts;
    cl_uint n_import = r->import_window == w ? r->n_import : 0;
    size_t ls = r->ls_transmit;
    const char *name = m->mobile ? "flood.transmit_mobile" : "flood.transmit";
    /* the scenario's constants come in the parameter block (PARAMS, flood_setup.c), the
     * window's start T as an argument */
    if (!rc)
        rc = kernel_args_cached(d, r->k_transmit, &r->transmit_args, name, err, 0, 28,
                                KBUF(r->frontier[cur]), KARG(p->in_word), KARG(n_new),
                                KARG(p->n_clear), KARG(p->inline_desc), KBUF(r->desc),
                                KBUF(r->frontier[nxt]), KARG(r->capacity[nxt]),
                                KARG(p->out_word), KARG(p->clear_word), KBUF(r->ctl),
                                KARG(p->stamp), KBUF(r->seen), KBUF(r->spill), KBUF(r->params),
                                KBUF(r->slot_packet), KARG(p->a.T), KLOCAL(4),
                                KLOCAL(2 * 4), KLOCAL(ls * 32),
                                KLOCAL((size_t)r->lcap * m->entry_bytes),
                                KARG(r->lcap), KBUF(r->part_of), KARG(part), KARG(nparts),
                                KARG(n_import), KBUF(*flood_cap_buffer(r)),
                                KBUF(*flood_node_drop_buffer(r)));
    /* traffic flows: the slot tables and this window's delivery counts (cl/flood/flood.cl) */
    cl_uint slots = m->slots, parity = (cl_uint)(w & 1);
    const dbuf *ftime = m->flows ? &r->slot_time : &r->spill;
    const dbuf *froute = m->flows ? &r->slot_route : &r->spill;
    const dbuf *fdeliv = m->flows ? &r->deliv : &r->spill;
    if (!rc)
        rc = kernel_args_cached(d, r->k_transmit, &r->transmit_args, name, err,
                                m->mobile ? TX_MOBILE_FLOW_ARG : 31, 5, KBUF(*ftime),
                                KBUF(*froute),
                                KBUF(*fdeliv), KARG(slots), KARG(parity));
    if (!rc && m->mobile) {
        /* the range and the cell grid as arguments, not from the parameter block
         * (cl/flood/flood.cl, transmit_mobile, says why) */
        cl_ulong range2 = (cl_ulong)sc->range_mm * (cl_ulong)sc->range_mm;
        const cell_grid *g = &m->grid;
        cl_long4 lo, hi;
        flood_reach_box(m, part, w, 0, &lo, &hi);
        /* a placeholder buffer while nothing is exported: the argument must be valid */
        const dbuf *xarea = exchange_window_area(&m->xw, (int)(r - m->rep));
        const dbuf *xbuf = xarea->mem ? xarea : &r->spill;
        cl_uint xcap = xarea->mem ? exchange_window_capacity(&m->xw, (int)(r - m->rep)) : 0;
        cl_uint xword = CTL_EXPORT + (cl_uint)(w & 1);
        /* the lists' positions in cell order where the last build placed them */
        cl_uint sorted = (cl_uint)r->cells.sorted_valid;
        const dbuf *cpos = sorted ? &r->cells.sorted : &r->pos;
        rc = kernel_args_cached(d, r->k_transmit, &r->transmit_args, name, err, 28, 17,
                                KBUF(r->pos), KARG(range2), KARG(g->side), KARG(g->nx),
                                KARG(g->ny), KARG(g->nz), KBUF(r->cells.start),
                                KBUF(r->cells.nodes), KARG(lo), KARG(hi),
                                KBUF(*flood_export_boxes(r)), KARG(r->x_n), KBUF(*xbuf),
                                KARG(xcap), KARG(xword),
                                KBUF(*cpos), KARG(sorted));
    } else if (!rc) {
        rc = kernel_args_cached(d, r->k_transmit, &r->transmit_args, name, err, 28, 3,
                                KBUF(m->offsets[part]), KBUF(m->neighbours[part]),
                                KBUF(r->pos));
    }
    /* under a scheme the transmit arguments end with the nodes' states and the pending
     * lists (the half of the window's parity, the flow arguments' PARITY); the node count
     * and the distance threshold are in the parameter block */
    if (!rc && m->scheme_window)
        rc = kernel_args_cached(d, r->k_transmit, &r->transmit_args, name, err,
                                m->mobile ? TX_MOBILE_FLOW_ARG + 5 : 36, 3,
                                KBUF(r->scheme_state), KBUF(r->pend),
                                KARG(r->pend_cap));
    /* the next window's step in the first groups of the launch, when it fuses */
    size_t step_groups = 0;
    if (!rc && m->mobile)
        rc = flood_fuse_args(m, r, TX_MOBILE_STEP_ARG, w, ls, &step_groups, err);
    /* transmit_mobile's teams take TEAM items per entry (as many as divide the group) */
    size_t team = m->mobile && r->team > 1 ? (r->team < ls ? r->team : ls) : 1;
    size_t groups = (size_t)((m->entries_bound * team + ls - 1) / ls);
    if (groups > r->max_groups)
        groups = r->max_groups;
    if (groups == 0) /* no entry, decisions only: the window's clearing still runs */
        groups = 1;
    if (!rc)
        rc = enqueue_1d(d, r->k_transmit, name, (step_groups + groups) * ls, ls,
                        next_event(evs, n_evs), err);
    if (!rc && step_groups)
        rc = flood_fuse_launched(m, r, w, err);
    return rc;
}

static int flood_run_set(struct model_state *state, const window_plan *plan, const event_set *set,
                         device_ctx *dev, cl_event *evs, int *n_evs, cn_error *err)
{
    flood_model *m = flood_of(state);
    int d = flood_replica_index(m, dev);
    if (d < 0)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: device '%s' holds no flood state",
                       dev->info.name);
    flood_replica *r = &m->rep[d];
    /* An untimed window's launches go without profiling events (window_plan.timed): none is
     * needed for order on the device's in-order queue, and the read-back and the waits
     * between devices make their own. Node resources launch their kernels
     * (flood_resources.c) with events always: their windows stay timed, so that a set never
     * hands back the events of only some of its kernels. */
    cl_event *tev = plan->timed || m->resources ? evs : NULL;
    switch (set->kind) {
    case FLOOD_MOVE: /* queued at the end of the last window, or done now */
        flood_premove_claim(r, plan->index, 0, evs, n_evs);
        return flood_catch_up(m, r, plan->index, 0, tev, n_evs, err);
    case FLOOD_BIN:
        flood_premove_claim(r, plan->index, 1, evs, n_evs);
        return flood_catch_up(m, r, plan->index, 1, tev, n_evs, err);
    case FLOOD_TRANSMIT:
        if (set->partition < 0 || (uint32_t)set->partition >= m->n_parts)
            break;
        return run_transmit(m, plan, (uint32_t)set->partition, r, tev, n_evs, err);
    case FLOOD_PACKETS:
        if (!m->whole)
            break;
        return flood_packets_run(m, r, set->partition, evs, n_evs, err);
    default:
        break;
    }
    return cn_fail(err, CN_ERR_RUNTIME, "internal error: no flood event set (kind %d, partition "
                   "%d)", set->kind, set->partition);
}

static int flood_end_window(struct model_state *state, const window_plan *plan, window_outcome *out,
                            cn_error *err)
{
    flood_model *m = flood_of(state);
    int64_t w = plan->index;
    if (m->whole) { /* kept for end_ranks, which hands it back over several ranks */
        int rc = flood_packets_end(m, out, err);
        m->rank_out = *out;
        return rc;
    }
    /* at most one window ahead of the host: window W - 1 applied, unless its read-back was
     * deferred with W's (those before the deferred run are) */
    int deferring = m->n_deferred > 0 && m->deferred[m->n_deferred - 1].window == w;
    int64_t behind = deferring && m->deferred[0].window <= w - 1 ? m->deferred[0].window - 1
                                                                  : w - 1;
    int rc = flood_process_until(m, behind, err);
    /* mobile partitions follow their nodes: the new tiling is queued before the read-back is
     * waited for (with the last transmit set, or here in a window without one), and its
     * hand-over done after */
    if (!rc)
        rc = flood_retile_queue(m, w, 0, err);
    /* the next window's mobility step and cell lists go to the devices now: they run while
     * the host waits for this window's read-back and exchanges its relays */
    if (!rc && m->mobile)
        rc = flood_premove(m, w + 1, plan->timed_next, err);
    if (rc)
        return rc;
    /* Run one window ahead only when one device ran this window and the next window's
     * frontiers are bounded within budget; otherwise read this one back now (and exchange
     * the relays when several devices ran it). */
    int lag = m->transmitted && can_run_ahead(m) &&
              (deferring ? m->rb_count == 0 /* deferred: bounded, one device */
                         : m->rb_count == 1 && m->rb[m->rb_head].overflow_safe &&
                               m->rb[m->rb_head].n_dev == 1);
    if (lag) {
        /* window W + 1's relays, as prepare_transmit will bound them once its new packets
         * hold their slots (a product past 2^64 is surely over the budget) */
        uint32_t n_next = flood_packets_due(m, plan->end + m->L);
        uint64_t entries = entries_bound(m, w + 1, n_next);
        uint64_t relays = 0;
        if (m->mobile)
            relays = relays_bound(m, entries, in_flight(m) + n_next);
        else if (__builtin_mul_overflow(entries, (uint64_t)m->max_degree, &relays))
            relays = UINT64_MAX;
        lag = relays <= m->lag_budget;
    }
    /* several ranks: the window's read-back is applied in end_ranks, after the agreement */
    int ranks = m->ranked;
    if (!lag && !ranks && (rc = flood_process_until(m, w, err)) != 0)
        return rc;
    /* each device's read-back follows its sets of the window in its queue: all have finished
     * (the next window's mobility step, queued since, is not a set yet) */
    out->drained = m->transmitted && !lag;
    return ranks ? 0 : flood_window_done(m, plan, out, err);
}

int flood_window_done(flood_model *m, const window_plan *plan, window_outcome *out,
                      cn_error *err)
{
    const flood_values *sc = flood_values_of(&m->sc);
    int64_t w = plan->index;
    int rc = flood_retile_finish(m, w, err);
    if (rc)
        return rc;

    int64_t next_time = 0;
    int more_packets = flood_packet_pending(m, &next_time);
    int64_t next_entries = m->processed == w ? (int64_t)m->relays_known : -1; /* -1: unknown */
    /* a packet waiting for decisions is in flight */
    if (next_entries == 0 && m->scheme_window && m->scheme_waiting > 0)
        next_entries = -1;
    out->finished = next_entries == 0 && !more_packets;
    if (m->sc.duration_ns > 0 && plan->end >= m->sc.duration_ns)
        out->finished = 1;
    if (m->mobile || next_entries != 0 || !more_packets)
        out->next_window = w + 1;
    else /* nothing in flight and nobody moves: jump to the next packet's window */
        out->next_window = window_of(next_time, m->L);
    out->events = (uint64_t)(flood_counter(m, CTL_TX) + flood_counter(m, CTL_RX));
    /* the last packet's time: known for [traffic]; with flows, the next one is a guess */
    int64_t last = sc->n_flows > 0 ? (more_packets ? next_time : plan->end)
                                   : sc->start_ns + (sc->packets - 1) * sc->interval_ns;
    out->estimated_end = last + (m->longest_life > 0 ? m->longest_life : 1) * m->L;
    if (m->sc.duration_ns > 0 && out->estimated_end > m->sc.duration_ns)
        out->estimated_end = m->sc.duration_ns;
    return 0;
}

static int flood_results(struct model_state *state, run_results *r, cn_error *err)
{
    flood_model *m = flood_of(state);
    int rc = m->whole ? 0 : flood_process_until(m, m->planned, err);
    for (int d = 0; d < m->n_rep && !rc; d++)
        if (!m->rep[d].dead) /* left out (whole packets): its counters were never used */
            rc = dbuf_read(m->rep[d].dev, &m->rep[d].ctl, 0, sizeof m->rep[d].counters,
                           m->rep[d].counters, 1, err);
    if (rc)
        return rc;
    snprintf(r->model, sizeof r->model, "%s", "flood");
    r->seed = m->sc.seed;
    results_declare(r, &flood_metric_set);
    results_set(r, "nodes", m->n);
    results_set(r, "generated", flood_values_of(&m->sc)->packets);
    static const struct { int word; const char *name; } counts[] = {
        {CTL_TX, "transmissions"}, {CTL_RX, "receptions"}, {CTL_FIRST, "first_receptions"},
        {CTL_DELIVERED, "delivered"}};
    /* each replica's counts, reduced by the core as the metrics declare */
    for (size_t i = 0; i < sizeof counts / sizeof counts[0] && !rc; i++)
        rc = flood_reduce_counter(m, r, counts[i].word, counts[i].name, err);
    if (!rc)
        rc = flood_reduce_counter(m, r, CTL_HOPS, "hops_sum", err);
    if (!rc)
        rc = flood_reduce_counter(m, r, CTL_LATENCY, "latency_sum_ns", err);
    if (rc)
        return rc;
    r->end_time_ns = m->any_tx ? m->end_time : 0;
    r->windows = m->any_tx ? m->end_time / m->L + 1 : 0;
    if (m->whole && (rc = flood_packets_results(m, r, err)) != 0)
        return rc;
    if (r->interrupted)
        flood_interrupted_results(m, r);
    if ((rc = flood_traffic_results(m, r, err)) != 0)
        return rc;
    if (m->cap) { /* window 0's graph (docs/models.md) */
        results_set(r, "links", m->links);
        results_set(r, "links_cut", m->links_cut);
    }
    if ((rc = flood_resources_results(m, r, err)) != 0)
        return rc;
    /* the time of the last transmission and its window are contract members of the flood */
    results_set(r, "end_time_ns", r->end_time_ns);
    results_set(r, "windows", r->windows);
    r->model_events = (uint64_t)results_i64(r, "transmissions") +
                      (uint64_t)results_i64(r, "receptions");
    r->device_bytes = m->acc.peak;
    r->injector.exchanged_bytes = (uint64_t)m->exchanged;
    /* several ranks: the relays this rank sent to the others (borders and whole windows) */
    r->ranks.sent_bytes = m->rank_sent + m->xw.sent_records * m->entry_bytes;
    r->ranks.moves = m->ranks_moved;
    r->ranks.looks = m->ranks_looks;
    r->host.wait_s = m->wait_s;
    r->host.read_backs = m->read_backs;
    return 0;
}

/* ---- inspection for tests ------------------------------------------------------------- */

int flood_step_mobility(struct model_state *state, int64_t window, cn_error *err)
{
    flood_model *m = flood_of(state);
    if (!m->mobile || window < 1)
        return 0;
    int rc = flood_move(m, &m->rep[0], window, NULL, err);
    if (!rc)
        rc = cl_check(clFinish(m->dev->queue), "clFinish", m->dev->info.name, err);
    return rc;
}

int flood_read_positions(struct model_state *state, int64_t (*pos)[3], cn_error *err)
{
    flood_model *m = flood_of(state);
    cl_long *p = malloc((size_t)m->n * 32);
    if (!p)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = dbuf_read(m->dev, &m->rep[0].pos, 0, (size_t)m->n * 32, p, 1, err);
    for (uint32_t i = 0; !rc && i < m->n; i++)
        for (int c = 0; c < 3; c++)
            pos[i][c] = p[4 * (size_t)i + (size_t)c];
    free(p);
    return rc;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int flood_neighbour_lists(struct model_state *state, uint32_t **offsets, uint32_t **list,
                          cn_error *err)
{
    flood_model *m = flood_of(state);
    uint32_t P = m->n_parts, n = m->n;
    dbuf *off = calloc(P, sizeof *off), *nb = calloc(P, sizeof *nb);
    uint32_t **po = calloc(P, sizeof *po), **pl = calloc(P, sizeof *pl);
    *offsets = calloc((size_t)n + 1, 4);
    *list = NULL;
    int rc = off && nb && po && pl && *offsets ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of memory");
    cl_event evs[4];
    int n_evs = 0;
    if (!rc)
        rc = cell_lists_build(&m->rep[0].cells, m->dev, &m->rep[0].pos, NULL, evs, &n_evs, err);
    for (int i = 0; i < n_evs; i++)
        if (evs[i])
            clReleaseEvent(evs[i]);
    /* the cap of the current positions (udg: the lists are capped; qudg: never) */
    if (!rc && m->cap)
        rc = flood_cap_select(m, &m->rep[0], m->mobile ? m->rep[0].moved : 0, NULL, err);
    /* each partition's lists, read back */
    for (uint32_t p = 0; p < P && !rc; p++) {
        rc = flood_build_csr(m, &m->rep[0], p, &off[p], &nb[p], NULL, err);
        po[p] = rc ? NULL : malloc(((size_t)n + 1) * 4);
        if (!rc && !po[p])
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        if (!rc)
            rc = dbuf_read(m->dev, &off[p], 0, ((size_t)n + 1) * 4, po[p], 1, err);
        pl[p] = rc ? NULL : malloc(po[p][n] ? (size_t)po[p][n] * 4 : 4);
        if (!rc && !pl[p])
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        if (!rc && po[p][n])
            rc = dbuf_read(m->dev, &nb[p], 0, (size_t)po[p][n] * 4, pl[p], 1, err);
    }
    /* node i's list: the union of its lists in every partition (disjoint: each receiver
     * belongs to one partition), sorted */
    size_t total = 0;
    for (uint32_t p = 0; p < P && !rc; p++)
        total += po[p][n];
    if (!rc && !(*list = malloc(total ? total * 4 : 4)))
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    size_t at = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        (*offsets)[i] = (uint32_t)at;
        for (uint32_t p = 0; p < P; p++)
            for (uint32_t q = po[p][i]; q < po[p][i + 1]; q++)
                (*list)[at++] = pl[p][q];
        qsort(*list + (*offsets)[i], at - (*offsets)[i], 4, cmp_u32);
    }
    if (!rc)
        (*offsets)[n] = (uint32_t)at;
    for (uint32_t p = 0; p < P; p++) {
        if (off)
            dbuf_release(&off[p], &m->acc);
        if (nb)
            dbuf_release(&nb[p], &m->acc);
        if (po)
            free(po[p]);
        if (pl)
            free(pl[p]);
    }
    free(off), free(nb), free(po), free(pl);
    return rc;
}

/* Static scenarios flood whole packets in batches (flood_packets.c); the window loop has fixed
 * windows. */
static int flood_sync(const struct model_state *state)
{
    const flood_model *m = flood_const_of(state);
    return m->whole ? ENGINE_SYNC_BATCHES : ENGINE_SYNC_FIXED;
}

/* With whole packets the injector's units are the chunks of a batch (flood_packets.c): every
 * device holds the whole graph, so they move for free. */
static int flood_n_partitions(const struct model_state *state)
{
    const flood_model *m = flood_const_of(state);
    return m->whole ? m->pk_chunks : (int)m->n_parts;
}

static int flood_partition_home(const struct model_state *state, int partition)
{
    const flood_model *m = flood_const_of(state);
    if (m->whole)
        return partition >= 0 && partition < m->pk_chunks ? m->pk_home[partition] : 0;
    return partition >= 0 && (uint32_t)partition < m->n_parts ? m->home[partition] : 0;
}

/* What moving a partition carries (flood_migrate): the seen bitsets read from both devices
 * and written back merged, and its lists read and written; in a mobile scenario at most the
 * mobility state, read and written when the target is far behind (flood_catch_up). */
static uint64_t flood_partition_bytes(const struct model_state *state, int partition)
{
    const flood_model *m = flood_const_of(state);
    if (m->whole)
        return 0;
    uint64_t b = 3 * (uint64_t)m->slots * m->words * 4;
    const flood_replica *r = &m->rep[0];
    if (m->mobile)
        b += 2 * (uint64_t)(r->pos.bytes + r->waypoint.bytes + r->speed.bytes + r->leg.bytes +
                            r->pause_end.bytes);
    else if (partition >= 0 && (uint32_t)partition < m->n_parts)
        b += 2 * (uint64_t)(m->offsets[partition].bytes + m->neighbours[partition].bytes);
    return b + flood_resources_bytes(m) + flood_scheme_bytes(m);
}

const model_ops flood_model_ops = {
    .name = "flood",
    .features = MODEL_PACKET_ROWS | MODEL_KERNEL_SHAPES,
    .rows_option = "--packets",
    .metrics = &flood_metric_set,
    .run_sync = flood_sync,
    .batch_unit = "packets",
    .bench = &flood_bench,
    .kinds = flood_kinds,
    .n_kinds = FLOOD_N_KINDS,
    .flows = flood_flows,
    .n_flows = 5,
    .create = flood_create,
    .lookahead = flood_lookahead,
    .plan_window = flood_plan,
    .run_set = flood_run_set,
    .n_partitions = flood_n_partitions,
    .partition_home = flood_partition_home,
    .partition_bytes = flood_partition_bytes,
    .migrate = flood_migrate,
    .device_lost = flood_device_lost,
    .can_checkpoint = flood_can_checkpoint,
    .check_checkpoint = flood_checkpoint_check,
    .save = flood_save,
    .restore = flood_restore,
    .resume_scenario = flood_resume_scenario,
    .end_window = flood_end_window,
    .end_ranks = flood_end_ranks,
    .start_ranks = flood_start_ranks,
    .results = flood_results,
    .destroy = flood_destroy,
};
