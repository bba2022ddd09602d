/* The PHOLD model (docs/models/phold.md) on the devices: per-LP future event lists, executed
 * window by window in key order, remote events passed through an outbox.
 *
 * An event is a uint4: time (low, high words), origin LP, serial. Each LP keeps its pending
 * events unsorted in C slots of its own, slot q of LP i at slots[q * N + i], so that
 * neighbouring work-items read neighbouring events (coalesced on GPUs, vector loads on CPUs); a window executes the LP's events with t < tend by
 * repeated selection of the least key (t, origin, serial), so the order in which slots were
 * filled never matters. Every new event lands at least the lookahead after the event that made
 * it, hence at or after tend: nothing a window creates runs in the same window, and an LP's
 * new local event can take the slot of the event that made it. */
#pragma OPENCL FP_CONTRACT OFF
#include "philox.clh"
#include "phold_layout.clh"

inline long ev_time(uint4 e)
{
    return (long)(((ulong)e.y << 32) | (ulong)e.x);
}

inline uint4 ev_make(long t, uint origin, uint serial)
{
    return (uint4)((uint)(ulong)t, (uint)((ulong)t >> 32), origin, serial);
}

/* Whether A comes before B in the key order (t, origin, serial). */
inline int ev_before(uint4 a, uint4 b)
{
    long ta = ev_time(a), tb = ev_time(b);
    if (ta != tb)
        return ta < tb;
    if (a.z != b.z)
        return a.z < b.z;
    return a.w < b.w;
}

/* The start: LP i holds E events; event j is (A + EXP[w2 >> 16], i, i, j) with the draw of
 * counter {i, j, 2, 0}. One work-item per event (an LP's E may be large). */
__kernel void phold_start(uint first, ulong n_events, uint E, uint N, long lookahead,
                          uint2 key, __global const long *exp_table, __global uint *cnt,
                          __global uint4 *slots)
{
    ulong g = get_global_id(0);
    if (g >= n_events)
        return;
    uint i = first + (uint)(g / E), j = (uint)(g % E);
    uint4 w = philox_draw(key, i, j, PHOLD_STREAM_START);
    slots[(ulong)j * N + i] = ev_make(lookahead + exp_table[w.z >> 16], i, j);
    if (j == 0)
        cnt[i] = E;
}

/* One window of LPs first .. first + n - 1: each executes its events with t < tend in key
 * order. Local new events replace the event that made them; remote ones are appended to the
 * outbox. When the outbox is full the LP stops before the event it could not send (in key
 * order, so nothing is skipped) and counts itself in CTL_STALLED: the host makes room and runs
 * the window again, which executes only what is left. Per-LP statistics: stats[s * N + i]. */
__kernel void phold_execute(uint first, uint n, long tend, uint N, uint E, uint C,
                            ulong remote_thr, long lookahead, uint2 key,
                            __global const long *exp_table, __global uint *cnt,
                            __global uint4 *slots, __global ulong *stats,
                            __global uint4 *out_ev, __global uint *out_dest, uint out_cap,
                            __global uint *ctl)
{
    uint g = (uint)get_global_id(0);
    if (g >= n)
        return;
    uint i = first + g;
    uint c = cnt[i];
    __global uint4 *s = slots + i; /* slot q at s[q * N] */
    ulong k = stats[(ulong)STAT_EVENTS * N + i];
    ulong remote = stats[(ulong)STAT_REMOTE * N + i];
    ulong tsum = stats[(ulong)STAT_TIME_SUM * N + i];
    ulong wsum = stats[(ulong)STAT_WEIGHTED_SUM * N + i];
    ulong last = stats[(ulong)STAT_LAST * N + i];
    for (;;) {
        uint best = c;
        uint4 be = (uint4)(0u, 0u, 0u, 0u);
        for (uint q = 0; q < c; q++) {
            uint4 e = s[(ulong)q * N];
            if (ev_time(e) < tend && (best == c || ev_before(e, be))) {
                best = q;
                be = e;
            }
        }
        if (best == c)
            break;
        if ((ulong)E + k > 0xffffffffUL) { /* the serial E + k no longer fits 32 bits */
            atomic_inc(&ctl[CTL_SERIAL]);
            break;
        }
        uint4 w = philox4x32_10((uint4)(i, (uint)k, PHOLD_STREAM_EXECUTE, (uint)(k >> 32)), key);
        long t = ev_time(be);
        int is_remote = N > 1 && (ulong)w.x < remote_thr;
        uint4 ne = ev_make(t + lookahead + exp_table[w.z >> 16], i, (uint)((ulong)E + k));
        if (is_remote) {
            uint o = atomic_inc(&ctl[CTL_OUT]);
            if (o >= out_cap) {
                atomic_inc(&ctl[CTL_STALLED]);
                break;
            }
            /* (i + 1 + uniform(N - 1)) mod N: any LP but i; below 2^32 as N < 2^31 */
            out_dest[o] = (i + 1u + (uint)philox_uniform(w.y, (ulong)(N - 1u))) % N;
            out_ev[o] = ne;
            s[(ulong)best * N] = s[(ulong)(c - 1u) * N];
            c--;
            remote++;
        } else {
            s[(ulong)best * N] = ne;
        }
        k++;
        tsum += (ulong)t;
        wsum += (ulong)(i + 1u) * ((ulong)t & 0xffffffffUL);
        last = (ulong)t;
    }
    cnt[i] = c;
    stats[(ulong)STAT_EVENTS * N + i] = k;
    stats[(ulong)STAT_REMOTE * N + i] = remote;
    stats[(ulong)STAT_TIME_SUM * N + i] = tsum;
    stats[(ulong)STAT_WEIGHTED_SUM * N + i] = wsum;
    stats[(ulong)STAT_LAST * N + i] = last;
}

/* Delivers the outbox's records (their number: min(ctl[CTL_OUT], out_cap)): a record for an
 * LP of a partition this device holds (here[p]) takes a slot of that LP; one that finds the
 * LP's slots full goes to the overflow area (the host grows the slots and delivers it again);
 * one for an LP held elsewhere goes to the export area (the host carries it there). Slot order
 * is the order of the atomics, which never matters: LPs select by key. A grid-stride loop, so
 * that the host launches without reading the count back. */
__kernel void phold_deliver(__global uint *ctl, uint out_cap, __global const uint4 *out_ev,
                            __global const uint *out_dest, uint N, uint C, uint part_lps,
                            __global const uchar *here, __global uint *cnt,
                            __global uint4 *slots, __global uint4 *ovf_ev,
                            __global uint *ovf_dest, __global uint4 *x_ev,
                            __global uint *x_dest)
{
    uint total = min(ctl[CTL_OUT], out_cap);
    uint step = (uint)get_global_size(0);
    for (uint o = (uint)get_global_id(0); o < total; o += step) {
        uint d = out_dest[o];
        uint4 e = out_ev[o];
        if (!here[d / part_lps]) {
            uint x = atomic_inc(&ctl[CTL_EXPORT]);
            x_ev[x] = e;
            x_dest[x] = d;
            continue;
        }
        uint q = atomic_inc(&cnt[d]);
        if (q < C) {
            slots[(ulong)q * N + d] = e;
        } else {
            uint x = atomic_inc(&ctl[CTL_OVERFLOW]);
            ovf_ev[x] = e;
            ovf_dest[x] = d;
        }
    }
}

/* After an overflow: each LP's count (first .. first + n - 1) cut back to the C_OLD slots it
 * has (the rest is in the overflow area, delivered again next). The slots themselves stay
 * where they are: slot q of LP i is at q * N + i, so more slots are more rows after them. */
__kernel void phold_regrow(uint first, uint n, uint c_old, __global uint *cnt)
{
    uint g = (uint)get_global_id(0);
    if (g >= n)
        return;
    cnt[first + g] = min(cnt[first + g], c_old);
}

/* Tree reductions of one value per work-item in S (a power-of-two group); every work-item
 * calls them, and the result is in S[0] for all. */
#define REDUCE_MIN 0
#define REDUCE_MAX 1
#define REDUCE_SUM 2

inline void reduce_long_min(__local long *s, uint lid)
{
    for (uint h = (uint)get_local_size(0) / 2u; h > 0u; h /= 2u) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < h)
            s[lid] = min(s[lid], s[lid + h]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

inline void reduce_ulong(__local ulong *s, uint lid, int op)
{
    for (uint h = (uint)get_local_size(0) / 2u; h > 0u; h /= 2u) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < h) {
            ulong a = s[lid], b = s[lid + h];
            s[lid] = op == REDUCE_MIN ? min(a, b) : op == REDUCE_MAX ? max(a, b) : a + b;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* One contract word of a group: V per work-item reduced by OP, written by the first. */
inline void reduce_word(__local ulong *s, uint lid, ulong v, int op, __global ulong *out)
{
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous word's readers are done with S */
    s[lid] = v;
    reduce_ulong(s, lid, op);
    if (lid == 0)
        *out = s[0];
}

/* The least pending time of each work-group's LPs (first .. first + n - 1), written to
 * group_min[base + group]; PHOLD_NO_EVENT when none holds an event. */
__kernel void phold_min(uint first, uint n, uint N, __global const uint *cnt,
                        __global const uint4 *slots, __global long *group_min, uint base,
                        __local long *scratch)
{
    uint g = (uint)get_global_id(0), lid = (uint)get_local_id(0);
    long m = PHOLD_NO_EVENT;
    if (g < n) {
        uint i = first + g;
        uint c = cnt[i];
        for (uint q = 0; q < c; q++)
            m = min(m, ev_time(slots[(ulong)q * N + i]));
    }
    scratch[lid] = m;
    reduce_long_min(scratch, lid);
    if (lid == 0)
        group_min[base + (uint)get_group_id(0)] = scratch[0];
}

/* The contract's sums, minima and maxima over each work-group's LPs: group_res[(base + group)
 * * RES_WORDS + r]. */
__kernel void phold_results(uint first, uint n, uint N, __global const ulong *stats,
                            __global ulong *group_res, uint base, __local ulong *scratch)
{
    uint g = (uint)get_global_id(0), lid = (uint)get_local_id(0);
    uint i = first + g;
    int in = g < n;
    __global ulong *out = group_res + (ulong)(base + (uint)get_group_id(0)) * RES_WORDS;
    ulong events = in ? stats[(ulong)STAT_EVENTS * N + i] : 0;
    reduce_word(scratch, lid, events, REDUCE_SUM, out + RES_EVENTS);
    reduce_word(scratch, lid, in ? events : ~0UL, REDUCE_MIN, out + RES_EVENTS_MIN);
    reduce_word(scratch, lid, events, REDUCE_MAX, out + RES_EVENTS_MAX);
    reduce_word(scratch, lid, in ? stats[(ulong)STAT_REMOTE * N + i] : 0, REDUCE_SUM,
                out + RES_REMOTE);
    reduce_word(scratch, lid, in ? stats[(ulong)STAT_TIME_SUM * N + i] : 0, REDUCE_SUM,
                out + RES_TIME_SUM);
    reduce_word(scratch, lid, in ? stats[(ulong)STAT_WEIGHTED_SUM * N + i] : 0, REDUCE_SUM,
                out + RES_WEIGHTED_SUM);
    reduce_word(scratch, lid, in ? stats[(ulong)STAT_LAST * N + i] : 0, REDUCE_MAX,
                out + RES_LAST);
}
