/* SPDX-License-Identifier: MIT */
/* Back-to-back phases of a loop timed with regions: tsc_region_switch
 * closes one phase and opens the next with a single counter read, so the
 * phases add up to the whole and each boundary costs one read. */
#include <stdio.h>
#include "tsc_timer.h"

enum { GENERATE, TRANSFORM, CHECK, PHASES };
static const char *const names[PHASES] = {"generate", "transform", "check"};

int main(void)
{
    enum { N = 4096, ROUNDS = 1000 };
    static uint32_t v[N];
    struct tsc_regions r;
    uint32_t seed = 7, sum = 0;
    uint64_t t0, t1;
    int round, i;

    tsc_init(); /* all one-time work now, not inside the regions */
    tsc_regions_init(&r, PHASES, names);
    t0 = tsc_ticks_before();
    for (round = 0; round < ROUNDS; round++) {
        tsc_region_switch(&r, GENERATE);
        for (i = 0; i < N; i++)
            v[i] = seed = seed * 1664525u + 1013904223u;
        tsc_region_switch(&r, TRANSFORM);
        for (i = 0; i < N; i++)
            v[i] = (v[i] >> 7) ^ (v[i] << 3) ^ (v[i] * 2654435761u);
        tsc_region_switch(&r, CHECK);
        for (i = 0; i < N; i++)
            sum += v[i] & 1u;
    }
    tsc_region_stop(&r);
    t1 = tsc_ticks_after();
    tsc_regions_print(&r, stdout);
    printf("whole loop: %llu ticks; the regions cover all but %llu of them\n",
           (unsigned long long)(t1 - t0), (unsigned long long)(t1 - t0 - tsc_regions_total(&r)));
    printf("(checksum %u)\n", (unsigned)sum);
    return tsc_regions_total(&r) <= t1 - t0 ? 0 : 1;
}
