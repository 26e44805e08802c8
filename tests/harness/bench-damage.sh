#!/usr/bin/env bash
# bench-damage.sh RECKON_BIN - make bench-damage: what a check costs, in
# memory and in time, as the findings grow.  Not part of make bench or CI:
# its largest size holds millions of findings.
#
# For each count F of FINDINGS (env, default "50000 500000 5000000"):
# bench.t of F rows over one day (bench-lib.sh bench_table) as the source,
# a copy as a clean target, and a copy whose every row has another amount
# as the damaged target; then REPEAT (env, default 1) rounds of a streamed
# check of the day as one window (--window 1d): clean, then damaged - a
# window where all F rows differ, F changed findings.  Reported per F: the
# seconds and peak RSS of both, the findings the damaged check reported,
# the damaged check's seconds per finding beyond the clean one's, and its
# peak RSS beyond the clean one's per finding.  Seconds on a shared machine
# are noisy (the table says how loaded it was); peak RSS is not.
# Writes reports/bench/damage.md.  DAMAGE=missing (env) deletes nine rows
# in ten from the damaged target instead - 0.9 F missing findings, each of
# which the diagnosis placed by a sweep past the bound (docs/performance.md)
# - and writes reports/bench/damage-missing.md; DAMAGE=doubled loads nine
# rows in ten twice (0.9 F duplicated findings, the primary key dropped)
# and writes reports/bench/damage-doubled.md.
set -euo pipefail

REPEAT=${REPEAT:-1}
FINDINGS=${FINDINGS:-50000 500000 5000000}
DAMAGE=${DAMAGE:-changed}
case $DAMAGE in
changed)
	damage_sql="update bench.t set amount = amount + 1"
	damage_text="every row's amount + 1, so the window's F rows all differ (F changed findings)"
	out_name=damage.md
	;;
missing)
	damage_sql="delete from bench.t where id % 10 <> 0"
	damage_text="nine rows in ten deleted (0.9 F missing findings)"
	out_name=damage-missing.md
	;;
doubled)
	damage_sql="alter table bench.t drop constraint t_pkey; insert into bench.t select * from bench.t where id % 10 <> 0"
	damage_text="nine rows in ten loaded twice, its primary key dropped (0.9 F duplicated findings)"
	out_name=damage-doubled.md
	;;
*)
	echo "bench-damage: DAMAGE is changed, missing or doubled, not $DAMAGE" >&2
	exit 2
	;;
esac
# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
command -v jq >/dev/null || { echo "bench-damage: jq is missing: run tests/harness/deps.sh" >&2; exit 1; }

# damage_reckon TGT_DB WANT_EXIT - one check of bench.t as one window of a
# day; prints "seconds peak_rss_kib"
damage_reckon() {
	local tgt=$1 want=$2 t0 t1 rc=0
	t0=$(now)
	/usr/bin/time -f '%M' -o "$base/time.out" "$RECKON" check \
		--source "host=$PGHOST port=$PGPORT user=$PGUSER dbname=damage_src" \
		--target "host=$PGHOST port=$PGPORT user=$PGUSER dbname=$tgt" \
		--table bench.t --key id --time ts --sum amount \
		--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1d \
		--now 2026-03-04T00:00:00Z --report "$base/report" >"$base/reckon.out" 2>"$base/reckon.err" || rc=$?
	t1=$(now)
	if [[ $rc -ne $want ]]; then
		echo "bench-damage: reckon check of $tgt exited with $rc, expected $want" >&2
		tail -n 20 "$base/reckon.err" >&2
		exit 1
	fi
	echo "$(elapsed "$t0" "$t1") $(tail -n 1 "$base/time.out")"
}

rows=()
loads=()
for f in $FINDINGS; do
	echo "bench-damage: loading $f rows per side ($(date -u +%H:%M:%S))" >&2
	bench_table damage_src "$f"
	for db in clean dmg; do
		psql_b -d postgres -c "drop database if exists damage_$db with (force)" \
			-c "create database damage_$db template damage_src"
	done
	psql_b -d damage_dmg -c "$damage_sql" -c "vacuum (freeze, analyze) bench.t"
	cs=() cm=() ds=() dm=()
	for ((i = 0; i < REPEAT; i++)); do
		loads+=("$(cut -d ' ' -f 1-3 /proc/loadavg)")
		read -r s m <<<"$(damage_reckon damage_clean 0)"
		cs+=("$s") cm+=("$m")
		read -r s m <<<"$(damage_reckon damage_dmg 1)"
		ds+=("$s") dm+=("$m")
		got=$(jq -r '.findings | [.[]] | add' "$base/report/summary.json")
		echo "bench-damage: $f rows: clean ${cs[-1]} s ${cm[-1]} KiB, damaged ${ds[-1]} s ${dm[-1]} KiB, $got findings" >&2
	done
	c=$(min "${cs[@]}") d=$(min "${ds[@]}") rc=$(min "${cm[@]}") rd=$(min "${dm[@]}")
	rows+=("$(awk -v f="$f" -v c="$c" -v d="$d" -v rc="$rc" -v rd="$rd" -v got="$got" 'BEGIN {
		printf "| %d | %d | %.3f | %d | %.3f | %d | %.2f | %.0f |", f, got, c, rc, d, rd,
			(d - c) / got * 1e6, (rd - rc) * 1024 / got
	}')")
	for db in src clean dmg; do
		psql_b -d postgres -c "drop database if exists damage_$db with (force)"
	done
done

out=$repo/reports/bench/$out_name
mkdir -p "$(dirname "$out")"
{
	echo "# reckon check as the findings grow ($(date -u +%Y-%m-%d))"
	echo
	bench_provenance FINDINGS REPEAT DAMAGE
	echo "- reckon: $("$RECKON" --version 2>/dev/null | head -n 1); PostgreSQL: $("$RK_PGBIN/postgres" --version)"
	echo "- machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), shared; load average (1, 5, 15 min) before each round: ${loads[*]}"
	echo "- bench.t of F rows over one day (id bigint primary key, ts timestamptz, amount numeric(12,2), note text, an index on ts), checked streamed as one window (\`--key id --time ts --sum amount --window 1d\`, the whole row hashed); the damaged target: $damage_text"
	echo "- seconds: the best of $REPEAT round(s), noisy on a shared machine; peak RSS: GNU time's maximum resident set"
	echo
	echo "| rows per side | findings | clean s | clean peak RSS KiB | damaged s | damaged peak RSS KiB | µs per finding (damaged - clean) | bytes per finding (damaged - clean RSS) |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	printf '%s\n' "${rows[@]}"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
