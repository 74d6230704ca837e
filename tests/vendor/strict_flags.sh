#!/bin/sh
# SPDX-License-Identifier: MIT
# Vendor-ready, strict flags: whole_api.c (every public name of the header)
# compiled, linked (C without -lm) and run by every compiler given, at -O0
# and -O2, under
#   C:   -std=c90 gnu89 c99 c11 c17, -Wall -Wextra -Wpedantic -Wshadow
#        -Wconversion -Wstrict-prototypes -Wmissing-prototypes
#        -Wdeclaration-after-statement -Werror
#   C++: -std=c++11 c++14 c++17 c++20, -Wall -Wextra -Wpedantic -Wshadow
#        -Wconversion -Wold-style-cast -Werror, and g++ -Wuseless-cast (the
#        header's own code and its macros expanded in whole_api.c, a user's
#        file, so no cast there may be old-style or useless)
#   clang: -Weverything -Werror (C: c99, c17; C++: c++11, c++20), less only
#        what docs/integration.md lists: -Wno-padded -Wno-unsafe-buffer-usage and,
#        for C++, -Wno-reserved-identifier -Wno-reserved-macro-identifier
#        -Wno-c++98-compat (each where this clang knows it).
# A combination passes when the compiler exits 0 and prints nothing at all,
# and the program exits 0. Each failure is reported with its first
# diagnostic; at the end, every distinct diagnostic in the header, by line.
# Also fails if whole_api.c leaves out a public tsc_* function or TSC_*
# macro of the header.
# Out-parameters: out_params.c, one program per public function with an
# out-parameter (a struct or integer pointer named out, cpu or bound_ticks,
# or the object of a *_init function), read after the call as a user reads
# it, under the strict C (-std=c99) and C++ (-std=c++17) flags above at -O2
# and -O3: gcc reports -Wmaybe-uninitialized in the user's file for a
# function that leaves its output unwritten on some path. Fails too if the
# header has such a function out_params.c does not call.
# Usage: strict_flags.sh INCLUDE_DIR compiler ...   (names containing ++
# are C++ compilers; a compiler not found is skipped, saying so; exit 77
# when none is found)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
inc=$1; shift
src=$here/whole_api.c
osrc=$here/out_params.c
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# 1. Coverage: the public names of the header, each used by whole_api.c.
# Public: tsc_* functions declared at the start of a line, TSC_* macros;
# not tsc__* or TSC__*, nor the include guard, nor settings (a macro defined
# only where the user has not defined it: #ifndef NAME / #if !defined(NAME)).
hdr=$inc/tsc_timer.h
names=$( (sed -n 's/^[A-Za-z_][A-Za-z0-9_ *]*[ *]\(tsc_[a-z0-9_]*\)[[:space:]]*(.*/\1/p' "$hdr"
          awk '/^[ \t]*#[ \t]*(if|ifdef|ifndef|elif)[ \t(]/ { cond = $0; next }
               /^[ \t]*#[ \t]*(else|endif)/ { cond = ""; next }
               /^[ \t]*#[ \t]*define[ \t]+TSC_[A-Za-z0-9_]*/ {
                   name = $0; sub(/^[ \t]*#[ \t]*define[ \t]+/, "", name); sub(/[^A-Za-z0-9_].*$/, "", name)
                   if (cond ~ ("#[ \t]*ifndef[ \t]+" name "([ \t]|$)") || index(cond, "!defined(" name ")"))
                       next
                   print name
               }' "$hdr") |
        grep -v -e '^tsc__' -e '^TSC__' -e '^TSC_TIMER_H$' | sort -u)
body=$(gcc -fpreprocessed -dD -E -P -x c "$src" 2>/dev/null || cat "$src") # comments out
missing=""
for n in $names; do
    printf '%s\n' "$body" | grep -qw -- "$n" || missing="$missing $n"
done
if [ -n "$missing" ]; then
    echo "FAIL: whole_api.c does not use these public names of the header:$missing"
    fail=$((fail + 1))
else
    echo "coverage: whole_api.c uses all $(echo "$names" | wc -w) public names of the header"
fi
outs=$(sed -n '/^\/\* 4\. Public API/,/^\/\* 5\./p' "$hdr" | grep -E '^TSC__(API|FN) ' |
       grep -E '(struct [a-z_]+|uint[0-9]+_t) \*(out|cpu|bound_ticks)[,)]|_init\(struct [a-z_]+ \*' |
       sed -E 's/^[^(]*[ *](tsc_[a-z0-9_]+)\(.*/\1/')
missing=""
for n in $outs; do
    grep -q "defined(OUT_PARAM_$n)" "$osrc" || missing="$missing $n"
done
if [ -z "$outs" ] || [ -n "$missing" ]; then
    echo "FAIL: out_params.c does not call these functions with an out-parameter:${missing:- (none found)}"
    fail=$((fail + 1))
else
    echo "coverage: out_params.c calls all $(echo "$outs" | wc -w) functions with an out-parameter"
fi

# 2. The combinations, one job script each.
cstd="c90 gnu89 c99 c11 c17"
cxxstd="c++11 c++14 c++17 c++20"
cflags="-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes -Wdeclaration-after-statement -Werror"
cxxflags="-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wold-style-cast -Werror"
n=0; seen=" "
job() { # label compiler lang std opt flags [source]
    n=$((n + 1)); j=$tmp/$(printf '%03d' $n)
    { echo ". '$here/common.sh'"; cat <<EOF
if "$2" -x $3 -std=$4 $5 $6 -I"$inc" "${7:-$src}" -o "$j.exe" >"$j.log" 2>&1 && [ ! -s "$j.log" ]; then
    if vendor_timeout 60 "$j.exe" >"$j.run" 2>&1; then echo "PASS" >"$j.res"
    else echo "FAIL (run, exit \$?): $1" >"$j.res"; head -n3 "$j.run" >>"$j.res"; fi
else
    echo "FAIL: $1" >"$j.res"
    vendor_first_diag "$j.log" >>"$j.res"
fi
EOF
    } >"$j.job"
}
# Which -Wno- options this clang knows.
known_no() { # compiler lang option...
    c=$1 l=$2; shift 2
    for w in "$@"; do
        out=$(echo 'int x;' | "$c" -x "$l" -Werror "$w" -fsyntax-only - 2>&1) &&
            [ -z "$out" ] && printf ' %s' "$w"
    done
}
for cc in "$@"; do
    command -v "$cc" >/dev/null 2>&1 || { echo "skip: $cc not found"; continue; }
    case "$cc" in *++*) lang=c++;; *) lang=c;; esac
    key="$(vendor_key "$cc") $lang"
    case "$seen" in *" $key "*) continue;; esac
    seen="$seen$key "
    fam=$(vendor_family "$cc")
    [ "$fam" = other ] && { echo "skip: $cc is neither gcc nor clang"; continue; }
    lim=""; [ "$fam" = clang ] && lim=" -ferror-limit=0" # all of them, for the summary
    useless=""; [ "$fam" = gcc ] && useless=" -Wuseless-cast" # g++ only
    for f in $outs; do
        for opt in -O2 -O3; do
            if [ $lang = c ]; then
                job "$cc -std=c99 $opt $f (out-parameter)" "$cc" c c99 $opt "$cflags$lim -DOUT_PARAM_$f" "$osrc"
            else
                job "$cc -std=c++17 $opt $f (out-parameter)" "$cc" c++ c++17 $opt \
                    "$cxxflags$useless$lim -DOUT_PARAM_$f" "$osrc"
            fi
        done
    done
    for opt in -O0 -O2; do
        if [ $lang = c ]; then
            for std in $cstd; do job "$cc -std=$std $opt (strict C)" "$cc" c $std $opt "$cflags$lim"; done
        else
            for std in $cxxstd; do
                job "$cc -std=$std $opt (strict C++)" "$cc" c++ $std $opt "$cxxflags$useless$lim"
            done
        fi
        [ "$fam" = clang ] || continue
        if [ $lang = c ]; then
            off=$(known_no "$cc" c -Wno-padded -Wno-unsafe-buffer-usage)
            for std in c99 c17; do
                job "$cc -std=$std $opt -Weverything$off" "$cc" c $std $opt "-Weverything -Werror$off$lim"
            done
        else
            off=$(known_no "$cc" c++ -Wno-padded -Wno-unsafe-buffer-usage -Wno-reserved-identifier \
                  -Wno-reserved-macro-identifier -Wno-c++98-compat)
            for std in c++11 c++20; do
                job "$cc -std=$std $opt -Weverything$off" "$cc" c++ $std $opt "-Weverything -Werror$off$lim"
            done
        fi
    done
done
if [ "$n" -eq 0 ] && [ "$fail" -eq 0 ]; then
    echo "strict flags: skipped, no gcc or clang here"
    exit 77 # ctest: SKIP_RETURN_CODE
fi
vendor_run_jobs "$tmp"

pass=0
for r in "$tmp"/*.res; do
    [ -e "$r" ] || continue
    if [ "$(head -n1 "$r")" = PASS ]; then pass=$((pass + 1)); else cat "$r"; fail=$((fail + 1)); fi
done
if ls "$tmp"/*.log >/dev/null 2>&1 && [ -n "$(cat "$tmp"/*.log)" ]; then
    echo "distinct diagnostics at the header's lines and where its macros expand in whole_api.c:"
    vendor_header_diags "$tmp"/*.log
    u=$(sed -n "s/.*undefined reference to [\`']\([^']*\)'.*/\1/p" "$tmp"/*.log | sort -u | tr '\n' ' ')
    [ -z "$u" ] || echo "  undefined references at link time (no -lm): $u"
fi
echo "strict flags: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
