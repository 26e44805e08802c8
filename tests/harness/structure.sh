#!/usr/bin/env bash
# structure.sh - the rules of the tree that a compiler does not check
# (CONTRIBUTING.md), run by `make structure-check` as part of make check:
#   - every file of sql/ is embedded for a reason: some code in src/ uses
#     its rk_sql_<name> (sql/README).
# Prints each breach as FILE: what is wrong, and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

bad=0
breach() {
	printf '%s\n' "$*" >&2
	bad=1
}

# -- sql/: embedded only what the binary uses --------------------------------
used=$(grep -rhoE 'rk_sql_[A-Za-z0-9_]+' src --include='*.c' --include='*.h' | sort -u)
for f in sql/*.sql; do
	n=$(basename "$f" .sql | tr -c 'A-Za-z0-9_\n' '_')
	grep -qx "rk_sql_$n" <<<"$used" ||
		breach "$f: embedded as rk_sql_$n but nothing in src/ uses it (sql/README: move it out of sql/ or delete it)"
done

if [[ $bad -ne 0 ]]; then
	echo "structure: the tree breaks the rules above (tests/harness/structure.sh, CONTRIBUTING.md)" >&2
	exit 1
fi
echo "structure: sql/ embeds only what src/ uses"
