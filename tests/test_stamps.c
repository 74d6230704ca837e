/* SPDX-License-Identifier: MIT */
/* Stored stamps: tsc_clock_ticks() converted later with
 * tsc_clock_ticks_to_ns() gives what tsc_now_ns() gave at that moment,
 * across resyncs; and the clock survives a counter that goes back (a
 * reset on resume), made to happen through TSC_TIMER_TEST_COUNTER_HOOK.
 * Built as is and with TSC_TIMER_FORCE_FALLBACK (stamps are then the OS
 * clock's nanoseconds). */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
static int64_t g_counter_shift; /* added to every clock counter read */
#define TSC_TIMER_TEST_COUNTER_HOOK(t) ((uint64_t)(t) + (uint64_t)g_counter_shift)
#include "tsc_test.h"
#include <pthread.h>

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#define N_STAMPS 400
/* Exact while the stamp is newer than the last-but-one resync; older, the
 * records are interpolated, off by at most the line's corrections at the
 * resyncs around the stamp (the test measures the largest: the line's
 * distance from CLOCK_MONOTONIC just before each resync), plus 2 us. */
#define INTERP_NS 2000

static uint64_t os_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(long ns)
{
    struct timespec ts;
    ts.tv_sec = ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    nanosleep(&ts, NULL);
}

/* Every stamp taken between two tsc_now_ns() readings, with a resync every
 * 4 stamps over ~1 s (about 100 resyncs: records in both rings), converts
 * later into the interval between them: exactly (0 ns) for the stamps the
 * lines still cover, within INTERP_NS for the older ones. */
static void test_stored_stamps_convert_to_what_the_clock_read_then(void **state)
{
    static uint64_t a[N_STAMPS], t[N_STAMPS], b[N_STAMPS];
    uint64_t ns, worst = 0, tol, corr = 0, m0, n, m1, e;
    int i, resyncs = 0, outside = 0, first_bad = -1;
    (void)state;
    EXPECT(tsc_init() == 0 || !tsc_features().has_counter, "tsc_init failed");
    for (i = 0; i < N_STAMPS; i++) {
        a[i] = tsc_now_ns();
        t[i] = tsc_clock_ticks();
        b[i] = tsc_now_ns();
        if (i % 4 == 3) {
            /* the correction this resync will make, at most */
            m0 = os_ns(CLOCK_MONOTONIC);
            n = tsc_now_ns();
            m1 = os_ns(CLOCK_MONOTONIC);
            e = n < m0 ? m0 - n : n > m1 ? n - m0 : m1 - m0;
            corr = e > corr ? e : corr;
            resyncs += tsc_clock_resync() == 0;
            sleep_ns(10000000L); /* 10 ms: resyncs further apart slew for longer */
        }
    }
    for (i = 0; i < N_STAMPS; i++) {
        uint64_t off;
        ns = tsc_clock_ticks_to_ns(t[i]);
        tol = i >= N_STAMPS - 4 ? 0 : INTERP_NS + 2 * corr;
        off = ns < a[i] ? a[i] - ns : ns > b[i] ? ns - b[i] : 0;
        worst = off > worst ? off : worst;
        if (off > tol) {
            outside++;
            if (first_bad < 0)
                first_bad = i;
        }
    }
    print_message("      %d stamps over %d resyncs: worst %llu ns outside its reading's "
                  "bracket (largest correction at a resync %llu ns)\n", N_STAMPS, resyncs,
                  (unsigned long long)worst, (unsigned long long)corr);
    EXPECT(outside == 0, "%d of %d stamps converted outside [before, after] +- tolerance; the "
           "first, stamp %d: %llu not in [%llu, %llu]", outside, N_STAMPS, first_bad,
           (unsigned long long)tsc_clock_ticks_to_ns(t[first_bad]),
           (unsigned long long)a[first_bad], (unsigned long long)b[first_bad]);
    /* Realtime: the same instant plus the realtime offset, within 1 ms of
     * CLOCK_REALTIME's reading around it. */
    {
        uint64_t r0 = os_ns(CLOCK_REALTIME), s = tsc_clock_ticks();
        uint64_t r = tsc_clock_ticks_to_realtime_ns(s), r1 = os_ns(CLOCK_REALTIME);
        EXPECT(r + 1000000 >= r0 && r <= r1 + 1000000, "realtime stamp %llu, expected within "
               "1 ms of [%llu, %llu]", (unsigned long long)r, (unsigned long long)r0,
               (unsigned long long)r1);
    }
}

/* A stamp is never converted later than the clock at the conversion: one
 * from the far future (or from before a counter reset) gives now, not a
 * wrapped value. */
static void test_a_stamp_never_converts_past_now(void **state)
{
    uint64_t n0, ns, n1;
    (void)state;
    n0 = tsc_now_ns();
    ns = tsc_clock_ticks_to_ns(UINT64_MAX - 5);
    n1 = tsc_now_ns();
    EXPECT(ns <= n1 && ns + 1000000000u >= n0, "a stamp from the far future converted to %llu, "
           "now is [%llu, %llu]", (unsigned long long)ns, (unsigned long long)n0,
           (unsigned long long)n1);
    ns = tsc_clock_ticks_to_ns(0);
    EXPECT(ns <= n1, "stamp 0 converted to %llu, after now %llu", (unsigned long long)ns,
           (unsigned long long)n1);
}

#if !defined(TSC_TIMER_FORCE_FALLBACK)
/* The counter goes back by ~10 s worth of ticks (through the test hook):
 * tsc_now_ns() keeps going forward (never below an earlier reading), the
 * next successful resync puts the line back within 1 ms of CLOCK_MONOTONIC,
 * and stamps from before and after the jump convert to values no later
 * than now (no wrap to ~2^64). */
static void test_counter_going_back_keeps_the_clock_monotonic(void **state)
{
    uint64_t prev, n, before, after, m0, m1, c;
    int i, back = 0, ok = 0;
    (void)state;
    if (!tsc_features().has_counter)
        skip(); /* the OS clock: no counter to reset */
    EXPECT(test_resync_ok(10),
           "no resync succeeded before the jump");
    before = tsc_clock_ticks();
    prev = tsc_now_ns();
    g_counter_shift = -(int64_t)(10.0 * tsc_ticks_per_second());
    for (i = 0; i < 100000; i++) {
        n = tsc_now_ns();
        back += n < prev;
        prev = n > prev ? n : prev;
    }
    EXPECT(back == 0, "%d of 100000 readings went back after the counter did", back);
    for (i = 0; i < 50 && !ok; i++) {
        ok = tsc_clock_resync() == 0;
        if (!ok)
            sleep_ns(2000000L);
    }
    EXPECT(ok, "no resync succeeded after the jump (50 tries)");
    for (i = 0; i < 100000; i++) {
        n = tsc_now_ns();
        back += n < prev;
        prev = n > prev ? n : prev;
    }
    EXPECT(back == 0, "%d of 100000 readings after the resync went back", back);
    m0 = os_ns(CLOCK_MONOTONIC);
    n = tsc_now_ns();
    m1 = os_ns(CLOCK_MONOTONIC);
    EXPECT(n + 1000000 >= m0 && n <= m1 + 1000000, "after the jump and a resync the clock reads "
           "%llu, CLOCK_MONOTONIC [%llu, %llu]: not re-set within 1 ms",
           (unsigned long long)n, (unsigned long long)m0, (unsigned long long)m1);
    after = tsc_clock_ticks();
    c = tsc_clock_ticks_to_ns(before);
    EXPECT(c <= tsc_now_ns() && c >> 62 == 0, "a stamp from before the jump converted to %llu",
           (unsigned long long)c);
    m0 = tsc_now_ns();
    c = tsc_clock_ticks_to_ns(after);
    EXPECT(c + 1000000 >= n && c <= m0, "a stamp from after the jump converted to %llu, "
           "expected in [%llu, %llu] (1 ms)", (unsigned long long)c, (unsigned long long)n,
           (unsigned long long)m0);
    g_counter_shift = 0; /* forward again by 10 s: a jump forward, steered */
    for (i = 0; i < 10000; i++) {
        n = tsc_now_ns();
        back += n < prev;
        prev = n > prev ? n : prev;
    }
    EXPECT(back == 0, "%d readings went back when the counter jumped forward again", back);
}
#endif

#if !defined(TSC_TIMER_FORCE_FALLBACK)
/* The clock keeps its last 62 records, and every 64th of the older ones
 * (as the header and the README say): record k written here is (1000 k +
 * 1000 ticks, 2000 k ns, plus 100 where k is not a multiple of 64), so a
 * kept record converts to its own ns exactly, while one no longer kept
 * comes out interpolated towards its every-64th neighbours, short of its
 * own. The clock's records are saved and put back around the test. */
#define REC_N 202 /* 3 x 64 + 10 */
static uint64_t rec_ns(uint32_t k)
{
    return UINT64_C(5000000) + UINT64_C(2000) * k + (k % 64 ? 100u : 0u);
}
static void test_the_last_62_records_are_kept(void **state)
{
    static uint64_t saved[2][TSC__HIST][2];
    uint64_t v[TSC__L_WORDS], got[REC_N];
    uint32_t saved_count = tsc__g.hcount, k, bad = 0, first_bad = 0, mine;
    (void)state;
    memcpy(saved, tsc__g.hist, sizeof saved);
    memset(v, 0, sizeof v);
    v[TSC__L_CUR + 6] = 2; /* the line's rate: 2 ns per tick */
    tsc__g.hcount = 0;
    EXPECT(tsc__claim_try(&tsc__g.cw, TSC__TLS_CW, &mine, &tsc__g.cseq) > 0,
           "the clock's writer claim is taken (records are its holder's)");
    for (k = 0; k < REC_N; k++)
        tsc__clock_record(UINT64_C(1000) * k + 1000, rec_ns(k), mine);
    tsc__claim_release(&tsc__g.cw, TSC__TLS_CW, mine);
    for (k = 0; k < REC_N; k++)
        got[k] = tsc__clock_hist(UINT64_C(1000) * k + 1000, v);
    memcpy(tsc__g.hist, saved, sizeof saved);
    tsc__g.hcount = saved_count;
    for (k = 0; k < REC_N; k++) {
        int kept = k >= REC_N - 62 || k % 64 == 0;
        if ((got[k] == rec_ns(k)) != kept && bad++ == 0)
            first_bad = k;
    }
    EXPECT(bad == 0, "%u of %u records converted against the rule 'the last 62 and every 64th "
           "kept', the first record %u: %llu, its own %llu", bad, REC_N, first_bad,
           (unsigned long long)got[first_bad], (unsigned long long)rec_ns(first_bad));
}
#endif

/* Stamps taken before tsc_init() (and before anything set the clock up),
 * 10 ms apart, convert as the header says: extrapolated back from the
 * first line at the current rate, so 10 ms apart (within each stamp's
 * CLOCK_MONOTONIC bracket, 0.1 % of the span for the rate and 2 us for the
 * first line's placement), not 0 ms apart as stamps clamped to the line's
 * start would. main() takes them before the first test. */
static uint64_t early[2], early_lo[2], early_hi[2];

static void take_early_stamps(void)
{
    int i;
    for (i = 0; i < 2; i++) {
        if (i)
            sleep_ns(10000000);
        early_lo[i] = os_ns(CLOCK_MONOTONIC);
        early[i] = tsc_clock_ticks();
        early_hi[i] = os_ns(CLOCK_MONOTONIC);
    }
}

static void test_stamps_taken_before_init_convert_extrapolated(void **state)
{
    uint64_t got, lo = early_lo[1] - early_hi[0], hi = early_hi[1] - early_lo[0], slack;
    (void)state;
    tsc_init();
    got = tsc_clock_ticks_to_ns(early[1]) - tsc_clock_ticks_to_ns(early[0]);
    slack = hi / 1000u + 2000u;
    print_message("two stamps taken before tsc_init(): %.3f ms apart, CLOCK_MONOTONIC "
                  "[%.3f, %.3f] ms\n", (double)got * 1e-6, (double)lo * 1e-6, (double)hi * 1e-6);
    EXPECT(got + slack >= lo && got <= hi + slack,
           "stamps %.3f ms apart by CLOCK_MONOTONIC converted %.3f ms apart", (double)lo * 1e-6,
           (double)got * 1e-6);
}

/* Two stamps 10 ms apart, the second taken in another thread: their
 * difference, through tsc_clock_elapsed_ns, lies between the sleep and the
 * tsc_now_ns() readings around them, and is negative the other way round.
 * (The stamps are OS nanoseconds where the counter is the OS clock, as in
 * the fallback build: counter ticks never enter it.) */
static uint64_t g_late_stamp;
static void *stamp_late(void *arg)
{
    (void)arg;
    g_late_stamp = tsc_clock_ticks();
    return NULL;
}
static void test_the_difference_of_two_stamps_is_nanoseconds(void **state)
{
    pthread_t th;
    uint64_t t0, a, t1;
    int64_t d;
    (void)state;
    t0 = tsc_now_ns();
    a = tsc_clock_ticks();
    sleep_ns(10000000L);
    assert_int_equal(pthread_create(&th, NULL, stamp_late, NULL), 0);
    pthread_join(th, NULL);
    t1 = tsc_now_ns();
    d = tsc_clock_elapsed_ns(a, g_late_stamp);
    EXPECT(d >= 10000000 && (uint64_t)d <= t1 - t0, "elapsed %lld ns, within [10 ms, %llu ns]",
           (long long)d, (unsigned long long)(t1 - t0));
    EXPECT(tsc_clock_elapsed_ns(g_late_stamp, a) == -d, "the other way round: %lld ns",
           (long long)tsc_clock_elapsed_ns(g_late_stamp, a));
    EXPECT(tsc_clock_elapsed_ns(a, a) == 0, "a stamp from itself: 0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_difference_of_two_stamps_is_nanoseconds),
        cmocka_unit_test(test_stamps_taken_before_init_convert_extrapolated),
        cmocka_unit_test(test_stored_stamps_convert_to_what_the_clock_read_then),
        cmocka_unit_test(test_a_stamp_never_converts_past_now),
#if !defined(TSC_TIMER_FORCE_FALLBACK)
        cmocka_unit_test(test_counter_going_back_keeps_the_clock_monotonic),
        cmocka_unit_test(test_the_last_62_records_are_kept),
#endif
    };
    take_early_stamps();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
