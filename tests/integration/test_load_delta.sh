# shellcheck shell=bash
# reckon load --target delta:PATH (docs/loader.md, "A Delta target"): the
# watermark table stays in the PostgreSQL source, and no transaction spans
# it and the Delta table.  Every strategy and crash point, with the lab's
# data: what each commit leaves, that a kill before the log entry exists
# leaves no visible change, and that every table written is read back by
# reckon's Delta reader and by DuckDB's Parquet reader of its data files
# and its log passes the protocol checker (rk-deltacheck,
# tests/harness/deltacheck.h).

DB=ld_delta
DELTACHECK=$(dirname "$RECKON")/tests/rk-deltacheck

setup_file() {
	[[ -x $DELTACHECK ]] || fail "$DELTACHECK is missing: make $(dirname "$RECKON")/tests/rk-deltacheck"
}

# The source of lab.md's data, runs 1 and 2 committed (T-01..T-09).
setup_source() {
	createdb $DB
	sql $DB >/dev/null <<-SQL
		create table src (txn_id text primary key, updated_at timestamptz not null, amount numeric(12,2) not null);
		insert into src values
		  ('T-01', '2026-03-02 09:05+00', 120.00), ('T-02', '2026-03-02 09:20+00', 35.50),
		  ('T-03', '2026-03-02 09:41+00', 18.25), ('T-04', '2026-03-02 09:55+00', 240.00);
	SQL
}

run2_rows() {
	sql $DB >/dev/null <<-SQL
		insert into src values
		  ('T-05', '2026-03-02 10:12+00', 64.10), ('T-06', '2026-03-02 10:31+00', 12.00),
		  ('T-07', '2026-03-02 10:55+00', 99.99), ('T-08', '2026-03-02 11:00+00', 7.50),
		  ('T-09', '2026-03-02 10:58+00', 310.00);
	SQL
}

LAKE=
dload() {
	rk load --source "$(conn $DB)" --target "delta:$LAKE" --table src --key txn_id --time updated_at "$@"
}

wm() {
	dload --watermark-table etl_wm --load-name lake "$@"
}

# versions: the number of commits in the table's log
versions() {
	find "$LAKE/_delta_log" -maxdepth 1 -name '*.json' | wc -l
}

# The table as a sorted list of "id amount" lines, read by reckon's reader
# through check's drilldown would be indirect: DuckDB over the live files
# is what rk-deltacheck compares with reckon's reader; here reckon check
# against the source says what is missing or doubled.
dcheck() {
	rk check --source "$(conn $DB)" --target "delta:$LAKE" --table src --key txn_id --time updated_at \
		--sum amount --from 2026-03-02T09:00:00Z --to 2026-03-02T12:00:00Z --window 1h \
		--now 2026-03-03T00:00:00Z "$@"
}

valid() {
	assert_exit 0 "$DELTACHECK" "$LAKE"
}

# watermark-first: the watermark commits, the process dies before the Delta
# commit; the retry reads nothing newer and makes no commit at all
test_delta_watermark_first() {
	setup_source
	LAKE=$T/wf
	assert_exit 0 wm --strategy watermark-first --unsafe
	assert_eq "rows_read=4 rows_replaced=0 rows_written=4 watermark=2026-03-02T09:55:00Z version=0" "$(cat "$OUT")"
	valid
	run2_rows
	assert_exit 137 wm --strategy watermark-first --unsafe --crash-at after-watermark-commit
	assert_eq 1 "$(versions)"
	assert_exit 0 wm --strategy watermark-first --unsafe
	assert_eq "rows_read=0 rows_replaced=0 rows_written=0 watermark=2026-03-02T11:00:00Z" "$(cat "$OUT")"
	assert_eq 1 "$(versions)"
	valid
	assert_exit 1 dcheck
	assert_contains "$OUT" "missing"
	assert_eq "2026-03-02T11:00:00Z" "$(sql $DB "select to_char(watermark at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') from etl_wm where load_name = 'lake'")"
}

# write-first-append: the Delta commit is made, the process dies before the
# watermark: the retry appends the same rows again (a blind append, so no
# conflict either)
test_delta_write_first_append() {
	setup_source
	LAKE=$T/wfa
	assert_exit 0 wm --strategy write-first-append --unsafe
	run2_rows
	assert_exit 137 wm --strategy write-first-append --unsafe --crash-at after-write-commit
	assert_eq 2 "$(versions)"
	assert_exit 0 wm --strategy write-first-append --unsafe
	assert_eq "rows_read=5 rows_replaced=0 rows_written=5 watermark=2026-03-02T11:00:00Z version=2" "$(cat "$OUT")"
	valid
	assert_exit 1 dcheck
	assert_contains "$OUT" "duplicated"
	assert_contains "$LAKE/_delta_log/00000000000000000002.json" '"mode":"Append"'
	assert_contains "$LAKE/_delta_log/00000000000000000002.json" '"isBlindAppend":true'
}

# write-first-keyed: the retry's one commit removes the files holding the
# keys it writes and adds them rewritten: the table matches
test_delta_write_first_keyed() {
	setup_source
	LAKE=$T/wfk
	assert_exit 0 wm --strategy write-first-keyed --lookback 10m
	assert_exit 0 dcheck
	run2_rows
	assert_exit 137 wm --strategy write-first-keyed --lookback 10m --crash-at after-write-commit
	assert_eq 2 "$(versions)"
	assert_exit 0 wm --strategy write-first-keyed --lookback 10m
	# after 09:55 - 10m: T-04 again, and T-05..T-09
	assert_eq "rows_read=6 rows_replaced=6 rows_written=6 watermark=2026-03-02T11:00:00Z version=2" "$(cat "$OUT")"
	valid
	assert_exit 0 dcheck
	assert_contains "$OUT" "verdict: match"
	local v1=$LAKE/_delta_log/00000000000000000001.json v2=$LAKE/_delta_log/00000000000000000002.json keys
	assert_contains "$v2" '"replaceWhere":"the keys written"'
	# one remove: the killed run's file of those six keys, not the file of T-01..T-03
	assert_eq 1 "$(grep -c '"remove"' "$v2")"
	keys=$(grep '"add"' "$v1" | grep -F 'numRecords\":6' | sed 's/.*"add":{"path":"\([^"]*\)".*/\1/')
	[[ -n $keys ]] || fail "version 1 has no add of six rows"
	assert_contains "$(grep '"remove"' "$v2")" "$keys"
}

# interval: one commit replaces the interval; re-running it replaces the
# same rows; only the files whose stats reach the interval are read
test_delta_interval() {
	setup_source
	run2_rows
	LAKE=$T/iv
	assert_exit 0 dload --strategy interval --interval-start 2026-03-02T09:00:00Z --interval-end 2026-03-02T10:00:00Z
	assert_exit 0 dload --strategy interval --interval-start 2026-03-02T10:00:00Z --interval-end 2026-03-02T11:00:00Z
	assert_eq "rows_read=4 rows_replaced=0 rows_written=4 watermark=none version=1" "$(cat "$OUT")"
	assert_exit 0 dload --strategy interval --interval-start 2026-03-02T11:00:00Z --interval-end 2026-03-02T12:00:00Z
	assert_exit 0 dcheck
	# a late row of [10:00, 11:00), then the interval again
	sql $DB "insert into src values ('T-5b', '2026-03-02 10:40+00', 1.00)" >/dev/null
	assert_exit 0 dload -v --strategy interval --interval-start 2026-03-02T10:00:00Z \
		--interval-end 2026-03-02T11:00:00Z
	assert_eq "rows_read=5 rows_replaced=4 rows_written=5 watermark=none version=3" "$(cat "$OUT")"
	assert_contains "$ERR" "the interval may touch 1 of 3 files"
	local v3=$LAKE/_delta_log/00000000000000000003.json
	assert_eq 1 "$(grep -c '"remove"' "$v3")"
	assert_contains "$v3" '"replaceWhere":"[2026-03-02T10:00:00Z, 2026-03-02T11:00:00Z)"'
	valid
	assert_exit 0 dcheck
	assert_contains "$OUT" "verdict: match"
}

# target-watermark: the newest time from the files' stats (a scan when a
# filter applies); a crash before the write leaves nothing to undo
test_delta_target_watermark() {
	setup_source
	LAKE=$T/tw
	assert_exit 0 dload --strategy target-watermark --lookback 10m
	assert_eq "rows_read=4 rows_replaced=0 rows_written=4 watermark=2026-03-02T09:55:00Z version=0" "$(cat "$OUT")"
	run2_rows
	assert_exit 137 dload --strategy target-watermark --lookback 10m --crash-at before-write
	assert_eq 1 "$(versions)"
	assert_exit 0 dload --strategy target-watermark --lookback 10m
	# after 09:55 - 10m = 09:45: T-04 again and T-05..T-09
	assert_eq "rows_read=6 rows_replaced=1 rows_written=6 watermark=2026-03-02T11:00:00Z newest_from=stats version=1" \
		"$(cat "$OUT")"
	valid
	assert_exit 0 dcheck
	assert_contains "$OUT" "verdict: match"
	# a filter on the target: the stats cannot say, a scan does
	assert_exit 0 dload --strategy target-watermark --lookback 10m --target-where 'amount > 100'
	assert_contains "$OUT" "newest_from=scan"
	assert_contains "$OUT" "rows_read=3 "
	valid
}

# a kill after the data files, before the log entry: no visible change (an
# orphan file at most), and the next run is unaffected
test_delta_kill_before_the_log_entry() {
	setup_source
	LAKE=$T/kill
	assert_exit 0 wm --strategy write-first-keyed
	run2_rows
	local files
	assert_exit 137 wm --strategy write-first-keyed --crash-at inside-transaction
	assert_eq 1 "$(versions)"
	files=$(find "$LAKE" -maxdepth 1 -name '*.parquet' | wc -l)
	assert_eq 2 "$files"
	assert_exit 1 dcheck
	assert_contains "$OUT" "missing"
	valid
	assert_exit 137 wm --strategy write-first-keyed --crash-at after-read
	assert_eq 1 "$(versions)"
	assert_exit 0 wm --strategy write-first-keyed
	assert_eq "rows_read=5 rows_replaced=0 rows_written=5 watermark=2026-03-02T11:00:00Z version=1" "$(cat "$OUT")"
	valid
	assert_exit 0 dcheck
}

# the refusals: one transaction cannot span the watermark and a Delta
# table; a version in the target spec; a table with writer features the
# writer lacks
test_delta_load_refusals() {
	setup_source
	LAKE=$T/ref
	assert_exit 2 wm --strategy one-transaction
	assert_contains "$ERR" "no transaction spans a delta target and the watermark's PostgreSQL database"
	[[ ! -e $LAKE ]] || fail "the refused run created $LAKE"
	assert_exit 2 rk load --source "$(conn $DB)" --target "delta:$T/ref@3" --table src --key txn_id \
		--time updated_at --strategy target-watermark
	assert_contains "$ERR" "a load writes the latest one"
	mkdir -p "$T/feat/_delta_log"
	cat >"$T/feat/_delta_log/00000000000000000000.json" <<-'EOF'
		{"commitInfo":{"timestamp":1,"operation":"CREATE TABLE"}}
		{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":[],"writerFeatures":["rowTracking","domainMetadata"]}}
		{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"txn_id\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{}}}
	EOF
	assert_exit 2 rk load --source "$(conn $DB)" --target "delta:$T/feat" --table src --key txn_id \
		--time updated_at --strategy target-watermark
	assert_contains "$ERR" "writer feature this writer does not implement: rowTracking"
}

# interval, killed: inside the write (data files, no log entry) nothing
# changes; after the commit, the interval is replaced once
test_delta_interval_crash_points() {
	setup_source
	run2_rows
	LAKE=$T/ivc
	local i
	for i in 09 10 11; do
		assert_exit 0 dload --strategy interval --interval-start "2026-03-02T$i:00:00Z" \
			--interval-end "2026-03-02T$((10#$i + 1)):00:00Z"
	done
	sql $DB "update src set amount = amount + 1 where txn_id = 'T-06'" >/dev/null
	assert_exit 137 dload --strategy interval --interval-start 2026-03-02T10:00:00Z \
		--interval-end 2026-03-02T11:00:00Z --crash-at inside-transaction
	assert_eq 3 "$(versions)"
	assert_exit 1 dcheck
	assert_contains "$OUT" "T-06"
	assert_exit 137 dload --strategy interval --interval-start 2026-03-02T10:00:00Z \
		--interval-end 2026-03-02T11:00:00Z --crash-at after-write-commit
	assert_eq 4 "$(versions)"
	valid
	assert_exit 0 dcheck
	assert_contains "$OUT" "verdict: match"
}
