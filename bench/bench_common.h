/* SPDX-License-Identifier: MIT */
/* Shared by the benchmark programs (C and C++): sizes, order statistics,
 * and the loop that times a batch of calls with the fenced counter.
 *
 * Every program takes one optional argument, --tiny, which shrinks every
 * size so the whole program runs in well under a second (CI runs it so the
 * code cannot rot; nothing judges the numbers). Output is markdown on
 * stdout; bench/run collects it into bench/results.md. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsc_timer.h"
#if defined(__linux__)
#include <sched.h>
#endif

/* 1 when the program was started with --tiny. */
static inline int bench_tiny(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "--tiny") == 0)
            return 1;
    return 0;
}

/* Keeps the process on the CPU it is on: the vCPUs of a VM may advance
 * their TSCs in steps of different phase, and a read pair split across two
 * of them measures that, not the timer. Returns that CPU, or -1. */
static inline int bench_pin_to_this_cpu(void)
{
#if defined(__linux__)
    int cpu = sched_getcpu();
    cpu_set_t set;
    if (cpu < 0)
        return -1;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
#else
    return -1;
#endif
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Order statistics of n values (sorted in place). */
struct bench_summary {
    double min, p25, median, p75, max;
};

static inline struct bench_summary bench_summarize(double *v, size_t n)
{
    struct bench_summary s;
    qsort(v, n, sizeof *v, bench_cmp_double);
    s.min = v[0];
    s.p25 = v[n / 4];
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    s.p75 = v[(3 * n) / 4];
    s.max = v[n - 1];
    return s;
}

/* The start of the programs that time blocks back to back (bench_trace,
 * bench_zones): *n blocks per run (1000 with --tiny, else 100 000), memory
 * for a trace of that many events with its pages touched, this process
 * pinned to its CPU and the library initialised. NULL when the memory
 * cannot be had. */
static inline void *bench_blocks_start(int argc, char **argv, long *n, size_t *bytes)
{
    void *mem;
    *n = bench_tiny(argc, argv) ? 1000 : 100000;
    *bytes = TSC_TRACE_BYTES(*n);
    mem = malloc(*bytes);
    if (!mem)
        return NULL;
    bench_pin_to_this_cpu();
    tsc_init();
    memset(mem, 0, *bytes); /* the pages exist before the first run */
    return mem;
}

/* Nanoseconds per TSC tick, from the calibration in use. */
static inline double bench_ns_per_tick(void)
{
    return 1e9 / tsc_ticks_per_second();
}

/* Runs body(arg, calls), which makes `calls` calls, between a fenced before/after
 * pair, `runs` times, and writes each run's ticks per call (the empty
 * region's overhead taken off first) into per_call[0..runs). */
typedef void (*bench_body_fn)(void *arg, size_t calls);

static inline void bench_time_batches(bench_body_fn body, void *arg, size_t calls, size_t runs,
                                      double *per_call)
{
    size_t r;
    body(arg, calls); /* warm caches and branch predictors */
    for (r = 0; r < runs; r++) {
        uint64_t t0 = tsc_ticks_before(), t1;
        body(arg, calls);
        t1 = tsc_ticks_after();
        per_call[r] = (double)tsc_sub_overhead(t1 - t0) / (double)calls;
    }
}

/* One markdown row "| name | median ns | IQR ns | median ticks | IQR |". */
static inline void bench_print_cost_row(const char *name, double *ticks_per_call, size_t runs)
{
    double k = bench_ns_per_tick();
    struct bench_summary s = bench_summarize(ticks_per_call, runs);
    printf("| %s | %.2f | %.2f–%.2f | %.1f | %.1f–%.1f |\n", name, s.median * k, s.p25 * k,
           s.p75 * k, s.median, s.p25, s.p75);
}

#define BENCH_COST_HEADER                                                        \
    "| what | ns median | ns p25–p75 | ticks median | ticks p25–p75 |\n"         \
    "|---|---:|---:|---:|---:|\n"

#endif
