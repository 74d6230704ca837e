#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs tsc_timer into a scratch prefix, then builds and runs the
# consumer of tests/package through find_package, add_subdirectory and
# FetchContent (from an archive of the sources on this machine), each from a
# project of C, of C++ and of both, each target in each language (one-file,
# many-files, and C and C++ files in one many-files program); through
# add_subdirectory (and FetchContent, C and C++) the consumer also installs
# and exports a library of its own linked to tsc_timer::extern, which
# tests/package/downstream finds and links after its install. Then
# pkg-config, both modes.
# Usage: package_test.sh SOURCE_DIR SCRATCH_DIR
set -eu
src=$1; work=$2
rm -rf "$work"; mkdir -p "$work"
# step LOG COMMAND...: runs it, its output in LOG, shown only where it fails.
step() {
    log=$1; shift
    "$@" >"$log" 2>&1 || { echo "FAIL: $*"; cat "$log"; exit 1; }
}
step "$work/install.log" cmake -S "$src" -B "$work/build" -DTSC_TIMER_BUILD_TESTS=OFF \
    -DTSC_TIMER_BUILD_EXAMPLES=OFF -DTSC_TIMER_BUILD_TOOLS=OFF -DTSC_TIMER_BUILD_BENCH=OFF
step "$work/install.log" cmake --install "$work/build" --prefix "$work/prefix"
test -f "$work/prefix/include/tsc_timer.h"
# What a release archive holds of the sources, for FetchContent's URL.
tar -czf "$work/tsc_timer.tar.gz" -C "$src" CMakeLists.txt cmake include LICENSE

for way in find_package add_subdirectory FetchContent; do
    for langs in C CXX "C;CXX"; do
        b=$work/$way-$(echo "$langs" | tr ';' '+')
        set -- -DTSC_CONSUME=$way "-DTSC_LANGS=$langs"
        case $way in
        find_package) set -- "$@" -DCMAKE_PREFIX_PATH="$work/prefix";;
        add_subdirectory) set -- "$@" -DTSC_SOURCE="$src" -DTSC_EXPORT=ON;;
        FetchContent) # (the defaults, without the install, in C and in C++)
            set -- "$@" -DTSC_URL="file://$work/tsc_timer.tar.gz"
            [ "$langs" != "C;CXX" ] || set -- "$@" -DTSC_EXPORT=ON;;
        esac
        case " $* " in *" -DTSC_EXPORT=ON "*) export=1;; *) export=0;; esac
        step "$b.log" cmake -S "$src/tests/package" -B "$b" "$@"
        step "$b.log" cmake --build "$b"
        ran=""
        for l in $(echo "$langs" | tr ';' ' '); do
            "$b/consumer_$l"; "$b/consumer_mf_$l"; ran="$ran consumer_$l consumer_mf_$l"
        done
        if [ "$langs" = "C;CXX" ]; then "$b/consumer_mf_mixed"; ran="$ran consumer_mf_mixed"; fi
        if [ $export = 1 ]; then
            step "$b.log" cmake --install "$b" --prefix "$b-prefix"
            step "$b.log" cmake -S "$src/tests/package/downstream" -B "$b-down" "-DTSC_LANGS=$langs" \
                -DCMAKE_PREFIX_PATH="$b-prefix"
            step "$b.log" cmake --build "$b-down"
            "$b-down/downstream"; ran="$ran downstream"
        fi
        echo "package: $way, LANGUAGES $langs:$ran ran"
    done
done

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
echo "package: find_package, add_subdirectory, FetchContent (C, C++, both; an exporting consumer) and pkg-config consumers ran"
