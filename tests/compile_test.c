/* SPDX-License-Identifier: MIT */
/* Compile-only: the header twice, every public function referenced, under
 * strict warnings in every C and C++ standard (see compile_matrix.sh). */
#include "tsc_timer.h"
#include "tsc_timer.h"

int compile_test_use(void);
int compile_test_use(void)
{
    struct tsc_calibration c;
    struct tsc_features f = tsc_features();
    uint32_t cpu;
    uint64_t t0 = tsc_ticks_before();
    uint64_t t1 = tsc_ticks_after();
    uint64_t t2 = tsc_ticks_after_cpu(&cpu);
    uint64_t t3 = tsc_ticks_before_cpu(&cpu);
    int rc = tsc_calibrate(0.001, &c);
    rc += tsc_current_calibration(&c);
    rc += tsc_clock_resync() + (int)(tsc_now_ns() + tsc_now_realtime_ns());
    return (int)(tsc_ticks_to_ns(t1 - t0) + tsc_ns_to_ticks(t2 - t3) + tsc_overhead_ticks() +
                 tsc_sub_overhead(t1)) +
           (int)tsc_ticks_to_seconds(t1) + (int)tsc_ticks_per_second() + rc +
           (int)tsc_counter_name()[0] + f.has_counter;
}
