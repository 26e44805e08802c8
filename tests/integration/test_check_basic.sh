# shellcheck shell=bash disable=SC2054
# reckon check, PostgreSQL against PostgreSQL: what matches, what differs, and
# exactly which windows and keys are reported (docs/reference.md).
#
# Both databases hold mk_orders' 34 rows; each case damages its own copy of
# the target.  Windows: W0 00:00-01:00 (9 rows), W1 (9), W2 (8), W3 (8).

SRC=ck_basic_src
TGT=ck_basic_tgt

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
	mk_orders $TGT
	# A source with a key twice, for source_duplicate.
	sql $SRC "create table mart.orders_sd as table mart.orders;
	          insert into mart.orders_sd select * from mart.orders where order_id = 5 and line_no = 2"
	assert_eq 34 "$(sql $SRC 'select count(*) from mart.orders')"
}

# A fresh, identical target for the case.
reset_target() {
	mk_orders $TGT
}

check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS_OPTS[@]}" "$@"
}

test_identical_tables_match() {
	reset_target
	mkdir rep
	assert_exit 0 check --report rep --rerun-list rerun.csv
	assert_eq "$WINDOWS_HEADER_AMOUNT" "$(head -n 1 rep/windows.csv)" "windows.csv header"
	assert_eq "match match match match" "$(statuses rep/windows.csv)"
	# counts and sums, as PostgreSQL computes them
	orders_expected $SRC >expected
	assert_eq 5 "$(wc -l <rep/windows.csv)"
	tail -n +2 rep/windows.csv | cut -d, -f1-7 >got
	assert_file_eq got expected
	# each window: both hashes equal, 32 lowercase hex digits; windows differ
	local src tgt
	while IFS=, read -r _ _ _ _ _ _ _ src tgt; do
		assert_match "$src" '^[0-9a-f]{32}$' "source_hash"
		assert_eq "$src" "$tgt" "source_hash and target_hash"
	done < <(tail -n +2 rep/windows.csv)
	assert_eq 4 "$(tail -n +2 rep/windows.csv | cut -d, -f8 | sort -u | wc -l)" "distinct window hashes"
	# summary.json
	assert_eq match "$(jget rep/summary.json .verdict)"
	assert_eq "4 4 0 0" "$(jget rep/summary.json '[.windows.checked, .windows.matched, .windows.differ, .windows.open] | map(tostring) | join(" ")')"
	assert_eq "0 0 0 0 0" "$(jget rep/summary.json '[.findings.missing, .findings.extra, .findings.duplicated, .findings.changed, .findings.source_duplicate] | map(tostring) | join(" ")')"
	assert_eq "34 34" "$(jget rep/summary.json '"\(.source_rows) \(.target_rows)"')"
	assert_eq "0 0" "$(jget rep/summary.json '"\(.null_time_rows.source) \(.null_time_rows.target)"')"
	# no findings, empty rerun list (header only)
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
	EOF
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
	EOF
	assert_dir_only rep changes.csv findings.csv report.html rerun.csv summary.json windows.csv
}

test_same_input_same_files() {
	reset_target
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2" >/dev/null
	mkdir a b
	assert_exit 1 check --report a --rerun-list a.csv
	assert_exit 1 check --report b --rerun-list b.csv
	assert_file_eq b/windows.csv a/windows.csv
	assert_file_eq b/findings.csv a/findings.csv
	assert_file_eq b.csv a.csv
}

test_missing_row() {
	reset_target
	# g = 5: key (3, 2) at 00:35, amount 16.75
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --rerun-list rerun.csv
	assert_eq "differ match match match" "$(statuses rep/windows.csv)"
	assert_eq "9 8" "$(wfield rep/windows.csv 2026-03-02T00:00:00Z source_rows) $(wfield rep/windows.csv 2026-03-02T00:00:00Z target_rows)"
	local s t
	s=$(wfield rep/windows.csv 2026-03-02T00:00:00Z source_sum_amount)
	t=$(wfield rep/windows.csv 2026-03-02T00:00:00Z target_sum_amount)
	assert_eq "$(sql $SRC "select trim_scale($s - 16.75)")" "$t" "target sum of W0"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W0,missing,3,2,1,0
	EOF
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W0,9,8,1,0,0,0
	EOF
	assert_eq differ "$(jget rep/summary.json .verdict)"
	assert_eq "4 3 1 0" "$(jget rep/summary.json '[.windows.checked, .windows.matched, .windows.differ, .windows.open] | map(tostring) | join(" ")')"
	assert_eq "1 0 0 0 0" "$(jget rep/summary.json '[.findings.missing, .findings.extra, .findings.duplicated, .findings.changed, .findings.source_duplicate] | map(tostring) | join(" ")')"
	assert_eq "34 33" "$(jget rep/summary.json '"\(.source_rows) \(.target_rows)"')"
}

test_extra_row() {
	reset_target
	sql $TGT "insert into mart.orders values (100, 1, '2026-03-02 02:30:00+00', 10.00, 1, 'stale')" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --rerun-list rerun.csv
	assert_eq "match match differ match" "$(statuses rep/windows.csv)"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W2,extra,100,1,0,1
	EOF
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W2,8,9,0,1,0,0
	EOF
	assert_eq "0 1 0 0" "$(jget rep/summary.json '[.findings.missing, .findings.extra, .findings.duplicated, .findings.changed] | map(tostring) | join(" ")')"
}

test_changed_amount() {
	reset_target
	# g = 20: key (11, 1) at 02:20, amount 65.50
	sql $TGT "update mart.orders set amount = amount + 0.01 where order_id = 11 and line_no = 1" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --rerun-list rerun.csv
	assert_eq "match match differ match" "$(statuses rep/windows.csv)"
	local s t
	s=$(wfield rep/windows.csv 2026-03-02T02:00:00Z source_sum_amount)
	t=$(wfield rep/windows.csv 2026-03-02T02:00:00Z target_sum_amount)
	assert_eq "$(sql $SRC "select trim_scale($s + 0.01)")" "$t" "target sum of W2"
	assert_ne "$(wfield rep/windows.csv 2026-03-02T02:00:00Z source_hash)" "$(wfield rep/windows.csv 2026-03-02T02:00:00Z target_hash)"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W2,changed,11,1,1,1
	EOF
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W2,8,8,0,0,0,1
	EOF
}

test_duplicated_row() {
	reset_target
	# g = 30: key (16, 1) at 03:30
	sql $TGT "insert into mart.orders select * from mart.orders where order_id = 16 and line_no = 1" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --rerun-list rerun.csv
	assert_eq "match match match differ" "$(statuses rep/windows.csv)"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W3,duplicated,16,1,1,2
	EOF
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W3,8,9,0,0,1,0
	EOF
	assert_eq 1 "$(jget rep/summary.json .findings.duplicated)"
}

# Two rows of one window trade amounts: counts and sums agree, the hash does not.
test_count_and_sum_preserving_swap() {
	reset_target
	# g = 10: (6, 1) 33.00 at 01:10; g = 11: (6, 2) 36.25 at 01:17
	sql $TGT "update mart.orders o set amount = x.amount
	          from mart.orders x
	          where o.order_id = 6 and x.order_id = 6 and o.line_no <> x.line_no" >/dev/null
	assert_eq "36.25|33.00" "$(sql $TGT "select string_agg(amount::text, '|' order by line_no) from mart.orders where order_id = 6")"
	mkdir rep
	assert_exit 1 check --report rep --rerun-list rerun.csv
	assert_eq "match differ match match" "$(statuses rep/windows.csv)"
	local w=2026-03-02T01:00:00Z
	assert_eq "$(wfield rep/windows.csv $w source_rows)" "$(wfield rep/windows.csv $w target_rows)" "row counts of W1"
	assert_eq "$(wfield rep/windows.csv $w source_sum_amount)" "$(wfield rep/windows.csv $w target_sum_amount)" "sums of W1"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W1,changed,6,1,1,1
		$W1,changed,6,2,1,1
	EOF
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W1,9,9,0,0,0,2
	EOF
}

# One key replaced by another with the same time and amount.
test_key_replaced() {
	reset_target
	# g = 12: (7, 1) at 01:24
	sql $TGT "update mart.orders set order_id = 99 where order_id = 7 and line_no = 1" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --rerun-list rerun.csv
	assert_eq "match differ match match" "$(statuses rep/windows.csv)"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W1,missing,7,1,1,0
		$W1,extra,99,1,0,1
	EOF
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W1,9,9,1,1,0,0
	EOF
}

test_sum_preserving_change() {
	reset_target
	# g = 14: (8, 1) at 01:38 +5; g = 15: (8, 2) at 01:45 -5
	sql $TGT "update mart.orders set amount = amount + case line_no when 1 then 5 else -5 end where order_id = 8" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --rerun-list rerun.csv
	assert_eq "match differ match match" "$(statuses rep/windows.csv)"
	local w=2026-03-02T01:00:00Z
	assert_eq "$(wfield rep/windows.csv $w source_sum_amount)" "$(wfield rep/windows.csv $w target_sum_amount)" "sums of W1"
	assert_file_eq rep/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W1,changed,8,1,1,1
		$W1,changed,8,2,1,1
	EOF
	assert_eq 2 "$(jget rep/summary.json .findings.changed)"
}

test_rerun_list_in_time_order() {
	reset_target
	sql $TGT "delete from mart.orders where order_id = 16 and line_no = 1;
	          update mart.orders set amount = 0 where order_id = 1 and line_no = 1" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --rerun-list rerun.csv
	assert_eq "differ match match differ" "$(statuses rep/windows.csv)"
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		$W0,9,9,0,0,0,1
		$W3,8,7,1,0,0,0
	EOF
	assert_eq 2 "$(jget rep/summary.json .windows.differ)"
}

# By default the whole row is hashed: a change to any column both sides
# have is found.  --columns hashes only those; --exclude-columns trims the
# whole row.
test_columns_option() {
	reset_target
	sql $TGT "update mart.orders set note = 'edited', qty = qty + 1 where order_id = 2" >/dev/null
	mkdir a b c d
	assert_exit 1 check --report a
	assert_eq "differ match match match" "$(statuses a/windows.csv)"
	assert_file_eq a/findings.csv - <<-EOF
		window_start,window_end,kind,order_id,line_no,source_copies,target_copies
		$W0,changed,2,1,1,1
		$W0,changed,2,2,1,1
	EOF
	assert_eq '["order_id","line_no","created_at","amount","qty","note"]' "$(jq -c .columns a/summary.json)"
	assert_eq true "$(jget a/summary.json .whole_row)"
	assert_contains "$OUT" "hashed: 6 columns (the whole row"
	# the status-only update the issue's engineer missed: found without --columns
	assert_exit 0 check --report b --columns order_id,line_no,created_at,amount
	assert_eq "match match match match" "$(statuses b/windows.csv)"
	assert_exit 1 check --report c --columns order_id,line_no,created_at,amount,note
	assert_eq "differ match match match" "$(statuses c/windows.csv)"
	assert_exit 0 check --report d --exclude-columns note,qty
	assert_eq '["order_id","line_no","created_at","amount"]' "$(jq -c .columns d/summary.json)"
	# the hashed columns change the hashes, not the counts or sums
	assert_ne "$(wfield b/windows.csv 2026-03-02T01:00:00Z source_hash)" "$(wfield c/windows.csv 2026-03-02T01:00:00Z source_hash)"
	assert_eq "$(cut -d, -f1,2,4-7 b/windows.csv)" "$(cut -d, -f1,2,4-7 c/windows.csv)" "counts and sums"
	# the same column list given or defaulted: the same digests
	assert_file_eq d/windows.csv b/windows.csv
	assert_exit 2 check --exclude-columns nosuch
	assert_contains "$ERR" "option --exclude-columns names 'nosuch', which neither side has"
	assert_exit 2 check --exclude-columns note --columns order_id
	assert_contains "$ERR" "--columns and --exclude-columns exclude each other"
}

# Different relation names; target-only columns (loaded_at, batch_id) are not compared.
test_source_and_target_table_names() {
	reset_target
	sql $TGT "create schema if not exists stage;
	          drop table if exists stage.orders_loaded;
	          create table stage.orders_loaded as
	              select 7 as batch_id, o.*, clock_timestamp() as loaded_at from mart.orders o" >/dev/null
	mkdir rep
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" \
		--source-table mart.orders --target-table stage.orders_loaded \
		"${ORDERS_CHECK[@]}" --report rep
	assert_eq "match match match match" "$(statuses rep/windows.csv)"
	sql $TGT "delete from stage.orders_loaded where order_id = 16 and line_no = 1" >/dev/null
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" \
		--source-table mart.orders --target-table stage.orders_loaded \
		"${ORDERS_CHECK[@]}" --report rep
	assert_eq "match match match differ" "$(statuses rep/windows.csv)"
}

test_source_duplicate() {
	reset_target
	sql $TGT "drop table if exists mart.orders_sd; create table mart.orders_sd as table mart.orders" >/dev/null
	mkdir rep
	# the source holds (5, 2) twice (g = 9, 01:03), the target once
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders_sd "${ORDERS_CHECK[@]}" --report rep
	assert_eq "match differ match match" "$(statuses rep/windows.csv)"
	assert_contains rep/findings.csv "$W1,source_duplicate,5,2,2,1"
	assert_eq 1 "$(jget rep/summary.json .findings.source_duplicate)"
	# the same duplicate on both sides: digests agree, so no findings
	sql $TGT "insert into mart.orders_sd select * from mart.orders where order_id = 5 and line_no = 2" >/dev/null
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders_sd "${ORDERS_CHECK[@]}" --report rep
	assert_eq "match match match match" "$(statuses rep/windows.csv)"
}

test_format_json_is_the_summary() {
	reset_target
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2" >/dev/null
	mkdir rep
	assert_exit 1 check --report rep --format json
	jq -S . "$OUT" >stdout.json || fail "stdout of --format json is not JSON"
	jq -S . rep/summary.json >summary.json
	assert_file_eq stdout.json summary.json
	assert_eq differ "$(jget "$OUT" .verdict)"
	assert_eq 1 "$(jget "$OUT" .findings.missing)"
}

test_text_output_and_verbose() {
	reset_target
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2" >/dev/null
	assert_exit 1 check
	[[ -s $OUT ]] || fail "no text summary on stdout"
	assert_contains_i "$OUT" differ
	cp "$OUT" text.out
	# logging goes to stderr; stdout stays the same
	assert_exit 1 check -v -v
	assert_file_eq "$OUT" text.out
	assert_exit 1 check --format json
	cp "$OUT" json.out
	assert_exit 1 check --format json -v
	assert_file_eq "$OUT" json.out
}

test_jobs_give_same_result() {
	reset_target
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2;
	          update mart.orders set amount = 1 where order_id = 15" >/dev/null
	mkdir a b
	assert_exit 1 check --report a --jobs 1
	assert_exit 1 check --report b --jobs 3
	assert_file_eq b/windows.csv a/windows.csv
	assert_file_eq b/findings.csv a/findings.csv
}
