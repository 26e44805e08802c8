# shellcheck shell=bash disable=SC2016
# reckon rerun-list: validates a rerun list and prints it normalised, merged
# into ranges (--merge) or as Airflow commands (--as airflow --dag DAG);
# errors name FILE:LINE:COLUMN and exit 2 (docs/rerun.md).

SRC=rl_src
TGT=rl_tgt

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
	mk_orders $TGT
	# W0 missing (3, 2), W1 changed (6, 1), W3 duplicated (16, 1): W0 and W1 touch
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2;
	          update mart.orders set amount = 0 where order_id = 6 and line_no = 1;
	          insert into mart.orders select * from mart.orders where order_id = 16 and line_no = 1" >/dev/null
}

# The rerun list reckon check writes for the damaged pair.
check_list() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS_OPTS[@]}" --rerun-list "$1" >/dev/null ||
		[[ $? -eq 1 ]] || fail "reckon check failed"
}

test_round_trip_of_a_checked_list() {
	check_list rerun.csv
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W0,9,8,1,0,0,0
		$W1,9,9,0,0,0,1
		$W3,8,9,0,0,1,0
	EOF
	# the list as reckon wrote it is its own normal form
	assert_exit 0 rk rerun-list rerun.csv
	assert_file_eq "$OUT" rerun.csv
	[[ ! -s $ERR ]] || fail "stderr is not empty: $(cat "$ERR")"
	_rk_ok
	# the same through --input and through standard input
	assert_exit 0 rk rerun-list --input rerun.csv
	assert_file_eq "$OUT" rerun.csv
	assert_exit 0 bash -c '"$RECKON" rerun-list - <rerun.csv'
	assert_file_eq "$OUT" rerun.csv
}

test_merge() {
	check_list rerun.csv
	assert_exit 0 rk rerun-list --merge rerun.csv
	assert_file_eq "$OUT" - <<-EOF
		range_start,range_end,intervals,source_rows,target_rows,missing,extra,duplicated,changed
		2026-03-02T00:00:00Z,2026-03-02T02:00:00Z,2,18,17,1,0,0,1
		$W3,1,8,9,0,0,1,0
	EOF
}

# --end-date is the logical date of the last run to redo (data_interval_start
# of the range's last interval), never the range's end.
test_airflow_commands() {
	check_list rerun.csv
	assert_exit 0 rk rerun-list --as airflow --dag load_orders rerun.csv
	assert_file_eq "$OUT" - <<-EOF
		# 2 ranges of DAG load_orders; logical date = data_interval_start, --end-date is inclusive
		# run either the 'tasks clear' lines (the scheduler re-runs the cleared runs) or the
		# 'dags backfill' lines (this shell runs them), not both
		# [2026-03-02T00:00:00Z, 2026-03-02T02:00:00Z): 2 intervals
		airflow tasks clear load_orders --start-date 2026-03-02T00:00:00Z --end-date 2026-03-02T01:00:00Z --yes
		airflow dags backfill load_orders --start-date 2026-03-02T00:00:00Z --end-date 2026-03-02T01:00:00Z --reset-dagruns --yes
		# [2026-03-02T03:00:00Z, 2026-03-02T04:00:00Z): 1 interval
		airflow tasks clear load_orders --start-date 2026-03-02T03:00:00Z --end-date 2026-03-02T03:00:00Z --yes
		airflow dags backfill load_orders --start-date 2026-03-02T03:00:00Z --end-date 2026-03-02T03:00:00Z --reset-dagruns --yes
	EOF
	# --merge changes nothing: Airflow ranges are always merged
	cp "$OUT" airflow.txt
	assert_exit 0 rk rerun-list --merge --as airflow --dag load_orders rerun.csv
	assert_file_eq "$OUT" airflow.txt
}

# A DAG id the shell would split or expand is single-quoted: the lines run
# as they are, with the id reaching airflow unchanged.
test_airflow_dag_id_is_shell_quoted() {
	check_list rerun.csv
	local dag="team's \$(touch pwned) dag"
	assert_exit 0 rk rerun-list --as airflow --dag "$dag" rerun.csv
	assert_contains "$OUT" "airflow tasks clear 'team'\\''s \$(touch pwned) dag' --start-date"
	# run the lines with a stand-in airflow that prints its arguments
	mkdir bin
	printf '#!/bin/sh\nfor a in "$@"; do printf "<%%s>" "$a"; done; echo\n' >bin/airflow
	chmod +x bin/airflow
	PATH=$T/bin:$PATH sh "$OUT" >args
	assert_no_file pwned
	assert_eq 4 "$(wc -l <args)"
	assert_eq "<tasks><clear><$dag><--start-date><2026-03-02T00:00:00Z><--end-date><2026-03-02T01:00:00Z><--yes>" \
		"$(sed -n 1p args)"
	assert_eq "<dags><backfill><$dag><--start-date><2026-03-02T03:00:00Z><--end-date><2026-03-02T03:00:00Z><--reset-dagruns><--yes>" \
		"$(sed -n 4p args)"
}

# A stand-in for a scheduler's CLI: prints its arguments one per line, as
# the shell split them, into args.NAME (appending).
stand_in() {
	mkdir -p bin
	printf '#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a"; done >>%s/args.%s; echo -- >>%s/args.%s\n' \
		"$T" "$1" "$T" "$1" >"bin/$1"
	chmod +x "bin/$1"
}

# Airflow 3: one 'airflow backfill create' per merged range, the DAG id,
# both logical dates and the reprocess behaviour as separate arguments.
test_airflow3_commands() {
	check_list rerun.csv
	assert_exit 0 rk rerun-list --as airflow3 --dag "load orders" rerun.csv
	stand_in airflow
	PATH=$T/bin:$PATH sh -e "$OUT"
	assert_file_eq args.airflow - <<-EOF
		backfill
		create
		--dag-id
		load orders
		--from-date
		2026-03-02T00:00:00Z
		--to-date
		2026-03-02T01:00:00Z
		--reprocess-behavior
		completed
		--
		backfill
		create
		--dag-id
		load orders
		--from-date
		2026-03-02T03:00:00Z
		--to-date
		2026-03-02T03:00:00Z
		--reprocess-behavior
		completed
		--
	EOF
	assert_exit 0 rk rerun-list --as airflow3 --dag d --reprocess-behavior failed rerun.csv
	assert_contains "$OUT" "--reprocess-behavior failed"
	assert_exit 2 rk rerun-list --as airflow3 --dag d --reprocess-behavior all rerun.csv
	assert_contains "$ERR" "must be none, failed or completed"
	assert_exit 2 rk rerun-list --as airflow3 rerun.csv
	assert_contains "$ERR" "missing required option --dag"
}

# dbt: one 'dbt run' per merged range; --vars is one argument and a JSON
# object whose start and end are the range's ends.
test_dbt_commands() {
	check_list rerun.csv
	assert_exit 0 rk rerun-list --as dbt --select "tag:orders+ stg_orders" rerun.csv
	stand_in dbt
	PATH=$T/bin:$PATH sh -e "$OUT"
	python3 - "$T/args.dbt" <<-'PY' || fail "dbt arguments are not as expected: $(cat args.dbt)"
		import json, sys
		runs = open(sys.argv[1]).read().split("--\n")[:-1]
		want = [("2026-03-02T00:00:00Z", "2026-03-02T02:00:00Z"), ("2026-03-02T03:00:00Z", "2026-03-02T04:00:00Z")]
		assert len(runs) == 2, runs
		for run, (start, end) in zip(runs, want):
		    a = run.splitlines()
		    assert a[:4] == ["run", "--select", "tag:orders+ stg_orders", "--vars"], a
		    assert len(a) == 5, a
		    assert json.loads(a[4]) == {"start": start, "end": end}, a[4]
	PY
	_rk_ok
	assert_exit 2 rk rerun-list --as dbt rerun.csv
	assert_contains "$ERR" "missing required option --select"
	assert_exit 2 rk rerun-list --as dbt --select=--full-refresh rerun.csv
	assert_contains "$ERR" "starts with '-'"
}

# Dagster: daily partitions need whole UTC days (an hourly list is refused,
# exit 2, nothing printed); hourly keys are YYYY-MM-DD-HH:MM, both ends
# inclusive.
test_dagster_commands() {
	check_list rerun.csv
	assert_exit 2 rk rerun-list --as dagster --select orders rerun.csv
	assert_contains "$ERR" "does not start and end on daily partition boundaries"
	[[ ! -s $OUT ]] || fail "output for a refused list: $(cat "$OUT")"
	assert_exit 0 rk rerun-list --as dagster --select "orders" --partitions hourly rerun.csv
	stand_in dagster
	PATH=$T/bin:$PATH sh -e "$OUT"
	assert_file_eq args.dagster - <<-EOF
		asset
		materialize
		--select
		orders
		--partition-range
		2026-03-02-00:00...2026-03-02-01:00
		--
		asset
		materialize
		--select
		orders
		--partition-range
		2026-03-02-03:00...2026-03-02-03:00
		--
	EOF
	# a daily list: date keys
	cat >days.csv <<-EOF
		$RERUN_HEADER
		2026-03-28T00:00:00Z,2026-03-29T00:00:00Z,5,4,1,0,0,0
		2026-03-29T00:00:00Z,2026-03-30T00:00:00Z,5,5,0,0,0,1
	EOF
	assert_exit 0 rk rerun-list --as dagster --select orders days.csv
	assert_contains "$OUT" "dagster asset materialize --select orders --partition-range 2026-03-28...2026-03-29"
	assert_exit 2 rk rerun-list --partitions hourly days.csv
	assert_contains "$ERR" "option --partitions needs --as dagster"
}

# JSON Lines: every line parses as a JSON object, one per interval (per
# range with --merge), with the list's values.
test_json_lines() {
	check_list rerun.csv
	assert_exit 0 rk rerun-list --as json rerun.csv
	python3 - "$OUT" <<-'PY' || fail "JSON lines are not as expected: $(cat "$OUT")"
		import json, sys
		rows = [json.loads(line) for line in open(sys.argv[1])]
		assert [(r["interval_start"], r["interval_end"]) for r in rows] == [
		    ("2026-03-02T00:00:00Z", "2026-03-02T01:00:00Z"),
		    ("2026-03-02T01:00:00Z", "2026-03-02T02:00:00Z"),
		    ("2026-03-02T03:00:00Z", "2026-03-02T04:00:00Z")], rows
		assert [(r["source_rows"], r["target_rows"], r["missing"], r["changed"], r["duplicated"]) for r in rows] == [
		    (9, 8, 1, 0, 0), (9, 9, 0, 1, 0), (8, 9, 0, 0, 1)], rows
		assert all(r["extra"] == 0 for r in rows)
	PY
	assert_exit 0 rk rerun-list --as json --merge rerun.csv
	python3 - "$OUT" <<-'PY' || fail "merged JSON lines are not as expected: $(cat "$OUT")"
		import json, sys
		rows = [json.loads(line) for line in open(sys.argv[1])]
		assert [(r["range_start"], r["range_end"], r["intervals"], r["source_rows"]) for r in rows] == [
		    ("2026-03-02T00:00:00Z", "2026-03-02T02:00:00Z", 2, 18),
		    ("2026-03-02T03:00:00Z", "2026-03-02T04:00:00Z", 1, 8)], rows
	PY
	_rk_ok
	# jq (a dependency of the suite: deps.sh) reads it too
	assert_exit 0 rk rerun-list --as json rerun.csv
	assert_eq "1 0 0" "$(jq -s -r '[.[].missing] | map(tostring) | join(" ")' "$OUT")"
}

test_empty_list() {
	# what reckon check writes when every window matches: the header alone
	printf '%s\n' "$RERUN_HEADER" >empty.csv
	assert_exit 0 rk rerun-list empty.csv
	assert_file_eq "$OUT" empty.csv
	assert_exit 0 rk rerun-list --merge empty.csv
	assert_file_eq "$OUT" - <<-EOF
		range_start,range_end,intervals,source_rows,target_rows,missing,extra,duplicated,changed
	EOF
	assert_exit 0 rk rerun-list --as airflow --dag load_orders empty.csv
	[[ ! -s $OUT ]] || fail "airflow commands for an empty list: $(cat "$OUT")"
	_rk_ok
}

# Other spellings of the same instants are accepted and normalised.
test_normalises() {
	cat >in.csv <<-EOF
		$RERUN_HEADER
		"2026-03-02 01:00:00+01",2026-03-02 01:00,9,8,1,0,0,0
		2026-03-02T01:00:00.000Z,2026-03-02T02:00:00.5+00:00,9,9,0,0,0,1
	EOF
	assert_exit 0 rk rerun-list in.csv
	assert_file_eq "$OUT" - <<-EOF
		$RERUN_HEADER
		$W0,9,8,1,0,0,0
		2026-03-02T01:00:00Z,2026-03-02T02:00:00.500000Z,9,9,0,0,0,1
	EOF
}

test_errors_name_file_line_column() {
	printf '%s\n%s\n%s\n' "$RERUN_HEADER" "$W0,9,8,1,0,0,0" "$W1,9,9,0,0,zero,1" >bad.csv
	assert_exit 2 rk rerun-list bad.csv
	assert_contains "$ERR" "bad.csv:3:51: duplicated must be a non-negative integer, not 'zero'"
	[[ ! -s $OUT ]] || fail "output for an invalid list: $(cat "$OUT")"
	_rk_ok

	printf '%s\n%s\n%s\n' "$RERUN_HEADER" "$W1,9,8,1,0,0,0" "$W0,9,9,0,0,0,1" >order.csv
	assert_exit 2 rk rerun-list --merge order.csv
	assert_contains "$ERR" "order.csv:3:1: interval_start 2026-03-02T00:00:00Z is before that of the previous interval (line 2"

	printf '%s\n%s\n%s\n' "$RERUN_HEADER" "2026-03-02T00:00:00Z,2026-03-02T02:00:00Z,9,8,1,0,0,0" "$W1,9,9,0,0,0,1" >overlap.csv
	assert_exit 2 rk rerun-list --as airflow --dag d overlap.csv
	assert_contains "$ERR" "overlap.csv:3:1: interval [2026-03-02T01:00:00Z, 2026-03-02T02:00:00Z) overlaps"

	printf '%s\n%s\n' "$RERUN_HEADER" "2026-03-02T01:00:00Z,2026-03-02T01:00:00Z,9,8,1,0,0,0" >empty_interval.csv
	assert_exit 2 rk rerun-list empty_interval.csv
	assert_contains "$ERR" "empty_interval.csv:2:22: interval_end 2026-03-02T01:00:00Z is not after interval_start"

	printf '%s\n%s\n' "$RERUN_HEADER" "2026-03-02T01:00:00Z,2026-03-32T02:00:00Z,9,8,1,0,0,0" >badtime.csv
	assert_exit 2 rk rerun-list badtime.csv
	assert_contains "$ERR" "badtime.csv:2:22: interval_end '2026-03-32T02:00:00Z' is not a timestamp"

	printf 'window_start,window_end,status\n' >windows.csv
	assert_exit 2 rk rerun-list windows.csv
	assert_contains "$ERR" "windows.csv:1:1: not a rerun list"
	assert_contains "$ERR" "hint:"

	: >zero.csv
	assert_exit 2 rk rerun-list zero.csv
	assert_contains "$ERR" "zero.csv:1:1: empty file"

	assert_exit 2 rk rerun-list no-such.csv
	assert_contains "$ERR" "cannot open rerun list 'no-such.csv'"
}

test_usage_errors() {
	printf '%s\n' "$RERUN_HEADER" >l.csv
	assert_exit 0 rk rerun-list --help
	assert_contains "$OUT" "--dag"
	assert_exit 2 rk rerun-list
	assert_contains "$ERR" "missing rerun list"
	assert_exit 2 rk rerun-list l.csv l.csv
	assert_contains "$ERR" "unexpected argument"
	assert_exit 2 rk rerun-list --input l.csv l.csv
	assert_contains "$ERR" "two rerun lists given"
	assert_exit 2 rk rerun-list --as cron l.csv
	assert_contains "$ERR" "option --as must be airflow"
	assert_exit 2 rk rerun-list --as airflow l.csv
	assert_contains "$ERR" "missing required option --dag"
	assert_exit 2 rk rerun-list --dag d l.csv
	assert_contains "$ERR" "option --dag needs --as airflow"
	assert_exit 2 rk rerun-list --as airflow --dag=--yes l.csv
	assert_contains "$ERR" "starts with '-'"
	assert_exit 2 rk rerun-list --table x l.csv
	assert_contains "$ERR" "does not apply to reckon rerun-list"
}
