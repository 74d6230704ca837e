#!/bin/sh
# SPDX-License-Identifier: MIT
# ci/failed-tests.sh, as a CI lane uses it after ctest failed: it prints the
# whole output of each failed test (here: 400 lines, then the assertion) and
# nothing of a test that passed.
# Usage: ci_failed_tests.sh SOURCE_DIR SCRATCH_DIR
set -eu
src=$1; work=$2
rm -rf "$work"; mkdir -p "$work/p"
cat >"$work/p/CMakeLists.txt" <<'EOC'
cmake_minimum_required(VERSION 3.14)
project(report LANGUAGES NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "echo passing-output")
add_test(NAME fails COMMAND sh -c "seq 1 400; echo 'test_x.c:12: expected 3, got 4'; exit 1")
EOC
cmake -S "$work/p" -B "$work/b" >/dev/null
if ctest --test-dir "$work/b" >/dev/null 2>&1; then echo "FAIL: the failing test passed"; exit 1; fi
out=$(sh "$src/ci/failed-tests.sh" "$work/b")
ok=1
for want in "==== failed test fails" "^1$" "^400$" "test_x.c:12: expected 3, got 4"; do
    printf '%s\n' "$out" | grep -q -- "$want" || { echo "FAIL: no line matching '$want'"; ok=0; }
done
printf '%s\n' "$out" | grep -q passing-output && { echo "FAIL: a passed test's output shown"; ok=0; }
[ $ok = 1 ] || { printf '%s\n' "$out" | tail -n 20; exit 1; }
echo "ci_failed_tests: the failed test's whole output, and only its"
