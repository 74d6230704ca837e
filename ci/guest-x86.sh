#!/bin/sh
# SPDX-License-Identifier: MIT
# The clock through a real kernel's time events: boots Debian's x86-64
# kernel (linux-image-amd64) under qemu-system-x86_64 with TCG (/dev/kvm on
# our machines is a paravirtual hypervisor that boots no stock kernel) and
# an initramfs whose /init is tests/guest_clock.c (static): it suspends to
# RAM, switches clocksources, slews and steps the kernel's clocks as a time
# daemon does, compares the library's clock with the kernel's all along and
# asserts what the header's guarantees state (tests/guest_clock.c says
# which bounds). Fails unless every scenario exits 0; prints the guest's
# output on failure.
# Usage: ci/guest-x86.sh [SCENARIO...]   (default: the list below)
#   TSC_GUEST_INCLUDE=DIR builds the guest program against DIR/tsc_timer.h
#   instead of include/ (to measure an older header: `git show
#   REV:include/tsc_timer.h >DIR/tsc_timer.h`).
# Scenarios: boot suspend1 suspend3 pause switch freq tick settime leap calib
# accuracy
# (tests/guest_clock.c says what each does and asserts), and selftests (the
# kernel's timers selftests, plain and through the interposer, below).
# Needs qemu-system-x86, seabios, busybox-static and cpio (ci/install.sh).
# The kernel .deb is kept, with its .sha256 from the apt index, in
# ${TSC_CI_CACHE:-~/.cache/tsc_timer}/x86/.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
w=$root/build-ci/guest-x86${TSC_GUEST_TAG:+-$TSC_GUEST_TAG}
scenarios=${*:-boot suspend1 suspend3 pause switch freq tick settime leap calib accuracy selftests}
mkdir -p "$w"

missing=""
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing="$missing qemu-system-x86"
[ -f /usr/share/seabios/bios-256k.bin ] || missing="$missing seabios"
[ -x /bin/busybox ] || missing="$missing busybox-static"
command -v cpio >/dev/null 2>&1 || missing="$missing cpio"
if [ -n "$missing" ]; then
    s=""; [ "$(id -u)" = 0 ] || s=sudo
    ci/retry.sh "apt-get install$missing" $s apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
fi

# --- the kernel: Debian's, kept in the CI cache ---------------------------
# linux-image-amd64 depends on the current linux-image-<abi>-amd64; the
# package is downloaded once, checked against the SHA256 of the machine's
# own apt index, and kept outside the checkout with its .sha256: later runs,
# fresh clones too, reuse it.
cache=${TSC_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tsc_timer}/x86
mkdir -p "$cache"
. ci/kernel-cache.sh
deb=$(kernel_cached "$cache" 'linux-image-*-amd64_*_amd64.deb')
from="from the cache"
if [ -z "$deb" ]; then
    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
        sed -n 's/^ *Depends: \(linux-image-[^ ]*-amd64\)$/\1/p' | head -1)
    if [ -z "$pkg" ]; then
        s=""; [ "$(id -u)" = 0 ] || s=sudo
        ci/retry.sh "apt-get update" $s apt-get -o DPkg::Lock::Timeout=600 update -qq || true
        pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
            sed -n 's/^ *Depends: \(linux-image-[^ ]*-amd64\)$/\1/p' | head -1)
    fi
    [ -n "$pkg" ] || { echo "guest-x86: no linux-image-*-amd64 behind linux-image-amd64 in the apt index" >&2; exit 1; }
    # (the candidate version: the index may hold several, e.g. a point
    # release's and a security update's)
    ver=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
    sum=$(apt-cache show "$pkg=$ver" | sed -n 's/^SHA256: //p' | head -1)
    [ -n "$sum" ] || { echo "guest-x86: the index gives no SHA256 for $pkg $ver" >&2; exit 1; }
    a=$w/download
    rm -rf "$a"; mkdir -p "$a"
    (cd "$a" && "$root/ci/retry.sh" "apt-get download $pkg=$ver" apt-get -q download "$pkg=$ver" >/dev/null) ||
        exit 1
    got=$(ls "$a"/linux-image-*-amd64_*_amd64.deb | head -1)
    deb=$(kernel_keep "$got" "$sum" "$cache") || exit 1
    rm -rf "$a"
    from="from the mirror, now cached in $cache"
fi
kernel_unpack "$deb" "$w"
echo "guest-x86: kernel $(basename "$deb") ($from)"

# --- the initramfs: /init and busybox, static -----------------------------
r=$w/initramfs
rm -rf "$r"; mkdir -p "$r/bin" "$r/dev" "$r/proc" "$r/sys" "$r/tmp" "$r/run.d"
${CC:-gcc} -static -O2 -Wall -Wextra -Werror -I"${TSC_GUEST_INCLUDE:-include}" -o "$r/init" \
    tests/guest_clock.c -lm -pthread
strip "$r/init"
cp /bin/busybox "$r/bin/busybox"
ln -s busybox "$r/bin/sh"

# --- the kernel's own timers selftests (scenario "selftests") --------------
# GPL-2.0 kernel code: extracted at run time from Debian's linux-source-6.1
# into the CI cache (never into the checkout), built here, dynamic: the
# dynamic loader and the C library go into the initramfs with them, and
# the project's LD_PRELOAD interposer (tests/preload_clock.c). Each runs
# once without the interposer (a failure there is the kernel's or the
# emulator's) and once with it. TSC_GUEST_LONG=1 adds the long ones (about
# two hours); TSC_GUEST_LONG="raw_skew adjtick" adds those named;
# TSC_GUEST_SHORT=0 leaves the short ones out; TSC_GUEST_MODES=preload
# runs each through the interposer alone, judged by what it checks of the
# clock (below); TSC_GUEST_TAG=NAME works in build-ci/guest-x86-NAME (two
# guests at once).
case " $scenarios " in *" selftests "*)
    src=/usr/src/linux-source-6.1.tar.xz
    [ -f "$src" ] || { echo "guest-x86: $src missing (apt-get install linux-source-6.1)" >&2; exit 1; }
    ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown)
    st=${TSC_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tsc_timer}/kselftest-timers-$ver
    if [ ! -f "$st/done" ]; then
        rm -rf "$st"; mkdir -p "$st"
        tar -xJf "$src" -C "$st" --strip-components=4 --wildcards \
            'linux-source-6.1/tools/testing/selftests/timers/*' \
            'linux-source-6.1/tools/testing/selftests/kselftest.h'
        : >"$st/done"
    fi
    b=$w/selftests
    rm -rf "$b"; mkdir -p "$b" "$r/st"
    short="inconsistency-check nanosleep threadtest leap-a-day"
    long="set-timer-lat raw_skew adjtick freq-step skew_consistency clocksource-switch change_skew"
    for t in $short $long; do
        ${CC:-gcc} -O2 -Wl,-no-as-needed -o "$r/st/$t" "$st/timers/$t.c" -lrt -lpthread -lm
    done
    ${CC:-gcc} -shared -fPIC -O2 -Wall -Wextra -Werror -I"${TSC_GUEST_INCLUDE:-include}" \
        -o "$r/preload_clock.so" tests/preload_clock.c -pthread
    for lib in $(ldd "$r/st/threadtest" "$r/preload_clock.so" | sed -n 's/.* => \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' | sort -u); do
        mkdir -p "$r$(dirname "$lib")"
        cp -L "$lib" "$r$lib"
    done
    {
        echo '/bin/busybox --install -s /bin; cd /st'
        echo 'run() { m=$1; shift; t0=$(cut -d" " -f1 /proc/uptime)'
        echo '  if [ "$m" = preload ]; then TSC_PRELOAD_REPORT=1 LD_PRELOAD=/preload_clock.so "$@"; else "$@"; fi >/tmp/out 2>&1; rc=$?'
        echo '  echo "TSC-SELFTEST: $m $* exit=$rc seconds=$(awk "BEGIN{print $(cut -d" " -f1 /proc/uptime)-$t0}")"'
        echo '  head -n 60 /tmp/out | sed "s/^/TSC-SELFTEST-OUT: /"; }'
        echo "for m in ${TSC_GUEST_MODES:-plain preload}; do"
        if [ "${TSC_GUEST_SHORT:-1}" != 0 ]; then
            echo '  run $m ./inconsistency-check -c 0 -t 5; run $m ./inconsistency-check -c 1 -t 5'
            echo '  run $m ./threadtest -t 5 -n 8; run $m ./nanosleep; run $m ./leap-a-day -i 2'
        fi
        case ${TSC_GUEST_LONG:-0} in
        0) ;;
        1) for t in $long; do echo "  run \$m ./$t"; done ;;
        *) for t in $TSC_GUEST_LONG; do echo "  run \$m ./$t"; done ;;
        esac
        echo 'done'
    } >"$r/run.d/selftests"
    ;;
esac
(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$w/initramfs.cpio.gz"

# --- boot ------------------------------------------------------------------
list=$(echo $scenarios | tr ' ' , | sed 's/\(^\|,\)selftests\(,\|$\)/\1run:selftests\2/')
log=$w/console.log
set +e
limit=280
case " $scenarios " in *" selftests "*) limit=$((limit + 420)) ;; esac
case ${TSC_GUEST_LONG:-0} in
0) ;;
1) limit=$((limit + 7500)) ;; # (about two hours)
*) limit=$((limit + 2700 * $(echo $TSC_GUEST_LONG | wc -w))) ;; # (both runs of each: up to 20 min apiece)
esac
# A QMP socket: ci/qmp-pause.py stops and resumes the VM where the guest
# asks (scenario pause).
rm -f "$w/qmp.sock" "$w/qmp.log"
python3 ci/qmp-pause.py "$w/qmp.sock" "$log" >"$w/qmp.log" 2>&1 &
qmp=$!
timeout $limit qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m 512 -nographic -nodefaults \
    -no-reboot -monitor none -serial stdio -L /usr/share/seabios -global PIIX4_PM.disable_s3=0 \
    -qmp "unix:$w/qmp.sock,server=on,wait=off" \
    -kernel "$w/kernel/vmlinuz" -initrd "$w/initramfs.cpio.gz" \
    -append "console=ttyS0 quiet panic=-1 tsc_guest=$list" </dev/null >"$log" 2>&1
rc=$?
sleep 1
kill $qmp 2>/dev/null || true
wait $qmp 2>/dev/null || true
cat "$w/qmp.log"
set -e
tr -d '\r' <"$log" >"$log.txt"
grep -a 'TSC-GUEST: \(scenario\|event\|backsteps\|done\)' "$log.txt" || true
fail=""
[ $rc -eq 0 ] || fail="qemu exited $rc (124: timed out)"
for s in $scenarios; do
    [ "$s" = selftests ] && s=run:selftests
    grep -aq "^TSC-GUEST: scenario $s exit=0 " "$log.txt" || fail="$fail; $s did not pass"
done
case " $scenarios " in *" pause "*)
    grep -q '^qmp-pause: paused' "$w/qmp.log" || fail="$fail; the guest was never paused through QMP" ;;
esac
# A selftest fails the lane where it failed through the interposer and
# passed without it; one that fails without it too is the kernel's or the
# emulator's (reported, not ours).
# Run through the interposer alone (TSC_GUEST_MODES=preload), a test is
# judged by what it checks of the clock: set-timer-lat by its "fired
# early" checks (a timer seen to fire before its time is a clock ahead of
# the kernel's), not by its latency checks, which fail under TCG without
# the interposer too; raw_skew by its estimate of CLOCK_MONOTONIC's drift
# against CLOCK_MONOTONIC_RAW, to within its own 1 ppm plus the bound the
# interposer's calibration stated (the test reads the clock twice, 120 s
# apart: the clock runs on its first calibration in between, stated at
# +-2 ppm under TCG, +-0.2 ppm natively); freq-step by selftest_freq_step
# below; the others must pass.
selftest_raw_skew() { # OUTPUT-FILE
    awk '/Estimating clock drift:/ { split($0, a, /: */); split(a[2], b, /\(est\) */); e = b[1] + 0
                                     a2 = b[2]; sub(/\(act\).*/, "", a2); act = a2 + 0; seen = 1 }
         /^preload_clock: calibrated/ { for (i = 1; i <= NF; i++) if ($i == "+-") u = $(i + 1) + 0 }
         END { d = e - act; if (d < 0) d = -d
               printf "guest-x86: raw_skew: estimate %.3f ppm, actual %.3f ppm, calibration +-%.3f ppm: %s\n",
                      e, act, u, (seen && d <= 1 + u) ? "within" : "beyond"
               exit !(seen && d <= 1 + u) }' "$1"
}
# freq-step slews the kernel's clock by 10, 640 and 40,960 ppm for up to
# 2 s and regresses CLOCK_MONOTONIC against CLOCK_MONOTONIC_RAW over the 5 s
# after it, then the next 5 s. Its 0.02 ppm bound fails under TCG without
# the interposer already (-0.12 to +0.00 ppm in the second interval, its
# deviation up to 12 ns); the clock is held to the second interval's
# frequency within 0.5 ppm and its deviation within 250 ns (5x the test's
# own 50 ns: each resync's correction adds a few ns; seen up to 59 ns),
# each of the 15 steps: once a slew's error is made up, the clock runs at
# the kernel's rate. (The first interval holds that making-up: up to
# 61 ppm and 0.28 ms.)
selftest_freq_step() { # OUTPUT-FILE
    awk '/^ *[0-9]+ +[-+][0-9.]+ +[0-9]+ +[0-9]+ +[-+][0-9.]+ +[0-9]+ +[0-9]+/ {
             n++; f = $5 + 0; if (f < 0) f = -f; if (f > 0.5 || $6 + 0 > 250) bad++ }
         END { printf "guest-x86: freq-step: %d steps, %d with the second interval beyond 0.5 ppm or 250 ns\n", n, bad
               exit !(n == 15 && bad == 0) }' "$1"
}
if grep -aq '^TSC-SELFTEST: ' "$log.txt"; then
    grep -a '^TSC-SELFTEST: ' "$log.txt" | sed 's/^TSC-SELFTEST: //' >"$w/selftests.txt"
    sed 's/^/guest-x86: selftest /' "$w/selftests.txt"
    # each run's output: selftest-N.txt, in the order of selftests.txt
    awk '/^TSC-SELFTEST: /{n++} /^TSC-SELFTEST-OUT: /{sub(/^TSC-SELFTEST-OUT: /, ""); print > (dir "/selftest-" n ".txt")}' \
        dir="$w" "$log.txt"
    i=0
    while read -r m cmd; do
        i=$((i + 1))
        [ "$m" = preload ] || continue
        c=${cmd% exit=*}
        out=$w/selftest-$i.txt
        [ -f "$out" ] || : >"$out"
        if ! grep -q "^plain $c exit=" "$w/selftests.txt"; then
            case $c in
            *set-timer-lat*) ! grep -q 'fired early.*FAILED' "$out" && grep -q 'fired early' "$out" ;;
            *freq-step*) selftest_freq_step "$out" ;;
            *raw_skew*) selftest_raw_skew "$out" ;;
            *) grep -q "^preload $c exit=0 " "$w/selftests.txt" ;;
            esac || { fail="$fail; $c failed through the interposer"; sed "s|^|guest-x86: $c: |" "$out"; }
        elif ! grep -q "^preload $c exit=0 " "$w/selftests.txt"; then
            if grep -q "^plain $c exit=0 " "$w/selftests.txt"; then
                fail="$fail; $c failed through the interposer (and passed without it)"
            else
                echo "guest-x86: $c failed without the interposer too: the kernel's or the emulator's"
            fi
        fi
    done <"$w/selftests.txt"
fi
grep -aq '^TSC-GUEST: done' "$log.txt" || fail="$fail; no 'done' line"
if [ -n "$fail" ]; then
    echo "---- guest console ($log.txt), last 300 lines ----"; tail -n 300 "$log.txt"
    echo "guest-x86: FAILED: ${fail#; }" >&2
    exit 1
fi
echo "guest-x86: every scenario passed ($log.txt)"
