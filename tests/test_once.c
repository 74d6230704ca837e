/* SPDX-License-Identifier: MIT */
/* 16 threads asking for the frequency at the same moment, first thing in
 * the process: one calibration, one value for all. */
/* Counts the first-use calibrations the header measures. */
static int calibrations;
#define TSC_TIMER_TEST_CALIBRATING_HOOK() __atomic_fetch_add(&calibrations, 1, __ATOMIC_RELAXED)
#include "tsc_test.h"

#include <string.h>
#include <pthread.h>

#define THREADS 16

static int go;
static double seen[THREADS];

static void *first_caller(void *p)
{
    double *out = (double *)p;
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
        ;
    *out = tsc_ticks_per_second();
    return NULL;
}

static void test_concurrent_first_calls_share_one_calibration(void **state)
{
    pthread_t th[THREADS];
    int i;
    (void)state;
    EXPECT(TSC__SEQ_COUNT(tsc__g.fseq) == 0, "the frequency was known before the test started");
    for (i = 0; i < THREADS; i++)
        EXPECT(pthread_create(&th[i], NULL, first_caller, &seen[i]) == 0, "pthread_create");
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    for (i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    for (i = 0; i < THREADS; i++)
        EXPECT(memcmp(&seen[i], &seen[0], sizeof seen[0]) == 0 && seen[0] > 0,
               "thread %d saw %.6f Hz, thread 0 saw %.6f Hz", i, seen[i], seen[0]);
    /* The latch counter moves by 1 per published frequency. */
    EXPECT(TSC__SEQ_COUNT(tsc__g.fseq) == 1, "%u frequencies were published, expected 1", TSC__SEQ_COUNT(tsc__g.fseq));
    EXPECT(calibrations == 1, "%d first-use calibrations ran, expected 1", calibrations);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_first_calls_share_one_calibration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
