#!/bin/sh
# A bounded libFuzzer run of the checkpoint reader's target: run_fuzz_checkpoint.sh FUZZER
# SOURCE_DIR WORK_DIR SECONDS. The corpus grows in WORK_DIR/corpus across runs (seeded from
# tests/fuzz/ckpt_seeds and ckpt_regressions); a failing input is saved in WORK_DIR/artifacts
# and the run fails: copy the file into tests/fuzz/ckpt_regressions/ once fixed, so that
# every build replays it.
set -eu
fuzzer=$1 src=$2 work=$3 seconds=$4
mkdir -p "$work/corpus" "$work/artifacts"
for f in "$src"/tests/fuzz/ckpt_seeds/* "$src"/tests/fuzz/ckpt_regressions/*; do
    [ -f "$f" ] && cp "$f" "$work/corpus/seed-$(basename "$f")"
done
# The target sets each input's length and CRC-32 itself, so mutations reach the fields.
set +e
"$fuzzer" "$work/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    > "$work/fuzz.log" 2>&1
rc=$?
set -e
grep -E 'stat::number_of_executed_units|Done [0-9]+ runs|ERROR|SUMMARY' "$work/fuzz.log" || true
if [ "$rc" -ne 0 ] || ls "$work"/artifacts/* >/dev/null 2>&1; then
    echo "fuzz_checkpoint: a failing input was found (see $work/fuzz.log); it is in $work/artifacts/" >&2
    tail -n 60 "$work/fuzz.log" >&2 || true
    exit 1
fi
echo "fuzz_checkpoint: no failure in $seconds s"
