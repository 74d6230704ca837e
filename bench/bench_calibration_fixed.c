/* SPDX-License-Identifier: MIT */
/* For bench_calibration: the first-use calibration with a fixed 8 ms
 * window, the default before the adaptive one. The window of the first use
 * is a compile-time setting, so it has a unit of its own; a child process
 * of bench_calibration calls only this, so the state it shares with the
 * other unit is still empty when it does. */
#define TSC_TIMER_CALIBRATION_SECONDS 0.008
#define TSC_CALIBRATION_SECONDS 0.008 /* its name in headers before 1.1 */
#include "tsc_timer.h"

double bench_first_call_fixed(void);
double bench_fixed_stated_ppm(void);

/* The first call of tsc_ticks_per_second() in the process. */
double bench_first_call_fixed(void)
{
    return tsc_ticks_per_second();
}

/* The uncertainty it stated, ppm. */
double bench_fixed_stated_ppm(void)
{
    struct tsc_calibration c;
    tsc_current_calibration(&c);
    return c.uncertainty_ppm;
}
