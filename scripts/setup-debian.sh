#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages the build and tests need, only those missing.
# Usage: scripts/setup-debian.sh [extra-package ...]
set -eu
pkgs="gcc g++ make cmake pkg-config libcmocka-dev libcpuid-dev clang python3 $*"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
command -v apt-get >/dev/null 2>&1 || { echo "setup-debian: missing$missing, and no apt-get" >&2; exit 1; }
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup-debian: installing$missing"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
