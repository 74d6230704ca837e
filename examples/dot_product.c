/* SPDX-License-Identifier: MIT */
/* The classic first use: time a 4-element dot product. It takes a few
 * cycles, less than the two counter reads around it, so one sample is
 * mostly the timer itself. The honest answer: the best of many samples,
 * less the cost of an empty region, and a loop of many dot products. */
#include <stdio.h>
#include "tsc_timer.h"

/* volatile: the compiler must load and multiply at run time. */
static volatile double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};

static double dot(void)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

int main(void)
{
    static struct tsc_stats st;
    enum { SAMPLES = 10000, LOOP = 1000 };
    uint64_t over, best, loop_ticks;
    double r = 0, sum = 0;
    int i;

    tsc_ticks_per_second(); /* calibrate now, not inside a measurement */
    over = tsc_overhead_ticks();
    {
        TSC_START(one_dot_product);
        r = dot();
        TSC_END_LOG(one_dot_product, stdout);
    }
    printf("dot product = %.1f\n", r);

    tsc_stats_init(&st);
    for (i = 0; i < SAMPLES; i++) {
        TSC_START(t);
        r = dot();
        TSC_END(t, &st);
    }
    best = tsc_stats_min(&st);
    printf("best of %d samples: %llu ticks; an empty region costs %llu ticks\n", SAMPLES,
           (unsigned long long)best, (unsigned long long)over);
    printf("so one dot product takes about %llu ticks = %llu ns (best minus overhead)\n",
           (unsigned long long)tsc_sub_overhead(best),
           (unsigned long long)tsc_ticks_to_ns(tsc_sub_overhead(best)));

    {
        TSC_START(t);
        for (i = 0; i < LOOP; i++)
            sum += dot();
        loop_ticks = tsc_sub_overhead(tsc_ticks_after() - t);
    }
    printf("%d in a loop: %.2f ticks = %.2f ns each\n", LOOP, (double)loop_ticks / LOOP,
           tsc_ticks_to_seconds(loop_ticks) * 1e9 / LOOP);
    if (tsc_sub_overhead(best) < over)
        printf("a single dot product is below what one measurement resolves "
               "(the timer costs %llu ticks): time many in a loop\n",
               (unsigned long long)over);
    if (r != 70.0 || sum != 70.0 * LOOP) {
        printf("error: wrong dot product\n");
        return 1;
    }
    return 0;
}
