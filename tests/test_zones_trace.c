/* SPDX-License-Identifier: MIT */
/* Zones traced too (tsc_zones_trace): every TSC_ZONE written as a slice of
 * its thread's trace, flows between threads (TSC_FLOW_OUT / TSC_FLOW_IN)
 * as flow events and as hand-over latencies in the profile, instants and
 * counters. The trace is read back from tsc_zones_write_trace's JSON (one
 * event a line, as it writes them); the profile from tsc_zones_write's.
 * The traces are the process's: each test uses names of its own. The
 * first test runs before tracing is turned on. */
#if defined(TEST_UNSAFE)
/* The build test_zones_trace_unsafe (x86 Linux): the TSC untrusted, as on
 * a machine without an invariant TSC whose kernel says nothing of it
 * (tsc_trust() UNSAFE): the clock is the OS clock, its stamps OS ns, while
 * zones still read the TSC. Every check below holds there too. */
#include <stdint.h>
void unsafe_cpuid(uint32_t leaf, uint32_t *r);
void unsafe_clocksource(char *current, char *available);
#define TSC_TIMER_TEST_CPUID_HOOK(leaf, r) unsafe_cpuid((uint32_t)(leaf), (r))
#define TSC_TIMER_TEST_TRUST_HOOK(current, available) unsafe_clocksource((current), (available))
#endif
#include "tsc_test.h"
#include <pthread.h>
#include <string.h>

#if defined(TEST_UNSAFE)
void unsafe_cpuid(uint32_t leaf, uint32_t *r)
{
    if (leaf == 1)
        r[2] &= ~(UINT32_C(1) << 31); /* ECX[31]: no hypervisor          */
    else if (leaf == 0x80000007u)
        r[3] &= ~(UINT32_C(1) << 8); /* EDX[8]: not invariant           */
}
void unsafe_clocksource(char *current, char *available)
{
    current[0] = available[0] = 0; /* the kernel's files unreadable     */
}
#endif

/* Traces need GCC or Clang: MSVC's C (CI's MSVC mode without __clang__)
 * gets -ENOSYS from tsc_zones_trace, and its zones are profiled only. */
#if defined(__GNUC__) || defined(__clang__)
#define TRACES 1
#else
#define TRACES 0
#endif

/* --- reading the trace back ---------------------------------------------- */

#define MAX_EV 20000

struct ev {
    char name[32];
    char ph;
    uint64_t ts, dur; /* ns, exact (the file's three decimals of us) */
    int tid, bp_e;
    uint64_t id;
    long long value;
};

static struct ev g_ev[MAX_EV];
static int g_nev;

static char *read_all(FILE *f)
{
    long len = ftell(f);
    char *s;
    rewind(f);
    s = (char *)malloc((size_t)len + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)len, f), (size_t)len);
    s[len] = '\0';
    return s;
}

static char *capture_trace(void)
{
    FILE *f = tmpfile();
    char *s;
    assert_non_null(f);
    assert_int_equal(tsc_zones_write_trace(f), 0);
    s = read_all(f);
    fclose(f);
    return s;
}

static char *capture_write(int format)
{
    FILE *f = tmpfile();
    char *s;
    assert_non_null(f);
    if (format < 0)
        tsc_zones_print(f);
    else
        assert_int_equal(tsc_zones_write(f, format), 0);
    s = read_all(f);
    fclose(f);
    return s;
}

/* "ts":123.456 -> 123456 */
static uint64_t us3(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    char *end;
    uint64_t us, frac;
    EXPECT(p, "%s in %s", key, line);
    us = strtoull(p + strlen(key), &end, 10);
    EXPECT(*end == '.', "three decimals after %s in %s", key, line);
    frac = strtoull(end + 1, NULL, 10);
    return us * 1000u + frac;
}

/* Every event of the trace into g_ev (metadata left out). */
static void parse_trace(const char *s)
{
    const char *at, *p, *nl;
    char line[512];
    size_t n;
    g_nev = 0;
    EXPECT(!strncmp(s, "{\"traceEvents\":[", 16), "a trace document: %.60s", s);
    for (at = s; (nl = strchr(at, '\n')) != NULL; at = nl + 1) {
        struct ev *e = &g_ev[g_nev];
        n = (size_t)(nl - at); /* the line alone: searches stop at its end */
        assert_true(n < sizeof line);
        memcpy(line, at, n);
        line[n] = '\0';
        if (strncmp(line, "{\"name\":\"", 9) != 0 || strstr(line, "\"ph\":\"M\""))
            continue;
        assert_true(g_nev < MAX_EV);
        memset(e, 0, sizeof *e);
        p = strchr(line + 9, '"');
        n = (size_t)(p - (line + 9));
        n = n < sizeof e->name - 1 ? n : sizeof e->name - 1;
        memcpy(e->name, line + 9, n);
        p = strstr(line, "\"ph\":\"");
        EXPECT(p, "a phase in %.80s", line);
        e->ph = p[6];
        e->ts = us3(line, "\"ts\":");
        if (e->ph == 'X')
            e->dur = us3(line, "\"dur\":");
        p = strstr(line, "\"tid\":");
        e->tid = atoi(p + 6);
        if ((p = strstr(line, "\"id\":\"0x")) != NULL)
            e->id = strtoull(p + 8, NULL, 16);
        if ((p = strstr(line, "\"value\":")) != NULL)
            e->value = strtoll(p + 8, NULL, 10);
        e->bp_e = strstr(line, "\"bp\":\"e\"") != NULL;
        g_nev++;
    }
}

static void load_trace(void)
{
    char *s = capture_trace();
    parse_trace(s);
    free(s);
}

static int count(const char *name, char ph)
{
    int i, n = 0;
    for (i = 0; i < g_nev; i++)
        n += !strcmp(g_ev[i].name, name) && g_ev[i].ph == ph;
    return n;
}

/* The slice of tid that encloses ts, innermost (-1: none). */
static int slice_at(int tid, uint64_t ts)
{
    /* a zone's ends are bare counter reads, a mark's an ordered clock
     * reading: where the counter moves in steps (QPC's 100 ns under Wine,
     * qemu-aarch64's 1 us), the two may round a step apart */
    uint64_t step = tsc_ticks_to_ns(test_counter_step_ticks());
    int i, best = -1;
    for (i = 0; i < g_nev; i++)
        if (g_ev[i].ph == 'X' && g_ev[i].tid == tid && g_ev[i].ts <= ts + step &&
            ts <= g_ev[i].ts + g_ev[i].dur + step && (best < 0 || g_ev[i].ts >= g_ev[best].ts))
            best = i;
    return best;
}

/* A number of a row of tsc_zones_write's JSON: "key": value after "name": "row". */
static double field(const char *json, const char *row, const char *key)
{
    char pat[96];
    const char *p, *q;
    snprintf(pat, sizeof pat, "{\"name\": \"%s\"", row);
    p = strstr(json, pat);
    EXPECT(p, "a row %s in %s", row, json);
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    q = strstr(p, pat);
    EXPECT(q && q < strchr(p, '}'), "%s in the row %s: %s", key, row, p);
    return strtod(q + strlen(pat), NULL);
}

static void spin(int n)
{
    volatile int x = 0;
    int i;
    for (i = 0; i < n; i++)
        x = x + i;
}

/* --- the tests ----------------------------------------------------------- */

static void test_nothing_is_traced_before_tsc_zones_trace(void **state)
{
    char *s;
    (void)state;
    TSC_ZONE("before") { spin(10); }
    TSC_INSTANT("before instant");
    s = capture_trace();
    parse_trace(s);
    EXPECT(g_nev == 0, "no events before the call: %s", s);
    EXPECT(strstr(s, "\"dropped\":0,\"unfinished\":0"), "otherData: %s", s);
    free(s);
    assert_int_equal(tsc_zones_trace(TSC_ZONES_TRACE_BYTES(1) - 1), TRACES ? -EINVAL : -ENOSYS);
    assert_int_equal(tsc_zones_thread_name(NULL), -EINVAL);
    assert_int_equal(tsc_zones_write_trace(NULL), -EINVAL);
}

static void test_without_gcc_or_clang_nothing_is_traced_and_zones_are_profiled(void **state)
{
    char *s;
    int i;
    (void)state;
    assert_int_equal(tsc_zones_trace(1 << 20), -ENOSYS);
    assert_int_equal(tsc_zones_thread_name("main thread"), 0);
    for (i = 0; i < 10; i++)
        TSC_ZONE("outer") {
            TSC_FLOW_OUT("hand-over", (uint64_t)i + 1);
            TSC_FLOW_IN("hand-over", (uint64_t)i + 1);
            TSC_INSTANT("mark");
            TSC_COUNTER("depth", i);
        }
    s = capture_trace();
    parse_trace(s);
    EXPECT(g_nev == 0, "no events: %s", s);
    EXPECT(strstr(s, "\"args\":{\"name\":\"main thread\"}") && strstr(s, "\"dropped\":0,\"unfinished\":0"),
           "the thread's name and otherData: %s", s);
    free(s);
    s = capture_write(TSC_BENCH_JSON);
    assert_int_equal((int)field(s, "outer", "calls"), 10);
    EXPECT(!strstr(s, "hand-over") && !strstr(s, "not matched"), "no flows kept: %s", s);
    free(s);
}

static void test_every_zone_is_a_slice_nested_as_it_ran(void **state)
{
    int i, o, k;
    (void)state;
    assert_int_equal(tsc_zones_trace(1 << 20), 0);
    assert_int_equal(tsc_zones_thread_name("main thread"), 0);
    for (i = 0; i < 10; i++)
        TSC_ZONE("outer") {
            spin(100);
            TSC_ZONE("inner") { spin(100); }
            TSC_ZONE("inner") { spin(100); }
        }
    TSC_ZONE("before") {} /* the zone traced now, though used before */
    load_trace();
    assert_int_equal(count("outer", 'X'), 10);
    assert_int_equal(count("inner", 'X'), 20);
    assert_int_equal(count("before", 'X'), 1);
    /* in order of start; each inner inside the outer before it */
    for (i = 1; i < g_nev; i++)
        EXPECT(g_ev[i].ts >= g_ev[i - 1].ts, "event %d at %llu ns, before %llu", i,
               (unsigned long long)g_ev[i].ts, (unsigned long long)g_ev[i - 1].ts);
    for (o = -1, k = 0, i = 0; i < g_nev; i++) {
        if (!strcmp(g_ev[i].name, "outer"))
            o = i;
        if (strcmp(g_ev[i].name, "inner") != 0)
            continue;
        k++;
        assert_true(o >= 0);
        EXPECT(g_ev[i].ts >= g_ev[o].ts && g_ev[i].ts + g_ev[i].dur <= g_ev[o].ts + g_ev[o].dur,
               "inner [%llu, +%llu] inside outer [%llu, +%llu]", (unsigned long long)g_ev[i].ts,
               (unsigned long long)g_ev[i].dur, (unsigned long long)g_ev[o].ts, (unsigned long long)g_ev[o].dur);
    }
    assert_int_equal(k, 20);
}

struct named {
    const char *name;
    int zones;
};

static void *named_main(void *arg)
{
    struct named *n = (struct named *)arg;
    int i;
    if (n->name)
        assert_int_equal(tsc_zones_thread_name(n->name), 0);
    for (i = 0; i < n->zones; i++)
        TSC_ZONE("worker zone") { spin(10); }
    return NULL;
}

static void test_each_thread_has_its_buffer_and_name(void **state)
{
    struct named w[3] = {{"worker a", 5}, {"worker b", 7}, {NULL, 9}};
    pthread_t th[3];
    int i, tid[3] = {0, 0, 0};
    char *s;
    (void)state;
    for (i = 0; i < 3; i++) /* one at a time: the tids follow in order */
        assert_int_equal(pthread_create(&th[i], NULL, named_main, &w[i]), 0), pthread_join(th[i], NULL);
    s = capture_trace();
    parse_trace(s);
    EXPECT(strstr(s, "\"args\":{\"name\":\"worker a\"}") && strstr(s, "\"args\":{\"name\":\"worker b\"}") &&
           strstr(s, "\"args\":{\"name\":\"main thread\"}"), "the threads' names: %s", s);
    for (i = 0; i < g_nev; i++) /* the threads' tids, in the file's order */
        if (!strcmp(g_ev[i].name, "worker zone")) {
            int k;
            for (k = 0; k < 2 && tid[k] && tid[k] != g_ev[i].tid; k++)
                ;
            tid[k] = g_ev[i].tid;
            w[k].zones--;
        }
    for (i = 0; i < 3; i++)
        EXPECT(w[i].zones == 0 && tid[i] > 1, "thread %d: %d zones missing, tid %d", i, w[i].zones, tid[i]);
    EXPECT(tid[0] < tid[1] && tid[1] < tid[2], "tids in order of first zone: %d %d %d", tid[0], tid[1], tid[2]);
    {
        char want[64];
        snprintf(want, sizeof want, "\"tid\":%d,\"args\":{\"name\":\"thread %d\"}", tid[2], tid[2]);
        EXPECT(strstr(s, want), "the unnamed thread as %s: %s", want, s);
    }
    free(s);
}

static void test_a_full_buffer_counts_what_did_not_fit(void **state)
{
    struct named w = {"small", 100};
    pthread_t th;
    char *s, want[96];
    int i, tid = 0, n = 0;
    (void)state;
    /* 10 events of room (and not quite 11) for the threads that start
     * tracing from now on */
    assert_int_equal(tsc_zones_trace(TSC_ZONES_TRACE_BYTES(11) - 1), 0);
    assert_int_equal(pthread_create(&th, NULL, named_main, &w), 0);
    pthread_join(th, NULL);
    assert_int_equal(tsc_zones_trace(1 << 20), 0);
    s = capture_trace();
    parse_trace(s);
    for (i = 0; i < g_nev; i++)
        if (!strcmp(g_ev[i].name, "worker zone") && g_ev[i].tid > tid)
            tid = g_ev[i].tid;
    for (i = 0; i < g_nev; i++)
        n += g_ev[i].tid == tid;
    assert_int_equal(n, 10);
    snprintf(want, sizeof want, "\"tid\":%d,\"args\":{\"dropped\":90}", tid);
    EXPECT(strstr(s, want), "%s in %s", want, s);
    EXPECT(strstr(s, "\"dropped\":90,\"unfinished\":0}"), "otherData's dropped: %s", s);
    free(s);
}

/* --- flows: a producer and a consumer over a one-slot mailbox ------------ */

#define ITEMS 200

struct mailbox {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t item; /* 0: empty */
    int done;
};

static void *producer(void *arg)
{
    struct mailbox *m = (struct mailbox *)arg;
    uint64_t i;
    tsc_zones_thread_name("producer");
    for (i = 1; i <= ITEMS; i++) {
        TSC_ZONE("produce") {
            spin(200);
            pthread_mutex_lock(&m->mu);
            while (m->item)
                pthread_cond_wait(&m->cv, &m->mu);
            TSC_FLOW_OUT("hand-over", i * 1000003u); /* any ids, unique in flight */
            m->item = i;
            pthread_cond_broadcast(&m->cv);
            pthread_mutex_unlock(&m->mu);
        }
    }
    return NULL;
}

static void *consumer(void *arg)
{
    struct mailbox *m = (struct mailbox *)arg;
    uint64_t got = 0;
    tsc_zones_thread_name("consumer");
    while (got < ITEMS) {
        pthread_mutex_lock(&m->mu);
        while (!m->item)
            pthread_cond_wait(&m->cv, &m->mu);
        got = m->item;
        m->item = 0;
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
        if (got % 2) {
            TSC_ZONE("consume") {
                TSC_FLOW_IN("hand-over", got * 1000003u);
                spin(100);
            }
        } else {
            TSC_FLOW_IN("hand-over", got * 1000003u); /* outside a zone */
            TSC_ZONE("consume") { spin(100); }
        }
    }
    return NULL;
}

static void test_flow_latencies_are_the_written_events_differences(void **state)
{
    struct mailbox m;
    pthread_t p, c;
    uint64_t lat[ITEMS], mn = UINT64_MAX, mx = 0, sum = 0, v;
    int i, j, n = 0, in_zone = 0;
    char *s;
    (void)state;
    memset(&m, 0, sizeof m);
    pthread_mutex_init(&m.mu, NULL);
    pthread_cond_init(&m.cv, NULL);
    assert_int_equal(pthread_create(&c, NULL, consumer, &m), 0);
    assert_int_equal(pthread_create(&p, NULL, producer, &m), 0);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    load_trace();
    assert_int_equal(count("hand-over", 's'), ITEMS);
    assert_int_equal(count("hand-over", 'f'), ITEMS);
    for (i = 0; i < g_nev; i++) {
        const struct ev *f = &g_ev[i];
        int src = -1, at, inside;
        if (strcmp(f->name, "hand-over") != 0 || f->ph != 'f')
            continue;
        for (j = 0; j < g_nev; j++)
            if (g_ev[j].ph == 's' && g_ev[j].id == f->id && !strcmp(g_ev[j].name, "hand-over"))
                src = j;
        EXPECT(src >= 0, "the departure of flow 0x%llx", (unsigned long long)f->id);
        EXPECT(g_ev[src].tid != f->tid, "a flow between two threads");
        EXPECT(f->ts >= g_ev[src].ts, "an arrival at %llu ns before its departure at %llu ns",
               (unsigned long long)f->ts, (unsigned long long)g_ev[src].ts);
        at = slice_at(g_ev[src].tid, g_ev[src].ts);
        EXPECT(at >= 0 && !strcmp(g_ev[at].name, "produce"), "the departure inside a produce slice");
        /* the arrival binds to its zone (bp e) or to the next slice: the
         * consumer made the odd items' arrivals inside a zone; one outside
         * lies in no slice, or at the next one's start where the counter
         * moves in steps (qemu-aarch64: 1 us) */
        at = slice_at(f->tid, f->ts);
        inside = (int)(f->id / 1000003u % 2);
        EXPECT(f->bp_e == inside, "bp \"e\" exactly where the arrival is inside a zone (flow 0x%llx)",
               (unsigned long long)f->id);
        /* (where its time lies: natively; under emulation a counter step and
         * the emulator's timing blur it) */
        EXPECT(getenv("TSC_TEST_EMULATED") ||
                   (inside ? at >= 0 : at < 0 || f->ts + tsc_ticks_to_ns(test_counter_step_ticks()) >= g_ev[at].ts),
               "the arrival (flow 0x%llx) %s a slice", (unsigned long long)f->id,
               inside ? "inside" : "outside");
        in_zone += f->bp_e;
        v = f->ts - g_ev[src].ts;
        lat[n++] = v;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        sum += v;
    }
    assert_int_equal(n, ITEMS);
    assert_int_equal(in_zone, ITEMS / 2);
    s = capture_write(TSC_BENCH_JSON);
    assert_int_equal((int)field(s, "hand-over", "calls"), ITEMS);
    assert_int_equal((int)field(s, "hand-over", "flow"), 1);
    assert_int_equal((int)field(s, "hand-over", "threads"), 1);
    EXPECT(tsc__fabs(field(s, "hand-over", "min_ns") - (double)mn) <= 1.0, "min %.0f ns in the profile, %llu in the trace",
           field(s, "hand-over", "min_ns"), (unsigned long long)mn);
    EXPECT(tsc__fabs(field(s, "hand-over", "max_ns") - (double)mx) <= 1.0, "max %.0f ns in the profile, %llu in the trace",
           field(s, "hand-over", "max_ns"), (unsigned long long)mx);
    EXPECT(tsc__fabs(field(s, "hand-over", "mean_ns") - (double)(sum / ITEMS)) <= 1.0,
           "mean %.0f ns in the profile, %llu in the trace", field(s, "hand-over", "mean_ns"),
           (unsigned long long)(sum / ITEMS));
    {
        /* percentiles: the histogram's, within 1/32 of the exact ones */
        double p50 = field(s, "hand-over", "p50_ns"), p99 = field(s, "hand-over", "p99_ns");
        uint64_t e50, e99;
        for (i = 1; i < n; i++) /* insertion sort */
            for (j = i; j > 0 && lat[j - 1] > lat[j]; j--)
                v = lat[j], lat[j] = lat[j - 1], lat[j - 1] = v;
        e50 = lat[(n + 1) / 2 - 1];
        e99 = lat[(99 * n + 99) / 100 - 1];
        EXPECT(tsc__fabs(p50 - (double)e50) <= (double)e50 / 32 + 1, "p50 %.0f ns, exact %llu", p50,
               (unsigned long long)e50);
        EXPECT(tsc__fabs(p99 - (double)e99) <= (double)e99 / 32 + 1, "p99 %.0f ns, exact %llu", p99,
               (unsigned long long)e99);
    }
    free(s);
    s = capture_write(TSC_BENCH_CSV);
    EXPECT(strstr(s, "\n\"hand-over\",200,0.000,0,0,"), "the flow's CSV row: %s", s);
    free(s);
    s = capture_write(TSC_BENCH_MARKDOWN);
    EXPECT(strstr(s, "| flow | count | min ns |") && strstr(s, "\n| hand-over | 200 | "), "the flows' markdown table: %s", s);
    free(s);
    s = capture_write(-1);
    EXPECT(strstr(s, "  flow ") && strstr(s, "\n  hand-over ") && !strstr(s, "flows not matched"),
           "the printed flows: %s", s);
    free(s);
}

static void test_unmatched_arrivals_are_counted(void **state)
{
    char *s;
    (void)state;
    TSC_FLOW_IN("never sent", 42);
    s = capture_write(-1);
    EXPECT(strstr(s, "flows not matched: 0 departures overwritten before their arrival, 1 arrivals without "
                     "their departure"), "the unmatched arrival printed: %s", s);
    free(s);
    s = capture_write(TSC_BENCH_JSON);
    assert_int_equal((int)field(s, "(flows not matched)", "unmatched"), 1);
    free(s);
    load_trace();
    assert_int_equal(count("never sent", 'f'), 0);
    tsc_zones_reset();
    s = capture_write(-1);
    EXPECT(!strstr(s, "flows not matched") && !strstr(s, "hand-over"), "reset empties the flows: %s", s);
    free(s);
}

static void test_instants_and_counters_are_written_with_their_values(void **state)
{
    int i;
    (void)state;
    TSC_ZONE("marked") {
        TSC_INSTANT("mark");
        for (i = 0; i < 5; i++)
            TSC_COUNTER("depth", (i - 2) * 1000000000000LL);
    }
    load_trace();
    assert_int_equal(count("mark", 'i'), 1);
    assert_int_equal(count("depth", 'C'), 5);
    for (i = 0; i < g_nev; i++) {
        if (!strcmp(g_ev[i].name, "depth")) {
            static int k;
            EXPECT(g_ev[i].value == (k - 2) * 1000000000000LL, "sample %d: %lld", k, g_ev[i].value);
            EXPECT(getenv("TSC_TEST_EMULATED") || slice_at(g_ev[i].tid, g_ev[i].ts) >= 0,
                   "the sample inside its zone");
            k++;
        }
    }
}

static void test_tracing_turned_off_records_nothing_more(void **state)
{
    (void)state;
    assert_int_equal(tsc_zones_trace(0), 0);
    TSC_ZONE("while off") { TSC_INSTANT("off instant"); }
    assert_int_equal(tsc_zones_trace(1 << 20), 0);
    TSC_ZONE("on again") {}
    load_trace();
    assert_int_equal(count("while off", 'X'), 0);
    assert_int_equal(count("off instant", 'i'), 0);
    assert_int_equal(count("on again", 'X'), 1);
    assert_int_equal(count("outer", 'X'), 10); /* what was recorded is kept */
}

int main(void)
{
    const struct CMUnitTest traced[] = {
        cmocka_unit_test(test_nothing_is_traced_before_tsc_zones_trace),
        cmocka_unit_test(test_every_zone_is_a_slice_nested_as_it_ran),
        cmocka_unit_test(test_each_thread_has_its_buffer_and_name),
        cmocka_unit_test(test_a_full_buffer_counts_what_did_not_fit),
        cmocka_unit_test(test_flow_latencies_are_the_written_events_differences),
        cmocka_unit_test(test_unmatched_arrivals_are_counted),
        cmocka_unit_test(test_instants_and_counters_are_written_with_their_values),
        cmocka_unit_test(test_tracing_turned_off_records_nothing_more),
    };
    const struct CMUnitTest untraced[] = {
        cmocka_unit_test(test_nothing_is_traced_before_tsc_zones_trace),
        cmocka_unit_test(test_without_gcc_or_clang_nothing_is_traced_and_zones_are_profiled),
    };
    tsc_init();
#if defined(TEST_UNSAFE)
    if (tsc_get_trust().level != TSC_TRUST_UNSAFE) {
        fprintf(stderr, "FAIL: the simulated machine's TSC is not UNSAFE (level %d)\n", (int)tsc_get_trust().level);
        return 1;
    }
#endif
    return TRACES ? cmocka_run_group_tests(traced, NULL, NULL) : cmocka_run_group_tests(untraced, NULL, NULL);
}
