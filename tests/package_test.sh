#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs tsc_timer into a scratch prefix, then builds and runs a consumer
# through find_package, through add_subdirectory, and through pkg-config,
# each in the one-file and the many-files mode.
# Usage: package_test.sh SOURCE_DIR SCRATCH_DIR
set -eu
src=$1; work=$2
rm -rf "$work"; mkdir -p "$work"
cmake -S "$src" -B "$work/build" -DTSC_TIMER_BUILD_TESTS=OFF -DTSC_TIMER_BUILD_EXAMPLES=OFF \
      -DTSC_TIMER_BUILD_TOOLS=OFF -DTSC_TIMER_BUILD_BENCH=OFF >/dev/null
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/tsc_timer.h"

cmake -S "$src/tests/package" -B "$work/fp" -DTSC_CONSUME=find_package \
      -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/fp" >/dev/null
"$work/fp/consumer"
"$work/fp/consumer_mf"

cmake -S "$src/tests/package" -B "$work/sub" -DTSC_CONSUME=add_subdirectory \
      -DTSC_SOURCE="$src" >/dev/null
cmake --build "$work/sub" >/dev/null
"$work/sub/consumer"
"$work/sub/consumer_mf"

if command -v pkg-config >/dev/null 2>&1; then
    flags=$(PKG_CONFIG_PATH="$work/prefix/share/pkgconfig" pkg-config --cflags --libs tsc_timer)
    # shellcheck disable=SC2086
    cc "$src/tests/package/consumer.c" $flags -o "$work/pc-consumer"
    "$work/pc-consumer"
    flags=$(PKG_CONFIG_PATH="$work/prefix/share/pkgconfig" pkg-config --cflags --libs tsc_timer-extern)
    printf '#define TSC_TIMER_IMPLEMENTATION\n#include "tsc_timer.h"\n' >"$work/impl.c"
    # shellcheck disable=SC2086
    cc "$src/tests/package/consumer_mf.c" "$src/tests/package/consumer_mf_b.c" "$work/impl.c" \
        $flags -o "$work/pc-consumer-mf"
    "$work/pc-consumer-mf"
fi
echo "package: find_package, add_subdirectory and pkg-config consumers ran"
