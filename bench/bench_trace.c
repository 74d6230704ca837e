/* SPDX-License-Identifier: MIT */
/* What a traced empty block costs, TSC_TRACE(&t, "b") {}, against a pair
 * of plain tsc_clock_ticks() reads (start, end, their difference kept):
 * the block's floor. N back-to-back iterations, timed with the fenced
 * before/after pair, fastest of RUNS runs, the two interleaved so both see
 * the same machine; pinned to one CPU. The trace is re-initialised every
 * run, so each block stores into fresh memory (N x 24 bytes), as a real
 * trace does. bench/run puts its table in results.md. Usage: bench_trace [--tiny] */
#include "bench_common.h"

#define RUNS 15

/* ns per iteration of n back-to-back traced empty blocks. */
static double traced(struct tsc_trace *t, void *mem, size_t bytes, long n)
{
    uint64_t t0, t1;
    long i;
    tsc_trace_init(t, mem, bytes, "bench");
    t0 = tsc_ticks_before();
    for (i = 0; i < n; i++)
        TSC_TRACE(t, "b") {}
    t1 = tsc_ticks_after();
    return (double)tsc_ticks_to_ns(t1 - t0) / (double)n;
}

/* ns per iteration of n pairs of stamps, each difference kept. */
static double pairs(long n)
{
    uint64_t t0, t1, a, b, sum = 0;
    long i;
    t0 = tsc_ticks_before();
    for (i = 0; i < n; i++) {
        a = tsc_clock_ticks();
        b = tsc_clock_ticks();
        sum += b - a;
        TSC_KEEP(sum);
    }
    t1 = tsc_ticks_after();
    TSC_KEEP(sum);
    return (double)tsc_ticks_to_ns(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
    long n;
    size_t bytes;
    void *mem = bench_blocks_start(argc, argv, &n, &bytes);
    struct tsc_trace t;
    double bt = 1e300, bp = 1e300, bf = 1e300, x;
    int r;
    if (!mem)
        return 1;
    for (r = 0; r < RUNS; r++) {
        x = traced(&t, mem, bytes, n);
        bt = x < bt ? x : bt;
        x = pairs(n);
        bp = x < bp ? x : bp;
        /* A full trace: every block only counted as dropped. */
        tsc_trace_init(&t, mem, sizeof(struct tsc_trace_event), "full");
        TSC_TRACE(&t, "fill") {}
        x = traced(&t, mem, sizeof(struct tsc_trace_event) + 7, n);
        bf = x < bf ? x : bf;
    }
    printf("counter: %s\n\n", tsc_counter_name());
    printf("| what (fastest of %d runs of %ld) | ns per iteration | x pair |\n", RUNS, n);
    printf("|---|---:|---:|\n");
    printf("| pair of tsc_clock_ticks() | %.2f | 1.00 |\n", bp);
    printf("| TSC_TRACE(&t, \"b\") {} | %.2f | %.2f |\n", bt, bt / bp);
    printf("| TSC_TRACE on a full trace (dropped) | %.2f | %.2f |\n", bf, bf / bp);
    free(mem);
    return 0;
}
