/* Sequential reference implementation of the PHOLD model (docs/models/phold.md).
 *
 * The event queues. Every new event lands at least A (the lookahead) after the event that
 * creates it, and only the order of each LP's own events matters (an LP's draws depend on its
 * own count k only). So a schedule is valid when each LP executes its events in (t, origin,
 * serial) order and no event runs before one that could still create an earlier event for
 * its LP: an event (t, o, s) may run once every event before t - A has run. Two queues give
 * such a schedule:
 *
 * - Buckets (the default): bucket b holds the pending events with t in [b A, (b + 1) A). An
 *   event of bucket b creates its successor in bucket b + 1 or later, never in b, so bucket b
 *   is complete once the buckets before it have run, and nothing it creates lands in it: it
 *   is sorted by (lp, t, origin, serial) and executed in that order (LP-major, so that the
 *   LPs' counters are visited in order). The successor lands at most D = 2 + EXP[65535] / A
 *   buckets ahead, so a ring of R > D buckets covers every pending event. Buckets are chains of fixed-size
 *   blocks taken from a free list, so memory stays at about one copy of the pending events
 *   (no per-bucket capacity that grows and stays). Appends are sequential and each bucket is
 *   sorted by a radix sort on its times and LPs: a few streaming passes per event instead of the
 *   cache misses of a heap of millions of events (phold.ini keeps 16.8 million pending).
 * - A 4-ary heap of all pending events keyed by (t, origin, serial), executed in that global
 *   order (then every event created later lies after the current one): O(log n) per event
 *   whatever the parameters. AUTO takes it when the ring would be too large (a mean delay
 *   very long against the lookahead) or mostly empty buckets (very few events).
 *
 * Events with t >= T never execute: they are not stored. */
#include "oracle/phold_oracle.h"
#include "config/config.h"
#include "models/phold/phold_values.h" /* the [phold] values only: no engine code */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ Philox4x32-10 */

static inline uint32_t mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
    const uint64_t p = (uint64_t)a * b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

static inline void philox_block(const uint32_t ctr[4], uint32_t k0, uint32_t k1, uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    for (int round = 0; round < 10; round++) {
        if (round > 0) { /* the key schedule: the Weyl constants, before every round but the first */
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint32_t hi0, hi1;
        const uint32_t lo0 = mulhilo(0xD2511F53u, c0, &hi0);
        const uint32_t lo1 = mulhilo(0xCD9E8D57u, c2, &hi1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

void phold_oracle_philox(uint64_t seed, const uint32_t ctr[4], uint32_t out[4])
{
    philox_block(ctr, (uint32_t)seed, (uint32_t)(seed >> 32), out);
}

/* ------------------------------------------------------------------ delays */

int phold_oracle_exp_table(int64_t mean_ns, int64_t table[PHOLD_EXP_SIZE])
{
    if (mean_ns < 0)
        return PHOLD_ORACLE_ERR_INPUT;
    const double m = (double)mean_ns;
    for (int j = 0; j < PHOLD_EXP_SIZE; j++) {
        const double x = -m * log1p(-((double)j + 0.5) / 65536.0);
        if (!(x < 9.2e18)) /* llround of anything larger may not fit in int64 */
            return PHOLD_ORACLE_ERR_INPUT;
        table[j] = (int64_t)llround(x);
    }
    return PHOLD_ORACLE_OK;
}

/* ------------------------------------------------------------------ events */

typedef struct ev {
    int64_t t;
    uint64_t serial;
    uint32_t lp, origin;
} ev;

static inline bool ev_less(const ev *a, const ev *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->origin != b->origin)
        return a->origin < b->origin;
    return a->serial < b->serial;
}

/* What every queue shares: the parameters, the table, each LP's count of executed events. */
typedef struct sim {
    const phold_oracle_params *p;
    phold_oracle_result *r;
    int64_t *exp;
    int64_t *done; /* done[i]: events LP i has executed (its k for the next one) */
    uint32_t key0, key1;
} sim;

/* Executes E (the next event of its LP in key order) and writes the event it creates to NEXT.
 * Returns whether NEXT executes before the end (t < T). */
static inline bool execute(sim *s, const ev *e, ev *next)
{
    const phold_oracle_params *p = s->p;
    phold_oracle_result *r = s->r;
    const uint32_t i = e->lp;
    const int64_t k = s->done[i]++;
    const uint32_t ctr[4] = {i, (uint32_t)k, 1u, (uint32_t)((uint64_t)k >> 32)};
    uint32_t w[4];
    philox_block(ctr, s->key0, s->key1, w);

    r->events++;
    r->time_sum_ns += (uint64_t)e->t;
    r->lp_weighted_sum += ((uint64_t)i + 1u) * (uint64_t)(uint32_t)e->t;
    if (e->t > r->last_time_ns)
        r->last_time_ns = e->t;

    uint32_t dest = i;
    if (p->lps > 1 && (uint64_t)w[0] < p->remote_threshold) {
        const uint64_t n = (uint64_t)p->lps;
        uint64_t d = (uint64_t)i + 1u + (((uint64_t)w[1] * (n - 1u)) >> 32);
        dest = (uint32_t)(d >= n ? d - n : d); /* (...) mod n: d < 2n, no division */
        r->remote++;
    }
    next->t = e->t + p->lookahead_ns + s->exp[w[2] >> 16];
    next->lp = dest;
    next->origin = i;
    next->serial = (uint64_t)p->population + (uint64_t)k;
    return next->t < p->duration_ns;
}

/* Event j of LP i at the start. */
static inline ev initial_event(const sim *s, uint32_t i, uint32_t j)
{
    const uint32_t ctr[4] = {i, j, 2u, 0u};
    uint32_t w[4];
    philox_block(ctr, s->key0, s->key1, w);
    ev e = {s->p->lookahead_ns + s->exp[w[2] >> 16], j, i, i};
    return e;
}

/* ------------------------------------------------------------------ the heap */

static inline void heap_sift_down(ev *h, size_t n, size_t at, ev e)
{
    for (;;) {
        const size_t c = 4 * at + 1;
        if (c >= n)
            break;
        size_t best = c;
        const size_t end = c + 4 < n ? c + 4 : n;
        for (size_t q = c + 1; q < end; q++)
            if (ev_less(&h[q], &h[best]))
                best = q;
        if (!ev_less(&h[best], &e))
            break;
        h[at] = h[best];
        at = best;
    }
    h[at] = e;
}

static int run_heap(sim *s, uint64_t pending_max)
{
    ev *h = malloc((size_t)pending_max * sizeof *h);
    if (!h)
        return PHOLD_ORACLE_ERR_NOMEM;
    size_t n = 0;
    for (uint64_t i = 0; i < (uint64_t)s->p->lps; i++)
        for (uint64_t j = 0; j < (uint64_t)s->p->population; j++) {
            const ev e = initial_event(s, (uint32_t)i, (uint32_t)j);
            if (e.t < s->p->duration_ns)
                h[n++] = e;
        }
    for (size_t at = n / 4 + 1; at-- > 0;) /* Floyd's heap construction */
        if (at < n)
            heap_sift_down(h, n, at, h[at]);
    while (n > 0) {
        ev next;
        const ev top = h[0];
        if (execute(s, &top, &next)) /* one sift-down per event: the successor replaces it */
            heap_sift_down(h, n, 0, next);
        else if (--n > 0)
            heap_sift_down(h, n, 0, h[n]);
    }
    free(h);
    return PHOLD_ORACLE_OK;
}

/* ------------------------------------------------------------------ the buckets */

enum { BLOCK_EVENTS = 1024, RING_MAX = 1 << 20 };

typedef struct block {
    struct block *next;
    size_t n;
    ev e[BLOCK_EVENTS];
} block;

typedef struct bucket {
    block *head; /* the block being filled; the older, full ones follow */
    size_t n;
} bucket;

typedef struct ring {
    bucket *b;
    uint64_t mask;
    block *free_blocks;
    int64_t width; /* A */
} ring;

static int ring_push(ring *g, const ev *e)
{
    bucket *k = &g->b[(uint64_t)(e->t / g->width) & g->mask];
    block *h = k->head;
    if (!h || h->n == BLOCK_EVENTS) {
        block *f = g->free_blocks;
        if (f)
            g->free_blocks = f->next;
        else if (!(f = malloc(sizeof *f)))
            return PHOLD_ORACLE_ERR_NOMEM;
        f->next = h;
        f->n = 0;
        k->head = f;
        h = f;
    }
    h->e[h->n++] = *e;
    k->n++;
    return PHOLD_ORACLE_OK;
}

static int cmp_origin_serial(const void *a, const void *b)
{
    const ev *x = a, *y = b;
    if (x->origin != y->origin)
        return x->origin < y->origin ? -1 : 1;
    return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/* One stable counting pass of an LSD radix sort: A[0..N) into TMP by the DIGIT bits at SHIFT
 * of t - BASE (BY_LP false) or of lp (BY_LP true). */
enum { DIGIT = 11, RADIX = 1 << DIGIT };

static void radix_pass(const ev *a, ev *tmp, size_t n, int64_t base, bool by_lp, int shift)
{
    size_t count[RADIX];
    memset(count, 0, sizeof count);
#define KEY(e) ((((by_lp) ? (uint64_t)(e).lp : (uint64_t)((e).t - base)) >> shift) & (RADIX - 1))
    for (size_t q = 0; q < n; q++)
        count[KEY(a[q])]++;
    size_t sum = 0;
    for (int d = 0; d < RADIX; d++) {
        const size_t c = count[d];
        count[d] = sum;
        sum += c;
    }
    for (size_t q = 0; q < n; q++)
        tmp[count[KEY(a[q])]++] = a[q];
#undef KEY
}

static int bits_of(uint64_t max)
{
    int bits = 0;
    while (bits < 64 && (max >> bits) != 0)
        bits++;
    return bits;
}

/* Sorts A[0..N) by (lp, t, origin, serial), every t in [BASE, BASE + WIDTH) and every lp
 * below LPS: a stable LSD radix sort in 11-bit digits on t - BASE then on lp (TMP holds N
 * events), then each run of equal (lp, t) sorted by (origin, serial). LP-major, so that the
 * LPs' counters are then visited in order instead of at random. Returns the sorted array (A
 * or TMP). */
static ev *sort_bucket(ev *a, ev *tmp, size_t n, int64_t base, int64_t width, int64_t lps)
{
    const int tbits = bits_of((uint64_t)(width - 1)), lbits = bits_of((uint64_t)(lps - 1));
    for (int pass = 0; pass < 2; pass++)
        for (int shift = 0; shift < (pass ? lbits : tbits); shift += DIGIT) {
            radix_pass(a, tmp, n, base, pass == 1, shift);
            ev *x = a;
            a = tmp;
            tmp = x;
        }
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo + 1;
        while (hi < n && a[hi].t == a[lo].t && a[hi].lp == a[lo].lp)
            hi++;
        if (hi - lo <= 16) {
            for (size_t q = lo + 1; q < hi; q++) { /* insertion sort: short runs are the rule */
                const ev e = a[q];
                size_t at = q;
                while (at > lo && cmp_origin_serial(&e, &a[at - 1]) < 0) {
                    a[at] = a[at - 1];
                    at--;
                }
                a[at] = e;
            }
        } else {
            qsort(a + lo, hi - lo, sizeof *a, cmp_origin_serial);
        }
        lo = hi;
    }
    return a;
}

static void ring_free(ring *g)
{
    for (uint64_t q = 0; g->b && q <= g->mask; q++)
        for (block *k = g->b[q].head; k;) {
            block *next = k->next;
            free(k);
            k = next;
        }
    for (block *k = g->free_blocks; k;) {
        block *next = k->next;
        free(k);
        k = next;
    }
    free(g->b);
}

static int run_buckets(sim *s, uint64_t ring_size)
{
    const phold_oracle_params *p = s->p;
    ring g = {calloc((size_t)ring_size, sizeof(bucket)), ring_size - 1, NULL, p->lookahead_ns};
    ev *work = NULL, *tmp = NULL;
    size_t work_cap = 0;
    int rc = g.b ? PHOLD_ORACLE_OK : PHOLD_ORACLE_ERR_NOMEM;
    uint64_t pending = 0;
    for (uint64_t i = 0; rc == PHOLD_ORACLE_OK && i < (uint64_t)p->lps; i++)
        for (uint64_t j = 0; rc == PHOLD_ORACLE_OK && j < (uint64_t)p->population; j++) {
            const ev e = initial_event(s, (uint32_t)i, (uint32_t)j);
            if (e.t < p->duration_ns) {
                rc = ring_push(&g, &e);
                pending++;
            }
        }
    /* Initial events lie in buckets 1 .. D (t >= A): start at 1. */
    for (int64_t b = 1; rc == PHOLD_ORACLE_OK && pending > 0; b++) {
        bucket *k = &g.b[(uint64_t)b & g.mask];
        if (k->n == 0)
            continue;
        if (k->n > work_cap) {
            free(work);
            free(tmp);
            work_cap = k->n + k->n / 4;
            work = malloc(work_cap * sizeof *work);
            tmp = malloc(work_cap * sizeof *tmp);
            if (!work || !tmp) {
                rc = PHOLD_ORACLE_ERR_NOMEM;
                break;
            }
        }
        /* Gather the bucket and give its blocks back before executing it: its events'
         * successors land in later buckets and reuse them. */
        const size_t n = k->n;
        size_t at = 0;
        for (block *c = k->head; c;) {
            block *next = c->next;
            memcpy(work + at, c->e, c->n * sizeof *work);
            at += c->n;
            c->next = g.free_blocks;
            g.free_blocks = c;
            c = next;
        }
        k->head = NULL;
        k->n = 0;
        const ev *sorted =
            sort_bucket(work, tmp, n, b * p->lookahead_ns, p->lookahead_ns, p->lps);
        for (size_t q = 0; q < n && rc == PHOLD_ORACLE_OK; q++) {
            ev next;
            if (execute(s, &sorted[q], &next))
                rc = ring_push(&g, &next);
            else
                pending--;
        }
    }
    free(work);
    free(tmp);
    ring_free(&g);
    return rc;
}

/* ------------------------------------------------------------------ the run */

static void say(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* Physical memory in bytes, 0 when unknown. */
static uint64_t physical_memory(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

int phold_oracle_run(const phold_oracle_params *p, phold_oracle_result *r, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    if (err && cap > 0)
        err[0] = '\0';
    const int64_t max_u32_count = INT64_C(1) << 32;
    if (p->lps < 1 || p->lps > max_u32_count) {
        say(err, cap, "lps = %" PRId64 " is outside 1 .. 2^32", p->lps);
        return PHOLD_ORACLE_ERR_INPUT;
    }
    if (p->population < 1 || p->population > max_u32_count) {
        say(err, cap, "population = %" PRId64 " is outside 1 .. 2^32", p->population);
        return PHOLD_ORACLE_ERR_INPUT;
    }
    if (p->remote_threshold > (UINT64_C(1) << 32)) {
        say(err, cap, "remote threshold %" PRIu64 " is above 2^32", p->remote_threshold);
        return PHOLD_ORACLE_ERR_INPUT;
    }
    if (p->lookahead_ns <= 0 || p->mean_ns < 0 || p->duration_ns <= 0) {
        say(err, cap, "lookahead (%" PRId64 " ns) and duration (%" PRId64
                      " ns) must be > 0 and the mean (%" PRId64 " ns) >= 0",
            p->lookahead_ns, p->duration_ns, p->mean_ns);
        return PHOLD_ORACLE_ERR_INPUT;
    }
    if (p->queue != PHOLD_QUEUE_AUTO && p->queue != PHOLD_QUEUE_HEAP &&
        p->queue != PHOLD_QUEUE_BUCKETS) {
        say(err, cap, "unknown event queue %d", (int)p->queue);
        return PHOLD_ORACLE_ERR_INPUT;
    }

    sim s = {p, r, malloc(PHOLD_EXP_SIZE * sizeof(int64_t)), NULL, (uint32_t)p->seed,
             (uint32_t)(p->seed >> 32)};
    if (!s.exp) {
        say(err, cap, "out of memory for the table of delays");
        return PHOLD_ORACLE_ERR_NOMEM;
    }
    if (phold_oracle_exp_table(p->mean_ns, s.exp) != PHOLD_ORACLE_OK) {
        say(err, cap, "mean = %" PRId64 " ns gives delays beyond the int64 range", p->mean_ns);
        free(s.exp);
        return PHOLD_ORACLE_ERR_INPUT;
    }
    /* The latest new event is created before T and lands at most A + EXP[65535] later. */
    const int64_t exp_max = s.exp[PHOLD_EXP_SIZE - 1];
    if (p->lookahead_ns > INT64_MAX - exp_max ||
        p->duration_ns - 1 > INT64_MAX - exp_max - p->lookahead_ns) {
        say(err, cap, "duration + lookahead + the longest delay (%" PRId64
                      " ns) exceed the int64 range of times", exp_max);
        free(s.exp);
        return PHOLD_ORACLE_ERR_INPUT;
    }

    /* The choice of queue and the memory it needs (N E pending events at most, kept once by
     * the heap, about twice in the worst case by the buckets: the blocks plus the bucket being
     * executed and its sort buffer). */
    if ((uint64_t)p->lps > (UINT64_C(1) << 62) / (uint64_t)p->population) {
        say(err, cap, "%" PRId64 " LPs x %" PRId64 " events are too many pending events",
            p->lps, p->population);
        free(s.exp);
        return PHOLD_ORACLE_ERR_NOMEM;
    }
    const uint64_t pending = (uint64_t)p->lps * (uint64_t)p->population;
    const uint64_t reach = 2u + (uint64_t)(exp_max / p->lookahead_ns); /* D */
    uint64_t ring_size = 1;
    while (ring_size <= reach && ring_size <= RING_MAX)
        ring_size <<= 1;
    const bool ring_fits = ring_size <= RING_MAX;
    bool buckets = p->queue == PHOLD_QUEUE_BUCKETS ||
                   (p->queue == PHOLD_QUEUE_AUTO && ring_fits && reach <= 64u * pending);
    if (p->queue == PHOLD_QUEUE_BUCKETS && !ring_fits) {
        say(err, cap, "a bucket queue would need more than %d buckets (mean %" PRId64
                      " ns against lookahead %" PRId64 " ns)",
            RING_MAX, p->mean_ns, p->lookahead_ns);
        free(s.exp);
        return PHOLD_ORACLE_ERR_INPUT;
    }
    const uint64_t per_event = buckets ? 2u * sizeof(ev) : sizeof(ev);
    const uint64_t need = pending * per_event + (uint64_t)p->lps * sizeof(int64_t) +
                          (buckets ? ring_size * sizeof(bucket) : 0);
    const uint64_t phys = physical_memory();
    if (pending > (uint64_t)(SIZE_MAX / 2 / sizeof(ev)) || (phys > 0 && need > phys)) {
        say(err, cap, "%" PRId64 " LPs x %" PRId64 " events need about %" PRIu64
                      " MiB of memory, more than this machine has (%" PRIu64 " MiB)",
            p->lps, p->population, need >> 20, phys >> 20);
        free(s.exp);
        return PHOLD_ORACLE_ERR_NOMEM;
    }
    s.done = calloc((size_t)p->lps, sizeof *s.done);
    int rc = s.done ? (buckets ? run_buckets(&s, ring_size) : run_heap(&s, pending))
                    : PHOLD_ORACLE_ERR_NOMEM;
    if (rc == PHOLD_ORACLE_OK) {
        r->lp_events_min = r->lp_events_max = s.done[0];
        for (int64_t i = 1; i < p->lps; i++) {
            if (s.done[i] < r->lp_events_min)
                r->lp_events_min = s.done[i];
            if (s.done[i] > r->lp_events_max)
                r->lp_events_max = s.done[i];
        }
    } else {
        memset(r, 0, sizeof *r);
        say(err, cap, "out of memory for %" PRId64 " LPs x %" PRId64 " pending events (about %" PRIu64
                      " MiB)",
            p->lps, p->population, need >> 20);
    }
    free(s.done);
    free(s.exp);
    return rc;
}

/* ------------------------------------------------------------------ output */

int phold_oracle_write_json(FILE *f, const phold_oracle_params *p, const phold_oracle_result *r)
{
    fprintf(f, "{\n");
    fprintf(f, "  \"model\": \"phold\",\n");
    fprintf(f, "  \"seed\": %llu,\n", (unsigned long long)p->seed);
    fprintf(f, "  \"lps\": %" PRId64 ",\n", p->lps);
    fprintf(f, "  \"population\": %" PRId64 ",\n", p->population);
    fprintf(f, "  \"events\": %" PRId64 ",\n", r->events);
    fprintf(f, "  \"remote\": %" PRId64 ",\n", r->remote);
    fprintf(f, "  \"time_sum_ns\": %llu,\n", (unsigned long long)r->time_sum_ns);
    fprintf(f, "  \"lp_weighted_sum\": %llu,\n", (unsigned long long)r->lp_weighted_sum);
    fprintf(f, "  \"lp_events_min\": %" PRId64 ",\n", r->lp_events_min);
    fprintf(f, "  \"lp_events_max\": %" PRId64 ",\n", r->lp_events_max);
    fprintf(f, "  \"last_time_ns\": %" PRId64 ",\n", r->last_time_ns);
    fprintf(f, "  \"contract\": [\"model\", \"seed\", \"lps\", \"population\", \"events\","
               " \"remote\", \"time_sum_ns\", \"lp_weighted_sum\", \"lp_events_min\","
               " \"lp_events_max\", \"last_time_ns\"]\n");
    fprintf(f, "}\n");
    return ferror(f) ? -1 : 0;
}

int phold_oracle_save_json(const char *path, const phold_oracle_params *p,
                           const phold_oracle_result *r, char *err, size_t cap)
{
    if (strcmp(path, "-") == 0) {
        if (phold_oracle_write_json(stdout, p, r) != 0 || fflush(stdout) != 0) {
            say(err, cap, "error writing the results to standard output");
            return -1;
        }
        return 0;
    }
    const size_t len = strlen(path) + sizeof ".tmp.XXXXXX";
    char *tmp = malloc(len);
    if (!tmp) {
        say(err, cap, "out of memory");
        return -1;
    }
    snprintf(tmp, len, "%s.tmp.XXXXXX", path);
    const int fd = mkstemp(tmp);
    FILE *f = NULL;
    if (fd >= 0) {
        (void)fchmod(fd, 0644); /* mkstemp's 0600 would make results private */
        f = fdopen(fd, "w");
        if (!f) {
            close(fd);
            unlink(tmp);
        }
    }
    if (!f) {
        say(err, cap, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int bad = phold_oracle_write_json(f, p, r);
    bad |= fclose(f) != 0;
    if (!bad)
        bad = rename(tmp, path) != 0;
    if (bad) {
        say(err, cap, "error writing %s", path);
        unlink(tmp);
    }
    free(tmp);
    return bad ? -1 : 0;
}

void phold_oracle_params_from(const struct scenario *sc, phold_oracle_params *p)
{
    const phold_values *ph = phold_values_of(sc);
    memset(p, 0, sizeof *p);
    p->seed = sc->seed;
    p->lps = ph->lps;
    p->population = ph->population;
    p->remote_threshold = ph->remote_threshold;
    p->lookahead_ns = ph->lookahead_ns;
    p->mean_ns = ph->mean_ns;
    p->duration_ns = sc->duration_ns;
    p->queue = PHOLD_QUEUE_AUTO;
}
