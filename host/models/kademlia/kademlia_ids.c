/* The peers' ids (docs/models/kademlia.md, "Peers and their ids" and "Lookups"): drawn on the
 * host in index order, each checked against the ids before it in a hash set, then sorted once
 * for the devices' table builds. */
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

int kad_make_ids(uint64_t seed, uint32_t n, uint32_t bits, uint32_t *ids, uint64_t *redraws,
                 cn_error *err)
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

/* qsort has no context: the words of an id travel with it. */
typedef struct sort_item {
    uint32_t w[5];
    uint32_t peer;
} sort_item;

static uint32_t sort_words;

static int by_id(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    for (uint32_t q = 0; q < sort_words; q++)
        if (x->w[q] != y->w[q])
            return x->w[q] < y->w[q] ? -1 : 1;
    return 0;
}

int kad_sort_ids(const uint32_t *ids, uint32_t n, uint32_t w, uint32_t *sorted,
                 uint32_t *sorted_peer, cn_error *err)
{
    sort_item *it = malloc((size_t)n * sizeof *it);
    if (!it)
        return cn_fail(err, CN_ERR_RUNTIME, "out of host memory to sort %u ids", n);
    for (uint32_t j = 0; j < n; j++) {
        memset(it[j].w, 0, sizeof it[j].w);
        memcpy(it[j].w, ids + (size_t)j * w, 4 * w);
        it[j].peer = j;
    }
    sort_words = w;
    qsort(it, n, sizeof *it, by_id);
    for (uint32_t j = 0; j < n; j++) {
        memcpy(sorted + (size_t)j * w, it[j].w, 4 * w);
        sorted_peer[j] = it[j].peer;
    }
    free(it);
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
