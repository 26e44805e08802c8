# shellcheck shell=bash
# reckon repair of a Delta target (docs/repair.md, docs/delta.md "Repair"):
# per rerun interval one Delta commit that leaves the interval equal to the
# source's rows, touching only the files that hold a differing row; the
# re-check matches; a second run of the same list makes no commit at all;
# the dry run names the files it would remove and changes nothing; a
# concurrent writer's commit in between is retried when it touched nothing
# the repair read, else the run stops (exit 3) naming its version.  Every
# table is read back by reckon's Delta reader (the checks) and by DuckDB,
# and its log passes the protocol checker (rk-deltacheck).
#
# Source: mk_orders' 34 rows.  Target: loaded by reckon load, one interval
# (one commit, one file) per hour, then damaged by the tests' own writer:
#   W0 (3, 2) missing        W1 its file removed from the log by hand
#   W2 (10, 1) duplicated    W3 (16, 1) changed and (99, 1) extra

SRC=rdl_src
DELTAWRITE=$(dirname "$RECKON")/tests/rk-deltawrite
DELTACHECK=$(dirname "$RECKON")/tests/rk-deltacheck
LAKE=

setup_file() {
	[[ -x $DELTAWRITE ]] || fail "$DELTAWRITE is missing: make $(dirname "$RECKON")/tests/rk-deltawrite"
	[[ -x $DELTACHECK ]] || fail "$DELTACHECK is missing: make $(dirname "$RECKON")/tests/rk-deltacheck"
	createdb $SRC
	mk_orders $SRC
}

versions() {
	find "$LAKE/_delta_log" -maxdepth 1 -name '*.json' | wc -l
}

# file_of V - the data file version V added (its only one)
file_of() {
	grep '"add"' "$LAKE/_delta_log/$(printf %020d "$1").json" | sed 's/.*"add":{"path":"\([^"]*\)".*/\1/'
}

# actions V - "R A": the remove and add actions of version V
actions() {
	local f
	f=$LAKE/_delta_log/$(printf %020d "$1").json
	echo "$(grep -c '"remove"' "$f" || true) $(grep -c '"add"' "$f" || true)"
}

# The damaged target, versions 0..3 loaded, 4..7 the damage.
damaged_lake() {
	LAKE=$T/lake
	local h
	for h in 0 1 2 3; do
		assert_exit 0 rk load --source "$(conn $SRC)" --target "delta:$LAKE" --table mart.orders \
			--key order_id,line_no --time created_at --strategy interval \
			--interval-start "2026-03-02T0$h:00:00Z" --interval-end "2026-03-02T0$((h + 1)):00:00Z"
	done
	assert_eq 4 "$(versions)"
	local f0 f2 f3
	f0=$LAKE/$(file_of 0) f2=$LAKE/$(file_of 2) f3=$LAKE/$(file_of 3)
	assert_exit 0 "$DELTAWRITE" "$LAKE" replace DELETE 0 \
		"select * from read_parquet('$f0') where not (order_id = 3 and line_no = 2) order by created_at"
	assert_exit 0 "$DELTAWRITE" "$LAKE" remove 1
	assert_exit 0 "$DELTAWRITE" "$LAKE" append WRITE \
		"select * from read_parquet('$f2') where order_id = 10 and line_no = 1"
	assert_exit 0 "$DELTAWRITE" "$LAKE" replace UPDATE 3 \
		"select order_id, line_no, created_at,
		        case when order_id = 16 and line_no = 1 then amount + 1 else amount end as amount, qty, note
		 from read_parquet('$f3')
		 union all select 99::bigint, 1, timestamptz '2026-03-02 03:30:00+00', 1.00::decimal(12,2), 1, 'extra'
		 order by created_at"
	assert_eq 8 "$(versions)"
	assert_exit 0 "$DELTACHECK" "$LAKE"
}

dcheck() {
	rk check --source "$(conn $SRC)" --target "delta:$LAKE" "${ORDERS_OPTS[@]}" "$@"
}

drepair() {
	rk repair --source "$(conn $SRC)" --target "delta:$LAKE" --table mart.orders --key order_id,line_no \
		--time created_at --sum amount "$@"
}

rerun_list() {
	assert_exit 1 dcheck --rerun-list rerun.csv
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		${W0},9,8,1,0,0,0
		${W1},9,0,9,0,0,0
		${W2},8,9,0,0,1,0
		${W3},8,9,0,1,0,1
	EOF
}

test_repair_delta_dry_run_changes_nothing() {
	damaged_lake
	rerun_list
	assert_exit 0 drepair --rerun-list rerun.csv
	assert_eq 8 "$(versions)"
	assert_contains "$OUT" "would commit:"
	# W0: nothing to delete, one row to add; W1: the nine rows of the file
	# removed by hand come back as one new file
	assert_contains "$OUT" "add 1 source row in a new file"
	assert_contains "$OUT" "add 9 source rows in a new file"
	# W2: both copies of (10, 1) go, one comes back; W3's file holds the
	# changed and the extra row
	assert_contains "$OUT" "remove $(file_of 2) (8 rows: 1 deleted, 7 to rewrite into a new file)"
	assert_contains "$OUT" "remove $(file_of 6) (1 row: 1 deleted)"
	assert_contains "$OUT" "remove $(file_of 7) (9 rows: 2 deleted, 7 to rewrite into a new file)"
	assert_not_contains "$OUT" "remove $(file_of 4)"
	assert_contains "$OUT" "dry run: 4 intervals"
	assert_exit 1 dcheck
}

test_repair_delta_execute_idempotent() {
	damaged_lake
	rerun_list
	assert_exit 0 drepair --rerun-list rerun.csv --execute
	assert_eq 12 "$(versions)"
	assert_contains "$OUT" "repaired 4 of 4 intervals"
	assert_contains "$OUT" "4 match"
	assert_contains "$OUT" "committed version 8:"
	assert_contains "$OUT" "committed version 11:"
	assert_exit 0 "$DELTACHECK" "$LAKE"
	# one commit an interval, MERGE with the interval in its parameters
	assert_contains "$LAKE/_delta_log/00000000000000000008.json" '"operation":"MERGE"'
	assert_contains "$LAKE/_delta_log/00000000000000000008.json" '"replaceWhere":"[2026-03-02T00:00:00Z, 2026-03-02T01:00:00Z), the keys that differ"'
	# W0 and W1 only added; W2 removed the duplicate's file; W3 rewrote its file
	assert_eq "0 1" "$(actions 8)"
	assert_eq "0 1" "$(actions 9)"
	assert_eq "2 2" "$(actions 10)"
	assert_eq "1 2" "$(actions 11)"
	assert_exit 0 dcheck
	assert_contains "$OUT" "verdict: match"
	# the same list again: every interval already matches, no commit at all
	assert_exit 0 drepair --rerun-list rerun.csv --execute
	assert_eq 12 "$(versions)"
	assert_contains "$OUT" "4 already matched (left alone)"
	assert_not_contains "$OUT" "committed version"
	assert_exit 0 "$DELTACHECK" "$LAKE"
}

test_repair_delta_replace_interval() {
	damaged_lake
	rerun_list
	assert_exit 0 drepair --rerun-list rerun.csv --execute --replace-interval
	assert_eq 12 "$(versions)"
	assert_contains "$LAKE/_delta_log/00000000000000000011.json" '"operation":"WRITE"'
	assert_exit 0 "$DELTACHECK" "$LAKE"
	assert_exit 0 dcheck
	assert_exit 0 drepair --rerun-list rerun.csv --execute --replace-interval
	assert_eq 12 "$(versions)"
}

# Another writer removes the file the repair read, between its snapshot and
# its commit: the repair commits nothing and names the version; the next
# run repairs on the new snapshot.
test_repair_delta_lost_race_conflict() {
	damaged_lake
	rerun_list
	head -n 4 rerun.csv | sed -n '1p;4p' >w2.csv
	assert_exit 3 env RECKON_TEST_FAULT="delta-commit-staged:run:$DELTAWRITE $LAKE remove 5" "$RECKON_FAULTS" repair --source "$(conn $SRC)" --target "delta:$LAKE" --table mart.orders \
		--key order_id,line_no \
		--time created_at --sum amount --rerun-list w2.csv --execute
	assert_contains "$ERR" "version 8 of Delta table"
	assert_contains "$ERR" "conflicts with this write: it removed $(file_of 6), which this write read"
	assert_contains "$ERR" "nothing was committed"
	assert_eq 9 "$(versions)"
	assert_contains "$LAKE/_delta_log/00000000000000000008.json" '"remove"'
	assert_exit 0 "$DELTACHECK" "$LAKE"
	# the other writer's removal fixed W2 already: nothing to commit
	assert_exit 0 drepair --rerun-list w2.csv --execute
	assert_contains "$OUT" "1 already matched"
	assert_eq 9 "$(versions)"
}

# Another writer removes a file the repair did not read: the repair's
# commit goes in at the next version, and the interval matches.
test_repair_delta_lost_race_retried() {
	damaged_lake
	rerun_list
	sed -n '1,2p' rerun.csv >w0.csv
	assert_exit 0 env RECKON_TEST_FAULT="delta-commit-staged:run:$DELTAWRITE $LAKE remove 5" "$RECKON_FAULTS" repair --source "$(conn $SRC)" --target "delta:$LAKE" --table mart.orders \
		--key order_id,line_no \
		--time created_at --sum amount --rerun-list w0.csv --execute
	assert_contains "$OUT" "committed version 9:"
	assert_eq 10 "$(versions)"
	assert_contains "$LAKE/_delta_log/00000000000000000008.json" '"remove"'
	assert_contains "$LAKE/_delta_log/00000000000000000009.json" '"operation":"MERGE"'
	assert_exit 0 "$DELTACHECK" "$LAKE"
	assert_exit 0 drepair --rerun-list w0.csv --execute
	assert_contains "$OUT" "1 already matched"
	assert_eq 10 "$(versions)"
}

test_repair_delta_refusals() {
	damaged_lake
	rerun_list
	assert_exit 2 drepair --rerun-list rerun.csv --interval-column created_at
	assert_contains "$ERR" "--interval-column on a Delta target needs --load-interval"
	assert_exit 2 drepair --rerun-list rerun.csv --interval-column nope --load-interval 1h
	assert_contains "$ERR" "interval column 'nope' does not exist in Delta table"
	assert_exit 2 rk repair --source "$(conn $SRC)" --target "delta:$T/nothing" --table mart.orders \
		--key order_id,line_no --time created_at --rerun-list rerun.csv
	assert_contains "$ERR" "does not exist"
	assert_eq 8 "$(versions)"
}
