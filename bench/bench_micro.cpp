// SPDX-License-Identifier: MIT
// Microbenchmarks: what TSC_BENCH reports for snippets of known cost, and
// the same snippets measured by Highway's nanobenchmark
// (hwy::MeasureClosure) and Google Benchmark, in one run.
//   1. Linearity: a chain of n dependent 64-bit register adds (x86-64:
//      `add %0, %0`, not `add $1`, whose chains recent Intel cores fold at
//      rename; AArch64: `add %0, %0, %0`), n = 1, 2, 4, ..., 64, measured
//      with TSC_BENCH in this process; a least-squares line over n, for the
//      net figure (loop cost subtracted) and the raw one.
//   2. Repeatability and the anchors: 1 add, 16 adds and a ~10 us snippet
//      (400 x 64 dependent adds), each measured by each tool in 5 fresh
//      processes (this program runs itself again), tools and snippets
//      taken in turn so load falls on all alike.
//   bench_micro [--tiny] [--plot FILE]     the section (markdown); FILE gets
//                                          the linearity points and fits
//   bench_micro --child TOOL SNIPPET HZ [--tiny]
//                                          one child: "ok ns raw_ns call_s
//                                          err_pct unstable"
// It builds against headers without TSC_BENCH too (bench/compare builds
// this folder with an older header): it then says so and does nothing.
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
#if defined(BENCH_HAVE_GBENCH)
#include <benchmark/benchmark.h>
#endif

#if defined(TSC_BENCH)

// --- the snippets --------------------------------------------------------

// CHAIN(N, x): N dependent adds x += x, one instruction each.
#if defined(__x86_64__) && defined(__GNUC__)
#define CHAIN(N, x) __asm__ __volatile__(".rept " #N "\n\tadd %0, %0\n\t.endr" : "+r"(x))
#define CHAIN_INSN "`add %0, %0` (x86-64)"
#elif defined(__aarch64__) && defined(__GNUC__)
#define CHAIN(N, x) __asm__ __volatile__(".rept " #N "\n\tadd %0, %0, %0\n\t.endr" : "+r"(x))
#define CHAIN_INSN "`add %0, %0, %0` (AArch64)"
#else
#define CHAIN(N, x)                                                            \
    do {                                                                       \
        for (int chain_i_ = 0; chain_i_ < (N); chain_i_++) {                   \
            (x) += (x);                                                        \
            TSC_KEEP(x);                                                       \
        }                                                                      \
    } while (0)
#define CHAIN_INSN "`x += x` in C, kept by TSC_KEEP (no inline asm here)"
#endif

namespace {

#define DEF_ADDS(N)                                                            \
    struct Adds##N {                                                           \
        static inline __attribute__((always_inline)) void run(uint64_t &x)     \
        {                                                                      \
            CHAIN(N, x);                                                       \
        }                                                                      \
    };
DEF_ADDS(1)
DEF_ADDS(2)
DEF_ADDS(4)
DEF_ADDS(8)
DEF_ADDS(16)
DEF_ADDS(32)
DEF_ADDS(64)

// The ~10 us snippet: 400 times 64 dependent adds (25,600 core cycles).
const int kLongReps = 400;
struct Long {
    static inline __attribute__((always_inline)) void run(uint64_t &x)
    {
        for (int i = 0; i < kLongReps; i++)
            CHAIN(64, x);
    }
};

double mono_seconds()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// --- TSC_BENCH -------------------------------------------------------------

template <class S> struct tsc_bench_result tsc_run(const char *name, double budget)
{
    static struct tsc_bench b; // ~2 KiB
    struct tsc_bench_result r;
    uint64_t x = 1;
    tsc_bench_init(&b, name);
    if (budget > 0)
        tsc_bench_set_budget(&b, budget);
    TSC_BENCH(&b) { S::run(x); }
    TSC_KEEP(x);
    if (tsc_bench_result(&b, &r) != 0)
        memset(&r, 0, sizeof r);
    return r;
}

// --- the children ----------------------------------------------------------

struct Snip {
    const char *id, *label;
    int adds;
};
const Snip kSnips[] = {
    {"add1", "1 add", 1},
    {"add16", "16 adds", 16},
    {"long", "~10 us: 400 × 64 adds", kLongReps * 64},
};

int child_tsc(const std::string &snip, int tiny)
{
    double budget = tiny ? 0.005 : 0; // 0: the default, 0.1 s
    double t0 = mono_seconds();       // the first use (calibration) counts
    struct tsc_bench_result r;
    if (snip == "add1")
        r = tsc_run<Adds1>("1 add", budget);
    else if (snip == "add16")
        r = tsc_run<Adds16>("16 adds", budget);
    else
        r = tsc_run<Long>("long", budget);
    double spent = mono_seconds() - t0;
    if (r.batches == 0)
        return 1;
    double ns_per_tick = 1e9 / tsc_ticks_per_second();
    printf("ok %.6f %.6f %.9f %.3f %d\n%s\n", r.ns_per_op, r.raw_ticks_per_op * ns_per_tick, spent,
           r.err_pct, r.unstable, r.reason);
    return 0;
}

#if defined(BENCH_HAVE_HWY)
template <class S> double hwy_run(const hwy::Params &p, double *variability)
{
    const hwy::FuncInput input = (hwy::FuncInput)hwy::Unpredictable1();
    hwy::Result res;
    // The idiom of nanobenchmark: the input in, the chain, the result out.
    auto f = [](hwy::FuncInput in) -> hwy::FuncOutput {
        uint64_t x = in;
        S::run(x);
        return x;
    };
    if (hwy::MeasureClosure(f, &input, 1, &res, p) != 1)
        return -1;
    *variability = res.variability;
    return res.ticks;
}

int child_hwy(const std::string &snip, double hz, int tiny)
{
    hwy::Params p;
    p.verbose = false;
    if (tiny) {
        p.seconds_per_eval = 1e-4;
        p.max_evals = 2;
    }
    double var = 0, t0 = mono_seconds(), ticks;
    if (snip == "add1")
        ticks = hwy_run<Adds1>(p, &var);
    else if (snip == "add16")
        ticks = hwy_run<Adds16>(p, &var);
    else
        ticks = hwy_run<Long>(p, &var);
    double spent = mono_seconds() - t0;
    if (ticks < 0)
        return 1;
    double ns = ticks * 1e9 / hz; // its timer reads the TSC (lfence;rdtsc / rdtscp)
    printf("ok %.6f %.6f %.9f %.3f 0\n", ns, ns, spent, 100.0 * var);
    return 0;
}
#endif

#if defined(BENCH_HAVE_GBENCH)
template <class S> void gb_body(benchmark::State &state)
{
    uint64_t x = 1;
    for (auto _ : state)
        S::run(x);
    benchmark::DoNotOptimize(x);
}

// Keeps the one run's real time per iteration; prints nothing.
class Keep : public benchmark::BenchmarkReporter {
  public:
    double ns = -1;
    bool ReportContext(const Context &) override { return true; }
    void ReportRuns(const std::vector<Run> &runs) override
    {
        for (const Run &r : runs)
            if (!r.error_occurred && r.run_type == Run::RT_Iteration)
                ns = r.GetAdjustedRealTime(); // time unit: ns (the default)
    }
};

int child_gbench(const std::string &snip, int tiny)
{
    double t0 = mono_seconds();
    char a0[] = "bench_micro", a1[] = "--benchmark_min_time=0.001";
    char *args[] = {a0, a1, NULL};
    int n = tiny ? 2 : 1; // default min_time otherwise (0.5 s)
    benchmark::Initialize(&n, args);
    if (snip == "add1")
        benchmark::RegisterBenchmark("add1", gb_body<Adds1>);
    else if (snip == "add16")
        benchmark::RegisterBenchmark("add16", gb_body<Adds16>);
    else
        benchmark::RegisterBenchmark("long", gb_body<Long>);
    Keep keep;
    benchmark::RunSpecifiedBenchmarks(&keep);
    double spent = mono_seconds() - t0;
    benchmark::Shutdown();
    if (keep.ns < 0)
        return 1;
    printf("ok %.6f %.6f %.9f 0 0\n", keep.ns, keep.ns, spent);
    return 0;
}
#endif

// --- the parent: repeatability and the anchors ----------------------------

struct Tool {
    const char *id, *label;
};
const Tool kTools[] = {
    {"tsc", "TSC_BENCH (net)"},
#if defined(BENCH_HAVE_HWY)
    {"hwy", "Highway `MeasureClosure`"},
#endif
#if defined(BENCH_HAVE_GBENCH)
    {"gbench", "Google Benchmark"},
#endif
};
const int kNumTools = (int)(sizeof kTools / sizeof kTools[0]);

struct Sample {
    double ns, raw_ns, call_s, proc_s, err_pct;
    int unstable;
    std::string reason; // TSC_BENCH's, where unstable
};

// Runs one child; its stdout and stderr come back through one pipe. The
// line "ok ..." (then TSC_BENCH's reason) is the result; without it, the
// child's last line (what the tool printed when it failed) goes to *why.
bool spawn(const char *self, const char *tool, const char *snip, double hz, int tiny, Sample *s,
           std::string *why)
{
    int fd[2];
    char hzs[48];
    snprintf(hzs, sizeof hzs, "%.3f", hz);
    if (pipe(fd) != 0)
        return false;
    fflush(stdout);
    double t0 = mono_seconds();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        execl(self, self, "--child", tool, snip, hzs, tiny ? "--tiny" : (char *)NULL, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[512], ok[8] = "";
    int got = 0, want_reason = 0;
    s->reason.clear();
    why->clear();
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (want_reason) {
            s->reason = line;
            want_reason = 0;
        } else if (got != 6 && strncmp(line, "ok ", 3) == 0) {
            got = sscanf(line, "%7s %lf %lf %lf %lf %d", ok, &s->ns, &s->raw_ns, &s->call_s,
                         &s->err_pct, &s->unstable);
            want_reason = got == 6;
        } else if (*line) {
            *why = line;
        }
    }
    if (f)
        fclose(f);
    int status = 0;
    waitpid(pid, &status, 0);
    s->proc_s = mono_seconds() - t0;
    bool done = got == 6 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!done && why->empty())
        *why = "no result";
    return done;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// (max - min) / median, or NAN where the median is 0 or there are < 2.
double spread(const std::vector<double> &v)
{
    if (v.size() < 2)
        return NAN;
    double m = median(v);
    auto mm = std::minmax_element(v.begin(), v.end());
    return m > 0 ? (*mm.second - *mm.first) / m : NAN;
}

std::string pct(double x)
{
    char b[32];
    if (std::isnan(x))
        return "n/a";
    snprintf(b, sizeof b, "%.2f %%", 100.0 * x);
    return b;
}

// --- linearity --------------------------------------------------------------

struct Fit {
    double a, b, r2; // y = a + b n
};

Fit fit_line(const std::vector<double> &x, const std::vector<double> &y)
{
    size_t n = x.size();
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    Fit f;
    f.b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    f.a = (sy - f.b * sx) / n;
    double my = sy / n, ssr = 0, sst = 0;
    for (size_t i = 0; i < n; i++) {
        double e = y[i] - (f.a + f.b * x[i]);
        ssr += e * e;
        sst += (y[i] - my) * (y[i] - my);
    }
    f.r2 = sst > 0 ? 1 - ssr / sst : 0;
    return f;
}

struct tsc_bench_result lin_one(int n, double budget)
{
    switch (n) {
    case 1: return tsc_run<Adds1>("1", budget);
    case 2: return tsc_run<Adds2>("2", budget);
    case 4: return tsc_run<Adds4>("4", budget);
    case 8: return tsc_run<Adds8>("8", budget);
    case 16: return tsc_run<Adds16>("16", budget);
    case 32: return tsc_run<Adds32>("32", budget);
    default: return tsc_run<Adds64>("64", budget);
    }
}

std::string loadavg()
{
    char b[64] = "unknown";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        double a, c, d;
        if (fscanf(f, "%lf %lf %lf", &a, &c, &d) == 3)
            snprintf(b, sizeof b, "%.2f %.2f %.2f", a, c, d);
        fclose(f);
    }
    return b;
}

void count_reason(std::vector<std::pair<std::string, int>> *v, const std::string &k)
{
    for (auto &p : *v)
        if (p.first == k) {
            p.second++;
            return;
        }
    v->push_back({k, 1});
}

const char *held(bool ok) { return ok ? "held" : "**missed**"; }

int parent(const char *self, int tiny, const char *plot)
{
    const int ns_[] = {1, 2, 4, 8, 16, 32, 64};
    const int nn = 7;
    const int passes = tiny ? 1 : 3;
    const int rounds = tiny ? 2 : 5;
    const double budget = tiny ? 0.005 : 0; // 0: the default, 0.1 s
    std::string load0 = loadavg();
    double t_start = mono_seconds();
    double hz = tsc_ticks_per_second(), tick_ns = 1e9 / hz;

    // 1. Linearity: passes over n = 1..64, each n one TSC_BENCH run.
    std::vector<std::vector<double>> net(nn), raw(nn), loop(nn), err(nn);
    std::vector<Fit> pass_net, pass_raw;
    std::vector<double> xs(ns_, ns_ + nn);
    int unstable_lin = 0;
    std::vector<std::pair<std::string, int>> lin_reasons;
    for (int p = 0; p < passes; p++) {
        std::vector<double> yn, yr;
        for (int i = 0; i < nn; i++) {
            struct tsc_bench_result r = lin_one(ns_[i], budget);
            net[i].push_back(r.ticks_per_op);
            raw[i].push_back(r.raw_ticks_per_op);
            loop[i].push_back(r.loop_ticks_per_op);
            err[i].push_back(r.err_pct);
            unstable_lin += r.unstable;
            if (r.unstable)
                count_reason(&lin_reasons, r.reason);
            yn.push_back(r.ticks_per_op);
            yr.push_back(r.raw_ticks_per_op);
        }
        pass_net.push_back(fit_line(xs, yn));
        pass_raw.push_back(fit_line(xs, yr));
    }
    std::vector<double> mnet(nn), mraw(nn);
    for (int i = 0; i < nn; i++) {
        mnet[i] = median(net[i]);
        mraw[i] = median(raw[i]);
    }
    Fit fn = fit_line(xs, mnet), fr = fit_line(xs, mraw);
    double t_lin = mono_seconds() - t_start;

    // 2. and 3.: rounds of fresh processes, each tool on each snippet.
    const int nsnip = 3;
    std::vector<Sample> got[nsnip][3];
    int failed[nsnip][3] = {{0}};
    std::string fail_why[nsnip][3];
    for (int r = 0; r < rounds; r++)
        for (int s = 0; s < nsnip; s++)
            for (int k = 0; k < kNumTools; k++) {
                int t = (k + r) % kNumTools; // the order turns each round
                Sample smp;
                std::string why;
                if (spawn(self, kTools[t].id, kSnips[s].id, hz, tiny, &smp, &why)) {
                    got[s][t].push_back(smp);
                } else {
                    failed[s][t]++;
                    fail_why[s][t] = why;
                }
            }
    std::string load1 = loadavg();
    double t_all = mono_seconds() - t_start;

    // --- the section --------------------------------------------------------
    printf("## Microbenchmarks\n\n");
    printf("`bench/bench_micro`, one run of %.1f s; load average %s at its start, %s at\n"
           "its end (1, 5, 15 min; %ld logical CPUs, shared). The snippets are chains\n"
           "of dependent 64-bit register adds, %s, so\n"
           "their cost is known: one core cycle per add. Ticks are TSC ticks at the\n"
           "calibrated %.6f MHz; the core's own clock may differ (turbo), so a\n"
           "slope of ticks per add is TSC rate / core clock. No process is pinned.\n\n",
           t_all, load0.c_str(), load1.c_str(), sysconf(_SC_NPROCESSORS_ONLN), CHAIN_INSN,
           hz / 1e6);

    printf("### Linearity\n\n");
    printf("A chain of n adds as the body of `TSC_BENCH` (budget %s), n = 1 to\n"
           "64 in turn, %d pass%s; each row the median of the passes. net: the figure\n"
           "TSC_BENCH reports (`ticks_per_op`, the empty loop's cost subtracted);\n"
           "raw: `raw_ticks_per_op`, the loop not subtracted; loop: the subtracted\n"
           "`loop_ticks_per_op`; err%%: the run's own `err_pct`. The chain is carried\n"
           "from one run of the body to the next, so the loop's decrement and branch\n"
           "run beside it: raw is the chain alone, and net is about one loop\n"
           "iteration low (the README says so).\n\n",
           tiny ? "0.005 s, --tiny" : "0.1 s, the default", passes, passes == 1 ? "" : "es");
    printf("| n adds | net ticks/op | raw ticks/op | loop ticks/iter | net per add | raw per add | err%% |\n"
           "|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < nn; i++)
        printf("| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f |\n", ns_[i], mnet[i], mraw[i],
               median(loop[i]), mnet[i] / ns_[i], mraw[i] / ns_[i], median(err[i]));
    if (unstable_lin) {
        printf("\n%d of the %d runs said unstable (its `reason`):\n\n", unstable_lin, passes * nn);
        for (const auto &p : lin_reasons)
            printf("- %s: %d\n", p.first.c_str(), p.second);
    }
    auto range = [](const std::vector<Fit> &v, int what) {
        double lo = INFINITY, hi = -INFINITY;
        for (const Fit &f : v) {
            double x = what == 0 ? f.r2 : f.a;
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
        char b[64];
        snprintf(b, sizeof b, what == 0 ? "%.5f to %.5f" : "%+.3f to %+.3f", lo, hi);
        return std::string(b);
    };
    printf("\nLeast-squares line ticks/op = intercept + slope × n over the 7 points\n"
           "(unweighted; the medians above; in brackets the range over the %d\n"
           "passes fitted one by one). The goal (the issue's): R² ≥ 0.999 and the\n"
           "intercept within ±0.5 tick.\n\n",
           passes);
    printf("| series | slope, ticks/add | core clock implied | intercept, ticks | R² | goal |\n"
           "|---|---:|---:|---:|---:|---|\n");
    bool net_ok = fn.r2 >= 0.999 && std::fabs(fn.a) <= 0.5;
    bool raw_ok = fr.r2 >= 0.999 && std::fabs(fr.a) <= 0.5;
    printf("| net (`ticks_per_op`) | %.4f | %.0f MHz | %+.3f (%s) | %.5f (%s) | %s |\n", fn.b,
           hz / fn.b / 1e6, fn.a, range(pass_net, 1).c_str(), fn.r2, range(pass_net, 0).c_str(),
           held(net_ok));
    printf("| raw (`raw_ticks_per_op`) | %.4f | %.0f MHz | %+.3f (%s) | %.5f (%s) | %s |\n", fr.b,
           hz / fr.b / 1e6, fr.a, range(pass_raw, 1).c_str(), fr.r2, range(pass_raw, 0).c_str(),
           held(raw_ok));
    printf("\nLinearity took %.1f s in all (%d TSC_BENCH runs).\n", t_lin, passes * nn);
    printf("\n![linearity: ticks/op against n](micro_linearity.png)\n\n");

    printf("### Repeatability, and against Highway and Google Benchmark\n\n");
    printf("Each tool measures each snippet in %d fresh processes (this program\n"
           "runs itself again; %d rounds, each round every snippet with every tool,\n"
           "the tools' order turned each round). value: the median over the\n"
           "processes of what the tool reports, ns per op; min–max over them;\n"
           "spread = (max − min) / median (n/a: a median of 0, or fewer than 2\n"
           "values); time to result: wall time\n"
           "(`CLOCK_MONOTONIC`) of the measuring call in the child, median over the\n"
           "processes; process: fork to exit, as the parent saw it.\n\n",
           rounds, rounds);
    printf("- **TSC_BENCH**: `TSC_BENCH` with %s (it stops\n"
           "  sooner once err%% ≤ 1 after ≥ 31 batches), the chain carried from one\n"
           "  run of the body to the next. value: `ns_per_op` (loop subtracted); the\n"
           "  raw row: `raw_ticks_per_op` at the calibrated rate, same runs. Its\n"
           "  time includes the first-use calibration (`tsc_init`, about 10 ms),\n"
           "  which the first `TSC_BENCH` does. For 1 add the net figure is 0\n"
           "  within its noise by construction (the chain hides the loop, see\n"
           "  Linearity), so its spread, relative to about 0, says nothing: the\n"
           "  raw row is the one to compare.\n",
           tiny ? "a budget of 0.005 s (--tiny)" : "the default budget, 0.1 s");
#if defined(BENCH_HAVE_HWY)
    printf("- **Highway** `hwy::MeasureClosure` (libhwy %s, default `Params`\n"
           "  but `verbose = false`), one input; the closure takes the input, runs\n"
           "  the chain on it and returns it (nanobenchmark's idiom: successive\n"
           "  calls are independent, and the cost of an empty function call is\n"
           "  subtracted by Highway), so the chains of successive calls overlap\n"
           "  in the core: its 16 adds are a throughput, not the chain's latency.\n"
           "  It samples until the median absolute deviation is 0.2 %% of the\n"
           "  mode, or 9 rounds (its defaults). Its `ticks` are TSC ticks on x86-64 (its\n"
           "  timer is `lfence;rdtsc;lfence` / `rdtscp;lfence`, seen in the\n"
           "  library's code), converted at this run's calibrated rate (passed to\n"
           "  the child). Time: the `MeasureClosure` call.\n",
#if defined(BENCH_HWY_VERSION)
           BENCH_HWY_VERSION
#else
           "?"
#endif
    );
#endif
#if defined(BENCH_HAVE_GBENCH)
    printf("- **Google Benchmark** (libbenchmark %s), the snippet in `for (auto _ :\n"
           "  state)` with the chain carried across iterations, registered with\n"
           "  `RegisterBenchmark`, run with `RunSpecifiedBenchmarks` and a reporter\n"
           "  that keeps the real time per iteration; default settings\n"
           "  (`--benchmark_min_time` %s, one repetition). Its loop's cost is\n"
           "  not subtracted (compare with the raw row). Time: `Initialize` to the\n"
           "  end of `RunSpecifiedBenchmarks`.\n",
#if defined(BENCH_GBENCH_VERSION)
           BENCH_GBENCH_VERSION,
#else
           "?",
#endif
           tiny ? "0.001 s (--tiny)" : "0.5 s");
#endif
#if !defined(BENCH_HAVE_HWY)
    printf("- Highway: not built (libhwy not found).\n");
#endif
#if !defined(BENCH_HAVE_GBENCH)
    printf("- Google Benchmark: not built (libbenchmark not found).\n");
#endif
    printf("\n| snippet | tool | value, ns/op | min–max | spread | time to result, ms | process, ms |\n"
           "|---|---|---:|---:|---:|---:|---:|\n");
    double sp_tsc[nsnip], sp_raw[nsnip], sp_other[nsnip][3], t_tsc[nsnip], t_gb[nsnip];
    for (int s = 0; s < nsnip; s++) {
        t_gb[s] = sp_tsc[s] = sp_raw[s] = t_tsc[s] = NAN;
        for (int t = 0; t < 3; t++)
            sp_other[s][t] = NAN;
        for (int t = 0; t < kNumTools; t++) {
            for (int rawrow = 0; rawrow < (t == 0 ? 2 : 1); rawrow++) {
                std::vector<double> v, call, proc;
                for (const Sample &x : got[s][t]) {
                    v.push_back(rawrow ? x.raw_ns : x.ns);
                    call.push_back(x.call_s * 1e3);
                    proc.push_back(x.proc_s * 1e3);
                }
                const char *label = rawrow ? "TSC_BENCH (raw)" : kTools[t].label;
                if (v.empty()) {
                    printf("| %s | %s | failed in all %d (\"%s\") | | | | |\n", kSnips[s].label,
                           label, failed[s][t], fail_why[s][t].c_str());
                    continue;
                }
                auto mm = std::minmax_element(v.begin(), v.end());
                double sp = spread(v);
                printf("| %s | %s | %.3f", kSnips[s].label, label, median(v));
                if (failed[s][t])
                    printf(" (of %zu: %d of %d processes failed, \"%s\")", v.size(), failed[s][t],
                           rounds, fail_why[s][t].c_str());
                printf(" | %.3f–%.3f | %s | %.1f | %.1f |\n", *mm.first, *mm.second,
                       pct(sp).c_str(), median(call), median(proc));
                if (t == 0 && !rawrow) {
                    sp_tsc[s] = sp;
                    t_tsc[s] = median(call);
                } else if (t == 0) {
                    sp_raw[s] = sp;
                } else {
                    sp_other[s][t] = sp;
                }
                if (std::string(kTools[t].id) == "gbench")
                    t_gb[s] = median(call);
            }
        }
    }
    int unstable_rep = 0, nrep = 0;
    std::vector<std::pair<std::string, int>> reasons; // reason (snippet), count
    for (int s = 0; s < nsnip; s++)
        for (const Sample &x : got[s][0]) {
            unstable_rep += x.unstable;
            nrep++;
            if (!x.unstable)
                continue;
            count_reason(&reasons, std::string(kSnips[s].label) + ": " + x.reason);
        }
    printf("\nThe known cost, for scale: one add is one core cycle, %.3f ns at the\n"
           "clock implied by the raw slope above (%.0f MHz); 16 adds %.2f ns; the\n"
           "long snippet %.0f ns.",
           fr.b * tick_ns, hz / fr.b / 1e6, 16 * fr.b * tick_ns, kLongReps * 64 * fr.b * tick_ns);
    if (unstable_rep) {
        printf(" %d of the %d TSC_BENCH child runs said unstable (`unstable`, its `reason`):\n\n",
               unstable_rep, nrep);
        for (const auto &p : reasons)
            printf("- %s: %d\n", p.first.c_str(), p.second);
    }
    printf("\n");

    printf("Goals (the issue's), this run:\n\n");
    printf("| goal | figure | |\n|---|---|---|\n");
    printf("| linearity, net: R² ≥ 0.999, \\|intercept\\| ≤ 0.5 tick | R² %.5f, intercept %+.3f | %s |\n",
           fn.r2, fn.a, held(net_ok));
    printf("| linearity, raw: R² ≥ 0.999, \\|intercept\\| ≤ 0.5 tick | R² %.5f, intercept %+.3f | %s |\n",
           fr.r2, fr.a, held(raw_ok));
    // A spread goal on TSC_BENCH: judged on the figure it reports (net);
    // where that is 0 (a chain that hides the loop) the spread is undefined,
    // and the raw figure's is given beside it.
    auto judge = [&](int s_, double other) -> std::string {
        std::string r;
        if (std::isnan(other))
            return std::string("n/a: their spread is undefined");
        bool net_ok = !std::isnan(sp_tsc[s_]) && sp_tsc[s_] <= other;
        bool raw_ok = !std::isnan(sp_raw[s_]) && sp_raw[s_] <= other;
        r = std::string(held(net_ok)) + " (net)";
        if (net_ok != raw_ok)
            r += std::string("; raw: ") + held(raw_ok);
        return r;
    };
    auto ours = [&](int s_) {
        return "net " + pct(sp_tsc[s_]) + ", raw " + pct(sp_raw[s_]);
    };
    printf("| spread, 1 add ≤ 3 %% | %s | %s |\n", ours(0).c_str(), judge(0, 0.03).c_str());
    printf("| spread, ~10 us ≤ 1 %% | %s | %s |\n", ours(2).c_str(), judge(2, 0.01).c_str());
    for (int s = 0; s < nsnip; s++) {
        for (int t = 1; t < kNumTools; t++)
            printf("| spread ≤ %s's, %s | %s vs %s | %s |\n", kTools[t].label, kSnips[s].label,
                   ours(s).c_str(), pct(sp_other[s][t]).c_str(), judge(s, sp_other[s][t]).c_str());
        if (!std::isnan(t_gb[s]))
            printf("| time ≤ Google Benchmark's / 10, %s | %.1f ms vs %.1f ms (%.1f %%) | %s |\n",
                   kSnips[s].label, t_tsc[s], t_gb[s], 100.0 * t_tsc[s] / t_gb[s],
                   held(t_tsc[s] <= t_gb[s] / 10));
    }

    if (plot) {
        FILE *pf = fopen(plot, "w");
        if (pf) {
            fprintf(pf, "# n net_ticks raw_ticks (medians of %d passes)\n", passes);
            fprintf(pf, "# fit net %.6f %.6f %.6f\n", fn.a, fn.b, fn.r2);
            fprintf(pf, "# fit raw %.6f %.6f %.6f\n", fr.a, fr.b, fr.r2);
            for (int i = 0; i < nn; i++)
                fprintf(pf, "%d %.6f %.6f\n", ns_[i], mnet[i], mraw[i]);
            fclose(pf);
        }
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    int tiny = bench_tiny(argc, argv);
    if (argc >= 5 && std::string(argv[1]) == "--child") {
        std::string tool = argv[2], snip = argv[3];
        double hz = atof(argv[4]);
        if (tool == "tsc")
            return child_tsc(snip, tiny);
#if defined(BENCH_HAVE_HWY)
        if (tool == "hwy")
            return child_hwy(snip, hz, tiny);
#endif
#if defined(BENCH_HAVE_GBENCH)
        if (tool == "gbench")
            return child_gbench(snip, tiny);
#endif
        (void)hz;
        return 2;
    }
    const char *plot = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (std::string(argv[i]) == "--plot")
            plot = argv[i + 1];
    return parent(argv[0], tiny, plot);
}

#else // a header without TSC_BENCH (bench/compare's older build)

int main(void)
{
    printf("## Microbenchmarks\n\nNot built: this header has no TSC_BENCH.\n");
    return 0;
}

#endif
