/* SPDX-License-Identifier: MIT */
/* Trace export: three worker threads record nested blocks into their own
 * struct tsc_trace, and main writes them as one Chrome Trace Event Format
 * file. Open it at https://ui.perfetto.dev (Open trace file) or in
 * chrome://tracing (Load). Usage: trace [out.json], default trace.json. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "tsc_timer.h"

#define WORKERS 3
#define FRAMES 4

struct worker {
    struct tsc_trace trace;
    int id;
    char mem[TSC_TRACE_BYTES(256)]; /* room for 256 events, any alignment */
};

/* Busy work: n x 6000 volatile adds. */
static void work(int n)
{
    volatile unsigned x = 0;
    int i;
    for (i = 0; i < n * 6000; i++)
        x = x + (unsigned)i;
}

static void *worker_main(void *arg)
{
    struct worker *w = (struct worker *)arg;
    struct tsc_trace *t = &w->trace;
    uint64_t s;
    int f, k, scale = 2 + w->id; /* each worker at its own pace */
    for (f = 0; f < FRAMES; f++) {
        TSC_TRACE(t, "frame") {
            TSC_TRACE(t, "load") { work(40 * scale); }
            TSC_TRACE(t, "compute") {
                for (k = 0; k < 3; k++)
                    TSC_TRACE(t, "kernel") { work(50 * scale + 30 * k); }
            }
            s = tsc_clock_ticks(); /* the function form, for code without a block */
            work(20 * scale);
            tsc_trace_add(t, "store", s, tsc_clock_ticks());
        }
        work(30); /* between frames */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    static struct worker w[WORKERS];
    static const char *names[WORKERS] = {"worker 1", "worker 2", "worker 3"};
    const struct tsc_trace *traces[WORKERS];
    pthread_t th[WORKERS];
    const char *path = argc > 1 ? argv[1] : "trace.json";
    FILE *f;
    int i, rc;

    tsc_init(); /* one-time work now, not inside the first block */
    for (i = 0; i < WORKERS; i++) {
        w[i].id = i;
        tsc_trace_init(&w[i].trace, w[i].mem, sizeof w[i].mem, names[i]);
        traces[i] = &w[i].trace;
    }
    for (i = 0; i < WORKERS; i++)
        if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0)
            return 1;
    for (i = 0; i < WORKERS; i++)
        pthread_join(th[i], NULL); /* the traces are read only once joined */

    f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    rc = tsc_trace_write_json(f, traces, WORKERS);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "writing %s failed\n", path);
        return 1;
    }
    for (i = 0; i < WORKERS; i++)
        printf("%s: %lu events, %lu dropped\n", names[i], (unsigned long)w[i].trace.n,
               (unsigned long)tsc_trace_dropped(&w[i].trace));
    printf("wrote %s: open it at https://ui.perfetto.dev (Open trace file)\n"
           "or in chrome://tracing (Load)\n", path);
    return 0;
}
