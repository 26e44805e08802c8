# shellcheck shell=bash disable=SC2054
# reckon check --pushdown: window digests computed inside PostgreSQL by the
# reckon extension (src/ext, docs/pushdown.md) must be bit-identical to the
# ones the client computes from streamed rows (digest.md "Property").
#
# The property: random tables holding every type of digest.md (and "other"
# types), NULLs, empty strings, specials and boundary instants, in databases
# whose default settings are odd (time zone, DateStyle, extra_float_digits,
# IntervalStyle, bytea_output, lc_numeric...), give byte-identical
# windows.csv, findings.csv and summary.json streamed and pushed down; a
# damaged target gives the same findings both ways.
#
# The extension's SQL functions on their own (the worked example's constants,
# window aggregates and what they refuse, the settings they check, numeric
# and instant encodings) are tested PostgreSQL's way, as REGRESS tests:
# src/ext/sql/ and src/ext/expected/, run by `make ext-check`.
#
# The extension comes from `make ext-install` (CREATE EXTENSION reckon) or,
# when the server's directories are not writable, straight from the built
# module (RK_EXT_DIR, default build/ext) with CREATE FUNCTION ... AS its path.

SRC=pd_src
TGT=pd_tgt
BARE=pd_bare

COLS=id,i2,i4,i8,num,dom,n2,f4,f8,b,txt,vc,ch,nm,ct,c1,d,ts,tsl,u,iv,js,arr,by,mn,tm,tz
SUMS=n2,dom,i2,i4,i8
RANGE=(--from 2026-03-01T00:00:00Z --to 2026-03-04T00:00:00Z --now 2026-03-10T00:00:00Z)
# reckon's own session settings, for the psql sessions that call the
# extension directly in databases whose defaults are odd
PINNED="-c TimeZone=UTC -c DateStyle=ISO,YMD -c extra_float_digits=3 -c IntervalStyle=postgres -c bytea_output=hex -c lc_monetary=C"

# psql_rc DB SQL - one statement under reckon's settings, psql's exit status
# (1 when the server refuses it), for assert_exit
psql_rc() {
	PGOPTIONS="$PINNED" "$RK_PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"
}

# mk_table DB - (re)creates the empty table t: every type of digest.md,
# a domain, an extension type and "other" types
mk_table() {
	sql "$1" >/dev/null <<-'SQL'
		create extension if not exists citext;
		drop table if exists t, tw;
		drop domain if exists posnum;
		create domain posnum as numeric;
		create table t (
			id bigint, i2 smallint, i4 integer, i8 bigint,
			num numeric, dom posnum, n2 numeric(12,2),
			f4 real, f8 double precision, b boolean,
			txt text, vc varchar(40), ch char(6), nm name, ct citext, c1 "char",
			d date, ts timestamptz, tsl timestamp, u uuid,
			iv interval, js jsonb, arr integer[], by bytea, mn money, tm time, tz timetz);
	SQL
}

# mk_random DB SEED ROWS [TGT] - t in DB with ROWS random rows (NULLs,
# empty strings, specials, instants on and next to window boundaries, out of
# the range, infinite) plus the row (0, NULL, ...); the same rows in TGT
mk_random() {
	mk_table "$1"
	sql "$1" >/dev/null <<-SQL
		set extra_float_digits = 3;
		insert into t (id) values (0);
		select setseed($2);
		insert into t
		select g,
		  case when random() < 0.06 then null else (floor(random() * 65536) - 32768)::int end,
		  case when random() < 0.06 then null else (floor(random() * 4294967296) - 2147483648)::bigint end,
		  case when random() < 0.06 then null else ((random() - 0.5) * 9.2e18)::bigint end,
		  case when random() < 0.06 then null
		       when random() < 0.03 then 'NaN'::numeric
		       when random() < 0.03 then 'Infinity'::numeric
		       when random() < 0.03 then '-Infinity'::numeric
		       else round(((random() - 0.5) * 10 ^ floor(random() * 16))::numeric, floor(random() * 13)::int) end,
		  case when random() < 0.06 then null
		       else round(((random() - 0.5) * 10 ^ floor(random() * 12))::numeric, floor(random() * 9)::int) end,
		  case when random() < 0.06 then null else round(((random() - 0.5) * 1e9)::numeric, 2) end,
		  case when random() < 0.06 then null
		       else (array['NaN', '-0', '0', 'Infinity', '-Infinity', '1e-45', '3.4028235e38', '0.1',
		                   ((random() - 0.5) * 10 ^ (random() * 20 - 10))::text,
		                   ((random() - 0.5) * 10 ^ (random() * 20 - 10))::text])[1 + floor(random() * 10)::int]::real end,
		  case when random() < 0.06 then null
		       else (array['NaN', '-0', '0', 'Infinity', '-Infinity', '5e-324', '1.7976931348623157e308',
		                   (0.1::float8 + 0.2::float8)::text,
		                   ((random() - 0.5) * 10 ^ (random() * 40 - 20))::text,
		                   ((random() - 0.5) * 10 ^ (random() * 40 - 20))::text])[1 + floor(random() * 10)::int]::float8 end,
		  case when random() < 0.06 then null else random() < 0.5 end,
		  case when random() < 0.06 then null
		       else (array['', 'a,b', 'say "hi"', e'two\nlines', e'tab\there', e'back\\\\slash', 'Zürich ✓', '東京',
		                   '  lead', 'trail  ', 'N', e'\\\\N', e'cr\r'])[1 + floor(random() * 13)::int]
		            || case when random() < 0.5 then md5(g::text) else '' end end,
		  case when random() < 0.06 then null
		       else left((array['', 'x', 'Grüße', ' ,;'])[1 + floor(random() * 4)::int] || md5((g * 7)::text), 40) end,
		  case when random() < 0.06 then null
		       else (array['ab', 'ab    ', '', 'x y', ' lead', 'Ü', 'abcdef'])[1 + floor(random() * 7)::int] end,
		  case when random() < 0.06 then null else 'n' || g end,
		  case when random() < 0.06 then null else (array['Abc', 'aBC', '  x', ''])[1 + floor(random() * 4)::int] end,
		  case when random() < 0.06 then null else chr(65 + g % 26)::"char" end,
		  case when random() < 0.06 then null
		       when random() < 0.03 then 'infinity'::date
		       when random() < 0.03 then '-infinity'::date
		       else date '2026-02-28' + floor(random() * 6)::int end,
		  case when random() < 0.06 then null
		       when random() < 0.02 then 'infinity'::timestamptz
		       when random() < 0.02 then '-infinity'::timestamptz
		       when random() < 0.15 then timestamptz '2026-03-01 00:00:00+00' + floor(random() * 13)::int * interval '6 hours'
		                                 + (array[interval '0', interval '-1 microsecond', interval '1 microsecond'])[1 + floor(random() * 3)::int]
		       else timestamptz '2026-02-28 00:00:00+00' + random() * interval '6 days' end,
		  case when random() < 0.06 then null
		       when random() < 0.02 then 'infinity'::timestamp
		       when random() < 0.15 then timestamp '2026-03-01 00:00:00' + floor(random() * 13)::int * interval '6 hours'
		                                 + (array[interval '0', interval '-1 microsecond', interval '1 microsecond'])[1 + floor(random() * 3)::int]
		       else timestamp '2026-02-28 00:00:00' + random() * interval '6 days' end,
		  case when random() < 0.06 then null else md5(g::text || 'u')::uuid end,
		  case when random() < 0.06 then null
		       else make_interval(months => g % 14, days => g % 40 - 20, secs => (random() - 0.5) * 200000) end,
		  case when random() < 0.06 then null
		       else jsonb_build_object('k', g, 'f', random(), 's', e'q"\n', 'a', jsonb_build_array(1, 'x', null)) end,
		  case when random() < 0.06 then null else array[g, g % 7, null]::int[] end,
		  case when random() < 0.06 then null else decode(md5(g::text), 'hex') || '\x00ff5c'::bytea end,
		  case when random() < 0.06 then null else (floor(random() * 100000000) / 100 - 400000)::numeric::money end,
		  case when random() < 0.06 then null else time '00:00' + random() * interval '23 hours' end,
		  case when random() < 0.06 then null else (time '12:34:56.789' + g * interval '1 second')::timetz end
		from generate_series(1, $3) g;
	SQL
	if [[ $# -ge 4 ]]; then
		mk_table "$4"
		copy_table "$1" "$4"
	fi
}

# copy_table SRC TGT - t from SRC into TGT, bit for bit (binary COPY)
copy_table() {
	sql "$2" "truncate t" >/dev/null
	"$RK_PGBIN/psql" -X -q -d "$1" -c "copy t to stdout (format binary)" |
		"$RK_PGBIN/psql" -X -q -d "$2" -c "copy t from stdin (format binary)" >/dev/null ||
		fail "copying t from $1 to $2 failed"
}

# odd_settings DB STYLE - database defaults that change how values print
odd_settings() {
	if [[ $2 == a ]]; then
		sql postgres "alter database $1 set timezone = 'Asia/Kolkata';
		              alter database $1 set datestyle = 'German, DMY';
		              alter database $1 set extra_float_digits = -2;
		              alter database $1 set intervalstyle = 'iso_8601';
		              alter database $1 set bytea_output = 'escape';
		              alter database $1 set lc_numeric = 'C.utf8';
		              alter database $1 set lc_monetary = 'C.utf8'" >/dev/null
	else
		sql postgres "alter database $1 set timezone = 'America/St_Johns';
		              alter database $1 set datestyle = 'SQL, MDY';
		              alter database $1 set extra_float_digits = 0;
		              alter database $1 set intervalstyle = 'sql_standard';
		              alter database $1 set bytea_output = 'escape';
		              alter database $1 set lc_numeric = 'C.utf8'" >/dev/null
	fi
}

setup_file() {
	createdb $SRC
	createdb $TGT
	createdb $BARE
	ext_create $SRC
	ext_create $TGT
	odd_settings $SRC a
	odd_settings $TGT b
	# the odd settings are in force: this is what a careless session sees
	assert_eq "01.03.2026 05:30:00 IST|0.3" \
		"$(sql $SRC "select timestamptz '2026-03-01 00:00:00+00', 0.1::float8 + 0.2::float8")"
}

# same_reports DIR EXPECTED_DIR - the reports of two checks of the same
# tables: windows and findings byte for byte, the summary but for how the
# drilldown got there (it narrows in the database with --pushdown)
same_reports() {
	local f
	for f in windows.csv findings.csv; do
		assert_file_eq "$1/$f" "$2/$f"
	done
	jq -S 'del(.drilldown)' "$1/summary.json" >"$1/summary.core.json"
	jq -S 'del(.drilldown)' "$2/summary.json" >"$2/summary.core.json"
	assert_file_eq "$1/summary.core.json" "$2/summary.core.json"
}

# pd_check SRC TGT REPORT_DIR [OPTION...] - reckon check of t
pd_check() {
	rk check --source "$(conn "$1")" --target "$(conn "$2")" --table t --key id --columns "$COLS" \
		"${RANGE[@]}" --report "$3" "${@:4}"
}

# same_both_ways SRC TGT WANT_EXIT [OPTION...] - streamed and pushed down,
# the same exit status and byte-identical reports; the digests really came
# from the servers
same_both_ways() {
	local want=$3 tag
	tag=$(mktemp -d "$T/run.XXXXXX")
	mkdir -p "$tag/stream" "$tag/push"
	assert_exit "$want" pd_check "$1" "$2" "$tag/stream" "${@:4}"
	assert_exit "$want" pd_check "$1" "$2" "$tag/push" --pushdown -v "${@:4}"
	assert_contains "$ERR" "source: window digests computed by the server"
	assert_contains "$ERR" "target: window digests computed by the server"
	same_reports "$tag/push" "$tag/stream"
	cp "$tag/push/windows.csv" "$T/last-windows.csv"
	cp "$tag/push/findings.csv" "$T/last-findings.csv"
}

# An exact sum that does not fit 128 bits fails the same way streamed and
# pushed down (the extension reports it to the client as "overflow").
test_sum_overflow_both_ways() {
	sql $SRC "drop table if exists big;
	          create table big (id int, ts timestamptz, v numeric);
	          insert into big values (1, '2026-03-01 01:00+00', 9e37), (2, '2026-03-01 02:00+00', 9e37),
	                                 (3, '2026-03-01 08:00+00', 1)" >/dev/null
	mkdir a b
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table big --key id --columns id,ts,v \
		"${RANGE[@]}" --time ts --window 6h --sum v --report a
	cp "$ERR" streamed.err
	assert_contains streamed.err "sum overflows 128 bits"
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table big --key id --columns id,ts,v \
		"${RANGE[@]}" --time ts --window 6h --sum v --report b --pushdown
	assert_file_eq "$ERR" streamed.err
	assert_dir_only a
	assert_dir_only b
	sql $SRC "drop table big" >/dev/null
}

# The extension adds a summed integer or numeric from the digits it has
# just encoded (rk_sum_add_decimal) where it can, from the canonical text
# where it cannot (more than 18 significant digits, NaN, infinities): the
# sums are the streamed ones either way, window by window.
test_sum_values_both_ways() {
	sql $SRC >/dev/null <<-'SQL'
		drop table if exists sv;
		create table sv (id int, ts timestamptz, v numeric, n numeric(12,2), b bigint);
		insert into sv (id, v) values
		    (1, 0), (2, '-0'), (3, 0.05), (4, 1200), (5, 1e21), (6, 1e-20), (7, -1.5), (8, 0.00010),
		    (9, 123456789012345678.9), (10, -99999999999999999), (11, 999999999999999999), (12, 1e18),
		    (13, 'NaN'), (14, 'Infinity'), (15, '-Infinity'), (16, 7), (17, '-0.000000000000000001'),
		    (18, 12345678901234567890123456789), (19, 0.1), (20, -0.1);
		update sv set n = round(v, 2) where abs(v) < 1e9 and v not in ('NaN', 'Infinity', '-Infinity');
		update sv set b = case when abs(v) < 9e18 and v not in ('NaN', 'Infinity', '-Infinity') then trunc(v) end;
		update sv set b = -9223372036854775808 where id = 16;
		insert into sv select id + 100, null, v, n, b from sv;
		-- two or three values per 1-hour window, mixed scales and signs
		update sv set ts = timestamptz '2026-03-01 00:00:00+00' + (id % 100 / 3) * interval '1 hour'
		                   + id * interval '1 second';
	SQL
	local tag
	tag=$(mktemp -d "$T/sv.XXXXXX")
	mkdir -p "$tag/stream" "$tag/push"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table sv --key id --columns id,ts,v,n \
		"${RANGE[@]}" --time ts --window 1h --sum v,n,b --report "$tag/stream"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table sv --key id --columns id,ts,v,n \
		"${RANGE[@]}" --time ts --window 1h --sum v,n,b --report "$tag/push" --pushdown -v
	assert_contains "$ERR" "source: window digests computed by the server"
	assert_file_eq "$tag/push/windows.csv" "$tag/stream/windows.csv"
	assert_file_eq "$tag/push/summary.json" "$tag/stream/summary.json"
	# the sums hold those values: ids 3-5 and 103-105 share a window
	# (2 x (0.05 + 1200 + 1e21)), ids 16 and 116 bigint's smallest twice
	assert_contains "$tag/push/windows.csv" ",2000000000000000002400.1,2000000000000000002400.1,2400.1,2400.1,2400,2400,"
	assert_contains "$tag/push/windows.csv" ",-Infinity,-Infinity,14,14,-18446744073709551616,-18446744073709551616,"
	assert_contains "$tag/push/windows.csv" ",NaN,NaN,"
	sql $SRC "drop table sv" >/dev/null
}

# Summed columns outside --columns, and sums in another order than their
# columns: the aggregate's arguments and the client's fields line up.
test_sum_columns_not_hashed() {
	mk_random $SRC 0.37 1500 $TGT
	sql $TGT "update t set i4 = coalesce(i4, 0) + 1
	          where id = (select min(id) from t where ts >= '2026-03-01 00:00+00' and ts < '2026-03-04 00:00+00')" >/dev/null
	COLS=id,ts,txt,n2 same_both_ways $SRC $TGT 1 --time ts --window 6h --sum i8,n2,i4,dom
	# i4 is summed, not hashed: its window differs by that sum alone
	assert_contains "$T/last-windows.csv" ",differ,"
}

test_random_tables_identical_digests() {
	local seed
	for seed in 0.11 0.42 -0.73; do
		mk_random $SRC "$seed" 2500 $TGT
		same_both_ways $SRC $TGT 1 --time ts --window 6h --sum "$SUMS"
		# windows were really compared, and the NULL times counted
		assert_eq "match match match match match match match match match match match match" \
			"$(statuses "$T/last-windows.csv")"
		same_both_ways $SRC $TGT 1 --time tsl --window 6h --sum "$SUMS"
		same_both_ways $SRC $TGT 1 --time d --window 1d --sum "$SUMS" --jobs 2
	done
}

# The columns whose types binary COPY carries for reckon (io/copybin.h):
# every other column of t makes a streamed scan read COPY text
BINCOLS=id,i2,i4,i8,num,dom,n2,f4,f8,b,txt,vc,ch,nm,d,ts,tsl,u

# three_ways REPORT_DIR WANT_EXIT [OPTION...] - t checked on the BINCOLS
# streaming binary COPY, streaming COPY text and pushed down: the same exit
# status and byte-identical reports
three_ways() {
	local dir=$1 want=$2 w
	shift 2
	mkdir -p "$dir/bin" "$dir/text" "$dir/push"
	assert_exit "$want" pd_check $SRC $TGT "$dir/bin" --columns "$BINCOLS" -vv "$@"
	cp "$ERR" "$dir/bin.err"
	assert_contains "$ERR" "source table public.t on"
	assert_contains "$ERR" ": digest passes stream COPY binary"
	assert_contains "$ERR" "TO STDOUT (FORMAT binary)"
	RECKON_COPY_FORMAT=text assert_exit "$want" pd_check $SRC $TGT "$dir/text" --columns "$BINCOLS" -vv "$@"
	assert_contains "$ERR" ": digest passes stream COPY text"
	assert_not_contains "$ERR" "FORMAT binary"
	assert_exit "$want" pd_check $SRC $TGT "$dir/push" --columns "$BINCOLS" --pushdown "$@"
	for w in windows.csv findings.csv summary.json; do
		assert_file_eq "$dir/bin/$w" "$dir/text/$w"
	done
	same_reports "$dir/push" "$dir/bin"
}

test_binary_copy_same_digests() {
	local seed n=0
	for seed in 0.27 -0.61; do
		mk_random $SRC "$seed" 2500 $TGT
		n=$((n + 1))
		three_ways "$T/b$n.ts" 1 --time ts --window 6h --sum "$SUMS"
		assert_eq "match match match match match match match match match match match match" \
			"$(statuses "$T/b$n.ts/bin/windows.csv")"
		three_ways "$T/b$n.tsl" 1 --time tsl --window 6h --sum "$SUMS" --jobs 2
		three_ways "$T/b$n.d" 1 --time d --window 1d --sum "$SUMS"
	done
	# a summed column that is not hashed takes its value from the decoder
	three_ways "$T/b.nothash" 1 --time ts --window 6h --sum n2,i8,num --columns id,ts,txt
	# damaged: the findings name the same keys whichever way the digests came
	sql $TGT "delete from t where id in (select id from t where ts >= '2026-03-01 06:00+00'
	          and ts < '2026-03-01 12:00+00' order by id limit 2);
	          update t set n2 = n2 + 0.01 where id = (select min(id) from t where n2 is not null
	          and ts >= '2026-03-02 00:00+00' and ts < '2026-03-03 00:00+00')" >/dev/null
	three_ways "$T/b.damaged" 1 --time ts --window 6h --sum "$SUMS"
	assert_eq "3" "$(grep -c '^[^,]*,[^,]*,\(missing\|changed\)' "$T/b.damaged/bin/findings.csv" || true)"
	# the drilldown reads binary too, and shows key values of every type as
	# the text reader does (a float key keeps it on COPY text)
	three_ways "$T/b.keys" 1 --time ts --window 6h --sum "$SUMS" --key id,ts,tsl,n2,num,txt,ch,d,u,b,i2
	assert_eq "3" "$(grep -c '^[^,]*,[^,]*,\(missing\|changed\)' "$T/b.keys/bin/findings.csv" || true)"
	# every pass: the digests and the drilldown's damaged slices on both
	# sides, then the damaged keys' copies in their windows on both (no
	# index on the key: the target reads half the slices that matched)
	assert_eq "6" "$(grep -c 'TO STDOUT (FORMAT binary)$' "$T/b.keys/bin.err")"
	three_ways "$T/b.fkey" 1 --time ts --window 6h --sum "$SUMS" --key id,f8
	assert_eq "2" "$(grep -c 'TO STDOUT (FORMAT binary)$' "$T/b.fkey/bin.err")"
	# the drilldown's four scans as COPY text (the damaged slices and the
	# last pass, each on both sides), and the changed key's values read as
	# COPY text on each side (check/keys.c)
	assert_eq "6" "$(grep -c 'scan of .* TO STDOUT$' "$T/b.fkey/bin.err")"
}

# A table with a compared type binary COPY does not carry for reckon is
# read as COPY text, and says so at -vv
test_binary_copy_other_types_read_text() {
	mk_random $SRC 0.5 50 $TGT
	# (exit 1: rows with a NULL time are a difference)
	assert_exit 1 pd_check $SRC $TGT "$T/b.other" --columns id,ts,js --time ts --window 6h -vv \
		--from 2026-03-01T00:00:00Z --to 2026-03-01T06:00:00Z
	assert_contains "$ERR" "column js is jsonb (other, no binary COPY form)"
	assert_contains "$ERR" ": digest passes stream COPY text"
	assert_not_contains "$ERR" "FORMAT binary"
}

test_damaged_target_same_findings() {
	local -a id
	mk_random $SRC 0.5 3000 $TGT
	# rows inside the checked range, so that every change lands in a window
	read -r -a id <<<"$(sql $TGT "select string_agg(id::text, ' ' order by id) from (select id from t
		where ts >= '2026-03-01 00:00:00+00' and ts < '2026-03-03 18:00:00+00' order by id limit 20) x")"
	sql $TGT >/dev/null <<-SQL
		delete from t where id in (${id[0]}, ${id[1]});
		insert into t select * from t where id in (${id[2]}, ${id[3]});
		update t set ch = 'zz' where id = ${id[4]};
		update t set txt = coalesce(txt, '') || e'\n' where id = ${id[5]};
		update t set f8 = case when f8 = 0 then '-0'::float8 else 0 end where id = ${id[6]};
		update t set num = 'NaN' where id = ${id[7]};
		update t set ts = ts + interval '6 hours' where id = ${id[8]};
		update t set tsl = tsl - interval '1 microsecond' where id = ${id[9]};
		update t set js = coalesce(js, '{}') || '{"z": 1}' where id = ${id[10]};
		update t set u = null where id = ${id[11]};
		update t set n2 = coalesce(n2, 0) + 0.01 where id = ${id[12]};
		update t set by = '\x' where id = ${id[13]};
		update t set iv = coalesce(iv, interval '0') + interval '1 microsecond' where id = ${id[14]};
		update t set c1 = 'z' where id = ${id[15]};
	SQL
	same_both_ways $SRC $TGT 1 --time ts --window 6h --sum "$SUMS"
	assert_match "$(grep -c . "$T/last-findings.csv")" '^([6-9]|[1-9][0-9]+)$' "findings lines"
	assert_contains "$T/last-findings.csv" ",missing,${id[0]},1,0"
	assert_contains "$T/last-findings.csv" ",duplicated,${id[2]},1,2"
	same_both_ways $SRC $TGT 1 --time d --window 1d --sum "$SUMS" --jobs 3
}

# dmg_random DB SEED - random damage of t in DB, as loads do it: rows lost,
# loaded twice, changed, moved in time (a little, or to another window), a
# stale copy beside a moved row, a key part set NULL; many of them among
# the rows of one instant
dmg_random() {
	sql "$1" >/dev/null <<-SQL
		select setseed($2);
		create temp table pick as select id, random() r from t
		  where ts >= '2026-03-01 00:00+00' and ts < '2026-03-04 00:00+00' order by random() limit 24;
		delete from t where id in (select id from pick where r < 0.15);
		insert into t select * from t where id in (select id from pick where r >= 0.15 and r < 0.3);
		update t set txt = coalesce(txt, '') || 'x' where id in (select id from pick where r >= 0.3 and r < 0.45);
		update t set ts = ts + interval '1 microsecond' * floor(random() * 90000000)
		  where id in (select id from pick where r >= 0.45 and r < 0.55);
		update t set ts = ts + interval '6 hours' where id in (select id from pick where r >= 0.55 and r < 0.65);
		insert into t select * from t where id in (select id from pick where r >= 0.65 and r < 0.75);
		update t set ts = ts + interval '17 minutes'
		  where ctid in (select min(ctid) from t where id in (select id from pick where r >= 0.65 and r < 0.75) group by id);
		update t set i2 = null where id in (select id from pick where r >= 0.75 and r < 0.85);
		update t set n2 = coalesce(n2, 0) + 1 where id in (select id from pick where r >= 0.85);
	SQL
}

# mk_instant DB ROWS - ROWS rows more in t at one instant (2026-03-02 07:00),
# with keys (id, i2) of their own, some i2 NULL
mk_instant() {
	sql "$1" >/dev/null <<-SQL
		insert into t (id, i2, ts, txt, n2)
		select 100000 + g, case when g % 17 = 0 then null else (g % 5)::smallint end,
		       timestamptz '2026-03-02 07:00:00+00', md5(g::text), g / 100.0
		from generate_series(1, $2) g;
	SQL
}

# The drilldown narrowed inside the databases (--pushdown, the extension
# 1.3) finds what the streaming drilldown finds, finding for finding, on
# random damage of both sides: composite keys with NULLs, duplicates, rows
# moved in time, and many rows at one instant, which it splits by key hash
# in the server; whatever --leaf-rows is.  It fetches fewer rows.
test_drilldown_pushdown_same_findings() {
	local seed lr tag rs rp
	for seed in 0.13 -0.52 0.77; do
		mk_random $SRC "$seed" 3000 $TGT
		mk_instant $SRC 3000
		mk_instant $TGT 3000
		dmg_random $TGT "$seed"
		dmg_random $SRC "($seed) / 2"
		sql $TGT "delete from t where id in (select id from t where id > 100000 order by md5(id::text) limit 3);
		          update t set txt = 'x' where id = (select max(id) from t where id > 100000);
		          insert into t select * from t where id = 100500" >/dev/null
		for lr in 200000 7; do
			tag=$(mktemp -d "$T/dd.XXXXXX")
			mkdir -p "$tag/stream" "$tag/push"
			assert_exit 1 pd_check $SRC $TGT "$tag/stream" --time ts --window 6h --sum "$SUMS" --key id,i2 \
				--leaf-rows "$lr"
			assert_exit 1 pd_check $SRC $TGT "$tag/push" --time ts --window 6h --sum "$SUMS" --key id,i2 \
				--leaf-rows "$lr" --pushdown -vv
			assert_contains "$ERR" "source: the drilldown narrows the damage in the database"
			assert_contains "$ERR" "target: the drilldown narrows the damage in the database"
			# one instant's rows split by key hash in the server
			assert_contains "$ERR" ".reckon_key_hash("
			same_reports "$tag/push" "$tag/stream"
			assert_match "$(grep -c . "$tag/push/findings.csv")" '^([6-9]|[1-9][0-9]+)$' "findings lines"
			assert_contains "$tag/push/findings.csv" ",duplicated,"
			assert_contains "$tag/push/findings.csv" ",missing,"
			rs=$(jq .drilldown.rows_reread "$tag/stream/summary.json")
			rp=$(jq .drilldown.rows_reread "$tag/push/summary.json")
			assert_match "$((rp <= rs))" '^1$' "pushdown fetched $rp rows, streaming re-read $rs"
		done
		# the three readers agree on the findings (binary, text, pushdown)
		three_ways "$T/dd3.$seed" 1 --time ts --window 6h --sum "$SUMS" --key id,i2 --leaf-rows 11
	done
}

# A database whose extension is 1.2 (no reckon_key_hash): its side streams
# the drilldown, said at -v, and the findings are the same.
test_drilldown_falls_back_with_1_2() {
	sql postgres "drop database if exists pd_12 with (force)" >/dev/null
	createdb pd_12
	if ! sql pd_12 "select count(*) from pg_available_extension_versions where name = 'reckon' and version = '1.2'" |
		grep -qx 1; then
		skip "the reckon extension is not installed in the server's directories, so there is no 1.2 to create (make ext-install as root)"
	fi
	sql pd_12 "create extension reckon version '1.2'" >/dev/null
	mk_random $SRC 0.31 2000 pd_12
	dmg_random pd_12 0.31
	mkdir stream push
	assert_exit 1 pd_check $SRC pd_12 stream --time ts --window 6h --sum "$SUMS"
	assert_exit 1 pd_check $SRC pd_12 push --time ts --window 6h --sum "$SUMS" --pushdown -v
	assert_contains "$ERR" "target: window digests computed by the server"
	assert_contains "$ERR" "source: the drilldown narrows the damage in the database"
	assert_contains "$ERR" "target: the drilldown streams its rows: the reckon extension in the target database is older than 1.3"
	same_reports push stream
	sql postgres "drop database pd_12 with (force)" >/dev/null
}

# The instants the server groups by, and encodes timestamps from, are the
# stored values': against PostgreSQL's own exact arithmetic (extract(epoch)
# is numeric), and against the canonical text of the same values.
test_instant_is_canonical() {
	mk_random $SRC 0.9 2000
	assert_eq "0|0|0" "$(PGOPTIONS="$PINNED" sql $SRC "
		select count(*) filter (where isfinite(ts) and reckon_instant(ts) <> (extract(epoch from ts) * 1000000)::bigint),
		       count(*) filter (where isfinite(tsl) and reckon_instant(tsl) <> (extract(epoch from tsl) * 1000000)::bigint),
		       count(*) filter (where isfinite(d) and reckon_instant(d) <> (extract(epoch from d::timestamp) * 1000000)::bigint)
		from t")"
	assert_eq "0|0" "$(PGOPTIONS="$PINNED" sql $SRC "
		select count(*) filter (where isfinite(ts)
		                        and reckon_instant(ts)::text <> convert_from(substring(reckon_row_encoding(ts) from 6), 'UTF8')),
		       count(*) filter (where isfinite(tsl)
		                        and reckon_instant(tsl)::text <> convert_from(substring(reckon_row_encoding(tsl) from 6), 'UTF8'))
		from t")"
}

# far_check REPORT_DIR [OPTION...] - reckon check of f, pd_far_s against pd_far_t
far_check() {
	rk check --source "$(conn pd_far_s)" --target "$(conn pd_far_t)" --table f --key id \
		--columns id,ts,tsl,v,vl "${RANGE[@]}" --window 6h --report "$@"
}

# far_ways REPORT_DIR [OPTION...] - far_check streaming binary COPY,
# streaming COPY text and pushed down: exit 1 each way and byte-identical
# reports
far_ways() {
	local dir=$1 w
	shift
	mkdir -p "$dir/bin" "$dir/text" "$dir/push"
	assert_exit 1 far_check "$dir/bin" -vv "$@"
	assert_contains "$ERR" ": digest passes stream COPY binary"
	RECKON_COPY_FORMAT=text assert_exit 1 far_check "$dir/text" -vv "$@"
	assert_contains "$ERR" ": digest passes stream COPY text"
	assert_exit 1 far_check "$dir/push" --pushdown -v "$@"
	assert_contains "$ERR" "source: window digests computed by the server"
	assert_contains "$ERR" "target: window digests computed by the server"
	for w in windows.csv findings.csv summary.json; do
		assert_file_eq "$dir/bin/$w" "$dir/text/$w"
	done
	same_reports "$dir/push" "$dir/bin"
}

# PostgreSQL's last 30 years of timestamps, past an int64 of microseconds
# since 1970 (to 294276-12-31 23:59:59.999999), and its first (4714 BC),
# hashed as timestamptz and timestamp and in the time column: the server
# encodes them as the client does (the longer decimal, digest.md) and
# places a row timed there after every window, as the client does.  The
# module is this build's, loaded by its path whatever is installed (one
# older than this refuses the values).
test_far_timestamps_same_digests() {
	local db
	for db in pd_far_s pd_far_t; do
		sql postgres "drop database if exists $db with (force)" >/dev/null
		createdb $db
		sql $db <"${RK_EXT_DIR:-$RK_REPO/build/ext}/reckon-load.sql" >/dev/null
		sql $db >/dev/null <<-'SQL'
			create table f (id int primary key, ts timestamptz, tsl timestamp, v timestamptz, vl timestamp);
			insert into f
			select g, timestamptz '2026-03-01 00:00:00+00' + g * interval '37 minutes 1.000001 seconds',
			       timestamp '2026-03-01 00:00:00' + g * interval '41 minutes',
			       timestamptz '294276-12-31 23:59:59.999999+00' - g * interval '7 years 3 days 1.000001 seconds',
			       timestamp '4714-11-24 00:00:00 BC' + g * interval '1 year 1 microsecond'
			from generate_series(1, 150) g;
			insert into f values
			(1000, '294250-01-01 00:00:00+00', '294250-01-01 00:00:00', '2026-03-02 00:00:00+00', '2026-03-02 00:00:00'),
			(1001, '2026-03-02 00:00:00+00', '294276-12-31 23:59:59.999999', '294247-01-10 04:00:54.775807+00',
			 '294247-01-10 04:00:54.775806'),
			(1002, '2026-03-02 00:00:01+00', '2026-03-02 00:00:01', '4714-11-24 00:00:00+00 BC', '294276-12-31 23:59:59.999999');
		SQL
	done
	odd_settings pd_far_s a
	odd_settings pd_far_t b
	# a changed far value in the range and one outside it (row 1000's time)
	sql pd_far_t "update f set v = v - interval '1 microsecond' where id in (2, 1000);
	              update f set vl = '294276-12-31 23:59:59.999998' where id = 1002" >/dev/null
	far_ways "$T/far.ts" --time ts
	assert_eq "2 1002" "$(grep -c ',changed,' "$T/far.ts/push/findings.csv") $(grep ',changed,' "$T/far.ts/push/findings.csv" | cut -d, -f4 | sort -n | tail -1)"
	far_ways "$T/far.tsl" --time tsl
	for db in pd_far_s pd_far_t; do
		sql postgres "drop database $db with (force)" >/dev/null
	done
}

# Integers, booleans and numerics are encoded from the stored value, text
# read in place (src/ext/reckon_impl.h, rkx_kind): their edges, one row per
# window, so that a wrong byte shows as its own window's hash; and the
# canonical texts themselves.
test_stored_value_shortcuts() {
	mk_table $SRC
	sql $SRC >/dev/null <<-'SQL'
		insert into t (id, ts, i2, i4, i8, num, dom, n2, b, txt, vc, ch) values
		  (1, null, -32768, -2147483648, -9223372036854775808, '-0', '-0', '-0.00', true, '', '', ''),
		  (2, null, 32767, 2147483647, 9223372036854775807, 0.000, 0, 0, false, e'\n', ' ', ' '),
		  (3, null, 0, 0, 0, 'NaN', 'Infinity', -0.01, null, repeat('x', 100000), 'ü', 'a'),
		  (4, null, -1, -1, -1, '-Infinity', 1.500, 1234567890.12, true, repeat(md5('a'), 3000), 'ab', 'ab   '),
		  (5, null, 1, 10, 10000, -1.500, 100000, 0.10, false, 'Zürich', 'x', 'é'),
		  (6, null, -10, -100000, -10000, 1e100, 1e-100, -1234567890.10, true, 'a,b', '"', null),
		  (7, null, 100, 1000000, 100000000, -1e-100, 0.00001234, 0.01, false, e'\\', 'vc', 'ch'),
		  (8, null, null, null, null, 1e1000, 1e-1000, null, null, null, null, null),
		  (9, null, 9999, 99999, 99999999, -1e-1000, 10000, 99.99, true, 'x', 'y', 'z'),
		  (10, null, 10000, 100000000, 1000000000000, 0.0001, 9999.9999, -99.99, false, 'y', 'z', 'x');
		insert into t (id, num, dom) select 10 + g, (case when g % 2 = 0 then '-' else '' end || repeat('9', g * 37) || '.' || repeat('0', g) || '1')::numeric,
		       round(1 / (g + 2)::numeric, g * 10) from generate_series(1, 30) g;
		insert into t (id, num, dom) select 40 + g, 10::numeric ^ g, (-10)::numeric ^ (-g) from generate_series(1, 30) g;
		insert into t (id, num, dom) select 70 + g, (g - 1.5) * 10::numeric ^ (4 * g), round(g * 123.456::numeric, g % 5) * 10000 from generate_series(1, 30) g;
		update t set ts = timestamptz '2026-03-01 00:00:00+00' + id * interval '30 minutes';
	SQL
	sql postgres "drop database if exists pd_edge with (force)" >/dev/null
	createdb pd_edge
	ext_create pd_edge
	mk_table pd_edge
	copy_table $SRC pd_edge
	same_both_ways $SRC pd_edge 0 --time ts --window 30m --sum n2,i2,i4,i8
	# 144 windows of 30 minutes, 100 of them with a row
	assert_eq 144 "$(grep -c ',match,' "$T/last-windows.csv")"
	sql postgres "drop database pd_edge with (force)" >/dev/null
}

# Parallel workers: partial states serialised, combined, finalised.
test_parallel_aggregate_same_digest() {
	local par="-c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0"
	local q serial parallel plan
	mk_random $SRC 0.3 20000
	# the window as a column with statistics, so that the planner knows how
	# few groups there are and aggregates partially in each worker
	sql $SRC "create table tw as select (reckon_instant(ts) - 1772323200000000) / 21600000000 w, *
	          from t where ts >= '2026-03-01 00:00:00+00' and ts < '2026-03-04 00:00:00+00';
	          analyze tw" >/dev/null
	# reckon_window's roles: every column hashed, i8 and n2 also summed
	local roles
	roles=$(tr -c ',\n' h <<<"$COLS" | tr -s h | tr -d ',')
	roles=${roles:0:3}b${roles:4:2}b${roles:7}
	for q in "select count(*), reckon_digest($COLS) from t" \
		"select w, count(*), reckon_digest($COLS) from tw group by w order by w" \
		"select reckon_window('${roles}s', $COLS, i4) from t" \
		"select reckon_windows(1772323200000000, 21600000000, '$roles', ts, $COLS) from t
		 where ts >= '2026-03-01 00:00:00+00' and ts < '2026-03-04 00:00:00+00' or ts is null" \
		"select w, reckon_window('$roles', $COLS) from tw group by w order by w"; do
		serial=$(PGOPTIONS="$PINNED -c max_parallel_workers_per_gather=0" sql $SRC "$q")
		plan=$(PGOPTIONS="$PINNED $par" sql $SRC "explain (costs off) $q")
		assert_contains "$plan" "Partial"
		assert_contains "$plan" "Workers Planned"
		parallel=$(PGOPTIONS="$PINNED $par" sql $SRC "$q")
		assert_eq "$serial" "$parallel" "parallel and serial digests"
	done
	assert_eq 12 "$(wc -l <<<"$parallel")"
	# reckon_windows' windows are the grouped reckon_window's, NULL times
	# included, in window order
	assert_eq "$(PGOPTIONS="$PINNED" sql $SRC "select coalesce(w::text, 'n') || ':' || array_to_string(d, ',')
		from (select w, reckon_window('$roles', $COLS) d from tw group by w
		      union all select null, reckon_window('$roles', $COLS) from t where ts is null) x
		order by w nulls last")" \
		"$(PGOPTIONS="$PINNED $par" sql $SRC "select coalesce(d[i][1], 'n') || ':' || array_to_string(d[i:i][2:], ',')
		from (select reckon_windows(1772323200000000, 21600000000, '$roles', ts, $COLS) d from t
		      where ts >= '2026-03-01 00:00:00+00' and ts < '2026-03-04 00:00:00+00' or ts is null) x,
		     generate_subscripts(x.d, 1) i order by i")"
	sql $SRC "drop table tw" >/dev/null
}

# An installed 1.0 (no reckon_window) under the new module: reckon says to
# update it, --pushdown=auto streams, and ALTER EXTENSION ... UPDATE fixes
# it.  Needs the extension installed in the server's directories (make
# check as root, as in CI); loaded by its path there is no version to have.
test_extension_update_from_1_0() {
	local stmt
	sql postgres "drop database if exists pd_old with (force)" >/dev/null
	createdb pd_old
	if ! sql pd_old "select count(*) from pg_available_extension_versions where name = 'reckon' and version = '1.0'" |
		grep -qx 1; then
		skip "the reckon extension is not installed in the server's directories, so there is no 1.0 to update from (make ext-install as root)"
	fi
	sql pd_old "create extension reckon version '1.0'" >/dev/null
	mk_random pd_old 0.5 200
	mkdir on auto upd
	assert_exit 2 pd_check pd_old pd_old on --time ts --window 6h --sum "$SUMS" --pushdown
	assert_contains "$ERR" "the reckon extension in the source database is version 1.0, without reckon_window"
	assert_contains "$ERR" "ALTER EXTENSION reckon UPDATE"
	assert_exit 1 pd_check pd_old pd_old auto --time ts --window 6h --sum "$SUMS" --pushdown=auto -v
	assert_contains "$ERR" "streaming its rows instead"
	# 1.1: reckon_window, grouped by window
	sql pd_old "alter extension reckon update to '1.1'" >/dev/null
	assert_eq 1.1 "$(sql pd_old "select extversion from pg_extension where extname = 'reckon'")"
	assert_exit 1 pd_check pd_old pd_old upd --time ts --window 6h --sum "$SUMS" --pushdown -vv
	assert_contains "$ERR" "source: window digests computed by the server"
	assert_contains "$ERR" "version 1.1: digests grouped by window"
	stmt=$(grep "window digests of .* on source: COPY" "$ERR")
	assert_contains "$stmt" ".reckon_window('"
	assert_contains "$stmt" " GROUP BY 1"
	assert_file_eq upd/windows.csv auto/windows.csv
	# 1.2: reckon_windows, without GROUP BY (1.3 adds reckon_key_hash, for
	# the drilldown: the same digests)
	mkdir upd2
	sql pd_old "alter extension reckon update to '1.2'" >/dev/null
	assert_eq 1.2 "$(sql pd_old "select extversion from pg_extension where extname = 'reckon'")"
	assert_exit 1 pd_check pd_old pd_old upd2 --time ts --window 6h --sum "$SUMS" --pushdown -vv
	assert_contains "$ERR" "source: window digests computed by the server"
	stmt=$(grep "window digests of .* on source: COPY" "$ERR")
	assert_contains "$stmt" ".reckon_windows(("
	assert_not_contains "$stmt" "GROUP BY 1"
	assert_file_eq upd2/windows.csv auto/windows.csv
	mkdir upd3
	sql pd_old "alter extension reckon update" >/dev/null
	assert_eq 1.3 "$(sql pd_old "select extversion from pg_extension where extname = 'reckon'")"
	assert_exit 1 pd_check pd_old pd_old upd3 --time ts --window 6h --sum "$SUMS" --pushdown
	assert_file_eq upd3/windows.csv auto/windows.csv
}

# A partitioned target whose newer rows live in a foreign partition (another
# database through postgres_fdw, the extension marked shippable): --pushdown
# aggregates each leaf by name, so the foreign leaf's reckon_window runs on
# its server, and the windows are those streaming gives.
# reckon_windows holds at most 2^20 windows (RK_PUSHDOWN_MAX_WINDOWS): a
# range of exactly that many 1 ms windows is aggregated without GROUP BY,
# one window more is grouped, with the same verdict (every window matches;
# exit 1 for the rows with a NULL time, as in every random table here).
test_window_limit_groups() {
	local to n stmt
	mk_random $SRC 0.61 300
	for to in 28.576 28.577; do
		n=$((${to/./} - 28576 + 1048576))
		assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table t --key id \
			--columns id,ts,n2 --sum n2 --time ts --window 1ms --from 2026-03-01T00:00:00Z \
			--to "2026-03-01T00:17:${to}Z" --now 2026-03-10T00:00:00Z --pushdown -vv
		assert_contains "$ERR" "source: window digests computed by the server"
		assert_contains "$OUT" "(0 of $n closed windows differ;"
		stmt=$(grep "window digests of .* on source: COPY" "$ERR")
		if [[ $n == 1048576 ]]; then
			assert_contains "$stmt" ".reckon_windows(("
			assert_not_contains "$stmt" "GROUP BY 1"
		else
			assert_contains "$stmt" " GROUP BY 1"
		fi
	done
}

test_foreign_partition() {
	local db
	for db in pd_coord pd_shard; do
		sql postgres "drop database if exists $db with (force)" >/dev/null
		createdb $db
		ext_create $db
	done
	sql postgres "alter database pd_shard set timezone = 'Asia/Kolkata'; alter database pd_shard set datestyle = 'German, DMY'" >/dev/null
	mk_random $SRC 0.55 2000
	mk_table pd_shard
	mk_table pd_coord
	sql pd_coord >/dev/null <<-SQL
		create extension postgres_fdw;
		create server shard foreign data wrapper postgres_fdw
		    options (host '$PGHOST', port '$PGPORT', dbname 'pd_shard', extensions 'reckon');
		create user mapping for current_user server shard options (user '$PGUSER');
		alter table t rename to t_old;
		create table t (like t_old) partition by range (ts);
		drop table t_old;
		create table t_early partition of t for values from (minvalue) to ('2026-03-02 12:00+00');
		create foreign table t_late partition of t for values from ('2026-03-02 12:00+00') to (maxvalue)
		    server shard options (table_name 't');
		create table t_null partition of t default;
	SQL
	"$RK_PGBIN/psql" -X -q -d $SRC -c "copy (select * from t where ts >= '2026-03-02 12:00+00') to stdout (format binary)" |
		"$RK_PGBIN/psql" -X -q -d pd_shard -c "copy t from stdin (format binary)" >/dev/null
	"$RK_PGBIN/psql" -X -q -d $SRC -c "copy (select * from t where ts < '2026-03-02 12:00+00' or ts is null) to stdout (format binary)" |
		"$RK_PGBIN/psql" -X -q -d pd_coord -c "copy t from stdin (format binary)" >/dev/null
	assert_eq "$(sql $SRC "select count(*) from t")" "$(sql pd_coord "select count(*) from t")"
	same_both_ways $SRC pd_coord 1 --time ts --window 6h --sum "$SUMS"
	assert_contains "$ERR" "partitioned, 1 of its 3 leaf partitions foreign: window digests computed per partition"
	assert_eq "match match match match match match match match match match match match" \
		"$(statuses "$T/last-windows.csv")"
	# more windows than one statement takes branches for: grouped, the same
	same_both_ways $SRC pd_coord 1 --time ts --window 5m --sum "$SUMS"
	assert_contains "$ERR" "864 windows, more than 512: foreign partition \"public\".\"t_late\" is grouped by window"
	same_both_ways $SRC pd_coord 1 --time ts --window 6h --sum "$SUMS"
	if sql pd_coord "select 1 from pg_extension where extname = 'reckon'" | grep -qx 1; then
		# installed as an extension, hence shippable: reckon's aggregate of
		# a window of the foreign leaf is sent to the shard
		assert_contains "$(PGOPTIONS="$PINNED" sql pd_coord "explain (verbose, costs off)
			select reckon_window('hb', id, n2) from t_late
			where ts >= '2026-03-03 00:00+00' and ts < '2026-03-03 06:00+00'")" \
			"Relations: Aggregate on (public.t_late)"
	fi
	# a role that may read the parent only (not its partitions by name):
	# the parent is aggregated as one, and the windows are the same
	sql pd_coord >/dev/null <<-SQL
		drop role if exists pd_reader;
		create role pd_reader login;
		grant select on t to pd_reader;
		create user mapping for pd_reader server shard options (user '$PGUSER', password_required 'false');
	SQL
	mkdir parent
	assert_exit 1 rk check --source "$(conn $SRC)" --target "host=$PGHOST port=$PGPORT user=pd_reader dbname=pd_coord" \
		--table t --key id --columns "$COLS" "${RANGE[@]}" --time ts --window 6h --sum "$SUMS" --report parent --pushdown -v
	assert_contains "$ERR" "3 of 3 leaf partitions cannot be read by their own name"
	assert_contains "$ERR" "target: window digests computed by the server"
	assert_file_eq parent/windows.csv "$T/last-windows.csv"
	sql pd_coord "drop user mapping for pd_reader server shard; drop owned by pd_reader; drop role pd_reader" >/dev/null
	# damage on the shard: the same findings both ways
	sql pd_shard "update t set n2 = coalesce(n2, 0) + 1 where id = (select min(id) from t where ts < '2026-03-04 00:00+00')" >/dev/null
	same_both_ways $SRC pd_coord 1 --time ts --window 6h --sum "$SUMS"
	assert_contains "$T/last-findings.csv" ",changed,"
	for db in pd_coord pd_shard; do
		sql postgres "drop database $db with (force)" >/dev/null
	done
}

# More hashed and summed columns than a PostgreSQL function takes: --pushdown
# says so (exit 2), --pushdown=auto streams.
test_too_many_columns() {
	local cols
	cols=$(seq -s, -f 'c%g' 1 99)
	sql $SRC "drop table if exists wide;
	          create table wide (id int, ts timestamptz, $(seq -s, -f 'c%g int' 1 99));
	          insert into wide (id, ts, c1) values (1, '2026-03-01 01:00+00', 1)" >/dev/null
	mkdir on auto
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table wide --key id --time ts \
		--columns "$cols" "${RANGE[@]}" --window 6h --report on --pushdown
	assert_contains "$ERR" "99 hashed and summed columns; the reckon extension takes at most 98"
	assert_contains "$ERR" "leave out --pushdown"
	assert_dir_only on
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table wide --key id --time ts \
		--columns "$cols" "${RANGE[@]}" --window 6h --report auto --pushdown=auto -v
	assert_contains "$ERR" "streaming its rows instead"
	sql $SRC "drop table wide" >/dev/null
}

test_missing_extension() {
	mk_random $SRC 0.2 300 $BARE
	mkdir stream auto on
	assert_exit 1 pd_check $SRC $BARE stream --time ts --window 6h --sum "$SUMS"
	assert_exit 2 pd_check $SRC $BARE on --time ts --window 6h --sum "$SUMS" --pushdown
	assert_contains "$ERR" "reckon: error: the reckon extension is not installed in the target database"
	assert_contains "$ERR" "CREATE EXTENSION reckon"
	assert_contains "$ERR" "--pushdown=auto"
	assert_dir_only on
	assert_exit 1 pd_check $SRC $BARE auto --time ts --window 6h --sum "$SUMS" --pushdown=auto -v
	assert_contains "$ERR" "source: window digests computed by the server"
	assert_contains "$ERR" "target: the reckon extension is not installed"
	assert_contains "$ERR" "streaming its rows instead"
	same_reports auto stream
}

test_csv_side_streams() {
	mk_random $SRC 0.6 500
	PGOPTIONS="$PINNED" export_csv $SRC "select $COLS from t" src.csv
	mkdir stream push
	assert_exit 1 rk check --source csv:src.csv --target "$(conn $SRC)" --table t --key id --columns "$COLS" \
		"${RANGE[@]}" --time ts --window 6h --sum n2,i4 --report stream
	assert_exit 1 rk check --source csv:src.csv --target "$(conn $SRC)" --table t --key id --columns "$COLS" \
		"${RANGE[@]}" --time ts --window 6h --sum n2,i4 --report push --pushdown -v
	assert_contains "$ERR" "target: window digests computed by the server"
	same_reports push stream
}

# A LATIN1 database: the extension hashes UTF-8, as COPY sends it.
test_latin1_database() {
	sql postgres "drop database if exists pd_latin1 with (force)" >/dev/null
	sql postgres "create database pd_latin1 encoding 'LATIN1' lc_collate 'C' lc_ctype 'C' template template0" >/dev/null
	ext_create pd_latin1
	local ddl="create table t (id int, ts timestamptz, txt text, ch char(4));
	           insert into t values (1, '2026-03-01 01:00+00', 'Zürich', 'é'), (2, '2026-03-01 02:00+00', 'Grüße', 'ab '),
	                                (3, '2026-03-01 07:00+00', '', null)"
	sql pd_latin1 "$ddl" >/dev/null
	createdb pd_utf8
	ext_create pd_utf8
	sql pd_utf8 "$ddl" >/dev/null
	mkdir a b
	assert_exit 0 rk check --source "$(conn pd_latin1)" --target "$(conn pd_utf8)" --table t --key id \
		--columns id,ts,txt,ch "${RANGE[@]}" --time ts --window 6h --report a
	assert_exit 0 rk check --source "$(conn pd_latin1)" --target "$(conn pd_utf8)" --table t --key id \
		--columns id,ts,txt,ch "${RANGE[@]}" --time ts --window 6h --report b --pushdown
	assert_file_eq b/windows.csv a/windows.csv
	assert_eq "match match" "$(statuses b/windows.csv | cut -d' ' -f1-2)"
}

test_option_values() {
	mk_random $SRC 0.2 50
	mkdir r
	assert_exit 2 pd_check $SRC $SRC r --time ts --window 6h --pushdown=maybe
	assert_contains "$ERR" "option --pushdown must be off, on or auto, not 'maybe'"
	assert_exit 1 pd_check $SRC $SRC r --time ts --window 6h --pushdown=off
	printf '[check]\npushdown = auto\n' >c.ini
	assert_exit 1 pd_check $SRC $SRC r --time ts --window 6h --config c.ini -v
	assert_contains "$ERR" "source: window digests computed by the server"
	rk check --help >help.txt
	assert_contains help.txt "--pushdown[=off|on|auto]"
}
