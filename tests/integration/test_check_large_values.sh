# shellcheck shell=bash
# Large values (docs/performance.md "Large values"): a text value of
# RECKON_LARGE_VALUE bytes or more is hashed where it lies, in XXH3's
# streaming state, not copied into the row's encoding.  The bound forced
# small runs that path on small values: every digest, finding and change
# must be byte-identical to the normal path's, in COPY text and binary.

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
		         from generate_series(1, 300) g" >/dev/null
	done
}

# big_check BOUND FORMAT WANT: one check with RECKON_LARGE_VALUE=BOUND
# (empty: the default) reading COPY FORMAT, its windows, findings and
# changes kept as out.BOUND.FORMAT.*
big_check() {
	rm -rf rep
	RECKON_LARGE_VALUE=$1 RECKON_COPY_FORMAT=$2 assert_exit "$3" rk check --source "$(conn $SRC)" \
		--target "$(conn $TGT)" --table mart.big --key id --time ts --sum amount "${RANGE[@]}" --report rep
	for f in windows findings changes; do
		if [[ -f rep/$f.csv ]]; then cp rep/$f.csv "out.$1.$2.$f.csv"; else : >"out.$1.$2.$f.csv"; fi
	done
}

# same_as_normal WANT: every bound and format gives the normal path's files
same_as_normal() {
	local b fmt f
	for fmt in text binary; do
		for b in "" 1 64 1000; do
			big_check "$b" $fmt "$1"
		done
	done
	for fmt in text binary; do
		for b in 1 64 1000; do
			for f in windows findings changes; do
				assert_file_eq "out.$b.$fmt.$f.csv" "out..$fmt.$f.csv"
			done
		done
	done
	for f in windows findings changes; do
		assert_file_eq out..text.$f.csv out..binary.$f.csv
	done
}

test_large_values_equal_sides() {
	same_as_normal 0
	assert_eq "match match match match" "$(tail -n +2 out..text.windows.csv | cut -d, -f3 | paste -sd' ')"
}

test_large_values_differing_side() {
	sql $TGT "update mart.big set note = note || 'x' where id = 40;
	          update mart.big set amount = amount + 1 where id = 200;
	          delete from mart.big where id = 300" >/dev/null
	same_as_normal 1
	assert_contains out..text.changes.csv ",40,note,"
	assert_contains out..text.findings.csv ",missing,300,"
}
