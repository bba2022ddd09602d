# Shared by the tests/impls scripts (sourced, POSIX sh; $bin is clnetsim): a temporary folder
# (tests/common/check.sh's when that was sourced first), and the implementations by short name:
# pocl, intel, rusticl.
if [ -z "${tmp:-}" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
fi

# The platform name that each implementation reports.
impls_platform() {
    case $1 in
    pocl) echo "Portable Computing Language" ;;
    intel) echo "Intel(R) OpenCL" ;;
    rusticl) echo "rusticl" ;;
    *) echo "impls_common.sh: unknown implementation '$1'" >&2; return 1 ;;
    esac
}

# The --devices text that selects the implementation alone, as the user guide tells users.
impls_selector() {
    case $1 in
    pocl) echo "Portable:" ;;
    intel) echo "Intel:" ;;
    rusticl) echo "rusticl:" ;;
    *) echo "impls_common.sh: unknown implementation '$1'" >&2; return 1 ;;
    esac
}

# The index of the implementation's first usable device in `clnetsim devices` (its table's
# columns are separated by two spaces or more; an unusable device ends with its reason).
impls_index() {
    platform=$(impls_platform "$1") || return 1
    awk -F '  +' -v p="$platform" '$1 ~ /^[0-9]+$/ && $2 == p && !/unusable: / { print $1; exit }' \
        "$tmp/devices"
}

# "intel+pocl" as "2,0": several implementations in one --devices list
impls_indices() {
    list=
    for impl in $(echo "$1" | tr + ' '); do
        i=$(impls_index "$impl")
        [ -n "$i" ] || { echo "no usable device of $impl in \`clnetsim devices\`" >&2; return 1; }
        list="${list:+$list,}$i"
    done
    echo "$list"
}

# Every implementation named must have a usable device; if one does not, CI fails (CI=true:
# the tests must run there) and elsewhere the test is skipped with the reason.
impls_require() {
    "$bin" devices > "$tmp/devices" 2>&1
    missing=
    for impl in "$@"; do
        [ -n "$(impls_index "$impl")" ] || missing="$missing $impl ($(impls_platform "$impl"))"
    done
    [ -z "$missing" ] && return 0
    echo "missing OpenCL implementation:$missing, with OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-(unset)}" \
        "and RUSTICL_ENABLE=${RUSTICL_ENABLE:-(unset)}; tools/install_deps.sh installs them" \
        "(docs/user-guide.md, \"OpenCL implementations\"). \`clnetsim devices\` lists:"
    sed 's/^/    /' "$tmp/devices"
    if [ "${CI:-}" = true ]; then
        echo "FAIL: CI=true, so every implementation must be present"
        exit 1
    fi
    echo "skipped: not under CI (CI=true makes this a failure)"
    exit 77
}
