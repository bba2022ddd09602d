/* Packet departures in packet id order (docs/models.md, "Traffic"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/philox.h"
#include "models/traffic/departures.h"

/* One (flow, source) pair and its next departure. */
typedef struct source_state {
    int64_t t, m;
    uint32_t flow, source;
} source_state;

struct departures {
    traffic_flow flows[SCENARIO_MAX_FLOWS];
    int n_flows;
    uint64_t seed;
    int64_t duration;
    int64_t nodes;
    source_state *heap; /* a binary min-heap by (t, flow, source) */
    size_t n, cap;
};

/* ---- the laws ------------------------------------------------------------------------- */

/* floor(A * B / 2^S) for 0 < S < 64, exact through 32-bit limbs; UINT64_MAX when it does not
 * fit in 64 bits. */
static uint64_t mul_shr(uint64_t a, uint64_t b, unsigned s)
{
    const uint64_t m32 = 0xffffffffu;
    uint64_t a0 = a & m32, a1 = a >> 32, b0 = b & m32, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & m32) + (p10 & m32);
    uint64_t lo = (p00 & m32) | (mid << 32);
    uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    if (hi >> s)
        return UINT64_MAX;
    return (lo >> s) | (hi << (64 - s));
}

uint32_t traffic_lg_q16(uint64_t x)
{
    uint32_t e = 0;
    while (e < 63 && (x >> (e + 1)) != 0)
        e++;
    uint64_t v = e <= 31 ? x << (31 - e) : x >> 1;
    uint32_t g = e << 16;
    for (int i = 15; i >= 0; i--) {
        v = (v * v) >> 31;
        if (v >= ((uint64_t)1 << 32)) {
            v >>= 1;
            g |= 1u << i;
        }
    }
    return g;
}

/* a + ((w * (b - a + 1)) >> 32): uniform over [a, b] in ns. */
static int64_t uniform_between(uint32_t w, int64_t a, int64_t b)
{
    uint64_t span = (uint64_t)(b - a) + 1;
    return a + (int64_t)mul_shr(span, w, 32);
}

int64_t traffic_start(const traffic_flow *fl, uint64_t seed, uint32_t f, uint32_t s)
{
    if (fl->start.law == TLAW_CONSTANT)
        return fl->start.a_ns;
    philox4x32 c = {{s, 0u, STREAM_TRAFFIC_START, f}};
    uint32_t w0 = philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32)).v[0];
    return uniform_between(w0, fl->start.a_ns, fl->start.b_ns);
}

int64_t traffic_interval(const traffic_flow *fl, uint64_t seed, uint32_t f, uint32_t s,
                         int64_t m)
{
    if (fl->interval.law == TLAW_CONSTANT)
        return fl->interval.a_ns;
    uint32_t item = fl->interval_draw == DRAW_NODE ? 0u : (uint32_t)m;
    philox4x32 c = {{s, item, STREAM_TRAFFIC, f}};
    uint32_t w0 = philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32)).v[0];
    if (fl->interval.law == TLAW_UNIFORM)
        return uniform_between(w0, fl->interval.a_ns, fl->interval.b_ns);
    /* exponential: (mean * ((32 << 16) - lg(w0 + 1)) * round(ln 2 * 2^30)) >> 46 */
    uint64_t d = ((uint64_t)32 << 16) - traffic_lg_q16((uint64_t)w0 + 1);
    uint64_t v = mul_shr((uint64_t)fl->interval.a_ns, d * 744261118u, 46);
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

int traffic_flows(const scenario *scn, traffic_flow *out)
{
    const flood_values *sc = flood_values_of(scn);
    if (sc->n_flows > 0) {
        memcpy(out, sc->flows, (size_t)sc->n_flows * sizeof *out);
        return sc->n_flows;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", "traffic");
    out->n_ranges = 1;
    out->first[0] = out->last[0] = sc->source;
    out->destination = sc->destination;
    out->packets = sc->packets;
    out->interval = (time_law){TLAW_CONSTANT, sc->interval_ns, sc->interval_ns};
    out->interval_draw = DRAW_PACKET;
    out->start = (time_law){TLAW_CONSTANT, sc->start_ns, sc->start_ns};
    out->size_bytes = sc->size_bytes;
    return 1;
}

/* ---- the heap ------------------------------------------------------------------------- */

static int before(const source_state *a, const source_state *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->flow != b->flow)
        return a->flow < b->flow;
    return a->source < b->source;
}

static void sift_down(departures *d, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < d->n && before(&d->heap[l], &d->heap[best]))
            best = l;
        if (r < d->n && before(&d->heap[r], &d->heap[best]))
            best = r;
        if (best == i)
            return;
        source_state tmp = d->heap[i];
        d->heap[i] = d->heap[best];
        d->heap[best] = tmp;
        i = best;
    }
}

/* Whether departure M of a source at time T happens. */
static int happens(const departures *d, const traffic_flow *fl, int64_t t, int64_t m)
{
    if (fl->packets > 0 && m >= fl->packets)
        return 0;
    return d->duration == 0 || t < d->duration;
}

static int add_source(departures *d, uint32_t f, uint32_t s, cn_error *err)
{
    const traffic_flow *fl = &d->flows[f];
    int64_t t = traffic_start(fl, d->seed, f, s);
    if (!happens(d, fl, t, 0))
        return 0;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        source_state *h = realloc(d->heap, cap * sizeof *h);
        if (!h)
            return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the traffic sources");
        d->heap = h;
        d->cap = cap;
    }
    d->heap[d->n++] = (source_state){t, 0, f, s};
    return 0;
}

int departures_open(departures **out, const scenario *scn, cn_error *err)
{
    const flood_values *sc = flood_values_of(scn);
    departures *d = calloc(1, sizeof *d);
    *out = d;
    if (!d)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the traffic");
    d->n_flows = traffic_flows(scn, d->flows);
    d->seed = scn->seed;
    d->duration = scn->duration_ns;
    d->nodes = flood_node_count(sc);
    int rc = 0;
    for (int f = 0; f < d->n_flows && !rc; f++) {
        const traffic_flow *fl = &d->flows[f];
        if (fl->all_sources) {
            for (int64_t s = 0; s < d->nodes && !rc; s++)
                if (s != fl->destination)
                    rc = add_source(d, (uint32_t)f, (uint32_t)s, err);
            continue;
        }
        /* ranges in id order (they do not overlap) */
        int order[FLOW_MAX_RANGES];
        for (int r = 0; r < fl->n_ranges; r++) {
            int q = r;
            while (q > 0 && fl->first[order[q - 1]] > fl->first[r]) {
                order[q] = order[q - 1];
                q--;
            }
            order[q] = r;
        }
        for (int q = 0; q < fl->n_ranges; q++)
            for (int64_t s = fl->first[order[q]]; s <= fl->last[order[q]] && !rc; s++)
                rc = add_source(d, (uint32_t)f, (uint32_t)s, err);
    }
    for (size_t i = d->n / 2; i-- > 0;)
        sift_down(d, i);
    return rc;
}

void departures_close(departures *d)
{
    if (!d)
        return;
    free(d->heap);
    free(d);
}

int departures_peek(const departures *d, departure *out)
{
    if (d->n == 0)
        return 0;
    const source_state *h = &d->heap[0];
    const traffic_flow *fl = &d->flows[h->flow];
    out->t = h->t;
    out->flow = h->flow;
    out->source = h->source;
    out->destination = fl->destination == FLOW_BROADCAST ? DEPARTURE_BROADCAST
                                                          : (uint32_t)fl->destination;
    out->index = h->m;
    return 1;
}

void departures_pop(departures *d)
{
    if (d->n == 0)
        return;
    source_state *h = &d->heap[0];
    const traffic_flow *fl = &d->flows[h->flow];
    int64_t gap = traffic_interval(fl, d->seed, h->flow, h->source, h->m);
    if (gap == 0 && fl->packets == 0)
        gap = 1; /* without a packet limit a drawn 0 counts as 1 ns: the source moves on */
    int next = gap <= INT64_MAX - h->t; /* a time past 2^63 - 1 ns never comes */
    if (next) {
        h->t += gap;
        h->m++;
        next = happens(d, fl, h->t, h->m);
    }
    if (!next)
        d->heap[0] = d->heap[--d->n];
    sift_down(d, 0);
}

/* ---- checkpoints ------------------------------------------------------------------------ */

size_t departures_state_bytes(const departures *d)
{
    return d->n * sizeof *d->heap;
}

void departures_state(const departures *d, void *out)
{
    if (d->n)
        memcpy(out, d->heap, d->n * sizeof *d->heap);
}

/* The heap array as it was, entry for entry: its order is a heap's already. A source only
 * leaves the heap, so the state holds at most as many as a new generator. */
int departures_restore(departures *d, const void *state, size_t bytes)
{
    size_t n = bytes / sizeof *d->heap;
    if (bytes % sizeof *d->heap != 0 || n > d->n)
        return -1;
    const source_state *s = state;
    for (size_t i = 0; i < n; i++) {
        if (s[i].flow >= (uint32_t)d->n_flows || (int64_t)s[i].source >= d->nodes || s[i].m < 0 ||
            s[i].t < 0)
            return -1;
        if (i > 0 && before(&s[i], &s[(i - 1) / 2]))
            return -1; /* not a heap */
    }
    if (n)
        memcpy(d->heap, state, n * sizeof *d->heap);
    d->n = n;
    return 0;
}
