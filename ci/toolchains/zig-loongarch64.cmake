# SPDX-License-Identifier: MIT
# loongarch64 Linux musl: zig cc; tests run under qemu-user.
# cmocka 1.1.5's cmocka.h defines uintptr_t itself unless told that
# <stdint.h> did (it guesses from __WORDSIZE, which musl has not here).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR loongarch64)
set(TSC_TRIPLE loongarch64-linux-musl)
set(TSC_EMULATOR /usr/bin/qemu-loongarch64-static)
set(CMAKE_C_FLAGS_INIT "-D_UINTPTR_T_DEFINED")
set(CMAKE_CXX_FLAGS_INIT "-D_UINTPTR_T_DEFINED")
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/zig.cmake)
