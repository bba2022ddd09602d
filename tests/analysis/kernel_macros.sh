#!/bin/sh
# No macro of the kernels opens a brace it does not close, or closes one it did not open: a
# kernel's loops and blocks are written out in the kernel, where a reader (and a compiler's
# message) can see them, and shared steps are inline functions. First proves that it catches
# such a macro (tests/analysis/macro_bad.clh), then reads every file under cl/.
# Usage: kernel_macros.sh SOURCE_DIR
src=$1
# FILE...: prints FILE:LINE: NAME for each #define whose body (continuation lines included,
# comments left out) holds unequal numbers of { and }
unbalanced() {
    awk '
    function strip(s) { # comments out: /* ... */ on one line, then a comment left open
        gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", s)
        if (incomment) { if (s ~ /\*\//) { sub(/^.*\*\//, "", s); incomment = 0 } else return "" }
        if (s ~ /\/\*/) { sub(/\/\*.*$/, "", s); incomment = 1 }
        sub(/\/\/.*$/, "", s)
        return s
    }
    FNR == 1 { indef = 0; incomment = 0 }
    {
        line = $0
        if (!indef && line ~ /^[ \t]*#[ \t]*define[ \t]/) {
            indef = 1; depth = 0; start = FNR
            name = line; sub(/^[ \t]*#[ \t]*define[ \t]+/, "", name); sub(/[ \t(].*$/, "", name)
        }
        if (!indef)
            next
        body = strip(line)
        depth += gsub(/\{/, "{", body) - gsub(/\}/, "}", body)
        if (line !~ /\\$/) {
            if (depth != 0)
                printf "%s:%d: %s\n", FILENAME, start, name
            indef = 0
        }
    }' "$@"
}
if [ -z "$(unbalanced "$src/tests/analysis/macro_bad.clh")" ]; then
    echo "FAIL: macro_bad.clh passed; the check cannot fail"
    exit 1
fi
found=$(unbalanced $(find "$src/cl" -name '*.cl' -o -name '*.clh' | sort))
if [ -n "$found" ]; then
    echo "FAIL: macros that open or close a brace they do not close or open:"
    echo "$found" | sed "s|^$src/|    |"
    exit 1
fi
echo "kernel macros: none opens or closes a brace alone"
