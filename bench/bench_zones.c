/* SPDX-License-Identifier: MIT */
/* What an empty zone costs, TSC_ZONE("z") {} (enter and exit), against a
 * pair of bare counter reads, tsc_clock_ticks_unordered() (a plain RDTSC
 * on x86; start, end, their difference kept), and an empty traced block,
 * TSC_TRACE(&t, "b") {}. N back-to-back iterations, timed with the fenced
 * before/after pair, fastest of RUNS runs, all interleaved so they see the
 * same machine; pinned to one CPU. Also a zone as its parent sees it (a
 * zone holding an empty zone, less an empty zone); an empty zone with the
 * zones traced (tsc_zones_trace; the buffer holds every run's events, its
 * pages touched as it fills, as a real trace's); a flow's two marks,
 * TSC_FLOW_OUT then TSC_FLOW_IN of one id, untraced. Goals: a zone at most
 * 1.5x the pair, a traced one at most 2.5x. bench/run puts its table in
 * results.md.
 * Usage: bench_zones [--tiny] */
#include "bench_common.h"

#define RUNS 15

static struct tsc_trace g_trace;

static void pairs(long n)
{
    uint64_t a, b, sum = 0;
    long i;
    for (i = 0; i < n; i++) {
        a = tsc_clock_ticks_unordered();
        b = tsc_clock_ticks_unordered();
        sum += b - a;
        TSC_KEEP(sum);
    }
}

static void zones(long n)
{
    long i;
    for (i = 0; i < n; i++)
        TSC_ZONE("z") {}
}

static void nested(long n)
{
    long i;
    for (i = 0; i < n; i++)
        TSC_ZONE("parent") {
            TSC_ZONE("child") {}
        }
}

static void flows(long n)
{
    long i;
    for (i = 0; i < n; i++) {
        TSC_FLOW_OUT("flow", i);
        TSC_FLOW_IN("flow", i);
    }
}

static void traced(long n)
{
    long i;
    for (i = 0; i < n; i++)
        TSC_TRACE(&g_trace, "b") {}
}

/* ns per iteration of body(n), the fastest so far kept in *best. */
static void timed(void (*body)(long), long n, double *best)
{
    uint64_t t0 = tsc_ticks_before(), t1;
    double x;
    body(n);
    t1 = tsc_ticks_after();
    x = (double)tsc_ticks_to_ns(t1 - t0) / (double)n;
    *best = x < *best ? x : *best;
}

int main(int argc, char **argv)
{
    long n;
    size_t bytes;
    void *mem = bench_blocks_start(argc, argv, &n, &bytes);
    double bp = 1e300, bz = 1e300, bn = 1e300, bt = 1e300, bzt = 1e300, bf = 1e300;
    int r;
    if (!mem)
        return 1;
    zones(1); /* the thread's first zone: its one-time work */
    for (r = 0; r < RUNS; r++) {
        timed(pairs, n, &bp);
        timed(zones, n, &bz);
        timed(nested, n, &bn);
        tsc_trace_init(&g_trace, mem, bytes, "bench"); /* fresh memory, as a real trace */
        timed(traced, n, &bt);
        timed(flows, n, &bf);
        tsc_zones_trace(TSC_ZONES_TRACE_BYTES((size_t)(RUNS + 1) * (size_t)n)); /* (every run's) */
        timed(zones, n, &bzt);
        tsc_zones_trace(0);
    }
    printf("counter: %s\n\n", tsc_counter_name());
    printf("| what (fastest of %d runs of %ld) | ns per iteration | x pair |\n", RUNS, n);
    printf("|---|---:|---:|\n");
    printf("| pair of bare reads, tsc_clock_ticks_unordered() | %.2f | 1.00 |\n", bp);
    printf("| TSC_ZONE(\"z\") {} | %.2f | %.2f |\n", bz, bz / bp);
    printf("| a zone nested in a zone, as its parent sees it | %.2f | %.2f |\n", bn - bz,
           (bn - bz) / bp);
    printf("| TSC_TRACE(&t, \"b\") {} | %.2f | %.2f |\n", bt, bt / bp);
    printf("| TSC_ZONE(\"z\") {}, zones traced (tsc_zones_trace) | %.2f | %.2f |\n", bzt, bzt / bp);
    printf("| TSC_FLOW_OUT + TSC_FLOW_IN of one id (a flow's two marks) | %.2f | %.2f |\n", bf, bf / bp);
    free(mem);
    return 0;
}
