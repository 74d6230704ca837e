/* SPDX-License-Identifier: MIT */
/* Cost of tsc_now_ns() and tsc_now_realtime_ns() against clock_gettime()
 * measured in the same run: rounds of 1 million back-to-back calls each,
 * the kinds interleaved, the fastest round of each reported, and the
 * ratios. Also the fenced alternative (tsc_ticks_before + conversion), to
 * show what ordering the counter read would cost. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include "tsc_timer.h"

#define CALLS 1000000
#define ROUNDS 15

static int calls = CALLS, rounds = ROUNDS; /* --tiny: a few thousand, once */

static uint64_t gettime_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mono(void) { return gettime_ns(CLOCK_MONOTONIC); }
static uint64_t real(void) { return gettime_ns(CLOCK_REALTIME); }
static uint64_t now(void) { return tsc_now_ns(); }
static uint64_t now_real(void) { return tsc_now_realtime_ns(); }
static uint64_t fenced(void) { return tsc_ticks_to_ns(tsc_ticks_before()); }

struct kind {
    const char *name;
    uint64_t (*fn)(void);
    double best;
};

volatile uint64_t sink;

/* ns per call of one round; the loop is inlined per kind by the switch. */
static double round_ns(int k)
{
    uint64_t s = 0, t0 = mono(), t1;
    int i;
    switch (k) {
    case 0: for (i = 0; i < calls; i++) s += tsc_now_ns(); break;
    case 1: for (i = 0; i < calls; i++) s += gettime_ns(CLOCK_MONOTONIC); break;
    case 2: for (i = 0; i < calls; i++) s += tsc_now_realtime_ns(); break;
    case 3: for (i = 0; i < calls; i++) s += gettime_ns(CLOCK_REALTIME); break;
    default: for (i = 0; i < calls; i++) s += tsc_ticks_to_ns(tsc_ticks_before()); break;
    }
    t1 = mono();
    sink += s;
    return (double)(t1 - t0) / calls;
}

int main(int argc, char **argv)
{
    struct kind kinds[] = {
        {"tsc_now_ns", now, 1e9},
        {"clock_gettime(CLOCK_MONOTONIC)", mono, 1e9},
        {"tsc_now_realtime_ns", now_real, 1e9},
        {"clock_gettime(CLOCK_REALTIME)", real, 1e9},
        {"tsc_ticks_to_ns(tsc_ticks_before())", fenced, 1e9},
    };
    int n = (int)(sizeof kinds / sizeof kinds[0]), r, k;
    if (argc > 1 && strcmp(argv[1], "--tiny") == 0) {
        calls = 5000;
        rounds = 1;
    }
    for (k = 0; k < n; k++) /* set up, calibrate, page in */
        sink += kinds[k].fn();
    for (r = 0; r < rounds; r++)
        for (k = 0; k < n; k++) {
            double ns = round_ns(k);
            if (ns < kinds[k].best)
                kinds[k].best = ns;
        }
    printf("counter: %s, %d rounds of %d calls, fastest round\n", tsc_counter_name(), rounds,
           calls);
    for (k = 0; k < n; k++)
        printf("%-38s %6.2f ns\n", kinds[k].name, kinds[k].best);
    printf("tsc_now_ns / clock_gettime(CLOCK_MONOTONIC)         = %.2f\n",
           kinds[0].best / kinds[1].best);
    printf("tsc_now_realtime_ns / clock_gettime(CLOCK_REALTIME) = %.2f\n",
           kinds[2].best / kinds[3].best);
    return 0;
}
