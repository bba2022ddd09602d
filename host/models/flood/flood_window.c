/* Flood model: the window loop's side (plan, run, end of window, results). */
#include <stdlib.h>
#include <string.h>

#include "cl/flood_layout.clh"
#include "models/flood/flood_model.h"

static const event_kind flood_kinds[FLOOD_N_KINDS] = {
    /* flows: 0 positions, 1 cell lists, 2 seen bitsets, 3 frontier, 4 counters */
    [FLOOD_MOVE] = {"move_rwp", 1u << 0, 1u << 0, 1.0},
    [FLOOD_BIN] = {"bin", 1u << 0, 1u << 1, 1.0},
    [FLOOD_INJECT] = {"inject", 0, (1u << 2) | (1u << 3), 0.1},
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

static void add_set(window_plan *plan, int kind, uint64_t multiplicity)
{
    event_set *s = &plan->sets[plan->n_sets++];
    s->kind = kind;
    s->partition = 0;
    s->multiplicity = multiplicity;
}

static int flood_plan(struct model *m, window_plan *plan, cn_error *err)
{
    (void)err;
    m->n_new = 0;
    m->transmitted = 0;
    int64_t k = m->next_packet;
    while (packet_pending(m, k) && packet_time(m, k) < plan->end) {
        k++;
        m->n_new++;
    }
    if (m->mobile && plan->index >= 1)
        add_set(plan, FLOOD_MOVE, m->n);
    uint64_t tx = (uint64_t)m->F + m->n_new;
    if (tx == 0)
        return 0;
    if (m->mobile)
        add_set(plan, FLOOD_BIN, m->n);
    if (m->n_new)
        add_set(plan, FLOOD_INJECT, m->n_new);
    add_set(plan, FLOOD_TRANSMIT, tx);
    return 0;
}

static int ensure_frontier(struct model *m, int b, uint32_t need, uint32_t keep, cn_error *err)
{
    if (need <= m->capacity[b])
        return 0;
    uint64_t cap = (uint64_t)need + need / 2;
    if (cap > 0xffffffffu)
        cap = 0xffffffffu;
    int rc = dbuf_grow(m->dev, &m->frontier[b], (size_t)cap * 8, (size_t)keep * 8, &m->acc,
                       "frontier", err);
    if (!rc)
        m->capacity[b] = (uint32_t)cap;
    return rc;
}

static int run_inject(struct model *m, const window_plan *plan, cl_event *ev, cn_error *err)
{
    device_ctx *d = m->dev;
    if (m->n_new > m->new_cap) {
        uint32_t cap = m->n_new * 2;
        uint32_t *nh = realloc(m->new_host, (size_t)cap * 2 * sizeof *nh);
        if (!nh)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        m->new_host = nh;
        m->new_cap = cap;
        int rc = dbuf_grow(d, &m->new_packets, (size_t)cap * 8, 0, &m->acc, "new packets", err);
        if (rc)
            return rc;
    }
    size_t slot_bytes = (size_t)m->words * 4;
    for (uint32_t q = 0; q < m->n_new; q++) {
        if (m->n_free == 0) {
            int rc = flood_grow_slots(m, err);
            if (rc)
                return rc;
        }
        uint32_t slot = m->free_slots[--m->n_free];
        int64_t k = m->next_packet++;
        m->slot_pkt[slot] = k;
        m->born_window[slot] = plan->index;
        m->new_host[2 * q] = slot;
        m->new_host[2 * q + 1] = (uint32_t)k;
        int rc = dbuf_zero(d, &m->seen, slot * slot_bytes, slot_bytes, err);
        if (rc)
            return rc;
    }
    int rc = ensure_frontier(m, m->cur, m->F + m->n_new, m->F, err);
    /* Blocking is not needed: the host array stays untouched until the window's read-back. */
    if (!rc)
        rc = dbuf_write(d, &m->new_packets, 0, (size_t)m->n_new * 8, m->new_host, 0, err);
    cl_uint count = m->n_new, source = (cl_uint)m->sc.source, at = m->F;
    if (!rc)
        rc = kernel_args(d, m->k_inject, "inject", err, 8, KARG(count), KBUF(m->new_packets),
                         KARG(source), KARG(m->words), KBUF(m->slot_packet), KBUF(m->seen),
                         KBUF(m->frontier[m->cur]), KARG(at));
    if (!rc)
        rc = enqueue_1d(d, m->k_inject, "inject", count, m->ls_inject, ev, err);
    return rc;
}

static int run_transmit(struct model *m, const window_plan *plan, cl_event *ev, cn_error *err)
{
    device_ctx *d = m->dev;
    const scenario *sc = &m->sc;
    int nxt = m->cur ^ 1;
    cl_uint count = m->F + m->n_new, stamp = (cl_uint)(plan->index + 1);
    cl_long T = plan->begin, L = m->L, start = sc->start_ns, interval = sc->interval_ns;
    cl_long duration = sc->duration_ns;
    cl_ulong thr = sc->drop_threshold;
    cl_uint2 key;
    key.s[0] = (cl_uint)sc->seed;
    key.s[1] = (cl_uint)(sc->seed >> 32);
    cl_uint source = (cl_uint)sc->source, dest = (cl_uint)sc->destination;
    cl_uint ttl = sc->ttl > 0xffffffffLL ? 0xffffffffu : (cl_uint)sc->ttl;
    size_t ls = m->ls_transmit;
    int rc = kernel_args(d, m->k_transmit, "transmit", err, 27, KBUF(m->frontier[m->cur]),
                         KARG(count), KBUF(m->frontier[nxt]), KARG(m->capacity[nxt]),
                         KARG(m->base), KBUF(m->ctl), KBUF(m->alive), KARG(stamp), KBUF(m->seen),
                         KBUF(m->spill), KARG(m->words), KBUF(m->slot_packet), KARG(T), KARG(L),
                         KARG(start), KARG(interval), KARG(duration), KARG(thr), KARG(key),
                         KARG(source), KARG(dest), KARG(ttl), KLOCAL(4), KLOCAL(2 * 4),
                         KLOCAL(ls * 16), KLOCAL((size_t)m->lcap * 8), KARG(m->lcap));
    if (rc)
        return rc;
    if (m->mobile) {
        cl_ulong range2 = (cl_ulong)sc->range_mm * (cl_ulong)sc->range_mm;
        const cell_grid *g = &m->grid;
        rc = kernel_args_from(d, m->k_transmit, "transmit_mobile", err, 27, 8, KBUF(m->pos),
                              KARG(range2), KARG(g->side), KARG(g->nx), KARG(g->ny), KARG(g->nz),
                              KBUF(m->cells.start), KBUF(m->cells.nodes));
    } else {
        rc = kernel_args_from(d, m->k_transmit, "transmit", err, 27, 2, KBUF(m->offsets),
                              KBUF(m->neighbours));
    }
    if (!rc)
        rc = enqueue_1d(d, m->k_transmit, m->mobile ? "transmit_mobile" : "transmit", count, ls,
                        ev, err);
    if (!rc)
        m->transmitted = 1;
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
    case FLOOD_INJECT:
        return run_inject(m, plan, &evs[(*n_evs)++], err);
    case FLOOD_TRANSMIT:
        return run_transmit(m, plan, &evs[(*n_evs)++], err);
    default:
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: unknown flood event kind %d",
                       set->kind);
    }
}

/* The frontier overflowed: grow it and move the spilled relays in. Rare by design (the
 * frontier grows by half again each time), and tested through CLNETSIM_TEST_FRONTIER_CAPACITY. */
static int gather_spill(struct model *m, int b, uint32_t next, cn_error *err)
{
    device_ctx *d = m->dev;
    uint32_t at = m->capacity[b];
    static const cl_uint zero = 0;
    int rc = ensure_frontier(m, b, next, at, err);
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

/* Packets that transmitted in this window: note their time, free the slots of those that
 * made no relay (nothing of them remains). */
static void retire_packets(struct model *m, const window_plan *plan)
{
    cl_uint stamp = (cl_uint)(plan->index + 1);
    for (uint32_t s = 0; s < m->slots; s++) {
        int64_t k = m->slot_pkt[s];
        if (k < 0)
            continue;
        int64_t tk = packet_time(m, k);
        int64_t h = tk >= plan->begin ? 1 : (plan->begin - tk + m->L - 1) / m->L + 1;
        int64_t t = tk + (h - 1) * m->L;
        if (m->sc.duration_ns == 0 || t < m->sc.duration_ns) {
            if (!m->any_tx || t > m->end_time)
                m->end_time = t;
            m->any_tx = 1;
        }
        if (m->alive_host[s] != stamp) {
            int64_t life = plan->index - m->born_window[s] + 1;
            if (life > m->longest_life)
                m->longest_life = life;
            m->slot_pkt[s] = -1;
            m->free_slots[m->n_free++] = s;
        }
    }
}

static int flood_end_window(struct model *m, const window_plan *plan, window_outcome *out,
                            cn_error *err)
{
    device_ctx *d = m->dev;
    const scenario *sc = &m->sc;
    if (m->transmitted) {
        int rc = dbuf_read(d, &m->alive, 0, (size_t)m->slots * 4, m->alive_host, 0, err);
        if (!rc)
            rc = dbuf_read(d, &m->ctl, 0, sizeof m->ctl_host, m->ctl_host, 1, err);
        if (rc)
            return rc;
        int nxt = m->cur ^ 1;
        uint32_t next = m->ctl_host[CTL_CURSOR] - m->base;
        if (next > m->capacity[nxt] && (rc = gather_spill(m, nxt, next, err)) != 0)
            return rc;
        retire_packets(m, plan);
        m->F = next;
        m->base = m->ctl_host[CTL_CURSOR];
        m->cur = nxt;
    }
    int more_packets = packet_pending(m, m->next_packet);
    out->finished = m->F == 0 && !more_packets;
    if (sc->duration_ns > 0 && plan->end >= sc->duration_ns)
        out->finished = 1;
    if (m->mobile || m->F > 0 || !more_packets)
        out->next_window = plan->index + 1;
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
    int rc = dbuf_read(m->dev, &m->ctl, 0, sizeof m->ctl_host, m->ctl_host, 1, err);
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
    dbuf off = {0}, nb = {0};
    cl_event evs[4];
    int n_evs = 0;
    int rc = cell_lists_build(&m->cells, m->dev, &m->pos, evs, &n_evs, err);
    for (int i = 0; i < n_evs; i++)
        if (evs[i])
            clReleaseEvent(evs[i]);
    if (!rc)
        rc = flood_build_csr(m, &off, &nb, err);
    *offsets = malloc(((size_t)m->n + 1) * 4);
    *list = NULL;
    if (!rc && !*offsets)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc)
        rc = dbuf_read(m->dev, &off, 0, ((size_t)m->n + 1) * 4, *offsets, 1, err);
    if (!rc) {
        size_t total = (*offsets)[m->n];
        *list = malloc(total ? total * 4 : 4);
        if (!*list)
            rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        else
            rc = dbuf_read(m->dev, &nb, 0, total * 4, *list, 1, err);
    }
    for (uint32_t i = 0; !rc && i < m->n; i++)
        qsort(*list + (*offsets)[i], (*offsets)[i + 1] - (*offsets)[i], 4, cmp_u32);
    dbuf_release(&off, &m->acc);
    dbuf_release(&nb, &m->acc);
    return rc;
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
    .end_window = flood_end_window,
    .results = flood_results,
    .destroy = flood_destroy,
};
