# SPDX-License-Identifier: MIT
# aarch64: Debian's aarch64-linux-gnu cross compiler; tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TSC_TRIPLE aarch64-linux-gnu)
set(TSC_EMULATOR /usr/bin/qemu-aarch64-static)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
