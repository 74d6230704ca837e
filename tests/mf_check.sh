#!/bin/sh
# SPDX-License-Identifier: MIT
# The many-files mode, as the linker sees it, for each C compiler given
# (with its C++ twin): a program of two files that include the header with
# TSC_TIMER_EXTERN (one C, one C++) and one with TSC_TIMER_IMPLEMENTATION:
#   - the two files define no function the implementation compiles (nm),
#     and the program defines each of those exactly once;
#   - no implementation, or two, fails to link with a message that names
#     the fix (tsc_timer_needs_TSC_TIMER_IMPLEMENTATION_in_exactly_one_file);
#   - so does a program that uses statistics alone; a file built with other
#     configuration macros than the implementation's fails naming that;
#     TSC_ZONES_RECORDS (gone) stops the compilation naming its successors;
#     files of both modes in one program say so on stderr at first use;
#   - two libraries built with different versions of the header (each with
#     its own implementation) keep separate state in one program.
# Usage: mf_check.sh INCLUDE_DIR WORK_DIR CC...
set -eu
inc=$1; work=$2; shift 2
fail=0
say() { echo "mf_check: $*"; }
bad() { echo "mf_check: FAIL: $*"; fail=1; }
for cc in "$@"; do
    command -v "$cc" >/dev/null 2>&1 || { say "$cc: not found, skipped"; continue; }
    case $cc in gcc*) cxx=g++${cc#gcc} ;; clang*) cxx=clang++${cc#clang} ;; *) cxx=c++ ;; esac
    d=$work/$cc
    rm -rf "$d"; mkdir -p "$d/v2"
    cat >"$d/a.c" <<'SRC'
#include "tsc_timer.h"
#include <stdio.h>
uint64_t b_stamp(void);
int main(void)
{
    struct tsc_stats s;
    uint64_t t0;
    tsc_init();
    tsc_stats_init(&s);
    t0 = tsc_ticks_before();
    tsc_stats_add(&s, tsc_ticks_after() - t0);
    printf("%s: %llu ns, %llu\n", tsc_counter_name(),
           (unsigned long long)tsc_ticks_to_ns(tsc_stats_min(&s)), (unsigned long long)b_stamp());
    return b_stamp() > 0 ? 0 : 1;
}
SRC
    cat >"$d/b.cpp" <<'SRC'
#include "tsc_timer.h"
extern "C" uint64_t b_stamp(void);
uint64_t b_stamp(void) { return tsc_clock_ticks_to_ns(tsc_clock_ticks()) + tsc_now_ns(); }
SRC
    printf '#define TSC_TIMER_IMPLEMENTATION\n#include "tsc_timer.h"\n' >"$d/impl.c"
    f="-O2 -DTSC_TIMER_EXTERN -I$inc"
    $cc $f -c "$d/a.c" -o "$d/a.o"
    $cxx $f -c "$d/b.cpp" -o "$d/b.o"
    $cc $f -c "$d/impl.c" -o "$d/impl.o"
    $cc $f -c "$d/impl.c" -o "$d/impl2.o"
    # The functions the implementation compiles once: its global text symbols.
    once=$(nm -g --defined-only "$d/impl.o" | awk '$2 == "T" { print $3 }')
    [ -n "$once" ] || bad "$cc: the implementation defines no function"
    for o in a.o b.o; do
        defined=$(nm --defined-only "$d/$o" | awk '{ print $3 }')
        for s in $once; do
            if echo "$defined" | grep -qx "$s"; then bad "$cc: $o defines $s, compiled once in impl.o"; fi
            base=${s%_v[0-9]*}
            if echo "$defined" | grep -qx "$base"; then bad "$cc: $o has its own copy of $base"; fi
        done
    done
    $cxx "$d/a.o" "$d/b.o" "$d/impl.o" -o "$d/prog" -lm
    for s in $once; do
        n=$(nm "$d/prog" | awk -v s="$s" '$3 == s && $2 == "T"' | wc -l)
        [ "$n" -eq 1 ] || bad "$cc: the program defines $s $n times"
    done
    "$d/prog" >/dev/null || bad "$cc: the program failed"
    say "$cc: $(echo "$once" | wc -w) functions compiled once, each defined once in the program"
    # No implementation, two implementations.
    if $cxx "$d/a.o" "$d/b.o" -o "$d/none" -lm >"$d/none.log" 2>&1; then
        bad "$cc: a program without the implementation linked"
    elif ! grep -q tsc_timer_needs_TSC_TIMER_IMPLEMENTATION_in_exactly_one_file "$d/none.log"; then
        bad "$cc: the link error without the implementation does not name the fix"; cat "$d/none.log"
    fi
    if $cxx "$d/a.o" "$d/b.o" "$d/impl.o" "$d/impl2.o" -o "$d/two" -lm >"$d/two.log" 2>&1; then
        bad "$cc: a program with two implementations linked"
    elif ! grep -q tsc_timer_needs_TSC_TIMER_IMPLEMENTATION_in_exactly_one_file "$d/two.log"; then
        bad "$cc: the link error with two implementations does not name the fix"; cat "$d/two.log"
    fi
    say "$cc: none and two implementations fail to link, naming the fix"
    # A program that uses statistics alone (no state) and no implementation:
    # the same message, not only the functions' names.
    cat >"$d/stats.c" <<'SRC'
#include "tsc_timer.h"
int main(void)
{
    struct tsc_stats s;
    tsc_stats_init(&s);
    return (int)tsc_stats_count(&s);
}
SRC
    $cc $f -c "$d/stats.c" -o "$d/stats.o"
    if $cc "$d/stats.o" -o "$d/stats" -lm >"$d/stats.log" 2>&1; then
        bad "$cc: a statistics-only program without the implementation linked"
    elif ! grep -q tsc_timer_needs_TSC_TIMER_IMPLEMENTATION_in_exactly_one_file "$d/stats.log"; then
        bad "$cc: the statistics-only program's link error does not name the fix"; cat "$d/stats.log"
    fi
    # A file whose configuration macros differ from the implementation's
    # (the zones' limits; the counter's configuration): the link fails
    # naming that cause, not a missing implementation.
    for cfg in -DTSC_ZONES_MAX=128 -DTSC_TIMER_NO_RDTSCP; do
        $cc $f $cfg -c "$d/a.c" -o "$d/a_cfg.o"
        if $cxx "$d/a_cfg.o" "$d/b.o" "$d/impl.o" -o "$d/cfg" -lm >"$d/cfg.log" 2>&1; then
            bad "$cc: a file built with $cfg against a default implementation linked"
        elif ! grep -q tsc_timer_has_no_TSC_TIMER_IMPLEMENTATION_file_with_its_config_macros "$d/cfg.log" ||
             grep -q in_exactly_one_file "$d/cfg.log"; then
            bad "$cc: the link error for $cfg does not name the configuration"; cat "$d/cfg.log"
        fi
    done
    # Plain files and TSC_TIMER_EXTERN files in one program: two states,
    # which the second of them to calibrate says on stderr.
    printf '#include "tsc_timer.h"\nuint64_t b_stamp(void);\nuint64_t b_stamp(void) { tsc_init(); return tsc_now_ns(); }\n' >"$d/plain.c"
    $cc -O2 -I"$inc" -c "$d/plain.c" -o "$d/plain.o"
    $cc "$d/a.o" "$d/plain.o" "$d/impl.o" -o "$d/mixed" -lm
    if ! "$d/mixed" >/dev/null 2>"$d/mixed.log"; then
        bad "$cc: the program of both modes failed"; cat "$d/mixed.log"
    elif ! grep -q "include the header plainly and files built with TSC_TIMER_EXTERN" "$d/mixed.log"; then
        bad "$cc: the program of both modes ran without a word"
    fi
    # TSC_ZONES_RECORDS, the size of the pool of records that all threads
    # shared before they allocated their own: an error naming what bounds
    # the records now, not a setting silently ignored.
    if $cc $f -DTSC_ZONES_RECORDS=1024 -c "$d/a.c" -o "$d/a_rec.o" >"$d/rec.log" 2>&1; then
        bad "$cc: a file built with TSC_ZONES_RECORDS compiled"
    elif ! grep -q "TSC_ZONES_RECORDS is gone.*TSC_ZONES_MAX and TSC_ZONES_THREADS bound them" "$d/rec.log"; then
        bad "$cc: the error for TSC_ZONES_RECORDS does not name what replaced it"; cat "$d/rec.log"
    fi
    say "$cc: statistics alone, other configuration macros, both modes: each named"
    # Two versions of the header, each a library with its own implementation.
    sed 's/^#define TSC_TIMER_VERSION_MINOR .*/#define TSC_TIMER_VERSION_MINOR 99/' "$inc/tsc_timer.h" \
        >"$d/v2/tsc_timer.h"
    for v in 1 2; do
        if [ $v = 1 ]; then i=$inc; else i=$d/v2; fi
        cat >"$d/lib$v.c" <<SRC
#define TSC_TIMER_EXTERN
#define TSC_TIMER_IMPLEMENTATION
#include "tsc_timer.h"
uint32_t lib${v}_calibrations(void);
uint32_t lib${v}_calibrations(void) { tsc_init(); return TSC__SEQ_COUNT(tsc__g.fseq); }
SRC
        $cc -O2 -I"$i" -c "$d/lib$v.c" -o "$d/lib$v.o"
    done
    cat >"$d/two_versions.c" <<'SRC'
#include <stdio.h>
#include <stdint.h>
uint32_t lib1_calibrations(void);
uint32_t lib2_calibrations(void);
int main(void)
{
    uint32_t a = lib1_calibrations(), b = lib2_calibrations();
    printf("version 1: %u calibrations, version 2: %u\n", a, b);
    return a == 1 && b == 1 ? 0 : 1;
}
SRC
    $cc -O2 "$d/two_versions.c" "$d/lib1.o" "$d/lib2.o" -o "$d/two_versions" -lm
    if "$d/two_versions" >"$d/two_versions.log" 2>&1; then
        say "$cc: two versions in one program: $(cat "$d/two_versions.log")"
    else
        bad "$cc: two versions share state: $(cat "$d/two_versions.log")"
    fi
done
[ $fail = 0 ] && say "passed"
exit $fail
