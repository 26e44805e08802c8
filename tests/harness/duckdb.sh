#!/bin/sh
# duckdb.sh [DIR] - fetch the pinned DuckDB (libduckdb.so and duckdb.h) into
# DIR (default .cache/duckdb-<version> at the project's root), once.
#
# Why DuckDB, and why this way: reckon reads Delta Lake tables, whose data
# and checkpoints are Parquet files.  Debian ships no Parquet library; DuckDB
# (MIT) has Parquet, JSON and ICU built in and a plain C API, and reckon
# embeds it instead of decoding Parquet by hand.  Debian has no DuckDB
# package either, so the pinned build comes from the npm registry, through
# npm: DuckDB's own Linux build is published as
# @duckdb/node-bindings-linux-x64 (which carries libduckdb.so), and the
# matching C header is in the duckdb source package.  Both tarballs are
# checked against the sha256 pinned below before anything is unpacked, and
# every function the header declares must resolve in the library (so a
# mismatched pair fails here, not at a user's first Delta read).
#
# POSIX sh (deps.sh calls it; so does the Makefile when the files are
# missing).  A fast no-op when DIR already holds the verified files.
set -eu

VERSION=1.4.4
# the newest build of 1.4.4 on the registry when it was pinned
BINDINGS=@duckdb/node-bindings-linux-x64@1.4.4-r.4
BINDINGS_TGZ=duckdb-node-bindings-linux-x64-1.4.4-r.4.tgz
BINDINGS_SHA256=732fac4dc6b8f198870b9c4bb6ddf13544466daca00ad28ba2f1d80de5d7aa4b
SOURCE=duckdb@1.4.4
SOURCE_TGZ=duckdb-1.4.4.tgz
SOURCE_SHA256=5bb967dcbcd517670ba5f169f238fb9d6787e53752c60ebe24386169d76941ed

repo=$(cd "$(dirname "$0")/../.." && pwd -P)
dir=${1:-$repo/.cache/duckdb-$VERSION}
stamp=$dir/.verified

die() {
	echo "duckdb: $*" >&2
	exit 1
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$BINDINGS_SHA256 $SOURCE_SHA256" ] &&
	[ -f "$dir/lib/libduckdb.so" ] && [ -f "$dir/include/duckdb.h" ]; then
	exit 0
fi

case $(uname -m) in
x86_64) ;;
*) die "the pinned DuckDB build is for x86_64 Linux; this machine is $(uname -m)" ;;
esac
command -v npm >/dev/null 2>&1 || die "npm not found (Debian package npm): it fetches DuckDB $VERSION"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found (coreutils)"
command -v nm >/dev/null 2>&1 || die "nm not found (binutils, which gcc brings)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/reckon-duckdb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

echo "duckdb: fetching DuckDB $VERSION ($BINDINGS, $SOURCE) from the npm registry" >&2
(cd "$tmp" && npm pack --silent "$BINDINGS" "$SOURCE" >/dev/null) ||
	die "npm pack $BINDINGS $SOURCE failed"

check_sha() { # FILE SHA256
	[ -f "$tmp/$1" ] || die "npm pack wrote no $1"
	got=$(sha256sum "$tmp/$1" | cut -d' ' -f1)
	[ "$got" = "$2" ] || die "$1: sha256 $got, pinned $2: refusing to use it"
}
check_sha "$BINDINGS_TGZ" "$BINDINGS_SHA256"
check_sha "$SOURCE_TGZ" "$SOURCE_SHA256"

mkdir -p "$tmp/b" "$tmp/s" "$tmp/out/lib" "$tmp/out/include"
tar -C "$tmp/b" -xzf "$tmp/$BINDINGS_TGZ" package/libduckdb.so package/LICENSE
tar -C "$tmp/s" -xzf "$tmp/$SOURCE_TGZ" package/src/duckdb/src/include/duckdb.h
cp "$tmp/b/package/libduckdb.so" "$tmp/out/lib/"
cp "$tmp/b/package/LICENSE" "$tmp/out/LICENSE"
cp "$tmp/s/package/src/duckdb/src/include/duckdb.h" "$tmp/out/include/"

# Every function the header declares (DUCKDB_C_API <type> name(...), a
# declaration may span lines) is defined by the library.  The macro's own
# #define lines match the pattern too; their words do not start with duckdb_.
tr '\n' ' ' <"$tmp/out/include/duckdb.h" | grep -o 'DUCKDB_C_API[^(;{}#]*(' |
	sed 's/[ (]*$//; s/.*[ *]//' | grep '^duckdb_' | sort -u >"$tmp/declared"
nm -D --defined-only "$tmp/out/lib/libduckdb.so" | awk '{ print $NF }' | sort -u >"$tmp/defined"
[ -s "$tmp/declared" ] || die "found no declarations in duckdb.h"
unresolved=$(comm -23 "$tmp/declared" "$tmp/defined" | tr '\n' ' ')
[ -z "$unresolved" ] ||
	die "duckdb.h declares functions libduckdb.so lacks: $unresolved"
echo "duckdb: $(wc -l <"$tmp/declared" | tr -d ' ') functions of duckdb.h resolve in libduckdb.so" >&2

echo "$BINDINGS_SHA256 $SOURCE_SHA256" >"$tmp/out/.verified"
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$tmp/out" "$dir"
echo "duckdb: DuckDB $VERSION in $dir" >&2
