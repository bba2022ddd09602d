#!/bin/sh
# The paper's grid of Kademlia runs (docs/benchmarks.md, "Kademlia: adaptive granularity") at
# fixed windows per launch and chosen by the run (0), for tools/plot_granularity.py.
#
#   tools/bench_kademlia_granularity.sh CLNETSIM OUT.txt "PEERS..." "W..." RUNS [DEVICES]
#
# For each peer count and d_max of 10 s, 1 min and 10 min (simulated to 10 x d_max), one
# warm-up per peer count, then RUNS rounds of every W in the order given (W = 0: chosen by the
# run). Each run appends a line to OUT.txt: peers d_max_s W run wall_s events final moves
# (final: the windows a launch in force at the end; moves: the run's changes of it). DEVICES
# is run's -d (default gpu). Every run's contract is compared with the round's first run.
set -eu
if [ $# -lt 5 ]; then
    echo "usage: $0 CLNETSIM OUT.txt \"PEERS...\" \"W...\" RUNS [DEVICES]" >&2
    exit 2
fi
bin=$1 out=$2 sizes=$3 ws=$4 runs=$5 devs=${6:-gpu}
here=$(cd "$(dirname "$0")/.." && pwd)
scenario=$here/scenarios/small_kademlia.ini
compare=$(dirname "$bin")/json_compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# peers d_max_s windows_per_launch run wall_s events final moves" > "$out.part"
value() { sed -n "s/.*\"$1\": \\([0-9.e+-]*\\).*/\\1/p" "$2" | head -1; }
for n in $sizes; do
    "$bin" run "$scenario" -d "$devs" -q -s kademlia.peers="$n" > /dev/null # warm-up
    for dt in 10:100 60:600 600:6000; do
        d=${dt%%:*} t=${dt##*:}
        for r in $(seq 1 "$runs"); do
            first=
            for w in $ws; do
                f=$tmp/run.json
                "$bin" run "$scenario" -d "$devs" -q -s kademlia.peers="$n" \
                    -s simulation.duration="$t" -s kademlia.lookup_gap_max="$d" \
                    -s kademlia.windows_per_launch="$w" --json "$f"
                if [ -z "$first" ]; then
                    first=$tmp/first.json
                    cp "$f" "$first"
                else
                    "$compare" "$first" "$f" > /dev/null
                fi
                moves=$(value moves "$f")
                echo "$n $d $w $r $(value wall_s "$f") $(value events "$f") \
$(value final "$f") ${moves:-0}" >> "$out.part"
            done
        done
    done
done
mv "$out.part" "$out"
