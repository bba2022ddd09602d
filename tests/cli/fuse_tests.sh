#!/bin/sh
# The next window's mobility step fused into this window's flood.transmit_mobile launch
# (host/models/flood/flood_fuse.c), on PoCL, whose profile never fuses nor ranks:
# CLNETSIM_TEST_CELLS_RANKED switches the ranked cell lists on (the fused step ranks the nodes
# for them) and CLNETSIM_TEST_FUSE_STEP=1 the fusion. Each case runs four ways: counted lists
# (the hook asks for fusion, which needs ranks: none), ranked with the step in its own launch,
# ranked and fused, and fused under the ranked check (every ranked build compared with a
# counted one); all give the same determinism-contract members (json_compare), and
# --kernel-times shows which launches moved the nodes and made the lists: a fused run
# launches flood.move_* at most twice (the one after the last transmit launch, and one after
# a window without a transmit), every other run as often as the counted one, at least once a
# window; a fused run's lists are fixed cells, which its rankings write (a step's, or
# cells.rank_nodes where no step moved the nodes), so it launches no cells.scatter_ranked
# and, unchecked, no counted build either (cells.cell_count, cells.build_one_group).
# Fused: every mobility model (random waypoint also with pauses that end in most windows),
# mobility groups that move every node, traffic flows, groups of 2 items, a run one window
# ahead of its read-back, timed windows one in 3. Not fused (and still the same): static nodes
# in the groups, two devices, two partitions (with and without a neighbour cap), a neighbour
# cap, a forwarding scheme, node resources, and the ranked lists without the hook (PoCL's
# profile has no flood.transmit_mobile_step). Then runs stopped by SIGINT with a checkpoint
# and resumed, fused or not either side (and fused one window ahead, or with a checkpoint
# after every window), give the whole run's results; and the hook's bad values are refused.
# Usage: fuse_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 compare=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread pthread"
unset CLNETSIM_TEST_FUSE_STEP CLNETSIM_TEST_CELLS_RANKED CLNETSIM_TEST_CELLS_ONE_GROUP \
    CLNETSIM_TEST_TEAM CLNETSIM_TEST_BREAK_KERNEL CLNETSIM_TEST_PROFILE_ENTRIES \
    CLNETSIM_TEST_RUN_AHEAD CLNETSIM_TEST_TIMING_EVERY CLNETSIM_TEST_MIGRATE_EVERY \
    CLNETSIM_TEST_REPLAY_STEPS CLNETSIM_TEST_RAISE CLNETSIM_TEST_CELLS_FIXED_CAP
# the self-test's verdicts of this script's own, one folder per setting of the hooks (they
# are not in the verdicts' cache key)
export XDG_CACHE_HOME="$tmp/cache"
counted="CLNETSIM_TEST_CELLS_RANKED=0 CLNETSIM_TEST_FUSE_STEP=1 XDG_CACHE_HOME=$tmp/cache.c"
apart="CLNETSIM_TEST_CELLS_RANKED=100000 CLNETSIM_TEST_FUSE_STEP=0 XDG_CACHE_HOME=$tmp/cache.a"
fused="CLNETSIM_TEST_CELLS_RANKED=100000 CLNETSIM_TEST_FUSE_STEP=1 XDG_CACHE_HOME=$tmp/cache.f"
checked="CLNETSIM_TEST_CELLS_RANKED=check CLNETSIM_TEST_FUSE_STEP=1 XDG_CACHE_HOME=$tmp/cache.f"

setting() { # NAME: the environment of one of the four settings above
    case $1 in
    counted) echo "$counted" ;;
    apart) echo "$apart" ;;
    fused) echo "$fused" ;;
    checked) echo "$checked" ;;
    esac
}
launched() { # FILE KERNEL-REGEX: the launches --kernel-times printed, on every device
    grep -E "^ +$2 " "$1" | awk '{n += $2} END {print n + 0}'
}
moves() { launched "$1" 'flood\.move_[a-z_]+'; }
windows() { # JSON: the run's windows
    grep -o '"windows": [0-9]*' "$1" | grep -o '[0-9]*$'
}
kept() { # NAME: the last run left no kernel shape out
    expect "$1_not_left_out" sh -c "! grep -q 'failed the self-test' '$tmp/out'"
}

# NAME, FUSES (1: the fused runs must fuse; 0: they must not), the environment of all four
# runs (words, or -), then the run's arguments
fuse_case() {
    fc=$1 fuses=$2 extra=$3
    shift 3
    [ "$extra" = - ] && extra=
    # shellcheck disable=SC2086
    check "${fc}_counted" 0 '' env $counted $extra "$bin" run "$@" -q --kernel-times \
        --json "$tmp/$fc.c.json"
    kept "${fc}_counted"
    mc=$(moves "$tmp/out")
    expect "${fc}_counted_not_ranked" test "$(launched "$tmp/out" 'cells\.scatter_ranked')" -eq 0
    expect "${fc}_counted_every_window" test "$mc" -ge "$(windows "$tmp/$fc.c.json")"
    # shellcheck disable=SC2086
    check "${fc}_apart" 0 '' env $apart $extra "$bin" run "$@" -q --kernel-times \
        --json "$tmp/$fc.a.json"
    kept "${fc}_apart"
    expect "${fc}_apart_moves" test "$(moves "$tmp/out")" -eq "$mc"
    check "${fc}_apart_same" 0 '' "$compare" "$tmp/$fc.c.json" "$tmp/$fc.a.json"
    for how in fused checked; do
        how_env=$(setting "$how")
        # shellcheck disable=SC2086
        check "${fc}_$how" 0 '' env $how_env $extra "$bin" run "$@" -q --kernel-times \
            --json "$tmp/$fc.$how.json"
        kept "${fc}_$how"
        if [ "$fuses" -eq 1 ]; then
            expect "${fc}_${how}_no_scatter" test "$(launched "$tmp/out" 'cells\.scatter_ranked')" -eq 0
            [ "$how" = fused ] && expect "${fc}_fused_no_counted" test \
                "$(launched "$tmp/out" 'cells\.(cell_count|build_one_group)')" -eq 0
            expect "${fc}_${how}_moves" test "$(moves "$tmp/out")" -le 2
        else
            expect "${fc}_${how}_not_fused" test "$(moves "$tmp/out")" -eq "$mc"
        fi
        check "${fc}_${how}_same" 0 '' "$compare" "$tmp/$fc.c.json" "$tmp/$fc.$how.json"
    done
    check "${fc}_fused_same_as_apart" 0 '' "$compare" "$tmp/$fc.a.json" "$tmp/$fc.fused.json"
    expect "${fc}_receptions" grep -Eq '"receptions": [1-9]' "$tmp/$fc.fused.json"
}

# every mobility model, one device
for s in small_mobile small_random_walk small_linear small_random_direction small_grid_walk; do
    fuse_case "$s" 1 - "$scn/$s.ini" --devices 0
done
# random waypoint whose nodes reach their waypoints and pause in most windows (a pause ends
# at the step's window start plus its draw: a step given the wrong window start shows)
fuse_case rwp_pauses 1 - "$scn/small_mobile.ini" -s topology.width=200 -s topology.height=200 \
    -s topology.depth=50 -s connectivity.range=50 -s mobility.speed_min=20 \
    -s mobility.speed_max=40 -s mobility.pause_min=0.5 -s mobility.pause_max=2.5 --devices 0
# mobility groups (move_groups): every node moves; nodes 0-199 static (no ranks: no fusion)
fuse_case groups_all 1 - "$scn/small_groups.ini" -s mobility.model=linear --devices 0
fuse_case groups_static 0 - "$scn/small_groups.ini" --devices 0
# traffic flows of moving nodes (the transmit's deliveries beside the step's groups)
mob="-s mobility.model=rwp -s mobility.speed_min=5 -s mobility.speed_max=20"
mob="$mob -s topology.width=500 -s topology.height=500"
# shellcheck disable=SC2086
fuse_case flows 1 - "$scn/small_flows.ini" $mob --devices 0
# groups of 2 items (150 step groups ahead of the transmit's), one window ahead of the
# read-back, one window in 3 timed
fuse_case mobile_wg2 1 - "$scn/small_mobile.ini" --devices 0 --work-group 2
fuse_case walk_ahead 1 CLNETSIM_TEST_RUN_AHEAD=1 "$scn/small_random_walk.ini" --devices 0
fuse_case mobile_timed 1 CLNETSIM_TEST_TIMING_EVERY=3 "$scn/small_mobile.ini" --devices 0
# fixed cells of 1 and 2 nodes (small_mobile: 300 nodes in 75 cells): most nodes past the
# capacity, in the overflow slots, which every reader of a full cell searches; teams of 8
# share them
fuse_case fixed_cap1 1 CLNETSIM_TEST_CELLS_FIXED_CAP=1 "$scn/small_mobile.ini" --devices 0
fuse_case fixed_cap2_team 1 "CLNETSIM_TEST_CELLS_FIXED_CAP=2 CLNETSIM_TEST_TEAM=8" \
    "$scn/small_mobile.ini" --devices 0

# not fused: two devices (one partition: ranked on both), two partitions on one device
# (filtered lists: counted; with a cap: ranked), a neighbour cap, a forwarding scheme, node
# resources
fuse_case mobile_2dev 0 - "$scn/small_mobile.ini" -s partition.count=1 --devices 0,1
fuse_case mobile_p2 0 - "$scn/small_mobile.ini" -s partition.count=2 --devices 0
fuse_case cap_p2 0 - "$scn/small_mobile.ini" -s partition.count=2 \
    -s connectivity.max_neighbors=6 --devices 0
fuse_case cap 0 - "$scn/small_mobile.ini" -s connectivity.max_neighbors=6 --devices 0
fuse_case counter 0 - "$scn/small_mobile_counter.ini" --devices 0
fuse_case resources 0 - "$scn/small_mobile.ini" -s "resources.energy_budget=uniform(0.001,0.004)" \
    -s resources.tx_fixed=0.0001 -s resources.rx_fixed=0.00002 --devices 0
# ranked lists and no hook: PoCL's profile names no fused step
check profile_default 0 '' env CLNETSIM_TEST_CELLS_RANKED=100000 XDG_CACHE_HOME="$tmp/cache.r" \
    "$bin" run "$scn/small_mobile.ini" -q --devices 0 --kernel-times --json "$tmp/default.json"
expect profile_default_not_fused test "$(moves "$tmp/out")" -ge "$(windows "$tmp/default.json")"
check profile_default_same 0 '' "$compare" "$tmp/small_mobile.c.json" "$tmp/default.json"

# stopped by SIGINT after 10 windows with a checkpoint (fused: window 9's transmit stepped
# the nodes to window 10, whose positions the checkpoint must hold), resumed fused, apart and
# counted, or stopped apart and resumed fused: the whole run's results; a resumed run that
# does not fuse steps in each of its windows
whole=$tmp/small_mobile.c.json at=10
for stop in fused apart; do
    stop_env=$(setting "$stop")
    # shellcheck disable=SC2086
    check "ckpt_${stop}_stopped" 130 '' env $stop_env CLNETSIM_TEST_RAISE=INT@$at "$bin" run \
        "$scn/small_mobile.ini" -q --devices 0 --checkpoint "$tmp/$stop.ckpt" \
        --json "$tmp/$stop.part.json"
    expect "ckpt_${stop}_incomplete" grep -q '"complete": false' "$tmp/$stop.part.json"
done
for pair in fused:fused fused:apart fused:counted apart:fused; do
    stop=${pair%%:*} resume=${pair#*:}
    resume_env=$(setting "$resume")
    rn=ckpt_${stop}_resumed_$resume
    # shellcheck disable=SC2086
    check "$rn" 0 '' env $resume_env "$bin" resume "$tmp/$stop.ckpt" -q --devices 0 \
        --kernel-times --json "$tmp/$rn.json"
    if [ "$resume" = fused ]; then
        expect "${rn}_fused" test "$(moves "$tmp/out")" -le 2
    else
        expect "${rn}_not_fused" test "$(moves "$tmp/out")" -ge \
            "$(($(windows "$tmp/$rn.json") - at))"
    fi
    expect "${rn}_from_midway" grep -Eq '"resumed_from_ns": [1-9]' "$tmp/$rn.json"
    check "${rn}_same" 0 '' "$compare" "$whole" "$tmp/$rn.json"
done
# one window ahead of the read-back, fused: stopped and resumed, and a checkpoint written
# after every window (each reads its window back)
ahead=CLNETSIM_TEST_RUN_AHEAD=1
# shellcheck disable=SC2086
check ckpt_ahead_stopped 130 '' env $fused $ahead CLNETSIM_TEST_RAISE=INT@$at "$bin" run \
    "$scn/small_mobile.ini" -q --devices 0 --checkpoint "$tmp/ahead.ckpt"
# shellcheck disable=SC2086
check ckpt_ahead_resumed 0 '' env $fused $ahead "$bin" resume "$tmp/ahead.ckpt" -q \
    --devices 0 --kernel-times --json "$tmp/ahead.resumed.json"
expect ckpt_ahead_resumed_fused test "$(moves "$tmp/out")" -le 2
check ckpt_ahead_same 0 '' "$compare" "$whole" "$tmp/ahead.resumed.json"
# shellcheck disable=SC2086
check ckpt_every 0 '' env $fused $ahead "$bin" run "$scn/small_mobile.ini" -q --devices 0 \
    --checkpoint "$tmp/every.ckpt" --checkpoint-every 0.000001 --checkpoint-clock wall \
    --kernel-times --json "$tmp/every.json"
expect ckpt_every_fused test "$(moves "$tmp/out")" -le 2
check ckpt_every_same 0 '' "$compare" "$whole" "$tmp/every.json"

# the ranks built wrong (node 0 in the next cell): the check of the fixed cells stops the
# run with the node
# shellcheck disable=SC2086
check fixed_broken_checked 1 "^clnetsim: error: the fixed cells on device '.*' hold node 0 in cell [0-9]+ \(slot [0-9]+\) where the counted lists do not$" \
    env $checked CLNETSIM_TEST_BREAK_KERNEL=cells.rank_nodes@0 XDG_CACHE_HOME="$tmp/cache.b" \
    "$bin" run "$scn/small_mobile.ini" --devices 0 -q
# the capacity hook takes a whole number from 1 to 65536, on every moving run
for bad in 0 -1 65537 2x; do
    check "fixed_cap_bad_$bad" 2 "^clnetsim: error: CLNETSIM_TEST_CELLS_FIXED_CAP='$bad' is not a whole number from 1 to 65536$" \
        env CLNETSIM_TEST_CELLS_FIXED_CAP="$bad" "$bin" run "$scn/small_mobile.ini" --devices 0 -q
done

# the hook takes 0 or 1, nothing else
for bad in 2 01 -1 yes; do
    check "hook_bad_$bad" 2 "^clnetsim: error: CLNETSIM_TEST_FUSE_STEP='$bad' is not 0 or 1$" \
        env CLNETSIM_TEST_FUSE_STEP="$bad" "$bin" run "$scn/small_mobile.ini" --devices 0 -q
done
finish fuse_step
