#!/bin/sh
# run-unit.sh BIN... - runs each cmocka unit-test binary and adds up the
# results.  The last line is "unit: N passed, N failed, N skipped"; the exit status is
# non-zero when any test failed or a binary crashed before reporting.
#
# cmocka prints, per group, "[  PASSED  ] N test(s)." and, when some fail,
# "[  FAILED  ] N test(s), listed below:", and for tests that called
# skip() "[  SKIPPED ] N test(s), listed below:"; all three are counted.  A binary that
# exits non-zero without a FAILED count (a crash, a sanitizer report) counts
# as one failed test.
set -u

passed=0
failed=0
skipped=0
out=$(mktemp "${TMPDIR:-/tmp}/reckon-unit.XXXXXX") || exit 3
trap 'rm -f "$out"' EXIT
trap 'exit 130' INT TERM

for bin in "$@"; do
	name=$(basename "$bin")
	if [ ! -x "$bin" ]; then
		echo "unit: $name: not an executable: $bin" >&2
		failed=$((failed + 1))
		continue
	fi
	CMOCKA_MESSAGE_OUTPUT=stdout "$bin" >"$out" 2>&1
	rc=$?
	cat "$out"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\..*/\1/p' "$out" | awk '{ s += $1 } END { print s + 0 }')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$out" | awk '{ s += $1 } END { print s + 0 }')
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9][0-9]*\) test(s).*/\1/p' "$out" | awk '{ s += $1 } END { print s + 0 }')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "unit: $name exited with status $rc without reporting a failed test" >&2
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
done

echo "unit: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
