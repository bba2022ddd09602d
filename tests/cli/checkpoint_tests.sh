#!/bin/sh
# Checkpoints and `clnetsim resume` (docs/when-things-go-wrong.md, "Checkpoints and
# resuming"): a run stopped with a checkpoint and resumed gives the determinism-contract
# results of the run never stopped (per-packet rows included), on the same device or another,
# with periodic checkpoints on either clock; a damaged or foreign checkpoint is refused.
# Usage: checkpoint_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 cmp=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"

member() { # FILE NAME: the value of a top-level numeric member
    grep -o "\"$2\": -\{0,1\}[0-9]*" "$1" | head -1 | grep -o -- '-\{0,1\}[0-9]*$'
}

# NAME WINDOWS SCENARIO: the scenario run whole, then stopped by SIGINT after WINDOWS windows
# (rounds of whole packets) with a checkpoint, then resumed; the resumed results must be the
# whole run's. $run_opts go to both runs, $resume_opts to the resume; $env_run and $env_resume
# are environment assignments for them, and $pocl_run and $pocl_resume their POCL_DEVICES.
roundtrip() {
    rt=$1 at=$2 file=$3
    # shellcheck disable=SC2086
    check "${rt}_whole" 0 '' env ${pocl_run:+"POCL_DEVICES=$pocl_run"} $env_run "$bin" run "$file" -q $run_opts \
        --json "$tmp/$rt.whole.json"
    # shellcheck disable=SC2086
    check "${rt}_stopped" 130 '' env ${pocl_run:+"POCL_DEVICES=$pocl_run"} $env_run CLNETSIM_TEST_RAISE="INT@$at" "$bin" run \
        "$file" -q $run_opts --checkpoint "$tmp/$rt.ckpt" --json "$tmp/$rt.part.json"
    expect "${rt}_incomplete" grep -q '"complete": false' "$tmp/$rt.part.json"
    # shellcheck disable=SC2086
    check "${rt}_resumed" 0 '' env ${pocl_resume:+"POCL_DEVICES=$pocl_resume"} $env_resume "$bin" resume "$tmp/$rt.ckpt" -q \
        $resume_opts --json "$tmp/$rt.resumed.json"
    expect "${rt}_from_midway" test "$(member "$tmp/$rt.resumed.json" resumed_from_ns)" -gt 0
    check "${rt}_same" 0 '' "$cmp" "$tmp/$rt.whole.json" "$tmp/$rt.resumed.json"
}

env_run= env_resume= run_opts= resume_opts= pocl_run= pocl_resume=

# The window loop with moving nodes (each mobility model), whole packets, traffic flows.
roundtrip rwp 10 "$scn/small_mobile.ini"
roundtrip walk 7 "$scn/small_random_walk.ini"
roundtrip direction 9 "$scn/small_random_direction.ini"
roundtrip grid_walk 6 "$scn/small_grid_walk.ini"
roundtrip groups 5 "$scn/small_groups.ini"
roundtrip whole_grid 2 "$scn/grid_flood.ini"
roundtrip flows 2 "$scn/small_flows.ini"
# (one device: on two, small_qudg's whole packets take two batches and never reach a third)
pocl_run=pthread pocl_resume=pthread
roundtrip qudg_cap 3 "$scn/small_qudg.ini"
pocl_run= pocl_resume=
roundtrip areas 2 "$scn/areas6.ini"
# forwarding schemes: nodes waiting for their decision carry their states over
roundtrip counter_mobile 6 "$scn/small_mobile_counter.ini"
roundtrip counter_whole 1 "$scn/small_counter.ini"
# traffic flows of moving nodes under counter: each slot's hop and latency sums so far
run_opts="-s mobility.model=rwp -s mobility.speed_min=5 -s mobility.speed_max=20 -s topology.width=500 -s topology.height=500 -s flood.scheme=counter -s flood.counter_threshold=3 -s flood.assessment_delay=0.03"
roundtrip counter_flows 150 "$scn/small_flows.ini"
run_opts=
# node resources: the energy left and the death times travel with the checkpoint
roundtrip capacity 4 "$scn/small_capacity.ini"
roundtrip energy 4 "$scn/small_energy.ini"
# ... and under counter, with nodes waiting for their decisions (moving nodes, both limits)
run_opts="-s flood.scheme=counter -s flood.counter_threshold=3 -s flood.assessment_delay=3 -s resources.rx_capacity=4 -s resources.energy_budget=uniform(0.001,0.004) -s resources.tx_fixed=0.0001 -s resources.rx_fixed=0.00002"
roundtrip counter_resources 7 "$scn/small_mobile.ini"
run_opts=

# The window loop on a static graph: traffic flows, flows with per-node laws, the neighbour
# cap; with per-packet rows, those of the resumed run are the whole run's, byte for byte.
env_run=CLNETSIM_TEST_WHOLE_PACKETS=0 env_resume=CLNETSIM_TEST_WHOLE_PACKETS=0
roundtrip flows_window 40 "$scn/small_flows.ini"
roundtrip heterogeneous_window 30 "$scn/heterogeneous.ini"
roundtrip max_neighbors_window 2 "$scn/small_max_neighbors.ini"
roundtrip grid_window 4 "$scn/small_grid.ini"
roundtrip counter_window 3 "$scn/small_counter.ini"
roundtrip distance_window 3 "$scn/small_distance.ini"
w0=CLNETSIM_TEST_WHOLE_PACKETS=0
check rows_whole 0 '' env $w0 "$bin" run "$scn/small_flows.ini" -q --packets "$tmp/rows_whole.csv"
check rows_stopped 130 '' env $w0 CLNETSIM_TEST_RAISE=INT@40 "$bin" run "$scn/small_flows.ini" -q \
    --packets "$tmp/rows_part.csv" --checkpoint "$tmp/rows.ckpt"
check rows_resumed 0 '' env $w0 "$bin" resume "$tmp/rows.ckpt" -q --packets "$tmp/rows_resumed.csv"
expect rows_same cmp -s "$tmp/rows_whole.csv" "$tmp/rows_resumed.csv"
# running one window ahead of the read-backs (as on GPUs): a checkpoint ends it for a window
env_run="CLNETSIM_TEST_WHOLE_PACKETS=0 CLNETSIM_TEST_RUN_AHEAD=1" env_resume=$env_run
roundtrip run_ahead 5 "$scn/small_grid.ini"
check run_ahead_every 0 '' env $env_run "$bin" run "$scn/small_flows.ini" -q --checkpoint \
    "$tmp/ra.ckpt" --checkpoint-every 0.000001 --checkpoint-clock wall --json "$tmp/ra.json"
check run_ahead_plain 0 '' env $env_run "$bin" run "$scn/small_flows.ini" -q --json "$tmp/ra0.json"
check run_ahead_same 0 '' "$cmp" "$tmp/ra0.json" "$tmp/ra.json"
expect rows_more test "$(wc -l < "$tmp/rows_resumed.csv")" -gt "$(wc -l < "$tmp/rows_part.csv")"
env_run= env_resume=
# a packet's rows are only there when the stopped run kept them
env_run= env_resume= run_opts= resume_opts=
check rows_not_kept 2 "^clnetsim: error: cannot write --packets '.*': the run saved in '.*rwp\.ckpt' kept no per-item rows \(it ran without --packets\); resume it without --packets$" \
    "$bin" resume "$tmp/rwp.ckpt" -q --packets "$tmp/no.csv"
expect rows_not_kept_no_file test ! -e "$tmp/no.csv"

# Several devices, partitions placed on both, resumed on one; and the other way round.
pocl_run="pthread pthread" pocl_resume="pthread pthread"
run_opts="-d all" resume_opts="-d 1"
roundtrip two_to_one 10 "$scn/small_mobile.ini"
# moving nodes in tiles that follow them (re-tiled every 4 windows: the checkpoint after
# window 9 holds the tiling of window 8's positions)
run_opts="-d all -s partition.count=4 -s partition.retile=4" resume_opts="-d 0"
roundtrip tiles 9 "$scn/small_mobile.ini"
run_opts="-d 0 -s partition.count=3 -s partition.retile=2" resume_opts="-d all"
roundtrip tiles_spread 5 "$scn/small_random_walk.ini"
run_opts="-d all -s partition.count=4 -s partition.retile=3" resume_opts="-d 1"
roundtrip tiles_counter 5 "$scn/small_mobile_counter.ini"
run_opts="-d all" resume_opts="-d 0"
roundtrip two_capacity 4 "$scn/small_capacity.ini"
env_run=CLNETSIM_TEST_WHOLE_PACKETS=0 env_resume=CLNETSIM_TEST_WHOLE_PACKETS=0
run_opts="-d all -s partition.count=3" resume_opts="-d 0"
roundtrip static_parts 3 "$scn/small_grid.ini"
run_opts="-d 0" resume_opts="-d all"
roundtrip one_to_two 3 "$scn/small_grid.ini"
# another PoCL driver: a different device, compiled for separately
env_run= env_resume=
pocl_run="pthread basic" pocl_resume="pthread basic"
run_opts="-d 0" resume_opts="-d 1"
roundtrip other_driver 10 "$scn/small_mobile.ini"
env_run= env_resume= run_opts= resume_opts= pocl_run= pocl_resume=

# Periodic checkpoints, simulated clock: every 5 s of a 24 s run; the last one resumes to the
# same results, and a run stopped after it resumes from where it stopped.
check periodic 0 'checkpoints  4 written' "$bin" run "$scn/small_mobile.ini" --checkpoint \
    "$tmp/p.ckpt" --checkpoint-every 5 --json "$tmp/p.json"
expect periodic_count test "$(member "$tmp/p.json" checkpoints)" = 4
check periodic_resumed 0 'resumed +from a checkpoint at simulated time 20\.000 s' "$bin" resume \
    "$tmp/p.ckpt" --json "$tmp/p_resumed.json"
check periodic_same 0 '' "$cmp" "$tmp/rwp.whole.json" "$tmp/p_resumed.json"
# a chain: resumed with checkpoints of its own into the same file, stopped, resumed again
check chain_stop 130 '' env CLNETSIM_TEST_RAISE=INT@8 "$bin" run "$scn/small_mobile.ini" -q \
    --checkpoint "$tmp/c.ckpt"
check chain_resume_stop 130 '' env CLNETSIM_TEST_RAISE=INT@15 "$bin" resume "$tmp/c.ckpt" -q \
    --checkpoint-every 2 --json "$tmp/c_part.json"
expect chain_resumed_at_8 test "$(member "$tmp/c_part.json" resumed_from_ns)" = 8000000000
check chain_end 0 'resumed +from a checkpoint at simulated time 15\.000 s' "$bin" resume \
    "$tmp/c.ckpt" --json "$tmp/c.json"
check chain_same 0 '' "$cmp" "$tmp/rwp.whole.json" "$tmp/c.json"
# wall clock: a tiny period makes every window a checkpoint
check wall 0 '' "$bin" run "$scn/small_mobile.ini" -q --checkpoint "$tmp/w.ckpt" \
    --checkpoint-every 0.000001 --checkpoint-clock wall --json "$tmp/w.json"
expect wall_every_window test "$(member "$tmp/w.json" checkpoints)" -ge 20
check wall_same 0 '' "$cmp" "$tmp/rwp.whole.json" "$tmp/w.json"

# Damaged and foreign files: refused with a sentence naming the file, exit status 2.
cp "$tmp/rwp.ckpt" "$tmp/flip.ckpt"
size=$(wc -c < "$tmp/flip.ckpt")
printf '\377' | dd of="$tmp/flip.ckpt" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
check damaged 2 "^clnetsim: error: cannot resume from '.*flip\.ckpt': the file is damaged \(its CRC-32 is [0-9a-f]{8}, its content gives [0-9a-f]{8}\)$" \
    "$bin" resume "$tmp/flip.ckpt" -q
head -c $((size - 100)) "$tmp/rwp.ckpt" > "$tmp/short.ckpt"
check truncated 2 "cannot resume from '.*short\.ckpt': the file is truncated \(its header announces [0-9]+ bytes of state, it holds [0-9]+\)$" \
    "$bin" resume "$tmp/short.ckpt" -q
check foreign 2 "^clnetsim: error: cannot resume from '.*small_mobile\.ini': it is not a clnetsim checkpoint \(no CLNSCKPT mark at its start\)$" \
    "$bin" resume "$scn/small_mobile.ini" -q
# format 1 held 64-bit counters and sums (format 2: 128 bits); 3 is a later one
for v in 1 3; do
    cp "$tmp/rwp.ckpt" "$tmp/v$v.ckpt"
    printf "\\00$v" | dd of="$tmp/v$v.ckpt" bs=1 seek=8 conv=notrunc 2>/dev/null
    check version_$v 2 "cannot resume from '.*v$v\.ckpt': it has checkpoint format $v, and this clnetsim reads format 2 only$" \
        "$bin" resume "$tmp/v$v.ckpt" -q
done
: > "$tmp/empty.ckpt"
check empty 2 "it is not a clnetsim checkpoint" "$bin" resume "$tmp/empty.ckpt" -q
check missing 2 "^clnetsim: error: cannot read the checkpoint '.*nowhere\.ckpt': No such file or directory$" \
    "$bin" resume "$tmp/nowhere.ckpt" -q
check folder 2 "cannot resume from '.*': it is not a regular file$" "$bin" resume "$tmp" -q
check no_partial_json 2 '' "$bin" resume "$tmp/flip.ckpt" -q --json "$tmp/bad.json"
expect no_partial_json_file test ! -e "$tmp/bad.json"
# whole packets and the window loop hold different states
check other_path 2 "it was written by the window loop, and this run takes the whole-packet kernels" \
    "$bin" resume "$tmp/rows.ckpt" -q

# Options.
check resume_set 2 "^clnetsim resume: -s cannot change a resumed run: the checkpoint holds its scenario \(see clnetsim resume --help\)$" \
    "$bin" resume "$tmp/rwp.ckpt" -s traffic.packets=3
check every_alone 2 "^clnetsim run: --checkpoint-every needs --checkpoint FILE \(see clnetsim run --help\)$" \
    "$bin" run "$scn/small_mobile.ini" --checkpoint-every 5
check every_bad 2 "--checkpoint-every 'soon' must be a positive number of seconds" \
    "$bin" run "$scn/small_mobile.ini" --checkpoint "$tmp/x.ckpt" --checkpoint-every soon
check every_zero 2 "--checkpoint-every '0' must be a positive number of seconds" \
    "$bin" run "$scn/small_mobile.ini" --checkpoint "$tmp/x.ckpt" --checkpoint-every 0
check clock_bad 2 "--checkpoint-clock 'cpu' must be sim or wall" \
    "$bin" run "$scn/small_mobile.ini" --checkpoint "$tmp/x.ckpt" --checkpoint-every 1 \
    --checkpoint-clock cpu
check unwritable 2 "^clnetsim: error: cannot write the checkpoint '.*/no/such/folder/x\.ckpt': No such file or directory$" \
    "$bin" run "$scn/small_mobile.ini" -q --checkpoint "$tmp/no/such/folder/x.ckpt" \
    --json "$tmp/unwritten.json"
expect unwritable_no_json test ! -e "$tmp/unwritten.json"
check dump 0 '^\[simulation\]' "$bin" resume "$tmp/rwp.ckpt" --dump-config
check help 0 'usage: clnetsim resume FILE.ckpt' "$bin" resume --help
expect no_temporary_files sh -c "! ls '$tmp' | grep -q '\.tmp\.'"
finish checkpoint
