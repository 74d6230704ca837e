# SPDX-License-Identifier: MIT
# armhf: Debian's arm-linux-gnueabihf cross compiler; tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(TSC_TRIPLE arm-linux-gnueabihf)
set(TSC_EMULATOR /usr/bin/qemu-arm-static)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
