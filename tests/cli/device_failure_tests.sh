#!/bin/sh
# Failing devices (docs/when-things-go-wrong.md, "Failing devices"): a scenario too large for
# a device is refused before anything is allocated (exit 2); a kernel build, an allocation, a
# launch or a device lost during the run ends it with one sentence naming the device and the
# call (exit 1) and no output file; with [devices] on_failure = continue and another device
# left, the run goes on without the failed one, with the results of a run that never had it.
# The failures are made by the test hooks CLNETSIM_TEST_FAIL and CLNETSIM_TEST_DEVICE_MEMORY.
# Usage: device_failure_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 cmp=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"

one="pthread" two="pthread pthread"
# The static policy keeps each chunk of whole packets (and each partition) on the device it
# starts on, so that device 1 surely runs one in the window a failure is asked for; results
# never depend on the policy.
grid="$scn/small_grid.ini -s traffic.packets=200 -s inject.policy=static"  # whole packets, 13 rounds
mobile="$scn/small_mobile.ini -s partition.count=2 -s inject.policy=static"  # a partition per device
dev="device '[^']+'"
mkdir "$tmp/w"
no_outputs() { # NAME: nothing left in $tmp/w
    if [ -n "$(ls -A "$tmp/w")" ]; then
        echo "FAIL $1: files left: $(ls -A "$tmp/w")"; fail=$((fail + 1)); rm -f "$tmp/w"/*
    else
        pass=$((pass + 1))
    fi
}
member() { # FILE NAME: the value of a top-level numeric member
    grep -o "\"$2\": -\{0,1\}[0-9]*" "$1" | head -1 | grep -o -- '-\{0,1\}[0-9]*$'
}
run1() { env POCL_DEVICES="$one" "$bin" run -d 0 "$@"; }

# References: every scenario on one device, without failures.
check ref_grid 0 '' run1 $grid -q --json "$tmp/grid.json"
check ref_mobile 0 '' run1 $mobile -q --json "$tmp/mobile.json"
check ref_flows 0 '' run1 "$scn/small_flows.ini" -q --json "$tmp/flows.json" --packets "$tmp/flows.csv"

# ---- one device: each failure ends the run, exit 1, nothing written ----
check build_fails 1 "building the OpenCL program [^ ]+ failed on $dev: CL_BUILD_PROGRAM_FAILURE \(-11\)" \
    env CLNETSIM_TEST_FAIL=build@0 POCL_DEVICES="$one" "$bin" run -d 0 $grid -q --json "$tmp/w/r.json"
no_outputs build_fails
check alloc_fails 1 "clCreateBuffer\([a-z -]+, [0-9]+ bytes\) failed on $dev: CL_MEM_OBJECT_ALLOCATION_FAILURE \(-4\)" \
    env CLNETSIM_TEST_FAIL=alloc@0:5 POCL_DEVICES="$one" "$bin" run -d 0 $grid -q --json "$tmp/w/r.json"
no_outputs alloc_fails
# from one slot, the slots double in the first windows: the 38th allocation is a slot table
# of 8 slots (the set-up made it for one), during the window loop
check alloc_in_run 1 "clCreateBuffer\(slot packets, 32 bytes\) failed on $dev: CL_MEM_OBJECT_ALLOCATION_FAILURE" \
    env CLNETSIM_TEST_FAIL=alloc@0:38 CLNETSIM_TEST_SLOTS=1 POCL_DEVICES="$one" "$bin" run -d 0 $mobile -q --json "$tmp/w/r.json"
no_outputs alloc_in_run
check enqueue_whole 1 "clEnqueueNDRangeKernel\(flood\.packets, [0-9]+ work-items\) failed on $dev: CL_OUT_OF_RESOURCES \(-5\)" \
    env CLNETSIM_TEST_FAIL=enqueue@0:3 POCL_DEVICES="$one" "$bin" run -d 0 $grid -q --json "$tmp/w/r.json"
no_outputs enqueue_whole
check enqueue_window 1 "clEnqueueNDRangeKernel\([a-z_.]+, [0-9]+ work-items\) failed on $dev: CL_OUT_OF_RESOURCES \(-5\)" \
    env CLNETSIM_TEST_FAIL=enqueue@0:6 POCL_DEVICES="$one" "$bin" run -d 0 $mobile -q --json "$tmp/w/r.json" \
    --packets "$tmp/w/p.csv"
no_outputs enqueue_window
check lost_whole 1 "clEnqueueReadBuffer failed on $dev: CL_DEVICE_NOT_AVAILABLE \(-2\)" \
    env CLNETSIM_TEST_FAIL=lost@0:2 POCL_DEVICES="$one" "$bin" run -d 0 $grid -q --json "$tmp/w/r.json"
no_outputs lost_whole

# ---- memory: refused before anything is allocated, exit 2 ----
check memory_total 2 "grid_flood\.ini needs about [0-9.]+ MiB on $dev \(largest buffer [0-9.]+ [KM]iB: the [a-z -]+\), which has 4\.0 MiB of global memory and allows 4\.0 MiB per allocation" \
    env CLNETSIM_TEST_DEVICE_MEMORY=4M POCL_DEVICES="$one" "$bin" run -d 0 "$scn/grid_flood.ini" -q --json "$tmp/w/r.json"
no_outputs memory_total
check memory_buffer 2 "grid_flood\.ini needs one buffer of about 30\.5 MiB for the positions on $dev, which allows 1\.0 MiB per allocation" \
    env CLNETSIM_TEST_DEVICE_MEMORY=1G,1M POCL_DEVICES="$one" "$bin" run -d 0 "$scn/grid_flood.ini" -q \
    -s topology.rows=1000 -s topology.cols=1000 --json "$tmp/w/r.json"
no_outputs memory_buffer
# The estimate is an upper bound of what the window loop allocates: a device reporting one
# byte less than a run's peak is refused, and one reporting the default memory is not.
for case in "small_mobile" "small_grid" "small_flows" "small_qudg" "small_max_neighbors"; do
    check "peak_$case" 0 '' env CLNETSIM_TEST_WHOLE_PACKETS=0 POCL_DEVICES="$one" \
        "$bin" run -d 0 "$scn/$case.ini" -q --json "$tmp/peak.json"
    peak=$(member "$tmp/peak.json" device_bytes)
    check "below_peak_$case" 2 "needs about .* which has [0-9.]+ KiB of global memory" \
        env CLNETSIM_TEST_DEVICE_MEMORY=$((peak - 1)) CLNETSIM_TEST_WHOLE_PACKETS=0 \
        POCL_DEVICES="$one" "$bin" run -d 0 "$scn/$case.ini" -q
done

# ---- two devices, on_failure = stop (the default): the run ends, nothing written ----
check stop_whole 1 "clEnqueueNDRangeKernel\(flood\.packets, [0-9]+ work-items\) failed on $dev: CL_OUT_OF_RESOURCES" \
    env CLNETSIM_TEST_FAIL=enqueue@1:2 POCL_DEVICES="$two" "$bin" run -d 0,1 $grid -q --json "$tmp/w/r.json"
no_outputs stop_whole
check stop_window 1 "failed on $dev: CL_OUT_OF_RESOURCES" \
    env CLNETSIM_TEST_FAIL=enqueue@1:5 POCL_DEVICES="$two" "$bin" run -d 0,1 $mobile -q --json "$tmp/w/r.json"
no_outputs stop_window
check stop_build 1 "building the OpenCL program [^ ]+ failed on $dev" \
    env CLNETSIM_TEST_FAIL=build@1 POCL_DEVICES="$two" "$bin" run -d 0,1 $grid -q --json "$tmp/w/r.json"
no_outputs stop_build

# ---- two devices, on_failure = continue: the same results as one device ----
go="-s devices.on_failure=continue"
# whole packets: device 1's launch of round 2 fails; its chunk runs on device 0
check continue_enqueue 0 "warning: device 1 '[^']+' failed in window 2 and is left out; the run goes on on the others: clEnqueueNDRangeKernel\(flood\.packets" \
    env CLNETSIM_TEST_FAIL=enqueue@1:2 POCL_DEVICES="$two" "$bin" run -d 0,1 $grid $go -q --json "$tmp/c.json"
expect continue_enqueue_in_place sh -c "! grep -q 'starts again' '$tmp/out'"
check continue_enqueue_same 0 '' "$cmp" "$tmp/grid.json" "$tmp/c.json"
expect continue_enqueue_marked grep -q '"failed": true, "error": "clEnqueueNDRangeKernel(flood.packets' "$tmp/c.json"
expect continue_enqueue_one_marked test "$(grep -c '"failed": true' "$tmp/c.json")" = 1
# device 1 vanishes while it runs round 4: what it ran of the round is run again on device 0
check continue_lost 0 "device 1 '[^']+' failed in window 4 and is left out.*clEnqueueReadBuffer failed" \
    env CLNETSIM_TEST_FAIL=lost@1:4 POCL_DEVICES="$two" "$bin" run -d 0,1 $grid $go -q --json "$tmp/c.json"
expect continue_lost_in_place sh -c "! grep -q 'starts again' '$tmp/out'"
check continue_lost_same 0 '' "$cmp" "$tmp/grid.json" "$tmp/c.json"
# the same with traffic flows: the flows and every packet's row
check continue_flows 0 "failed in window 1 and is left out.*clEnqueueReadBuffer failed" \
    env CLNETSIM_TEST_FAIL=lost@1:1 POCL_DEVICES="$two" "$bin" run -d 0,1 "$scn/small_flows.ini" $go \
    -s inject.policy=static -q \
    --json "$tmp/c.json" --packets "$tmp/c.csv"
expect continue_flows_in_place sh -c "! grep -q 'starts again' '$tmp/out'"
check continue_flows_same 0 '' "$cmp" "$tmp/flows.json" "$tmp/c.json"
expect continue_flows_rows cmp -s "$tmp/flows.csv" "$tmp/c.csv"
# device 0 fails instead: device 1 takes over
check continue_first 0 "device 0 '[^']+' failed in window 0" \
    env CLNETSIM_TEST_FAIL=enqueue@0:0 POCL_DEVICES="$two" "$bin" run -d 0,1 $grid $go -q --json "$tmp/c.json"
check continue_first_same 0 '' "$cmp" "$tmp/grid.json" "$tmp/c.json"
# a build failure at set-up: device 1 is left out with a warning
check continue_build 0 "warning: device 1 '[^']+' failed at set-up and is left out: building the OpenCL program" \
    env CLNETSIM_TEST_FAIL=build@1 POCL_DEVICES="$two" "$bin" run -d 0,1 $grid $go --json "$tmp/c.json"
expect continue_build_summary grep -q 'failed and left out: building the OpenCL program' "$tmp/out"
check continue_build_same 0 '' "$cmp" "$tmp/grid.json" "$tmp/c.json"
# an allocation of the model's set-up fails on device 1
check continue_alloc 0 "device 1 '[^']+' failed at set-up and is left out: clCreateBuffer" \
    env CLNETSIM_TEST_FAIL=alloc@1:3 POCL_DEVICES="$two" "$bin" run -d 0,1 $mobile $go -q --json "$tmp/c.json"
check continue_alloc_same 0 '' "$cmp" "$tmp/mobile.json" "$tmp/c.json"
# the window loop: device 1's partition is lost with it, so the run starts again on device 0
check continue_window 0 "device 1 '[^']+' failed in window 5, and the state it held exists nowhere else, so the run starts again without it" \
    env CLNETSIM_TEST_FAIL=enqueue@1:5 POCL_DEVICES="$two" "$bin" run -d 0,1 $mobile $go -q --json "$tmp/c.json"
check continue_window_same 0 '' "$cmp" "$tmp/mobile.json" "$tmp/c.json"
check continue_window_lost 0 "failed in window 7, and the state" \
    env CLNETSIM_TEST_FAIL=lost@1:7 POCL_DEVICES="$two" "$bin" run -d 0,1 $mobile $go -q --json "$tmp/c.json"
check continue_window_lost_same 0 '' "$cmp" "$tmp/mobile.json" "$tmp/c.json"
# when every device fails there is nothing to go on with
check continue_none_left 1 "clnetsim: error: clEnqueueNDRangeKernel\(flood\.packets" \
    env CLNETSIM_TEST_FAIL=enqueue@0:1,enqueue@1:1 POCL_DEVICES="$two" "$bin" run -d 0,1 $grid $go -q \
    --json "$tmp/w/r.json"
no_outputs continue_none_left
finish device_failure
