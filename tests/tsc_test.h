/* SPDX-License-Identifier: MIT */
/* Shared helpers of the test programs: cmocka, and exact references. */
#ifndef TSC_TEST_H
#define TSC_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "tsc_timer.h"

/* Fails the test with a message saying what was expected. */
#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        if (!(cond)) {                                                        \
            print_error(__VA_ARGS__);                                         \
            print_error("\n");                                                \
            fail_msg("expectation failed: %s", #cond);                        \
        }                                                                     \
    } while (0)

/* TSC_BENCH(b) { ... } run into *r, again (up to 3 runs) while the library
 * gives no result: -EAGAIN, every batch changed CPU or none fit the budget,
 * as a loaded or emulated machine may have it (seen under qemu-aarch64 on
 * the loaded CI machine). Each reason is printed; 3 runs without a result
 * fail. The body is the trailing arguments. */
#define TEST_BENCH(b, name, r, ...)                                               \
    do {                                                                          \
        int test_bench_try_, test_bench_rc_ = -1;                                 \
        for (test_bench_try_ = 0; test_bench_try_ < 3 && test_bench_rc_ != 0;     \
             test_bench_try_++) {                                                 \
            EXPECT(tsc_bench_init((b), (name)) == 0, "tsc_bench_init(%s)", (name)); \
            TSC_BENCH(b) { __VA_ARGS__ }                                          \
            test_bench_rc_ = tsc_bench_result((b), (r));                          \
            if (test_bench_rc_ == -EAGAIN)                                        \
                print_message("%s: no result (%s), run again\n", (name), (r)->reason); \
        }                                                                         \
        EXPECT(test_bench_rc_ == 0, "%s: no result in 3 runs (%d)", (name), test_bench_rc_); \
    } while (0)

/* 1 when tsc_now_ns() reads the counter (there is a line to steer and
 * publish), 0 where the clock is the OS clock: no counter, or tsc_trust()
 * says UNSAFE (qemu-i386's CPU has no invariant TSC, and a kernel that
 * keeps time with another clocksource vouches for none). */
static inline int test_clock_on_counter(void)
{
    return tsc_features().has_counter && tsc_trust().level != TSC_TRUST_UNSAFE;
}

/* 1 where the counter itself is unordered across threads, so that a check
 * of cross-thread order can only report: qemu-user computes LoongArch's
 * rdtime.d and RISC-V's time CSR from the host's TSC, read in a helper
 * that no guest barrier orders (dbar and fence become MFENCE, which does
 * not order RDTSC). CI sets TSC_TEST_EMULATED under qemu. */
/* tsc_init() succeeded: 0, or -ENODEV / -EPERM where the counter is the OS
 * clock (as documented: everything then works on the OS clock; qemu-arm,
 * for one, offers no generic timer). */
static inline int test_init_ok(int rc)
{
    return rc == 0 || ((rc == -ENODEV || rc == -EPERM) && !tsc_features().has_counter);
}

static inline int test_counter_unordered_across_threads(void)
{
#if defined(__loongarch__) || defined(__riscv)
    return getenv("TSC_TEST_EMULATED") != NULL;
#else
    return 0;
#endif
}

/* 1 when one of up to `tries` tsc_clock_resync() calls, 1 ms apart,
 * succeeds: a resync gives -EAGAIN when its publication window was
 * interrupted, which a loaded machine does to several in a row (seen: 7 %
 * of resyncs under ASan beside the emulated lanes), and an emulator whose
 * virtual CPU the host deschedules for milliseconds (qemu-system-arm) to
 * many. The millisecond is this process's own time (clock()): no clock of
 * the library's, and no sleep that every target of the suite has. */
static inline int test_resync_ok(int tries)
{
    int i;
    clock_t t;
    for (i = 0; i < tries; i++) {
        if (tsc_clock_resync() == 0)
            return 1;
        t = clock();
        while (t != (clock_t)-1 && clock() - t < CLOCKS_PER_SEC / 1000)
            ;
    }
    return 0;
}

static inline int test_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The counter's step in ticks: the median change between successive reads
 * that differ, over 33 such pairs (within 10^8 reads; 1 for a counter that
 * stood still). Natively that is one read's cost; an emulated counter may
 * move in coarse steps (1 us under qemu-aarch64). */
static inline uint64_t test_counter_step_ticks(void)
{
    uint64_t d[33], prev = tsc_ticks_before(), now;
    long reads;
    int n = 0;
    for (reads = 0; n < 33 && reads < 100000000L; reads++) {
        now = tsc_ticks_before();
        if (now != prev)
            d[n++] = now - prev;
        prev = now;
    }
    if (n == 0)
        return 1;
    qsort(d, (size_t)n, sizeof d[0], test_cmp_u64);
    return d[n / 2];
}

/* How far a calibration may be off beyond its own bound under emulation
 * (valgrind, qemu: CI sets TSC_TEST_EMULATED): the translator bends the
 * timing of a bracket's reads systematically, not at random, so the bound
 * a fit states from its scatter need not hold; what does is the worst the
 * widest brackets it kept (2 x the narrowest + 32 ticks) allow at both
 * ends of its window, plus 100 ppm. 0 natively: there the calibration's
 * own bound must hold. */
static inline double test_emulated_slack_ppm(double bracket_ticks, double hz, double seconds)
{
    if (!getenv("TSC_TEST_EMULATED"))
        return 0;
    if (!(bracket_ticks > 0 && hz > 0 && seconds > 0))
        return 100;
    return 100 + 2 * (2 * bracket_ticks + 32) / (hz * seconds) * 1e6;
}

/* A 192-bit unsigned number, three 64-bit limbs, least significant first. */
typedef struct { uint64_t w[3]; } test_u192;

static inline void test_u192_shl1(test_u192 *a)
{
    a->w[2] = (a->w[2] << 1) | (a->w[1] >> 63);
    a->w[1] = (a->w[1] << 1) | (a->w[0] >> 63);
    a->w[0] <<= 1;
}

/* Exact floor(t * mul * 2^shift / den) and its remainder, den < 2^62,
 * shift >= 0, computed by schoolbook long division over the bits of the
 * 128-bit product. Independent of the header's arithmetic. */
static inline void test_exact_div(uint64_t t, uint64_t mul, int shift, uint64_t den,
                                  test_u192 *q, uint64_t *rem)
{
    uint64_t a[2] = {t & 0xFFFFFFFFu, t >> 32}, b[2] = {mul & 0xFFFFFFFFu, mul >> 32};
    uint64_t limb[4] = {0, 0, 0, 0}, lo, hi, r = 0;
    int i, j;
    for (i = 0; i < 2; i++) /* 32-bit limbs, carries propagated below */
        for (j = 0; j < 2; j++) {
            uint64_t p = a[i] * b[j];
            int k = i + j;
            limb[k] += p & 0xFFFFFFFFu;
            limb[k + 1] += p >> 32;
        }
    for (i = 0; i < 3; i++) {
        limb[i + 1] += limb[i] >> 32;
        limb[i] &= 0xFFFFFFFFu;
    }
    lo = limb[0] | (limb[1] << 32);
    hi = limb[2] | (limb[3] << 32);
    q->w[0] = q->w[1] = q->w[2] = 0;
    for (i = 127 + shift; i >= 0; i--) {
        int bit = 0;
        if (i >= shift) {
            int j = i - shift;
            bit = j >= 64 ? (int)((hi >> (j - 64)) & 1u) : (int)((lo >> j) & 1u);
        }
        r = (r << 1) | (uint64_t)bit;
        test_u192_shl1(q);
        if (r >= den) {
            r -= den;
            q->w[0] |= 1u;
        }
    }
    *rem = r;
}

/* 1 when `got` is within 1 of t * mul * 2^shift / den, or is UINT64_MAX
 * where that exceeds UINT64_MAX - 1 (saturation). */
static inline int test_within_one(uint64_t got, uint64_t t, uint64_t mul, int shift, uint64_t den)
{
    test_u192 q;
    uint64_t rem, lower, upper;
    test_exact_div(t, mul, shift, den, &q, &rem);
    if (q.w[1] || q.w[2] || q.w[0] == UINT64_MAX)
        return got == UINT64_MAX;
    lower = rem ? q.w[0] : (q.w[0] ? q.w[0] - 1 : 0);
    upper = q.w[0] + 1;
    return got >= lower && got <= upper;
}

/* xorshift64*: reproducible pseudo-random 64-bit values. */
static inline uint64_t test_rand64(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

#endif
