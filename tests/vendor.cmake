# SPDX-License-Identifier: MIT
# Vendor-ready checks (tests/vendor/): what a project that copies the header
# into its tree, with its own strict flags and toolchains, needs from it.
# Included at the end of tests/CMakeLists.txt. Each is a shell script that
# finds its compilers by name and skips, saying so, one that is absent; the
# programs are built at test time, so a header that fails them fails the
# test, not the build. Not when cross-compiling: they run compilers and
# programs of this machine.
if(CMAKE_CROSSCOMPILING)
  return()
endif()
set(TSC_VENDOR_DIR ${CMAKE_CURRENT_LIST_DIR}/vendor)
set(TSC_VENDOR_INC ${PROJECT_SOURCE_DIR}/include)

# A: whole_api.c, every public name, without a single diagnostic under
# -std=c90..c17 / c++11..c++20 with strict warnings, and clang -Weverything;
# -O0 and -O2; linked (C without -lm) and run.
add_test(NAME vendor_strict_flags
  COMMAND sh ${TSC_VENDOR_DIR}/strict_flags.sh ${TSC_VENDOR_INC}
          ${CMAKE_C_COMPILER} gcc clang ${CMAKE_CXX_COMPILER} g++ clang++)

# C: the same program links and runs without -lm (also under -fno-builtin)
# and takes no symbol of libm.
if(UNIX)
  add_test(NAME vendor_no_libm
    COMMAND sh ${TSC_VENDOR_DIR}/no_libm.sh ${TSC_VENDOR_INC} ${CMAKE_C_COMPILER} gcc clang)
endif()

# B: including the header defines no SYS_*, __NR_*, PR_*, bit_*, __cpuid*.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_test(NAME vendor_macro_hygiene
    COMMAND sh ${TSC_VENDOR_DIR}/macro_hygiene.sh ${TSC_VENDOR_INC} gcc g++)
endif()

# D: a Windows user's names (min, max, near, far, ERROR, BOOL, ...) survive
# the header: mingw-w64 gcc, and clang --target where it finds the headers.
add_test(NAME vendor_windows_names
  COMMAND sh ${TSC_VENDOR_DIR}/windows_names.sh ${TSC_VENDOR_INC} x86_64-w64-mingw32-gcc clang)

# E: after tsc_init(), no hot function's first call costs more than
# max(20 x its steady cost, steady + 2 us). Timing: run alone.
if(UNIX)
  add_test(NAME vendor_first_call_cost
    COMMAND sh ${TSC_VENDOR_DIR}/first_call.sh ${TSC_VENDOR_INC} ${CMAKE_C_COMPILER})
  set_tests_properties(vendor_first_call_cost PROPERTIES RUN_SERIAL TRUE)
endif()

# F: compilers it is not written for (tcc, pcc) build and run a user's file,
# or stop at once at the header's #error that names those it supports.
add_test(NAME vendor_unknown_compilers
  COMMAND sh ${TSC_VENDOR_DIR}/unknown_compilers.sh ${TSC_VENDOR_INC} tcc pcc)

foreach(t vendor_strict_flags vendor_no_libm vendor_macro_hygiene vendor_windows_names
          vendor_first_call_cost vendor_unknown_compilers)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS vendor)
  endif()
endforeach()
