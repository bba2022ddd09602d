#!/bin/sh
# Runs one scenario with clnetsim and with the ns-3 program of this folder, checks that every
# determinism-contract counter is equal, and reports the speed ratio (docs/ns3.md).
#
# usage: tools/ns3/compare_ns3.sh [options] SCENARIO.ini [-s SECTION.KEY=VALUE ...]
#   --build DIR      build folder (default: build next to this repository); the script
#                    configures it with -DCLNETSIM_NS3=ON and builds clnetsim, clnetsim-ns3 and
#                    json_compare there, unless --no-build
#   --no-build       use the programs already in DIR
#   --repeat N       timed runs of each program (default 3); the median is reported
#   --devices SPEC   clnetsim's devices (default: clnetsim's own choice)
#   --scheduler S    ns-3 scheduler: map (ns-3's default), heap, list, calendar, priority
#   --json FILE      write the comparison as JSON (atomically)
#
# Exit status: 0 counters equal, 1 a difference or a failed run, 2 bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
do_build=1 repeat=3 devices= scheduler=map json= scenario=
usage() { sed -n '2,16s/^# \{0,1\}//p' "$0"; }
die() { echo "compare_ns3: $1" >&2; exit "${2:-2}"; }

overrides_file=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$overrides_file"' EXIT
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --build) [ $# -ge 2 ] || die "--build needs a folder"; build=$2; shift ;;
    --no-build) do_build=0 ;;
    --repeat) [ $# -ge 2 ] || die "--repeat needs a count"; repeat=$2; shift
        case $repeat in '' | *[!0-9]* | 0) die "--repeat needs a positive integer, not '$repeat'" ;; esac ;;
    --devices) [ $# -ge 2 ] || die "--devices needs a selection"; devices=$2; shift ;;
    --scheduler) [ $# -ge 2 ] || die "--scheduler needs a name"; scheduler=$2; shift ;;
    --json) [ $# -ge 2 ] || die "--json needs a file name"; json=$2; shift ;;
    -s | --set) [ $# -ge 2 ] || die "$1 needs SECTION.KEY=VALUE"; printf '%s\n' "$2" >> "$overrides_file"; shift ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$scenario" ] || die "more than one scenario file ('$1')"; scenario=$1 ;;
    esac
    shift
done
[ -n "$scenario" ] || die "no scenario file given (see --help)"
[ -r "$scenario" ] || die "cannot read scenario file $scenario"
if [ -n "$json" ]; then
    jdir=$(dirname "$json")
    [ -d "$jdir" ] && [ -w "$jdir" ] || die "cannot write $json: folder $jdir is missing or not writable"
fi

if [ "$do_build" -eq 1 ]; then
    echo "building clnetsim, clnetsim-ns3 and json_compare in $build"
    { cmake -S "$root" -B "$build" -DCLNETSIM_NS3=ON &&
        cmake --build "$build" -j"$(nproc)" --target clnetsim clnetsim-ns3 json_compare; } \
        > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; die "the build failed (see above)" 1; }
fi
for p in clnetsim clnetsim-ns3 json_compare; do
    [ -x "$build/$p" ] || die "$build/$p is missing: build it, or leave out --no-build" 1
done

# The overrides become "-s K=V" words again, each kept whole (set -- resets "$@").
set --
while IFS= read -r o; do set -- "$@" -s "$o"; done < "$overrides_file"

now_ns() { date +%s%N; }
member() { sed -n "s/^  \"$2\": \(.*\),\$/\1/p" "$1" | tr -d '"'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.6f\n", v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Timed runs: the JSON wall_s is the simulation alone; the process time includes start-up,
# scenario setup and (for clnetsim) opening the device.
i=1
while [ "$i" -le "$repeat" ]; do
    t0=$(now_ns)
    "$build/clnetsim" run "$scenario" "$@" ${devices:+--devices "$devices"} -q \
        --json "$tmp/clnetsim-$i.json" > "$tmp/clnetsim.log" 2>&1 ||
        { cat "$tmp/clnetsim.log" >&2; die "clnetsim failed on $scenario" 1; }
    t1=$(now_ns)
    "$build/clnetsim-ns3" "$scenario" "$@" --scheduler "$scheduler" \
        --json "$tmp/ns3-$i.json" > "$tmp/ns3.log" 2>&1 ||
        { cat "$tmp/ns3.log" >&2; die "clnetsim-ns3 failed on $scenario" 1; }
    t2=$(now_ns)
    echo "$(( t1 - t0 ))" >> "$tmp/clnetsim.proc"
    echo "$(( t2 - t1 ))" >> "$tmp/ns3.proc"
    member "$tmp/clnetsim-$i.json" wall_s >> "$tmp/clnetsim.wall"
    member "$tmp/ns3-$i.json" wall_s >> "$tmp/ns3.wall"
    i=$((i + 1))
done

# Every run of either program against ns-3's first run: all must be equal.
equal=true
i=1
while [ "$i" -le "$repeat" ]; do
    for side in clnetsim ns3; do
        [ "$side-$i" = ns3-1 ] && continue
        if ! "$build/json_compare" "$tmp/ns3-1.json" "$tmp/$side-$i.json" > "$tmp/cmp.log" 2>&1; then
            equal=false
            echo "MISMATCH between ns-3 run 1 (A) and $side run $i (B):"
            sed 's/^/    /' "$tmp/cmp.log"
        fi
    done
    i=$((i + 1))
done

c_wall=$(median < "$tmp/clnetsim.wall")
n_wall=$(median < "$tmp/ns3.wall")
c_proc=$(awk '{ print $1 / 1e9 }' "$tmp/clnetsim.proc" | median)
n_proc=$(awk '{ print $1 / 1e9 }' "$tmp/ns3.proc" | median)
events=$(awk -v t="$(member "$tmp/ns3-1.json" transmissions)" -v r="$(member "$tmp/ns3-1.json" receptions)" \
    'BEGIN { printf "%.0f", t + r }')
device=$(sed -n 's/.*{"name": "\([^"]*\)", "platform": "\([^"]*\)".*/\1 (\2)/p' "$tmp/clnetsim-1.json" | paste -sd '+' -)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "null" }'; }
jstr() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; } # a JSON string's inside
r_wall=$(ratio "$n_wall" "$c_wall")
r_proc=$(ratio "$n_proc" "$c_proc")

echo "scenario    $scenario $*"
echo "nodes       $(member "$tmp/ns3-1.json" nodes), $events events (transmissions + receptions)"
if $equal; then
    echo "counters    equal in every run: model seed nodes generated delivered loss transmissions"
    echo "            receptions first_receptions hops_sum latency_sum_ns end_time_ns windows"
fi
echo "device      $device"
printf '%-44s %12s %12s\n' "median of $repeat run(s)" "simulation s" "process s"
printf '%-44s %12s %12s\n' "clnetsim" "$c_wall" "$c_proc"
printf '%-44s %12s %12s\n' "ns-3.37, $(member "$tmp/ns3-1.json" scheduler)" "$n_wall" "$n_proc"
printf '%-44s %11sx %11sx\n' "ratio (ns-3 / clnetsim)" "$r_wall" "$r_proc"

if [ -n "$json" ]; then
    out=$(mktemp "$json.tmp.XXXXXX") || die "cannot write $json" 1
    {
        echo "{"
        echo "  \"scenario\": \"$(jstr "$scenario")\","
        printf '  "overrides": ['
        sep=
        while IFS= read -r o; do printf '%s"%s"' "$sep" "$(jstr "$o")"; sep=', '; done < "$overrides_file"
        echo "],"
        echo "  \"equal\": $equal,"
        echo "  \"events\": $events,"
        echo "  \"repeat\": $repeat,"
        echo "  \"clnetsim\": {\"device\": \"$(jstr "$device")\", \"wall_s\": $c_wall, \"process_s\": $c_proc, \"runs\": [$(paste -sd, "$tmp/clnetsim.wall")]},"
        echo "  \"ns3\": {\"version\": \"$(member "$tmp/ns3-1.json" simulator)\", \"scheduler\": \"$(member "$tmp/ns3-1.json" scheduler)\", \"wall_s\": $n_wall, \"process_s\": $n_proc, \"runs\": [$(paste -sd, "$tmp/ns3.wall")]},"
        echo "  \"ratio_simulation\": $r_wall,"
        echo "  \"ratio_process\": $r_proc,"
        echo "  \"commit\": \"$(member "$tmp/clnetsim-1.json" commit)\","
        echo "  \"machine\": \"$(uname -m), $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)\""
        echo "}"
    } > "$out" && mv "$out" "$json" || { rm -f "$out"; die "cannot write $json" 1; }
fi
$equal || exit 1
exit 0
