#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds everything and runs the whole test suite (ctest) in build/.
set -eu
cd "$(dirname "$0")/.."
scripts/setup-debian.sh # what is missing: installed, or named (no apt-get)
jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSC_TIMER_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure
