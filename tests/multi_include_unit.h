/* SPDX-License-Identifier: MIT */
/* Body of one multi_include unit, named by MI_UNIT. The header comes in
 * twice, once before and once after the unit's own declarations. */
#include "tsc_timer.h"
#include "multi_include.h"
#include "tsc_timer.h"

#define MI_CAT(a, b, c) a##b##c
#define MI_FN(u, name) MI_CAT(mi_, u, name)
#ifdef __cplusplus
#define MI_EXTERN extern "C"
#else
#define MI_EXTERN
#endif

MI_EXTERN const void *MI_FN(MI_UNIT, _state)(void) { return &tsc__g; }
MI_EXTERN double MI_FN(MI_UNIT, _hz)(void) { return tsc_ticks_per_second(); }
MI_EXTERN uint64_t MI_FN(MI_UNIT, _before)(void) { return tsc_ticks_before(); }
MI_EXTERN uint64_t MI_FN(MI_UNIT, _after)(void) { return tsc_ticks_after(); }
MI_EXTERN const char *MI_FN(MI_UNIT, _counter)(void) { return tsc_counter_name(); }
