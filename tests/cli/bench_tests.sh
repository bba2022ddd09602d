#!/bin/sh
# `clnetsim bench` and `clnetsim selftest` on two PoCL devices: tables, result files whose
# counters equal those of `clnetsim run`, --sizes, --compare, the built-in reference set, the
# determinism check (a skewed device must be reported), self-test verdicts, tune and its
# cache, bad input; PHOLD cases: the declared contract members, events, device memory per LP
# and per pending event, sizes as LP counts, and the PHOLD scenarios of the self-test.
# Usage: bench_tests.sh CLNETSIM SOURCE_DIR
bin=$1 src=$2
scn=$src/scenarios
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread basic"
unset CLNETSIM_TEST_SKEW_DEVICE CLNETSIM_TEST_PROFILE_ENTRIES CLNETSIM_NO_TUNE

# member VALUE of the first "NAME": VALUE in FILE (the bench JSON puts a device per line)
member() { grep -o "\"$2\": [0-9.]*" "$1" | head -n "${3:-1}" | tail -n 1 | sed 's/.*: //'; }

check bench_help 0 'usage: clnetsim bench' "$bin" bench --help
check selftest_help 0 'usage: clnetsim selftest' "$bin" selftest --help

# Two devices, two timed runs each: a table, files, counters equal to a plain run's.
check bench_two_devices 0 'identical on every device and run' \
    "$bin" bench "$scn/small_grid.ini" --devices 0,1 -r 2 -q --json "$tmp/b1.json" --csv "$tmp/b1.csv"
expect bench_table_rows [ "$(grep -Ec '^ +[01] +.*cpu +[0-9.]+ +[0-9.]+-[0-9.]+ ' "$tmp/out")" -eq 2 ]
"$bin" run "$scn/small_grid.ini" --devices 0 -q --json "$tmp/run.json"
for m in transmissions receptions first_receptions hops_sum latency_sum_ns end_time_ns windows; do
    want=$(member "$tmp/run.json" $m)
    expect "bench_contract_$m" [ -n "$want" -a "$(member "$tmp/b1.json" $m 1)" = "$want" \
        -a "$(member "$tmp/b1.json" $m 2)" = "$want" ]
done
expect bench_json_devices [ "$(grep -c '"failed": false' "$tmp/b1.json")" -eq 2 ]
expect bench_json_runs [ "$(grep -Ec '"runs": \[[0-9.]+, [0-9.]+\]' "$tmp/b1.json")" -eq 2 ]
expect bench_json_speedup [ "$(grep -c '"speedup": 1.0000' "$tmp/b1.json")" -ge 1 ]
expect bench_json_work_groups [ "$(grep -c '"work_groups": "[a-z_.]*=[0-9]' "$tmp/b1.json")" -eq 2 ]
expect bench_csv_rows [ "$(wc -l < "$tmp/b1.csv")" -eq 3 ]
expect bench_csv_header grep -q '^scenario,nodes,device_index,device,platform,type,runs,median_s' "$tmp/b1.csv"
expect bench_no_temporary [ -z "$(ls "$tmp" | grep '\.tmp\.')" ]

# Each device's time per window against its empty window (device_window_floor): the windows
# of a plain run, the median over them, a floor above the launch it contains.
check bench_per_window 0 '^ +[01]  25 windows, [0-9.]+ us each; an empty window [0-9.]+ us \(its launch [0-9.]+ us\)$' \
    "$bin" bench "$scn/small_mobile.ini" --devices 0,1 -r 1 -q --json "$tmp/w.json" --csv "$tmp/w.csv"
expect bench_per_window_both [ "$(grep -Ec '^ +[01]  25 windows, ' "$tmp/out")" -eq 2 ]
"$bin" run "$scn/small_mobile.ini" --devices 0 -q --json "$tmp/wrun.json"
expect bench_window_count [ "$(grep -o '"window_count": [0-9]*' "$tmp/w.json" | sort -u)" = \
    "\"window_count\": $(member "$tmp/wrun.json" windows)" ]
expect bench_per_window_json [ "$(grep -o '"median_s": [0-9.]*\|"window_count": [0-9]*\|"per_window_us": [0-9.]*' "$tmp/w.json" |
    sed 's/.*: //' | paste - - - | awk '$1 > 0 && $2 > 0 && ($1 * 1e6 / $2 - $3) ^ 2 < 0.01 { n++ } END { print n + 0 }')" -eq 2 ]
expect bench_floor_json [ "$(grep -o '"floor_window_us": [0-9.]*, "floor_launch_us": [0-9.]*' "$tmp/w.json" |
    sed 's/[^0-9. ]//g' | awk '$1 > 0 && $2 > 0 && $2 <= $1 { n++ } END { print n + 0 }')" -eq 2 ]
expect bench_floor_csv [ "$(grep -Ec ',25,[0-9.]+,[0-9.]+,[0-9.]+$' "$tmp/w.csv")" -eq 2 ]
expect bench_csv_header_floor grep -q ',window_count,per_window_us,floor_window_us,floor_launch_us$' "$tmp/w.csv"

# A device that disagrees is named, the run fails, and the file records it.
check bench_mismatch 1 'MISMATCH, devices 0 \(.*\) and 1 \(.*\) disagree: receptions: [0-9]+ vs [0-9]+' \
    env CLNETSIM_TEST_SKEW_DEVICE=1 "$bin" bench "$scn/small_grid.ini" -r 1 -q --json "$tmp/skew.json"
expect bench_mismatch_json grep -q '"agree": false, "mismatch": "devices 0' "$tmp/skew.json"

# PHOLD: the members the model declares (the "contract" list of a plain run's JSON), its
# executed events, and the device memory per LP and per pending event.
check bench_phold 0 'small_phold: 1000 LPs, 8 events each at the start, [0-9]+ events, 2 timed runs' \
    "$bin" bench "$scn/small_phold.ini" --devices 0,1 -r 2 -q --json "$tmp/p1.json" --csv "$tmp/p1.csv"
expect bench_phold_agree grep -q 'determinism contract: identical on every device and run' "$tmp/out"
expect bench_phold_table_rows [ "$(grep -Ec '^ +[01] +.*cpu +[0-9.]+ +[0-9.]+-[0-9.]+ +[0-9.e+]+ +[0-9.]+x +[0-9.]+ +[0-9.]+ +phold\.' "$tmp/out")" -eq 2 ]
"$bin" run "$scn/small_phold.ini" --devices 0 -q --json "$tmp/prun.json"
members=$(grep '"contract": \[' "$tmp/prun.json" | sed 's/.*\[//; s/\].*//; s/[",]//g')
expect bench_phold_declared [ "$(echo $members | wc -w)" -eq 11 ]
for m in $members; do
    [ "$m" = model ] && continue
    want=$(member "$tmp/prun.json" $m)
    expect "bench_phold_contract_$m" [ -n "$want" \
        -a "$(grep -o "\"contract\": {[^}]*\"$m\": [0-9]*" "$tmp/p1.json" | sed 's/.*: //' | sort -u)" = "$want" ]
done
expect bench_phold_contract_model [ "$(grep -c '"contract": {"model": "phold", "seed": 1, "lps": 1000' "$tmp/p1.json")" -eq 2 ]
expect bench_phold_no_flood_members [ "$(grep -c '"receptions"' "$tmp/p1.json")" -eq 0 ]
want=$(member "$tmp/prun.json" events)
expect bench_phold_events [ "$(grep -o '"events": [0-9]*, "events_per_s"' "$tmp/p1.json" | sort -u)" = \
    "\"events\": $want, \"events_per_s\"" ]
bytes=$(member "$tmp/prun.json" device_bytes)
per_lp=$(awk -v b="$bytes" 'BEGIN { printf "%.3f", b / 1000 }')
per_event=$(awk -v b="$bytes" 'BEGIN { printf "%.3f", b / 8000 }')
expect bench_phold_memory [ "$(grep -c "\"device_bytes\": $bytes, \"device_bytes_per_lp\": $per_lp, \"device_bytes_per_event\": $per_event," "$tmp/p1.json")" -eq 2 ]
expect bench_phold_case_sizes grep -q '"nodes": 1000, "lps": 1000, "population": 8, "overrides"' "$tmp/p1.json"
expect bench_phold_times [ "$(grep -Ec '"median_s": [0-9.]+, "min_s": [0-9.]+, "max_s": [0-9.]+, "runs": \[[0-9.]+, [0-9.]+\]' "$tmp/p1.json")" -eq 2 ]
expect bench_phold_csv [ "$(grep -c ",$bytes,$per_lp,$per_event,[0-9]*,[0-9.]*,[0-9.]*,[0-9.]*\$" "$tmp/p1.csv")" -eq 2 ]
check bench_phold_mismatch 1 'MISMATCH, devices 0 \(.*\) and 1 \(.*\) disagree: last_time_ns: [0-9]+ vs [0-9]+' \
    env CLNETSIM_TEST_SKEW_DEVICE=1 "$bin" bench "$scn/small_phold.ini" -r 1 -q
check bench_phold_sizes 0 'small_phold: 2048 LPs, 8 events each' \
    "$bin" bench "$scn/small_phold.ini" --devices 0 -r 1 --warmup 0 -q --sizes 100,2048 --json "$tmp/psizes.json"
expect bench_phold_sizes_overrides [ "$(grep -o '"lps": [0-9]*, "population": 8, "overrides": \[[^]]*\]' "$tmp/psizes.json" | tr -d '\n')" = \
    '"lps": 100, "population": 8, "overrides": ["phold.lps=100"]"lps": 2048, "population": 8, "overrides": ["phold.lps=2048"]' ]

# --compare: every device of every case gets its old and new median and the change.
check bench_compare 0 'against .*b1\.json' \
    "$bin" bench "$scn/small_grid.ini" -r 1 -q --compare "$tmp/b1.json"
expect bench_compare_rows [ "$(grep -Ec '^ +small_grid +400 +[01] .* [0-9.]+ +[0-9.]+ +[+-][0-9.]+%$' "$tmp/out")" -eq 2 ]
check bench_compare_new_case 0 'small_grid +100 +0 .* new case' \
    "$bin" bench "$scn/small_grid.ini" --devices 0 -r 1 -q --sizes 100 --compare "$tmp/b1.json"
check bench_compare_only_old 0 'small_grid +400 +only in' \
    "$bin" bench "$scn/small_grid.ini" --devices 0 -r 1 -q --sizes 100 --compare "$tmp/b1.json"
check bench_compare_not_bench 2 'run\.json. is not a bench result file' \
    "$bin" bench "$scn/small_grid.ini" -r 1 -q --compare "$tmp/run.json" --json "$tmp/never.json"
check bench_compare_missing 2 "cannot read the bench result file" \
    "$bin" bench "$scn/small_grid.ini" -r 1 -q --compare "$tmp/none.json" --json "$tmp/never.json"
printf '{"clnetsim_bench": 1, "cases": [' > "$tmp/cut.json"
check bench_compare_truncated 2 'cut\.json. is not a bench result file: unexpected end at byte 32' \
    "$bin" bench "$scn/small_grid.ini" -r 1 -q --compare "$tmp/cut.json"
expect bench_bad_compare_no_output [ ! -e "$tmp/never.json" ]

# --sizes: the node count of each case, at the scenario's density.
check bench_sizes_grid 0 'small_grid: 1024 nodes' \
    "$bin" bench "$scn/small_grid.ini" --devices 0 -r 1 -q --sizes 100,1k --json "$tmp/sizes.json"
expect bench_sizes_nodes [ "$(grep -o '"nodes": [0-9]*, "overrides"' "$tmp/sizes.json" | tr -d '\n')" = \
    '"nodes": 100, "overrides""nodes": 1024, "overrides"' ]
check bench_sizes_uniform 0 'topology\.nodes=600 -s topology\.width=565\.685 -s topology\.height=565\.685' \
    "$bin" bench "$scn/small_mobile.ini" --devices 0 -r 1 -q --sizes 600 --json "$tmp/sizes_u.json"
"$bin" run "$scn/small_mobile.ini" --devices 0 -q -s topology.nodes=600 -s topology.width=565.685 \
    -s topology.height=565.685 --json "$tmp/run_u.json"
want=$(member "$tmp/run_u.json" receptions)
expect bench_sizes_uniform_counters [ -n "$want" -a "$(member "$tmp/sizes_u.json" receptions)" = "$want" ]
# Activity areas: N / count nodes per area, as square as whole rows and columns allow.
check bench_sizes_areas 0 'topology\.rows=202 -s topology\.cols=250' \
    "$bin" bench "$scn/areas6.ini" --devices 0 -r 1 --warmup 0 -q --sizes 150,303000 \
    -s traffic.packets=2 --json "$tmp/sizes_a.json"
expect bench_sizes_areas_nodes [ "$(grep -o '"nodes": [0-9]*, "overrides": \[[^]]*\]' "$tmp/sizes_a.json" | tr -d '\n')" = \
    '"nodes": 150, "overrides": ["topology.rows=5", "topology.cols=5", "traffic.destination=-1"]"nodes": 303000, "overrides": ["topology.rows=202", "topology.cols=250", "traffic.destination=-1"]' ]
check bench_sizes_areas_not_multiple 2 "--sizes: 1000 nodes cannot be shared equally by the 6 areas of .*: expected a multiple of 6" \
    "$bin" bench "$scn/areas6.ini" --sizes 1000 --json "$tmp/never.json"
# The -s overrides of every case are part of what ran: the JSON records them, in order.
"$bin" bench "$scn/small_grid.ini" --devices 0 -r 1 --warmup 0 -q -s flood.ttl=3 \
    -s "connectivity.model=qudg" --json "$tmp/set.json" > /dev/null
expect bench_json_set grep -q '"set": \["flood.ttl=3", "connectivity.model=qudg"\]' "$tmp/set.json"
expect bench_json_set_empty grep -q '"set": \[\]' "$tmp/sizes.json"

# tools/plot_bench.py draws the sizes file; a file that is not a bench result is refused.
check plot_bench 0 'sizes-small_grid\.png' /usr/bin/python3 "$src/tools/plot_bench.py" "$tmp/sizes.json" --out "$tmp/sizes"
expect plot_bench_png [ "$(head -c 4 "$tmp/sizes-small_grid.png" | od -An -c | tr -d ' ')" = '211PNG' ]
check plot_bench_not_bench 1 'is not a clnetsim bench result file' /usr/bin/python3 "$src/tools/plot_bench.py" "$tmp/run.json" --out "$tmp/x"

# The PHOLD scaling sweep: one bench file per LP count (population 16), and its plot.
check phold_sweep 0 '2\^9 = 512 LPs' sh "$src/tools/bench_phold_scaling.sh" "$bin" "$tmp/sweep" \
    --from 8 --to 9 -r 1 -- --devices 0 --warmup 0 -q
expect phold_sweep_files [ "$(cd "$tmp/sweep" && ls | tr '\n' ' ')" = 'phold-lps-256.json phold-lps-512.json ' ]
expect phold_sweep_sizes [ "$(grep -ho '"lps": [0-9]*, "population": 16, "overrides": \[\]' "$tmp/sweep/"*.json | sort -t: -k2 -n | tr -d '\n')" = \
    '"lps": 256, "population": 16, "overrides": []"lps": 512, "population": 16, "overrides": []' ]
expect phold_sweep_set grep -q '"set": \["phold.lps=512", "phold.population=16"\]' "$tmp/sweep/phold-lps-512.json"
check phold_sweep_bad_range 2 'expected 0 <= --from <= --to <= 31, got 9 and 8' \
    sh "$src/tools/bench_phold_scaling.sh" "$bin" "$tmp/sweep" --from 9 --to 8
check plot_phold_scaling 0 'phold\.png' /usr/bin/python3 "$src/tools/plot_phold_scaling.py" \
    "$tmp/sweep/phold-lps-256.json" "$tmp/sweep/phold-lps-512.json" --out "$tmp/phold.png"
expect plot_phold_scaling_png [ "$(head -c 4 "$tmp/phold.png" | od -An -c | tr -d ' ')" = '211PNG' ]
check plot_phold_scaling_no_phold 1 'no PHOLD case in the files' \
    /usr/bin/python3 "$src/tools/plot_phold_scaling.py" "$tmp/sizes.json" --out "$tmp/x.png"
check plot_phold_scaling_not_bench 1 'is not a clnetsim bench result file' \
    /usr/bin/python3 "$src/tools/plot_phold_scaling.py" "$tmp/run.json" --out "$tmp/x.png"

# The built-in reference set: the files of scenarios/bench/, which are the reference scenarios.
check bench_builtin 0 'mobile_flood: 100 nodes' \
    "$bin" bench --devices 0 -r 1 --warmup 0 -q --sizes 100 --json "$tmp/builtin.json"
expect bench_builtin_paths [ "$(grep -c '"path": "(built in) bench/' "$tmp/builtin.json")" -eq 3 ]
expect bench_builtin_phold grep -q '"scenario": "phold", "path": "(built in) bench/phold.ini", "nodes": 100, "lps": 100, "population": 16' "$tmp/builtin.json"
"$bin" run "$scn/grid_flood.ini" --devices 0 -q -s topology.rows=10 -s topology.cols=10 --json "$tmp/run_g.json"
want=$(member "$tmp/run_g.json" receptions)
expect bench_builtin_counters [ -n "$want" -a "$(member "$tmp/builtin.json" receptions)" = "$want" ]
for s in grid_flood mobile_flood phold; do
    "$bin" run "$scn/$s.ini" --dump-config | grep -v '^;' > "$tmp/ref.ini"
    "$bin" run "$scn/bench/$s.ini" --dump-config | grep -v '^;' > "$tmp/bench.ini"
    expect "bench_set_equals_reference_$s" cmp -s "$tmp/ref.ini" "$tmp/bench.ini"
done

# Bad input: exit 2, one sentence, nothing written.
check bench_bad_repeat 2 "--repeat '0' must be a whole number" "$bin" bench "$scn/small_grid.ini" -r 0
check bench_bad_warmup 2 "--warmup '101'" "$bin" bench "$scn/small_grid.ini" --warmup 101
check bench_bad_sizes 2 "--sizes '1x': unexpected 'x'" "$bin" bench "$scn/small_grid.ini" --sizes 1x
check bench_fraction_size 2 "1\.5 is not a whole node count" "$bin" bench "$scn/small_grid.ini" --sizes 1.5
check bench_unknown_option 2 "unknown option '--bogus'" "$bin" bench --bogus
check bench_missing_scenario 2 'missing\.ini' "$bin" bench "$tmp/missing.ini" --json "$tmp/never.json"
check bench_json_missing_dir 2 'cannot write the JSON output' \
    "$bin" bench "$scn/small_grid.ini" --json "$tmp/no/dir/b.json"
check bench_csv_missing_dir 2 'cannot write the CSV output' \
    "$bin" bench "$scn/small_grid.ini" --csv "$tmp/no/dir/b.csv"
expect bench_bad_input_no_output [ ! -e "$tmp/never.json" ]

# selftest: a verdict per device; a device giving one reception too many fails, named.
check selftest_pass 0 '^PASS +1 .* 20 checks: Philox known answers, 14 flood scenarios equal to the sequential reference, 3 PHOLD scenarios equal to the PHOLD oracle and 2 Kademlia scenarios equal to the Kademlia oracle' "$bin" selftest -q
expect selftest_two_verdicts [ "$(grep -c '^PASS' "$tmp/out")" -eq 2 ]
check selftest_skewed 1 "^FAIL +1 .*check 2: scenario 'grid, drop 0.2' gave wrong results: receptions [0-9]+, reference [0-9]+" \
    env CLNETSIM_TEST_SKEW_DEVICE=1 "$bin" selftest -q --json "$tmp/st_skew.json"
expect selftest_other_passes grep -Eq '^PASS +0 ' "$tmp/out"
expect selftest_json_failed grep -q '"index": 1, .*"passed": false, "checks": 2, "detail": "scenario .grid, drop 0.2. gave wrong results: receptions' "$tmp/st_skew.json"
expect selftest_json_failed_case [ "$(grep -c '{"name": "grid, drop 0.2", "model": "flood", "passed": false}' "$tmp/st_skew.json")" -eq 1 ]
expect selftest_json_passed_cases [ "$(grep -c '"model": "phold", "passed": true}' "$tmp/st_skew.json")" -eq 3 ]
# the PHOLD scenarios are listed as they run, after the flood's
check selftest_phold_listed 0 '^PASS +0 .* 20 checks' "$bin" selftest --devices 0 --json "$tmp/st.json"
expect selftest_phold_cases [ "$(grep -Ec '^device 0: phold: ' "$tmp/out")" -eq 3 ]
expect selftest_phold_ties grep -q '^device 0: phold: ties (mean 0)' "$tmp/out"
expect selftest_phold_after_flood [ "$(grep '^device 0: ' "$tmp/out" | tail -n 5 | grep -c 'phold')" -eq 3 ]
expect selftest_kademlia_last [ "$(grep '^device 0: ' "$tmp/out" | tail -n 2 | grep -c 'kademlia')" -eq 2 ]
# --json: the verdict and every scenario run, by model
expect selftest_json_device grep -q '"index": 0, .*"passed": true, "checks": 20, "detail": "Philox known answers, 14 flood' "$tmp/st.json"
expect selftest_json_flood [ "$(grep -c '"model": "flood", "passed": true}' "$tmp/st.json")" -eq 14 ]
expect selftest_json_phold [ "$(grep -c '"model": "phold", "passed": true}' "$tmp/st.json")" -eq 3 ]
expect selftest_json_kademlia [ "$(grep -c '"model": "kademlia", "passed": true}' "$tmp/st.json")" -eq 2 ]
expect selftest_json_ties grep -q '{"name": "phold: ties (mean 0), 200 LPs, remote 0.5", "model": "phold", "passed": true}' "$tmp/st.json"
check selftest_json_missing_dir 2 "cannot write the JSON output '.*/no/dir/st.json'" \
    "$bin" selftest -q --json "$tmp/no/dir/st.json"
check selftest_bad_argument 2 "unexpected argument 'x'" "$bin" selftest x
check selftest_bad_devices 2 "nvidia-none" "$bin" selftest --devices nvidia-none:

# tune: the measured search, its cache, first use when the profile lacks kernels (the hook
# CLNETSIM_TEST_PROFILE_ENTRIES=0 hides the profile's entries, as for a vendor without a
# table), the cache in use, and results that do not change.
check tune_help 0 'usage: clnetsim tune' "$bin" tune --help
check tune_bad_repeat 2 "--repeat '0' must be a whole number" "$bin" tune --repeat 0
check tune_first_use 0 'measuring work-group sizes on device 0 .*platform profile .pocl\.ini' \
    env XDG_CACHE_HOME="$tmp/fu" CLNETSIM_TEST_PROFILE_ENTRIES=0 "$bin" run "$scn/small_grid.ini" --devices 0 --json "$tmp/tuned.json"
cache=$(ls "$tmp/fu/clnetsim/"tune-*.ini 2>/dev/null)
expect tune_first_use_cache grep -Eq '^flood\.packets = [0-9]+$' "$cache"
check tune_second_use 0 '' \
    env XDG_CACHE_HOME="$tmp/fu" CLNETSIM_TEST_PROFILE_ENTRIES=0 "$bin" run "$scn/small_grid.ini" --devices 0
expect tune_second_use_silent [ "$(grep -c measuring "$tmp/out")" -eq 0 ]
CLNETSIM_NO_TUNE=1 "$bin" run "$scn/small_grid.ini" --devices 0 -q --work-group 64 --json "$tmp/untuned.json"
for m in transmissions receptions first_receptions hops_sum latency_sum_ns windows; do
    want=$(member "$tmp/untuned.json" $m)
    expect "tune_results_unchanged_$m" [ -n "$want" -a "$(member "$tmp/tuned.json" $m)" = "$want" ]
done
# the cache decides kernels without a profile entry; an entry of the profile wins
sed -i 's/^flood\.packets = .*/flood.packets = 8/' "$cache"
check tune_cache_used 0 ' flood\.packets=8( |$)' \
    env XDG_CACHE_HOME="$tmp/fu" CLNETSIM_TEST_PROFILE_ENTRIES=0 "$bin" bench "$scn/small_grid.ini" --devices 0 -r 1 -q
check tune_profile_wins 0 ' flood\.packets=1( |$)' \
    env XDG_CACHE_HOME="$tmp/fu" "$bin" bench "$scn/small_grid.ini" --devices 0 -r 1 -q
# a damaged cache is measured again and rewritten
printf '[work_group\nflood.packets = 3\n' > "$cache"
check tune_damaged_cache 0 'measuring work-group sizes on device 0' \
    env XDG_CACHE_HOME="$tmp/fu" CLNETSIM_TEST_PROFILE_ENTRIES=0 "$bin" run "$scn/small_grid.ini" --devices 0
expect tune_damaged_rewritten grep -q '^\[work_group\]$' "$cache"

# the explicit search (same cache folder: it measures again and replaces the file)
check tune_runs 0 'flood\.packets +([0-9.]+ +){9}1\* ' \
    env XDG_CACHE_HOME="$tmp/fu" "$bin" tune --devices 0 -r 1 -q
expect tune_cached_in grep -Eq "cached in $tmp/fu/clnetsim/tune-[0-9a-f]{32}\.ini" "$tmp/out"
expect tune_cache_file [ "$(ls "$tmp/fu/clnetsim" | grep -c '^tune-.*\.ini$')" -eq 1 ]
finish
