#!/usr/bin/env bash
# bench-instr.sh RECKON_BIN - make bench-instr: instructions per row, counted
# by callgrind, for what the wall-clock benchmarks time.  On a shared machine
# a run's seconds swing by a third (docs/performance.md); instruction counts
# do not, so this is the benchmark to judge a per-row change by.
#
# The table of bench.sh (bench.t, env N rows per side, default 100000) in
# two databases of a private cluster, with the reckon extension.  Counted:
#
#   scan floor   the server, one backend in single-user mode (the cluster
#                stopped), for `count(*), sum(amount) GROUP BY window`: the
#                floor of docs/performance.md and make bench-pushdown
#   scan, one    the same without GROUP BY, over the whole range: the scan
#   group        and the sum alone, what no per-window statement can beat
#   pushdown     the same backend for reckon's own pushdown statement
#                (reckon_windows), as reckon check --pushdown sends it
#   grouped      reckon_window grouped by window, the statement reckon
#                sends to a database with extension 1.1
#   stream       reckon check (streaming) itself, the client only (libpq and
#                libc included; the servers are not counted), reading binary
#                COPY (its default for these columns) and COPY text
#                (RECKON_COPY_FORMAT=text)
#   copy out     the server's side of streaming: one backend running the
#                COPY of the compared columns to /dev/null, text and binary
#   psql         the copy floor's client: psql's \copy of the same to
#                /dev/null, text and binary
#   drilldown    reckon check's client against a target with every 50th
#                row changed, less a clean check, per row its drilldown got
#                (without the diagnosis, RECKON_DIAGNOSE=off)
#   diagnosis    the client's instructions of a damaged check with the
#                diagnosis (likely causes, warnings) over the same without:
#                4 rows damaged in 4 windows (bench-drill's target), a gap
#                of 2 % of the rows, every 50th row changed.  The cluster
#                keeps commit times, so the missing keys' are read.
#
# Each count less that of the same statement over no rows, per row.  Writes
# reports/bench/instr-<N>.md.  Needs valgrind (apt-get install valgrind).
set -euo pipefail

command -v valgrind >/dev/null || { echo "bench-instr: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }
N=${N:-100000}
export RK_PG_COMMIT_TS=${RK_PG_COMMIT_TS:-on}
# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
echo "bench-instr: loading $N rows per side" >&2
for db in bench_src bench_tgt; do
	bench_table "$db" "$N"
	bench_ext "$db"
done

DAY="ts >= '2026-03-02 00:00:00+00' and ts < '2026-03-03 00:00:00+00'"
NONE="ts >= '2026-03-04 00:00:00+00' and ts < '2026-03-05 00:00:00+00'"
ARGS=(check --source "host=$PGHOST port=$PGPORT user=$PGUSER dbname=bench_src"
	--target "host=$PGHOST port=$PGPORT user=$PGUSER dbname=bench_tgt"
	--table bench.t --key id --time ts --sum amount --columns id,ts,amount,note --window 1h
	--now 2026-03-06T00:00:00Z)

# reckon's pushdown statement, from its debug log, without COPY ( ... ) TO STDOUT
stmt() {
	"$RECKON" "${ARGS[@]}" --from "$1" --to "$2" --pushdown -vv 2>&1 >/dev/null |
		sed -n 's/^reckon: debug: window digests of bench\.t on source: COPY (\(.*\)) TO STDOUT$/\1/p'
}
PUSH_DAY=$(stmt 2026-03-02T00:00:00Z 2026-03-03T00:00:00Z)
PUSH_NONE=$(stmt 2026-03-04T00:00:00Z 2026-03-05T00:00:00Z)
[[ -n $PUSH_DAY && -n $PUSH_NONE ]] || { echo "bench-instr: reckon's pushdown statement is not in its debug log" >&2; exit 1; }

# collected FILE - the instruction count callgrind reported in FILE
collected() { sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$1" | tail -n 1; }
# per_row DAY_COUNT NONE_COUNT ROWS - the day's count less the empty range's,
# per row; a run that failed (no count) stops the benchmark
per_row() {
	[[ -n $1 && -n $2 ]] || { echo "bench-instr: a counted run failed (see above)" >&2; exit 1; }
	awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.0f", (a - b) / n }'
}
DAY_ARGS=(--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z)
NONE_ARGS=(--from 2026-03-04T00:00:00Z --to 2026-03-05T00:00:00Z)

# client FROM_TO... - instructions of reckon check (streaming)
client() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$RECKON" "${ARGS[@]}" "$@" \
		>/dev/null 2>"$base/cg.err" || [[ $? -le 1 ]] || { cat "$base/cg.err" >&2; return 1; }
	collected "$base/cg.err"
}
stream=$(per_row "$(client "${DAY_ARGS[@]}")" "$(client "${NONE_ARGS[@]}")" $((2 * N)))
stream_text=$(per_row "$(RECKON_COPY_FORMAT=text client "${DAY_ARGS[@]}")" \
	"$(RECKON_COPY_FORMAT=text client "${NONE_ARGS[@]}")" $((2 * N)))

# the drilldown (client): a target with every 50th row of the day changed,
# so that every slice of every window differs and the drilldown collects
# every row of the day, then reads the windows again for the copies of the
# damaged keys (too many to ask the database for by value): its
# instructions less a clean check's, per row its passes got
psql_b -d postgres -c "create database bench_dmg template bench_tgt"
psql_b -d bench_dmg -c "update bench.t set note = note || '!' where id % 50 = 0" -c "vacuum (freeze, analyze) bench.t"
# drill_client DB - instructions of reckon check against target DB
drill_client() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$RECKON" "${ARGS[@]/dbname=bench_tgt/dbname=$1}" \
		"${DAY_ARGS[@]}" --report "$base/drep" >/dev/null 2>"$base/cg.err" || [[ $? -le 1 ]] ||
		{ cat "$base/cg.err" >&2; return 1; }
	collected "$base/cg.err"
}
drill_total=$(RECKON_DIAGNOSE=off drill_client bench_dmg)
drill_rows=$(jq .drilldown.rows_reread "$base/drep/summary.json")
drill=$(per_row "$drill_total" "$(client "${DAY_ARGS[@]}")" "$drill_rows")

# the diagnosis (client): a damaged check with it over the same without
psql_b -d postgres -c "create database bench_dmg4 template bench_tgt" -c "create database bench_gap template bench_tgt"
psql_b -d bench_dmg4 <<-SQL
	delete from bench.t where id in ($((N / 24 * 3 + N / 48)), $((N / 24 * 9 + N / 48)), $((N / 24 * 14 + N / 48)));
	update bench.t set amount = amount + 1 where id = $((N / 24 * 19 + N / 48));
	vacuum (freeze, analyze) bench.t;
SQL
psql_b -d bench_gap -c "delete from bench.t where id > $((N / 2)) and id <= $((N / 2 + N / 50))" \
	-c "vacuum (freeze, analyze) bench.t"
# diag_ratio DB - "with without ratio" of the damaged check against DB
diag_ratio() {
	local on off
	on=$(drill_client "$1")
	[[ $(jq '.diagnosis | length' "$base/drep/summary.json") -gt 0 ]] ||
		{ echo "bench-instr: the check against $1 named no likely cause" >&2; exit 1; }
	off=$(RECKON_DIAGNOSE=off drill_client "$1")
	[[ -n $on && -n $off ]] || { echo "bench-instr: a counted run failed (see above)" >&2; exit 1; }
	echo "$on $off $(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.4f", a / b }')"
}
read -r diag4_on diag4_off diag4 <<<"$(diag_ratio bench_dmg4)"
read -r diaggap_on diaggap_off diaggap <<<"$(diag_ratio bench_gap)"
read -r diag50_on diag50_off diag50 <<<"$(diag_ratio bench_dmg)"

# psqlc WHERE [COPY_OPTIONS] - instructions of psql copying one side out
psqlc() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 \
		-d bench_src -c "\\copy (select id, ts, amount, note from bench.t where $1) to '/dev/null' ${2:-}" \
		>/dev/null 2>"$base/cg.err" || { cat "$base/cg.err" >&2; return 1; }
	collected "$base/cg.err"
}
psqlt=$(per_row "$(psqlc "$DAY")" "$(psqlc "$NONE")" "$N")
psqlb=$(per_row "$(psqlc "$DAY" "with (format binary)")" "$(psqlc "$NONE" "with (format binary)")" "$N")

# backend SQL - instructions of one single-user backend running SQL in bench_src
bash "$here/pgcluster.sh" stop "$base/pg" >/dev/null
backend() {
	printf 'set timezone = UTC;\n\nset enable_sort = off;\n\nset jit = off;\n\n%s;\n\n' "$1" >"$base/q.sql"
	chmod 0644 "$base/q.sql"
	local run=()
	[[ $(id -u) -eq 0 ]] && run=(runuser -u postgres --)
	(cd / && "${run[@]}" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$RK_PGBIN/postgres" --single \
		-D "$base/pg/data" -j bench_src <"$base/q.sql" >"$base/be.out" 2>&1)
	grep -q ERROR "$base/be.out" && { cat "$base/be.out" >&2; exit 1; }
	collected "$base/be.out"
}
# server DAY_SQL NONE_SQL - a statement's instructions per row in the server
server() { per_row "$(backend "$1")" "$(backend "$2")" "$N"; }
SCAN="select (reckon_instant(ts) - 1772409600000000) / 3600000000, count(*), sum(amount) from bench.t where"
scan=$(server "$SCAN $DAY group by 1" "$SCAN $NONE group by 1")
ONE="select count(*), sum(amount) from bench.t where"
one=$(server "$ONE $DAY" "$ONE $NONE")
push=$(server "$PUSH_DAY" "$PUSH_NONE")
GROUPED="select (reckon_instant(ts) - 1772409600000000) / 3600000000,
         reckon_window('hhbh'::bytea, id, ts, amount, note) from bench.t where"
grouped=$(server "$GROUPED $DAY group by 1" "$GROUPED $NONE group by 1")
COPY="copy (select id, ts, amount, note from bench.t where"
copyt=$(server "$COPY $DAY) to '/dev/null'" "$COPY $NONE) to '/dev/null'")
copyb=$(server "$COPY $DAY) to '/dev/null' (format binary)" "$COPY $NONE) to '/dev/null' (format binary)")

out=$repo/reports/bench/instr-$N.md
mkdir -p "${out%/*}"
{
	echo "# Instructions per row (callgrind), $N rows per side"
	echo
	bench_provenance N
	echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "- reckon: $("$RECKON" --version 2>/dev/null | head -n 1); PostgreSQL: $("$RK_PGBIN/postgres" --version)"
	echo "- table and check: as reports/bench/check-*.md (bench.t: id bigint, ts timestamptz, amount numeric(12,2), note text; 24 hourly windows)"
	echo "- server: one single-user backend, jit off, enable_sort off, the day's rows less an empty range's, per row"
	echo "- client: reckon check streaming both sides, the day less an empty range, per row and side"
	echo
	echo "| what | instructions per row | ratio to the scan floor | ratio to one group |"
	echo "| --- | ---: | ---: | ---: |"
	echo "| scan floor (server): count(*), sum(amount) GROUP BY window | $scan | 1.00 | $(ratio "$scan" "$one") |"
	echo "| scan, one group (server): count(*), sum(amount), no GROUP BY | $one | $(ratio "$one" "$scan") | 1.00 |"
	echo "| pushdown (server): reckon's statement, reckon_windows | $push | $(ratio "$push" "$scan") | $(ratio "$push" "$one") |"
	echo "| pushdown grouped (server): reckon_window GROUP BY window (extension 1.1) | $grouped | $(ratio "$grouped" "$scan") | $(ratio "$grouped" "$one") |"
	echo
	echo "Streaming, per row and side:"
	echo
	echo "| what | instructions per row | ratio to COPY text |"
	echo "| --- | ---: | ---: |"
	echo "| copy out (server): COPY of id, ts, amount, note, text | $copyt | 1.00 |"
	echo "| copy out (server): the same, binary | $copyb | $(ratio "$copyb" "$copyt") |"
	echo "| copy floor (client): psql \\copy to /dev/null, text | $psqlt | |"
	echo "| copy floor (client): psql \\copy to /dev/null, binary | $psqlb | |"
	echo "| stream (client): reckon check reading COPY text (RECKON_COPY_FORMAT=text) | $stream_text | |"
	echo "| stream (client): reckon check reading binary COPY (its default here) | $stream | |"
	echo "| drilldown (client): per row its passes got, every 50th row of the day changed ($drill_rows rows) | $drill | |"
	echo
	echo "The diagnosis (client): a damaged check's instructions with the diagnosis over the same check with RECKON_DIAGNOSE=off (the commit times of the missing keys are read; the servers are not counted):"
	echo
	echo "| damage | with | without | ratio |"
	echo "| --- | ---: | ---: | ---: |"
	echo "| 4 rows in 4 windows (3 lost, 1 changed) | $diag4_on | $diag4_off | $diag4 |"
	echo "| a gap: $((N / 50)) consecutive rows lost | $diaggap_on | $diaggap_off | $diaggap |"
	echo "| every 50th row of the day changed | $diag50_on | $diag50_off | $diag50 |"
	echo
	echo "Server and client together, per row and side: COPY text + psql $((copyt + psqlt)) (the copy floor), binary COPY + psql $((copyb + psqlb)) (the binary floor), COPY text + reckon $((copyt + stream_text)), binary COPY + reckon $((copyb + stream))."
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
echo
echo "bench-instr: written to ${out#"$repo"/}"
