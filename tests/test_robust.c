/* SPDX-License-Identifier: MIT */
/* Robustness of the one-time work and of publishing: calls that re-enter
 * the library during its first calibration or during a publish (from a
 * signal handler, or from the header's own test hooks, where they behave
 * alike), fork() and siglongjmp() in the middle of that work, readers next
 * to a stalled writer, CPUs without SSE2 or with AMD's older fences, and a
 * thread that may not read the TSC.
 *
 * The library's state is process-wide and its first use happens once per
 * process, so every test that exercises first use runs in a fresh child
 * under the watchdog (watchdog.h): a hang fails the test within 10 s. The
 * test runner itself never calls the library before forking.
 *
 * The header's test hooks are defined below, before it is included. A test
 * that relies on a hook asserts that the hook was reached. */
#define _GNU_SOURCE
#include <stdint.h>

void robust_cpuid_hook(uint32_t leaf, uint32_t *r);
void robust_calibrating_hook(void);
void robust_publish_hook(int what);
void robust_realtime_hook(int after);
#define TSC_TIMER_TEST_CPUID_HOOK(leaf, r) robust_cpuid_hook((uint32_t)(leaf), (r))
#define TSC_TIMER_TEST_CALIBRATING_HOOK() robust_calibrating_hook()
#define TSC_TIMER_TEST_PUBLISH_HOOK(what) robust_publish_hook((int)(what))
#define TSC_TIMER_TEST_REALTIME_HOOK(after) robust_realtime_hook(after)

#include "tsc_test.h"
#include "watchdog.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
#define ROBUST_X86_LINUX 1
#include <sys/prctl.h>
#endif

#define CHILD_SECONDS 10.0 /* the watchdog's limit for every child */

/* --- helpers ------------------------------------------------------------- */

static uint64_t os_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* 1 once *flag is nonzero, 0 if it stayed 0 for `seconds` (times the
 * watchdog's scale). */
static int wait_flag(const int *flag, double seconds)
{
    uint64_t end = os_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * wd_scale() * 1e9);
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
        if (os_ns(CLOCK_MONOTONIC) > end)
            return 0;
        wd_sleep_ns(100000);
    }
    return 1;
}

static void set_flag(int *flag)
{
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

/* Where the frequency is architectural nothing is measured: the hooks that
 * run during a measurement may have nothing to run in. */
static int is_architectural(void)
{
    struct tsc_calibration c;
    return tsc_current_calibration(&c) == 0 && strstr(c.method, "architectural") != NULL;
}


/* |a / b - 1| <= tol */
static int near(double a, double b, double tol)
{
    return b != 0 && fabs(a / b - 1) <= tol;
}

/* --- the hooks ----------------------------------------------------------- */

/* What the hooks do in this process; set by a child before its first use.
 * In the test runner they do nothing. */
enum {
    S_NONE,
    S_REENTER,           /* calls from inside the first calibration       */
    S_BLOCK_CALIBRATING, /* the calibrating thread waits for `release`    */
    S_LONGJMP,           /* siglongjmp out of the calibration, once        */
    S_READ_IN_PUBLISH,   /* tsc_now_ns() from inside a clock publish       */
    S_BLOCK_PUBLISH,     /* a publish of `block_what` waits for `release`  */
    S_NO_SSE2,           /* CPUID.1:EDX[26] (SSE2) clear                   */
    S_OLD_AMD,           /* an AMD family 0Fh CPU, no 0x80000021 EAX[2]    */
    S_SIGNAL_IN_CALIBRATION, /* the calibration waits for a SIGALRM handler */
    S_LONGJMP_PUBLISH    /* siglongjmp out of a clock publish, once        */
};
static int scenario;
static int block_what = -1;      /* S_BLOCK_PUBLISH: 0 frequency, 1 clock   */
static pid_t block_pid;          /* only this process's hook blocks         */
static int blocked, release;     /* the hook is waiting; let it go          */
static int block_timed_out;      /* nobody let it go within 5 s             */
static int cpuid_leaf_hits[2];   /* CPUID leaves 0 and 1 seen               */

/* Blocks the hook's thread until `release` (at most 5 s: nothing here
 * waits forever; a timeout is recorded). Once per process. */
static void block_here(void)
{
    if (getpid() != block_pid || __atomic_load_n(&blocked, __ATOMIC_ACQUIRE))
        return;
    set_flag(&blocked);
    if (!wait_flag(&release, 5.0))
        set_flag(&block_timed_out);
}

void robust_cpuid_hook(uint32_t leaf, uint32_t *r)
{
    if (leaf < 2)
        __atomic_fetch_add(&cpuid_leaf_hits[leaf], 1, __ATOMIC_RELAXED);
    if (scenario == S_NO_SSE2 && leaf == 1) {
        r[3] &= ~(UINT32_C(1) << 26);
    } else if (scenario == S_OLD_AMD) {
        if (leaf == 0) { /* "AuthenticAMD" in EBX, EDX, ECX */
            r[1] = 0x68747541u;
            r[3] = 0x69746e65u;
            r[2] = 0x444d4163u;
        } else if (leaf == 1) { /* family 0Fh, extended family 0 */
            r[0] = (r[0] & ~((UINT32_C(0xF) << 8) | (UINT32_C(0xFF) << 20))) | (UINT32_C(0xF) << 8);
        } else if (leaf == 0x80000021u) { /* no "LFENCE always serializing" */
            r[0] &= ~(UINT32_C(1) << 2);
        }
    }
}

/* S_REENTER: what the calls from inside the first calibration returned. */
static struct {
    int reached, nested;
    double hz, sec_1e9;
    uint64_t ns_1e9, ticks_1e9;
    int cal_rc, init_rc, calibrate_rc, resync_rc;
    double cal_hz;
    char method[160];
    uint64_t mono_a, mono, mono_b, real_a, real, real_b, took_ns;
} in;

static void call_everything_from_inside(void)
{
    struct tsc_calibration c;
    uint64_t t0 = os_ns(CLOCK_MONOTONIC);
    in.hz = tsc_ticks_per_second();
    in.ns_1e9 = tsc_ticks_to_ns(1000000000u);
    in.ticks_1e9 = tsc_ns_to_ticks(1000000000u);
    in.sec_1e9 = tsc_ticks_to_seconds(1000000000u);
    memset(&c, 0, sizeof c);
    in.cal_rc = tsc_current_calibration(&c);
    in.cal_hz = c.ticks_per_second;
    snprintf(in.method, sizeof in.method, "%s", c.method ? c.method : "(null)");
    in.mono_a = os_ns(CLOCK_MONOTONIC);
    in.mono = tsc_now_ns();
    in.mono_b = os_ns(CLOCK_MONOTONIC);
    in.real_a = os_ns(CLOCK_REALTIME);
    in.real = tsc_now_realtime_ns();
    in.real_b = os_ns(CLOCK_REALTIME);
    in.init_rc = tsc_init();
    in.calibrate_rc = tsc_calibrate(0.01, &c);
    in.resync_rc = tsc_clock_resync();
    in.took_ns = os_ns(CLOCK_MONOTONIC) - t0;
}

/* S_LONGJMP */
static sigjmp_buf jump_env;
static int jumped;
static uint64_t jumped_at;

static void wait_for_a_handler_call(void);

void robust_calibrating_hook(void)
{
    static int depth;
    switch (scenario) {
    case S_REENTER:
        if (depth) { /* a call from inside claimed again: it should not */
            in.nested++;
            return;
        }
        depth++;
        in.reached = 1;
        call_everything_from_inside();
        depth--;
        break;
    case S_BLOCK_CALIBRATING:
        block_here();
        break;
    case S_SIGNAL_IN_CALIBRATION:
        wait_for_a_handler_call();
        break;
    case S_LONGJMP:
        if (!jumped) {
            jumped = 1;
            jumped_at = os_ns(CLOCK_MONOTONIC);
            siglongjmp(jump_env, 1);
        }
        break;
    default:
        break;
    }
}

/* S_READ_IN_PUBLISH: a reading taken inside the clock's publish. */
static struct {
    int reached;
    uint64_t mono_a, mono, mono_b, real_a, real, real_b;
} pub;

void robust_publish_hook(int what)
{
    if (scenario == S_READ_IN_PUBLISH && what == 1 && !pub.reached) {
        pub.reached = 1;
        pub.mono_a = os_ns(CLOCK_MONOTONIC);
        pub.mono = tsc_now_ns();
        pub.mono_b = os_ns(CLOCK_MONOTONIC);
        pub.real_a = os_ns(CLOCK_REALTIME);
        pub.real = tsc_now_realtime_ns();
        pub.real_b = os_ns(CLOCK_REALTIME);
    } else if (scenario == S_BLOCK_PUBLISH && what == block_what) {
        block_here();
    } else if (scenario == S_LONGJMP_PUBLISH && what == 1 && !jumped) {
        jumped = 1;
        jumped_at = os_ns(CLOCK_MONOTONIC);
        siglongjmp(jump_env, 1);
    }
}

/* --- 1. re-entry during the first calibration ---------------------------- */

static int child_reenter_calibration(void *arg)
{
    struct tsc_calibration fin;
    double hz;
    int arch;
    (void)arg;
    scenario = S_REENTER;
    wd_stage("first use, calling everything from inside the calibrating hook");
    hz = tsc_ticks_per_second();
    tsc_current_calibration(&fin);
    arch = strstr(fin.method, "architectural") != NULL;
    if (!in.reached && arch)
        WD_SKIP("the frequency is architectural (%s): no calibration to re-enter", fin.method);
    WD_CHECK(in.reached, "TSC_TIMER_TEST_CALIBRATING_HOOK was never reached during first use "
             "(expected it to run after the calibration is claimed)");
    WD_CHECK(in.nested == 0, "a call from inside the calibration claimed it again (%d times)",
             in.nested);
    print_message("      inside: %.3f Hz (%s), published after: %.3f Hz (%s); inside took "
                  "%.3f ms\n", in.hz, in.method, hz, fin.method, (double)in.took_ns * 1e-6);
    /* 2 s: returning at all is the point; a wait would be forever. */
    WD_CHECK(in.took_ns < (uint64_t)(2e9 * wd_scale()),
             "the calls from inside took %.3f s, expected them to return at once",
             (double)in.took_ns * 1e-9);
    WD_CHECK(hz > 0 && isfinite(hz), "published frequency %g", hz);
    WD_CHECK(near(in.hz, hz, 0.01), "tsc_ticks_per_second() from inside gave %.1f Hz, expected "
             "within 1%% of the %.1f Hz published afterwards", in.hz, hz);
    WD_CHECK(near((double)in.ns_1e9, 1e18 / hz, 0.01), "tsc_ticks_to_ns(1e9) from inside gave "
             "%llu, expected within 1%% of %.0f", (unsigned long long)in.ns_1e9, 1e18 / hz);
    WD_CHECK(near((double)in.ticks_1e9, hz, 0.01), "tsc_ns_to_ticks(1e9) from inside gave %llu, "
             "expected within 1%% of %.0f", (unsigned long long)in.ticks_1e9, hz);
    WD_CHECK(near(in.sec_1e9, 1e9 / hz, 0.01), "tsc_ticks_to_seconds(1e9) from inside gave %g, "
             "expected within 1%% of %g", in.sec_1e9, 1e9 / hz);
    WD_CHECK(in.cal_rc == 0 && near(in.cal_hz, hz, 0.01), "tsc_current_calibration from inside "
             "returned %d, %.1f Hz; expected 0 and within 1%% of %.1f", in.cal_rc, in.cal_hz, hz);
    /* (where the frequency is architectural, that exact one will do too) */
    WD_CHECK(strstr(in.method, "local") != NULL || (arch && strstr(in.method, "architectural")),
             "from inside, the calibration's method is '%s', expected it to say 'local'",
             in.method);
    WD_CHECK(strstr(fin.method, "local") == NULL, "the local calibration was published: "
             "method '%s' after first use", fin.method);
    /* The OS clock: inside the two reads around it, 1 us slack. */
    WD_CHECK(in.mono + 1000 >= in.mono_a && in.mono <= in.mono_b + 1000,
             "tsc_now_ns() from inside gave %llu, expected the OS clock, inside [%llu, %llu] "
             "+- 1 us", (unsigned long long)in.mono, (unsigned long long)in.mono_a,
             (unsigned long long)in.mono_b);
    WD_CHECK(in.real + 1000 >= in.real_a && in.real <= in.real_b + 1000,
             "tsc_now_realtime_ns() from inside gave %llu, expected inside [%llu, %llu] +- 1 us",
             (unsigned long long)in.real, (unsigned long long)in.real_a,
             (unsigned long long)in.real_b);
    WD_CHECK(in.init_rc == -EAGAIN, "tsc_init() from inside returned %d, expected -EAGAIN (%d)",
             in.init_rc, -EAGAIN);
    WD_CHECK(in.calibrate_rc == -EAGAIN, "tsc_calibrate(0.01) from inside returned %d, expected "
             "-EAGAIN (%d)", in.calibrate_rc, -EAGAIN);
    /* (where the clock is the OS clock, resync is documented as 0 at once) */
    WD_CHECK(in.resync_rc == -EAGAIN || (in.resync_rc == 0 && !test_clock_on_counter()),
             "tsc_clock_resync() from inside returned %d, expected -EAGAIN (%d)", in.resync_rc,
             -EAGAIN);
    return 0;
}

/* Called from inside the first calibration (the calibrating hook, which
 * stands for a signal handler that interrupted it): every call returns at
 * once, conversions from a quick local calibration within 1 % of the one
 * published afterwards (and the local one is not published), the clocks
 * from the OS clock (1 us slack), and the calls that would calibrate or
 * publish -EAGAIN. */
static void test_calls_inside_the_first_calibration_return_local_answers_at_once(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_reenter_calibration, NULL);
}

/* The real thing: SIGALRM every 50-200 us (a one-shot timer re-armed at
 * the end of each handler, so the main thread always gets some time) whose
 * handler converts and reads the clock, while the main thread runs
 * tsc_init() and then 2000 tsc_clock_resync(). */
static volatile sig_atomic_t sig_calls, sig_done, sig_in_init, sig_during_init, sig_armed;
static volatile uint64_t sig_sink;

static void arm_alarm(void)
{
    static const long period_us[] = {50, 120, 80, 200, 150, 65, 170, 95};
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_usec = period_us[sig_calls % 8];
    setitimer(ITIMER_REAL, &it, NULL);
}

/* S_SIGNAL_IN_CALIBRATION: the calibration does not end before a handler
 * call began inside it (the timer is armed; 2 s x the watchdog's scale at
 * most), so a calibration faster than the timer still meets one. */
static void wait_for_a_handler_call(void)
{
    uint64_t end = os_ns(CLOCK_MONOTONIC) + (uint64_t)(2e9 * wd_scale());
    while (!sig_calls && os_ns(CLOCK_MONOTONIC) < end)
        ;
}

static void on_alarm(int sig)
{
    int saved = errno;
    (void)sig;
    sig_calls++;
    if (sig_in_init)
        sig_during_init++;
    sig_sink += tsc_ticks_to_ns(1000000);
    sig_sink += tsc_now_ns();
    sig_done++;
    if (sig_armed)
        arm_alarm();
    errno = saved;
}

static int child_signal_handler_calls(void *arg)
{
    struct sigaction sa;
    struct itimerval off;
    int rc, i, again = 0;
    long during_init;
    (void)arg;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    wd_stage("tsc_init() with a SIGALRM handler converting every 50-200 us");
    sig_armed = 1;
    arm_alarm();
    sig_in_init = 1;
    scenario = S_SIGNAL_IN_CALIBRATION;
    rc = tsc_init();
    scenario = S_NONE;
    sig_in_init = 0;
    during_init = sig_during_init;
    wd_stage("2000 tsc_clock_resync() with the SIGALRM handler reading the clock");
    for (i = 0; i < 2000; i++) {
        int r = tsc_clock_resync();
        WD_CHECK(r == 0 || r == -EAGAIN, "tsc_clock_resync() returned %d", r);
        again += r != 0;
    }
    sig_armed = 0;
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_IGN);
    print_message("      %ld handler calls, %ld during tsc_init(); %d of 2000 resyncs -EAGAIN\n",
                  (long)sig_calls, during_init, again);
    WD_CHECK(test_init_ok(rc), "tsc_init() returned %d with a signal handler calling in, expected 0",
             rc);
    WD_CHECK(sig_done == sig_calls, "%ld handler calls began, %ld ended", (long)sig_calls,
             (long)sig_done);
    if (!is_architectural())
        WD_CHECK(during_init >= 1, "the handler never ran during tsc_init() (the calibration "
                 "waits up to 2 s for one; the timer fires every 50-200 us)");
    return 0;
}

static void test_signal_handler_calls_during_init_and_resync_return(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_signal_handler_calls, NULL);
}

/* --- 2. re-entry during a clock publish ---------------------------------- */

/* Slack around the OS clock for a reading of the clock line: its 1 us
 * agreement bound (tests/test_clock.c), doubled for a loaded VM. */
#define LINE_SLACK_NS 2000u

static int child_read_in_clock_publish(void *arg)
{
    uint64_t prev = 0, n;
    int i, tries = 0;
    (void)arg;
    wd_stage("tsc_init() and the clock's set-up");
    WD_CHECK(test_init_ok(tsc_init()), "tsc_init() failed");
    for (i = 0; i < 1000; i++) {
        n = tsc_now_ns();
        prev = n > prev ? n : prev;
    }
    if (!test_clock_on_counter())
        WD_SKIP("the clock is the OS clock: tsc_clock_resync() publishes no line");
    scenario = S_READ_IN_PUBLISH;
    wd_stage("tsc_clock_resync(), reading the clock inside its publish");
    for (tries = 0; tries < 200 && !pub.reached; tries++) {
        int rc;
        n = tsc_now_ns();
        prev = n > prev ? n : prev;
        rc = tsc_clock_resync();
        WD_CHECK(rc == 0 || rc == -EAGAIN, "tsc_clock_resync() returned %d", rc);
    }
    WD_CHECK(pub.reached, "TSC_TIMER_TEST_PUBLISH_HOOK(1) was never reached in %d "
             "tsc_clock_resync() calls (expected it in the middle of each publish)", tries);
    WD_CHECK(pub.mono >= prev, "inside the publish tsc_now_ns() gave %llu, below an earlier "
             "reading %llu", (unsigned long long)pub.mono, (unsigned long long)prev);
    WD_CHECK(pub.mono + LINE_SLACK_NS >= pub.mono_a && pub.mono <= pub.mono_b + LINE_SLACK_NS,
             "inside the publish tsc_now_ns() gave %llu, expected inside CLOCK_MONOTONIC's "
             "[%llu, %llu] +- 2 us", (unsigned long long)pub.mono,
             (unsigned long long)pub.mono_a, (unsigned long long)pub.mono_b);
    WD_CHECK(pub.real + LINE_SLACK_NS >= pub.real_a && pub.real <= pub.real_b + LINE_SLACK_NS,
             "inside the publish tsc_now_realtime_ns() gave %llu, expected inside "
             "CLOCK_REALTIME's [%llu, %llu] +- 2 us", (unsigned long long)pub.real,
             (unsigned long long)pub.real_a, (unsigned long long)pub.real_b);
    n = tsc_now_ns();
    WD_CHECK(n >= pub.mono, "after the publish tsc_now_ns() went back from %llu to %llu",
             (unsigned long long)pub.mono, (unsigned long long)n);
    return 0;
}

/* tsc_now_ns() called in the middle of a clock publish (the publish hook,
 * standing for a signal handler that interrupted tsc_clock_resync())
 * returns at once, not below any earlier reading, within 2 us of the OS
 * clock's bracket. */
static void test_clock_read_inside_a_clock_publish_returns_at_once(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_read_in_clock_publish, NULL);
}

/* --- 3. fork while another thread holds the calibration or a publish ----- */

struct fork_shared {
    double hz;     /* the grandchild's frequency */
};

static struct fork_shared *shared_page(void)
{
    void *p = mmap(NULL, sizeof(struct fork_shared), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    WD_CHECK(p != MAP_FAILED, "mmap failed");
    memset(p, 0, sizeof(struct fork_shared));
    return (struct fork_shared *)p;
}

static void *first_use_thread(void *p)
{
    *(double *)p = tsc_ticks_per_second();
    return NULL;
}

static int grandchild_first_use(void *arg)
{
    struct fork_shared *sh = (struct fork_shared *)arg;
    double hz;
    uint64_t ns;
    wd_stage("first use in a child forked during another thread's calibration");
    hz = tsc_ticks_per_second();
    ns = tsc_ticks_to_ns((uint64_t)hz);
    sh->hz = hz;
    WD_CHECK(hz > 0 && isfinite(hz), "the forked child's frequency is %g", hz);
    WD_CHECK(near((double)ns, 1e9, 0.01), "the forked child converts a second's ticks to %llu "
             "ns, expected within 1%% of 1e9", (unsigned long long)ns);
    return 0;
}

static int child_fork_during_calibration(void *arg)
{
    struct fork_shared *sh = shared_page();
    pthread_t th;
    double hz_thread = 0, hz;
    char text[1400];
    int rc;
    (void)arg;
    scenario = S_BLOCK_CALIBRATING;
    block_pid = getpid();
    wd_stage("waiting for another thread to reach the calibrating hook");
    WD_CHECK(pthread_create(&th, NULL, first_use_thread, &hz_thread) == 0, "pthread_create");
    if (!wait_flag(&blocked, 2.0)) {
        set_flag(&release);
        pthread_join(th, NULL);
        if (is_architectural())
            WD_SKIP("the frequency is architectural: no calibration to fork inside");
        WD_CHECK(0, "TSC_TIMER_TEST_CALIBRATING_HOOK was never reached by the thread making "
                 "the first use (expected it after the calibration is claimed)");
    }
    wd_stage("a grandchild forked while the calibration is claimed");
    rc = wd_run("first use in the forked child", 4.0, grandchild_first_use, sh, text, sizeof text);
    set_flag(&release);
    pthread_join(th, NULL);
    hz = tsc_ticks_per_second();
    WD_CHECK(rc == WD_PASS, "forked while another thread calibrated: %s", text);
    print_message("      forked child %.3f Hz, parent %.3f Hz\n", sh->hz, hz);
    WD_CHECK(!block_timed_out, "the calibrating thread was never released");
    WD_CHECK(near(sh->hz, hz, 0.01), "the forked child measured %.1f Hz, expected within 1%% "
             "of the parent's %.1f Hz", sh->hz, hz);
    WD_CHECK(hz_thread == hz, "the thread that calibrated saw %.3f Hz, later calls %.3f Hz",
             hz_thread, hz);
    return 0;
}

/* fork() while another thread is inside the first calibration (held in the
 * calibrating hook): the child's first use returns (watchdog, 4 s) with a
 * frequency within 1 % of the parent's. */
static void test_fork_during_another_threads_calibration_leaves_the_child_a_first_use(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_fork_during_calibration, NULL);
}

static int blocked_rc = 1; /* what the resync that was held returned */

static void *resync_until_blocked(void *p)
{
    int i, rc;
    (void)p;
    for (i = 0; i < 500 && !__atomic_load_n(&blocked, __ATOMIC_ACQUIRE); i++) {
        rc = tsc_clock_resync();
        if (__atomic_load_n(&blocked, __ATOMIC_ACQUIRE))
            blocked_rc = rc;
        else
            wd_sleep_ns(1000000);
    }
    return NULL;
}

/* A sanity bound for a line inherited across fork: within 1 ms of
 * CLOCK_MONOTONIC (it was placed milliseconds ago). */
#define INHERITED_SLACK_NS 1000000u

static int grandchild_clock(void *arg)
{
    uint64_t prev = 0, a, n, b, end;
    int i, ok = 0, rc = 0;
    (void)arg;
    wd_stage("tsc_now_ns() in a child forked during a clock publish");
    for (i = 0; i < 1000; i++) {
        a = os_ns(CLOCK_MONOTONIC);
        n = tsc_now_ns();
        b = os_ns(CLOCK_MONOTONIC);
        WD_CHECK(n >= prev, "the forked child's clock went back from %llu to %llu",
                 (unsigned long long)prev, (unsigned long long)n);
        WD_CHECK(n + INHERITED_SLACK_NS >= a && n <= b + INHERITED_SLACK_NS,
                 "the forked child's clock read %llu, expected within 1 ms of [%llu, %llu]",
                 (unsigned long long)n, (unsigned long long)a, (unsigned long long)b);
        prev = n;
    }
    wd_stage("tsc_clock_resync() in a child forked during a clock publish");
    /* 1 ms apart for 2 s (times the watchdog's scale): an emulator on a
     * loaded machine can stall for longer than 100 tries take */
    end = os_ns(CLOCK_MONOTONIC) + (uint64_t)(2e9 * wd_scale());
    for (i = 0; !ok && (i < 100 || os_ns(CLOCK_MONOTONIC) < end); i++) {
        rc = tsc_clock_resync();
        WD_CHECK(rc == 0 || rc == -EAGAIN, "tsc_clock_resync() returned %d", rc);
        ok = rc == 0;
        if (!ok)
            wd_sleep_ns(1000000);
    }
    WD_CHECK(ok, "tsc_clock_resync() in the forked child never succeeded in %d tries, 1 ms "
             "apart, over %.1f s (last %d)", i, 2 * wd_scale(), rc);
    n = tsc_now_ns();
    WD_CHECK(n >= prev, "after its resync the forked child's clock went back from %llu to %llu",
             (unsigned long long)prev, (unsigned long long)n);
    return 0;
}

static int child_fork_during_clock_publish(void *arg)
{
    pthread_t th;
    char text[1400];
    int rc;
    (void)arg;
    wd_stage("tsc_init() and the clock's set-up");
    WD_CHECK(test_init_ok(tsc_init()), "tsc_init() failed");
    tsc_now_ns();
    if (!test_clock_on_counter())
        WD_SKIP("the clock is the OS clock: tsc_clock_resync() publishes no line");
    scenario = S_BLOCK_PUBLISH;
    block_what = 1;
    block_pid = getpid();
    wd_stage("waiting for another thread's tsc_clock_resync() to reach the publish hook");
    WD_CHECK(pthread_create(&th, NULL, resync_until_blocked, NULL) == 0, "pthread_create");
    if (!wait_flag(&blocked, 3.0)) {
        set_flag(&release);
        pthread_join(th, NULL);
        WD_CHECK(0, "TSC_TIMER_TEST_PUBLISH_HOOK(1) was never reached by tsc_clock_resync() "
                 "(expected it in the middle of each publish)");
    }
    wd_stage("a grandchild forked while a clock publish is half done");
    rc = wd_run("the clock in the forked child", 4.0, grandchild_clock, NULL, text, sizeof text);
    set_flag(&release);
    pthread_join(th, NULL);
    WD_CHECK(rc == WD_PASS, "forked while another thread published the clock: %s", text);
    WD_CHECK(!block_timed_out, "the publishing thread was never released");
    return 0;
}

/* fork() while another thread is in the middle of a clock publish (held in
 * the publish hook inside tsc_clock_resync()): the child's tsc_now_ns()
 * returns, never goes back and is within 1 ms of CLOCK_MONOTONIC, and its
 * tsc_clock_resync() succeeds within 100 tries. */
static void test_fork_during_another_threads_clock_publish_leaves_the_child_a_clock(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_fork_during_clock_publish, NULL);
}

/* --- 4. siglongjmp out of the calibration -------------------------------- */

struct other_thread {
    int done1, go2, done2;
    double first, second;
};

static void *other_thread_main(void *p)
{
    struct other_thread *o = (struct other_thread *)p;
    o->first = tsc_ticks_per_second();
    set_flag(&o->done1);
    if (!wait_flag(&o->go2, 10.0))
        return NULL;
    o->second = tsc_ticks_per_second();
    set_flag(&o->done2);
    return NULL;
}

static void *read_hz_thread(void *p)
{
    *(double *)p = tsc_ticks_per_second();
    return NULL;
}

static int child_longjmp_out_of_calibration(void *arg)
{
    static struct other_thread o;
    struct tsc_calibration c;
    pthread_t th, th2;
    uint64_t t0, t1, deadline;
    double hz, hz_main, hz_new = 0;
    int published = 0, rc;
    (void)arg;
    scenario = S_LONGJMP;
    wd_stage("first use, jumping out of the calibrating hook");
    if (sigsetjmp(jump_env, 1) == 0) {
        tsc_ticks_per_second();
        if (is_architectural())
            WD_SKIP("the frequency is architectural: no calibration to jump out of");
        WD_CHECK(0, "TSC_TIMER_TEST_CALIBRATING_HOOK was never reached during first use: "
                 "nothing to jump out of");
    }
    wd_stage("tsc_ticks_per_second() after jumping out of the calibration");
    t0 = os_ns(CLOCK_MONOTONIC);
    hz = tsc_ticks_per_second();
    t1 = os_ns(CLOCK_MONOTONIC);
    WD_CHECK(hz > 0 && isfinite(hz), "after the jump tsc_ticks_per_second() gave %g", hz);
    WD_CHECK(t1 - t0 < (uint64_t)(0.5e9 * wd_scale()), "after the jump tsc_ticks_per_second() "
             "took %.3f s, expected it at once (a local or published value)", (t1 - t0) * 1e-9);
    wd_stage("another thread's first use after the abandoned claim");
    t0 = os_ns(CLOCK_MONOTONIC);
    WD_CHECK(pthread_create(&th, NULL, other_thread_main, &o) == 0, "pthread_create");
    WD_CHECK(wait_flag(&o.done1, 2.0), "another thread's first use did not return within 2 s "
             "of the abandoned claim");
    WD_CHECK(o.first > 0 && isfinite(o.first), "another thread's first use gave %g", o.first);
    wd_stage("waiting for a calibration to be published");
    deadline = jumped_at + (uint64_t)(3e9 * wd_scale());
    do {
        WD_CHECK(tsc_current_calibration(&c) == 0, "tsc_current_calibration failed");
        published = strstr(c.method, "local") == NULL;
        if (!published)
            wd_sleep_ns(1000000);
    } while (!published && os_ns(CLOCK_MONOTONIC) < deadline);
    WD_CHECK(published, "no calibration was published within 3 s of the abandoned claim: the "
             "method is still '%s'", c.method);
    print_message("      after the jump: %.3f Hz; other thread %.3f Hz; published %.3f Hz (%s) "
                  "%.3f s after the jump\n", hz, o.first, c.ticks_per_second, c.method,
                  (os_ns(CLOCK_MONOTONIC) - jumped_at) * 1e-9);
    set_flag(&o.go2);
    WD_CHECK(wait_flag(&o.done2, 2.0), "the other thread's second call did not return in 2 s");
    pthread_join(th, NULL);
    WD_CHECK(pthread_create(&th2, NULL, read_hz_thread, &hz_new) == 0, "pthread_create");
    pthread_join(th2, NULL);
    hz_main = tsc_ticks_per_second();
    WD_CHECK(hz_main == c.ticks_per_second && o.second == c.ticks_per_second &&
             hz_new == c.ticks_per_second,
             "threads disagree once a calibration is published (%.3f Hz): the jumping thread "
             "%.3f, the other %.3f, a new one %.3f", c.ticks_per_second, hz_main, o.second,
             hz_new);
    /* Its claim is taken over, and the thread no longer counts as inside
     * the calibration, 1 s after the jump. */
    deadline = jumped_at + (uint64_t)(3e9 * wd_scale());
    while (!test_init_ok(rc = tsc_init()) && os_ns(CLOCK_MONOTONIC) < deadline)
        wd_sleep_ns(10000000);
    WD_CHECK(test_init_ok(rc), "the jumping thread's tsc_init() still returned %d %.1f s after the "
             "jump (its thread was left marked as inside the calibration)", rc,
             (os_ns(CLOCK_MONOTONIC) - jumped_at) * 1e-9);
    print_message("      the jumping thread's tsc_init(): %d, %.3f s after the jump\n", rc,
                  (os_ns(CLOCK_MONOTONIC) - jumped_at) * 1e-9);
    return 0;
}

/* siglongjmp() out of the calibrating hook, once, as out of a signal
 * handler: the same thread's next call returns at once (0.5 s) with a
 * frequency, another thread's first use returns within 2 s, a calibration
 * (not a local one) is published within 3 s of the abandoned claim, every
 * thread then converts with it, and the jumping thread's tsc_init()
 * succeeds within 3 s (its claim is stale after 1 s). */
static void test_siglongjmp_out_of_the_calibration_leaves_a_usable_library(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_longjmp_out_of_calibration, NULL);
}

/* --- 8. readers never wait on a writer ----------------------------------- */

struct writer {
    int what, rc;
};

static void *writer_main(void *p)
{
    struct writer *w = (struct writer *)p;
    if (w->what == 0) {
        struct tsc_calibration c;
        w->rc = tsc_calibrate(0.002, &c);
    } else {
        resync_until_blocked(NULL);
        w->rc = 0;
    }
    return NULL;
}

static int child_readers_next_to_a_blocked_writer(void *arg)
{
    struct writer w;
    pthread_t th;
    uint64_t before, prev, n, t0, t1, late, sw = 0;
    long i, changed = 0, back = 0;
    w.what = *(const int *)arg;
    w.rc = -1;
    wd_stage("tsc_init() and the clock's set-up");
    WD_CHECK(test_init_ok(tsc_init()), "tsc_init() failed");
    prev = tsc_now_ns();
    if (w.what == 1 && !test_clock_on_counter())
        WD_SKIP("the clock is the OS clock: tsc_clock_resync() publishes no line");
    before = tsc_ticks_to_ns(1000000000u);
    scenario = S_BLOCK_PUBLISH;
    block_what = w.what;
    block_pid = getpid();
    wd_stage("waiting for the writer (%s) to reach TSC_TIMER_TEST_PUBLISH_HOOK(%d)",
             w.what ? "tsc_clock_resync" : "tsc_calibrate(0.002)", w.what);
    WD_CHECK(pthread_create(&th, NULL, writer_main, &w) == 0, "pthread_create");
    if (!wait_flag(&blocked, 3.0)) {
        set_flag(&release);
        pthread_join(th, NULL);
        WD_CHECK(0, "TSC_TIMER_TEST_PUBLISH_HOOK(%d) was never reached by %s (expected it in "
                 "the middle of the publish)", w.what,
                 w.what ? "tsc_clock_resync()" : "tsc_calibrate(0.002)");
    }
    wd_stage("100000 reads while the writer waits in the middle of its publish");
    t0 = os_ns(CLOCK_MONOTONIC);
    for (i = 0; i < 100000; i++) {
        changed += tsc_ticks_to_ns(1000000000u) != before;
        n = tsc_now_ns();
        back += n < prev;
        prev = n;
    }
    t1 = os_ns(CLOCK_MONOTONIC);
    late = tsc_clock_ticks(); /* the held line's switch point is behind this */
    set_flag(&release);
    pthread_join(th, NULL);
    print_message("      100000 conversions and clock reads in %.3f ms beside a blocked "
                  "writer\n", (t1 - t0) * 1e-6);
    WD_CHECK(!block_timed_out, "readers waited on a writer: 100000 reads did not finish within "
             "5 s while the writer was held in the middle of its publish");
    WD_CHECK(w.rc == 0, "the writer returned %d", w.rc);
    WD_CHECK(changed == 0, "%ld conversions saw a frequency that was not yet visible", changed);
    WD_CHECK(back == 0, "%ld clock reads went back beside the blocked writer", back);
    if (w.what == 1) {
        /* Held far past its switch point (100000 reads), that publication
         * must not be made: readers saw the old line beyond that point. */
        n = tsc_now_ns();
        WD_CHECK(n >= prev, "the clock went back from %llu to %llu when the writer held past "
                 "its switch point was let go", (unsigned long long)prev, (unsigned long long)n);
        /* It is made again from a new switch point (0), or not at all
         * (-EAGAIN): either way the line in force switches after `late`. */
        tsc__latch_get(&tsc__g.cseq, &tsc__g.l[0][0], TSC__L_STRIDE, TSC__L_SWITCH, &sw, 1);
        WD_CHECK(blocked_rc == -EAGAIN || (blocked_rc == 0 && sw > late),
                 "the resync held past its switch point returned %d with the line in force "
                 "switching at %llu, before %llu, a counter read while it was held: published "
                 "late", blocked_rc, (unsigned long long)sw, (unsigned long long)late);
    }
    return 0;
}

/* A writer held in the middle of publishing a new frequency (the publish
 * hook, what 0, in tsc_calibrate(0.002) after init) waits until another
 * thread has made 100000 conversions and clock reads, or 5 s: readers must
 * not wait for it, and see the old frequency meanwhile. */
static void test_readers_never_wait_on_a_frequency_publish(void **state)
{
    static const int what = 0;
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_readers_next_to_a_blocked_writer, (void *)&what);
}

/* The same with a writer held in the middle of a clock publish (what 1, in
 * tsc_clock_resync()); the clock never goes back meanwhile. */
static void test_readers_never_wait_on_a_clock_publish(void **state)
{
    static const int what = 1;
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_readers_next_to_a_blocked_writer, (void *)&what);
}

/* --- 10. CPUs without SSE2, and AMD's older fences ----------------------- */

#if defined(__x86_64__) || defined(__i386__)
static long reads_going_back(void)
{
    uint64_t prev = tsc_ticks_before(), now;
    long i, back = 0;
    for (i = 0; i < 100000; i++) {
        now = (i & 1) ? tsc_ticks_after() : tsc_ticks_before();
        back += now < prev;
        prev = now;
    }
    return back;
}

static int child_cpu_as_hooked(void *arg)
{
    const char *want = (const char *)arg, *name;
    long back;
    scenario = strcmp(want, "no SSE2") == 0 ? S_NO_SSE2 : S_OLD_AMD;
    wd_stage("choosing the counter on a CPU presented by the CPUID hook");
    name = tsc_counter_name();
    print_message("      counter: %s\n", name);
    WD_CHECK(cpuid_leaf_hits[1] > 0, "TSC_TIMER_TEST_CPUID_HOOK never saw leaf 1 (expected it "
             "after every CPUID the header executes)");
    if (scenario == S_OLD_AMD)
        WD_CHECK(cpuid_leaf_hits[0] > 0, "TSC_TIMER_TEST_CPUID_HOOK never saw leaf 0");
    WD_CHECK(strstr(name, want) != NULL, "%s: the counter is '%s', expected it to say '%s'",
             scenario == S_NO_SSE2 ? "CPUID.1:EDX[26] (SSE2) clear"
                                   : "AMD family 0Fh without CPUID 0x80000021 EAX[2]",
             name, want);
    wd_stage("100000 alternating before/after reads");
    back = reads_going_back();
    WD_CHECK(back == 0, "%ld of 100000 alternating before/after reads went back", back);
    return 0;
}
#endif

/* A CPU without SSE2 (i386: no LFENCE), as the CPUID hook presents it: the
 * counter says "no SSE2" and 100000 alternating before/after reads never
 * go back. */
static void test_cpu_without_sse2_is_read_without_lfence_and_never_goes_back(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    WD_EXPECT_CHILD(CHILD_SECONDS, child_cpu_as_hooked, (void *)"no SSE2");
#else
    skip();
#endif
}

/* An AMD family 0Fh CPU whose LFENCE is not said to serialize (no CPUID
 * 0x80000021 EAX[2]): the counter is fenced with MFENCE, and says so. */
static void test_old_amd_cpu_fences_its_reads_with_mfence(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    WD_EXPECT_CHILD(CHILD_SECONDS, child_cpu_as_hooked, (void *)"MFENCE");
#else
    skip();
#endif
}

/* --- 11. merging migrations ---------------------------------------------- */

/* A stats object whose every sample was dropped for changing CPU (count 0,
 * migrated 3) still passes its migrations on when merged. */
static void test_merge_counts_migrations_of_an_object_with_no_samples(void **state)
{
    static struct tsc_stats into, from;
    int i, kept = 0;
    (void)state;
    tsc_stats_init(&into);
    tsc_stats_init(&from);
    tsc_stats_add(&into, 100);
    tsc_stats_add_cpu(&into, 200, 1, 2, 0); /* kept, and counted as migrated */
    for (i = 0; i < 3; i++)
        kept += tsc_stats_add_cpu(&from, 300, (uint32_t)i, (uint32_t)i + 1, 1);
    EXPECT(kept == 0 && from.count == 0 && from.migrated == 3,
           "setup: expected 3 dropped samples, got count %llu migrated %llu",
           (unsigned long long)from.count, (unsigned long long)from.migrated);
    tsc_stats_merge(&into, &from);
    EXPECT(into.migrated == 4, "into.migrated is %llu after merging 3 migrations into 1, "
           "expected 4", (unsigned long long)into.migrated);
    EXPECT(into.count == 2, "merging no samples changed the count to %llu",
           (unsigned long long)into.count);
}

/* --- 13. RDTSC forbidden for one thread only ----------------------------- */

#if defined(ROBUST_X86_LINUX)
struct forbidden {
    int skip;
    uint64_t before, after;
    double hz;
};

static void *forbidding_thread(void *p)
{
    struct forbidden *f = (struct forbidden *)p;
    if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) {
        f->skip = 1;
        return NULL;
    }
    f->before = tsc_ticks_before();
    f->hz = tsc_ticks_per_second();
    f->after = tsc_ticks_after();
    /* Allowed again before the thread ends: the sanitizers' thread exit
     * reads the vDSO clock, which executes RDTSC. */
    prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0);
    return NULL;
}

static int child_forbidden_in_one_thread(void *arg)
{
    struct forbidden f;
    struct tsc_features feat;
    pthread_t th;
    const char *name;
    (void)arg;
    memset(&f, 0, sizeof f);
    wd_stage("first use in a thread that forbade itself RDTSC");
    WD_CHECK(pthread_create(&th, NULL, forbidding_thread, &f) == 0, "pthread_create");
    pthread_join(th, NULL);
    if (f.skip)
        WD_SKIP("prctl(PR_SET_TSC) is not available here");
    WD_CHECK(f.after >= f.before && f.hz > 0, "the forbidding thread read %llu then %llu at "
             "%g Hz", (unsigned long long)f.before, (unsigned long long)f.after, f.hz);
    wd_stage("asking from the main thread, which may read the TSC");
    name = tsc_counter_name();
    feat = tsc_features();
    print_message("      counter as seen from the main thread: %s; os_allows_counter %d\n", name,
                  feat.os_allows_counter);
    WD_CHECK(strstr(name, "forbidden by prctl") != NULL, "the counter was chosen in a thread "
             "with RDTSC forbidden, yet another thread names it '%s' (expected 'forbidden by "
             "prctl')", name);
    WD_CHECK(feat.os_allows_counter == 0, "tsc_features().os_allows_counter is %d in the main "
             "thread, expected 0: the answer cached when the counter was chosen",
             feat.os_allows_counter);
    return 0;
}
#endif

/* The first call made by a thread that may not read the TSC (prctl
 * PR_SET_TSC, a per-thread setting) chooses the OS clock for the process;
 * every thread then names that reason and reports os_allows_counter 0. */
static void test_rdtsc_forbidden_in_the_choosing_thread_is_what_every_thread_reports(void **state)
{
    (void)state;
#if defined(ROBUST_X86_LINUX)
    WD_EXPECT_CHILD(CHILD_SECONDS, child_forbidden_in_one_thread, NULL);
#else
    skip();
#endif
}

/* --- 14. siglongjmp out of a clock publish ------------------------------ */

struct resyncer {
    int done, tries;
    uint64_t at; /* OS ns of its first successful resync */
};

static void *resync_until_ok(void *p)
{
    struct resyncer *r = (struct resyncer *)p;
    uint64_t end = os_ns(CLOCK_MONOTONIC) + (uint64_t)(4e9 * wd_scale());
    while (os_ns(CLOCK_MONOTONIC) < end) {
        r->tries++;
        if (tsc_clock_resync() == 0) {
            r->at = os_ns(CLOCK_MONOTONIC);
            break;
        }
        wd_sleep_ns(10000000);
    }
    set_flag(&r->done);
    return NULL;
}

/* Resyncs until one jumps out of its publish (200 at most); how many. */
static int resync_until_jumped(void)
{
    static volatile int tries;
    tries = 0;
    if (sigsetjmp(jump_env, 1) == 0)
        while (tries < 200) {
            tries++;
            (void)tsc_clock_resync();
        }
    return tries;
}

static int child_longjmp_out_of_publish(void *arg)
{
    static struct resyncer other;
    pthread_t th;
    uint64_t prev = 0, n, end, t_init, t_own;
    int tries, rc_init = -1, rc_own = -1;
    (void)arg;
    wd_stage("tsc_init() and the clock's set-up");
    WD_CHECK(test_init_ok(tsc_init()), "tsc_init() failed");
    if (!test_clock_on_counter())
        WD_SKIP("the clock is the OS clock: tsc_clock_resync() publishes no line");
    prev = tsc_now_ns();
    scenario = S_LONGJMP_PUBLISH;
    wd_stage("tsc_clock_resync(), jumping out of its publish");
    tries = resync_until_jumped();
    WD_CHECK(jumped, "TSC_TIMER_TEST_PUBLISH_HOOK(1) was never reached in %d tsc_clock_resync() "
             "calls (expected it in the middle of each publish)", tries);
    wd_stage("the clock after the jump");
    n = tsc_now_ns();
    WD_CHECK(n >= prev, "after the jump tsc_now_ns() went back from %llu to %llu",
             (unsigned long long)prev, (unsigned long long)n);
    prev = n;
    wd_stage("another thread resyncing after the abandoned claim");
    WD_CHECK(pthread_create(&th, NULL, resync_until_ok, &other) == 0, "pthread_create");
    WD_CHECK(wait_flag(&other.done, 5.0), "the other thread's resyncs did not return");
    pthread_join(th, NULL);
    WD_CHECK(other.at != 0, "another thread's tsc_clock_resync() never succeeded in %d tries "
             "over 4 s after a publish was abandoned by siglongjmp", other.tries);
    wd_stage("the jumping thread's tsc_init() and tsc_clock_resync()");
    end = os_ns(CLOCK_MONOTONIC) + (uint64_t)(3e9 * wd_scale());
    t_init = t_own = os_ns(CLOCK_MONOTONIC);
    while (rc_init != 0 && os_ns(CLOCK_MONOTONIC) < end) {
        rc_init = tsc_init();
        t_init = os_ns(CLOCK_MONOTONIC);
        if (rc_init != 0)
            wd_sleep_ns(10000000);
    }
    while (rc_own != 0 && os_ns(CLOCK_MONOTONIC) < end) {
        rc_own = tsc_clock_resync();
        t_own = os_ns(CLOCK_MONOTONIC);
        if (rc_own != 0)
            wd_sleep_ns(10000000);
    }
    n = tsc_now_ns();
    print_message("      after the jump: another thread resynced after %.3f s (%d tries); the "
                  "jumping thread's tsc_init() %d after %.3f s, its resync %d after %.3f s\n",
                  (other.at - jumped_at) * 1e-9, other.tries, rc_init,
                  (t_init - jumped_at) * 1e-9, rc_own, (t_own - jumped_at) * 1e-9);
    WD_CHECK(rc_init == 0, "the jumping thread's tsc_init() still returned %d %.1f s after the "
             "jump (its thread was left marked as inside the library's work)", rc_init,
             (t_init - jumped_at) * 1e-9);
    WD_CHECK(rc_own == 0, "the jumping thread's tsc_clock_resync() still returned %d %.1f s "
             "after the jump", rc_own, (t_own - jumped_at) * 1e-9);
    WD_CHECK(n >= prev, "after the resyncs tsc_now_ns() went back from %llu to %llu",
             (unsigned long long)prev, (unsigned long long)n);
    return 0;
}

/* siglongjmp() out of tsc_clock_resync() in the middle of its publish (the
 * hook standing for a signal handler that jumps): the clock does not go
 * back, another thread's resync succeeds once the abandoned claim is taken
 * over (1 s), and the jumping thread's own tsc_init() and resync succeed
 * again within 3 s. */
static void test_siglongjmp_out_of_a_clock_publish_leaves_a_usable_clock(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_longjmp_out_of_publish, NULL);
}

/* --- 15. a realtime offset measured while disturbed --------------------- */

/* While set, each CLOCK_REALTIME read of the offset's measurement comes
 * 150 us late and is followed by 50 us more, as on a machine that
 * preempts there: the offset is measured 50 us high, in a 200 us bracket. */
static int real_disturbed, real_delays;

static void spin_ns(uint64_t ns)
{
    uint64_t end = os_ns(CLOCK_MONOTONIC) + ns;
    while (os_ns(CLOCK_MONOTONIC) < end)
        ;
}

void robust_realtime_hook(int after)
{
    if (!__atomic_load_n(&real_disturbed, __ATOMIC_ACQUIRE))
        return;
    __atomic_fetch_add(&real_delays, 1, __ATOMIC_RELAXED);
    spin_ns(after ? 50000 : 150000);
}

/* tsc_now_realtime_ns() - CLOCK_REALTIME (the middle of its bracket), the
 * closest of 5 tries, and that bracket's width. */
static int64_t realtime_error(uint64_t *width)
{
    int64_t best = INT64_MAX, e;
    uint64_t a, c, b;
    int i;
    *width = 0; /* written on every path (gcc -O3 cannot tell the loop runs) */
    for (i = 0; i < 5; i++) {
        a = os_ns(CLOCK_REALTIME);
        c = tsc_now_realtime_ns();
        b = os_ns(CLOCK_REALTIME);
        e = (int64_t)(c - a) - (int64_t)((b - a) / 2);
        if (llabs(e) < llabs(best)) {
            best = e;
            *width = b - a;
        }
    }
    return best;
}

static int child_realtime_offset_narrows(void *arg)
{
    uint64_t v[TSC__L_WORDS], w, w0, w1;
    int64_t e0, e1, tol;
    int i, ok = 0, rc;
    (void)arg;
    wd_stage("tsc_init() with every CLOCK_REALTIME read of the offset delayed");
    set_flag(&real_disturbed);
    rc = tsc_init();
    WD_CHECK(test_init_ok(rc), "tsc_init() failed: %d", rc);
    (void)tsc_now_realtime_ns(); /* the clock is set up here at the latest */
    __atomic_store_n(&real_disturbed, 0, __ATOMIC_RELEASE);
    if (!test_clock_on_counter())
        WD_SKIP("the clock is the OS clock here: no realtime offset of its own");
    WD_CHECK(real_delays > 0, "the realtime hook was never reached");
    tsc__latch_get(&tsc__g.cseq, &tsc__g.l[0][0], TSC__L_STRIDE, 0, v, TSC__L_WORDS);
    w0 = v[TSC__L_REALW];
    e0 = realtime_error(&w);
    WD_CHECK(e0 > 25000, "the disturbed set-up left the realtime reading only %lld ns off "
             "(expected ~+50 us): the disturbance did not take", (long long)e0);
    wd_stage("40 clean resyncs, 10 ms apart");
    for (i = 0; i < 40; i++) {
        ok += tsc_clock_resync() == 0;
        wd_sleep_ns(10000000);
    }
    tsc__latch_get(&tsc__g.cseq, &tsc__g.l[0][0], TSC__L_STRIDE, 0, v, TSC__L_WORDS);
    w1 = v[TSC__L_REALW];
    e1 = realtime_error(&w);
    /* The kept measurement's half width, the check's own bracket, and the
     * line's agreement with CLOCK_MONOTONIC (1 us; 10 under emulation). */
    tol = (int64_t)(w1 / 2 + w) + (getenv("TSC_TEST_EMULATED") ? 10000 : 1000);
    print_message("      realtime offset measured disturbed: %+lld ns off (bracket %llu ns); "
                  "after %d clean resyncs %+lld ns (bracket %llu ns), allowed %lld\n",
                  (long long)e0, (unsigned long long)w0, ok, (long long)e1,
                  (unsigned long long)w1, (long long)tol);
    WD_CHECK(ok > 0, "none of 40 resyncs succeeded");
    WD_CHECK(w1 < w0, "the realtime offset's bracket never narrowed (%llu ns, then %llu ns)",
             (unsigned long long)w0, (unsigned long long)w1);
    WD_CHECK(llabs(e1) <= tol && llabs(e1) < 25000, "after %d clean resyncs the realtime reading "
             "is still %+lld ns off CLOCK_REALTIME (allowed %lld)", ok, (long long)e1,
             (long long)tol);
    return 0;
}

/* An offset measured while disturbed (its realtime reads delayed, 50 us
 * high in a 200 us bracket) is replaced by the first clean, narrower
 * measurement inside its interval: the kept interval only narrows. */
static void test_a_realtime_offset_measured_disturbed_is_replaced_by_a_narrower_one(void **state)
{
    (void)state;
    WD_EXPECT_CHILD(CHILD_SECONDS, child_realtime_offset_narrows, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_inside_the_first_calibration_return_local_answers_at_once),
        cmocka_unit_test(test_signal_handler_calls_during_init_and_resync_return),
        cmocka_unit_test(test_clock_read_inside_a_clock_publish_returns_at_once),
        cmocka_unit_test(test_fork_during_another_threads_calibration_leaves_the_child_a_first_use),
        cmocka_unit_test(test_fork_during_another_threads_clock_publish_leaves_the_child_a_clock),
        cmocka_unit_test(test_siglongjmp_out_of_the_calibration_leaves_a_usable_library),
        cmocka_unit_test(test_siglongjmp_out_of_a_clock_publish_leaves_a_usable_clock),
        cmocka_unit_test(test_readers_never_wait_on_a_frequency_publish),
        cmocka_unit_test(test_readers_never_wait_on_a_clock_publish),
        cmocka_unit_test(test_cpu_without_sse2_is_read_without_lfence_and_never_goes_back),
        cmocka_unit_test(test_old_amd_cpu_fences_its_reads_with_mfence),
        cmocka_unit_test(test_merge_counts_migrations_of_an_object_with_no_samples),
        cmocka_unit_test(test_rdtsc_forbidden_in_the_choosing_thread_is_what_every_thread_reports),
        cmocka_unit_test(test_a_realtime_offset_measured_disturbed_is_replaced_by_a_narrower_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
