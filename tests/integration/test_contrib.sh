# shellcheck shell=bash
# The scheduling example in contrib/systemd: systemd's own reader
# (systemd-analyze verify) accepts the service and the timer, in a throw-away
# root where this build's reckon is installed as /usr/bin/reckon, next to the
# host's unit tree (the targets the units name); the manual pages their
# Documentation= names are this build's.  tests/harness/deps.sh installs
# systemd for systemd-analyze.  The job file the service reads is checked by
# tests/unit/test_contrib.c.

UNITS=(reckon-nightly.service reckon-nightly.timer)

# unit_root DIR - the throw-away root
unit_root() {
	local root=$1 u
	command -v systemd-analyze >/dev/null || fail "systemd-analyze not found (Debian package systemd)"
	[[ -d /usr/lib/systemd/system ]] || fail "no /usr/lib/systemd/system: is systemd installed?"
	mkdir -p "$root/usr/bin" "$root/usr/lib/systemd" "$root/etc/systemd/system" "$root/usr/share/man/man1"
	cp -a /usr/lib/systemd/system "$root/usr/lib/systemd/"
	cp "$RECKON" "$root/usr/bin/reckon"
	cp "${RECKON%/*}"/man/*.1 "$root/usr/share/man/man1/"
	for u in "${UNITS[@]}"; do
		cp "$RK_REPO/contrib/systemd/$u" "$root/etc/systemd/system/"
	done
}

# verify ROOT - systemd-analyze verify; it runs man for Documentation=
verify() {
	MANPATH=$1/usr/share/man systemd-analyze --root="$1" verify "${UNITS[@]}"
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
	rm root/usr/bin/reckon
	assert_exit 1 verify "$T/root"
	assert_contains "$ERR" "Command reckon is not executable"
	unit_root root1
	rm root1/usr/share/man/man1/reckon-check.1
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

# The service runs the command the documentation describes: a job, the last
# day, the metrics into the textfile directory.
test_service_runs_a_job_over_the_last_day_with_metrics() {
	local exec opt i
	local -a words
	exec=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$RK_REPO/contrib/systemd/reckon-nightly.service" | sed 's/\\$//' | tr '\n' ' ')
	read -ra words <<<"${exec#ExecStart=}"
	assert_eq "reckon check" "${words[*]:0:2}"
	for ((i = 2; i < ${#words[@]}; i += 2)); do
		opt="${words[i]} ${words[i + 1]}"
		assert_match "$opt" '^--[a-z-]+ [^-]'
		assert_contains "$RK_REPO/docs/cron.md" "$opt"
	done
	assert_match "$exec" ' --job /etc/reckon/nightly.ini '
	assert_match "$exec" ' --last 1d '
	assert_match "$exec" ' --metrics /var/lib/prometheus/node-exporter/[a-z]+\.prom '
}
