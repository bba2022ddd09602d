#!/bin/sh
# PHOLD's kernel-shape self-test and tuning (docs/models/adding-a-model.md, "The kernel-shape
# self-test and tuning"): a PHOLD run self-tests PHOLD's kernels once (the cases of
# host/models/phold/phold_shapes.c) and caches the verdicts under the model's name; a
# phold_results built wrong on a device (CLNETSIM_TEST_BREAK_KERNEL, in groups of more than one
# item) is caught, its bad shapes are named in a warning and in the cache and left out, and
# the run still equals the PHOLD oracle; `clnetsim tune` measures PHOLD's kernels and caches
# their sizes for a profile without entries.
# Usage: phold_shapes_tests.sh CLNETSIM SOURCE_DIR PHOLD_ORACLE JSON_COMPARE
bin=$1 src=$2 oracle=$3 cmp=$4
small=$src/scenarios/small_phold.ini
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread pthread"
unset CLNETSIM_TEST_SKEW_DEVICE CLNETSIM_TEST_PROFILE_ENTRIES CLNETSIM_NO_TUNE CLNETSIM_NO_CACHE
unset CLNETSIM_TEST_BREAK_KERNEL CLNETSIM_TEST_PHOLD_EXECUTE
export XDG_CACHE_HOME="$tmp/cache"
cache=$tmp/cache/clnetsim

"$oracle" "$small" --json "$tmp/want.json" || echo "FAIL phold oracle"

# a healthy device: tested once, the verdicts cached under the model's name, nothing bad
check phold_first_use 0 "self-testing every kernel shape of the phold model on device 0 .*work-groups of 256$" \
    "$bin" run "$small" -d 0 --json "$tmp/first.json"
expect phold_first_use_says_preparing grep -Eq '^clnetsim: preparing device 0 \(.*\) for the phold model, once: building its kernels \(a CPU device' "$tmp/out"
expect phold_first_use_equals_oracle "$cmp" "$tmp/want.json" "$tmp/first.json"
expect phold_cache_names_model grep -lq '^model = phold$' "$cache"/shapes-*.ini
expect phold_cache_no_bad [ -z "$(sed -n '/^\[bad\]$/,$p' "$cache"/shapes-*.ini | grep -v '^\[bad\]$' | grep -v '^;')" ]
check phold_second_use 0 '' "$bin" run "$small" -d 0 --json "$tmp/second.json"
expect phold_second_use_silent [ "$(grep -c 'self-testing\|preparing' "$tmp/out")" -eq 0 ]
# the flood's verdicts are its own: a flood run on the same cache tests the flood's kernels
check flood_after_phold 0 "self-testing every kernel shape of the flood model on device 0" \
    "$bin" run "$src/scenarios/small_grid.ini" -d 0 --json "$tmp/flood.json"

# phold_results built wrong on device 1 (groups of more than one item): caught at 256 and
# every size down to 2, moved to groups of one, and the run equals the oracle
brk=CLNETSIM_TEST_BREAK_KERNEL=phold.results@1
warn="^clnetsim: warning: device 1 '[^']+' failed the self-test in shape phold\.results at work-groups of 256, 128, 64, 32, 16, 8, 4, 2: not used on this device$"
check phold_broken_caught 0 "$warn" env $brk "$bin" run "$small" -d 0,1 -q --json "$tmp/broken.json"
expect phold_broken_equals_oracle "$cmp" "$tmp/want.json" "$tmp/broken.json"
expect phold_broken_cached grep -q '^phold\.results = 256 128 64 32 16 8 4 2$' "$cache"/shapes-*.ini
# the same from the cache
check phold_broken_from_cache 0 "$warn" env $brk "$bin" run "$small" -d 0,1 -q --json "$tmp/broken2.json"
expect phold_broken_from_cache_silent [ "$(grep -c 'self-testing' "$tmp/out")" -eq 0 ]
expect phold_broken_from_cache_equals_oracle "$cmp" "$tmp/want.json" "$tmp/broken2.json"

# tune: PHOLD's kernels measured, and their sizes cached for a profile without entries (the
# hook hides the profile's entries)
check tune_phold_table 0 'phold\.execute +([0-9.]+ +){9}' \
    env CLNETSIM_TEST_PROFILE_ENTRIES=0 "$bin" tune --devices 0 -r 1 -q
expect tune_phold_table_title grep -q "^device 0: .*, the phold model's kernels$" "$tmp/out"
expect tune_phold_sizes_cached grep -Eq '^phold\.execute = [0-9]+$' "$cache"/tune-*.ini
expect tune_models_cached grep -q '^models = flood phold$' "$cache"/tune-*.ini
# a first PHOLD run after the search measures nothing, and still equals the oracle
check tuned_phold_run 0 '' env CLNETSIM_TEST_PROFILE_ENTRIES=0 "$bin" run "$small" -d 0 --json "$tmp/tuned.json"
expect tuned_phold_run_silent [ "$(grep -c measuring "$tmp/out")" -eq 0 ]
expect tuned_phold_equals_oracle "$cmp" "$tmp/want.json" "$tmp/tuned.json"
finish phold_shapes
