/* SPDX-License-Identifier: MIT */
/* The measurement helpers: percentiles against exact sorted data, exact
 * merging, stable mean and deviation, printing, the macros (also from C++,
 * see stats_cpp.cpp), regions and CPU migration. */
#include "tsc_test.h"
#include "stats_cpp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_MAX 200000
static uint64_t data[N_MAX];
static struct tsc_stats sa, sb, sc;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile of sorted v[0..n-1] for p = pp / 1e4 percent,
 * in integers: the value of rank ceil(pp * n / 1e6), at least 1. */
static uint64_t exact_percentile(const uint64_t *v, uint64_t n, uint64_t pp)
{
    uint64_t rank = (pp * n + 999999) / 1000000;
    return v[rank ? rank - 1 : 0];
}

/* Every percentile in a list, and 200 random ones, within 1/128 of the
 * exact nearest-rank value (exact below 128, and at p = 0 and 100). */
static void check_percentiles(const char *what, uint64_t *v, uint64_t n)
{
    static const uint64_t list[] = {0, 1, 1000, 10000, 100000, 250000, 500000, 750000,
                                    900000, 990000, 999000, 999900, 999999, 1000000};
    uint64_t seed = 99, i;
    tsc_stats_init(&sa);
    for (i = 0; i < n; i++)
        tsc_stats_add(&sa, v[i]);
    qsort(v, (size_t)n, sizeof v[0], cmp_u64);
    EXPECT(tsc_stats_count(&sa) == n, "%s: count %llu, expected %llu", what,
           (unsigned long long)tsc_stats_count(&sa), (unsigned long long)n);
    EXPECT(tsc_stats_min(&sa) == v[0] && tsc_stats_max(&sa) == v[n - 1], "%s: min/max wrong",
           what);
    for (i = 0; i < sizeof list / sizeof list[0] + 200; i++) {
        uint64_t pp = i < sizeof list / sizeof list[0] ? list[i] : test_rand64(&seed) % 1000001;
        uint64_t want = exact_percentile(v, n, pp);
        uint64_t got = tsc_stats_percentile(&sa, (double)pp / 1e4);
        uint64_t diff = got > want ? got - want : want - got;
        int exact = want < 128 || pp == 0 || pp == 1000000;
        EXPECT(exact ? diff == 0 : diff <= want / 128,
               "%s: p%.4f = %llu, exact nearest rank %llu (allowed %s)", what, (double)pp / 1e4,
               (unsigned long long)got, (unsigned long long)want,
               exact ? "exact" : "1/128 relative");
    }
}

static void test_percentiles_uniform(void **state)
{
    uint64_t seed = 1, i;
    (void)state;
    for (i = 0; i < N_MAX; i++)
        data[i] = test_rand64(&seed) % 1000000;
    check_percentiles("uniform [0, 1e6)", data, N_MAX);
}

/* Log-uniform over 40 binary orders: heavy tail, every bucket range used. */
static void test_percentiles_long_tailed(void **state)
{
    uint64_t seed = 2, i;
    (void)state;
    for (i = 0; i < N_MAX; i++) {
        uint64_t r = test_rand64(&seed);
        data[i] = (r >> 24) >> (r % 40);
    }
    check_percentiles("long-tailed", data, N_MAX);
}

static void test_percentiles_constant_and_single(void **state)
{
    uint64_t i;
    (void)state;
    for (i = 0; i < 1000; i++)
        data[i] = 123457;
    check_percentiles("constant 123457", data, 1000);
    EXPECT(tsc_stats_percentile(&sa, 37.5) == 123457, "constant data: p37.5 not the constant");
    data[0] = 987654321;
    check_percentiles("single sample", data, 1);
    EXPECT(tsc_stats_percentile(&sa, 50) == 987654321, "single sample: p50 not the sample");
}

static void test_percentiles_near_zero_exact(void **state)
{
    uint64_t seed = 3, i;
    (void)state;
    for (i = 0; i < 10000; i++)
        data[i] = test_rand64(&seed) % 130; /* 0 .. 129 */
    check_percentiles("0 .. 129", data, 10000);
}

static void test_percentiles_near_2_pow_64(void **state)
{
    uint64_t seed = 4, i;
    (void)state;
    for (i = 0; i < 10000; i++)
        data[i] = UINT64_MAX - test_rand64(&seed) % UINT64_C(1000000000000000000);
    data[0] = UINT64_MAX;
    check_percentiles("near 2^64", data, 10000);
    for (i = 0; i < 10000; i++)
        data[i] = test_rand64(&seed) | (UINT64_C(1) << 63);
    check_percentiles("top half of 2^64", data, 10000);
}

static void test_percentile_bad_input_and_empty(void **state)
{
    (void)state;
    tsc_stats_init(&sa);
    EXPECT(tsc_stats_percentile(&sa, 50) == 0, "empty: p50 should be 0");
    EXPECT(tsc_stats_count(&sa) == 0 && tsc_stats_min(&sa) == 0 && tsc_stats_max(&sa) == 0,
           "empty: count/min/max should be 0");
    EXPECT(tsc_stats_mean(&sa) == 0 && tsc_stats_stddev(&sa) == 0, "empty: mean/sd should be 0");
    tsc_stats_add(&sa, 500);
    EXPECT(tsc_stats_percentile(&sa, -1) == 0 && tsc_stats_percentile(&sa, 100.5) == 0 &&
               tsc_stats_percentile(&sa, NAN) == 0,
           "p outside [0, 100] or NaN should give 0");
    EXPECT(tsc_stats_percentile(NULL, 50) == 0, "NULL stats should give 0");
    EXPECT(tsc_stats_stddev(&sa) == 0, "one sample: sd should be 0");
}

/* --- merge, mean, deviation -------------------------------------------- */

static void test_merge_equals_adding_everything(void **state)
{
    uint64_t seed = 5, i;
    (void)state;
    tsc_stats_init(&sa); /* all */
    tsc_stats_init(&sb); /* first part, then merged into */
    tsc_stats_init(&sc); /* second part */
    for (i = 0; i < 50000; i++) {
        uint64_t r = test_rand64(&seed), v = r >> (r % 64);
        tsc_stats_add(&sa, v);
        tsc_stats_add(i % 3 ? &sb : &sc, v);
    }
    tsc_stats_merge(&sb, &sc);
    EXPECT(memcmp(&sa, &sb, sizeof sa) == 0, "merged object differs from one fed everything");
    tsc_stats_init(&sc);
    tsc_stats_merge(&sc, &sa); /* into an empty one */
    EXPECT(memcmp(&sa, &sc, sizeof sa) == 0, "merge into empty is not a copy");
    tsc_stats_merge(&sc, &sc); /* into itself: every sample twice */
    tsc_stats_merge(&sa, &sb);
    EXPECT(memcmp(&sa, &sc, sizeof sa) == 0, "merging an object into itself is not doubling");
}

/* Sums carried across words: values near 2^64 overflow the low words of
 * sum and sum of squares at once. */
static void test_merge_carries(void **state)
{
    uint64_t i;
    (void)state;
    tsc_stats_init(&sa);
    tsc_stats_init(&sb);
    tsc_stats_init(&sc);
    for (i = 0; i < 1000; i++) {
        uint64_t v = UINT64_MAX - i * 977;
        tsc_stats_add(&sa, v);
        tsc_stats_add(i & 1 ? &sb : &sc, v);
    }
    tsc_stats_merge(&sb, &sc);
    EXPECT(memcmp(&sa, &sb, sizeof sa) == 0, "merge of values near 2^64 lost a carry");
}

static void test_mean_and_sd_match_long_double(void **state)
{
    uint64_t seed = 6, i, n = 100000;
    long double m = 0, v = 0;
    double mean, sd;
    (void)state;
    tsc_stats_init(&sa);
    for (i = 0; i < n; i++) {
        data[i] = test_rand64(&seed) % 1000000;
        tsc_stats_add(&sa, data[i]);
        m += data[i];
    }
    m /= n;
    for (i = 0; i < n; i++)
        v += (data[i] - m) * (data[i] - m);
    v = sqrtl(v / n);
    mean = tsc_stats_mean(&sa);
    sd = tsc_stats_stddev(&sa);
    EXPECT(fabs(mean - (double)m) <= 1e-9 * (double)m, "mean %.6f, expected %.6f", mean,
           (double)m);
    EXPECT(fabs(sd - (double)v) <= 1e-9 * (double)v, "sd %.6f, expected %.6f", sd, (double)v);
}

/* 2^63 + 0 and 2^63 + 2 alternating: mean 2^63 + 1, sd exactly 1. Naive
 * double sums of squares lose every digit here. */
static void test_sd_stable_far_from_zero(void **state)
{
    uint64_t base = UINT64_C(1) << 63, i;
    double sd;
    (void)state;
    tsc_stats_init(&sa);
    for (i = 0; i < 100000; i++)
        tsc_stats_add(&sa, base + (i & 1) * 2);
    sd = tsc_stats_stddev(&sa);
    EXPECT(fabs(sd - 1.0) < 1e-12, "sd of 2^63 + {0, 2} is %.15g, expected 1", sd);
    EXPECT(fabs(tsc_stats_mean(&sa) - ldexp(1, 63)) <= ldexp(1, 63) * 1e-15, "mean %.17g",
           tsc_stats_mean(&sa));
    tsc_stats_init(&sa);
    for (i = 0; i < 1000; i++)
        tsc_stats_add(&sa, UINT64_MAX - (i & 1) * 6);
    sd = tsc_stats_stddev(&sa);
    EXPECT(fabs(sd - 3.0) < 1e-12, "sd of 2^64 - 1 - {0, 6} is %.15g, expected 3", sd);
}

/* --- printing ---------------------------------------------------------- */

/* Prints s to a temporary file and reads it back into buf. */
static void print_to(const struct tsc_stats *s, unsigned flags, char *buf, size_t size)
{
    FILE *f = tmpfile();
    size_t n;
    EXPECT(f != NULL, "tmpfile failed");
    EXPECT(tsc_stats_print_flags(s, "x", f, flags) == 0, "print failed");
    rewind(f);
    n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* The sum of the histogram rows' counts, and the number of rows. */
static uint64_t histogram_total(const char *buf, int *rows)
{
    uint64_t total = 0;
    const char *line = buf;
    *rows = 0;
    while (line && *line) {
        unsigned long long a, b, c;
        if (sscanf(line, " %llu .. %llu %llu |", &a, &b, &c) == 3 && strchr(line, '|') &&
            strchr(line, '|') < strchr(line, '\n')) {
            total += c;
            (*rows)++;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return total;
}

static void test_print_table_and_histogram(void **state)
{
    static char buf[16384];
    uint64_t seed = 7, i;
    int rows;
    (void)state;
    tsc_stats_init(&sa);
    for (i = 0; i < 100000; i++) {
        uint64_t r = test_rand64(&seed);
        tsc_stats_add(&sa, 40 + ((r >> 20) >> (r % 24)));
    }
    print_to(&sa, 0, buf, sizeof buf);
    EXPECT(strstr(buf, "100000 samples") && strstr(buf, "p99.9") && strstr(buf, "mean +- sd"),
           "table incomplete:\n%s", buf);
    EXPECT(!strstr(buf, "nan") && !strstr(buf, "inf"), "NaN or infinity printed:\n%s", buf);
    EXPECT(histogram_total(buf, &rows) == 100000, "histogram rows count %llu of 100000:\n%s",
           (unsigned long long)histogram_total(buf, &rows), buf);
    EXPECT(rows >= 8 && rows <= 16, "%d histogram rows, expected 8 to 16:\n%s", rows, buf);
    EXPECT(strstr(buf, "|########################################\n") != NULL,
           "the largest row has no full 40-character bar:\n%s", buf);
}

/* Samples near 2^64 (a difference of stamps taken in the wrong order wraps
 * there) print and rank without undefined behaviour: the table shows the
 * exact extremes, the histogram's rows count every sample and end at the
 * maximum, each percentile is within 1/128 of the exact nearest rank. */
static void test_print_near_2_pow_64(void **state)
{
    static char buf[16384];
    static const uint64_t v[] = {UINT64_MAX, UINT64_MAX - 1000, UINT64_MAX - 1,
                                 UINT64_C(1) << 63, (UINT64_C(1) << 63) + 1,
                                 UINT64_MAX - (UINT64_C(1) << 62), UINT64_MAX};
    static const double ps[] = {0, 10, 50, 90, 99, 100};
    unsigned long long mn = 0, mx = 0, last_end = 0, pv[4];
    uint64_t sorted[sizeof v / sizeof v[0]], n = sizeof v / sizeof v[0], i;
    const char *row, *line;
    int rows;
    (void)state;
    tsc_stats_init(&sa);
    for (i = 0; i < n; i++) {
        tsc_stats_add(&sa, v[i]);
        sorted[i] = v[i];
    }
    qsort(sorted, (size_t)n, sizeof sorted[0], cmp_u64);
    EXPECT(tsc_stats_max(&sa) == UINT64_MAX && tsc_stats_min(&sa) == UINT64_C(1) << 63,
           "min %llu, max %llu: expected 2^63 and 2^64 - 1",
           (unsigned long long)tsc_stats_min(&sa), (unsigned long long)tsc_stats_max(&sa));
    for (i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        uint64_t want = exact_percentile(sorted, n, (uint64_t)(ps[i] * 1e4));
        uint64_t got = tsc_stats_percentile(&sa, ps[i]);
        uint64_t diff = got > want ? got - want : want - got;
        EXPECT(diff <= want / 128, "p%g = %llu, exact nearest rank %llu (allowed 1/128)", ps[i],
               (unsigned long long)got, (unsigned long long)want);
    }
    EXPECT(tsc_stats_mean(&sa) >= 9223372036854775808.0 &&
               tsc_stats_mean(&sa) <= 18446744073709551616.0,
           "mean %g outside [2^63, 2^64]", tsc_stats_mean(&sa));
    print_to(&sa, 0, buf, sizeof buf);
    row = strstr(buf, "\n  ticks ");
    EXPECT(row && sscanf(row, " ticks %llu %llu %llu %llu %llu %llu", &mn, &pv[0], &pv[1], &pv[2],
                         &pv[3], &mx) == 6 &&
               mn == UINT64_C(1) << 63 && mx == UINT64_MAX,
           "ticks row: min %llu, max %llu, expected 2^63 and 2^64 - 1:\n%s", mn, mx, buf);
    EXPECT(!strstr(buf, "nan") && !strstr(buf, "inf"), "NaN or infinity printed:\n%s", buf);
    EXPECT(histogram_total(buf, &rows) == n, "histogram rows count %llu of %llu:\n%s",
           (unsigned long long)histogram_total(buf, &rows), (unsigned long long)n, buf);
    for (line = strstr(buf, "histogram"); line && *line; line = strchr(line + 1, '\n')) {
        unsigned long long a, b, c;
        if (sscanf(line, " %llu .. %llu %llu |", &a, &b, &c) == 3)
            last_end = b;
    }
    EXPECT(rows >= 1 && last_end == UINT64_MAX, "%d rows, the last ending at %llu, not 2^64 - 1:\n%s",
           rows, last_end, buf);
}

static void test_print_subtracts_overhead_without_underflow(void **state)
{
    static char buf[16384];
    unsigned long long mn = 0, p50 = 0;
    double mean = 0;
    uint64_t o = tsc_overhead_ticks();
    char *row;
    int rows;
    (void)state;
    tsc_stats_init(&sa);
    tsc_stats_add(&sa, 0); /* below the overhead: shown as 0, not wrapped */
    tsc_stats_add(&sa, o + 10);
    tsc_stats_add(&sa, o + 10);
    print_to(&sa, TSC_PRINT_SUB_OVERHEAD, buf, sizeof buf);
    row = strstr(buf, "\n  ticks ");
    EXPECT(row && sscanf(row, " ticks %llu %llu %*u %*u %*u %*u %lf", &mn, &p50, &mean) == 3,
           "no ticks row:\n%s", buf);
    {
        /* o + 10 is exact below 128 ticks, else in a bucket within 1/128:
         * the subtracted p50 is the raw one minus o, whatever that is. */
        uint64_t raw = tsc_stats_percentile(&sa, 50);
        unsigned long long want = raw > o ? (unsigned long long)(raw - o) : 0;
        EXPECT(mn == 0 && p50 == want && (o + 10 >= 128 || want == 10),
               "min %llu, p50 %llu after subtracting %llu; expected 0 and %llu", mn, p50,
               (unsigned long long)o, want);
    }
    EXPECT(fabs(mean - 20.0 / 3) < 0.05, "mean %.2f after subtraction, expected 6.67", mean);
    EXPECT(strstr(buf, "subtracted") != NULL, "the table does not say it subtracted:\n%s", buf);
    EXPECT(histogram_total(buf, &rows) == 3, "histogram after subtraction:\n%s", buf);
}

/* Samples that are nanoseconds (stamp differences) print as they are, in
 * one row of ns, and the histogram says ns. */
static void test_print_ns_samples_as_they_are(void **state)
{
    static char buf[4096];
    unsigned long long v[6];
    (void)state;
    tsc_stats_init(&sa);
    tsc_stats_add(&sa, 1000);
    tsc_stats_add(&sa, 3000);
    print_to(&sa, TSC_PRINT_NS, buf, sizeof buf);
    EXPECT(!strstr(buf, "ticks"), "no ticks in:\n%s", buf);
    EXPECT(strstr(buf, "\n  ns ") && sscanf(strstr(buf, "\n  ns ") + 6, "%llu %llu %llu %llu %llu %llu",
                                           &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6,
           "a row of ns:\n%s", buf);
    EXPECT(v[0] == 1000 && v[5] == 3000, "min and max as added: %llu, %llu", v[0], v[5]);
    EXPECT(strstr(buf, "histogram, ns (count per range)"), "the histogram in ns:\n%s", buf);
}

static void test_print_empty_and_bad_input(void **state)
{
    static char buf[4096];
    (void)state;
    tsc_stats_init(&sa);
    print_to(&sa, 0, buf, sizeof buf);
    EXPECT(strcmp(buf, "x: no samples\n") == 0, "empty prints \"%s\"", buf);
    EXPECT(tsc_stats_print_flags(NULL, "x", stdout, 0) == -EINVAL, "NULL stats accepted");
    EXPECT(tsc_stats_print_flags(&sa, "x", NULL, 0) == -EINVAL, "NULL stream accepted");
    EXPECT(tsc_stats_print_flags(&sa, "x", stdout, TSC_PRINT_NS | TSC_PRINT_SUB_OVERHEAD) == -EINVAL,
           "an overhead in ticks subtracted from nanoseconds accepted");
    tsc_stats_add(&sa, UINT64_MAX); /* one sample at the top: one row */
    print_to(&sa, 0, buf, sizeof buf);
    EXPECT(strstr(buf, "18446744073709551615 .. 18446744073709551615") != NULL,
           "a single 2^64 - 1 sample:\n%s", buf);
}

/* --- macros ------------------------------------------------------------ */

static void test_start_end_record_the_region(void **state)
{
    uint64_t outer0, outer1;
    volatile uint64_t sink = 0;
    int i;
    (void)state;
    tsc_stats_init(&sa);
    outer0 = tsc_ticks_before();
    for (i = 0; i < 100; i++) {
        TSC_START(t);
        sink += (uint64_t)i;
        TSC_END(t, &sa);
    }
    (void)sink;
    outer1 = tsc_ticks_after();
    EXPECT(tsc_stats_count(&sa) == 100, "%llu samples of 100",
           (unsigned long long)tsc_stats_count(&sa));
    EXPECT(tsc_stats_max(&sa) <= outer1 - outer0, "a sample exceeds the time around all");
}

static void test_measure_records_once_per_pass(void **state)
{
    int i, passes = 0;
    (void)state;
    tsc_stats_init(&sa);
    for (i = 0; i < 10; i++)
        TSC_MEASURE(&sa) {
            passes++;
        }
    EXPECT(passes == 10 && tsc_stats_count(&sa) == 10, "%d passes, %llu samples; expected 10, 10",
           passes, (unsigned long long)tsc_stats_count(&sa));
}

/* break and continue leave the block, record, and do not touch the loop
 * around: all 10 iterations run, the code after them in the block never. */
static void test_measure_break_and_continue_leave_the_block(void **state)
{
    int i, iterations = 0, after = 0;
    (void)state;
    tsc_stats_init(&sa);
    for (i = 0; i < 10; i++) {
        TSC_MEASURE(&sa) {
            if (i & 1)
                break;
            else
                continue;
            after++;
        }
        iterations++;
    }
    EXPECT(iterations == 10, "the enclosing loop ran %d of 10 iterations", iterations);
    EXPECT(after == 0, "code after break/continue in the block ran %d times", after);
    EXPECT(tsc_stats_count(&sa) == 10, "%llu samples recorded, expected 10",
           (unsigned long long)tsc_stats_count(&sa));
}

/* Nested blocks: the outer sample includes the inner one. */
static void test_measure_nests(void **state)
{
    (void)state;
    tsc_stats_init(&sa);
    tsc_stats_init(&sb);
    TSC_MEASURE(&sa) {
        TSC_MEASURE(&sb) {
            volatile int x = 1;
            (void)x;
        }
    }
    EXPECT(tsc_stats_count(&sa) == 1 && tsc_stats_count(&sb) == 1, "nested: %llu and %llu samples",
           (unsigned long long)tsc_stats_count(&sa), (unsigned long long)tsc_stats_count(&sb));
    EXPECT(tsc_stats_max(&sa) >= tsc_stats_max(&sb), "outer %llu < inner %llu ticks",
           (unsigned long long)tsc_stats_max(&sa), (unsigned long long)tsc_stats_max(&sb));
}

static void test_end_log_writes_name_ticks_ns(void **state)
{
    char line[256], name[64];
    unsigned long long ticks, ns;
    uint64_t outer0, outer1;
    FILE *f = tmpfile();
    (void)state;
    EXPECT(f != NULL, "tmpfile failed");
    outer0 = tsc_ticks_before();
    {
        TSC_START(phase_one);
        TSC_END_LOG(phase_one, f);
    }
    outer1 = tsc_ticks_after();
    rewind(f);
    EXPECT(fgets(line, sizeof line, f) != NULL, "nothing written");
    fclose(f);
    EXPECT(sscanf(line, "%63[^:]: %llu ticks, %llu ns", name, &ticks, &ns) == 3,
           "line \"%s\" is not \"name: T ticks, N ns\"", line);
    EXPECT(strcmp(name, "phase_one") == 0, "name \"%s\", expected phase_one", name);
    EXPECT(ticks <= outer1 - outer0, "%llu ticks, more than the %llu around it", ticks,
           (unsigned long long)(outer1 - outer0));
    EXPECT(ns == tsc_ticks_to_ns(ticks), "%llu ns is not tsc_ticks_to_ns(%llu)", ns, ticks);
}

/* The timestamp lies between two CLOCK_REALTIME reads around it, within
 * 1 ms (room for a clock derived from the counter). */
static void test_timestamp_is_wall_clock_ns(void **state)
{
    char line[256];
    unsigned long long ns;
    uint64_t before, after;
    FILE *f = tmpfile();
    (void)state;
    EXPECT(f != NULL, "tmpfile failed");
    before = tsc__os_ns(1);
    TSC_TIMESTAMP(request_in, f);
    after = tsc__os_ns(1);
    rewind(f);
    EXPECT(fgets(line, sizeof line, f) != NULL, "nothing written");
    fclose(f);
    EXPECT(sscanf(line, "request_in: %llu ns", &ns) == 1, "line \"%s\"", line);
    EXPECT(ns + 1000000 >= before && ns <= after + 1000000,
           "timestamp %llu ns outside CLOCK_REALTIME [%llu, %llu] +- 1 ms", ns,
           (unsigned long long)before, (unsigned long long)after);
}

static void test_macros_from_cpp(void **state)
{
    (void)state;
    tsc_stats_init(&sa);
    EXPECT(cpp_measure_loop(&sa, 10) == 10, "C++: TSC_MEASURE with break ran the loop short");
    EXPECT(tsc_stats_count(&sa) == 20, "C++: %llu samples, expected 10 TSC_END + 10 TSC_MEASURE",
           (unsigned long long)tsc_stats_count(&sa));
    EXPECT(cpp_regions_total() > 0, "C++: regions recorded nothing");
}

/* --- CPU migration ----------------------------------------------------- */

static void test_migrated_samples_counted_or_dropped(void **state)
{
    (void)state;
    tsc_stats_init(&sa);
    EXPECT(tsc_stats_add_cpu(&sa, 10, 3, 3, 1) == 1, "same CPU: dropped");
    EXPECT(tsc_stats_add_cpu(&sa, 20, 3, 4, 0) == 1, "migrated, keep: dropped");
    EXPECT(tsc_stats_add_cpu(&sa, 30, 3, 4, 1) == 0, "migrated, drop: recorded");
    EXPECT(tsc_stats_add_cpu(&sa, 40, UINT32_MAX, 4, 1) == 1, "unknown CPU: dropped");
    EXPECT(tsc_stats_count(&sa) == 3 && sa.migrated == 2 && tsc_stats_max(&sa) == 40,
           "count %llu (3), migrated %llu (2), max %llu (40)",
           (unsigned long long)tsc_stats_count(&sa), (unsigned long long)sa.migrated,
           (unsigned long long)tsc_stats_max(&sa));
}

static void test_start_end_cpu_macros(void **state)
{
    int i;
    (void)state;
    tsc_stats_init(&sa);
    for (i = 0; i < 1000; i++) {
        TSC_START_CPU(t);
        TSC_END_CPU(t, &sa, 1);
    }
    EXPECT(tsc_stats_count(&sa) + sa.migrated == 1000,
           "%llu recorded + %llu migrated != 1000", (unsigned long long)tsc_stats_count(&sa),
           (unsigned long long)sa.migrated);
}

/* --- regions ----------------------------------------------------------- */

static void spin_ticks(uint64_t ticks)
{
    uint64_t t0 = tsc_ticks_before();
    while (tsc_ticks_before() - t0 < ticks)
        ;
}

/* Each phase holds at least the ticks it spun; all phases together no more
 * than the time around them; shares add up to 100%. */
static void test_regions_switch_accumulates(void **state)
{
    static const char *const names[3] = {"parse", "compute", "emit"};
    struct tsc_regions r;
    uint64_t outer0, outer1;
    int i;
    char buf[2048];
    FILE *f;
    double share, total_share = 0;
    size_t n;
    char *p;
    (void)state;
    EXPECT(tsc_regions_init(&r, 3, names) == 0, "init failed");
    outer0 = tsc_ticks_before();
    for (i = 0; i < 20; i++) {
        EXPECT(tsc_region_switch(&r, 0) == 0, "switch to 0 failed");
        spin_ticks(1000);
        EXPECT(tsc_region_switch(&r, 1) == 0, "switch to 1 failed");
        spin_ticks(3000);
        EXPECT(tsc_region_switch(&r, 2) == 0, "switch to 2 failed");
    }
    EXPECT(tsc_region_stop(&r) == 0, "stop failed");
    outer1 = tsc_ticks_after();
    EXPECT(r.ticks[0] >= 20000 && r.ticks[1] >= 60000, "parse %llu (>= 20000), compute %llu (>= 60000)",
           (unsigned long long)r.ticks[0], (unsigned long long)r.ticks[1]);
    EXPECT(tsc_regions_total(&r) <= outer1 - outer0, "regions %llu ticks > %llu around them",
           (unsigned long long)tsc_regions_total(&r), (unsigned long long)(outer1 - outer0));
    EXPECT(r.entries[0] == 20 && r.entries[1] == 20 && r.entries[2] == 20, "entries wrong");
    f = tmpfile();
    EXPECT(f != NULL, "tmpfile failed");
    tsc_regions_print(&r, f);
    rewind(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    for (i = 0; i < 3; i++) {
        p = strstr(buf, names[i]);
        EXPECT(p && sscanf(p + strlen(names[i]), "%*u %*u %*f %*s %lf%%", &share) == 1,
               "no row for %s:\n%s", names[i], buf);
        total_share += share;
    }
    EXPECT(fabs(total_share - 100.0) < 0.2, "shares add up to %.1f%%:\n%s", total_share, buf);
}

static void test_regions_reject_bad_input_and_a_failed_init_leaves_none(void **state)
{
    struct tsc_regions r, copy;
    (void)state;
    memset(&r, 0x01, sizeof r); /* n, ticks: garbage with a meaning */
    EXPECT(tsc_regions_init(&r, 0, NULL) == -EINVAL, "0 regions accepted");
    EXPECT(r.n == 0 && tsc_region_start(&r, 0) == -EINVAL && tsc_regions_total(&r) == 0,
           "a failed init left %d regions to use", r.n);
    EXPECT(tsc_regions_init(&r, TSC_REGIONS_MAX + 1, NULL) == -EINVAL, "too many accepted");
    EXPECT(tsc_regions_init(&r, 2, NULL) == 0, "init failed");
    EXPECT(tsc_region_stop(&r) == -EINVAL, "stop with none open accepted");
    EXPECT(tsc_region_start(&r, 2) == -EINVAL && tsc_region_start(&r, -1) == -EINVAL,
           "bad id accepted");
    EXPECT(tsc_region_start(&r, 0) == 0, "start failed");
    memcpy(&copy, &r, sizeof r);
    EXPECT(tsc_region_start(&r, 1) == -EINVAL, "start while one is open accepted");
    EXPECT(tsc_region_switch(&r, 5) == -EINVAL, "switch to a bad id accepted");
    EXPECT(memcmp(&copy, &r, sizeof r) == 0, "rejected calls changed the regions");
}

static void test_regions_print_empty(void **state)
{
    struct tsc_regions r;
    char buf[1024];
    size_t n;
    FILE *f = tmpfile();
    (void)state;
    EXPECT(f != NULL, "tmpfile failed");
    tsc_regions_init(&r, 2, NULL);
    tsc_regions_print(&r, f);
    rewind(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    EXPECT(strstr(buf, "region 1") && !strstr(buf, "nan"), "empty regions print:\n%s", buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_uniform),
        cmocka_unit_test(test_percentiles_long_tailed),
        cmocka_unit_test(test_percentiles_constant_and_single),
        cmocka_unit_test(test_percentiles_near_zero_exact),
        cmocka_unit_test(test_percentiles_near_2_pow_64),
        cmocka_unit_test(test_percentile_bad_input_and_empty),
        cmocka_unit_test(test_merge_equals_adding_everything),
        cmocka_unit_test(test_merge_carries),
        cmocka_unit_test(test_mean_and_sd_match_long_double),
        cmocka_unit_test(test_sd_stable_far_from_zero),
        cmocka_unit_test(test_print_table_and_histogram),
        cmocka_unit_test(test_print_near_2_pow_64),
        cmocka_unit_test(test_print_subtracts_overhead_without_underflow),
        cmocka_unit_test(test_print_empty_and_bad_input),
        cmocka_unit_test(test_print_ns_samples_as_they_are),
        cmocka_unit_test(test_start_end_record_the_region),
        cmocka_unit_test(test_measure_records_once_per_pass),
        cmocka_unit_test(test_measure_break_and_continue_leave_the_block),
        cmocka_unit_test(test_measure_nests),
        cmocka_unit_test(test_end_log_writes_name_ticks_ns),
        cmocka_unit_test(test_timestamp_is_wall_clock_ns),
        cmocka_unit_test(test_macros_from_cpp),
        cmocka_unit_test(test_migrated_samples_counted_or_dropped),
        cmocka_unit_test(test_start_end_cpu_macros),
        cmocka_unit_test(test_regions_switch_accumulates),
        cmocka_unit_test(test_regions_reject_bad_input_and_a_failed_init_leaves_none),
        cmocka_unit_test(test_regions_print_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
