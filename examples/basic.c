/* SPDX-License-Identifier: MIT */
/* The first use: time one real piece of work, print ticks and nanoseconds. */
#include <stdio.h>
#include <stdlib.h>
#include "tsc_timer.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    enum { N = 100000 };
    static int v[N];
    uint64_t t0, t1, ticks;
    unsigned seed = 1;
    int i;

    for (i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = (int)(seed >> 1);
    }
    tsc_init(); /* all one-time work now, not inside the measurement */

    t0 = tsc_ticks_before();
    qsort(v, N, sizeof v[0], cmp_int);
    t1 = tsc_ticks_after();

    ticks = tsc_sub_overhead(t1 - t0);
    printf("counter: %s, %.0f ticks per second\n", tsc_counter_name(), tsc_ticks_per_second());
    printf("sorted %d integers in %llu ticks = %llu ns (%.3f ms)\n", N,
           (unsigned long long)ticks, (unsigned long long)tsc_ticks_to_ns(ticks),
           tsc_ticks_to_seconds(ticks) * 1e3);
    for (i = 1; i < N; i++)
        if (v[i - 1] > v[i])
            return 1;
    return 0;
}
