#!/usr/bin/env bash
# bench-pushdown.sh RECKON_BIN - make bench-pushdown: the digest pass
# streamed versus pushed down into PostgreSQL (reckon check --pushdown).
#
# The table of tests/harness/bench.sh - bench.t (bigint id, timestamptz ts
# over one day, numeric(12,2) amount, text note), N rows per side (env N,
# default 1000000), identical in two databases of one private cluster, with
# the reckon extension - and these timings, each the best of REPEAT (5):
#
#   copy floor   both sides' compared columns copied out concurrently by psql
#                (\copy (select ...) to /dev/null): what streaming must move
#   scan floor   both sides' SELECT count(*), sum(amount) GROUP BY window,
#                concurrently, in the database: the issue's floor for an
#                in-database digest (the grouping expression and planner
#                settings of reckon's grouped statement, extension 1.1;
#                with 1.2 reckon does not group, docs/performance.md)
#   range floor  both sides' SELECT count(*), sum(amount) over the range, no
#                grouping, concurrently: the scan and the sum alone (#25)
#   stream       reckon check (rows streamed and digested by reckon)
#   pushdown     reckon check --pushdown (window digests computed by the server)
#
# for identical tables (match) and after damaging 10 target rows (differ:
# the drilldown, which always streams, comes on top).  Prints a table and
# writes it to reports/bench/pushdown-<N>.md.  No timing is asserted; a wrong
# exit status of reckon fails.  Needs the extension installed
# (make ext-install, as root) or built (make ext: loaded by its path).
set -euo pipefail

# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
# load DB ROWS - bench.t as in bench.sh, with the extension
load() {
	bench_table "$1" "$2"
	bench_ext "$1"
}

# both_once KIND - seconds for both sides' KIND (copy|scan|range) run concurrently
both_once() { bench_floor "$1" bench_src bench_tgt; }

rows_table=()
load0=$(bench_load)
echo "bench: loading $N rows per side" >&2
load bench_src "$N"
load bench_tgt "$N"
both_once copy >/dev/null
both_once scan >/dev/null
both_once range >/dev/null
for mode in match differ; do
	want=0
	if [[ $mode == differ ]]; then
		want=1
		bench_damage bench_tgt "$N"
	fi
	copies=() scans=() ranges=() rg_pairs=() st=() st_rss=() pd=() pd_rss=() st_pairs=() pd_pairs=()
	for ((i = 0; i < REPEAT; i++)); do
		copies+=("$(both_once copy)")
		read -r s r <<<"$(bench_reckon bench_src bench_tgt $want)"
		st+=("$s")
		st_rss+=("$r")
		st_pairs+=("$(ratio "$s" "${copies[-1]}")")
		scans+=("$(both_once scan)")
		read -r s r <<<"$(bench_reckon bench_src bench_tgt $want --pushdown)"
		pd+=("$s")
		pd_rss+=("$r")
		pd_pairs+=("$(ratio "$s" "${scans[-1]}")")
		ranges+=("$(both_once range)")
		rg_pairs+=("$(ratio "$s" "${ranges[-1]}")")
	done
	c=$(min "${copies[@]}")
	f=$(min "${scans[@]}")
	s=$(min "${st[@]}")
	p=$(min "${pd[@]}")
	g=$(min "${ranges[@]}")
	rows_table+=("$(printf '| %s | %s | copy floor | %s | | | | |' "$N" "$mode" "$c")")
	rows_table+=("$(printf '| %s | %s | scan floor | %s | | | | |' "$N" "$mode" "$f")")
	rows_table+=("$(printf '| %s | %s | range floor | %s | | | | |' "$N" "$mode" "$g")")
	rows_table+=("$(printf '| %s | %s | stream | %s | %s x copy floor | %s | 1.00 | %s |' "$N" "$mode" "$s" "$(ratio "$s" "$c")" "$(median "${st_pairs[@]}")" "$(min "${st_rss[@]}")")")
	rows_table+=("$(printf '| %s | %s | pushdown | %s | %s x scan floor | %s | %s | %s |' "$N" "$mode" "$p" "$(ratio "$p" "$f")" "$(median "${pd_pairs[@]}")" "$(ratio "$p" "$s")" "$(min "${pd_rss[@]}")")")
	rows_table+=("$(printf '| %s | %s | pushdown | %s | %s x range floor | %s | %s | %s |' "$N" "$mode" "$p" "$(ratio "$p" "$g")" "$(median "${rg_pairs[@]}")" "$(ratio "$p" "$s")" "$(min "${pd_rss[@]}")")")
	echo "bench: $N rows, $mode: stream ${s}s, pushdown ${p}s, copy floor ${c}s, scan floor ${f}s, range floor ${g}s" >&2
done

out_dir=$repo/reports/bench
mkdir -p "$out_dir"
out=$out_dir/pushdown-$N.md
{
	echo "# reckon check --pushdown benchmark, $N rows per side"
	echo
	bench_provenance N REPEAT
	echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "- reckon: $("$RECKON" --version 2>/dev/null | head -n 1)"
	echo "- PostgreSQL: $("$RK_PGBIN/postgres" --version), max_parallel_workers_per_gather $(psql_b -d postgres -At -c 'show max_parallel_workers_per_gather')"
	echo "- machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- table: bench.t (id bigint, ts timestamptz over one day, amount numeric(12,2), note text), the same rows in two databases of one private cluster"
	echo "- reckon: \`check --key id --time ts --sum amount --columns id,ts,amount,note --window 1h\` over the 24 closed windows of the day"
	echo "- copy floor: both sides' \`\\copy (select id,ts,amount,note ...) to /dev/null\`, concurrently"
	echo "- scan floor: both sides' \`select (reckon_instant(ts) - from) / width, count(*), sum(amount) ... group by 1\`, concurrently, in the database"
	echo "- range floor: both sides' \`select count(*), sum(amount) ... where ts in the day\`, concurrently, in the database, no grouping: the scan and the sum alone (pushdown's paired ratio to it pairs reckon's run with the range floor measured just after)"
	echo "- load: $load0 (1, 5, 15 min) at the start, $(bench_load) at the end"
	echo "- stream: \`reckon check\`; pushdown: \`reckon check --pushdown\` (the drilldown streams in both)"
	echo "- match: identical tables; differ: 10 target rows damaged in 6 windows"
	echo "- best of $REPEAT runs for each; paired = the median, over the $REPEAT rounds, of reckon's seconds / its floor's measured just before (the two see the same load); peak RSS of reckon (GNU time %M)"
	echo
	echo "| rows | mode | what | seconds | ratio to its floor | paired ratio | ratio to stream | peak RSS KiB |"
	echo "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |"
	printf '%s\n' "${rows_table[@]}"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
echo
echo "bench: written to ${out#"$repo"/}"
