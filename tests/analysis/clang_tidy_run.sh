#!/bin/sh
# clang-tidy on every host/ source with the checks of .clang-tidy, every finding an error.
# Usage: clang_tidy_run.sh CLANG_TIDY BUILD_DIR SOURCE_DIR [JOBS]
# BUILD_DIR holds compile_commands.json (the flags each source is built with).
tidy=$1 build=$2 src=$3 jobs=${4:-2}
. "$src/tests/common/check.sh"

# The checks do report a finding, and fail, on a program with defects made on purpose.
check tidy_finds_null_dereference 1 'clang-analyzer-core.NullDereference' \
    "$tidy" --quiet --warnings-as-errors='*' "$src/tests/analysis/tidy_bad.c" -- -std=c11
expect tidy_finds_atoi grep -q 'cert-err34-c' "$tmp/out"

# Every source of host/, JOBS at a time (xargs exits with 123 when one of them fails).
cd "$src" || exit 1
find host -name '*.c' | sort > "$tmp/sources"
expect host_sources test -s "$tmp/sources"
check tidy_host 0 '' sh -c 'xargs -P "$1" -n 1 "$2" --quiet --warnings-as-errors="*" -p "$3" < "$4"' \
    sh "$jobs" "$tidy" "$build" "$tmp/sources"
finish clang-tidy
