#!/usr/bin/env bash
# bench-job.sh RECKON_BIN - a job of several tables (make bench): the same
# four tables checked one by one (four reckon check processes, one after
# the other, as a wrapper script would), as one job, and as one job with
# --parallel 2, all measured in the same run.
#
# Four tables bench.t1..t4 of N/4 rows each per side (env N, default
# 1000000: the same rows in all as bench.sh's one table), identical in two
# databases, 24 hourly windows, the whole row hashed.  Each way is timed
# REPEAT (5) times in interleaved rounds; the table shows the best seconds,
# the ratio of the bests to the one-by-one run, and the median of the
# per-round ratios (each round's three runs see the same load).  Writes
# reports/bench/job-<N>.md.  No timing is asserted; a wrong exit status
# fails the benchmark.
set -euo pipefail

# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

TABLES=4
rows=$((N / TABLES))

load_tables() {
	psql_b -d postgres -c "drop database if exists $1 with (force)" -c "create database $1"
	psql_b -d "$1" -c "create schema bench"
	for ((k = 1; k <= TABLES; k++)); do
		psql_b -d "$1" <<-SQL
			create table bench.t$k (id bigint, ts timestamptz, amount numeric(12,2), note text);
			insert into bench.t$k
			select i,
			       timestamptz '2026-03-02 00:00:00+00' + (i - 1) * (interval '86400 seconds' / $rows),
			       (i * 7919 % 1000000) / 100.0,
			       'note ' || md5((i * $k)::text)
			from generate_series(1::bigint, $rows) i;
			create index on bench.t$k (ts);
			vacuum (freeze, analyze) bench.t$k;
		SQL
	done
}

src="host=$PGHOST port=$PGPORT user=$PGUSER dbname=bjob_src"
tgt="host=$PGHOST port=$PGPORT user=$PGUSER dbname=bjob_tgt"
range=(--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --now 2026-03-04T00:00:00Z)

job=$base/job.ini
{
	printf '[defaults]\nsource = %s\ntarget = %s\nwindow = 1h\nkey = id\ntime = ts\nsum = amount\n' "$src" "$tgt"
	for ((k = 1; k <= TABLES; k++)); do
		printf '\n[table t%d]\ntable = bench.t%d\n' "$k" "$k"
	done
} >"$job"

# run_way WAY - seconds for one way of checking the four tables
run_way() {
	local t0 t1 rc=0
	t0=$(now)
	case $1 in
	one-by-one)
		for ((k = 1; k <= TABLES; k++)); do
			"$RECKON" check --source "$src" --target "$tgt" --table "bench.t$k" --key id --time ts --sum amount \
				--window 1h "${range[@]}" --report "$base/rep-t$k" >/dev/null 2>"$base/err" || rc=$?
			[[ $rc -eq 0 ]] || break
		done
		;;
	job) "$RECKON" check --job "$job" "${range[@]}" --report "$base/rep-job" >/dev/null 2>"$base/err" || rc=$? ;;
	job-parallel-2)
		"$RECKON" check --job "$job" "${range[@]}" --parallel 2 --report "$base/rep-par" >/dev/null 2>"$base/err" || rc=$?
		;;
	esac
	t1=$(now)
	if [[ $rc -ne 0 ]]; then
		echo "bench: $1 exited with $rc, expected 0" >&2
		tail -n 20 "$base/err" >&2
		exit 1
	fi
	elapsed "$t0" "$t1"
}

echo "bench: loading $TABLES tables of $rows rows per side" >&2
load_tables bjob_src
load_tables bjob_tgt
ways=(one-by-one job job-parallel-2)
declare -A best paired
for w in "${ways[@]}"; do
	run_way "$w" >/dev/null   # warm-up
	best[$w]=
	paired[$w]=
done
for ((i = 0; i < REPEAT; i++)); do
	declare -A round=()
	for w in "${ways[@]}"; do
		round[$w]=$(run_way "$w")
		best[$w]="${best[$w]} ${round[$w]}"
	done
	for w in "${ways[@]}"; do
		paired[$w]="${paired[$w]} $(ratio "${round[$w]}" "${round[one-by-one]}")"
	done
	echo "bench: round $((i + 1)): $(for w in "${ways[@]}"; do printf '%s %ss  ' "$w" "${round[$w]}"; done)" >&2
done

out_dir=$repo/reports/bench
mkdir -p "$out_dir"
out=$out_dir/job-$N.md
base_s=$(min ${best[one-by-one]})
{
	echo "# reckon check --job benchmark, $TABLES tables of $rows rows per side"
	echo
	bench_provenance N REPEAT
	bench_environment
	echo "- tables: bench.t1..t$TABLES (id bigint, ts timestamptz over one day, amount numeric(12,2), note text), identical in two databases, whole row hashed, 24 hourly windows each"
	echo "- one-by-one: $TABLES \`reckon check\` processes in a row (a wrapper script); job: \`reckon check --job\` of the $TABLES tables; job-parallel-2: the same with \`--parallel 2\`"
	echo "- best of $REPEAT interleaved rounds; ratio = best seconds / best one-by-one seconds; paired = median over the rounds of seconds / that round's one-by-one seconds"
	echo
	echo "| way | seconds | ratio | paired ratio |"
	echo "| --- | ---: | ---: | ---: |"
	for w in "${ways[@]}"; do
		s=$(min ${best[$w]})
		# shellcheck disable=SC2086
		printf '| %s | %s | %s | %s |\n' "$w" "$s" "$(ratio "$s" "$base_s")" "$(median ${paired[$w]})"
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
echo
echo "bench: written to ${out#"$repo"/}"
