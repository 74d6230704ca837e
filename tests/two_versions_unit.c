/* SPDX-License-Identifier: MIT */
/* One unit of test_two_versions, built twice: TWO_VERSIONS_PREFIX this
 * (include/tsc_timer.h) and next (the generated next version, found first
 * on this library's include path). Each calls its own header's functions. */
#include "tsc_timer.h"
#include "two_versions.h"

#define TV_CAT2(a, b) a##_##b
#define TV_CAT(a, b) TV_CAT2(a, b)
#define TV(name) TV_CAT(TWO_VERSIONS_PREFIX, name)

int TV(version_minor)(void) { return TSC_TIMER_VERSION_MINOR; }
double TV(hz)(void) { return tsc_ticks_per_second(); }
uint64_t TV(to_ns)(uint64_t ticks) { return tsc_ticks_to_ns(ticks); }
uint64_t TV(now_ns)(void) { return tsc_now_ns(); }

int TV(calibration)(double *hz, double *uncertainty_ppm, const char **method,
                    double *bracket_ticks, double *seconds)
{
    struct tsc_calibration c;
    int rc;
    memset(&c, 0, sizeof c);
    rc = tsc_current_calibration(&c);
    *hz = c.ticks_per_second;
    *uncertainty_ppm = c.uncertainty_ppm;
    *method = c.method;
    *bracket_ticks = (double)c.bracket_ticks;
    *seconds = c.seconds_spent;
    return rc;
}
