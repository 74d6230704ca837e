# SPDX-License-Identifier: MIT
# Robustness tests, included at the end of tests/CMakeLists.txt (uses its
# tsc_test()). Each runs its first uses in fresh child processes under a
# watchdog (watchdog.h), so they need fork(): POSIX only.

# The latch: reader threads against a writer; no fork, so Windows too.
tsc_test(test_latch SOURCES test_latch.c IMPL_INSIDE)

if(WIN32 OR NOT UNIX)
  message(STATUS "robustness tests need fork(): not built")
  return()
endif()

# Re-entry, fork, siglongjmp, blocked writers, CPUID-presented CPUs,
# per-thread RDTSC permission, stats merging.
tsc_test(test_robust SOURCES test_robust.c IMPL_INSIDE)

# One writer at a time: a resync stopped past the claim's takeover, and
# claims and copies abandoned by threads that died (fresh children).
tsc_test(test_writer SOURCES test_writer.c IMPL_INSIDE)

# No owned claim without an age: owners stopped, or jumped out, between any
# two steps of taking or giving back a claim (fresh children).
tsc_test(test_claims SOURCES test_claims.c IMPL_INSIDE)

# The trust verdict for simulated CPUs and kernels (fresh children).
tsc_test(test_trust SOURCES test_trust.c IMPL_INSIDE)

# Bad input rejected under -ffast-math, in this unit only.
tsc_test(test_fast_math SOURCES test_fast_math.c)
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(test_fast_math PRIVATE -ffast-math)
endif()

# A clock_gettime() of the program's own, built on tsc_now_ns(): it must
# replace libc's, so the program is linked dynamically, and only natively
# on Linux (the cross builds link -static).
if(NOT CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  tsc_test(test_interpose SOURCES test_interpose.c)
else()
  message(STATUS "test_interpose: native Linux only, not built")
endif()

# Two versions of the header in one program: "the next version" is a copy
# of include/tsc_timer.h with minor version 99 and a state struct that
# starts with a new field, generated here at configure time into an include
# directory of its own. One static library includes it, another the real
# header; both export the same wrappers under their own prefixes.
set(TSC_NEXT_DIR ${CMAKE_CURRENT_BINARY_DIR}/next_version)
set(TSC_REAL_HEADER ${PROJECT_SOURCE_DIR}/include/tsc_timer.h)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${TSC_REAL_HEADER})
file(READ ${TSC_REAL_HEADER} tsc_header)
if(NOT tsc_header MATCHES "#define TSC_TIMER_VERSION_MINOR [0-9]+")
  message(FATAL_ERROR "robust.cmake: no '#define TSC_TIMER_VERSION_MINOR <n>' in ${TSC_REAL_HEADER}")
endif()
string(FIND "${tsc_header}" "struct tsc__state {" tsc_at)
if(tsc_at EQUAL -1)
  message(FATAL_ERROR "robust.cmake: no 'struct tsc__state {' in ${TSC_REAL_HEADER}")
endif()
string(REGEX REPLACE "#define TSC_TIMER_VERSION_MINOR [0-9]+" "#define TSC_TIMER_VERSION_MINOR 99"
  tsc_header "${tsc_header}")
string(REPLACE "struct tsc__state {"
  "struct tsc__state {\n    uint64_t next_version_field[7]; /* the next version's new field */"
  tsc_header "${tsc_header}")
file(WRITE ${TSC_NEXT_DIR}/tsc_timer.h "${tsc_header}")

foreach(v this next)
  add_library(two_versions_${v} STATIC two_versions_unit.c)
  target_compile_definitions(two_versions_${v} PRIVATE TWO_VERSIONS_PREFIX=${v})
  target_compile_options(two_versions_${v} PRIVATE ${TSC_TIMER_WARNINGS})
  if(UNIX AND NOT APPLE)
    target_link_libraries(two_versions_${v} PRIVATE m)
  endif()
endforeach()
target_link_libraries(two_versions_this PRIVATE tsc_timer::tsc_timer)
target_include_directories(two_versions_next PRIVATE ${TSC_NEXT_DIR})
tsc_test(test_two_versions SOURCES test_two_versions.c LIBS two_versions_this two_versions_next NO_MF)
