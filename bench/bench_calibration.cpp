// SPDX-License-Identifier: MIT
// Calibration: how right each method's ticks per second are, and what they
// cost in wall time. Every measurement is the first call in a fresh
// process (this program re-executes itself with --once), so nothing is
// cached and a one-time start-up cost is counted. The reference is the TSC
// rate over the whole run (at least 1 s), from two narrow brackets
// (counter | CLOCK_MONOTONIC | counter, the narrowest of 256) at its ends.
//   bench_calibration [--tiny] [--plot FILE]   the table (markdown)
//   bench_calibration --once METHOD ARG        one child: "hz seconds stated"
//   bench_calibration --bracket                one bracket: "ticks ns width"
// (bench/compare uses the last two, with the builds of two headers.)
// It builds against headers before 1.1 too (bench/compare): what they lack,
// tsc_init(), is left out there; `tsc_features` is a macro from 1.1 on.
#include "bench_common.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

#if defined(BENCH_HAVE_HWY)
#include <hwy/nanobenchmark.h>
#endif
#if defined(BENCH_HAVE_LIBCPUID)
#include <libcpuid.h>
#endif

#if defined(tsc_features)
#define BENCH_HAVE_INIT 1 // tsc_init() and the adaptive first-use window
#endif

// bench_calibration_fixed.c: the first use with TSC_TIMER_CALIBRATION_SECONDS
// defined to 0.008 (the default before the adaptive window).
extern "C" double bench_first_call_fixed(void);
extern "C" double bench_fixed_stated_ppm(void);

namespace {

double mono_seconds()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// --- the child: one method, once ----------------------------------------

int run_once(const std::string &method, double arg)
{
    double hz = -1, stated = -1, t0 = mono_seconds(); // stated: bound in ppm, -1 none
    if (method == "first") {
        hz = tsc_ticks_per_second();
    } else if (method == "fixed") {
        hz = bench_first_call_fixed();
#if defined(BENCH_HAVE_INIT)
    } else if (method == "init") {
        if (tsc_init() == 0)
            hz = tsc_ticks_per_second();
#endif
    } else if (method == "ours") {
        struct tsc_calibration c;
        if (tsc_calibrate(arg, &c) == 0)
            hz = c.ticks_per_second;
#if defined(BENCH_HAVE_HWY)
    } else if (method == "hwy") {
        hz = hwy::platform::InvariantTicksPerSecond();
#endif
#if defined(BENCH_HAVE_LIBCPUID)
    } else if (method == "libcpuid") {
        hz = cpu_clock_measure((int)arg, 0) * 1e6;
    } else if (method == "libcpuid_quad") {
        hz = cpu_clock_measure((int)arg, 1) * 1e6;
#endif
    }
    double spent = mono_seconds() - t0;
    if (method == "fixed") {
        stated = bench_fixed_stated_ppm();
    } else if (method == "first" || method == "init" || method == "ours") {
        struct tsc_calibration c;
        tsc_current_calibration(&c);
        stated = c.uncertainty_ppm;
    }
    printf("%.6f %.9f %.6f\n", hz, spent, stated);
    return hz > 0 ? 0 : 1;
}

// --- the parent ----------------------------------------------------------

struct Method {
    std::string label, mark, method, note; // mark: short name on the plot
    double arg;
    std::vector<double> err_ppm, ms, stated; // stated: the method's own bound, ppm
};

bool spawn_once(const char *self, const Method &m, double *hz, double *seconds, double *stated)
{
    int fd[2];
    char arg[32];
    snprintf(arg, sizeof arg, "%.6f", m.arg);
    if (pipe(fd) != 0)
        return false;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execl(self, self, "--once", m.method.c_str(), arg, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    int got = f ? fscanf(f, "%lf %lf %lf", hz, seconds, stated) : 0;
    if (f)
        fclose(f);
    int status = 0;
    waitpid(pid, &status, 0);
    return got == 3 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Counter ticks (the bracket's middle) and CLOCK_MONOTONIC ns at one
// instant: the narrowest of 256 brackets. *width gets its width.
void bracket(double *ticks, double *ns, uint64_t *width)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 256; i++) {
        struct timespec ts;
        uint64_t a = tsc_ticks_before();
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t b = tsc_ticks_after();
        if (b - a < best) {
            best = b - a;
            *ticks = (double)a + (double)(b - a) / 2;
            *ns = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
        }
    }
    *width = best;
}

double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<double> abs_of(const std::vector<double> &v)
{
    std::vector<double> a;
    for (double x : v)
        a.push_back(std::fabs(x));
    return a;
}

double worst_abs(const std::vector<double> &v)
{
    std::vector<double> a = abs_of(v);
    return *std::max_element(a.begin(), a.end());
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 4 && std::string(argv[1]) == "--once")
        return run_once(argv[2], atof(argv[3]));
    if (argc == 2 && std::string(argv[1]) == "--bracket") {
        double x, y;
        uint64_t w;
        bracket(&x, &y, &w);
        printf("%.1f %.0f %llu\n", x, y, (unsigned long long)w);
        return 0;
    }

    int tiny = bench_tiny(argc, argv);
    const char *plot = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (std::string(argv[i]) == "--plot")
            plot = argv[i + 1];
    int runs = tiny ? 2 : 10;
    double ref_seconds = tiny ? 0.05 : 1.0;

    std::vector<Method> ms;
    // Ours in order of window: the first call (the default window), the
    // whole of tsc_init() and the first call with a fixed 8 ms window
    // before the 16 ms one.
    const double windows[] = {0.001, 0.002, 0.004, 0, 0.016, 0.064};
    for (double w : windows) {
        if (w == 0) {
#if defined(BENCH_HAVE_INIT)
            ms.push_back(Method{"tsc_timer, first call (default: adaptive, ≤ 8 ms)",
                                "tsc_timer first call (adaptive)", "first",
                                "the promise: ≤ 10 ms, median ≤ 0.1 ppm, worst < 0.5 ppm", 0, {}, {}, {}});
            ms.push_back(Method{"tsc_timer, the whole of tsc_init()", "tsc_init()", "init",
                                "calibration, overhead, the clock's line, every read path", 0, {}, {}, {}});
            ms.push_back(Method{"tsc_timer, first call, fixed 8 ms (TSC_TIMER_CALIBRATION_SECONDS=0.008)",
                                "tsc_timer first call 8 ms", "fixed", "the default before 1.1", 0, {}, {}, {}});
#else
            ms.push_back(Method{"tsc_timer, first call (8 ms default)", "tsc_timer first call", "first",
                                "the promise: ≤ 10 ms, median ≤ 0.1 ppm, worst < 0.5 ppm", 0, {}, {}, {}});
#endif
            continue;
        }
        if (tiny && w > 0.004)
            continue;
        char label[64], mark[64];
        snprintf(label, sizeof label, "tsc_timer, tsc_calibrate(%g ms)", w * 1e3);
        snprintf(mark, sizeof mark, "tsc_timer %g ms", w * 1e3);
        ms.push_back(Method{label, mark, "ours", "", w, {}, {}, {}});
    }
#if defined(BENCH_HAVE_HWY)
    ms.push_back(Method{"Highway InvariantTicksPerSecond", "Highway", "hwy", "TSC rate against steady_clock", 0, {}, {}, {}});
#endif
#if defined(BENCH_HAVE_LIBCPUID)
    ms.push_back(Method{"libcpuid cpu_clock_measure(10, 0)", "libcpuid 10 ms", "libcpuid", "TSC ticks over gettimeofday, whole MHz", 10, {}, {}, {}});
    if (!tiny) {
        ms.push_back(Method{"libcpuid cpu_clock_measure(100, 0)", "libcpuid 100 ms", "libcpuid", "as above", 100, {}, {}, {}});
        ms.push_back(Method{"libcpuid cpu_clock_measure(100, 1)", "libcpuid 100 ms x4", "libcpuid_quad", "as above, four checks", 100, {}, {}, {}});
    }
#endif

    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "cannot find /proc/self/exe\n");
        return 1;
    }
    self[n] = 0;

    double x0, y0, x1, y1;
    uint64_t w0, w1;
    double start = mono_seconds();
    bracket(&x0, &y0, &w0);
    std::vector<std::vector<double> > hz(ms.size());
    for (int r = 0; r < runs; r++) // round robin: load falls on all alike
        for (size_t i = 0; i < ms.size(); i++) {
            double f, s, u;
            if (!spawn_once(self, ms[i], &f, &s, &u)) {
                fprintf(stderr, "%s: the child failed\n", ms[i].label.c_str());
                return 1;
            }
            hz[i].push_back(f);
            ms[i].stated.push_back(u);
            ms[i].ms.push_back(s * 1e3);
        }
    while (mono_seconds() - start < ref_seconds)
        ;
    bracket(&x1, &y1, &w1);
    double ref = (x1 - x0) / (y1 - y0) * 1e9;
    double ref_unc = ((double)(w0 + w1) / 2 / (x1 - x0) + 1 / (y1 - y0)) * 1e6;

    printf("## Calibration\n\n"
           "Each method %d times, each time the first call in a fresh process (this\n"
           "program runs itself again), methods taken in turn so load falls on all\n"
           "alike. Time: wall time of the call (CLOCK_MONOTONIC around it). Error:\n"
           "against the TSC rate over the whole run, %.3f s, from two brackets\n"
           "(counter | CLOCK_MONOTONIC | counter, narrowest of 256: %llu and %llu\n"
           "ticks) at its ends: %.3f Hz ± %.3f ppm. Every method here measures the\n"
           "TSC rate against the system clock (NTP-slewed alike), so they are\n"
           "compared on the same footing. Errors below the reference's own\n"
           "uncertainty cannot be told from 0.\n\n"
           "| method | error ppm, median | \\|error\\| median | \\|error\\| worst | beyond its stated bound | time ms, median | worst ms | note |\n"
           "|---|---:|---:|---:|---:|---:|---:|---|\n",
           runs, (y1 - y0) * 1e-9, (unsigned long long)w0, (unsigned long long)w1, ref, ref_unc);
    FILE *pf = plot ? fopen(plot, "w") : NULL;
    if (pf)
        fprintf(pf, "# reference uncertainty %.6f ppm\n", ref_unc);
    for (size_t i = 0; i < ms.size(); i++) {
        for (double f : hz[i])
            ms[i].err_ppm.push_back((f / ref - 1) * 1e6);
        double med_err = median_of(ms[i].err_ppm), med_ms = median_of(ms[i].ms);
        char beyond[32] = "no bound stated";
        if (ms[i].stated[0] >= 0) { // the library's own uncertainty, plus the reference's
            int k = 0;
            for (size_t j = 0; j < ms[i].err_ppm.size(); j++)
                k += std::fabs(ms[i].err_ppm[j]) > ms[i].stated[j] + ref_unc;
            snprintf(beyond, sizeof beyond, "%d of %d", k, runs);
        }
        printf("| %s | %+.3f | %.3f | %.3f | %s | %.2f | %.2f | %s |\n", ms[i].label.c_str(),
               med_err, median_of(abs_of(ms[i].err_ppm)), worst_abs(ms[i].err_ppm), beyond, med_ms,
               *std::max_element(ms[i].ms.begin(), ms[i].ms.end()), ms[i].note.c_str());
        if (pf) // |error| floored at 1e-3 ppm so a log axis can show it
            fprintf(pf, "\"%s\" %.4f %.6f\n", ms[i].mark.c_str(), med_ms,
                    std::max(1e-3, median_of(abs_of(ms[i].err_ppm))));
    }
    if (pf)
        fclose(pf);
#if !defined(BENCH_HAVE_HWY)
    printf("| Highway InvariantTicksPerSecond | not built: libhwy not found | | | | | | |\n");
#endif
#if !defined(BENCH_HAVE_LIBCPUID)
    printf("| libcpuid cpu_clock_measure | not built: libcpuid not found | | | | | | |\n");
#endif
    for (size_t i = 0; i < ms.size(); i++) {
        const Method &f = ms[i];
        if (f.method != "first" && f.method != "init")
            continue;
        double me = median_of(abs_of(f.err_ppm)), we = worst_abs(f.err_ppm);
        double mt = median_of(f.ms), wt = *std::max_element(f.ms.begin(), f.ms.end());
        int k = 0;
        for (size_t j = 0; j < f.err_ppm.size(); j++)
            k += std::fabs(f.err_ppm[j]) > f.stated[j] + ref_unc;
        if (f.method == "first")
            printf("\nFirst call of `tsc_ticks_per_second()` in %d fresh processes: median\n"
                   "|error| %.3f ppm, worst %.3f ppm (promise: median ≤ 0.1, worst < 0.5:\n"
                   "%s); time median %.2f ms, worst %.2f ms (promise ≤ 10 ms: %s).\n",
                   runs, me, we, me <= 0.1 && we < 0.5 ? "kept" : "NOT kept", mt, wt,
                   wt <= 10 ? "kept" : "NOT kept");
        else
            printf("\nThe whole of `tsc_init()` in %d fresh processes: time median %.2f ms,\n"
                   "worst %.2f ms; frequency |error| median %.3f ppm, worst %.3f ppm;\n"
                   "stated uncertainty median %.3f ppm; the error beyond the stated\n"
                   "uncertainty (plus the reference's) in %d of %d.\n",
                   runs, mt, wt, me, we, median_of(f.stated), k, runs);
    }
    return 0;
}
