# Shared by the command-line test scripts (sourced, POSIX sh): a temporary folder, pass and
# fail counts, the two kinds of check, and the comparison of two results (same, with the
# script's $cmp). The sourcing script may use $tmp/out only through check, which overwrites
# it, and $tmp/cmp only through same.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

check() { # NAME EXPECTED_STATUS PATTERN(stdout+stderr, grep -E) COMMAND...
    name=$1 want=$2 pattern=$3
    shift 3
    "$@" > "$tmp/out" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: exit $got, expected $want"; sed 's/^/    /' "$tmp/out"; fail=$((fail + 1)); return
    fi
    if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$tmp/out"; then
        echo "FAIL $name: output does not match /$pattern/"; sed 's/^/    /' "$tmp/out"; fail=$((fail + 1)); return
    fi
    pass=$((pass + 1))
}

expect() { # NAME followed by a shell test (or any command): counts whether it succeeds
    name=$1
    shift
    if "$@"; then pass=$((pass + 1)); else echo "FAIL $name"; fail=$((fail + 1)); fi
}

finish() { # [LABEL]: prints the counts; the script's exit status is 0 only without failures
    echo "${1:+$1: }$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

same() { # NAME A.json B.json: every contract member of two results equal ($cmp: json_compare)
    if "$cmp" "$2" "$3" > "$tmp/cmp" 2>&1; then pass=$((pass + 1)); else
        echo "FAIL $1:"; sed 's/^/    /' "$tmp/cmp"; fail=$((fail + 1)); fi
}
