/* A flood checkpoint's records checked against each other and its scenario, with no device
 * (flood_ckpt_format.h). Everything a resumed run sizes, allocates or indexes from the file
 * is checked here first: the engine calls it (model_ops.check_checkpoint) before restoring,
 * and the fuzz target of the reader (tests/fuzz/fuzz_checkpoint.c) calls it on every input. */
#include <string.h>

#include "models/flood/flood_ckpt_format.h"
#include "models/traffic/departures.h"
#include "report/report.h"

/* The scenario's last window of the window loop: the one holding the end of the duration,
 * or without one a window after the bound on every event time (config.h,
 * flood_horizon). */
static int64_t last_window(const scenario *scn)
{
    const flood_values *sc = flood_values_of(scn);
    int64_t L = sc->relay_delay_ns;
    if (scn->duration_ns > 0)
        return (scn->duration_ns - 1) / L;
    return flood_horizon(sc) / L + 1;
}

/* Packets whole-packet runs launch without flows (flood_packets.c, packets_to_run); -1 with
 * flows, whose count the model checks once it has drawn them (flood_restore). */
static int64_t whole_packets(const scenario *scn)
{
    const flood_values *sc = flood_values_of(scn);
    if (sc->n_flows > 0)
        return -1;
    if (scn->duration_ns == 0 || sc->interval_ns == 0)
        return sc->packets;
    if (sc->start_ns >= scn->duration_ns)
        return 0;
    int64_t n = (scn->duration_ns - sc->start_ns + sc->interval_ns - 1) / sc->interval_ns;
    return n < sc->packets ? n : sc->packets;
}

static int check_shape(const ckpt_file *in, const scenario *scn, const flood_shape *s,
                       int64_t n, cn_error *err)
{
    const flood_values *sc = flood_values_of(scn);
    mobility_segment segs[SCENARIO_MAX_SEGMENTS];
    int n_segs = flood_mobility_segments(sc, segs), mobile = 0;
    for (int i = 0; i < n_segs; i++)
        mobile |= segs[i].mob->model != MOBILITY_STATIC;
    int scheme = sc->scheme != SCHEME_PROBABILISTIC;
    const uint32_t T = T_SHAPE;
    if ((int64_t)s->n != n)
        return ckpt_refuse(in, err, T, "node count %u is not the scenario's %lld", s->n,
                           (long long)n);
    if (s->words != (s->n + 31) / 32)
        return ckpt_refuse(in, err, T, "%u bitset words for %u nodes", s->words, s->n);
    if (s->whole > 1 || s->mobile != (uint32_t)mobile)
        return ckpt_refuse(in, err, T, "moving nodes %u, whole packets %u: not a run of this "
                           "scenario", s->mobile, s->whole);
    /* (per-packet records run the flows' paths too: flood_traffic_setup) */
    if (s->flows != (uint32_t)(sc->n_flows > 0 || scn->record_packets) ||
        s->records != (uint32_t)scn->record_packets)
        return ckpt_refuse(in, err, T, "flows %u, packet records %u: not a run of this "
                           "scenario", s->flows, s->records);
    if (s->resources != (uint32_t)flood_has_resources(sc) ||
        s->energy != (uint32_t)flood_has_energy(sc))
        return ckpt_refuse(in, err, T, "node resources %u, energy %u: not a run of this "
                           "scenario", s->resources, s->energy);
    if (s->entry_bytes != (scheme ? 16u : 8u) || s->scheme_window > (uint32_t)scheme ||
        (s->scheme_window && s->whole))
        return ckpt_refuse(in, err, T, "forwarding-scheme state %u with %u-byte transmissions: "
                           "not a run of this scenario", s->scheme_window, s->entry_bytes);
    if (s->parts < 1 || s->parts > s->n || s->parts > 65536 ||
        (s->parts > 1 && scn->partitions > 0 && (int64_t)s->parts != scn->partitions))
        return ckpt_refuse(in, err, T, "%u partitions for %u nodes and partition.count %lld",
                           s->parts, s->n, (long long)scn->partitions);
    if (s->slots < 1 || s->slots > 0x7fffffffu)
        return ckpt_refuse(in, err, T, "%u packet slots", s->slots);
    if (s->whole && s->slots > 1u << 20)
        return ckpt_refuse(in, err, T, "%u packet slots", s->slots);
    return 0;
}

/* A list of slot numbers (T_FREE, T_DIRTY): each below the slot count. */
static int check_slot_list(const ckpt_file *in, uint32_t tag, uint32_t slots, cn_error *err)
{
    const void *p = NULL;
    size_t len = 0;
    int rc = ckpt_find(in, tag, &p, &len, err);
    if (rc)
        return rc;
    if (len % 4 != 0 || len / 4 > slots)
        return ckpt_refuse(in, err, tag, "%zu bytes of slot numbers for %u slots", len, slots);
    for (size_t i = 0; i < len / 4; i++) {
        uint32_t s;
        memcpy(&s, (const uint8_t *)p + 4 * i, 4);
        if (s >= slots)
            return ckpt_refuse(in, err, tag, "slot %u of %u slots", s, slots);
    }
    return 0;
}

/* A node id, or a broadcast's destination where BROADCAST. */
static int node_ok(uint32_t id, uint32_t n, int broadcast)
{
    return id < n || (broadcast && id == DEPARTURE_BROADCAST);
}

/* The slots' packets, creation windows and times, and with flows their tables. */
static int check_slots(const ckpt_file *in, const flood_shape *s, int n_flows, int64_t next,
                       cn_error *err)
{
    const void *pk = NULL, *born = NULL, *tm = NULL, *fl = NULL;
    uint64_t slots = s->slots;
    int rc = ckpt_find_exact(in, T_SLOT_PKT, slots * 8, "the slots' packets", &pk, err);
    if (!rc)
        rc = ckpt_find_exact(in, T_SLOT_BORN, slots * 8, "the slots' creation windows", &born, err);
    if (!rc)
        rc = ckpt_find_exact(in, T_SLOT_TIME, slots * 8, "the slots' creation times", &tm, err);
    if (!rc)
        rc = check_slot_list(in, T_FREE, s->slots, err);
    if (!rc)
        rc = check_slot_list(in, T_DIRTY, s->slots, err);
    if (!rc && s->flows)
        rc = ckpt_find_exact(in, T_SLOT_FLOW, slots * FLOOD_CKPT_SLOT_FLOW_BYTES,
                             "the slots' flow tables", &fl, err);
    for (uint64_t i = 0; !rc && i < slots; i++) {
        int64_t k, b, t;
        memcpy(&k, (const uint8_t *)pk + 8 * i, 8);
        memcpy(&b, (const uint8_t *)born + 8 * i, 8);
        memcpy(&t, (const uint8_t *)tm + 8 * i, 8);
        if (k < -1)
            rc = ckpt_refuse(in, err, T_SLOT_PKT, "slot %llu holds packet %lld",
                             (unsigned long long)i, (long long)k);
        else if (k >= 0 && (b < 0 || b > next))
            rc = ckpt_refuse(in, err, T_SLOT_BORN, "slot %llu's packet was created in window "
                             "%lld, and the next window is %lld", (unsigned long long)i,
                             (long long)b, (long long)next);
        else if (k >= 0 && t < 0)
            rc = ckpt_refuse(in, err, T_SLOT_TIME, "slot %llu's packet was created at %lld ns",
                             (unsigned long long)i, (long long)t);
        if (rc || k < 0 || !s->flows)
            continue;
        uint32_t src, dst, flow;
        memcpy(&src, (const uint8_t *)fl + 4 * i, 4);
        memcpy(&dst, (const uint8_t *)fl + 4 * (slots + i), 4);
        memcpy(&flow, (const uint8_t *)fl + 4 * (2 * slots + i), 4);
        if (!node_ok(src, s->n, 0) || !node_ok(dst, s->n, 1) || flow >= (uint32_t)n_flows)
            rc = ckpt_refuse(in, err, T_SLOT_FLOW, "slot %llu holds a packet from node %u to "
                             "node %u in flow %u, of %u nodes and %d flows",
                             (unsigned long long)i, src, dst, flow, s->n, n_flows);
    }
    return rc;
}

/* The transmissions of window NEXT: RELAYS entries, each of a node and a slot. */
static int check_entries(const ckpt_file *in, const flood_shape *s, int64_t relays,
                         cn_error *err)
{
    const void *p = NULL;
    size_t len = 0;
    int rc = ckpt_find(in, T_ENTRIES, &p, &len, err);
    if (rc)
        return rc;
    if (relays < 0 || relays > 0xffffffffLL || (uint64_t)len != (uint64_t)relays * s->entry_bytes)
        return ckpt_refuse(in, err, T_SCALARS, "%lld transmissions in the next window, and "
                           "record FENT holds %zu bytes of %u-byte transmissions",
                           (long long)relays, len, s->entry_bytes);
    for (size_t i = 0; i < len / s->entry_bytes; i++) {
        uint32_t e[2];
        memcpy(e, (const uint8_t *)p + s->entry_bytes * i, 8);
        if (e[0] >= s->n || e[1] >= s->slots)
            return ckpt_refuse(in, err, T_ENTRIES, "transmission %zu by node %u in slot %u, of "
                               "%u nodes and %u slots", i, e[0], e[1], s->n, s->slots);
    }
    return 0;
}

/* The departures waiting for their window: each of a flow, a source and a destination that
 * exist. */
static int check_pending(const ckpt_file *in, const flood_shape *s, int n_flows, cn_error *err)
{
    const void *p = NULL;
    size_t len = 0;
    int rc = ckpt_find(in, T_PEND, &p, &len, err);
    if (rc)
        return rc;
    if (len % sizeof(departure) != 0)
        return ckpt_refuse(in, err, T_PEND, "%zu bytes, not a whole number of %zu-byte "
                           "departures", len, sizeof(departure));
    for (size_t i = 0; i < len / sizeof(departure); i++) {
        departure d;
        memcpy(&d, (const uint8_t *)p + i * sizeof d, sizeof d);
        if (d.t < 0 || d.index < 0 || d.flow >= (uint32_t)n_flows || !node_ok(d.source, s->n, 0) ||
            !node_ok(d.destination, s->n, 1))
            return ckpt_refuse(in, err, T_PEND, "departure %zu (time %lld ns, flow %u, node %u "
                               "to node %u) is not one of %d flows and %u nodes", i,
                               (long long)d.t, d.flow, d.source, d.destination, n_flows, s->n);
    }
    return 0;
}

/* The mobility state MOB: every position within the coordinates the kernels take (0 to
 * 2^31 - 1 mm, whose squared distances fit), and its fourth component, the node's partition,
 * one of the partitions (the kernels index by it). Waypoints, speeds, legs and pauses only
 * give numbers (each mobility model reads them its own way, some not at all). */
static int check_positions(const ckpt_file *in, const flood_shape *s, const void *mob,
                           cn_error *err)
{
    const uint8_t *b = mob;
    for (uint32_t j = 0; j < s->n; j++) {
        int64_t p[4];
        memcpy(p, b + (size_t)j * 32, 32);
        for (int k = 0; k < 3; k++)
            if (p[k] < 0 || p[k] > 0x7fffffffLL)
                return ckpt_refuse(in, err, T_MOBILITY, "node %u is at (%lld, %lld, %lld) mm, "
                                   "outside 0 to 2^31-1 mm", j, (long long)p[0],
                                   (long long)p[1], (long long)p[2]);
        if (p[3] < 0 || p[3] >= (int64_t)s->parts)
            return ckpt_refuse(in, err, T_MOBILITY, "node %u is in partition %lld of %u", j,
                               (long long)p[3], s->parts);
    }
    return 0;
}

/* The window loop's records. */
static int check_window_loop(const ckpt_file *in, const scenario *scn, const flood_shape *s,
                             const flood_scalars *sv, const ckpt_progress *pg, int n_flows,
                             cn_error *err)
{
    const flood_values *sc = flood_values_of(scn);
    int64_t last = last_window(scn), L = sc->relay_delay_ns;
    if (pg->next > last)
        return ckpt_refuse(in, err, CKPT_NEXT, "next window %lld is beyond the scenario's last "
                           "window %lld", (long long)pg->next, (long long)last);
    int64_t end = (pg->next + 1) * L; /* fits: ckpt_get_progress */
    if (pg->reached > end)
        return ckpt_refuse(in, err, CKPT_REACHED, "time reached %lld ns is beyond the next "
                           "window's end %lld ns", (long long)pg->reached, (long long)end);
    if (sv->next_packet < 0 || sv->end_time < 0 || sv->end_time > end ||
        sv->any_tx < 0 || sv->any_tx > 1 || sv->longest_life < 0 ||
        sv->longest_life > pg->next + 1 || sv->moved < 0 || sv->moved > pg->next ||
        (!s->mobile && sv->moved != 0) || sv->scheme_waiting < 0 ||
        sv->scheme_waiting > (int64_t)s->slots * s->n)
        return ckpt_refuse(in, err, T_SCALARS, "next packet %lld, end %lld ns, transmitted %lld, "
                           "longest life %lld windows, mobility step %lld, %lld waiting nodes: "
                           "not a state before window %lld of %u nodes and %u slots",
                           (long long)sv->next_packet, (long long)sv->end_time,
                           (long long)sv->any_tx, (long long)sv->longest_life,
                           (long long)sv->moved, (long long)sv->scheme_waiting,
                           (long long)pg->next, s->n, s->slots);
    int rc = check_slots(in, s, n_flows, pg->next, err);
    const void *p = NULL;
    if (!rc)
        rc = check_entries(in, s, sv->relays, err);
    if (!rc)
        rc = check_pending(in, s, n_flows, err);
    if (!rc)
        rc = ckpt_find_exact(in, T_SEEN, (uint64_t)s->slots * s->words * 4,
                             "the slots' seen bitsets", &p, err);
    if (!rc && s->scheme_window)
        rc = ckpt_find_exact(in, T_SCHEME, (uint64_t)s->slots * s->n * FLOOD_CKPT_SCHEME_NODE_BYTES,
                             "the slots' node states", &p, err);
    if (!rc && s->scheme_window)
        rc = ckpt_find_exact(in, T_TX_NEXT, s->slots, "a byte per slot", &p, err);
    if (!rc && s->mobile)
        rc = ckpt_find_exact(in, T_MOBILITY, (uint64_t)s->n * FLOOD_CKPT_MOBILITY_BYTES,
                             "the nodes' mobility state", &p, err);
    if (!rc && s->mobile)
        rc = check_positions(in, s, p, err);
    if (!rc && s->resources)
        rc = ckpt_find_exact(in, T_ENERGY, (uint64_t)s->n * 8, "the nodes' energy", &p, err);
    if (!rc && s->resources)
        rc = ckpt_find_exact(in, T_DEATH, (uint64_t)s->n * 8, "the nodes' death times", &p, err);
    if (!rc && s->mobile && s->parts > 1) {
        rc = ckpt_find_exact(in, T_PARTS, (uint64_t)s->n * 2, "a tile per node", &p, err);
        for (uint32_t j = 0; !rc && j < s->n; j++) {
            uint16_t t;
            memcpy(&t, (const uint8_t *)p + 2 * j, 2);
            if (t >= s->parts)
                rc = ckpt_refuse(in, err, T_PARTS, "node %u is in partition %u of %u", j, t,
                                 s->parts);
        }
    }
    return rc;
}

/* Whole packets: the rounds and the packets launched against the scenario's packets. */
static int check_whole(const ckpt_file *in, const scenario *sc, const flood_scalars *sv,
                       const ckpt_progress *pg, cn_error *err)
{
    int64_t total = whole_packets(sc);
    if (total >= 0 && pg->next > total)
        return ckpt_refuse(in, err, CKPT_NEXT, "next round %lld is beyond the scenario's %lld "
                           "packets", (long long)pg->next, (long long)total);
    if (sv->pk_next < 0 || (total >= 0 && sv->pk_next > total) || sv->pk_rounds < 0 ||
        sv->pk_rounds > sv->pk_next || sv->pk_rounds > pg->next)
        return ckpt_refuse(in, err, T_SCALARS, "next packet %lld after %lld rounds, of %lld "
                           "packets", (long long)sv->pk_next, (long long)sv->pk_rounds,
                           (long long)total);
    const void *p = NULL;
    size_t len = 0;
    return ckpt_find(in, T_ROWS, &p, &len, err);
}

/* Counters and sums (T_COUNTERS, T_FLOWS): 64-bit words, none negative as the results'
 * members take them, except the low halves of 128-bit sums, any 64 bits: in T_COUNTERS every
 * even word, in T_FLOWS the rows of the hop and latency sums' low halves (3 and 5). Their
 * lengths are checked where they are read (ckpt_get). */
static int check_sums(const ckpt_file *in, uint32_t tag, const char *what, cn_error *err)
{
    const void *p = NULL;
    size_t len = 0;
    int rc = ckpt_find(in, tag, &p, &len, err);
    for (size_t i = 0; !rc && i < len / 8; i++) {
        size_t row = i / SCENARIO_MAX_FLOWS;
        int low_half = tag == T_COUNTERS ? i % 2 == 0 : row == 3 || row == 5;
        int64_t v;
        memcpy(&v, (const uint8_t *)p + 8 * i, 8);
        if (v < 0 && !low_half)
            rc = tag == T_COUNTERS
                     ? ckpt_refuse(in, err, tag, "%s %zu's high 64 bits are %lld", what, i / 2,
                                   (long long)v)
                     : ckpt_refuse(in, err, tag, "%s %zu is %lld", what, i, (long long)v);
    }
    return rc;
}

int flood_checkpoint_check(const ckpt_file *in, const scenario *scn, cn_error *err)
{
    const flood_values *sc = flood_values_of(scn);
    flood_shape shape;
    flood_scalars sv;
    ckpt_progress pg = {0, 0, 0};
    int64_t n = flood_node_count(sc);
    if (sc->relay_delay_ns <= 0 || n < 1 || n > 0x7fffffffLL)
        return cn_fail(err, CN_ERR_INPUT, "cannot resume from '%s': the flood model runs 1 to "
                       "2^31-1 nodes with a relay delay, and its scenario has %lld nodes",
                       in->path, (long long)n);
    /* the next window against the scenario's last first: a number too large for anything
     * else is beyond it too */
    int rc = ckpt_get(in, T_SHAPE, &shape, sizeof shape, err);
    if (!rc)
        rc = ckpt_get_i64(in, CKPT_NEXT, &pg.next, err);
    if (!rc && !shape.whole && pg.next > last_window(scn))
        return ckpt_refuse(in, err, CKPT_NEXT, "next window %lld is beyond the scenario's last "
                           "window %lld", (long long)pg.next, (long long)last_window(scn));
    /* whole packets run in batches, whose numbers are counts (engine/checkpoint.h) */
    if (!rc && shape.whole)
        rc = ckpt_get_progress_batches(in, &pg, err);
    else if (!rc)
        rc = ckpt_get_progress(in, sc->relay_delay_ns, &pg, err);
    if (!rc)
        rc = ckpt_get(in, T_SCALARS, &sv, sizeof sv, err);
    if (!rc)
        rc = check_shape(in, scn, &shape, n, err);
    if (rc)
        return rc;
    traffic_flow flows[SCENARIO_MAX_FLOWS];
    int n_flows = traffic_flows(scn, flows);
    rc = shape.whole ? check_whole(in, scn, &sv, &pg, err)
                     : check_window_loop(in, scn, &shape, &sv, &pg, n_flows, err);
    const void *p = NULL;
    size_t len = 0;
    if (!rc)
        rc = ckpt_find(in, T_DEPS, &p, &len, err);
    if (!rc)
        rc = check_sums(in, T_COUNTERS, "event counter", err);
    if (!rc)
        rc = check_sums(in, T_FLOWS, "flow sum", err);
    if (rc || !shape.records)
        return rc;
    rc = ckpt_find(in, T_RECORDS, &p, &len, err);
    if (!rc && len % sizeof(flood_packet_record) != 0)
        return ckpt_refuse(in, err, T_RECORDS, "%zu bytes, not a whole number of %zu-byte "
                           "packet records", len, sizeof(flood_packet_record));
    for (size_t i = 0; !rc && i < len / sizeof(flood_packet_record); i++) {
        flood_packet_record r;
        memcpy(&r, (const uint8_t *)p + i * sizeof r, sizeof r);
        if (r.flow >= (uint32_t)n_flows || r.source >= shape.n || r.packet < 0 ||
            r.created_ns < 0)
            rc = ckpt_refuse(in, err, T_RECORDS, "record %zu (packet %lld of flow %u from node "
                             "%u) is not one of %d flows and %u nodes", i, (long long)r.packet,
                             r.flow, r.source, n_flows, shape.n);
    }
    return rc;
}
