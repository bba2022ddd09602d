#pragma OPENCL FP_CONTRACT OFF
/* Known-answer self-test run on every device before use (host/device/device_selftest.c): the
 * host compares the outputs with the Philox answers of docs/model.md and with the 64-bit integer
 * and atomic results below. A device that gets any of them wrong would break the determinism
 * contract silently, so it is refused instead. */
#include "common/philox.clh"

/* One known answer per work-item: CTR_KEY holds ctr[4], key[2] per answer. The answer comes
 * from philox4x32_10 and, in lane i % 16 of a block of sixteen, from philox4x32_10_x16 (the
 * other lanes carry other counters, so that lanes cannot be confused); a word on which the
 * two disagree is written inverted, so the host's comparison fails whichever is wrong. */
__kernel void selftest_philox(__global const uint *ctr_key, __global uint *out)
{
    size_t i = get_global_id(0);
    __global const uint *in = ctr_key + i * 6;
    uint2 key = (uint2)(in[4], in[5]);
    uint4 r = philox4x32_10((uint4)(in[0], in[1], in[2], in[3]), key);
    uint lane = (uint)(i % 16);
    uint16 c0 = (uint16)(in[0]) + (uint16)(1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u,
                                           13u, 14u, 15u, 16u);
    uint16 c1 = (uint16)(in[1]), c2 = (uint16)(in[2]), c3 = (uint16)(in[3]);
    uint v[16];
    vstore16(c0, 0, v);
    v[lane] = in[0];
    c0 = vload16(0, v);
    philox4x32_10_x16(&c0, &c1, &c2, &c3, key);
    uint w[4][16];
    vstore16(c0, 0, w[0]);
    vstore16(c1, 0, w[1]);
    vstore16(c2, 0, w[2]);
    vstore16(c3, 0, w[3]);
    out[i * 4 + 0] = w[0][lane] == r.x ? r.x : ~r.x;
    out[i * 4 + 1] = w[1][lane] == r.y ? r.y : ~r.y;
    out[i * 4 + 2] = w[2][lane] == r.z ? r.z : ~r.z;
    out[i * 4 + 3] = w[3][lane] == r.w ? r.w : ~r.w;
}

/* The integer operations the models' exact results rest on. Operands come from the host (A) so
 * that the compiler cannot fold them; work-item 0 writes one result per check into OUT, and
 * every work-item updates the COUNTERS with 32-bit global atomics, whose final values do not
 * depend on the order in which work-items run. The order of OUT and COUNTERS is the order of
 * the checks in device_selftest.c. */
__kernel void selftest_integer(__global const ulong *a, __global ulong *out,
                               __global uint *counters)
{
    uint i = (uint)get_global_id(0);
    atomic_or(&counters[0], 1u << (i & 31u));
    atomic_inc(&counters[1]);
    atomic_min(&counters[2], 1000u - i);
    atomic_max(&counters[3], i * 7u);
    atomic_add(&counters[4], i);
    if (i != 0)
        return;
    uint x = (uint)a[0], y = (uint)a[1];
    long s = (long)a[5];
    out[0] = (ulong)x * (ulong)y;           /* 32 x 32 -> 64-bit product */
    out[1] = philox_uniform(x, a[2]);       /* (w * n) >> 32 */
    out[2] = (ulong)mul_hi(x, y);           /* high word, as in Philox */
    out[3] = a[3] * a[4];                   /* 64-bit product, wrapping */
    out[4] = (ulong)(s / (long)a[6]);       /* signed division truncates towards zero */
    out[5] = (ulong)(s % (long)a[6]);       /* and the remainder takes the dividend's sign */
    out[6] = (ulong)(s >> 3);               /* arithmetic shift of a negative value */
    out[7] = (ulong)((long)a[7] * s);       /* signed 64-bit product */
}
