# SPDX-License-Identifier: MIT
# riscv64: Debian's riscv64-linux-gnu cross compiler; tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(TSC_TRIPLE riscv64-linux-gnu)
set(TSC_EMULATOR /usr/bin/qemu-riscv64-static)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
