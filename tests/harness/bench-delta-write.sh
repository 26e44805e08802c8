#!/usr/bin/env bash
# bench-delta-write.sh RECKON_BIN - reckon's Delta writer (make bench-delta,
# after bench-delta.sh), each beside DuckDB writing the same rows to Parquet
# in the same run.  Writes reports/bench/delta-write-N.md.
#
#   - load: `reckon load --strategy interval` of one day of N_LOAD rows
#     (env, default 1000000; bench.t of bench-lib.sh) from PostgreSQL into a
#     new Delta table: one commit, one file.  The floor: DuckDB writing the
#     same rows (from a CSV export) to one Parquet file with the same
#     compression (COPY ... (FORMAT parquet, COMPRESSION snappy)).
#   - repair: a Delta table of N rows (env, default 5000000) in 24 hourly
#     files, damaged in 4 hours (the middle row deleted in hours 3 and 9, its
#     amount changed in hours 14 and 19, each by rewriting that hour's file:
#     4 commits of tests/harness/deltawrite.c), found by reckon check (the
#     rerun list), then `reckon repair --execute` of the list: one commit
#     per hour (a missing row: a new file of it; a changed one: the hour's
#     file removed and added back rewritten, and a file of the source's
#     row), then the hour checked again.  The floor: DuckDB writing the
#     rows of the files the repair added to as many Parquet files.
# Each timing is the best of REPEAT runs (default 3 here); the damaged table
# is restored from a copy before each repair.
set -euo pipefail
REPEAT=${REPEAT:-3}
N=${N:-5000000}
N_LOAD=${N_LOAD:-1000000}
# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

DW=$(dirname "$RECKON")/tests/rk-deltawrite
[[ -x $DW ]] || { echo "bench: $DW is missing (make $(dirname "$RECKON")/tests/rk-deltawrite)" >&2; exit 1; }
[[ $N_LOAD =~ ^[0-9]+$ && $N_LOAD -ge 100 ]] || { echo "bench: N_LOAD must be a whole number >= 100" >&2; exit 2; }
out=$repo/reports/bench/delta-write-$N.md
COLS="{'id':'BIGINT','ts':'TIMESTAMPTZ','amount':'DECIMAL(12,2)','note':'VARCHAR'}"
src() { echo "host=$PGHOST port=$PGPORT user=$PGUSER dbname=$1"; }
TABLE=(--table bench.t --key id --time ts --sum amount)

# --- the interval load ---------------------------------------------------------
echo "bench-delta-write: $N_LOAD rows in PostgreSQL, loaded into a new Delta table" >&2
bench_table dw_load "$N_LOAD"
PGOPTIONS="-c TimeZone=UTC" psql_b -d dw_load -c "\\copy (select * from bench.t order by ts) to '$base/load.csv' with (format csv, header)"
load=() lfloor=()
for ((r = 0; r < REPEAT; r++)); do
	rm -rf "$base/lake-load" "$base/floor.parquet"
	t0=$(now)
	"$RECKON" load --source "$(src dw_load)" --target "delta:$base/lake-load" "${TABLE[@]}" --strategy interval \
		--interval-start 2026-03-02T00:00:00Z --interval-end 2026-03-03T00:00:00Z >"$base/load.out" 2>"$base/load.err" ||
		{ echo "bench: reckon load failed" >&2; tail -n 20 "$base/load.err" >&2; exit 1; }
	load+=("$(elapsed "$t0" "$(now)")")
	t0=$(now)
	"$DW" - sql "COPY (SELECT * FROM read_csv('$base/load.csv', header = true, columns = $COLS))
		TO '$base/floor.parquet' (FORMAT parquet, COMPRESSION snappy)" >/dev/null
	lfloor+=("$(elapsed "$t0" "$(now)")")
done
grep -q "rows_written=$N_LOAD " "$base/load.out" || { echo "bench: the load wrote $(cat "$base/load.out")" >&2; exit 1; }
lbytes=$(cat "$base"/lake-load/*.parquet | wc -c)
fbytes=$(wc -c <"$base/floor.parquet")
rm -f "$base/load.csv"
psql_b -d postgres -c "drop database dw_load with (force)"
l=$(min "${load[@]}") lf=$(min "${lfloor[@]}")

# --- the repair of 4 damaged hours ---------------------------------------------
echo "bench-delta-write: $N rows as a Delta table of 24 hourly files, 4 hours damaged" >&2
bench_table dw_src "$N"
PGOPTIONS="-c TimeZone=UTC" psql_b -d dw_src -c "\\copy (select * from bench.t order by ts) to '$base/t.csv' with (format csv, header)"
"$DW" "$base/lake" create 24 "SELECT * FROM read_csv('$base/t.csv', header = true, columns = $COLS)"
rm -f "$base/t.csv"
for h in 3 9 14 19; do
	f=$(grep -o '"add":{"path":"[^"]*"' "$base/lake/_delta_log/00000000000000000000.json" | sed -n "$((h + 1))p" | sed 's/.*"path":"//; s/"$//')
	mid=$((N / 24 * h + N / 48))
	if [[ $h == 14 || $h == 19 ]]; then
		q="SELECT id, ts, CASE WHEN id = $mid THEN amount + 1 ELSE amount END AS amount, note FROM read_parquet('$base/lake/$f') ORDER BY ts"
	else
		q="SELECT * FROM read_parquet('$base/lake/$f') WHERE id <> $mid ORDER BY ts"
	fi
	"$DW" "$base/lake" replace DELETE "$h" "$q"
done
rm -rf "$base/lake.damaged"
cp -R "$base/lake" "$base/lake.damaged"
"$RECKON" check --source "$(src dw_src)" --target "delta:$base/lake" "${TABLE[@]}" \
	--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-04T00:00:00Z \
	--rerun-list "$base/rerun.csv" >/dev/null 2>&1 && { echo "bench: the damaged table checked clean" >&2; exit 1; }
[[ $(($(wc -l <"$base/rerun.csv") - 1)) == 4 ]] || { echo "bench: the rerun list is not 4 hours:" >&2; cat "$base/rerun.csv" >&2; exit 1; }
rep=() rfloor=()
for ((r = 0; r < REPEAT; r++)); do
	rm -rf "$base/lake" "$base"/floor-*.parquet
	cp -R "$base/lake.damaged" "$base/lake"
	t0=$(now)
	/usr/bin/time -f '%M' -o "$base/time.out" "$RECKON" repair --source "$(src dw_src)" --target "delta:$base/lake" \
		"${TABLE[@]}" --rerun-list "$base/rerun.csv" --execute >"$base/repair.out" 2>"$base/repair.err" ||
		{ echo "bench: reckon repair failed" >&2; tail -n 20 "$base/repair.err" >&2; exit 1; }
	rep+=("$(elapsed "$t0" "$(now)")")
	rss=$(tail -n 1 "$base/time.out")
	added=$(cat "$base"/lake/_delta_log/0000000000000000000{5,6,7,8}.json | grep -o '"add":{"path":"[^"]*"' |
		sed "s|.*\"path\":\"|$base/lake/|; s|\"$||")
	t0=$(now)
	k=0
	for f in $added; do
		"$DW" - sql "COPY (SELECT * FROM read_parquet('$f')) TO '$base/floor-$k.parquet' (FORMAT parquet, COMPRESSION snappy)" >/dev/null
		k=$((k + 1))
	done
	rfloor+=("$(elapsed "$t0" "$(now)")")
done
grep -q "repaired 4 of 4 intervals" "$base/repair.out" || { echo "bench: repair said:" >&2; cat "$base/repair.out" >&2; exit 1; }
grep -q "4 match" "$base/repair.out" || { echo "bench: the re-checks differ:" >&2; cat "$base/repair.out" >&2; exit 1; }
rrows=$("$DW" - sql "SELECT count(*) FROM read_parquet([$(printf "'%s'," $added | sed 's/,$//')])")
nadded=$(echo "$added" | wc -w)
commits=$(($(ls "$base"/lake/_delta_log/*.json | wc -l) - $(ls "$base"/lake.damaged/_delta_log/*.json | wc -l)))
removed=$(cat "$base"/lake/_delta_log/0000000000000000000{5,6,7,8}.json | grep -c '"remove"' || true)
"$RECKON" repair --source "$(src dw_src)" --target "delta:$base/lake" "${TABLE[@]}" --rerun-list "$base/rerun.csv" \
	--execute >"$base/again.out" 2>&1 || { echo "bench: the second repair failed" >&2; exit 1; }
again=$(($(ls "$base"/lake/_delta_log/*.json | wc -l) - $(ls "$base"/lake.damaged/_delta_log/*.json | wc -l)))
rp=$(min "${rep[@]}") rf=$(min "${rfloor[@]}")

mkdir -p "$(dirname "$out")"
{
	echo "# bench-delta-write: reckon's Delta writer against DuckDB writing Parquet"
	echo
	bench_provenance N N_LOAD REPEAT
	bench_environment "shared with other work; best of $REPEAT runs each"
	echo
	echo "| run | seconds | ratio |"
	echo "| --- | ---: | ---: |"
	echo "| floor: DuckDB writing the $N_LOAD rows (from CSV) to one Parquet file | $lf | 1.00 |"
	echo "| reckon load --strategy interval of $N_LOAD rows from PostgreSQL into a new Delta table | $l | $(ratio "$l" "$lf") × floor |"
	echo "| floor: DuckDB writing the $nadded files the repair added ($rrows rows) to Parquet | $rf | 1.00 |"
	echo "| reckon repair --execute of 4 damaged hours of $N rows (check, plan, commit, re-check each) | $rp | $(ratio "$rp" "$rf") × floor |"
	echo
	echo "The load's table: one file, $lbytes bytes (DuckDB's own file: $fbytes bytes)."
	echo "The repair: $commits commits, $removed of the 24 files removed (each added back rewritten), $nadded files"
	echo "added, peak RSS $rss KiB;"
	echo "the same list again made $((again - commits)) commits (every hour already matched)."
	echo
	echo "The load's time includes reading the rows from PostgreSQL and the commit; the floor writes"
	echo "from a local CSV file.  The repair's time includes, per hour, the check on the version it"
	echo "writes (both sides read), the source's rows of the differing keys, the plan (the hour's file"
	echo "read), the rewrite, and the re-check."
} >"$out"
cat "$out"
