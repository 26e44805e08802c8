#!/usr/bin/env bash
# deb.sh build|check - the Debian packages (debian/): reckon and
# postgresql-15-reckon.
#
#   build  copies the tree (without build/ and .git) to build/deb/src and runs
#          dpkg-buildpackage -us -uc -b there; the .deb files land in
#          build/deb/.  A copy, because dpkg-buildpackage cleans the tree it
#          builds and writes its output into the parent directory.
#   check  build, then what CI asks of the packages: apt's resolver accepts
#          both (their dependencies are installable here, nothing is
#          installed), each unpacks (dpkg -x) into a throw-away root with the
#          files it should hold, and the unpacked /usr/bin/reckon runs and
#          prints the Makefile's VERSION.
#
# Why a throw-away root rather than dpkg -i: the machine's PostgreSQL is
# shared with other work trees and test runs (its extension directory
# included), and a package installed for a test would outlive the test.
#
# DEB_BUILD_OPTIONS passes through; check adds nocheck (make check has just
# run the unit tests) and noddebs (no debug symbol packages).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
out=$repo/build/deb
mode=${1:-}

die() {
	echo "deb: $*" >&2
	exit 1
}

version=$(sed -nE 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$repo/Makefile")
[[ -n $version ]] || die "no VERSION in the Makefile"

build() {
	local changelog started=$SECONDS
	command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
		die "dpkg-buildpackage or dh missing: run tests/harness/deps.sh (debhelper, dpkg-dev)"
	# the package's version is the Makefile's: debian/changelog must say the same
	changelog=$(cd "$repo" && dpkg-parsechangelog -S Version)
	[[ $changelog == "$version" ]] ||
		die "debian/changelog is at $changelog but the Makefile's VERSION is $version: add a changelog entry (dch -v $version)"
	rm -rf "$out"
	mkdir -p "$out/src"
	tar -C "$repo" --exclude=./build --exclude=./.git -cf - . | tar -C "$out/src" -xf -
	echo "deb: building in $out/src" >&2
	(cd "$out/src" && dpkg-buildpackage -us -uc -b -J"$(nproc)") >"$out/build.log" 2>&1 || {
		tail -n 40 "$out/build.log" >&2
		die "dpkg-buildpackage failed; the whole log is $out/build.log"
	}
	ls "$out"/*.deb >/dev/null 2>&1 || die "dpkg-buildpackage made no .deb (see $out/build.log)"
	echo "deb: built in $((SECONDS - started))s:" >&2
	ls -1 "$out"/*.deb >&2
}

# expect ROOT PATH... - each path is in the unpacked root (dh_compress may
# have gzipped a manual page or a document)
expect() {
	local root=$1 p
	shift
	for p in "$@"; do
		[[ -e $root/$p || -e $root/$p.gz ]] || die "the packages hold no /$p"
	done
}

root=
trap '[[ -z $root ]] || rm -rf "$root"' EXIT

check() {
	local rc=0 got delta deb started
	DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck noddebs" build
	started=$SECONDS
	for deb in "$out"/reckon_"$version"_*.deb "$out"/postgresql-15-reckon_"$version"_*.deb; do
		[[ -f $deb ]] || die "missing package $deb"
	done
	# installable: apt resolves every dependency (simulation only)
	apt-get install -s --no-install-recommends "$out"/reckon_"$version"_*.deb \
		"$out"/postgresql-15-reckon_"$version"_*.deb >"$out/apt.log" 2>&1 || {
		cat "$out/apt.log" >&2
		die "apt cannot install the packages"
	}
	root=$(mktemp -d "${TMPDIR:-/tmp}/reckon-deb.XXXXXX")
	for deb in "$out"/reckon_"$version"_*.deb "$out"/postgresql-15-reckon_"$version"_*.deb; do
		dpkg -x "$deb" "$root"
	done
	expect "$root" usr/bin/reckon usr/share/man/man1/reckon.1 usr/share/man/man1/reckon-check.1 \
		usr/share/bash-completion/completions/reckon usr/share/doc/reckon/cron.md \
		usr/share/doc/reckon/copyright usr/share/doc/reckon/examples/systemd/reckon-nightly.service \
		usr/share/doc/reckon/examples/systemd/reckon-nightly.timer \
		usr/lib/postgresql/15/lib/reckon.so usr/share/postgresql/15/extension/reckon.control \
		usr/lib/reckon/libduckdb.so
	# the installed binary finds its private DuckDB through its rpath, which
	# names the installed place; in the throw-away root the loader is told
	# where that place is now
	readelf -d "$root/usr/bin/reckon" | grep -Eq 'R(UN)?PATH.*\[/usr/lib/reckon\]' ||
		die "/usr/bin/reckon's rpath is not /usr/lib/reckon: $(readelf -d "$root/usr/bin/reckon" | grep -E 'R(UN)?PATH')"
	got=$(LD_LIBRARY_PATH=$root/usr/lib/reckon "$root/usr/bin/reckon" --version) || rc=$?
	[[ $rc -eq 0 && $got == "reckon $version" ]] ||
		die "$root/usr/bin/reckon --version printed '$got' (exit $rc), expected 'reckon $version'"
	# libduckdb is not linked but loaded when a Delta table is first used
	# (src/io/duckapi.h): not NEEDED, and a Delta side loads the packaged
	# copy (an empty directory: the loaded library then says it is no table)
	! readelf -d "$root/usr/bin/reckon" | grep -q 'NEEDED.*libduckdb' ||
		die "/usr/bin/reckon is linked with libduckdb: it should load it only for Delta tables"
	mkdir "$root/empty"
	rc=0
	delta=$(LD_LIBRARY_PATH=$root/usr/lib/reckon LD_DEBUG=files LD_DEBUG_OUTPUT=$root/ld "$root/usr/bin/reckon" \
		check --source "delta:$root/empty" --target "delta:$root/empty" --table t --key id 2>&1) || rc=$?
	[[ $rc -eq 2 && $delta == *"not a Delta table"* ]] && cat "$root"/ld.* | grep -qF "$root/usr/lib/reckon/libduckdb.so" ||
		die "a Delta side did not load $root/usr/lib/reckon/libduckdb.so (exit $rc): $delta"
	# the installed completion knows the installed binary's commands
	bash --norc --noprofile -c '. "$1" && complete -p reckon' x \
		"$root/usr/share/bash-completion/completions/reckon" >/dev/null ||
		die "the installed bash completion does not load"
	echo "deb: unpacked into a throw-away root; $root/usr/bin/reckon --version: $got" \
		"($((SECONDS - started))s)" >&2
}

case $mode in
build) build ;;
check) check ;;
*) die "usage: tests/harness/deb.sh build|check" ;;
esac
