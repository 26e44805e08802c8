# shellcheck shell=bash
# reckon repair (docs/reference.md, docs/repair.md): the dry run changes
# nothing and counts what --execute does, --execute replaces exactly the
# listed intervals and the next check matches, a second run changes nothing
# at all, CSV sources work, CSV targets, open intervals, a subscribed target
# and a key the source does not hold uniquely are refused, concurrent
# repairs serialise on the advisory lock, a lock held too long or a signal
# stops the run cleanly, and a repair that dies or loses a session leaves
# every interval untouched or replaced.
#
# Source: mk_orders' 34 rows.  Target: the same rows plus two columns only the
# target has (loaded_at defaults to clock_timestamp(), interval_start), then
# damaged in three of the four hourly windows:
#   W0 (3, 2) missing   W1 untouched   W2 (10, 1) duplicated   W3 (16, 1) changed

SRC=rp_src
TGT=rp_tgt

# These cases pin --replace-interval (loads that own whole intervals); the
# default, row by row, is test_repair_rows.sh.
TABLE_OPTS=(--table mart.orders --key order_id,line_no --time created_at --sum amount)
REPAIR_OPTS=("${TABLE_OPTS[@]}" --replace-interval)

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

# The same list again changes nothing at all - not even loaded_at, whose
# default would show a rewrite: each interval is checked first and left
# alone when it matches.
test_second_repair_changes_nothing() {
	damaged_target
	rerun_list
	assert_exit 0 repair --rerun-list rerun.csv --execute --interval-column interval_start --load-interval 1h
	local first
	first=$(snapshot_all)
	assert_exit 0 repair --rerun-list rerun.csv --execute --interval-column interval_start --load-interval 1h --format json
	assert_eq "$first" "$(snapshot_all)" "target after the second repair, loaded_at included"
	assert_eq "already_matches|already_matches|already_matches" "$(jget "$OUT" '[.intervals[].status] | join("|")')"
	assert_eq "match 0 0 3" "$(jget "$OUT" '"\(.verdict) \(.totals.repaired) \(.totals.deleted_by_time) \(.totals.already_matches)"')"
	assert_exit 0 repair --rerun-list rerun.csv --execute
	assert_contains "$OUT" "already matches"
	assert_contains "$OUT" "3 already matched (left alone)"
	assert_eq "$first" "$(snapshot_all)"
	# the dry run says so too
	assert_exit 0 repair --rerun-list rerun.csv
	assert_contains "$OUT" "dry run: 3 intervals (3 already match); would delete 0 target rows"
	assert_exit 0 check
}

test_interval_column_records_start() {
	damaged_target
	rerun_list
	assert_exit 0 repair --rerun-list rerun.csv --execute --interval-column interval_start --load-interval 1h
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
# the repair of the key's window deletes the stale copy by key, and checks
# again the window it took it from.  Here that window (W3) has damage of its
# own, so it still differs: exit 1, and it says which window.  (Failed
# before: exit 0, "1 matches", W3 never looked at.)
test_stale_copy_outside_window_deleted_by_key() {
	damaged_target
	# (3, 2) belongs to W0 (00:35); the target holds it at 03:35 instead
	sql $TGT "insert into mart.orders (order_id, line_no, created_at, amount, qty, note)
	          values (3, 2, '2026-03-02 03:35:00+00', 16.75, 1, 'note 5')" >/dev/null
	printf '%s\n%s,9,8,1,0,0,0\n' "$RERUN_HEADER" "$W0" >w0.csv
	assert_exit 0 repair --rerun-list w0.csv --format json
	assert_eq "8 1 9" "$(jget "$OUT" '.intervals[0] | "\(.deleted_by_time) \(.deleted_by_key) \(.inserted)"')"
	assert_eq "2026-03-02T03:00:00Z 1 planned" "$(jget "$OUT" '.touched[] | "\(.window_start) \(.deleted) \(.status)"')"
	assert_exit 1 repair --rerun-list w0.csv --execute --format json
	assert_eq "8 1 9 match" "$(jget "$OUT" '.intervals[0] | "\(.deleted_by_time) \(.deleted_by_key) \(.inserted) \(.status)"')"
	assert_eq "2026-03-02T03:00:00Z 2026-03-02T04:00:00Z 2026-03-02T00:00:00Z 1 differ 8 8" \
		"$(jget "$OUT" '.touched[] | "\(.window_start) \(.window_end) \(.by_interval_start) \(.deleted) \(.status) \(.after.source_rows) \(.after.target_rows)"')"
	assert_eq "differ" "$(jget "$OUT" .verdict)"
	assert_eq "1|2026-03-02 00:35:00+00" \
		"$(sql $TGT 'select count(*), min(created_at) from mart.orders where order_id = 3 and line_no = 2')"
	# W3's own damage (a changed row) is what is left
	assert_exit 1 check --rerun-list left.csv
	assert_file_eq left.csv - <<-EOF
		$RERUN_HEADER
		$W2,8,9,0,0,1,0
		$W3,8,8,0,0,0,1
	EOF
}

# The same with a target damaged only by the stale copy: the window it is
# taken from is checked again and now matches.
test_stale_copy_window_checked_again() {
	mk_orders $TGT
	sql $TGT "update mart.orders set created_at = '2026-03-02 03:35:00+00' where order_id = 3 and line_no = 2" >/dev/null
	assert_exit 1 check --rerun-list rerun.csv
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W0,9,8,1,0,0,0
		$W3,8,9,0,1,0,0
	EOF
	printf '%s\n%s,9,8,1,0,0,0\n' "$RERUN_HEADER" "$W0" >w0.csv
	assert_exit 0 repair --rerun-list w0.csv --execute
	assert_match "$(grep -F 'by [2026-03-02T00:00:00Z' "$OUT")" '^\[2026-03-02T03:00:00Z, 2026-03-02T04:00:00Z\) +by .* deleted 1 +after 8/8 +match$' \
		"the touched window's line"
	assert_exit 0 check
}

# Two listed intervals that interact: W0's delete by key takes the stale
# copy out of W3, which W3's delete by time then no longer finds.  The dry
# run counts each row once, interval by interval as --execute does, so its
# plan equals what --execute then does.
test_dry_run_counts_each_row_once() {
	mk_orders $TGT
	sql $TGT "update mart.orders set created_at = '2026-03-02 03:35:00+00' where order_id = 3 and line_no = 2" >/dev/null
	assert_exit 1 check --rerun-list rerun.csv
	local counts='[.intervals[] | "\(.deleted_by_time)+\(.deleted_by_key) \(.inserted)"] | join("|")'
	assert_exit 0 repair --rerun-list rerun.csv --format json
	assert_eq "8+1 9|8+0 8" "$(jget "$OUT" "$counts")" "the plan"
	assert_eq "17 17" "$(jget "$OUT" '"\(.totals.deleted_by_time + .totals.deleted_by_key) \(.totals.inserted)"')"
	assert_exit 0 repair --rerun-list rerun.csv --format json --execute
	assert_eq "8+1 9|8+0 8" "$(jget "$OUT" "$counts")" "what was done"
	assert_exit 0 check
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

# A repair waits while another session holds the table's write lock (here
# a psql session taking it by hand, as docs/repair.md shows), and goes on
# once it is released: with --replace-interval, and row by row (the
# default), which takes it in each interval's transaction too.  The dry
# run takes no lock: it plans while the lock is held.
test_advisory_lock_serialises() {
	local mode before rc pid
	for mode in replace rows; do
		# row by row: the table options without --replace-interval
		if [[ $mode == rows ]]; then local -a REPAIR_OPTS=("${TABLE_OPTS[@]}"); fi
		damaged_target
		rerun_list
		before=$(table_md5)
		holder_start $TGT
		holder_send "select pg_advisory_lock(hashtext('reckon repair'), 'mart.orders'::regclass::oid::int4);"
		poll_until "select count(*) = 1 from pg_locks l join pg_stat_activity a using (pid)
		            where l.locktype = 'advisory' and l.granted and a.application_name = 'rk_holder'" $TGT \
			"holder lock ($mode)"
		assert_exit 0 repair --rerun-list rerun.csv --lock-timeout 1s
		assert_contains "$OUT" "nothing was changed"
		assert_not_contains "$ERR" "waits"
		rc=0
		repair_bg bg.out bg.err --rerun-list rerun.csv --execute --lock-timeout 10min
		pid=$!
		# the repair is blocked on exactly that lock ...
		poll_until "select count(*) = 1 from pg_locks l join pg_stat_activity a using (pid)
		            where l.locktype = 'advisory' and not l.granted and a.application_name = 'reckon'" $TGT \
			"repair waits ($mode)"
		# ... still running, has changed nothing, and says why it waits
		kill -0 "$pid" || fail "the repair did not wait for the lock ($mode)"
		assert_eq "$before" "$(table_md5)" "target while the lock is held ($mode)"
		assert_contains bg.err "locked by another repair or load; repair waits"
		holder_send "select pg_advisory_unlock_all();"
		holder_stop
		wait "$pid" || rc=$?
		assert_eq 0 "$rc" "exit status of the repair that waited ($mode)"
		assert_contains bg.out "repaired 3 of 3 intervals"
		assert_exit 0 check
	done
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

# An interval load of W0 that starts while a repair of W0 is inside its
# transaction: the load waits for the target's write lock, then replaces
# what the repair committed, and no row is doubled.  The repair is paused
# after its first write by a statement trigger waiting on an advisory lock
# a psql session holds; the load starts once the repair waits there.
test_load_waits_for_repair() {
	damaged_target
	rerun_list
	{ echo "$RERUN_HEADER"; echo "$W0,9,8,1,0,0,0"; } >w0.csv
	sql $TGT >/dev/null <<-'SQL'
		create function mart.pause() returns trigger language plpgsql
		as $$ begin perform pg_advisory_xact_lock_shared(4242); return null; end $$;
		create trigger pause after insert or update or delete on mart.orders
			for each statement execute function mart.pause();
	SQL
	local rc=0 lrc=0 pid lpid
	holder_start $TGT
	holder_send "select pg_advisory_lock(4242);"
	poll_until "select count(*) = 1 from pg_locks l join pg_stat_activity a using (pid)
	            where l.locktype = 'advisory' and l.granted and a.application_name = 'rk_holder'" $TGT "holder lock"
	repair_bg bg.out bg.err --rerun-list w0.csv --execute --lock-timeout 10min
	pid=$!
	poll_until "select count(*) = 1 from pg_stat_activity
	            where datname = '$TGT' and wait_event_type = 'Lock' and application_name <> 'rk_holder'" \
		postgres "repair paused after its first write"
	(exec "$RECKON" load --source "$(conn $SRC)" --target "$(conn $TGT)" "${TABLE_OPTS[@]}" \
		--strategy interval --interval-start 2026-03-02T00:00:00Z --interval-end 2026-03-02T01:00:00Z \
		--lock-timeout 10min >load.out 2>load.err) &
	lpid=$!
	# the load waits too: for the write lock (before: for the rows the
	# repair deleted)
	poll_until "select count(*) = 2 from pg_stat_activity
	            where datname = '$TGT' and wait_event_type = 'Lock' and application_name <> 'rk_holder'" \
		postgres "load waits"
	holder_send "select pg_advisory_unlock_all();"
	holder_stop
	wait "$pid" || rc=$?
	wait "$lpid" || lrc=$?
	assert_eq "9|9" "$(sql $TGT "select count(*), count(distinct (order_id, line_no)) from mart.orders
	                            where created_at >= $B0 and created_at < $B1")" "W0's rows and keys"
	assert_eq "0 0" "$rc $lrc" "exit statuses of the repair and the load"
	assert_contains load.err "locked by another repair or load; load waits"
	sql $TGT >/dev/null <<-'SQL'
		drop trigger pause on mart.orders;
		drop function mart.pause();
	SQL
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
	repair_bg bg.out bg.err --rerun-list rerun.csv --execute --lock-timeout 10min
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
	repair_bg bg.out bg.err --rerun-list rerun.csv --execute --lock-timeout 10min
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

# The source's rows are all read before the first change, and the source
# session closed: a source that goes away while the repair waits in W2
# changes nothing for it - W2 and W3 are still replaced from the rows read.
# A source that goes away before its rows are read leaves every interval as
# it was.
test_source_session_terminated() {
	damaged_target
	rerun_list
	local pid rc=0 before
	block_in_w2
	repair_bg bg.out bg.err --rerun-list rerun.csv --execute --lock-timeout 10min
	pid=$!
	poll_until "select count(*) = 1 from pg_stat_activity
	            where datname = '$TGT' and wait_event_type = 'Lock' and application_name = 'reckon'" postgres \
		"repair blocked in W2"
	assert_eq 0 "$(sql postgres "select count(*) from pg_stat_activity where datname = '$SRC' and application_name = 'reckon'")" \
		"source sessions while the target is written"
	holder_send "rollback;"
	holder_stop
	wait "$pid" || rc=$?
	assert_eq 0 "$rc" "exit status"
	assert_contains bg.out "repaired 3 of 3 intervals"

	# the source read blocked (an exclusive lock on the source table), its
	# session terminated: nothing changed
	damaged_target
	before=$(table_md5)
	holder_start $SRC
	holder_send "begin; lock table mart.orders in access exclusive mode;"
	poll_until "select count(*) = 1 from pg_stat_activity
	            where application_name = 'rk_holder' and state = 'idle in transaction'" $SRC "holder lock"
	repair_bg bg2.out bg2.err --rerun-list rerun.csv --execute --lock-timeout 10min
	pid=$!
	poll_until "select count(*) >= 1 from pg_stat_activity
	            where datname = '$SRC' and wait_event_type = 'Lock' and application_name = 'reckon'" postgres \
		"repair's source read blocked"
	assert_eq t "$(sql postgres "select bool_and(pg_terminate_backend(pid)) from pg_stat_activity
	                             where datname = '$SRC' and application_name = 'reckon'")"
	rc=0
	wait "$pid" || rc=$?
	holder_send "rollback;"
	holder_stop
	assert_eq 3 "$rc" "exit status after the source session was terminated"
	assert_contains bg2.err "reckon: error"
	assert_eq "$before" "$(table_md5)" "target untouched"
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
	repair_bg bg.out bg.err --rerun-list rerun.csv --execute --format json --lock-timeout 10min
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

# --- refusals before any change ---------------------------------------------

# A key the source does not hold uniquely: order_id alone (lines 1 and 2 of
# order 5 lie in W0 and W1).  Repairing W0 by order_id would delete (5, 2)
# from W1 although the source holds it there: refused, naming the key and
# the count, nothing changed.
test_non_unique_key_refused() {
	damaged_target
	local before
	before=$(table_md5)
	printf '%s\n%s,9,8,1,0,0,0\n' "$RERUN_HEADER" "$W0" >w0.csv
	assert_exit 2 repair --rerun-list w0.csv --execute --key order_id
	assert_contains "$ERR" "nothing was changed: the key order_id is not unique at the source: the delete by key would remove 1 target row outside the interval whose key the source also holds outside it (e.g. (5))"
	assert_contains "$ERR" "give --key the columns that identify one row"
	assert_eq "$before" "$(table_md5)" "target after the refused repair"
	assert_exit 2 repair --rerun-list w0.csv --key order_id
	assert_contains "$ERR" "is not unique at the source"
	# two listed intervals holding one key: the later delete would remove
	# what the earlier insert wrote
	sql $TGT "delete from mart.orders where order_id = 6 and line_no = 1" >/dev/null
	before=$(table_md5)
	printf '%s\n%s,9,8,1,0,0,0\n%s,9,8,1,0,0,0\n' "$RERUN_HEADER" "$W0" "$W1" >w01.csv
	assert_exit 2 repair --rerun-list w01.csv --execute --key order_id
	assert_contains "$ERR" "the key order_id is not unique at the source: 1 key is in more than one of the intervals (e.g. (5))"
	assert_eq "$before" "$(table_md5)"
	# the real key repairs the same list
	assert_exit 0 repair --rerun-list w01.csv --execute
	assert_exit 1 check --rerun-list left.csv
	assert_file_eq left.csv - <<-EOF
		$RERUN_HEADER
		$W2,8,9,0,0,1,0
		$W3,8,8,0,0,0,1
	EOF
}

# An interval that ends after now - settle may still receive rows: refused
# unless --allow-open, with --now and --settle as check reads them; future
# and whole-table intervals are open by the same rule; instants without a
# zone are refused as --from refuses them.
test_open_intervals_refused() {
	damaged_target
	rerun_list
	local before
	before=$(table_md5)
	assert_exit 2 repair --rerun-list rerun.csv --execute --now 2026-03-02T04:05:00Z
	assert_contains "$ERR" "1 interval of the list is open: [2026-03-02T03:00:00Z, 2026-03-02T04:00:00Z) ends after 2026-03-02T03:55:00Z (now 2026-03-02T04:05:00Z minus --settle 10m); nothing was changed"
	assert_contains "$ERR" "--allow-open"
	assert_eq "$before" "$(table_md5)"
	assert_exit 2 repair --rerun-list rerun.csv --now 2026-03-02T04:05:00Z
	assert_contains "$ERR" "is open"
	# closed with a shorter margin
	assert_exit 0 repair --rerun-list rerun.csv --now 2026-03-02T04:05:00Z --settle 5m
	assert_contains "$OUT" "dry run: 3 intervals"
	# or repaired open, as asked
	assert_exit 0 repair --rerun-list rerun.csv --now 2026-03-02T04:05:00Z --allow-open --execute
	assert_contains "$ERR" "1 interval of the list is open"
	assert_contains "$OUT" "repaired 3 of 3 intervals"
	# the real clock: an interval an hour ahead, and one from 1970 to 2100
	printf '%s\n%s,%s,0,0,0,0,0,0\n' "$RERUN_HEADER" "$(date -u -d '+1 hour' +%Y-%m-%dT%H:00:00Z)" \
		"$(date -u -d '+2 hours' +%Y-%m-%dT%H:00:00Z)" >future.csv
	assert_exit 2 repair --rerun-list future.csv --execute
	assert_contains "$ERR" "1 interval of the list is open"
	printf '%s\n1970-01-01T00:00:00Z,2100-01-01T00:00:00Z,0,0,0,0,0,0\n' "$RERUN_HEADER" >whole.csv
	assert_exit 2 repair --rerun-list whole.csv --execute
	assert_contains "$ERR" "is open"
	# an instant without a zone
	printf '%s\n2026-03-02 00:00:00,2026-03-02T01:00:00Z,9,8,1,0,0,0\n' "$RERUN_HEADER" >nozone.csv
	assert_exit 2 repair --rerun-list nozone.csv
	assert_contains "$ERR" "nozone.csv:2: interval [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z) is written without a time zone"
	assert_exit 0 rk rerun-list nozone.csv
}

# A target table an enabled logical-replication subscription writes into:
# a repair racing the apply worker breaks replication.  Refused without
# --force, the dry run too; a disabled subscription is no reason.  (Failed
# before: repaired silently.)
test_subscribed_target_refused() {
	damaged_target
	rerun_list
	local before
	sql $TGT "do \$\$ begin if exists (select from pg_subscription where subname = 'rp_sub') then
		alter subscription rp_sub disable; alter subscription rp_sub set (slot_name = none);
		drop subscription rp_sub; end if; end \$\$" >/dev/null
	sql $SRC "drop publication if exists rp_pub; create publication rp_pub for table mart.orders" >/dev/null 2>&1
	# no slot exists: the apply worker never applies anything here
	sql $TGT "create subscription rp_sub connection '$(conn $SRC)' publication rp_pub
	          with (connect = true, create_slot = false, slot_name = 'rp_no_slot', enabled = false, copy_data = false)" \
		>/dev/null 2>&1
	sql $TGT "alter subscription rp_sub enable" >/dev/null
	before=$(table_md5)
	assert_exit 2 repair --rerun-list rerun.csv --execute
	assert_contains "$ERR" "target table mart.orders on"
	assert_contains "$ERR" "is written by the enabled logical-replication subscription 'rp_sub' (r)"
	assert_contains "$ERR" "--force"
	assert_eq "$before" "$(table_md5)"
	assert_exit 2 repair --rerun-list rerun.csv
	assert_contains "$ERR" "subscription 'rp_sub'"
	assert_exit 0 repair --rerun-list rerun.csv --execute --force
	assert_contains "$ERR" "repairing it anyway (--force)"
	assert_contains "$OUT" "repaired 3 of 3 intervals"
	sql $TGT "alter subscription rp_sub disable" >/dev/null
	damaged_target
	assert_exit 0 repair --rerun-list rerun.csv --execute
	sql $TGT "alter subscription rp_sub set (slot_name = none); drop subscription rp_sub" >/dev/null
	sql $SRC "drop publication rp_pub" >/dev/null
}

test_interval_column_is_a_key_column() {
	damaged_target
	rerun_list
	assert_exit 2 repair --rerun-list rerun.csv --execute --interval-column line_no
	assert_contains "$ERR" "--interval-column line_no is also a key column"
}

# --- locks and signals ------------------------------------------------------

# A session holding the table exclusively: the dry run and the repair each
# wait --lock-timeout, then stop with exit 3, nothing changed, naming the
# blocking session - with --replace-interval and row by row (the default).
# Row locks in W2: W0 is repaired, W2 is not, and no session of reckon is
# left queued.  (Row by row failed before: the first check's reader waited,
# and the message named no blocker.)
test_lock_timeout_names_the_blockers() {
	local mode before holder
	for mode in replace rows; do
		if [[ $mode == rows ]]; then local -a REPAIR_OPTS=("${TABLE_OPTS[@]}"); fi
		damaged_target
		rerun_list
		before=$(table_md5)
		holder_start $TGT
		holder_send "begin; lock table mart.orders in access exclusive mode;"
		poll_until "select count(*) = 1 from pg_stat_activity
		            where application_name = 'rk_holder' and state = 'idle in transaction'" $TGT "holder lock"
		holder=$(holder_backend)
		assert_exit 3 repair --rerun-list rerun.csv --lock-timeout 2s
		assert_contains "$ERR" "nothing was changed: waited more than --lock-timeout 2s for a lock on target table mart.orders; blocked by pid $holder (application 'rk_holder', user $PGUSER, idle in transaction, query started 20"
		assert_contains "$ERR" "canceling statement due to lock timeout"
		assert_exit 3 repair --rerun-list rerun.csv --execute --lock-timeout 2s
		assert_contains "$ERR" "blocked by pid $holder (application 'rk_holder'"
		holder_send "rollback;"
		assert_eq "$before" "$(table_md5)"
		holder_send "begin; select order_id from mart.orders where created_at >= $B2 and created_at < $B3 for update;"
		poll_until "select count(*) = 1 from pg_stat_activity
		            where application_name = 'rk_holder' and state = 'idle in transaction'" $TGT "holder row locks"
		assert_exit 3 repair --rerun-list rerun.csv --execute --lock-timeout 2s
		assert_contains "$ERR" "repaired 1 of 3 intervals: [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z); interval [2026-03-02T02:00:00Z, 2026-03-02T03:00:00Z) was not changed; 1 later interval was not started: waited more than --lock-timeout 2s for a lock on target table mart.orders; blocked by pid $holder"
		assert_match "$(grep -F '[2026-03-02T02:00:00Z,' "$OUT")" ' failed ' "W2 line ($mode)"
		assert_match "$(grep -F '[2026-03-02T03:00:00Z,' "$OUT")" ' pending ' "W3 line ($mode)"
		assert_eq 0 "$(sql postgres "select count(*) from pg_stat_activity where datname = '$TGT' and application_name = 'reckon'")" \
			"reckon's sessions left ($mode)"
		holder_send "rollback;"
		holder_stop
	done
	assert_exit 0 rk repair --help
	assert_contains "$OUT" "--lock-timeout DUR"
	assert_contains "$OUT" "(default 30s)"
}

# repair_sig OUT ERR [ARG...] - repair_bg with SIGINT at its default action
# (a shell may start background commands with it ignored, which reckon
# respects), so the case can interrupt it.
repair_sig() {
	local out=$1 err=$2
	shift 2
	(exec perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "exec: $!"' "$RECKON" repair --source "$(conn $SRC)" \
		--target "$(conn $TGT)" "${REPAIR_OPTS[@]}" "$@" >"$out" 2>"$err") &
}

# SIGINT while W2's transaction waits: W2 is rolled back, the table of what
# was done is printed, the run is recorded, and reckon exits 130 (SIGTERM:
# 143).
test_interrupt_rolls_back_prints_and_records() {
	local AUD=rp_audit sig want pid rc w2 w3
	createdb $AUD
	for sig in INT TERM; do
		damaged_target
		rerun_list
		w2=$(snapshot_range "$B2" "$B3")
		w3=$(snapshot_range "$B3" "$B4")
		block_in_w2
		repair_sig bg.out bg.err --rerun-list rerun.csv --execute --lock-timeout 10min --audit "$(conn $AUD)"
		pid=$!
		poll_until "select count(*) = 1 from pg_stat_activity
		            where datname = '$TGT' and wait_event_type = 'Lock' and application_name = 'reckon'" postgres \
			"repair blocked in W2"
		kill -"$sig" "$pid"
		rc=0
		wait "$pid" || rc=$?
		holder_send "rollback;"
		holder_stop
		want=$([[ $sig == INT ]] && echo 130 || echo 143)
		assert_eq "$want" "$rc" "exit status after SIG$sig"
		assert_match "$(grep -F '[2026-03-02T00:00:00Z,' bg.out)" ' match ' "W0 line"
		assert_match "$(grep -F '[2026-03-02T02:00:00Z,' bg.out)" ' failed ' "W2 line"
		assert_match "$(grep -F '[2026-03-02T03:00:00Z,' bg.out)" ' pending ' "W3 line"
		assert_contains bg.out "repaired 1 of 3 intervals: deleted 8 target rows (8 by time, 0 by key), inserted 9; 1 matches (interrupted)"
		assert_contains bg.err "repaired 1 of 3 intervals: [2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z); interval [2026-03-02T02:00:00Z, 2026-03-02T03:00:00Z) was not changed; 1 later interval was not started: interrupted by SIG$sig"
		assert_eq "$w2" "$(snapshot_range "$B2" "$B3")" "W2 untouched"
		assert_eq "$w3" "$(snapshot_range "$B3" "$B4")" "W3 untouched"
		assert_eq "failed|$want|t" "$(sql $AUD "select concat_ws('|', verdict, exit_status, error like '%interrupted by SIG$sig%')
			from reckon.run order by run_id desc limit 1")" "the run's record"
		assert_eq "verified not_changed not_started" "$(sql $AUD "select string_agg(status, ' ' order by interval_start)
			from reckon.repair_interval where run_id = (select max(run_id) from reckon.run)")"
	done
	assert_exit 0 repair --rerun-list rerun.csv --execute
	assert_exit 0 check
}

# --- mappings and filters ----------------------------------------------------

# The mapped pair: the source names and units differ from the target's
# (id, line, ts, amount_cents; note is memo in the target), the source
# holds test rows the load never carries (is_test), and the target table
# holds another origin's rows with the same keys in the same windows.  The
# target's shop rows are damaged as damaged_target damages mart.orders.
MAP_OPTS=(--source-table mart.src_orders --target-table mart.fact --key order_id,line_no --time created_at
	--sum amount --source-expr order_id=id --source-expr line_no=line --source-expr created_at=ts
	--source-expr 'amount=amount_cents / 100.0' --target-expr note=memo --source-where 'not is_test'
	--target-where "origin = 'shop'")

mapped_pair() {
	sql $SRC >/dev/null <<-SQL
		drop table if exists mart.src_orders;
		create table mart.src_orders (id bigint, line int, ts timestamptz, amount_cents bigint, qty int,
		                              note text, is_test bool not null default false);
		insert into mart.src_orders
		select order_id, line_no, created_at, (amount * 100)::bigint, qty, note, false from mart.orders;
		insert into mart.src_orders
		select 900 + g, 1, timestamptz '2026-03-02 00:00:00+00' + g * interval '50 minutes', 1, 1, 'test', true
		from generate_series(0, 4) g;
	SQL
	mk_orders $TGT
	sql $TGT >/dev/null <<-SQL
		drop table if exists mart.fact;
		create table mart.fact (order_id bigint not null, line_no int not null, created_at timestamptz not null,
		                        amount numeric(12,2), qty int, memo text, origin text not null default 'shop',
		                        loaded_at timestamptz default clock_timestamp());
		insert into mart.fact (order_id, line_no, created_at, amount, qty, memo)
		select order_id, line_no, created_at, amount, qty, note from mart.orders;
		insert into mart.fact (order_id, line_no, created_at, amount, qty, memo, origin)
		select order_id, line_no, created_at, amount + 1000, qty, 'theirs', 'other' from mart.orders;
		delete from mart.fact where order_id = 3 and line_no = 2 and origin = 'shop';
		insert into mart.fact (order_id, line_no, created_at, amount, qty, memo)
		select order_id, line_no, created_at, amount, qty, memo from mart.fact
		where order_id = 10 and line_no = 1 and origin = 'shop';
		update mart.fact set amount = amount + 1 where order_id = 16 and line_no = 1 and origin = 'shop';
	SQL
}

mcheck() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${MAP_OPTS[@]}" \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h --now 2026-03-03T00:00:00Z "$@"
}

mrepair() {
	rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" "${MAP_OPTS[@]}" --replace-interval "$@"
}

other_md5() {
	sql $TGT "select md5(string_agg(t::text, '|' order by t::text collate \"C\")) from mart.fact t
	          where origin = 'other'"
}

# Repaired through its mappings and filters, the mapped pair ends as the
# equal unmapped pair ends (damaged_target repaired with REPAIR_OPTS): the
# same rows, the same plan and the same counts, the other origin's rows
# untouched, no test row carried; a check through the same mappings then
# matches.
test_mapped_target_repaired_like_unmapped() {
	local counts='[.intervals[] | "\(.status) \(.deleted_by_time)+\(.deleted_by_key) \(.inserted) \(.source_rows)"] | join("|")'
	local plain_plan plain_done others
	# the unmapped twin first
	damaged_target
	rerun_list plain.csv
	assert_exit 0 repair --rerun-list plain.csv --format json
	plain_plan=$(jget "$OUT" "$counts")
	assert_exit 0 repair --rerun-list plain.csv --format json --execute
	plain_done=$(jget "$OUT" "$counts")
	# the mapped pair: the same damage, found through the mappings
	mapped_pair
	others=$(other_md5)
	assert_exit 1 mcheck --rerun-list mapped.csv
	assert_file_eq mapped.csv plain.csv
	assert_exit 0 mrepair --rerun-list mapped.csv --format json
	assert_eq "$plain_plan" "$(jget "$OUT" "$counts")" "the plan, mapped and unmapped"
	assert_exit 0 mrepair --rerun-list mapped.csv --format json --execute
	assert_eq "$plain_done" "$(jget "$OUT" "$counts")" "what was done, mapped and unmapped"
	assert_exit 0 mcheck
	assert_eq "$others" "$(other_md5)" "the other origin's rows"
	assert_eq 0 "$(sql $TGT 'select count(*) from mart.fact where order_id >= 900')" "test rows carried"
	assert_eq "$(sql $TGT "select string_agg(concat_ws(',', order_id, line_no, created_at, amount, qty, note), '|'
	                       order by order_id, line_no) from mart.orders")" \
		"$(sql $TGT "select string_agg(concat_ws(',', order_id, line_no, created_at, amount, qty, memo), '|'
		             order by order_id, line_no) from mart.fact where origin = 'shop'")" "mapped rows = unmapped rows"
	assert_eq 0 "$(sql $TGT "select count(*) from mart.fact where origin = 'shop' and loaded_at is null")"
	# and again: nothing to do
	assert_exit 0 mrepair --rerun-list mapped.csv --format json --execute
	assert_eq "already_matches|already_matches|already_matches" "$(jget "$OUT" '[.intervals[].status] | join("|")')"
}

# What repair cannot write is refused before any change, naming it: a target
# column that is NOT NULL without a default and that no logical column
# covers, and a target mapping that is an expression.
test_mapping_refusals() {
	mapped_pair
	assert_exit 1 mcheck --rerun-list mapped.csv
	local before
	sql $TGT "alter table mart.fact add column batch_id int" >/dev/null
	sql $TGT "update mart.fact set batch_id = 0; alter table mart.fact alter column batch_id set not null" >/dev/null
	before=$(sql $TGT "select md5(string_agg(t::text, '|' order by t::text collate \"C\")) from mart.fact t")
	assert_exit 2 mrepair --rerun-list mapped.csv --execute
	assert_contains "$ERR" "target column batch_id of mart.fact is NOT NULL and has no default, and no logical column covers it"
	assert_contains "$ERR" "--source-expr batch_id=SQL"
	assert_exit 2 mrepair --rerun-list mapped.csv
	assert_contains "$ERR" "batch_id"
	# a default makes it the default's
	sql $TGT "alter table mart.fact alter column batch_id set default 7" >/dev/null
	assert_exit 0 mrepair --rerun-list mapped.csv
	# an expression on the target side has no column to write
	assert_exit 2 mrepair --rerun-list mapped.csv --execute --target-expr 'qty=qty * 1'
	assert_contains "$ERR" "--target-expr qty=qty * 1 is an expression, not a column of mart.fact: repair cannot write it"
	assert_eq "$before" "$(sql $TGT "select md5(string_agg(t::text, '|' order by t::text collate \"C\")) from mart.fact t")"
	# a bad filter is an input error
	assert_exit 2 mrepair --rerun-list mapped.csv --target-where 'no_such_column = 1'
	assert_contains "$ERR" "no_such_column"
}
