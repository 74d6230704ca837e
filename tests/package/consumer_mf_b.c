/* SPDX-License-Identifier: MIT */
/* The second file of the many-files consumer (C or C++). */
#include "tsc_timer.h"

#if defined(__cplusplus)
extern "C" /* (one name from C and C++ files) */
#endif
uint64_t consumer_mf_b(void);
uint64_t consumer_mf_b(void)
{
    return tsc_now_ns();
}
