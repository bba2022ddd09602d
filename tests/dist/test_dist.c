/* The run's processes (host/dist/dist.h), on every rank of a launch or alone: the ranks and
 * the machine's, each reduction, the broadcast, the gathers and the agreement on an error,
 * against what every rank can compute for itself. Usage: test_dist RANKS MPI (the number of
 * ranks expected, and 1 when MPI must have started, 0 for the stand-in). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "dist/dist_stream.h"

static int failures;

static void *plain_alloc(void *ctx, size_t bytes, void **handle)
{
    (void)ctx;
    *handle = NULL;
    return malloc(bytes);
}

static void plain_release(void *ctx, void *handle, void *area)
{
    (void)ctx;
    (void)handle;
    free(area);
}

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", dist_rank(), __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    cn_error err = {0};
    if (dist_init(&argc, &argv, &err) != 0) {
        fprintf(stderr, "test_dist: %s\n", err.msg);
        return 1;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: test_dist RANKS MPI\n");
        dist_finalize();
        return 2;
    }
    int want = atoi(argv[1]), mpi = atoi(argv[2]);
    int r = dist_rank(), n = dist_size();
    CHECK(n == want, "%d ranks, expected %d", n, want);
    CHECK(dist_is_mpi() == mpi, "MPI started: %d, expected %d", dist_is_mpi(), mpi);
    CHECK(r >= 0 && r < n, "rank %d of %d", r, n);
    /* one machine: the machine's ranks are the world's */
    CHECK(dist_local_size() == n && dist_local_rank() == r, "local rank %d of %d",
          dist_local_rank(), dist_local_size());
    CHECK(strcmp(dist_library(), "none") != 0 || !mpi, "library '%s'", dist_library());

    uint64_t u[3] = {(uint64_t)r + 1, (uint64_t)r + 1, UINT64_MAX};
    int rc = dist_allreduce_u64(u, 3, DIST_SUM, &err);
    CHECK(!rc && u[0] == (uint64_t)n * (n + 1) / 2 && u[1] == u[0], "sum %llu (%s)",
          (unsigned long long)u[0], err.msg);
    /* n times 2^64 - 1, modulo 2^64 */
    CHECK(!rc && u[2] == (uint64_t)0 - (uint64_t)n, "wrapped sum %llu",
          (unsigned long long)u[2]);
    uint64_t lo = (uint64_t)r + 7, hi = (uint64_t)r + 7;
    rc = dist_allreduce_u64(&lo, 1, DIST_MIN, &err) || dist_allreduce_u64(&hi, 1, DIST_MAX, &err);
    CHECK(!rc && lo == 7 && hi == (uint64_t)n + 6, "min %llu max %llu", (unsigned long long)lo,
          (unsigned long long)hi);
    int64_t s[2] = {-(int64_t)r - 1, INT64_MIN + r};
    rc = dist_allreduce_i64(s, 2, DIST_MIN, &err);
    CHECK(!rc && s[0] == -(int64_t)n && s[1] == INT64_MIN, "i64 min %lld %lld", (long long)s[0],
          (long long)s[1]);
    int64_t m = r % 2 ? -(int64_t)r : (int64_t)r * 1000;
    rc = dist_allreduce_i64(&m, 1, DIST_MAX, &err);
    CHECK(!rc && m == (int64_t)((n - 1) / 2 * 2) * 1000, "i64 max %lld", (long long)m);

    /* 3 MiB from the last rank, and a byte pattern each rank can check */
    size_t big = (size_t)3 << 20;
    unsigned char *b = malloc(big);
    CHECK(b != NULL, "no memory");
    if (b) {
        for (size_t i = 0; i < big; i++)
            b[i] = r == n - 1 ? (unsigned char)(i * 31 + 7) : 0;
        rc = dist_bcast(b, big, n - 1, &err);
        size_t bad = 0;
        for (size_t i = 0; i < big; i++)
            bad += b[i] != (unsigned char)(i * 31 + 7);
        CHECK(!rc && bad == 0, "broadcast: %zu bytes differ (%s)", bad, err.msg);
        free(b);
    }

    uint64_t mine = 0x1000 + (uint64_t)r, *all = calloc((size_t)n, sizeof *all);
    CHECK(all != NULL, "no memory");
    if (all) {
        rc = dist_allgather(&mine, all, sizeof mine, &err);
        for (int k = 0; k < n; k++)
            CHECK(!rc && all[k] == 0x1000 + (uint64_t)k, "allgather[%d] %llu", k,
                  (unsigned long long)all[k]);
        free(all);
    }

    /* allgatherv: rank k sends k + 1 units of 3 bytes (rank 1 none), k * 10 + j each */
    uint64_t *cnt = calloc((size_t)n, sizeof *cnt), sum = 0;
    CHECK(cnt != NULL, "no memory");
    for (int k = 0; cnt && k < n; k++)
        sum += cnt[k] = k == 1 ? 0 : (uint64_t)k + 1;
    unsigned char *got = cnt ? calloc(sum * 3 + 1, 1) : NULL, own[3 * 8];
    for (int j = 0; j < 3 * 8; j++)
        own[j] = (unsigned char)(r * 10 + j / 3);
    if (got) {
        rc = dist_allgatherv(own, cnt, 3, got, &err);
        uint64_t at = 0;
        for (int k = 0; k < n; k++)
            for (uint64_t j = 0; j < 3 * cnt[k]; j++, at++)
                CHECK(!rc && got[at] == (unsigned char)(k * 10 + (int)(j / 3)),
                      "allgatherv from rank %d byte %llu: %u", k, (unsigned long long)j,
                      got[at]);
    }
    free(got);
    free(cnt);

    char text[32], *joined = NULL, expect[1024] = "";
    snprintf(text, sizeof text, "<%d%s>", r, r == 1 ? "" : "...");
    rc = dist_gather_text(text, &joined, &err);
    for (int k = 0; k < n; k++) {
        char one[32];
        snprintf(one, sizeof one, "<%d%s>", k, k == 1 ? "" : "...");
        strncat(expect, one, sizeof expect - strlen(expect) - 1);
    }
    if (r == 0)
        CHECK(!rc && joined && !strcmp(joined, expect), "gathered '%s', expected '%s'",
              joined ? joined : "(null)", expect);
    else
        CHECK(!rc && joined == NULL, "a rank other than 0 got text");
    free(joined);

    /* the agreement: nobody failed; then the last rank (and the first, which the last's
     * lower rank number loses to) */
    cn_error e = {0};
    CHECK(dist_agree(0, &e) == 0 && e.code == 0, "agreed on an error nobody had");
    cn_error f = {0};
    int last = r == n - 1;
    if (last)
        cn_fail(&f, 3, "the last rank failed");
    rc = dist_agree(last ? 3 : 0, &f);
    char want_msg[128];
    if (n > 1)
        snprintf(want_msg, sizeof want_msg, "MPI rank %d of %d: the last rank failed", n - 1, n);
    else
        snprintf(want_msg, sizeof want_msg, "the last rank failed");
    CHECK(rc == 3 && f.code == 3 && !strcmp(f.msg, want_msg), "agreed %d '%s'", rc, f.msg);
    cn_error g = {0};
    if (r == 0 || last)
        cn_fail(&g, r == 0 ? 4 : 5, "rank %d failed", r);
    rc = dist_agree(r == 0 || last ? g.code : 0, &g);
    if (n > 1)
        snprintf(want_msg, sizeof want_msg, "MPI rank 0 of %d: rank 0 failed", n);
    else
        snprintf(want_msg, sizeof want_msg, "rank 0 failed");
    CHECK(rc == 4 && g.code == 4 && !strcmp(g.msg, want_msg), "agreed %d '%s'", rc, g.msg);

    /* a sentence agreed on before keeps its one rank prefix */
    if (n > 1) {
        cn_error a = {0};
        cn_fail(&a, 6, "MPI rank %d of %d: agreed inside", n - 1, n);
        rc = dist_agree(6, &a);
        snprintf(want_msg, sizeof want_msg, "MPI rank %d of %d: agreed inside", n - 1, n);
        CHECK(rc == 6 && !strcmp(a.msg, want_msg), "agreed twice: '%s'", a.msg);
    }

    /* one reduction, each value by its own operation */
    int64_t each[4] = {r, r, (int64_t)r + 1, INT64_MAX - r};
    const dist_op how[4] = {DIST_MIN, DIST_MAX, DIST_SUM, DIST_SUM};
    rc = dist_allreduce_each(each, how, 4, &err);
    CHECK(!rc && each[0] == 0 && each[1] == n - 1 && each[2] == (int64_t)n * (n + 1) / 2,
          "each: %lld %lld %lld", (long long)each[0], (long long)each[1], (long long)each[2]);
    uint64_t wrap = 0; /* the sum of INT64_MAX - k, modulo 2^64 */
    for (int k = 0; k < n; k++)
        wrap += (uint64_t)INT64_MAX - (uint64_t)k;
    CHECK(!rc && (uint64_t)each[3] == wrap, "each: wrapped sum %lld", (long long)each[3]);

    /* contiguous ranges: every item in exactly one rank's range, in rank order */
    for (uint64_t items = 0; items < 11; items++)
        for (uint64_t i = 0; i < items; i++) {
            int owner = dist_range_rank(i, items);
            CHECK(owner >= 0 && owner < n && dist_range_first(owner, items) <= i &&
                      i < dist_range_first(owner + 1, items),
                  "item %llu of %llu on rank %d", (unsigned long long)i,
                  (unsigned long long)items, owner);
        }
    CHECK(dist_range_first(0, 10) == 0 && dist_range_first(n, 10) == 10, "range ends");

    /* streams of bundles: rank r sends rank k (k != r) (r + k) % 3 bundles, bundle j of j + 1
     * pairs: a 4-byte word naming (r, k, j, i) and an 8-byte record naming it again, some
     * taken in by a poll before the window's end, the rest by dist_stream_end */
    dist_host_memory mem = {NULL, plain_alloc, plain_release};
    dist_stream *st = NULL;
    rc = dist_stream_create(&st, 4, 8, &mem, &err);
    CHECK(rc == 0, "stream: %s", err.msg);
    uint32_t *words = calloc((size_t)n * 6, 4);
    uint64_t *recs = calloc((size_t)n * 6, 8);
    CHECK(words && recs, "no memory");
    for (int round = 0; round < 2 && rc == 0 && words && recs; round++) {
        for (int k = 0; k < n && rc == 0; k++) {
            if (k == r)
                continue;
            for (int j = 0; j < (r + k) % 3 && rc == 0; j++) {
                uint32_t *w = words + 6 * k + j; /* bundle 0: [0], bundle 1: [1, 2] */
                uint64_t *v = recs + (w - words);
                for (int i = 0; i <= j; i++) {
                    w[i] = (uint32_t)(round << 28 | r << 16 | k << 8 | j << 4 | i);
                    v[i] = 0xa55a000000000000ull | w[i];
                }
                rc = dist_stream_send(st, k, w, v, (uint64_t)j + 1, &err);
            }
        }
        if (rc == 0)
            rc = dist_stream_poll(st, &err);
        /* the last rank fails in the second round, after sending */
        int failed = round == 1 && last ? 7 : 0;
        cn_error h = {0};
        int ec = rc ? rc : dist_stream_end(st, failed, &h);
        if (round == 1) {
            CHECK(ec == (last ? 7 : n > 1 ? DIST_PEER_FAILED : 0), "failed stream: %d", ec);
            CHECK(h.code == 0, "failed stream set an error: %s", h.msg);
            break;
        }
        CHECK(ec == 0, "stream end: %s", h.msg);
        const void *pa, *pb;
        uint64_t n_got = dist_stream_arrived(st, &pa, &pb), n_want = 0;
        int seen[64][4][4] = {{{0}}};
        for (int k = 0; k < n; k++)
            if (k != r)
                for (int j = 0; j < (r + k) % 3; j++)
                    n_want += (uint64_t)j + 1;
        CHECK(n_got == n_want, "arrived %llu records, n_want %llu", (unsigned long long)n_got,
              (unsigned long long)n_want);
        for (uint64_t x = 0; x < n_got && ec == 0; x++) {
            uint32_t w;
            uint64_t v;
            memcpy(&w, (const unsigned char *)pa + 4 * x, 4);
            memcpy(&v, (const unsigned char *)pb + 8 * x, 8);
            int from = (int)(w >> 16 & 0xfff), to = (int)(w >> 8 & 0xff);
            int j = (int)(w >> 4 & 0xf), i = (int)(w & 0xf);
            int ok = v == (0xa55a000000000000ull | w) && (w >> 28) == 0 && to == r &&
                     from < n && from < 64 && from != r && j < (r + from) % 3 && i <= j;
            CHECK(ok && !seen[from][j][i], "arrival %llu is %x, %llx", (unsigned long long)x,
                  w, (unsigned long long)v);
            if (ok)
                seen[from][j][i] = 1;
        }
    }
    dist_stream_destroy(st);
    free(words);
    free(recs);

    /* every rank's verdict, so that one failing rank fails the test everywhere */
    uint64_t bad = (uint64_t)failures;
    if (dist_allreduce_u64(&bad, 1, DIST_SUM, &err) != 0)
        bad = 1;
    if (r == 0)
        printf("test_dist: %d rank(s), MPI %s: %s\n", n, dist_is_mpi() ? dist_library() : "no",
               bad ? "FAILED" : "ok");
    dist_finalize();
    return bad ? 1 : 0;
}
