/* SPDX-License-Identifier: MIT */
/* A clock_gettime and gettimeofday built on the library's clock, as a
 * program would interpose them with LD_PRELOAD: CLOCK_MONOTONIC answered by
 * tsc_now_ns(), CLOCK_REALTIME by tsc_now_realtime_ns(), every other clock
 * by the system call, and tsc_clock_resync() from inside the interposed
 * call (whichever thread makes it) when half a second has passed since the
 * last: "about once a second" of a clock that may run a few percent slow
 * against the kernel's while the kernel slews (ADJ_TICK), so that a
 * program reading the clock once a second still resyncs each time. The
 * call that resyncs answers from the new line: the line takes over 50 us
 * after the resync, which this call waits out. The library's own reads of
 * the OS clock must not come back here: they would steer the line by its
 * own answers. test_preload loads it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "tsc_timer.h"

static uint64_t next_resync; /* tsc_now_ns() of the next resync */

int tsc_preload_resyncs; /* resyncs that succeeded, for the test to see */

static void maybe_resync(void)
{
    uint64_t mono = tsc_now_ns(), due = __atomic_load_n(&next_resync, __ATOMIC_RELAXED);
    if (mono >= due && __atomic_compare_exchange_n(&next_resync, &due, mono + 500000000u, 0,
                                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        if (tsc_clock_resync() == 0) {
            __atomic_fetch_add(&tsc_preload_resyncs, 1, __ATOMIC_RELAXED);
            mono = tsc_now_ns();
            while (tsc_now_ns() - mono < 60000u)
                ; /* the new line's switch point, 50 us on */
        }
    }
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    uint64_t ns;
    if (id != CLOCK_MONOTONIC && id != CLOCK_REALTIME)
        return (int)syscall(SYS_clock_gettime, id, ts);
    maybe_resync();
    ns = id == CLOCK_MONOTONIC ? tsc_now_ns() : tsc_now_realtime_ns();
    ts->tv_sec = (time_t)(ns / 1000000000u);
    ts->tv_nsec = (long)(ns % 1000000000u);
    return 0;
}

int gettimeofday(struct timeval *tv, void *tz)
{
    uint64_t ns;
    (void)tz;
    maybe_resync();
    ns = tsc_now_realtime_ns();
    tv->tv_sec = (time_t)(ns / 1000000000u);
    tv->tv_usec = (suseconds_t)(ns % 1000000000u / 1000u);
    return 0;
}
