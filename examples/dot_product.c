/* SPDX-License-Identifier: MIT */
/* The classic first use: what does a 4-element dot product cost? One call
 * takes a few cycles, less than the two counter reads around it, so one
 * timed call is mostly the timer itself (shown first). TSC_BENCH answers
 * the question instead: it runs the call in batches long enough for the
 * timer to vanish, subtracts its own loop, and states the error. */
#include <stdio.h>
#include "tsc_timer.h"

static const double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};

static double dot(const double *x, const double *y)
{
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3];
}

int main(void)
{
    static struct tsc_bench one, four;
    struct tsc_bench_result r;
    const struct tsc_bench *both[2];
    const double *x = a, *y = b;
    double d = 0, e = 0;

    tsc_init(); /* all one-time work now, not inside a measurement */
    {
        /* TSC_KEEP: the compiler may not know x and y before the start
         * (or it would compute 70 at compile time), and must have d
         * before the end (or it could sink the work past it). */
        TSC_START(one_timed_call);
        TSC_KEEP(x);
        TSC_KEEP(y);
        d = dot(x, y);
        TSC_KEEP(d);
        TSC_END_LOG(one_timed_call, stdout);
    }
    printf("an empty region costs %llu ticks: one call is below the timer's resolution\n\n",
           (unsigned long long)tsc_overhead_ticks());

    tsc_bench_init(&one, "dot4");
    TSC_BENCH(&one) {
        TSC_KEEP(x);
        TSC_KEEP(y);
        d = dot(x, y);
        TSC_KEEP(d);
    }
    tsc_bench_init(&four, "dot4, 4 in a row");
    TSC_BENCH(&four) {
        TSC_KEEP(x);
        e = dot(x, y) + dot(y, x) + dot(x, x) + dot(y, y);
        TSC_KEEP(e);
    }
    both[0] = &one;
    both[1] = &four;
    tsc_bench_write(both, 2, stdout, TSC_BENCH_MARKDOWN);

    tsc_bench_result(&one, &r);
    printf("\ndot4: %.2f ns per call +- %.1f%% (%.2f ticks; %llu calls in %llu batches, %.0f ms)\n",
           r.ns_per_op, r.err_pct, r.ticks_per_op, (unsigned long long)r.ops,
           (unsigned long long)r.batches, r.seconds * 1e3);
    if (d != 70.0 || e != 70.0 + 70.0 + 30.0 + 174.0) {
        printf("error: wrong dot product\n");
        return 1;
    }
    return 0;
}
