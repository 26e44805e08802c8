# shellcheck shell=bash disable=SC2054,SC2119,SC2120
# reckon check --audit: the run, its windows and its findings recorded in
# schema "reckon" (docs/audit.md), in one transaction, without a password;
# reckon repair --audit: the run and every interval of its list recorded,
# dry runs and runs that stopped part way included; and the on-call queries
# of sql/queries/audit_query_*.sql against real runs.
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

# The table options of a repair of the pair (the check's, less the range).
# (--replace-interval: its counts are deleted and inserted rows; the
# row-level repair's are recorded by test_row_repair_counts_recorded)
AUDIT_REPAIR=(--table mart.orders --key order_id,line_no --time created_at --sum amount --replace-interval)

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

# aquery NAME [VAR=VALUE...] - runs sql/queries/audit_query_NAME.sql as the docs say,
# with psql variables; rows unaligned, fields split by '|'
aquery() {
	local name=$1 a
	local -a vars=()
	shift
	for a in "$@"; do vars+=(-v "$a"); done
	PGTZ=UTC "$RK_PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "${AUDIT_DB:-$AUD}" "${vars[@]}" \
		-f "$RK_REPO/sql/queries/audit_query_$name.sql" || fail "sql/queries/audit_query_$name.sql failed"
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
	assert_eq "finding,repair_interval,run,schema_version,window" \
		"$(asql "select string_agg(table_name, ',' order by table_name) from information_schema.tables
		         where table_schema = 'reckon'")" "tables of schema reckon"
	assert_eq "1,2,3,4" "$(asql "select string_agg(version::text, ',' order by version) from reckon.schema_version")" \
		"schema versions"
	assert_eq "t" "$(asql "select error is null from reckon.run")" "no error on a check run"
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
# a calendar month is recorded as a month, not as a negative duration
test_month_windows_recorded_as_months() {
	reset_all
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount --timezone Europe/Berlin --window 1mo \
		--from 2026-03-01 --to 2026-04-01 --now 2026-04-02 --settle 0s --audit "$(conn $AUD)"
	assert_eq "1 mon|1|1" "$(asql "select concat_ws('|', window_width, windows_checked, windows_differ)
		from reckon.run")" "a month's run"
}

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
	assert_eq 4 "$(asql 'select count(*) from reckon.schema_version')"
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

# psql_file DB NAME - runs sql/NAME.sql as a DBA would
psql_file() {
	"$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$1" -f "$RK_REPO/sql/$2.sql" 2>/dev/null ||
		fail "sql/$2.sql does not run in psql on $1"
}

# A DBA creates the schema with psql (twice: idempotent) and grants a role
# what docs/audit.md lists; that role records runs without CREATE rights.
test_schema_by_hand_and_least_privilege() {
	local AUDIT_DB=au_audit_dba
	reset_all $AUDIT_DB
	psql_file $AUDIT_DB audit_schema
	psql_file $AUDIT_DB audit_migrate_2
	psql_file $AUDIT_DB audit_schema
	psql_file $AUDIT_DB audit_migrate_2
	psql_file $AUDIT_DB audit_migrate_3
	psql_file $AUDIT_DB audit_migrate_4
	assert_eq "1,2,3,4" "$(asql "select string_agg(version::text, ',' order by version) from reckon.schema_version")"
	sql $AUDIT_DB "do \$\$ begin create role au_writer login; exception when duplicate_object then null; end \$\$;
		revoke create on database $AUDIT_DB from public;
		revoke create on schema public from public;
		grant usage on schema reckon to au_writer;
		grant select, insert on all tables in schema reckon to au_writer;
		grant usage on all sequences in schema reckon to au_writer" >/dev/null
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}" \
		--audit "$(conn $AUDIT_DB) user=au_writer"
	assert_eq "au_writer|4" "$(asql "select db_user, (select count(*) from reckon.schema_version) from reckon.run")"
	# ... and repairs
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}" --rerun-list rerun.csv
	assert_exit 0 rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_REPAIR[@]}" \
		--rerun-list rerun.csv --audit "$(conn $AUDIT_DB) user=au_writer"
	assert_eq "repair|au_writer|2" "$(asql "select concat_ws('|', command, db_user, (select count(*) from
		reckon.repair_interval i where i.run_id = r.run_id)) from reckon.run r where command = 'repair'")"
	# a schema the DBA left at version 1: the role cannot upgrade it, and
	# the error says what to run; the repair is not started
	local AUDIT_DB=au_audit_dba1
	createdb $AUDIT_DB
	psql_file $AUDIT_DB audit_schema
	sql $AUDIT_DB "revoke create on database $AUDIT_DB from public;
		grant usage on schema reckon to au_writer;
		grant select, insert on all tables in schema reckon to au_writer;
		grant usage on all sequences in schema reckon to au_writer" >/dev/null
	local before
	before=$(tgt_md5)
	assert_exit 3 rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_REPAIR[@]}" \
		--rerun-list rerun.csv --execute --audit "$(conn $AUDIT_DB) user=au_writer"
	assert_contains "$ERR" "audit schema migration 2 failed"
	assert_contains "$ERR" "sql/audit_migrate_*.sql"
	assert_eq "$before" "$(tgt_md5)" "target untouched"
	assert_eq "1|0" "$(asql "select (select max(version) from reckon.schema_version), (select count(*) from reckon.run)")"
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

# --- reckon repair --audit --------------------------------------------------

audit_repair() {
	rk repair --source "$(conn $SRC) password=$SECRET" --target "$(conn $TGT)" "${AUDIT_REPAIR[@]}" \
		--audit "$(conn "${AUDIT_DB:-$AUD}")" "$@"
}

# The rerun list of the damaged pair (reckon check, not audited).
repair_list() {
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}" --rerun-list rerun.csv
}

tgt_md5() {
	sql $TGT "select md5(coalesce(string_agg(t::text, '|' order by t::text collate \"C\"), '')) from mart.orders t"
}

# intervals RUN_ID - one line per recorded interval of the run:
# "START,END status | before: s t missing extra duplicated changed |
#  did: source deleted_by_time deleted_by_key inserted | recheck s t", NULL as -
intervals() {
	asql "select concat_ws(' ', $(ts interval_start) || ',' || $(ts interval_end), status,
	          '| before:', source_rows_before, target_rows_before, missing, extra, duplicated, changed,
	          '| did:', coalesce(source_rows::text, '-'), coalesce(deleted_by_time::text, '-'),
	          coalesce(deleted_by_key::text, '-'), coalesce(inserted::text, '-'),
	          '|', coalesce(recheck, '-'), coalesce(source_rows_after::text, '-'),
	          coalesce(target_rows_after::text, '-'))
	      from reckon.repair_interval where run_id = $1 order by interval_start"
}

# No byte of the secret anywhere in the audit database's schema reckon.
assert_no_secret_recorded() {
	local dump
	dump=$("$RK_PGBIN/pg_dump" -d "${AUDIT_DB:-$AUD}" --data-only --schema=reckon) || fail "pg_dump failed"
	assert_contains "$dump" "COPY reckon.run"
	assert_not_contains "$dump" "$SECRET"
}

# A dry run and then the repair itself, each recorded with one row per
# interval saying what it would do / did; the source's password never stored.
test_repair_dry_run_and_execute_recorded() {
	reset_all
	repair_list
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W0,9,8,1,0,0,0
		$W2,8,8,0,0,0,1
	EOF
	local before run1 run2
	before=$(tgt_md5)

	# --- the dry run: recorded as planned, nothing changed ---------------
	assert_exit 0 audit_repair --rerun-list rerun.csv
	assert_not_contains "$OUT" "$SECRET"
	assert_not_contains "$ERR" "$SECRET"
	assert_eq "$before" "$(tgt_md5)" "target after the dry run"
	assert_eq "1,2,3,4" "$(asql "select string_agg(version::text, ',' order by version) from reckon.schema_version")"
	assert_eq 1 "$(asql 'select count(*) from reckon.run')"
	run1=$(asql 'select run_id from reckon.run')
	assert_eq "repair|planned|0|false|mart.orders|mart.orders|{order_id,line_no}|{amount}|2026-03-02T00:00:00Z|2026-03-02T03:00:00Z|0.1.0" "$(asql "
		select concat_ws('|', command, verdict, exit_status, options->>'execute', source_table, target_table,
		                 key_columns, sum_columns, $(ts range_from), $(ts range_to), reckon_version)
		from reckon.run")" "dry run's run row"
	assert_eq "t" "$(asql "select error is null and source is null and target is null and window_width is null
		and windows_checked is null and finished_at >= started_at and os_user is not null from reckon.run")" \
		"what a repair run leaves empty"
	# W0: 8 target rows would go, 9 source rows come; W2: 8 and 8
	assert_eq "$W0 planned | before: 9 8 1 0 0 0 | did: 9 8 0 9 | - - -
$W2 planned | before: 8 8 0 0 0 1 | did: 8 8 0 8 | - - -" "$(intervals "$run1")" "dry run's intervals"

	# --- the repair: recorded as verified, the target fixed -------------
	assert_exit 0 audit_repair --rerun-list rerun.csv --execute --format json
	assert_eq "execute match true" "$(jget "$OUT" '"\(.mode) \(.verdict) \(.complete)"')"
	assert_eq 2 "$(asql 'select count(*) from reckon.run')"
	run2=$(asql 'select max(run_id) from reckon.run')
	assert_eq "repair|match|0|true" "$(asql "
		select concat_ws('|', command, verdict, exit_status, options->>'execute') from reckon.run
		where run_id = $run2")" "repair's run row"
	assert_eq "$W0 verified | before: 9 8 1 0 0 0 | did: 9 8 0 9 | match 9 9
$W2 verified | before: 8 8 0 0 0 1 | did: 8 8 0 8 | match 8 8" "$(intervals "$run2")" "repair's intervals"
	# the record says what reckon printed
	assert_eq "$(jget "$OUT" '[.intervals[] | "\(.deleted_by_time) \(.deleted_by_key) \(.inserted) \(.after.target_rows)"] | join("|")')" \
		"$(asql "select string_agg(concat_ws(' ', deleted_by_time, deleted_by_key, inserted, target_rows_after), '|'
		                            order by interval_start) from reckon.repair_interval where run_id = $run2")"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}"

	# --- no password anywhere; the conninfo is there, redacted ------------
	assert_no_secret_recorded
	assert_contains "$(asql "select options->>'source' from reckon.run where run_id = $run2")" "password=********"

	# --- the on-call query: what did repair do to mart.orders this week ---
	aquery repairs table=mart.orders days=7 >got
	assert_eq "$run1|dry-run|planned|0|2026-03-02 00:00:00+00|planned|8|0|9|9|8||
$run1|dry-run|planned|0|2026-03-02 02:00:00+00|planned|8|0|8|8|8||
$run2|execute|match|0|2026-03-02 00:00:00+00|verified|8|0|9|9|8|9|match
$run2|execute|match|0|2026-03-02 02:00:00+00|verified|8|0|8|8|8|8|match" \
		"$(cut -d'|' -f2,4-7,9-16 got)" "audit_query_repairs rows"
	assert_eq "mart.orders" "$(cut -d'|' -f1 got | sort -u)"
	aquery repairs table=mart.other days=7 >got
	assert_eq 0 "$(wc -l <got)" "another table's repairs"
}

# A row-level repair (the default) is recorded with the rows it updated in
# place and moved in, besides those it inserted and deleted; the dry run
# with what it would do.
test_row_repair_counts_recorded() {
	reset_all
	# the target's copy of (7, 1) of W1 lies in a window outside the check's
	# range: W1's check names it missing, and repair moves it in
	sql $TGT "update mart.orders set created_at = '2026-03-01 12:00:00+00' where order_id = 7 and line_no = 1" >/dev/null
	repair_list
	local run1 run2
	assert_exit 0 rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount --audit "$(conn $AUD)" --rerun-list rerun.csv
	run1=$(asql 'select max(run_id) from reckon.run')
	assert_exit 0 rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount --audit "$(conn $AUD)" --rerun-list rerun.csv --execute
	run2=$(asql 'select max(run_id) from reckon.run')
	# W0: (3, 2) inserted; W1: (7, 1) moved in (updated in place); W2:
	# (11, 1) updated
	for r in "$run1 planned" "$run2 verified"; do
		set -- $r
		assert_eq "$W0 $2 inserted 1 updated 0 moved 0 deleted 0
$W1 $2 inserted 0 updated 1 moved 1 deleted 0
$W2 $2 inserted 0 updated 1 moved 0 deleted 0" "$(asql "select concat_ws(' ', $(ts interval_start) || ',' ||
			$(ts interval_end), status, 'inserted', inserted, 'updated', updated, 'moved', moved, 'deleted',
			deleted_by_time + deleted_by_key) from reckon.repair_interval where run_id = $1 order by interval_start")" \
			"run $1's intervals"
	done
	aquery repairs table=mart.orders days=7 >got
	assert_eq "0|0 1|1 1|0 0|0 1|1 1|0" "$(cut -d"|" -f20,21 got | tr '\n' ' ' | sed 's/ $//')" \
		"audit_query_repairs: updated|moved"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}"
}

# A repair that stops part way is recorded: the interval done, the one that
# failed (untouched) and the one never started, with the run's error.  The
# next run finishes the job and is recorded too.
test_repair_stopped_part_way_recorded() {
	local AUDIT_DB=au_audit_stop run1 run2
	reset_all $AUDIT_DB
	# a third damaged window (W3 loses (15, 1)), and a target whose W2 rows
	# refuse to be deleted
	sql $TGT "delete from mart.orders where order_id = 15 and line_no = 1;
		create or replace function mart.frozen() returns trigger language plpgsql as
			\$\$ begin raise exception 'rows of W2 are frozen (test)'; end \$\$;
		create trigger frozen before delete on mart.orders for each row
			when (old.created_at >= '2026-03-02 02:00:00+00' and old.created_at < '2026-03-02 03:00:00+00')
			execute function mart.frozen()" >/dev/null
	repair_list
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W0,9,8,1,0,0,0
		$W2,8,8,0,0,0,1
		$W3,8,7,1,0,0,0
	EOF
	assert_exit 3 audit_repair --rerun-list rerun.csv --execute
	assert_contains "$ERR" "repaired 1 of 3 intervals"
	assert_contains "$ERR" "frozen"
	assert_eq 1 "$(grep -c '^reckon: error' "$ERR")" "one error: the repair's"
	assert_match "$(grep -F '[2026-03-02T02:00:00Z,' "$OUT")" ' failed ' "W2 line on stdout"
	assert_eq 1 "$(asql 'select count(*) from reckon.run')"
	run1=$(asql 'select run_id from reckon.run')
	assert_eq "failed|3|true" "$(asql "select concat_ws('|', verdict, exit_status, options->>'execute') from reckon.run")"
	assert_contains "$(asql 'select error from reckon.run')" "repaired 1 of 3 intervals: [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z); interval [2026-03-02T02:00:00Z, 2026-03-02T03:00:00Z) was not changed; 1 later interval was not started"
	assert_contains "$(asql 'select error from reckon.run')" "rows of W2 are frozen (test)"
	assert_eq "$W0 verified | before: 9 8 1 0 0 0 | did: 9 8 0 9 | match 9 9
$W2 not_changed | before: 8 8 0 0 0 1 | did: - - - - | - - -
$W3 not_started | before: 8 7 1 0 0 0 | did: - - - - | - - -" "$(intervals "$run1")" "intervals of the stopped run"
	assert_no_secret_recorded

	# the cause removed, the same command finishes the job
	sql $TGT "drop trigger frozen on mart.orders" >/dev/null
	assert_exit 0 audit_repair --rerun-list rerun.csv --execute
	run2=$(asql 'select max(run_id) from reckon.run')
	assert_eq "match|0|t" "$(asql "select concat_ws('|', verdict, exit_status, error is null) from reckon.run
		where run_id = $run2")"
	# W0, done by the first run, is left alone: it already matches
	assert_eq "already_matches verified verified" \
		"$(asql "select string_agg(status, ' ' order by interval_start) from reckon.repair_interval where run_id = $run2")"
	aquery repairs table=mart.orders days=7 >got
	assert_eq "$run1|failed|verified $run1|failed|not_changed $run1|failed|not_started $run2|match|already_matches $run2|match|verified $run2|match|verified" \
		"$(cut -d'|' -f2,5,9 got | tr '\n' ' ' | sed 's/ $//')"
	assert_contains "$(sed -n 2p got | cut -d'|' -f19-)" "rows of W2 are frozen"
}

# An audit database that cannot be used before the repair: nothing is
# repaired (an audited repair is never done unrecorded), exit 3.
test_repair_audit_unusable_before() {
	reset_all
	repair_list
	local port before
	port=$(closed_port)
	before=$(tgt_md5)
	assert_exit 3 rk repair --source "$(conn $SRC) password=$SECRET" --target "$(conn $TGT)" "${AUDIT_REPAIR[@]}" \
		--rerun-list rerun.csv --execute --audit "host=127.0.0.1 port=$port dbname=x user=x password=$SECRET"
	assert_contains "$ERR" "repair not started: cannot use the audit database"
	assert_contains "$ERR" "run without --audit"
	assert_not_contains "$ERR" "$SECRET"
	assert_eq "" "$(cat "$OUT")" "stdout"
	assert_eq "$before" "$(tgt_md5)" "target untouched"
}

# The audit database fails while recording, after the repair: the repair's
# own outcome is still printed, nothing of it is recorded, and the exit
# status is the worse of the two (3).  When the repair failed too, both
# errors are printed, the repair's first.
test_repair_audit_fails_after_repair() {
	local AUDIT_DB=au_audit_late
	reset_all $AUDIT_DB
	repair_list
	assert_exit 0 audit_repair --rerun-list rerun.csv
	sql $AUDIT_DB "alter table reckon.repair_interval add constraint no_verified check (status <> 'verified') not valid" >/dev/null
	assert_exit 3 audit_repair --rerun-list rerun.csv --execute
	assert_contains "$OUT" "repaired 2 of 2 intervals"
	assert_contains "$ERR" "cannot record the repair in the audit database"
	assert_contains "$ERR" "no_verified"
	assert_eq 1 "$(grep -c '^reckon: error' "$ERR")" "one error: the audit's"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${AUDIT_CHECK[@]}"
	assert_eq "1|2|planned" "$(asql "select concat_ws('|', count(*), (select count(*) from reckon.repair_interval),
		string_agg(verdict, ',')) from reckon.run")" "only the dry run recorded"

	# both fail: the repair stops in W2, and its record is refused
	reset_all $AUDIT_DB
	repair_list
	assert_exit 0 audit_repair --rerun-list rerun.csv
	sql $AUDIT_DB "alter table reckon.repair_interval add constraint no_verified check (status <> 'verified') not valid" >/dev/null
	sql $TGT "create or replace function mart.frozen() returns trigger language plpgsql as
			\$\$ begin raise exception 'rows of W2 are frozen (test)'; end \$\$;
		create trigger frozen before delete on mart.orders for each row
			when (old.created_at >= '2026-03-02 02:00:00+00' and old.created_at < '2026-03-02 03:00:00+00')
			execute function mart.frozen()" >/dev/null
	assert_exit 3 audit_repair --rerun-list rerun.csv --execute
	assert_match "$(grep -F '[2026-03-02T00:00:00Z,' "$OUT")" ' match ' "W0 line on stdout"
	assert_eq 2 "$(grep -c '^reckon: error' "$ERR")" "two errors"
	assert_match "$(grep '^reckon: error' "$ERR" | head -n 1)" 'repaired 1 of 2 intervals' "the repair's error first"
	assert_match "$(grep '^reckon: error' "$ERR" | tail -n 1)" 'cannot record the repair' "then the audit's"
	assert_eq 1 "$(asql 'select count(*) from reckon.run')" "only the dry run recorded"
}

# A schema at version 1 (an older reckon's, with its runs) is upgraded by
# the first repair that records into it; the migration file runs as-is in
# psql and is idempotent.
test_upgrade_from_version_1() {
	local AUDIT_DB=au_audit_v1
	reset_all $AUDIT_DB
	psql_file $AUDIT_DB audit_schema
	sql $AUDIT_DB "insert into reckon.run (command, started_at, finished_at, reckon_version, options, key_columns,
		sum_columns, verdict, exit_status) values ('check', now(), now(), '0.0.9', '{}', '{}', '{}', 'differ', 1)" >/dev/null
	repair_list
	assert_exit 0 audit_repair --rerun-list rerun.csv
	assert_eq "1,2,3,4" "$(asql "select string_agg(version::text, ',' order by version) from reckon.schema_version")"
	assert_eq "check|differ|t repair|planned|t" "$(asql "select string_agg(concat_ws('|', command, verdict,
		error is null), ' ' order by run_id) from reckon.run")"
	psql_file $AUDIT_DB audit_migrate_2
	psql_file $AUDIT_DB audit_migrate_3
	psql_file $AUDIT_DB audit_migrate_4
	assert_eq "1,2,3,4" "$(asql "select string_agg(version::text, ',' order by version) from reckon.schema_version")"
	assert_eq 2 "$(asql 'select count(*) from reckon.repair_interval')"
}
