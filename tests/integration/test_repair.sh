# shellcheck shell=bash
# reckon repair (product.md §2.4, docs/repair.md): the dry run changes
# nothing, --execute replaces exactly the listed intervals and the next check
# matches, a second run changes nothing, CSV sources work, CSV targets are
# refused, concurrent repairs serialise on the advisory lock, and a repair
# that dies or loses a session leaves every interval untouched or replaced.
#
# Source: mk_orders' 34 rows.  Target: the same rows plus two columns only the
# target has (loaded_at defaults to clock_timestamp(), interval_start), then
# damaged in three of the four hourly windows:
#   W0 (3, 2) missing   W1 untouched   W2 (10, 1) duplicated   W3 (16, 1) changed

SRC=rp_src
TGT=rp_tgt

REPAIR_OPTS=(--table mart.orders --key order_id,line_no --time created_at --sum amount)

# The interval bounds of each window as SQL literals.
B0="'2026-03-02 00:00:00+00'"
B1="'2026-03-02 01:00:00+00'"
B2="'2026-03-02 02:00:00+00'"
B3="'2026-03-02 03:00:00+00'"
B4="'2026-03-02 04:00:00+00'"

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
	assert_eq 34 "$(sql $SRC 'select count(*) from mart.orders')"
}

# A fresh target with the target-only columns, damaged in W0, W2 and W3.
damaged_target() {
	mk_orders $TGT
	sql $TGT >/dev/null <<-SQL
		alter table mart.orders
			add column loaded_at timestamptz default clock_timestamp(),
			add column interval_start timestamptz;
		delete from mart.orders where order_id = 3 and line_no = 2;
		insert into mart.orders (order_id, line_no, created_at, amount, qty, note)
		select order_id, line_no, created_at, amount, qty, note
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

# repair_bg OUT ERR [ARG...] - a repair in the background; $! is reckon
# itself (exec), so a signal reaches the process that holds the sessions.
repair_bg() {
	local out=$1 err=$2
	shift 2
	(exec "$RECKON" repair --source "$(conn $SRC)" --target "$(conn $TGT)" "${REPAIR_OPTS[@]}" "$@" \
		>"$out" 2>"$err") &
}

# The rerun list of the damaged target, written by reckon check.
rerun_list() {
	assert_exit 1 check --rerun-list "${1:-rerun.csv}"
	assert_file_eq "${1:-rerun.csv}" - <<-EOF
		$RERUN_HEADER
		$W0,9,8,1,0,0,0
		$W2,8,9,0,0,1,0
		$W3,8,8,0,0,0,1
	EOF
}

# Every target row, every column, in a stable order (as text).
snapshot_all() {
	sql $TGT "select t::text from mart.orders t order by t::text collate \"C\""
}

# The target rows with created_at in [$1, $2), every column, loaded_at included.
snapshot_range() {
	sql $TGT "select t::text from mart.orders t
	          where created_at >= $1 and created_at < $2
	          order by t::text collate \"C\""
}

# Every target row without the column whose default changes on each insert.
snapshot_no_loaded_at() {
	sql $TGT "select r from (select (order_id, line_no, created_at, amount, qty, note, interval_start)::text
	                          from mart.orders) x (r)
	          order by r collate \"C\""
}

table_md5() {
	sql $TGT "select md5(coalesce(string_agg(t::text, '|' order by t::text collate \"C\"), ''))
	          from mart.orders t"
}

# poll_until SQL DB [WHAT] - waits until SQL (one boolean) is true in DB.
# The bound only keeps a broken case from hanging the suite; no assertion
# depends on timing.
poll_until() {
	local i
	for i in $(seq 1 600); do
		[[ $(sql "$2" "$1") == t ]] && { _rk_ok; return 0; }
		sleep 0.1
	done
	fail "${3:-condition} never became true: $1"
}

# holder_start DB - a psql session fed through a FIFO (descriptor 7), so a
# case can hold locks in it and release them when it chooses.
holder_start() {
	mkfifo "$T/holder.fifo"
	PGAPPNAME=rk_holder "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -At -d "$1" \
		<"$T/holder.fifo" >"$T/holder.out" 2>&1 &
	HOLDER_PID=$!
	exec 7>"$T/holder.fifo"
}

holder_send() {
	printf '%s\n' "$1" >&7
}

holder_stop() {
	exec 7>&-
	wait "$HOLDER_PID" || true
}

# The server pid of the holder session.
holder_backend() {
	sql postgres "select pid from pg_stat_activity where application_name = 'rk_holder'"
}

# A backend of database $1 (not the holder) waiting for a lock.
lock_waiter() {
	sql postgres "select string_agg(pid::text, ' ') from pg_stat_activity
	              where datname = '$1' and wait_event_type = 'Lock' and application_name <> 'rk_holder'"
}

# ---------------------------------------------------------------------------

test_dry_run_changes_nothing() {
	damaged_target
	rerun_list
	local before
	before=$(table_md5)
	assert_exit 0 repair --rerun-list rerun.csv --format json
	assert_eq "$before" "$(table_md5)" "table checksum after the dry run"
	assert_eq "dry-run planned true" "$(jget "$OUT" '"\(.mode) \(.verdict) \(.complete)"')"
	# W0: 8 target rows go, 9 source rows come; W2: 9 and 8; W3: 8 and 8
	assert_eq "planned 8 0 9|planned 9 0 8|planned 8 0 8" \
		"$(jget "$OUT" '[.intervals[] | "\(.status) \(.deleted_by_time) \(.deleted_by_key) \(.inserted)"] | join("|")')"
	assert_eq "null" "$(jget "$OUT" '[.intervals[].after] | unique | map(tostring) | join(",")')"
	# the text plan says so too, and still changes nothing
	assert_exit 0 repair --rerun-list rerun.csv
	assert_contains "$OUT" "nothing was changed"
	assert_contains "$OUT" "[2026-03-02T02:00:00Z, 2026-03-02T03:00:00Z)"
	assert_eq "$before" "$(table_md5)" "table checksum after the second dry run"
	# the next check still differs exactly as before
	rerun_list again.csv
}

test_execute_repairs_listed_windows_only() {
	damaged_target
	rerun_list
	local w1
	w1=$(snapshot_range "$B1" "$B2")
	assert_exit 0 repair --rerun-list rerun.csv --execute --format json
	assert_eq "execute match true" "$(jget "$OUT" '"\(.mode) \(.verdict) \(.complete)"')"
	assert_eq "match 8 0 9 9 9|match 9 0 8 8 8|match 8 0 8 8 8" \
		"$(jget "$OUT" '[.intervals[] | "\(.status) \(.deleted_by_time) \(.deleted_by_key) \(.inserted) \(.after.source_rows) \(.after.target_rows)"] | join("|")')"
	# W1 was not on the list: byte-identical, loaded_at included
	assert_eq "$w1" "$(snapshot_range "$B1" "$B2")" "rows of W1"
	assert_exit 0 check --rerun-list after.csv
	assert_file_eq after.csv - <<-EOF
		$RERUN_HEADER
	EOF
	# the target-only columns got their defaults; without --interval-column
	# interval_start stays NULL
	assert_eq 0 "$(sql $TGT 'select count(*) from mart.orders where loaded_at is null or interval_start is not null')"
}

test_text_output() {
	damaged_target
	rerun_list
	assert_exit 0 repair --rerun-list rerun.csv --execute
	assert_contains "$OUT" "repaired 3 of 3 intervals"
	assert_match "$(grep -F '[2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z)' "$OUT")" \
		'9/8 +8\+0 +9 +9/9 +match +missing 1$' "W0 line"
	assert_match "$(grep -F '[2026-03-02T02:00:00Z, 2026-03-02T03:00:00Z)' "$OUT")" \
		'8/9 +9\+0 +8 +8/8 +match +duplicated 1$' "W2 line"
	assert_eq "" "$(cat "$ERR")" "stderr"
}

test_second_repair_changes_nothing() {
	damaged_target
	rerun_list
	assert_exit 0 repair --rerun-list rerun.csv --execute --interval-column interval_start
	local first
	first=$(snapshot_no_loaded_at)
	assert_exit 0 repair --rerun-list rerun.csv --execute --interval-column interval_start
	assert_eq "$first" "$(snapshot_no_loaded_at)" "target after the second repair (loaded_at aside)"
	assert_exit 0 check
}

test_interval_column_records_start() {
	damaged_target
	rerun_list
	assert_exit 0 repair --rerun-list rerun.csv --execute --interval-column interval_start
	# every row of a repaired window carries its start; W1's rows stay NULL
	assert_eq "2026-03-02 00:00:00+00|9
2026-03-02 02:00:00+00|8
2026-03-02 03:00:00+00|8
|9" "$(sql $TGT 'select interval_start, count(*) from mart.orders group by 1 order by 1 nulls last')"
	assert_exit 2 repair --rerun-list rerun.csv --execute --interval-column created_at
	assert_contains "$ERR" "also the time column"
	assert_exit 2 repair --rerun-list rerun.csv --interval-column no_such_column
	assert_contains "$ERR" "interval column 'no_such_column' does not exist in target table mart.orders"
}

# A key whose only target copy sits in another window (the source row moved):
# the repair of the key's window deletes the stale copy by key.
test_stale_copy_outside_window_deleted_by_key() {
	damaged_target
	# (3, 2) belongs to W0 (00:35); the target holds it at 03:35 instead
	sql $TGT "insert into mart.orders (order_id, line_no, created_at, amount, qty, note)
	          values (3, 2, '2026-03-02 03:35:00+00', 16.75, 1, 'note 5')" >/dev/null
	printf '%s\n%s,9,8,1,0,0,0\n' "$RERUN_HEADER" "$W0" >w0.csv
	assert_exit 0 repair --rerun-list w0.csv --format json
	assert_eq "8 1 9" "$(jget "$OUT" '.intervals[0] | "\(.deleted_by_time) \(.deleted_by_key) \(.inserted)"')"
	assert_exit 0 repair --rerun-list w0.csv --execute --format json
	assert_eq "8 1 9 match" "$(jget "$OUT" '.intervals[0] | "\(.deleted_by_time) \(.deleted_by_key) \(.inserted) \(.status)"')"
	assert_eq "1|2026-03-02 00:35:00+00" \
		"$(sql $TGT 'select count(*), min(created_at) from mart.orders where order_id = 3 and line_no = 2')"
}

test_csv_source() {
	damaged_target
	rerun_list
	export_csv $SRC "select * from mart.orders order by order_id, line_no" "$T/src.csv"
	assert_exit 0 rk repair --source "csv:$T/src.csv" --target "$(conn $TGT)" "${REPAIR_OPTS[@]}" \
		--rerun-list rerun.csv --execute --format json
	assert_eq "match|match|match" "$(jget "$OUT" '[.intervals[].status] | join("|")')"
	assert_eq "9 8 8" "$(jget "$OUT" '[.intervals[].inserted | tostring] | join(" ")')"
	assert_exit 0 check
	# and again from CSV: same rows
	local first
	first=$(snapshot_no_loaded_at)
	assert_exit 0 rk repair --source "csv:$T/src.csv" --target "$(conn $TGT)" "${REPAIR_OPTS[@]}" \
		--rerun-list rerun.csv --execute
	assert_eq "$first" "$(snapshot_no_loaded_at)"
}

test_csv_target_refused() {
	damaged_target
	rerun_list
	export_csv $SRC "select * from mart.orders" "$T/t.csv"
	local before
	before=$(table_md5)
	assert_exit 2 rk repair --source "$(conn $SRC)" --target "csv:$T/t.csv" "${REPAIR_OPTS[@]}" \
		--rerun-list rerun.csv --execute
	assert_contains "$ERR" "repair writes into a PostgreSQL table"
	assert_eq 1 "$(grep -c '^reckon: error' "$ERR")" "the error is printed once"
	assert_eq "" "$(cat "$OUT")" "stdout"
	assert_eq "$before" "$(table_md5)"
}

test_usage_errors() {
	damaged_target
	rerun_list
	assert_exit 2 repair --execute
	assert_contains "$ERR" "--rerun-list"
	assert_exit 2 repair --rerun-list nonexistent.csv
	assert_exit 2 repair --rerun-list rerun.csv --key order_id,nope
	assert_contains "$ERR" "key column 'nope' does not exist in target table mart.orders"
	assert_exit 2 repair --rerun-list rerun.csv --format xml
	printf 'interval_start,interval_end\n' >bad.csv
	assert_exit 2 repair --rerun-list bad.csv
	assert_exit 0 rk repair --help
	assert_contains "$OUT" "--execute"
	# a target-only column is no key: the source has no such column
	assert_exit 2 repair --rerun-list rerun.csv --key order_id,interval_start
	assert_contains "$ERR" "is not a column of source table mart.orders"
}

test_empty_rerun_list() {
	damaged_target
	printf '%s\n' "$RERUN_HEADER" >empty.csv
	local before
	before=$(table_md5)
	assert_exit 0 repair --rerun-list empty.csv --execute
	assert_contains "$OUT" "nothing to repair"
	assert_eq "$before" "$(table_md5)"
}

# A second repair waits while another session holds the table's repair lock
# (here a psql session taking it by hand, as docs/repair.md shows), and goes
# on once it is released.
test_advisory_lock_serialises() {
	damaged_target
	rerun_list
	local before rc=0 pid
	before=$(table_md5)
	holder_start $TGT
	holder_send "select pg_advisory_lock(hashtext('reckon repair'), 'mart.orders'::regclass::oid::int4);"
	poll_until "select count(*) = 1 from pg_locks l join pg_stat_activity a using (pid)
	            where l.locktype = 'advisory' and l.granted and a.application_name = 'rk_holder'" $TGT "holder lock"
	repair_bg bg.out bg.err --rerun-list rerun.csv --execute
	pid=$!
	# the repair is blocked on exactly that lock ...
	poll_until "select count(*) = 1 from pg_locks l join pg_stat_activity a using (pid)
	            where l.locktype = 'advisory' and not l.granted and a.application_name = 'reckon'" $TGT "repair waits"
	# ... still running, has changed nothing, and says why it waits
	kill -0 "$pid" || fail "the repair did not wait for the lock"
	assert_eq "$before" "$(table_md5)" "target while the lock is held"
	assert_contains bg.err "locked by another repair; waiting"
	holder_send "select pg_advisory_unlock_all();"
	holder_stop
	wait "$pid" || rc=$?
	assert_eq 0 "$rc" "exit status of the repair that waited"
	assert_contains bg.out "repaired 3 of 3 intervals"
	assert_exit 0 check
}

# Two repairs of one table at the same time: both finish, the target matches.
test_concurrent_repairs() {
	damaged_target
	rerun_list
	local a=0 b=0
	repair_bg a.out a.err --rerun-list rerun.csv --execute
	local pa=$!
	repair_bg b.out b.err --rerun-list rerun.csv --execute
	local pb=$!
	wait "$pa" || a=$?
	wait "$pb" || b=$?
	assert_eq "0 0" "$a $b" "exit statuses"
	assert_exit 0 check
	assert_eq 34 "$(sql $TGT 'select count(*) from mart.orders')"
}

# Holds W2's target rows locked, so a repair commits W0 and then blocks
# inside W2's transaction; prints the blocked backend's pid.
block_in_w2() {
	holder_start $TGT
	holder_send "begin; select order_id from mart.orders where created_at >= $B2 and created_at < $B3 for update;"
	poll_until "select count(*) = 1 from pg_stat_activity
	            where application_name = 'rk_holder' and state = 'idle in transaction'" $TGT "holder row locks"
}

test_sigkill_mid_run_leaves_intervals_whole() {
	damaged_target
	rerun_list
	local w2 w3 pid
	w2=$(snapshot_range "$B2" "$B3")
	w3=$(snapshot_range "$B3" "$B4")
	block_in_w2
	repair_bg bg.out bg.err --rerun-list rerun.csv --execute
	pid=$!
	poll_until "select count(*) = 1 from pg_stat_activity
	            where datname = '$TGT' and wait_event_type = 'Lock' and application_name = 'reckon'" postgres \
		"repair blocked in W2"
	# W0 is committed already: its missing row is back
	assert_eq 1 "$(sql $TGT 'select count(*) from mart.orders where order_id = 3 and line_no = 2')"
	kill -KILL "$pid"
	wait "$pid" || true
	holder_send "rollback;"
	holder_stop
	# the dead client's transaction ends when its backend notices
	poll_until "select count(*) = 0 from pg_stat_activity where datname = '$TGT' and application_name = 'reckon'" \
		postgres "the killed repair's sessions end"
	assert_eq "$w2" "$(snapshot_range "$B2" "$B3")" "W2 untouched"
	assert_eq "$w3" "$(snapshot_range "$B3" "$B4")" "W3 untouched"
	assert_exit 1 check --rerun-list left.csv
	assert_file_eq left.csv - <<-EOF
		$RERUN_HEADER
		$W2,8,9,0,0,1,0
		$W3,8,8,0,0,0,1
	EOF
	# the same list again finishes the job
	assert_exit 0 repair --rerun-list rerun.csv --execute
	assert_exit 0 check
}

test_target_session_terminated() {
	damaged_target
	rerun_list
	local w2 w3 pid rc=0 victim
	w2=$(snapshot_range "$B2" "$B3")
	w3=$(snapshot_range "$B3" "$B4")
	block_in_w2
	repair_bg bg.out bg.err --rerun-list rerun.csv --execute
	pid=$!
	poll_until "select count(*) = 1 from pg_stat_activity
	            where datname = '$TGT' and wait_event_type = 'Lock' and application_name = 'reckon'" postgres \
		"repair blocked in W2"
	victim=$(lock_waiter $TGT)
	assert_eq t "$(sql postgres "select pg_terminate_backend($victim)")"
	wait "$pid" || rc=$?
	holder_send "rollback;"
	holder_stop
	assert_eq 3 "$rc" "exit status after the target session was terminated"
	assert_contains bg.err "repaired 1 of 3 intervals: [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z); interval [2026-03-02T02:00:00Z, 2026-03-02T03:00:00Z) was not changed; 1 later interval was not started"
	assert_contains bg.err "delete by time failed on target"
	assert_eq 1 "$(grep -c '^reckon: error' bg.err)" "the error is printed once"
	# what was done is on stdout
	assert_match "$(grep -F '[2026-03-02T00:00:00Z,' bg.out)" ' match ' "W0 line"
	assert_match "$(grep -F '[2026-03-02T02:00:00Z,' bg.out)" ' failed ' "W2 line"
	assert_match "$(grep -F '[2026-03-02T03:00:00Z,' bg.out)" ' pending ' "W3 line"
	assert_eq "$w2" "$(snapshot_range "$B2" "$B3")" "W2 untouched"
	assert_eq "$w3" "$(snapshot_range "$B3" "$B4")" "W3 untouched"
	assert_exit 0 repair --rerun-list rerun.csv --execute
	assert_exit 0 check
}

# The source session dies while the repair waits in W2: W0 and W2 are done
# (W2's rows were already staged), W3 cannot be read and is left as it was.
test_source_session_terminated() {
	damaged_target
	rerun_list
	local w3 pid rc=0
	w3=$(snapshot_range "$B3" "$B4")
	block_in_w2
	repair_bg bg.out bg.err --rerun-list rerun.csv --execute
	pid=$!
	poll_until "select count(*) = 1 from pg_stat_activity
	            where datname = '$TGT' and wait_event_type = 'Lock' and application_name = 'reckon'" postgres \
		"repair blocked in W2"
	assert_eq t "$(sql postgres "select bool_and(pg_terminate_backend(pid)) from pg_stat_activity
	                             where datname = '$SRC' and application_name = 'reckon'")"
	holder_send "rollback;"
	holder_stop
	wait "$pid" || rc=$?
	assert_eq 3 "$rc" "exit status after the source session was terminated"
	assert_contains bg.err "repaired 2 of 3 intervals: [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z), [2026-03-02T02:00:00Z, 2026-03-02T03:00:00Z); interval [2026-03-02T03:00:00Z, 2026-03-02T04:00:00Z) was not changed"
	assert_eq "$w3" "$(snapshot_range "$B3" "$B4")" "W3 untouched"
	assert_exit 0 repair --rerun-list rerun.csv --execute
	assert_exit 0 check
}

# A repair whose re-check still differs exits 1: the source changes while
# the repair runs (its snapshot was taken at the start), so W2 is replaced
# with rows the source no longer holds.
test_verification_failure_exits_1() {
	damaged_target
	rerun_list
	local pid rc=0
	block_in_w2
	repair_bg bg.out bg.err --rerun-list rerun.csv --execute --format json
	pid=$!
	poll_until "select count(*) = 1 from pg_stat_activity
	            where datname = '$TGT' and wait_event_type = 'Lock' and application_name = 'reckon'" postgres \
		"repair blocked in W2"
	sql $SRC "update mart.orders set amount = amount + 5 where order_id = 10 and line_no = 2" >/dev/null
	holder_send "rollback;"
	holder_stop
	wait "$pid" || rc=$?
	sql $SRC "update mart.orders set amount = amount - 5 where order_id = 10 and line_no = 2" >/dev/null
	assert_eq 1 "$rc" "exit status when a re-check differs"
	assert_eq "match|differ|match" "$(jget bg.out '[.intervals[].status] | join("|")')"
	assert_eq "differ true" "$(jget bg.out '"\(.verdict) \(.complete)"')"
	assert_eq "" "$(cat bg.err)" "stderr"
}
