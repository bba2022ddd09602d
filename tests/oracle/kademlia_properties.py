#!/usr/bin/env python3
"""Checks of the Kademlia model's text (docs/models/kademlia.md) through its plain reference
(kademlia_reference.py): Philox's known answers; a two-peer network worked by hand (every
lookup one request, its latency twice the pair's); the first lookup's start and the ids'
redraw rule computed from the draws; with converged tables every lookup of an existing id
finds it; the mean hop count grows like log N; and two schedules (window by window, and one
global order) give the same outputs. Prints one line per check, "kademlia_properties: ok" at
the end; exits 1 on the first failure."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kademlia_reference import Model, first_bits, ids_of, philox4x32_10  # noqa: E402

MS = 1_000_000
S = 1_000_000_000


def check(name, ok, detail=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""))
    if not ok:
        sys.exit(1)


def model(seed=1, n=64, bits=64, k=8, alpha=3, gap=10 * S, lmin=10 * MS, lmax=100 * MS,
          t_end=30 * S, targets="random"):
    return Model(seed, n, bits, k, alpha, gap, lmin, lmax, t_end, targets)


def known_answers():
    cases = [((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
             ((0xffffffff,) * 4, (0xffffffff,) * 2, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
             ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
              (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
             ((3, 7, 1, 0), (1, 2), (0xb39de91f, 0x25bf1219, 0x2f12cc5f, 0xeb613239))]
    check("philox_known_answers", all(philox4x32_10(c, k) == w for c, k, w in cases))
    check("first_bits", first_bits((0x80000001, 0xffffffff), 33) == (0x80000001 << 1) | 1)


def two_peers():
    """Each peer's table is the other; a lookup asks it, which answers with the asker only."""
    m = model(seed=5, n=2, t_end=60 * S)
    out = m.run()
    w = philox4x32_10((0, 1, 44, 0), m.key)
    lat = 10 * MS + ((w[0] * (90 * MS + 1)) >> 32)
    check("two_peers_latency", out["latency_min_ns"] == out["latency_max_ns"] == 2 * lat,
          "%d %d, pair %d" % (out["latency_min_ns"], out["latency_max_ns"], lat))
    check("two_peers_hops", out["hops_min"] == out["hops_max"] == 1 and out["hops_histogram"][0]
          == out["lookups_completed"] > 0)
    rows = list(m.lookup_rows())
    check("two_peers_one_request", all(r.split(",")[7] == "1" for r in rows))
    open_ = sum(r.split(",")[4] == "open" for r in rows)
    check("two_peers_counts", out["lookups_started"] == len(rows) and
          out["lookups_completed"] + open_ == len(rows) and out["lookups_failed"] == 0)
    w = philox4x32_10((0, 0, 41, 0), m.key)
    first = (((w[1] << 32) | w[0]) * (10 * S + 1)) >> 64
    check("first_start", rows[0].split(",")[:3] == ["0", "0", str(first)])


def redraws():
    ids, r = ids_of((6, 0), 40000, 32)
    check("ids_distinct", len(set(ids)) == len(ids))
    check("ids_redrawn", r == 1, "%d redraws" % r)
    key, bits = (6, 0), 32
    firsts = [first_bits(philox4x32_10((i, 0, 40, 0), key) + philox4x32_10((i, 0, 40, 1), key),
                         bits) for i in range(len(ids))]
    moved = [i for i in range(len(ids)) if ids[i] != firsts[i]]
    check("ids_redraw_rule", len(moved) == 1 and firsts[moved[0]] in firsts[:moved[0]])


def found():
    for n in (16, 100, 300):
        out = model(seed=n, n=n, targets="peers").run()
        check("found_%d" % n, out["lookups_completed"] > 0 and
              out["lookups_found"] == out["lookups_completed"] and out["lookups_failed"] == 0,
              "%d of %d" % (out["lookups_found"], out["lookups_completed"]))


def hops_grow():
    means = []
    for e in range(5, 11):
        out = model(n=1 << e, t_end=6 * S).run()
        means.append(out["hops_sum"] / out["lookups_completed"])
        print("     %5d peers: %4d lookups, mean hops %.3f (%.3f log2 N)" %
              (1 << e, out["lookups_completed"], means[-1], means[-1] / e))
    check("hops_increase", all(b > a for a, b in zip(means[1:], means[2:])))
    check("hops_like_log", all(0.2 <= h / e <= 0.45 for h, e in zip(means[1:], range(6, 11))))


def schedules():
    for targets in ("random", "peers"):
        a = model(seed=3, n=40, alpha=2, k=4, targets=targets).run()
        b = model(seed=3, n=40, alpha=2, k=4, targets=targets).run(one_queue=True)
        check("schedules_same_%s" % targets, a == b)


known_answers()
two_peers()
redraws()
found()
hops_grow()
schedules()
print("kademlia_properties: ok")
