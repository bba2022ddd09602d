/* Flood model checkpoints (engine/checkpoint.h, docs/when-things-go-wrong.md).
 *
 * A checkpoint holds the simulation's state at the boundary before window NEXT in a form that
 * depends on no device: what the determinism contract's results follow from. Replicas,
 * partition placement, frontier order, run-ahead and the injector's timings are left out; a
 * resumed run rebuilds them, on whatever devices it has, as a run does at its start.
 *
 * Saved: the counters summed over the replicas; the traffic generator, the departures
 * waiting for their window, the flows' sums and the packet records; with whole packets the
 * results' rows and the next packet; in the window loop the packet slots (their packets,
 * creation windows, free and retired lists and, with flows, their tables and per-packet sums),
 * every slot's seen bitset and, under counter and distance, its node states (each node's
 * from the device holding its partition), the
 * transmissions of window NEXT, the mobility state and its step, and the node resources.
 *
 * Restored into a model just created for the same scenario: the host's state is replaced,
 * and every replica is given the state and marked as holding no window, so that the next
 * window brings it up to date the way a migration does (flood_replica_ready). */
#include <stdlib.h>
#include <string.h>

#include "cl/flood/flood_layout.clh"
#include "dist/dist.h"
#include "models/flood/flood_ckpt_format.h"
#include "models/flood/flood_model.h"

/* The flows' sums: generated, deliverable, delivered, then the hop and latency sums as low
 * and high 64 bits. */
#define FLOW_SUMS FLOOD_CKPT_FLOW_SUMS

static void split_wide(const wide_int *v, int64_t *lo, int64_t *hi)
{
    for (int f = 0; f < SCENARIO_MAX_FLOWS; f++) {
        lo[f] = (int64_t)(uint64_t)(unsigned __int128)v[f];
        hi[f] = (int64_t)(uint64_t)((unsigned __int128)v[f] >> 64);
    }
}

static void join_wide(const int64_t *lo, const int64_t *hi, wide_int *v)
{
    for (int f = 0; f < SCENARIO_MAX_FLOWS; f++)
        v[f] = (wide_int)((unsigned __int128)(uint64_t)lo[f] |
                          (unsigned __int128)(uint64_t)hi[f] << 64);
}

/* The control words that count events (128-bit counters), summed over the replicas. */
static const int counter_words[] = {CTL_TX,        CTL_RX,         CTL_FIRST,
                                    CTL_DELIVERED, CTL_HOPS,       CTL_LATENCY,
                                    CTL_RES_DROPS, CTL_RES_ENERGY, CTL_RES_DEAD};
#define N_COUNTERS ((int)(sizeof counter_words / sizeof counter_words[0]))

static flood_shape shape_of(const flood_model *m)
{
    return (flood_shape){m->n,
                         m->words,
                         (uint32_t)m->whole,
                         (uint32_t)m->mobile,
                         (uint32_t)m->flows,
                         (uint32_t)m->want_records,
                         (uint32_t)m->resources,
                         (uint32_t)m->energy,
                         m->n_parts,
                         m->slots,
                         (uint32_t)m->scheme_window,
                         m->entry_bytes};
}

/* Every flood run can be saved; the operation stays for models that cannot. */
int flood_can_checkpoint(const struct model_state *state, cn_error *err)
{
    const flood_model *m = flood_const_of(state);
    (void)m;
    (void)err;
    return 0;
}

/* ---- save -------------------------------------------------------------------------------- */

/* The replica whose mobility state is furthest ahead (every replica that holds partitions
 * is at the same step; one that held none may lag). */
static flood_replica *mobility_source(flood_model *m)
{
    flood_replica *best = &m->rep[0];
    for (int d = 1; d < m->n_rep; d++)
        if (m->rep[d].moved > best->moved)
            best = &m->rep[d];
    return best;
}

static int save_mobility(flood_model *m, ckpt_buf *out, int64_t *moved, cn_error *err)
{
    flood_replica *r = mobility_source(m);
    dbuf *bufs[] = {&r->pos, &r->waypoint, &r->speed, &r->leg, &r->pause_end};
    size_t total = 0;
    for (int i = 0; i < 5; i++)
        total += bufs[i]->bytes;
    uint8_t *host = malloc(total ? total : 1);
    int rc = host ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a checkpoint");
    size_t at = 0;
    for (int i = 0; i < 5 && !rc; i++) {
        rc = dbuf_read(r->dev, bufs[i], 0, bufs[i]->bytes, host + at, 1, err);
        at += bufs[i]->bytes;
    }
    if (!rc)
        ckpt_put(out, T_MOBILITY, host, total);
    *moved = r->moved;
    free(host);
    return rc;
}

/* Per-node data of every slot, as one replica buffer holds it: its bytes, and how node J's
 * part is copied from a replica's copy ONE into the merged MERGED. */
typedef struct node_data {
    dbuf *(*buffer)(flood_replica *r);
    void (*keep)(const flood_model *m, uint32_t j, const uint8_t *one, uint8_t *merged);
    size_t bytes;
} node_data;

static dbuf *seen_buffer(flood_replica *r)
{
    return &r->seen;
}

static dbuf *states_buffer(flood_replica *r)
{
    return &r->scheme_state;
}

/* A bit per node in each slot's words. */
static void keep_seen(const flood_model *m, uint32_t j, const uint8_t *one, uint8_t *merged)
{
    uint32_t bit = 1u << (j & 31u), w, x;
    for (uint32_t s = 0; s < m->slots; s++) {
        size_t at = ((size_t)s * m->words + (j >> 5)) * 4;
        memcpy(&w, one + at, 4);
        memcpy(&x, merged + at, 4);
        x |= w & bit;
        memcpy(merged + at, &x, 4);
    }
}

/* SCHEME_NODE_WORDS words per node and slot, slot after slot. */
static void keep_states(const flood_model *m, uint32_t j, const uint8_t *one, uint8_t *merged)
{
    size_t per = flood_scheme_slot_bytes(m) / m->n;
    for (uint32_t s = 0; s < m->slots; s++) {
        size_t at = ((size_t)s * m->n + j) * per;
        memcpy(merged + at, one + at, per);
    }
}

/* D's data merged into *OUT (malloc'ed): each node's from the replica holding its
 * partition, the only one where it is right. */
static int read_merged(flood_model *m, const node_data *d, uint8_t **out, cn_error *err)
{
    size_t size = d->bytes ? d->bytes : 1;
    uint8_t *merged = calloc(size, 1), *one = malloc(size);
    int rc = merged && one ? 0 : cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a "
                                         "checkpoint");
    int holders = flood_holders(m);
    for (int k = 0; !rc && k < m->n_rep; k++) {
        if (!(holders & (1 << k)))
            continue;
        flood_replica *r = &m->rep[k];
        rc = dbuf_read(r->dev, d->buffer(r), 0, d->bytes, one, 1, err);
        for (uint32_t j = 0; !rc && j < m->n; j++)
            if (m->n_parts <= 1 || m->home[m->part_host[j]] == k)
                d->keep(m, j, one, merged);
    }
    free(one);
    /* several ranks: each rank's nodes from it (the others' are zero in its copy), put
     * together on rank 0 (a collective; the other ranks' copies are not used) */
    if (m->ranked) {
        void *all = NULL;
        uint64_t got = 0;
        int grc = dist_gatherv(merged ? merged : (uint8_t *)&got, merged ? 1 : 0, size, &all,
                               &got, err);
        rc = rc ? rc : grc;
        for (uint64_t r = 1; !rc && merged && all && r < got; r++) {
            const uint8_t *b = (const uint8_t *)all + r * size;
            for (size_t i = 0; i < size; i++)
                merged[i] |= b[i];
        }
        free(all);
    }
    if (rc) {
        free(merged);
        merged = NULL;
    }
    *out = merged;
    return rc;
}

/* Every slot's seen bits and, under a scheme in the window loop, its node states, and which
 * packets transmit next. */
static int save_node_data(flood_model *m, ckpt_buf *out, cn_error *err)
{
    node_data seen = {seen_buffer, keep_seen, (size_t)m->slots * m->words * 4};
    uint8_t *merged = NULL;
    int rc = read_merged(m, &seen, &merged, err);
    if (!rc)
        ckpt_put(out, T_SEEN, merged, seen.bytes);
    free(merged);
    if (rc || !m->scheme_window)
        return rc;
    node_data states = {states_buffer, keep_states, (size_t)m->slots * flood_scheme_slot_bytes(m)};
    rc = read_merged(m, &states, &merged, err);
    if (!rc) {
        ckpt_put(out, T_SCHEME, merged, states.bytes);
        ckpt_put(out, T_TX_NEXT, m->tx_next, m->slots);
    }
    free(merged);
    return rc;
}

static dbuf *energy_buffer(flood_replica *r)
{
    return &r->res.energy;
}

static dbuf *death_buffer(flood_replica *r)
{
    return &r->res.death;
}

/* A 64-bit value per node. */
static void keep_node_long(const flood_model *m, uint32_t j, const uint8_t *one,
                           uint8_t *merged)
{
    (void)m;
    memcpy(merged + (size_t)j * 8, one + (size_t)j * 8, 8);
}

/* Each node's energy and death time, from the replica holding the one partition (over
 * several ranks, from the rank holding it: read_merged). */
static int save_resources(flood_model *m, ckpt_buf *out, cn_error *err)
{
    node_data energy = {energy_buffer, keep_node_long, (size_t)m->n * 8};
    node_data death = {death_buffer, keep_node_long, (size_t)m->n * 8};
    uint8_t *merged = NULL;
    int rc = read_merged(m, &energy, &merged, err);
    if (!rc)
        ckpt_put(out, T_ENERGY, merged, energy.bytes);
    free(merged);
    merged = NULL;
    /* (a collective over several ranks: every rank takes part, failed or not) */
    cn_error second = {0};
    int rc2 = read_merged(m, &death, &merged, rc ? &second : err);
    cn_error_clear(&second);
    if (!rc && !rc2)
        ckpt_put(out, T_DEATH, merged, death.bytes);
    free(merged);
    return rc ? rc : rc2;
}

/* With flows: each slot's source, destination, flow and its packet's sums so far. */
static void save_slot_flows(const flood_model *m, ckpt_buf *out)
{
    size_t n = m->slots, bytes = n * FLOOD_CKPT_SLOT_FLOW_BYTES;
    uint8_t *b = malloc(bytes ? bytes : 1);
    if (!b) {
        out->oom = 1;
        return;
    }
    memcpy(b, m->slot_src, n * 4);
    memcpy(b + n * 4, m->slot_dst, n * 4);
    memcpy(b + n * 8, m->slot_flow, n * 4);
    memcpy(b + n * 12, m->slot_deliv, n * 8);
    memcpy(b + n * 20, m->slot_hops, n * 8);
    memcpy(b + n * 28, m->slot_last_h, n * 8);
    memcpy(b + n * 36, m->slot_lat, n * 16);
    memcpy(b + n * 52, m->slot_last_lat, n * 8);
    ckpt_put(out, T_SLOT_FLOW, b, bytes);
    free(b);
}

static int save_window_loop(flood_model *m, int64_t next, flood_scalars *sv, ckpt_buf *out,
                            cn_error *err)
{
    /* every window run is read back (and its relays exchanged) before anything is read */
    int rc = flood_process_until(m, m->planned, err);
    uint32_t count = !rc && m->processed == next - 1 ? m->relays_known : 0;
    /* with moving nodes, the partitions of window NEXT's tiling (a re-tiling at the end of
     * the last window has been made and its nodes' bits handed over) */
    if (!rc && m->n_parts > 1)
        rc = flood_part_host_current(m, next, err);
    if (!rc && m->n_parts > 1 && m->mobile)
        ckpt_put(out, T_PARTS, m->part_host, (size_t)m->n * 2);
    if (!rc)
        rc = flood_gather_entries(m, next, count, err);
    if (rc)
        return rc;
    sv->relays = count;
    sv->scheme_waiting = m->scheme_waiting;
    ckpt_put(out, T_ENTRIES, count ? m->entries : NULL, (size_t)count * m->entry_bytes);
    ckpt_put(out, T_SLOT_PKT, m->slot_pkt, (size_t)m->slots * 8);
    ckpt_put(out, T_SLOT_BORN, m->born_window, (size_t)m->slots * 8);
    ckpt_put(out, T_SLOT_TIME, m->slot_time, (size_t)m->slots * 8);
    ckpt_put(out, T_FREE, m->free_slots, (size_t)m->n_free * 4);
    ckpt_put(out, T_DIRTY, m->dirty_slots, (size_t)m->n_dirty * 4);
    if (m->flows)
        save_slot_flows(m, out);
    size_t pend = m->pend_n * sizeof *m->pend;
    departure *p = malloc(pend ? pend : 1);
    if (!p)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a checkpoint");
    for (size_t i = 0; i < m->pend_n; i++)
        p[i] = m->pend[(m->pend_head + i) % m->pend_cap];
    ckpt_put(out, T_PEND, p, pend);
    free(p);
    rc = save_node_data(m, out, err);
    sv->moved = 0;
    if (!rc && m->mobile)
        rc = save_mobility(m, out, &sv->moved, err);
    if (!rc && m->resources)
        rc = save_resources(m, out, err);
    return rc;
}

/* COUNTERS (N_COUNTERS 128-bit values, low then high) summed over the ranks on rank 0. */
static int sum_counters_over_ranks(uint64_t *counters, cn_error *err)
{
    void *all = NULL;
    uint64_t got = 0;
    int rc = dist_gatherv(counters, 2 * N_COUNTERS, sizeof *counters, &all, &got, err);
    if (!rc && all) {
        const uint64_t *a = all;
        for (int i = 0; i < N_COUNTERS; i++) {
            unsigned __int128 v = 0;
            for (uint64_t at = 0; at + 2 * N_COUNTERS <= got; at += 2 * N_COUNTERS)
                v += (unsigned __int128)a[at + 2 * (uint64_t)i] |
                     (unsigned __int128)a[at + 2 * (uint64_t)i + 1] << 64;
            counters[2 * i] = (uint64_t)v;
            counters[2 * i + 1] = (uint64_t)(v >> 64);
        }
    }
    free(all);
    return rc;
}

int flood_save(struct model_state *state, int64_t next, ckpt_buf *out, cn_error *err)
{
    flood_model *m = flood_of(state);
    flood_scalars sv = {m->next_packet, m->end_time, m->any_tx, m->longest_life, m->pk_next,
                        m->pk_rounds, 0, 0, 0};
    int rc = m->whole ? 0 : save_window_loop(m, next, &sv, out, err);
    if (rc)
        return rc;
    /* the counters as the devices hold them now (every window run has been read back, or
     * with whole packets the rows) */
    for (int d = 0; d < m->n_rep && !rc && !m->whole; d++)
        if (!m->rep[d].dead)
            rc = dbuf_read(m->rep[d].dev, &m->rep[d].ctl, 0, sizeof m->rep[d].counters,
                           m->rep[d].counters, 1, err);
    if (rc)
        return rc;
    uint64_t counters[2 * N_COUNTERS];
    for (int i = 0; i < N_COUNTERS; i++) {
        unsigned __int128 v = (unsigned __int128)flood_counter(m, counter_words[i]);
        counters[2 * i] = (uint64_t)v;
        counters[2 * i + 1] = (uint64_t)(v >> 64);
    }
    /* several ranks (the window loop): every rank's sums, added on rank 0 */
    if (m->ranked &&
        (rc = sum_counters_over_ranks(counters, err)) != 0)
        return rc;
    ckpt_put(out, T_COUNTERS, counters, sizeof counters);
    if (m->whole && (rc = flood_packets_save(m, out, err)) != 0)
        return rc;
    flood_shape shape = shape_of(m);
    ckpt_put(out, T_SHAPE, &shape, sizeof shape);
    ckpt_put(out, T_SCALARS, &sv, sizeof sv);
    size_t dep_bytes = departures_state_bytes(m->deps);
    void *deps = malloc(dep_bytes ? dep_bytes : 1);
    if (!deps)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for a checkpoint");
    departures_state(m->deps, deps);
    ckpt_put(out, T_DEPS, deps, dep_bytes);
    free(deps);
    int64_t flows[FLOW_SUMS][SCENARIO_MAX_FLOWS];
    memcpy(flows[0], m->f_generated, sizeof flows[0]);
    memcpy(flows[1], m->f_deliverable, sizeof flows[1]);
    memcpy(flows[2], m->f_delivered, sizeof flows[2]);
    split_wide(m->f_hops, flows[3], flows[4]);
    split_wide(m->f_latency, flows[5], flows[6]);
    ckpt_put(out, T_FLOWS, flows, sizeof flows);
    if (m->want_records)
        ckpt_put(out, T_RECORDS, m->recs, (size_t)m->n_recs * sizeof *m->recs);
    return 0;
}

/* ---- restore ----------------------------------------------------------------------------- */

int flood_resume_scenario(const ckpt_file *in, scenario *sc, cn_error *err)
{
    /* the window loop's partitions as the run had them (its tiles, its nodes' bits): a count
     * the scenario leaves to the devices was that of the devices (and ranks) of the run */
    flood_shape shape;
    int rc = ckpt_get(in, T_SHAPE, &shape, sizeof shape, err);
    if (!rc && !shape.whole && (shape.parts > 1 || shape.mobile) && sc->partitions == 0)
        sc->partitions = shape.parts;
    return rc;
}

/* A list of slot numbers (T_FREE, T_DIRTY) into LIST, *N of them; every one below SLOTS. */
static int get_slot_list(const ckpt_file *in, uint32_t tag, uint32_t slots, uint32_t *list,
                         uint32_t *n, cn_error *err)
{
    const void *p = NULL;
    size_t len = 0;
    int rc = ckpt_find(in, tag, &p, &len, err);
    if (rc)
        return rc;
    if (len % 4 != 0 || len / 4 > slots)
        return ckpt_mismatch(in, err, "a slot list longer than the slots");
    *n = (uint32_t)(len / 4);
    memcpy(list, p, len);
    for (uint32_t i = 0; i < *n; i++)
        if (list[i] >= slots)
            return ckpt_mismatch(in, err, "a slot number beyond the slots");
    return 0;
}

static int restore_slot_flows(flood_model *m, const ckpt_file *in, uint32_t s, cn_error *err)
{
    const void *p = NULL;
    size_t len, n = s;
    int rc = ckpt_find(in, T_SLOT_FLOW, &p, &len, err);
    if (rc)
        return rc;
    if (len != n * FLOOD_CKPT_SLOT_FLOW_BYTES)
        return ckpt_mismatch(in, err, "slot tables of another size");
    const uint8_t *b = p;
    memcpy(m->slot_src, b, n * 4);
    memcpy(m->slot_dst, b + n * 4, n * 4);
    memcpy(m->slot_flow, b + n * 8, n * 4);
    memcpy(m->slot_deliv, b + n * 12, n * 8);
    memcpy(m->slot_hops, b + n * 20, n * 8);
    memcpy(m->slot_last_h, b + n * 28, n * 8);
    memcpy(m->slot_lat, b + n * 36, n * 16);
    memcpy(m->slot_last_lat, b + n * 52, n * 8);
    for (uint32_t i = 0; i < s; i++)
        if (m->slot_pkt[i] >= 0 && m->slot_flow[i] >= (uint32_t)m->n_flowdefs)
            return ckpt_mismatch(in, err, "a packet of a flow the scenario does not have");
    return 0;
}

/* The host's packet slots: the checkpoint's S of them first; slots this model has beyond
 * them (a different CLNETSIM_TEST_SLOTS) are free. */
static int restore_slots(flood_model *m, const ckpt_file *in, uint32_t s, cn_error *err)
{
    int rc = 0;
    while (!rc && m->slots < s)
        rc = flood_grow_slots(m, err);
    if (!rc)
        rc = ckpt_get(in, T_SLOT_PKT, m->slot_pkt, (size_t)s * 8, err);
    if (!rc)
        rc = ckpt_get(in, T_SLOT_BORN, m->born_window, (size_t)s * 8, err);
    if (!rc)
        rc = ckpt_get(in, T_SLOT_TIME, m->slot_time, (size_t)s * 8, err);
    uint32_t n_free = 0, n_dirty = 0;
    if (!rc)
        rc = get_slot_list(in, T_FREE, s, m->free_slots, &n_free, err);
    if (!rc)
        rc = get_slot_list(in, T_DIRTY, s, m->dirty_slots, &n_dirty, err);
    if (!rc && m->flows)
        rc = restore_slot_flows(m, in, s, err);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < s; i++)
        if (m->slot_pkt[i] < -1)
            return ckpt_mismatch(in, err, "a negative packet number");
    /* slots this model has beyond the checkpoint's are free, and taken after those the
     * checkpoint lists (the list is used from its end) */
    uint32_t n = m->slots - s;
    memmove(m->free_slots + n, m->free_slots, (size_t)n_free * 4);
    for (uint32_t i = 0; i < n; i++) {
        m->free_slots[i] = m->slots - 1 - i;
        m->slot_pkt[m->slots - 1 - i] = -1;
    }
    m->n_free = n + n_free;
    m->n_dirty = n_dirty;
    return rc;
}

static int restore_pending(flood_model *m, const ckpt_file *in, cn_error *err)
{
    const void *p = NULL;
    size_t len = 0;
    int rc = ckpt_find(in, T_PEND, &p, &len, err);
    if (rc)
        return rc;
    if (len % sizeof *m->pend != 0)
        return ckpt_mismatch(in, err, "malformed waiting departures");
    size_t n = len / sizeof *m->pend;
    if (n > m->pend_cap) {
        departure *q = realloc(m->pend, n * sizeof *q);
        if (!q)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory");
        m->pend = q;
        m->pend_cap = n;
    }
    if (n)
        memcpy(m->pend, p, len);
    m->pend_head = 0;
    m->pend_n = n;
    return 0;
}

/* Every replica is given the state (each holds every node's seen bits and mobility state:
 * the bits of nodes it does not hold are never read) and marked as holding no window yet. */
static int restore_replicas(flood_model *m, const ckpt_file *in, int64_t next,
                            const flood_scalars *sv, cn_error *err)
{
    size_t words = (size_t)m->slots * m->words, saved = 0;
    const void *seen, *mob = NULL, *energy = NULL, *death = NULL;
    size_t seen_len, mob_len = 0, e_len = 0, d_len = 0;
    int rc = ckpt_find(in, T_SEEN, &seen, &seen_len, err);
    if (!rc && (seen_len % ((size_t)m->words * 4) != 0 || seen_len > words * 4))
        rc = ckpt_mismatch(in, err, "seen bitsets of another size");
    saved = seen_len;
    if (!rc && m->mobile)
        rc = ckpt_find(in, T_MOBILITY, &mob, &mob_len, err);
    if (!rc && m->resources)
        rc = ckpt_find(in, T_ENERGY, &energy, &e_len, err);
    if (!rc && m->resources)
        rc = ckpt_find(in, T_DEATH, &death, &d_len, err);
    if (!rc && m->resources && (e_len != (size_t)m->n * 8 || d_len != (size_t)m->n * 8))
        rc = ckpt_mismatch(in, err, "node resources of another node count");
    const void *states = NULL;
    size_t s_len = 0, slot_states = flood_scheme_slot_bytes(m);
    if (!rc && m->scheme_window)
        rc = ckpt_find(in, T_SCHEME, &states, &s_len, err);
    if (!rc && m->scheme_window && s_len != saved / ((size_t)m->words * 4) * slot_states)
        rc = ckpt_mismatch(in, err, "scheme states of another size");
    if (!rc && m->scheme_window)
        rc = ckpt_get(in, T_TX_NEXT, m->tx_next, saved / ((size_t)m->words * 4), err);
    for (int d = 0; d < m->n_rep && !rc; d++) {
        flood_replica *r = &m->rep[d];
        if (saved)
            rc = dbuf_write(r->dev, &r->seen, 0, saved, seen, 1, err);
        if (!rc && saved < words * 4)
            rc = dbuf_zero(r->dev, &r->seen, saved, words * 4 - saved, err);
        if (!rc && m->mobile) {
            dbuf *bufs[] = {&r->pos, &r->waypoint, &r->speed, &r->leg, &r->pause_end};
            size_t total = 0, at = 0;
            for (int i = 0; i < 5; i++)
                total += bufs[i]->bytes;
            if (total != mob_len)
                rc = ckpt_mismatch(in, err, "a mobility state of another size");
            for (int i = 0; i < 5 && !rc; i++) {
                rc = dbuf_write(r->dev, bufs[i], 0, bufs[i]->bytes, (const uint8_t *)mob + at,
                                1, err);
                at += bufs[i]->bytes;
            }
            flood_premove_release(r);
            r->moved = sv->moved;
            r->ranked = -1; /* positions of the checkpoint, not of a step here */
        }
        if (!rc && s_len)
            rc = dbuf_write(r->dev, &r->scheme_state, 0, s_len, states, 1, err);
        if (!rc && m->scheme_window && s_len < (size_t)m->slots * slot_states)
            rc = dbuf_zero(r->dev, &r->scheme_state, s_len, m->slots * slot_states - s_len, err);
        if (!rc && m->resources)
            rc = dbuf_write(r->dev, &r->res.energy, 0, e_len, energy, 1, err);
        if (!rc && m->resources)
            rc = dbuf_write(r->dev, &r->res.death, 0, d_len, death, 1, err);
        r->res.clean = -1;
        r->synced = r->prepared = r->binned = r->capped = -1;
        r->counts_clean = r->exports_clean = -1;
        r->import_window = r->x_window = -1;
        r->pend_broken = 1; /* its pending lists are rebuilt from the states */
    }
    if (!rc && m->mobile && (sv->moved < 0 || sv->moved > next))
        rc = ckpt_mismatch(in, err, "a mobility step beyond the next window");
    return rc;
}

/* The counters, as replica 0's (each replica's count adds to the totals). */
static int restore_counters(flood_model *m, const ckpt_file *in, cn_error *err)
{
    uint64_t counters[2 * N_COUNTERS];
    int rc = ckpt_get(in, T_COUNTERS, counters, sizeof counters, err);
    /* several ranks: rank 0 holds the sums, as one process would (every rank adds its own
     * partitions' counts, and the results add the ranks') */
    if (rc || m->whole || dist_rank() != 0)
        return rc;
    flood_replica *r = &m->rep[0];
    for (int i = 0; i < N_COUNTERS; i++) {
        int lo = counter_words[i], hi = CTL_HI(counter_words[i]);
        r->counters[lo] = (uint32_t)counters[2 * i];
        r->counters[lo + 1] = (uint32_t)(counters[2 * i] >> 32);
        r->counters[hi] = (uint32_t)counters[2 * i + 1];
        r->counters[hi + 1] = (uint32_t)(counters[2 * i + 1] >> 32);
    }
    return dbuf_write(r->dev, &r->ctl, 0, sizeof r->counters, r->counters, 1, err);
}

/* Moving nodes in several partitions: the tiling of window NEXT, which every replica takes
 * from the host before it runs (flood_part_of_current); the tiles themselves never change. */
static int restore_tiles(flood_model *m, const ckpt_file *in, int64_t next, cn_error *err)
{
    if (!m->mobile || m->n_parts <= 1)
        return 0;
    int rc = ckpt_get(in, T_PARTS, m->part_host, (size_t)m->n * 2, err);
    for (uint32_t j = 0; !rc && j < m->n; j++)
        if (m->part_host[j] >= m->n_parts)
            rc = ckpt_mismatch(in, err, "a node in a partition that does not exist");
    if (rc)
        return rc;
    m->host_epoch = flood_epoch(m, next);
    m->retile_queued = m->retile_in_rb = -1;
    m->retile_mask = 0;
    for (int d = 0; d < m->n_rep; d++) {
        m->rep[d].part_epoch = -1;
        m->rep[d].held_version = -1;
    }
    return 0;
}

static int restore_window_loop(flood_model *m, const ckpt_file *in, int64_t next,
                               const flood_shape *shape, const flood_scalars *sv, cn_error *err)
{
    const void *p = NULL;
    size_t len = 0;
    int rc = restore_tiles(m, in, next, err);
    if (!rc)
        rc = restore_slots(m, in, shape->slots, err);
    if (!rc)
        rc = restore_pending(m, in, err);
    if (!rc)
        rc = ckpt_find(in, T_ENTRIES, &p, &len, err);
    size_t eb = m->entry_bytes;
    if (!rc && (sv->relays < 0 || sv->relays > 0xffffffffLL || len != (size_t)sv->relays * eb))
        rc = ckpt_mismatch(in, err, "transmissions of another count");
    for (size_t i = 0; !rc && i < len / eb; i++) {
        uint32_t e[2];
        memcpy(e, (const uint8_t *)p + eb * i, 8);
        if (e[0] >= m->n || e[1] >= shape->slots)
            rc = ckpt_mismatch(in, err, "a transmission of a node or slot that does not exist");
    }
    if (!rc)
        rc = flood_set_entries(m, next, p, (uint32_t)sv->relays, err);
    if (!rc)
        rc = restore_replicas(m, in, next, sv, err);
    if (rc)
        return rc;
    m->planned = m->processed = next - 1;
    m->relays_known = (uint32_t)sv->relays;
    m->relays_mask = 0;
    m->prep_window = -1;
    m->next_packet = sv->next_packet;
    m->end_time = sv->end_time;
    m->any_tx = (int)sv->any_tx;
    m->longest_life = sv->longest_life;
    m->scheme_waiting = (uint32_t)sv->scheme_waiting;
    return 0;
}

int flood_restore(struct model_state *state, int64_t next, const ckpt_file *in, cn_error *err)
{
    flood_model *m = flood_of(state);
    flood_shape shape, mine = shape_of(m);
    flood_scalars sv;
    /* the engine has checked the file whole (model_ops.check_checkpoint,
     * flood_checkpoint_check) before it calls this: nothing is sized or indexed before that */
    int rc = ckpt_get(in, T_SHAPE, &shape, sizeof shape, err);
    if (!rc)
        rc = ckpt_get(in, T_SCALARS, &sv, sizeof sv, err);
    if (rc)
        return rc;
    if (shape.whole != mine.whole)
        return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': it was written by the %s, "
                       "and this run takes the %s (CLNETSIM_TEST_WHOLE_PACKETS differs)",
                       in->path, shape.whole ? "whole-packet kernels" : "window loop",
                       mine.whole ? "whole-packet kernels" : "window loop");
    if (shape.n != mine.n || shape.words != mine.words || shape.mobile != mine.mobile ||
        shape.flows != mine.flows || shape.records != mine.records ||
        shape.resources != mine.resources || shape.energy != mine.energy ||
        shape.parts != mine.parts || shape.slots == 0)
        return ckpt_mismatch(in, err, "a model of another shape");
    if (!m->whole)
        rc = restore_window_loop(m, in, next, &shape, &sv, err);
    else if (sv.pk_next < 0 || sv.pk_next > m->pk_total || sv.pk_rounds < 0)
        rc = ckpt_refuse(in, err, T_SCALARS, "next packet %lld of the scenario's %lld",
                         (long long)sv.pk_next, (long long)m->pk_total);
    else if (next > m->pk_total)
        rc = ckpt_refuse(in, err, CKPT_NEXT, "next round %lld is beyond the scenario's %lld "
                         "packets", (long long)next, (long long)m->pk_total);
    if (!rc && m->whole) {
        m->pk_next = sv.pk_next;
        m->pk_rounds = sv.pk_rounds;
        rc = flood_packets_restore(m, in, err);
    }
    if (!rc)
        rc = restore_counters(m, in, err);
    const void *p = NULL;
    size_t len = 0;
    if (!rc)
        rc = ckpt_find(in, T_DEPS, &p, &len, err);
    if (!rc && departures_restore(m->deps, p, len) != 0)
        rc = ckpt_refuse(in, err, T_DEPS, "%zu bytes that are not a traffic generator of the "
                         "scenario's flows and sources", len);
    int64_t flows[FLOW_SUMS][SCENARIO_MAX_FLOWS];
    if (!rc)
        rc = ckpt_get(in, T_FLOWS, flows, sizeof flows, err);
    if (rc)
        return rc;
    memcpy(m->f_generated, flows[0], sizeof flows[0]);
    memcpy(m->f_deliverable, flows[1], sizeof flows[1]);
    memcpy(m->f_delivered, flows[2], sizeof flows[2]);
    join_wide(flows[3], flows[4], m->f_hops);
    join_wide(flows[5], flows[6], m->f_latency);
    if (!m->want_records)
        return 0;
    rc = ckpt_find(in, T_RECORDS, &p, &len, err);
    if (rc)
        return rc;
    if (len % sizeof *m->recs != 0)
        return ckpt_mismatch(in, err, "malformed packet records");
    int64_t n = (int64_t)(len / sizeof *m->recs);
    flood_packet_record *recs = malloc(len ? len : 1);
    if (!recs)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet records");
    if (len)
        memcpy(recs, p, len);
    free(m->recs);
    m->recs = recs;
    m->n_recs = m->cap_recs = n;
    return 0;
}
