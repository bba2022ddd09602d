/* PHOLD's execution shaped for CPU devices (built after phold.cl, whose helpers it uses, on
 * devices of type CPU only; host/models/phold/phold_setup.c). Same arguments, state and
 * results as phold_execute, bit for bit: only the memory it touches differs. On a CPU a
 * work-group is a loop over its work-items, and phold_execute's time goes to cache misses
 * (docs/models/phold.md, "Execution on CPUs"): the delay table's random reads, the due
 * events' (origin, serial) words, and the scan of every slot of every LP. Here:
 *
 * - an LP whose least pending time is known (its mark covers all its slots) and not due
 *   returns before reading any slot;
 * - due events are ordered by time alone, reading (origin, serial) only for two due events
 *   of equal time (the key order's tie rule; such events are interchangeable anyway);
 * - delays come from the compact table: EXP[j] = base[j / EXP_BLOCK] + off[j], a 32-bit
 *   offset from a 64-bit base per block of the ascending table (264 KB instead of 512 KB, so
 *   it stays in the core's L2 cache). A block whose offsets do not fit 32 bits has a negative
 *   base (every delay is >= 0) and its delays are read from the full table: exact always;
 * - the draws and delays of the due events are fetched before any of them executes, so that
 *   their table reads overlap instead of waiting one after the other. */

inline long exp_delay(uint j, __global const long *exp_table, __global const long *exp_base,
                      __global const uint *exp_off)
{
    long b = exp_base[j >> PHOLD_EXP_BLOCK_SHIFT];
    return b >= 0 ? b + (long)exp_off[j] : exp_table[j];
}

/* Whether due event A (time TA, slot QA) comes before B in the key order. */
inline int due_before(long ta, uint qa, long tb, uint qb, __global const uint2 *so, uint P)
{
    if (ta != tb)
        return ta < tb;
    return key_before(ta, so[(ulong)qa * P], tb, so[(ulong)qb * P]);
}

__kernel void phold_execute_cpu(uint first, uint n, uint P, uint blk, uint C, long tend, uint N,
                                uint E, ulong remote_thr, long lookahead, uint2 key,
                                __global const long *exp_table,
                                __global uint *cnt, __global long *slot_t,
                                __global uint2 *slot_os, __global ulong *stats,
                                __global uint4 *out_ev, __global uint *out_dest, uint out_cap,
                                __global uint *ctl, __global const long *win,
                                __global const long *exp_base, __global const uint *exp_off)
{
    uint g = (uint)get_global_id(0);
    if (g >= n)
        return;
    tend = window_end(tend, win);
    /* slot q at st[q * P], statistic s at sw[s * P] */
    __global long *st = slot_t + (ulong)blk * C * P + g;
    __global uint2 *so = slot_os + (ulong)blk * C * P + g;
    __global ulong *sw = stats + (ulong)blk * STAT_WORDS * P + g;
    __global uint *cp = cnt + (ulong)blk * P + g;
    uint c = *cp;
    if ((uint)sw[(ulong)STAT_BASE * P] == c && (long)sw[(ulong)STAT_MIN * P] >= tend)
        return; /* every slot is below the mark and none is due: nothing changes */
    uint due[DUE_MAX];
    long dt[DUE_MAX];
    uint nd = 0, many = 0;
    long rest = PHOLD_NO_EVENT;
    for (uint q = 0; q < c; q++) {
        long t = st[(ulong)q * P];
        if (t >= tend) {
            rest = min(rest, t);
        } else if (nd < DUE_MAX) {
            due[nd] = q;
            dt[nd++] = t;
        } else {
            many = 1;
        }
    }
    if (nd == 0)
        return;
    lp_run r;
    r.i = first + g;
    r.N = N;
    r.E = E;
    r.stopped = 0;
    r.k = sw[(ulong)STAT_EVENTS * P];
    r.remote = sw[(ulong)STAT_REMOTE * P];
    r.tsum = sw[(ulong)STAT_TIME_SUM * P];
    r.wsum = sw[(ulong)STAT_WEIGHTED_SUM * P];
    r.last = sw[(ulong)STAT_LAST * P];
    if (many) {
        /* more due events than the private list holds (rare): phold_execute's own path */
        while (!r.stopped) {
            long bt;
            uint2 bos;
            uint best = least_due(st, so, c, P, tend, &bt, &bos);
            if (best == c)
                break;
            long nt;
            uint2 nos;
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
    } else {
        /* the due slots in key order (insertion sort of a handful) */
        for (uint a = 1; a < nd; a++) {
            long t = dt[a];
            uint q = due[a], b = a;
            for (; b > 0 && due_before(t, q, dt[b - 1], due[b - 1], so, P); b--) {
                dt[b] = dt[b - 1];
                due[b] = due[b - 1];
            }
            dt[b] = t;
            due[b] = q;
        }
        /* every draw and delay first: the table reads are independent of each other */
        uint4 w[DUE_MAX];
        long delay[DUE_MAX];
        for (uint a = 0; a < nd; a++)
            w[a] = philox4x32_10((uint4)(r.i, (uint)(r.k + a), PHOLD_STREAM_EXECUTE,
                                         (uint)((r.k + a) >> 32)),
                                 key);
        for (uint a = 0; a < nd; a++)
            delay[a] = exp_delay(w[a].z >> 16, exp_table, exp_base, exp_off);
        uint gone[DUE_MAX]; /* slots given up by remote events, in increasing order */
        uint n_gone = 0;
        for (uint a = 0; a < nd; a++) {
            if (!r.stopped && (ulong)r.E + r.k > 0xffffffffUL) {
                atomic_inc(&ctl[CTL_SERIAL]); /* the serial E + k no longer fits 32 bits */
                r.stopped = 1;
            }
            long t = dt[a], nt = t + lookahead + delay[a];
            uint serial = (uint)((ulong)r.E + r.k);
            int stays = !(r.N > 1 && (ulong)w[a].x < remote_thr);
            if (!r.stopped && !stays) {
                uint o = xch_reserve(ctl, out_cap);
                if (o == 0xffffffffu) {
                    r.stopped = 1;
                } else {
                    /* (i + 1 + uniform(N - 1)) mod N: any LP but i; below 2^32 as N < 2^31 */
                    out_dest[o] =
                        (r.i + 1u + (uint)philox_uniform(w[a].y, (ulong)(r.N - 1u))) % r.N;
                    out_ev[o] = ev_make(nt, r.i, serial);
                    r.remote++;
                }
            }
            if (r.stopped) {
                rest = min(rest, t); /* not executed: still pending */
                continue;
            }
            r.k++;
            r.tsum += (ulong)t;
            r.wsum += (ulong)(r.i + 1u) * ((ulong)t & 0xffffffffUL);
            r.last = (ulong)t;
            if (stays) {
                st[(ulong)due[a] * P] = nt;
                so[(ulong)due[a] * P] = (uint2)(r.i, serial);
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
