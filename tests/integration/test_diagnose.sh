# shellcheck shell=bash
# The diagnosis (docs/reference.md): every pattern placed by construction, alone
# and several in one table, with its exact windows and key counts; a real late
# commit (a second session holding its transaction open); the warnings exactly
# when they should appear; reckon lateness against SQL over the same rows.
#
# Late commits need track_commit_timestamp = on, which the suite's cluster
# does not have (a stock server's default): the cases that need it start a
# second, private cluster with it (cts_start, tests/integration/lib.sh).

DB=diag_db

# 48 rows, one every 10 minutes from 2026-03-02 00:00: six per 1h window.
# The target starts as an exact copy (no key: it may hold duplicates).
mk_pair() { # mk_pair DB [SOURCE_DDL_SUFFIX]
	createdb "$1"
	sql "$1" >/dev/null <<-SQL
		create table s (id int ${2-primary key}, ts timestamptz, v int);
		insert into s select g, '2026-03-02 00:00+00'::timestamptz + (g - 1) * interval '10 minutes', g
		from generate_series(1, 48) g;
		create table t (id int, ts timestamptz, v int);
		insert into t select * from s;
	SQL
}

W0=2026-03-02T00:00:00Z
W1=2026-03-02T01:00:00Z
W2=2026-03-02T02:00:00Z
W4=2026-03-02T04:00:00Z
W5=2026-03-02T05:00:00Z
W7=2026-03-02T07:00:00Z

check_pair() { # check_pair DB [OPTIONS...] - check into ./rep; exit status in $OUT etc.
	local db=$1
	shift
	rm -rf rep
	rk check --source "$(conn "$db")" --target "$(conn "$db")" --source-table s --target-table t --key id --time ts \
		--from $W0 --to 2026-03-02T08:00:00Z --window 1h --now 2026-03-03T00:00:00Z --report rep "$@"
}

# [[pattern, [windows], keys], ...] of rep/summary.json
causes() {
	jq -c '[.diagnosis[] | [.pattern, .windows, .keys]]' rep/summary.json
}

# every finding belongs to exactly one pattern
assert_all_findings_placed() {
	assert_eq "$(jq '[.findings[]] | add' rep/summary.json)" \
		"$(jq '[.diagnosis[] | select(.pattern != "null_time") | .findings] | add // 0' rep/summary.json)" \
		"findings placed in patterns"
}

# --- each pattern alone -----------------------------------------------------

test_gap_of_one_whole_window() {
	mk_pair $DB
	sql $DB "delete from t where id between 7 and 12"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"gap\",[\"$W1\"],6]]" "$(causes)"
	assert_all_findings_placed
	assert_contains "$OUT" "likely causes:"
	assert_contains "$OUT" "a run's rows never arrived"
	# without commit times, late commits are not claimed, and that is said
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" "late commits could not be examined"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" "track_commit_timestamp"
}

test_gap_across_a_window_boundary() {
	# 01:40 .. 02:10: the end of one window and the start of the next; the
	# rows around them (01:30, 02:20) are in the target
	mk_pair $DB
	sql $DB "delete from t where id between 11 and 14"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"gap\",[\"$W1\",\"$W2\"],4]]" "$(causes)"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" \
		"2026-03-02T01:40:00Z to 2026-03-02T02:10:00Z (4 rows)"
}

test_long_gap_over_seven_windows() {
	# 00:00 .. 06:30 lost: windows the target holds nothing of, and the
	# rows around one it holds
	mk_pair $DB
	sql $DB "delete from t where id <= 40"
	assert_exit 1 check_pair $DB
	assert_eq '[["gap",["2026-03-02T00:00:00Z","2026-03-02T01:00:00Z","2026-03-02T02:00:00Z","2026-03-02T03:00:00Z","2026-03-02T04:00:00Z","2026-03-02T05:00:00Z","2026-03-02T06:00:00Z"],40]]' \
		"$(causes)"
	# one row the target kept in the middle cuts it in two
	sql $DB "insert into t select * from s where id = 20"
	assert_exit 1 check_pair $DB
	assert_eq '[["gap",["2026-03-02T00:00:00Z","2026-03-02T01:00:00Z","2026-03-02T02:00:00Z","2026-03-02T03:00:00Z","2026-03-02T04:00:00Z","2026-03-02T05:00:00Z","2026-03-02T06:00:00Z"],39]]' \
		"$(causes)"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" \
		"2026-03-02T00:00:00Z to 2026-03-02T03:00:00Z (19 rows); 2026-03-02T03:20:00Z to 2026-03-02T06:30:00Z (20 rows)"
}

test_missing_rows_apart_are_no_gap() {
	# two lost rows with a row the target holds between them: no gap
	mk_pair $DB
	sql $DB "delete from t where id in (8, 10)"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"unclassified\",[\"$W1\"],2]]" "$(causes)"
	# one lost row alone is no gap either
	mk_pair $DB
	sql $DB "delete from t where id = 16"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"unclassified\",[\"$W2\"],1]]" "$(causes)"
	assert_contains "$OUT" "no known pattern explains these findings"
}

test_repeat() {
	mk_pair $DB
	sql $DB "insert into t select * from s where id between 13 and 18"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"repeat\",[\"$W2\"],6]]" "$(causes)"
	assert_contains "$OUT" "an append retried after its write"
}

test_boundary() {
	mk_pair $DB
	sql $DB "insert into t select * from s where id = 25"   # 04:00, a boundary
	assert_exit 1 check_pair $DB
	assert_eq "[[\"boundary\",[\"$W4\"],1]]" "$(causes)"
	# a lost row alone on a boundary: an exclusive start skipped it
	mk_pair $DB
	sql $DB "delete from t where id = 31"                    # 05:00
	assert_exit 1 check_pair $DB
	assert_eq "[[\"boundary\",[\"$W5\"],1]]" "$(causes)"
	assert_contains "$OUT" "an interval load with an exclusive start (time > start) skipped the rows exactly on the boundary"
	assert_contains "$OUT" "e.g. 31 at 2026-03-02T05:00:00Z, not in the target"
}

# A duplicated row off the boundaries, alone, its copies alike: a retried
# insert (a repeat of one row); copies that differ fit nothing.
test_single_retried_insert() {
	mk_pair $DB
	sql $DB "insert into t select * from s where id = 26"   # 04:10
	assert_exit 1 check_pair $DB
	assert_eq "[[\"repeat\",[\"$W4\"],1]]" "$(causes)"
	assert_contains "$OUT" "an insert was retried after its write had committed"
	assert_contains "$OUT" "e.g. 26 at 2026-03-02T04:10:00Z, 2 alike copies in the target"
	mk_pair $DB
	sql $DB "insert into t select id, ts, v + 1 from s where id = 26"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"unclassified\",[\"$W4\"],1]]" "$(causes)"
}

# A row deleted at the source stays in the target: the source holds the key
# nowhere, in the range or outside it (looked up by key).
test_deleted_at_source() {
	mk_pair $DB
	sql $DB "delete from s where id = 20"                    # 03:10
	assert_exit 1 check_pair $DB
	assert_eq "[[\"deleted_at_source\",[\"2026-03-02T03:00:00Z\"],1]]" "$(causes)"
	assert_contains "$OUT" "e.g. 20 at 2026-03-02T03:10:00Z in the target, nowhere in the source"
	assert_all_findings_placed
	# without a unique index backing the key the lookup would be a scan of
	# the whole source: not done, so no delete is claimed
	mk_pair $DB ""
	sql $DB "delete from s where id = 20"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"unclassified\",[\"2026-03-02T03:00:00Z\"],1]]" "$(causes)"
	# a key the source holds past the range is no delete: a stale copy
	mk_pair $DB
	sql $DB "update s set ts = '2026-03-02 09:30+00' where id = 20"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"moved\",[\"2026-03-02T03:00:00Z\"],1]]" "$(causes)"
	assert_contains "$OUT" "the source's row now at 2026-03-02T09:30:00Z"
}

# An update loaded by append: the target holds the new version where it
# belongs and the old one too - the new one in the checked range, or past it
# (looked up by key on the target).
test_appended_update() {
	mk_pair $DB
	sql $DB "update s set ts = ts + interval '3 hours', v = v + 100 where id = 8;  -- 01:10 -> 04:10
	         insert into t select * from s where id = 8" >/dev/null
	assert_exit 1 check_pair $DB
	assert_eq "[[\"appended_update\",[\"$W1\"],1]]" "$(causes)"
	assert_contains "$OUT" "e.g. 8: the target's old copy at 2026-03-02T01:10:00Z, the source's row and the target's new copy at 2026-03-02T04:10:00Z"
	mk_pair $DB
	sql $DB "update s set ts = '2026-03-02 09:30+00', v = 0 where id = 45;  -- 07:20 -> past the range
	         insert into t select * from s where id = 45" >/dev/null
	assert_exit 1 check_pair $DB
	assert_eq "[[\"appended_update\",[\"$W7\"],1]]" "$(causes)"
	assert_all_findings_placed
	# moved to an earlier window, the target kept the old copy only: the
	# source's row is where the target misses it, so no appended update
	mk_pair $DB
	sql $DB "update s set ts = ts - interval '3 hours' where id = 26" >/dev/null  # 04:10 -> 01:10
	assert_exit 1 check_pair $DB
	assert_not_contains "$(causes)" appended_update
	assert_all_findings_placed
}

test_moved() {
	mk_pair $DB
	# the source row moved from 05:30 to 07:35; the target kept its old copy
	sql $DB "update s set ts = '2026-03-02 07:35+00' where id = 34"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"moved\",[\"$W5\",\"$W7\"],1]]" "$(causes)"
	assert_eq 2 "$(jget rep/summary.json '.diagnosis[0].findings')"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" \
		"34: the target's copy at 2026-03-02T05:30:00Z, the source's row now at 2026-03-02T07:35:00Z"
}

test_unbumped_update() {
	mk_pair $DB
	sql $DB "update s set v = 999 where id = 30"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"unbumped_update\",[\"$W4\"],1]]" "$(causes)"
	# a change that moved the time within the window is not unbumped
	mk_pair $DB
	sql $DB "update s set v = 999, ts = ts + interval '1 minute' where id = 30"
	assert_exit 1 check_pair $DB
	assert_eq "[[\"unclassified\",[\"$W4\"],1]]" "$(causes)"
}

test_source_duplicate() {
	mk_pair $DB ""
	sql $DB "insert into s values (40, '2026-03-02 06:30+00', 40)"   # id 40 twice, once in the target
	assert_exit 1 check_pair $DB
	assert_eq '[["source_duplicate",["2026-03-02T06:00:00Z"],1]]' "$(causes)"
	assert_all_findings_placed
}

test_null_time() {
	mk_pair $DB
	sql $DB "insert into s values (100, null, 100)"
	assert_exit 1 check_pair $DB
	assert_eq '[["null_time",[],1]]' "$(causes)"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" \
		"the source has 1 and the target 0 rows whose time is NULL"
}

# A gap and a repeat that cover part of a window, among rows one second
# apart: the drilldown narrows the damaged slices of 56 rows into pieces and
# leaves, streamed and in the database, and what it saw on the way (pieces
# and rows the target holds) tells the runs from scattered losses.
test_gap_and_repeat_in_part_of_a_window() {
	local dense=diag_dense
	createdb $dense
	ext_create $dense
	sql $dense >/dev/null <<-SQL
		create table s (id int primary key, ts timestamptz, v int);
		insert into s select g, '2026-03-02 00:00+00'::timestamptz + g * interval '1 second', g
		from generate_series(0, 28799) g;
		create table t (id int, ts timestamptz, v int);
		insert into t select * from s;
		delete from t where id between 4200 and 4699;                        -- gap: 01:10:00 .. 01:18:19
		insert into t select * from s where id between 12000 and 12199;      -- repeat: 03:20:00 .. 03:23:19
		delete from t where id in (19000, 19002);                            -- apart: 05:16:40, 05:16:42
	SQL
	local want="[[\"gap\",[\"$W1\"],500],[\"repeat\",[\"2026-03-02T03:00:00Z\"],200],[\"unclassified\",[\"$W5\"],2]]"
	assert_exit 1 check_pair $dense --leaf-rows 10
	assert_eq "$want" "$(causes)"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" \
		"2026-03-02T01:10:00Z to 2026-03-02T01:18:19Z (500 rows)"
	assert_exit 1 check_pair $dense --leaf-rows 10 --pushdown -v
	assert_contains "$ERR" "source: the drilldown narrows the damage in the database"
	assert_eq "$want" "$(causes)"
	assert_exit 1 check_pair $dense --pushdown
	assert_eq "$want" "$(causes)"
	assert_all_findings_placed
}

# --- several at once --------------------------------------------------------

test_several_patterns_in_one_table() {
	mk_pair $DB
	sql $DB >/dev/null <<-SQL
		delete from t where id between 7 and 12;                         -- gap, 01:00
		insert into t select * from s where id between 13 and 18;        -- repeat, 02:00
		insert into t select * from s where id = 25;                     -- boundary, 04:00
		update s set v = 999 where id = 30;                              -- unbumped, 04:50
		update s set ts = '2026-03-02 07:35+00' where id = 34;           -- moved, 05:30 -> 07:35
		delete from t where id = 45;                                     -- alone, 07:20
	SQL
	assert_exit 1 check_pair $DB
	assert_eq "[[\"boundary\",[\"$W4\"],1],[\"moved\",[\"$W5\",\"$W7\"],1],[\"unbumped_update\",[\"$W4\"],1],[\"gap\",[\"$W1\"],6],[\"repeat\",[\"$W2\"],6],[\"unclassified\",[\"$W7\"],1]]" \
		"$(causes)"
	assert_all_findings_placed
	# the text output says the same, under the damage
	assert_match "$(sed -n '/^likely causes:/,$p' "$OUT" | grep -E '^  [a-z_]+ ' | awk '{print $1 ":" $2}' | tr '\n' ' ')" \
		'^boundary:1 moved:1 unbumped_update:1 gap:6 repeat:6 unclassified:1 $'
	# the diagnosis never changes the verdict or the rerun list
	assert_eq differ "$(jget rep/summary.json .verdict)"
	assert_eq 5 "$(jget rep/summary.json '.rerun | length')"
}

test_no_diagnosis_when_everything_matches() {
	mk_pair $DB
	assert_exit 0 check_pair $DB
	assert_eq '[]' "$(causes)"
	assert_eq '[]' "$(jq -c .warnings rep/summary.json)"
	assert_not_contains "$OUT" "likely causes:"
	assert_not_contains "$OUT" "warnings"
}

test_diagnose_off_switch() {
	mk_pair $DB
	sql $DB "delete from t where id between 7 and 12"
	RECKON_DIAGNOSE=off assert_exit 1 check_pair $DB
	assert_eq null "$(jq -c .diagnosis rep/summary.json)"
	assert_not_contains "$OUT" "likely causes:"
}

# --- warnings ---------------------------------------------------------------

test_warning_key_not_unique() {
	mk_pair $DB ""
	assert_exit 0 check_pair $DB
	assert_eq '["key_not_unique"]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
	assert_contains "$OUT" "no primary key or unique index of the source makes the key (id) unique"
	# a unique index on the key is as good as a primary key ...
	sql $DB "create unique index on s (id)"
	assert_exit 0 check_pair $DB
	assert_eq '[]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
	# ... a partial one is not
	sql $DB "drop index s_id_idx; create unique index on s (id) where v > 0"
	assert_exit 0 check_pair $DB
	assert_eq '["key_not_unique"]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
	# a unique index on part of a composite key makes the whole key unique
	assert_exit 0 check_pair $DB --key id,v
	assert_eq '["key_not_unique"]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
	sql $DB "drop index s_id_idx; create unique index on s (id)"
	assert_exit 0 check_pair $DB --key id,v
	assert_eq '[]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
}

# The key followed through a mapping (README's dim_customer: the target's
# id is the source's customer_id): the source's primary key backs it; a
# computed key is backed by nothing reckon can see.
test_warning_key_not_unique_through_a_mapping() {
	createdb diag_map
	sql diag_map >/dev/null <<-SQL
		create table s (customer_id int primary key, ts timestamptz, v int);
		insert into s select g, '2026-03-02 00:00+00'::timestamptz + g * interval '10 minutes', g
		from generate_series(1, 40) g;
		create table t (id int primary key, ts timestamptz, v int);
		insert into t select * from s;
	SQL
	rm -rf rep
	assert_exit 0 rk check --source "$(conn diag_map)" --target "$(conn diag_map)" --source-table s --target-table t \
		--time ts --source-expr id=customer_id --from $W0 --to 2026-03-02T08:00:00Z --window 1h \
		--now 2026-03-03T00:00:00Z --report rep
	assert_eq '[]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
	rm -rf rep
	assert_exit 0 rk check --source "$(conn diag_map)" --target "$(conn diag_map)" --source-table s --target-table t \
		--time ts --source-expr 'id=customer_id + 0' --from $W0 --to 2026-03-02T08:00:00Z --window 1h \
		--now 2026-03-03T00:00:00Z --report rep
	assert_eq '["key_not_unique"]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
}

# open_session DB - a psql session that begins a transaction, takes an xid
# and stays open until close_session; its pid in $SESSION_PID
open_session() {
	mkfifo session.in
	"$RK_PGBIN/psql" -X -q -d "$1" <session.in >session.out 2>&1 &
	SESSION_PSQL=$!
	exec 7>session.in
	echo "begin; select txid_current(); select pg_backend_pid() as reckon_test_session;" >&7
	local _
	for _ in $(seq 1 100); do
		SESSION_PID=$(sql postgres "select pid from pg_stat_activity where state = 'idle in transaction'
		                            and datname = '$1' and backend_xid is not null" | head -n 1)
		[[ -n $SESSION_PID ]] && return 0
		sleep 0.1
	done
	fail "the open session did not start"
}

close_session() {
	echo "commit;" >&7
	exec 7>&-
	wait "$SESSION_PSQL"
}

test_warning_open_transaction() {
	mk_pair $DB
	open_session $DB
	# the session's transaction began before the end of the newest closed
	# window (the clock says it is a day later): rows it writes may land there
	assert_exit 0 rk check --source "$(conn $DB)" --target "$(conn $DB)" --source-table s --target-table t \
		--key id --time ts --last 2h --window 1h --now "$(date -u -d '+1 day' +%Y-%m-%dT%H:%M:%SZ)" --report rep
	assert_eq '["open_transaction"]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
	assert_contains "$(jget rep/summary.json '.warnings[0].message')" "session $SESSION_PID"
	assert_contains "$OUT" "rows it writes may still land in windows just judged"
	assert_eq match "$(jget rep/summary.json .verdict)"
	# a window that closed before the transaction began: nothing to warn of
	assert_exit 0 check_pair $DB
	assert_eq '[]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
	close_session
	assert_exit 0 rk check --source "$(conn $DB)" --target "$(conn $DB)" --source-table s --target-table t \
		--key id --time ts --last 2h --window 1h --now "$(date -u -d '+1 day' +%Y-%m-%dT%H:%M:%SZ)" --report rep
	assert_eq '[]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
}

test_warning_sessions_hidden_without_pg_read_all_stats() {
	mk_pair $DB
	sql $DB "drop role if exists diag_plain; create role diag_plain login; grant select on s, t to diag_plain"
	assert_exit 0 rk check --source "$(conn $DB) user=diag_plain" --target "$(conn $DB)" --source-table s \
		--target-table t --key id --time ts --from $W0 --to 2026-03-02T08:00:00Z --window 1h \
		--now 2026-03-03T00:00:00Z --report rep
	assert_eq '["sessions_hidden"]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
	assert_contains "$OUT" "pg_read_all_stats"
	sql $DB "grant pg_read_all_stats to diag_plain"
	assert_exit 0 rk check --source "$(conn $DB) user=diag_plain" --target "$(conn $DB)" --source-table s \
		--target-table t --key id --time ts --from $W0 --to 2026-03-02T08:00:00Z --window 1h \
		--now 2026-03-03T00:00:00Z --report rep
	assert_eq '[]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
	sql $DB "drop owned by diag_plain; drop role diag_plain"
}

# --- late commits and lateness: a cluster that keeps commit times ------------

test_late_commit_of_a_real_session() {
	cts_start
	ccreatedb $DB
	csql $DB "create table s (id int primary key, ts timestamptz, v int); create table t (like s)"
	# rows stamped with the time they are written, committed at once
	csql $DB "insert into s select g, clock_timestamp(), g from generate_series(1, 20) g"
	csql $DB "insert into t select * from s"
	# a row written now by a session that holds its transaction open for 3 s,
	# and one that commits at once; neither reaches the target
	PGHOST=$CTS_HOST PGPORT=$CTS_PORT "$RK_PGBIN/psql" -X -q -d $DB \
		-c "begin" -c "insert into s values (100, clock_timestamp(), 100)" -c "select pg_sleep(3)" -c "commit" &
	local late=$!
	sleep 1
	csql $DB "insert into s values (101, clock_timestamp(), 101)"
	wait $late
	local from to now truth
	from=$(date -u -d '-2 hour' +%Y-%m-%dT%H:00:00Z)
	to=$(date -u -d '+2 hour' +%Y-%m-%dT%H:00:00Z)
	now=$(date -u -d '+3 hour' +%Y-%m-%dT%H:00:00Z)
	assert_exit 1 rk check --source "$(cconn $DB)" --target "$(cconn $DB)" --source-table s --target-table t \
		--key id --time ts --from "$from" --to "$to" --window 1h --now "$now" --settle 1s --report rep
	assert_eq '["late_commit","unclassified"]' "$(jq -c '[.diagnosis[].pattern]' rep/summary.json)"
	assert_eq 1 "$(jget rep/summary.json '.diagnosis[0].keys')"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" "e.g. 100 (time "
	assert_eq 1 "$(jget rep/summary.json '.diagnosis[1].keys')"
	assert_contains "$(jget rep/summary.json '.diagnosis[1].evidence')" "101 (missing)"
	assert_not_contains "$(jget rep/summary.json '.diagnosis[1].evidence')" "could not be examined"
	# the lag within a second of the truth, and the truth about 3 s
	truth=$(csql $DB "select extract(epoch from pg_xact_commit_timestamp(xmin) - ts) from s where id = 100")
	assert_match "$truth" '^[3-9]\.' "the late row's true lag"
	assert_eq ok "$(jq -r --argjson truth "$truth" \
		'.diagnosis[0].max_lag_seconds - $truth | if fabs < 1 then "ok" else tostring end' rep/summary.json)"
	assert_contains "$OUT" "late_commit      1 key"
}

# A missing row that committed at once is no late commit, even when the
# source holds its key a second time, in another window, written later: its
# own row's commit time is read (within the span of its source copies), not
# the key's latest anywhere.
test_late_commit_reads_the_missing_row_not_its_key_elsewhere() {
	cts_start
	ccreatedb $DB
	csql $DB "create table s (id int, ts timestamptz, v int); create table t (like s)"
	csql $DB "insert into s select g, clock_timestamp(), g from generate_series(1, 20) g"
	csql $DB "insert into t select * from s"
	# 200 committed at once and never loaded; 2 s later 200 once more, an hour
	# earlier in time, and loaded
	csql $DB "insert into s values (200, clock_timestamp(), 200)"
	sleep 2
	csql $DB "insert into s values (200, clock_timestamp() - interval '1 hour', 201)"
	csql $DB "insert into t select * from s where v = 201"
	local from to now
	from=$(date -u -d '-3 hour' +%Y-%m-%dT%H:00:00Z)
	to=$(date -u -d '+2 hour' +%Y-%m-%dT%H:00:00Z)
	now=$(date -u -d '+3 hour' +%Y-%m-%dT%H:00:00Z)
	assert_exit 1 rk check --source "$(cconn $DB)" --target "$(cconn $DB)" --source-table s --target-table t \
		--key id --time ts --from "$from" --to "$to" --window 1h --now "$now" --settle 1s --report rep
	assert_eq '[["unclassified",1]]' "$(jq -c '[.diagnosis[] | [.pattern, .keys]]' rep/summary.json)"
	assert_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" "200 (missing)"
	assert_not_contains "$(jget rep/summary.json '.diagnosis[0].evidence')" "could not be examined"
	assert_eq '["key_not_unique"]' "$(jq -c '[.warnings[].kind]' rep/summary.json)"
}

# The demo's damaged day on a source that keeps commit times: every row was
# written today and stamped in March, so each missing row committed months
# "late"; but the one transaction that wrote them also wrote the rows
# just before them in time, which arrived: the load read it, and the
# rows are what the other patterns say (with why they are no late commit),
# or, alone, a partial_transaction.  A row written by a transaction of its
# own is the one late commit.
test_late_commit_refuted_by_rows_its_transaction_wrote() {
	cts_start
	PGHOST=$CTS_HOST PGPORT=$CTS_PORT bash "$RK_REPO/tests/harness/demo-data.sh"
	# 07:12, alone in its window, not on a boundary
	csql demo_target "delete from mart.orders where (order_id, line_no) = (1030, 1)" >/dev/null
	csql demo_source "insert into mart.orders values (2000, 1, '2026-03-02 09:30:00+00', 5.00, 'customer-x')" >/dev/null
	assert_exit 1 rk check --source "$(cconn demo_source)" --target "$(cconn demo_target)" --table mart.orders \
		--time created_at --sum amount --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h \
		--now 2026-03-03T06:00:00Z --report rep
	assert_eq '[["late_commit",1],["boundary",1],["unbumped_update",1],["gap",2],["repeat",1],["partial_transaction",1]]' \
		"$(jq -c '[.diagnosis[] | [.pattern, .keys]]' rep/summary.json)"
	assert_all_findings_placed
	assert_contains "$(jq -r '.diagnosis[0].evidence' rep/summary.json)" "e.g. (2000, 1) (time 2026-03-02T09:30:00Z"
	local ev
	for ev in "$(jq -r '.diagnosis[1].evidence' rep/summary.json)" "$(jq -r '.diagnosis[3].evidence' rep/summary.json)"; do
		assert_match "$ev" "\(no late commits?, though committed up to [0-9]+d.* after (its|their) time: (its|their) transactions? also wrote rows just before (it|them) in time that arrived\)"
	done
	ev=$(jq -r '.diagnosis[5].evidence' rep/summary.json)
	assert_contains "$ev" "1 missing row committed up to "
	assert_contains "$ev" "but its transaction also wrote rows just before it in time that arrived: the load read that transaction after the commit, so no late commit: e.g. (1030, 1) (time 2026-03-02T07:12:00Z"
	assert_contains "$(jq -r '.diagnosis[5].next_step' rep/summary.json)" "rejected rows or error log"
	assert_match "$(jq -r '.diagnosis[5].max_lag_seconds' rep/summary.json)" '^[0-9]+(\.[0-9]+)?$'
	assert_contains "$OUT" "partial_transaction 1 key  in windows starting 2026-03-02T07:00:00Z"
	assert_contains "$OUT" "so no late commit: e.g. (1030, 1)"
	assert_contains rep/report.html "partial_transaction"
	assert_contains rep/report.html "so no late commit: e.g. (1030, 1)"
}

# cseq_scans DB - sequential scans of table s in DB on the commit-times
# cluster so far, once reckon's sessions have ended (a session's counts
# reach the statistics as it ends)
cseq_scans() {
	local i
	for ((i = 0; i < 200; i++)); do
		[[ $(csql "$1" "select count(*) from pg_stat_activity where application_name = 'reckon'") == 0 ]] && break
		sleep 0.05
	done
	csql "$1" "select seq_scan from pg_stat_user_tables where relname = 's'"
}

# three_lost_without_a_key_index DB - on the commit-times cluster, table s
# (8 hours of a row a second, an index on ts but none on the key id) and t,
# the same less 3 rows
three_lost_without_a_key_index() {
	ccreatedb "$1"
	csql "$1" >/dev/null <<-SQL
		create table s (id int, ts timestamptz, v int);
		insert into s select g, '2026-03-02 00:00+00'::timestamptz + g * interval '1 second', g
		from generate_series(0, 28799) g;
		create index on s (ts);
		create table t as select * from s;
		delete from t where id in (5000, 15000, 25000);
		analyze s;
		analyze t;
	SQL
}

# The missing keys' commit times are read without a scan of the source
# table, also when no index serves the key: each key is looked up within
# its rows' time span, by the time column's index.
test_commit_times_need_no_scan_without_a_key_index() {
	cts_start
	three_lost_without_a_key_index $DB
	local a b c
	a=$(cseq_scans $DB)
	RECKON_DIAGNOSE=off assert_exit 1 rk check --source "$(cconn $DB)" --target "$(cconn $DB)" --source-table s \
		--target-table t --key id --time ts --from $W0 --to 2026-03-02T08:00:00Z --window 1h --now 2026-03-03T00:00:00Z
	b=$(cseq_scans $DB)
	assert_exit 1 rk check --source "$(cconn $DB)" --target "$(cconn $DB)" --source-table s --target-table t \
		--key id --time ts --from $W0 --to 2026-03-02T08:00:00Z --window 1h --now 2026-03-03T00:00:00Z --report rep
	c=$(cseq_scans $DB)
	# (written today, stamped in March: late by months; but the one
	# transaction wrote the rows before them too, which arrived: asked by
	# the time index too)
	assert_eq '[["partial_transaction",3]]' "$(jq -c '[.diagnosis[] | [.pattern, .keys]]' rep/summary.json)"
	assert_eq "$((b - a))" "$((c - b))" "sequential scans of the source without and with the diagnosis"
}

# The commit-times statement is not compiled (JIT) when no index serves the
# key: its planner settings make it look costly (a span per key it cannot
# know, enable_seqscan off), and compiling it took 20 to 40 ms at 5M rows for
# a statement that reads a few rows.  Here every statement that costs
# anything would be compiled (jit_above_cost = 0), and auto_explain shows
# which were.
test_commit_times_are_not_compiled() {
	cts_start
	[[ $(csql postgres "select pg_jit_available()") == t ]] || skip "this server cannot compile statements (no JIT)"
	three_lost_without_a_key_index $DB
	local log=$RK_SCRATCH/cts/log/postgres.log at
	at=$(stat -c %s "$log")
	PGOPTIONS="-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 -c jit_above_cost=0" \
		assert_exit 1 rk check --source "$(cconn $DB)" --target "$(cconn $DB)" --source-table s --target-table t \
		--key id --time ts --from $W0 --to 2026-03-02T08:00:00Z --window 1h --now 2026-03-03T00:00:00Z --report rep
	# the log's entries (each opens with its time) that are the plans of the
	# commit-times statement, and how many of them were compiled
	tail -c +"$((at + 1))" "$log" | awk '
		/^[0-9][0-9][0-9][0-9]-/ { if (e ~ /Query Text: -- The commit time of the transaction/) { n++; j += e ~ /JIT:/ } e = "" }
		{ e = e $0 "\n" }
		END { if (e ~ /Query Text: -- The commit time of the transaction/) { n++; j += e ~ /JIT:/ } print n + 0, j + 0 }' >plans
	assert_eq "1 0" "$(cat plans)" "commit-times statements run, compiled"
	# the rest were: the setting reached the server
	assert_contains "$(tail -c +"$((at + 1))" "$log")" "JIT:"
}

test_lateness_matches_sql_over_the_same_rows() {
	cts_start
	ccreatedb $DB
	csql $DB "create table s (id int primary key, ts timestamptz, v int, keep bool default true)"
	# lags of 0 .. 30 minutes, spread over three hours ending now
	csql $DB "insert into s select g, clock_timestamp() - (g % 31) * interval '1 minute' - (g % 3) * interval '1 hour',
	          g from generate_series(1, 300) g"
	csql $DB "insert into s select g, clock_timestamp() - interval '5 seconds', g from generate_series(301, 310) g"
	csql $DB "update s set keep = false where id % 7 = 0"
	local from to
	from=$(date -u -d '-4 hour' +%Y-%m-%dT%H:00:00Z)
	to=$(date -u -d '+1 hour' +%Y-%m-%dT%H:00:00Z)
	assert_exit 0 rk lateness --source "$(cconn $DB)" --table s --time ts --source-where keep --from "$from" \
		--to "$to" --window 1h --settle 15m --format json
	cp "$OUT" late.json
	local rows="ts >= '$from' and ts < '$to' and keep"
	local lag="extract(epoch from pg_xact_commit_timestamp(xmin) - ts)"
	assert_eq "$(csql $DB "select count(*) from s where $rows")" "$(jget late.json .rows)" "rows"
	assert_eq 0 "$(jget late.json .unknown_commit_time)"
	local q p want got
	for q in 0.5:p50 0.9:p90 0.99:p99 0.999:p999; do
		p=${q%%:*}
		want=$(csql $DB "select percentile_disc($p) within group (order by $lag) from s where $rows")
		got=$(jget late.json ".lag_seconds.${q##*:}")
		assert_eq ok "$(awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; print (d < 1e-6 && d > -1e-6) ? "ok" : a " vs " b }')" \
			"${q##*:}"
	done
	want=$(csql $DB "select max($lag) from s where $rows")
	assert_eq ok "$(awk -v a="$want" -v b="$(jget late.json .lag_seconds.max)" 'BEGIN { d = a - b; print (d < 1e-6 && d > -1e-6) ? "ok" : a " vs " b }')"
	assert_eq ok "$(awk -v a="$want" -v b="$(jget late.json .covering_margin_seconds)" 'BEGIN { d = a - b; print (d < 1e-6 && d > -1e-6) ? "ok" : a " vs " b }')"
	assert_eq "$(csql $DB "select count(*) filter (where $lag > 0)::text || ' ' || count(*) filter (where $lag > 60)
	                       || ' ' || count(*) filter (where $lag > 600) || ' ' || count(*) filter (where $lag > 900)
	                       from s where $rows")" \
		"$(jq -r '[.missed["0s"], .missed["1m"], .missed["10m"], .missed["15m"]] | map(tostring) | join(" ")' late.json)" \
		"missed at 0s, 1m, 10m, 15m"
	# per window: rows and the largest lag
	assert_eq "$(csql $DB "select string_agg(n::text, ' ' order by w) from (select w, count(s.id) n
	                        from generate_series('$from'::timestamptz, '$to'::timestamptz - interval '1 hour',
	                        interval '1 hour') w left join s on s.ts >= w and s.ts < w + interval '1 hour' and keep
	                        group by w) x")" \
		"$(jq -r '[.windows[].rows | tostring] | join(" ")' late.json)" "rows per window"
	assert_eq 5 "$(jget late.json '.windows | length')"
	# the text form says the same margin
	assert_exit 0 rk lateness --source "$(cconn $DB)" --table s --time ts --source-where keep --from "$from" \
		--to "$to" --window 1h
	assert_contains "$OUT" "the smallest margin that covers every row seen"
	# ... and suggests it as a duration --settle takes, which misses no row
	local sugg
	sugg=$(sed -n 's/.*(e\.g\. --settle \([0-9dhms]*\))$/\1/p' "$OUT")
	assert_match "$sugg" '^([0-9]+[dhms])+$'
	assert_exit 0 rk lateness --source "$(cconn $DB)" --table s --time ts --source-where keep --from "$from" \
		--to "$to" --window 1h --settle "$sugg"
	assert_match "$(grep '^rows a load would have read' "$OUT")" ", $sugg 0\$"
}

test_lateness_needs_track_commit_timestamp() {
	mk_pair $DB
	assert_exit 2 rk lateness --source "$(conn $DB)" --table s --time ts --from $W0 --to 2026-03-02T08:00:00Z
	assert_contains "$ERR" "track_commit_timestamp is off"
	assert_contains "$ERR" "track_commit_timestamp = on"
	assert_exit 2 rk lateness --source "$(conn $DB)" --table s --time ts --from $W0 --to 2026-03-02T07:30:00Z
	assert_contains "$ERR" "whole number"
	assert_exit 2 rk lateness --source "$(conn $DB)" --time ts --last 1d
	assert_contains "$ERR" "--table"
}

# On the commit-times cluster: s, 8 hours of a row a second written by one
# transaction (one statement), and its copies short and long, which lost a
# gap of 250 and of 2000 of those rows.
mk_gap_tables() {
	cts_start
	ccreatedb $DB
	csql $DB >/dev/null <<-SQL
		create table s (id int primary key, ts timestamptz, v int);
		insert into s select g, '2026-03-02 00:00+00'::timestamptz + g * interval '1 second', g
		from generate_series(0, 28799) g;
		create index on s (ts);
		create table short as select * from s where id not between 10001 and 10250;
		create table long as select * from s where id not between 10001 and 12000;
		analyze s;
		analyze short;
		analyze long;
	SQL
}

# cg_diagnosis DB TARGET - the instructions of reckon's diagnosis (callgrind,
# rk_keys_run and rk_diagnose_run inclusive: counted, not timed) in a check
# of table s against TARGET on the commit-times cluster
cg_diagnosis() {
	local st=0
	valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=rk_keys_run \
		--toggle-collect=rk_diagnose_run "$RECKON" check --source "$(cconn "$1")" --target "$(cconn "$1")" \
		--source-table s --target-table "$2" --key id --time ts --from $W0 --to 2026-03-02T08:00:00Z --window 1h \
		--now 2026-03-03T00:00:00Z --report "rep-$2" >/dev/null 2>"cg-$2.err" || st=$?
	[[ $st -eq 1 ]] || { cat "cg-$2.err" >&2; return 1; }
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "cg-$2.err" | tail -n 1
}

# A gap of rows one transaction wrote (all late commits to be checked
# against that transaction's other rows) costs the diagnosis in proportion
# to its rows: a gap 8 times as long at most 12 times the instructions (a
# cost per row and a sort: about 8).  Each lost row once looked at every
# finding: 2000 lost rows took 67,000 instructions each, and this ratio
# was over 20.
test_diagnosis_of_a_gap_grows_with_its_rows_not_their_square() {
	command -v valgrind >/dev/null || skip "valgrind is missing (apt-get install valgrind): instructions are counted by callgrind"
	# ASan's runtime must come first and its shadow memory clashes with
	# valgrind's: the plain pass counts, the sanitized one cannot
	! ldd "$RECKON" | grep -q libasan || skip "reckon is built with AddressSanitizer, which valgrind cannot run"
	mk_gap_tables
	local a b
	a=$(cg_diagnosis $DB short)
	b=$(cg_diagnosis $DB long)
	assert_eq '[["gap",250]]' "$(jq -c '[.diagnosis[] | [.pattern, .keys]]' rep-short/summary.json)"
	assert_eq '[["gap",2000]]' "$(jq -c '[.diagnosis[] | [.pattern, .keys]]' rep-long/summary.json)"
	[[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ && $a -gt 0 ]] || fail "no instruction counts: '$a' '$b'"
	echo "diagnosis of 250 lost rows: $a instructions, of 2000: $b ($((b * 100 / a))% of the short one's)"
	[[ $((b)) -le $((12 * a)) ]] || fail "the diagnosis of 2000 lost rows took $b instructions, more than 12 times the $a of 250"
}

# The rows the source's server reads for table s in a check of s against
# TARGET on the commit-times cluster (pg_stat_user_tables: tuples fetched by
# index and read by scans; reckon's sessions have ended, so their counts are
# in): counted, not timed.
tuples_read() {
	local q="select coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0) from pg_stat_user_tables where relname = 's'"
	local before after
	sessions_gone
	before=$(csql $DB "$q")
	assert_exit 1 rk check --source "$(cconn $DB)" --target "$(cconn $DB)" --source-table s --target-table "$1" \
		--key id --time ts --from $W0 --to 2026-03-02T08:00:00Z --window 1h --now 2026-03-03T00:00:00Z --report "rep-$1"
	sessions_gone
	after=$(csql $DB "$q")
	echo $((after - before))
}

# Waits for every other session of $DB on the commit-times cluster to have
# ended: a backend reports its table counts as it exits.
sessions_gone() {
	local n=0
	while [[ $(csql $DB "select count(*) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()") != 0 ]]; do
		((++n < 500)) || fail "the sessions of $DB did not end"
		sleep 0.01
	done
}

# The same gap, from the server's side: every lost row's transaction is
# asked whether it wrote rows just before it that arrived, and the rows of
# one transaction in one window are one read of the table, not one read
# each.  Each candidate once read its own span: 2000 lost rows of one
# transaction read 2,053,084 source tuples, 33 times the 61,264 of 250; one
# read per transaction and window, 52,885 and 29,890 (the long gap also
# damages a second window, which the drilldown reads).  A gap 8 times as
# long may read at most 3 times as much.
test_diagnosis_of_a_gap_reads_the_source_once_per_transaction() {
	mk_gap_tables
	local a b
	a=$(tuples_read short)
	b=$(tuples_read long)
	assert_eq '[["gap",250]]' "$(jq -c '[.diagnosis[] | [.pattern, .keys]]' rep-short/summary.json)"
	assert_eq '[["gap",2000]]' "$(jq -c '[.diagnosis[] | [.pattern, .keys]]' rep-long/summary.json)"
	[[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ && $a -gt 0 ]] || fail "no tuple counts: '$a' '$b'"
	echo "source tuples read with 250 lost rows: $a, with 2000: $b"
	[[ $b -le $((3 * a)) ]] || fail "the check with 2000 lost rows read $b source tuples, more than 3 times the $a of 250"
}
