#!/bin/sh
# Command-line behaviour: help and version, exit statuses, one-sentence errors, no partial
# output file, --dump-config round trip. Usage: cli_tests.sh CLNETSIM SOURCE_DIR
bin=$1 src=$2
scn=$src/scenarios
. "$src/tests/common/check.sh"

check version 0 '^clnetsim [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]+|unknown\)' "$bin" --version
check help 0 'usage: clnetsim <command>' "$bin" --help
check run_help 0 'usage: clnetsim run FILE.ini' "$bin" run --help
check devices_help 0 'usage: clnetsim devices' "$bin" devices --help
check keys_help 0 'usage: clnetsim keys' "$bin" keys --help
check no_command 2 'usage: clnetsim' "$bin"
check unknown_command 2 "unknown command 'frobnicate'" "$bin" frobnicate
check run_no_file 2 'needs a scenario file' "$bin" run
check run_unknown_option 2 "unknown option '--bogus'" "$bin" run "$scn/small_grid.ini" --bogus
check run_two_files 2 "unexpected argument" "$bin" run "$scn/small_grid.ini" "$scn/lab_line.ini"
check run_bad_work_group 2 "power of two" "$bin" run "$scn/small_grid.ini" --work-group 3
check run_missing_file 2 "missing\.ini" "$bin" run "$tmp/missing.ini"
check devices_lists 0 'Portable Computing Language' "$bin" devices
check keys_lists 0 'relay_delay' "$bin" keys

# Bad configuration: exit 2, the message names file, line, section and key; no JSON written.
printf '[flood]\nrelay_delay = -1\n' > "$tmp/bad.ini"
check bad_value 2 "bad\.ini:2: \[flood\] relay_delay" "$bin" run "$tmp/bad.ini" --json "$tmp/bad.json"
[ -e "$tmp/bad.json" ] && { echo "FAIL bad_value: JSON file written"; fail=$((fail + 1)); }
check bad_override 2 "flood\.ttl=x" "$bin" run "$scn/small_grid.ini" -s flood.ttl=x
check bad_device_spec 2 "nvidia-nonexistent" "$bin" run "$scn/small_grid.ini" --devices nvidia-nonexistent:
[ -z "$(ls "$tmp" | grep -v '^out$' | grep -v '\.ini$')" ] || { echo "FAIL: stray files: $(ls "$tmp")"; fail=$((fail + 1)); }

# An output folder that does not exist is reported before anything runs.
check json_missing_dir 2 "cannot write the JSON output" "$bin" run "$scn/small_grid.ini" --json "$tmp/no/such/dir/out.json"

# A good run: summary on stdout, JSON complete, no temporary file left behind.
check run_ok 0 'delivered +[0-9]+ of 20 packets' "$bin" run "$scn/small_grid.ini" --json "$tmp/ok.json"
grep -q '"complete": true' "$tmp/ok.json" || { echo "FAIL run_ok: JSON incomplete"; fail=$((fail + 1)); }
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] || { echo "FAIL run_ok: temporary file left"; fail=$((fail + 1)); }
check quiet 0 '' "$bin" run "$scn/small_grid.ini" --quiet
[ -s "$tmp/out" ] && { echo "FAIL quiet: printed something"; fail=$((fail + 1)); }
# --kernel-times: each device's kernels with their launches and time, on standard error (the
# window loop of small_mobile.ini runs transmit_mobile once per window with a transmission)
check kernel_times 0 '^  flood\.transmit_mobile +[1-9][0-9]* launches +[0-9]+\.[0-9]{6} s +[0-9]+\.[0-9]%$' \
    "$bin" run "$scn/small_mobile.ini" -q --kernel-times
check kernel_times_heading 0 '^kernel times on .*: [0-9]+\.[0-9]{6} s in [1-9][0-9]* launches$' \
    "$bin" run "$scn/small_mobile.ini" -q --kernel-times -d 0
check kernel_times_resume_help 0 '--kernel-times' "$bin" resume --help

# --dump-config prints a file that loads back to the same configuration.
"$bin" run "$scn/mobile_flood.ini" -s flood.ttl=9 --dump-config > "$tmp/dump1.ini"
"$bin" run "$tmp/dump1.ini" --dump-config > "$tmp/dump2.ini"
# (comment lines name the file the dump came from, so they differ by design)
grep -v '^;' "$tmp/dump1.ini" > "$tmp/d1"
grep -v '^;' "$tmp/dump2.ini" > "$tmp/d2"
if cmp -s "$tmp/d1" "$tmp/d2" && grep -q 'ttl = 9' "$tmp/d1"; then
    pass=$((pass + 1))
else
    echo "FAIL dump_config: round trip differs"; diff "$tmp/dump1.ini" "$tmp/dump2.ini"; fail=$((fail + 1))
fi

# --packets: an unwritable path is refused before the run (exit 2, nothing written); a bad
# flow key leaves neither file; a good run writes one row per packet with the flows' names
# and the summary prints a line per flow.
check packets_missing_dir 2 "cannot write the packets CSV '$tmp/no/dir/p.csv'" "$bin" run "$scn/small_grid.ini" --json "$tmp/pk.json" --packets "$tmp/no/dir/p.csv"
[ -e "$tmp/pk.json" ] && { echo "FAIL packets_missing_dir: JSON file written"; fail=$((fail + 1)); }
check packets_bad_flow 2 "\[traffic\.flow x\] unknown key 'intervall'; did you mean 'interval'\?" "$bin" run "$scn/small_flows.ini" -s traffic.flow.x.intervall=1 --packets "$tmp/bad.csv" --json "$tmp/bad2.json"
[ -e "$tmp/bad.csv" ] || [ -e "$tmp/bad2.json" ] && { echo "FAIL packets_bad_flow: a file was written"; fail=$((fail + 1)); }
check packets_flows 0 '^flow +alarm: 4 packets, 1596 of 1596 delivered' "$bin" run "$scn/small_flows.ini" --packets "$tmp/p.csv" --json "$tmp/p.json"
expect packets_header sh -c "head -1 '$tmp/p.csv' | grep -qx 'flow,packet,source,created_ns,delivered,latency_ns,hops'"
generated=$(grep -o '"generated": [0-9]*' "$tmp/p.json" | head -1 | grep -o '[0-9]*$')
expect packets_rows test "$(grep -c '^alarm,' "$tmp/p.csv")" -eq 4 -a "$(wc -l < "$tmp/p.csv")" -eq $((generated + 1))
expect packets_no_temp sh -c "! ls '$tmp' | grep -q '\.tmp\.'"

# Forwarding schemes run everywhere (whole packets on static scenarios in one partition, the
# window loop elsewhere), except traffic flows in the window loop, which are refused before the
# run, with the reason, and nothing is written.
check scheme_mobile 0 'delivered +[0-9]+ of 20 packets' "$bin" run "$scn/small_mobile.ini" -s flood.scheme=counter
check scheme_partitions 0 'delivered +30 of 30 packets' "$bin" run "$scn/small_distance.ini" -s partition.count=2
check scheme_flows_window 0 'delivered +[0-9]+ of 20 packets' "$bin" run "$scn/small_mobile.ini" -s flood.scheme=counter --packets "$tmp/sm.csv" --json "$tmp/sm.json"
[ "$(wc -l < "$tmp/sm.csv")" -eq 21 ] || { echo "FAIL scheme_flows_window: not 20 rows"; fail=$((fail + 1)); }
check scheme_counter 0 'delivered +30 of 30 packets' "$bin" run "$scn/small_counter.ini"

# Activity areas: what they do not combine with is refused before the run (exit 2, one
# sentence naming the key and where it was set, nothing written); the scenario itself runs.
printf '[topology]\nplacement = areas\nrows = 3\ncols = 3\n[mobility]\nmodel = linear\nspeed_max = 3\n' > "$tmp/areas_moving.ini"
check areas_mobile 2 "areas_moving\.ini:6: \[mobility\] model = linear: placement = areas needs static nodes \(model = static\)" "$bin" run "$tmp/areas_moving.ini" --json "$tmp/ar.json"
check areas_group_moving 2 "-s argument 'mobility\.group\.cars\.model=grid_walk': \[mobility\.group cars\] model = grid_walk: placement = areas needs static nodes \(model = static in every group\)" "$bin" run "$scn/areas6.ini" -s mobility.group.cars.nodes=0-9 -s mobility.group.cars.model=grid_walk --json "$tmp/ar.json"
check areas_qudg 2 "-s argument 'connectivity\.model=qudg': \[connectivity\] model = qudg: placement = areas needs model = udg" "$bin" run "$scn/areas6.ini" -s connectivity.model=qudg --json "$tmp/ar.json"
check areas_cap 2 "\[connectivity\] max_neighbors = 4: placement = areas needs max_neighbors = 0 \(no cap\)" "$bin" run "$scn/areas6.ini" -s connectivity.max_neighbors=4 --json "$tmp/ar.json"
check areas_partitions 2 "-s argument 'partition\.count=2': \[partition\] count = 2: placement = areas runs in one partition" "$bin" run "$scn/areas6.ini" -s partition.count=2 --json "$tmp/ar.json"
sed 's/^placement = areas$/placement = grid/; s/^model = linear$/model = rwp/' "$tmp/areas_moving.ini" > "$tmp/grid_moving.ini"
check areas_placement_last 2 "-s argument 'topology\.placement=areas': \[mobility\] model = rwp: placement = areas needs static nodes" "$bin" run "$tmp/grid_moving.ini" -s topology.placement=areas --json "$tmp/ar.json"
check areas_count 2 "\[areas\] count = 1: expected an integer in \[2, 1024\]" "$bin" run "$scn/areas6.ini" -s areas.count=1 --json "$tmp/ar.json"
check areas_border 2 "\[areas\] border_links = 1\.5: expected a probability in \[0, 1\]" "$bin" run "$scn/areas6.ini" -s areas.border_links=1.5 --json "$tmp/ar.json"
check areas_too_wide 2 "\[areas\] count = 1024 areas of \[topology\] rows = 20, cols = 20, spacing = 100 m, 2 x range apart, are too large" "$bin" run "$scn/areas6.ini" -s areas.count=1024 -s connectivity.range=1000 --json "$tmp/ar.json"
check areas_nodes 2 "\[topology\] nodes = 100 but \[areas\] count x rows x cols = 2400" "$bin" run "$scn/areas6.ini" -s topology.nodes=100 --json "$tmp/ar.json"
[ -e "$tmp/ar.json" ] && { echo "FAIL areas_*: JSON file written"; fail=$((fail + 1)); }
check areas_run 0 'delivered +67 of 100 packets' "$bin" run "$scn/areas6.ini"
# Node resources run in one partition: more is refused by the configuration (exit 2, before
# any device work), naming the keys, and nothing is written. They run under every forwarding
# scheme. A run prints the refused copies and the deaths in words.
check resources_partitions 2 "\[partition\] count = 3 with \[resources\] rx_capacity = 8: node resources are decided in one partition" "$bin" run "$scn/small_capacity.ini" -s partition.count=3 --json "$tmp/res.json"
check resources_scheme 0 "energy +28\.983840 J spent, 98 nodes dead \(the first at 15\.000 s\)" "$bin" run "$scn/small_energy.ini" -s flood.scheme=counter
check resources_both_named 2 "with \[resources\] rx_capacity = 2 and energy_budget = 1:" "$bin" run "$scn/small_grid.ini" -s resources.rx_capacity=2 -s resources.energy_budget=1 -s partition.count=2 --json "$tmp/res.json"
check resources_bad_law 2 "\[resources\] energy_budget = exponential\(1\): exponential is not a law of energy_budget" "$bin" run "$scn/small_grid.ini" -s "resources.energy_budget=exponential(1)" --json "$tmp/res.json"
[ -e "$tmp/res.json" ] && { echo "FAIL resources_*: JSON file written"; fail=$((fail + 1)); }
check resources_capacity_summary 0 '^capacity +[1-9][0-9]* copies refused' "$bin" run "$scn/small_capacity.ini"
check resources_energy_summary 0 '^energy +[0-9.]+ J spent, [1-9][0-9]* nodes dead \(the first at [0-9.]+ s\)' "$bin" run "$scn/small_energy.ini" --json "$tmp/energy.json"
expect resources_energy_members sh -c "tr -d '\n ' < '$tmp/energy.json' | grep -q '\"windows\":[0-9]*,\"dead_nodes\":[0-9]*,\"first_death_ns\":[0-9]*,\"energy_spent_nj\":[0-9]*,\"wall_s\"'"

# transmit_mobile's team (CLNETSIM_TEST_TEAM): a power of two, else one sentence before any run
check team_not_power_of_two 2 "^clnetsim: error: CLNETSIM_TEST_TEAM='12' is not a power of two from 1 to 256\$" \
    env CLNETSIM_TEST_TEAM=12 "$bin" run "$scn/small_mobile.ini" --quiet
check team_too_large 2 "CLNETSIM_TEST_TEAM='512' is not a power of two" \
    env CLNETSIM_TEST_TEAM=512 "$bin" run "$scn/small_mobile.ini" --quiet
# the one-group cell lists' limit (CLNETSIM_TEST_CELLS_ONE_GROUP): a whole number, else one
# sentence before any run
check cells_one_group_bad 2 "^clnetsim: error: CLNETSIM_TEST_CELLS_ONE_GROUP='-5' is not a whole number from 0 to 2147483647\$" \
    env CLNETSIM_TEST_CELLS_ONE_GROUP=-5 "$bin" run "$scn/small_mobile.ini" --quiet
check cells_one_group_too_large 2 "CLNETSIM_TEST_CELLS_ONE_GROUP='2147483648' is not a whole number" \
    env CLNETSIM_TEST_CELLS_ONE_GROUP=2147483648 "$bin" run "$scn/small_mobile.ini" --quiet

finish
