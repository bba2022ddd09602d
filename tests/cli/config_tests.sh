#!/bin/sh
# Wrong numbers never exit 0: scenario text that inih would silently drop or default, the
# messages that name what the user wrote (docs/when-things-go-wrong.md, "Bad configuration"),
# and the set-up time a run reports. Usage: config_tests.sh CLNETSIM SOURCE_DIR
bin=$1 src=$2
scn=$src/scenarios
. "$src/tests/common/check.sh"

# Text after a section's ']' is refused with its file and line; a comment there is not.
printf '[simulation]\nseed = 2\n[flood] relay_delay = 0.5\n' > "$tmp/after.ini"
check section_text 2 "^clnetsim: error: $tmp/after\.ini:3: section line '\[flood\] relay_delay = 0\.5' has text after '\]'; expected nothing or a comment \(';' or '#'\) after the section name, and each key = value on a line of its own$" \
    "$bin" run "$tmp/after.ini" --json "$tmp/after.json"
expect section_text_no_json test ! -e "$tmp/after.json"
printf '[flood] ; the flood\nrelay_delay = 0.5\n[traffic] # its packets\npackets = 3\n' > "$tmp/comment.ini"
check section_comment 0 '^relay_delay = 0\.5$' "$bin" run "$tmp/comment.ini" --dump-config
check section_comment_packets 0 '^packets = 3$' "$bin" run "$tmp/comment.ini" --dump-config

# A scenario file that sets no key is refused (exit 2, nothing written) unless -s sets one.
empty_msg() { # FILE
    echo "^clnetsim: error: $1: the scenario file sets no key \(it is empty or holds only comments, blank lines and section lines\); expected at least one key = value line, or a -s override such as -s simulation\.seed=1 to run the built-in defaults$"
}
: > "$tmp/empty.ini"
printf '; a comment\n\n# another\n' > "$tmp/comments.ini"
printf '[flood]\n\n[traffic] ; nothing yet\n' > "$tmp/sections.ini"
check empty_file 2 "$(empty_msg "$tmp/empty\.ini")" "$bin" run "$tmp/empty.ini" --json "$tmp/e.json"
expect empty_file_no_json test ! -e "$tmp/e.json"
check comments_only 2 "$(empty_msg "$tmp/comments\.ini")" "$bin" run "$tmp/comments.ini"
check sections_only 2 "$(empty_msg "$tmp/sections\.ini")" "$bin" run "$tmp/sections.ini" --dump-config
check empty_bench 2 "$(empty_msg "$tmp/empty\.ini")" "$bin" bench "$tmp/empty.ini" -q -r 1
check empty_with_set 0 '^seed = 1$' "$bin" run "$tmp/empty.ini" -s simulation.seed=1 --dump-config
check empty_runs_with_set 0 'delivered +[0-9]+ of 1 packets' "$bin" run "$tmp/sections.ini" -s traffic.packets=1

# bench --sizes turns sizes into overrides: a size the scenario refuses names --sizes, not an
# -s argument the user never gave.
check sizes_named 2 "^clnetsim: error: --sizes '2,3' at size 2 \(topology\.rows=1\): \[topology\] rows x cols = 1 x 1 is a single node: expected at least 2 nodes$" \
    "$bin" bench "$scn/small_grid.ini" --sizes 2,3 -q
check sizes_uniform 2 "^clnetsim: error: --sizes '1' at size 1 \(topology\.nodes=1\): \[topology\] nodes = 1: uniform placement needs nodes >= 2" \
    "$bin" bench "$scn/small_mobile.ini" --sizes 1 -q
check sizes_user_set 2 "^clnetsim: error: -s argument 'flood\.ttl=x': \[flood\] ttl = x: not a number" \
    "$bin" bench "$scn/small_grid.ini" --sizes 4 -s flood.ttl=x -q

# The phold model: --dump-config (which stops before any device) writes [simulation], [phold]
# and the core sections, and reads back to the same text; a section of the other model is
# refused, from the file or from -s, naming where it was set.
check phold_dump 0 '^\[phold\]$' "$bin" run "$scn/small_phold.ini" --dump-config
grep -v '^;' "$tmp/out" > "$tmp/phold1.ini"
expect phold_dump_sections sh -c "grep '^\[' '$tmp/phold1.ini' | tr -d '\n' | grep -qx '\[simulation\]\[phold\]\[partition\]\[inject\]\[devices\]'"
check phold_dump_reload 0 '^lps = 1000$' "$bin" run "$tmp/phold1.ini" --dump-config
grep -v '^;' "$tmp/out" > "$tmp/phold2.ini"
expect phold_dump_round_trip cmp -s "$tmp/phold1.ini" "$tmp/phold2.ini"
check phold_flood_key 2 "^clnetsim: error: -s argument 'flood\.ttl=3': \[flood\] ttl: section \[flood\] belongs to the flood model, but this scenario's model is phold$" \
    "$bin" run "$scn/small_phold.ini" -s flood.ttl=3 --dump-config
check phold_in_flood 2 "^clnetsim: error: $scn/small_phold\.ini:13: \[phold\] lps: section \[phold\] belongs to the phold model, but this scenario's model is flood$" \
    "$bin" run "$scn/small_phold.ini" -s simulation.model=flood --dump-config
check flood_made_phold 2 "^clnetsim: error: $scn/small_grid\.ini:13: \[topology\] placement: section \[topology\] belongs to the flood model, but this scenario's model is phold$" \
    "$bin" run "$scn/small_grid.ini" -s simulation.model=phold --dump-config
check phold_keys 0 '^## Model phold$' "$bin" keys

# Control characters in what the user wrote are escaped in messages: the error stays one line
# and no escape sequence reaches the terminal.
esc=$(printf '\033')
check escape_override 2 "^clnetsim: error: -s argument 'flood\.ttl=3\\\\n\\\\x1b\[31mred': \[flood\] ttl = 3\\\\n\\\\x1b\[31mred: not a number; expected an integer in \[0, 2147483647\] \(hops\)$" \
    "$bin" run "$scn/small_grid.ini" -s "$(printf 'flood.ttl=3\n\033[31mred')"
expect escape_override_one_line test "$(wc -l < "$tmp/out")" -eq 1
printf '[flood]\nttl = \033[2J\n' > "$tmp/esc.ini"
check escape_ini_value 2 "^clnetsim: error: $tmp/esc\.ini:2: \[flood\] ttl = \\\\x1b\[2J: not a number; expected an integer in \[0, 2147483647\] \(hops\)$" \
    "$bin" run "$tmp/esc.ini"
expect escape_ini_no_esc sh -c "! grep -q '$esc' '$tmp/out'"
check escape_option 2 "^clnetsim run: unknown option '--x\\\\ty\\\\x1b' \(see clnetsim run --help\)$" \
    "$bin" run "$scn/small_grid.ini" "$(printf -- '--x\ty\033')"
check escape_command 2 "^clnetsim: unknown command 'a\\\\nb' " "$bin" "$(printf 'a\nb')"
expect escape_command_one_line test "$(wc -l < "$tmp/out")" -eq 1

# The set-up time holds the kernel builds, those of opening the devices (self-test, work-group
# search) included: with an empty kernel cache (a cold run) and again with it filled (a warm
# run), setup_s >= build_s > 0, and the summary says both. (Times only, never a speed.)
number() { # FILE NAME: a top-level number member
    grep -o "\"$2\": [0-9.]*" "$1" | head -1 | sed 's/.*: //'
}
for run in cold warm; do
    check "setup_$run" 0 '^wall +[0-9.]+ s simulation \+ [0-9.]+ s setup \([0-9.]+ s kernel builds\), ' \
        env XDG_CACHE_HOME="$tmp/cache" "$bin" run "$scn/small_grid.ini" --json "$tmp/$run.json"
    setup=$(number "$tmp/$run.json" setup_s) build=$(number "$tmp/$run.json" build_s)
    expect "setup_${run}_holds_builds" awk -v s="${setup:-x}" -v b="${build:-x}" \
        'BEGIN { exit !(s ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0 && s >= b) }'
done
expect setup_cache_filled sh -c "ls '$tmp/cache/clnetsim' | grep -q ."

finish config
