/* SPDX-License-Identifier: MIT */
/* The classic first use: time a 4-element dot product. It takes a few
 * cycles, less than the two counter reads around it, so one sample is
 * mostly the timer itself. The honest answer: the best of many samples,
 * less the cost of an empty region, and a loop of many dot products. */
#include <stdio.h>
#include "tsc_timer.h"

static const double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};

static double dot(const double *x, const double *y)
{
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3];
}

int main(void)
{
    static struct tsc_stats st;
    enum { SAMPLES = 10000, LOOP = 1000 };
    uint64_t over, best, loop_ticks;
    const double *x = a, *y = b;
    double r = 0, sum = 0;
    int i;

    tsc_init(); /* all one-time work now, not inside a measurement */
    over = tsc_overhead_ticks();
    {
        /* TSC_KEEP: the compiler may not know x and y before the start
         * (or it would compute 70 at compile time), and must have r
         * before the end (or it could sink the work past it). */
        TSC_START(one_dot_product);
        TSC_KEEP(x);
        TSC_KEEP(y);
        r = dot(x, y);
        TSC_KEEP(r);
        TSC_END_LOG(one_dot_product, stdout);
    }
    printf("dot product = %.1f\n", r);

    tsc_stats_init(&st);
    for (i = 0; i < SAMPLES; i++) {
        TSC_START(t);
        TSC_KEEP(x);
        TSC_KEEP(y);
        r = dot(x, y);
        TSC_KEEP(r);
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
        for (i = 0; i < LOOP; i++) {
            TSC_KEEP(x); /* a fresh load each time: no hoisting out of the loop */
            sum += dot(x, y);
        }
        TSC_KEEP(sum);
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
