# shellcheck shell=bash
# Hostile input: files that never end, bytes that are not text, terminal
# escapes in data, and secrets in connection strings.  Each is an input
# error (exit 2) naming the file and the limit, or a message that shows the
# bytes escaped, or a secret that never appears.

SRC=hi_src
TGT=hi_tgt
# A password libpq sends to nobody: the socket is trust-authenticated.
SECRET=hostile-s3cret

RANGE=(--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h --now 2026-04-01T00:00:00Z)
ORDERS=(--table mart.orders --key order_id,line_no --time created_at --sum amount)

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
	mk_orders $TGT
}

good_csv() {
	printf 'id,ts\n1,2026-03-02T00:10:00Z\n' >"${1:-good.csv}"
}

csv_check() {
	rk check --source "$1" --target "$2" --table t --key id --time ts --types id:bigint,ts:timestamptz "${RANGE[@]}"
}

# csv:/dev/zero grew one field to gigabytes; one row is at most 64 MiB.
test_csv_that_never_ends_is_an_input_error() {
	good_csv
	assert_exit 2 csv_check csv:/dev/zero csv:good.csv
	assert_contains "$ERR" "/dev/zero:1:1: source csv row longer than 64 MiB"
	assert_exit 2 csv_check csv:good.csv csv:/dev/zero
	assert_contains "$ERR" "target csv row longer than 64 MiB"
}

# A NUL in a header name was cut there, silently: "id<NUL>x" named "id".
test_csv_nul_in_header_is_an_error() {
	good_csv
	printf 'id\0x,ts\n1,2026-03-02T00:10:00Z\n' >nul.csv
	assert_exit 2 csv_check csv:nul.csv csv:good.csv
	assert_contains "$ERR" "nul.csv:1:1: NUL byte in the name of column 1 of the header"
}

# Terminal escapes and bytes that are not UTF-8 from the data were echoed as
# they are; every message shows them escaped.
test_messages_escape_data_bytes() {
	good_csv
	printf 'i\033[2J\033]0;owned\007d\377,ts\n1,2026-03-02T00:10:00Z\n' >esc.csv
	assert_exit 2 csv_check csv:esc.csv csv:good.csv
	assert_contains "$ERR" "its columns: 'i\\x1b[2J\\x1b]0;owned\\x07d\\xff', 'ts'"
	assert_eq 0 "$(LC_ALL=C grep -c $'[\001-\010\013-\037\177-\377]' "$ERR" || true)" "raw control or non-UTF-8 bytes on stderr"
	# what the user typed is data too
	assert_exit 2 rk $'bogus\033[31m'
	assert_contains "$ERR" "unknown command 'bogus\\x1b[31m'"
}

# A rerun list that never ends, and a directory given as one.
test_rerun_list_bounds() {
	assert_exit 2 rk rerun-list /dev/zero
	assert_contains "$ERR" "/dev/zero:1:4097: line longer than 4096 bytes: not a rerun list"
	mkdir adir
	assert_exit 2 rk rerun-list adir
	assert_contains "$ERR" "cannot open rerun list 'adir': it is a directory"
	assert_exit 2 rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS[@]}" --rerun-list adir
	assert_contains "$ERR" "it is a directory"
	assert_exit 2 rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS[@]}" --rerun-list /dev/zero
	assert_contains "$ERR" "line longer than 4096 bytes"
}

# sslpassword= was shown in clear: libpq calls it a secret, so reckon hides
# it wherever it shows a connection string - debug output, the audit's
# options, error messages.
test_sslpassword_never_shown() {
	local port
	createdb hi_audit
	assert_exit 0 rk check --source "$(conn $SRC) sslpassword=$SECRET" --target "$(conn $TGT)" "${ORDERS[@]}" \
		"${RANGE[@]}" --audit "$(conn hi_audit)" -vv
	assert_not_contains "$ERR" "$SECRET"
	assert_contains "$ERR" "sslpassword=********"
	assert_eq 0 "$(sql hi_audit "select count(*) from reckon.run r where r::text like '%$SECRET%'")" \
		"sslpassword in reckon.run"
	assert_contains "$(sql hi_audit "select options->>'source' from reckon.run")" "sslpassword=********"
	port=$(closed_port)
	assert_exit 3 rk check --source "host=127.0.0.1 port=$port dbname=x sslpassword=$SECRET" \
		--target "postgresql://127.0.0.1:$port/x?sslpassword=$SECRET" "${ORDERS[@]}" "${RANGE[@]}"
	assert_not_contains "$ERR" "$SECRET"
	assert_contains "$ERR" "sslpassword=********"
}
