#!/bin/sh
# SPDX-License-Identifier: MIT
# The hot paths cost the same in both ways of including the header:
# bench_before_after.c built as one file (no macro) and in the many-files
# mode (TSC_TIMER_EXTERN, the implementation in a file of its own), run
# alternately, ROUNDS rounds each (default 5); prints the median of each
# row for both builds, their ratio and whether it is within the goal (5 %):
# the empty region against the hand-written fenced sequence, tsc_now_ns,
# tsc_ticks_to_ns, tsc_stats_add.
# Usage: bench/mode_cost.sh [ROUNDS]   (gcc -O2; CC overrides)
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-5}
cc=${CC:-gcc}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
printf '#define TSC_TIMER_IMPLEMENTATION\n#include "tsc_timer.h"\n' >"$d/impl.c"
$cc -O2 -Iinclude -Ibench bench/bench_before_after.c -o "$d/one" -lm
$cc -O2 -Iinclude -Ibench -DTSC_TIMER_EXTERN bench/bench_before_after.c "$d/impl.c" -o "$d/many" -lm
i=0
while [ $i -lt "$rounds" ]; do
    "$d/one" | sed 's/^/one /' >>"$d/rows"
    "$d/many" | sed 's/^/many /' >>"$d/rows"
    i=$((i + 1))
done
echo "hot paths by mode ($cc -O2, median of $rounds alternating runs each)"
echo "| row | one file | many files | many / one | goal: within 5 % |"
echo "|---|---:|---:|---:|---|"
for k in empty_ours_med empty_hand_med now_ns conv_ns stats_varied_ns stats_one_ns; do
    a=$(awk -v k=$k '$1 == "one" && $2 == k { print $3 }' "$d/rows" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    b=$(awk -v k=$k '$1 == "many" && $2 == k { print $3 }' "$d/rows" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    echo "| $k | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { r = a > 0 ? b / a : 0
        printf "%.3f | %s", r, (r > 0 && r <= 1.05 ? "held" : "**missed**") }') |"
done
