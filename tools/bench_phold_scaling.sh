#!/bin/sh
# The PHOLD scaling sweep: events per second against the LP count at a constant number of
# events per LP. Runs `clnetsim bench` on scenarios/phold.ini once per size, 2^FROM .. 2^TO
# LPs (default 2^14 .. 2^24), with population 16 and the file's other parameters (so every
# LP executes about the same number of events at every size), and writes one bench JSON file
# per size into OUT_DIR (phold-lps-N.json). A size that fails on a device, or whose devices
# disagree, is reported and the sweep goes on; the exit status is then 1. Plot the files with
# tools/plot_phold_scaling.py.
#
# usage: tools/bench_phold_scaling.sh CLNETSIM OUT_DIR [--from K] [--to K] [-r N]
#                                     [-- more bench arguments, e.g. --devices 0,1]
set -eu
usage() {
    echo "usage: $0 CLNETSIM OUT_DIR [--from K] [--to K] [-r N] [-- bench arguments]" >&2
    exit 2
}
[ $# -ge 2 ] || usage
bin=$1 out=$2
shift 2
from=14 to=24 repeat=5
while [ $# -gt 0 ]; do
    case $1 in
        --from) [ $# -ge 2 ] || usage; from=$2; shift 2 ;;
        --to) [ $# -ge 2 ] || usage; to=$2; shift 2 ;;
        -r|--repeat) [ $# -ge 2 ] || usage; repeat=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "$0: unknown argument '$1'" >&2; usage ;;
    esac
done
case "$from$to" in *[!0-9]*|'') echo "$0: --from and --to take exponents (14, 24)" >&2; exit 2 ;; esac
if [ "$from" -gt "$to" ] || [ "$to" -gt 31 ]; then
    echo "$0: expected 0 <= --from <= --to <= 31, got $from and $to" >&2
    exit 2
fi
scenario=$(dirname "$0")/../scenarios/phold.ini
[ -r "$scenario" ] || { echo "$0: cannot read $scenario" >&2; exit 2; }
mkdir -p "$out"

status=0
k=$from
while [ "$k" -le "$to" ]; do
    lps=$((1 << k))
    json=$out/phold-lps-$lps.json
    echo "2^$k = $lps LPs -> $json" >&2
    # bench exits 1 when a device failed or devices disagreed, and still writes the file;
    # 2 is bad input (a bad argument, or a size the devices cannot hold): nothing ran
    rc=0
    "$bin" bench "$scenario" -s "phold.lps=$lps" -s phold.population=16 -r "$repeat" \
        --json "$json" "$@" || rc=$?
    case $rc in
        0) ;;
        1) echo "$0: the bench at $lps LPs reported a failure (see above); going on" >&2
           status=1 ;;
        *) echo "$0: the bench at $lps LPs did not run (exit $rc); stopping" >&2
           exit "$rc" ;;
    esac
    k=$((k + 1))
done
exit $status
