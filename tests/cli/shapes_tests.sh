#!/bin/sh
# The kernel-shape self-test on two PoCL devices (docs/user-guide.md, "The kernel-shape
# self-test"): a kernel built wrong on one device (CLNETSIM_TEST_BREAK_KERNEL) is caught before
# the run, its shape is not used there (one warning naming the device and the shape), and the
# run's counters still equal the sequential reference's; breaking every kernel refuses that
# device, and the run goes on the other one under on_failure = continue; `selftest` reports the
# failed shapes; the verdicts are cached.
# Usage: shapes_tests.sh CLNETSIM SOURCE_DIR ORACLE
bin=$1 src=$2 oracle=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread basic"
unset CLNETSIM_TEST_SKEW_DEVICE CLNETSIM_TEST_PROFILE_ENTRIES CLNETSIM_NO_TUNE CLNETSIM_NO_CACHE
# verdicts of this script's own: a cache shared with other tests could hold them already
export XDG_CACHE_HOME="$tmp/cache"

member() { grep -o "\"$2\": [0-9]*" "$1" | head -n 1 | sed 's/.*: //'; }
# the contract counters of run JSON $1 against the reference's JSON $2
same_counters() {
    for m in generated delivered transmissions receptions first_receptions hops_sum \
             latency_sum_ns end_time_ns windows; do
        [ -n "$(member "$2" $m)" ] && [ "$(member "$1" $m)" = "$(member "$2" $m)" ] || return 1
    done
}
"$oracle" "$scn/small_grid.ini" > "$tmp/want.json"
# the defect is real: built wrong, the kernel's counters differ (a scheme's kernel takes the
# other path, so this is flood.packets_one's alone at groups of one item)
grep -q '"first_receptions"' "$tmp/want.json" || echo "FAIL oracle output"

# flood.packets_one broken on device 1 (the hook counts devices by their place in the
# selection: 0 when it is the only one): caught, left out (the whole-packet kernel with seen
# bits in global memory runs instead), and the counters are the reference's.
brk=CLNETSIM_TEST_BREAK_KERNEL=flood.packets_one@1
alone=CLNETSIM_TEST_BREAK_KERNEL=flood.packets_one@0
warn="^clnetsim: warning: device 1 '[^']+' failed the self-test in shape flood\.packets_one at work-groups of 1: not used on this device$"
warn0="^clnetsim: warning: device 0 '[^']+' failed the self-test in shape flood\.packets_one at work-groups of 1: not used on this device$"
check one_broken_run 0 "$warn0" env $alone "$bin" run "$scn/small_grid.ini" --devices 1 \
    --work-group 1 -q --json "$tmp/one.json"
expect one_broken_warns_once [ "$(grep -c 'failed the self-test' "$tmp/out")" -eq 1 ]
expect one_broken_counters same_counters "$tmp/one.json" "$tmp/want.json"
expect one_broken_cached [ "$(ls "$tmp/cache/clnetsim" | grep -c '^shapes-.*\.ini$')" -ge 1 ]
expect one_broken_cache_names grep -q '^flood\.packets_one = 1$' "$tmp"/cache/clnetsim/shapes-*.ini
# from the cache: the same warning and results, and device 0 (not broken) warns of nothing
check one_broken_two_devices 0 "$warn" env $brk "$bin" run "$scn/small_grid.ini" -d 0,1 \
    --work-group 1 -q --json "$tmp/two.json"
expect one_broken_two_warns_once [ "$(grep -c 'failed the self-test' "$tmp/out")" -eq 1 ]
expect one_broken_two_counters same_counters "$tmp/two.json" "$tmp/want.json"
# and the tuned run (the profile's sizes: whole packets in groups of one on PoCL)
check one_broken_profile 0 "$warn0" env $alone "$bin" run "$scn/small_grid.ini" --devices 1 \
    -q --json "$tmp/p.json"
expect one_broken_profile_counters same_counters "$tmp/p.json" "$tmp/want.json"

# selftest names the failed shape (and reruns the test: no cache read)
check selftest_one_broken 0 "^PASS +1 .*shapes failed and left out: flood\.packets_one at 1$" \
    env $brk "$bin" selftest -q
expect selftest_one_other_clean grep -Eq '^PASS +0 .*every kernel shape \(21 runs at work-groups of 1 256 512\)$' "$tmp/out"

# every kernel broken on device 1: refused, in one sentence; the run goes on on device 0
# under on_failure = continue, and stops under stop
all=CLNETSIM_TEST_BREAK_KERNEL=all@1
refusal="device '[^']+' failed the self-test in every work-group size of [a-z_. (),]+ \(its results differ from the sequential reference's\); this device is refused"
check all_broken_continue 0 "failed at set-up and is left out: $refusal" env $all "$bin" run \
    "$scn/small_grid.ini" -d 0,1 -q -s devices.on_failure=continue --json "$tmp/c.json"
expect all_broken_counters same_counters "$tmp/c.json" "$tmp/want.json"
expect all_broken_json_failed grep -q '"failed": true' "$tmp/c.json"
check all_broken_stop 1 "^clnetsim: error: $refusal" env $all "$bin" run "$scn/small_grid.ini" \
    -d 0,1 -q --json "$tmp/s.json"
expect all_broken_stop_no_file [ ! -e "$tmp/s.json" ]
check selftest_all_broken 1 "^FAIL +1 .*every work-group size of .* differs from the sequential reference" \
    env $all "$bin" selftest -q
expect selftest_all_other_passes grep -Eq '^PASS +0 ' "$tmp/out"
finish shapes
