// SPDX-License-Identifier: MIT
// The measurement macros and functions compiled as C++, for test_stats.
#include "stats_cpp.h"

extern "C" int cpp_measure_loop(struct tsc_stats *s, int n)
{
    int passes = 0;
    for (int i = 0; i < n; i++) {
        TSC_START(t);
        TSC_END(t, s);
        TSC_MEASURE(s) {
            if (i >= 0)
                break;
        }
        passes++;
    }
    return passes;
}

extern "C" uint64_t cpp_regions_total(void)
{
    static const char *const names[2] = {"one", "two"};
    struct tsc_regions r;
    tsc_regions_init(&r, 2, names);
    tsc_region_start(&r, 0);
    tsc_region_switch(&r, 1);
    tsc_region_stop(&r);
    return tsc_regions_total(&r);
}
