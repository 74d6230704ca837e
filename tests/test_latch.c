/* SPDX-License-Identifier: MIT */
/* The latch that publishes the frequency and the clock's line hands every
 * reader a whole copy, and never an older one than it already saw: a
 * writer publishes copies whose words all derive from one generation number
 * while reader threads check each copy they get. On 32-bit targets each
 * 64-bit word is two stores, so a missing fence or a torn copy shows as
 * words that disagree. Runs natively and under qemu-user on every target
 * of the CI (where the host's ordering may hide what real hardware would
 * show: the test still proves the latch whole on the host's ordering). */
#define _GNU_SOURCE
#include "tsc_test.h"
#include <pthread.h>
#include <sched.h>
#include <time.h>

#define WORDS TSC__F_WORDS
#define READERS 2

#define STRIDE TSC__F_STRIDE
static uint32_t seq;
static uint64_t copies[TSC__SLOTS][STRIDE];
static struct tsc__owners owners;
static int stop;

struct reader {
    long reads, torn, back;
    uint64_t last;
};

/* Word i of generation gen: gen in both 32-bit halves, so a copy torn
 * between the halves of one word, or between words, disagrees. */
static uint64_t word(uint64_t gen, int i)
{
    return gen * UINT64_C(0x100000001) + (uint64_t)i;
}

static void *reader_main(void *p)
{
    struct reader *r = (struct reader *)p;
    uint64_t v[WORDS], gen;
    int i;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        if (!tsc__latch_get(&seq, &copies[0][0], STRIDE, 0, v, WORDS))
            continue;
        gen = v[0] & 0xFFFFFFFFu;
        __atomic_store_n(&r->reads, r->reads + 1, __ATOMIC_RELAXED);
        for (i = 0; i < WORDS; i++)
            if (v[i] != word(gen, i))
                r->torn++;
        if (gen < r->last)
            r->back++;
        r->last = gen;
    }
    return NULL;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int all_read(struct reader *r)
{
    int i;
    for (i = 0; i < READERS; i++)
        if (__atomic_load_n(&r[i].reads, __ATOMIC_RELAXED) < 1000)
            return 0;
    return 1;
}

static void test_latch_hands_readers_whole_copies_never_older_ones(void **state)
{
    pthread_t th[READERS];
    struct reader r[READERS];
    uint64_t v[WORDS], gen, t0 = now_ns();
    long reads = 0, torn = 0, back = 0, failed = 0;
    uint32_t mine = tsc__stamp_now(1u << 22); /* a writer's claim stamp */
    int i;
    (void)state;
    memset(r, 0, sizeof r);
    for (i = 0; i < READERS; i++)
        EXPECT(pthread_create(&th[i], NULL, reader_main, &r[i]) == 0, "pthread_create");
    /* 0.3 s, and on until every reader has read 1000 copies (valgrind
     * runs one thread at a time), 20 s at most. */
    for (gen = 1; now_ns() - t0 < 300000000u || (now_ns() - t0 < 20000000000u && !all_read(r));
         gen++) {
        for (i = 0; i < WORDS; i++)
            v[i] = word(gen, i);
        failed += tsc__latch_put(&seq, &owners, &copies[0][0], STRIDE, WORDS, v, 0,
                                 __atomic_load_n(&seq, __ATOMIC_ACQUIRE), mine) != 0;
        if (gen % 1024 == 0)
            sched_yield();
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (i = 0; i < READERS; i++) {
        pthread_join(th[i], NULL);
        reads += r[i].reads;
        torn += r[i].torn;
        back += r[i].back;
    }
    print_message("%llu publications in %.1f s, %ld reads: %ld torn words, %ld older copies\n",
                  (unsigned long long)gen, (double)(now_ns() - t0) * 1e-9, reads, torn, back);
    EXPECT(reads > 0, "the readers read nothing in 20 s");
    EXPECT(failed == 0, "%ld publications of the only writer failed", failed);
    EXPECT(torn == 0, "%ld words of %ld reads disagreed with their copy", torn, reads);
    EXPECT(back == 0, "%ld of %ld reads got a copy older than one read before", back, reads);
}

/* A stamp of generation gen, `ago` stamp units old. */
static uint32_t stamp_ago(uint32_t gen, uint32_t ago)
{
    uint32_t st = tsc__stamp_now(gen << 22);
    return (st & ~TSC__PID_MASK) | ((st - ago) & TSC__PID_MASK);
}

/* Copies reserved by writers that stopped (or died) are reclaimed only where
 * nothing else is free, once they are 10 s old, whatever step of the
 * reservation the writer stopped at: its stamp is written before the owner
 * word, so a reserved copy always has an age. A copy whose stamp is
 * another generation's (a late writer's store) is aged from the moment it
 * is seen. */
static void test_copies_of_stopped_writers_are_reclaimed_after_10s_when_none_is_free(void **state)
{
    struct tsc__owners o;
    uint32_t s = 0x10u, mine = stamp_ago(9, 0), i; /* copy 0 in force */
    int got;
    (void)state;
    memset(&o, 0, sizeof o);
    for (i = 1; i < TSC__SLOTS; i++) { /* reserved 1 s ago: not to be taken */
        o.tag[i] = stamp_ago(i, TSC__AGE_1S);
        o.own[i] = tsc__owner(o.tag[i]);
    }
    got = tsc__latch_reserve(&s, &o, mine);
    EXPECT(got == -1, "copy %d, reserved 1 s ago by a live writer, was taken", got);
    o.tag[2] = stamp_ago(2, 11 * TSC__AGE_1S); /* stopped 11 s ago */
    got = tsc__latch_reserve(&s, &o, mine);
    EXPECT(got == 2, "a copy reserved 11 s ago was not reclaimed (got %d)", got);
    EXPECT(o.own[2] == tsc__owner(mine) && o.tag[2] == mine,
           "the reclaimed copy's owner word and stamp are not the new writer's");
    tsc__latch_unreserve(&o, 2, mine);
    EXPECT((o.own[2] & TSC__PID_MASK) == 0, "the copy was not given back");
    o.tag[2] = o.own[2] = 0;
    o.own[3] = tsc__owner(stamp_ago(3, 0));
    o.tag[3] = stamp_ago(5, 11 * TSC__AGE_1S); /* another generation's stamp */
    o.own[2] = tsc__owner(o.tag[1]), o.tag[2] = o.tag[1];
    got = tsc__latch_reserve(&s, &o, mine);
    EXPECT(got == -1, "a copy whose stamp is another generation's was taken at once (%d)", got);
    EXPECT(o.tag[3] >> 22 == 3, "the copy with another generation's stamp was not given an age");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latch_hands_readers_whole_copies_never_older_ones),
        cmocka_unit_test(test_copies_of_stopped_writers_are_reclaimed_after_10s_when_none_is_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
