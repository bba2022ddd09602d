#!/bin/sh
# SIGINT and SIGTERM: the run stops at a window boundary, writes its results so far marked
# "complete": false with the simulated time reached, and exits 130 or 143; those results are
# exactly a shorter run's (docs/when-things-go-wrong.md, "Stopping a run").
# Usage: stop_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE
bin=$1 src=$2 cmp=$3
scn=$src/scenarios
. "$src/tests/common/check.sh"

member() { # FILE NAME: the value of a top-level numeric member
    grep -o "\"$2\": -\{0,1\}[0-9]*" "$1" | head -1 | grep -o -- '-\{0,1\}[0-9]*$'
}
counters=delivered,transmissions,receptions,first_receptions,hops_sum,latency_sum_ns,end_time_ns,windows

# The window loop (moving nodes), stopped by SIGINT after 10 windows: the counters are those
# of a run whose duration ends where it stopped.
check mobile_int 130 'stopped +by SIGINT at simulated time 10\.000 s' \
    env CLNETSIM_TEST_RAISE=INT@10 "$bin" run "$scn/small_mobile.ini" --json "$tmp/m.json"
expect mobile_incomplete grep -q '"complete": false' "$tmp/m.json"
expect mobile_signal grep -q '"stopped_by": "SIGINT"' "$tmp/m.json"
expect mobile_reached test "$(member "$tmp/m.json" reached_ns)" = 10000000000
check mobile_short 0 '' "$bin" run "$scn/small_mobile.ini" -q -s simulation.duration=10 --json "$tmp/m10.json"
check mobile_same 0 '' "$cmp" --members "$counters" "$tmp/m.json" "$tmp/m10.json"
# every contract member, generated and loss included: as the shorter run, the stopped run
# counts the packets of [traffic] its time kept from being created (docs/model.md, rule 4)
check mobile_same_all 0 '' "$cmp" "$tmp/m.json" "$tmp/m10.json"
expect mobile_generated test "$(member "$tmp/m.json" generated)" = 20
expect mobile_loss test "$(grep -o '"loss": [0-9.e-]*' "$tmp/m.json")" = "$(grep -o '"loss": [0-9.e-]*' "$tmp/m10.json")"

# Whole packets (static), stopped by SIGTERM after 2 rounds: every packet launched ran to
# its end, so the results are those of a run with that many packets, member for member.
check grid_term 143 '' env CLNETSIM_TEST_RAISE=TERM@2 "$bin" run "$scn/grid_flood.ini" -q \
    --json "$tmp/g.json"
expect grid_signal grep -q '"stopped_by": "SIGTERM"' "$tmp/g.json"
k=$(member "$tmp/g.json" generated)
expect grid_part test "$k" -gt 0 -a "$k" -lt 600
expect grid_reached test "$(member "$tmp/g.json" reached_ns)" = "$((k * 1000000000))"
check grid_short 0 '' "$bin" run "$scn/grid_flood.ini" -q -s traffic.packets="$k" --json "$tmp/gk.json"
check grid_same 0 '' "$cmp" "$tmp/g.json" "$tmp/gk.json"

# Traffic flows in the window loop: the flows, the packets generated and the per-packet rows
# are those of the shorter run too.
check flows_int 130 '' env CLNETSIM_TEST_RAISE=INT@40 CLNETSIM_TEST_WHOLE_PACKETS=0 \
    "$bin" run "$scn/small_flows.ini" -q --json "$tmp/f.json" --packets "$tmp/f.csv"
t=$(member "$tmp/f.json" reached_ns)
check flows_short 0 '' env CLNETSIM_TEST_WHOLE_PACKETS=0 "$bin" run "$scn/small_flows.ini" -q \
    -s simulation.duration="$(printf '%d.%09d' $((t / 1000000000)) $((t % 1000000000)))" --json "$tmp/f2.json" --packets "$tmp/f2.csv"
check flows_same 0 '' "$cmp" "$tmp/f.json" "$tmp/f2.json"
expect flows_rows cmp -s "$tmp/f.csv" "$tmp/f2.csv"

# SIGHUP (a closed terminal, a dropped ssh session) stops a run as SIGTERM does: the results
# of the shorter run, a checkpoint with --checkpoint, and no temporary file.
check mobile_hup 129 '' env CLNETSIM_TEST_RAISE=HUP@10 "$bin" run "$scn/small_mobile.ini" -q \
    --json "$tmp/h.json" --checkpoint "$tmp/h.ckpt"
expect hup_signal grep -q '"stopped_by": "SIGHUP"' "$tmp/h.json"
expect hup_incomplete grep -q '"complete": false' "$tmp/h.json"
expect hup_reached test "$(member "$tmp/h.json" reached_ns)" = 10000000000
check hup_same 0 '' "$cmp" --members "$counters" "$tmp/h.json" "$tmp/m10.json"
check hup_resume 0 '' "$bin" resume "$tmp/h.ckpt" -q --json "$tmp/hr.json"
check hup_full_run 0 '' "$bin" run "$scn/small_mobile.ini" -q --json "$tmp/hf.json"
check hup_resumed_same 0 '' "$cmp" --members "$counters" "$tmp/hr.json" "$tmp/hf.json"

# A real signal from outside, while the run is busy.
"$bin" run "$scn/mobile_flood.ini" -q -s traffic.packets=100000 --json "$tmp/r.json" &
pid=$!
sleep 3
kill -INT "$pid"
wait "$pid"
expect real_signal_status test $? -eq 130
expect real_signal_json grep -q '"complete": false' "$tmp/r.json"
"$bin" run "$scn/mobile_flood.ini" -q -s traffic.packets=100000 --json "$tmp/rh.json" &
pid=$!
sleep 3
kill -HUP "$pid"
wait "$pid"
expect real_hup_status test $? -eq 129
expect real_hup_json grep -q '"stopped_by": "SIGHUP"' "$tmp/rh.json"
expect no_temporary_files sh -c "! ls '$tmp' | grep -q '\.tmp\.'"
finish stop
