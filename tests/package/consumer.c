/* SPDX-License-Identifier: MIT */
/* Uses the installed or embedded header; prints one measurement. */
#include <stdio.h>
#include "tsc_timer.h"

int main(void)
{
    uint64_t t0 = tsc_ticks_before();
    uint64_t t1 = tsc_ticks_after();
    printf("consumer: %s, empty region %llu ns\n", tsc_counter_name(),
           (unsigned long long)tsc_ticks_to_ns(t1 - t0));
    return t1 >= t0 ? 0 : 1;
}
