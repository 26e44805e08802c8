#!/usr/bin/env bash
# bench-delta.sh RECKON_BIN - reckon check of a Delta table against the same
# rows in PostgreSQL, beside the floor measured in the same run, and a
# check of the last day of a 30-day Delta table (files skipped). Writes
# reports/bench/delta-N.md.
#
#   - the table: bench.t of N rows (env N, default 5000000) over one day
#     (bigint id, timestamptz ts, numeric(12,2) amount, text note) in
#     PostgreSQL, and the same rows as a Delta table of 24 files, one per
#     hour (written by tests/harness/deltawrite.c: DuckDB writes the Parquet
#     files from a CSV export);
#   - the floor: DuckDB itself reading the same files and columns and
#     summing its built-in hash() of every hashed column per hourly window
#     (the least work that touches every value of the Delta side);
#   - clean: PostgreSQL source (its digests pushed down when the extension
#     is there) against the Delta target; damaged: the same with 10 rows of
#     the source damaged in 6 windows (bench_damage), so the drilldown
#     reads the damaged windows' files again;
#   - 30 days: the same N rows spread over 30 days in 30 daily files; a
#     check of the last day reads one file.
# Each timing is the best of REPEAT runs (default 3 here).
set -euo pipefail
REPEAT=${REPEAT:-3}
# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

DW=$(dirname "$RECKON")/tests/rk-deltawrite
[[ -x $DW ]] || { echo "bench: $DW is missing (make $(dirname "$RECKON")/tests/rk-deltawrite)" >&2; exit 1; }
out=$repo/reports/bench/delta-$N.md
COLS="{'id':'BIGINT','ts':'TIMESTAMPTZ','amount':'DECIMAL(12,2)','note':'VARCHAR'}"

echo "bench-delta: $N rows in PostgreSQL" >&2
bench_table dl_src "$N"
pushdown=()
if bench_ext dl_src 2>/dev/null; then pushdown=(--pushdown); fi
psql_b -d postgres -c "drop database if exists dl_dmg with (force)" -c "create database dl_dmg template dl_src"
bench_damage dl_dmg "$N"

echo "bench-delta: the same rows as a Delta table of 24 files" >&2
PGOPTIONS="-c TimeZone=UTC" psql_b -d dl_src -c "\\copy (select * from bench.t order by ts) to '$base/t.csv' with (format csv, header)"
"$DW" "$base/lake" create 24 "SELECT * FROM read_csv('$base/t.csv', header = true, columns = $COLS)"
rm -f "$base/t.csv"
files=$(ls "$base"/lake/*.parquet | sed "s|.*|'&'|" | paste -sd, -)
bytes=$(cat "$base"/lake/*.parquet | wc -c)

floor_sql="SELECT count(*) || ' ' || sum(h) FROM (SELECT date_trunc('hour', ts) AS w, count(*) AS n,
  sum(hash(id)::HUGEINT + hash(ts)::HUGEINT + hash(amount)::HUGEINT + hash(note)::HUGEINT) AS h FROM read_parquet([$files]) GROUP BY w)"

# delta_reckon SRC_DB WANT_EXIT [OPTION...] - bench_reckon's check with the
# Delta table as the target: "seconds peak_rss_kib"
delta_reckon() {
	local src=$1 want=$2 t0 t1 rc=0
	shift 2
	t0=$(now)
	/usr/bin/time -f '%M' -o "$base/time.out" "$RECKON" check \
		--source "host=$PGHOST port=$PGPORT user=$PGUSER dbname=$src" --target "delta:$base/lake" "$@" \
		--table bench.t --key id --time ts --sum amount \
		--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h \
		--now 2026-03-04T00:00:00Z --report "$base/report" >"$base/reckon.out" 2>"$base/reckon.err" || rc=$?
	t1=$(now)
	if [[ $rc -ne $want ]]; then
		echo "bench: reckon check exited with $rc, expected $want" >&2
		tail -n 20 "$base/reckon.err" >&2
		exit 1
	fi
	echo "$(elapsed "$t0" "$t1") $(tail -n 1 "$base/time.out")"
}

floor=() clean=() dmg=() pgonly=()
for ((r = 0; r < REPEAT; r++)); do
	t0=$(now)
	"$DW" - sql "$floor_sql" >/dev/null
	floor+=("$(elapsed "$t0" "$(now)")")
	clean+=("$(delta_reckon dl_src 0 "${pushdown[@]}" | cut -d' ' -f1)")
	jq -c .read "$base/report/summary.json" >"$base/read.clean"
	dmg+=("$(delta_reckon dl_dmg 1 "${pushdown[@]}" | cut -d' ' -f1)")
	jq -c .read "$base/report/summary.json" >"$base/read.dmg"
	pgonly+=("$(bench_reckon dl_src dl_src 0 "${pushdown[@]}" | cut -d' ' -f1)")
done
f=$(min "${floor[@]}") c=$(min "${clean[@]}") d=$(min "${dmg[@]}") p=$(min "${pgonly[@]}")

echo "bench-delta: $N rows over 30 days in 30 files" >&2
psql_b -d dl_src -c "create table bench.t30 as select id, timestamptz '2026-02-01 00:00:00+00' + (id - 1) * (interval '30 days' / $N) as ts, amount, note from bench.t"
PGOPTIONS="-c TimeZone=UTC" psql_b -d dl_src -c "\\copy (select * from bench.t30 order by ts) to '$base/t30.csv' with (format csv, header)"
"$DW" "$base/lake30" create 30 "SELECT * FROM read_csv('$base/t30.csv', header = true, columns = $COLS)"
rm -f "$base/t30.csv"
bytes30=$(cat "$base"/lake30/*.parquet | wc -c)
t0=$(now)
"$RECKON" check --source "host=$PGHOST port=$PGPORT user=$PGUSER dbname=dl_src" --target "delta:$base/lake30" \
	--table bench.t30 --key id --time ts --sum amount --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z \
	--window 1h --now 2026-03-04T00:00:00Z --report "$base/r30" "${pushdown[@]}" >/dev/null 2>&1 ||
	{ echo "bench: the 30-day check failed" >&2; exit 1; }
last=$(elapsed "$t0" "$(now)")
read30_files=$(jq .read.target.files "$base/r30/summary.json")
read30_bytes=$(jq .read.target.bytes "$base/r30/summary.json")

mkdir -p "$(dirname "$out")"
{
	echo "# bench-delta: $N rows, a Delta table against PostgreSQL"
	echo
	bench_provenance N REPEAT
	echo "- machine: $(nproc) cores, shared with other work; best of $REPEAT runs each"
	echo "- PostgreSQL side: ${pushdown[*]:-streamed} (the reckon extension $([[ ${#pushdown[@]} -gt 0 ]] && echo was || echo was not) there)"
	echo "- Delta table: 24 files, $bytes bytes"
	echo
	echo "| run | seconds | ratio |"
	echo "| --- | ---: | ---: |"
	echo "| floor: DuckDB summing hash() of id, ts, amount, note per hour over the 24 files | $f | 1.00 |"
	echo "| reckon check, PostgreSQL against Delta, clean | $c | $(ratio "$c" "$f") × floor |"
	echo "| reckon check, PostgreSQL against Delta, damaged (10 rows in 6 windows) | $d | $(ratio "$d" "$c") × clean |"
	echo "| for reference: reckon check, PostgreSQL against PostgreSQL, clean | $p | $(ratio "$p" "$f") × floor |"
	echo
	echo "Files and bytes the Delta side read (summary.json): clean $(cat "$base/read.clean"), damaged $(cat "$base/read.dmg")."
	echo
	echo "## The last day of a 30-day table"
	echo
	echo "30 daily files, $bytes30 bytes; reckon check of 2026-03-02 (24 hourly windows): $last s,"
	echo "read $read30_files of 30 files, $read30_bytes bytes: $(awk -v a="$read30_bytes" -v b="$bytes30" 'BEGIN { printf "%.1f", 100 * a / b }') % of the table's bytes."
} >"$out"
cat "$out"
