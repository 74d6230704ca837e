/* SPDX-License-Identifier: MIT */
/* Trace export: TSC_TRACE blocks and tsc_trace_add over caller memory,
 * written as Chrome Trace Event Format JSON, which the test parses back
 * with its own small JSON parser. Times are compared in whole nanoseconds
 * read exactly from the "µs.nnn" text: orderings and nesting hold with a
 * tolerance of 0 ns; counts are exact. */
#include "tsc_test.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- a small JSON parser: a tree of nodes, numbers kept as text ---------- */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
    int type;
    char *str;        /* J_STR: decoded; J_NUM: the text                    */
    char *key;        /* member name when the parent is an object           */
    int child, next;  /* first child, next sibling (-1: none)               */
};

struct jdoc {
    struct jnode *n;
    int count, cap;
    const char *p, *begin;
};

static void j_fail(struct jdoc *d, const char *what)
{
    fail_msg("JSON: %s at offset %ld: \"%.40s\"", what, (long)(d->p - d->begin), d->p);
}

static void j_ws(struct jdoc *d)
{
    while (*d->p == ' ' || *d->p == '\n' || *d->p == '\r' || *d->p == '\t')
        d->p++;
}

static int j_new(struct jdoc *d, int type)
{
    struct jnode *x;
    if (d->count == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 256;
        d->n = (struct jnode *)realloc(d->n, (size_t)d->cap * sizeof *d->n);
        assert_non_null(d->n);
    }
    x = &d->n[d->count];
    x->type = type;
    x->str = x->key = NULL;
    x->child = x->next = -1;
    return d->count++;
}

static int j_hex(struct jdoc *d, char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    j_fail(d, "bad \\u escape");
    return 0;
}

static char *j_string(struct jdoc *d)
{
    char *s = (char *)malloc(strlen(d->p) + 1), *o = s;
    unsigned u;
    int i;
    assert_non_null(s);
    if (*d->p != '"')
        j_fail(d, "expected a string");
    d->p++;
    while (*d->p != '"') {
        if (*d->p == '\0')
            j_fail(d, "unterminated string");
        if ((unsigned char)*d->p < 0x20)
            j_fail(d, "raw control character in a string");
        if (*d->p != '\\') {
            *o++ = *d->p++;
            continue;
        }
        d->p++;
        switch (*d->p++) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u':
            for (u = 0, i = 0; i < 4; i++)
                u = u * 16 + (unsigned)j_hex(d, *d->p++);
            if (u < 0x80) {
                *o++ = (char)u;
            } else if (u < 0x800) {
                *o++ = (char)(0xC0 | (u >> 6));
                *o++ = (char)(0x80 | (u & 0x3F));
            } else {
                *o++ = (char)(0xE0 | (u >> 12));
                *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
                *o++ = (char)(0x80 | (u & 0x3F));
            }
            break;
        default:
            d->p--;
            j_fail(d, "bad escape");
        }
    }
    d->p++;
    *o = '\0';
    return s;
}

static int j_value(struct jdoc *d);

/* Members or elements, appended as children of node x. */
static void j_children(struct jdoc *d, int x, int object, char close)
{
    int last = -1, c;
    char *key = NULL;
    d->p++;
    j_ws(d);
    if (*d->p == close) {
        d->p++;
        return;
    }
    for (;;) {
        j_ws(d);
        if (object) {
            key = j_string(d);
            j_ws(d);
            if (*d->p != ':')
                j_fail(d, "expected ':'");
            d->p++;
        }
        c = j_value(d);
        d->n[c].key = key;
        if (last < 0)
            d->n[x].child = c;
        else
            d->n[last].next = c;
        last = c;
        j_ws(d);
        if (*d->p == ',') {
            d->p++;
            continue;
        }
        if (*d->p != close)
            j_fail(d, object ? "expected ',' or '}'" : "expected ',' or ']'");
        d->p++;
        return;
    }
}

static int j_value(struct jdoc *d)
{
    int x;
    const char *s;
    j_ws(d);
    if (*d->p == '{' || *d->p == '[') {
        int object = *d->p == '{';
        x = j_new(d, object ? J_OBJ : J_ARR);
        j_children(d, x, object, object ? '}' : ']');
    } else if (*d->p == '"') {
        x = j_new(d, J_STR);
        d->n[x].str = j_string(d);
    } else if (*d->p == '-' || (*d->p >= '0' && *d->p <= '9')) {
        x = j_new(d, J_NUM);
        s = d->p;
        while (strchr("+-.eE0123456789", *d->p) && *d->p)
            d->p++;
        d->n[x].str = (char *)malloc((size_t)(d->p - s) + 1);
        assert_non_null(d->n[x].str);
        memcpy(d->n[x].str, s, (size_t)(d->p - s));
        d->n[x].str[d->p - s] = '\0';
    } else if (!strncmp(d->p, "true", 4) || !strncmp(d->p, "false", 5)) {
        x = j_new(d, J_BOOL);
        d->p += *d->p == 't' ? 4 : 5;
    } else if (!strncmp(d->p, "null", 4)) {
        x = j_new(d, J_NULL);
        d->p += 4;
    } else {
        j_fail(d, "unexpected character");
        x = -1;
    }
    return x;
}

/* Parses the whole text: one value, then only white space. */
static void j_parse(struct jdoc *d, const char *text)
{
    memset(d, 0, sizeof *d);
    d->p = d->begin = text;
    EXPECT(j_value(d) == 0, "the root is not node 0");
    j_ws(d);
    if (*d->p)
        j_fail(d, "text after the document");
}

static void j_free(struct jdoc *d)
{
    int i;
    for (i = 0; i < d->count; i++) {
        free(d->n[i].str);
        free(d->n[i].key);
    }
    free(d->n);
}

/* Member key of object x, or -1. */
static int j_get(const struct jdoc *d, int x, const char *key)
{
    int c;
    if (x < 0 || d->n[x].type != J_OBJ)
        return -1;
    for (c = d->n[x].child; c >= 0; c = d->n[c].next)
        if (!strcmp(d->n[c].key, key))
            return c;
    return -1;
}

static const char *j_str(const struct jdoc *d, int x, const char *key)
{
    int c = j_get(d, x, key);
    return c >= 0 && d->n[c].type == J_STR ? d->n[c].str : NULL;
}

/* An integer member; fails when absent or not an integer. */
static uint64_t j_uint(const struct jdoc *d, int x, const char *key)
{
    int c = j_get(d, x, key);
    char *end;
    uint64_t v;
    EXPECT(c >= 0 && d->n[c].type == J_NUM, "member \"%s\" missing or not a number", key);
    v = (uint64_t)strtoull(d->n[c].str, &end, 10);
    EXPECT(*end == '\0', "member \"%s\" = %s is not an integer", key, d->n[c].str);
    return v;
}

/* A "µs.nnn" member in whole nanoseconds, exactly: three decimals, no
 * exponent, as the writer promises. */
static uint64_t j_us_ns(const struct jdoc *d, int x, const char *key)
{
    int c = j_get(d, x, key);
    const char *s, *dot;
    char *end;
    uint64_t us, frac;
    EXPECT(c >= 0 && d->n[c].type == J_NUM, "member \"%s\" missing or not a number", key);
    s = d->n[c].str;
    dot = strchr(s, '.');
    EXPECT(dot && strlen(dot + 1) == 3, "\"%s\": %s has not exactly 3 decimals", key, s);
    us = (uint64_t)strtoull(s, &end, 10);
    EXPECT(end == dot, "\"%s\": %s is not digits '.' digits", key, s);
    frac = (uint64_t)strtoull(dot + 1, &end, 10);
    EXPECT(*end == '\0', "\"%s\": %s is not digits '.' digits", key, s);
    return us * 1000u + frac;
}

/* --- helpers ------------------------------------------------------------ */

/* Writes traces to memory and parses the text; returns it (free it). */
static char *write_and_parse(const struct tsc_trace *const *tr, int n, struct jdoc *d)
{
    char *buf;
    long len;
    FILE *f = tmpfile(); /* (plain C: Windows has no open_memstream) */
    assert_non_null(f);
    EXPECT(tsc_trace_write_json(f, tr, n) == 0, "tsc_trace_write_json failed");
    len = ftell(f);
    assert_true(len >= 0);
    buf = (char *)malloc((size_t)len + 1);
    assert_non_null(buf);
    rewind(f);
    EXPECT(fread(buf, 1, (size_t)len, f) == (size_t)len, "the trace could not be read back");
    buf[len] = '\0';
    fclose(f);
    j_parse(d, buf);
    return buf;
}

/* Work that takes some time, so that every block spans many counter ticks. */
static void spin(int n)
{
    volatile int x = 0;
    int i;
    for (i = 0; i < n; i++)
        x = x + i;
}

/* An interval of the parsed trace, in ns. */
struct span {
    uint64_t ts, end;
    const char *name;
    uint64_t tid;
};

/* The "X" events of traceEvents (at most max), in document order. */
static int x_events(const struct jdoc *d, struct span *out, int max)
{
    int ev = j_get(d, 0, "traceEvents"), c, k = 0;
    const char *ph;
    EXPECT(ev >= 0 && d->n[ev].type == J_ARR, "no traceEvents array");
    for (c = d->n[ev].child; c >= 0; c = d->n[c].next) {
        ph = j_str(d, c, "ph");
        EXPECT(ph != NULL, "an event without \"ph\"");
        if (strcmp(ph, "X"))
            continue;
        EXPECT(k < max, "more than %d X events", max);
        out[k].ts = j_us_ns(d, c, "ts");
        out[k].end = out[k].ts + j_us_ns(d, c, "dur");
        out[k].name = j_str(d, c, "name");
        out[k].tid = j_uint(d, c, "tid");
        EXPECT(out[k].name != NULL, "an X event without a name");
        k++;
    }
    return k;
}

/* The "M" event named `name` of thread tid, or -1. */
static int meta_event(const struct jdoc *d, uint64_t tid, const char *name)
{
    int ev = j_get(d, 0, "traceEvents"), c;
    for (c = d->n[ev].child; c >= 0; c = d->n[c].next) {
        const char *ph = j_str(d, c, "ph"), *nm = j_str(d, c, "name");
        if (ph && nm && !strcmp(ph, "M") && !strcmp(nm, name) && j_uint(d, c, "tid") == tid)
            return c;
    }
    return -1;
}

/* --- tests --------------------------------------------------------------- */

static void test_bad_input_is_refused(void **state)
{
    static char mem[256];
    struct tsc_trace t;
    const struct tsc_trace *none[1] = {NULL};
    const struct tsc_trace *one[1];
    (void)state;
    EXPECT(tsc_trace_init(NULL, mem, sizeof mem, "x") == -EINVAL, "NULL trace accepted");
    EXPECT(tsc_trace_init(&t, NULL, sizeof mem, "x") == -EINVAL, "NULL memory accepted");
    EXPECT(tsc_trace_init(&t, mem, sizeof(struct tsc_trace_event) - 1, "x") == -EINVAL,
           "memory for less than one event accepted");
    /* 8-aligned + 1: 7 bytes go to alignment, so one event needs 7 more. */
    EXPECT(tsc_trace_init(&t, (void *)(((uintptr_t)mem + 8u) / 8u * 8u + 1u),
                          sizeof(struct tsc_trace_event) + 6, "x") == -EINVAL,
           "misaligned memory one byte short of an event accepted");
    /* A refused trace has no room: it counts events as dropped. */
    TSC_TRACE(&t, "refused") { spin(1); }
    EXPECT(t.n == 0 && tsc_trace_dropped(&t) == 1 && t.depth == 0,
           "a refused trace holds %lu events, dropped %llu, depth %d (expected 0, 1, 0)", (unsigned long)t.n,
           (unsigned long long)tsc_trace_dropped(&t), t.depth);
    EXPECT(tsc_trace_dropped(NULL) == 0, "a NULL trace reports drops");
    EXPECT(tsc_trace_init(&t, mem, sizeof mem, "x") == 0, "good input refused");
    EXPECT(tsc_trace_add(NULL, "a", 1, 2) == -EINVAL, "add to NULL accepted");
    EXPECT(tsc_trace_add(&t, NULL, 1, 2) == -EINVAL, "add of a NULL name accepted");
    EXPECT(tsc_trace_add(&t, "a", 3, 2) == -EINVAL, "add with end < start accepted");
    EXPECT(tsc_trace_add(&t, "a", 0, 0) == -EINVAL, "add with end == 0 accepted");
    EXPECT(t.n == 0, "refused adds recorded %lu events", (unsigned long)t.n);
    one[0] = &t;
    EXPECT(tsc_trace_write_json(NULL, one, 1) == -EINVAL, "NULL stream accepted");
    EXPECT(tsc_trace_write_json(stdout, one, -1) == -EINVAL, "n < 0 accepted");
    EXPECT(tsc_trace_write_json(stdout, NULL, 1) == -EINVAL, "NULL array accepted");
    EXPECT(tsc_trace_write_json(stdout, none, 1) == -EINVAL, "NULL element accepted");
}

static void test_memory_of_any_alignment_is_used_from_the_next_8_bytes(void **state)
{
    static uint64_t words[64];
    char *base = (char *)words;
    struct tsc_trace t;
    size_t off, bytes = 10 * sizeof(struct tsc_trace_event), want;
    (void)state;
    for (off = 0; off < 8; off++) {
        EXPECT(tsc_trace_init(&t, base + off, bytes, "x") == 0, "offset %lu refused", (unsigned long)off);
        want = (bytes - (8 - off) % 8) / sizeof(struct tsc_trace_event);
        EXPECT((uintptr_t)t.ev % 8u == 0, "offset %lu: events at a misaligned address", (unsigned long)off);
        EXPECT((char *)t.ev >= base + off && (char *)t.ev < base + off + 8,
               "offset %lu: events start %ld bytes in (expected 0..7)", (unsigned long)off,
               (long)((char *)t.ev - (base + off)));
        EXPECT(t.cap == want, "offset %lu: room for %lu events (expected %lu)", (unsigned long)off,
               (unsigned long)t.cap, (unsigned long)want);
    }
    EXPECT(TSC_TRACE_BYTES(10) >= 10 * sizeof(struct tsc_trace_event) + 7,
           "TSC_TRACE_BYTES(10) = %lu leaves no room for alignment",
           (unsigned long)TSC_TRACE_BYTES(10));
}

/* Each worker: ROUNDS times outer { mid { leaf } ; leaf2 via tsc_trace_add }. */
#define ROUNDS 200
#define PER_ROUND 4
struct worker {
    struct tsc_trace t;
    uint64_t mem[ROUNDS * PER_ROUND * 4 + 8]; /* 24-byte events, room to spare */
};

/* Spins per unit of work: 1 natively; under emulation, where the counter
 * may move in 1 us steps (qemu-aarch64), enough for every block to span
 * several steps, so that no two stamps of nested blocks tie. */
static int spin_scale = 1;

static void *worker_main(void *arg)
{
    struct worker *w = (struct worker *)arg;
    uint64_t s;
    int r, k = spin_scale;
    for (r = 0; r < ROUNDS; r++) {
        TSC_TRACE(&w->t, "outer") {
            spin(200 * k);
            TSC_TRACE(&w->t, "mid") {
                spin(200 * k);
                TSC_TRACE(&w->t, "leaf") { spin(200 * k); }
                spin(100 * k);
            }
            s = tsc_clock_ticks();
            spin(200 * k);
            (void)tsc_trace_add(&w->t, "added", s, tsc_clock_ticks());
        }
    }
    return NULL;
}

static void test_two_threads_write_nested_ordered_events(void **state)
{
    static struct worker w[2];
    static struct span ev[2 * ROUNDS * PER_ROUND + 1];
    static const char *parent_of[][2] = {
        {"outer", NULL}, {"mid", "outer"}, {"leaf", "mid"}, {"added", "outer"}};
    const struct tsc_trace *tr[2];
    pthread_t th[2];
    struct jdoc d;
    struct span stack[8];
    char *text;
    int i, k, nev, top, count[2] = {0, 0}, p, emulated = getenv("TSC_TEST_EMULATED") != NULL;
    const char *want;
    spin_scale = emulated ? 20 : 1;
    (void)state;
    EXPECT(tsc_trace_init(&w[0].t, w[0].mem, sizeof w[0].mem, "worker \"A\"") == 0, "init A");
    EXPECT(tsc_trace_init(&w[1].t, w[1].mem, sizeof w[1].mem, "worker B") == 0, "init B");
    for (i = 0; i < 2; i++)
        EXPECT(pthread_create(&th[i], NULL, worker_main, &w[i]) == 0, "pthread_create");
    for (i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (i = 0; i < 2; i++) {
        EXPECT(w[i].t.depth == 0, "thread %d: depth %d after its blocks (expected 0)", i,
               w[i].t.depth);
        EXPECT(tsc_trace_dropped(&w[i].t) == 0, "thread %d dropped %llu events (expected 0)", i,
               (unsigned long long)tsc_trace_dropped(&w[i].t));
        tr[i] = &w[i].t;
    }
    text = write_and_parse(tr, 2, &d);
    nev = x_events(&d, ev, (int)(sizeof ev / sizeof ev[0]));
    EXPECT(nev == 2 * ROUNDS * PER_ROUND, "%d X events (expected exactly %d)", nev,
           2 * ROUNDS * PER_ROUND);

    for (i = 0; i < 2; i++) { /* thread names, as given (escaped and back) */
        int m = meta_event(&d, (uint64_t)i + 1, "thread_name");
        EXPECT(m >= 0, "no thread_name metadata for tid %d", i + 1);
        EXPECT(!strcmp(j_str(&d, j_get(&d, m, "args"), "name"), i ? "worker B" : "worker \"A\""),
               "tid %d named \"%s\"", i + 1, j_str(&d, j_get(&d, m, "args"), "name"));
    }
    EXPECT(j_uint(&d, j_get(&d, 0, "otherData"), "dropped") == 0, "otherData.dropped != 0");

    /* Per thread: ts non-decreasing (0 ns tolerance), and every event inside
     * the enclosing one found by a stack walk, end included (0 ns), with
     * the parent the program gave it. */
    for (i = 0; i < 2; i++) {
        uint64_t tid = (uint64_t)i + 1, prev = 0;
        top = 0;
        for (k = 0; k < nev; k++) {
            if (ev[k].tid != tid)
                continue;
            count[i]++;
            EXPECT(ev[k].ts >= prev, "tid %llu event %d \"%s\": ts %llu ns before the previous %llu ns",
                   (unsigned long long)tid, k, ev[k].name, (unsigned long long)ev[k].ts,
                   (unsigned long long)prev);
            prev = ev[k].ts;
            /* (an emulated counter may move in 1 us steps: qemu-aarch64) */
            EXPECT(emulated ? ev[k].end >= ev[k].ts : ev[k].end > ev[k].ts,
                   "\"%s\" lasted %s (spins take > 100 ns)", ev[k].name,
                   ev[k].end < ev[k].ts ? "less than 0 ns" : "0 ns");
            while (top > 0 && stack[top - 1].end <= ev[k].ts)
                top--;
            if (top > 0)
                EXPECT(ev[k].end <= stack[top - 1].end,
                       "tid %llu: \"%s\" [%llu, %llu] overlaps its parent \"%s\" [%llu, %llu]",
                       (unsigned long long)tid, ev[k].name, (unsigned long long)ev[k].ts,
                       (unsigned long long)ev[k].end, stack[top - 1].name,
                       (unsigned long long)stack[top - 1].ts, (unsigned long long)stack[top - 1].end);
            want = "?";
            for (p = 0; p < 4; p++)
                if (!strcmp(parent_of[p][0], ev[k].name))
                    want = parent_of[p][1];
            EXPECT(want == NULL ? top == 0 : top > 0 && !strcmp(stack[top - 1].name, want),
                   "tid %llu: \"%s\" inside \"%s\" (expected %s)", (unsigned long long)tid,
                   ev[k].name, top ? stack[top - 1].name : "nothing", want ? want : "nothing");
            EXPECT(top < 8, "nesting deeper than 8");
            stack[top++] = ev[k];
        }
        EXPECT(count[i] == ROUNDS * PER_ROUND, "tid %llu: %d events (expected %d)",
               (unsigned long long)tid, count[i], ROUNDS * PER_ROUND);
    }
    j_free(&d);
    free(text);
}

static void test_a_full_buffer_counts_what_did_not_fit(void **state)
{
    static uint64_t mem[TSC_TRACE_BYTES(10) / 8 + 1];
    struct tsc_trace t;
    const struct tsc_trace *tr[1];
    struct span ev[32];
    struct jdoc d;
    char *text;
    int i, nev, m;
    uint64_t s;
    (void)state;
    /* 10 events' bytes from 3 bytes past an 8-byte boundary: 5 go to
     * alignment, room for 9. */
    EXPECT(tsc_trace_init(&t, (char *)mem + 3, 10 * sizeof(struct tsc_trace_event), "small") == 0,
           "init refused");
    EXPECT(t.cap == 9, "room for %lu events (expected 9)", (unsigned long)t.cap);
    for (i = 0; i < 20; i++)
        TSC_TRACE(&t, "block") { spin(10); }
    s = tsc_clock_ticks();
    EXPECT(tsc_trace_add(&t, "late", s, tsc_clock_ticks()) == -ENOSPC, "add to a full trace");
    EXPECT(t.n == 9, "%lu events held (expected exactly 9)", (unsigned long)t.n);
    EXPECT(tsc_trace_dropped(&t) == 12, "%llu dropped (expected exactly 20 + 1 - 9 = 12)",
           (unsigned long long)tsc_trace_dropped(&t));
    EXPECT(t.depth == 0, "depth %d after dropped blocks (expected 0)", t.depth);
    tr[0] = &t;
    text = write_and_parse(tr, 1, &d);
    nev = x_events(&d, ev, 32);
    EXPECT(nev == 9, "%d X events written (expected exactly 9)", nev);
    EXPECT(j_uint(&d, j_get(&d, 0, "otherData"), "dropped") == 12,
           "otherData.dropped is not exactly 12");
    m = meta_event(&d, 1, "tsc_trace_dropped");
    EXPECT(m >= 0 && j_uint(&d, j_get(&d, m, "args"), "dropped") == 12,
           "no tsc_trace_dropped metadata with args.dropped exactly 12");
    j_free(&d);
    free(text);
}

static void test_names_are_escaped_and_read_back_unchanged(void **state)
{
    static uint64_t mem[64];
    static const char *odd = "q\"b\\s/n\nt\t\x01\x1f end";
    struct tsc_trace t;
    const struct tsc_trace *tr[1];
    struct span ev[4];
    struct jdoc d;
    char *text;
    (void)state;
    EXPECT(tsc_trace_init(&t, mem, sizeof mem, odd) == 0, "init refused");
    TSC_TRACE(&t, odd) { spin(10); }
    tr[0] = &t;
    text = write_and_parse(tr, 1, &d);
    EXPECT(x_events(&d, ev, 4) == 1, "not exactly one X event");
    EXPECT(!strcmp(ev[0].name, odd), "event name read back as \"%s\"", ev[0].name);
    EXPECT(!strcmp(j_str(&d, j_get(&d, meta_event(&d, 1, "thread_name"), "args"), "name"), odd),
           "thread name not read back unchanged");
    j_free(&d);
    free(text);
}

/* A name with invalid UTF-8 and what the file must hold instead: each byte
 * outside a well-formed sequence becomes U+FFFD ("R" below), well-formed
 * sequences stay as they are. */
#define R "\xEF\xBF\xBD"
static const char *const utf8_cases[][2] = {
    {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
    {"edges \xED\x9F\xBF \xEE\x80\x80 \xF4\x8F\xBF\xBF", "edges \xED\x9F\xBF \xEE\x80\x80 \xF4\x8F\xBF\xBF"},
    {"stray \x80 \xBF", "stray " R " " R},
    {"overlong \xC0\xAF \xC1\xBF \xE0\x80\xAF \xF0\x80\x80\xAF", "overlong " R R " " R R " " R R R " " R R R R},
    {"surrogate \xED\xA0\x80 \xED\xBF\xBF", "surrogate " R R R " " R R R},
    {"too big \xF4\x90\x80\x80 \xF5\x80 \xFF", "too big " R R R R " " R R " " R},
    {"cut \xE2\x82x \xF0\x9F\x98", "cut " R R "x " R R R},
    {"quote\"\xC3", "quote\"" R},
};
#undef R

static void test_names_that_are_not_utf8_are_written_with_replacement_characters(void **state)
{
    enum { N = (int)(sizeof utf8_cases / sizeof utf8_cases[0]) };
    static uint64_t mem[TSC_TRACE_BYTES(N) / 8 + 1];
    struct tsc_trace t;
    const struct tsc_trace *tr[1];
    struct span ev[N + 1];
    struct jdoc d;
    char *text;
    int i;
    (void)state;
    EXPECT(tsc_trace_init(&t, mem, sizeof mem, utf8_cases[2][0]) == 0, "init refused");
    for (i = 0; i < N; i++)
        TSC_TRACE(&t, utf8_cases[i][0]) { spin(10); }
    tr[0] = &t;
    text = write_and_parse(tr, 1, &d);
    EXPECT(x_events(&d, ev, N + 1) == N, "not exactly %d X events", N);
    for (i = 0; i < N; i++)
        EXPECT(!strcmp(ev[i].name, utf8_cases[i][1]), "name %d written as \"%s\" (expected \"%s\")", i,
               ev[i].name, utf8_cases[i][1]);
    EXPECT(!strcmp(j_str(&d, j_get(&d, meta_event(&d, 1, "thread_name"), "args"), "name"),
                   utf8_cases[2][1]),
           "thread name written as \"%s\" (expected \"%s\")",
           j_str(&d, j_get(&d, meta_event(&d, 1, "thread_name"), "args"), "name"), utf8_cases[2][1]);
    j_free(&d);
    free(text);
}

static uint64_t os_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ts is on CLOCK_MONOTONIC (small enough for a double to keep its ns) and
 * otherData.realtime_offset_ns is CLOCK_REALTIME - CLOCK_MONOTONIC. The
 * line's agreement with the OS clock is test_clock's (1 us); here 1 ms
 * tells the time lines apart. */
static void test_events_are_on_the_monotonic_line_with_the_realtime_offset_stated(void **state)
{
    static uint64_t mem[64];
    struct tsc_trace t;
    const struct tsc_trace *tr[1];
    struct span ev[2];
    struct jdoc d;
    const char *off;
    char *text, *end;
    uint64_t m0, m1, r0, r1, m2;
    int64_t want, got;
    int i;
    (void)state;
    EXPECT(tsc_trace_init(&t, mem, sizeof mem, "m") == 0, "init refused");
    /* The offset written is the clock's, measured at its last resync: a
     * time agent that moves CLOCK_REALTIME alone (seen slewing it 5 ms a
     * second on a VM) would otherwise leave it behind the kernel's. */
    for (i = 0; i < 10 && tsc_clock_resync() != 0; i++)
        ;
    m0 = os_ns(CLOCK_MONOTONIC);
    TSC_TRACE(&t, "bracketed") { spin(10); }
    m1 = os_ns(CLOCK_MONOTONIC);
    r0 = os_ns(CLOCK_REALTIME);
    m2 = os_ns(CLOCK_MONOTONIC);
    r1 = os_ns(CLOCK_REALTIME);
    want = (int64_t)((r0 + r1) / 2 - m2); /* (two's complement: < 0 where realtime < monotonic) */
    tr[0] = &t;
    text = write_and_parse(tr, 1, &d);
    EXPECT(x_events(&d, ev, 2) == 1, "not exactly one X event");
    EXPECT(ev[0].ts + 1000000u >= m0 && ev[0].end <= m1 + 1000000u,
           "event [%llu, %llu] ns, CLOCK_MONOTONIC around it [%llu, %llu] ns (1 ms allowed)",
           (unsigned long long)ev[0].ts, (unsigned long long)ev[0].end, (unsigned long long)m0,
           (unsigned long long)m1);
    EXPECT(!strcmp(j_str(&d, j_get(&d, 0, "otherData"), "clock"), "CLOCK_MONOTONIC"),
           "otherData.clock is not \"CLOCK_MONOTONIC\"");
    off = j_str(&d, j_get(&d, 0, "otherData"), "realtime_offset_ns");
    EXPECT(off != NULL && (*off == '-' || (*off >= '0' && *off <= '9')),
           "no realtime_offset_ns string of a signed decimal");
    got = (int64_t)strtoll(off, &end, 10);
    EXPECT(*end == '\0' && got >= want - 1000000 && got <= want + 1000000,
           "realtime_offset_ns %s, CLOCK_REALTIME - CLOCK_MONOTONIC %lld (1 ms allowed)", off,
           (long long)want);
    j_free(&d);
    free(text);
}

static void test_break_ends_the_block_and_stays_in_the_loop(void **state)
{
    static uint64_t mem[64];
    struct tsc_trace t;
    int i, after = 0;
    (void)state;
    EXPECT(tsc_trace_init(&t, mem, sizeof mem, "b") == 0, "init refused");
    for (i = 0; i < 3; i++) {
        TSC_TRACE(&t, "broken") {
            spin(10);
            if (i >= 0)
                break;
            spin(10);
        }
        after++;
    }
    EXPECT(after == 3, "the loop around went on %d times (expected 3)", after);
    EXPECT(t.n == 3 && t.depth == 0, "%lu events, depth %d (expected 3, 0)", (unsigned long)t.n, t.depth);
    for (i = 0; i < 3; i++)
        EXPECT(t.ev[i].end >= t.ev[i].start && t.ev[i].end != 0, "event %d not ended", i);
}

/* Leaves a block by return: the event stays open. */
static int leave_early(struct tsc_trace *t)
{
    TSC_TRACE(t, "left") {
        spin(10);
        return 1;
    }
    return 0;
}

static void test_an_event_left_by_return_is_counted_unfinished(void **state)
{
    static uint64_t mem[64];
    struct tsc_trace t;
    const struct tsc_trace *tr[1];
    struct span ev[4];
    struct jdoc d;
    char *text;
    (void)state;
    EXPECT(tsc_trace_init(&t, mem, sizeof mem, "r") == 0, "init refused");
    EXPECT(leave_early(&t) == 1, "the block did not run");
    EXPECT(t.depth == 1, "depth %d after a return out of a block (expected 1)", t.depth);
    t.depth = 0;
    TSC_TRACE(&t, "done") { spin(10); }
    tr[0] = &t;
    text = write_and_parse(tr, 1, &d);
    EXPECT(x_events(&d, ev, 4) == 1 && !strcmp(ev[0].name, "done"),
           "expected only the finished event written");
    EXPECT(j_uint(&d, j_get(&d, 0, "otherData"), "unfinished") == 1,
           "otherData.unfinished is not exactly 1");
    j_free(&d);
    free(text);
}

static void test_added_events_take_their_place_by_start(void **state)
{
    static uint64_t mem[128];
    struct tsc_trace t;
    uint64_t s;
    (void)state;
    EXPECT(tsc_trace_init(&t, mem, sizeof mem, "a") == 0, "init refused");
    s = tsc_clock_ticks();
    TSC_TRACE(&t, "child1") { spin(10); }
    TSC_TRACE(&t, "child2") { spin(10); }
    EXPECT(tsc_trace_add(&t, "parent", s, tsc_clock_ticks()) == 0, "add refused");
    EXPECT(t.n == 3 && !strcmp(t.ev[0].name, "parent") && !strcmp(t.ev[1].name, "child1") &&
               !strcmp(t.ev[2].name, "child2"),
           "order %s, %s, %s (expected parent, child1, child2)", t.ev[0].name, t.ev[1].name,
           t.ev[2].name);
    /* Equal starts: the longer one (the parent) first. */
    EXPECT(tsc_trace_add(&t, "short", t.ev[2].end, t.ev[2].end + 1) == 0, "add refused");
    EXPECT(tsc_trace_add(&t, "long", t.ev[2].end, t.ev[2].end + 5) == 0, "add refused");
    EXPECT(!strcmp(t.ev[3].name, "long") && !strcmp(t.ev[4].name, "short"),
           "equal starts ordered %s, %s (expected long, short)", t.ev[3].name, t.ev[4].name);
    /* Starting before a block still open around the call: not nested. */
    s = tsc_clock_ticks();
    TSC_TRACE(&t, "open") {
        spin(10);
        EXPECT(tsc_trace_add(&t, "straddles", s, tsc_clock_ticks()) == -EINVAL,
               "an interval overlapping an open block was accepted");
    }
    EXPECT(t.n == 6, "%lu events (expected 6: the straddling one refused)",
           (unsigned long)t.n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input_is_refused),
        cmocka_unit_test(test_memory_of_any_alignment_is_used_from_the_next_8_bytes),
        cmocka_unit_test(test_two_threads_write_nested_ordered_events),
        cmocka_unit_test(test_a_full_buffer_counts_what_did_not_fit),
        cmocka_unit_test(test_names_are_escaped_and_read_back_unchanged),
        cmocka_unit_test(test_names_that_are_not_utf8_are_written_with_replacement_characters),
        cmocka_unit_test(test_events_are_on_the_monotonic_line_with_the_realtime_offset_stated),
        cmocka_unit_test(test_break_ends_the_block_and_stays_in_the_loop),
        cmocka_unit_test(test_an_event_left_by_return_is_counted_unfinished),
        cmocka_unit_test(test_added_events_take_their_place_by_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
