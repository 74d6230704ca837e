/* SPDX-License-Identifier: MIT */
/* Runs a piece of a test in a fresh child process under a watchdog, so that
 * first use happens again (the library's state is process-wide and set up
 * once) and a hang fails the test in seconds instead of stalling CI.
 *
 *   in the child:  WD_CHECK(cond, fmt, ...) ends the child with a message
 *                  saying what was expected; WD_SKIP(fmt, ...) skips;
 *                  wd_stage(fmt, ...) says what it is doing now (reported
 *                  if it hangs there); return 0 to pass.
 *   in the parent: WD_EXPECT_CHILD(seconds, fn, arg) runs fn(arg) in a
 *                  child and fails the cmocka test with the child's message,
 *                  "hung: ..." after `seconds` (the child is then killed
 *                  with SIGKILL), or the signal that killed it.
 *   anywhere:      wd_run() does the same and returns the outcome, so a
 *                  child can watch a grandchild of its own.
 *
 * Never call cmocka's assertions in a child: they would jump back into the
 * test runner's copy in the child. The watchdog polls waitpid(WNOHANG) every
 * millisecond. A child (and everything it forks) runs in a process group of
 * its own that the watchdog kills whole, and dies with its parent (Linux
 * PR_SET_PDEATHSIG), so nothing is left behind holding ctest's pipe.
 *
 * Under valgrind (seen in LD_PRELOAD) every time limit is multiplied by
 * wd_scale(): 10; where TSC_TEST_EMULATED is set (qemu, the sanitizers'
 * stage; a loaded machine slows them further), 3. POSIX only. */
#ifndef TSC_WATCHDOG_H
#define TSC_WATCHDOG_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif

enum { WD_PASS = 0, WD_FAIL = 1, WD_SKIPPED = 77 };

/* What a child tells its watchdog, in memory shared between the two. */
struct wd_report {
    char stage[256];   /* what the child was doing last                   */
    char message[1024]; /* why it failed or skipped                        */
};

/* In a child: its report (NULL in the cmocka runner itself). */
static struct wd_report *wd_here;
/* 0 in the test runner; 1 and more in its children. */
static int wd_depth;

/* 1 under valgrind (its preload library is in LD_PRELOAD). */
static inline int wd_valgrind(void)
{
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "vgpreload");
}

/* Time limits are multiplied by this: 10 under valgrind, 3 where
 * TSC_TEST_EMULATED is set (qemu, Wine, the sanitizers' stage), else 1. */
static inline double wd_scale(void)
{
    return wd_valgrind() ? 10.0 : getenv("TSC_TEST_EMULATED") ? 3.0 : 1.0;
}

static inline uint64_t wd_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void wd_sleep_ns(long ns)
{
    struct timespec ts;
    ts.tv_sec = ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

#if defined(__GNUC__) || defined(__clang__)
#define WD_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define WD_NORETURN __attribute__((noreturn))
#else
#define WD_PRINTF(a, b)
#define WD_NORETURN
#endif

/* In a child: what it does now, reported if it hangs there. Not from a
 * signal handler. */
static inline WD_PRINTF(1, 2) void wd_stage(const char *fmt, ...)
{
    va_list ap;
    if (!wd_here)
        return;
    va_start(ap, fmt);
    vsnprintf(wd_here->stage, sizeof wd_here->stage, fmt, ap);
    va_end(ap);
}

static inline WD_NORETURN WD_PRINTF(4, 5) void wd_end(int code, const char *file,
                                                      int line, const char *fmt, ...)
{
    va_list ap;
    if (wd_here) {
        int n = snprintf(wd_here->message, sizeof wd_here->message, "%s:%d: ", file, line);
        if (n < 0 || (size_t)n >= sizeof wd_here->message)
            n = 0;
        va_start(ap, fmt);
        vsnprintf(wd_here->message + n, sizeof wd_here->message - (size_t)n, fmt, ap);
        va_end(ap);
    } else {
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    _exit(code);
}

/* In a child: ends it, failed, with a message saying what was expected. */
#define WD_CHECK(cond, ...)                                                   \
    do {                                                                      \
        if (!(cond))                                                          \
            wd_end(WD_FAIL, __FILE__, __LINE__, __VA_ARGS__);                 \
    } while (0)
/* In a child: ends it, skipped, saying why. */
#define WD_SKIP(...) wd_end(WD_SKIPPED, __FILE__, __LINE__, __VA_ARGS__)

/* Runs fn(arg) in a fresh child process and waits at most `seconds`
 * (times wd_scale()). Returns WD_PASS, WD_SKIPPED (text: why) or WD_FAIL
 * (text: the child's message, or "hung: ..." after killing it, or the
 * signal or exit code that ended it). */
static inline int wd_run(const char *name, double seconds, int (*fn)(void *), void *arg,
                  char *text, size_t size)
{
    struct wd_report *rep;
    uint64_t start, limit_ns = (uint64_t)(seconds * wd_scale() * 1e9);
    int status = 0, own_group = wd_depth == 0, rc;
    pid_t pid, got;

    text[0] = '\0';
    rep = (struct wd_report *)mmap(NULL, sizeof *rep, PROT_READ | PROT_WRITE,
                                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (rep == MAP_FAILED) {
        snprintf(text, size, "%s: mmap failed (errno %d)", name, errno);
        return WD_FAIL;
    }
    memset(rep, 0, sizeof *rep);
    snprintf(rep->stage, sizeof rep->stage, "started");
    fflush(NULL); /* nothing buffered is written twice */
    pid = fork();
    if (pid < 0) {
        snprintf(text, size, "%s: fork failed (errno %d)", name, errno);
        munmap(rep, sizeof *rep);
        return WD_FAIL;
    }
    if (pid == 0) {
        /* The runner's handlers (cmocka catches SIGSEGV and others, and
         * jumps back into its loop) must not run the next tests here. */
        static const int sigs[] = {SIGSEGV, SIGILL, SIGFPE, SIGBUS, SIGABRT, SIGSYS, SIGALRM};
        size_t i;
        for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            signal(sigs[i], SIG_DFL);
        if (own_group)
            setpgid(0, 0);
#if defined(__linux__)
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
#endif
        wd_here = rep;
        wd_depth++;
        rc = fn(arg);
        fflush(NULL);
        _exit(rc);
    }
    if (own_group)
        setpgid(pid, pid); /* either side may win the race; both set it */
    start = wd_mono_ns();
    for (;;) {
        got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            break;
        if (got < 0 && errno != EINTR) {
            snprintf(text, size, "%s: waitpid failed (errno %d)", name, errno);
            munmap(rep, sizeof *rep);
            return WD_FAIL;
        }
        if (wd_mono_ns() - start > limit_ns) {
            kill(own_group ? -pid : pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            snprintf(text, size, "hung: %s had not finished after %.1f s (killed); "
                     "last stage: %s", name, (double)limit_ns * 1e-9, rep->stage);
            munmap(rep, sizeof *rep);
            return WD_FAIL;
        }
        wd_sleep_ns(1000000);
    }
    if (own_group)
        kill(-pid, SIGKILL); /* grandchildren it left behind */
    if (WIFEXITED(status) && WEXITSTATUS(status) == WD_PASS) {
        rc = WD_PASS;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == WD_SKIPPED) {
        snprintf(text, size, "%s", rep->message);
        rc = WD_SKIPPED;
    } else if (WIFEXITED(status) && rep->message[0]) {
        snprintf(text, size, "%s", rep->message);
        rc = WD_FAIL;
    } else if (WIFEXITED(status)) {
        snprintf(text, size, "%s: exited with code %d; last stage: %s", name,
                 WEXITSTATUS(status), rep->stage);
        rc = WD_FAIL;
    } else {
        int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        snprintf(text, size, "%s: killed by signal %d (%s); last stage: %s", name, sig,
                 strsignal(sig), rep->stage);
        rc = WD_FAIL;
    }
    munmap(rep, sizeof *rep);
    return rc;
}

#if defined(cmocka_unit_test)
/* In the cmocka runner: fn(arg) in a child; fails or skips the test as the
 * child did. */
static inline void wd_expect_child(const char *name, double seconds, int (*fn)(void *), void *arg)
{
    char text[1400];
    int rc = wd_run(name, seconds, fn, arg, text, sizeof text);
    if (rc == WD_SKIPPED) {
        print_message("      skipped: %s\n", text);
        skip();
    }
    if (rc != WD_PASS)
        fail_msg("%s", text);
}
#define WD_EXPECT_CHILD(seconds, fn, arg) wd_expect_child(#fn, (seconds), (fn), (arg))
#endif

#endif
