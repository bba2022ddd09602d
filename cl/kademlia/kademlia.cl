/* The Kademlia model (docs/models/kademlia.md) on the devices: routing tables built from the
 * sorted ids, and lookups run window by window.
 *
 * Every device holds every peer's id and table: the tables never change (no churn), so a
 * request is answered where its lookup lives, from the table of the peer asked, at the time
 * the request reaches that peer. A lookup's record (kademlia_layout.clh) keeps its top (the k
 * closest peers it knows, closest first) and its requests in flight, each one entry that is
 * first the request on its way (its event at the peer asked) and then the response on its way
 * back (its event at the initiator). One work-item runs one peer's window: the events of the
 * lookups it started (the requests it sent run at their peers: lookups never meet, and a
 * request changes nothing at the peer that answers it), then the starts of its new lookups.
 * Every message takes at least latency_min, the window's length, so nothing a window creates
 * runs in it. Ids are W words, left-aligned: their order and XOR distances compare as those of
 * the B-bit integers. */
#pragma OPENCL FP_CONTRACT OFF
#include "common/philox.clh"
#include "kademlia/kademlia_layout.clh"

#define W KAD_W
#define K KAD_K
#define ALPHA KAD_ALPHA
#define LW LK_WORDS(W, K, ALPHA)

typedef struct kid {
    uint w[W];
} kid;

inline kid id_at(__global const uint *ids, ulong j)
{
    kid x;
    for (int q = 0; q < W; q++)
        x.w[q] = ids[j * W + q];
    return x;
}

inline kid kid_xor(kid a, kid b)
{
    kid d;
    for (int q = 0; q < W; q++)
        d.w[q] = a.w[q] ^ b.w[q];
    return d;
}

inline int kid_less(kid a, kid b)
{
    for (int q = 0; q < W; q++)
        if (a.w[q] != b.w[q])
            return a.w[q] < b.w[q];
    return 0;
}

inline int kid_zero(kid a)
{
    uint v = 0;
    for (int q = 0; q < W; q++)
        v |= a.w[q];
    return v == 0;
}

/* Bit Q of X, counted from the most significant (Q = 0). */
inline uint kid_bit(kid x, uint q)
{
    return (x.w[q >> 5] >> (31u - (q & 31u))) & 1u;
}

/* The first set bit of X from the most significant, B when X is 0. */
inline uint kid_lead(kid x, uint B)
{
    for (int q = 0; q < W; q++)
        if (x.w[q])
            return 32u * (uint)q + clz(x.w[q]);
    return B;
}

inline uint sorted_bit(__global const uint *sorted, uint j, uint q)
{
    return (sorted[(ulong)j * W + (q >> 5)] >> (31u - (q & 31u))) & 1u;
}

/* The first index of [LO, HI) of the sorted ids (which share their bits before Q) whose bit Q
 * is 1; HI when none. */
inline uint split_at(__global const uint *sorted, uint lo, uint hi, uint q)
{
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (sorted_bit(sorted, mid, q))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* ---- routing tables ------------------------------------------------------------------------ */

/* Peer j's contacts and buckets (its buckets are those of depth 0 .. q - 1, the depth of a
 * bucket the first bit where its peers' ids differ from j's: deeper ones are empty). At depth
 * q, [lo, hi) are the sorted ids that share j's first q bits; the half that differs at bit q
 * is bucket q's range. */
__kernel void kad_count(uint N, uint B, __global const uint *ids, __global const uint *sorted,
                        __global uint2 *counts)
{
    uint j = (uint)get_global_id(0);
    if (j >= N)
        return;
    kid me = id_at(ids, j);
    uint lo = 0, hi = N, total = 0, q = 0;
    for (; q < B && hi - lo > 1; q++) {
        uint mid = split_at(sorted, lo, hi, q);
        uint own = kid_bit(me, q);
        uint other = own ? mid - lo : hi - mid;
        total += min((uint)K, other);
        if (own)
            lo = mid;
        else
            hi = mid;
    }
    counts[j] = (uint2)(total, q);
}

/* Fills peer j's table: bucket q at contacts[toff[j] + lpos[lbase[j] + q]], q < the count of
 * kad_count, lpos[lbase[j] + that count] its total. A bucket holds the min(K, size) peers of
 * its range closest to j, found by descending the range's binary trie: at each bit, the half
 * whose bit equals j's is the closer; taken whole when it holds no more than are wanted. */
__kernel void kad_fill(uint N, uint B, __global const uint *ids, __global const uint *sorted,
                       __global const uint *sorted_peer, __global const ulong *toff,
                       __global const ulong *lbase, __global ushort *lpos,
                       __global uint *contacts)
{
    uint j = (uint)get_global_id(0);
    if (j >= N)
        return;
    kid me = id_at(ids, j);
    __global uint *out = contacts + toff[j];
    __global ushort *pos = lpos + lbase[j];
    uint lo = 0, hi = N, total = 0, q = 0;
    for (; q < B && hi - lo > 1; q++) {
        uint mid = split_at(sorted, lo, hi, q);
        uint own = kid_bit(me, q);
        uint a = own ? lo : mid, b = own ? mid : hi;
        pos[q] = (ushort)total;
        uint need = min((uint)K, b - a), l = q + 1;
        while (need > 0) {
            if (b - a <= need) {
                for (uint x = a; x < b; x++)
                    out[total++] = sorted_peer[x];
                break;
            }
            uint m = split_at(sorted, a, b, l);
            uint mine = kid_bit(me, l);
            uint pa = mine ? m : a, pb = mine ? b : m;
            if (pb - pa >= need) {
                a = pa;
                b = pb;
            } else {
                for (uint x = pa; x < pb; x++)
                    out[total++] = sorted_peer[x];
                need -= pb - pa;
                a = mine ? a : m;
                b = mine ? m : b;
            }
            l++;
        }
        if (own)
            lo = mid;
        else
            hi = mid;
    }
    pos[q] = (ushort)total;
}

/* ---- draws ----------------------------------------------------------------------------------- */

/* lat(a, b): drawn once per pair, uniform in [lmin, lmin + span1 - 1]. */
inline long latency(uint2 key, uint a, uint b, long lmin, ulong span1)
{
    uint4 w = philox4x32_10((uint4)(min(a, b), max(a, b), KAD_STREAM_LATENCY, 0u), key);
    return lmin + (long)(((ulong)w.x * span1) >> 32);
}

/* The gap before lookup n of peer i: uniform in [0, D] (D1 = D + 1). */
inline long lookup_gap(uint2 key, uint i, uint n, ulong d1)
{
    uint4 w = philox4x32_10((uint4)(i, n, KAD_STREAM_LOOKUP, 0u), key);
    return (long)mul_hi(((ulong)w.y << 32) | (ulong)w.x, d1);
}

/* The first B bits of the words A then C, left-aligned. */
inline kid id_of_words(uint4 a, uint4 c, uint B)
{
    uint v[8] = {a.x, a.y, a.z, a.w, c.x, c.y, c.z, c.w};
    kid x;
    for (int q = 0; q < W; q++) {
        int keep = (int)B - 32 * q;
        x.w[q] = keep >= 32 ? v[q] : keep <= 0 ? 0u : v[q] & ~(0xffffffffu >> keep);
    }
    return x;
}

/* ---- closest contacts ------------------------------------------------------------------------ */

/* Inserts peer P at distance D into the list (N, PEER, DIST) of at most K, closest first. */
inline void list_insert(uint *n, uint *peer, kid *dist, uint p, kid d)
{
    if (*n == K && !kid_less(d, dist[K - 1]))
        return;
    uint at = *n < K ? (*n)++ : K - 1;
    for (; at > 0 && kid_less(d, dist[at - 1]); at--) {
        peer[at] = peer[at - 1];
        dist[at] = dist[at - 1];
    }
    peer[at] = p;
    dist[at] = d;
}

inline void list_add_range(uint *n, uint *peer, kid *dist, __global const uint *table, uint a,
                           uint b, kid x, __global const uint *ids)
{
    for (uint s = a; s < b; s++) {
        uint p = table[s];
        list_insert(n, peer, dist, p, kid_xor(id_at(ids, p), x));
    }
}

/* closest(table of c, x) into (PEER, DIST), closest first; returns its size. The buckets come
 * in groups each farther than the one before: the bucket of depth qs (the first bit where x
 * differs from c's id), then every deeper bucket, then the buckets of depth qs - 1 down to 0;
 * no later group can displace a member, so the groups stop once K are taken. */
inline uint closest_of(uint c, kid x, uint B, __global const uint *ids,
                       __global const ulong *toff, __global const ulong *lbase,
                       __global const ushort *lpos, __global const uint *contacts, uint *peer,
                       kid *dist)
{
    uint qs = kid_lead(kid_xor(id_at(ids, c), x), B);
    __global const uint *table = contacts + toff[c];
    __global const ushort *pos = lpos + lbase[c];
    uint nq = (uint)(lbase[c + 1] - lbase[c]) - 1, n = 0;
    if (qs < nq) {
        list_add_range(&n, peer, dist, table, pos[qs], pos[qs + 1], x, ids);
        if (n < K)
            list_add_range(&n, peer, dist, table, pos[qs + 1], pos[nq], x, ids);
    }
    for (int q = (int)min(qs, nq) - 1; q >= 0 && n < K; q--)
        list_add_range(&n, peer, dist, table, pos[q], pos[q + 1], x, ids);
    return n;
}

/* ---- a peer's window ------------------------------------------------------------------------- */

/* What one work-item keeps of the lookup it is running. */
typedef struct lookup {
    uint n, flags, m, target;
    long start;
    kid x;
    uint nt;                 /* top's size */
    uint tpeer[K], tmeta[K];
    kid tdist[K];
    long ft[ALPHA];          /* in flight: time of the next event */
    uint fc[ALPHA], fm[ALPHA], fh[ALPHA]; /* peer asked, m, (depth << 2) | phase */
} lookup;

/* The peer's counters for the window, written back once. */
typedef struct tally {
    ulong st[KS_WORDS];
} tally;

inline uint lk_f(const lookup *L)
{
    return (L->flags >> 8) & 0xffu;
}

inline void lk_set_f(lookup *L, uint f)
{
    L->flags = (L->flags & ~0xff00u) | (f << 8);
}

inline void hist_add(__global uint *hist, uint bin)
{
    if (atomic_inc(&hist[2 * bin]) == 0xffffffffu)
        atomic_inc(&hist[2 * bin + 1]);
}

inline void write_row(__global uint *rows, __global uint *ctl, uint cap, uint i,
                      const lookup *L, long end, uint outcome, uint hops, uint found)
{
    uint o = atomic_inc(&ctl[CTL_ROWS]);
    if (o >= cap)
        return; /* the host sizes the rows so that this never happens (CTL_ROWS tells) */
    __global uint *r = rows + (ulong)o * ROW_WORDS;
    r[0] = i;
    r[1] = L->n;
    r[2] = (uint)(ulong)L->start;
    r[3] = (uint)((ulong)L->start >> 32);
    r[4] = (uint)(ulong)end;
    r[5] = (uint)((ulong)end >> 32);
    r[6] = outcome | (found << 2);
    r[7] = hops;
    r[8] = L->m;
}

/* The parameters every event reads; CH the churn's (churn_of). */
#define RUN_ARGS                                                                              \
    uint i, uint B, long lmin, ulong span1, uint2 key, uint rows_on, uint row_cap,            \
        __global const uint *ids, __global const ulong *toff, __global const ulong *lbase,    \
        __global const ushort *lpos, __global const uint *contacts, __global uint *hist,      \
        __global uint *ctl, __global uint *rows, tally *y, const churn_of *ch
#define RUN_PASS i, B, lmin, span1, key, rows_on, row_cap, ids, toff, lbase, lpos, contacts, \
                 hist, ctl, rows, y, ch

/* ---- churn (docs/models/kademlia.md, "Churn") ------------------------------------------------ */

/* Peer p's period boundaries b_1, b_2, ... (to the first past T) are bounds[boff[p] ..
 * boff[p + 1]); RTO the requests' timeout; ON 0: no churn (every peer always online). */
typedef struct churn_of {
    uint on;
    long rto;
    __global const long *bounds;
    __global const ulong *boff;
} churn_of;

/* Peer P's boundaries at or before T. */
inline ulong bounds_upto(const churn_of *ch, uint p, long t)
{
    ulong lo = ch->boff[p], hi = ch->boff[p + 1];
    while (lo < hi) {
        ulong mid = lo + (hi - lo) / 2;
        if (ch->bounds[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - ch->boff[p];
}

/* Whether peer P is online at T: an even count of boundaries at or before it. */
inline int online(const churn_of *ch, uint p, long t)
{
    return !ch->on || (bounds_upto(ch, p, t) & 1ul) == 0;
}

/* Peer P's first departure (b_1, b_3, ...) after T; KAD_NO_EVENT when none comes before the
 * run's end. */
inline long departure_after(const churn_of *ch, uint p, long t)
{
    if (!ch->on)
        return KAD_NO_EVENT;
    ulong c = bounds_upto(ch, p, t);
    ulong at = ch->boff[p] + c + (c & 1ul); /* the next boundary of even index: a departure */
    return at < ch->boff[p + 1] ? ch->bounds[at] : KAD_NO_EVENT;
}

/* The peers of a response (or of the initiator's own table at the start) join top: those
 * closer than its last, not the initiator and not in it already, with depth H + 1. */
inline void merge(lookup *L, uint c, uint h, RUN_ARGS)
{
    uint cpeer[K];
    kid cdist[K];
    uint nc = closest_of(c, L->x, B, ids, toff, lbase, lpos, contacts, cpeer, cdist);
    for (uint a = 0; a < nc; a++) {
        uint p = cpeer[a];
        if (p == i)
            continue;
        if (L->nt == K && !kid_less(cdist[a], L->tdist[K - 1]))
            break; /* the rest are farther still */
        uint seen = 0;
        for (uint b = 0; b < L->nt; b++)
            seen |= L->tpeer[b] == p;
        if (seen)
            continue;
        uint at = L->nt < K ? L->nt++ : K - 1;
        for (; at > 0 && kid_less(cdist[a], L->tdist[at - 1]); at--) {
            L->tpeer[at] = L->tpeer[at - 1];
            L->tmeta[at] = L->tmeta[at - 1];
            L->tdist[at] = L->tdist[at - 1];
        }
        L->tpeer[at] = p;
        L->tmeta[at] = ((h + 1) << 2) | TOP_FRESH;
        L->tdist[at] = cdist[a];
    }
}

inline void finish(lookup *L, long t, uint outcome, RUN_ARGS)
{
    L->flags = (L->flags & ~LKF_OUTCOME) | (outcome << 1);
    if (outcome == ROW_FAILED) {
        y->st[KS_FAILED]++;
        if (rows_on)
            write_row(rows, ctl, row_cap, i, L, t, ROW_FAILED, 0xffffffffu, 0);
        return;
    }
    uint a = 0; /* the closest member that answered (with churn, closer ones may have not) */
    while (a + 1 < L->nt && (L->tmeta[a] & 3u) != TOP_ANSWERED)
        a++;
    uint hops = L->tmeta[a] >> 2;
    ulong lat = (ulong)(t - L->start);
    uint found = L->target != 0xffffffffu && L->tpeer[0] == L->target &&
                 (L->tmeta[0] & 3u) == TOP_ANSWERED;
    y->st[KS_COMPLETED]++;
    y->st[KS_FOUND] += found;
    y->st[KS_HOPS_SUM] += hops;
    y->st[KS_HOPS_MIN] = min(y->st[KS_HOPS_MIN], (ulong)hops);
    y->st[KS_HOPS_MAX] = max(y->st[KS_HOPS_MAX], (ulong)hops);
    y->st[KS_LAT_SUM] += lat;
    y->st[KS_LAT_MIN] = min(y->st[KS_LAT_MIN], lat);
    y->st[KS_LAT_MAX] = max(y->st[KS_LAT_MAX], lat);
    hist_add(hist, min(hops, (uint)KAD_HOPS_BINS) - 1);
    hist_add(hist, KAD_HOPS_BINS + (uint)min(lat / (ulong)lmin, (ulong)KAD_LATENCY_BINS - 1));
    if (rows_on)
        write_row(rows, ctl, row_cap, i, L, t, ROW_COMPLETED, hops, found);
}

/* "Go on" at time T: when no member of top is fresh or asked, complete (some member
 * answered) or fail (every member was given up); else keep ALPHA requests in flight to the
 * closest fresh members. */
inline void go_on(lookup *L, long t, RUN_ARGS)
{
    uint live = 0, answered = 0;
    for (uint b = 0; b < L->nt; b++) {
        uint st = L->tmeta[b] & 3u;
        live |= st == TOP_FRESH || st == TOP_ASKED;
        answered |= st == TOP_ANSWERED;
    }
    if (!live) {
        finish(L, t, answered ? ROW_COMPLETED : ROW_FAILED, RUN_PASS);
        return;
    }
    uint f = lk_f(L);
    for (uint b = 0; b < L->nt && f < ALPHA; b++) {
        if ((L->tmeta[b] & 3u) != TOP_FRESH)
            continue;
        L->tmeta[b] = (L->tmeta[b] & ~3u) | TOP_ASKED;
        uint e = 0;
        while (e < ALPHA && (L->fh[e] & 3u) != FLY_FREE)
            e++; /* one is free: f < ALPHA entries hold requests */
        uint c = L->tpeer[b];
        L->ft[e] = t + latency(key, i, c, lmin, span1);
        L->fc[e] = c;
        L->fm[e] = L->m;
        L->fh[e] = (L->tmeta[b] & ~3u) | FLY_REQUEST;
        L->m++;
        f++;
        y->st[KS_MESSAGES]++;
    }
    lk_set_f(L, f);
}

inline void lk_load(lookup *L, __global const uint *r, __global const uint *ids)
{
    L->n = r[LK_N];
    L->flags = r[LK_FLAGS];
    L->start = (long)(((ulong)r[LK_START + 1] << 32) | (ulong)r[LK_START]);
    L->m = r[LK_M];
    L->target = r[LK_TARGET];
    for (int q = 0; q < W; q++)
        L->x.w[q] = r[LK_X + q];
    L->nt = (L->flags >> 16) & 0xffu;
    for (uint b = 0; b < L->nt; b++) {
        L->tpeer[b] = r[LK_TOP(W) + 2 * b];
        L->tmeta[b] = r[LK_TOP(W) + 2 * b + 1];
        L->tdist[b] = kid_xor(id_at(ids, L->tpeer[b]), L->x);
    }
    for (uint e = 0; e < ALPHA; e++) {
        __global const uint *f = r + LK_FLY(W, K) + LK_FLY_WORDS * e;
        L->ft[e] = (long)(((ulong)f[1] << 32) | (ulong)f[0]);
        L->fc[e] = f[2];
        L->fm[e] = f[3];
        L->fh[e] = f[4];
    }
}

inline void lk_store(const lookup *L, __global uint *r)
{
    uint flags = (L->flags & ~0xff0000u) | (L->nt << 16);
    r[LK_N] = L->n;
    r[LK_FLAGS] = flags;
    r[LK_START] = (uint)(ulong)L->start;
    r[LK_START + 1] = (uint)((ulong)L->start >> 32);
    r[LK_M] = L->m;
    r[LK_TARGET] = L->target;
    for (int q = 0; q < W; q++)
        r[LK_X + q] = L->x.w[q];
    for (uint b = 0; b < L->nt; b++) {
        r[LK_TOP(W) + 2 * b] = L->tpeer[b];
        r[LK_TOP(W) + 2 * b + 1] = L->tmeta[b];
    }
    for (uint e = 0; e < ALPHA; e++) {
        __global uint *f = r + LK_FLY(W, K) + LK_FLY_WORDS * e;
        f[0] = (uint)(ulong)L->ft[e];
        f[1] = (uint)((ulong)L->ft[e] >> 32);
        f[2] = L->fc[e];
        f[3] = L->fm[e];
        f[4] = L->fh[e];
    }
}

/* Writes L back to R and returns the least time of what it has in flight, and of DEP (its
 * peer's next departure, which fails it) while it is open; an ended lookup with nothing in
 * flight frees its record. */
inline long lk_close(lookup *L, __global uint *r, long dep)
{
    long next = (L->flags & LKF_OUTCOME) ? KAD_NO_EVENT : dep;
    for (uint e = 0; e < ALPHA; e++)
        if ((L->fh[e] & 3u) != FLY_FREE)
            next = min(next, L->ft[e]);
    if ((L->flags & LKF_OUTCOME) && next == KAD_NO_EVENT)
        L->flags = 0;
    lk_store(L, r);
    return next;
}

/* A lookup's events before TEND, one at a time in time order: a request reaching the peer
 * asked (answered at once: its response sets out), or a response reaching the initiator
 * (dropped when the lookup has ended; otherwise its peer is answered, its contacts join top
 * and the lookup goes on). Requests and responses of one time do not touch one another (a
 * request's response and a response's requests land at least latency_min later); responses
 * of one time run in the order of their m. A window of several latency_min (the host's
 * windows per launch) thus runs each lookup as far as it goes before TEND. */
inline void advance(lookup *L, long tend, long dep, RUN_ARGS)
{
    for (;;) {
        uint e = ALPHA;
        for (uint a = 0; a < ALPHA; a++) {
            uint phase = L->fh[a] & 3u;
            if (phase == FLY_FREE || L->ft[a] >= tend)
                continue;
            if (e == ALPHA || L->ft[a] < L->ft[e] ||
                (L->ft[a] == L->ft[e] && L->fm[a] < L->fm[e]))
                e = a;
        }
        /* churn: its peer leaves at DEP, and the lookup fails there if it is still open (what
         * arrives at the peer at DEP or later while it is offline is lost) */
        if (!(L->flags & LKF_OUTCOME) && dep < tend && (e == ALPHA || dep <= L->ft[e])) {
            finish(L, dep, ROW_FAILED, RUN_PASS);
            continue;
        }
        if (e == ALPHA)
            return;
        long t = L->ft[e];
        uint phase = L->fh[e] & 3u, c = L->fc[e], h = L->fh[e] >> 2;
        if (phase == FLY_REQUEST && !online(ch, c, t)) {
            /* not answered (not an event): its initiator gives C up at the timeout, sent + R */
            L->ft[e] = t - latency(key, i, c, lmin, span1) + ch->rto;
            L->fh[e] = (L->fh[e] & ~3u) | FLY_TIMEOUT;
            continue;
        }
        if (phase != FLY_REQUEST)
            L->fh[e] = FLY_FREE;
        if (phase != FLY_REQUEST && !online(ch, i, t))
            continue; /* lost: nothing runs at an offline peer */
        y->st[KS_EVENTS]++;
        y->st[KS_LAST] = max(y->st[KS_LAST], (ulong)t);
        if (phase == FLY_REQUEST) {
            y->st[KS_MESSAGES]++; /* the response */
            L->ft[e] = t + latency(key, c, i, lmin, span1);
            L->fh[e] = (L->fh[e] & ~3u) | FLY_RESPONSE;
            continue;
        }
        if (L->flags & LKF_OUTCOME)
            continue; /* the lookup has ended: dropped */
        lk_set_f(L, lk_f(L) - 1);
        uint state = phase == FLY_RESPONSE ? TOP_ANSWERED : TOP_GAVE_UP;
        for (uint b = 0; b < L->nt; b++)
            if (L->tpeer[b] == c)
                L->tmeta[b] = (L->tmeta[b] & ~3u) | state;
        if (phase == FLY_RESPONSE)
            merge(L, c, h, RUN_PASS);
        go_on(L, t, RUN_PASS);
    }
}

/* A lookup's events before TEND, its peer's next departure after its start failing it. */
inline long advance_close(lookup *L, __global uint *r, long tend, RUN_ARGS)
{
    long dep = departure_after(ch, i, L->start);
    advance(L, tend, dep, RUN_PASS);
    return lk_close(L, r, dep);
}

inline long run_lookup(__global uint *r, long tend, RUN_ARGS)
{
    lookup L;
    lk_load(&L, r, ids);
    return advance_close(&L, r, tend, RUN_PASS);
}

/* Lookup N of peer I starts at T in record R, and runs as far as it goes before TEND. */
inline long start_lookup(__global uint *r, uint n, long t, long tend, uint N, uint peers,
                         RUN_ARGS)
{
    lookup L;
    L.n = n;
    L.flags = LKF_USED;
    L.start = t;
    L.m = 0;
    L.nt = 0;
    if (peers) {
        uint4 w = philox4x32_10((uint4)(i, n, KAD_STREAM_LOOKUP, 0u), key);
        uint p = (uint)(((ulong)i + 1 + philox_uniform(w.z, (ulong)(N - 1))) % N);
        L.target = p;
        L.x = id_at(ids, p);
    } else {
        uint4 a = philox4x32_10((uint4)(i, n, KAD_STREAM_TARGET, 0u), key);
        uint4 c = philox4x32_10((uint4)(i, n, KAD_STREAM_TARGET + 1u, 0u), key);
        L.target = 0xffffffffu;
        L.x = id_of_words(a, c, B);
    }
    for (uint e = 0; e < ALPHA; e++) {
        L.ft[e] = 0;
        L.fc[e] = L.fm[e] = 0;
        L.fh[e] = FLY_FREE;
    }
    y->st[KS_EVENTS]++;
    y->st[KS_LAST] = max(y->st[KS_LAST], (ulong)t);
    merge(&L, i, 0, RUN_PASS);
    go_on(&L, t, RUN_PASS);
    return advance_close(&L, r, tend, RUN_PASS);
}

/* The work-group's least pending time MN and events EV (one of each per work-item) into
 * group_min[2 * (BASE + group)] and the word after it. */
inline void group_reduce(long mn, long ev, __global long *group_min, uint base,
                         __local long *scratch)
{
    uint l = (uint)get_local_id(0), size = (uint)get_local_size(0);
    scratch[l] = mn;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = size / 2; h > 0; h /= 2) {
        if (l < h)
            scratch[l] = min(scratch[l], scratch[l + h]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    long least = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    scratch[l] = ev;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = size / 2; h > 0; h /= 2) {
        if (l < h)
            scratch[l] += scratch[l + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) {
        ulong at = 2 * ((ulong)base + get_group_id(0));
        group_min[at] = least;
        group_min[at + 1] = scratch[0];
    }
}

/* The window of peer FIRST + g (of block BLK of P peers, S lookup records each): every event
 * before TEND. A peer that needs a record when all of its S are taken
 * stops before that start and says so in CTL_SLOTS: the host grows the records and runs the
 * window again, which runs only the starts left. */
inline void run_peer(uint g, uint first, uint P, uint blk, uint S, long tend, uint N, uint B,
                     long lmin, ulong span1, ulong d1, uint peers, uint2 key, uint rows_on,
                     uint row_cap, __global const uint *ids, __global const ulong *toff,
                     __global const ulong *lbase, __global const ushort *lpos,
                     __global const uint *contacts, __global long *pstate, __global uint *look,
                     __global ulong *stats, __global uint *hist_all, __global uint *ctl,
                     __global uint *rows, const churn_of *ch)
{
    __global long *ps = pstate + (ulong)blk * PS_WORDS * P + g;
    if (ps[(ulong)PS_NEXT * P] >= tend)
        return;
    uint i = first + g;
    __global ulong *sw = stats + (ulong)blk * KS_WORDS * P + g;
    __global uint *hist = hist_all + (ulong)blk * KAD_HIST_WORDS;
    tally tl;
    tally *y = &tl;
    for (int s = 0; s < KS_WORDS; s++)
        tl.st[s] = sw[(ulong)s * P];
    long next = KAD_NO_EVENT;
    for (uint s = 0; s < S; s++) {
        __global uint *r = look + (((ulong)blk * S + s) * P + g) * LW;
        if (r[LK_FLAGS] & LKF_USED)
            next = min(next, run_lookup(r, tend, RUN_PASS));
    }
    long start = ps[(ulong)PS_NEXT_START * P];
    ulong started = (ulong)ps[(ulong)PS_STARTED * P];
    while (start < tend) {
        if (started > 0xffffffffUL) {
            atomic_inc(&ctl[CTL_NUMBERS]);
            break;
        }
        /* churn: a start while the peer is offline does not happen (the next one still
         * comes) */
        int skip = !online(ch, i, start);
        /* a record freed by a lookup that ended (an earlier start's too) is taken again */
        __global uint *r = NULL;
        for (uint s = 0; s < S && !r && !skip; s++) {
            __global uint *c = look + (((ulong)blk * S + s) * P + g) * LW;
            if (!(c[LK_FLAGS] & LKF_USED))
                r = c;
        }
        if (!r && !skip) {
            atomic_max(&ctl[CTL_SLOTS], S + 1);
            break;
        }
        if (skip)
            y->st[KS_SKIPPED]++;
        else
            next = min(next, start_lookup(r, (uint)started, start, tend, N, peers, RUN_PASS));
        started++;
        start += started > 0xffffffffUL ? 0 : lookup_gap(key, i, (uint)started, d1);
    }
    ps[(ulong)PS_NEXT_START * P] = start;
    ps[(ulong)PS_STARTED * P] = (long)started;
    ps[(ulong)PS_NEXT * P] = min(next, start);
    for (int q = 0; q < KS_WORDS; q++)
        sw[(ulong)q * P] = tl.st[q];
}

/* One window of the peers FIRST .. FIRST + n - 1 (block BLK of P peers): run_peer each. */
__kernel void kad_window(uint first, uint n, uint blk, long tend, uint S, uint P, uint N,
                         uint B, long lmin, ulong span1, ulong d1, uint peers, uint2 key,
                         uint rows_on, uint row_cap, __global const uint *ids,
                         __global const ulong *toff, __global const ulong *lbase,
                         __global const ushort *lpos, __global const uint *contacts,
                         __global long *pstate, __global uint *look, __global ulong *stats,
                         __global uint *hist_all, __global uint *ctl, __global uint *rows,
                         uint churn, long rto, __global const long *bounds,
                         __global const ulong *boff)
{
    uint g = (uint)get_global_id(0);
    churn_of ch = {churn, rto, bounds, boff};
    if (g < n)
        run_peer(g, first, P, blk, S, tend, N, B, lmin, span1, d1, peers, key, rows_on, row_cap,
                 ids, toff, lbase, lpos, contacts, pstate, look, stats, hist_all, ctl, rows,
                 &ch);
}

/* The same, then each work-group's least pending time and events run, as kad_min gives them:
 * a window is then one launch per partition, and every work-item waits for its group's
 * slowest at the reduction (which of the two is faster is the device's to say). */
__kernel void kad_window_min(uint first, uint n, uint blk, long tend, uint S, uint P, uint N,
                             uint B, long lmin, ulong span1, ulong d1, uint peers, uint2 key,
                             uint rows_on, uint row_cap, __global const uint *ids,
                             __global const ulong *toff, __global const ulong *lbase,
                             __global const ushort *lpos, __global const uint *contacts,
                             __global long *pstate, __global uint *look, __global ulong *stats,
                             __global uint *hist_all, __global uint *ctl, __global uint *rows,
                             uint churn, long rto, __global const long *bounds,
                             __global const ulong *boff, uint base, __global long *group_min,
                             __local long *scratch)
{
    uint g = (uint)get_global_id(0);
    long mn = KAD_NO_EVENT, ev = 0;
    churn_of ch = {churn, rto, bounds, boff};
    if (g < n) {
        run_peer(g, first, P, blk, S, tend, N, B, lmin, span1, d1, peers, key, rows_on, row_cap,
                 ids, toff, lbase, lpos, contacts, pstate, look, stats, hist_all, ctl, rows,
                 &ch);
        mn = pstate[((ulong)blk * PS_WORDS + PS_NEXT) * P + g];
        ev = (long)stats[((ulong)blk * KS_WORDS + KS_EVENTS) * P + g];
    }
    group_reduce(mn, ev, group_min, base, scratch);
}

/* The start of the peers FIRST .. FIRST + n - 1 in block BLK: no lookup yet, the first start
 * at gap_0, counters at zero (the least values at their largest). Their lookup records are
 * zeroed by the host. */
__kernel void kad_start(uint first, uint n, uint P, uint blk, ulong d1, uint2 key,
                        __global long *pstate, __global ulong *stats)
{
    uint g = (uint)get_global_id(0);
    if (g >= n)
        return;
    __global long *ps = pstate + (ulong)blk * PS_WORDS * P + g;
    long start = lookup_gap(key, first + g, 0u, d1);
    ps[(ulong)PS_NEXT_START * P] = start;
    ps[(ulong)PS_STARTED * P] = 0;
    ps[(ulong)PS_NEXT * P] = start;
    __global ulong *sw = stats + (ulong)blk * KS_WORDS * P + g;
    for (int s = 0; s < KS_WORDS; s++)
        sw[(ulong)s * P] = s == KS_HOPS_MIN || s == KS_LAT_MIN ? ~0UL : 0UL;
}

/* Per work-group of the peers 0 .. n - 1 of block BLK: the least pending time and the events
 * run (at the start, before any window). */
__kernel void kad_min(uint n, uint blk, uint base, uint P, __global const long *pstate,
                      __global const ulong *stats, __global long *group_min,
                      __local long *scratch)
{
    uint g = (uint)get_global_id(0);
    long mn = KAD_NO_EVENT, ev = 0;
    if (g < n) {
        mn = pstate[((ulong)blk * PS_WORDS + PS_NEXT) * P + g];
        ev = (long)stats[((ulong)blk * KS_WORDS + KS_EVENTS) * P + g];
    }
    group_reduce(mn, ev, group_min, base, scratch);
}

/* At the end of the run: a row for every lookup still open, of the peers 0 .. n - 1 of block
 * BLK. */
__kernel void kad_open_rows(uint first, uint n, uint P, uint blk, uint S,
                            __global const uint *look, __global uint *ctl, __global uint *rows,
                            uint row_cap)
{
    uint g = (uint)get_global_id(0);
    if (g >= n)
        return;
    for (uint s = 0; s < S; s++) {
        __global const uint *r = look + (((ulong)blk * S + s) * P + g) * LW;
        if (!(r[LK_FLAGS] & LKF_USED) || (r[LK_FLAGS] & LKF_OUTCOME))
            continue;
        uint o = atomic_inc(&ctl[CTL_ROWS]);
        if (o >= row_cap)
            continue;
        __global uint *w = rows + (ulong)o * ROW_WORDS;
        w[0] = first + g;
        w[1] = r[LK_N];
        w[2] = r[LK_START];
        w[3] = r[LK_START + 1];
        w[4] = 0xffffffffu;
        w[5] = 0xffffffffu;
        w[6] = ROW_OPEN;
        w[7] = 0xffffffffu;
        w[8] = r[LK_M];
    }
}
