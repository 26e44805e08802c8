# shellcheck shell=bash disable=SC2016
# Tables without a time column, checked by key segments (no --time,
# docs/key-segments.md): ranges of the first key column, bisected where the
# digests differ.  The findings must equal what a SQL full outer join of the
# two sides names, whatever the first key column's type.

DB=seg

setup_file() {
	createdb $DB
}

# mk_dim NAME KEYEXPR KEYTYPE ROWS - source table NAME_src and a damaged
# copy NAME_tgt (no primary key: it may hold duplicates): 5 keys deleted, 4
# changed, 3 duplicated, 2 extra keys.
mk_dim() {
	local n=$1 k=$2 ty=$3 rows=$4
	sql $DB >/dev/null <<-SQL
		drop table if exists ${n}_src, ${n}_tgt;
		create table ${n}_src (id $ty primary key, name text not null, tier int);
		insert into ${n}_src select $k, 'name ' || i, i % 7 from generate_series(1, $rows) i;
		create table ${n}_tgt (id $ty, name text not null, tier int);
		insert into ${n}_tgt select * from ${n}_src;
		delete from ${n}_tgt where id in (select $k from generate_series(1, $rows, $rows / 5) i);
		update ${n}_tgt set tier = -1 where id in (select $k from generate_series(7, $rows, $rows / 4) i);
		insert into ${n}_tgt select * from ${n}_src where id in (select $k from generate_series(11, $rows, $rows / 3) i);
		insert into ${n}_tgt select $k, 'gone', 0 from generate_series($rows + 1, $rows + 2) i;
		analyze ${n}_src;
	SQL
}

# expected NAME - "kind,key" per finding, from a full outer join, sorted
expected() {
	sql $DB "with s as (select id, count(*) c, min(row(name, tier)::text) r from $1_src group by id),
	              t as (select id, count(*) c, min(row(name, tier)::text) r from $1_tgt group by id)
	         select k || ',' || id from (
	           select coalesce(s.id, t.id)::text id,
	                  case when s.id is null then 'extra'
	                       when t.id is null or t.c < s.c then 'missing'
	                       when t.c > s.c then 'duplicated'
	                       when s.r is distinct from t.r then 'changed' end k
	           from s full join t on s.id = t.id) f
	         where k is not null order by 1" | LC_ALL=C sort
}

# found DIR - "kind,key" per finding of DIR/findings.csv, sorted
found() {
	python3 -c 'import csv,sys
for r in list(csv.reader(open(sys.argv[1], newline="")))[1:]: print(r[2] + "," + r[3])' "$1/findings.csv" |
		LC_ALL=C sort
}

check_dim() {
	assert_exit 1 rk check --source "$(conn $DB)" --target "$(conn $DB)" --source-table "$1_src" \
		--target-table "$1_tgt" --key id --report rep_$1 --rerun-list rerun_$1.csv
	found rep_$1 >found_$1
	expected "$1" >expected_$1
	assert_file_eq found_$1 expected_$1
	[[ $(wc -l <found_$1) -eq 14 ]] || fail "expected 14 findings, got $(wc -l <found_$1)"
	_rk_ok
	assert_eq "$(jget rep_$1/summary.json .range.by)" key
}

test_int_key_findings_equal_a_full_outer_join() {
	mk_dim dint i integer 250000
	check_dim dint
	# the source's 250,000 rows are cut into segments of about 10,000
	local segs
	segs=$(jget rep_dint/summary.json .range.segments)
	[[ $segs -ge 15 && $segs -le 30 ]] || fail "expected 15 to 30 segments, got $segs"
	_rk_ok
	assert_eq "$(head -1 rerun_dint.csv)" \
		"interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed,kind"
	# every segment with a finding is listed, with kind key; the first
	# starts open (empty), the last ends open
	assert_eq "$(tail -n +2 rerun_dint.csv | cut -d, -f9 | sort -u)" key
	assert_eq "$(tail -n +2 rerun_dint.csv | head -1 | cut -d, -f1)" ""
	assert_eq "$(tail -n 1 rerun_dint.csv | cut -d, -f2)" ""
	# the segments' rows add up to each side's rows
	assert_eq "$(awk -F, 'NR > 1 { s += $4 } END { print s }' rep_dint/windows.csv)" \
		"$(sql $DB 'select count(*) from dint_src')"
	assert_eq "$(awk -F, 'NR > 1 { s += $5 } END { print s }' rep_dint/windows.csv)" \
		"$(sql $DB 'select count(*) from dint_tgt')"
}

test_text_key() {
	# keys sharing a long prefix: the segments are cut after it
	mk_dim dtext "'customer-' || lpad(i::text, 7, '0')" text 250000
	check_dim dtext
	[[ $(jget rep_dtext/summary.json .range.segments) -ge 2 ]] || fail "one segment only"
	_rk_ok
	assert_match "$(sed -n 2p rep_dtext/windows.csv | cut -d, -f2)" '^customer-[0-9]+$'
}

test_uuid_key() {
	mk_dim duuid "md5(i::text)::uuid" uuid 250000
	check_dim duuid
	[[ $(jget rep_duuid/summary.json .range.segments) -ge 2 ]] || fail "one segment only"
	_rk_ok
}

test_small_table_is_one_segment_and_matches() {
	sql $DB >/dev/null <<-'SQL'
		drop table if exists small_src, small_tgt;
		create table small_src (code varchar(10) primary key, label text);
		insert into small_src values ('EUR', 'euro'), ('USD', 'dollar'), ('CHF', 'franc'), ('Ä', 'umlaut');
		create table small_tgt as select * from small_src;
	SQL
	assert_exit 0 rk check --source "$(conn $DB)" --target "$(conn $DB)" --source-table small_src \
		--target-table small_tgt --report rep_small --format json
	assert_eq "$(jq -r .verdict "$OUT")" match
	assert_eq "$(jq -r .range.segments "$OUT")" 1
	assert_eq "$(jq -r .source_rows "$OUT")" 4
	assert_eq "$(tail -n +2 rep_small/windows.csv | cut -d, -f1-3)" ",,match"
}

test_composite_key() {
	# the first key column has three values: most keys share a point, and
	# the drilldown splits them by key hash
	sql $DB >/dev/null <<-'SQL'
		drop table if exists comp_src, comp_tgt;
		create table comp_src (region text, n int, v text, primary key (region, n));
		insert into comp_src select (array['north', 'south', 'west'])[1 + i % 3], i, 'v' || i
		from generate_series(1, 3000) i;
		create table comp_tgt as select * from comp_src;
		delete from comp_tgt where n in (10, 2000);
		update comp_tgt set v = 'x' where n = 1501;
		insert into comp_tgt values ('east', 1, 'new');
	SQL
	assert_exit 1 rk check --source "$(conn $DB)" --target "$(conn $DB)" --source-table comp_src \
		--target-table comp_tgt --report rep_comp --leaf-rows 100
	tail -n +2 rep_comp/findings.csv | cut -d, -f3-5 | LC_ALL=C sort >found_comp
	assert_file_eq found_comp - <<-'EOF'
		changed,south,1501
		extra,east,1
		missing,south,10
		missing,west,2000
	EOF
}

test_empty_side() {
	sql $DB >/dev/null <<-'SQL'
		drop table if exists e_src, e_tgt;
		create table e_src (id bigint primary key, v text);
		insert into e_src select i, 'v' from generate_series(1, 5) i;
		create table e_tgt (like e_src);
	SQL
	assert_exit 1 rk check --source "$(conn $DB)" --target "$(conn $DB)" --source-table e_src \
		--target-table e_tgt --report rep_e
	assert_eq "$(tail -n +2 rep_e/findings.csv | cut -d, -f3 | sort | uniq -c | awk '{print $1, $2}')" "5 missing"
	assert_exit 1 rk check --source "$(conn $DB)" --target "$(conn $DB)" --source-table e_tgt \
		--target-table e_src --report rep_e2 --key id
	assert_eq "$(tail -n +2 rep_e2/findings.csv | cut -d, -f3 | sort | uniq -c | awk '{print $1, $2}')" "5 extra"
}

test_time_options_need_time() {
	assert_exit 2 rk check --source "$(conn $DB)" --target "$(conn $DB)" --table small_src --window 1h
	assert_contains "$ERR" "option --window needs --time"
	assert_exit 2 rk check --source "$(conn $DB)" --target "$(conn $DB)" --table small_src --last 1d
	assert_contains "$ERR" "option --last needs --time"
}

test_unsegmentable_key_type() {
	sql $DB >/dev/null <<-'SQL'
		drop table if exists f_src;
		create table f_src (x double precision primary key, v text);
	SQL
	assert_exit 2 rk check --source "$(conn $DB)" --target "$(conn $DB)" --table f_src
	assert_contains "$ERR" "first key column x, which has type double precision"
}

# A key list through reckon rerun-list: normalised and merged as CSV (read
# back by a CSV parser), as JSON Lines (a JSON parser) and as dbt runs (the
# commands run by a shell against a stand-in dbt that records its
# arguments); the formats whose commands take dates refuse it, exit 2.
test_key_lists_through_rerun_list() {
	mk_dim dint i integer 40000
	assert_exit 1 rk check --source "$(conn $DB)" --target "$(conn $DB)" --source-table dint_src \
		--target-table dint_tgt --key id --rerun-list keys.csv
	assert_exit 0 rk rerun-list keys.csv
	assert_file_eq "$OUT" keys.csv
	# JSON Lines: one object per segment, its bounds, null for an open end
	assert_exit 0 rk rerun-list --as json keys.csv
	python3 - "$OUT" keys.csv <<-'PY' || fail "JSON lines are not as expected: $(cat "$OUT")"
		import csv, json, sys
		rows = [json.loads(line) for line in open(sys.argv[1])]
		want = list(csv.reader(open(sys.argv[2], newline="")))[1:]
		assert len(rows) == len(want) >= 2, (rows, want)
		for r, w in zip(rows, want):
		    assert r["kind"] == "key", r
		    assert r["interval_start"] == (w[0] or None) and r["interval_end"] == (w[1] or None), (r, w)
		    assert [r[k] for k in ("source_rows", "target_rows", "missing", "extra", "duplicated", "changed")] \
		        == [int(x) for x in w[2:8]], (r, w)
		assert rows[0]["interval_start"] is None and rows[-1]["interval_end"] is None
	PY
	_rk_ok
	# adjacent segments merge where one ends at the key the next starts at
	cat >adj.csv <<-'EOF'
		interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed,kind
		,"a,1",5,4,1,0,0,0,key
		"a,1",b,5,5,0,0,0,1,key
		c,"",5,6,0,1,0,0,key
		,x,2,2,0,0,0,1,key
	EOF
	assert_exit 2 rk rerun-list adj.csv
	assert_contains "$ERR" 'adj.csv:5:1: interval_start is empty (an open start) on a segment after the first'
	sed -i '$d' adj.csv
	assert_exit 0 rk rerun-list --merge adj.csv
	python3 - "$OUT" <<-'PY' || fail "merged key list is not as expected: $(cat "$OUT")"
		import csv, sys
		rows = list(csv.reader(open(sys.argv[1], newline="")))
		assert rows[0][-1] == "kind" and rows[0][:3] == ["range_start", "range_end", "intervals"], rows[0]
		assert rows[1:] == [["", "b", "2", "10", "9", "1", "0", "0", "1", "key"],
		                    ["c", "", "1", "5", "6", "0", "1", "0", "0", "key"]], rows
	PY
	_rk_ok
	# the quoted empty end is the empty text, not an open end: JSON ""
	assert_exit 0 rk rerun-list --as json --merge adj.csv
	assert_eq "$(jq -s -c '[.[] | [.range_start, .range_end, .intervals]]' "$OUT")" '[[null,"b",2],["c","",1]]'
	# dbt: one run per merged range, vars key_start and key_end
	assert_exit 0 rk rerun-list --as dbt --select "dim_customer+" adj.csv
	mkdir -p bin
	printf '#!/bin/sh\nfor a in "$@"; do printf "%%s\\n" "$a"; done >>%s/args.dbt; echo -- >>%s/args.dbt\n' \
		"$T" "$T" >bin/dbt
	chmod +x bin/dbt
	PATH=$T/bin:$PATH sh -e "$OUT"
	python3 - "$T/args.dbt" <<-'PY' || fail "dbt arguments are not as expected: $(cat args.dbt)"
		import json, sys
		runs = open(sys.argv[1]).read().split("--\n")[:-1]
		assert len(runs) == 2, runs
		for run, want in zip(runs, [{"key_start": None, "key_end": "b"}, {"key_start": "c", "key_end": ""}]):
		    a = run.splitlines()
		    assert a[:4] == ["run", "--select", "dim_customer+", "--vars"] and len(a) == 5, a
		    assert json.loads(a[4]) == want, a[4]
	PY
	_rk_ok
	# Airflow and Dagster take dates: refused, naming the format, nothing printed
	assert_exit 2 rk rerun-list --as airflow3 --dag d keys.csv
	assert_contains "$ERR" "--as airflow3 prints commands that take dates, and rerun list keys.csv holds key segments"
	[[ ! -s $OUT ]] || fail "output for a refused list: $(cat "$OUT")"
	assert_exit 2 rk rerun-list --as airflow --dag d keys.csv
	assert_contains "$ERR" "--as airflow prints commands that take dates"
	assert_exit 2 rk rerun-list --as dagster --select d keys.csv
	assert_contains "$ERR" "which a partition range cannot express"
	assert_contains "$ERR" "--as json"
}

# A nightly job holding a dimension without a time column beside a table
# with one: the dimension is checked by key segments.
test_job_with_a_dimension_without_time() {
	sql $DB >/dev/null <<-'SQL'
		drop table if exists dim_customer, dim_customer_copy, facts, facts_copy;
		create table dim_customer (customer_id int primary key, name text, country text);
		insert into dim_customer select i, 'c' || i, 'DE' from generate_series(1, 500) i;
		create table dim_customer_copy as select * from dim_customer;
		update dim_customer_copy set country = 'AT' where customer_id = 42;
		create table facts (id int primary key, at timestamptz, v int);
		insert into facts select i, '2026-03-02T00:00:00Z'::timestamptz + i * interval '1 minute', i
		from generate_series(1, 100) i;
		create table facts_copy as select * from facts;
	SQL
	cat >job.ini <<-EOF
		[defaults]
		source = $(conn $DB)
		target = $(conn $DB)
		[table dim_customer]
		source-table = dim_customer
		target-table = dim_customer_copy
		key = customer_id
		[table facts]
		source-table = facts
		target-table = facts_copy
		key = id
		time = at
		window = 1h
		from = 2026-03-02T00:00:00Z
		to = 2026-03-02T03:00:00Z
	EOF
	assert_exit 1 rk check --job job.ini --report jrep
	assert_eq "$(jget jrep/summary.json '.tables.dim_customer.verdict')" differ
	assert_eq "$(jget jrep/summary.json '.tables.facts.verdict')" match
	assert_eq "$(tail -n +2 jrep/dim_customer/findings.csv | cut -d, -f3-4)" "changed,42"
	assert_eq "$(head -1 jrep/dim_customer/rerun.csv | awk -F, '{print $NF}')" kind
}

# reckon init writes a table without a time column as a section without
# time (key segments) instead of leaving it out; a key of a type key
# segments cannot range over still leaves it out, with the reason.
test_init_writes_tables_without_time() {
	local db
	for db in seg_a seg_b; do
		createdb $db
		sql $db >/dev/null <<-'SQL'
			create table dim_customer (customer_id int primary key, name text);
			insert into dim_customer select i, 'c' || i from generate_series(1, 50) i;
			create table rates (rate double precision primary key, label text);
			create table facts (id int primary key, at timestamptz);
			insert into facts values (1, '2026-03-02T00:30:00Z');
		SQL
	done
	sql seg_b "delete from dim_customer where customer_id = 7" >/dev/null
	assert_exit 0 rk init --source "$(conn seg_a)" --target "$(conn seg_b)"
	cp "$OUT" init.ini
	sed -n '/^\[table dim_customer\]/,/^$/p' init.ini >dim.sec
	assert_contains dim.sec "key = customer_id"
	assert_not_contains dim.sec "time ="
	assert_contains init.ini "; no time column: checked by key segments of its first key column"
	assert_contains init.ini "; [table rates] is left out: no timestamp or date column on both sides, and its first key column is of a type key segments cannot range over"
	assert_match "$(sed -n '/^\[table facts\]/,/^$/p' init.ini)" "time = at"
	# the output runs unedited: the dimension by key segments beside facts in windows
	assert_exit 1 rk check --job init.ini --report irep --now 2026-03-03T00:00:00Z \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z
	assert_eq "$(jget irep/summary.json .tables.dim_customer.verdict)" differ
	assert_eq "$(jget irep/summary.json .tables.facts.verdict)" match
	assert_eq "$(tail -n +2 irep/dim_customer/findings.csv | cut -d, -f3-4)" "missing,7"
}
