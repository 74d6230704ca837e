# SPDX-License-Identifier: MIT
# s390x: Debian's s390x-linux-gnu cross compiler; tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(TSC_TRIPLE s390x-linux-gnu)
set(TSC_EMULATOR /usr/bin/qemu-s390x-static)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
