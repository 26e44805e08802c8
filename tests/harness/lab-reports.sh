#!/usr/bin/env bash
# lab-reports.sh RECKON_BIN - regenerates reports/lab/ from one normal run of
# `reckon lab` (every engine, every scenario) on a private, throw-away
# PostgreSQL cluster (tests/harness/pgcluster.sh), then the late-committing
# scenarios (late-commit, interval) once more on a second cluster that keeps
# commit times (track_commit_timestamp = on), into reports/lab/commit-ts/:
# their checks name T-09 late_commit with its lag.  The previous reports are
# replaced only when the new run completed; the lab's exit status is kept in
# reports/lab/exit-status.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)

if [[ $# -ne 1 ]]; then
	echo "usage: tests/harness/lab-reports.sh RECKON_BIN" >&2
	exit 2
fi
reckon=$1
[[ $reckon == /* ]] || reckon=$PWD/$reckon
[[ -x $reckon ]] || { echo "lab-reports: $reckon is not an executable (run make)" >&2; exit 2; }

# under /tmp: the server may run as 'postgres' and must reach the directory
base=$(mktemp -d "${TMPDIR:-/tmp}/reckon-lab.XXXXXX")
chmod 0755 "$base"
cleanup() {
	bash "$here/pgcluster.sh" stop "$base/pg" || true
	bash "$here/pgcluster.sh" stop "$base/cts" || true
	rm -rf "$base"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bash "$here/pgcluster.sh" start "$base/pg" >/dev/null
# shellcheck source=/dev/null
. "$base/pg/env"
unset PGPASSWORD PGPASSFILE PGSERVICE PGOPTIONS PGTZ PGDATESTYLE PGCLIENTENCODING
export LC_ALL=C.UTF-8 TZ=UTC

"$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d postgres -c "create database lab_source" -c "create database lab_target"
conn() { echo "host=$PGHOST port=$PGPORT user=$PGUSER dbname=$1"; }

rc=0
"$reckon" lab --source "$(conn lab_source)" --target "$(conn lab_target)" --out "$base/out" \
	--delta-dir "$base/tables" \
	>"$base/stdout" 2>"$base/stderr" || rc=$?
echo "$rc" >"$base/out/exit-status"
cp "$base/stderr" "$base/out/stderr.log"

RK_PG_COMMIT_TS=on bash "$here/pgcluster.sh" start "$base/cts" >/dev/null
cts_port=$(sed -n "s/^export PGPORT='\\(.*\\)'$/\\1/p" "$base/cts/env")
"$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$base/cts" -p "$cts_port" -d postgres -c "create database lab_source"
mkdir -p "$base/out/commit-ts"
for scenario in late-commit interval; do
	crc=0
	"$reckon" lab --source "host=$base/cts port=$cts_port user=$PGUSER dbname=lab_source" --engine postgres \
		--scenario "$scenario" --out "$base/out/commit-ts/$scenario" >>"$base/cts-stdout" 2>>"$base/cts-stderr" || crc=$?
	[[ $crc -le $rc ]] || rc=$crc
done
cp "$base/cts-stderr" "$base/out/commit-ts/stderr.log"

# The files are reckon's own outputs (CSV, JSON, HTML), which take no
# header: README.md beside them names the command and the commit.
commit=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null) || commit="unknown (not a git checkout)"
git -C "$repo" diff --quiet HEAD -- src sql 2>/dev/null || commit+=" + uncommitted changes"
cat >"$base/out/README.md" <<EOF
# reckon lab reports

- produced by: \`make lab-reports\` (tests/harness/lab-reports.sh) at commit $commit, $(date -u +%Y-%m-%dT%H:%M:%SZ)
- reckon: $("$reckon" --version 2>/dev/null | head -n 1); PostgreSQL: $("$RK_PGBIN/postgres" --version)

Every other file here is that run's output, unchanged: \`reckon lab\` (every engine, every
scenario) into this directory, its exit status in \`exit-status\` and its stderr in
\`stderr.log\`; the late-committing scenarios again on a cluster that keeps commit times in
\`commit-ts/\`.  Engine delta's tables were written under a scratch \`--delta-dir\` and not
kept (their Parquet files' names are random): each scenario's \`history.csv\` is their log.
What they show: docs/loader.md.
EOF

mkdir -p "$repo/reports"
rm -rf "$repo/reports/lab.new"
cp -R "$base/out" "$repo/reports/lab.new"
rm -rf "$repo/reports/lab.old"
[[ ! -e $repo/reports/lab ]] || mv "$repo/reports/lab" "$repo/reports/lab.old"
mv "$repo/reports/lab.new" "$repo/reports/lab"
rm -rf "$repo/reports/lab.old"

echo "lab-reports: reports/lab/ regenerated (reckon lab exit status $rc)"
cat "$repo/reports/lab/summary.csv"
exit "$rc"
