# shellcheck shell=bash
# Large values (docs/performance.md "Large values"): a text value of
# RECKON_LARGE_VALUE bytes or more of a table is sent out of band by the
# digest pass (NULL and a marker in the COPY row, its bytes read back by
# ctid after the COPY, in chunks of RECKON_LARGE_CHUNK bytes, into XXH3's
# streaming state); of a view, hashed where it lies in the row.  The bound
# forced small runs those paths on small values: every digest, finding,
# change and rerun list must be byte-identical to the normal path's, in
# COPY text and binary, whatever the chunks cut (multibyte characters).

SRC=lv_src
TGT=lv_tgt
RANGE=(--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h --now 2026-04-01T00:00:00Z)

setup_file() {
	createdb $SRC
	createdb $TGT
	for db in $SRC $TGT; do
		sql $db "create schema mart;
		         create table mart.big (id int primary key, ts timestamptz not null, note text, amount numeric(12,2));
		         insert into mart.big
		         select g, '2026-03-02 00:00:00+00'::timestamptz + g * interval '37 seconds',
		                case when g % 7 = 0 then null else repeat(md5(g::text), g % 97) end,
		                (g * 1.25)::numeric(12,2)
		         from generate_series(1, 300) g;
		         -- at the bounds, empty, multibyte (2, 3 and 4 bytes a character)
		         insert into mart.big
		         select 300 + k, '2026-03-02 03:30:00+00'::timestamptz + k * interval '1 second', v, k
		         from (values (1, repeat('a', 64)), (2, repeat('b', 1000)), (3, repeat('é€😀', 200)),
		                      (4, ''), (5, repeat('😀', 16)), (6, repeat('€', 333) || 'x'),
		                      (7, repeat('c', 63)), (8, 'é'), (9, repeat('😀', 250)), (10, null)) as x(k, v);
		         create view mart.big_view as select * from mart.big;
		         create table mart.part (like mart.big) partition by range (ts);
		         create index on mart.part (id);
		         create table mart.part_a partition of mart.part for values from (minvalue) to ('2026-03-02 02:00+00');
		         create table mart.part_b partition of mart.part for values from ('2026-03-02 02:00+00') to (maxvalue);
		         insert into mart.part select * from mart.big" >/dev/null
	done
}

# big_check BOUND FORMAT WANT [TABLE]: one check of TABLE (mart.big) with
# RECKON_LARGE_VALUE=BOUND (empty: the default, past every value) reading
# COPY FORMAT, its windows, findings, changes and rerun list kept as
# out.BOUND.FORMAT.*, its log as log.BOUND.FORMAT; the chunks values sent out
# of band are read back in are 7, 3 and 1 bytes for the bounds 1, 64, 1000
big_check() {
	local chunk
	case $1 in 1) chunk=7 ;; 64) chunk=3 ;; 1000) chunk=1 ;; *) chunk= ;; esac
	rm -rf rep rerun.csv
	RECKON_LARGE_VALUE=$1 RECKON_LARGE_CHUNK=$chunk RECKON_COPY_FORMAT=$2 assert_exit "$3" rk check -vv \
		--source "$(conn $SRC)" --target "$(conn $TGT)" --table "${4:-mart.big}" --key id --time ts --sum amount \
		"${RANGE[@]}" --report rep --rerun-list rerun.csv
	cp "$ERR" "log.$1.$2"
	for f in windows findings changes; do
		if [[ -f rep/$f.csv ]]; then cp rep/$f.csv "out.$1.$2.$f.csv"; else : >"out.$1.$2.$f.csv"; fi
	done
	if [[ -f rerun.csv ]]; then cp rerun.csv "out.$1.$2.rerun.csv"; else : >"out.$1.$2.rerun.csv"; fi
}

# same_as_normal WANT [TABLE]: every bound and format gives the normal
# path's files
same_as_normal() {
	local b fmt f
	for fmt in text binary; do
		for b in "" 1 64 1000; do
			big_check "$b" $fmt "$1" "${2:-}"
		done
	done
	for fmt in text binary; do
		for b in 1 64 1000; do
			for f in windows findings changes rerun; do
				assert_file_eq "out.$b.$fmt.$f.csv" "out..$fmt.$f.csv"
			done
		done
	done
	for f in windows findings changes rerun; do
		assert_file_eq out..text.$f.csv out..binary.$f.csv
	done
}

# sent_out_of_band FORMAT BOUND ROWS: the digest pass of each side read
# ROWS rows' values back after its COPY (none at the default bound)
sent_out_of_band() {
	assert_eq 2 "$(grep -c ": $3 rows with values of $2 bytes or more, read after the scan" "log.$2.$1")"
	assert_not_contains "log..$1" "read after the scan"
}

test_large_values_equal_sides() {
	same_as_normal 0
	assert_eq "match match match match" "$(tail -n +2 out..text.windows.csv | cut -d, -f3 | paste -sd' ')"
	# bound 1: every non-empty note (263); 64 and 1000: those past them
	assert_eq 263 "$(sql $SRC "select count(*) from mart.big where note <> ''")"
	for fmt in text binary; do
		for b in 1 64 1000; do
			sent_out_of_band $fmt $b "$(sql $SRC "select count(*) from mart.big where octet_length(note) >= $b")"
		done
	done
}

# A view's rows have no ctid to be read again by: its large values stay in
# their rows (hashed where they lie), with the same digests.
test_large_values_view_in_band() {
	same_as_normal 0 mart.big_view
	assert_file_eq out..text.windows.csv out.1.binary.windows.csv
	assert_not_contains log.1.text "read after the scan"
	assert_not_contains log.1.binary "read after the scan"
}

test_large_values_differing_side() {
	sql $TGT "update mart.big set note = note || 'x' where id = 40;
	          update mart.big set amount = amount + 1 where id = 200;
	          delete from mart.big where id = 300" >/dev/null
	same_as_normal 1
	assert_contains out..text.changes.csv ",40,note,"
	assert_contains out..text.findings.csv ",missing,300,"
}

# A large value one byte different on the target: the window differs, the
# drilldown (which reads values in their rows) finds the row, whatever path
# the digest pass took.
test_large_values_damaged_window() {
	sql $TGT "update mart.big set note = repeat('b', 999) || 'B' where id = 302" >/dev/null
	same_as_normal 1
	assert_eq differ "$(wfield out..text.windows.csv 2026-03-02T03:00:00Z status)"
	assert_contains out..text.changes.csv ",302,note,"
	assert_contains out..text.rerun.csv "2026-03-02T03:00:00Z"
	sent_out_of_band binary 1000 "$(sql $SRC "select count(*) from mart.big where octet_length(note) >= 1000")"
}

# At the default bound (a mebibyte) a table's values go out of band only
# when its TOAST table holds data, where every such value lives: a
# compressed one (read back decompressed once) and one stored as it is.
test_large_values_default_bound() {
	local fmt
	for db in $SRC $TGT; do
		sql $db "create table mart.huge (id int primary key, ts timestamptz not null, note text);
		         create table mart.small (like mart.huge including all);
		         alter table mart.huge alter column note set storage external;
		         insert into mart.huge values (1, '2026-03-02 00:10:00+00', repeat('z', 1100000)),
		                (2, '2026-03-02 00:20:00+00', 'small'), (3, '2026-03-02 00:30:00+00', null);
		         insert into mart.small select * from mart.huge where id > 1;
		         alter table mart.huge alter column note set storage extended;
		         insert into mart.huge select 4, '2026-03-02 00:40:00+00', string_agg(md5(g::text), '')
		         from generate_series(1, 40000) g" >/dev/null
	done
	for fmt in text binary; do
		for t in huge small; do
			rm -rf rep
			RECKON_COPY_FORMAT=$fmt assert_exit 0 rk check -vv --source "$(conn $SRC)" --target "$(conn $TGT)" \
				--table mart.$t --key id --time ts "${RANGE[@]}" --report rep
			cp "$ERR" log.$t.$fmt
			cp rep/windows.csv out.$t.$fmt.windows.csv
		done
		assert_eq 2 "$(grep -c ": 2 rows with values of 1048576 bytes or more, read after the scan" log.huge.$fmt)"
		assert_not_contains log.small.$fmt "read after the scan"
		assert_contains log.small.$fmt "its TOAST tables are empty"
		rm -rf rep
		RECKON_LARGE_VALUE=2000000 RECKON_COPY_FORMAT=$fmt assert_exit 0 rk check --source "$(conn $SRC)" \
			--target "$(conn $TGT)" --table mart.huge --key id --time ts "${RANGE[@]}" --report rep
		assert_file_eq out.huge.$fmt.windows.csv rep/windows.csv
	done
	assert_file_eq out.huge.text.windows.csv out.huge.binary.windows.csv
	sql $TGT "update mart.huge set note = note || 'z' where id = 1" >/dev/null
	RECKON_COPY_FORMAT=binary assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" \
		--table mart.huge --key id --time ts "${RANGE[@]}" --report rep
	assert_eq "differ match match match" "$(statuses rep/windows.csv)"
}

# big_reports BOUND FORMAT WANT OUT [ARGS...]: one check with the bound and
# chunk of big_check, every report file kept in OUT (the time it ran at
# taken out of report.html), the rerun list as OUT.rerun.csv and the log as
# OUT.log
big_reports() {
	local chunk b=$1 fmt=$2 want=$3 out=$4
	shift 4
	case $b in 1) chunk=7 ;; 64) chunk=3 ;; 1000) chunk=1 ;; *) chunk= ;; esac
	rm -rf rep rerun.csv "$out"
	RECKON_LARGE_VALUE=$b RECKON_LARGE_CHUNK=$chunk RECKON_COPY_FORMAT=$fmt assert_exit "$want" rk check -vv \
		--source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.big --key id --time ts --sum amount \
		"${RANGE[@]}" --report rep --rerun-list rerun.csv "$@"
	cp "$ERR" "$out.log"
	sed -i -E -e 's/(run at <span class="mono">)[0-9T:Z-]+</\1RUN-AT</' \
		-e 's/(id="ran-at">)[0-9T:Z-]+</\1RUN-AT</' rep/report.html
	assert_eq 2 "$(grep -c RUN-AT rep/report.html)"
	mv rep "$out"
	mv rerun.csv "$out.rerun.csv"
}

# same_reports WANT ARGS...: at every bound and format every report file is
# the one of the run with the bound past every value; each run's drilldown
# read its large values back after its scans (beyond the digest pass's)
same_reports() {
	local b fmt f n
	for fmt in text binary; do
		big_reports "" $fmt "$1" "rp..$fmt" "${@:2}"
		assert_not_contains "rp..$fmt.log" "read after the scan"
		for b in 1 64 1000; do
			big_reports $b $fmt "$1" "rp.$b.$fmt" "${@:2}"
			for f in rp..$fmt/*; do
				assert_file_eq "rp.$b.$fmt/${f##*/}" "$f"
			done
			assert_eq "$(find "rp..$fmt" -type f | wc -l)" "$(find "rp.$b.$fmt" -type f | wc -l)"
			assert_file_eq "rp.$b.$fmt.rerun.csv" "rp..$fmt.rerun.csv"
			n=$(grep -c "read after the scan" "rp.$b.$fmt.log")
			[[ $n -gt 2 ]] || fail "bound $b, $fmt: only $n scans read values back (the digest pass's)"
		done
	done
}

# Several keys whose large values differ (at the bound, multibyte characters
# cut by the chunks, empty, NULL, the last byte only): the drilldown and the
# changed values read them back out of band, in chunks, and every report
# file is the in-row run's, streamed and with the digests and the
# drilldown's narrowing in the database.
test_large_values_drilldown() {
	local db
	sql $TGT "update mart.big set note = note || 'y' where id in (12, 45, 96);
	          update mart.big set note = repeat('b', 999) || 'B' where id = 302;
	          update mart.big set note = repeat('a', 63) || 'A' where id = 301;
	          update mart.big set note = repeat('é€😀', 199) || 'é€😁' where id = 303;
	          update mart.big set note = repeat('€', 333) || 'y' where id = 306;
	          update mart.big set note = repeat('é', 700) where id = 304;
	          update mart.big set note = null where id = 309;
	          update mart.big set note = repeat('z', 1500) where id = 310;
	          update mart.big set amount = amount + 1 where id = 95;
	          delete from mart.big where id = 94" >/dev/null
	same_reports 1
	for f in 12 45 96 301 302 303 304 306 309 310; do
		assert_contains rp..text/changes.csv ",$f,note,"
	done
	assert_contains rp..text/changes.csv ",95,amount,"
	assert_not_contains rp..text/changes.csv ",95,note,"
	for db in $SRC $TGT; do
		ext_create $db
	done
	same_reports 1 --pushdown
	assert_contains rp.1.binary.log "source: the drilldown narrows the damage in the database"
	assert_contains rp.1.binary.log "target: the drilldown narrows the damage in the database"
	same_reports 1 --no-values
	assert_not_contains rp..text/changes.csv "bbbb"
}

# A value read back other than its marker said, and a marker garbled (the
# fault hooks of reckon-faults: a row changed under the snapshot, a server
# that sent something else): the check fails with what and where, exit 3,
# and leaves no report, no rerun list and no temporary behind.
test_large_values_read_back_faults() {
	local step want hint
	for step in pglarge-read-back pglarge-marker; do
		case $step in
		pglarge-read-back)
			want="column note: a value of [0-9]+ bytes was read back as [0-9]+"
			hint="the row changed under the read's snapshot" ;;
		pglarge-marker)
			want="a row's large-value marker '[^']*' has no size for column note"
			hint="set RECKON_LARGE_VALUE past the table's largest value" ;;
		esac
		rm -rf rep rerun.csv
		RECKON_LARGE_VALUE=64 assert_exit 3 env RECKON_TEST_FAULT=$step:fail "$RECKON_FAULTS" check \
			--source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.big --key id --time ts --sum amount \
			"${RANGE[@]}" --report rep --rerun-list rerun.csv
		assert_match "$(cat "$ERR")" "table mart.big on .*: $want"
		assert_contains "$ERR" "$hint"
		assert_eq "" "$(find . -maxdepth 1 \( -name rep -o -name rerun.csv -o -name '*.tmp.reckon-*' \) -printf '%f ')" \
			"outputs left by a failed check ($step)"
	done
}

# A partitioned table's rows are read again by (tableoid, ctid) like a
# table's: its large values go out of band, the files the same as the
# in-row path's.  A foreign partition has no ctid to read a row again by:
# then that side keeps every value in its row, with the same files.
test_large_values_partitioned() {
	sql $TGT "update mart.part set note = note || 'y' where id in (40, 302)" >/dev/null
	same_as_normal 1 mart.part
	sent_out_of_band binary 64 "$(sql $SRC "select count(*) from mart.part where octet_length(note) >= 64")"
	sql $TGT >/dev/null <<-SQL
		create extension if not exists postgres_fdw;
		create server lv_self foreign data wrapper postgres_fdw
		    options (host '$PGHOST', port '$PGPORT', dbname '$TGT');
		create user mapping for current_user server lv_self options (user '$PGUSER');
		alter table mart.part detach partition mart.part_b;
		alter table mart.part_b rename to part_b_local;
		create foreign table mart.part_b partition of mart.part
		    for values from ('2026-03-02 02:00+00') to (maxvalue)
		    server lv_self options (schema_name 'mart', table_name 'part_b_local');
	SQL
	big_check 64 binary 1 mart.part
	assert_contains log.64.binary "target table mart.part on"
	assert_contains log.64.binary "1 of its tables are foreign: every value in its row"
	# the source's values still go out of band, the target's none
	assert_match "$(grep "bytes or more, read after the scan" log.64.binary | grep -c "source table mart.part")" '^[1-9]'
	assert_eq "" "$(grep "bytes or more, read after the scan" log.64.binary | grep "target table" || true)"
	for f in windows findings changes rerun; do
		assert_file_eq "out.64.binary.$f.csv" "out..binary.$f.csv"
	done
	# a table whose inheritance child is foreign: the same
	sql $SRC "create table mart.inh as select * from mart.part" >/dev/null
	sql $TGT "create table mart.inh as select * from mart.part_a;
	          create foreign table mart.inh_b () inherits (mart.inh)
	              server lv_self options (schema_name 'mart', table_name 'part_b_local')" >/dev/null
	assert_eq "$(sql $SRC "select count(*) from mart.inh")" "$(sql $TGT "select count(*) from mart.inh")"
	big_check 64 binary 1 mart.inh
	assert_contains log.64.binary "1 of its tables are foreign: every value in its row"
	assert_eq "" "$(grep "bytes or more, read after the scan" log.64.binary | grep "target table" || true)"
	for f in windows findings changes rerun; do
		assert_file_eq "out.64.binary.$f.csv" "out..binary.$f.csv"
	done
}
