#!/usr/bin/env python3
"""phold_crosscheck.py SELFCHECK JSON_COMPARE REFERENCE_PY

Runs the C oracle (through `SELFCHECK --run`, with each of its event queues) and the
independent Python reference (REFERENCE_PY) on small PHOLD cases, and compares every member
of their outputs with JSON_COMPARE (the files name their contract). Also checks that the
comparison can fail: two seeds must give different results. Exit 0 when all agree."""
import os
import subprocess
import sys
import tempfile

THR = lambda r: int(r * 2**32)  # floor(r * 2^32), exact for these r
S = 1000000000

# (name, seed, N, E, thr, A, M, T)
CASES = [
    ("one LP", 1, 1, 1, THR(0.5), S // 10, 9 * S // 10, 20 * S),
    ("two LPs, r = 1", 1, 2, 1, THR(1), S // 10, 9 * S // 10, 20 * S),
    ("mean 0: ties everywhere", 3, 5, 3, THR(0.5), S // 10, 0, S),
    ("r = 0", 4, 7, 2, THR(0), 1000, 5000, 10**6),
    ("r = 1", 5, 7, 2, THR(1), 1000, 5000, 10**6),
    ("64-bit seed, small delays", 0x123456789ABCDEF0, 6, 4, THR(0.3), 1, 3, 400),
    ("small_phold, 2 s", 1, 1000, 8, THR(0.25), S // 10, 9 * S // 10, 2 * S),
]


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.splitlines()[0])
    selfcheck, jc, ref = sys.argv[1:]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, seed, n, e, thr, a, m, t in CASES:
            args = [str(x) for x in (seed, n, e, thr, a, m, t)]
            py = os.path.join(tmp, "py.json")
            r = run([sys.executable, ref] + args)
            if r.returncode != 0:
                print("%s: the reference failed: %s" % (name, r.stderr))
                failed += 1
                continue
            with open(py, "w") as f:
                f.write(r.stdout)
            for queue in ("1", "2"):
                c = os.path.join(tmp, "c%s.json" % queue)
                r = run([selfcheck, "--run"] + args + [queue, c])
                cmp = run([jc, py, c]) if r.returncode == 0 else r
                if cmp.returncode != 0:
                    print("%s (queue %s): differs from the reference:\n%s%s"
                          % (name, queue, cmp.stdout, cmp.stderr))
                    failed += 1
            print("%s: %s" % (name, "ok" if not failed else "see above"))
        # The comparison is not vacuous: another seed gives other numbers.
        args = ["2", "1000", "8", str(THR(0.25)), str(S // 10), str(9 * S // 10), str(2 * S)]
        c = os.path.join(tmp, "seed2.json")
        r = run([selfcheck, "--run"] + args + ["0", c])
        cmp = run([jc, os.path.join(tmp, "py.json"), c])
        if r.returncode != 0 or cmp.returncode != 1 or "events: A=" not in cmp.stdout:
            print("seed 2 against seed 1 should differ:\n%s%s" % (cmp.stdout, cmp.stderr))
            failed += 1
    print("phold_crosscheck: %d cases, %d failed" % (len(CASES), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
