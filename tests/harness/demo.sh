#!/usr/bin/env bash
# demo.sh RECKON_BIN - the README's first command (make demo).
#
# Starts (or reuses) a private PostgreSQL cluster in build/demo-cluster, loads
# a day of sample orders into demo_source, a damaged copy into demo_target
# (two rows lost to a crash, one skipped on an hour boundary, one loaded twice,
# one amount changed), and runs
# `reckon check` over the closed hourly windows of that day, with the report
# in build/demo-report (report.html among its files) and the metrics in
# build/demo-metrics.prom; it ends by printing where both are.  The sample
# itself is tests/harness/demo-data.sh.  It prints what reckon found and
# exits 0 whatever
# the verdict (showing the verdict is the point); it exits non-zero only when
# something really fails (the cluster, the SQL, or reckon exiting 2 or 3).
# The cluster is stopped again at the end.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)

if [[ $# -ne 1 ]]; then
	echo "usage: tests/harness/demo.sh RECKON_BIN" >&2
	exit 2
fi
RECKON=$1
[[ $RECKON == /* ]] || RECKON=$PWD/$RECKON
[[ -x $RECKON ]] || { echo "demo: $RECKON is not an executable (run make)" >&2; exit 1; }

say() { printf '\n== %s\n' "$*"; }

# --- the cluster -------------------------------------------------------------

mkdir -p "$repo/build"
cluster=$repo/build/demo-cluster
# As root the server runs as 'postgres', which must reach the directory, and a
# unix socket path is short: when build/ does not allow that, the cluster
# lives under /tmp and build/demo-cluster points there.
cluster_ok() {
	(( ${#cluster} + 32 <= 107 )) || return 1
	[[ $EUID -ne 0 ]] || runuser -u postgres -- test -x "$repo/build" 2>/dev/null
}
if [[ ! -e $cluster ]] && ! cluster_ok; then
	rm -f "$cluster"
	tmp=$(mktemp -d /tmp/reckon-demo.XXXXXX)
	chmod 0755 "$tmp"
	ln -s "$tmp" "$cluster"
fi
if [[ -L $cluster && ! -d $cluster ]]; then
	# the /tmp directory it pointed to is gone (a reboot): start afresh
	rm -f "$cluster"
	tmp=$(mktemp -d /tmp/reckon-demo.XXXXXX)
	chmod 0755 "$tmp"
	ln -s "$tmp" "$cluster"
fi

stop_cluster() {
	bash "$here/pgcluster.sh" stop "$cluster" || echo "demo: could not stop the cluster in $cluster" >&2
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

say "private PostgreSQL cluster in build/demo-cluster"
bash "$here/pgcluster.sh" start "$cluster" >/dev/null
# shellcheck source=/dev/null
. "$cluster/env"
echo "socket directory $PGHOST, port $PGPORT, superuser $PGUSER"

psql_demo() {
	PGOPTIONS="-c client_min_messages=warning" "$RK_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"
}

# --- the data ----------------------------------------------------------------

say "sample data: mart.orders, 100 orders x 2 lines over 2026-03-02 (UTC)"
bash "$here/demo-data.sh"
printf 'source: %s rows   target: %s rows\n' \
	"$(psql_demo -At -d demo_source -c 'select count(*) from mart.orders')" \
	"$(psql_demo -At -d demo_target -c 'select count(*) from mart.orders')"

# --- the check ---------------------------------------------------------------

report=$repo/build/demo-report
metrics=$repo/build/demo-metrics.prom
rm -rf "$report" "$repo/build/demo-report-after"
mkdir -p "$report"
src="host=$PGHOST port=$PGPORT user=$PGUSER dbname=demo_source"
tgt="host=$PGHOST port=$PGPORT user=$PGUSER dbname=demo_target"
# shellcheck disable=SC2054  # commas inside option values
args=(check --source "$src" --target "$tgt" --table mart.orders
	--time created_at --sum amount
	--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-03T06:00:00Z)

say "reckon check (hourly windows of 2026-03-02, all closed)"
printf '$ reckon check --source "dbname=demo_source ..." --target "dbname=demo_target ..." \\\n'
printf '    --table mart.orders --time created_at --sum amount \\\n'
printf '    --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h \\\n'
printf '    --report build/demo-report --rerun-list build/demo-report/rerun.csv \\\n'
printf '    --metrics build/demo-metrics.prom\n'
printf '(no --key: the primary key; no --columns: the whole row both sides have)\n\n'
rc=0
"$RECKON" "${args[@]}" --report "$report" --rerun-list "$report/rerun.csv" --metrics "$metrics" || rc=$?
case $rc in
0) verdict="match: every closed window arrived exactly once and unchanged" ;;
1) verdict="differ: the windows in the rerun list need a rerun" ;;
*)
	echo "demo: reckon check failed with exit status $rc" >&2
	exit "$rc"
	;;
esac

say "findings (build/demo-report/findings.csv)"
cat "$report/findings.csv"
say "rerun list (build/demo-report/rerun.csv)"
cat "$report/rerun.csv"
say "verdict: $verdict (exit status $rc)"
echo "report files: $(cd "$report" && find . -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')"

# --- repair: replace exactly the listed intervals, then check again --------
repair_args=(repair --source "$src" --target "$tgt" --table mart.orders
	--time created_at --rerun-list "$report/rerun.csv")
say "reckon repair (dry run: the plan, nothing changes)"
"$RECKON" "${repair_args[@]}"
say "reckon repair --execute (one target transaction per interval, each re-checked)"
rc=0
"$RECKON" "${repair_args[@]}" --execute || rc=$?
[[ $rc -eq 0 ]] || { echo "demo: reckon repair failed with exit status $rc" >&2; exit "$rc"; }
say "reckon check again"
rc=0
"$RECKON" "${args[@]}" --report "$repo/build/demo-report-after" --format json >"$repo/build/demo-after.json" || rc=$?
[[ $rc -eq 0 ]] || { echo "demo: the check after repair exited $rc, expected 0" >&2; exit 1; }
echo "verdict after repair: match (exit status 0); $(grep -c . "$repo/build/demo-report-after/rerun.csv") line(s) in its rerun list (the header)"

# --- the lab: how incremental loads lose rows in the first place -----------
say "reckon init: a job file for every table the two databases share (build/demo-job.ini)"
job=$repo/build/demo-job.ini
"$RECKON" init --source "$src" --target "$tgt" --schema mart >"$job"
cat "$job"
say "reckon check --job (the nightly job, here over 2026-03-02 instead of its --last 1d)"
rc=0
"$RECKON" check --job "$job" --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --now 2026-03-03T06:00:00Z \
	--report "$repo/build/demo-job-report" || rc=$?
[[ $rc -eq 0 ]] || { echo "demo: the job after repair exited $rc, expected 0" >&2; exit 1; }

say "reckon lab: every load strategy of docs/loader.md, crashed and late-committed for real"
lab_out=$repo/build/demo-lab
rm -rf "$lab_out"
psql_demo -d postgres -c "drop database if exists demo_lab_target" -c "create database demo_lab_target"
rc=0
"$RECKON" lab --source "host=$PGHOST port=$PGPORT user=$PGUSER dbname=demo_source" \
	--target "host=$PGHOST port=$PGPORT user=$PGUSER dbname=demo_lab_target" --out "$lab_out" >/dev/null || rc=$?
[[ $rc -eq 0 ]] || { echo "demo: reckon lab failed with exit status $rc (see $lab_out)" >&2; exit "$rc"; }
# per scenario: the state after its final load step, the steps that left
# damage on the way, and the state after repair
awk -F, 'NR > 1 { key = $1 "/" $2
	if (!(key in seen)) { seen[key] = 1; order[n++] = key }
	if ($3 == "recheck") { fixed[key] = $7; next }
	if ($3 == "repair") next
	last[key] = $3; miss[key] = $5; dup[key] = $6
	if ($7 == "no") hurt[key] = hurt[key] (hurt[key] == "" ? "" : " ") $3 }
	END { printf "%-28s %-26s %-26s %-34s %s\n", "engine/scenario", "missing at the end", "duplicated at the end",
	             "steps that left damage", "after repair"
	      for (i = 0; i < n; i++) { k = order[i]
	        printf "%-28s %-26s %-26s %-34s %s\n", k, (miss[k] == "" ? "-" : miss[k]), (dup[k] == "" ? "-" : dup[k]),
	               (hurt[k] == "" ? "-" : hurt[k]), (fixed[k] == "yes" ? "matches" : "DIFFERS") } }' "$lab_out/summary.csv"
echo
echo "every step's snapshot, rerun.csv and summary.csv: $lab_out (a committed example run: reports/lab/)"

say "where to look"
echo "HTML report of the damaged day: $report/report.html"
echo "the job's index (after repair): $repo/build/demo-job-report/index.html"
echo "metrics (Prometheus text format): $metrics"
