#!/usr/bin/env python3
"""Sweep node counts to find where the GPU overtakes the CPU and how each injector policy fares.

Usage:
    tools/bench_inject.py --json OUT.json [--clnetsim PATH] [--scenarios grid,mobile]
        [--sizes 1000,4000,...] [--packets N] [--repeat N] [--cpu SPEC] [--gpu SPEC]
        [--all SPEC] [--policies static,rapid,advanced,hybrid] [--time-limit SECONDS]
        [--extra ARG ...]

For every scenario family and node count it runs these configurations, each once as a discarded
warm-up (kernel caches, page cache) and then --repeat times, in rounds (every configuration once
per round, so that drift during a size weighs on all of them alike):
    cpu          --devices CPU-SPEC, inject.policy=static
    gpu          --devices GPU-SPEC, inject.policy=static
    policy:NAME  --devices ALL-SPEC, inject.policy=NAME   (for every NAME in --policies)
The families keep the density of the reference scenarios constant:
    grid    scenarios/grid_flood.ini, rows = cols = round(sqrt(N)), spacing unchanged
    mobile  scenarios/mobile_flood.ini, N nodes in W x W x 200 m, W = round(1600 sqrt(N / 4800))
and every run floods --packets packets.

OUT.json holds the machine, commit, every run's simulation time (`wall_s` of the run JSON), the
process time, the determinism-contract counters, the per-device entries of the median run and a
summary per (scenario, size): the best single device, each policy's time against it, and cpu
against gpu. The summary is also printed as a table. OUT.json is rewritten (atomically) after
every size, so an interrupted sweep leaves its finished part; "complete" says whether it ended.

Each --extra is split like a shell word list and passed to every `clnetsim run`, after the
sweep's own options (so its -s overrides win): --extra "-s partition.count=4" --extra=--work-group=64

Exit status: 0 every run finished and the configurations agree, 1 a run failed or the
configurations of a size gave different counters (OUT.json is written all the same), 2 bad input.
Python 3 standard library only.
"""
import argparse
import collections
import datetime
import json
import math
import os
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The counters every configuration of a (scenario, size) must reproduce exactly (docs/user-guide.md,
# "The JSON result": the determinism contract); a difference is a bug, not noise.
CONTRACT = ("transmissions", "receptions", "first_receptions", "delivered", "hops_sum",
            "latency_sum_ns", "end_time_ns", "windows")


class UsageError(Exception):
    """Bad input: reported as one sentence with exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        # argparse's default prints the whole usage block; one sentence is enough here.
        raise UsageError(message)


def grid_family(n):
    """Square grid of about n nodes, 100 m apart as in grid_flood.ini (so the density is fixed)."""
    side = max(1, math.floor(math.sqrt(n) + 0.5))
    return side * side, [f"topology.rows={side}", f"topology.cols={side}"]


def mobile_family(n):
    """n nodes in a W x W x 200 m volume holding mobile_flood.ini's 4800 nodes per 1600 x 1600."""
    width = max(1, math.floor(1600 * math.sqrt(n / 4800) + 0.5))
    return n, [f"topology.nodes={n}", f"topology.width={width}", f"topology.height={width}"]


FAMILIES = {
    "grid": ("scenarios/grid_flood.ini", grid_family),
    "mobile": ("scenarios/mobile_flood.ini", mobile_family),
}


def csv_list(text, what):
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise UsageError(f"{what} is empty")
    if len(set(items)) != len(items):
        raise UsageError(f"{what} names an item twice")
    return items


def positive_int(text, what):
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{what} must be a positive integer, not '{text}'") from None
    if value < 1:
        raise UsageError(f"{what} must be a positive integer, not '{text}'")
    return value


def parse_args(argv):
    p = Parser(description="Sweep node counts over cpu, gpu and the injector policies.",
               epilog="See the module docstring (or docs/benchmarks.md) for details.")
    p.add_argument("--clnetsim", default=os.path.join(REPO, "build", "clnetsim"),
                   help="simulator binary (default: build/clnetsim of this checkout)")
    p.add_argument("--scenarios", default="grid,mobile", help="families: grid, mobile")
    p.add_argument("--sizes", default="1000,4000,16000,64000,256000,1000000",
                   help="node counts (grid rounds to a square)")
    p.add_argument("--packets", default="100", help="packets per run (traffic.packets)")
    p.add_argument("--repeat", default="3", help="measured runs per configuration")
    p.add_argument("--cpu", default="cpu", help="--devices spec of the cpu runs")
    p.add_argument("--gpu", default="gpu", help="--devices spec of the gpu runs")
    p.add_argument("--all", default="all", help="--devices spec of the policy runs")
    p.add_argument("--policies", default="static,rapid,advanced,hybrid",
                   help="inject.policy values to run on the --all devices")
    p.add_argument("--json", required=True, metavar="OUT.json", help="sweep result to write")
    p.add_argument("--time-limit", metavar="SECONDS",
                   help="per-run timeout; a configuration that hits it skips larger sizes")
    p.add_argument("--extra", action="append", default=[], metavar="ARG",
                   help="argument(s) for every `clnetsim run` (repeatable)")
    a = p.parse_args(argv)

    a.scenarios = csv_list(a.scenarios, "--scenarios")
    for s in a.scenarios:
        if s not in FAMILIES:
            raise UsageError(f"unknown scenario family '{s}' (known: {', '.join(FAMILIES)})")
    a.sizes = [positive_int(s, "every --sizes entry") for s in csv_list(a.sizes, "--sizes")]
    a.packets = positive_int(a.packets, "--packets")
    a.repeat = positive_int(a.repeat, "--repeat")
    a.policies = csv_list(a.policies, "--policies")
    for name in ("cpu", "gpu", "all"):
        if not getattr(a, name).strip():
            raise UsageError(f"--{name} is empty")
    if a.time_limit is not None:
        try:
            a.time_limit = float(a.time_limit)
        except ValueError:
            raise UsageError(f"--time-limit must be a number of seconds, not '{a.time_limit}'") \
                from None
        if not a.time_limit > 0:
            raise UsageError("--time-limit must be more than 0 seconds")
    try:
        a.extra = [word for e in a.extra for word in shlex.split(e)]
    except ValueError as e:
        raise UsageError(f"--extra cannot be split into arguments ({e})") from None
    if not (os.path.isfile(a.clnetsim) and os.access(a.clnetsim, os.X_OK)):
        raise UsageError(f"{a.clnetsim} is not an executable file (build it, or pass --clnetsim)")
    out_dir = os.path.dirname(os.path.abspath(a.json))
    if not os.path.isdir(out_dir):
        raise UsageError(f"the folder of {a.json} does not exist")
    return a


def configurations(a):
    """(name, --devices spec, overrides) of every configuration, in run order."""
    configs = [("cpu", a.cpu, ["inject.policy=static"]),
               ("gpu", a.gpu, ["inject.policy=static"])]
    configs += [(f"policy:{p}", a.all, [f"inject.policy={p}"]) for p in a.policies]
    return configs


def command(a, scenario, overrides, devices, json_path=None):
    """The `clnetsim run` command line; without json_path, one that only checks its input."""
    cmd = [a.clnetsim, "run", os.path.join(REPO, FAMILIES[scenario][0])]
    for o in overrides + [f"traffic.packets={a.packets}"]:
        cmd += ["-s", o]
    cmd += ["--devices", devices]
    cmd += ["--json", json_path, "--quiet"] if json_path else ["--dump-config"]
    # --extra goes last so that its -s overrides win over the sweep's.
    return cmd + a.extra


def preflight(a, configs):
    """Let the simulator validate every configuration's keys (policy names, --extra) through
    --dump-config before spending hours: a typo should fail now, once, not in every run.
    --dump-config does not open devices, so device specs are checked by the runs themselves."""
    for scenario in a.scenarios:
        _, topology = FAMILIES[scenario][1](min(a.sizes))
        for name, devices, overrides in configs:
            cmd = command(a, scenario, topology + overrides, devices)
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else \
                    f"exit status {p.returncode}"
                msg = msg.removeprefix("clnetsim: error: ")
                raise UsageError(f"{scenario} {name} is rejected by the simulator: {msg}")


def run_once(cmd, json_path, time_limit):
    """One simulator run: {"json", "process_s"}, {"timed_out": True} or {"error": text}."""
    if os.path.exists(json_path):
        os.remove(json_path)  # never read a previous run's result
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=time_limit)
    except subprocess.TimeoutExpired:
        return {"timed_out": True}  # subprocess.run has killed and reaped the simulator
    process_s = round(time.monotonic() - t0, 6)  # microseconds, like the simulator's wall_s
    if p.returncode != 0:
        return {"error": f"exit status {p.returncode}: {p.stderr.strip() or '(no stderr)'}"}
    try:
        with open(json_path) as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        return {"error": f"exit status 0 but no readable result JSON ({e})"}
    missing = [k for k in CONTRACT + ("wall_s",) if k not in result]
    if missing:
        return {"error": f"result JSON lacks {', '.join(missing)}"}
    return {"json": result, "process_s": process_s}


def new_entry(scenario, nodes, topology, config):
    """A results entry with every member present (None where nothing was measured), so that
    readers need not test for missing keys."""
    name, devices, overrides = config
    return {"scenario": scenario, "nodes": nodes, "config": name, "devices_spec": devices,
            "overrides": topology + overrides, "wall_s_median": None, "wall_s_min": None,
            "wall_s_max": None, "process_s_median": None, "process_s_min": None,
            "process_s_max": None, "runs": [], "process_runs": [], "events": None,
            "contract": None, "devices": None, "timed_out": False, "error": None,
            "skipped": None, "contract_differs_between_runs": False}


def measure_size(a, scenario, nodes, topology, configs, tmp):
    """Warm-up plus --repeat runs of each configuration at one size, in rounds (each round runs
    every configuration once), so that a machine that drifts during the size (clocks, other
    load) weighs on every configuration alike. Returns (entry, runs) per configuration."""
    states = []
    for k, config in enumerate(configs):
        json_path = os.path.join(tmp, f"run{k}.json")
        states.append({"config": config, "entry": new_entry(scenario, nodes, topology, config),
                       "cmd": command(a, scenario, topology + config[2], config[1], json_path),
                       "json_path": json_path, "results": [], "stopped": False})
    for i in range(a.repeat + 1):
        label = "warm-up" if i == 0 else f"run {i}"
        for st in states:
            if st["stopped"]:
                continue
            name, entry = st["config"][0], st["entry"]
            r = run_once(st["cmd"], st["json_path"], a.time_limit)
            if r.get("timed_out"):
                entry["timed_out"] = True
                st["stopped"] = True
                print(f"  {scenario} {nodes} {name}: {label} passed the {a.time_limit:g} s "
                      "limit; larger sizes of this configuration are skipped", file=sys.stderr)
            elif "error" in r:
                entry["error"] = f"{label}: {r['error']}"
                st["stopped"] = True
                print(f"  {scenario} {nodes} {name}: {label} failed: {r['error']}",
                      file=sys.stderr)
                print(f"    command: {shlex.join(st['cmd'])}", file=sys.stderr)
            else:
                st["results"].append(r)  # the warm-up too: its counters must agree
    out = []
    for st in states:
        if st["stopped"]:
            out.append((st["entry"], st["results"]))
        else:
            out.append((finish_entry(st["entry"], st["config"], scenario, nodes,
                                     st["results"]), st["results"]))
    return out


def finish_entry(entry, config, scenario, nodes, results):
    """The statistics of a configuration's runs (results[0] is the warm-up)."""
    name = config[0]
    measured = results[1:]
    walls = [r["json"]["wall_s"] for r in measured]
    procs = [r["process_s"] for r in measured]
    # The median run is the one whose wall time is the (lower) median, so that its device
    # entries belong to a real run even when --repeat is even.
    median_run = sorted(measured, key=lambda r: r["json"]["wall_s"])[(len(measured) - 1) // 2]
    first = results[0]["json"]
    entry.update({
        "wall_s_median": statistics.median(walls), "wall_s_min": min(walls),
        "wall_s_max": max(walls), "process_s_median": statistics.median(procs),
        "process_s_min": min(procs), "process_s_max": max(procs), "runs": walls,
        "process_runs": procs,
        "events": first["transmissions"] + first["receptions"],
        "contract": {k: first[k] for k in CONTRACT},
        "devices": median_run["json"].get("devices"),
        "contract_differs_between_runs":
            any(tuple(r["json"][k] for k in CONTRACT) != tuple(first[k] for k in CONTRACT)
                for r in results),
    })
    if first.get("nodes") is not None and first["nodes"] != nodes:
        # The families' arithmetic and the simulator disagree: keep the simulator's count.
        print(f"  {scenario} {nodes} {name}: the simulator ran {first['nodes']} nodes",
              file=sys.stderr)
        entry["nodes"] = first["nodes"]
    print(f"  {scenario} {nodes} {name}: {entry['wall_s_median']:.6g} s median "
          f"({entry['wall_s_min']:.6g}-{entry['wall_s_max']:.6g}), "
          f"process {entry['process_s_median']:.3f} s", file=sys.stderr)
    return entry


def mismatches(entries):
    """Names of the configurations whose counters differ from the most common ones (ties: the
    earliest configuration's), and of those whose own runs disagreed, each with a loud warning."""
    done = [e for e in entries if e["contract"] is not None]
    if not done:
        return []
    where = f"{done[0]['scenario']} {done[0]['nodes']}"
    key = lambda e: tuple(e["contract"][k] for k in CONTRACT)  # noqa: E731
    reference = collections.Counter(key(e) for e in done).most_common(1)[0][0]
    agree = [e["config"] for e in done if key(e) == reference]
    names = []
    for e in done:
        if e["contract_differs_between_runs"]:
            names.append(f"{e['config']} (runs differ)")
            print(f"WARNING: MISMATCH {where}: the runs of {e['config']} gave different counters",
                  file=sys.stderr)
        if key(e) != reference:
            names.append(e["config"])
            diff = ", ".join(f"{k} {v} != {r}" for k, v, r in zip(CONTRACT, key(e), reference)
                             if v != r)
            print(f"WARNING: MISMATCH {where}: {e['config']} differs from {', '.join(agree)}: "
                  f"{diff}", file=sys.stderr)
    return names


def summarize(entries, policies):
    """Best single device and every policy against it, for one (scenario, size)."""
    by = {e["config"]: e["wall_s_median"] for e in entries}
    cpu, gpu = by.get("cpu"), by.get("gpu")
    singles = [(t, n) for n, t in (("cpu", cpu), ("gpu", gpu)) if t is not None]
    best_s, best = min(singles) if singles else (None, None)
    return {
        "scenario": entries[0]["scenario"], "nodes": entries[0]["nodes"],
        "cpu_s": cpu, "gpu_s": gpu,
        "cpu_over_gpu": cpu / gpu if cpu is not None and gpu else None,
        "best_single": best, "best_single_s": best_s,
        "policies": {p: {"wall_s": by.get(f"policy:{p}"),
                         "ratio_to_best": by[f"policy:{p}"] / best_s
                         if by.get(f"policy:{p}") is not None and best_s else None}
                     for p in policies},
        "mismatch": mismatches(entries),
    }


def cell(entry_by_config, config, seconds, ratio=None):
    """Table cell: the time (and ratio), or why there is none."""
    e = entry_by_config.get(config)
    if seconds is not None:
        return f"{seconds:.4g}" + (f" ({ratio:.2f})" if ratio is not None else "")
    if e is None or e["skipped"]:
        return "skipped"
    return "timeout" if e["timed_out"] else "error"


def print_table(summary, results, policies):
    head = ["scenario", "nodes", "cpu s", "gpu s", "cpu/gpu", "best"] + \
        [f"{p} s (/best)" for p in policies] + ["mismatch"]
    rows = []
    for s in summary:
        by = {e["config"]: e for e in results
              if e["scenario"] == s["scenario"] and e["nodes"] == s["nodes"]}
        rows.append([s["scenario"], str(s["nodes"]), cell(by, "cpu", s["cpu_s"]),
                     cell(by, "gpu", s["gpu_s"]),
                     f"{s['cpu_over_gpu']:.2f}" if s["cpu_over_gpu"] is not None else "-",
                     s["best_single"] or "-"] +
                    [cell(by, f"policy:{p}", s["policies"][p]["wall_s"],
                          s["policies"][p]["ratio_to_best"]) for p in policies] +
                    [",".join(s["mismatch"]) or "-"])
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(c.rjust(w) if i in (1, 2, 3, 4) else c.ljust(w)
                        for i, (c, w) in enumerate(zip(r, widths))).rstrip())


def machine():
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(), "hostname": socket.gethostname()}


def write_atomically(path, document):
    """Temporary file in the destination's folder, then rename: readers never see half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".bench_inject-", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(document, f, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def sweep(a):
    configs = configurations(a)
    preflight(a, configs)
    document = {"machine": machine(), "commit": None,
                "date": datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%dT%H:%M:%SZ"),
                "packets": a.packets, "repeat": a.repeat,
                "clnetsim": os.path.abspath(a.clnetsim),
                "device_specs": {"cpu": a.cpu, "gpu": a.gpu, "all": a.all},
                "policies": a.policies, "extra": a.extra, "time_limit_s": a.time_limit,
                "complete": False, "results": [], "summary": []}
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench_inject-") as tmp:
        for scenario in a.scenarios:
            family = FAMILIES[scenario][1]
            # Ascending actual node counts, once each: a timeout at one size skips the larger.
            sizes = sorted({family(n)[0]: family(n)[1] for n in a.sizes}.items())
            if len(sizes) < len(a.sizes):
                print(f"note: {scenario}: some sizes round to the same node count; "
                      f"running {', '.join(str(n) for n, _ in sizes)}", file=sys.stderr)
            timed_out_at = {}
            for nodes, topology in sizes:
                print(f"{scenario}, {nodes} nodes", file=sys.stderr)
                entries = []
                live = [c for c in configs if c[0] not in timed_out_at]
                measured = dict(zip([c[0] for c in live],
                                    measure_size(a, scenario, nodes, topology, live, tmp)))
                for config in configs:
                    if config[0] in timed_out_at and config[0] not in measured:
                        entry = new_entry(scenario, nodes, topology, config)
                        entry["skipped"] = f"timed out at {timed_out_at[config[0]]} nodes"
                        print(f"  {scenario} {nodes} {config[0]}: skipped ({entry['skipped']})",
                              file=sys.stderr)
                    else:
                        entry, runs = measured[config[0]]
                        if entry["timed_out"]:
                            timed_out_at[config[0]] = nodes
                        failed |= entry["error"] is not None
                        if runs and document["commit"] is None:
                            document["commit"] = runs[0]["json"].get("commit")
                    entries.append(entry)
                document["results"] += entries
                s = summarize(entries, a.policies)
                failed |= bool(s["mismatch"])
                document["summary"].append(s)
                write_atomically(a.json, document)
    document["complete"] = True
    write_atomically(a.json, document)
    print_table(document["summary"], document["results"], a.policies)
    print(f"wrote {a.json}", file=sys.stderr)
    return 1 if failed else 0


def main(argv):
    prog = os.path.basename(sys.argv[0])
    try:
        a = parse_args(argv)
        return sweep(a)
    except UsageError as e:
        message = str(e)
        print(f"{prog}: error: {message}{'' if message.endswith(('.', '?', '!')) else '.'}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; the output file holds the sizes finished so far "
              "(\"complete\": false)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
