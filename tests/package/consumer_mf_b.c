/* SPDX-License-Identifier: MIT */
/* The second file of the many-files consumer. */
#include "tsc_timer.h"

uint64_t consumer_mf_b(void);
uint64_t consumer_mf_b(void)
{
    return tsc_now_ns();
}
