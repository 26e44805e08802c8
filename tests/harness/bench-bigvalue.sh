#!/usr/bin/env bash
# bench-bigvalue.sh - peak RSS of reckon check and repair over a table with
# one large text value (SIZE bytes, default 1000000000), both sides equal
# and the target's copy one byte longer, repaired by time and then, the
# damage made again, by key segment (check and repair without --time),
# out of band and in the row (docs/performance.md "Large values").  Needs
# several GB of memory and disk; not part of make check.
#
#   SIZE=bytes bash tests/harness/bench-bigvalue.sh RECKON_BIN
#
# Prints one line per run: what ran, the seconds, the peak RSS in MiB and
# its ratio to SIZE.  The check runs read COPY binary (the default) and COPY
# text, with the large-value bound at its default (the value sent out of
# band: read back by ctid in chunks after the COPY) and past SIZE
# (RECKON_LARGE_VALUE: the value in its COPY row, as before; on COPY text
# the row's encoding is then built whole first).
set -euo pipefail
# shellcheck source=bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
SIZE=${SIZE:-1000000000}
[[ $SIZE =~ ^[0-9]+$ && $SIZE -ge 1000 ]] || { echo "bench: SIZE must be a whole number >= 1000" >&2; exit 2; }

big_table() {
	psql_b -d postgres -c "drop database if exists $1" -c "create database $1"
	psql_b -d "$1" <<-SQL
		create schema bench;
		create table bench.big (id bigint primary key, ts timestamptz not null, note text);
		alter table bench.big alter column note set storage external;
		insert into bench.big select g, '2026-03-02 00:00:00+00'::timestamptz + g * interval '1 minute', md5(g::text)
		from generate_series(2, 100) g;
		insert into bench.big values (1, '2026-03-02 00:00:30+00', repeat('x', $SIZE));
	SQL
}

# run NAME WANT_EXIT ENV... -- ARGS...: one reckon run under GNU time, the
# rows placed by PLACE (--time ts; empty: by key segment)
PLACE=(--time ts)
run() {
	local name=$1 want=$2 rc=0 t0 t1 envs=()
	shift 2
	while [[ $1 != -- ]]; do envs+=("$1"); shift; done
	shift
	t0=$(now)
	env "${envs[@]}" /usr/bin/time -f '%M' -o "$base/time.out" "$RECKON" "$@" \
		--source "host=$PGHOST port=$PGPORT user=$PGUSER dbname=bsrc" \
		--target "host=$PGHOST port=$PGPORT user=$PGUSER dbname=btgt" \
		--table bench.big --key id "${PLACE[@]}" >"$base/reckon.out" 2>"$base/reckon.err" || rc=$?
	t1=$(now)
	if [[ $rc -ne $want ]]; then
		echo "bench: $name exited with $rc, expected $want" >&2
		tail -n 20 "$base/reckon.err" >&2
		exit 1
	fi
	awk -v n="$name" -v s="$(elapsed "$t0" "$t1")" -v k="$(tail -n 1 "$base/time.out")" -v z="$SIZE" \
		'BEGIN { printf "| %s | %s | %.0f | %.2f |\n", n, s, k / 1024, k * 1024 / z }'
}

echo "# Large values: one text value of $SIZE bytes"
echo
bench_provenance SIZE
bench_environment
echo
echo "| run | seconds | peak RSS MiB | RSS / value size |"
echo "| --- | --- | --- | --- |"
big_table bsrc
big_table btgt
off=RECKON_LARGE_VALUE=$((SIZE + 1))
W=(--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-04T00:00:00Z)
run "check, equal, COPY binary, out of band" 0 -- check "${W[@]}" --report "$base/r1"
run "check, equal, COPY text, out of band" 0 RECKON_COPY_FORMAT=text -- check "${W[@]}" --report "$base/r2"
run "check, equal, COPY binary, in the row" 0 $off -- check "${W[@]}" --report "$base/r2b"
run "check, equal, COPY text, in the row, encoded whole first" 0 RECKON_COPY_FORMAT=text $off -- check "${W[@]}" --report "$base/r3"
psql_b -d btgt -c "update bench.big set note = note || 'y' where id = 1"
run "check, differing, COPY binary, out of band" 1 -- check "${W[@]}" --report "$base/r4" --rerun-list "$base/rerun.csv"
run "check, differing, COPY text, out of band" 1 RECKON_COPY_FORMAT=text -- check "${W[@]}" --report "$base/r5"
run "repair (rows), differing" 0 -- repair --rerun-list "$base/rerun.csv" --now 2026-03-04T00:00:00Z --execute
run "check after repair" 0 -- check "${W[@]}" --report "$base/r6"
# the same damage again, repaired by key segment (a check without --time)
psql_b -d btgt -c "update bench.big set note = note || 'z' where id = 1"
PLACE=()
run "check by key segment, differing" 1 -- check --report "$base/r7" --rerun-list "$base/krerun.csv"
run "repair (rows) by key segment, differing" 0 -- repair --rerun-list "$base/krerun.csv" --execute
run "check by key segment after repair" 0 -- check --report "$base/r8"
psql_b -d btgt -c "update bench.big set note = note || 'z' where id = 1"
run "repair (rows) by key segment, differing, in the row" 0 $off -- repair --rerun-list "$base/krerun.csv" --execute
run "check by key segment after that repair" 0 -- check --report "$base/r9"
