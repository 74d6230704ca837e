#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes sure the programs and libraries the build and tests need are there,
# and installs the Debian packages of those missing. Each package is checked
# by what it provides (a program on PATH, a pkg-config module or a header),
# not with dpkg, so a machine that has them some other way needs no apt-get.
# Silent when nothing is missing. Missing and no apt-get: says what, exits 1.
# Usage: scripts/setup-debian.sh [extra-package ...]
#        scripts/setup-debian.sh --only package ...   (those alone)
set -eu
if [ "${1:-}" = --only ]; then
    shift; pkgs="$*"
else
    pkgs="gcc g++ make cmake pkg-config libcmocka-dev libcpuid-dev clang python3 $*"
fi

have_cmd() { command -v "$1" >/dev/null 2>&1; }

# have_lib MODULE [HEADER LANG]: the pkg-config module exists or, where the
# build also finds the library without pkg-config, the header preprocesses.
have_lib() {
    if have_cmd pkg-config && pkg-config --exists "$1"; then
        return 0
    fi
    [ -n "${2:-}" ] || return 1
    if [ "$3" = c++ ]; then cc=${CXX:-c++}; else cc=${CC:-cc}; fi
    printf '#include <%s>\n' "$2" | $cc -E -x "$3" - >/dev/null 2>&1
}

# have_cross_libc TRIPLE: the cross compiler finds its C library headers.
have_cross_libc() {
    printf '#include <stdio.h>\n' | "$1-gcc" -E -x c - >/dev/null 2>&1
}

# check PACKAGE: 0 when what the package provides is there. Sets `what` to
# what was looked for.
check() {
    case $1 in
    libcmocka-dev) what="cmocka.h (pkg-config cmocka)"; have_lib cmocka cmocka.h c ;;
    libcpuid-dev) what="pkg-config module libcpuid"; have_lib libcpuid ;;
    libhwy-dev) what="pkg-config module libhwy"; have_lib libhwy ;;
    libbenchmark-dev)
        what="benchmark/benchmark.h (pkg-config benchmark)"
        have_lib benchmark benchmark/benchmark.h c++ ;;
    dpkg-dev) what="program dpkg-source"; have_cmd dpkg-source ;;
    ninja-build) what="program ninja"; have_cmd ninja ;;
    golang-1.19-src) # for its copy of the Catapult trace viewer (tests/trace_viewer.py)
        what="/usr/share/go-1.19/src/cmd/trace/static/trace_viewer_full.html"
        [ -f "$what" ] ;;
    qemu-user-static)
        what="programs qemu-{aarch64,arm,riscv64,ppc64le,s390x}-static"
        for q in aarch64 arm riscv64 ppc64le s390x; do
            have_cmd "qemu-$q-static" || return 1
        done ;;
    qemu-system-x86) what="program qemu-system-x86_64"; have_cmd qemu-system-x86_64 ;;
    seabios) what="/usr/share/seabios/bios-256k.bin"; [ -f "$what" ] ;;
    busybox-static) what="/bin/busybox, static"; [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 ;;
    linux-source-6.1) what="/usr/src/linux-source-6.1.tar.xz"; [ -f "$what" ] ;;
    wine64)
        what="program wine64 or /usr/lib/wine/wine64"
        have_cmd wine64 || [ -x /usr/lib/wine/wine64 ] ;;
    gcc-mingw-w64-x86-64-*) what="program x86_64-w64-mingw32-gcc"; have_cmd x86_64-w64-mingw32-gcc ;;
    g++-mingw-w64-x86-64-*) what="program x86_64-w64-mingw32-g++"; have_cmd x86_64-w64-mingw32-g++ ;;
    gcc-*-linux-gnu*) what="program ${1#gcc-}-gcc"; have_cmd "${1#gcc-}-gcc" ;;
    g++-*-linux-gnu*) what="program ${1#g++-}-g++"; have_cmd "${1#g++-}-g++" ;;
    libc6-dev-*-cross)
        case $1 in
        *-arm64-*) t=aarch64-linux-gnu ;;
        *-armhf-*) t=arm-linux-gnueabihf ;;
        *-ppc64el-*) t=powerpc64le-linux-gnu ;;
        *-i386-*) t=i686-linux-gnu ;;
        *) t=${1#libc6-dev-}; t=${t%-cross}-linux-gnu ;;
        esac
        what="<stdio.h> for $t-gcc"
        have_cross_libc "$t" ;;
    lib*)
        # No known check: ask dpkg where there is one.
        what="package $1"
        have_cmd dpkg-query &&
            dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" ;;
    *) what="program $1"; have_cmd "$1" ;; # gcc, g++, make, cmake, clang, ...
    esac
}

missing=""
missing_what=""
for p in $pkgs; do
    if ! check "$p"; then
        missing="$missing $p"
        missing_what="$missing_what
  $p: $what"
    fi
done
[ -z "$missing" ] && exit 0

if ! have_cmd apt-get; then
    echo "setup-debian: missing, and no apt-get to install it:$missing_what" >&2
    echo "setup-debian: install these (or their equivalents) and run again" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    have_cmd sudo || { echo "setup-debian: not root and no sudo; missing:$missing_what" >&2; exit 1; }
    sudo="sudo"
fi
echo "setup-debian: installing$missing"
# Fetches retry what a later try can change (ci/retry.sh). An index that
# still fails (a mirror in mid-sync) is a warning: the install below fails,
# naming the package, only if it needed that index.
retry="$(dirname "$0")/../ci/retry.sh"
"$retry" "apt-get update" $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq ||
    echo "setup-debian: warning: apt-get update failed (above); installing from the indexes there are" >&2
DEBIAN_FRONTEND=noninteractive "$retry" "apt-get install$missing" \
    $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null

# What apt installed must now be found, or the next run would install it again.
still=""
for p in $missing; do
    check "$p" || still="$still
  $p: $what"
done
if [ -n "$still" ]; then
    echo "setup-debian: installed, but still not found:$still" >&2
    exit 1
fi
