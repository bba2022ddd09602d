#!/bin/sh
# Small scenarios under oclgrind, the OpenCL device simulator that checks every memory access
# (out of bounds, invalid frees) and, with --data-races, every pair of conflicting accesses
# (a plain access and an atomic one to the same word included), and with --check-api every
# OpenCL call the host makes. Each run must exit 0, run on oclgrind's device, leave oclgrind
# nothing to report (its messages go to a log file of their own: any line there fails the
# run) and give PoCL's counters for the same scenario, work-group size and options.
# The runs cover the kernels' shapes: whole packets with work-groups of 1 (flood_packets_one),
# and of 64 with the seen bits in local memory and in global memory; the window loop in two
# partitions (transmit, gather, scans); a mobile scenario in two partitions (cell lists,
# mobility, re-tiling); forwarding schemes (flood_packets_scheme, scheme_decide), traffic
# flows and node resources. oclgrind's --uninitialized mode is not used: Debian's version
# stops on an instruction it does not know (freeze).
# Without oclgrind the script is skipped (status 77), unless CI=true or
# CLNETSIM_REQUIRE_OCLGRIND=1, where its absence fails.
# Usage: oclgrind_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 cmp=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"
unset CLNETSIM_TEST_SKEW_DEVICE CLNETSIM_TEST_PROFILE_ENTRIES CLNETSIM_TEST_LOCAL_BITS \
    CLNETSIM_TEST_FAIL CLNETSIM_TEST_LOCAL_MEMORY
# No work-group search on first use: each run names its size, or takes the profile's.
export CLNETSIM_NO_TUNE=1
export POCL_DEVICES=pthread

if ! command -v oclgrind > /dev/null 2>&1; then
    if [ "${CI:-}" = true ] || [ "${CLNETSIM_REQUIRE_OCLGRIND:-0}" = 1 ]; then
        echo "FAIL oclgrind is not installed (tools/install_deps.sh installs it), and CI needs it"
        exit 1
    fi
    echo "oclgrind is not installed: skipped"
    exit 77
fi

# grind NAME MODE [ENV=VALUE ...] -- CLNETSIM_RUN_ARGUMENTS...: one run under oclgrind (MODE
# races: --data-races --check-api; plain: its default memory checks alone), then the same
# run on PoCL, and the checks. ENV assignments apply to both runs.
grind() {
    g=$1 mode=$2
    shift 2
    envs=
    while [ "$1" != -- ]; do envs="$envs $1"; shift; done
    shift
    opts=
    [ "$mode" = races ] && opts="--data-races --check-api"
    t0=$(date +%s)
    # shellcheck disable=SC2086 # OPTS and ENVS are lists of words
    check "${g}_runs" 0 '' env $envs oclgrind $opts --log "$tmp/$g.log" \
        "$bin" run "$@" -q --json "$tmp/$g.json"
    t1=$(date +%s)
    echo "  $g: $((t1 - t0)) s under oclgrind ($mode)"
    expect "${g}_nothing_reported" [ -f "$tmp/$g.log" -a ! -s "$tmp/$g.log" ]
    [ -s "$tmp/$g.log" ] && head -n 40 "$tmp/$g.log" | sed 's/^/    /'
    expect "${g}_on_oclgrind" grep -q '"name": "Oclgrind Simulator", "platform": "Oclgrind"' \
        "$tmp/$g.json"
    # shellcheck disable=SC2086
    env $envs "$bin" run "$@" -q --devices 0 --json "$tmp/$g.pocl.json" > /dev/null 2>&1
    check "${g}_pocl_counters" 0 '' "$cmp" "$tmp/$g.json" "$tmp/$g.pocl.json"
}

start=$(date +%s)
# whole packets: a group of one item, and groups of 64 with local and with global seen bits
grind grid_wg1 races -- "$scn/small_grid.ini" --work-group 1
grind grid_local_bits races -- "$scn/small_grid.ini" --work-group 64
grind grid_global_bits races CLNETSIM_TEST_LOCAL_BITS=0 -- "$scn/small_grid.ini" --work-group 64
# bounded launches (docs/architecture.md): walks stopped and resumed in every shape
grind grid_bounded_wg1 races CLNETSIM_TEST_LOOP_LIMIT=2000 -- "$scn/small_grid.ini" \
    --work-group 1 -s traffic.packets=4
grind grid_bounded_local_bits races CLNETSIM_TEST_LOOP_LIMIT=2000 -- "$scn/small_grid.ini" \
    --work-group 16 -s traffic.packets=4
grind grid_bounded_global_bits races CLNETSIM_TEST_LOOP_LIMIT=2000 CLNETSIM_TEST_LOCAL_BITS=0 \
    -- "$scn/small_grid.ini" --work-group 16 -s traffic.packets=4
# the window loop: two partitions
grind grid_partitions races -- "$scn/small_grid.ini" --work-group 16 -s partition.count=2
grind mobile_partitions races -- "$scn/small_mobile.ini" --work-group 16 -s partition.count=2 \
    -s traffic.packets=5
# forwarding schemes: whole packets (counter), the window loop's decisions (distance)
grind counter races -- "$scn/small_counter.ini" --work-group 16 -s traffic.packets=4
grind distance_partitions races -- "$scn/small_distance.ini" --work-group 8 \
    -s partition.count=2 -s traffic.packets=3
# traffic flows, node resources
grind flows races -- "$scn/small_flows.ini" --work-group 16 -s simulation.duration=1
grind energy races -- "$scn/small_energy.ini" --work-group 16 -s traffic.packets=8
# out-of-bounds accesses alone, at the sizes the profile gives oclgrind's device
grind grid_plain plain -- "$scn/small_grid.ini"
grind mobile_plain plain -- "$scn/small_mobile.ini" -s traffic.packets=5
echo "oclgrind runs: $(($(date +%s) - start)) s in all"
finish oclgrind
