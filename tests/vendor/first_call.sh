#!/bin/sh
# SPDX-License-Identifier: MIT
# Vendor-ready, first-call cost: builds first_call.c (-O2, with -lm: libm
# is no_libm.sh's business) with the compiler given and runs it natively;
# the program prints each hot function's first and steady cost after
# tsc_init() and judges them (see first_call.c).
# Usage: first_call.sh INCLUDE_DIR CC
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
inc=$1 cc=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
command -v "$cc" >/dev/null 2>&1 || { echo "first call cost: skipped, $cc not found"; exit 77; }
if ! "$cc" -std=c99 -O2 -Wall -I"$inc" "$here/first_call.c" -o "$tmp/first_call" -lm \
        >"$tmp/log" 2>&1; then
    echo "FAIL: first_call.c does not build with $cc: $(vendor_first_diag "$tmp/log")"
    echo "first call cost: 0 passed, 1 failed"
    exit 1
fi
# A first call preempted by the scheduler costs a time slice, not a
# calibration: a process fails only if three fresh ones in a row do.
for try in 1 2 3; do
    vendor_timeout 120 "$tmp/first_call" >"$tmp/out" 2>&1 && { cat "$tmp/out"; exit 0; }
    echo "(run $try failed)"
done
cat "$tmp/out"
exit 1
