# shellcheck shell=bash disable=SC2054
# reckon check: windows.  Half-open [start, end) windows anchored at --from,
# rows on a boundary belong to the later window, microsecond timestamps,
# open windows (end > now - settle), NULL times, date and timestamp (without
# time zone) time columns.

SRC=ck_win_src
TGT=ck_win_tgt

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_events $SRC
	mk_orders $SRC
	assert_eq 7 "$(sql $SRC 'select count(*) from mart.events')"
}

# Rows on and around the hour boundaries of [00:00, 03:00).
mk_events() {
	sql "$1" >/dev/null <<-'SQL'
		create schema if not exists mart;
		drop table if exists mart.events;
		create table mart.events (id integer, ts timestamptz, v numeric(10,2));
		insert into mart.events values
			(1, '2026-03-02 00:59:59.999999+00', 1.10),
			(2, '2026-03-02 01:00:00+00',        2.20),
			(3, '2026-03-02 02:00:00+00',        3.30),
			(4, '2026-03-02 02:59:59.999999+00', 4.40),
			(5, '2026-03-02 03:00:00+00',        5.50),   -- = --to: outside the range
			(6, '2026-03-01 23:59:59.999999+00', 6.60),   -- before --from
			(7, '2026-03-02 00:00:00+00',        7.70);
	SQL
}

EVENTS=(--table mart.events --key id --time ts --sum v
	--from 2026-03-02T00:00:00Z --to 2026-03-02T03:00:00Z --window 1h --now 2026-03-03T00:00:00Z)

events_check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${EVENTS[@]}" "$@"
}

test_boundary_rows_land_in_later_window() {
	mk_events $TGT
	mkdir rep
	assert_exit 0 events_check --report rep
	assert_eq "match match match" "$(statuses rep/windows.csv)"
	assert_eq "2 1 2" "$(tail -n +2 rep/windows.csv | cut -d, -f4 | tr '\n' ' ' | sed 's/ $//')" "source rows per window"
	assert_eq "8.8 2.2 7.7" "$(tail -n +2 rep/windows.csv | cut -d, -f6 | tr '\n' ' ' | sed 's/ $//')" "source sums per window"
	assert_eq "5 5" "$(jget rep/summary.json '"\(.source_rows) \(.target_rows)"')" "rows inside the range"
}

test_boundary_row_missing_flags_later_window() {
	mk_events $TGT
	sql $TGT "delete from mart.events where id = 2" >/dev/null
	mkdir rep
	assert_exit 1 events_check --report rep --rerun-list rerun.csv
	assert_eq "match differ match" "$(statuses rep/windows.csv)"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,id,source_copies,target_copies
		2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,missing,2,1,0
	EOF
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,1,0,1,0,0,0
	EOF
}

test_boundary_row_moved_across_windows() {
	mk_events $TGT
	# one microsecond later: from the last instant of W0 to the first of W1
	sql $TGT "update mart.events set ts = '2026-03-02 01:00:00+00' where id = 1" >/dev/null
	mkdir rep
	assert_exit 1 events_check --report rep
	assert_eq "differ differ match" "$(statuses rep/windows.csv)"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,id,source_copies,target_copies
		2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,missing,1,1,0
		2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,extra,1,0,1
	EOF
}

test_rows_outside_range_ignored() {
	mk_events $TGT
	sql $TGT "insert into mart.events values
	              (100, '2026-03-02 03:00:00+00', 1),
	              (101, '2026-03-01 23:59:59.999999+00', 1),
	              (102, '2026-03-05 00:00:00+00', 1);
	          delete from mart.events where id in (5, 6)" >/dev/null
	mkdir rep
	assert_exit 0 events_check --report rep
	assert_eq "match match match" "$(statuses rep/windows.csv)"
}

# 90-second windows and microsecond timestamps.
test_sub_second_timestamps() {
	local db
	for db in $SRC $TGT; do
		sql "$db" >/dev/null <<-'SQL'
			drop table if exists mart.ticks;
			create table mart.ticks (id integer, ts timestamptz, v integer);
			insert into mart.ticks values
				(1, '2026-03-02 00:00:00.000001+00', 1),
				(2, '2026-03-02 00:00:00.5+00',      2),
				(3, '2026-03-02 00:01:29.999999+00', 3),
				(4, '2026-03-02 00:01:30+00',        4),
				(5, '2026-03-02 00:02:59.999999+00', 5);
		SQL
	done
	local -a opts=(--source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.ticks --key id --time ts
		--from 2026-03-02T00:00:00Z --to 2026-03-02T00:03:00Z --window 90s --now 2026-03-03T00:00:00Z)
	mkdir rep
	assert_exit 0 rk check "${opts[@]}" --report rep
	assert_eq "2026-03-02T00:00:00Z,2026-03-02T00:01:30Z,match,3,3" "$(sed -n 2p rep/windows.csv | cut -d, -f1-5)"
	assert_eq "2026-03-02T00:01:30Z,2026-03-02T00:03:00Z,match,2,2" "$(sed -n 3p rep/windows.csv | cut -d, -f1-5)"
	# one microsecond off: the time column is hashed
	sql $TGT "update mart.ticks set ts = '2026-03-02 00:00:00.500001+00' where id = 2" >/dev/null
	assert_exit 1 rk check "${opts[@]}" --report rep
	assert_eq "differ match" "$(statuses rep/windows.csv)"
	assert_contains rep/findings.csv "2026-03-02T00:00:00Z,2026-03-02T00:01:30Z,changed,2,1,1"
	# and across the 00:01:30 boundary
	sql $TGT "update mart.ticks set ts = '2026-03-02 00:00:00.5+00' where id = 2;
	          update mart.ticks set ts = '2026-03-02 00:01:30+00' where id = 3" >/dev/null
	assert_exit 1 rk check "${opts[@]}" --report rep
	assert_eq "differ differ" "$(statuses rep/windows.csv)"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,id,source_copies,target_copies
		2026-03-02T00:00:00Z,2026-03-02T00:01:30Z,missing,3,1,0
		2026-03-02T00:01:30Z,2026-03-02T00:03:00Z,extra,3,0,1
	EOF
}

# Window bounds with a fraction are written with six digits; others without.
test_fractional_window_bounds() {
	mk_events $TGT
	mkdir rep
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.events --key id --time ts \
		--from 2026-03-02T00:59:59.5Z --to 2026-03-02T01:00:01.5Z --window 1s --now 2026-03-03T00:00:00Z --report rep
	assert_eq "2026-03-02T00:59:59.500000Z,2026-03-02T01:00:00.500000Z,match,2,2" "$(sed -n 2p rep/windows.csv | cut -d, -f1-5)"
	assert_eq "2026-03-02T01:00:00.500000Z,2026-03-02T01:00:01.500000Z,match,0,0" "$(sed -n 3p rep/windows.csv | cut -d, -f1-5)"
	assert_eq 3 "$(wc -l <rep/windows.csv)"
}

orders_check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h "$@"
}

# --now 03:05 with the default settle of 10m: windows ending after 02:55 are open.
test_open_windows_never_flagged() {
	mk_orders $TGT
	# damage in W2 and W3 only
	sql $TGT "delete from mart.orders where order_id = 11 and line_no = 1;
	          insert into mart.orders select * from mart.orders where order_id = 16" >/dev/null
	mkdir rep
	assert_exit 0 orders_check --now 2026-03-02T03:05:00Z --report rep --rerun-list rerun.csv
	assert_eq "match match open open" "$(statuses rep/windows.csv)"
	assert_eq "2026-03-02T02:00:00Z,2026-03-02T03:00:00Z,open,,,,,," "$(sed -n 4p rep/windows.csv)"
	assert_eq "2026-03-02T03:00:00Z,2026-03-02T04:00:00Z,open,,,,,," "$(sed -n 5p rep/windows.csv)"
	assert_eq match "$(jget rep/summary.json .verdict)"
	assert_eq "2 2 0 2" "$(jget rep/summary.json '[.windows.checked, .windows.matched, .windows.differ, .windows.open] | map(tostring) | join(" ")')"
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
	EOF
	assert_eq 1 "$(wc -l <rep/findings.csv)" "findings.csv holds only its header"
}

# end <= now - settle is closed: a window ending exactly at now - settle is checked.
test_settle_boundary_is_closed() {
	mk_orders $TGT
	sql $TGT "delete from mart.orders where order_id = 11 and line_no = 1" >/dev/null
	mkdir rep
	assert_exit 1 orders_check --now 2026-03-02T03:10:00Z --report rep
	assert_eq "match match differ open" "$(statuses rep/windows.csv)"
	assert_exit 0 orders_check --now 2026-03-02T03:09:59.999999Z --report rep
	assert_eq "match match open open" "$(statuses rep/windows.csv)"
}

test_settle_option() {
	mk_orders $TGT
	sql $TGT "delete from mart.orders where order_id = 11 and line_no = 1" >/dev/null
	mkdir rep
	assert_exit 1 orders_check --now 2026-03-02T03:00:00Z --settle 0s --report rep
	assert_eq "match match differ open" "$(statuses rep/windows.csv)"
	assert_exit 0 orders_check --now 2026-03-02T04:00:00Z --settle 2h --report rep
	assert_eq "match match open open" "$(statuses rep/windows.csv)"
	assert_exit 1 orders_check --now 2026-03-02T04:00:00Z --settle 1h --report rep
	assert_eq "match match differ open" "$(statuses rep/windows.csv)"
}

# Without --now, the clock decides: the far past is closed, the far future open.
test_now_defaults_to_current_time() {
	mk_orders $TGT
	mkdir rep
	assert_exit 0 orders_check --report rep
	assert_eq "match match match match" "$(statuses rep/windows.csv)"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders \
		--key order_id,line_no --time created_at \
		--from 2999-01-01T00:00:00Z --to 2999-01-01T02:00:00Z --window 1h --report rep
	assert_eq "open open" "$(statuses rep/windows.csv)"
}

test_null_time_rows_counted_and_differ() {
	mk_orders $TGT
	sql $SRC "drop table if exists mart.orders_nt; create table mart.orders_nt as table mart.orders;
	          insert into mart.orders_nt values (500, 1, null, 1.00, 1, 'no time'), (501, 1, null, 2.00, 1, 'no time')" >/dev/null
	sql $TGT "drop table if exists mart.orders_nt; create table mart.orders_nt as table mart.orders;
	          insert into mart.orders_nt values (500, 1, null, 1.00, 1, 'no time')" >/dev/null
	mkdir rep
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders_nt \
		"${ORDERS_CHECK[@]}" --report rep --rerun-list rerun.csv
	assert_eq differ "$(jget rep/summary.json .verdict)"
	assert_eq "2 1" "$(jget rep/summary.json '"\(.null_time_rows.source) \(.null_time_rows.target)"')"
	# the windows themselves agree
	assert_eq "match match match match" "$(statuses rep/windows.csv)"
	# the same NULL-time rows on both sides still make the verdict differ
	sql $TGT "insert into mart.orders_nt values (501, 1, null, 2.00, 1, 'no time')" >/dev/null
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders_nt \
		"${ORDERS_CHECK[@]}" --report rep
	assert_eq "2 2" "$(jget rep/summary.json '"\(.null_time_rows.source) \(.null_time_rows.target)"')"
	assert_eq differ "$(jget rep/summary.json .verdict)"
}

# A date time column: a day is [00:00Z, 24:00Z).
test_date_time_column() {
	local db
	for db in $SRC $TGT; do
		sql "$db" >/dev/null <<-'SQL'
			drop table if exists mart.daily;
			create table mart.daily (day date, shop text, revenue numeric(14,2));
			insert into mart.daily
			select date '2026-03-01' + d, 'shop-' || s, d * 100 + s
			from generate_series(0, 2) d, generate_series(1, 3) s;
		SQL
	done
	sql $TGT "update mart.daily set revenue = revenue + 1 where day = '2026-03-02' and shop = 'shop-2'" >/dev/null
	mkdir rep
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.daily \
		--key day,shop --time day --sum revenue \
		--from 2026-03-01T00:00:00Z --to 2026-03-04T00:00:00Z --window 1d --now 2026-04-01T00:00:00Z --report rep
	assert_eq "match differ match" "$(statuses rep/windows.csv)"
	assert_eq "2026-03-02T00:00:00Z,2026-03-03T00:00:00Z,differ,3,3,306,307" "$(sed -n 3p rep/windows.csv | cut -d, -f1-7)"
	assert_eq "2026-03-02T00:00:00Z,2026-03-03T00:00:00Z,changed,2026-03-02,shop-2,1,1" "$(sed -n 2p rep/findings.csv)"
}

# timestamp without time zone is taken as UTC.
test_timestamp_without_time_zone() {
	local db
	for db in $SRC $TGT; do
		sql "$db" >/dev/null <<-'SQL'
			drop table if exists mart.local_events;
			create table mart.local_events (id integer, ts timestamp, amount numeric(8,2));
			insert into mart.local_events values
				(1, '2026-03-02 00:30:00', 1), (2, '2026-03-02 01:00:00', 2), (3, '2026-03-02 01:59:59.999999', 3);
		SQL
	done
	mkdir rep
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.local_events \
		--key id --time ts --sum amount \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T02:00:00Z --window 1h --now 2026-04-01T00:00:00Z --report rep
	assert_eq "2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,match,1,1,1,1" "$(sed -n 2p rep/windows.csv | cut -d, -f1-7)"
	assert_eq "2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,match,2,2,5,5" "$(sed -n 3p rep/windows.csv | cut -d, -f1-7)"
	# --from with an offset names the same instant
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.local_events \
		--key id --time ts --sum amount \
		--from 2026-03-02T01:00:00+01:00 --to 2026-03-02T03:00:00+01:00 --window 1h --now 2026-04-01T00:00:00Z --report rep
	assert_eq "2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,match,1,1,1,1" "$(sed -n 2p rep/windows.csv | cut -d, -f1-7)"
}
