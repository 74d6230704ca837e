/* SPDX-License-Identifier: MIT */
/* What tsc_stats_add costs per sample. Built only when the header has
 * tsc_stats_add (bench/CMakeLists.txt looks for it). */
#include "bench_common.h"

#define BENCH_N 1024

static uint64_t g_samples[BENCH_N];
static struct tsc_stats g_stats;

static void add_many(void *unused, size_t calls)
{
    size_t i;
    (void)unused;
    for (i = 0; i < calls; i++)
        tsc_stats_add(&g_stats, g_samples[i % BENCH_N]);
}

int main(int argc, char **argv)
{
    int tiny = bench_tiny(argc, argv);
    size_t calls = tiny ? 256 : 4096, runs = tiny ? 5 : 501, i;
    double *per = (double *)malloc(runs * sizeof *per);
    uint64_t x = 0x9E3779B97F4A7C15u;
    if (!per)
        return 1;
    for (i = 0; i < BENCH_N; i++) { /* samples like short regions: 40-4000 ticks */
        x = x * 6364136223846793005u + 1442695040888963407u;
        g_samples[i] = 40 + (x >> 33) % 4000;
    }
    memset(&g_stats, 0, sizeof g_stats);
    bench_pin_to_this_cpu();
    printf("## Statistics\n\n"
           "%zu calls of `tsc_stats_add` with samples of 40-4000 ticks, timed with\n"
           "`tsc_ticks_before`/`tsc_ticks_after` minus the empty region; %zu runs,\n"
           "median and interquartile range per call.\n\n" BENCH_COST_HEADER,
           calls, runs);
    bench_time_batches(add_many, NULL, calls, runs, per);
    bench_print_cost_row("`tsc_stats_add`", per, runs);
    free(per);
    return 0;
}
