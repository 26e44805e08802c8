# shellcheck shell=bash disable=SC2054
# History as evidence (docs/delta.md, "The history of a damaged window"): on
# a Delta side, check names per damaged window the table versions whose add
# actions put in files holding its rows (by the files' statistics of the
# time column) and those that removed them, with commitInfo's operation and
# time, in the text report, summary.json and report.html; the diagnosis
# weighs them (a gap no commit wrote, one a later commit removed, one a
# later commit rewrote).
#
# The tables are written by the tests' own writer (tests/harness/deltawrite.c,
# commit v's commitInfo time 2026-03-02T00:00:00Z plus v minutes), and one is
# Spark's (cdf-table of ../shared/data/delta, read in place).

SRC=dh_src
DELTAWRITE=$(dirname "$RECKON")/tests/rk-deltawrite
RANGE=(--from 2026-03-02T09:00:00Z --to 2026-03-02T12:00:00Z --window 1h --now 2026-03-03T00:00:00Z)
DUCKCOLS="{'id':'BIGINT','ts':'TIMESTAMPTZ','amount':'DECIMAL(12,2)'}"

setup_file() {
	[[ -x $DELTAWRITE ]] || fail "$DELTAWRITE is missing: make $(dirname "$RECKON")/tests/rk-deltawrite"
	createdb $SRC
	# four rows an hour in [09:00, 12:00), as a load's three runs read them
	sql $SRC "create table t (id bigint primary key, ts timestamptz not null, amount numeric(12,2) not null);
	          insert into t select g, timestamptz '2026-03-02 09:05+00' + (g - 1) * interval '15 minutes',
	                               g * 10.25 from generate_series(1, 12) g" >/dev/null
	PGOPTIONS="-c TimeZone=UTC -c DateStyle=ISO,YMD" export_csv $SRC "select id, ts, amount from t order by ts" "$RK_SCRATCH/src.csv"
}

# rows HOURS... - DuckDB SQL for the source's rows of those hours (9, 10, 11)
rows() {
	local hours
	hours=$(IFS=,; echo "$*")
	echo "SELECT * FROM read_csv('$RK_SCRATCH/src.csv', header = true, columns = $DUCKCOLS)
	      WHERE hour(ts) IN ($hours) ORDER BY ts"
}

# hcheck TARGET REPORT [OPTION...] - t against a Delta table
hcheck() {
	rk check --source "$(conn $SRC)" --target "$1" --table t --key id --time ts --sum amount "${RANGE[@]}" \
		--report "$2" "${@:3}"
}

# hist REPORT SIDE START JQ - a field of one window's history in summary.json
hist() {
	jget "$1/summary.json" ".history.$2.windows[] | select(.start == \"$3\") | $4"
}

# Run 2's write never committed: no version wrote [10:00, 11:00).
test_gap_no_commit_wrote() {
	"$DELTAWRITE" "$PWD/lake" create 1 "$(rows 9)" || fail "rk-deltawrite create failed"
	"$DELTAWRITE" "$PWD/lake" append WRITE "$(rows 11)" || fail "rk-deltawrite append failed"
	assert_exit 1 hcheck delta:lake rep
	assert_eq "match differ match" "$(statuses rep/windows.csv)"
	assert_contains "$OUT" "    target history, versions 0 to 1: no commit wrote rows of this window"
	assert_eq "unwritten" "$(hist rep target 2026-03-02T10:00:00Z .state)"
	assert_eq "0" "$(hist rep target 2026-03-02T10:00:00Z '.commits | length')"
	assert_eq "0" "$(hist rep target 2026-03-02T10:00:00Z .live_files)"
	assert_eq "1 2" "$(jget rep/summary.json '[.history.target.version, .history.target.commits_read] | join(" ")')"
	assert_eq "gap" "$(jget rep/summary.json '.diagnosis[0].pattern')"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].cause')" \
		"no commit of the target wrote these windows"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" \
		"the target's log (versions 0 to 1): 2026-03-02T10:00:00Z written by no commit"
	# a file added without statistics may hold any window's rows: said so,
	# and no cause is claimed from the log
	"$DELTAWRITE" "$PWD/lake" append WRITE "$(rows 11)" nostats || fail "rk-deltawrite append failed"
	assert_exit 1 hcheck delta:lake rep2
	assert_eq "unknown" "$(hist rep2 target 2026-03-02T10:00:00Z .state)"
	assert_eq "2 WRITE 2026-03-02T00:02:00Z 1 0" \
		"$(hist rep2 target 2026-03-02T10:00:00Z '.commits[0] | [.version, .operation, .timestamp,
		   .files_added_without_stats, .files_added] | join(" ")')"
	assert_contains "$OUT" "version 2 (WRITE, 2026-03-02T00:02:00Z) added 1 file without statistics of the time column"
	assert_contains "$(jget rep2/summary.json '.diagnosis[] | select(.pattern == "gap") | .cause')" \
		"its watermark was saved before its write"
}

# The window's file was written, then removed by a commit that wrote
# nothing back; another window rewritten without two of its rows.
test_gap_removed_and_rewritten() {
	"$DELTAWRITE" "$PWD/lake" create 3 "$(rows 9 10 11)" || fail "rk-deltawrite create failed"
	assert_exit 0 hcheck delta:lake clean
	assert_no_file clean/nothing
	assert_eq "null" "$(jq -c .history clean/summary.json)"
	"$DELTAWRITE" "$PWD/lake" remove 1 || fail "rk-deltawrite remove failed"
	assert_exit 1 hcheck delta:lake rep
	assert_eq "match differ match" "$(statuses rep/windows.csv)"
	assert_eq "removed" "$(hist rep target 2026-03-02T10:00:00Z .state)"
	assert_eq "0 WRITE 2026-03-02T00:00:00Z 1 0 4;1 DELETE 2026-03-02T00:01:00Z 0 1 0" \
		"$(hist rep target 2026-03-02T10:00:00Z '[.commits[] | [.version, .operation, .timestamp, .files_added,
		   .files_removed, (.rows_added | tostring)] | join(" ")] | join(";")')"
	assert_contains "$OUT" "    target history, versions 0 to 1: version 0 (WRITE, 2026-03-02T00:00:00Z) added 1 file \
(4 rows); version 1 (DELETE, 2026-03-02T00:01:00Z) removed 1 file; no file of version 1 holds rows of it"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].cause')" \
		"a later commit removed them without writing them back"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" \
		"written by version 0 (WRITE, 2026-03-02T00:00:00Z), then its files removed by version 1 (DELETE, \
2026-03-02T00:01:00Z), which wrote none back"
	# the version before the removal is whole: no history asked
	assert_exit 0 hcheck delta:lake@0 old
	# a MERGE of [11:00, 12:00) that read two rows fewer than the window held
	rm -rf lake
	"$DELTAWRITE" "$PWD/lake" create 3 "$(rows 9 10 11)" || fail "rk-deltawrite create failed"
	"$DELTAWRITE" "$PWD/lake" replace MERGE 2 "$(rows 11) LIMIT 2" || fail "rk-deltawrite replace failed"
	assert_exit 1 hcheck delta:lake rw
	assert_eq "match match differ" "$(statuses rw/windows.csv)"
	assert_eq "rewritten" "$(hist rw target 2026-03-02T11:00:00Z .state)"
	assert_eq "1 MERGE 1 1 2" "$(hist rw target 2026-03-02T11:00:00Z '.commits[1] | [.version, .operation,
		.files_added, .files_removed, .rows_added] | join(" ")')"
	assert_eq "1" "$(hist rw target 2026-03-02T11:00:00Z .live_files)"
	assert_contains "$(jget rw/summary.json '.diagnosis[0].cause')" \
		"a later commit rewrote these windows without these rows"
	assert_contains "$(jget rw/summary.json '.diagnosis[0].next_step')" "replaceWhere"
}

# An append retried after its write: two versions wrote the same rows.
test_repeat_names_both_versions() {
	"$DELTAWRITE" "$PWD/lake" create 2 "$(rows 9 10)" || fail "rk-deltawrite create failed"
	"$DELTAWRITE" "$PWD/lake" append WRITE "$(rows 10)" || fail "rk-deltawrite append failed"
	"$DELTAWRITE" "$PWD/lake" append WRITE "$(rows 11)" || fail "rk-deltawrite append failed"
	assert_exit 1 hcheck delta:lake rep
	assert_eq "match differ match" "$(statuses rep/windows.csv)"
	assert_eq "0 1" "$(hist rep target 2026-03-02T10:00:00Z '[.commits[].version] | join(" ")')"
	assert_eq "written" "$(hist rep target 2026-03-02T10:00:00Z .state)"
	assert_eq "2" "$(hist rep target 2026-03-02T10:00:00Z .live_files)"
	assert_eq "repeat" "$(jget rep/summary.json '.diagnosis[0].pattern')"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" \
		"written by version 0 (WRITE, 2026-03-02T00:00:00Z) and version 1 (WRITE, 2026-03-02T00:01:00Z)"
	# a Delta source: its log is named too, as the source's
	sql $SRC "create table u as table t; delete from u where ts >= '2026-03-02 10:00+00' and ts < '2026-03-02 11:00+00'" \
		>/dev/null
	assert_exit 1 rk check --source delta:lake --target "$(conn $SRC)" --table u --key id --time ts "${RANGE[@]}" \
		--report src
	assert_contains "$OUT" "    source history, versions 0 to 2: version 0 (WRITE, 2026-03-02T00:00:00Z) added 1 file"
	assert_eq "0 1" "$(hist src source 2026-03-02T10:00:00Z '[.commits[].version] | join(" ")')"
	assert_eq "null" "$(jq -c .history.target src/summary.json)"
	# a mapped time column: the statistics cannot place it, and the note says so
	assert_exit 1 hcheck delta:lake mapped --target-expr 'ts=ts + INTERVAL 0 SECOND'
	assert_contains "$(jget mapped/summary.json .history.target.note)" "the time column of target delta:lake"
	assert_contains "$OUT" "target history: not read: the time column of target delta:lake (version 2) is an expression"
}

# Spark's own commits (cdf-table: WRITE, two UPDATEs that moved rows to
# other partitions, a DELETE), against the rows of its version 0; the
# partition values of birthday place the files.
test_spark_table_history() {
	local dir
	for dir in "${RK_DELTA_TABLES:-}" "$RK_REPO/../shared/data/delta" "$RK_REPO/../../shared/data/delta"; do
		[[ -n $dir && -d $dir/cdf-table ]] && break
	done
	[[ -d $dir/cdf-table ]] || skip "the shared Delta tables (../shared/data/delta) are not here"
	printf '%s\n' id,name,birthday 1,Steve,2023-12-22 2,Bob,2023-12-23 3,Dave,2023-12-23 4,Kate,2023-12-23 \
		5,Emily,2023-12-24 6,Carl,2023-12-24 7,Dennis,2023-12-24 8,Claire,2023-12-25 9,Ada,2023-12-25 \
		10,Borb,2023-12-25 >v0.csv
	assert_exit 1 rk check --source csv:v0.csv --target "delta:$dir/cdf-table" --key id --time birthday --window 1d \
		--from 2023-12-22T00:00:00Z --to 2023-12-30T00:00:00Z --now 2024-02-01T00:00:00Z --report rep
	assert_eq "differ differ differ match match match match differ" "$(statuses rep/windows.csv)"
	assert_eq "0 WRITE 3 0;1 UPDATE 0 3" "$(hist rep target 2023-12-23T00:00:00Z '[.commits[] | [.version,
		.operation, .files_added, .files_removed] | join(" ")] | join(";")')"
	assert_eq "removed" "$(hist rep target 2023-12-23T00:00:00Z .state)"
	assert_eq "0 WRITE 2023-12-22T17:10:18.828000Z;2 UPDATE 2023-12-29T21:41:33.785000Z" \
		"$(hist rep target 2023-12-24T00:00:00Z '[.commits[] | [.version, .operation, .timestamp] | join(" ")] | join(";")')"
	assert_eq "2 UPDATE 3 0;3 DELETE 0 1" "$(hist rep target 2023-12-29T00:00:00Z '[.commits[] | [.version,
		.operation, .files_added, .files_removed] | join(" ")] | join(";")')"
	assert_eq "2" "$(hist rep target 2023-12-29T00:00:00Z .live_files)"
	assert_contains "$(jget rep/summary.json '.diagnosis[] | select(.pattern == "gap") | .cause')" \
		"a later commit removed them without writing them back"
	assert_contains "$(jget rep/summary.json '.diagnosis[] | select(.pattern == "gap") | .evidence')" \
		"then its files removed by version 2 (UPDATE, 2023-12-29T21:41:33.785000Z), which wrote none back"
}
