#!/bin/sh
# valgrind memcheck on small scenarios: no error and no leak in clnetsim's own code
# (valgrind_check.py says what counts). Usage: valgrind_run.sh CLNETSIM LEAKY SOURCE_DIR
bin=$1 leaky=$2 src=$3
. "$src/tests/common/check.sh"
checker="python3 $src/tests/analysis/valgrind_check.py"
vg="valgrind --xml=yes --leak-check=full --track-origins=no --child-silent-after-fork=yes"

# The checker sees errors when there are some: a deliberate leak and uninitialised read.
$vg --xml-file="$tmp/leaky.xml" "$leaky" > /dev/null 2>&1
check checker_finds_leak 1 'valgrind: 2 errors in clnetsim.s code \(1 leaks\)' \
    $checker "$tmp/leaky.xml" "$leaky"

# Kernels built and cached first, so that valgrind's runs load clnetsim's program binaries.
# (PoCL still compiles its work-group functions for the CPU valgrind shows it, once: the first
# run on a machine takes minutes, later ones seconds.)
for s in small_mobile lab_line; do
    check "warm_$s" 0 '' "$bin" run "$src/scenarios/$s.ini" -q
done
# The window loop (moving nodes) and whole packets.
$vg --xml-file="$tmp/mobile.xml" "$bin" run "$src/scenarios/small_mobile.ini" -q \
    --json "$tmp/m.json" > /dev/null 2>&1
check valgrind_mobile 0 ' 0 errors in clnetsim' $checker "$tmp/mobile.xml" "$bin"
$vg --xml-file="$tmp/line.xml" "$bin" run "$src/scenarios/lab_line.ini" -q > /dev/null 2>&1
check valgrind_whole_packets 0 ' 0 errors in clnetsim' $checker "$tmp/line.xml" "$bin"
finish valgrind
