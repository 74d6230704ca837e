# SPDX-License-Identifier: MIT
# riscv32 (RV32GC, ilp32d) Linux musl: zig cc; tests run under qemu-user.
# musl's rv32 ABI has 64-bit time_t only.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(TSC_TRIPLE riscv32-linux-musl)
set(TSC_EMULATOR /usr/bin/qemu-riscv32-static)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/zig.cmake)
