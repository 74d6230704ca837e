#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-builds the test suite for one target and runs it through the
# target's emulator (qemu-user, Wine) or natively (i386).
# Usage: ci/cross.sh TARGET   (name of a ci/toolchains/*.cmake)
set -eu
cd "$(dirname "$0")/.."
t=$1
ci/build-cmocka.sh "$t"
b=build-ci/$t
emu=""
if [ "$t" = i386 ]; then
    # Does this kernel run 32-bit x86 programs? (IA-32 emulation is a
    # kernel option some VMs' kernels leave out.) If not, qemu-i386 does.
    mkdir -p "$b"
    printf 'int main(void) { return 0; }\n' >"$b/ia32.c"
    i686-linux-gnu-gcc -m32 -static "$b/ia32.c" -o "$b/ia32"
    if ! "$b/ia32" 2>/dev/null; then
        echo "i386: this kernel cannot run 32-bit programs: qemu-i386-static runs them"
        emu=-DTSC_I386_EMULATOR=qemu-i386-static
        export TSC_TEST_EMULATED=1
    fi
fi
cmake -S . -B "$b" -DCMAKE_TOOLCHAIN_FILE="$(pwd)/ci/toolchains/$t.cmake" $emu \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSC_TIMER_WERROR=ON -DTSC_TIMER_BUILD_EXAMPLES=OFF \
      -DTSC_TIMER_BUILD_TOOLS=OFF -DTSC_TIMER_BUILD_BENCH=OFF >"$b.configure.log" 2>&1 ||
    { cat "$b.configure.log"; exit 1; }
cmake --build "$b" -j2
# Under qemu-user the code is translated, not run: timing comparisons
# between two loops mean nothing there (tests/test_bench.c skips them).
# Wine runs the code natively but between a program and its threads is a
# second kernel's scheduler and time: tests check behaviour there too, not
# accuracy. (i386 is emulated too where the kernel could not run it: above.)
case $t in i386) ;; *) export TSC_TEST_EMULATED=1 ;; esac
# -V: the counter and frequency source each test program reports are shown.
# A failure ends the log with the failed tests' whole output (ci/failed-tests.sh).
ctest --test-dir "$b" --output-on-failure -V || { ci/failed-tests.sh "$b"; exit 1; }
