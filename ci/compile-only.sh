#!/bin/sh
# SPDX-License-Identifier: MIT
# Compile-only checks with clang's cross targets (C99 and C++11, strict
# warnings) against the Debian cross compilers' libc headers: a second
# compiler for every Linux target the suite also runs under gcc.
# Not checked, for want of a compiler or SDK in Debian 12: LoongArch (clang
# 14 has no LoongArch backend, Debian 12 no loongarch64 cross gcc), Apple
# (no macOS SDK), MSVC (no MSVC; clang's MSVC mode cannot use the mingw-w64
# headers).
set -u
cd "$(dirname "$0")/.."
fail=0
for t in aarch64-linux-gnu arm-linux-gnueabihf riscv64-linux-gnu powerpc64le-linux-gnu \
         s390x-linux-gnu i686-linux-gnu; do
    for l in "clang -x c -std=c99" "clang++ -x c++ -std=c++11"; do
        if $l --target=$t -O2 -Wall -Wextra -Wpedantic -Werror -Iinclude \
                -c tests/compile_test.c -o /dev/null; then
            echo "ok: $l --target=$t"
        else
            echo "FAIL: $l --target=$t"; fail=1
        fi
    done
done
exit $fail
