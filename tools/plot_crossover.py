#!/usr/bin/env python3
"""Plot a sweep written by tools/bench_inject.py: where the GPU overtakes the CPU, and how close
each injector policy comes to the best single device.

Usage:
    tools/plot_crossover.py SWEEP.json [--out-prefix PREFIX]

Writes PREFIX-SCENARIO.png for every scenario of the sweep (PREFIX-grid.png, PREFIX-mobile.png;
PREFIX defaults to SWEEP without .json), each with two panels:
  1. simulation wall time (median, error bars from the fastest to the slowest run) against node
     count, log-log, one line per configuration (cpu, gpu, every policy);
  2. every policy's median time divided by the best single device's (the faster of cpu and gpu)
     against node count, with lines at 1.0 (as fast as the best device) and 1.05 (5% slower).
Sizes where a configuration timed out, failed or was skipped have no point.

Needs python3 and matplotlib (Debian: python3-matplotlib); runs headless (Agg backend).
Exit status: 0 written, 2 bad input or no matplotlib.
"""
import argparse
import json
import os
import sys


class UsageError(Exception):
    """Bad input: reported as one sentence with exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)  # one sentence instead of argparse's usage block


def load(path):
    """The sweep document, checked for the members this script reads."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise UsageError(f"cannot read {path} ({e.strerror})") from None
    except ValueError:
        raise UsageError(f"{path} is not JSON") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list) \
            or not isinstance(doc.get("summary"), list):
        raise UsageError(f"{path} is not a sweep written by tools/bench_inject.py")
    for r in doc["results"]:
        if not isinstance(r, dict) or not {"scenario", "nodes", "config", "wall_s_median",
                                           "wall_s_min", "wall_s_max"} <= r.keys():
            raise UsageError(f"{path} has a results entry without scenario, nodes, config "
                             "and wall times")
    if not doc["results"]:
        raise UsageError(f"{path} holds no results")
    return doc


def in_order(items):
    """Distinct items in first-seen order (the sweep's own order of scenarios and configs)."""
    return list(dict.fromkeys(items))


def label(config, entries):
    """Legend text: the configuration, the device it ran on for cpu and gpu (the reader wants to
    know which GPU), and the size where it stopped if it timed out."""
    text = config
    if config in ("cpu", "gpu"):
        names = in_order(d.get("name", "?") for e in entries for d in (e.get("devices") or []))
        if names:
            name = names[0] if len(names) == 1 else f"{len(names)} devices"
            text += f": {name[:40].rstrip()}"
    stops = [e["nodes"] for e in entries if e.get("timed_out")]
    if stops:
        text += f" (timed out at {min(stops)})"
    return text


def time_panel(ax, results, configs):
    for config in configs:
        entries = sorted((r for r in results if r["config"] == config), key=lambda r: r["nodes"])
        done = [r for r in entries if r["wall_s_median"] is not None]
        if not done:
            continue
        x = [r["nodes"] for r in done]
        y = [r["wall_s_median"] for r in done]
        err = [[r["wall_s_median"] - r["wall_s_min"] for r in done],
               [r["wall_s_max"] - r["wall_s_median"] for r in done]]
        # Single devices solid and thick, policies thinner and dashed: the crossover of the two
        # solid lines is what the plot is for.
        single = config in ("cpu", "gpu")
        ax.errorbar(x, y, yerr=err, marker="o", markersize=4, capsize=3,
                    linewidth=2 if single else 1.2, linestyle="-" if single else "--",
                    label=label(config, entries))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nodes")
    ax.set_ylabel("simulation wall time, s (median, min-max)")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, "no finished run", ha="center", va="center", transform=ax.transAxes)


def ratio_panel(ax, summary, policies):
    summary = sorted(summary, key=lambda s: s["nodes"])
    drawn = False
    for p in policies:
        points = [(s["nodes"], s["policies"][p]["ratio_to_best"]) for s in summary
                  if (s.get("policies") or {}).get(p, {}).get("ratio_to_best") is not None]
        if points:
            ax.plot(*zip(*points), marker="o", markersize=4, label=p)
            drawn = True
    ax.axhline(1.0, color="black", linewidth=0.8, label="best single device")
    ax.axhline(1.05, color="grey", linewidth=0.8, linestyle=":", label="5% slower")
    ax.set_xscale("log")
    ax.set_xlabel("nodes")
    ax.set_ylabel("policy time / best single device time")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    if not drawn:
        ax.text(0.5, 0.5, "no size with both a policy and a single-device time", ha="center",
                va="center", transform=ax.transAxes)


def title(doc, scenario, summary):
    m = doc.get("machine") or {}
    host = m.get("hostname") or "?"
    cpu = m.get("cpu") or "unknown CPU"
    cores = f", {m['cores']} cores" if m.get("cores") else ""
    repeat = doc.get("repeat", "?")
    text = (f"{scenario}: {doc.get('packets', '?')} packets, median of {repeat} "
            f"run{'' if repeat == 1 else 's'}, commit {doc.get('commit') or '?'}\n"
            f"{host} ({cpu}{cores}), {doc.get('date', '')}")
    bad = [str(s["nodes"]) for s in summary if s.get("mismatch")]
    if bad:
        text += f"\nCOUNTERS DIFFER BETWEEN CONFIGURATIONS at {', '.join(bad)} nodes"
    return text


def main(argv):
    p = Parser(description="Plot a tools/bench_inject.py sweep, one PNG per scenario.")
    p.add_argument("sweep", metavar="IN.json")
    p.add_argument("--out-prefix", metavar="PREFIX",
                   help="write PREFIX-SCENARIO.png (default: IN without .json)")
    a = p.parse_args(argv)
    prefix = a.out_prefix if a.out_prefix is not None else os.path.splitext(a.sweep)[0]
    folder = os.path.dirname(os.path.abspath(prefix + "-x.png"))
    if not os.path.isdir(folder):
        raise UsageError(f"the folder {folder} of --out-prefix does not exist")
    doc = load(a.sweep)
    try:
        import matplotlib
    except ImportError:
        raise UsageError("matplotlib is not installed for this python3 (Debian: apt-get install "
                         "python3-matplotlib, for /usr/bin/python3)") from None
    matplotlib.use("Agg")  # headless: no display needed
    import matplotlib.pyplot as plt

    results = doc["results"]
    configs = in_order(r["config"] for r in results)
    policies = doc.get("policies") or [c.split(":", 1)[1] for c in configs
                                       if c.startswith("policy:")]
    for scenario in in_order(r["scenario"] for r in results):
        mine = [r for r in results if r["scenario"] == scenario]
        summary = [s for s in doc["summary"] if s.get("scenario") == scenario]
        fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5))
        time_panel(left, mine, configs)
        ratio_panel(right, summary, policies)
        # Red when counters differ: those times come from runs that computed different things.
        differ = any(s.get("mismatch") for s in summary)
        fig.suptitle(title(doc, scenario, summary), fontsize="medium",
                     color="red" if differ else "black")
        fig.tight_layout()
        out = f"{prefix}-{scenario}.png"
        fig.savefig(out, dpi=110)
        plt.close(fig)
        print(out)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        message = str(e)
        print(f"{os.path.basename(sys.argv[0])}: error: {message}"
              f"{'' if message.endswith(('.', '?', '!')) else '.'}", file=sys.stderr)
        sys.exit(2)
