/* SPDX-License-Identifier: MIT */
/* A pipeline: one producer and two consumers passing work through a queue,
 * instrumented once with zones and flows. The profile (printed) shows
 * where each thread's time went and, per flow, how long an item waited
 * between its hand-over and its arrival; the trace (written as Chrome
 * Trace Event JSON when given a path) shows the same zones on a timeline,
 * an arrow from each item's enqueue to its dequeue, and the queue's depth.
 * Usage: pipeline [trace.json [items]] (items: 2000 by default) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "tsc_timer.h"

#define SLOTS 16

static uint64_t g_items = 2000;

struct queue {
    pthread_mutex_t mu;
    pthread_cond_t not_empty, not_full;
    uint64_t item[SLOTS];
    int head, count, done;
};

static struct queue q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
                         {0}, 0, 0, 0};

/* Busy work: n x 1000 volatile adds. */
static void work(int n)
{
    volatile unsigned x = 0;
    int i;
    for (i = 0; i < n * 1000; i++)
        x = x + (unsigned)i;
}

static void *producer(void *arg)
{
    uint64_t id;
    (void)arg;
    tsc_zones_thread_name("producer");
    for (id = 1; id <= g_items; id++) {
        TSC_ZONE("produce") {
            work(40);
            TSC_ZONE("enqueue") {
                pthread_mutex_lock(&q.mu);
                while (q.count == SLOTS)
                    pthread_cond_wait(&q.not_full, &q.mu);
                q.item[(q.head + q.count++) % SLOTS] = id;
                TSC_FLOW_OUT("queue", id); /* the item leaves here */
                TSC_COUNTER("queue depth", q.count);
                pthread_cond_signal(&q.not_empty);
                pthread_mutex_unlock(&q.mu);
            }
        }
    }
    pthread_mutex_lock(&q.mu);
    q.done = 1;
    pthread_cond_broadcast(&q.not_empty);
    pthread_mutex_unlock(&q.mu);
    return NULL;
}

static void *consumer(void *arg)
{
    uint64_t id = 0;
    tsc_zones_thread_name((const char *)arg);
    for (;;) {
        TSC_ZONE("dequeue") {
            pthread_mutex_lock(&q.mu);
            while (q.count == 0 && !q.done)
                pthread_cond_wait(&q.not_empty, &q.mu);
            id = 0;
            if (q.count > 0) {
                id = q.item[q.head];
                q.head = (q.head + 1) % SLOTS;
                q.count--;
                TSC_FLOW_IN("queue", id); /* ... and arrives here */
                pthread_cond_signal(&q.not_full);
            }
            pthread_mutex_unlock(&q.mu);
        }
        if (id == 0)
            break;
        TSC_ZONE("consume") { work(30); }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    static const char *names[2] = {"consumer 1", "consumer 2"};
    pthread_t th[3];
    FILE *f;
    int i;
    if (argc > 2)
        g_items = strtoull(argv[2], NULL, 10);
    tsc_init();
    tsc_zones_trace(1 << 20); /* 1 MiB per thread: every zone also traced */
    for (i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, consumer, (void *)names[i]);
    pthread_create(&th[2], NULL, producer, NULL);
    for (i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    tsc_zones_print(stdout);
    if (argc > 1) {
        f = fopen(argv[1], "w");
        if (!f || tsc_zones_write_trace(f) != 0 || fclose(f) != 0) {
            fprintf(stderr, "error: writing %s failed\n", argv[1]);
            return 1;
        }
        printf("wrote %s\n", argv[1]);
    }
    return 0;
}
