/* The core exchange's routing and growth (host/engine/exchange_transport.h, exchange.h) with
 * fake partitions and homes, without a device: records reach the place that holds their
 * partition now, each place's records in their order, none lost or doubled; bad destinations
 * are refused; the outbox grows by doubling up to its limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "engine/exchange.h"

/* The fake model: 6 partitions of span 10 (destination words 0 .. 59) over 3 places. */
#define PARTS 6
#define SPAN 10
#define PLACES 3

typedef struct fake_model {
    int home[PARTS];
} fake_model;

static int fake_home(const struct model_state *m, int partition)
{
    return ((const fake_model *)(const void *)m)->home[partition];
}

/* A record of 16 bytes: its index in the batch, the destination word and two markers. */
typedef struct rec4 {
    uint32_t w[4];
} rec4;

static exchange_router router_of(const fake_model *fm)
{
    return (exchange_router){.record_bytes = sizeof(rec4), .span = SPAN, .n_parts = PARTS,
                             .n_places = PLACES, .home = fake_home,
                             .model = (const struct model_state *)(const void *)fm};
}

/* Builds N records, record i for destination word (i * 7) % 60. */
static void make_batch(uint32_t *dest, rec4 *rec, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        dest[i] = (uint32_t)(i * 7 % (PARTS * SPAN));
        rec[i] = (rec4){{(uint32_t)i, dest[i], 0xabcd0000u + (uint32_t)i, ~(uint32_t)i}};
    }
}

/* Every record of the batch (DEST, REC, N) reached place home[dest / SPAN] once, each place's
 * in increasing batch order, its words intact. */
static void check_delivery(exchange_transport *t, const fake_model *fm, const uint32_t *dest,
                           const rec4 *rec, size_t n)
{
    size_t seen = 0;
    for (int place = 0; place < PLACES; place++) {
        const uint32_t *d;
        const void *r;
        size_t got;
        cn_error err = {0};
        CHECK(t->collect(t->self, place, &d, &r, &got, &err) == 0);
        size_t want = 0;
        for (size_t i = 0; i < n; i++)
            want += fm->home[dest[i] / SPAN] == place;
        CHECK_U64(got, want);
        const rec4 *rr = r;
        size_t next = 0; /* the batch index the next record must have, at least */
        for (size_t k = 0; k < got && k < want; k++) {
            uint32_t i = rr[k].w[0];
            CHECK(i < n && i >= next);
            if (i >= n)
                break;
            next = i + 1;
            CHECK_U64(d[k], dest[i]);
            CHECK(memcmp(&rr[k], &rec[i], sizeof(rec4)) == 0);
            CHECK_I64(fm->home[d[k] / SPAN], place);
        }
        seen += got;
    }
    CHECK_U64(seen, n);
}

static void test_routing(void)
{
    fake_model fm = {{0, 0, 1, 2, 2, 1}};
    exchange_router r = router_of(&fm);
    exchange_transport t;
    cn_error err = {0};
    CHECK(exchange_local_transport(&t, sizeof(rec4), PLACES, &err) == 0);
    enum { N = 5000 }; /* more than the router's and the transport's first capacity */
    uint32_t *dest = malloc(N * sizeof *dest);
    rec4 *rec = malloc(N * sizeof *rec);
    make_batch(dest, rec, N);
    CHECK(exchange_route(&r, dest, rec, N, &t, &err) == 0);
    check_delivery(&t, &fm, dest, rec, N);

    /* a collect hands out each record once */
    const uint32_t *d;
    const void *rp;
    size_t got = 1;
    CHECK(t.collect(t.self, 1, &d, &rp, &got, &err) == 0);
    CHECK_U64(got, 0);

    /* partitions 1 and 4 move (migration): the next batch follows their new homes */
    fm.home[1] = 2;
    fm.home[4] = 0;
    CHECK(exchange_route(&r, dest, rec, 100, &t, &err) == 0);
    check_delivery(&t, &fm, dest, rec, 100);

    /* two batches before a collect: the second follows the first */
    CHECK(exchange_route(&r, dest, rec, 3, &t, &err) == 0);     /* words 0, 7, 14 */
    CHECK(exchange_route(&r, dest + 3, rec + 3, 2, &t, &err) == 0); /* 21, 28 */
    CHECK(t.collect(t.self, 0, &d, &rp, &got, &err) == 0);      /* partition 0 at place 0 */
    CHECK_U64(got, 2);
    if (got == 2) {
        CHECK_U64(d[0], 0);
        CHECK_U64(d[1], 7);
    }
    CHECK(t.collect(t.self, 2, &d, &rp, &got, &err) == 0); /* 1 (14), 2 -> place 1, not 2 */
    CHECK_U64(got, 1);
    if (got == 1)
        CHECK_U64(d[0], 14);
    CHECK(t.collect(t.self, 1, &d, &rp, &got, &err) == 0);
    CHECK_U64(got, 2);
    if (got == 2) {
        CHECK_U64(d[0], 21);
        CHECK_U64(d[1], 28);
    }
    CHECK_I64(err.code, 0);
    free(dest);
    free(rec);
    exchange_router_free(&r);
    t.destroy(t.self);
}

/* A transport that remembers each post's place and arrays (exchange_route_in_place). */
typedef struct post_log {
    int to[8];
    const uint32_t *dest[8];
    const void *rec[8];
    size_t n[8];
    int posts;
} post_log;

static int log_post(void *self, int to, const uint32_t *dest, const void *rec, size_t n,
                    cn_error *err)
{
    post_log *l = self;
    (void)err;
    if (l->posts < 8) {
        l->to[l->posts] = to;
        l->dest[l->posts] = dest;
        l->rec[l->posts] = rec;
        l->n[l->posts] = n;
    }
    l->posts++;
    return 0;
}

/* Records that must stay where they lie: put in place order within their own arrays, each
 * place's post a part of them in the batch's order; records from a place whose foreign
 * partitions all live at one place go there whole, as they lie. */
static void test_routing_in_place(void)
{
    fake_model fm = {{0, 0, 1, 2, 2, 1}};
    exchange_router r = router_of(&fm);
    post_log log = {0};
    exchange_transport t = {.self = &log, .post = log_post};
    cn_error err = {0};
    enum { N = 300 };
    uint32_t dest[N], dest0[N];
    rec4 rec[N], rec0[N];
    make_batch(dest, rec, N);
    memcpy(dest0, dest, sizeof dest);
    memcpy(rec0, rec, sizeof rec);
    /* from place 0, whose partitions 0 and 1 the batch also names (a test, not an export) */
    CHECK(exchange_route_in_place(&r, 0, dest, rec, N, &t, &err) == 0);
    CHECK_I64(log.posts, PLACES);
    size_t at = 0;
    for (int k = 0; k < log.posts && k < PLACES; k++) {
        CHECK_I64(log.to[k], k);
        CHECK(log.dest[k] == dest + at && log.rec[k] == (const void *)(rec + at));
        uint32_t last = 0;
        for (size_t j = at; j < at + log.n[k] && j < N; j++) {
            uint32_t i = rec[j].w[0];
            CHECK(i < N && (j == at || i > last));
            if (i >= N)
                break;
            last = i;
            CHECK_U64(dest[j], dest0[i]);
            CHECK(memcmp(&rec[j], &rec0[i], sizeof(rec4)) == 0);
            CHECK_I64(fm.home[dest[j] / SPAN], k);
        }
        at += log.n[k];
    }
    CHECK_U64(at, N);

    /* partitions 2 .. 5 all at place 1: a batch from place 0 goes there as it lies */
    fake_model two = {{0, 0, 1, 1, 1, 1}};
    r.model = (const struct model_state *)(const void *)&two;
    log.posts = 0;
    uint32_t d2[4] = {25, 31, 47, 59};
    rec4 r2[4] = {{{0}}};
    CHECK(exchange_route_in_place(&r, 0, d2, r2, 4, &t, &err) == 0);
    CHECK_I64(log.posts, 1);
    CHECK(log.to[0] == 1 && log.dest[0] == d2 && log.rec[0] == (const void *)r2 &&
          log.n[0] == 4);
    CHECK_I64(err.code, 0);
    exchange_router_free(&r);
}

/* A batch with one bad record is refused with its message, and nothing of it is posted. */
static void refused(fake_model *fm, uint32_t bad_dest, const char *want)
{
    exchange_router r = router_of(fm);
    exchange_transport t;
    cn_error err = {0};
    CHECK(exchange_local_transport(&t, sizeof(rec4), PLACES, &err) == 0);
    uint32_t dest[4] = {3, 25, bad_dest, 41};
    rec4 rec[4] = {{{0}}};
    CHECK(exchange_route(&r, dest, rec, 4, &t, &err) == CN_ERR_RUNTIME);
    if (strcmp(err.msg, want) != 0) {
        CHECK(!"the expected message");
        fprintf(stderr, "    got  '%s'\n    want '%s'\n", err.msg, want);
    }
    for (int place = 0; place < PLACES; place++) {
        const uint32_t *d;
        const void *rp;
        size_t got = 1;
        CHECK(t.collect(t.self, place, &d, &rp, &got, &err) == 0);
        CHECK_U64(got, 0);
    }
    exchange_router_free(&r);
    t.destroy(t.self);
}

static void test_refusals(void)
{
    fake_model fm = {{0, 1, 2, 0, 1, 2}};
    refused(&fm, 60, "internal error: a record between devices names destination 60, beyond "
                     "the 6 partitions");
    fm.home[5] = 3;
    refused(&fm, 59, "internal error: partition 5 lives at place 3, not one of the 3");
    fm.home[5] = -1;
    refused(&fm, 50, "internal error: partition 5 lives at place -1, not one of the 3");

    exchange_transport t;
    cn_error err = {0};
    CHECK(exchange_local_transport(&t, sizeof(rec4), PLACES, &err) == 0);
    uint32_t d0 = 0;
    rec4 r0 = {{0}};
    CHECK(t.post(t.self, PLACES, &d0, &r0, 1, &err) == CN_ERR_RUNTIME);
    CHECK(strcmp(err.msg, "internal error: records posted for place 3 of 3") == 0);
    t.destroy(t.self);
}

/* One batch posted for a set of places: each other place of the set collects it once, by
 * reference (the poster's memory: one copy), the places of origin in increasing order. */
static void test_sets(void)
{
    exchange_transport t;
    cn_error err = {0};
    CHECK(exchange_local_transport(&t, sizeof(rec4), 4, &err) == 0);
    rec4 a[3] = {{{1}}, {{2}}, {{3}}}, b[2] = {{{20}}, {{21}}}, c[1] = {{{30}}};
    uint32_t bdest[2] = {7, 8};
    /* places 0, 1 and 3 take part; 2 does not */
    CHECK(t.post_set(t.self, 3, 0xbu, NULL, c, 1, &err) == 0);
    CHECK(t.post_set(t.self, 0, 0xbu, NULL, a, 3, &err) == 0);
    CHECK(t.post_set(t.self, 1, 0xbu, bdest, b, 2, &err) == 0);
    CHECK(t.post_set(t.self, 1, 0xbu, NULL, b, 0, &err) == 0); /* nothing: no batch */
    const exchange_batch *got;
    size_t nb = 9;
    CHECK(t.collect_sets(t.self, 0, &got, &nb, &err) == 0); /* 1's, then 3's; not its own */
    CHECK_U64(nb, 2);
    if (nb == 2) {
        CHECK_I64(got[0].from, 1);
        CHECK(got[0].rec == (const void *)b && got[0].dest == bdest);
        CHECK_U64(got[0].n, 2);
        CHECK_I64(got[1].from, 3);
        CHECK(got[1].rec == (const void *)c && got[1].dest == NULL);
        CHECK_U64(got[1].n, 1);
        /* delivered after 5 records of its own: 1's at 5, 3's at 7; 8 in all */
        uint64_t at[2] = {0, 0};
        CHECK_U64(exchange_place_after(got, nb, 5, at), 8);
        CHECK_U64(at[0], 5);
        CHECK_U64(at[1], 7);
    }
    CHECK(t.collect_sets(t.self, 0, &got, &nb, &err) == 0); /* collected once */
    CHECK_U64(nb, 0);
    CHECK(t.collect_sets(t.self, 2, &got, &nb, &err) == 0); /* not in the set */
    CHECK_U64(nb, 0);
    CHECK(t.collect_sets(t.self, 3, &got, &nb, &err) == 0);
    CHECK_U64(nb, 2);
    if (nb == 2)
        CHECK(got[0].rec == (const void *)a && got[0].n == 3 && got[1].rec == (const void *)b);
    /* 0 posts again before 1 collected: 1 gets both of 0's batches, in their order */
    rec4 a2[1] = {{{4}}};
    CHECK(t.post_set(t.self, 0, 0xbu, NULL, a2, 1, &err) == 0);
    CHECK(t.collect_sets(t.self, 1, &got, &nb, &err) == 0);
    CHECK_U64(nb, 3);
    if (nb == 3) {
        CHECK(got[0].rec == (const void *)a && got[1].rec == (const void *)a2);
        CHECK_I64(got[2].from, 3);
        uint64_t at[3];
        CHECK_U64(exchange_place_after(got, nb, 0, at), 5);
        CHECK_U64(at[2], 4);
    }
    CHECK(t.collect_sets(t.self, 3, &got, &nb, &err) == 0); /* 0's new batch only */
    CHECK_U64(nb, 1);
    if (nb == 1)
        CHECK(got[0].rec == (const void *)a2);
    /* set batches and the records of one destination do not mix */
    const uint32_t *d;
    const void *rp;
    size_t n1 = 1;
    CHECK(t.collect(t.self, 1, &d, &rp, &n1, &err) == 0);
    CHECK_U64(n1, 0);
    /* a batch that every place collected is forgotten: many rounds hold no more */
    for (int round = 0; round < 100; round++) {
        CHECK(t.post_set(t.self, 2, 0x7u, NULL, c, 1, &err) == 0);
        CHECK(t.collect_sets(t.self, 0, &got, &nb, &err) == 0);
        CHECK(t.collect_sets(t.self, 1, &got, &nb, &err) == 0);
    }
    CHECK_U64(nb, 1);
    CHECK(t.collect_sets(t.self, 3, &got, &nb, &err) == 0); /* not in 0x7 */
    CHECK_U64(nb, 0);
    CHECK_I64(err.code, 0);
    /* refusals: an origin or a set beyond the places */
    CHECK(t.post_set(t.self, 4, 0x1u, NULL, c, 1, &err) == CN_ERR_RUNTIME);
    CHECK(strcmp(err.msg, "internal error: records posted from place 4 for the set 0x1 of 4 "
                          "places") == 0);
    cn_error_clear(&err);
    CHECK(t.post_set(t.self, 0, 0x12u, NULL, c, 1, &err) == CN_ERR_RUNTIME);
    CHECK(strcmp(err.msg, "internal error: records posted from place 0 for the set 0x12 of 4 "
                          "places") == 0);
    t.destroy(t.self);
}

static void test_growth(void)
{
    CHECK_U64(exchange_grown_capacity(3), 6);
    CHECK_U64(exchange_grown_capacity(4096), 8192);
    CHECK_U64(exchange_grown_capacity(1u << 29), 1u << 30);
    CHECK_U64(exchange_grown_capacity((1u << 29) + 1), XCH_MAX_CAPACITY);
    CHECK_U64(exchange_grown_capacity(XCH_MAX_CAPACITY), XCH_MAX_CAPACITY);
    CHECK_U64(exchange_grown_capacity(0), 1);
    /* outbox, deferred and export areas (record and destination word), control, map */
    CHECK_U64(exchange_device_bytes(16, 4096, 7), 3 * 20 * 4096 + 32 + 7);
    CHECK_U64(exchange_device_bytes(8, 1u << 30, 4096), 3ull * 12 * (1ull << 30) + 32 + 4096);
}

int main(void)
{
    test_routing();
    test_routing_in_place();
    test_refusals();
    test_sets();
    test_growth();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
