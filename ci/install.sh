#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what .ci/run needs on Debian 12, only what is missing: the cross
# compilers (with their libc, which apt only recommends), qemu-user and
# qemu-system-arm (with cpio, for ci/armv7-system.sh), qemu-system-x86,
# seabios, busybox-static and linux-source-6.1 (for ci/guest-x86.sh), Wine, valgrind,
# clang-16 (LoongArch, for ci/compile-only-zig.sh), clang-19 (the newest
# clang Debian has: a build stage), tcc and pcc (tests/vendor/unknown_compilers.sh),
# meson and ninja (tests/meson_test.sh), Node.js and npm (zig
# comes from the npm registry: ci/zig.sh install, run last), headless
# Chromium and the Catapult trace viewer of golang-1.19-src (for
# tests/trace_viewer.py), and a deb-src line for Debian's cmocka source
# package. Without
# apt-get, scripts/setup-debian.sh checks the programs are there and names
# what is missing (ci/build-cmocka.sh then needs its cmocka source unpacked
# in build-ci/src/ beforehand).
set -eu
cd "$(dirname "$0")/.."
src=/etc/apt/sources.list.d/tsc-timer-src.sources
srcpkg=""
if command -v apt-get >/dev/null 2>&1; then
    srcpkg=dpkg-dev # 'apt-get source' unpacks with dpkg-source
    if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        # The source twin of the machine's own package entries, whatever mirror
        # they name: deb822 files get Types: deb-src, one-line lists deb-src.
        if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
            sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/*.sources >"$src"
        else
            sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list >"${src%.sources}.list"
        fi
        ci/retry.sh "apt-get update (deb-src)" apt-get -o DPkg::Lock::Timeout=600 update -qq ||
            echo "install.sh: warning: apt-get update failed (above); going on with the indexes there are" >&2
    fi
fi
cross=""
for a in aarch64-linux-gnu:arm64 arm-linux-gnueabihf:armhf riscv64-linux-gnu:riscv64 \
         powerpc64le-linux-gnu:ppc64el s390x-linux-gnu:s390x i686-linux-gnu:i386 \
         powerpc-linux-gnu:powerpc; do
    cross="$cross gcc-${a%%:*} g++-${a%%:*} libc6-dev-${a##*:}-cross"
done
scripts/setup-debian.sh $srcpkg valgrind qemu-user-static qemu-system-arm cpio wine wine64 \
    qemu-system-x86 seabios busybox-static linux-source-6.1 \
    gcc-mingw-w64-x86-64-win32 g++-mingw-w64-x86-64-win32 clang-16 clang-19 tcc pcc meson ninja-build nodejs npm \
    chromium-headless-shell golang-1.19-src $cross
exec ci/zig.sh install
