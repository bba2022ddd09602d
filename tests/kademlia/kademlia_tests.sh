#!/bin/sh
# Kademlia against its oracle and against itself. Usage: kademlia_tests.sh CLNETSIM
# JSON_COMPARE KADEMLIA_ORACLE SOURCE_DIR (POCL_DEVICES gives two CPU devices).
bin=$1 cmp=$2 oracle=$3 src=$4
small=$src/scenarios/small_kademlia.ini
. "$src/tests/common/check.sh"

# same_file NAME A B: two files equal byte for byte (same, from check.sh: two results)
same_file() {
    if cmp "$2" "$3" > "$tmp/cmp" 2>&1; then pass=$((pass + 1)); else
        echo "FAIL $1:"; sed 's/^/    /' "$tmp/cmp"; fail=$((fail + 1)); fi
}

# oracle_case NAME "ORACLE ARGUMENTS" OVERRIDES...: the oracle's results and rows (its
# arguments: seed peers id_bits k alpha gap_max_ns latency_min_ns latency_max_ns duration_ns
# targets) equal the simulator's on the first device with the same scenario
oracle_case() {
    case_name=$1 args=$2
    shift 2
    # shellcheck disable=SC2086
    check "${case_name}_oracle_runs" 0 '' "$oracle" $args --json "$tmp/$case_name.o.json" \
        --lookups "$tmp/$case_name.o.csv"
    check "${case_name}_runs" 0 '' "$bin" run "$small" -d 0 -q "$@" \
        --json "$tmp/$case_name.json" --lookups "$tmp/$case_name.csv"
    same "${case_name}_equals_oracle" "$tmp/$case_name.o.json" "$tmp/$case_name.json"
    same_file "${case_name}_rows_equal_oracle" "$tmp/$case_name.o.csv" "$tmp/$case_name.csv"
}

oracle_case small "1 2048 64 8 3 10000000000 10000000 100000000 20000000000 random"
expect small_completes grep -Eq '"lookups_completed": [1-9][0-9]{3}' "$tmp/small.json"
expect small_open_rows grep -q ',open,-1,-1,' "$tmp/small.csv"
oracle_case peers "7 1000 160 20 3 5000000000 10000000 100000000 10000000000 peers" \
    -s simulation.seed=7 -s kademlia.peers=1000 -s kademlia.id_bits=160 \
    -s kademlia.bucket_size=20 -s kademlia.lookup_gap_max=5 -s simulation.duration=10 \
    -s kademlia.targets=peers
# with targets = peers every completed lookup found its target
completed=$(sed -n 's/^ *"lookups_completed": \([0-9]*\),$/\1/p' "$tmp/peers.json")
expect peers_all_found grep -q "\"lookups_found\": $completed," "$tmp/peers.json"
# 33-bit ids (one bit in a second word), buckets of one, one request in flight
oracle_case narrow "3 500 33 1 1 2000000000 5000000 20000000 5000000000 random" \
    -s simulation.seed=3 -s kademlia.peers=500 -s kademlia.id_bits=33 \
    -s kademlia.bucket_size=1 -s kademlia.alpha=1 -s kademlia.lookup_gap_max=2 \
    -s kademlia.latency_min=0.005 -s kademlia.latency_max=0.02 -s simulation.duration=5
# 32-bit ids on 80 000 peers: two first draws collide (the oracle draws 2 ids again, the
# count tests/kademlia/test_kademlia_ids.c expects of the simulator's ids), and the run
# equals the oracle's (the ids themselves are the unit test's)
check collide_oracle_runs 0 '^kademlia_oracle: 2 ids drawn again' "$oracle" \
    1 80000 32 8 3 10000000000 10000000 100000000 50000000 random --stats \
    --json "$tmp/collide.o.json"
check collide_runs 0 '' "$bin" run "$small" -d 0 -q -s simulation.seed=1 \
    -s kademlia.peers=80000 -s kademlia.id_bits=32 -s simulation.duration=0.05 \
    --json "$tmp/collide.json"
same collide_equals_oracle "$tmp/collide.o.json" "$tmp/collide.json"
# buckets of 64 and 64 requests in flight on few peers: a response holds most of them
oracle_case wide "4 300 64 64 64 200000000 10000000 50000000 3000000000 peers" \
    -s simulation.seed=4 -s kademlia.peers=300 -s kademlia.bucket_size=64 -s kademlia.alpha=64 \
    -s kademlia.lookup_gap_max=0.2 -s kademlia.latency_max=0.05 -s simulation.duration=3 \
    -s kademlia.targets=peers
# gaps far shorter than a lookup: peers keep several lookups open, and their records grow
busy="5 200 64 8 3 50000000 10000000 200000000 3000000000 random"
busy_s="-s simulation.seed=5 -s kademlia.peers=200 -s kademlia.lookup_gap_max=0.05 \
    -s kademlia.latency_max=0.2 -s simulation.duration=3"
# shellcheck disable=SC2086
oracle_case busy "$busy" $busy_s
# two peers: each knows only the other
oracle_case two "9 2 64 8 3 1000000000 10000000 100000000 5000000000 peers" \
    -s simulation.seed=9 -s kademlia.peers=2 -s kademlia.lookup_gap_max=1 \
    -s simulation.duration=5 -s kademlia.targets=peers

# The same results and rows on any partition count, work-group size, devices and policy (a
# shorter run: a partition of three peers is one event set of every window).
short="-s kademlia.peers=1000 -s simulation.duration=8"
# shellcheck disable=SC2086
check short_runs 0 '' "$bin" run "$small" -d 0 -q $short --json "$tmp/short.json" \
    --lookups "$tmp/short.csv"
base=$tmp/short.json
for v in "partition.count=1" "partition.count=7" "partition.count=333"; do
    # shellcheck disable=SC2086
    check "partitions_$v" 0 '' "$bin" run "$small" -d 0 -q $short -s "$v" --json "$tmp/v.json" \
        --lookups "$tmp/v.csv"
    same "partitions_$v" "$base" "$tmp/v.json"
    same_file "partitions_${v}_rows" "$tmp/short.csv" "$tmp/v.csv"
done
for wg in 1 64; do
    # shellcheck disable=SC2086
    check "work_group_$wg" 0 '' "$bin" run "$small" -d 0 -q $short --work-group $wg \
        --json "$tmp/v.json"
    same "work_group_$wg" "$base" "$tmp/v.json"
done
for p in static rapid advanced hybrid; do
    # shellcheck disable=SC2086
    check "two_devices_$p" 0 '' "$bin" run "$small" -d 0,1 -q $short -s inject.policy=$p \
        --json "$tmp/v.json" --lookups "$tmp/v.csv"
    same "two_devices_$p" "$base" "$tmp/v.json"
    same_file "two_devices_${p}_rows" "$tmp/short.csv" "$tmp/v.csv"
done
# shellcheck disable=SC2086
check busy_two_devices 0 '' "$bin" run "$small" -d 0,1 -q -s partition.count=5 $busy_s \
    --json "$tmp/v.json" --lookups "$tmp/v.csv"
same busy_two_devices "$tmp/busy.json" "$tmp/v.json"
same_file busy_two_devices_rows "$tmp/busy.csv" "$tmp/v.csv"
# several windows a launch: each peer runs its lookups as far as they go; the same results
# (with --lookups, one window a launch: the same rows)
for w in 3 1000000; do
    # shellcheck disable=SC2086
    check "short_windows_per_launch_$w" 0 '' "$bin" run "$small" -d 0 -q $short \
        -s kademlia.windows_per_launch=$w --json "$tmp/v.json"
    same "short_windows_per_launch_$w" "$base" "$tmp/v.json"
    # shellcheck disable=SC2086
    check "busy_windows_per_launch_$w" 0 '' "$bin" run "$small" -d 0,1 -q $busy_s \
        -s kademlia.windows_per_launch=$w --json "$tmp/v.json"
    same "busy_windows_per_launch_$w" "$tmp/busy.json" "$tmp/v.json"
done
expect one_launch grep -q '"windows": 1,' "$tmp/v.json"
expect fixed_knob grep -q '"knob": "kademlia.windows_per_launch", "adaptive": false, "start": 1000000,' \
    "$tmp/v.json"
# windows a launch chosen by the run (the default): the same results; with the test hook the
# value jumps along its ladder at every launch, whatever was measured
# shellcheck disable=SC2086
check busy_adaptive 0 '' "$bin" run "$small" -d 0 -q $busy_s --json "$tmp/v.json"
same busy_adaptive "$tmp/busy.json" "$tmp/v.json"
expect adaptive_knob grep -q '"knob": "kademlia.windows_per_launch", "adaptive": true,' \
    "$tmp/v.json"
for dv in 0 0,1; do
    # shellcheck disable=SC2086
    check "busy_walk_$dv" 0 '' env CLNETSIM_TEST_GRANULARITY=walk "$bin" run "$small" -d $dv -q \
        -s partition.count=3 $busy_s --json "$tmp/v.json"
    same "busy_walk_$dv" "$tmp/busy.json" "$tmp/v.json"
    expect "busy_walk_${dv}_moved" grep -Eq '"moves": [1-9][0-9]' "$tmp/v.json"
done
# shellcheck disable=SC2086
check batch_rows 0 '' "$bin" run "$small" -d 0 -q $busy_s -s kademlia.windows_per_launch=50 \
    --json "$tmp/v.json" --lookups "$tmp/v.csv"
same batch_rows "$tmp/busy.json" "$tmp/v.json"
same_file batch_rows_csv "$tmp/busy.csv" "$tmp/v.csv"
# the window's minimum in its launch (kad_window_min): the same results
# shellcheck disable=SC2086
check busy_fused 0 '' env CLNETSIM_KADEMLIA_FUSED=1 "$bin" run "$small" -d 0,1 -q $busy_s \
    --json "$tmp/v.json"
same busy_fused "$tmp/busy.json" "$tmp/v.json"
# records that start at four per peer: no growth, the same results
# shellcheck disable=SC2086
check busy_four_records 0 '' env CLNETSIM_TEST_KADEMLIA_RECORDS=4 "$bin" run "$small" -d 0 -q \
    $busy_s --json "$tmp/v.json"
same busy_four_records "$tmp/busy.json" "$tmp/v.json"
# the launches that grew the records (and ran again) are left out of the knob's measurements,
# and none is where the records never grow
expect busy_four_records_left_out grep -Eq '"steps_left_out": [1-9]' "$tmp/v.json"
# shellcheck disable=SC2086
check busy_many_records 0 '' env CLNETSIM_TEST_KADEMLIA_RECORDS=64 "$bin" run "$small" -d 0 -q \
    $busy_s --json "$tmp/v.json"
same busy_many_records "$tmp/busy.json" "$tmp/v.json"
expect busy_many_records_none_left_out grep -q '"steps_left_out": 0,' "$tmp/v.json"

# The summary: the bytes a peer takes on the devices, the JSON's device_bytes over the peers
# (two devices: each holds every table)
check summary_per_peer 0 '^per peer +[0-9]+ bytes on the devices \(at the peak\)$' "$bin" run \
    "$small" -d 0,1 -s kademlia.peers=1000 -s simulation.duration=1 --json "$tmp/v.json"
bytes=$(sed -n 's/^ *"device_bytes": \([0-9]*\),$/\1/p' "$tmp/v.json")
expect summary_per_peer_value grep -q "^per peer  *$(((bytes + 500) / 1000)) bytes" "$tmp/out"

# Churn over static tables (docs/models/kademlia.md, "Churn"): peers leave and come back, starts
# while offline do not happen, requests to an offline peer time out, a departure fails its
# peer's lookups. The oracle's results and rows: sessions of a few lookups, the least timeout
# (latency_max + latency_min) and one request in flight, periods shorter than a lookup (hundreds
# a peer); then the same on two devices with 5 partitions, windows per launch 1, 7 and jumping
# at every launch, and through a stop and resume on another device count.
S=1000000000 MS=1000000
churn_s="-s kademlia.peers=100 -s kademlia.lookup_gap_max=2 -s kademlia.targets=peers \
    -s kademlia.session_mean=5 -s kademlia.offline_mean=3 -s kademlia.rpc_timeout=1"
# shellcheck disable=SC2086
oracle_case churn "1 100 64 8 3 $((2 * S)) $((10 * MS)) $((100 * MS)) $((20 * S)) peers \
    --churn $((5 * S)) $((3 * S)) $S" $churn_s
expect churn_fails grep -Eq '"lookups_failed": [1-9][0-9]{2},' "$tmp/churn.json"
expect churn_offline_at_end grep -Eq '"peers_alive": [1-9][0-9],' "$tmp/churn.json"
expect churn_rows_failed grep -q ',failed,' "$tmp/churn.csv"
oracle_case churn_tight "13 40 64 2 1 $S $((10 * MS)) $((10 * MS)) $((10 * S)) peers \
    --churn $S $((4 * S)) $((20 * MS))" -s simulation.seed=13 -s kademlia.peers=40 \
    -s kademlia.bucket_size=2 -s kademlia.alpha=1 -s kademlia.lookup_gap_max=1 \
    -s kademlia.latency_max=0.01 -s simulation.duration=10 -s kademlia.targets=peers \
    -s kademlia.session_mean=1 -s kademlia.offline_mean=4 -s kademlia.rpc_timeout=0.02
oracle_case churn_short "15 30 33 3 3 $((100 * MS)) $MS $((3 * MS)) $((S / 2)) random \
    --churn $((2 * MS)) $((2 * MS)) $((4 * MS))" -s simulation.seed=15 -s kademlia.peers=30 \
    -s kademlia.id_bits=33 -s kademlia.bucket_size=3 -s kademlia.lookup_gap_max=0.1 \
    -s kademlia.latency_min=0.001 -s kademlia.latency_max=0.003 -s simulation.duration=0.5 \
    -s kademlia.session_mean=0.002 -s kademlia.rpc_timeout=0.004
# gaps far shorter than a lookup and timeouts longer (the busy case with churn): many lookups
# open at once, their records growing
# shellcheck disable=SC2086
oracle_case churn_busy "$busy --churn $((S / 2)) $((3 * S / 10)) $((S / 4))" $busy_s \
    -s kademlia.session_mean=0.5 -s kademlia.offline_mean=0.3 -s kademlia.rpc_timeout=0.25
for v in "-d 0,1 -s partition.count=5" "-d 0 -s kademlia.windows_per_launch=1" \
         "-d 0 -s kademlia.windows_per_launch=7"; do
    name="churn_$(echo "$v" | tr -c 'a-z0-9\n' _)"
    # shellcheck disable=SC2086
    check "$name" 0 '' "$bin" run "$small" -q $v $churn_s --json "$tmp/v.json"
    same "$name" "$tmp/churn.o.json" "$tmp/v.json"
done
# shellcheck disable=SC2086
check churn_walk 0 '' env CLNETSIM_TEST_GRANULARITY=walk "$bin" run "$small" -d 0 -q $churn_s \
    --json "$tmp/v.json"
same churn_walk "$tmp/churn.o.json" "$tmp/v.json"
# shellcheck disable=SC2086
check churn_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@40 "$bin" run "$small" -d 0 -q $churn_s \
    -s kademlia.windows_per_launch=5 --checkpoint "$tmp/churn.ckpt"
check churn_resumed 0 '' "$bin" resume "$tmp/churn.ckpt" -d 0,1 -q --json "$tmp/v.json"
same churn_resumed "$tmp/churn.o.json" "$tmp/v.json"
check churn_timeout_short 2 'rpc_timeout = 0.1 s with latency_max = 0.1 s and latency_min = 0.01 s: expected rpc_timeout >= latency_max \+ latency_min' \
    "$bin" run "$small" -q -s kademlia.session_mean=10 -s kademlia.rpc_timeout=0.1

# What the model refuses, in one sentence, before any output is written.
check packets_refused 2 '^clnetsim: error: --packets: the kademlia model.s per-item rows are --lookups' \
    "$bin" run "$small" -q --packets "$tmp/p.csv"
expect packets_refused_no_file test ! -e "$tmp/p.csv"
check lookups_refused_by_phold 2 '^clnetsim: error: --lookups: the phold model writes no per-item rows' \
    "$bin" run "$src/scenarios/small_phold.ini" -q --lookups "$tmp/p.csv"
check alpha_above_k 2 'alpha = 9 with bucket_size = 8: expected alpha <= bucket_size' \
    "$bin" run "$small" -q -s kademlia.alpha=9
check latency_span 2 'latency_min = 0.01 s and latency_max = 5 s: expected latency_min <= latency_max <= latency_min \+ 4.294967295 s' \
    "$bin" run "$small" -q -s kademlia.latency_max=5
check latency_order 2 'latency_min = 0.2 s and latency_max = 0.1 s' \
    "$bin" run "$small" -q -s kademlia.latency_min=0.2
check no_duration 2 'the kademlia model needs a duration > 0' \
    "$bin" run "$small" -q -s simulation.duration=0
check one_peer 2 'kademlia.*peers' "$bin" run "$small" -q -s kademlia.peers=1
check bits_61 2 'id_bits' "$bin" run "$small" -q -s kademlia.id_bits=161
check too_large 2 "the kademlia model needs [0-9]+ bytes on device '.*'" \
    "$bin" run "$small" -d 0 -q -s kademlia.peers=2147483647 -s kademlia.bucket_size=64 \
    --json "$tmp/big.json"
expect too_large_no_json test ! -e "$tmp/big.json"

# tools/bench_kademlia_granularity.sh on a small overlay (the grid's three d_max, W fixed at
# 1000 and chosen by the run, one round; each cell's contracts compared inside), and
# tools/plot_granularity.py on its lines: the table's rows and a PNG; bad lines refused
check granularity_bench 0 '' sh "$src/tools/bench_kademlia_granularity.sh" "$bin" \
    "$tmp/gran.txt" 64 "0 1000" 1 0
expect granularity_bench_lines [ "$(grep -vc '^#' "$tmp/gran.txt")" -eq 6 ]
expect granularity_bench_chosen [ "$(awk '$3 == 0 && $7 > 1000' "$tmp/gran.txt" | wc -l)" -ge 1 ]
check granularity_plot 0 '\| 64 \| 600 s \| 1000 \|' /usr/bin/python3 \
    "$src/tools/plot_granularity.py" "$tmp/gran.txt" --out "$tmp/gran.png"
expect granularity_plot_png [ "$(head -c 4 "$tmp/gran.png" | od -An -c | tr -d ' ')" = '211PNG' ]
printf '64 10 0 1 0 5 1000 0\n' > "$tmp/bad.txt"
check granularity_plot_bad 1 'bad.txt:1: wall_s must be > 0' /usr/bin/python3 \
    "$src/tools/plot_granularity.py" "$tmp/bad.txt" --out "$tmp/x.png"
check granularity_bench_usage 2 'usage: .* CLNETSIM OUT.txt' \
    sh "$src/tools/bench_kademlia_granularity.sh" "$bin"

finish kademlia
