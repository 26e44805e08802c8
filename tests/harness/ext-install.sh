#!/bin/sh
# ext-install.sh DIR - makes the reckon extension built in DIR (make ext)
# available to the PostgreSQL server, for the tests, the demo and the
# benchmarks: installs it into pg_config's directories when they are
# writable (root, as in CI) and the installed files are not these ones
# already.  Otherwise it says so and succeeds: the tests then create the
# functions from DIR/reckon.so by its path (tests/integration/test_pushdown.sh).
#
# RK_EXT_SKIP_INSTALL=1 leaves whatever is installed alone (several work
# trees testing on one machine: only the one changing the extension
# installs it).
set -eu
dir=$1
if [ "${RK_EXT_SKIP_INSTALL:-0}" = 1 ]; then
	exit 0
fi
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
lib=$(pg_config --pkglibdir)
share=$(pg_config --sharedir)/extension

same=yes
for f in "$repo"/src/ext/reckon--*.sql; do
	cmp -s "$f" "$share/${f##*/}" || same=no
done
if [ $same = yes ] && cmp -s "$dir/reckon.so" "$lib/reckon.so" &&
	cmp -s "$repo/src/ext/reckon.control" "$share/reckon.control"; then
	exit 0
fi
if [ -w "$lib" ] && [ -w "$share" ]; then
	echo "ext: installing the reckon extension into $lib and $share" >&2
	make --no-print-directory -C "$dir" -f "$repo/src/ext/Makefile" install >/dev/null
else
	echo "ext: $lib is not writable: the reckon extension is not installed (make ext-install as root);" >&2
	echo "ext: the tests load $dir/reckon.so by its path instead" >&2
fi
