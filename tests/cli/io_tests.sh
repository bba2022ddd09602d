#!/bin/sh
# Files that cannot be read or written: exit 2, one sentence naming the file and the reason,
# and no output file left, complete or partial (docs/when-things-go-wrong.md).
# Usage: io_tests.sh CLNETSIM SOURCE_DIR
bin=$1 src=$2
scn=$src/scenarios
. "$src/tests/common/check.sh"

# The device programs are built (and cached) first: the limits below must hit the outputs
# (PoCL aborts when it cannot write its kernel cache). `bench` also builds the empty window's.
check warm 0 '' "$bin" run "$scn/small_flows.ini" -q
check warm_bench 0 '' "$bin" bench "$scn/small_grid.ini" -q -r 1
no_outputs() { # NAME: nothing but the listed inputs in $tmp/w
    if [ -n "$(ls -A "$tmp/w")" ]; then
        echo "FAIL $1: files left: $(ls -A "$tmp/w")"; fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}
mkdir "$tmp/w"

# A file-size limit (as a full disk would): the write fails, both outputs are withdrawn.
check json_too_large 2 "cannot write the JSON output '$tmp/w/r\.json': File too large" \
    sh -c "ulimit -f 1; exec '$bin' run '$scn/small_flows.ini' -q --json '$tmp/w/r.json'"
no_outputs json_too_large
check csv_too_large 2 "cannot write the packets CSV '$tmp/w/p\.csv': File too large" \
    sh -c "ulimit -f 2; exec '$bin' run '$scn/small_flows.ini' -q --json '$tmp/w/r.json' --packets '$tmp/w/p.csv'"
no_outputs csv_too_large
check bench_too_large 2 "cannot write the JSON output '$tmp/w/b\.json': File too large" \
    sh -c "ulimit -f 1; exec '$bin' bench '$scn/small_grid.ini' -q -r 1 --json '$tmp/w/b.json' --csv '$tmp/w/b.csv' > /dev/null"
no_outputs bench_too_large

# A path through a file, and a folder without write permission (root may write anywhere, so
# that case is only checked for other users).
touch "$tmp/plain"
check json_not_a_folder 2 "cannot write the JSON output '$tmp/plain/r\.json': Not a directory" \
    "$bin" run "$scn/small_grid.ini" -q --json "$tmp/plain/r.json"
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    check json_no_permission 2 "cannot write the JSON output '$tmp/ro/r\.json': Permission denied" \
        "$bin" run "$scn/small_grid.ini" -q --json "$tmp/ro/r.json"
    chmod 755 "$tmp/ro"
else
    echo "note: running as root, the permission case is not checked"
fi

# Scenario files that are not INI text.
check scenario_folder 2 "$tmp/w: cannot read the scenario file: Is a directory" "$bin" run "$tmp/w"
head -c 3000 "$bin" > "$tmp/binary.ini"
check scenario_binary 2 "binary\.ini:1: contains a NUL byte" "$bin" run "$tmp/binary.ini"
head -c 1100000 /dev/zero | tr '\0' 'a' > "$tmp/huge.ini"
check scenario_huge 2 "huge\.ini: file is larger than 1048576 bytes" "$bin" run "$tmp/huge.ini"
# A FIFO or a device as the scenario, the checkpoint to resume or the bench file to compare
# with: refused before open() (which would wait for a writer of the FIFO forever).
mkfifo "$tmp/in.fifo"
check scenario_fifo 2 "^clnetsim: error: $tmp/in\.fifo: cannot read the scenario file: it is a FIFO, not a regular file\$" \
    timeout -k 10 20 "$bin" run "$tmp/in.fifo" -q
check scenario_dev_null 2 "^clnetsim: error: /dev/null: cannot read the scenario file: it is a character device, not a regular file\$" \
    timeout -k 10 20 "$bin" run /dev/null -q
check checkpoint_in_fifo 2 "^clnetsim: error: cannot resume from '$tmp/in\.fifo': it is a FIFO, not a regular file\$" \
    timeout -k 10 20 "$bin" resume "$tmp/in.fifo" -q
check bench_compare_fifo 2 "^clnetsim: error: cannot read the bench result file '$tmp/in\.fifo': it is a FIFO, not a regular file\$" \
    timeout -k 10 20 "$bin" bench "$scn/small_grid.ini" -q -r 1 --compare "$tmp/in.fifo"

# A good run afterwards writes both files, with the permissions of any new file.
check run_ok 0 '' sh -c "umask 022; exec '$bin' run '$scn/small_flows.ini' -q --json '$tmp/w/r.json' --packets '$tmp/w/p.csv'"
expect outputs_written test -s "$tmp/w/r.json" -a -s "$tmp/w/p.csv"
expect outputs_mode sh -c "[ \"\$(stat -c %a '$tmp/w/r.json')\" = 644 ]"
# Outputs that are not regular files (as root, a rename would replace any of them). A symbolic
# link is followed: its target gets the results and the link stays a link.
touch "$tmp/target.json" && ln -s target.json "$tmp/link.json"
check link_run 0 '' "$bin" run "$scn/small_grid.ini" -q --json "$tmp/link.json"
expect link_still_link test -L "$tmp/link.json"
expect link_target_written grep -q '"complete": true' "$tmp/target.json"
ln -s new.json "$tmp/dangling.json"
check dangling_link_run 0 '' "$bin" run "$scn/small_grid.ini" -q --json "$tmp/dangling.json"
expect dangling_link_still_link test -L "$tmp/dangling.json"
expect dangling_link_target_written grep -q '"complete": true' "$tmp/new.json"
# A character device is written in place: /dev/null stays the device it was. A binary that
# would replace it (or the link /dev/stdout) is caught first on the link above and on a null
# device made here (as root), so that these tests never break the machine's /dev.
safe=1
test -L "$tmp/link.json" -a -L "$tmp/dangling.json" || safe=0
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/null" c 1 3 2> /dev/null; then
    check own_null 0 '' "$bin" run "$scn/small_grid.ini" -q --json "$tmp/null"
    expect own_null_still_device test -c "$tmp/null"
    test -c "$tmp/null" || safe=0
fi
before=$(stat -c '%F %t:%T %i' /dev/null)
if [ "$safe" -eq 1 ]; then
    check dev_null 0 '' "$bin" run "$scn/small_grid.ini" -q --json /dev/null --packets /dev/null
    expect dev_null_still_device test "$(stat -c '%F %t:%T %i' /dev/null)" = "$before"
    expect dev_null_no_temporary sh -c "! ls /dev | grep -q '^null\.tmp\.'"
else
    echo "FAIL dev_null: not run, the binary replaced a device with a file"; fail=$((fail + 1))
fi
# /dev/stdout, piped and redirected to a file.
if [ "$safe" -eq 1 ]; then
    check dev_stdout_pipe 0 '' sh -c "'$bin' run '$scn/small_grid.ini' -q --json /dev/stdout | grep -q '\"complete\": true'"
    check dev_stdout_file 0 '' sh -c "'$bin' run '$scn/small_grid.ini' -q --json /dev/stdout > '$tmp/so.json'"
    expect dev_stdout_file_written grep -q '"complete": true' "$tmp/so.json"
    expect dev_stdout_still_link test -L /dev/stdout
fi
# A FIFO is written in place when a process reads it, refused (nothing runs) when none does.
mkfifo "$tmp/fifo"
check fifo_no_reader 2 "^clnetsim: error: cannot write the JSON output '$tmp/fifo': no process reads the FIFO\$" \
    timeout -k 10 20 "$bin" run "$scn/small_grid.ini" -q --json "$tmp/fifo"
check trace_fifo_no_reader 2 "cannot write the injector trace '$tmp/fifo': no process reads the FIFO" \
    timeout -k 10 20 "$bin" run "$scn/small_grid.ini" -q --trace-inject "$tmp/fifo"
cat "$tmp/fifo" > "$tmp/fifo.out" &
reader=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do # until cat has opened it
    timeout -k 10 20 "$bin" run "$scn/small_grid.ini" -q --json "$tmp/fifo" 2> /dev/null
    got=$?
    [ "$got" -ne 2 ] && break
    sleep 0.2
done
[ "$got" -eq 2 ] && kill "$reader"
wait "$reader"
expect fifo_reader_status test "$got" -eq 0
expect fifo_reader_got_results grep -q '"complete": true' "$tmp/fifo.out"
expect fifo_still_fifo test -p "$tmp/fifo"
# Other kinds of file are refused; a checkpoint must be a regular file.
mkdir "$tmp/dir"
check json_directory 2 "^clnetsim: error: cannot write the JSON output '$tmp/dir': Is a directory\$" \
    "$bin" run "$scn/small_grid.ini" -q --json "$tmp/dir"
if [ "$safe" -eq 1 ]; then
    check checkpoint_device 2 "^clnetsim: error: cannot write the checkpoint '/dev/null': it is a character device, not a regular file\$" \
        "$bin" run "$scn/small_grid.ini" -q --checkpoint /dev/null
fi
check checkpoint_fifo 2 "cannot write the checkpoint '$tmp/fifo': it is a FIFO, not a regular file" \
    timeout -k 10 20 "$bin" run "$scn/small_grid.ini" -q --checkpoint "$tmp/fifo"
expect dev_null_still_device_at_end test "$(stat -c '%F %t:%T %i' /dev/null)" = "$before"

# Two outputs, or an output and an input, that are one file: refused before anything runs,
# naming both, and nothing is written. Devices may take several outputs.
mkdir "$tmp/s" && cp "$scn/small_grid.ini" "$tmp/s/X.ini" && cp "$tmp/s/X.ini" "$tmp/X.orig"
check same_json_packets 2 "^clnetsim: error: cannot write --packets '$tmp/s/r\.json': it is the same file as --json '$tmp/s/r\.json'\$" \
    "$bin" run "$scn/small_flows.ini" -q --json "$tmp/s/r.json" --packets "$tmp/s/r.json"
check same_trace_json 2 "^clnetsim: error: cannot write --trace-inject '$tmp/s/r\.json': it is the same file as --json '$tmp/s/\./r\.json'\$" \
    "$bin" run "$tmp/s/X.ini" -q --trace-inject "$tmp/s/r.json" --json "$tmp/s/./r.json"
check same_json_scenario 2 "^clnetsim: error: cannot write --json '$tmp/s/X\.ini': it is the same file as the scenario '$tmp/s/X\.ini'\$" \
    "$bin" run "$tmp/s/X.ini" -q --json "$tmp/s/X.ini"
ln -s X.ini "$tmp/s/L.ini"
check same_checkpoint_scenario 2 "cannot write --checkpoint '$tmp/s/L\.ini': it is the same file as the scenario '$tmp/s/X\.ini'" \
    "$bin" run "$tmp/s/X.ini" -q --checkpoint "$tmp/s/L.ini"
check same_checkpoint_json 2 "cannot write --checkpoint '$tmp/s/c\.ckpt': it is the same file as --json '$tmp/s/c\.ckpt'" \
    "$bin" run "$tmp/s/X.ini" -q --checkpoint "$tmp/s/c.ckpt" --json "$tmp/s/c.ckpt"
check same_bench_outputs 2 "^clnetsim: error: cannot write --csv '$tmp/s/b\.json': it is the same file as --json '$tmp/s/b\.json'\$" \
    "$bin" bench "$tmp/s/X.ini" -q -r 1 --json "$tmp/s/b.json" --csv "$tmp/s/b.json"
expect same_scenario_kept cmp -s "$tmp/s/X.ini" "$tmp/X.orig"
expect same_nothing_written test "$(ls "$tmp/s")" = "$(printf 'L.ini\nX.ini')"
check ckpt_make 130 '' env CLNETSIM_TEST_RAISE=INT@2 "$bin" run "$scn/small_mobile.ini" -q --checkpoint "$tmp/s/D.ckpt"
cp "$tmp/s/D.ckpt" "$tmp/D.orig"
check same_resume_json 2 "^clnetsim: error: cannot write --json '$tmp/s/D\.ckpt': it is the same file as the checkpoint resumed from '$tmp/s/D\.ckpt'\$" \
    "$bin" resume "$tmp/s/D.ckpt" -q --json "$tmp/s/D.ckpt"
expect same_resume_kept cmp -s "$tmp/s/D.ckpt" "$tmp/D.orig"
if [ "$safe" -eq 1 ]; then
    check null_twice 0 '' "$bin" run "$scn/small_flows.ini" -q --json /dev/null --packets /dev/null --trace-inject /dev/null
fi

# Standard output that cannot be written (a full disk): status 1 and one message, never 0.
full="^clnetsim: error: cannot write to standard output: No space left on device\$"
check stdout_full_dump_config 1 "$full" sh -c "'$bin' run '$scn/small_grid.ini' --dump-config > /dev/full"
check stdout_full_keys 1 "$full" sh -c "'$bin' keys > /dev/full"
check stdout_full_devices 1 "$full" sh -c "'$bin' devices > /dev/full"
check stdout_full_summary 1 "$full" sh -c "'$bin' run '$scn/small_grid.ini' --json '$tmp/full.json' > /dev/full"
expect stdout_full_summary_json grep -q '"complete": true' "$tmp/full.json"
check stdout_full_bench 1 "$full" sh -c "'$bin' bench '$scn/small_grid.ini' -q -r 1 > /dev/full"
check stdout_full_help 1 "$full" sh -c "'$bin' --help > /dev/full"
finish io
