#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the examples and runs the first one: it times a sort and prints
# ticks and nanoseconds. Usage: scripts/example.sh [example-name]
set -eu
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target "${1:-basic}" >/dev/null
"build/examples/${1:-basic}"
