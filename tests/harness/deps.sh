#!/bin/sh
# deps.sh - make sure the Debian packages reckon builds and tests with are
# installed, then that the pinned DuckDB is fetched (tests/harness/duckdb.sh,
# no root needed).  A fast no-op when both are.  As root it installs the
# missing packages; otherwise it prints the command to run and exits 1.
#
# POSIX sh on purpose: it is the first thing a fresh machine runs, before
# anything else is known to be there (the Makefile calls it with sh).
set -eu

# build: gcc make libc6-dev (gcc's libasan/libubsan come with gcc)
# libraries: libpq-dev libxxhash-dev libcsv-dev libcmocka-dev libjansson-dev
#        libroaring-dev (Delta deletion vectors) zlib1g-dev (their CRC-32)
# DuckDB (Parquet, for Delta tables): not a Debian package; tests/harness/duckdb.sh
#        fetches the pinned build with npm (Debian package npm, unless an npm is
#        already on PATH, e.g. from a NodeSource nodejs) into .cache/
# time zones (--timezone, read through the C library): tzdata
# tests: postgresql (server binaries for the private clusters), postgresql-client
#        (psql, pg_isready), jq (reads summary.json), time (GNU time: peak RSS in bench),
#        chromium (renders report.html headless in the integration suite),
#        python3-prometheus-client (parses the --metrics file as Prometheus would),
#        pgbouncer (repair through a pooler in pool_mode=transaction, test_repair_rows.sh)
# pushdown extension (src/ext, PGXS): postgresql-server-dev-15
# packages (make deb, and make check builds them): debhelper dpkg-dev
# manual pages (tests render them): groff-base; the systemd examples
# (tests run systemd-analyze verify): systemd
# fuzzing (make fuzz, part of make check): clang-14, and libclang-rt-14-dev for
#        libFuzzer's runtime and clang's sanitizers (clang-14 only recommends it,
#        so --no-install-recommends would leave it out)
# coverage (make coverage): gcovr (reads gcc's .gcda files; gcov comes with gcc)
# format and lint (make format-check, part of make check; make lint):
#        clang-format-14, clang-tidy-14, cppcheck
# a comma-decimal locale (test_canon's float case, which parses under one):
#        locales, whose de_DE sources localedef compiles as root (a machine
#        without it only skips that case, and says so)
PACKAGES="gcc make libc6-dev libpq-dev libxxhash-dev libcsv-dev libcmocka-dev
libjansson-dev libroaring-dev zlib1g-dev postgresql postgresql-client jq time postgresql-server-dev-15 pgbouncer
debhelper dpkg-dev groff-base systemd clang-14 libclang-rt-14-dev gcovr
chromium python3-prometheus-client clang-format-14 clang-tidy-14 cppcheck tzdata locales"

missing_packages() {
	# dpkg-query lists only the packages it knows; an unknown name is
	# simply absent from the output (its complaint goes to /dev/null).
	# shellcheck disable=SC2086
	installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PACKAGES 2>/dev/null |
		awk '$2 == "installed" { printf "%s ", $1 }') || true
	for p in $PACKAGES; do
		case " $installed" in
		*" $p "*) ;;
		*) printf '%s ' "$p" ;;
		esac
	done
}

have_server() {
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && return 0
	done
	return 1
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: dpkg-query not found: this script knows Debian packages only;" >&2
	echo "deps: install the equivalents of: $PACKAGES" >&2
	exit 1
fi

# npm only fetches DuckDB; any npm on PATH will do (a NodeSource nodejs
# brings its own and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"

have_locale() {
	locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'
}

# The comma-decimal locale, compiled once as root; best effort: only a
# test case needs it.
make_locale() {
	have_locale || [ "$(id -u)" -ne 0 ] || ! command -v localedef >/dev/null 2>&1 && return 0
	echo "deps: compiling the de_DE.UTF-8 locale (localedef)" >&2
	localedef -i de_DE -f UTF-8 de_DE.UTF-8 ||
		echo "deps: localedef failed: test_canon's comma-decimal case will skip" >&2
}

here=$(dirname "$0")
missing=$(missing_packages)
if [ -z "$missing" ] && have_server && [ -x /usr/bin/time ]; then
	make_locale
	exec sh "$here/duckdb.sh"
fi
# Every package is there but a file is not (a half-removed install): reinstall
# the packages that own those files.
[ -n "$missing" ] || missing="postgresql time"

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages: $missing" >&2
	echo "deps: install them with:" >&2
	echo "  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing" >&2
	exit 1
fi

echo "deps: installing $missing" >&2
apt-get update
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing

missing=$(missing_packages)
if [ -n "$missing" ] || ! have_server; then
	echo "deps: still missing after apt-get install: ${missing:-PostgreSQL server binaries in /usr/lib/postgresql/*/bin}" >&2
	exit 1
fi
echo "deps: all packages installed" >&2
make_locale
exec sh "$here/duckdb.sh"
