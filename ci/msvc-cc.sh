#!/bin/sh
# SPDX-License-Identifier: MIT
# CMake compiler launcher of ci/toolchains/msvc-x86_64.cmake: compiles with
# clang in MSVC mode (_MSC_VER defined, __GNUC__ not) instead of the
# mingw-w64 gcc CMake found, which still links. Headers: mingw-w64's, with
# the two files ci/msvc.sh patched first in the path.
# Usage: ci/msvc-cc.sh MODE COMPILER ARGS...
#   MODE clang: clang as it is (__clang__, __SIZEOF_INT128__ defined)
#   MODE pure:  -U__clang__ -U__SIZEOF_INT128__, so the header takes the
#               code paths of MSVC itself (interlocked atomics, _umul128,
#               _BitScanReverse64)
set -eu
mode=$1 gcc=$2
shift 2
case $gcc in *++) cc=${TSC_MSVC_CLANGXX:-clang++} ;; *) cc=${TSC_MSVC_CLANG:-clang} ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
set -- --target=x86_64-pc-windows-msvc -fms-extensions -fms-compatibility \
    -isystem "$root/build-ci/msvc-include" -idirafter /usr/x86_64-w64-mingw32/include \
    -DUSE_NO_MINGW_SETJMP_TWO_ARGS -D__CRT__NO_INLINE "$@"
[ "$mode" = pure ] && set -- "$@" -U__clang__ -U__SIZEOF_INT128__
exec "$cc" "$@"
