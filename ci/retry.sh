#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command that fetches from a mirror or registry (apt-get, npm), and
# runs it again when it fails for a reason a later try can change (a mirror
# in mid-sync, a dropped connection): up to 4 tries, 15 s apart, doubling.
# An answer no retry changes (no such package, no source package, npm 404)
# ends it at once. A failure prints what failed, the exit status and the
# last 40 lines of the mirror's answer, and exits with the command's status.
# Usage: ci/retry.sh WHAT COMMAND [ARG...]
#   WHAT names the fetch in the failure message ("apt-get install cpio").
# The command's output is shown as usual when it succeeds.
# TSC_RETRY_TRIES and TSC_RETRY_PAUSE override 4 and 15 (seconds).
set -u
what=$1; shift
tries=${TSC_RETRY_TRIES:-4}
pause=${TSC_RETRY_PAUSE:-15}
log=$(mktemp "${TMPDIR:-/tmp}/tsc-retry.XXXXXX")
trap 'rm -f "$log"' EXIT
n=1
while :; do
    "$@" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        cat "$log"
        exit 0
    fi
    reason="transient"
    if grep -Eq "Unable to locate package|has no installation candidate|E404|404 Not Found|Can't find a source|Unable to find a source package" "$log"; then
        reason="permanent: no retry can change this answer"
    fi
    if [ "$reason" != transient ] || [ $n -ge "$tries" ]; then
        [ "$reason" = transient ] && reason="transient, $n tries"
        echo "retry: $what FAILED (exit $rc, $reason): $*" >&2
        echo "---- the last 40 lines of its output ----" >&2
        tail -n 40 "$log" >&2
        exit $rc
    fi
    echo "retry: $what failed (exit $rc), try $((n + 1)) of $tries in ${pause}s" >&2
    tail -n 3 "$log" | sed 's/^/retry:   /' >&2
    sleep "$pause"
    pause=$((pause * 2))
    n=$((n + 1))
done
