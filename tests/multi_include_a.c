/* SPDX-License-Identifier: MIT */
#define MI_UNIT a
#include "multi_include_unit.h"
