# SPDX-License-Identifier: MIT
# ppc32: Debian's powerpc-linux-gnu cross compiler (32-bit big-endian
# PowerPC); tests run under qemu-user (static, so no -L sysroot needed).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR powerpc)
set(TSC_TRIPLE powerpc-linux-gnu)
set(TSC_EMULATOR /usr/bin/qemu-ppc-static)
# The tests' 64-bit __atomic builtins (test_core publishes a 64-bit tick
# count between threads) are library calls on PPC32: libatomic.
set(CMAKE_C_STANDARD_LIBRARIES_INIT "-latomic")
set(CMAKE_CXX_STANDARD_LIBRARIES_INIT "-latomic")
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
