#!/bin/sh
# Installs the Debian 12 packages clnetsim needs to build, test and run on the CPU (PoCL),
# ns-3 (libns3-dev) for the validation against ns-3 in tools/ns3, and clang with its libFuzzer
# runtime (libclang-rt-14-dev) for the configuration fuzzer (tests/fuzz), cppcheck, clang-tidy
# and valgrind for the analysis tests (tests/analysis).
# Run as root (or through sudo); safe to run again.
set -eu
packages="build-essential cmake pkg-config git ocl-icd-opencl-dev opencl-headers pocl-opencl-icd \
clinfo libinih-dev libclblast-dev python3-matplotlib libns3-dev clang libclang-rt-14-dev cppcheck clang-tidy valgrind oclgrind"
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# shellcheck disable=SC2086
$SUDO apt-get install -y $packages
