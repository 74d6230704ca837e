/* SPDX-License-Identifier: MIT */
/* The one file of a many-files program that compiles the library's
 * implementation (the test programs' _mf builds; TSC_TIMER_EXTERN comes
 * from the build, as a program would set it for every file). */
#define TSC_TIMER_IMPLEMENTATION
#include "tsc_timer.h"
