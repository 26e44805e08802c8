# shellcheck shell=bash
# bench-lib.sh - what the benchmarks share: the arguments, a private
# cluster stopped on exit, the sample table, and the timing helpers.
# Sourced by bench.sh, bench-drill.sh and bench-pushdown.sh after they set
# `set -euo pipefail`; it sets RECKON, N, REPEAT, here, repo and base.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)

if [[ $# -ne 1 ]]; then
	echo "usage: [N=rows] tests/harness/$(basename "$0") RECKON_BIN" >&2
	exit 2
fi
RECKON=$1
[[ $RECKON == /* ]] || RECKON=$PWD/$RECKON
[[ -x $RECKON ]] || { echo "bench: $RECKON is not an executable (run make)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: GNU time (/usr/bin/time) is missing: run tests/harness/deps.sh" >&2; exit 1; }
N=${N:-1000000}
[[ $N =~ ^[0-9]+$ && $N -ge 100 ]] || { echo "bench: N must be a whole number >= 100" >&2; exit 2; }
# Each timing is the best of REPEAT runs (env REPEAT, default 5): the
# machines are shared, and a run's noise only ever adds time, so the minimum
# of more runs is the steadier estimate of both reckon and its floor.
REPEAT=${REPEAT:-5}
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || { echo "bench: REPEAT must be a whole number >= 1" >&2; exit 2; }

# bench_provenance [VAR...] - the line a report opens with after its title:
# the command that wrote it (the script, with the named settings as they
# were) and the commit it measured, "+ uncommitted changes" when the tree
# differed from it.
bench_provenance() {
	local cmd="" v
	for v in "$@"; do
		[[ -z ${!v:-} ]] || cmd+="$v=${!v} "
	done
	echo "- produced by: \`${cmd}bash tests/harness/$(basename "$0") RECKON_BIN\` at commit $(rk_commit)"
}

# bench_environment [NOTE] - the report's lines on when and where it ran:
# the date, reckon's and PostgreSQL's versions and the machine, NOTE (how
# shared the machine was, say) appended to the machine's line.
bench_environment() {
	echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "- reckon: $("$RECKON" --version 2>/dev/null | head -n 1)"
	echo "- PostgreSQL: $("$RK_PGBIN/postgres" --version)"
	echo "- machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)${1:+; $1}"
}

# rk_commit - the commit of the tree (short hash, and whether it was dirty)
rk_commit() {
	local h
	if h=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null); then
		git -C "$repo" diff --quiet HEAD -- src sql tests 2>/dev/null || h+=" + uncommitted changes"
		echo "$h"
	else
		echo "unknown (not a git checkout)"
	fi
}

base=$(mktemp -d /tmp/reckon-bench.XXXXXX)
chmod 0755 "$base"
bench_cleanup() {
	bash "$here/pgcluster.sh" stop "$base/pg" || true
	rm -rf "$base"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

bash "$here/pgcluster.sh" start "$base/pg" >/dev/null
# shellcheck source=/dev/null
. "$base/pg/env"

psql_b() {
	PGOPTIONS="-c client_min_messages=warning ${PGOPTIONS:-}" "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"
}

# bench_table DB ROWS - (re)creates database DB holding bench.t: ROWS rows
# spread evenly over 2026-03-02 (bigint id, timestamptz ts, numeric(12,2)
# amount, text note), with a primary key on id and an index on ts, as an
# incremental load's table has (NOINDEX=1: without the primary key).
bench_table() {
	psql_b -d postgres -c "drop database if exists $1 with (force)" -c "create database $1"
	psql_b -d "$1" <<-SQL
		create schema bench;
		create table bench.t (id bigint, ts timestamptz, amount numeric(12,2), note text);
		insert into bench.t
		select i,
		       timestamptz '2026-03-02 00:00:00+00' + (i - 1) * (interval '86400 seconds' / $2),
		       (i * 7919 % 1000000) / 100.0,
		       'note ' || md5(i::text)
		from generate_series(1::bigint, $2) i;
		create index on bench.t (ts);
		$([[ ${NOINDEX:-0} == 1 ]] || echo "alter table bench.t add primary key (id);")
		vacuum (freeze, analyze) bench.t;
	SQL
}

# bench_ext DB - the reckon extension in DB: this build's (RK_EXT_DIR, build/ext),
# created from the built module by its path, or else the installed one
bench_ext() {
	local dir=${RK_EXT_DIR:-$repo/build/ext}
	# this build's module, by its path, when it is built: the server's
	# directories may hold another tree's (several work on one machine)
	if [[ -r $dir/reckon-load.sql ]]; then
		psql_b -d "$1" <"$dir/reckon-load.sql" >/dev/null
		return 0
	fi
	psql_b -d "$1" -c "create extension reckon" >/dev/null 2>&1 ||
		{ echo "bench: the reckon extension is neither built (make ext) nor installed" >&2; exit 1; }
}

# bench_drill_dbs PREFIX ROWS - PREFIX_src (bench.t of ROWS rows, with the
# reckon extension), PREFIX_clean (a copy) and PREFIX_dmg (a copy with 4
# rows damaged in 4 of the 24 hourly windows: the middle rows of windows 3,
# 9 and 14 lost, that of window 19 with another amount)
bench_drill_dbs() {
	local p=$1 n=$2 db
	bench_table "${p}_src" "$n"
	bench_ext "${p}_src"
	for db in clean dmg; do
		psql_b -d postgres -c "drop database if exists ${p}_$db with (force)" \
			-c "create database ${p}_$db template ${p}_src"
	done
	psql_b -d "${p}_dmg" <<-SQL
		delete from bench.t where id in ($((n / 24 * 3 + n / 48)), $((n / 24 * 9 + n / 48)), $((n / 24 * 14 + n / 48)));
		update bench.t set amount = amount + 1 where id = $((n / 24 * 19 + n / 48));
		vacuum (freeze, analyze) bench.t;
	SQL
}

# bench_noindex_dbs PREFIX - PREFIX_src and PREFIX_dmg again as
# PREFIX_srcnx and PREFIX_dmgnx, without the primary key on id: a table
# whose key no index serves
bench_noindex_dbs() {
	local p=$1 db
	for db in src dmg; do
		psql_b -d postgres -c "drop database if exists ${p}_${db}nx with (force)" \
			-c "create database ${p}_${db}nx template ${p}_$db"
		psql_b -d "${p}_${db}nx" -c "alter table bench.t drop constraint t_pkey"
	done
}

# The day's rows of bench.t and the floors' statements over them
BENCH_RANGE="ts >= '2026-03-02 00:00:00+00' and ts < '2026-03-03 00:00:00+00'"
# what streaming must move: the compared columns
BENCH_COPY_SQL="select id, ts, amount, note from bench.t where $BENCH_RANGE"
# reckon's grouped pushdown statement (extension 1.1) without the digest
# (src/io/pgreader.c)
BENCH_SCAN_SQL="select (reckon_instant(ts) - 1772409600000000) / 3600000000, count(*), sum(amount)
          from bench.t where $BENCH_RANGE group by 1"
# the scan and the sum alone, one group: what no per-window statement can beat
BENCH_RANGE_SQL="select count(*), sum(amount) from bench.t where $BENCH_RANGE"

# bench_floor KIND SRC_DB TGT_DB - seconds for both sides' KIND run
# concurrently by psql: copy (\copy of BENCH_COPY_SQL to /dev/null, COPY
# text), copy-binary (the same with format binary), scan (BENCH_SCAN_SQL,
# needs the extension) or range (BENCH_RANGE_SQL), in the database
bench_floor() {
	local kind=$1 t0 t1 db
	local -a pids=()
	shift
	t0=$(now)
	for db in "$@"; do
		case $kind in
		copy) psql_b -d "$db" -c "\\copy ($BENCH_COPY_SQL) to '/dev/null'" & ;;
		copy-binary) psql_b -d "$db" -c "\\copy ($BENCH_COPY_SQL) to '/dev/null' with (format binary)" & ;;
		scan) PGOPTIONS="-c enable_sort=off -c TimeZone=UTC" psql_b -d "$db" -c "$BENCH_SCAN_SQL" >/dev/null & ;;
		range) psql_b -d "$db" -c "$BENCH_RANGE_SQL" >/dev/null & ;;
		*) echo "bench_floor: unknown floor $kind" >&2; exit 2 ;;
		esac
		pids+=($!)
	done
	for db in "${pids[@]}"; do
		wait "$db"
	done
	t1=$(now)
	elapsed "$t0" "$t1"
}

# bench_load - the machine's load averages (1, 5, 15 minutes), for a report
bench_load() { cut -d ' ' -f 1-3 /proc/loadavg; }

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
min() { printf '%s\n' "$@" | sort -g | head -n 1; }
# the middle value (the mean of the two middle ones for an even count)
median() {
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { printf "%.2f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# bench_damage DB ROWS - the "differ" target: 10 rows damaged in 6 windows
# (4 missing, 4 changed amounts, 1 extra, 1 changed note).  The extra row is
# a copy of a row under a new key: the primary key on id forbids a duplicate.
bench_damage() {
	psql_b -d "$1" <<-SQL
		delete from bench.t where id in (select (g * ($2 / 5))::bigint from generate_series(1, 4) g);
		update bench.t set amount = amount + 1 where id in (select (g * ($2 / 5) + 1)::bigint from generate_series(1, 4) g);
		insert into bench.t select $2 + 1, ts, amount, note from bench.t where id = $2 / 2;
		update bench.t set note = note || '!' where id = $2 / 3;
		vacuum (freeze, analyze) bench.t;
	SQL
}

# bench_reckon SRC_DB TGT_DB WANT_EXIT [OPTION...] - times one reckon check
# of bench.t over the day's 24 hourly windows, hashing the whole row (the
# default: id, ts, amount, note); prints "seconds peak_rss_kib"
# and fails the benchmark when reckon does not exit with WANT_EXIT.
bench_reckon() {
	local src=$1 tgt=$2 want=$3 t0 t1 rc=0
	shift 3
	t0=$(now)
	/usr/bin/time -f '%M' -o "$base/time.out" "$RECKON" check \
		--source "host=$PGHOST port=$PGPORT user=$PGUSER dbname=$src" \
		--target "host=$PGHOST port=$PGPORT user=$PGUSER dbname=$tgt" "$@" \
		--table bench.t --key id --time ts --sum amount \
		--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h \
		--now 2026-03-04T00:00:00Z --report "$base/report" >"$base/reckon.out" 2>"$base/reckon.err" || rc=$?
	t1=$(now)
	if [[ $rc -ne $want ]]; then
		echo "bench: reckon check $* exited with $rc, expected $want" >&2
		tail -n 20 "$base/reckon.err" >&2
		exit 1
	fi
	echo "$(elapsed "$t0" "$t1") $(tail -n 1 "$base/time.out")"
}
