#!/usr/bin/env python3
"""Plots the PHOLD scaling sweep (tools/bench_phold_scaling.sh; Debian's python3-matplotlib).

    tools/plot_phold_scaling.py BENCH.json [BENCH.json ...] --out FILE.png

Reads `clnetsim bench --json` files, takes every PHOLD case (those with "lps"), and draws the
events per second (the model's executed events over the median simulation time; the bars
span the fastest and slowest timed runs) against the LP count, log-log, one line per device
(by name and platform). Devices that failed a size, or sizes whose devices disagreed, are
left out of the lines and listed on standard error. The machine, date and commit come from
the files.
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_phold_scaling.py: cannot read '{path}': {e}")
    if "clnetsim_bench" not in data or "cases" not in data:
        sys.exit(f"plot_phold_scaling.py: '{path}' is not a clnetsim bench result file")
    return data


def series(files):
    """{device label: {lps: (events/s at the median, at the max time, at the min time)}},
    the population of the cases, and the machines they ran on."""
    out, populations, machines = {}, set(), set()
    for path, data in files:
        machines.add((data.get("host", "?"), data.get("cpu", "?"), data.get("commit", "?")))
        for case in data["cases"]:
            if "lps" not in case:
                continue
            populations.add(case["population"])
            if not case.get("agree", False):
                print(f"{path}: {case['lps']} LPs left out: {case.get('mismatch', 'disagree')}",
                      file=sys.stderr)
                continue
            for d in case["devices"]:
                if d.get("failed"):
                    print(f"{path}: {case['lps']} LPs, device {d['index']} failed: "
                          f"{d.get('error', '')}", file=sys.stderr)
                    continue
                label = f"{d['name'][:40]} ({d['type']}, {d['platform'][:24]})"
                # the three from the file's rounded times alike, so that the bars never
                # cross the point (events_per_s is computed from the unrounded median)
                ev = d["events"]
                rate = [ev / d[k] if d[k] > 0 else 0.0 for k in ("median_s", "max_s", "min_s")]
                out.setdefault(label, {})[case["lps"]] = tuple(rate)
    return out, populations, machines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench_json", nargs="+")
    ap.add_argument("--out", required=True, help="the PNG file")
    args = ap.parse_args()
    files = [(p, load(p)) for p in args.bench_json]
    s, populations, machines = series(files)
    if not s:
        sys.exit("plot_phold_scaling.py: no PHOLD case in the files")
    fig, ax = plt.subplots(figsize=(8, 5))
    for label, by_lps in sorted(s.items()):
        lps = sorted(by_lps)
        med = [by_lps[n][0] for n in lps]
        err = [[max(0.0, by_lps[n][0] - by_lps[n][1]) for n in lps],
               [max(0.0, by_lps[n][2] - by_lps[n][0]) for n in lps]]
        ax.errorbar(lps, med, yerr=err, marker="o", capsize=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("logical processes (LPs)")
    ax.set_ylabel("events per second (median, fastest-slowest run)")
    pop = ", ".join(str(p) for p in sorted(populations))
    ax.set_title(f"PHOLD: events per second against LPs, {pop} events per LP")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    meta = "; ".join(f"host {h}, {c}, commit {g}" for h, c, g in sorted(machines))
    fig.text(0.5, 0.01, f"clnetsim bench: {meta}", ha="center", fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(args.out, dpi=110)
    plt.close(fig)
    print(args.out)


if __name__ == "__main__":
    main()
