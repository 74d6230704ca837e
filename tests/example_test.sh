#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's example command, scripts/example.sh, with a C compiler and
# CMake only: run with a PATH that holds every program of this machine but
# the package tools (apt-get, dpkg, sudo), pkg-config, Python, clang and the
# C++ compilers, it builds and runs examples/basic.c.
# Usage: example_test.sh SOURCE_DIR SCRATCH_DIR
set -eu
src=$1; work=$2
rm -rf "$work"; mkdir -p "$work/bin"
for d in /usr/local/bin /usr/bin /bin; do
    [ -d "$d" ] || continue
    for p in "$d"/*; do
        n=${p##*/}
        case $n in
        apt|apt-*|dpkg|dpkg-*|sudo|pkg-config|*-pkg-config|pkgconf|python*|clang*|c++|g++|*-g++|*-g++-*|g++-*) continue;;
        esac
        [ -e "$work/bin/$n" ] || ln -s "$p" "$work/bin/$n"
    done
done
out=$(PATH=$work/bin TSC_TIMER_EXAMPLE_BUILD=$work/build sh "$src/scripts/example.sh" 2>&1) ||
    { echo "FAIL: scripts/example.sh without the test suite's tools:"; echo "$out"; exit 1; }
echo "$out"
echo "$out" | grep -Eq '^sorted 100000 integers in [0-9]+ ticks = [0-9]+ ns' ||
    { echo "FAIL: no 'sorted ... ticks = ... ns' line"; exit 1; }
echo "example: built and ran with a C compiler and CMake only"
