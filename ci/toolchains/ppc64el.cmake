# SPDX-License-Identifier: MIT
# ppc64el: Debian's powerpc64le-linux-gnu cross compiler; tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ppc64le)
set(TSC_TRIPLE powerpc64le-linux-gnu)
set(TSC_EMULATOR /usr/bin/qemu-ppc64le-static)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
