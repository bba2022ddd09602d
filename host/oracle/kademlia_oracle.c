/* Sequential reference implementation of the Kademlia model (kademlia_oracle.h,
 * docs/models/kademlia.md).
 *
 * Ids are 160-bit, left-aligned (an id of B bits is its first B bits, the rest zero): their
 * order and their XOR distances compare as those of the B-bit integers. The events run from
 * one heap in (t, i, n, r, kind) order: within one peer that is the model's order, and between
 * peers any order is valid (lookups never meet, and a request does not change the peer that
 * answers it). A lookup keeps only its k closest peers (the model's "top"), which the model
 * allows; a request's response computes the answering peer's closest contacts when it runs
 * (the tables never change, so it is the list the peer sent).
 *
 * With churn each peer's period boundaries are computed up to T before the run; an event runs
 * only when the peer where it happens (the initiator, or the peer a request reaches) is
 * online then, and each departure before T is an entry of the heap that fails the lookups its
 * peer has open (none of them an event). */
#include "oracle/kademlia_oracle.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define WORDS 5 /* 160 bits */

typedef struct kid {
    uint32_t w[WORDS];
} kid;

/* ---- Philox4x32-10 ---------------------------------------------------------------------- */

static void philox(uint64_t seed, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                   uint32_t out[4])
{
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* The first BITS bits of the words FIRST then SECOND, left-aligned. */
static kid id_from(int bits, const uint32_t first[4], const uint32_t second[4])
{
    kid x;
    for (int j = 0; j < WORDS; j++) {
        uint32_t v = j < 4 ? first[j] : second[j - 4];
        int keep = bits - 32 * j;
        x.w[j] = keep >= 32 ? v : keep <= 0 ? 0 : v & ~(0xFFFFFFFFu >> keep);
    }
    return x;
}

static int kid_cmp(const kid *a, const kid *b)
{
    for (int j = 0; j < WORDS; j++)
        if (a->w[j] != b->w[j])
            return a->w[j] < b->w[j] ? -1 : 1;
    return 0;
}

static kid kid_xor(const kid *a, const kid *b)
{
    kid d;
    for (int j = 0; j < WORDS; j++)
        d.w[j] = a->w[j] ^ b->w[j];
    return d;
}

/* Bit Q of X, counted from the most significant (Q = 0). */
static int kid_bit(const kid *x, int q)
{
    return (int)((x->w[q >> 5] >> (31 - (q & 31))) & 1u);
}

/* ---- the run's state ---------------------------------------------------------------------- */

enum { K_START = 0, K_REQUEST = 1, K_RESPONSE = 2, K_TIMEOUT = 3, K_LEAVE = 4 };
enum { FRESH = 0, ASKED = 1, ANSWERED = 2, GAVE_UP = 3 /* the model's "failed" peer */ };
enum { OPEN = 0, COMPLETED = 1, FAILED = 2 };

typedef struct event {
    int64_t t;
    uint64_t n;      /* the lookup's number at its initiator */
    uint32_t i;      /* its initiator */
    int32_t r;       /* -1: the start; else the request's m */
    int32_t kind;
    uint32_t peer;   /* the peer asked (request), or that answers (response) */
    uint32_t slot;   /* the lookup's state */
    uint32_t depth;  /* the asked peer's depth, echoed */
} event;

typedef struct entry {
    kid dist;        /* its id XOR the target */
    uint32_t peer;
    uint8_t state;
    uint32_t depth;
} entry;

typedef struct lookup {
    uint32_t i;
    uint64_t n;
    kid target;
    int64_t target_peer; /* -1: a random id */
    int64_t start, end;
    int f, m, pending, outcome, n_top, in_use;
    uint32_t hops, found;
    entry top[KAD_ORACLE_MAX_K];
} lookup;

typedef struct row {
    uint32_t i;
    uint64_t n;
    int64_t start, end;
    kid target;
    int outcome, m;
    int64_t hops;
    uint32_t found;
} row;

typedef struct run {
    const kad_oracle_params *p;
    kad_oracle_result *r;
    kid *ids;
    uint64_t *off;        /* table of peer j: contacts[off[j] .. off[j + 1]) */
    uint32_t *contacts;
    /* its buckets in the order of the depth q of their first differing bit (bucket B - 1 - q):
     * bucket q of peer j starts at contacts[off[j] + lpos[lbase[j] + q]], for q below
     * lbase[j + 1] - lbase[j] - 1 (deeper buckets are empty) */
    uint64_t *lbase;
    uint16_t *lpos;
    event *heap;
    size_t n_heap, cap_heap;
    lookup *pool;
    uint32_t *free_slots;
    size_t n_pool, n_free;
    row *rows;
    size_t n_rows, cap_rows;
    int want_rows;
    /* churn: peer j's boundaries b_1, b_2, ... (to the first past T) are
     * bounds[boff[j] .. boff[j + 1]); its lookups started since it last left are
     * mine[j], n_mine[j] of them (slot and number: a slot may serve another lookup since) */
    int64_t *bounds;
    size_t *boff;
    struct mine {
        uint32_t slot;
        uint64_t n;
    } **mine;
    size_t *n_mine, *cap_mine;
    char *err;
    size_t err_cap;
} run;

static int fail(run *s, int code, const char *fmt, ...)
{
    if (s->err && s->err_cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err, s->err_cap, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ---- ids ----------------------------------------------------------------------------------- */

static uint64_t kid_hash(const kid *x)
{
    uint64_t h = 0x9E3779B97F4A7C15u;
    for (int j = 0; j < WORDS; j++)
        h = (h ^ x->w[j]) * 0xBF58476D1CE4E5B9u;
    return h ^ (h >> 31);
}

/* Peer i's id: its first attempt that no earlier peer holds (a hash set of the ids so far). */
static int make_ids(run *s)
{
    const kad_oracle_params *p = s->p;
    size_t n = (size_t)p->peers, cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    int64_t *set = malloc(cap * sizeof *set); /* peer index, -1 empty */
    s->ids = malloc(n * sizeof *s->ids);
    if (!set || !s->ids) {
        free(set);
        return fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for %zu ids", n);
    }
    for (size_t j = 0; j < cap; j++)
        set[j] = -1;
    for (size_t i = 0; i < n; i++) {
        for (uint32_t a = 0;; a++) {
            uint32_t w0[4], w1[4];
            philox(p->seed, (uint32_t)i, a, 40, 0, w0);
            philox(p->seed, (uint32_t)i, a, 40, 1, w1);
            kid x = id_from(p->id_bits, w0, w1);
            size_t h = (size_t)kid_hash(&x) & (cap - 1);
            while (set[h] >= 0 && kid_cmp(&s->ids[set[h]], &x) != 0)
                h = (h + 1) & (cap - 1);
            if (set[h] < 0) {
                set[h] = (int64_t)i;
                s->ids[i] = x;
                break;
            }
            s->r->id_redraws++;
        }
    }
    free(set);
    return KAD_ORACLE_OK;
}

/* ---- routing tables ------------------------------------------------------------------------ */

typedef struct sorted_id {
    kid id;
    uint32_t peer;
} sorted_id;

static int cmp_sorted(const void *a, const void *b)
{
    return kid_cmp(&((const sorted_id *)a)->id, &((const sorted_id *)b)->id);
}

/* The first index of [LO, HI) whose id has bit Q set (they all share the bits before Q). */
static size_t split_at(const sorted_id *v, size_t lo, size_t hi, int q)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (kid_bit(&v[mid].id, q))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Appends to OUT the NEED peers of [LO, HI) closest to X (they share the bits before Q): the
 * half whose bit Q equals X's first, the other only while fewer were taken. Returns how many. */
static size_t take_closest(const sorted_id *v, size_t lo, size_t hi, int q, int bits,
                           const kid *x, size_t need, uint32_t *out)
{
    if (need == 0 || lo >= hi)
        return 0;
    if (hi - lo <= need || q >= bits) {
        size_t got = hi - lo < need ? hi - lo : need;
        for (size_t j = 0; j < got; j++)
            out[j] = v[lo + j].peer;
        return got;
    }
    size_t mid = split_at(v, lo, hi, q);
    int bit = kid_bit(x, q);
    size_t got = bit ? take_closest(v, mid, hi, q + 1, bits, x, need, out)
                     : take_closest(v, lo, mid, q + 1, bits, x, need, out);
    if (got < need)
        got += bit ? take_closest(v, lo, mid, q + 1, bits, x, need - got, out + got)
                   : take_closest(v, mid, hi, q + 1, bits, x, need - got, out + got);
    return got;
}

/* BUF, an array of *CAP elements of SIZE bytes, doubled (from 0: 1024 of them); NULL when out
 * of memory (BUF and *CAP kept). */
static void *grow(void *buf, size_t *cap, size_t size)
{
    size_t want = *cap ? 2 * *cap : 1024;
    void *grown = realloc(buf, want * size);
    if (grown)
        *cap = want;
    return grown;
}

/* Every peer's buckets from the sorted ids: at each depth Q the peers sharing its first Q
 * bits are a run of them; the part of it with the other bit Q is bucket B - 1 - Q. */
static int make_tables(run *s)
{
    const kad_oracle_params *p = s->p;
    size_t n = (size_t)p->peers, k = (size_t)p->k, cap = n * k * 4 + 16, used = 0;
    size_t lcap = n * 24 + 16, lused = 0;
    sorted_id *v = malloc(n * sizeof *v);
    size_t *pos = malloc(n * sizeof *pos);
    s->off = malloc((n + 1) * sizeof *s->off);
    s->contacts = malloc(cap * sizeof *s->contacts);
    s->lbase = malloc((n + 1) * sizeof *s->lbase);
    s->lpos = malloc(lcap * sizeof *s->lpos);
    if (!v || !pos || !s->off || !s->contacts || !s->lbase || !s->lpos) {
        free(v);
        free(pos);
        return fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for the routing tables");
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (sorted_id){s->ids[i], (uint32_t)i};
    qsort(v, n, sizeof *v, cmp_sorted);
    for (size_t j = 0; j < n; j++)
        pos[v[j].peer] = j;
    int rc = KAD_ORACLE_OK;
    for (size_t i = 0; i < n && rc == KAD_ORACLE_OK; i++) {
        s->off[i] = used;
        s->lbase[i] = lused;
        const kid *me = &s->ids[i];
        size_t lo = 0, hi = n;
        for (int q = 0; q < p->id_bits && hi - lo > 1; q++) {
            uint16_t *lp = lused + 2 > lcap ? grow(s->lpos, &lcap, sizeof *lp) : s->lpos;
            if (!lp) {
                rc = fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for the routing tables");
                break;
            }
            s->lpos = lp;
            s->lpos[lused++] = (uint16_t)(used - s->off[i]);
            size_t mid = split_at(v, lo, hi, q);
            size_t olo = pos[i] < mid ? mid : lo, ohi = pos[i] < mid ? hi : mid;
            if (pos[i] < mid)
                hi = mid;
            else
                lo = mid;
            uint32_t *ct = used + k > cap ? grow(s->contacts, &cap, sizeof *ct) : s->contacts;
            if (!ct) {
                rc = fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for the routing tables");
                break;
            }
            s->contacts = ct;
            used += take_closest(v, olo, ohi, q + 1, p->id_bits, me, k, s->contacts + used);
        }
        if (rc == KAD_ORACLE_OK) /* (room: the loop kept two) */
            s->lpos[lused++] = (uint16_t)(used - s->off[i]); /* (at most 160 x 64 a peer) */
    }
    s->off[n] = used;
    s->lbase[n] = lused;
    s->r->table_entries = (int64_t)used;
    free(v);
    free(pos);
    return rc;
}

/* Keeps in OUT (N of at most K, closest first) the contacts [FROM, TO) of the tables. */
static void select_closest(const run *s, uint64_t from, uint64_t to, const kid *x, entry *out,
                           int *n)
{
    int k = s->p->k;
    for (uint64_t e = from; e < to; e++) {
        uint32_t q = s->contacts[e];
        kid d = kid_xor(&s->ids[q], x);
        if (*n == k && kid_cmp(&d, &out[*n - 1].dist) > 0)
            continue;
        int at = *n < k ? (*n)++ : *n - 1;
        while (at > 0 && kid_cmp(&d, &out[at - 1].dist) < 0) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = (entry){d, q, FRESH, 0};
    }
}

/* The k contacts of peer C's table closest to X, closest first, into OUT; returns how many.
 * With Q the depth of the first bit where X differs from C's id, the closest are in bucket Q
 * (they differ from C there too: below 2^(B-1-Q) from X), then in the deeper buckets (at
 * least that), then in buckets Q - 1, Q - 2, ..., 0, each farther than all before it. */
static int closest_of(const run *s, uint32_t c, const kid *x, entry *out)
{
    uint64_t base = s->off[c];
    const uint16_t *lp = s->lpos + s->lbase[c];
    int levels = (int)(s->lbase[c + 1] - s->lbase[c]) - 1, q = 0, n = 0;
    while (q < levels && kid_bit(x, q) == kid_bit(&s->ids[c], q))
        q++;
    if (q >= levels) /* X is closer to C than any contact: every bucket, nearest first */
        q = levels;
    select_closest(s, base + lp[q < levels ? q : levels], base + lp[levels], x, out, &n);
    for (int j = (q < levels ? q : levels) - 1; j >= 0 && n < s->p->k; j--)
        select_closest(s, base + lp[j], base + lp[j + 1], x, out, &n);
    return n;
}

/* ---- draws --------------------------------------------------------------------------------- */

static int64_t latency(const run *s, uint32_t a, uint32_t b)
{
    uint32_t w[4];
    philox(s->p->seed, a < b ? a : b, a < b ? b : a, 44, 0, w);
    uint64_t span = (uint64_t)(s->p->lat_max_ns - s->p->lat_min_ns) + 1;
    return s->p->lat_min_ns + (int64_t)(((uint64_t)w[0] * span) >> 32);
}

/* Peer I's N-th lookup: its gap, and its target (and the target's peer, -1 for a random id). */
static int64_t lookup_draw(const run *s, uint32_t i, uint64_t n, kid *target, int64_t *peer)
{
    const kad_oracle_params *p = s->p;
    uint32_t w[4];
    philox(p->seed, i, (uint32_t)n, 41, (uint32_t)(n >> 32), w);
    unsigned __int128 u = ((unsigned __int128)w[1] << 32) | w[0];
    int64_t gap = (int64_t)((u * (unsigned __int128)((uint64_t)p->gap_max_ns + 1)) >> 64);
    if (target) {
        if (p->targets_peers) {
            uint64_t other = ((uint64_t)w[2] * (uint64_t)(p->peers - 1)) >> 32;
            *peer = (int64_t)(((uint64_t)i + 1 + other) % (uint64_t)p->peers);
            *target = s->ids[*peer];
        } else {
            uint32_t a[4], b[4];
            philox(p->seed, i, (uint32_t)n, 42, (uint32_t)(n >> 32), a);
            philox(p->seed, i, (uint32_t)n, 43, (uint32_t)(n >> 32), b);
            *target = id_from(p->id_bits, a, b);
            *peer = -1;
        }
    }
    return gap;
}

/* ---- churn -------------------------------------------------------------------------------- */

/* The exponential quantiles of mean M ns (PHOLD's table, docs/models/phold.md). */
static void exp_quantiles(int64_t m, int64_t *q)
{
    for (int j = 0; j < 65536; j++)
        q[j] = (int64_t)llround(-(double)m * log1p(-((double)j + 0.5) / 65536.0));
}

/* Every peer's period boundaries up to the first past T. */
static int make_periods(run *s)
{
    const kad_oracle_params *p = s->p;
    size_t n = (size_t)p->peers, cap = 0, used = 0;
    int64_t *q = malloc(2 * 65536 * sizeof *q);
    s->boff = malloc((n + 1) * sizeof *s->boff);
    s->mine = calloc(n, sizeof(struct mine *));
    s->n_mine = calloc(n, sizeof *s->n_mine);
    s->cap_mine = calloc(n, sizeof *s->cap_mine);
    if (!q || !s->boff || !s->mine || !s->n_mine || !s->cap_mine) {
        free(q);
        return fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for the peers' periods");
    }
    exp_quantiles(p->session_ns, q);
    exp_quantiles(p->offline_ns, q + 65536);
    for (size_t i = 0; i < n; i++) {
        s->boff[i] = used;
        int64_t b = 0;
        for (uint32_t per = 0; b <= p->duration_ns; per++) {
            uint32_t w[4];
            philox(p->seed, (uint32_t)i, per, 45, 0, w);
            int64_t d = q[(per & 1u) * 65536 + (w[0] >> 16)];
            b += d > 1 ? d : 1;
            int64_t *g = used == cap ? grow(s->bounds, &cap, sizeof *g) : s->bounds;
            if (!g) {
                free(q);
                return fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for the peers' periods");
            }
            s->bounds = g;
            s->bounds[used++] = b;
        }
    }
    s->boff[n] = used;
    free(q);
    return KAD_ORACLE_OK;
}

/* Whether peer I is online at T: an even count of its boundaries at or before T. */
static int online(const run *s, uint32_t i, int64_t t)
{
    if (s->p->session_ns == 0)
        return 1;
    size_t lo = s->boff[i], hi = s->boff[i + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->bounds[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo - s->boff[i]) % 2 == 0;
}

/* ---- the event heap ------------------------------------------------------------------------ */

static int ev_less(const event *a, const event *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->i != b->i)
        return a->i < b->i;
    if (a->n != b->n)
        return a->n < b->n;
    if (a->r != b->r)
        return a->r < b->r;
    return a->kind < b->kind;
}

static int push(run *s, event e)
{
    if (e.t >= s->p->duration_ns)
        return KAD_ORACLE_OK; /* never runs */
    event *h = s->n_heap == s->cap_heap ? grow(s->heap, &s->cap_heap, sizeof *h) : s->heap;
    if (!h)
        return fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for the pending events");
    s->heap = h;
    size_t at = s->n_heap++;
    while (at > 0 && ev_less(&e, &s->heap[(at - 1) / 2])) {
        s->heap[at] = s->heap[(at - 1) / 2];
        at = (at - 1) / 2;
    }
    s->heap[at] = e;
    return KAD_ORACLE_OK;
}

static event pop(run *s)
{
    event top = s->heap[0], last = s->heap[--s->n_heap];
    size_t at = 0;
    for (;;) {
        size_t c = 2 * at + 1;
        if (c >= s->n_heap)
            break;
        if (c + 1 < s->n_heap && ev_less(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!ev_less(&s->heap[c], &last))
            break;
        s->heap[at] = s->heap[c];
        at = c;
    }
    if (s->n_heap > 0)
        s->heap[at] = last;
    return top;
}

/* ---- lookups ------------------------------------------------------------------------------- */

static int new_slot(run *s, uint32_t *slot)
{
    if (s->n_free > 0) {
        *slot = s->free_slots[--s->n_free];
        return KAD_ORACLE_OK;
    }
    if ((s->n_pool & (s->n_pool - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
        size_t cap = s->n_pool ? 2 * s->n_pool : 1;
        lookup *grown = realloc(s->pool, cap * sizeof *grown);
        uint32_t *fs = grown ? realloc(s->free_slots, cap * sizeof *fs) : NULL;
        if (grown)
            s->pool = grown;
        if (!fs)
            return fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for the lookups");
        s->free_slots = fs;
    }
    *slot = (uint32_t)s->n_pool++;
    return KAD_ORACLE_OK;
}

static int keep_row(run *s, const lookup *lk)
{
    if (!s->want_rows)
        return KAD_ORACLE_OK;
    row *w = s->n_rows == s->cap_rows ? grow(s->rows, &s->cap_rows, sizeof *w) : s->rows;
    if (!w)
        return fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for the lookups' rows");
    s->rows = w;
    s->rows[s->n_rows++] = (row){lk->i, lk->n, lk->start, lk->outcome ? lk->end : -1,
                                 lk->target, lk->outcome, lk->m,
                                 lk->outcome == COMPLETED ? (int64_t)lk->hops : -1, lk->found};
    return KAD_ORACLE_OK;
}

/* A lookup whose messages have all come back and that has ended gives its slot back. */
static int retire(run *s, uint32_t slot)
{
    lookup *lk = &s->pool[slot];
    if (lk->outcome == OPEN || lk->pending > 0)
        return KAD_ORACLE_OK;
    lk->in_use = 0;
    s->free_slots[s->n_free++] = slot;
    return keep_row(s, lk);
}

/* The lookup in SLOT fails at T. */
static int lookup_fails(run *s, uint32_t slot, int64_t t)
{
    lookup *lk = &s->pool[slot];
    lk->outcome = FAILED;
    lk->end = t;
    s->r->lookups_failed++;
    return retire(s, slot);
}

/* Step 4 of the model ("go on") at time T: when no member of top is fresh or asked, the
 * lookup completes (some member answered: the closest of them gives the hops) or fails. */
static int go_on(run *s, uint32_t slot, int64_t t)
{
    lookup *lk = &s->pool[slot];
    kad_oracle_result *r = s->r;
    int live = 0, answered = -1;
    for (int j = 0; j < lk->n_top; j++) {
        live |= lk->top[j].state == FRESH || lk->top[j].state == ASKED;
        if (answered < 0 && lk->top[j].state == ANSWERED)
            answered = j;
    }
    if (!live && answered < 0)
        return lookup_fails(s, slot, t);
    if (!live) {
        lk->outcome = COMPLETED;
        lk->end = t;
        lk->hops = lk->top[answered].depth;
        /* the target's peer, when in top, is its first (distance 0) */
        lk->found = lk->target_peer >= 0 && lk->n_top > 0 &&
                    lk->top[0].peer == (uint32_t)lk->target_peer &&
                    lk->top[0].state == ANSWERED;
        int64_t lat = t - lk->start;
        r->lookups_completed++;
        r->lookups_found += lk->found;
        r->hops_sum += lk->hops;
        r->hops_min = r->lookups_completed == 1 || lk->hops < r->hops_min ? lk->hops : r->hops_min;
        r->hops_max = lk->hops > r->hops_max ? lk->hops : r->hops_max;
        r->latency_sum_ns += lat;
        r->latency_min_ns = r->lookups_completed == 1 || lat < r->latency_min_ns
                                ? lat : r->latency_min_ns;
        r->latency_max_ns = lat > r->latency_max_ns ? lat : r->latency_max_ns;
        uint32_t hbin = lk->hops < KAD_ORACLE_HOPS_BINS ? lk->hops : KAD_ORACLE_HOPS_BINS;
        if (hbin > 0) /* (a depth is 1 at least) */
            r->hops_histogram[hbin - 1]++;
        int64_t bin = lat / s->p->lat_min_ns;
        r->latency_histogram[bin < KAD_ORACLE_LATENCY_BINS - 1 ? bin
                                                                : KAD_ORACLE_LATENCY_BINS - 1]++;
        return retire(s, slot);
    }
    while (lk->f < s->p->alpha) {
        int c = -1;
        for (int j = 0; j < lk->n_top && c < 0; j++)
            if (lk->top[j].state == FRESH)
                c = j;
        if (c < 0)
            break;
        lk->top[c].state = ASKED;
        event e = {t + latency(s, lk->i, lk->top[c].peer), lk->n, lk->i, lk->m, K_REQUEST,
                   lk->top[c].peer, slot, lk->top[c].depth};
        int rc = push(s, e);
        if (rc)
            return rc;
        s->r->messages++;
        lk->m++;
        lk->f++;
        lk->pending++;
    }
    return KAD_ORACLE_OK;
}

static int start_lookup(run *s, const event *e)
{
    kid target;
    int64_t peer = -1;
    (void)lookup_draw(s, e->i, e->n, &target, &peer);
    int64_t next = e->t + lookup_draw(s, e->i, e->n + 1, NULL, NULL);
    int rc = push(s, (event){next, e->n + 1, e->i, -1, K_START, e->i, 0, 0});
    uint32_t slot = 0;
    if (!rc)
        rc = new_slot(s, &slot);
    if (rc)
        return rc;
    lookup *lk = &s->pool[slot];
    memset(lk, 0, sizeof *lk);
    lk->in_use = 1;
    lk->i = e->i;
    lk->n = e->n;
    lk->target = target;
    lk->target_peer = peer;
    lk->start = e->t;
    lk->n_top = closest_of(s, e->i, &target, lk->top);
    for (int j = 0; j < lk->n_top; j++)
        lk->top[j].depth = 1;
    s->r->lookups_started++;
    if (s->p->session_ns > 0) { /* its peer's departure fails it */
        size_t *nm = &s->n_mine[e->i], *cm = &s->cap_mine[e->i];
        struct mine *g = *nm == *cm ? grow(s->mine[e->i], cm, sizeof *g) : s->mine[e->i];
        if (!g)
            return fail(s, KAD_ORACLE_ERR_NOMEM, "out of memory for the lookups");
        s->mine[e->i] = g;
        g[(*nm)++] = (struct mine){slot, e->n};
    }
    return go_on(s, slot, e->t);
}

/* Peer E->i leaves at E->t: its lookups that have not ended fail there. */
static int leave(run *s, const event *e)
{
    int rc = KAD_ORACLE_OK;
    for (size_t j = 0; j < s->n_mine[e->i] && rc == KAD_ORACLE_OK; j++) {
        const struct mine *w = &s->mine[e->i][j];
        const lookup *lk = &s->pool[w->slot];
        if (lk->in_use && lk->i == e->i && lk->n == w->n && lk->outcome == OPEN)
            rc = lookup_fails(s, w->slot, e->t);
    }
    s->n_mine[e->i] = 0;
    return rc;
}

/* A response or a timeout E of a request reaches its initiator: one message fewer pending,
 * and when the lookup is open one request fewer in flight and the peer asked in STATE.
 * Returns whether the lookup is open; otherwise *RC is what giving its slot back gave. */
static int came_back(run *s, const event *e, uint8_t state, int *rc)
{
    lookup *lk = &s->pool[e->slot];
    lk->pending--;
    if (lk->outcome != OPEN) {
        *rc = retire(s, e->slot);
        return 0;
    }
    lk->f--;
    for (int j = 0; j < lk->n_top; j++)
        if (lk->top[j].peer == e->peer)
            lk->top[j].state = state;
    return 1;
}

/* The request's timeout (peer E->peer was offline when it arrived). */
static int timed_out(run *s, const event *e)
{
    int rc = KAD_ORACLE_OK;
    return came_back(s, e, GAVE_UP, &rc) ? go_on(s, e->slot, e->t) : rc;
}

/* An event at a peer that is offline at its time: nothing runs. A request's initiator gets
 * its timeout, a start its next start; a response or a timeout is lost. */
static int at_offline(run *s, const event *e)
{
    if (e->kind == K_REQUEST) {
        int64_t sent = e->t - latency(s, e->i, e->peer);
        return push(s, (event){sent + s->p->timeout_ns, e->n, e->i, e->r, K_TIMEOUT, e->peer,
                               e->slot, e->depth});
    }
    if (e->kind == K_START) {
        int64_t next = e->t + lookup_draw(s, e->i, e->n + 1, NULL, NULL);
        return push(s, (event){next, e->n + 1, e->i, -1, K_START, e->i, 0, 0});
    }
    lookup *lk = &s->pool[e->slot];
    lk->pending--;
    return retire(s, e->slot);
}

/* Step 3: the response of peer E->peer to request E->r of the lookup in E->slot. */
static int response(run *s, const event *e)
{
    int rc = KAD_ORACLE_OK;
    if (!came_back(s, e, ANSWERED, &rc))
        return rc;
    lookup *lk = &s->pool[e->slot];
    entry q[KAD_ORACLE_MAX_K];
    int nq = closest_of(s, e->peer, &lk->target, q);
    int k = s->p->k;
    for (int a = 0; a < nq; a++) {
        if (q[a].peer == lk->i)
            continue;
        kid d = kid_xor(&s->ids[q[a].peer], &lk->target);
        int known = 0, at = lk->n_top;
        for (int j = 0; j < lk->n_top && !known; j++)
            known = lk->top[j].peer == q[a].peer;
        /* a peer not in top now is farther than its k-th, or new: it joins only if closer */
        if (known || (lk->n_top == k && kid_cmp(&d, &lk->top[k - 1].dist) > 0))
            continue;
        if (lk->n_top < k)
            lk->n_top++;
        else
            at = k - 1;
        while (at > 0 && kid_cmp(&d, &lk->top[at - 1].dist) < 0) {
            lk->top[at] = lk->top[at - 1];
            at--;
        }
        lk->top[at] = (entry){d, q[a].peer, FRESH, e->depth + 1};
    }
    return go_on(s, e->slot, e->t);
}

/* ---- the run ------------------------------------------------------------------------------- */

static int cmp_rows(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

static int write_rows(run *s, FILE *out)
{
    for (size_t j = 0; j < s->n_pool; j++)
        if (s->pool[j].in_use && keep_row(s, &s->pool[j]) != KAD_ORACLE_OK)
            return KAD_ORACLE_ERR_NOMEM;
    qsort(s->rows, s->n_rows, sizeof *s->rows, cmp_rows);
    static const char *const outcome[] = {"open", "completed", "failed"};
    int digits = (s->p->id_bits + 3) / 4;
    int ok = fprintf(out, "origin,number,start_ns,target,outcome,end_ns,hops,requests,found\n") > 0;
    for (size_t j = 0; j < s->n_rows && ok; j++) {
        const row *w = &s->rows[j];
        /* the B-bit integer, ceil(B / 4) digits: digit D holds its bits 4 (digits - 1 - D)
         * and up, its bit BIT being the left-aligned id's bit B - 1 - BIT from the top */
        char hex[48];
        for (int d = 0; d < digits; d++) {
            int v = 0;
            for (int b = 3; b >= 0; b--) {
                int bit = 4 * (digits - 1 - d) + b;
                int top = s->p->id_bits - 1 - bit;
                v = 2 * v + (bit < s->p->id_bits ? kid_bit(&w->target, top) : 0);
            }
            hex[d] = "0123456789abcdef"[v];
        }
        hex[digits] = 0;
        ok = fprintf(out, "%" PRIu32 ",%" PRIu64 ",%" PRId64 ",%s,%s,%" PRId64 ",%" PRId64
                     ",%d,%" PRIu32 "\n", w->i, w->n, w->start, hex, outcome[w->outcome],
                     w->end, w->hops, w->m, w->found) > 0;
    }
    return ok ? KAD_ORACLE_OK : fail(s, KAD_ORACLE_ERR_IO, "cannot write the lookups' rows");
}

static int check_params(run *s)
{
    const kad_oracle_params *p = s->p;
    if (p->peers < 2 || p->peers > INT32_MAX)
        return fail(s, KAD_ORACLE_ERR_INPUT, "peers = %" PRId64 ": expected 2 .. 2^31 - 1",
                    p->peers);
    if (p->id_bits < 32 || p->id_bits > KAD_ORACLE_MAX_BITS)
        return fail(s, KAD_ORACLE_ERR_INPUT, "id_bits = %d: expected 32 .. 160", p->id_bits);
    if (p->k < 1 || p->k > KAD_ORACLE_MAX_K || p->alpha < 1 || p->alpha > p->k)
        return fail(s, KAD_ORACLE_ERR_INPUT, "bucket_size = %d, alpha = %d: expected 1 <= "
                    "alpha <= bucket_size <= 64", p->k, p->alpha);
    if (p->gap_max_ns <= 0 || p->gap_max_ns >= INT64_MAX / 4 || p->lat_min_ns <= 0 ||
        p->lat_max_ns < p->lat_min_ns || p->lat_max_ns - p->lat_min_ns > (int64_t)UINT32_MAX - 1 ||
        p->duration_ns <= 0 || p->duration_ns >= INT64_MAX / 4)
        return fail(s, KAD_ORACLE_ERR_INPUT, "the gaps, latencies or duration are outside the "
                    "model's ranges (docs/models/kademlia.md)");
    if (p->session_ns < 0 || (p->session_ns > 0 &&
        (p->offline_ns <= 0 || p->timeout_ns < p->lat_max_ns + p->lat_min_ns ||
         p->session_ns >= INT64_MAX / 16 || p->offline_ns >= INT64_MAX / 16 ||
         p->timeout_ns >= INT64_MAX / 4)))
        return fail(s, KAD_ORACLE_ERR_INPUT, "churn: expected session >= 0 and, with churn, an "
                    "offline mean > 0 and a timeout >= latency_max + latency_min");
    return KAD_ORACLE_OK;
}

int kad_oracle_run(const kad_oracle_params *p, kad_oracle_result *r, FILE *lookups, char *err,
                   size_t cap)
{
    memset(r, 0, sizeof *r);
    run s = {0};
    s.p = p;
    s.r = r;
    s.err = err;
    s.err_cap = cap;
    s.want_rows = lookups != NULL;
    int rc = check_params(&s);
    if (!rc)
        rc = make_ids(&s);
    if (!rc)
        rc = make_tables(&s);
    if (!rc && p->session_ns > 0)
        rc = make_periods(&s);
    for (uint32_t i = 0; !rc && i < (uint32_t)p->peers; i++) {
        rc = push(&s, (event){lookup_draw(&s, i, 0, NULL, NULL), 0, i, -1, K_START, i, 0, 0});
        for (size_t b = p->session_ns ? s.boff[i] : 0; !rc && b < (p->session_ns ? s.boff[i + 1]
                                                                                : 0); b += 2)
            rc = push(&s, (event){s.bounds[b], 0, i, -2, K_LEAVE, i, 0, 0}); /* b_1, b_3, ... */
    }
    while (!rc && s.n_heap > 0) {
        event e = pop(&s);
        if (e.kind == K_LEAVE) {
            rc = leave(&s, &e);
            continue;
        }
        if (!online(&s, e.kind == K_REQUEST ? e.peer : e.i, e.t)) {
            rc = at_offline(&s, &e);
            continue;
        }
        r->events++;
        r->last_time_ns = e.t;
        if (e.kind == K_START)
            rc = start_lookup(&s, &e);
        else if (e.kind == K_REQUEST) /* answered at once: the response, sent */
            rc = (r->messages++, push(&s, (event){e.t + latency(&s, e.peer, e.i), e.n, e.i, e.r,
                                                 K_RESPONSE, e.peer, e.slot, e.depth}));
        else if (e.kind == K_RESPONSE)
            rc = response(&s, &e);
        else
            rc = timed_out(&s, &e);
    }
    r->peers_alive = 0;
    for (uint32_t i = 0; !rc && i < (uint32_t)p->peers; i++)
        r->peers_alive += online(&s, i, p->duration_ns);
    if (!rc && lookups)
        rc = write_rows(&s, lookups);
    free(s.ids);
    free(s.off);
    free(s.contacts);
    free(s.lbase);
    free(s.lpos);
    free(s.heap);
    free(s.pool);
    free(s.free_slots);
    free(s.rows);
    free(s.bounds);
    free(s.boff);
    for (size_t i = 0; s.mine && i < (size_t)p->peers; i++)
        free(s.mine[i]);
    free(s.mine);
    free(s.n_mine);
    free(s.cap_mine);
    return rc;
}

static void write_array(FILE *out, const char *name, const int64_t *v, int n)
{
    fprintf(out, "  \"%s\": [", name);
    for (int j = 0; j < n; j++)
        fprintf(out, "%s%" PRId64, j ? ", " : "", v[j]);
    fprintf(out, "],\n");
}

void kad_oracle_write_json(const kad_oracle_params *p, const kad_oracle_result *r, FILE *out)
{
    fprintf(out, "{\n  \"model\": \"kademlia\",\n  \"seed\": %" PRIu64 ",\n", p->seed);
    const struct {
        const char *name;
        int64_t v;
    } m[] = {{"peers", p->peers}, {"id_bits", p->id_bits}, {"bucket_size", p->k},
             {"alpha", p->alpha}, {"lookups_started", r->lookups_started},
             {"lookups_completed", r->lookups_completed}, {"lookups_failed", r->lookups_failed},
             {"lookups_found", r->lookups_found}, {"messages", r->messages},
             {"events", r->events}, {"hops_sum", r->hops_sum}, {"hops_min", r->hops_min},
             {"hops_max", r->hops_max}, {"latency_sum_ns", r->latency_sum_ns},
             {"latency_min_ns", r->latency_min_ns}, {"latency_max_ns", r->latency_max_ns}};
    for (size_t j = 0; j < sizeof m / sizeof m[0]; j++)
        fprintf(out, "  \"%s\": %" PRId64 ",\n", m[j].name, m[j].v);
    write_array(out, "hops_histogram", r->hops_histogram, KAD_ORACLE_HOPS_BINS);
    write_array(out, "latency_histogram", r->latency_histogram, KAD_ORACLE_LATENCY_BINS);
    fprintf(out, "  \"peers_alive\": %" PRId64 ",\n  \"last_time_ns\": %" PRId64 ",\n",
            r->peers_alive, r->last_time_ns);
    fprintf(out, "  \"contract\": [\"model\", \"seed\"");
    for (size_t j = 0; j < sizeof m / sizeof m[0]; j++)
        fprintf(out, ", \"%s\"", m[j].name);
    fprintf(out, ", \"hops_histogram\", \"latency_histogram\", \"peers_alive\", "
                 "\"last_time_ns\"]\n}\n");
}
