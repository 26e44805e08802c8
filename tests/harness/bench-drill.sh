#!/usr/bin/env bash
# bench-drill.sh RECKON_BIN - what a damaged check costs against a clean one,
# streamed and pushed down (the drilldown's benchmark).
#
# For each size of SIZES (env, default "2000000 5000000" rows per side):
# bench.t over one day (bench-lib.sh) with the reckon extension in three
# databases of one private cluster - the source, a clean copy, and a copy
# with 4 rows damaged in 4 of the 24 hourly windows (3 lost, 1 changed) -
# and these checks, each round running every case once, in turn:
#
#   stream clean / stream damaged            reckon check
#   stream damaged, --leaf-rows 1000         the same, narrowing in more rounds
#   pushdown clean / pushdown damaged        reckon check --pushdown
#   stream / pushdown damaged, -nodiag       the damaged checks with RECKON_DIAGNOSE=off
#
# The cluster keeps commit times (track_commit_timestamp = on, unless
# RK_PG_COMMIT_TS says otherwise), so that the diagnosis reads the missing
# keys' commit times as it would on such a source.  A damaged check and its
# -nodiag twin run one right after the other, in turns (the twin first in
# odd rounds), so that neither always finds the other's cache warm.
#
# Reported per case: the best of REPEAT (5) rounds, its ratio to the clean
# check of its mode, the paired ratio (median over the rounds of the case's
# seconds over the clean check's of the same round), peak RSS, and from
# summary.json the drilldown's passes and the rows it re-read (fetched).
# Then the targets, from these same runs:
#   pushdown damaged <= 1.15 x pushdown clean
#   stream damaged <= (1 + 1.2 x the damaged windows' share of rows) x stream clean
#   rows fetched by the pushdown drilldown (both sides) <= 0.1 % of the table (one side's rows)
#   peak RSS flat: the damaged checks' within 10 % of the clean ones', and of the smaller size's
#   the diagnosis (likely causes, warnings) and the changed values (the
#   changed keys' rows read by key, changes.csv) <= 1.05 x the damaged check
#   without them (paired): RECKON_DIAGNOSE=off leaves out both
# Writes reports/bench/drill-<size>.md per size.  DIAG_ONLY=1 runs only the
# cases that target needs (stream and pushdown: clean, damaged, -nodiag)
# and writes reports/bench/drill-diag-<size>.md with that target alone.  Nothing is asserted:
# these machines are shared; the table says which targets held.
set -euo pipefail

export RK_PG_COMMIT_TS=${RK_PG_COMMIT_TS:-on}
# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
command -v jq >/dev/null || { echo "bench-drill: jq is missing: run tests/harness/deps.sh" >&2; exit 1; }
SIZES=${SIZES:-2000000 5000000}

labels=(stream-clean stream-damaged stream-damaged-leaf1000 pushdown-clean pushdown-damaged
	stream-damaged-noindex pushdown-damaged-noindex stream-damaged-nodiag pushdown-damaged-nodiag)
srcs=(drill_src drill_src drill_src drill_src drill_src drill_srcnx drill_srcnx drill_src drill_src)
dbs=(drill_clean drill_dmg drill_dmg drill_clean drill_dmg drill_dmgnx drill_dmgnx drill_dmg drill_dmg)
opts=("" "" "--leaf-rows 1000" "--pushdown" "--pushdown" "" "--pushdown" "" "--pushdown")
clean_of=(0 0 0 3 3 0 3 0 3)
diagnose=(on on on on on on on off off)
# the order of a round: each damaged check beside its -nodiag twin, the
# twin first in odd rounds
order_even=(0 1 7 2 3 4 8 5 6)
order_odd=(0 7 1 2 3 8 4 5 6)
DIAG_ONLY=${DIAG_ONLY:-0}
if [[ $DIAG_ONLY == 1 ]]; then
	order_even=(0 1 7 3 4 8)
	order_odd=(0 7 1 3 8 4)
fi
declare -A rss_by_size=()

# ok CONDITION - "holds" or "does not hold" for an awk condition
ok() { awk "BEGIN { exit !($1) }" && echo holds || echo "does not hold"; }
# ratio3 A B, median3 X... - as ratio and median, to 3 decimals (the
# diagnosis's share is a few per cent)
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
median3() {
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { printf "%.3f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

for n in $SIZES; do
	echo "bench-drill: loading $n rows per side" >&2
	bench_drill_dbs drill "$n"
	[[ $DIAG_ONLY == 1 ]] || bench_noindex_dbs drill
	declare -A secs=() rss=() pairs=() info=()
	round=()
	diag_stream=
	diag_push=
	for ((i = 0; i < REPEAT; i++)); do
		if ((i % 2)); then order=("${order_odd[@]}"); else order=("${order_even[@]}"); fi
		for k in "${order[@]}"; do
			want=0
			[[ ${dbs[$k]} == drill_dmg* ]] && want=1
			# shellcheck disable=SC2086
			read -r s m <<<"$(RECKON_DIAGNOSE=${diagnose[$k]} bench_reckon "${srcs[$k]}" "${dbs[$k]}" $want ${opts[$k]})"
			secs[$k]="${secs[$k]:-} $s"
			rss[$k]="${rss[$k]:-} $m"
			info[$k]="$(jq -r '"\(.drilldown.passes) \(.drilldown.rows_reread)"' "$base/report/summary.json")"
			round[$k]=$s
			pairs[$k]="${pairs[$k]:-} $(ratio "$s" "${round[${clean_of[$k]}]}")"
			if [[ $k -eq 1 || $k -eq 4 ]]; then
				# the changed values are measured: the damaged check wrote them
				changes=$(($(wc -l <"$base/report/changes.csv") - 1))
				((changes >= 1)) || { echo "bench-drill: ${labels[$k]} wrote no changed values" >&2; exit 1; }
			fi
			if [[ $k -eq 1 ]]; then
				# the damaged windows' share of the rows, from the report
				share=$(awk -F, 'NR > 1 { all += $4; if ($3 == "differ") d += $4 } END { printf "%.4f", d / all }' \
					"$base/report/windows.csv")
			fi
		done
		# the damaged checks over their -nodiag twins of the same round
		diag_stream="$diag_stream $(ratio3 "${round[1]}" "${round[7]}")"
		diag_push="$diag_push $(ratio3 "${round[4]}" "${round[8]}")"
		echo "bench-drill: $n rows, round $((i + 1)):$(for k in "${order[@]}"; do printf ' %s %s' "${labels[$k]}" "${round[$k]}"; done)" >&2
	done
	if [[ $DIAG_ONLY == 1 ]]; then
		out=$repo/reports/bench/drill-diag-$n.md
		mkdir -p "$(dirname "$out")"
		# shellcheck disable=SC2086
		{
			echo "# reckon check, the diagnosis and the changed values, $n rows per side ($(date -u +%Y-%m-%d))"
			echo
			echo "- reckon: $("$RECKON" --version 2>/dev/null | head -n 1); PostgreSQL: $("$RK_PGBIN/postgres" --version)"
			echo "- machine: $(nproc) CPUs, shared; bench.t as in drill-<size>.md, 4 target rows damaged in 4 of 24 windows (3 lost, 1 amount changed)"
			echo "- the damaged checks wrote $changes changed value(s) to changes.csv (checked every round) and their likely causes; the -nodiag twins neither"
			echo "- DIAG_ONLY=1: each of the $REPEAT rounds runs the damaged check and its RECKON_DIAGNOSE=off twin (no likely causes, warnings or changed values) one right after the other, the twin first in odd rounds"
			echo
			echo "| case | seconds (best) | rounds |"
			echo "| --- | ---: | --- |"
			for k in 0 1 7 3 4 8; do
				echo "| ${labels[$k]} | $(min ${secs[$k]}) |${secs[$k]} |"
			done
			ds=$(median3 $diag_stream)
			dp=$(median3 $diag_push)
			echo
			echo "| target | measured (best / paired) | limit | verdict |"
			echo "| --- | --- | --- | --- |"
			echo "| the diagnosis and changed values: damaged / damaged with RECKON_DIAGNOSE=off (stream; pushdown) | $(ratio3 "$(min ${secs[1]})" "$(min ${secs[7]})") / $ds; $(ratio3 "$(min ${secs[4]})" "$(min ${secs[8]})") / $dp | 1.05 | $(ok "$ds <= 1.05 && $dp <= 1.05") |"
			echo
			echo "The paired ratios per round (stream:$diag_stream; pushdown:$diag_push)."
		} >"$out.tmp"
		mv "$out.tmp" "$out"
		cat "$out"
		unset secs rss pairs info
		continue
	fi
	out=$repo/reports/bench/drill-$n.md
	mkdir -p "$(dirname "$out")"
	{
		echo "# reckon check, clean against damaged, $n rows per side ($(date -u +%Y-%m-%d))"
		echo
		bench_provenance N REPEAT SIZES NOINDEX
		echo "- reckon: $("$RECKON" --version 2>/dev/null | head -n 1); PostgreSQL: $("$RK_PGBIN/postgres" --version)"
		echo "- machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
		echo "- bench.t (id bigint primary key, ts timestamptz over one day, amount numeric(12,2), note text, an index on ts), \`--key id --time ts --sum amount --window 1h\` (the whole row hashed: id, ts, amount, note): 24 windows; the -noindex cases: the same tables without the primary key, so that no index serves the lookup of the damaged keys"
		echo "- damaged: 4 target rows in 4 of the 24 windows (3 lost, 1 amount changed): the damaged windows hold $(awk -v s="$share" 'BEGIN { printf "%.1f", s * 100 }') % of the rows"
		echo "- the server keeps commit times (track_commit_timestamp = $RK_PG_COMMIT_TS); the -nodiag cases run with RECKON_DIAGNOSE=off, right beside their twin with the diagnosis (the twin first in odd rounds)"
		echo "- each of the $REPEAT rounds runs every case once, in turn; seconds: the best round; paired: the median over the rounds of the case's seconds over its mode's clean check of the same round"
		echo
		echo "| case | seconds | ratio to clean | paired | peak RSS KiB | drilldown passes | rows re-read (both sides) | share of the table |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		for k in "${!labels[@]}"; do
			# shellcheck disable=SC2086
			s=$(min ${secs[$k]})
			# shellcheck disable=SC2086
			c=$(min ${secs[${clean_of[$k]}]})
			# shellcheck disable=SC2086
			m=$(min ${rss[$k]})
			read -r p r <<<"${info[$k]}"
			# shellcheck disable=SC2086
			printf '| %s | %s | %s | %s | %s | %s | %s | %.5f |\n' "${labels[$k]}" "$s" "$(ratio "$s" "$c")" \
				"$(median ${pairs[$k]})" "$m" "$p" "$r" "$(awk -v a="$r" -v b="$n" 'BEGIN { print a / b }')"
			eval "best_$k=$s; paired_$k=$(median ${pairs[$k]}); rss_$k=$m; rows_$k=$r"
		done
		limit=$(awk -v s="$share" 'BEGIN { printf "%.3f", 1 + 1.2 * s }')
		echo
		echo "| target | measured (best / paired) | limit | verdict |"
		echo "| --- | --- | --- | --- |"
		# shellcheck disable=SC2154
		{
			pd=$(ratio "$best_4" "$best_3")
			echo "| pushdown damaged / clean | $pd / $paired_4 | 1.15 | $(ok "$pd <= 1.15 && $paired_4 <= 1.15") |"
			st=$(ratio "$best_1" "$best_0")
			echo "| stream damaged / clean | $st / $paired_1 | $limit (1 + 1.2 x $share) | $(ok "$st <= $limit && $paired_1 <= $limit") |"
			st2=$(ratio "$best_2" "$best_0")
			echo "| stream damaged, --leaf-rows 1000 / clean | $st2 / $paired_2 | $limit | $(ok "$st2 <= $limit && $paired_2 <= $limit") |"
			fr=$(awk -v a="$rows_4" -v b="$n" 'BEGIN { printf "%.5f", a / b * 100 }')
			echo "| rows fetched by the pushdown drilldown, % of the table | $fr % ($rows_4 rows) | 0.1 % | $(ok "$fr <= 0.1") |"
			echo "| peak RSS, damaged / clean (stream; pushdown) | $(ratio "$rss_1" "$rss_0"); $(ratio "$rss_4" "$rss_3") | 1.10 | $(ok "$rss_1 <= 1.1 * $rss_0 && $rss_4 <= 1.1 * $rss_3") |"
			pdn=$(ratio "$best_6" "$best_3")
			echo "| without a key index: pushdown damaged / clean | $pdn / $paired_6 | 1.15 | $(ok "$pdn <= 1.15 && $paired_6 <= 1.15") |"
			stn=$(ratio "$best_5" "$best_0")
			echo "| without a key index: stream damaged / clean | $stn / $paired_5 | $limit | $(ok "$stn <= $limit && $paired_5 <= $limit") |"
			# shellcheck disable=SC2086
			ds=$(median3 $diag_stream)
			# shellcheck disable=SC2086
			dp=$(median3 $diag_push)
			echo "| the diagnosis: damaged / damaged with RECKON_DIAGNOSE=off (stream; pushdown) | $(ratio3 "$best_1" "$best_7") / $ds; $(ratio3 "$best_4" "$best_8") / $dp | 1.05 | $(ok "$ds <= 1.05 && $dp <= 1.05") |"
		}
		echo
		echo "The diagnosis's paired ratios per round (stream:$diag_stream; pushdown:$diag_push)."
	} >"$out.tmp"
	mv "$out.tmp" "$out"
	rss_by_size[$n]="$rss_0 $rss_1 $rss_3 $rss_4"
	cat "$out"
	echo
	unset secs rss pairs info
done
[[ $DIAG_ONLY == 1 ]] && exit 0
echo "bench-drill: peak RSS KiB per size (stream clean, stream damaged, pushdown clean, pushdown damaged):" >&2
for n in $SIZES; do
	echo "  $n: ${rss_by_size[$n]}" >&2
done
