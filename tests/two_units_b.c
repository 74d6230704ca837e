/* SPDX-License-Identifier: MIT */
/* The second unit of test_two_units: includes the header on its own, with
 * no macro, and reports what it sees. */
#include "tsc_timer.h"
#include "two_units.h"

const void *unit_b_state(void) { return &tsc__g; }
double unit_b_hz(void) { return tsc_ticks_per_second(); }
uint64_t unit_b_to_ns(uint64_t ticks) { return tsc_ticks_to_ns(ticks); }
uint64_t unit_b_before(void) { return tsc_ticks_before(); }
