# SPDX-License-Identifier: MIT
# msvc-x86_64: the header's MSVC code path, compiled by clang in MSVC mode
# (--target=x86_64-pc-windows-msvc: _MSC_VER, no __GNUC__) against
# mingw-w64's headers (ci/msvc.sh patches two of them), through the compiler
# launcher ci/msvc-cc.sh. CMake itself sees Debian's mingw-w64 gcc, which
# links the objects with the static cmocka ci/build-cmocka.sh built for
# windows-x86_64; tests run under Wine.
# TSC_MSVC_MODE: clang (default) or pure (-U__clang__ -U__SIZEOF_INT128__).
include(${CMAKE_CURRENT_LIST_DIR}/windows-x86_64.cmake)
if(NOT TSC_MSVC_MODE)
  set(TSC_MSVC_MODE clang)
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TSC_MSVC_MODE)
set(CMAKE_C_COMPILER_LAUNCHER sh ${CMAKE_CURRENT_LIST_DIR}/../msvc-cc.sh ${TSC_MSVC_MODE})
set(CMAKE_CXX_COMPILER_LAUNCHER sh ${CMAKE_CURRENT_LIST_DIR}/../msvc-cc.sh ${TSC_MSVC_MODE})
# clang's MSVC-mode code probes large stack frames with MSVC's __chkstk;
# libgcc's ___chkstk_ms has its convention (size in RAX, RSP unchanged).
string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -Wl,--defsym,__chkstk=___chkstk_ms")
