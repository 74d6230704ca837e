# SPDX-License-Identifier: MIT
# Helpers shared by the vendor checks (sourced, not run).

# The compiler's family from its predefined macros: clang, gcc or other.
vendor_family() {
    m=$(echo | "$1" -dM -E -x c - 2>/dev/null) || { echo other; return; }
    case "$m" in
    *"#define __clang__ "*) echo clang;;
    *"#define __GNUC__ "*) echo gcc;;
    *) echo other;;
    esac
}

# A key naming the compiler binary once (cc and gcc, c++ and g++ are one).
vendor_key() {
    p=$(command -v "$1") || return 1
    readlink -f "$p" 2>/dev/null || echo "$p"
}

# The first diagnostic of a compiler log: its first error (or undefined
# reference), else its first warning, else its first line.
vendor_first_diag() {
    d=$(grep -m1 -E ': (fatal error|error):|undefined reference' "$1")
    [ -n "$d" ] || d=$(grep -m1 -E ': warning:' "$1")
    [ -n "$d" ] || d=$(head -n1 "$1")
    echo "$d"
}

# Jobs to run at once: the CPUs, at least 2.
vendor_jobs() {
    n=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
    [ "$n" -ge 2 ] 2>/dev/null || n=2
    echo "$n"
}

# Runs every $1/*.job script, vendor_jobs() at a time.
vendor_run_jobs() {
    ls "$1"/*.job 2>/dev/null | xargs -r -n1 -P"$(vendor_jobs)" sh
}

# Runs a program with a time limit where timeout(1) exists.
vendor_timeout() {
    if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi
}

# The header's diagnostics, from the logs given, one line per warning flag
# (errors: per message, names in quotes elided), with the lines it was seen
# at: in the header, and in whole_api.c where a header macro expands there.
vendor_header_diags() {
    grep -h -E '(tsc_timer\.h|whole_api\.c):[0-9]+:[0-9]+: (fatal error|error|warning):' "$@" |
        sed -E 's|^.*/||' |
        awk '{
            split($1, p, ":")
            msg = $0; sub(/^[^ ]+ (fatal error|error|warning): /, "", msg)
            if (match(msg, / \[-W[^]]*\]$/)) {
                key = substr(msg, RSTART + 2, RLENGTH - 3); sub(/ \[-W[^]]*\]$/, "", msg)
                sub(/^-Werror,/, "", key); sub(/^-Werror=/, "-W", key)
            } else {
                key = msg; gsub(/(\047|\342\200\230)[^\047]*(\047|\342\200\231)/, "X", key)
                key = "error: " key
            }
            printf "%s\t%s\t%s\t%s\n", key, p[1], p[2], msg
        }' |
        sort -t "$(printf '\t')" -k1,1 -k2,2r -k3,3n |
        awk -F '\t' '
        function flush() {
            if (key == "") return
            printf "  %s: tsc_timer.h:%s", key, (h == "" ? " -" : h)
            if (w != "") printf "; whole_api.c:%s", w
            printf "\n      e.g. %s\n", ex
        }
        $1 != key { flush(); key = $1; ex = $4; h = ""; w = ""; last = "" }
        $2 SUBSEP $3 != last {
            last = $2 SUBSEP $3
            if ($2 == "tsc_timer.h") h = h " " $3; else w = w " " $3
        }
        END { flush() }'
}
