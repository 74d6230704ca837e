// SPDX-License-Identifier: MIT
// What a reading costs, and how precisely an empty region (and a fixed
// short loop) measures, for tsc_timer and the timers people use instead.
// C++ because two of them (std::chrono, Highway) are C++; every timer is a
// struct with an inline read(), so no call is added that a user would not
// pay too.
#include "bench_common.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <time.h>
#include <vector>

#if defined(BENCH_HAVE_HWY)
#include <hwy/nanobenchmark.h>
#endif
#if defined(BENCH_HAVE_LIBCPUID)
#include <libcpuid.h>
#endif
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define BENCH_X86 1
#endif

namespace {

// --- the timers ----------------------------------------------------------
// read() returns the timer's own value; ticks(a, b) the interval from a to
// b in TSC ticks (clocks in ns are converted at the calibrated TSC rate).

double g_ticks_per_ns;

struct OursBefore {
    static const char *name() { return "`tsc_ticks_before`"; }
    static uint64_t read() { return tsc_ticks_before(); }
    static double ticks(uint64_t a, uint64_t b) { return (double)(b - a); }
};
struct OursAfter {
    static const char *name() { return "`tsc_ticks_after`"; }
    static uint64_t read() { return tsc_ticks_after(); }
    static double ticks(uint64_t a, uint64_t b) { return (double)(b - a); }
};
struct OursNowNs {
    static const char *name() { return "`tsc_now_ns`"; }
    static uint64_t read() { return tsc_now_ns(); }
    static double ticks(uint64_t a, uint64_t b) { return (double)(b - a) * g_ticks_per_ns; }
};
#if defined(BENCH_X86)
struct HandBefore {
    static const char *name() { return "`lfence;rdtsc;lfence` by hand"; }
    static uint64_t read()
    {
        uint32_t lo, hi;
        __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
        return ((uint64_t)hi << 32) | lo;
    }
    static double ticks(uint64_t a, uint64_t b) { return (double)(b - a); }
};
struct HandAfter {
    static const char *name() { return "`rdtscp;lfence` by hand"; }
    static uint64_t read()
    {
        uint32_t lo, hi, aux;
        __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
        return ((uint64_t)hi << 32) | lo;
    }
    static double ticks(uint64_t a, uint64_t b) { return (double)(b - a); }
};
struct PlainRdtsc {
    static const char *name() { return "plain `rdtsc`"; }
    static uint64_t read()
    {
        uint32_t lo, hi;
        __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
        return ((uint64_t)hi << 32) | lo;
    }
    static double ticks(uint64_t a, uint64_t b) { return (double)(b - a); }
};
#endif
template <int Clock> struct ClockGettime {
    static uint64_t read()
    {
        struct timespec ts;
        clock_gettime(Clock, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    }
    static double ticks(uint64_t a, uint64_t b) { return (double)(int64_t)(b - a) * g_ticks_per_ns; }
};
struct Monotonic : ClockGettime<CLOCK_MONOTONIC> {
    static const char *name() { return "`clock_gettime(CLOCK_MONOTONIC)`"; }
};
struct MonotonicRaw : ClockGettime<CLOCK_MONOTONIC_RAW> {
    static const char *name() { return "`clock_gettime(CLOCK_MONOTONIC_RAW)`"; }
};
struct Realtime : ClockGettime<CLOCK_REALTIME> {
    static const char *name() { return "`clock_gettime(CLOCK_REALTIME)`"; }
};
struct SteadyClock {
    static const char *name() { return "`std::chrono::steady_clock::now`"; }
    static int64_t read() { return std::chrono::steady_clock::now().time_since_epoch().count(); }
    static double ticks(int64_t a, int64_t b)
    {
        typedef std::chrono::steady_clock::period P;
        return (double)(b - a) * P::num / P::den * 1e9 * g_ticks_per_ns;
    }
};
#if defined(BENCH_HAVE_HWY)
struct HwyNow {
    static const char *name() { return "Highway `hwy::platform::Now`"; }
    static double read() { return hwy::platform::Now(); }
    static double ticks(double a, double b) { return (b - a) * 1e9 * g_ticks_per_ns; }
};
#endif
#if defined(BENCH_HAVE_LIBCPUID)
struct CpuidRdtsc {
    static const char *name() { return "libcpuid `cpu_rdtsc`"; }
    static uint64_t read()
    {
        uint64_t v;
        cpu_rdtsc(&v);
        return v;
    }
    static double ticks(uint64_t a, uint64_t b) { return (double)(b - a); }
};
#endif

// --- cost per reading ----------------------------------------------------

template <class T> void read_many(void *sink, size_t calls)
{
    decltype(T::read()) acc = 0;
    for (size_t i = 0; i < calls; i++)
        acc += T::read();
    *(volatile double *)sink += (double)acc;
}

template <class T> void cost_row(size_t calls, size_t runs)
{
    std::vector<double> per(runs);
    double sink = 0;
    bench_time_batches(read_many<T>, &sink, calls, runs, per.data());
    bench_print_cost_row(T::name(), per.data(), runs);
}

// --- precision: the white paper's ensembles -------------------------------

volatile uint64_t g_seed = 12345;
volatile uint64_t g_sink;

// A dependent chain of 32 multiply-xorshift steps; the empty asm makes each
// step opaque, so the compiler can neither fold nor drop it.
inline void short_loop()
{
    uint64_t x = g_seed;
    for (int i = 0; i < 32; i++) {
        x = (x ^ (x >> 29)) * UINT64_C(0xbf58476d1ce4e5b9);
#if defined(__GNUC__)
        __asm__ __volatile__("" : "+r"(x));
#endif
    }
    g_sink = x;
}

struct Precision {
    double min, median, var_of_min, mean_var;
    double trimmed_mean; // mean of the lower 90 %: resolves below one TSC step
};

// `ensembles` ensembles of `samples` samples of one region; per ensemble
// the minimum and the variance, then the minimum of all, the variance of the
// minima and the mean of the variances (ticks and ticks^2).
template <class Start, class Stop, bool Loop>
Precision precision(size_t ensembles, size_t samples)
{
    std::vector<double> all, mins, vars;
    all.reserve(ensembles * samples);
    for (size_t e = 0; e < ensembles; e++) {
        double mn = 1e300, sum = 0, sum2 = 0;
        for (size_t s = 0; s < samples; s++) {
            decltype(Start::read()) a = Start::read();
            if (Loop)
                short_loop();
            decltype(Start::read()) b = Stop::read();
            double d = Start::ticks(a, b);
            mn = std::min(mn, d);
            sum += d;
            sum2 += d * d;
            all.push_back(d);
        }
        double mean = sum / samples;
        mins.push_back(mn);
        vars.push_back(std::max(0.0, sum2 / samples - mean * mean));
    }
    Precision p;
    std::sort(all.begin(), all.end());
    p.min = all.front();
    p.median = all[all.size() / 2];
    size_t keep = all.size() * 9 / 10 + 1;
    double sum = 0;
    for (size_t i = 0; i < keep; i++)
        sum += all[i];
    p.trimmed_mean = sum / keep;
    // Offsets from the first minimum, so equal minima give exactly 0.
    double mm = 0, mv = 0, vm = 0;
    for (size_t e = 0; e < ensembles; e++) {
        mm += mins[e] - mins[0];
        mv += vars[e];
    }
    mm /= ensembles;
    for (size_t e = 0; e < ensembles; e++)
        vm += (mins[e] - mins[0] - mm) * (mins[e] - mins[0] - mm);
    p.var_of_min = vm / ensembles;
    p.mean_var = mv / ensembles;
    return p;
}

template <class Start, class Stop> void precision_row(const char *name, size_t ens, size_t smp)
{
    Precision e = precision<Start, Stop, false>(ens, smp);
    Precision l = precision<Start, Stop, true>(ens, smp);
    double k = 1 / g_ticks_per_ns;
    printf("| %s | %.0f (%.1f ns) | %.0f | %.3g | %.3g | %.0f (%.1f ns) | %.0f | %.3g | %.3g |\n", name,
           e.min, e.min * k, e.median, e.var_of_min, e.mean_var, l.min, l.min * k, l.median,
           l.var_of_min, l.mean_var);
}

} // namespace

int main(int argc, char **argv)
{
    int tiny = bench_tiny(argc, argv);
    size_t calls = tiny ? 64 : 1000, runs = tiny ? 5 : 501;
    size_t ens = tiny ? 4 : 100, smp = tiny ? 50 : 1000;

    g_ticks_per_ns = tsc_ticks_per_second() / 1e9;
    int cpu = bench_pin_to_this_cpu();
#if defined(BENCH_X86)
    // RDTSCP by hand only where the library uses it too: it faults where
    // CPUID denies it, and the comparison is with what the library does.
    bool rdtscp = tsc_features().uses_rdtscp != 0;
#endif
    printf("## Cost per reading\n\n"
           "Each row: %zu back-to-back reads in a loop (results summed, so none is\n"
           "dropped), timed with `tsc_ticks_before`/`tsc_ticks_after` minus the empty\n"
           "region's %llu ticks, divided by %zu; %zu such runs, median and interquartile\n"
           "range. Back-to-back unfenced reads overlap in the pipeline, so their\n"
           "cost is a throughput; fenced reads cannot overlap. ns at the calibrated\n"
           "TSC rate (%.6f MHz). The whole program runs on one CPU (%d; -1: not\n"
           "pinned): a read pair split across two vCPUs would measure the phase\n"
           "of their TSC steps, not the timer.\n\n" BENCH_COST_HEADER,
           calls, (unsigned long long)tsc_overhead_ticks(), calls, runs,
           tsc_ticks_per_second() / 1e6, cpu);
    cost_row<OursBefore>(calls, runs);
    cost_row<OursAfter>(calls, runs);
    cost_row<OursNowNs>(calls, runs);
#if defined(BENCH_X86)
    cost_row<HandBefore>(calls, runs);
    if (rdtscp)
        cost_row<HandAfter>(calls, runs);
    cost_row<PlainRdtsc>(calls, runs);
#endif
    cost_row<Monotonic>(calls, runs);
    cost_row<MonotonicRaw>(calls, runs);
    cost_row<Realtime>(calls, runs);
    cost_row<SteadyClock>(calls, runs);
#if defined(BENCH_HAVE_HWY)
    cost_row<HwyNow>(calls, runs);
#else
    printf("| Highway `hwy::platform::Now` | not built: libhwy not found | | | |\n");
#endif
#if defined(BENCH_HAVE_LIBCPUID)
    cost_row<CpuidRdtsc>(calls, runs);
#else
    printf("| libcpuid `cpu_rdtsc` | not built: libcpuid not found | | | |\n");
#endif

    printf("\n## Precision of an empty region and of a fixed short loop\n\n"
           "The method of Intel's white paper (Paoloni, 2010): %zu ensembles of %zu\n"
           "samples, each sample one start read, the region, one stop read. Per\n"
           "ensemble the minimum and the variance; reported: the minimum of all\n"
           "samples (ticks, and ns), the median, the variance of the %zu minima and\n"
           "the mean of the %zu variances (ticks²). Lower is better; a well-fenced\n"
           "timer has a steady minimum. The short loop is a dependent chain of 32\n"
           "multiply-xorshift steps. Clocks that count ns are converted to TSC ticks\n"
           "at the calibrated rate, so their 1 ns steps show as ~%.1f ticks. One\n"
           "preempted sample (milliseconds) outweighs all others in a variance: on a\n"
           "shared machine the mean variance mostly counts interruptions, the\n"
           "minimum and its variance are what the timer itself contributes.\n\n"
           "| timer (start / stop) | empty: min | median | var of minima | mean var |"
           " loop: min | median | var of minima | mean var |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
           ens, smp, ens, ens, g_ticks_per_ns);
    precision_row<OursBefore, OursAfter>("`tsc_ticks_before` / `tsc_ticks_after`", ens, smp);
#if defined(BENCH_X86)
    if (rdtscp)
        precision_row<HandBefore, HandAfter>("`lfence;rdtsc;lfence` / `rdtscp;lfence` by hand", ens, smp);
    else
        precision_row<HandBefore, HandBefore>("`lfence;rdtsc;lfence` twice by hand", ens, smp);
    precision_row<PlainRdtsc, PlainRdtsc>("plain `rdtsc`", ens, smp);
#endif
    precision_row<OursNowNs, OursNowNs>("`tsc_now_ns`", ens, smp);
    precision_row<Monotonic, Monotonic>("`CLOCK_MONOTONIC`", ens, smp);
    precision_row<MonotonicRaw, MonotonicRaw>("`CLOCK_MONOTONIC_RAW`", ens, smp);
    precision_row<Realtime, Realtime>("`CLOCK_REALTIME`", ens, smp);
    precision_row<SteadyClock, SteadyClock>("`std::chrono::steady_clock`", ens, smp);
#if defined(BENCH_HAVE_HWY)
    precision_row<HwyNow, HwyNow>("Highway `hwy::platform::Now`", ens, smp);
#endif
#if defined(BENCH_HAVE_LIBCPUID)
    precision_row<CpuidRdtsc, CpuidRdtsc>("libcpuid `cpu_rdtsc`", ens, smp);
#endif

#if defined(BENCH_X86)
    {
        // The counter's own step: a VM may advance the TSC in coarse steps,
        // and then every figure above is a multiple of it. The greatest
        // common divisor of intervals of varying length finds it; taken
        // over 100 batches and the median kept, since an interval across a
        // move to another CPU (another phase of the steps) spoils a batch.
        std::vector<uint64_t> steps;
        for (size_t b = 0; b < 100; b++) {
            uint64_t step = 0;
            for (size_t i = 0; i < smp / 10 + 2; i++) {
                uint64_t a = PlainRdtsc::read();
                for (size_t j = 0; j < i % 37; j++)
                    g_sink = g_sink + j;
                uint64_t d = PlainRdtsc::read() - a;
                while (d) { // step = gcd(step, d)
                    uint64_t r = step % d;
                    step = d;
                    d = r;
                }
            }
            steps.push_back(step);
        }
        std::sort(steps.begin(), steps.end());
        printf("\nThe TSC advances here in steps of %llu ticks (%.1f ns): the median of\n"
               "100 greatest common divisors, each of %zu intervals of varying length.\n",
               (unsigned long long)steps[50], (double)steps[50] / g_ticks_per_ns, smp / 10 + 2);
    }
    {
        // The core's promise: an empty region measures the same with our
        // reads as with the fenced sequence written by hand.
        size_t rounds = 10;
        std::vector<double> om, hm, ot, ht;
        double omin = 1e300, hmin = 1e300;
        for (size_t r = 0; r < rounds; r++) {
            Precision o = precision<OursBefore, OursAfter, false>(ens / rounds + 1, smp);
            Precision h = rdtscp ? precision<HandBefore, HandAfter, false>(ens / rounds + 1, smp)
                                 : precision<HandBefore, HandBefore, false>(ens / rounds + 1, smp);
            om.push_back(o.median);
            hm.push_back(h.median);
            ot.push_back(o.trimmed_mean);
            ht.push_back(h.trimmed_mean);
            omin = std::min(omin, o.min);
            hmin = std::min(hmin, h.min);
        }
        std::sort(om.begin(), om.end());
        std::sort(hm.begin(), hm.end());
        std::sort(ot.begin(), ot.end());
        std::sort(ht.begin(), ht.end());
        double omed = om[rounds / 2], hmed = hm[rounds / 2];
        double otm = ot[rounds / 2], htm = ht[rounds / 2];
        double d = std::fabs(omed / hmed - 1) * 100, dt = std::fabs(otm / htm - 1) * 100;
        printf("\nEmpty region, ours against the hand-written sequence, measured again in\n"
               "%zu alternating rounds (medians over the rounds): minimum %.0f vs %.0f\n"
               "ticks (%s); median %.0f vs %.0f ticks (%.1f %% apart); mean of the\n"
               "lower 90 %% %.1f vs %.1f ticks (%.1f %% apart). The promise: minimum\n"
               "equal (%s), within 10 %% (median: %s; mean of the lower 90 %%: %s).\n"
               "Where the TSC moves in coarse steps a median can only land on a step,\n"
               "so it is either equal or a whole step apart; the mean of the lower\n"
               "90 %% is dithered by the step's phase and resolves finer.\n",
               rounds, omin, hmin, omin == hmin ? "equal" : "not equal", omed, hmed, d, otm, htm,
               dt, omin == hmin ? "kept" : "NOT kept", d <= 10 ? "kept" : "NOT kept",
               dt <= 10 ? "kept" : "NOT kept");
    }
#endif
    return 0;
}
