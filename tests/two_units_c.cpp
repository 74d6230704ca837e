// SPDX-License-Identifier: MIT
// The C++ unit of test_two_units: the same state from C++.
#include "tsc_timer.h"
#include "two_units.h"

extern "C" const void *unit_cpp_state(void) { return &tsc__g; }
extern "C" double unit_cpp_hz(void) { return tsc_ticks_per_second(); }
extern "C" uint64_t unit_cpp_to_ns(uint64_t ticks) { return tsc_ticks_to_ns(ticks); }
