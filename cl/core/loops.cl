#pragma OPENCL FP_CONTRACT OFF
/* The loop probe (host/device/device_loops.c): one work-item runs a loop of N iterations, each
 * a step of a linear congruential sequence (which no compiler can skip), and writes the
 * iterations it counted and the sequence's last value. An implementation that ends a
 * work-item's loops early (Mesa's llvmpipe ends them after 65535 iterations in all,
 * platforms/rusticl.ini) counts fewer; the host then bounds the launches of the kernels whose
 * loops are long (the whole-packet kernels, flood_layout.clh "Bounded launches"). */
__kernel void probe_loops(__global uint *out, uint n)
{
    uint count = 0u, x = 1u;
    for (uint i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        count++;
    }
    out[0] = count;
    out[1] = x;
}
