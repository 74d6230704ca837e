/* tsc_timer.h 1.3.0 - cheap, correctly ordered timestamps and exact tick conversion.
 * SPDX-License-Identifier: MIT
 *
 * One header, C90 or later and C++11 or later, no build step, no library to
 * link (libm included), no macro needed to use it.
 *
 * ONE FILE OR MANY. Included as it is, every function is static in each
 * file that includes it: right for a program of one or a few files and for
 * quick experiments, but each such file compiles the whole implementation
 * (gcc -O2: +0.3 s and +11 KB of code for a file that times one region).
 * In a program of many files, define TSC_TIMER_EXTERN for every file (on
 * the command line, or in a header of yours included first) and, in
 * exactly one file, TSC_TIMER_IMPLEMENTATION before the include:
 *
 *     // tsc_timer_impl.c, compiled with -DTSC_TIMER_EXTERN like the rest
 *     #define TSC_TIMER_IMPLEMENTATION
 *     #include "tsc_timer.h"
 *
 * Every other file then compiles the declarations and the hot paths inline
 * (counter reads, conversion, the clock read, stats and trace updates:
 * +19 to +24 ms and +0.4 KB for that file in bench/results.md) and calls the
 * rest, compiled once in that one file. Without it, or with it twice, the program fails to link,
 * naming tsc_timer_needs_TSC_TIMER_IMPLEMENTATION_in_exactly_one_file. All
 * files of a program use one mode and one set of configuration macros: a
 * file built with others fails to link naming
 * tsc_timer_has_no_TSC_TIMER_IMPLEMENTATION_file_with_its_config_macros,
 * and plain files beside TSC_TIMER_EXTERN ones (two states) say so on
 * stderr at their first calibration.
 *
 * CONTENTS
 *   1. Usage
 *   2. Configuration
 *   3. Guarantees: threads, signals, fork, two copies of the header
 *   4. Public API: counter reads, frequency, trust, conversion, the clock
 *      and stored stamps, statistics, macros, regions, microbenchmarks,
 *      traces, zones (every declaration a user needs)
 *   5. Implementation (private, tsc__ prefix): platform choice, portability,
 *      the OS clock, CPUID, counter reads, shared state, calibration, first
 *      use, trust, conversion, the clock, statistics, printing,
 *      microbenchmarks, traces, zones
 *
 * 1. USAGE
 *
 *     #include "tsc_timer.h"
 *
 *     tsc_init();                              // one-time work, here, not later
 *     uint64_t t0 = tsc_ticks_before();        // fenced: nothing before leaks in
 *     work(in);                                // TSC_KEEP(in) / TSC_KEEP(out) pin
 *     uint64_t t1 = tsc_ticks_after();         //   inputs and results (see below)
 *     uint64_t ticks = tsc_sub_overhead(t1 - t0);   // minus an empty region's cost
 *     printf("%llu ticks = %llu ns\n", (unsigned long long)ticks,
 *            (unsigned long long)tsc_ticks_to_ns(ticks));
 *
 * tsc_init() does every piece of one-time work (counter choice, permission
 * check, calibration, overhead, the clock's line): a few milliseconds on
 * x86, where the frequency is measured (6.5 ms median, 8.4 ms at most, in
 * bench/results.md's calibration table). Without it the first use of each function does
 * its share, inside whatever region that use is timing.
 *
 * The compiler may move work across a counter read when nothing ties the
 * work to it: TSC_KEEP(x) makes it treat x as read and written at that point.
 *
 *     t0 = tsc_ticks_before();
 *     TSC_KEEP(x);                             // x is not known before here
 *     r = f(x);
 *     TSC_KEEP(r);                             // r is needed here
 *     t1 = tsc_ticks_after();
 *
 * A clock, for timestamps: tsc_now_ns() (CLOCK_MONOTONIC-compatible) and
 * tsc_now_realtime_ns() (CLOCK_REALTIME-compatible) are ordered across
 * threads as clock_gettime is, and cheaper (the _unordered forms cheaper
 * still, for stamps one thread compares with its own); call
 * tsc_clock_resync() about once a second (any thread) to keep them within
 * a microsecond of the system clocks while the kernel's clock keeps its
 * rate (what each kernel event does: section 3). tsc_clock_ticks() stores
 * the same counter read, for tsc_clock_ticks_to_ns() to convert later in
 * another thread.
 *
 * Hot loops: struct tsc_stats (percentiles, histogram), TSC_START/TSC_END,
 * TSC_MEASURE(&stats) { ... }, and struct tsc_regions for back-to-back
 * phases; TSC_BENCH(&b) { ... } for snippets below the timer's resolution;
 * TSC_TRACE(&t, "name") { ... } for a timeline (Chrome Trace Event JSON);
 * TSC_ZONE("name") { ... } and tsc_zones_print() for a profile of named
 * blocks over all threads (calls, self and total time, percentiles),
 * tsc_zones_trace() for their timeline too, with flows between threads;
 * tsc_trust() says whether the counter may be trusted; see section 4.
 *
 * COUNTERS (chosen once, in "Platform choice")
 *
 *   x86-64, i386   TSC. Before a region LFENCE;RDTSC;LFENCE, after it
 *                  RDTSCP;LFENCE (LFENCE;RDTSC;LFENCE where CPUID denies
 *                  RDTSCP; MFENCE on old AMD CPUs whose LFENCE does not
 *                  serialize; CPUID;RDTSC on CPUs without SSE2). Frequency
 *                  measured against CLOCK_MONOTONIC (QPC on Windows). If
 *                  Linux forbids RDTSC (prctl PR_SET_TSC) the OS clock.
 *   AArch64        CNTVCT_EL0 after ISB; frequency CNTFRQ_EL0, checked
 *                  against CLOCK_MONOTONIC at first use.
 *   ARMv7 Linux    CNTVCT where the kernel runs the generic timer (it then
 *                  sets HWCAP_EVTSTRM); frequency CNTFRQ. Else the OS clock.
 *   PPC64, PPC32   time base; frequency from glibc, measured where it is 0.
 *   RISC-V         rdtime (never rdcycle: Linux 6.6 made it trap);
 *                  frequency measured.
 *   s390x          STCKF, TOD clock: exactly 4096 units per microsecond.
 *   LoongArch64    rdtime.d; frequency from CPUCFG words 4 and 5.
 *   Apple, non-x86 mach_absolute_time; mach_timebase_info (exact).
 *   Windows,non-x86 QueryPerformanceCounter; QueryPerformanceFrequency.
 *   anything else  clock_gettime(CLOCK_MONOTONIC) in ns; 1e9 (exact).
 *
 * 2. CONFIGURATION (define before including; every unit of a program alike)
 *
 *   TSC_TIMER_FORCE_FALLBACK  read the OS clock everywhere (tests that path).
 *   TSC_TIMER_NO_RDTSCP       never execute RDTSCP, whatever CPUID says.
 *   TSC_TIMER_CALIBRATION_SECONDS  a fixed calibration window, in seconds.
 *                             Default: adaptive, it stops once the stated
 *                             uncertainty is 0.1 ppm or less, 8 ms at most.
 *   TSC_CALIBRATION_SECONDS   the old name of the above, still honoured.
 *   TSC_ZONES_MAX, TSC_ZONES_THREADS, TSC_ZONES_DEPTH
 *                             the zones' limits (section 4, zones).
 *   TSC_TIMER_TEST_*_HOOK     fault injection for the test suite only.
 *
 * 3. GUARANTEES
 *
 * - Readers never wait. The frequency and the clock's line are published in
 *   copies (a latch, as Linux's sched_clock does): a writer fills a copy
 *   nobody reads, then flips one counter, so a reader interrupted,
 *   preempted or forked at any point always finds a whole copy.
 * - One writer at a time, whatever the scheduler does. A writer stopped
 *   in the middle (preempted, in a debugger), at whatever step, has its
 *   claim taken over after 1 s (a claim is stamped with its time before it
 *   is taken); its copy is its own (four per latch: in force, being filled,
 *   two spares), and its publication, one CAS from the counter it saw when
 *   it took the claim, fails once the claim was taken over (-EAGAIN).
 * - tsc_now_ns() never goes back: across resyncs (a late one publishes
 *   nothing), across a counter that went back (reset on resume, a VM
 *   restored), and across a counter that ran on while CLOCK_MONOTONIC stood
 *   still (a suspend, a VM paused): ahead by D, the clock runs slower from
 *   the next resync and is on CLOCK_MONOTONIC again D + 2 resync intervals
 *   after the event at the latest (measured in a guest kernel: 1 s and 3 s
 *   suspends, ci/guest-x86.sh). Behind, it is stepped forward at the next
 *   resync.
 * - Through the kernel's time events, with I the resync interval (measured
 *   in a guest kernel under qemu: ci/guest-x86.sh, docs/clock.md "What
 *   kernel events do to the clock"): each resync reads the kernel's rate
 *   (a read-only adjtimex on Linux) and takes a change of it at once. A rate
 *   change d of CLOCK_MONOTONIC (ADJ_FREQUENCY, ADJ_TICK up to 10 %,
 *   adjtime()) is |d| x I off at most before the next resync; a lasting one
 *   is on the clock within about 2 I (500 ppm: 0.44 ms, 1.9 s); a slew that
 *   ends between two resyncs was followed to the next, which catches it
 *   (a 1 s ADJ_TICK slew of +-1 % or +-10 %: 9-96 ms off, on the clock 1.9-3.9 s
 *   later); a realtime step (clock_settime, a leap second) shows in
 *   tsc_now_realtime_ns() until the next resync; a clocksource switch
 *   (tsc, hpet, acpi_pm) costs no failed resync (0 of 3 after each, on an
 *   idle guest) and agrees within the OS clock's bracket; a suspend of D is
 *   on the clock by D + 2 I. Stamps converted later, across any of these,
 *   convert to what tsc_now_ns() read then (within 1 us), in order.
 * - First use never hangs. A thread that re-enters the library while it
 *   calibrates (a signal handler, a clock_gettime built on tsc_now_ns())
 *   gets an answer at once: conversions from a quick local calibration that
 *   is not published, the clock from the OS. A thread that finds another
 *   one calibrating waits at most 200 ms, then calibrates itself. Work held
 *   by a thread of the parent before fork(), or abandoned by siglongjmp(),
 *   is taken over (the owner's process id and start time are kept with it);
 *   a thread that jumped out is no longer taken for one inside that work
 *   once its claim is a second old.
 *   Exactly one calibration is published as the process-wide one.
 * - Calibration is bounded in time and iterations; where no clean sample
 *   can be had it falls back to the end points, with the bound they give.
 * - Async-signal-safe after tsc_init(): every counter read, conversion and
 *   clock read (tsc_now_ns, tsc_now_realtime_ns); tsc_trust() at any time. tsc_clock_resync() and
 *   tsc_calibrate() from a handler that interrupted another writer return
 *   -EAGAIN.
 * - Two versions of this header in one program (two libraries, a library
 *   and the executable) each keep their own state: its symbol's name holds
 *   the version and configuration. Each calibrates once.
 */
#ifndef TSC_TIMER_H
#define TSC_TIMER_H

#define TSC_TIMER_VERSION_MAJOR 1
#define TSC_TIMER_VERSION_MINOR 3
#define TSC_TIMER_VERSION_PATCH 0

/* The compilers it is written for: GCC and Clang (and those that have their
 * __atomic builtins, as zig cc and Intel's icx do) and MSVC. Another stops
 * here, with one line, rather than at the first construct it lacks deep
 * below (tcc has no __atomic builtins; pcc defines __GNUC__ without them). */
#if !(defined(_MSC_VER) || ((defined(__GNUC__) || defined(__clang__)) && defined(__ATOMIC_ACQUIRE)))
#error "tsc_timer.h supports GCC, Clang (or another compiler with their __atomic builtins) and MSVC; this compiler is none of them"
#endif

#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

#if !defined(TSC_TIMER_CALIBRATION_SECONDS) && defined(TSC_CALIBRATION_SECONDS)
#define TSC_TIMER_CALIBRATION_SECONDS TSC_CALIBRATION_SECONDS
#endif
/* The zones' limits (section 4, zones): plain decimal numbers, as they
 * become part of the zones' symbol names. */
#ifndef TSC_ZONES_MAX
#define TSC_ZONES_MAX 256
#endif
#ifndef TSC_ZONES_THREADS
#define TSC_ZONES_THREADS 64
#endif
#ifndef TSC_ZONES_DEPTH
#define TSC_ZONES_DEPTH 32
#endif
#if TSC_ZONES_MAX < 1 || TSC_ZONES_THREADS < 1 || TSC_ZONES_DEPTH < 1
#error "tsc_timer.h: TSC_ZONES_MAX, TSC_ZONES_THREADS and TSC_ZONES_DEPTH must be at least 1"
#endif
/* (a pool of records shared by all threads once; a program that sized it
 * would otherwise get, silently, something else than it asked for) */
#if defined(TSC_ZONES_RECORDS)
#error "tsc_timer.h: TSC_ZONES_RECORDS is gone: every (zone, thread) pair is recorded, each thread allocating its records as it needs them; TSC_ZONES_MAX and TSC_ZONES_THREADS bound them. Remove its definition."
#endif

/* A private inline keyword: C90 has none. */
#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define TSC__INLINE inline
#elif defined(__GNUC__) || defined(__clang__)
#define TSC__INLINE __inline__
#elif defined(_MSC_VER)
#define TSC__INLINE __inline
#else
#define TSC__INLINE
#endif
#define TSC__FN static TSC__INLINE

/* How it is included. Without a macro, every function is static in every
 * file that includes it. With TSC_TIMER_EXTERN in every file of a program
 * (TSC_TIMER_IMPLEMENTATION implies it) and TSC_TIMER_IMPLEMENTATION in
 * exactly one, each file compiles the declarations and the hot paths
 * inline (counter reads, conversion, the clock read, stats and trace
 * updates), and that one file everything else, once: TSC__API marks the
 * functions compiled once, TSC__IMPL the code only that file compiles. */
#if defined(TSC_TIMER_EXTERN) || defined(TSC_TIMER_IMPLEMENTATION)
#define TSC__EXTERN 1
#define TSC__API
#if defined(TSC_TIMER_IMPLEMENTATION)
#define TSC__IMPL 1
#else
#define TSC__IMPL 0
#endif
#else
#define TSC__API TSC__FN
#define TSC__IMPL 1
#endif

/* Names that hold the version and configuration: a program whose parts
 * were built with different versions (or modes) of this header keeps one
 * state per version, and the compiled-once functions of one are never
 * called by the other. */
#define TSC__CAT2(a, b) a##b
#define TSC__CAT(a, b) TSC__CAT2(a, b)
#if defined(TSC_TIMER_FORCE_FALLBACK)
#define TSC__CFG _f
#elif defined(TSC_TIMER_NO_RDTSCP)
#define TSC__CFG _n
#else
#define TSC__CFG _d
#endif
#define TSC__VERNAME(p)                                                      \
    TSC__CAT(TSC__CAT(TSC__CAT(TSC__CAT(TSC__CAT(p, TSC_TIMER_VERSION_MAJOR), _), \
             TSC_TIMER_VERSION_MINOR), _), TSC_TIMER_VERSION_PATCH)
#define TSC__VNAME(p) TSC__CAT(TSC__VERNAME(p), TSC__CFG)
/* The zones' names hold their limits too: a file built with other limits
 * than the implementation's, or two libraries with different limits, never
 * share the zones' state (one object of two sizes). */
#define TSC__ZCFG                                                             \
    TSC__CAT(TSC__CAT(TSC__CAT(TSC__CAT(TSC__CAT(_z, TSC_ZONES_MAX), _), TSC_ZONES_THREADS), _), \
             TSC_ZONES_DEPTH)
#define TSC__ZVNAME(p) TSC__CAT(TSC__VNAME(p), TSC__ZCFG)
#if defined(TSC__EXTERN)
/* (the compiled-once functions, public and private, by versioned names) */
#define tsc_bench_get_result TSC__VNAME(tsc_bench_get_result_v)
#define tsc_bench_init TSC__VNAME(tsc_bench_init_v)
#define tsc_bench_print TSC__VNAME(tsc_bench_print_v)
#define tsc_bench_set_budget TSC__VNAME(tsc_bench_set_budget_v)
#define tsc_bench_write TSC__VNAME(tsc_bench_write_v)
#define tsc_calibrate TSC__VNAME(tsc_calibrate_v)
#define tsc_clock_resync TSC__VNAME(tsc_clock_resync_v)
#define tsc_clock_ticks_to_ns TSC__VNAME(tsc_clock_ticks_to_ns_v)
#define tsc_clock_ticks_to_realtime_ns TSC__VNAME(tsc_clock_ticks_to_realtime_ns_v)
#define tsc_clock_elapsed_ns TSC__VNAME(tsc_clock_elapsed_ns_v)
#define tsc_counter_name TSC__VNAME(tsc_counter_name_v)
#define tsc_current_calibration TSC__VNAME(tsc_current_calibration_v)
#define tsc_get_features TSC__VNAME(tsc_get_features_v)
#define tsc_get_trust TSC__VNAME(tsc_get_trust_v)
#define tsc_init TSC__VNAME(tsc_init_v)
#define tsc_regions_init TSC__VNAME(tsc_regions_init_v)
#define tsc_regions_print TSC__VNAME(tsc_regions_print_v)
#define tsc_regions_total TSC__VNAME(tsc_regions_total_v)
#define tsc_stats_count TSC__VNAME(tsc_stats_count_v)
#define tsc_stats_init TSC__VNAME(tsc_stats_init_v)
#define tsc_stats_max TSC__VNAME(tsc_stats_max_v)
#define tsc_stats_mean TSC__VNAME(tsc_stats_mean_v)
#define tsc_stats_merge TSC__VNAME(tsc_stats_merge_v)
#define tsc_stats_min TSC__VNAME(tsc_stats_min_v)
#define tsc_stats_percentile TSC__VNAME(tsc_stats_percentile_v)
#define tsc_stats_print TSC__VNAME(tsc_stats_print_v)
#define tsc_stats_print_flags TSC__VNAME(tsc_stats_print_flags_v)
#define tsc_stats_stddev TSC__VNAME(tsc_stats_stddev_v)
#define tsc_stats_sum TSC__VNAME(tsc_stats_sum_v)
#define tsc_trace_add TSC__VNAME(tsc_trace_add_v)
#define tsc_trace_dropped TSC__VNAME(tsc_trace_dropped_v)
#define tsc_trace_init TSC__VNAME(tsc_trace_init_v)
#define tsc_trace_write_json TSC__VNAME(tsc_trace_write_json_v)
#define tsc_trust_measure_skew TSC__VNAME(tsc_trust_measure_skew_v)
#define tsc_zones_print TSC__ZVNAME(tsc_zones_print_v)
#define tsc_zones_print_at_exit TSC__ZVNAME(tsc_zones_print_at_exit_v)
#define tsc_zones_reset TSC__ZVNAME(tsc_zones_reset_v)
#define tsc_zones_write TSC__ZVNAME(tsc_zones_write_v)
#define tsc_zones_trace TSC__ZVNAME(tsc_zones_trace_v)
#define tsc_zones_thread_name TSC__ZVNAME(tsc_zones_thread_name_v)
#define tsc_zones_write_trace TSC__ZVNAME(tsc_zones_write_trace_v)
#define tsc__flow TSC__ZVNAME(tsc__flow_v)
#define tsc__zone_mark TSC__ZVNAME(tsc__zone_mark_v)
#define tsc__zone_trace_full TSC__ZVNAME(tsc__zone_trace_full_v)
#define tsc__after_slow TSC__VNAME(tsc__after_slow_v)
#define tsc__before_slow TSC__VNAME(tsc__before_slow_v)
#define tsc__bench_account TSC__VNAME(tsc__bench_account_v)
#define tsc__clock_first TSC__VNAME(tsc__clock_first_v)
#define tsc__clock_os TSC__VNAME(tsc__clock_os_v)
#define tsc__clock_slow TSC__VNAME(tsc__clock_slow_v)
#define tsc__clock_ticks_slow TSC__VNAME(tsc__clock_ticks_slow_v)
#define tsc__detect_mode TSC__VNAME(tsc__detect_mode_v)
#define tsc__end_cpu TSC__VNAME(tsc__end_cpu_v)
#define tsc__zone_enter_slow TSC__ZVNAME(tsc__zone_enter_slow_v)
#define tsc__zone_unwind TSC__ZVNAME(tsc__zone_unwind_v)
#define tsc__zone_abandon TSC__ZVNAME(tsc__zone_abandon_v)
#define tsc__freq_first TSC__VNAME(tsc__freq_first_v)
#define tsc__log_ticks TSC__VNAME(tsc__log_ticks_v)
#define tsc__log_timestamp TSC__VNAME(tsc__log_timestamp_v)
#define tsc__measure_overhead TSC__VNAME(tsc__measure_overhead_v)
#define tsc__os_ns TSC__VNAME(tsc__os_ns_v)
#endif

/* Casts that C++'s -Wold-style-cast accepts, in the header and in the
 * user's files where its macros expand: TSC__CAST converts a value (or
 * adds qualifiers to a pointer), TSC__RCAST reinterprets a pointer,
 * TSC__CCAST takes const off one. */
#ifdef __cplusplus
#define TSC__CAST(T, x) (static_cast<T>(x))
#define TSC__RCAST(T, x) (reinterpret_cast<T>(x))
#define TSC__CCAST(T, x) (const_cast<T>(x))
#else
#define TSC__CAST(T, x) ((T)(x))
#define TSC__RCAST(T, x) ((T)(x))
#define TSC__CCAST(T, x) ((T)(x))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* 4. Public API                                                            */
/* ======================================================================== */

/* --- types ------------------------------------------------------------- */

/* What the CPU and OS say about the counter. 1 = yes, 0 = no. Fields that do
 * not apply to this platform are 0. */
struct tsc_features {
    int has_counter;         /* a user-readable hardware counter is used     */
    int has_tsc;             /* x86: CPUID.1:EDX[4]                          */
    int has_rdtscp;          /* x86: CPUID.80000001h:EDX[27] (may lie: VMs)  */
    int has_invariant_tsc;   /* x86: CPUID.80000007h:EDX[8], constant rate   */
    int os_allows_counter;   /* Linux x86: prctl(PR_GET_TSC) allowed RDTSC when
                                the counter was chosen (it is per thread)    */
    int hypervisor;          /* x86: CPUID.1:ECX[31]                         */
    int uses_rdtscp;         /* tsc_ticks_after() executes RDTSCP            */
    int frequency_is_architectural; /* exact from a register/OS, not measured */
    double cpuid_15_hz;      /* x86: crystal x EBX/EAX from leaf 0x15, or 0   */
    double cpuid_16_hz;      /* x86: base MHz from leaf 0x16 (nominal), or 0  */
    double hypervisor_hz;    /* x86: leaf 0x40000010 EAX kHz, or 0           */
    double architectural_hz; /* the exact frequency where there is one, or 0 */
};

/* One calibration: what was found and how well. Measured while the kernel
 * slewed CLOCK_MONOTONIC (Linux x86, a read-only adjtimex: a tick off its
 * nominal 10,000 us as chrony's fast slews set, an adjtime() in progress,
 * a PLL offset), the uncertainty includes the slew's rate (ADJ_TICK +1 %:
 * 10,000 ppm) and the method says "while the kernel slewed it". */
struct tsc_calibration {
    double ticks_per_second; /* counter frequency, Hz                        */
    double uncertainty_ppm;  /* bound on the error vs the reference clock    */
    double seconds_spent;    /* wall time the calibration took               */
    const char *method;      /* e.g. "measured against CLOCK_MONOTONIC"      */
    uint64_t samples;        /* bracketed clock reads used (0: architectural) */
    uint64_t bracket_ticks;  /* narrowest counter|clock|counter bracket      */
};

/* Samples in ticks: count, exact min and max, exact integer sums for the
 * mean and standard deviation, and a log-linear histogram for percentiles
 * (values below 128 exactly, above that 64 buckets per power of two, each
 * within 1/128 of its values: 3776 counters, 30 KiB). Adding is O(1) and
 * merging is exact: merging A into B gives, bit for bit, the object that
 * adding A's samples to B would. Read it through the functions below. */
#define TSC_STATS_BUCKETS 3776
struct tsc_stats {
    uint64_t count;     /* samples recorded                                 */
    uint64_t min, max;  /* UINT64_MAX and 0 while empty                     */
    uint64_t sum[2];    /* sum of samples, 128 bits, low word first         */
    uint64_t sumsq[3];  /* sum of squares, 192 bits, low word first         */
    uint64_t migrated;  /* samples that changed CPU (tsc_stats_add_cpu)     */
    uint64_t bucket[TSC_STATS_BUCKETS];
};

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

/* --- one-time work ----------------------------------------------------- */

/* Does every piece of one-time work now: chooses the counter, checks the
 * permission to read it, calibrates (a few ms on x86, adaptive, at most 8 ms; nothing
 * where the frequency is architectural), measures the overhead and sets the
 * clock's line up. Afterwards the first call of every function costs what
 * later calls cost. Idempotent and thread-safe. 0; -EPERM where the OS
 * forbids the counter, -ENODEV where there is none (the OS clock is then in
 * use, and everything works on it); -EAGAIN when called from a signal
 * handler that interrupted the library's own one-time work. */
TSC__API int tsc_init(void);

/* --- counter reads ----------------------------------------------------- */

/* Counter read to take before a region: later instructions cannot start
 * before it, earlier ones have completed. Ticks; ~10-25 ns on x86. */
TSC__FN uint64_t tsc_ticks_before(void);
/* Counter read to take after a region: the region has completed before it,
 * later instructions cannot start before it. Ticks. */
TSC__FN uint64_t tsc_ticks_after(void);
/* As tsc_ticks_after(), and stores the CPU it ran on (UINT32_MAX if unknown)
 * in *cpu: from RDTSCP's TSC_AUX on Linux x86, else sched_getcpu(). */
TSC__FN uint64_t tsc_ticks_after_cpu(uint32_t *cpu);
/* As tsc_ticks_before(), plus the CPU it starts on (taken just before the
 * read, so the query is not timed), for samples that must not migrate. */
TSC__FN uint64_t tsc_ticks_before_cpu(uint32_t *cpu);
/* Which counter this process reads and how it is fenced, e.g.
 * "x86 TSC (LFENCE;RDTSC;LFENCE / RDTSCP;LFENCE)", or why the OS clock is
 * read instead ("OS clock (RDTSC forbidden by prctl PR_SET_TSC)"). */
TSC__API const char *tsc_counter_name(void);
/* CPU and OS facts about the counter. CPUID runs once per call (costs
 * microseconds in a VM); the OS permission is the answer cached when the
 * counter was chosen. */
TSC__API struct tsc_features tsc_get_features(void);
/* The former name, kept: tsc_features() is tsc_get_features(). */
#define tsc_features() tsc_get_features()

/* --- trust: may this counter be used for timing? ------------------------ */

/* Verdict levels, gravest last. */
#define TSC_TRUST_OK 0      /* constant rate, same on every CPU             */
#define TSC_TRUST_CAUTION 1 /* probably fine; nothing vouches for it        */
#define TSC_TRUST_UNSAFE 2  /* rate or offsets may change: use the OS clock */

/* A verdict on the counter in use, with why. */
struct tsc_trust {
    int level;          /* TSC_TRUST_*                                      */
    const char *reason; /* short, static, never NULL or empty               */
};

/* The verdict from CPUID (TSC, invariant TSC, hypervisor), the kernel's
 * clocksource (Linux /sys) and the permission to read. The first call reads
 * two /sys files with system calls (tens of microseconds; no lock and no
 * allocation, so async-signal-safe too); later calls are one load.
 * Thread-safe; every caller gets the same verdict. Where the verdict rests
 * on the kernel keeping time with the TSC (Linux x86), each
 * tsc_clock_resync() reads its current clocksource again (one /sys file):
 * once the kernel switched away (an administrator, or its watchdog marking
 * the TSC unstable) the verdict is CAUTION with that reason; back on tsc,
 * the first verdict again. tsc_trust() calls it: a
 * function of the struct's name would hide the struct in C++ (as
 * tsc_features() and tsc_bench_result() do). */
TSC__API struct tsc_trust tsc_get_trust(void);
#define tsc_trust() tsc_get_trust()
/* Moves the calling thread across every CPU it may run on (Linux), compares
 * each CPU's counter with CLOCK_MONOTONIC and stores in *bound_ticks a bound
 * on the counter offsets between any two of them; the thread's CPU affinity
 * is restored. Milliseconds. 0; -EINVAL for a NULL bound_ticks; -ENOSYS off
 * Linux; another negative errno where the affinity could not be read or
 * restored. *bound_ticks is 0 where no CPU could be measured. */
TSC__API int tsc_trust_measure_skew(uint64_t *bound_ticks);

/* --- frequency and conversion ------------------------------------------ */

/* Counter frequency in Hz. The first call in the process calibrates unless
 * tsc_init() did or the frequency is architectural; later calls cost a few
 * loads. Thread-safe: every caller gets the one published calibration. */
TSC__FN double tsc_ticks_per_second(void);
/* Measures the frequency over `seconds` of busy-waiting (or takes the
 * architectural one at once) and makes it the one every conversion uses.
 * 0 on success; -EINVAL for seconds <= 0, NaN, infinite or above 60, or a
 * NULL out, and then nothing changes but *out, zeroed; -EAGAIN when it
 * could not publish (a signal handler that interrupted another publication;
 * the result is still in *out, or zeros where none was measured). */
TSC__API int tsc_calibrate(double seconds, struct tsc_calibration *out);
/* The calibration behind the frequency in use (calibrating if none yet).
 * 0, or -EINVAL for a NULL out. */
TSC__API int tsc_current_calibration(struct tsc_calibration *out);
/* Ticks to nanoseconds, rounded to nearest: within 1 ns of ticks*1e9/Hz for
 * every 64-bit input, UINT64_MAX where the result does not fit. A 128-bit
 * multiply; ~1-2 ns. */
TSC__FN uint64_t tsc_ticks_to_ns(uint64_t ticks);
/* Ticks to seconds, as a double. */
TSC__FN double tsc_ticks_to_seconds(uint64_t ticks);
/* Nanoseconds to ticks, rounded to nearest, saturating at UINT64_MAX. */
TSC__FN uint64_t tsc_ns_to_ticks(uint64_t ns);
/* Ticks of an empty before/after region (the minimum of 2048), measured once
 * per process and cached. Subtract it to time short regions. */
TSC__FN uint64_t tsc_overhead_ticks(void);
/* ticks - tsc_overhead_ticks(), or 0 where that would go below zero. */
TSC__FN uint64_t tsc_sub_overhead(uint64_t ticks);

/* --- the clock --------------------------------------------------------- */

/* The counter converted to nanoseconds on a line kept locked to the system
 * clocks: an ordered counter read, a latch read and a multiply (x86 Linux:
 * the cheaper of LFENCE;RDTSC and RDTSCP plus 2.2 ns, 0.88 of
 * clock_gettime on the AMD EPYC VM of bench/results.md). Where the counter
 * is the OS clock these are the OS clock itself.
 *
 * Ordered as clock_gettime is: a reading is taken after every load before
 * it, so a thread that loads a stamp another thread stored and then reads
 * the clock never gets an earlier time than the stamp (a queue's "sent" in
 * one thread, "received" in another). On x86 the counter is read with
 * LFENCE;RDTSC or RDTSCP (the cheaper one here, chosen at first use), on
 * AArch64 and ARMv7 after ISB, on PowerPC after isync, on RISC-V after
 * fence, on s390x after BCR 15,0, on LoongArch after dbar. */
/* CLOCK_MONOTONIC-compatible nanoseconds (QPC-based on Windows); never goes
 * backwards within a thread, across resyncs too, nor across threads as
 * above. */
TSC__FN uint64_t tsc_now_ns(void);
/* CLOCK_REALTIME-compatible nanoseconds since 1970: tsc_now_ns() plus the
 * realtime - monotonic offset, re-measured at each resync and changed only
 * where it moved beyond the two measurements' uncertainty (a step of
 * CLOCK_REALTIME), so that noise does not move realtime readings, or where
 * the new measurement is narrower and inside the kept one's interval (that
 * one was disturbed): the kept uncertainty only narrows. */
TSC__FN uint64_t tsc_now_realtime_ns(void);
/* Measures the clock's offset and rate against the system clock and steers
 * the line towards it (bounded slew, never a step back). Call it about once
 * a second, from any thread. 0; -EAGAIN when no clean measurement could be
 * taken (a loaded machine) or another resync is running (this one then
 * does nothing). 0 at once where the counter is the OS clock. */
TSC__API int tsc_clock_resync(void);
/* The same readings with the bare counter read (a plain RDTSC on x86, no
 * ISB on AArch64, the ordered read elsewhere), ~8 ns cheaper on x86. Within
 * one thread they never go back either, and they agree with the ordered
 * forms; across threads they may: the CPU may read the counter before a
 * load that precedes it, so a stamp loaded from another thread can be
 * later than the reading taken after the load (measured on one VM: from
 * 1 in 100,000 to 1 in 6 hand-overs early, by under 100 ns nearly all,
 * the worst 0.7 us idle and 3 us under load; bench/results.md).
 * For durations and stamps that one thread takes and compares. */
TSC__FN uint64_t tsc_now_ns_unordered(void);
TSC__FN uint64_t tsc_now_realtime_ns_unordered(void);
/* Stamp now, convert later. tsc_clock_ticks() is the ordered counter read
 * tsc_now_ns() makes, to store on a hot path (tsc_clock_ticks_unordered()
 * the bare one, with the hazard above);
 * tsc_clock_ticks_to_ns() turns such a stamp, from any thread and any time
 * later, into what tsc_now_ns() returned at that moment: exactly while the
 * stamp is newer than the last-but-one resync, then by interpolating the
 * clock's records (one per resync, and where a line bent or stepped by
 * more than 1 us, after a suspend or a slew, one more there; the last 62
 * kept, and every 64th of the older ones, 62 or 63 kept) within 1 us or
 * the line's correction at a resync, which is the clock's jitter in steady
 * state (bench/results.md measures it). Stamps older than every record are extrapolated at the current
 * rate. A result is never later than the clock at the conversion, so a
 * stamp from before a counter that went back (a reset on resume) cannot
 * convert into the future. Where the counter is the OS clock the stamps
 * are its nanoseconds. The realtime form adds the current realtime offset. */
TSC__FN uint64_t tsc_clock_ticks(void);
TSC__FN uint64_t tsc_clock_ticks_unordered(void);
TSC__API uint64_t tsc_clock_ticks_to_ns(uint64_t ticks);
TSC__API uint64_t tsc_clock_ticks_to_realtime_ns(uint64_t ticks);
/* The nanoseconds from stamp `from` to stamp `to` (two tsc_clock_ticks()
 * values, of one thread or two: a queue's "sent" and "received"), as
 * tsc_now_ns() measured them; negative where `to` is the earlier. A stamp
 * is not a count of counter ticks (where the counter is the OS clock it is
 * nanoseconds): convert the difference of two stamps with this, never
 * with tsc_ticks_to_ns(). In C++, tsc::stamp keeps the two apart. */
TSC__API int64_t tsc_clock_elapsed_ns(uint64_t from, uint64_t to);
/* C++ (C++11 and later; declared at the end of the header, namespace tsc):
 *   tsc::stamp            a stored stamp of its own type: stamp::now(),
 *                         .value (the uint64_t to store or send; stamp{v}
 *                         makes one back), .ns(), .realtime_ns(), b - a
 *                         (tsc_clock_elapsed_ns: int64_t ns), <, ==;
 *   tsc::measure_scope    m(&stats): the time to the end of the scope,
 *                         however it is left, into stats;
 *   tsc::clock, tsc::realtime_clock  std::chrono clocks on tsc_now_ns()
 *                         and tsc_now_realtime_ns() (where <chrono> was
 *                         included first, or TSC_TIMER_CHRONO is defined),
 *                         with clock::from_stamp(s). */

/* --- statistics -------------------------------------------------------- */

/* Empties s. Costs a 30 KiB memset. */
TSC__API void tsc_stats_init(struct tsc_stats *s);
/* Records one sample. O(1): a handful of adds, one multiply, one counter
 * increment (bench/bench_stats.c measures it). A NULL s records nothing. */
TSC__FN void tsc_stats_add(struct tsc_stats *s, uint64_t ticks);
/* Records a sample timed from a start on CPU cpu0 to an end on CPU cpu1
 * (UINT32_MAX: unknown). Where both are known and differ, the sample is
 * counted in s->migrated and, if drop is nonzero, not recorded. Returns 1 if
 * recorded, 0 if dropped. */
TSC__FN int tsc_stats_add_cpu(struct tsc_stats *s, uint64_t ticks, uint32_t cpu0,
                              uint32_t cpu1, int drop);
/* The nearest-rank p-th percentile, p in [0, 100] (taken to 7 decimals):
 * the smallest sample with at least p% of the samples at or below it;
 * p = 0 gives the min, p = 100 the max, both exact. Other values are within
 * 1/128 of the exact one (the bucket's midpoint, clamped to [min, max]).
 * 0 for an empty object, p outside [0, 100], NaN or a NULL s. Walks the
 * histogram: microseconds, not for the hot path. */
TSC__API uint64_t tsc_stats_percentile(const struct tsc_stats *s, double p);
/* Adds every sample of `from` to `into`, migrations included (exact;
 * into == from doubles it). */
TSC__API void tsc_stats_merge(struct tsc_stats *into, const struct tsc_stats *from);
/* Count, min, max (0 when empty), the total of all samples (exact up to the
 * double's 53 bits), mean and population standard deviation (0 when
 * empty), in ticks. The deviation comes from the exact integer sums, so
 * samples far from zero with a tiny spread lose nothing. */
TSC__API uint64_t tsc_stats_count(const struct tsc_stats *s);
TSC__API uint64_t tsc_stats_min(const struct tsc_stats *s);
TSC__API uint64_t tsc_stats_max(const struct tsc_stats *s);
TSC__API double tsc_stats_sum(const struct tsc_stats *s);
TSC__API double tsc_stats_mean(const struct tsc_stats *s);
TSC__API double tsc_stats_stddev(const struct tsc_stats *s);
/* Prints a table in ticks and ns (min, p50, p90, p99, p99.9, max, mean +- sd,
 * count) and a histogram of up to 16 log-spaced rows to out. */
TSC__API void tsc_stats_print(const struct tsc_stats *s, const char *name, FILE *out);
/* Flags of tsc_stats_print_flags. TSC_PRINT_SUB_OVERHEAD subtracts
 * tsc_overhead_ticks() from every value shown, floored at 0 (the mean is
 * that of the floored samples; the deviation, the raw samples'). */
#define TSC_PRINT_SUB_OVERHEAD 1u
#define TSC_PRINT_NO_HISTOGRAM 2u /* the table only */
/* TSC_PRINT_NS: the samples are nanoseconds already (differences of
 * stamps, tsc_clock_elapsed_ns): shown as they are, in one row of ns;
 * -EINVAL with TSC_PRINT_SUB_OVERHEAD, a figure in ticks. */
#define TSC_PRINT_NS 4u
/* As tsc_stats_print, with flags. 0, or -EINVAL for a NULL s or out. */
TSC__API int tsc_stats_print_flags(const struct tsc_stats *s, const char *name, FILE *out,
                                  unsigned flags);

/* --- regions ----------------------------------------------------------- */

/* Empties r and names regions 0 .. n-1 after names[] (may be NULL; the
 * strings must outlive r). 0, or -EINVAL for a NULL r or n outside
 * [1, TSC_REGIONS_MAX] (r then holds no region: every call on it fails). */
TSC__API int tsc_regions_init(struct tsc_regions *r, int n, const char *const *names);
/* Opens region id (one counter read). -EINVAL, changing nothing, for a bad
 * id or when a region is already open. */
TSC__FN int tsc_region_start(struct tsc_regions *r, int id);
/* Closes the open region (one counter read). -EINVAL if none is open. */
TSC__FN int tsc_region_stop(struct tsc_regions *r);
/* Closes the open region, if any, and opens id, with one counter read.
 * -EINVAL, changing nothing, for a bad id. */
TSC__FN int tsc_region_switch(struct tsc_regions *r, int id);
/* Sum of the regions' ticks (an open region's running time not included). */
TSC__API uint64_t tsc_regions_total(const struct tsc_regions *r);
/* Prints each region's entries, ticks, time (ns, us, ms or s, whichever
 * reads best) and share of the total. */
TSC__API void tsc_regions_print(const struct tsc_regions *r, FILE *out);

/* --- macros ------------------------------------------------------------ */

/* TSC_KEEP(x): x, an lvalue of a scalar type (integer, pointer, float,
 * double; not long double under clang), is taken as read and written at
 * this point: work that produces x stays before it, work that uses x stays
 * after it, and neither is optimised away. Costs nothing beyond keeping x
 * in a register or in memory. Put inputs through it after the start read
 * and results before the end read. */
#if defined(__GNUC__) || defined(__clang__)
#define TSC_KEEP(x) __asm__ __volatile__("" : "+g"(x))
#else
#define TSC_KEEP(x) tsc__keep_ptr(&(x))
#endif

/* TSC_START(t) declares `const uint64_t t` = tsc_ticks_before(); under
 * -Wdeclaration-after-statement write `t = tsc_ticks_before();` instead.
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

/* TSC_MEASURE(stats) { ... } records the time the block takes into stats
 * (C99 or C++: it declares its variables in a for statement). It is two
 * nested one-pass for loops, so:
 *   - `break` or `continue` in the block leave the block, and the time up to
 *     there is recorded; neither reaches a loop around TSC_MEASURE, which
 *     goes on with its next statement. To leave that loop, set a flag in the
 *     block and test it after.
 *   - `return`, `goto` or longjmp out of the block record nothing. */
#define TSC__MV(name) TSC__CAT(name, __LINE__)
#define TSC_MEASURE(stats)                                                    \
    for (uint64_t TSC__MV(tsc__t0_) = tsc_ticks_before(), TSC__MV(tsc__once_) = 1; \
         TSC__MV(tsc__once_);                                                  \
         TSC__MV(tsc__once_) = 0,                                              \
         tsc_stats_add((stats), tsc_ticks_after() - TSC__MV(tsc__t0_)))        \
        for (; TSC__MV(tsc__once_); TSC__MV(tsc__once_) = 0)

/* --- microbenchmarks ---------------------------------------------------- */

/* TSC_BENCH(&b) { body } measures what one run of body costs, however far
 * below the timer's resolution (a hash step, a 4-element dot product):
 *
 *     struct tsc_bench b;
 *     tsc_bench_init(&b, "dot4");
 *     TSC_BENCH(&b) {
 *         TSC_KEEP(x);                 // inputs unknown to the compiler
 *         r = dot4(x, y);
 *         TSC_KEEP(r);                 // the result is used
 *     }
 *     tsc_bench_print(&b, stdout);     // | ns/op | op/s | err% | ticks/op | rel | benchmark |
 *
 * It runs body in batches, each timed by one before/after pair, and sizes
 * them so that a batch spans at least 1000 times the timer's overhead (an
 * empty region) and resolution: the reads' cost and jitter weigh 0.1 % at
 * most; sizing lasts a tenth of the budget (10 ms at most), a warm-up.
 * It then takes batches until the median is stated to 1 % (err%, the
 * median absolute percentage deviation of the batches, as nanobench
 * reports it) and at least 31 were taken, or the time budget (default
 * 0.1 s, tsc_bench_set_budget) is spent. The cost of its own loop (a
 * decrement and a branch per iteration) is measured with an empty body,
 * the same way, in batches interleaved with the body's (so both see the
 * same machine), and its median subtracted; raw figures are kept.
 * C99 or C++ (the macro declares its loop variables). Do not leave the body
 * with break, return or goto: a batch cut short is detected (the result
 * is then marked unstable) but the figure is lost. Allocates nothing. */
#define TSC_BENCH_MAX_BATCHES 200
struct tsc_bench {
    const char *name;
    double budget;       /* seconds (default 0.1)                            */
    /* The run (read it through tsc_bench_result): */
    int state;           /* 0 ready, 1 sizing, 2 measuring, 3 done, -1 bad   */
    int unstable;        /* see tsc_bench_result                             */
    const char *reason;
    uint64_t batch;      /* iterations per batch                             */
    uint64_t target;     /* ticks a batch must span                          */
    uint64_t start, deadline, end; /* counter: start, budget's end, end       */
    uint64_t t0;         /* counter at the open batch's start                */
    uint64_t ops, batches, migrated;
    uint32_t cpu;        /* CPU of the open batch's start                    */
    int nloop;           /* empty-body batches taken                         */
    double loop[64];     /* the loop's own ticks per iteration, each one     */
    double per_op[TSC_BENCH_MAX_BATCHES]; /* raw ticks per op, each batch    */
};

/* What a benchmark found. ns and ticks per op are the median over the
 * batches with the loop's own cost subtracted (floored at 0). */
struct tsc_bench_result {
    double ns_per_op, ticks_per_op;
    double err_pct;          /* median absolute % deviation of the batches,
                                of the net cost (of the raw one where the
                                net is within err_ticks_per_op of 0)      */
    double err_ticks_per_op; /* the bound on ticks_per_op: the median
                                absolute deviations of the batches and of
                                the empty-body batches, per batch two ticks
                                and twice the timer's overhead (the two
                                loops' fixed costs, their fenced reads and
                                exits, agree only that well), and the change
                                of the empty loop's cost from before the run
                                to after it, added                         */
    double min_ticks_per_op; /* the fastest batch, loop cost subtracted     */
    double raw_ticks_per_op; /* median, loop cost not subtracted            */
    double loop_ticks_per_op;/* the loop's own cost that was subtracted     */
    uint64_t ops, batches;   /* body runs timed; batches kept               */
    double seconds;          /* wall time the whole run took                */
    int unstable;            /* err% above 5 %, or a reason below           */
    const char *reason;      /* why unstable ("" when stable)               */
};

/* Readies b for a run named name (the string must outlive b). 0, or
 * -EINVAL for a NULL b or name (b then runs nothing). */
TSC__API int tsc_bench_init(struct tsc_bench *b, const char *name);
/* The run's time budget, seconds, (0, 3600]. 0, or -EINVAL (unchanged). */
TSC__API int tsc_bench_set_budget(struct tsc_bench *b, double seconds);
/* Fills *out. 0; -EAGAIN for a run that ended without a figure (the body
 * left its first batch, the budget ran out while sizing the batches, or
 * every batch changed CPU): *out then holds zeros but ops, seconds,
 * unstable = 1 and the reason; -EINVAL for NULL arguments or before any
 * run (*out, where there is one, then all zeros). tsc_bench_result(b, out) calls it: a function of the struct's name would
 * hide the struct in C++. */
TSC__API int tsc_bench_get_result(const struct tsc_bench *b, struct tsc_bench_result *out);
#define tsc_bench_result(b, out) tsc_bench_get_result((b), (out))
/* Writes one markdown row | ns/op | op/s | err% | ticks/op | rel | benchmark |
 * (the header first, the first time in the process). rel: this
 * benchmark's time relative to the first one printed (100 %). */
TSC__API void tsc_bench_print(const struct tsc_bench *b, FILE *out);
/* Writes n benchmarks as one whole document: TSC_BENCH_MARKDOWN (header,
 * rows, rel against the first), TSC_BENCH_CSV (header line, rows) or
 * TSC_BENCH_JSON (an array of objects; names written as valid UTF-8, as
 * the trace's: each byte outside a well-formed sequence becomes U+FFFD).
 * 0, or -EINVAL. */
#define TSC_BENCH_MARKDOWN 0
#define TSC_BENCH_CSV 1
#define TSC_BENCH_JSON 2
TSC__API int tsc_bench_write(const struct tsc_bench *const *b, int n, FILE *out, int format);

#define TSC_BENCH(b)                                                          \
    for (uint64_t TSC__MV(tsc__n_) = 0, TSC__MV(tsc__go_) = tsc__bench_begin(b); \
         TSC__MV(tsc__go_);                                                    \
         TSC__MV(tsc__go_) = tsc__bench_next((b), TSC__MV(tsc__n_)))           \
        for (TSC__MV(tsc__n_) = tsc__bench_batch(b); TSC__MV(tsc__n_);         \
             TSC__MV(tsc__n_) = tsc__bench_step(TSC__MV(tsc__n_)))

/* --- traces: a timeline of named blocks ------------------------------- */

/* Records named, nested blocks of one thread into memory the caller gives,
 * and writes the blocks of several threads as one JSON trace:
 *
 *     static char mem[1 << 20];                 // 43 690 events (24 bytes each
 *                                               // on 64-bit targets)
 *     struct tsc_trace tr;                      // one per thread
 *     tsc_trace_init(&tr, mem, sizeof mem, "worker 1");
 *     TSC_TRACE(&tr, "frame") {                 // a block: start and end stamps
 *         TSC_TRACE(&tr, "physics") { step(); } // nested: a child slice
 *     }
 *     uint64_t s = tsc_clock_ticks();           // code that cannot use a block
 *     parse();
 *     tsc_trace_add(&tr, "parse", s, tsc_clock_ticks());
 *     ...                                       // once the threads are joined:
 *     tsc_trace_write_json(f, traces, n);       // {"traceEvents":[...]}
 *
 * A block costs two tsc_clock_ticks() reads (ordered: LFENCE;RDTSC or RDTSCP
 * on x86, so blocks of several threads keep their order), three
 * stores and a counter update: no lock, no allocation, no system call, no
 * conversion (stamps are converted when the trace is written). A full buffer
 * keeps what it holds and counts the events that did not fit
 * (tsc_trace_dropped, and "dropped" in the JSON): it never overwrites and
 * never waits.
 *
 * Threads: a trace belongs to one thread; nothing is shared, so nothing is
 * locked. tsc_trace_write_json reads the traces without synchronising with
 * their threads: call it after they stopped recording (joined them).
 *
 * The JSON: complete events ("ph":"X") in microseconds with three decimals
 * (whole nanoseconds, printed from integers: no rounding) on the
 * CLOCK_MONOTONIC line (tsc_clock_ticks_to_ns at write time), as Chrome's
 * own traces are. Viewers parse "ts" as a double: microseconds since boot
 * keep 1 ns steps for about 100 days of uptime (2^43 us), where
 * microseconds since 1970 would keep only 0.25 us. The files of several
 * processes of one machine share that line and line up when opened
 * together. "otherData" holds "clock":"CLOCK_MONOTONIC" and
 * "realtime_offset_ns", CLOCK_REALTIME minus CLOCK_MONOTONIC in ns when
 * the file was written (a signed decimal string: a double would round it;
 * below 0 where the realtime clock was set before 1970 + uptime): add
 * it to ts x 1000 for the realtime of an event; to open the files of
 * several machines together on the first one's line, add to each file's
 * ts its offset minus the first file's (divided by 1000: microseconds;
 * as exact as the machines' realtime clocks agree). "pid" is the process id
 * (1 where there is none), "tid" the trace's index in the array plus one.
 * Per trace, "thread_name" and "thread_sort_index" metadata events
 * ("ph":"M"), and a "tsc_trace_dropped" one with args.dropped where events
 * did not fit; "otherData" also holds the totals dropped and unfinished.
 * Per thread the events come in order of start ("ts" non-decreasing; a
 * parent before the children it encloses). Names are written as valid
 * UTF-8 whatever they hold: each byte that is not part of a well-formed
 * sequence (a stray or missing continuation byte, an overlong form, a
 * surrogate, beyond U+10FFFF) becomes U+FFFD; quotes, backslashes and
 * control characters are escaped. */

/* One recorded block, in counter ticks of tsc_clock_ticks(). */
struct tsc_trace_event {
    uint64_t start;   /* tsc_clock_ticks() at the block's start              */
    uint64_t end;     /* at its end; 0 while the block is open               */
    const char *name; /* not copied: a string literal or static storage      */
};

/* One thread's trace, over memory given to tsc_trace_init. Read it through
 * the functions below; depth is the number of blocks open now (0 between
 * blocks, unless one was left by return, goto or longjmp). */
struct tsc_trace {
    struct tsc_trace_event *ev; /* in order of start, inside the memory      */
    size_t n, cap;              /* events held; room for                     */
    uint64_t dropped;           /* events that did not fit                   */
    const char *thread_name;    /* not copied; NULL writes "thread <tid>"    */
    int depth;                  /* blocks open now                           */
};

/* Bytes of memory that hold n events whatever their alignment (n: a
 * count, made a size_t by the product; no cast that C++ flags could name
 * useless or old-style in the user's file). */
#define TSC_TRACE_BYTES(n) ((n) * sizeof(struct tsc_trace_event) + 8u)

/* Makes t an empty trace over mem (bytes long; any alignment: the events
 * start at the next multiple of 8) for the thread named thread_name (NULL:
 * "thread <tid>"; not copied). Sets the clock up if nothing did yet (the
 * one-time work of tsc_init, a few ms). 0, or -EINVAL for a NULL t or mem or memory
 * too small for one event; t (if not NULL) is then a trace with no room,
 * which counts every event as dropped. */
TSC__API int tsc_trace_init(struct tsc_trace *t, void *mem, size_t bytes, const char *thread_name);

/* Records the block [start, end], stamps of tsc_clock_ticks() taken by the
 * caller, for code that cannot use TSC_TRACE; name as TSC_TRACE's. Call it
 * at the block's end: it is placed by its start, before the events it
 * encloses (a move of the events recorded since start). 0; -ENOSPC when the trace is full (counted in dropped); -EINVAL,
 * recording nothing, for a NULL t or name, end < start, end == 0, or a
 * block that starts before a TSC_TRACE block still open around the call
 * (the two would overlap without nesting). */
TSC__API int tsc_trace_add(struct tsc_trace *t, const char *name, uint64_t start, uint64_t end);

/* Events that did not fit in t (blocks and tsc_trace_add calls); 0 for a
 * NULL t. */
TSC__API uint64_t tsc_trace_dropped(const struct tsc_trace *t);

/* Writes traces[0 .. n-1] to out as one JSON document (see above); trace i
 * is "tid" i + 1. Events still open (a block left by return or goto) are
 * left out and counted in otherData.unfinished. Converts every stamp:
 * tens of nanoseconds an event, plus the stream's cost. 0; -EINVAL for a
 * NULL out, n < 0, or a NULL traces or traces[i] (nothing written); -EIO
 * when the stream reports an error. */
TSC__API int tsc_trace_write_json(FILE *out, const struct tsc_trace *const *traces, int n);

/* TSC_TRACE(t, name) { ... } records the block as one event of trace t (a
 * struct tsc_trace *, evaluated twice: pass a plain pointer) named name (a
 * const char * that outlives t: a string literal). Blocks nest. C99 or C++
 * (it declares its variables in a for statement); two on one line work, but
 * their variables, named after the line, shadow each other (-Wshadow
 * warns). Like TSC_MEASURE:
 *   - `break` or `continue` in the block end the event there and leave the
 *     block; neither reaches a loop around TSC_TRACE.
 *   - `return`, `goto` or longjmp out of the block leave the event
 *     unfinished: it is not written, and t->depth stays one higher. */
#define TSC_TRACE(t, name)                                                    \
    for (size_t TSC__MV(tsc__ti_) = tsc__trace_begin((t), (name)), TSC__MV(tsc__once_) = 1; \
         TSC__MV(tsc__once_);                                                  \
         TSC__MV(tsc__once_) = 0, tsc__trace_end((t), TSC__MV(tsc__ti_)))     \
        for (; TSC__MV(tsc__once_); TSC__MV(tsc__once_) = 0)

/* --- zones: a profiler of named blocks --------------------------------- */

/* TSC_ZONE("name") { ... } times the block as one call of the zone
 * "name"; tsc_zones_print(out) prints, per zone and over every thread,
 * where the time went:
 *
 *     TSC_ZONE("frame") {                       // no setup, no variable
 *         TSC_ZONE("physics") { step(); }       // nested: frame's self
 *         for (i = 0; i < n; i++)               //   time excludes it
 *             TSC_ZONE("draw") draw(i);         // a statement like any
 *     }
 *     tsc_zones_print(stdout);                  // one table, by self time
 *
 * Per zone: calls, total (inclusive) time, self time (less the zones
 * nested in it), min, mean, p50, p99 and max of a call's inclusive time,
 * and the threads that ran it. A zone nested in itself (recursion) counts
 * its total once, for the outermost call; self time, calls and the
 * per-call figures count every call. Time of threads that exited is kept.
 * The self times of all zones add up to the total of the root zones (those
 * not inside another zone of their thread).
 *
 * A zone is its name's text: a string literal (another expression does not
 * compile). The same name at two places, or in two units, is one zone.
 * TSC_ZONE_FUNC { ... } names the zone after the enclosing function
 * (__func__). A call site registers itself on its first execution in a
 * thread, lock-free (one CAS per new zone and per new thread); after that,
 * entering costs a thread-local load, a hashed cache load and compare,
 * and a counter read; leaving a counter read and a few adds, with no
 * lock, no atomic read-modify-write and no allocation: 1.45x the cost of
 * the two counter reads alone (27.4 against 18.95 ns on x86; see
 * bench/bench_zones.c, bench/results.md). The counter is the bare read (a
 * plain RDTSC on x86): a zone times a duration within one thread. Not
 * async-signal-safe: a signal handler must not enter a zone.
 *
 * The profiler's own cost is measured once (the median of 2000 empty
 * zones, and of 2000 zones holding one) at the first zone of the process
 * and subtracted from every call: an empty zone reports about 0, and a
 * zone's self time holds none of its children's overhead. That overhead
 * is of zones run back to back; around real work the CPU overlaps part of
 * it with the work (and a bare read may be taken before the work ahead of
 * it completes), so a parent's self may come out lower by up to about
 * 10 ns per zone nested in it (tests/test_zones.c: 312-323 ns for 324 ns
 * of a parent's own work around two children, on x86). A call's net
 * time may come out a few ticks below 0 (noise); it is counted as 0 in
 * min, max, mean and percentiles, and as it is in the sums, so that the
 * self times add up exactly.
 *
 * Percentiles come from a histogram per zone and thread: exact below 32
 * ticks, else within 1/32 (3.2 %) of the exact value, clamped to [min, max];
 * from 2^40 ticks (minutes) one bucket. Min and max are exact.
 *
 * Limits, set by these macros (define them alike before every inclusion
 * in a program; they are part of the zones' symbol names, so files built
 * with other limits fail to link):
 *   TSC_ZONES_MAX      zones (names), default 256;
 *   TSC_ZONES_THREADS  threads that record zones, default 64;
 *   TSC_ZONES_DEPTH    zones open at once in one thread, default 32.
 * Every (zone, thread) pair within them is recorded. Memory, on 64-bit
 * targets with the defaults (tests/test_zones.c checks these sizes):
 *   static, zero until used: 650 KiB (665160 bytes), mostly the
 *     threads' blocks of 8816 bytes each (a thread's zone map, name cache
 *     and stack of open zones), whose pages only a thread that records
 *     touches; less on 32-bit targets;
 *   per (zone, thread) pair: a record of 4792 bytes (its sums and
 *     histogram), allocated by its thread (calloc) at its first zone and
 *     then as it needs more, 8 records (37.4 KiB) at a time: a thread
 *     holds at most TSC_ZONES_MAX records, plus one per flow name it
 *     receives; 256 zones in each of 64 threads take 75 MiB, 40 zones in
 *     8 threads 1.5 MiB.
 * Nothing is freed while the program runs: a thread's records and block
 * outlive it (its figures stay in the profile) and are not reused.
 * Without GCC or Clang (MSVC's own C and C++) records come instead from
 * one static pool of 1024 (4.7 MiB, zero until used) that all threads
 * share, one record at a time (used up, it counts as no memory).
 * TSC_ZONES_RECORDS, the size of a pool all threads shared before, is an
 * error now.
 * Past any limit nothing breaks and nothing is silently wrong: the call
 * is not recorded (its time stays in its parent's self), counted, and the
 * counts are printed ("not recorded: ..."): calls past TSC_ZONES_MAX,
 * past TSC_ZONES_DEPTH, and calls of a zone whose record could not be
 * allocated (a failed allocation is not retried: the thread's zones that
 * had no record yet stay unrecorded); a thread past TSC_ZONES_THREADS
 * records nothing and is counted.
 *
 * Leaving a block early. In C++ (a destructor) and in C with GCC or Clang
 * (a cleanup attribute), the call ends wherever the block is left: at its
 * end, `break`, `continue` (which, as the block is a one-pass for loop,
 * leave the block and do not reach a loop around it), `return`, `goto`,
 * and in C++ an exception; it is recorded with the time up to there. The
 * block is one for statement (C99 or C++), so zones may share a line.
 * Where no code can run on leaving a block (C with MSVC), and after a
 * longjmp out of a zone (C; in C++ a longjmp past a destructor is
 * undefined), the call is left open. It is found and closed, unrecorded,
 * when its thread next enters a zone at a shallower stack depth or the
 * same call site again (the next call of a function left by return),
 * when a zone around it ends, or when the thread prints; it is counted
 * ("left without their exit") and no later zone nests under it. Its
 * own time stays in the zone around it (or in no zone at the root); the
 * zones it held are still recorded, so the self times keep adding up to
 * the root zones' total. Zones take the thread's stack to be one stack:
 * a fiber that switches stacks inside a zone confuses them.
 * TSC_ZONE_SCOPE("name"); (C++; C with GCC or Clang) times from there to
 * the end of the enclosing block, as a variable would live: the form for
 * a non-void function's last statement that returns from inside (around
 * a TSC_ZONE block there, compilers warn -Wreturn-type, not seeing that
 * the block always runs).
 *
 * Threads: zones need thread-local storage (GCC, Clang, MSVC; elsewhere
 * they record nothing). On Windows each unit has its own thread-local, so
 * a thread whose zones lie in two units counts as two threads there.
 * Printing and writing read the other threads' counters without stopping
 * them: a print while zones run is safe, and shows each zone's sums as of
 * a moment during the print (calls of one zone and its total may differ
 * by the calls in flight). On 64-bit targets each counter is read whole
 * (relaxed atomic loads); on 32-bit ones a 64-bit counter is two loads, so
 * a sum that carries into its upper half during the print may read off by
 * 2^32 in that print (the next one reads it right). tsc_zones_reset() while
 * zones run is not exact: a call that ends during the reset adds to its
 * sums as they were read before it, so a field may keep its old value;
 * reset while no zone runs (between phases of the program). */

/* Prints one table to out, sorted by self time: zone, calls, self % (of
 * the root zones' total), self, total, mean, p50, p99, max (in ns, us, ms
 * or s, whichever reads best, as tsc_regions_print), threads; then the
 * total, the overhead subtracted, and what was not recorded; then, where
 * there are flows, one row per flow name (count, min, mean, p50, p99 and
 * max of the hand-over latency, the consumers' threads) and the flows not
 * matched. Merges the
 * threads' records: microseconds per zone. */
TSC__API void tsc_zones_print(FILE *out);
/* Writes the same figures, in whole nanoseconds, as TSC_BENCH_MARKDOWN (a
 * table), TSC_BENCH_CSV (header line, rows) or TSC_BENCH_JSON (an array of
 * objects: name, calls, self_pct, self_ns, total_ns, min_ns, mean_ns,
 * p50_ns, p99_ns, max_ns, threads; CSV adds a last column, flow, 0 for a
 * zone). Then the flows (TSC_FLOW_IN), latencies in ns: markdown a second
 * table (flow, count, min, mean, p50, p99, max, threads), CSV and JSON
 * rows with flow 1 (calls the count, self and total 0), and where flows
 * were not matched a row "(flows not matched)" (JSON: overwritten,
 * unmatched, past_names). Calls not recorded make a last row
 * named "(not recorded)": in calls those past a limit or left by
 * return/goto, in threads the threads past TSC_ZONES_THREADS, every time 0
 * (markdown: then a line naming each limit; JSON: the fields left_early,
 * past_max, past_depth, no_memory). 0; -EINVAL for a NULL out or
 * another format; -EIO when the stream reports an error. */
TSC__API int tsc_zones_write(FILE *out, int format);
/* Empties every zone's figures and the flows' (names stay registered;
 * the zones' traces stay as they are). */
TSC__API void tsc_zones_reset(void);
/* Prints the table to out when the program exits (exit() or a return from
 * main; atexit), once however often it is called; out must stay open till
 * then. 0; -ENOMEM where atexit has no room; -EINVAL for a NULL out;
 * -ENOSYS with a compiler other than GCC and Clang (MSVC: call
 * tsc_zones_print at the end of main). */
TSC__API int tsc_zones_print_at_exit(FILE *out);

/* --- zones: traced too; flows between threads; instants and counters --- */

/* With tsc_zones_trace(bytes) called once at start-up, every TSC_ZONE also
 * records its block into its thread's trace buffer, no struct to pass:
 *
 *     tsc_zones_trace(1 << 20);                 // 1 MiB per thread: 32 768
 *     ...                                       //   events (32 bytes each on
 *                                               //   64-bit targets)
 *     tsc_zones_thread_name("producer");        // this thread's name there
 *     TSC_ZONE("make") {
 *         item->id = ++n;
 *         TSC_FLOW_OUT("queue", item->id);      // a hand-over: an arrow, and
 *     }                                         //   its latency in the profile
 *     TSC_ZONE("take") {                        // (in another thread)
 *         TSC_FLOW_IN("queue", item->id);
 *         TSC_COUNTER("depth", queued);         // a value over time
 *     }
 *     TSC_INSTANT("flush");                     // a marker
 *     ...                                       // once the threads are joined:
 *     tsc_zones_write_trace(f);                 // one Chrome trace JSON
 *
 * Each thread's buffer is allocated (calloc) at its first zone, flow,
 * instant or counter after the call: at most TSC_ZONES_THREADS buffers of
 * bytes_per_thread each, kept till the process exits. A full buffer keeps
 * what it holds and counts what did not fit (written as tsc_trace does:
 * per thread a "tsc_trace_dropped" metadata event, the total in
 * otherData.dropped). Tracing costs a zone a slot and a few stores more:
 * 39.8 ns for an empty zone, 2.10x a pair of bare reads, where untraced
 * (the default; one relaxed load and a branch) it costs 27.4 ns, 1.45x
 * (bench/bench_zones.c). A flow's two marks cost 115 ns together.
 * Zones not recorded (past a limit) are not traced either, nor zones
 * entered before the call; the profiler's overhead subtracted is that of
 * an untraced zone. tsc_zones_reset() leaves the traces as they are.
 *
 * Flows: TSC_FLOW_OUT(name, id) where a thread hands something over (the
 * id: a uint64_t the two sides share, such as a sequence number; unique
 * among the hand-overs of that name in flight) and TSC_FLOW_IN(name, id)
 * where another thread takes it, inside or outside a zone. Each reads the
 * ordered clock (tsc_clock_ticks(): LFENCE;RDTSC or RDTSCP on x86), so the
 * consumer's reading, taken after it saw the hand-over, is never before
 * the producer's. The producer's reading waits in a table of 4096 slots
 * (hashed by name and id, one lock per slot held for a few stores, no
 * allocation) for its arrival. The profile gets per flow name the count,
 * min, mean, p50, p99 and max of the latency, consumer's reading minus
 * producer's, both converted to ns as the trace converts them (so they
 * agree with the written events' times), merged over the consumers'
 * threads (a record of the consumer's thread per flow name, as a zone's). A
 * departure whose slot is taken by a newer one before it arrives, and an
 * arrival without its departure, are counted and printed ("flows not
 * matched"). The trace gets a flow event per mark ("ph":"s" and "f",
 * "cat":"flow", the id as a hex string; "bp":"e" where the arrival lies in
 * a traced zone, else it binds to the thread's next slice): viewers draw
 * an arrow from the producer's slice to the consumer's. An arrival is
 * written only where its departure was found; a departure outside any
 * zone has no slice to start from, and viewers draw nothing for it.
 *
 * TSC_INSTANT(name) writes a marker of the thread ("ph":"i", "s":"t"),
 * TSC_COUNTER(name, value) a sample of a value over time (int64_t; "ph":
 * "C", args {"value": value}; one track per name in the process), both on
 * the ordered clock, both into the thread's trace only (nothing when
 * tracing is off: one load and a branch). Names: string literals, as
 * TSC_ZONE's. Flows, instants and counters need thread-local storage and
 * GCC or Clang (-ENOSYS from tsc_zones_trace elsewhere; flows' statistics
 * then are not kept either). Not async-signal-safe. */

/* Turns tracing on for every thread's zones from now on, with buffers of
 * bytes_per_thread (allocated per thread at its next zone; a later call
 * sizes only the buffers allocated after it); 0 turns it off (what was
 * recorded is kept, and a later call goes on filling the same buffers).
 * 0; -EINVAL for fewer bytes than one event (TSC_ZONES_TRACE_BYTES(1):
 * 32 on 64-bit targets);
 * -ENOSYS without GCC or Clang or thread-local storage. */
TSC__API int tsc_zones_trace(size_t bytes_per_thread);
/* Bytes of a zones' trace buffer that hold n events (n: a count, made a
 * size_t by the product): tsc_zones_trace(TSC_ZONES_TRACE_BYTES(n)). */
#define TSC_ZONES_TRACE_BYTES(n) ((n) * sizeof(struct tsc__zev))
/* Names the calling thread in the zones' trace (name not copied: a
 * literal or static storage; without a name "thread <tid>"). 0; -EINVAL
 * for NULL; -EAGAIN for a thread past TSC_ZONES_THREADS; -ENOSYS where
 * zones record nothing. */
TSC__API int tsc_zones_thread_name(const char *name);
/* Writes every thread's zone events (threads with a buffer or a name) as
 * one Chrome Trace Event JSON document, as tsc_trace_write_json does:
 * "tid" is the thread's index in the zones' pool plus one, in order of
 * their first zone. Call it once the threads stopped recording (joined):
 * it reads their buffers without synchronising. 0; -EINVAL for a NULL
 * out; -EIO when the stream reports an error. */
TSC__API int tsc_zones_write_trace(FILE *out);
TSC__API void tsc__flow(const char *name, uint64_t id, int in);
TSC__API void tsc__zone_mark(const char *name, int64_t value, uint32_t kind);
#define TSC_FLOW_OUT(name, id) tsc__flow("" name "", (id), 0)
#define TSC_FLOW_IN(name, id) tsc__flow("" name "", (id), 1)
#define TSC_INSTANT(name) tsc__zone_mark("" name "", 0, 3u)
#define TSC_COUNTER(name, value) tsc__zone_mark("" name "", (value), 4u)

#define TSC_ZONE(name) TSC__ZONE("" name "", TSC__CAT(tsc__zs_, TSC__UNIQUE))
#define TSC_ZONE_FUNC TSC__ZONE(__func__, TSC__CAT(tsc__zs_, TSC__UNIQUE))
/* (one variable per zone, named by __COUNTER__ where there is one; the
 * frame and the variable's address tell a zone left without its exit) */
#if defined(__COUNTER__)
#define TSC__UNIQUE __COUNTER__
#else
#define TSC__UNIQUE __LINE__
#endif
#define TSC__ZIN(nm, v) tsc__zone_enter((nm), TSC__FRAME(), TSC__RCAST(uintptr_t, &(v)))
#if defined(__cplusplus)
#define TSC__ZONE(nm, v) for (tsc__zone_guard v(TSC__ZIN(nm, v)); v.once; v.once = 0)
#define TSC__ZSCOPE(nm, v) tsc__zone_guard v(TSC__ZIN(nm, v))
#elif (defined(__GNUC__) || defined(__clang__)) && !defined(TSC_TIMER_TEST_NO_CLEANUP)
#define TSC__ZONE(nm, v)                                                      \
    for (uintptr_t v __attribute__((cleanup(tsc__zone_leave))) = TSC__ZIN(nm, v), \
                   TSC__CAT(v, _once) = 1;                                    \
         TSC__CAT(v, _once); TSC__CAT(v, _once) = 0)
#define TSC__ZSCOPE(nm, v) uintptr_t v __attribute__((cleanup(tsc__zone_leave))) = TSC__ZIN(nm, v)
#else /* no code runs on leaving a block: the exit in the loop's step */
#define TSC__ZONE(nm, v)                                                      \
    for (uintptr_t v = TSC__ZIN(nm, v), TSC__CAT(v, _once) = 1; TSC__CAT(v, _once); \
         TSC__CAT(v, _once) = 0, tsc__zone_exit(v))                            \
        for (; TSC__CAT(v, _once); TSC__CAT(v, _once) = 0)
#endif
#if defined(TSC__ZSCOPE)
#define TSC_ZONE_SCOPE(name) TSC__ZSCOPE("" name "", TSC__CAT(tsc__zs_, TSC__UNIQUE))
#endif

/* ======================================================================== */
/* 5. Implementation. Everything below is private (tsc__ prefix).           */
/* ======================================================================== */

/* --- platform choice: the one place that picks the counter -------------- */

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

#if defined(__GNUC__) || defined(__clang__)
#define TSC__GNU 1
#endif
/* The calling function's stack frame (zones: a frame below another is a
 * call made from it); 0 where the compiler cannot tell. */
#if defined(TSC__GNU)
#define TSC__FRAME() TSC__RCAST(uintptr_t, __builtin_frame_address(0))
#elif defined(_MSC_VER)
#define TSC__FRAME() TSC__RCAST(uintptr_t, _AddressOfReturnAddress())
#else
#define TSC__FRAME() TSC__CAST(uintptr_t, 0)
#endif

/* --- portability: attributes, atomics, thread-local, libm-free math ----- */

#if defined(TSC__GNU)
#define TSC__LIKELY(x) __builtin_expect(!!(x), 1)
#define TSC__UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Slow paths stay out of line. GCC warns of an unused static function (so
 * `unused`); clang does not for a header's, and warns of `unused` on a
 * used one. */
#if defined(__clang__)
#define TSC__SLOW static __attribute__((noinline, cold))
#define TSC__OUTLINE static __attribute__((noinline))
#else
#define TSC__SLOW static __attribute__((noinline, cold, unused))
#define TSC__OUTLINE static __attribute__((noinline, unused))
#endif
#else
#define TSC__LIKELY(x) (x)
#define TSC__UNLIKELY(x) (x)
#define TSC__SLOW static __declspec(noinline)
#define TSC__OUTLINE static __declspec(noinline)
#endif
/* Out-of-line work the hot paths and the macros call: static with the rest
 * in one-file use, compiled once (external, versioned names) otherwise. */
#if !defined(TSC__EXTERN) && defined(__clang__)
/* (no warning where only a macro the file does not use calls it: `unused`
 * to gcc, inline to clang, which warns of `unused` on a used function) */
#define TSC__COLD static TSC__INLINE __attribute__((noinline, cold))
#elif !defined(TSC__EXTERN) && defined(TSC__GNU)
#define TSC__COLD static __attribute__((noinline, cold, unused))
#elif !defined(TSC__EXTERN)
#define TSC__COLD static TSC__INLINE __declspec(noinline)
#elif defined(TSC__GNU)
#define TSC__COLD __attribute__((noinline, cold))
#elif defined(_MSC_VER)
#define TSC__COLD __declspec(noinline)
#else
#define TSC__COLD
#endif
/* The clock's hot paths, inlined into each public form: out of line, the
 * ordered tsc_now_ns() spilled registers around its counter read (+5 ns). */
#if defined(TSC__GNU)
#define TSC__HOT static TSC__INLINE __attribute__((always_inline))
#else
#define TSC__HOT TSC__FN
#endif
#if defined(__cplusplus)
#define TSC__NULL nullptr
#else
#define TSC__NULL ((void *)0)
#endif

/* Test hooks (tests/): no-ops unless a test defines them. */
#ifndef TSC_TIMER_TEST_CPUID_HOOK
#define TSC_TIMER_TEST_CPUID_HOOK(leaf, r) ((void)0)
#endif
#ifndef TSC_TIMER_TEST_CALIBRATING_HOOK
#define TSC_TIMER_TEST_CALIBRATING_HOOK() ((void)0)
#endif
#ifndef TSC_TIMER_TEST_PUBLISH_HOOK
#define TSC_TIMER_TEST_PUBLISH_HOOK(what) ((void)0)
#endif
/* TSC_TIMER_TEST_TRUST_HOOK(current, available) sees the kernel's
 * clocksource lines (char arrays of TSC__TRUST_LINE bytes, "" where
 * unreadable or not Linux) and may rewrite them. */
#define TSC__TRUST_LINE 256
#ifndef TSC_TIMER_TEST_TRUST_HOOK
#define TSC_TIMER_TEST_TRUST_HOOK(current, available) ((void)0)
#endif
/* TSC_TIMER_TEST_CLAIM_HOOK(word, step) runs between the steps of taking
 * and giving back a claim or a copy (word: its owner word), so a test can
 * stop or leave its owner at any of them. */
#ifndef TSC_TIMER_TEST_CLAIM_HOOK
#define TSC_TIMER_TEST_CLAIM_HOOK(word, step) ((void)0)
#endif
/* TSC_TIMER_TEST_ALLOC_HOOK(bytes), where nonzero, fails an allocation of
 * the zones' memory (a block of a thread's records, a trace buffer) as
 * an exhausted heap would. */
#ifndef TSC_TIMER_TEST_ALLOC_HOOK
#define TSC_TIMER_TEST_ALLOC_HOOK(bytes) 0
#endif
/* TSC_TIMER_TEST_REALTIME_HOOK(after) runs before (0) and after (1) each
 * CLOCK_REALTIME read that measures the realtime offset, so a test can
 * delay them (a disturbed measurement). */
#ifndef TSC_TIMER_TEST_REALTIME_HOOK
#define TSC_TIMER_TEST_REALTIME_HOOK(after) ((void)0)
#endif
#ifndef TSC_TIMER_TEST_COUNTER_HOOK /* the clock's counter reads, e.g. made to jump */
#define TSC_TIMER_TEST_COUNTER_HOOK(t) (t)
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#elif defined(_MSC_VER)
#include <intrin.h>
#endif

/* Atomics: GCC/Clang builtins; MSVC: plain accesses behind compiler
 * barriers on x86 (TSO), interlocked operations (full barriers) elsewhere.
 * LD/ST are acquire/release; RLX relaxed. 64-bit fields on 32-bit targets
 * are plain volatile accesses: the latch's re-check catches a torn read,
 * and the writer's fence orders its stores. */
#if defined(TSC__GNU)
#define TSC__LD32(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define TSC__ST32(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define TSC__RLX32(p) __atomic_load_n((p), __ATOMIC_RELAXED)
TSC__FN int tsc__cas32(uint32_t *p, uint32_t expect, uint32_t want)
{
    return __atomic_compare_exchange_n(p, &expect, want, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}
#if UINTPTR_MAX > 0xFFFFFFFFu
/* Acquire loads and release stores of the latch's words: a reader's
 * re-check of the counter stays after its loads, and a writer's stores stay
 * after the counter it saw. On x86 these are plain moves. */
#define TSC__LD64(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define TSC__ST64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define TSC__WRITE_FENCE() ((void)0)
#define TSC__READ_FENCE() ((void)0)
#else
/* 32-bit: no cheap 64-bit atomics. Plain volatile accesses (a torn read is
 * caught by the re-check) between fences: the writer's release fence after
 * it saw the counter, the reader's acquire fence before it re-checks. */
#define TSC__LD64(p) (*TSC__CAST(const volatile uint64_t *, p))
#define TSC__ST64(p, v) tsc__st64v((p), (v))
TSC__FN void tsc__st64v(uint64_t *p, uint64_t v) { *TSC__CAST(volatile uint64_t *, p) = v; }
#define TSC__WRITE_FENCE() __atomic_thread_fence(__ATOMIC_RELEASE)
#define TSC__READ_FENCE() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif
#elif defined(_M_IX86) || defined(_M_X64)
TSC__FN uint32_t tsc__ld32(const uint32_t *p)
{
    uint32_t v = *TSC__CAST(const volatile uint32_t *, p);
    _ReadWriteBarrier();
    return v;
}
TSC__FN void tsc__st32(uint32_t *p, uint32_t v)
{
    _ReadWriteBarrier();
    *TSC__CAST(volatile uint32_t *, p) = v;
}
TSC__FN uint64_t tsc__ld64(const uint64_t *p) { return *TSC__CAST(const volatile uint64_t *, p); }
TSC__FN void tsc__st64(uint64_t *p, uint64_t v) { *TSC__CAST(volatile uint64_t *, p) = v; }
#define TSC__LD32(p) tsc__ld32(p)
#define TSC__ST32(p, v) tsc__st32((p), (v))
#define TSC__RLX32(p) (*TSC__CAST(const volatile uint32_t *, p))
#define TSC__LD64(p) tsc__ld64(p)
#define TSC__ST64(p, v) tsc__st64((p), (v))
#define TSC__WRITE_FENCE() _ReadWriteBarrier()
#define TSC__READ_FENCE() _ReadWriteBarrier()
#else
TSC__FN void tsc__st32(uint32_t *p, uint32_t v)
{
    (void)_InterlockedExchange(TSC__RCAST(volatile long *, p), TSC__CAST(long, v));
}
TSC__FN void tsc__st64(uint64_t *p, uint64_t v)
{
    (void)_InterlockedExchange64(TSC__RCAST(volatile long long *, p), TSC__CAST(long long, v));
}
#define TSC__LD32(p) (TSC__CAST(uint32_t, _InterlockedOr(TSC__RCAST(volatile long *, TSC__CCAST(uint32_t *, p)), 0)))
#define TSC__ST32(p, v) tsc__st32((p), (v))
#define TSC__RLX32(p) (*TSC__CAST(const volatile uint32_t *, p))
#define TSC__LD64(p) (TSC__CAST(uint64_t, _InterlockedOr64(TSC__RCAST(volatile long long *, TSC__CCAST(uint64_t *, p)), 0)))
#define TSC__ST64(p, v) tsc__st64((p), (v))
#define TSC__WRITE_FENCE() ((void)0) /* the interlocked stores are barriers */
#define TSC__READ_FENCE() ((void)0)
#endif
#if !defined(TSC__GNU)
TSC__FN int tsc__cas32(uint32_t *p, uint32_t expect, uint32_t want)
{
    return TSC__CAST(uint32_t, _InterlockedCompareExchange(TSC__RCAST(volatile long *, p),
                                                           TSC__CAST(long, want),
                                                           TSC__CAST(long, expect))) == expect;
}
#endif

TSC__FN void tsc__pause(void)
{
#if defined(TSC__X86_GNU)
    __asm__ __volatile__("pause");
#elif defined(TSC__X86_MSVC)
    _mm_pause();
#endif
}

#if !defined(TSC__GNU)
/* TSC_KEEP without inline asm: the call goes through a volatile pointer, so
 * the compiler must assume *p is read and written (const on the pointer
 * promises nothing: it only spares TSC_KEEP a cast). */
TSC__FN void tsc__keep_impl(const volatile void *p) { (void)p; }
static void (*volatile tsc__keep_fn)(const volatile void *) = tsc__keep_impl;
TSC__FN void tsc__keep_ptr(const volatile void *p) { tsc__keep_fn(p); }
#endif

/* The state's symbol name: the version and the configuration are in it, so
 * two versions (or configurations) of this header in one program each have
 * their own state instead of sharing one of another layout. */
#define tsc__g TSC__VNAME(tsc__g_v)
#define tsc__tls TSC__VNAME(tsc__tls_v)

/* A thread's own flags: which one-time or writer work it is inside, so a
 * signal handler (or a clock_gettime built on this header) that re-enters
 * on the same thread is told apart from another thread doing that work.
 * Weak, so every unit of a program shares it; static (one per unit) where
 * the object format has no weak thread-locals. */
#if defined(TSC__GNU) && !defined(_WIN32) && !defined(__CYGWIN__)
extern __thread uint32_t tsc__tls;
__attribute__((weak)) __thread uint32_t tsc__tls = 0;
#elif defined(TSC__GNU)
static __thread uint32_t tsc__tls __attribute__((unused)) = 0;
#elif defined(_MSC_VER)
static __declspec(thread) uint32_t tsc__tls = 0;
#else
static uint32_t tsc__tls = 0; /* no thread-locals: any thread counts as re-entry */
#endif
#define TSC__TLS_FIRST 1u /* measuring the calibration to publish  */
#define TSC__TLS_FW 2u    /* publishing a frequency                */
#define TSC__TLS_CW 4u    /* setting up or steering the clock      */

TSC__FN uint64_t tsc__dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
TSC__FN double tsc__bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
/* 1 for a finite double, tested on its bits: -ffast-math folds x != x,
 * and newer compilers fold the bit test too unless the bits are volatile. */
TSC__FN int tsc__finite(double d)
{
    volatile uint64_t u = tsc__dbits(d);
    return ((u >> 52) & 0x7FFu) != 0x7FFu;
}
#define TSC__2P64 18446744073709551616.0 /* 2^64, exact */
TSC__FN double tsc__fabs(double x) { return x < 0 ? -x : x; }
/* ceil(x) for every x: from 2^52 up a double has no fraction (infinities
 * and NaN come back as they are), so only smaller ones pass an integer. */
TSC__FN double tsc__ceil(double x)
{
    int64_t t;
    double d;
    if (!(tsc__fabs(x) < 4503599627370496.0)) /* 2^52 */
        return x;
    t = TSC__CAST(int64_t, x);
    d = TSC__CAST(double, t);
    return d < x ? d + 1.0 : d;
}
/* x truncated to a uint64_t, saturating: NaN and x <= 0 give 0, x >= 2^64
 * UINT64_MAX (a double out of range converts with undefined behaviour). */
TSC__FN uint64_t tsc__sat_u64(double x)
{
    if (!(x > 0))
        return 0;
    return x < TSC__2P64 ? TSC__CAST(uint64_t, x) : UINT64_MAX;
}
/* sqrt(x), x >= 0 finite: a first guess from halving the exponent, then
 * Newton's iteration, which doubles the correct bits each step. */
TSC__FN double tsc__sqrt(double x)
{
    double r;
    int i;
    if (!(x > 0) || !tsc__finite(x))
        return 0;
    r = tsc__bitsd((tsc__dbits(x) >> 1) + (UINT64_C(0x3FF0000000000000) >> 1));
    for (i = 0; i < 6; i++)
        r = 0.5 * (r + x / r);
    return r;
}

/* --- the OS: private declarations, so no system header is included ----- */

#if defined(TSC__LINUX) && defined(TSC__GNU)
/* clock_gettime under a private name, with the layout the C library's
 * symbol really takes: two longs, except on 32-bit ABIs born with 64-bit
 * time only (rv32, x32, loongarch32), whose seconds and nanoseconds fields
 * are 64-bit wide (the nanoseconds in the low half on these little-endian
 * targets). */
#if (defined(__riscv_xlen) && __riscv_xlen == 32) || \
    (defined(__x86_64__) && defined(__ILP32__)) || \
    (defined(__loongarch_grlen) && __loongarch_grlen == 32)
struct tsc__timespec { int64_t tv_sec; int64_t tv_nsec; };
#define TSC__TS_NS(ts) (TSC__CAST(uint64_t, (ts).tv_sec) * UINT64_C(1000000000) + TSC__CAST(uint32_t, (ts).tv_nsec))
#else
struct tsc__timespec { long tv_sec; long tv_nsec; };
#define TSC__TS_NS(ts) (TSC__CAST(uint64_t, (ts).tv_sec) * UINT64_C(1000000000) + TSC__CAST(uint64_t, (ts).tv_nsec))
#endif
extern int tsc__clock_gettime(int, struct tsc__timespec *) __asm__("clock_gettime");
extern long tsc__syscall(long, ...) __asm__("syscall");
extern int tsc__getpid(void) __asm__("getpid");
extern int tsc__sched_getcpu(void) __asm__("sched_getcpu");
extern int tsc__prctl(int, ...) __asm__("prctl");
extern unsigned long tsc__getauxval(unsigned long) __asm__("getauxval");
#define TSC__CLOCK_MONOTONIC 1
#define TSC__CLOCK_REALTIME 0
/* clock_gettime's system call number, for a read that cannot re-enter user
 * code (a clock_gettime replaced by one built on this header) and works
 * where RDTSC faults (the vDSO reads the TSC). TS64: the kernel writes two
 * 64-bit fields. */
#if defined(__x86_64__) && defined(__ILP32__)
#define TSC__NR_CLOCK_GETTIME (0x40000000L + 228)
#define TSC__SYS_TS64 1
#elif defined(__x86_64__)
#define TSC__NR_CLOCK_GETTIME 228L
#elif defined(__i386__)
#define TSC__NR_CLOCK_GETTIME 265L
#endif
/* openat, read, close: the kernel's clocksource files, for tsc_trust(). */
#if defined(__x86_64__) && defined(__ILP32__)
#define TSC__NR_OPENAT (0x40000000L + 257)
#define TSC__NR_READ (0x40000000L + 0)
#define TSC__NR_CLOSE (0x40000000L + 3)
#elif defined(__x86_64__)
#define TSC__NR_OPENAT 257L
#define TSC__NR_READ 0L
#define TSC__NR_CLOSE 3L
#elif defined(__i386__)
#define TSC__NR_OPENAT 295L
#define TSC__NR_READ 3L
#define TSC__NR_CLOSE 6L
#endif
/* adjtimex, read only (modes 0 and ADJ_OFFSET_SS_READ: any process may),
 * to see whether the kernel is slewing CLOCK_MONOTONIC while the
 * frequency is measured against it; the kernel's struct timex of longs
 * (x86-64 and i386; not x32, whose longs the kernel takes as 64-bit). */
#if defined(__x86_64__) && !defined(__ILP32__)
#define TSC__NR_ADJTIMEX 159L
#elif defined(__i386__)
#define TSC__NR_ADJTIMEX 124L
#endif
#if defined(__x86_64__) || defined(__i386__) /* (clock_gettime: above) */
#elif defined(__aarch64__) || (defined(__riscv_xlen) && __riscv_xlen == 64) || \
    defined(__loongarch64)
#define TSC__NR_CLOCK_GETTIME 113L
#elif defined(__riscv_xlen) && __riscv_xlen == 32
#define TSC__NR_CLOCK_GETTIME 403L /* clock_gettime64 */
#define TSC__SYS_TS64 1
#elif defined(__arm__)
#define TSC__NR_CLOCK_GETTIME 263L
#elif defined(__powerpc__)
#define TSC__NR_CLOCK_GETTIME 246L
#elif defined(__s390x__)
#define TSC__NR_CLOCK_GETTIME 260L
#endif
#elif defined(TSC__WINDOWS)
/* Win32 under the names <windows.h> gives them, declared with the same
 * types (BOOL is int, DWORD unsigned long), so a program may include both. */
union _LARGE_INTEGER;
struct _FILETIME;
__declspec(dllimport) int __stdcall QueryPerformanceCounter(union _LARGE_INTEGER *);
__declspec(dllimport) int __stdcall QueryPerformanceFrequency(union _LARGE_INTEGER *);
__declspec(dllimport) void __stdcall GetSystemTimePreciseAsFileTime(struct _FILETIME *);
__declspec(dllimport) unsigned long __stdcall GetCurrentProcessorNumber(void);
__declspec(dllimport) unsigned long __stdcall GetCurrentProcessId(void);
#else
#include <time.h>
#include <unistd.h>
#if defined(TSC__APPLE)
#include <mach/mach_time.h>
#endif
#define TSC__CLOCK_MONOTONIC CLOCK_MONOTONIC
#define TSC__CLOCK_REALTIME CLOCK_REALTIME
#define tsc__timespec timespec
#define tsc__clock_gettime clock_gettime
#define tsc__getpid getpid
#define TSC__TS_NS(ts) (TSC__CAST(uint64_t, (ts).tv_sec) * UINT64_C(1000000000) + TSC__CAST(uint64_t, (ts).tv_nsec))
#endif
#if (defined(TSC__PPC64) || defined(TSC__PPC32)) && defined(__GLIBC__)
extern uint64_t tsc__ppc_tb_freq(void) __asm__("__ppc_get_timebase_freq");
#endif

/* Process id bits that tell this process from its parent after fork(). */
#define TSC__PID_MASK 0x3FFFFFu /* Linux pids are below 2^22 */
TSC__FN uint32_t tsc__pid(void)
{
#if defined(TSC__WINDOWS)
    uint32_t p = TSC__CAST(uint32_t, GetCurrentProcessId()) & TSC__PID_MASK;
#else
    uint32_t p = TSC__CAST(uint32_t, tsc__getpid()) & TSC__PID_MASK;
#endif
    return p ? p : 1u;
}

#if defined(TSC__WINDOWS)
TSC__FN uint64_t tsc__qpc(void)
{
    int64_t v = 0;
    QueryPerformanceCounter(TSC__CAST(union _LARGE_INTEGER *, TSC__CAST(void *, &v)));
    return TSC__CAST(uint64_t, v);
}
TSC__FN uint64_t tsc__qpf(void)
{
    int64_t v = 0;
    QueryPerformanceFrequency(TSC__CAST(union _LARGE_INTEGER *, TSC__CAST(void *, &v)));
    return TSC__CAST(uint64_t, v);
}
/* QPC units to nanoseconds, without overflowing the product. */
TSC__FN uint64_t tsc__qpc_ns(uint64_t c)
{
    uint64_t f = tsc__qpf();
    return c / f * UINT64_C(1000000000) + c % f * UINT64_C(1000000000) / f;
}
#endif

/* How tsc_ticks_* read the counter; chosen once, at first use. */
enum {
    TSC__MODE_UNKNOWN = 0,
    TSC__MODE_RDTSCP = 1, /* x86: before LFENCE;RDTSC;LFENCE, after RDTSCP;LFENCE */
    TSC__MODE_RDTSC = 2,  /* x86: LFENCE;RDTSC;LFENCE both                       */
    TSC__MODE_OS = 3,     /* the OS clock: no counter, or forbidden              */
    TSC__MODE_NATIVE = 4, /* this platform's own counter (non-x86)               */
    TSC__MODE_MFENCE = 5, /* x86, AMD before family 10h: MFENCE;RDTSC;MFENCE     */
    TSC__MODE_CPUID = 6   /* x86 without SSE2 (no LFENCE): CPUID;RDTSC           */
};
/* How the clock reads the counter (state's `cread`, set with the mode). */
enum {
    TSC__CREAD_LFENCE = 1, /* x86: LFENCE;RDTSC                              */
    TSC__CREAD_RDTSCP = 2, /* x86: RDTSCP, where cheaper than LFENCE;RDTSC    */
    TSC__CREAD_OTHER = 3,  /* x86 MFENCE or CPUID modes: the fenced slow read */
    TSC__CREAD_NONE = 4    /* no counter (the OS clock), or not x86          */
};
/* Why that mode (state's `why`, set once with the mode): bits. */
#define TSC__WHY_SET 0x100u       /* chosen                                  */
#define TSC__WHY_FORBIDDEN 0x200u /* prctl said RDTSC faults (that thread)   */
#define TSC__WHY_NO_TSC 0x400u    /* CPUID: no TSC                           */
#define TSC__WHY_NO_TIMER 0x800u  /* ARMv7: no generic timer for user space  */

/* Where the frequency in use came from (index into tsc__method_name). */
enum {
    TSC__SRC_NONE, TSC__SRC_MEASURED_MONO, TSC__SRC_MEASURED_QPC,
    TSC__SRC_OS_NS, TSC__SRC_CNTFRQ, TSC__SRC_QPF, TSC__SRC_MACH,
    TSC__SRC_TOD, TSC__SRC_CPUCFG, TSC__SRC_PPC_GLIBC, TSC__SRC_LOCAL,
    TSC__SRC_ENDPOINTS, TSC__SRC_UNMEASURED, TSC__SRC_STATED_WRONG,
    TSC__SRC_STATED_WRONG_ENDPOINTS, TSC__SRC_SLEWING
};

#if TSC__IMPL
TSC__FN const char *tsc__method_name(uint64_t src)
{
    static const char *const names[] = {
        "none", "measured against CLOCK_MONOTONIC",
        "measured against QueryPerformanceCounter",
        "architectural: OS clock nanoseconds", "architectural: CNTFRQ",
        "architectural: QueryPerformanceFrequency",
        "architectural: mach_timebase_info",
        "architectural: s390x TOD clock, 4096 per microsecond",
        "architectural: LoongArch CPUCFG 4 and 5",
        "glibc __ppc_get_timebase_freq",
        "local: a quick measurement for a caller inside the first calibration, not published",
        "measured against the OS clock from the end points alone (no clean samples)",
        "unmeasured: the reference clock did not advance; nominal or 1 GHz",
        "measured against CLOCK_MONOTONIC: the stated frequency was wrong",
        "measured from the end points alone (no clean samples): the stated frequency was wrong",
        "measured against CLOCK_MONOTONIC while the kernel slewed it (adjtimex): its rate bounded"};
    return src < sizeof names / sizeof names[0] ? names[src] : "unknown";
}
#endif

/* --- the process-wide state ------------------------------------------- */

/* Work only one thread may do at a time (a calibration to publish, a
 * publication, the clock's steering), with its owner: `word` holds a
 * generation and the owner's process id, so a child after fork() sees a
 * claim of its parent's as nobody's; `stamp`, the same generation and when
 * it was taken, tells a claim abandoned by siglongjmp or a dead thread: no
 * such work takes a second. Both are 32-bit words (no torn reads on 32-bit
 * targets), and the stamp is written before the owner word (tsc__own): no
 * owned word is ever without an age. */
struct tsc__claim {
    uint32_t word;  /* generation << 22 | owner pid; pid 0: free          */
    uint32_t stamp; /* generation << 22 | OS time taken (TSC__AGE_*)      */
};
/* A stamp's time: OS monotonic ns >> 20 (units of ~1.05 ms), 22 bits
 * (wrapping after 73 min); a second is 954 units. */
#define TSC__AGE_SHIFT 20
#define TSC__AGE_1S 954u

/* The frequency, one copy: words of the latch (see tsc__latch_get). */
#define TSC__F_HZ 0      /* double bits: ticks per second                   */
#define TSC__F_SEC 1     /* double bits: seconds per tick                   */
#define TSC__F_NS 2      /* 2 words: ns per tick, 64.64 fixed point         */
#define TSC__F_TK 4      /* 2 words: ticks per ns, 64.64 fixed point        */
#define TSC__F_UNC 6     /* double bits: uncertainty, ppm                   */
#define TSC__F_SPENT 7   /* double bits: seconds the calibration took       */
#define TSC__F_SAMPLES 8
#define TSC__F_BRACKET 9
#define TSC__F_SRC 10    /* TSC__SRC_*                                      */
#define TSC__F_WORDS 11
#define TSC__F_STRIDE 12 /* a copy's room                                   */
/* The clock, one copy: a switch point and two lines (from it, before it),
 * each 8 words: base_ticks, base_ns, mul (2 words), end_ticks, end_ns,
 * rate (2 words); the realtime offset; how far the line may run ahead of
 * CLOCK_MONOTONIC (ns), the monotonic ns when the copy was made, and a cap
 * (for a counter that went back: tsc__clock_floor, and the start of the
 * first line after it, UINT64_MAX otherwise). What every reading loads
 * (the switch point, the line from it, the offset) comes first: two cache
 * lines. */
#define TSC__L_SWITCH 0
#define TSC__L_CUR 1
#define TSC__L_REAL 9
#define TSC__L_PREV 10
#define TSC__L_AHEAD 18
#define TSC__L_MONO 19
#define TSC__L_CAP 20
#define TSC__L_REALW 21 /* the width of the realtime offset's measurement */
#define TSC__L_WORDS 22
#define TSC__L_STRIDE 24
/* Each latch has four copies: the one in force, one a writer fills, and
 * two spares, so a writer stopped in the middle of its stores (preempted,
 * in a debugger) after its claim was taken over keeps its copy, which no
 * reader uses, while the writers after it publish in the other two. A copy
 * is reserved by its writer (owner word: the claim word; stamp: the claim's
 * stamp) until its publication succeeds or fails. */
#define TSC__SLOTS 4
struct tsc__owners {
    uint32_t own[TSC__SLOTS]; /* the reserving writer's claim word; pid 0 free */
    uint32_t tag[TSC__SLOTS]; /* its claim's stamp                             */
};
/* The clock's records for stored stamps: (ticks, ns) at every switch point
 * in a ring of 64, and every 64th of them in a second ring. */
#define TSC__HIST 64

struct tsc__state {
    uint32_t mode;     /* TSC__MODE_*; 0 until chosen                        */
    uint32_t why;      /* mode | TSC__WHY_* bits, set once                   */
    uint32_t overhead; /* empty-region ticks + 1; 0 until measured           */
    uint32_t fseq;     /* frequency latch: 0 none yet (TSC__SEQ_*)           */
    uint32_t cseq;     /* clock latch: likewise                              */
    uint32_t bench_rows; /* tsc_bench_print rows so far (header before 1st) */
    uint32_t cread;    /* the clock's ordered read (TSC__CREAD_*); 0 unknown */
    uint32_t spare;    /* (keeps the next field aligned without padding)   */
    uintptr_t vdso;    /* the vDSO's clock_gettime; 1 none, 0 not looked up */
    struct tsc__claim first; /* measuring the first calibration            */
    struct tsc__claim fw;    /* publishing a frequency                     */
    struct tsc__claim cw;    /* setting up or steering the clock           */
    uint64_t f[TSC__SLOTS][TSC__F_STRIDE]; /* the frequency's copies        */
    uint64_t l[TSC__SLOTS][TSC__L_STRIDE]; /* the clock's copies            */
    struct tsc__owners fown, cown;         /* their writers' reservations   */
    /* The clock's steering, the cw owner's alone: */
    uint64_t ref_mid, ref_ns; /* rate reference: ticks, monotonic ns        */
    uint64_t last_ns;         /* monotonic ns at the last measurement       */
    uint64_t rate;            /* double bits: measured ns per tick          */
    uint64_t narrow;          /* narrowest bracket seen, ticks              */
    uint64_t cand;            /* double bits: the last span's rate          */
    uint64_t kf;              /* double bits: the kernel's rate factor at the
                                 last measurement (adjtimex); 0 unknown    */
    uint64_t bench_base;      /* double bits: ns/op of the first row printed */
    uint32_t hcount;          /* clock records written                     */
    uint32_t trust;           /* tsc_trust's verdict (TSC__TR_*), 0 unknown */
    uint64_t hist[2][TSC__HIST][2]; /* [every, every 64th][slot][ticks, ns] */
}
#if defined(TSC__GNU)
__attribute__((aligned(64))) /* cache lines of its own */
#endif
;

/* One definition of a name however many units define it. */
#if defined(_MSC_VER) || defined(__MINGW32__) || defined(__CYGWIN__)
#define TSC__WEAKDEF __declspec(selectany)
#else
#define TSC__WEAKDEF __attribute__((weak))
#endif
#if defined(TSC__EXTERN)
/* The many-files mode's link checks: the state is defined in the file with
 * TSC_TIMER_IMPLEMENTATION alone, under a name that holds the version and
 * configuration and says what is missing where a file's configuration
 * macros differ from that file's; every file also refers to a name that
 * holds the version alone, which that file defines (below), so that a
 * program without it, or with two, fails to link naming the fix, whatever
 * it uses (statistics alone call no state). */
#undef tsc__g
#define tsc__g TSC__ZVNAME(tsc_timer_has_no_TSC_TIMER_IMPLEMENTATION_file_with_its_config_macros_v)
#define tsc__one TSC__VERNAME(tsc_timer_needs_TSC_TIMER_IMPLEMENTATION_in_exactly_one_file_v)
extern const char tsc__one;
#if TSC__IMPL
const char tsc__one = 1;
#elif defined(TSC__GNU)
static const char *const tsc__one_ref __attribute__((used)) = &tsc__one;
#elif defined(_MSC_VER)
#define TSC__STR2(x) #x
#define TSC__STR(x) TSC__STR2(x)
#if defined(_M_IX86)
#pragma comment(linker, "/include:_" TSC__STR(tsc__one))
#else
#pragma comment(linker, "/include:" TSC__STR(tsc__one))
#endif
#endif
#define TSC__SHARED
#else
#define TSC__SHARED TSC__WEAKDEF
#endif
/* (mingw gcc drops selectany from a definition that follows a plain extern
 * declaration, and the linker then sees one definition per unit) */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__MINGW32__) || defined(__CYGWIN__))
#define TSC__SHARED_EXTERN extern TSC__SHARED
#else
#define TSC__SHARED_EXTERN extern
#endif
#ifdef __cplusplus
#define TSC__ZERO {}
#else
#define TSC__ZERO {0}
#endif
TSC__SHARED_EXTERN struct tsc__state tsc__g;
#if TSC__IMPL
#if defined(_MSC_VER) && !defined(__clang__)
__declspec(align(64))
#endif
TSC__SHARED struct tsc__state tsc__g = TSC__ZERO;
#endif

/* Files that include the header plainly and files built with
 * TSC_TIMER_EXTERN in one program keep two states (two calibrations, two
 * clocks), which no link error can tell: each mode marks this word, one
 * for both, at its first calibration, and the second to come says so on
 * stderr. */
#define tsc__modes TSC__VNAME(tsc__modes_v)
#if defined(__GNUC__) && !defined(__clang__) && (defined(__MINGW32__) || defined(__CYGWIN__))
extern TSC__WEAKDEF uint32_t tsc__modes;
#else
extern uint32_t tsc__modes;
#endif
#if TSC__IMPL
TSC__WEAKDEF uint32_t tsc__modes = 0;
#endif

/* --- compiled once: what the hot paths and the macros call ------------- */

TSC__COLD uint64_t tsc__os_ns(int realtime);
TSC__COLD uint32_t tsc__detect_mode(void);
TSC__COLD void tsc__freq_first(uint64_t v[TSC__F_WORDS]);
TSC__COLD uint64_t tsc__measure_overhead(void);
TSC__COLD uint64_t tsc__clock_ticks_slow(void);
TSC__COLD int tsc__clock_os(void);
TSC__COLD uint64_t tsc__clock_first(int realtime);
TSC__COLD uint64_t tsc__after_slow(uint32_t *cpu);
#if !defined(TSC__OSCLOCK)
TSC__COLD uint64_t tsc__before_slow(void);
TSC__COLD uint64_t tsc__clock_slow(uint64_t t, int realtime);
#endif
TSC__COLD uint64_t tsc__bench_account(struct tsc_bench *b, uint64_t t1, uint32_t cpu, uint64_t n);
TSC__COLD void tsc__log_ticks(FILE *out, const char *name, uint64_t ticks);
TSC__COLD void tsc__log_timestamp(FILE *out, const char *name, uint64_t ns);
TSC__COLD int tsc__end_cpu(struct tsc_stats *s, uint64_t t0, uint32_t cpu0, int drop);

/* --- the OS clock --------------------------------------------------------- */

/* The kernel's own clock_gettime, in the vDSO it maps into every process
 * (found through getauxval(AT_SYSINFO_EHDR) and the vDSO's dynamic symbol
 * table), so that no read of the OS clock goes through a symbol a program
 * can interpose: a clock_gettime built on tsc_now_ns() must not steer the
 * line it serves from its own answers. Where there is none (qemu-user,
 * x32, rv32, ELFv1 PowerPC), the system call (libc's syscall()). Other
 * systems read libc's clock_gettime: there a clock_gettime built on this
 * clock would feed it its own answers. */
#if defined(TSC__LINUX) && defined(TSC__GNU) && defined(TSC__NR_CLOCK_GETTIME) && \
    !defined(TSC__SYS_TS64) && !(defined(__powerpc64__) && (!defined(_CALL_ELF) || _CALL_ELF != 2))
#define TSC__VDSO 1
#if defined(__aarch64__) || defined(__powerpc__) || defined(__s390x__)
#define TSC__VDSO_NAME "__kernel_clock_gettime"
#else
#define TSC__VDSO_NAME "__vdso_clock_gettime" /* x86, arm, riscv64, loongarch */
#endif
typedef int (*tsc__vdso_fn)(long, struct tsc__timespec *);
#if defined(__LP64__) || defined(_LP64)
struct tsc__ehdr { unsigned char id[16]; uint16_t type, machine; uint32_t version;
                   uint64_t entry, phoff, shoff; uint32_t flags;
                   uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx; };
struct tsc__phdr { uint32_t type, flags; uint64_t offset, vaddr, paddr, filesz, memsz, align; };
struct tsc__sym { uint32_t name; unsigned char info, other; uint16_t shndx;
                  uint64_t value, size; };
typedef int64_t tsc__dtag;
#else
struct tsc__ehdr { unsigned char id[16]; uint16_t type, machine; uint32_t version;
                   uint32_t entry, phoff, shoff; uint32_t flags;
                   uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx; };
struct tsc__phdr { uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align; };
struct tsc__sym { uint32_t name, value, size; unsigned char info, other; uint16_t shndx; };
typedef int32_t tsc__dtag;
#endif
struct tsc__dyn { tsc__dtag tag; uintptr_t val; };

#if TSC__IMPL
/* The number of symbols a GNU hash table covers: past the last chain's end. */
TSC__FN uint32_t tsc__gnu_hash_count(const uint32_t *h)
{
    uint32_t nb = h[0], off = h[1], i, last = 0;
    const uint32_t *bucket = h + 4 + h[2] * (sizeof(uintptr_t) / 4), *chain = bucket + nb;
    for (i = 0; i < nb; i++)
        last = bucket[i] > last ? bucket[i] : last;
    if (last < off)
        return off;
    while (!(chain[last - off] & 1u))
        last++;
    return last + 1;
}

/* The vDSO's clock_gettime, or 0 where it has none. */
TSC__SLOW uintptr_t tsc__vdso_find(void)
{
    uintptr_t base = tsc__getauxval(33), bias = 0; /* AT_SYSINFO_EHDR */
    const struct tsc__ehdr *e = TSC__RCAST(const struct tsc__ehdr *, base);
    const struct tsc__phdr *ph;
    const struct tsc__dyn *d = TSC__NULL;
    const struct tsc__sym *sym = TSC__NULL;
    const char *str = TSC__NULL, *name;
    const uint32_t *hash = TSC__NULL, *gnu = TSC__NULL;
    uint32_t i, n, k;
    int have_load = 0;
    if (!base || e->id[0] != 0x7f || e->id[1] != 'E' || e->id[2] != 'L' || e->id[3] != 'F' ||
        e->id[4] != (sizeof(uintptr_t) == 8 ? 2 : 1))
        return 0;
    ph = TSC__RCAST(const struct tsc__phdr *, base + e->phoff);
    for (i = 0; i < e->phnum; i++) {
        if (ph[i].type == 1 && !have_load) { /* PT_LOAD: where vaddr 0 lies */
            bias = base + ph[i].offset - ph[i].vaddr;
            have_load = 1;
        } else if (ph[i].type == 2) { /* PT_DYNAMIC */
            d = TSC__RCAST(const struct tsc__dyn *, base + ph[i].offset);
        }
    }
    if (!have_load || !d)
        return 0;
    for (; d->tag != 0; d++) {
        if (d->tag == 4) hash = TSC__RCAST(const uint32_t *, bias + d->val);
        else if (d->tag == 5) str = TSC__RCAST(const char *, bias + d->val);
        else if (d->tag == 6) sym = TSC__RCAST(const struct tsc__sym *, bias + d->val);
        else if (d->tag == 0x6ffffef5) gnu = TSC__RCAST(const uint32_t *, bias + d->val);
    }
    if (!str || !sym || (!hash && !gnu))
        return 0;
    n = hash ? hash[1] : tsc__gnu_hash_count(gnu);
    for (i = 0; i < n; i++) {
        if (sym[i].shndx == 0 || ((sym[i].info & 0xfu) != 2 && (sym[i].info & 0xfu) != 0))
            continue; /* undefined, or not a function */
        name = str + sym[i].name;
        for (k = 0; name[k] && name[k] == TSC__VDSO_NAME[k]; k++)
            ;
        if (name[k] == 0 && k == sizeof TSC__VDSO_NAME - 1)
            return bias + TSC__CAST(uintptr_t, sym[i].value);
    }
    return 0;
}

/* Found once per process (the same answer in every thread): 1 none. */
TSC__FN tsc__vdso_fn tsc__vdso(void)
{
    uintptr_t f = __atomic_load_n(&tsc__g.vdso, __ATOMIC_ACQUIRE);
    if (TSC__UNLIKELY(f == 0)) {
        f = tsc__vdso_find();
        f = f ? f : 1;
        __atomic_store_n(&tsc__g.vdso, f, __ATOMIC_RELEASE);
    }
    return f == 1 ? TSC__NULL : TSC__RCAST(tsc__vdso_fn, f);
}
#endif
#endif

#if TSC__IMPL
/* The OS clock by a route that never re-enters user code: the system call
 * on Linux (no vDSO, no interposed clock_gettime), QPC on Windows. For
 * re-entrant callers, claim ages, and processes where RDTSC faults. */
TSC__FN uint64_t tsc__os_ns_safe(int realtime)
{
#if defined(TSC__WINDOWS)
    if (realtime) {
        uint32_t ft[2] = {0, 0}; /* FILETIME: 100 ns units since 1601 */
        uint64_t t;
        GetSystemTimePreciseAsFileTime(TSC__CAST(struct _FILETIME *, TSC__CAST(void *, ft)));
        t = (TSC__CAST(uint64_t, ft[1]) << 32) | ft[0];
        return (t - UINT64_C(116444736000000000)) * 100u;
    }
    return tsc__qpc_ns(tsc__qpc());
#elif defined(TSC__NR_CLOCK_GETTIME)
#if defined(TSC__SYS_TS64)
    int64_t k[2] = {0, 0};
    tsc__syscall(TSC__NR_CLOCK_GETTIME, TSC__CAST(long, realtime ? 0 : 1), k);
    return TSC__CAST(uint64_t, k[0]) * UINT64_C(1000000000) + TSC__CAST(uint64_t, k[1]);
#else
    long k[2] = {0, 0}; /* stays 0 if the call failed */
    tsc__syscall(TSC__NR_CLOCK_GETTIME, TSC__CAST(long, realtime ? 0 : 1), k);
    return TSC__CAST(uint64_t, k[0]) * UINT64_C(1000000000) + TSC__CAST(uint64_t, k[1]);
#endif
#else
    struct tsc__timespec ts;
    tsc__clock_gettime(realtime ? TSC__CLOCK_REALTIME : TSC__CLOCK_MONOTONIC, &ts);
    return TSC__TS_NS(ts);
#endif
}
#endif

TSC__FN uint32_t tsc__mode(void);

#if TSC__IMPL
/* The OS clock in nanoseconds (monotonic, or realtime since 1970): on
 * Linux the vDSO's clock_gettime (never an interposed one), except where
 * RDTSC is forbidden (the vDSO reads the TSC and would fault too), else the
 * system call; elsewhere the C library's clock (QPC on Windows). */
TSC__COLD uint64_t tsc__os_ns(int realtime)
{
#if defined(TSC__VDSO)
    struct tsc__timespec ts;
    tsc__vdso_fn f;
#if defined(TSC__X86)
    if (TSC__UNLIKELY(tsc__mode() == TSC__MODE_OS))
        return tsc__os_ns_safe(realtime);
#endif
    f = tsc__vdso();
    if (TSC__LIKELY(f != TSC__NULL) &&
        f(realtime ? TSC__CLOCK_REALTIME : TSC__CLOCK_MONOTONIC, &ts) == 0)
        return TSC__TS_NS(ts);
    return tsc__os_ns_safe(realtime);
#elif defined(TSC__WINDOWS) || defined(TSC__NR_CLOCK_GETTIME)
    return tsc__os_ns_safe(realtime);
#else
    struct tsc__timespec ts;
    tsc__clock_gettime(realtime ? TSC__CLOCK_REALTIME : TSC__CLOCK_MONOTONIC, &ts);
    return TSC__TS_NS(ts);
#endif
}
#endif

/* The clock a measured frequency is calibrated against, in its own units,
 * and their rate: also the counter where the mode says the OS clock (ns;
 * QPC ticks on Windows, whose frequency is then the exact QPF). */
TSC__FN uint64_t tsc__ref_read(void)
{
#if defined(TSC__WINDOWS)
    return tsc__qpc();
#else
    return tsc__os_ns(0);
#endif
}
TSC__FN double tsc__ref_hz(void)
{
#if defined(TSC__WINDOWS)
    uint64_t f = tsc__qpf();
    return TSC__CAST(double, f);
#else
    return 1e9;
#endif
}

/* --- claims: one-time and writer work --------------------------------- */

#if TSC__IMPL
TSC__FN uint32_t tsc__seq_next(uint32_t s, uint32_t low);
#endif

#if TSC__IMPL
/* An owner word (a claim's, or a copy's) comes with a stamp: the same
 * generation (bits 22-31) and the OS time it was taken (bits 0-21, see
 * TSC__AGE_SHIFT). The taker writes its stamp before the CAS that takes the
 * word (a CAS from the stamp it saw, so a taker that loses the race never
 * replaces the winner's), and again after it: the age of an owned word is
 * known from before it was taken, whatever step its owner stopped at. A
 * stamp of another generation (a late writer's store) is replaced by the
 * time it is first seen. An owner keeps its stamp (*mine) and gives back
 * only the word with that very stamp, so an owner taken over and late
 * frees nobody else's (the same word comes back after 1023 generations). */
TSC__FN uint32_t tsc__stamp_now(uint32_t gen)
{
    uint32_t t = TSC__CAST(uint32_t, tsc__os_ns_safe(0) >> TSC__AGE_SHIFT);
    return (gen & ~TSC__PID_MASK) | (t & TSC__PID_MASK);
}

/* The owner word of stamp st in this process. */
TSC__FN uint32_t tsc__owner(uint32_t st) { return (st & ~TSC__PID_MASK) | tsc__pid(); }

/* 1 where owned word w (at *word, its stamp at *st) is `limit` stamp units
 * old or more. A stamp up to a second ahead (a coarse clock: Windows'
 * 100 ns, macOS's microseconds) is a fresh one. */
TSC__FN int tsc__stale(const uint32_t *word, uint32_t *st, uint32_t w, uint32_t limit)
{
    uint32_t s = TSC__LD32(st), now = tsc__stamp_now(w), age;
    if ((s ^ w) & ~TSC__PID_MASK) { /* another generation's: aged from now */
        if (TSC__LD32(word) == w)
            (void)tsc__cas32(st, s, now);
        return 0;
    }
    age = (now - s) & TSC__PID_MASK;
    return age >= limit && age <= TSC__PID_MASK - TSC__AGE_1S;
}

/* Takes *word, seen as w with its stamp seen as s, for stamp `mine`. */
TSC__FN int tsc__own(uint32_t *word, uint32_t *st, uint32_t w, uint32_t s, uint32_t mine)
{
    uint32_t owner = tsc__owner(mine);
    (void)tsc__cas32(st, s, mine);
    if (!tsc__cas32(word, w, owner))
        return 0;
    TSC_TIMER_TEST_CLAIM_HOOK(word, 1);
    /* Ours over a losing taker's (the same generation, its time), unless
     * taken over meanwhile: a late owner never replaces a newer stamp. */
    s = TSC__LD32(st);
    if (s != mine && TSC__LD32(word) == owner)
        (void)tsc__cas32(st, s, mine);
    TSC_TIMER_TEST_CLAIM_HOOK(word, 2);
    return 1;
}

/* Gives *word back where it is still this owner's (stamp mine): free, its
 * generation kept. */
TSC__FN void tsc__disown(uint32_t *word, const uint32_t *st, uint32_t mine)
{
    uint32_t w = tsc__owner(mine);
    if (TSC__LD32(word) == w && TSC__LD32(st) == mine) {
        TSC_TIMER_TEST_CLAIM_HOOK(word, 4);
        (void)tsc__cas32(word, w, w & ~TSC__PID_MASK);
    }
}

/* Takes claim c for this thread: 1 taken (*mine is its stamp, to release
 * it with); -1 this very thread holds it (a signal handler, or a call from
 * inside the work, re-entered: it must not wait); 0 another live thread of
 * this process holds it. A claim of another process (the parent, before
 * fork) or older than a second (abandoned, or its thread stopped) is taken
 * over, and then the count of the latch it guards (seq, or NULL) advances,
 * so the publication of the writer it was taken from fails: that writer
 * may still be running. Never waits. */
TSC__FN int tsc__claim_try(struct tsc__claim *c, uint32_t bit, uint32_t *mine, uint32_t *seq)
{
    uint32_t me = tsc__pid(), w, st, g, stamp;
    *mine = 0;
    for (;;) {
        w = TSC__LD32(&c->word);
        st = TSC__LD32(&c->stamp);
        if ((w & TSC__PID_MASK) == me && !tsc__stale(&c->word, &c->stamp, w, TSC__AGE_1S))
            return (tsc__tls & bit) ? -1 : 0;
        g = ((w >> 22) + 1u) & 0x3FFu; /* never 0: a zero stamp is nobody's */
        stamp = tsc__stamp_now((g ? g : 1u) << 22);
        if (tsc__own(&c->word, &c->stamp, w, st, stamp)) {
            uint32_t s;
            *mine = stamp;
            if ((w & TSC__PID_MASK) != 0 && seq) /* taken over: its writer's count is gone */
                do
                    s = TSC__LD32(seq);
                while (s != 0 && !tsc__cas32(seq, s, tsc__seq_next(s, s & 0x8000000Fu)));
            TSC_TIMER_TEST_CLAIM_HOOK(&c->word, 3);
            tsc__tls |= bit;
            return 1;
        }
    }
}

/* 1 while claim c is still the one stamped mine (not taken over): a
 * writer checks it before it writes what is not published through the
 * latch (the clock's steering, its records), so a writer taken over while
 * it measured writes none of it. */
TSC__FN int tsc__claim_held(const struct tsc__claim *c, uint32_t mine)
{
    return TSC__LD32(&c->word) == tsc__owner(mine) && TSC__LD32(&c->stamp) == mine;
}

TSC__FN void tsc__claim_release(struct tsc__claim *c, uint32_t bit, uint32_t mine)
{
    tsc__tls &= ~bit;
    tsc__disown(&c->word, &c->stamp, mine);
}

#define TSC__SHORT_NS UINT64_C(10000000)
/* As tsc__claim_try, but waits out another thread's short hold (a
 * publication: a few dozen stores) for 10 ms at most, by the OS clock. 1
 * taken, else 0. */
TSC__FN int tsc__claim_short(struct tsc__claim *c, uint32_t bit, uint32_t *mine, uint32_t *seq)
{
    uint64_t t0 = tsc__os_ns_safe(0);
    int r, spins;
    do {
        r = tsc__claim_try(c, bit, mine, seq);
        if (r != 0)
            return r > 0;
        for (spins = 0; spins < 1000; spins++)
            tsc__pause();
    } while (tsc__os_ns_safe(0) - t0 < TSC__SHORT_NS);
    return 0;
}

/* The work this thread is inside (TSC__TLS_* bits). A bit whose claim
 * this process no longer holds, or has held for over a second, was left by
 * a siglongjmp out of that work (or by a writer stalled long enough to be
 * taken over): it is cleared, so that the thread is not taken for one
 * re-entering the library ever after. */
TSC__FN uint32_t tsc__inside(void)
{
    struct tsc__claim *c[3];
    uint32_t bit, w;
    int i;
    c[0] = &tsc__g.first; /* TSC__TLS_FIRST */
    c[1] = &tsc__g.fw;    /* TSC__TLS_FW    */
    c[2] = &tsc__g.cw;    /* TSC__TLS_CW    */
    for (i = 0; i < 3; i++) {
        bit = 1u << i;
        if (!(tsc__tls & bit))
            continue;
        w = TSC__LD32(&c[i]->word);
        if ((w & TSC__PID_MASK) != tsc__pid() || tsc__stale(&c[i]->word, &c[i]->stamp, w, TSC__AGE_1S))
            tsc__tls &= ~bit;
    }
    return tsc__tls;
}
#endif

/* --- the latch: readers never wait ------------------------------------- */

/* A latch counter: bits 0-1 name the copy in force, bits 4-30 count the
 * changes (never 0 once something is published: 0 means nothing yet), the
 * top bit marks a publication announced but not yet made (the clock's:
 * tsc_clock_resync), with its copy in bits 2-3. */
#define TSC__PENDING 0x80000000u
#define TSC__SEQ_LIVE(s) ((s) & 3u)
#define TSC__SEQ_PENDING_COPY(s) (((s) >> 2) & 3u)
#define TSC__SEQ_COUNT(s) (((s) >> 4) & 0x7FFFFFFu)
#if TSC__IMPL
/* s with its count advanced and bits 0-3 and 31 as `low` gives them. */
TSC__FN uint32_t tsc__seq_next(uint32_t s, uint32_t low)
{
    uint32_t c = ((s & 0x7FFFFFF0u) + 0x10u) & 0x7FFFFFF0u;
    return (c ? c : 0x10u) | low;
}
#endif

/* Reads n words from word `first` of the copy the latch counter *seq names
 * (copy i at copies[i * stride]). 0 when nothing is published yet. Retries
 * only when the counter changed meanwhile. */
TSC__FN int tsc__latch_get(const uint32_t *seq, const uint64_t *copies, int stride, int first,
                           uint64_t *out, int n)
{
    uint32_t s;
    const uint64_t *p;
    int i;
    for (;;) {
        s = TSC__LD32(seq);
        if (TSC__UNLIKELY(s == 0))
            return 0;
        p = copies + TSC__SEQ_LIVE(s) * TSC__CAST(uint32_t, stride) + first;
        for (i = 0; i < n; i++)
            out[i] = TSC__LD64(p + i);
        TSC__READ_FENCE(); /* the words are read before the re-check */
        if (TSC__LIKELY(TSC__RLX32(seq) == s))
            return 1;
    }
}

#if TSC__IMPL
/* A copy of latch counter s that readers may use: in force, or announced. */
TSC__FN int tsc__latch_in_use(uint32_t s, uint32_t i)
{
    return s != 0 && (i == TSC__SEQ_LIVE(s) || ((s & TSC__PENDING) && i == TSC__SEQ_PENDING_COPY(s)));
}

/* Reserves a copy of latch *seq for the writer holding the claim stamped
 * `mine`: one readers do not use, not reserved, except by a writer of
 * another process (the parent, before fork) or, where nothing else is
 * free, more than 10 s before (a thread that died in the middle of its
 * stores). Only its reserver can make a copy the one in force, so once
 * reserved and seen not in use, it stays unused by readers. A system call
 * (the time) only where nothing is free. The copy number, or -1 (none
 * free). */
TSC__FN int tsc__latch_reserve(const uint32_t *seq, struct tsc__owners *o, uint32_t mine)
{
    uint32_t me = tsc__pid(), w, st, i, pass;
    for (pass = 0; pass < 2; pass++)
        for (i = 0; i < TSC__SLOTS; i++) {
            if (tsc__latch_in_use(TSC__LD32(seq), i))
                continue;
            w = TSC__LD32(&o->own[i]);
            st = TSC__LD32(&o->tag[i]);
            if ((w & TSC__PID_MASK) == me &&
                (pass == 0 || !tsc__stale(&o->own[i], &o->tag[i], w, 10 * TSC__AGE_1S)))
                continue;
            if (!tsc__own(&o->own[i], &o->tag[i], w, st, mine))
                continue;
            if (tsc__latch_in_use(TSC__LD32(seq), i)) { /* published just before */
                tsc__disown(&o->own[i], &o->tag[i], mine);
                continue;
            }
            return TSC__CAST(int, i);
        }
    return -1;
}

/* Gives copy i back, unless another writer reclaimed it meanwhile. */
TSC__FN void tsc__latch_unreserve(struct tsc__owners *o, int i, uint32_t mine)
{
    tsc__disown(&o->own[i], &o->tag[i], mine);
}
#endif

#if defined(TSC_TIMER_TEST_CHECKSUM)
#if TSC__IMPL
/* Test builds: a checksum of a copy's words, stored after them, so a test
 * can check that every copy it reads is whole. */
TSC__FN uint64_t tsc__checksum(const uint64_t *v, int words)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    int k;
    for (k = 0; k < words; k++)
        h = (h ^ v[k]) * UINT64_C(0x100000001b3);
    return h;
}
#endif
#endif

#if TSC__IMPL
/* Fills copy i with v (words words; test builds add their checksum). */
TSC__FN void tsc__latch_fill(uint64_t *copies, int stride, int i, const uint64_t *v, int words)
{
    uint64_t *dst = copies + TSC__CAST(uint32_t, i) * TSC__CAST(uint32_t, stride);
    int k;
    for (k = 0; k < words; k++)
        TSC__ST64(dst + k, v[k]);
#if defined(TSC_TIMER_TEST_CHECKSUM)
    TSC__ST64(dst + words, tsc__checksum(v, words));
#endif
}

/* Publishes v (`words` words) as the holder of the latch's writer claim
 * (stamped mine), who saw the counter at s0 when it took the claim:
 * fills a reserved copy, then makes it the one in force with one CAS from
 * s0, which fails where the claim was taken over meanwhile (the counter
 * advanced). 0, or -EAGAIN (nothing changed for readers). */
TSC__FN int tsc__latch_put(uint32_t *seq, struct tsc__owners *o, uint64_t *copies, int stride,
                           int words, const uint64_t *v, int what, uint32_t s0, uint32_t mine)
{
    int i = tsc__latch_reserve(seq, o, mine), ok;
    if (i < 0)
        return -EAGAIN;
    TSC__WRITE_FENCE(); /* the counter we saw is ordered before our stores */
    tsc__latch_fill(copies, stride, i, v, words);
    TSC_TIMER_TEST_PUBLISH_HOOK(what);
    (void)what;
    ok = tsc__cas32(seq, s0, tsc__seq_next(s0, TSC__CAST(uint32_t, i)));
    tsc__latch_unreserve(o, i, mine);
    return ok ? 0 : -EAGAIN;
}
#endif

/* --- x86: CPUID ---------------------------------------------------------- */

#if defined(TSC__X86)
TSC__FN void tsc__cpuid(uint32_t leaf, uint32_t r[4])
{
#if defined(TSC__X86_GNU)
    uint32_t a, b, c, d;
#if defined(__i386__) && defined(__PIC__)
    /* EBX is the PIC register on i386: swap it out around CPUID. */
    __asm__ __volatile__("xchgl %%ebx, %1\n\tcpuid\n\txchgl %%ebx, %1"
                         : "=a"(a), "=&r"(b), "=c"(c), "=d"(d)
                         : "0"(leaf), "2"(0u));
#else
    __asm__ __volatile__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "0"(leaf), "2"(0u));
#endif
    r[0] = a; r[1] = b; r[2] = c; r[3] = d;
#else
    int v[4];
    __cpuidex(v, TSC__CAST(int, leaf), 0);
    r[0] = TSC__CAST(uint32_t, v[0]); r[1] = TSC__CAST(uint32_t, v[1]);
    r[2] = TSC__CAST(uint32_t, v[2]); r[3] = TSC__CAST(uint32_t, v[3]);
#endif
    TSC_TIMER_TEST_CPUID_HOOK(leaf, r);
}
/* The leaf's registers, or zeros where the CPU does not have the leaf. */
TSC__FN void tsc__cpuid_leaf(uint32_t leaf, uint32_t r[4])
{
    uint32_t max[4];
    tsc__cpuid(leaf & 0xF0000000u, max);
    r[0] = r[1] = r[2] = r[3] = 0;
    if (max[0] >= leaf)
        tsc__cpuid(leaf, r);
}
#if TSC__IMPL
/* 1 on AMD (and Hygon) CPUs whose LFENCE may not be dispatch-serializing:
 * CPUID 0x80000021 EAX[2] clear and a family below 10h, where Linux (since
 * 2018) and Windows set MSR DE_CFG[1] on family 10h and later. */
TSC__FN int tsc__amd_needs_mfence(void)
{
    uint32_t r[4], fam;
    tsc__cpuid_leaf(0, r);
    if (!((r[1] == 0x68747541u && r[3] == 0x69746e65u && r[2] == 0x444d4163u) || /* AuthenticAMD */
          (r[1] == 0x6f677948u && r[3] == 0x6e65476eu && r[2] == 0x656e6975u)))  /* HygonGenuine */
        return 0;
    tsc__cpuid_leaf(0x80000021u, r);
    if ((r[0] >> 2) & 1u)
        return 0;
    tsc__cpuid_leaf(1, r);
    fam = (r[0] >> 8) & 0xFu;
    if (fam == 0xFu)
        fam += (r[0] >> 20) & 0xFFu;
    return fam < 0x10u;
}
#endif
#endif

#if TSC__IMPL
/* 1 when the OS lets this thread read the hardware counter (Linux x86:
 * prctl(PR_GET_TSC), which is per thread). */
TSC__FN int tsc__os_allows_counter(void)
{
#if defined(TSC__LINUX) && defined(TSC__X86) && defined(TSC__GNU)
    int v = 0;
    /* PR_GET_TSC (25) fails only on kernels without it: they allow.
     * PR_TSC_SIGSEGV (2): RDTSC faults. */
    return !(tsc__prctl(25, &v, 0L, 0L, 0L) == 0 && v == 2);
#else
    return 1;
#endif
}
#endif

/* --- counter reads ------------------------------------------------------ */

/* x86 fencing. LFENCE waits until every earlier instruction has completed
 * locally and keeps later ones from starting, so LFENCE;RDTSC;LFENCE reads
 * the TSC after the code before it and before the code after it. RDTSCP
 * already waits for earlier instructions (not stores, which the region's
 * duration need not include); the LFENCE after it keeps the following code
 * from starting early. "memory" stops the compiler moving loads and stores
 * across the read. LFENCE needs SSE2 and serializes dispatch on AMD only
 * where the kernel or CPUID says so: old AMD CPUs get MFENCE, as Linux's
 * rdtsc_ordered() gave them, and CPUs without SSE2 CPUID, which serializes
 * everywhere (at a cost). */
#if defined(TSC__X86_GNU)
TSC__FN uint64_t tsc__rdtsc_fenced(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return (TSC__CAST(uint64_t, hi) << 32) | lo;
}
TSC__FN uint64_t tsc__rdtscp_fenced(uint32_t *aux)
{
    uint32_t lo, hi, c;
    __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(c) : : "memory");
    *aux = c;
    return (TSC__CAST(uint64_t, hi) << 32) | lo;
}
TSC__FN uint64_t tsc__rdtsc_mfenced(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("mfence\n\trdtsc\n\tmfence" : "=a"(lo), "=d"(hi) : : "memory");
    return (TSC__CAST(uint64_t, hi) << 32) | lo;
}
/* The clock's reads: ordered after every earlier load (LFENCE waits for
 * them to complete; RDTSCP waits for them to be globally visible), as
 * Linux's rdtsc_ordered() reads; nothing keeps later code from starting
 * early, which a timestamp does not need. The bare read has no order. */
TSC__FN uint64_t tsc__rdtsc_ordered(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return (TSC__CAST(uint64_t, hi) << 32) | lo;
}
TSC__FN uint64_t tsc__rdtscp_ordered(void)
{
    uint32_t lo, hi, c;
    __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c) : : "memory");
    (void)c;
    return (TSC__CAST(uint64_t, hi) << 32) | lo;
}
TSC__FN uint64_t tsc__rdtsc_bare(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return (TSC__CAST(uint64_t, hi) << 32) | lo;
}
TSC__FN uint64_t tsc__rdtsc_cpuid(void)
{
    uint32_t r[4], lo, hi;
    tsc__cpuid(0, r);
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : "r"(r[0]) : "memory");
    return (TSC__CAST(uint64_t, hi) << 32) | lo;
}
#elif defined(TSC__X86_MSVC)
TSC__FN uint64_t tsc__rdtsc_fenced(void)
{
    uint64_t t;
    _mm_lfence();
    t = __rdtsc();
    _mm_lfence();
    return t;
}
TSC__FN uint64_t tsc__rdtscp_fenced(uint32_t *aux)
{
    unsigned int c;
    uint64_t t = __rdtscp(&c);
    _mm_lfence();
    *aux = c;
    return t;
}
TSC__FN uint64_t tsc__rdtsc_mfenced(void)
{
    uint64_t t;
    _mm_mfence();
    t = __rdtsc();
    _mm_mfence();
    return t;
}
TSC__FN uint64_t tsc__rdtsc_ordered(void)
{
    _mm_lfence();
    return __rdtsc();
}
TSC__FN uint64_t tsc__rdtscp_ordered(void)
{
    unsigned int c;
    return __rdtscp(&c);
}
TSC__FN uint64_t tsc__rdtsc_bare(void) { return __rdtsc(); }
TSC__FN uint64_t tsc__rdtsc_cpuid(void)
{
    uint32_t r[4];
    tsc__cpuid(0, r);
    _ReadWriteBarrier();
    return __rdtsc();
}
#endif

/* This platform's own counter, ordered after earlier instructions. */
TSC__FN uint64_t tsc__native_read(void)
{
#if defined(TSC__AARCH64)
    uint64_t v;
    /* ISB: the read happens after every earlier instruction. */
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
#elif defined(TSC__ARMV7)
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrrc p15, 1, %Q0, %R0, c14" : "=r"(v) : : "memory");
    return v;
#elif defined(TSC__PPC64)
    uint64_t v;
    __asm__ __volatile__("isync\n\tmfspr %0, 268" : "=r"(v) : : "memory");
    return v;
#elif defined(TSC__PPC32)
    /* Re-read the upper half until it is stable across the lower read. */
    uint32_t hi, lo, hi2;
    __asm__ __volatile__("isync" : : : "memory"); /* after earlier instructions */
    do {
        __asm__ __volatile__("mftbu %0" : "=r"(hi) : : "memory");
        __asm__ __volatile__("mftb %0" : "=r"(lo) : : "memory");
        __asm__ __volatile__("mftbu %0" : "=r"(hi2) : : "memory");
    } while (hi != hi2);
    return (TSC__CAST(uint64_t, hi) << 32) | lo;
#elif defined(TSC__RISCV) && defined(__riscv_xlen) && __riscv_xlen == 64
    uint64_t v;
    __asm__ __volatile__("fence\n\trdtime %0" : "=r"(v) : : "memory");
    return v;
#elif defined(TSC__RISCV)
    uint32_t hi, lo, hi2;
    __asm__ __volatile__("fence" : : : "memory"); /* after earlier loads and stores */
    do {
        __asm__ __volatile__("rdtimeh %0" : "=r"(hi) : : "memory");
        __asm__ __volatile__("rdtime %0" : "=r"(lo) : : "memory");
        __asm__ __volatile__("rdtimeh %0" : "=r"(hi2) : : "memory");
    } while (hi != hi2);
    return (TSC__CAST(uint64_t, hi) << 32) | lo;
#elif defined(TSC__S390X)
    uint64_t v;
    /* BCR 15,0 serializes: STCKF alone may run ahead of earlier loads. */
    __asm__ __volatile__("bcr 15,0\n\tstckf %0" : "=Q"(v) : : "memory", "cc");
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

#if defined(TSC__X86)
#if TSC__IMPL
/* RDTSCP or LFENCE;RDTSC for the clock, whichever is cheaper here (the
 * development machine: 20.6 ns against 18.0; other CPUs the other way):
 * the faster of each one's best of 4 runs of 16 back-to-back reads. */
TSC__SLOW uint32_t tsc__pick_clock_read(void)
{
    uint64_t best[2] = {UINT64_MAX, UINT64_MAX}, t0, t;
    int r, i;
    for (r = 0; r < 8; r++) {
        t0 = tsc__rdtsc_ordered();
        for (i = 0; i < 16; i++)
            t = r & 1 ? tsc__rdtscp_ordered() : tsc__rdtsc_ordered();
        t = tsc__rdtsc_ordered() - t0;
        best[r & 1] = t < best[r & 1] ? t : best[r & 1];
    }
    return best[1] < best[0] ? TSC__CREAD_RDTSCP : TSC__CREAD_LFENCE;
}
#endif
#endif

#if TSC__IMPL
/* Chooses once how this process reads the counter, with the reason. The
 * first thread to decide wins (the RDTSC permission is per thread, so
 * threads may disagree); all then agree on its answer. */
TSC__COLD uint32_t tsc__detect_mode(void)
{
    uint32_t mode = TSC__MODE_NATIVE, why = 0, w;
#if defined(TSC__OSCLOCK)
    mode = TSC__MODE_OS;
#elif defined(TSC__X86)
    uint32_t r[4];
    tsc__cpuid_leaf(1, r);
    if (!((r[3] >> 4) & 1u)) {
        mode = TSC__MODE_OS;
        why = TSC__WHY_NO_TSC;
    } else if (!tsc__os_allows_counter()) {
        mode = TSC__MODE_OS;
        why = TSC__WHY_FORBIDDEN;
    } else if (!((r[3] >> 26) & 1u)) {
        mode = TSC__MODE_CPUID; /* no SSE2, so no LFENCE */
    } else if (tsc__amd_needs_mfence()) {
        mode = TSC__MODE_MFENCE;
    } else {
        tsc__cpuid_leaf(0x80000001u, r);
        mode = ((r[3] >> 27) & 1u) ? TSC__MODE_RDTSCP : TSC__MODE_RDTSC;
#if defined(TSC_TIMER_NO_RDTSCP)
        mode = TSC__MODE_RDTSC;
#endif
    }
#elif defined(TSC__ARMV7)
    /* Linux sets HWCAP_EVTSTRM (bit 21 of AT_HWCAP, 16) when it runs the
     * generic timer, and then also opens CNTVCT to user space. Without it
     * (no generic timer, or an emulator that traps the read): the OS. */
    if (!(tsc__getauxval(16) & (1ul << 21))) {
        mode = TSC__MODE_OS;
        why = TSC__WHY_NO_TIMER;
    }
#endif
    tsc__cas32(&tsc__g.why, 0, mode | why | TSC__WHY_SET);
    w = TSC__LD32(&tsc__g.why);
    mode = w & 0xFFu;
    w = TSC__CREAD_NONE;
#if defined(TSC__X86)
    if (mode == TSC__MODE_RDTSCP)
        w = tsc__pick_clock_read();
    else if (mode == TSC__MODE_RDTSC)
        w = TSC__CREAD_LFENCE;
    else if (mode != TSC__MODE_OS)
        w = TSC__CREAD_OTHER;
#endif
    tsc__cas32(&tsc__g.cread, 0, w);
    TSC__ST32(&tsc__g.mode, mode);
    return mode;
}
#endif

TSC__FN uint32_t tsc__mode(void)
{
    uint32_t m = TSC__RLX32(&tsc__g.mode);
    return TSC__LIKELY(m != TSC__MODE_UNKNOWN) ? m : tsc__detect_mode();
}

#if !defined(TSC__OSCLOCK)
#if TSC__IMPL
TSC__COLD uint64_t tsc__before_slow(void)
{
    uint32_t m = tsc__mode();
#if defined(TSC__X86)
    if (m == TSC__MODE_RDTSCP || m == TSC__MODE_RDTSC)
        return tsc__rdtsc_fenced();
    if (m == TSC__MODE_MFENCE)
        return tsc__rdtsc_mfenced();
    if (m == TSC__MODE_CPUID)
        return tsc__rdtsc_cpuid();
#endif
    if (m == TSC__MODE_OS)
        return tsc__ref_read();
    return tsc__native_read();
}
#endif
#endif

/* The CPU from an RDTSCP's TSC_AUX: Linux stores node << 12 | cpu there;
 * Windows does not say, so ask it; elsewhere unknown. */
TSC__FN uint32_t tsc__aux_cpu(uint32_t aux)
{
#if defined(TSC__LINUX)
    return aux & 0xFFFu;
#elif defined(TSC__WINDOWS)
    (void)aux;
    return TSC__CAST(uint32_t, GetCurrentProcessorNumber());
#else
    (void)aux;
    return UINT32_MAX;
#endif
}

#if TSC__IMPL
TSC__COLD uint64_t tsc__after_slow(uint32_t *cpu)
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
    if (m != TSC__MODE_OS)
        t = tsc__before_slow(); /* the same fenced read after as before */
    else
#endif
    if (m == TSC__MODE_OS)
        t = tsc__ref_read();
    else
        t = tsc__native_read();
    if (cpu) {
#if defined(TSC__LINUX) && defined(TSC__GNU)
        int c = tsc__sched_getcpu();
        aux = c >= 0 ? TSC__CAST(uint32_t, c) : UINT32_MAX;
#elif defined(TSC__WINDOWS)
        aux = TSC__CAST(uint32_t, GetCurrentProcessorNumber());
#endif
        *cpu = aux;
    }
    return t;
}
#endif

TSC__FN uint64_t tsc_ticks_before(void)
{
#if defined(TSC__X86)
    /* Both LFENCE modes read the same way before a region. */
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.mode) - 1u < 2u))
        return tsc__rdtsc_fenced();
    return tsc__before_slow();
#elif defined(TSC__OSCLOCK)
    return tsc__ref_read();
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

TSC__FN uint64_t tsc_ticks_after(void)
{
#if defined(TSC__X86)
    uint32_t m = TSC__RLX32(&tsc__g.mode), aux;
    if (TSC__LIKELY(m == TSC__MODE_RDTSCP))
        return tsc__rdtscp_fenced(&aux);
    if (TSC__LIKELY(m == TSC__MODE_RDTSC))
        return tsc__rdtsc_fenced();
    return tsc__after_slow(TSC__CAST(uint32_t *, TSC__NULL));
#elif defined(TSC__OSCLOCK)
    return tsc__ref_read();
#else
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.mode) == TSC__MODE_NATIVE))
        return tsc__native_read();
    return tsc__after_slow(TSC__CAST(uint32_t *, TSC__NULL));
#endif
}

TSC__FN uint64_t tsc_ticks_after_cpu(uint32_t *cpu)
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

TSC__FN uint64_t tsc_ticks_before_cpu(uint32_t *cpu)
{
    /* The CPU first, then the fenced start: the query (RDTSCP, or
     * sched_getcpu) stays out of the region. A move between the two shows
     * as a change of CPU at the region's end, like any other. */
    if (cpu) {
#if defined(TSC__X86) && defined(TSC__LINUX)
        /* (inline where RDTSCP answers: a call to the cold slow path would
         * make the compiler place the caller's timed loop in its cold
         * section, laid out for size) */
        uint32_t aux;
        if (TSC__LIKELY(TSC__RLX32(&tsc__g.mode) == TSC__MODE_RDTSCP)) {
            (void)tsc__rdtscp_fenced(&aux);
            *cpu = tsc__aux_cpu(aux);
        } else
#endif
            (void)tsc__after_slow(cpu);
    }
    return tsc_ticks_before();
}

#if TSC__IMPL
TSC__API const char *tsc_counter_name(void)
{
    uint32_t m = tsc__mode(), why = TSC__LD32(&tsc__g.why);
    (void)why;
    switch (m) {
#if defined(TSC__X86)
    case TSC__MODE_RDTSCP: return "x86 TSC (LFENCE;RDTSC;LFENCE / RDTSCP;LFENCE)";
    case TSC__MODE_RDTSC: return "x86 TSC (LFENCE;RDTSC;LFENCE, no RDTSCP)";
    case TSC__MODE_MFENCE:
        return "x86 TSC (MFENCE;RDTSC;MFENCE: AMD before family 10h, LFENCE does not serialize)";
    case TSC__MODE_CPUID: return "x86 TSC (CPUID;RDTSC: no SSE2, so no LFENCE)";
#endif
    case TSC__MODE_OS:
#if defined(TSC_TIMER_FORCE_FALLBACK)
        return "OS clock (TSC_TIMER_FORCE_FALLBACK)";
#else
        if (why & TSC__WHY_FORBIDDEN)
            return "OS clock (RDTSC forbidden by prctl PR_SET_TSC)";
        if (why & TSC__WHY_NO_TSC)
            return "OS clock (CPU has no TSC)";
        if (why & TSC__WHY_NO_TIMER)
            return "OS clock (no ARM generic timer)";
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
#endif

/* --- frequency: what registers and the OS state ------------------------ */

#if TSC__IMPL
/* The exact frequency where a register or the OS states it, else 0. */
TSC__FN double tsc__architectural_hz(uint32_t *src)
{
    if (tsc__mode() == TSC__MODE_OS) {
#if defined(TSC__WINDOWS)
        uint64_t f = tsc__qpf();
        *src = TSC__SRC_QPF;
        return TSC__CAST(double, f);
#else
        *src = TSC__SRC_OS_NS;
        return 1e9;
#endif
    }
#if defined(TSC__AARCH64)
    {
        uint64_t f;
        __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
        *src = TSC__SRC_CNTFRQ;
        return TSC__CAST(double, f);
    }
#elif defined(TSC__ARMV7)
    {
        uint32_t f;
        __asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(f));
        *src = TSC__SRC_CNTFRQ;
        return TSC__CAST(double, f);
    }
#elif defined(TSC__S390X)
    *src = TSC__SRC_TOD;
    return 4.096e9;
#elif defined(TSC__LOONGARCH)
    {
        uint32_t base, mul_div, cfg2, w2 = 2, w4 = 4, w5 = 5;
        /* Words 4 and 5 state the counter's clock only where word 2's
         * LLFTP bit (14: constant-frequency timer) is set, as Linux checks. */
        __asm__ __volatile__("cpucfg %0, %1" : "=r"(cfg2) : "r"(w2));
        __asm__ __volatile__("cpucfg %0, %1" : "=r"(base) : "r"(w4));
        __asm__ __volatile__("cpucfg %0, %1" : "=r"(mul_div) : "r"(w5));
        *src = TSC__SRC_CPUCFG;
        if (!((cfg2 >> 14) & 1u) || (mul_div >> 16) == 0)
            return 0;
        return TSC__CAST(double, base) * TSC__CAST(double, mul_div & 0xFFFFu) /
               TSC__CAST(double, mul_div >> 16);
    }
#elif defined(TSC__MACH)
    {
        mach_timebase_info_data_t tb;
        mach_timebase_info(&tb);
        *src = TSC__SRC_MACH;
        return 1e9 * TSC__CAST(double, tb.denom) / TSC__CAST(double, tb.numer);
    }
#elif defined(TSC__QPC)
    {
        uint64_t f = tsc__qpf();
        *src = TSC__SRC_QPF;
        return TSC__CAST(double, f);
    }
#elif (defined(TSC__PPC64) || defined(TSC__PPC32)) && defined(__GLIBC__)
    {
        uint64_t f = tsc__ppc_tb_freq(); /* 0 under qemu-user */
        *src = TSC__SRC_PPC_GLIBC;
        return TSC__CAST(double, f);
    }
#elif defined(TSC__OSCLOCK)
    *src = TSC__SRC_OS_NS;
    return 1e9;
#else
    *src = TSC__SRC_NONE;
    return 0;
#endif
}

TSC__API struct tsc_features tsc_get_features(void)
{
    struct tsc_features f;
    uint32_t src = 0, mode = tsc__mode(), why = TSC__LD32(&tsc__g.why);
    memset(&f, 0, sizeof f);
    f.os_allows_counter = !(why & TSC__WHY_FORBIDDEN);
    f.has_counter = mode != TSC__MODE_OS;
    f.uses_rdtscp = mode == TSC__MODE_RDTSCP;
#if defined(TSC__X86)
    {
        uint32_t r[4], max_basic;
        tsc__cpuid_leaf(0, r);
        max_basic = r[0];
        tsc__cpuid_leaf(1, r);
        f.has_tsc = TSC__CAST(int, (r[3] >> 4) & 1u);
        f.hypervisor = TSC__CAST(int, (r[2] >> 31) & 1u);
        tsc__cpuid_leaf(0x80000001u, r);
        f.has_rdtscp = TSC__CAST(int, (r[3] >> 27) & 1u);
        tsc__cpuid_leaf(0x80000007u, r);
        f.has_invariant_tsc = TSC__CAST(int, (r[3] >> 8) & 1u);
        if (max_basic >= 0x15) {
            /* TSC = crystal * EBX / EAX; ECX (crystal Hz) may be 0. */
            tsc__cpuid(0x15, r);
            if (r[0] && r[1] && r[2])
                f.cpuid_15_hz =
                    TSC__CAST(double, r[2]) * TSC__CAST(double, r[1]) / TSC__CAST(double, r[0]);
        }
        if (max_basic >= 0x16) {
            tsc__cpuid(0x16, r);
            f.cpuid_16_hz = TSC__CAST(double, r[0] & 0xFFFFu) * 1e6;
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
                f.hypervisor_hz = TSC__CAST(double, r[0]) * 1e3;
            }
        }
    }
#endif
    f.architectural_hz = tsc__architectural_hz(&src);
    {
        /* A stated rate the first use measured to be wrong is not one. */
        uint64_t used = 0;
        if (tsc__latch_get(&tsc__g.fseq, &tsc__g.f[0][0], TSC__F_STRIDE, TSC__F_SRC, &used, 1) &&
            (used == TSC__SRC_STATED_WRONG || used == TSC__SRC_STATED_WRONG_ENDPOINTS))
            f.architectural_hz = 0;
    }
    f.frequency_is_architectural = f.architectural_hz > 0;
    return f;
}
#endif

/* --- trust: the verdict on the counter ---------------------------------- */

/* Verdicts, each a level and a reason (index into tsc__trust_entry). */
enum {
    TSC__TR_NONE,             /* not computed yet (never stored)         */
    TSC__TR_OS, TSC__TR_OS_NO_TSC, TSC__TR_OS_FORBIDDEN, TSC__TR_OS_NO_TIMER,
    TSC__TR_INV_CS,           /* invariant, the kernel's clocksource     */
    TSC__TR_INV_LISTED,       /* invariant, offered, bare metal          */
    TSC__TR_INV_NO_VIEW,      /* invariant, bare metal, no kernel view   */
    TSC__TR_INV_UNSTABLE,     /* invariant, kernel marked it unstable    */
    TSC__TR_HV_OTHER_CS,      /* hypervisor, kernel keeps time otherwise */
    TSC__TR_HV_NO_VIEW,       /* hypervisor, invariant, no kernel view   */
    TSC__TR_HV_HIDDEN,        /* hypervisor hides invariance, offered    */
    TSC__TR_VAR_CS,           /* not invariant, the kernel's clocksource */
    TSC__TR_VAR_UNSTABLE,     /* not invariant, kernel marked unstable   */
    TSC__TR_VAR_UNUSED,       /* not invariant, bare metal, not used     */
    TSC__TR_VAR_NO_VIEW,      /* not invariant, no kernel view           */
    TSC__TR_CNTVCT, TSC__TR_TIMEBASE, TSC__TR_RDTIME, TSC__TR_TOD,
    TSC__TR_LOONGARCH, TSC__TR_MACH, TSC__TR_QPC,
    TSC__TR_LEFT,             /* was the clocksource, kernel switched away */
    TSC__TR_LEFT_UNSTABLE,    /* was the clocksource, now marked unstable  */
    TSC__TR_COUNT
};

#if TSC__IMPL
TSC__FN struct tsc_trust tsc__trust_entry(uint32_t i)
{
    static const struct tsc_trust t[TSC__TR_COUNT] = {
        {TSC_TRUST_CAUTION, "not computed"},
        {TSC_TRUST_OK, "the OS clock"},
        {TSC_TRUST_OK, "the OS clock: CPUID reports no TSC"},
        {TSC_TRUST_OK, "the OS clock: RDTSC forbidden by prctl(PR_SET_TSC)"},
        {TSC_TRUST_OK, "the OS clock: no generic timer open to user space"},
        {TSC_TRUST_OK, "invariant TSC, the kernel's clocksource"},
        {TSC_TRUST_OK, "invariant TSC, offered as a clocksource by the kernel"},
        {TSC_TRUST_OK, "invariant TSC (the kernel's clocksource is not readable here)"},
        {TSC_TRUST_CAUTION, "kernel marked the TSC unstable, though CPUID says invariant"},
        {TSC_TRUST_CAUTION, "hypervisor: the kernel keeps time with another clocksource"},
        {TSC_TRUST_CAUTION, "hypervisor: invariant TSC, the kernel's view not readable"},
        {TSC_TRUST_CAUTION, "hypervisor hides invariant TSC; the kernel keeps time otherwise"},
        {TSC_TRUST_CAUTION, "TSC not invariant by CPUID, though the kernel keeps time with it"},
        {TSC_TRUST_UNSAFE, "kernel marked the TSC unstable and CPUID says not invariant"},
        {TSC_TRUST_UNSAFE, "TSC not invariant and not the kernel's clocksource"},
        {TSC_TRUST_UNSAFE, "TSC not invariant, and no kernel view vouches for it"},
        {TSC_TRUST_OK, "ARM generic timer (CNTVCT): constant rate, shared by all CPUs"},
        {TSC_TRUST_OK, "PowerPC time base: constant rate, synchronised across CPUs"},
        {TSC_TRUST_OK, "RISC-V time CSR: constant rate, synchronised across harts"},
        {TSC_TRUST_OK, "s390x TOD clock: architected, shared by all CPUs"},
        {TSC_TRUST_OK, "LoongArch stable counter: constant rate"},
        {TSC_TRUST_OK, "mach_absolute_time: the OS's counter"},
        {TSC_TRUST_OK, "QueryPerformanceCounter: the OS's counter"},
        {TSC_TRUST_CAUTION, "kernel switched its clocksource away from the TSC since start"},
        {TSC_TRUST_CAUTION, "kernel marked the TSC unstable since start"}};
    return t[i < TSC__CAST(uint32_t, TSC__TR_COUNT) ? i : 0];
}
#endif

#if defined(TSC__X86)
#if TSC__IMPL
/* 1 when the space-separated list holds the word. */
TSC__FN int tsc__trust_has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    const char *p = list;
    while ((p = strstr(p, word)) != TSC__NULL) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0' || p[n] == '\n'))
            return 1;
        p += n;
    }
    return 0;
}
#endif

#if TSC__IMPL
/* The kernel keeps time with the TSC: clocksource "tsc", or "tsc-early",
 * its name for the first seconds of a boot, before the refined calibration
 * (a program started then, a service or an initramfs, sees that one). */
TSC__FN int tsc__trust_is_tsc(const char *cur)
{
    return strcmp(cur, "tsc") == 0 || strcmp(cur, "tsc-early") == 0;
}
#endif

#if defined(TSC__NR_OPENAT)
#if TSC__IMPL
/* The first line of a /sys file, without its newline; "" if unreadable.
 * By system calls: safe in a signal handler, no allocation. */
TSC__FN void tsc__trust_line(const char *path, char *buf, int size)
{
    long fd = tsc__syscall(TSC__NR_OPENAT, -100L /* AT_FDCWD */, path, 0L /* O_RDONLY */);
    long n = fd < 0 ? -1 : tsc__syscall(TSC__NR_READ, fd, buf, TSC__CAST(long, size) - 1);
    char *nl;
    if (fd >= 0)
        (void)tsc__syscall(TSC__NR_CLOSE, fd);
    buf[n > 0 ? n : 0] = '\0';
    nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    for (n = TSC__CAST(long, strlen(buf)); n > 0 && buf[n - 1] == ' ';)
        buf[--n] = '\0';
}
#endif
#endif

#if TSC__IMPL
/* The TSC's verdict. The kernel's view: the current clocksource "tsc"
 * means it trusts the TSC (its watchdog would have switched away); "tsc"
 * gone from the available list means it marked the TSC unstable (failed
 * sync check, watchdog, tsc=unstable). CPUID's invariant bit says the rate
 * is constant and the TSC runs in every sleep state. RDTSCP does not enter
 * into it: the fencing in use orders the reads either way. */
TSC__FN uint32_t tsc__trust_x86(void)
{
    char cur[TSC__TRUST_LINE], avail[TSC__TRUST_LINE];
    uint32_t r[4];
    int inv, hv, view, used, offered;
    tsc__cpuid_leaf(1, r);
    hv = TSC__CAST(int, (r[2] >> 31) & 1u);
    tsc__cpuid_leaf(0x80000007u, r);
    inv = TSC__CAST(int, (r[3] >> 8) & 1u);
    cur[0] = avail[0] = '\0';
#if defined(TSC__NR_OPENAT)
    tsc__trust_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", cur,
                    TSC__CAST(int, sizeof cur));
    tsc__trust_line("/sys/devices/system/clocksource/clocksource0/available_clocksource", avail,
                    TSC__CAST(int, sizeof avail));
#endif
    TSC_TIMER_TEST_TRUST_HOOK(cur, avail);
    cur[sizeof cur - 1] = avail[sizeof avail - 1] = '\0';
    view = cur[0] != '\0' && avail[0] != '\0';
    used = view && tsc__trust_is_tsc(cur);
    offered = used || (view && tsc__trust_has_word(avail, "tsc"));
    if (inv) {
        if (used)
            return TSC__TR_INV_CS;
        if (!view)
            return hv ? TSC__TR_HV_NO_VIEW : TSC__TR_INV_NO_VIEW;
        if (!offered)
            return TSC__TR_INV_UNSTABLE;
        return hv ? TSC__TR_HV_OTHER_CS : TSC__TR_INV_LISTED;
    }
    if (used)
        return TSC__TR_VAR_CS;
    if (!view)
        return TSC__TR_VAR_NO_VIEW;
    if (!offered)
        return TSC__TR_VAR_UNSTABLE;
    /* Hypervisors hide the invariant bit to allow live migration, not
     * because the rate varies; the kernel has not marked it unstable. */
    return hv ? TSC__TR_HV_HIDDEN : TSC__TR_VAR_UNUSED;
}
#endif
#endif

#if TSC__IMPL && defined(TSC__X86) && defined(TSC__NR_OPENAT)
/* Trust follows the kernel, at each tsc_clock_resync(): where the verdict
 * rests on the kernel keeping time with the TSC, its current clocksource
 * is read again (one /sys file, three system calls); once it is no longer
 * "tsc" the verdict says so (CAUTION, whether the kernel's watchdog marked
 * the TSC unstable or an administrator switched), and once it is "tsc"
 * again the verdict is the first one again. Never UNSAFE mid-run: that
 * would move the clock onto the OS clock, a step; the clock keeps the
 * counter and its resyncs keep it on the kernel's clock. */
TSC__FN void tsc__trust_follow(void)
{
    char cur[TSC__TRUST_LINE], avail[TSC__TRUST_LINE];
    uint32_t v = TSC__LD32(&tsc__g.trust), nv = v;
    if (v != TSC__TR_INV_CS && v != TSC__TR_VAR_CS && v != TSC__TR_LEFT && v != TSC__TR_LEFT_UNSTABLE)
        return;
    cur[0] = avail[0] = '\0';
    tsc__trust_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", cur,
                    TSC__CAST(int, sizeof cur));
    if (cur[0] != '\0' && !tsc__trust_is_tsc(cur))
        tsc__trust_line("/sys/devices/system/clocksource/clocksource0/available_clocksource",
                        avail, TSC__CAST(int, sizeof avail));
    TSC_TIMER_TEST_TRUST_HOOK(cur, avail);
    cur[sizeof cur - 1] = avail[sizeof avail - 1] = '\0';
    if (cur[0] == '\0')
        return; /* unreadable now: nothing learnt */
    if (!tsc__trust_is_tsc(cur))
        nv = tsc__trust_has_word(avail, "tsc") ? TSC__TR_LEFT : TSC__TR_LEFT_UNSTABLE;
    else if (v == TSC__TR_LEFT || v == TSC__TR_LEFT_UNSTABLE)
        nv = tsc__trust_x86();
    if (nv != v)
        (void)tsc__cas32(&tsc__g.trust, v, nv);
}
#endif

#if TSC__IMPL
TSC__SLOW uint32_t tsc__trust_compute(void)
{
    uint32_t mode = tsc__mode(), why = TSC__LD32(&tsc__g.why);
    if (mode == TSC__MODE_OS) {
        if (why & TSC__WHY_NO_TSC)
            return TSC__TR_OS_NO_TSC;
        if (why & TSC__WHY_FORBIDDEN)
            return TSC__TR_OS_FORBIDDEN;
        if (why & TSC__WHY_NO_TIMER)
            return TSC__TR_OS_NO_TIMER;
        return TSC__TR_OS;
    }
#if defined(TSC__X86)
    return tsc__trust_x86();
#elif defined(TSC__AARCH64) || defined(TSC__ARMV7)
    return TSC__TR_CNTVCT;
#elif defined(TSC__PPC64) || defined(TSC__PPC32)
    return TSC__TR_TIMEBASE;
#elif defined(TSC__RISCV)
    return TSC__TR_RDTIME;
#elif defined(TSC__S390X)
    return TSC__TR_TOD;
#elif defined(TSC__LOONGARCH)
    return TSC__TR_LOONGARCH;
#elif defined(TSC__MACH)
    return TSC__TR_MACH;
#elif defined(TSC__QPC)
    return TSC__TR_QPC;
#else
    return TSC__TR_OS;
#endif
}

TSC__API struct tsc_trust tsc_get_trust(void)
{
    /* The verdict's index is cached process-wide in tsc__g.trust (0 until
     * computed); racing first callers compute the same, the first wins. */
    uint32_t v = TSC__LD32(&tsc__g.trust);
    if (TSC__UNLIKELY(v == TSC__TR_NONE)) {
        (void)tsc__cas32(&tsc__g.trust, TSC__TR_NONE, tsc__trust_compute());
        v = TSC__LD32(&tsc__g.trust);
    }
    return tsc__trust_entry(v);
}
#endif

/* --- trust: measured offsets between CPUs ------------------------------- */

/* sched_setaffinity and sched_getaffinity's system call numbers (the C
 * library's wrappers need <sched.h>). */
#if defined(TSC__LINUX) && defined(TSC__GNU)
#if defined(__x86_64__) && defined(__ILP32__)
#define TSC__NR_SETAFFINITY (0x40000000L + 203)
#define TSC__NR_GETAFFINITY (0x40000000L + 204)
#elif defined(__x86_64__)
#define TSC__NR_SETAFFINITY 203L
#define TSC__NR_GETAFFINITY 204L
#elif defined(__i386__) || defined(__arm__)
#define TSC__NR_SETAFFINITY 241L
#define TSC__NR_GETAFFINITY 242L
#elif defined(__aarch64__) || defined(__riscv) || defined(__loongarch__)
#define TSC__NR_SETAFFINITY 122L
#define TSC__NR_GETAFFINITY 123L
#elif defined(__powerpc__)
#define TSC__NR_SETAFFINITY 222L
#define TSC__NR_GETAFFINITY 223L
#elif defined(__s390x__)
#define TSC__NR_SETAFFINITY 239L
#define TSC__NR_GETAFFINITY 240L
#endif
#endif

#if defined(TSC__NR_SETAFFINITY)
#define TSC__SKEW_WORDS 64 /* CPU mask: 4096 CPUs (2048 on 32-bit) */
#define TSC__SKEW_READS 32 /* brackets per CPU, the narrowest kept  */
#define TSC__SKEW_BITS TSC__CAST(int, 8 * sizeof(unsigned long))

#if TSC__IMPL
/* On the CPU the thread is pinned to: the narrowest counter|clock|counter
 * bracket, its counter midpoint, clock reading and width. 0 if every
 * bracket ended on another CPU. */
TSC__FN int tsc__skew_point(uint32_t cpu, uint64_t *mid, uint64_t *ns, uint64_t *width)
{
    uint64_t t0, t1, m, best = UINT64_MAX;
    uint32_t on;
    int i;
    for (i = 0; i < TSC__SKEW_READS; i++) {
        t0 = tsc_ticks_before();
        m = tsc__os_ns(0);
        t1 = tsc_ticks_after_cpu(&on);
        if (on != cpu && on != UINT32_MAX)
            continue;
        if (t1 - t0 < best) {
            best = t1 - t0;
            *mid = t0 + best / 2;
            *ns = m;
        }
    }
    *width = best;
    return best != UINT64_MAX;
}

/* Each CPU's offset from the line through the first CPU's point at the
 * calibrated rate: offset = mid - mid0 - (ns - ns0) * Hz / 1e9. Any two
 * CPUs' counters differ by at most the spread of the offsets plus the
 * widest bracket (each midpoint is within half its width of the counter
 * when the clock was read), plus the frequency's error over the span. */
TSC__SLOW int tsc__skew_measure(uint64_t *bound_ticks)
{
    unsigned long orig[TSC__SKEW_WORDS], one[TSC__SKEW_WORDS];
    uint64_t mid = 0, ns = 0, width = 0, mid0 = 0, ns0 = 0, widest = 0;
    double hz, lo = 0, hi = 0, off, span, bound;
    struct tsc_calibration cal;
    long got;
    int c, n = 0, err = 0, e;
    hz = tsc_ticks_per_second(); /* calibrates first, if nobody has */
    if (tsc_current_calibration(&cal) != 0)
        cal.uncertainty_ppm = 0;
    memset(orig, 0, sizeof orig);
    got = tsc__syscall(TSC__NR_GETAFFINITY, 0L, TSC__CAST(long, sizeof orig), orig);
    if (got < 0)
        return errno ? -errno : -EINVAL;
    for (c = 0; c < TSC__CAST(int, got) * 8 && c < TSC__SKEW_WORDS * TSC__SKEW_BITS; c++) {
        if (!((orig[c / TSC__SKEW_BITS] >> (c % TSC__SKEW_BITS)) & 1ul))
            continue;
        memset(one, 0, sizeof one);
        one[c / TSC__SKEW_BITS] = 1ul << (c % TSC__SKEW_BITS);
        if (tsc__syscall(TSC__NR_SETAFFINITY, 0L, TSC__CAST(long, sizeof one), one) != 0)
            continue; /* gone offline, or a cpuset changed: not ours now */
        if (!tsc__skew_point(TSC__CAST(uint32_t, c), &mid, &ns, &width))
            continue;
        if (n == 0) {
            mid0 = mid;
            ns0 = ns;
        }
        off = TSC__CAST(double, TSC__CAST(int64_t, mid - mid0)) -
              TSC__CAST(double, TSC__CAST(int64_t, ns - ns0)) * hz / 1e9;
        if (n == 0 || off < lo)
            lo = off;
        if (n == 0 || off > hi)
            hi = off;
        if (width > widest)
            widest = width;
        n++;
    }
    span = TSC__CAST(double, TSC__CAST(int64_t, ns - ns0)) * hz / 1e9;
    if (tsc__syscall(TSC__NR_SETAFFINITY, 0L, TSC__CAST(long, sizeof orig), orig) != 0) {
        e = errno;
        err = e ? -e : -EINVAL;
    }
    if (n == 0)
        return err ? err : -EAGAIN;
    bound = hi - lo + TSC__CAST(double, widest) +
            (span < 0 ? -span : span) * cal.uncertainty_ppm * 1e-6;
    bound = tsc__ceil(bound);
    *bound_ticks = TSC__CAST(uint64_t, bound);
    return err;
}
#endif
#endif

#if TSC__IMPL
TSC__API int tsc_trust_measure_skew(uint64_t *bound_ticks)
{
    if (!bound_ticks)
        return -EINVAL;
    *bound_ticks = 0;
#if defined(TSC__NR_SETAFFINITY)
    return tsc__skew_measure(bound_ticks);
#else
    return -ENOSYS;
#endif
}
#endif

/* --- exact integer arithmetic for conversion --------------------------- */

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 tsc__u128;
#endif

/* *hi:*lo = a * b, full 128-bit product. */
TSC__FN void tsc__mul_64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#if defined(__SIZEOF_INT128__)
    tsc__u128 p = TSC__CAST(tsc__u128, a) * b;
    *hi = TSC__CAST(uint64_t, p >> 64);
    *lo = TSC__CAST(uint64_t, p);
#elif defined(_MSC_VER) && defined(_M_X64)
    *lo = _umul128(a, b, hi);
#else
    uint64_t a0 = TSC__CAST(uint32_t, a), a1 = a >> 32, b0 = TSC__CAST(uint32_t, b), b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + TSC__CAST(uint32_t, p01) + TSC__CAST(uint32_t, p10);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    *lo = (mid << 32) | TSC__CAST(uint32_t, p00);
#endif
}

/* round(num * 2^shift / den) as a 64.64 number in *hi:*lo, saturating at
 * all ones. Long division, one bit at a time: exact, needs no 128-bit type,
 * and runs only when a frequency is set. num, den < 2^62, den > 0. */
TSC__FN void tsc__div_shl(uint64_t num, int shift, uint64_t den, uint64_t *hi, uint64_t *lo)
{
    uint64_t q_hi = 0, q_lo = 0, r = 0;
    int i, bits = 64;
    while (bits > 0 && !((num >> (bits - 1)) & 1u))
        bits--;
    for (i = bits - 1 + shift; i >= 0; i--) {
        uint64_t bit = i >= shift ? (num >> (i - shift)) & 1u : 0;
        r = (r << 1) | bit;
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
TSC__FN uint64_t tsc__mul_fixed(uint64_t x, uint64_t hi, uint64_t lo)
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

#if TSC__IMPL
/* A 53-bit integer m and exponent e with d == m * 2^e exactly (d > 0,
 * finite), from the double's bits. */
TSC__FN void tsc__split_double(double d, uint64_t *m, int *e)
{
    uint64_t b = tsc__dbits(d);
    int ex = TSC__CAST(int, (b >> 52) & 0x7FFu);
    *m = b & ((UINT64_C(1) << 52) - 1u);
    if (ex) {
        *m |= UINT64_C(1) << 52;
        *e = ex - 1075;
    } else {
        *e = -1074; /* subnormal */
    }
}

/* x >= 0 as 64.64 fixed point. */
TSC__FN void tsc__fixed_from_double(double x, uint64_t *hi, uint64_t *lo)
{
    uint64_t h = x < TSC__2P64 ? TSC__CAST(uint64_t, x) : UINT64_MAX;
    double l = (x - TSC__CAST(double, h)) * TSC__2P64;
    *hi = h;
    *lo = l <= 0 ? 0 : l < TSC__2P64 ? TSC__CAST(uint64_t, l) : UINT64_MAX;
}

/* The conversion factors for a frequency: f[0]:f[1] nanoseconds per tick
 * and f[2]:f[3] ticks per nanosecond, each 64.64 fixed point, rounded to
 * nearest from the exact value of the double hz. */
TSC__FN void tsc__factors(double hz, uint64_t f[4])
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

/* A calibration as the frequency latch's words. */
TSC__FN void tsc__freq_words(const struct tsc_calibration *c, uint32_t src, uint64_t v[TSC__F_WORDS])
{
    tsc__factors(c->ticks_per_second, v + TSC__F_NS); /* NS and TK: 4 words */
    v[TSC__F_HZ] = tsc__dbits(c->ticks_per_second);
    v[TSC__F_SEC] = tsc__dbits(1.0 / c->ticks_per_second);
    v[TSC__F_UNC] = tsc__dbits(c->uncertainty_ppm);
    v[TSC__F_SPENT] = tsc__dbits(c->seconds_spent);
    v[TSC__F_SAMPLES] = c->samples;
    v[TSC__F_BRACKET] = c->bracket_ticks;
    v[TSC__F_SRC] = src;
}

/* Publishes a frequency; with only_if_first, only where none is yet. 1
 * published, 0 not needed (one was there), -EAGAIN when the writer claim
 * could not be had (this thread interrupted a publication). */
TSC__FN int tsc__freq_publish(const uint64_t v[TSC__F_WORDS], int only_if_first)
{
    uint32_t mine, s0;
    int done = 0;
    if (!tsc__claim_short(&tsc__g.fw, TSC__TLS_FW, &mine, &tsc__g.fseq))
        return -EAGAIN;
    s0 = TSC__LD32(&tsc__g.fseq);
    if (!only_if_first || s0 == 0)
        done = tsc__latch_put(&tsc__g.fseq, &tsc__g.fown, &tsc__g.f[0][0], TSC__F_STRIDE,
                              TSC__F_WORDS, v, 0, s0, mine) == 0 ? 1 : -EAGAIN;
    tsc__claim_release(&tsc__g.fw, TSC__TLS_FW, mine);
    return done;
}
#endif

/* --- calibration -------------------------------------------------------- */

/* Calibration against the reference clock (CLOCK_MONOTONIC; QPC on
 * Windows), busy-waiting: a sleeping core may stop its counter. In phases:
 *   1. warm up and learn how narrow a counter|clock|counter bracket can be;
 *   2. sample: each sample brackets one clock read between two counter
 *      reads, and only narrow brackets are kept, so a preempted or
 *      interrupted one is dropped rather than averaged in; the window is
 *      cut into equal parts whose samples are averaged (the clock's 1 ns
 *      steps average out);
 *   3. fit a straight line through the part averages: the slope is the
 *      frequency, the scatter about it its standard error; parts far off
 *      the line (a clock step, a migration) are dropped and the line
 *      refitted. The adaptive window (the default) fits every 4 parts and
 *      stops once the stated uncertainty is 0.1 ppm or less;
 *   4. where too few clean samples came (a wildly loaded machine, a clock
 *      that turned slow), the end points alone, with the bound their
 *      brackets give, or the line through the few parts there are where
 *      the worst its brackets allow is smaller (where the clock stopped:
 *      the parts before it, or the end points up to it); where the clock
 *      did not move at all, a nominal frequency with an uncertainty that
 *      says it is one.
 * Every loop is bounded by the reference clock and by a count of brackets,
 * so a clock that turns slow or stops cannot hold it. Stack: ~5 KiB. */
#define TSC__BINS 256           /* parts of the adaptive window           */
#define TSC__FIXED_BINS 32      /* parts of a fixed window                */
#define TSC__ADAPTIVE_CAP 0.008 /* seconds: the adaptive window's limit    */
#define TSC__TARGET_PPM 0.1     /* the adaptive window stops here          */
#define TSC__MAX_BRACKETS 2000000L
/* Brackets in a row that read one clock value: the clock stopped (a clock
 * that keeps time moves within ~10 ms, and a bracket takes >= ~10 ns). */
#define TSC__STALL_BRACKETS 524288L

struct tsc__cal {
    double ref_hz;
    uint64_t span;             /* window, reference units                 */
    uint64_t limit;            /* widest bracket kept, ticks              */
    uint64_t narrow;           /* narrowest bracket seen, ticks           */
    uint64_t x0, y0;           /* the first kept bracket: counter, clock  */
    uint64_t ref_start;        /* clock when the calibration began        */
    long left;                 /* brackets the budget still allows        */
    int stalled;               /* the clock stopped at (x_stop, y_stop),  */
    uint64_t x_stop, y_stop, w_stop; /* read by a bracket w_stop wide     */
    int bins;                  /* parts of the window                     */
    int adaptive;
    uint32_t n[TSC__BINS];     /* samples kept per part                   */
    double sx[TSC__BINS];      /* sums of counter - x0 per part           */
    double sy[TSC__BINS];      /* sums of clock - y0 per part             */
    unsigned char use[TSC__BINS];
};

#if TSC__IMPL
/* One reference clock read between two counter reads: *mid is the counter
 * at the bracket's middle (t0 + (t1 - t0) / 2, which cannot wrap even where
 * the counter runs near 2^64, as s390x's TOD clock does), *ref the clock.
 * Returns the bracket's width in ticks. */
TSC__FN uint64_t tsc__bracket(uint64_t *mid, uint64_t *ref)
{
    uint64_t t0 = tsc_ticks_before();
    uint64_t c = tsc__ref_read();
    uint64_t t1 = tsc_ticks_after();
    *mid = TSC_TIMER_TEST_COUNTER_HOOK(t0 + (t1 - t0) / 2);
    *ref = c;
    return t1 - t0;
}

/* The narrowest of 16 brackets: one preempted or interrupted between its
 * counter reads loses to a clean one. Returns its width in ticks. */
TSC__FN uint64_t tsc__narrowest_bracket(uint64_t *mid, uint64_t *ref)
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

/* Least-squares line y = a + b x through the parts in use among
 * [lo, hi). Returns the number of parts used; *se is the slope's standard
 * error. */
TSC__FN int tsc__fit(const struct tsc__cal *k, int lo, int hi, double *slope, double *se,
                     double *icpt)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0, rss = 0, x, y, r;
    int i, used = 0;
    for (i = lo; i < hi; i++)
        if (k->use[i]) {
            used++;
            mx += k->sx[i] / k->n[i];
            my += k->sy[i] / k->n[i];
        }
    if (used < 3)
        return used;
    mx /= used;
    my /= used;
    for (i = lo; i < hi; i++)
        if (k->use[i]) {
            x = k->sx[i] / k->n[i] - mx;
            sxx += x * x;
            sxy += x * (k->sy[i] / k->n[i] - my);
        }
    if (!(sxx > 0))
        return 0;
    *slope = sxy / sxx;
    *icpt = my - *slope * mx;
    for (i = lo; i < hi; i++)
        if (k->use[i]) {
            x = k->sx[i] / k->n[i];
            y = k->sy[i] / k->n[i];
            r = y - (*icpt + *slope * x);
            rss += r * r;
        }
    *se = tsc__sqrt(rss / (used - 2) / sxx);
    return used;
}

/* The k-th smallest of v[0..n-1] (n > k), reordering v: quickselect. */
TSC__FN float tsc__select(float *v, int n, int k)
{
    int lo = 0, hi = n - 1, i, j;
    float p, t;
    while (lo < hi) {
        p = v[(lo + hi) / 2];
        i = lo;
        j = hi;
        while (i <= j) {
            while (v[i] < p) i++;
            while (v[j] > p) j--;
            if (i <= j) {
                t = v[i]; v[i] = v[j]; v[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return v[k];
}
#endif

/* Phase 3: fit the first nb parts, drop parts whose residual is far beyond
 * the typical one, refit. Fills *hz and *unc (ppm); 0 when too few parts
 * remain for a line. The bound is the larger of two: 5 standard errors (at
 * least the clock's resolution spread over the window and the parts), and
 * how far the slopes of the window's two halves disagree. The second sees
 * what scatter about one line cannot: the reference clock's own rate
 * changing within the window (Linux steers CLOCK_MONOTONIC by switching its
 * multiplier between neighbouring values, ~0.1 ppm apart, tick by tick).
 * The window ends with its last part that holds samples (a clock that
 * turned slow or stopped leaves the rest empty). A line through fewer than
 * TSC__MIN_PARTS parts, or whose halves cannot both be fitted, is bounded
 * by the worst its brackets allow as well: 5 standard errors of a line
 * through a handful of parts bound nothing (6 parts in a clock's first
 * 0.2 ms were seen 74 ppm off, stating 49). Every kept bracket is at most
 * `limit` wide, so a part's average is off by at most half that (and a
 * clock unit), and the slope by at most that times sum|x - mean| / sxx;
 * *few says so, for phase 4 to weigh the end points against it. */
#define TSC__MIN_PARTS 16
#if TSC__IMPL
TSC__FN int tsc__cal_fit(struct tsc__cal *k, int nb, double *hz, double *unc, int *few)
{
    float res[TSC__BINS] = {0};
    double slope = 0, se = 0, icpt = 0, s1 = 0, s2 = 0, r, med, span, halves = -1;
    double mx = 0, sxx = 0, sax = 0, x;
    int i, m = 0, used;
    while (nb > 0 && k->n[nb - 1] == 0)
        nb--;
    for (i = 0; i < nb; i++)
        k->use[i] = k->n[i] > 0;
    used = tsc__fit(k, 0, nb, &slope, &se, &icpt);
    if (used < 3)
        return 0;
    for (i = 0; i < nb; i++)
        if (k->use[i])
            res[m++] = TSC__CAST(float, tsc__fabs(k->sy[i] / k->n[i] - (icpt + slope * (k->sx[i] / k->n[i]))));
    med = TSC__CAST(double, tsc__select(res, m, m / 2));
    for (i = 0; i < nb; i++)
        if (k->use[i]) {
            r = tsc__fabs(k->sy[i] / k->n[i] - (icpt + slope * (k->sx[i] / k->n[i])));
            if (r > 8 * med && r > 1.0)
                k->use[i] = 0; /* 8 typical residuals and a clock unit */
        }
    used = tsc__fit(k, 0, nb, &slope, &se, &icpt);
    if (used < 3 || !(slope > 0))
        return 0;
    *hz = k->ref_hz / slope;
    if (tsc__fit(k, 0, nb / 2, &s1, &r, &med) >= 3 && tsc__fit(k, nb / 2, nb, &s2, &r, &med) >= 3)
        halves = tsc__fabs(s1 - s2) / slope;
    span = TSC__CAST(double, k->span) * nb / k->bins;
    /* Parts shorter than a 32nd of the window are not independent (the
     * clock's rate wanders over milliseconds): their standard error counts
     * as that of 32 parts. */
    if (used > 32)
        se *= tsc__sqrt(used / 32.0);
    *unc = (5.0 * se / slope + 1.0 / (span * tsc__sqrt(TSC__CAST(double, used)))) * 1e6;
    if (halves * 1e6 > *unc)
        *unc = halves * 1e6;
    *few = used < TSC__MIN_PARTS || halves < 0;
    if (*few) {
        for (i = 0; i < nb; i++)
            if (k->use[i])
                mx += k->sx[i] / k->n[i];
        mx /= used;
        for (i = 0; i < nb; i++)
            if (k->use[i]) {
                x = k->sx[i] / k->n[i] - mx;
                sxx += x * x;
                sax += tsc__fabs(x);
            }
        r = (TSC__CAST(double, k->limit) / 2 + 1 / slope) * sax / sxx * 1e6;
        if (r > *unc)
            *unc = r;
    }
    return used;
}

/* Phase 1: warm up (page in the clock, train branches), learn how narrow a
 * bracket can be, accept up to twice that plus a little, and start on a
 * narrow bracket. 0 when the budget or the clock ran out first. */
TSC__FN int tsc__cal_start(struct tsc__cal *k)
{
    uint64_t w, mid, ref;
    int i;
    k->ref_start = tsc__ref_read();
    k->narrow = UINT64_MAX;
    for (i = 0; i < 64; i++) {
        w = tsc__bracket(&mid, &ref);
        if (w < k->narrow)
            k->narrow = w;
    }
    k->limit = k->narrow * 2 + 32;
    k->left -= 64;
    do {
        w = tsc__bracket(&k->x0, &k->y0);
        if (--k->left < 0 || k->y0 - k->ref_start > k->span)
            return 0;
    } while (w > k->limit);
    return 1;
}

/* Phase 2, with phase 3 run every 8 parts in the adaptive window. Returns
 * the parts filled; where the clock stopped, those before it (later
 * samples would all pile into its last value). */
TSC__FN int tsc__cal_sample(struct tsc__cal *k, double *hz, double *unc)
{
    uint64_t w, mid, ref, dy, part = k->span / TSC__CAST(uint64_t, k->bins);
    uint64_t last_ref = k->y0, last_mid = k->x0, last_w = k->limit;
    long same = 0;
    int b, next_fit = 32, good = 0, few;
    for (;;) {
        w = tsc__bracket(&mid, &ref);
        if (ref != last_ref) {
            last_ref = ref;
            last_mid = mid;
            last_w = w;
            same = 0;
        } else if (++same > TSC__STALL_BRACKETS) {
            k->stalled = 1;
            k->x_stop = last_mid; /* where it first read its last value */
            k->y_stop = last_ref;
            k->w_stop = last_w;
            return TSC__CAST(int, (last_ref - k->y0) / part);
        }
        dy = ref - k->y0;
        if (dy >= k->span || --k->left < 0)
            break;
        if (w > k->limit)
            continue;
        b = TSC__CAST(int, dy / part);
        if (b >= k->bins)
            break;
        if (k->adaptive && b >= next_fit) {
            /* b parts are complete: stop once two fits in a row say enough
             * (one alone would stop on the first lucky look). */
            good = tsc__cal_fit(k, b, hz, unc, &few) && *unc <= TSC__TARGET_PPM ? good + 1 : 0;
            if (good == 2)
                return b;
            next_fit = b + 4;
        }
        k->n[b]++;
        k->sx[b] += TSC__CAST(double, mid - k->x0);
        k->sy[b] += TSC__CAST(double, ref - k->y0);
        if (w < k->narrow)
            k->narrow = w;
    }
    return k->bins;
}

/* Phase 4: the end points (the narrowest of 16 brackets now, or where the
 * clock stopped, against the first), or, where the clock did not advance,
 * a nominal frequency. */
TSC__FN void tsc__cal_endpoints(struct tsc__cal *k, int started, struct tsc_calibration *out,
                                uint32_t *src)
{
    uint64_t t_end = k->x_stop, c_end = k->y_stop, w_end = k->w_stop;
    if (!k->stalled)
        w_end = tsc__narrowest_bracket(&t_end, &c_end);
    if (!started) {
        /* No clean start (a loaded machine took the whole window): this
         * point starts, and the end waits ~1 ms of the clock, bounded in
         * brackets so that a stalled clock cannot hold it. */
        long n = 0;
        k->x0 = t_end;
        k->y0 = c_end;
        k->limit = w_end;
        do
            tsc__bracket(&t_end, &c_end);
        while (c_end - k->y0 < TSC__CAST(uint64_t, k->ref_hz / 1000) && ++n < 200000L);
        w_end = tsc__narrowest_bracket(&t_end, &c_end);
    }
    /* A clock that moved less than 100 us (it stalled) measures nothing. */
    if (TSC__CAST(int64_t, c_end - k->y0) > TSC__CAST(int64_t, k->ref_hz / 1e4) && TSC__CAST(int64_t, t_end - k->x0) > 0) {
        out->ticks_per_second = k->ref_hz * TSC__CAST(double, t_end - k->x0) / TSC__CAST(double, c_end - k->y0);
        /* each end's whole bracket, a clock unit at each, and 1 ppm */
        out->uncertainty_ppm = (TSC__CAST(double, k->limit + w_end) / TSC__CAST(double, t_end - k->x0) +
                                2.0 / TSC__CAST(double, c_end - k->y0)) * 1e6 + 1;
        /* (a stated rate found wrong stays so: tsc_features() reads it) */
        *src = *src == TSC__SRC_STATED_WRONG ? TSC__SRC_STATED_WRONG_ENDPOINTS : TSC__SRC_ENDPOINTS;
        return;
    }
    /* The clock stood still: nothing was measured. */
    out->ticks_per_second = 1e9;
    out->uncertainty_ppm = 1e6;
    *src = TSC__SRC_UNMEASURED;
#if defined(TSC__X86)
    {
        struct tsc_features f = tsc_get_features();
        if (f.cpuid_15_hz > 0)
            out->ticks_per_second = f.cpuid_15_hz;
        else if (f.hypervisor_hz > 0)
            out->ticks_per_second = f.hypervisor_hz;
        else if (f.cpuid_16_hz > 0)
            out->ticks_per_second = f.cpuid_16_hz;
    }
#endif
}

/* A stated frequency (CNTFRQ, CPUCFG, the PowerPC time base's) checked
 * against the reference clock over ~1 ms: firmware has left CNTFRQ unset or
 * wrong, and emulators state one rate while the counter runs at another
 * (qemu-user's LoongArch: 100 MHz stated, the host's TSC rate seen). 1
 * when the two disagree by more than the measurement's bound plus 0.1 %. */
TSC__FN int tsc__stated_is_wrong(double hz)
{
    uint64_t t0, c0, t1, c1, w0, w1;
    double ref_hz = tsc__ref_hz(), got, bound;
    long n = 0;
    w0 = tsc__narrowest_bracket(&t0, &c0);
    do { /* busy: a sleeping core may stop its counter */
        w1 = tsc__bracket(&t1, &c1);
    } while (c1 - c0 < TSC__CAST(uint64_t, ref_hz / 1000) && ++n < 10000000L);
    w1 = tsc__narrowest_bracket(&t1, &c1);
    if (!(TSC__CAST(int64_t, t1 - t0) > 0) || !(TSC__CAST(int64_t, c1 - c0) > 0))
        return 0; /* nothing to judge by */
    got = TSC__CAST(double, t1 - t0) * ref_hz / TSC__CAST(double, c1 - c0);
    /* Each end: half its bracket in ticks, and one unit of the clock. */
    bound = (TSC__CAST(double, w0 + w1) / 2 + 2 * hz / ref_hz) / TSC__CAST(double, t1 - t0);
    return tsc__fabs(got / hz - 1.0) > bound + 1e-3;
}

#if defined(TSC__NR_ADJTIMEX)
/* The kernel's struct timex of longs into t (modes, offset, freq,
 * maxerror, esterror, status, constant, precision, tolerance, time (2),
 * tick, ...), and what adjtime() has left to slew (ADJ_OFFSET_SS_READ),
 * both read only. 0, or -1 where adjtimex cannot be read. */
TSC__FN int tsc__adjtimex_read(long *t, long *adjtime_left)
{
    long a[32];
    memset(t, 0, 32 * sizeof t[0]);
    if (tsc__syscall(TSC__NR_ADJTIMEX, t) < 0)
        return -1;
    memset(a, 0, sizeof a);
    a[0] = 0xa001; /* ADJ_OFFSET_SS_READ */
    *adjtime_left = tsc__syscall(TSC__NR_ADJTIMEX, a) >= 0 ? a[1] : 0;
    return 0;
}

/* How fast the kernel is slewing CLOCK_MONOTONIC now, in ppm, from a
 * read-only adjtimex: a tick off its nominal 10,000 us (ADJ_TICK: chrony's
 * fast slews, up to 10 %), an adjtime() offset still being slewed (500
 * ppm), a PLL offset (its share per second, 2^-(2 + time constant)). A
 * frequency set with ADJ_FREQUENCY is no slew: it stays, and the clock's
 * rate is what the calibration is to match. 0 where none, or unreadable. */
TSC__FN double tsc__kernel_slew_ppm(void)
{
    long t[32], left;
    double ppm = 0, off;
    if (tsc__adjtimex_read(t, &left) < 0)
        return 0;
    if (t[11] > 0)
        ppm = tsc__fabs(TSC__CAST(double, t[11] - 10000)) * 100.0; /* USER_HZ 100 */
    if ((t[5] & 1) && t[1] != 0 && t[6] >= 0 && t[6] < 30) { /* STA_PLL, an offset */
        off = tsc__fabs(TSC__CAST(double, t[1])) / ((t[5] & 0x2000) ? 1e3 : 1.0); /* STA_NANO */
        off /= TSC__CAST(double, 1L << (2 + t[6]));
        ppm += off < 500 ? off : 500;
    }
    if (left != 0)
        ppm += 500;
    return ppm;
}

/* The rate the kernel gives CLOCK_MONOTONIC against its clocksource, from
 * a read-only adjtimex: its ns per second are tick x USER_HZ x 1000 plus
 * the frequency (ppm, 2^-16) x 1000, plus or minus 500 ppm while adjtime()
 * slews. (The PLL's share of an offset, small and gradual, is left to the
 * measured rate.) Any process may read it; 0 where it cannot. */
TSC__FN double tsc__kernel_rate(void)
{
    long t[32], left;
    double f;
    if (tsc__adjtimex_read(t, &left) < 0 || t[11] <= 0)
        return 0;
    f = TSC__CAST(double, t[11]) * 1e-4 + TSC__CAST(double, t[2]) / 65536e6;
    if (left != 0)
        f += left > 0 ? 500e-6 : -500e-6;
    return f;
}
#else
TSC__FN double tsc__kernel_rate(void) { return 0; }
#endif

/* Measures the frequency over `seconds` (0: the adaptive window). 0, or
 * -EINVAL for bad input (seconds tested on its bits: -ffast-math folds the
 * usual NaN tests away). */
TSC__FN int tsc__calibrate_into(double seconds, struct tsc_calibration *out, uint32_t *src)
{
    struct tsc__cal k;
    double hz = 0, unc = 0;
    int nb, started, few = 0;
    if (!out || !tsc__finite(seconds) || seconds < 0 || seconds > 60)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    out->ticks_per_second = tsc__architectural_hz(src);
    if (out->ticks_per_second > 0) {
        uint64_t r0 = tsc__ref_read();
        if (!((*src == TSC__SRC_CNTFRQ || *src == TSC__SRC_CPUCFG || *src == TSC__SRC_PPC_GLIBC) &&
              tsc__stated_is_wrong(out->ticks_per_second))) {
            out->method = tsc__method_name(*src);
            /* (the time the check took; 0 where the OS states the rate) */
            out->seconds_spent = TSC__CAST(double, tsc__ref_read() - r0) / tsc__ref_hz();
            return 0;
        }
        *src = TSC__SRC_STATED_WRONG; /* measured below, like an unstated one */
    } else {
#if defined(TSC__WINDOWS)
        *src = TSC__SRC_MEASURED_QPC;
#else
        *src = TSC__SRC_MEASURED_MONO;
#endif
    }
    memset(k.n, 0, sizeof k.n);
    memset(k.sx, 0, sizeof k.sx);
    memset(k.sy, 0, sizeof k.sy);
    k.ref_hz = tsc__ref_hz();
    k.adaptive = !(seconds > 0);
    k.bins = k.adaptive ? TSC__BINS : TSC__FIXED_BINS;
    k.span = TSC__CAST(uint64_t, (k.adaptive ? TSC__ADAPTIVE_CAP : seconds) * k.ref_hz);
    if (k.span < TSC__CAST(uint64_t, k.bins))
        k.span = TSC__CAST(uint64_t, k.bins);
    k.left = TSC__MAX_BRACKETS;
    k.stalled = 0;
    k.x_stop = k.y_stop = k.w_stop = 0;

    started = tsc__cal_start(&k);
    nb = started ? tsc__cal_sample(&k, &hz, &unc) : 0;
    if (!(started && nb >= 3 && tsc__cal_fit(&k, nb, &hz, &unc, &few))) {
        tsc__cal_endpoints(&k, started, out, src);
    } else {
        uint32_t i;
        out->ticks_per_second = hz;
        out->uncertainty_ppm = unc;
        for (i = 0; i < TSC__CAST(uint32_t, nb); i++)
            out->samples += k.n[i];
        if (few) { /* a line through few parts: the end points, where they bound it better */
            struct tsc_calibration e;
            uint32_t e_src = *src;
            memset(&e, 0, sizeof e);
            tsc__cal_endpoints(&k, 1, &e, &e_src);
            if ((e_src == TSC__SRC_ENDPOINTS || e_src == TSC__SRC_STATED_WRONG_ENDPOINTS) &&
                e.uncertainty_ppm < unc) {
                out->ticks_per_second = e.ticks_per_second;
                out->uncertainty_ppm = e.uncertainty_ppm;
                out->samples = 0;
                *src = e_src;
            }
        }
    }
#if defined(TSC__NR_ADJTIMEX)
    /* Measured while the kernel slewed its clock: the rate found is off the
     * clock's own by up to the slew (ADJ_TICK +1 %: 10,000 ppm), which no
     * bracket shows. Said so, and bounded. */
    if (*src == TSC__SRC_MEASURED_MONO) {
        double slew = tsc__kernel_slew_ppm();
        if (slew > 0) {
            out->uncertainty_ppm += slew;
            *src = TSC__SRC_SLEWING;
        }
    }
#endif
    out->method = tsc__method_name(*src);
    out->bracket_ticks = k.narrow;
    out->seconds_spent = TSC__CAST(double, tsc__ref_read() - k.ref_start) / k.ref_hz;
    return 0;
}

/* For a caller inside the first calibration (a signal handler, a
 * clock_gettime built on this header): two narrow brackets of the counter
 * against the OS clock read by a route that cannot re-enter, ~1 ms apart.
 * About 0.1 % on a VM; not published. */
TSC__SLOW void tsc__freq_local(uint64_t v[TSC__F_WORDS])
{
    struct tsc_calibration c;
    uint64_t t0, c0, t1, c1, w0 = UINT64_MAX, w1 = UINT64_MAX, a, b, x, ns;
    uint32_t src = 0;
    double stated;
    int i;
    memset(&c, 0, sizeof c);
    stated = tsc__architectural_hz(&src);
    /* A rate the OS states is exact; one a register states is checked
     * (tsc__stated_is_wrong's reasons), here to 1 %. */
    if (stated > 0 && src != TSC__SRC_CNTFRQ && src != TSC__SRC_CPUCFG && src != TSC__SRC_PPC_GLIBC) {
        c.ticks_per_second = stated;
    } else {
        t0 = c0 = 0;
        for (i = 0; i < 8; i++) {
            a = tsc_ticks_before(); x = tsc__os_ns_safe(0); b = tsc_ticks_after();
            if (b - a < w0) { w0 = b - a; t0 = a + (b - a) / 2; c0 = x; }
        }
        do { /* ~1 ms, bounded by the clock and by a count */
            ns = tsc__os_ns_safe(0);
        } while (ns - c0 < 1000000u && ++i < 1000000);
        t1 = c1 = 0;
        for (i = 0; i < 8; i++) {
            a = tsc_ticks_before(); x = tsc__os_ns_safe(0); b = tsc_ticks_after();
            if (b - a < w1) { w1 = b - a; t1 = a + (b - a) / 2; c1 = x; }
        }
        c.ticks_per_second = c1 > c0 && t1 > t0 ? TSC__CAST(double, t1 - t0) * 1e9 / TSC__CAST(double, c1 - c0) : 1e9;
        c.uncertainty_ppm = t1 > t0 ? TSC__CAST(double, w0 + w1) / TSC__CAST(double, t1 - t0) * 1e6 : 1e6;
        c.bracket_ticks = w0 < w1 ? w0 : w1;
        c.samples = 16;
        if (stated > 0 && tsc__fabs(c.ticks_per_second / stated - 1.0) < 0.01) {
            c.ticks_per_second = stated;
            c.uncertainty_ppm = 0;
        }
    }
    tsc__freq_words(&c, TSC__SRC_LOCAL, v);
}
#endif

/* --- first use ---------------------------------------------------------- */

#if defined(TSC_TIMER_CALIBRATION_SECONDS)
#define TSC__DEFAULT_SECONDS (1.0 * (TSC_TIMER_CALIBRATION_SECONDS)) /* a double, without a cast */
#else
#define TSC__DEFAULT_SECONDS 0.0 /* adaptive */
#endif
#define TSC__WAIT_NS UINT64_C(200000000) /* for another thread's calibration */

#if TSC__IMPL
/* Measures and publishes, as the holder of the `first` claim (or, after
 * waiting in vain, without it: the first publication still wins). */
TSC__FN void tsc__freq_measure(uint64_t v[TSC__F_WORDS])
{
    struct tsc_calibration c;
    uint32_t src = 0;
    tsc__calibrate_into(TSC__DEFAULT_SECONDS, &c, &src);
    tsc__freq_words(&c, src, v);
    tsc__freq_publish(v, 1);
}

/* A state's first calibration: the other mode's state in this program? */
TSC__FN void tsc__modes_check(void)
{
#if defined(TSC__EXTERN)
    const uint32_t me = 2;
#else
    const uint32_t me = 1;
#endif
    uint32_t m = TSC__LD32(&tsc__modes);
    while (!(m & me) && !tsc__cas32(&tsc__modes, m, m | me))
        m = TSC__LD32(&tsc__modes);
    if (m == (3 & ~me))
        fputs("tsc_timer.h: this program has files that include the header plainly and files "
              "built with TSC_TIMER_EXTERN: they keep two states (two calibrations, two clocks). "
              "Define TSC_TIMER_EXTERN for every file (and TSC_TIMER_IMPLEMENTATION in one), or "
              "for none.\n", stderr);
}

/* Fills v with the published frequency, publishing one first if there is
 * none: the first caller measures; a caller inside that measurement (same
 * thread) gets a local answer at once; others wait for it, 200 ms at most,
 * then measure themselves. Never waits on a thread that cannot go on. */
TSC__COLD void tsc__freq_first(uint64_t v[TSC__F_WORDS])
{
    uint64_t t0 = 0, now;
    uint32_t mine;
    int r, spins;
    while (!tsc__latch_get(&tsc__g.fseq, &tsc__g.f[0][0], TSC__F_STRIDE, 0, v, TSC__F_WORDS)) {
        r = tsc__claim_try(&tsc__g.first, TSC__TLS_FIRST, &mine, TSC__NULL);
        if (r > 0) {
            if (TSC__LD32(&tsc__g.fseq) == 0) { /* not published meanwhile */
                TSC_TIMER_TEST_CALIBRATING_HOOK();
                tsc__modes_check();
                tsc__freq_measure(v);
            }
            tsc__claim_release(&tsc__g.first, TSC__TLS_FIRST, mine);
            if (TSC__LD32(&tsc__g.fseq) == 0)
                return; /* not published (a publication was interrupted) */
            continue;
        }
        if (r < 0 || (tsc__inside() & (TSC__TLS_FW | TSC__TLS_CW))) {
            tsc__freq_local(v); /* re-entered: answer without waiting */
            return;
        }
        now = tsc__os_ns_safe(0);
        if (t0 == 0) {
            t0 = now;
        } else if (now - t0 > TSC__WAIT_NS) {
            tsc__tls |= TSC__TLS_FIRST; /* our own measurement: no re-entry wait */
            tsc__freq_measure(v);
            tsc__tls &= ~TSC__TLS_FIRST;
            if (TSC__LD32(&tsc__g.fseq) == 0)
                return;
            continue;
        }
        for (spins = 0; spins < 1000; spins++)
            tsc__pause();
    }
}
#endif

/* Reads n words of the frequency from word `first`, publishing first if
 * nothing is yet. */
TSC__FN void tsc__freq_read(int first, uint64_t *out, int n)
{
    uint64_t v[TSC__F_WORDS];
    int i;
    if (TSC__LIKELY(tsc__latch_get(&tsc__g.fseq, &tsc__g.f[0][0], TSC__F_STRIDE, first, out, n)))
        return;
    tsc__freq_first(v);
    for (i = 0; i < n; i++)
        out[i] = v[first + i];
}

/* --- frequency and conversion: the public functions --------------------- */

TSC__FN double tsc_ticks_per_second(void)
{
    uint64_t v;
    tsc__freq_read(TSC__F_HZ, &v, 1);
    return tsc__bitsd(v);
}

#if TSC__IMPL
TSC__API int tsc_current_calibration(struct tsc_calibration *out)
{
    uint64_t v[TSC__F_WORDS];
    if (!out)
        return -EINVAL;
    tsc__freq_read(0, v, TSC__F_WORDS);
    out->ticks_per_second = tsc__bitsd(v[TSC__F_HZ]);
    out->uncertainty_ppm = tsc__bitsd(v[TSC__F_UNC]);
    out->seconds_spent = tsc__bitsd(v[TSC__F_SPENT]);
    out->samples = v[TSC__F_SAMPLES];
    out->bracket_ticks = v[TSC__F_BRACKET];
    out->method = tsc__method_name(v[TSC__F_SRC]);
    return 0;
}

TSC__API int tsc_calibrate(double seconds, struct tsc_calibration *out)
{
    uint64_t v[TSC__F_WORDS];
    uint32_t src = 0, mine = 0;
    struct tsc_calibration c;
    int rc, claimed;
    if (out) /* written on every path: a caller's read is never of garbage */
        memset(out, 0, sizeof *out);
    if (!out || !tsc__finite(seconds) || !(seconds > 0) || seconds > 60)
        return -EINVAL;
    if (tsc__inside() & TSC__TLS_FW)
        return -EAGAIN; /* re-entered from inside a publication */
    claimed = tsc__claim_try(&tsc__g.first, TSC__TLS_FIRST, &mine, TSC__NULL);
    if (claimed < 0)
        return -EAGAIN; /* re-entered from inside a calibration */
    if (claimed > 0)
        TSC_TIMER_TEST_CALIBRATING_HOOK();
    rc = tsc__calibrate_into(seconds, &c, &src);
    if (rc == 0) {
        tsc__freq_words(&c, src, v);
        rc = tsc__freq_publish(v, 0) > 0 ? 0 : -EAGAIN;
        *out = c;
    }
    if (claimed > 0)
        tsc__claim_release(&tsc__g.first, TSC__TLS_FIRST, mine);
    return rc;
}
#endif

TSC__FN uint64_t tsc_ticks_to_ns(uint64_t ticks)
{
    uint64_t f[2];
    tsc__freq_read(TSC__F_NS, f, 2);
    return tsc__mul_fixed(ticks, f[0], f[1]);
}

TSC__FN uint64_t tsc_ns_to_ticks(uint64_t ns)
{
    uint64_t f[2];
    tsc__freq_read(TSC__F_TK, f, 2);
    return tsc__mul_fixed(ns, f[0], f[1]);
}

TSC__FN double tsc_ticks_to_seconds(uint64_t ticks)
{
    uint64_t v;
    tsc__freq_read(TSC__F_SEC, &v, 1);
    return TSC__CAST(double, ticks) * tsc__bitsd(v);
}

/* --- overhead ----------------------------------------------------------- */

#if TSC__IMPL
TSC__COLD uint64_t tsc__measure_overhead(void)
{
    uint64_t best = UINT64_MAX, t0, t1;
    int i;
    for (i = 0; i < 2048; i++) {
        t0 = tsc_ticks_before();
        t1 = tsc_ticks_after();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    if (best > UINT32_MAX - 1)
        best = UINT32_MAX - 1;
    TSC__ST32(&tsc__g.overhead, TSC__CAST(uint32_t, best) + 1);
    return best;
}
#endif

TSC__FN uint64_t tsc_overhead_ticks(void)
{
    uint32_t v = TSC__LD32(&tsc__g.overhead);
    return TSC__LIKELY(v != 0) ? v - 1u : tsc__measure_overhead();
}

TSC__FN uint64_t tsc_sub_overhead(uint64_t ticks)
{
    uint64_t o = tsc_overhead_ticks();
    return ticks > o ? ticks - o : 0;
}

/* --- the clock: the counter on a line locked to the system clocks ------- */

/* A line maps a counter value t to nanoseconds in two segments, a slew,
 * then the clock's own rate:
 *     t <  end_ticks: ns(t) = base_ns + (t - base_ticks) * mul, >= base_ns
 *     t >= end_ticks: ns(t) = end_ns + (t - end_ticks) * rate
 * set up from a bracketed reading of CLOCK_MONOTONIC at first use (no
 * slew) and steered by tsc_clock_resync(). A published copy holds a switch
 * point and two lines: the one before it (the line in force when the copy
 * was made) and the new one from it. The switch point lies 50 us ahead of
 * the publication, and the new line starts exactly where the old one is
 * there, so a reader that still holds the previous copy and a reader that
 * holds the new one agree on every counter value up to the switch point.
 * A publication is announced first (TSC__PENDING) and made, by one CAS,
 * only if its switch point was still 25 us ahead after the announcement; a
 * reader whose counter has passed the switch point of an announced copy
 * withdraws the announcement (a CAS the publication then loses), so a
 * writer preempted before it could publish publishes nothing. Readers
 * never wait, and readings never go back.
 *
 * Steering: the new line slews onto the clock within the next interval
 * (h: the last one's length, 10 ms to 1 s), at most 500 ppm off the
 * clock's rate as NTP bounds its slew; then it runs at the clock's measured
 * rate, so a slew never outlives its error. A line behind by more than the
 * interval's slew can make up is stepped forward (which keeps it
 * monotonic). A line ahead by more (err > 500 ppm of h: the kernel slowed
 * its clock, or the counter ran on while CLOCK_MONOTONIC stood still, a
 * suspend or a VM paused) runs at rate x h / (h + err) until it meets the
 * clock, h + err later: it never goes back, never stands still, and agrees
 * again one interval after the error's own length. (At NTP's 500 ppm a
 * 1 s suspend took 33 minutes to recover; re-setting the line stepped
 * readings back by the suspend's length; holding them still would stop
 * every timeout measured on the clock for that long.) */

#define TSC__SLEW 500e-6       /* steering bound: 500 ppm                  */
#define TSC__RATE_SPAN 1e9     /* rate re-measured over at least 1 s (ns)  */
#define TSC__SWITCH_NS 50000.0 /* a new line takes over 50 us after it is made */

#if TSC__IMPL
/* The clock's counter read, ordered after every load before it, as each
 * kernel orders its own clock reads (Linux's rdtsc_ordered(), the vDSOs):
 * a stamp another thread stored, loaded, then followed by a reading of this
 * thread's, is never later than that reading. On x86 the cheaper of
 * LFENCE;RDTSC and RDTSCP (tsc__pick_clock_read); elsewhere the platform's
 * ordered read (tsc__native_read). It also keeps the latch's loads from
 * passing the counter read by more than the CPU's reorder window, far
 * inside the 50 us before a new line takes over. */
TSC__COLD uint64_t tsc__clock_ticks_slow(void)
{
#if defined(TSC__X86)
    uint32_t m = tsc__mode();
    if (m == TSC__MODE_RDTSCP || m == TSC__MODE_RDTSC)
        return tsc__rdtsc_ordered();
#endif
#if defined(TSC__OSCLOCK)
    return tsc__ref_read();
#else
    return tsc__before_slow(); /* the other modes: a region's fenced start */
#endif
}
#endif
TSC__HOT uint64_t tsc__clock_ticks(void)
{
#if defined(TSC__X86)
    uint32_t c = TSC__RLX32(&tsc__g.cread);
    if (TSC__LIKELY(c == TSC__CREAD_LFENCE))
        return TSC_TIMER_TEST_COUNTER_HOOK(tsc__rdtsc_ordered());
    if (TSC__LIKELY(c == TSC__CREAD_RDTSCP))
        return TSC_TIMER_TEST_COUNTER_HOOK(tsc__rdtscp_ordered());
#elif !defined(TSC__OSCLOCK)
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.mode) == TSC__MODE_NATIVE))
        return TSC_TIMER_TEST_COUNTER_HOOK(tsc__native_read());
#endif
    return TSC_TIMER_TEST_COUNTER_HOOK(tsc__clock_ticks_slow());
}
/* The bare read, for the _unordered forms: a plain RDTSC on x86, CNTVCT_EL0
 * without ISB on AArch64, the ordered read elsewhere (and before the mode
 * is known). The CPU may take it before loads that precede it (see
 * tsc_now_ns_unordered). */
TSC__HOT uint64_t tsc__clock_ticks_bare(void)
{
#if defined(TSC__X86)
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.cread) - 1u < 3u)) /* a TSC to read */
        return TSC_TIMER_TEST_COUNTER_HOOK(tsc__rdtsc_bare());
#elif defined(TSC__AARCH64)
    uint64_t v;
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.mode) == TSC__MODE_NATIVE)) {
        __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v) : : "memory");
        return TSC_TIMER_TEST_COUNTER_HOOK(v);
    }
#endif
    return tsc__clock_ticks();
}

/* The line v = {base_ticks, base_ns, mul_hi, mul_lo, end_ticks, end_ns,
 * rate_hi, rate_lo} at counter value t. */
TSC__FN uint64_t tsc__clock_line(const uint64_t *v, uint64_t t)
{
    if (t >= v[4])
        return v[5] + tsc__mul_fixed(t - v[4], v[6], v[7]);
    return v[1] + tsc__mul_fixed(t > v[0] ? t - v[0] : 0, v[2], v[3]);
}

#if TSC__IMPL
/* Writes a line: slope `mul` ns per tick for `slew` ticks from
 * (base_ticks, base_ns), then `rate`. */
TSC__FN void tsc__clock_make(uint64_t *v, uint64_t base_ticks, uint64_t base_ns, double mul,
                             uint64_t slew, double rate)
{
    if (slew > UINT64_MAX - base_ticks)
        slew = UINT64_MAX - base_ticks;
    v[0] = base_ticks;
    v[1] = base_ns;
    tsc__fixed_from_double(mul, &v[2], &v[3]);
    v[4] = base_ticks + slew;
    v[5] = base_ns + tsc__mul_fixed(slew, v[2], v[3]);
    tsc__fixed_from_double(rate, &v[6], &v[7]);
}

/* Appends the record (t, ns) of a new line's start, as the holder of the
 * `cw` claim (stamped mine): the slot first, then the count (readers
 * re-check it). Nothing where the claim was taken over since the line was
 * published: the writers after it recorded newer lines. */
TSC__FN void tsc__clock_record(uint64_t t, uint64_t ns, uint32_t mine)
{
    uint32_t n = TSC__RLX32(&tsc__g.hcount);
    if (!tsc__claim_held(&tsc__g.cw, mine))
        return;
    TSC__WRITE_FENCE(); /* the count we saw is ordered before the slots */
    TSC__ST64(&tsc__g.hist[0][n % TSC__HIST][0], t);
    TSC__ST64(&tsc__g.hist[0][n % TSC__HIST][1], ns);
    if (n % TSC__HIST == 0) {
        TSC__ST64(&tsc__g.hist[1][n / TSC__HIST % TSC__HIST][0], t);
        TSC__ST64(&tsc__g.hist[1][n / TSC__HIST % TSC__HIST][1], ns);
    }
    (void)tsc__cas32(&tsc__g.hcount, n, n + 1); /* never back */
}

/* The records of a published copy v: where the line it replaces bent (its
 * slew ended) since the last record, if a chord over the bend would be
 * more than 1 us off it (after a suspend or a slowed kernel clock: in
 * steady state it is the resync's ns-sized correction); where the old
 * line was at the switch point, if the new one steps forward there; then
 * the switch point. A stamp older than both lines thus converts along the
 * line it was read on, not along a chord across an event. */
TSC__FN void tsc__clock_records(const uint64_t *v, uint32_t mine)
{
    const uint64_t *p = v + TSC__L_PREV;
    uint64_t ts = v[TSC__L_SWITCH], at, rt, rn;
    uint32_t n = TSC__RLX32(&tsc__g.hcount);
    double chord;
    if (ts >= p[0] && n > 0) { /* (else the counter went back: no old line there) */
        at = tsc__clock_line(p, ts);
        rt = TSC__LD64(&tsc__g.hist[0][(n - 1) % TSC__HIST][0]);
        rn = TSC__LD64(&tsc__g.hist[0][(n - 1) % TSC__HIST][1]);
        if (p[4] > rt && p[4] < ts && at > rn) {
            chord = TSC__CAST(double, rn) +
                    TSC__CAST(double, p[4] - rt) * TSC__CAST(double, at - rn) / TSC__CAST(double, ts - rt);
            if (tsc__fabs(chord - TSC__CAST(double, p[5])) > 1000.0)
                tsc__clock_record(p[4], p[5], mine);
        }
        if (at != v[TSC__L_CUR + 1])
            tsc__clock_record(ts, at, mine);
    }
    tsc__clock_record(ts, v[TSC__L_CUR + 1], mine);
}
#endif

/* The most the line of copy v can be ahead of CLOCK_MONOTONIC when that
 * reads mono: what it was ahead by when made (a line is only ever slewed
 * towards the clock), plus 1 ppm of the time since (its rate's error). A
 * counter that went back is answered with the clock plus this, which no
 * earlier reading exceeded. */
#define TSC__AHEAD_NS 1000 /* the clock's reading: its bracket, and a margin */
#if TSC__IMPL
TSC__FN uint64_t tsc__clock_floor(const uint64_t *v, uint64_t mono)
{
    return mono + v[TSC__L_AHEAD] + (mono > v[TSC__L_MONO] ? (mono - v[TSC__L_MONO]) / 1000000u : 0);
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC from the narrowest of n
 * mono|real|mono readings; *width (if not NULL) that bracket's width. */
TSC__FN uint64_t tsc__os_real_offset(int n, uint64_t *width)
{
    uint64_t narrow = UINT64_MAX, off = 0, m0, r, m1;
    int i;
    for (i = 0; i < n; i++) {
        m0 = tsc__os_ns(0);
        TSC_TIMER_TEST_REALTIME_HOOK(0);
        r = tsc__os_ns(1);
        TSC_TIMER_TEST_REALTIME_HOOK(1);
        m1 = tsc__os_ns(0);
        if (m1 - m0 < narrow) {
            narrow = m1 - m0;
            off = r - (m0 + narrow / 2);
        }
    }
    if (width)
        *width = narrow;
    return off;
}

/* Where the line should be: the narrowest of 16 counter|clock|counter
 * brackets gives *mid (the counter at its middle) and *mono (the
 * monotonic clock there, ns); the narrowest of 16 mono|real|mono reads
 * gives *real_off, within *real_w / 2. Returns the bracket's width in
 * ticks. */
TSC__FN uint64_t tsc__clock_sample(uint64_t *mid, uint64_t *mono, uint64_t *real_off,
                                   uint64_t *real_w)
{
    uint64_t best = tsc__narrowest_bracket(mid, mono);
#if defined(TSC__WINDOWS)
    *mono = tsc__qpc_ns(*mono);
#endif
    *real_off = tsc__os_real_offset(16, real_w);
    return best;
}

/* Sets the line up, as the holder of the `cw` claim (claim word mine), the
 * latch still empty: a fresh reading, the calibrated frequency, no slew. */
TSC__FN void tsc__clock_setup(const uint64_t ns_per_tick[2], uint32_t mine)
{
    uint64_t v[TSC__L_WORDS], mid = 0, mono = 0, off = 0, w;
    double mul = TSC__CAST(double, ns_per_tick[0]) + TSC__CAST(double, ns_per_tick[1]) / TSC__2P64;
    w = tsc__clock_sample(&mid, &mono, &off, &v[TSC__L_REALW]);
    if (!tsc__claim_held(&tsc__g.cw, mine))
        return; /* taken over while measuring: the steering is another's */
    tsc__g.narrow = w;
    tsc__g.ref_mid = mid;
    tsc__g.ref_ns = tsc__g.last_ns = mono;
    tsc__g.rate = tsc__dbits(mul);
    tsc__g.cand = 0;
    tsc__g.kf = tsc__dbits(tsc__kernel_rate());
    v[TSC__L_SWITCH] = 0;
    tsc__clock_make(v + TSC__L_CUR, mid, mono, mul, 0, mul);
    memcpy(v + TSC__L_PREV, v + TSC__L_CUR, 8 * sizeof v[0]);
    v[TSC__L_REAL] = off;
    v[TSC__L_AHEAD] = TSC__CAST(uint64_t, TSC__CAST(double, tsc__g.narrow) * mul) + TSC__AHEAD_NS;
    v[TSC__L_MONO] = mono;
    v[TSC__L_CAP] = UINT64_MAX;
    if (tsc__latch_put(&tsc__g.cseq, &tsc__g.cown, &tsc__g.l[0][0], TSC__L_STRIDE, TSC__L_WORDS, v,
                       1, 0, mine) == 0)
        tsc__clock_record(mid, mono, mine);
}

/* The clock reads the OS clock: the counter is the OS clock, or the
 * counter is not to be trusted across CPUs and time (TSC_TRUST_UNSAFE). */
TSC__COLD int tsc__clock_os(void)
{
    return tsc__mode() == TSC__MODE_OS || tsc_get_trust().level == TSC_TRUST_UNSAFE;
}

/* First use of the clock, or the clock reads the OS clock (it is then
 * never set up, and every call comes here). A caller inside one-time
 * work (a signal handler, a clock_gettime built on this header) gets the
 * OS clock at once; so does one that waited 200 ms for another thread. */
TSC__COLD uint64_t tsc__clock_first(int realtime)
{
    uint64_t f[2], t0 = 0, now;
    uint32_t mine;
    int r, spins;
    if (tsc__clock_os())
        return tsc__os_ns(realtime);
    if (tsc__inside() & (TSC__TLS_FIRST | TSC__TLS_FW | TSC__TLS_CW))
        return tsc__os_ns_safe(realtime);
    tsc__freq_read(TSC__F_NS, f, 2);
    while (TSC__LD32(&tsc__g.cseq) == 0) {
        r = tsc__claim_try(&tsc__g.cw, TSC__TLS_CW, &mine, &tsc__g.cseq);
        if (r > 0) {
            if (TSC__LD32(&tsc__g.cseq) == 0)
                tsc__clock_setup(f, mine);
            tsc__claim_release(&tsc__g.cw, TSC__TLS_CW, mine);
            break;
        }
        now = tsc__os_ns_safe(0);
        if (r < 0 || (t0 && now - t0 > TSC__WAIT_NS))
            return tsc__os_ns_safe(realtime);
        if (!t0)
            t0 = now;
        for (spins = 0; spins < 1000; spins++)
            tsc__pause();
    }
    return realtime ? tsc_now_realtime_ns() : tsc_now_ns();
}
#endif

#if !defined(TSC__OSCLOCK)
/* The rare readings: a counter before the switch point of the copy found
 * (within 50 us of a resync: the line before it; below both lines, the
 * counter went back: tsc__clock_floor), or a publication announced (its
 * switch point passed: withdrawn). */
TSC__HOT uint64_t tsc__clock_now(int realtime, int ordered);
#if TSC__IMPL
TSC__COLD uint64_t tsc__clock_slow(uint64_t t, int realtime)
{
    uint64_t v[TSC__L_WORDS], pend = 0, start = UINT64_MAX, f;
    const uint64_t *other;
    uint32_t s;
    for (;;) {
        s = TSC__LD32(&tsc__g.cseq);
        other = tsc__g.l[TSC__SEQ_PENDING_COPY(s)];
        if (!tsc__latch_get(&tsc__g.cseq, &tsc__g.l[0][0], TSC__L_STRIDE, 0, v, TSC__L_WORDS))
            return tsc__clock_first(realtime);
        if (!(s & TSC__PENDING))
            break;
        pend = TSC__LD64(other + TSC__L_SWITCH);
        start = TSC__LD64(other + TSC__L_CUR + 1); /* its line there */
        TSC__READ_FENCE();
        if (TSC__RLX32(&tsc__g.cseq) != s)
            continue; /* published, withdrawn, or v from another copy */
        if (t < pend)
            break;
        /* Its writer is late (preempted, or gone in a forked child): the
         * announcement is withdrawn, so it cannot publish a line that
         * starts below what this reading gives, or another gave. Where
         * the publication won instead, the CAS fails and the new line is
         * read. */
        (void)tsc__cas32(&tsc__g.cseq, s, tsc__seq_next(s, TSC__SEQ_LIVE(s)));
    }
    if (t < v[TSC__L_PREV] && tsc__clock_ticks() >= v[TSC__L_PREV])
        return tsc__clock_now(realtime, 1); /* a reader late by two resyncs: afresh */
    if (t < v[TSC__L_PREV]) { /* below both lines: the counter went back */
        f = tsc__clock_floor(v, tsc__os_ns_safe(0));
        f = f < v[TSC__L_CAP] ? f : v[TSC__L_CAP];
        return (f < start ? f : start) + (realtime ? v[TSC__L_REAL] : 0);
    }
    return tsc__clock_line(v + (t < v[TSC__L_SWITCH] ? TSC__L_PREV : TSC__L_CUR), t) +
           (realtime ? v[TSC__L_REAL] : 0);
}
#endif
#endif

/* The counter is read before the latch: a reader holding the previous copy
 * took its counter before that copy's successor was published. The words
 * of the line from the switch point are loaded whatever the counter says,
 * so the loads need not wait for it; a counter before the switch point
 * (rare) takes the slow path. `ordered`: the ordered counter read, else the
 * bare one (the _unordered forms). */
TSC__HOT uint64_t tsc__clock_now(int realtime, int ordered)
{
#if defined(TSC__OSCLOCK)
    (void)ordered;
    return tsc__os_ns(realtime);
#else
    uint64_t v[8], t, sw, real = 0;
    const uint64_t *p;
    uint32_t s;
    if (TSC__UNLIKELY(TSC__RLX32(&tsc__g.cseq) == 0))
        return tsc__clock_first(realtime);
    t = ordered ? tsc__clock_ticks() : tsc__clock_ticks_bare();
    for (;;) {
        s = TSC__LD32(&tsc__g.cseq);
        p = tsc__g.l[TSC__SEQ_LIVE(s)];
        sw = TSC__LD64(p + TSC__L_SWITCH);
        v[0] = TSC__LD64(p + TSC__L_CUR);
        v[1] = TSC__LD64(p + TSC__L_CUR + 1);
        v[2] = TSC__LD64(p + TSC__L_CUR + 2);
        v[3] = TSC__LD64(p + TSC__L_CUR + 3);
        v[4] = TSC__LD64(p + TSC__L_CUR + 4);
        v[5] = TSC__LD64(p + TSC__L_CUR + 5);
        v[6] = TSC__LD64(p + TSC__L_CUR + 6);
        v[7] = TSC__LD64(p + TSC__L_CUR + 7);
        if (realtime)
            real = TSC__LD64(p + TSC__L_REAL);
        TSC__READ_FENCE();
        if (TSC__LIKELY(TSC__RLX32(&tsc__g.cseq) == s))
            break;
    }
    if (TSC__UNLIKELY(t < sw || (s & TSC__PENDING)))
        return tsc__clock_slow(t, realtime);
    return tsc__clock_line(v, t) + real;
#endif
}

TSC__FN uint64_t tsc_now_ns(void) { return tsc__clock_now(0, 1); }
TSC__FN uint64_t tsc_now_realtime_ns(void) { return tsc__clock_now(1, 1); }
TSC__FN uint64_t tsc_now_ns_unordered(void) { return tsc__clock_now(0, 0); }
TSC__FN uint64_t tsc_now_realtime_ns_unordered(void) { return tsc__clock_now(1, 0); }

/* --- stored stamps ------------------------------------------------------- */

TSC__HOT uint64_t tsc__clock_stamp(int ordered)
{
#if defined(TSC__OSCLOCK)
    (void)ordered;
    return tsc__os_ns(0);
#else
    if (TSC__LIKELY(TSC__RLX32(&tsc__g.cseq) != 0)) /* set up: the counter */
        return ordered ? tsc__clock_ticks() : tsc__clock_ticks_bare();
    return tsc__clock_os() ? tsc__os_ns(0) : tsc__clock_ticks(); /* OS clock: its ns */
#endif
}
TSC__FN uint64_t tsc_clock_ticks(void) { return tsc__clock_stamp(1); }
TSC__FN uint64_t tsc_clock_ticks_unordered(void) { return tsc__clock_stamp(0); }

#if !defined(TSC__OSCLOCK)
#if TSC__IMPL
/* A stamp t older than both lines of copy v: between the two records
 * around it (the newest first, the every-64th ring after the other),
 * linearly; older than all, from the oldest at the current rate. */
TSC__SLOW uint64_t tsc__clock_hist(uint64_t t, const uint64_t *v)
{
    uint64_t rt, rn, nt = UINT64_MAX, nn = 0, oldest = UINT64_MAX;
    uint32_t n, i, k, r, cnt;
    double rate = TSC__CAST(double, v[TSC__L_CUR + 6]) + TSC__CAST(double, v[TSC__L_CUR + 7]) / TSC__2P64;
    for (r = 0; r < 2; r++) {
        n = TSC__LD32(&tsc__g.hcount);
        cnt = r == 0 ? n : (n + TSC__HIST - 1) / TSC__HIST;
        for (k = 1; k < TSC__HIST && k <= cnt; k++) {
            i = cnt - k; /* record i of ring r (record i * 64 in ring 1) */
            if (r == 1 && TSC__CAST(uint64_t, i) * TSC__HIST >= oldest)
                continue; /* ring 0 had it */
            rt = TSC__LD64(&tsc__g.hist[r][i % TSC__HIST][0]);
            rn = TSC__LD64(&tsc__g.hist[r][i % TSC__HIST][1]);
            TSC__READ_FENCE(); /* the slot is read before the re-check */
            n = TSC__LD32(&tsc__g.hcount);
            if ((r == 0 ? n - i : n / TSC__HIST - i) >= TSC__HIST - 1)
                break; /* overwritten meanwhile */
            if (rt > nt) /* the counter went back between the two */
                goto extrapolate;
            if (rt <= t) {
                if (nt == UINT64_MAX || nt == rt)
                    return rn + TSC__CAST(uint64_t, TSC__CAST(double, t - rt) * rate);
                return rn + TSC__CAST(uint64_t, TSC__CAST(double, t - rt) * TSC__CAST(double, nn - rn) / TSC__CAST(double, nt - rt));
            }
            nt = rt;
            nn = rn;
            if (r == 0)
                oldest = i;
        }
    }
extrapolate:
    if (nt == UINT64_MAX) { /* no records: the line from before its base */
        nt = v[TSC__L_PREV];
        nn = v[TSC__L_PREV + 1];
    }
    rt = TSC__CAST(uint64_t, TSC__CAST(double, nt - t) * rate);
    return nn > rt ? nn - rt : 0;
}
#endif
#endif

#if TSC__IMPL
/* CLOCK_REALTIME - CLOCK_MONOTONIC, one value: the line's (measured at
 * its last resync), or where the clock is the OS clock the narrowest of 8
 * mono|real|mono readings. */
TSC__FN uint64_t tsc__clock_real_offset(void)
{
#if !defined(TSC__OSCLOCK)
    uint64_t off;
    if (!tsc__clock_os()) {
        (void)tsc_now_ns(); /* the line set up */
        if (tsc__latch_get(&tsc__g.cseq, &tsc__g.l[0][0], TSC__L_STRIDE, TSC__L_REAL, &off, 1))
            return off;
    }
#endif
    return tsc__os_real_offset(8, TSC__NULL);
}

TSC__FN uint64_t tsc__clock_convert(uint64_t t, int realtime)
{
#if defined(TSC__OSCLOCK)
    uint64_t now = tsc__os_ns(0);
    return (t < now ? t : now) + (realtime ? tsc__clock_real_offset() : 0);
#else
    uint64_t v[TSC__L_WORDS], ns, now;
    if (tsc__clock_os()) {
        now = tsc__os_ns(0);
        return (t < now ? t : now) + (realtime ? tsc__clock_real_offset() : 0);
    }
    now = tsc_now_ns(); /* sets the clock up where it is not yet */
    if (!tsc__latch_get(&tsc__g.cseq, &tsc__g.l[0][0], TSC__L_STRIDE, 0, v, TSC__L_WORDS))
        return realtime ? tsc__os_ns(1) : now; /* not set up (re-entered): now */
    /* (the first line has no switch point, 0: a stamp from before its
     * base, taken before the clock was set up, goes to the records) */
    if (t >= v[TSC__L_SWITCH] && t >= v[TSC__L_CUR])
        ns = tsc__clock_line(v + TSC__L_CUR, t);
    else if (t >= v[TSC__L_PREV])
        ns = tsc__clock_line(v + TSC__L_PREV, t);
    else
        ns = tsc__clock_hist(t, v);
    return (ns < now ? ns : now) + (realtime ? v[TSC__L_REAL] : 0);
#endif
}

TSC__API uint64_t tsc_clock_ticks_to_ns(uint64_t ticks) { return tsc__clock_convert(ticks, 0); }
TSC__API uint64_t tsc_clock_ticks_to_realtime_ns(uint64_t ticks)
{
    return tsc__clock_convert(ticks, 1);
}

TSC__API int64_t tsc_clock_elapsed_ns(uint64_t from, uint64_t to)
{
    uint64_t a = tsc__clock_convert(from, 0), b = tsc__clock_convert(to, 0);
    return b >= a ? TSC__CAST(int64_t, b - a) : -TSC__CAST(int64_t, a - b);
}

/* Resync phase 2: the clock's own rate (NTP slews CLOCK_MONOTONIC), over
 * >= 1 s so the brackets' few ns weigh < 0.05 ppm. A span beyond 0.1 % of
 * the rate in use (a suspend, a migration inside it) is taken only once the
 * next span confirms it: then the rate itself changed (a VM moved to a host
 * with another TSC rate, a first calibration far off). A counter that went
 * back (reset on resume) just starts a new span. Returns the rate. */
TSC__FN double tsc__clock_rate(uint64_t mid, uint64_t mono, double kf)
{
    double rate = tsc__bitsd(tsc__g.rate), r, cand, was = tsc__bitsd(tsc__g.kf);
    tsc__g.kf = tsc__dbits(kf);
    if (kf > 0 && was > 0 && tsc__fabs(kf / was - 1.0) > 1e-7) {
        /* The kernel set another rate (a frequency, a tick, adjtime()'s
         * slew begun or ended): the clock's changed by the same factor,
         * whenever it was; taken now, and a new span starts. */
        rate *= kf / was;
        tsc__g.rate = tsc__dbits(rate);
        tsc__g.cand = 0;
        tsc__g.ref_mid = mid;
        tsc__g.ref_ns = mono;
        return rate;
    }
    if (TSC__CAST(double, mono - tsc__g.ref_ns) >= TSC__RATE_SPAN) {
        if (TSC__CAST(int64_t, mid - tsc__g.ref_mid) > 0) { /* wrap-safe: moved on */
            r = TSC__CAST(double, mono - tsc__g.ref_ns) / TSC__CAST(double, mid - tsc__g.ref_mid);
            cand = tsc__bitsd(tsc__g.cand);
            if (tsc__fabs(r / rate - 1.0) <= 1e-3 || (cand > 0 && tsc__fabs(r / cand - 1.0) <= 1e-3))
                rate = r;
            tsc__g.cand = tsc__dbits(r);
            tsc__g.rate = tsc__dbits(rate);
        }
        tsc__g.ref_mid = mid;
        tsc__g.ref_ns = mono;
    }
    return rate;
}

/* Resync phase 3: the new line from switch point ts on, which starts where
 * the line in force (cur) is at ts (or at `floor`, where the counter went
 * back below it) and slews the error (against the clock reading mono at
 * counter mid, running at rate) away over h ns. `jumped`: the rate changed
 * by more than 0.1 % since cur was made (cur's pace says nothing then). */
TSC__FN void tsc__clock_steer(const uint64_t *cur, uint64_t ts, uint64_t mid, uint64_t mono,
                              double rate, double h, uint64_t *line, uint64_t floor, int jumped)
{
    /* (a counter that went back: where readers were, the floor) */
    uint64_t old = ts < cur[0] ? floor : tsc__clock_line(cur, ts), base = old, dt = ts - mid;
    double ticks = dt >> 63 ? -TSC__CAST(double, mid - ts) : TSC__CAST(double, dt);
    /* old - where the clock is at ts, in ns (small: signed arithmetic) */
    double err = TSC__CAST(double, TSC__CAST(int64_t, old - mono)) - ticks * rate;
    double c = -err / h, slew = h, now_c;
    if (c < -TSC__SLEW) { /* ahead beyond the bound: slower, meets it h + err on */
        c = -err / (h + err);
        /* Already closing such an error: on at that pace (at least), so the
         * clock is met when first planned, not an interval later at each
         * resync. */
        now_c = (TSC__CAST(double, cur[2]) + TSC__CAST(double, cur[3]) / TSC__2P64) / rate - 1.0;
        if (ts < cur[4] && now_c < c && now_c > -1.0 && !jumped)
            c = now_c;
        slew = err / -c;
    } else if (c > TSC__SLEW) { /* behind beyond the bound: step forward */
        base = old + TSC__CAST(uint64_t, -err);
        c = 0;
        slew = 0;
    }
    slew = slew / rate < 4e18 ? slew / rate : 4e18; /* ns to ticks */
    tsc__clock_make(line, ts, base, rate * (1.0 + c), TSC__CAST(uint64_t, slew), rate);
}

/* Resync phase 4, as the holder of the `cw` claim (claim word mine, the
 * latch counter s0 when taken): fills copy i, reserved, with v (and gives
 * it back), announces it,
 * and publishes it if the counter is still before `by` (half the margin
 * before its switch point) after the announcement. Both are one CAS from
 * s0, so a writer whose claim was taken over (the counter advanced)
 * publishes nothing; its copy was never one readers use. 0, or -EAGAIN
 * where it was too late, withdrawn or taken over. */
TSC__FN int tsc__clock_publish(const uint64_t *v, uint64_t by, uint32_t s0, uint32_t mine, int i)
{
    uint32_t ann, pub;
    int rc = -EAGAIN;
    ann = s0 | TSC__PENDING | TSC__CAST(uint32_t, i) << 2;
    pub = tsc__seq_next(s0, TSC__CAST(uint32_t, i));
    TSC__WRITE_FENCE(); /* the counter we saw is ordered before our stores */
    tsc__latch_fill(&tsc__g.l[0][0], TSC__L_STRIDE, i, v, TSC__L_WORDS);
    if (tsc__cas32(&tsc__g.cseq, s0, ann)) {
        TSC_TIMER_TEST_PUBLISH_HOOK(1);
        if (tsc__clock_ticks() < by && tsc__cas32(&tsc__g.cseq, ann, pub))
            rc = 0;
        else /* withdrawn by a reader, or too late: withdraw it ourselves */
            (void)tsc__cas32(&tsc__g.cseq, ann, tsc__seq_next(ann, TSC__SEQ_LIVE(ann)));
    }
    tsc__latch_unreserve(&tsc__g.cown, i, mine);
    if (rc == 0)
        tsc__clock_records(v, mine);
    return rc;
}

TSC__API int tsc_clock_resync(void)
{
    uint64_t mid = 0, mono = 0, off = 0, offw = 0, w = UINT64_MAX, v[TSC__L_WORDS], now, ts, m, at, rw, d;
    uint64_t s[4], bar, hi = 0;
    double rate, h, was;
    uint32_t mine, s0;
    int i, slot = 0, tries, rc = -EAGAIN;
    if (tsc__clock_os())
        return 0;
    if (TSC__LD32(&tsc__g.cseq) == 0) { /* a fresh line: nothing to steer yet */
        (void)tsc__clock_first(0);
        return TSC__LD32(&tsc__g.cseq) ? 0 : -EAGAIN;
    }
    if (tsc__claim_try(&tsc__g.cw, TSC__TLS_CW, &mine, &tsc__g.cseq) <= 0)
        return -EAGAIN; /* another resync runs, or this one re-entered */
#if defined(TSC__X86) && defined(TSC__NR_OPENAT)
    tsc__trust_follow();
#endif
    s0 = TSC__LD32(&tsc__g.cseq);
    if (s0 & TSC__PENDING) { /* a writer that died announcing (fork) */
        (void)tsc__cas32(&tsc__g.cseq, s0, tsc__seq_next(s0, TSC__SEQ_LIVE(s0)));
        s0 = TSC__LD32(&tsc__g.cseq);
    }
    /* 1. Measured with readers running: a clean, narrow bracket counts
     * (each try the narrowest of 16; the narrowest try is kept). Where all
     * four are wider than the bar but within 2x of one another, the OS
     * clock itself got slower (the kernel switched to hpet or acpi_pm, and
     * clock_gettime became a system call; a VM moved): no preemption
     * widens four narrowest-of-16 alike, so that is the new bar, and the
     * reading, within its half-width, counts. Else the bar widens a little,
     * so that a slower machine is accepted again after a few tries. */
    bar = 2 * tsc__g.narrow + 64;
    for (i = 0; i < 4 && w > bar; i++) {
        s[0] = tsc__clock_sample(&s[1], &s[2], &s[3], &rw);
        hi = s[0] > hi ? s[0] : hi;
        if (s[0] < w) {
            w = s[0];
            mid = s[1];
            mono = s[2];
            off = s[3];
            offw = rw;
        }
    }
    if (!tsc__claim_held(&tsc__g.cw, mine)) {
        /* Taken over while measuring (stopped for a second): the steering
         * below is the writers' after it now. */
    } else if (w > bar && hi > 2 * w) {
        tsc__g.narrow += tsc__g.narrow / 8 + 1;
    } else {
        if (w < tsc__g.narrow || w > bar)
            tsc__g.narrow = w;
        /* 2. The rate; the interval since the last measurement. */
        was = tsc__bitsd(tsc__g.rate);
        rate = tsc__clock_rate(mid, mono, tsc__kernel_rate());
        h = TSC__CAST(double, mono - tsc__g.last_ns);
        h = h < 1e7 ? 1e7 : h > 1e9 ? 1e9 : h;
        tsc__g.last_ns = mono;
        /* A publication too late by the time it was checked (a page
         * walk, an emulator translating this code afresh: qemu after a
         * resume) is made again once, from a new switch point, where the
         * latch counter is only what its own withdrawal made it; any other
         * change means another writer published, and this one stops. */
        for (tries = 0; tries < 2; tries++) {
            if (tries > 0) {
                uint32_t ann = s0 | TSC__PENDING | TSC__CAST(uint32_t, slot) << 2;
                if (rc == 0 || TSC__LD32(&tsc__g.cseq) != tsc__seq_next(ann, TSC__SEQ_LIVE(ann)))
                    break;
                s0 = tsc__seq_next(ann, TSC__SEQ_LIVE(ann));
            }
            /* 3. A copy of our own, touched now so that the publication
             * below finds it in the caches and TLBs (under emulation a page
             * walk is microseconds of the 25 us it has); the line in force,
             * once its own switch point has passed. */
            slot = tsc__latch_reserve(&tsc__g.cseq, &tsc__g.cown, mine);
            if (slot < 0) {
                tsc__claim_release(&tsc__g.cw, TSC__TLS_CW, mine);
                return -EAGAIN;
            }
            tsc__latch_get(&tsc__g.cseq, &tsc__g.l[0][0], TSC__L_STRIDE, 0, v, TSC__L_WORDS);
            tsc__latch_fill(&tsc__g.l[0][0], TSC__L_STRIDE, slot, v, TSC__L_WORDS);
            m = TSC__CAST(uint64_t, TSC__SWITCH_NS / rate) + 1;
            for (now = tsc__clock_ticks(); now < v[TSC__L_SWITCH] && v[TSC__L_SWITCH] - now <= 2 * m;
                 now = tsc__clock_ticks())
                tsc__pause(); /* at most the 50 us margin (a counter far below it went back) */
            /* 4. The new line from 50 us ahead. */
            now = tsc__clock_ticks();
            ts = now + m;
            at = mono + TSC__CAST(uint64_t, TSC__CAST(double, TSC__CAST(int64_t, ts - mid)) * rate); /* the clock at ts */
            memmove(v + TSC__L_PREV, v + TSC__L_CUR, 8 * sizeof v[0]);
            tsc__clock_steer(v + TSC__L_PREV, ts, mid, mono, rate, h, v + TSC__L_CUR,
                             tsc__clock_floor(v, at), tsc__fabs(rate / was - 1.0) > 1e-3);
            v[TSC__L_SWITCH] = ts;
            /* The realtime offset changes only where CLOCK_REALTIME is stepped
             * (NTP slews both clocks alike): a measurement whose interval
             * (offset +- half its bracket) meets the last one's keeps the last,
             * so realtime readings do not move by the measurements' noise;
             * except a narrower one inside it (the last one was disturbed): the
             * kept interval only narrows. */
            rw = (offw + v[TSC__L_REALW]) / 2;
            d = TSC__CAST(int64_t, off - v[TSC__L_REAL]) < 0 ? v[TSC__L_REAL] - off : off - v[TSC__L_REAL];
            if (d > rw || (offw < v[TSC__L_REALW] && 2 * d + offw <= v[TSC__L_REALW])) {
                v[TSC__L_REAL] = off;
                v[TSC__L_REALW] = offw;
            }
            v[TSC__L_AHEAD] = (TSC__CAST(int64_t, v[TSC__L_CUR + 1] - at) > 0 ? v[TSC__L_CUR + 1] - at : 0) +
                              TSC__CAST(uint64_t, TSC__CAST(double, w) * rate) + TSC__AHEAD_NS;
            v[TSC__L_MONO] = at;
            /* Below its start, after a counter that went back, readers answer
             * no more than where it starts. */
            v[TSC__L_CAP] = ts < v[TSC__L_PREV] ? v[TSC__L_CUR + 1] : UINT64_MAX;
            rc = tsc__clock_publish(v, ts - m / 2, s0, mine, slot);
        }
    }
    tsc__claim_release(&tsc__g.cw, TSC__TLS_CW, mine);
    return rc;
}
#endif

/* --- one-time work, all at once ---------------------------------------- */

#if TSC__IMPL
TSC__API int tsc_init(void)
{
    uint32_t m, why;
    uint64_t t;
    if (tsc__inside() & (TSC__TLS_FIRST | TSC__TLS_FW | TSC__TLS_CW))
        return -EAGAIN; /* called from inside the library's own one-time work */
    m = tsc__mode();
    (void)tsc_get_trust();
    (void)tsc_ticks_per_second();
    if (TSC__LD32(&tsc__g.fseq) == 0)
        return -EAGAIN;
    (void)tsc_overhead_ticks();
    (void)tsc_now_ns();
    /* Every read path once, so none is first inside a timed region. */
    t = tsc_ticks_before();
    t = tsc_ticks_after() - t;
    (void)tsc_ticks_to_ns(t);
    (void)tsc_ns_to_ticks(t);
    (void)tsc_ticks_to_seconds(t);
    (void)tsc_now_realtime_ns();
    why = TSC__LD32(&tsc__g.why);
#if !defined(TSC_TIMER_FORCE_FALLBACK)
    if (m == TSC__MODE_OS)
        return (why & TSC__WHY_FORBIDDEN) ? -EPERM : -ENODEV;
#endif
    (void)m;
    (void)why;
    return 0;
}
#endif

/* --- statistics: implementation ---------------------------------------- */

/* Index of the highest set bit of v, v != 0. */
TSC__FN int tsc__top_bit(uint64_t v)
{
#if defined(TSC__GNU)
    return 63 ^ __builtin_clzll(v); /* one BSR on x86 */
#elif defined(_MSC_VER) && defined(_M_X64)
    unsigned long i;
    _BitScanReverse64(&i, v);
    return TSC__CAST(int, i);
#else
    int b = 0;
    if (v >> 32) { v >>= 32; b += 32; }
    if (v >> 16) { v >>= 16; b += 16; }
    if (v >> 8) { v >>= 8; b += 8; }
    if (v >> 4) { v >>= 4; b += 4; }
    if (v >> 2) { v >>= 2; b += 2; }
    return b + TSC__CAST(int, v >> 1);
#endif
}

/* Bucket of v. With s = top bit - 6 (0 below 128, by or-ing in bit 6),
 * v >> s keeps the top 7 bits, 64..127; s * 64 + that is continuous with
 * the exact buckets 0..127 and ends at 57 * 64 + 127 = 3775. */
TSC__FN uint32_t tsc__bucket(uint64_t v)
{
    int s = tsc__top_bit(v | 64u) - 6;
    return (TSC__CAST(uint32_t, s) << 6) + TSC__CAST(uint32_t, v >> s);
}

#if TSC__IMPL
/* The middle of bucket i (its lowest value plus half its width, rounded
 * down), within 1/128 of every value in it. */
TSC__FN uint64_t tsc__bucket_mid(uint32_t i)
{
    int s;
    if (i < 128)
        return i;
    s = TSC__CAST(int, i >> 6) - 1;
    return (TSC__CAST(uint64_t, (i & 63u) | 64u) << s) + ((UINT64_C(1) << s) - 1) / 2;
}

TSC__API void tsc_stats_init(struct tsc_stats *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof *s);
    s->min = UINT64_MAX;
}
#endif

TSC__FN void tsc_stats_add(struct tsc_stats *s, uint64_t v)
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

TSC__FN int tsc_stats_add_cpu(struct tsc_stats *s, uint64_t ticks, uint32_t cpu0, uint32_t cpu1,
                              int drop)
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

#if TSC__IMPL
/* ceil(p / 100 * n) exactly, p taken to 7 decimals: with q = p * 1e7 and
 * n = a * 1e9 + b, it is q * a + ceil(q * b / 1e9); no term overflows. */
TSC__FN uint64_t tsc__rank(uint64_t n, double p)
{
    const uint64_t e9 = UINT64_C(1000000000);
    uint64_t q = tsc__sat_u64(p * 1e7 + 0.5);
    return q * (n / e9) + (q * (n % e9) + e9 - 1) / e9;
}

TSC__API uint64_t tsc_stats_percentile(const struct tsc_stats *s, double p)
{
    uint64_t rank, seen = 0, mid;
    uint32_t i;
    if (!s || s->count == 0 || !tsc__finite(p) || p < 0 || p > 100)
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
TSC__FN void tsc__add_words(uint64_t *w, const uint64_t *x, int n)
{
    uint64_t c = 0, t;
    int i;
    for (i = 0; i < n; i++) {
        t = w[i] + x[i];
        w[i] = t + c;
        c = (t < x[i]) | (w[i] < c);
    }
}

TSC__API void tsc_stats_merge(struct tsc_stats *into, const struct tsc_stats *from)
{
    uint64_t n, mn, mx, mig, sum[2], sq[3];
    uint32_t i;
    if (!into || !from)
        return;
    /* Copies first: into may be from. */
    n = from->count; mn = from->min; mx = from->max; mig = from->migrated;
    into->migrated += mig; /* dropped samples count even with none kept */
    if (n == 0)
        return;
    sum[0] = from->sum[0]; sum[1] = from->sum[1];
    sq[0] = from->sumsq[0]; sq[1] = from->sumsq[1]; sq[2] = from->sumsq[2];
    into->count += n;
    into->min = mn < into->min ? mn : into->min;
    into->max = mx > into->max ? mx : into->max;
    tsc__add_words(into->sum, sum, 2);
    tsc__add_words(into->sumsq, sq, 3);
    for (i = 0; i < TSC_STATS_BUCKETS; i++)
        into->bucket[i] += from->bucket[i];
}

TSC__API uint64_t tsc_stats_count(const struct tsc_stats *s)
{
    return s ? s->count : 0;
}
TSC__API uint64_t tsc_stats_min(const struct tsc_stats *s)
{
    return s && s->count ? s->min : 0;
}
TSC__API uint64_t tsc_stats_max(const struct tsc_stats *s)
{
    return s && s->count ? s->max : 0;
}
TSC__API double tsc_stats_sum(const struct tsc_stats *s)
{
    return s ? TSC__CAST(double, s->sum[1]) * TSC__2P64 + TSC__CAST(double, s->sum[0]) : 0;
}

TSC__API double tsc_stats_mean(const struct tsc_stats *s)
{
    if (!s || s->count == 0)
        return 0;
    return tsc_stats_sum(s) / TSC__CAST(double, s->count);
}

/* w[k..3] += x, carrying upwards (256-bit, low word first). */
TSC__FN void tsc__add_at(uint64_t w[4], int k, uint64_t x)
{
    for (; k < 4 && x; k++) {
        w[k] += x;
        x = w[k] < x;
    }
}

/* sd = sqrt(n * sumsq - sum^2) / n, the difference taken exactly in 256
 * bits: no cancellation whatever the magnitude of the samples. */
TSC__API double tsc_stats_stddev(const struct tsc_stats *s)
{
    uint64_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0}, hi, lo, borrow = 0, t;
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
        t = a[i] - b[i] - borrow;
        borrow = (a[i] < b[i]) || (a[i] == b[i] && borrow);
        a[i] = t;
    }
    for (i = 3; i >= 0; i--)
        d = d * TSC__2P64 + TSC__CAST(double, a[i]);
    return tsc__sqrt(d) / TSC__CAST(double, s->count);
}

/* v minus the overhead o, never below 0. */
TSC__FN uint64_t tsc__minus(uint64_t v, uint64_t o)
{
    return v > o ? v - o : 0;
}
#endif

#define TSC__HIST_ROWS 16
#define TSC__HIST_BAR 40

#if TSC__IMPL
/* Up to TSC__HIST_ROWS rows of log-spaced ranges over [lo, hi] (after the
 * overhead o is taken off), each bucket counted in the row of its midpoint.
 * The ratio of the rows is the 16th root of the range: four square roots. */
TSC__FN void tsc__print_histogram(const struct tsc_stats *s, uint64_t o, const char *unit, FILE *out)
{
    uint64_t start[TSC__HIST_ROWS], end[TSC__HIST_ROWS], cnt[TSC__HIST_ROWS], most = 0;
    uint64_t lo = tsc__minus(s->min, o), hi = tsc__minus(s->max, o), first = lo, last, m;
    double base = lo ? TSC__CAST(double, lo) : 1.0, edge = base, e;
    double ratio = tsc__sqrt(tsc__sqrt(tsc__sqrt(tsc__sqrt((TSC__CAST(double, hi) + 1.0) / base))));
    char bar[TSC__HIST_BAR + 1];
    int rows = 0, k, len;
    uint32_t i;
    for (k = 0; k < TSC__HIST_ROWS && first <= hi; k++) {
        edge *= ratio;
        e = tsc__ceil(edge) - 1.0;
        last = (k == TSC__HIST_ROWS - 1 || !(e < TSC__CAST(double, hi))) ? hi : tsc__sat_u64(e);
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
    fprintf(out, "  histogram, %s%s (count per range):\n", unit, o ? " - overhead" : "");
    for (k = 0; k < rows; k++) {
        e = tsc__ceil(TSC__CAST(double, cnt[k]) * TSC__HIST_BAR / TSC__CAST(double, most));
        len = cnt[k] ? TSC__CAST(int, e < TSC__HIST_BAR ? tsc__sat_u64(e) : TSC__HIST_BAR) : 0;
        memset(bar, '#', TSC__CAST(size_t, len));
        bar[len] = '\0';
        fprintf(out, "  %10" PRIu64 " .. %-10" PRIu64 " %10" PRIu64 " |%s\n", start[k], end[k],
                cnt[k], bar);
    }
}

/* The mean of the samples less o, each floored at 0: the plain mean less o,
 * plus what flooring gives back to samples below o (exact for o < 128,
 * where buckets hold single values; else from bucket midpoints). */
TSC__FN double tsc__mean_minus(const struct tsc_stats *s, uint64_t o)
{
    double back = 0;
    uint32_t i;
    for (i = 0; o && i < TSC_STATS_BUCKETS && tsc__bucket_mid(i) < o; i++)
        back += TSC__CAST(double, s->bucket[i]) * TSC__CAST(double, o - tsc__bucket_mid(i));
    return tsc_stats_mean(s) - TSC__CAST(double, o) + back / TSC__CAST(double, s->count);
}

TSC__API int tsc_stats_print_flags(const struct tsc_stats *s, const char *name, FILE *out,
                                  unsigned flags)
{
    static const double ps[4] = {50, 90, 99, 99.9};
    uint64_t v[6], o;
    double mean, sd, ns_per_tick;
    int i;
    if (!s || !out || (flags & TSC_PRINT_NS && flags & TSC_PRINT_SUB_OVERHEAD))
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
    fprintf(out, "  %-5s", flags & TSC_PRINT_NS ? "ns" : "ticks");
    for (i = 0; i < 6; i++)
        fprintf(out, " %10" PRIu64, v[i]);
    fprintf(out, "   %.1f +- %.1f\n", mean, sd);
    if (!(flags & TSC_PRINT_NS)) {
        fprintf(out, "  %-5s", "ns");
        for (i = 0; i < 6; i++)
            fprintf(out, " %10" PRIu64, tsc_ticks_to_ns(v[i]));
        fprintf(out, "   %.1f +- %.1f\n", mean * ns_per_tick, sd * ns_per_tick);
    }
    if (!(flags & TSC_PRINT_NO_HISTOGRAM))
        tsc__print_histogram(s, o, flags & TSC_PRINT_NS ? "ns" : "ticks", out);
    return 0;
}

TSC__API void tsc_stats_print(const struct tsc_stats *s, const char *name, FILE *out)
{
    (void)tsc_stats_print_flags(s, name, out, 0);
}
#endif

/* --- macros: their helpers --------------------------------------------- */

#if TSC__IMPL
TSC__COLD void tsc__log_ticks(FILE *out, const char *name, uint64_t ticks)
{
    if (out)
        fprintf(out, "%s: %" PRIu64 " ticks, %" PRIu64 " ns\n", name, ticks,
                tsc_ticks_to_ns(ticks));
}

TSC__COLD void tsc__log_timestamp(FILE *out, const char *name, uint64_t ns)
{
    if (out)
        fprintf(out, "%s: %" PRIu64 " ns\n", name, ns);
}

TSC__COLD int tsc__end_cpu(struct tsc_stats *s, uint64_t t0, uint32_t cpu0, int drop)
{
    uint32_t cpu1;
    uint64_t t1 = tsc_ticks_after_cpu(&cpu1);
    return tsc_stats_add_cpu(s, t1 - t0, cpu0, cpu1, drop);
}
#endif

/* --- regions: implementation ------------------------------------------- */

#if TSC__IMPL
TSC__API int tsc_regions_init(struct tsc_regions *r, int n, const char *const *names)
{
    int i;
    if (!r)
        return -EINVAL;
    memset(r, 0, sizeof *r); /* on failure too: no regions, every call -EINVAL */
    r->open = -1;
    if (n < 1 || n > TSC_REGIONS_MAX)
        return -EINVAL;
    for (i = 0; i < n && names; i++)
        r->name[i] = names[i];
    r->open = -1;
    r->n = n;
    return 0;
}
#endif

TSC__FN int tsc_region_start(struct tsc_regions *r, int id)
{
    if (!r || id < 0 || id >= r->n || r->open >= 0)
        return -EINVAL;
    r->entries[id]++;
    r->open = id;
    r->since = tsc_ticks_before();
    return 0;
}

TSC__FN int tsc_region_stop(struct tsc_regions *r)
{
    uint64_t t = tsc_ticks_after();
    if (!r || r->open < 0 || r->open >= r->n)
        return -EINVAL;
    r->ticks[r->open] += t - r->since;
    r->open = -1;
    return 0;
}

TSC__FN int tsc_region_switch(struct tsc_regions *r, int id)
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

#if TSC__IMPL
TSC__API uint64_t tsc_regions_total(const struct tsc_regions *r)
{
    uint64_t t = 0;
    int i;
    for (i = 0; r && i < r->n && i < TSC_REGIONS_MAX; i++)
        t += r->ticks[i];
    return t;
}

/* A duration in the unit that reads best: "812 ns", "45.31 us", ... */
TSC__FN void tsc__print_ns(FILE *out, uint64_t n)
{
    double ns = TSC__CAST(double, n);
    if (ns < 1e4)
        fprintf(out, " %9.0f ns", ns);
    else if (ns < 1e7)
        fprintf(out, " %9.2f us", ns / 1e3);
    else if (ns < 1e10)
        fprintf(out, " %9.2f ms", ns / 1e6);
    else
        fprintf(out, " %9.3f s ", ns / 1e9);
}
TSC__FN void tsc__print_time(FILE *out, uint64_t ticks) { tsc__print_ns(out, tsc_ticks_to_ns(ticks)); }

TSC__API void tsc_regions_print(const struct tsc_regions *r, FILE *out)
{
    uint64_t total = tsc_regions_total(r);
    int i;
    if (!r || !out)
        return;
    fprintf(out, "  %-16s %10s %16s %12s %7s\n", "region", "entries", "ticks", "time", "share");
    for (i = 0; i < r->n && i < TSC_REGIONS_MAX; i++) {
        if (r->name[i])
            fprintf(out, "  %-16s", r->name[i]);
        else
            fprintf(out, "  region %-9d", i);
        fprintf(out, " %10" PRIu64 " %16" PRIu64, r->entries[i], r->ticks[i]);
        tsc__print_time(out, r->ticks[i]);
        fprintf(out, " %6.1f%%\n",
                total ? 100.0 * TSC__CAST(double, r->ticks[i]) / TSC__CAST(double, total) : 0.0);
    }
    fprintf(out, "  %-16s %10s %16" PRIu64, "total", "", total);
    tsc__print_time(out, total);
    fprintf(out, " %6.1f%%\n", total ? 100.0 : 0.0);
}
#endif

/* --- microbenchmarks: implementation ----------------------------------- */

#define TSC__BENCH_MIN_BATCHES 31

#if TSC__IMPL
TSC__API int tsc_bench_init(struct tsc_bench *b, const char *name)
{
    if (!b)
        return -EINVAL;
    memset(b, 0, sizeof *b);
    b->budget = 0.1;
    b->reason = "";
    if (!name) {
        b->state = -1;
        return -EINVAL;
    }
    b->name = name;
    return 0;
}

TSC__API int tsc_bench_set_budget(struct tsc_bench *b, double seconds)
{
    if (!b || b->state < 0 || !tsc__finite(seconds) || !(seconds > 0) || seconds > 3600)
        return -EINVAL;
    b->budget = seconds;
    return 0;
}
#endif

/* The loop counter, made opaque at each iteration so the compiler keeps
 * the loop as written: a decrement and a branch per run of the body. */
TSC__FN uint64_t tsc__bench_step(uint64_t n)
{
    n--;
#if defined(TSC__GNU)
    __asm__ __volatile__("" : "+r"(n)); /* a register: no store and reload */
#else
    TSC_KEEP(n);
#endif
    return n;
}

#if TSC__IMPL
/* v[0..n-1] sorted in place (insertion: n <= TSC_BENCH_MAX_BATCHES). */
TSC__FN void tsc__sort_d(double *v, int n)
{
    int i, j;
    double x;
    for (i = 1; i < n; i++) {
        x = v[i];
        for (j = i; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Median of v[0..n-1] (n >= 1) and, in *mad, the median absolute deviation
 * from it. Works on a copy. */
TSC__FN double tsc__median_mad(const double *v, int n, double *mad)
{
    double c[TSC_BENCH_MAX_BATCHES], med;
    int i;
    memcpy(c, v, TSC__CAST(size_t, n) * sizeof c[0]);
    tsc__sort_d(c, n);
    med = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    for (i = 0; i < n; i++)
        c[i] = tsc__fabs(v[i] - med);
    tsc__sort_d(c, n);
    *mad = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    return med;
}
#endif

/* Where the loop that follows starts: a 64-byte boundary, so the body's
 * loop and the empty one are fetched and decoded alike (on many Intel
 * cores a branch that crosses a 32-byte boundary runs from the slow
 * decoders: the same loop took 0.77 or 1.5 ticks per iteration by where it
 * lay). The padding runs once per batch, before the loop. */
#if defined(TSC__GNU) && !(defined(_WIN32) && (defined(__aarch64__) || defined(__arm__)))
/* (not on Windows on Arm: clang's unwind tables there fail on it) */
#define TSC__ALIGN_LOOP() __asm__ __volatile__(".p2align 6")
#else
#define TSC__ALIGN_LOOP() ((void)0)
#endif

#if TSC__IMPL
/* The loop's own ticks per iteration: k batches of the same loop with an
 * empty body, timed the same way, kept in b->loop. Out of line but not
 * cold: a cold function's loop is laid out for size (two branches per
 * iteration instead of one). */
TSC__OUTLINE void tsc__bench_loop(struct tsc_bench *b, int k)
{
    uint64_t t0, n;
    for (; k > 0 && b->nloop < TSC__CAST(int, sizeof b->loop / sizeof b->loop[0]); k--) {
        n = b->batch; /* >= 1: the loop TSC_BENCH compiles to, rotated */
        t0 = tsc_ticks_before();
        TSC__ALIGN_LOOP();
        do
            n = tsc__bench_step(n);
        while (n);
        n = tsc_sub_overhead(tsc_ticks_after() - t0);
        b->loop[b->nloop++] = TSC__CAST(double, n) / TSC__CAST(double, b->batch);
    }
}
#endif

TSC__FN uint64_t tsc__bench_begin(struct tsc_bench *b)
{
    uint64_t o;
    if (!b || b->state < 0 || !b->name)
        return 0;
    (void)tsc_init(); /* nothing one-time inside the batches */
    o = tsc_overhead_ticks();
    b->target = 1000 * (o > 1 ? o : 1); /* overhead and resolution: 0.1 % */
    b->batch = 1;
    b->state = 1;
    b->ops = b->batches = b->migrated = 0;
    b->nloop = 0;
    b->unstable = 0;
    b->reason = "";
    b->start = tsc_ticks_before();
    b->deadline = b->start + tsc_ns_to_ticks(tsc__sat_u64(b->budget * 1e9));
    return 1;
}

/* A batch starts: its CPU, then the fenced read (the CPU query untimed). */
TSC__FN uint64_t tsc__bench_batch(struct tsc_bench *b)
{
    b->t0 = tsc_ticks_before_cpu(&b->cpu);
    TSC__ALIGN_LOOP();
    return b->batch;
}

#if TSC__IMPL
/* (out of line but not cold, as the two below: TSC_BENCH's loop calls
 * them after every batch, and a compiler places a loop that always calls a
 * cold function in its cold section, laid out for size) */
TSC__OUTLINE uint64_t tsc__bench_finish(struct tsc_bench *b, uint64_t t1, const char *why)
{
    tsc__bench_loop(b, 3);
    b->end = t1;
    b->state = 3;
    if (why)
        b->reason = why;
    return 0;
}

/* A batch ended at t1 on cpu with n iterations left (0 unless the body
 * left early). 1 to run another batch, 0 when done. */
TSC__COLD uint64_t tsc__bench_account(struct tsc_bench *b, uint64_t t1, uint32_t cpu, uint64_t n)
{
    uint64_t ticks = tsc_sub_overhead(t1 - b->t0);
    double mad, med;
    if (n != 0)
        return tsc__bench_finish(b, t1, "the body left a batch early (break, return or goto)");
    if (cpu != b->cpu && cpu != UINT32_MAX && b->cpu != UINT32_MAX) {
        b->migrated++; /* a batch that changed CPU is not kept */
        return t1 < b->deadline ? 1u : tsc__bench_finish(b, t1, TSC__NULL);
    }
    if (b->state == 1) { /* sizing: grow the batch until it spans the target */
        if (ticks < b->target && b->batch < (UINT64_C(1) << 40)) {
            b->batch = ticks > b->target / 16 ? b->batch * (b->target * 5 / 4) / ticks + 1
                                              : b->batch * 16;
            return t1 < b->deadline
                       ? 1u
                       : tsc__bench_finish(b, t1, "the budget ran out while sizing the batches");
        }
        /* Sizing doubles as a warm-up (caches, branch predictors, a core
         * clock still rising): a tenth of the budget, 10 ms at most. */
        if (t1 - b->start < (b->deadline - b->start) / 10 && t1 - b->start < tsc_ns_to_ticks(10000000))
            return 1;
        tsc__bench_loop(b, 3);
        b->state = 2;
        return 1;
    }
    b->per_op[b->batches++] = TSC__CAST(double, ticks) / TSC__CAST(double, b->batch);
    b->ops += b->batch;
    if (b->batches % 4 == 0)
        tsc__bench_loop(b, 1);
    if (b->batches >= TSC_BENCH_MAX_BATCHES || t1 >= b->deadline)
        return tsc__bench_finish(b, t1, TSC__NULL);
    if (b->batches >= TSC__BENCH_MIN_BATCHES && b->batches % 8 == 0) {
        med = tsc__median_mad(b->per_op, TSC__CAST(int, b->batches), &mad);
        if (med > 0 && mad / med <= 0.01)
            return tsc__bench_finish(b, t1, TSC__NULL);
    }
    return 1;
}
#endif

TSC__FN uint64_t tsc__bench_next(struct tsc_bench *b, uint64_t n)
{
    uint32_t cpu;
    uint64_t t1 = tsc_ticks_after_cpu(&cpu);
    return tsc__bench_account(b, t1, cpu, n);
}

#if TSC__IMPL
TSC__API int tsc_bench_get_result(const struct tsc_bench *b, struct tsc_bench_result *out)
{
    double med, mad, loop, loop_mad, first, last, x;
    double lo;
    int i;
    if (out) /* written on every path, -EINVAL's too */
        memset(out, 0, sizeof *out);
    if (!b || !out || b->state != 3)
        return -EINVAL;
    out->ops = b->ops;
    out->seconds = tsc_ticks_to_seconds(b->end - b->start);
    if (b->batches == 0 || b->nloop < 6) { /* finished, but nothing to report but why */
        out->reason = *b->reason ? b->reason
                      : b->migrated ? "every batch changed CPU (dropped)"
                                    : "no batch within the budget";
        out->unstable = 1;
        return -EAGAIN;
    }
    med = tsc__median_mad(b->per_op, TSC__CAST(int, b->batches), &mad);
    loop = tsc__median_mad(b->loop, b->nloop, &loop_mad);
    first = tsc__median_mad(b->loop, 3, &x);                /* taken before */
    last = tsc__median_mad(b->loop + b->nloop - 3, 3, &x);  /* and after    */
    lo = b->per_op[0];
    for (i = 1; i < TSC__CAST(int, b->batches); i++)
        lo = b->per_op[i] < lo ? b->per_op[i] : lo;
    out->raw_ticks_per_op = med;
    out->loop_ticks_per_op = loop;
    out->ticks_per_op = med > loop ? med - loop : 0;
    out->min_ticks_per_op = lo > loop ? lo - loop : 0;
    out->ns_per_op = out->ticks_per_op * 1e9 / tsc_ticks_per_second();
    /* (batches alike to the tick have no deviation, yet the body's batches
     * and the empty ones differ by some ticks in their fixed costs) */
    out->err_ticks_per_op = mad + loop_mad +
                            (2.0 + TSC__CAST(double, b->target) / 500) / TSC__CAST(double, b->batch) +
                            tsc__fabs(last - first); /* the loop's own cost moved that much */
#if !defined(TSC__GNU)
    /* Without GNU asm the loop counter goes through an opaque call each run,
     * whose cost depends on where the code lies: the body's loop and the
     * empty one lie apart (seen 14 % apart under Wine): a quarter counts. */
    out->err_ticks_per_op += loop / 4;
#endif
    /* Relative to the net cost, or to the raw one where the net cannot be
     * told from 0 (an empty body: a percentage of ~0 says nothing). */
    out->err_pct = out->ticks_per_op > out->err_ticks_per_op ? 100.0 * mad / out->ticks_per_op
                                                              : 100.0 * mad / med;

    if (!(out->err_pct >= 0) || !tsc__finite(out->err_pct))
        out->err_pct = 0;
    out->batches = b->batches;
    out->reason = b->reason;
    if (!*out->reason) {
        if (b->batches < 5)
            out->reason = "fewer than 5 batches within the budget";
        else if (b->migrated)
            out->reason = "batches changed CPU (dropped)";
        else if (tsc__fabs(last - first) > 0.05 * loop + 0.02)
            out->reason = "the loop's own cost changed during the run (core clock: turbo, throttling?)";
        else if (out->err_pct > 5)
            out->reason = "err% above 5";
    }
    out->unstable = *out->reason != '\0';
    return 0;
}

/* A name for CSV: quotes doubled, control characters dropped. */
TSC__FN void tsc__put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (TSC__CAST(unsigned char, *s) < 0x20)
            continue;
        if (*s == '"')
            fputs("\"\"", out);
        else
            fputc(*s, out);
    }
}

/* Bytes of the well-formed UTF-8 sequence at s (Unicode's table 3-7), 0
 * where there is none. Reads no byte past a NUL: each byte it reads
 * after the first follows a continuation byte. */
TSC__FN int tsc__utf8_len(const unsigned char *s)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    int n, k;
    if (c < 0x80)
        return 1;
    if (c < 0xC2 || c > 0xF4) /* a continuation byte, an overlong 2-byte lead, > U+10FFFF */
        return 0;
    n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (c == 0xE0 || c == 0xF0)
        lo = c == 0xE0 ? 0xA0 : 0x90; /* overlong forms */
    else if (c == 0xED)
        hi = 0x9F; /* surrogates */
    else if (c == 0xF4)
        hi = 0x8F; /* beyond U+10FFFF */
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return n;
}

/* A JSON string, the one writer of the bench, trace and zones files:
 * quotes and backslashes escaped, control characters as \u00XX,
 * well-formed UTF-8 as it is, every other byte as U+FFFD (strict parsers
 * refuse a file that is not UTF-8). */
TSC__FN void tsc__json_str(FILE *out, const char *str)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = TSC__RCAST(const unsigned char *, str);
    unsigned c;
    int len;
    fputc('"', out);
    for (; (c = *s) != 0; s += len ? len : 1) {
        len = tsc__utf8_len(s);
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", TSC__CAST(int, c));
        else if (c < 0x20)
            fprintf(out, "\\u00%c%c", hex[c >> 4], hex[c & 15u]);
        else if (len == 0)
            fputs("\xEF\xBF\xBD", out); /* U+FFFD */
        else
            fwrite(s, 1, TSC__CAST(size_t, len), out);
    }
    fputc('"', out);
}


TSC__FN void tsc__bench_row(const struct tsc_bench *b, FILE *out, int format, double base)
{
    struct tsc_bench_result r;
    const char *name = b && b->name ? b->name : "(none)";
    int rc = tsc_bench_result(b, &r);
    if (rc != 0 && rc != -EAGAIN) { /* -EAGAIN: no figure, but its reason */
        memset(&r, 0, sizeof r);
        r.unstable = 1;
        r.reason = "not run";
    }
    if (format == TSC_BENCH_CSV) {
        fputc('"', out);
        tsc__put_escaped(out, name);
        fprintf(out, "\",%.6g,%.6g,%.3f,%.6g,%.6g,%" PRIu64 ",%" PRIu64 ",%.6f,%d,\"",
                r.ns_per_op, r.ns_per_op > 0 ? 1e9 / r.ns_per_op : 0.0, r.err_pct,
                r.ticks_per_op, r.min_ticks_per_op, r.ops, r.batches, r.seconds, r.unstable);
        tsc__put_escaped(out, r.reason);
        fputs("\"\n", out);
    } else if (format == TSC_BENCH_JSON) {
        fputs("{\"name\": ", out);
        tsc__json_str(out, name);
        fprintf(out, ", \"ns_per_op\": %.6g, \"op_per_s\": %.6g, \"err_pct\": %.3f, "
                "\"ticks_per_op\": %.6g, \"min_ticks_per_op\": %.6g, \"raw_ticks_per_op\": %.6g, "
                "\"loop_ticks_per_op\": %.6g, \"ops\": %" PRIu64 ", \"batches\": %" PRIu64
                ", \"seconds\": %.6f, \"unstable\": %s, \"reason\": ",
                r.ns_per_op, r.ns_per_op > 0 ? 1e9 / r.ns_per_op : 0.0, r.err_pct,
                r.ticks_per_op, r.min_ticks_per_op, r.raw_ticks_per_op, r.loop_ticks_per_op, r.ops,
                r.batches, r.seconds, r.unstable ? "true" : "false");
        tsc__json_str(out, r.reason);
        fputs("}", out);
    } else {
        fprintf(out, "| %10.3f | %14.0f | %5.1f%% | %9.2f | ", r.ns_per_op,
                r.ns_per_op > 0 ? 1e9 / r.ns_per_op : 0.0, r.err_pct, r.ticks_per_op);
        if (base > 0)
            fprintf(out, "%6.1f%% | ", 100.0 * r.ns_per_op / base);
        else
            fputs("     - | ", out);
        fprintf(out, "%s%s%s%s |\n", name, r.unstable ? " (unstable: " : "", r.unstable ? r.reason : "",
                r.unstable ? ")" : "");
    }
}

TSC__FN void tsc__bench_header(FILE *out)
{
    fputs("|      ns/op |           op/s |   err% |  ticks/op |     rel | benchmark |\n"
          "|-----------:|---------------:|-------:|----------:|--------:|:----------|\n", out);
}

TSC__API void tsc_bench_print(const struct tsc_bench *b, FILE *out)
{
    struct tsc_bench_result r;
    double base;
    if (!out)
        return;
    if (tsc__cas32(&tsc__g.bench_rows, 0, 1))
        tsc__bench_header(out);
    /* The first row printed is the base of rel (none where it took 0 ns). */
    if (tsc__cas32(&tsc__g.bench_rows, 1, 2) && tsc_bench_result(b, &r) == 0)
        TSC__ST64(&tsc__g.bench_base, tsc__dbits(r.ns_per_op));
    base = tsc__bitsd(TSC__LD64(&tsc__g.bench_base));
    tsc__bench_row(b, out, TSC_BENCH_MARKDOWN, base);
}

TSC__API int tsc_bench_write(const struct tsc_bench *const *b, int n, FILE *out, int format)
{
    struct tsc_bench_result r;
    double base = 0;
    int i;
    if (!b || !out || n < 0 || format < TSC_BENCH_MARKDOWN || format > TSC_BENCH_JSON)
        return -EINVAL;
    if (format == TSC_BENCH_MARKDOWN) {
        tsc__bench_header(out);
        if (n > 0 && tsc_bench_result(b[0], &r) == 0)
            base = r.ns_per_op;
    } else if (format == TSC_BENCH_CSV) {
        fputs("name,ns_per_op,op_per_s,err_pct,ticks_per_op,min_ticks_per_op,ops,batches,"
              "seconds,unstable,reason\n", out);
    } else {
        fputs("[", out);
    }
    for (i = 0; i < n; i++) {
        if (format == TSC_BENCH_JSON)
            fputs(i ? ",\n " : "\n ", out);
        tsc__bench_row(b[i], out, format, base);
    }
    if (format == TSC_BENCH_JSON)
        fputs("\n]\n", out);
    return 0;
}
#endif

/* --- trace: implementation ---------------------------------------------- */

#define TSC__TRACE_NONE (TSC__CAST(size_t, -1)) /* the slot of a dropped block */

/* A block's start: the slot is filled before the stamp, so the block's
 * time holds none of the bookkeeping. Slots are taken in order of start,
 * so the buffer stays sorted without a sort. */
TSC__FN size_t tsc__trace_begin(struct tsc_trace *t, const char *name)
{
    size_t i = t->n;
    t->depth++;
    if (TSC__UNLIKELY(i >= t->cap)) {
        t->dropped++;
        return TSC__TRACE_NONE;
    }
    t->n = i + 1;
    t->ev[i].name = name;
    t->ev[i].end = 0;
    t->ev[i].start = tsc_clock_ticks();
    return i;
}

/* A block's end: the stamp first, then the bookkeeping. */
TSC__FN void tsc__trace_end(struct tsc_trace *t, size_t i)
{
    uint64_t e = tsc_clock_ticks();
    t->depth--;
    if (TSC__LIKELY(i != TSC__TRACE_NONE))
        t->ev[i].end = e;
}

#if TSC__IMPL
TSC__API int tsc_trace_init(struct tsc_trace *t, void *mem, size_t bytes, const char *thread_name)
{
    size_t skip;
    if (!t)
        return -EINVAL;
    t->ev = TSC__CAST(struct tsc_trace_event *, TSC__NULL);
    t->n = t->cap = 0;
    t->dropped = 0;
    t->thread_name = thread_name;
    t->depth = 0;
    if (!mem)
        return -EINVAL;
    /* Sets the clock up now, not inside a traced block: stamps taken
     * before its first set-up would all convert to that moment. */
    (void)tsc_now_ns();
    skip = (8u - TSC__RCAST(uintptr_t, mem) % 8u) % 8u;
    if (bytes < skip || (bytes - skip) / sizeof(struct tsc_trace_event) == 0)
        return -EINVAL;
    t->ev = TSC__CAST(struct tsc_trace_event *, TSC__CAST(void *, TSC__CAST(char *, mem) + skip));
    t->cap = (bytes - skip) / sizeof(struct tsc_trace_event);
    return 0;
}

TSC__API int tsc_trace_add(struct tsc_trace *t, const char *name, uint64_t start, uint64_t end)
{
    struct tsc_trace_event *e;
    size_t i;
    if (!t || !name || end < start || end == 0)
        return -EINVAL;
    if (t->n >= t->cap) {
        t->dropped++;
        return -ENOSPC;
    }
    /* After every event that starts earlier, and after those that start
     * at the same stamp and are no shorter (a parent before its child). */
    for (i = t->n; i > 0; i--) {
        e = &t->ev[i - 1];
        if (e->start < start || (e->start == start && (e->end == 0 || e->end >= end)))
            break;
        if (e->end == 0)
            return -EINVAL; /* an open block would move: not nested */
    }
    memmove(t->ev + i + 1, t->ev + i, (t->n - i) * sizeof(struct tsc_trace_event));
    t->ev[i].start = start;
    t->ev[i].end = end;
    t->ev[i].name = name;
    t->n++;
    return 0;
}

TSC__API uint64_t tsc_trace_dropped(const struct tsc_trace *t) { return t ? t->dropped : 0; }

/* Nanoseconds as microseconds with three decimals, from the integer. */
TSC__FN void tsc__trace_put_us(FILE *out, uint64_t ns)
{
    fprintf(out, "%" PRIu64 ".%03u", ns / 1000u, TSC__CAST(unsigned, ns % 1000u));
}

/* A thread's metadata: its name ("thread <tid>" for NULL), its place,
 * and what did not fit. The first of the document where first. */
TSC__FN void tsc__trace_meta(FILE *out, unsigned long pid, int tid, const char *name, uint64_t dropped,
                             int first)
{
    fprintf(out, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%lu,\"tid\":%d,\"args\":{\"name\":",
            first ? "\n" : ",\n", pid, tid);
    if (name)
        tsc__json_str(out, name);
    else
        fprintf(out, "\"thread %d\"", tid);
    fprintf(out, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%lu,\"tid\":%d,"
                 "\"args\":{\"sort_index\":%d}}", pid, tid, tid);
    if (dropped)
        fprintf(out, ",\n{\"name\":\"tsc_trace_dropped\",\"ph\":\"M\",\"pid\":%lu,\"tid\":%d,"
                     "\"args\":{\"dropped\":%" PRIu64 "}}", pid, tid, dropped);
}

/* A complete event, times in ns. */
TSC__FN void tsc__trace_put_x(FILE *out, const char *name, uint64_t ts, uint64_t dur, unsigned long pid, int tid)
{
    fputs(",\n{\"name\":", out);
    tsc__json_str(out, name ? name : "(null)");
    fputs(",\"ph\":\"X\",\"ts\":", out);
    tsc__trace_put_us(out, ts);
    fputs(",\"dur\":", out);
    tsc__trace_put_us(out, dur);
    fprintf(out, ",\"pid\":%lu,\"tid\":%d}", pid, tid);
}

/* The document's end: its clock and what it left out. */
TSC__FN void tsc__trace_tail(FILE *out, uint64_t dropped, uint64_t unfinished)
{
    fprintf(out, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\","
                 "\"realtime_offset_ns\":\"%" PRId64 "\",\"dropped\":%" PRIu64 ",\"unfinished\":%" PRIu64
                 "}}\n", TSC__CAST(int64_t, tsc__clock_real_offset()), dropped, unfinished);
}

/* One trace's metadata and events (each preceded by ",\n" but the first
 * of the document). Returns the events left out as unfinished. */
TSC__FN uint64_t tsc__trace_write_one(FILE *out, const struct tsc_trace *t, unsigned long pid,
                                      int tid)
{
    const struct tsc_trace_event *e;
    uint64_t ts, te, prev = 0, unfinished = 0;
    size_t k;
    tsc__trace_meta(out, pid, tid, t->thread_name, t->dropped, tid == 1);
    for (k = 0; k < t->n; k++) {
        e = &t->ev[k];
        if (e->end == 0) {
            unfinished++;
            continue;
        }
        ts = tsc_clock_ticks_to_ns(e->start);
        te = tsc_clock_ticks_to_ns(e->end);
        /* The conversion is monotonic, so neither clamp acts; they keep
         * the ts order and dur >= 0 promised if it ever were not. */
        if (ts < prev)
            ts = prev;
        if (te < ts)
            te = ts;
        prev = ts;
        tsc__trace_put_x(out, e->name, ts, te - ts, pid, tid);
    }
    return unfinished;
}

TSC__API int tsc_trace_write_json(FILE *out, const struct tsc_trace *const *traces, int n)
{
    uint64_t dropped = 0, unfinished = 0;
    unsigned long pid;
    int i;
    if (!out || n < 0 || (n > 0 && !traces))
        return -EINVAL;
    for (i = 0; i < n; i++)
        if (!traces[i])
            return -EINVAL;
    pid = TSC__CAST(unsigned long, tsc__pid());
    fputs("{\"traceEvents\":[", out);
    for (i = 0; i < n; i++) {
        dropped += traces[i]->dropped;
        unfinished += tsc__trace_write_one(out, traces[i], pid, i + 1);
    }
    tsc__trace_tail(out, dropped, unfinished);
    return ferror(out) ? -EIO : 0;
}
#endif

/* --- zones: implementation --------------------------------------------- */

/* Zones need thread-local storage (GCC, Clang, MSVC): without it they
 * record nothing. A thread's records come from calloc (GCC, Clang; bound by
 * name, below), TSC__ZCHUNK at a time, as the trace buffers do; without
 * GCC or Clang (MSVC) from one static pool that all threads share, one
 * record at a time: MSVC has no asm label to bind calloc to a name of our
 * own, and a declaration of calloc itself may clash with <stdlib.h>'s. */
#if defined(TSC__GNU) || defined(_MSC_VER)
#define TSC__ZONES_ON 1
#endif
#if defined(TSC__GNU) && defined(TSC__ZONES_ON)
#define TSC__ZTRACE_ON 1
#define TSC__ZCHUNK 8
#else
#define TSC__ZCHUNK 1
#if defined(TSC__ZONES_ON)
#define TSC__ZPOOL 1024
#endif
#endif

/* A zone's record in one thread: only that thread writes it, so its hot
 * path takes no lock and makes no atomic read-modify-write. Every field
 * another thread reads (a print, a reset) is loaded and stored whole,
 * relaxed (plain moves on 64-bit targets), so a print while zones run
 * reads each counter whole, though not all of them at one instant. */
#define TSC__ZH_SUB 4  /* 16 buckets per power of two                      */
#define TSC__ZH_TOP 40 /* from 2^40 ticks (minutes) one last bucket        */
#define TSC__ZH_BUCKETS ((TSC__ZH_TOP - TSC__ZH_SUB + 1) << TSC__ZH_SUB)
struct tsc__zrec {
    uint32_t active; /* calls open now (recursion); its thread's alone    */
    uint32_t unused;
    uint64_t calls, total, self, all, min, max; /* ticks; total and self
                                      modulo 2^64, read as signed        */
    uint64_t hist[TSC__ZH_BUCKETS];
};
/* An open zone: its start, what nested zones took from it, and where it
 * was entered: its function's stack frame and its call site's variable
 * (two live zones of one frame have two variables). */
struct tsc__zframe {
    uint64_t t0;   /* bare counter read at entry                          */
    uint64_t kids; /* net ticks of its direct children (modulo 2^64)      */
    uint64_t desc; /* zones nested in it at any depth                     */
    struct tsc__zrec *rec;
    uintptr_t frame, site;
    struct tsc__zev *ev; /* its event in the thread's trace, or NULL      */
};
/* One event of a thread's zone trace: a slice [t0, t1] (t1 0 while open),
 * a flow's departure or arrival (t1: the id), an instant, a counter's
 * sample (t1: the value); stamps of the clock's counter. */
struct tsc__zev {
    uint64_t t0, t1;
    const char *name;
    uint32_t kind; /* TSC__ZE_*                                           */
    uint32_t in;   /* an arrival inside a traced zone                     */
};
#define TSC__ZE_SLICE 0u
#define TSC__ZE_OUT 1u
#define TSC__ZE_IN 2u /* (3 instant and 4 counter: TSC_INSTANT, TSC_COUNTER) */
#define TSC__ZFLOWS 64         /* flow names                                */
#define TSC__ZFLOW_BIT 0x80000000u /* a record's zone: a flow's index       */
#define TSC__ZFSLOTS 4096      /* departures waiting for their arrival      */
#define TSC__ZCACHE 256 /* a thread's name -> record cache, open addressing */
#define TSC__ZL_ZONES 0   /* calls not recorded: the table of names full    */
#define TSC__ZL_ALLOC 1   /* no memory for the thread's record              */
#define TSC__ZL_DEPTH 2   /* nested deeper than TSC_ZONES_DEPTH             */
#define TSC__ZL_LEFT 3    /* zones left without their exit (longjmp; return
                             or goto where no code runs on leaving a block) */
struct tsc__zthread {
    uint32_t depth; /* frames open: stack[1 .. depth]; stack[0] the root   */
    uint32_t unused;
    uint64_t e0, c; /* overhead (ticks): an empty zone; one nested zone    */
    uint64_t lost[4];
    const char *key[TSC__ZCACHE];
    struct tsc__zrec *val[TSC__ZCACHE];
    /* zone -> this thread's record (struct tsc__zrec *; 0 none yet), set
     * once by a CAS, which publishes the record to a print's acquire load */
    uintptr_t map[TSC_ZONES_MAX];
    struct tsc__zframe stack[TSC_ZONES_DEPTH + 1];
    /* the trace: events [0, trn) of trcap, allocated at the first event */
    struct tsc__zev *ev;
    uint64_t trn, trcap, trdropped;
    uint32_t trstate; /* 0 none yet, 1 allocated, 2 failed, 3 measuring  */
    uint32_t unused2;
    const char *tname;
    const char *fkey[16]; /* flow name -> index cache                       */
    int fidx[16];
    uintptr_t fmap[TSC__ZFLOWS]; /* flow -> this thread's record, as map  */
    /* its records, handed out of blocks of TSC__ZCHUNK allocated as needed */
    struct tsc__zrec *rnext; /* the current block's next free record       */
    uint32_t rleft;          /* free records left in it                    */
    uint32_t rfailed;        /* 1 once an allocation failed: not retried   */
};
/* A departure waiting for its arrival, under the slot's lock. */
struct tsc__zslot {
    uint32_t lock, key; /* key: flow index + 1, 0 free                   */
    uint64_t id, t;
};
struct tsc__zstate {
    uint32_t nthreads, npool;      /* blocks, and pool records, handed out */
    uint32_t refused;              /* threads past TSC_ZONES_THREADS       */
    uint32_t over;                 /* overhead: 0 unknown, 1 measuring, 2 set */
    uint64_t e0, c;
    FILE *at_exit;                 /* tsc_zones_print_at_exit's stream     */
    uint32_t at_exit_set, unused;
    uintptr_t name[TSC_ZONES_MAX]; /* const char *, claimed by CAS; 0 free */
    uint32_t tron;                 /* zones traced                         */
    uint32_t flost[3];             /* flows: overwritten, unmatched, names */
    size_t trbytes;                /* each new trace buffer's size         */
    uintptr_t fname[TSC__ZFLOWS];  /* flow names, as name                  */
    struct tsc__zslot slot[TSC__ZFSLOTS];
    struct tsc__zthread th[TSC_ZONES_THREADS];
#if defined(TSC__ZPOOL)
    struct tsc__zrec pool[TSC__ZPOOL];
#endif
};
#define tsc__z TSC__ZVNAME(tsc__z_v)
TSC__SHARED_EXTERN struct tsc__zstate tsc__z;
#if TSC__IMPL
TSC__SHARED struct tsc__zstate tsc__z = TSC__ZERO;
#endif

/* Relaxed whole loads and stores of the fields a print or reset reads;
 * plain volatile ones where 64-bit atomics are not cheap. */
#if defined(TSC__GNU) && UINTPTR_MAX > 0xFFFFFFFFu
#define TSC__ZLD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define TSC__ZST(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#else
#define TSC__ZLD(p) (*TSC__CAST(const volatile uint64_t *, p))
#define TSC__ZST(p, v) (*TSC__CAST(volatile uint64_t *, p) = (v))
#endif
#define TSC__ZADD(p, v) TSC__ZST((p), TSC__ZLD(p) + (v))
/* The thread's block, 1 + its index in the bits above the flags of
 * tsc__tls (0: none yet; all ones: refused, the blocks were used up).
 * Zones need thread-local storage: without it they record nothing. */
#define TSC__TLS_ZSHIFT 8
#define TSC__ZREFUSED (UINT32_MAX >> TSC__TLS_ZSHIFT)

TSC__COLD uintptr_t tsc__zone_enter_slow(const char *name, uintptr_t frame, uintptr_t site);
TSC__COLD int tsc__zone_unwind(struct tsc__zthread *tb, const struct tsc__zframe *f);
TSC__COLD void tsc__zone_abandon(struct tsc__zthread *tb, uintptr_t frame, uintptr_t site);
TSC__COLD struct tsc__zev *tsc__zone_trace_full(struct tsc__zthread *tb, const char *name, uint32_t kind);

/* A slot in the thread's trace for an event of that kind, or NULL (the
 * buffer full: counted; or none to be had). The first one allocates. */
TSC__HOT struct tsc__zev *tsc__zone_trace_ev(struct tsc__zthread *tb, const char *name, uint32_t kind)
{
    struct tsc__zev *e;
    uint64_t n = tb->trn;
    if (TSC__UNLIKELY(n >= tb->trcap))
        return tsc__zone_trace_full(tb, name, kind);
    tb->trn = n + 1;
    e = &tb->ev[n];
    e->name = name;
    e->kind = kind;
    e->in = 0;
    e->t1 = 0;
    return e;
}

/* The hot path. Enter: the thread's block, its cache (a load and a
 * compare after a name's first use in the thread), a frame; the counter
 * last. Exit: the counter first, then the sums. */
TSC__HOT struct tsc__zthread *tsc__zone_self(void)
{
    return &tsc__z.th[(tsc__tls >> TSC__TLS_ZSHIFT) - 1u];
}
TSC__HOT uint32_t tsc__zone_hash(const char *name)
{
    uint64_t p = TSC__RCAST(uintptr_t, name);
    return TSC__CAST(uint32_t, (p * UINT64_C(0x9E3779B97F4A7C15)) >> 56); /* 0 .. 255 */
}
/* A zone entered where the open one on top lies in a deeper frame (its
 * function returned, or was left by longjmp), or where this call site is
 * open already in the same frame (recursion aside, that one was left), is
 * entered past zones left without their exit: those are closed first. */
TSC__HOT uintptr_t tsc__zone_push(struct tsc__zthread *tb, struct tsc__zrec *r, uintptr_t frame,
                                  uintptr_t site, const char *name)
{
    uint32_t d;
    struct tsc__zframe *f;
    if (TSC__UNLIKELY(tb->stack[tb->depth].frame < frame || r->active != 0))
        tsc__zone_abandon(tb, frame, site);
    d = tb->depth + 1;
    if (TSC__UNLIKELY(d > TSC_ZONES_DEPTH)) {
        TSC__ZADD(&tb->lost[TSC__ZL_DEPTH], 1);
        return 0;
    }
    tb->depth = d;
    f = &tb->stack[d];
    f->rec = r;
    f->kids = 0;
    f->desc = 0;
    f->frame = frame;
    f->site = site;
    f->ev = TSC__NULL;
    if (TSC__UNLIKELY(TSC__RLX32(&tsc__z.tron)))
        f->ev = tsc__zone_trace_ev(tb, name, TSC__ZE_SLICE);
    r->active++;
    f->t0 = tsc__clock_ticks_bare();
    return TSC__RCAST(uintptr_t, f);
}
TSC__HOT uintptr_t tsc__zone_enter(const char *name, uintptr_t frame, uintptr_t site)
{
#if defined(TSC__ZONES_ON)
    uint32_t t = (tsc__tls >> TSC__TLS_ZSHIFT) - 1u, h;
    struct tsc__zthread *tb;
    if (TSC__LIKELY(t < TSC_ZONES_THREADS)) {
        tb = &tsc__z.th[t];
        h = tsc__zone_hash(name);
        if (TSC__LIKELY(tb->key[h] == name))
            return tsc__zone_push(tb, tb->val[h], frame, site, name);
    }
#endif
    return tsc__zone_enter_slow(name, frame, site);
}
/* The bucket of v: exact below 32, else 16 per power of two, each within
 * 1/32 of its values (as tsc__bucket, with 4 bits kept instead of 6). */
TSC__HOT uint32_t tsc__zone_bucket(uint64_t v)
{
    int s;
    if (TSC__UNLIKELY(v >> TSC__ZH_TOP))
        return TSC__ZH_BUCKETS - 1;
    s = tsc__top_bit(v | (1u << TSC__ZH_SUB)) - TSC__ZH_SUB;
    return (TSC__CAST(uint32_t, s) << TSC__ZH_SUB) + TSC__CAST(uint32_t, v >> s);
}
TSC__HOT void tsc__zone_exit(uintptr_t fp)
{
    uint64_t t1 = tsc__clock_ticks_bare(), net, v;
    struct tsc__zframe *f = TSC__RCAST(struct tsc__zframe *, fp), *up;
    struct tsc__zthread *tb;
    struct tsc__zrec *r;
    uint32_t b;
    if (TSC__UNLIKELY(!f))
        return; /* not recorded (counted where it was refused) */
    tb = tsc__zone_self();
    if (TSC__UNLIKELY(&tb->stack[tb->depth] != f) && !tsc__zone_unwind(tb, f))
        return;
    tb->depth--;
    if (f->ev) { /* traced: the slice's stamps, set whole at its end */
        f->ev->t0 = f->t0;
        f->ev->t1 = t1;
    }
    r = f->rec;
    /* Net of the overhead: this zone's own, and that of each zone nested
     * in it, so a parent's self keeps none of its children's cost. */
    net = t1 - f->t0 - tb->e0 - f->desc * tb->c;
    up = f - 1;
    TSC__ZADD(&up->kids, net);
    up->desc += f->desc + 1;
    TSC__ZADD(&r->calls, 1);
    TSC__ZADD(&r->self, net - f->kids);
    if (--r->active == 0) /* the outermost call of a recursion counts */
        TSC__ZADD(&r->total, net);
    v = net >> 63 ? 0 : net;
    TSC__ZADD(&r->all, v);
    if (v < TSC__ZLD(&r->min))
        TSC__ZST(&r->min, v);
    if (v > TSC__ZLD(&r->max))
        TSC__ZST(&r->max, v);
    b = tsc__zone_bucket(v);
    TSC__ZADD(&r->hist[b], 1);
}
/* The exit where the language runs it on leaving the block: a cleanup
 * (GCC, Clang) or a destructor (C++). */
TSC__HOT void tsc__zone_leave(uintptr_t *fp) { tsc__zone_exit(*fp); }
#if defined(__cplusplus)
#define tsc__zone_guard TSC__VNAME(tsc__zone_guard_v)
namespace {
struct tsc__zone_guard {
    uintptr_t f;
    int once;
    explicit tsc__zone_guard(uintptr_t fp) : f(fp), once(1) {}
    ~tsc__zone_guard() { tsc__zone_exit(f); }
    tsc__zone_guard(const tsc__zone_guard &) = delete;
    tsc__zone_guard &operator=(const tsc__zone_guard &) = delete;
};
}
#endif

/* Pointer-sized CAS and acquire load, for the table of names. */
#if defined(TSC__GNU)
#if TSC__IMPL
TSC__FN uintptr_t tsc__zld_ptr(const uintptr_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
TSC__FN int tsc__zcas_ptr(uintptr_t *p, uintptr_t expect, uintptr_t want)
{
    return __atomic_compare_exchange_n(p, &expect, want, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
#endif
#elif defined(_WIN64)
#if TSC__IMPL
TSC__FN int tsc__zcas_ptr(uintptr_t *p, uintptr_t expect, uintptr_t want)
{
    return _InterlockedCompareExchange64(TSC__RCAST(volatile long long *, p), TSC__CAST(long long, want),
                                         TSC__CAST(long long, expect)) == TSC__CAST(long long, expect);
}
TSC__FN uintptr_t tsc__zld_ptr(const uintptr_t *p)
{
    return TSC__CAST(uintptr_t, _InterlockedOr64(TSC__RCAST(volatile long long *, TSC__CCAST(uintptr_t *, p)), 0));
}
#endif
#else
#if TSC__IMPL
TSC__FN int tsc__zcas_ptr(uintptr_t *p, uintptr_t expect, uintptr_t want)
{
    return _InterlockedCompareExchange(TSC__RCAST(volatile long *, p), TSC__CAST(long, want),
                                       TSC__CAST(long, expect)) == TSC__CAST(long, expect);
}
TSC__FN uintptr_t tsc__zld_ptr(const uintptr_t *p)
{
    return TSC__CAST(uintptr_t, _InterlockedOr(TSC__RCAST(volatile long *, TSC__CCAST(uintptr_t *, p)), 0));
}
#endif
#endif

#if TSC__IMPL
/* n < limit, claimed: the next index of *count, or -1 when all are out. */
TSC__FN int tsc__zone_claim(uint32_t *count, uint32_t limit)
{
    uint32_t n = TSC__LD32(count);
    while (n < limit) {
        if (tsc__cas32(count, n, n + 1))
            return TSC__CAST(int, n);
        n = TSC__LD32(count);
    }
    return -1;
}

/* The zone named name (by its text: the same name at two places, or in
 * two units, is one zone), registered on its first use: linear probing
 * from the text's hash, a slot taken by one CAS. -1 when the table is
 * full. */
TSC__FN int tsc__zone_find_in(uintptr_t *tab, uint32_t size, const char *name)
{
    uint32_t h = 2166136261u, i, k;
    const unsigned char *s = TSC__RCAST(const unsigned char *, name);
    uintptr_t v, me = TSC__RCAST(uintptr_t, name);
    for (; *s; s++)
        h = (h ^ *s) * 16777619u; /* FNV-1a */
    for (k = 0; k < size; k++) {
        i = (h + k) % size;
        v = tsc__zld_ptr(&tab[i]);
        if (v == 0) {
            if (tsc__zcas_ptr(&tab[i], 0, me))
                return TSC__CAST(int, i);
            v = tsc__zld_ptr(&tab[i]);
        }
        if (v == me || strcmp(TSC__RCAST(const char *, v), name) == 0)
            return TSC__CAST(int, i);
    }
    return -1;
}
TSC__FN int tsc__zone_find(const char *name) { return tsc__zone_find_in(tsc__z.name, TSC_ZONES_MAX, name); }

/* Nearest rank p of a histogram of n samples, clamped to [mn, mx]. */
TSC__FN uint64_t tsc__zone_pct(const uint64_t *h, uint64_t n, double p, uint64_t mn, uint64_t mx)
{
    uint64_t rank = tsc__rank(n, p), seen = 0, mid;
    uint32_t i;
    int s;
    for (i = 0; i < TSC__ZH_BUCKETS - 1; i++) {
        seen += h[i];
        if (seen >= rank)
            break;
    }
    if (i < (2u << TSC__ZH_SUB)) {
        mid = i;
    } else {
        s = TSC__CAST(int, i >> TSC__ZH_SUB) - 1;
        mid = (TSC__CAST(uint64_t, (i & 15u) | 16u) << s) + ((UINT64_C(1) << s) - 1) / 2;
    }
    return mid < mn ? mn : mid > mx ? mx : mid;
}

/* The overhead, measured with the hot path itself (cache lookup
 * included) on records of its own, under names no zone can have: the
 * median of 2000 empty zones (what a call's net time must lose), and the
 * median of 2000 zones holding one empty zone, less that (what each zone
 * nested in another adds to it). Medians, not minima: two bare counter
 * reads can come out nearly together, and the fastest would leave the
 * typical call's overhead in the figures. */
TSC__FN void tsc__zone_measure(struct tsc__zthread *tb, uint64_t *e0, uint64_t *c)
{
    static const char ka[] = "", kp[] = ""; /* two addresses, one per unit */
    struct tsc__zrec r[2]; /* 10 KiB of stack, once per thread */
    uint64_t m[2];
    uintptr_t fp = 0, here = TSC__FRAME();
    uint32_t h;
    int i, k;
    uint32_t st = tb->trstate;
    memset(r, 0, sizeof r);
    tb->e0 = tb->c = 0;
    tb->trstate = 3; /* (the empty zones measured are not traced) */
    for (k = 0; k < 2; k++) { /* the cache is empty: the first free slot */
        r[k].min = UINT64_MAX;
        for (h = tsc__zone_hash(k ? kp : ka); tb->key[h]; h = (h + 1) % TSC__ZCACHE)
            ;
        tb->key[h] = k ? kp : ka;
        tb->val[h] = &r[k];
    }
    for (i = 0; i < 2000; i++)
        tsc__zone_exit(tsc__zone_enter(ka, here, TSC__RCAST(uintptr_t, &m[0])));
#if TSC_ZONES_DEPTH > 1 /* (else no zone nests: c is never used) */
    for (i = 0; i < 2000; i++) {
        fp = tsc__zone_enter(kp, here, TSC__RCAST(uintptr_t, &m[1]));
        tsc__zone_exit(tsc__zone_enter(ka, here, TSC__RCAST(uintptr_t, &m[0])));
        tsc__zone_exit(fp);
    }
#endif
    (void)fp;
    for (k = 0; k < 2; k++)
        m[k] = tsc__zone_pct(r[k].hist, r[k].calls, 50, r[k].min, r[k].max);
    *e0 = m[0];
    *c = m[1] > m[0] ? m[1] - m[0] : 0;
    memset(tb->key, 0, sizeof tb->key);
    TSC__ZST(&tb->stack[0].kids, 0);
    tb->stack[0].desc = 0;
    tb->trstate = st;
}

/* A thread's first zone: a block of the pool, the clock set up (as
 * tsc_trace_init does) and the overhead, measured by the first thread;
 * one that finds it being measured measures for itself. 0 when refused. */
TSC__FN struct tsc__zthread *tsc__zone_thread(void)
{
    struct tsc__zthread *tb;
    uint64_t e0, c;
    int i;
    uint32_t t = tsc__tls >> TSC__TLS_ZSHIFT;
    if (t != 0)
        return t == TSC__ZREFUSED ? TSC__CAST(struct tsc__zthread *, TSC__NULL) : tsc__zone_self();
    i = tsc__zone_claim(&tsc__z.nthreads, TSC_ZONES_THREADS);
    if (i < 0) {
        tsc__tls |= TSC__ZREFUSED << TSC__TLS_ZSHIFT;
        (void)tsc__zone_claim(&tsc__z.refused, UINT32_MAX);
        return TSC__CAST(struct tsc__zthread *, TSC__NULL);
    }
    (void)tsc_now_ns();
    tsc__tls |= TSC__CAST(uint32_t, i + 1) << TSC__TLS_ZSHIFT;
    tb = &tsc__z.th[i];
    tb->stack[0].frame = UINTPTR_MAX; /* above every frame */
    if (TSC__LD32(&tsc__z.over) == 2) {
        e0 = tsc__z.e0;
        c = tsc__z.c;
    } else {
        tsc__zone_measure(tb, &e0, &c);
        if (tsc__cas32(&tsc__z.over, 0, 1)) {
            tsc__z.e0 = e0;
            tsc__z.c = c;
            TSC__ST32(&tsc__z.over, 2);
        }
    }
    tb->e0 = e0;
    tb->c = c;
    return tb;
}

/* calloc, bound by name as atexit is (below): no <stdlib.h> in users' files. */
#if defined(TSC__ZTRACE_ON)
#if defined(__APPLE__) || (defined(_WIN32) && (defined(__i386__) || defined(_M_IX86)))
extern void *tsc__calloc(size_t, size_t) __asm__("_calloc");
#else
extern void *tsc__calloc(size_t, size_t) __asm__("calloc");
#endif
#endif

/* A block of TSC__ZCHUNK zeroed records, never freed (a thread's records
 * outlive it); NULL where there is no memory, or the pool is used up. */
TSC__FN struct tsc__zrec *tsc__zone_block(void)
{
#if defined(TSC__ZPOOL)
    int i;
#endif
    if (TSC_TIMER_TEST_ALLOC_HOOK(TSC__ZCHUNK * sizeof(struct tsc__zrec)))
        return TSC__CAST(struct tsc__zrec *, TSC__NULL);
#if defined(TSC__ZPOOL)
    i = tsc__zone_claim(&tsc__z.npool, TSC__ZPOOL);
    return i < 0 ? TSC__CAST(struct tsc__zrec *, TSC__NULL) : &tsc__z.pool[i];
#elif defined(TSC__ZTRACE_ON)
    return TSC__CAST(struct tsc__zrec *, tsc__calloc(TSC__ZCHUNK, sizeof(struct tsc__zrec)));
#else
    return TSC__CAST(struct tsc__zrec *, TSC__NULL);
#endif
}

/* The thread's record in *slot (its map or fmap), made on first use out
 * of its current block or a new one, and published by a CAS (only this
 * thread sets its slots) to a print's acquire load. NULL, counted, where
 * no memory could be had: a failed allocation is not retried, and the
 * thread's zones that have no record yet stay unrecorded. */
TSC__FN struct tsc__zrec *tsc__zone_rec(struct tsc__zthread *tb, uintptr_t *slot)
{
    struct tsc__zrec *r = TSC__RCAST(struct tsc__zrec *, *slot);
    if (r)
        return r;
    if (tb->rleft == 0) {
        if (tb->rfailed || !(tb->rnext = tsc__zone_block())) {
            tb->rfailed = 1;
            TSC__ZADD(&tb->lost[TSC__ZL_ALLOC], 1);
            return TSC__CAST(struct tsc__zrec *, TSC__NULL);
        }
        tb->rleft = TSC__ZCHUNK;
    }
    r = tb->rnext++;
    tb->rleft--;
    TSC__ZST(&r->min, UINT64_MAX);
    (void)tsc__zcas_ptr(slot, 0, TSC__RCAST(uintptr_t, r));
    return r;
}

/* A name not in the thread's cache (its first use in the thread, or
 * pushed out by others): the zone, the thread's record of it, a place in
 * the cache. What cannot be had is counted and the zone not recorded: its
 * time stays in its parent's self. */
TSC__COLD uintptr_t tsc__zone_enter_slow(const char *name, uintptr_t frame, uintptr_t site)
{
#if defined(TSC__ZONES_ON)
    struct tsc__zthread *tb = tsc__zone_thread();
    struct tsc__zrec *r;
    uint32_t h, k, free_slot = TSC__ZCACHE;
    int z, i;
    if (!tb)
        return 0;
    h = tsc__zone_hash(name);
    for (k = 0; k < TSC__ZCACHE; k++) {
        i = TSC__CAST(int, (h + k) % TSC__ZCACHE);
        if (tb->key[i] == name)
            return tsc__zone_push(tb, tb->val[i], frame, site, name);
        if (!tb->key[i]) {
            free_slot = TSC__CAST(uint32_t, i);
            break;
        }
    }
    z = tsc__zone_find(name);
    if (z < 0) {
        TSC__ZADD(&tb->lost[TSC__ZL_ZONES], 1);
        return 0;
    }
    if (!(r = tsc__zone_rec(tb, &tb->map[z])))
        return 0;
    if (free_slot < TSC__ZCACHE) { /* a full cache: every call comes here */
        tb->val[free_slot] = r;
        tb->key[free_slot] = name;
    }
    return tsc__zone_push(tb, r, frame, site, name);
#else
    (void)name;
    (void)frame;
    (void)site;
    return 0;
#endif
}

/* --- zones traced: buffers, flows, marks -------------------------------- */

/* The thread's trace has no room: its first event allocates the buffer
 * (once: a failed allocation is not retried), later ones are counted. */
TSC__COLD struct tsc__zev *tsc__zone_trace_full(struct tsc__zthread *tb, const char *name, uint32_t kind)
{
#if defined(TSC__ZTRACE_ON)
    size_t bytes = __atomic_load_n(&tsc__z.trbytes, __ATOMIC_RELAXED);
    void *p;
    if (tb->trstate == 3)
        return TSC__CAST(struct tsc__zev *, TSC__NULL);
    if (tb->trstate == 0) {
        p = bytes >= sizeof(struct tsc__zev) && !TSC_TIMER_TEST_ALLOC_HOOK(bytes) ? tsc__calloc(1, bytes)
                                                                                   : TSC__NULL;
        tb->trstate = p ? 1u : 2u;
        if (p) {
            tb->ev = TSC__CAST(struct tsc__zev *, p);
            tb->trcap = bytes / sizeof(struct tsc__zev);
            return tsc__zone_trace_ev(tb, name, kind);
        }
    }
#else
    (void)name;
    (void)kind;
#endif
    tb->trdropped++;
    return TSC__CAST(struct tsc__zev *, TSC__NULL);
}

/* A flow's index, through the thread's cache; -1 when the names are used up. */
TSC__FN int tsc__flow_index(struct tsc__zthread *tb, const char *name)
{
    uint32_t h = tsc__zone_hash(name) >> 4;
    int i;
    if (tb->fkey[h] == name)
        return tb->fidx[h];
    i = tsc__zone_find_in(tsc__z.fname, TSC__ZFLOWS, name);
    if (i < 0) {
        (void)tsc__zone_claim(&tsc__z.flost[2], UINT32_MAX);
        return -1;
    }
    tb->fkey[h] = name;
    tb->fidx[h] = i;
    return i;
}

/* The departure's slot, locked (a few stores are done under it); NULL
 * where it stayed taken (its holder preempted) for 1000 tries. */
TSC__FN struct tsc__zslot *tsc__flow_lock(int fz, uint64_t id)
{
    uint64_t k = (id + TSC__CAST(uint64_t, fz) * UINT64_C(0x9E3779B97F4A7C15)) * UINT64_C(0xBF58476D1CE4E5B9);
    struct tsc__zslot *s = &tsc__z.slot[(k >> 40) % TSC__ZFSLOTS];
    int n;
    for (n = 0; n < 1000; n++)
        if (TSC__RLX32(&s->lock) == 0 && tsc__cas32(&s->lock, 0, 1))
            return s;
    return TSC__CAST(struct tsc__zslot *, TSC__NULL);
}

/* A flow mark's event in the thread's trace. */
TSC__FN void tsc__flow_trace(struct tsc__zthread *tb, const char *name, uint32_t kind, uint64_t t,
                             uint64_t v)
{
    struct tsc__zev *e;
    struct tsc__zframe *f = &tb->stack[tb->depth];
    if (!TSC__RLX32(&tsc__z.tron) || !(e = tsc__zone_trace_ev(tb, name, kind)))
        return;
    e->t0 = t;
    e->t1 = v;
    e->in = tb->depth > 0 && f->ev;
}

/* The latency of one arrival (ns, as the trace converts both stamps) into
 * the thread's record of the flow. */
TSC__FN void tsc__flow_add(struct tsc__zthread *tb, int fz, uint64_t ns)
{
    struct tsc__zrec *r = tsc__zone_rec(tb, &tb->fmap[fz]);
    if (!r)
        return;
    TSC__ZADD(&r->calls, 1);
    TSC__ZADD(&r->all, ns);
    if (ns < TSC__ZLD(&r->min))
        TSC__ZST(&r->min, ns);
    if (ns > TSC__ZLD(&r->max))
        TSC__ZST(&r->max, ns);
    TSC__ZADD(&r->hist[tsc__zone_bucket(ns)], 1);
}

/* A departure (in 0) leaves its stamp in its slot; an arrival takes it
 * out and records the latency. Both go into the trace. */
TSC__API void tsc__flow(const char *name, uint64_t id, int in)
{
#if defined(TSC__ZTRACE_ON)
    struct tsc__zthread *tb = tsc__zone_thread();
    struct tsc__zslot *s;
    uint64_t t, t0 = 0, a, b;
    uint32_t key;
    int fz, found = 0;
    if (!tb || (fz = tsc__flow_index(tb, name)) < 0)
        return;
    t = tsc_clock_ticks();
    key = TSC__CAST(uint32_t, fz) + 1u;
    s = tsc__flow_lock(fz, id);
    if (!in && (!s || s->key)) /* a departure still waiting is overwritten: lost */
        (void)tsc__zone_claim(&tsc__z.flost[0], UINT32_MAX);
    if (s && !in) {
        s->key = key;
        s->id = id;
        s->t = t;
    } else if (s && s->key == key && s->id == id) {
        found = 1;
        t0 = s->t;
        s->key = 0;
    }
    if (s)
        TSC__ST32(&s->lock, 0);
    if (in && !found) {
        (void)tsc__zone_claim(&tsc__z.flost[1], UINT32_MAX);
        return;
    }
    if (in) {
        a = tsc_clock_ticks_to_ns(t0);
        b = tsc_clock_ticks_to_ns(t);
        tsc__flow_add(tb, fz, b > a ? b - a : 0);
    }
    tsc__flow_trace(tb, name, in ? TSC__ZE_IN : TSC__ZE_OUT, t, id);
#else
    (void)name;
    (void)id;
    (void)in;
#endif
}

TSC__API void tsc__zone_mark(const char *name, int64_t value, uint32_t kind)
{
#if defined(TSC__ZTRACE_ON)
    struct tsc__zthread *tb;
    struct tsc__zev *e;
    if (!TSC__RLX32(&tsc__z.tron) || !(tb = tsc__zone_thread()))
        return;
    if ((e = tsc__zone_trace_ev(tb, name, kind)) != TSC__NULL) {
        e->t0 = tsc_clock_ticks();
        e->t1 = TSC__CAST(uint64_t, value);
    }
#else
    (void)name;
    (void)value;
    (void)kind;
#endif
}

TSC__API int tsc_zones_trace(size_t bytes_per_thread)
{
#if defined(TSC__ZTRACE_ON)
    if (bytes_per_thread == 0) {
        TSC__ST32(&tsc__z.tron, 0);
        return 0;
    }
    if (bytes_per_thread < sizeof(struct tsc__zev))
        return -EINVAL;
    (void)tsc_now_ns(); /* the clock set up now, not in a traced zone */
    __atomic_store_n(&tsc__z.trbytes, bytes_per_thread, __ATOMIC_RELAXED);
    TSC__ST32(&tsc__z.tron, 1);
    return 0;
#else
    (void)bytes_per_thread;
    return -ENOSYS;
#endif
}

TSC__API int tsc_zones_thread_name(const char *name)
{
#if defined(TSC__ZONES_ON)
    struct tsc__zthread *tb;
    if (!name)
        return -EINVAL;
    if (!(tb = tsc__zone_thread()))
        return -EAGAIN;
    tb->tname = name;
    return 0;
#else
    (void)name;
    return -ENOSYS;
#endif
}

/* Closes the zones above depth d, left without their exit: unrecorded and
 * counted. What their nested zones recorded passes to the zone below, so
 * no time counts twice; their own time stays in that zone's self. */
TSC__FN void tsc__zone_close_to(struct tsc__zthread *tb, uint32_t d)
{
    struct tsc__zframe *f;
    for (; tb->depth > d; tb->depth--) {
        f = &tb->stack[tb->depth];
        TSC__ZADD(&f[-1].kids, f->kids);
        f[-1].desc += f->desc;
        f->rec->active--;
        TSC__ZADD(&tb->lost[TSC__ZL_LEFT], 1);
    }
}
/* A zone ends while zones above it are open: they were left without their
 * exit. 0 where f is not open (it then records nothing). */
TSC__COLD int tsc__zone_unwind(struct tsc__zthread *tb, const struct tsc__zframe *f)
{
    uint32_t d = tb->depth;
    while (d > 0 && &tb->stack[d] != f)
        d--;
    if (d == 0)
        return 0;
    tsc__zone_close_to(tb, d);
    return 1;
}
/* A zone enters at (frame, site): the same call site open in this very
 * frame was left (recursion has a frame of its own), with all above it;
 * zones in deeper frames were left when their functions returned. */
TSC__COLD void tsc__zone_abandon(struct tsc__zthread *tb, uintptr_t frame, uintptr_t site)
{
    uint32_t d = tb->depth, k;
    for (k = d; k > 0 && tb->stack[k].frame <= frame; k--)
        if (tb->stack[k].frame == frame && tb->stack[k].site == site) {
            d = k - 1;
            break;
        }
    while (d > 0 && tb->stack[d].frame < frame)
        d--;
    tsc__zone_close_to(tb, d);
}
/* Before a print: the printing thread's zones in frames at or below this
 * function's (never inlined, below the print's caller) were left: their
 * functions returned. */
TSC__OUTLINE void tsc__zones_sweep(void)
{
    uint32_t t = (tsc__tls >> TSC__TLS_ZSHIFT) - 1u, d;
    struct tsc__zthread *tb;
    uintptr_t here = TSC__FRAME();
    if (t >= TSC_ZONES_THREADS)
        return;
    tb = &tsc__z.th[t];
    for (d = tb->depth; d > 0 && tb->stack[d].frame <= here; d--)
        ;
    tsc__zone_close_to(tb, d);
}
#endif

/* One zone merged over the threads, in ticks (net of the overhead). */
struct tsc__zrow {
    const char *name;
    uint64_t calls, total, self, all, min, max, p50, p99;
    uint32_t threads;
};
/* What the rows leave out, and the root zones' total; the flows' rows
 * (latencies in ns) and what they leave out. */
struct tsc__zsum {
    uint64_t root, lost[4];
    uint32_t threads, refused, zones, nflows;
    uint32_t flost[3];
    struct tsc__zrow flows[TSC__ZFLOWS];
};

#if TSC__IMPL
/* A signed sum, floored at 0 for display. */
TSC__FN uint64_t tsc__zone_pos(uint64_t v) { return v >> 63 ? 0 : v; }

/* Thread i's record of key (a zone, or TSC__ZFLOW_BIT | a flow), or NULL;
 * the acquire load sees the record as its thread set it up. */
TSC__FN struct tsc__zrec *tsc__zone_rec_of(uint32_t i, uint32_t key)
{
    const struct tsc__zthread *tb = &tsc__z.th[i];
    const uintptr_t *slot = key & TSC__ZFLOW_BIT ? &tb->fmap[key & ~TSC__ZFLOW_BIT] : &tb->map[key];
    return TSC__RCAST(struct tsc__zrec *, tsc__zld_ptr(slot));
}

/* The records of key merged over the threads into *row; 0 where it has
 * no calls. */
TSC__FN int tsc__zone_merge(uint32_t key, const char *name, struct tsc__zrow *row)
{
    uint64_t h[TSC__ZH_BUCKETS], v;
    uint32_t nth = TSC__LD32(&tsc__z.nthreads), i;
    struct tsc__zrec *r;
    int j;
    memset(row, 0, sizeof *row);
    memset(h, 0, sizeof h);
    row->name = name;
    row->min = UINT64_MAX;
    for (i = 0; i < nth && i < TSC_ZONES_THREADS; i++) {
        if (!(r = tsc__zone_rec_of(i, key)) || !(v = TSC__ZLD(&r->calls)))
            continue;
        row->calls += v;
        row->threads++;
        row->total += TSC__ZLD(&r->total);
        row->self += TSC__ZLD(&r->self);
        row->all += TSC__ZLD(&r->all);
        v = TSC__ZLD(&r->min);
        row->min = v < row->min ? v : row->min;
        v = TSC__ZLD(&r->max);
        row->max = v > row->max ? v : row->max;
        for (j = 0; j < TSC__ZH_BUCKETS; j++)
            h[j] += TSC__ZLD(&r->hist[j]);
    }
    if (!row->calls)
        return 0;
    row->total = tsc__zone_pos(row->total);
    row->self = tsc__zone_pos(row->self);
    row->min = row->min > row->max ? row->max : row->min; /* (a reset in between) */
    for (v = 0, j = 0; j < TSC__ZH_BUCKETS; j++)
        v += h[j];
    row->p50 = tsc__zone_pct(h, v, 50, row->min, row->max);
    row->p99 = tsc__zone_pct(h, v, 99, row->min, row->max);
    return 1;
}

/* Merges every thread's records into rows (zones run at least once),
 * sorted by self time, most first, and the flows' into sum->flows.
 * Returns the number of rows. */
TSC__FN int tsc__zones_collect(struct tsc__zrow *rows, struct tsc__zsum *sum)
{
    uint64_t root = 0;
    uintptr_t nm;
    uint32_t nth = TSC__LD32(&tsc__z.nthreads), i, z;
    struct tsc__zrow row;
    int n = 0, k;
    tsc__zones_sweep();
    memset(sum, 0, sizeof *sum);
    for (i = 0; i < nth && i < TSC_ZONES_THREADS; i++) {
        root += TSC__ZLD(&tsc__z.th[i].stack[0].kids);
        for (k = 0; k < 4; k++)
            sum->lost[k] += TSC__ZLD(&tsc__z.th[i].lost[k]);
    }
    sum->root = tsc__zone_pos(root);
    sum->threads = nth;
    sum->refused = TSC__LD32(&tsc__z.refused);
    for (z = 0; z < TSC_ZONES_MAX; z++) {
        if (!(nm = tsc__zld_ptr(&tsc__z.name[z])))
            continue;
        sum->zones++;
        if (!tsc__zone_merge(z, TSC__RCAST(const char *, nm), &row))
            continue;
        for (k = n; k > 0 && rows[k - 1].self < row.self; k--)
            rows[k] = rows[k - 1];
        rows[k] = row;
        n++;
    }
    for (z = 0; z < TSC__ZFLOWS; z++) /* flows, in the table's order */
        if ((nm = tsc__zld_ptr(&tsc__z.fname[z])) &&
            tsc__zone_merge(TSC__ZFLOW_BIT | z, TSC__RCAST(const char *, nm), &sum->flows[sum->nflows]))
            sum->nflows++;
    for (k = 0; k < 3; k++)
        sum->flost[k] = TSC__LD32(&tsc__z.flost[k]);
    return n;
}

/* Ticks as whole nanoseconds; a share of the root zones' total. */
TSC__FN uint64_t tsc__zns(uint64_t ticks) { return tsc_ticks_to_ns(ticks); }
TSC__FN double tsc__zpct(uint64_t self, const struct tsc__zsum *s)
{
    return s->root ? 100.0 * TSC__CAST(double, self) / TSC__CAST(double, s->root) : 0.0;
}

/* "not recorded: ..." with what was lost, or nothing when nothing was. */
TSC__FN void tsc__zones_lost(FILE *out, const struct tsc__zsum *s, const char *prefix)
{
    if (!(s->lost[0] | s->lost[1] | s->lost[2] | s->lost[3] | s->refused))
        return;
    fprintf(out, "%snot recorded: %" PRIu64 " calls past TSC_ZONES_MAX (%d zones), %" PRIu64
            " past TSC_ZONES_DEPTH (%d), %" PRIu64 " with no memory for their thread's record, %"
            PRIu64 " zones left without their exit (time kept in the zone around), %" PRIu32
            " threads past TSC_ZONES_THREADS (%d)\n", prefix, s->lost[0], TSC_ZONES_MAX,
            s->lost[2], TSC_ZONES_DEPTH, s->lost[1], s->lost[3], s->refused, TSC_ZONES_THREADS);
}

TSC__FN void tsc__flows_lost(FILE *out, const struct tsc__zsum *s, const char *prefix);
/* The flows' hand-over latencies, and the flows not matched. */
TSC__FN void tsc__flows_print(FILE *out, const struct tsc__zsum *s, int w)
{
    const struct tsc__zrow *f;
    uint32_t i;
    if (s->nflows)
        fprintf(out, "\n  %-*s %10s %12s %12s %12s %12s %12s %7s\n", w, "flow", "count", "min", "mean",
                "p50", "p99", "max", "threads");
    for (i = 0; i < s->nflows; i++) {
        f = &s->flows[i];
        fprintf(out, "  %-*.*s %10" PRIu64, w, w, f->name, f->calls);
        tsc__print_ns(out, f->min);
        tsc__print_ns(out, f->all / f->calls);
        tsc__print_ns(out, f->p50);
        tsc__print_ns(out, f->p99);
        tsc__print_ns(out, f->max);
        fprintf(out, " %7" PRIu32 "\n", f->threads);
    }
    tsc__flows_lost(out, s, "  ");
}
/* "flows not matched: ..." where some were not. */
TSC__FN void tsc__flows_lost(FILE *out, const struct tsc__zsum *s, const char *prefix)
{
    if (s->flost[0] | s->flost[1] | s->flost[2])
        fprintf(out, "%sflows not matched: %" PRIu32 " departures overwritten before their arrival, %"
                PRIu32 " arrivals without their departure, %" PRIu32 " marks past %d flow names\n",
                prefix, s->flost[0], s->flost[1], s->flost[2], TSC__ZFLOWS);
}

TSC__API void tsc_zones_print(FILE *out)
{
    struct tsc__zrow rows[TSC_ZONES_MAX];
    struct tsc__zsum s;
    int n, i, w = 4;
    size_t len;
    if (!out)
        return;
    n = tsc__zones_collect(rows, &s);
    for (i = 0; i < n; i++) {
        len = strlen(rows[i].name);
        w = len > 40 ? 40 : TSC__CAST(int, len) > w ? TSC__CAST(int, len) : w;
    }
    for (i = 0; i < TSC__CAST(int, s.nflows); i++) {
        len = strlen(s.flows[i].name);
        w = len > 40 ? 40 : TSC__CAST(int, len) > w ? TSC__CAST(int, len) : w;
    }
    fprintf(out, "  %-*s %10s %7s %12s %12s %12s %12s %12s %12s %7s\n", w, "zone", "calls",
            "self %", "self", "total", "mean", "p50", "p99", "max", "threads");
    for (i = 0; i < n; i++) {
        fprintf(out, "  %-*.*s %10" PRIu64 " %6.1f%%", w, w, rows[i].name, rows[i].calls,
                tsc__zpct(rows[i].self, &s));
        tsc__print_time(out, rows[i].self);
        tsc__print_time(out, rows[i].total);
        tsc__print_time(out, rows[i].all / rows[i].calls);
        tsc__print_time(out, rows[i].p50);
        tsc__print_time(out, rows[i].p99);
        tsc__print_time(out, rows[i].max);
        fprintf(out, " %7" PRIu32 "\n", rows[i].threads);
    }
    fprintf(out, "  %-*s %10s %6.1f%%", w, "(all)", "", s.root ? 100.0 : 0.0);
    tsc__print_time(out, s.root); /* the root zones' total: every self adds up to it */
    tsc__print_time(out, s.root);
    fprintf(out, "\n  %d zones, %" PRIu32 " threads; overhead subtracted: %" PRIu64
            " ticks per zone, %" PRIu64 " more per zone nested in it\n", n, s.threads,
            TSC__LD32(&tsc__z.over) == 2 ? tsc__z.e0 : 0,
            TSC__LD32(&tsc__z.over) == 2 ? tsc__z.c : 0);
    tsc__zones_lost(out, &s, "  ");
    tsc__flows_print(out, &s, w);
#if !defined(TSC__ZONES_ON)
    fputs("  zones record nothing here: this compiler has no thread-local storage\n", out);
#endif
}

/* A name in a markdown cell: '|' escaped, control characters dropped. */
TSC__FN void tsc__zone_put_md(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else if (TSC__CAST(unsigned char, *s) >= 0x20)
            fputc(*s, out);
    }
}

/* The flows' rows (after the zones' rows): markdown a table of its own,
 * CSV and JSON rows with flow 1 (zones' rows: 0 in CSV, no field in
 * JSON), calls the count, self and total 0; the flows not matched in a
 * line (markdown) or a last row "(flows not matched)" (the count in calls;
 * JSON: overwritten, unmatched and past_names fields). */
TSC__FN void tsc__flows_write(FILE *out, int format, const struct tsc__zsum *s, int rows)
{
    const struct tsc__zrow *f;
    uint32_t i, lost = s->flost[0] + s->flost[1] + s->flost[2];
    if (format == TSC_BENCH_MARKDOWN && s->nflows)
        fputs("\n| flow | count | min ns | mean ns | p50 ns | p99 ns | max ns | threads |\n"
              "|:---|---:|---:|---:|---:|---:|---:|---:|\n", out);
    for (i = 0; i < s->nflows; i++) {
        f = &s->flows[i];
        if (format == TSC_BENCH_MARKDOWN) {
            fputs("| ", out);
            tsc__zone_put_md(out, f->name);
            fprintf(out, " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
                    " | %" PRIu32 " |\n", f->calls, f->min, f->all / f->calls, f->p50, f->p99, f->max, f->threads);
        } else if (format == TSC_BENCH_CSV) {
            fputc('"', out);
            tsc__put_escaped(out, f->name);
            fprintf(out, "\",%" PRIu64 ",0.000,0,0,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                    ",%" PRIu32 ",1\n", f->calls, f->min, f->all / f->calls, f->p50, f->p99, f->max, f->threads);
        } else {
            fputs(rows++ ? ",\n {\"name\": " : "\n {\"name\": ", out);
            tsc__json_str(out, f->name);
            fprintf(out, ", \"calls\": %" PRIu64 ", \"self_pct\": 0, \"self_ns\": 0, \"total_ns\": 0, "
                    "\"min_ns\": %" PRIu64 ", \"mean_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64 ", \"p99_ns\": %"
                    PRIu64 ", \"max_ns\": %" PRIu64 ", \"threads\": %" PRIu32 ", \"flow\": 1}",
                    f->calls, f->min, f->all / f->calls, f->p50, f->p99, f->max, f->threads);
        }
    }
    if (!lost)
        return;
    if (format == TSC_BENCH_MARKDOWN)
        tsc__flows_lost(out, s, "\n");
    else if (format == TSC_BENCH_CSV)
        fprintf(out, "\"(flows not matched)\",%" PRIu32 ",0.000,0,0,0,0,0,0,0,0,1\n", lost);
    else
        fprintf(out, "%s {\"name\": \"(flows not matched)\", \"calls\": %" PRIu32 ", \"self_pct\": 0, "
                "\"self_ns\": 0, \"total_ns\": 0, \"min_ns\": 0, \"mean_ns\": 0, \"p50_ns\": 0, "
                "\"p99_ns\": 0, \"max_ns\": 0, \"threads\": 0, \"overwritten\": %" PRIu32
                ", \"unmatched\": %" PRIu32 ", \"past_names\": %" PRIu32 ", \"flow\": 1}",
                rows ? ",\n" : "\n", lost, s->flost[0], s->flost[1], s->flost[2]);
}

TSC__API int tsc_zones_write(FILE *out, int format)
{
    struct tsc__zrow rows[TSC_ZONES_MAX], *r;
    struct tsc__zsum s;
    uint64_t lost;
    int n, i;
    if (!out || format < TSC_BENCH_MARKDOWN || format > TSC_BENCH_JSON)
        return -EINVAL;
    n = tsc__zones_collect(rows, &s);
    lost = s.lost[0] + s.lost[1] + s.lost[2];
    if (format == TSC_BENCH_MARKDOWN)
        fputs("| zone | calls | self % | self ns | total ns | min ns | mean ns | p50 ns | p99 ns "
              "| max ns | threads |\n|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", out);
    else if (format == TSC_BENCH_CSV)
        fputs("name,calls,self_pct,self_ns,total_ns,min_ns,mean_ns,p50_ns,p99_ns,max_ns,threads,flow\n", out);
    else
        fputs("[", out);
    for (i = 0; i < n; i++) {
        r = &rows[i];
        if (format == TSC_BENCH_MARKDOWN) {
            fputs("| ", out);
            tsc__zone_put_md(out, r->name);
            fprintf(out, " | %" PRIu64 " | %.1f%% | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %"
                    PRIu32 " |\n", r->calls, tsc__zpct(r->self, &s), tsc__zns(r->self),
                    tsc__zns(r->total), tsc__zns(r->min), tsc__zns(r->all / r->calls),
                    tsc__zns(r->p50), tsc__zns(r->p99), tsc__zns(r->max), r->threads);
        } else if (format == TSC_BENCH_CSV) {
            fputc('"', out);
            tsc__put_escaped(out, r->name);
            fprintf(out, "\",%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",0\n",
                    r->calls, tsc__zpct(r->self, &s), tsc__zns(r->self), tsc__zns(r->total),
                    tsc__zns(r->min), tsc__zns(r->all / r->calls), tsc__zns(r->p50),
                    tsc__zns(r->p99), tsc__zns(r->max), r->threads);
        } else {
            fputs(i ? ",\n {\"name\": " : "\n {\"name\": ", out);
            tsc__json_str(out, r->name);
            fprintf(out, ", \"calls\": %" PRIu64 ", \"self_pct\": %.3f, \"self_ns\": %" PRIu64 ", "
                    "\"total_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64 ", \"mean_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64 ", "
                    "\"p99_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64 ", \"threads\": %" PRIu32 "}",
                    r->calls, tsc__zpct(r->self, &s), tsc__zns(r->self), tsc__zns(r->total),
                    tsc__zns(r->min), tsc__zns(r->all / r->calls), tsc__zns(r->p50),
                    tsc__zns(r->p99), tsc__zns(r->max), r->threads);
        }
    }
    /* What was not recorded is a row of its own, never silent, each count
     * in the column of its kind: calls refused (zones, records, depth) or
     * left without their exit in calls, threads refused in threads, times 0;
     * the markdown table then says which limit, JSON in fields of its own. */
    if (lost || s.lost[3] || s.refused) {
        if (format == TSC_BENCH_MARKDOWN) {
            fprintf(out, "| (not recorded) | %" PRIu64 " | 0.0%% | 0 | 0 | 0 | 0 | 0 | 0 | 0 | %" PRIu32
                    " |\n", lost + s.lost[3], s.refused);
            tsc__zones_lost(out, &s, "\n");
        } else if (format == TSC_BENCH_CSV)
            fprintf(out, "\"(not recorded)\",%" PRIu64 ",0.000,0,0,0,0,0,0,0,%" PRIu32 ",0\n",
                    lost + s.lost[3], s.refused);
        else
            fprintf(out, "%s {\"name\": \"(not recorded)\", \"calls\": %" PRIu64 ", \"self_pct\": 0, "
                    "\"self_ns\": 0, \"total_ns\": 0, \"min_ns\": 0, \"mean_ns\": 0, \"p50_ns\": 0, "
                    "\"p99_ns\": 0, \"max_ns\": 0, \"threads\": %" PRIu32 ", \"left_early\": %" PRIu64
                    ", \"past_max\": %" PRIu64 ", \"past_depth\": %" PRIu64 ", \"no_memory\": %"
                    PRIu64 "}", n ? ",\n" : "\n", lost + s.lost[3], s.refused, s.lost[3], s.lost[0], s.lost[2],
                    s.lost[1]);
    }
    tsc__flows_write(out, format, &s, n + (lost || s.lost[3] || s.refused));
    if (format == TSC_BENCH_JSON)
        fputs("\n]\n", out);
    return ferror(out) ? -EIO : 0;
}

/* A record emptied, as it was made. */
TSC__FN void tsc__zone_rec_clear(struct tsc__zrec *r)
{
    int k;
    TSC__ZST(&r->calls, 0);
    TSC__ZST(&r->total, 0);
    TSC__ZST(&r->self, 0);
    TSC__ZST(&r->all, 0);
    TSC__ZST(&r->max, 0);
    TSC__ZST(&r->min, UINT64_MAX);
    for (k = 0; k < TSC__ZH_BUCKETS; k++)
        TSC__ZST(&r->hist[k], 0);
}

TSC__API void tsc_zones_reset(void)
{
    uint32_t nth = TSC__LD32(&tsc__z.nthreads), i, z;
    struct tsc__zrec *r;
    int k;
    for (i = 0; i < nth && i < TSC_ZONES_THREADS; i++) {
        for (z = 0; z < TSC_ZONES_MAX; z++)
            if ((r = tsc__zone_rec_of(i, z)) != TSC__NULL)
                tsc__zone_rec_clear(r);
        for (z = 0; z < TSC__ZFLOWS; z++)
            if ((r = tsc__zone_rec_of(i, TSC__ZFLOW_BIT | z)) != TSC__NULL)
                tsc__zone_rec_clear(r);
        TSC__ZST(&tsc__z.th[i].stack[0].kids, 0);
        for (k = 0; k < 4; k++)
            TSC__ZST(&tsc__z.th[i].lost[k], 0);
    }
    for (k = 0; k < 3; k++)
        TSC__ST32(&tsc__z.flost[k], 0);
}
/* A slice's end, a bare read of the counter, as the stamp the clock gives
 * marks (tsc_clock_ticks), so a mark made inside a zone is written inside
 * its slice. The two are one unit except: where the counter is the OS's
 * on Windows (TSC__MODE_OS: the fallback build, or no TSC to read), the
 * counter reads QPC in its own ticks (tsc__ref_read), the clock's stamps
 * are QPC's time in ns (tsc__os_ns); unconverted, slices were written at
 * 1/100 of their time under Wine's 10 MHz QPC. And where the clock is the
 * OS clock while zones still read the counter (tsc_trust() UNSAFE), the
 * slice is placed from `a`, an OS clock reading and the counter at its
 * middle (the narrowest of 16 brackets) when the trace is written, at the
 * calibrated frequency (a[0] 0: not so). */
TSC__FN uint64_t tsc__zone_stamp(uint64_t t, const uint64_t *a)
{
    uint64_t d;
#if defined(TSC__WINDOWS)
    if (tsc__mode() == TSC__MODE_OS)
        return tsc__qpc_ns(t);
#endif
    if (a[0] == 0)
        return t;
    if (t >= a[0])
        return a[1] + tsc_ticks_to_ns(t - a[0]);
    d = tsc_ticks_to_ns(a[0] - t);
    return a[1] > d ? a[1] - d : 0;
}
/* One event of a zone trace (after the metadata: ",\n" first). */
TSC__FN void tsc__zone_put_ev(FILE *out, const struct tsc__zev *e, uint64_t ts, unsigned long pid, int tid,
                              const uint64_t *a)
{
    static const char *const ph[] = {"s", "f", "i", "C"};
    uint64_t te;
    if (e->kind == TSC__ZE_SLICE) {
        te = tsc_clock_ticks_to_ns(tsc__zone_stamp(e->t1, a));
        tsc__trace_put_x(out, e->name, ts, te > ts ? te - ts : 0, pid, tid);
        return;
    }
    fputs(",\n{\"name\":", out);
    tsc__json_str(out, e->name);
    fprintf(out, ",\"ph\":\"%s\",\"ts\":", ph[e->kind - 1u]);
    tsc__trace_put_us(out, ts);
    fprintf(out, ",\"pid\":%lu,\"tid\":%d", pid, tid);
    if (e->kind <= TSC__ZE_IN)
        fprintf(out, ",\"cat\":\"flow\",\"id\":\"0x%" PRIx64 "\"%s}", e->t1,
                e->kind == TSC__ZE_IN && e->in ? ",\"bp\":\"e\"" : "");
    else if (e->kind == 3u)
        fputs(",\"s\":\"t\"}", out);
    else
        fprintf(out, ",\"args\":{\"value\":%" PRId64 "}}", TSC__CAST(int64_t, e->t1));
}

TSC__API int tsc_zones_write_trace(FILE *out)
{
    uint32_t nth = TSC__LD32(&tsc__z.nthreads), i;
    uint64_t dropped = 0, unfinished = 0, k, ts, prev;
    const struct tsc__zthread *tb;
    const struct tsc__zev *e;
    unsigned long pid;
    uint64_t a[2] = {0, 0};
    int first = 1;
    if (!out)
        return -EINVAL;
    pid = TSC__CAST(unsigned long, tsc__pid());
    if (tsc__mode() != TSC__MODE_OS && tsc__clock_os()) { /* (see tsc__zone_stamp) */
        uint64_t t0, o, t1, w = UINT64_MAX;
        for (k = 0; k < 16; k++) { /* the narrowest of 16 counter|OS|counter brackets */
            t0 = tsc__clock_ticks_bare();
            o = tsc__os_ns(0);
            t1 = tsc__clock_ticks_bare();
            if (t1 >= t0 && t1 - t0 < w) {
                w = t1 - t0;
                a[0] = t0 + w / 2;
                a[1] = o;
            }
        }
    }
    fputs("{\"traceEvents\":[", out);
    for (i = 0; i < nth && i < TSC_ZONES_THREADS; i++) {
        tb = &tsc__z.th[i];
        if (!tb->ev && !tb->tname && !tb->trdropped)
            continue;
        tsc__trace_meta(out, pid, TSC__CAST(int, i + 1), tb->tname, tb->trdropped, first);
        first = 0;
        dropped += tb->trdropped;
        for (prev = 0, k = 0; k < tb->trn; k++) {
            e = &tb->ev[k];
            if (e->kind == TSC__ZE_SLICE && e->t1 == 0) {
                unfinished++; /* still open, or left without its exit */
                continue;
            }
            ts = tsc_clock_ticks_to_ns(e->kind == TSC__ZE_SLICE ? tsc__zone_stamp(e->t0, a) : e->t0);
            ts = ts < prev ? prev : ts; /* (in order of start, as written) */
            prev = ts;
            tsc__zone_put_ev(out, e, ts, pid, TSC__CAST(int, i + 1), a);
        }
    }
    tsc__trace_tail(out, dropped, unfinished);
    return ferror(out) ? -EIO : 0;
}

#endif

/* atexit, declared under a name of our own bound to the C library's
 * symbol: <stdlib.h> would bring its macros (min and max in MSVC's C,
 * endian and wait names in glibc's) into every file, and a declaration of
 * atexit itself may clash with the C library's (C++ exception
 * specifications). The symbol has a leading underscore on Mach-O and on
 * 32-bit Windows. */
#if defined(TSC__GNU)
#if defined(__APPLE__) || (defined(_WIN32) && (defined(__i386__) || defined(_M_IX86)))
extern int tsc__atexit(void (*)(void)) __asm__("_atexit");
#else
extern int tsc__atexit(void (*)(void)) __asm__("atexit");
#endif
#endif

#if TSC__IMPL
#if defined(TSC__GNU)
TSC__FN void tsc__zones_at_exit(void) { tsc_zones_print(tsc__z.at_exit); }
#endif

TSC__API int tsc_zones_print_at_exit(FILE *out)
{
    if (!out)
        return -EINVAL;
#if defined(TSC__GNU)
    tsc__z.at_exit = out;
    if (!tsc__cas32(&tsc__z.at_exit_set, 0, 1))
        return 0;
    return tsc__atexit(tsc__zones_at_exit) == 0 ? 0 : -ENOMEM;
#else
    return -ENOSYS;
#endif
}
#endif

#ifdef __cplusplus
}

/* --- C++: scopes, stamps, std::chrono clocks ----------------------------- */

/* In an inline namespace named by the version and configuration, so that
 * two versions of the header in one program keep apart, as in C. */
namespace tsc {
inline namespace TSC__VNAME(v) {
/* Records the time from its construction to the end of its scope, however
 * the scope is left (return, break, an exception), into stats: the
 * RAII form of TSC_MEASURE. (TSC_ZONE_SCOPE("name"); is the zones'.) */
class measure_scope {
public:
    explicit measure_scope(struct tsc_stats *s) noexcept : s_(s), t0_(tsc_ticks_before()) {}
    ~measure_scope() { tsc_stats_add(s_, tsc_ticks_after() - t0_); }
    measure_scope(const measure_scope &) = delete;
    measure_scope &operator=(const measure_scope &) = delete;

private:
    struct tsc_stats *s_;
    uint64_t t0_;
};
/* A stored stamp of the clock (tsc_clock_ticks()), a type of its own: the
 * difference of two is nanoseconds (tsc_clock_elapsed_ns), and it does not
 * convert to an integer, so it cannot reach tsc_ticks_to_ns by mistake. */
struct stamp {
    uint64_t value; /* as tsc_clock_ticks() returned it: store, send, compare */
    static stamp now() noexcept
    {
        stamp s = {tsc_clock_ticks()};
        return s;
    }
    uint64_t ns() const noexcept { return tsc_clock_ticks_to_ns(value); }
    uint64_t realtime_ns() const noexcept { return tsc_clock_ticks_to_realtime_ns(value); }
};
/* to - from in nanoseconds: negative where to is the earlier. */
inline int64_t operator-(stamp to, stamp from) noexcept { return tsc_clock_elapsed_ns(from.value, to.value); }
inline bool operator<(stamp a, stamp b) noexcept { return a - b < 0; }
inline bool operator==(stamp a, stamp b) noexcept { return a.value == b.value; }
}
}

/* std::chrono clocks on tsc_now_ns() and tsc_now_realtime_ns(), where
 * <chrono> was included before this header or TSC_TIMER_CHRONO is defined
 * (or a header that brought libstdc++'s chrono, as <thread> does; <chrono>
 * costs a C++ file ~40 ms to compile: not imposed on every one). tsc::clock is steady (CLOCK_MONOTONIC's epoch); tsc::realtime_clock
 * has system_clock's time_point (1970), so it formats, converts to time_t
 * and mixes with system_clock as that one does. */
#if defined(TSC_TIMER_CHRONO) || defined(_GLIBCXX_CHRONO) || defined(_GLIBCXX_CHRONO_H) ||  \
    defined(_LIBCPP_CHRONO) || defined(_CHRONO_)
#include <chrono>
namespace tsc {
inline namespace TSC__VNAME(v) {
struct clock {
    typedef std::chrono::nanoseconds duration;
    typedef duration::rep rep;
    typedef duration::period period;
    typedef std::chrono::time_point<clock> time_point;
    static constexpr bool is_steady = true;
    static time_point now() noexcept { return time_point(duration(TSC__CAST(rep, tsc_now_ns()))); }
    /* A stored stamp as a time point of this clock. */
    static time_point from_stamp(stamp s) noexcept { return time_point(duration(TSC__CAST(rep, s.ns()))); }
};
struct realtime_clock {
    typedef std::chrono::nanoseconds duration;
    typedef duration::rep rep;
    typedef duration::period period;
    typedef std::chrono::time_point<std::chrono::system_clock, duration> time_point;
    static constexpr bool is_steady = false;
    static time_point now() noexcept { return time_point(duration(TSC__CAST(rep, tsc_now_realtime_ns()))); }
    static time_point from_stamp(stamp s) noexcept
    {
        return time_point(duration(TSC__CAST(rep, s.realtime_ns())));
    }
};
}
}
#endif
#endif

#endif /* TSC_TIMER_H */
