#!/bin/sh
# One scenario on every OpenCL implementation that tests/impls covers, in processes that load
# all of them (OCL_ICD_VENDORS names a folder with PoCL's, Intel's and rusticl's .icd): the
# determinism-contract members (json_compare's) of each side must equal PoCL's, and with
# --packets the per-packet records too, byte for byte. A side is one implementation alone
# (selected by text, as a user would: --devices Intel:) or several at once (selected by their
# indices in `clnetsim devices`), whose devices must then each have run some of the events.
#
# Usage: impls_run.sh CLNETSIM JSON_COMPARE [--packets] SIDE... -- SCENARIO [RUN OPTIONS...]
#   SIDE: pocl, intel or rusticl, or several joined by "+" (intel+pocl)
# The first side is the reference; it should be pocl alone.
# Exit status: 0 all equal; 1 a difference or a failed run; 77 (ctest's skip) an implementation
# is missing outside CI (CI=true makes that a failure).
bin=$1 compare=$2
shift 2
packets=0
if [ "$1" = --packets ]; then
    packets=1
    shift
fi
sides=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    sides="$sides $1"
    shift
done
[ "$1" = -- ] && shift
if [ -z "$sides" ] || [ $# -eq 0 ]; then
    echo "usage: impls_run.sh CLNETSIM JSON_COMPARE [--packets] SIDE... -- SCENARIO [OPTIONS...]" >&2
    exit 2
fi
. "$(dirname "$0")/impls_common.sh"
impls_require pocl intel rusticl

fail=0
ref=
for side in $sides; do
    out="$tmp/$(echo "$side" | tr + _)"
    if [ "${side#*+}" = "$side" ]; then
        devices=$(impls_selector "$side")
    else
        devices=$(impls_indices "$side") || exit 1
    fi
    if [ "$packets" -eq 1 ]; then
        "$bin" run "$@" --devices "$devices" --quiet --json "$out.json" --packets "$out.csv"
    else
        "$bin" run "$@" --devices "$devices" --quiet --json "$out.json"
    fi > "$out.log" 2>&1 || {
        echo "FAIL $side: clnetsim run $* --devices $devices exited with an error:"
        sed 's/^/    /' "$out.log"
        exit 1
    }
    # a side of several implementations: each must have done part of the work
    if [ "${side#*+}" != "$side" ]; then
        for impl in $(echo "$side" | tr + ' '); do
            platform=$(impls_platform "$impl")
            if ! grep -F "\"platform\": \"$platform\"" "$out.json" | grep -Eq '"events": [1-9]'; then
                echo "FAIL $side: the run did not use $platform; the devices of its result:"
                grep -F '"platform"' "$out.json" | sed 's/^/    /'
                fail=1
            fi
        done
    fi
    if [ -z "$ref" ]; then
        ref=$side refout=$out
        continue
    fi
    if ! "$compare" "$refout.json" "$out.json" > "$out.cmp" 2>&1; then
        echo "FAIL $side differs from $ref on: $*"
        sed 's/^/    /' "$out.cmp"
        fail=1
    elif [ "$packets" -eq 1 ] && ! cmp -s "$refout.csv" "$out.csv"; then
        echo "FAIL $side: per-packet records differ from $ref's on: $*"
        diff "$refout.csv" "$out.csv" | head -n 10 | sed 's/^/    /'
        fail=1
    else
        echo "identical: $ref and $side ($devices)"
    fi
done
[ "$fail" -eq 0 ] && echo "every implementation gave the same results: $*"
exit "$fail"
