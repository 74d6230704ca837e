/* SPDX-License-Identifier: MIT */
/* tsc_impl.c as C++: the implementation compiled by a C++ compiler, used
 * by C files (the names have C linkage either way). */
#define TSC_TIMER_IMPLEMENTATION
#include "tsc_timer.h"
