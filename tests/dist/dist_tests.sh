#!/bin/sh
# The run's processes under the MPI launcher (host/dist/dist.h): test_dist with 1 to 4 ranks
# (more ranks than cores: oversubscribed) and with none; the command line under several ranks:
# the version and the usage printed once, every rank's devices in rank order, and a scenario
# refused with one sentence, printed once, and a non-zero status, before any output is written.
# Usage: dist_tests.sh CLNETSIM TEST_DIST SOURCE_DIR JSON_COMPARE
bin=$1 unit=$2 src=$3 compare=$4
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread"
# what Open MPI needs as root and with more ranks than cores (docs/user-guide.md)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
launch="mpirun --bind-to none"

# 1 to 4 ranks, one or two devices per rank, every policy of the injector on two (one
# device leaves it no choice): every run's contract members equal to REFERENCE's. Usage:
# ranks_matrix PREFIX REFERENCE SCENARIO [SETTINGS...]; leaves the last run in $tmp/ranks.json
ranks_matrix() {
    prefix=$1 reference=$2 scenario=$3
    shift 3
    for n in 1 2 3 4; do
        for devs in 0 all; do
            for policy in hybrid rapid advanced static; do
                [ "$devs" = 0 ] && [ "$policy" != hybrid ] && continue
                name="${prefix}_${n}_ranks_${devs}_$policy"
                # shellcheck disable=SC2086
                check "$name" 0 '' $launch -np "$n" "$bin" run "$scenario" "$@" -q -d "$devs" \
                    -s inject.policy="$policy" --json "$tmp/ranks.json"
                check "${name}_same" 0 '' "$compare" "$reference" "$tmp/ranks.json"
            done
        done
    done
}

# One process and 3 ranks with every device: the same contract members and --packets rows.
# Usage: rows_case NAME STEM CASE, CASE the scenario file's name in scenarios/ with its
# settings and test hooks (CLNETSIM_...=...) in any order; the runs in $tmp/STEM.{a,b}.*
rows_case() {
    tc=$1 stem=$2 hooks="" sc="" sets=""
    for item in $3; do
        case $item in
        CLNETSIM_*) hooks="$hooks $item" ;;
        *.ini) sc="$src/scenarios/$item" ;;
        *) sets="$sets $item" ;;
        esac
    done
    # shellcheck disable=SC2086
    check "${tc}_alone" 0 '' env $hooks "$bin" run "$sc" $sets -q --json "$tmp/$stem.a.json" \
        --packets "$tmp/$stem.a.csv"
    # shellcheck disable=SC2086
    check "${tc}_ranks" 0 '' env $hooks $launch -np 3 "$bin" run "$sc" $sets -q -d all \
        --json "$tmp/$stem.b.json" --packets "$tmp/$stem.b.csv"
    check "${tc}_same" 0 '' "$compare" "$tmp/$stem.a.json" "$tmp/$stem.b.json"
    expect "${tc}_rows_same" cmp -s "$tmp/$stem.a.csv" "$tmp/$stem.b.csv"
}

# A checkpoint resumed on 1, 2 and 4 ranks with every device, and alone: the contract members
# and rows of the run never stopped. Usage: resumes PREFIX CKPT FULL_JSON FULL_CSV [ROWS]
# (ROWS: the model's rows option, --packets unless given)
resumes() {
    rows_flag=${5:---packets}
    for n in 1 2 4; do
        # shellcheck disable=SC2086
        check "$1_resume_$n" 0 '' $launch -np "$n" "$bin" resume "$2" -q -d all \
            --json "$tmp/resumed.json" "$rows_flag" "$tmp/resumed.csv"
        check "$1_resume_${n}_same" 0 '' "$compare" "$3" "$tmp/resumed.json"
        expect "$1_resume_${n}_rows" cmp -s "$4" "$tmp/resumed.csv"
    done
    check "$1_resume_alone" 0 '' "$bin" resume "$2" -q --json "$tmp/resumed.json" \
        "$rows_flag" "$tmp/resumed.csv"
    check "$1_resume_alone_same" 0 '' "$compare" "$3" "$tmp/resumed.json"
    expect "$1_resume_alone_rows" cmp -s "$4" "$tmp/resumed.csv"
}

check unit_alone 0 'test_dist: 1 rank\(s\), MPI no: ok' "$unit" 1 0
for n in 1 2 3 4; do
    # shellcheck disable=SC2086
    check "unit_$n" 0 "test_dist: $n rank\\(s\\), MPI .*: ok" $launch -np "$n" "$unit" "$n" 1
done
# the unit's own failures fail it: a wrong expectation of the ranks
# shellcheck disable=SC2086
check unit_wrong 1 "FAIL .*3 ranks, expected 2" $launch -np 3 "$unit" 2 1

# shellcheck disable=SC2086
check version 0 '^clnetsim ' $launch -np 3 "$bin" --version
expect version_once test "$(grep -c '^clnetsim ' "$tmp/out")" -eq 1
# shellcheck disable=SC2086
check devices 0 'rank 2 of 3 \(local rank 2 of 3 on ' $launch -np 3 "$bin" devices
expect devices_in_order sh -c "grep -o '^rank [0-9] of 3' '$tmp/out' | tr '\n' ';' |
    grep -qx 'rank 0 of 3;rank 1 of 3;rank 2 of 3;'"
expect devices_listed test "$(grep -c 'device.*usable' "$tmp/out")" -eq 3

# a scenario refused on every rank (a key its section does not have): one sentence, printed
# once, and no output written
want="^clnetsim: error: MPI rank 0 of 2: -s argument 'resources.nope=1': \\[resources\\] unknown key 'nope'"
# shellcheck disable=SC2086
check run_refused 2 "$want" $launch -np 2 "$bin" run "$src/scenarios/small_energy.ini" \
    -s resources.nope=1 --json "$tmp/no.json"
expect run_refused_once test "$(grep -c '^clnetsim: error' "$tmp/out")" -eq 1
expect run_wrote_nothing test ! -e "$tmp/no.json"
for cmd in bench selftest tune; do
    # shellcheck disable=SC2086
    check "${cmd}_refused" 2 "^clnetsim: error: '$cmd' was started as 3 MPI ranks, and only 'run' and 'resume' run over several ranks yet" \
        $launch -np 3 "$bin" "$cmd"
done
# one rank under the launcher runs as ever
# shellcheck disable=SC2086
check one_rank 0 '' $launch -np 1 "$bin" run "$src/scenarios/small_grid.ini" -q \
    --json "$tmp/one.json"
check alone 0 '' "$bin" run "$src/scenarios/small_grid.ini" -q --json "$tmp/alone.json"
check one_rank_same 0 "" "$compare" "$tmp/one.json" "$tmp/alone.json"
# PHOLD over ranks (docs/user-guide.md, "Several processes"): every contract member equal to
# the run of one process, for 1 to 4 ranks, one or two devices per rank, every policy
export POCL_DEVICES="pthread pthread"
phold="$src/scenarios/small_phold.ini"
check phold_alone 0 '' "$bin" run "$phold" -q -d 0 --json "$tmp/alone.json"
ranks_matrix phold "$tmp/alone.json" "$phold"
expect phold_ranks_counted grep -q '"ranks": {"count": 4, "sent_bytes": [1-9]' "$tmp/ranks.json"
expect phold_devices_of_ranks grep -q '"rank": 3' "$tmp/ranks.json"
# each rank its share of its machine's devices (@local): two devices, two ranks, one each
# shellcheck disable=SC2086
check phold_local_devices 0 '' $launch -np 2 "$bin" run "$phold" -q -d all@local \
    --json "$tmp/local.json"
check phold_local_devices_same 0 '' "$compare" "$tmp/alone.json" "$tmp/local.json"
expect phold_local_one_each test "$(grep -c '"rank": [01]' "$tmp/local.json")" -eq 2
# the summary, printed once, names the ranks
# shellcheck disable=SC2086
check phold_summary 0 '^ranks        3 MPI ranks: ' $launch -np 3 "$bin" run "$phold" -d 0
expect phold_summary_once test "$(grep -c '^events ' "$tmp/out")" -eq 1
expect phold_summary_per_window grep -Eq '^ +a window: [0-9.]+ MiB sent by a rank on average, at most [0-9.]+ ms exchanging$' "$tmp/out"
# Kademlia over ranks: nothing crosses them (every device holds every table); every contract
# member and --lookups row equal to one process's, 1 to 4 ranks of one or two devices, more
# ranks than partitions, several windows a launch, growing lookup records; no lookup
# completed anywhere (the least hops and latency: 0)
kad="$src/scenarios/small_kademlia.ini"
kad_busy="-s simulation.seed=5 -s kademlia.peers=200 -s kademlia.lookup_gap_max=0.05 \
    -s kademlia.latency_max=0.2 -s simulation.duration=3"
# shellcheck disable=SC2086
check kad_alone 0 '' "$bin" run "$kad" -q -d 0 $kad_busy --json "$tmp/kad.json" \
    --lookups "$tmp/kad.csv"
for n in 1 2 3 4; do
    for devs in 0 all; do
        # shellcheck disable=SC2086
        check "kad_${n}_ranks_$devs" 0 '' $launch -np "$n" "$bin" run "$kad" $kad_busy -q \
            -d "$devs" --json "$tmp/ranks.json" --lookups "$tmp/ranks.csv"
        check "kad_${n}_ranks_${devs}_same" 0 '' "$compare" "$tmp/kad.json" "$tmp/ranks.json"
        expect "kad_${n}_ranks_${devs}_rows" cmp -s "$tmp/kad.csv" "$tmp/ranks.csv"
    done
done
# shellcheck disable=SC2086
check kad_few_partitions 0 '' $launch -np 4 "$bin" run "$kad" $kad_busy -q -d 0 \
    -s partition.count=2 -s kademlia.windows_per_launch=40 --json "$tmp/ranks.json"
check kad_few_partitions_same 0 '' "$compare" "$tmp/kad.json" "$tmp/ranks.json"
# windows a launch chosen by the run (the default) over ranks, every rank deciding from the
# same agreed measurements, and jumping at every launch with the test hook: the same results
# shellcheck disable=SC2086
check kad_adaptive_ranks 0 '' $launch -np 3 "$bin" run "$kad" $kad_busy -q -d 0 \
    --json "$tmp/ranks.json"
check kad_adaptive_ranks_same 0 '' "$compare" "$tmp/kad.json" "$tmp/ranks.json"
# shellcheck disable=SC2086
check kad_walk_ranks 0 '' env CLNETSIM_TEST_GRANULARITY=walk $launch -np 2 "$bin" run "$kad" \
    $kad_busy -q -d all --json "$tmp/ranks.json"
check kad_walk_ranks_same 0 '' "$compare" "$tmp/kad.json" "$tmp/ranks.json"
expect kad_walk_ranks_moved grep -Eq '"moves": [1-9][0-9]' "$tmp/ranks.json"
# churn (docs/models/kademlia.md, "Churn"): every rank holds every peer's periods, and
# peers_alive is the same whole count on each
kad_churn="$kad_busy -s kademlia.session_mean=0.5 -s kademlia.offline_mean=0.3 \
    -s kademlia.rpc_timeout=0.25"
# shellcheck disable=SC2086
check kad_churn_alone 0 '' "$bin" run "$kad" -q -d 0 $kad_churn --json "$tmp/kadc.json" \
    --lookups "$tmp/kadc.csv"
expect kad_churn_fails grep -Eq '"lookups_failed": [1-9]' "$tmp/kadc.json"
# shellcheck disable=SC2086
check kad_churn_ranks 0 '' $launch -np 3 "$bin" run "$kad" $kad_churn -q -d 0 \
    --json "$tmp/ranks.json" --lookups "$tmp/ranks.csv"
check kad_churn_ranks_same 0 '' "$compare" "$tmp/kadc.json" "$tmp/ranks.json"
expect kad_churn_ranks_rows cmp -s "$tmp/kadc.csv" "$tmp/ranks.csv"
kad_none="-s kademlia.peers=50 -s kademlia.lookup_gap_max=0.001 -s simulation.duration=0.005"
# shellcheck disable=SC2086
check kad_none_alone 0 '' "$bin" run "$kad" -q -d 0 $kad_none --json "$tmp/kad0.json"
# shellcheck disable=SC2086
check kad_none_ranks 0 '' $launch -np 3 "$bin" run "$kad" -q -d 0 $kad_none \
    --json "$tmp/ranks.json"
check kad_none_same 0 '' "$compare" "$tmp/kad0.json" "$tmp/ranks.json"
expect kad_none_completed grep -q '"lookups_completed": 0,' "$tmp/ranks.json"
expect kad_none_hops_min grep -q '"hops_min": 0,' "$tmp/ranks.json"
# Kademlia checkpoints over ranks: 3 ranks' periodic checkpoints (every 1 s of 3, with
# --lookups) hold one process's bytes, every rank's peers and rows put together on rank 0; the
# last resumes on 1, 2 and 4 ranks, and alone, to the results and rows of the run never stopped
# shellcheck disable=SC2086
check kad_ckpt_alone 0 '' "$bin" run "$kad" -q -d 0 $kad_busy --checkpoint "$tmp/kad1.ckpt" \
    --checkpoint-every 1 --json "$tmp/ranks.json" --lookups "$tmp/ranks.csv"
# shellcheck disable=SC2086
check kad_ckpt_ranks 0 '' $launch -np 3 "$bin" run "$kad" -q -d all $kad_busy \
    --checkpoint "$tmp/kad3.ckpt" --checkpoint-every 1 --json "$tmp/ranks.json" \
    --lookups "$tmp/ranks.csv"
expect kad_ckpt_same_bytes cmp -s "$tmp/kad1.ckpt" "$tmp/kad3.ckpt"
resumes kad_ckpt "$tmp/kad3.ckpt" "$tmp/kad.json" "$tmp/kad.csv" --lookups

# the coordinator (docs/architecture.md, "Several ranks"): a rank measured slower (the hook:
# a microsecond for each LP a rank holds a window, F for rank R) hands partitions to its
# neighbours; the moves those of an oracle of the rule (tests/dist/balance_oracle.py), the
# results unchanged, 2 to 4 ranks of one or two devices; a rank 40 times slower, several
# partitions at a look; ranks equally fast move none
for spec in "3 1 7 2 16 0" "2 0 7 2 16 all" "4 2 5 3 24 all" "4 3 3 4 16 0" "2 1 40 4 32 0" \
    "3 1 1 2 16 0"; do
    # shellcheck disable=SC2086
    set -- $spec
    name="balance_$1_ranks_slow_$2_x$3_every_$4_parts_$5_$6"
    # shellcheck disable=SC2086
    check "$name" 0 '' env CLNETSIM_TEST_RANK="$2" CLNETSIM_TEST_RANK_SLOWER="$3" $launch \
        -np "$1" "$bin" run "$phold" -q -d "$6" -s partition.count="$5" \
        -s partition.rebalance="$4" --json "$tmp/balance.json"
    check "${name}_same" 0 '' "$compare" "$tmp/alone.json" "$tmp/balance.json"
    check "${name}_rule" 0 '^moves as expected' python3 "$src/tests/dist/balance_oracle.py" \
        "$tmp/balance.json" "$1" "$2" "$3" "$4" "$5" 1000
done
# shellcheck disable=SC2086
check balance_summary 0 '^ +6 partitions moved between ranks by their measured times$' \
    env CLNETSIM_TEST_RANK=0 CLNETSIM_TEST_RANK_SLOWER=7 $launch -np 2 "$bin" run "$phold" \
    -d 0 -s partition.count=16 -s partition.rebalance=2
# by the wall clock, a look every window: whatever moves, the same results
# shellcheck disable=SC2086
check balance_clock 0 '' $launch -np 3 "$bin" run "$phold" -q -d all -s partition.count=12 \
    -s partition.rebalance=1 --json "$tmp/balance.json"
check balance_clock_same 0 '' "$compare" "$tmp/alone.json" "$tmp/balance.json"
# checkpoints after moves: the bytes of one process's, resumed on 1, 2 and 4 ranks
sets="-s partition.count=16 -s partition.rebalance=2"
# shellcheck disable=SC2086
check balance_ckpt_alone 0 '' "$bin" run "$phold" -q $sets --checkpoint "$tmp/b1.ckpt" \
    --checkpoint-every 7 --json "$tmp/balance_full.json"
# shellcheck disable=SC2086
check balance_ckpt_ranks 0 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RANK_SLOWER=7 $launch \
    -np 3 "$bin" run "$phold" -q -d 0 $sets --checkpoint "$tmp/b3.ckpt" --checkpoint-every 7 \
    --json "$tmp/balance.json"
expect balance_ckpt_moved grep -q '"moves": [1-9]' "$tmp/balance.json"
expect balance_ckpt_same_bytes cmp -s "$tmp/b1.ckpt" "$tmp/b3.ckpt"
for n in 1 2 4; do
    # shellcheck disable=SC2086
    check "balance_resume_$n" 0 '' env CLNETSIM_TEST_RANK=0 CLNETSIM_TEST_RANK_SLOWER=3 \
        $launch -np "$n" "$bin" resume "$tmp/b3.ckpt" -q -d all --json "$tmp/resumed.json"
    check "balance_resume_${n}_same" 0 '' "$compare" "$tmp/balance_full.json" "$tmp/resumed.json"
done
# a rank failing in a window the coordinator looks at: every rank stops with its sentence
want="^clnetsim: error: MPI rank 1 of 3: clEnqueueNDRangeKernel\\(phold.execute, "
# shellcheck disable=SC2086
check balance_rank_fails 1 "$want" env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_FAIL=enqueue@0:5 \
    $launch -np 3 "$bin" run "$phold" -q -d all -s partition.rebalance=6 --json "$tmp/failed.json"
expect balance_rank_fails_no_output test ! -e "$tmp/failed.json"
# the CPU ranks of a machine stay off the cores its GPU ranks keep (--gpu-rank-cores; the hook
# makes ranks count as GPU ranks here): every thread of each rank on the cores an oracle of the
# rule gives (tests/dist/cores_oracle.py), the results unchanged; no core left for the CPU
# ranks (they keep what they had); none kept
for spec in "2 0 1" "3 1 1" "4 0,2 1" "3 1 0" "2 1 2"; do
    # shellcheck disable=SC2086
    set -- $spec
    name="cores_$1_ranks_gpu_$(echo "$2" | tr ',' '_')_keep_$3"
    # shellcheck disable=SC2086
    check "$name" 0 '' env CLNETSIM_TEST_GPU_RANKS="$2" $launch -np "$1" "$bin" run "$phold" \
        -q -d 0 --gpu-rank-cores "$3" --json "$tmp/cores.json"
    check "${name}_same" 0 '' "$compare" "$tmp/alone.json" "$tmp/cores.json"
    check "${name}_rule" 0 '^cores as expected' python3 "$src/tests/dist/cores_oracle.py" \
        "$tmp/cores.json" "$1" "$2" "$3"
done
# shellcheck disable=SC2086
check cores_summary 0 '^device       rank 1 \(cores [0-9,-]+\): ' env CLNETSIM_TEST_GPU_RANKS=0 \
    $launch -np 2 "$bin" run "$phold" -d 0
check cores_bad 2 "^clnetsim run: --gpu-rank-cores 'x' must be a number of cores from 0 to 1024" \
    "$bin" run "$phold" --gpu-rank-cores x
# a wait for a rank's device that lasts says so, naming the rank and the device (the hook
# shortens the minute to nothing); the results unchanged
# shellcheck disable=SC2086
check phold_wait_warning 0 "^clnetsim: warning: MPI rank 1 has waited [0-9]+ s for device '" \
    env CLNETSIM_TEST_WAIT_WARN=0 $launch -np 2 "$bin" run "$phold" -q -d 0 \
    --json "$tmp/waited.json"
check phold_wait_warning_same 0 '' "$compare" "$tmp/alone.json" "$tmp/waited.json"
# a first use on an empty cache: every rank says which device it prepares (the others wait
# for it meanwhile), and the results are the same
check phold_first_use_ranks 0 '' env XDG_CACHE_HOME="$tmp/cold" $launch -x XDG_CACHE_HOME \
    -np 2 "$bin" run "$phold" -d 0 --json "$tmp/cold.json"
for r in 0 1; do
    expect "phold_first_use_rank_${r}_says" grep -Eq "^clnetsim: MPI rank $r: preparing device 0 \(.*\) for the phold model, once: building its kernels \(a CPU device" "$tmp/out"
done
check phold_first_use_ranks_same 0 '' "$compare" "$tmp/alone.json" "$tmp/cold.json"
# phold_case PREFIX RANKS DEVICES CASE: one process on device 0 against RANKS ranks on
# DEVICES, with CASE's keys (section.key=value, set with -s) and hooks (CLNETSIM_*=value)
phold_case() {
    sets="" hooks=""
    for item in $4; do
        case $item in
        CLNETSIM_*) hooks="$hooks $item" ;;
        *) sets="$sets -s $item" ;;
        esac
    done
    name=$1_$(echo "$4" | tr -c 'a-zA-Z0-9\n' '_')
    # shellcheck disable=SC2086
    check "${name}_alone" 0 '' env $hooks "$bin" run "$phold" -q -d 0 $sets --json "$tmp/a.json"
    # shellcheck disable=SC2086
    check "${name}_ranks" 0 '' env $hooks $launch -np "$2" "$bin" run "$phold" -q -d "$3" $sets \
        --json "$tmp/b.json"
    check "${name}_same" 0 '' "$compare" "$tmp/a.json" "$tmp/b.json"
}
# ranks that hold no partition (2 LPs, 4 ranks), every event remote, the LPs' slots and the
# outbox grown from tiny starts, odd sizes (ranks of two devices: the exchange at the window's
# end)
for case in "phold.lps=2" "phold.remote=1" "phold.lps=37 phold.population=3" \
    "CLNETSIM_TEST_PHOLD_SLOTS=9 CLNETSIM_TEST_PHOLD_OUTBOX=16"; do
    phold_case phold 4 all "$case"
done
# ranks of one device stream their exports while their later partitions run: slots that fill
# meanwhile (the records delivered before those partitions run: their counts must stay within
# their slots), a tiny outbox, and the same without streaming
for case in "phold.remote=1 CLNETSIM_TEST_PHOLD_SLOTS=9" \
    "CLNETSIM_TEST_PHOLD_SLOTS=9 CLNETSIM_TEST_PHOLD_OUTBOX=16" \
    "CLNETSIM_TEST_NO_STREAM=1 CLNETSIM_TEST_PHOLD_OUTBOX=16"; do
    phold_case phold_stream 3 0 "$case"
done

# The flood over ranks (static scenarios, whole packets: each rank floods its share of every
# round): every contract member equal to one process's, for 1 to 4 ranks, one or two devices
# per rank, every policy; forwarding schemes, a neighbour cap, a qudg graph; traffic flows
# with their per-packet rows (which cross ranks once a round), the same bytes
grid="$src/scenarios/small_grid.ini"
check flood_alone 0 '' "$bin" run "$grid" -q -d 0 --json "$tmp/grid.json"
ranks_matrix flood "$tmp/grid.json" "$grid"
expect flood_ranks_counted grep -q '"ranks": {"count": 4,' "$tmp/ranks.json"
# the coordinator's rule: a rank that measures itself 20 times slower gets a small share of
# the later rounds (equal rounds would give each rank half the events), the results unchanged;
# the ranks measure a fixed time a packet (the hook), not the wall clock of a busy machine
# shellcheck disable=SC2086
check flood_slow_rank 0 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RANK_SLOWER=20 \
    $launch -np 2 "$bin" run "$grid" -q -d 0 -s traffic.packets=400 --json "$tmp/slow.json"
# shellcheck disable=SC2086
check flood_fair 0 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RANK_SLOWER=1 \
    $launch -np 2 "$bin" run "$grid" -q -d 0 -s traffic.packets=400 --json "$tmp/fair.json"
check flood_slow_rank_same 0 '' "$compare" "$tmp/fair.json" "$tmp/slow.json"
# the events of the devices of rank R in a report
rank_events() {
    grep -E "\"rank\": $2[,}]" "$1" | sed 's/.*"events": \([0-9]*\),.*/\1/' | awk '{s += $1} END {print s + 0}'
}
expect flood_slow_rank_less test "$(($(rank_events "$tmp/slow.json" 1) * 3))" -lt \
    "$(rank_events "$tmp/slow.json" 0)"
expect flood_fair_even test "$(($(rank_events "$tmp/fair.json" 1) * 3))" -gt \
    "$(rank_events "$tmp/fair.json" 0)"
for sc in small_counter small_distance small_max_neighbors small_qudg small_flows; do
    rows_case "flood_$sc" "$sc" "$sc.ini"
done
expect flood_flows_table grep -q '{"name": "alarm", "generated": 4, "deliverable": 1596' \
    "$tmp/small_flows.b.json"
# The flood's window loop over ranks (each rank its range of the partitions, the borders
# between ranks carried every window): moving nodes (re-tiled every 8 windows), static
# partitions, a forwarding scheme, a neighbour cap, traffic flows with per-packet rows, the
# re-tiling (nodes joining another rank's partition take their seen bits there), and the
# paths of a spilled frontier (every relay to every rank), of exports read after the count
# and of moved-node records read after theirs; 1 to 4 ranks, one or two devices per rank,
# every policy
mobile="$src/scenarios/small_mobile.ini"
check loop_alone 0 '' "$bin" run "$mobile" -q -d 0 --json "$tmp/loop.json"
ranks_matrix loop "$tmp/loop.json" "$mobile"
expect loop_ranks_sent grep -q '"ranks": {"count": 4, "sent_bytes": [1-9]' "$tmp/ranks.json"
for case in "small_grid.ini -s partition.count=4" \
    "small_mobile_counter.ini -s partition.retile=3" \
    "small_random_walk.ini -s partition.retile=2" \
    "CLNETSIM_TEST_RECORDS=1 small_groups.ini -s partition.retile=2" \
    "small_qudg.ini -s connectivity.max_neighbors=5 -s partition.count=3" \
    "small_flows.ini -s partition.count=4" "small_mobile.ini -s partition.retile=0" \
    "CLNETSIM_TEST_FRONTIER_CAPACITY=4 small_mobile.ini -s partition.retile=0" \
    "CLNETSIM_TEST_EXCHANGE_GUESS=1 small_random_walk.ini -s partition.retile=0"; do
    rows_case "loop_$(echo "$case" | tr -c 'a-zA-Z0-9\n' '_')" loopcase "$case"
done
# a stop on one rank: every rank stops after the next window, with the results of one
# process stopped there
# shellcheck disable=SC2086
check loop_stop_one_rank 143 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RAISE=TERM@5 \
    $launch -np 3 "$bin" run "$mobile" -q --json "$tmp/stopped3.json"
check loop_stop_alone 143 '' env CLNETSIM_TEST_RAISE=TERM@6 "$bin" run "$mobile" -q \
    --json "$tmp/stopped1.json"
check loop_stop_same 0 '' "$compare" "$tmp/stopped1.json" "$tmp/stopped3.json"
# a device failing on one rank: that rank's sentence, once, and no output
want="^clnetsim: error: MPI rank 1 of 3: clEnqueueNDRangeKernel\\(flood.transmit_mobile, "
# shellcheck disable=SC2086
check loop_rank_fails 1 "$want" env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_FAIL=enqueue@0:5 \
    $launch -np 3 "$bin" run "$mobile" -q -d all --json "$tmp/failed.json"
expect loop_rank_fails_once test "$(grep -c '^clnetsim: error' "$tmp/out")" -eq 1
expect loop_rank_fails_no_output test ! -e "$tmp/failed.json"
# a moving flood that one process would run with the next window's step fused into the
# transmit (the hooks stand for NVIDIA's profile): over ranks the window loop holds a
# partition a rank, and fuses nothing (it once stopped with an internal error)
# shellcheck disable=SC2086
check loop_fuse_ranks 0 '' env CLNETSIM_TEST_CELLS_RANKED=4096 CLNETSIM_TEST_FUSE_STEP=1 \
    $launch -np 2 "$bin" run "$mobile" -q -d 0 --json "$tmp/fused.json"
check loop_fuse_ranks_same 0 '' "$compare" "$tmp/loop.json" "$tmp/fused.json"
# a first use on one rank only (its cache empty, the other's filled): its self-test and tuning
# run the flood by itself, outside the ranks' collectives, while the other rank waits (they
# once entered the model's collectives alone and hung the run)
# shellcheck disable=SC2086
check loop_first_use_one_rank 0 '^clnetsim: MPI rank 0: preparing device 0 ' timeout -k 10 600 \
    $launch -np 1 -x XDG_CACHE_HOME="$tmp/cold1" "$bin" run "$mobile" -d 0 \
    -s partition.count=4 --json "$tmp/cold1.json" : -np 1 "$bin" run "$mobile" -d 0 \
    -s partition.count=4 --json "$tmp/cold1.json"
check loop_first_use_one_rank_same 0 '' "$compare" "$tmp/loop.json" "$tmp/cold1.json"
# the window loop's coordinator (flood_balance.c): a rank measured slower (the hook: a
# millisecond for each partition a rank holds a window that transmitted, F for rank R) hands
# partitions to its neighbours, their nodes' seen bits, scheme states and static lists going
# with them; the moves those of the rule's oracle (tests/dist/balance_oracle.py), the results
# and rows those of one process: moving and static nodes, a scheme, traffic flows, a
# neighbour cap, a re-tiling at every look, 2 to 4 ranks of one or two devices
for spec in "2 1 40 2 8 all small_mobile.ini" "3 0 7 1 12 0 small_qudg.ini" \
    "4 3 5 2 16 all small_distance.ini" "2 0 7 3 8 0 small_flows.ini" \
    "3 1 7 1 12 all small_mobile_counter.ini -s partition.retile=1" \
    "2 1 9 2 10 all small_max_neighbors.ini" "3 2 40 1 9 0 small_random_walk.ini"; do
    # shellcheck disable=SC2086
    set -- $spec
    np=$1 slow=$2 f=$3 every=$4 parts=$5 devs=$6 sc="$src/scenarios/$7"
    name="loop_balance_${np}_ranks_slow_${slow}_x${f}_every_${every}_parts_${parts}_${devs}_$(echo "$7" | tr -c 'a-zA-Z0-9\n' '_')"
    shift 7
    check "${name}_alone" 0 '' "$bin" run "$sc" "$@" -q -d 0 --json "$tmp/lb1.json" \
        --packets "$tmp/lb1.csv"
    # shellcheck disable=SC2086
    check "$name" 0 '' env CLNETSIM_TEST_RANK="$slow" CLNETSIM_TEST_RANK_SLOWER="$f" $launch \
        -np "$np" "$bin" run "$sc" "$@" -q -d "$devs" -s partition.count="$parts" \
        -s partition.rebalance="$every" --json "$tmp/lb.json" --packets "$tmp/lb.csv"
    check "${name}_same" 0 '' "$compare" "$tmp/lb1.json" "$tmp/lb.json"
    expect "${name}_rows" cmp -s "$tmp/lb1.csv" "$tmp/lb.csv"
    check "${name}_rule" 0 '^moves as expected: [1-9]' python3 "$src/tests/dist/balance_oracle.py" \
        "$tmp/lb.json" "$np" "$slow" "$f" "$every" "$parts" flood
done
# by the wall clock, ranks of one kind of device: the window loop's coordinator never looks
# shellcheck disable=SC2086
check loop_balance_clock 0 '' $launch -np 3 "$bin" run "$mobile" -q -d all \
    -s partition.count=12 -s partition.rebalance=1 --json "$tmp/lb.json"
check loop_balance_clock_same 0 '' "$compare" "$tmp/loop.json" "$tmp/lb.json"
expect loop_balance_clock_no_look grep -q '"moves": 0, "looks": 0' "$tmp/lb.json"
# a checkpoint after moves, resumed on 1, 2 and 4 ranks to the results and rows of the run
# never stopped (its relays are in the ranks' order, not one process's: other bytes)
lbsets="-s partition.count=8 -s partition.rebalance=1"
# shellcheck disable=SC2086
check loop_balance_ckpt_alone 0 '' "$bin" run "$mobile" -q $lbsets --json "$tmp/lbfull.json" \
    --packets "$tmp/lbfull.csv"
# shellcheck disable=SC2086
check loop_balance_ckpt_ranks 0 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RANK_SLOWER=9 \
    $launch -np 3 "$bin" run "$mobile" -q -d all $lbsets --checkpoint "$tmp/lb3.ckpt" \
    --checkpoint-every 11 --json "$tmp/lb.json" --packets "$tmp/lb.csv"
expect loop_balance_ckpt_moved grep -q '"moves": [1-9]' "$tmp/lb.json"
for n in 1 2 4; do
    # shellcheck disable=SC2086
    check "loop_balance_resume_$n" 0 '' env CLNETSIM_TEST_RANK=0 CLNETSIM_TEST_RANK_SLOWER=5 \
        $launch -np "$n" "$bin" resume "$tmp/lb3.ckpt" -q -d all --json "$tmp/lbres.json" \
        --packets "$tmp/lbres.csv"
    check "loop_balance_resume_${n}_same" 0 '' "$compare" "$tmp/lbfull.json" "$tmp/lbres.json"
    expect "loop_balance_resume_${n}_rows" cmp -s "$tmp/lbfull.csv" "$tmp/lbres.csv"
done
# a rank failing in a window the coordinator looks at: every rank stops with its sentence
want="^clnetsim: error: MPI rank 1 of 3: clEnqueueNDRangeKernel\\(flood.transmit_mobile, "
# shellcheck disable=SC2086
check loop_balance_rank_fails 1 "$want" env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_FAIL=enqueue@0:5 \
    $launch -np 3 "$bin" run "$mobile" -q -d all -s partition.rebalance=2 --json "$tmp/lbf.json"
expect loop_balance_rank_fails_no_output test ! -e "$tmp/lbf.json"
# checkpoints of the window loop: a stop on rank 1 of 3 writes one file (every rank's seen
# bits, counters and relays put together on rank 0), resumed on 1 or 2 ranks (or alone) to
# the results and rows of the run never stopped; the resumed run keeps the checkpoint's 3
# partitions, so 4 ranks are refused with a sentence
loopfull="$tmp/loopfull.json"
check loop_ckpt_full 0 '' "$bin" run "$mobile" -q --json "$loopfull" --packets "$tmp/loopfull.csv"
# shellcheck disable=SC2086
check loop_ckpt_stop 130 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RAISE=INT@9 \
    $launch -np 3 "$bin" run "$mobile" -q -d all --checkpoint "$tmp/l3.ckpt" \
    --packets "$tmp/lstop.csv"
for n in 1 2; do
    # shellcheck disable=SC2086
    check "loop_ckpt_resume_$n" 0 '' $launch -np "$n" "$bin" resume "$tmp/l3.ckpt" -q -d all \
        --json "$tmp/lres.json" --packets "$tmp/lres.csv"
    check "loop_ckpt_resume_${n}_same" 0 '' "$compare" "$loopfull" "$tmp/lres.json"
    expect "loop_ckpt_resume_${n}_rows" cmp -s "$tmp/loopfull.csv" "$tmp/lres.csv"
done
check loop_ckpt_resume_alone 0 '' "$bin" resume "$tmp/l3.ckpt" -q --json "$tmp/lres.json" \
    --packets "$tmp/lres.csv"
check loop_ckpt_resume_alone_same 0 '' "$compare" "$loopfull" "$tmp/lres.json"
# 4 ranks for its 3 partitions: the last rank holds none, and takes part in every window
# shellcheck disable=SC2086
check loop_ckpt_resume_4 0 '' $launch -np 4 "$bin" resume "$tmp/l3.ckpt" -q -d all \
    --json "$tmp/lres.json" --packets "$tmp/lres.csv"
check loop_ckpt_resume_4_same 0 '' "$compare" "$loopfull" "$tmp/lres.json"
expect loop_ckpt_resume_4_rows cmp -s "$tmp/loopfull.csv" "$tmp/lres.csv"
# one process's checkpoint of a moving flood with --packets resumes with them (the check of
# the file took the rows for traffic flows the scenario does not have), alone and on 2 ranks
# (its one partition on rank 0)
check loop_ckpt_rows_alone 130 '' env CLNETSIM_TEST_RAISE=INT@9 "$bin" run "$mobile" -q \
    --checkpoint "$tmp/l1.ckpt" --packets "$tmp/l1stop.csv"
check loop_ckpt_rows_resume 0 '' "$bin" resume "$tmp/l1.ckpt" -q --json "$tmp/lres.json" \
    --packets "$tmp/lres.csv"
check loop_ckpt_rows_same 0 '' "$compare" "$loopfull" "$tmp/lres.json"
expect loop_ckpt_rows_rows cmp -s "$tmp/loopfull.csv" "$tmp/lres.csv"
# shellcheck disable=SC2086
check loop_ckpt_one_part_ranks 0 '' $launch -np 2 "$bin" resume "$tmp/l1.ckpt" -q \
    --json "$tmp/lres.json" --packets "$tmp/lres.csv"
check loop_ckpt_one_part_ranks_same 0 '' "$compare" "$loopfull" "$tmp/lres.json"
expect loop_ckpt_one_part_ranks_rows cmp -s "$tmp/loopfull.csv" "$tmp/lres.csv"

# fewer partitions than ranks (docs/user-guide.md, "Several processes"): the ranks after the
# holders hold none, plan no set, and apply every window's relays as the others do. Node
# resources decide in one partition: every contract member of small_energy (energy, deaths)
# and small_capacity (copies refused) equal to one process's for 1 to 4 ranks, one or two
# devices per rank, every policy; under a scheme, with traffic flows' rows, and activity
# areas (one partition too); a moving flood of 3 partitions on 4 ranks re-tiled every other
# window, a static one of 2 on 4; a checkpoint of node resources taken on 3 ranks resumed
# on 1, 2 and 4 (and alone)
check res_energy_alone 0 '' "$bin" run "$src/scenarios/small_energy.ini" -q -d 0 \
    --json "$tmp/energy.json"
ranks_matrix res_energy "$tmp/energy.json" "$src/scenarios/small_energy.ini"
expect res_energy_died grep -q '"dead_nodes": 99,' "$tmp/ranks.json"
check res_capacity_alone 0 '' "$bin" run "$src/scenarios/small_capacity.ini" -q -d 0 \
    --json "$tmp/capacity.json"
ranks_matrix res_capacity "$tmp/capacity.json" "$src/scenarios/small_capacity.ini"
expect res_capacity_refused grep -q '"capacity_drops": 139619,' "$tmp/ranks.json"
for case in "small_energy.ini -s flood.scheme=counter -s flood.counter_threshold=2 -s flood.assessment_delay=2" \
    "small_flows.ini -s resources.rx_capacity=3" "areas6.ini" \
    "small_mobile.ini -s partition.count=1"; do
    rows_case "few_$(echo "$case" | tr -c 'a-zA-Z0-9\n' '_')" fewcase "$case"
done
check few_mobile_alone 0 '' "$bin" run "$mobile" -q -s partition.retile=2 --json "$tmp/few1.json" \
    --packets "$tmp/few1.csv"
# shellcheck disable=SC2086
check few_mobile_3_on_4 0 '' $launch -np 4 "$bin" run "$mobile" -q -d all -s partition.count=3 \
    -s partition.retile=2 --json "$tmp/few.json" --packets "$tmp/few.csv"
check few_mobile_3_on_4_same 0 '' "$compare" "$tmp/few1.json" "$tmp/few.json"
expect few_mobile_3_on_4_rows cmp -s "$tmp/few1.csv" "$tmp/few.csv"
check few_static_alone 0 '' "$bin" run "$grid" -q -s partition.count=2 --json "$tmp/few1.json"
# shellcheck disable=SC2086
check few_static_2_on_4 0 '' $launch -np 4 "$bin" run "$grid" -q -d all -s partition.count=2 \
    --json "$tmp/few.json"
check few_static_2_on_4_same 0 '' "$compare" "$tmp/few1.json" "$tmp/few.json"
check res_ckpt_full 0 '' "$bin" run "$src/scenarios/small_energy.ini" -q --json "$tmp/efull.json" \
    --packets "$tmp/efull.csv"
# shellcheck disable=SC2086
check res_ckpt_stop 130 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RAISE=INT@40 \
    $launch -np 3 "$bin" run "$src/scenarios/small_energy.ini" -q -d all \
    --checkpoint "$tmp/e3.ckpt" --packets "$tmp/estop.csv"
resumes res_ckpt "$tmp/e3.ckpt" "$tmp/efull.json" "$tmp/efull.csv"

# a device lost on rank 1 of 2 under [devices] on_failure = continue (whole packets): that
# rank's other device runs its chunks, the results unchanged and the device marked failed
check flood_lost_alone 0 '' "$bin" run "$grid" -q -s traffic.packets=200 --json "$tmp/g200.json"
# shellcheck disable=SC2086
check flood_lost_on_rank 0 'device 1 .* failed in window 2 and is left out' env \
    CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_FAIL=lost@1:2 $launch -np 2 "$bin" run "$grid" -q -d all \
    -s traffic.packets=200 -s devices.on_failure=continue --json "$tmp/lost.json"
check flood_lost_same 0 '' "$compare" "$tmp/g200.json" "$tmp/lost.json"
expect flood_lost_marked grep -q '"failed": true' "$tmp/lost.json"

# a stop on one rank: a checkpoint of the whole run, resumed on 1, 2 or 4 ranks (or alone)
# to the results and rows of the run never stopped
flows="$src/scenarios/small_flows.ini"
# shellcheck disable=SC2086
check flood_ckpt_stop 130 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RAISE=INT@3 \
    $launch -np 3 "$bin" run "$flows" -q -d all --checkpoint "$tmp/f3.ckpt" \
    --packets "$tmp/stopped.csv" --json "$tmp/stopped.json"
expect flood_ckpt_incomplete grep -q '"complete": false' "$tmp/stopped.json"
resumes flood_ckpt "$tmp/f3.ckpt" "$tmp/small_flows.a.json" "$tmp/small_flows.a.csv"

# a stop signal caught by one rank stops every rank at the next window boundary, with the
# results of the run so far: those of one process stopped there
# shellcheck disable=SC2086
check phold_stop_one_rank 143 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RAISE=TERM@5 \
    $launch -np 3 "$bin" run "$phold" -q --json "$tmp/stopped3.json"
check phold_stop_alone 143 '' env CLNETSIM_TEST_RAISE=TERM@6 "$bin" run "$phold" -q \
    --json "$tmp/stopped1.json"
check phold_stop_same 0 '' "$compare" "$tmp/stopped1.json" "$tmp/stopped3.json"
expect phold_stop_incomplete grep -q '"complete": false' "$tmp/stopped3.json"

# a device failing on one rank ends the run on every rank with that rank's sentence, printed
# once, and no output
want="^clnetsim: error: MPI rank 1 of 3: clEnqueueNDRangeKernel\\(phold.execute, "
# shellcheck disable=SC2086
check phold_rank_fails 1 "$want" env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_FAIL=enqueue@0:5 \
    $launch -np 3 "$bin" run "$phold" -q -d all --json "$tmp/failed.json"
expect phold_rank_fails_once test "$(grep -c '^clnetsim: error' "$tmp/out")" -eq 1
expect phold_rank_fails_no_output test ! -e "$tmp/failed.json"
# a rank that dies: the launcher ends the others and says which one (Open MPI's words), and
# the output is not written
# shellcheck disable=SC2086
check phold_rank_killed 137 'process rank 1 .* exited on signal 9' env CLNETSIM_TEST_RANK=1 \
    CLNETSIM_TEST_RAISE=KILL@5 timeout -k 10 120 $launch -np 3 "$bin" run "$phold" -q \
    --json "$tmp/killed.json"
expect phold_rank_killed_no_output test ! -e "$tmp/killed.json"

# ranks that read different scenarios (one file per machine that differs), and what runs
# over ranks do not do yet: refused on every rank, once
sed 's/^seed = 1$/seed = 2/' "$phold" > "$tmp/other.ini"
# shellcheck disable=SC2086
check phold_different_scenarios 2 'the MPI ranks read different scenarios from' \
    $launch -np 1 "$bin" run "$phold" -q : -np 1 "$bin" run "$tmp/other.ini" -q
expect phold_different_once test "$(grep -c '^clnetsim: error' "$tmp/out")" -eq 1
# --trace-inject: each rank's decisions in a file of its own, the partitions by their numbers
# in the run (rank 1 of 2 holds the upper half: the coordinator moves none), the results
# unchanged
# shellcheck disable=SC2086
check phold_trace_ranks 0 '' $launch -np 2 "$bin" run "$phold" -q -d all \
    -s partition.rebalance=0 --trace-inject "$tmp/t.csv" --json "$tmp/traced.json"
check phold_trace_same 0 '' "$compare" "$tmp/alone.json" "$tmp/traced.json"
expect phold_trace_rank0 grep -q '^window,kind,partition,' "$tmp/t.rank-0.csv"
expect phold_trace_rank1_upper sh -c "tail -n +2 '$tmp/t.rank-1.csv' | cut -d, -f3 | sort -un |
    head -n 1 | grep -qx 8"
expect phold_trace_no_shared_file test ! -e "$tmp/t.csv"

# checkpoints: one file for the whole run, written by rank 0, the same bytes as one process's
# at the same window (a signal on rank 1 after 69 windows stops every rank after 70), and
# resumed on any number of ranks (or alone) to the results of the run never stopped
full="$tmp/alone.json"
# shellcheck disable=SC2086
check ckpt_ranks_stop 130 '' env CLNETSIM_TEST_RANK=1 CLNETSIM_TEST_RAISE=INT@69 \
    $launch -np 3 "$bin" run "$phold" -q -d all --checkpoint "$tmp/r3.ckpt"
check ckpt_alone_stop 130 '' env CLNETSIM_TEST_RAISE=INT@70 "$bin" run "$phold" -q \
    --checkpoint "$tmp/r1.ckpt"
expect ckpt_same_bytes cmp -s "$tmp/r1.ckpt" "$tmp/r3.ckpt"
for n in 1 2 4; do
    # shellcheck disable=SC2086
    check "ckpt_resume_$n" 0 '' $launch -np "$n" "$bin" resume "$tmp/r3.ckpt" -q -d all \
        --json "$tmp/resumed.json"
    check "ckpt_resume_${n}_same" 0 '' "$compare" "$full" "$tmp/resumed.json"
done
check ckpt_resume_alone 0 '' "$bin" resume "$tmp/r3.ckpt" -q --json "$tmp/resumed.json"
check ckpt_resume_alone_same 0 '' "$compare" "$full" "$tmp/resumed.json"
# periodic checkpoints (simulated time): the last one the same bytes as one process's
# shellcheck disable=SC2086
check ckpt_every_ranks 0 '' $launch -np 3 "$bin" run "$phold" -q --checkpoint "$tmp/e3.ckpt" \
    --checkpoint-every 7
check ckpt_every_alone 0 '' "$bin" run "$phold" -q --checkpoint "$tmp/e1.ckpt" \
    --checkpoint-every 7
expect ckpt_every_same_bytes cmp -s "$tmp/e1.ckpt" "$tmp/e3.ckpt"
# wall-clock checkpoints: the ranks agree on each (every window here), the results unchanged
# shellcheck disable=SC2086
check ckpt_wall_ranks 0 '' $launch -np 2 "$bin" run "$phold" -q --checkpoint "$tmp/w.ckpt" \
    --checkpoint-every 0.000001 --checkpoint-clock wall --json "$tmp/wall.json"
check ckpt_wall_same 0 '' "$compare" "$full" "$tmp/wall.json"
expect ckpt_wall_written grep -q '"checkpoints": [1-9][0-9]' "$tmp/wall.json"
finish dist
