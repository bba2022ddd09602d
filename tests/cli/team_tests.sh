#!/bin/sh
# transmit_mobile with a team of work-items per transmission (cl/flood/flood.cl, FLOOD_TEAM):
# teams of 4 (CLNETSIM_TEST_TEAM) against one item per transmission, on two PoCL devices, in
# groups of 64, 32 and 2 (which takes teams of 2): the same determinism-contract members
# (json_compare; with flows also the --packets rows), and no shape of the team's kernel left
# out by the kernel-shape self-test, which would otherwise hide a wrong team by moving the run
# to groups of one item (teams of 1). Cases: moving nodes, flows under counter (the team's lead
# writes the new packets' tables), qudg under a cap in two partitions on two devices.
# Usage: team_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 compare=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread pthread"
unset CLNETSIM_TEST_TEAM CLNETSIM_TEST_BREAK_KERNEL CLNETSIM_TEST_PROFILE_ENTRIES
# the self-test's verdicts of this script's own, and the teams' apart from one item's: the
# cache's key does not hold the team, and the team's runs must test their own shapes
export XDG_CACHE_HOME="$tmp/cache"

mob="-s mobility.model=rwp -s mobility.speed_min=5 -s mobility.speed_max=20"
mob="$mob -s topology.width=500 -s topology.height=500"
# NAME, extra output option ("" or --packets), then the run's arguments
team_case() {
    # (check and expect set NAME: the case's own is TC)
    tc=$1 packets=$2
    shift 2
    p1="" p4=""
    [ -n "$packets" ] && p1="--packets $tmp/$tc.1.csv" p4="--packets $tmp/$tc.4.csv"
    # shellcheck disable=SC2086
    check "${tc}_team1" 0 '' "$bin" run "$@" -q --json "$tmp/$tc.1.json" $p1
    # shellcheck disable=SC2086
    check "${tc}_team4" 0 '' env CLNETSIM_TEST_TEAM=4 XDG_CACHE_HOME="$tmp/cache4" \
        "$bin" run "$@" -q --json "$tmp/$tc.4.json" $p4
    expect "${tc}_team4_not_left_out" sh -c "! grep -q 'failed the self-test' '$tmp/out'"
    check "${tc}_same" 0 '' "$compare" "$tmp/$tc.1.json" "$tmp/$tc.4.json"
    [ -n "$packets" ] && expect "${tc}_same_packets" cmp -s "$tmp/$tc.1.csv" "$tmp/$tc.4.csv"
    # the runs counted receptions (a team's degree is summed over its members)
    expect "${tc}_receptions" grep -Eq '"receptions": [1-9]' "$tmp/$tc.4.json"
}

team_case mobile_wg64 "" "$scn/small_mobile.ini" --work-group 64
team_case mobile_wg2 "" "$scn/small_mobile.ini" --work-group 2
# shellcheck disable=SC2086
team_case flows_counter_wg32 packets "$scn/small_flows.ini" $mob -s flood.scheme=counter \
    -s flood.counter_threshold=3 -s flood.assessment_delay=3 --work-group 32
team_case qudg_cap_2dev_p2 "" "$scn/small_mobile.ini" -s connectivity.model=qudg \
    -s connectivity.range_min=40 -s connectivity.link_probability=0.6 \
    -s connectivity.max_neighbors=6 -s partition.count=2 --devices 0,1
finish team
