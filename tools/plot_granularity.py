#!/usr/bin/env python3
"""Plots Kademlia's windows per launch against events per second, fixed and chosen by the run
(tools/bench_kademlia_granularity.sh; Debian's python3-matplotlib).

    tools/plot_granularity.py RESULTS.txt --out FILE.png [--title TEXT]

RESULTS.txt has lines `peers d_max_s windows_per_launch run wall_s events final moves`
(windows_per_launch 0: chosen by the run). One panel per peer count; in each, one line per
d_max: the median events per second of each fixed value (log x), and the run's own choice as a
dashed level of the same colour, labelled with its share of the best fixed value's rate. The
same shares are printed as a Markdown table on standard output.
"""
import argparse
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    runs = {}
    try:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if not line.strip() or line.startswith("#"):
                    continue
                fields = line.split()
                if len(fields) < 6:
                    sys.exit(f"plot_granularity.py: {path}:{number}: expected 'peers d_max_s "
                             "windows_per_launch run wall_s events ...'")
                peers, dmax, w = int(fields[0]), int(fields[1]), int(fields[2])
                wall, events = float(fields[4]), int(fields[5])
                if wall <= 0:
                    sys.exit(f"plot_granularity.py: {path}:{number}: wall_s must be > 0")
                runs.setdefault((peers, dmax, w), []).append(events / wall)
    except OSError as e:
        sys.exit(f"plot_granularity.py: cannot read '{path}': {e}")
    if not runs:
        sys.exit(f"plot_granularity.py: '{path}' holds no runs")
    return {k: statistics.median(v) for k, v in runs.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    rate = load(args.results)
    sizes = sorted({k[0] for k in rate})
    fig, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 4.2), squeeze=False)
    print("| peers | d_max | best fixed W | its events/s | chosen by the run | share |")
    print("|---|---|---|---|---|---|")
    for ax, n in zip(axes[0], sizes):
        for i, d in enumerate(sorted({k[1] for k in rate if k[0] == n})):
            colour = f"C{i}"
            fixed = sorted((k[2], v) for k, v in rate.items() if k[:2] == (n, d) and k[2] > 0)
            label = f"d_max {d} s"
            if fixed:
                ax.plot([w for w, _ in fixed], [v for _, v in fixed], "o-", color=colour,
                        label=label)
            chosen = rate.get((n, d, 0))
            if chosen is not None and fixed:
                best_w, best = max(fixed, key=lambda x: x[1])
                share = chosen / best
                ax.axhline(chosen, color=colour, linestyle="--", linewidth=1)
                ax.annotate(f"run's choice {share:.0%}", (fixed[0][0], chosen), color=colour,
                            fontsize=8, xytext=(0, 3), textcoords="offset points")
                print(f"| {n} | {d} s | {best_w} | {best:.3g} | {chosen:.3g} | {share:.1%} |")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{n} peers")
        ax.set_xlabel("windows per launch (fixed)")
        ax.set_ylabel("events per second")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    try:
        fig.savefig(args.out, dpi=110)
    except OSError as e:
        sys.exit(f"plot_granularity.py: cannot write '{args.out}': {e}")


if __name__ == "__main__":
    main()
