// SPDX-License-Identifier: MIT
// The C++ side: zones and measure scopes ended by every way out of a
// scope (return, break, an exception), stamps as a type of their own, and
// the std::chrono clocks (with <chrono> included first, as they ask).
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <csetjmp>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
extern "C" { // (Debian's cmocka.h declares its functions without it)
#include <cmocka.h>
}
#include "tsc_test.h"

// One zone's calls and self share, read back from the CSV writer.
struct zone_row {
    long calls = -1;
    double self_pct = 0;
};
static zone_row zone(const char *name, double *pct_sum = nullptr)
{
    zone_row r;
    FILE *f = tmpfile();
    char line[512], want[128];
    assert_non_null(f);
    assert_int_equal(tsc_zones_write(f, TSC_BENCH_CSV), 0);
    rewind(f);
    snprintf(want, sizeof want, "\"%s\",", name);
    if (pct_sum)
        *pct_sum = 0;
    while (fgets(line, sizeof line, f)) {
        long calls;
        double pct;
        const char *comma = strstr(line, "\",");
        if (line[0] != '"' || !comma || sscanf(comma + 2, "%ld,%lf", &calls, &pct) != 2)
            continue;
        if (pct_sum && strncmp(line, "\"(not recorded)\"", 16))
            *pct_sum += pct;
        if (!strncmp(line, want, strlen(want))) {
            r.calls = calls;
            r.self_pct = pct;
        }
    }
    fclose(f);
    return r;
}

static uint64_t spin(uint64_t x, int n)
{
    for (int i = 0; i < n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        TSC_KEEP(x);
    }
    return x;
}

static int step(int i, uint64_t &x)
{
    TSC_ZONE("step") {
        x = spin(x, 300);
        if (i == 50)
            return -1; // one early return out of 100 once gave "(all) 0.0 %"
        TSC_ZONE("inner") x = spin(x, 300);
    }
    return 0;
}

static void thrower(uint64_t &x)
{
    TSC_ZONE_SCOPE("throws");
    x = spin(x, 300);
    throw std::runtime_error("out of the zone");
}

// Every call is recorded however it ends, and the shares add up.
static void test_zones_end_on_return_break_and_exceptions(void **)
{
    uint64_t x = 1;
    int caught = 0;
    tsc_zones_reset();
    for (int i = 0; i < 100; i++)
        (void)step(i, x);
    for (int i = 0; i < 10; i++) {
        TSC_ZONE("broken") {
            x = spin(x, 300);
            if (i & 1)
                break;
        }
    }
    for (int i = 0; i < 5; i++) {
        try {
            thrower(x);
        } catch (const std::runtime_error &) {
            caught++;
        }
    }
    TSC_KEEP(x);
    double sum = 0;
    assert_int_equal(caught, 5);
    assert_int_equal(zone("step", &sum).calls, 100);
    assert_int_equal(zone("inner").calls, 99);
    assert_int_equal(zone("broken").calls, 10);
    assert_int_equal(zone("throws").calls, 5);
    assert_int_equal(zone("(not recorded)").calls, -1); // no such row
    EXPECT(sum > 100 - 0.0005 * 4 - 1e-9 && sum < 100 + 0.0005 * 4 + 1e-9,
           "self shares add up to 100 %%, got %.4f", sum);
}

// measure_scope records one sample however its scope ends.
static void test_a_measure_scope_records_on_every_way_out(void **)
{
    struct tsc_stats s;
    tsc_stats_init(&s);
    for (int i = 0; i < 3; i++) {
        tsc::measure_scope m(&s);
        if (i == 1)
            continue;
    }
    try {
        tsc::measure_scope m(&s);
        throw 1;
    } catch (int) {
    }
    assert_int_equal(tsc_stats_count(&s), 4);
}

// Two stamps 10 ms apart, taken in two threads, are 10 ms apart by their
// own difference (>= the sleep, and no more than the bracket around it).
static void test_stamps_subtract_to_nanoseconds_across_threads(void **)
{
    tsc::stamp a{}, b{};
    uint64_t t0 = tsc_now_ns();
    std::thread([&] { a = tsc::stamp::now(); }).join();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::thread([&] { b = tsc::stamp::now(); }).join();
    uint64_t t1 = tsc_now_ns();
    int64_t d = b - a;
    EXPECT(d >= 10000000 && static_cast<uint64_t>(d) <= t1 - t0,
           "b - a = %lld ns, within [10 ms, %llu ns]", static_cast<long long>(d),
           static_cast<unsigned long long>(t1 - t0));
    EXPECT(a - b == -d, "a - b = -(b - a)");
    EXPECT(a < b && !(b < a), "a is the earlier stamp");
    EXPECT(a.ns() >= t0 && b.ns() <= t1, "stamps convert within the readings around them");
}

// tsc::clock meets the Clock requirements that duration_cast and
// sleep_until use; realtime_clock is system_clock's time_point.
static void test_the_chrono_clocks_agree_with_the_system_clocks(void **)
{
    static_assert(tsc::clock::is_steady, "tsc::clock is steady");
    static_assert(!tsc::realtime_clock::is_steady, "realtime_clock is not");
    static_assert(std::is_same<tsc::realtime_clock::time_point::clock, std::chrono::system_clock>::value,
                  "realtime time points are system_clock's");
    auto t0 = tsc::clock::now();
    std::this_thread::sleep_until(t0 + std::chrono::milliseconds(5));
    auto t1 = tsc::clock::now();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t1 - t0).count();
    EXPECT(ms >= 5, "sleep_until a tsc::clock time point waits until it: %lld ms",
           static_cast<long long>(ms));
    auto s0 = std::chrono::system_clock::now();
    auto r = tsc::realtime_clock::now();
    auto s1 = std::chrono::system_clock::now();
    // within the bracket of two system_clock reads, and 1 ms either side
    // (system_clock's own resolution is coarser on some platforms)
    EXPECT(r >= s0 - std::chrono::milliseconds(1) && r <= s1 + std::chrono::milliseconds(1),
           "realtime_clock::now() lies between two system_clock reads");
    std::time_t tt = std::chrono::system_clock::to_time_t(
        std::chrono::time_point_cast<std::chrono::system_clock::duration>(r));
    EXPECT(tt > 1600000000, "a realtime time point converts to time_t: %lld", static_cast<long long>(tt));
    tsc::stamp st = tsc::stamp::now();
    EXPECT(tsc::clock::from_stamp(st) <= tsc::clock::now(), "a stamp is a time point of tsc::clock");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zones_end_on_return_break_and_exceptions),
        cmocka_unit_test(test_a_measure_scope_records_on_every_way_out),
        cmocka_unit_test(test_stamps_subtract_to_nanoseconds_across_threads),
        cmocka_unit_test(test_the_chrono_clocks_agree_with_the_system_clocks),
    };
    tsc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
