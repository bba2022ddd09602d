#!/usr/bin/env python3
"""Plot an injector trace written by `clnetsim run ... --trace-inject FILE.csv`.

Usage:
    tools/plot_inject.py TRACE.csv [-o OUT.png] [--bins N] [--title TEXT]

Writes a PNG (default: TRACE.png beside the trace) with two panels:
  1. the share of events each device ran, over windows (simulated time, one window = one
     lookahead), windows grouped into at most N bins (default 200); a run of whole packets
     steps in batches of packets instead, and the panel is drawn over batches;
  2. predicted against measured seconds per decision, log-log, one colour per device, with the
     line y = x: points below it ran slower than predicted, points above it faster.
Decisions without a prediction (calibration) or without a measurement are left out of panel 2.

Needs python3 and matplotlib; runs headless (Agg backend). docs/injector.md describes the CSV.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

COLUMNS = ["window", "kind", "partition", "multiplicity", "device", "predicted_s",
           "measured_s", "policy", "migrated"]
# a run of whole packets: its steps are batches and its units chunks of a batch
BATCH_COLUMNS = ["batch", "kind", "chunk"] + COLUMNS[3:]


def read_trace(path):
    """Rows as dicts with window, multiplicity and device as ints and the times as floats
    (None when the field is empty)."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames not in (COLUMNS, BATCH_COLUMNS):
            sys.exit(f"{path}: not an injector trace (header {reader.fieldnames})")
        step = reader.fieldnames[0]
        rows = []
        for r in reader:
            rows.append({
                "step": step,
                "window": int(r[step]),
                "multiplicity": int(r["multiplicity"]),
                "device": int(r["device"]),
                "predicted": float(r["predicted_s"]) if r["predicted_s"] else None,
                "measured": float(r["measured_s"]) if r["measured_s"] else None,
                "migrated": r["migrated"] == "1",
            })
    return rows


def share_panel(ax, rows, devices, bins):
    lo = min(r["window"] for r in rows)
    hi = max(r["window"] for r in rows)
    width = max(1, -(-(hi - lo + 1) // bins))  # windows per bin, rounded up
    n_bins = (hi - lo) // width + 1
    events = {d: [0] * n_bins for d in devices}
    for r in rows:
        events[r["device"]][(r["window"] - lo) // width] += r["multiplicity"]
    totals = [sum(events[d][b] for d in devices) for b in range(n_bins)]
    x = [lo + b * width for b in range(n_bins)]
    shares = [[events[d][b] / totals[b] if totals[b] else 0 for b in range(n_bins)]
              for d in devices]
    ax.stackplot(x, shares, labels=[f"device {d}" for d in devices], step="post")
    ax.set_xlim(lo, max(hi, lo + 1))
    ax.set_ylim(0, 1)
    steps = "batch" if rows[0]["step"] == "batch" else "window (simulated time)"
    ax.set_xlabel(steps + (f", {width} per bin" if width > 1 else ""))
    ax.set_ylabel("share of events")
    ax.legend(loc="upper right", fontsize="small")


def prediction_panel(ax, rows, devices):
    points = [r for r in rows
              if r["predicted"] and r["measured"] and r["predicted"] > 0 and r["measured"] > 0]
    if not points:
        ax.text(0.5, 0.5, "no decision with both a prediction and a measurement",
                ha="center", va="center", transform=ax.transAxes)
        return
    for d in devices:
        mine = [r for r in points if r["device"] == d]
        if mine:
            ax.scatter([r["predicted"] for r in mine], [r["measured"] for r in mine], s=6,
                       alpha=0.6, label=f"device {d}")
    lo = min(min(r["predicted"], r["measured"]) for r in points)
    hi = max(max(r["predicted"], r["measured"]) for r in points)
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8, label="y = x")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("predicted seconds")
    ax.set_ylabel("measured seconds")
    ax.legend(loc="upper left", fontsize="small")


def main():
    p = argparse.ArgumentParser(description="Plot a clnetsim --trace-inject CSV.")
    p.add_argument("trace")
    p.add_argument("-o", "--output", help="PNG to write (default: TRACE.png)")
    p.add_argument("--bins", type=int, default=200, help="most window bins in panel 1")
    p.add_argument("--title", help="figure title (default: the trace's file name)")
    a = p.parse_args()
    rows = read_trace(a.trace)
    if not rows:
        sys.exit(f"{a.trace}: no decision in the trace")
    devices = sorted({r["device"] for r in rows})
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    share_panel(left, rows, devices, max(1, a.bins))
    prediction_panel(right, rows, devices)
    migrations = sum(r["migrated"] for r in rows)
    fig.suptitle(a.title or f"{os.path.basename(a.trace)}: {len(rows)} decisions, "
                 f"{migrations} migrations")
    fig.tight_layout()
    out = a.output or os.path.splitext(a.trace)[0] + ".png"
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
