/* SPDX-License-Identifier: MIT */
/* The whole public API in one program, for strict_flags.sh and no_libm.sh:
 * every tsc_* function and TSC_* macro of the header's public part, used
 * once, as C90 (declarations first, no long long, no // comments) and, the
 * same file, as C++. It must compile without a single diagnostic under the
 * strictest flag sets, link without -lm, and exit 0, quickly: tsc_init(), a
 * few reads, a small stats object, output to /dev/null. strict_flags.sh also
 * checks that every public name of the header appears here. */
/* <chrono> first: the header then declares its std::chrono clocks (where
 * the C++ library is there: clang's LoongArch cross build has none) */
#if defined(__cplusplus) && defined(__has_include)
#if __has_include(<chrono>)
#include <chrono>
#define WHOLE_API_CHRONO 1
#endif
#endif
#include "tsc_timer.h"
#include "tsc_timer.h"

/* TSC_MEASURE declares its variables in a for statement: not C90. */
#if defined(__STDC_VERSION__) || defined(__cplusplus)
#define WHOLE_API_HAS_MEASURE 1
#endif
/* NULL is 0 to clang++ -Wzero-as-null-pointer-constant; a C cast is
 * old-style to C++'s -Wold-style-cast. */
#if defined(__cplusplus)
#define WHOLE_API_NULL nullptr
#define WHOLE_API_CAST(T, x) static_cast<T>(x)
#else
#define WHOLE_API_NULL NULL
#define WHOLE_API_CAST(T, x) ((T)(x))
#endif

static int failures;

static void expect(int ok, const char *what)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "whole_api: expected %s\n", what);
    }
}

/* Reads, conversions, the clock, features and calibration. */
static void use_core(FILE *out)
{
    struct tsc_calibration cal;
    struct tsc_features f = tsc_get_features();
    uint32_t cpu0 = 0, cpu1 = 0;
    uint64_t t0, t1, t2, t3, ns, ticks, over, net, now, real;
    double hz, secs;
    const char *name;
    int rc;

    t0 = tsc_ticks_before();
    t1 = tsc_ticks_after();
    t2 = tsc_ticks_before_cpu(&cpu0);
    t3 = tsc_ticks_after_cpu(&cpu1);
    expect(t1 >= t0 && t3 >= t2, "counter reads in order");
    hz = tsc_ticks_per_second();
    expect(hz > 0, "a positive frequency");
    ns = tsc_ticks_to_ns(t1 - t0);
    ticks = tsc_ns_to_ticks(UINT64_C(1000));
    secs = tsc_ticks_to_seconds(t3 - t2);
    over = tsc_overhead_ticks();
    net = tsc_sub_overhead(t1 - t0);
    now = tsc_now_ns();
    real = tsc_now_realtime_ns();
    rc = tsc_clock_resync();
    expect(rc == 0 || rc == -EAGAIN, "tsc_clock_resync() 0 or -EAGAIN");
    {
        uint64_t stamp = tsc_clock_ticks(), bound = 0;
        struct tsc_trust tr = tsc_trust();
        struct tsc_trust tr2 = tsc_get_trust();
        expect(tsc_clock_ticks_to_ns(stamp) <= tsc_now_ns() &&
                   tsc_clock_ticks_to_realtime_ns(stamp) > 0,
               "a stamp converts to no later than now");
        expect(tsc_clock_elapsed_ns(stamp, tsc_clock_ticks()) >= 0, "a later stamp is not earlier");
        expect(tsc_clock_ticks_to_ns(tsc_clock_ticks_unordered()) <= tsc_now_ns_unordered() &&
                   tsc_now_realtime_ns_unordered() > 0,
               "the unordered forms: a stamp converts to no later than now");
        expect(tr.level == tr2.level && (tr.level == TSC_TRUST_OK || tr.level == TSC_TRUST_CAUTION ||
                                         tr.level == TSC_TRUST_UNSAFE),
               "a trust level");
        rc = tsc_trust_measure_skew(&bound);
        expect(rc == 0 || rc == -ENOSYS, "tsc_trust_measure_skew() 0 or -ENOSYS");
        fprintf(out, "trust: %s, skew %.0f ticks\n", tr.reason,
                WHOLE_API_CAST(double, bound));
    }
    rc = tsc_calibrate(0.001, &cal);
    expect(rc == 0, "tsc_calibrate(0.001) == 0");
    rc = tsc_current_calibration(&cal);
    expect(rc == 0 && cal.ticks_per_second > 0, "a current calibration");
    name = tsc_counter_name();
    expect(name != WHOLE_API_NULL && name[0] != '\0', "a counter name");
    fprintf(out, "%s: %.0f Hz, %.0f ns, %.0f ticks/us, %.9f s, overhead %.0f, net %.0f\n", name,
            hz, WHOLE_API_CAST(double, ns), WHOLE_API_CAST(double, ticks), secs,
            WHOLE_API_CAST(double, over), WHOLE_API_CAST(double, net));
    fprintf(out, "now %.0f, realtime %.0f, cpu %lu -> %lu, counter %d, method %s\n",
            WHOLE_API_CAST(double, now), WHOLE_API_CAST(double, real),
            WHOLE_API_CAST(unsigned long, cpu0), WHOLE_API_CAST(unsigned long, cpu1), f.has_counter,
            cal.method);
    fprintf(out, "version %d.%d.%d\n", TSC_TIMER_VERSION_MAJOR, TSC_TIMER_VERSION_MINOR,
            TSC_TIMER_VERSION_PATCH);
    /* The calibration setting, where the header gives it a value. */
#if defined(TSC_TIMER_CALIBRATION_SECONDS)
    fprintf(out, "calibration %.3f s\n", 1.0 * TSC_TIMER_CALIBRATION_SECONDS);
#elif defined(TSC_CALIBRATION_SECONDS)
    fprintf(out, "calibration %.3f s\n", 1.0 * TSC_CALIBRATION_SECONDS);
#endif
#if defined(__cplusplus)
    {
        tsc_features g = tsc_get_features();
        expect(g.has_counter == f.has_counter, "tsc_features the same from C++");
    }
#endif
}

/* TSC_KEEP on an int, a double, a pointer and a uint64_t around a region. */
static void use_keep(struct tsc_stats *st)
{
    int ki = 3;
    double kd = 1.5;
    const char *kp = "keep";
    uint64_t ku = 7;
    TSC_START(tk);
    TSC_KEEP(ki);
    TSC_KEEP(kd);
    TSC_KEEP(kp);
    TSC_KEEP(ku);
    ki += 1;
    kd *= 2.0;
    kp++;
    ku += WHOLE_API_CAST(uint64_t, ki);
    TSC_KEEP(ki);
    TSC_KEEP(kd);
    TSC_KEEP(kp);
    TSC_KEEP(ku);
    TSC_END(tk, st);
    expect(ki == 4 && kd > 2.9 && kd < 3.1 && kp[0] == 'e' && ku == 11, "TSC_KEEP keeps values");
}

/* Statistics, the timing macros and regions. */
static void use_measure(FILE *out)
{
    static struct tsc_stats st, st2;
    static const char *const names[2] = {"first", "second"};
    struct tsc_regions r;
    uint64_t count, lo, hi, p50, total;
    double mean, sd, sum;
    int i, rc, kept;

    tsc_stats_init(&st);
    tsc_stats_init(&st2);
    for (i = 0; i < 4; i++) {
        TSC_START(t);
        TSC_END(t, &st);
        TSC_END_LOG(t, out);
    }
    {
        TSC_START_CPU(c);
        kept = TSC_END_CPU(c, &st, 1);
        expect(kept == 0 || kept == 1, "TSC_END_CPU 0 or 1");
    }
    TSC_TIMESTAMP(stamp, out);
#if defined(WHOLE_API_HAS_MEASURE)
    TSC_MEASURE(&st) {
        i++;
    }
#else
    tsc_stats_add(&st, 1);
#endif
    use_keep(&st);
    rc = tsc_stats_add_cpu(&st2, 5, 0, 1, 0);
    expect(rc == 1, "tsc_stats_add_cpu records a migrated sample when not dropping");
    tsc_stats_add(&st2, 7);
    sum = tsc_stats_sum(&st2);
    expect(sum >= 12.0 && sum <= 12.0, "tsc_stats_sum == 12 for samples 5 and 7");
    tsc_stats_merge(&st, &st2);
    count = tsc_stats_count(&st);
    expect(count == 9, "9 samples after the merge");
    lo = tsc_stats_min(&st);
    hi = tsc_stats_max(&st);
    p50 = tsc_stats_percentile(&st, 50);
    mean = tsc_stats_mean(&st);
    sd = tsc_stats_stddev(&st);
    sum = tsc_stats_sum(&st);
    expect(lo <= p50 && p50 <= hi && sd >= 0, "min <= p50 <= max, sd >= 0");
    expect(sum >= mean * WHOLE_API_CAST(double, count) * 0.999 &&
               sum <= mean * WHOLE_API_CAST(double, count) * 1.001,
           "sum == mean * count");
    tsc_stats_print(&st, "st", out);
    rc = tsc_stats_print_flags(&st, WHOLE_API_NULL, out,
                               TSC_PRINT_SUB_OVERHEAD | TSC_PRINT_NO_HISTOGRAM);
    expect(rc == 0, "tsc_stats_print_flags() == 0");
    rc = tsc_stats_print_flags(&st, WHOLE_API_NULL, out, TSC_PRINT_NS);
    expect(rc == 0, "tsc_stats_print_flags(TSC_PRINT_NS) == 0");
    fprintf(out, "%d buckets, mean %.1f, sd %.1f\n", TSC_STATS_BUCKETS, mean, sd);

    rc = tsc_regions_init(&r, 2, names);
    rc += tsc_region_start(&r, 0);
    rc += tsc_region_switch(&r, 1);
    rc += tsc_region_stop(&r);
    expect(rc == 0, "the regions calls return 0");
    total = tsc_regions_total(&r);
    tsc_regions_print(&r, out);
    fprintf(out, "regions: %.0f ticks, at most %d regions\n", WHOLE_API_CAST(double, total),
            TSC_REGIONS_MAX);
}

/* Microbenchmarks (C99 and C++: TSC_BENCH declares its loop variables). */
static void use_bench(FILE *out)
{
#if defined(WHOLE_API_HAS_MEASURE)
    static struct tsc_bench a, b;
    const struct tsc_bench *list[2];
    struct tsc_bench_result r;
    uint64_t x = 3;
    int got, rc = tsc_bench_init(&a, "add");
    rc += tsc_bench_set_budget(&a, 0.01);
    TSC_BENCH(&a) {
        TSC_KEEP(x);
        x += 1;
        TSC_KEEP(x);
    }
    rc += tsc_bench_init(&b, "nothing");
    rc += tsc_bench_set_budget(&b, 0.01);
    TSC_BENCH(&b) {
    }
    rc += tsc_bench_get_result(&b, &r) == 0 ? 0 : 0; /* the function behind the macro */
    got = tsc_bench_result(&a, &r);
    /* A figure, or on a machine too loaded to size the batches within the
     * 10 ms budget, -EAGAIN with the run marked unstable and its reason. */
    expect(rc == 0 && ((got == 0 && r.batches > 0 && r.batches <= TSC_BENCH_MAX_BATCHES) ||
                       (got == -EAGAIN && r.unstable && r.reason && r.reason[0])),
           "the bench calls work");
    tsc_bench_print(&a, out);
    list[0] = &a;
    list[1] = &b;
    rc = tsc_bench_write(list, 2, out, TSC_BENCH_MARKDOWN);
    rc += tsc_bench_write(list, 2, out, TSC_BENCH_CSV);
    rc += tsc_bench_write(list, 2, out, TSC_BENCH_JSON);
    expect(rc == 0, "tsc_bench_write() == 0");
    fprintf(out, "%.3f ns/op\n", r.ns_per_op);
#else
    (void)out;
#endif
}

/* Traces (C99 and C++: TSC_TRACE declares its loop variables). */
static void use_trace(FILE *out)
{
#if defined(WHOLE_API_HAS_MEASURE)
    static char mem[TSC_TRACE_BYTES(8)];
    static struct tsc_trace t;
    const struct tsc_trace *list[1];
    uint64_t s0 = 0;
    int rc = tsc_trace_init(&t, mem, sizeof mem, "main");
    TSC_TRACE(&t, "outer") {
        TSC_TRACE(&t, "inner") {
            s0 = tsc_clock_ticks();
        }
    }
    rc += tsc_trace_add(&t, "added", s0, tsc_clock_ticks());
    list[0] = &t;
    rc += tsc_trace_write_json(out, list, 1);
    expect(rc == 0 && tsc_trace_dropped(&t) == 0, "the trace calls work");
#else
    (void)out;
#endif
}

/* Zones (C99 and C++: TSC_ZONE declares its loop variables). */
static void use_zones(FILE *out)
{
#if defined(WHOLE_API_HAS_MEASURE)
    int i, rc;
    TSC_ZONE("outer") {
        for (i = 0; i < 3; i++)
            TSC_ZONE("inner") TSC_KEEP(i);
        TSC_ZONE_FUNC {}
    }
#if defined(__cplusplus) || defined(__GNUC__)
    {
        int k = 1;
        TSC_ZONE_SCOPE("scope");
        TSC_KEEP(k);
    }
#endif
    /* traced too, with a flow, an instant and a counter */
    rc = tsc_zones_trace(TSC_ZONES_TRACE_BYTES(1024));
    expect(rc == 0 || rc == -ENOSYS, "tsc_zones_trace works or says it cannot");
    rc = tsc_zones_thread_name("whole api");
    expect(rc == 0 || rc == -ENOSYS, "tsc_zones_thread_name works or says it cannot");
    TSC_ZONE("traced") {
        uint64_t id = 7;
        TSC_FLOW_OUT("flow", id);
        TSC_FLOW_IN("flow", id);
        TSC_INSTANT("instant");
        TSC_COUNTER("counter", 3);
    }
    rc = tsc_zones_write_trace(out);
    expect(rc == 0 && tsc_zones_trace(0) != -EINVAL, "the zones' trace is written");
    tsc_zones_print(out);
    rc = tsc_zones_write(out, TSC_BENCH_MARKDOWN);
    rc += tsc_zones_write(out, TSC_BENCH_CSV);
    rc += tsc_zones_write(out, TSC_BENCH_JSON);
    tsc_zones_reset();
    expect(rc == 0 && tsc_zones_print_at_exit(WHOLE_API_NULL) == -EINVAL,
           "the zone calls work");
    expect(TSC_ZONES_MAX > 0 && TSC_ZONES_THREADS > 0 &&
           TSC_ZONES_DEPTH > 0, "the zones' limits are set");
#else
    (void)out;
#endif
}

/* C++: the scopes, the stamp type and the std::chrono clocks. */
#if defined(__cplusplus)
static void use_cpp(void)
{
    struct tsc_stats st;
    tsc_stats_init(&st);
    {
        tsc::measure_scope m(&st);
    }
    tsc::stamp a = tsc::stamp::now(), b = tsc::stamp::now();
    expect(b - a >= 0 && !(b < a) && a.ns() <= b.ns() && a.realtime_ns() > 0 && a == a,
           "stamps subtract in order");
    expect(tsc_stats_count(&st) == 1, "a measure_scope records");
#if defined(WHOLE_API_CHRONO)
    tsc::clock::time_point t0 = tsc::clock::now();
    tsc::realtime_clock::time_point r = tsc::realtime_clock::now();
    expect(tsc::clock::now() >= t0 && tsc::clock::from_stamp(a) <= tsc::clock::now() &&
               tsc::realtime_clock::from_stamp(a) <= tsc::realtime_clock::now() &&
               r.time_since_epoch().count() > 0,
           "the C++ clocks");
#endif
}
#endif

int main(void)
{
    FILE *out;
    int rc = tsc_init();
    expect(rc == 0, "tsc_init() == 0");
    out = fopen("/dev/null", "w");
    if (out == WHOLE_API_NULL)
        out = stdout;
    use_core(out);
    use_measure(out);
    use_bench(out);
    use_trace(out);
    use_zones(out);
#if defined(__cplusplus)
    use_cpp();
#endif
    if (out != stdout)
        fclose(out);
    return failures != 0;
}
