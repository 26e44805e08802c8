#!/bin/sh
# fuzz.sh SECONDS BUILD NAME... - runs each libFuzzer harness
# BUILD/fuzz/fuzz_NAME for SECONDS seconds.
#
# Each run first replays the committed seeds (tests/fuzz/corpus/NAME) and
# what earlier runs found (BUILD/fuzz/corpus/NAME, where new inputs go), then
# mutates them.  A crash, a sanitizer report, a leak, a timeout or a failed
# property stops that harness: the input is saved as
# BUILD/fuzz/artifacts/NAME-crash-... (replay it with `BIN FILE`) and the
# harness counts as failed.  The last line is "fuzz: N passed, N failed".
# FUZZ_SEED, when set, is libFuzzer's -seed (make check sets one, so its gate
# run mutates the same way everywhere); unset, libFuzzer draws one.
set -u

secs=$1
build=$2
shift 2
passed=0
failed=0
log=$(mktemp "${TMPDIR:-/tmp}/reckon-fuzz.XXXXXX") || exit 3
trap 'rm -f "$log"' EXIT
trap 'exit 130' INT TERM

for name in "$@"; do
	bin=$build/fuzz/fuzz_$name
	seeds=tests/fuzz/corpus/$name
	work=$build/fuzz/corpus/$name
	arts=$build/fuzz/artifacts
	if [ ! -d "$seeds" ]; then
		echo "fuzz: $name: no seed corpus $seeds (every harness commits one)" >&2
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$work" "$arts"
	set -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$arts/$name-"
	[ -f "tests/fuzz/$name.dict" ] && set -- "$@" -dict="tests/fuzz/$name.dict"
	[ -n "${FUZZ_SEED:-}" ] && set -- "$@" -seed="$FUZZ_SEED"
	"$bin" "$@" "$work" "$seeds" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ "$rc" -eq 0 ]; then
		seed=$(sed -n 's/^INFO: Seed: *//p' "$log" | head -1)
		echo "fuzz: $name: ok, ${execs:-?} inputs in ${secs}s (seed ${seed:-?}), corpus $(ls "$work" | wc -l) + $(ls "$seeds" | wc -l) seeds"
		passed=$((passed + 1))
	else
		# the report: from the sanitizer's or libFuzzer's first line on
		sed -n '/^==[0-9]*==\|^INFO: a leak\|^.*runtime error:\|^==.*ERROR\|deadly signal\|^SUMMARY/,$p' "$log" |
			head -60 >&2
		echo "fuzz: $name: FAILED (exit $rc, seed $(sed -n 's/^INFO: Seed: *//p' "$log" | head -1)); the input is in $arts/$name-*; replay: $bin FILE" >&2
		failed=$((failed + 1))
	fi
done

echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
