/* SPDX-License-Identifier: MIT */
#define MI_UNIT b
#ifndef TSC_CALIBRATION_SECONDS
#define TSC_CALIBRATION_SECONDS 0.004 /* units may differ in this one */
#endif
#include "multi_include_unit.h"
