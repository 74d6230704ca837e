#!/bin/sh
# SPDX-License-Identifier: MIT
# Proves the ARMv7 CNTVCT path: qemu-user never opens CNTVCT to user space
# (no HWCAP_EVTSTRM, the header then uses the OS clock), so boot Debian's
# armmp kernel under qemu-system-arm (-M virt -cpu cortex-a15) with an
# initramfs whose /init (ci/armv7-init.c, static) checks HWCAP_EVTSTRM and
# tsc_counter_name() == "ARMv7 CNTVCT", runs the static armhf test programs
# and powers off. Fails unless each test exits 0 on the CNTVCT path.
# Usage: ci/armv7-system.sh [TEST...]   (default: the list below)
# Needs ci/install.sh's armhf cross gcc; installs qemu-system-arm and cpio if
# missing. The kernel .deb is kept in ${TSC_CI_CACHE:-~/.cache/tsc_timer}/armv7/.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
w=$root/build-ci/armv7-sys
# The programs of ci/cross.sh armhf's build where it ran (same toolchain file
# and options, so nothing to rebuild), else a build of our own.
b=$root/build-ci/armhf
[ -f "$b/CMakeCache.txt" ] || b=$w/build
tests=${*:-test_core test_clock test_stats test_latch test_bench test_robust test_once test_two_units test_fast_math test_two_versions multi_include_plain}
mkdir -p "$w"

missing=""
command -v qemu-system-arm >/dev/null 2>&1 || missing="$missing qemu-system-arm"
command -v cpio >/dev/null 2>&1 || missing="$missing cpio"
if [ -n "$missing" ]; then
    s=""; [ "$(id -u)" = 0 ] || s=sudo
    ci/retry.sh "apt-get install$missing" $s apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
fi

# --- the kernel: Debian's armmp, kept in the CI cache ----------------------
# Fetched once through a private armhf apt state that knows only the main
# suite of this release (other suites' indexes, e.g. security's, are neither
# needed nor fetched), checked against the index's SHA256, and kept outside
# the checkout with its .sha256: later runs, fresh clones too, reuse it.
cache=${TSC_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tsc_timer}/armv7
mkdir -p "$cache"
. ci/kernel-cache.sh
deb=$(kernel_cached "$cache" 'linux-image-*-armmp_*_armhf.deb')
from="from the cache"
if [ -z "$deb" ]; then
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$suite" ] || { echo "armv7-system: no VERSION_CODENAME in /etc/os-release" >&2; exit 1; }
    a=$w/apt
    rm -rf "$a"; mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/sources" "$a/prefs"
    : >"$a/status"
    # The machine's binary package entries cut to the main suite: deb822
    # stanzas of Types: deb whose Suites name it (Suites: set to it alone),
    # one-line "deb" entries for it.
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && awk -v suite="$suite" 'BEGIN { RS = ""; ORS = "\n\n" }
            /(^|\n)Types:([ \t]+[^ \t\n]+)*[ \t]+deb([ \t]|\n|$)/ &&
            match($0, /(^|\n)Suites:[^\n]*/) {
                n = split(substr($0, RSTART, RLENGTH), w, /[ \t\n]+/); ok = 0
                for (i = 1; i <= n; i++) if (w[i] == suite) ok = 1
                if (!ok) next
                sub(/Types:[^\n]*/, "Types: deb"); sub(/Suites:[^\n]*/, "Suites: " suite); print
            }' "$f" >>"$a/sources/machine.sources"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] && awk -v suite="$suite" '$1 == "deb" {
                i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++
                if ($(i + 2) == suite) print }' "$f" >>"$a/sources/machine.list" || true
    done
    [ -s "$a/sources/machine.sources" ] || [ -s "$a/sources/machine.list" ] ||
        { echo "armv7-system: no apt source of this machine names the suite $suite" >&2; exit 1; }
    set -- -o APT::Architecture=armhf -o APT::Architectures=armhf \
        -o Dir::State::Lists="$a/lists" -o Dir::State::status="$a/status" \
        -o Dir::Cache="$a/cache" -o Dir::Etc::SourceList=/dev/null \
        -o Dir::Etc::SourceParts="$a/sources" -o Dir::Etc::Preferences=/dev/null \
        -o Dir::Etc::PreferencesParts="$a/prefs" -o Acquire::Languages=none \
        -o APT::Sandbox::User=root -q
    # An index that still fails after the retries is a warning: only the
    # lookup below decides, and it needs the main suite's armhf index alone.
    ci/retry.sh "apt-get update (armhf, suite $suite)" apt-get "$@" update >"$a/update.log" 2>&1 ||
        echo "armv7-system: warning: an armhf index failed (below); going on if the kernel is found" >&2
    # linux-image-armmp depends on the current linux-image-<abi>-armmp.
    pkg=$(apt-cache "$@" depends linux-image-armmp 2>/dev/null |
        sed -n 's/^ *Depends: \(linux-image-[^ ]*-armmp\)$/\1/p' | head -1)
    if [ -z "$pkg" ]; then
        cat "$a/update.log"
        echo "armv7-system: no linux-image-*-armmp in the armhf index of $suite (apt-get update above)" >&2
        exit 1
    fi
    sum=$(apt-cache "$@" show "$pkg" | sed -n 's/^SHA256: //p' | head -1)
    [ -n "$sum" ] || { echo "armv7-system: the index gives no SHA256 for $pkg" >&2; exit 1; }
    rm -f "$a"/*.deb
    (cd "$a" && "$root/ci/retry.sh" "apt-get download $pkg" apt-get "$@" download "$pkg" >/dev/null) ||
        exit 1
    got=$(ls "$a"/linux-image-*-armmp_*_armhf.deb | head -1)
    deb=$(kernel_keep "$got" "$sum" "$cache") || exit 1
    rm -rf "$a"
    from="from the mirror, now cached in $cache"
fi
# The kernel image, unpacked once per build tree and per package.
kernel_unpack "$deb" "$w"
echo "armv7-system: kernel $(basename "$deb") ($from)"

# --- the test programs and /init, static armhf ---------------------------
ci/build-cmocka.sh armhf
[ -f "$b/CMakeCache.txt" ] || cmake -S . -B "$b" -DCMAKE_TOOLCHAIN_FILE="$root/ci/toolchains/armhf.cmake" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSC_TIMER_WERROR=ON -DTSC_TIMER_BUILD_EXAMPLES=OFF \
      -DTSC_TIMER_BUILD_TOOLS=OFF -DTSC_TIMER_BUILD_BENCH=OFF >"$b.configure.log" 2>&1 ||
    { cat "$b.configure.log"; exit 1; }
cmake --build "$b" -j2 --target $tests
r=$w/initramfs
rm -rf "$r"; mkdir -p "$r/tests" "$r/dev" "$r/proc" "$r/tmp"
arm-linux-gnueabihf-gcc -static -O2 -Wall -Wextra -Werror -Iinclude -o "$r/init" \
    ci/armv7-init.c -lm -pthread
list=""
for t in $tests; do
    arm-linux-gnueabihf-strip -o "$r/tests/$t" "$b/tests/$t"
    list=${list:+$list,}$t
done
(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$w/initramfs.cpio.gz"

# --- boot ----------------------------------------------------------------
log=$w/console.log
smp=$(nproc); [ "$smp" -le 4 ] || smp=4
set +e
timeout 300 qemu-system-arm -M virt,highmem=off -cpu cortex-a15 -smp "$smp" -m 512 \
    -accel tcg,thread=multi -nographic -nic none -no-reboot -monitor none -serial stdio \
    -kernel "$w/kernel/vmlinuz" -initrd "$w/initramfs.cpio.gz" \
    -append "console=ttyAMA0 quiet panic=-1 tsc_tests=$list" </dev/null >"$log" 2>&1
rc=$?
set -e
tr -d '\r' <"$log" >"$log.txt"
grep -a 'TSC-ARMV7: \(hwcap\|test\|done\)' "$log.txt" || true
fail=""
[ $rc -eq 0 ] || fail="qemu exited $rc (124: timed out)"
grep -aq '^TSC-ARMV7: hwcap=.* evtstrm=1 counter="ARMv7 CNTVCT" .* cntvct_advances=1$' "$log.txt" ||
    fail="$fail; not on the CNTVCT path (HWCAP_EVTSTRM, counter name)"
for t in $tests; do
    grep -aq "^TSC-ARMV7: test $t exit=0 " "$log.txt" || fail="$fail; $t did not pass"
done
grep -aq '^TSC-ARMV7: done' "$log.txt" || fail="$fail; no 'done' line"
if [ -n "$fail" ]; then
    echo "---- console (last 150 lines of $log.txt) ----"; tail -n 150 "$log.txt"
    for t in $tests; do # each failed test's whole output, from its start line
        grep -aq "^TSC-ARMV7: test $t exit=0 " "$log.txt" && continue
        echo "==== failed test $t: its output ($log.txt)"
        awk -v s="TSC-ARMV7: start $t" -v e="TSC-ARMV7: test $t exit=" \
            '$0 == s { on = 1 } on { print } on && index($0, e) == 1 { on = 0 }' "$log.txt"
    done
    echo "armv7-system: FAILED: ${fail#; }" >&2
    exit 1
fi
echo "armv7-system: every test passed on ARMv7 CNTVCT ($log.txt)"
