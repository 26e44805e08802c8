# shellcheck shell=bash
# reckon repair, row by row (the default; docs/repair.md): per interval, in
# one transaction, only the rows of the keys the interval's check names are
# written - missing ones inserted, extra rows and surplus copies deleted,
# changed ones updated in place - so rows that match keep their physical
# row (ctid, xmin), their target-only columns and their referencing rows.
# Filters cannot widen what repair writes, every written row satisfies
# --target-where, --interval-column records the load's interval, and it
# works through a transaction pooler (pgbouncer, pool_mode=transaction).
#
# Source: mk_orders' 34 rows.  Target: the same rows with a primary key,
# target-only columns (batch_id, loaded_at), damaged in W0, W2 and W3:
#   W0 (3, 2) missing   W1 untouched   W2 (10, 1) extra copy   W3 (16, 1) changed

SRC=rr_src
TGT=rr_tgt

REPAIR_OPTS=(--table mart.orders --key order_id,line_no --time created_at --sum amount)

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
}

# The target: the source's rows, the target-only columns, then the damage.
# Without a primary key the extra copy of (10, 1) can exist.
damaged_target() {
	mk_orders $SRC
	sql $TGT "drop table if exists mart.order_notes" >/dev/null
	mk_orders $TGT
	sql $TGT >/dev/null <<-SQL
		alter table mart.orders
			add column batch_id integer not null default 7,
			add column loaded_at timestamptz default clock_timestamp();
		delete from mart.orders where order_id = 3 and line_no = 2;
		insert into mart.orders (order_id, line_no, created_at, amount, qty, note, batch_id)
		select order_id, line_no, created_at, amount, qty, note, 8
		from mart.orders where order_id = 10 and line_no = 1;
		update mart.orders set amount = amount + 1 where order_id = 16 and line_no = 1;
	SQL
}

check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS_OPTS[@]}" "$@"
}

repair() {
	rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" "${REPAIR_OPTS[@]}" "$@"
}

rerun_list() {
	assert_exit 1 check --rerun-list "${1:-rerun.csv}"
}

# Every target row with its physical identity: ctid, xmin and all columns.
physical() {
	sql $TGT "select ctid::text, xmin::text, t::text from mart.orders t order by t::text collate \"C\""
}

# The same, without the rows of the keys named.
physical_except() {
	sql $TGT "select ctid::text, xmin::text, t::text from mart.orders t
	          where (order_id, line_no) not in ($1)
	          order by t::text collate \"C\""
}

# ---------------------------------------------------------------------------

# The default repair writes the three damaged rows and nothing else: every
# other row keeps its ctid and xmin (it was not rewritten), batch_id and
# loaded_at.
test_only_the_rows_that_differ_are_written() {
	damaged_target
	rerun_list
	local before
	before=$(physical_except "(3, 2), (10, 1), (16, 1)")
	assert_exit 0 repair --rerun-list rerun.csv --format json
	assert_eq "planned 1 0 0|planned 0 0 1|planned 0 1 0" \
		"$(jget "$OUT" '[.intervals[] | "\(.status) \(.inserted) \(.updated) \(.deleted_by_time)"] | join("|")')" \
		"the plan: insert / update / delete per interval"
	assert_exit 0 repair --rerun-list rerun.csv --execute --format json
	assert_eq "match 1 0 0|match 0 0 1|match 0 1 0" \
		"$(jget "$OUT" '[.intervals[] | "\(.status) \(.inserted) \(.updated) \(.deleted_by_time)"] | join("|")')"
	assert_eq "$before" "$(physical_except "(3, 2), (10, 1), (16, 1)")" "rows that matched: ctid, xmin, every column"
	# the changed row was updated in place: its target-only columns kept
	assert_eq "98.00|7" "$(sql $TGT 'select amount, batch_id from mart.orders where order_id = 16 and line_no = 1')"
	# one copy of (10, 1) is left
	assert_eq 1 "$(sql $TGT 'select count(*) from mart.orders where order_id = 10 and line_no = 1')"
	assert_exit 0 check
	# a second run changes nothing at all
	local after
	after=$(physical)
	assert_exit 0 repair --rerun-list rerun.csv --execute
	assert_eq "$after" "$(physical)" "the second run"
}

# The checks before and after each interval compute their window digests in
# the server where the reckon extension is (by default: --pushdown auto),
# and stream the rows with --pushdown=off: the same plan, the same writes
# and the same verdicts either way.  The check after the change reads the
# whole interval of the target again, in a new snapshot, and compares it
# with the source's digest of the interval in the run's one snapshot (the
# check before computed it; the staged rows come from it): a row another
# session adds to W2 while the repair waits there is found (W2 differs, exit
# 1), whereas a source row that changes during the run is the next check's
# finding - the repair writes, and compares with, the source as it read it.
test_checks_in_the_server_give_the_streamed_verdicts() {
	local SRC=rr_pd_src TGT=rr_pd_tgt mode pid rc
	local -a opts
	createdb $SRC
	createdb $TGT
	ext_create $SRC
	ext_create $TGT
	for mode in auto off; do
		opts=()
		[[ $mode == off ]] && opts=(--pushdown=off)
		damaged_target
		rerun_list
		assert_exit 0 repair --rerun-list rerun.csv --execute --format json -v "${opts[@]}"
		assert_eq "match 1 0 0|match 0 0 1|match 0 1 0" \
			"$(jget "$OUT" '[.intervals[] | "\(.status) \(.inserted) \(.updated) \(.deleted_by_time)"] | join("|")')" \
			"repaired ($mode)"
		if [[ $mode == auto ]]; then
			assert_contains "$ERR" "target: window digests computed by the server"
			assert_contains "$ERR" "source: window digests computed by the server"
		else
			assert_not_contains "$ERR" "computed by the server"
		fi
		assert_exit 0 check

		# the check after the change must fail: (99, 1) is added to W2
		# while the repair waits for the row lock on (10, 1) there, and
		# (16, 1) of W3 changes at the source meanwhile
		damaged_target
		rerun_list
		holder_start $TGT
		holder_send "begin; select 1 from mart.orders where order_id = 10 and line_no = 1 for update;"
		poll_until "select count(*) = 1 from pg_stat_activity
		            where application_name = 'rk_holder' and state = 'idle in transaction'" $TGT "holder ($mode)"
		(exec "$RECKON" repair --source "$(conn $SRC)" --target "$(conn $TGT)" "${REPAIR_OPTS[@]}" "${opts[@]}" \
			--rerun-list rerun.csv --execute --format json --lock-timeout 10min >bg.out 2>bg.err) &
		pid=$!
		poll_until "select count(*) = 1 from pg_stat_activity
		            where datname = '$TGT' and wait_event_type = 'Lock' and application_name = 'reckon'" postgres \
			"repair waits in W2 ($mode)"
		sql $TGT "insert into mart.orders (order_id, line_no, created_at, amount, qty, note)
		          values (99, 1, '2026-03-02 02:30:00+00', 1.00, 1, 'late')" >/dev/null
		sql $SRC "update mart.orders set amount = amount + 5 where order_id = 16 and line_no = 1" >/dev/null
		holder_send "rollback;"
		holder_stop
		rc=0
		wait "$pid" || rc=$?
		assert_eq 1 "$rc" "exit status when a check after the change differs ($mode)"
		assert_eq "match|differ|match" "$(jget bg.out '[.intervals[].status] | join("|")')" "statuses ($mode)"
		assert_eq "8 9" "$(jget bg.out '.intervals[1].after | "\(.source_rows) \(.target_rows)"')" \
			"W2 after the change ($mode)"
		assert_eq "differ true" "$(jget bg.out '"\(.verdict) \(.complete)"')"
		# W3 holds the source's row as the run read it
		assert_eq "98.00" "$(sql $TGT 'select amount from mart.orders where order_id = 16 and line_no = 1')"
		assert_exit 1 check --rerun-list next.csv
		assert_eq "2026-03-02T02:00:00Z 2026-03-02T03:00:00Z" "$(awk -F, 'NR > 1 { printf "%s%s", s, $1; s = " " }' next.csv)" \
			"the windows the next check finds ($mode)"
	done
}

# --replace-interval keeps the interval-replacing repair: every row of a
# listed interval is deleted and inserted again (target-only columns back
# to their defaults), for loads that own whole intervals.  Its plan names
# the target-only columns it resets and, per interval, the rows it deletes
# and inserts again.
test_replace_interval_rewrites_whole_intervals() {
	damaged_target
	rerun_list
	assert_exit 0 repair --rerun-list rerun.csv --replace-interval --format json
	assert_eq "batch_id, loaded_at" "$(jget "$OUT" .reset_columns)"
	assert_eq "8 (1,1) (1,2) (2,1)|9 (10,1) (10,1) (10,2)|8 (14,1) (14,2) (15,1)" \
		"$(jget "$OUT" '[.intervals[] | "\(.reset) \(.reset_keys)"] | join("|")')"
	assert_exit 0 repair --rerun-list rerun.csv --replace-interval
	assert_contains "$OUT" "target-only columns that --replace-interval resets to their defaults: batch_id, loaded_at; the rows it deletes and inserts again:"
	assert_contains "$OUT" "[2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z)    8 rows (e.g. (1,1) (1,2) (2,1))"
	assert_exit 0 repair --rerun-list rerun.csv --execute --replace-interval --format json
	assert_eq "replace-interval" "$(jget "$OUT" .repair)"
	assert_eq "match 8 9|match 9 8|match 8 8" \
		"$(jget "$OUT" '[.intervals[] | "\(.status) \(.deleted_by_time) \(.inserted)"] | join("|")')"
	# (10, 1)'s other copy had batch_id 8, all other rows 7: all 7 again
	assert_eq "7|34" "$(sql $TGT 'select min(batch_id), count(*) from mart.orders')"
}

# A child table referencing the target with ON DELETE CASCADE, and an
# identity surrogate key that the source does not have: the default repair
# deletes no parent that matches, so no child goes, and no surrogate value
# changes.
test_referencing_rows_and_identity_kept() {
	damaged_target
	sql $TGT >/dev/null <<-SQL
		delete from mart.orders where order_id = 10 and line_no = 1 and batch_id = 8;
		alter table mart.orders add column id bigint generated always as identity;
		alter table mart.orders add primary key (order_id, line_no);
		create table mart.order_notes (
			order_id bigint, line_no integer, remark text,
			foreign key (order_id, line_no) references mart.orders on delete cascade);
		insert into mart.order_notes select order_id, line_no, 'remark' from mart.orders;
	SQL
	rerun_list
	local ids
	ids=$(sql $TGT "select order_id, line_no, id from mart.orders order by 1, 2")
	assert_exit 0 repair --rerun-list rerun.csv --execute --format json
	assert_eq "match" "$(jget "$OUT" .verdict)"
	assert_eq 33 "$(sql $TGT 'select count(*) from mart.order_notes')" "every child kept"
	# every surrogate kept; the inserted row got a new one
	assert_eq "$ids" "$(sql $TGT "select order_id, line_no, id from mart.orders
	                             where (order_id, line_no) <> (3, 2) order by 1, 2")"
	assert_exit 0 check
}

# The source moved a row to another window (its time changed): the target's
# copy is updated in place - its identity and children stay - and the window
# it left is checked again.
test_moved_row_updated_in_place() {
	sql $TGT "drop table if exists mart.order_notes" >/dev/null
	mk_orders $TGT
	sql $TGT "update mart.orders set created_at = '2026-03-02 03:35:00+00' where order_id = 3 and line_no = 2" >/dev/null
	rerun_list
	assert_exit 0 repair --rerun-list rerun.csv --format json
	assert_eq "0 1 1" "$(jget "$OUT" '.intervals[0] | "\(.inserted) \(.updated) \(.moved)"')"
	assert_exit 0 repair --rerun-list rerun.csv --execute --format json
	assert_eq "match|match" "$(jget "$OUT" '[.intervals[].status] | join("|")')"
	assert_eq "1|2026-03-02 00:35:00+00" \
		"$(sql $TGT 'select count(*), min(created_at) from mart.orders where order_id = 3 and line_no = 2')"
	assert_exit 0 check
}

# A key the source holds twice within one interval: which copy should the
# target hold?  Refused before any change, exit 2, no retry hint.
test_source_key_repeated_within_interval_refused() {
	damaged_target
	sql $SRC "insert into mart.orders select * from mart.orders where order_id = 1 and line_no = 1" >/dev/null
	rerun_list
	local before
	before=$(physical)
	assert_exit 2 repair --rerun-list rerun.csv
	assert_contains "$ERR" "nothing was changed: the key (order_id, line_no) is not unique at the source within an interval: the source holds (1, 1) 2 times in [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z)"
	assert_not_contains "$ERR" "run the same command again"
	assert_exit 2 repair --rerun-list rerun.csv --execute
	assert_eq "$before" "$(physical)"
	mk_orders $SRC
}

# --interval-column records the load's interval: with --load-interval the
# start of the load interval holding the row's time; without it the value
# the target's rows of the interval record; neither: exit 2 before any
# change.
test_interval_column_records_the_load_interval() {
	damaged_target
	sql $TGT "alter table mart.orders add column load_start timestamptz;
	          update mart.orders set load_start = '2026-03-02 00:00:00+00'" >/dev/null
	rerun_list
	# the rows of each interval record the day's load: that value is written
	assert_exit 0 repair --rerun-list rerun.csv --execute --interval-column load_start
	assert_eq "2026-03-02 00:00:00+00|34" "$(sql $TGT 'select load_start, count(*) from mart.orders group by 1')"
	# with --load-interval 1d the same, computed from the row's time
	damaged_target
	sql $TGT "alter table mart.orders add column load_start timestamptz" >/dev/null
	local before
	before=$(physical)
	assert_exit 2 repair --rerun-list rerun.csv --execute --interval-column load_start
	assert_contains "$ERR" "cannot tell the load's interval for [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z)"
	assert_contains "$ERR" "--load-interval"
	assert_eq "$before" "$(physical)" "nothing changed"
	assert_exit 0 repair --rerun-list rerun.csv --execute --interval-column load_start --load-interval 1d
	assert_eq "2026-03-02 00:00:00+00" "$(sql $TGT 'select load_start from mart.orders where order_id = 3 and line_no = 2')"
	assert_exit 2 repair --rerun-list rerun.csv --load-interval 1d
	assert_contains "$ERR" "no --interval-column was given"
}

# Every row repair writes satisfies --target-where.  The target holds two
# origins; the source has no origin column, so an inserted row would take
# the default 'pos' - another owner's slice: rolled back, exit 2, naming
# the column; the dry run refuses it before, in both modes, from the
# catalog.
test_written_rows_satisfy_target_where() {
	damaged_target
	sql $TGT "alter table mart.orders add column origin text not null default 'pos';
	          update mart.orders set origin = 'shop'" >/dev/null
	rerun_list
	local before mode
	before=$(physical)
	# the dry run already tells, from the catalog, in both modes: no source
	# column fills origin, so what it would insert takes the default
	for mode in "" --replace-interval; do
		assert_exit 2 repair --rerun-list rerun.csv --target-where "origin = 'shop'" $mode
		assert_contains "$ERR" "--target-where origin = 'shop' tests the target column origin, which no source column fills:"
		assert_contains "$ERR" "would take its default and not be selected by it"
		assert_contains "$ERR" "map it with --source-expr origin=SQL"
		assert_not_contains "$ERR" "run the same command again"
	done
	assert_exit 2 repair --rerun-list rerun.csv --target-where "origin = 'shop'"
	assert_contains "$ERR" "1 of the 1 row repair would insert into [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z)"
	# a default the filter selects is fine: the plan goes through
	sql $TGT "alter table mart.orders alter column origin set default 'shop'" >/dev/null
	assert_exit 0 repair --rerun-list rerun.csv --target-where "origin = 'shop'"
	assert_exit 0 repair --rerun-list rerun.csv --target-where "origin = 'shop'" --replace-interval
	sql $TGT "alter table mart.orders alter column origin set default 'pos'" >/dev/null
	assert_exit 0 repair --rerun-list rerun.csv --target-where "origin = 'shop'" --source-expr "origin='shop'"
	assert_exit 2 repair --rerun-list rerun.csv --execute --target-where "origin = 'shop'"
	assert_contains "$ERR" "1 row repair wrote into [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z) is not selected by --target-where origin = 'shop'"
	assert_contains "$ERR" "no source column fills the target column origin"
	assert_contains "$ERR" "--source-expr origin=SQL"
	assert_eq "$before" "$(physical)" "nothing changed"
	# mapped, it works
	assert_exit 0 repair --rerun-list rerun.csv --execute --target-where "origin = 'shop'" --source-expr "origin='shop'"
	assert_eq "shop|34" "$(sql $TGT 'select origin, count(*) from mart.orders group by 1')"
}

# No filter text can widen what repair writes: whatever --target-where
# holds (unbalanced parentheses, comments, dollar quoting, semicolons,
# current_query(), set-returning and volatile functions), only rows of the
# listed interval W0 and of its finding key change - in both modes.  (Failed
# before: "current_query() ~ 'DELETE[ ]FROM') or (true" deleted every row of
# the table, exit 0.)
test_hostile_filters_cannot_widen_the_repair() {
	local -a corpus=(
		"x) or (true"
		"true) or (true"
		"current_query() ~ 'DELETE[ ]FROM') or (true"
		"true -- ) or (true"
		"true /* ) or (true */"
		"\$\$) or (true\$\$ = '') or (true"
		"true); delete from mart.orders; select (true"
		"generate_series(1, 3) > 0"
		"random() < 2"
		"order_id > 0) as p from mart.orders) f, lateral (select (true"
		"'a' = 'a' or order_id is not null"
	)
	local f mode outside
	for mode in rows replace; do
		for f in "${corpus[@]}"; do
			damaged_target
			# damage outside W0 too (W2, W3), so a widened delete would show;
			# a filter is refused (2) or applied (0)
			printf '%s\n%s,9,8,1,0,0,0\n' "$RERUN_HEADER" "$W0" >w0.csv
			outside=$(sql $TGT "select ctid::text, xmin::text, t::text from mart.orders t
			                     where created_at >= '2026-03-02 01:00:00+00' order by 1")
			if [[ $mode == rows ]]; then
				assert_exit "0 2" repair --rerun-list w0.csv --execute --target-where "$f"
			else
				assert_exit "0 2" repair --rerun-list w0.csv --execute --target-where "$f" --replace-interval
			fi
			assert_eq "$outside" "$(sql $TGT "select ctid::text, xmin::text, t::text from mart.orders t
			                     where created_at >= '2026-03-02 01:00:00+00' order by 1")" \
				"rows outside W0 after --target-where $f ($mode)"
			assert_match "$(sql $TGT "select count(*) from mart.orders where created_at < '2026-03-02 01:00:00+00'")" \
				'^(8|9)$' "rows of W0 after --target-where $f ($mode)"
		done
	done
}

# Through a transaction pooler that resets every server session after each
# transaction, the repair works, dry run and --execute: nothing it relies
# on outlives its transaction.
test_through_a_transaction_pooler() {
	damaged_target
	rerun_list
	pgbouncer_start $TGT
	trap pgbouncer_stop EXIT
	local pooled="host=127.0.0.1 port=$PGB_PORT dbname=$TGT user=$PGUSER" before
	before=$(physical_except "(3, 2), (10, 1), (16, 1)")
	assert_exit 0 rk repair --source "$(conn $SRC)" --target "$pooled" "${REPAIR_OPTS[@]}" --rerun-list rerun.csv \
		--format json
	assert_eq "planned 1 0 0|planned 0 0 1|planned 0 1 0" \
		"$(jget "$OUT" '[.intervals[] | "\(.status) \(.inserted) \(.updated) \(.deleted_by_time)"] | join("|")')"
	assert_exit 0 rk repair --source "$(conn $SRC)" --target "$pooled" "${REPAIR_OPTS[@]}" --rerun-list rerun.csv \
		--execute --format json
	assert_eq "match|match|match" "$(jget "$OUT" '[.intervals[].status] | join("|")')"
	assert_eq "$before" "$(physical_except "(3, 2), (10, 1), (16, 1)")" "rows that matched"
	assert_exit 0 check
	pgbouncer_stop
	trap - EXIT
}

# Through the pooler, to a database whose own defaults are far from what
# reckon reads text by (DateStyle SQL, DMY; a time zone of +05:45; other
# interval, float and bytea styles), the check reports what it reports on
# a direct connection and the repair's checks, plan and writes are right:
# each transaction sets reckon's settings itself (SET LOCAL), since the
# session's are reset after every transaction.
test_settings_hold_through_a_transaction_pooler() {
	damaged_target
	# a float column: its text takes 17 significant digits at
	# extra_float_digits 3, 15 at the database's 0 (pgbouncer carries
	# DateStyle, TimeZone and IntervalStyle over, this one not)
	local db
	for db in $SRC $TGT; do
		sql $db "alter table mart.orders add column ratio float8; update mart.orders set ratio = order_id / 3.0" >/dev/null
	done
	rerun_list
	sql $TGT "alter database $TGT set DateStyle = 'SQL, DMY'; alter database $TGT set TimeZone = 'Asia/Kathmandu';
	          alter database $TGT set IntervalStyle = 'sql_standard'; alter database $TGT set extra_float_digits = 0;
	          alter database $TGT set bytea_output = 'escape'" >/dev/null
	pgbouncer_start $TGT
	trap 'pgbouncer_stop; sql $TGT "alter database $TGT reset all" >/dev/null' EXIT
	local pooled="host=127.0.0.1 port=$PGB_PORT dbname=$TGT user=$PGUSER" before
	# the pooler's sessions do use the database's defaults
	assert_eq "SQL, DMY" "$("$RK_PGBIN/psql" -X -At -h 127.0.0.1 -p "$PGB_PORT" -d $TGT -c 'show DateStyle')"
	before=$(physical_except "(3, 2), (10, 1), (16, 1)")
	# what the check reports through the pooler is what it reports directly
	assert_exit 1 check --report direct
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$pooled" "${ORDERS_OPTS[@]}" --report pooled
	local f
	for f in direct/*.csv; do
		assert_file_eq "pooled/${f#direct/}" "$f"
	done
	assert_exit 0 rk repair --source "$(conn $SRC)" --target "$pooled" "${REPAIR_OPTS[@]}" --rerun-list rerun.csv \
		--format json
	assert_eq "planned 1 0 0|planned 0 0 1|planned 0 1 0" \
		"$(jget "$OUT" '[.intervals[] | "\(.status) \(.inserted) \(.updated) \(.deleted_by_time)"] | join("|")')"
	assert_exit 0 rk repair --source "$(conn $SRC)" --target "$pooled" "${REPAIR_OPTS[@]}" --rerun-list rerun.csv \
		--execute --format json
	assert_eq "match 1 0 0|match 0 0 1|match 0 1 0" \
		"$(jget "$OUT" '[.intervals[] | "\(.status) \(.inserted) \(.updated) \(.deleted_by_time)"] | join("|")')"
	assert_eq "$before" "$(physical_except "(3, 2), (10, 1), (16, 1)")" "rows that matched"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$pooled" "${ORDERS_OPTS[@]}"
	assert_exit 0 check
	pgbouncer_stop
	sql $TGT "alter database $TGT reset all" >/dev/null
	trap - EXIT
}

# Through the pooler, --lock-timeout still bounds the wait for the write
# lock: the pooler drops the options startup parameter and the session's
# settings, so only the transaction's own SET LOCAL lock_timeout holds.
# A repair whose lock another session holds stops after 1s, exit 3,
# nothing changed.  (The wait is bounded here only so that a broken case
# ends: without that setting the repair would wait for ever.)
test_lock_timeout_through_a_transaction_pooler() {
	damaged_target
	rerun_list
	pgbouncer_start $TGT
	trap pgbouncer_stop EXIT
	local pooled="host=127.0.0.1 port=$PGB_PORT dbname=$TGT user=$PGUSER" before rc=0 pid i
	before=$(physical)
	holder_start $TGT
	holder_send "select pg_advisory_lock(hashtext('reckon repair'), 'mart.orders'::regclass::oid::int4);"
	poll_until "select count(*) = 1 from pg_locks l join pg_stat_activity a using (pid)
	            where l.locktype = 'advisory' and l.granted and a.application_name = 'rk_holder'" $TGT "holder lock"
	(exec "$RECKON" repair --source "$(conn $SRC)" --target "$pooled" "${REPAIR_OPTS[@]}" --rerun-list rerun.csv \
		--execute --lock-timeout 1s >bg.out 2>bg.err) &
	pid=$!
	for i in $(seq 1 600); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		fail "the repair through the pooler was still waiting for the lock after a minute (--lock-timeout 1s)"
	fi
	wait "$pid" || rc=$?
	assert_eq 3 "$rc" "exit status"
	assert_contains bg.err "waited more than --lock-timeout 1s for a lock on target table mart.orders"
	assert_contains bg.err "interval [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z) was not changed"
	holder_send "select pg_advisory_unlock_all();"
	holder_stop
	assert_eq "$before" "$(physical)" "nothing changed"
	pgbouncer_stop
	trap - EXIT
}

# The dry run predicts what would fail or be unsafe, before any change,
# exit 2, no retry hint: a target role without the privileges repair needs,
# extra rows that a foreign key references (blocking: the delete would
# fail; cascading: refused without --allow-cascade, and --replace-interval
# refuses any cascading key).
test_dry_run_refuses_what_would_fail() {
	damaged_target
	rerun_list
	# a role that may read but not write
	sql $TGT "drop role if exists rr_reader; create role rr_reader login;
	          grant usage on schema mart to rr_reader; grant select on mart.orders to rr_reader" >/dev/null
	assert_exit 2 rk repair --source "$(conn $SRC)" --target "$(conn $TGT) user=rr_reader" "${REPAIR_OPTS[@]}" \
		--rerun-list rerun.csv
	assert_contains "$ERR" "the target role may not INSERT, UPDATE, DELETE target table mart.orders"
	assert_not_contains "$ERR" "run the same command again"
	# the extra copy of (10, 1) in W2 is referenced by a child row
	sql $TGT >/dev/null <<-SQL
		alter table mart.orders add column id bigint generated always as identity unique;
		create table mart.order_notes (order_id bigint references mart.orders (id) on delete cascade);
		insert into mart.order_notes select id from mart.orders where batch_id = 8;
	SQL
	local before
	before=$(physical)
	assert_exit 2 repair --rerun-list rerun.csv
	assert_contains "$ERR" "dry run of interval [2026-03-02T02:00:00Z, 2026-03-02T03:00:00Z) failed; nothing was changed"
	assert_contains "$ERR" "deletes 1 target row that 1 row of mart.order_notes references through foreign key order_notes_order_id_fkey (ON DELETE CASCADE: they are deleted too)"
	assert_contains "$ERR" "--allow-cascade"
	assert_not_contains "$ERR" "run the same command again"
	assert_eq "$before" "$(physical)" "nothing changed by the dry run"
	# --execute stops at W2, before its writes: the child is still there
	assert_exit 2 repair --rerun-list rerun.csv --execute
	assert_contains "$ERR" "interval [2026-03-02T02:00:00Z, 2026-03-02T03:00:00Z) was not changed"
	assert_eq 1 "$(sql $TGT 'select count(*) from mart.order_notes')" "the child"
	assert_exit 2 repair --rerun-list rerun.csv --replace-interval
	assert_contains "$ERR" "--replace-interval deletes every target row of an interval, and 1 foreign key references"
	# allowed, the extra row goes with its child; the other rows stay
	assert_exit 0 repair --rerun-list rerun.csv --execute --allow-cascade
	assert_eq 0 "$(sql $TGT 'select count(*) from mart.order_notes')"
	assert_exit 0 check
	sql $TGT "drop table mart.order_notes; drop owned by rr_reader; drop role rr_reader" >/dev/null
}

# A stale target copy at +-infinity, of a key the source holds in a listed
# interval, is refused before any change, exit 2, no retry hint, in both
# modes, dry run and --execute: row by row it would be moved out of a
# window that cannot be named, --replace-interval's delete by key would
# remove it from one.
test_stale_copies_out_of_range_refused_in_both_modes() {
	local stamp before
	for stamp in infinity -infinity; do
		damaged_target
		# the target's only copy of W1's (7, 1) lies at +-infinity
		sql $TGT "update mart.orders set created_at = '$stamp' where order_id = 7 and line_no = 1" >/dev/null
		rerun_list
		assert_match "$(cut -d, -f1 rerun.csv | tr '\n' ' ')" "2026-03-02T01:00:00Z" "W1 is listed ($stamp)"
		before=$(physical)
		assert_exit 2 repair --rerun-list rerun.csv
		assert_contains "$ERR" "at +-infinity or out of reckon's time range (e.g. (7,1))"
		assert_not_contains "$ERR" "run the same command again"
		assert_exit 2 repair --rerun-list rerun.csv --replace-interval
		assert_contains "$ERR" "the delete by key would remove 1 stale target row at +-infinity or out of reckon's time range (e.g. (7,1))"
		assert_contains "$ERR" "nothing was changed"
		assert_not_contains "$ERR" "run the same command again"
		assert_exit 2 repair --rerun-list rerun.csv --replace-interval --execute
		assert_contains "$ERR" "stale target row at +-infinity"
		assert_not_contains "$ERR" "run the same command again"
		assert_eq "$before" "$(physical)" "nothing changed ($stamp)"
	done
}

# wide_tables - mart.wide of 1600 columns (id, ts, c3 .. c1600), as many as
# a PostgreSQL table may have, on both sides: one row at the source, none
# at the target
wide_tables() {
	local db
	for db in $SRC $TGT; do
		sql $db >/dev/null <<-SQL
			create schema if not exists mart;
			drop table if exists mart.wide;
			do \$\$ begin
				execute 'create table mart.wide (id bigint primary key, ts timestamptz, '
				        || (select string_agg(format('c%s integer', g), ', ' order by g) from generate_series(3, 1600) g)
				        || ')';
			end \$\$;
		SQL
	done
	sql $SRC "insert into mart.wide (id, ts, c3, c1600) values (1, '2026-03-02 00:10:00+00', 3, 1600)" >/dev/null
}

# --replace-interval would stage a table's 1600 columns and the interval's
# start: one column more than PostgreSQL allows.  The dry run and --execute
# refuse it before any change (exit 2, no retry hint); row by row, whose
# staging table has only the written columns, repairs it.
test_staging_over_the_column_limit_refused() {
	wide_tables
	printf '%s\n%s\n' "$RERUN_HEADER" "$W0,1,0,1,0,0,0" >wide.csv
	local wide=(--source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.wide --key id --time ts
		--rerun-list wide.csv --now 2026-03-03T00:00:00Z)
	assert_exit 2 rk repair "${wide[@]}" --replace-interval
	assert_contains "$ERR" "--replace-interval stages the 1600 written columns of target table mart.wide and the interval's start: 1601 columns, more than the 1600 a PostgreSQL table may have; nothing was changed"
	assert_not_contains "$ERR" "run the same command again"
	assert_exit 2 rk repair "${wide[@]}" --replace-interval --execute
	assert_not_contains "$ERR" "run the same command again"
	assert_eq 0 "$(sql $TGT 'select count(*) from mart.wide')"
	assert_exit 0 rk repair "${wide[@]}" --execute --format json
	assert_eq "match 1" "$(jget "$OUT" '.intervals[0] | "\(.status) \(.inserted)"')"
	assert_eq "1|3|1600" "$(sql $TGT 'select id, c3, c1600 from mart.wide')"
}

# As a new user would: a target made the usual way - an identity surrogate
# as its primary key, the natural key unique, lineage columns the source
# does not have (batch_id, loaded_at) - with a child table referencing the
# surrogate ON DELETE CASCADE, loaded from the source, then damaged (a row
# lost, an amount changed, a row the source never had).  check, the dry
# run, --execute: the three rows are written and nothing else - every other
# row keeps its ctid, xmin, surrogate and lineage, and every child is still
# there; a second run changes nothing.
test_new_user_target_with_lineage_identity_and_children() {
	mk_orders $SRC
	sql $TGT "create schema if not exists mart; drop table if exists mart.order_items, mart.order_notes, mart.orders" >/dev/null
	sql $TGT >/dev/null <<-SQL
		create table mart.orders (
			id         bigint generated always as identity primary key,
			order_id   bigint not null,
			line_no    integer not null,
			created_at timestamptz,
			amount     numeric(12,2),
			qty        integer,
			note       text,
			batch_id   integer not null default 41,
			loaded_at  timestamptz not null default clock_timestamp(),
			unique (order_id, line_no));
		create table mart.order_items (
			item_id  bigint generated always as identity,
			order_ref bigint not null references mart.orders (id) on delete cascade,
			sku      text);
	SQL
	"$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d $SRC -c "copy mart.orders to stdout" |
		"$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d $TGT \
			-c "copy mart.orders (order_id, line_no, created_at, amount, qty, note) from stdin" ||
		fail "loading the target failed"
	sql $TGT >/dev/null <<-SQL
		insert into mart.order_items (order_ref, sku) select id, 'sku-' || g from mart.orders, generate_series(1, 2) g;
		delete from mart.order_items where order_ref = (select id from mart.orders where order_id = 3 and line_no = 2);
		delete from mart.orders where order_id = 3 and line_no = 2;
		update mart.orders set amount = amount + 1 where order_id = 16 and line_no = 1;
		insert into mart.orders (order_id, line_no, created_at, amount, qty, note)
		values (99, 1, '2026-03-02 02:30:00+00', 1.00, 1, 'never at the source');
	SQL
	local untouched children
	untouched=$(sql $TGT "select ctid::text, xmin::text, t::text from mart.orders t
	                     where (order_id, line_no) not in ((3, 2), (16, 1), (99, 1)) order by id")
	children=$(sql $TGT "select i::text from mart.order_items i order by item_id")
	assert_exit 1 check --rerun-list rerun.csv
	assert_exit 0 repair --rerun-list rerun.csv
	assert_contains "$OUT" "planned"
	assert_exit 0 repair --rerun-list rerun.csv --execute --format json
	assert_eq "match|1 inserted, 1 updated, 1 deleted" \
		"$(jget "$OUT" '"\(.verdict)|\(.totals.inserted) inserted, \(.totals.updated) updated, \(.totals.deleted_by_time) deleted"')"
	assert_eq "$untouched" "$(sql $TGT "select ctid::text, xmin::text, t::text from mart.orders t
	                     where (order_id, line_no) not in ((3, 2), (16, 1), (99, 1)) order by id")" \
		"untouched rows: ctid, xmin, surrogate, lineage"
	assert_eq "$children" "$(sql $TGT "select i::text from mart.order_items i order by item_id")" "every child"
	# the changed row kept its surrogate, its children and its lineage
	assert_eq "98.00|41|2" "$(sql $TGT "select o.amount, o.batch_id, (select count(*) from mart.order_items i
	                                    where i.order_ref = o.id) from mart.orders o where order_id = 16 and line_no = 1")"
	assert_exit 0 check
	untouched=$(physical)
	assert_exit 0 repair --rerun-list rerun.csv --execute
	assert_eq "$untouched" "$(physical)" "the second run"
	sql $TGT "drop table mart.order_items" >/dev/null
}

# More finding keys than a scan is handed by value (RK_REPAIR_KEY_TEXTS,
# 256), kept in a spill that holds one byte in memory (RK_SPILL_BYTES=1:
# every key through run files, issue 25): the interval's source rows are
# staged whole, and still only the rows that differ are written.
test_many_keys_through_a_spill() {
	local opts=(--table public.many --key id --time ts --sum amount) before db
	local range=(--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-04-01T00:00:00Z)
	for db in $SRC $TGT; do
		sql $db "drop table if exists many;
		         create table many (id int primary key, ts timestamptz not null, amount numeric(12,2));
		         insert into many select g, '2026-03-02 00:00+00'::timestamptz + g * interval '1 second', g
		         from generate_series(1, 900) g" >/dev/null
	done
	# 300 changed, 86 missing
	sql $TGT "update many set amount = amount + 1 where id % 3 = 0;
	          delete from many where id % 7 = 0 and id % 3 <> 0" >/dev/null
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${opts[@]}" "${range[@]}" \
		--rerun-list rerun.csv
	before=$(sql $TGT "select ctid::text, xmin::text, t::text from many t where id % 3 <> 0 order by id")
	assert_exit 0 env RK_SPILL_BYTES=1 "$RECKON" repair --source "$(conn $SRC)" --target "$(conn $TGT)" \
		"${opts[@]}" --rerun-list rerun.csv --execute --format json -vv
	assert_eq "match 86 300 0" "$(jget "$OUT" '.intervals[] | "\(.status) \(.inserted) \(.updated) \(.deleted_by_time)"')"
	assert_match "$(sed -nE 's/.*repair: 386 finding key\(s\) of .*, ([0-9]+) run\(s\) of them spilled.*/\1/p' "$ERR" | head -n 1)" \
		'^[1-9][0-9]*$' "runs of keys spilled"
	assert_eq "$before" "$(sql $TGT "select ctid::text, xmin::text, t::text from many t where id % 3 <> 0 and id % 7 <> 0 order by id")" \
		"rows that matched: ctid, xmin, every column"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${opts[@]}" "${range[@]}"
}
