#!/bin/sh
# SPDX-License-Identifier: MIT
# Compiles compile_test.c with every compiler, standard and configuration
# macro given, under -Wall -Wextra -Wpedantic -Werror. Fails on the first
# warning. Usage: compile_matrix.sh INCLUDE_DIR [compiler ...]
set -u
inc=$1; shift
src=$(dirname "$0")/compile_test.c
fail=0; n=0
for cc in "$@"; do
    command -v "$cc" >/dev/null 2>&1 || { echo "skip: $cc not found"; continue; }
    case "$cc" in *++*) stds="c++11 c++17 c++20"; lang="-x c++";; *) stds="c99 c11 c17"; lang="-x c";; esac
    for std in $stds; do
        for def in "" -DTSC_TIMER_FORCE_FALLBACK -DTSC_TIMER_NO_RDTSCP "-DTSC_CALIBRATION_SECONDS=0.002"; do
            for opt in -O0 -O2; do
                n=$((n + 1))
                if ! out=$("$cc" $lang -std=$std $opt -Wall -Wextra -Wpedantic -Werror $def \
                        -I"$inc" -c "$src" -o /dev/null 2>&1); then
                    echo "FAIL: $cc -std=$std $opt $def"; echo "$out"; fail=$((fail + 1))
                fi
            done
        done
    done
done
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
