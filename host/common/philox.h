/* Philox4x32-10 (Salmon et al., SC'11), the random stream of docs/model.md. The same function is
 * in cl/common/philox.clh; tests check both against the known answers. */
#ifndef CLNETSIM_PHILOX_H
#define CLNETSIM_PHILOX_H
#include <stdint.h>

typedef struct philox4x32 {
    uint32_t v[4];
} philox4x32;

/* Streams (docs/model.md, "Randomness"; docs/models.md, "Random streams"): the third counter
 * word of every draw. */
enum {
    STREAM_RELAY = 1,
    STREAM_PLACEMENT = 2,
    STREAM_MOBILITY_LEG = 3,
    STREAM_MOBILITY_PAUSE = 4,
    STREAM_QUDG_LINK = 5,
    STREAM_TRAFFIC = 6,
    STREAM_TRAFFIC_START = 12, /* docs/models.md, "Traffic" */
    STREAM_AREA_BORDER = 14,   /* docs/models.md, "Activity areas" */
};

philox4x32 philox4x32_10(philox4x32 ctr, uint32_t key0, uint32_t key1);

/* Draw for entity A, item B, stream S under SEED: ctr {a, b, s, 0}, key (seed lo, seed hi). */
philox4x32 philox_draw(uint64_t seed, uint32_t a, uint32_t b, uint32_t s);

/* A value uniform in [0, n): (w * n) >> 32 with a 64-bit product (n <= 2^32). */
static inline uint64_t philox_uniform(uint32_t w, uint64_t n) { return ((uint64_t)w * n) >> 32; }

/* floor(p * 2^32) in double precision, held in 64 bits; p = 1 gives 2^32 (always). */
uint64_t philox_threshold(double p);

#endif
