# SPDX-License-Identifier: MIT
# i386: Debian's i686-linux-gnu cross compiler; 32-bit x86 binaries run natively on the x86-64 kernel.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(TSC_TRIPLE i686-linux-gnu)
set(TSC_EMULATOR )
set(CMAKE_C_FLAGS_INIT "-m32")   # the compiler default, stated
set(CMAKE_CXX_FLAGS_INIT "-m32")
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
