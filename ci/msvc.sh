#!/bin/sh
# SPDX-License-Identifier: MIT
# The header's MSVC code paths, without MSVC: clang in MSVC mode
# (--target=*-pc-windows-msvc -fms-extensions -fms-compatibility defines
# _MSC_VER, not __GNUC__) against Debian's mingw-w64 headers, four of them
# patched into build-ci/msvc-include/ (below). Objects link with mingw-w64
# gcc against the static cmocka ci/build-cmocka.sh builds for
# windows-x86_64; the suite runs under Wine.
#   clang: clang as it is: TSC__X86_MSVC (intrinsics __rdtsc, __rdtscp,
#          _mm_lfence, __cpuid), selectany state, QPC; GNU atomics and
#          unsigned __int128 (clang has them).
#   pure:  the same with -U__clang__ -U__SIZEOF_INT128__: what MSVC itself
#          compiles (interlocked atomics, _umul128, _BitScanReverse64,
#          __declspec(noinline), TSC_KEEP through a volatile pointer).
#   check: compile-only, tests/compile_test.c as C99, C17 and C++20 with
#          -Wall -Wextra -Wpedantic -Werror, both modes, for x86-64 and
#          ARM64 (aarch64-pc-windows-msvc: the QPC path); each as one file,
#          as a many-files file and as the implementation's file.
# Usage: ci/msvc.sh [clang|pure|check]...   (default: all three)
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- clang pure check
root=$(pwd)
mingw=/usr/x86_64-w64-mingw32/include
inc=build-ci/msvc-include
for p in clang clang++ x86_64-w64-mingw32-gcc x86_64-w64-mingw32-g++ wine wineserver; do
    command -v $p >/dev/null || { echo "msvc: $p missing" >&2; exit 1; }
done

# mingw-w64's headers in MSVC mode: (1) _mingw.h defines __attribute__(x)
# away when __GNUC__ is not defined, which would hide clang's own
# attributes; (2) _mingw_mac.h's __MINGW_MSC_PREREQ turns on MSVC-only
# declarations mingw-w64 does not implement; (3) math.h: NAN, INFINITY and
# HUGE_VAL* read libmingwex/msvcrt data objects when __GNUC__ is undefined
# (NAN as `extern const double __QNANF`, a float there: not a NaN), and
# long double is double under MSVC while mingw-w64's *l functions take x87
# long doubles: as MSVC's math.h, compiler constants and the double
# functions.
mkdir -p $inc
sed '/^# define __attribute__(x)/d' $mingw/_mingw.h >$inc/_mingw.h
sed 's/^#if defined (_MSC_VER)$/#if 0 \/* ci\/msvc.sh *\//' $mingw/_mingw_mac.h >$inc/_mingw_mac.h
# (4) vadefs.h: no MSVC ARM64 branch; clang's builtins serve there.
sed '0,/^#if defined (__GNUC__)$/! s/^#if defined (__GNUC__)$/#if defined (__GNUC__) || defined (_M_ARM64) \/* ci\/msvc.sh *\//' \
    $mingw/vadefs.h >$inc/vadefs.h
if grep -q '^# define __attribute__(x)' $inc/_mingw.h ||
   ! grep -q '^#if 0 /\* ci/msvc.sh' $inc/_mingw_mac.h ||
   ! grep -q '_M_ARM64) /\* ci/msvc.sh' $inc/vadefs.h; then
    echo "msvc: these mingw-w64 headers differ from the ones ci/msvc.sh patches" >&2; exit 1
fi
cat >$inc/math.h <<'MATH'
/* ci/msvc.sh: mingw-w64's math.h as MSVC's math.h behaves. */
#ifndef TSC_CI_MSVC_MATH_H
#define TSC_CI_MSVC_MATH_H
#include_next <math.h>
#undef NAN
#undef INFINITY
#undef HUGE_VAL
#undef HUGE_VALF
#undef HUGE_VALL
#define NAN __builtin_nanf("")
#define INFINITY __builtin_inff()
#define HUGE_VAL __builtin_huge_val()
#define HUGE_VALF __builtin_huge_valf()
#define HUGE_VALL __builtin_huge_vall()
#define sqrtl(x) ((long double)sqrt((double)(x)))
#define fabsl(x) ((long double)fabs((double)(x)))
#define floorl(x) ((long double)floor((double)(x)))
#define ceill(x) ((long double)ceil((double)(x)))
#define expl(x) ((long double)exp((double)(x)))
#define logl(x) ((long double)log((double)(x)))
#define powl(x, y) ((long double)pow((double)(x), (double)(y)))
#endif
MATH
msvc="-fms-extensions -fms-compatibility -isystem $root/$inc -idirafter $mingw \
      -DUSE_NO_MINGW_SETJMP_TWO_ARGS -D__CRT__NO_INLINE"
pure="-U__clang__ -U__SIZEOF_INT128__"

export WINEPREFIX="${WINEPREFIX:-$root/build-ci/wine}" WINEDEBUG="${WINEDEBUG:--all}"
fail=0
for what in "$@"; do
    case $what in
    clang|pure)
        ci/build-cmocka.sh windows-x86_64
        b=build-ci/msvc-$what
        cmake -S . -B "$b" -DCMAKE_TOOLCHAIN_FILE="$root/ci/toolchains/msvc-x86_64.cmake" \
              -DTSC_MSVC_MODE="$what" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSC_TIMER_WERROR=ON \
              -DTSC_TIMER_BUILD_EXAMPLES=OFF -DTSC_TIMER_BUILD_TOOLS=OFF \
              -DTSC_TIMER_BUILD_BENCH=OFF >"$b.configure.log" 2>&1 ||
            { cat "$b.configure.log"; exit 1; }
        cmake --build "$b" -j2
        # Wine's server and services, started here and kept (-p) for the
        # run, away from ctest's pipes: ones that a test's wine starts
        # inherit its output and linger 3 s after it, which ctest waits out
        # for every test; kept ones holding a test's pipe would hang ctest.
        trap 'wineserver -k 2>/dev/null || true' EXIT
        mkdir -p "$WINEPREFIX" # (wineserver needs it; wine makes the rest)
        wineserver -p </dev/null >/dev/null 2>&1
        wine cmd /c exit </dev/null >/dev/null 2>&1
        # multi_include_symbols: MSVC's ABI makes string literals and FP
        # constants external COMDATs (??_C@..., __real@..., __xmm@...),
        # which tests/nm_check.sh does not know yet.
        TSC_TEST_EMULATED=1 ctest --test-dir "$b" --output-on-failure -V -E '^multi_include_symbols$' ||
            { fail=1; ci/failed-tests.sh "$b"; }
        wineserver -k 2>/dev/null || true
        trap - EXIT
        ;;
    check)
        # x86-64 and ARM64 side by side (two cores), then their reports.
        for t in x86_64 aarch64; do
            (f=0
             for m in clang pure; do
                 u=""; [ $m = pure ] && u=$pure
                 for l in "clang -x c -std=c99" "clang -x c -std=c17" "clang++ -x c++ -std=c++20"; do
                     for d in "" -DTSC_TIMER_EXTERN -DTSC_TIMER_IMPLEMENTATION; do
                         # shellcheck disable=SC2086
                         if $l --target=$t-pc-windows-msvc $msvc $u $d -O2 -Wall -Wextra -Wpedantic \
                                 -Werror -Iinclude -c tests/compile_test.c -o /dev/null 2>&1; then
                             echo "ok: $l --target=$t-pc-windows-msvc ($m) $d"
                         else
                             echo "FAIL: $l --target=$t-pc-windows-msvc ($m) $d"; f=1
                         fi
                     done
                 done
             done
             exit $f) >build-ci/msvc-check-$t.log 2>&1 &
        done
        wait
        for t in x86_64 aarch64; do
            cat build-ci/msvc-check-$t.log
            ! grep -q '^FAIL' build-ci/msvc-check-$t.log || fail=1
        done ;;
    *) echo "usage: ci/msvc.sh [clang|pure|check]..." >&2; exit 2 ;;
    esac
done
exit $fail
