#!/bin/sh
# A bounded libFuzzer run of the configuration target: run_fuzz.sh FUZZER DICT_TOOL SOURCE_DIR
# WORK_DIR SECONDS. The corpus grows in WORK_DIR/corpus across runs (seeded from scenarios/
# and tests/fuzz); a failing input is saved in WORK_DIR/artifacts and the run fails: copy the
# file into tests/fuzz/regressions/ once fixed, so that every build replays it.
set -eu
fuzzer=$1 dict_tool=$2 src=$3 work=$4 seconds=$5
mkdir -p "$work/corpus" "$work/artifacts"
"$dict_tool" > "$work/config.dict"
for f in "$src"/scenarios/*.ini "$src"/scenarios/bench/*.ini "$src"/tests/fuzz/seeds/* \
         "$src"/tests/fuzz/regressions/*; do
    [ -f "$f" ] && cp "$f" "$work/corpus/seed-$(basename "$f")"
done
# Leaks are checked at the end of every input (-detect_leaks), hangs beyond 10 s per input and
# more than 2 GiB of memory fail the run.
set +e
"$fuzzer" "$work/corpus" -dict="$work/config.dict" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -detect_leaks=1 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" > "$work/fuzz.log" 2>&1
rc=$?
set -e
cat "$work/fuzz.log" | grep -E 'stat::number_of_executed_units|Done [0-9]+ runs|ERROR|SUMMARY' || true
if [ "$rc" -ne 0 ] || ls "$work"/artifacts/* >/dev/null 2>&1; then
    echo "fuzz_config: a failing input was found (see $work/fuzz.log); it is in $work/artifacts/" >&2
    tail -n 60 "$work/fuzz.log" >&2 || true
    exit 1
fi
echo "fuzz_config: no failure in $seconds s"
