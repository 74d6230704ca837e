#!/bin/sh
# SPDX-License-Identifier: MIT
# Vendor-ready, macro hygiene: the macros that including tsc_timer.h alone
# defines, against a file that includes only <stdint.h>, <stddef.h>,
# <stdio.h>, <string.h>, <errno.h> and <inttypes.h> (gcc -E -dM, the same
# compiler and flags). Fails if any new one is a Linux system header's
# name: SYS_*, __NR_* (<sys/syscall.h>), PR_* (<sys/prctl.h>), bit_*,
# __cpuid, __cpuid_count (<cpuid.h>). Printed: the count and the first 20.
# Also printed, for information only: the other new macros outside the
# header's own TSC_ prefix and the implementation's reserved names.
# Checked as C, as C++, and as C with -D_GNU_SOURCE.
# Usage: macro_hygiene.sh INCLUDE_DIR [CC [CXX]]   (default gcc g++)
set -u
LC_ALL=C; export LC_ALL
inc=$1
cc=${2:-gcc}
cxx=${3:-g++}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '#include "tsc_timer.h"\n' >"$tmp/header.c"
printf '#include <stdint.h>\n#include <stddef.h>\n#include <stdio.h>\n#include <string.h>\n#include <errno.h>\n#include <inttypes.h>\n' >"$tmp/base.c"
fail=0; n=0

macros() { # compiler lang flags file -> sorted names
    "$1" -x "$2" $3 -I"$inc" -E -dM "$4" >"$tmp/dump" 2>"$tmp/err" || { cat "$tmp/err"; return 1; }
    sed -n 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$tmp/dump" | sort -u
}

check() { # label compiler lang flags
    command -v "$2" >/dev/null 2>&1 || { echo "skip: $1: $2 not found"; return; }
    n=$((n + 1))
    macros "$2" "$3" "$4" "$tmp/base.c" >"$tmp/base" || { echo "FAIL: $1: baseline does not preprocess"; fail=$((fail + 1)); return; }
    macros "$2" "$3" "$4" "$tmp/header.c" >"$tmp/new.all" || { echo "FAIL: $1: the header does not preprocess"; fail=$((fail + 1)); return; }
    comm -13 "$tmp/base" "$tmp/new.all" >"$tmp/new"
    grep -E '^(SYS_|__NR_|PR_|bit_)|^__cpuid$|^__cpuid_count$' "$tmp/new" >"$tmp/bad"
    bad=$(wc -l <"$tmp/bad")
    other=$(grep -v -E '^(TSC_|tsc_|_[A-Z_])' "$tmp/new" | grep -v -x -f "$tmp/bad")
    if [ "$bad" -gt 0 ]; then
        by=""
        for p in SYS_ __NR_ PR_ bit_ __cpuid; do
            by="$by $p*: $(grep -c "^$p" "$tmp/bad"),"
        done
        by=${by# }
        echo "FAIL: $1: the header defines $bad system macros (${by%,}), first 20:"
        head -n 20 "$tmp/bad" | tr '\n' ' '; echo
        fail=$((fail + 1))
    else
        echo "ok: $1: no SYS_, __NR_, PR_, bit_ or __cpuid macro from the header"
    fi
    if [ -n "$other" ]; then
        echo "  (info) $(echo "$other" | wc -l) other new macros outside TSC_, tsc_ and _X, first 20:"
        echo "  $(echo "$other" | head -n 20 | tr '\n' ' ')"
    fi
}

check "C ($cc)" "$cc" c ""
check "C++ ($cxx)" "$cxx" c++ ""
check "C -D_GNU_SOURCE ($cc)" "$cc" c "-D_GNU_SOURCE"
echo "macro hygiene: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
