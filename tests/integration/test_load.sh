# shellcheck shell=bash
# reckon load (docs/loader.md) with mappings and filters, the whole-row
# default, and its behaviour under locks and signals: the source side's
# expressions are written into the target's columns of the logical names,
# --source-where limits what is read and --target-where what is deleted, a
# column nothing covers gets its default (or is refused, NOT NULL without
# one), a lock held too long stops the run with nothing committed, and a
# signal before the first commit rolls back and says so.

LDB=ld_db

# The source's names and units differ from the target's; rows 4 and 8 are
# test rows; the target holds another origin's rows with the same ids.
setup_pair() {
	createdb $LDB
	sql $LDB >/dev/null <<-SQL
		create schema shop;
		create table shop.orders (id int primary key, ts timestamptz not null, amount_cents bigint,
		                          qty int, note text, is_test bool not null default false);
		insert into shop.orders
		select g, timestamptz '2026-03-02 00:00+00' + g * interval '10 minutes', g * 150, g % 3, 'n' || g, g % 4 = 0
		from generate_series(1, 12) g;
		create table shop.fact (order_id int not null, created_at timestamptz not null, amount numeric(10,2),
		                        qty int, memo text, origin text not null default 'shop',
		                        loaded_at timestamptz default clock_timestamp());
		insert into shop.fact (order_id, created_at, amount, qty, memo, origin)
		select g, timestamptz '2026-03-02 00:00+00' + g * interval '10 minutes', 0, 0, 'theirs', 'other'
		from generate_series(1, 12) g;
	SQL
}

PAIR=(--source-table shop.orders --target-table shop.fact --key order_id --time created_at
	--source-expr order_id=id --source-expr created_at=ts --source-expr 'amount=amount_cents / 100.0'
	--target-expr note=memo --source-where 'not is_test' --target-where "origin = 'shop'")

load() {
	rk load --source "$(conn $LDB)" "${PAIR[@]}" "$@"
}

lcheck() {
	rk check --source "$(conn $LDB)" --target "$(conn $LDB)" "${PAIR[@]}" --from 2026-03-02T00:00:00Z \
		--to 2026-03-02T03:00:00Z --window 1h --now 2026-03-03T00:00:00Z "$@"
}

others() {
	sql $LDB "select md5(string_agg(t::text, '|' order by t::text collate \"C\")) from shop.fact t where origin = 'other'"
}

# Through the mappings and filters, and with the whole row by default: the
# target ends as a check through the same mappings calls a match, the other
# origin's rows are never touched by the keyed delete, test rows are not
# carried.
test_load_through_mappings_and_filters() {
	setup_pair
	local theirs
	theirs=$(others)
	assert_exit 0 load --strategy target-watermark
	assert_eq "rows_read=9 rows_replaced=0 rows_written=9 watermark=2026-03-02T01:50:00Z" "$(cat "$OUT")"
	assert_exit 0 lcheck
	assert_contains "$OUT" "verdict: match"
	assert_eq "9|0|9" "$(sql $LDB "select count(*), count(*) filter (where order_id % 4 = 0),
		count(*) filter (where memo like 'n%' and qty is not null and loaded_at is not null)
		from shop.fact where origin = 'shop'")" "rows written, test rows, whole rows"
	assert_eq "1.50" "$(sql $LDB "select amount from shop.fact where origin = 'shop' and order_id = 1")"
	# a keyed re-read of the last hour replaces the shop rows only
	assert_exit 0 load --strategy write-first-keyed --watermark-table shop.wm --load-name fact
	assert_exit 0 load --strategy write-first-keyed --watermark-table shop.wm --load-name fact --lookback 1h
	assert_eq "rows_read=5 rows_replaced=5 rows_written=5 watermark=2026-03-02T01:50:00Z" "$(cat "$OUT")"
	assert_eq "$theirs" "$(others)" "the other origin's rows"
	assert_exit 0 lcheck
	assert_eq 9 "$(sql $LDB "select count(*) from shop.fact where origin = 'shop'")"
	# an interval load deletes the pair's rows of its interval only
	assert_exit 0 load --strategy interval --interval-start 2026-03-02T01:00:00Z --interval-end 2026-03-02T02:00:00Z
	assert_eq "rows_read=5 rows_replaced=5 rows_written=5 watermark=none" "$(cat "$OUT")"
	assert_eq "$theirs" "$(others)"
	assert_exit 0 lcheck
}

# Without --columns a load writes the whole row, as check compares it: a
# column the load used to leave NULL (note, qty) is carried.  (Failed
# before: only the key, the time and the sum columns were written.)
test_load_writes_the_whole_row() {
	createdb $LDB
	sql $LDB >/dev/null <<-SQL
		create table src (id int primary key, ts timestamptz, amount numeric(10,2), qty int, note text);
		insert into src select g, timestamptz '2026-03-02 00:00+00' + g * interval '10 minutes', g, g, 'n' || g
		from generate_series(1, 6) g;
		create table dst (id int, ts timestamptz, amount numeric(10,2), qty int, note text, loaded_at timestamptz default now());
	SQL
	assert_exit 0 rk load --source "$(conn $LDB)" --source-table src --target-table dst --key id --time ts --sum amount \
		--strategy target-watermark
	assert_eq "6|6" "$(sql $LDB 'select count(note), count(qty) from dst')"
	assert_exit 0 rk check --source "$(conn $LDB)" --target "$(conn $LDB)" --source-table src --target-table dst \
		--time ts --from 2026-03-02T00:00:00Z --to 2026-03-02T02:00:00Z --window 1h --now 2026-03-03T00:00:00Z
	# --columns still narrows what is written (the key and time always)
	sql $LDB "truncate dst" >/dev/null
	assert_exit 0 rk load --source "$(conn $LDB)" --source-table src --target-table dst --key id --time ts \
		--columns amount --strategy target-watermark
	assert_eq "6|0|6" "$(sql $LDB 'select count(amount), count(note), count(ts) from dst')"
}

# A source row timed in PostgreSQL's last 30 years (after 294247-01-10,
# past an int64 of microseconds since 1970) is loaded with the rest; the
# newest time read, and then the target's max(time), are later than any
# instant reckon holds: 'infinity', as the data says (docs/loader.md), not
# an error.
test_load_row_after_the_last_instant() {
	createdb $LDB
	sql $LDB >/dev/null <<-SQL
		create table src (id int primary key, ts timestamptz, seen timestamptz);
		insert into src select g, timestamptz '2026-03-02 00:00+00' + g * interval '10 minutes',
		       timestamptz '294276-12-31 23:59:59.999999+00' - g * interval '1 second'
		from generate_series(1, 4) g;
		insert into src values (5, '294270-01-01 00:00:00+00', '2026-03-02 00:00:00+00');
		create table dst (like src);
	SQL
	assert_exit 0 rk load --source "$(conn $LDB)" --source-table src --target-table dst --key id --time ts \
		--strategy write-first-keyed --watermark-table wm --load-name far
	assert_eq "rows_read=5 rows_replaced=0 rows_written=5 watermark=infinity" "$(cat "$OUT")"
	assert_eq "$(sql $LDB 'select * from src order by id')" "$(sql $LDB 'select * from dst order by id')"
	assert_exit 0 rk load --source "$(conn $LDB)" --source-table src --target-table dst --key id --time ts \
		--strategy target-watermark
	assert_eq "rows_read=0 rows_replaced=0 rows_written=0 watermark=infinity" "$(cat "$OUT")"
	assert_exit 0 rk check --source "$(conn $LDB)" --target "$(conn $LDB)" --source-table src --target-table dst \
		--time ts --from 2026-03-02T00:00:00Z --to 2026-03-02T01:00:00Z --window 1h --now 2026-03-03T00:00:00Z
}

# What the target cannot take is refused before anything is read or
# written: an uncovered NOT NULL column without a default, a target
# expression, a bad filter.
test_load_refusals() {
	setup_pair
	sql $LDB "alter table shop.fact add column batch int not null default 0; alter table shop.fact alter column batch drop default" >/dev/null
	assert_exit 2 load --strategy write-first-keyed --watermark-table shop.wm --load-name fact
	assert_contains "$ERR" "target column batch of shop.fact is NOT NULL and has no default, and no logical column covers it: the rows load inserts would leave it NULL"
	assert_eq "" "$(sql $LDB "select to_regclass('shop.wm')")" "no watermark table created"
	assert_exit 0 load --strategy target-watermark --source-expr 'batch=7'
	assert_eq 9 "$(sql $LDB "select count(*) from shop.fact where batch = 7")"
	assert_exit 2 load --strategy target-watermark --source-expr 'batch=7' --target-expr 'qty=qty + 0'
	assert_contains "$ERR" "--target-expr qty=qty + 0 is an expression, not a column of shop.fact: load cannot write it"
	assert_exit 2 load --strategy target-watermark --source-expr 'batch=7' --source-where 'no_such_column'
	assert_contains "$ERR" "no_such_column"
}

# Another session holds the shop rows the keyed write deletes: the load
# waits --lock-timeout, then stops with exit 3, nothing committed, naming
# the blocker; the watermark does not move.
test_load_lock_timeout() {
	setup_pair
	assert_exit 0 load --strategy write-first-keyed --watermark-table shop.wm --load-name fact
	local wm holder
	wm=$(sql $LDB "select watermark from shop.wm")
	holder_start $LDB
	holder_send "begin; select 1 from shop.fact where origin = 'shop' for update;"
	poll_until "select count(*) = 1 from pg_stat_activity where application_name = 'rk_holder'
	            and state = 'idle in transaction'" $LDB "holder row locks"
	holder=$(sql postgres "select pid from pg_stat_activity where application_name = 'rk_holder'")
	assert_exit 3 load --strategy write-first-keyed --watermark-table shop.wm --load-name fact --lookback 1h \
		--lock-timeout 2s
	assert_contains "$ERR" "nothing was committed: waited more than --lock-timeout 2s for a lock on the load's tables; blocked by pid $holder (application 'rk_holder'"
	assert_eq "$wm" "$(sql $LDB "select watermark from shop.wm")" "watermark"
	holder_send "rollback;"
	holder_stop
	assert_exit 0 lcheck
}

# SIGINT while the keyed write waits: rolled back, the result line says so,
# exit 130; the watermark does not move.
test_load_interrupted() {
	setup_pair
	assert_exit 0 load --strategy write-first-keyed --watermark-table shop.wm --load-name fact
	local wm pid rc=0
	wm=$(sql $LDB "select watermark from shop.wm")
	holder_start $LDB
	holder_send "begin; select 1 from shop.fact where origin = 'shop' for update;"
	poll_until "select count(*) = 1 from pg_stat_activity where application_name = 'rk_holder'
	            and state = 'idle in transaction'" $LDB "holder row locks"
	(exec perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "exec: $!"' "$RECKON" load --source "$(conn $LDB)" \
		"${PAIR[@]}" --strategy write-first-keyed --watermark-table shop.wm --load-name fact --lookback 1h \
		--lock-timeout 10min >bg.out 2>bg.err) &
	pid=$!
	poll_until "select count(*) = 1 from pg_stat_activity where datname = '$LDB' and wait_event_type = 'Lock'
	            and application_name = 'reckon'" postgres "load blocked"
	kill -INT "$pid"
	wait "$pid" || rc=$?
	holder_send "rollback;"
	holder_stop
	assert_eq 130 "$rc" "exit status"
	assert_eq "rows_read=5 rows_replaced=0 rows_written=0 watermark=2026-03-02T01:50:00Z interrupted=SIGINT committed=no" \
		"$(cat bg.out)"
	assert_contains bg.err "load write-first-keyed: nothing was committed: interrupted by SIGINT"
	assert_eq "$wm" "$(sql $LDB "select watermark from shop.wm")" "watermark"
	assert_exit 0 lcheck
	assert_eq 9 "$(sql $LDB "select count(*) from shop.fact where origin = 'shop'")"
}
