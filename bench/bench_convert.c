/* SPDX-License-Identifier: MIT */
/* Conversion of ticks to ns: what tsc_ticks_to_ns costs against a double
 * multiply and against the naive integer ticks * 1e9 / hz, and where each
 * stops being right. */
#include "bench_common.h"

#include <math.h>

#define BENCH_N 1024

static uint64_t g_ticks[BENCH_N];
static double g_ns_per_tick;
static uint64_t g_hz;

/* Inputs from a few hundred ticks to about an hour, log-spread, so no
 * branch or multiply sees only one size. */
static void fill_inputs(void)
{
    uint64_t x = 88172645463325252u;
    int i;
    for (i = 0; i < BENCH_N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        g_ticks[i] = (x >> (64 - 44 + (int)(x % 36))) + 256;
    }
}

static void ours(void *sink, size_t calls)
{
    uint64_t acc = 0;
    size_t i;
    for (i = 0; i < calls; i++)
        acc += tsc_ticks_to_ns(g_ticks[i % BENCH_N]);
    *(volatile uint64_t *)sink += acc;
}

static void double_mul(void *sink, size_t calls)
{
    double acc = 0;
    size_t i;
    for (i = 0; i < calls; i++)
        acc += (double)g_ticks[i % BENCH_N] * g_ns_per_tick;
    *(volatile double *)sink += acc;
}

static void double_mul_to_int(void *sink, size_t calls)
{
    uint64_t acc = 0;
    size_t i;
    for (i = 0; i < calls; i++)
        acc += (uint64_t)((double)g_ticks[i % BENCH_N] * g_ns_per_tick + 0.5);
    *(volatile uint64_t *)sink += acc;
}

static void naive(void *sink, size_t calls)
{
    uint64_t acc = 0;
    size_t i;
    for (i = 0; i < calls; i++)
        acc += g_ticks[i % BENCH_N] * UINT64_C(1000000000) / g_hz;
    *(volatile uint64_t *)sink += acc;
}

static void row(const char *name, bench_body_fn fn, size_t calls, size_t runs, double *per)
{
    uint64_t sink = 0;
    bench_time_batches(fn, &sink, calls, runs, per);
    bench_print_cost_row(name, per, runs);
}

/* The smallest power of two of ticks at which the double multiply, rounded,
 * is more than 1 ns away from tsc_ticks_to_ns (itself within 1 ns of the
 * exact value), or 0 if none below 2^63. */
static uint64_t double_breaks_at(void)
{
    int b;
    for (b = 20; b < 63; b++) {
        uint64_t t = (UINT64_C(1) << b) + UINT64_C(12345);
        double d = (double)t * g_ns_per_tick;
        double exact = (double)tsc_ticks_to_ns(t);
        if (fabs(d - exact) > 2.0)
            return t;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int tiny = bench_tiny(argc, argv);
    size_t calls = tiny ? 256 : 4096, runs = tiny ? 5 : 501;
    double *per = (double *)malloc(runs * sizeof *per);
    double hz = tsc_ticks_per_second(), k = 1e9 / hz, db;
    uint64_t overflow;
    if (!per)
        return 1;
    g_ns_per_tick = 1e9 / hz;
    g_hz = (uint64_t)(hz + 0.5);
    fill_inputs();
    bench_pin_to_this_cpu();
    printf("## Conversion of ticks to ns\n\n"
           "Each row: %zu conversions of inputs spread from 256 ticks to about an\n"
           "hour (a fixed pseudo-random set of %d), results summed, timed with\n"
           "`tsc_ticks_before`/`tsc_ticks_after` minus the empty region; %zu runs,\n"
           "median and interquartile range per conversion.\n\n" BENCH_COST_HEADER,
           calls, BENCH_N, runs);
    row("`tsc_ticks_to_ns` (64.64 fixed point, 128-bit product)", ours, calls, runs, per);
    row("`(double)ticks * ns_per_tick`", double_mul, calls, runs, per);
    row("`(uint64_t)((double)ticks * ns_per_tick + 0.5)`", double_mul_to_int, calls, runs, per);
    row("naive `ticks * 1000000000 / hz` (64-bit integers)", naive, calls, runs, per);
    overflow = UINT64_MAX / UINT64_C(1000000000) + 1;
    db = (double)double_breaks_at();
    {
        struct tsc_calibration c;
        tsc_current_calibration(&c);
        printf("\nThis process calibrated at first use: %.0f Hz, stated uncertainty\n"
               "%.3f ppm, %.2f ms.\n", c.ticks_per_second, c.uncertainty_ppm,
               c.seconds_spent * 1e3);
    }
    printf("\nWhere they stop being right at %.0f Hz: the naive product overflows\n"
           "from %llu ticks on (%.2f s), and then is wrong by multiples of 2^64 / hz;\n"
           "the double multiply drifts more than 2 ns from the exact value from about\n"
           "2^%.0f ticks (%.1f days) on, as a double holds 53 bits; `tsc_ticks_to_ns`\n"
           "stays within 1 ns over all 64-bit inputs (the test suite checks it\n"
           "against exact long division).\n",
           hz, (unsigned long long)overflow, (double)overflow * k * 1e-9,
           db > 0 ? floor(log2(db)) : 63.0, db * k * 1e-9 / 86400);
    free(per);
    return 0;
}
