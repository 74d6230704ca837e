/* SPDX-License-Identifier: MIT */
/* A clock_gettime built on the library's clock (preload_clock.c, loaded with
 * LD_PRELOAD; this program re-executes itself with it): over 10 s, two
 * threads read CLOCK_MONOTONIC, CLOCK_REALTIME and gettimeofday through it
 * in turn, each reading bracketed by system-call readings, which no
 * interposer reaches. Every reading lies within 1 us of its bracket (less
 * the microsecond gettimeofday truncates; natively; under emulation
 * TSC_TEST_EMULATED allows 100 us), and no thread's reading is earlier than
 * one of the same kind it loaded from the other thread before taking it. The interposer
 * resyncs every half second from inside clock_gettime; were the library's own
 * OS-clock reads to go through it, the line would steer by its own answers
 * and drift from the kernel's clock.
 * Usage: test_preload PATH-OF-libpreload_clock.so */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define RUN_NS UINT64_C(10000000000)

static uint64_t sys_ns(clockid_t id)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t lib_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts); /* the interposer's */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reading kind k: 0 CLOCK_MONOTONIC, 1 CLOCK_REALTIME, 2 gettimeofday (in
 * ns, truncated to the microsecond). */
static uint64_t lib_read(int k)
{
    struct timeval tv;
    if (k < 2)
        return lib_ns(k ? CLOCK_REALTIME : CLOCK_MONOTONIC);
    gettimeofday(&tv, NULL); /* the interposer's */
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static int64_t tol_ns = 1000;
static uint64_t handed[3]; /* the last reading of each kind, for the other thread */

struct worker {
    long reads, kinds[3], outside, earlier, moved;
    int64_t worst_out, worst_back;
};

/* CLOCK_REALTIME - CLOCK_MONOTONIC by system calls, and its value at the
 * start: a time agent that steps or slews CLOCK_REALTIME alone moves it,
 * and then no clock resynced once a second can stay within 1 us of it. */
static int64_t sys_offset(void)
{
    uint64_t m0 = sys_ns(CLOCK_MONOTONIC), r = sys_ns(CLOCK_REALTIME), m1 = sys_ns(CLOCK_MONOTONIC);
    return (int64_t)(r - (m0 + (m1 - m0) / 2));
}
static int64_t offset0;

static void *work(void *p)
{
    struct worker *w = (struct worker *)p;
    uint64_t end = sys_ns(CLOCK_MONOTONIC) + RUN_NS, a, c, b, x;
    int k = 0;
    while (sys_ns(CLOCK_MONOTONIC) < end) {
        clockid_t id = k ? CLOCK_REALTIME : CLOCK_MONOTONIC;
        int64_t out;
        x = __atomic_load_n(&handed[k], __ATOMIC_ACQUIRE);
        a = sys_ns(id);
        c = lib_read(k);
        b = sys_ns(id);
        __atomic_store_n(&handed[k], c, __ATOMIC_RELEASE);
        if (k == 2) /* truncated: up to 999 ns below the instant it stands for */
            a -= a % 1000u;
        out = (int64_t)(a - c) > 0 ? (int64_t)(a - c) : (int64_t)(c - b) > 0 ? (int64_t)(c - b) : 0;
        /* (a realtime step between a and b: the bracket is not a bracket;
         * CLOCK_REALTIME moved against CLOCK_MONOTONIC since the start:
         * counted, not checked) */
        if (k && out > tol_ns && (b < a || llabs(sys_offset() - offset0) > tol_ns / 2)) {
            w->moved++;
        } else if (out > tol_ns) {
            w->outside++;
            w->worst_out = out > w->worst_out ? out : w->worst_out;
        }
        if (c < x) {
            w->earlier++;
            w->worst_back = (int64_t)(x - c) > w->worst_back ? (int64_t)(x - c) : w->worst_back;
        }
        w->reads++;
        w->kinds[k]++;
        k = (k + 1) % 3;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct worker w[2];
    pthread_t t[2];
    int *resyncs, i, fail = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: test_preload PATH-OF-libpreload_clock.so\n");
        return 2;
    }
    if (!getenv("TSC_TEST_PRELOADED")) {
        setenv("LD_PRELOAD", argv[1], 1);
        setenv("TSC_TEST_PRELOADED", "1", 1);
        execv("/proc/self/exe", argv);
        perror("test_preload: execv");
        return 1;
    }
    resyncs = (int *)dlsym(RTLD_DEFAULT, "tsc_preload_resyncs");
    if (!resyncs) {
        fprintf(stderr, "FAIL: the interposer is not loaded (LD_PRELOAD=%s)\n", argv[1]);
        return 1;
    }
    if (getenv("TSC_TEST_EMULATED"))
        tol_ns = 100000;
    memset(w, 0, sizeof w);
    offset0 = sys_offset();
    for (i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, work, &w[i]) != 0) {
            perror("pthread_create");
            return 1;
        }
    for (i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < 2; i++) {
        printf("thread %d: %ld readings (%ld monotonic, %ld realtime, %ld gettimeofday), %ld more than %lld ns outside their system-call bracket "
               "(worst %lld ns), %ld earlier than the other thread's before them (worst %lld ns); "
               "%ld realtime readings outside while CLOCK_REALTIME stood moved against "
               "CLOCK_MONOTONIC (not checked)\n",
               i, w[i].reads, w[i].kinds[0], w[i].kinds[1], w[i].kinds[2], w[i].outside, (long long)tol_ns, (long long)w[i].worst_out,
               w[i].earlier, (long long)w[i].worst_back, w[i].moved);
        fail |= w[i].outside != 0 || w[i].earlier != 0 || w[i].kinds[2] == 0;
    }
    printf("%d resyncs from inside clock_gettime\n", *resyncs);
    if (*resyncs < 5) {
        fprintf(stderr, "FAIL: only %d resyncs succeeded in 10 s (two a second expected)\n", *resyncs);
        fail = 1;
    }
    printf(fail ? "FAIL\n" : "PASS\n");
    return fail;
}
