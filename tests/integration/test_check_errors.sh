# shellcheck shell=bash disable=SC2054
# Runtime errors (exit 3): unreachable servers, wrong passwords, failing
# queries, unwritable outputs.  Passwords never appear in a message or a
# file, and a failed run never leaves a half-written (or a clobbered) file.

SRC=ck_err_src
TGT=ck_err_tgt
PW=sekret-pw

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
	mk_orders $TGT
	sql $TGT "delete from mart.orders where order_id = 16 and line_no = 1" >/dev/null
	sql postgres "drop role if exists noread; create role noread login" >/dev/null
}

# pwuser over TCP, password in a conninfo string / in a URI
pw_conn() { echo "host=127.0.0.1 port=$PGPORT user=pwuser password=${2:-$PW} dbname=$1"; }
pw_uri() { echo "postgresql://pwuser:${2:-$PW}@127.0.0.1:$PGPORT/$1"; }

check_pair() {
	rk check --source "$1" --target "$2" "${ORDERS_OPTS[@]}" "${@:3}"
}

test_unreachable_server() {
	local port
	port=$(closed_port)
	mkdir rep
	assert_exit 3 check_pair "$(conn $SRC)" "host=127.0.0.1 port=$port dbname=$TGT" --report rep --rerun-list rerun.csv
	assert_contains "$ERR" "$port"
	assert_dir_only rep
	assert_no_file rerun.csv
	assert_exit 3 check_pair "host=127.0.0.1 port=$port dbname=$SRC" "$(conn $TGT)"
	assert_contains "$ERR" "$port"
}

test_database_does_not_exist() {
	assert_exit 3 check_pair "$(conn $SRC)" "$(conn no_such_database)"
	assert_contains "$ERR" no_such_database
}

test_wrong_password() {
	local bad=wr0ng-Secret-77
	assert_exit 3 check_pair "$(conn $SRC)" "$(pw_conn $TGT $bad)"
	assert_contains "$ERR" "password authentication failed"
	assert_not_contains "$ERR" "$bad"
	assert_exit 3 check_pair "$(pw_uri $SRC $bad)" "$(conn $TGT)"
	assert_contains "$ERR" "password authentication failed"
	assert_not_contains "$ERR" "$bad"
	# with logging turned up
	assert_exit 3 check_pair "$(pw_uri $SRC $bad)" "$(pw_conn $TGT $bad)" -v -v
	assert_not_contains "$ERR" "$bad"
	assert_not_contains "$OUT" "$bad"
}

# The right password works, and is nowhere to be seen afterwards.
test_password_never_written() {
	mkdir saved
	assert_exit 1 check_pair "$(pw_conn $SRC)" "$(pw_uri $TGT)" -v -v --format json \
		--report saved/rep --rerun-list saved/rerun.csv
	assert_eq differ "$(jget "$OUT" .verdict)"
	assert_file saved/rep/windows.csv
	assert_file saved/rerun.csv
	cp "$OUT" saved/stdout
	cp "$ERR" saved/stderr
	# failures after connecting: unknown table, unknown column
	assert_exit 2 rk check --source "$(pw_conn $SRC)" --target "$(pw_uri $TGT)" --table mart.nope "${ORDERS_CHECK[@]}" -v -v
	cat "$OUT" "$ERR" >saved/unknown-table
	assert_exit 2 check_pair "$(pw_conn $SRC)" "$(pw_uri $TGT)" --sum nope -v -v
	cat "$OUT" "$ERR" >saved/unknown-column
	# a failure while connecting: the target database is missing
	assert_exit 3 check_pair "$(pw_conn $SRC)" "$(pw_uri no_such_db)" -v -v
	cat "$OUT" "$ERR" >saved/no-db
	if grep -rlF -- "$PW" saved; then
		fail "the password appears in the files above"
	fi
	_rk_ok
}

# A query that fails while the rows stream: a view dividing by zero on one row.
test_query_failure_is_runtime_error() {
	local db
	for db in $SRC $TGT; do
		sql "$db" "create or replace view mart.orders_v as
		         select order_id, line_no, created_at, amount / (order_id - 12) as amount from mart.orders" >/dev/null
	done
	mkdir rep
	assert_exit 3 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders_v \
		"${ORDERS_CHECK[@]}" --report rep --rerun-list rerun.csv
	assert_contains "$ERR" "division by zero"
	assert_dir_only rep
	assert_no_file rerun.csv
}

# A role without the right to read the table: a configuration error (exit 2)
# with a hint, the way reckon classifies SQLSTATE 42501 (insufficient privilege).
test_missing_privilege_is_configuration_error() {
	assert_exit 2 check_pair "$(conn $SRC)" "host=$PGHOST port=$PGPORT user=noread dbname=$TGT"
	assert_contains_i "$ERR" "permission denied"
	assert_contains "$ERR" noread
}

test_unwritable_report_dir() {
	mkdir w
	echo "a file" >w/afile
	# a path that cannot be a directory is the option's error, found
	# before any work (exit 2); a directory reckon may not write is a
	# runtime error (exit 3)
	assert_exit 2 check_pair "$(conn $SRC)" "$(conn $TGT)" --report w/afile
	assert_contains "$ERR" w/afile
	assert_eq "a file" "$(cat w/afile)"
	assert_exit 2 check_pair "$(conn $SRC)" "$(conn $TGT)" --report w/afile/sub
	assert_contains "$ERR" w/afile
	assert_dir_only w afile
	if [[ $EUID -ne 0 ]]; then
		mkdir w/ro
		chmod 0555 w/ro
		assert_exit 3 check_pair "$(conn $SRC)" "$(conn $TGT)" --report w/ro
		assert_dir_only w/ro
		chmod 0755 w/ro
	fi
}

test_unwritable_rerun_list() {
	mkdir w w/rep w/adir
	echo "a file" >w/afile
	assert_exit 3 check_pair "$(conn $SRC)" "$(conn $TGT)" --report w/rep --rerun-list w/afile/rerun.csv
	assert_contains "$ERR" w/afile/rerun.csv
	assert_exit 3 check_pair "$(conn $SRC)" "$(conn $TGT)" --rerun-list w/adir
	assert_contains "$ERR" w/adir
	assert_dir_only w/adir
	assert_dir_only w adir afile rep
	# no temporary or partial report files
	local f
	for f in w/rep/*; do
		[[ -e $f ]] || continue
		case ${f##*/} in
		windows.csv | findings.csv | summary.json) ;;
		*) fail "leftover file $f" ;;
		esac
	done
	_rk_ok
}

# A failed run leaves the previous rerun list and report exactly as they were.
test_failed_run_keeps_previous_files() {
	local port
	port=$(closed_port)
	mkdir rep
	echo OLD >rerun.csv
	echo OLD >rep/windows.csv
	echo OLD >rep/findings.csv
	echo OLD >rep/summary.json
	assert_exit 3 check_pair "$(conn $SRC)" "host=127.0.0.1 port=$port dbname=$TGT" --report rep --rerun-list rerun.csv
	assert_exit 2 check_pair "$(conn $SRC)" "$(conn $TGT)" --sum no_such_column --report rep --rerun-list rerun.csv
	assert_eq OLD "$(cat rerun.csv)"
	assert_eq "OLD OLD OLD" "$(cat rep/windows.csv rep/findings.csv rep/summary.json | tr '\n' ' ' | sed 's/ $//')"
	assert_dir_only rep findings.csv summary.json windows.csv
	# and a good run replaces them whole
	assert_exit 1 check_pair "$(conn $SRC)" "$(conn $TGT)" --report rep --rerun-list rerun.csv
	assert_eq "$RERUN_HEADER" "$(head -n 1 rerun.csv)"
	assert_eq "$WINDOWS_HEADER_AMOUNT" "$(head -n 1 rep/windows.csv)"
	assert_dir_only rep findings.csv report.html rerun.csv summary.json windows.csv
}

# A report directory that a failed run created is removed again; one that
# existed before stays (empty, as it was).
test_failed_run_removes_the_report_dir_it_made() {
	local port
	port=$(closed_port)
	assert_exit 3 check_pair "$(conn $SRC)" "host=127.0.0.1 port=$port dbname=$TGT" --report new-rep
	assert_no_file new-rep
	assert_exit 2 check_pair "$(conn $SRC)" "$(conn $TGT)" --sum no_such_column --report new-rep
	assert_no_file new-rep
	mkdir old-rep
	assert_exit 3 check_pair "$(conn $SRC)" "host=127.0.0.1 port=$port dbname=$TGT" --report old-rep
	assert_dir_only old-rep
}
