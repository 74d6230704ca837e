#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the commands given, one after another, each with its output in
# build-ci/lane-NAME/NN.log and a line "NN SECONDSs ok|FAILED COMMAND" in
# build-ci/lane-NAME/results; goes on after a failure. .ci/run starts two,
# beside the native stages, and reports them at the end.
# Usage: ci/lane.sh NAME COMMAND...
set -u
cd "$(dirname "$0")/.."
d=build-ci/lane-$1
shift
rm -rf "$d"; mkdir -p "$d"
n=0
for s in "$@"; do
    n=$((n + 1)); t=$SECONDS; rc=0
    bash -c "$s" >"$d/$(printf %02d $n).log" 2>&1 </dev/null || rc=$?
    printf '%02d %ds %s %s\n' $n $((SECONDS - t)) "$([ $rc = 0 ] && echo ok || echo FAILED)" "$s" \
        >>"$d/results"
done
