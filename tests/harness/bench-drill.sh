#!/usr/bin/env bash
# bench-drill.sh RECKON_BIN - what the key-level drilldown costs.
#
# N rows per side (env N, default 1000000) over one day, checked in 48
# half-hour windows; the target loses one row in one window (one-damaged),
# or one row in each of 10 windows (damaged).
# Reports, from summary.json, the rows the drilldown re-read as a fraction
# of the rows in the table, the passes it took, and the time and peak RSS
# of a clean check against the damaged one, with --leaf-rows small and
# large: best of REPEAT rounds, and paired (each round runs every case once,
# in turn).  The damaged check runs once more with RECKON_DIAGNOSE=off: the
# paired ratio of the two is what the diagnosis (likely causes, warnings)
# costs.  Writes reports/bench/drill-<N>.md.  Nothing is asserted about
# time: these machines are shared.
set -euo pipefail

# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
command -v jq >/dev/null || { echo "bench-drill: jq is missing: run tests/harness/deps.sh" >&2; exit 1; }

echo "bench-drill: loading $N rows per side" >&2
for db in drill_src drill_tgt; do
	bench_table $db "$N"
done
# one row lost in each of windows 3, 7, 11, ... (10 of 48)
psql_b -d drill_tgt -c "delete from bench.t where id in (select min(id) from bench.t
	where ts >= '2026-03-02 00:00:00+00' group by floor(extract(epoch from ts - '2026-03-02 00:00:00+00') / 1800)
	having floor(extract(epoch from min(ts) - '2026-03-02 00:00:00+00') / 1800)::int % 4 = 3 limit 10)"

args=(check --source "dbname=drill_src" --target "dbname=drill_tgt" --table bench.t --key id --time ts --sum amount
	--columns id,ts,amount,note --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 30m
	--now 2026-03-04T00:00:00Z)

once() { # once DB LEAF DIAGNOSE -> "seconds rss passes reread differ" of one run
	local tgt=$1 leaf=$2 rc=0 s m
	rm -rf "$base/rep" && mkdir "$base/rep"
	RECKON_DIAGNOSE=$3 /usr/bin/time -f '%e %M' -o "$base/time" "$RECKON" "${args[@]/drill_tgt/$tgt}" \
		--leaf-rows "$leaf" --report "$base/rep" >/dev/null || rc=$?
	[[ $rc -le 1 ]] || { echo "bench-drill: reckon exited $rc" >&2; exit 1; }
	read -r s m < <(tail -n 1 "$base/time")
	printf '%s %s %s %s %s\n' "$s" "$m" "$(jq .drilldown.passes "$base/rep/summary.json")" \
		"$(jq .drilldown.rows_reread "$base/rep/summary.json")" "$(jq .windows.differ "$base/rep/summary.json")"
}

psql_b -d postgres -c "create database drill_clean template drill_src"
psql_b -d postgres -c "create database drill_one template drill_src"
psql_b -d drill_one -c "delete from bench.t where id = $N / 2"
# the damaged check with and without the diagnosis run one after the other,
# after another damaged check has warmed the damaged target's cache, so that
# the pair sees the same load and the same cache
labels=(clean one-damaged damaged "damaged, RECKON_DIAGNOSE=off" damaged damaged)
dbs=(drill_clean drill_one drill_tgt drill_tgt drill_tgt drill_tgt)
leaves=(200000 200000 1000 200000 200000 2000000)
diagnose=(on on on off on on)
diag_pairs=
declare -A secs=() rss=() info=() pairs=()
# rounds: each run once per round, in turn, so that every run of a round sees
# the same load; paired = the median over the rounds of a run's seconds over
# the clean check's of the same round
for ((i = 0; i < REPEAT; i++)); do
	for k in "${!labels[@]}"; do
		read -r s m p r d <<<"$(once "${dbs[$k]}" "${leaves[$k]}" "${diagnose[$k]}")"
		secs[$k]="${secs[$k]:-} $s"
		rss[$k]="${rss[$k]:-} $m"
		info[$k]="$p $r $d"
		[[ $k -eq 0 ]] && clean_s=$s
		[[ $k -eq 3 ]] && plain_s=$s
		pairs[$k]="${pairs[$k]:-} $(ratio "$s" "$clean_s")"
		# the damaged check with the diagnosis over the same check without it
		[[ $k -eq 4 ]] && diag_pairs="$diag_pairs $(awk -v a="$s" -v b="$plain_s" \
			'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')"
	done
done
total=$((2 * N))
out=$repo/reports/bench/drill-$N.md
mkdir -p "$(dirname "$out")"
{
	echo "# reckon check drilldown, $N rows per side, 48 windows, 1 or 10 damaged ($(date -u +%Y-%m-%d))"
	echo
	echo "| run | --leaf-rows | seconds (best of $REPEAT) | ratio to clean | paired ratio | peak RSS KiB | passes | rows re-read (both sides) | fraction of the table |"
	echo "|---|---|---|---|---|---|---|---|---|"
	# shellcheck disable=SC2086
	clean=$(min ${secs[0]})
	for k in "${!labels[@]}"; do
		# shellcheck disable=SC2086
		s=$(min ${secs[$k]})
		# shellcheck disable=SC2086
		m=$(min ${rss[$k]})
		read -r p r _ <<<"${info[$k]}"
		# shellcheck disable=SC2086
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %.3f |\n' "${labels[$k]}" "${leaves[$k]}" "$s" \
			"$(ratio "$s" "$clean")" "$(median ${pairs[$k]})" "$m" "$p" "$r" \
			"$(awk -v a="$r" -v b="$total" 'BEGIN { print a / b }')"
	done
	echo
	# shellcheck disable=SC2086
	echo "The diagnosis (likely causes and warnings) costs the damaged check (--leaf-rows 200000)"
	# shellcheck disable=SC2086
	echo "$(median $diag_pairs) x its time with RECKON_DIAGNOSE=off: median over $REPEAT paired rounds of$diag_pairs."
	echo
	echo "The table has an index on ts, as the time column of an incremental load usually has,"
	echo "so the drilldown's range scans read only the damaged windows."
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
