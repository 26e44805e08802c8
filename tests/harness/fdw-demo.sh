#!/usr/bin/env bash
# fdw-demo.sh RECKON_BIN - scale-out with postgres_fdw: what reckon check
# --pushdown does against a partitioned table whose partitions live in two
# other PostgreSQL clusters (docs/pushdown.md, "Shards").
#
# Three private clusters (tests/harness/pgcluster.sh): a coordinator and two
# shards.  Each shard holds one partition of demo.orders (LIST by shard);
# the coordinator's database `target` sees them as foreign partitions of one
# partitioned table through postgres_fdw, whose servers mark the reckon
# extension shippable (OPTIONS (extensions 'reckon')).  The coordinator's
# database `source` holds the same rows in a plain table.  The script
#
#   1. runs reckon check --pushdown (source against the sharded target):
#      reckon finds the foreign leaf partitions and aggregates each one by
#      name, one aggregate per window, which postgres_fdw sends to the shard;
#   2. shows the EXPLAIN VERBOSE of the very statement reckon sent and checks
#      that every foreign scan in it is an aggregate run on a shard;
#   3. damages one row on each shard and checks again (the drilldown streams
#      the damaged windows' rows through postgres_fdw).
#
# Needs the extension installed into the server (make ext-install, as root):
# postgres_fdw ships only functions of an extension named in `extensions`.
# N rows (env N, default 200000).  Prints what it finds; exits 1 when a
# result is not the expected one.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
if [[ $# -ne 1 ]]; then
	echo "usage: [N=rows] tests/harness/fdw-demo.sh RECKON_BIN" >&2
	exit 2
fi
RECKON=$1
[[ $RECKON == /* ]] || RECKON=$PWD/$RECKON
[[ -x $RECKON ]] || { echo "fdw-demo: $RECKON is not an executable (run make)" >&2; exit 1; }
N=${N:-200000}
if [[ ! -r $(pg_config --sharedir)/extension/reckon.control ]]; then
	echo "fdw-demo: the reckon extension is not installed into the server: run make ext-install (as root)" >&2
	exit 1
fi

base=$(mktemp -d /tmp/reckon-fdw.XXXXXX)
chmod 0755 "$base"
cleanup() {
	local c
	for c in coord shard_a shard_b; do
		bash "$here/pgcluster.sh" stop "$base/$c" || true
	done
	rm -rf "$base"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for c in coord shard_a shard_b; do
	bash "$here/pgcluster.sh" start "$base/$c" >/dev/null
done
port() { sed -n "s/^export PGPORT='\\(.*\\)'/\\1/p" "$base/$1/env"; }
# psql_on CLUSTER DB [ARG...] - psql as the superuser, stop on error
psql_on() {
	local c=$1 db=$2
	shift 2
	PGOPTIONS="-c client_min_messages=warning" "$(pg_config --bindir)/psql" -X -q -v ON_ERROR_STOP=1 \
		-h "$base/$c" -p "$(port "$c")" -U reckon -d "$db" "$@"
}
conn() { echo "host=$base/$1 port=$(port "$1") user=reckon dbname=$2"; }
step() { printf '\n== %s\n' "$*"; }
ok=1
# expect WHAT COMMAND... - prints whether COMMAND succeeded
expect() {
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "NOT AS EXPECTED: $what"; ok=0; fi
}

TABLE_DDL="create schema demo;
	create table demo.orders (shard text not null, id bigint, created_at timestamptz, amount numeric(12,2), note text)"
# the rows: ids 1..N over two days; shard a holds the even ids, shard b the odd
ROWS="select case when i % 2 = 0 then 'a' else 'b' end, i,
             timestamptz '2026-03-01 00:00:00+00' + (i - 1) * (interval '172800 seconds' / $N),
             (i * 7919 % 100000) / 100.0, 'note ' || md5(i::text)
      from generate_series(1::bigint, $N) i"

step "two shards, each with the reckon extension and its partition of demo.orders ($N rows in all)"
for s in a b; do
	psql_on "shard_$s" postgres -c "create database shard" >/dev/null
	psql_on "shard_$s" shard -c "create extension reckon" -c "$TABLE_DDL" \
		-c "insert into demo.orders select * from ($ROWS) r(shard, id, created_at, amount, note) where shard = '$s'" \
		-c "analyze demo.orders"
	echo "shard_$s: $(psql_on "shard_$s" shard -At -c "select count(*) from demo.orders") rows"
done

step "coordinator: database source (plain table) and database target (foreign partitions)"
psql_on coord postgres -c "create database source" -c "create database target" >/dev/null
psql_on coord source -c "create extension reckon" -c "$TABLE_DDL" -c "insert into demo.orders $ROWS" -c "analyze demo.orders"
psql_on coord target <<-SQL
	create extension postgres_fdw;
	create extension reckon;
	create server shard_a foreign data wrapper postgres_fdw
	    options (host '$base/shard_a', port '$(port shard_a)', dbname 'shard', extensions 'reckon',
	             async_capable 'true');
	create server shard_b foreign data wrapper postgres_fdw
	    options (host '$base/shard_b', port '$(port shard_b)', dbname 'shard', extensions 'reckon',
	             async_capable 'true');
	create user mapping for current_user server shard_a options (user 'reckon');
	create user mapping for current_user server shard_b options (user 'reckon');
	create schema demo;
	create table demo.orders (shard text not null, id bigint, created_at timestamptz, amount numeric(12,2), note text)
	    partition by list (shard);
	create foreign table demo.orders_a partition of demo.orders for values in ('a')
	    server shard_a options (schema_name 'demo', table_name 'orders');
	create foreign table demo.orders_b partition of demo.orders for values in ('b')
	    server shard_b options (schema_name 'demo', table_name 'orders');
SQL
echo "target: $(psql_on coord target -At -c "select count(*) from demo.orders") rows through postgres_fdw"

CHECK=(--table demo.orders --key id --time created_at --sum amount --columns id,created_at,amount,note
	--from 2026-03-01T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-04T00:00:00Z)

step "reckon check --pushdown, source against the sharded target"
rc=0
"$RECKON" check --source "$(conn coord source)" --target "$(conn coord target)" "${CHECK[@]}" \
	--pushdown -vv --report "$base/match" >"$base/match.out" 2>"$base/match.err" || rc=$?
grep -E '^(verdict|windows)' "$base/match.out" || tail -n 3 "$base/match.out"
expect "reckon check --pushdown exits 0 (every window matches)" test "$rc" -eq 0
expect "the target's window digests were computed by PostgreSQL, not by reckon" \
	grep -q 'target: window digests computed by the server' "$base/match.err"

expect "reckon saw the foreign partitions and aggregated each one on its own" \
	grep -q 'partitioned, 2 of its 2 leaf partitions foreign' "$base/match.err"

# the statement reckon sent to the target (debug log), without COPY ( ... ) TO STDOUT
query=$(sed -n 's/^reckon: debug: window digests of demo\.orders on target: COPY (\(.*\)) TO STDOUT$/\1/p' "$base/match.err")
[[ -n $query ]] || { echo "fdw-demo: reckon's digest statement is not in its debug log" >&2; exit 1; }
step "EXPLAIN VERBOSE of reckon's own statement, as reckon's session plans it"
echo "${query:0:600} ..."
plan=$(psql_on coord target -c "set timezone = 'UTC'" -c "set enable_sort = off" -c "set constraint_exclusion = on" \
	-c "explain (verbose, costs off) $query")
grep -E 'Foreign Scan|Relations|Remote SQL' <<<"$plan" | sed -n 1,6p
echo "   ... ($(grep -c 'Foreign Scan' <<<"$plan") foreign scans in all)"
# one per window and shard (2 x 48), and one per shard for the rows whose
# time is NULL (counted, as no window can hold them)
expect "every foreign scan is an aggregate run on its shard (2 x 48 windows, 2 for the NULL times)" \
	test "$(grep -c 'Relations: Aggregate on' <<<"$plan")" -eq 98 -a "$(grep -c 'Foreign Scan' <<<"$plan")" -eq 98
expect "the shards run reckon_window themselves (it is in the Remote SQL)" \
	grep -q 'Remote SQL: SELECT .*public.reckon_window(' <<<"$plan"

step "damage: delete one row on shard b, change one on shard a; reckon check --pushdown again"
psql_on shard_b shard -c "delete from demo.orders where id = 1001" >/dev/null
psql_on shard_a shard -c "update demo.orders set amount = amount + 1 where id = 2002" >/dev/null
rc=0
"$RECKON" check --source "$(conn coord source)" --target "$(conn coord target)" "${CHECK[@]}" \
	--pushdown --report "$base/differ" >"$base/differ.out" 2>"$base/differ.err" || rc=$?
cat "$base/differ/findings.csv"
expect "reckon check --pushdown exits 1 (differences)" test "$rc" -eq 1
expect "the drilldown (rows streamed through postgres_fdw) names both keys" \
	grep -q ',missing,1001,1,0' "$base/differ/findings.csv"
expect "... and the changed one" grep -q ',changed,2002,1,1' "$base/differ/findings.csv"

[[ $ok -eq 1 ]]
