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
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS[@]}" "${RANGE[@]}" --watermark-query "$1"
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
