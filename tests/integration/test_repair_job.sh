# shellcheck shell=bash
# reckon repair --job FILE --report DIR (docs/reference.md, docs/repair.md):
# every table of the job (or --only those) replays DIR/LABEL/rerun.csv with
# that table's mapping and filters; a dry run by default; one block of
# output per table; a table that fails is reported and the others still
# run; the exit status is the highest of the tables'; --audit records one
# run per table.
#
# The job: orders (mart.orders, damaged in W0 and W3), items (a renamed,
# transformed, filtered target, damaged in W1) and broken (a table that
# does not exist).  The rerun lists are written by reckon check, one table
# at a time, where check --job would write them.

JS=rj_src
JT=rj_tgt
JA=rj_audit

setup_file() {
	createdb $JS
	createdb $JT
}

# A fresh pair of each kind, damaged, the job file and the report directory
# with each table's rerun list.
reset_job() {
	mk_orders $JS
	mk_orders $JT
	sql $JT "delete from mart.orders where order_id = 3 and line_no = 2;
	         update mart.orders set amount = amount + 1 where order_id = 16 and line_no = 1" >/dev/null
	sql $JS >/dev/null <<-SQL
		drop table if exists mart.items_src;
		create table mart.items_src (id int primary key, ts timestamptz not null, cents bigint, hidden bool not null);
		insert into mart.items_src
		select g, timestamptz '2026-03-02 00:00:00+00' + g * interval '13 minutes', g * 125, g % 5 = 0
		from generate_series(1, 17) g;
	SQL
	sql $JT >/dev/null <<-SQL
		drop table if exists mart.items;
		create table mart.items (item_id int primary key, created_at timestamptz not null, amount numeric(10,2),
		                         loaded_at timestamptz default clock_timestamp());
		insert into mart.items (item_id, created_at, amount)
		select g, timestamptz '2026-03-02 00:00:00+00' + g * interval '13 minutes', g * 1.25
		from generate_series(1, 17) g where g % 5 <> 0 and g <> 6;
	SQL
	cat >job.ini <<-EOF
		; the nightly job of two tables and a mistake
		[defaults]
		source = $(conn $JS)
		target = $(conn $JT)
		window = 1h
		from = 2026-03-02T00:00:00Z
		to = 2026-03-02T04:00:00Z
		now = 2026-03-03T00:00:00Z

		[table orders]
		table = mart.orders
		key = order_id, line_no
		time = created_at
		sum = amount

		[table items]
		source-table = mart.items_src
		target-table = mart.items
		time = created_at
		source-expr.item_id = id
		source-expr.created_at = ts
		source-expr.amount = cents / 100.0
		source-where = not hidden

		[table broken]
		table = mart.no_such_table
		key = id
		time = created_at
	EOF
	rm -rf rep
	mkdir -p rep/orders rep/items rep/broken
	assert_exit 1 rk check --source "$(conn $JS)" --target "$(conn $JT)" "${ORDERS_OPTS[@]}" --rerun-list rep/orders/rerun.csv
	assert_exit 1 check_items --rerun-list rep/items/rerun.csv
	assert_file_eq rep/items/rerun.csv - <<-EOF
		$RERUN_HEADER
		$W1,4,3,1,0,0,0
	EOF
	printf '%s\n%s,1,0,1,0,0,0\n' "$RERUN_HEADER" "$W0" >rep/broken/rerun.csv
}

check_items() {
	rk check --source "$(conn $JS)" --target "$(conn $JT)" --source-table mart.items_src --target-table mart.items \
		--time created_at --source-expr item_id=id --source-expr created_at=ts --source-expr 'amount=cents / 100.0' \
		--source-where 'not hidden' --from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h \
		--now 2026-03-03T00:00:00Z "$@"
}

check_orders() {
	rk check --source "$(conn $JS)" --target "$(conn $JT)" "${ORDERS_OPTS[@]}" "$@"
}

tgt_md5() {
	sql $JT "select md5(string_agg(t::text, '|' order by t::text collate \"C\")) from
	         (select o::text from mart.orders o union all select i::text from mart.items i) t (t)"
}

# A dry run of every table by default: nothing changes, one block per table,
# the broken table reported (stdout and stderr) while the others are
# planned; the exit status is the highest (2).
test_job_dry_run_by_default() {
	reset_job
	local before
	before=$(tgt_md5)
	assert_exit 2 rk repair --job job.ini --report rep
	assert_eq "$before" "$(tgt_md5)" "target after the dry run"
	assert_contains "$OUT" "== table orders: mart.orders -> mart.orders"
	assert_contains "$OUT" "== table items: mart.items_src -> mart.items"
	assert_contains "$OUT" "== table broken: mart.no_such_table -> mart.no_such_table"
	# row by row: only the damaged rows
	assert_contains "$OUT" "dry run: 2 intervals; would delete 0 target rows, update 1 (0 moved in from other windows) and insert 1"
	assert_contains "$OUT" "dry run: 1 interval; would delete 0 target rows, update 0 (0 moved in from other windows) and insert 1"
	assert_contains "$OUT" "error (exit 2): table broken: target table 'mart.no_such_table' does not exist"
	assert_contains "$OUT" "job job.ini: 3 tables, dry run; exit status 2"
	assert_eq 1 "$(grep -c '^reckon: error' "$ERR")" "one error: the broken table's"
	assert_contains "$ERR" "reckon: error: table broken: target table 'mart.no_such_table' does not exist"
	# the tables in file order
	assert_eq "orders items broken" "$(grep '^== table' "$OUT" | cut -d' ' -f3 | tr -d : | tr '\n' ' ' | sed 's/ $//')"
}

# --only and --execute: the listed tables are repaired through their own
# mappings and filters, each re-check matches, and checks of the tables
# with the same options then match; a second run changes nothing.
test_job_execute_only() {
	reset_job
	assert_exit 0 rk repair --job job.ini --report rep --only items,orders --execute
	assert_contains "$OUT" "repaired 2 of 2 intervals"
	assert_contains "$OUT" "repaired 1 of 1 interval"
	assert_not_contains "$OUT" "== table broken"
	assert_contains "$OUT" "job job.ini: 2 tables; exit status 0"
	assert_exit 0 check_orders
	assert_exit 0 check_items
	assert_eq 0 "$(sql $JT 'select count(*) from mart.items where item_id % 5 = 0')" "hidden rows carried"
	local after
	after=$(tgt_md5)
	assert_exit 0 rk repair --job job.ini --report rep --only orders,items --execute --format json
	assert_eq "$after" "$(tgt_md5)" "target after the second run"
	assert_eq "orders:0:already_matches,already_matches items:0:already_matches" \
		"$(jget "$OUT" '[.tables | to_entries[] | "\(.key):\(.value.exit_status):\([.value.repair.intervals[].status] | join(","))"] | join(" ")')"
	assert_eq "0 null" "$(jget "$OUT" '"\(.exit_status) \(.tables.orders.error)"')"
}

# The exit status is the highest of the tables' (0 < 1 < 2 < 3): a table
# whose rerun list is missing fails (2) and the others still run; a table
# whose repair still differs gives 1.
test_job_exit_status_is_the_highest() {
	reset_job
	rm rep/items/rerun.csv
	assert_exit 2 rk repair --job job.ini --report rep --only orders,items --execute --format json
	assert_eq "0 2" "$(jget "$OUT" '"\(.tables.orders.exit_status) \(.tables.items.exit_status)"')"
	assert_contains "$(jget "$OUT" .tables.items.error)" "table items: "
	assert_contains "$(jget "$OUT" .tables.items.error)" "rep/items/rerun.csv"
	assert_eq "match" "$(jget "$OUT" .tables.orders.repair.verdict)"
	assert_eq 2 "$(jget "$OUT" .exit_status)"
	assert_exit 0 check_orders
	# a trigger that changes what repair inserts: orders' re-check differs
	# where a row was inserted (W0), not where one was updated (W3)
	reset_job
	sql $JT "create or replace function mart.bump() returns trigger language plpgsql as
	         \$\$ begin new.amount := new.amount + 100; return new; end \$\$;
	         create trigger bump before insert on mart.orders for each row execute function mart.bump()" >/dev/null
	assert_exit 1 rk repair --job job.ini --report rep --only orders,items --execute
	assert_contains "$OUT" "1 still differs"
	assert_contains "$OUT" "exit status 1"
}

# Usage errors stop the job before any work: an --only label the file does
# not have, no --report, --rerun-list with --job, a job file that cannot be
# read.
test_job_usage_errors() {
	reset_job
	local before
	before=$(tgt_md5)
	assert_exit 2 rk repair --job job.ini --report rep --only orders,nope --execute
	assert_contains "$ERR" "--only nope: no table of that label in job.ini"
	assert_eq "" "$(cat "$OUT")"
	assert_exit 2 rk repair --job job.ini --execute
	assert_contains "$ERR" "repair --job needs --report DIR"
	# an empty name read DIR/LABEL/rerun.csv as /LABEL/rerun.csv
	assert_exit 2 rk repair --job job.ini --report "" --execute
	assert_contains "$ERR" "repair --job needs --report DIR (a directory name, not '')"
	assert_exit 2 rk repair --job job.ini --report no-such-dir --execute
	assert_contains "$ERR" "option --report no-such-dir: no such directory"
	assert_eq "" "$(cat "$OUT")"
	# a trailing slash is the directory
	assert_exit 0 rk repair --job job.ini --report rep/ --only orders
	assert_exit 2 rk repair --job job.ini --report rep --rerun-list rep/orders/rerun.csv
	assert_contains "$ERR" "exclude each other"
	printf '[table a]\ntable = t\n[table a]\ntable = u\n' >dup.ini
	assert_exit 2 rk repair --job dup.ini --report rep
	assert_exit 2 rk repair --job nope.ini --report rep
	assert_eq "$before" "$(tgt_md5)"
}

# --audit records every table of the job: one reckon.run per table, the
# broken one as failed with its error.
test_job_audit_records_every_table() {
	reset_job
	createdb $JA
	assert_exit 2 rk repair --job job.ini --report rep --execute --audit "$(conn $JA)"
	assert_eq "mart.orders|match|0 mart.items|match|0 mart.no_such_table|failed|2" \
		"$(sql $JA "select string_agg(concat_ws('|', target_table, verdict, exit_status), ' ' order by run_id)
		            from reckon.run where command = 'repair'")"
	assert_eq "2 1 1" "$(sql $JA "select string_agg(n::text, ' ' order by run_id) from
		(select r.run_id, count(i.*) n from reckon.run r left join reckon.repair_interval i using (run_id)
		 group by r.run_id) x")"
	assert_contains "$(sql $JA "select error from reckon.run where target_table = 'mart.no_such_table'")" \
		"does not exist"
}
