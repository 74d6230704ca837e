# SPDX-License-Identifier: MIT
# Shared part of the cross toolchain files in this folder. The including file
# sets TSC_TRIPLE (the Debian cross compiler prefix) and TSC_EMULATOR (how to
# run a target binary here; empty where it runs natively).
#
# TSC_CROSS_PREFIX is where ci/build-cmocka.sh installed a static cmocka for
# the triple (default: build-ci/sysroot/<triple> in the source tree). Tests
# link -static, so qemu-user and wine need no target libraries.
set(CMAKE_C_COMPILER /usr/bin/${TSC_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER /usr/bin/${TSC_TRIPLE}-g++)
if(NOT DEFINED TSC_CROSS_PREFIX)
  get_filename_component(TSC_CROSS_PREFIX
    "${CMAKE_CURRENT_LIST_DIR}/../../build-ci/sysroot/${TSC_TRIPLE}" ABSOLUTE)
endif()
# try_compile() projects read the toolchain again: hand them the prefix.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TSC_CROSS_PREFIX)

set(CMAKE_FIND_ROOT_PATH "${TSC_CROSS_PREFIX}" /usr/${TSC_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
if(TSC_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TSC_EMULATOR})
endif()
# The host's pkg-config would offer x86-64 libraries (libcpuid, cmocka):
# let it see only the prefix.
set(ENV{PKG_CONFIG_LIBDIR} "${TSC_CROSS_PREFIX}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
