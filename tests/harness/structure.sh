#!/usr/bin/env bash
# structure.sh - the rules of the tree that a compiler does not check
# (CONTRIBUTING.md, issue 24), run by `make structure-check` as part of make
# check:
#   - every file of sql/ is embedded for a reason: some code in src/ uses
#     its rk_sql_<name> (sql/README);
#   - the include graph of src/ (its quoted includes) has no upward arrow: a
#     file includes headers of its own layer and of the layers CONTRIBUTING.md's
#     table lets it include, nothing else;
#   - no comment in src/ or tests/ tells a test's history ("(Failed before:
#     ...)"): what failed before a fix is the fix's commit message;
#   - it has no cycle between modules.  A module is a .c file and its .h (the
#     same path but the extension); X_impl.h is module X's internal header;
#   - no function in src/ is over 120 lines unless the comment just above it
#     says why ("long: REASON"), and no .c or .h file is over 1,200 lines;
#   - but for the temporary exceptions of tests/harness/structure-exceptions
#     (what was over or in a cycle while issue 24's splits landed); an
#     exception that no longer applies is a breach too, so the list shrinks.
# Prints each breach as FILE: what is wrong, and exits 1 if there is one.
# Before the tree, it checks itself on a small tree with a breach of each
# kind planted (self_test): a rule that stopped finding anything fails.
#
# structure.sh [ROOT [EXCEPTIONS]]: the rules of src/ under ROOT (default
# the repository), with EXCEPTIONS (default tests/harness/structure-exceptions);
# the sql/ rule and the self-test run only on the repository itself.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

MAX_FUNC=120
MAX_FILE=1200

# The layers of CONTRIBUTING.md ("Layers: who may include whom"): the
# layers each layer's files may include besides their own.  main is
# src/main.c; ext is the extension (PostgreSQL's headers are not in src/).
declare -A may=(
	[main]="cli core"
	[cli]="report repair lab load check io core"
	[report]="check io core"
	[repair]="load check io core"
	[lab]="load check io core"
	[load]="check io core"
	[check]="io core"
	[io]="core"
	[core]=""
	[ext]="core"
	[tools]="cli io core"
)

declare -A excepted=() used=()
bad=0
breach() {
	printf '%s\n' "$*" >&2
	bad=1
}

layer_of() { # src-relative path -> its layer
	case $1 in
	*/*) printf '%s' "${1%%/*}" ;;
	*) printf 'main' ;;
	esac
}

module_of() { # src-relative path -> its module
	local m=${1%.*}
	printf '%s' "${m%_impl}"
}

# -- sql/: embedded only what the binary uses --------------------------------
check_sql() {
	local used n f
	used=$(grep -rhoE 'rk_sql_[A-Za-z0-9_]+' src --include='*.c' --include='*.h' | sort -u)
	for f in sql/*.sql; do
		n=$(basename "$f" .sql | tr -c 'A-Za-z0-9_\n' '_')
		grep -qx "rk_sql_$n" <<<"$used" ||
			breach "$f: embedded as rk_sql_$n but nothing in src/ uses it (sql/README: move it out of sql/ or delete it)"
	done
}

# -- src/, tests/: no history in comments -----------------------------------
check_history() {
	local hit
	while IFS= read -r hit; do
		breach "$hit: a comment tells what failed before a fix: say it in the fix's commit message, and say here what the code or the test does"
	done < <(grep -rnF '(Failed before' src tests --include='*.c' --include='*.h' --include='*.sh' --exclude=structure.sh | cut -d: -f1,2)
}

# -- src/: the include graph -------------------------------------------------
# Writes "FILE TARGET" for each quoted include of a file of src/ that names a
# file of src/ (from src/ or from the including file's directory); the
# others (PostgreSQL's, generated headers) are outside the graph.
include_edges() {
	local f inc t
	while IFS= read -r f; do
		while IFS= read -r inc; do
			if [[ -f src/$inc ]]; then
				t=$inc
			elif [[ -f $(dirname "$f")/$inc ]]; then
				t=$(realpath -m --relative-to=src "$(dirname "$f")/$inc")
			else
				continue
			fi
			printf '%s %s\n' "${f#src/}" "$t"
		done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/p' "$f")
	done < <(find src -name '*.[ch]' | LC_ALL=C sort)
}

check_includes() {
	local edges f t lf lt d loop=() m
	edges=$(include_edges)
	for d in src/*/; do
		d=${d%/}
		d=${d#src/}
		[[ -v "may[$d]" ]] ||
			breach "src/$d/: not a layer of CONTRIBUTING.md's table (add it there and to structure.sh, saying what it may include)"
	done
	while read -r f t; do
		[[ -n $f ]] || continue
		lf=$(layer_of "$f")
		lt=$(layer_of "$t")
		[[ $lf == "$lt" || " ${may[$lf]:-} " == *" $lt "* ]] ||
			breach "src/$f: includes $t: $lf/ may include ${may[$lf]:-only its own layer}${may[$lf]:+ and itself} (CONTRIBUTING.md, Layers)"
	done <<<"$edges"
	# tsort names the modules of each cycle it finds, in the order of the arrows
	while IFS= read -r m; do
		case $m in
		*"input contains a loop"*)
			((${#loop[@]})) && report_cycle "$edges" "${loop[@]}"
			loop=()
			;;
		tsort:\ *) loop+=("${m#tsort: }") ;;
		esac
	done < <(while read -r f t; do
		[[ -n $f && $(module_of "$f") != "$(module_of "$t")" ]] && printf '%s %s\n' "$(module_of "$f")" "$(module_of "$t")"
	done <<<"$edges" | LC_ALL=C sort -u | LC_ALL=C tsort 2>&1 >/dev/null)
	((${#loop[@]})) && report_cycle "$edges" "${loop[@]}"
	return 0
}

report_cycle() { # EDGES MODULE... : the arrows of one cycle, with their files
	local edges=$1 why="" a b i f t k
	shift
	for ((i = 0; i < $#; i++)); do
		a=${*:i+1:1}
		b=${*:(i + 1) % $# + 1:1}
		while read -r f t; do
			[[ -n $f && $(module_of "$f") == "$a" && $(module_of "$t") == "$b" ]] && why+=" src/$f includes $t;" && break
		done <<<"$edges"
	done
	k=cycle:$(printf '%s\n' "$@" | LC_ALL=C sort | paste -sd,)
	if [[ -v "excepted[$k]" ]]; then
		used[$k]=1
		return 0
	fi
	breach "src/$1: include cycle $(printf '%s -> ' "$@")$1:$why move what both sides need into a module below them"
}

# -- src/: sizes ---------------------------------------------------------------
# "FILE:FUNCTION LINES LONG" for each function definition of the files on
# stdin's list: LINES from the first line of its signature to its closing
# brace, LONG 1 when the comment just above the signature says "long: WHY".
# It reads the layout .clang-format gives every function: the signature from
# column 0, the braces of the body alone on their lines at column 0.
function_lengths() {
	xargs -r awk '
	FNR == 1 { sig = ""; sig_at = 0; incom = 0; com = ""; com_end = -1; body = 0 }
	body {
		if ($0 ~ /^}/) {
			print FILENAME ":" name " " (FNR - sig_at + 1) " " long
			body = 0
			sig = ""
		}
		next
	}
	incom {
		com = com " " $0
		if ($0 ~ /\*\//) { incom = 0; com_end = FNR }
		next
	}
	/^\/\*/ {
		com = $0
		sig = ""
		if ($0 ~ /\*\//) com_end = FNR
		else incom = 1
		next
	}
	/^\/\// { com = $0; com_end = FNR; sig = ""; next }
	/^\{[ \t]*$/ {
		if (sig ~ /\(/) {
			s = sig
			sub(/\(.*/, "", s)
			n = split(s, w, /[^A-Za-z0-9_]+/)
			name = w[n]
			if (name == "" && n > 1) name = w[n - 1]
			long = (com_end == sig_at - 1 && com ~ /long:[ \t]*[A-Za-z]/) ? 1 : 0
			body = 1
		}
		next
	}
	/^[ \t]*$/ || /^#/ { sig = ""; next }
	/^[A-Za-z_]/ {
		if (sig == "") { sig_at = FNR; sig = $0 }
		else sig = sig " " $0
		if ($0 ~ /;[ \t]*$/) sig = ""
		next
	}
	/^[ \t]/ {
		if (sig != "") {
			sig = sig " " $0
			if ($0 ~ /;[ \t]*$/) sig = ""
		}
		next
	}
	{ sig = "" }'
}

check_sizes() {
	local files n f long
	files=$(find src -name '*.[ch]' | LC_ALL=C sort)
	while read -r n f; do
		[[ $f == total || -z $f ]] && continue
		((n > MAX_FILE)) || continue
		if [[ -v "excepted[$f]" ]]; then
			used[$f]=1
		else
			breach "$f: $n lines, over $MAX_FILE: split it by job (CONTRIBUTING.md)"
		fi
	done < <(xargs -r wc -l <<<"$files")
	while read -r f n long; do
		[[ -n $f ]] || continue
		((n > MAX_FUNC && !long)) || continue
		if [[ -v "excepted[$f]" ]]; then
			used[$f]=1
		else
			breach "${f%%:*}: ${f#*:}: $n lines, over $MAX_FUNC: split it, or say why not in a comment just above it (/* long: REASON */)"
		fi
	done < <(function_lengths <<<"$files")
	return 0
}

# The exceptions: "PATH REASON" (a file over the size), "PATH:FUNCTION
# REASON" (a function over it), "cycle:MODULE,MODULE... REASON" (the
# modules of an include cycle, in sorted order), each with its reason.
read_exceptions() { # FILE
	local what reason
	[[ -f $1 ]] || return 0
	while read -r what reason || [[ -n $what ]]; do
		[[ -z $what || $what == \#* ]] && continue
		[[ -n $reason ]] ||
			breach "$1: $what: an exception says why (PATH[:FUNCTION] REASON, or cycle:MODULES REASON)"
		excepted[$what]=1
	done <"$1"
}

stale_exceptions() { # FILE
	local k
	for k in "${!excepted[@]}"; do
		[[ -v "used[$k]" ]] ||
			breach "$1: $k no longer applies (not over the limit, a long: comment, no such cycle): delete its line"
	done
	return 0
}

check_src() { # EXCEPTIONS
	read_exceptions "$1"
	check_includes
	check_sizes
	stale_exceptions "$1"
}

# -- the checks, checked ---------------------------------------------------------
# A tree with one breach of each kind, and the things that are not breaches
# (an internal header, a long function that says why, an exception): the
# breaches reported must be exactly the ones planted.
self_test() {
	local t got want i
	t=$(mktemp -d "${TMPDIR:-/tmp}/rk-structure.XXXXXX")
	mkdir -p "$t/src/core" "$t/src/io" "$t/src/check" "$t/src/cli"
	printf '#include "check/b.h"\n' >"$t/src/check/a.c"
	printf '#include "check/a.h"\n' >"$t/src/check/b.c"
	: >"$t/src/check/a.h"
	: >"$t/src/check/b.h"
	printf '#include "io/r_impl.h"\n#include "core/x.h"\n' >"$t/src/io/r.c"
	printf '#include "io/r.h"\n' >"$t/src/io/r_impl.h"
	printf '#include "core/x.h"\n' >"$t/src/io/r.h"
	printf '#include "check/a.h"\n#include "../check/b.h"\n#include "../core/x.h"\n#include "postgres.h"\n' >"$t/src/io/up.c"
	: >"$t/src/core/x.h"
	printf '#include "io/d.h"\n' >"$t/src/io/c.h"
	printf '#include "io/c.h"\n' >"$t/src/io/d.h"
	{
		body() { # NAME LINES: a function of LINES lines
			printf 'static int %s(int a,\n\t\tint b)\n{\n' "$1"
			for ((i = 4; i < $2; i++)); do printf '\ta += b;\n'; done
			printf '}\n\n'
		}
		body fits 120
		body too_long 121
		printf '/* What it does.\n * long: one table of cases, read top to bottom */\n'
		body says_why 150
		printf '/* long: the comment is not just above it */\n\n'
		body detached 121
		body excepted 130
		printf 'static const int table[] = {\n'
		for ((i = 0; i < 130; i++)); do printf '\t%d,\n' "$i"; done
		printf '};\n'
	} >"$t/src/cli/f.c"
	for ((i = 0; i < 1201; i++)); do printf '/* %d */\n' "$i"; done >"$t/src/cli/big.c"
	for ((i = 0; i < 1201; i++)); do printf '/* %d */\n' "$i"; done >"$t/src/cli/bigok.c"
	cat >"$t/exc" <<-'EOF'
		# comment
		src/cli/f.c:excepted being split
		src/cli/bigok.c being split
		src/cli/gone.c split already
		src/cli/f.c:fits
		cycle:io/c,io/d being untied
		cycle:core/p,core/q untied already
	EOF
	got=$(bash "$here/structure.sh" "$t" "$t/exc" 2>&1 >/dev/null | LC_ALL=C sort) || true
	want=$(
		LC_ALL=C sort <<-EOF
			$t/exc: cycle:core/p,core/q no longer applies (not over the limit, a long: comment, no such cycle): delete its line
			$t/exc: src/cli/f.c:fits no longer applies (not over the limit, a long: comment, no such cycle): delete its line
			$t/exc: src/cli/f.c:fits: an exception says why (PATH[:FUNCTION] REASON, or cycle:MODULES REASON)
			$t/exc: src/cli/gone.c no longer applies (not over the limit, a long: comment, no such cycle): delete its line
			src/check/a: include cycle check/a -> check/b -> check/a: src/check/a.c includes check/b.h; src/check/b.c includes check/a.h; move what both sides need into a module below them
			src/cli/big.c: 1201 lines, over 1200: split it by job (CONTRIBUTING.md)
			src/cli/f.c: detached: 121 lines, over 120: split it, or say why not in a comment just above it (/* long: REASON */)
			src/cli/f.c: too_long: 121 lines, over 120: split it, or say why not in a comment just above it (/* long: REASON */)
			src/io/up.c: includes check/a.h: io/ may include core and itself (CONTRIBUTING.md, Layers)
			src/io/up.c: includes check/b.h: io/ may include core and itself (CONTRIBUTING.md, Layers)
			structure: the tree breaks the rules above (tests/harness/structure.sh, CONTRIBUTING.md)
		EOF
	)
	rm -rf "$t"
	if [[ $got != "$want" ]]; then
		echo "structure: the self-test's tree was not judged as planted (tests/harness/structure.sh, self_test)" >&2
		diff <(echo "$want") <(echo "$got") >&2 || true
		exit 1
	fi
}

if [[ $# -gt 0 ]]; then
	root=$1
	exc=${2:-$root/tests/harness/structure-exceptions}
	cd "$root"
	check_src "$exc"
else
	self_test
	cd "$repo"
	check_sql
	check_history
	check_src tests/harness/structure-exceptions
fi

if [[ $bad -ne 0 ]]; then
	echo "structure: the tree breaks the rules above (tests/harness/structure.sh, CONTRIBUTING.md)" >&2
	exit 1
fi
echo "structure: sql/ embeds only what src/ uses; src/ has no upward include, no include cycle, no function over $MAX_FUNC lines without a reason, no file over $MAX_FILE lines (but tests/harness/structure-exceptions)"
