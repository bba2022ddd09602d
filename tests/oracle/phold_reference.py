#!/usr/bin/env python3
"""A second, deliberately plain reference of the PHOLD model (docs/models/phold.md).

It follows the model's text step by step and shares nothing with the C oracle: its own
Philox4x32-10 (philox_reference.py), its own table of delays, and another schedule. Each LP keeps its own queue, and
the run goes window by window as a parallel engine would: with Tmin the least pending time,
every LP executes, in its own (t, origin, serial) order, its events with t < min(Tmin + A, T)
(an event created in the window lands at least A later, so outside it). Slow, so only for
small cases.

usage: phold_reference.py SEED LPS POPULATION THRESHOLD LOOKAHEAD_NS MEAN_NS DURATION_NS
prints the JSON object of the model's outputs, as the simulator prints it.
"""
import heapq
import math
import sys

from philox_reference import philox4x32_10

MASK32 = 0xFFFFFFFF


def llround(x):
    """Nearest integer, halves away from zero (C's llround); x >= 0 here."""
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f  # x - floor(x) is exact in binary floating point


def exp_table(mean_ns):
    m = float(mean_ns)
    return [llround(-m * math.log1p(-(j + 0.5) / 65536.0)) for j in range(65536)]


def run(seed, n, e, thr, a, mean, t_end):
    key = (seed & MASK32, seed >> 32)
    exp = exp_table(mean)
    queues = [[] for _ in range(n)]  # per LP: heap of (t, origin, serial)
    for i in range(n):
        for j in range(e):
            w = philox4x32_10((i, j, 2, 0), key)
            heapq.heappush(queues[i], (a + exp[w[2] >> 16], i, j))
    executed = [0] * n
    out = dict(events=0, remote=0, time_sum_ns=0, lp_weighted_sum=0, last_time_ns=0)
    while True:
        tmin = min((q[0][0] for q in queues if q), default=None)
        if tmin is None or tmin >= t_end:
            break
        limit = min(tmin + a, t_end)
        for i in range(n):
            q = queues[i]
            while q and q[0][0] < limit:
                t, _origin, _serial = heapq.heappop(q)
                k = executed[i]
                w = philox4x32_10((i, k & MASK32, 1, k >> 32), key)
                dest = i
                if n > 1 and w[0] < thr:
                    dest = (i + 1 + ((w[1] * (n - 1)) >> 32)) % n
                    out["remote"] += 1
                new_t = t + a + exp[w[2] >> 16]
                assert new_t >= limit  # the window argument
                heapq.heappush(queues[dest], (new_t, i, e + k))
                executed[i] = k + 1
                out["events"] += 1
                out["time_sum_ns"] = (out["time_sum_ns"] + t) % 2**64
                out["lp_weighted_sum"] = (out["lp_weighted_sum"] + (i + 1) * (t % 2**32)) % 2**64
                out["last_time_ns"] = max(out["last_time_ns"], t)
    out["lp_events_min"] = min(executed)
    out["lp_events_max"] = max(executed)
    return out


def main():
    if len(sys.argv) != 8:
        sys.exit(__doc__.strip().splitlines()[-2])
    seed, n, e, thr, a, mean, t_end = (int(x) for x in sys.argv[1:])
    r = run(seed, n, e, thr, a, mean, t_end)
    names = ["model", "seed", "lps", "population", "events", "remote", "time_sum_ns",
             "lp_weighted_sum", "lp_events_min", "lp_events_max", "last_time_ns"]
    values = dict(r, model='"phold"', seed=seed, lps=n, population=e)
    print("{")
    for name in names:
        print('  "%s": %s,' % (name, values[name]))
    print('  "contract": [%s]' % ", ".join('"%s"' % x for x in names))
    print("}")


if __name__ == "__main__":
    main()
