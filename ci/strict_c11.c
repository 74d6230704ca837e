/* SPDX-License-Identifier: MIT */
/* Strict ISO C11 (-std=c11, no feature-test macros): the header's clock and
 * conversions checked against C11's own timespec_get(TIME_UTC), under
 * qemu-user for targets (ci/zig.sh) whose C library lays out struct
 * timespec unlike two longs (rv32 musl: 64-bit time_t). Exits 0 when
 * tsc_now_realtime_ns() agrees with timespec_get, and tsc_now_ns() and the
 * counter converted to ns advance like it over a 100 ms busy wait. */
#include "tsc_timer.h"
#include <time.h>

static int failures;

static void expect(int ok, const char *what, double got, double want)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "strict_c11: FAIL: %s: %.0f, expected %.0f\n", what, got, want);
    }
}

static double utc_ns(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC)
        return 0;
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(void)
{
    double u0, u1, span, d_mono, d_ticks, r0;
    uint64_t m0, m1, t0, t1;
    struct tsc_calibration cal;
    int rc = tsc_init();

    expect(rc == 0, "tsc_init()", rc, 0);
    expect(sizeof(struct timespec) >= 8, "sizeof(struct timespec)", (double)sizeof(struct timespec), 8);
    u0 = utc_ns();
    r0 = (double)tsc_now_realtime_ns();
    m0 = tsc_now_ns();
    t0 = tsc_ticks_before();
    do
        u1 = utc_ns();
    while (u1 - u0 < 100e6);
    t1 = tsc_ticks_after();
    m1 = tsc_now_ns();
    span = u1 - u0;
    d_mono = (double)(m1 - m0);
    d_ticks = (double)tsc_ticks_to_ns(t1 - t0);
    /* Emulated targets: a measured frequency within a few per cent, qemu's
     * scheduling noise: 25 % and 50 ms are generous and still catch seconds
     * read as nanoseconds or a garbled timespec. */
    expect(u0 > 1e18, "timespec_get ns since 1970 (after 2001)", u0, 1e18);
    expect(r0 - u0 > -50e6 && r0 - u0 < 50e6, "tsc_now_realtime_ns() - timespec_get", r0, u0);
    expect(d_mono > span * 0.75 && d_mono < span * 1.25, "tsc_now_ns() over the busy wait", d_mono, span);
    expect(d_ticks > span * 0.75 && d_ticks < span * 1.25, "the counter in ns over the busy wait", d_ticks,
           span);
    rc = tsc_current_calibration(&cal);
    expect(rc == 0, "tsc_current_calibration()", rc, 0);
    printf("strict_c11: %s, %.0f Hz (%s); over %.1f ms: clock %+.2f %%, counter %+.2f %%; "
           "realtime %+.3f ms: %s\n",
           tsc_counter_name(), tsc_ticks_per_second(), rc == 0 ? cal.method : "?", span / 1e6,
           (d_mono / span - 1) * 100, (d_ticks / span - 1) * 100, (r0 - u0) / 1e6,
           failures ? "FAIL" : "ok");
    return failures != 0;
}
