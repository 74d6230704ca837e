#!/bin/sh
# SPDX-License-Identifier: MIT
# The header adds exactly one external symbol to a program: tsc__g, weak
# (selectany on Windows), whatever the configuration. Every function is
# static. Checks the units (an archive) and the linked program.
# Usage: nm_check.sh NM ARCHIVE PROGRAM [ARCHIVE PROGRAM ...]
set -u
nm=$1; shift
fail=0
while [ $# -ge 2 ]; do
    lib=$1 exe=$2; shift 2
    # Units: defined externals are tsc__g and the units' own mi_* functions
    # (and i386 PIC's hidden __x86.get_pc_thunk.* helpers, the compiler's).
    bad=$("$nm" -g --defined-only "$lib" |
          awk 'NF == 3 && $3 != "tsc__g" && $3 !~ /^mi_/ && $3 !~ /^__x86\.get_pc_thunk\./')
    [ -z "$bad" ] || { echo "FAIL: $lib defines externals beyond tsc__g:"; echo "$bad"; fail=1; }
    units=$("$nm" -A "$lib" | grep -c ' [A-Z] tsc__g$')
    weak=$("$nm" -A "$lib" | grep -c ' [VW] tsc__g$')
    echo "$lib: tsc__g defined in $units units, weak in $weak"
    [ "$units" -ge 3 ] || { echo "FAIL: $lib: tsc__g not defined by every unit"; fail=1; }
    case "$exe" in
    *.exe) ;; # PE/COFF: selectany shows as an ordinary data symbol
    *) [ "$weak" -eq "$units" ] || { echo "FAIL: $lib: tsc__g is not weak everywhere"; fail=1; } ;;
    esac
    # Program: the only tsc-prefixed symbol left is the one tsc__g.
    syms=$("$nm" -g "$exe" | awk 'tolower($NF) ~ /^tsc_/')
    echo "$exe: $syms"
    [ "$(echo "$syms" | awk '{print $NF}')" = "tsc__g" ] ||
        { echo "FAIL: $exe: tsc symbols other than one tsc__g"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "only tsc__g is external"
exit "$fail"
