#!/bin/sh
# Timed windows (docs/architecture.md, "When sets are timed"): with one device and nobody
# watching the timings, one window in 16 (CLNETSIM_TEST_TIMING_EVERY=K: one in K) hands its
# profiling events to the injector, and the others launch without. Timing never changes
# results: every window timed (K=1), sampled (the default) and sampled densely (K=3) give the
# same determinism-contract members (json_compare), on one device and on two, for moving
# nodes (read back window by window and run ahead, as on a GPU), under a neighbour cap, under
# a scheme, in two partitions, for static windows, whole packets and PHOLD. The untimed
# windows really hand back no events (the JSON's timed_sets, exact counts); two devices,
# --show-feedback and --trace-inject time every window; a bad K is one sentence, exit 2.
# Usage: timing_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 compare=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread pthread"
unset CLNETSIM_TEST_TIMING_EVERY CLNETSIM_TEST_RUN_AHEAD CLNETSIM_TEST_WHOLE_PACKETS \
    CLNETSIM_TEST_RAISE

member() { # FILE NAME: the values of a numeric member, one per line (devices: each device's)
    grep -o "\"$2\": [0-9]*" "$1" | grep -o '[0-9]*$'
}

# NAME DEVICES, then the run's arguments (an environment first through env): every window
# timed, one in 16 and one in 3, the same contract members
timing_case() {
    tc=$1 devs=$2
    shift 2
    for k in 1 16 3; do
        check "${tc}_k$k" 0 '' env CLNETSIM_TEST_TIMING_EVERY=$k "$@" -q --devices "$devs" \
            --json "$tmp/$tc.$k.json"
    done
    check "${tc}_same_16" 0 '' "$compare" "$tmp/$tc.1.json" "$tmp/$tc.16.json"
    check "${tc}_same_3" 0 '' "$compare" "$tmp/$tc.1.json" "$tmp/$tc.3.json"
}

mob="-s mobility.model=rwp -s mobility.speed_min=5 -s mobility.speed_max=20"
mob="$mob -s topology.width=500 -s topology.height=500"
for devs in 0 0,1; do
    d=$(echo "$devs" | tr -d ,)
    timing_case "mobile_d$d" "$devs" "$bin" run "$scn/small_mobile.ini"
    timing_case "walk_d$d" "$devs" "$bin" run "$scn/small_random_walk.ini"
    timing_case "cap_qudg_d$d" "$devs" "$bin" run "$scn/small_mobile.ini" \
        -s connectivity.model=qudg -s connectivity.range_min=40 \
        -s connectivity.link_probability=0.6 -s connectivity.max_neighbors=6
    timing_case "counter_d$d" "$devs" "$bin" run "$scn/small_mobile_counter.ini"
    timing_case "static_windows_d$d" "$devs" env CLNETSIM_TEST_WHOLE_PACKETS=0 \
        "$bin" run "$scn/small_grid.ini"
    timing_case "whole_d$d" "$devs" "$bin" run "$scn/small_grid.ini"
    timing_case "phold_d$d" "$devs" "$bin" run "$scn/small_phold.ini"
done
# one window ahead of its read-back, the path of one GPU
timing_case ahead_d0 0 env CLNETSIM_TEST_RUN_AHEAD=1 "$bin" run "$scn/small_mobile.ini"
# shellcheck disable=SC2086
timing_case ahead_flows_d0 0 env CLNETSIM_TEST_RUN_AHEAD=1 "$bin" run "$scn/small_flows.ini" $mob
timing_case parts2_d01 0,1 "$bin" run "$scn/small_mobile.ini" -s partition.count=2

# The untimed windows hand back no events. small_mobile has 25 windows: window 0 bins and
# transmits (2 sets), every later one moves, bins and transmits (3). Timed with K=16: windows
# 0, 1 and 16, 8 sets; with K=5: 0, 1, 5, 10, 15, 20, 17 sets; with K=1 all 74.
expect sets_k1 test "$(member "$tmp/mobile_d0.1.json" event_sets)" = 74
expect timed_k1 test "$(member "$tmp/mobile_d0.1.json" timed_sets)" = 74
expect sets_k16 test "$(member "$tmp/mobile_d0.16.json" event_sets)" = 74
expect timed_k16 test "$(member "$tmp/mobile_d0.16.json" timed_sets)" = 8
check mobile_k5 0 '' env CLNETSIM_TEST_TIMING_EVERY=5 "$bin" run "$scn/small_mobile.ini" -q \
    --devices 0 --json "$tmp/k5.json"
expect timed_k5 test "$(member "$tmp/k5.json" timed_sets)" = 17
# run ahead (a GPU's path): the same sets, the same timing
expect timed_ahead test "$(member "$tmp/ahead_d0.16.json" timed_sets)" = 8
# the busy time still counts every set (measured, or estimated from the samples)
expect busy_k16 grep -Eq '"busy_s": [0-9.]*[1-9]' "$tmp/mobile_d0.16.json"
check summary_k16 0 'busy [0-9.]+ s \(8 sets timed, the others estimated\)' \
    "$bin" run "$scn/small_mobile.ini" --devices 0
# PHOLD hands back its events in every window: all its sets are timed
expect phold_all_timed test "$(member "$tmp/phold_d0.16.json" timed_sets)" = \
    "$(member "$tmp/phold_d0.16.json" event_sets)"
# two devices: the injector has a choice, every window is timed
for f in "$tmp/mobile_d01.16.json" "$tmp/parts2_d01.16.json"; do
    expect "two_devices_all_timed_$(basename "$f")" test \
        "$(member "$f" timed_sets | tr '\n' ' ')" = "$(member "$f" event_sets | tr '\n' ' ')"
done

# Watched timings time every window: --show-feedback reports as many launches of each kind as
# with K=1, and --trace-inject has a measured time in every row.
launches() { grep -o '[0-9]* launches' "$1" | tr '\n' ' '; }
check feedback_k1 0 'Kind transmit' env CLNETSIM_TEST_TIMING_EVERY=1 "$bin" run \
    "$scn/small_mobile.ini" -q --devices 0 --show-feedback
cp "$tmp/out" "$tmp/feedback.1"
check feedback_k16 0 'Kind transmit' "$bin" run "$scn/small_mobile.ini" -q --devices 0 \
    --show-feedback
expect feedback_same_launches test "$(launches "$tmp/out")" = "$(launches "$tmp/feedback.1")"
expect feedback_transmit_launches grep -q ': 25 launches' "$tmp/out"
check trace_k16 0 '' "$bin" run "$scn/small_mobile.ini" -q --devices 0 --trace-inject \
    "$tmp/t.csv"
expect trace_rows test "$(($(wc -l < "$tmp/t.csv") - 1))" = 74
expect trace_measured awk -F, 'NR > 1 && $7 == "" { bad = 1 } END { exit bad }' "$tmp/t.csv"

# A bad sampling period: one sentence naming the hook, exit 2, nothing run.
for v in 0 -3 x 16x 1000001; do
    check "bad_every_$v" 2 "^clnetsim: error: CLNETSIM_TEST_TIMING_EVERY='$v' is not a whole number from 1 to 1000000\$" \
        env CLNETSIM_TEST_TIMING_EVERY="$v" "$bin" run "$scn/small_mobile.ini" -q --devices 0
    expect "bad_every_${v}_one_line" test "$(wc -l < "$tmp/out")" -eq 1
done
finish timing
