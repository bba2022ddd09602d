#!/usr/bin/env python3
"""The Kademlia model's C oracle against its plain Python reference (docs/models/kademlia.md):
every contract member and every lookup's row equal on small networks of every shape of the
keys (bucket sizes, alpha, id lengths, both kinds of targets, latencies equal or spread, gaps
short and long), with churn too (sessions, offline periods and timeouts short and long, where
lookups fail and peers are offline at the end); the ids drawn again on a network of 32-bit ids where one collides; and the
mean hop count over 2^10 .. 2^16 peers, which grows like log N. Usage:
kademlia_crosscheck.py KADEMLIA_ORACLE"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kademlia_reference import Model, ids_of  # noqa: E402

MS = 1_000_000
S = 1_000_000_000
ORACLE = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)

# seed, peers, id bits, k, alpha, gap max, latency min, max, duration, targets
CASES = [
    (1, 2, 64, 8, 3, 10 * S, 10 * MS, 100 * MS, 60 * S, "random"),
    (2, 3, 32, 1, 1, 2 * S, 10 * MS, 10 * MS, 20 * S, "peers"),
    (3, 17, 64, 2, 2, 1 * S, 1 * MS, 50 * MS, 10 * S, "random"),
    (4, 100, 160, 8, 3, 10 * S, 10 * MS, 100 * MS, 30 * S, "peers"),
    (5, 100, 96, 20, 3, 5 * S, 10 * MS, 100 * MS, 20 * S, "random"),
    (6, 300, 64, 8, 3, 10 * S, 10 * MS, 100 * MS, 20 * S, "random"),
    (7, 257, 33, 4, 4, 3 * S, 5 * MS, 200 * MS, 15 * S, "peers"),
    (0x200000001, 64, 64, 3, 1, 100 * MS, 20 * MS, 21 * MS, 10 * S, "random"),
]
# Churn (the model's "Churn"): CASES with (session mean, offline mean, timeout) after them:
# sessions of a few lookups and of many, offline periods short and long, the least timeout
# (l_max + l_min) and a long one, a single request in flight; and periods of a few ms, shorter
# than a lookup, with hundreds of periods per peer
CHURN = [
    (11, 100, 64, 8, 3, 2 * S, 10 * MS, 100 * MS, 20 * S, "peers", (5 * S, 3 * S, S)),
    (12, 60, 32, 4, 2, S, 5 * MS, 50 * MS, 15 * S, "random", (2 * S, 2 * S, 55 * MS)),
    (13, 40, 64, 2, 1, S, 10 * MS, 10 * MS, 10 * S, "peers", (S, 4 * S, 20 * MS)),
    (14, 200, 64, 8, 3, 5 * S, 10 * MS, 100 * MS, 30 * S, "random", (20 * S, S, 2 * S)),
    (15, 30, 33, 3, 3, 100 * MS, 1 * MS, 3 * MS, S // 2, "peers", (2 * MS, 2 * MS, 4 * MS)),
]
failed = 0


def oracle(case, rows, stats=False, churn=None):
    args = [ORACLE] + [str(v) for v in case] + ["--lookups", rows] + (["--stats"] if stats else [])
    args += ["--churn"] + [str(v) for v in churn] if churn else []
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout), done.stderr


with tempfile.TemporaryDirectory() as tmp:
    for full in CASES + CHURN:
        case, churn = full[:10], full[10] if len(full) > 10 else None
        name = "case_%d_%d_peers%s" % (case[0], case[1], "_churn" if churn else "")
        got, _ = oracle(case, os.path.join(tmp, "c.csv"), churn=churn)
        contract = got.pop("contract")
        model = Model(*case, churn=churn or (0, 0, 0))
        want = {"model": "kademlia", "seed": case[0], **model.run()}
        rows = list(model.lookup_rows())
        with open(os.path.join(tmp, "c.csv"), encoding="ascii") as f:
            got_rows = f.read().splitlines()[1:]
        same = got == want and contract == list(want) and got_rows == rows
        if not same:
            failed += 1
            diff = [k for k in want if got.get(k) != want[k]]
            print("FAIL %s: members %s differ; rows %s" % (name, diff, got_rows == rows))
        elif churn and not (got["lookups_failed"] > 0 and got["peers_alive"] < case[1]):
            failed += 1
            print("FAIL %s: churn left every lookup and peer as they were" % name)
        else:
            print("ok   %s: %d lookups (%d failed), %d messages, %d peers alive" % (
                name, got["lookups_started"], got["lookups_failed"], got["messages"],
                got["peers_alive"]))
    # 32-bit ids, 40 000 peers, seed 6: one peer's first draw is an earlier peer's id
    _, err = oracle((6, 40000, 32, 8, 3, 10 * S, 10 * MS, 100 * MS, 1, "random"),
                    os.path.join(tmp, "r.csv"), stats=True)
    want = ids_of((6, 0), 40000, 32)[1]
    ok = err.startswith("kademlia_oracle: %d ids drawn again," % want) and want == 1
    failed += not ok
    print("%s ids_redrawn: %s" % ("ok  " if ok else "FAIL", err.strip()))
    # the mean hop count over 2^10 .. 2^16 peers: it grows, by about half a hop a doubling
    means = []
    for e in range(10, 17, 2):
        got, _ = oracle((1, 1 << e, 64, 8, 3, 10 * S, 10 * MS, 100 * MS, 3 * S, "random"),
                        os.path.join(tmp, "h.csv"))
        means.append(got["hops_sum"] / got["lookups_completed"])
        print("     %6d peers: %6d lookups, mean hops %.3f" % (1 << e, got["lookups_completed"],
                                                              means[-1]))
    steps = [(b - a) / 2 for a, b in zip(means, means[1:])]
    ok = all(0.3 <= d <= 0.7 for d in steps)
    failed += not ok
    print("%s hops_like_log: %s a doubling" % ("ok  " if ok else "FAIL",
                                               ", ".join("%.3f" % d for d in steps)))
print("kademlia_crosscheck: %s" % ("ok" if not failed else "%d failed" % failed))
sys.exit(1 if failed else 0)
