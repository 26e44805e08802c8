# shellcheck shell=bash
# check's input errors that need no difference to find: --types for CSV
# sides, --watermark-query results of the wrong shape, and connection
# strings libpq refuses while quoting them (the password never shows).

SRC=ci_src
TGT=ci_tgt
RANGE=(--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h --now 2026-04-01T00:00:00Z)
ORDERS=(--table mart.orders --key order_id,line_no --time created_at --sum amount)

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
	mk_orders $TGT
}

csv_pair() {
	printf 'id,ts,amount\n1,2026-03-02T00:10:00Z,2.50\n2,2026-03-02T01:10:00Z,\n' >g.csv
	rk check --source csv:g.csv --target csv:g.csv --table t --key id --time ts "${RANGE[@]}" "$@"
}

test_csv_types_option() {
	assert_exit 0 csv_pair --types ts:timestamptz,amount:numeric --sum amount
	assert_contains "$OUT" "verdict: match"
	assert_exit 2 csv_pair --types id
	assert_contains "$ERR" "option --types: 'id' is not COL:TYPE"
	assert_exit 2 csv_pair --types zz:int,ts:timestamptz
	assert_contains "$ERR" "option --types names column 'zz', which the check does not use"
	assert_exit 2 csv_pair --types id:blob,ts:timestamptz
	assert_contains "$ERR" "unknown type 'blob'"
	# both sides CSV: nothing says what the time column is
	assert_exit 2 csv_pair
	assert_contains "$ERR" "the type of time column ts is unknown: both sides are CSV"
}

wm_check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS[@]}" "${RANGE[@]}" --watermark-query "$@"
}

test_watermark_query_shapes() {
	assert_exit 2 csv_pair --types ts:timestamptz --watermark-query 'select now()'
	assert_contains "$ERR" "--watermark-query needs a PostgreSQL source"
	assert_exit 2 wm_check "select now(), 1"
	assert_contains "$ERR" "--watermark-query returned 2 columns"
	assert_exit 2 wm_check "select 'soon'::text"
	assert_contains "$ERR" "--watermark-query returned 'soon', which is not a timestamp"
	# no watermark yet claims nothing: the check itself runs
	assert_exit 0 wm_check "select null::timestamptz"
	assert_contains "$OUT" "verdict: match"
}

# libpq refuses these while quoting the part it could not read; the
# password is hidden in reckon's own copy of the string and in libpq's words.
test_refused_conninfo_hides_the_password() {
	local port
	port=$(closed_port)
	assert_exit 2 rk check --source "postgresql://app:p%zzs3cret@127.0.0.1:$port/db" --target "$(conn $TGT)" \
		"${ORDERS[@]}" "${RANGE[@]}"
	assert_contains "$ERR" 'invalid percent-encoded token: "********"'
	assert_not_contains "$ERR" "s3cret"
	assert_exit 2 rk check --source "postgresql://app:s3%00cret@127.0.0.1:$port/db" --target "$(conn $TGT)" \
		"${ORDERS[@]}" "${RANGE[@]}"
	assert_not_contains "$ERR" "cret"
	assert_exit 2 rk check --source "host=127.0.0.1 port=$port passwd=s3cret dbname=x" --target "$(conn $TGT)" \
		"${ORDERS[@]}" "${RANGE[@]}"
	assert_contains "$ERR" 'invalid connection option "passwd"'
	assert_not_contains "$ERR" "s3cret"
	assert_exit 3 rk check --source "host=127.0.0.1 port=$port password='s3 cret' sslmode=bogus" \
		--target "$(conn $TGT)" "${ORDERS[@]}" "${RANGE[@]}"
	assert_contains "$ERR" 'invalid sslmode value: "bogus"'
	assert_not_contains "$ERR" "cret"
}

pg_check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${RANGE[@]}" "$@"
}

# A relation that is not there: the hint names what is, or says there is
# nothing; a name that cannot be one is refused before connecting.
test_missing_relation_hints() {
	createdb ci_empty
	sql $SRC "create schema if not exists hidden; create table if not exists hidden.orders_archive (id int)" >/dev/null
	sql $SRC "create schema if not exists bare" >/dev/null
	assert_exit 2 rk check --source "$(conn ci_empty)" --target "$(conn $TGT)" --table orders --key id \
		--time created_at "${RANGE[@]}"
	assert_contains "$ERR" "the database holds no table or view outside the system schemas"
	assert_exit 2 pg_check --table bare.orders --key order_id --time created_at
	assert_contains "$ERR" 'schema bare holds no table or view'
	assert_exit 2 pg_check --table orders_archive --key id --time created_at
	assert_contains "$ERR" "hidden.orders_archive"
	assert_contains "$ERR" "not on the search_path: qualify the name"
	assert_exit 2 pg_check --table 'mart..orders' --key order_id --time created_at
	assert_contains "$ERR" "invalid source table name 'mart..orders'"
}

# Column names: capitals need quotes (the hint says how), and a name that
# does not parse is refused.
test_column_name_hints() {
	sql $SRC 'create table if not exists mart."Caps" ("OrderId" int, created_at timestamptz)' >/dev/null
	sql $TGT 'create table if not exists mart."Caps" ("OrderId" int, created_at timestamptz)' >/dev/null
	assert_exit 2 pg_check --table 'mart."Caps"' --key orderid --time created_at --columns orderid,created_at
	assert_contains "$ERR" "names with capitals must be double-quoted: write \"OrderId\""
	assert_exit 2 pg_check "${ORDERS[@]}" --columns 'order_id,"unclosed'
	assert_contains "$ERR" "invalid column name"
}

# far_check SIDE... - reckon check of mart.far over RANGE, a report in rep
far_check() {
	rm -rf rep
	mkdir rep
	rk check --table mart.far --time ts --columns id,ts,seen,seenl "${RANGE[@]}" --report rep "$@"
}

# Timestamps PostgreSQL holds after an int64 of microseconds since 1970
# ends (294247-01-10 04:00:54.775807 to 294276-12-31 23:59:59.999999), and
# its first ones (4714 BC): a table holding them is checked like any other,
# read by binary COPY, COPY text or from a CSV export, as timestamptz and as
# timestamp.  A changed one is found and shown as PostgreSQL prints it; a
# row whose time is one of them is after every window (docs/digest.md), its
# damage outside the range; a --to there is refused, saying where windows
# end.
test_timestamp_past_range_in_data() {
	local db fmt
	for db in $SRC $TGT; do
		sql $db "drop table if exists mart.far;
		         create table mart.far (id int primary key, ts timestamptz, seen timestamptz, seenl timestamp);
		         insert into mart.far values
		         (1, '2026-03-02 00:10:00+00', '294270-01-01 00:00:00+00', '294270-01-01 00:00:00'),
		         (2, '2026-03-02 00:20:00+00', '294276-12-31 23:59:59.999999+00', '294276-12-31 23:59:59.999999'),
		         (3, '2026-03-02 01:30:00+00', '294247-01-10 04:00:54.775807+00', '294247-01-10 04:00:54.775806'),
		         (4, '294260-06-01 00:00:00+00', '2026-03-02 00:00:00+00', null),
		         (5, '2026-03-02 02:40:00+00', '4714-11-24 00:00:00+00 BC', '4713-01-01 00:00:00 BC')" >/dev/null
	done
	sql $TGT "update mart.far set seen = '294276-12-31 23:59:59.999998+00', seenl = '294275-12-31 23:59:59.999999'
	          where id in (2, 4)" >/dev/null
	for fmt in binary text; do
		RECKON_COPY_FORMAT=$fmt assert_exit 1 far_check --source "$(conn $SRC)" --target "$(conn $TGT)" --key id
		assert_file_eq rep/changes.csv - <<-EOF
			window_start,window_end,id,column,source_value,target_value
			2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,2,seen,294276-12-31 23:59:59.999999+00,294276-12-31 23:59:59.999998+00
			2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,2,seenl,294276-12-31 23:59:59.999999,294275-12-31 23:59:59.999999
		EOF
		assert_eq "differ match match match" "$(tail -n +2 rep/windows.csv | cut -d, -f3 | paste -sd' ')"
		cp rep/windows.csv "windows.$fmt.csv"
	done
	assert_file_eq windows.binary.csv windows.text.csv
	# a CSV export of the source holds the same rows, to the byte
	export_csv $SRC "select id, ts, seen, seenl from mart.far" far.csv
	assert_contains far.csv "294276-12-31 23:59:59.999999+00"
	assert_exit 0 far_check --source "$(conn $SRC)" --target csv:far.csv --key id
	assert_contains "$OUT" "verdict: match"
	assert_eq "$(cut -d, -f1,2,4,6 windows.binary.csv)" "$(cut -d, -f1,2,4,6 rep/windows.csv)"
	assert_exit 1 far_check --source csv:far.csv --target "$(conn $TGT)" --key id
	assert_contains rep/changes.csv "2,seen,294276-12-31 23:59:59.999999+00,294276-12-31 23:59:59.999998+00"
	# windows end where an int64 does
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.far --key id --time ts \
		--from 2026-03-02T00:00:00Z --to 294270-01-01T00:00:00Z --window 1d
	assert_contains "$ERR" "invalid --to '294270-01-01T00:00:00Z': later than the last instant reckon's windows reach, 294247-01-10T04:00:54.775806Z"
}

# Key columns holding such timestamps: the findings, changes.csv and the
# rerun list name them as ISO-8601 UTC; the key lookup of an extra key
# (deleted_at_source) and repair find them by that text, by binary COPY or
# COPY text alike.
test_timestamp_past_range_in_keys() {
	local db fmt
	for db in $SRC $TGT; do
		sql $db "drop table if exists mart.fark;
		         create table mart.fark (k timestamptz, kl timestamp, ts timestamptz, v int, primary key (k, kl));
		         insert into mart.fark values
		         ('294270-01-01 00:00:00+00', '294270-01-01 00:00:00', '2026-03-02 00:10:00+00', 1),
		         ('294276-12-31 23:59:59.999999+00', '294276-12-31 23:59:59.999999', '2026-03-02 00:20:00+00', 2),
		         ('294250-01-01 00:00:00+00', '294250-01-01 00:00:00', '2026-03-02 00:30:00+00', 3),
		         ('4714-11-24 00:00:00+00 BC', '4714-11-24 00:00:00 BC', '2026-03-02 00:40:00+00', 4)" >/dev/null
	done
	for fmt in binary text; do
		sql $TGT "delete from mart.fark where v = 3;
		          update mart.fark set v = 20 where v = 2;
		          insert into mart.fark values ('294275-05-05 00:00:00+00', '294275-05-05 00:00:00', '2026-03-02 01:10:00+00', 9)" >/dev/null
		rm -rf rep
		mkdir rep
		RECKON_COPY_FORMAT=$fmt assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" \
			--table mart.fark --key k,kl --time ts "${RANGE[@]}" --report rep --rerun-list rerun.csv
		assert_file_eq rep/findings.csv - <<-EOF
			window_start,window_end,kind,k,kl,source_copies,target_copies
			2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,missing,294250-01-01T00:00:00Z,294250-01-01T00:00:00Z,1,0
			2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,changed,294276-12-31T23:59:59.999999Z,294276-12-31T23:59:59.999999Z,1,1
			2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,extra,294275-05-05T00:00:00Z,294275-05-05T00:00:00Z,0,1
		EOF
		assert_file_eq rep/changes.csv - <<-EOF
			window_start,window_end,k,kl,column,source_value,target_value
			2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,294276-12-31T23:59:59.999999Z,294276-12-31T23:59:59.999999Z,v,2,20
		EOF
		# the extra key, looked up by its value on the source over all time
		assert_contains "$(jq -c '[.diagnosis[] | [.pattern, .keys]]' rep/summary.json)" '["deleted_at_source",1]'
		RECKON_COPY_FORMAT=$fmt assert_exit 0 rk repair --rerun-list rerun.csv --source "$(conn $SRC)" \
			--target "$(conn $TGT)" --table mart.fark --key k,kl --time ts --now 2026-04-01T00:00:00Z --execute
		assert_contains "$OUT" "repaired 2 of 2 intervals: deleted 1 target row, updated 1"
		assert_eq "$(sql $SRC "select * from mart.fark order by v")" "$(sql $TGT "select * from mart.fark order by v")"
	done
}

# The watermark query is run as written and must give one row of one value:
# no row, no result set, a COPY are each refused with the shape it had, as
# usage errors like a wrong column count (they were runtime errors, exit
# 3); a notice the server sends shows with -v.
test_watermark_query_result_shapes() {
	sql $SRC "create or replace function mart.wm_noisy() returns timestamptz language plpgsql as
	          \$\$ begin raise notice 'computing the watermark'; return '2026-03-02 01:00:00+00'; end \$\$" >/dev/null
	assert_exit 2 wm_check "select now() where false"
	assert_contains "$ERR" "returned 0 rows where exactly one was expected"
	assert_exit 2 wm_check "set application_name = 'x'"
	assert_contains "$ERR" "no result set where one row was expected"
	assert_exit 2 wm_check "copy (select now()) to stdout"
	assert_contains "$ERR" "a COPY (use the COPY functions)"
	assert_exit 0 wm_check "select mart.wm_noisy()" -v
	assert_contains "$ERR" "server says: NOTICE:  computing the watermark"
	# a max(time) in PostgreSQL's last 30 years: later than every instant
	# reckon holds, 'infinity' (was exit 2, "not a timestamp")
	assert_exit 0 wm_check "select timestamptz '294270-01-01 00:00:00+00'"
	assert_exit 2 wm_check "select 'x'"
	assert_contains "$ERR" "--watermark-query returned 'x', which is not a timestamp"
}
