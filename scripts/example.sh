#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the examples and runs the first one: it times a sort and prints
# ticks and nanoseconds. Usage: scripts/example.sh [example-name]
set -eu
cd "$(dirname "$0")/.."
scripts/setup-debian.sh # what is missing: installed, or named (no apt-get)
jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs" --target "${1:-basic}" >/dev/null
"build/examples/${1:-basic}"
