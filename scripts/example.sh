#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the examples and runs the first one: it times a sort and prints
# ticks and nanoseconds. Needs a C compiler and CMake, nothing else (the
# test suite's libraries and tools are for scripts/test.sh); where cc or
# cmake is missing, scripts/setup-debian.sh installs those alone.
# Usage: scripts/example.sh [example-name]   (build tree: build-example/, or
# $TSC_TIMER_EXAMPLE_BUILD)
set -eu
cd "$(dirname "$0")/.."
if ! command -v cc >/dev/null 2>&1 || ! command -v cmake >/dev/null 2>&1 ||
   ! { command -v make >/dev/null 2>&1 || command -v ninja >/dev/null 2>&1; }; then
    scripts/setup-debian.sh --only gcc make cmake
fi
b=${TSC_TIMER_EXAMPLE_BUILD:-build-example}
jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSC_TIMER_BUILD_TESTS=OFF \
      -DTSC_TIMER_BUILD_TOOLS=OFF -DTSC_TIMER_BUILD_BENCH=OFF >/dev/null
cmake --build "$b" -j"$jobs" --target "${1:-basic}" >/dev/null
"$b/examples/${1:-basic}"
