#!/usr/bin/env bash
# bench-keyseg.sh RECKON_BIN - make bench-keyseg (and part of make bench):
# a check by key segments (no --time, docs/key-segments.md) against the
# time-window check of the same table, in the same run.
#
# The table of tests/harness/bench.sh - bench.t (bigint id primary key,
# timestamptz ts over one day, numeric(12,2) amount, text note), N rows per
# side (env N, default 5000000), in two databases of one private cluster -
# checked whole both ways, each the best of REPEAT (5) runs:
#
#   time windows   reckon check --key id --time ts --window 1h over the day
#   key segments   reckon check --key id (segments of id, no --time)
#
# for identical tables (match) and after damaging 10 target rows (differ:
# the drilldown on top).  The issue's bar is key segments at most 1.2x the
# time windows.  Prints a table and writes reports/bench/keyseg-<N>.md.  No
# timing is asserted; a wrong exit status of reckon fails.
set -euo pipefail

N=${N:-5000000}
export N
# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

# keyseg_reckon SRC_DB TGT_DB WANT_EXIT - one check by key segments of the
# whole of bench.t; prints "seconds peak_rss_kib"
keyseg_reckon() {
	local src=$1 tgt=$2 want=$3 t0 t1 rc=0
	t0=$(now)
	/usr/bin/time -f '%M' -o "$base/time.out" "$RECKON" check \
		--source "host=$PGHOST port=$PGPORT user=$PGUSER dbname=$src" \
		--target "host=$PGHOST port=$PGPORT user=$PGUSER dbname=$tgt" \
		--table bench.t --key id --sum amount --report "$base/report" >"$base/reckon.out" 2>"$base/reckon.err" || rc=$?
	t1=$(now)
	if [[ $rc -ne $want ]]; then
		echo "bench: reckon check by key segments exited with $rc, expected $want" >&2
		tail -n 20 "$base/reckon.err" >&2
		exit 1
	fi
	echo "$(elapsed "$t0" "$t1") $(tail -n 1 "$base/time.out")"
}

rows_table=()
echo "bench: loading $N rows per side" >&2
bench_table bench_src "$N"
bench_table bench_tgt "$N"
for mode in match differ; do
	want=0
	if [[ $mode == differ ]]; then
		want=1
		bench_damage bench_tgt "$N"
	fi
	tw=() tw_rss=() ks=() ks_rss=() pairs=()
	for ((i = 0; i < REPEAT; i++)); do
		read -r s r <<<"$(bench_reckon bench_src bench_tgt $want)"
		tw+=("$s")
		tw_rss+=("$r")
		read -r k r <<<"$(keyseg_reckon bench_src bench_tgt $want)"
		ks+=("$k")
		ks_rss+=("$r")
		pairs+=("$(ratio "$k" "$s")")
	done
	segs=$(jq -r .range.segments "$base/report/summary.json")
	t=$(min "${tw[@]}")
	k=$(min "${ks[@]}")
	rows_table+=("$(printf '| %s | %s | time windows (24) | %s | 1.00 | | %s |' "$N" "$mode" "$t" "$(min "${tw_rss[@]}")")")
	rows_table+=("$(printf '| %s | %s | key segments (%s) | %s | %s | %s | %s |' "$N" "$mode" "$segs" "$k" "$(ratio "$k" "$t")" "$(median "${pairs[@]}")" "$(min "${ks_rss[@]}")")")
	echo "bench: $N rows, $mode: time windows ${t}s, key segments ${k}s ($segs segments)" >&2
done

out_dir=$repo/reports/bench
mkdir -p "$out_dir"
out=$out_dir/keyseg-$N.md
{
	echo "# reckon check by key segments against time windows, $N rows per side"
	echo
	bench_provenance N REPEAT
	bench_environment "shared with other work while it ran, so the seconds are noisy: compare the ratios of one run"
	echo "- table: bench.t (id bigint primary key, ts timestamptz over one day, amount numeric(12,2), note text), the same rows in two databases of one private cluster"
	echo "- time windows: \`check --key id --time ts --sum amount --window 1h\` over the 24 windows of the day (every row)"
	echo "- key segments: \`check --key id --sum amount\` (no --time: segments of id cut at quantiles of a source sample, docs/key-segments.md)"
	echo "- match: identical tables; differ: 10 target rows damaged (bench-lib.sh bench_damage), the drilldown on top"
	echo "- best of $REPEAT runs each; paired = the median over the rounds of key segments' seconds / time windows' seconds of the same round; peak RSS of reckon (GNU time %M)"
	echo
	echo "| rows | mode | check | seconds | ratio to time windows | paired ratio | peak RSS KiB |"
	echo "| ---: | --- | --- | ---: | ---: | ---: | ---: |"
	printf '%s\n' "${rows_table[@]}"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
echo
echo "bench: written to ${out#"$repo"/}"
