/* SPDX-License-Identifier: MIT */
/*
 * tsc_timer.h - cheap, correctly ordered timestamps and exact tick conversion.
 * One header, C99/C++11 or later, no build step, no macro needed to use it.
 *
 * USAGE
 *
 *     #include "tsc_timer.h"
 *
 *     uint64_t t0 = tsc_ticks_before();        // fenced: nothing before leaks in
 *     work();
 *     uint64_t t1 = tsc_ticks_after();         // fenced: nothing after leaks in
 *     uint64_t ticks = t1 - t0 - tsc_overhead_ticks();   // or tsc_sub_overhead()
 *     printf("%llu ticks = %llu ns\n", (unsigned long long)ticks,
 *            (unsigned long long)tsc_ticks_to_ns(ticks));
 *
 * A clock, for timestamps: tsc_now_ns() (CLOCK_MONOTONIC-compatible) and
 * tsc_now_realtime_ns() (CLOCK_REALTIME-compatible) cost less than half
 * of clock_gettime; call tsc_clock_resync() about once a second (from any
 * thread) to keep them within a microsecond of the system clocks.
 *
 * The first conversion calibrates the counter once for the whole process
 * (about 8 ms of busy-waiting on x86; nothing on platforms whose counter
 * frequency is architectural). Call tsc_ticks_per_second() at start-up to
 * take that cost where it suits you.
 *
 * COUNTERS (chosen once, below, in "Platform choice")
 *
 *   x86-64, i386   TSC. Before a region LFENCE;RDTSC;LFENCE, after it
 *                  RDTSCP;LFENCE (LFENCE;RDTSC;LFENCE where CPUID denies
 *                  RDTSCP). Frequency measured against CLOCK_MONOTONIC (QPC
 *                  on Windows). If Linux forbids RDTSC for the process
 *                  (prctl PR_SET_TSC) the OS clock is read instead.
 *   AArch64        CNTVCT_EL0 after ISB; frequency CNTFRQ_EL0 (exact).
 *   ARMv7 Linux    CNTVCT where the kernel runs the generic timer (it then
 *                  sets HWCAP_EVTSTRM); frequency CNTFRQ (exact). Else the
 *                  OS clock.
 *   PPC64, PPC32   time base; frequency from glibc, measured where it is 0.
 *   RISC-V         rdtime (never rdcycle: Linux 6.6 made it trap);
 *                  frequency measured.
 *   s390x          STCKF, TOD clock: exactly 4096 units per microsecond.
 *   LoongArch64    rdtime.d; frequency from CPUCFG words 4 and 5 (exact).
 *   Apple, non-x86 mach_absolute_time; mach_timebase_info (exact).
 *   Windows,non-x86 QueryPerformanceCounter; QueryPerformanceFrequency.
 *   anything else  clock_gettime(CLOCK_MONOTONIC) in ns; 1e9 (exact).
 *
 * CONFIGURATION (define before including; every unit of a program alike)
 *
 *   TSC_TIMER_FORCE_FALLBACK  read the OS clock everywhere (tests that path).
 *   TSC_TIMER_NO_RDTSCP       never execute RDTSCP, whatever CPUID says.
 *   TSC_CALIBRATION_SECONDS   busy-wait of the first-use calibration
 *                             (default 0.008).
 *
 * SHARING ONE CALIBRATION
 *
 * Every function is static inline; the process-wide state (counter mode,
 * frequency, conversion factors) is one weak symbol, tsc__g (selectany on
 * Windows), so all units of a program that include this header share it and
 * the linker keeps one copy. A shared library built with hidden visibility
 * gets its own copy (and so calibrates once more). The state is guarded by a
 * sequence lock, so a recalibration is seen whole or not at all.
 *
 * The RDTSC permission (prctl) is checked once per process, at first use.
 *
 * MEASURING HOT LOOPS (section "measurement helpers", at the end)
 *
 *     static struct tsc_stats st;             // ~30 KiB: static or heap
 *     tsc_stats_init(&st);
 *     for (i = 0; i < n; i++) {
 *         TSC_START(t);                       // const uint64_t t = before
 *         work(i);
 *         TSC_END(t, &st);                    // st += after - t
 *     }
 *     tsc_stats_print(&st, "work", stdout);   // table + histogram
 *
 * TSC_MEASURE(&st) { ... } times a block; struct tsc_regions times
 * back-to-back phases with one counter read per boundary.
 */
#ifndef TSC_TIMER_H
#define TSC_TIMER_H

#define TSC_TIMER_VERSION_MAJOR 1
#define TSC_TIMER_VERSION_MINOR 0
#define TSC_TIMER_VERSION_PATCH 0

#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <errno.h>

#ifndef TSC_CALIBRATION_SECONDS
#define TSC_CALIBRATION_SECONDS 0.008
#endif

/* ------------------------------------------------------------------------ */
/* Platform choice: the one place that picks the counter.                   */
/* ------------------------------------------------------------------------ */

#if defined(_WIN32)
#define TSC__WINDOWS 1
#elif defined(__APPLE__)
#define TSC__APPLE 1
#elif defined(__linux__)
#define TSC__LINUX 1
#endif

#if defined(TSC_TIMER_FORCE_FALLBACK)
#define TSC__OSCLOCK 1
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define TSC__X86 1
#define TSC__X86_GNU 1
#elif (defined(_M_X64) || defined(_M_IX86)) && defined(_MSC_VER)
#define TSC__X86 1
#define TSC__X86_MSVC 1
#elif defined(TSC__APPLE)
#define TSC__MACH 1
#elif defined(TSC__WINDOWS)
#define TSC__QPC 1
#elif defined(__aarch64__) && defined(__GNUC__)
#define TSC__AARCH64 1
#elif defined(__arm__) && defined(__GNUC__) && defined(TSC__LINUX) && \
    (defined(__ARM_ARCH_7A__) || (defined(__ARM_ARCH) && __ARM_ARCH >= 7 && \
     defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'A'))
#define TSC__ARMV7 1
#elif (defined(__powerpc64__) || defined(__ppc64__)) && defined(__GNUC__)
#define TSC__PPC64 1
#elif (defined(__powerpc__) || defined(__ppc__)) && defined(__GNUC__)
#define TSC__PPC32 1
#elif defined(__riscv) && defined(__GNUC__)
#define TSC__RISCV 1
#elif defined(__s390x__) && defined(__GNUC__)
#define TSC__S390X 1
#elif defined(__loongarch64) && defined(__GNUC__)
#define TSC__LOONGARCH 1
#else
#define TSC__OSCLOCK 1
#endif

/* Counters whose frequency no register states: they are measured. The OS
 * clock fallback on x86 (RDTSC forbidden) is decided at run time. */
#if defined(TSC__X86) || defined(TSC__PPC64) || defined(TSC__PPC32) || \
    defined(TSC__RISCV)
#define TSC__MEASURED 1
#endif

#if defined(TSC__WINDOWS)
#include <windows.h>
#if defined(_MSC_VER)
#include <intrin.h>
#endif
#else
#include <time.h>
#endif
#if defined(TSC__X86_GNU)
#include <cpuid.h>
#endif
#if defined(TSC__LINUX)
#include <sys/prctl.h>
#include <sys/syscall.h>
#if defined(TSC__ARMV7)
#include <sys/auxv.h>
#endif
#endif
#if defined(TSC__APPLE)
#include <mach/mach_time.h>
#endif
#if (defined(TSC__PPC64) || defined(TSC__PPC32)) && defined(__GLIBC__)
#include <sys/platform/ppc.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Public API                                                               */
/* ------------------------------------------------------------------------ */

/* What the CPU and OS say about the counter. 1 = yes, 0 = no. Fields that do
 * not apply to this platform are 0. */
struct tsc_features {
    int has_counter;         /* a user-readable hardware counter is used     */
    int has_tsc;             /* x86: CPUID.1:EDX[4]                          */
    int has_rdtscp;          /* x86: CPUID.80000001h:EDX[27] (may lie: VMs)  */
    int has_invariant_tsc;   /* x86: CPUID.80000007h:EDX[8], constant rate   */
    int os_allows_counter;   /* Linux x86: prctl(PR_GET_TSC) == PR_TSC_ENABLE */
    int hypervisor;          /* x86: CPUID.1:ECX[31]                         */
    int uses_rdtscp;         /* tsc_ticks_after() executes RDTSCP            */
    int frequency_is_architectural; /* exact from a register/OS, not measured */
    double cpuid_15_hz;      /* x86: crystal x EBX/EAX from leaf 0x15, or 0   */
    double cpuid_16_hz;      /* x86: base MHz from leaf 0x16 (nominal), or 0  */
    double hypervisor_hz;    /* x86: leaf 0x40000010 EAX kHz, or 0           */
    double architectural_hz; /* the exact frequency where there is one, or 0 */
};

/* One calibration: what was found and how well. */
struct tsc_calibration {
    double ticks_per_second; /* counter frequency, Hz                        */
    double uncertainty_ppm;  /* bound on the error vs the reference clock    */
    double seconds_spent;    /* wall time the calibration took               */
    const char *method;      /* e.g. "measured against CLOCK_MONOTONIC"      */
    uint64_t samples;        /* bracketed clock reads used (0: architectural) */
    uint64_t bracket_ticks;  /* narrowest counter|clock|counter bracket      */
};

/* Counter read to take before a region: later instructions cannot start
 * before it, earlier ones have completed. Ticks; ~10-25 ns on x86. */
static inline uint64_t tsc_ticks_before(void);
/* Counter read to take after a region: the region has completed before it,
 * later instructions cannot start before it. Ticks. */
static inline uint64_t tsc_ticks_after(void);
/* As tsc_ticks_after(), and stores the CPU it ran on (UINT32_MAX if unknown)
 * in *cpu: from RDTSCP's TSC_AUX on Linux x86, else sched_getcpu(). */
static inline uint64_t tsc_ticks_after_cpu(uint32_t *cpu);
/* As tsc_ticks_before(), plus the CPU it starts on (taken just before the
 * read, so the query is not timed), for samples that must not migrate. */
static inline uint64_t tsc_ticks_before_cpu(uint32_t *cpu);
/* Which counter this process reads, e.g. "AArch64 CNTVCT_EL0". */
static inline const char *tsc_counter_name(void);
/* CPU and OS facts about the counter (CPUID; costs microseconds in a VM). */
static inline struct tsc_features tsc_features(void);
/* Counter frequency in Hz. The first call in the process calibrates
 * (TSC_CALIBRATION_SECONDS) unless the frequency is architectural; later
 * calls cost a few loads. Thread-safe: concurrent first callers all wait for
 * the one calibration and get the same value. */
static inline double tsc_ticks_per_second(void);
/* Measures the frequency over `seconds` of busy-waiting (or takes the
 * architectural one at once) and makes it the one every conversion uses.
 * 0 on success; -EINVAL for seconds <= 0, NaN, infinite or above 60, or a
 * NULL out, and then nothing changes. */
static inline int tsc_calibrate(double seconds, struct tsc_calibration *out);
/* The calibration behind the frequency in use (calibrating if none yet).
 * 0, or -EINVAL for a NULL out. */
static inline int tsc_current_calibration(struct tsc_calibration *out);
/* Ticks to nanoseconds, rounded to nearest: within 1 ns of ticks*1e9/Hz for
 * every 64-bit input, UINT64_MAX where the result does not fit. A 128-bit
 * multiply; ~1-2 ns. */
static inline uint64_t tsc_ticks_to_ns(uint64_t ticks);
/* Ticks to seconds, as a double. */
static inline double tsc_ticks_to_seconds(uint64_t ticks);
/* Nanoseconds to ticks, rounded to nearest, saturating at UINT64_MAX. */
static inline uint64_t tsc_ns_to_ticks(uint64_t ns);
/* Ticks of an empty before/after region (the minimum of 2048), measured once
 * per process and cached. Subtract it to time short regions. */
static inline uint64_t tsc_overhead_ticks(void);
/* ticks - tsc_overhead_ticks(), or 0 where that would go below zero. */
static inline uint64_t tsc_sub_overhead(uint64_t ticks);

/* A clock: the counter converted to nanoseconds on a line kept locked to
 * the system clocks. Less than half the cost of clock_gettime on x86 Linux
 * (a plain RDTSC, a sequence-lock read and a multiply; ~11 ns). The first
 * call sets it up (calibrating first if needed). Where the counter is the
 * OS clock these are the OS clock itself. Thread-safe. */
/* CLOCK_MONOTONIC-compatible nanoseconds (QPC-based on Windows); never goes
 * backwards within a thread, across resyncs too. */
static inline uint64_t tsc_now_ns(void);
/* CLOCK_REALTIME-compatible nanoseconds since 1970: tsc_now_ns() plus the
 * realtime - monotonic offset measured at the last resync, so a step of the
 * realtime clock (settimeofday) shows at the next resync. */
static inline uint64_t tsc_now_realtime_ns(void);
/* Measures the clock's offset and rate against the system clock and steers
 * the line towards it (bounded slew, never a step back). Call it about once
 * a second, from any thread (calls take turns); readers never wait on the
 * measurement, only on the few stores that publish its result. 0, or
 * -EAGAIN when no clean measurement could be taken (a loaded machine), and
 * then nothing changes. 0 at once where the counter is the OS clock. */
static inline int tsc_clock_resync(void);

/* ------------------------------------------------------------------------ */
/* Implementation. Everything below is private (tsc__ prefix).              */
/* ------------------------------------------------------------------------ */

#if defined(__GNUC__) || defined(__clang__)
#define TSC__LIKELY(x) __builtin_expect(!!(x), 1)
#define TSC__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TSC__NOINLINE __attribute__((noinline, cold, unused))
#else
#define TSC__LIKELY(x) (x)
#define TSC__UNLIKELY(x) (x)
#define TSC__NOINLINE __declspec(noinline)
#endif

/* How tsc_ticks_* read the counter; decided at first use. */
enum {
    TSC__MODE_UNKNOWN = 0,
    TSC__MODE_RDTSCP = 1,   /* x86: after = RDTSCP;LFENCE                  */
    TSC__MODE_RDTSC = 2,    /* x86: after = LFENCE;RDTSC;LFENCE            */
    TSC__MODE_OS = 3,       /* OS clock: RDTSC forbidden or missing        */
    TSC__MODE_NATIVE = 4    /* this platform's own counter (non-x86)       */
};

/* Where the frequency in use came from (index into tsc__method_names). */
enum {
    TSC__SRC_NONE, TSC__SRC_MEASURED_MONO, TSC__SRC_MEASURED_QPC,
    TSC__SRC_OS_NS, TSC__SRC_CNTFRQ, TSC__SRC_QPF, TSC__SRC_MACH,
    TSC__SRC_TOD, TSC__SRC_CPUCFG, TSC__SRC_PPC_GLIBC
};

static inline const char *tsc__method_name(uint32_t src)
{
    static const char *const names[] = {
        "none", "measured against CLOCK_MONOTONIC",
        "measured against QueryPerformanceCounter",
        "architectural: OS clock nanoseconds", "architectural: CNTFRQ",
        "architectural: QueryPerformanceFrequency",
        "architectural: mach_timebase_info",
        "architectural: s390x TOD clock, 4096 per microsecond",
        "architectural: LoongArch CPUCFG 4 and 5",
        "glibc __ppc_get_timebase_freq"};
    return src < sizeof names / sizeof names[0] ? names[src] : "unknown";
}

/* The TSC clock's line (see "TSC clock" below). Fields up to real_off are
 * written under `seq`; those after it belong to the writer holding `busy`. */
struct tsc__clock {
    uint32_t seq;        /* 0 not set up; odd while being written           */
    uint32_t busy;       /* 1 while a setup or resync runs (one writer)     */
    uint64_t base_ticks; /* the line's start, counter ticks                 */
    uint64_t base_ns;    /* the line at base_ticks, monotonic ns            */
    uint64_t mul_hi, mul_lo; /* its slope, ns per tick, 64.64 fixed point   */
    uint64_t end_ticks;  /* the slew's end, counter ticks                   */
    uint64_t end_ns;     /* the line there                                  */
    uint64_t rate_hi, rate_lo; /* the clock's rate after it, 64.64         */
    uint64_t real_off;   /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns, mod 2^64  */
    uint64_t ref_mid, ref_ns; /* rate reference: ticks, monotonic ns        */
    uint64_t last_ns;    /* monotonic ns at the last measurement            */
    uint64_t rate;       /* double bits: the clock's measured ns per tick   */
    uint64_t narrow;     /* narrowest bracket seen, ticks                   */
    uint64_t cand;       /* double bits: the last span's rate, ns per tick  */
};

/* Process-wide state, one symbol for the whole program. Fields after `seq`
 * are written only under the sequence lock and read only through
 * tsc__read_state(). */
struct tsc__state {
    uint32_t mode;      /* TSC__MODE_*                                      */
    uint32_t once;      /* default calibration: 0 not started, 1 started    */
    uint32_t seq;       /* 0 no frequency yet; odd while being written      */
    uint32_t overhead;  /* empty-region ticks + 1; 0 until measured         */
    uint64_t hz;        /* double bits: ticks per second                    */
    uint64_t sec;       /* double bits: seconds per tick                    */
    uint64_t ns_hi, ns_lo; /* nanoseconds per tick, 64.64 fixed point       */
    uint64_t tk_hi, tk_lo; /* ticks per nanosecond, 64.64 fixed point       */
    uint64_t unc;       /* double bits: uncertainty, ppm                    */
    uint64_t spent;     /* double bits: seconds the calibration took        */
    uint64_t samples, bracket;
    uint64_t src;       /* TSC__SRC_*                                       */
    struct tsc__clock clk; /* the TSC clock, its own sequence lock          */
};

#if defined(_MSC_VER) || defined(__MINGW32__) || defined(__CYGWIN__)
#define TSC__SHARED __declspec(selectany)
#else
#define TSC__SHARED __attribute__((weak))
#endif
#ifdef __cplusplus
TSC__SHARED struct tsc__state tsc__g = {};
#else
TSC__SHARED struct tsc__state tsc__g = {0};
#endif

/* --- atomics: GCC/Clang builtins; MSVC: volatile on x86, else interlocked */

#if defined(__GNUC__) || defined(__clang__)
#define TSC__LD32(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define TSC__ST32(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define TSC__RLX32(p) __atomic_load_n((p), __ATOMIC_RELAXED)
static inline int tsc__cas32(uint32_t *p, uint32_t expect, uint32_t want)
{
    return __atomic_compare_exchange_n(p, &expect, want, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}
#if UINTPTR_MAX > 0xFFFFFFFFu
#define TSC__LD64(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define TSC__ST64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define TSC__READ_FENCE() ((void)0) /* the acquire loads order the re-check */
#else /* 32-bit: no cheap 64-bit atomics; the sequence lock catches tears */
#define TSC__LD64(p) (*(volatile uint64_t *)(p))
#define TSC__ST64(p, v) (*(volatile uint64_t *)(p) = (v))
#define TSC__READ_FENCE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif
#elif defined(_M_IX86) || defined(_M_X64)
/* MSVC on x86: loads and stores are ordered (TSO); stop the compiler. */
#define TSC__LD32(p) (_ReadWriteBarrier(), *(volatile uint32_t *)(p))
#define TSC__ST32(p, v) (_ReadWriteBarrier(), *(volatile uint32_t *)(p) = (v))
#define TSC__RLX32(p) (*(volatile uint32_t *)(p))
#define TSC__LD64(p) (_ReadWriteBarrier(), *(volatile uint64_t *)(p))
#define TSC__ST64(p, v) (_ReadWriteBarrier(), *(volatile uint64_t *)(p) = (v))
#define TSC__READ_FENCE() _ReadWriteBarrier()
#else
/* MSVC elsewhere (ARM64): volatile orders nothing under /volatile:iso, so
 * the ordered accesses are interlocked operations (full barriers). */
#define TSC__LD32(p) ((uint32_t)_InterlockedOr((volatile long *)(p), 0))
#define TSC__ST32(p, v) ((void)_InterlockedExchange((volatile long *)(p), (long)(v)))
#define TSC__RLX32(p) (*(volatile uint32_t *)(p))
#define TSC__LD64(p) ((uint64_t)_InterlockedOr64((volatile __int64 *)(p), 0))
#define TSC__ST64(p, v) ((void)_InterlockedExchange64((volatile __int64 *)(p), (__int64)(v)))
#define TSC__READ_FENCE() ((void)0) /* the interlocked loads are barriers */
#endif
#if !defined(__GNUC__) && !defined(__clang__)
static inline int tsc__cas32(uint32_t *p, uint32_t expect, uint32_t want)
{
    return (uint32_t)_InterlockedCompareExchange((volatile long *)p,
                                                 (long)want, (long)expect) ==
           expect;
}
#endif

static inline void tsc__pause(void)
{
#if defined(TSC__X86_GNU)
    __asm__ __volatile__("pause");
#elif defined(TSC__X86_MSVC)
    _mm_pause();
#endif
}

static inline uint64_t tsc__dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline double tsc__bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* --- the OS clock: nanoseconds, and the calibration reference ----------- */

#if defined(TSC__LINUX) && !defined(CLOCK_MONOTONIC)
/* Strict ISO modes (-std=c99) hide clock_gettime. Bind to the symbol under
 * a private name with the layout every Linux libc gives its legacy
 * clock_gettime: two longs. */
struct tsc__timespec { long tv_sec; long tv_nsec; };
extern int tsc__clock_gettime(int, struct tsc__timespec *) __asm__("clock_gettime");
#define TSC__CLOCK_MONOTONIC 1
#define TSC__CLOCK_REALTIME 0
#define TSC__TIMESPEC struct tsc__timespec
#define TSC__CLOCK_GETTIME tsc__clock_gettime
#elif !defined(TSC__WINDOWS)
#define TSC__CLOCK_MONOTONIC CLOCK_MONOTONIC
#define TSC__CLOCK_REALTIME CLOCK_REALTIME
#define TSC__TIMESPEC struct timespec
#define TSC__CLOCK_GETTIME clock_gettime
#endif

#if defined(TSC__LINUX) && defined(__GNUC__)
/* sched_getcpu() and syscall() are declared only under _GNU_SOURCE or
 * _DEFAULT_SOURCE; bind to them privately. */
extern int tsc__sched_getcpu(void) __asm__("sched_getcpu");
#if defined(TSC__X86) && defined(SYS_clock_gettime) && \
    !(defined(__x86_64__) && defined(__ILP32__))
#define TSC__CLOCK_SYSCALL 1
extern long tsc__syscall(long, ...) __asm__("syscall");
#endif
#endif

static inline uint32_t tsc__mode(void);

#if defined(TSC__WINDOWS)
static inline uint64_t tsc__qpc(void)
{
    LARGE_INTEGER v;
    QueryPerformanceCounter(&v);
    return (uint64_t)v.QuadPart;
}
static inline uint64_t tsc__qpf(void)
{
    LARGE_INTEGER v;
    QueryPerformanceFrequency(&v);
    return (uint64_t)v.QuadPart;
}
/* QPC units to nanoseconds, without overflowing the product. */
static inline uint64_t tsc__qpc_ns(uint64_t c)
{
    uint64_t f = tsc__qpf();
    return c / f * UINT64_C(1000000000) + c % f * UINT64_C(1000000000) / f;
}
#endif

/* Reads a clock in nanoseconds (monotonic, or realtime since 1970). */
static inline uint64_t tsc__os_ns(int realtime)
{
#if defined(TSC__WINDOWS)
    if (realtime) {
        FILETIME ft; /* 100 ns units since 1601 */
        uint64_t t;
        GetSystemTimePreciseAsFileTime(&ft);
        t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
        return (t - UINT64_C(116444736000000000)) * 100u;
    } else {
        return tsc__qpc_ns(tsc__qpc());
    }
#else
    TSC__TIMESPEC ts;
#if defined(TSC__CLOCK_SYSCALL)
    if (TSC__UNLIKELY(tsc__mode() == TSC__MODE_OS)) {
        /* RDTSC forbidden: the vDSO's clock_gettime reads the TSC itself
         * and would fault too, so ask the kernel. */
        struct { long tv_sec, tv_nsec; } k = {0, 0}; /* stays 0 if it failed */
        tsc__syscall((long)SYS_clock_gettime, (long)(realtime ? 0 : 1), &k);
        return (uint64_t)k.tv_sec * UINT64_C(1000000000) + (uint64_t)k.tv_nsec;
    }
#endif
    TSC__CLOCK_GETTIME(realtime ? TSC__CLOCK_REALTIME : TSC__CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
#endif
}

/* The clock a measured frequency is calibrated against, in its own units. */
static inline uint64_t tsc__ref_read(void)
{
#if defined(TSC__WINDOWS)
    return tsc__qpc();
#else
    return tsc__os_ns(0);
#endif
}
static inline double tsc__ref_hz(void)
{
#if defined(TSC__WINDOWS)
    return (double)tsc__qpf();
#else
    return 1e9;
#endif
}

/* --- x86: CPUID --------------------------------------------------------- */

#if defined(TSC__X86)
static inline void tsc__cpuid(uint32_t leaf, uint32_t r[4])
{
#if defined(TSC__X86_GNU)
    __cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
#else
    int v[4];
    __cpuidex(v, (int)leaf, 0);
    r[0] = (uint32_t)v[0]; r[1] = (uint32_t)v[1];
    r[2] = (uint32_t)v[2]; r[3] = (uint32_t)v[3];
#endif
}
/* The leaf's registers, or zeros where the CPU does not have the leaf. */
static inline void tsc__cpuid_leaf(uint32_t leaf, uint32_t r[4])
{
    uint32_t max[4];
    tsc__cpuid(leaf & 0xF0000000u, max);
    r[0] = r[1] = r[2] = r[3] = 0;
    if (max[0] >= leaf)
        tsc__cpuid(leaf, r);
}
#endif

/* 1 when the OS lets this process read the hardware counter. */
static inline int tsc__os_allows_counter(void)
{
#if defined(TSC__LINUX) && (defined(TSC__X86) || defined(TSC__ARMV7)) && \
    defined(PR_GET_TSC)
#if defined(TSC__X86)
    int v = 0;
    /* PR_GET_TSC fails only on kernels without it: they always allow. */
    if (prctl(PR_GET_TSC, &v, 0, 0, 0) == 0 && v == PR_TSC_SIGSEGV)
        return 0;
    return 1;
#else
    return 1;
#endif
#elif defined(TSC__ARMV7)
    return 1;
#else
    return 1;
#endif
}

/* --- counter reads ------------------------------------------------------ */

/* x86 fencing. LFENCE waits until every earlier instruction has completed
 * locally and keeps later ones from starting, so LFENCE;RDTSC;LFENCE reads
 * the TSC after the code before it and before the code after it. RDTSCP
 * already waits for earlier instructions (not stores, which the region's
 * duration need not include); the LFENCE after it keeps the following code
 * from starting early. "memory" stops the compiler moving loads and stores
 * across the read. */
#if defined(TSC__X86_GNU)
static inline uint64_t tsc__rdtsc_fenced(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}
static inline uint64_t tsc__rdtscp_fenced(uint32_t *aux)
{
    uint32_t lo, hi, c;
    __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(c) : : "memory");
    *aux = c;
    return ((uint64_t)hi << 32) | lo;
}
#elif defined(TSC__X86_MSVC)
static inline uint64_t tsc__rdtsc_fenced(void)
{
    uint64_t t;
    _mm_lfence();
    t = __rdtsc();
    _mm_lfence();
    return t;
}
static inline uint64_t tsc__rdtscp_fenced(uint32_t *aux)
{
    unsigned int c;
    uint64_t t = __rdtscp(&c);
    _mm_lfence();
    *aux = c;
    return t;
}
#endif

#if defined(TSC__ARMV7)
static inline uint64_t tsc__cntvct32(void)
{
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrrc p15, 1, %Q0, %R0, c14" : "=r"(v) : : "memory");
    return v;
}
#endif

/* This platform's own counter, ordered after earlier instructions. */
static inline uint64_t tsc__native_read(void)
{
#if defined(TSC__AARCH64)
    uint64_t v;
    /* ISB: the read happens after every earlier instruction. */
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
#elif defined(TSC__ARMV7)
    return tsc__cntvct32();
#elif defined(TSC__PPC64)
    uint64_t v;
    __asm__ __volatile__("isync\n\tmfspr %0, 268" : "=r"(v) : : "memory");
    return v;
#elif defined(TSC__PPC32)
    /* Re-read the upper half until it is stable across the lower read. */
    uint32_t hi, lo, hi2;
    do {
        __asm__ __volatile__("mftbu %0" : "=r"(hi) : : "memory");
        __asm__ __volatile__("mftb %0" : "=r"(lo) : : "memory");
        __asm__ __volatile__("mftbu %0" : "=r"(hi2) : : "memory");
    } while (hi != hi2);
    return ((uint64_t)hi << 32) | lo;
#elif defined(TSC__RISCV) && __riscv_xlen == 64
    uint64_t v;
    __asm__ __volatile__("fence\n\trdtime %0" : "=r"(v) : : "memory");
    return v;
#elif defined(TSC__RISCV)
    uint32_t hi, lo, hi2;
    do {
        __asm__ __volatile__("rdtimeh %0" : "=r"(hi) : : "memory");
        __asm__ __volatile__("rdtime %0" : "=r"(lo) : : "memory");
        __asm__ __volatile__("rdtimeh %0" : "=r"(hi2) : : "memory");
    } while (hi != hi2);
    return ((uint64_t)hi << 32) | lo;
#elif defined(TSC__S390X)
    uint64_t v;
    __asm__ __volatile__("stckf %0" : "=Q"(v) : : "memory", "cc");
    return v;
#elif defined(TSC__LOONGARCH)
    uint64_t v;
    __asm__ __volatile__("dbar 0\n\trdtime.d %0, $zero" : "=r"(v) : : "memory");
    return v;
#elif defined(TSC__MACH)
    return mach_absolute_time();
#elif defined(TSC__QPC)
    return tsc__qpc();
#else
    return tsc__os_ns(0);
#endif
}

/* Decides once how this process reads the counter. */
static TSC__NOINLINE uint32_t tsc__detect_mode(void)
{
    uint32_t mode = TSC__MODE_NATIVE;
#if defined(TSC__X86)
    uint32_t r[4];
    tsc__cpuid_leaf(1, r);
    if (!((r[3] >> 4) & 1u) || !tsc__os_allows_counter()) {
        mode = TSC__MODE_OS;
    } else {
        tsc__cpuid_leaf(0x80000001u, r);
        mode = ((r[3] >> 27) & 1u) ? TSC__MODE_RDTSCP : TSC__MODE_RDTSC;
#if defined(TSC_TIMER_NO_RDTSCP)
        mode = TSC__MODE_RDTSC;
#endif
    }
#elif defined(TSC__ARMV7)
    /* Linux sets HWCAP_EVTSTRM when it runs the generic timer, and then
     * also opens CNTVCT to user space. Without it (no generic timer, or an
     * emulator that traps the read) use the OS clock. */
    if (!(getauxval(AT_HWCAP) & (1ul << 21))) /* HWCAP_EVTSTRM */
        mode = TSC__MODE_OS;
#elif defined(TSC__OSCLOCK)
    mode = TSC__MODE_OS;
#endif
    TSC__ST32(&tsc__g.mode, mode);
    return mode;
}

static inline uint32_t tsc__mode(void)
{
    uint32_t m = TSC__RLX32(&tsc__g.mode);
    return TSC__LIKELY(m != TSC__MODE_UNKNOWN) ? m : tsc__detect_mode();
}

/* Where the mode says the OS clock: its own units (ns; QPC ticks on
 * Windows, whose frequency is then the exact QPF). */
static inline uint64_t tsc__os_counter(void)
{
#if defined(TSC__WINDOWS)
    return tsc__qpc();
#else
    return tsc__os_ns(0);
#endif
}

static TSC__NOINLINE uint64_t tsc__before_slow(void)
{
    uint32_t m = tsc__mode();
#if defined(TSC__X86)
    if (m == TSC__MODE_RDTSCP || m == TSC__MODE_RDTSC)
        return tsc__rdtsc_fenced();
#endif
    if (m == TSC__MODE_OS)
        return tsc__os_counter();
    return tsc__native_read();
}

/* The CPU from an RDTSCP's TSC_AUX: Linux stores node << 12 | cpu there;
 * Windows does not say, so ask it; elsewhere unknown. */
static inline uint32_t tsc__aux_cpu(uint32_t aux)
{
#if defined(TSC__LINUX)
    return aux & 0xFFFu;
#elif defined(TSC__WINDOWS)
    (void)aux;
    return (uint32_t)GetCurrentProcessorNumber();
#else
    (void)aux;
    return UINT32_MAX;
#endif
}

static TSC__NOINLINE uint64_t tsc__after_slow(uint32_t *cpu)
{
    uint32_t m = tsc__mode(), aux = UINT32_MAX;
    uint64_t t;
#if defined(TSC__X86)
    if (m == TSC__MODE_RDTSCP) {
        t = tsc__rdtscp_fenced(&aux);
        if (cpu)
            *cpu = tsc__aux_cpu(aux);
        return t;
    }
    if (m == TSC__MODE_RDTSC)
        t = tsc__rdtsc_fenced();
    else
#endif
    if (m == TSC__MODE_OS)
        t = tsc__os_counter();
    else
        t = tsc__native_read();
    if (cpu) {
#if defined(TSC__LINUX)
        int c = tsc__sched_getcpu();
        aux = c >= 0 ? (uint32_t)c : UINT32_MAX;
#elif defined(TSC__WINDOWS)
        aux = (uint32_t)GetCurrentProcessorNumber();
#endif
        *cpu = aux;
    }
    return t;
}

static inline uint64_t tsc_ticks_before(void)
{
#if defined(TSC__X86)
    /* Both TSC modes read the same way before a region. */
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.mode) - 1u < 2u))
        return tsc__rdtsc_fenced();
    return tsc__before_slow();
#elif defined(TSC__OSCLOCK)
    return tsc__os_counter();
#else
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.mode) == TSC__MODE_NATIVE)) {
        uint64_t t = tsc__native_read();
#if defined(TSC__AARCH64) || defined(TSC__ARMV7)
        /* Keep the region from starting before the read. */
        __asm__ __volatile__("isb" : : : "memory");
#endif
        return t;
    }
    return tsc__before_slow();
#endif
}

static inline uint64_t tsc_ticks_after(void)
{
#if defined(TSC__X86)
    uint32_t m = TSC__RLX32(&tsc__g.mode), aux;
    if (TSC__LIKELY(m == TSC__MODE_RDTSCP))
        return tsc__rdtscp_fenced(&aux);
    if (TSC__LIKELY(m == TSC__MODE_RDTSC))
        return tsc__rdtsc_fenced();
    return tsc__after_slow(NULL);
#elif defined(TSC__OSCLOCK)
    return tsc__os_counter();
#else
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.mode) == TSC__MODE_NATIVE))
        return tsc__native_read();
    return tsc__after_slow(NULL);
#endif
}

static inline uint64_t tsc_ticks_after_cpu(uint32_t *cpu)
{
    uint32_t dummy;
#if defined(TSC__X86) && defined(TSC__LINUX)
    /* RDTSCP gives the CPU with the read, so the end of a region costs
     * what tsc_ticks_after() does. */
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.mode) == TSC__MODE_RDTSCP)) {
        uint64_t t = tsc__rdtscp_fenced(&dummy);
        if (cpu)
            *cpu = tsc__aux_cpu(dummy);
        return t;
    }
#endif
    return tsc__after_slow(cpu ? cpu : &dummy);
}

static inline uint64_t tsc_ticks_before_cpu(uint32_t *cpu)
{
    /* The CPU first, then the fenced start: the query (RDTSCP, or
     * sched_getcpu) stays out of the region. A move between the two shows
     * as a change of CPU at the region's end, like any other. */
    if (cpu)
        tsc__after_slow(cpu);
    return tsc_ticks_before();
}

static inline const char *tsc_counter_name(void)
{
    switch (tsc__mode()) {
#if defined(TSC__X86)
    case TSC__MODE_RDTSCP: return "x86 TSC (LFENCE;RDTSC;LFENCE / RDTSCP;LFENCE)";
    case TSC__MODE_RDTSC: return "x86 TSC (LFENCE;RDTSC;LFENCE, no RDTSCP)";
#endif
    case TSC__MODE_OS:
#if defined(TSC_TIMER_FORCE_FALLBACK)
        return "OS clock (TSC_TIMER_FORCE_FALLBACK)";
#elif defined(TSC__X86)
        return tsc__os_allows_counter()
                   ? "OS clock (CPU has no TSC)"
                   : "OS clock (RDTSC forbidden by prctl PR_SET_TSC)";
#elif defined(TSC__ARMV7)
        return "OS clock (no ARM generic timer)";
#else
        return "OS clock (no counter for this platform)";
#endif
    default: break;
    }
#if defined(TSC__AARCH64)
    return "AArch64 CNTVCT_EL0";
#elif defined(TSC__ARMV7)
    return "ARMv7 CNTVCT";
#elif defined(TSC__PPC64) || defined(TSC__PPC32)
    return "PowerPC time base";
#elif defined(TSC__RISCV)
    return "RISC-V rdtime";
#elif defined(TSC__S390X)
    return "s390x TOD clock (STCKF)";
#elif defined(TSC__LOONGARCH)
    return "LoongArch rdtime.d";
#elif defined(TSC__MACH)
    return "mach_absolute_time";
#elif defined(TSC__QPC)
    return "QueryPerformanceCounter";
#else
    return "unknown";
#endif
}

/* --- frequency ---------------------------------------------------------- */

/* The exact frequency where a register or the OS states it, else 0. */
static inline double tsc__architectural_hz(uint32_t *src)
{
    if (tsc__mode() == TSC__MODE_OS) {
        *src = TSC__SRC_OS_NS;
#if defined(TSC__WINDOWS)
        *src = TSC__SRC_QPF;
        return (double)tsc__qpf();
#endif
        return 1e9;
    }
#if defined(TSC__AARCH64)
    {
        uint64_t f;
        __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
        *src = TSC__SRC_CNTFRQ;
        return (double)f;
    }
#elif defined(TSC__ARMV7)
    {
        uint32_t f;
        __asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(f));
        *src = TSC__SRC_CNTFRQ;
        return (double)f;
    }
#elif defined(TSC__S390X)
    *src = TSC__SRC_TOD;
    return 4.096e9;
#elif defined(TSC__LOONGARCH)
    {
        uint32_t base, mul_div, w4 = 4, w5 = 5;
        __asm__ __volatile__("cpucfg %0, %1" : "=r"(base) : "r"(w4));
        __asm__ __volatile__("cpucfg %0, %1" : "=r"(mul_div) : "r"(w5));
        *src = TSC__SRC_CPUCFG;
        if ((mul_div >> 16) == 0)
            return 0;
        return (double)base * (double)(mul_div & 0xFFFFu) / (double)(mul_div >> 16);
    }
#elif defined(TSC__MACH)
    {
        mach_timebase_info_data_t tb;
        mach_timebase_info(&tb);
        *src = TSC__SRC_MACH;
        return 1e9 * (double)tb.denom / (double)tb.numer;
    }
#elif defined(TSC__QPC)
    *src = TSC__SRC_QPF;
    return (double)tsc__qpf();
#elif (defined(TSC__PPC64) || defined(TSC__PPC32)) && defined(__GLIBC__)
    {
        uint64_t f = __ppc_get_timebase_freq(); /* 0 under qemu-user */
        *src = TSC__SRC_PPC_GLIBC;
        return (double)f;
    }
#elif defined(TSC__OSCLOCK)
    *src = TSC__SRC_OS_NS;
    return 1e9;
#else
    *src = TSC__SRC_NONE;
    return 0;
#endif
}

static inline struct tsc_features tsc_features(void)
{
    struct tsc_features f;
    uint32_t src = 0;
    memset(&f, 0, sizeof f);
    f.os_allows_counter = tsc__os_allows_counter();
    f.has_counter = tsc__mode() != TSC__MODE_OS;
    f.uses_rdtscp = tsc__mode() == TSC__MODE_RDTSCP;
#if defined(TSC__X86)
    {
        uint32_t r[4], max_basic;
        tsc__cpuid_leaf(0, r);
        max_basic = r[0];
        tsc__cpuid_leaf(1, r);
        f.has_tsc = (int)((r[3] >> 4) & 1u);
        f.hypervisor = (int)((r[2] >> 31) & 1u);
        tsc__cpuid_leaf(0x80000001u, r);
        f.has_rdtscp = (int)((r[3] >> 27) & 1u);
        tsc__cpuid_leaf(0x80000007u, r);
        f.has_invariant_tsc = (int)((r[3] >> 8) & 1u);
        if (max_basic >= 0x15) {
            /* TSC = crystal * EBX / EAX; ECX (crystal Hz) may be 0. */
            tsc__cpuid(0x15, r);
            if (r[0] && r[1] && r[2])
                f.cpuid_15_hz = (double)r[2] * r[1] / r[0];
        }
        if (max_basic >= 0x16) {
            tsc__cpuid(0x16, r);
            f.cpuid_16_hz = (double)(r[0] & 0xFFFFu) * 1e6;
        }
        if (f.hypervisor) {
            /* Only trust 0x40000010 where the hypervisor lists it and signs
             * as one known to define it; some echo basic leaves back. */
            uint32_t h[4];
            tsc__cpuid(0x40000000u, h);
            if (h[0] >= 0x40000010u && h[0] < 0x40010000u &&
                ((h[1] == 0x61774d56u && h[2] == 0x4d566572u && h[3] == 0x65726177u) || /* VMwareVMware */
                 (h[1] == 0x4b4d564bu && h[2] == 0x564b4d56u && h[3] == 0x0000004du) || /* KVMKVMKVM */
                 (h[1] == 0x72637641u && h[2] == 0x416e314eu && h[3] == 0x00000000u))) { /* ACRN */
                tsc__cpuid(0x40000010u, r);
                f.hypervisor_hz = (double)r[0] * 1e3;
            }
        }
    }
#endif
    f.architectural_hz = tsc__architectural_hz(&src);
    f.frequency_is_architectural = f.architectural_hz > 0;
    return f;
}

/* --- exact integer arithmetic for conversion --------------------------- */

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 tsc__u128;
#endif

/* *hi:*lo = a * b, full 128-bit product. */
static inline void tsc__mul_64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#if defined(__SIZEOF_INT128__)
    tsc__u128 p = (tsc__u128)a * b;
    *hi = (uint64_t)(p >> 64);
    *lo = (uint64_t)p;
#elif defined(_MSC_VER) && defined(_M_X64)
    *lo = _umul128(a, b, hi);
#else
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    *lo = (mid << 32) | (uint32_t)p00;
#endif
}

/* round(num * 2^shift / den) as a 64.64 number in *hi:*lo, saturating at
 * all ones. Long division, one bit at a time: exact, needs no 128-bit type,
 * and runs only when a frequency is set. num, den < 2^62, den > 0. */
static inline void tsc__div_shl(uint64_t num, int shift, uint64_t den, uint64_t *hi, uint64_t *lo)
{
    uint64_t q_hi = 0, q_lo = 0, r = 0;
    int i, bits = 64;
    while (bits > 0 && !((num >> (bits - 1)) & 1u))
        bits--;
    for (i = bits - 1 + shift; i >= 0; i--) {
        int bit = i >= shift ? (int)((num >> (i - shift)) & 1u) : 0;
        r = (r << 1) | (uint64_t)bit;
        if (q_hi >> 63) { /* quotient would not fit in 128 bits */
            *hi = *lo = UINT64_MAX;
            return;
        }
        q_hi = (q_hi << 1) | (q_lo >> 63);
        q_lo <<= 1;
        if (r >= den) {
            r -= den;
            q_lo |= 1u;
        }
    }
    if (r >= den - r) { /* round half up */
        if (++q_lo == 0 && ++q_hi == 0)
            q_hi = q_lo = UINT64_MAX;
    }
    *hi = q_hi;
    *lo = q_lo;
}

/* x * (hi + lo / 2^64), rounded to nearest, saturating at UINT64_MAX. */
static inline uint64_t tsc__mul_fixed(uint64_t x, uint64_t hi, uint64_t lo)
{
    uint64_t ph, pl, ih, il, r;
    tsc__mul_64x64(x, lo, &ph, &pl);
    r = ph + (pl >> 63); /* cannot overflow: ph <= 2^64 - 2 */
    if (TSC__LIKELY(hi == 0))
        return r;
    tsc__mul_64x64(x, hi, &ih, &il);
    if (ih || il + r < il)
        return UINT64_MAX;
    return il + r;
}

/* a 53-bit integer m and exponent e with d == m * 2^e exactly (d > 0). */
static inline void tsc__split_double(double d, uint64_t *m, int *e)
{
    int ex;
    double fr = frexp(d, &ex); /* d = fr * 2^ex, fr in [0.5, 1) */
    *m = (uint64_t)ldexp(fr, 53);
    *e = ex - 53;
}

/* --- state: publishing and reading the frequency ----------------------- */

/* The conversion factors for a frequency: f[0]:f[1] nanoseconds per tick
 * and f[2]:f[3] ticks per nanosecond, each 64.64 fixed point, rounded to
 * nearest from the exact value of the double hz. */
static inline void tsc__factors(double hz, uint64_t f[4])
{
    uint64_t m;
    int e;
    tsc__split_double(hz, &m, &e);
    /* ns per tick = 1e9 / (m 2^e); as 64.64: 1e9 2^(64-e) / m */
    if (64 - e >= 0)
        tsc__div_shl(UINT64_C(1000000000), 64 - e, m, &f[0], &f[1]);
    else
        f[0] = f[1] = 0; /* hz above 2^64 GHz: a tick is no time */
    /* ticks per ns = m 2^e / 1e9; as 64.64: m 2^(e+64) / 1e9 */
    if (e + 64 >= 0)
        tsc__div_shl(m, e + 64, UINT64_C(1000000000), &f[2], &f[3]);
    else
        f[2] = f[3] = 0; /* below 2^-64 ticks per ns: no counter is that slow */
}

/* Publishes a frequency and its conversion factors. Writers take the
 * sequence lock (odd = writing); readers retry while it moves. When
 * `only_if_first` is set, a frequency already published wins. */
static inline void tsc__publish(double hz, double unc_ppm, double spent, uint64_t samples,
                                uint64_t bracket, uint32_t src, int only_if_first)
{
    uint64_t f[4];
    uint32_t s;
    tsc__factors(hz, f);
    for (;;) {
        s = TSC__LD32(&tsc__g.seq);
        if (only_if_first && s != 0)
            return;
        if (!(s & 1u) && tsc__cas32(&tsc__g.seq, s, s + 1))
            break;
        tsc__pause();
    }
    TSC__ST64(&tsc__g.hz, tsc__dbits(hz));
    TSC__ST64(&tsc__g.sec, tsc__dbits(1.0 / hz));
    TSC__ST64(&tsc__g.ns_hi, f[0]);
    TSC__ST64(&tsc__g.ns_lo, f[1]);
    TSC__ST64(&tsc__g.tk_hi, f[2]);
    TSC__ST64(&tsc__g.tk_lo, f[3]);
    TSC__ST64(&tsc__g.unc, tsc__dbits(unc_ppm));
    TSC__ST64(&tsc__g.spent, tsc__dbits(spent));
    TSC__ST64(&tsc__g.samples, samples);
    TSC__ST64(&tsc__g.bracket, bracket);
    TSC__ST64(&tsc__g.src, (uint64_t)src);
    TSC__ST32(&tsc__g.seq, s + 2);
}

static inline int tsc__calibrate_into(double seconds, struct tsc_calibration *out,
                                      uint32_t *src);

/* Makes sure a frequency is published: the first caller calibrates, the
 * others wait for it. */
static TSC__NOINLINE void tsc__ensure_frequency(void)
{
    if (TSC__LD32(&tsc__g.seq) != 0)
        return;
    if (tsc__cas32(&tsc__g.once, 0, 1)) {
        struct tsc_calibration c;
        uint32_t src = 0;
        tsc__calibrate_into(TSC_CALIBRATION_SECONDS, &c, &src);
        tsc__publish(c.ticks_per_second, c.uncertainty_ppm, c.seconds_spent, c.samples,
                     c.bracket_ticks, src, 1);
        return;
    }
    while (TSC__LD32(&tsc__g.seq) == 0)
        tsc__pause();
}

/* Reads n consecutive 64-bit fields starting at `first`, guarded by the
 * sequence counter *seq, consistently. 0 when nothing is published yet
 * (*seq == 0), else 1. */
static inline int tsc__seq_read(const uint32_t *seq, const uint64_t *first, uint64_t *out,
                                int n)
{
    uint32_t s;
    int i;
    for (;;) {
        s = TSC__LD32(seq);
        if (TSC__UNLIKELY(s == 0))
            return 0;
        if (TSC__UNLIKELY(s & 1u)) {
            tsc__pause();
            continue;
        }
        for (i = 0; i < n; i++)
            out[i] = TSC__LD64(first + i);
        TSC__READ_FENCE(); /* the fields are read before the re-check */
        if (TSC__LIKELY(TSC__RLX32(seq) == s))
            return 1;
    }
}

/* Reads n consecutive fields of the frequency state, calibrating first if
 * no frequency is published yet. */
static inline void tsc__read_state(const uint64_t *first, uint64_t *out, int n)
{
    while (TSC__UNLIKELY(!tsc__seq_read(&tsc__g.seq, first, out, n)))
        tsc__ensure_frequency();
}

static inline double tsc_ticks_per_second(void)
{
    uint64_t v;
    tsc__read_state(&tsc__g.hz, &v, 1);
    return tsc__bitsd(v);
}

static inline int tsc_current_calibration(struct tsc_calibration *out)
{
    uint64_t v[11];
    if (!out)
        return -EINVAL;
    tsc__read_state(&tsc__g.hz, v, 11);
    out->ticks_per_second = tsc__bitsd(v[0]);
    out->uncertainty_ppm = tsc__bitsd(v[6]);
    out->seconds_spent = tsc__bitsd(v[7]);
    out->samples = v[8];
    out->bracket_ticks = v[9];
    out->method = tsc__method_name((uint32_t)v[10]);
    return 0;
}

static inline uint64_t tsc_ticks_to_ns(uint64_t ticks)
{
    uint64_t f[2];
    tsc__read_state(&tsc__g.ns_hi, f, 2);
    return tsc__mul_fixed(ticks, f[0], f[1]);
}

static inline uint64_t tsc_ns_to_ticks(uint64_t ns)
{
    uint64_t f[2];
    tsc__read_state(&tsc__g.tk_hi, f, 2);
    return tsc__mul_fixed(ns, f[0], f[1]);
}

static inline double tsc_ticks_to_seconds(uint64_t ticks)
{
    uint64_t v;
    tsc__read_state(&tsc__g.sec, &v, 1);
    return (double)ticks * tsc__bitsd(v);
}

/* --- calibration ------------------------------------------------------- */

/* Calibration against the reference clock (CLOCK_MONOTONIC; QPC on
 * Windows), busy-waiting: a sleeping core may stop its counter.
 *
 * Each sample brackets one clock read between two counter reads; only
 * narrow brackets are kept, so a sample that was preempted or interrupted
 * is dropped rather than averaged in. The window is cut into TSC__BINS
 * equal parts; each part's kept samples are averaged (the clock's 1 ns
 * steps average out), and a straight line is fitted through the part
 * averages. The slope is the frequency; the scatter of the parts about the
 * line gives its standard error, and parts far off the line (a clock step,
 * a migration to a core with another offset) are dropped and the line
 * refitted. */
#define TSC__BINS 32

struct tsc__bin {
    uint64_t n;      /* samples kept                                       */
    uint64_t x1, y1; /* the first kept sample: bracket middle, clock       */
    uint64_t sum_x;  /* sum of middle - x1, ticks (small: cannot wrap)     */
    uint64_t sum_y;  /* sum of clock - y1, reference units                 */
};

/* One reference clock read between two counter reads: *mid is the counter
 * at the bracket's middle (t0 + (t1 - t0) / 2, which cannot wrap even where
 * the counter runs near 2^64, as s390x's TOD clock does), *ref the clock.
 * Returns the bracket's width in ticks. */
static inline uint64_t tsc__bracket(uint64_t *mid, uint64_t *ref)
{
    uint64_t t0 = tsc_ticks_before();
    uint64_t c = tsc__ref_read();
    uint64_t t1 = tsc_ticks_after();
    *mid = t0 + (t1 - t0) / 2;
    *ref = c;
    return t1 - t0;
}

/* The narrowest of 16 brackets: one preempted or interrupted between its
 * counter reads loses to a clean one. Returns its width in ticks. */
static inline uint64_t tsc__narrowest_bracket(uint64_t *mid, uint64_t *ref)
{
    uint64_t best = tsc__bracket(mid, ref), w, m, r;
    int i;
    for (i = 1; i < 16; i++) {
        w = tsc__bracket(&m, &r);
        if (w < best) {
            best = w;
            *mid = m;
            *ref = r;
        }
    }
    return best;
}

/* Least-squares line y = a + b x through the points with use[i] set.
 * Returns the number of points used; *se is the slope's standard error. */
static inline int tsc__fit(const double *x, const double *y, const int *use, int n,
                           double *slope, double *se, double *intercept)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0, rss = 0;
    int i, k = 0;
    for (i = 0; i < n; i++)
        if (use[i]) {
            k++;
            mx += x[i];
            my += y[i];
        }
    if (k < 2)
        return k;
    mx /= k;
    my /= k;
    for (i = 0; i < n; i++)
        if (use[i]) {
            sxx += (x[i] - mx) * (x[i] - mx);
            sxy += (x[i] - mx) * (y[i] - my);
        }
    if (!(sxx > 0))
        return 0;
    *slope = sxy / sxx;
    *intercept = my - *slope * mx;
    for (i = 0; i < n; i++)
        if (use[i]) {
            double r = y[i] - (*intercept + *slope * x[i]);
            rss += r * r;
        }
    *se = k > 2 ? sqrt(rss / (k - 2) / sxx) : 0;
    return k;
}

static inline int tsc__calibrate_into(double seconds, struct tsc_calibration *out,
                                      uint32_t *src)
{
    struct tsc__bin bins[TSC__BINS];
    double x[TSC__BINS], y[TSC__BINS], res[TSC__BINS];
    int use[TSC__BINS];
    double ref_hz, hz, slope = 0, se = 0, icpt = 0, spread, unc;
    uint64_t width, narrow = UINT64_MAX, limit, mid, ref, x0, y0, span, kept = 0;
    uint64_t ref_start, ref_end;
    int i, b, used, pass;

    if (!out || !(seconds > 0) || !(seconds <= 60))
        return -EINVAL;
    hz = tsc__architectural_hz(src);
    if (hz > 0) {
        memset(out, 0, sizeof *out);
        out->ticks_per_second = hz;
        out->method = tsc__method_name(*src);
        return 0;
    }
#if defined(TSC__WINDOWS)
    *src = TSC__SRC_MEASURED_QPC;
#else
    *src = TSC__SRC_MEASURED_MONO;
#endif
    ref_hz = tsc__ref_hz();
    span = (uint64_t)(seconds * ref_hz);
    if (span < TSC__BINS)
        span = TSC__BINS;

    /* Warm up (page in the clock, train branches) and learn how narrow a
     * bracket can be; accept up to twice that plus a little. */
    ref_start = tsc__ref_read();
    for (i = 0; i < 64; i++) {
        width = tsc__bracket(&mid, &ref);
        if (width < narrow)
            narrow = width;
    }
    limit = narrow * 2 + 32;

    memset(bins, 0, sizeof bins);
    do { /* start on a fresh clock tick edge: nothing is special about it */
        width = tsc__bracket(&x0, &y0);
    } while (width > limit);
    for (;;) {
        uint64_t dy;
        width = tsc__bracket(&mid, &ref);
        dy = ref - y0;
        if (dy >= span)
            break;
        if (width <= limit) {
            b = (int)(dy * TSC__BINS / span);
            if (bins[b].n++ == 0) {
                bins[b].x1 = mid;
                bins[b].y1 = ref;
            }
            bins[b].sum_x += mid - bins[b].x1;
            bins[b].sum_y += ref - bins[b].y1;
            if (width < narrow)
                narrow = width;
        }
    }

    for (i = 0; i < TSC__BINS; i++) {
        use[i] = bins[i].n > 0;
        kept += bins[i].n;
        x[i] = use[i] ? (double)(bins[i].x1 - x0) + (double)bins[i].sum_x / (double)bins[i].n : 0;
        y[i] = use[i] ? (double)(bins[i].y1 - y0) + (double)bins[i].sum_y / (double)bins[i].n : 0;
    }
    /* Fit, drop parts whose residual is far beyond the typical one, refit. */
    used = 0;
    for (pass = 0; pass < 2; pass++) {
        double med, tmp[TSC__BINS];
        int k = 0, j;
        used = tsc__fit(x, y, use, TSC__BINS, &slope, &se, &icpt);
        if (used < 3)
            break;
        for (i = 0; i < TSC__BINS; i++) {
            res[i] = fabs(y[i] - (icpt + slope * x[i]));
            if (use[i]) { /* insertion sort for the median */
                for (j = k; j > 0 && tmp[j - 1] > res[i]; j--)
                    tmp[j] = tmp[j - 1];
                tmp[j] = res[i];
                k++;
            }
        }
        med = tmp[k / 2];
        if (pass == 0)
            for (i = 0; i < TSC__BINS; i++)
                if (use[i] && res[i] > 8 * med && res[i] > 1.0)
                    use[i] = 0; /* 8 typical residuals and a clock unit */
    }
    ref_end = tsc__ref_read();

    memset(out, 0, sizeof *out);
    out->method = tsc__method_name(*src);
    out->samples = kept;
    out->bracket_ticks = narrow;
    out->seconds_spent = (double)(ref_end - ref_start) / ref_hz;
    if (used < 3 || !(slope > 0)) {
        /* Hardly any clean sample (a wildly loaded machine): the end points
         * alone, the narrowest of 16 brackets at the end, with the bound
         * their widths give. */
        uint64_t t_end, c_end, w_end = tsc__narrowest_bracket(&t_end, &c_end);
        slope = (double)(c_end - y0) / (double)(t_end - x0);
        out->ticks_per_second = ref_hz / slope;
        out->uncertainty_ppm = (double)(limit + w_end) / (double)(t_end - x0) * 1e6 + 1;
        return 0;
    }
    hz = ref_hz / slope;
    /* The bound: 5 standard errors, and never less than the clock's
     * resolution spread over the window and the parts. */
    spread = 1.0 / ((double)span * sqrt((double)used));
    unc = (5.0 * se / slope + spread) * 1e6;
    out->ticks_per_second = hz;
    out->uncertainty_ppm = unc;
    return 0;
}

static inline int tsc_calibrate(double seconds, struct tsc_calibration *out)
{
    uint32_t src = 0;
    struct tsc_calibration c;
    int rc;
    if (!out || !(seconds > 0) || !(seconds <= 60))
        return -EINVAL;
    rc = tsc__calibrate_into(seconds, &c, &src);
    if (rc != 0)
        return rc;
    tsc__publish(c.ticks_per_second, c.uncertainty_ppm, c.seconds_spent, c.samples,
                 c.bracket_ticks, src, 0);
    *out = c;
    return 0;
}

/* --- overhead ---------------------------------------------------------- */

static TSC__NOINLINE uint64_t tsc__measure_overhead(void)
{
    uint64_t best = UINT64_MAX;
    int i;
    for (i = 0; i < 2048; i++) {
        uint64_t t0 = tsc_ticks_before();
        uint64_t t1 = tsc_ticks_after();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    if (best > UINT32_MAX - 1)
        best = UINT32_MAX - 1;
    TSC__ST32(&tsc__g.overhead, (uint32_t)best + 1);
    return best;
}

static inline uint64_t tsc_overhead_ticks(void)
{
    uint32_t v = TSC__LD32(&tsc__g.overhead);
    return TSC__LIKELY(v != 0) ? v - 1u : tsc__measure_overhead();
}

static inline uint64_t tsc_sub_overhead(uint64_t ticks)
{
    uint64_t o = tsc_overhead_ticks();
    return ticks > o ? ticks - o : 0;
}

/* --- a clock: the counter on a line locked to the system clocks -------- */

/* The clock maps a counter value t to nanoseconds on a line of two
 * segments: a slew, then the clock's own rate,
 *     t <  end_ticks: ns(t) = base_ns + (t - base_ticks) * mul, >= base_ns
 *     t >= end_ticks: ns(t) = end_ns + (t - end_ticks) * rate
 * set up from a bracketed reading of CLOCK_MONOTONIC at first use (no
 * slew) and steered by tsc_clock_resync(). A resync never steps the line
 * back: the new line starts where the old one is at the switch point (the
 * counter read just after the sequence lock turns odd) and slews onto the
 * clock within the next interval (the last one's length, 10 ms to 1 s), at
 * most 500 ppm off the clock's rate as NTP bounds its slew, longer where
 * the error needs it; then it runs at the clock's measured rate, so a slew
 * never outlives its error. A line behind by more than the interval's slew
 * can make up is stepped forward (which keeps it monotonic); one ahead is
 * slewed at the bound. A read whose counter was taken before the switch
 * point but which sees the new line gets base_ns: the floor keeps it from
 * going below any read of the old line.
 *
 * Its state is tsc__g.clk (struct tsc__clock, beside tsc__state), with its
 * own sequence counter, so a resync never makes a conversion retry. */

#define TSC__SLEW 500e-6       /* steering bound: 500 ppm                  */
#define TSC__RATE_SPAN 1e9     /* rate re-measured over at least 1 s (ns)  */
#define TSC__RESET_NS 1e9      /* ahead by more: a discontinuity, re-set   */

/* The clock's counter read. On x86 a plain RDTSC: a timestamp needs no
 * fence after it (later work starting early does not move the stamp), and
 * an LFENCE or RDTSCP before it doubles its cost (22 ns against 11 ns on
 * the development machine, where clock_gettime takes 28 ns); unfenced, the
 * read may happen a few dozen instructions early or late, nanoseconds, far
 * inside the clock's agreement. Successive reads in one thread were never
 * seen out of order (tests/test_clock.c). Elsewhere the ordered read. */
static inline uint64_t tsc__clock_ticks(void)
{
#if defined(TSC__X86_GNU)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
#elif defined(TSC__X86_MSVC)
    return __rdtsc();
#else
    return tsc__native_read();
#endif
}

/* The line v = {base_ticks, base_ns, mul_hi, mul_lo, end_ticks, end_ns,
 * rate_hi, rate_lo} at counter value t. */
static inline uint64_t tsc__clock_line(const uint64_t *v, uint64_t t)
{
    if (t >= v[4])
        return v[5] + tsc__mul_fixed(t - v[4], v[6], v[7]);
    return v[1] + tsc__mul_fixed(t > v[0] ? t - v[0] : 0, v[2], v[3]);
}

/* x >= 0 as 64.64 fixed point. */
static inline void tsc__fixed_from_double(double x, uint64_t *hi, uint64_t *lo)
{
    double h = floor(x), l = ldexp(x - h, 64);
    *hi = (uint64_t)h;
    *lo = l < 18446744073709551616.0 ? (uint64_t)l : UINT64_MAX;
}

/* Where the line should be: the narrowest of 16 counter|clock|counter
 * brackets gives *mid (the counter at its middle) and *mono (the
 * monotonic clock there, ns); the narrowest of 16 mono|real|mono reads
 * gives *real_off. Returns the bracket's width in ticks. */
static inline uint64_t tsc__clock_sample(uint64_t *mid, uint64_t *mono, uint64_t *real_off)
{
    uint64_t best = tsc__narrowest_bracket(mid, mono), narrow = UINT64_MAX, m0, r, m1;
    int i;
#if defined(TSC__WINDOWS)
    *mono = tsc__qpc_ns(*mono);
#endif
    for (i = 0; i < 16; i++) {
        m0 = tsc__os_ns(0);
        r = tsc__os_ns(1);
        m1 = tsc__os_ns(0);
        if (m1 - m0 < narrow) {
            narrow = m1 - m0;
            *real_off = r - (m0 + narrow / 2);
        }
    }
    return best;
}

static inline void tsc__clock_lock(void)
{
    while (!tsc__cas32(&tsc__g.clk.busy, 0, 1))
        tsc__pause();
}

/* Publishes a line: slope `mul` ns per tick for `slew` ticks from
 * (base_ticks, base_ns), then `rate` (the writer holds `busy`; the
 * sequence counter is odd). */
static inline void tsc__clock_store(uint32_t s, uint64_t base_ticks, uint64_t base_ns,
                                    double mul, uint64_t slew, double rate, uint64_t real_off)
{
    uint64_t hi, lo, rhi, rlo;
    tsc__fixed_from_double(mul, &hi, &lo);
    tsc__fixed_from_double(rate, &rhi, &rlo);
    if (slew > UINT64_MAX - base_ticks)
        slew = UINT64_MAX - base_ticks;
    TSC__ST64(&tsc__g.clk.base_ticks, base_ticks);
    TSC__ST64(&tsc__g.clk.base_ns, base_ns);
    TSC__ST64(&tsc__g.clk.mul_hi, hi);
    TSC__ST64(&tsc__g.clk.mul_lo, lo);
    TSC__ST64(&tsc__g.clk.end_ticks, base_ticks + slew);
    TSC__ST64(&tsc__g.clk.end_ns, base_ns + tsc__mul_fixed(slew, hi, lo));
    TSC__ST64(&tsc__g.clk.rate_hi, rhi);
    TSC__ST64(&tsc__g.clk.rate_lo, rlo);
    TSC__ST64(&tsc__g.clk.real_off, real_off);
    TSC__ST32(&tsc__g.clk.seq, s + 2);
}

/* Sets the clock up once: the line through a fresh reading, at the
 * calibrated frequency. Concurrent first callers wait for the one setup. */
static TSC__NOINLINE void tsc__clock_setup(void)
{
    uint64_t f[2], mid = 0, mono = 0, off = 0;
    double mul;
    tsc__read_state(&tsc__g.ns_hi, f, 2);
    tsc__clock_lock();
    if (TSC__LD32(&tsc__g.clk.seq) == 0) {
        tsc__g.clk.narrow = tsc__clock_sample(&mid, &mono, &off);
        tsc__g.clk.ref_mid = mid;
        tsc__g.clk.ref_ns = tsc__g.clk.last_ns = mono;
        mul = (double)f[0] + ldexp((double)f[1], -64);
        tsc__g.clk.rate = tsc__dbits(mul);
        TSC__ST32(&tsc__g.clk.seq, 1u);
        tsc__clock_store(0, mid, mono, mul, 0, mul, off);
    }
    TSC__ST32(&tsc__g.clk.busy, 0);
}

/* First use, or the counter is the OS clock (the clock is then never set
 * up, and every call comes here). */
static TSC__NOINLINE uint64_t tsc__clock_slow(int realtime)
{
    if (tsc__mode() == TSC__MODE_OS)
        return tsc__os_ns(realtime);
    tsc__clock_setup();
    return realtime ? tsc_now_realtime_ns() : tsc_now_ns();
}

/* The counter is read before the sequence lock: a read that sees the old
 * line then took its counter before the switch point. */
static inline uint64_t tsc__clock_now(int realtime)
{
#if defined(TSC__OSCLOCK)
    return tsc__os_ns(realtime);
#else
    uint64_t v[9], t;
    if (TSC__UNLIKELY(TSC__RLX32(&tsc__g.clk.seq) == 0))
        return tsc__clock_slow(realtime);
    t = tsc__clock_ticks();
    tsc__seq_read(&tsc__g.clk.seq, &tsc__g.clk.base_ticks, v, 9);
    return tsc__clock_line(v, t) + (realtime ? v[8] : 0);
#endif
}

static inline uint64_t tsc_now_ns(void) { return tsc__clock_now(0); }
static inline uint64_t tsc_now_realtime_ns(void) { return tsc__clock_now(1); }

static inline int tsc_clock_resync(void)
{
    uint64_t mid = 0, mono = 0, off = 0, w = UINT64_MAX, v[8], ts, old, base, dt;
    double rate, h, err, c, ticks, slew;
    uint32_t s;
    int i;
    if (tsc__mode() == TSC__MODE_OS)
        return 0;
    if (TSC__LD32(&tsc__g.clk.seq) == 0) {
        tsc__clock_setup(); /* a fresh line: nothing to steer yet */
        return 0;
    }
    tsc__clock_lock();
    /* Measured with readers running: only a clean, narrow bracket counts. */
    for (i = 0; i < 4 && w > 2 * tsc__g.clk.narrow + 64; i++)
        w = tsc__clock_sample(&mid, &mono, &off);
    if (w > 2 * tsc__g.clk.narrow + 64) {
        /* Widen the bar a little, so a machine that stays slower (a VM
         * moved to another host) is accepted again after a few tries. */
        tsc__g.clk.narrow += tsc__g.clk.narrow / 8 + 1;
        TSC__ST32(&tsc__g.clk.busy, 0);
        return -EAGAIN;
    }
    if (w < tsc__g.clk.narrow)
        tsc__g.clk.narrow = w;
    /* The clock's own rate (NTP slews CLOCK_MONOTONIC), over >= 1 s so the
     * brackets' few ns weigh < 0.05 ppm. A span beyond 0.1 % of the rate in
     * use (a suspend, a migration inside it) is taken only once the next
     * span confirms it: then the rate itself changed (a VM moved to a host
     * with another TSC rate, a first calibration far off). A counter that
     * went back (reset on resume) just starts a new span. */
    rate = tsc__bitsd(tsc__g.clk.rate);
    if ((double)(mono - tsc__g.clk.ref_ns) >= TSC__RATE_SPAN) {
        if ((int64_t)(mid - tsc__g.clk.ref_mid) > 0) { /* wrap-safe: moved on */
            double r = (double)(mono - tsc__g.clk.ref_ns) / (double)(mid - tsc__g.clk.ref_mid);
            double cand = tsc__bitsd(tsc__g.clk.cand);
            if (fabs(r / rate - 1.0) <= 1e-3 || (cand > 0 && fabs(r / cand - 1.0) <= 1e-3))
                rate = r;
            tsc__g.clk.cand = tsc__dbits(r);
            tsc__g.clk.rate = tsc__dbits(rate);
        }
        tsc__g.clk.ref_mid = mid;
        tsc__g.clk.ref_ns = mono;
    }
    h = (double)(mono - tsc__g.clk.last_ns);
    h = h < 1e7 ? 1e7 : h > 1e9 ? 1e9 : h;
    tsc__g.clk.last_ns = mono;

    tsc__seq_read(&tsc__g.clk.seq, &tsc__g.clk.base_ticks, v, 8); /* ours: stable */
    s = TSC__RLX32(&tsc__g.clk.seq);
    tsc__cas32(&tsc__g.clk.seq, s, s + 1); /* only holder of busy writes it */
    ts = tsc_ticks_before();             /* after the lock turned odd      */
    old = tsc__clock_line(v, ts);
    /* old - where the clock is at ts, in ns (small: signed arithmetic). */
    dt = ts - mid;
    ticks = dt >> 63 ? -(double)(mid - ts) : (double)dt;
    err = (double)(int64_t)(old - mono) - ticks * rate;
    /* Slew the error away over h at c = -err / h; an error beyond the
     * bound takes longer at the bound, or, behind, a step forward. Ahead
     * by more than 1 s, which no NTP slew makes (it would take 33 minutes
     * at 500 ppm to close), the counter ran on while CLOCK_MONOTONIC stood
     * still (a suspend, a VM restored): the line is re-set onto the clock,
     * the one case in which readings go back. */
    base = old;
    c = -err / h;
    slew = h;
    if (err > TSC__RESET_NS) {
        base = old - (uint64_t)err;
        c = 0;
        slew = 0;
    } else if (c < -TSC__SLEW) {
        c = -TSC__SLEW;
        slew = err / TSC__SLEW;
    } else if (c > TSC__SLEW) {
        base = old + (uint64_t)(-err);
        c = 0;
        slew = 0;
    }
    slew = slew / rate < 4e18 ? slew / rate : 4e18; /* ns to ticks */
    tsc__clock_store(s, ts, base, rate * (1.0 + c), (uint64_t)slew, rate, off);
    TSC__ST32(&tsc__g.clk.busy, 0);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Measurement helpers: statistics, macros, regions. None allocates.        */
/* ------------------------------------------------------------------------ */

/* Samples are kept in a log-linear histogram: values below 128 exactly,
 * above that 64 equal buckets per power of two. A bucket [lo, lo + w) has
 * w <= lo / 64, so its midpoint is within 1/128 (0.78%) of every value in
 * it. 128 + 57 * 64 = 3776 counters, 30 KiB. */
#define TSC_STATS_BUCKETS 3776

/* Samples in ticks: count, exact min and max, exact integer sums for the
 * mean and standard deviation, and the histogram for percentiles. Adding is
 * O(1) and merging is exact: merging A into B gives, bit for bit, the object
 * that adding A's samples to B would. Read it through the functions below
 * (min and max of an empty object read 0 there). */
struct tsc_stats {
    uint64_t count;     /* samples recorded                                 */
    uint64_t min, max;  /* UINT64_MAX and 0 while empty                     */
    uint64_t sum[2];    /* sum of samples, 128 bits, low word first         */
    uint64_t sumsq[3];  /* sum of squares, 192 bits, low word first         */
    uint64_t migrated;  /* samples that changed CPU (tsc_stats_add_cpu)     */
    uint64_t bucket[TSC_STATS_BUCKETS];
};

/* Empties s. Costs a 30 KiB memset. */
static inline void tsc_stats_init(struct tsc_stats *s);
/* Records one sample. O(1): a handful of adds, one multiply, one counter
 * increment (bench/bench_stats.c measures it). s must not be NULL (a NULL
 * s records nothing). */
static inline void tsc_stats_add(struct tsc_stats *s, uint64_t ticks);
/* Records a sample timed from a start on CPU cpu0 to an end on CPU cpu1
 * (UINT32_MAX: unknown). Where both are known and differ, the sample is
 * counted in s->migrated and, if drop is nonzero, not recorded. Returns 1 if
 * recorded, 0 if dropped. */
static inline int tsc_stats_add_cpu(struct tsc_stats *s, uint64_t ticks, uint32_t cpu0,
                                    uint32_t cpu1, int drop);
/* The nearest-rank p-th percentile, p in [0, 100] (taken to 7 decimals):
 * the smallest sample with at least p% of the samples at or below it;
 * p = 0 gives the min, p = 100 the max, both exact. Other values are within
 * 1/128 of the exact one (the bucket's midpoint, clamped to [min, max]).
 * 0 for an empty object, p outside [0, 100], NaN or a NULL s. Walks the
 * histogram: microseconds, not for the hot path. */
static inline uint64_t tsc_stats_percentile(const struct tsc_stats *s, double p);
/* Adds every sample of `from` to `into` (exact; into == from doubles it). */
static inline void tsc_stats_merge(struct tsc_stats *into, const struct tsc_stats *from);
/* Count, min, max (0 when empty), mean and population standard deviation
 * (0 when empty), in ticks. The deviation comes from the exact integer sums,
 * so samples far from zero with a tiny spread lose nothing. */
static inline uint64_t tsc_stats_count(const struct tsc_stats *s);
static inline uint64_t tsc_stats_min(const struct tsc_stats *s);
static inline uint64_t tsc_stats_max(const struct tsc_stats *s);
static inline double tsc_stats_mean(const struct tsc_stats *s);
static inline double tsc_stats_stddev(const struct tsc_stats *s);
/* Prints a table in ticks and ns (min, p50, p90, p99, p99.9, max, mean +- sd,
 * count) and a histogram of up to 16 log-spaced rows to out. */
static inline void tsc_stats_print(const struct tsc_stats *s, const char *name, FILE *out);
/* Flags of tsc_stats_print_flags. */
/* Subtract tsc_overhead_ticks() from every value shown, floored at 0 (the
 * mean is that of the floored samples; the deviation, the raw samples'). */
#define TSC_PRINT_SUB_OVERHEAD 1u
#define TSC_PRINT_NO_HISTOGRAM 2u /* the table only */
/* As tsc_stats_print, with flags. 0, or -EINVAL for a NULL s or out. */
static inline int tsc_stats_print_flags(const struct tsc_stats *s, const char *name, FILE *out,
                                        unsigned flags);

/* TSC_START(t) declares `const uint64_t t` = tsc_ticks_before().
 * TSC_END(t, stats) records tsc_ticks_after() - t into a struct tsc_stats *.
 * TSC_END_LOG(t, stream) writes "t: <ticks> ticks, <ns> ns" to a FILE *.
 * TSC_START_CPU(t) also declares `uint32_t t_cpu`, the CPU of the start;
 * TSC_END_CPU(t, stats, drop) records with tsc_stats_add_cpu().
 * TSC_TIMESTAMP(tag, stream) writes "tag: <ns> ns" with tsc_now_realtime_ns()
 * (nanoseconds since 1970, CLOCK_REALTIME-compatible, a counter read and a
 * multiply), so lines of several processes line up. */
#define TSC_START(tag) const uint64_t tag = tsc_ticks_before()
#define TSC_END(tag, stats) tsc_stats_add((stats), tsc_ticks_after() - (tag))
#define TSC_END_LOG(tag, stream) tsc__log_ticks((stream), #tag, tsc_ticks_after() - (tag))
#define TSC_START_CPU(tag)                                                    \
    uint32_t tag##_cpu = UINT32_MAX;                                          \
    const uint64_t tag = tsc_ticks_before_cpu(&tag##_cpu)
#define TSC_END_CPU(tag, stats, drop) tsc__end_cpu((stats), (tag), tag##_cpu, (drop))
#define TSC_TIMESTAMP(tag, stream) tsc__log_timestamp((stream), #tag, tsc_now_realtime_ns())

/* TSC_MEASURE(stats) { ... } records the time the block takes into stats.
 * It is two nested one-pass for loops, so:
 *   - `break` or `continue` in the block leave the block, and the time up to
 *     there is recorded; neither reaches a loop around TSC_MEASURE, which
 *     goes on with its next statement. To leave that loop, set a flag in the
 *     block and test it after.
 *   - `return`, `goto` or longjmp out of the block record nothing. */
#define TSC__CAT2(a, b) a##b
#define TSC__CAT(a, b) TSC__CAT2(a, b)
#define TSC__MV(name) TSC__CAT(name, __LINE__)
#define TSC_MEASURE(stats)                                                    \
    for (uint64_t TSC__MV(tsc__t0_) = tsc_ticks_before(), TSC__MV(tsc__once_) = 1; \
         TSC__MV(tsc__once_);                                                  \
         TSC__MV(tsc__once_) = 0,                                              \
         tsc_stats_add((stats), tsc_ticks_after() - TSC__MV(tsc__t0_)))        \
        for (; TSC__MV(tsc__once_); TSC__MV(tsc__once_) = 0)

/* Named regions that accumulate time, for the phases of a loop. One region
 * is open at a time; tsc_region_switch() closes it and opens the next with a
 * single counter read, so back-to-back phases cost one read per boundary and
 * their totals add up to the time from the first start to the last stop. */
#define TSC_REGIONS_MAX 16
struct tsc_regions {
    const char *name[TSC_REGIONS_MAX]; /* NULL prints as "region <id>"      */
    uint64_t ticks[TSC_REGIONS_MAX];   /* accumulated ticks                 */
    uint64_t entries[TSC_REGIONS_MAX]; /* times opened                      */
    uint64_t since;                    /* counter when the open one opened  */
    int open;                          /* open region, or -1                */
    int n;                             /* regions 0 .. n-1 in use           */
};

/* Empties r and names regions 0 .. n-1 after names[] (may be NULL; the
 * strings must outlive r). 0, or -EINVAL for a NULL r or n outside
 * [1, TSC_REGIONS_MAX], changing nothing. */
static inline int tsc_regions_init(struct tsc_regions *r, int n, const char *const *names);
/* Opens region id (one counter read). -EINVAL, changing nothing, for a bad
 * id or when a region is already open. */
static inline int tsc_region_start(struct tsc_regions *r, int id);
/* Closes the open region (one counter read). -EINVAL if none is open. */
static inline int tsc_region_stop(struct tsc_regions *r);
/* Closes the open region, if any, and opens id, with one counter read.
 * -EINVAL, changing nothing, for a bad id. */
static inline int tsc_region_switch(struct tsc_regions *r, int id);
/* Sum of the regions' ticks (an open region's running time not included). */
static inline uint64_t tsc_regions_total(const struct tsc_regions *r);
/* Prints each region's entries, ticks, seconds and share of the total. */
static inline void tsc_regions_print(const struct tsc_regions *r, FILE *out);

/* --- statistics: implementation ---------------------------------------- */

/* Index of the highest set bit of v, v != 0. */
static inline int tsc__top_bit(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63 ^ __builtin_clzll(v); /* one BSR on x86 */
#elif defined(_MSC_VER) && defined(_M_X64)
    unsigned long i;
    _BitScanReverse64(&i, v);
    return (int)i;
#else
    int b = 0;
    if (v >> 32) { v >>= 32; b += 32; }
    if (v >> 16) { v >>= 16; b += 16; }
    if (v >> 8) { v >>= 8; b += 8; }
    if (v >> 4) { v >>= 4; b += 4; }
    if (v >> 2) { v >>= 2; b += 2; }
    return b + (int)(v >> 1);
#endif
}

/* Bucket of v. With s = top bit - 6 (0 below 128, by or-ing in bit 6),
 * v >> s keeps the top 7 bits, 64..127; s * 64 + that is continuous with
 * the exact buckets 0..127 and ends at 57 * 64 + 127 = 3775. */
static inline uint32_t tsc__bucket(uint64_t v)
{
    int s = tsc__top_bit(v | 64u) - 6;
    return ((uint32_t)s << 6) + (uint32_t)(v >> s);
}

/* The middle of bucket i (its lowest value plus half its width, rounded
 * down), within 1/128 of every value in it. */
static inline uint64_t tsc__bucket_mid(uint32_t i)
{
    int s;
    if (i < 128)
        return i;
    s = (int)(i >> 6) - 1;
    return ((uint64_t)((i & 63u) | 64u) << s) + ((UINT64_C(1) << s) - 1) / 2;
}

static inline void tsc_stats_init(struct tsc_stats *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof *s);
    s->min = UINT64_MAX;
}

static inline void tsc_stats_add(struct tsc_stats *s, uint64_t v)
{
    uint64_t hi, lo;
    if (TSC__UNLIKELY(!s))
        return;
    s->count++;
    s->min = v < s->min ? v : s->min;
    s->max = v > s->max ? v : s->max;
    s->sum[0] += v;
    s->sum[1] += s->sum[0] < v;
    tsc__mul_64x64(v, v, &hi, &lo);
    s->sumsq[0] += lo;
    hi += s->sumsq[0] < lo; /* hi <= 2^64 - 2: no overflow */
    s->sumsq[1] += hi;
    s->sumsq[2] += s->sumsq[1] < hi;
    s->bucket[tsc__bucket(v)]++;
}

static inline int tsc_stats_add_cpu(struct tsc_stats *s, uint64_t ticks, uint32_t cpu0,
                                    uint32_t cpu1, int drop)
{
    if (!s)
        return 0;
    if (cpu0 != cpu1 && cpu0 != UINT32_MAX && cpu1 != UINT32_MAX) {
        s->migrated++;
        if (drop)
            return 0;
    }
    tsc_stats_add(s, ticks);
    return 1;
}

/* ceil(p / 100 * n) exactly, p taken to 7 decimals: with q = p * 1e7 and
 * n = a * 1e9 + b, it is q * a + ceil(q * b / 1e9); no term overflows. */
static inline uint64_t tsc__rank(uint64_t n, double p)
{
    const uint64_t e9 = UINT64_C(1000000000);
    uint64_t q = (uint64_t)(p * 1e7 + 0.5);
    return q * (n / e9) + (q * (n % e9) + e9 - 1) / e9;
}

static inline uint64_t tsc_stats_percentile(const struct tsc_stats *s, double p)
{
    uint64_t rank, seen = 0, mid;
    uint32_t i;
    if (!s || s->count == 0 || !(p >= 0 && p <= 100))
        return 0;
    rank = tsc__rank(s->count, p);
    if (rank <= 1)
        return s->min;
    if (rank >= s->count)
        return s->max;
    for (i = 0; i < TSC_STATS_BUCKETS; i++) {
        seen += s->bucket[i];
        if (seen >= rank)
            break;
    }
    mid = tsc__bucket_mid(i < TSC_STATS_BUCKETS ? i : TSC_STATS_BUCKETS - 1);
    return mid < s->min ? s->min : mid > s->max ? s->max : mid;
}

/* w += x, n words each, low word first, carrying; the top carry is lost. */
static inline void tsc__add_words(uint64_t *w, const uint64_t *x, int n)
{
    uint64_t c = 0, t;
    int i;
    for (i = 0; i < n; i++) {
        t = w[i] + x[i];
        w[i] = t + c;
        c = (t < x[i]) | (w[i] < c);
    }
}

static inline void tsc_stats_merge(struct tsc_stats *into, const struct tsc_stats *from)
{
    uint64_t n, mn, mx, mig, sum[2], sq[3];
    uint32_t i;
    if (!into || !from || from->count == 0)
        return;
    /* Copies first: into may be from. */
    n = from->count; mn = from->min; mx = from->max; mig = from->migrated;
    sum[0] = from->sum[0]; sum[1] = from->sum[1];
    sq[0] = from->sumsq[0]; sq[1] = from->sumsq[1]; sq[2] = from->sumsq[2];
    into->count += n;
    into->migrated += mig;
    into->min = mn < into->min ? mn : into->min;
    into->max = mx > into->max ? mx : into->max;
    tsc__add_words(into->sum, sum, 2);
    tsc__add_words(into->sumsq, sq, 3);
    for (i = 0; i < TSC_STATS_BUCKETS; i++)
        into->bucket[i] += from->bucket[i];
}

static inline uint64_t tsc_stats_count(const struct tsc_stats *s)
{
    return s ? s->count : 0;
}
static inline uint64_t tsc_stats_min(const struct tsc_stats *s)
{
    return s && s->count ? s->min : 0;
}
static inline uint64_t tsc_stats_max(const struct tsc_stats *s)
{
    return s && s->count ? s->max : 0;
}

static inline double tsc_stats_mean(const struct tsc_stats *s)
{
    if (!s || s->count == 0)
        return 0;
    return (ldexp((double)s->sum[1], 64) + (double)s->sum[0]) / (double)s->count;
}

/* w[k..3] += x, carrying upwards (256-bit, low word first). */
static inline void tsc__add_at(uint64_t w[4], int k, uint64_t x)
{
    for (; k < 4 && x; k++) {
        w[k] += x;
        x = w[k] < x;
    }
}

/* sd = sqrt(n * sumsq - sum^2) / n, the difference taken exactly in 256
 * bits: no cancellation whatever the magnitude of the samples. */
static inline double tsc_stats_stddev(const struct tsc_stats *s)
{
    uint64_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0}, hi, lo, borrow = 0;
    double d = 0;
    int i, j;
    if (!s || s->count < 2)
        return 0;
    for (i = 0; i < 3; i++) {
        tsc__mul_64x64(s->count, s->sumsq[i], &hi, &lo);
        tsc__add_at(a, i, lo);
        tsc__add_at(a, i + 1, hi);
    }
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++) {
            tsc__mul_64x64(s->sum[i], s->sum[j], &hi, &lo);
            tsc__add_at(b, i + j, lo);
            tsc__add_at(b, i + j + 1, hi);
        }
    for (i = 0; i < 4; i++) { /* a - b, a >= b (Cauchy-Schwarz) */
        uint64_t t = a[i] - b[i] - borrow;
        borrow = (a[i] < b[i]) || (a[i] == b[i] && borrow);
        a[i] = t;
    }
    for (i = 3; i >= 0; i--)
        d += ldexp((double)a[i], 64 * i);
    return sqrt(d) / (double)s->count;
}

/* v minus the overhead o, never below 0. */
static inline uint64_t tsc__minus(uint64_t v, uint64_t o)
{
    return v > o ? v - o : 0;
}

#define TSC__HIST_ROWS 16
#define TSC__HIST_BAR 40

/* Up to TSC__HIST_ROWS rows of log-spaced ranges over [lo, hi] (after the
 * overhead o is taken off), each bucket counted in the row of its midpoint. */
static inline void tsc__print_histogram(const struct tsc_stats *s, uint64_t o, FILE *out)
{
    uint64_t start[TSC__HIST_ROWS], end[TSC__HIST_ROWS], cnt[TSC__HIST_ROWS], most = 0;
    uint64_t lo = tsc__minus(s->min, o), hi = tsc__minus(s->max, o), first = lo;
    double base = lo ? (double)lo : 1.0, ratio = pow(((double)hi + 1.0) / base, 1.0 / TSC__HIST_ROWS);
    char bar[TSC__HIST_BAR + 1];
    int rows = 0, k;
    uint32_t i;
    for (k = 0; k < TSC__HIST_ROWS && first <= hi; k++) {
        double e = ceil(base * pow(ratio, k + 1)) - 1.0;
        uint64_t last = (k == TSC__HIST_ROWS - 1 || !(e < (double)hi)) ? hi : (uint64_t)e;
        if (last < first)
            continue; /* narrower than one value: merged into the next row */
        start[rows] = first;
        end[rows] = last;
        cnt[rows++] = 0;
        if (last == hi)
            break;
        first = last + 1;
    }
    for (i = 0; i < TSC_STATS_BUCKETS; i++) {
        uint64_t m;
        if (!s->bucket[i])
            continue;
        m = tsc__bucket_mid(i);
        m = tsc__minus(m < s->min ? s->min : m > s->max ? s->max : m, o);
        for (k = 0; k < rows - 1 && m > end[k]; k++)
            ;
        cnt[k] += s->bucket[i];
    }
    for (k = 0; k < rows; k++)
        most = cnt[k] > most ? cnt[k] : most;
    fprintf(out, "  histogram, ticks%s (count per range):\n", o ? " - overhead" : "");
    for (k = 0; k < rows; k++) {
        int len = cnt[k] ? (int)ceil((double)cnt[k] * TSC__HIST_BAR / (double)most) : 0;
        memset(bar, '#', (size_t)len);
        bar[len] = '\0';
        fprintf(out, "  %10" PRIu64 " .. %-10" PRIu64 " %10" PRIu64 " |%s\n", start[k], end[k],
                cnt[k], bar);
    }
}

/* The mean of the samples less o, each floored at 0: the plain mean less o,
 * plus what flooring gives back to samples below o (exact for o < 128,
 * where buckets hold single values; else from bucket midpoints). */
static inline double tsc__mean_minus(const struct tsc_stats *s, uint64_t o)
{
    double back = 0;
    uint32_t i;
    for (i = 0; o && i < TSC_STATS_BUCKETS && tsc__bucket_mid(i) < o; i++)
        back += (double)s->bucket[i] * (double)(o - tsc__bucket_mid(i));
    return tsc_stats_mean(s) - (double)o + back / (double)s->count;
}

static inline int tsc_stats_print_flags(const struct tsc_stats *s, const char *name, FILE *out,
                                        unsigned flags)
{
    static const double ps[4] = {50, 90, 99, 99.9};
    uint64_t v[6], o;
    double mean, sd, ns_per_tick;
    int i;
    if (!s || !out)
        return -EINVAL;
    if (!name)
        name = "stats";
    if (s->count == 0) {
        fprintf(out, "%s: no samples\n", name);
        return 0;
    }
    o = (flags & TSC_PRINT_SUB_OVERHEAD) ? tsc_overhead_ticks() : 0;
    v[0] = s->min;
    for (i = 0; i < 4; i++)
        v[i + 1] = tsc_stats_percentile(s, ps[i]);
    v[5] = s->max;
    for (i = 0; i < 6; i++)
        v[i] = tsc__minus(v[i], o);
    mean = tsc__mean_minus(s, o);
    sd = tsc_stats_stddev(s);
    ns_per_tick = 1e9 / tsc_ticks_per_second();
    fprintf(out, "%s: %" PRIu64 " samples", name, s->count);
    if (flags & TSC_PRINT_SUB_OVERHEAD) /* said even when it is 0 (coarse counters) */
        fprintf(out, ", overhead of %" PRIu64 " ticks subtracted", o);
    if (s->migrated)
        fprintf(out, ", %" PRIu64 " changed CPU", s->migrated);
    fprintf(out, "\n  %-5s %10s %10s %10s %10s %10s %10s   %s\n", "", "min", "p50", "p90", "p99",
            "p99.9", "max", "mean +- sd");
    fprintf(out, "  %-5s", "ticks");
    for (i = 0; i < 6; i++)
        fprintf(out, " %10" PRIu64, v[i]);
    fprintf(out, "   %.1f +- %.1f\n  %-5s", mean, sd, "ns");
    for (i = 0; i < 6; i++)
        fprintf(out, " %10" PRIu64, tsc_ticks_to_ns(v[i]));
    fprintf(out, "   %.1f +- %.1f\n", mean * ns_per_tick, sd * ns_per_tick);
    if (!(flags & TSC_PRINT_NO_HISTOGRAM))
        tsc__print_histogram(s, o, out);
    return 0;
}

static inline void tsc_stats_print(const struct tsc_stats *s, const char *name, FILE *out)
{
    tsc_stats_print_flags(s, name, out, 0);
}

/* --- macros: their helpers --------------------------------------------- */

static inline void tsc__log_ticks(FILE *out, const char *name, uint64_t ticks)
{
    if (out)
        fprintf(out, "%s: %" PRIu64 " ticks, %" PRIu64 " ns\n", name, ticks,
                tsc_ticks_to_ns(ticks));
}

static inline void tsc__log_timestamp(FILE *out, const char *name, uint64_t ns)
{
    if (out)
        fprintf(out, "%s: %" PRIu64 " ns\n", name, ns);
}

static inline int tsc__end_cpu(struct tsc_stats *s, uint64_t t0, uint32_t cpu0, int drop)
{
    uint32_t cpu1;
    uint64_t t1 = tsc_ticks_after_cpu(&cpu1);
    return tsc_stats_add_cpu(s, t1 - t0, cpu0, cpu1, drop);
}

/* --- regions: implementation ------------------------------------------- */

static inline int tsc_regions_init(struct tsc_regions *r, int n, const char *const *names)
{
    int i;
    if (!r || n < 1 || n > TSC_REGIONS_MAX)
        return -EINVAL;
    memset(r, 0, sizeof *r);
    for (i = 0; i < n && names; i++)
        r->name[i] = names[i];
    r->open = -1;
    r->n = n;
    return 0;
}

static inline int tsc_region_start(struct tsc_regions *r, int id)
{
    if (!r || id < 0 || id >= r->n || r->open >= 0)
        return -EINVAL;
    r->entries[id]++;
    r->open = id;
    r->since = tsc_ticks_before();
    return 0;
}

static inline int tsc_region_stop(struct tsc_regions *r)
{
    uint64_t t = tsc_ticks_after();
    if (!r || r->open < 0 || r->open >= r->n)
        return -EINVAL;
    r->ticks[r->open] += t - r->since;
    r->open = -1;
    return 0;
}

static inline int tsc_region_switch(struct tsc_regions *r, int id)
{
    uint64_t t;
    if (!r || id < 0 || id >= r->n)
        return -EINVAL;
    t = tsc_ticks_before();
    if (r->open >= 0 && r->open < r->n)
        r->ticks[r->open] += t - r->since;
    r->entries[id]++;
    r->open = id;
    r->since = t;
    return 0;
}

static inline uint64_t tsc_regions_total(const struct tsc_regions *r)
{
    uint64_t t = 0;
    int i;
    for (i = 0; r && i < r->n && i < TSC_REGIONS_MAX; i++)
        t += r->ticks[i];
    return t;
}

static inline void tsc_regions_print(const struct tsc_regions *r, FILE *out)
{
    uint64_t total = tsc_regions_total(r);
    int i;
    if (!r || !out)
        return;
    fprintf(out, "  %-16s %10s %16s %12s %7s\n", "region", "entries", "ticks", "seconds", "share");
    for (i = 0; i < r->n && i < TSC_REGIONS_MAX; i++) {
        char id[24];
        const char *name = r->name[i];
        if (!name) {
            snprintf(id, sizeof id, "region %d", i);
            name = id;
        }
        fprintf(out, "  %-16s %10" PRIu64 " %16" PRIu64 " %12.6f %6.1f%%\n", name, r->entries[i],
                r->ticks[i], tsc_ticks_to_seconds(r->ticks[i]),
                total ? 100.0 * (double)r->ticks[i] / (double)total : 0.0);
    }
    fprintf(out, "  %-16s %10s %16" PRIu64 " %12.6f %6.1f%%\n", "total", "", total,
            tsc_ticks_to_seconds(total), total ? 100.0 : 0.0);
}

#ifdef __cplusplus
}
#endif

#endif /* TSC_TIMER_H */
