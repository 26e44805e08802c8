# shellcheck shell=bash
# The manual pages and the bash completion that rk-docgen writes from the
# option table at build time (src/tools/docgen.c, docs/man/): every option that
# `reckon COMMAND --help` lists is in reckon-COMMAND(1) and completes after
# `reckon COMMAND --`, and nothing else is.  They sit next to the binary:
# BUILD/man/, BUILD/completion/reckon.

MAN_DIR=${RECKON%/*}/man
COMPLETION=${RECKON%/*}/completion/reckon

# The commands `reckon --help` lists, one "NAME SUMMARY" per line.
help_commands() {
	"$RECKON" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit }
		on { name = $1; sub(/^ *[^ ]+ +/, ""); print name, $0 }'
}

# The options `reckon CMD --help` lists, sorted, one per line (the long form
# of -v, --verbose).
help_options() {
	"$RECKON" "$1" --help | sed -nE 's/^  (-[a-zA-Z], )?(--[a-z0-9-]+).*/\2/p' | LC_ALL=C sort
}

# A page rendered as plain text by groff (what man shows), wide enough that
# no option tag wraps.
render() {
	LC_ALL=C.UTF-8 groff -man -Tutf8 -rLL=200n -P-cbou "$1"
}

# The rendering of the page PAGE.1 of the build, made once by setup_file.
text() {
	echo "$RK_SCRATCH/text/$1.txt"
}

setup_file() {
	local page
	mkdir -p "$RK_SCRATCH/text"
	for page in "$MAN_DIR"/*.1; do
		render "$page" >"$(text "$(basename "$page" .1)")"
	done
}

# The options a rendered page describes: the tags of its OPTIONS section
# (FILES, say, may have tags named after options too), sorted.
text_options() {
	sed -n '/^OPTIONS$/,/^[A-Z]/p' "$1" |
		sed -nE 's/^       (-[a-zA-Z], )?(--[a-z0-9-]+)( .*|\[.*)?$/\2/p' | LC_ALL=C sort -u
}

VERSION=$(sed -nE 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$RK_REPO/Makefile")

test_every_option_of_every_command_is_in_its_page() {
	local name summary n=0
	while read -r name summary; do
		assert_file "$MAN_DIR/reckon-$name.1"
		help_options "$name" >"help-$name"
		text_options "$(text "reckon-$name")" >"page-$name"
		[[ -s help-$name ]] || fail "reckon $name --help lists no options"
		assert_file_eq "page-$name" "help-$name"
		# the NAME line is the summary `reckon --help` gives
		assert_contains "$(sed -n '/^NAME/{n;p;q}' "$(text "reckon-$name")")" "reckon-$name - $summary"
		n=$((n + 1))
	done < <(help_commands)
	[[ $n -ge 5 ]] || fail "reckon --help lists $n commands"
}

# The comparison above would notice: a page without one option's entry no
# longer lists the options --help does.
test_a_page_missing_an_option_is_noticed() {
	help_options check >help
	text_options "$(text reckon-check)" >page
	assert_file_eq page help
	# drop the entry (.TP, tag, help lines) of --settle from a copy
	awk '/^\.TP$/ { tp = NR; held = $0; next }
		NR == tp + 1 && /settle/ { skip = 1; next }
		NR == tp + 1 { print held }
		skip && /^\./ { skip = 0 }
		!skip' "$MAN_DIR/reckon-check.1" >reckon-check.1
	render reckon-check.1 >reckon-check.txt
	text_options reckon-check.txt >page-missing
	assert_not_contains page-missing --settle
	if cmp -s page-missing help; then
		fail "a page without --settle still matched --help"
	fi
	_rk_ok
}

test_reckon_page_lists_every_command_and_the_global_options() {
	local name summary
	assert_file "$MAN_DIR/reckon.1"
	cp "$(text reckon)" reckon.txt
	while read -r name summary; do
		assert_contains reckon.txt "       reckon $name"
		assert_contains reckon.txt "reckon-$name(1)"
	done < <(help_commands)
	for o in --config --verbose --help --version; do
		assert_contains reckon.txt "$o"
	done
	assert_contains reckon.txt "EXIT STATUS"
	assert_contains reckon.txt RECKON_COPY_FORMAT
}

test_pages_carry_the_version_and_render_without_warnings() {
	local page n=0
	assert_exit 0 "$RECKON" --version
	assert_eq "reckon $VERSION" "$(cat "$OUT")"
	for page in "$MAN_DIR"/*.1; do
		LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>warnings
		[[ ! -s warnings ]] || fail "groff warns about ${page##*/}: $(cat warnings)"
		assert_contains "$(grep -v '^$' "$(text "$(basename "$page" .1)")" | tail -n 1)" "reckon $VERSION"
		n=$((n + 1))
	done
	[[ $n -ge 6 ]] || fail "only $n pages in $MAN_DIR"
}

# Runs the completion function in a fresh bash for the words given (the last
# is the one being completed); prints the candidates, one per line, sorted.
complete_words() {
	bash --norc --noprofile -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_reckon
		printf "%s\n" "${COMPREPLY[@]}"' complete-words "$COMPLETION" "$@" | sed '/^$/d' | LC_ALL=C sort
}

test_completion_offers_the_options_of_each_command() {
	local name summary
	assert_file "$COMPLETION"
	assert_eq "complete -F _reckon reckon" "$(bash --norc --noprofile -c '. "$1" && complete -p reckon' x "$COMPLETION")"
	while read -r name summary; do
		help_options "$name" >"help-$name"
		complete_words reckon "$name" -- >"completed-$name"
		assert_file_eq "completed-$name" "help-$name"
	done < <(help_commands)
	# every command reckon runs is completed (the table may know commands
	# that main.c does not run yet)
	help_commands | awk '{ print $1 }' | LC_ALL=C sort >commands
	complete_words reckon "" >completed-commands
	assert_eq "" "$(LC_ALL=C comm -23 commands completed-commands)" "commands not completed"
	assert_contains completed-commands help
	assert_eq check "$(complete_words reckon -v ch)"
	assert_eq check "$(complete_words reckon --config x.ini ch)"
}

test_completion_of_values_and_of_options_given_already() {
	mkdir reports
	: >rerun.csv
	assert_eq "json
text" "$(complete_words reckon check --format '')"
	assert_eq json "$(complete_words reckon check --format = j)"
	assert_eq "auto
off
on" "$(complete_words reckon check --pushdown =)"
	assert_eq rerun.csv "$(complete_words reckon check --rerun-list rer)"
	assert_eq reports "$(complete_words reckon check --report rep)"
	# --source once given is not offered again; the repeatable --source-expr is
	assert_eq "--source-expr
--source-table
--source-where" "$(complete_words reckon check --source x --so)"
	assert_eq "--source-expr" "$(complete_words reckon check --source-expr a=b --source-e)"
	# a flag takes no value: the word after it is an option again
	assert_eq "--rerun-list" "$(complete_words reckon repair --execute --rer)"
	assert_eq "" "$(complete_words reckon nosuchcommand --)"
}

test_completion_of_strategies_job_labels_and_help() {
	# --strategy: the loader's own names (src/load/strategy.c), as reckon load accepts them
	complete_words reckon load --strategy '' >strategies
	assert_eq 7 "$(wc -l <strategies)" "strategies offered"
	assert_contains strategies write-first-keyed
	assert_eq "interval
interval-closed" "$(complete_words reckon load --strategy inter)"
	local s
	while read -r s; do
		"$RECKON" load --strategy "$s" --source 'host=/nonexistent' --table t --key k --time c >/dev/null 2>err.txt || true
		assert_not_contains err.txt "unknown strategy"
	done <strategies
	# --only: the labels of the --job file on the line, after those typed already
	printf '[defaults]\nwindow = 1h\n\n[table orders]\ntable = a\n\n[table we.ird-1]\ntable = b\n ;[table commented]\n' >job.ini
	assert_eq "orders
we.ird-1" "$(complete_words reckon check --job job.ini --only '')"
	assert_eq "orders,we.ird-1" "$(complete_words reckon check --job=job.ini --only orders,)"
	assert_eq "" "$(complete_words reckon check --only '')"
	# reckon help COMMAND
	assert_eq "check" "$(complete_words reckon help ch)"
	assert_eq "" "$(complete_words reckon help check '')"
}

# --help fits an 80-column terminal and says only what applies to its
# command; reckon help COMMAND prints the same.
test_help_fits_80_columns_and_speaks_of_its_command() {
	local name summary
	while read -r name summary; do
		assert_exit 0 "$RECKON" "$name" --help
		cp "$OUT" "help-$name"
		assert_eq "" "$(awk 'length($0) > 80 { print FILENAME ":" FNR ": " length($0) }' "help-$name")" \
			"lines wider than 80 columns in reckon $name --help"
		assert_exit 0 "$RECKON" help "$name"
		assert_file_eq "$OUT" "help-$name"
	done < <(help_commands)
	assert_exit 0 "$RECKON" --help
	assert_eq "" "$(awk 'length($0) > 80' "$OUT")" "lines wider than 80 columns in reckon --help"
	assert_contains "$OUT" "reckon help COMMAND"
	# another command's use of an option is not in this command's help
	assert_not_contains help-check "repair:"
	assert_not_contains help-check "the rerun list to replay"
	assert_contains help-check "write the rerun list (CSV) to FILE"
	assert_not_contains help-repair "write windows.csv"
	assert_contains help-repair "the rerun list to replay"
	assert_not_contains help-check "load: default the source"
	assert_contains help-load "(default: the source)"
	# wrapped, not cut: every word of an option's help is there
	assert_contains "$(tr -s ' \n' ' ' <help-check)" "print no summary line on stderr when differences are found"
	assert_exit 2 "$RECKON" help nosuchcommand
	assert_contains "$ERR" "unknown command 'nosuchcommand'"
	assert_exit 2 "$RECKON" help check extra
}
