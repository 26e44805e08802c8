#!/bin/sh
# count-tests.sh - how many tests of each kind the tree holds, counted from
# the sources (make test-counts; docs/testing.md states no number that
# could go stale):
#   unit         cmocka_unit_test* entries of tests/unit/test_*.c
#   integration  test_* functions of tests/integration/test_*.sh (run.sh runs
#                exactly these)
#   extension    the REGRESS tests of src/ext/Makefile
#   fuzz         the harnesses tests/fuzz/fuzz_*.c
set -eu
cd "$(dirname "$0")/../.."
files() { ls $1 2>/dev/null | wc -l | tr -d ' '; }
unit=$(cat tests/unit/test_*.c | grep -o 'cmocka_unit_test[a-z_]*(' | wc -l | tr -d ' ')
cases=$(cat tests/integration/test_*.sh | grep -c '^test_[A-Za-z0-9_]*[[:space:]]*()' || true)
regress=$(sed -n 's/^REGRESS[[:space:]]*=//p' src/ext/Makefile | wc -w | tr -d ' ')
echo "unit: $unit tests in $(files 'tests/unit/test_*.c') files"
echo "integration: $cases cases in $(files 'tests/integration/test_*.sh') files"
echo "extension: $regress REGRESS tests"
echo "fuzz: $(files 'tests/fuzz/fuzz_*.c') targets"
