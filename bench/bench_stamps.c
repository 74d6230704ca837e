/* SPDX-License-Identifier: MIT */
/* Stored stamps: what tsc_clock_ticks() costs against tsc_now_ns() and
 * clock_gettime (fastest of 15 rounds of 10^6 calls), what a conversion
 * costs, and how far a stamp converted later lands from the two
 * tsc_now_ns() readings taken around it, after 1, 60 and 3600 resyncs
 * (1 s, 1 min and 1 h of age at one resync a second). The age is
 * simulated: the resyncs run 1 ms apart, so the records a stamp is
 * converted through are as many as an hour's, the time between them
 * shorter. Prints a markdown table. Usage: bench_stamps [--tiny] */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "tsc_timer.h"

#define STAMPS 64

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* ns per call of f, fastest of `rounds` rounds of n calls. */
#define COST(expr, n, rounds, out)                                            \
    do {                                                                      \
        double best_ = 1e300, t_;                                             \
        long i_;                                                              \
        int r_;                                                               \
        uint64_t acc_ = 0;                                                    \
        for (r_ = 0; r_ < (rounds); r_++) {                                   \
            t_ = now_s();                                                     \
            for (i_ = 0; i_ < (n); i_++) {                                    \
                acc_ += (expr);                                               \
                TSC_KEEP(acc_);                                               \
            }                                                                 \
            t_ = (now_s() - t_) * 1e9 / (double)(n);                          \
            best_ = t_ < best_ ? t_ : best_;                                  \
        }                                                                     \
        (out) = best_;                                                        \
    } while (0)

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Worst distance (ns) of a converted stamp outside [before, after], after
 * `resyncs` successful resyncs 1 ms apart. */
static uint64_t aged(int resyncs, int *done)
{
    uint64_t a[STAMPS], t[STAMPS], b[STAMPS], ns, off, worst = 0;
    int i, n = 0, tries = 0;
    for (i = 0; i < STAMPS; i++) {
        a[i] = tsc_now_ns();
        t[i] = tsc_clock_ticks();
        b[i] = tsc_now_ns();
    }
    while (n < resyncs && tries++ < 4 * resyncs + 100) {
        n += tsc_clock_resync() == 0;
        sleep_ms(1);
    }
    for (i = 0; i < STAMPS; i++) {
        ns = tsc_clock_ticks_to_ns(t[i]);
        off = ns < a[i] ? a[i] - ns : ns > b[i] ? ns - b[i] : 0;
        worst = off > worst ? off : worst;
    }
    *done = n;
    return worst;
}

int main(int argc, char **argv)
{
    int tiny = argc > 1 && !strcmp(argv[1], "--tiny");
    long n = tiny ? 1000 : 1000000;
    int rounds = tiny ? 2 : 15, k, done;
    static const int ages[3] = {1, 60, 3600};
    static const char *const age_name[3] = {"1 s", "1 min", "1 h"};
    double c_ticks, c_now, c_mono, c_conv, c_old;
    uint64_t old;
    tsc_init();
    old = tsc_clock_ticks();
    sleep_ms(tiny ? 1 : 200);
    for (k = 0; k < (tiny ? 2 : 300); k++) { /* records, so an old stamp is interpolated */
        tsc_clock_resync();
        sleep_ms(1);
    }
    COST(tsc_clock_ticks(), n, rounds, c_ticks);
    COST(tsc_now_ns(), n, rounds, c_now);
    COST(mono(), n, rounds, c_mono);
    COST(tsc_clock_ticks_to_ns(tsc_clock_ticks()), n, rounds, c_conv);
    COST(tsc_clock_ticks_to_ns(old), n, rounds, c_old);
    printf("| what | ns per call |\n|---|---:|\n");
    printf("| `tsc_clock_ticks()` | %.2f |\n", c_ticks);
    printf("| `tsc_now_ns()` | %.2f |\n", c_now);
    printf("| `clock_gettime(CLOCK_MONOTONIC)` | %.2f |\n", c_mono);
    printf("| `tsc_clock_ticks_to_ns(tsc_clock_ticks())` (a fresh stamp: the line) | %.2f |\n",
           c_conv);
    printf("| `tsc_clock_ticks_to_ns(old)` (300 resyncs old: the records) | %.2f |\n\n", c_old);
    printf("| age (resyncs) | worst ns outside the bracketing `tsc_now_ns()` readings, %d stamps |\n"
           "|---|---:|\n", STAMPS);
    for (k = 0; k < 3; k++) {
        uint64_t w = aged(tiny ? 1 : ages[k], &done);
        printf("| %s (%d) | %llu |\n", age_name[k], done, (unsigned long long)w);
    }
    return 0;
}
