#!/bin/sh
# Benchmark: runs a scenario N times (default 5) after one warm-up run (kernel caches warm) and
# writes the median and range of the simulation wall time, of the whole process time, and of
# events/s to a JSON file, with the machine, device and commit.
# usage: tools/bench_flood.sh CLNETSIM SCENARIO.ini OUT.json [RUNS] [-- extra run arguments]
set -eu
bin=$1 scenario=$2 out=$3
runs=5
shift 3
if [ $# -gt 0 ] && [ "$1" != "--" ]; then runs=$1; shift; fi
[ "${1:-}" = "--" ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" run "$scenario" --quiet --json "$tmp/warm.json" "$@"
i=1
while [ "$i" -le "$runs" ]; do
    t0=$(date +%s.%N)
    "$bin" run "$scenario" --quiet --json "$tmp/run$i.json" "$@"
    t1=$(date +%s.%N)
    echo "$t0 $t1" | awk '{printf "%.6f\n", $2 - $1}' > "$tmp/proc$i"
    i=$((i + 1))
done

member() { sed -n "s/^  \"$1\": \\(.*\\),\$/\\1/p" "$2"; }
median() { sort -g | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s", m, v[1], v[NR]}'; }
wall=$(for i in $(seq "$runs"); do member wall_s "$tmp/run$i.json"; done | median)
eps=$(for i in $(seq "$runs"); do member events_per_s "$tmp/run$i.json"; done | median)
proc=$(for i in $(seq "$runs"); do cat "$tmp/proc$i"; done | median)
device=$(sed -n 's/.*{"name": "\([^"]*\)".*/\1/p' "$tmp/run1.json" | head -n 1)
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
set -- $wall; w_med=$1 w_min=$2 w_max=$3
set -- $eps; e_med=$1 e_min=$2 e_max=$3
set -- $proc; p_med=$1 p_min=$2 p_max=$3
cat > "$out" <<JSON
{
  "scenario": "$scenario",
  "runs": $runs,
  "wall_s_median": $w_med, "wall_s_min": $w_min, "wall_s_max": $w_max,
  "process_s_median": $p_med, "process_s_min": $p_min, "process_s_max": $p_max,
  "events_per_s_median": $e_med, "events_per_s_min": $e_min, "events_per_s_max": $e_max,
  "events": $(( $(member transmissions "$tmp/run1.json") + $(member receptions "$tmp/run1.json") )),
  "device_bytes": $(member device_bytes "$tmp/run1.json"),
  "device": "$device",
  "cpu": "$cpu",
  "cores": $(nproc),
  "commit": $(sed -n 's/^  "commit": \(.*\),$/\1/p' "$tmp/run1.json"),
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
JSON
cat "$out"
