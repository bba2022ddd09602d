#!/usr/bin/env python3
"""The partitions a coordinator moves between ranks (the JSON's "ranks": {"moves"}),
computed here on its own from the rule of docs/architecture.md ("Several ranks") for runs
measured by the test hook CLNETSIM_TEST_RANK_SLOWER=F with CLNETSIM_TEST_RANK=SLOW. PHOLD's:
every rank takes a microsecond for each LP it holds each window, rank SLOW F microseconds,
and looks every REBALANCE windows. The flood's window loop (LPS given as "flood"): a
millisecond for each partition held each window that transmitted, F on rank SLOW, and as
many looks as the JSON's "ranks": {"looks"} (every REBALANCE windows that transmitted).

Usage: balance_oracle.py RUN.json RANKS SLOW F REBALANCE PARTITIONS LPS|flood"""
import json
import sys


def first_of(rank, ranks, n):
    """dist_range_first: rank r's first item of N cut into RANKS nearly equal ranges."""
    return rank * n // ranks


def look(first, ranks, lps, part_lps, slow, factor, windows):
    """One look of the coordinator: the new boundaries (LPS None: the flood's partitions)."""
    held = [first[r + 1] - first[r] for r in range(ranks)]
    busy = []
    for r in range(ranks):
        if lps is None:
            busy.append(held[r] * windows * 1000000 * (factor if r == slow else 1))
            continue
        lo, hi = min(first[r] * part_lps, lps), min(first[r + 1] * part_lps, lps)
        busy.append((hi - lo) * windows * 1000 * (factor if r == slow else 1))
    w = [0] * ranks
    measured = [r for r in range(ranks) if held[r] > 0 and busy[r] > 0]
    if not measured:
        return first
    for r in measured:
        w[r] = max((held[r] << 32) // busy[r], 1)
    busy_sum = sum(busy[r] for r in measured)
    busy_max = max(busy[r] for r in measured)
    if busy_max * 8 * len(measured) <= busy_sum * 9:
        return first
    mean = sum(w[r] for r in measured) // len(measured)
    w = [x if x else max(mean, 1) for x in w]
    total, parts = sum(w), first[ranks]
    nxt, cum = list(first), 0
    for k in range(1, ranks):
        cum += w[k - 1]
        b = nxt[k]
        # a rank gives only partitions it held before this look, keeping one
        left = max(first[k] - max(nxt[k - 1], first[k - 1]), 0)
        right = first[k + 1] - first[k]
        num, at = parts * cum, b * total
        # a target a whole partition or more away: half the way there, at least one
        if num >= at + total and right > 1:
            nxt[k] = b + min(max((num - at) // (2 * total), 1), right - 1)
        elif num + total <= at and left > 1:
            nxt[k] = b - min(max((at - num) // (2 * total), 1), left - 1)
    return nxt


def main():
    path = sys.argv[1]
    ranks, slow, factor, every, parts = (int(a) for a in sys.argv[2:7])
    flood = sys.argv[7] == "flood"
    with open(path, encoding="utf-8") as f:
        run = json.load(f)
    windows = run["metrics"]["windows"] if "metrics" in run else run["windows"]
    looks = run["ranks"]["looks"]
    if flood:
        lps = part_lps = None
    else:
        lps = int(sys.argv[7])
        part_lps = (lps + parts - 1) // parts
        parts = (lps + part_lps - 1) // part_lps
        if looks != windows // every:
            print("the coordinator looked %d times, the rule %d" % (looks, windows // every))
            return 1
    if looks < 1:
        print("the coordinator never looked")
        return 1
    first = [first_of(r, ranks, parts) for r in range(ranks + 1)]
    moves = 0
    for _ in range(looks):
        nxt = look(first, ranks, lps, part_lps, slow, factor, every)
        moves += sum(abs(nxt[k] - first[k]) for k in range(1, ranks))
        first = nxt
    got = run["ranks"]["moves"]
    if got != moves:
        print("the coordinator moved %d partitions, the rule %d (last shares %s)"
              % (got, moves, first))
        return 1
    print("moves as expected: %d (last shares %s)" % (moves, first))
    return 0


if __name__ == "__main__":
    sys.exit(main())
