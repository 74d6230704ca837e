#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds a static cmocka for each cross target from Debian's own cmocka
# source package (Debian ships no static libcmocka, and none for mingw).
# Installs into build-ci/sysroot/<triple>/{include,lib} with a CMake config
# file that defines cmocka::cmocka, which tests/CMakeLists.txt looks for.
# Usage: ci/build-cmocka.sh TARGET...   (names of ci/toolchains/*.cmake)
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
out=$root/build-ci
# The unpacked source is kept outside the checkout, beside the ARMv7 kernel
# (TSC_CI_CACHE, else ~/.cache/tsc_timer), so later clones fetch nothing.
cache=${TSC_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tsc_timer}/src
mkdir -p "$out/src" "$cache"
src=$(ls -d "$out"/src/cmocka-*/ 2>/dev/null | head -1 || true)
if [ -z "$src" ]; then
    if ! ls -d "$cache"/cmocka-*/ >/dev/null 2>&1; then
        tmp=$(mktemp -d "$cache/fetch.XXXXXX")
        (cd "$tmp" && "$root/ci/retry.sh" "apt-get source cmocka" apt-get source -qq cmocka >/dev/null) ||
            { rm -rf "$tmp"; echo "build-cmocka: 'apt-get source cmocka' failed (deb-src line? dpkg-dev?)" >&2; exit 1; }
        d=$(ls -d "$tmp"/cmocka-*/ | head -1)
        mv "${d%/}" "$cache/" && rm -rf "$tmp"
        echo "build-cmocka: cmocka source fetched into $cache"
    fi
    cp -a "$(ls -d "$cache"/cmocka-*/ | head -1)" "$out/src/"
    src=$(ls -d "$out"/src/cmocka-*/ | head -1)
fi
src=${src%/}
for t in "$@"; do
    tc=$root/ci/toolchains/$t.cmake
    triple=$(sed -n 's/^set(TSC_TRIPLE \(.*\))$/\1/p' "$tc")
    prefix=$out/sysroot/$triple
    [ -f "$prefix/lib/libcmocka.a" ] && continue
    b=$out/cmocka-$t
    rm -rf "$b"
    if ! { cmake -S "$src" -B "$b" -DCMAKE_TOOLCHAIN_FILE="$tc" -DTSC_CROSS_PREFIX="$prefix" \
            -DCMAKE_BUILD_TYPE=Release -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF \
            -DUNIT_TESTING=OFF && cmake --build "$b" --target cmocka-static -j2; } >"$b.log" 2>&1; then
        cat "$b.log"; echo "build-cmocka: $t failed" >&2; exit 1
    fi
    mkdir -p "$prefix/include" "$prefix/lib/cmake/cmocka"
    cp "$src/include/cmocka.h" "$src/include/cmocka_pbc.h" "$prefix/include/"
    cp "$(find "$b" -name libcmocka-static.a | head -1)" "$prefix/lib/libcmocka.a"
    cat >"$prefix/lib/cmake/cmocka/cmocka-config.cmake" <<'CFG'
# Static cmocka built by ci/build-cmocka.sh.
get_filename_component(_p "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET cmocka::cmocka)
  add_library(cmocka::cmocka STATIC IMPORTED)
  set_target_properties(cmocka::cmocka PROPERTIES IMPORTED_LOCATION "${_p}/lib/libcmocka.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_p}/include")
endif()
CFG
    echo "build-cmocka: $t: $prefix/lib/libcmocka.a"
done
