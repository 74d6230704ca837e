/* SPDX-License-Identifier: MIT */
/* The units of the multi_include programs: each includes tsc_timer.h twice,
 * some with configuration macros, and reports what it sees. */
#ifndef MULTI_INCLUDE_H
#define MULTI_INCLUDE_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#define MI_UNIT_API(u)                                                        \
    const void *mi_##u##_state(void);                                         \
    double mi_##u##_hz(void);                                                 \
    uint64_t mi_##u##_before(void);                                           \
    uint64_t mi_##u##_after(void);                                            \
    const char *mi_##u##_counter(void);
MI_UNIT_API(a)
MI_UNIT_API(b)
MI_UNIT_API(cpp)
#ifdef __cplusplus
}
#endif
#endif
