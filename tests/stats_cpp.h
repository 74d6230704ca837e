/* SPDX-License-Identifier: MIT */
#ifndef STATS_CPP_H
#define STATS_CPP_H
#include "tsc_timer.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Runs a loop of n passes, each a TSC_START/TSC_END pair and a TSC_MEASURE
 * block left by break, into s; returns the passes the loop made. */
int cpp_measure_loop(struct tsc_stats *s, int n);
/* Ticks two regions recorded with tsc_region_switch. */
uint64_t cpp_regions_total(void);
#ifdef __cplusplus
}
#endif
#endif
