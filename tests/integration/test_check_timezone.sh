# shellcheck shell=bash disable=SC2016
# check --timezone ZONE: calendar days (23 and 25 hours across Berlin's
# 2026 changes), weeks and months in a zone, dates as the zone's midnights,
# --last counted in calendar units, local labels beside UTC instants
# (docs/how-it-works.md). Counts are compared with PostgreSQL's own
# AT TIME ZONE.

SRC=tz_src
TGT=tz_tgt
Z=Europe/Berlin

# A Berlin shop's sales: a row every 7 minutes around both 2026 changes.
setup_file() {
	local db
	for db in $SRC $TGT; do
		createdb $db
		sql $db "create table sales (id bigint primary key, sold_at timestamptz not null, amount numeric(12,2));
		         insert into sales
		         select row_number() over (order by t), t, (extract(epoch from t)::bigint % 997) / 10.0
		         from (select generate_series('2026-03-20T00:00:00Z'::timestamptz, '2026-04-03T00:00:00Z', '7 min') t
		               union all
		               select generate_series('2026-10-20T00:00:00Z'::timestamptz, '2026-10-29T00:00:00Z', '7 min')) s" \
			>/dev/null
	done
	# lost in the target: a sale at 23:30 local time on the short day
	# (21:30Z, the next UTC day's window on a 24 h UTC grid would be the
	# 30th's in Berlin) and one on the long day's repeated hour
	sql $TGT "delete from sales where sold_at in ('2026-03-29T21:32:00Z', '2026-10-25T00:38:00Z')" >/dev/null
	[[ $(sql $SRC "select count(*) from sales where sold_at in ('2026-03-29T21:32:00Z', '2026-10-25T00:38:00Z')") == 2 ]] ||
		fail "the damaged rows are not on the 7-minute grid"
}

TZ_OPTS=(--table sales --key id --time sold_at --sum amount --settle 0 --now 2027-01-01T00:00:00Z)

# Per local day of [from, to): "start_utc,end_utc,rows,label" lines as
# PostgreSQL computes them with AT TIME ZONE (label: local midnight with
# its offset).
sql_days() {
	sql $1 "set timezone = '$Z';
	        select to_char((d at time zone '$Z') at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || ',' ||
	               to_char(((d + interval '1 day') at time zone '$Z') at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || ',' ||
	               (select count(*) from sales where (sold_at at time zone '$Z')::date = d::date) || ',' ||
	               to_char(d at time zone '$Z', 'YYYY-MM-DD\"T\"HH24:MI:SSOF') || ':00'
	        from generate_series('$2'::timestamp, '$3'::timestamp - interval '1 day', '1 day') d order by d"
}

# windows.csv as "start,end,source_rows,label" lines.
csv_days() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	         { print $c["window_start"] "," $c["window_end"] "," $c["source_rows"] "," $c["window_label"] }' "$1"
}

test_march_days_are_23_hours_on_the_change() {
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TZ_OPTS[@]}" \
		--timezone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report r --rerun-list rerun.csv
	csv_days r/windows.csv >days.txt
	sql_days $SRC 2026-03-28 2026-03-31 >sql.txt
	cut -d, -f1,2,4 days.txt >bounds.txt
	assert_file_eq bounds.txt - <<-EOF
		2026-03-27T23:00:00Z,2026-03-28T23:00:00Z,2026-03-28T00:00:00+01:00
		2026-03-28T23:00:00Z,2026-03-29T22:00:00Z,2026-03-29T00:00:00+01:00
		2026-03-29T22:00:00Z,2026-03-30T22:00:00Z,2026-03-30T00:00:00+02:00
	EOF
	# the same days, counts and offsets as PostgreSQL's AT TIME ZONE has them
	assert_file_eq days.txt sql.txt
	assert_eq "match differ match" "$(statuses r/windows.csv)"
	# the 23:30 sale of the short day is in that day, not the next
	n=$(sql $SRC "select count(*) from sales where (sold_at at time zone '$Z')::date = '2026-03-29'")
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		2026-03-28T23:00:00Z,2026-03-29T22:00:00Z,$n,$((n - 1)),1,0,0,0
	EOF
	assert_contains r/findings.csv "2026-03-28T23:00:00Z,2026-03-29T22:00:00Z,missing,"
	assert_eq "Europe/Berlin" "$(jget r/summary.json .range.timezone)"
	assert_eq "2026-03-28T00:00:00+01:00" "$(jget r/summary.json .range.from_local)"
	assert_eq "2026-03-29T00:00:00+01:00" "$(jget r/summary.json '.rerun[0].window_label')"
	# the text shows local times beside UTC
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TZ_OPTS[@]}" \
		--timezone $Z --window 1d --from 2026-03-28 --to 2026-03-31
	assert_contains "$OUT" "local:  [2026-03-28T00:00:00+01:00, 2026-03-31T00:00:00+02:00)  in Europe/Berlin (calendar windows)"
	assert_contains "$OUT" "2026-03-28T23:00:00Z   2026-03-29T00:00:00+01:00  differ"
	assert_contains "$OUT" "local [2026-03-29T00:00:00+01:00, 2026-03-30T00:00:00+02:00) in Europe/Berlin"
}

test_october_days_are_25_hours_on_the_change() {
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TZ_OPTS[@]}" \
		--timezone $Z --window 1d --from 2026-10-24 --to 2026-10-27 --report r --rerun-list rerun.csv
	csv_days r/windows.csv >days.txt
	sql_days $SRC 2026-10-24 2026-10-27 >sql.txt
	assert_file_eq days.txt sql.txt
	assert_eq "2026-10-24T22:00:00Z,2026-10-25T23:00:00Z" "$(sed -n 3p r/windows.csv | cut -d, -f1,2)"
	assert_file_eq rerun.csv - <<-EOF
		$RERUN_HEADER
		2026-10-24T22:00:00Z,2026-10-25T23:00:00Z,$(sql $SRC "select count(*) from sales where (sold_at at time zone '$Z')::date = '2026-10-25'"),$(sql $TGT "select count(*) from sales where (sold_at at time zone '$Z')::date = '2026-10-25'"),1,0,0,0
	EOF
}

# The window digests computed by the server (the extension's fixed grid,
# an hour here) fold into the same calendar days.
test_pushdown_gives_the_same_days() {
	ext_create $SRC
	ext_create $TGT
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TZ_OPTS[@]}" \
		--timezone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report stream
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TZ_OPTS[@]}" \
		--timezone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report pushed --pushdown=on -v
	assert_contains "$ERR" "window digests computed by the server"
	assert_file_eq pushed/windows.csv stream/windows.csv
	assert_file_eq pushed/findings.csv stream/findings.csv
	# and with parallel readers of whole windows
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TZ_OPTS[@]}" \
		--timezone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report jobs --jobs 3
	assert_file_eq jobs/windows.csv stream/windows.csv
}

# --last 7d: the seven local days before the latest closed midnight, one of
# them 23 hours long.
test_last_7d_in_a_zone() {
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table sales --key id --time sold_at \
		--timezone $Z --window 1d --last 7d --now 2026-03-31T12:00:00+02:00 --settle 10m --report r
	assert_eq "2026-03-23T23:00:00Z" "$(jget r/summary.json .range.from)"
	assert_eq "2026-03-30T22:00:00Z" "$(jget r/summary.json .range.to)"
	assert_eq 7 "$(jget r/summary.json .windows.checked)"
	assert_eq "$(sql $SRC "select count(*) from sales where (sold_at at time zone '$Z')::date between '2026-03-24' and '2026-03-30'")" \
		"$(jget r/summary.json .source_rows)"
	assert_eq "2026-03-29T00:00:00+01:00" "$(jget r/summary.json '.rerun[0].window_label')"
	# just before local midnight the day is not closed yet
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table sales --key id --time sold_at \
		--timezone $Z --window 1d --last 7d --now 2026-03-31T00:05:00+02:00 --settle 10m --report r2
	assert_eq "2026-03-29T22:00:00Z" "$(jget r2/summary.json .range.to)"
	# a week, from Monday
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table sales --key id --time sold_at \
		--timezone $Z --window 1w --last 1w --now 2026-04-02T12:00:00Z --report w
	assert_eq "2026-03-22T23:00:00Z" "$(jget w/summary.json .range.from)"
	assert_eq "2026-03-29T22:00:00Z" "$(jget w/summary.json .range.to)"
}

test_months_and_hours_in_a_zone() {
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" "${TZ_OPTS[@]}" \
		--timezone $Z --window 1mo --from 2026-03-01 --to 2026-05-01 --report m
	assert_eq "2026-02-28T23:00:00Z 2026-03-31T22:00:00Z" "$(awk -F, 'NR > 1 { printf "%s%s", s, $1; s = " " }' m/windows.csv)"
	assert_eq "$(sql $SRC "select count(*) from sales where (sold_at at time zone '$Z') < '2026-04-01'")" \
		"$(wfield m/windows.csv 2026-02-28T23:00:00Z source_rows)"
	assert_eq "1mo" "$(jget m/summary.json .range.window)"
	assert_contains m/report.html "2 windows of 1mo</td>"
	# hours stay an hour wide, anchored on the zone's midnight: India's are
	# on the half hour of UTC
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table sales --key id --time sold_at \
		--timezone Asia/Kolkata --window 1h --last 3h --now 2026-03-25T10:10:00Z --settle 0 --report h
	assert_eq "2026-03-25T06:30:00Z" "$(jget h/summary.json .range.from)"
	assert_eq "2026-03-25T09:30:00Z" "$(jget h/summary.json .range.to)"
	assert_eq "2026-03-25T12:00:00+05:30" "$(wfield h/windows.csv 2026-03-25T06:30:00Z window_label)"
}

# A job's [defaults] timezone, its tables checked by parallel threads.
test_job_with_a_timezone() {
	cat >job.ini <<-EOF
		[defaults]
		source = $(conn $SRC)
		target = $(conn $TGT)
		timezone = $Z
		window = 1d
		from = 2026-03-28
		to = 2026-03-31
		settle = 0
		now = 2027-01-01T00:00:00Z
		[table a]
		table = sales
		time = sold_at
		[table b]
		table = sales
		time = sold_at
		timezone = America/New_York
	EOF
	assert_exit 1 rk check --job job.ini --report r --parallel 2
	assert_eq "2026-03-27T23:00:00Z" "$(jget r/a/summary.json .range.from)"
	assert_eq "2026-03-28T04:00:00Z" "$(jget r/b/summary.json .range.from)"
	assert_eq "2026-03-29T00:00:00+01:00" "$(jget r/a/summary.json '.rerun[0].window_label')"
}

# A changed row's lines in findings.csv and changes.csv carry its whole
# calendar day (the short day ends at 22:00Z), not the hour the days share.
test_changed_values_carry_their_day() {
	local db
	for db in $SRC $TGT; do
		sql $db "create table shop (id int primary key, sold_at timestamptz not null, status text);
		         insert into shop values (1, '2026-03-29T10:00:00Z', 'paid'), (2, '2026-03-30T10:00:00Z', 'paid')" \
			>/dev/null
	done
	sql $TGT "update shop set status = 'open' where id = 1" >/dev/null
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table shop --key id --time sold_at \
		--settle 0 --now 2027-01-01T00:00:00Z --timezone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report r
	assert_contains r/findings.csv "2026-03-28T23:00:00Z,2026-03-29T22:00:00Z,changed,1,1,1"
	assert_file_eq r/changes.csv - <<-EOF
		window_start,window_end,id,column,source_value,target_value
		2026-03-28T23:00:00Z,2026-03-29T22:00:00Z,1,status,paid,open
	EOF
}

test_errors() {
	local C=(--source "$(conn $SRC)" --target "$(conn $TGT)" --table sales --key id --time sold_at)
	assert_exit 2 rk check "${C[@]}" --timezone Europe/Berln --window 1d --from 2026-03-28 --to 2026-03-31
	assert_contains "$ERR" "invalid --timezone 'Europe/Berln': no such zone in the system's zoneinfo"
	# a UTC midnight is 01:00 in Berlin: not a day's start there
	assert_exit 2 rk check "${C[@]}" --timezone $Z --window 1d --from 2026-03-28T00:00:00Z --to 2026-03-31
	assert_contains "$ERR" "is not the start of a day in Europe/Berlin"
	assert_contains "$ERR" "give --from as a date"
	# 72 hours across the change are not three Berlin days
	assert_exit 2 rk check "${C[@]}" --timezone $Z --window 1d --from 2026-03-28 --to 2026-03-30T23:00:00Z
	assert_contains "$ERR" "not a whole number of 1-day windows in Europe/Berlin"
	assert_exit 2 rk check "${C[@]}" --window 1mo --from 2026-03-01T00:00:00Z --to 2026-05-01T00:00:00Z
	assert_contains "$ERR" "--window 1mo is a calendar unit: it needs --timezone"
	assert_exit 2 rk check "${C[@]}" --timezone $Z --window 1d --last 36h
	assert_contains "$ERR" "--last 36h is not a whole number of 1d windows"
	# without --timezone a date is UTC's midnight, as before
	assert_exit 1 rk check "${C[@]}" --window 1d --from 2026-03-28 --to 2026-03-31 --settle 0 --report u
	assert_eq "2026-03-28T00:00:00Z" "$(jget u/summary.json .range.from)"
}

# reckon lateness --timezone: the lag per Berlin day (the 23-hour one
# included), each day's rows as AT TIME ZONE counts them, local starts
# beside UTC; --last in days of the zone.
test_lateness_in_a_zone() {
	cts_start
	ccreatedb $SRC
	csql $SRC "create table sales (id bigint primary key, sold_at timestamptz not null);
	           insert into sales select g, '2026-03-27T12:00:00Z'::timestamptz + g * interval '37 min'
	           from generate_series(1, 200) g" >/dev/null
	assert_exit 0 rk lateness --source "$(cconn $SRC)" --table sales --time sold_at --timezone $Z --window 1d \
		--from 2026-03-28 --to 2026-03-31 --format json
	cp "$OUT" late.json
	assert_eq "2026-03-27T23:00:00Z 2026-03-28T23:00:00Z 2026-03-29T22:00:00Z" \
		"$(jq -r '[.windows[].start] | join(" ")' late.json)"
	assert_eq "2026-03-29T00:00:00+01:00" "$(jget late.json '.windows[1].start_local')"
	assert_eq "$(csql $SRC "select string_agg(n::text, ' ' order by d) from (select d, (select count(*) from sales
	             where (sold_at at time zone '$Z')::date = d) n from generate_series('2026-03-28'::date, '2026-03-30', '1 day') d) x")" \
		"$(jq -r '[.windows[].rows | tostring] | join(" ")' late.json)"
	assert_eq "$(csql $SRC "select count(*) from sales where (sold_at at time zone '$Z')::date between '2026-03-28' and '2026-03-30'")" \
		"$(jget late.json .rows)"
	assert_exit 0 rk lateness --source "$(cconn $SRC)" --table sales --time sold_at --timezone $Z --window 1d \
		--last 2d --now 2026-03-31T08:00:00+02:00 --settle 0
	assert_contains "$OUT" "range:  [2026-03-28T23:00:00Z, 2026-03-30T22:00:00Z)  window 1d"
	assert_contains "$OUT" "local:  [2026-03-29T00:00:00+01:00, 2026-03-31T00:00:00+02:00)  in Europe/Berlin (calendar windows)"
	assert_contains "$OUT" "2026-03-29T22:00:00Z   2026-03-30T00:00:00+02:00 "
	# without --timezone a month is refused, as a calendar unit
	assert_exit 2 rk lateness --source "$(cconn $SRC)" --table sales --time sold_at --window 1mo --last 1mo
	assert_contains "$ERR" "--window 1mo is a calendar unit: it needs --timezone"
}

# repair --timezone of a Berlin day's rerun list: the interval column gets
# the load's interval start, Berlin's midnight (--load-interval 1d in the
# zone), and the window a moved row leaves is its Berlin day (24 h), not
# the next 23 hours of the short day's grid; local times beside UTC.
test_repair_a_berlin_day() {
	local db
	for db in $SRC $TGT; do
		sql $db "create table daily (id int primary key, sold_at timestamptz not null, amount int,
		                             interval_start timestamptz)
		         " >/dev/null
	done
	sql $SRC "insert into daily select g, '2026-03-28T23:30:00Z'::timestamptz + g * interval '3 hour', g
	          from generate_series(0, 14) g" >/dev/null
	# the load recorded each row's Berlin day
	sql $SRC "update daily set interval_start = date_trunc('day', sold_at at time zone '$Z') at time zone '$Z'" >/dev/null
	export_csv $SRC "select * from daily" d.csv
	import_csv $TGT daily d.csv
	# lost: a row of the short day; moved at the source into it from the next
	# day (the target keeps the old copy on the 30th)
	sql $TGT "delete from daily where id = 2" >/dev/null
	sql $SRC "update daily set sold_at = '2026-03-29T20:00:00Z', interval_start = '2026-03-28T23:00:00Z' where id = 9" >/dev/null
	local C=(--source "$(conn $SRC)" --target "$(conn $TGT)" --table daily --key id --time sold_at
		--exclude-columns interval_start --settle 0 --now 2027-01-01T00:00:00Z --timezone $Z)
	assert_exit 1 rk check "${C[@]}" --window 1d --from 2026-03-29 --to 2026-03-31 --rerun-list all.csv
	# only the short day in the list: the 30th is a window outside it
	head -2 all.csv >rerun.csv
	assert_eq "2026-03-28T23:00:00Z,2026-03-29T22:00:00Z" "$(sed -n 2p rerun.csv | cut -d, -f1,2)"
	assert_exit 0 rk repair "${C[@]}" --rerun-list rerun.csv --interval-column interval_start --load-interval 1d \
		--execute --format json
	assert_eq "2026-03-29T00:00:00+01:00" "$(jq -r '.intervals[0].interval_label' "$OUT")"
	assert_eq "2026-03-29T22:00:00Z 2026-03-30T22:00:00Z 2026-03-30T00:00:00+02:00 match" \
		"$(jq -r '.touched[0] | "\(.window_start) \(.window_end) \(.window_label) \(.status)"' "$OUT")"
	# the rows written record Berlin's midnight of their day, as the load did
	assert_eq "2026-03-28 23:00:00+00 2026-03-28 23:00:00+00" \
		"$(sql $TGT "set timezone = 'UTC'; select string_agg(interval_start::text, ' ' order by id) from daily where id in (2, 9)")"
	assert_exit 0 rk check "${C[@]}" --window 1d --from 2026-03-29 --to 2026-03-31
	# the text shows local starts beside UTC
	assert_exit 0 rk repair "${C[@]}" --rerun-list rerun.csv --interval-column interval_start --load-interval 1d
	assert_contains "$OUT" "local times in Europe/Berlin:"
	assert_contains "$OUT" "[2026-03-28T23:00:00Z, 2026-03-29T22:00:00Z)    2026-03-29T00:00:00+01:00   9/7"
	# a month needs the zone
	assert_exit 2 rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" --table daily --key id --time sold_at \
		--rerun-list rerun.csv --interval-column interval_start --load-interval 1mo
	assert_contains "$ERR" "--load-interval 1mo is a calendar unit: it needs --timezone"
}

# load --timezone: a scheduler's dates are Berlin's midnights, so the
# interval load of the short day reads its 23 hours and records Berlin's
# midnight in the interval column; a check of that day then matches.
test_load_a_berlin_day() {
	local db
	for db in $SRC $TGT; do
		sql $db "create table ld (id int primary key, sold_at timestamptz not null, interval_start timestamptz)" >/dev/null
	done
	sql $SRC "insert into ld select g, '2026-03-28T22:30:00Z'::timestamptz + g * interval '1 hour'
	          from generate_series(0, 24) g" >/dev/null
	assert_exit 0 rk load --source "$(conn $SRC)" --target "$(conn $TGT)" --table ld --key id --time sold_at \
		--columns id,sold_at --strategy interval --interval-column interval_start --timezone $Z \
		--interval-start 2026-03-29 --interval-end 2026-03-30 -v
	assert_contains "$ERR" "interval [2026-03-29T00:00:00+01:00, 2026-03-30T00:00:00+02:00) in Europe/Berlin"
	assert_eq "$(sql $SRC "select count(*) from ld where (sold_at at time zone '$Z')::date = '2026-03-29'")" \
		"$(sql $TGT "select count(*) from ld")"
	assert_eq "2026-03-28 23:00:00+00" "$(sql $TGT "set timezone = 'UTC'; select distinct interval_start from ld")"
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table ld --key id --time sold_at \
		--columns id,sold_at --timezone $Z --window 1d --from 2026-03-29 --to 2026-03-30 --settle 0 \
		--now 2027-01-01T00:00:00Z
}
