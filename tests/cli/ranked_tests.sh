#!/bin/sh
# Cell lists built from the ranks the mobility step takes (cells.scatter_ranked,
# host/engine/cell_lists.h, "ranked builds") against the counted builds, on PoCL, whose profile
# never ranks: CLNETSIM_TEST_CELLS_RANKED switches it on, and its value 'check' also builds
# the counted lists after every ranked build and stops the run where they differ. Every
# mobility model (and mobility groups that move every node), two devices, the partition moved
# between them (steps replayed, or the mobility state copied), two partitions (lists filtered
# to a device's nodes: counted) and two partitions under a neighbour cap (every node: ranked),
# groups of 2 items, a run one window ahead of its read-back, a checkpoint resumed, and the
# window's other kernels on the lists (qudg under a cap, node resources under counter, traffic
# flows): the same determinism-contract members (json_compare), and --kernel-times shows which
# build ran.
# Then the hook's refusals, a profile limit below the grid's cells, and the ranks built wrong
# (CLNETSIM_TEST_BREAK_KERNEL=cells.rank_nodes@0): the check stops the run, and the contract
# members differ.
# Usage: ranked_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 compare=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread pthread"
unset CLNETSIM_TEST_CELLS_RANKED CLNETSIM_TEST_CELLS_ONE_GROUP CLNETSIM_TEST_TEAM \
    CLNETSIM_TEST_BREAK_KERNEL CLNETSIM_TEST_PROFILE_ENTRIES CLNETSIM_TEST_RUN_AHEAD \
    CLNETSIM_TEST_MIGRATE_EVERY CLNETSIM_TEST_REPLAY_STEPS CLNETSIM_TEST_RAISE
# the self-test's verdicts of this script's own (the hook is not in their cache's key)
export XDG_CACHE_HOME="$tmp/cache"
ranked=CLNETSIM_TEST_CELLS_RANKED=check

scatters() { # FILE: the ranked builds --kernel-times printed, on every device (0 when none)
    grep -E '^ +cells\.scatter_ranked ' "$1" | awk '{n += $2} END {print n + 0}'
}

# NAME, RANKS (1: the ranked build must run; 0: the counted one), the environment of the
# ranked run (a word or "-"), then the run's arguments: counted, then with the hook (and ENV)
ranked_case() {
    rc_=$1 rk_want=$2 extra=$3
    shift 3
    [ "$extra" = - ] && extra=
    check "${rc_}_counted" 0 '' "$bin" run "$@" -q --kernel-times --json "$tmp/$rc_.c.json"
    expect "${rc_}_counted_not_ranked" test "$(scatters "$tmp/out")" -eq 0
    # shellcheck disable=SC2086
    check "${rc_}_ranked" 0 '' env $ranked $extra XDG_CACHE_HOME="$tmp/cache1" "$bin" run "$@" \
        -q --kernel-times --json "$tmp/$rc_.r.json"
    if [ "$rk_want" -eq 1 ]; then
        expect "${rc_}_ranked_ran" test "$(scatters "$tmp/out")" -gt 0
    else
        expect "${rc_}_ranked_not_ran" test "$(scatters "$tmp/out")" -eq 0
    fi
    expect "${rc_}_not_left_out" sh -c "! grep -q 'failed the self-test' '$tmp/out'"
    check "${rc_}_same" 0 '' "$compare" "$tmp/$rc_.c.json" "$tmp/$rc_.r.json"
    expect "${rc_}_receptions" grep -Eq '"receptions": [1-9]' "$tmp/$rc_.r.json"
}

# every mobility model, one device
for s in small_mobile small_mobile_counter small_linear small_grid_walk \
    small_random_direction small_random_walk; do
    ranked_case "$s" 1 - "$scn/$s.ini" --devices 0
done
# the window's other kernels on the same lists: qudg with a cap (thresholds per window), node
# resources under counter, traffic flows
ranked_case qudg_cap 1 - "$scn/small_mobile.ini" -s connectivity.model=qudg \
    -s connectivity.range_min=40 -s connectivity.link_probability=0.6 \
    -s connectivity.max_neighbors=6 --devices 0
ranked_case resources 1 - "$scn/small_mobile.ini" -s flood.scheme=counter \
    -s flood.counter_threshold=3 -s flood.assessment_delay=3 -s resources.rx_capacity=4 \
    -s "resources.energy_budget=uniform(0.001,0.004)" -s resources.tx_fixed=0.0001 \
    -s resources.rx_fixed=0.00002 --devices 0
ranked_case flows 1 - "$scn/small_flows.ini" -s mobility.model=rwp -s mobility.speed_min=5 \
    -s mobility.speed_max=20 -s topology.width=500 -s topology.height=500 --devices 0
# mobility groups: every node moves (move_groups ranks); static nodes 0-199: counted
ranked_case groups_all 1 - "$scn/small_groups.ini" -s mobility.model=linear --devices 0
ranked_case groups_static 0 - "$scn/small_groups.ini" --devices 0
# two devices, one partition each: lists of every node on each (ranked)... unless the lists
# are filtered to a device's partitions (counted); a cap needs every node's (ranked)
ranked_case mobile_2dev 1 - "$scn/small_mobile.ini" -s partition.count=1 --devices 0,1
ranked_case mobile_p2_2dev 0 - "$scn/small_mobile.ini" -s partition.count=2 --devices 0,1
ranked_case cap_p2_2dev 1 - "$scn/small_mobile.ini" -s partition.count=2 \
    -s connectivity.max_neighbors=6 --devices 0,1
# the partition moved to the other device every 2 windows: the steps it missed replayed
# (only the last one's ranks count), or the mobility state copied (counted)
ranked_case migrate 1 CLNETSIM_TEST_MIGRATE_EVERY=2 "$scn/small_mobile.ini" \
    -s partition.count=1 --devices 0,1
ranked_case migrate_copy 1 "CLNETSIM_TEST_MIGRATE_EVERY=3 CLNETSIM_TEST_REPLAY_STEPS=1" \
    "$scn/small_mobile.ini" -s partition.count=1 --devices 0,1
# groups of 2 items (a few cells per item in the scan), one window ahead of the read-back
ranked_case mobile_wg2 1 - "$scn/small_mobile.ini" --devices 0 --work-group 2
ranked_case walk_ahead 1 CLNETSIM_TEST_RUN_AHEAD=1 "$scn/small_random_walk.ini" --devices 0

# stopped by SIGINT after 10 windows with a checkpoint, resumed ranked: the counted whole
# run's results
check ckpt_stopped 130 '' env $ranked XDG_CACHE_HOME="$tmp/cache1" CLNETSIM_TEST_RAISE=INT@10 \
    "$bin" run "$scn/small_mobile.ini" -q --devices 0 --checkpoint "$tmp/ck.ckpt" \
    --json "$tmp/ck.part.json"
expect ckpt_incomplete grep -q '"complete": false' "$tmp/ck.part.json"
check ckpt_resumed 0 '' env $ranked XDG_CACHE_HOME="$tmp/cache1" "$bin" resume "$tmp/ck.ckpt" \
    -q --kernel-times --json "$tmp/ck.resumed.json"
expect ckpt_resumed_ranked test "$(scatters "$tmp/out")" -gt 0
expect ckpt_from_midway grep -Eq '"resumed_from_ns": [1-9]' "$tmp/ck.resumed.json"
check ckpt_same 0 '' "$compare" "$tmp/small_mobile.c.json" "$tmp/ck.resumed.json"

# a number: ranked without the check; below the grid's cells (small_mobile: 5 x 5 x 3):
# counted
check limit_above 0 'cells\.scatter_ranked' env CLNETSIM_TEST_CELLS_RANKED=75 \
    XDG_CACHE_HOME="$tmp/cache1" "$bin" run "$scn/small_mobile.ini" --devices 0 -q \
    --kernel-times --json "$tmp/above.json"
check limit_above_same 0 '' "$compare" "$tmp/small_mobile.c.json" "$tmp/above.json"
check limit_below 0 '' env CLNETSIM_TEST_CELLS_RANKED=74 XDG_CACHE_HOME="$tmp/cache1" \
    "$bin" run "$scn/small_mobile.ini" --devices 0 -q --kernel-times
expect limit_below_counted test "$(scatters "$tmp/out")" -eq 0
for bad in -1 12x 2147483648 Check; do
    check "hook_bad_$bad" 2 "^clnetsim: error: CLNETSIM_TEST_CELLS_RANKED='$bad' is neither a whole number from 0 to 2147483647 nor 'check'$" \
        env CLNETSIM_TEST_CELLS_RANKED="$bad" "$bin" run "$scn/small_mobile.ini" --devices 0 -q
done
# ... on static scenarios too (whole packets, and the window loop of two partitions), which
# never rank
for static in grid:"$scn/small_grid.ini" p2:"$scn/small_qudg.ini -s partition.count=2"; do
    # shellcheck disable=SC2086
    check "hook_bad_static_${static%%:*}" 2 "^clnetsim: error: CLNETSIM_TEST_CELLS_RANKED='12x' is neither a whole number from 0 to 2147483647 nor 'check'$" \
        env CLNETSIM_TEST_CELLS_RANKED=12x "$bin" run ${static#*:} --devices 0 -q
done

# the ranks built wrong on device 0 (node 0 counted in the next cell): the check stops the
# run with the node; without the check the lists are wrong and so are the results
brk=CLNETSIM_TEST_BREAK_KERNEL=cells.rank_nodes@0
check broken_checked 1 "^clnetsim: error: the ranked cell lists on device '.*' put node 0 in cell [0-9]+, the counted ones in cell [0-9]+$" \
    env $brk $ranked XDG_CACHE_HOME="$tmp/cache2" "$bin" run "$scn/small_mobile.ini" \
    --devices 0 -q
check broken_unchecked 0 '' env $brk CLNETSIM_TEST_CELLS_RANKED=1000 \
    XDG_CACHE_HOME="$tmp/cache2" "$bin" run "$scn/small_mobile.ini" --devices 0 -q \
    --json "$tmp/broken.json"
check broken_differs 1 '' "$compare" "$tmp/small_mobile.c.json" "$tmp/broken.json"
finish cells_ranked
