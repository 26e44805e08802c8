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
