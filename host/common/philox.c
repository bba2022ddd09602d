#include "common/philox.h"

#include <math.h>

philox4x32 philox4x32_10(philox4x32 c, uint32_t k0, uint32_t k1)
{
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c.v[0];
        uint64_t p1 = (uint64_t)0xCD9E8D57u * c.v[2];
        philox4x32 n;
        n.v[0] = (uint32_t)(p1 >> 32) ^ c.v[1] ^ k0;
        n.v[1] = (uint32_t)p1;
        n.v[2] = (uint32_t)(p0 >> 32) ^ c.v[3] ^ k1;
        n.v[3] = (uint32_t)p0;
        c = n;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c;
}

philox4x32 philox_draw(uint64_t seed, uint32_t a, uint32_t b, uint32_t s)
{
    philox4x32 ctr = {{a, b, s, 0}};
    return philox4x32_10(ctr, (uint32_t)seed, (uint32_t)(seed >> 32));
}

uint64_t philox_threshold(double p)
{
    if (!(p > 0.0))
        return 0;
    if (p >= 1.0)
        return (uint64_t)1 << 32;
    return (uint64_t)floor(p * 4294967296.0);
}
