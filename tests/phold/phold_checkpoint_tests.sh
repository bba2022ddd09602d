#!/bin/sh
# PHOLD checkpoints and `clnetsim resume` (docs/when-things-go-wrong.md, "Checkpoints and
# resuming"): a run stopped with a checkpoint and resumed gives the contract of the run never
# stopped, on other devices and partition counts; the same state gives the same bytes; periodic
# checkpoints in simulated time; damaged, crafted and foreign checkpoints are refused.
# Usage: phold_checkpoint_tests.sh CLNETSIM JSON_COMPARE CKPT_PATCH CKPT_SPLICE SOURCE_DIR
# (POCL_DEVICES gives two CPU devices).
bin=$1 cmp=$2 patch=$3 splice=$4 src=$5
. "$src/tests/common/check.sh"
# small_phold with one window a step (phold.windows_per_read = 1: its [phold] section comes
# last), so that CLNETSIM_TEST_RAISE=INT@N stops a run at its window N; several windows a step
# have cases of their own at the end
small=$tmp/small_phold.ini
{ cat "$src/scenarios/small_phold.ini"; echo "windows_per_read = 1"; } > "$small"

member() { # FILE NAME: the value of a top-level numeric member
    grep -o "\"$2\": -\{0,1\}[0-9]*" "$1" | head -1 | grep -o -- '-\{0,1\}[0-9]*$'
}

check whole 0 '' "$bin" run "$small" -d 0 -q --json "$tmp/whole.json"

# Stopped by SIGINT after 40 windows with a checkpoint, resumed on the same device.
check stopped 130 '' env CLNETSIM_TEST_RAISE=INT@40 "$bin" run "$small" -d 0 -q \
    --checkpoint "$tmp/one.ckpt" --json "$tmp/part.json"
expect stopped_incomplete grep -q '"complete": false' "$tmp/part.json"
check resumed 0 '' "$bin" resume "$tmp/one.ckpt" -d 0 -q --json "$tmp/resumed.json"
same resumed_same "$tmp/whole.json" "$tmp/resumed.json"
reached=$(member "$tmp/resumed.json" resumed_from_ns)
expect resumed_midway test "$reached" -gt 0 -a "$reached" -lt 20000000000
# every window was run once: the count goes on from the checkpoint's
expect resumed_windows test "$(member "$tmp/resumed.json" windows)" = "$(member "$tmp/whole.json" windows)"

# The state is per LP: two devices with 8 partitions stopped at the same window write the
# same bytes as one device with 4 (each LP's events in key order, whatever slots held them).
check two_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@40 "$bin" run "$small" -d 0,1 -q \
    --checkpoint "$tmp/two.ckpt"
expect same_bytes cmp -s "$tmp/one.ckpt" "$tmp/two.ckpt"
# CPU devices run phold_execute_cpu, the others phold_execute (CLNETSIM_TEST_PHOLD_EXECUTE=general
# here): the same state, byte for byte, at the same window
check general_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@40 CLNETSIM_TEST_PHOLD_EXECUTE=general \
    "$bin" run "$small" -d 0 -q --checkpoint "$tmp/general.ckpt"
expect general_same_bytes cmp -s "$tmp/one.ckpt" "$tmp/general.ckpt"
check one_to_two 0 '' "$bin" resume "$tmp/one.ckpt" -d 0,1 -q --json "$tmp/v.json"
same one_to_two_same "$tmp/whole.json" "$tmp/v.json"
# 7 partitions on two devices (records cross between them, an outbox of 3 records), resumed
# on one device whose LPs start with fewer slots than some LP holds: the restore grows them
check seven_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@57 CLNETSIM_TEST_PHOLD_OUTBOX=3 "$bin" run \
    "$small" -d 0,1 -q -s partition.count=7 --checkpoint "$tmp/seven.ckpt"
check seven_to_one 0 '' env CLNETSIM_TEST_PHOLD_SLOTS=1 "$bin" resume "$tmp/seven.ckpt" -d 0 -q \
    --json "$tmp/v.json"
same seven_to_one_same "$tmp/whole.json" "$tmp/v.json"

# No remote events: every LP holds exactly its population, where the least-time cache of a
# model just created (each LP's mark after its start events) would hide every event; the
# restore empties the cache
check local_whole 0 '' "$bin" run "$small" -d 0 -q -s phold.remote=0 -s simulation.duration=5 \
    --json "$tmp/local.json"
check local_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@10 "$bin" run "$small" -d 0 -q \
    -s phold.remote=0 -s simulation.duration=5 --checkpoint "$tmp/local.ckpt"
check local_resumed 0 '' "$bin" resume "$tmp/local.ckpt" -d 0,1 -q --json "$tmp/v.json"
same local_same "$tmp/local.json" "$tmp/v.json"

# Periodic checkpoints in simulated time: every 5 s of a 20 s run, at the first window
# boundary after each; the last one (after 15 s) resumes to the same results.
check periodic 0 'checkpoints  3 written' "$bin" run "$small" -d 0 --checkpoint "$tmp/p.ckpt" \
    --checkpoint-every 5 --json "$tmp/p.json"
same periodic_same "$tmp/whole.json" "$tmp/p.json"
check periodic_resumed 0 'resumed +from a checkpoint at simulated time 15\.[0-9]+ s' "$bin" resume \
    "$tmp/p.ckpt" -d 0,1 --json "$tmp/v.json"
same periodic_resumed_same "$tmp/whole.json" "$tmp/v.json"
at=$(member "$tmp/v.json" resumed_from_ns)
expect periodic_after_15s test "$at" -ge 15000000000 -a "$at" -lt 15100000000
# a chain: resumed with checkpoints of its own into the same file, stopped, resumed again
check chain_stop 130 '' env CLNETSIM_TEST_RAISE=INT@30 "$bin" run "$small" -d 0 -q \
    --checkpoint "$tmp/c.ckpt"
check chain_resume_stop 130 '' env CLNETSIM_TEST_RAISE=INT@90 "$bin" resume "$tmp/c.ckpt" -d 1 -q \
    --checkpoint-every 100 --json "$tmp/c_part.json"
check chain_end 0 '' "$bin" resume "$tmp/c.ckpt" -d 0 -q --json "$tmp/c.json"
same chain_same "$tmp/whole.json" "$tmp/c.json"
expect chain_later test "$(member "$tmp/c.json" resumed_from_ns)" -gt \
    "$(member "$tmp/c_part.json" resumed_from_ns)"
# wall clock, a tiny period: a checkpoint after every window leaves the results as they are
check wall 0 '' "$bin" run "$small" -d 0,1 -q --checkpoint "$tmp/w.ckpt" \
    --checkpoint-every 0.000001 --checkpoint-clock wall --json "$tmp/w.json"
expect wall_every_window test "$(member "$tmp/w.json" checkpoints)" -ge 150
same wall_same "$tmp/whole.json" "$tmp/w.json"

# Several windows a step (phold.windows_per_read, chained on one device): a run stopped after
# its third step of 7 windows resumes to the same results and windows, with 7 again on one
# device and one window a step on two; with the run's choice, which takes few long steps,
# checkpoints every 5 s of simulated time are still written where single windows write them,
# after the first window that ends at or after each 5 s (a step ends there).
chained="-s phold.windows_per_read=7"
# shellcheck disable=SC2086
check chained_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@3 "$bin" run "$small" -d 0 -q $chained \
    --checkpoint "$tmp/ch.ckpt" --json "$tmp/ch_part.json"
expect chained_stopped_windows test "$(member "$tmp/ch_part.json" windows)" = 21
for d in 0 0,1; do
    check "chained_to_$d" 0 '' "$bin" resume "$tmp/ch.ckpt" -d $d -q --json "$tmp/v.json"
    same "chained_to_${d}_same" "$tmp/whole.json" "$tmp/v.json"
    expect "chained_to_${d}_windows" test "$(member "$tmp/v.json" windows)" = \
        "$(member "$tmp/whole.json" windows)"
    expect "chained_to_${d}_from" test "$(member "$tmp/v.json" resumed_from_ns)" -gt 2100000000
done
check chained_periodic 0 'checkpoints  3 written' "$bin" run "$small" -d 0 \
    -s phold.windows_per_read=0 --checkpoint "$tmp/cp.ckpt" --checkpoint-every 5 --json "$tmp/cp.json"
same chained_periodic_same "$tmp/whole.json" "$tmp/cp.json"
expect chained_periodic_few_steps grep -q '"final": [1-9][0-9]' "$tmp/cp.json"
check chained_periodic_resumed 0 '' "$bin" resume "$tmp/cp.ckpt" -d 0 -q --json "$tmp/v.json"
same chained_periodic_resumed_same "$tmp/whole.json" "$tmp/v.json"
expect chained_periodic_windows test "$(member "$tmp/v.json" windows)" = "$(member "$tmp/whole.json" windows)"
expect chained_periodic_from test "$(member "$tmp/v.json" resumed_from_ns)" = "$at"

# refused NAME FILE PATTERN: resume exits 2 with the message, one line naming FILE, and
# writes no JSON
refused() {
    check "$1" 2 "^clnetsim: error: cannot resume from '.*$2': $3\$" "$bin" resume "$tmp/$2" -q \
        --json "$tmp/$1.json"
    expect "$1_no_json" test ! -e "$tmp/$1.json"
}

# Damage: a byte of an event flipped, the file cut short.
cp "$tmp/one.ckpt" "$tmp/flip.ckpt"
size=$(wc -c < "$tmp/flip.ckpt")
printf '\377' | dd of="$tmp/flip.ckpt" bs=1 seek=$((size - 50000)) conv=notrunc 2>/dev/null
refused flipped flip.ckpt "the file is damaged \(its CRC-32 is [0-9a-f]{8}, its content gives [0-9a-f]{8}\)"
head -c $((size - 100)) "$tmp/one.ckpt" > "$tmp/short.ckpt"
refused truncated short.ckpt "the file is truncated \(its header announces [0-9]+ bytes of state, it holds [0-9]+\)"

# Crafted: one field rewritten and the CRC-32 made anew (ckpt_patch IN OUT TAG OFFSET VALUE),
# so that the checks of the fields themselves refuse it.
crafted() { # NAME TAG OFFSET VALUE PATTERN [IN]
    "$patch" "$tmp/${6:-one.ckpt}" "$tmp/$1.ckpt" "$2" "$3" "$4" || {
        echo "FAIL $1: cannot craft"; fail=$((fail + 1)); return; }
    refused "$1" "$1.ckpt" "$5"
}
# counts: one LP with more events than the run, and a total that is not lps x population
# (PCNT's first 8 bytes are the counts of LPs 0 and 1)
crafted count_huge PCNT 0 4294967295 "record PCNT: LP 0 holds 4294967295 events, more than the 8000 of the whole run"
crafted count_total PCNT 0 0 "record PCNT: the LPs hold [0-9]+ pending events, and PHOLD keeps lps x population = 8000"
# the first event of LP 0: its time, origin and serial (bytes 8-11 and 12-15), its order
crafted event_time PEVT 0 -1 "record PEVT: event 0 of LP 0 is at -1 ns, outside 0 to 2\^62 ns"
crafted event_past PEVT 0 1 "record PEVT: event 0 of LP 0 is at 1 ns, before the time reached $reached ns \(it would have run\)"
crafted event_origin PEVT 8 5000 "record PEVT: event 0 of LP 0 comes from LP 5000, of 1000 LPs"
crafted event_serial PEVT 8 -4294967296 "record PEVT: event 0 of LP 0 has serial 4294967295 from LP 0, which has made serials below [0-9]+ only \(its start events, below 8, stay on it\)"
crafted event_order PEVT 0 4611686018427387903 "record PEVT: the events of LP 0 are not in increasing key order \(time, origin, serial\) at event 1"
# statistics (row STAT_REMOTE begins at 8 x 1000), shape and progress
crafted stats_remote PSTA 8000 1000000000000 "record PSTA: LP 0 executed [0-9]+ events, 1000000000000 of them remote, with a population of 8 \(serials are 32-bit\)"
crafted shape_lps PSHP 0 999 "record PSHP: 999 LPs of population 8, and the scenario has 1000 of population 8"
crafted shape_windows PSHP 16 41 "record PSHP: 41 windows run, and records EWIN and ENXT say 40 steps run and 40 windows"
crafted next_negative ENXT 0 -1 "record ENXT: next window -1 is negative"
crafted reached_end ETIM 0 20000000000 "record ETIM: time reached 20000000000 ns is not before the scenario's duration 20000000000 ns"
"$patch" "$tmp/one.ckpt" "$tmp/n1.ckpt" ENXT 0 300 && "$patch" "$tmp/n1.ckpt" "$tmp/n2.ckpt" EWIN 0 300
crafted next_beyond PSHP 16 300 "record ENXT: next window 300 is beyond the 199 windows that a duration of 20000000000 ns with a lookahead of 100000000 ns holds" n2.ckpt

# Foreign: a flood checkpoint that names a phold scenario, and the reverse; a phold
# checkpoint whose model record says flood.
check flood_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@3 "$bin" run "$src/scenarios/small_mobile.ini" \
    -d 0 -q --checkpoint "$tmp/flood.ckpt"
"$splice" "$tmp/flood.ckpt" "$tmp/one.ckpt" "$tmp/flood_as_phold.ckpt" MODL SCEN SPTH
refused flood_as_phold flood_as_phold.ckpt "it is damaged or does not fit its own scenario \(it holds no state of the phold model\)"
"$splice" "$tmp/one.ckpt" "$tmp/flood.ckpt" "$tmp/phold_as_flood.ckpt" MODL SCEN SPTH
refused phold_as_flood phold_as_flood.ckpt "it is damaged or does not fit its own scenario \(record 'FSHP' is missing\)"
"$splice" "$tmp/one.ckpt" "$tmp/flood.ckpt" "$tmp/other_model.ckpt" MODL
refused other_model other_model.ckpt "it is damaged or does not fit its own scenario \(it is not a checkpoint of this model\)"

finish phold_checkpoint
