#!/bin/sh
# coverage.sh BUILD [check|stamp] - line coverage of what the suites just
# ran against the gcc --coverage build in BUILD (make coverage, make
# coverage-check); "stamp", before the suites run, notes the commit they
# measure (BUILD/measured-commit), which the report names.
#
# Writes BUILD/coverage.txt (per file), BUILD/coverage.json (gcovr's
# summary), BUILD/html/index.html (annotated sources) and BUILD/coverage.md
# (per directory, with the commit, the command and the test counts: what
# reports/coverage.md is a copy of), and prints the lines covered per
# directory of src/.  The extension (src/ext) runs inside the server, which
# is not instrumented, so it is left out.  With "check", exits 1 when a
# directory is below its floor: COVERAGE_FLOORS, "DIR=PERCENT ..." (default:
# src/core, src/io and src/check at 90).
set -eu

build=$1
mode=${2:-report}
floors=${COVERAGE_FLOORS:-src/core=90 src/io=90 src/check=90}
here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)

commit_of_tree() {
	c=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null) || { echo "unknown (not a git checkout)"; return; }
	git -C "$repo" diff --quiet HEAD -- src tests sql tools 2>/dev/null || c="$c + uncommitted changes"
	echo "$c"
}
if [ "$mode" = stamp ]; then
	mkdir -p "$build"
	commit_of_tree >"$build/measured-commit"
	sh "$here/count-tests.sh" >"$build/measured-counts"
	exit 0
fi

if ! command -v gcovr >/dev/null 2>&1; then
	echo "coverage: gcovr not found (tests/harness/deps.sh installs it)" >&2
	exit 1
fi
mkdir -p "$build/html"
gcovr --root . --object-directory "$build/obj" --filter 'src/' --exclude 'src/ext/' --exclude 'src/tools/' \
	--txt "$build/coverage.txt" --json-summary-pretty --json-summary "$build/coverage.json" \
	--html-details "$build/html/index.html" >/dev/null

# per directory: the sum of the files' covered and total lines, as a table
# (TSV: directory, covered, lines, percent, floor note), sorted by name
jq -r '.files[] | [.filename, .line_covered, .line_total] | @tsv' "$build/coverage.json" |
	awk -F '\t' -v floors="$floors" '
	{
		d = $1; sub(/\/[^\/]*$/, "", d)
		cov[d] += $2; tot[d] += $3; all_c += $2; all_t += $3
	}
	END {
		n = split(floors, f, " ")
		for (i = 1; i <= n; i++) { split(f[i], kv, "="); floor[kv[1]] = kv[2] }
		m = 0
		for (d in tot) names[++m] = d
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (names[j] < names[i]) { t = names[i]; names[i] = names[j]; names[j] = t }
		for (i = 1; i <= m; i++) {
			d = names[i]
			pct = tot[d] ? 100 * cov[d] / tot[d] : 100
			note = ""
			if (d in floor)
				note = sprintf("%d%% %s", floor[d], pct + 1e-9 >= floor[d] ? "met" : "NOT MET")
			printf "%s\t%d\t%d\t%.1f%%\t%s\n", d, cov[d], tot[d], pct, note
		}
		printf "total\t%d\t%d\t%.1f%%\t\n", all_c, all_t, all_t ? 100 * all_c / all_t : 100
	}' >"$build/coverage.tsv"

awk -F '\t' 'BEGIN { printf "%-14s %8s %8s %7s  %s\n", "directory", "covered", "lines", "%", "floor" }
	{ printf "%-14s %8d %8d %7s  %s\n", $1, $2, $3, $4, $5 }' "$build/coverage.tsv"

if [ -s "$build/measured-commit" ]; then
	commit=$(cat "$build/measured-commit")
else
	commit="$(commit_of_tree) (at the report; no stamp of the run)"
fi
{
	echo "# Line coverage per directory of src/"
	echo
	echo "- produced by: \`make coverage\` (tests/harness/coverage.sh) at commit $commit, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	[ -s "$build/measured-counts" ] || sh "$here/count-tests.sh" >"$build/measured-counts"
	echo "- suites: $(sed -n 's/^unit: //p' "$build/measured-counts") (unit), $(sed -n 's/^integration: //p' "$build/measured-counts") (integration); $(gcc --version | head -n 1), $(gcovr --version | head -n 1)"
	echo "- floors (make coverage-check): $floors"
	echo
	echo "| directory | lines covered | lines | % | floor |"
	echo "| --- | ---: | ---: | ---: | --- |"
	awk -F '\t' '{ d = $1 == "total" ? "**total**" : "`" $1 "`"; printf "| %s | %d | %d | %s | %s |\n", d, $2, $3, $4, $5 }' "$build/coverage.tsv"
} >"$build/coverage.md"
echo "coverage: per file in $build/coverage.txt, annotated sources in $build/html/index.html, the table in $build/coverage.md"

if [ "$mode" = check ] && grep -q 'NOT MET' "$build/coverage.tsv"; then
	echo "coverage: below a floor (per file: $build/coverage.txt):" >&2
	grep 'NOT MET' "$build/coverage.tsv" | cut -f1,4,5 | sed 's/^/  /' >&2
	exit 1
fi
