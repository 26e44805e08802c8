# lib.sh - helpers for the integration tests (sourced, bash).
# shellcheck shell=bash disable=SC2034,SC2054
#
# A test file tests/integration/test_<area>.sh defines functions named
# test_<case> and optionally setup_file (run once, before the cases, in the
# file's own process).  run.sh runs each case in a subshell with `set -e`,
# in a fresh scratch directory $T that is also the working directory, and
# counts it PASS when it returns 0 having made at least one assertion, SKIP
# when it called `skip REASON` (the reason is printed and tallied apart).
#
# Environment (exported by run.sh): RECKON (the binary), PGHOST PGPORT PGUSER
# PGDATABASE (the private cluster; PGHOST is its socket directory), RK_PGBIN
# (psql), RK_SCRATCH (this file's scratch directory), RK_LIB, RK_REPO.
#
# Assertions stop the case at the first failure and say where (file:line).
# assert_exit leaves the command's output in the files $OUT and $ERR.

RK_NASSERT=0
OUT=
ERR=
T=

# --- reporting -------------------------------------------------------------

# file:line of the innermost caller outside this library.
_rk_where() {
	local i
	for ((i = 1; i < ${#BASH_SOURCE[@]}; i++)); do
		if [[ ${BASH_SOURCE[i]} != "${BASH_SOURCE[0]}" ]]; then
			echo "${BASH_SOURCE[i]##*/}:${BASH_LINENO[i - 1]}"
			return
		fi
	done
	echo "?"
}

# Shows the head of a file or string, indented, for a failure message.
_rk_show() {
	local label=$1 what=$2
	if [[ -f $what ]]; then
		echo "  --- $label ($what):"
		head -c 4000 "$what" | sed 's/^/  | /'
	else
		echo "  --- $label:"
		printf '%s\n' "$what" | head -c 4000 | sed 's/^/  | /'
	fi
}

fail() {
	exec >&2; echo "ASSERTION FAILED at $(_rk_where): $*"
	exit 1
}

_rk_ok() { RK_NASSERT=$((RK_NASSERT + 1)); }

# skip REASON - ends the case as skipped: what it needs is missing here (say
# what, and how to get it).  Counted apart from passed and failed, and listed
# with its reason at the end of the run.  Call it from the case's own shell,
# not from inside $(...) or a pipeline, which it would only leave.
skip() {
	[[ $# -gt 0 && -n $1 ]] || fail "skip needs a reason"
	printf '%s\n' "$*" >"$T/.rk-skip"
	echo "SKIPPED at $(_rk_where): $*"
	exit 77
}

# --- assertions ------------------------------------------------------------

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	if [[ $1 != "$2" ]]; then
		exec >&2; echo "ASSERTION FAILED at $(_rk_where): ${3:-values differ}"
		_rk_show expected "$1"
		_rk_show actual "$2"
		exit 1
	fi
	_rk_ok
}

# assert_ne UNEXPECTED ACTUAL [WHAT]
assert_ne() {
	[[ $1 != "$2" ]] || fail "${3:-value should differ from} '$1'"
	_rk_ok
}

# assert_match STRING ERE [WHAT]
assert_match() {
	[[ $1 =~ $2 ]] || fail "${3:-value} '$1' does not match /$2/"
	_rk_ok
}

# assert_exit CODE COMMAND [ARG...] - runs COMMAND with stdout in $OUT and
# stderr in $ERR and checks its exit status.  CODE may be a list ("0 2")
# for a command that may end in any of several documented ways.
assert_exit() {
	local want=$1 rc=0
	shift
	OUT=$T/out
	ERR=$T/err
	"$@" >"$OUT" 2>"$ERR" || rc=$?
	# A sanitizer report fails the case whatever the exit status was.
	if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: ' "$ERR"; then
		exec >&2
		echo "ASSERTION FAILED at $(_rk_where): sanitizer report (exit status $rc)"
		echo "  --- command: $*"
		_rk_show stderr "$ERR"
		exit 1
	fi
	if [[ " $want " != *" $rc "* ]]; then
		exec >&2; echo "ASSERTION FAILED at $(_rk_where): exit status $rc, expected ${want// / or }"
		echo "  --- command: $*"
		_rk_show stdout "$OUT"
		_rk_show stderr "$ERR"
		exit 1
	fi
	_rk_ok
}

# assert_contains FILE|STRING NEEDLE - the file (when FILE exists) or the
# string contains NEEDLE, as a fixed string.
assert_contains() {
	local hay=$1 needle=$2
	if [[ -f $hay ]]; then
		grep -qF -- "$needle" "$hay" && { _rk_ok; return; }
	else
		[[ $hay == *"$needle"* ]] && { _rk_ok; return; }
	fi
	exec >&2; echo "ASSERTION FAILED at $(_rk_where): '$needle' not found"
	_rk_show "searched" "$hay"
	exit 1
}

# assert_not_contains FILE|STRING NEEDLE
assert_not_contains() {
	local hay=$1 needle=$2
	if [[ -f $hay ]]; then
		grep -qF -- "$needle" "$hay" || { _rk_ok; return; }
	else
		[[ $hay != *"$needle"* ]] && { _rk_ok; return; }
	fi
	exec >&2; echo "ASSERTION FAILED at $(_rk_where): '$needle' should not be there"
	_rk_show "searched" "$hay"
	exit 1
}

# assert_contains_i FILE NEEDLE - case-insensitive, file only
assert_contains_i() {
	grep -qiF -- "$2" "$1" || { exec >&2; echo "ASSERTION FAILED at $(_rk_where): '$2' not found (any case)"; _rk_show searched "$1"; exit 1; }
	_rk_ok
}

# assert_file_eq ACTUAL EXPECTED - byte-identical files; EXPECTED '-' reads
# the expected content from stdin (a heredoc).
assert_file_eq() {
	local actual=$1 expected=$2
	if [[ $expected == - ]]; then
		expected=$T/expected.$RK_NASSERT
		cat >"$expected"
	fi
	[[ -f $actual ]] || fail "no such file: $actual"
	if ! cmp -s "$actual" "$expected"; then
		exec >&2; echo "ASSERTION FAILED at $(_rk_where): $actual differs from $expected"
		diff -u "$expected" "$actual" | head -n 60 | sed 's/^/  | /'
		exit 1
	fi
	_rk_ok
}

# assert_file PATH / assert_no_file PATH
assert_file() {
	[[ -f $1 ]] || fail "expected a file at $1"
	_rk_ok
}
assert_no_file() {
	[[ ! -e $1 ]] || fail "expected nothing at $1"
	_rk_ok
}

# assert_dir_only DIR NAME... - DIR holds exactly these entries (none when
# no NAME is given), dot files included: no temporary leftovers.
assert_dir_only() {
	local dir=$1 got want
	shift
	got=$(cd "$dir" && find . -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sed '/^$/d' | LC_ALL=C sort | tr '\n' ' ')
	assert_eq "$want" "$got" "entries of $dir"
}

# --- PostgreSQL ------------------------------------------------------------

# sql DB [STATEMENTS] - runs SQL (the argument, else stdin) in DB as the
# superuser; prints rows unaligned, fields separated by '|'.  A failing
# statement fails the case.
sql() {
	local db=$1
	shift
	if [[ $# -gt 0 ]]; then
		PGOPTIONS="-c client_min_messages=warning ${PGOPTIONS:-}" PGCLIENTENCODING=UTF8 "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -At -d "$db" -c "$1" ||
			fail "sql in database $db failed: $1"
	else
		PGOPTIONS="-c client_min_messages=warning ${PGOPTIONS:-}" PGCLIENTENCODING=UTF8 "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -At -d "$db" ||
			fail "sql script in database $db failed"
	fi
}

# createdb NAME - a new, empty database (dropped first if it exists)
createdb() {
	sql postgres "drop database if exists \"$1\" with (force)" >/dev/null
	sql postgres "create database \"$1\"" >/dev/null
}

# conn DB - the conninfo reckon gets for DB (unix socket, superuser)
conn() {
	echo "host=$PGHOST port=$PGPORT user=$PGUSER dbname=$1"
}

# ext_create DB - the reckon extension in DB: installed (make ext-install:
# CREATE EXTENSION reckon) or else made from the built module by its path
# (RK_EXT_DIR, default build/ext)
ext_create() {
	local dir=${RK_EXT_DIR:-$RK_REPO/build/ext}
	if PGOPTIONS="-c client_min_messages=warning" "$RK_PGBIN/psql" -X -q -d "$1" \
		-c "create extension if not exists reckon" >/dev/null 2>&1; then
		return 0
	fi
	[[ -r $dir/reckon.so && -r $dir/reckon-load.sql ]] ||
		fail "the reckon extension is neither installed (make ext-install) nor built in $dir (make ext)"
	sql "$1" <"$dir/reckon-load.sql" >/dev/null
}

# export_csv DB QUERY FILE - psql's \copy of a query, CSV with a header
export_csv() {
	PGCLIENTENCODING=UTF8 "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$1" \
		-c "\\copy ($2) to '$3' with (format csv, header)" ||
		fail "export of ($2) from $1 failed"
}

# import_csv DB TABLE FILE - psql's \copy of a CSV file with a header into
# an existing table (parses reckon's CSV output the way PostgreSQL does)
import_csv() {
	PGCLIENTENCODING=UTF8 "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$1" \
		-c "\\copy $2 from '$3' with (format csv, header)" ||
		fail "$3 is not CSV that PostgreSQL can read into $2"
}

# cts_start - a second private cluster that keeps commit times
# (track_commit_timestamp = on, which the suite's own cluster has off, as a
# stock server does), in $RK_SCRATCH/cts: created the first time, started for
# the calling case or setup_file and stopped when it ends.  Sets CTS_HOST and
# CTS_PORT; csql, cconn and ccreatedb work on it as sql, conn and createdb do.
cts_start() {
	local dir=$RK_SCRATCH/cts
	RK_PG_COMMIT_TS=on bash "$RK_REPO/tests/harness/pgcluster.sh" start "$dir" >/dev/null ||
		fail "cannot start the cluster with track_commit_timestamp = on"
	# shellcheck disable=SC2064
	trap "bash '$RK_REPO/tests/harness/pgcluster.sh' stop '$dir'" EXIT
	CTS_HOST=$(cd "$dir" && pwd -P)
	CTS_PORT=$(sed -n "s/^export PGPORT='\\(.*\\)'\$/\\1/p" "$dir/env")
	[[ -n $CTS_PORT ]] || fail "no port in $dir/env"
}
csql() { PGHOST=$CTS_HOST PGPORT=$CTS_PORT sql "$@"; }
cconn() { echo "host=$CTS_HOST port=$CTS_PORT user=$PGUSER dbname=$1"; }
ccreatedb() { PGHOST=$CTS_HOST PGPORT=$CTS_PORT createdb "$1"; }

# A TCP port on 127.0.0.1 where nothing listens.
closed_port() {
	local p
	for p in $(seq 1031 1200); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	fail "no closed port found"
}

# poll_until SQL DB [WHAT] - waits until SQL (one boolean) is true in DB.
# The bound only keeps a broken case from hanging the suite; no assertion
# depends on timing.
poll_until() {
	local i
	for i in $(seq 1 600); do
		[[ $(sql "$2" "$1") == t ]] && { _rk_ok; return 0; }
		sleep 0.1
	done
	fail "${3:-condition} never became true: $1"
}

# holder_start DB - a psql session (application rk_holder) fed through a
# FIFO (descriptor 7), so a case can hold locks in it (holder_send SQL) and
# release them when it chooses (holder_stop).
holder_start() {
	rm -f "$T/holder.fifo"
	mkfifo "$T/holder.fifo"
	PGAPPNAME=rk_holder "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -At -d "$1" \
		<"$T/holder.fifo" >"$T/holder.out" 2>&1 &
	HOLDER_PID=$!
	exec 7>"$T/holder.fifo"
}

holder_send() {
	printf '%s\n' "$1" >&7
}

holder_stop() {
	exec 7>&-
	wait "$HOLDER_PID" || true
}

# --- reckon and its files --------------------------------------------------

# pgbouncer_start DB - a pgbouncer in pool_mode=transaction in front of the
# private cluster's DB, on a free loopback port (PGB_PORT), resetting every
# server session after each transaction (DISCARD ALL): a temporary table or
# a setting that outlived its transaction would be gone in the next one.
pgbouncer_start() {
	local bin dir=$T/pgb
	bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
	[[ -x $bin ]] || fail "pgbouncer is not installed (tests/harness/deps.sh installs it)"
	mkdir -p "$dir"
	PGB_PORT=$(closed_port)
	cat >"$dir/pgbouncer.ini" <<-INI
		[databases]
		$1 = host=$PGHOST port=$PGPORT dbname=$1 user=$PGUSER
		[pgbouncer]
		listen_addr = 127.0.0.1
		listen_port = $PGB_PORT
		unix_socket_dir =
		auth_type = any
		pool_mode = transaction
		default_pool_size = 4
		server_reset_query = DISCARD ALL
		server_reset_query_always = 1
		ignore_startup_parameters = extra_float_digits, options
		logfile = $dir/pgbouncer.log
		pidfile = $dir/pgbouncer.pid
	INI
	chmod -R a+rwX "$dir"
	if [[ $(id -u) == 0 ]]; then
		chmod a+x "$T" "$(dirname "$T")"
		runuser -u postgres -- "$bin" -d -q "$dir/pgbouncer.ini" || fail "pgbouncer did not start"
	else
		"$bin" -d -q "$dir/pgbouncer.ini" || fail "pgbouncer did not start"
	fi
	local i
	for i in $(seq 1 100); do
		"$RK_PGBIN/psql" -X -At -h 127.0.0.1 -p "$PGB_PORT" -d "$1" -c 'select 1' >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	cat "$dir/pgbouncer.log" >&2
	fail "pgbouncer on port $PGB_PORT never answered"
}

pgbouncer_stop() {
	local pid
	pid=$(cat "$T/pgb/pgbouncer.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null || true
	local i
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
}

rk() { "$RECKON" "$@"; }

# statuses WINDOWS_CSV - the status column, space-separated, in file order
statuses() {
	awk -F, 'NR > 1 { printf "%s%s", sep, $3; sep = " " } END { print "" }' "$1"
}

# wfield WINDOWS_CSV WINDOW_START COLUMN - one field of one window's line
wfield() {
	awk -F, -v start="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$1 == start { if (c) print $c; found = 1 }
		END { if (!c || !found) exit 1 }' "$1" || fail "no column $3 for window $2 in $1"
}

# jget FILE JQ_FILTER - one value from a JSON file (jq -r)
jget() {
	jq -er "$2" "$1" || fail "no $2 in $1"
}

# The case runner (called by run.sh) ----------------------------------------

# rk_main TESTFILE RESULTS - runs setup_file and every test_* function of
# TESTFILE (already sourced), in definition order, appending "PASS name",
# "FAIL name" or "SKIP name: reason" lines to RESULTS.
rk_main() {
	local file=$1 results=$2 base fn rc log
	local -a cases
	base=$(basename "$file" .sh)
	mapfile -t cases < <(sed -nE 's/^(test_[A-Za-z0-9_]+)[[:space:]]*\(\).*/\1/p' "$file" |
		grep -e "${RK_CASE:-}")
	if [[ ${#cases[@]} -eq 0 ]]; then
		echo "FAIL $base (no test_ functions)"
		echo "FAIL $base" >>"$results"
		return
	fi
	if declare -F setup_file >/dev/null; then
		T=$RK_SCRATCH/setup_file
		mkdir -p "$T"
		log=$T/case.log
		(set -eE; trap 'echo "command failed (status $?) at $(_rk_where): $BASH_COMMAND"' ERR; cd "$T"; setup_file) >"$log" 2>&1
		rc=$?
		if [[ $rc -ne 0 ]]; then
			echo "FAIL $base:setup_file (the file's cases were not run)"
			sed 's/^/    /' "$log"
			echo "FAIL $base:setup_file" >>"$results"
			return
		fi
	fi
	for fn in "${cases[@]}"; do
		T=$RK_SCRATCH/$fn
		mkdir -p "$T"
		log=$T/case.log
		(
			set -eE
			trap 'echo "command failed (status $?) at $(_rk_where): $BASH_COMMAND"' ERR
			cd "$T"
			"$fn"
			[[ $RK_NASSERT -gt 0 ]] || fail "the case made no assertion"
		) >"$log" 2>&1
		rc=$?
		if [[ $rc -eq 77 && -f $T/.rk-skip ]]; then
			echo "SKIP $base:$fn: $(head -n 1 "$T/.rk-skip")"
			echo "SKIP $base:$fn: $(head -n 1 "$T/.rk-skip")" >>"$results"
			[[ ${RK_VERBOSE:-0} == 0 ]] || sed 's/^/    /' "$log"
		elif [[ $rc -eq 0 ]]; then
			echo "PASS $base:$fn"
			echo "PASS $base:$fn" >>"$results"
			[[ ${RK_VERBOSE:-0} == 0 ]] || sed 's/^/    /' "$log"
		else
			echo "FAIL $base:$fn"
			sed 's/^/    /' "$log" | head -n 80
			echo "FAIL $base:$fn" >>"$results"
		fi
	done
}

# --- the standard sample ---------------------------------------------------

# mk_orders DB [TABLE] - (re)creates TABLE (default mart.orders): 34 rows
# g = 0..33, key (order_id, line_no) = (g/2 + 1, g%2 + 1), created_at =
# 2026-03-02 00:00Z + 7 min * g, amount = 3.25 g + 0.5, qty, note.
# Hourly windows from 00:00 hold 9, 9, 8 and 8 rows.
mk_orders() {
	local db=$1 table=${2:-mart.orders}
	sql "$db" >/dev/null <<-SQL
		create schema if not exists mart;
		drop table if exists $table;
		create table $table (
			order_id   bigint not null,
			line_no    integer not null,
			created_at timestamptz,
			amount     numeric(12,2),
			qty        integer,
			note       text);
		insert into $table
		select g / 2 + 1, g % 2 + 1,
		       timestamptz '2026-03-02 00:00:00+00' + g * interval '7 minutes',
		       g * 3.25 + 0.5, g % 5 + 1, 'note ' || g
		from generate_series(0, 33) g;
	SQL
}

# The check options that go with mk_orders: four closed hourly windows.
ORDERS_CHECK=(--key order_id,line_no --time created_at --sum amount
	--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h
	--now 2026-03-03T00:00:00Z)
ORDERS_OPTS=(--table mart.orders "${ORDERS_CHECK[@]}")

# The four windows of ORDERS_OPTS, as they start and end in reckon's files.
W0=2026-03-02T00:00:00Z,2026-03-02T01:00:00Z
W1=2026-03-02T01:00:00Z,2026-03-02T02:00:00Z
W2=2026-03-02T02:00:00Z,2026-03-02T03:00:00Z
W3=2026-03-02T03:00:00Z,2026-03-02T04:00:00Z

WINDOWS_HEADER_AMOUNT=window_start,window_end,status,source_rows,target_rows,source_sum_amount,target_sum_amount,source_hash,target_hash
RERUN_HEADER=interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed

# orders_expected DB [TABLE] - the first seven fields of the windows.csv
# lines of ORDERS_OPTS when both sides hold DB's TABLE, computed by PostgreSQL
orders_expected() {
	sql "$1" "
		select concat_ws(',',
			to_char(w at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
			to_char((w + interval '1 hour') at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
			'match', n, n, s, s)
		from (select date_bin('1 hour', created_at, timestamptz '2026-03-02 00:00:00+00') w,
		             count(*) n, trim_scale(sum(amount)) s
		      from ${2:-mart.orders}
		      where created_at >= '2026-03-02 00:00:00+00' and created_at < '2026-03-02 04:00:00+00'
		      group by 1) x
		order by w"
}
