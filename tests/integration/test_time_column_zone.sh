# shellcheck shell=bash disable=SC2016
# --time-column-zone ZONE: a `timestamp` (without time zone) time column
# holding a Berlin shop's wall-clock times, checked across both 2026 DST
# changes. Counts are compared with PostgreSQL's own AT TIME ZONE, which
# also places the DST hour's wall-clock times (docs/how-it-works.md).

SRC=tcz_src
TGT=tcz_tgt
Z=Europe/Berlin

# A sale every 7 minutes of local time around both changes, the spring
# night's nonexistent 02:xx and the autumn night's ambiguous 02:xx included.
setup_file() {
	local db
	for db in $SRC $TGT; do
		createdb $db
		sql $db "create table sales (id bigint primary key, sold_local timestamp not null, amount numeric(12,2));
		         insert into sales
		         select row_number() over (order by t), t, (extract(epoch from t)::bigint % 997) / 10.0
		         from (select generate_series('2026-03-27 00:00'::timestamp, '2026-04-01 00:00', '7 min') t
		               union all
		               select generate_series('2026-10-23 00:00'::timestamp, '2026-10-28 00:00', '7 min')) s" \
			>/dev/null
	done
	# lost in the target: a sale late on the short day (23:2x local:
	# 21:2xZ, the next day if read as UTC), one in its nonexistent hour and
	# one in the long day's repeated hour
	sql $TGT "delete from sales where id in (
	            select min(id) from sales where sold_local >= '2026-03-29 23:20' union all
	            select min(id) from sales where sold_local >= '2026-03-29 02:20' union all
	            select min(id) from sales where sold_local >= '2026-10-25 02:20')" >/dev/null
}

TCZ_OPTS=(--table sales --key id --time sold_local --sum amount --settle 0 --now 2027-01-01T00:00:00Z)

# "start,end,rows" per window of [from, to) with the given step (days or
# hours of the zone, as instants), rows placed by AT TIME ZONE.
sql_windows() {
	local db=$1 from=$2 to=$3 step=$4
	sql $db "set timezone = '$Z';
	         select to_char(b at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || ',' ||
	                to_char(e at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || ',' ||
	                (select count(*) from sales where (sold_local at time zone '$Z') >= b
	                                              and (sold_local at time zone '$Z') < e)
	         from (select b, b + interval '$step' e
	               from generate_series('$from'::timestamptz, '$to'::timestamptz - interval '$step', '$step') b) w
	         order by b"
}

csv_windows() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	         { print $c["window_start"] "," $c["window_end"] "," $c[f] }' f="${2:-source_rows}" "$1"
}

test_berlin_days_across_both_changes() {
	local from to
	for from in 2026-03-28 2026-10-24; do
		to=$(date -d "$from + 3 days" +%F)
		assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
			--timezone $Z --time-column-zone $Z --window 1d --from $from --to "$to" --report "r$from"
		csv_windows "r$from/windows.csv" >days.txt
		sql_windows $SRC "$from 00:00" "$to 00:00" '1 day' >sql.txt
		assert_file_eq days.txt sql.txt
		csv_windows "r$from/windows.csv" target_rows >tdays.txt
		sql_windows $TGT "$from 00:00" "$to 00:00" '1 day' >tsql.txt
		assert_file_eq tdays.txt tsql.txt
	done
	# the 23 and 25 hour days, and the three lost sales in them
	assert_eq "2026-03-28T23:00:00Z,2026-03-29T22:00:00Z" "$(sed -n 3p r2026-03-28/windows.csv | cut -d, -f1,2)"
	assert_eq "match differ match" "$(statuses r2026-03-28/windows.csv)"
	assert_eq 2 "$(jget r2026-03-28/summary.json .findings.missing)"
	assert_eq "2026-10-24T22:00:00Z,2026-10-25T23:00:00Z" "$(sed -n 3p r2026-10-24/windows.csv | cut -d, -f1,2)"
	assert_eq 1 "$(jget r2026-10-24/summary.json .findings.missing)"
	assert_eq "$(sql $SRC "select id from sales where sold_local >= '2026-10-25 02:20' order by sold_local limit 1")" \
		"$(awk -F, 'NR == 2 { print $4 }' r2026-10-24/findings.csv)"
	assert_eq "$Z" "$(jget r2026-03-28/summary.json .time_column_zone.zone)"
	assert_eq true "$(jget r2026-03-28/summary.json .time_column_zone.source_zoneless)"
}

# The DST hour: a spring-forward hour's wall-clock times (02:xx on
# 2026-03-29) are read with the offset before the change (an hour on, so
# the UTC hour 01:00 holds two local hours' sales), a fall-back hour's
# (02:xx on 2026-10-25) as the later instant (the UTC hour 00:00 holds
# none): hour by hour as AT TIME ZONE has them, and counted in summary.json.
test_dst_hour_rule() {
	local from to
	for from in 2026-03-28T22:00:00Z 2026-10-24T21:00:00Z; do
		to=$(date -u -d "$from + 6 hours" +%FT%TZ)
		assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" "${TCZ_OPTS[@]}" \
			--timezone $Z --time-column-zone $Z --window 1h --from "$from" --to "$to" --report "h$from"
		csv_windows "h$from/windows.csv" >hours.txt
		sql_windows $SRC "$from" "$to" '1 hour' >sql.txt
		assert_file_eq hours.txt sql.txt
	done
	# the spring night: UTC hour 01:00 holds local 02:xx (nonexistent) and 03:xx
	assert_eq "$(sql $SRC "select count(*) from sales where sold_local >= '2026-03-29 02:00' and sold_local < '2026-03-29 04:00'")" \
		"$(wfield h2026-03-28T22:00:00Z/windows.csv 2026-03-29T01:00:00Z source_rows)"
	# the autumn night: UTC hour 00:00 (local 02:xx the first time) holds none
	assert_eq 0 "$(wfield h2026-10-24T21:00:00Z/windows.csv 2026-10-25T00:00:00Z source_rows)"
	assert_eq "$(sql $SRC "select count(*) from sales where ((sold_local at time zone '$Z') at time zone '$Z') <> sold_local")" \
		"$(jget h2026-03-28T22:00:00Z/summary.json .time_column_zone.nonexistent.source)"
	assert_eq 0 "$(jget h2026-03-28T22:00:00Z/summary.json .time_column_zone.ambiguous.source)"
	assert_eq "$(sql $SRC "select count(*) from sales where ((sold_local at time zone '$Z') - interval '1 hour') at time zone '$Z' = sold_local")" \
		"$(jget h2026-10-24T21:00:00Z/summary.json .time_column_zone.ambiguous.target)"
	[[ $(jget h2026-10-24T21:00:00Z/summary.json .time_column_zone.ambiguous.source) -gt 0 ]] ||
		fail "no ambiguous wall-clock time counted"
	# the text says which zone and how many
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" "${TCZ_OPTS[@]}" \
		--timezone $Z --time-column-zone $Z --window 1h --from 2026-03-28T22:00:00Z --to 2026-03-29T04:00:00Z
	assert_contains "$OUT" "time:   sold_local is a timestamp without time zone on the source and the target, read in Europe/Berlin (--time-column-zone)"
	assert_contains "$OUT" "nonexistent (source 9, target 9) wall-clock times, placed as AT TIME ZONE places them"
}

# The same windows from a CSV export of the zoneless column, from parallel
# readers, and with --pushdown=auto (the client places the rows: the
# server's digests would place them by UTC).
test_csv_jobs_and_pushdown_agree() {
	export_csv $SRC "select * from sales order by id" src.csv
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
		--timezone $Z --time-column-zone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report pg
	assert_exit 1 rk check --source csv:src.csv --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
		--timezone $Z --time-column-zone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report csv
	assert_file_eq csv/windows.csv pg/windows.csv
	assert_file_eq csv/findings.csv pg/findings.csv
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
		--timezone $Z --time-column-zone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report jobs --jobs 3
	assert_file_eq jobs/windows.csv pg/windows.csv
	assert_eq "$(jget pg/summary.json .time_column_zone.nonexistent.source)" \
		"$(jget jobs/summary.json .time_column_zone.nonexistent.source)"
	ext_create $SRC
	ext_create $TGT
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" -v \
		--timezone $Z --time-column-zone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report auto --pushdown=auto
	assert_contains "$ERR" "read in --time-column-zone Europe/Berlin, whose rows the client places in their windows; streaming its rows instead"
	assert_file_eq auto/windows.csv pg/windows.csv
	assert_file_eq auto/findings.csv pg/findings.csv
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
		--timezone $Z --time-column-zone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --pushdown=on
	assert_contains "$ERR" "read in --time-column-zone Europe/Berlin"
}

# Without --time-column-zone the column is read as UTC, as before: the
# late sale of the short day lands in the next Berlin day, and the text
# and summary say that the zone used was UTC, with a warning that the
# Berlin range may shift the windows.
test_default_utc_and_the_warning() {
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
		--timezone $Z --window 1d --from 2026-03-28 --to 2026-03-31 --report u
	assert_eq "UTC" "$(jget u/summary.json .time_column_zone.zone)"
	assert_eq "match differ differ" "$(statuses u/windows.csv)"
	assert_eq "time_column_zone" "$(jget u/summary.json '.warnings[0].kind')"
	assert_contains u/summary.json "--from 2026-03-28 is given at UTC+01:00, but the time column's zoneless times are read in UTC (UTC+00:00 at 2026-03-27T23:00:00Z): the windows may be shifted"
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
		--timezone $Z --window 1d --from 2026-03-28 --to 2026-03-31
	assert_contains "$OUT" "read in UTC (--time-column-zone)"
	assert_contains "$OUT" "time_column_zone: --from 2026-03-28 is given at UTC+01:00"
	# a range in UTC against a Berlin column: warned too
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
		--time-column-zone $Z --window 1h --from 2026-03-29T00:00:00Z --to 2026-03-29T03:00:00Z --report z
	assert_eq "time_column_zone" "$(jget z/summary.json '.warnings[0].kind')"
	assert_contains z/summary.json "read in Europe/Berlin (UTC+01:00 at 2026-03-29T00:00:00Z)"
	# the range in the column's own zone: no warning
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
		--timezone $Z --time-column-zone $Z --window 1d --from 2026-03-28 --to 2026-03-31T00:00:00+02:00 --report b
	assert_eq 0 "$(jq '[.warnings[]? | select(.kind == "time_column_zone")] | length' b/summary.json)"
	# a timestamptz column is not zoneless: nothing to say
	sql $SRC "create table tz (id int primary key, at timestamptz not null); insert into tz values (1, '2026-03-29T10:00:00Z')" >/dev/null
	assert_exit 0 rk check --source "$(conn $SRC)" --target "$(conn $SRC)" --table tz --key id --time at --settle 0 \
		--time-column-zone $Z --window 1d --from 2026-03-29T00:00:00Z --to 2026-03-30T00:00:00Z --report t
	assert_eq null "$(jq '.time_column_zone' t/summary.json)"
	assert_not_contains "$OUT" "--time-column-zone"
}

test_errors() {
	assert_exit 2 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${TCZ_OPTS[@]}" \
		--time-column-zone Europe/Berln --window 1d --from 2026-03-28 --to 2026-03-31
	assert_contains "$ERR" "invalid --time-column-zone 'Europe/Berln': no such zone in the system's zoneinfo"
	printf 'interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed\n' >rerun.csv
	assert_exit 2 rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" --table sales --key id --time sold_local \
		--time-column-zone $Z --rerun-list rerun.csv
	assert_contains "$ERR" "repair does not read a zoneless time column in --time-column-zone Europe/Berlin yet"
}

# Tried as a new user would: a Berlin shop's daily sales (a timestamptz
# column and a zoneless local one) checked for the last week across the
# March change from a job file, repaired from the job's report, checked
# again.
test_new_user_berlin_shop_last_week() {
	local db
	for db in shop_src shop_dw; do
		createdb $db
		sql $db "create table daily_sales (id bigint primary key, sold_at timestamptz not null,
		                                   sold_local timestamp not null, amount numeric(10,2) not null)" >/dev/null
	done
	sql shop_src "insert into daily_sales
	              select g, t, t at time zone '$Z', (g % 50) + 0.99
	              from (select g, '2026-03-22T23:00:00Z'::timestamptz + g * interval '17 min' t
	                    from generate_series(1, 800) g) s" >/dev/null
	export_csv shop_src "select * from daily_sales" s.csv
	import_csv shop_dw daily_sales s.csv
	# the load lost the evening of the short day and a sale of the 26th
	sql shop_dw "delete from daily_sales where sold_local >= '2026-03-29 21:00' and sold_local < '2026-03-29 22:00'
	             or id = 300" >/dev/null
	cat >job.ini <<-EOF
		[defaults]
		source = $(conn shop_src)
		target = $(conn shop_dw)
		timezone = $Z
		window = 1d
		last = 7d
		settle = 30m
		[table sales]
		table = daily_sales
		key = id
		time = sold_at
		sum = amount
		[table sales_local]
		table = daily_sales
		key = id
		time = sold_local
		time-column-zone = $Z
		sum = amount
	EOF
	assert_exit 1 rk check --job job.ini --report rep --now 2026-03-31T07:00:00+02:00
	# the seven Berlin days before this morning, the 23-hour one among them
	assert_eq "2026-03-23T23:00:00Z 2026-03-30T22:00:00Z 2026-03-24T00:00:00+01:00" \
		"$(jq -r '.range | "\(.from) \(.to) \(.from_local)"' rep/sales/summary.json)"
	assert_eq 7 "$(jget rep/sales/summary.json .windows.checked)"
	# both columns put each sale in the same day: the same findings, as SQL has them
	local lost
	lost=$(sql shop_src "select count(*) from daily_sales where id = 300 or (sold_local >= '2026-03-29 21:00' and sold_local < '2026-03-29 22:00')")
	assert_eq "$lost" "$(jget rep/sales/summary.json .findings.missing)"
	assert_eq "$lost" "$(jget rep/sales_local/summary.json .findings.missing)"
	assert_file_eq rep/sales_local/rerun.csv rep/sales/rerun.csv
	assert_eq "2026-03-25T23:00:00Z,2026-03-26T23:00:00Z 2026-03-28T23:00:00Z,2026-03-29T22:00:00Z" \
		"$(tail -n +2 rep/sales/rerun.csv | cut -d, -f1,2 | tr '\n' ' ' | sed 's/ $//')"
	assert_eq "$Z" "$(jget rep/sales_local/summary.json .time_column_zone.zone)"
	# repair from the report (the timestamptz table's list), then the same week matches
	assert_exit 0 rk repair --job job.ini --report rep --only sales --execute
	assert_exit 0 rk check --job job.ini --report rep2 --now 2026-03-31T07:00:00+02:00
}
