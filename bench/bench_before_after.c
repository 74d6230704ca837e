/* SPDX-License-Identifier: MIT */
/* One round of the before/after comparison. bench/compare builds this
 * program twice, against an older header and against the working tree's,
 * runs the two builds in alternation and summarises the rounds; this
 * program only measures and prints "key value" lines:
 *   empty_{ours,hand}_{min,med,tmean}  empty before/after region, ticks
 *       (min, median, mean of the lower 90 %): ours and the fenced
 *       sequence written by hand, in alternating ensembles
 *   now_ns, mono_ns, now_ratio  tsc_now_ns and clock_gettime(MONOTONIC),
 *       ns per call (fastest of the repetitions), and their ratio;
 *       rdtsc_ns: a plain unfenced RDTSC, tsc_now_ns's floor (x86; else 0)
 *   conv_ns, conv_double_ns     tsc_ticks_to_ns and a double multiply, ns
 *       per conversion (median of the runs)
 *   stats_varied_ns, stats_one_ns, stats_loop_ns  tsc_stats_add over
 *       ~2000 buckets, into one bucket, and the bare loop (best of 3)
 * Every region is timed with the fenced sequence written by hand (on x86),
 * not with the header's reads, so both builds are measured with one ruler;
 * the rows that run the same code in both builds (the hand-written region,
 * clock_gettime, the double multiply, the bare loop) show how far the two
 * processes differ by noise alone.
 * Usage: bench_before_after [--tiny] */
#include "bench_common.h"

#include <time.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define BENCH_X86 1
#endif

static int g_rdtscp; /* the hand-written after-read uses RDTSCP */

static inline uint64_t hand_before(void)
{
#if defined(BENCH_X86)
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
#else
    return tsc_ticks_before();
#endif
}

static inline uint64_t hand_after(void)
{
#if defined(BENCH_X86)
    uint32_t lo, hi, aux;
    if (g_rdtscp) {
        __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
        (void)aux;
    } else {
        __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    }
    return ((uint64_t)hi << 32) | lo;
#else
    return tsc_ticks_after();
#endif
}

/* --- (a) the empty region ----------------------------------------------- */

#define HIST 4096 /* ticks; longer samples (preemptions) land in the last */

struct hist {
    uint64_t n[HIST + 1];
    uint64_t total;
};

static struct hist g_ours, g_hand;

static void empty_ours(size_t samples)
{
    size_t s;
    for (s = 0; s < samples; s++) {
        uint64_t a = tsc_ticks_before();
        uint64_t b = tsc_ticks_after();
        uint64_t d = b - a;
        g_ours.n[d < HIST ? d : HIST]++;
    }
    g_ours.total += samples;
}

static void empty_hand(size_t samples)
{
    size_t s;
    for (s = 0; s < samples; s++) {
        uint64_t a = hand_before();
        uint64_t b = hand_after();
        uint64_t d = b - a;
        g_hand.n[d < HIST ? d : HIST]++;
    }
    g_hand.total += samples;
}

/* Minimum, median and mean of the lower 90 % of a histogram. */
static void hist_print(const char *name, const struct hist *h)
{
    uint64_t seen = 0, keep = h->total * 9 / 10 + 1, kept = 0;
    double sum = 0;
    long min = -1, med = -1;
    int i;
    for (i = 0; i <= HIST; i++) {
        uint64_t c = h->n[i], take;
        if (!c)
            continue;
        if (min < 0)
            min = i;
        seen += c;
        if (med < 0 && seen > h->total / 2)
            med = i;
        take = kept + c > keep ? keep - kept : c;
        sum += (double)take * i;
        kept += take;
    }
    printf("empty_%s_min %ld\nempty_%s_med %ld\nempty_%s_tmean %.3f\n", name, min, name, med,
           name, kept ? sum / (double)kept : 0.0);
}

/* --- (b) tsc_now_ns against clock_gettime -------------------------------- */

static volatile uint64_t g_sink;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t plain_rdtsc(void)
{
#if defined(BENCH_X86)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    return 0;
#endif
}

/* Ticks per call of `calls` calls of one kind (0: tsc_now_ns, 1:
 * clock_gettime, 2: plain RDTSC). */
static double clock_round(int kind, size_t calls)
{
    uint64_t s = 0, t0, t1;
    size_t i;
    t0 = hand_before();
    if (kind == 0)
        for (i = 0; i < calls; i++)
            s += tsc_now_ns();
    else if (kind == 1)
        for (i = 0; i < calls; i++)
            s += mono_ns();
    else
        for (i = 0; i < calls; i++)
            s += plain_rdtsc();
    t1 = hand_after();
    g_sink += s;
    return (double)(t1 - t0) / (double)calls;
}

/* --- (c) conversion ------------------------------------------------------ */

#define NIN 1024
static uint64_t g_in[NIN];
static double g_ns_per_tick;

static void fill_inputs(void)
{
    uint64_t x = 88172645463325252u;
    int i;
    for (i = 0; i < NIN; i++) { /* 256 ticks to about an hour, log-spread */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        g_in[i] = (x >> (64 - 44 + (int)(x % 36))) + 256;
    }
}

/* Ticks per conversion, `calls` conversions (kind 0: tsc_ticks_to_ns, 1:
 * the double multiply), minus the empty region's minimum. */
static double conv_run(int kind, size_t calls, uint64_t empty)
{
    uint64_t acc = 0, t0, t1, d;
    double dacc = 0;
    size_t i;
    t0 = hand_before();
    if (kind == 0)
        for (i = 0; i < calls; i++)
            acc += tsc_ticks_to_ns(g_in[i % NIN]);
    else
        for (i = 0; i < calls; i++)
            dacc += (double)g_in[i % NIN] * g_ns_per_tick;
    t1 = hand_after();
    g_sink += acc + (uint64_t)dacc;
    d = t1 - t0;
    d = d > empty ? d - empty : 0;
    return (double)d / (double)calls;
}

/* --- (e) statistics ------------------------------------------------------ */

#define NVAL 4096
static uint64_t g_val[NVAL];
static struct tsc_stats g_st;

/* Ticks of `adds` adds: kind 0 varied values, 1 values 1000 or 1001, 2 the
 * bare loop summing the varied values. */
static uint64_t stats_run(int kind, uint64_t adds)
{
    uint64_t i, t0, t1, acc = 0;
    tsc_stats_init(&g_st);
    t0 = hand_before();
    if (kind == 0)
        for (i = 0; i < adds; i++)
            tsc_stats_add(&g_st, g_val[i & (NVAL - 1)]);
    else if (kind == 1)
        for (i = 0; i < adds; i++)
            tsc_stats_add(&g_st, 1000 + (g_val[i & (NVAL - 1)] & 1));
    else
        for (i = 0; i < adds; i++)
            acc += g_val[i & (NVAL - 1)];
    t1 = hand_after();
    g_sink += acc + tsc_stats_count(&g_st);
    return t1 - t0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int tiny = bench_tiny(argc, argv);
    size_t ens = tiny ? 4 : 40, smp = tiny ? 50 : 1000;
    size_t clock_calls = tiny ? 2000 : 200000, clock_reps = tiny ? 1 : 5;
    size_t conv_calls = tiny ? 256 : 4096, conv_runs = tiny ? 5 : 101;
    uint64_t adds = tiny ? NVAL : 1000000, seed = 88172645463325252u, empty;
    double hz, now_best = 1e300, mono_best = 1e300, rdtsc_best = 1e300, *per;
    size_t e, r, i;
    int cpu, k;

    /* Every one-time cost (counter choice, calibration, overhead, the
     * clock's line) before anything is measured. */
    hz = tsc_ticks_per_second();
    g_sink += tsc_now_ns() + tsc_ticks_to_ns(1) + tsc_overhead_ticks();
    g_ns_per_tick = 1e9 / hz;
#if defined(BENCH_X86)
    g_rdtscp = tsc_features().uses_rdtscp != 0;
#endif
    cpu = bench_pin_to_this_cpu();
    printf("hz %.3f\ncpu %d\n", hz, cpu);

    /* (a) ensembles of each, alternating, the order swapped every other. */
    empty_ours(smp);
    empty_hand(smp);
    memset(&g_ours, 0, sizeof g_ours);
    memset(&g_hand, 0, sizeof g_hand);
    for (e = 0; e < ens; e++) {
        if (e % 2) {
            empty_ours(smp);
            empty_hand(smp);
        } else {
            empty_hand(smp);
            empty_ours(smp);
        }
    }
    hist_print("ours", &g_ours);
    hist_print("hand", &g_hand);

    /* (b) */
    clock_round(0, clock_calls / 10);
    clock_round(1, clock_calls / 10);
    for (r = 0; r < clock_reps; r++) {
        double a = clock_round(0, clock_calls), b = clock_round(1, clock_calls);
        double c = clock_round(2, clock_calls);
        now_best = a < now_best ? a : now_best;
        mono_best = b < mono_best ? b : mono_best;
        rdtsc_best = c < rdtsc_best ? c : rdtsc_best;
    }
#if !defined(BENCH_X86)
    rdtsc_best = 0;
#endif
    printf("now_ns %.4f\nmono_ns %.4f\nnow_ratio %.4f\nrdtsc_ns %.4f\n", now_best * g_ns_per_tick,
           mono_best * g_ns_per_tick, now_best / mono_best, rdtsc_best * g_ns_per_tick);

    /* (c) the runs of both kinds alternate. */
    {
        uint64_t best = UINT64_MAX;
        for (i = 0; i < 256; i++) {
            uint64_t a = hand_before(), b = hand_after();
            best = b - a < best ? b - a : best;
        }
        empty = best;
    }
    fill_inputs();
    per = (double *)malloc(2 * conv_runs * sizeof *per);
    if (!per)
        return 1;
    conv_run(0, conv_calls, empty);
    conv_run(1, conv_calls, empty);
    for (r = 0; r < conv_runs; r++) {
        per[r] = conv_run(0, conv_calls, empty);
        per[conv_runs + r] = conv_run(1, conv_calls, empty);
    }
    qsort(per, conv_runs, sizeof *per, cmp_d);
    qsort(per + conv_runs, conv_runs, sizeof *per, cmp_d);
    printf("conv_ns %.4f\nconv_double_ns %.4f\n", per[conv_runs / 2] * g_ns_per_tick,
           per[conv_runs + conv_runs / 2] * g_ns_per_tick);
    free(per);

    /* (e) best of 3 of each, alternating. */
    for (i = 0; i < NVAL; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        g_val[i] = (seed >> 30) >> (seed % 30);
    }
    {
        uint64_t best[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
        for (r = 0; r < 3; r++)
            for (k = 0; k < 3; k++) {
                uint64_t t = stats_run(k, adds);
                best[k] = t < best[k] ? t : best[k];
            }
        printf("stats_varied_ns %.4f\nstats_one_ns %.4f\nstats_loop_ns %.4f\n",
               (double)best[0] * g_ns_per_tick / (double)adds,
               (double)best[1] * g_ns_per_tick / (double)adds,
               (double)best[2] * g_ns_per_tick / (double)adds);
    }
    return 0;
}
