#!/bin/sh
# Work-group sizes and local memory, on PoCL with the hook CLNETSIM_TEST_LOCAL_MEMORY=SIZE,
# which makes the device report that little local memory (as oclgrind's 32 KiB device, or a
# small GPU, would): sizes are chosen to fit it (--work-group's and the tuner's candidates
# included, so that first-use tuning skips what does not fit and completes), results do not
# change, and a launch that cannot fit at any size fails with one sentence naming the kernel,
# the device and the limit.
# Usage: local_memory_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 cmp=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"
export POCL_DEVICES=pthread
unset CLNETSIM_TEST_SKEW_DEVICE CLNETSIM_TEST_PROFILE_ENTRIES CLNETSIM_NO_TUNE \
    CLNETSIM_TEST_LOCAL_BITS CLNETSIM_TEST_FAIL CLNETSIM_TEST_LOCAL_MEMORY

# the reference: whole packets, and the window loop (two partitions)
CLNETSIM_NO_TUNE=1 "$bin" run "$scn/small_grid.ini" -q --json "$tmp/ref.json"
CLNETSIM_NO_TUNE=1 "$bin" run "$scn/small_grid.ini" -q -s partition.count=2 \
    --json "$tmp/ref2.json"

# First use with 12 KiB: flood_packets' global-bits shape needs 8 KiB for its levels plus
# 24 bytes a work-item, so sizes above 128 do not fit; the search skips them (a "-" in the
# table) and completes, and the run's counters are the reference's.
check small_first_use 0 'measuring work-group sizes on device 0' \
    env XDG_CACHE_HOME="$tmp/c" CLNETSIM_TEST_PROFILE_ENTRIES=0 CLNETSIM_TEST_LOCAL_MEMORY=12K \
    "$bin" run "$scn/small_grid.ini" --json "$tmp/first.json"
check small_first_use_counters 0 '' "$cmp" "$tmp/first.json" "$tmp/ref.json"
check small_tune_skips 0 'flood\.packets +([0-9.]+ +){6}(- +){3}' \
    env XDG_CACHE_HOME="$tmp/c" CLNETSIM_TEST_PROFILE_ENTRIES=0 CLNETSIM_TEST_LOCAL_MEMORY=12K \
    "$bin" tune --devices 0 -r 1 -q
check small_tuned_run 0 '' \
    env XDG_CACHE_HOME="$tmp/c" CLNETSIM_TEST_PROFILE_ENTRIES=0 CLNETSIM_TEST_LOCAL_MEMORY=12K \
    "$bin" run "$scn/small_grid.ini" -q -s partition.count=2 --json "$tmp/tuned2.json"
check small_tuned_counters 0 '' "$cmp" "$tmp/tuned2.json" "$tmp/ref2.json"

# --work-group 1024 with 2 KiB: each kernel takes the largest size that fits (transmit: 12
# bytes and 48 a work-item; scan_blocks: 4 a work-item), the others keep 1024.
check small_work_group 0 ' cells\.scan_blocks=512 .* flood\.transmit=32$' \
    env CLNETSIM_NO_TUNE=1 CLNETSIM_TEST_LOCAL_MEMORY=2K \
    "$bin" bench "$scn/small_grid.ini" --devices 0 -r 1 -q --work-group 1024 \
    -s partition.count=2
CLNETSIM_NO_TUNE=1 CLNETSIM_TEST_LOCAL_MEMORY=2K "$bin" run "$scn/small_grid.ini" -q \
    --work-group 1024 -s partition.count=2 --json "$tmp/wg.json"
check small_work_group_counters 0 '' "$cmp" "$tmp/wg.json" "$tmp/ref2.json"

# 32 bytes: transmit needs 60 even with work-groups of 1, and the run stops before the launch.
check too_small 1 "^clnetsim: error: kernel flood\.transmit needs 60 bytes of local memory with work-groups of 1, more than the 32 of device '[^']+' \(CL_DEVICE_LOCAL_MEM_SIZE\)" \
    env CLNETSIM_NO_TUNE=1 CLNETSIM_TEST_LOCAL_MEMORY=32 \
    "$bin" run "$scn/small_grid.ini" -q -s partition.count=2 --json "$tmp/never.json"
expect too_small_no_output [ ! -e "$tmp/never.json" ]
finish local_memory
