/* SPDX-License-Identifier: MIT */
/* Zones: a profile of named blocks. Three threads decode, filter and
 * encode frames in nested zones; main prints one table, every thread
 * merged, sorted by self time (the time in a zone less the zones nested
 * in it), and the same figures as JSON when given a path; with --at-exit
 * the table is printed as the program exits instead (Linux). Usage:
 * zones [out.json | --at-exit] */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "tsc_timer.h"

#define WORKERS 3
#define FRAMES 200

/* Busy work: n x 1000 volatile adds. */
static void work(int n)
{
    volatile unsigned x = 0;
    int i;
    for (i = 0; i < n * 1000; i++)
        x = x + (unsigned)i;
}

static void filter(int strength)
{
    TSC_ZONE_FUNC { /* the zone is named "filter" */
        work(strength);
    }
}

static void *worker(void *arg)
{
    int id = *(const int *)arg, f, pass;
    for (f = 0; f < FRAMES; f++) {
        TSC_ZONE("frame") {
            TSC_ZONE("decode") { work(4 + id); }
            for (pass = 0; pass < 3; pass++)
                filter(2 + pass);
            TSC_ZONE("encode") {
                work(6);
                TSC_ZONE("entropy coding") { work(3); }
            }
            work(1); /* the frame's own work: its self time */
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[WORKERS];
    int id[WORKERS], i;
    FILE *f;

    tsc_init(); /* one-time work now, not inside the first zone */
    if (argc > 1 && strcmp(argv[1], "--at-exit") == 0) {
        if (tsc_zones_print_at_exit(stdout) != 0) {
            fprintf(stderr, "error: no printing at exit here\n");
            return 1;
        }
        argc = 0; /* and nothing printed below */
    }
    for (i = 0; i < WORKERS; i++) {
        id[i] = i;
        if (pthread_create(&th[i], NULL, worker, &id[i]) != 0)
            return 1;
    }
    for (i = 0; i < WORKERS; i++)
        pthread_join(th[i], NULL);
    if (argc != 0)
        tsc_zones_print(stdout);
    if (argc > 1) {
        f = fopen(argv[1], "w");
        if (!f) {
            perror(argv[1]);
            return 1;
        }
        if (tsc_zones_write(f, TSC_BENCH_JSON) != 0 || fclose(f) != 0) {
            fprintf(stderr, "error: writing %s failed\n", argv[1]);
            return 1;
        }
    }
    return 0;
}
