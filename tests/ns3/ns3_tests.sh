#!/bin/sh
# ns-3 validation: tools/ns3/compare_ns3.sh on small static scenarios (grid and uniform
# placement, drop probabilities 0, 0.1, 0.3 and 1, TTL, a duration cut, a source and
# destination inside the grid, every ns-3 scheduler) must find every counter equal; a skewed
# ns-3 result must be reported as a mismatch; bad input to clnetsim-ns3 gets a message.
# Usage: ns3_tests.sh BUILD_DIR SOURCE_DIR
build=$1 src=$2
cmp=$src/tools/ns3/compare_ns3.sh
ns3=$build/clnetsim-ns3
scn=$src/scenarios
. "$src/tests/common/check.sh"
unset CLNETSIM_NS3_TEST_SKEW

same() { # NAME SCENARIO OVERRIDES...: compare_ns3 must find the counters equal
    name=$1
    shift
    check "$name" 0 '^counters +equal in every run' sh "$cmp" --build "$build" --no-build --repeat 1 "$@"
}

grid="$scn/grid_flood.ini -s topology.rows=13 -s topology.cols=11 -s traffic.packets=25"
# shellcheck disable=SC2086
{
    same grid_drop_0.1 $grid
    same grid_drop_0 $grid -s flood.drop_probability=0
    same grid_drop_0.3_seed_7 $grid -s flood.drop_probability=0.3 -s simulation.seed=7
    same grid_drop_1 $grid -s flood.drop_probability=1
    same grid_ttl_4 $grid -s flood.ttl=4
    same grid_duration_cut $grid -s simulation.duration=17.5
    same grid_middle_source $grid -s traffic.source=71 -s traffic.destination=5 -s traffic.start=2.5
    same grid_diagonal_range $grid -s connectivity.range=150 -s flood.relay_delay=0.25
    same uniform_2d "$scn/grid_flood.ini" -s topology.placement=uniform -s topology.nodes=250 \
        -s topology.width=900 -s topology.height=700 -s traffic.packets=15
    same uniform_3d "$scn/grid_flood.ini" -s topology.placement=uniform -s topology.nodes=200 \
        -s topology.width=500 -s topology.height=400 -s topology.depth=300 -s traffic.packets=10
    same small_grid_two_runs --repeat 2 "$scn/small_grid.ini"
    for s in heap list calendar priority; do
        same "scheduler_$s" --scheduler "$s" $grid -s traffic.packets=8
    done
}

# The comparison file, and equality that is not vacuous (events were counted).
check compare_json 0 'ratio \(ns-3 / clnetsim\)' sh "$cmp" --build "$build" --no-build --repeat 1 \
    --json "$tmp/cmp.json" "$scn/small_grid.ini"
expect compare_json_equal grep -q '"equal": true' "$tmp/cmp.json"
expect compare_json_events grep -Eq '"events": [1-9][0-9]*,' "$tmp/cmp.json"
expect compare_json_ratio grep -Eq '"ratio_simulation": [0-9.]+,' "$tmp/cmp.json"

# A difference must be caught: the test hook adds one reception to ns-3's count.
check mismatch_reported 1 'MISMATCH between ns-3 run 1 \(A\) and clnetsim run 1 \(B\)' \
    env CLNETSIM_NS3_TEST_SKEW=1 sh "$cmp" --build "$build" --no-build --repeat 1 "$scn/small_grid.ini"
expect mismatch_names_member grep -q 'receptions: A=[0-9]* B=[0-9]*' "$tmp/out"

# The ns-3 program alone: its output and its JSON file.
check ns3_summary 0 '^ns-3\.37 ns3::MapScheduler: 400 nodes' "$ns3" "$scn/small_grid.ini" --json "$tmp/n.json"
expect ns3_json_members grep -q '"windows": [0-9]' "$tmp/n.json"
expect ns3_no_temporary [ -z "$(ls "$tmp" | grep '\.tmp\.')" ]

# Bad input: a message, exit 2, no output file.
check ns3_mobile_refused 2 'static udg flood scenarios only' "$ns3" "$scn/mobile_flood.ini"
check ns3_moving_group_refused 2 'static udg flood scenarios only' "$ns3" "$scn/small_grid.ini" -s mobility.group.cars.nodes=0-9 -s mobility.group.cars.model=linear
check ns3_qudg_refused 2 'static udg flood scenarios only' "$ns3" "$scn/small_qudg.ini"
check ns3_cap_refused 2 'no max_neighbors' "$ns3" "$scn/small_grid.ini" -s connectivity.max_neighbors=3
check ns3_node_drop_refused 2 'a constant drop_probability' "$ns3" "$scn/small_grid.ini" -s 'flood.drop_probability=uniform(0,0.2)'
check ns3_flows_refused 2 'no \[traffic.flow\] sections' "$ns3" "$scn/small_grid.ini" -s 'traffic.flow.bg.source=3'
check ns3_counter_refused 2 'flood\.scheme = probabilistic,' "$ns3" "$scn/small_grid.ini" -s flood.scheme=counter
check ns3_distance_refused 2 'flood\.scheme = probabilistic,' "$ns3" "$scn/small_grid.ini" -s flood.scheme=distance -s flood.distance_threshold=50
check ns3_capacity_refused 2 'no resources\.rx_capacity or resources\.energy_budget\)' "$ns3" "$scn/small_capacity.ini"
check ns3_energy_refused 2 'no resources\.rx_capacity or resources\.energy_budget\)' "$ns3" "$scn/small_grid.ini" -s 'resources.energy_budget=uniform(0.1,0.2)'
check ns3_areas_refused 2 'topology\.placement = areas is not covered by the ns-3 flood program' "$ns3" "$scn/areas6.ini"
check ns3_bad_key 2 'flood\.drop_probability' "$ns3" "$scn/small_grid.ini" -s flood.drop_probability=2
check ns3_missing_file 2 'nonexistent\.ini' "$ns3" "$tmp/nonexistent.ini"
check ns3_bad_scheduler 2 "unknown scheduler 'fifo'" "$ns3" "$scn/small_grid.ini" --scheduler fifo
check ns3_unknown_option 2 "unknown option '--fast'" "$ns3" "$scn/small_grid.ini" --fast
check ns3_json_unwritable 2 'cannot write .*/missing/n\.json' "$ns3" "$scn/small_grid.ini" \
    --json "$tmp/missing/n.json"
expect ns3_json_unwritable_nothing [ ! -e "$tmp/missing" ]
check compare_no_scenario 2 'no scenario file given' sh "$cmp" --no-build
check compare_bad_repeat 2 "positive integer, not 'x'" sh "$cmp" --no-build --repeat x "$scn/small_grid.ini"
check compare_json_folder 2 'folder .*/missing is missing' sh "$cmp" --build "$build" --no-build \
    --json "$tmp/missing/c.json" "$scn/small_grid.ini"

finish "ns3 tests"
