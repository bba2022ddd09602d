#!/bin/sh
# Installs the Debian 12 packages clnetsim needs to build, test and run on the CPU (PoCL),
# ns-3 (libns3-dev) for the validation against ns-3 in tools/ns3, and clang with its libFuzzer
# runtime (libclang-rt-14-dev) for the configuration fuzzer (tests/fuzz), cppcheck, clang-tidy
# and valgrind for the analysis tests (tests/analysis), Open MPI (libopenmpi-dev, openmpi-bin)
# for the distributed runs (host/dist); then the other OpenCL implementations
# that tests/impls runs the same kernels on: Mesa rusticl (mesa-opencl-icd) and oclgrind from
# Debian, and Intel's OpenCL CPU runtime from PyPI (tools/install_intel_opencl.sh, which needs
# python3-venv).
# Run as root (or through sudo); safe to run again.
set -eu
packages="build-essential cmake pkg-config git ocl-icd-opencl-dev opencl-headers pocl-opencl-icd \
clinfo libinih-dev libclblast-dev python3-matplotlib libns3-dev clang libclang-rt-14-dev cppcheck clang-tidy valgrind \
mesa-opencl-icd oclgrind python3-venv libopenmpi-dev openmpi-bin"
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# shellcheck disable=SC2086
$SUDO apt-get install -y $packages
$SUDO "$(dirname "$0")/install_intel_opencl.sh"
