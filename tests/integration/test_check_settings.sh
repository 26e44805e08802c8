# shellcheck shell=bash disable=SC2054
# reckon pins its own session settings (TimeZone=UTC, DateStyle=ISO,
# extra_float_digits, client_encoding=UTF8) and never trusts the server's or
# the database's defaults (docs/reference.md, docs/digest.md "Property").  The target
# database here defaults to Los Angeles time, SQL/DMY dates, rounded floats
# and LATIN1 as the client encoding.

SRC=ck_set_src
TGT=ck_set_tgt

setup_file() {
	createdb $SRC
	createdb $TGT
	sql postgres "alter database $TGT set timezone = 'America/Los_Angeles';
	              alter database $TGT set datestyle = 'SQL, DMY';
	              alter database $TGT set extra_float_digits = 0;
	              alter database $TGT set client_encoding = 'LATIN1';
	              alter database $TGT set intervalstyle = 'sql_standard'" >/dev/null
	mk_readings $SRC
	mk_readings $TGT
	# the target really does show its values differently
	assert_eq "01/03/2026 16:10:00 PST|0.3" \
		"$("$RK_PGBIN/psql" -X -At -d $TGT -c "set client_encoding = 'UTF8'; select ts::text, ratio::text from mart.readings where id = 1" | tail -n 1)"
	assert_eq "2026-03-02 00:10:00+00|0.30000000000000004" \
		"$(sql $SRC "select ts::text, ratio::text from mart.readings where id = 1")"
}

# The same rows, whatever the session settings (literals are unambiguous ISO).
mk_readings() {
	sql "$1" >/dev/null <<-'SQL'
		create schema if not exists mart;
		drop table if exists mart.readings;
		create table mart.readings (
			id       integer primary key,
			ts       timestamptz,
			ts_local timestamp,
			d        date,
			amount   numeric(16,4),
			ratio    double precision,
			r        real,
			flag     boolean,
			code     char(6),
			name     varchar(20),
			u        uuid,
			note     text);
		insert into mart.readings values
			(1, '2026-03-02 00:10:00+00', '2026-03-02 00:10:00', '2026-03-02', 1.5,
			    0.1::float8 + 0.2::float8, 0.1, true, 'ab', 'Zürich ✓', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'x'),
			(2, '2026-03-02 00:59:59.123456+00', '2026-03-02 00:59:59.123456', '2026-03-02', 12345678.1234,
			    2 / 3.0::float8, 1e-10, false, 'abcdef', '東京', '00000000-0000-0000-0000-000000000001', null),
			(3, '2026-03-02 01:00:00+00', '2026-03-02 01:00:00', '2026-03-03', -0.0001,
			    1e308, 3.4e38, null, null, '', null, ''),
			(4, '2026-03-02 01:30:00.5+00', '2026-03-02 01:30:00.5', '2026-03-03', 0,
			    '-0', '-0', true, 'z', 'a''b', null, e'multi\nline'),
			(5, '2026-03-02 01:45:00+00', '2026-03-02 01:45:00', '2026-03-04', 99.99,
			    'Infinity', 'NaN', false, 'q', 'ok', null, 'tab	here'),
			(6, '2026-03-02 01:59:59.999999+00', '2026-03-02 01:59:59.999999', '2026-03-04', null,
			    'NaN', '-Infinity', true, 'r', 'ok', null, 'last');
	SQL
}

ALL_COLS=id,ts,ts_local,d,amount,ratio,r,flag,code,name,u,note

readings_check() {
	rk check --source "$(conn "$1")" --target "$(conn "$2")" --table mart.readings --key id \
		--columns "$ALL_COLS" --from 2026-03-02T00:00:00Z --to 2026-03-02T02:00:00Z \
		--now 2026-04-01T00:00:00Z "${@:3}"
}

test_database_settings_do_not_change_digests() {
	mk_readings $TGT
	mkdir same other
	assert_exit 0 readings_check $SRC $SRC --time ts --window 1h --sum amount --report same
	assert_exit 0 readings_check $SRC $TGT --time ts --window 1h --sum amount --report other
	assert_eq "match match" "$(statuses other/windows.csv)"
	assert_eq "2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,match,2,2,12345679.6234,12345679.6234" \
		"$(sed -n 2p other/windows.csv | cut -d, -f1-7)"
	assert_eq "2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,match,4,4,99.9899,99.9899" \
		"$(sed -n 3p other/windows.csv | cut -d, -f1-7)"
	assert_file_eq other/windows.csv same/windows.csv
}

test_timestamp_column_under_other_time_zone() {
	mk_readings $TGT
	mkdir rep
	assert_exit 0 readings_check $SRC $TGT --time ts_local --window 1h --report rep
	assert_eq "2 4" "$(tail -n +2 rep/windows.csv | cut -d, -f4 | tr '\n' ' ' | sed 's/ $//')"
	assert_eq "match match" "$(statuses rep/windows.csv)"
}

test_date_column_under_other_date_style() {
	mk_readings $TGT
	mkdir rep
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.readings --key id \
		--columns "$ALL_COLS" --time d --window 1d --sum amount \
		--from 2026-03-02T00:00:00Z --to 2026-03-05T00:00:00Z --now 2026-04-01T00:00:00Z --report rep
	assert_eq "match match match" "$(statuses rep/windows.csv)"
	assert_eq "2 2 2" "$(tail -n +2 rep/windows.csv | cut -d, -f4 | tr '\n' ' ' | sed 's/ $//')"
}

# 0.3 and 0.1 + 0.2 print alike with extra_float_digits = 0; reckon must see them apart.
test_float_difference_hidden_by_settings_is_found() {
	mk_readings $TGT
	sql $TGT "update mart.readings set ratio = 0.3 where id = 1" >/dev/null
	mkdir rep
	assert_exit 1 readings_check $SRC $TGT --time ts --window 1h --report rep
	assert_eq "differ match" "$(statuses rep/windows.csv)"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,id,source_copies,target_copies
		2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,changed,1,1,1
	EOF
}

# A CSV exported in Los Angeles time (offsets -08) is the same data.
test_csv_export_with_offsets() {
	mk_readings $TGT
	PGOPTIONS="-c DateStyle=ISO -c extra_float_digits=3 -c client_encoding=UTF8" \
		export_csv $TGT "select $ALL_COLS from mart.readings order by id" la.csv
	assert_contains la.csv "2026-03-01 16:10:00-08"
	mkdir a b
	assert_exit 0 readings_check $SRC $SRC --time ts --window 1h --report a
	assert_exit 0 rk check --source "csv:$T/la.csv" --target "$(conn $SRC)" --table mart.readings --key id \
		--columns "$ALL_COLS" --time ts --window 1h --from 2026-03-02T00:00:00Z --to 2026-03-02T02:00:00Z \
		--now 2026-04-01T00:00:00Z --report b
	assert_file_eq b/windows.csv a/windows.csv
}
