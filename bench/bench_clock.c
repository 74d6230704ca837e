/* SPDX-License-Identifier: MIT */
/* The clock's cost and its order across threads, in one run.
 *
 * Cost: rounds of back-to-back calls of each kind, the kinds interleaved,
 * the fastest round of each: the ordered tsc_now_ns() and its _unordered
 * form, the realtime pair, clock_gettime, and on x86 the counter reads
 * alone (RDTSC, LFENCE;RDTSC, RDTSCP), so the clock's own work shows as the
 * difference. Ratios to clock_gettime.
 *
 * Order: a writer thread stores readings, a reader loads one and reads the
 * clock itself (a third thread resyncs every 10 ms); how often, and by how
 * much, the reader's reading is earlier than the stamp it loaded, for the
 * ordered and the unordered forms. */
#define _POSIX_C_SOURCE 199309L
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include "tsc_timer.h"

static int calls = 1000000, rounds = 15;
static double order_s = 2.0; /* --tiny: a few thousand calls, once; 0.1 s */

static uint64_t gettime_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define X86 1
static uint64_t rd_bare(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}
static uint64_t rd_lfence(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}
static uint64_t rd_rdtscp(void)
{
    uint32_t lo, hi, c;
    __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}
#endif

static const char *const names[] = {
    "tsc_now_ns (ordered)", "tsc_now_ns_unordered", "clock_gettime(CLOCK_MONOTONIC)",
    "tsc_now_realtime_ns (ordered)", "tsc_now_realtime_ns_unordered",
    "clock_gettime(CLOCK_REALTIME)", "RDTSC (bare)", "LFENCE;RDTSC", "RDTSCP"};
enum { KINDS = 9 };

volatile uint64_t sink;

/* ns per call of one round; the loop is inlined per kind by the switch. */
static double round_ns(int k)
{
    uint64_t s = 0, t0 = gettime_ns(CLOCK_MONOTONIC), t1;
    int i;
    switch (k) {
    case 0: for (i = 0; i < calls; i++) s += tsc_now_ns(); break;
    case 1: for (i = 0; i < calls; i++) s += tsc_now_ns_unordered(); break;
    case 2: for (i = 0; i < calls; i++) s += gettime_ns(CLOCK_MONOTONIC); break;
    case 3: for (i = 0; i < calls; i++) s += tsc_now_realtime_ns(); break;
    case 4: for (i = 0; i < calls; i++) s += tsc_now_realtime_ns_unordered(); break;
    case 5: for (i = 0; i < calls; i++) s += gettime_ns(CLOCK_REALTIME); break;
#if defined(X86)
    case 6: for (i = 0; i < calls; i++) s += rd_bare(); break;
    case 7: for (i = 0; i < calls; i++) s += rd_lfence(); break;
    case 8: for (i = 0; i < calls; i++) s += rd_rdtscp(); break;
#endif
    default: return -1;
    }
    t1 = gettime_ns(CLOCK_MONOTONIC);
    sink += s;
    return (double)(t1 - t0) / calls;
}

/* --- order across threads ------------------------------------------------ */

struct pair {
    uint64_t stamp;
    int stop, ordered;
};

static uint64_t pair_read(int ordered)
{
    return ordered ? tsc_now_ns() : tsc_now_ns_unordered();
}

static void *writer(void *p)
{
    struct pair *h = (struct pair *)p;
    while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE))
        __atomic_store_n(&h->stamp, pair_read(h->ordered), __ATOMIC_RELEASE);
    return NULL;
}

static void *resyncer(void *p)
{
    struct pair *h = (struct pair *)p;
    struct timespec ts = {0, 10000000};
    while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
        tsc_clock_resync();
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void order(int ordered)
{
    static const uint64_t edges[] = {100, 1000, 10000, UINT64_MAX};
    static const char *const bins[] = {"< 100 ns", "100 ns - 1 us", "1 - 10 us", ">= 10 us"};
    struct pair h;
    pthread_t w, r;
    uint64_t end, x, y, handed = 0, earlier[4] = {0, 0, 0, 0}, worst = 0;
    int i, b;
    memset(&h, 0, sizeof h);
    h.ordered = ordered;
    h.stamp = pair_read(ordered);
    pthread_create(&w, NULL, writer, &h);
    pthread_create(&r, NULL, resyncer, &h);
    end = gettime_ns(CLOCK_MONOTONIC) + (uint64_t)(order_s * 1e9);
    while (gettime_ns(CLOCK_MONOTONIC) < end)
        for (i = 0; i < 1024; i++) {
            x = __atomic_load_n(&h.stamp, __ATOMIC_ACQUIRE);
            y = pair_read(ordered);
            handed++;
            if (y < x) {
                for (b = 0; x - y >= edges[b]; b++)
                    ;
                earlier[b]++;
                worst = x - y > worst ? x - y : worst;
            }
        }
    __atomic_store_n(&h.stop, 1, __ATOMIC_RELEASE);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    printf("%-21s %llu hand-overs in %.1f s, earlier than the loaded stamp:",
           ordered ? "tsc_now_ns" : "tsc_now_ns_unordered", (unsigned long long)handed, order_s);
    for (b = 0; b < 4; b++)
        printf(" %s: %llu;", bins[b], (unsigned long long)earlier[b]);
    printf(" worst %llu ns\n", (unsigned long long)worst);
}

int main(int argc, char **argv)
{
    double best[KINDS];
    int r, k, n = KINDS;
    if (argc > 1 && strcmp(argv[1], "--tiny") == 0) {
        calls = 5000;
        rounds = 1;
        order_s = 0.1;
    }
    tsc_init();
    for (k = 0; k < n; k++)
        best[k] = 1e9;
    for (r = 0; r < rounds; r++)
        for (k = 0; k < n; k++) {
            double ns = round_ns(k);
            if (ns >= 0 && ns < best[k])
                best[k] = ns;
        }
    printf("counter: %s, %d rounds of %d calls, fastest round\n", tsc_counter_name(), rounds,
           calls);
    for (k = 0; k < n; k++)
        if (best[k] < 1e9)
            printf("%-32s %6.2f ns  %.2fx clock_gettime\n", names[k], best[k],
                   best[k] / best[k < 3 || k > 5 ? 2 : 5]);
#if defined(X86)
    printf("tsc_now_ns - the cheaper ordered read = %+.2f ns\n",
           best[0] - (best[7] < best[8] ? best[7] : best[8]));
#endif
    order(1);
    order(0);
    return 0;
}
