/* SPDX-License-Identifier: MIT */
/* The one file that compiles the tsc_timer implementation in the many-files
 * mode, the static library behind Meson's
 * dependency('tsc_timer-implementation') (compiled with TSC_TIMER_EXTERN,
 * like every other file of the program). */
#define TSC_TIMER_IMPLEMENTATION
#include "tsc_timer.h"
