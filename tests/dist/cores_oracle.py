#!/usr/bin/env python3
"""The cores each rank's threads ran on (the JSON's devices, "cores") against the rule of
--gpu-rank-cores (docs/user-guide.md, "Several processes"), computed here on its own for ranks
that the launcher left free to run on the cores this process may run on (mpirun --bind-to none,
one machine).

Usage: cores_oracle.py RUN.json RANKS GPU_RANKS RESERVE
GPU_RANKS: the ranks that count as GPU ranks, comma-separated ("" for none)."""
import json
import os
import sys


def text(cores):
    """A sorted list of cores as "0-3,8"."""
    out, i = [], 0
    while i < len(cores):
        j = i
        while j + 1 < len(cores) and cores[j + 1] == cores[j] + 1:
            j += 1
        out.append(str(cores[i]) if i == j else "%d-%d" % (cores[i], cores[j]))
        i = j + 1
    return ",".join(out)


def expected(ranks, gpus, reserve, every):
    """What each rank may run on: every rank starts with EVERY (sorted)."""
    if reserve == 0 or not gpus or len(gpus) == ranks:
        return [text(every)] * ranks
    kept = set()
    for r in range(ranks):
        if r in gpus:
            kept.update([c for c in every if c not in kept][:reserve])
    free = [c for c in every if c not in kept]
    cpus = [r for r in range(ranks) if r not in gpus]
    out = []
    for r in range(ranks):
        if r in gpus:
            out.append(text(every))
            continue
        j = cpus.index(r)
        part = free[len(free) * j // len(cpus):len(free) * (j + 1) // len(cpus)]
        out.append(text(part if part else free if free else every))
    return out


def main():
    path, ranks, gpu_text, reserve = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    gpus = {int(g) for g in gpu_text.split(",") if g != ""}
    every = sorted(os.sched_getaffinity(0))
    with open(path, encoding="utf-8") as f:
        run = json.load(f)
    seen = {}
    for d in run["devices"]:
        seen.setdefault(d["rank"], d.get("cores"))
    want = expected(ranks, gpus, reserve, every)
    bad = 0
    for r in range(ranks):
        if seen.get(r) != want[r]:
            print("rank %d ran on cores %r, expected %r" % (r, seen.get(r), want[r]))
            bad = 1
    if not bad:
        print("cores as expected: %s" % "; ".join(want))
    return bad


if __name__ == "__main__":
    sys.exit(main())
