/* SPDX-License-Identifier: MIT */
/* Bad input is rejected in a unit compiled with -ffast-math (robust.cmake
 * sets it on this program only), where the compiler may assume that no
 * value is NaN or infinite and fold the header's checks away. The values
 * are made from their bits and passed through volatile, so this file uses
 * no NaN of its own that the compiler could see. Runs in a child under the
 * watchdog: a NaN that slips through can make a calibration that never
 * ends. */
#define _GNU_SOURCE
#include "tsc_test.h"
#include "watchdog.h"

#include <string.h>

static double from_bits(uint64_t u)
{
    volatile double v;
    double d;
    memcpy(&d, &u, sizeof d);
    v = d;
    return v;
}

static const struct {
    const char *name;
    uint64_t bits;
} bad[] = {
    {"NaN", UINT64_C(0x7FF8000000000000)},
    {"-NaN", UINT64_C(0xFFF8000000000000)},
    {"+infinity", UINT64_C(0x7FF0000000000000)},
    {"-infinity", UINT64_C(0xFFF0000000000000)},
};
#define N_BAD (sizeof bad / sizeof bad[0])

static int same_calibration(const struct tsc_calibration *a, const struct tsc_calibration *b)
{
    return memcmp(&a->ticks_per_second, &b->ticks_per_second, sizeof(double)) == 0 &&
           memcmp(&a->uncertainty_ppm, &b->uncertainty_ppm, sizeof(double)) == 0 &&
           a->samples == b->samples && a->bracket_ticks == b->bracket_ticks &&
           a->method && b->method && strcmp(a->method, b->method) == 0;
}

static int child_calibrate_rejects(void *arg)
{
    struct tsc_calibration before, out, pattern, zero, now;
    size_t i;
    int rc;
    (void)arg;
    wd_stage("tsc_init()");
    rc = tsc_init(); /* -ENODEV, -EPERM: the counter is the OS clock, which works */
    WD_CHECK(rc == 0 || ((rc == -ENODEV || rc == -EPERM) && !tsc_features().has_counter),
             "tsc_init() returned %d", rc);
    WD_CHECK(tsc_current_calibration(&before) == 0, "tsc_current_calibration failed");
    memset(&pattern, 0xA5, sizeof pattern);
    memset(&zero, 0, sizeof zero);
    for (i = 0; i < N_BAD; i++) {
        wd_stage("tsc_calibrate(%s)", bad[i].name);
        memcpy(&out, &pattern, sizeof out);
        rc = tsc_calibrate(from_bits(bad[i].bits), &out);
        WD_CHECK(rc == -EINVAL, "under -ffast-math tsc_calibrate(%s) returned %d, expected "
                 "-EINVAL (%d)", bad[i].name, rc, -EINVAL);
        WD_CHECK(memcmp(&out, &zero, sizeof out) == 0, "tsc_calibrate(%s) left *out unzeroed",
                 bad[i].name);
        WD_CHECK(tsc_current_calibration(&now) == 0 && same_calibration(&now, &before),
                 "tsc_calibrate(%s) changed the published calibration", bad[i].name);
    }
    return 0;
}

/* tsc_calibrate(NaN, +-infinity) returns -EINVAL, zeroes its output and
 * leaves the published calibration as it was. */
static void test_calibrate_rejects_nan_and_infinity_under_fast_math(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(10.0, child_calibrate_rejects, NULL);
}

static int child_percentile_rejects(void *arg)
{
    static struct tsc_stats s;
    size_t i;
    (void)arg;
    tsc_stats_init(&s);
    tsc_stats_add(&s, 100);
    tsc_stats_add(&s, 200);
    tsc_stats_add(&s, 300);
    for (i = 0; i < N_BAD; i++) {
        uint64_t p;
        wd_stage("tsc_stats_percentile(%s)", bad[i].name);
        p = tsc_stats_percentile(&s, from_bits(bad[i].bits));
        WD_CHECK(p == 0, "under -ffast-math tsc_stats_percentile(s, %s) of 3 samples gave %llu, "
                 "expected 0 (p outside [0, 100])", bad[i].name, (unsigned long long)p);
    }
    return 0;
}

/* tsc_stats_percentile(s, NaN or +-infinity) of a non-empty s is 0. */
static void test_percentile_of_nan_is_zero_under_fast_math(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(10.0, child_percentile_rejects, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibrate_rejects_nan_and_infinity_under_fast_math),
        cmocka_unit_test(test_percentile_of_nan_is_zero_under_fast_math),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
