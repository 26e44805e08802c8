#!/usr/bin/env bash
# pgcluster.sh - a private, throw-away PostgreSQL cluster for tests, the demo
# and the benchmarks.
#
#   pgcluster.sh start DIR    initdb into DIR/data (first time), start the
#                             server on a free 127.0.0.1 port with its unix
#                             socket in DIR, write DIR/env and print it
#   pgcluster.sh stop DIR     stop the server (a no-op when it is not running)
#   pgcluster.sh status DIR   exit 0 when the server is running
#
# DIR/env holds "export PGHOST=... PGPORT=... PGUSER=reckon PGDATABASE=postgres"
# plus RK_PGBIN (the server's bin directory: psql, pg_isready, ...) and
# RK_PGDIR.  Callers source it and stop the cluster from an EXIT trap:
#
#   bash tests/harness/pgcluster.sh start "$dir" >/dev/null
#   trap 'bash tests/harness/pgcluster.sh stop "$dir"' EXIT
#   . "$dir/env"
#
# Authentication: unix socket: trust for every role; TCP on 127.0.0.1:
# scram-sha-256 for the role 'pwuser' (password 'sekret-pw', created after
# the first start, so tests can probe wrong passwords and password redaction)
# and trust for the others.  The superuser is 'reckon'.
#
# RK_PG_COMMIT_TS=on starts the server with track_commit_timestamp = on: the
# commit time of every transaction is kept (reckon's late-commit diagnosis
# and reckon lateness read it).  Off by default, as on a stock server.
#
# As root, the server runs as the 'postgres' user (runuser) and DIR is chowned
# to it: DIR must be reachable by that user, so put it under /tmp, not /root.
# The server binaries are always the Debian ones (pg_config --bindir or the
# highest /usr/lib/postgresql/N/bin), never whatever initdb is first on PATH.
set -euo pipefail

readonly PW_ROLE=pwuser
readonly PW_PASSWORD=sekret-pw
readonly SUPERUSER=reckon

die() {
	echo "pgcluster: $*" >&2
	exit 1
}

usage() {
	echo "usage: pgcluster.sh start|stop|status DIR" >&2
	exit 2
}

# The directory holding initdb, pg_ctl and postgres of the Debian server.
find_bindir() {
	local d
	if command -v pg_config >/dev/null 2>&1; then
		d=$(pg_config --bindir 2>/dev/null || true)
		if [[ -n $d && -x $d/initdb && -x $d/pg_ctl && -x $d/postgres ]]; then
			echo "$d"
			return 0
		fi
	fi
	d=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
	if [[ -n $d && -x $d/initdb && -x $d/pg_ctl && -x $d/postgres ]]; then
		echo "$d"
		return 0
	fi
	die "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (run tests/harness/deps.sh)"
}

# Runs a command as the user that owns the cluster, from a directory that
# user can enter (the caller's may be /root).
as_owner() {
	if [[ $EUID -eq 0 ]]; then
		(cd / && runuser -u postgres -- "$@")
	else
		(cd / && "$@")
	fi
}

log_tail() {
	local f=$DIR/log/postgres.log
	if [[ -s $f ]]; then
		echo "pgcluster: last lines of $f:" >&2
		tail -n 25 "$f" | sed 's/^/  | /' >&2
	fi
}

# Succeeds when something accepts TCP connections on 127.0.0.1:$1.
port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

running_port() {
	# postmaster.pid line 4 is the port.
	sed -n 4p "$DIR/data/postmaster.pid" 2>/dev/null
}

is_running() {
	[[ -f $DIR/data/PG_VERSION ]] && as_owner "$BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1
}

prepare_dir() {
	mkdir -p "$DIR/log"
	DIR=$(cd "$DIR" && pwd -P)
	# A unix socket path is at most 107 bytes: DIR/.s.PGSQL.NNNNN
	if (( ${#DIR} + 16 > 107 )); then
		die "$DIR is too long for a unix socket directory (max 91 bytes); use a shorter path such as one from mktemp -d"
	fi
	if [[ $EUID -eq 0 ]]; then
		id -u postgres >/dev/null 2>&1 || die "running as root, but there is no 'postgres' user to run the server (run tests/harness/deps.sh)"
		chown -R postgres: "$DIR"
		if ! runuser -u postgres -- test -w "$DIR" -a -x "$DIR"; then
			die "$DIR is not reachable by the postgres user (a parent directory is not traversable); use a directory under /tmp"
		fi
	fi
	chmod 0755 "$DIR"
}

init_cluster() {
	local out
	if ! out=$(as_owner "$BIN/initdb" -D "$DIR/data" -U "$SUPERUSER" -E UTF8 --locale=C \
		--auth-local=trust --auth-host=scram-sha-256 --no-instructions 2>&1); then
		echo "$out" | tail -n 25 | sed 's/^/  | /' >&2
		die "initdb into $DIR/data failed"
	fi
	as_owner tee -a "$DIR/data/postgresql.conf" >/dev/null <<-EOF

		# pgcluster.sh: a private test cluster
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$DIR'
		max_connections = 50
		shared_buffers = 32MB
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		max_wal_size = 1GB
		timezone = 'UTC'
		log_timezone = 'UTC'
		lc_messages = 'C'
		log_line_prefix = '%m [%p] %q%u@%d '
	EOF
	as_owner tee "$DIR/data/pg_hba.conf" >/dev/null <<-EOF
		# TYPE  DATABASE  USER      ADDRESS        METHOD
		local   all       all                      trust
		host    all       $PW_ROLE    127.0.0.1/32   scram-sha-256
		host    all       all       127.0.0.1/32   trust
	EOF
}

# Starts the server on a free port; tries the next candidate when the port
# turns out to be taken between the probe and the bind.
start_server() {
	local attempt port before new
	port=$(( 15000 + (RANDOM * 32768 + RANDOM + $$) % 17000 ))
	for attempt in $(seq 1 30); do
		port=$(( port + 1 ))
		(( port < 32000 )) || port=15000
		port_in_use "$port" && continue
		before=$(stat -c %s "$DIR/log/postgres.log" 2>/dev/null || echo 0)
		if as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log/postgres.log" -w -t 300 \
			-o "-p $port -c track_commit_timestamp=${RK_PG_COMMIT_TS:-off}" start >/dev/null 2>&1; then
			PORT=$port
			return 0
		fi
		new=$(tail -c +"$((before + 1))" "$DIR/log/postgres.log" 2>/dev/null || true)
		if grep -qE 'could not bind|Address already in use|could not create lock file' <<<"$new"; then
			continue
		fi
		log_tail
		die "the server in $DIR/data did not start (attempt $attempt, port $port)"
	done
	log_tail
	die "no free TCP port found for the server in $DIR/data"
}

wait_ready() {
	local _
	for _ in $(seq 1 300); do
		if "$BIN/pg_isready" -q -h "$DIR" -p "$PORT" -d postgres -U "$SUPERUSER"; then
			return 0
		fi
		sleep 0.1
	done
	log_tail
	die "the server in $DIR/data started but does not accept connections (pg_isready)"
}

psql_admin() {
	"$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" -U "$SUPERUSER" -d postgres "$@"
}

create_roles() {
	local have
	have=$(psql_admin -At -c "select count(*) from pg_roles where rolname = '$PW_ROLE'") ||
		{ log_tail; die "cannot query the server in $DIR/data"; }
	if [[ $have == 0 ]]; then
		# password_encryption is scram-sha-256 by default since PostgreSQL 14.
		psql_admin -c "create role $PW_ROLE login password '$PW_PASSWORD'" \
			-c "grant pg_read_all_data to $PW_ROLE" >/dev/null ||
			{ log_tail; die "cannot create role $PW_ROLE"; }
	fi
}

write_env() {
	local tmp=$DIR/env.tmp
	cat >"$tmp" <<-EOF
		export PGHOST='$DIR'
		export PGPORT='$PORT'
		export PGUSER='$SUPERUSER'
		export PGDATABASE='postgres'
		export RK_PGBIN='$BIN'
		export RK_PGDIR='$DIR'
	EOF
	mv "$tmp" "$DIR/env"
	cat "$DIR/env"
}

cmd_start() {
	prepare_dir
	[[ -f $DIR/data/PG_VERSION ]] || init_cluster
	if is_running; then
		PORT=$(running_port)
		[[ -n $PORT ]] || die "cannot read the port of the running server from $DIR/data/postmaster.pid"
	else
		start_server
	fi
	wait_ready
	create_roles
	write_env
}

cmd_stop() {
	[[ -d $DIR ]] || return 0
	DIR=$(cd "$DIR" && pwd -P)
	is_running || return 0
	if ! as_owner "$BIN/pg_ctl" -D "$DIR/data" -m fast -w -t 120 stop >/dev/null 2>&1; then
		echo "pgcluster: fast shutdown of $DIR/data failed; trying immediate" >&2
		as_owner "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w -t 120 stop >/dev/null 2>&1 ||
			{ log_tail; die "cannot stop the server in $DIR/data"; }
	fi
}

[[ $# -eq 2 ]] || usage
DIR=$2
PORT=
BIN=$(find_bindir)
case $1 in
start) cmd_start ;;
stop) cmd_stop ;;
status) [[ -d $DIR ]] && DIR=$(cd "$DIR" && pwd -P) && is_running ;;
*) usage ;;
esac
