/* Flood model: the window loop's side (plan, run, end of window, results). */
#include <stdlib.h>
#include <string.h>

#include "cl/flood_layout.clh"
#include "models/flood/flood_model.h"

static const event_kind flood_kinds[FLOOD_N_KINDS] = {
    /* flows: 0 positions, 1 cell lists, 2 seen bitsets, 3 frontier, 4 counters */
    [FLOOD_MOVE] = {"move_rwp", 1u << 0, 1u << 0, 1.0},
    [FLOOD_BIN] = {"bin", 1u << 0, 1u << 1, 1.0},
    [FLOOD_TRANSMIT] = {"transmit", (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3),
                        (1u << 2) | (1u << 3) | (1u << 4), 4.0},
};
static const char *const flood_flows[] = {"positions", "cells", "seen", "frontier", "counters"};

static int64_t packet_time(const struct model *m, int64_t k)
{
    return m->sc.start_ns + k * m->sc.interval_ns;
}

/* Can packet K still be created (exists and falls before the duration)? */
static int packet_pending(const struct model *m, int64_t k)
{
    if (k >= m->sc.packets)
        return 0;
    return m->sc.duration_ns == 0 || packet_time(m, k) < m->sc.duration_ns;
}

static sim_time_ns flood_lookahead(const struct model *m)
{
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

/* Packets due in window W from packet K on. */
static uint32_t packets_due(const struct model *m, int64_t k, sim_time_ns end)
{
    uint32_t n = 0;
    while (packet_pending(m, k + n) && packet_time(m, k + n) < end)
        n++;
    return n;
}

/* Bound on the entries of window W (its relays-in plus its new packets). Exact when the host
 * has read back window W - 1; one window later it is bounded through the maximum degree
 * (every entry relays to at most that many nodes) and by the nodes of the packets in flight. */
static uint64_t entries_bound(const struct model *m, int64_t w, uint32_t n_new)
{
    if (m->processed == w - 1)
        return (uint64_t)m->relays_known + n_new;
    uint64_t prev = (uint64_t)m->relays_known + m->n_new_of[(w - 1) & 3];
    uint64_t in_flight = (uint64_t)(m->slots - m->n_free - m->n_dirty);
    return min_u64(prev * m->max_degree, in_flight * m->n) + n_new;
}

static int flood_plan(struct model *m, window_plan *plan, cn_error *err)
{
    m->transmitted = 0;
    /* After a jump over idle windows nothing was in flight: they count as read back. */
    if (m->rb_count == 0 && m->processed < plan->index - 1)
        m->processed = plan->index - 1;
    m->n_new = packets_due(m, m->next_packet, plan->end);
    m->n_new_of[plan->index & 3] = m->n_new;
    m->planned = plan->index;
    m->entries_bound = entries_bound(m, plan->index, m->n_new);
    /* Positions and cell lists are whole-scenario flows: one set each, on partition 0's
     * device. */
    if (m->mobile && plan->index >= 1)
        add_set(plan, FLOOD_MOVE, 0, m->n);
    if (m->entries_bound == 0)
        return 0;
    if (m->mobile)
        add_set(plan, FLOOD_BIN, 0, m->n);
    /* Per partition: the relays of the last window and the new packets (an upper bound when
     * the last window's count is still on the device), whose receptions in the partition it
     * handles. */
    for (uint32_t p = 0; p < m->n_parts; p++) {
        if (plan->n_sets == ENGINE_MAX_SETS)
            return cn_fail(err, CN_ERR_INPUT, "%u partitions make more than the %d event sets "
                           "a window can hold; use fewer partitions", m->n_parts,
                           ENGINE_MAX_SETS);
        add_set(plan, FLOOD_TRANSMIT, (int)p, m->entries_bound);
    }
    return 0;
}

static int ensure_frontier(struct model *m, int b, uint64_t need, cn_error *err)
{
    if (need <= m->capacity[b])
        return 0;
    if (need > 0xffffffffu)
        return cn_fail(err, CN_ERR_RUNTIME, "more than 2^32 transmissions in one window");
    uint64_t cap = min_u64(need + need / 2, 0xffffffffu);
    flood_forget_args(m);
    /* The old entries may still be unread (they are this window's, or the kernel writing
     * them is queued): the in-order queue copies them after it. */
    int rc = dbuf_grow(m->dev, &m->frontier[b], (size_t)cap * 8, (size_t)m->capacity[b] * 8,
                       &m->acc, "frontier", err);
    if (!rc)
        m->capacity[b] = (uint32_t)cap;
    return rc;
}

static int process_until(struct model *m, int64_t window, cn_error *err);

/* The count and reservation words of window W are right when window W - 1 ran its transmit
 * kernel (it set the relays and cleared the next words); after idle windows they are all zero,
 * written here. */
static int prepare_counts(struct model *m, int64_t w, cn_error *err)
{
    if (m->counts_clean == w)
        return 0;
    m->counts_clean = w;
    return dbuf_zero(m->dev, &m->ctl, CTL_COUNT * 4, (CTL_GATHER - CTL_COUNT) * 4, err);
}

/* Gives each new packet of the window a free slot; returns the window descriptor (new
 * packets, then the retired slots this window clears) in *DESC, its length in *LEN. */
static int assign_packets(struct model *m, const window_plan *plan, uint32_t **desc,
                          uint32_t *len, cl_uint *n_clear, cn_error *err)
{
    device_ctx *d = m->dev;
    int rc = 0;
    if (m->n_free < m->n_new) /* packets dead in windows not yet read back free their slots */
        rc = process_until(m, plan->index - 1, err);
    if (!rc && m->n_free < m->n_new && m->n_dirty > 0) {
        /* rare: too few clean slots; clear the retired ones now rather than grow */
        size_t slot_bytes = (size_t)m->words * 4;
        for (uint32_t i = 0; i < m->n_dirty && !rc; i++) {
            rc = dbuf_zero(d, &m->seen, m->dirty_slots[i] * slot_bytes, slot_bytes, err);
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
    uint32_t need = 2 * m->n_new + m->n_dirty;
    if (need > m->desc_cap[par]) {
        uint32_t *nd = realloc(m->desc_host[par], (size_t)need * 2 * sizeof *nd);
        if (!nd)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        m->desc_host[par] = nd;
        m->desc_cap[par] = need * 2;
    }
    uint32_t *dh = m->desc_host[par];
    for (uint32_t q = 0; q < m->n_new; q++) {
        uint32_t slot = m->free_slots[--m->n_free];
        int64_t k = m->next_packet++;
        m->slot_pkt[slot] = k;
        m->born_window[slot] = plan->index;
        dh[2 * q] = slot;
        dh[2 * q + 1] = (uint32_t)k;
    }
    /* Cleared by this window's kernel: free for any later window (the queue is in order). */
    for (uint32_t i = 0; i < m->n_dirty; i++) {
        dh[2 * m->n_new + i] = m->dirty_slots[i];
        m->free_slots[m->n_free++] = m->dirty_slots[i];
    }
    *desc = dh;
    *len = need;
    *n_clear = m->n_dirty;
    m->n_dirty = 0;
    if (need > 16) {
        if ((size_t)need * 4 > m->desc.bytes) {
            flood_forget_args(m);
            rc = dbuf_grow(d, &m->desc, (size_t)need * 8, 0, &m->acc, "window descriptors", err);
        }
        /* Not blocking: the host array stays untouched until this window has been read back. */
        if (!rc)
            rc = dbuf_write(d, &m->desc, 0, (size_t)need * 4, dh, 0, err);
    }
    return rc;
}

/* Queues the read-back of window W's counters and slot liveness. */
static int queue_readback(struct model *m, int64_t w, cl_uint out_word, int out_buffer,
                          int overflow_safe, cn_error *err)
{
    struct flood_readback *r = &m->rb[(m->rb_head + m->rb_count) % 2];
    r->window = w;
    r->out_word = out_word;
    r->out_buffer = (uint32_t)out_buffer;
    r->out_capacity = m->capacity[out_buffer];
    r->n_alive = m->slots;
    r->overflow_safe = overflow_safe;
    cl_int st = clEnqueueReadBuffer(m->dev->queue, m->ctl.mem, CL_FALSE, 0,
                                    ((size_t)CTL_WORDS + m->slots) * 4, r->words, 0, NULL, &r->ev);
    if (st != CL_SUCCESS)
        return cl_check(st, "clEnqueueReadBuffer(window counters)", m->dev->info.name, err);
    m->rb_count++;
    /* Starts the device on what is queued so far, without waiting for it. */
    return cl_check(clFlush(m->dev->queue), "clFlush", m->dev->info.name, err);
}

static void window_args_fill(window_args *a, const struct model *m, const window_plan *plan)
{
    const scenario *sc = &m->sc;
    a->T = plan->begin;
    a->L = m->L;
    a->start = sc->start_ns;
    a->interval = sc->interval_ns;
    a->duration = sc->duration_ns;
    a->thr = sc->drop_threshold;
    a->key.s[0] = (cl_uint)sc->seed;
    a->key.s[1] = (cl_uint)(sc->seed >> 32);
    a->source = (cl_uint)sc->source;
    a->dest = (cl_uint)sc->destination;
    a->ttl = sc->ttl > 0xffffffffLL ? 0xffffffffu : (cl_uint)sc->ttl;
}

static int prepare_transmit(struct model *m, const window_plan *plan, transmit_prep *p,
                            cn_error *err)
{
    if (m->rb_count == 2) {
        int rc = process_until(m, m->rb[m->rb_head].window, err);
        if (rc)
            return rc;
    }
    uint32_t *dh = NULL, dlen = 0;
    p->n_clear = 0;
    int rc = assign_packets(m, plan, &dh, &dlen, &p->n_clear, err);
    if (!rc)
        rc = prepare_counts(m, plan->index, err);
    if (rc)
        return rc;
    p->relays_bound = min_u64(m->entries_bound * m->max_degree,
                              (uint64_t)(m->slots - m->n_free - m->n_dirty) * m->n);
    memset(&p->inline_desc, 0, sizeof p->inline_desc);
    if (dlen <= 16 && dh)
        memcpy(&p->inline_desc, dh, (size_t)dlen * 4);
    int64_t w = plan->index;
    p->in_word = CTL_COUNT + (cl_uint)(w % 3);
    p->out_word = CTL_COUNT + (cl_uint)((w + 1) % 3);
    p->clear_word = CTL_COUNT + (cl_uint)((w + 2) % 3);
    p->stamp = (cl_uint)(w + 1);
    window_args_fill(&p->a, m, plan);
    return 0;
}

/* The window grouped by packet (CPU devices, static scenarios). */
static int run_transmit_by_packet(struct model *m, const window_plan *plan, cl_event *ev,
                                  cn_error *err)
{
    device_ctx *d = m->dev;
    int cur = m->cur, nxt = cur ^ 1;
    transmit_prep p;
    int rc = prepare_transmit(m, plan, &p, err);
    /* Each packet reserves (its transmissions x the maximum degree), at most N: the window's
     * reservations fit in the frontier sized here. */
    if (!rc)
        rc = ensure_frontier(m, nxt, p.relays_bound, err);
    int64_t w = plan->index;
    cl_uint reserve_word = CTL_RESERVE + (cl_uint)(w % 2);
    cl_uint reserve_clear_word = CTL_RESERVE + (cl_uint)((w + 1) % 2);
    cl_uint n_new = m->n_new;
    if (!rc)
        rc = kernel_args_cached(d, m->k_by_packet, &m->by_packet_args, "transmit_by_packet", err,
                                0, 33, KBUF(m->frontier[cur]), KBUF(m->seg[cur]), KARG(n_new),
                                KARG(p.n_clear), KARG(p.inline_desc), KBUF(m->desc),
                                KBUF(m->frontier[nxt]), KBUF(m->seg[nxt]),
                                KARG(m->capacity[nxt]), KARG(p.out_word), KARG(p.clear_word),
                                KARG(reserve_word), KARG(reserve_clear_word), KBUF(m->ctl),
                                KARG(p.stamp), KBUF(m->seen), KARG(m->words),
                                KBUF(m->slot_packet), KARG(m->slots), KARG(m->n),
                                KARG(m->max_degree), KARG(p.a.T), KARG(p.a.L), KARG(p.a.start),
                                KARG(p.a.interval), KARG(p.a.duration), KARG(p.a.thr),
                                KARG(p.a.key), KARG(p.a.source), KARG(p.a.dest), KARG(p.a.ttl),
                                KBUF(m->offsets[0]), KBUF(m->neighbours[0]));
    /* Work-items take packets from a counter: one work-group per compute unit keeps every
     * core busy, and more work-items would only contend for the counter. */
    size_t items = (size_t)n_new + m->slots;
    size_t team = (size_t)(d->info.compute_units ? d->info.compute_units : 1) * m->ls_by_packet;
    if (!rc)
        rc = enqueue_1d(d, m->k_by_packet, "transmit_by_packet", items < team ? items : team,
                        m->ls_by_packet, ev, err);
    if (!rc)
        rc = queue_readback(m, plan->index, p.out_word, nxt, 1, err);
    if (!rc)
        m->transmitted = 1;
    m->counts_clean = plan->index + 1;
    m->cur = nxt;
    return rc;
}

/* One partition's transmit set: the first partition's prepares the window (slots,
 * descriptor, frontier sizes), the last one's queues the read-back and flips the frontiers. */
static int run_transmit(struct model *m, const window_plan *plan, uint32_t part, cl_event *ev,
                        cn_error *err)
{
    device_ctx *d = m->dev;
    const scenario *sc = &m->sc;
    if (m->by_packet)
        return run_transmit_by_packet(m, plan, ev, err);
    int cur = m->cur, nxt = cur ^ 1;
    transmit_prep *p = &m->prep;
    int rc = 0;
    if (part == 0) {
        rc = prepare_transmit(m, plan, p, err);
        /* Static scenarios: the relays of this window fit in the next frontier whenever the
         * degree bound is within budget, which lets the loop run ahead. Otherwise (mobile
         * scenarios, or a bound too large) the frontier grows on demand: overflow spills and
         * is gathered when the window is read back, before the next one is enqueued. */
        p->sized = !m->mobile && !m->force_sync && p->relays_bound <= m->lag_budget;
        if (!rc && p->sized)
            rc = ensure_frontier(m, nxt, p->relays_bound, err);
        rc = rc ? rc : ensure_frontier(m, cur, m->entries_bound, err);
    }
    cl_uint n_new = m->n_new, count_tx = part == 0, nparts = m->n_parts;
    size_t ls = m->ls_transmit;
    const char *name = m->mobile ? "transmit_mobile" : "transmit";
    if (!rc)
        rc = kernel_args_cached(d, m->k_transmit, &m->transmit_args, name, err, 0, 32,
                                KBUF(m->frontier[cur]), KARG(p->in_word), KARG(n_new),
                                KARG(p->n_clear), KARG(p->inline_desc), KBUF(m->desc),
                                KBUF(m->frontier[nxt]), KARG(m->capacity[nxt]),
                                KARG(p->out_word), KARG(p->clear_word), KBUF(m->ctl),
                                KARG(p->stamp), KBUF(m->seen), KBUF(m->spill), KARG(m->words),
                                KBUF(m->slot_packet), KARG(p->a.T), KARG(p->a.L),
                                KARG(p->a.start), KARG(p->a.interval), KARG(p->a.duration),
                                KARG(p->a.thr), KARG(p->a.key), KARG(p->a.source),
                                KARG(p->a.dest), KARG(p->a.ttl), KLOCAL(4),
                                KLOCAL(2 * 4), KLOCAL(ls * 16), KLOCAL((size_t)m->lcap * 8),
                                KARG(m->lcap), KARG(count_tx));
    if (!rc && m->mobile) {
        cl_ulong range2 = (cl_ulong)sc->range_mm * (cl_ulong)sc->range_mm;
        const cell_grid *g = &m->grid;
        rc = kernel_args_cached(d, m->k_transmit, &m->transmit_args, name, err, 32, 11,
                                KBUF(m->pos), KARG(range2), KARG(g->side), KARG(g->nx),
                                KARG(g->ny), KARG(g->nz), KBUF(m->cells.start),
                                KBUF(m->cells.nodes), KBUF(m->part_of), KARG(part),
                                KARG(nparts));
    } else if (!rc) {
        rc = kernel_args_cached(d, m->k_transmit, &m->transmit_args, name, err, 32, 2,
                                KBUF(m->offsets[part]), KBUF(m->neighbours[part]));
    }
    size_t groups = (size_t)((m->entries_bound + ls - 1) / ls);
    if (groups > m->max_groups)
        groups = m->max_groups;
    if (!rc)
        rc = enqueue_1d(d, m->k_transmit, name, groups * ls, ls, ev, err);
    if (rc || part + 1 < m->n_parts)
        return rc;
    rc = queue_readback(m, plan->index, p->out_word, nxt, p->sized, err);
    if (!rc)
        m->transmitted = 1;
    m->counts_clean = plan->index + 1;
    m->cur = nxt;
    return rc;
}

static int flood_run_set(struct model *m, const window_plan *plan, const event_set *set,
                         device_ctx *dev, cl_event *evs, int *n_evs, cn_error *err)
{
    (void)dev; /* one partition: the injector always hands back the device holding it */
    switch (set->kind) {
    case FLOOD_MOVE:
        return flood_move(m, plan->index, &evs[(*n_evs)++], err);
    case FLOOD_BIN:
        return cell_lists_build(&m->cells, m->dev, &m->pos, evs, n_evs, err);
    case FLOOD_TRANSMIT:
        if (set->partition < 0 || (uint32_t)set->partition >= m->n_parts)
            break;
        return run_transmit(m, plan, (uint32_t)set->partition, &evs[(*n_evs)++], err);
    default:
        break;
    }
    return cn_fail(err, CN_ERR_RUNTIME, "internal error: no flood event set (kind %d, partition "
                   "%d)", set->kind, set->partition);
}

/* The frontier overflowed (only possible when windows are read back one by one): grow it and
 * move the spilled relays in. Tested through CLNETSIM_TEST_FRONTIER_CAPACITY. */
static int gather_spill(struct model *m, int b, uint32_t next, cn_error *err)
{
    device_ctx *d = m->dev;
    uint32_t at = m->capacity[b];
    static const cl_uint zero = 0;
    int rc = ensure_frontier(m, b, next, err);
    if (!rc)
        rc = dbuf_write(d, &m->ctl, CTL_GATHER * 4, 4, &zero, 0, err);
    cl_uint total = m->slots * m->words;
    if (!rc)
        rc = kernel_args(d, m->k_gather, "gather_spill", err, 6, KBUF(m->spill), KARG(total),
                         KARG(m->words), KBUF(m->ctl), KBUF(m->frontier[b]), KARG(at));
    if (!rc)
        rc = enqueue_1d(d, m->k_gather, "gather_spill", total, m->ls_gather, NULL, err);
    return rc;
}

/* Packets that transmitted in window W (those created by then and still in flight): note
 * their time, and free the slots of those that made no relay (nothing of them remains). */
static void retire_packets(struct model *m, int64_t w, const uint32_t *alive)
{
    cl_uint stamp = (cl_uint)(w + 1);
    int64_t begin = w * m->L;
    for (uint32_t s = 0; s < m->slots; s++) {
        int64_t k = m->slot_pkt[s];
        if (k < 0 || m->born_window[s] > w)
            continue;
        int64_t tk = packet_time(m, k);
        int64_t h = tk >= begin ? 1 : (begin - tk + m->L - 1) / m->L + 1;
        int64_t t = tk + (h - 1) * m->L;
        if (m->sc.duration_ns == 0 || t < m->sc.duration_ns) {
            if (!m->any_tx || t > m->end_time)
                m->end_time = t;
            m->any_tx = 1;
        }
        if (alive[s] != stamp) {
            int64_t life = w - m->born_window[s] + 1;
            if (life > m->longest_life)
                m->longest_life = life;
            m->slot_pkt[s] = -1;
            m->dirty_slots[m->n_dirty++] = s;
        }
    }
}

/* Applies the read-backs of every window up to W, oldest first. */
static int process_until(struct model *m, int64_t w, cn_error *err)
{
    while (m->rb_count > 0 && m->rb[m->rb_head].window <= w) {
        struct flood_readback *r = &m->rb[m->rb_head];
        int rc = cl_check(clWaitForEvents(1, &r->ev), "clWaitForEvents(window counters)",
                          m->dev->info.name, err);
        clReleaseEvent(r->ev);
        r->ev = NULL;
        m->rb_head = (m->rb_head + 1) % 2;
        m->rb_count--;
        if (rc)
            return rc;
        uint32_t relays = r->words[r->out_word];
        if (r->words[CTL_OVERFLOW])
            return cn_fail(err, CN_ERR_RUNTIME, "internal error: window %lld reserved more "
                           "frontier than it was given", (long long)r->window);
        if (relays > r->out_capacity) {
            if (r->window != m->planned)
                return cn_fail(err, CN_ERR_RUNTIME, "internal error: window %lld made %u "
                               "relays, beyond its bound of %u", (long long)r->window, relays,
                               r->out_capacity);
            if ((rc = gather_spill(m, (int)r->out_buffer, relays, err)) != 0)
                return rc;
        }
        memcpy(m->ctl_host, r->words, sizeof m->ctl_host);
        retire_packets(m, r->window, r->words + CTL_WORDS);
        m->relays_known = relays;
        m->processed = r->window;
    }
    /* Windows without transmissions have nothing to read back. */
    if (m->rb_count == 0 && m->processed < w && w <= m->planned)
        m->relays_known = 0, m->processed = w;
    return 0;
}

static int flood_end_window(struct model *m, const window_plan *plan, window_outcome *out,
                            cn_error *err)
{
    const scenario *sc = &m->sc;
    int64_t w = plan->index;
    int rc = process_until(m, w - 1, err);
    if (rc)
        return rc;
    /* Run one window ahead only when the next window's frontiers are bounded within budget;
     * otherwise read this one back now. */
    int lag = !m->mobile && !m->force_sync && m->transmitted && m->rb_count == 1 &&
              m->rb[m->rb_head].overflow_safe;
    if (lag) {
        uint32_t n_next = packets_due(m, m->next_packet, plan->end + m->L);
        uint64_t entries = entries_bound(m, w + 1, n_next);
        lag = entries * (uint64_t)m->max_degree <= m->lag_budget;
    }
    if (!lag && (rc = process_until(m, w, err)) != 0)
        return rc;

    int more_packets = packet_pending(m, m->next_packet);
    int64_t next_entries = m->processed == w ? (int64_t)m->relays_known : -1; /* -1: unknown */
    out->finished = next_entries == 0 && !more_packets;
    if (sc->duration_ns > 0 && plan->end >= sc->duration_ns)
        out->finished = 1;
    if (m->mobile || next_entries != 0 || !more_packets)
        out->next_window = w + 1;
    else /* nothing in flight and nobody moves: jump to the next packet's window */
        out->next_window = window_of(packet_time(m, m->next_packet), m->L);
    out->events = flood_counter(m, CTL_TX) + flood_counter(m, CTL_RX);
    int64_t last = packet_time(m, sc->packets - 1);
    out->estimated_end = last + (m->longest_life > 0 ? m->longest_life : 1) * m->L;
    if (sc->duration_ns > 0 && out->estimated_end > sc->duration_ns)
        out->estimated_end = sc->duration_ns;
    return 0;
}

static int flood_results(struct model *m, run_results *r, cn_error *err)
{
    int rc = process_until(m, m->planned, err);
    if (!rc)
        rc = dbuf_read(m->dev, &m->ctl, 0, sizeof m->ctl_host, m->ctl_host, 1, err);
    if (rc)
        return rc;
    snprintf(r->model, sizeof r->model, "%s", "flood");
    r->seed = m->sc.seed;
    r->nodes = m->n;
    r->generated = m->sc.packets;
    r->transmissions = (int64_t)flood_counter(m, CTL_TX);
    r->receptions = (int64_t)flood_counter(m, CTL_RX);
    r->first_receptions = (int64_t)flood_counter(m, CTL_FIRST);
    r->delivered = (int64_t)flood_counter(m, CTL_DELIVERED);
    r->hops_sum = (int64_t)flood_counter(m, CTL_HOPS);
    r->latency_sum_ns = (int64_t)flood_counter(m, CTL_LATENCY);
    r->end_time_ns = m->any_tx ? m->end_time : 0;
    r->windows = m->any_tx ? m->end_time / m->L + 1 : 0;
    r->device_bytes = m->acc.peak;
    return 0;
}

/* ---- inspection for tests ------------------------------------------------------------- */

int flood_step_mobility(struct model *m, int64_t window, cn_error *err)
{
    if (!m->mobile || window < 1)
        return 0;
    int rc = flood_move(m, window, NULL, err);
    if (!rc)
        rc = cl_check(clFinish(m->dev->queue), "clFinish", m->dev->info.name, err);
    return rc;
}

int flood_read_positions(struct model *m, int64_t (*pos)[3], cn_error *err)
{
    cl_long *p = malloc((size_t)m->n * 32);
    if (!p)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    int rc = dbuf_read(m->dev, &m->pos, 0, (size_t)m->n * 32, p, 1, err);
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

int flood_neighbour_lists(struct model *m, uint32_t **offsets, uint32_t **list, cn_error *err)
{
    uint32_t P = m->n_parts, n = m->n;
    dbuf *off = calloc(P, sizeof *off), *nb = calloc(P, sizeof *nb);
    uint32_t **po = calloc(P, sizeof *po), **pl = calloc(P, sizeof *pl);
    *offsets = calloc((size_t)n + 1, 4);
    *list = NULL;
    int rc = off && nb && po && pl && *offsets ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of memory");
    cl_event evs[4];
    int n_evs = 0;
    if (!rc)
        rc = cell_lists_build(&m->cells, m->dev, &m->pos, evs, &n_evs, err);
    for (int i = 0; i < n_evs; i++)
        if (evs[i])
            clReleaseEvent(evs[i]);
    /* each partition's lists, read back */
    for (uint32_t p = 0; p < P && !rc; p++) {
        rc = flood_build_csr(m, p, &off[p], &nb[p], NULL, err);
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

static int flood_n_partitions(const struct model *m)
{
    return (int)m->n_parts;
}

static int flood_partition_home(const struct model *m, int partition)
{
    (void)m, (void)partition;
    return 0;
}

/* What moving a partition would carry: its share of the seen bitsets and its lists. */
static uint64_t flood_partition_bytes(const struct model *m, int partition)
{
    uint64_t b = m->seen.bytes / (m->n_parts ? m->n_parts : 1);
    if (!m->mobile && partition >= 0 && (uint32_t)partition < m->n_parts)
        b += m->offsets[partition].bytes + m->neighbours[partition].bytes;
    return b;
}

const model_ops flood_model_ops = {
    .name = "flood",
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
    .migrate = NULL,
    .end_window = flood_end_window,
    .results = flood_results,
    .destroy = flood_destroy,
};
