/* Flood model: its traffic on the host. Departures (models/traffic/departures.h) come in
 * packet id order and wait for their window; with traffic flows the kernels count each
 * window's deliveries per slot, which are summed here per packet and, when the packet
 * retires, per flow and into its record (docs/models.md, "Traffic"). */
#include <stdlib.h>
#include <string.h>

#include "models/flood/flood_model.h"

int flood_traffic_setup(flood_model *m, cn_error *err)
{
    m->n_flowdefs = traffic_flows(&m->sc, m->flowdefs);
    m->want_records = m->sc.record_packets;
    m->flows = flood_values_of(&m->sc)->n_flows > 0 || m->want_records;
    m->pend_cap = 64;
    m->pend = malloc(m->pend_cap * sizeof *m->pend);
    if (!m->pend)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the traffic");
    return departures_open(&m->deps, &m->sc, err);
}

void flood_traffic_free(flood_model *m)
{
    departures_close(m->deps);
    m->deps = NULL;
    free(m->pend);
    free(m->slot_time);
    free(m->slot_src);
    free(m->slot_dst);
    free(m->slot_flow);
    free(m->slot_deliv);
    free(m->slot_hops);
    free(m->slot_last_h);
    free(m->slot_lat);
    free(m->slot_last_lat);
    free(m->recs);
}

/* Appends departure D to the ring of waiting ones; 0, or -1 out of memory. */
static int pend_push(flood_model *m, const departure *d)
{
    if (m->pend_n == m->pend_cap) {
        size_t cap = 2 * m->pend_cap;
        departure *p = malloc(cap * sizeof *p);
        if (!p)
            return -1;
        for (size_t i = 0; i < m->pend_n; i++)
            p[i] = m->pend[(m->pend_head + i) % m->pend_cap];
        free(m->pend);
        m->pend = p;
        m->pend_cap = cap;
        m->pend_head = 0;
    }
    m->pend[(m->pend_head + m->pend_n++) % m->pend_cap] = *d;
    return 0;
}

uint32_t flood_packets_due(flood_model *m, int64_t end)
{
    departure d;
    while (departures_peek(m->deps, &d) && d.t < end) {
        if (pend_push(m, &d) != 0)
            break; /* out of memory: the packets come in a later window's count */
        departures_pop(m->deps);
    }
    uint32_t n = 0;
    while (n < m->pend_n && n < 0xffffffffu &&
           m->pend[(m->pend_head + n) % m->pend_cap].t < end)
        n++;
    return n;
}

int flood_packet_pending(flood_model *m, int64_t *t)
{
    if (m->pend_n > 0) {
        *t = m->pend[m->pend_head].t;
        return 1;
    }
    departure d;
    if (!departures_peek(m->deps, &d))
        return 0;
    *t = d.t;
    return 1;
}

/* A new packet of departure DEP counts for its flow. */
static void count_created(flood_model *m, const departure *dep)
{
    m->f_generated[dep->flow]++;
    int64_t add = dep->destination == DEPARTURE_BROADCAST ? (int64_t)m->n - 1 : 1;
    /* billions of broadcast packets over billions of nodes pass 2^63: reported, not wrapped */
    if (__builtin_add_overflow(m->f_deliverable[dep->flow], add, &m->f_deliverable[dep->flow])) {
        m->f_deliverable[dep->flow] = INT64_MAX;
        m->deliverable_wrapped = 1;
    }
}

/* A packet is done: its flow's sums, and its record when records are kept. DELIV deliveries
 * with HOPS hop counts and LAT latencies in all; the last one's hop count LAST_H and latency
 * LAST_LAT (-1 both: none). */
static int packet_done(flood_model *m, int64_t k, int64_t created, uint32_t flow,
                       uint32_t source, int64_t deliv, int64_t hops, wide_int lat,
                       int64_t last_h, int64_t last_lat)
{
    m->f_delivered[flow] += deliv;
    m->f_hops[flow] += hops;
    m->f_latency[flow] += lat;
    if (!m->want_records)
        return 0;
    if (m->n_recs == m->cap_recs) {
        int64_t cap = m->cap_recs ? 2 * m->cap_recs : 1024;
        flood_packet_record *p = realloc(m->recs, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        m->recs = p;
        m->cap_recs = cap;
    }
    m->recs[m->n_recs++] = (flood_packet_record){k, created, flow, source, deliv,
                                                 last_h > 0 ? last_lat : -1,
                                                 last_h > 0 ? last_h : -1};
    return 0;
}

void flood_lattice_latencies(const flood_model *m, int64_t deliv, int64_t hops,
                             int64_t last_h, wide_int *lat, int64_t *last_lat)
{
    /* a delivery at hop count h comes (h - 1) L after the packet's creation (docs/model.md); the
     * sum over a broadcast packet's deliveries can pass 2^63 */
    *lat = (wide_int)(hops - deliv) * m->L;
    *last_lat = last_h > 0 ? (last_h - 1) * m->L : -1;
}

int flood_whole_packet_done(flood_model *m, int64_t k, const departure *dep, int64_t deliv,
                            int64_t hops, wide_int lat, int64_t last_h, int64_t last_lat)
{
    count_created(m, dep);
    m->next_packet = k + 1;
    return packet_done(m, k, dep->t, dep->flow, dep->source, deliv, hops, lat, last_h,
                       last_lat);
}

void flood_take_packet(flood_model *m, uint32_t slot, int64_t w, departure *dep)
{
    *dep = m->pend[m->pend_head];
    m->pend_head = (m->pend_head + 1) % m->pend_cap;
    m->pend_n--;
    int64_t k = m->next_packet++;
    m->slot_pkt[slot] = k;
    m->born_window[slot] = w;
    m->slot_time[slot] = dep->t;
    if (!m->flows)
        return;
    m->slot_src[slot] = dep->source;
    m->slot_dst[slot] = dep->destination;
    m->slot_flow[slot] = dep->flow;
    m->slot_deliv[slot] = m->slot_hops[slot] = 0;
    m->slot_lat[slot] = 0;
    m->slot_last_h[slot] = m->slot_last_lat[slot] = -1;
    count_created(m, dep);
}

uint32_t flood_deliv_words(const flood_model *m)
{
    return m->scheme_window ? 4u : 1u;
}

void flood_add_deliveries(flood_model *m, int64_t w, const uint32_t *deliv)
{
    int64_t begin = w * m->L;
    uint32_t dw = flood_deliv_words(m);
    for (uint32_t s = 0; s < m->slots; s++) {
        const uint32_t *d = deliv + (size_t)dw * s;
        if (d[0] == 0 || m->slot_pkt[s] < 0)
            continue;
        /* every transmission of a packet in a window has the same time, t_k + (h - 1) L; under
         * the rule of docs/model.md its hop count is that h, under a scheme each delivery's
         * own, summed and maximised by the kernels (docs/models.md, "Forwarding schemes") */
        int64_t tk = m->slot_time[s];
        int64_t h = tk >= begin ? 1 : (begin - tk + m->L - 1) / m->L + 1;
        int64_t hops = (int64_t)d[0] * h, last_h = h;
        if (m->scheme_window) {
            hops = (int64_t)((uint64_t)d[1] | (uint64_t)d[2] << 32);
            last_h = d[3];
        }
        m->slot_deliv[s] += d[0];
        m->slot_hops[s] += hops;
        m->slot_lat[s] += (wide_int)d[0] * (h - 1) * m->L;
        /* windows come in time order: the last delivery is the latest window's, and among
         * its deliveries (at the same time) the one of the largest hop count */
        m->slot_last_h[s] = last_h;
        m->slot_last_lat[s] = (h - 1) * m->L;
    }
}

int flood_retire_slot(flood_model *m, uint32_t s)
{
    if (!m->flows)
        return 0;
    int64_t deliv = m->slot_deliv[s], last_h = m->slot_last_h[s];
    return packet_done(m, m->slot_pkt[s], m->slot_time[s], m->slot_flow[s], m->slot_src[s],
                       deliv, m->slot_hops[s], m->slot_lat[s], last_h,
                       last_h > 0 ? m->slot_last_lat[s] : -1);
}

/* The rows of `run --packets` (docs/models.md, "Traffic"): one per packet in packet id
 * order, its flow by name; latency and hops empty when the packet was never delivered. */
static const record_column packet_columns[] = {
    {"flow", RECORD_LABEL, 0},      {"packet", RECORD_INT, 0},    {"source", RECORD_INT, 0},
    {"created_ns", RECORD_INT, 0},  {"delivered", RECORD_INT, 0}, {"latency_ns", RECORD_INT, 0},
    {"hops", RECORD_INT, 0},
};
enum { COL_FLOW, COL_PACKET, COL_SOURCE, COL_CREATED, COL_DELIVERED, COL_LATENCY, COL_HOPS };
static const record_shape packet_shape = {
    packet_columns, (int)(sizeof packet_columns / sizeof packet_columns[0]), COL_PACKET};

/* Puts the packets' records into R's rows and releases them; 0, or -1 out of memory. */
static int hand_over_records(flood_model *m, run_results *r)
{
    record_table *t = &r->records;
    if (record_table_init(t, &packet_shape, m->n_recs) != 0)
        return -1;
    int label[SCENARIO_MAX_FLOWS];
    for (int f = 0; f < m->n_flowdefs; f++)
        label[f] = record_table_label(t, m->flowdefs[f].name);
    for (int64_t i = 0; i < m->n_recs; i++) {
        const flood_packet_record *p = &m->recs[i];
        int64_t *row = record_table_append(t);
        if (!row) {
            record_table_free(t);
            return -1;
        }
        row[COL_FLOW] = p->flow < (uint32_t)m->n_flowdefs ? label[p->flow] : -1;
        row[COL_PACKET] = p->packet;
        row[COL_SOURCE] = p->source;
        row[COL_CREATED] = p->created_ns;
        row[COL_DELIVERED] = p->delivered;
        if (p->hops >= 0) { /* else both stay RECORD_NONE: empty cells */
            row[COL_LATENCY] = p->latency_ns;
            row[COL_HOPS] = p->hops;
        }
    }
    free(m->recs);
    m->recs = NULL;
    m->n_recs = m->cap_recs = 0;
    return 0;
}

int flood_traffic_results(flood_model *m, run_results *r, cn_error *err)
{
    if (!m->flows)
        return 0;
    /* packets still in flight when the run ended (the duration) */
    for (uint32_t s = 0; s < m->slots; s++)
        if (m->slot_pkt[s] >= 0) {
            if (flood_retire_slot(m, s) != 0)
                return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet records");
            m->slot_pkt[s] = -1;
        }
    if (m->deliverable_wrapped)
        return cn_fail(err, CN_ERR_RUNTIME, "the count of deliverable packets passed 2^63 - 1: "
                       "the run's results cannot be reported; use fewer broadcast packets");
    if (flood_values_of(&m->sc)->n_flows > 0) {
        results_set(r, "generated", m->next_packet);
        int64_t deliverable = 0;
        for (int f = 0; f < m->n_flowdefs; f++) {
            int row = results_add_row(r, m->flowdefs[f].name);
            results_set_cell(r, row, "generated", m->f_generated[f]);
            results_set_cell(r, row, "deliverable", m->f_deliverable[f]);
            results_set_cell(r, row, "delivered", m->f_delivered[f]);
            results_set_cell(r, row, "hops_sum", m->f_hops[f]);
            results_set_cell(r, row, "latency_sum_ns", m->f_latency[f]);
            if (__builtin_add_overflow(deliverable, m->f_deliverable[f], &deliverable))
                return cn_fail(err, CN_ERR_RUNTIME, "the count of deliverable packets passed "
                               "2^63 - 1: the run's results cannot be reported; use fewer "
                               "broadcast packets");
        }
        results_set(r, "deliverable", deliverable);
    }
    if (m->want_records && hand_over_records(m, r) != 0)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for packet records");
    return 0;
}
