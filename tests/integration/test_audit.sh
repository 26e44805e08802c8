# shellcheck shell=bash disable=SC2054,SC2119,SC2120
# reckon check --audit: the run, its windows and its findings recorded in
# schema "reckon" (docs/audit.md), in one transaction, without a password;
# and the on-call queries of sql/audit_query_*.sql against real runs.
#
# The pair is mk_orders with a damaged target: (3, 2) deleted (W0 missing)
# and (11, 1) changed (W2).  The range has a fifth, open window (04:00-05:00).

SRC=au_src
TGT=au_tgt
AUD=au_audit

# Four closed windows and an open one (now = 04:30, no settle margin).
AUDIT_CHECK=(--table mart.orders --key order_id,line_no --time created_at --sum amount
	--from 2026-03-02T00:00:00Z --to 2026-03-02T05:00:00Z --window 1h
	--now 2026-03-02T04:30:00Z --settle 0s)

# A password libpq sends to nobody: the socket is trust-authenticated.
SECRET=not-needed-s3cret

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
}

# A fresh pair (damaged target) and an empty audit database.
reset_all() {
	mk_orders $SRC
	mk_orders $TGT
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2;
	          update mart.orders set amount = amount + 1 where order_id = 11 and line_no = 1" >/dev/null
	createdb "${1:-$AUD}"
}

audit_check() {
	local db=${AUDIT_DB:-$AUD}
	rk check --source "$(conn $SRC) password=$SECRET" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}" \
		--audit "$(conn "$db")" "$@"
}

# asql QUERY - one query against the audit database, UTC, fields split by '|'
asql() {
	PGTZ=UTC sql "${AUDIT_DB:-$AUD}" "$1"
}

# aquery NAME [VAR=VALUE...] - runs sql/audit_query_NAME.sql as the docs say,
# with psql variables; rows unaligned, fields split by '|'
aquery() {
	local name=$1 a
	local -a vars=()
	shift
	for a in "$@"; do vars+=(-v "$a"); done
	PGTZ=UTC "$RK_PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "${AUDIT_DB:-$AUD}" "${vars[@]}" \
		-f "$RK_REPO/sql/audit_query_$name.sql" || fail "sql/audit_query_$name.sql failed"
}

# ts COLUMN - SQL for a timestamptz column as reckon's files write it
ts() { echo "to_char($1 at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"; }

test_two_runs_with_a_late_commit() {
	reset_all
	mkdir rep1 rep2

	# --- run 1 ---------------------------------------------------------
	assert_exit 1 audit_check --report rep1
	assert_not_contains "$ERR" "$SECRET"
	assert_not_contains "$OUT" "$SECRET"
	assert_eq "finding,run,schema_version,window" \
		"$(asql "select string_agg(table_name, ',' order by table_name) from information_schema.tables
		         where table_schema = 'reckon'")" "tables of schema reckon"
	assert_eq 1 "$(asql "select string_agg(version::text, ',') from reckon.schema_version")" "schema version"
	assert_eq 1 "$(asql 'select count(*) from reckon.run')"
	local run1
	run1=$(asql 'select run_id from reckon.run')
	assert_eq "check|differ|4|2|2|1|1|0|0|1|0|34|33|0|0|1" "$(asql "
		select concat_ws('|', command, verdict, windows_checked, windows_matched, windows_differ,
		                 windows_open, missing, extra, duplicated, changed, source_duplicate,
		                 source_rows, target_rows, null_time_source, null_time_target, exit_status)
		from reckon.run")" "run 1 summary"
	assert_eq "mart.orders|mart.orders|{order_id,line_no}|{amount}|2026-03-02T00:00:00Z|2026-03-02T05:00:00Z|01:00:00|2026-03-02T04:30:00Z|00:00:00|0.1.0" "$(asql "
		select concat_ws('|', source_table, target_table, key_columns, sum_columns,
		                 $(ts range_from), $(ts range_to), window_width, $(ts now), settle, reckon_version)
		from reckon.run")" "run 1 parameters"
	assert_match "$(asql 'select finished_at >= started_at and os_user is not null and host_name is not null from reckon.run')" '^t$' "run 1 times, user, host"
	assert_contains "$(asql 'select target from reckon.run')" "target table mart.orders"
	assert_eq "differ match differ match open" \
		"$(asql "select string_agg(status, ' ' order by window_start) from reckon.window where run_id = $run1")"

	# the closed windows are exactly windows.csv; the open one has no digests
	tail -n +2 rep1/windows.csv | grep -v ',open,' >expected
	asql "select concat_ws(',', $(ts window_start), $(ts window_end), status, source_rows, target_rows,
	                       sums->'amount'->>'source', sums->'amount'->>'target', source_hash, target_hash)
	      from reckon.window where run_id = $run1 and status <> 'open' order by window_start" >got
	assert_file_eq got expected
	assert_eq "1|0|0|0|0 0|0|0|1|0" "$(asql "
		select string_agg(concat_ws('|', missing, extra, duplicated, changed, source_duplicate), ' '
		                  order by window_start)
		from reckon.window where run_id = $run1 and status = 'differ'")" "kinds per differing window"
	assert_eq "t" "$(asql "select source_rows is null and target_rows is null and source_hash is null
		and sums is null and missing is null from reckon.window where run_id = $run1 and status = 'open'")" \
		"open window recorded without digests"

	# the findings are exactly findings.csv
	tail -n +2 rep1/findings.csv >expected
	asql "select concat_ws(',', $(ts window_start), $(ts window_end), kind, key->>0, key->>1,
	                       source_copies, target_copies)
	      from reckon.finding where run_id = $run1 order by finding_id" >got
	assert_file_eq got expected
	assert_eq 'order_id=3, line_no=2|["3", "2"]|2026-03-02T00:35:00Z' "$(asql "
		select concat_ws('|', key_text, key, $(ts source_time)) from reckon.finding
		where run_id = $run1 and kind = 'missing'")"

	# no password anywhere in what was recorded; the conninfo is there, redacted
	assert_eq 0 "$(asql "select count(*) from reckon.run r where r::text like '%$SECRET%'")" "password in reckon.run"
	assert_contains "$(asql "select options->>'source' from reckon.run")" "password=********"
	assert_eq 'order_id,line_no|amount|1h' "$(asql "
		select concat_ws('|', (select string_agg(k, ',') from jsonb_array_elements_text(options->'key') k),
		                 options->'sum'->>0, options->>'window') from reckon.run")" "options as given"

	# --- a late commit lands in W1 (01:30), already checked and matching ---
	sql $SRC "insert into mart.orders values (50, 1, '2026-03-02 01:30:00+00', 7.25, 1, 'late')" >/dev/null
	assert_exit 1 audit_check --report rep2
	assert_eq 2 "$(asql 'select count(*) from reckon.run')"
	local run2
	run2=$(asql "select max(run_id) from reckon.run")
	assert_ne "$run1" "$run2"
	assert_eq "differ differ differ match open" \
		"$(asql "select string_agg(status, ' ' order by window_start) from reckon.window where run_id = $run2")"
	assert_eq "3|35" "$(asql "select concat_ws('|', windows_differ, source_rows) from reckon.run where run_id = $run2")"
	assert_eq 10 "$(asql 'select count(*) from reckon.window')" "windows of both runs"
	assert_eq 5 "$(asql 'select count(*) from reckon.finding')" "findings of both runs (2 + 3)"

	# --- the on-call queries --------------------------------------------
	# matched yesterday, differs today: W1 only, run 1 -> run 2, 9 -> 10 source rows
	aquery late_change >got
	assert_eq 1 "$(wc -l <got)" "late_change rows"
	assert_eq "mart.orders|2026-03-02 01:00:00+00|2026-03-02 02:00:00+00|$run1" "$(cut -d'|' -f1-4 got)"
	assert_eq "$run2|9|10|9|9|1|0|0|0|0" "$(cut -d'|' -f6 got)|$(cut -d'|' -f8-16 got)"

	# when did the window of 00:35 first differ: run 1, never matched, still differs
	aquery first_differ at=2026-03-02T00:35:00Z >got
	assert_eq 1 "$(wc -l <got)"
	assert_eq "mart.orders|2026-03-02 00:00:00+00|2026-03-02 01:00:00+00|$run1" "$(cut -d'|' -f1-4 got)"
	assert_eq "9|8|1|0|0|0|0|||differ" "$(cut -d'|' -f6-15 got)"
	# ... and of 01:30: run 2, having matched in run 1
	aquery first_differ at=2026-03-02T01:30:00Z >got
	assert_eq "$run2" "$(cut -d'|' -f4 got)"
	assert_eq "$run1|differ" "$(cut -d'|' -f13,15 got)"
	# an instant in the open window: no row
	aquery first_differ at=2026-03-02T04:10:00Z >got
	assert_eq 0 "$(wc -l <got)"

	# the windows that differed in the last 7 nights: W0 and W2 twice, W1 once
	aquery recent_differ days=7 >got
	assert_eq "2026-03-02 00:00:00+00|2 2026-03-02 01:00:00+00|1 2026-03-02 02:00:00+00|2" \
		"$(cut -d'|' -f2,4 got | tr '\n' ' ' | sed 's/ $//')"
	assert_eq "differ differ differ" "$(cut -d'|' -f12 got | tr '\n' ' ' | sed 's/ $//')"

	# the history of key (3, 2): missing in both runs
	aquery key_history 'key=["3", "2"]' >got
	assert_eq "$run1|2026-03-02 00:00:00+00|differ|missing $run2|2026-03-02 00:00:00+00|differ|missing" \
		"$(cut -d'|' -f2,4,6,7 got | tr '\n' ' ' | sed 's/ $//')"
	# of the late key (50, 1): fine in run 1 (its window matched), missing in run 2
	aquery key_history 'key=["50", "1"]' >got
	assert_eq "$run1|match|(no finding) $run2|differ|missing" \
		"$(cut -d'|' -f2,6,7 got | tr '\n' ' ' | sed 's/ $//')"
	assert_eq "1|0" "$(sed -n 2p got | cut -d'|' -f8,9)" "copies of the late key in run 2"
}

# Every statement of the record is in one transaction: a failure part way
# (here the findings) leaves no run, no window behind.
test_failed_record_leaves_nothing() {
	local AUDIT_DB=au_audit_fail
	reset_all $AUDIT_DB
	assert_exit 1 audit_check
	assert_eq 1 "$(asql 'select count(*) from reckon.run')"
	sql $AUDIT_DB "alter table reckon.finding add constraint no_missing check (kind <> 'missing') not valid" >/dev/null
	assert_exit 3 audit_check
	assert_contains "$ERR" "cannot record the run in the audit database"
	assert_contains "$ERR" "no_missing"
	assert_eq "1|5|2" "$(asql 'select (select count(*) from reckon.run), (select count(*) from reckon.window),
		(select count(*) from reckon.finding)')" "nothing of the failed run recorded"
}

# Concurrent first runs on an empty database: the migration is serialised,
# every run is recorded, the schema is created once.
test_concurrent_first_runs() {
	local AUDIT_DB=au_audit_conc i rc
	local -a pids=()
	reset_all $AUDIT_DB
	for i in 1 2 3 4 5; do
		audit_check >"out$i" 2>"err$i" &
		pids[i]=$!
	done
	for i in 1 2 3 4 5; do
		rc=0
		wait "${pids[i]}" || rc=$?
		[[ $rc -eq 1 ]] || { cat "err$i"; fail "concurrent run $i exited $rc, expected 1"; }
	done
	assert_eq 5 "$(asql 'select count(*) from reckon.run')"
	assert_eq 25 "$(asql 'select count(*) from reckon.window')"
	assert_eq 1 "$(asql 'select count(*) from reckon.schema_version')"
	for i in 1 2 3 4 5; do
		assert_not_contains "err$i" "NOTICE"
	done
}

# A schema newer than this reckon is refused, not written into.
test_newer_schema_refused() {
	local AUDIT_DB=au_audit_new
	reset_all $AUDIT_DB
	assert_exit 1 audit_check
	sql $AUDIT_DB "insert into reckon.schema_version (version) values (99)" >/dev/null
	assert_exit 3 audit_check
	assert_contains "$ERR" "version 99"
	assert_eq 1 "$(asql 'select count(*) from reckon.run')"
}

# A DBA creates the schema with psql (twice: idempotent) and grants a role
# what docs/audit.md lists; that role records runs without CREATE rights.
test_schema_by_hand_and_least_privilege() {
	local AUDIT_DB=au_audit_dba
	reset_all $AUDIT_DB
	"$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d $AUDIT_DB -f "$RK_REPO/sql/audit_schema.sql" 2>/dev/null ||
		fail "sql/audit_schema.sql does not run in psql"
	"$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d $AUDIT_DB -f "$RK_REPO/sql/audit_schema.sql" 2>/dev/null ||
		fail "sql/audit_schema.sql is not idempotent"
	sql $AUDIT_DB "do \$\$ begin create role au_writer login; exception when duplicate_object then null; end \$\$;
		revoke create on database $AUDIT_DB from public;
		revoke create on schema public from public;
		grant usage on schema reckon to au_writer;
		grant select, insert on all tables in schema reckon to au_writer;
		grant usage on all sequences in schema reckon to au_writer" >/dev/null
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}" \
		--audit "$(conn $AUDIT_DB) user=au_writer"
	assert_eq "au_writer|1" "$(asql "select db_user, (select count(*) from reckon.schema_version) from reckon.run")"
	# without the schema and without CREATE, the error says what to do
	local AUDIT_DB=au_audit_dba2
	createdb $AUDIT_DB
	sql $AUDIT_DB "revoke create on database $AUDIT_DB from public" >/dev/null
	assert_exit 3 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}" \
		--audit "$(conn $AUDIT_DB) user=au_writer"
	assert_contains "$ERR" "permission denied"
	assert_contains "$ERR" "sql/audit_schema.sql"
}

# An audit database that cannot be reached: runtime error, password masked.
test_unreachable_audit_database() {
	reset_all
	local port
	port=$(closed_port)
	assert_exit 3 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}" \
		--audit "host=127.0.0.1 port=$port dbname=x user=x password=$SECRET"
	assert_contains "$ERR" "audit"
	assert_not_contains "$ERR" "$SECRET"
}
