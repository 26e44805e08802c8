# shellcheck shell=bash disable=SC2054
# The command line: --help, --version, --config INI files, and usage or
# configuration errors (exit 2, the message names the culprit).

SRC=ck_cli_src
TGT=ck_cli_tgt

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
	mk_orders $TGT
	sql $SRC "create table mart.customers (id integer, name text, ts timestamptz)" >/dev/null
	sql $TGT "delete from mart.orders where order_id = 16 and line_no = 1" >/dev/null
}

# A valid check; each usage case breaks exactly one thing of it.
check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS_OPTS[@]}" "$@"
}

test_help_and_version() {
	assert_exit 0 rk --help
	assert_contains "$OUT" check
	local version
	version=$(sed -n 's/^VERSION *:= *//p' "$RK_REPO/Makefile")
	assert_exit 0 rk --version
	assert_contains "$OUT" "$version"
	assert_exit 0 rk check --help
	local opt
	for opt in --source --target --table --source-table --target-table --key --time --sum --columns \
		--types --csv-delimiter --csv-null --config --from --to --window --settle --now \
		--rerun-list --report --format --jobs -v; do
		assert_contains "$OUT" "$opt"
	done
}

test_no_command_or_unknown_command() {
	assert_exit 2 rk
	[[ -s $ERR ]] || fail "no usage message on stderr"
	assert_exit 2 rk frobnicate
	assert_contains "$ERR" frobnicate
}

test_unknown_option() {
	assert_exit 2 check --bogus-option
	assert_contains "$ERR" --bogus-option
	assert_exit 2 check --window
	assert_contains "$ERR" --window
}

test_missing_required_options() {
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders \
		--time created_at --from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h
	assert_contains "$ERR" --key
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders \
		--key order_id,line_no --from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h
	assert_contains "$ERR" --time
	assert_exit 2 rk check --source "$(conn $SRC)" --table mart.orders \
		--key order_id,line_no --time created_at --from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h
	assert_contains "$ERR" --target
}

# The message names the option (with or without its dashes) and the value.
assert_names_option() {
	grep -qE -- "(^|[^a-z-])(--)?$1([^a-z-]|$)" "$ERR" || fail "the message does not name $1: $(cat "$ERR")"
	assert_contains "$ERR" "$2"
}

test_bad_time_options() {
	assert_exit 2 check --from 2026-03-02T25:00:00Z
	assert_names_option from 2026-03-02T25:00:00Z
	assert_exit 2 check --from yesterday
	assert_names_option from yesterday
	# no zone: ambiguous
	assert_exit 2 check --to 2026-03-02T04:00:00
	assert_names_option to 2026-03-02T04:00:00
	assert_exit 2 check --now 2026-13-01T00:00:00Z
	assert_names_option now 2026-13-01T00:00:00Z
}

test_bad_durations() {
	assert_exit 2 check --window 5x
	assert_names_option window 5x
	assert_exit 2 check --window 0s
	assert_names_option window 0s
	assert_exit 2 check --settle ten
	assert_names_option settle ten
}

test_from_not_before_to() {
	assert_exit 2 check --from 2026-03-02T04:00:00Z --to 2026-03-02T00:00:00Z
	assert_contains "$ERR" --from
	assert_contains "$ERR" --to
	assert_exit 2 check --from 2026-03-02T04:00:00Z --to 2026-03-02T04:00:00Z
	assert_contains "$ERR" --from
}

test_range_not_whole_windows() {
	assert_exit 2 check --to 2026-03-02T03:30:00Z
	assert_contains "$ERR" --window
	assert_exit 2 check --window 7m
	assert_contains "$ERR" --window
}

test_bad_format_and_jobs() {
	assert_exit 2 check --format xml
	assert_contains "$ERR" --format
	assert_exit 2 check --jobs 0
	assert_contains "$ERR" --jobs
	assert_exit 2 check --jobs many
	assert_contains "$ERR" --jobs
}

test_unknown_table_lists_tables() {
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.ordres "${ORDERS_CHECK[@]}"
	assert_contains "$ERR" mart.ordres
	assert_contains "$ERR" orders
	# on the target side only
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" \
		--source-table mart.customers --target-table mart.customers --key id --time ts \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --window 1h
	assert_contains "$ERR" mart.customers
}

test_unknown_column_lists_columns() {
	assert_exit 2 check --sum amout
	assert_contains "$ERR" amout
	assert_contains "$ERR" amount
	assert_exit 2 check --key order_idd,line_no
	assert_contains "$ERR" order_idd
	assert_contains "$ERR" order_id
	assert_exit 2 check --columns order_id,line_no,created_at,amount,notes
	assert_contains "$ERR" notes
}

test_unsuitable_column_types() {
	assert_exit 2 check --sum note
	assert_contains "$ERR" note
	assert_exit 2 check --time amount
	assert_contains "$ERR" amount
}

write_config() {
	cat >"$1" <<-EOF
		# reckon check configuration
		; both comment styles
		${2:-[check]}
		source = $(conn $SRC)
		target = $(conn $TGT)
		table = mart.orders
		key = order_id,line_no
		time = created_at
		sum = amount
		from = 2026-03-02T00:00:00Z
		to = 2026-03-02T04:00:00Z
		window = 1h
		now = 2026-03-03T00:00:00Z
	EOF
}

test_config_file() {
	mkdir cli ini plain
	assert_exit 1 check --report cli --rerun-list cli.csv
	write_config check.ini
	assert_exit 1 rk check --config check.ini --report ini --rerun-list ini.csv
	assert_file_eq ini/windows.csv cli/windows.csv
	assert_file_eq ini/findings.csv cli/findings.csv
	assert_file_eq ini.csv cli.csv
	# without a section
	write_config plain.ini " "
	assert_exit 1 rk check --config plain.ini --report plain
	assert_file_eq plain/windows.csv cli/windows.csv
}

test_command_line_wins_over_config() {
	write_config check.ini
	mkdir rep
	assert_exit 1 rk check --config check.ini --window 2h --report rep
	assert_eq "match differ" "$(statuses rep/windows.csv)"
	assert_eq "2026-03-02T02:00:00Z,2026-03-02T04:00:00Z" "$(sed -n 3p rep/windows.csv | cut -d, -f1-2)"
	# the other order on the command line makes no difference
	assert_exit 1 rk check --window 2h --config check.ini --report rep
	assert_eq "match differ" "$(statuses rep/windows.csv)"
	# a command-line --to that cuts the damaged window off
	assert_exit 0 rk check --config check.ini --to 2026-03-02T03:00:00Z --report rep
	assert_eq "match match match" "$(statuses rep/windows.csv)"
}

test_config_errors() {
	assert_exit 2 rk check --config no-such.ini
	assert_contains "$ERR" no-such.ini
	write_config bad-key.ini
	echo "windwo = 1h" >>bad-key.ini
	assert_exit 2 rk check --config bad-key.ini
	assert_contains "$ERR" windwo
	write_config bad-value.ini
	sed -i 's/^window = 1h/window = 1 hour/' bad-value.ini
	assert_exit 2 rk check --config bad-value.ini
	assert_contains "$ERR" window
}

# The INI rules (docs/reference.md): lines of any length, comments only at the
# start of a line, a key given twice is an error naming both lines, the
# command's own section wins over [reckon].
test_config_ini_rules() {
	mkdir cli long sect
	assert_exit 1 check --report cli
	# a long filter (3 kB on one line) and a ';' inside a value
	write_config long.ini
	printf 'source-where = order_id not in (%s) and note <> %s\n' \
		"$(seq -s, 100000 100600)" "'a;b #c'" >>long.ini
	assert_eq 1 "$(awk 'length > 3000' long.ini | wc -l)"
	assert_exit 1 rk check --config long.ini --report long
	assert_file_eq long/windows.csv cli/windows.csv
	# [check] wins over [reckon], whatever the order in the file
	write_config body.ini "[reckon]"
	{
		echo "[check]"
		echo "window = 2h"
		cat body.ini
		echo "[check]"
		echo "; window = 4h"
	} >sect.ini
	assert_exit 1 rk check --config sect.ini --report sect
	assert_eq "match differ" "$(statuses sect/windows.csv)"
	# a key given twice
	write_config dup.ini
	echo "window = 2h" >>dup.ini
	assert_exit 2 rk check --config dup.ini
	assert_contains "$ERR" "dup.ini:14: key 'window' is given twice in [check] (first at line 12)"
	# a key of another command in the command's own section; in [reckon] it is skipped
	write_config own.ini
	echo "execute = true" >>own.ini
	assert_exit 2 rk check --config own.ini
	assert_contains "$ERR" "own.ini:14: 'execute' is not an option of reckon check"
	write_config shared.ini "[reckon]"
	echo "execute = true" >>shared.ini
	assert_exit 1 rk check --config shared.ini
	# not an INI file at all, a directory, a huge stream
	assert_exit 2 rk check --config /dev/zero
	assert_contains "$ERR" "config file '/dev/zero' is larger than"
	assert_exit 2 rk check --config .
	assert_contains "$ERR" "config file '.' is a directory"
	printf '[job\n' >bad.ini
	assert_exit 2 rk check --config bad.ini
	assert_contains "$ERR" "bad.ini:1: malformed section header"
	printf '[defaults]\nwindow = 1h\n' >job.ini
	assert_exit 2 rk check --config job.ini
	assert_contains "$ERR" "a job file is read with --job FILE"
}

# Options may come before the command; durations take long unit names.
test_global_options_and_duration_units() {
	mkdir a b
	assert_exit 1 check --report a --window 1h
	assert_exit 1 rk -v --report b check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount --from 2026-03-02T00:00:00Z \
		--to 2026-03-02T04:00:00Z --window 60min --now 2026-03-03T00:00:00Z
	assert_file_eq b/windows.csv a/windows.csv
	assert_contains "$ERR" "checking 4 closed of 4 windows"
	for d in 3600s 3600sec 60m 60mins 1hour 1hours 1h; do
		assert_exit 1 check --report b --window "$d"
		assert_file_eq b/windows.csv a/windows.csv
	done
	assert_exit 2 check --window 1fortnight
	assert_contains "$ERR" "--window"
	assert_exit 2 rk --window
	assert_exit 0 rk --help
	assert_contains "$OUT" "commands:"
}
