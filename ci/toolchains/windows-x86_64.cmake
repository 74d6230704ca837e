# SPDX-License-Identifier: MIT
# windows-x86_64: Debian's x86_64-w64-mingw32 cross compiler; tests run under Wine.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(TSC_TRIPLE x86_64-w64-mingw32)
set(TSC_EMULATOR /usr/bin/env;WINEDEBUG=-all;/usr/bin/wine)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
