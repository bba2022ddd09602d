#!/bin/sh
# Crafted checkpoints with a valid CRC-32: a field rewritten (ckpt_patch recomputes the
# checksum), which `clnetsim resume` must refuse with exit status 2, the exact sentence
# naming the file and the record, and no output file.
# crafted_checkpoint_tests.sh CLNETSIM CKPT_PATCH SEED_DIR
set -u
bin=$1 patch=$2 seeds=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0

# crafted NAME SEED TAG OFFSET VALUE EXPECTED-MESSAGE
crafted() {
    name=$1 seed=$2 tag=$3 offset=$4 value=$5 want=$6
    if ! "$patch" "$seeds/$seed" "$name.ckpt" "$tag" "$offset" "$value"; then
        echo "FAIL $name: cannot craft the checkpoint"; fails=$((fails + 1)); return
    fi
    "$bin" resume "$name.ckpt" -q --json "$name.json" 2> "$name.err" > /dev/null
    rc=$?
    got=$(cat "$name.err")
    want="clnetsim: error: cannot resume from '$name.ckpt': $want"
    if [ "$rc" -ne 2 ] || [ "$got" != "$want" ] || [ -e "$name.json" ]; then
        echo "FAIL $name: exit $rc (expected 2)"; echo "  got:      $got"; echo "  expected: $want"
        [ -e "$name.json" ] && echo "  and it wrote $name.json"
        fails=$((fails + 1))
    else
        echo "ok   $name"
    fi
}

# the next window far beyond the scenario's last (it once exhausted memory or crashed)
crafted enxt_huge mobile.ckpt ENXT 0 9223372036854775807 \
    "record ENXT: next window 9223372036854775807 is beyond the scenario's last window 85"
crafted enxt_beyond mobile.ckpt ENXT 0 86 \
    "record ENXT: next window 86 is beyond the scenario's last window 85"
crafted enxt_negative mobile.ckpt ENXT 0 -1 "record ENXT: next window -1 is negative"
crafted ewin mobile.ckpt EWIN 0 1000 "record EWIN: 1000 windows run, with the next window 5"
crafted etim mobile.ckpt ETIM 0 900000000000 \
    "record ETIM: time reached 900000000000 ns is beyond the next window's end 6000000000 ns"
# a slot count that would size the packet slots (once grown until memory ran out)
crafted slots mobile.ckpt FSHP 36 100000 \
    "record FSPK: 160 bytes where the slots' packets take 800000"
crafted born mobile.ckpt FSBW 0 -5 \
    "record FSBW: slot 0's packet was created in window -5, and the next window is 5"
crafted record_flow flows_packets.ckpt FREC 16 99 \
    "record FREC: record 0 (packet 0 of flow 99 from node 0) is not one of 3 flows and 400 nodes"
crafted whole_packets grid_whole.ckpt FSCL 32 100000 \
    "record FSCL: next packet 100000 after 1 rounds, of 20 packets"
crafted whole_rounds grid_whole.ckpt ENXT 0 21 \
    "record ENXT: next round 21 is beyond the scenario's 20 packets"
# whole packets run in batches: the engine's records count batches, and say so
crafted whole_next_negative grid_whole.ckpt ENXT 0 -1 "record ENXT: next batch -1 is negative"
crafted whole_done grid_whole.ckpt EWIN 0 1000 \
    "record EWIN: 1000 batches run, with the next batch 1"
crafted tiles mobile_parts.ckpt FPRT 0 7 "record FPRT: node 0 is in partition 7 of 2"
# positions the kernels index or compute with: a partition that does not exist, a coordinate
# out of range; and a counter the results cannot hold
crafted position_part mobile_parts.ckpt FMOB 24 99 "record FMOB: node 0 is in partition 99 of 2"
crafted position_x mobile_parts.ckpt FMOB 0 -5 \
    "record FMOB: node 0 is at (-5, 221845, 51028) mm, outside 0 to 2^31-1 mm"
crafted counter mobile_parts.ckpt FCTR 8 -1 \
    "record FCTR: event counter 0's high 64 bits are -1"
# the traffic generator's heap: a departure at a negative time
crafted generator flows_packets.ckpt FDEP 0 -7 \
    "record FDEP: 7440 bytes that are not a traffic generator of the scenario's flows and sources"
# a flow index past 2^31 (it once passed as a negative int and indexed far outside the flows)
crafted generator_flow flows_packets.ckpt FDEP 16 4160749567 \
    "record FDEP: 7440 bytes that are not a traffic generator of the scenario's flows and sources"
# PHOLD (phold.ckpt: small_phold.ini with 40 LPs of population 4, stopped before window 5):
# its shape, the LPs' counts, statistics and pending events, and the windows against the
# scenario (host/models/phold/phold_checkpoint.c)
crafted phold_lps phold.ckpt PSHP 0 41 \
    "record PSHP: 41 LPs of population 4, and the scenario has 40 of population 4"
crafted phold_windows phold.ckpt PSHP 16 999 \
    "record PSHP: 999 windows run, and records EWIN and ENXT say 5 steps run and 5 windows"
crafted phold_counts phold.ckpt PCNT 0 0 \
    "record PCNT: the LPs hold 155 pending events, and PHOLD keeps lps x population = 160"
crafted phold_time phold.ckpt PEVT 0 -5 \
    "record PEVT: event 0 of LP 0 is at -5 ns, outside 0 to 2^62 ns"
crafted phold_past phold.ckpt PEVT 0 0 \
    "record PEVT: event 0 of LP 0 is at 0 ns, before the time reached 628283140 ns (it would have run)"
crafted phold_origin phold.ckpt PEVT 8 40 \
    "record PEVT: event 0 of LP 0 comes from LP 40, of 40 LPs"
crafted phold_serials phold.ckpt PSTA 0 4294967295 \
    "record PSTA: LP 0 executed 4294967295 events, 3 of them remote, with a population of 4 (serials are 32-bit)"
crafted phold_reached phold.ckpt ETIM 0 20000000000 \
    "record ETIM: time reached 20000000000 ns is not before the scenario's duration 20000000000 ns"

[ "$fails" -eq 0 ] || { echo "$fails crafted checkpoint(s) not refused as they should be"; exit 1; }
