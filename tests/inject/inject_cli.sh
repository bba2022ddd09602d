#!/bin/sh
# The injector seen from the command line: --trace-inject writes one row per decision in
# decision order (no temporary file left, none at all when the path cannot be written),
# --show-feedback prints the table, and CLNETSIM_TEST_DEVICE_SLOWDOWN scales the measured
# times that both report; whole packets spread chunks over both devices. Usage: inject_cli.sh CLNETSIM SOURCE_DIR (two PoCL devices).
bin=$1 src=$2
scn=$src/scenarios/small_grid.ini
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

header='window,kind,partition,multiplicity,device,predicted_s,measured_s,policy,migrated'

# The window loop (whole packets off): partitions with flows that move.
CLNETSIM_TEST_WHOLE_PACKETS=0 CLNETSIM_TEST_DEVICE_SLOWDOWN=0:1000,1:1000 "$bin" run "$scn" -s inject.calibration_share=0 \
    --trace-inject "$tmp/t.csv" \
    --show-feedback --json "$tmp/r.json" > "$tmp/out" 2>&1 || bad "run: exit $?"
grep -q '^Injector: policy hybrid' "$tmp/out" || bad "show-feedback: no policy line"
grep -q 'migrations [0-9]' "$tmp/out" || bad "show-feedback: no migration count"
grep -q '^Kind transmit' "$tmp/out" || bad "show-feedback: no transmit block"
[ "$(head -n 1 "$tmp/t.csv")" = "$header" ] || bad "trace: header"
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] || bad "trace: temporary file left"
sets=$(grep -o '"event_sets": [0-9]*' "$tmp/r.json" | awk '{ s += $2 } END { print s }')
# Every set has a row, in decision order (windows never go back), with a measured time; a set
# runs where its partition lives unless the row says it migrated there (the calibration of
# the second device moves the partition at least once, and back); the migrations are those
# of the JSON; the devices' busy time is the sum of the measured times, slowed down a
# thousand times.
busy=$(grep -o '"busy_s": [0-9.]*' "$tmp/r.json" | awk '{ s += $2 } END { print s }')
migrations=$(grep -o '"migrations": [0-9]*' "$tmp/r.json" | awk '{ print $2 }')
moved=$(grep -o '"bytes_moved": [0-9]*' "$tmp/r.json" | awk '{ s += $2 } END { print s }')
[ "${moved:-0}" -gt 0 ] || bad "json: no bytes moved"
awk -F, -v sets="$sets" -v busy="$busy" -v migrations="$migrations" '
    NR == 1 { next }
    NF != 9 { print "row " NR ": " NF " fields"; bad = 1 }
    $1 < last { print "row " NR ": window goes back"; bad = 1 }
    $9 == 0 && ($3 in home) && home[$3] != $5 { print "row " NR ": not at home"; bad = 1 }
    $9 == 1 && ($3 in home) && home[$3] == $5 { print "row " NR ": migrated home"; bad = 1 }
    $7 == "" { print "row " NR ": not measured"; bad = 1 }
    $8 != "advanced" { print "row " NR ": policy " $8; bad = 1 }
    { last = $1; home[$3] = $5; rows++; sum += $7; moves += $9 }
    END {
        if (rows != sets) { print rows " rows for " sets " sets"; bad = 1 }
        if (moves < 2 || moves != migrations) { print moves " migrations, JSON " migrations; bad = 1 }
        if (sum < 0.01 || sum - busy > 1e-5 * rows || busy - sum > 1e-5 * rows) {
            print "measured sum " sum ", busy " busy; bad = 1
        }
        exit bad
    }' "$tmp/t.csv" || bad "trace: rows"

# Whole packets on two devices: the injector places chunks of packets, which move for free;
# both devices run some, every chunk has a measured row, and the results equal one device's.
"$bin" run "$scn" --quiet -s traffic.packets=60 -s traffic.interval=0.3 -s inject.calibration_share=0 \
    --trace-inject "$tmp/w.csv" --show-feedback --json "$tmp/w.json" > "$tmp/out" 2>&1 || bad "whole: exit $?"
grep -q '^Kind flood_packets' "$tmp/out" || bad "whole: no flood_packets block"
[ "$(grep -o '"event_sets": [1-9][0-9]*' "$tmp/w.json" | wc -l)" -eq 2 ] || bad "whole: not both devices"
[ "$(grep -o '"bytes_moved": [0-9]*' "$tmp/w.json" | awk '{ s += $2 } END { print s }')" -eq 0 ] ||
    bad "whole: bytes moved"
wsets=$(grep -o '"event_sets": [0-9]*' "$tmp/w.json" | awk '{ s += $2 } END { print s }')
[ "$(($(wc -l < "$tmp/w.csv") - 1))" -eq "$wsets" ] || bad "whole: trace rows"
awk -F, 'NR > 1 && ($2 != "flood_packets" || $7 == "") { bad = 1 } END { exit bad }' "$tmp/w.csv" ||
    bad "whole: trace kinds or times"
"$bin" run "$scn" --quiet -s traffic.packets=60 -s traffic.interval=0.3 --devices 0 --json "$tmp/w1.json" ||
    bad "whole: one device"
for m in transmissions receptions first_receptions hops_sum latency_sum_ns end_time_ns windows; do
    [ "$(grep "\"$m\"" "$tmp/w.json")" = "$(grep "\"$m\"" "$tmp/w1.json")" ] || bad "whole: $m differs"
done

"$bin" run "$scn" --quiet -s inject.policy=static --trace-inject "$tmp/s.csv" || bad "static: exit"
[ "$(cut -d, -f8 "$tmp/s.csv" | sort -u | tr '\n' ' ')" = "policy static " ] ||
    bad "static: policies $(cut -d, -f8 "$tmp/s.csv" | sort -u | tr '\n' ' ')"

"$bin" run "$scn" --quiet --trace-inject "$tmp/no/such/dir/t.csv" > "$tmp/out" 2>&1
st=$?
[ "$st" -eq 2 ] || bad "unwritable: exit $st"
grep -q "cannot write the injector trace" "$tmp/out" || bad "unwritable: message"
[ ! -e "$tmp/no" ] || bad "unwritable: created something"

# A transmit set's multiplicity is its partition's own work: one partition per device, the
# relays its device made in the last window plus the window's new packets. Summed over the
# run, every relay is counted once and every packet once per partition: the transmit rows add
# up to transmissions - packets + 2 x packets. The partitions' shares differ (the flood
# starts in one of them).
mob=$src/scenarios/small_mobile.ini
"$bin" run "$mob" --quiet -s inject.policy=static -s partition.count=2 \
    --trace-inject "$tmp/m.csv" --json "$tmp/m.json" || bad "mobile: exit $?"
tx=$(grep -o '"transmissions": [0-9]*' "$tmp/m.json" | awk '{ print $2 }')
pk=$(grep -o '"generated": [0-9]*' "$tmp/m.json" | awk '{ print $2 }')
awk -F, -v tx="$tx" -v pk="$pk" '
    $2 == "transmit" { sum += $4; part[$3] += $4 }
    END {
        if (sum != tx + pk) { print "transmit multiplicities " sum ", expected " tx + pk; exit 1 }
        if (part[0] == part[1]) { print "both partitions " part[0]; exit 1 }
    }' "$tmp/m.csv" || bad "mobile: multiplicities"

# Two devices exchange only the relays near the other's tiles (transmit_mobile exports them
# as it makes them), not whole frontiers: every exchanged relay is 8 bytes to each of the two
# devices, so sending every relay would be 16 bytes per transmission; the border is about a
# quarter of them here.
big=$src/scenarios/mobile_flood.ini
"$bin" run "$big" --quiet -s inject.policy=static -s partition.count=2 -s traffic.packets=10 \
    --json "$tmp/b.json" || bad "border: exit $?"
tx=$(grep -o '"transmissions": [0-9]*' "$tmp/b.json" | awk '{ print $2 }')
xb=$(grep -o '"exchanged_bytes": [0-9]*' "$tmp/b.json" | awk '{ print $2 }')
[ "${xb:-0}" -gt 0 ] && [ $((xb * 2)) -lt $((16 * tx)) ] ||
    bad "border: $xb bytes exchanged for $tx transmissions"

[ "$fail" -eq 0 ] && echo "inject_cli: all checks passed"
exit "$fail"
