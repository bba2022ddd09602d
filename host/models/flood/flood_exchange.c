/* Flood model across devices: read-backs, the exchange of relays between the replicas that
 * ran a window, bringing a replica up to date before it runs a set, and migrations.
 *
 * Every replica handles only the receptions of the partitions it holds, so the relays it makes
 * are of its own nodes. When several replicas ran window w, each one exports, after the
 * window, the relays made inside the reach box of a partition held elsewhere (the only ones
 * another device can need), and the core's windowed exchange (engine/exchange_window.h)
 * appends every replica's exports to the others' frontiers, after their own relays, reading
 * them with the window's counters: a replica then starts window w + 1 with its own relays
 * and the border of the others, which is every transmission its partitions can hear. Each
 * partition counts the transmissions of its own nodes, so counters are summed over replicas
 * whoever holds which entries; a slot is alive when any replica relayed it. A replica that
 * gains a partition (or did not run window w) is given every relay of the window instead,
 * gathered from the start of each frontier that made them. When a frontier overflowed, the
 * whole window is exchanged. The order of the entries differs from a one-device run, which
 * no result depends on (cl/flood/flood.cl). */
#include <stdlib.h>
#include <string.h>

#include "cl/flood/flood_layout.clh"
#include "dist/dist.h"
#include "models/flood/flood_model.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* uint words of a frontier entry */
static size_t entry_words(const flood_model *m)
{
    return m->entry_bytes / 4;
}

int flood_ensure_frontier(flood_model *m, flood_replica *r, int b, uint64_t need,
                          cn_error *err)
{
    if (need <= r->capacity[b])
        return 0;
    if (need > 0xffffffffu)
        return cn_fail(err, CN_ERR_RUNTIME, "more than 2^32 transmissions in one window");
    uint64_t cap = min_u64(need + need / 2, 0xffffffffu);
    flood_forget_args(r);
    /* The old entries may still be unread (they are this window's, or the kernel writing
     * them is queued): the in-order queue copies them after it. */
    int rc = dbuf_grow(r->dev, &r->frontier[b], (size_t)cap * m->entry_bytes,
                       (size_t)r->capacity[b] * m->entry_bytes, &m->acc, "frontier", err);
    if (!rc)
        r->capacity[b] = (uint32_t)cap;
    return rc;
}

int flood_area_quiet(flood_replica *r, struct export_area *a, cn_error *err)
{
    int rc = 0;
    for (int i = 0; i < a->n_writes; i++) {
        if (!rc)
            rc = cl_check(clWaitForEvents(1, &a->writes[i]), "clWaitForEvents(relay exchange)",
                          r->dev->info.name, err);
        clReleaseEvent(a->writes[i]);
    }
    a->n_writes = 0;
    return rc;
}

int flood_area_reserve(flood_replica *r, struct export_area *a, uint32_t entries,
                       uint32_t keep, cn_error *err)
{
    if (entries <= a->cap)
        return 0;
    int rc = flood_area_quiet(r, a, err);
    uint64_t cap = (uint64_t)entries + entries / 2 + 1024;
    cl_mem mem = NULL;
    void *map = rc ? NULL : host_area_alloc(r->dev, (size_t)cap * 8, &mem);
    if (!rc && !map)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %u exchanged relays", entries);
    if (rc)
        return rc;
    if (keep && a->map)
        memcpy(map, a->map, (size_t)keep * 8);
    host_area_free(r->dev, a->mem, a->map);
    a->mem = mem;
    a->map = map;
    a->cap = (uint32_t)(cap < 0xffffffffu ? cap : 0xffffffffu);
    return 0;
}

void flood_release_export_areas(flood_replica *r)
{
    struct export_area *a = &r->rarea;
    for (int i = 0; i < a->n_writes; i++) {
        clWaitForEvents(1, &a->writes[i]);
        clReleaseEvent(a->writes[i]);
    }
    a->n_writes = 0;
    host_area_free(r->dev, a->mem, a->map);
    a->mem = NULL;
    a->map = NULL;
    a->cap = 0;
}

int flood_make_room(void *ctx, int place, uint64_t total, cl_mem *area, cn_error *err)
{
    flood_model *m = ctx;
    flood_replica *r = &m->rep[place];
    int rc = flood_ensure_frontier(m, r, m->xw_buffer, total, err);
    *area = r->frontier[m->xw_buffer].mem;
    return rc;
}

/* ---- Deferred read-backs ----
 * On one device running ahead, a window's read-back sits on the kernels' queue between two
 * launches, where it costs the device some 10 us more than a launch does (docs/benchmarks.md,
 * "Where the rest of a fused window goes"). So the read-backs of up to K - 1 windows in a row
 * are deferred (K = m->read_every), and the next window's covers them all: what the host needs
 * of window w is still there after window w + K - 1. Its relay count is in the count word
 * that window w + CTL_ROTATION - 1 clears (the rotation, prepare_transmit; K < CTL_ROTATION);
 * a slot's liveness word holds the window after its packet's last relay, w + 1 .. R + 1 after
 * window R for a packet that relayed in w (a packet born by w relays in w + 1 only from the
 * relays it made in w, and so on); the counters are totals. Only moving scenarios (their
 * frontier bound needs no relay count, relays_bound) on one device, in one partition,
 * without flows (whose delivery counts window w + 1 clears), a scheme in the window loop or
 * node resources, and only windows whose relays were bounded within the next frontier. The
 * deferred read-backs are queued as one (flood_undefer) before anything else could change
 * what they read: a transmit of a window that does not follow them, or the host needing a
 * window now. No result depends on it: slots are freed up to K - 1 windows later, and
 * results never depend on the slots. */
int flood_may_defer(const flood_model *m, int64_t w, int sized)
{
    int follows = m->n_deferred == 0 ? m->last_read == w - 1
                                     : m->deferred[m->n_deferred - 1].window == w - 1;
    return m->n_deferred + 1 < m->read_every && sized && m->mobile && m->n_rep == 1 &&
           m->n_parts == 1 && !m->flows && !m->scheme_window && !m->resources &&
           !m->export_pending && follows && m->ran_mask == 1;
}

void flood_defer_readback(flood_model *m, int64_t w, cl_uint out_word, int out_buffer)
{
    struct flood_deferred *d = &m->deferred[m->n_deferred++];
    d->window = w;
    d->word = out_word;
    d->buffer = (uint32_t)out_buffer;
    d->capacity = m->rep[0].capacity[out_buffer];
}

static int queue_readback_on(flood_model *m, int64_t w, cl_uint out_word, int out_buffer,
                             int overflow_safe, int mask, cn_error *err);

int flood_undefer(flood_model *m, cn_error *err)
{
    if (m->n_deferred == 0)
        return 0;
    /* the last one's read-back, which covers those before it */
    struct flood_deferred last = m->deferred[--m->n_deferred];
    return queue_readback_on(m, last.window, last.word, (int)last.buffer, 1, 1, err);
}

int flood_queue_readback(flood_model *m, int64_t w, cl_uint out_word, int out_buffer,
                         int overflow_safe, cn_error *err)
{
    return queue_readback_on(m, w, out_word, out_buffer, overflow_safe, m->ran_mask, err);
}

/* The read-back of window W on the replicas of MASK (with the deferred windows before it). */
static int queue_readback_on(flood_model *m, int64_t w, cl_uint out_word, int out_buffer,
                             int overflow_safe, int mask, cn_error *err)
{
    /* (deferred read-backs of windows that W does not follow were queued before window W's
     * transmit: run_transmit) */
    int idx = (m->rb_head + m->rb_count) % 2;
    struct flood_readback *rb = &m->rb[idx];
    rb->window = w;
    rb->n_first = m->n_deferred;
    for (int i = 0; i < m->n_deferred; i++)
        rb->first[i] = m->deferred[i];
    m->n_deferred = 0;
    m->last_read = w;
    m->read_backs++;
    rb->out_word = out_word;
    rb->out_buffer = (uint32_t)out_buffer;
    rb->overflow_safe = overflow_safe;
    rb->exported = m->export_pending;
    rb->n_dev = 0;
    /* exports are read with the counters only when no other read-back is pending (one window
     * at a time, as with several devices) */
    int speculate = rb->exported && m->rb_count == 0;
    m->rb_count++; /* from here on, flood_destroy releases what was queued */
    for (int d = 0; d < m->n_rep; d++) {
        if (!(mask & (1 << d)))
            continue;
        flood_replica *r = &m->rep[d];
        int k = rb->n_dev;
        rb->dev[k] = d;
        rb->out_capacity[k] = r->capacity[out_buffer];
        rb->ev[k] = NULL;
        cl_int st = CL_SUCCESS;
        /* its border of the window, read with the counters (the core's exchange) */
        if (speculate) {
            int rc = exchange_window_post(&m->xw, w, d, r->capacity[out_buffer], err);
            if (rc)
                return rc;
        }
        if (m->flows) { /* the deliveries of the window's parity, after the liveness words */
            size_t dbytes = (size_t)m->slots * 4 * flood_deliv_words(m);
            st = clEnqueueReadBuffer(r->dev->queue, r->deliv.mem, CL_FALSE,
                                     (size_t)(w & 1) * dbytes, dbytes,
                                     r->pinned_map + (size_t)idx * r->area + CTL_WORDS +
                                         m->slots,
                                     0, NULL, NULL);
            if (st != CL_SUCCESS)
                return cl_check(st, "clEnqueueReadBuffer(deliveries)", r->dev->info.name, err);
        }
        /* an in-order queue: this read completes after the one above */
        st = clEnqueueReadBuffer(r->dev->queue, r->ctl.mem, CL_FALSE, 0,
                                 ((size_t)CTL_WORDS + m->slots) * 4,
                                 r->pinned_map + (size_t)idx * r->area, 0, NULL, &rb->ev[k]);
        if (st != CL_SUCCESS)
            return cl_check(st, "clEnqueueReadBuffer(window counters)", r->dev->info.name, err);
        rb->n_dev++;
        /* Starts the device on what is queued so far, without waiting for it. */
        st = clFlush(r->dev->queue);
        if (st != CL_SUCCESS)
            return cl_check(st, "clFlush", r->dev->info.name, err);
    }
    return 0;
}

/* Replica R's frontier B overflowed (only possible when windows are read back one by one):
 * grow it and move the spilled relays in. Tested through CLNETSIM_TEST_FRONTIER_CAPACITY. */
static int gather_spill(flood_model *m, flood_replica *r, int b, uint32_t next, cn_error *err)
{
    device_ctx *d = r->dev;
    uint32_t at = r->capacity[b];
    static const cl_uint zero = 0;
    int rc = flood_ensure_frontier(m, r, b, next, err);
    if (!rc)
        rc = dbuf_write(d, &r->ctl, CTL_GATHER * 4, 4, &zero, 0, err);
    /* slots x words can pass 2^32 (a hundred million nodes, a few thousand slots): the kernel
     * takes a 64-bit count and strides over it */
    cl_ulong total = (cl_ulong)m->slots * m->words;
    size_t items = total < ((cl_ulong)1 << 24) ? (size_t)total : (size_t)1 << 24;
    if (!rc)
        rc = kernel_args(d, r->k_gather, "flood.gather_spill", err, 7, KBUF(r->spill),
                         KARG(total), KBUF(r->params), KBUF(r->ctl), KBUF(r->frontier[b]),
                         KARG(at), KBUF(*flood_scheme_state_buffer(r)));
    if (!rc)
        rc = enqueue_1d(d, r->k_gather, "flood.gather_spill", items, r->ls_gather, NULL, err);
    return rc;
}

/* Packets that transmitted in window W (those created by then and still in flight): note
 * their time, and free the slots of those that made no relay (nothing of them remains). */
static int retire_packets(flood_model *m, int64_t w, const uint32_t *alive, cn_error *err)
{
    cl_uint stamp = (cl_uint)(w + 1);
    int64_t begin = w * m->L;
    m->scheme_waiting = 0;
    for (uint32_t s = 0; s < m->slots; s++) {
        int64_t k = m->slot_pkt[s];
        if (k < 0 || m->born_window[s] > w)
            continue;
        int64_t tk = m->slot_time[s];
        int64_t h = tk >= begin ? 1 : (begin - tk + m->L - 1) / m->L + 1;
        int64_t t = tk + (h - 1) * m->L;
        int in_time = m->sc.duration_ns == 0 || t < m->sc.duration_ns;
        /* under node resources a packet may have had every transmission cancelled: the
         * kernels marked those that transmitted; under a scheme in the window loop a packet
         * may wait for decisions without transmitting */
        int sent = m->resources ? alive[s] == stamp || alive[s] == (stamp ^ RES_TX_MARK)
                                : in_time;
        int lives = alive[s] == stamp;
        if (m->scheme_window) /* (under resources it reads their marks) */
            flood_scheme_window_done(m, w, s, in_time, &sent, &lives);
        if (sent) {
            if (!m->any_tx || t > m->end_time)
                m->end_time = t;
            m->any_tx = 1;
        }
        if (!lives) {
            int64_t life = w - m->born_window[s] + 1;
            if (life > m->longest_life)
                m->longest_life = life;
            if (flood_retire_slot(m, s) != 0)
                return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet records");
            m->slot_pkt[s] = -1;
            m->dirty_slots[m->n_dirty++] = s;
        }
    }
    return 0;
}

/* The host's copy of exchanged relays (m->entries). Non-blocking writes from it may still be
 * queued on the devices that were given relays: every reuse first waits for those queues. */
static int entries_quiet(flood_model *m, cn_error *err)
{
    int rc = 0;
    for (int d = 0; d < m->n_rep && !rc; d++)
        if (m->entries_writers & (1 << d))
            rc = cl_check(clFinish(m->rep[d].dev->queue), "clFinish(relay exchange)",
                          m->rep[d].dev->info.name, err);
    if (!rc)
        m->entries_writers = 0;
    return rc;
}

void flood_release_entries(flood_model *m)
{
    for (int d = 0; d < m->n_rep; d++) /* writes from it may still be queued */
        if (m->entries_writers & (1 << d))
            clFinish(m->rep[d].dev->queue);
    m->entries_writers = 0;
    host_area_free(m->rep[0].dev, m->entries_mem, m->entries);
    m->entries = NULL;
    m->entries_mem = NULL;
    m->entries_cap = 0;
}

/* Room for ENTRIES relays in m->entries, pinned when the driver allows (host_area_alloc).
 * Its content is not kept. */
static int reserve_entries(flood_model *m, uint64_t entries, cn_error *err)
{
    int rc = entries_quiet(m, err);
    if (rc || entries <= m->entries_cap)
        return rc;
    uint64_t cap = entries + entries / 2;
    size_t bytes = (size_t)cap * m->entry_bytes;
    flood_release_entries(m);
    cl_mem mem = NULL;
    void *e = host_area_alloc(m->rep[0].dev, bytes, &mem);
    if (!e)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %llu exchanged relays",
                       (unsigned long long)entries);
    m->entries_mem = mem;
    m->entries = e;
    m->entries_cap = (size_t)cap;
    return 0;
}

/* Room for CAP exported relays on replica R. */
static int ensure_exported(flood_model *m, flood_replica *r, uint32_t cap, cn_error *err)
{
    int d = (int)(r - m->rep);
    if (cap <= exchange_window_capacity(&m->xw, d) && exchange_window_area(&m->xw, d)->mem)
        return 0;
    flood_forget_args(r);
    return exchange_window_reserve(&m->xw, d, cap, err);
}

/* Who holds partition Q as seen from this rank: a device of it (0 .. n_rep - 1), or
 * n_rep + the rank holding it. */
static int holder_of(const flood_model *m, uint32_t q)
{
    if (m->home[q] >= 0)
        return m->home[q];
    int r = 0;
    while (m->rank_first && r + 1 < dist_size() && m->rank_first[r + 1] <= q)
        r++;
    return m->n_rep + r;
}

int flood_export_setup(flood_model *m, flood_replica *r, int64_t w, cn_error *err)
{
    int d = (int)(r - m->rep), holders = m->n_rep + dist_size();
    r->x_window = w;
    r->x_placement = m->placement;
    r->x_active = m->prep.spread;
    r->x_n = 0;
    if (!r->x_active) /* (the kernels then take a placeholder buffer: flood_export_boxes) */
        return 0;
    size_t bytes = 2 * (size_t)holders * sizeof(cl_long4);
    int rc = 0;
    if (!r->xbox_host && !(r->xbox_host = calloc(2 * (size_t)holders, sizeof(cl_long4))))
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!r->xboxes.mem)
        rc = dbuf_alloc(r->dev, &r->xboxes, bytes, &m->acc, "export boxes", err);
    /* window W + 1's reach boxes, one move wider (a relay made at window W's positions
     * transmits in window W + 1, one move later, as in flood_export_border), one union per
     * other holder: around the tiles another holder keeps, not around every tile elsewhere
     * (with tiles in a 2 x 2 grid on four holders that union is the whole plane) */
    cl_long4 *box = r->xbox_host;
    for (int h = 0; h < holders; h++)
        for (int c = 0; c < 4; c++) /* empty until a box widens it */
            box[2 * h].s[c] = INT64_MAX, box[2 * h + 1].s[c] = INT64_MIN;
    for (uint32_t q = 0; q < m->n_parts && !rc; q++) {
        if (m->home[q] == d)
            continue;
        int h = holder_of(m, q);
        if (h < 0 || h >= holders) /* (holder_of is within [0, n_rep + dist_size())) */
            continue;
        cl_long4 lo, hi;
        flood_reach_box(m, q, w + 1, 1, &lo, &hi);
        for (int c = 0; c < 4; c++) {
            if (lo.s[c] < box[2 * h].s[c])
                box[2 * h].s[c] = lo.s[c];
            if (hi.s[c] > box[2 * h + 1].s[c])
                box[2 * h + 1].s[c] = hi.s[c];
        }
    }
    for (int h = 0; h < holders; h++)
        if (box[2 * h].s[0] <= box[2 * h + 1].s[0]) { /* (a holder of partitions) */
            box[2 * r->x_n] = box[2 * h];
            box[2 * r->x_n + 1] = box[2 * h + 1];
            r->x_n++;
        }
    /* not blocking: the host rewrites XBOX_HOST only at the next window's first set, after
     * this window's read-back (queued after the transmit) has been waited for */
    if (!rc && r->x_n)
        rc = dbuf_write(r->dev, &r->xboxes, 0, 2 * (size_t)r->x_n * sizeof(cl_long4),
                        r->xbox_host, 0, err);
    if (!rc)
        rc = ensure_exported(m, r, r->capacity[m->cur ^ 1], err);
    return rc;
}

const dbuf *flood_export_boxes(const flood_replica *r)
{
    return r->x_active && r->xboxes.mem ? &r->xboxes : &r->spill;
}

int flood_export_border(flood_model *m, int64_t w, cl_uint out_word, int b, cn_error *err)
{
    static const cl_uint zero = 0;
    int rc = 0;
    cl_uint export_word = CTL_EXPORT + (cl_uint)(w & 1);
    if (m->mobile) {
        /* transmit_mobile exported as it ran: complete only when every replica that ran the
         * window exported, with the placement the window ended with */
        int complete = 1;
        for (int d = 0; d < m->n_rep; d++) {
            const flood_replica *r = &m->rep[d];
            if ((m->ran_mask & (1 << d)) &&
                !(r->x_window == w && r->x_active && r->x_placement == m->placement))
                complete = 0;
        }
        m->export_pending = complete;
        return 0;
    }
    for (int d = 0; d < m->n_rep && !rc; d++) {
        if (!(m->ran_mask & (1 << d)))
            continue;
        flood_replica *r = &m->rep[d];
        /* The reach boxes of window W + 1 of the partitions held elsewhere, one move wider: a
         * relay made at window W's positions transmits in window W + 1, one move later. */
        uint32_t nb = 0;
        for (uint32_t q = 0; q < m->n_parts; q++)
            nb += m->home[q] != d;
        if (2 * (size_t)nb > r->box_cap) {
            cl_long4 *grown = realloc(r->box_host, 2 * (size_t)nb * sizeof *grown);
            if (!grown)
                return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
            r->box_host = grown;
            r->box_cap = 2 * nb;
        }
        nb = 0;
        for (uint32_t q = 0; q < m->n_parts; q++)
            if (m->home[q] != d) {
                flood_reach_box(m, q, w + 1, 1, &r->box_host[2 * nb], &r->box_host[2 * nb + 1]);
                nb++;
            }
        size_t box_bytes = 2 * (size_t)nb * sizeof(cl_long4);
        if (box_bytes > r->boxes.bytes) {
            flood_forget_args(r);
            dbuf_release(&r->boxes, &m->acc);
            rc = dbuf_alloc(r->dev, &r->boxes, box_bytes, &m->acc, "reach boxes", err);
        }
        if (!rc)
            rc = ensure_exported(m, r, r->capacity[b], err);
        /* not blocking: the read-back of this window, queued after, completes the writes
         * before the host touches BOX_HOST again */
        if (!rc)
            rc = dbuf_write(r->dev, &r->boxes, 0, box_bytes, r->box_host, 0, err);
        if (!rc)
            rc = dbuf_write(r->dev, &r->ctl, (size_t)export_word * 4, 4, &zero, 0, err);
        cl_uint cap = r->capacity[b];
        if (!rc)
            rc = kernel_args_cached(r->dev, r->k_export, &r->export_args,
                                    "flood.export_border", err, 0, 9, KBUF(r->frontier[b]),
                                    KARG(out_word), KARG(cap),
                                    KBUF(r->ctl), KBUF(r->pos), KBUF(r->boxes), KARG(nb),
                                    KBUF(*exchange_window_area(&m->xw, d)),
                                    KARG(export_word));
        size_t ls = r->ls_export;
        size_t groups = ((size_t)cap + ls - 1) / ls;
        if (groups > r->max_groups)
            groups = r->max_groups;
        if (!rc)
            rc = enqueue_1d(r->dev, r->k_export, "flood.export_border", (groups ? groups : 1) * ls,
                            ls, NULL, err);
    }
    if (!rc)
        m->export_pending = 1;
    return rc;
}

/* Several replicas ran window RB->window and exported their borders (export_border, or
 * transmit_mobile as it ran): replica RB->dev[k] made RELAYS[k] relays, at the start of its
 * frontier RB->out_buffer, and exported SENT[k] of them. The core's windowed exchange carries
 * each replica's border once to every other replica that ran the window (mostly read back
 * with the counters already) and writes it after their own relays; their number goes to each
 * one's next transmit launches as an argument (n_import), not into its count word: one write
 * less per device and window. */
int flood_exchange_border(flood_model *m, const struct flood_readback *rb,
                          const uint32_t *relays, const uint32_t *sent, cn_error *err)
{
    uint32_t set = 0, count[FLOOD_MAX_REPLICAS] = {0}, own[FLOOD_MAX_REPLICAS] = {0};
    uint32_t arrived[FLOOD_MAX_REPLICAS] = {0};
    uint64_t total = 0;
    for (int k = 0; k < rb->n_dev; k++) {
        int d = rb->dev[k];
        set |= 1u << d;
        count[d] = sent[k];
        own[d] = relays[k];
        total += sent[k];
    }
    m->xw_buffer = (int)rb->out_buffer;
    double waited = m->xw.wait_s;
    int rc = dist_size() > 1
                 ? exchange_window_carry_ranks(&m->xw, rb->window, set, count, own, arrived, err)
                 : exchange_window_carry(&m->xw, rb->window, set, count, own, arrived, err);
    m->wait_s += m->xw.wait_s - waited;
    for (int k = 0; k < rb->n_dev && !rc; k++) {
        flood_replica *r = &m->rep[rb->dev[k]];
        r->n_import = arrived[rb->dev[k]];
        r->import_window = rb->window + 1;
        m->exchanged += (int64_t)total * m->entry_bytes; /* what it sent, the others' in */
    }
    /* a border is not the whole window: a replica that needs all of it gathers it */
    m->entries_window = -1;
    return rc;
}

/* Several replicas ran window RB->window, and their borders cannot go (a frontier spilled,
 * a border passed its area, or not every replica exported): replica RB->dev[k] made
 * RELAYS[k] relays at the start of its frontier RB->out_buffer, and sends all of them, read
 * into m->entries; each replica gets the others' after its own (n_import, as above). */
int flood_exchange_whole(flood_model *m, const struct flood_readback *rb,
                         const uint32_t *relays, const uint64_t *rank_totals, cn_error *err)
{
    int b = (int)rb->out_buffer;
    uint64_t at[FLOOD_MAX_REPLICAS] = {0}, total = 0;
    for (int k = 0; k < rb->n_dev; k++) {
        at[k] = total;
        total += relays[k];
    }
    /* several ranks: every rank's relays in rank order, this rank's from BASE on */
    int ranks = rank_totals ? dist_size() : 1, me = rank_totals ? dist_rank() : 0;
    uint64_t base = 0, all = rank_totals ? 0 : total;
    for (int q = 0; q < ranks && rank_totals; q++) {
        base += q < me ? rank_totals[q] : 0;
        all += rank_totals[q];
    }
    size_t ew = entry_words(m);
    int rc = reserve_entries(m, all, err);
    /* every read queued first, so that the devices copy at the same time */
    for (int k = 0; k < rb->n_dev && !rc; k++)
        rc = dbuf_read(m->rep[rb->dev[k]].dev, &m->rep[rb->dev[k]].frontier[b], 0,
                       (size_t)relays[k] * m->entry_bytes, m->entries + ew * (base + at[k]), 0,
                       err);
    double t0 = wall_seconds();
    for (int k = 0; k < rb->n_dev && !rc; k++)
        rc = cl_check(clFinish(m->rep[rb->dev[k]].dev->queue), "clFinish(relay exchange)",
                      m->rep[rb->dev[k]].dev->info.name, err);
    m->wait_s += wall_seconds() - t0;
    if (!rc && rank_totals) { /* the ranks' relays to every rank */
        uint32_t *gathered = malloc(all ? (size_t)all * m->entry_bytes : 1);
        if (!gathered) /* the others wait in the gather: no way back */
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for %llu relays",
                           (unsigned long long)all);
        rc = dist_allgatherv(m->entries + ew * base, rank_totals, m->entry_bytes, gathered, err);
        m->rank_sent += total * m->entry_bytes;
        if (!rc && all)
            memcpy(m->entries, gathered, (size_t)all * m->entry_bytes);
        free(gathered);
    }
    for (int k = 0; k < rb->n_dev && !rc; k++) {
        flood_replica *r = &m->rep[rb->dev[k]];
        uint64_t count = all;
        if (count > 0xffffffffu)
            return cn_fail(err, CN_ERR_RUNTIME, "more than 2^32 transmissions in one window");
        r->n_import = (cl_uint)(all - relays[k]);
        r->import_window = rb->window + 1;
        rc = flood_ensure_frontier(m, r, b, count, err);
        /* the others' relays in replica order after its own, then the other ranks' in rank
         * order; m->entries stays untouched until the writes complete (m->entries_writers) */
        uint64_t offset = relays[k], from = 0;
        for (int q = 0; q < ranks && !rc; q++) {
            uint64_t n_q = rank_totals ? rank_totals[q] : total;
            for (int j = 0; j < (q == me ? rb->n_dev : 1) && !rc; j++) {
                uint64_t src = q == me ? base + at[j] : from;
                uint64_t n = q == me ? relays[j] : n_q;
                if ((q == me && j == k) || n == 0)
                    continue;
                cl_int st = clEnqueueWriteBuffer(r->dev->queue, r->frontier[b].mem, CL_FALSE,
                                                 (size_t)offset * m->entry_bytes,
                                                 (size_t)n * m->entry_bytes,
                                                 m->entries + ew * src, 0, NULL, NULL);
                if (st != CL_SUCCESS)
                    rc = cl_check(st, "clEnqueueWriteBuffer(relay exchange)", r->dev->info.name,
                                  err);
                offset += n;
            }
            from += n_q;
        }
        m->entries_writers |= 1 << rb->dev[k];
        m->exchanged += (int64_t)total * m->entry_bytes; /* what it sent, the others' in */
    }
    /* the whole window is on the host for a replica that needs all of it */
    m->entries_window = rb->window + 1;
    return rc;
}

/* Window RB->FIRST[I] of a read-back that covers several windows (its read was deferred):
 * applied from the words read after window RB->WINDOW, as flood_process_until applies a
 * window's own (one replica, no spill, exchange, flows, scheme or resources:
 * flood_may_defer). */
static int process_first(flood_model *m, const struct flood_readback *rb, int i, int idx,
                         cn_error *err)
{
    int64_t w = rb->first[i].window;
    flood_replica *r = &m->rep[rb->dev[0]];
    const uint32_t *words = r->pinned_map + (size_t)idx * r->area;
    uint32_t relays = words[rb->first[i].word];
    if (relays > rb->first[i].capacity)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: window %lld made %u relays, "
                       "beyond its bound of %u", (long long)w, relays, rb->first[i].capacity);
    /* alive in W: the last relay in W .. RB->WINDOW (which only relays made in W feed) */
    cl_uint stamp = (cl_uint)(w + 1), span = (cl_uint)(rb->window - w);
    for (uint32_t s = 0; s < m->slots; s++) {
        uint32_t v = words[CTL_WORDS + s];
        m->alive[s] = v - stamp <= span ? stamp : 0; /* (stamps modulo 2^32) */
    }
    int rc = retire_packets(m, w, m->alive, err);
    if (rc)
        return rc;
    m->relays_mask = 1 << rb->dev[0];
    m->relays_of[rb->dev[0]] = relays;
    m->relays_known = relays;
    m->processed = w;
    return 0;
}

/* Waits for the read-back at the head of the queue and takes it off (*IDX: its area), with
 * the windows before it that it covers applied. */
int flood_readback_wait(flood_model *m, int *idx, cn_error *err)
{
    *idx = m->rb_head;
    struct flood_readback *rb = &m->rb[*idx];
    int rc = 0;
    double t0 = wall_seconds();
    for (int k = 0; k < rb->n_dev; k++) {
        if (!rc)
            rc = cl_check(clWaitForEvents(1, &rb->ev[k]), "clWaitForEvents(window counters)",
                          m->rep[rb->dev[k]].dev->info.name, err);
        clReleaseEvent(rb->ev[k]);
        rb->ev[k] = NULL;
    }
    m->wait_s += wall_seconds() - t0;
    m->rb_head = (m->rb_head + 1) % 2;
    m->rb_count--;
    for (int i = 0; i < rb->n_first && !rc; i++)
        rc = process_first(m, rb, i, *idx, err);
    return rc;
}

int flood_readback_collect(flood_model *m, const struct flood_readback *rb, int idx,
                           flood_window_counts *c, cn_error *err)
{
    memset(c, 0, sizeof *c);
    int rc = 0;
    cl_uint stamp = (cl_uint)(rb->window + 1);
    memset(m->alive, 0, (size_t)m->slots * sizeof *m->alive);
    for (int k = 0; k < rb->n_dev; k++) {
        flood_replica *r = &m->rep[rb->dev[k]];
        const uint32_t *words = r->pinned_map + (size_t)idx * r->area;
        if (words[CTL_OVERFLOW] & CTL_WRAPPED)
            return cn_fail(err, CN_ERR_RUNTIME, "window %lld made 2^32 relays or more on "
                           "device '%s', more than one window's count holds; use more "
                           "devices or partitions", (long long)rb->window, r->dev->info.name);
        if (words[CTL_OVERFLOW])
            return cn_fail(err, CN_ERR_RUNTIME, "internal error: window %lld reserved more "
                           "frontier than it was given on device '%s'",
                           (long long)rb->window, r->dev->info.name);
        c->relays[k] = words[rb->out_word];
        c->exports[k] = words[CTL_EXPORT + (rb->window & 1)];
        /* more than the exported area holds: the whole frontier goes instead */
        if (c->exports[k] > exchange_window_capacity(&m->xw, rb->dev[k]))
            c->unsent = 1;
        if (c->relays[k] > rb->out_capacity[k]) {
            c->spilled = 1;
            if (rb->window != m->planned)
                return cn_fail(err, CN_ERR_RUNTIME, "internal error: window %lld made %u "
                               "relays, beyond its bound of %u", (long long)rb->window,
                               c->relays[k], rb->out_capacity[k]);
            if ((rc = gather_spill(m, r, (int)rb->out_buffer, c->relays[k], err)) != 0)
                return rc;
        }
        memcpy(r->counters, words, sizeof r->counters);
        /* the window's deliveries per slot, after the liveness words (several ranks: every
         * rank's, added after the agreement, flood_ranks.c) */
        if (m->flows && !m->ranked)
            flood_add_deliveries(m, rb->window, words + CTL_WORDS + m->slots);
        flood_merge_alive(m, stamp, words + CTL_WORDS);
        c->total += c->relays[k];
    }
    if (c->total > 0xffffffffu)
        return cn_fail(err, CN_ERR_RUNTIME, "more than 2^32 transmissions in one window");
    return 0;
}

void flood_merge_alive(flood_model *m, cl_uint stamp, const uint32_t *live)
{
    /* a relay anywhere wins over a mark (transmitted, or waiting for decisions); resources
     * under a scheme gather marks in one partition, hence one device */
    cl_uint mark = m->resources ? stamp ^ RES_TX_MARK : stamp ^ SCHEME_WAIT_MARK;
    for (uint32_t s = 0; s < m->slots; s++) {
        if (m->resources && m->scheme_window) {
            if (((live[s] ^ stamp) & ~(cl_uint)SLOT_MARKS) == 0)
                m->alive[s] = live[s];
        } else if (live[s] == stamp)
            m->alive[s] = stamp;
        else if ((m->resources || m->scheme_window) && live[s] == mark &&
                 m->alive[s] != stamp)
            m->alive[s] = mark;
    }
}

int flood_readback_apply(flood_model *m, const struct flood_readback *rb,
                         const flood_window_counts *c, uint64_t total, cn_error *err)
{
    m->relays_mask = 0;
    for (int k = 0; k < rb->n_dev; k++) {
        m->relays_mask |= 1 << rb->dev[k];
        m->relays_of[rb->dev[k]] = c->relays[k];
    }
    int rc = retire_packets(m, rb->window, m->alive, err);
    if (rc)
        return rc;
    m->relays_known = (uint32_t)total;
    m->processed = rb->window;
    return 0;
}

int flood_process_until(flood_model *m, int64_t w, cn_error *err)
{
    /* a window the host needs whose read-back was deferred: read it now */
    if (m->n_deferred > 0 && m->deferred[0].window <= w) {
        int rc = flood_undefer(m, err);
        if (rc)
            return rc;
    }
    while (m->rb_count > 0 && m->rb[m->rb_head].window <= w) {
        int idx;
        int rc = flood_readback_wait(m, &idx, err);
        const struct flood_readback *rb = &m->rb[idx];
        flood_window_counts c;
        memset(&c, 0, sizeof c);
        if (!rc)
            rc = flood_readback_collect(m, rb, idx, &c, err);
        if (!rc && rb->n_dev > 1)
            rc = rb->exported && !c.spilled && !c.unsent
                     ? flood_exchange_border(m, rb, c.relays, c.exports, err)
                     : flood_exchange_whole(m, rb, c.relays, NULL, err);
        if (!rc)
            rc = flood_readback_apply(m, rb, &c, c.total, err);
        if (rc)
            return rc;
    }
    /* Windows without transmissions have nothing to read back. */
    if (m->rb_count == 0 && m->processed < w && w <= m->planned)
        m->relays_known = 0, m->processed = w;
    return 0;
}

/* Copies the mobility state (positions, waypoints, speeds, legs, pauses) of replica FROM to
 * R through the host: what R would compute by replaying the steps it missed. */
static int copy_mobility(flood_model *m, flood_replica *from, flood_replica *r, cn_error *err)
{
    dbuf *src[] = {&from->pos, &from->waypoint, &from->speed, &from->leg, &from->pause_end};
    dbuf *dst[] = {&r->pos, &r->waypoint, &r->speed, &r->leg, &r->pause_end};
    size_t most = 0;
    for (int i = 0; i < 5; i++)
        most = src[i]->bytes > most ? src[i]->bytes : most;
    void *stage = malloc(most ? most : 1);
    int rc = stage ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (int i = 0; i < 5 && !rc; i++) {
        size_t bytes = src[i]->bytes < dst[i]->bytes ? src[i]->bytes : dst[i]->bytes;
        rc = dbuf_read(from->dev, src[i], 0, bytes, stage, 1, err);
        if (!rc)
            rc = dbuf_write(r->dev, dst[i], 0, bytes, stage, 1, err);
        m->exchanged += 2 * (int64_t)bytes;
    }
    free(stage);
    /* the positions carry FROM's partitions: R's own back in */
    if (!rc)
        rc = flood_stamp_parts(m, r, err);
    if (!rc) {
        r->moved = from->moved;
        r->ranked = -1; /* its ranks, if any, are of other positions */
    }
    return rc;
}

int flood_lists_filtered(const flood_model *m)
{
    return m->n_parts > 1 && !m->cap; /* the cap needs every node (flood_cap.c) */
}

int flood_catch_up(flood_model *m, flood_replica *r, int64_t w, int bin, cl_event *evs,
                   int *n_evs, cn_error *err)
{
    int rc = 0;
    /* A replica many steps behind copies the state of the one furthest ahead (not beyond W)
     * instead of replaying every step: a CPU tried after a long run on a GPU would otherwise
     * spend more on the replay than on the window it was tried for. */
    flood_replica *ahead = NULL;
    for (int d = 0; d < m->n_rep; d++)
        if (&m->rep[d] != r && m->rep[d].moved <= w && (!ahead || m->rep[d].moved > ahead->moved))
            ahead = &m->rep[d];
    if (ahead && ahead->moved - r->moved > (int64_t)m->replay_steps)
        rc = copy_mobility(m, ahead, r, err);
    /* the steps it missed while it held no partition, then this window's */
    for (int64_t t = r->moved + 1; t <= w && !rc; t++)
        rc = flood_move(m, r, t, t == w && evs ? &evs[(*n_evs)++] : NULL, err);
    /* With several partitions a device lists only the nodes of the partitions it holds,
     * as of this window's tiling and the current placement (a migration or a re-tiling
     * makes it bin again). */
    int filtered = flood_lists_filtered(m);
    if (!rc && bin && filtered)
        rc = flood_part_of_current(m, r, w, err);
    if (!rc && bin && filtered)
        rc = flood_held_current(m, r, err);
    if (!rc && bin &&
        (r->binned != w ||
         (filtered && (r->bin_epoch != r->part_epoch || r->bin_placement != m->placement)))) {
        /* without EVS (an untimed window, or nobody to hand them to) no events at all; from
         * the ranks of this window's step when it took them (every other case counts) */
        if (m->fuse && r == &m->rep[0])
            rc = flood_fixed_bin(m, r, w, evs, n_evs, err);
        else if (!filtered && r->ranked == w && r->moved == w)
            rc = cell_lists_build_ranked(&r->cells, r->dev, &r->pos, evs, n_evs, err);
        else
            rc = cell_lists_build(&r->cells, r->dev, &r->pos, filtered ? &r->held : NULL, evs,
                                  n_evs, err);
        if (!rc) {
            r->binned = w;
            r->bin_epoch = r->part_epoch;
            r->bin_placement = m->placement;
        }
    }
    /* the neighbour cap of this window's graph, from the lists just made */
    if (!rc && bin && m->cap_live && r->capped != w)
        rc = flood_cap_select(m, r, w, evs ? &evs[(*n_evs)++] : NULL, err);
    return rc;
}

void flood_premove_release(flood_replica *r)
{
    if (r->pre_move_ev)
        clReleaseEvent(r->pre_move_ev);
    for (int i = 0; i < r->n_pre_bin; i++)
        if (r->pre_bin_ev[i])
            clReleaseEvent(r->pre_bin_ev[i]);
    r->pre_move_ev = NULL;
    r->n_pre_bin = 0;
    r->pre_window = -1;
}

int flood_premove(flood_model *m, int64_t w, int timed, cn_error *err)
{
    int rc = 0, holders = flood_holders(m);
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        flood_premove_release(r);
        /* (a step fused into this window's transmit moved it already: the lists remain) */
        if (!(holders & (1 << d)) || (r->moved >= w && r->binned >= w))
            continue;
        /* window W's sets hand these events to the engine only when W is timed: otherwise
         * the launches go without (window_plan.timed_next) */
        cl_event ev[1] = {NULL};
        int n_ev = 0;
        rc = flood_catch_up(m, r, w, 0, timed ? ev : NULL, &n_ev, err);
        r->pre_move_ev = n_ev ? ev[0] : NULL;
        if (!rc)
            rc = flood_catch_up(m, r, w, 1, timed ? r->pre_bin_ev : NULL, &r->n_pre_bin, err);
        if (!rc)
            rc = cl_check(clFlush(r->dev->queue), "clFlush", r->dev->info.name, err);
        r->pre_window = w;
    }
    return rc;
}

void flood_premove_claim(flood_replica *r, int64_t w, int bin, cl_event *evs, int *n_evs)
{
    if (r->pre_window != w)
        return;
    if (!bin && r->pre_move_ev) {
        evs[(*n_evs)++] = r->pre_move_ev;
        r->pre_move_ev = NULL;
    }
    for (int i = 0; bin && i < r->n_pre_bin; i++)
        evs[(*n_evs)++] = r->pre_bin_ev[i];
    if (bin)
        r->n_pre_bin = 0;
}

/* Every relay of window W - 1 (COUNT of them) into m->entries: each replica that ran it holds
 * its own at the start of its frontier[cur]. */
static int gather_relays(flood_model *m, int64_t w, uint32_t count, cn_error *err)
{
    int rc = reserve_entries(m, count, err);
    uint64_t at = 0;
    for (int d = 0; d < m->n_rep && !rc; d++) {
        if (!(m->relays_mask & (1 << d)) || m->relays_of[d] == 0)
            continue;
        if (at + m->relays_of[d] > count)
            break;
        rc = dbuf_read(m->rep[d].dev, &m->rep[d].frontier[m->cur], 0,
                       (size_t)m->relays_of[d] * m->entry_bytes, m->entries + entry_words(m) * at,
                       0, err);
        at += m->relays_of[d];
    }
    for (int d = 0; d < m->n_rep && !rc; d++)
        if (m->relays_mask & (1 << d))
            rc = cl_check(clFinish(m->rep[d].dev->queue), "clFinish(relay gather)",
                          m->rep[d].dev->info.name, err);
    if (!rc && at != count)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: the devices hold %llu of the %u "
                       "transmissions of window %lld", (unsigned long long)at, count,
                       (long long)w);
    if (!rc) {
        m->entries_window = w;
        m->exchanged += (int64_t)count * m->entry_bytes;
    }
    return rc;
}

/* Several ranks: window W - 1's relays of this rank's replicas, then every rank's, in rank
 * order, into m->entries on every rank (a collective). */
static int gather_relays_ranks(flood_model *m, int64_t w, uint32_t count, cn_error *err)
{
    int ranks = dist_size();
    uint64_t mine = 0, *n = malloc((size_t)ranks * sizeof *n);
    for (int d = 0; d < m->n_rep; d++)
        if (m->relays_mask & (1 << d))
            mine += m->relays_of[d];
    uint32_t *own = malloc(mine ? (size_t)mine * m->entry_bytes : 1);
    if (!n || !own) { /* the others wait in the gather: no way back */
        free(n);
        free(own);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a checkpoint");
    }
    int rc = dist_allgather(&mine, n, sizeof mine, err);
    uint64_t all = 0;
    for (int r = 0; r < ranks && !rc; r++)
        all += n[r];
    if (!rc && all != count)
        rc = cn_fail(err, CN_ERR_RUNTIME, "internal error: the ranks hold %llu of the %u "
                     "transmissions of window %lld", (unsigned long long)all, count,
                     (long long)w);
    uint64_t at = 0;
    for (int d = 0; d < m->n_rep && !rc; d++) {
        if (!(m->relays_mask & (1 << d)) || m->relays_of[d] == 0)
            continue;
        rc = dbuf_read(m->rep[d].dev, &m->rep[d].frontier[m->cur], 0,
                       (size_t)m->relays_of[d] * m->entry_bytes, own + entry_words(m) * at, 1,
                       err);
        at += m->relays_of[d];
    }
    if (!rc)
        rc = reserve_entries(m, all, err);
    if (!rc) /* (every rank's count agreed: each makes the same call) */
        rc = dist_allgatherv(own, n, m->entry_bytes, m->entries, err);
    if (!rc)
        m->entries_window = w;
    free(n);
    free(own);
    return rc;
}

int flood_gather_entries(flood_model *m, int64_t w, uint32_t count, cn_error *err)
{
    if (m->ranked) /* several ranks: every rank takes part */
        return count == 0 || m->entries_window == w ? 0 : gather_relays_ranks(m, w, count, err);
    if (count == 0 || m->entries_window == w)
        return 0;
    return gather_relays(m, w, count, err);
}

int flood_set_entries(flood_model *m, int64_t w, const uint32_t *entries, uint32_t count,
                      cn_error *err)
{
    int rc = reserve_entries(m, count ? count : 1, err);
    if (rc)
        return rc;
    if (count)
        memcpy(m->entries, entries, (size_t)count * m->entry_bytes);
    m->entries_window = w;
    return 0;
}

/* Traffic flows: the slot tables of R from the host's copies. */
static int write_slot_tables(flood_model *m, flood_replica *r, cn_error *err)
{
    cl_uint *route = malloc((size_t)m->slots * 8);
    if (!route)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t s = 0; s < m->slots; s++) {
        route[2 * s] = m->slot_pkt[s] >= 0 ? m->slot_dst[s] : 0;
        route[2 * s + 1] = m->slot_pkt[s] >= 0 ? m->slot_flow[s] : 0;
    }
    int rc = dbuf_write(r->dev, &r->slot_time, 0, (size_t)m->slots * 8, m->slot_time, 1, err);
    if (!rc)
        rc = dbuf_write(r->dev, &r->slot_route, 0, (size_t)m->slots * 8, route, 1, err);
    free(route);
    return rc;
}

/* Every transmission of window W for replica R, which did not run window W - 1 or gained a
 * partition since: from the host's gathered copy, gathered first when needed. When R already
 * ran a transmit set in window W, its relays of W are on their way: only W's count word is
 * written. */
static int sync_entries(flood_model *m, flood_replica *r, int64_t w, cn_error *err)
{
    int rc = flood_process_until(m, w - 1, err);
    if (rc)
        return rc;
    uint32_t count = m->processed == w - 1 ? m->relays_known : 0;
    if (count > 0 && m->entries_window != w)
        rc = gather_relays(m, w, count, err);
    if (!rc)
        rc = flood_ensure_frontier(m, r, m->cur, count, err);
    if (!rc)
        rc = dbuf_write(r->dev, &r->frontier[m->cur], 0, (size_t)count * m->entry_bytes,
                        m->entries, 1, err);
    int ran = m->planned == w && (m->ran_mask & (1 << (int)(r - m->rep)));
    /* the window's count word, the others clear (unless R ran the window already) */
    cl_uint counts[CTL_ROTATION] = {0};
    counts[w % CTL_ROTATION] = count;
    if (!rc && ran)
        rc = dbuf_write(r->dev, &r->ctl, (CTL_COUNT + (size_t)(w % CTL_ROTATION)) * 4, 4,
                        &counts[w % CTL_ROTATION], 1, err);
    else if (!rc)
        rc = dbuf_write(r->dev, &r->ctl, CTL_COUNT * 4, sizeof counts, counts, 1, err);
    cl_uint *packets = rc ? NULL : malloc((size_t)m->slots * 4);
    if (!rc && !packets)
        rc = cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t s = 0; !rc && s < m->slots; s++)
        packets[s] = (cl_uint)m->slot_pkt[s];
    if (!rc)
        rc = dbuf_write(r->dev, &r->slot_packet, 0, (size_t)m->slots * 4, packets, 1, err);
    free(packets);
    if (!rc && m->flows) /* and each packet's time and (destination, flow) */
        rc = write_slot_tables(m, r, err);
    if (!rc) {
        r->counts_clean = w;
        r->synced = w;
        r->import_window = -1; /* the count word now counts every entry */
    }
    return rc;
}

int flood_replica_ready(flood_model *m, flood_replica *r, int64_t w, cn_error *err)
{
    if (r->prepared == w)
        return 0;
    int rc = 0;
    if (m->mobile)
        rc = flood_catch_up(m, r, w, 1, NULL, NULL, err);
    if (!rc)
        rc = flood_part_of_current(m, r, w, err);
    if (!rc && r->synced != w)
        rc = sync_entries(m, r, w, err);
    /* The count and reservation words of window W are right when window W - 1 ran its
     * transmit kernel here (it set the relays and cleared the next words); after idle windows
     * they are all zero, written here. */
    if (!rc && r->counts_clean != w) {
        rc = dbuf_zero(r->dev, &r->ctl, CTL_COUNT * 4, (CTL_GATHER - CTL_COUNT) * 4, err);
        r->counts_clean = w;
    }
    /* likewise the export words, which transmit_mobile clears one window ahead */
    if (!rc && m->mobile && r->exports_clean != w) {
        rc = dbuf_zero(r->dev, &r->ctl, CTL_EXPORT * 4, 2 * 4, err);
        r->exports_clean = w;
    }
    /* and the deliveries of the window's parity, which window W - 1 clears where it ran */
    if (!rc && m->flows && r->deliv_clean != w && r->deliv_clean != FLOOD_DELIV_ZERO) {
        size_t dbytes = (size_t)m->slots * 4 * flood_deliv_words(m);
        rc = dbuf_zero(r->dev, &r->deliv, (size_t)(w & 1) * dbytes, dbytes, err);
        r->deliv_clean = w;
    }
    uint32_t need = m->desc_len;
    if (!rc && need > 16) {
        if ((size_t)need * 4 > r->desc.bytes) {
            flood_forget_args(r);
            rc = dbuf_grow(r->dev, &r->desc, (size_t)need * 8, 0, &m->acc, "window descriptors",
                           err);
        }
        /* Not blocking: the host array stays untouched until this window has been read back. */
        if (!rc)
            rc = dbuf_write(r->dev, &r->desc, 0, (size_t)need * 4, m->desc_host[w & 1], 0, err);
    }
    if (!rc && m->prep.sized)
        rc = flood_ensure_frontier(m, r, m->cur ^ 1, m->prep.relays_bound, err);
    if (!rc)
        rc = flood_ensure_frontier(m, r, m->cur, m->entries_bound, err);
    if (!rc)
        r->prepared = w;
    return rc;
}

int flood_merge_part_seen(const flood_model *m, uint32_t part, const uint32_t *from,
                          uint32_t *into, cn_error *err)
{
    uint32_t *mask = calloc(m->words, 4);
    if (!mask)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    for (uint32_t j = 0; j < m->n; j++)
        if (m->n_parts == 1 || m->part_host[j] == part)
            mask[j >> 5] |= 1u << (j & 31u);
    size_t words = (size_t)m->slots * m->words;
    for (size_t q = 0; q < words; q++) {
        uint32_t mk = mask[q % m->words];
        into[q] = (into[q] & ~mk) | (from[q] & mk);
    }
    free(mask);
    return 0;
}

/* Partition PART's seen bits: moved from FROM to TO (the other nodes' bits on TO are kept). */
static int move_seen_bits(flood_model *m, flood_replica *from, flood_replica *to,
                          uint32_t part, uint64_t *bytes, cn_error *err)
{
    size_t words = (size_t)m->slots * m->words;
    uint32_t *a = malloc(words * 4), *b = malloc(words * 4);
    int rc = a && b ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
    if (!rc)
        rc = dbuf_read(from->dev, &from->seen, 0, words * 4, a, 1, err);
    if (!rc)
        rc = dbuf_read(to->dev, &to->seen, 0, words * 4, b, 1, err);
    if (!rc)
        rc = flood_merge_part_seen(m, part, a, b, err);
    if (!rc)
        rc = dbuf_write(to->dev, &to->seen, 0, words * 4, b, 1, err);
    if (!rc)
        *bytes += 3 * words * 4;
    free(a);
    free(b);
    return rc;
}

/* Static scenarios: partition PART's neighbour lists, moved from FROM to TO. */
static int move_lists(flood_model *m, flood_replica *from, flood_replica *to, uint32_t part,
                      uint64_t *bytes, cn_error *err)
{
    dbuf *lists[2] = {&m->offsets[part], &m->neighbours[part]};
    const char *what[2] = {"neighbour offsets", "neighbour lists"};
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        size_t size = lists[i]->bytes;
        void *host = malloc(size);
        dbuf moved = {0};
        rc = host ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        if (!rc)
            rc = dbuf_read(from->dev, lists[i], 0, size, host, 1, err);
        if (!rc)
            rc = dbuf_alloc(to->dev, &moved, size, &m->acc, what[i], err);
        if (!rc)
            rc = dbuf_write(to->dev, &moved, 0, size, host, 1, err);
        free(host);
        if (rc) {
            dbuf_release(&moved, &m->acc);
            break;
        }
        dbuf_release(lists[i], &m->acc);
        *lists[i] = moved;
        *bytes += 2 * (uint64_t)size;
    }
    flood_forget_args(from);
    flood_forget_args(to);
    return rc;
}

int flood_migrate(struct model_state *state, int partition, int to, uint64_t *bytes, cn_error *err)
{
    flood_model *m = flood_of(state);
    *bytes = 0;
    if (m->whole) /* a chunk of packets: every device holds what it needs */
        return 0;
    if (partition < 0 || (uint32_t)partition >= m->n_parts || to < 0 || to >= m->n_rep)
        return cn_fail(err, CN_ERR_RUNTIME, "internal error: no partition %d or device %d",
                       partition, to);
    int from = m->home[partition];
    if (from == to)
        return 0;
    /* the partitions of the window under way (nodes change them when re-tiled) */
    int rc = flood_part_host_current(m, m->planned, err);
    if (!rc)
        rc = move_seen_bits(m, &m->rep[from], &m->rep[to], (uint32_t)partition, bytes, err);
    if (!rc && !m->mobile)
        rc = move_lists(m, &m->rep[from], &m->rep[to], (uint32_t)partition, bytes, err);
    if (!rc) /* under a scheme, the nodes' states */
        rc = flood_scheme_migrate(m, &m->rep[from], &m->rep[to], (uint32_t)partition, bytes,
                                  err);
    if (!rc && m->resources) /* the nodes' energy and death times (one partition: all) */
        rc = flood_resources_migrate(m, &m->rep[from], &m->rep[to], bytes, err);
    if (!rc) {
        m->home[partition] = to;
        m->placement++;
        /* its entries hold the border of the partitions it had, not all that PARTITION hears:
         * it is given every transmission before it runs the partition */
        m->rep[to].synced = -1;
        m->rep[to].prepared = -1;
    }
    return rc;
}
