#!/bin/sh
# The run's processes under the MPI launcher (host/dist/dist.h): test_dist with 1 to 4 ranks
# (more ranks than cores: oversubscribed) and with none; the command line under several ranks:
# the version and the usage printed once, every rank's devices in rank order, and a scenario
# refused with one sentence, printed once, and a non-zero status, before any output is written.
# Usage: dist_tests.sh CLNETSIM TEST_DIST SOURCE_DIR JSON_COMPARE
bin=$1 unit=$2 src=$3 compare=$4
. "$src/tests/common/check.sh"
export POCL_DEVICES="pthread"
# what Open MPI needs as root and with more ranks than cores (docs/user-guide.md)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
launch="mpirun --bind-to none"

check unit_alone 0 'test_dist: 1 rank\(s\), MPI no: ok' "$unit" 1 0
for n in 1 2 3 4; do
    # shellcheck disable=SC2086
    check "unit_$n" 0 "test_dist: $n rank\\(s\\), MPI .*: ok" $launch -np "$n" "$unit" "$n" 1
done
# the unit's own failures fail it: a wrong expectation of the ranks
# shellcheck disable=SC2086
check unit_wrong 1 "FAIL .*3 ranks, expected 2" $launch -np 3 "$unit" 2 1

# shellcheck disable=SC2086
check version 0 '^clnetsim ' $launch -np 3 "$bin" --version
expect version_once test "$(grep -c '^clnetsim ' "$tmp/out")" -eq 1
# shellcheck disable=SC2086
check devices 0 'rank 2 of 3 \(local rank 2 of 3 on ' $launch -np 3 "$bin" devices
expect devices_in_order sh -c "grep -o '^rank [0-9] of 3' '$tmp/out' | tr '\n' ';' |
    grep -qx 'rank 0 of 3;rank 1 of 3;rank 2 of 3;'"
expect devices_listed test "$(grep -c 'device.*usable' "$tmp/out")" -eq 3

want="^clnetsim: error: 'run' was started as 2 MPI ranks, and no scenario runs over several ranks yet: start it as one process \\(docs/user-guide.md, \"Several processes\"\\)\$"
# shellcheck disable=SC2086
check run_refused 2 "$want" $launch -np 2 "$bin" run "$src/scenarios/small_grid.ini" \
    --json "$tmp/no.json"
expect run_refused_once test "$(grep -c '^clnetsim: error' "$tmp/out")" -eq 1
expect run_wrote_nothing test ! -e "$tmp/no.json"
for cmd in resume bench selftest tune; do
    # shellcheck disable=SC2086
    check "${cmd}_refused" 2 "^clnetsim: error: '$cmd' was started as 3 MPI ranks" \
        $launch -np 3 "$bin" "$cmd"
done
# one rank under the launcher runs as ever
# shellcheck disable=SC2086
check one_rank 0 '' $launch -np 1 "$bin" run "$src/scenarios/small_grid.ini" -q \
    --json "$tmp/one.json"
check alone 0 '' "$bin" run "$src/scenarios/small_grid.ini" -q --json "$tmp/alone.json"
check one_rank_same 0 "" "$compare" "$tmp/one.json" "$tmp/alone.json"
finish dist
