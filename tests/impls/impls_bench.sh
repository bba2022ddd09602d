#!/bin/sh
# `clnetsim bench --devices all` with PoCL, Intel's runtime and rusticl in one process: every
# device of every scenario must run and the determinism contract must be identical across the
# three implementations; a device made to disagree (the bench's test hook) must be reported.
# Usage: impls_bench.sh CLNETSIM SCENARIO...
bin=$1
shift
. "$(dirname "$0")/../common/check.sh"
. "$(dirname "$0")/impls_common.sh"
impls_require pocl intel rusticl
unset CLNETSIM_TEST_SKEW_DEVICE
n=$#

check bench_all 0 'identical on every device and run' \
    "$bin" bench --devices all --repeat 1 --warmup 0 -q --json "$tmp/bench.json" "$@"
expect bench_all_agree [ "$(grep -c 'determinism contract: identical on every device and run' "$tmp/out")" -eq "$n" ]
expect bench_all_json_agree [ "$(grep -c '"agree": true' "$tmp/bench.json")" -eq "$n" ]
for impl in pocl intel rusticl; do
    p=$(impls_platform "$impl")
    expect "bench_all_ran_on_$impl" [ "$(grep -F "\"platform\": \"$p\"" "$tmp/bench.json" |
        grep -c '"failed": false')" -eq "$n" ]
done

# The comparison is real: Intel's device given one reception more is named as disagreeing.
intel=$(impls_index intel)
check bench_all_mismatch 1 "MISMATCH, devices [0-9]+ \\(.*\\) and $intel \\(.*\\) disagree: receptions: [0-9]+ vs [0-9]+" \
    env CLNETSIM_TEST_SKEW_DEVICE="$intel" "$bin" bench --devices all --repeat 1 --warmup 0 -q "$1"
finish impls_bench
