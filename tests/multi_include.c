/* SPDX-License-Identifier: MIT */
/* A program of four units (three C, one C++), each including the header
 * twice, with the configuration macros CMake gives each unit (see
 * CMakeLists.txt): one state, one counter, one frequency. */
#include "tsc_test.h"
#include "tsc_timer.h"
#include "multi_include.h"

#include <string.h>

static void test_every_unit_shares_one_state(void **state)
{
    (void)state;
    EXPECT(mi_a_state() == (const void *)&tsc__g, "unit a has its own state");
    EXPECT(mi_b_state() == (const void *)&tsc__g, "unit b has its own state");
    EXPECT(mi_cpp_state() == (const void *)&tsc__g, "the C++ unit has its own state");
}

static void test_every_unit_reads_one_counter_in_order(void **state)
{
    uint64_t t[5];
    int i;
    (void)state;
    t[0] = tsc_ticks_before();
    t[1] = mi_a_before();
    t[2] = mi_b_after();
    t[3] = mi_cpp_after();
    t[4] = tsc_ticks_after();
    for (i = 1; i < 5; i++)
        EXPECT(t[i] >= t[i - 1], "read %d (%llu) precedes read %d (%llu)", i,
               (unsigned long long)t[i], i - 1, (unsigned long long)t[i - 1]);
    EXPECT(strcmp(mi_a_counter(), tsc_counter_name()) == 0 &&
               strcmp(mi_b_counter(), tsc_counter_name()) == 0 &&
               strcmp(mi_cpp_counter(), tsc_counter_name()) == 0,
           "units name different counters: '%s', '%s', '%s', '%s'", mi_a_counter(),
           mi_b_counter(), mi_cpp_counter(), tsc_counter_name());
    print_message("      counter: %s\n", tsc_counter_name());
#if defined(TSC_TIMER_FORCE_FALLBACK)
    EXPECT(strstr(tsc_counter_name(), "TSC_TIMER_FORCE_FALLBACK") != NULL,
           "forced fallback program reads '%s'", tsc_counter_name());
#elif defined(TSC_TIMER_NO_RDTSCP)
    EXPECT(tsc_features().uses_rdtscp == 0, "TSC_TIMER_NO_RDTSCP program executes RDTSCP");
#endif
}

static void test_every_unit_sees_one_frequency(void **state)
{
    double hz;
    (void)state;
    hz = mi_b_hz(); /* a unit other than main calibrates first */
    EXPECT(hz > 0 && mi_a_hz() == hz && mi_cpp_hz() == hz && tsc_ticks_per_second() == hz,
           "units see %.3f / %.3f / %.3f / %.3f Hz", mi_a_hz(), hz, mi_cpp_hz(),
           tsc_ticks_per_second());
    EXPECT(TSC__SEQ_COUNT(tsc__g.fseq) == 1, "%u calibrations for four units", TSC__SEQ_COUNT(tsc__g.fseq));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_unit_shares_one_state),
        cmocka_unit_test(test_every_unit_reads_one_counter_in_order),
        cmocka_unit_test(test_every_unit_sees_one_frequency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
