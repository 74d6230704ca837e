#!/bin/sh
# SPDX-License-Identifier: MIT
# Vendor-ready, no libm: whole_api.c (statistics, percentiles, deviation,
# printing, conversions, the clock) compiled and linked WITHOUT -lm by each
# C compiler given, at -O0, -O2 and -O2 -fno-builtin (so no call can turn
# into an inline instruction), then run. A combination passes when it
# links, the program exits 0, and the program takes no symbol that libm
# defines (glibc's libc also carries frexp, ldexp and a few others, so a
# clean link alone would not show that the header calls them).
# Usage: no_libm.sh INCLUDE_DIR compiler ...   (a compiler not found is
# skipped, saying so; exit 77 when none is found)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
inc=$1; shift
src=$here/whole_api.c
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0; seen=" "
for cc in "$@"; do
    command -v "$cc" >/dev/null 2>&1 || { echo "skip: $cc not found"; continue; }
    key=$(vendor_key "$cc")
    case "$seen" in *" $key "*) continue;; esac
    seen="$seen$key "
    [ "$(vendor_family "$cc")" = other ] && { echo "skip: $cc is neither gcc nor clang"; continue; }
    # What this compiler's libm defines (none known: the link alone decides).
    libm=$("$cc" -print-file-name=libm.so.6 2>/dev/null)
    case "$libm" in
    /*) nm -D --defined-only "$libm" 2>/dev/null | awk 'NF >= 3 {sub(/@.*/, "", $3); print $3}' |
            sort -u >"$tmp/libm.$n";;
    *) echo "note: $cc: no libm.so.6 found; judging by the link alone"; : >"$tmp/libm.$n";;
    esac
    libmlist=$tmp/libm.$n
    for opt in "-O0" "-O2" "-O2 -fno-builtin"; do
        n=$((n + 1)); j=$tmp/$(printf '%03d' $n)
        { echo ". '$here/common.sh'"; cat <<EOF
label="$cc $opt, no -lm"
if ! "$cc" -x c $opt -I"$inc" "$src" -o "$j.exe" >"$j.log" 2>&1; then
    u=\$(sed -n "s/.*undefined reference to [\\\`']\\([^']*\\)'.*/\\1/p" "$j.log" | sort -u | tr '\\n' ' ')
    if [ -n "\$u" ]; then echo "FAIL: \$label: undefined references: \$u" >"$j.res"
    else echo "FAIL: \$label: \$(vendor_first_diag "$j.log")" >"$j.res"; fi
    exit 0
fi
m=\$(nm -u "$j.exe" 2>/dev/null | awk '{sub(/@.*/, "", \$NF); print \$NF}' | sort -u |
     comm -12 - "$libmlist" | tr '\\n' ' ')
if [ -n "\$m" ]; then echo "FAIL: \$label: links, but takes from libm's symbols: \$m" >"$j.res"; exit 0; fi
if ! vendor_timeout 60 "$j.exe" >"$j.run" 2>&1; then
    echo "FAIL: \$label: the program exits \$?: \$(head -n1 "$j.run")" >"$j.res"; exit 0
fi
echo PASS >"$j.res"
EOF
        } >"$j.job"
    done
done
if [ "$n" -eq 0 ]; then
    echo "no libm: skipped, no gcc or clang here"
    exit 77 # ctest: SKIP_RETURN_CODE
fi
vendor_run_jobs "$tmp"
fail=0; pass=0
for r in "$tmp"/*.res; do
    [ -e "$r" ] || continue
    if [ "$(cat "$r")" = PASS ]; then pass=$((pass + 1)); else cat "$r"; fail=$((fail + 1)); fi
done
echo "no libm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
