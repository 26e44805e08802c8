#!/usr/bin/env bash
# ext-check.sh DIR - the extension's REGRESS tests (src/ext/sql/*.sql against
# src/ext/expected/*.out) by PGXS's installcheck, which runs pg_regress, on
# a private, throw-away cluster (pgcluster.sh): make ext-check, and make
# check after the extension is built.
#
# The extension is the one built in DIR (make ext).  When the server's
# directories hold exactly these files, the tests CREATE EXTENSION reckon;
# otherwise (not installed, or another build installed: a non-root user, or
# RK_EXT_SKIP_INSTALL=1) they load DIR/reckon-load.sql, this build's module by
# its path (RK_EXT_LOAD, read by src/ext/sql/reckon_load.sql).  A failure
# prints pg_regress's regression.diffs.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
[[ $# -eq 1 ]] || { echo "usage: tests/harness/ext-check.sh EXT_BUILD_DIR" >&2; exit 2; }
dir=$(cd "$1" && pwd -P)
[[ -r $dir/reckon.so && -r $dir/reckon-load.sql ]] || { echo "ext-check: no extension built in $dir (make ext)" >&2; exit 2; }

# the installed files, if they are this build's
installed=yes
lib=$(pg_config --pkglibdir)
share=$(pg_config --sharedir)/extension
for f in "$repo"/src/ext/reckon--*.sql; do
	cmp -s "$f" "$share/${f##*/}" || installed=no
done
cmp -s "$dir/reckon.so" "$lib/reckon.so" && cmp -s "$repo/src/ext/reckon.control" "$share/reckon.control" ||
	installed=no

# under /tmp: as root the server runs as 'postgres' and must reach it
base=$(mktemp -d /tmp/reckon-extcheck.XXXXXX)
chmod 0755 "$base"
trap 'bash "$here/pgcluster.sh" stop "$base/pg" || true; rm -rf "$base"' EXIT
trap 'exit 130' INT TERM
bash "$here/pgcluster.sh" start "$base/pg" >/dev/null
# shellcheck source=/dev/null
. "$base/pg/env"
unset PGOPTIONS PGTZ PGDATESTYLE PGCLIENTENCODING RK_EXT_LOAD
if [[ $installed == no ]]; then
	echo "ext-check: the installed reckon extension is not this build's: loading $dir/reckon-load.sql" >&2
	export RK_EXT_LOAD=$dir/reckon-load.sql
fi
# pg_regress writes results/ and regression.diffs into the build directory;
# as root the server (user postgres) needs nothing from it
rc=0
make --no-print-directory -C "$dir" -f "$repo/src/ext/Makefile" installcheck || rc=$?
if [[ $rc -ne 0 && -f $dir/regression.diffs ]]; then
	cat "$dir/regression.diffs"
	echo "ext-check: the differences above are in $dir/regression.diffs" >&2
fi
exit $rc
