#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds everything and runs the whole test suite (ctest) in build/.
set -eu
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure
