#!/usr/bin/env bash
# demo-data.sh - the demo's damaged sample (make demo, and the integration
# test that renders its report.html in a browser).
#
# With PGHOST, PGPORT, PGUSER and RK_PGBIN set (a cluster's env file of
# tests/harness/pgcluster.sh), (re)creates the databases demo_source and
# demo_target: a day of orders, mart.orders, 100 orders x 2 lines over
# 2026-03-02 (UTC), and a copy that an unlucky incremental load left behind
# (two rows lost to a crash, one skipped on an hour boundary, one loaded twice,
# one amount changed).
#
# The check that goes with it (hourly windows of that day, all closed; the
# key is the source's primary key, the whole row the five columns both have):
#   --table mart.orders --key order_id,line_no --time created_at --sum amount
#   --columns order_id,line_no,created_at,amount,customer
#   --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h
#   --now 2026-03-03T06:00:00Z
# finds 4 of 24 windows differing: missing 3, duplicated 1, changed 1.
set -euo pipefail

psql_demo() {
	PGOPTIONS="-c client_min_messages=warning" "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"
}

for db in demo_source demo_target; do
	psql_demo -d postgres -c "drop database if exists $db with (force)" -c "create database $db"
done

# The same 200 rows on both sides: order k at 00:00 + k * 14m24s, line 2 30 s later.
orders_rows="
	select k + 1000 as order_id, l as line_no,
	       timestamptz '2026-03-02 00:00:00+00' + k * interval '864 seconds' + (l - 1) * interval '30 seconds' as created_at,
	       ((k * 37 + l * 11) % 500) + ((k * 13) % 100) / 100.0 as amount,
	       'customer-' || (k * 7 % 23) as customer
	from generate_series(0, 99) k, generate_series(1, 2) l"

psql_demo -d demo_source <<-SQL
	create schema mart;
	create table mart.orders (
		order_id   bigint,
		line_no    integer,
		created_at timestamptz not null,
		amount     numeric(12,2) not null,
		customer   text not null,
		primary key (order_id, line_no));
	insert into mart.orders $orders_rows;
SQL

# The target: what an unlucky incremental load left behind.
psql_demo -d demo_target <<-SQL
	create schema mart;
	create table mart.orders (
		order_id   bigint,
		line_no    integer,
		created_at timestamptz,
		amount     numeric(12,2),
		customer   text,
		batch_id   integer,
		loaded_at  timestamptz default clock_timestamp());
	insert into mart.orders (order_id, line_no, created_at, amount, customer, batch_id)
	select *, extract(hour from created_at)::int from ($orders_rows) s;
	-- a crash between two commits lost these two rows
	delete from mart.orders where (order_id, line_no) in ((1047, 2), (1048, 1));
	-- an interval load reading created_at > start skipped the row exactly on 06:00
	delete from mart.orders where (order_id, line_no) = (1025, 1);
	-- a retried batch appended this row a second time
	insert into mart.orders (order_id, line_no, created_at, amount, customer, batch_id)
	select order_id, line_no, created_at, amount, customer, 99 from mart.orders where order_id = 1063 and line_no = 1;
	-- and an update at the source never made it over
	update mart.orders set amount = amount + 10.00 where order_id = 1080 and line_no = 2;
SQL
