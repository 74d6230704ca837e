/* SPDX-License-Identifier: MIT */
/* Writes the traces tests/trace_viewer.py opens in a real trace viewer:
 *   tiny.json    8 threads x 1000 blocks of tens of ns, each holding a
 *                child of ~10 ns: the offsets a double must keep
 *   odd.json     names that need JSON escapes or are not UTF-8, a trace
 *                with too little room (dropped events), a trace without
 *                events
 *   empty.json   no traces at all
 *   proc_a.json  two processes taking turns over pipes (the second one
 *   proc_b.json  started by exec, so its clock is set up on its own)
 *   zones.json   zones traced (tsc_zones_trace): a producer and two
 *                consumers over a queue, each item a flow from the
 *                producer's slice to a consumer's (the arrival inside the
 *                consumer's zone, or just before it: the next slice),
 *                the queue's depth a counter, instants inside and outside
 *                zones
 * Usage: trace_viewer_gen DIR (Linux). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe, fork and execl under a strict -std= too */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pthread.h>
#include "tsc_timer.h"

#define THREADS 8
#define BLOCKS 1000
#define TURNS 20

static void spin(int n)
{
    volatile int x = 0;
    int i;
    for (i = 0; i < n; i++)
        x = x + i;
}

static int write_file(const char *dir, const char *name, const struct tsc_trace *const *tr, int n)
{
    char path[4096];
    FILE *f;
    int rc;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    rc = tsc_trace_write_json(f, tr, n);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "writing %s failed\n", path);
        return 1;
    }
    return 0;
}

struct tiny {
    struct tsc_trace t;
    char mem[TSC_TRACE_BYTES(2 * BLOCKS)];
};

static void *tiny_main(void *arg)
{
    struct tsc_trace *t = &((struct tiny *)arg)->t;
    int i;
    for (i = 0; i < BLOCKS; i++)
        TSC_TRACE(t, "block") {
            spin(2);
            TSC_TRACE(t, "child") { spin(1); }
            spin(2);
        }
    return NULL;
}

static int tiny_file(const char *dir)
{
    static struct tiny w[THREADS];
    static char names[THREADS][16];
    const struct tsc_trace *tr[THREADS];
    pthread_t th[THREADS];
    int i;
    for (i = 0; i < THREADS; i++) {
        snprintf(names[i], sizeof names[i], "tiny %d", i + 1);
        tsc_trace_init(&w[i].t, w[i].mem, sizeof w[i].mem, names[i]);
        tr[i] = &w[i].t;
        if (pthread_create(&th[i], NULL, tiny_main, &w[i]) != 0)
            return 1;
    }
    for (i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    return write_file(dir, "tiny.json", tr, THREADS);
}

static int odd_file(const char *dir)
{
    static const char *names[] = {
        "quote \" backslash \\ slash / newline \n tab \t control \x01 \x1f",
        "not UTF-8: \xC0\xAF \xED\xA0\x80 \xF4\x90\x80\x80 \xFF cut \xE2\x82",
        "UTF-8: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",
    };
    static uint64_t mem[3][TSC_TRACE_BYTES(8) / 8 + 1];
    struct tsc_trace t[3];
    const struct tsc_trace *tr[3] = {&t[0], &t[1], &t[2]};
    int i;
    tsc_trace_init(&t[0], mem[0], sizeof mem[0], "thread \"\xC3\x28\" \\ \xF0\x9F\x98\x80");
    TSC_TRACE(&t[0], names[0]) {
        spin(100);
        TSC_TRACE(&t[0], names[1]) { spin(100); }
        TSC_TRACE(&t[0], names[2]) { spin(100); }
    }
    /* Room for 3 events, 10 blocks: 7 dropped. */
    tsc_trace_init(&t[1], mem[1], TSC_TRACE_BYTES(3), "dropping");
    for (i = 0; i < 10; i++)
        TSC_TRACE(&t[1], "kept or dropped") { spin(100); }
    tsc_trace_init(&t[2], mem[2], sizeof mem[2], "idle");
    return write_file(dir, "odd.json", tr, 3);
}

/* One side of the exchange: a block, then the turn passes over the pipe. */
static int take_turns(const char *dir, int rd, int wr, int first)
{
    static uint64_t mem[TSC_TRACE_BYTES(TURNS) / 8 + 1];
    struct tsc_trace t;
    const struct tsc_trace *tr[1] = {&t};
    char c = 0;
    int i;
    tsc_trace_init(&t, mem, sizeof mem, first ? "process A" : "process B");
    for (i = 0; i < TURNS; i++) {
        if (!first && read(rd, &c, 1) != 1)
            return 1;
        TSC_TRACE(&t, first ? "A" : "B") { spin(1000); }
        if (write(wr, &c, 1) != 1)
            return 1;
        if (first && read(rd, &c, 1) != 1)
            return 1;
    }
    return write_file(dir, first ? "proc_a.json" : "proc_b.json", tr, 1);
}

static int two_processes(const char *dir)
{
    int ab[2], ba[2], status;
    char rd[16], wr[16];
    pid_t pid;
    if (pipe(ab) != 0 || pipe(ba) != 0)
        return 1;
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        snprintf(rd, sizeof rd, "%d", ab[0]);
        snprintf(wr, sizeof wr, "%d", ba[1]);
        execl("/proc/self/exe", "trace_viewer_gen", dir, rd, wr, (char *)NULL);
        _exit(127);
    }
    if (take_turns(dir, ba[0], ab[1], 1) != 0)
        return 1;
    return waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

/* --- zones.json ---------------------------------------------------------- */

#define ZITEMS 60

struct zqueue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t item[ZITEMS];
    int head, tail;
};

static void *zproducer(void *arg)
{
    struct zqueue *q = (struct zqueue *)arg;
    uint64_t i;
    tsc_zones_thread_name("producer");
    for (i = 1; i <= ZITEMS; i++) {
        TSC_ZONE("produce") {
            spin(2000);
            pthread_mutex_lock(&q->mu);
            TSC_FLOW_OUT("item", i * 7919u);
            q->item[q->tail++] = i * 7919u;
            TSC_COUNTER("queue depth", q->tail - q->head);
            pthread_cond_broadcast(&q->cv);
            pthread_mutex_unlock(&q->mu);
        }
    }
    TSC_ZONE("finish") { TSC_INSTANT("all produced"); }
    return NULL;
}

struct zconsumer_arg {
    struct zqueue *q;
    const char *name;
};

static void *zconsumer(void *arg)
{
    struct zqueue *q = ((struct zconsumer_arg *)arg)->q;
    uint64_t id;
    int n = 0;
    tsc_zones_thread_name(((struct zconsumer_arg *)arg)->name);
    while (n < ZITEMS / 2) { /* half each, whoever is scheduled first */
        pthread_mutex_lock(&q->mu);
        while (q->head == q->tail)
            pthread_cond_wait(&q->cv, &q->mu);
        id = q->item[q->head++];
        pthread_mutex_unlock(&q->mu);
        if (id % 2) /* the arrival before the zone: it binds to the next slice */
            TSC_FLOW_IN("item", id);
        TSC_ZONE("consume") {
            if (id % 2 == 0)
                TSC_FLOW_IN("item", id);
            spin(1000);
            TSC_ZONE("work") { spin(20000); }
        }
        if (++n % 10 == 0)
            TSC_INSTANT("ten more");
    }
    return NULL;
}

static int zones_file(const char *dir)
{
    static struct zqueue q;
    static struct zconsumer_arg c[2] = {{&q, "consumer 1"}, {&q, "consumer 2"}};
    pthread_t th[3];
    char path[4096];
    FILE *f;
    int i, rc;
    pthread_mutex_init(&q.mu, NULL);
    pthread_cond_init(&q.cv, NULL);
    if (tsc_zones_trace(1 << 20) != 0)
        return 1;
    for (i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, zconsumer, &c[i]) != 0)
            return 1;
    if (pthread_create(&th[2], NULL, zproducer, &q) != 0)
        return 1;
    for (i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    snprintf(path, sizeof path, "%s/zones.json", dir);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    rc = tsc_zones_write_trace(f);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "writing %s failed\n", path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4) /* the second process of two_processes */
        return take_turns(argv[1], atoi(argv[2]), atoi(argv[3]), 0);
    if (argc != 2) {
        fprintf(stderr, "usage: trace_viewer_gen DIR\n");
        return 2;
    }
    tsc_init();
    if (tiny_file(argv[1]) || odd_file(argv[1]) || write_file(argv[1], "empty.json", NULL, 0) ||
        two_processes(argv[1]) || zones_file(argv[1]))
        return 1;
    return 0;
}
