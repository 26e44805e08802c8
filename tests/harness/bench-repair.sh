#!/usr/bin/env bash
# bench-repair.sh RECKON_BIN - what a row-level repair (the default) costs
# against --replace-interval, and how many rows each rewrites (make bench).
#
# bench.t of N rows (env, default 1000000) over one day (bench-lib.sh, with
# its primary key) in a source database with the reckon extension
# (bench_ext), and a target that is a copy with 4 rows changed (another
# amount), one in each of 4 of the 24 hourly windows.  `reckon check
# --rerun-list` lists those 4 windows; then, in each of REPEAT (5) rounds,
# on a fresh copy of the damaged target each time, each way repairs that
# list:
#
#   rows      reckon repair --rerun-list ... --execute            (the default)
#   streamed  the same with --pushdown=off: the checks stream the rows
#   replace   reckon repair --rerun-list ... --execute --replace-interval
#
# (repair's checks compute their digests in the server where the extension
# is, by default; streamed shows what they cost without it.)
#
# The rows a way rewrote are counted from pg_stat_user_tables (n_tup_ins,
# n_tup_upd, n_tup_del of bench.t, after the repair's backend has ended and
# flushed its counts, less those before), and every repair must leave the
# target matching (a following check exits 0).  Reported: the best seconds
# of each way, the ratio of the bests, the median of the per-round ratios
# (a round's two runs see the same load), and the rows written.  Targets:
# the row-level repair rewrites exactly 4 rows (4 updates, no insert or
# delete) and takes under 0.1 x the time of --replace-interval (rows, with
# the extension).  Writes
# reports/bench/repair-<N>.md.  No timing is asserted (the machines are
# shared); a wrong exit status or a target that still differs fails it.
set -euo pipefail

# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"

src="host=$PGHOST port=$PGPORT user=$PGUSER dbname=brep_src"
opts=(--table bench.t --key id --time ts --sum amount)
range=(--window 1h --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --now 2026-03-04T00:00:00Z)
# the changed rows: the middle row of windows 3, 9, 14 and 19
changed="$((N / 24 * 3 + N / 48)), $((N / 24 * 9 + N / 48)), $((N / 24 * 14 + N / 48)), $((N / 24 * 19 + N / 48))"

echo "bench: loading $N rows per side" >&2
bench_table brep_src "$N"
bench_ext brep_src
psql_b -d postgres -c "drop database if exists brep_dmg with (force)" -c "create database brep_dmg template brep_src"
psql_b -d brep_dmg <<-SQL
	update bench.t set amount = amount + 1 where id in ($changed);
	vacuum (freeze, analyze) bench.t;
SQL

# the list the repairs replay
if "$RECKON" check --source "$src" --target "host=$PGHOST port=$PGPORT user=$PGUSER dbname=brep_dmg" "${opts[@]}" \
	"${range[@]}" --rerun-list "$base/rerun.csv" >/dev/null 2>"$base/err"; then
	echo "bench: the damaged target matched its source" >&2
	exit 1
elif [[ $? -ne 1 ]]; then
	echo "bench: the check of the damaged target failed" >&2
	tail -n 20 "$base/err" >&2
	exit 1
fi
nlisted=$(($(wc -l <"$base/rerun.csv") - 1))
[[ $nlisted == 4 ]] || { echo "bench: the rerun list names $nlisted intervals, expected 4" >&2; exit 1; }

# counts DB - "inserted updated deleted" of bench.t in DB, once no other
# backend is connected to it (an ended backend has flushed its counts)
counts() {
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $(psql_b -d "$1" -At -c "select count(*) from pg_stat_activity where datname = '$1' and pid <> pg_backend_pid()") == 0 ]] && break
		sleep 0.1
	done
	psql_b -d "$1" -At -F ' ' -c "select n_tup_ins, n_tup_upd, n_tup_del from pg_stat_user_tables where relid = 'bench.t'::regclass"
}

# run_way WAY - "seconds inserted updated deleted" for one repair on a
# fresh copy of the damaged target
run_way() {
	local t0 t1 rc=0 before after tgt="host=$PGHOST port=$PGPORT user=$PGUSER dbname=brep_tgt" extra=()
	[[ $1 == replace ]] && extra=(--replace-interval)
	[[ $1 == streamed ]] && extra=(--pushdown=off)
	psql_b -d postgres -c "drop database if exists brep_tgt with (force)" -c "create database brep_tgt template brep_dmg"
	before=$(counts brep_tgt)
	t0=$(now)
	"$RECKON" repair --source "$src" --target "$tgt" "${opts[@]}" --now 2026-03-04T00:00:00Z \
		--rerun-list "$base/rerun.csv" --execute "${extra[@]}" >"$base/out" 2>"$base/err" || rc=$?
	t1=$(now)
	if [[ $rc -ne 0 ]]; then
		echo "bench: repair ($1) exited with $rc, expected 0" >&2
		tail -n 20 "$base/err" >&2
		exit 1
	fi
	after=$(counts brep_tgt)
	"$RECKON" check --source "$src" --target "$tgt" "${opts[@]}" "${range[@]}" >/dev/null 2>"$base/err" || {
		echo "bench: after repair ($1) the target does not match its source" >&2
		exit 1
	}
	# shellcheck disable=SC2086
	set -- "$(elapsed "$t0" "$t1")" $before $after
	echo "$1 $(($5 - $2)) $(($6 - $3)) $(($7 - $4))"
}

ways=(rows streamed replace)
declare -A best paired written
for w in "${ways[@]}"; do
	best[$w]=
	paired[$w]=
	run_way "$w" >/dev/null # warm-up
done
for ((i = 0; i < REPEAT; i++)); do
	declare -A round=()
	for w in "${ways[@]}"; do
		read -r s ins upd del <<<"$(run_way "$w")"
		round[$w]=$s
		best[$w]="${best[$w]} $s"
		this="$ins inserted, $upd updated, $del deleted"
		if [[ -n ${written[$w]:-} && ${written[$w]} != "$this" ]]; then
			echo "bench: repair ($w) wrote $this in round $((i + 1)), ${written[$w]} before" >&2
			exit 1
		fi
		written[$w]=$this
	done
	for w in "${ways[@]}"; do
		paired[$w]="${paired[$w]} $(ratio "${round[$w]}" "${round[replace]}")"
	done
	echo "bench: round $((i + 1)): rows ${round[rows]}s  streamed ${round[streamed]}s  replace ${round[replace]}s" >&2
done

out_dir=$repo/reports/bench
mkdir -p "$out_dir"
out=$out_dir/repair-$N.md
rows_s=$(min ${best[rows]})
repl_s=$(min ${best[replace]})
# shellcheck disable=SC2086
rows_paired=$(median ${paired[rows]})
{
	echo "# reckon repair benchmark: 4 changed rows in a table of $N rows"
	echo
	bench_provenance N REPEAT
	bench_environment "shared with other work while it ran (the seconds are noisy; the rows written are not)"
	echo "- table: bench.t (id bigint primary key, ts timestamptz over one day, amount numeric(12,2), note text, an index on ts), the reckon extension in the database; the target a copy with the amount of 4 rows changed, one in each of 4 hourly windows; the rerun list of \`reckon check --window 1h\` names those 4 windows"
	echo "- rows: \`reckon repair --rerun-list ... --execute\` (row by row, the default: the checks' digests computed in the server); streamed: the same with \`--pushdown=off\` (the checks stream the interval's rows, as without the extension); replace: \`--replace-interval\`; each on a fresh copy of the damaged target, both checks of each interval included (before and after)"
	echo "- rows written: from pg_stat_user_tables of bench.t (n_tup_ins, n_tup_upd, n_tup_del), after less before, the same in every round"
	echo "- best of $REPEAT interleaved rounds; ratio = best seconds / best replace seconds; paired = median over the rounds of seconds / that round's replace seconds"
	echo
	echo "| way | seconds | ratio | paired ratio | rows written |"
	echo "| --- | ---: | ---: | ---: | --- |"
	for w in "${ways[@]}"; do
		s=$(min ${best[$w]})
		# shellcheck disable=SC2086
		printf '| %s | %s | %s | %s | %s |\n' "$w" "$s" "$(ratio "$s" "$repl_s")" "$(median ${paired[$w]})" "${written[$w]}"
	done
	echo
	echo "Targets:"
	echo
	held() { if [[ $1 == 1 ]]; then echo "held"; else echo "missed"; fi; }
	echo "- the row-level repair rewrites exactly the 4 changed rows (0 inserted, 4 updated, 0 deleted): $(held "$([[ ${written[rows]} == "0 inserted, 4 updated, 0 deleted" ]] && echo 1)") (${written[rows]})"
	echo "- the row-level repair takes under 0.1 x the time of --replace-interval (paired): $(held "$(awk -v r="$rows_paired" 'BEGIN { print (r < 0.1) ? 1 : 0 }')") ($rows_paired; best against best $(ratio "$rows_s" "$repl_s"))"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
echo
echo "bench: written to ${out#"$repo"/}"
