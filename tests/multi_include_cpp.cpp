// SPDX-License-Identifier: MIT
#define MI_UNIT cpp
#ifndef TSC_CALIBRATION_SECONDS
#define TSC_CALIBRATION_SECONDS 0.002 /* units may differ in this one */
#endif
#include "multi_include_unit.h"
