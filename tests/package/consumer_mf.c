/* SPDX-License-Identifier: MIT */
/* A many-files consumer: this file and consumer_mf_b.c include the header
 * with TSC_TIMER_EXTERN (from tsc_timer::extern or tsc_timer-extern.pc);
 * the implementation comes from tsc_timer_implementation() or, with
 * pkg-config, from a file of the consumer's own. */
#include <stdio.h>
#include "tsc_timer.h"

#if defined(__cplusplus)
extern "C" /* (one name from C and C++ files) */
#endif
uint64_t consumer_mf_b(void);

int main(void)
{
    uint64_t t0 = tsc_ticks_before();
    uint64_t t1 = tsc_ticks_after();
    uint64_t b = consumer_mf_b();
#if !defined(TSC_TIMER_EXTERN)
    puts("consumer_mf: built without TSC_TIMER_EXTERN");
    return 1;
#endif
    printf("consumer_mf: %s, empty region %llu ns, other file %llu ns\n", tsc_counter_name(),
           (unsigned long long)tsc_ticks_to_ns(t1 - t0), (unsigned long long)b);
    return t1 >= t0 && b > 0 ? 0 : 1;
}
