#!/usr/bin/env bash
# bench-scale.sh RECKON_BIN - make bench-scale: does reckon's cost stay
# linear in the rows and its memory flat?  Not part of make check or CI: it
# loads 50M rows per side.
#
# For each size of SIZES (env, default "5000000 50000000" rows per side):
# the databases of bench-drill.sh (bench-lib.sh bench_drill_dbs: bench.t
# over one day, a clean copy, and 4 rows damaged in 4 of the 24 windows),
# then REPEAT (env, default 1) rounds of the clean and damaged checks,
# streamed and pushed down.  Reported: seconds, microseconds per row and
# side, that against the first size's, peak RSS, and the rows the
# drilldown re-read.  The databases of a size are dropped before the next
# is loaded.  Needs about 170 bytes a row per database, three databases, in
# the file system of /tmp: it stops first, saying so, when df says there is
# not that much room.  Writes reports/bench/scale-<largest size>.md.
set -euo pipefail

REPEAT=${REPEAT:-1}
SIZES=${SIZES:-5000000 50000000}
largest=0
for n in $SIZES; do
	((n > largest)) && largest=$n
done
need_kb=$((largest * 170 * 3 / 1024))
avail_kb=$(df -Pk /tmp | awk 'NR == 2 { print $4 }')
if ((avail_kb < need_kb)); then
	echo "bench-scale: $((largest / 1000000))M rows per side need about $((need_kb / 1048576)) GiB in /tmp, $((avail_kb / 1048576)) GiB are free" >&2
	exit 1
fi
# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
command -v jq >/dev/null || { echo "bench-scale: jq is missing: run tests/harness/deps.sh" >&2; exit 1; }

labels=(stream-clean stream-damaged pushdown-clean pushdown-damaged)
dbs=(scale_clean scale_dmg scale_clean scale_dmg)
opts=("" "" "--pushdown" "--pushdown")
rows=()
declare -A per_row0=()
for n in $SIZES; do
	echo "bench-scale: loading $n rows per side ($(date -u +%H:%M:%S))" >&2
	bench_drill_dbs scale "$n"
	declare -A secs=() rss=() info=()
	for ((i = 0; i < REPEAT; i++)); do
		for k in "${!labels[@]}"; do
			want=0
			[[ ${dbs[$k]} == scale_dmg ]] && want=1
			# shellcheck disable=SC2086
			read -r s m <<<"$(bench_reckon scale_src "${dbs[$k]}" $want ${opts[$k]})"
			secs[$k]="${secs[$k]:-} $s"
			rss[$k]="${rss[$k]:-} $m"
			info[$k]="$(jq -r '.drilldown.rows_reread' "$base/report/summary.json")"
			echo "bench-scale: $n rows, ${labels[$k]}: ${s}s, peak RSS $m KiB" >&2
		done
	done
	for k in "${!labels[@]}"; do
		# shellcheck disable=SC2086
		s=$(min ${secs[$k]})
		pr=$(awk -v s="$s" -v n="$n" 'BEGIN { printf "%.4f", s / n * 1e6 }')
		[[ -n ${per_row0[$k]:-} ]] || per_row0[$k]=$pr
		# shellcheck disable=SC2086
		rows+=("| $n | ${labels[$k]} | $s | $pr | $(ratio "$pr" "${per_row0[$k]}") | $(min ${rss[$k]}) | ${info[$k]} |")
	done
	unset secs rss info
	for db in scale_src scale_clean scale_dmg; do
		psql_b -d postgres -c "drop database if exists $db with (force)"
	done
done
out=$repo/reports/bench/scale-$largest.md
mkdir -p "$(dirname "$out")"
{
	echo "# reckon check at scale ($(date -u +%Y-%m-%d))"
	echo
	bench_provenance N REPEAT SIZES
	echo "- reckon: $("$RECKON" --version 2>/dev/null | head -n 1); PostgreSQL: $("$RK_PGBIN/postgres" --version); machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- bench.t (id bigint primary key, ts timestamptz over one day, amount numeric(12,2), note text, an index on ts), \`--key id --time ts --sum amount --window 1h\` (the whole row hashed: id, ts, amount, note) (24 windows); damaged: 4 rows in 4 windows (3 lost, 1 changed)"
	echo "- seconds: the best of $REPEAT; per row: microseconds per row and side; against the first size: the ratio of the per-row times"
	echo
	echo "| rows per side | case | seconds | µs per row | per row against $(echo "$SIZES" | awk '{ print $1 }') | peak RSS KiB | rows re-read by the drilldown |"
	echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
	printf '%s\n' "${rows[@]}"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
