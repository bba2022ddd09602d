#!/bin/sh
# Installs Intel's OpenCL CPU runtime from PyPI and the OpenCL vendors folder that selects, for
# one process, PoCL, Intel's runtime and Mesa rusticl together (docs/user-guide.md, "OpenCL
# implementations"). Called by tools/install_deps.sh after the Debian packages; run as root (or
# through sudo); safe to run again.
#
#   PREFIX/intel-opencl-rt   a Python virtual environment holding the runtime (intel-opencl-rt)
#                            and the compiler libraries it loads without declaring them
#                            (intel-cmplr-lib-rt: libimf, libsvml, libirng, libintlc); pip pulls
#                            its declared dependencies, TBB (tbb, tcmlib) and the licence
#                            package. Its lib/ also holds Intel's own libOpenCL.so.1, which must
#                            never be put on the library path: Debian's ICD loader stays the one
#                            loaded.
#   PREFIX/opencl-vendors    intel-cpu.icd (the absolute path of libintelocl.so, whose RUNPATH
#                            $ORIGIN finds the other libraries beside it) and copies of Debian's
#                            pocl.icd and rusticl.icd. OCL_ICD_VENDORS=PREFIX/opencl-vendors
#                            selects these three; without it the loader reads /etc/OpenCL/vendors,
#                            which is left unchanged, so plain runs and tests see PoCL alone.
#
# PREFIX is /opt/clnetsim unless CLNETSIM_OPENCL_PREFIX says otherwise; the versions are pinned
# so that every machine tests the same runtime (tests/impls).
set -eu
prefix="${CLNETSIM_OPENCL_PREFIX:-/opt/clnetsim}"
version="2026.2.0"
venv="$prefix/intel-opencl-rt"
vendors="$prefix/opencl-vendors"
debian_vendors=/etc/OpenCL/vendors
python="${PYTHON:-python3}"

fail() {
    echo "install_intel_opencl.sh: $*" >&2
    exit 1
}

for icd in pocl.icd rusticl.icd; do
    [ -f "$debian_vendors/$icd" ] ||
        fail "$debian_vendors/$icd is missing: install the Debian packages first (tools/install_deps.sh installs pocl-opencl-icd and mesa-opencl-icd)"
done

mkdir -p "$prefix"
if [ ! -x "$venv/bin/pip" ]; then
    # (Debian's python3 needs python3-venv for this; tools/install_deps.sh installs it)
    "$python" -m venv "$venv" || fail "could not create the virtual environment $venv with $python -m venv"
fi
# pip leaves an installed, equal version alone, so a second run downloads nothing.
"$venv/bin/pip" install --disable-pip-version-check --quiet \
    "intel-opencl-rt==$version" "intel-cmplr-lib-rt==$version" ||
    fail "pip could not install intel-opencl-rt==$version and intel-cmplr-lib-rt==$version into $venv"
lib="$venv/lib/libintelocl.so"
[ -f "$lib" ] || fail "$lib is missing after pip install intel-opencl-rt==$version"

# Each file is written beside its place and renamed into it, so that a process reading the
# folder meanwhile sees the old file or the new one, never half of one.
mkdir -p "$vendors"
printf '%s\n' "$lib" > "$vendors/intel-cpu.icd.new"
mv "$vendors/intel-cpu.icd.new" "$vendors/intel-cpu.icd"
for icd in pocl.icd rusticl.icd; do
    cp "$debian_vendors/$icd" "$vendors/$icd.new"
    mv "$vendors/$icd.new" "$vendors/$icd"
done

# The runtime must load: a missing library or an unsupported CPU shows here, not in the tests.
if command -v clinfo > /dev/null 2>&1; then
    listing=$(OCL_ICD_VENDORS="$vendors" RUSTICL_ENABLE=llvmpipe clinfo -l 2>&1) ||
        fail "clinfo -l failed with OCL_ICD_VENDORS=$vendors: $listing"
    echo "$listing" | grep -q "Intel(R) OpenCL" ||
        fail "Intel's OpenCL runtime ($lib) does not load; clinfo -l with OCL_ICD_VENDORS=$vendors lists: $listing"
fi
echo "Intel's OpenCL CPU runtime $version is in $venv; OCL_ICD_VENDORS=$vendors RUSTICL_ENABLE=llvmpipe selects PoCL, Intel and rusticl (llvmpipe)"
