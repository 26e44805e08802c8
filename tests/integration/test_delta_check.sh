# shellcheck shell=bash disable=SC2054
# Delta tables (delta:PATH) as a side of reckon check, against PostgreSQL.
#
# The property (digest.md, docs/delta.md): a Delta table holding the same
# rows as a PostgreSQL table gives bit-identical window digests, counts,
# sums and findings on every type the two share.  The Delta tables are
# written here, from a CSV export of the PostgreSQL rows, by the tests' own
# writer (tests/harness/deltawrite.c: DuckDB writes the Parquet files, the
# writer the log), and damaged the ways a lake is damaged: a file removed
# from the log, a deletion vector that hides a row.

SRC=dl_src
TGT=dl_tgt
REF=dl_ref
DELTAWRITE=$(dirname "$RECKON")/tests/rk-deltawrite

COLS=id,i2,i4,i8,n2,n38,f4,f8,b,txt,d,ts,tsl,bin
SUMS=i2,i4,i8,n2,n38
DDL="id bigint primary key, i2 smallint, i4 integer, i8 bigint, n2 numeric(12,2), n38 numeric(38,10),
     f4 real, f8 double precision, b boolean, txt text, d date, ts timestamptz, tsl timestamp, bin bytea"
RANGE=(--from 2026-03-01T00:00:00Z --to 2026-03-04T00:00:00Z --now 2026-03-10T00:00:00Z)
PINNED="-c TimeZone=UTC -c DateStyle=ISO,YMD -c extra_float_digits=3 -c bytea_output=hex"
# the CSV export's columns as DuckDB reads them into the Delta table
DUCKCOLS="{'id':'BIGINT','i2':'SMALLINT','i4':'INTEGER','i8':'BIGINT','n2':'DECIMAL(12,2)',
'n38':'DECIMAL(38,10)','f4':'FLOAT','f8':'DOUBLE','b':'BOOLEAN','txt':'VARCHAR','d':'DATE',
'ts':'TIMESTAMPTZ','tsl':'TIMESTAMP','bin':'VARCHAR'}"

setup_file() {
	[[ -x $DELTAWRITE ]] || fail "$DELTAWRITE is missing: make $(dirname "$RECKON")/tests/rk-deltawrite"
	createdb $SRC
	createdb $TGT
	createdb $REF
}

# mk_random DB SEED ROWS - t: the types a Delta table and PostgreSQL share,
# with NULLs, empty strings, float specials, boundary instants and rows
# outside the range
mk_random() {
	sql "$1" >/dev/null <<-SQL
		drop table if exists t;
		create table t ($DDL);
		select setseed($2);
		insert into t
		select g,
		  case when random() < 0.06 then null else (floor(random() * 65536) - 32768)::int end,
		  case when random() < 0.06 then null else (floor(random() * 4294967296) - 2147483648)::bigint end,
		  case when random() < 0.06 then null else ((random() - 0.5) * 9.2e18)::bigint end,
		  case when random() < 0.06 then null else round(((random() - 0.5) * 1e9)::numeric, 2) end,
		  case when random() < 0.06 then null
		       else round(((random() - 0.5) * 10 ^ floor(random() * 28))::numeric, floor(random() * 11)::int) end,
		  case when random() < 0.06 then null
		       else (array['NaN', '-0', '0', 'Infinity', '-Infinity', '1e-45', '3.4028235e38', '0.1',
		                   ((random() - 0.5) * 10 ^ (random() * 20 - 10))::text])[1 + floor(random() * 9)::int]::real end,
		  case when random() < 0.06 then null
		       else (array['NaN', '-0', '0', 'Infinity', '-Infinity', '5e-324', '1.7976931348623157e308',
		                   (0.1::float8 + 0.2::float8)::text,
		                   ((random() - 0.5) * 10 ^ (random() * 40 - 20))::text])[1 + floor(random() * 9)::int]::float8 end,
		  case when random() < 0.06 then null else random() < 0.5 end,
		  case when random() < 0.06 then null
		       else (array['', 'a,b', 'say "hi"', e'two\nlines', e'tab\there', 'Zürich ✓', '東京', '  lead',
		                   'trail  ', 'N', e'\\\\N'])[1 + floor(random() * 11)::int]
		            || case when random() < 0.5 then md5(g::text) else '' end end,
		  case when random() < 0.06 then null else date '2026-02-28' + floor(random() * 6)::int end,
		  case when random() < 0.06 then null
		       when random() < 0.15 then timestamptz '2026-03-01 00:00:00+00' + floor(random() * 13)::int * interval '6 hours'
		                                 + (array[interval '0', interval '-1 microsecond', interval '1 microsecond'])[1 + floor(random() * 3)::int]
		       else timestamptz '2026-02-28 00:00:00+00' + random() * interval '6 days' end,
		  case when random() < 0.06 then null
		       when random() < 0.15 then timestamp '2026-03-01 00:00:00' + floor(random() * 13)::int * interval '6 hours'
		       else timestamp '2026-02-28 00:00:00' + random() * interval '6 days' end,
		  case when random() < 0.06 then null else decode(md5(g::text), 'hex') || '\x00ff5c'::bytea end
		from generate_series(1, $3) g;
	SQL
}

# copy_table FROM TO - TO's t becomes a copy of FROM's
copy_table() {
	PGOPTIONS="$PINNED" export_csv "$1" "select * from t" copy.csv
	sql "$2" "drop table if exists t; create table t ($DDL)" >/dev/null
	import_csv "$2" t copy.csv
}

# to_delta DB DIR FILES - DB's t written as the Delta table DIR in FILES
# files, in time order (NULL times first)
to_delta() {
	PGOPTIONS="$PINNED" export_csv "$1" "select $COLS from t" "$PWD/$2.csv"
	rm -rf "$2"
	"$DELTAWRITE" "$PWD/$2" create "$3" "SELECT * EXCLUDE (bin), CASE WHEN bin IS NULL THEN NULL ELSE
		unhex(substr(bin, 3)) END AS bin FROM read_csv('$PWD/$2.csv', header = true, allow_quoted_nulls = false,
		columns = $DUCKCOLS) ORDER BY ts NULLS FIRST, id" || fail "rk-deltawrite create $2 failed"
}

# dl_check SOURCE TARGET REPORT_DIR [OPTION...] - t checked
dl_check() {
	rk check --source "$1" --target "$2" --table t --key id --columns "$COLS" "${RANGE[@]}" --report "$3" "${@:4}"
}

# same_reports A B - windows.csv, findings.csv and summary.json alike (but
# for the sides' descriptions, what they read, the Delta side's history and
# the diagnosis, whose evidence names the sources)
# (changed values are read from PostgreSQL and CSV sides only: a Delta side
# counts its changed keys as unread, so .changes is compared by neither)
same_reports() {
	local f
	for f in windows.csv findings.csv; do
		assert_file_eq "$1/$f" "$2/$f"
	done
	jq -S 'del(.drilldown, .source, .target, .read, .diagnosis, .history)' "$1/summary.json" >"$1/summary.core.json"
	jq -S 'del(.drilldown, .source, .target, .read, .diagnosis, .history)' "$2/summary.json" >"$2/summary.core.json"
	assert_file_eq "$1/summary.core.json" "$2/summary.core.json"
}

# four_ways DIR WANT_EXIT [OPTION...] - the same rows as source read four
# ways (PostgreSQL COPY text, binary COPY, CSV, Delta) against the damaged
# target: the same exit status and the same reports
four_ways() {
	local dir=$1 want=$2
	shift 2
	mkdir -p "$dir/text" "$dir/bin" "$dir/csv" "$dir/delta"
	RECKON_COPY_FORMAT=text assert_exit "$want" dl_check "$(conn $SRC)" "$(conn $TGT)" "$dir/text" "$@"
	assert_exit "$want" dl_check "$(conn $SRC)" "$(conn $TGT)" "$dir/bin" -vv "$@"
	# bytea has no binary COPY form reckon reads: those scans take COPY text
	[[ $COLS == *bin* ]] || assert_contains "$ERR" "FORMAT binary"
	assert_exit "$want" dl_check csv:src.csv "$(conn $TGT)" "$dir/csv" "$@"
	assert_exit "$want" dl_check delta:src "$(conn $TGT)" "$dir/delta" -v "$@"
	assert_contains "$ERR" "source delta:src (version 0)"
	same_reports "$dir/bin" "$dir/text"
	same_reports "$dir/csv" "$dir/text"
	same_reports "$dir/delta" "$dir/text"
}

test_four_readers_same_digests() {
	local seed n=0
	for seed in 0.31 -0.52; do
		n=$((n + 1))
		mk_random $SRC "$seed" 2000
		copy_table $SRC $TGT
		PGOPTIONS="$PINNED" export_csv $SRC "select $COLS from t" src.csv
		to_delta $SRC src 5
		mkdir -p "c$n"
		# clean: every window matches, whichever reader
		four_ways "c$n/ts" 1 --time ts --window 6h --sum "$SUMS"
		assert_eq "match match match match match match match match match match match match" \
			"$(statuses "c$n/ts/delta/windows.csv")"
		four_ways "c$n/tsl" 1 --time tsl --window 6h --sum "$SUMS" --jobs 2
		four_ways "c$n/d" 1 --time d --window 1d --sum "$SUMS"
		COLS=${COLS%,bin} four_ways "c$n/binary" 1 --time ts --window 6h --sum "$SUMS"
	done
	# damaged target: the same findings whichever reader read the source
	sql $TGT "delete from t where id in (select id from t where ts >= '2026-03-01 06:00+00'
	          and ts < '2026-03-01 12:00+00' order by id limit 2);
	          update t set n2 = n2 + 0.01 where id = (select min(id) from t where n2 is not null
	          and ts >= '2026-03-02 00:00+00' and ts < '2026-03-03 00:00+00');
	          update t set f8 = 0.5, i8 = coalesce(i8, 0) + 1, tsl = coalesce(tsl, '2026-03-03') + interval '1.5 s'
	          where id = (select min(id) from t where f8 is distinct from 0.5
	          and ts >= '2026-03-03 00:00+00' and ts < '2026-03-04 00:00+00')" >/dev/null
	four_ways dmg 1 --time ts --window 6h --sum "$SUMS"
	assert_eq "4" "$(grep -c '^[^,]*,[^,]*,\(missing\|changed\)' dmg/delta/findings.csv || true)"
	# keys of every shared type show as PostgreSQL's side shows them
	four_ways dmgkeys 1 --time ts --window 6h --sum "$SUMS" --key id,ts,tsl,n2,txt,d,b,i2
	assert_eq "4" "$(grep -c '^[^,]*,[^,]*,\(missing\|changed\)' dmgkeys/delta/findings.csv || true)"
}

# A Delta target holding a damaged copy: missing, extra, duplicated and
# changed keys are found as in the same rows in PostgreSQL.
test_delta_target_damage() {
	mk_random $SRC 0.77 800
	copy_table $SRC $REF
	sql $REF "alter table t drop constraint t_pkey;
	          delete from t where id = (select min(id) from t where ts >= '2026-03-01 00:00+00' and ts < '2026-03-01 06:00+00');
	          insert into t select id + 100000, i2, i4, i8, n2, n38, f4, f8, b, txt, d, ts, tsl, bin from t
	              where id = (select min(id) from t where ts >= '2026-03-01 12:00+00' and ts < '2026-03-01 18:00+00');
	          insert into t select * from t
	              where id = (select min(id) from t where ts >= '2026-03-02 00:00+00' and ts < '2026-03-02 06:00+00');
	          update t set txt = coalesce(txt, '') || 'x'
	              where id = (select min(id) from t where ts >= '2026-03-03 00:00+00' and ts < '2026-03-03 06:00+00')" \
		>/dev/null
	to_delta $REF tgt 3
	mkdir pg delta
	assert_exit 1 dl_check "$(conn $SRC)" "$(conn $REF)" pg --time ts --window 6h --sum "$SUMS"
	assert_exit 1 dl_check "$(conn $SRC)" delta:tgt delta --time ts --window 6h --sum "$SUMS"
	same_reports delta pg
	assert_eq "1 1 1 1" "$(jq -r '[.findings.missing, .findings.extra, .findings.duplicated, .findings.changed] | join(" ")' \
		delta/summary.json)"
}

# A file removed from the log and a deletion vector that hides a row: the
# Delta table lacks those rows, and the check says exactly which.
test_file_removed_and_deletion_vector() {
	mk_random $SRC 0.12 800
	to_delta $SRC lake 4
	"$DELTAWRITE" "$PWD/lake" remove 1 || fail "rk-deltawrite remove failed"
	"$DELTAWRITE" "$PWD/lake" dv 2 5 || fail "rk-deltawrite dv failed"
	# the same rows gone from a PostgreSQL copy: file 1 held rows 200..399
	# in the writer's order, file 2 rows 400..599 (its row 5: the 406th)
	copy_table $SRC $REF
	sql $REF "delete from t where id in (select id from (select id, row_number() over (order by ts nulls first, id) - 1 as rn
	          from t) o where rn between 200 and 399 or rn = 405)" >/dev/null
	mkdir pg delta old
	assert_exit 1 dl_check "$(conn $SRC)" "$(conn $REF)" pg --time ts --window 6h
	assert_exit 1 dl_check "$(conn $SRC)" delta:lake delta --time ts --window 6h
	same_reports delta pg
	assert_ne "0" "$(jget delta/summary.json .findings.missing)"
	# version 0 is still whole
	assert_exit 1 dl_check "$(conn $SRC)" delta:lake@0 old --time ts --window 6h
	assert_eq "0" "$(jget old/summary.json .windows.differ)"
}

# Files whose stats place them outside the check range are not opened; the
# drilldown reads only the damaged window's file.
test_file_skipping() {
	sql $SRC >/dev/null <<-'SQL'
		drop table if exists h;
		create table h (id bigint, ts timestamptz, v numeric(12,2));
		insert into h select g, timestamptz '2026-03-01 00:00:00.0005+00' + g * interval '1 hour', g * 1.5
		from generate_series(0, 95) g;
	SQL
	PGOPTIONS="$PINNED" export_csv $SRC "select * from h" h.csv
	"$DELTAWRITE" "$PWD/h" create 4 "SELECT * FROM read_csv('$PWD/h.csv', header = true,
		columns = {'id':'BIGINT','ts':'TIMESTAMPTZ','v':'DECIMAL(12,2)'}) ORDER BY ts" || fail "rk-deltawrite failed"
	mkdir last all
	# the last day of four: one file of four (its last row is 00:00:00.0005
	# past its stats' millisecond maximum: still read)
	assert_exit 0 rk check --source "$(conn $SRC)" --target delta:h --table h --key id --time ts \
		--from 2026-03-04T00:00:00Z --to 2026-03-05T00:00:00Z --window 1d --now 2026-03-10T00:00:00Z --report last -v
	assert_contains "$ERR" "target delta:h (version 0): reading 1 of 4 files"
	assert_eq "1" "$(jget last/summary.json .read.target.files)"
	assert_eq "24" "$(jget last/summary.json .target_rows)"
	assert_eq "false" "$(jq 'has("read") and (.read | has("source"))' last/summary.json)"
	# one row changed on day 2: the digest pass reads the four files, the
	# drilldown the day-2 file alone
	sql $SRC "update h set v = v + 1 where id = 30" >/dev/null
	assert_exit 1 rk check --source "$(conn $SRC)" --target delta:h --table h --key id --time ts \
		--from 2026-03-01T00:00:00Z --to 2026-03-05T00:00:00Z --window 1d --now 2026-03-10T00:00:00Z --report all -v
	assert_contains "$ERR" "target delta:h (version 0): reading 4 of 4 files"
	assert_contains "$ERR" "target delta:h (version 0): reading 1 of 4 files"
	assert_not_contains "$ERR" "target delta:h (version 0): reading 2 of 4 files"
	assert_eq "30" "$(cut -d, -f4 all/findings.csv | tail -n 1)"
	# a file outside the range is not opened at all, not even for its
	# footer: day 1's file, garbled, does not stop a check of day 4, and a
	# check of day 1 fails naming it
	printf 'not parquet' >h/part-00000-reckon-test.snappy.parquet
	assert_exit 0 rk check --source "$(conn $SRC)" --target delta:h --table h --key id --time ts \
		--from 2026-03-04T00:00:00Z --to 2026-03-05T00:00:00Z --window 1d --now 2026-03-10T00:00:00Z
	assert_exit 3 rk check --source "$(conn $SRC)" --target delta:h --table h --key id --time ts \
		--from 2026-03-01T00:00:00Z --to 2026-03-02T00:00:00Z --window 1d --now 2026-03-10T00:00:00Z
	assert_contains "$ERR" "part-00000-reckon-test.snappy.parquet"
}

# Mapping and filters on a Delta side are DuckDB SQL over its columns; its
# column names match as a CSV header's do; no table name needed.
test_mapping_filter_and_names() {
	mk_random $SRC 0.9 300
	copy_table $SRC $TGT
	to_delta $SRC m 2
	mkdir a b c
	# a target that names its columns in capitals and computes one
	sql $TGT "drop table if exists t2; create table t2 as select id as \"ID\", ts as \"Ts\", n2 * 100 as cents, txt from t" \
		>/dev/null
	assert_exit 1 rk check --source delta:m --target "$(conn $TGT)" --target-table t2 --key '"ID"' --time '"Ts"' \
		--columns '"ID","Ts",cents,txt' --source-expr 'cents=CAST(n2 * 100 AS DECIMAL(14,2))' "${RANGE[@]}" --window 6h --report a
	# a filter: the rows of the filter only
	sql $TGT "drop table if exists t3; create table t3 as select id, ts, txt from t where id % 2 = 0" >/dev/null
	assert_eq "match match match match match match match match match match match match" "$(statuses a/windows.csv)"
	assert_exit 1 rk check --source delta:m --target "$(conn $TGT)" --target-table t3 --key id --time ts \
		--columns id,ts,txt --source-where 'id % 2 = 0' "${RANGE[@]}" --window 6h --report b
	assert_eq "match match match match match match match match match match match match" "$(statuses b/windows.csv)"
	assert_exit 1 rk check --source delta:m --target "$(conn $TGT)" --target-table t3 --key id --time ts \
		--columns id,ts,txt "${RANGE[@]}" --window 6h --report c
	assert_ne "0" "$(jget c/summary.json .findings.missing)"
	# refusals: an unknown column, an expression DuckDB refuses
	assert_exit 2 rk check --source delta:m --target "$(conn $TGT)" --target-table t3 --key id --time ts \
		--columns id,ts,nope "${RANGE[@]}" --window 6h
	assert_contains "$ERR" "source delta:m (version 0) has no column 'nope' (its columns: 'id', 'i2'"
	assert_exit 2 rk check --source delta:m --target "$(conn $TGT)" --target-table t3 --key id --time ts \
		--columns id,ts,txt --source-expr 'txt=no_such_function(txt)' "${RANGE[@]}" --window 6h
	assert_contains "$ERR" "no_such_function"
	assert_contains "$ERR" "DuckDB SQL"
	# a data file the log names and the disk lacks: exit 3 naming it
	rm m/part-00001-reckon-test.snappy.parquet
	assert_exit 3 rk check --source delta:m --target "$(conn $TGT)" --target-table t3 --key id --time ts \
		--columns id,ts,txt "${RANGE[@]}" --window 6h
	assert_contains "$ERR" "part-00001-reckon-test.snappy.parquet"
}

# A job of two tables, one of them Delta, damaged; the report read.
test_job_with_a_delta_table() {
	mk_random $SRC 0.44 400
	copy_table $SRC $TGT
	to_delta $SRC lakecopy 2
	sql $TGT "delete from t where id = (select min(id) from t where ts >= '2026-03-02 00:00+00')" >/dev/null
	cat >job.ini <<-INI
		[defaults]
		source = $(conn $SRC)
		from = 2026-03-01T00:00:00Z
		to = 2026-03-04T00:00:00Z
		now = 2026-03-10T00:00:00Z
		window = 6h
		key = id
		time = ts

		[table pg]
		target = $(conn $TGT)
		table = t

		[table lake]
		table = t
		target = delta:$PWD/lakecopy
	INI
	mkdir rep
	assert_exit 1 rk check --job job.ini --report rep
	assert_eq "0" "$(jget rep/lake/summary.json .windows.differ)"
	assert_eq "1" "$(jget rep/pg/summary.json .windows.differ)"
	assert_eq "1" "$(jget rep/pg/summary.json .findings.missing)"
	assert_eq "2" "$(jget rep/lake/summary.json .read.target.files)"
}

# The shared tables Spark and others wrote (../shared/data/delta): a
# timestamp partition column written without a zone is read in
# --delta-partition-zone (the writer's, here America/Los_Angeles), UTC by
# default; and a Delta side of a check against itself matches.
test_partition_zone_option() {
	local dir t
	for dir in "${RK_DELTA_TABLES:-}" "$RK_REPO/../shared/data/delta" "$RK_REPO/../../shared/data/delta"; do
		[[ -n $dir && -d $dir/data-reader-partition-values ]] && break
	done
	[[ -d $dir/data-reader-partition-values ]] || skip "the shared Delta tables (../shared/data/delta) are not here"
	t=$dir/data-reader-partition-values
	mkdir utc la
	assert_exit 1 rk check --source "delta:$t" --target "delta:$t" --key as_int --time as_timestamp \
		--from 2021-09-08T00:00:00Z --to 2021-09-09T00:00:00Z --window 1h --now 2026-01-01T00:00:00Z --report utc
	assert_eq "2" "$(wfield utc/windows.csv 2021-09-08T11:00:00Z source_rows)"
	assert_eq "0" "$(jget utc/summary.json .windows.differ)"
	assert_exit 1 rk check --source "delta:$t" --target "delta:$t" --key as_int --time as_timestamp \
		--from 2021-09-08T00:00:00Z --to 2021-09-09T00:00:00Z --window 1h --now 2026-01-01T00:00:00Z --report la \
		--delta-partition-zone America/Los_Angeles
	assert_eq "2" "$(wfield la/windows.csv 2021-09-08T18:00:00Z source_rows)"
	assert_eq "0" "$(wfield la/windows.csv 2021-09-08T11:00:00Z source_rows)"
}

# reckon init with a Delta side: its columns and types from the Delta
# schema, the key from the PostgreSQL side, and a job file that runs.
test_init_reads_the_delta_schema() {
	mk_random $SRC 0.58 200
	sql $SRC "create table other (id int primary key, ts timestamptz)" >/dev/null
	to_delta $SRC lake 2
	assert_exit 2 rk init --source "$(conn $SRC)" --target "delta:$PWD/lake"
	assert_contains "$ERR" "the target is a Delta table (delta:$PWD/lake): give --table NAME"
	assert_exit 0 rk init --source "$(conn $SRC)" --target "delta:$PWD/lake" --table t --window 6h
	cp "$OUT" job.ini
	assert_contains job.ini "target = delta:$PWD/lake"
	assert_contains job.ini "[table t]"
	assert_contains job.ini "key = id"
	# the first time column of the target (no updated_at-like name)
	assert_contains job.ini "time = d"
	assert_contains job.ini "columns = id,i2,i4,i8,n2,n38,f4,f8,b,txt,d,ts,tsl,bin"
	assert_not_contains job.ini "other"
	mkdir rep
	assert_exit 1 rk check --job job.ini --from 2026-03-01T00:00:00Z --to 2026-03-04T00:00:00Z \
		--now 2026-03-10T00:00:00Z --report rep
	assert_eq "0" "$(jget rep/t/summary.json .windows.differ)"
	assert_eq "12" "$(jget rep/t/summary.json .windows.matched)"
}

# libduckdb is loaded only when a side is a Delta table (src/io/duckapi.h):
# the binary does not need it, a check of two PostgreSQL tables never maps
# it, and one with a Delta side does.
test_duckdb_loaded_only_for_delta() {
	mk_random $SRC 0.44 200
	copy_table $SRC $TGT
	to_delta $SRC lake 2
	assert_exit 0 readelf -d "$RECKON"
	assert_contains "$OUT" "(NEEDED)"
	assert_not_contains "$OUT" "libduckdb"
	mkdir pg delta
	LD_DEBUG=files LD_DEBUG_OUTPUT=$PWD/ld-pg assert_exit 1 dl_check "$(conn $SRC)" "$(conn $TGT)" pg --time ts --window 6h
	cat ld-pg.* >ld-pg.log
	assert_contains ld-pg.log "libpq.so"
	assert_not_contains ld-pg.log "libduckdb"
	LD_DEBUG=files LD_DEBUG_OUTPUT=$PWD/ld-delta assert_exit 1 dl_check delta:lake "$(conn $TGT)" delta --time ts --window 6h
	cat ld-delta.* >ld-delta.log
	assert_contains ld-delta.log "libduckdb.so"
}

# A libduckdb that cannot be loaded (RECKON_DUCKDB_LIB names a missing
# file): a Delta side is exit 3 saying what and where it looked, with the
# hint; a check of two PostgreSQL tables does not notice.
test_duckdb_missing() {
	mk_random $SRC 0.45 100
	copy_table $SRC $TGT
	to_delta $SRC lake 1
	mkdir pg delta
	RECKON_DUCKDB_LIB=$PWD/nowhere/libduckdb.so assert_exit 1 dl_check "$(conn $SRC)" "$(conn $TGT)" pg --time ts --window 6h
	RECKON_DUCKDB_LIB=$PWD/nowhere/libduckdb.so assert_exit 3 dl_check delta:lake "$(conn $TGT)" delta --time ts --window 6h
	assert_contains "$ERR" "duckdb: cannot load $PWD/nowhere/libduckdb.so, which Delta tables need"
	assert_contains "$ERR" "looked in RECKON_DUCKDB_LIB=$PWD/nowhere/libduckdb.so"
	assert_contains "$ERR" "make deps"
	# a file that is not DuckDB's library: the first function it lacks
	RECKON_DUCKDB_LIB=$(ldd "$RECKON" | awk '/libz\.so/ { print $3 }') assert_exit 3 \
		dl_check delta:lake "$(conn $TGT)" delta --time ts --window 6h
	assert_contains "$ERR" "has no function duckdb_append_int64"
}
