# shellcheck shell=bash disable=SC2016
# reckon repair of a rerun list of key segments (a check without --time,
# docs/key-segments.md, docs/repair.md): each segment of the first key
# column repaired as a unit, row by row by default (--replace-interval:
# the segment's key range replaced), then checked again.  What it writes
# is what a SQL full outer join of the two tables names; rows that match
# keep their physical row (ctid, xmin); a second run writes nothing.

DB=krep

setup_file() {
	createdb $DB
}

# mk_dim NAME KEYEXPR KEYTYPE ROWS - source NAME_src and a damaged copy
# NAME_tgt (no primary key: it may hold duplicates): 5 keys deleted, 4
# changed, 3 duplicated, 2 extra keys; enough rows for several segments.
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

# kr NAME COMMAND ARGS... - reckon COMMAND on the pair NAME_src, NAME_tgt
kr() {
	local n=$1 cmd=$2
	shift 2
	rk "$cmd" --source "$(conn $DB)" --target "$(conn $DB)" --source-table "${n}_src" --target-table "${n}_tgt" \
		--key id "$@"
}

# outer_join NAME - what a full outer join of the two tables says a row-level
# repair writes: "inserted updated deleted" (a missing key's rows inserted,
# a changed key's row updated, an extra key's rows and surplus copies
# deleted)
outer_join() {
	sql $DB "with s as (select id, count(*) c, min(row(name, tier)::text) r from $1_src group by id),
	              t as (select id, count(*) c, min(row(name, tier)::text) r, bool_or(row(name, tier)::text = s2.r2) same
	                    from $1_tgt left join (select id i2, row(name, tier)::text r2 from $1_src) s2 on s2.i2 = id
	                    group by id)
	         select coalesce(sum(case when t.id is null then s.c else 0 end), 0) || ' ' ||
	                coalesce(sum(case when s.id is not null and t.id is not null and not t.same then 1 else 0 end), 0) || ' ' ||
	                coalesce(sum(case when s.id is null then t.c when t.c > s.c then t.c - s.c else 0 end), 0)
	         from s full join t on s.id = t.id"
}

# physical NAME - every target row with its physical identity
physical() {
	sql $DB "select ctid::text || ' ' || xmin::text || ' ' || t::text from $1_tgt t order by 1"
}

# name_keys NAME - NAME_named: the keys whose rows differ between the sides
# (those the check names), noted before a repair
name_keys() {
	sql $DB "drop table if exists $1_named;
	         create table $1_named as
	         with s as (select id, array_agg(row(name, tier)::text order by row(name, tier)::text) r
	                    from $1_src group by id),
	              t as (select id, array_agg(row(name, tier)::text order by row(name, tier)::text) r
	                    from $1_tgt group by id)
	         select id from s full join t using (id) where s.r is distinct from t.r" >/dev/null
}

# untouched NAME - the target rows of keys not in NAME_named, with their
# physical identity
untouched() {
	sql $DB "select ctid::text || ' ' || xmin::text || ' ' || x::text from $1_tgt x
	         where id not in (select id from $1_named) order by 1"
}

# same_rows NAME - the two tables hold the same multiset of rows
same_rows() {
	assert_eq "0" "$(sql $DB "select count(*) from ((select * from $1_src except all select * from $1_tgt)
	                           union all (select * from $1_tgt except all select * from $1_src)) d")" \
		"rows that differ between $1_src and $1_tgt"
}

# repair_loop NAME - check, dry run, repair, re-check, second run
repair_loop() {
	local n=$1 before keep want segs
	assert_exit 1 kr "$n" check --rerun-list "$n.csv" --report "rep_$n"
	segs=$(tail -n +2 "$n.csv" | wc -l)
	[[ $segs -ge 2 ]] || fail "expected the damage in 2 or more segments, got $segs"
	_rk_ok
	want=$(outer_join "$n")
	before=$(physical "$n")
	name_keys "$n"
	keep=$(untouched "$n")
	# the dry run: what the full outer join names, per segment, nothing changed
	assert_exit 0 kr "$n" repair --rerun-list "$n.csv" --format json
	assert_eq "$want" "$(jget "$OUT" '"\(.totals.inserted) \(.totals.updated) \(.totals.deleted_by_time)"')" \
		"the plan against the outer join"
	assert_eq "planned" "$(jget "$OUT" '[.intervals[].status] | unique | join(",")')"
	assert_eq "key" "$(jget "$OUT" '[.intervals[].kind] | unique | join(",")')"
	assert_eq "$before" "$(physical "$n")" "the target after the dry run"
	# the repair: each segment repaired and checked again
	assert_exit 0 kr "$n" repair --rerun-list "$n.csv" --execute --format json
	assert_eq "$want" "$(jget "$OUT" '"\(.totals.inserted) \(.totals.updated) \(.totals.deleted_by_time)"')" \
		"what the repair wrote against the outer join"
	assert_eq "match" "$(jget "$OUT" '[.intervals[].status] | unique | join(",")')"
	assert_eq "$segs" "$(jget "$OUT" '.totals.match')"
	same_rows "$n"
	assert_eq "$keep" "$(untouched "$n")" "rows of keys the check did not name"
	assert_exit 0 kr "$n" check
	# the second run writes nothing: every segment already matches, and no
	# row has a new physical identity
	before=$(physical "$n")
	assert_exit 0 kr "$n" repair --rerun-list "$n.csv" --execute --format json
	assert_eq "already_matches" "$(jget "$OUT" '[.intervals[].status] | unique | join(",")')"
	assert_eq "0 0 0" "$(jget "$OUT" '"\(.totals.inserted) \(.totals.updated) \(.totals.deleted_by_time)"')"
	assert_eq "$before" "$(physical "$n")" "the target after the second run"
}

test_int_key_repaired_by_segments() {
	mk_dim kint i integer 40000
	repair_loop kint
}

# Text keys sharing a long prefix: each segment's bounds are bound as bytes
# and compared as COLLATE "C" compares UTF-8, whatever the collation.
test_text_key_repaired_by_segments() {
	mk_dim ktext "'customer-' || lpad(i::text, 7, '0')" text 40000
	repair_loop ktext
}

test_uuid_key_repaired_by_segments() {
	mk_dim kuuid "md5(i::text)::uuid" uuid 40000
	repair_loop kuuid
}

test_bigint_key_one_segment_text_output() {
	mk_dim kbig "i::bigint * 1000000000" bigint 3000
	assert_exit 1 kr kbig check --rerun-list kbig.csv
	assert_eq "1" "$(tail -n +2 kbig.csv | wc -l)"
	assert_exit 0 kr kbig repair --rerun-list kbig.csv
	assert_contains "$OUT" "[(first), (last))"
	assert_contains "$OUT" "planned"
	assert_contains "$OUT" "dry run: 1 interval"
	assert_exit 0 kr kbig repair --rerun-list kbig.csv --execute
	assert_contains "$OUT" "match"
	same_rows kbig
}

# --replace-interval: every pair row of a damaged segment deleted and the
# source's rows of it inserted; the segments that match are left alone.
test_replace_interval_replaces_the_segment() {
	mk_dim krepl i integer 40000
	assert_exit 1 kr krepl check --rerun-list krepl.csv
	local srows trows other
	srows=$(awk -F, 'NR > 1 { s += $3 } END { print s }' krepl.csv)
	trows=$(awk -F, 'NR > 1 { s += $4 } END { print s }' krepl.csv)
	# the rows of segments outside the list keep their physical row
	local lo hi
	other=$(physical krepl)
	assert_exit 0 kr krepl repair --rerun-list krepl.csv --replace-interval --format json
	assert_eq "$srows $trows" "$(jget "$OUT" '"\(.totals.inserted) \(.totals.deleted_by_time)"')"
	assert_eq "$other" "$(physical krepl)" "the target after the dry run"
	assert_exit 0 kr krepl repair --rerun-list krepl.csv --replace-interval --execute --format json
	assert_eq "match" "$(jget "$OUT" '[.intervals[].status] | unique | join(",")')"
	assert_eq "$srows $trows" "$(jget "$OUT" '"\(.totals.inserted) \(.totals.deleted_by_time)"')"
	same_rows krepl
	# a segment of the list: its rows are all new; a key before its start
	# or at its end is not (the list's first damaged segment)
	lo=$(sed -n 2p krepl.csv | cut -d, -f1)
	hi=$(sed -n 2p krepl.csv | cut -d, -f2)
	[[ -n $hi ]] || fail "the first listed segment ends open"
	_rk_ok
	assert_eq "0" "$(sql $DB "select count(*) from krepl_tgt t where id >= coalesce(nullif('$lo', '')::int, -2147483648)
	                         and id < $hi and xmin::text::bigint < (select min(xmin::text::bigint) from krepl_tgt
	                         where id >= coalesce(nullif('$lo', '')::int, -2147483648) and id < $hi)")"
	assert_exit 0 kr krepl check
}

# A target shared with another tenant, --target-where selecting the pair's
# rows: the other tenant's rows of the same keys are never written, and the
# rows repair inserts must satisfy the filter (the dry run refuses when no
# source column fills the column it tests).
test_target_where_bounds_what_repair_writes() {
	sql $DB >/dev/null <<-'SQL'
		drop table if exists kshare_src, kshare_tgt;
		create table kshare_src (id int primary key, name text);
		insert into kshare_src select i, 'n' || i from generate_series(1, 500) i;
		create table kshare_tgt (tenant text not null default 'b', id int, name text);
		insert into kshare_tgt select 'a', id, name from kshare_src;
		insert into kshare_tgt select 'b', id, 'other' from kshare_src;
		delete from kshare_tgt where tenant = 'a' and id in (10, 20);
		update kshare_tgt set name = 'x' where tenant = 'a' and id = 30;
		insert into kshare_tgt values ('a', 9999, 'extra');
	SQL
	local opts=(--source "$(conn $DB)" --target "$(conn $DB)" --source-table kshare_src --target-table kshare_tgt
		--key id --target-where "tenant = 'a'")
	assert_exit 1 rk check "${opts[@]}" --rerun-list kshare.csv
	local other
	other=$(sql $DB "select ctid::text || xmin::text || t::text from kshare_tgt t where tenant = 'b' order by 1")
	# no source column fills tenant: the rows it would insert take 'b'
	assert_exit 2 rk repair "${opts[@]}" --rerun-list kshare.csv
	assert_contains "$ERR" "--target-where tenant = 'a' tests the target column tenant, which no source column fills"
	assert_exit 2 rk repair "${opts[@]}" --rerun-list kshare.csv --execute
	assert_contains "$ERR" "not selected by --target-where"
	assert_eq "498" "$(sql $DB "select count(*) from kshare_tgt where tenant = 'a' and id <= 500")" "rolled back"
	# mapped, the repair writes tenant a's rows only
	assert_exit 0 rk repair "${opts[@]}" --source-expr "tenant='a'" --rerun-list kshare.csv --execute --format json
	assert_eq "2 1 1" "$(jget "$OUT" '"\(.totals.inserted) \(.totals.updated) \(.totals.deleted_by_time)"')"
	assert_eq "$other" "$(sql $DB "select ctid::text || xmin::text || t::text from kshare_tgt t where tenant = 'b' order by 1")" \
		"the other tenant's rows"
	assert_exit 0 rk check "${opts[@]}"
}

# Through a transaction pooler that resets every server session after each
# transaction, dry run and --execute work: nothing outlives a transaction.
test_through_a_transaction_pooler() {
	mk_dim kpool i integer 3000
	assert_exit 1 kr kpool check --rerun-list kpool.csv
	pgbouncer_start $DB
	trap pgbouncer_stop EXIT
	local pooled="host=127.0.0.1 port=$PGB_PORT dbname=$DB user=$PGUSER"
	assert_exit 0 rk repair --source "$(conn $DB)" --target "$pooled" --source-table kpool_src --target-table kpool_tgt \
		--key id --rerun-list kpool.csv --format json
	assert_eq "$(outer_join kpool)" "$(jget "$OUT" '"\(.totals.inserted) \(.totals.updated) \(.totals.deleted_by_time)"')"
	assert_exit 0 rk repair --source "$(conn $DB)" --target "$pooled" --source-table kpool_src --target-table kpool_tgt \
		--key id --rerun-list kpool.csv --execute --format json
	assert_eq "match" "$(jget "$OUT" '[.intervals[].status] | unique | join(",")')"
	same_rows kpool
	pgbouncer_stop
	trap - EXIT
}

# What a key list is refused for, before any change (exit 2).
test_refusals() {
	mk_dim kref i integer 3000
	assert_exit 1 kr kref check --rerun-list kref.csv
	local before
	before=$(physical kref)
	assert_exit 2 kr kref repair --time tier --rerun-list kref.csv
	assert_contains "$ERR" "holds key segments (kind key), and --time tier was given"
	assert_exit 2 kr kref repair --interval-column tier --rerun-list kref.csv
	assert_contains "$ERR" "option --interval-column is about time"
	# a time list without --time
	printf '%s\n%s\n' "interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed" \
		"2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,1,0,1,0,0,0" >times.csv
	assert_exit 2 kr kref repair --rerun-list times.csv
	assert_contains "$ERR" "repair of times.csv needs --time"
	# hand-edited lists: out of key order (as integers: 900 < 1000), bounds
	# that are no segment bounds
	cat >order.csv <<-'EOF'
		interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed,kind
		,1000,1,1,0,0,0,1,key
		900,,1,1,0,0,0,1,key
	EOF
	assert_exit 2 kr kref repair --rerun-list order.csv
	assert_contains "$ERR" "segment 2 of the rerun list, [900, (last)), of id integer: it starts before the previous segment ends"
	cat >huge.csv <<-'EOF'
		interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed,kind
		,9000000000000000000,1,1,0,0,0,1,key
	EOF
	assert_exit 2 kr kref repair --rerun-list huge.csv
	assert_contains "$ERR" "integers within +-2^61"
	# a key the source holds twice within a segment
	sql $DB "alter table kref_src drop constraint kref_src_pkey; insert into kref_src values (5, 'again', 1)" >/dev/null
	assert_exit 2 kr kref repair --rerun-list kref.csv
	assert_contains "$ERR" "is not unique at the source"
	assert_eq "$before" "$(physical kref)" "the target after the refusals"
}
