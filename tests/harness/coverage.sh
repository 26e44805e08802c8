#!/bin/sh
# coverage.sh BUILD - line coverage of what the suites just ran against the
# gcc --coverage build in BUILD (make coverage).
#
# Writes BUILD/coverage.txt (per file), BUILD/coverage.json (gcovr's
# summary) and BUILD/html/index.html (annotated sources), and prints the
# lines covered per directory of src/.  The extension (src/ext) runs inside
# the server, which is not instrumented, so it is left out.  Exits 1 when a
# directory is below its floor: COVERAGE_FLOORS, "DIR=PERCENT ..."
# (default: src/core, src/io and src/check at 90).
set -eu

build=$1
floors=${COVERAGE_FLOORS:-src/core=90 src/io=90 src/check=90}

if ! command -v gcovr >/dev/null 2>&1; then
	echo "coverage: gcovr not found (tests/harness/deps.sh installs it)" >&2
	exit 1
fi
mkdir -p "$build/html"
gcovr --root . --object-directory "$build/obj" --filter 'src/' --exclude 'src/ext/' \
	--txt "$build/coverage.txt" --json-summary-pretty --json-summary "$build/coverage.json" \
	--html-details "$build/html/index.html" >/dev/null

# per directory: the sum of the files' covered and total lines
jq -r '.files[] | [.filename, .line_covered, .line_total] | @tsv' "$build/coverage.json" |
	awk -F '\t' -v floors="$floors" '
	{
		d = $1; sub(/\/[^\/]*$/, "", d)
		cov[d] += $2; tot[d] += $3; all_c += $2; all_t += $3
	}
	END {
		n = split(floors, f, " ")
		for (i = 1; i <= n; i++) { split(f[i], kv, "="); floor[kv[1]] = kv[2] }
		printf "%-14s %8s %8s %7s  %s\n", "directory", "covered", "lines", "%", "floor"
		bad = 0
		# sorted by name
		m = 0
		for (d in tot) names[++m] = d
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (names[j] < names[i]) { t = names[i]; names[i] = names[j]; names[j] = t }
		for (i = 1; i <= m; i++) {
			d = names[i]
			pct = tot[d] ? 100 * cov[d] / tot[d] : 100
			note = ""
			if (d in floor) {
				note = sprintf("%d%% %s", floor[d], pct + 1e-9 >= floor[d] ? "met" : "NOT MET")
				if (pct + 1e-9 < floor[d]) bad = 1
			}
			printf "%-14s %8d %8d %6.1f%%  %s\n", d, cov[d], tot[d], pct, note
		}
		printf "%-14s %8d %8d %6.1f%%\n", "total", all_c, all_t, all_t ? 100 * all_c / all_t : 100
		exit bad
	}' || { echo "coverage: below a floor (per file: $build/coverage.txt)" >&2; exit 1; }
echo "coverage: per file in $build/coverage.txt, annotated sources in $build/html/index.html"
