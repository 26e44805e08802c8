#!/usr/bin/env bash
# bench-scale.sh RECKON_BIN - make bench-scale: does reckon's cost stay
# linear in the rows and its memory flat?  Not part of make check or CI: it
# loads 50M rows per side.
#
# For each size of SIZES (env, default "5000000 50000000" rows per side):
# the databases of bench-drill.sh (bench-lib.sh bench_drill_dbs: bench.t
# over one day, a clean copy, and 4 rows damaged in 4 of the 24 windows),
# then REPEAT (env, default 1) rounds of the clean and damaged checks,
# streamed and pushed down, and in each round, on the clean pair, both
# sides concurrently, the floors (bench-lib.sh bench_floor): the COPY floor
# just before the streamed checks, the in-database scan floors (grouped by
# window, and the range's count(*), sum(amount) alone) just before the
# pushed-down ones.  Reported: seconds, microseconds per row and side, that
# against the first size's, for the floors and the checks; each check's
# ratio to its floor (streamed: copy, pushed down: range), best-of and
# paired (the median over the rounds of the check over its floor of the
# same round), and the paired ratio against the first size's, so that a
# per-row change between sizes is judged against the floor's own; peak
# RSS, the rows the drilldown re-read, and the load averages around each
# size's measurements.  The databases of a size are dropped before the
# next is loaded.  Needs about 170 bytes a row per database, three
# databases, in the file system of /tmp: it stops first, saying so, when df
# says there is not that much room.  Writes reports/bench/scale-<largest
# size>.md.
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

# the cases: label, database, options, the floor it is judged against
labels=(stream-clean stream-damaged pushdown-clean pushdown-damaged)
dbs=(scale_clean scale_dmg scale_clean scale_dmg)
opts=("" "" "--pushdown" "--pushdown")
floor_of=(copy copy range range)
floors=(copy scan range)
rows=()
loads=()
declare -A per_row0=() vs0=()
for n in $SIZES; do
	echo "bench-scale: loading $n rows per side ($(date -u +%H:%M:%S))" >&2
	bench_drill_dbs scale "$n"
	load0=$(bench_load)
	declare -A secs=() rss=() info=() fsecs=() best=() pairs=() last=()
	for ((i = 0; i < REPEAT; i++)); do
		# each floor is measured just before the cases judged against it
		# (copy: the streamed checks; scan and range: the pushed-down ones),
		# on the clean pair, in the same round: they see the same cache and load
		for k in "${!labels[@]}"; do
			if ((k == 0)); then
				f=$(bench_floor copy scale_src scale_clean)
				fsecs[copy]="${fsecs[copy]:-} $f"
				last[copy]=$f
				echo "bench-scale: $n rows, copy floor: ${f}s" >&2
			elif ((k == 2)); then
				for fl in scan range; do
					f=$(bench_floor $fl scale_src scale_clean)
					fsecs[$fl]="${fsecs[$fl]:-} $f"
					last[$fl]=$f
					echo "bench-scale: $n rows, $fl floor: ${f}s" >&2
				done
			fi
			want=0
			[[ ${dbs[$k]} == scale_dmg ]] && want=1
			# shellcheck disable=SC2086
			read -r s m <<<"$(bench_reckon scale_src "${dbs[$k]}" $want ${opts[$k]})"
			secs[$k]="${secs[$k]:-} $s"
			rss[$k]="${rss[$k]:-} $m"
			# the case over its floor of the same round: the two saw the same load
			pairs[$k]="${pairs[$k]:-} $(ratio "$s" "${last[${floor_of[$k]}]}")"
			info[$k]="$(jq -r '.drilldown.rows_reread' "$base/report/summary.json")"
			echo "bench-scale: $n rows, ${labels[$k]}: ${s}s, peak RSS $m KiB" >&2
		done
	done
	loads+=("| $n | $load0 | $(bench_load) |")
	for fl in "${floors[@]}"; do
		# shellcheck disable=SC2086
		s=$(min ${fsecs[$fl]})
		best[$fl]=$s
		pr=$(awk -v s="$s" -v n="$n" 'BEGIN { printf "%.4f", s / n * 1e6 }')
		[[ -n ${per_row0[$fl]:-} ]] || per_row0[$fl]=$pr
		rows+=("| $n | $fl floor | $s | $pr | $(ratio "$pr" "${per_row0[$fl]}") | | | | | | |")
	done
	for k in "${!labels[@]}"; do
		# shellcheck disable=SC2086
		s=$(min ${secs[$k]})
		pr=$(awk -v s="$s" -v n="$n" 'BEGIN { printf "%.4f", s / n * 1e6 }')
		[[ -n ${per_row0[$k]:-} ]] || per_row0[$k]=$pr
		fl=${floor_of[$k]}
		r=$(ratio "$s" "${best[$fl]}")
		# shellcheck disable=SC2086
		pm=$(median ${pairs[$k]})
		[[ -n ${vs0[$k]:-} ]] || vs0[$k]=$pm
		# shellcheck disable=SC2086
		rows+=("| $n | ${labels[$k]} | $s | $pr | $(ratio "$pr" "${per_row0[$k]}") | $fl | $r | $pm | $(ratio "$pm" "${vs0[$k]}") | $(min ${rss[$k]}) | ${info[$k]} |")
	done
	unset secs rss info fsecs best pairs last
	for db in scale_src scale_clean scale_dmg; do
		psql_b -d postgres -c "drop database if exists $db with (force)"
	done
done
first=$(echo "$SIZES" | awk '{ print $1 }')
out=$repo/reports/bench/scale-$largest.md
mkdir -p "$(dirname "$out")"
{
	echo "# reckon check at scale ($(date -u +%Y-%m-%d))"
	echo
	bench_provenance REPEAT SIZES
	bench_environment "load averages (1, 5, 15 min) in the table below"
	echo "- bench.t (id bigint primary key, ts timestamptz over one day, amount numeric(12,2), note text, an index on ts), \`--key id --time ts --sum amount --window 1h\` (the whole row hashed: id, ts, amount, note) (24 windows); damaged: 4 rows in 4 windows (3 lost, 1 changed)"
	echo "- floors, on the clean pair, both sides concurrently, by psql, in the same round as the checks: copy (\`\\copy (select id, ts, amount, note ... the day) to /dev/null\`, measured just before the streamed checks), scan (\`select (reckon_instant(ts) - from) / width, count(*), sum(amount) ... group by 1\`) and range (\`select count(*), sum(amount) ... the day\`, no grouping), both measured just before the pushed-down checks"
	echo "- seconds: the best of $REPEAT; per row: microseconds per row and side; against $first: the ratio of the per-row times; floor: the one the case is judged against (streamed: copy, pushed down: range); ratio to floor: best seconds over the floor's best seconds at that size; paired: the median over the rounds of the case's seconds over its floor's of the same round (measured just before it, so the two saw the same load); against $first's: the paired ratio over the same at $first rows (1.00: reckon's per-row cost changed exactly as its floor's did)"
	echo
	echo "| rows per side | case | seconds | µs per row | per row against $first | floor | ratio to floor | paired | paired against $first's | peak RSS KiB | rows re-read by the drilldown |"
	echo "| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
	printf '%s\n' "${rows[@]}"
	echo
	echo "| rows per side | load before the measurements | load after |"
	echo "| ---: | --- | --- |"
	printf '%s\n' "${loads[@]}"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
