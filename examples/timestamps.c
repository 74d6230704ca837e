/* SPDX-License-Identifier: MIT */
/* Log lines stamped with the wall-clock time in nanoseconds (CLOCK_REALTIME
 * based), so lines from several processes can be merged and sorted. */
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
    enum { N = 50000 };
    static int v[N];
    int i;

    tsc_init(); /* all one-time work now, not inside the first stamp */
    TSC_TIMESTAMP(start, stdout);
    for (i = 0; i < N; i++)
        v[i] = (int)((unsigned)i * 2654435761u >> 1);
    TSC_TIMESTAMP(filled, stdout);
    {
        TSC_START(sort);
        qsort(v, N, sizeof v[0], cmp_int);
        TSC_END_LOG(sort, stdout);
    }
    TSC_TIMESTAMP(sorted, stdout);
    for (i = 1; i < N; i++)
        if (v[i - 1] > v[i]) {
            printf("error: not sorted\n");
            return 1;
        }
    return 0;
}
