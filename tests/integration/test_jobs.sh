# shellcheck shell=bash disable=SC2054
# Jobs (docs/jobs.md): many tables per run from one job file, with
# renamed, transformed and filtered pairs, a failing table reported while
# the others are still checked, --only, --parallel, --last, the job's
# summary.json and exit status, the audit of every table, and reckon init
# writing a job file that runs unedited.

SRC=job_src
TGT=job_tgt
AUD=job_audit

setup_file() {
	createdb $SRC
	createdb $TGT
	createdb $AUD
	mk_orders $SRC
	mk_orders $TGT
	sql $SRC >/dev/null <<-'SQL'
		alter table mart.orders add primary key (order_id, line_no);
		create table public.customers (customer_id int primary key, full_name text, balance_cents bigint,
		    updated_at timestamptz not null);
		insert into public.customers
		select g, 'customer ' || g, g * 1000 + 5, timestamptz '2026-03-02 00:00+00' + g * interval '5 minutes'
		from generate_series(1, 40) g;
		create table public.events (id bigint primary key, kind text, is_test boolean not null,
		    created_at timestamptz not null);
		insert into public.events
		select g, 'k' || (g % 4), g % 7 = 0, timestamptz '2026-03-02 00:00+00' + g * interval '3 minutes'
		from generate_series(1, 70) g;
		create table public.nokey (a int, ts timestamptz);
	SQL
	sql $TGT >/dev/null <<-'SQL'
		alter table mart.orders add primary key (order_id, line_no);
		create schema dw;
		create table dw.dim_customer (id int primary key, name text, balance numeric(14,2),
		    updated_at timestamptz not null, loaded_at timestamptz not null default now());
		create table public.events (id bigint primary key, kind text, created_at timestamptz not null);
		create table public.customers (customer_id int primary key, full_name text, balance_cents bigint,
		    updated_at timestamptz not null);
		create table public.nokey (a int, ts timestamptz);
	SQL
	export_csv $SRC "select customer_id, full_name, balance_cents / 100.0, updated_at from public.customers" c.csv
	import_csv $TGT "dw.dim_customer (id, name, balance, updated_at)" c.csv
	import_csv $TGT "public.customers" <(true) 2>/dev/null || true
	export_csv $SRC "select * from public.customers" c2.csv
	import_csv $TGT public.customers c2.csv
	export_csv $SRC "select id, kind, created_at from public.events where not is_test" e.csv
	import_csv $TGT public.events e.csv
}

write_job() {
	cat >"$1" <<-EOF
		; a small warehouse, checked nightly
		[defaults]
		source = $(conn $SRC)
		target = $(conn $TGT)
		window = 1h
		from = 2026-03-02T00:00:00Z
		to = 2026-03-02T04:00:00Z
		now = 2026-03-03T00:00:00Z

		[table orders]
		table = mart.orders
		time = created_at
		sum = amount

		[table dim_customer]
		source-table = public.customers
		target-table = dw.dim_customer
		time = updated_at
		source-expr.id = customer_id
		source-expr.name = full_name
		source-expr.balance = balance_cents / 100.0
		sum = balance

		[table events]
		table = public.events
		time = created_at
		source-where = not is_test
	EOF
}

# the target's orders as the source's, then (damage_orders) one row lost
fresh_orders() {
	mk_orders $TGT
	sql $TGT "alter table mart.orders add primary key (order_id, line_no)" >/dev/null
}
damage_orders() {
	fresh_orders
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 1" >/dev/null
}

job() {
	rk check "$@"
}

test_job_of_tables() {
	fresh_orders
	write_job nightly.ini
	mkdir -p rep
	assert_exit 0 job --job nightly.ini --report rep
	assert_dir_only rep dim_customer events index.html orders summary.json
	assert_dir_only rep/orders changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	assert_eq match "$(jget rep/summary.json .verdict)"
	assert_eq "dim_customer events orders" "$(jq -r '.tables | keys | join(" ")' rep/summary.json)"
	assert_eq '["id"]' "$(jq -c .tables.dim_customer.key rep/summary.json)"
	assert_eq '["id","name","balance","updated_at"]' "$(jq -c .tables.dim_customer.columns rep/summary.json)"
	assert_eq '["loaded_at"]' "$(jq -c .tables.dim_customer.schema.target_only rep/summary.json)"
	assert_eq 60 "$(jget rep/summary.json .tables.events.source_rows)"
	assert_eq "$RERUN_HEADER" "$(cat rep/orders/rerun.csv)"
	assert_match "$(cat "$OUT")" "orders +match +4 +0 "
	assert_contains "$OUT" "job: all 3 tables match, exit status 0"
	# one table damaged: its damage under the table lines, exit 1
	damage_orders
	assert_exit 1 job --job nightly.ini --report rep
	assert_eq differ "$(jget rep/summary.json .tables.orders.verdict)"
	assert_eq 1 "$(jget rep/summary.json .tables.orders.exit_status)"
	assert_eq 1 "$(jget rep/summary.json .tables.orders.findings.missing)"
	assert_file_eq rep/orders/rerun.csv - <<-EOF
		$RERUN_HEADER
		$W0,9,8,1,0,0,0
	EOF
	assert_contains "$OUT" "== orders: source table mart.orders"
	assert_match "$(cat "$OUT")" "missing +1  \(3, 1\)"
}

# A job's drilldowns spill where its report is staged, as a check of one
# table does (tests/integration/test_drill_spill.sh), not to $TMPDIR; the
# runs are unlinked as they are made, so the report holds only its files.
test_job_spills_beside_its_report() {
	write_job nightly.ini
	damage_orders
	# more than one tally, so that a bound of one byte writes runs
	sql $TGT "delete from mart.orders where order_id = 10;
	          update mart.orders set amount = amount + 1 where order_id = 12 and line_no = 1" >/dev/null
	mkdir -p rep
	RK_SPILL_BYTES=1 assert_exit 1 job --job nightly.ini --report rep -vv
	assert_match "$(grep -E 'run\(s\) of them spilled' "$ERR")" \
		' [1-9][0-9]* run\(s\) of them spilled to [^ ]*/?rep\.tmp\.reckon-'
	assert_not_contains "$ERR" "of them spilled to TMPDIR"
	assert_dir_only rep dim_customer events index.html orders summary.json
	assert_dir_only rep/orders changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	assert_eq 3 "$(jget rep/summary.json .tables.orders.findings.missing)"
	assert_eq 1 "$(jget rep/summary.json .tables.orders.findings.changed)"
}

# A table that fails (an unknown relation, a bad expression) is reported as
# error with its message; the others are still checked; the job exits with
# the highest status.
test_failing_table() {
	write_job nightly.ini
	cat >>nightly.ini <<-'EOF'

		[table broken]
		source-table = public.nosuch
		target-table = public.events
		time = created_at

		[table badexpr]
		table = public.customers
		time = updated_at
		source-expr.full_name = upper(nosuch)
	EOF
	damage_orders
	mkdir -p rep
	assert_exit 2 job --job nightly.ini --report rep --parallel 2
	assert_eq error "$(jget rep/summary.json .verdict)"
	assert_eq 2 "$(jget rep/summary.json .exit_status)"
	assert_eq error "$(jget rep/summary.json .tables.broken.verdict)"
	assert_eq 2 "$(jget rep/summary.json .tables.broken.exit_status)"
	assert_contains "$(jget rep/summary.json .tables.broken.error)" "source table 'public.nosuch' does not exist"
	assert_contains "$(jget rep/summary.json .tables.badexpr.error)" "nosuch"
	assert_eq differ "$(jget rep/summary.json .tables.orders.verdict)"
	assert_eq match "$(jget rep/summary.json .tables.events.verdict)"
	assert_dir_only rep dim_customer events index.html orders summary.json
	assert_contains "$OUT" "== broken: error (exit status 2)"
	assert_contains "$ERR" "table broken: source table 'public.nosuch' does not exist"
	# a connection lost or refused is the table's runtime error: 3 beats 2
	cat >>nightly.ini <<-EOF

		[table down]
		table = public.events
		time = created_at
		source = host=127.0.0.1 port=$(closed_port) dbname=x connect_timeout=2
	EOF
	assert_exit 3 job --job nightly.ini --report rep --format json
	assert_eq 3 "$(jq -r .tables.down.exit_status "$OUT")"
	assert_eq 3 "$(jq -r .exit_status "$OUT")"
}

test_only_and_parallel() {
	write_job nightly.ini
	damage_orders
	mkdir -p one two only
	assert_exit 1 job --job nightly.ini --report one --parallel 1
	assert_exit 1 job --job nightly.ini --report two --parallel 3
	for t in orders dim_customer events; do
		for f in windows.csv findings.csv rerun.csv; do
			assert_file_eq "two/$t/$f" "one/$t/$f"
		done
	done
	assert_exit 0 job --job nightly.ini --report only --only events,dim_customer
	assert_dir_only only dim_customer events index.html summary.json
	assert_exit 2 job --job nightly.ini --only events,nosuch
	assert_contains "$ERR" "option --only names table 'nosuch', which job nightly.ini does not have"
	assert_contains "$ERR" "its tables: orders, dim_customer, events"
	assert_exit 2 job --only events --source x --target y
	assert_contains "$ERR" "option --only needs --job FILE"
	assert_exit 2 job --job nightly.ini --rerun-list r.csv
	assert_contains "$ERR" "--rerun-list does not go with --job"
}

# The command line wins over a table's section, which wins over [defaults];
# the command line's --from/--to replace a job's last (a backfill).
test_layers_and_last() {
	fresh_orders
	write_job nightly.ini
	sed -i 's/^from = .*//; s/^to = .*//; s/^now = .*/now = 2026-03-02T04:10:00Z/; s/^window = 1h/window = 1h\nlast = 2h/' nightly.ini
	echo "window = 2h" >>nightly.ini   # events only
	mkdir -p a b
	assert_exit 0 job --job nightly.ini --report a
	# last = 2h, settle 10m: to = floor((04:10 - 00:10) / 1h) = 04:00
	assert_eq "2026-03-02T02:00:00Z" "$(jget a/orders/summary.json .range.from)"
	assert_eq "2026-03-02T04:00:00Z" "$(jget a/orders/summary.json .range.to)"
	assert_eq 2h "$(jget a/events/summary.json .range.window)"
	assert_eq "2026-03-02T02:00:00Z" "$(jget a/events/summary.json .range.from)"
	assert_exit 0 job --job nightly.ini --report b --from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 2h
	assert_eq "2026-03-02T00:00:00Z" "$(jget b/orders/summary.json .range.from)"
	assert_eq 2 "$(jget b/dim_customer/summary.json .windows.checked)"
	assert_exit 2 job --job nightly.ini --from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --last 1h
	assert_contains "$ERR" "--last and --from/--to exclude each other"
	# --last alone on a plain check, epoch-aligned
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table public.events --time created_at \
		--window 1h --last 3h --now 2026-03-02T05:59:00Z --settle 0 --format json --source-where 'not is_test'
	assert_eq "2026-03-02T02:00:00Z" "$(jq -r .range.from "$OUT")"
	assert_eq "2026-03-02T05:00:00Z" "$(jq -r .range.to "$OUT")"
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table public.events --time created_at \
		--window 2h --last 3h
	assert_contains "$ERR" "--last 3h is not a whole number of 2h windows"
}

test_job_file_errors() {
	write_job ok.ini
	{ cat ok.ini; printf '[table orders]\nkey = x\n'; } >dup.ini
	assert_exit 2 job --job dup.ini
	assert_contains "$ERR" "dup.ini:28: [table orders] again (first at line 10)"
	{ cat ok.ini; printf '[table bad label]\ntime = x\n'; } >label.ini
	assert_exit 2 job --job label.ini
	assert_contains "$ERR" "invalid table label in [table bad label]"
	{ cat ok.ini; printf 'report = out\n'; } >report.ini
	assert_exit 2 job --job report.ini
	assert_contains "$ERR" "report.ini:28: unknown key 'report' in [table events]"
	{ cat ok.ini; printf 'wnidow = 1h\n'; } >typo.ini
	assert_exit 2 job --job typo.ini
	assert_contains "$ERR" "unknown key 'wnidow'"
	printf '[check]\nwindow = 1h\n' >notjob.ini
	assert_exit 2 job --job notjob.ini
	assert_contains "$ERR" "unknown section [check]"
	printf '[defaults]\nwindow = 1h\n' >empty.ini
	assert_exit 2 job --job empty.ini
	assert_contains "$ERR" "no [table LABEL] section"
	assert_exit 2 job --job no-such.ini
	assert_contains "$ERR" "cannot read job file 'no-such.ini'"
	# nothing was checked: no report directory
	assert_exit 2 job --job typo.ini --report never
	assert_no_file never
}

test_job_audit_records_every_table() {
	write_job nightly.ini
	damage_orders
	assert_exit 1 job --job nightly.ini --audit "$(conn $AUD)"
	assert_eq "dw.dim_customer|match mart.orders|differ public.events|match" \
		"$(sql $AUD "select string_agg(target_table || '|' || verdict, ' ' order by target_table) from reckon.run")"
	assert_eq 3 "$(sql $AUD "select count(*) from reckon.run where command = 'check'")"
}

# reckon init against the two databases: its output runs unedited, no
# password is written, a table without a key is left out with the reason,
# source tables without a namesake are named (with a line break defused).
test_init_writes_a_job_that_runs() {
	local srcc tgtc
	fresh_orders
	sql $SRC 'drop table if exists public.src_only, public."two
lines"; create table public.src_only (id int primary key); create table public."two
lines" (id int)' >/dev/null
	srcc="$(conn $SRC) password=s3cret-src"
	tgtc="postgresql://$PGUSER:s3cret-tgt@/$TGT?host=$PGHOST&port=$PGPORT"
	assert_exit 0 rk init --source "$srcc" --target "$tgtc"
	cp "$OUT" init.ini
	assert_not_contains init.ini s3cret
	assert_not_contains init.ini password=
	assert_not_contains init.ini "reckon:"
	assert_contains init.ini "[table customers]"
	assert_contains init.ini "[table events]"
	assert_contains init.ini "; [table nokey] is left out: no primary key on either side"
	assert_contains init.ini "; 2 source tables without a namesake on the target are not listed"
	assert_contains init.ini ";   src_only"
	assert_contains init.ini ';   "two?lines"'
	assert_contains init.ini "key = customer_id"
	assert_contains init.ini "time = updated_at"
	assert_contains init.ini "columns = customer_id,full_name,balance_cents,updated_at"
	# the events table: created_at, the only time column both have
	assert_match "$(sed -n '/\[table events\]/,/^$/p' init.ini)" "time = created_at"
	mkdir rep
	assert_exit 1 job --job init.ini --report rep --now 2026-03-03T00:00:00Z --from 2026-03-02T00:00:00Z \
		--to 2026-03-02T04:00:00Z
	assert_eq match "$(jget rep/summary.json .tables.customers.verdict)"
	# events: the source's test rows are not in the target (init knows no filter)
	assert_eq differ "$(jget rep/summary.json .tables.events.verdict)"
	# another schema on the target
	assert_exit 0 rk init --source "$srcc" --target "$tgtc" --source-schema mart --target-schema mart --window 15m
	assert_contains "$OUT" "[table orders]"
	assert_contains "$OUT" "window = 15m"
	assert_contains "$OUT" "last = 6h"
	assert_exit 2 rk init --source "$srcc" --target "$tgtc" --schema nosuch
	assert_contains "$ERR" "no table of schema nosuch and nosuch can be checked as it is"
	assert_exit 2 rk init --source "$srcc" --target "$tgtc" --schema public --source-schema mart
}

# Names the job-file syntax cannot carry do not reach it raw: a table named
# "\n[table s]\ntable=orders\n..." wrote a [table s] section of its own into
# init's output (and a later repair --job --execute of it deleted rows
# outside what init found).  Now every name a value can carry (brackets,
# ';', '#', '=', quotes, blanks at either end, unicode) is written as SQL
# writes it and reads back to the same table; a table, key or time column
# whose name holds a line break is written commented out with the reason,
# another column holding one is left out of columns; the output parses to
# exactly the tables init found.
test_init_hostile_names() {
	local db labels
	for db in $SRC $TGT; do
		sql $db >/dev/null <<-'SQL'
			drop schema if exists hostile cascade;
			create schema hostile;
			do $$
			declare n text;
			begin
				foreach n in array array[E'\n[table s]\ntable=orders\nsource-where=false\n;', '[x]', 'a;b', 'k=v',
				                         'q"uo''te', ' sp ', 'ünï', '#hash', 'Upper', '=', ';'] loop
					execute format('create table hostile.%I (%I int primary key, %I timestamptz not null,
					                %I int, %I text)', n, 'id;=', 't s', E'c\nd', 'v"');
					execute format('insert into hostile.%I select g, timestamptz ''2026-03-02 00:00+00''
					                + g * interval ''7 minutes'', g, ''v'' || g from generate_series(1, 20) g', n);
				end loop;
				create table hostile."badkey" (k int, ts timestamptz not null);
				execute format('alter table hostile.badkey rename column k to %I', E'k\ney');
				execute format('alter table hostile.badkey add primary key (%I)', E'k\ney');
				execute format('create table hostile.%I (id int, ts timestamptz)', E'\nnokey\n[table z]\ntable=orders');
			end $$;
		SQL
	done
	assert_exit 0 rk init --source "$(conn $SRC)" --target "$(conn $TGT)" --schema hostile
	cp "$OUT" hostile.ini
	assert_contains hostile.ini "; [table __table_s__table_orders_source-where_false__] is left out: its name (or its schema's) holds a line break, which a job file cannot carry: rename it to check it"
	assert_contains hostile.ini '; table = hostile."?[table s]?table=orders?source-where=false?;"'
	assert_contains hostile.ini "; [table badkey] is left out: a key column's name holds a line break"
	assert_contains hostile.ini '; not in columns: "c?d" (a name holding a line break, which a job file cannot carry)'
	assert_contains hostile.ini 'table = hostile."q""uo'"'"'te"'
	assert_contains hostile.ini 'key = "id;="'
	assert_contains hostile.ini 'time = "t s"'
	assert_contains hostile.ini 'columns = "id;=","t s","v"""'
	assert_eq 0 "$(grep -c -e '^\[table [sz]\]' -e '^source-where' hostile.ini || true)" "injected lines"
	# what the file parses to: exactly the ten tables init could write
	mkdir hrep
	assert_exit 0 job --job hostile.ini --report hrep --from 2026-03-02T00:00:00Z --to 2026-03-02T03:00:00Z \
		--now 2026-03-03T00:00:00Z
	labels=$(jq -r '.tables | keys | join(" ")' hrep/summary.json)
	assert_eq "Upper _ __2 __n__ _hash _sp_ _x_ a_b k_v q_uo_te" "$labels"
	assert_eq '["id;="] match 20' "$(jq -c '[.tables["_x_"].key, .tables["_x_"].verdict, .tables["_x_"].source_rows] | "\(.[0]|tojson) \(.[1]) \(.[2])"' -r hrep/summary.json)"
	assert_eq 10 "$(jq '[.tables[] | select(.verdict == "match")] | length' hrep/summary.json)"
}

# check --job --only L --report DIR replaces L's directory and keeps the
# other tables' (and their entries in summary.json and index.html), so a
# following repair --job --report DIR still finds every table's rerun
# list.
test_only_keeps_other_tables() {
	write_job nightly.ini
	damage_orders
	assert_exit 1 job --job nightly.ini --report rep/
	cp -a rep before
	# events is checked again, under another clock: its files change
	assert_exit 0 job --job nightly.ini --report rep --only events --now 2026-03-04T00:00:00Z
	assert_dir_only rep dim_customer events index.html orders summary.json
	diff -r before/orders rep/orders >/dev/null || fail "orders/ changed although --only left it out"
	diff -r before/dim_customer rep/dim_customer >/dev/null || fail "dim_customer/ changed"
	_rk_ok
	assert_ne "$(cat before/events/summary.json)" "$(cat rep/events/summary.json)" "events/ rewritten"
	assert_eq "orders dim_customer events" "$(jq -r '.tables | keys_unsorted | join(" ")' rep/summary.json)"
	assert_eq '["orders","dim_customer"]' "$(jq -c .kept rep/summary.json)"
	assert_eq "$(jq -c .tables.orders before/summary.json)" "$(jq -c .tables.orders rep/summary.json)"
	assert_eq differ "$(jget rep/summary.json .tables.orders.verdict)"
	# the run's own verdict: the tables it checked
	assert_eq match "$(jget rep/summary.json .verdict)"
	assert_contains rep/index.html 'orders/report.html'
	assert_contains rep/index.html 'dim_customer/report.html'
	# the repair of the whole job reads every table's list
	assert_exit 0 rk repair --job nightly.ini --report rep
	assert_contains "$OUT" "orders"
	# a label no longer in the job file is not kept
	sed -i 's/^\[table dim_customer\]/[table customers2]/' nightly.ini
	assert_exit 0 job --job nightly.ini --report rep --only events
	assert_dir_only rep events index.html orders summary.json
	assert_eq '["orders"]' "$(jq -c .kept rep/summary.json)"
}
