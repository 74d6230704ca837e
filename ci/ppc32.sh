#!/bin/sh
# SPDX-License-Identifier: MIT
# PPC32 Linux (big-endian, 32-bit): Debian's powerpc-linux-gnu cross gcc,
# static cmocka from Debian's source package, the whole suite under
# qemu-ppc-static. The header's TSC__PPC32 path (mftbu/mftb/mftbu loop,
# glibc's __ppc_get_timebase_freq(), measured where qemu makes it say 0).
# The toolchain links libatomic: the tests' 64-bit __atomic builtins are
# library calls there.
# Usage: ci/ppc32.sh
set -eu
cd "$(dirname "$0")/.."
scripts/setup-debian.sh gcc-powerpc-linux-gnu g++-powerpc-linux-gnu \
    libc6-dev-powerpc-cross qemu-user-static
command -v qemu-ppc-static >/dev/null ||
    { echo "ppc32: qemu-ppc-static missing (package qemu-user-static)" >&2; exit 1; }
exec ci/cross.sh ppc32
