# SPDX-License-Identifier: MIT
# i386: Debian's i686-linux-gnu cross compiler; 32-bit x86 binaries run
# natively on an x86-64 kernel with IA-32 emulation, else (some VMs' kernels
# lack it: ci/cross.sh checks) under qemu-i386-static, given as
# -DTSC_I386_EMULATOR.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(TSC_TRIPLE i686-linux-gnu)
set(TSC_EMULATOR ${TSC_I386_EMULATOR})
set(CMAKE_C_FLAGS_INIT "-m32")   # the compiler default, stated
set(CMAKE_CXX_FLAGS_INIT "-m32")
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
