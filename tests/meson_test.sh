#!/bin/sh
# SPDX-License-Identifier: MIT
# tsc_timer as a Meson subproject: tests/meson with a copy of what a user
# vendors (meson.build, meson/, include/) in subprojects/tsc_timer, built as
# a C, a C++ (no C compiler) and a C and C++ project; every program runs.
# Usage: meson_test.sh SOURCE_DIR SCRATCH_DIR   (77: no meson or ninja here)
set -eu
src=$1; work=$2
for p in meson ninja; do
    command -v $p >/dev/null 2>&1 || { echo "meson: skipped, no $p here"; exit 77; }
done
rm -rf "$work"; mkdir -p "$work"
# meson.build states the header's version.
v=$(sed -n 's/^#define TSC_TIMER_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$src/include/tsc_timer.h" |
    tr '\n' . | sed 's/\.$//')
grep -q "^project('tsc_timer', version: '$v'" "$src/meson.build" ||
    { echo "FAIL: meson.build's project version is not the header's, $v"; exit 1; }
for langs in c cpp c,cpp; do
    d=$work/$(echo "$langs" | tr ',' '+')
    mkdir -p "$d/subprojects/tsc_timer"
    cp "$src/tests/meson/meson.build" "$src/tests/meson/meson_options.txt" "$src"/tests/package/*.c "$d"
    cp -R "$src/meson.build" "$src/meson" "$src/include" "$src/LICENSE" "$d/subprojects/tsc_timer"
    log=$d.log
    # A C++ project is set up as on a machine without a C compiler: the
    # subproject then compiles its implementation as C++.
    cc=${CC:-cc}; [ "$langs" = cpp ] && cc=/bin/false
    { CC=$cc meson setup "$d/build" "$d" --wrap-mode=forcefallback "-Dlangs=$langs" &&
      meson compile -C "$d/build"; } >"$log" 2>&1 || { echo "FAIL: meson, langs $langs"; cat "$log"; exit 1; }
    for l in $(echo "$langs" | tr ',' ' '); do
        "$d/build/consumer_$l"; "$d/build/consumer_mf_$l"
    done
    echo "meson: langs $langs: built and ran"
done
echo "meson: the subproject's dependencies work from C, C++ and both"
