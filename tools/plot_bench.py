#!/usr/bin/env python3
"""Plots a `clnetsim bench --json` file (Debian's python3-matplotlib).

    tools/plot_bench.py BENCH.json --out PREFIX

For every scenario with more than one size, writes PREFIX-SCENARIO.png with two panels:
the median simulation time against the node count per device (log-log, the min-max range as
error bars), and each device's speed relative to the first CPU device (the CPU/GPU crossover:
above 1 the device is faster than the CPU). The machine, date and commit come from the file.
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
        sys.exit(f"plot_bench.py: cannot read '{path}': {e}")
    if "clnetsim_bench" not in data or "cases" not in data:
        sys.exit(f"plot_bench.py: '{path}' is not a clnetsim bench result file")
    return data


def series(cases):
    """{device label: [(nodes, median, min, max)]} in node order."""
    out = {}
    for case in sorted(cases, key=lambda c: c["nodes"]):
        for d in case["devices"]:
            if d.get("failed"):
                continue
            label = f"{d['index']}: {d['name'][:40]} ({d['type']})"
            out.setdefault(label, []).append((case["nodes"], d["median_s"], d["min_s"], d["max_s"]))
    return out


def plot_scenario(name, cases, meta, out_path):
    s = series(cases)
    fig, (ax_t, ax_r) = plt.subplots(1, 2, figsize=(12, 4.8))
    for label, pts in s.items():
        n = [p[0] for p in pts]
        med = [p[1] for p in pts]
        err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
        ax_t.errorbar(n, med, yerr=err, marker="o", capsize=3, label=label)
    ax_t.set_xscale("log")
    ax_t.set_yscale("log")
    ax_t.set_xlabel("nodes")
    ax_t.set_ylabel("simulation time, s (median, min-max)")
    ax_t.set_title(f"{name}: time per device")
    ax_t.grid(True, which="both", alpha=0.3)
    ax_t.legend(fontsize=8)

    cpu = next((lab for lab in s if lab.endswith("(cpu)")), None)
    ref = s[cpu] if cpu else None
    if ref:
        ref_by_n = {p[0]: p[1] for p in ref}
        for label, pts in s.items():
            if label == cpu:
                continue
            n = [p[0] for p in pts if p[0] in ref_by_n]
            ratio = [ref_by_n[p[0]] / p[1] for p in pts if p[0] in ref_by_n]
            ax_r.plot(n, ratio, marker="o", label=label)
        ax_r.axhline(1.0, color="grey", linestyle="--", linewidth=1)
        ax_r.set_ylabel(f"speed relative to device {cpu.split(':')[0]} (the CPU)")
    ax_r.set_xscale("log")
    ax_r.set_xlabel("nodes")
    ax_r.set_title(f"{name}: CPU/GPU crossover (above 1: faster than the CPU)")
    ax_r.grid(True, which="both", alpha=0.3)
    if ref:
        ax_r.legend(fontsize=8)
    fig.suptitle(f"clnetsim bench, {meta.get('cpu', '?')} host {meta.get('host', '?')}, "
                 f"{meta.get('date', '?')}, commit {meta.get('commit', '?')}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench_json")
    ap.add_argument("--out", required=True, help="prefix of the PNG files")
    args = ap.parse_args()
    data = load(args.bench_json)
    by_name = {}
    for case in data["cases"]:
        by_name.setdefault(case["scenario"], []).append(case)
    written = 0
    for name, cases in by_name.items():
        if len({c["nodes"] for c in cases}) < 2:
            continue
        path = f"{args.out}-{name}.png"
        plot_scenario(name, cases, data, path)
        print(path)
        written += 1
    if not written:
        sys.exit("plot_bench.py: no scenario has more than one size (run bench with --sizes)")


if __name__ == "__main__":
    main()
