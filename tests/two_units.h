/* SPDX-License-Identifier: MIT */
#ifndef TWO_UNITS_H
#define TWO_UNITS_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
const void *unit_b_state(void);
double unit_b_hz(void);
uint64_t unit_b_to_ns(uint64_t ticks);
uint64_t unit_b_before(void);
const void *unit_cpp_state(void);
double unit_cpp_hz(void);
uint64_t unit_cpp_to_ns(uint64_t ticks);
#ifdef __cplusplus
}
#endif
#endif
