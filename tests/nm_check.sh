#!/bin/sh
# SPDX-License-Identifier: MIT
# The header adds at most four external symbols to a program, all weak
# (selectany on Windows), whatever the configuration: the state,
# tsc__g_v<version>_<config>, the zones' state,
# tsc__z_v<version>_<config>_z<limits>, the word that tells two modes in one
# program, tsc__modes_v<version>_<config>, and a thread's flags,
# tsc__tls_v<version>_<config>
# (per unit on Windows, where weak thread-locals do not exist). Every function
# is static. Checks the units (an archive) and the linked program.
# Usage: nm_check.sh NM ARCHIVE PROGRAM [ARCHIVE PROGRAM ...]
set -u
nm=$1; shift
fail=0
ours='^tsc__(g|z|tls|modes)_v[0-9]+_[0-9]+_[0-9]+_[dfn](_z[0-9]+_[0-9]+_[0-9]+)?$'
while [ $# -ge 2 ]; do
    lib=$1 exe=$2; shift 2
    # Units: defined externals are ours and the units' own mi_* functions
    # (and i386 PIC's hidden __x86.get_pc_thunk.* helpers, the compiler's).
    bad=$("$nm" -g --defined-only "$lib" |
          awk -v re="$ours" 'NF == 3 && $3 !~ re && $3 !~ /^mi_/ && $3 !~ /^__x86\.get_pc_thunk\./')
    [ -z "$bad" ] || { echo "FAIL: $lib defines externals beyond the state and flags:"; echo "$bad"; fail=1; }
    units=$("$nm" -A "$lib" | grep -cE ' [A-Z] tsc__g_v')
    weak=$("$nm" -A "$lib" | grep -cE ' [VW] tsc__g_v')
    echo "$lib: the state defined in $units units, weak in $weak"
    [ "$units" -ge 3 ] || { echo "FAIL: $lib: the state not defined by every unit"; fail=1; }
    case "$exe" in
    *.exe) ;; # PE/COFF: selectany shows as an ordinary data symbol
    *) [ "$weak" -eq "$units" ] || { echo "FAIL: $lib: the state is not weak everywhere"; fail=1; }
       tls=$("$nm" -A "$lib" | grep -cE ' [A-Z] tsc__tls_v')
       wtls=$("$nm" -A "$lib" | grep -cE ' [VW] tsc__tls_v')
       [ "$tls" -eq "$wtls" ] || { echo "FAIL: $lib: the flags are not weak everywhere"; fail=1; }
       z=$("$nm" -A "$lib" | grep -cE ' [A-Z] tsc__z_v')
       wz=$("$nm" -A "$lib" | grep -cE ' [VW] tsc__z_v')
       [ "$z" -eq "$wz" ] || { echo "FAIL: $lib: the zones' state is not weak everywhere"; fail=1; } ;;
    esac
    # Program: the tsc-prefixed symbols left are one state, one zones' state
    # (and one flags).
    syms=$("$nm" -g "$exe" | awk 'tolower($NF) ~ /^tsc_/')
    echo "$exe: $syms"
    n=$(echo "$syms" | awk '{print $NF}' | grep -cE "$ours")
    other=$(echo "$syms" | awk '{print $NF}' | grep -vE "$ours" | grep -c .)
    states=$(echo "$syms" | awk '{print $NF}' | grep -c '^tsc__g_v')
    [ "$states" -eq 1 ] && [ "$other" -eq 0 ] && [ "$n" -le 4 ] ||
        { echo "FAIL: $exe: tsc symbols other than one state, one zones' state, one modes word and one flags"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "only the states and the thread flags are external"
exit "$fail"
