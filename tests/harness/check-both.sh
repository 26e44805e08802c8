#!/usr/bin/env bash
# check-both.sh MAKE - the suite's two passes side by side: the build with
# warnings as errors, and the same under AddressSanitizer + UBSan
# (build/asan).  Each pass builds its own tree and starts its own private
# PostgreSQL, so they share nothing but the extension, which `make check`
# builds and installs once before.  Most of a pass is spent waiting on
# processes and the server, so on two cores the pair takes little more than
# the sanitized pass alone.
#
# Each pass writes its log (build/check-plain.log, build/check-asan.log);
# both logs are printed in full when the pair is done, the failing one last.
# Exits 1 when either failed.
set -uo pipefail
make=${1:-make}
mkdir -p build
logs=(build/check-plain.log build/check-asan.log)
names=(plain "ASan+UBSan")
args=("WERROR=1 check-one" "WERROR=1 SANITIZE=1 BUILD=build/asan check-one")
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; exit 130' INT TERM
for i in 0 1; do
	echo "check: the ${names[$i]} pass, logging to ${logs[$i]}" >&2
	# shellcheck disable=SC2086
	RK_EXT_SKIP_INSTALL=1 $make --no-print-directory ${args[$i]} >"${logs[$i]}" 2>&1 &
	pids+=($!)
done
rc=()
for i in 0 1; do
	wait "${pids[$i]}"
	rc+=($?)
done
order=(0 1)
((rc[0] != 0 && rc[1] == 0)) && order=(1 0)
for i in "${order[@]}"; do
	echo "==== the ${names[$i]} pass (${logs[$i]}): exit status ${rc[$i]} ===="
	cat "${logs[$i]}"
done
status=0
for i in 0 1; do
	if ((rc[i] != 0)); then
		echo "check: the ${names[$i]} pass failed (exit status ${rc[$i]}); its log: ${logs[$i]}" >&2
		status=1
	fi
done
exit $status
