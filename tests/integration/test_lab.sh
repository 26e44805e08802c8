# shellcheck shell=bash
# reckon lab and reckon load (docs/loader.md): every claim of its "What the
# scenarios show", asserted on OUT/summary.csv, the rerun lists and the snapshots of one full
# lab run (both engines, every scenario), plus the loader's own guarantees:
# unsafe strategies refused, one-transaction refused across databases,
# crash points that really kill, a watermark that never moves backwards.

LAB_SRC=lab_src
LAB_TGT=lab_tgt
LOAD_DB=lab_load
LOAD_DB2=lab_load_other
LAB_PW=lab_pw

# The lab's output, shared by the cases (written once by setup_file).
LAB=$RK_SCRATCH/lab-out

setup_file() {
	createdb $LAB_SRC
	createdb $LAB_TGT
	local rc=0
	rk lab --source "$(conn $LAB_SRC)" --target "$(conn $LAB_TGT)" --out "$LAB" \
		>"$RK_SCRATCH/lab.stdout" 2>"$RK_SCRATCH/lab.stderr" || rc=$?
	echo "$rc" >"$RK_SCRATCH/lab.rc"
	assert_file "$LAB/summary.csv"
}

# row ENGINE SCENARIO STEP - that step's summary line
row() {
	grep -E "^$1,$2,$3," "$LAB/summary.csv" || fail "no summary row for $1 $2 $3"
}

HEADER=engine,scenario,step,rows_read,missing,duplicated,matches
RERUN_HEADER=interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed
H10=2026-03-02T10:00:00Z,2026-03-02T11:00:00Z
H11=2026-03-02T11:00:00Z,2026-03-02T12:00:00Z

# --- the lab run as a whole -------------------------------------------------

test_lab_exits_zero_and_prints_the_summary() {
	assert_eq 0 "$(cat "$RK_SCRATCH/lab.rc")" "lab exit status (stderr: $(head -c 2000 "$RK_SCRATCH/lab.stderr"))"
	assert_file_eq "$RK_SCRATCH/lab.stdout" "$LAB/summary.csv"
	assert_not_contains "$RK_SCRATCH/lab.stderr" "error"
}

test_summary_lists_every_step_in_execution_order() {
	assert_eq "$HEADER" "$(head -n 1 "$LAB/summary.csv")" "summary header"
	cut -d, -f1-3 "$LAB/summary.csv" | tail -n +2 >got
	assert_file_eq got - <<-EOF
		postgres,watermark-first,run1
		postgres,watermark-first,run2-killed
		postgres,watermark-first,run2-retry
		postgres,watermark-first,run3
		postgres,watermark-first,repair
		postgres,watermark-first,recheck
		postgres,write-first-append,run1
		postgres,write-first-append,run2-killed
		postgres,write-first-append,run2-retry
		postgres,write-first-append,run3
		postgres,write-first-append,repair
		postgres,write-first-append,recheck
		postgres,write-first-keyed,run1
		postgres,write-first-keyed,run2-killed
		postgres,write-first-keyed,run2-retry
		postgres,write-first-keyed,run3
		postgres,write-first-keyed,repair
		postgres,write-first-keyed,recheck
		postgres,one-transaction,run1
		postgres,one-transaction,run2-killed
		postgres,one-transaction,run2-retry
		postgres,one-transaction,run3
		postgres,one-transaction,repair
		postgres,one-transaction,recheck
		postgres,late-commit,run1
		postgres,late-commit,run2
		postgres,late-commit,run3
		postgres,late-commit,repair
		postgres,late-commit,recheck
		postgres,lookback,run1
		postgres,lookback,run2
		postgres,lookback,run3
		postgres,lookback,repair
		postgres,lookback,recheck
		postgres,interval,run1
		postgres,interval,run2
		postgres,interval,run3
		postgres,interval,rerun-run2
		postgres,interval,rerun-run2-again
		postgres,interval,repair
		postgres,interval,recheck
		postgres,interval-closed,run1
		postgres,interval-closed,run2
		postgres,interval-closed,run3
		postgres,interval-closed,repair
		postgres,interval-closed,recheck
		split,watermark-first,run1
		split,watermark-first,run2-killed
		split,watermark-first,run2-retry
		split,watermark-first,run3
		split,watermark-first,repair
		split,watermark-first,recheck
		split,write-first-append,run1
		split,write-first-append,run2-killed
		split,write-first-append,run2-retry
		split,write-first-append,run3
		split,write-first-append,repair
		split,write-first-append,recheck
		split,write-first-keyed,run1
		split,write-first-keyed,run2-killed
		split,write-first-keyed,run2-retry
		split,write-first-keyed,run3
		split,write-first-keyed,repair
		split,write-first-keyed,recheck
		split,target-watermark,run1
		split,target-watermark,run2
		split,target-watermark,run3-killed
		split,target-watermark,run3-retry
		split,target-watermark,repair
		split,target-watermark,recheck
		delta,watermark-first,run1
		delta,watermark-first,run2-killed
		delta,watermark-first,run2-retry
		delta,watermark-first,run3
		delta,watermark-first,repair
		delta,watermark-first,recheck
		delta,write-first-append,run1
		delta,write-first-append,run2-killed
		delta,write-first-append,run2-retry
		delta,write-first-append,run3
		delta,write-first-append,repair
		delta,write-first-append,recheck
		delta,write-first-keyed,run1
		delta,write-first-keyed,run2-killed
		delta,write-first-keyed,run2-retry
		delta,write-first-keyed,run3
		delta,write-first-keyed,repair
		delta,write-first-keyed,recheck
		delta,interval,run1
		delta,interval,run2
		delta,interval,run3
		delta,interval,rerun-run2
		delta,interval,rerun-run2-again
		delta,interval,repair
		delta,interval,recheck
		delta,target-watermark,run1
		delta,target-watermark,run2
		delta,target-watermark,run3-killed
		delta,target-watermark,run3-retry
		delta,target-watermark,repair
		delta,target-watermark,recheck
	EOF
}

test_snapshots_are_numbered_per_step() {
	assert_dir_only "$LAB/postgres/interval" 01-run1.csv 02-run2.csv 03-run3.csv 04-rerun-run2.csv \
		05-rerun-run2-again.csv 06-repair.csv 07-recheck.csv rerun.csv steps.log check check-after-run3
	assert_dir_only "$LAB/split/target-watermark" 01-run1.csv 02-run2.csv 03-run3-killed.csv \
		04-run3-retry.csv 05-repair.csv 06-recheck.csv rerun.csv steps.log check
	assert_dir_only "$LAB/postgres/watermark-first/check" changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	assert_dir_only "$LAB" delta postgres split summary.csv
	assert_dir_only "$LAB/delta/watermark-first" 01-run1.csv 02-run2-killed.csv 03-run2-retry.csv 04-run3.csv \
		05-repair.csv 06-recheck.csv rerun.csv steps.log check history.csv table
	assert_eq "txn_id,updated_at,amount,interval_start,loaded_at" \
		"$(head -n 1 "$LAB/postgres/watermark-first/01-run1.csv")" "snapshot header"
	cut -d, -f1-4 "$LAB/postgres/watermark-first/01-run1.csv" >got
	assert_file_eq got - <<-EOF
		txn_id,updated_at,amount,interval_start
		T-01,2026-03-02T09:05:00Z,120.00,
		T-02,2026-03-02T09:20:00Z,35.50,
		T-03,2026-03-02T09:41:00Z,18.25,
		T-04,2026-03-02T09:55:00Z,240.00,
	EOF
	assert_match "$(sed -n 2p "$LAB/postgres/watermark-first/01-run1.csv")" \
		',[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' "loaded_at in the snapshot"
}

# --- the claims of docs/loader.md -----------------------------------------

test_watermark_first_loses_t05_to_t09_on_both_engines() {
	local e
	for e in postgres split; do
		assert_eq "$e,watermark-first,run2-killed,5,T-05 T-06 T-07 T-08 T-09,,no" "$(row $e watermark-first run2-killed)"
		assert_eq "$e,watermark-first,run2-retry,0,T-05 T-06 T-07 T-08 T-09,,no" "$(row $e watermark-first run2-retry)"
		assert_eq "$e,watermark-first,run3,2,T-05 T-06 T-07 T-08 T-09,,no" "$(row $e watermark-first run3)"
	done
}

test_write_first_append_duplicates_t05_to_t09() {
	local e
	for e in postgres split; do
		assert_eq "$e,write-first-append,run2-killed,5,,,yes" "$(row $e write-first-append run2-killed)"
		assert_eq "$e,write-first-append,run3,2,,T-05 T-06 T-07 T-08 T-09,no" "$(row $e write-first-append run3)"
	done
	# the duplicates are real rows in the target
	assert_eq 2 "$(grep -c '^T-07,' "$LAB/postgres/write-first-append/04-run3.csv")"
}

test_keyed_and_one_transaction_loads_match() {
	local e
	for e in postgres split; do
		assert_eq "$e,write-first-keyed,run2-retry,5,,,yes" "$(row $e write-first-keyed run2-retry)"
		assert_eq "$e,write-first-keyed,run3,2,,,yes" "$(row $e write-first-keyed run3)"
	done
	# killed inside the transaction: nothing of run 2 survives, the retry loads all five
	assert_eq "postgres,one-transaction,run2-killed,5,T-05 T-06 T-07 T-08 T-09,,no" \
		"$(row postgres one-transaction run2-killed)"
	assert_eq "postgres,one-transaction,run2-retry,5,,,yes" "$(row postgres one-transaction run2-retry)"
	assert_eq "postgres,one-transaction,run3,2,,,yes" "$(row postgres one-transaction run3)"
	assert_eq 5 "$(wc -l <"$LAB/postgres/one-transaction/02-run2-killed.csv")" "header + run 1's four rows"
}

test_late_commit_misses_t09_and_lookback_recovers_it() {
	assert_eq "postgres,late-commit,run2,4,T-09,,no" "$(row postgres late-commit run2)"
	assert_eq "postgres,late-commit,run3,2,T-09,,no" "$(row postgres late-commit run3)"
	# run 3 re-reads T-07 and T-08 and reads T-09 for the first time, with T-10 and T-11
	assert_eq "postgres,lookback,run3,5,,,yes" "$(row postgres lookback run3)"
	assert_eq "T-07 T-08 T-09 T-10 T-11" \
		"$(sql $LAB_SRC "select string_agg(txn_id, ' ' order by txn_id) from reckon_lab.src_transactions
		                 where updated_at > '2026-03-02 11:00+00'::timestamptz - interval '10 minutes'")"
}

test_interval_misses_t09_until_its_interval_is_rerun() {
	assert_eq "postgres,interval,run3,3,T-09,,no" "$(row postgres interval run3)"
	assert_eq "postgres,interval,rerun-run2,4,,,yes" "$(row postgres interval rerun-run2)"
	assert_eq "postgres,interval,rerun-run2-again,4,,,yes" "$(row postgres interval rerun-run2-again)"
	# byte-identical ignoring loaded_at (the last column) ...
	cut -d, -f1-4 "$LAB/postgres/interval/04-rerun-run2.csv" >run2
	cut -d, -f1-4 "$LAB/postgres/interval/05-rerun-run2-again.csv" >again
	assert_file_eq again run2
	# ... although the rows were really replaced
	assert_ne "$(grep '^T-05,' "$LAB/postgres/interval/04-rerun-run2.csv")" \
		"$(grep '^T-05,' "$LAB/postgres/interval/05-rerun-run2-again.csv")" "loaded_at of the rewritten T-05"
	assert_eq "T-09,2026-03-02T10:58:00Z,310.00,2026-03-02T10:00:00Z" "$(grep '^T-09,' again)"
}

test_interval_closed_loads_t08_twice() {
	assert_eq "postgres,interval-closed,run2,5,,,yes" "$(row postgres interval-closed run2)"
	assert_eq "postgres,interval-closed,run3,3,,T-08,no" "$(row postgres interval-closed run3)"
	grep '^T-08,' "$LAB/postgres/interval-closed/03-run3.csv" | cut -d, -f1-4 >got
	assert_file_eq got - <<-EOF
		T-08,2026-03-02T11:00:00Z,7.50,2026-03-02T10:00:00Z
		T-08,2026-03-02T11:00:00Z,7.50,2026-03-02T11:00:00Z
	EOF
}

test_target_watermark_survives_crash_and_late_commit() {
	assert_eq "split,target-watermark,run2,5,T-09,,no" "$(row split target-watermark run2)"
	assert_eq "split,target-watermark,run3-killed,5,T-09 T-10 T-11,,no" "$(row split target-watermark run3-killed)"
	assert_eq "split,target-watermark,run3-retry,5,,,yes" "$(row split target-watermark run3-retry)"
	# the five rows after 11:00 - 10m are T-07..T-11
	assert_eq "T-07 T-08 T-09 T-10 T-11" \
		"$(sql $LAB_SRC "select string_agg(txn_id, ' ' order by txn_id) from reckon_lab.src_transactions
		                 where updated_at > '2026-03-02 10:50+00'")"
	assert_contains "$LAB/split/target-watermark/steps.log" "killed by signal 9 (SIGKILL)"
}

# --- engine delta: the reference's lakehouse case ---------------------------

# the section of a scenario's steps.log that step LABEL wrote
step_log() { # step_log SCENARIO LABEL
	awk -v h="== $2:" 'index($0, h) == 1 { on = 1; print; next } /^== / { on = 0 } on' "$LAB/delta/$1/steps.log"
}

test_delta_watermark_first_loses_t05_to_t09_and_the_retry_commits_nothing() {
	assert_eq "delta,watermark-first,run2-killed,5,T-05 T-06 T-07 T-08 T-09,,no" "$(row delta watermark-first run2-killed)"
	assert_eq "delta,watermark-first,run2-retry,0,T-05 T-06 T-07 T-08 T-09,,no" "$(row delta watermark-first run2-retry)"
	assert_eq "delta,watermark-first,run3,2,T-05 T-06 T-07 T-08 T-09,,no" "$(row delta watermark-first run3)"
	# the table's history: the create, run 1, run 3, then repair's two
	# commits; neither the killed run 2 nor its retry committed anything
	head -n 4 "$LAB/delta/watermark-first/history.csv" >got
	assert_file_eq got - <<-EOF
		version,operation,files_added,files_removed,rows_added
		0,CREATE TABLE,0,0,0
		1,WRITE,1,0,4
		2,WRITE,1,0,2
	EOF
	assert_eq "3,MERGE 4,MERGE" "$(sed -n '5,6p' "$LAB/delta/watermark-first/history.csv" | cut -d, -f1-2 | paste -sd' ')"
	assert_eq 6 "$(wc -l <"$LAB/delta/watermark-first/history.csv")" "header and five commits"
	assert_contains "$(step_log watermark-first 03-run2-retry)" "rows_read=0 rows_replaced=0 rows_written=0 watermark=2026-03-02T11:00:00Z"
	assert_not_contains "$(step_log watermark-first 03-run2-retry)" "version="
}

test_delta_keyed_matches_after_every_step_and_target_watermark_survives() {
	local st
	for st in run1 run2-killed run2-retry run3; do
		assert_match "$(row delta write-first-keyed $st)" ',,,yes$' "delta write-first-keyed $st"
	done
	assert_eq "delta,write-first-append,run3,2,,T-05 T-06 T-07 T-08 T-09,no" "$(row delta write-first-append run3)"
	assert_eq "delta,target-watermark,run2,5,T-09,,no" "$(row delta target-watermark run2)"
	assert_eq "delta,target-watermark,run3-killed,5,T-09 T-10 T-11,,no" "$(row delta target-watermark run3-killed)"
	assert_eq "delta,target-watermark,run3-retry,5,,,yes" "$(row delta target-watermark run3-retry)"
	# the newest time came from the table's stats
	assert_contains "$(step_log target-watermark 04-run3-retry)" "newest_from=stats"
	assert_eq "delta,interval,run3,3,T-09,,no" "$(row delta interval run3)"
	assert_eq "delta,interval,rerun-run2,4,,,yes" "$(row delta interval rerun-run2)"
	cut -d, -f1-4 "$LAB/delta/interval/04-rerun-run2.csv" >run2
	cut -d, -f1-4 "$LAB/delta/interval/05-rerun-run2-again.csv" >again
	assert_file_eq again run2
	assert_eq "T-09,2026-03-02T10:58:00Z,310.00,2026-03-02T10:00:00Z" "$(grep '^T-09,' again)"
}

test_delta_tables_pass_the_protocol_checker() {
	local deltacheck s
	deltacheck=$(dirname "$RECKON")/tests/rk-deltacheck
	for s in watermark-first write-first-append write-first-keyed interval target-watermark; do
		assert_exit 0 "$deltacheck" "$LAB/delta/$s/table"
		# the same damage as on the other engines
		if [[ $s == interval ]]; then
			assert_file_eq "$LAB/delta/$s/rerun.csv" "$LAB/postgres/$s/rerun.csv"
		else
			assert_file_eq "$LAB/delta/$s/rerun.csv" "$LAB/split/$s/rerun.csv"
		fi
	done
}

test_rerun_lists_hold_exactly_the_damaged_windows() {
	local e s
	for e in postgres split; do
		assert_file_eq "$LAB/$e/watermark-first/rerun.csv" - <<-EOF
			$RERUN_HEADER
			$H10,4,0,4,0,0,0
			$H11,3,2,1,0,0,0
		EOF
		assert_file_eq "$LAB/$e/write-first-append/rerun.csv" - <<-EOF
			$RERUN_HEADER
			$H10,4,8,0,0,4,0
			$H11,3,4,0,0,1,0
		EOF
		assert_file_eq "$LAB/$e/write-first-keyed/rerun.csv" - <<<"$RERUN_HEADER"
	done
	assert_file_eq "$LAB/postgres/late-commit/rerun.csv" - <<-EOF
		$RERUN_HEADER
		$H10,4,3,1,0,0,0
	EOF
	assert_file_eq "$LAB/postgres/interval-closed/rerun.csv" - <<-EOF
		$RERUN_HEADER
		$H11,3,4,0,0,1,0
	EOF
	for s in one-transaction lookback interval; do
		assert_file_eq "$LAB/postgres/$s/rerun.csv" - <<<"$RERUN_HEADER"
	done
	assert_file_eq "$LAB/split/target-watermark/rerun.csv" - <<<"$RERUN_HEADER"
}

test_every_scenario_matches_after_repair_and_recheck() {
	local line n=0
	while IFS= read -r line; do
		assert_match "$line" '^[a-z]+,[a-z-]+,(repair|recheck),,,,yes$' "repair/recheck row"
		n=$((n + 1))
	done < <(grep -E '^[a-z]+,[a-z-]+,(repair|recheck),' "$LAB/summary.csv")
	assert_eq 34 "$n" "repair and recheck rows (17 scenario runs)"
	# recheck's own verdict agrees
	assert_contains "$LAB/postgres/watermark-first/steps.log" "== recheck:"
	assert_eq 17 "$(grep -h -A1 '^== recheck:' "$LAB"/*/*/steps.log | grep -c '^-> exit status 0$')"
}

# --- the diagnosis each failure deserves (docs/runbook.md) ----------------

# [[pattern, [windows], keys], ...] of one scenario's check (or DIR under it)
lab_causes() { # lab_causes OUT ENGINE SCENARIO [DIR]
	jq -c '[.diagnosis[] | [.pattern, .windows, .keys]]' "$1/$2/$3/${4:-check}/summary.json" ||
		fail "no summary.json for $2 $3 ${4:-check}"
}

test_every_scenario_ends_with_the_diagnosis_it_deserves() {
	local e s
	for e in postgres split delta; do
		# the crash between the watermark and the write: T-05 .. T-09, from
		# 10:12 to T-08 at 11:00, none in the target and nothing between
		assert_eq '[["gap",["2026-03-02T10:00:00Z","2026-03-02T11:00:00Z"],5]]' \
			"$(lab_causes "$LAB" $e watermark-first)" "$e watermark-first"
		assert_eq '[["repeat",["2026-03-02T10:00:00Z","2026-03-02T11:00:00Z"],5]]' \
			"$(lab_causes "$LAB" $e write-first-append)" "$e write-first-append"
		assert_eq '[]' "$(lab_causes "$LAB" $e write-first-keyed)"
	done
	assert_eq '[["boundary",["2026-03-02T11:00:00Z"],1]]' "$(lab_causes "$LAB" postgres interval-closed)"
	assert_contains "$LAB/postgres/watermark-first/steps.log" "likely causes:"
	assert_contains "$LAB/postgres/watermark-first/steps.log" "its watermark was saved before its write"
	# on this cluster the server keeps no commit times: T-09 is not claimed
	# late, and the evidence says why
	assert_eq '[["unclassified",["2026-03-02T10:00:00Z"],1]]' "$(lab_causes "$LAB" postgres late-commit)"
	assert_contains "$(jget "$LAB/postgres/late-commit/check/summary.json" '.diagnosis[0].evidence')" \
		"late commits could not be examined: track_commit_timestamp is off"
	# interval's damage is healed by its rerun: the check after run 3 shows it
	assert_eq '[["unclassified",["2026-03-02T10:00:00Z"],1]]' \
		"$(lab_causes "$LAB" postgres interval check-after-run3)"
	for s in one-transaction lookback interval; do
		assert_eq '[]' "$(lab_causes "$LAB" postgres $s)" "$s"
	done
	assert_eq '[]' "$(lab_causes "$LAB" split target-watermark)"
	for s in interval target-watermark; do
		assert_eq '[]' "$(lab_causes "$LAB" delta $s)" "delta $s"
	done
	# on Delta the table's log is evidence: no commit ever wrote the hour of T-05..T-07
	assert_contains "$(jget "$LAB/delta/watermark-first/check/summary.json" '.diagnosis[0].evidence')" \
		"2026-03-02T10:00:00Z written by no commit"
}

test_late_commits_are_named_where_commit_times_are_kept() {
	# the late-committing session's scenarios on a server with
	# track_commit_timestamp = on: T-09 is late_commit, with its true lag
	cts_start
	ccreatedb $LAB_SRC
	local s dir truth
	for s in late-commit interval; do
		rk lab --source "$(cconn $LAB_SRC)" --engine postgres --scenario $s --out cts-out >stdout 2>stderr ||
			fail "lab $s on the commit-timestamp cluster: $(head -c 2000 stderr)"
		dir=check
		[[ $s == interval ]] && dir=check-after-run3
		assert_eq '[["late_commit",["2026-03-02T10:00:00Z"],1]]' "$(lab_causes cts-out postgres $s $dir)" "$s"
		truth=$(csql $LAB_SRC "select extract(epoch from pg_xact_commit_timestamp(xmin) - updated_at)
		                       from reckon_lab.src_transactions where txn_id = 'T-09'")
		assert_eq ok "$(jq -r --argjson truth "$truth" \
			'.diagnosis[0].max_lag_seconds - $truth | if fabs < 1 then "ok" else tostring end' \
			"cts-out/postgres/$s/$dir/summary.json")" "$s: T-09's lag"
		assert_contains "$(jget "cts-out/postgres/$s/$dir/summary.json" '.diagnosis[0].evidence')" "e.g. T-09 (time 2026-03-02T10:58:00Z"
		assert_contains "cts-out/postgres/$s/steps.log" "late_commit      1 key"
	done
}

test_step_log_redacts_passwords() {
	createdb $LAB_PW
	rk lab --source "$(conn $LAB_PW) password=sekret-pw" --engine postgres --scenario interval-closed \
		--out out >stdout 2>stderr || true
	assert_file out/postgres/interval-closed/steps.log
	assert_not_contains out/postgres/interval-closed/steps.log "sekret-pw"
	assert_not_contains stderr "sekret-pw"
}

# --- lab usage errors -------------------------------------------------------

test_lab_usage_errors() {
	assert_exit 2 rk lab --source "$(conn $LAB_SRC)" --engine split --out labout
	assert_contains "$ERR" "--target"
	assert_exit 2 rk lab --source "$(conn $LAB_SRC)" --scenario nope --out labout
	assert_contains "$ERR" "unknown scenario"
	assert_exit 2 rk lab --source "$(conn $LAB_SRC)" --engine postgres --scenario target-watermark --out labout
	assert_contains "$ERR" "does not run on engine postgres"
	assert_exit 2 rk lab --source "$(conn $LAB_SRC)" --target "$(conn $LAB_SRC)" --engine split --out labout
	assert_contains "$ERR" "another database"
	# a word that is not an option is refused, not ignored
	assert_exit 2 rk lab --source "$(conn $LAB_SRC)" --out labout stray
	assert_contains "$ERR" "unexpected argument 'stray'"
	assert_exit 2 rk load --source "$(conn $LAB_SRC)" --table t --key id --time ts --strategy watermark-first stray
	assert_contains "$ERR" "unexpected argument 'stray'"
}

# --- reckon load ------------------------------------------------------------

# A small source/target pair of its own: shop.orders (id, ts, amount).
mk_load_db() {
	createdb $LOAD_DB
	sql $LOAD_DB >/dev/null <<-SQL
		create schema shop;
		create table shop.orders (id int primary key, ts timestamptz not null, amount numeric(10,2));
		create table shop.orders_copy (id int, ts timestamptz, amount numeric(10,2), batch timestamptz);
		insert into shop.orders
		select g, timestamptz '2026-03-02 00:00+00' + g * interval '10 minutes', g * 1.5
		from generate_series(1, 12) g;
	SQL
}

load() {
	rk load --source "$(conn $LOAD_DB)" --source-table shop.orders --target-table shop.orders_copy \
		--key id --time ts --columns id,ts,amount --watermark-table shop.wm --load-name orders "$@"
}

wm() {
	sql $LOAD_DB "select to_char(watermark at time zone 'UTC', 'HH24:MI') from shop.wm where load_name = 'orders'"
}

test_load_refuses_unsafe_strategies_without_unsafe() {
	mk_load_db
	local s
	for s in watermark-first write-first-append interval-closed; do
		assert_exit 2 load --strategy $s --interval-start 2026-03-02T00:00:00Z --interval-end 2026-03-02T01:00:00Z
		assert_contains "$ERR" "strategy $s is unsafe"
		assert_contains "$ERR" "--unsafe"
	done
	assert_contains "$ERR" "boundary"
	assert_eq 0 "$(sql $LOAD_DB 'select count(*) from shop.orders_copy')" "nothing written"
	assert_eq "" "$(sql $LOAD_DB "select to_regclass('shop.wm')")" "no watermark table created"
	# with --unsafe it runs
	assert_exit 0 load --strategy watermark-first --unsafe
	assert_eq "rows_read=12 rows_replaced=0 rows_written=12 watermark=2026-03-02T02:00:00Z" "$(cat "$OUT")"
	assert_contains "$ERR" "unsafe"
}

test_one_transaction_refuses_a_target_in_another_database() {
	mk_load_db
	createdb $LOAD_DB2
	sql $LOAD_DB2 "create schema shop; create table shop.orders_copy (id int, ts timestamptz, amount numeric(10,2))"
	assert_exit 2 load --strategy one-transaction --target "$(conn $LOAD_DB2)"
	assert_contains "$ERR" "another database"
	assert_contains "$ERR" "no transaction can span both"
	assert_eq 0 "$(sql $LOAD_DB2 'select count(*) from shop.orders_copy')"
	# the same database through another conninfo spelling is accepted
	assert_exit 0 load --strategy one-transaction --target "dbname=$LOAD_DB host=$PGHOST port=$PGPORT"
	assert_eq "12|12" "$(sql $LOAD_DB 'select count(*), count(distinct id) from shop.orders_copy')"
	assert_eq 02:00 "$(wm)"
}

test_crash_at_really_kills_the_process() {
	mk_load_db
	local rc=0
	load --strategy write-first-keyed --crash-at after-write-commit >out 2>err || rc=$?
	assert_eq 137 "$rc" "exit status of a process killed by SIGKILL"
	# the write committed, the watermark did not move
	assert_eq 12 "$(sql $LOAD_DB 'select count(*) from shop.orders_copy')"
	assert_eq "-infinity" "$(sql $LOAD_DB "select watermark from shop.wm where load_name = 'orders'")"
	# killed inside the one transaction: everything rolled back
	sql $LOAD_DB "truncate shop.orders_copy"
	assert_exit 137 load --strategy one-transaction --crash-at inside-transaction
	assert_eq 0 "$(sql $LOAD_DB 'select count(*) from shop.orders_copy')"
	assert_eq "-infinity" "$(sql $LOAD_DB "select watermark from shop.wm where load_name = 'orders'")"
	# the report channel carries what was read before dying
	rc=0
	RECKON_REPORT_FD=5 load --strategy one-transaction --crash-at after-read 5>report >/dev/null 2>&1 || rc=$?
	assert_eq 137 "$rc"
	assert_file_eq report - <<<"rows_read=12"
	# a crash point the strategy never reaches is a usage error
	assert_exit 2 load --strategy interval --interval-start 2026-03-02T00:00:00Z \
		--interval-end 2026-03-02T01:00:00Z --crash-at after-watermark-commit
	assert_contains "$ERR" "never reaches crash point"
}

test_watermark_never_moves_backwards() {
	mk_load_db
	assert_exit 0 load --strategy write-first-keyed
	assert_eq 02:00 "$(wm)"
	# the newest source row goes away; a lookback re-read sees only older rows
	sql $LOAD_DB "delete from shop.orders where id = 12"
	assert_exit 0 load --strategy write-first-keyed --lookback 1h
	assert_eq "rows_read=5 rows_replaced=5 rows_written=5 watermark=2026-03-02T02:00:00Z" "$(cat "$OUT")"
	assert_eq 02:00 "$(wm)"
	# nor in the one-transaction path
	assert_exit 0 load --strategy one-transaction --lookback 1h
	assert_eq 02:00 "$(wm)"
	# and a run that reads nothing leaves it alone
	assert_exit 0 load --strategy write-first-keyed
	assert_eq "rows_read=0 rows_replaced=0 rows_written=0 watermark=2026-03-02T02:00:00Z" "$(cat "$OUT")"
	assert_eq 12 "$(sql $LOAD_DB 'select count(*) from shop.orders_copy')" "keyed re-reads never duplicate"
}

test_interval_load_replaces_its_interval_only() {
	mk_load_db
	local iv=(--interval-start 2026-03-02T01:00:00Z --interval-end 2026-03-02T02:00:00Z --interval-column batch)
	assert_exit 0 load --strategy interval "${iv[@]}"
	assert_eq "rows_read=6 rows_replaced=0 rows_written=6 watermark=none" "$(cat "$OUT")"
	assert_exit 0 load --strategy interval "${iv[@]}"
	assert_eq "rows_read=6 rows_replaced=6 rows_written=6 watermark=none" "$(cat "$OUT")"
	assert_eq "6|01:00" "$(sql $LOAD_DB "select count(*), min(to_char(batch at time zone 'UTC', 'HH24:MI'))
	                                       from shop.orders_copy")"
	assert_exit 2 load --strategy interval --lookback 10m "${iv[@]}"
	assert_exit 2 load --strategy interval
	assert_contains "$ERR" "--interval-start"
}

test_target_watermark_needs_no_watermark_table() {
	mk_load_db
	assert_exit 0 rk load --source "$(conn $LOAD_DB)" --source-table shop.orders --target-table shop.orders_copy \
		--key id --time ts --columns id,ts,amount --strategy target-watermark --lookback 30m
	assert_eq "rows_read=12 rows_replaced=0 rows_written=12 watermark=2026-03-02T02:00:00Z" "$(cat "$OUT")"
	assert_exit 0 rk load --source "$(conn $LOAD_DB)" --source-table shop.orders --target-table shop.orders_copy \
		--key id --time ts --columns id,ts,amount --strategy target-watermark --lookback 30m
	# the target's newest is 02:00: the second run re-reads after 01:30
	assert_eq "rows_read=3 rows_replaced=3 rows_written=3 watermark=2026-03-02T02:00:00Z" "$(cat "$OUT")"
	assert_eq "" "$(sql $LOAD_DB "select to_regclass('shop.wm')")"
}

test_load_any_table_composite_key_then_check_matches() {
	# mk_orders: composite key (order_id, line_no), 34 rows; the target is an
	# empty copy in another database
	createdb $LOAD_DB
	createdb $LOAD_DB2
	mk_orders $LOAD_DB
	mk_orders $LOAD_DB2
	sql $LOAD_DB2 "truncate mart.orders"
	local opts=(--source "$(conn $LOAD_DB)" --target "$(conn $LOAD_DB2)" --table mart.orders
		--key order_id,line_no --time created_at --sum amount --columns order_id,line_no,created_at,amount,qty,note
		--strategy write-first-keyed --watermark-table etl.wm --load-name orders)
	sql $LOAD_DB "create schema etl"
	# a partial first run: only the rows up to 02:00 exist yet
	sql $LOAD_DB "create table mart.later as select * from mart.orders where created_at > '2026-03-02 02:00+00';
	              delete from mart.orders where created_at > '2026-03-02 02:00+00'"
	assert_exit 0 rk load "${opts[@]}"
	assert_eq "rows_read=18 rows_replaced=0 rows_written=18 watermark=2026-03-02T01:59:00Z" "$(cat "$OUT")"
	sql $LOAD_DB "insert into mart.orders select * from mart.later"
	assert_exit 0 rk load "${opts[@]}" --lookback 15m
	# 01:45, 01:52 and 01:59 again, then the 16 newer rows
	assert_eq "rows_read=19 rows_replaced=3 rows_written=19 watermark=2026-03-02T03:51:00Z" "$(cat "$OUT")"
	assert_exit 0 rk check --source "$(conn $LOAD_DB)" --target "$(conn $LOAD_DB2)" "${ORDERS_OPTS[@]}"
	assert_eq "34|34" "$(sql $LOAD_DB2 'select count(*), count(distinct (order_id, line_no)) from mart.orders')"
}

test_load_quoted_names_and_timestamp_column() {
	createdb $LOAD_DB
	sql $LOAD_DB >/dev/null <<-'SQL'
		create schema "Shop";
		create table "Shop"."Events" ("Id" int, "At" timestamp, v int);
		create table "Shop".events_copy ("Id" int, "At" timestamp, v int);
		insert into "Shop"."Events" select g, timestamp '2026-03-02 00:00' + g * interval '1 hour', g from generate_series(1, 5) g;
	SQL
	assert_exit 0 rk load --source "$(conn $LOAD_DB)" --source-table '"Shop"."Events"' --target-table '"Shop".events_copy' \
		--key '"Id"' --time '"At"' --sum v --strategy target-watermark
	assert_eq "rows_read=5 rows_replaced=0 rows_written=5 watermark=2026-03-02T05:00:00Z" "$(cat "$OUT")"
	assert_eq 15 "$(sql $LOAD_DB 'select sum(v) from "Shop".events_copy')"
	# an unknown table is a usage error
	assert_exit 2 rk load --source "$(conn $LOAD_DB)" --table shop.nope --key id --time ts --strategy target-watermark
	assert_contains "$ERR" "does not exist"
}
