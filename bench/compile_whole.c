/* SPDX-License-Identifier: MIT */
/* compile_cost.py's "whole API" file: every public function and macro of
 * the header used once, with as little code of its own as that allows, so
 * its compile time is the header's. Compiled, never run. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include "tsc_timer.h"

extern volatile unsigned sink;
static char trace_mem[TSC_TRACE_BYTES(16)];

uint64_t whole(FILE *out);
uint64_t whole(FILE *out)
{
    static struct tsc_stats s, s2;
    static struct tsc_regions r;
    static const char *const names[] = {"a", "b"};
    struct tsc_bench b;
    const struct tsc_bench *bs[1];
    struct tsc_bench_result br;
    struct tsc_calibration cal;
    struct tsc_trace tr;
    const struct tsc_trace *trs[1];
    struct tsc_features f = tsc_get_features();
    struct tsc_trust t = tsc_get_trust();
    uint64_t acc = 0, bound = 0, c, t2;
    uint32_t cpu = 0;
    tsc_init();
    acc += tsc_ticks_before() + tsc_ticks_after() + tsc_ticks_after_cpu(&cpu);
    acc += tsc_ticks_before_cpu(&cpu) + (uint64_t)tsc_ticks_per_second();
    acc += tsc_ticks_to_ns(acc) + tsc_ns_to_ticks(acc) + (uint64_t)tsc_ticks_to_seconds(acc);
    acc += tsc_overhead_ticks() + tsc_sub_overhead(acc) + (uint64_t)tsc_calibrate(0.001, &cal);
    acc += (uint64_t)tsc_current_calibration(&cal) + (uint64_t)tsc_trust_measure_skew(&bound);
    acc += tsc_now_ns() + tsc_now_realtime_ns() + tsc_now_ns_unordered();
    acc += tsc_now_realtime_ns_unordered() + (uint64_t)tsc_clock_resync();
    c = tsc_clock_ticks() + tsc_clock_ticks_unordered();
    acc += tsc_clock_ticks_to_ns(c) + tsc_clock_ticks_to_realtime_ns(c);
    acc += (uint64_t)strlen(tsc_counter_name()) + (uint64_t)f.has_invariant_tsc + (uint64_t)t.level;
    tsc_stats_init(&s);
    tsc_stats_init(&s2);
    tsc_stats_add(&s, acc);
    acc += (uint64_t)tsc_stats_add_cpu(&s, acc, 0, 0, 1);
    {
        TSC_START(x);
        TSC_END(x, &s);
    }
    {
        TSC_START_CPU(y);
        TSC_END_CPU(y, &s, 1);
    }
    {
        TSC_START(z);
        TSC_END_LOG(z, out);
    }
    TSC_TIMESTAMP(now, out);
    TSC_MEASURE(&s) { sink++; }
    TSC_KEEP(acc);
    tsc_stats_merge(&s2, &s);
    acc += tsc_stats_percentile(&s, 50) + tsc_stats_count(&s) + tsc_stats_min(&s) + tsc_stats_max(&s);
    acc += (uint64_t)(tsc_stats_sum(&s) + tsc_stats_mean(&s) + tsc_stats_stddev(&s));
    tsc_stats_print(&s, "s", out);
    acc += (uint64_t)tsc_stats_print_flags(&s, "s", out, TSC_PRINT_NO_HISTOGRAM | TSC_PRINT_SUB_OVERHEAD);
    acc += (uint64_t)tsc_regions_init(&r, 2, names);
    acc += (uint64_t)tsc_region_start(&r, 0) + (uint64_t)tsc_region_switch(&r, 1);
    acc += (uint64_t)tsc_region_stop(&r) + tsc_regions_total(&r);
    tsc_regions_print(&r, out);
    acc += (uint64_t)tsc_bench_init(&b, "b") + (uint64_t)tsc_bench_set_budget(&b, 0.01);
    TSC_BENCH(&b) { sink++; }
    acc += (uint64_t)tsc_bench_get_result(&b, &br);
    tsc_bench_print(&b, out);
    bs[0] = &b;
    acc += (uint64_t)tsc_bench_write(bs, 1, out, TSC_BENCH_JSON);
    acc += (uint64_t)tsc_trace_init(&tr, trace_mem, sizeof trace_mem, "main");
    TSC_TRACE(&tr, "block") { sink++; }
    t2 = tsc_clock_ticks();
    acc += (uint64_t)tsc_trace_add(&tr, "added", t2, tsc_clock_ticks()) + tsc_trace_dropped(&tr);
    trs[0] = &tr;
    acc += (uint64_t)tsc_trace_write_json(out, trs, 1);
    TSC_ZONE("zone") { sink++; }
    TSC_ZONE_FUNC { sink++; }
    tsc_zones_print(out);
    acc += (uint64_t)tsc_zones_write(out, TSC_BENCH_JSON) + (uint64_t)tsc_zones_print_at_exit(out);
    tsc_zones_reset();
    return acc;
}
