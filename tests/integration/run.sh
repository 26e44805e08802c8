#!/usr/bin/env bash
# run.sh RECKON_BIN [PATTERN] - the integration suite against a real
# PostgreSQL: one private cluster for the whole run (tests/harness/pgcluster.sh),
# then every tests/integration/test_*.sh (only those whose name contains
# PATTERN, when given).  Prints PASS/FAIL/SKIP per case and finally
# "integration: N passed, N failed, N skipped"; exits 1 when anything failed
# (or nothing passed).  A skipped case said what it lacked (lib.sh: skip).
#
# RECKON_FAULTS is the binary with the test hooks (io/fault.h; default
# BUILD/tests/reckon-faults beside RECKON_BIN's BUILD/reckon): the cases that
# break a run on purpose use it, every other case the product's binary.
#
# RK_KEEP=1 keeps the scratch directory (and says where); RK_VERBOSE=1 shows
# the log of passing cases too; RK_CASE=WORD runs only the cases (test_
# functions) whose name contains WORD.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)

if [[ $# -lt 1 || $# -gt 2 ]]; then
	echo "usage: tests/integration/run.sh RECKON_BIN [PATTERN]" >&2
	exit 2
fi
reckon=$1
pattern=${2:-}
[[ $reckon == /* ]] || reckon=$PWD/$reckon
if [[ ! -x $reckon ]]; then
	echo "integration: $reckon is not an executable (build it with make)" >&2
	echo "integration: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
faults=${RECKON_FAULTS:-$(dirname "$reckon")/tests/reckon-faults}
[[ $faults == /* ]] || faults=$PWD/$faults

# Under /tmp, not the repo: the server runs as 'postgres' when we are root and
# must reach its directory; and a unix socket path must stay short.
base=$(mktemp -d /tmp/reckon-it.XXXXXX) || exit 3
chmod 0755 "$base"
pgdir=$base/pg

cleanup() {
	bash "$repo/tests/harness/pgcluster.sh" stop "$pgdir" || true
	if [[ ${RK_KEEP:-0} != 0 ]]; then
		echo "integration: scratch directory kept: $base" >&2
	else
		rm -rf "$base"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! bash "$repo/tests/harness/pgcluster.sh" start "$pgdir" >/dev/null; then
	echo "integration: cannot start the private PostgreSQL cluster" >&2
	echo "integration: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
# shellcheck source=/dev/null
. "$pgdir/env"

export RECKON=$reckon RECKON_FAULTS=$faults RK_LIB=$here/lib.sh RK_REPO=$repo
# Nothing from the caller's environment may steer libpq or the tests.
unset PGPASSWORD PGPASSFILE PGSERVICE PGSERVICEFILE PGOPTIONS PGTZ PGDATESTYLE PGCLIENTENCODING PGSSLMODE PGCONNECT_TIMEOUT
export LC_ALL=C.UTF-8 TZ=UTC
# The text the cases read is not wrapped for a terminal (80 columns when
# stdout is none): test_report_outputs:test_text_wrapped_for_a_terminal
# unsets it.
export COLUMNS=1000
# Under AddressSanitizer/UBSan a report must never pass for reckon's own exit
# status 1 ("differences found"), the sanitizers' default: give them their own.
export ASAN_OPTIONS="exitcode=97:abort_on_error=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="exitcode=98:print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

results=$base/results
: >"$results"
for file in "$here"/test_*.sh; do
	[[ -e $file ]] || continue
	name=$(basename "$file" .sh)
	[[ -z $pattern || $name == *"$pattern"* ]] || continue
	mkdir -p "$base/scratch/$name"
	before=$(wc -l <"$results")
	started=$SECONDS
	RK_SCRATCH=$base/scratch/$name bash -c '
		. "$RK_LIB" || exit 1
		. "$1" || exit 1
		rk_main "$1" "$2"' rk-"$name" "$file" "$results"
	rc=$?
	if [[ $(wc -l <"$results") -eq $before ]]; then
		echo "FAIL $name (the file did not run: status $rc)"
		echo "FAIL $name" >>"$results"
	fi
	echo "-- $name: $(( $(wc -l <"$results") - before )) cases in $((SECONDS - started))s"
done

passed=$(grep -c '^PASS ' "$results")
failed=$(grep -c '^FAIL ' "$results")
skipped=$(grep -c '^SKIP ' "$results")
if [[ $skipped -gt 0 ]]; then
	echo "skipped cases:"
	grep '^SKIP ' "$results" | sed 's/^SKIP /  /'
fi
if [[ $failed -gt 0 ]]; then
	echo "failed cases:"
	grep '^FAIL ' "$results" | sed 's/^FAIL /  /'
fi
echo "integration: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 && $passed -gt 0 ]]
