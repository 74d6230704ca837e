/* SPDX-License-Identifier: MIT */
/* A hot loop timed with TSC_MEASURE into statistics: each pass hashes a
 * buffer whose length varies, now and then a long one. Prints percentiles
 * and a histogram, less the timer's own overhead. */
#include <stdio.h>
#include "tsc_timer.h"

static unsigned char buf[8192];
static struct tsc_stats st;

/* FNV-1a over n bytes. */
static uint32_t hash(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    while (n--)
        h = (h ^ *p++) * 16777619u;
    return h;
}

int main(void)
{
    enum { PASSES = 100000 };
    uint32_t seed = 1, h = 0;
    int i;

    for (i = 0; i < (int)sizeof buf; i++)
        buf[i] = (unsigned char)(i * 31);
    tsc_init(); /* all one-time work now, not inside the loop */
    tsc_stats_init(&st);
    for (i = 0; i < PASSES; i++) {
        size_t len;
        seed = seed * 1103515245u + 12345u;
        len = (seed >> 16) % 256 + 1;           /* 1 .. 256 bytes      */
        if (i % 1000 == 0)
            len = sizeof buf;                   /* a long one, rarely  */
        TSC_MEASURE(&st) {
            h ^= hash(buf, len);
        }
    }
    tsc_stats_print_flags(&st, "hash of 1..256 bytes (1 in 1000: 8 KiB)", stdout,
                          TSC_PRINT_SUB_OVERHEAD);
    printf("(checksum %08x)\n", (unsigned)h);
    if (tsc_stats_count(&st) != PASSES) {
        printf("error: %llu samples\n", (unsigned long long)tsc_stats_count(&st));
        return 1;
    }
    return 0;
}
