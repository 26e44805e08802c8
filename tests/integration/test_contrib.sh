# shellcheck shell=bash
# The scheduling example in contrib/systemd: systemd's own reader
# (systemd-analyze verify) accepts the service and the timer, in a throw-away
# root where this build's reckon and contrib/cron/reckon-nightly are
# installed in /usr/local/bin (make install's PREFIX), next to the host's
# unit tree (the targets the units name); the manual pages their
# Documentation= names are this build's.  systemd-analyze security rates
# the service's hardening offline, in the same root.  tests/harness/deps.sh installs
# systemd for systemd-analyze.  The service's command runs, with its job
# file, against two databases holding the tables the job names (the unit
# test tests/unit/test_contrib.c reads the same file with the parser alone).

UNITS=(reckon-nightly.service reckon-nightly.timer)
SERVICE=$RK_REPO/contrib/systemd/reckon-nightly.service
SRC=contrib_src
TGT=contrib_tgt

# The tables contrib/systemd/nightly.ini names, equal on both sides: orders
# copied, customers renamed, with the balance in cents at the source and
# test customers left out of the target.  Rows every 20 minutes from
# 2026-03-02 00:00Z for 27 hours.
setup_file() {
	createdb $SRC
	createdb $TGT
	sql $SRC >/dev/null <<-'SQL'
		create schema mart;
		create table mart.orders (order_id bigint, line_no int, updated_at timestamptz not null,
		    amount numeric(12,2), primary key (order_id, line_no));
		insert into mart.orders
		select g / 2, g % 2, timestamptz '2026-03-02 00:00+00' + g * interval '10 minutes', g * 1.25
		from generate_series(0, 161) g;
		create table public.customer (customer_id int primary key, full_name text, balance_cents bigint,
		    modified_at timestamptz not null, is_test boolean not null);
		insert into public.customer
		select g, 'customer ' || g, g * 1000 + 7, timestamptz '2026-03-02 00:00+00' + g * interval '20 minutes',
		       g % 9 = 0
		from generate_series(0, 80) g;
	SQL
	sql $TGT >/dev/null <<-'SQL'
		create schema mart;
		create table mart.orders (order_id bigint, line_no int, updated_at timestamptz not null,
		    amount numeric(12,2), primary key (order_id, line_no));
		create table mart.customers (customer_id int primary key, name text, balance numeric(14,2),
		    modified_at timestamptz not null);
	SQL
	export_csv $SRC "select * from mart.orders" orders.csv
	import_csv $TGT mart.orders orders.csv
	export_csv $SRC "select customer_id, full_name, balance_cents / 100.0, modified_at
	                 from public.customer where not is_test" customers.csv
	import_csv $TGT mart.customers customers.csv
}

# unit_root DIR - the throw-away root
unit_root() {
	local root=$1 u
	command -v systemd-analyze >/dev/null || fail "systemd-analyze not found (Debian package systemd)"
	[[ -d /usr/lib/systemd/system ]] || fail "no /usr/lib/systemd/system: is systemd installed?"
	# where make install puts them (PREFIX /usr/local), and the units and the
	# wrapper copied from its examples as docs/cron.md says
	mkdir -p "$root/usr/local/bin" "$root/usr/lib/systemd" "$root/etc/systemd/system" \
		"$root/usr/local/share/man/man1"
	cp -a /usr/lib/systemd/system "$root/usr/lib/systemd/"
	cp "$RECKON" "$root/usr/local/bin/reckon"
	install -m 0755 "$RK_REPO/contrib/cron/reckon-nightly" "$root/usr/local/bin/"
	cp "${RECKON%/*}"/man/*.1 "$root/usr/local/share/man/man1/"
	for u in "${UNITS[@]}"; do
		cp "$RK_REPO/contrib/systemd/$u" "$root/etc/systemd/system/"
	done
}

# verify ROOT - systemd-analyze verify; it runs man for Documentation=
verify() {
	MANPATH=$1/usr/local/share/man systemd-analyze --root="$1" verify "${UNITS[@]}"
}

test_systemd_verifies_the_service_and_the_timer() {
	unit_root root
	assert_exit 0 verify "$T/root"
	[[ ! -s $ERR ]] || fail "systemd-analyze verify complains: $(cat "$ERR")"
	_rk_ok
}

# The check above can fail: verify notices a reckon that is not installed,
# a manual page that is not there and a key systemd does not know.
test_verify_notices_a_missing_binary_page_or_key() {
	unit_root root
	rm root/usr/local/bin/reckon-nightly
	assert_exit 1 verify "$T/root"
	assert_contains "$ERR" "Command reckon-nightly is not executable"
	unit_root root1
	rm root1/usr/local/share/man/man1/reckon-check.1
	verify "$T/root1" 2>err1 || true
	assert_contains err1 "man reckon-check(1)"
	unit_root root2
	sed -i 's/^Persistent=/Persistant=/' root2/etc/systemd/system/reckon-nightly.timer
	verify "$T/root2" 2>err2 || true
	assert_contains err2 "Unknown key 'Persistant'"
}

# The timer fires once a day at 02:30 UTC, whatever the host's time zone.
test_timer_fires_nightly_at_0230_utc() {
	local spec
	spec=$(sed -n 's/^OnCalendar=//p' "$RK_REPO/contrib/systemd/reckon-nightly.timer")
	assert_exit 0 env TZ=Asia/Tokyo systemd-analyze calendar --iterations=2 "$spec"
	assert_contains "$OUT" "Normalized form: *-*-* 02:30:00 UTC"
	assert_eq 2 "$(grep -cE '\(in UTC\): .* 02:30:00 UTC' "$OUT")"
}

# The service's Environment= settings, one "NAME=VALUE" a line.
unit_env() {
	sed -n 's/^Environment=//p' "$SERVICE"
}

# The service runs the wrapper over the documented paths: the job, the
# reports, the metrics in the textfile directory, with the hardening of
# docs/cron.md: files no other user reads, and an exposure systemd rates
# under 5.
test_service_runs_the_wrapper_hardened() {
	assert_eq "ExecStart=reckon-nightly" "$(grep '^ExecStart=' "$SERVICE")"
	assert_eq "RECKON_JOB=/etc/reckon/nightly.ini
RECKON_REPORTS=/var/lib/reckon/nightly
RECKON_METRICS=/var/lib/prometheus/node-exporter/reckon.prom
RECKON_KEEP=30" "$(unit_env)"
	# the wrapper's command is the one docs/cron.md describes
	assert_contains "$RK_REPO/contrib/cron/reckon-nightly" \
		'"$reckon" check --job "$job" --last 1d --report "$reports/$day" --metrics "$metrics" >/dev/null'
	assert_contains "$RK_REPO/docs/cron.md" "reckon check --job /etc/reckon/nightly.ini --last 1d"
	assert_eq "UMask=0027" "$(grep '^UMask=' "$SERVICE")"
	unit_root root
	assert_exit 0 systemd-analyze security --offline=yes --root="$T/root" --threshold=49 reckon-nightly.service
	local level
	level=$(sed -n 's/.*Overall exposure level for reckon-nightly.service: \([0-9.]*\).*/\1/p' "$OUT")
	assert_match "$level" '^[0-4]\.[0-9]$' "exposure level"
	# the check can fail: without the hardening the level is over 5
	sed -i '/^UMask=/,$d' root/etc/systemd/system/reckon-nightly.service
	assert_exit 1 systemd-analyze security --offline=yes --root="$T/root" --threshold=49 reckon-nightly.service
}

# The service's wrapper as the unit sets it up, with the example job file:
# its paths moved into the scratch directory, the connections to the test
# cluster (the command line wins over the job's [defaults]) and the clock
# fixed at 02:30 UTC, when the timer fires.
test_the_service_runs_the_example_job() {
	local -a env=()
	local e day
	while read -r e; do
		case $e in
		RECKON_JOB=*) env+=("RECKON_JOB=$RK_REPO/contrib/systemd/nightly.ini") ;;
		RECKON_REPORTS=*) env+=("RECKON_REPORTS=$T/nightly") ;;
		RECKON_METRICS=*) env+=("RECKON_METRICS=$T/reckon.prom") ;;
		*) env+=("$e") ;;
		esac
	done < <(unit_env)
	cat >reckon-shim <<-SH
		#!/bin/sh
		exec "$RECKON" "\$@" --source '$(conn $SRC)' --target '$(conn $TGT)' --now 2026-03-03T02:30:00Z
	SH
	chmod +x reckon-shim
	env+=("RECKON=$T/reckon-shim")
	assert_exit 0 env "${env[@]}" "$RK_REPO/contrib/cron/reckon-nightly"
	assert_eq match "$(jget nightly/latest/summary.json .verdict)"
	assert_eq "customers orders" "$(jq -r '.tables | keys | join(" ")' nightly/latest/summary.json)"
	# --last 1d at 02:30 with a 15-minute settle: yesterday 02:00 to 02:00
	assert_eq 24 "$(jget nightly/latest/summary.json .tables.orders.windows.checked)"
	assert_eq 2026-03-02T02:00:00Z "$(head -n 2 nightly/latest/orders/windows.csv | tail -n 1 | cut -d, -f1)"
	assert_file reckon.prom
	day=$(date -u +%Y-%m-%d)
	assert_eq "$day" "$(readlink nightly/latest)"
	# files no other user can read (UMask=0027 in the unit, umask 027 in the wrapper)
	assert_eq 0 "$(find nightly/"$day" -perm /o=rwx | wc -l)" "files others may read"
	# a row lost in the night: the job says which table, and exits 1
	sql $TGT "delete from mart.orders where order_id = 40 and line_no = 1" >/dev/null
	assert_exit 1 env "${env[@]}" "$RK_REPO/contrib/cron/reckon-nightly"
	assert_eq differ "$(jget nightly/latest/summary.json .tables.orders.verdict)"
	assert_eq 1 "$(jget nightly/latest/summary.json .tables.orders.findings.missing)"
	assert_eq match "$(jget nightly/latest/summary.json .tables.customers.verdict)"
	assert_contains "$ERR" "reckon: differ: job $RK_REPO/contrib/systemd/nightly.ini: 1 differs, 1 matches (differ: orders)"
	export_csv $SRC "select * from mart.orders where order_id = 40 and line_no = 1" back.csv
	import_csv $TGT mart.orders back.csv
}

# contrib/cron: the wrapper the cron line runs.  A night that matches
# prints nothing (cron mails nothing); damage reaches stderr (reckon's line
# and the wrapper's, with the repair command); each night's report is in a
# directory named by its UTC date, latest pointing at it, the oldest beyond
# RECKON_KEEP removed.  Every command it runs exists (no undefined notify).
test_cron_wrapper_mails_damage_only() {
	local wrapper=$RK_REPO/contrib/cron/reckon-nightly day
	command -v shellcheck >/dev/null && { shellcheck "$wrapper" || fail "shellcheck complains about $wrapper"; }
	assert_contains "$RK_REPO/contrib/cron/reckon.cron" "30 2 * * *  reckon  reckon-nightly"
	# a shim that runs this build with the test's connections and clock
	cat >reckon-shim <<-SH
		#!/bin/sh
		exec "$RECKON" "\$@" --source '$(conn $SRC)' --target '$(conn $TGT)' --now 2026-03-03T02:30:00Z
	SH
	chmod +x reckon-shim
	mkdir -p reports/2000-01-01 reports/2000-01-02
	day=$(date -u +%Y-%m-%d)
	local job=$RK_REPO/contrib/systemd/nightly.ini
	nightly() {
		env RECKON="$T/reckon-shim" RECKON_JOB="$job" RECKON_REPORTS="$T/reports" RECKON_METRICS="$T/reckon.prom" \
			RECKON_KEEP=2 "$wrapper"
	}
	assert_exit 0 nightly
	assert_eq "" "$(cat "$OUT")$(cat "$ERR")" "output of a night that matches"
	assert_eq match "$(jget "reports/$day/summary.json" .verdict)"
	assert_eq "$day" "$(readlink reports/latest)"
	assert_no_file reports/2000-01-01
	[[ -d reports/2000-01-02 ]] || fail "the newer old night was removed"
	assert_file reckon.prom
	sql $TGT "delete from mart.orders where order_id = 41 and line_no = 1" >/dev/null
	assert_exit 1 nightly
	assert_eq "" "$(cat "$OUT")" "stdout"
	assert_contains "$ERR" "reckon: differ: job $job: 1 differs, 1 matches (differ: orders); see $T/reports/$day/index.html"
	assert_contains "$ERR" "reckon-nightly: damage: see $T/reports/$day/index.html; repair: reckon repair --job $job --report $T/reports/$day --execute"
	assert_not_contains "$ERR" "not found"
	job=$T/nosuch.ini
	assert_exit 2 nightly
	assert_contains "$ERR" "reckon-nightly: configuration or input error (exit 2)"
	export_csv $SRC "select * from mart.orders where order_id = 41 and line_no = 1" back.csv
	import_csv $TGT mart.orders back.csv
}
