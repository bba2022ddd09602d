/* The PHOLD model (docs/models/phold.md) on the devices: per-LP future event lists, executed
 * window by window in key order, remote events passed through an outbox.
 *
 * A device holds a block of P LPs (part_lps) for each partition it runs (host/models/phold/
 * phold_model.h). Each LP keeps its pending events unsorted in C slots of its own: slot q of
 * the LP g of block b holds the event's time in slot_t[(b * C + q) * P + g] and its (origin,
 * serial) at the same index of slot_os, so that neighbouring work-items read neighbouring
 * words (coalesced on GPUs, vector loads on CPUs) and a scan for due events reads times only;
 * its count is cnt[b * P + g] and its statistic s stats[(b * STAT_WORDS + s) * P + g]. A window executes the LP's events with
 * t < tend in the key order (t, origin, serial), so the order in which slots were filled never
 * matters. Every new event lands at least the lookahead after the event that made it, hence
 * at or after tend: nothing a window creates runs in the same window, and an LP's new local
 * event can take the slot of the event that made it.
 *
 * Each LP also keeps the least time of its slots below a mark (stats STAT_MIN, STAT_BASE):
 * the execution sets both, deliveries append above the mark, and the minimum kernel reads
 * only what was appended. Remote events travel through the core's exchange (common/exchange.clh):
 * a record is a uint4, time (low, high), origin, serial, and its destination word is the LP
 * (partition LP / part_lps). */
#pragma OPENCL FP_CONTRACT OFF
#include "common/exchange.clh"
#include "common/philox.clh"
#include "common/test_break.clh"
#include "phold/phold_keys.clh"
#include "phold/phold_layout.clh"

/* Due events an LP orders in private memory in one window; more take the slower path. */
#define DUE_MAX 8

inline long ev_time(uint4 e)
{
    return (long)(((ulong)e.y << 32) | (ulong)e.x);
}

inline uint4 ev_make(long t, uint origin, uint serial)
{
    return (uint4)((uint)(ulong)t, (uint)((ulong)t >> 32), origin, serial);
}

/* The start of the LPs first .. of block BLK: LP i holds E events; event j is
 * (A + EXP[w2 >> 16], i, i, j) with the draw of counter {i, j, 2, 0}. One work-item per event
 * (an LP's E may be large). */
__kernel void phold_start(uint first, ulong n_events, uint E, uint P, uint blk, uint C,
                          long lookahead, uint2 key, __global const long *exp_table,
                          __global uint *cnt, __global long *slot_t, __global uint2 *slot_os,
                          __global ulong *stats)
{
    ulong g = get_global_id(0);
    if (g >= n_events)
        return;
    uint l = (uint)(g / E), j = (uint)(g % E), i = first + l;
    uint4 w = philox_draw(key, i, j, PHOLD_STREAM_START);
    ulong at = ((ulong)blk * C + j) * P + l;
    slot_t[at] = lookahead + exp_table[w.z >> 16];
    slot_os[at] = (uint2)(i, j);
    if (j == 0) {
        cnt[(ulong)blk * P + l] = E;
        stats[((ulong)blk * STAT_WORDS + STAT_MIN) * P + l] = (ulong)PHOLD_NO_EVENT;
        stats[((ulong)blk * STAT_WORDS + STAT_BASE) * P + l] = 0;
    }
}

/* The running state of one LP's window. */
typedef struct lp_run {
    uint i, N, E;
    ulong k, remote, tsum, wsum, last;
    int stopped;            /* the outbox was full, or the serials ran out */
} lp_run;

/* Executes LP R->i's event at time T: its new event goes to *NEW_T, *NEW_OS when it stays
 * local (returns 1), to the outbox when it is remote (returns 0); -1: not executed (R->stopped
 * set). */
inline int execute_one(lp_run *r, long t, ulong remote_thr, long lookahead, uint2 key,
                       __global const long *exp_table, __global uint4 *out_ev,
                       __global uint *out_dest, uint out_cap, __global uint *ctl, long *new_t,
                       uint2 *new_os)
{
    if ((ulong)r->E + r->k > 0xffffffffUL) { /* the serial E + k no longer fits 32 bits */
        atomic_inc(&ctl[CTL_SERIAL]);
        r->stopped = 1;
        return -1;
    }
    uint4 w = philox4x32_10((uint4)(r->i, (uint)r->k, PHOLD_STREAM_EXECUTE, (uint)(r->k >> 32)),
                            key);
    long nt = t + lookahead + exp_table[w.z >> 16];
    uint serial = (uint)((ulong)r->E + r->k);
    int stays = !(r->N > 1 && (ulong)w.x < remote_thr);
    if (!stays) {
        uint o = xch_reserve(ctl, out_cap);
        if (o == 0xffffffffu) {
            r->stopped = 1;
            return -1;
        }
        /* (i + 1 + uniform(N - 1)) mod N: any LP but i; below 2^32 as N < 2^31 */
        out_dest[o] = (r->i + 1u + (uint)philox_uniform(w.y, (ulong)(r->N - 1u))) % r->N;
        out_ev[o] = ev_make(nt, r->i, serial);
        r->remote++;
    }
    *new_t = nt;
    *new_os = (uint2)(r->i, serial);
    r->k++;
    r->tsum += (ulong)t;
    r->wsum += (ulong)(r->i + 1u) * ((ulong)t & 0xffffffffUL);
    r->last = (ulong)t;
    return stays;
}

/* The end of a window: TEND, or when TEND < 0 (a chained window, phold_next) the chain's,
 * and 0 once the chain stopped (nothing is due before 0: the window does nothing). */
inline long window_end(long tend, __global const long *win)
{
    if (tend >= 0)
        return tend;
    return win[WIN_STOP] != 0 ? 0 : win[WIN_TEND];
}

/* One window of LPs first .. first + n - 1, block BLK: each executes its events with
 * t < tend in key order (tend < 0: the chain's end, window_end). Local new events replace the
 * event that made them; remote ones are appended to the outbox and their slots given up. When
 * the outbox is full the LP stops before the event it could not send (in key order, so
 * nothing is skipped) and counts itself in XCH_STALLED: the host makes room and runs the
 * window again, which executes only what is left. */
__kernel void phold_execute(uint first, uint n, uint P, uint blk, uint C, long tend, uint N,
                            uint E, ulong remote_thr, long lookahead, uint2 key,
                            __global const long *exp_table,
                            __global uint *cnt, __global long *slot_t, __global uint2 *slot_os,
                            __global ulong *stats, __global uint4 *out_ev,
                            __global uint *out_dest, uint out_cap, __global uint *ctl,
                            __global const long *win)
{
    uint g = (uint)get_global_id(0);
    if (g >= n)
        return;
    tend = window_end(tend, win);
    lp_run r;
    r.i = first + g;
    r.N = N;
    r.E = E;
    r.stopped = 0;
    /* slot q at st[q * P], statistic s at sw[s * P] */
    __global long *st = slot_t + (ulong)blk * C * P + g;
    __global uint2 *so = slot_os + (ulong)blk * C * P + g;
    __global ulong *sw = stats + (ulong)blk * STAT_WORDS * P + g;
    __global uint *cp = cnt + (ulong)blk * P + g;
    uint c = *cp;
    /* One pass: the due slots (at most DUE_MAX kept), and the least time of the others. */
    uint due[DUE_MAX];
    uint nd = 0, many = 0;
    long rest = PHOLD_NO_EVENT;
    for (uint q = 0; q < c; q++) {
        long t = st[(ulong)q * P];
        if (t >= tend)
            rest = min(rest, t);
        else if (nd < DUE_MAX)
            due[nd++] = q;
        else
            many = 1;
    }
    if (nd == 0)
        return; /* nothing due: every word stays as it is */
    r.k = sw[(ulong)STAT_EVENTS * P];
    r.remote = sw[(ulong)STAT_REMOTE * P];
    r.tsum = sw[(ulong)STAT_TIME_SUM * P];
    r.wsum = sw[(ulong)STAT_WEIGHTED_SUM * P];
    r.last = sw[(ulong)STAT_LAST * P];
    long nt;
    uint2 nos;
    if (!many) {
        /* the due slots in key order (insertion sort of a handful) */
        long dt[DUE_MAX];
        uint2 dos[DUE_MAX];
        for (uint a = 0; a < nd; a++) {
            long t = st[(ulong)due[a] * P];
            uint2 os = so[(ulong)due[a] * P];
            uint q = due[a], b = a;
            for (; b > 0 && key_before(t, os, dt[b - 1], dos[b - 1]); b--) {
                dt[b] = dt[b - 1];
                dos[b] = dos[b - 1];
                due[b] = due[b - 1];
            }
            dt[b] = t;
            dos[b] = os;
            due[b] = q;
        }
        uint gone[DUE_MAX]; /* slots given up by remote events, in increasing order */
        uint n_gone = 0;
        for (uint a = 0; a < nd; a++) {
            int res = r.stopped ? -1
                                : execute_one(&r, dt[a], remote_thr, lookahead, key, exp_table,
                                              out_ev, out_dest, out_cap, ctl, &nt, &nos);
            if (res < 0) {
                rest = min(rest, dt[a]); /* not executed: still pending */
            } else if (res == 1) {
                st[(ulong)due[a] * P] = nt;
                so[(ulong)due[a] * P] = nos;
                rest = min(rest, nt);
            } else {
                uint b = n_gone++;
                for (; b > 0 && gone[b - 1] > due[a]; b--)
                    gone[b] = gone[b - 1];
                gone[b] = due[a];
            }
        }
        /* Given-up slots from the highest down, each filled by the last slot: that slot is
         * never one still to be given up (those are lower), unless it is this one. */
        for (uint b = n_gone; b > 0; b--) {
            uint q = gone[b - 1];
            c--;
            if (q != c) {
                st[(ulong)q * P] = st[(ulong)c * P];
                so[(ulong)q * P] = so[(ulong)c * P];
            }
        }
    } else {
        /* more due events than the private list holds: repeated selection of the least key */
        while (!r.stopped) {
            long bt;
            uint2 bos;
            uint best = least_due(st, so, c, P, tend, &bt, &bos);
            if (best == c)
                break;
            int res = execute_one(&r, bt, remote_thr, lookahead, key, exp_table, out_ev,
                                  out_dest, out_cap, ctl, &nt, &nos);
            if (res == 1) {
                st[(ulong)best * P] = nt;
                so[(ulong)best * P] = nos;
            } else if (res == 0) {
                c--;
                st[(ulong)best * P] = st[(ulong)c * P];
                so[(ulong)best * P] = so[(ulong)c * P];
            }
        }
        rest = PHOLD_NO_EVENT;
        for (uint q = 0; q < c; q++)
            rest = min(rest, st[(ulong)q * P]);
    }
    *cp = c;
    sw[(ulong)STAT_EVENTS * P] = r.k;
    sw[(ulong)STAT_REMOTE * P] = r.remote;
    sw[(ulong)STAT_TIME_SUM * P] = r.tsum;
    sw[(ulong)STAT_WEIGHTED_SUM * P] = r.wsum;
    sw[(ulong)STAT_LAST * P] = r.last;
    sw[(ulong)STAT_MIN * P] = (ulong)rest;
    sw[(ulong)STAT_BASE * P] = c;
}

/* PHOLD's consumer of the core's exchange: delivers the outbox's records (or the inbox's the
 * core filled in its place), from xch_first to xch_count; in a chained window (CHAINED) none
 * once the chain stopped (the host then delivers what is left). A record for an LP of a
 * partition this device holds takes a slot of that LP (in the partition's block, BLOCK_MAP);
 * one that finds the LP's slots full goes to the deferred area (the host grows the slots and
 * the core delivers it again); one for an LP held elsewhere goes to the export area (the core
 * carries it there). Slot order is the order of the atomics, which never matters: LPs select
 * by key. A grid-stride loop, so that the host launches without reading the count back. */
__kernel void phold_deliver(__global uint *ctl, uint out_cap, __global const uint4 *out_ev,
                            __global const uint *out_dest, uint C, uint part_lps,
                            __global const uchar *here, __global const uint *block_map,
                            __global uint *cnt,
                            __global long *slot_t, __global uint2 *slot_os,
                            __global uint4 *def_ev, __global uint *def_dest,
                            __global uint4 *x_ev, __global uint *x_dest,
                            __global const long *win, int chained)
{
    if (chained && win[WIN_STOP] != 0)
        return;
    uint total = xch_count(ctl, out_cap);
    uint step = (uint)get_global_size(0);
    for (uint o = xch_first(ctl) + (uint)get_global_id(0); o < total; o += step) {
        uint d = out_dest[o];
        uint4 e = out_ev[o];
        if (!xch_here(here, d, part_lps)) {
            uint x = xch_export_slot(ctl);
            x_ev[x] = e;
            x_dest[x] = d;
            continue;
        }
        uint p = d / part_lps, l = d - p * part_lps;
        ulong b = block_map[p];
        uint q = atomic_inc(&cnt[b * part_lps + l]);
        if (q < C) {
            ulong at = (b * C + q) * part_lps + l;
            slot_t[at] = ev_time(e);
            slot_os[at] = e.zw;
        } else {
            /* the count goes back to C: partitions that run after a segment's delivery
             * (the exchange's streaming) read it before the slots grow */
            atomic_dec(&cnt[b * part_lps + l]);
            uint x = xch_defer_slot(ctl);
            def_ev[x] = e;
            def_dest[x] = d;
        }
    }
}

/* After an overflow: the count of each of the n LPs from cnt[at] on cut back to the C_OLD
 * slots it has (the rest is in the deferred area, delivered again next); the host then moves
 * each block's slots to their place in the grown arrays. */
__kernel void phold_regrow(ulong at, uint n, uint c_old, __global uint *cnt)
{
    uint g = (uint)get_global_id(0);
    if (g >= n)
        return;
    cnt[at + g] = min(cnt[at + g], c_old);
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

inline void reduce_long_sum(__local long *s, uint lid)
{
    for (uint h = (uint)get_local_size(0) / 2u; h > 0u; h /= 2u) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < h)
            s[lid] += s[lid + h];
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

/* The least pending time of each work-group's LPs (the first n of block BLK), written to
 * group_min[2 * (base + group)] (PHOLD_NO_EVENT when none holds an event), and the events they
 * have executed to the word after it (for the progress line). Each LP's own least time covers
 * its slots below its mark; the slots delivered above it are read and the mark moved. */
__kernel void phold_min(uint n, uint P, uint blk, uint C, __global const uint *cnt,
                        __global const long *slot_t, __global ulong *stats,
                        __global long *group_min, uint base, __local long *scratch)
{
    uint g = (uint)get_global_id(0), lid = (uint)get_local_id(0);
    long m = PHOLD_NO_EVENT;
    __global ulong *sw = stats + (ulong)blk * STAT_WORDS * P + g; /* statistic s at sw[s * P] */
    if (g < n) {
        /* an LP that overflowed counts more events than its C slots hold: the others wait in
         * the deferred area, and this kernel runs again once they are delivered */
        uint c = min(cnt[(ulong)blk * P + g], C);
        uint mark = (uint)sw[(ulong)STAT_BASE * P];
        m = (long)sw[(ulong)STAT_MIN * P];
        if (mark > c) { /* never by the rules above; a full scan is always right */
            mark = 0;
            m = PHOLD_NO_EVENT;
        }
        if (mark != c) {
            for (uint q = mark; q < c; q++)
                m = min(m, slot_t[((ulong)blk * C + q) * P + g]);
            sw[(ulong)STAT_MIN * P] = (ulong)m;
            sw[(ulong)STAT_BASE * P] = c;
        }
    }
    __global long *out = group_min + 2 * ((ulong)base + get_group_id(0));
    scratch[lid] = m;
    reduce_long_min(scratch, lid);
    if (lid == 0)
        out[0] = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read the minimum from scratch */
    scratch[lid] = g < n ? (long)sw[(ulong)STAT_EVENTS * P] : 0;
    reduce_long_sum(scratch, lid);
    if (lid == 0)
        out[1] = scratch[0];
}

/* Between two windows of a chained step (one device, one process; host/models/phold/
 * phold_window.c): after a window's delivery and phold_min, arms the next window, whose end is
 * min(least + lookahead, T) for the least pending time of the N_GROUPS groups of group_min
 * that GROUPS names, and clears the exchange's control words for it; or stops the chain
 * (WIN_STOP): when the exchange needs the host (records deferred, producers stalled, the
 * model's own word set), when no event is left before T, or when the window ended at or after
 * UNTIL (the step's limit). One work-group of a power of two (only its first work-item reads
 * and writes CTL and WIN); nothing once the chain stopped. */
__kernel void phold_next(__global uint *ctl, __global long *win, __global const long *group_min,
                         __global const uint *groups, uint n_groups, long lookahead, long T,
                         long until, __local long *scratch)
{
    uint lid = (uint)get_local_id(0), size = (uint)get_local_size(0);
    long m = PHOLD_NO_EVENT;
    for (uint g = lid; g < n_groups; g += size)
        m = min(m, group_min[2 * (ulong)groups[g]]);
    scratch[lid] = m;
    reduce_long_min(scratch, lid);
    if (lid == 0 && win[WIN_STOP] == 0) {
        uint dirty = ctl[XCH_DEFER] | ctl[XCH_EXPORT] | ctl[XCH_STALLED];
        for (uint w = XCH_MODEL; w < XCH_WORDS; w++)
            dirty |= ctl[w];
        long least = scratch[0];
        if (dirty != 0u) {
            win[WIN_STOP] = WIN_STOP_HOST;
        } else if (least >= T) {
            win[WIN_STOP] = WIN_STOP_END;
        } else if (win[WIN_TEND] >= until) {
            win[WIN_STOP] = WIN_STOP_UNTIL;
        } else {
            win[WIN_TEND] = least + lookahead < T ? least + lookahead : T;
            win[WIN_RAN]++;
            for (uint w = 0; w < XCH_WORDS; w++)
                ctl[w] = 0;
        }
    }
}

/* The contract's sums, minima and maxima over each work-group's LPs (the first n of block
 * BLK): group_res[(base + group) * RES_WORDS + r]. */
__kernel void phold_results(uint n, uint P, uint blk, __global const ulong *stats,
                            __global ulong *group_res, uint base, __local ulong *scratch)
{
    uint g = (uint)get_global_id(0), lid = (uint)get_local_id(0);
    __global const ulong *sw = stats + (ulong)blk * STAT_WORDS * P + g;
    int in = g < n;
    /* (the test hook: in groups of more than one item, the odd items' LPs left out) */
    if (TEST_DROPS(TB_PHOLD_RESULTS, lid) && get_local_size(0) > 1u)
        in = 0;
    __global ulong *out = group_res + (ulong)(base + (uint)get_group_id(0)) * RES_WORDS;
    ulong events = in ? sw[(ulong)STAT_EVENTS * P] : 0;
    reduce_word(scratch, lid, events, REDUCE_SUM, out + RES_EVENTS);
    reduce_word(scratch, lid, in ? events : ~0UL, REDUCE_MIN, out + RES_EVENTS_MIN);
    reduce_word(scratch, lid, events, REDUCE_MAX, out + RES_EVENTS_MAX);
    reduce_word(scratch, lid, in ? sw[(ulong)STAT_REMOTE * P] : 0, REDUCE_SUM,
                out + RES_REMOTE);
    reduce_word(scratch, lid, in ? sw[(ulong)STAT_TIME_SUM * P] : 0, REDUCE_SUM,
                out + RES_TIME_SUM);
    reduce_word(scratch, lid, in ? sw[(ulong)STAT_WEIGHTED_SUM * P] : 0, REDUCE_SUM,
                out + RES_WEIGHTED_SUM);
    reduce_word(scratch, lid, in ? sw[(ulong)STAT_LAST * P] : 0, REDUCE_MAX,
                out + RES_LAST);
}
