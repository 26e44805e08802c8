# shellcheck shell=bash
# Large values in repair (docs/performance.md "Large values"): the staging
# scan of the source takes a text value of RECKON_LARGE_VALUE bytes or more
# out of band (NULL and a marker in the COPY row, its bytes read back by
# ctid after the COPY in chunks of RECKON_LARGE_CHUNK bytes), and streams
# each chunk, COPY-text-escaped on its own, into the target's COPY.  With
# the bound forced small and the chunks cut inside multibyte characters and
# inside the characters COPY text escapes (backslash, tab, newline, CR),
# the repaired target must equal the source, and the repair's output that
# of the normal path (the bound past every value).

SRC=lr_src
DMG=lr_dmg
TGT=lr_tgt
RANGE=(--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h --now 2026-04-01T00:00:00Z)
OPTS=(--table mart.big --key id --time ts)

setup_file() {
	createdb $SRC
	createdb $DMG
	for db in $SRC $DMG; do
		sql "$db" "create schema mart;
		         create table mart.big (id int primary key, ts timestamptz not null, note text, tag text);
		         insert into mart.big
		         select g, '2026-03-02 00:00:00+00'::timestamptz + g * interval '37 seconds',
		                case when g % 7 = 0 then null
		                     else repeat(md5(g::text) || E'\\\\\\t\\n\\r' || 'é€😀', g % 23) end,
		                case when g % 5 = 0 then '' else 't' || g end
		         from generate_series(1, 300) g;
		         -- at the bound of 64 and about it, empty, NULL, escapes only
		         insert into mart.big
		         select 300 + k, '2026-03-02 03:30:00+00'::timestamptz + k * interval '1 second', v, v
		         from (values (1, repeat('a', 64)), (2, repeat('b', 63)), (3, repeat(E'\\\\', 64)),
		                      (4, ''), (5, repeat('😀', 16)), (6, repeat(E'\\t\\n\\r\\\\', 17)),
		                      (7, repeat('€', 21) || 'x'), (8, 'é'), (9, null)) as x(k, v)" >/dev/null
	done
	# the damage: changed large values (one byte, a character at the end),
	# a missing row, an extra one, a NULL for a value and a value for a NULL
	sql $DMG "update mart.big set note = note || 'y' where id in (40, 302);
	          update mart.big set note = E'\\\\' || note where id = 306;
	          update mart.big set note = null where id = 41;
	          update mart.big set note = repeat('n', 99) where id = 42;
	          update mart.big set tag = repeat('é', 40) where id = 43;
	          delete from mart.big where id in (100, 301);
	          insert into mart.big values (400, '2026-03-02 03:50:00+00', repeat('z', 80), null)" >/dev/null
}

# fresh_target: the target made again from the damaged copy, and the
# rerun list of its check (bound at the default)
fresh_target() {
	sql postgres "drop database if exists $TGT with (force)" >/dev/null
	sql postgres "create database $TGT template $DMG" >/dev/null
	rm -f rerun.csv
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${OPTS[@]}" "${RANGE[@]}" \
		--rerun-list rerun.csv
}

# same_rows: the target's rows are the source's, value for value
same_rows() {
	local db
	for db in $SRC $TGT; do
		sql $db "select id, ts, md5(coalesce(note, 'NULL') || ':' || coalesce(tag, 'NULL')),
		                note is null, tag is null from mart.big order by id" >"$db.rows"
	done
	assert_file_eq "$TGT.rows" "$SRC.rows"
}

# big_repair BOUND CHUNK [OPTION...]: a repair of a fresh target with
# RECKON_LARGE_VALUE=BOUND (empty: the default) and RECKON_LARGE_CHUNK=CHUNK,
# its output kept as out.BOUND.CHUNK, its log as log.BOUND.CHUNK; then the
# target must equal the source, row for row
big_repair() {
	local b=$1 c=$2
	shift 2
	fresh_target
	RECKON_LARGE_VALUE=$b RECKON_LARGE_CHUNK=$c assert_exit 0 rk repair -vv --source "$(conn $SRC)" \
		--target "$(conn $TGT)" "${OPTS[@]}" --rerun-list rerun.csv --now 2026-04-01T00:00:00Z --execute "$@"
	cp "$OUT" "out.$b.$c"
	cp "$ERR" "log.$b.$c"
	same_rows
	assert_eq 309 "$(wc -l <"$TGT.rows")"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${OPTS[@]}" "${RANGE[@]}"
}

# staged_late BOUND CHUNK COUNTS: the rows each staging scan of the repair
# (in order) read values back for after its COPY, e.g. "4 1 3"
staged_late() {
	assert_eq "$3" "$(awk '/stage rows on target/ { s = 1 } s && /read after the scan/ {
		sub(/.*: /, ""); print $1; s = 0 }' "log.$1.$2" | paste -sd' ')"
}

test_repair_large_values_rows() {
	big_repair "" ""
	assert_not_contains log.. "read after the scan"
	assert_contains out.. "repaired 3 of 3 intervals"
	for bc in 1:7 1:1 64:3 64:1; do
		big_repair "${bc%:*}" "${bc#*:}"
		assert_file_eq "out.${bc%:*}.${bc#*:}" out..
	done
	# per interval, the finding keys' source rows holding a value of the
	# bound or more: 40, 41, 42 (its tag), 43; 100; 301, 302, 306
	staged_late 1 7 "4 1 3"
	staged_late 1 1 "4 1 3"
	# 64: 40, 41, 43; 100; 301 (64 bytes), 306 (68; 302 holds 63)
	staged_late 64 3 "3 1 2"
	staged_late 64 1 "3 1 2"
}

# --replace-interval stages every source row of the intervals (and may read
# the source's other keys): the same streaming
test_repair_large_values_replace_interval() {
	big_repair "" "" --replace-interval
	for bc in 1:7 64:3; do
		big_repair "${bc%:*}" "${bc#*:}" --replace-interval
		assert_file_eq "out.${bc%:*}.${bc#*:}" out..
		assert_contains "log.${bc%:*}.${bc#*:}" "bytes or more, read after the scan"
	done
}

# A value read back other than its marker said while staging (the fault
# hook of reckon-faults): the repair fails with the column and a hint,
# exit 3, and the target is as it was - no interval half repaired.
test_repair_large_value_read_back_fault() {
	fresh_target
	sql $TGT "select id, md5(coalesce(note, 'NULL') || ':' || coalesce(tag, 'NULL')) from mart.big order by id" >before.rows
	RECKON_LARGE_VALUE=64 assert_exit 3 env RECKON_TEST_FAULT=pglarge-read-back:fail "$RECKON_FAULTS" repair \
		--source "$(conn $SRC)" --target "$(conn $TGT)" "${OPTS[@]}" --rerun-list rerun.csv \
		--now 2026-04-01T00:00:00Z --execute
	assert_match "$(cat "$ERR")" "column (note|tag): a value of [0-9]+ bytes was read back as [0-9]+"
	assert_contains "$ERR" "the row changed under the read's snapshot"
	sql $TGT "select id, md5(coalesce(note, 'NULL') || ':' || coalesce(tag, 'NULL')) from mart.big order by id" >after.rows
	assert_file_eq after.rows before.rows
}

# big_krepair BOUND CHUNK [OPTION...]: a repair by key segment (a check
# without --time: docs/key-segments.md) of a fresh target with
# RECKON_LARGE_VALUE=BOUND and RECKON_LARGE_CHUNK=CHUNK, its output kept as
# kout.BOUND.CHUNK, its log as klog.BOUND.CHUNK; then the target must equal
# the source, row for row
big_krepair() {
	local b=$1 c=$2
	shift 2
	fresh_target
	rm -f krerun.csv
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.big --key id \
		--rerun-list krerun.csv
	RECKON_LARGE_VALUE=$b RECKON_LARGE_CHUNK=$c assert_exit 0 rk repair -vv --source "$(conn $SRC)" \
		--target "$(conn $TGT)" --table mart.big --key id --rerun-list krerun.csv --execute "$@"
	cp "$OUT" "kout.$b.$c"
	cp "$ERR" "klog.$b.$c"
	same_rows
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.big --key id
}

# The key-segment repair stages the same way: its large values out of band,
# streamed chunk by chunk into the target's COPY
test_repair_large_values_key_segments() {
	big_krepair "" ""
	assert_not_contains klog.. "read after the scan"
	for bc in 1:7 1:1 64:3; do
		big_krepair "${bc%:*}" "${bc#*:}"
		assert_file_eq "kout.${bc%:*}.${bc#*:}" kout..
		assert_contains "klog.${bc%:*}.${bc#*:}" "bytes or more, read after the scan"
	done
	big_krepair 1 7 --replace-interval
	assert_contains klog.1.7 "bytes or more, read after the scan"
}
