/* SPDX-License-Identifier: MIT */
/* What tsc_stats_add costs: ns per add over 10^7 adds of varied values
 * (log-uniform over 30 binary orders, so the adds spread over ~2000
 * buckets), against the same loop that only sums the values, and over
 * 10^7 adds of nearly constant values (one bucket). Prints a markdown
 * section for bench/results.md. Usage: bench_stats [--tiny | adds]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tsc_timer.h"

#define VALUES 4096

static struct tsc_stats st;

int main(int argc, char **argv)
{
    static uint64_t v[VALUES];
    uint64_t seed = 88172645463325252u, adds = 10000000, i, t0, t1, loop_ticks, add_ticks;
    uint64_t best_loop = UINT64_MAX, best_add = UINT64_MAX, best_same = UINT64_MAX;
    volatile uint64_t sink = 0;
    uint64_t acc;
    int round;

    if (argc > 1)
        adds = strcmp(argv[1], "--tiny") == 0 ? VALUES : strtoull(argv[1], NULL, 10);
    if (adds < VALUES)
        adds = VALUES;
    for (i = 0; i < VALUES; i++) {
        seed ^= seed << 13; /* xorshift64 */
        seed ^= seed >> 7;
        seed ^= seed << 17;
        v[i] = (seed >> 30) >> (seed % 30);
    }
    tsc_ticks_per_second();
    /* Best of 7 rounds each: the machine is shared and noisy. */
    for (round = 0; round < 7; round++) {
        acc = 0;
        t0 = tsc_ticks_before();
        for (i = 0; i < adds; i++)
            acc += v[i & (VALUES - 1)];
        t1 = tsc_ticks_after();
        sink = acc;
        best_loop = t1 - t0 < best_loop ? t1 - t0 : best_loop;

        tsc_stats_init(&st);
        t0 = tsc_ticks_before();
        for (i = 0; i < adds; i++)
            tsc_stats_add(&st, v[i & (VALUES - 1)]);
        t1 = tsc_ticks_after();
        best_add = t1 - t0 < best_add ? t1 - t0 : best_add;

        /* Nearly constant values, as a steady hot loop gives: one bucket
         * takes every increment, back to back. */
        tsc_stats_init(&st);
        t0 = tsc_ticks_before();
        for (i = 0; i < adds; i++)
            tsc_stats_add(&st, 1000 + (v[i & (VALUES - 1)] & 1));
        t1 = tsc_ticks_after();
        best_same = t1 - t0 < best_same ? t1 - t0 : best_same;
    }
    (void)sink;
    loop_ticks = best_loop;
    add_ticks = best_add;
    printf("## Statistics\n\n"
           "Best of 7 rounds of %llu `tsc_stats_add` calls each, timed as a whole with\n"
           "`tsc_ticks_before`/`tsc_ticks_after`; `struct tsc_stats` is %u bytes.\n\n"
           "| loop | ns per value |\n|---|---:|\n",
           (unsigned long long)adds, (unsigned)sizeof(struct tsc_stats));
    printf("| `tsc_stats_add`, varied values (~2000 buckets) | %.2f |\n",
           (double)tsc_ticks_to_ns(add_ticks) / (double)adds);
    printf("| `tsc_stats_add`, values 1000 or 1001 (one bucket) | %.2f |\n",
           (double)tsc_ticks_to_ns(best_same) / (double)adds);
    printf("| the bare loop, summing the same values | %.2f |\n",
           (double)tsc_ticks_to_ns(loop_ticks) / (double)adds);
    return tsc_stats_count(&st) == adds && tsc_stats_max(&st) == 1001 ? 0 : 1;
}
