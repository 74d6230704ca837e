# SPDX-License-Identifier: MIT
# Shared part of the zig toolchain files (zig-*.cmake), included after
# common.cmake: the compilers are zig cc / zig c++ for TSC_TRIPLE, through
# the wrappers ci/zig.sh writes to build-ci/zig/bin (zig-cc, zig-c++,
# zig-ar, zig-ranlib: they set ZIG_GLOBAL_CACHE_DIR). zig links musl
# statically; cmocka comes from ci/build-cmocka.sh as for the Debian cross
# compilers.
get_filename_component(TSC_ZIG_BIN "${CMAKE_CURRENT_LIST_DIR}/../../build-ci/zig/bin" ABSOLUTE)
if(NOT EXISTS "${TSC_ZIG_BIN}/zig-cc")
  message(FATAL_ERROR "${TSC_ZIG_BIN}/zig-cc missing: run ci/zig.sh install")
endif()
set(CMAKE_C_COMPILER ${TSC_ZIG_BIN}/zig-cc)
set(CMAKE_CXX_COMPILER ${TSC_ZIG_BIN}/zig-c++)
# --target=: also makes CMake identify the compiler by compiling alone (-c),
# not linking, which would make zig build a musl of its own for that.
set(CMAKE_C_COMPILER_TARGET ${TSC_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${TSC_TRIPLE})
# zig builds musl and compiler-rt once per target and optimization mode
# (~40 s each; -O1..-O3 are one mode, no -O another): -O2 first on every
# compile, CMake's own checks too. (The zig-c++ wrapper links without
# libc++, which zig would build for ~65 s a target: the C++ test units use
# nothing of the C++ library.)
string(APPEND CMAKE_C_FLAGS_INIT " -O2")
string(APPEND CMAKE_CXX_FLAGS_INIT " -O2")
set(CMAKE_AR ${TSC_ZIG_BIN}/zig-ar CACHE FILEPATH "zig ar")
set(CMAKE_RANLIB ${TSC_ZIG_BIN}/zig-ranlib CACHE FILEPATH "zig ranlib")
# This machine's nm knows no riscv32 or LoongArch objects; LLVM's does
# (tests/nm_check.sh). Without one, that check is not built.
find_program(CMAKE_NM NAMES llvm-nm-16 llvm-nm-14 llvm-nm)
