#!/bin/sh
# SPDX-License-Identifier: MIT
# Compiles compile_test.c with every compiler, standard and configuration
# macro given (and in the many-files mode both as a file without the
# implementation, compiled only: it links nothing alone, and as the file
# with it), under -Wall -Wextra -Wpedantic -Werror (C++ also
# -Wold-style-cast, and g++ -Wuseless-cast), at -O0 (compiled) and
# -O3 -flto (compiled and linked, so link-time warnings count). Fails on the
# first warning of each combination and reports them all.
# Usage: compile_matrix.sh [--full|--extra] INCLUDE_DIR [compiler ...]
#   --full   also -O2 and -Os.
#   --extra  only -O2 and -Os (after a run without options: .ci/run).
set -u
opts="-O0|-O3 -flto"
[ "$1" = "--full" ] && { opts="-O0|-O2|-Os|-O3 -flto"; shift; }
[ "$1" = "--extra" ] && { opts="-O2|-Os"; shift; }
inc=$1; shift
src=$(dirname "$0")/compile_test.c
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0; n=0; seen=" "
for cc in "$@"; do
    command -v "$cc" >/dev/null 2>&1 || { echo "skip: $cc not found"; continue; }
    case "$cc" in *++*) stds="c++11 c++17 c++20"; lang="-x c++"; cxx="-Wold-style-cast";;
                  *) stds="c99 c11 c17"; lang="-x c"; cxx="";; esac
    case "$(echo | "$cc" -dM -E -x c - 2>/dev/null)" in
    *"#define __clang__ "*) ;; # clang has no -Wuseless-cast
    *"#define __GNUC__ "*) [ -n "$cxx" ] && cxx="$cxx -Wuseless-cast";;
    esac
    key="$(readlink -f "$(command -v "$cc")")$lang" # cc and gcc: the same compiler once
    case "$seen" in *" $key "*) continue;; esac
    seen="$seen$key "
    for std in $stds; do
        for def in "" -DTSC_TIMER_FORCE_FALLBACK -DTSC_TIMER_NO_RDTSCP "-DTSC_CALIBRATION_SECONDS=0.002" \
                   -DTSC_TIMER_EXTERN "-DTSC_TIMER_EXTERN -DTSC_TIMER_IMPLEMENTATION"; do
            IFS='|'
            for opt in $opts; do
                unset IFS
                n=$((n + 1))
                case "$opt$def" in
                *-flto*-DTSC_TIMER_EXTERN) step="-c -o /dev/null"; tail="";;
                *-flto*) step="-DCOMPILE_TEST_MAIN -o $tmp/a.out"; tail="-lm";;
                *) step="-c -o /dev/null"; tail="";;
                esac
                if ! out=$("$cc" $lang -std=$std $opt -Wall -Wextra -Wpedantic $cxx -Werror $def \
                        -I"$inc" "$src" $step $tail 2>&1); then
                    echo "FAIL: $cc -std=$std $opt $def"; echo "$out"; fail=$((fail + 1))
                fi
                IFS='|'
            done
            unset IFS
        done
    done
done
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
