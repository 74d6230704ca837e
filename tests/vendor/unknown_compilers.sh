#!/bin/sh
# SPDX-License-Identifier: MIT
# Compilers the header is not written for (Debian's tcc and pcc): a user's
# file that includes it either builds and runs on the OS clock, or stops at
# the header's one #error naming the compilers it supports, and at nothing
# else of the header before it.
# Usage: unknown_compilers.sh INCLUDE_DIR compiler ...   (a compiler not
# found is skipped, saying so; exit 77 when none is found)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
inc=$1; shift
hdr=$inc/tsc_timer.h
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# The #error's line and its message, from the header.
eline=$(grep -n '^#error "tsc_timer.h supports' "$hdr" | head -n1 | cut -d: -f1)
emsg=$(sed -n "${eline}s/^#error \"\(.*\)\"$/\1/p" "$hdr")
if [ -z "$emsg" ]; then
    echo "FAIL: the header has no #error naming the compilers it supports"; exit 1
fi
cat >"$tmp/user.c" <<'EOC'
#include <stdio.h>
#include "tsc_timer.h"
int main(void)
{
    uint64_t a = tsc_now_ns(), b = tsc_now_ns();
    printf("%s: %lu ns apart\n", tsc_counter_name(), (unsigned long)(b - a));
    return b >= a ? 0 : 1;
}
EOC
fail=0; found=0
for cc in "$@"; do
    command -v "$cc" >/dev/null 2>&1 || { echo "skip: $cc not found"; continue; }
    found=$((found + 1))
    if "$cc" -I"$inc" "$tmp/user.c" -o "$tmp/$cc.exe" >"$tmp/$cc.log" 2>&1; then
        if vendor_timeout 60 "$tmp/$cc.exe" >"$tmp/$cc.run" 2>&1; then
            echo "$cc: builds and runs: $(cat "$tmp/$cc.run")"
        else
            echo "FAIL: $cc builds, but the program failed:"; cat "$tmp/$cc.run"; fail=$((fail + 1))
        fi
    elif ! grep -qF "$emsg" "$tmp/$cc.log"; then
        echo "FAIL: $cc stops without the header's #error:"; head -n5 "$tmp/$cc.log"; fail=$((fail + 1))
    elif grep -E "tsc_timer\.h(:|, line )[0-9]+" "$tmp/$cc.log" | grep -vqE "tsc_timer\.h(:|, line )$eline\b"; then
        echo "FAIL: $cc stops at the header's lines besides its #error (line $eline):"
        head -n5 "$tmp/$cc.log"; fail=$((fail + 1))
    else
        echo "$cc: stops at once with the #error: $emsg"
    fi
done
[ "$found" -gt 0 ] || { echo "unknown compilers: none found, skipped"; exit 77; }
[ "$fail" -eq 0 ]
