#!/usr/bin/env bash
# bench-drill.sh RECKON_BIN - what the key-level drilldown costs.
#
# N rows per side (env N, default 1000000) over one day, checked in 48
# half-hour windows; the target loses one row in one window (one-damaged),
# or one row in each of 10 windows (damaged).
# Reports, from summary.json, the rows the drilldown re-read as a fraction
# of the rows in the table, the passes it took, and the time and peak RSS
# of a clean check against the damaged one, with --leaf-rows small and
# large.  Writes reports/bench/drill-<N>.md.  Nothing is asserted about
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

run() { # run LABEL DB LEAF -> "seconds rss passes reread differ"
	local label=$1 tgt=$2 leaf=$3 best="" rss="" rc i
	for ((i = 0; i < REPEAT; i++)); do
		rm -rf "$base/rep" && mkdir "$base/rep"
		rc=0
		/usr/bin/time -f '%e %M' -o "$base/time" "$RECKON" "${args[@]/drill_tgt/$tgt}" --leaf-rows "$leaf" \
			--report "$base/rep" >/dev/null || rc=$?
		[[ $rc -le 1 ]] || { echo "bench-drill: reckon exited $rc" >&2; exit 1; }
		read -r s m < <(tail -n 1 "$base/time")
		if [[ -z $best ]] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$s; rss=$m; fi
	done
	printf '%s %s %s %s %s %s\n' "$label" "$best" "$rss" "$(jq .drilldown.passes "$base/rep/summary.json")" \
		"$(jq .drilldown.rows_reread "$base/rep/summary.json")" "$(jq .windows.differ "$base/rep/summary.json")"
}

psql_b -d postgres -c "create database drill_clean template drill_src"
psql_b -d postgres -c "create database drill_one template drill_src"
psql_b -d drill_one -c "delete from bench.t where id = $N / 2"
results=$({
	run clean drill_clean 200000
	run one-damaged drill_one 200000
	run damaged drill_tgt 200000
	run damaged drill_tgt 1000
	run damaged drill_tgt 2000000
})
total=$((2 * N))
out=$repo/reports/bench/drill-$N.md
mkdir -p "$(dirname "$out")"
{
	echo "# reckon check drilldown, $N rows per side, 48 windows, 1 or 10 damaged ($(date -u +%Y-%m-%d))"
	echo
	echo "| run | --leaf-rows | seconds (best of $REPEAT) | ratio to clean | peak RSS KiB | passes | rows re-read (both sides) | fraction of the table |"
	echo "|---|---|---|---|---|---|---|---|"
	clean=$(awk 'NR == 1 { print $2 }' <<<"$results")
	i=0
	for leaf in 200000 200000 200000 1000 2000000; do
		i=$((i + 1))
		read -r label s m p r _ <<<"$(sed -n "${i}p" <<<"$results")"
		printf '| %s | %s | %s | %.2f | %s | %s | %s | %.3f |\n' "$label" "$leaf" "$s" \
			"$(awk -v a="$s" -v b="$clean" 'BEGIN { print a / b }')" "$m" "$p" "$r" \
			"$(awk -v a="$r" -v b="$total" 'BEGIN { print a / b }')"
	done
	echo
	echo "The table has an index on ts, as the time column of an incremental load usually has,"
	echo "so the drilldown's range scans read only the damaged windows."
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
