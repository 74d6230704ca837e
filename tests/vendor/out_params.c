/* SPDX-License-Identifier: MIT */
/* Every public function with an out-parameter, called the way a user calls
 * it: an uninitialized object, the call (its status not looked at, and for
 * some a call that fails), then a read of what it wrote. strict_flags.sh
 * compiles one case per program (-DOUT_PARAM_tsc_calibrate, ...) at -O2 and
 * -O3: a function that leaves its output unwritten on some path makes gcc
 * report -Wmaybe-uninitialized here, in the user's file. */
#include "tsc_timer.h"

#if defined(__cplusplus)
#define OUT_CAST(T, x) static_cast<T>(x)
#define OUT_NULL nullptr
#else
#define OUT_CAST(T, x) ((T)(x))
#define OUT_NULL NULL
#endif

int main(void)
{
#if defined(OUT_PARAM_tsc_calibrate) || defined(OUT_PARAM_tsc_current_calibration)
    struct tsc_calibration c;
#if defined(OUT_PARAM_tsc_calibrate)
    tsc_calibrate(0.01, &c);
#else
    tsc_current_calibration(&c);
#endif
    printf("%.1f Hz, %s\n", c.ticks_per_second, c.method ? c.method : "-");
#elif defined(OUT_PARAM_tsc_trust_measure_skew)
    uint64_t bound;
    tsc_trust_measure_skew(&bound);
    printf("%.0f ticks\n", OUT_CAST(double, bound));
#elif defined(OUT_PARAM_tsc_bench_get_result)
    static struct tsc_bench b; /* never run: the call fails */
    struct tsc_bench_result r;
    tsc_bench_get_result(&b, &r);
    printf("%.3f ns/op\n", r.ns_per_op);
#elif defined(OUT_PARAM_tsc_ticks_before_cpu) || defined(OUT_PARAM_tsc_ticks_after_cpu)
    uint32_t cpu;
    uint64_t t;
#if defined(OUT_PARAM_tsc_ticks_before_cpu)
    t = tsc_ticks_before_cpu(&cpu);
#else
    t = tsc_ticks_after_cpu(&cpu);
#endif
    printf("%.0f on cpu %lu\n", OUT_CAST(double, t), OUT_CAST(unsigned long, cpu));
#elif defined(OUT_PARAM_tsc_stats_init)
    struct tsc_stats s;
    tsc_stats_init(&s);
    printf("%.0f samples\n", OUT_CAST(double, tsc_stats_count(&s)));
#elif defined(OUT_PARAM_tsc_regions_init)
    struct tsc_regions r;
    tsc_regions_init(&r, 0, OUT_NULL); /* fails: no region */
    printf("%d\n", tsc_region_start(&r, 0));
#elif defined(OUT_PARAM_tsc_bench_init)
    struct tsc_bench b;
    tsc_bench_init(&b, OUT_NULL); /* fails: no name */
    printf("%.3f s budget\n", b.budget);
#elif defined(OUT_PARAM_tsc_trace_init)
    struct tsc_trace t;
    tsc_trace_init(&t, OUT_NULL, 0, "main"); /* fails: no memory */
    printf("%.0f events, %d open\n", OUT_CAST(double, t.n), t.depth);
#else
#error "define OUT_PARAM_<function>: which function with an out-parameter to call"
#endif
    return 0;
}
