# shellcheck shell=bash disable=SC2054
# CSV sides: a file, a directory of *.csv files, other writers' styles, the
# dialect options, --types for CSV-only pairs, and malformed input (exit 2,
# naming the file, line and column).
#
# mart.sales: 20 rows, ids 1..20, every 6 minutes from 00:00 (some with
# fractional seconds); 30-minute windows W0..W3 of [00:00, 02:00) hold 5 rows
# each.  Notes cover NULL, '', commas, quotes, newlines, UTF-8 and a literal \N.
# The damaged target misses id 7 (W1) and has id 18 changed (W3).

SRC=ck_csv_src
TGT=ck_csv_tgt
COLS=id,ts,amount,flag,note
TYPES=id:bigint,ts:timestamptz,amount:numeric,flag:boolean,note:text

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_sales $SRC
	mk_sales $TGT
	sql $TGT "delete from mart.sales where id = 7; update mart.sales set amount = amount + 1 where id = 18" >/dev/null
	sql $SRC "create table mart.empty_sales (like mart.sales)" >/dev/null
	# the reference result, PostgreSQL on both sides
	mkdir -p "$RK_SCRATCH/ref"
	assert_exit 1 sales_check "$(conn $SRC)" "$(conn $TGT)" --report "$RK_SCRATCH/ref"
	assert_eq "match differ match differ" "$(statuses "$RK_SCRATCH/ref/windows.csv")"
}

mk_sales() {
	sql "$1" >/dev/null <<-'SQL'
		create schema if not exists mart;
		drop table if exists mart.sales;
		create table mart.sales (id bigint, ts timestamptz, amount numeric(12,2), flag boolean, note text);
		insert into mart.sales
		select g,
		       timestamptz '2026-03-02 00:00:00+00' + (g - 1) * interval '6 minutes' + (g % 3) * interval '0.25 seconds',
		       g * 10.5,
		       case when g % 5 = 0 then null else g % 2 = 0 end,
		       case g % 7 when 0 then null when 1 then '' when 2 then 'a,b' when 3 then 'say "hi"'
		                  when 4 then e'two\nlines' when 5 then 'Grüße ✓' else '\N' end
		from generate_series(1, 20) g;
	SQL
}

# sales_check SOURCE TARGET [OPTION...]
sales_check() {
	rk check --source "$1" --target "$2" --table mart.sales --key id --time ts --sum amount \
		--columns "$COLS" --from 2026-03-02T00:00:00Z --to 2026-03-02T02:00:00Z --window 30m \
		--now 2026-04-01T00:00:00Z "${@:3}"
}

assert_same_as_reference() {
	assert_file_eq "$1/windows.csv" "$RK_SCRATCH/ref/windows.csv"
	assert_file_eq "$1/findings.csv" "$RK_SCRATCH/ref/findings.csv"
}

test_postgres_csv_file_and_csv_directory_agree() {
	export_csv $SRC "select $COLS from mart.sales order by id" src.csv
	export_csv $TGT "select $COLS from mart.sales order by id" tgt.csv
	mkdir srcdir
	export_csv $SRC "select $COLS from mart.sales where id <= 12 order by id" srcdir/part-1.csv
	export_csv $SRC "select $COLS from mart.sales where id > 12 order by id" srcdir/part-2.csv
	echo "not data" >srcdir/README.txt
	assert_contains src.csv '"say ""hi"""'
	mkdir file dir tgtfile both
	assert_exit 1 sales_check "csv:$T/src.csv" "$(conn $TGT)" --report file
	assert_same_as_reference file
	assert_exit 1 sales_check "csv:$T/srcdir" "$(conn $TGT)" --report dir
	assert_same_as_reference dir
	assert_exit 1 sales_check "$(conn $SRC)" "csv:$T/tgt.csv" --report tgtfile
	assert_same_as_reference tgtfile
	# CSV on both sides: the types come from --types
	assert_exit 1 sales_check "csv:$T/srcdir" "csv:$T/tgt.csv" --types "$TYPES" --report both
	assert_same_as_reference both
}

# Another writer: ISO 'T' and 'Z', leading zeros, trailing zeros, exponent,
# true/FALSE/yes/0 booleans, offsets, columns in another order.
test_csv_in_another_style_matches() {
	sql $SRC >/dev/null <<-'SQL'
		drop table if exists mart.style;
		create table mart.style (id integer, ts timestamptz, amount numeric(10,2), flag boolean, label text);
		insert into mart.style values
			(7,  '2026-03-02 00:07:00+00',        120.00, true,  'plain'),
			(8,  '2026-03-02 00:30:15.25+00',      12.50, false, 'quoted, with comma'),
			(9,  '2026-03-02 00:15:00+00',         -0.50, true,  'offset'),
			(10, '2026-03-02 00:45:00.000001+00', 100.00, false, 'exponent'),
			(11, '2026-03-02 00:50:00+00',          0.00, null,  '');
	SQL
	cat >style.csv <<-'EOF'
		label,flag,amount,ts,id
		plain,true,0120.0,2026-03-02T00:07:00Z,007
		"quoted, with comma",FALSE,12.5,2026-03-02T00:30:15.250Z,8
		offset,yes,-0.50,2026-03-02T01:15:00+01:00,9
		exponent,0,1e2,2026-03-02T00:45:00.000001Z,10
		"",,-0.00,2026-03-02T00:50:00Z,11
	EOF
	mkdir pg csv
	local -a opts=(--table mart.style --key id --time ts --sum amount --columns id,ts,amount,flag,label
		--from 2026-03-02T00:00:00Z --to 2026-03-02T01:00:00Z --window 1h --now 2026-04-01T00:00:00Z)
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" "${opts[@]}" --report pg
	assert_exit 0 rk check --source "csv:$T/style.csv" --target "$(conn $SRC)" "${opts[@]}" --report csv
	assert_file_eq csv/windows.csv pg/windows.csv
	assert_eq "2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,match,5,5,232,232" "$(sed -n 2p csv/windows.csv | cut -d, -f1-7)"
}

# An export made in another time zone: +05:30 offsets.
test_csv_with_half_hour_offsets() {
	PGOPTIONS="-c TimeZone=Asia/Kolkata" export_csv $SRC "select $COLS from mart.sales order by id" ist.csv
	assert_contains ist.csv "2026-03-02 05:30:00.25+05:30"
	mkdir rep
	assert_exit 1 sales_check "csv:$T/ist.csv" "$(conn $TGT)" --report rep
	assert_same_as_reference rep
}

test_csv_delimiter_and_null_marker() {
	"$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d $SRC \
		-c "\\copy (select $COLS from mart.sales order by id) to 'semi.csv' with (format csv, header, delimiter ';', null '\\N')" ||
		fail "export failed"
	assert_contains semi.csv '"\N"'
	mkdir rep
	assert_exit 1 sales_check "csv:$T/semi.csv" "$(conn $TGT)" --csv-delimiter ';' --csv-null '\N' --report rep
	assert_same_as_reference rep
}

# A header-only file is an empty side, not an error.
test_csv_header_only() {
	echo "$COLS" >empty.csv
	mkdir rep
	assert_exit 0 rk check --source "csv:$T/empty.csv" --target "$(conn $SRC)" --table mart.empty_sales \
		--key id --time ts --sum amount --columns "$COLS" --from 2026-03-02T00:00:00Z --to 2026-03-02T02:00:00Z \
		--window 30m --now 2026-04-01T00:00:00Z --report rep
	assert_eq "match match match match" "$(statuses rep/windows.csv)"
	assert_eq "0 0" "$(jget rep/summary.json '"\(.source_rows) \(.target_rows)"')"
}

# --- malformed input: exit 2, the message names the culprit ----------------

# good_lines N - the header and the first N data rows of a valid export
good_lines() {
	export_csv $SRC "select id, ts, amount from mart.sales where id <= $1 order by id" good.csv
	cat good.csv
}

bad_check() {
	rk check --source "csv:$1" --target "$(conn $SRC)" --table mart.sales --key id --time ts --sum amount \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T02:00:00Z --window 30m --now 2026-04-01T00:00:00Z "${@:2}"
}

test_csv_missing_file() {
	assert_exit 2 bad_check "$T/no-such-file.csv"
	assert_contains "$ERR" no-such-file.csv
	mkdir emptydir
	assert_exit 2 bad_check "$T/emptydir"
	assert_contains "$ERR" emptydir
}

test_csv_missing_column() {
	printf 'id,ts,amount_eur\n1,2026-03-02 00:00:00+00,1.00\n' >nocol.csv
	assert_exit 2 bad_check "$T/nocol.csv"
	assert_contains "$ERR" amount
	assert_contains "$ERR" nocol.csv
}

test_csv_bad_quoting() {
	{ good_lines 2; printf '3,"2026-03-02 00:12:00+00,3.00\n'; } >unterminated.csv
	assert_exit 2 bad_check "$T/unterminated.csv"
	assert_contains "$ERR" unterminated.csv
	{ good_lines 2; printf '3,2026-03-02 00:12:00+00,"3.00"x\n'; } >stray.csv
	assert_exit 2 bad_check "$T/stray.csv"
	assert_contains "$ERR" stray.csv
}

test_csv_wrong_field_count() {
	{ good_lines 2; printf '3,2026-03-02 00:12:00+00,3.00,surplus\n'; good_lines 1 | tail -n 1; } >fields.csv
	assert_exit 2 bad_check "$T/fields.csv"
	assert_contains "$ERR" "$T/fields.csv:4"
	{ good_lines 1; printf '2,2026-03-02 00:06:00+00\n'; } >short.csv
	assert_exit 2 bad_check "$T/short.csv"
	assert_contains "$ERR" "$T/short.csv:3"
}

test_csv_unparsable_value() {
	{ good_lines 1; printf '2,2026-03-02 00:06:00+00,12.3x\n'; } >value.csv
	assert_exit 2 bad_check "$T/value.csv"
	# FILE:LINE:COLUMN, the column by number (3) or by name
	assert_match "$(cat "$ERR")" "$T/value.csv:3:(3|amount)"
	{ good_lines 1; printf '2,2026-02-30 25:00:00+00,1.00\n'; } >time.csv
	assert_exit 2 bad_check "$T/time.csv"
	assert_match "$(cat "$ERR")" "$T/time.csv:3:(2|ts)"
	printf 'id,ts,amount,flag\n1,2026-03-02 00:00:00.25+00,10.50,f\n2,2026-03-02 00:06:00+00,1.00,maybe\n' >bool.csv
	assert_exit 2 bad_check "$T/bool.csv" --columns id,ts,amount,flag
	assert_match "$(cat "$ERR")" "$T/bool.csv:3:(4|flag)"
}

test_csv_bad_types_option() {
	export_csv $SRC "select $COLS from mart.sales order by id" src.csv
	assert_exit 2 sales_check "csv:$T/src.csv" "csv:$T/src.csv" --types "id:bignum,ts:timestamptz,amount:numeric,flag:boolean,note:text"
	assert_contains "$ERR" bignum
	assert_exit 2 sales_check "csv:$T/src.csv" "csv:$T/src.csv" --types "id-bigint"
	assert_contains "$ERR" "--types"
}

# A CSV header with two names that differ only in case ("Value", value):
# each is matched exactly, never folded into the other, so a changed value
# in either is found; a header the source has only in the other case is
# named as the target's own, not dropped; one alone in its case is folded.
test_csv_header_names_differing_in_case() {
	sql $SRC >/dev/null <<-'SQL'
		drop table if exists mart.cased;
		create table mart.cased (id bigint primary key, ts timestamptz, "Value" int, value int);
		insert into mart.cased select g, timestamptz '2026-03-02 00:00:00+00' + g * interval '10 minutes', g, 100 + g
		from generate_series(1, 5) g;
	SQL
	{
		echo 'id,ts,Value,value'
		echo '1,2026-03-02T00:10:00Z,1,101'
		echo '2,2026-03-02T00:20:00Z,2,102'
		echo '3,2026-03-02T00:30:00Z,3,999'
		echo '4,2026-03-02T00:40:00Z,4,104'
		echo '5,2026-03-02T00:50:00Z,5,105'
	} >cased.csv
	mkdir rep
	assert_exit 1 rk check --source "$(conn $SRC)" --target csv:cased.csv --table mart.cased --time ts \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T01:00:00Z --window 1h --now 2026-03-03T00:00:00Z --report rep
	assert_eq '["id","ts","Value","value"]' "$(jq -c .columns rep/summary.json)"
	assert_file_eq rep/changes.csv - <<-EOF2
		window_start,window_end,id,column,source_value,target_value
		2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,3,value,103,999
	EOF2
	# the source has only value: the target's Value is its own column
	sql $SRC 'alter table mart.cased drop column "Value"' >/dev/null
	sed -i 's/^3,2026-03-02T00:30:00Z,3,999$/3,2026-03-02T00:30:00Z,3,103/' cased.csv
	assert_exit 0 rk check --source "$(conn $SRC)" --target csv:cased.csv --table mart.cased --time ts \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T01:00:00Z --window 1h --now 2026-03-03T00:00:00Z --report rep
	assert_eq '["id","ts","value"]' "$(jq -c .columns rep/summary.json)"
	assert_eq '["Value"]' "$(jq -c .schema.target_only rep/summary.json)"
	# a header alone in its case is the source's column of the other case
	cut -d, -f1,2,4 cased.csv | sed '1s/value/VALUE/' >folded.csv
	assert_exit 0 rk check --source "$(conn $SRC)" --target csv:folded.csv --table mart.cased --time ts \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T01:00:00Z --window 1h --now 2026-03-03T00:00:00Z --report rep
	assert_eq '["id","ts","value"]' "$(jq -c .columns rep/summary.json)"
	assert_eq '[]' "$(jq -c .schema.target_only rep/summary.json)"
}
