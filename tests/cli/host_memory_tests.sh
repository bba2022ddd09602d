#!/bin/sh
# Devices whose memory is the host's (PoCL's CPU devices) hold their replicas in the same RAM:
# the memory check adds them up and compares the sum with the host's available memory
# (docs/when-things-go-wrong.md, "Memory, before anything is allocated"). The test hook
# CLNETSIM_TEST_HOST_MEMORY sets what the host has: 256 KiB hold small_mobile.ini's replica on
# one device (124.1 KiB) but not its two replicas on two (171.0 KiB each).
# host_memory_tests.sh CLNETSIM SOURCE_DIR
set -u
bin=$1 scn=$2/scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

# nothing written: no output file, no temporary one
no_outputs() {
    left=$(ls -A "$tmp/w")
    [ -z "$left" ] || fail "$1: left $left"
}
mkdir "$tmp/w"

# one device: the run fits, and its JSON names the device
env CLNETSIM_TEST_HOST_MEMORY=256K POCL_DEVICES=pthread "$bin" run -d 0 "$scn/small_mobile.ini" \
    -q --json "$tmp/one.json" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$tmp/one.json" ] || { fail "one_device: exit $rc"; cat "$tmp/err"; }
dev=$(sed -n 's/.*{"name": "\([^"]*\)", "platform".*/\1/p' "$tmp/one.json" | head -n 1)
[ -n "$dev" ] || fail "one_device: no device name in the JSON"

want="clnetsim: error: $scn/small_mobile.ini needs about 171.0 KiB on each of devices 0 '$dev' and 1 '$dev', whose memory is the host's: 341.9 KiB in all, and the host has 256.0 KiB available; use fewer of these devices, a smaller scenario or a machine with more memory"
for policy in stop continue; do
    env CLNETSIM_TEST_HOST_MEMORY=256K POCL_DEVICES="pthread pthread" "$bin" run -d 0,1 \
        "$scn/small_mobile.ini" -s devices.on_failure=$policy -q --json "$tmp/w/r.json" \
        2> "$tmp/err" > /dev/null
    rc=$?
    got=$(cat "$tmp/err")
    if [ "$rc" -ne 2 ] || [ "$got" != "$want" ]; then
        fail "two_devices_$policy: exit $rc (expected 2)"
        echo "  got:      $got"; echo "  expected: $want"
    else
        echo "ok   two_devices_$policy"
    fi
    no_outputs "two_devices_$policy"
done

# one device with less than its replica
want="clnetsim: error: $scn/small_mobile.ini needs about 124.1 KiB on device 0 '$dev', whose memory is the host's, and the host has 100.0 KiB available; use a smaller scenario or a machine with more memory"
env CLNETSIM_TEST_HOST_MEMORY=100K POCL_DEVICES=pthread "$bin" run -d 0 "$scn/small_mobile.ini" \
    -q --json "$tmp/w/r.json" 2> "$tmp/err" > /dev/null
rc=$?
got=$(cat "$tmp/err")
if [ "$rc" -ne 2 ] || [ "$got" != "$want" ]; then
    fail "one_device_short: exit $rc (expected 2)"
    echo "  got:      $got"; echo "  expected: $want"
else
    echo "ok   one_device_short"
fi
no_outputs one_device_short

[ "$fails" -eq 0 ] || { echo "$fails host memory case(s) failed"; exit 1; }
