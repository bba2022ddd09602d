#!/bin/sh
# The kernels compile without a warning under clang's defaults (those PoCL builds with) for
# every option set the host gives them (host/models/flood/flood_setup.c, create_kernels):
# a warning printed while a user's run builds its kernels is a defect. The target is an x86-64
# CPU with AVX2 and without AVX-512, as PoCL builds for most CPUs: some warnings appear only
# for such a target, and only when code is generated (clang's ABI warning on 16-wide vectors,
# which PoCL 3.1 printed as "65 warnings generated." at a run's first build): each program is
# compiled to LLVM IR, not only parsed. First proves that it catches one
# (tests/analysis/kernel_bad.cl), then builds each program in turn.
# Includes name files by their path under cl/ ("common/philox.clh"), as the host's do.
# Usage: kernel_warnings.sh CLANG SOURCE_DIR
clang=$1 src=$2
flags="--target=x86_64-unknown-linux-gnu -mavx2 -x cl -cl-std=CL1.2 -Xclang
    -finclude-default-header -S -emit-llvm -o /dev/null -Werror"
cl=$src/cl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 built=0

build() { # NAME OPTIONS FILES...: one program, the files in order as the host joins them
    name=$1 opts=$2
    shift 2
    cat "$@" > "$tmp/$name.cl"
    # shellcheck disable=SC2086
    if ! "$clang" $flags -I "$cl" $opts "$tmp/$name.cl" > "$tmp/out" 2>&1; then
        echo "FAIL $name ($opts):"
        sed 's/^/    /' "$tmp/out"
        fail=$((fail + 1))
    fi
    built=$((built + 1))
}

# the check itself: a kernel with a warning must fail
cat "$src/tests/analysis/kernel_bad.cl" > "$tmp/bad.cl"
# shellcheck disable=SC2086
if "$clang" $flags -I "$cl" "$tmp/bad.cl" > /dev/null 2>&1; then
    echo "FAIL: kernel_bad.cl compiled without a warning; the check cannot fail"
    exit 1
fi

build selftest "" "$cl/core/selftest.cl"
build loops "" "$cl/core/loops.cl"
build floor "" "$cl/core/floor.cl"
build phold "" "$cl/phold/phold.cl"
build phold_cpu "" "$cl/phold/phold.cl" "$cl/phold/phold_cpu.cl"
n=0
for scheme in 0 1 2; do
    for conn in "" "-DFLOOD_QUDG=1" "-DFLOOD_QUDG=1 -DFLOOD_CAP=6" "-DFLOOD_CAP=4"; do
        # the last with a team of work-items per transmission (transmit_mobile)
        for extra in "" "-DFLOOD_FLOWS=1" "-DFLOOD_NODE_DROP=1 -DFLOOD_FLOWS=1" \
            "-DFLOOD_TEAM=8 -DFLOOD_FLOWS=1"; do
            opts="$conn $extra"
            [ "$scheme" -ne 0 ] && opts="$opts -DFLOOD_SCHEME=$scheme"
            n=$((n + 1))
            build "flood$n" "$opts" "$cl/common/cells.cl" "$cl/flood/flood.cl"
        done
        # node resources: a capacity alone or energy, static or moving nodes
        for res in "-DFLOOD_ENERGY=0 -DFLOOD_RES_MOBILE=0" "-DFLOOD_ENERGY=1 -DFLOOD_RES_MOBILE=1" \
            "-DFLOOD_ENERGY=1 -DFLOOD_RES_MOBILE=0 -DFLOOD_FLOWS=1"; do
            opts="$conn -DFLOOD_RESOURCES=1 $res"
            [ "$scheme" -ne 0 ] && opts="$opts -DFLOOD_SCHEME=$scheme"
            n=$((n + 1))
            build "res$n" "$opts" "$cl/common/cells.cl" "$cl/flood/flood.cl" "$cl/flood/flood_resources.cl"
        done
    done
done
echo "kernel programs: $built built, $fail with warnings"
[ "$fail" -eq 0 ]
