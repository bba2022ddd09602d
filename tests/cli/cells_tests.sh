#!/bin/sh
# Cell lists built by one work-group (cells.build_one_group, host/engine/cell_lists.c) against
# the multi-kernel build (count, prefix sums, scatter), on PoCL, whose profile never chooses the
# one-group build: CLNETSIM_TEST_CELLS_ONE_GROUP switches it on. Every moving scenario, a static
# one, two devices, two partitions on two devices (lists filtered to the nodes a device holds),
# and groups of 2 (many cells per item): the same determinism-contract members (json_compare),
# and --kernel-times shows that each build really ran (one-group runs launch no cells.cell_count
# and the others no cells.build_one_group).
# Usage: cells_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 compare=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread pthread"
unset CLNETSIM_TEST_CELLS_ONE_GROUP CLNETSIM_TEST_TEAM CLNETSIM_TEST_BREAK_KERNEL \
    CLNETSIM_TEST_PROFILE_ENTRIES
# the self-test's verdicts of this script's own (the hook is not in their cache's key)
export XDG_CACHE_HOME="$tmp/cache"

# NAME, then the run's arguments
cells_case() {
    cc=$1
    shift
    check "${cc}_multi" 0 'cells\.cell_count' "$bin" run "$@" -q --kernel-times \
        --json "$tmp/$cc.m.json"
    expect "${cc}_multi_not_one" sh -c "! grep -q 'cells.build_one_group' '$tmp/out'"
    check "${cc}_one" 0 'cells\.build_one_group' env CLNETSIM_TEST_CELLS_ONE_GROUP=1000000 \
        XDG_CACHE_HOME="$tmp/cache1" "$bin" run "$@" -q --kernel-times --json "$tmp/$cc.1.json"
    expect "${cc}_one_no_count" sh -c "! grep -q 'cells.cell_count' '$tmp/out'"
    expect "${cc}_one_not_left_out" sh -c "! grep -q 'failed the self-test' '$tmp/out'"
    check "${cc}_same" 0 '' "$compare" "$tmp/$cc.m.json" "$tmp/$cc.1.json"
    expect "${cc}_receptions" grep -Eq '"receptions": [1-9]' "$tmp/$cc.1.json"
}

for s in small_mobile small_mobile_counter small_linear small_grid_walk \
    small_random_direction small_random_walk; do
    cells_case "$s" "$scn/$s.ini" --devices 0
done
cells_case mobile_2dev "$scn/small_mobile.ini" --devices 0,1
cells_case mobile_p2_2dev "$scn/small_mobile.ini" -s partition.count=2 --devices 0,1
cells_case mobile_wg2 "$scn/small_mobile.ini" --devices 0 --work-group 2
cells_case grid_static "$scn/small_grid.ini" --devices 0,1
# a limit below the node count keeps the multi-kernel build
check below_limit 0 'cells\.cell_count' env CLNETSIM_TEST_CELLS_ONE_GROUP=10 \
    XDG_CACHE_HOME="$tmp/cache1" "$bin" run "$scn/small_mobile.ini" --devices 0 -q --kernel-times
expect below_limit_not_one sh -c "! grep -q 'cells.build_one_group' '$tmp/out'"
finish cells
