#!/usr/bin/env bash
# bench-peers.sh RECKON_BIN - make bench-peers: reckon against a peer on the
# same tables, clean and damaged, with every tool's findings compared to the
# truth.
#
# The peer: pg_comparator from Debian (package postgresql-comparator, its C
# checksum functions loaded by CREATE EXTENSION pgcmp), with its defaults -
# the ck checksum, sum aggregation, folding factor 7 (128 rows a fold), the
# two connections queried asynchronously - comparing bench.t on key id and
# columns ts, amount, note: the columns reckon hashes.  It compares whole
# tables; bench.t holds exactly the day reckon checks.
#
# For each size of SIZES (env, default "2000000 5000000"): the databases of
# bench-drill.sh (bench-lib.sh bench_drill_dbs: a clean copy, and 4 rows
# damaged in 4 of the 24 windows: 3 lost, 1 changed), and in each of REPEAT
# (env, default 3) rounds, in turn: pg_comparator, reckon check (streaming)
# and reckon check --pushdown, clean and damaged.  Reported: the best
# seconds, peak RSS, the findings against the truth (the keys the damage
# touched), and how many times faster reckon is than the peer on the same
# tables.  Goals: --pushdown >= 3.5x and streaming >= 1.5x faster than
# pg_comparator on the damaged tables.  Writes reports/bench/peers-<size>.md.
#
# Not part of make check.  As root it installs the peer's Debian packages
# when they are missing (postgresql-comparator; it brings its Perl DBI
# driver); otherwise it says what to install.
set -euo pipefail

pkgs="postgresql-comparator libdbd-pg-perl"
missing=$(for p in $pkgs; do dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed || echo "$p"; done)
if [[ -n $missing ]]; then
	if [[ $(id -u) -ne 0 ]]; then
		echo "bench-peers: install the peer first: apt-get install $missing" >&2
		exit 1
	fi
	echo "bench-peers: installing $missing" >&2
	apt-get update >/dev/null
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >/dev/null
fi
REPEAT=${REPEAT:-3}
# shellcheck source=tests/harness/bench-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
command -v jq >/dev/null || { echo "bench-peers: jq is missing: run tests/harness/deps.sh" >&2; exit 1; }
SIZES=${SIZES:-2000000 5000000}
PEER_VERSION=$(pg_comparator --version 2>&1 | sed -n 's/.*version is \([^ ]*\).*/\1/p')

# peer SRC TGT - runs pg_comparator; prints "seconds peak_rss_kib" and
# leaves the keys it reports, one "KIND id" a line, in $base/peer.out
peer() {
	local t0 t1 rc=0
	t0=$(now)
	/usr/bin/time -f '%M' -o "$base/time.out" pg_comparator \
		--source-1 "DBI:Pg:host=$PGHOST;port=$PGPORT;dbname=$1" --source-2 "DBI:Pg:host=$PGHOST;port=$PGPORT;dbname=$2" \
		"pgsql://$PGUSER@localhost/$1/bench.t?id:ts,amount,note" "pgsql://$PGUSER@localhost/$2/bench.t?id:ts,amount,note" \
		>"$base/peer.out" 2>"$base/peer.err" || rc=$?
	t1=$(now)
	[[ $rc -eq 0 ]] || { echo "bench-peers: pg_comparator exited $rc" >&2; cat "$base/peer.err" >&2; exit 1; }
	echo "$(elapsed "$t0" "$t1") $(tail -n 1 "$base/time.out")"
}

# the truth: what bench_drill_dbs did to the damaged copy, as "kind id"
truth() {
	local n=$1
	printf 'missing %s\nmissing %s\nmissing %s\nchanged %s\n' $((n / 24 * 3 + n / 48)) $((n / 24 * 9 + n / 48)) \
		$((n / 24 * 14 + n / 48)) $((n / 24 * 19 + n / 48)) | sort
}

# verdict EXPECTED_FILE FOUND_FILE - "4 of 4 right, 0 wrong" and the like
verdict() {
	local right wrong want
	want=$(grep -c . "$1" || true)
	right=$(comm -12 "$1" "$2" | grep -c . || true)
	wrong=$(comm -13 "$1" "$2" | grep -c . || true)
	echo "$right of $want right, $wrong wrong"
}

for n in $SIZES; do
	echo "bench-peers: loading $n rows per side" >&2
	bench_drill_dbs peer "$n"
	for db in peer_src peer_clean peer_dmg; do
		psql_b -d "$db" -c "create extension if not exists pgcmp"
	done
	truth "$n" >"$base/truth"
	: >"$base/none"
	labels=(pg_comparator reckon reckon-pushdown)
	declare -A secs=() rss=() found=()
	for ((i = 0; i < REPEAT; i++)); do
		for tgt in peer_clean peer_dmg; do
			want=0
			[[ $tgt == peer_dmg ]] && want=1
			read -r s m <<<"$(peer peer_src $tgt)"
			secs[0$tgt]="${secs[0$tgt]:-} $s"
			rss[0$tgt]="${rss[0$tgt]:-} $m"
			# UPDATE: a changed row; INSERT: a row table 2 lacks
			sed -n 's/^UPDATE /changed /p; s/^INSERT /missing /p; s/^DELETE /extra /p' "$base/peer.out" | sort >"$base/f0$tgt"
			for k in 1 2; do
				read -r s m <<<"$(bench_reckon peer_src $tgt $want $([[ $k == 2 ]] && echo --pushdown))"
				secs[$k$tgt]="${secs[$k$tgt]:-} $s"
				rss[$k$tgt]="${rss[$k$tgt]:-} $m"
				awk -F, 'NR > 1 { print $3, $4 }' "$base/report/findings.csv" | sort >"$base/f$k$tgt"
			done
			echo "bench-peers: $n rows, round $((i + 1)), $tgt:$(for k in 0 1 2; do printf ' %s %s' "${labels[$k]}" "$(echo ${secs[$k$tgt]} | awk '{ print $NF }')"; done)" >&2
		done
	done
	out=$repo/reports/bench/peers-$n.md
	mkdir -p "$(dirname "$out")"
	{
		echo "# reckon against pg_comparator, $n rows per side ($(date -u +%Y-%m-%d))"
		echo
		bench_provenance N REPEAT SIZES
		echo "- reckon: $("$RECKON" --version 2>/dev/null | head -n 1); PostgreSQL: $("$RK_PGBIN/postgres" --version); machine: $(nproc) CPUs"
		echo "- peer: pg_comparator $PEER_VERSION (Debian postgresql-comparator), C checksum functions of \`CREATE EXTENSION pgcmp\`; its defaults: \`--checksum-function=ck --aggregate=sum --folding-factor=7 --asynchronous\`, key \`id\`, columns \`ts,amount,note\`, whole tables (they hold the checked day only)"
		echo "- reckon: \`check --key id --time ts --sum amount --window 1h\` (24 windows; the whole row hashed: id, ts, amount, note), streaming and \`--pushdown\` (the reckon extension)"
		echo "- bench.t (id bigint primary key, ts timestamptz over one day, amount numeric(12,2), note text, an index on ts) in databases of one private cluster; damaged: 4 rows in 4 of the 24 windows (3 lost, 1 amount changed)"
		echo "- seconds: the best of $REPEAT rounds, each running every tool on both targets in turn; findings: the keys and kinds reported, against the truth (pg_comparator's INSERT read as missing, UPDATE as changed)"
		echo
		echo "| target | tool | seconds | peak RSS KiB | findings against the truth | pg_comparator's seconds / the tool's |"
		echo "| --- | --- | ---: | ---: | --- | ---: |"
		for tgt in peer_clean peer_dmg; do
			# shellcheck disable=SC2086
			p=$(min ${secs[0$tgt]})
			for k in 0 1 2; do
				# shellcheck disable=SC2086
				s=$(min ${secs[$k$tgt]})
				# shellcheck disable=SC2086
				echo "| ${tgt#peer_} | ${labels[$k]} | $s | $(min ${rss[$k$tgt]}) | $(verdict "$base/$([[ $tgt == peer_dmg ]] && echo truth || echo none)" "$base/f$k$tgt") | $(ratio "$p" "$s") |"
			done
		done
		# shellcheck disable=SC2086
		p=$(min ${secs[0peer_dmg]})
		# shellcheck disable=SC2086
		sp=$(ratio "$p" "$(min ${secs[2peer_dmg]})")
		# shellcheck disable=SC2086
		ss=$(ratio "$p" "$(min ${secs[1peer_dmg]})")
		echo
		echo "| goal, damaged tables | measured | verdict |"
		echo "| --- | ---: | --- |"
		echo "| reckon --pushdown >= 3.5x faster than pg_comparator | ${sp}x | $(awk -v a="$sp" 'BEGIN { exit !(a >= 3.5) }' && echo holds || echo "does not hold") |"
		echo "| reckon (streaming) >= 1.5x faster than pg_comparator | ${ss}x | $(awk -v a="$ss" 'BEGIN { exit !(a >= 1.5) }' && echo holds || echo "does not hold") |"
	} >"$out.tmp"
	mv "$out.tmp" "$out"
	cat "$out"
	echo
	unset secs rss found
done
