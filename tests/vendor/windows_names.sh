#!/bin/sh
# SPDX-License-Identifier: MIT
# Vendor-ready, Windows names: windows_names.c declares names that
# <windows.h> takes (min, max, near, far, interface, ERROR, BOOL, DWORD,
# POINT, ...) before including the header and uses them after; it must
# compile for Windows with -std=c99 -Wall -Wextra -Werror -c and print
# nothing. First the header alone is compiled the same way, so a header that
# does not build for Windows at all says so. Compilers: the mingw-w64 gcc
# given, and clang --target=<its triple> where that clang finds the mingw
# headers; each one missing is skipped, saying so. For information, the
# count of macros the header adds there outside TSC_ and reserved names.
# Usage: windows_names.sh INCLUDE_DIR [MINGW_GCC [CLANG]]
#   (default x86_64-w64-mingw32-gcc clang). Exit 77 when neither works.
set -u
LC_ALL=C; export LC_ALL
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
inc=$1
mingw=${2:-x86_64-w64-mingw32-gcc}
clang=${3:-clang}
triple=$(basename "$mingw" | sed 's/-gcc.*$//')
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
flags="-std=c99 -Wall -Wextra -Werror"
printf '#include "tsc_timer.h"\nint windows_header_alone(void);\nint windows_header_alone(void) { return (int)(tsc_ticks_after() - tsc_ticks_before()); }\n' >"$tmp/alone.c"
printf '#include <stdint.h>\n#include <stddef.h>\n#include <stdio.h>\n#include <string.h>\n#include <errno.h>\n#include <inttypes.h>\n' >"$tmp/base.c"
printf '#include "tsc_timer.h"\n' >"$tmp/header.c"
fail=0; n=0

check() { # label compiler-command...
    label=$1; shift
    n=$((n + 1))
    if ! "$@" $flags -I"$inc" -c "$tmp/alone.c" -o "$tmp/alone.o" >"$tmp/alone.log" 2>&1 ||
       [ -s "$tmp/alone.log" ]; then
        echo "FAIL: $label: the header alone does not compile cleanly for Windows:"
        echo "  $(vendor_first_diag "$tmp/alone.log")"
        fail=$((fail + 1)); return
    fi
    if "$@" $flags -I"$inc" -c "$here/windows_names.c" -o "$tmp/names.o" >"$tmp/names.log" 2>&1 &&
       [ ! -s "$tmp/names.log" ]; then
        echo "ok: $label: the user's Windows-taken names survive the header"
    else
        echo "FAIL: $label: the header breaks names a Windows user has ($(grep -c ': error:' "$tmp/names.log") errors):"
        grep -E ': (error|warning):' "$tmp/names.log" | sed -E 's|^[^ ]*/||; s/^/  /' | head -n 20
        fail=$((fail + 1))
    fi
    if "$@" -std=c99 -I"$inc" -E -dM "$tmp/base.c" 2>/dev/null | sed -n 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' | sort -u >"$tmp/base" &&
       "$@" -std=c99 -I"$inc" -E -dM "$tmp/header.c" 2>/dev/null | sed -n 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' | sort -u >"$tmp/new"; then
        c=$(comm -13 "$tmp/base" "$tmp/new" | grep -c -v -E '^(TSC_|tsc_|_[A-Z_])')
        echo "  (info) $label: $c new macros from the header outside TSC_, tsc_ and _X"
    fi
}

if command -v "$mingw" >/dev/null 2>&1; then
    check "$mingw" "$mingw"
else
    echo "skip: $mingw not found (Debian: gcc-mingw-w64-x86-64-win32)"
fi
if ! command -v "$clang" >/dev/null 2>&1; then
    echo "skip: $clang not found"
elif ! printf '#include <stdio.h>\n#include <stdint.h>\nint x;\n' |
        "$clang" --target="$triple" -x c -c - -o "$tmp/probe.o" >/dev/null 2>&1; then
    echo "skip: $clang --target=$triple: no Windows headers found by it"
else
    check "$clang --target=$triple" "$clang" --target="$triple" -ferror-limit=0
fi
if [ "$n" -eq 0 ]; then
    echo "windows names: skipped, no Windows compiler here"
    exit 77 # ctest: SKIP_RETURN_CODE
fi
echo "windows names: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
