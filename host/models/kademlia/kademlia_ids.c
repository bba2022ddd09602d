/* The peers' ids (docs/models/kademlia.md, "Peers and their ids" and "Lookups"): drawn on the
 * host (each differs from every id before it in index order), then sorted once for the
 * devices' table builds. */
#include <stdlib.h>
#include <string.h>

#include "cl/kademlia/kademlia_layout.clh"
#include "common/philox.h"
#include "models/kademlia/kademlia_model.h"

/* The first BITS bits of the words A then C, left-aligned, into W words at OUT. */
static void id_from(const philox4x32 *a, const philox4x32 *c, uint32_t bits, uint32_t w,
                    uint32_t *out)
{
    for (uint32_t q = 0; q < w; q++) {
        uint32_t v = q < 4 ? a->v[q] : c->v[q - 4];
        int keep = (int)bits - 32 * (int)q;
        out[q] = keep >= 32 ? v : keep <= 0 ? 0 : v & ~(0xFFFFFFFFu >> keep);
    }
}

static uint64_t id_hash(const uint32_t *x, uint32_t w)
{
    uint64_t h = 0x243F6A8885A308D3u;
    for (uint32_t q = 0; q < w; q++) {
        h = (h + x[q]) * 0x9E3779B97F4A7C15u;
        h ^= h >> 29;
    }
    return h;
}

/* The rule's ids, each drawn again until it differs from every id before it: a hash set of
 * the ids so far, in index order. */
static int draw_distinct(uint64_t seed, uint32_t n, uint32_t bits, uint32_t *ids,
                         uint64_t *redraws, cn_error *err)
{
    uint32_t w = (bits + 31) / 32;
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    uint32_t *set = malloc(cap * sizeof *set); /* peer + 1; 0: empty */
    if (!set)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory for the ids of %u peers", n);
    memset(set, 0, cap * sizeof *set);
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    *redraws = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t *x = ids + (size_t)i * w;
        for (uint32_t a = 0;; a++, ++*redraws) {
            philox4x32 lo = philox4x32_10((philox4x32){{i, a, KAD_STREAM_ID, 0}}, k0, k1);
            philox4x32 hi = philox4x32_10((philox4x32){{i, a, KAD_STREAM_ID, 1}}, k0, k1);
            id_from(&lo, &hi, bits, w, x);
            size_t h = (size_t)id_hash(x, w) & (cap - 1);
            while (set[h] && memcmp(ids + (size_t)(set[h] - 1) * w, x, 4 * w) != 0)
                h = (h + 1) & (cap - 1);
            if (!set[h]) {
                set[h] = i + 1;
                break;
            }
        }
    }
    free(set);
    return 0;
}

int kad_make_ids(uint64_t seed, uint32_t n, uint32_t bits, uint32_t *ids, uint32_t *sorted,
                 uint32_t *sorted_peer, uint64_t *redraws, cn_error *err)
{
    /* Every peer's first draw, sorted: when no two are equal (almost always: 10^7 ids of 64
     * bits are all distinct with probability 0.999997) they are the rule's ids, since no
     * peer then draws again; otherwise the rule's own way, in index order. The same ids
     * either way, without the hash set's random accesses in the usual case. */
    uint32_t w = (bits + 31) / 32, k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (uint32_t i = 0; i < n; i++) {
        philox4x32 lo = philox4x32_10((philox4x32){{i, 0, KAD_STREAM_ID, 0}}, k0, k1);
        philox4x32 hi = philox4x32_10((philox4x32){{i, 0, KAD_STREAM_ID, 1}}, k0, k1);
        id_from(&lo, &hi, bits, w, ids + (size_t)i * w);
    }
    *redraws = 0;
    int rc = kad_sort_ids(ids, n, w, sorted, sorted_peer, err);
    int equal = 0;
    for (uint32_t j = 1; j < n && rc == 0 && !equal; j++)
        equal = memcmp(sorted + (size_t)(j - 1) * w, sorted + (size_t)j * w, 4 * w) == 0;
    if (equal && rc == 0)
        rc = draw_distinct(seed, n, bits, ids, redraws, err);
    if (equal && rc == 0)
        rc = kad_sort_ids(ids, n, w, sorted, sorted_peer, err);
    return rc;
}

/* A least-significant-digit radix sort of the ids (W words, most significant first) with
 * their peers, 16 bits a pass; a pass whose digit is the same for every id is skipped (the
 * bits past B of a left-aligned id are 0). An item is the W words, then the peer. */
int kad_sort_ids(const uint32_t *ids, uint32_t n, uint32_t w, uint32_t *sorted,
                 uint32_t *sorted_peer, cn_error *err)
{
    size_t iw = (size_t)w + 1, items = n ? n : 1; /* (no malloc of 0 bytes) */
    uint32_t *a = malloc(4 * iw * items), *b = malloc(4 * iw * items);
    uint32_t *count = malloc(4u << 16);
    if (!a || !b || !count) {
        free(a);
        free(b);
        free(count);
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory to sort %u ids", n);
    }
    for (size_t j = 0; j < n; j++) {
        memcpy(a + j * iw, ids + j * w, 4 * w);
        a[j * iw + w] = (uint32_t)j;
    }
    for (uint32_t pass = 0; pass < 2 * w; pass++) {
        uint32_t q = w - 1 - pass / 2, shift = 16 * (pass % 2);
        memset(count, 0, 4u << 16);
        for (size_t j = 0; j < n; j++)
            count[(a[j * iw + q] >> shift) & 0xFFFFu]++;
        uint32_t sum = 0;
        int same = 0;
        for (uint32_t d = 0; d < 65536u; d++) {
            uint32_t c = count[d];
            same |= c == n;
            count[d] = sum;
            sum += c;
        }
        if (same)
            continue;
        for (size_t j = 0; j < n; j++)
            memcpy(b + (size_t)count[(a[j * iw + q] >> shift) & 0xFFFFu]++ * iw, a + j * iw,
                   4 * iw);
        uint32_t *t = a;
        a = b;
        b = t;
    }
    for (size_t j = 0; j < n; j++) {
        memcpy(sorted + j * w, a + j * iw, 4 * w);
        sorted_peer[j] = a[j * iw + w];
    }
    free(a);
    free(b);
    free(count);
    return 0;
}

uint32_t kad_target_id(const kad_model *km, uint32_t i, uint32_t n, uint32_t left[5])
{
    uint32_t k0 = (uint32_t)km->sc.seed, k1 = (uint32_t)(km->sc.seed >> 32);
    memset(left, 0, 5 * sizeof *left);
    if (km->targets_peers) {
        philox4x32 d = philox4x32_10((philox4x32){{i, n, KAD_STREAM_LOOKUP, 0}}, k0, k1);
        uint32_t p = (uint32_t)(((uint64_t)i + 1 + philox_uniform(d.v[2], km->N - 1)) % km->N);
        memcpy(left, km->ids + (size_t)p * km->W, 4 * km->W);
        return p;
    }
    philox4x32 a = philox4x32_10((philox4x32){{i, n, KAD_STREAM_TARGET, 0}}, k0, k1);
    philox4x32 c = philox4x32_10((philox4x32){{i, n, KAD_STREAM_TARGET + 1, 0}}, k0, k1);
    id_from(&a, &c, km->B, km->W, left);
    return 0xffffffffu;
}

void kad_target_words(const kad_model *km, uint32_t i, uint32_t n, uint32_t out[5])
{
    uint32_t left[5];
    kad_target_id(km, i, n, left);
    /* the left-aligned 160 bits shifted right by 160 - B */
    uint32_t s = 160 - km->B, sw = s / 32, sb = s % 32;
    for (int q = 4; q >= 0; q--) {
        int from = q - (int)sw;
        uint32_t v = from >= 0 ? left[from] >> sb : 0;
        if (sb && from - 1 >= 0)
            v |= left[from - 1] << (32 - sb);
        out[q] = v;
    }
}
