#!/bin/sh
# How a run names the steps of the engine's loop (docs/architecture.md, "Windows and
# batches"): whole packets run in batches, cut into chunks, and every text of such a run (the
# progress line, the summary, --trace-inject, --show-feedback, --kernel-times) says so, never
# "window"; fixed and event-driven windows keep their words. CLNETSIM_TEST_PROGRESS=1 draws the
# progress line after every step, on a line of its own, without a terminal.
# Usage: batches_tests.sh CLNETSIM SOURCE_DIR
bin=$1 src=$2
scn=$src/scenarios
. "$src/tests/common/check.sh"

member() { # FILE NAME: the value of a top-level numeric member
    grep -o "\"$2\": -\{0,1\}[0-9]*" "$1" | head -1 | grep -o -- '-\{0,1\}[0-9]*$'
}
lines() { # FILE: the output with the progress line's carriage returns as line breaks, less
    # the summary's scenario line (the checkout's path is no word of the run)
    tr '\r' '\n' < "$1" | grep -v '^$' | grep -v '^scenario '
}
header='batch,kind,chunk,multiplicity,device,predicted_s,measured_s,policy,migrated'

# ---- whole packets on two devices: batches and chunks -------------------------------------
check whole 0 '' env CLNETSIM_TEST_PROGRESS=1 POCL_DEVICES="pthread pthread" "$bin" run \
    "$scn/small_grid.ini" -d 0,1 --show-feedback --kernel-times --trace-inject "$tmp/w.csv" \
    --json "$tmp/w.json"
lines "$tmp/out" > "$tmp/w.out"
n=$(member "$tmp/w.json" batches)
expect whole_batches_member test "${n:-0}" -ge 1
expect whole_no_window sh -c "! grep -i window '$tmp/w.out'"
# one progress line per batch, each with the batches so far and the packets of the 20 run
expect whole_progress_count test "$(grep -c '^  batch ' "$tmp/w.out")" = "$n"
expect whole_progress_form sh -c "! grep '^  batch ' '$tmp/w.out' | grep -Ev '^  batch [0-9]+  [0-9]+ of 20 packets  [0-9.e+]+ events/s  ETA [0-9?]'"
expect whole_progress_last grep -Eq "^  batch $n  20 of 20 packets  " "$tmp/w.out"
# the summary: the packets and the batches, not the windows of the flood's contract member
batches=batches
[ "$n" = 1 ] && batches=batch
expect whole_summary grep -Eq "^simulated    57\.000 s, 20 packets in $n $batches$" "$tmp/w.out"
expect whole_windows_member test "$(member "$tmp/w.json" windows)" = 58
# the trace: its steps are batches and its units chunks, one of each device at most
expect whole_trace_header test "$(head -n 1 "$tmp/w.csv")" = "$header"
expect whole_trace_batches test "$(tail -n +2 "$tmp/w.csv" | cut -d, -f1 | sort -u | wc -l)" = "$n"
expect whole_trace_chunks test "$(tail -n +2 "$tmp/w.csv" | cut -d, -f3 | sort -u | tr '\n' ' ')" = "0 1 "
expect whole_feedback grep -Eq '^Injector: policy hybrid, now [a-z]+ \(since batch [0-9]+, [0-9]+ switches\)$' "$tmp/w.out"
expect whole_feedback_hold grep -Eq '^  rapid above 4 sets per device in a batch, a choice held 16 batches$' "$tmp/w.out"
expect whole_kernel_times grep -Eq '^  flood\.packets +[0-9]+ launches' "$tmp/w.out"
# without chunks that move, the feedback names them as chunks
check whole_static 0 '' env POCL_DEVICES="pthread pthread" "$bin" run "$scn/small_grid.ini" -q \
    -d 0,1 -s inject.policy=static --show-feedback
expect whole_static_no_window sh -c "! grep -v '^scenario ' '$tmp/out' | grep -i window"

# ---- stopped after the first batch and resumed: batches counted from the start -------------
check whole_stop 130 '' env CLNETSIM_TEST_RAISE=INT@1 CLNETSIM_TEST_PROGRESS=1 "$bin" run \
    "$scn/small_grid.ini" -s traffic.packets=200 --checkpoint "$tmp/w.ckpt" --json "$tmp/s.json"
lines "$tmp/out" > "$tmp/s.out"
expect whole_stop_no_window sh -c "! grep -i window '$tmp/s.out'"
k=$(member "$tmp/s.json" generated)
expect whole_stop_summary grep -Eq "^simulated    [0-9.]+ s, $k packets in 1 batch$" "$tmp/s.out"
check whole_resume 0 '' env CLNETSIM_TEST_PROGRESS=1 "$bin" resume "$tmp/w.ckpt" --json "$tmp/r.json"
lines "$tmp/out" > "$tmp/r.out"
check whole_full 0 '' "$bin" run "$scn/small_grid.ini" -s traffic.packets=200 --json "$tmp/f.json"
lines "$tmp/out" > "$tmp/f.out"
m=$(member "$tmp/f.json" batches)
expect whole_resume_batches test "$(member "$tmp/r.json" batches)" = "$m"
expect whole_resume_no_window sh -c "! grep -i window '$tmp/r.out'"
expect whole_resume_progress grep -Eq "^  batch $m  200 of 200 packets  " "$tmp/r.out"
expect whole_resume_summary test "$(grep '^simulated' "$tmp/r.out")" = "$(grep '^simulated' "$tmp/f.out")"

# ---- fixed windows (moving nodes): windows and partitions, as before -----------------------
check fixed 0 '' env CLNETSIM_TEST_PROGRESS=1 "$bin" run "$scn/small_mobile.ini" \
    -s simulation.duration=5 --show-feedback --trace-inject "$tmp/m.csv" --json "$tmp/m.json"
lines "$tmp/out" > "$tmp/m.out"
expect fixed_no_batch sh -c "! grep -Eiw 'batch(es)?|chunks?' '$tmp/m.out'"
expect fixed_no_batches_member sh -c "! grep -q '\"batches\"' '$tmp/m.json'"
expect fixed_progress test "$(grep -Ec '^  t = [0-9]\.000 s  windows [1-5]  [0-9.e+]+ events/s  ETA ' "$tmp/m.out")" = 5
expect fixed_summary grep -Eq '^simulated    4\.000 s in 5 windows$' "$tmp/m.out"
expect fixed_trace_header test "$(head -n 1 "$tmp/m.csv")" = \
    'window,kind,partition,multiplicity,device,predicted_s,measured_s,policy,migrated'
expect fixed_feedback grep -Eq '^  rapid above 4 sets per device in a window, a choice held 16 windows$' "$tmp/m.out"

# ---- event-driven windows (PHOLD): windows, as before --------------------------------------
# one window a step (phold.windows_per_read = 1): a progress line after each
check event 0 '' env CLNETSIM_TEST_PROGRESS=1 "$bin" run "$scn/small_phold.ini" -d 0 \
    -s phold.windows_per_read=1 --json "$tmp/p.json"
lines "$tmp/out" > "$tmp/p.out"
w=$(member "$tmp/p.json" windows)
expect event_no_batch sh -c "! grep -Eiw 'batch(es)?|chunks?' '$tmp/p.out'"
expect event_progress test "$(grep -Ec '^  t = [0-9.]+ s  windows [0-9]+  ' "$tmp/p.out")" = "$w"
expect event_summary grep -Eq "^simulated    [0-9.]+ s in $w windows$" "$tmp/p.out"
# 50 windows a step on one device: a line after each step, counting every window run
check event_chained 0 '' env CLNETSIM_TEST_PROGRESS=1 "$bin" run "$scn/small_phold.ini" -d 0 \
    -s phold.windows_per_read=50 --json "$tmp/p.json"
lines "$tmp/out" > "$tmp/p.out"
expect event_chained_windows test "$(member "$tmp/p.json" windows)" = "$w"
# (4 steps of 50, and one more for each stop where the slots or the outbox grew)
steps=$(grep -Ec '^  t = [0-9.]+ s  windows [0-9]+  ' "$tmp/p.out")
expect event_chained_steps test "$steps" -ge 4 -a "$steps" -le 8
expect event_chained_last grep -Eq "^  t = 20\.000 s  windows $w  " "$tmp/p.out"
expect event_chained_summary grep -Eq "^simulated    [0-9.]+ s in $w windows$" "$tmp/p.out"

finish batches
