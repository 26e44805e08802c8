# shellcheck shell=bash
# The drilldown's verify pass through a spill (docs/performance.md "As the
# findings grow"): the rows it collects for the keys of time-split windows
# are sorted by an external sort (io/spill.h) whose bound RK_SPILL_BYTES
# forces run files on a small table, and the tallies take them in one walk.
# Every file of the report, the text report and the rerun list must be
# byte-identical to the run at the default bound (where nothing spills),
# streamed and pushed down, whatever the damage: missing, extra, duplicated,
# changed and moved keys, source duplicates, keys with NULL parts, text key
# parts with odd bytes, in several windows.

SRC=dsp_src
TGT=dsp_tgt
TABLE=t
OPTS=(--key "id,k2" --time ts --sum amount
	--from 2026-03-02T00:00:00Z --to 2026-03-02T06:00:00Z --window 1h --now 2026-04-01T00:00:00Z)

setup_file() {
	createdb $SRC
	createdb $TGT
	ext_create $SRC
	ext_create $TGT
	for db in $SRC $TGT; do
		sql "$db" "create table t (id int, k2 text, ts timestamptz not null, amount numeric(12,2), note text);
		         insert into t
		         select g,
		                case when g % 11 = 0 then null
		                     when g % 5 = 0 then E'a,b\"c\\\\d\\te\\nf' || g
		                     when g % 5 = 1 then 'ünï ' || g || E' \\r'
		                     else 'k' || (g % 3) end,
		                '2026-03-02 00:00:00+00'::timestamptz + g * interval '4 seconds',
		                (g * 1.25)::numeric(12,2), 'n' || g
		         from generate_series(0, 5399) g;
		         create index on t (ts)" >/dev/null
	done
	# u: sparse damage, so that most slices match and the target reads
	# half of them in the verify pass; some keys have a second copy, the
	# same on both sides, in a slice that matches
	for db in $SRC $TGT; do
		sql "$db" "create table u as select * from t where false;
		         insert into u select g, case when g % 9 = 0 then null else E'u\\,' || (g % 4) end,
		                '2026-03-02 00:00:00+00'::timestamptz + g * interval '3 seconds',
		                (g * 0.5)::numeric(12,2), 'n' || g
		         from generate_series(0, 7199) g;
		         insert into u select id, k2, ts + interval '25 minutes', amount, note from u where id % 151 = 0;
		         create index on u (ts);
		         analyze u" >/dev/null
	done
	sql $TGT "delete from u where id % 151 = 0 and id % 2 = 0 and ts < '2026-03-02 05:00+00'
	              and ctid = (select min(ctid) from u v where v.id = u.id);
	          update u set note = 'x' where id % 151 = 0 and id % 3 = 1 and ts < '2026-03-02 05:00+00';
	          update u set note = 'y' where id % 401 = 7;
	          insert into u select * from u where id % 503 = 11;
	          insert into u select id + 100000, k2, ts, amount, note from u where id % 701 = 17;
	          update u set ts = ts + interval '1 hour' where id % 607 = 13 and ts < '2026-03-02 05:00+00'" >/dev/null
	# g: lost rows, with no extra key and no source duplicate: past the
	# bound the diagnosis places them by a sweep of their runs - gaps (one
	# across a window's boundary), lone rows on a boundary and off one -
	# that changed rows break, and they break the runs of doubled rows
	for db in $SRC $TGT; do
		sql "$db" "create table g as select * from t where false;
		         insert into g select g, 'g' || (g % 3), '2026-03-02 00:00:00+00'::timestamptz + g * interval '4 seconds',
		                (g * 0.75)::numeric(12,2), 'n' || g
		         from generate_series(0, 5399) g;
		         create index on g (ts);
		         analyze g" >/dev/null
	done
	sql $TGT "delete from g where id between 100 and 160 or id between 1790 and 1810 or id between 2000 and 2010
	              or id in (500, 900, 3000, 3001, 4500, 2501) or (id between 3600 and 4400 and id % 50 = 7)
	              or (id between 4600 and 4700 and id % 5 <> 0);
	          update g set amount = amount + 1 where id % 97 = 5 or id = 2005;
	          insert into g select * from g where id between 1200 and 1203 or id in (2500, 2502, 3500)" >/dev/null
	# h: g's damage and an extra key no lost row has: both kinds swept; m:
	# g's damage and a moved key (its target copy three hours early, an
	# extra finding with a lost row's key): the lost rows stay in the proxy
	sql $SRC "create table h as select * from g; create index on h (ts); analyze h;
	          create table m as select * from g; create index on m (ts); analyze m" >/dev/null
	sql $TGT "create table h as select * from g;
	          insert into h select id + 100000, k2, ts, amount, note from g where id = 2600;
	          create index on h (ts); analyze h;
	          create table m as select * from g;
	          update m set ts = ts - interval '3 hours' where id = 4200;
	          create index on m (ts); analyze m" >/dev/null
	# the source holds some keys twice (source duplicates), in other slices
	sql $SRC "insert into t select id, k2, ts + interval '17 minutes', amount, note from t
	          where id % 97 = 3 and ts < '2026-03-02 05:00+00'" >/dev/null
	# the target: every kind of damage, in every window
	sql $TGT "insert into t select id, k2, ts + interval '17 minutes', amount, note from t
	          where id % 97 = 3 and ts < '2026-03-02 05:00+00' and id % 2 = 0;
	          delete from t where id % 13 = 1;
	          update t set note = note || ' changed' where id % 17 = 2;
	          update t set amount = amount + 1 where id % 19 = 0;
	          insert into t select id, k2, ts, amount, note from t where id % 23 = 4;
	          insert into t select id, k2, ts + interval '1 second', amount, note from t where id % 29 = 5;
	          insert into t select id + 100000, k2 || E'\\x01', ts, amount, note from t where id % 31 = 6;
	          update t set ts = ts + interval '1 hour' where id % 37 = 7 and ts < '2026-03-02 05:00+00';
	          update t set ts = ts + interval '3 minutes' where id % 41 = 8;
	          update t set k2 = null where id % 43 = 9;
	          update t set k2 = k2 || E'\\\\' where id % 47 = 10" >/dev/null
}

# sp_check DIR BOUND [OPTION...] - a check with RK_SPILL_BYTES=BOUND (empty:
# the default) into report rep (the same path for every run: the report
# names it), then moved to DIR; its stdout as DIR.out, its stderr DIR.err
sp_check() {
	local dir=$1 bound=$2 rc=0
	shift 2
	rm -rf "$dir" rep
	RK_SPILL_BYTES=$bound rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table "$TABLE" "${OPTS[@]}" \
		--report rep -vv "$@" >"$dir.out" 2>"$dir.err" || rc=$?
	mv rep "$dir"
	return $rc
}

# same_report DIR EXPECTED_DIR [READ_MORE] - every file of the report byte
# for byte (the HTML report but for the instant it was run at), and the
# text report.  READ_MORE: the verify pass of DIR read every row of its
# windows (no key filter): summary.json's rows re-read may be more, never
# fewer, and all else the same
same_report() {
	local f
	if [[ ${3:-} == read_more ]]; then
		assert_eq 1 "$(($(jq .drilldown.rows_reread "$1/summary.json") >= $(jq .drilldown.rows_reread "$2/summary.json")))" \
			"rows re-read without the key filter, at least those with it"
		jq 'del(.drilldown.rows_reread)' "$1/summary.json" >"$1.summary"
		jq 'del(.drilldown.rows_reread)' "$2/summary.json" >"$2.summary"
		assert_file_eq "$1.summary" "$2.summary"
		cp "$2/summary.json" "$1/summary.json"
	fi
	assert_eq "$(cd "$2" && ls | LC_ALL=C sort | tr '\n' ' ')" "$(cd "$1" && ls | LC_ALL=C sort | tr '\n' ' ')" "files of $1"
	for f in "$2"/*; do
		f=$(basename "$f")
		if [[ $f == report.html ]]; then
			sed -E '/run at|ran-at/s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/RAN_AT/g' "$1/$f" >"$1.html"
			sed -E '/run at|ran-at/s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/RAN_AT/g' "$2/$f" >"$2.html"
			assert_file_eq "$1.html" "$2.html"
		else
			assert_file_eq "$1/$f" "$2/$f"
		fi
	done
	assert_file_eq "$1.out" "$2.out"
}

# temporaries DIR - what runs left in DIR: staging directories and files
temporaries() {
	find "$1" -maxdepth 1 -name '*.tmp.reckon-*' -printf '%f\n' | sort | tr '\n' ' '
}

# spilled ERRFILE - the runs the verify pass spilled, as its log says
spilled() {
	sed -nE 's/.*drilldown pass [0-9]+: [0-9]+ row\(s\) sorted, ([0-9]+) run\(s\) spilled to .*/\1/p' "$1" | tail -n 1
}

# same_at_every_bound [OPTION...] - the default bound, then 1 and 4096 bytes
same_at_every_bound() {
	local b
	set +e
	sp_check def "" "$@"
	assert_eq 1 "$?" "exit status at the default bound"
	set -e
	assert_eq 0 "$(spilled def.err)" "runs spilled at the default bound"
	assert_contains def.err "the source's copies of"
	assert_contains def/findings.csv ",missing,"
	assert_contains def/findings.csv ",extra,"
	assert_contains def/findings.csv ",duplicated,"
	assert_contains def/findings.csv ",changed,"
	assert_contains def/findings.csv ",source_duplicate,"
	assert_not_contains def.err "into a store"
	for b in 1 4096; do
		set +e
		sp_check "b$b" "$b" "$@"
		assert_eq 1 "$?" "exit status at bound $b"
		set -e
		assert_match "$(spilled "b$b.err")" '^[1-9][0-9]*$' "runs spilled at bound $b"
		# the runs went beside the report, in its staging directory
		assert_contains "b$b.err" "spilled to rep.tmp.reckon-"
		# more keys than the bound holds: no key filter, every row of the
		# windows spilled and walked beside the tallies (issue 25)
		[[ $b != 1 ]] || assert_contains "b$b.err" "bytes of them to hold"
		# past the bound the findings went to a store, read by every
		# report and by the diagnosis's proxy (issue 25)
		assert_contains "b$b.err" "bytes in memory: into a store in rep.tmp.reckon-"
		assert_contains "b$b.err" "changed ones read from the store"
		if grep -q "bytes of them to hold" "b$b.err"; then
			same_report "b$b" def read_more
		else
			same_report "b$b" def
		fi
	done
}

test_drill_spill_streamed() {
	same_at_every_bound
	assert_match "$(grep -c . def/findings.csv)" '^[0-9]{4,}$' "findings lines"
}

test_drill_spill_small_leaves() {
	same_at_every_bound --leaf-rows 7
}

test_drill_spill_pushdown() {
	same_at_every_bound --pushdown
	assert_contains def.err "source: the drilldown narrows the damage in the database"
	assert_contains b1.err "target: the drilldown narrows the damage in the database"
}

test_drill_spill_shared_verify() {
	TABLE=u same_at_every_bound
	assert_contains def.err "the target counting them in half the slices that matched"
}

# Lost rows without extra keys or source duplicates, the source keeping no
# commit times, and doubled rows without source duplicates: past the bound
# the diagnosis leaves them out of its proxy and finds their runs by a
# sweep (diagnose_store.c); every report file, the diagnosis in them, is
# the same as at the default bound, where the classification holds every
# finding.  In h an extra key no lost row has changes nothing; in m a
# moved key (an extra finding with a lost row's key) keeps the lost rows in
# the proxy.
test_drill_spill_lost_rows_swept() {
	local b rc k
	for TABLE in g h m; do
		for b in "" 1 4096; do
			rc=0
			sp_check "$TABLE$b" "$b" || rc=$?
			assert_eq 1 "$rc" "exit status of $TABLE at bound '$b'"
		done
		assert_not_contains "$TABLE.err" "into a store"
		assert_not_contains "$TABLE.err" "placed by a sweep"
		for k in missing changed duplicated; do
			assert_contains "$TABLE/findings.csv" ",$k,"
		done
		assert_not_contains "$TABLE/findings.csv" ",source_duplicate,"
		assert_eq "boundary gap repeat unclassified" \
			"$(jq -r '[.diagnosis[].pattern] | map(select(. == "gap" or . == "boundary" or . == "repeat" or . == "unclassified")) | sort | join(" ")' "$TABLE/summary.json")" \
			"the causes the lost and doubled rows make in $TABLE"
		for b in 1 4096; do
			assert_contains "$TABLE$b.err" "bytes in memory: into a store in rep.tmp.reckon-"
			assert_contains "$TABLE$b.err" "the doubled rows placed by a sweep"
			assert_match "$(sed -nE 's/.*diagnosis: ([0-9]+) doubled row\(s\) in ([0-9]+) run\(s\) placed by a sweep.*/\1 \2/p' "$TABLE$b.err")" \
				'^[1-9][0-9]* [1-9][0-9]*$' "doubled rows and runs of $TABLE at bound $b"
			if [[ $TABLE != m ]]; then
				assert_contains "$TABLE$b.err" "the lost rows placed by a sweep"
				assert_match "$(sed -nE 's/.*diagnosis: ([0-9]+) lost row\(s\) in ([0-9]+) run\(s\) placed by a sweep.*/\1 \2/p' "$TABLE$b.err")" \
					'^[1-9][0-9]* [1-9][0-9]*$' "lost rows and runs at bound $b"
			else
				# a lost row's key is extra elsewhere: the lost rows stay in
				# the proxy
				assert_not_contains "$TABLE$b.err" "the lost rows placed by a sweep"
			fi
			if grep -q "bytes of them to hold" "$TABLE$b.err"; then
				same_report "$TABLE$b" "$TABLE" read_more
			else
				same_report "$TABLE$b" "$TABLE"
			fi
		done
	done
	assert_contains h/findings.csv ",extra,"
	assert_not_contains g/findings.csv ",extra,"
	assert_contains m/findings.csv ",extra,4200,"
	assert_contains m/findings.csv ",missing,4200,"
	assert_eq moved "$(jq -r '[.diagnosis[].pattern] | map(select(. == "moved")) | join(" ")' m/summary.json)" "m's moved key"
}

# A pass of the findings' store that fails, whichever it is (the changed
# columns' keys, the diagnosis's proxy, each report file, the audit, the
# summary on stdout): the run fails (exit 3) with the store's error, the
# report set in place stays as it was, nothing is left beside it, and
# nothing is printed; the first run that reaches no failure is the whole
# one (issue 25).
test_drill_spill_store_pass_fails() {
	[[ -x $RECKON_FAULTS ]] || skip "no binary with the test hooks at $RECKON_FAULTS (make BUILD/tests/reckon-faults, or RECKON_FAULTS=PATH)"
	local k rc=0
	sp_check def "" || rc=$?
	assert_eq 1 "$rc" "exit status of the first run"
	cp -a def before
	for ((k = 1; k < 100; k++)); do
		rc=0
		RK_SPILL_BYTES=${BOUND:-1} RECKON_TEST_FAULT=findstore-pass:fail@$k "$RECKON_FAULTS" check --source "$(conn $SRC)" \
			--target "$(conn $TGT)" --table "$TABLE" "${OPTS[@]}" --report def >k.out 2>k.err || rc=$?
		[[ $rc == 3 ]] || break
		assert_contains k.err "cannot read the findings' store again"
		assert_eq "" "$(cat k.out)" "stdout of the run that failed at pass $k"
		diff -r before def >/dev/null || fail "the report set changed although the run failed at pass $k"
		_rk_ok
		assert_eq "" "$(temporaries .)" "temporaries left at pass $k"
	done
	assert_eq 1 "$rc" "exit status once no pass fails"
	# keys, the diagnosis (3), findings.csv, changes.csv, report.html,
	# summary.json, the text: at least 9 passes, each one failed once
	assert_eq 1 "$((k > 9))" "passes of the store ($((k - 1)))"
	assert_file_eq def/findings.csv before/findings.csv
	if [[ ${READ_MORE:-} == 1 ]]; then
		# (at bound 1 the verify pass read every row of its windows)
		jq 'del(.drilldown.rows_reread)' def/summary.json >def.summary
		jq 'del(.drilldown.rows_reread)' before/summary.json >before.summary
		assert_file_eq def.summary before.summary
	else
		assert_file_eq def/summary.json before/summary.json
	fi
	assert_eq "" "$(temporaries .)" "temporaries left by the whole run"
}

# The same where the diagnosis's sweeps place the lost and the doubled
# rows (at a bound of 4096 bytes they do: test_drill_spill_lost_rows_swept),
# so that their passes of the store fail in turn too.
test_drill_spill_swept_store_pass_fails() {
	TABLE=g BOUND=4096 READ_MORE=1 test_drill_spill_store_pass_fails
}

# The same for a job: whichever pass of a table's store fails - in its
# check, its summary, its report files or the job's text - the job exits 3
# and its summary on stdout says so (the table itself failed when its check
# or its summary could not read the store), and nothing is left beside the
# report set (issue 25).  (A job puts its set in place with a failed table
# in it, as the table's error: docs/jobs.md.)
test_drill_spill_job_store_pass_fails() {
	[[ -x $RECKON_FAULTS ]] || skip "no binary with the test hooks at $RECKON_FAULTS (make BUILD/tests/reckon-faults, or RECKON_FAULTS=PATH)"
	local k rc=0
	cat >job.ini <<-INI
		[defaults]
		source = $(conn $SRC)
		target = $(conn $TGT)
		window = 1h
		from = 2026-03-02T00:00:00Z
		to = 2026-03-02T06:00:00Z
		now = 2026-04-01T00:00:00Z

		[table t]
		table = t
		key = id,k2
		time = ts
		sum = amount
	INI
	rk check --job job.ini --report jrep >/dev/null 2>&1 || rc=$?
	assert_eq 1 "$rc" "exit status of the first job"
	cp -a jrep jbefore
	for ((k = 1; k < 100; k++)); do
		rc=0
		RK_SPILL_BYTES=1 RECKON_TEST_FAULT=findstore-pass:fail@$k "$RECKON_FAULTS" check --job job.ini \
			--report jrep --format json >k.out 2>k.err || rc=$?
		[[ $rc == 3 ]] || break
		assert_contains k.err "cannot read the findings' store again"
		assert_eq 3 "$(jq -r '.exit_status' k.out)" "the job's exit status in its summary at pass $k"
		if grep -q "table t: cannot read the findings' store again" k.err; then
			assert_eq error "$(jq -r '.tables.t.verdict' k.out)" "the table's verdict at pass $k"
		fi
		assert_eq "" "$(temporaries .)" "temporaries left at pass $k"
	done
	assert_eq 1 "$rc" "exit status once no pass fails"
	assert_eq 1 "$((k > 9))" "passes of the store ($((k - 1)))"
	assert_file_eq jrep/t/findings.csv jbefore/t/findings.csv
	# the text on stdout: its last pass is the damage's, and when that one
	# fails the text says so and the job fails
	for ((k = 1; k < 100; k++)); do
		rc=0
		RK_SPILL_BYTES=1 RECKON_TEST_FAULT=findstore-pass:fail@$k "$RECKON_FAULTS" check --job job.ini \
			>t.out 2>t.err || rc=$?
		[[ $rc == 3 ]] || break
		cp t.out last.out
		assert_contains t.err "cannot read the findings' store again"
	done
	assert_eq 1 "$rc" "exit status of the text job once no pass fails"
	assert_contains last.out "(the findings could not be read: cannot read the findings' store again"
	assert_contains last.out "exit status 3"
}
