# shellcheck shell=bash disable=SC2054
# Composite keys whose text holds commas, quotes, newlines, tabs, backslashes
# and non-ASCII; keys that only differ in where one column ends ('1','11' vs
# '11','1'); NULL against the empty string; NULLs in a summed column.

SRC=ck_keys_src
TGT=ck_keys_tgt

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_accounts $SRC
}

mk_accounts() {
	sql "$1" >/dev/null <<-'SQL'
		create schema if not exists mart;
		drop table if exists mart.accounts;
		create table mart.accounts (
			region text, code text, n integer,
			ts timestamptz, balance numeric(12,2), note text);
		insert into mart.accounts values
			('a,b',             'x',     1, '2026-03-02 00:05:00+00', 10.00, 'comma'),
			('say "hi"',        'y',     2, '2026-03-02 00:10:00+00', 20.00, 'quotes'),
			(e'line1\nline2',   'z',     3, '2026-03-02 00:15:00+00', 30.00, 'newline'),
			('Zürich ✓ 東京',   'ü',     4, '2026-03-02 00:20:00+00', 40.00, 'utf8'),
			('',                'empty', 5, '2026-03-02 00:25:00+00', 50.00, 'empty region'),
			(e'tab\there',      'q',     6, '2026-03-02 00:30:00+00', 60.00, 'tab'),
			(e'back\\slash',    'r',     7, '2026-03-02 00:35:00+00', 70.00, 'backslash'),
			('1',               '11',    8, '2026-03-02 00:40:00+00', 80.00, 'one eleven'),
			('11',              '1',     8, '2026-03-02 00:40:00+00', 80.00, 'one eleven'),
			(' lead',           'trail ', 9, '2026-03-02 00:45:00+00', 90.00, 'spaces'),
			('null-note',       'a',    10, '2026-03-02 01:05:00+00', 1.00, null),
			('empty-note',      'b',    11, '2026-03-02 01:10:00+00', 2.00, ''),
			('null-balance',    'c',    12, '2026-03-02 01:15:00+00', null, 'x'),
			('zero-balance',    'd',    13, '2026-03-02 01:20:00+00', 0, 'x');
	SQL
}

accounts_check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.accounts \
		--key region,code,n --time ts --sum balance --columns region,code,n,ts,balance,note \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T02:00:00Z --window 1h --now 2026-04-01T00:00:00Z "$@"
}

# findings.csv read back by PostgreSQL's own CSV parser
load_findings() {
	sql $SRC "drop table if exists findings;
	          create table findings (window_start text, window_end text, kind text,
	                                 region text, code text, n integer,
	                                 source_copies integer, target_copies integer)" >/dev/null
	import_csv $SRC findings "$1"
}

test_identical_awkward_keys_match() {
	mk_accounts $TGT
	mkdir rep
	assert_exit 0 accounts_check --report rep
	assert_eq "match match" "$(statuses rep/windows.csv)"
}

test_awkward_keys_reported_exactly() {
	mk_accounts $TGT
	sql $TGT "delete from mart.accounts where n in (1, 2, 3, 4, 5, 6, 7, 9)" >/dev/null
	mkdir rep
	assert_exit 1 accounts_check --report rep
	assert_eq "differ match" "$(statuses rep/windows.csv)"
	assert_eq "window_start,window_end,kind,region,code,n,source_copies,target_copies" "$(head -n 1 rep/findings.csv)"
	load_findings rep/findings.csv
	# every missing key comes back byte for byte
	assert_eq 8 "$(sql $SRC "select count(*) from findings")"
	assert_eq 8 "$(sql $SRC "select count(*) from findings f join mart.accounts a using (region, code, n)
	                         where f.kind = 'missing' and f.source_copies = 1 and f.target_copies = 0
	                           and f.window_start = '2026-03-02T00:00:00Z'")"
	assert_eq "$(printf 'line1\nline2')" "$(sql $SRC "select region from findings where n = 3")"
	assert_eq "Zürich ✓ 東京|ü" "$(sql $SRC "select region || '|' || code from findings where n = 4")"
	assert_eq "[ lead|trail ]" "$(sql $SRC "select '[' || region || '|' || code || ']' from findings where n = 9")"
	assert_eq "0 t" "$(sql $SRC "select count(*) filter (where region is null), bool_and(region = '') from findings where n = 5" | tr '|' ' ')"
	# the summary's JSON carries the same counts
	assert_eq 8 "$(jget rep/summary.json .findings.missing)"
}

# ('1', '11') and ('11', '1') are different keys.
test_key_columns_do_not_run_together() {
	mk_accounts $TGT
	sql $TGT "delete from mart.accounts where region = '11' and code = '1'" >/dev/null
	mkdir rep
	assert_exit 1 accounts_check --report rep
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,region,code,n,source_copies,target_copies
		2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,missing,11,1,8,1,0
	EOF
	# and a target holding the other key twice instead
	sql $TGT "insert into mart.accounts select * from mart.accounts where region = '1' and code = '11'" >/dev/null
	assert_exit 1 accounts_check --report rep
	load_findings rep/findings.csv
	assert_eq "duplicated|1|11|1|2
missing|11|1|1|0" "$(sql $SRC "select kind, region, code, source_copies, target_copies from findings order by kind")"
}

test_null_versus_empty_string() {
	mk_accounts $TGT
	sql $TGT "update mart.accounts set note = '' where n = 10;      -- NULL became ''
	          update mart.accounts set note = null where n = 11" >/dev/null  # '' became NULL
	mkdir rep
	assert_exit 1 accounts_check --report rep
	assert_eq "match differ" "$(statuses rep/windows.csv)"
	load_findings rep/findings.csv
	assert_eq "changed|null-note|10
changed|empty-note|11" "$(sql $SRC "select kind, region, n from findings order by n")"
	# only one of the two changed: still found
	mk_accounts $TGT
	sql $TGT "update mart.accounts set note = '' where n = 10" >/dev/null
	assert_exit 1 accounts_check --report rep
	assert_eq "match differ" "$(statuses rep/windows.csv)"
}

# NULLs are skipped in sums, as SQL does: NULL -> 0 keeps the sum, not the hash.
test_null_in_sum_column() {
	mk_accounts $TGT
	sql $TGT "update mart.accounts set balance = 0 where n = 12" >/dev/null
	mkdir rep
	assert_exit 1 accounts_check --report rep
	local w=2026-03-02T01:00:00Z
	assert_eq "3 3" "$(wfield rep/windows.csv $w source_sum_balance) $(wfield rep/windows.csv $w target_sum_balance)"
	assert_eq "4 4" "$(wfield rep/windows.csv $w source_rows) $(wfield rep/windows.csv $w target_rows)"
	assert_eq differ "$(wfield rep/windows.csv $w status)"
	load_findings rep/findings.csv
	assert_eq "changed|null-balance|12" "$(sql $SRC "select kind, region, n from findings")"
}

# A key column that is NULL is still a key value, apart from ''.
test_null_key_value() {
	mk_accounts $TGT
	sql $SRC "insert into mart.accounts values (null, 'nk', 20, '2026-03-02 01:30:00+00', 5, 'null key')" >/dev/null
	sql $TGT "insert into mart.accounts values ('', 'nk', 20, '2026-03-02 01:30:00+00', 5, 'null key')" >/dev/null
	mkdir rep
	assert_exit 1 accounts_check --report rep
	load_findings rep/findings.csv
	sql $SRC "delete from mart.accounts where n = 20" >/dev/null
	assert_eq "extra|t|f
missing|f|t" "$(sql $SRC "select kind, region is not distinct from '', region is null from findings order by kind")"
}

# A char(n) key is written as PostgreSQL's text output shows it: with its
# padding, in findings.csv and the text output, streamed binary or text.
test_char_key_keeps_its_padding() {
	local db
	for db in $SRC $TGT; do
		sql $db >/dev/null <<-'SQL'
			create schema if not exists mart;
			drop table if exists mart.codes;
			create table mart.codes (code char(5) primary key, ts timestamptz, v int);
			insert into mart.codes values ('ab', '2026-03-02 00:05:00+00', 1), ('abcde', '2026-03-02 00:10:00+00', 2),
			                              ('x y', '2026-03-02 00:15:00+00', 3);
		SQL
	done
	sql $TGT "delete from mart.codes where code in ('ab', 'x y')" >/dev/null
	for fmt in binary text; do
		rm -rf rep
		mkdir rep
		RECKON_COPY_FORMAT=$fmt assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" \
			--table mart.codes --time ts --from 2026-03-02T00:00:00Z --to 2026-03-02T01:00:00Z --window 1h \
			--now 2026-04-01T00:00:00Z --report rep
		assert_file_eq rep/findings.csv - <<-EOF2
			window_start,window_end,kind,code,source_copies,target_copies
			2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,missing,"ab   ",1,0
			2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,missing,"x y  ",1,0
		EOF2
		assert_contains "$OUT" "missing              2  ab   , x y  "
	done
}
