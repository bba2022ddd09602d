#!/bin/sh
# Numbers that do not fit 64 bits are never wrapped (docs/when-things-go-wrong.md, "Overflow
# audit"): scenarios whose simulated time could pass 2^62 ns are refused with the keys to
# change; latency and hop sums past 2^63 and 2^64 are exact, on every path (whole packets,
# the window loop, forwarding schemes, node resources), equal to the sequential reference and
# to the value worked out by hand; the 32-bit window stamps of packet slots survive 2^32
# windows.
# Usage: overflow_tests.sh CLNETSIM SOURCE_DIR JSON_COMPARE FLOOD_ORACLE
bin=$1 src=$2 cmp=$3 oracle=$4
scn=$src/scenarios
. "$src/tests/common/check.sh"

member() { # FILE NAME: the value of a top-level numeric member
    grep -o "\"$2\": -\{0,1\}[0-9]*" "$1" | head -1 | grep -o -- '-\{0,1\}[0-9]*$'
}

# ---- simulated time: refused, with the keys named, before anything runs ----------------
check horizon_relay 2 "^clnetsim: error: -s argument 'flood\.relay_delay=1e9': simulated time could pass 4611686018\.427387904 s \(2\^62 ns, about 146 years\), the limit of the simulation clock: the last packet may leave at up to 19 s, then take up to 400 relays \(one per node\) of \[flood\] relay_delay \(plus assessment_delay\) = 1000000000 s each; expected a \[simulation\] duration, a \[flood\] ttl, a smaller relay_delay or an earlier last packet$" \
    "$bin" run "$scn/small_grid.ini" -q -s flood.relay_delay=1e9
check horizon_duration 2 "\[simulation\] duration = 1000000000 s with \[flood\] relay_delay \(plus assessment_delay\) = 2000000000 s: simulated time could pass 4611686018\.427387904 s .*; expected duration <= 611686018\.427387904 s$" \
    "$bin" run "$scn/small_grid.ini" -q -s flood.relay_delay=2e9 -s simulation.duration=1e9
# the same relay delay with a ttl that keeps the flood short enough runs
check horizon_ttl 0 '' "$bin" run "$scn/small_grid.ini" -q -s flood.relay_delay=1e9 \
    -s flood.ttl=3 --json "$tmp/ttl.json"
expect horizon_ttl_end test "$(member "$tmp/ttl.json" end_time_ns)" -ge 2000000000000000000
check horizon_key 2 "\[traffic\] interval = 3e9: expected a time in seconds in \[0, 2305843009\.213693952\]$" \
    "$bin" run "$scn/small_grid.ini" -q -s traffic.interval=3e9
# a flow's last departure: 1000 exponential intervals of mean 10^6 s, each at most about 22.2
# means (the draw of models.md)
printf '[traffic.flow f]\nsource = 0\ndestination = 5\npackets = 1000\ninterval = exponential(1000000)\n' \
    > "$tmp/flow.ini"
check horizon_flows 2 "^clnetsim: error: $tmp/flow\.ini: simulated time could pass 4611686018\.427387904 s .*: the last packet may leave at up to 2\.216e\+10 s, then take up to 100 relays \(one per node\)" \
    "$bin" run "$tmp/flow.ini" -q
check horizon_flows_duration 0 '' "$bin" run "$tmp/flow.ini" -q -s simulation.duration=1e6

# The engine's paths: whole packets, the window loop (two partitions), the counter scheme in
# both, node resources.
paths="whole window counter counter_window capacity"
path_options() { # PATH: the overrides that take it
    case $1 in
        whole) ;;
        window) echo "-s partition.count=2" ;;
        counter) echo "-s flood.scheme=counter -s flood.counter_threshold=5" ;;
        counter_window) echo "-s flood.scheme=counter -s flood.counter_threshold=5 -s partition.count=2" ;;
        capacity) echo "-s resources.rx_capacity=100" ;;
    esac
}

# ---- latency sums past 2^64: a line of 2000 nodes, every packet delivered at hop 1999 -----
cat > "$tmp/line.ini" << 'EOF'
[topology]
rows = 1
cols = 2000
[traffic]
packets = 100
[flood]
relay_delay = 100000
EOF
# 100 packets x 1998 relay delays of 10^14 ns each; hops 100 x 1999
lat=19980000000000000000 hops=199900
for path in $paths; do
    opts=$(path_options "$path")
    # shellcheck disable=SC2086
    check "line_$path" 0 '' "$bin" run "$tmp/line.ini" -q $opts --json "$tmp/line_$path.json"
    expect "line_${path}_latency" test "$(member "$tmp/line_$path.json" latency_sum_ns)" = "$lat"
    expect "line_${path}_hops" test "$(member "$tmp/line_$path.json" hops_sum)" = "$hops"
done
check line_oracle 0 '' "$oracle" "$tmp/line.ini" --json "$tmp/line_oracle.json"
check line_oracle_same 0 '' "$cmp" "$tmp/line_whole.json" "$tmp/line_oracle.json"
check line_window_same 0 '' "$cmp" "$tmp/line_window.json" "$tmp/line_oracle.json"
expect line_summary_mean sh -c "'$bin' run '$tmp/line.ini' 2>&1 | grep -q 'latency      mean 199800000\.000000 s, mean hops 1999\.000'"

# The user's report: 50 000 packets over 2000 nodes, relay delay 100 s: a latency sum of
# 50000 x 1998 x 10^11 ns, past 2^63 (it was reported negative).
check report 0 '' "$bin" run "$scn/small_grid.ini" -q -s topology.rows=1 -s topology.cols=2000 \
    -s traffic.packets=50000 -s flood.relay_delay=100 -s flood.drop_probability=0 \
    --json "$tmp/report.json"
expect report_latency test "$(member "$tmp/report.json" latency_sum_ns)" = 9990000000000000000

# ---- one broadcast packet whose latency sum alone passes 2^64 ----------------------------
cat > "$tmp/bcast.ini" << 'EOF'
[topology]
rows = 1
cols = 1000
[flood]
relay_delay = 1000000
[traffic.flow b]
source = 0
destination = broadcast
packets = 1
EOF
# node j hears it at hop j, (j - 1) relay delays of 10^15 ns: the sum of 0 .. 998, 498501
blat=498501000000000000000
check bcast_oracle 0 '' "$oracle" "$tmp/bcast.ini" --json "$tmp/bcast_oracle.json"
expect bcast_oracle_latency test "$(member "$tmp/bcast_oracle.json" latency_sum_ns)" = "$blat"
for path in $paths; do
    opts=$(path_options "$path")
    # shellcheck disable=SC2086
    check "bcast_$path" 0 '' "$bin" run "$tmp/bcast.ini" -q $opts --json "$tmp/bcast_$path.json"
    expect "bcast_${path}_latency" test "$(member "$tmp/bcast_$path.json" latency_sum_ns)" = "$blat"
    expect "bcast_${path}_flow" grep -q "\"latency_sum_ns\": $blat}" "$tmp/bcast_$path.json"
done
# a checkpoint keeps the 128-bit sums: stopped after 500 windows, resumed
check bcast_stop 143 '' env CLNETSIM_TEST_RAISE=TERM@500 "$bin" run "$tmp/bcast.ini" -q \
    -s partition.count=2 --checkpoint "$tmp/bcast.ckpt"
check bcast_resume 0 '' "$bin" resume "$tmp/bcast.ckpt" -q --json "$tmp/bcast_resumed.json"
check bcast_resume_same 0 '' "$cmp" "$tmp/bcast_resumed.json" "$tmp/bcast_window.json"

# ---- window stamps past 2^32 windows -----------------------------------------------------
# One packet slot, two packets 2^32 + 1 windows apart (relay delay 1 ns): the first sends
# once and dies; the second's source is dead, so it never sends. A stale slot word once made
# the second look sent 2^32 windows later.
cat > "$tmp/stamp.ini" << 'EOF'
[topology]
rows = 1
cols = 2
[traffic]
packets = 2
interval = 4.294967297
[flood]
relay_delay = 1e-9
[resources]
energy_budget = 1.5
tx_fixed = 1
EOF
check stamp 0 '' env CLNETSIM_TEST_SLOTS=1 "$bin" run "$tmp/stamp.ini" -q --json "$tmp/stamp.json"
check stamp_oracle 0 '' "$oracle" "$tmp/stamp.ini" --json "$tmp/stamp_oracle.json"
check stamp_same 0 '' "$cmp" "$tmp/stamp.json" "$tmp/stamp_oracle.json"
expect stamp_end test "$(member "$tmp/stamp.json" end_time_ns)" = 1
expect stamp_windows test "$(member "$tmp/stamp.json" windows)" = 2
finish overflow
