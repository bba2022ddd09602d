#!/bin/sh
# PHOLD against its oracle and against itself. Usage: phold_tests.sh CLNETSIM JSON_COMPARE
# PHOLD_ORACLE SOURCE_DIR (POCL_DEVICES gives two CPU devices).
bin=$1 cmp=$2 oracle=$3 src=$4
small=$src/scenarios/small_phold.ini
. "$src/tests/common/check.sh"

# oracle_case NAME OVERRIDES...: the simulator on the first device equals the oracle
# (check sets $name: the case has a name of its own)
oracle_case() {
    case_name=$1
    shift
    check "${case_name}_oracle_runs" 0 '' "$oracle" "$small" "$@" --json "$tmp/$case_name.oracle.json"
    check "${case_name}_runs" 0 '' "$bin" run "$small" -d 0 -q "$@" --json "$tmp/$case_name.json"
    same "${case_name}_equals_oracle" "$tmp/$case_name.oracle.json" "$tmp/$case_name.json"
}

oracle_case small
# mean = 0: every delay is the lookahead, so LPs hold many events of one time and only the
# key order (t, origin, serial) decides which runs first
oracle_case ties -s phold.mean=0 -s phold.lps=50 -s phold.remote=0.5 -s simulation.duration=3
oracle_case local_only -s phold.remote=0 -s simulation.duration=5
oracle_case remote_only -s phold.remote=1 -s simulation.duration=5
oracle_case one_lp -s phold.lps=1 -s phold.population=5 -s phold.remote=1
oracle_case two_lps -s phold.lps=2 -s phold.remote=1 -s phold.mean=0.05 -s simulation.duration=4
oracle_case odd_sizes -s phold.lps=997 -s phold.population=3 -s phold.lookahead=0.013 \
    -s phold.mean=0.25 -s simulation.duration=2.5 -s simulation.seed=0xfeedfacecafe

grep -q '"remote": 0,' "$tmp/local_only.json" || { echo "FAIL local_only: remote events"; fail=$((fail + 1)); }

# Long means: CPU devices read delays from a compact table (64-bit bases of blocks of 64
# entries, 32-bit offsets), and a block whose offsets pass 32 bits from the full table: the
# last block at the default mean, the last 2% at 100 s, every block at 10^6 s.
oracle_case long_mean -s phold.mean=100 -s simulation.duration=300
oracle_case huge_mean -s phold.mean=1000000 -s simulation.duration=100000
expect huge_mean_ran grep -Eq '"events": [1-9][0-9]{2}' "$tmp/huge_mean.json"

# CPU devices run phold_execute_cpu; CLNETSIM_TEST_PHOLD_EXECUTE=general keeps phold_execute,
# the execution of the other devices, so that the tests reach it too: equal to the oracle,
# with ties, full slots and a full outbox, on two devices.
general=CLNETSIM_TEST_PHOLD_EXECUTE=general
check general_small 0 '' env $general "$bin" run "$small" -d 0 -q --json "$tmp/g.json"
same general_small_equals_oracle "$tmp/small.oracle.json" "$tmp/g.json"
check general_ties 0 '' env $general "$bin" run "$small" -d 0 -q -s phold.mean=0 -s phold.lps=50 \
    -s phold.remote=0.5 -s simulation.duration=3 --json "$tmp/g.json"
same general_ties_equals_oracle "$tmp/ties.oracle.json" "$tmp/g.json"
check general_growth 0 '' env $general CLNETSIM_TEST_PHOLD_SLOTS=1 CLNETSIM_TEST_PHOLD_OUTBOX=5 \
    "$bin" run "$small" -d 0,1 -q -s inject.policy=advanced -s partition.count=9 --json "$tmp/g.json"
same general_growth_equals_oracle "$tmp/small.oracle.json" "$tmp/g.json"

# The same results on any partition count and work-group size, and through the growth paths:
# slots that start at the population (every arrival overflows), an outbox of 3 records.
base=$tmp/small.json
for v in "partition.count=1" "partition.count=7" "partition.count=1000"; do
    check "partitions_$v" 0 '' "$bin" run "$small" -d 0 -q -s "$v" --json "$tmp/v.json"
    same "partitions_$v" "$base" "$tmp/v.json"
done
for wg in 1 64; do
    check "work_group_$wg" 0 '' "$bin" run "$small" -d 0 -q --work-group $wg --json "$tmp/v.json"
    same "work_group_$wg" "$base" "$tmp/v.json"
done
check slot_growth 0 '' env CLNETSIM_TEST_PHOLD_SLOTS=1 "$bin" run "$small" -d 0 -q --json "$tmp/v.json"
same slot_growth "$base" "$tmp/v.json"
check outbox_growth 0 '' env CLNETSIM_TEST_PHOLD_OUTBOX=3 "$bin" run "$small" -d 0 -q --json "$tmp/v.json"
same outbox_growth "$base" "$tmp/v.json"

# Windows per read-back (phold.windows_per_read): one device runs several windows before the
# host reads back, finding each next window's begin itself. The chain stops where the host is
# needed, here often: slots that start at the population and an outbox of 3 records fill at
# once, in 3 partitions (a short last one), with either execution (2nd and 4th: phold_execute
# on these CPU devices); the last step stops at the duration. The oracle's results and the same windows for every value, for the run's
# choice (the default) and for a value that jumps at every step (walk).
windows=$(grep -o '"windows": [0-9]*' "$base")
grow="CLNETSIM_TEST_PHOLD_SLOTS=1 CLNETSIM_TEST_PHOLD_OUTBOX=3"
for w in 1 2 7 64 1000; do
    k=0
    for how in "" "$general" "$grow" "$general $grow"; do
        k=$((k + 1))
        name="per_read_${w}_$k"
        # shellcheck disable=SC2086
        check "$name" 0 '' env $how "$bin" run "$small" -d 0 -q -s phold.windows_per_read=$w \
            -s partition.count=3 --json "$tmp/v.json"
        same "${name}_equals_oracle" "$tmp/small.oracle.json" "$tmp/v.json"
        expect "${name}_windows" grep -q "$windows" "$tmp/v.json"
    done
done
expect per_read_fixed grep -q '"knob": "phold.windows_per_read", "adaptive": false, "start": 1000' "$tmp/v.json"
# shellcheck disable=SC2086
check per_read_walk 0 '' env CLNETSIM_TEST_GRANULARITY=walk $grow "$bin" run "$small" -d 0 -q \
    --json "$tmp/v.json"
same per_read_walk_equals_oracle "$tmp/small.oracle.json" "$tmp/v.json"
expect per_read_walk_windows grep -q "$windows" "$tmp/v.json"
expect per_read_walk_moves grep -Eq '"adaptive": true, .*"moves": [1-9][0-9]' "$tmp/v.json"
# the run's choice, where it ends: most of the run in one step
expect per_read_auto grep -Eq '"knob": "phold.windows_per_read", "adaptive": true, "start": 1, "final": [1-9][0-9]' "$base"
# with two devices every window ends on the host: the run has no such knob
check per_read_two_devices 0 '' "$bin" run "$small" -d 0,1 -q -s phold.windows_per_read=7 \
    --json "$tmp/v.json"
same per_read_two_devices_same "$base" "$tmp/v.json"
expect per_read_two_devices_no_knob sh -c '! grep -q "\"granularity\"" "$1"' sh "$tmp/v.json"

# Two devices: records cross between them every window, partitions migrate under the
# policies that move them; the results never change.
for p in static rapid advanced hybrid; do
    check "two_devices_$p" 0 '' "$bin" run "$small" -d 0,1 -q -s inject.policy=$p --json "$tmp/v.json"
    same "two_devices_$p" "$base" "$tmp/v.json"
done
check two_devices_static_exchange 0 '' "$bin" run "$small" -d 0,1 -q -s inject.policy=static --json "$tmp/v.json"
expect two_devices_exchange_bytes grep -Eq '"exchanged_bytes": [1-9]' "$tmp/v.json"
check two_devices_growth 0 '' env CLNETSIM_TEST_PHOLD_SLOTS=1 CLNETSIM_TEST_PHOLD_OUTBOX=5 \
    "$bin" run "$small" -d 0,1 -q -s inject.policy=advanced -s partition.count=9 --json "$tmp/v.json"
same two_devices_growth "$base" "$tmp/v.json"

# Each device holds only the blocks of its own partitions: two devices together hold little
# more than one (their own delay tables and outboxes), where arrays for every LP on each
# device held twice as much.
mem="-s inject.policy=static -s phold.lps=100000 -s phold.population=4 -s simulation.duration=0.3"
# shellcheck disable=SC2086
check memory_one_device 0 '' "$bin" run "$small" -d 0 -q $mem --json "$tmp/m1.json"
# shellcheck disable=SC2086
check memory_two_devices 0 '' "$bin" run "$small" -d 0,1 -q $mem --json "$tmp/m2.json"
same memory_two_devices "$tmp/m1.json" "$tmp/m2.json"
bytes1=$(sed -n 's/^ *"device_bytes": \([0-9]*\),$/\1/p' "$tmp/m1.json")
bytes2=$(sed -n 's/^ *"device_bytes": \([0-9]*\),$/\1/p' "$tmp/m2.json")
expect memory_two_devices_shared test "$((bytes2 * 4))" -lt "$((bytes1 * 5))"

# Migration moves blocks between devices (into free blocks, or a new one), short last
# partitions and grown slots included: two devices under the hybrid policy equal the oracle.
mig="-s phold.lps=997 -s phold.population=3 -s phold.remote=0.5 -s partition.count=7"
# shellcheck disable=SC2086
check migration_oracle_runs 0 '' "$oracle" "$small" $mig --json "$tmp/mig.oracle.json"
for slots in 0 1; do
    # shellcheck disable=SC2086
    check "migration_hybrid_slots$slots" 0 '' env CLNETSIM_TEST_PHOLD_SLOTS=$slots "$bin" run \
        "$small" -d 0,1 -q -s inject.policy=hybrid $mig --json "$tmp/mig.json"
    same "migration_hybrid_slots${slots}_equals_oracle" "$tmp/mig.oracle.json" "$tmp/mig.json"
    expect "migration_hybrid_slots${slots}_migrates" grep -Eq '"migrations": [1-9]' "$tmp/mig.json"
done

# What the model refuses, in one sentence, before any output is written.
check no_packets 2 '^clnetsim: error: --packets: the phold model writes no per-item rows' \
    "$bin" run "$small" -q --packets "$tmp/p.csv"
expect no_packets_file test ! -e "$tmp/p.csv"
check too_large 2 "the phold model needs [0-9]+ bytes on device '.*' \(2147483647 LPs x 2097152 event slots" \
    "$bin" run "$small" -d 0 -q -s phold.lps=2147483647 -s phold.population=1048576 --json "$tmp/big.json"
expect too_large_no_json test ! -e "$tmp/big.json"

finish phold
