/* SPDX-License-Identifier: MIT */
/*
 * tsc-info: can this machine be trusted for timing with its counter?
 *
 * Gathers what the CPU, the hypervisor and the kernel say about the counter
 * tsc_timer reads, checks the claims that can be checked (RDTSCP executes,
 * the calibrated frequency, the offsets between cores), and ends with a
 * verdict: OK, CAUTION or UNSAFE, each with its reasons. The judgement of
 * the counter itself is the library's tsc_trust() (one source of truth);
 * the tool's measurements can only make the verdict graver. `--json`
 * prints the same facts as one JSON object. Exit status 0 whenever it ran.
 *
 * Linux only (it pins threads, forks, reads /proc and /sys); the x86 parts
 * are guarded so it builds for every Linux target the header supports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tsc_timer.h"

/* The tool uses only the library's public API; what it needs beyond that
 * (CPUID, RDTSCP, the OS clock, a spin-wait hint) it does itself. INFO_X86:
 * x86 facts are gathered and printed; not under TSC_TIMER_FORCE_FALLBACK,
 * where the library reads the OS clock and states no x86 features. */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(TSC_TIMER_FORCE_FALLBACK)
#define INFO_X86 1
#include <cpuid.h>
#endif

#if defined(TSC_INFO_HAVE_LIBCPUID)
#include <libcpuid/libcpuid.h>
#endif

#define INFO_MAX_CPUS 64     /* cores compared pairwise: the first 64 allowed */
#define INFO_MAX_REASONS 16
#define INFO_PAIRS_BUDGET_S 0.4 /* all pairs together, at most (plus thread starts) */
#define INFO_MIN_ROUNDS 16      /* per pair, past its budget: one slow round is no bound */
#define INFO_PAIR_CAP_S 0.25    /* per pair, for the readiness wait and for the rounds */

enum { LEVEL_NOTE, LEVEL_CAUTION, LEVEL_UNSAFE };
static const char *const level_names[] = {"note", "caution", "unsafe"};
static const char *const verdict_names[] = {"OK", "CAUTION", "UNSAFE"};
static const char *const trust_names[] = {"ok", "caution", "unsafe"};

/* tsc_trust()'s level as a name; "unsafe" for a level it does not know. */
static const char *trust_name(int level)
{
    return level >= TSC_TRUST_OK && level <= TSC_TRUST_UNSAFE ? trust_names[level] : "unsafe";
}

/* One pair of CPUs: offset = counter(b) - counter(a) lies in [lower, upper]. */
struct pair {
    int a, b;
    int measured;            /* 1: at least one round trip completed        */
    const char *failure;     /* why not measured                            */
    uint64_t round_trips;    /* completed                                   */
    int64_t lower, upper;    /* ticks                                       */
    uint64_t round_trip;     /* narrowest round trip, ticks                 */
};

struct reason {
    int level;
    char text[240];
};

/* Everything the report says, gathered first, printed after. */
struct report {
    /* CPU */
    char vendor[16], brand[64], hypervisor[32], hv_signature[16];
    const char *cpu_source;
    /* counter and features */
    const char *counter;
    struct tsc_features f;
    int rdtscp_executes; /* 1, 0, or -1 where not tested */
    /* frequency */
    struct tsc_calibration cal;
    /* kernel */
    int have_clocksource;
    char clocksource[64], available[512];
    char boot_tsc[128]; /* the kernel command line's tsc= values */
    int have_cpuinfo_flags;
    int flag[6];
    int tsc_distrusted; /* 1, 0, or -1 where it does not apply */
    /* costs */
    uint64_t overhead_ticks;
    double overhead_ns, clock_gettime_ns;
    /* the core's clock while busy, estimated (0 where not measured) */
    double core_hz, core_err_pct;
    /* cores */
    int ncpus, cpus_allowed;
    int cpu[INFO_MAX_CPUS];
    int npairs;
    struct pair *pairs;
    int round_trips_asked;
    /* the library's verdict on the counter, and the optional skew bound */
    struct tsc_trust trust;
    int skew_asked, skew_rc;
    uint64_t skew_ticks;
    /* verdict */
    int nreasons;
    struct reason reasons[INFO_MAX_REASONS];
    double run_seconds;
};

static const char *const flag_names[6] = {"tsc", "rdtscp", "constant_tsc",
                                          "nonstop_tsc", "tsc_reliable", "tsc_known_freq"};
enum { F_TSC, F_RDTSCP, F_CONSTANT, F_NONSTOP, F_RELIABLE, F_KNOWN_FREQ };

static void add_reason(struct report *r, int level, const char *fmt, ...)
{
    va_list ap;
    if (r->nreasons >= INFO_MAX_REASONS)
        return;
    r->reasons[r->nreasons].level = level;
    va_start(ap, fmt);
    vsnprintf(r->reasons[r->nreasons].text, sizeof r->reasons[0].text, fmt, ap);
    va_end(ap);
    r->nreasons++;
}

static double ticks_to_ns(double ticks, const struct report *r)
{
    return ticks * 1e9 / r->cal.ticks_per_second;
}

/* --- small platform helpers --------------------------------------------- */

/* Spin-wait hint: lets the sibling hyperthread run while one thread polls. */
static inline void info_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#endif
}

/* The monotonic clock in nanoseconds. Where the library has no counter it
 * may read (RDTSC forbidden by prctl(PR_SET_TSC), or no TSC), the vDSO's
 * clock_gettime would execute RDTSC itself and fault: ask the kernel. */
static uint64_t info_ns(void)
{
    struct timespec ts = {0, 0}; /* stays 0 if the call failed */
#if defined(INFO_X86) && defined(SYS_clock_gettime)
    static int by_syscall = -1; /* decided on the first call, in main() */
    if (by_syscall < 0)
        by_syscall = !tsc_features().has_counter;
    if (by_syscall) {
        syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
    }
#endif
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

#if defined(INFO_X86)
static void info_cpuid(uint32_t leaf, uint32_t r[4])
{
    __cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
}

/* The leaf's registers, or zeros where the CPU does not have the leaf. */
static void info_cpuid_leaf(uint32_t leaf, uint32_t r[4])
{
    uint32_t max[4];
    info_cpuid(leaf & 0xF0000000u, max);
    r[0] = r[1] = r[2] = r[3] = 0;
    if (max[0] >= leaf)
        info_cpuid(leaf, r);
}

/* One RDTSCP, followed by LFENCE as the library executes it; may fault. */
static uint64_t info_rdtscp(uint32_t *aux)
{
    uint32_t lo, hi, c;
    __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(c) : : "memory");
    *aux = c;
    return ((uint64_t)hi << 32) | lo;
}
#endif

/* --- CPU identity -------------------------------------------------------- */

static void trim(char *s)
{
    size_t n = strlen(s), i = 0;
    while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
    while (s[i] == ' ')
        i++;
    memmove(s, s + i, n - i + 1);
}

#if defined(INFO_X86)
/* A name for the hypervisor signature of CPUID leaf 0x40000000. */
static const char *hypervisor_by_signature(const char *sig)
{
    static const char *const known[][2] = {
        {"KVMKVMKVM", "KVM"},          {"Microsoft Hv", "Hyper-V"},
        {"VMwareVMware", "VMware"},    {"XenVMMXenVMM", "Xen"},
        {"TCGTCGTCGTCG", "QEMU (TCG)"}, {"VBoxVBoxVBox", "VirtualBox"},
        {" lrpepyh  vr", "Parallels"}, {"bhyve bhyve ", "bhyve"},
        {"ACRNACRNACRN", "ACRN"},      {"QNXQVMBSQG", "QNX"}};
    size_t i;
    for (i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(sig, known[i][0]))
            return known[i][1];
    return sig[0] ? "unknown" : "";
}
#endif

#if defined(TSC_INFO_HAVE_LIBCPUID)
static const char *hypervisor_by_libcpuid(hypervisor_vendor_t v)
{
    switch (v) {
    case HYPERVISOR_BHYVE: return "bhyve";
    case HYPERVISOR_HYPERV: return "Hyper-V";
    case HYPERVISOR_KVM: return "KVM";
    case HYPERVISOR_PARALLELS: return "Parallels";
    case HYPERVISOR_QEMU: return "QEMU";
    case HYPERVISOR_VIRTUALBOX: return "VirtualBox";
    case HYPERVISOR_VMWARE: return "VMware";
    case HYPERVISOR_XEN: return "Xen";
    default: return "";
    }
}
#endif

static void identify_cpu(struct report *r)
{
    r->cpu_source = "none";
#if defined(INFO_X86)
    {
        uint32_t v[4], i;
        info_cpuid_leaf(0, v);
        memcpy(r->vendor, &v[1], 4);
        memcpy(r->vendor + 4, &v[3], 4);
        memcpy(r->vendor + 8, &v[2], 4);
        r->vendor[12] = '\0';
        info_cpuid_leaf(0x80000000u, v);
        if (v[0] >= 0x80000004u) {
            for (i = 0; i < 3; i++) {
                info_cpuid(0x80000002u + i, v);
                memcpy(r->brand + 16 * i, v, 16);
            }
            r->brand[48] = '\0';
            trim(r->brand);
        }
        if (r->f.hypervisor) {
            info_cpuid(0x40000000u, v);
            memcpy(r->hv_signature, &v[1], 4);
            memcpy(r->hv_signature + 4, &v[2], 4);
            memcpy(r->hv_signature + 8, &v[3], 4);
            r->hv_signature[12] = '\0';
            for (i = 0; i < 12; i++) /* keep the JSON and the terminal clean */
                if (r->hv_signature[i] && (r->hv_signature[i] < 0x20 || r->hv_signature[i] > 0x7e))
                    r->hv_signature[i] = '?';
            snprintf(r->hypervisor, sizeof r->hypervisor, "%s",
                     hypervisor_by_signature(r->hv_signature));
        }
        r->cpu_source = "CPUID";
    }
#endif
#if defined(TSC_INFO_HAVE_LIBCPUID)
    {
        struct cpu_raw_data_t raw;
        struct cpu_id_t id;
        if (cpuid_present() && cpuid_get_raw_data(&raw) == 0 && cpu_identify(&raw, &id) == 0) {
            const char *hv = hypervisor_by_libcpuid(cpuid_get_hypervisor(&raw, &id));
            snprintf(r->vendor, sizeof r->vendor, "%s", id.vendor_str);
            snprintf(r->brand, sizeof r->brand, "%s", id.brand_str);
            trim(r->brand);
            if (hv[0])
                snprintf(r->hypervisor, sizeof r->hypervisor, "%s", hv);
            r->cpu_source = "libcpuid";
        }
    }
#endif
}

/* --- RDTSCP: does the instruction execute? ------------------------------- */

/* Runs RDTSCP in a child, so a SIGILL (or SIGSEGV) kills only the child. */
static int rdtscp_executes(const struct report *r)
{
#if defined(INFO_X86)
    int status = 0;
    pid_t pid;
    if (!r->f.has_tsc || !r->f.os_allows_counter)
        return -1; /* it would fault for another reason */
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        struct rlimit none = {0, 0};
        uint32_t aux;
        setrlimit(RLIMIT_CORE, &none); /* a fault here is expected: no core file */
        info_rdtscp(&aux);
        _exit(0);
    }
    if (pid < 0)
        return -1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
#else
    (void)r;
    return -1;
#endif
}

/* --- kernel's view ------------------------------------------------------- */

/* First line of a file, without its newline; 0 on success. */
static int read_line(const char *path, char *buf, size_t n)
{
    FILE *fp = fopen(path, "r");
    int ok;
    if (!fp)
        return -1;
    ok = fgets(buf, (int)n, fp) != NULL;
    fclose(fp);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    trim(buf);
    return 0;
}

#if defined(INFO_X86)
/* 1 when the space-separated list holds the word. */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    const char *p = list;
    while ((p = strstr(p, word)) != NULL) {
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}
#endif

static void read_kernel_view(struct report *r)
{
    const char *cs = "/sys/devices/system/clocksource/clocksource0/";
    char path[128];
    snprintf(path, sizeof path, "%scurrent_clocksource", cs);
    r->have_clocksource = read_line(path, r->clocksource, sizeof r->clocksource) == 0;
    snprintf(path, sizeof path, "%savailable_clocksource", cs);
    if (read_line(path, r->available, sizeof r->available) != 0)
        r->have_clocksource = 0;
    r->tsc_distrusted = -1;
#if defined(INFO_X86)
    {
        FILE *fp = fopen("/proc/cpuinfo", "r");
        char *line = NULL;
        size_t cap = 0;
        int i;
        while (fp && getline(&line, &cap, fp) > 0) {
            if (strncmp(line, "flags", 5) != 0)
                continue;
            line[strcspn(line, "\n")] = '\0';
            for (i = 0; i < 6; i++)
                r->flag[i] = has_word(strchr(line, ':') ? strchr(line, ':') + 1 : line,
                                      flag_names[i]);
            r->have_cpuinfo_flags = 1;
            break;
        }
        free(line);
        if (fp)
            fclose(fp);
    }
    {
        /* tsc=... on the kernel command line (tsc=unstable, tsc=reliable). */
        char cmdline[4096], *tok, *save = NULL;
        if (read_line("/proc/cmdline", cmdline, sizeof cmdline) == 0)
            for (tok = strtok_r(cmdline, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
                if (!strncmp(tok, "tsc=", 4) &&
                    strlen(r->boot_tsc) + strlen(tok) + 2 < sizeof r->boot_tsc)
                    snprintf(r->boot_tsc + strlen(r->boot_tsc),
                             sizeof r->boot_tsc - strlen(r->boot_tsc), "%s%s",
                             r->boot_tsc[0] ? " " : "", tok + 4);
    }
    /* Distrusted: the CPU has a TSC (the kernel's own "tsc" flag) and the
     * kernel either was told so at boot (tsc=unstable) or does not offer the
     * TSC as a clocksource: a TSC marked unstable (clocksource watchdog,
     * failed sync check, tsc=unstable) loses its high-resolution flag and
     * leaves available_clocksource. */
    if (r->have_clocksource && r->have_cpuinfo_flags && r->flag[F_TSC])
        r->tsc_distrusted = !has_word(r->available, "tsc") || has_word(r->boot_tsc, "unstable");
#endif
}

/* --- costs --------------------------------------------------------------- */

static void measure_costs(struct report *r)
{
    uint64_t best = UINT64_MAX, t0, t1, calls;
    int i;
    r->overhead_ticks = tsc_overhead_ticks();
    r->overhead_ns = ticks_to_ns((double)r->overhead_ticks, r);
    /* The narrowest before/after region around one clock_gettime call, less
     * the empty region: what the call adds, measured the same way. */
    for (i = 0; i < 2048; i++) {
        t0 = tsc_ticks_before();
        info_ns();
        t1 = tsc_ticks_after();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    calls = best > r->overhead_ticks ? best - r->overhead_ticks : 0;
    r->clock_gettime_ns = ticks_to_ns((double)calls, r);
}

/* The core's clock while busy, estimated with TSC_BENCH: a chain of 64
 * dependent register adds (x += x), one per core cycle on every x86 core
 * of the last 15 years (and on AArch64 cores), so core cycles per tick =
 * 64 / ticks per run. Not `add $1`: recent Intel cores (Golden Cove) fold
 * chains of immediate adds at rename, 6 a cycle, measured 17 GHz here. The raw figure: the loop's own cost hides behind the chain. An
 * estimate: it assumes that one add per cycle, and shows the clock of this
 * core at this moment (turbo, throttling). */
static void measure_core_clock(struct report *r)
{
#if (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)) && defined(__GNUC__) && \
    !defined(TSC_TIMER_FORCE_FALLBACK)
    static struct tsc_bench b;
    struct tsc_bench_result res;
    unsigned long x = 1;
    if (!tsc_features().has_counter)
        return;
    tsc_bench_init(&b, "64 dependent adds");
    tsc_bench_set_budget(&b, 0.05);
    TSC_BENCH(&b) {
#if defined(__aarch64__)
        __asm__ __volatile__(".rept 64\n\tadd %0, %0, %0\n\t.endr" : "+r"(x));
#else
        __asm__ __volatile__(".rept 64\n\tadd %0, %0\n\t.endr" : "+r"(x));
#endif
    }
    TSC_KEEP(x);
    if (tsc_bench_result(&b, &res) == 0 && res.raw_ticks_per_op > 0) {
        r->core_hz = 64.0 / res.raw_ticks_per_op * r->cal.ticks_per_second;
        r->core_err_pct = res.err_pct;
    }
#else
    (void)r;
#endif
}

/* --- cross-core offsets: ping-pong between two pinned threads ------------ */

/* The one cache line the two threads exchange. */
struct pp_line {
    uint64_t seq;   /* A: the round it asks (t1 taken before it is written) */
    uint64_t t1;    /* A's counter, for the record                         */
    uint64_t ack;   /* B: the round it answers                             */
    uint64_t t2;    /* B's counter, read after it saw `seq`                */
    uint32_t ready; /* threads pinned and waiting                          */
    uint32_t stop;  /* A is done: B leaves                                 */
} __attribute__((aligned(64)));

struct pp {
    struct pp_line line;
    struct pair *p;
    int rounds;
    double limit_s;
    uint32_t failed; /* a thread could not be pinned */
};

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* A counter read ordered after the load before it and before the store after
 * it. On x86 the LFENCEs of tsc_ticks_before() do that; elsewhere a full
 * barrier first. */
static inline uint64_t pp_read(void)
{
#if !defined(INFO_X86)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
    return tsc_ticks_before();
}

/* Pins the calling thread to one CPU and checks it runs there. */
static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return -1;
    return sched_getcpu() == cpu ? 0 : -1;
}

static void *pp_answer(void *arg) /* thread B */
{
    struct pp *s = (struct pp *)arg;
    uint64_t round = 0, asked;
    if (pin_to(s->p->b) != 0) {
        STORE(s->failed, 1u);
        return NULL;
    }
    __atomic_add_fetch(&s->line.ready, 1u, __ATOMIC_ACQ_REL);
    for (;;) {
        while ((asked = LOAD(s->line.seq)) == round) {
            if (LOAD(s->line.stop))
                return NULL;
            info_pause();
        }
        __atomic_store_n(&s->line.t2, pp_read(), __ATOMIC_RELAXED);
        STORE(s->line.ack, asked);
        round = asked;
    }
}

static void *pp_ask(void *arg) /* thread A */
{
    struct pp *s = (struct pp *)arg;
    struct pair *p = s->p;
    uint64_t deadline, cap, i, t1, t2, t3;
    unsigned spins = 0;
    if (pin_to(p->a) != 0) {
        STORE(s->failed, 1u);
        STORE(s->line.stop, 1u);
        return NULL;
    }
    __atomic_add_fetch(&s->line.ready, 1u, __ATOMIC_ACQ_REL);
    /* The budget starts once both threads run on their CPUs (starting and
     * moving a thread can take milliseconds); past it, the rounds go on to
     * INFO_MIN_ROUNDS, as long as the cap allows (a CPU busy with others). */
    cap = info_ns() + (uint64_t)(INFO_PAIR_CAP_S * 1e9);
    while (LOAD(s->line.ready) < 2u && !LOAD(s->failed) && info_ns() < cap)
        info_pause();
    deadline = info_ns() + (uint64_t)(s->limit_s * 1e9);
    cap = deadline + (uint64_t)(INFO_PAIR_CAP_S * 1e9);
    p->lower = INT64_MIN;
    p->upper = INT64_MAX;
    p->round_trip = UINT64_MAX;
    for (i = 1; LOAD(s->line.ready) == 2u && i <= (uint64_t)s->rounds; i++) {
        t1 = pp_read();
        __atomic_store_n(&s->line.t1, t1, __ATOMIC_RELAXED);
        STORE(s->line.seq, i);
        while (LOAD(s->line.ack) != i) {
            info_pause();
            if (++spins % 256u == 0) {
                uint64_t now = info_ns();
                if (now > cap || (now > deadline && i > INFO_MIN_ROUNDS))
                    goto out;
            }
        }
        t2 = __atomic_load_n(&s->line.t2, __ATOMIC_RELAXED);
        t3 = pp_read();
        /* B read t2 after A's t1 and before A's t3, so the offset
         * (B's counter - A's) lies in [t2 - t3, t2 - t1]; every round
         * bounds the same offset, so keep the tightest of each side. */
        if ((int64_t)(t2 - t3) > p->lower)
            p->lower = (int64_t)(t2 - t3);
        if ((int64_t)(t2 - t1) < p->upper)
            p->upper = (int64_t)(t2 - t1);
        if (t3 - t1 < p->round_trip)
            p->round_trip = t3 - t1;
        p->round_trips = i;
    }
out:
    STORE(s->line.stop, 1u);
    return NULL;
}

static void measure_pair(struct pair *p, int rounds, double limit_s)
{
    pthread_t ta, tb;
    struct pp *s;
    if (posix_memalign((void **)&s, 64, sizeof *s) != 0) {
        p->failure = "out of memory";
        return;
    }
    memset(s, 0, sizeof *s);
    s->p = p;
    s->rounds = rounds;
    s->limit_s = limit_s;
    if (pthread_create(&tb, NULL, pp_answer, s) != 0) {
        p->failure = "could not start a thread";
        free(s);
        return;
    }
    if (pthread_create(&ta, NULL, pp_ask, s) != 0) {
        STORE(s->line.stop, 1u);
        pthread_join(tb, NULL);
        p->failure = "could not start a thread";
        free(s);
        return;
    }
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    p->measured = p->round_trips > 0;
    if (!p->measured)
        p->failure = s->failed ? "could not pin a thread to its CPU"
                               : "no round trip completed in time";
    free(s);
}

static void measure_cores(struct report *r)
{
    cpu_set_t set;
    int c, i, j, k;
    double limit;
    r->ncpus = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    r->cpus_allowed = CPU_COUNT(&set);
    for (c = 0; c < CPU_SETSIZE && r->ncpus < INFO_MAX_CPUS; c++)
        if (CPU_ISSET(c, &set))
            r->cpu[r->ncpus++] = c;
    r->npairs = r->ncpus * (r->ncpus - 1) / 2;
    if (r->npairs == 0)
        return;
    r->pairs = (struct pair *)calloc((size_t)r->npairs, sizeof *r->pairs);
    if (!r->pairs) {
        r->npairs = 0;
        return;
    }
    /* Each pair gets its share of the budget, between 2 and 100 ms. */
    limit = INFO_PAIRS_BUDGET_S / r->npairs;
    limit = limit < 0.002 ? 0.002 : limit > 0.1 ? 0.1 : limit;
    for (i = 0, k = 0; i < r->ncpus; i++)
        for (j = i + 1; j < r->ncpus; j++, k++) {
            r->pairs[k].a = r->cpu[i];
            r->pairs[k].b = r->cpu[j];
            measure_pair(&r->pairs[k], r->round_trips_asked, limit);
        }
}

/* How far the pair's offset is, for sure, from 0 (0 if it may be 0). */
static int64_t proven_offset(const struct pair *p)
{
    if (p->lower > 0)
        return p->lower;
    if (p->upper < 0)
        return -p->upper;
    return 0;
}

/* The largest offset the pair may have: its "up to" value. */
static uint64_t offset_bound(const struct pair *p)
{
    uint64_t lo = p->lower < 0 ? (uint64_t)0 - (uint64_t)p->lower : (uint64_t)p->lower;
    uint64_t hi = p->upper < 0 ? (uint64_t)0 - (uint64_t)p->upper : (uint64_t)p->upper;
    return lo > hi ? lo : hi;
}

/* Index of the pair with the largest offset bound, or -1. */
static int worst_pair(const struct report *r)
{
    int k, w = -1;
    for (k = 0; k < r->npairs; k++)
        if (r->pairs[k].measured && (w < 0 || offset_bound(&r->pairs[k]) > offset_bound(&r->pairs[w])))
            w = k;
    return w;
}

/* --- verdict ------------------------------------------------------------- */

static int verdict_level(const struct report *r)
{
    int i, v = 0;
    for (i = 0; i < r->nreasons; i++)
        if (r->reasons[i].level == LEVEL_CAUTION && v < 1)
            v = 1;
        else if (r->reasons[i].level == LEVEL_UNSAFE)
            v = 2;
    return v;
}

static void judge_frequency(struct report *r, const char *what, double stated)
{
    double ppm;
    if (!(stated > 0))
        return;
    ppm = (r->cal.ticks_per_second - stated) / stated * 1e6;
    /* 100 ppm: far beyond the kHz rounding of the stated figures and the
     * calibration's own error; a counter that is not at the stated rate. */
    if (fabs(ppm) > 100 && fabs(ppm) > 3 * r->cal.uncertainty_ppm)
        add_reason(r, LEVEL_CAUTION, "calibrated frequency differs from %s by %+.0f ppm", what,
                   ppm);
}

static void judge(struct report *r)
{
    const struct tsc_features *f = &r->f;
    int k, w, contradict = -1, proven = -1, unmeasured = 0;
    int64_t most = 0;

    /* The counter itself: the library's verdict (CPUID, the kernel's
     * clocksource, the permission to read), at its own level. */
    add_reason(r, r->trust.level == TSC_TRUST_OK        ? LEVEL_NOTE
                  : r->trust.level == TSC_TRUST_CAUTION ? LEVEL_CAUTION
                                                        : LEVEL_UNSAFE,
               "tsc_trust: %s", r->trust.reason);
    if (!f->has_counter)
        add_reason(r, LEVEL_NOTE, "no hardware counter read: %s", r->counter);
#if defined(INFO_X86)
    if (f->has_counter && !f->has_invariant_tsc && r->flag[F_CONSTANT] && r->flag[F_NONSTOP])
        add_reason(r, LEVEL_NOTE, "CPUID hides the invariant-TSC bit; the kernel's "
                                  "constant_tsc and nonstop_tsc vouch for a constant rate");
    if (r->rdtscp_executes == 0 && f->has_rdtscp)
        add_reason(r, f->uses_rdtscp ? LEVEL_UNSAFE : LEVEL_NOTE,
                   "CPUID advertises RDTSCP but it faults%s", f->uses_rdtscp
                       ? ": tsc_timer executes it here (build with TSC_TIMER_NO_RDTSCP)" : "");
    if (r->rdtscp_executes == 1 && !f->has_rdtscp)
        add_reason(r, LEVEL_NOTE, "CPUID hides RDTSCP but it executes (tsc_timer uses "
                                  "LFENCE;RDTSC;LFENCE after a region, ordered the same way)");
    /* tsc_trust() reads the clocksource files; a boot parameter
     * tsc=unstable that left the TSC offered is for the tool to add. */
    if (f->has_counter && r->tsc_distrusted == 1 && has_word(r->available, "tsc"))
        add_reason(r, LEVEL_CAUTION, "kernel marked the TSC unstable (boot parameter "
                                     "tsc=unstable; clocksource %s)", r->clocksource);
#endif
    if (f->hypervisor)
        add_reason(r, LEVEL_NOTE, "running under a hypervisor (%s): the counter is virtualised; "
                                  "pauses and migrations of the VM show up in timings",
                   r->hypervisor[0] ? r->hypervisor : "unknown");
    if (!f->frequency_is_architectural && r->cal.uncertainty_ppm > 10)
        add_reason(r, LEVEL_CAUTION, "calibration uncertain to %.1f ppm (busy machine?)",
                   r->cal.uncertainty_ppm);
    judge_frequency(r, "CPUID 0x15", f->cpuid_15_hz);
    judge_frequency(r, "hypervisor leaf 0x40000010", f->hypervisor_hz);

    for (k = 0; k < r->npairs; k++) {
        const struct pair *p = &r->pairs[k];
        if (!p->measured) {
            unmeasured++;
            continue;
        }
        if (p->lower > p->upper && contradict < 0)
            contradict = k;
        else if (p->lower <= p->upper && proven_offset(p) > most) {
            most = proven_offset(p);
            proven = k;
        }
    }
    w = worst_pair(r);
    if (contradict >= 0)
        add_reason(r, LEVEL_UNSAFE, "cross-core readings contradict each other (cpu%d, cpu%d: "
                                    "lower bound %.0f ns above upper bound %.0f ns): the counters "
                                    "drift apart or reads are not ordered",
                   r->pairs[contradict].a, r->pairs[contradict].b,
                   ticks_to_ns((double)r->pairs[contradict].lower, r),
                   ticks_to_ns((double)r->pairs[contradict].upper, r));
    if (proven >= 0)
        add_reason(r, ticks_to_ns((double)most, r) > 1000 ? LEVEL_UNSAFE : LEVEL_CAUTION,
                   "cross-core offset up to %.0f ns (at least %.0f ns between cpu%d and cpu%d)",
                   ticks_to_ns((double)offset_bound(&r->pairs[w]), r), ticks_to_ns((double)most, r),
                   r->pairs[proven].a, r->pairs[proven].b);
    if (unmeasured)
        add_reason(r, LEVEL_CAUTION, "cross-core offset not measured for %d of %d CPU pairs",
                   unmeasured, r->npairs);
    if (r->npairs == 0)
        add_reason(r, LEVEL_NOTE, "one CPU available: cross-core offsets not measured");
    else if (r->cpus_allowed > r->ncpus)
        add_reason(r, LEVEL_NOTE, "cross-core offsets measured among the first %d of %d CPUs",
                   r->ncpus, r->cpus_allowed);
}

/* --- output -------------------------------------------------------------- */

static const char *yes_no(int v)
{
    return v ? "yes" : "no";
}

static void print_hz(const char *label, double hz, const struct report *r)
{
    if (hz > 0)
        printf("  %-26s %.6f MHz (%+.2f ppm from calibrated)\n", label, hz / 1e6,
               (hz - r->cal.ticks_per_second) / r->cal.ticks_per_second * 1e6);
    else
        printf("  %-26s not stated\n", label);
}

static void print_text(const struct report *r)
{
    const struct tsc_features *f = &r->f;
    int i, j, k, w;
    printf("tsc-info %d.%d.%d\n\n", TSC_TIMER_VERSION_MAJOR, TSC_TIMER_VERSION_MINOR,
           TSC_TIMER_VERSION_PATCH);
    printf("CPU (from %s)\n", r->cpu_source);
    printf("  %-26s %s\n", "vendor", r->vendor[0] ? r->vendor : "unknown");
    printf("  %-26s %s\n", "brand", r->brand[0] ? r->brand : "unknown");
    printf("  %-26s %s", "hypervisor", r->hypervisor[0] ? r->hypervisor : f->hypervisor ? "unknown" : "none");
    if (r->hv_signature[0])
        printf(" (signature \"%s\")", r->hv_signature);
    printf("\n\nCounter: %s\n", r->counter);
#if defined(INFO_X86)
    printf("  %-26s %s\n", "TSC (CPUID)", yes_no(f->has_tsc));
    printf("  %-26s CPUID %s, instruction %s\n", "RDTSCP", yes_no(f->has_rdtscp),
           r->rdtscp_executes < 0 ? "not tested" : r->rdtscp_executes ? "executes" : "faults");
    printf("  %-26s %s\n", "invariant TSC (CPUID)", yes_no(f->has_invariant_tsc));
    printf("  %-26s %s\n", "OS allows RDTSC", yes_no(f->os_allows_counter));
    printf("  %-26s %s\n", "hypervisor bit (CPUID)", yes_no(f->hypervisor));
#endif
    printf("  %-26s %s\n", "after-read uses RDTSCP", yes_no(f->uses_rdtscp));

    printf("\nFrequency\n");
    printf("  %-26s %.6f MHz +- %.3f ppm (%s, %.1f ms, %llu samples)\n", "calibrated",
           r->cal.ticks_per_second / 1e6, r->cal.uncertainty_ppm, r->cal.method,
           r->cal.seconds_spent * 1e3, (unsigned long long)r->cal.samples);
    if (r->core_hz > 0)
        printf("  %-26s %.0f MHz +- %.1f%% while busy: %.3f core cycles per tick (estimate: "
               "64 dependent adds, taken as one per cycle)\n",
               "core clock (estimate)", r->core_hz / 1e6, r->core_err_pct,
               r->core_hz / r->cal.ticks_per_second);
    else
        printf("  %-26s not measured here\n", "core clock (estimate)");
#if defined(INFO_X86)
    print_hz("CPUID 0x15 (exact)", f->cpuid_15_hz, r);
    print_hz("CPUID 0x16 (base, nominal)", f->cpuid_16_hz, r);
    print_hz("hypervisor 0x40000010", f->hypervisor_hz, r);
#endif
    if (f->frequency_is_architectural)
        print_hz("architectural", f->architectural_hz, r);

    printf("\nKernel\n");
    if (r->have_clocksource)
        printf("  %-26s %s (available: %s)\n", "clocksource", r->clocksource, r->available);
    else
        printf("  %-26s unreadable\n", "clocksource");
#if defined(INFO_X86)
    if (r->have_cpuinfo_flags) {
        printf("  %-26s", "/proc/cpuinfo flags");
        for (i = 0; i < 6; i++)
            printf(" %s%s", r->flag[i] ? "" : "-", flag_names[i]);
        printf("\n");
    }
    if (r->boot_tsc[0])
        printf("  %-26s tsc=%s\n", "boot parameter", r->boot_tsc);
    printf("  %-26s %s\n", "TSC trusted by the kernel",
           r->tsc_distrusted < 0 ? "unknown" : r->tsc_distrusted ? "no" : "yes");
#endif

    printf("\nCosts\n");
    printf("  %-26s %llu ticks = %.1f ns (empty region, minimum of 2048)\n", "before/after",
           (unsigned long long)r->overhead_ticks, r->overhead_ns);
    printf("  %-26s %.1f ns (added to a region, minimum of 2048)\n", "clock_gettime",
           r->clock_gettime_ns);
    printf("  %-26s %+.1f ns (clock_gettime minus before/after)\n", "difference",
           r->clock_gettime_ns - r->overhead_ns);

    printf("\nCross-core offsets (counter(column) - counter(row), ns, bounds)\n");
    if (r->npairs == 0) {
        printf("  not measured: one CPU available\n");
    } else {
        if (r->ncpus <= 8) {
            printf("  %6s", "");
            for (j = 0; j < r->ncpus; j++) {
                char head[16];
                snprintf(head, sizeof head, "cpu%d", r->cpu[j]);
                printf(" %21s", head);
            }
            printf("\n");
            for (i = 0; i < r->ncpus; i++) {
                printf("  cpu%-3d", r->cpu[i]);
                for (j = 0; j < r->ncpus; j++) {
                    char cell[48];
                    const struct pair *p;
                    int lo = i < j ? i : j, hi = i < j ? j : i, sign = i < j ? 1 : -1;
                    if (i == j) {
                        printf(" %21s", "-");
                        continue;
                    }
                    /* pair index of (lo, hi) in the upper triangle */
                    k = lo * r->ncpus - lo * (lo + 1) / 2 + (hi - lo - 1);
                    p = &r->pairs[k];
                    if (!p->measured)
                        snprintf(cell, sizeof cell, "n/a");
                    else if (sign > 0)
                        snprintf(cell, sizeof cell, "[%+.0f, %+.0f]", ticks_to_ns((double)p->lower, r),
                                 ticks_to_ns((double)p->upper, r));
                    else
                        snprintf(cell, sizeof cell, "[%+.0f, %+.0f]", -ticks_to_ns((double)p->upper, r),
                                 -ticks_to_ns((double)p->lower, r));
                    printf(" %21s", cell);
                }
                printf("\n");
            }
        }
        w = worst_pair(r);
        if (w >= 0) {
            printf("  worst: |offset| <= %.0f ns (cpu%d, cpu%d; narrowest round trip %.0f ns, "
                   "%llu round trips)\n",
                   ticks_to_ns((double)offset_bound(&r->pairs[w]), r), r->pairs[w].a, r->pairs[w].b,
                   ticks_to_ns((double)r->pairs[w].round_trip, r),
                   (unsigned long long)r->pairs[w].round_trips);
        }
    }

    if (r->skew_asked) {
        printf("\nSkew (tsc_trust_measure_skew, each CPU against CLOCK_MONOTONIC)\n");
        if (r->skew_rc == 0)
            printf("  %-26s %llu ticks = %.0f ns\n", "bound on offsets",
                   (unsigned long long)r->skew_ticks, ticks_to_ns((double)r->skew_ticks, r));
        else
            printf("  %-26s not measured: %s\n", "bound on offsets", strerror(-r->skew_rc));
    }

    printf("\nTrust (tsc_trust): %s, %s\n",
           verdict_names[r->trust.level >= TSC_TRUST_OK && r->trust.level <= TSC_TRUST_UNSAFE
                             ? r->trust.level : TSC_TRUST_UNSAFE],
           r->trust.reason);
    printf("\nVerdict: %s for timing with this counter\n", verdict_names[verdict_level(r)]);
    for (i = 0; i < r->nreasons; i++)
        printf("  - %s: %s\n", level_names[r->reasons[i].level], r->reasons[i].text);
    if (r->nreasons == 0)
        printf("  - every check passed\n");
    printf("\n(ran in %.3f s)\n", r->run_seconds);
}

/* JSON output: one object, written as it goes. json_comma says whether
 * the next member needs a comma before it. */
static int json_comma;

static void json_key(const char *name)
{
    if (json_comma)
        putchar(',');
    json_comma = 1;
    if (name)
        printf("\"%s\":", name);
}

/* Opens an object ('{') or an array ('['), as a member when name is set. */
static void json_open(const char *name, char bracket)
{
    json_key(name);
    putchar(bracket);
    json_comma = 0;
}

static void json_close(char bracket)
{
    putchar(bracket);
    json_comma = 1;
}

/* A string, quotes, backslash and control characters escaped; null for
 * NULL or empty. */
static void kv_str(const char *name, const char *s)
{
    json_key(name);
    if (!s || !s[0]) {
        printf("null");
        return;
    }
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* A number; null where there is none (NaN, infinite). */
static void kv_num(const char *name, double v)
{
    json_key(name);
    if (isfinite(v))
        printf("%.17g", v);
    else
        printf("null");
}

/* A frequency; null where none is stated (0). */
static void kv_hz(const char *name, double hz)
{
    kv_num(name, hz > 0 ? hz : NAN);
}

static void kv_u64(const char *name, uint64_t v)
{
    json_key(name);
    printf("%llu", (unsigned long long)v);
}

static void kv_i64(const char *name, int64_t v)
{
    json_key(name);
    printf("%lld", (long long)v);
}

/* true, false, or null for a negative v (not known). */
static void kv_bool(const char *name, int v)
{
    json_key(name);
    printf("%s", v < 0 ? "null" : v ? "true" : "false");
}

/* The space-separated words of s as an array; null for NULL. */
static void kv_words(const char *name, const char *s)
{
    char word[64];
    int n;
    if (!s) {
        kv_str(name, NULL);
        return;
    }
    json_open(name, '[');
    while (sscanf(s, " %63s%n", word, &n) == 1) {
        kv_str(NULL, word);
        s += n;
    }
    json_close(']');
}

static void print_json(const struct report *r)
{
    const struct tsc_features *f = &r->f;
    char version[32];
    int i, k, w;
    snprintf(version, sizeof version, "%d.%d.%d", TSC_TIMER_VERSION_MAJOR,
             TSC_TIMER_VERSION_MINOR, TSC_TIMER_VERSION_PATCH);
    json_open(NULL, '{');
    kv_str("tool", "tsc-info");
    kv_str("version", version);

    json_open("cpu", '{');
    kv_str("source", r->cpu_source);
    kv_str("vendor", r->vendor);
    kv_str("brand", r->brand);
    kv_str("hypervisor", r->hypervisor);
    kv_str("hypervisor_signature", r->hv_signature);
    json_close('}');

    kv_str("counter", r->counter);
    json_open("features", '{');
    kv_bool("has_counter", f->has_counter);
    kv_bool("tsc", f->has_tsc);
    kv_bool("rdtscp_cpuid", f->has_rdtscp);
    kv_bool("rdtscp_executes", r->rdtscp_executes);
    kv_bool("uses_rdtscp", f->uses_rdtscp);
    kv_bool("invariant_tsc", f->has_invariant_tsc);
    kv_bool("os_allows_counter", f->os_allows_counter);
    kv_bool("hypervisor", f->hypervisor);
    json_close('}');

    json_open("frequency", '{');
    kv_num("calibrated_hz", r->cal.ticks_per_second);
    kv_num("uncertainty_ppm", r->cal.uncertainty_ppm);
    kv_num("calibration_seconds", r->cal.seconds_spent);
    kv_str("method", r->cal.method);
    kv_u64("samples", r->cal.samples);
    kv_u64("bracket_ticks", r->cal.bracket_ticks);
    kv_bool("architectural", f->frequency_is_architectural);
    kv_hz("cpuid_15_hz", f->cpuid_15_hz);
    kv_hz("cpuid_16_hz", f->cpuid_16_hz);
    kv_hz("hypervisor_hz", f->hypervisor_hz);
    kv_hz("architectural_hz", f->architectural_hz);
    kv_hz("core_clock_estimate_hz", r->core_hz);
    kv_num("core_clock_estimate_err_pct", r->core_err_pct);
    json_close('}');

    json_open("kernel", '{');
    kv_str("clocksource", r->have_clocksource ? r->clocksource : NULL);
    kv_words("available_clocksources", r->have_clocksource ? r->available : NULL);
    if (r->have_cpuinfo_flags) {
        json_open("cpuinfo_flags", '{');
        for (i = 0; i < 6; i++)
            kv_bool(flag_names[i], r->flag[i]);
        json_close('}');
    } else {
        kv_str("cpuinfo_flags", NULL);
    }
    kv_words("boot_tsc", r->have_cpuinfo_flags ? r->boot_tsc : NULL);
    kv_bool("tsc_distrusted", r->tsc_distrusted);
    json_close('}');

    json_open("costs", '{');
    kv_u64("overhead_ticks", r->overhead_ticks);
    kv_num("overhead_ns", r->overhead_ns);
    kv_num("clock_gettime_ns", r->clock_gettime_ns);
    kv_num("difference_ns", r->clock_gettime_ns - r->overhead_ns);
    json_close('}');

    json_open("cores", '{');
    json_open("cpus", '[');
    for (i = 0; i < r->ncpus; i++)
        kv_i64(NULL, r->cpu[i]);
    json_close(']');
    kv_i64("cpus_allowed", r->cpus_allowed);
    kv_i64("round_trips_asked", r->round_trips_asked);
    json_open("pairs", '[');
    for (k = 0; k < r->npairs; k++) {
        const struct pair *p = &r->pairs[k];
        json_open(NULL, '{');
        kv_i64("a", p->a);
        kv_i64("b", p->b);
        kv_bool("measured", p->measured);
        if (p->measured) {
            kv_u64("round_trips", p->round_trips);
            kv_i64("lower_ticks", p->lower);
            kv_i64("upper_ticks", p->upper);
            kv_u64("round_trip_ticks", p->round_trip);
            kv_num("lower_ns", ticks_to_ns((double)p->lower, r));
            kv_num("upper_ns", ticks_to_ns((double)p->upper, r));
            kv_num("round_trip_ns", ticks_to_ns((double)p->round_trip, r));
        } else {
            kv_str("failure", p->failure ? p->failure : "unknown");
        }
        json_close('}');
    }
    json_close(']');
    w = worst_pair(r);
    kv_num("worst_offset_ns", w >= 0 ? ticks_to_ns((double)offset_bound(&r->pairs[w]), r) : NAN);
    json_close('}');

    json_open("trust", '{');
    kv_str("level", trust_name(r->trust.level));
    kv_str("reason", r->trust.reason);
    json_close('}');

    if (r->skew_asked) {
        json_open("skew", '{');
        kv_i64("rc", r->skew_rc);
        if (r->skew_rc == 0) {
            kv_u64("bound_ticks", r->skew_ticks);
            kv_num("bound_ns", ticks_to_ns((double)r->skew_ticks, r));
        } else {
            kv_str("bound_ticks", NULL);
            kv_str("bound_ns", NULL);
        }
        json_close('}');
    }

    json_open("verdict", '{');
    kv_str("level", verdict_names[verdict_level(r)]);
    json_open("reasons", '[');
    for (i = 0; i < r->nreasons; i++) {
        json_open(NULL, '{');
        kv_str("level", level_names[r->reasons[i].level]);
        kv_str("text", r->reasons[i].text);
        json_close('}');
    }
    json_close(']');
    json_close('}');

    kv_num("run_seconds", r->run_seconds);
    json_close('}');
    putchar('\n');
}

/* --- arguments ----------------------------------------------------------- */

static void usage(FILE *to)
{
    fprintf(to,
            "Usage: tsc-info [--json] [--round-trips N] [--calibrate SECONDS] [--skew]\n"
            "\n"
            "Reports whether this machine's counter can be trusted for timing: what the\n"
            "CPU, the hypervisor and the kernel say about it, its calibrated frequency,\n"
            "what a timestamp costs, the counter offsets between every pair of CPUs, and\n"
            "a verdict (OK, CAUTION or UNSAFE) with its reasons.\n"
            "\n"
            "  --json               print the report as one JSON object\n"
            "  --round-trips N      ping-pong round trips per CPU pair, 1..1000000\n"
            "                       (default 1000)\n"
            "  --calibrate SECONDS  calibrate over SECONDS, 0 < SECONDS <= 60, instead of\n"
            "                       the library's first-use calibration (8 ms)\n"
            "  --skew               also bound the counter offsets between CPUs with\n"
            "                       tsc_trust_measure_skew (no threads: this thread visits\n"
            "                       each allowed CPU and compares with CLOCK_MONOTONIC)\n"
            "  -h, --help           print this help and exit\n"
            "\n"
            "Exit status: 0 when the report was printed, whatever the verdict; 2 on\n"
            "bad arguments.\n");
}

static int bad_args(const char *fmt, const char *arg)
{
    fprintf(stderr, "tsc-info: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see tsc-info --help)\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct report *r;
    int i, json = 0, rounds = 1000, rc, skew = 0;
    double cal_seconds = 0;
    uint64_t start = info_ns();

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *end;
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--skew")) {
            skew = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--round-trips")) {
            long v;
            if (++i >= argc)
                return bad_args("%s needs a number", a);
            errno = 0;
            v = strtol(argv[i], &end, 10);
            if (errno || end == argv[i] || *end || v < 1 || v > 1000000)
                return bad_args("--round-trips: '%s' is not a whole number in 1..1000000",
                                argv[i]);
            rounds = (int)v;
        } else if (!strcmp(a, "--calibrate")) {
            if (++i >= argc)
                return bad_args("%s needs a number of seconds", a);
            errno = 0;
            cal_seconds = strtod(argv[i], &end);
            if (errno || end == argv[i] || *end || !(cal_seconds > 0) || !(cal_seconds <= 60))
                return bad_args("--calibrate: '%s' is not a number of seconds in (0, 60]",
                                argv[i]);
        } else {
            return bad_args("unknown argument '%s'", a);
        }
    }

    r = (struct report *)calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "tsc-info: out of memory\n");
        return 1;
    }
    r->round_trips_asked = rounds;
    r->counter = tsc_counter_name();
    r->f = tsc_features();
    r->trust = tsc_trust();
    identify_cpu(r);
    r->rdtscp_executes = rdtscp_executes(r);
    rc = cal_seconds > 0 ? tsc_calibrate(cal_seconds, &r->cal) : tsc_current_calibration(&r->cal);
    if (rc != 0) {
        fprintf(stderr, "tsc-info: calibration failed (%d)\n", rc);
        free(r);
        return 1;
    }
    read_kernel_view(r);
    measure_costs(r);
    measure_core_clock(r);
    measure_cores(r);
    if (skew) {
        r->skew_asked = 1;
        r->skew_rc = tsc_trust_measure_skew(&r->skew_ticks);
    }
    judge(r);
    r->run_seconds = (double)(info_ns() - start) / 1e9;
    if (json)
        print_json(r);
    else
        print_text(r);
    free(r->pairs);
    free(r);
    return fflush(stdout) == 0 ? 0 : 1;
}
