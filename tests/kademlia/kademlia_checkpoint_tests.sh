#!/bin/sh
# Kademlia checkpoints and `clnetsim resume` (docs/when-things-go-wrong.md, "Checkpoints and
# resuming"): a run stopped with a checkpoint and resumed gives the contract and the --lookups
# rows of the run never stopped, on other devices, partition counts and record counts; the same
# state gives the same bytes; periodic checkpoints with the windows per launch chosen by the
# run; crafted and foreign checkpoints refused.
# Usage: kademlia_checkpoint_tests.sh CLNETSIM JSON_COMPARE CKPT_PATCH CKPT_SPLICE SOURCE_DIR
# (POCL_DEVICES gives two CPU devices).
bin=$1 cmp=$2 patch=$3 splice=$4 src=$5
small=$src/scenarios/small_kademlia.ini
. "$src/tests/common/check.sh"

member() { # FILE NAME: the value of a top-level numeric member
    grep -o "\"$2\": -\{0,1\}[0-9]*" "$1" | head -1 | grep -o -- '-\{0,1\}[0-9]*$'
}

# 200 peers with gaps far shorter than a lookup (several open at once, records that grow),
# 30 windows of 10 latency_min each
busy="-s simulation.seed=5 -s kademlia.peers=200 -s kademlia.lookup_gap_max=0.05 \
    -s kademlia.latency_max=0.2 -s simulation.duration=3"
# shellcheck disable=SC2086
check whole 0 '' "$bin" run "$small" -d 0 -q $busy --json "$tmp/whole.json"
ten="-s kademlia.windows_per_launch=10"

# Stopped by SIGINT after 20 launches with a checkpoint, resumed on the same device.
# shellcheck disable=SC2086
check stopped 130 '' env CLNETSIM_TEST_RAISE=INT@20 "$bin" run "$small" -d 0 -q $busy $ten \
    --checkpoint "$tmp/one.ckpt" --json "$tmp/part.json"
expect stopped_incomplete grep -q '"complete": false' "$tmp/part.json"
check resumed 0 '' "$bin" resume "$tmp/one.ckpt" -d 0 -q --json "$tmp/v.json"
same resumed_same "$tmp/whole.json" "$tmp/v.json"
reached=$(member "$tmp/v.json" resumed_from_ns)
expect resumed_midway test "$reached" -gt 1000000000 -a "$reached" -lt 3000000000
expect resumed_windows test "$(member "$tmp/v.json" windows)" = 30

# The state is per peer: two devices (two partitions), and one device whose peers start with
# 7 records each, stopped at the same launch, write the bytes of one device with one.
# shellcheck disable=SC2086
check two_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@20 "$bin" run "$small" -d 0,1 -q $busy $ten \
    --checkpoint "$tmp/two.ckpt"
expect two_same_bytes cmp -s "$tmp/one.ckpt" "$tmp/two.ckpt"
# shellcheck disable=SC2086
check seven_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@20 CLNETSIM_TEST_KADEMLIA_RECORDS=7 \
    "$bin" run "$small" -d 1 -q $busy $ten --checkpoint "$tmp/seven.ckpt"
expect seven_same_bytes cmp -s "$tmp/one.ckpt" "$tmp/seven.ckpt"
# resumed on two devices (the peers start with one record: the restore grows them), and on
# one whose peers start with 7
check one_to_two 0 '' "$bin" resume "$tmp/one.ckpt" -d 0,1 -q --json "$tmp/v.json"
same one_to_two_same "$tmp/whole.json" "$tmp/v.json"
check two_to_one 0 '' env CLNETSIM_TEST_KADEMLIA_RECORDS=7 "$bin" resume "$tmp/two.ckpt" -d 1 -q \
    --json "$tmp/v.json"
same two_to_one_same "$tmp/whole.json" "$tmp/v.json"

# Gaps of up to 10 s and launches of one window: at the checkpoint most peers wait for a
# response long before their next start (the restored least pending time is the response's)
sparse="-s kademlia.peers=300 -s simulation.duration=4 -s kademlia.windows_per_launch=1"
# shellcheck disable=SC2086
check sparse_whole 0 '' "$bin" run "$small" -d 0 -q $sparse --json "$tmp/sparse.json"
# shellcheck disable=SC2086
check sparse_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@150 "$bin" run "$small" -d 0 -q $sparse \
    --checkpoint "$tmp/sparse.ckpt"
check sparse_resumed 0 '' "$bin" resume "$tmp/sparse.ckpt" -d 0,1 -q --json "$tmp/v.json"
same sparse_same "$tmp/sparse.json" "$tmp/v.json"
expect sparse_completes grep -Eq '"lookups_completed": [1-9][0-9]{1,},' "$tmp/v.json"

# Periodic checkpoints in simulated time with the windows per launch chosen by the run (and
# made to jump at every launch): every 1 s of 3, where single windows would write them (a
# launch ends at its first window that ends at or after each second, window_plan.until); the
# last one, within a window of 2 s, resumes to the same results.
# shellcheck disable=SC2086
check periodic 0 'checkpoints  2 written' env CLNETSIM_TEST_GRANULARITY=walk "$bin" run \
    "$small" -d 0 $busy --checkpoint "$tmp/p.ckpt" --checkpoint-every 1 --json "$tmp/p.json"
same periodic_same "$tmp/whole.json" "$tmp/p.json"
check periodic_resumed 0 '' "$bin" resume "$tmp/p.ckpt" -d 0,1 -q --json "$tmp/v.json"
same periodic_resumed_same "$tmp/whole.json" "$tmp/v.json"
at=$(member "$tmp/v.json" resumed_from_ns)
expect periodic_at_2s test "$at" -ge 2000000000 -a "$at" -lt 2010000000
# a chain: resumed with checkpoints of its own into the same file, stopped at launch 25,
# resumed again
check chain_resume_stop 130 '' env CLNETSIM_TEST_RAISE=INT@25 "$bin" resume "$tmp/one.ckpt" \
    -d 1 -q --checkpoint "$tmp/one.ckpt"
check chain_end 0 '' "$bin" resume "$tmp/one.ckpt" -d 0 -q --json "$tmp/v.json"
same chain_same "$tmp/whole.json" "$tmp/v.json"
expect chain_later test "$(member "$tmp/v.json" resumed_from_ns)" -gt "$reached"

# --lookups: the rows of the lookups ended before the checkpoint travel in it; resumed on
# another device count, the rows are the whole run's, byte for byte.
# shellcheck disable=SC2086
check rows_whole 0 '' "$bin" run "$small" -d 0 -q $busy --json "$tmp/rows.json" \
    --lookups "$tmp/rows.csv"
# shellcheck disable=SC2086
check rows_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@150 "$bin" run "$small" -d 0,1 -q $busy \
    --checkpoint "$tmp/rows.ckpt" --lookups "$tmp/part.csv"
check rows_resumed 0 '' "$bin" resume "$tmp/rows.ckpt" -d 0 -q --json "$tmp/v.json" \
    --lookups "$tmp/v.csv"
same rows_resumed_same "$tmp/rows.json" "$tmp/v.json"
expect rows_resumed_csv cmp -s "$tmp/rows.csv" "$tmp/v.csv"
check rows_left_out 0 '' "$bin" resume "$tmp/rows.ckpt" -d 1 -q --json "$tmp/v.json"
same rows_left_out_same "$tmp/rows.json" "$tmp/v.json"
check rows_not_kept 2 "^clnetsim: error: cannot write --lookups '.*v2\.csv': the run saved in '.*one\.ckpt' kept no per-item rows \(it ran without --lookups\); resume it without --lookups$" \
    "$bin" resume "$tmp/one.ckpt" -q --lookups "$tmp/v2.csv"
expect rows_not_kept_no_file test ! -e "$tmp/v2.csv"

# refused NAME FILE PATTERN: resume exits 2 with the message, one line naming FILE, and
# writes no JSON
refused() {
    check "$1" 2 "^clnetsim: error: cannot resume from '.*$2': $3\$" "$bin" resume "$tmp/$2" -q \
        --json "$tmp/$1.json"
    expect "$1_no_json" test ! -e "$tmp/$1.json"
}
# Crafted: one field rewritten and the CRC-32 made anew (ckpt_patch IN OUT TAG OFFSET VALUE).
# seven.ckpt was stopped at launch 20 as one.ckpt was (one.ckpt went on in the chain).
crafted() { # NAME TAG OFFSET VALUE PATTERN [IN]
    "$patch" "$tmp/${6:-seven.ckpt}" "$tmp/$1.ckpt" "$2" "$3" "$4" || {
        echo "FAIL $1: cannot craft"; fail=$((fail + 1)); return; }
    refused "$1" "$1.ckpt" "$5"
}
crafted shape_peers KSHP 0 199 "record KSHP: 199 peers of 64-bit ids, buckets of 8, alpha 3, targets 0 and records of 39 words, and the scenario has 200, 64, 8, 3, 0 and 39"
crafted shape_windows KSHP 40 21 "record KSHP: 21 windows run, and records EWIN and ENXT say 20 run and 20 next"
crafted reached_end ETIM 0 3000000000 "record ETIM: time reached 3000000000 ns is not before the scenario's duration 3000000000 ns"
# peer 0 (KPER: 128 bytes a peer: next start, started, 13 statistics, records)
crafted next_start KPER 0 0 "record KPER: peer 0 starts its next lookup at 0 ns, outside the time reached [0-9]+ ns to 3049999999 ns"
crafted started KPER 8 0 "record KPER: peer 0 started 0 lookups, and counts [0-9]+ completed \(0 of them found\) and 0 failed"
crafted hops_min KPER 64 0 "record KPER: peer 0 completed [0-9]+ lookups, with hops from 0 to [0-9]+ and latencies from [0-9]+ to [0-9]+ ns"
crafted records KPER 120 70000 "record KPER: peer 0 holds 70000 lookup records, more than 65535"
crafted hist KHIS 0 999999 "record KHIS: the bins hold [0-9]+ lookups by hops and [0-9]+ by latency, and the peers completed [0-9]+"
# peer 0's first record (KLOK, 39 words: number, flags, start, m, target, the id's 2 words,
# 8 top members of 2 words, 3 entries in flight of 5)
crafted flags KLOK 0 0 "record KLOK: record 0 of peer 0: flags 0 \(outcome 0, 0 requests in flight, 0 in its top\) are not a lookup's with alpha 3 and buckets of 8"
crafted top KLOK 32 5000 "record KLOK: record 0 of peer 0: member 0 of its top \(peer 5000, depth 0, state 0\) is not one of its [0-9]+"
# (its entry 0 in flight is free here: words written into it, then made a request at 0 ns)
crafted flight_free KLOK 96 -1 "record KLOK: record 0 of peer 0: request 0 in flight is free and holds words \(a record's unused words are zero\)"
crafted flight_past KLOK 112 5 "record KLOK: record 0 of peer 0: request 0 in flight \(phase 1, to peer 0, number 0 of [0-9]+, at 0 ns\) is not one after the time reached [0-9]+ ns"
# an id the check cannot tell from a target: the restore, which has the ids, refuses it
crafted target KLOK 24 12345 "record KLOK: record 0 of peer 0 does not look for the target of its number, or its top is not in order of distance to it"
crafted row_origin KROW 0 5000 "record KROW: peer 0 has [0-9]+ rows completed and [0-9]+ failed, and counts [0-9]+ and [0-9]+" rows.ckpt

# Foreign: a phold checkpoint that names a kademlia scenario (one window a step, so that the
# run is still under way at the third).
check phold_stopped 130 '' env CLNETSIM_TEST_RAISE=INT@3 "$bin" run "$src/scenarios/small_phold.ini" \
    -d 0 -q -s phold.windows_per_read=1 --checkpoint "$tmp/phold.ckpt"
"$splice" "$tmp/phold.ckpt" "$tmp/seven.ckpt" "$tmp/phold_as_kad.ckpt" MODL SCEN SPTH
refused phold_as_kad phold_as_kad.ckpt "it is damaged or does not fit its own scenario \(it holds no state of the kademlia model\)"

finish kademlia_checkpoint
