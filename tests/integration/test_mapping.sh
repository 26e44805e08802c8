# shellcheck shell=bash disable=SC2054
# Mapping and filters (docs/jobs.md): a target with renamed, transformed
# columns and a filtered load, checked through --source-expr and
# --source-where, gives the verdict, windows, findings and rerun list that
# an equal unmapped pair gives - on every read path: binary COPY, COPY
# text, --jobs, --pushdown, and a drilldown split into small leaves.
#
# The pair: the source s_orders(order_id, line_no, created_at,
# amount_cents, full_name, status, is_test) loads into the target
# t_orders(id, line, created, amount numeric(12,2), name, status,
# loaded_at) without its test rows.  The unmapped twin: ref_src and ref_tgt,
# the same logical rows under the target's names, made by SQL.

SRC=map_src
TGT=map_tgt

MAP=(--source-table s_orders --target-table t_orders
	--source-expr id=order_id --source-expr line=line_no --source-expr created=created_at
	--source-expr 'amount=amount_cents / 100.0' --source-expr name=full_name
	--source-where 'not is_test')
REF=(--source-table ref_src --target-table ref_tgt)
WIN=(--time created --window 6h --from 2026-03-01T00:00:00Z --to 2026-03-04T00:00:00Z
	--now 2026-03-10T00:00:00Z)

setup_file() {
	createdb $SRC
	createdb $TGT
}

# mk_pair SEED ROWS - random source rows (some NULL names and times, test
# rows, duplicates of a key at one instant), the target loaded from them
# through the mapping, then damaged: rows missing, extra, changed,
# duplicated; finally the unmapped twin of both.
mk_pair() {
	sql $SRC >/dev/null <<-SQL
		drop table if exists s_orders, ref_src;
		create table s_orders (order_id bigint, line_no int, created_at timestamptz,
		    amount_cents bigint, full_name text, status text, is_test boolean not null default false);
		select setseed($1);
		insert into s_orders
		select g / 3, g % 3,
		       case when random() < 0.02 then null
		            when random() < 0.1 then timestamptz '2026-03-01 00:00:00+00' + floor(random() * 12)::int * interval '6 hours'
		            else timestamptz '2026-02-28 18:00:00+00' + random() * interval '3 days 12 hours' end,
		       case when random() < 0.05 then null else floor((random() - 0.3) * 1e7)::bigint end,
		       case when random() < 0.05 then null else 'name ' || md5(g::text) end,
		       (array['new', 'paid', 'shipped', 'Ünicode ✓', ''])[1 + floor(random() * 5)::int],
		       random() < 0.1
		from generate_series(1, $2) g;
		create table ref_src as
		select order_id as id, line_no as line, created_at as created, amount_cents / 100.0 as amount,
		       full_name as name, status
		from s_orders where not is_test;
	SQL
	sql $TGT >/dev/null <<-'SQL'
		drop table if exists t_orders, ref_tgt;
		create table t_orders (id bigint, line int, created timestamptz, amount numeric(12,2), name text,
		    status text, loaded_at timestamptz not null default clock_timestamp());
	SQL
	export_csv $SRC "select order_id, line_no, created_at, amount_cents / 100.0, full_name, status
	                 from s_orders where not is_test" load.csv
	import_csv $TGT "t_orders (id, line, created, amount, name, status)" load.csv
	sql $TGT >/dev/null <<-SQL
		select setseed($1 / 2.0);
		delete from t_orders where ctid in (select ctid from t_orders order by random() limit 5);
		update t_orders set status = 'edited' where ctid in (select ctid from t_orders order by random() limit 4);
		update t_orders set created = created + interval '7 hours'
		 where ctid in (select ctid from t_orders where created is not null order by random() limit 2);
		insert into t_orders (id, line, created, amount, name, status)
		select id, line, created, amount, name, status from t_orders order by random() limit 3;
		insert into t_orders (id, line, created, amount, name, status)
		values (999999, 1, '2026-03-02 01:00:00+00', 1.5, 'stray', 'new');
		create table ref_tgt as select id, line, created, amount, name, status from t_orders;
	SQL
}

# same_reports DIR_A DIR_B - the two reports say the same, byte for byte
same_reports() {
	assert_file_eq "$1/windows.csv" "$2/windows.csv"
	assert_file_eq "$1/findings.csv" "$2/findings.csv"
	assert_file_eq "$1/rerun.csv" "$2/rerun.csv"
}

chk() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --key id,line "${WIN[@]}" "$@"
}

# The property, over two random pairs and every read path.
test_mapped_pair_same_as_unmapped() {
	local seed st
	ext_create $SRC
	ext_create $TGT
	for seed in 0.1 0.7; do
		mk_pair $seed 3000
		mkdir -p "ref$seed"
		assert_exit 1 chk "${REF[@]}" --report "ref$seed" --rerun-list "ref$seed/rerun.csv"
		st=$(statuses "ref$seed/windows.csv")
		assert_match "$st" differ
		assert_match "$(cat "ref$seed/findings.csv")" ",missing,"
		for mode in binary text jobs pushdown leaf; do
			local d="map$seed-$mode"
			local -a extra=()
			mkdir -p "$d"
			case $mode in
			jobs) extra=(--jobs 2) ;;
			pushdown) extra=(--pushdown) ;;
			leaf) extra=(--leaf-rows 7) ;;
			esac
			if [[ $mode == text ]]; then
				assert_exit 1 env RECKON_COPY_FORMAT=text "$RECKON" check --source "$(conn $SRC)" \
					--target "$(conn $TGT)" --key id,line "${WIN[@]}" "${MAP[@]}" --report "$d" \
					--rerun-list "$d/rerun.csv"
			else
				assert_exit 1 chk "${MAP[@]}" "${extra[@]}" --report "$d" --rerun-list "$d/rerun.csv"
			fi
			same_reports "$d" "ref$seed"
			[[ $mode != leaf ]] || assert_file_eq "ref$seed/rerun.csv" "$d/rerun.csv"
		done
		# the unmapped pair pushed down and split small says the same too
		mkdir -p "refpd$seed"
		assert_exit 1 chk "${REF[@]}" --pushdown --leaf-rows 7 --report "refpd$seed" --rerun-list "refpd$seed/rerun.csv"
		same_reports "refpd$seed" "ref$seed"
	done
	# the mapped columns: the whole row under the target's names, its
	# target-only column not compared, the consumed source columns no drift
	assert_eq '["id","line","created","amount","name","status"]' "$(jq -c .columns map0.7-binary/summary.json)"
	assert_eq '["loaded_at"]' "$(jq -c .schema.target_only map0.7-binary/summary.json)"
	assert_eq '[]' "$(jq -c .schema.source_only map0.7-binary/summary.json)"
}

# A filter keeps the rows it excludes out of every window, NULL-time rows
# included; the target side may be filtered too.
test_filters_both_sides() {
	sql $SRC >/dev/null <<-'SQL'
		drop table if exists f;
		create table f (id int primary key, ts timestamptz, tenant text);
		insert into f values (1, '2026-03-01 01:00+00', 'a'), (2, '2026-03-01 02:00+00', 'b'),
		                     (3, null, 'b'), (4, '2026-03-01 07:00+00', 'a');
	SQL
	sql $TGT >/dev/null <<-'SQL'
		drop table if exists f;
		create table f (id int primary key, ts timestamptz, tenant text);
		insert into f values (1, '2026-03-01 01:00+00', 'a'), (4, '2026-03-01 07:00+00', 'a'),
		                     (9, '2026-03-01 03:00+00', 'z');
	SQL
	mkdir a
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table f --time ts --window 6h \
		--from 2026-03-01T00:00:00Z --to 2026-03-02T00:00:00Z --now 2026-03-10T00:00:00Z --report a
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table f --time ts --window 6h \
		--from 2026-03-01T00:00:00Z --to 2026-03-02T00:00:00Z --now 2026-03-10T00:00:00Z --report a \
		--source-where "tenant = 'a'" --target-where "tenant <> 'z'"
	assert_eq 0 "$(jget a/summary.json .null_time_rows.source)"
	assert_eq 2 "$(jget a/summary.json .source_rows)"
	# the key came from the target's primary key
	assert_eq '["id"]' "$(jq -c .key a/summary.json)"
	assert_eq "the target's primary key" "$(jget a/summary.json .key_origin)"
	assert_contains "$OUT" "key:    id  (the target's primary key)"
}

# An expression's type comes from the server's description of it: an
# integer expression hashes as the integer column of the unmapped twin, a
# text expression as text, a date as a date.
test_expression_types() {
	sql $SRC >/dev/null <<-'SQL'
		drop table if exists e, e_ref;
		create table e (k int, ts timestamptz, a int, b int, s text);
		insert into e select g, '2026-03-01 00:00+00'::timestamptz + g * interval '1 hour', g, g * 2, 'x' || g
		from generate_series(1, 30) g;
		create table e_ref as select k, ts, a + b as total, upper(s) as label, ts::date as day from e;
	SQL
	sql $TGT >/dev/null <<-'SQL'
		drop table if exists e;
		create table e (k int, ts timestamptz, total bigint, label varchar(10), day date);
	SQL
	sql $SRC "select k, ts, total, label, day from e_ref" >/dev/null
	export_csv $SRC "select * from e_ref" e.csv
	import_csv $TGT e e.csv
	mkdir m r
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --source-table e --target-table e \
		--key k --time ts --window 6h --from 2026-03-01T00:00:00Z --to 2026-03-03T00:00:00Z \
		--now 2026-03-10T00:00:00Z --source-expr 'total=a + b' --source-expr 'label=upper(s)' \
		--source-expr 'day=ts::date' --report m
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --source-table e_ref --target-table e \
		--key k --time ts --window 6h --from 2026-03-01T00:00:00Z --to 2026-03-03T00:00:00Z \
		--now 2026-03-10T00:00:00Z --report r
	assert_file_eq m/windows.csv r/windows.csv
	assert_eq '["k","ts","total","label","day"]' "$(jq -c .columns m/summary.json)"
	# a text expression against a number: schema drift, named; the verdict
	# is the values' (the canonical texts agree)
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --source-table e --target-table e \
		--key k --time ts --window 6h --from 2026-03-01T00:00:00Z --to 2026-03-03T00:00:00Z \
		--now 2026-03-10T00:00:00Z --source-expr "total=(a + b)::text || ''" --source-expr 'label=upper(s)' \
		--source-expr 'day=ts::date' --report m
	assert_eq total "$(jget m/summary.json '.schema.type_mismatch[0].column')"
	assert_eq text "$(jget m/summary.json '.schema.type_mismatch[0].source_type')"
	assert_contains "$OUT" "schema: column total is text on the source but bigint on the target"
}

# Bad SQL is the user's to fix (exit 2, with the server's words); SQL
# cannot break out of its expression or filter; CSV takes no SQL.
test_bad_expressions() {
	sql $SRC "drop table if exists victim; create table victim (x int)" >/dev/null
	sql $TGT "drop table if exists f2; create table f2 (id int, ts timestamptz)" >/dev/null
	sql $SRC "drop table if exists f2; create table f2 (id int, ts timestamptz)" >/dev/null
	local -a base=(--source "$(conn $SRC)" --target "$(conn $TGT)" --table f2 --key id --time ts --window 1h
		--from 2026-03-01T00:00:00Z --to 2026-03-02T00:00:00Z)
	assert_exit 2 rk check "${base[@]}" --source-expr 'id=no_such_column + 1'
	assert_contains "$ERR" "the source expression for column id, 'no_such_column + 1', does not work on public.f2"
	assert_contains "$ERR" "no_such_column"
	assert_exit 2 rk check "${base[@]}" --source-where 'nonsense ='
	assert_contains "$ERR" "the source filter 'nonsense =' does not work on"
	assert_exit 2 rk check "${base[@]}" --source-where 'true); drop table victim; select (1'
	assert_exit 2 rk check "${base[@]}" --source-expr 'id=1) from f2; drop table victim; select (1'
	# a trailing comment swallows nothing of reckon's own statement
	assert_exit 0 rk check "${base[@]}" --source-where 'true --' --now 2026-03-10T00:00:00Z
	assert_eq 0 "$(sql $SRC "select count(*) from victim")"
	assert_exit 2 rk check "${base[@]}" --source-expr 'id'
	assert_contains "$ERR" "option --source-expr takes NAME=SQL, not 'id'"
	printf 'id,ts\n' >empty.csv
	assert_exit 2 rk check --source csv:empty.csv --target "$(conn $TGT)" --table f2 --key id --time ts --window 1h \
		--from 2026-03-01T00:00:00Z --to 2026-03-02T00:00:00Z --source-where 'id > 1'
	assert_contains "$ERR" "the source is CSV data (csv:empty.csv), which takes no SQL: --source-where"
}
