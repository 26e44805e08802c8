# shellcheck shell=bash
# Key-level findings beyond the single-damage cases of test_check_basic:
# stale copies across windows, the bounded drilldown (--leaf-rows, time
# bisection and key-hash splits of one instant), the text summary's keys,
# and the watermark audit (--watermark-query).

SRC=ck_find_src
TGT=ck_find_tgt

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
}

reset_target() {
	mk_orders $TGT
}

check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS_OPTS[@]}" "$@"
}

# The source row (3, 1) at 00:28 was updated to 02:45; the target kept the
# old version and never loaded the new one.
test_stale_copy_is_extra_then_missing() {
	reset_target
	sql $SRC "update mart.orders set created_at = '2026-03-02 02:45:00+00' where order_id = 3 and line_no = 1" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --rerun-list rerun.csv
	sql $SRC "update mart.orders set created_at = '2026-03-02 00:28:00+00' where order_id = 3 and line_no = 1" >/dev/null
	assert_eq "differ match differ match" "$(statuses rep/windows.csv)"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W0,extra,3,1,0,1
		$W2,missing,3,1,1,0
	EOF
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W0,8,9,0,1,0,0
		$W2,9,8,1,0,0,0
	EOF
}

# Several kinds in one window, and a swap that keeps count and sum.
test_mixed_window_and_swaps() {
	reset_target
	sql $TGT "
		delete from mart.orders where order_id = 2 and line_no = 1;                  -- W0 missing
		insert into mart.orders values (99, 1, '2026-03-02 00:40:00+00', 7.50, 1, 'x'); -- W0 extra
		insert into mart.orders select * from mart.orders where order_id = 4 and line_no = 1; -- W0 duplicated
		update mart.orders set amount = amount + 5 where order_id = 6 and line_no = 1;  -- W1 +5
		update mart.orders set amount = amount - 5 where order_id = 6 and line_no = 2;  -- W1 -5 (sum kept)
		update mart.orders set note = '' where order_id = 12 and line_no = 1" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --columns order_id,line_no,created_at,amount,note
	assert_eq "differ differ differ match" "$(statuses rep/windows.csv)"
	assert_eq "$(wfield rep/windows.csv 2026-03-02T01:00:00Z source_sum_amount)" \
		"$(wfield rep/windows.csv 2026-03-02T01:00:00Z target_sum_amount)" "W1 sums agree"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W0,missing,2,1,1,0
		$W0,extra,99,1,0,1
		$W0,duplicated,4,1,1,2
		$W1,changed,6,1,1,1
		$W1,changed,6,2,1,1
		$W2,changed,12,1,1,1
	EOF
}

# A changed row names the columns that differ, with each side's value, in
# changes.csv, summary.json, the text output and report.html: found by the
# columns' hashes of those keys' rows only.  A NULL is an empty field, the
# empty string "", a long value is cut on a character; --no-values names
# the columns without their values.
test_changed_values_in_every_output() {
	reset_target
	sql $TGT "
		update mart.orders set amount = amount + 5, note = NULL where order_id = 6 and line_no = 1;
		update mart.orders set qty = 9 where order_id = 6 and line_no = 2;
		update mart.orders set note = '' where order_id = 12 and line_no = 1;
		update mart.orders set note = repeat('é', 150) where order_id = 13 and line_no = 1" >/dev/null
	local cut
	cut=$(printf 'é%.0s' $(seq 100))
	mkdir rep
	assert_exit 1 check --report rep
	assert_file_eq rep/changes.csv - <<-EOF
		window_start,window_end,order_id,line_no,column,source_value,target_value
		$W1,6,1,amount,33.00,38.00
		$W1,6,1,note,note 10,
		$W1,6,2,qty,2,9
		$W2,12,1,note,note 22,""
		$W2,13,1,note,note 24,$cut
	EOF
	assert_eq '{"column":"note","source":"note 10","target":null}' \
		"$(jq -c '.changes.first[0].columns[1]' rep/summary.json)"
	assert_eq 'true 0 4' "$(jq -r '"\(.changes.first[3].columns[0].target_cut) \(.changes.unread) \(.changes.first | length)"' rep/summary.json)"
	assert_contains "$OUT" "(6, 1): amount 33.00 -> 38.00; note note 10 -> NULL"
	assert_contains "$OUT" "(6, 2): qty 2 -> 9"
	assert_contains "$OUT" "(13, 1): note note 24 -> $cut..."
	assert_contains rep/report.html '<td><code>(6, 1)</code></td><td class="mono">amount</td><td class="mono">33.00</td><td class="mono">38.00</td>'
	# --no-values: the columns, never a value, anywhere
	mkdir rep2
	assert_exit 1 check --report rep2 --no-values
	assert_file_eq rep2/changes.csv - <<-EOF
		window_start,window_end,order_id,line_no,column,source_value,target_value
		$W1,6,1,amount,,
		$W1,6,1,note,,
		$W1,6,2,qty,,
		$W2,12,1,note,,
		$W2,13,1,note,,
	EOF
	assert_eq 'false {"column":"amount"}' "$(jq -c -r '"\(.changes.values) \(.changes.first[0].columns[0] | tojson)"' rep2/summary.json)"
	assert_contains "$OUT" "(6, 1): amount; note"
	assert_not_contains "$OUT" "note 10"
	assert_not_contains rep2/report.html "note 10"
	assert_not_contains rep2/summary.json "note 10"
}

# The drilldown gives the same findings whatever --leaf-rows forces it to do:
# one pass, time bisection, or key-hash splits of rows sharing one instant.
test_leaf_rows_bisection_same_findings() {
	reset_target
	sql $SRC "insert into mart.orders select 500 + g, 1, '2026-03-02 03:30:00+00', g, 1, 'same instant'
	          from generate_series(1, 40) g" >/dev/null
	sql $TGT "insert into mart.orders select 500 + g, 1, '2026-03-02 03:30:00+00', g, 1, 'same instant'
	          from generate_series(1, 40) g where g not in (7, 31);
	          update mart.orders set amount = 0 where order_id = 520;
	          -- a second copy of (14, 2) (03:09), moved in time inside W3: the
	          -- window's slices see one copy each; the key is still duplicated
	          insert into mart.orders select order_id, line_no, created_at + interval '45 minutes', amount, qty, note
	          from mart.orders where order_id = 14 and line_no = 2;
	          delete from mart.orders where order_id = 9 and line_no = 2" >/dev/null
	local lr
	for lr in 200000 1000 8 3 1; do
		mkdir "rep$lr"
		assert_exit 1 check --report "rep$lr" --leaf-rows "$lr"
	done
	assert_file_eq rep200000/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W1,missing,9,2,1,0
		$W3,missing,507,1,1,0
		$W3,missing,531,1,1,0
		$W3,duplicated,14,2,1,2
		$W3,changed,520,1,1,1
	EOF
	for lr in 1000 8 3 1; do
		assert_file_eq "rep$lr/findings.csv" rep200000/findings.csv
		assert_file_eq "rep$lr/windows.csv" rep200000/windows.csv
	done
	# the small leaves took more passes, re-reading only damaged ranges; a
	# large one reads the damaged slices of the windows in one pass, then
	# the copies of the keys found there in their whole windows
	assert_eq 2 "$(jget rep200000/summary.json .drilldown.passes)"
	assert_match "$(jget rep3/summary.json .drilldown.passes)" '^([2-9]|[1-9][0-9]+)$' "passes with --leaf-rows 3"
	sql $SRC "delete from mart.orders where order_id > 500" >/dev/null
}

test_text_summary_names_keys() {
	reset_target
	sql $TGT "delete from mart.orders where order_id in (2, 3) and line_no = 1" >/dev/null
	assert_exit 1 check
	assert_contains "$OUT" "missing              2  (2, 1), (3, 1)"
	assert_contains "$OUT" "verdict: differ"
}

# --watermark-query: the watermark claims every source row up to it is in
# the target; rows missing behind it break the claim.
test_watermark_audit() {
	reset_target
	sql $SRC "create table if not exists etl_watermark (load_name text primary key, watermark timestamptz);
	          insert into etl_watermark values ('orders', '2026-03-02 02:30:00+00')
	          on conflict (load_name) do update set watermark = excluded.watermark" >/dev/null
	# W2 lost (11, 1) at 02:20 (behind the watermark) and (14, 2) at 03:09 (ahead of it)
	sql $TGT "delete from mart.orders where (order_id, line_no) in ((11, 1), (14, 2))" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep \
		--watermark-query "select watermark from etl_watermark where load_name = 'orders'"
	assert_eq "2026-03-02T02:30:00Z 1 false" \
		"$(jget rep/summary.json '"\(.watermark.value) \(.watermark.missing_at_or_before) \(.watermark.holds)"')"
	assert_contains "$OUT" "watermark 2026-03-02T02:30:00Z: 1 missing key(s) at or before it"
	# a watermark before the damage holds
	sql $SRC "update etl_watermark set watermark = '2026-03-02 02:00:00+00'" >/dev/null
	rm -rf rep && mkdir rep
	assert_exit 1 check --report rep --watermark-query "select watermark from etl_watermark"
	assert_eq "0 true" "$(jget rep/summary.json '"\(.watermark.missing_at_or_before) \(.watermark.holds)"')"
	# a query that does not return one timestamp is an input error
	assert_exit 2 check --watermark-query "select 1, 2"
	assert_exit 2 check --watermark-query "select 'not a time'::text"
}

# A numeric source column loaded into a float target (and the other way):
# equal values are equal, compared as numbers (the exact side's decimal as
# the float type reads it), and said so under schema drift; only the row
# whose value really differs is changed, and repair writes that row alone,
# every run.  Pushdown cannot hash them so: auto streams, on refuses.
test_numeric_against_float_compared_as_numbers() {
	local db
	for db in $SRC $TGT; do
		sql $db "drop table if exists nf" >/dev/null
	done
	sql $SRC "create table nf (id int primary key, ts timestamptz, amount numeric(12,2), ratio real, n bigint, note text);
	          insert into nf select g, '2026-03-02 00:00+00'::timestamptz + g * interval '7 minutes',
	                 g * 1.25 + 0.1, g / 4.0, g * 1000, 'n' || g from generate_series(1, 30) g" >/dev/null
	sql $TGT "create table nf (id int primary key, ts timestamptz, amount double precision, ratio numeric, n double precision,
	          note text)" >/dev/null
	sql $TGT "insert into nf select g, '2026-03-02 00:00+00'::timestamptz + g * interval '7 minutes',
	                 g * 1.25 + 0.1, g / 4.0, g * 1000, 'n' || g from generate_series(1, 30) g" >/dev/null
	# one value really changed, and one note
	sql $TGT "update nf set amount = amount + 0.01 where id = 7; update nf set note = 'x' where id = 20" >/dev/null
	local -a tbl=(--source "$(conn $SRC)" --target "$(conn $TGT)" --table nf --key id --time ts)
	local -a args=("${tbl[@]}" --window 1h --from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z
		--now 2026-03-03T00:00:00Z)
	assert_exit 1 rk check "${args[@]}" --report rep --rerun-list rerun.csv
	assert_eq 2 "$(jget rep/summary.json .findings.changed)" "changed rows"
	assert_eq 0 "$(jget rep/summary.json .findings.missing)"
	assert_eq 'window_start,window_end,id,column,source_value,target_value
2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,7,amount,8.85,8.86
2026-03-02T02:00:00Z,2026-03-02T03:00:00Z,20,note,n20,x' "$(cat rep/changes.csv)"
	assert_eq '[["amount","numeric","double precision","as_numbers"],["ratio","real","numeric","as_numbers"],["n","bigint","double precision","as_numbers"]]' \
		"$(jq -c '[.schema.type_mismatch[] | [.column, .source_type, .target_type, .compared]]' rep/summary.json)"
	assert_contains "$OUT" "schema: column amount is numeric on the source but double precision on the target: compared as numbers"
	assert_contains rep/report.html "(compared as numbers: the exact side's values as the float type)"
	# repair writes the two changed rows, then nothing: a second check matches
	assert_exit 0 rk repair "${tbl[@]}" --rerun-list rerun.csv --execute
	assert_contains "$OUT" "updated 2"
	assert_exit 0 rk check "${args[@]}" --rerun-list rerun2.csv
	assert_eq 1 "$(wc -l <rerun2.csv)" "rerun list after repair (its header)"
	# pushdown: auto streams the exact side; on refuses, saying why
	ext_create $SRC
	ext_create $TGT
	assert_exit 0 rk check "${args[@]}" --pushdown=auto
	assert_exit 2 rk check "${args[@]}" --pushdown
	assert_contains "$ERR" "--pushdown: column amount of the source is an exact number and a float on the other side: compared as numbers"
}

# tuples_read DB TABLE - the rows TABLE in DB has handed out to scans, by
# index and sequentially, once reckon's sessions have ended (a session's
# counts reach the statistics as it ends)
tuples_read() {
	local i
	for ((i = 0; i < 200; i++)); do
		[[ $(sql "$1" "select count(*) from pg_stat_activity where application_name = 'reckon' and datname = '$1'") == 0 ]] && break
		sleep 0.05
	done
	sql "$1" "select coalesce(idx_tup_fetch, 0) + seq_tup_read from pg_stat_user_tables where relid = '$2'::regclass"
}

# seq_scans DB TABLE - sequential scans of TABLE in DB so far (after
# reckon's sessions have ended, as tuples_read)
seq_scans() {
	tuples_read "$1" "$2" >/dev/null
	sql "$1" "select seq_scan from pg_stat_user_tables where relid = '$2'::regclass"
}

# Without an index on the key, the drilldown's last pass (the copies of the
# damaged keys in their windows, rk_drill_verify) reads the damaged windows
# once, over the index on the time: no lookup per key, which without the
# index would be a scan of the table.  The slices that matched hold the
# same rows on both sides, so the target counts the copies in half of
# them while the source reads the rest.  What it finds is what the source
# with a primary key (the source's lookups alone) gives, finding for
# finding: a row lost, a copy loaded twice and moved within its window (its
# other copy lies in a slice that matched, one the target reads), a changed
# row.
test_drilldown_without_a_key_index_reads_the_damaged_windows() {
	local db=ck_nx
	createdb $db
	sql $db >/dev/null <<-SQL
		create table s_nx (id int, ts timestamptz, v int);
		insert into s_nx select g, '2026-03-02 00:00+00'::timestamptz + g * interval '3 seconds', g
		from generate_series(0, 28799) g;
		create index on s_nx (ts);
		create table s_ix (like s_nx);
		insert into s_ix select * from s_nx;
		alter table s_ix add primary key (id);
		create index on s_ix (ts);
		create table c as select * from s_nx;
		create index on c (ts);
		create table t as select * from s_nx;
		delete from t where id = 4000;
		insert into t select id, ts + interval '20 minutes', v from t where id = 9000;
		update t set v = -1 where id = 20000;
		create index on t (ts);
		analyze s_nx;
		analyze s_ix;
		analyze c;
		analyze t;
	SQL
	local opts=(--source "$(conn $db)" --target "$(conn $db)" --key id --time ts --from 2026-03-02T00:00:00Z
		--to 2026-03-03T00:00:00Z --window 1h --now 2026-03-04T00:00:00Z)
	# reads: sequential scans and tuples of the source and of the target
	reads() { echo "$(seq_scans $db s_nx) $(seq_scans $db "$1") $(tuples_read $db s_nx) $(tuples_read $db "$1")"; }
	local a0 a1 b0 b1
	read -ra a0 <<<"$(reads c)"
	RECKON_DIAGNOSE=off assert_exit 0 rk check "${opts[@]}" --source-table s_nx --target-table c
	read -ra a1 <<<"$(reads c)"
	read -ra b0 <<<"$(reads t)"
	mkdir nx ix
	RECKON_DIAGNOSE=off assert_exit 1 rk check "${opts[@]}" --source-table s_nx --target-table t --report nx -v
	read -ra b1 <<<"$(reads t)"
	assert_contains "$ERR" "the source's copies of 3 key(s) in 3 time-split window(s), the target counting them in half the slices that matched"
	assert_eq "$((a1[0] - a0[0])) $((a1[1] - a0[1]))" "$((b1[0] - b0[0])) $((b1[1] - b0[1]))" \
		"sequential scans of the source and the target, clean and damaged"
	# beyond the clean check, both sides: the 3 damaged windows (1,200 rows
	# each) once, and the damaged slices' few rows; the source less than
	# two thirds of it
	local extra=$(((b1[2] + b1[3] - b0[2] - b0[3]) - (a1[2] + a1[3] - a0[2] - a0[3])))
	local src=$(((b1[2] - b0[2]) - (a1[2] - a0[2])))
	((extra >= 3600 && extra <= 3600 + 600)) || fail "the damaged check read $extra rows more"
	((src <= 2400)) || fail "the damaged check read $src rows more of the source"
	_rk_ok
	RECKON_DIAGNOSE=off assert_exit 1 rk check "${opts[@]}" --source-table s_ix --target-table t --report ix -v
	assert_contains "$ERR" "the source's copies of 3 key(s) in 3 time-split window(s)"
	assert_not_contains "$ERR" "the target counting them"
	assert_file_eq nx/findings.csv - <<-EOF
		window_start,window_end,kind,id,source_copies,target_copies
		2026-03-02T03:00:00Z,2026-03-02T04:00:00Z,missing,4000,1,0
		2026-03-02T07:00:00Z,2026-03-02T08:00:00Z,duplicated,9000,1,2
		2026-03-02T16:00:00Z,2026-03-02T17:00:00Z,changed,20000,1,1
	EOF
	assert_file_eq nx/findings.csv ix/findings.csv
	sql postgres "drop database $db with (force)" >/dev/null
}

# The last pass shared between the sides (no index on the key) runs both
# sides' reads of the damaged windows at once: neither statement is planned
# with parallel workers, which on one server would only compete with the
# other side's read (sql/session_scan_serial.sql).  The planner is pushed
# to parallel plans (every parallel cost 0), and auto_explain logs each
# plan: the rest of the check's statements get workers, those two do not.
test_shared_last_pass_plans_no_parallel_workers() {
	local db=ck_par log=$RK_PGDIR/log/postgres.log at
	createdb $db
	sql $db >/dev/null <<-SQL
		create table s (id int, ts timestamptz, v int);
		insert into s select g, '2026-03-02 00:00+00'::timestamptz + g * interval '3 seconds', g
		from generate_series(0, 28799) g;
		create index on s (ts);
		create table t as select * from s;
		delete from t where id = 4000;
		insert into t select id, ts + interval '20 minutes', v from t where id = 9000;
		create index on t (ts);
		analyze s;
		analyze t;
	SQL
	at=$(stat -c %s "$log")
	PGOPTIONS="-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 -c parallel_setup_cost=0
		-c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0 -c min_parallel_index_scan_size=0" \
		RECKON_DIAGNOSE=off assert_exit 1 rk check --source "$(conn $db)" --target "$(conn $db)" --source-table s \
		--target-table t --key id --time ts --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h \
		--now 2026-03-04T00:00:00Z --report rep -v
	assert_contains "$ERR" "the source's copies of 2 key(s) in 2 time-split window(s), the target counting them in half the slices that matched"
	# the log's entries (each opens with its time): the plans of the
	# statements that ask for keys by value (the last pass's, one a side:
	# no changed key is read), how many of them have workers, and how many
	# other plans do
	tail -c +"$((at + 1))" "$log" | awk '
		function judge() { if (e !~ /Query Text:/) return; if (e ~ /"id"\) = /) { n++; w += e ~ /Workers Planned/ } else o += e ~ /Workers Planned/ }
		/^[0-9][0-9][0-9][0-9]-/ { judge(); e = "" }
		{ e = e $0 "\n" }
		END { judge(); print n + 0, w + 0, (o > 0) }' >plans
	assert_eq "2 0 1" "$(cat plans)" "the last pass's plans, those with workers; other plans with workers"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,id,source_copies,target_copies
		2026-03-02T03:00:00Z,2026-03-02T04:00:00Z,missing,4000,1,0
		2026-03-02T07:00:00Z,2026-03-02T08:00:00Z,duplicated,9000,1,2
	EOF
	sql postgres "drop database $db with (force)" >/dev/null
}

# Without an index on the key, the changed key's rows are read where the
# drilldown's leaves held its differing copies (a time range the index on
# the time serves), not in its whole window: the target hands out no more
# than a slice's rows for them (a window holds 3,600, a slice 57).  A copy
# outside that range, alike on both sides (key 5000 holds two), pairs off
# as before.
test_changed_values_read_where_the_drilldown_narrowed() {
	local s=ck_narrow_src t=ck_narrow_tgt
	createdb $s
	sql $s >/dev/null <<-SQL
		create table n (id int, ts timestamptz, v int);
		insert into n select g, '2026-03-02 00:00+00'::timestamptz + g * interval '1 second', g
		from generate_series(0, 28799) g;
		insert into n values (5000, '2026-03-02 01:10:00+00', 1);
		create index on n (ts);
		analyze n;
	SQL
	sql postgres "drop database if exists $t with (force)" >/dev/null
	sql postgres "create database $t template $s" >/dev/null
	sql $t "update n set v = -1 where id = 5000 and ts = '2026-03-02 01:23:20+00'; analyze n" >/dev/null
	local opts=(--source "$(conn $s)" --target "$(conn $t)" --table n --key id --time ts
		--from 2026-03-02T00:00:00Z --to 2026-03-02T08:00:00Z --window 1h --now 2026-03-03T00:00:00Z)
	local a b c
	a=$(tuples_read $t n)
	RECKON_DIAGNOSE=off assert_exit 1 rk check "${opts[@]}"
	b=$(tuples_read $t n)
	mkdir rep
	assert_exit 1 rk check "${opts[@]}" --report rep
	c=$(tuples_read $t n)
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,id,source_copies,target_copies
		2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,changed,5000,2,2
		2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,source_duplicate,5000,2,2
	EOF
	assert_file_eq rep/changes.csv - <<-EOF
		window_start,window_end,id,column,source_value,target_value
		2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,5000,v,5000,-1
	EOF
	local extra=$(((c - b) - (b - a)))
	((extra <= 57)) || fail "the changed values read $extra rows of the target (a slice holds 57, the window 3600)"
	_rk_ok
}
