/* SPDX-License-Identifier: MIT */
/* A clock_gettime and gettimeofday built on the library's clock, as a
 * program would interpose them with LD_PRELOAD: CLOCK_MONOTONIC answered by
 * tsc_now_ns(), CLOCK_REALTIME by tsc_now_realtime_ns(), every other clock
 * by the C library's own clock_gettime (the next definition: the vDSO, as
 * without the interposer), and tsc_clock_resync() from inside the interposed
 * call (whichever thread makes it) when half a second has passed since the
 * last: "about once a second" of a clock that may run a few percent slow
 * against the kernel's while the kernel slews (ADJ_TICK), so that a
 * program reading the clock once a second still resyncs each time. The
 * call that resyncs answers from the new line: the line takes over 50 us
 * after the resync, which this call waits out. The library's own reads of
 * the OS clock must not come back here: they would steer the line by its
 * own answers. test_preload loads it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "tsc_timer.h"

static uint64_t next_resync; /* tsc_now_ns() of the next resync */

int tsc_preload_resyncs; /* resyncs that succeeded, for the test to see */

/* tsc_now_ns(), after a resync where one is due. */
static uint64_t now_resynced(void)
{
    uint64_t mono = tsc_now_ns(), due = __atomic_load_n(&next_resync, __ATOMIC_RELAXED);
    if (mono >= due && __atomic_compare_exchange_n(&next_resync, &due, mono + 500000000u, 0,
                                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        if (tsc_clock_resync() == 0) {
            __atomic_fetch_add(&tsc_preload_resyncs, 1, __ATOMIC_RELAXED);
            due = tsc_now_ns();
            while ((mono = tsc_now_ns()) - due < 60000u)
                ; /* the new line's switch point, 50 us on */
        }
    }
    return mono;
}

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
static clock_gettime_fn next_clock_gettime;

int clock_gettime(clockid_t id, struct timespec *ts)
{
    uint64_t ns;
    if (id != CLOCK_MONOTONIC && id != CLOCK_REALTIME) {
        clock_gettime_fn f = __atomic_load_n(&next_clock_gettime, __ATOMIC_RELAXED);
        if (!f) {
            f = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
            __atomic_store_n(&next_clock_gettime, f, __ATOMIC_RELAXED);
        }
        return f ? f(id, ts) : (int)syscall(SYS_clock_gettime, id, ts);
    }
    ns = now_resynced();
    if (id == CLOCK_REALTIME)
        ns = tsc_now_realtime_ns();
    ts->tv_sec = (time_t)(ns / 1000000000u);
    ts->tv_nsec = (long)(ns % 1000000000u);
    return 0;
}

int gettimeofday(struct timeval *tv, void *tz)
{
    uint64_t ns;
    (void)tz;
    (void)now_resynced();
    ns = tsc_now_realtime_ns();
    tv->tv_sec = (time_t)(ns / 1000000000u);
    tv->tv_usec = (suseconds_t)(ns % 1000000000u / 1000u);
    return 0;
}

/* With TSC_PRELOAD_REPORT set, one line on stderr at exit: the calibration
 * the clock ran on, whose stated bound is all a program that reads the
 * clock twice, minutes apart, can hold it to (the guest lane's raw_skew). */
__attribute__((destructor)) static void report(void)
{
    struct tsc_calibration c;
    if (!getenv("TSC_PRELOAD_REPORT") || tsc_current_calibration(&c) != 0)
        return;
    fprintf(stderr, "preload_clock: calibrated %.0f Hz +- %.3f ppm in %.3f s (%s), %d resyncs\n",
            c.ticks_per_second, c.uncertainty_ppm, c.seconds_spent, c.method, tsc_preload_resyncs);
}
