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

# A timestamp PostgreSQL holds but reckon's instants do not (past year
# 294246) is the data's fault: exit 2 naming the column, from binary COPY.
test_timestamp_past_range_in_data() {
	sql $SRC "create table if not exists mart.far (id int, ts timestamptz, seen timestamptz);
	          truncate mart.far; insert into mart.far values (1, '2026-03-02 00:10:00+00', '294270-01-01 00:00:00+00')" >/dev/null
	sql $TGT "create table if not exists mart.far (id int, ts timestamptz, seen timestamptz)" >/dev/null
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.far --key id --time ts \
		--columns id,ts,seen "${RANGE[@]}"
	assert_contains "$ERR" "a value in column seen is not a valid timestamptz"
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
}
