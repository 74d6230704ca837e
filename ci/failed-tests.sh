#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints the whole output of every test that failed in the last ctest run of
# a build tree, from ctest's own record (Testing/Temporary/LastTest.log),
# each under a line "==== failed test NAME", so that a lane's report shows
# which assertion failed however long the rest of its log is.
# Usage: ci/failed-tests.sh BUILD_DIR
set -u
t=$1/Testing/Temporary
[ -s "$t/LastTestsFailed.log" ] || { echo "==== failed tests: none recorded in $t"; exit 0; }
sed 's/^[0-9]*://' "$t/LastTestsFailed.log" | while read -r name; do
    echo "==== failed test $name: its output ($t/LastTest.log)"
    awk -v n="$name" '
        $0 ~ "^[0-9]+/[0-9]+ Testing: " && substr($0, index($0, ": ") + 2) == n { on = 1 }
        on { print }
        on && index($0, "\"" n "\" end time:") == 1 { on = 0 }' "$t/LastTest.log"
done
