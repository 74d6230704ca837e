/* SPDX-License-Identifier: MIT */
/* Compile-only: the header twice, every public function referenced, under
 * strict warnings in every C and C++ standard (see compile_matrix.sh). */
#include "tsc_timer.h"
#include "tsc_timer.h"

/* A C cast is old-style to C++'s -Wold-style-cast. */
#if defined(__cplusplus)
#define COMPILE_TEST_CAST(T, x) static_cast<T>(x)
#else
#define COMPILE_TEST_CAST(T, x) ((T)(x))
#endif

int compile_test_use(void);
int compile_test_use(void)
{
    struct tsc_calibration c;
    struct tsc_features f = tsc_features();
    uint32_t cpu;
    uint64_t t0 = tsc_ticks_before();
    uint64_t t1 = tsc_ticks_after();
    uint64_t t2 = tsc_ticks_after_cpu(&cpu);
    uint64_t t3 = tsc_ticks_before_cpu(&cpu);
    int rc = tsc_calibrate(0.001, &c);
    rc += tsc_current_calibration(&c);
    rc += tsc_clock_resync() + COMPILE_TEST_CAST(int, tsc_now_ns() + tsc_now_realtime_ns());
    return COMPILE_TEST_CAST(int, tsc_ticks_to_ns(t1 - t0) + tsc_ns_to_ticks(t2 - t3) +
                                      tsc_overhead_ticks() + tsc_sub_overhead(t1)) +
           COMPILE_TEST_CAST(int, tsc_ticks_to_seconds(t1)) +
           COMPILE_TEST_CAST(int, tsc_ticks_per_second()) + rc +
           COMPILE_TEST_CAST(int, tsc_counter_name()[0]) + f.has_counter;
}

/* The measurement helpers: every function and macro. */
int compile_test_measure(void);
int compile_test_measure(void)
{
    static struct tsc_stats s, s2;
    static const char *const names[2] = {"a", "b"};
    struct tsc_regions r;
    int i, rc;
    tsc_stats_init(&s);
    tsc_stats_init(&s2);
    for (i = 0; i < 3; i++) {
        TSC_START(t);
        TSC_END(t, &s);
        TSC_END_LOG(t, stdout);
    }
    {
        TSC_START_CPU(c);
        rc = TSC_END_CPU(c, &s, 1);
    }
    TSC_TIMESTAMP(now, stdout);
    TSC_MEASURE(&s) {
        if (i)
            break;
    }
    rc += tsc_stats_add_cpu(&s2, 5, 0, 1, 0);
    tsc_stats_add(&s2, 7);
    tsc_stats_merge(&s, &s2);
    tsc_stats_print(&s, "s", stdout);
    rc += tsc_stats_print_flags(&s, NULL, stdout, TSC_PRINT_SUB_OVERHEAD | TSC_PRINT_NO_HISTOGRAM);
    rc += tsc_regions_init(&r, 2, names);
    rc += tsc_region_start(&r, 0);
    rc += tsc_region_switch(&r, 1);
    rc += tsc_region_stop(&r);
    tsc_regions_print(&r, stdout);
    return rc + COMPILE_TEST_CAST(int, tsc_stats_percentile(&s, 50) + tsc_stats_count(&s) +
                                           tsc_stats_min(&s) + tsc_stats_max(&s) +
                                           tsc_regions_total(&r)) +
           COMPILE_TEST_CAST(int, tsc_stats_mean(&s) + tsc_stats_stddev(&s));
}

/* Zones: the macros (also as the body of a for) and every function. */
int compile_test_zones(void);
int compile_test_zones(void)
{
    int i, n = 0;
    TSC_ZONE("outer") {
        for (i = 0; i < 3; i++)
            TSC_ZONE("inner") n += i;
        TSC_ZONE_FUNC {
            if (n)
                break;
        }
    }
    tsc_zones_print(stdout);
    n += tsc_zones_write(stdout, TSC_BENCH_JSON) + tsc_zones_print_at_exit(stdout);
    tsc_zones_reset();
    return n;
}

#if defined(COMPILE_TEST_MAIN)
/* Linked under -O3 -flto, so link-time warnings count too. */
int main(void)
{
    return compile_test_use() + compile_test_measure() + compile_test_zones() == 0x7fffffff;
}
#endif
