/* SPDX-License-Identifier: MIT */
/* A program of three units (two C, one C++), each including the header
 * alone: one state, one calibration, one conversion factor. */
#include "tsc_test.h"
#include "two_units.h"

#include <string.h>

static void test_units_share_one_state(void **state)
{
    (void)state;
    EXPECT(unit_b_state() == (const void *)&tsc__g, "unit B has its own state");
    EXPECT(unit_cpp_state() == (const void *)&tsc__g, "the C++ unit has its own state");
}

static void test_units_calibrate_once_and_convert_alike(void **state)
{
    double hz_b;
    uint64_t t = UINT64_C(123456789012);
    (void)state;
    hz_b = unit_b_hz(); /* unit B calibrates first */
    EXPECT(tsc_ticks_per_second() == hz_b && unit_cpp_hz() == hz_b,
           "units see %.3f / %.3f / %.3f Hz", tsc_ticks_per_second(), hz_b, unit_cpp_hz());
    EXPECT(TSC__SEQ_COUNT(tsc__g.fseq) == 1, "%u calibrations for three units", TSC__SEQ_COUNT(tsc__g.fseq));
    EXPECT(unit_b_to_ns(t) == tsc_ticks_to_ns(t) && unit_cpp_to_ns(t) == tsc_ticks_to_ns(t),
           "units convert differently");
}

static void test_recalibration_in_one_unit_reaches_the_others(void **state)
{
    struct tsc_calibration c;
    (void)state;
    memset(&c, 0, sizeof c);
    EXPECT(tsc_calibrate(0.002, &c) == 0, "calibrate failed");
    EXPECT(unit_b_hz() == c.ticks_per_second && unit_cpp_hz() == c.ticks_per_second,
           "other units kept the old frequency");
    EXPECT(unit_b_before() <= tsc_ticks_after(), "units read different counters");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_share_one_state),
        cmocka_unit_test(test_units_calibrate_once_and_convert_alike),
        cmocka_unit_test(test_recalibration_in_one_unit_reaches_the_others),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
