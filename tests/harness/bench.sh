#!/usr/bin/env bash
# bench.sh RECKON_BIN - make bench: reckon check against the physical floor.
#
# N rows per side (env N, default 1000000) in a private cluster: bench.t
# (bigint id, timestamptz ts over one day, numeric(12,2) amount, text note)
# with identical content in two databases.  The floor is what any checker
# must at least do: both sides' compared columns copied out concurrently by
# psql (\copy (select ...) to /dev/null), measured in the same run.  Then
#   match   reckon check over 24 hourly windows of identical tables
#   differ  the same after damaging 10 target rows in 6 windows (drilldown)
# each timed REPEAT (5) times (the best, as for the floor) with GNU time for the peak
# RSS; and the same at N/4 rows, to show that peak RSS does not grow with N.
# Prints a table and writes it to reports/bench/check-<N>.md.  No timing is
# asserted; a wrong exit status of reckon (not 0 / 1 as expected) fails.
set -euo pipefail

# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

load() { bench_table "$@"; }

# floor_once SRC_DB TGT_DB [binary] - seconds for both sides copied out
# concurrently (binary: with (format binary), the binary floor)
floor_once() { bench_floor "copy${3:+-$3}" "$1" "$2"; }

rows_table=()
# bench_size ROWS - loads both sides, then measures floor, match and differ
bench_size() {
	local rows=$1 i floors=() bfloors=() secs=() rss=() pairs=() bpairs=() f b s r res
	echo "bench: loading $rows rows per side" >&2
	load bench_src "$rows"
	load bench_tgt "$rows"
	# warm-up: the first read of fresh tables is not what we measure
	floor_once bench_src bench_tgt >/dev/null
	for mode in match match-jobs2 match-jobs4 differ; do
		local opts=()
		case $mode in match-jobs*) opts=(--jobs "${mode#match-jobs}") ;; esac
		if [[ $mode == differ ]]; then
			bench_damage bench_tgt "$rows"
		fi
		floors=() bfloors=() secs=() rss=() pairs=() bpairs=()
		for ((i = 0; i < REPEAT; i++)); do
			bfloors+=("$(floor_once bench_src bench_tgt binary)")
			floors+=("$(floor_once bench_src bench_tgt)")
			res=$(bench_reckon bench_src bench_tgt "$([[ $mode == differ ]] && echo 1 || echo 0)" "${opts[@]}")
			read -r s r <<<"$res"
			secs+=("$s")
			rss+=("$r")
			# the floor and reckon back to back see the same load
			pairs+=("$(ratio "$s" "${floors[-1]}")")
			bpairs+=("$(ratio "$s" "${bfloors[-1]}")")
		done
		f=$(min "${floors[@]}")
		b=$(min "${bfloors[@]}")
		s=$(min "${secs[@]}")
		r=$(min "${rss[@]}")
		rows_table+=("$(printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' "$rows" "$mode" "$s" "$f" \
			"$(ratio "$s" "$f")" "$(median "${pairs[@]}")" "$b" "$(ratio "$s" "$b")" "$(median "${bpairs[@]}")" "$r")")
		echo "bench: $rows rows, $mode: reckon ${s}s, floor ${f}s, binary floor ${b}s, peak RSS ${r} KiB" >&2
	done
}

bench_size "$N"
bench_size $((N / 4))

out_dir=$repo/reports/bench
mkdir -p "$out_dir"
out=$out_dir/check-$N.md
{
	echo "# reckon check benchmark, $N rows per side"
	echo
	bench_provenance N REPEAT NOINDEX
	echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "- reckon: $("$RECKON" --version 2>/dev/null | head -n 1)"
	echo "- PostgreSQL: $("$RK_PGBIN/postgres" --version)"
	echo "- machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- table: bench.t (id bigint, ts timestamptz over one day, amount numeric(12,2), note text), the same rows in two databases of one private cluster"
	echo "- reckon: \`check --key id --time ts --sum amount --window 1h\` over the 24 closed windows of the day, hashing the whole row (the default: 4 columns, id, ts, amount, note)"
	echo "- floor: both sides' \`\\copy (select id,ts,amount,note from bench.t where ts in the day) to /dev/null\`, concurrently, by psql (COPY text, psql's default: the issue's floor)"
	echo "- binary floor: the same \`with (format binary)\`: the server skips its output functions, as reckon's binary COPY does for these columns; the stricter reference, shown beside"
	echo "- match: identical tables (match-jobsN: with --jobs N, N readers per side in one shared snapshot); differ: 10 target rows damaged in 6 windows (4 missing, 4 changed, 1 extra, 1 note changed)"
	echo "- both tables have an index on ts, as the time column of an incremental load usually has"
	echo "- best of $REPEAT runs for each; ratio = best reckon seconds / best floor seconds; paired = the median, over the $REPEAT rounds, of reckon's seconds / the floor's measured just before (the two see the same load); peak RSS of reckon (GNU time %M)"
	echo
	echo "| rows | mode | seconds | floor seconds | ratio | paired ratio | binary floor seconds | ratio to binary | paired to binary | peak RSS KiB |"
	echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	printf '%s\n' "${rows_table[@]}"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
echo
echo "bench: written to ${out#"$repo"/}"
