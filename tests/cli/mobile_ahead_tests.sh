#!/bin/sh
# Moving-node windows enqueued one window ahead of their read-back (the path of one GPU,
# CLNETSIM_TEST_RUN_AHEAD=1 on PoCL) against each window read back before the next
# (CLNETSIM_TEST_RUN_AHEAD=0), on one device: the same determinism-contract members
# (json_compare; with flows also the --packets rows) for every quick moving scenario, under a
# neighbour cap, under the counter and distance schemes, with flows, with tiny starting
# frontiers and one slot (every frontier then grows to the relay bound, which must hold), with
# the partition moving between two devices, stopped with and without a checkpoint (and
# resumed), and with --kernel-times; the default deferring two windows' read-backs in a row to
# the next one's (flood_exchange.c), one (CLNETSIM_TEST_READ_EVERY=2), every window read back
# (CLNETSIM_TEST_READ_EVERY=1), and the hook's bad values. A dense case (every node hears
# every other: a window's relays reach n - 1 per packet) is also checked against the oracle,
# which no run-ahead can share a fault with.
# Usage: mobile_ahead_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE FLOOD_ORACLE
bin=$1 src=$2 compare=$3 oracle=$4
scn=$src/scenarios
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread"
# the self-test's verdicts of this script's own: a kernel whose idle items do not exit fails
# the kernel-shape self-test, which would otherwise hide it by moving to groups of one item
export XDG_CACHE_HOME="$tmp/cache"
unset CLNETSIM_TEST_RUN_AHEAD CLNETSIM_TEST_FRONTIER_CAPACITY CLNETSIM_TEST_RELAY_BUFFER \
    CLNETSIM_TEST_SLOTS CLNETSIM_TEST_RAISE CLNETSIM_TEST_READ_EVERY
tiny="CLNETSIM_TEST_FRONTIER_CAPACITY=3 CLNETSIM_TEST_RELAY_BUFFER=1 CLNETSIM_TEST_SLOTS=1"

kept() { # NAME: the last run left no kernel shape out
    expect "$1_not_left_out" sh -c "! grep -q 'failed the self-test' '$tmp/out'"
}

# NAME, extra output option ("" or --packets), environment of the run ahead ("" or "$tiny"),
# then the run's arguments
ahead_case() {
    ac=$1 packets=$2 extra=$3
    shift 3
    p0="" p1=""
    [ -n "$packets" ] && p0="--packets $tmp/$ac.0.csv" p1="--packets $tmp/$ac.1.csv"
    # shellcheck disable=SC2086
    check "${ac}_waiting" 0 '' env CLNETSIM_TEST_RUN_AHEAD=0 "$bin" run "$@" -q --devices 0 \
        --json "$tmp/$ac.0.json" $p0
    kept "${ac}_waiting"
    # shellcheck disable=SC2086
    check "${ac}_ahead" 0 '' env CLNETSIM_TEST_RUN_AHEAD=1 $extra "$bin" run "$@" -q \
        --devices 0 --json "$tmp/$ac.1.json" $p1
    kept "${ac}_ahead"
    check "${ac}_same" 0 '' "$compare" "$tmp/$ac.0.json" "$tmp/$ac.1.json"
    [ -n "$packets" ] && expect "${ac}_same_packets" cmp -s "$tmp/$ac.0.csv" "$tmp/$ac.1.csv"
    expect "${ac}_receptions" grep -Eq '"receptions": [1-9]' "$tmp/$ac.1.json"
}

# every quick moving scenario, as it comes and squeezed
for f in small_mobile small_random_walk small_random_direction small_grid_walk small_linear \
    small_groups small_mobile_counter; do
    ahead_case "$f" "" "" "$scn/$f.ini"
    ahead_case "${f}_tiny" "" "$tiny" "$scn/$f.ini"
done
small_ref="-s topology.nodes=1200 -s topology.width=800 -s topology.height=800"
small_ref="$small_ref -s traffic.packets=40"
# shellcheck disable=SC2086
ahead_case mobile_flood_small "" "" "$scn/mobile_flood.ini" $small_ref
# shellcheck disable=SC2086
ahead_case mobile_flood_small_tiny "" "$tiny" "$scn/mobile_flood.ini" $small_ref
# the distance scheme among moving nodes (the counter's is small_mobile_counter above): the
# decisions' relays bounded by the packets' nodes, as without a scheme
dist="-s flood.scheme=distance -s flood.distance_threshold=60"
# shellcheck disable=SC2086
ahead_case distance "" "" "$scn/small_mobile_counter.ini" $dist
# shellcheck disable=SC2086
ahead_case distance_tiny "" "$tiny" "$scn/small_mobile_counter.ini" $dist
# a neighbour cap (udg: the lists capped per window; qudg: thresholds per window)
ahead_case cap_udg "" "$tiny" "$scn/small_mobile.ini" -s connectivity.max_neighbors=6
ahead_case cap_qudg "" "$tiny" "$scn/small_mobile.ini" -s connectivity.model=qudg \
    -s connectivity.range_min=40 -s connectivity.link_probability=0.6 \
    -s connectivity.max_neighbors=6
# traffic flows of moving nodes (deliveries read back with each window's counters)
mob="-s mobility.model=rwp -s mobility.speed_min=5 -s mobility.speed_max=20"
mob="$mob -s topology.width=500 -s topology.height=500"
# shellcheck disable=SC2086
ahead_case flows packets "" "$scn/small_flows.ini" $mob
# shellcheck disable=SC2086
ahead_case flows_tiny packets "$tiny" "$scn/small_flows.ini" $mob
# Dense: 40 nodes within range of each other, no drops, packets every 0.3 windows; with one
# slot and frontiers of 3 at first, each frontier is exactly what the relay bound asks for.
dense="-s topology.nodes=40 -s topology.width=60 -s topology.height=60 -s topology.depth=20"
dense="$dense -s flood.drop_probability=0 -s traffic.interval=0.3 -s traffic.packets=12"
# shellcheck disable=SC2086
ahead_case dense "" "$tiny" "$scn/small_mobile.ini" $dense
# shellcheck disable=SC2086
check dense_oracle 0 '' "$oracle" "$scn/small_mobile.ini" $dense --json "$tmp/dense.ora.json"
check dense_same_as_oracle 0 '' "$compare" "$tmp/dense.ora.json" "$tmp/dense.1.json"
expect dense_relays grep -Eq '"transmissions": [1-9][0-9][0-9]' "$tmp/dense.1.json"

# the partition moved to the other device every 2 windows (CLNETSIM_TEST_MIGRATE_EVERY):
# a window run ahead on one device, the next on the other, which first reads it back
for mv in "" "$tiny"; do
    mc=migrate${mv:+_tiny}
    # shellcheck disable=SC2086
    check "$mc" 0 '' env POCL_DEVICES="pthread pthread" CLNETSIM_TEST_RUN_AHEAD=1 \
        CLNETSIM_TEST_MIGRATE_EVERY=2 $mv "$bin" run "$scn/small_mobile.ini" -q --devices 0,1 \
        --json "$tmp/$mc.json"
    kept "$mc"
    expect "${mc}_moved" grep -Eq '"migrations": [1-9]' "$tmp/$mc.json"
    check "${mc}_same" 0 '' "$compare" "$tmp/small_mobile.0.json" "$tmp/$mc.json"
done

# stopped by SIGINT after 10 windows with a checkpoint, resumed: the whole run's results
check ckpt_whole 0 '' env CLNETSIM_TEST_RUN_AHEAD=0 "$bin" run "$scn/small_mobile.ini" -q \
    --devices 0 --json "$tmp/ck.whole.json"
check ckpt_stopped 130 '' env CLNETSIM_TEST_RUN_AHEAD=1 CLNETSIM_TEST_RAISE=INT@10 "$bin" run \
    "$scn/small_mobile.ini" -q --devices 0 --checkpoint "$tmp/ck.ckpt" --json "$tmp/ck.part.json"
expect ckpt_incomplete grep -q '"complete": false' "$tmp/ck.part.json"
check ckpt_resumed 0 '' env CLNETSIM_TEST_RUN_AHEAD=1 "$bin" resume "$tmp/ck.ckpt" -q \
    --json "$tmp/ck.resumed.json"
expect ckpt_from_midway grep -Eq '"resumed_from_ns": [1-9]' "$tmp/ck.resumed.json"
check ckpt_same 0 '' "$compare" "$tmp/ck.whole.json" "$tmp/ck.resumed.json"
# every window read back, one ahead (CLNETSIM_TEST_READ_EVERY=1), every other window's
# read-back deferred to the next one's (CLNETSIM_TEST_READ_EVERY=2) and two windows' in a row
# (the default; flood_exchange.c): the same results, and the deferral seen in the read-backs
# the JSON counts
reads() { # JSON: the host's read-backs
    grep -o '"read_backs": [0-9]*' "$1" | grep -o '[0-9]*$'
}
windows() { # JSON: the run's windows
    grep -o '"windows": [0-9]*' "$1" | grep -o '[0-9]*$'
}
ahead_case every_window "" CLNETSIM_TEST_READ_EVERY=1 "$scn/small_mobile.ini"
expect every_window_reads test "$(reads "$tmp/every_window.1.json")" -ge \
    "$(windows "$tmp/every_window.1.json")"
ahead_case every_window_tiny "" "$tiny CLNETSIM_TEST_READ_EVERY=1" "$scn/small_random_walk.ini"
ahead_case every_second "" CLNETSIM_TEST_READ_EVERY=2 "$scn/small_mobile.ini"
ahead_case every_second_tiny "" "$tiny CLNETSIM_TEST_READ_EVERY=2" "$scn/small_random_walk.ini"
# shellcheck disable=SC2086
ahead_case every_second_ref "" CLNETSIM_TEST_READ_EVERY=2 "$scn/mobile_flood.ini" $small_ref
expect every_second_reads test "$(($(reads "$tmp/every_second.1.json") * 2))" -le \
    "$(($(windows "$tmp/every_second.1.json") + 4))"
expect every_second_deferred test "$(($(reads "$tmp/every_second.1.json") * 3))" -gt \
    "$(($(windows "$tmp/every_second.1.json") + 6))"
expect deferred_reads test "$(($(reads "$tmp/small_mobile.1.json") * 3))" -le \
    "$(($(windows "$tmp/small_mobile.1.json") + 6))"
expect waiting_reads test "$(reads "$tmp/small_mobile.0.json")" -eq \
    "$(windows "$tmp/small_mobile.0.json")"
# not deferred: flows (their deliveries are read with each window): a read-back for every
# window with transmissions (some have none)
expect flows_reads test "$(($(reads "$tmp/flows.1.json") * 4))" -ge \
    "$(($(windows "$tmp/flows.1.json") * 3))"
for bad in 0 4 12 x; do
    check "read_every_bad_$bad" 2 \
        "^clnetsim: error: CLNETSIM_TEST_READ_EVERY='$bad' is not 1, 2 or 3$" \
        env CLNETSIM_TEST_READ_EVERY="$bad" "$bin" run "$scn/small_mobile.ini" --devices 0 -q
done

# stopped by SIGINT without a checkpoint: the windows run until then, either way
for ra in 0 1; do
    check "stop_$ra" 130 '' env CLNETSIM_TEST_RUN_AHEAD=$ra CLNETSIM_TEST_RAISE=INT@10 "$bin" \
        run "$scn/small_mobile.ini" -q --devices 0 --json "$tmp/stop.$ra.json"
done
expect stop_incomplete grep -q '"complete": false' "$tmp/stop.1.json"
check stop_same 0 '' "$compare" "$tmp/stop.0.json" "$tmp/stop.1.json"
# ... and written every window of a run ahead (each checkpoint reads every window back)
check ckpt_every 0 '' env CLNETSIM_TEST_RUN_AHEAD=1 "$bin" run "$scn/small_mobile.ini" -q \
    --devices 0 --checkpoint "$tmp/ck2.ckpt" --checkpoint-every 0.000001 \
    --checkpoint-clock wall --json "$tmp/ck2.json"
check ckpt_every_same 0 '' "$compare" "$tmp/ck.whole.json" "$tmp/ck2.json"

# --kernel-times, either way, and the run's windows
launches() { # FILE: the transmit launches --kernel-times printed
    grep -E '^ +flood\.transmit_mobile ' "$1" | awk '{print $2}'
}
check times_waiting 0 'flood\.transmit_mobile +[0-9]+ launches' env CLNETSIM_TEST_RUN_AHEAD=0 \
    "$bin" run "$scn/small_mobile.ini" -q --devices 0 --kernel-times --json "$tmp/kt0.json"
cp "$tmp/out" "$tmp/kt0.out"
check times_ahead 0 'flood\.transmit_mobile +[0-9]+ launches' env CLNETSIM_TEST_RUN_AHEAD=1 \
    CLNETSIM_TEST_READ_EVERY=1 "$bin" run "$scn/small_mobile.ini" -q --devices 0 \
    --kernel-times --json "$tmp/kt1.json"
cp "$tmp/out" "$tmp/kt1.out"
check times_deferred 0 'flood\.transmit_mobile +[0-9]+ launches' env CLNETSIM_TEST_RUN_AHEAD=1 \
    "$bin" run "$scn/small_mobile.ini" -q --devices 0 --kernel-times --json "$tmp/kt2.json"
cp "$tmp/out" "$tmp/kt2.out"
# run ahead, the window after the last transmission is enqueued before the read-back shows
# that nothing is left: one launch more, whose items all find no entry; three at most where
# that window's read-back was deferred to a later one's
k0=$(launches "$tmp/kt0.out") k1=$(launches "$tmp/kt1.out") k2=$(launches "$tmp/kt2.out")
expect times_launches test "$k1" -eq "$((k0 + 1))"
expect times_launches_deferred test "$k2" -ge "$((k0 + 1))" -a "$k2" -le "$((k0 + 3))"
check times_deferred_same 0 '' "$compare" "$tmp/kt0.json" "$tmp/kt2.json"
expect times_windows grep -Eq '"windows": [1-9]' "$tmp/kt1.json"
# under a scheme too: run ahead, one decision launch more, and the same results
for ra in 0 1; do
    check "times_scheme_$ra" 0 'flood\.scheme_decide +[0-9]+ launches' \
        env CLNETSIM_TEST_RUN_AHEAD=$ra "$bin" run "$scn/small_mobile_counter.ini" -q \
        --devices 0 --kernel-times --json "$tmp/kts$ra.json"
    grep -E '^ +flood\.scheme_decide ' "$tmp/out" | awk '{print $2}' > "$tmp/kts$ra.n"
done
expect times_scheme_launches test "$(cat "$tmp/kts1.n")" -eq "$(($(cat "$tmp/kts0.n") + 1))"
check times_scheme_same 0 '' "$compare" "$tmp/kts0.json" "$tmp/kts1.json"
check times_same 0 '' "$compare" "$tmp/kt0.json" "$tmp/kt1.json"
finish mobile_ahead
