# shellcheck shell=bash
# bench-lib.sh - what the benchmarks share: the arguments, a private
# cluster stopped on exit, the sample table, and the timing helpers.
# Sourced by bench.sh, bench-drill.sh and bench-pushdown.sh after they set
# `set -euo pipefail`; it sets RECKON, N, REPEAT, here, repo and base.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)

if [[ $# -ne 1 ]]; then
	echo "usage: [N=rows] tests/harness/$(basename "$0") RECKON_BIN" >&2
	exit 2
fi
RECKON=$1
[[ $RECKON == /* ]] || RECKON=$PWD/$RECKON
[[ -x $RECKON ]] || { echo "bench: $RECKON is not an executable (run make)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: GNU time (/usr/bin/time) is missing: run tests/harness/deps.sh" >&2; exit 1; }
N=${N:-1000000}
[[ $N =~ ^[0-9]+$ && $N -ge 100 ]] || { echo "bench: N must be a whole number >= 100" >&2; exit 2; }
REPEAT=3

base=$(mktemp -d /tmp/reckon-bench.XXXXXX)
chmod 0755 "$base"
bench_cleanup() {
	bash "$here/pgcluster.sh" stop "$base/pg" || true
	rm -rf "$base"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

bash "$here/pgcluster.sh" start "$base/pg" >/dev/null
# shellcheck source=/dev/null
. "$base/pg/env"

psql_b() {
	PGOPTIONS="-c client_min_messages=warning ${PGOPTIONS:-}" "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"
}

# bench_table DB ROWS - (re)creates database DB holding bench.t: ROWS rows
# spread evenly over 2026-03-02 (bigint id, timestamptz ts, numeric(12,2)
# amount, text note), with an index on ts as an incremental load's table has.
bench_table() {
	psql_b -d postgres -c "drop database if exists $1 with (force)" -c "create database $1"
	psql_b -d "$1" <<-SQL
		create schema bench;
		create table bench.t (id bigint, ts timestamptz, amount numeric(12,2), note text);
		insert into bench.t
		select i,
		       timestamptz '2026-03-02 00:00:00+00' + (i - 1) * (interval '86400 seconds' / $2),
		       (i * 7919 % 1000000) / 100.0,
		       'note ' || md5(i::text)
		from generate_series(1::bigint, $2) i;
		create index on bench.t (ts);
		vacuum (freeze, analyze) bench.t;
	SQL
}

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
min() { printf '%s\n' "$@" | sort -g | head -n 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
