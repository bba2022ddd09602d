/* The peers' ids (host/models/kademlia/kademlia_ids.c) against the rule of docs/models/
 * kademlia.md ("Peers and their ids") written out plainly here: peer i draws attempt a = 0,
 * 1, ... until its id differs from the ids of every peer before it. The simulator first sorts
 * every peer's first draw and takes the rule's way only when two are equal; on 80 000 peers of
 * 32 bits two are (the oracle also draws 2 ids again there: tests/kademlia/kademlia_tests.sh),
 * so both ways are checked. Also: the sorted ids ascend strictly and each is its peer's. No
 * device. */
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "cl/kademlia/kademlia_layout.clh"
#include "common/philox.h"
#include "models/kademlia/kademlia_model.h"

/* Attempt A of peer I: the first BITS bits of two Philox blocks' eight words, left-aligned. */
static void draw(uint64_t seed, uint32_t i, uint32_t a, uint32_t bits, uint32_t *out)
{
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32), v[8];
    for (uint32_t b = 0; b < 2; b++) {
        philox4x32 r = philox4x32_10((philox4x32){{i, a, KAD_STREAM_ID, b}}, k0, k1);
        memcpy(v + 4 * b, r.v, sizeof r.v);
    }
    for (uint32_t q = 0; q < (bits + 31) / 32; q++) {
        uint32_t keep = bits - 32 * q;
        out[q] = keep >= 32 ? v[q] : v[q] & ~(0xFFFFFFFFu >> keep);
    }
}

static int cmp_ids(const uint32_t *x, const uint32_t *y, uint32_t w)
{
    for (uint32_t q = 0; q < w; q++)
        if (x[q] != y[q])
            return x[q] < y[q] ? -1 : 1;
    return 0;
}

/* The rule, with a plain sorted array of the ids so far (insertion: small N only) */
static uint64_t rule_ids(uint64_t seed, uint32_t n, uint32_t bits, uint32_t *ids)
{
    uint32_t w = (bits + 31) / 32, *so_far = malloc(4 * (size_t)n * w);
    uint64_t redraws = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t *x = ids + (size_t)i * w;
        for (uint32_t a = 0;; a++, redraws++) {
            draw(seed, i, a, bits, x);
            uint32_t lo = 0, hi = i; /* the first of the sorted ids not below x */
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (cmp_ids(so_far + (size_t)mid * w, x, w) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < i && cmp_ids(so_far + (size_t)lo * w, x, w) == 0)
                continue;
            memmove(so_far + (size_t)(lo + 1) * w, so_far + (size_t)lo * w,
                    4 * (size_t)(i - lo) * w);
            memcpy(so_far + (size_t)lo * w, x, 4 * w);
            break;
        }
    }
    free(so_far);
    return redraws;
}

static void check_case(uint64_t seed, uint32_t n, uint32_t bits, int64_t redraws_want)
{
    uint32_t w = (bits + 31) / 32;
    uint32_t *ids = malloc(4 * (size_t)n * w), *want = malloc(4 * (size_t)n * w);
    uint32_t *sorted = malloc(4 * (size_t)n * w), *peer = malloc(4 * (size_t)n);
    unsigned char *seen = calloc(n, 1);
    uint64_t redraws = 99;
    cn_error err;
    CHECK(kad_make_ids(seed, n, bits, ids, sorted, peer, &redraws, &err) == 0);
    uint64_t rule = rule_ids(seed, n, bits, want);
    printf("seed %llu, %u peers of %u bits: %llu ids drawn again\n", (unsigned long long)seed,
           n, bits, (unsigned long long)rule);
    CHECK_U64(redraws, rule);
    if (redraws_want >= 0)
        CHECK_U64(rule, (uint64_t)redraws_want);
    CHECK(memcmp(ids, want, 4 * (size_t)n * w) == 0);
    int ascending = 1, theirs = 1, permutation = 1;
    for (uint32_t j = 0; j < n; j++) {
        if (j > 0 && cmp_ids(sorted + (size_t)(j - 1) * w, sorted + (size_t)j * w, w) >= 0)
            ascending = 0;
        if (peer[j] >= n || seen[peer[j]]) {
            permutation = 0;
            continue;
        }
        seen[peer[j]] = 1;
        if (cmp_ids(sorted + (size_t)j * w, ids + (size_t)peer[j] * w, w) != 0)
            theirs = 0;
    }
    CHECK(ascending);
    CHECK(permutation);
    CHECK(theirs);
    free(ids);
    free(want);
    free(sorted);
    free(peer);
    free(seen);
}

int main(void)
{
    check_case(1, 80000, 32, 2); /* first draws collide: the rule's own way */
    check_case(1, 100000, 64, 0);
    check_case(3, 500, 33, 0);   /* a bit in a second word */
    check_case(7, 1000, 160, 0); /* five words, the last one whole */
    check_case(5, 3000, 100, 0); /* four words, the last one partly */
    check_case(9, 2, 64, 0);
    check_case(9, 1, 64, 0);
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
