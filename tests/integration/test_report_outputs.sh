# shellcheck shell=bash disable=SC2054
# What a check leaves for people and monitors (docs/reference.md) and how its
# report directory is replaced (issue 13, items 4 and 6):
# - report.html of the demo's damaged sample, rendered by a real browser
#   (headless Chromium: a PNG and the DOM, in one launch);
# - --metrics, parsed by Prometheus' own Python client;
# - --progress on a pseudo-terminal only (script), and silence in cron;
# - the report set replaced whole or not at all (injected failures, kills),
#   a directory of foreign files refused, and no litter after signals.

SRC=ro_src
TGT=ro_tgt

setup_file() {
	createdb $SRC
	createdb $TGT
	mk_orders $SRC
	mk_orders $TGT
	# 20,000 rows over the same 4 hours: a source read slowly enough to
	# watch (see on_tty)
	local db
	for db in $SRC $TGT; do
		sql $db "create table mart.big as
		         select g / 2 + 1 as order_id, g % 2 + 1 as line_no,
		                timestamptz '2026-03-02 00:00:00+00' + g * interval '720 milliseconds' as created_at,
		                (g * 3.25 + 0.5)::numeric(12,2) as amount
		         from generate_series(0, 19999) g" >/dev/null
	done
	# a target relation whose name needs escaping in every format
	sql $SRC "create table mart.\"we\"\"ird\\name\" as table mart.orders" >/dev/null
	sql $TGT "create table mart.\"we\"\"ird\\name\" as table mart.orders" >/dev/null
	# the demo's damaged day (make demo)
	bash "$RK_REPO/tests/harness/demo-data.sh"
	assert_eq 200 "$(sql demo_source 'select count(*) from mart.orders')"
}

check() {
	rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS_OPTS[@]}" "$@"
}

# The entries of a directory that are reckon's temporaries.
temporaries() {
	find "$1" -maxdepth 1 -name '*.tmp.reckon-*' -printf '%f\n' | sort | tr '\n' ' '
}

# --- report.html in a browser ------------------------------------------------

test_demo_report_renders_in_chromium() {
	local chromium
	chromium=$(command -v chromium) || fail "chromium is not installed (tests/harness/deps.sh installs it)"
	assert_exit 1 rk check --source "$(conn demo_source)" --target "$(conn demo_target)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount --columns order_id,line_no,created_at,amount,customer \
		--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-03T06:00:00Z \
		--report rep
	assert_file rep/report.html
	# self-contained: no script, nothing from elsewhere
	assert_not_contains rep/report.html '<script'
	assert_not_contains rep/report.html 'http:'
	assert_not_contains rep/report.html 'https:'
	# one launch: the page as a PNG and its DOM as the browser built it
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chromium-profile" --window-size=1200,1600 \
		--screenshot="$T/report.png" --dump-dom "file://$T/rep/report.html" >dom.html 2>chromium.log ||
		fail "chromium failed: $(tail -n 5 chromium.log)"
	assert_eq "89504e47" "$(head -c 4 report.png | od -An -tx1 | tr -d ' \n')" "PNG signature of the screenshot"
	assert_match "$(stat -c %s report.png)" '^[0-9]{5,}$' "screenshot size (bytes)"
	# every window of the range is in the timeline, in order, with its title
	grep -oE 'class="w (match|differ|open)" (href="#w[0-9]+" )?title="[0-9T:Z-]+' dom.html |
		sed -E 's/.*title="//' >cells
	assert_eq 24 "$(wc -l <cells)" "windows in the timeline"
	assert_eq "$(tail -n +2 rep/windows.csv | cut -d, -f1)" "$(cat cells)" "timeline order"
	# every damaged window is marked and links to its findings
	grep -oE 'class="w differ" href="#w[0-9]+"' dom.html | sed -E 's/.*#//; s/"//' >links
	assert_eq "w6 w11 w15 w19" "$(tr '\n' ' ' <links | sed 's/ $//')" "damaged windows linked"
	local id
	while read -r id; do
		assert_contains dom.html "<section class=\"damage\" id=\"$id\""
	done <links
	assert_eq 0 "$(grep -c 'class="w differ" title=' dom.html || true)" "a damaged window without a link"
	assert_contains dom.html 'data-verdict="differ"'
	assert_contains dom.html '<code>(1047, 2)</code><code>(1048, 1)</code>'
	assert_contains dom.html 'amount <span class="mono">2,195.40</span> / <span class="mono">1,647.05</span>'
	assert_contains dom.html 'only the target has <span class="mono">batch_id</span>'
	assert_contains dom.html '<a href="#w19">2026-03-02T19:00:00Z</a>'
	# a time axis: the day labels its row, the hours the axis
	assert_contains dom.html '<span class="tl-label">2026-03-02</span>'
	local hr
	for hr in 00 03 06 09 12 15 18 21; do
		assert_match "$(cat dom.html)" "<span style=\"left: [0-9.]+%\">$hr:00</span>"
	done
	# tooltips with line breaks, not \x0a
	assert_not_contains dom.html '\x0a'
	assert_contains dom.html 'title="2026-03-02T11:00:00Z differ
source 8 rows, target 6 rows
amount 2,195.40 / 1,647.05
missing 2"'
	# the range checked, when it ran, and the repair command to paste
	assert_contains dom.html '<span class="mono" id="range">[2026-03-02T00:00:00Z, 2026-03-03T00:00:00Z)</span>'
	assert_match "$(cat dom.html)" 'id="ran-at">20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z<'
	local cmd
	cmd=$(sed -n 's/.*<pre class="cmd" id="repair">\([^<]*\)<.*/\1/p' dom.html | sed "s/&#39;/'/g; s/&amp;/\&/g")
	assert_match "$cmd" "^reckon repair --source '[^']*dbname=demo_source[^']*' --target '[^']*dbname=demo_target[^']*' "
	assert_match "$cmd" " --table mart.orders --key order_id,line_no --time created_at --sum amount "
	assert_match "$cmd" " --rerun-list $T/rep/rerun.csv --execute\$"
	# ... which, pasted, repairs the target: a second check matches
	(cd / && eval "${cmd/#reckon/$RECKON}") >repair.out 2>&1 || fail "the pasted repair failed: $(cat repair.out)"
	assert_exit 0 rk check --source "$(conn demo_source)" --target "$(conn demo_target)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount --columns order_id,line_no,created_at,amount,customer \
		--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-03T06:00:00Z
	bash "$RK_REPO/tests/harness/demo-data.sh"
	# at 420 px nothing is wider than the screen
	assert_fits_420 rep
}

# With --timezone the pages show local times with their offset beside UTC
# (the range, each damaged window, the rerun list, the tooltips; a job's
# index.html each table's local range), as the browser builds them.
test_timezone_report_renders_in_chromium() {
	local chromium
	chromium=$(command -v chromium) || fail "chromium is not installed (tests/harness/deps.sh installs it)"
	cat >job.ini <<-EOF
		[defaults]
		source = $(conn demo_source)
		target = $(conn demo_target)
		timezone = Europe/Berlin
		window = 1h
		from = 2026-03-02T00:00:00Z
		to = 2026-03-03T00:00:00Z
		now = 2026-03-03T06:00:00Z
		[table orders]
		table = mart.orders
		key = order_id,line_no
		time = created_at
		sum = amount
		columns = order_id,line_no,created_at,amount,customer
	EOF
	assert_exit 1 rk check --job job.ini --report rep
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chromium-profile" --dump-dom "file://$T/rep/orders/report.html" >dom.html 2>chromium.log ||
		fail "chromium failed: $(tail -n 5 chromium.log)"
	assert_contains dom.html '<span class="mono" id="range-local">[2026-03-02T01:00:00+01:00, 2026-03-03T01:00:00+01:00)</span> in Europe/Berlin'
	assert_contains dom.html '<h3 class="mono">[2026-03-02T11:00:00Z, 2026-03-02T12:00:00Z) <span class="dim local">local [2026-03-02T12:00:00+01:00, 2026-03-02T13:00:00+01:00)</span></h3>'
	assert_contains dom.html '<a href="#w19">2026-03-02T19:00:00Z</a> <span class="dim local">2026-03-02T20:00:00+01:00</span>'
	assert_contains dom.html 'title="2026-03-02T11:00:00Z differ
local 2026-03-02T12:00:00+01:00
source 8 rows'
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chromium-profile" --dump-dom "file://$T/rep/index.html" >index.html 2>chromium.log ||
		fail "chromium failed: $(tail -n 5 chromium.log)"
	assert_contains index.html '<div class="dim local">local [2026-03-02T01:00:00+01:00, 2026-03-03T01:00:00+01:00) in Europe/Berlin</div>'
	# without a zone: none of it
	assert_exit 1 rk check --source "$(conn demo_source)" --target "$(conn demo_target)" --table mart.orders \
		--key order_id,line_no --time created_at --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z \
		--window 1h --now 2026-03-03T06:00:00Z --report utc
	assert_not_contains utc/report.html 'class="dim local"'
	assert_not_contains utc/report.html 'id="range-local"'
}

# The demo's damaged sample, checked as make demo checks it (the primary
# key, the whole row): every finding has a named cause (none unclassified,
# every one in a pattern) and the changed row shows its values, in every
# output.
test_demo_sample_every_finding_named() {
	assert_exit 1 rk check --source "$(conn demo_source)" --target "$(conn demo_target)" --table mart.orders \
		--time created_at --sum amount --from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h \
		--now 2026-03-03T06:00:00Z --report rep
	assert_eq '[["boundary",1],["unbumped_update",1],["gap",2],["repeat",1]]' \
		"$(jq -c '[.diagnosis[] | [.pattern, .keys]]' rep/summary.json)"
	assert_eq "$(jq '[.findings[]] | add' rep/summary.json)" "$(jq '[.diagnosis[].findings] | add' rep/summary.json)" \
		"findings placed in named patterns"
	assert_not_contains "$OUT" "unclassified"
	assert_not_contains rep/report.html "unclassified"
	assert_eq 'window_start,window_end,order_id,line_no,column,source_value,target_value
2026-03-02T19:00:00Z,2026-03-02T20:00:00Z,1080,2,amount,482.40,492.40' "$(cat rep/changes.csv)"
	assert_contains "$OUT" "(1080, 2) at 2026-03-02T19:12:30Z on both sides, amount 482.40 -> 492.40"
	assert_contains rep/report.html "482.40"
	assert_contains rep/report.html "492.40"
	assert_eq '[[["1080","2"],"amount","482.40","492.40"]]' \
		"$(jq -c '[.changes.first[] | .key as $k | .columns[] | [$k, .column, .source, .target]]' rep/summary.json)"
}

# The longest line of FILE, in characters.
longest_line() {
	awk '{ n = length($0); if (n > m) m = n } END { print m + 0 }' "$1"
}

# The likely causes and the repair plan are wrapped for a terminal: 80
# columns when stdout is none, the terminal's width when it is one,
# $COLUMNS when set; a continued evidence line is indented under its text.
# The repair table, too wide for such a terminal, becomes a block per
# interval.
test_text_wrapped_for_a_terminal() {
	local -a demo=(--source "$(conn demo_source)" --target "$(conn demo_target)" --table mart.orders
		--time created_at --sum amount)
	local -a range=(--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-03T06:00:00Z)
	COLUMNS='' assert_exit 1 rk check "${demo[@]}" "${range[@]}" --rerun-list rerun.csv
	cat "$OUT" | sed -n '/^likely causes:/,/^$/p' >causes.txt
	assert_match "$(longest_line causes.txt)" '^([0-7][0-9]|80)$' "the longest line of the likely causes"
	assert_contains causes.txt "    evidence:  "
	assert_match "$(cat causes.txt)" $'\n               [^ ]' "a continued line under its text"
	# every word is still there: unwrapped, the same text
	COLUMNS=1000 assert_exit 1 rk check "${demo[@]}" "${range[@]}"
	local wide
	wide=$(cat "$OUT" | sed -n '/^likely causes:/,/^$/p' | tr -s ' \n' ' ')
	assert_eq "$wide" "$(tr -s ' \n' ' ' <causes.txt)" "the wrapped text, words for words"
	# the repair plan: blocks of at most 80 columns, the table when it fits
	COLUMNS='' assert_exit 0 rk repair "${demo[@]}" --rerun-list rerun.csv
	cp "$OUT" plan.txt
	assert_contains plan.txt $'[2026-03-02T11:00:00Z, 2026-03-02T12:00:00Z)  planned\n    before s/t 8/6  delete 0  update 0  insert 2  after s/t -\n    damage listed: missing 2'
	assert_match "$(grep -v '^(s/t' plan.txt | grep -v '^dry run' >p.txt; longest_line p.txt)" '^([0-7][0-9]|80)$' \
		"the longest line of the plan"
	COLUMNS=200 assert_exit 0 rk repair "${demo[@]}" --rerun-list rerun.csv
	assert_match "$(cat "$OUT")" '\[2026-03-02T11:00:00Z, 2026-03-02T12:00:00Z\) +8/6 +0 +0 +2 +- +planned +missing 2'
	# on a terminal of 100 columns: its width
	command -v script >/dev/null || fail "script (bsdutils) is not installed"
	local q
	printf -v q '%q ' "$RECKON" check "${demo[@]}" "${range[@]}"
	COLUMNS='' SHELL=/bin/bash script -qfec "stty cols 100; $q" tty.txt >/dev/null </dev/null || true
	tr -d '\r' <tty.txt | sed -n '/^likely causes:/,/^$/p' >ttycauses.txt
	assert_contains ttycauses.txt "    evidence:  "
	assert_match "$(longest_line ttycauses.txt)" '^(8[1-9]|9[0-9]|100)$' "the longest line on a 100-column terminal"
}

# The width of DIR/report.html laid out 420 px wide (an iframe of a probe
# page that measures it: the report itself has no script), as
# "scrollWidth,clientWidth"; a screenshot of it in $T/narrow.png.
width_at_420() {
	cat >"$1/probe.tmp.html" <<-'HTML'
		<!DOCTYPE html><html><body style="margin:0">
		<iframe id="f" src="report.html" style="width:420px;height:1600px;border:0"></iframe>
		<script>document.getElementById("f").onload = function () {
		  var d = this.contentDocument.documentElement;
		  document.body.setAttribute("data-width", d.scrollWidth + "," + d.clientWidth);
		};</script></body></html>
	HTML
	"$(command -v chromium)" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --allow-file-access-from-files \
		--user-data-dir="$T/chromium-profile" --window-size=440,1600 --screenshot="$T/narrow.png" \
		--dump-dom "file://$T/$1/probe.tmp.html" 2>chromium.log | sed -n 's/.*data-width="\([0-9]*,[0-9]*\)".*/\1/p'
	rm -f "$1/probe.tmp.html"
}

assert_fits_420() {
	local wh
	wh=$(width_at_420 "$1")
	assert_match "$wh" '^[0-9]+,[0-9]+$' "the probe's measure (chromium: $(tail -n 3 chromium.log))"
	assert_eq "${wh#*,}" "${wh%,*}" "scroll width of the page at 420 px (its client width)"
}

# 5-minute windows over two days: a row per day of 288 marks, no wrapped
# grid, the damaged windows visible and linked, nothing wider than 420 px.
test_report_of_five_minute_windows_fits() {
	local chromium
	chromium=$(command -v chromium) || fail "chromium is not installed (tests/harness/deps.sh installs it)"
	sql $TGT "delete from mart.big where order_id = 5000" >/dev/null
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.big --key order_id,line_no \
		--time created_at --from 2026-03-01T12:00:00Z --to 2026-03-03T00:00:00Z --window 5m \
		--now 2026-03-04T00:00:00Z --report rep
	assert_fits_420 rep
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chromium-profile" --window-size=1200,1600 \
		--screenshot="$T/five.png" --dump-dom "file://$T/rep/report.html" >dom.html 2>chromium.log ||
		fail "chromium failed: $(tail -n 5 chromium.log)"
	# two rows, a day each; the first padded from midnight to noon
	assert_eq 2 "$(grep -c '<div class="tl-row"><span class="tl-label">2026-03-0[12]</span>' dom.html)" "day rows"
	assert_eq 144 "$(grep -o '<span class="w pad"></span>' dom.html | wc -l)" "marks before noon"
	assert_eq 432 "$(grep -oE 'class="w (match|differ|open)" (href="#w[0-9]+" )?title=' dom.html | wc -l)" "windows"
	grep -oE 'class="w differ" href="#w[0-9]+" title="[0-9T:Z-]+' dom.html | sed 's/.*title="//' >damaged
	assert_eq "$(awk -F, '$3 == "differ" { print $1 }' rep/windows.csv)" "$(cat damaged)" "damaged windows in the timeline"
	assert_eq 1 "$(wc -l <damaged)" "damaged windows"
	assert_contains dom.html "each mark is one window of 5m; a row per UTC day"
	mk_big_again
}

# A Delta target's damaged window shows its log in the browser: the
# versions that wrote and removed its files, and nothing wider than 420 px.
test_delta_history_renders_in_chromium() {
	local chromium dw
	chromium=$(command -v chromium) || fail "chromium is not installed (tests/harness/deps.sh installs it)"
	dw=$(dirname "$RECKON")/tests/rk-deltawrite
	[[ -x $dw ]] || fail "$dw is missing: make $(dirname "$RECKON")/tests/rk-deltawrite"
	# 16 rows over 4 hours in 2 files (hours 0-1, 2-3); version 1 removes the second
	"$dw" "$PWD/lake" create 2 "SELECT range AS id, TIMESTAMPTZ '2026-03-02 00:00:00+00' + range * INTERVAL 15 MINUTE
		AS ts FROM range(16)" || fail "rk-deltawrite create failed"
	"$dw" "$PWD/lake" remove 1 || fail "rk-deltawrite remove failed"
	{
		echo id,ts
		for i in $(seq 0 15); do printf '%d,2026-03-02 %02d:%02d:00+00\n' "$i" $((i / 4)) $((i % 4 * 15)); done
	} >src.csv
	assert_exit 1 rk check --source csv:src.csv --target delta:lake --key id --time ts --window 1h \
		--from 2026-03-02T00:00:00Z --to 2026-03-02T04:00:00Z --now 2026-03-03T00:00:00Z --report rep
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chromium-profile" --window-size=1200,1600 \
		--screenshot="$T/delta.png" --dump-dom "file://$T/rep/report.html" >dom.html 2>chromium.log ||
		fail "chromium failed: $(tail -n 5 chromium.log)"
	assert_eq 2 "$(grep -c '<div class="history" data-side="target" data-state="removed">' dom.html)" \
		"damaged windows with the target's log"
	assert_contains dom.html "<p>target's log, versions 0 to 1: no file of version 1 holds rows of it</p>"
	assert_contains dom.html '<tr data-version="0"><td class="n mono">0</td><td class="mono">WRITE</td><td class="mono">2026-03-02T00:00:00Z</td><td>added 1 file (8 rows)</td></tr>'
	assert_contains dom.html '<tr data-version="1"><td class="n mono">1</td><td class="mono">DELETE</td><td class="mono">2026-03-02T00:01:00Z</td><td>removed 1 file</td></tr>'
	assert_contains dom.html 'a later commit removed them without writing them back'
	assert_fits_420 rep
}

# mart.big as setup_file made it, on the target.
mk_big_again() {
	sql $TGT "drop table mart.big; create table mart.big as
	          select g / 2 + 1 as order_id, g % 2 + 1 as line_no,
	                 timestamptz '2026-03-02 00:00:00+00' + g * interval '720 milliseconds' as created_at,
	                 (g * 3.25 + 0.5)::numeric(12,2) as amount
	          from generate_series(0, 19999) g" >/dev/null
}

test_text_output_sums_at_scale() {
	assert_exit 1 rk check --source "$(conn demo_source)" --target "$(conn demo_target)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount \
		--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-03T06:00:00Z --report rep
	# numeric(12,2): two digits, as PostgreSQL shows the column ...
	assert_contains "$OUT" "2026-03-02T00:00:00Z   match           10         10  amount=907.60/907.60"
	# ... an expression's type decides it too, and windows.csv keeps the canonical form
	assert_eq "907.6" "$(wfield rep/windows.csv 2026-03-02T00:00:00Z source_sum_amount)"
	assert_exit 1 rk check --source "$(conn demo_source)" --target "$(conn demo_target)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount --source-expr 'amount=amount::numeric(14,4)' \
		--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-03T06:00:00Z
	assert_contains "$OUT" "amount=907.6000/907.6000"
	assert_exit 1 rk check --source "$(conn demo_source)" --target "$(conn demo_target)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount --source-expr 'amount=amount::numeric' \
		--target-expr 'amount=amount::numeric' \
		--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-03T06:00:00Z
	assert_contains "$OUT" "amount=907.6/907.6"
}

# --- metrics -------------------------------------------------------------------

# Parses a metrics file with prometheus_client; prints "name{labels} value"
# lines, sorted, labels in name order.
prom_parse() {
	/usr/bin/python3 - "$1" <<-'PY'
		import sys
		from prometheus_client.parser import text_string_to_metric_families
		out = []
		families = {}
		for fam in text_string_to_metric_families(open(sys.argv[1], encoding="utf-8").read()):
		    families[fam.name] = (fam.type, fam.documentation)
		    for s in fam.samples:
		        labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
		        v = int(s.value) if s.value == int(s.value) else s.value
		        out.append(f"{s.name}{{{labels}}} {v}")
		for name, (typ, doc) in sorted(families.items()):
		    assert typ == "gauge" and doc, (name, typ, doc)
		    print(f"family {name}")
		print("\n".join(sorted(out)))
	PY
}

test_metrics_parse() {
	/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
		fail "python3-prometheus-client is not installed (tests/harness/deps.sh installs it)"
	sql $TGT 'delete from mart."we""ird\name" where order_id = 3 and line_no = 2' >/dev/null
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" --table 'mart."we""ird\name"' \
		"${ORDERS_CHECK[@]}" --metrics m.prom
	assert_eq "" "$(temporaries .)" "temporaries left"
	prom_parse m.prom >parsed || fail "prometheus_client could not parse m.prom: $(cat m.prom)"
	local t='table=mart."we""ird\name"'
	for f in reckon_check_windows reckon_check_findings reckon_check_rows reckon_check_null_time_rows \
		reckon_check_duration_seconds reckon_check_exit_status reckon_check_last_run_timestamp_seconds; do
		assert_contains parsed "family $f"
	done
	assert_contains parsed "reckon_check_windows{status=differ,$t} 1"
	assert_contains parsed "reckon_check_windows{status=match,$t} 3"
	assert_contains parsed "reckon_check_windows{status=open,$t} 0"
	assert_contains parsed "reckon_check_findings{kind=missing,$t} 1"
	assert_contains parsed "reckon_check_findings{kind=changed,$t} 0"
	assert_contains parsed "reckon_check_rows{side=source,$t} 34"
	assert_contains parsed "reckon_check_rows{side=target,$t} 33"
	assert_contains parsed "reckon_check_exit_status{$t} 1"
	local ts now
	ts=$(sed -n 's/^reckon_check_last_run_timestamp_seconds{.*} //p' parsed)
	now=$(date +%s)
	assert_eq 1 "$(awk -v ts="$ts" -v now="$now" 'BEGIN { print (ts > now - 600 && ts <= now + 1) }')" \
		"last run timestamp $ts near now $now"
	# a run that fails still reports, with its status and nothing else
	assert_exit 3 rk check --source "$(conn $SRC)" --target "host=127.0.0.1 port=$(closed_port) dbname=x" \
		"${ORDERS_OPTS[@]}" --metrics m.prom
	prom_parse m.prom >parsed || fail "prometheus_client could not parse m.prom: $(cat m.prom)"
	assert_contains parsed "reckon_check_exit_status{table=mart.orders} 3"
	assert_not_contains parsed "reckon_check_windows{"
	# an unwritable path fails before the work
	assert_exit 3 check --metrics nodir/m.prom
	assert_contains "$ERR" "cannot write metrics file 'nodir/m.prom'"
}

# --- progress ------------------------------------------------------------------

# Runs reckon check on a pseudo-terminal (stdout to out.txt); the terminal's
# bytes (stderr) go to tty.txt.
on_tty() {
	local cmd q
	printf -v q '%q ' "$RECKON" check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS_OPTS[@]}" "$@"
	cmd="$q >out.txt"
	SHELL=/bin/bash script -qfec "$cmd" tty.txt >/dev/null </dev/null
}

test_progress_on_a_terminal_only() {
	command -v script >/dev/null || fail "script (bsdutils) is not installed"
	# a terminal: the line is drawn and erased again; results on stdout
	assert_exit 0 on_tty
	assert_contains tty.txt "source "
	assert_contains tty.txt " rows "
	assert_contains tty.txt "target "
	assert_contains tty.txt $'\r\033[K'
	assert_contains out.txt "verdict: match"
	assert_not_contains out.txt " rows "
	# --progress never on a terminal: nothing
	assert_exit 0 on_tty --progress never
	assert_not_contains tty.txt " rows "
	# no terminal (cron): nothing on stderr, whether it matches or differs
	assert_exit 0 check
	assert_eq "" "$(cat "$ERR")" "stderr of a run without a terminal"
	# --progress always without a terminal: plain lines
	assert_exit 0 check --progress always
	assert_match "$(cat "$ERR")" '^source [0-9.kMG]+ rows [0-9.kMG]+/s +[0-9]+%  target [0-9.kMG]+ rows' "progress line"
	assert_not_contains "$ERR" $'\r'
	assert_exit 2 check --progress sometimes
	assert_contains "$ERR" "must be auto, always or never"
}

test_progress_of_a_slow_check() {
	# a few seconds: the line is redrawn while the source is read, with the
	# share of the range done and the time left
	assert_exit 0 on_tty --table mart.big --source-where "pg_sleep(0.0002)::text = ''"
	assert_match "$(grep -o $'\r\033\\[K' tty.txt | wc -l)" '^([3-9]|[1-9][0-9]+)$' "redraws of the progress line"
	assert_contains tty.txt "ETA 0:0"
	assert_match "$(cat tty.txt)" 'source [0-9]+ rows [0-9.k]+/s +(25|50|75)%' "a share of the range part done"
}

# --- the report directory: one set, whole or not at all ------------------------

test_report_set_whole_or_nothing() {
	[[ -x $RECKON_FAULTS ]] || skip "no binary with the test hooks at $RECKON_FAULTS (make BUILD/tests/reckon-faults, or RECKON_FAULTS=PATH)"
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2" >/dev/null
	assert_exit 1 check --report rep
	assert_dir_only rep changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	cp -a rep before
	mk_orders $TGT
	# a failure once every file is written: the old set stays, nothing beside
	assert_exit 3 env RECKON_TEST_FAULT=adir-written:fail "$RECKON_FAULTS" check --source "$(conn $SRC)" \
		--target "$(conn $TGT)" "${ORDERS_OPTS[@]}" --report rep
	assert_contains "$ERR" "cannot put report directory"
	diff -r before rep >/dev/null || fail "the report directory changed although the run failed"
	_rk_ok
	assert_eq "" "$(temporaries .)" "temporaries left"
	# killed before the swap: the old set stays, the next run clears the rest
	assert_exit 137 env RECKON_TEST_FAULT=adir-written:kill "$RECKON_FAULTS" check --source "$(conn $SRC)" \
		--target "$(conn $TGT)" "${ORDERS_OPTS[@]}" --report rep
	diff -r before rep >/dev/null || fail "the report directory changed although the run was killed"
	_rk_ok
	assert_match "$(temporaries .)" '^rep\.tmp\.reckon-[0-9]+-[A-Za-z0-9]{6} $' "the killed run's staging directory"
	# killed right after the swap: the new set is in place, whole
	assert_exit 137 env RECKON_TEST_FAULT=adir-swapped:kill "$RECKON_FAULTS" check --source "$(conn $SRC)" \
		--target "$(conn $TGT)" "${ORDERS_OPTS[@]}" --report rep
	assert_eq match "$(jget rep/summary.json .verdict)"
	assert_eq "match match match match" "$(statuses rep/windows.csv)"
	assert_eq 1 "$(wc -l <rep/rerun.csv)"
	# the next run removes what dead runs left, and nothing else
	mkdir keep.tmp.reckon-1-abcdef
	assert_exit 0 check --report rep
	assert_eq "keep.tmp.reckon-1-abcdef " "$(temporaries .)" "temporaries after the next run"
	assert_dir_only rep changes.csv findings.csv report.html rerun.csv summary.json windows.csv
}

# The product has no test hook: the variable that breaks the suite's
# hooked binary (above) changes nothing in the one that ships.
test_release_binary_has_no_fault_hook() {
	local step
	mk_orders $TGT
	for step in adir-written:fail adir-written:kill adir-swapped:kill; do
		rm -rf rep
		assert_exit 0 env RECKON_TEST_FAULT=$step "$RECKON" check --source "$(conn $SRC)" \
			--target "$(conn $TGT)" "${ORDERS_OPTS[@]}" --report rep
		assert_dir_only rep changes.csv findings.csv report.html rerun.csv summary.json windows.csv
		assert_eq match "$(jget rep/summary.json .verdict)"
		assert_eq "" "$(temporaries .)" "temporaries left with RECKON_TEST_FAULT=$step"
	done
	# nor does it name the variable (the hooked one does)
	if grep -qaF RECKON_TEST_FAULT "$RECKON"; then
		fail "$RECKON holds the string RECKON_TEST_FAULT"
	fi
	_rk_ok
	# nor a test's reader registry (tests/hooks/reader_extra.c)
	if nm "$RECKON" | grep -qw rk_reader_register; then
		fail "$RECKON defines rk_reader_register"
	fi
	_rk_ok
	if [[ -x $RECKON_FAULTS ]]; then
		grep -qaF RECKON_TEST_FAULT "$RECKON_FAULTS" || fail "$RECKON_FAULTS does not read RECKON_TEST_FAULT"
		_rk_ok
		nm "$RECKON_FAULTS" | grep -qw rk_reader_register || fail "$RECKON_FAULTS does not define rk_reader_register"
		_rk_ok
	fi
}

test_report_dir_foreign_files() {
	mkdir rep
	echo "my notes" >rep/notes.txt
	assert_exit 2 check --report rep
	assert_contains "$ERR" "report directory 'rep' holds 'notes.txt', which reckon did not write"
	assert_contains "$ERR" "hint: reckon replaces a report directory as a whole"
	assert_dir_only rep notes.txt
	assert_eq "" "$(temporaries .)" "temporaries left"
	# the rerun list may live in the report directory, under any name
	rm rep/notes.txt
	assert_exit 0 check --report rep --rerun-list rep/todo.csv
	assert_exit 0 check --report rep --rerun-list rep/todo.csv
	assert_dir_only rep changes.csv findings.csv report.html rerun.csv summary.json todo.csv windows.csv
	assert_eq "$RERUN_HEADER" "$(cat rep/todo.csv)"
	# ... but only while it is named: another run's leftover is foreign
	assert_exit 2 check --report rep --rerun-list rep/rerun.csv
	assert_contains "$ERR" "holds 'todo.csv'"
	rm rep/todo.csv
	assert_exit 0 check --report rep --rerun-list rep/rerun.csv
	assert_dir_only rep changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	# a job's layout (LABEL/ directories of report files) is reckon's too,
	# and replaced with the rest
	mkdir rep/orders
	cp rep/windows.csv rep/summary.json rep/orders/
	assert_exit 0 check --report rep
	assert_no_file rep/orders
	mkdir rep/orders
	echo x >rep/orders/x.txt
	assert_exit 2 check --report rep
	assert_contains "$ERR" "holds 'x.txt'"
}

# Starts a slow check (the source reads 0.1 s per row) in the background writing fresh/ and list.csv, lets it
# reach the digest pass, sends signal sig; leaves its exit status in $RC.
signalled() {
	local sig=$1 pid
	"$RECKON" check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS_OPTS[@]}" \
		--source-where "pg_sleep(0.1)::text = ''" --report fresh --rerun-list list.csv >/dev/null 2>err.txt &
	pid=$!
	sleep 1.5
	kill "-$sig" "$pid"
	RC=0
	wait "$pid" || RC=$?
}

test_signals_leave_no_litter() {
	# SIGTERM and SIGINT: no report directory the run would have made, no temporaries
	signalled TERM
	assert_eq 143 "$RC" "exit status after SIGTERM"
	assert_no_file fresh
	assert_no_file list.csv
	assert_eq "" "$(temporaries .)" "temporaries after SIGTERM"
	signalled INT
	assert_eq 130 "$RC" "exit status after SIGINT"
	assert_no_file fresh
	assert_eq "" "$(temporaries .)" "temporaries after SIGINT"
	# SIGKILL leaves its temporaries ...
	signalled KILL
	assert_eq 137 "$RC" "exit status after SIGKILL"
	assert_match "$(temporaries .)" '^fresh\.tmp\.reckon-[0-9]+-.{6} list\.csv\.tmp\.reckon-[0-9]+-.{6} $' \
		"what SIGKILL left"
	# ... which the next run writing the same paths removes
	assert_exit 0 check --report fresh --rerun-list list.csv
	assert_eq "" "$(temporaries .)" "temporaries after the next run"
	assert_dir_only fresh changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	assert_file list.csv
}

# --- a job: index.html and one metrics file for every table ---------------------

test_job_index_and_metrics() {
	mk_orders $TGT
	sql $TGT "drop table mart.\"we\"\"ird\\name\"; create table mart.\"we\"\"ird\\name\" as table mart.orders;
	          delete from mart.orders where order_id = 3 and line_no = 2" >/dev/null
	cat >job.ini <<-EOF
		[defaults]
		source = $(conn $SRC)
		target = $(conn $TGT)
		window = 1h
		from = 2026-03-02T00:00:00Z
		to = 2026-03-02T04:00:00Z
		now = 2026-03-03T00:00:00Z
		key = order_id,line_no
		time = created_at
		sum = amount

		[table orders]
		table = mart.orders

		[table we.ird]
		table = mart."we""ird\name"

		[table gone]
		table = mart.no_such_table
	EOF
	assert_exit 2 rk check --job job.ini --report rep --metrics m.prom
	assert_dir_only rep index.html orders summary.json we.ird
	assert_dir_only rep/orders changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	assert_contains rep/index.html 'data-verdict="error"'
	assert_contains rep/index.html '<tr class="differ" data-label="orders">'
	assert_contains rep/index.html '<a href="orders/report.html">orders</a>'
	assert_contains rep/index.html '<a href="we.ird/report.html">we.ird</a>'
	assert_contains rep/index.html '<tr class="error" data-label="gone">'
	assert_not_contains rep/index.html 'gone/report.html'
	assert_contains rep/orders/report.html '<title>reckon check orders: differ</title>'
	# the headline counts what happened; the job's repair command, and each table's
	assert_contains rep/index.html '<span id="headline">1 differs, 1 failed, 1 matches</span>'
	assert_contains rep/index.html "<pre class=\"cmd\" id=\"repair\">reckon repair --job $T/job.ini --report $T/rep --execute</pre>"
	assert_contains rep/orders/report.html "--job $T/job.ini --report $T/rep --only orders --execute</pre>"
	assert_contains rep/index.html '[2026-03-02T00:00:00Z, 2026-03-02T04:00:00Z) 1h'
	assert_contains rep/index.html 'id="ran-at">'
	assert_contains rep/orders/report.html 'id="ran-at">'
	prom_parse m.prom >parsed || fail "prometheus_client could not parse m.prom: $(cat m.prom)"
	# labelled by job and label; table is the relation, as without a job
	assert_contains parsed "reckon_check_exit_status{job=job,label=orders,table=mart.orders} 1"
	assert_contains parsed 'reckon_check_exit_status{job=job,label=we.ird,table=mart."we""ird\name"} 0'
	assert_contains parsed "reckon_check_exit_status{job=job,label=gone,table=mart.no_such_table} 2"
	assert_contains parsed "reckon_check_findings{job=job,kind=missing,label=orders,table=mart.orders} 1"
	assert_not_contains parsed "label=gone,status=match"
	assert_contains parsed "family reckon_build_info"
	assert_match "$(cat parsed)" 'reckon_build_info\{version=[0-9]+\.[0-9]+\.[0-9]+\} 1'
	# the same relation checked alone: the same table label
	assert_exit 1 rk check --source "$(conn $SRC)" --target "$(conn $TGT)" "${ORDERS_OPTS[@]}" --metrics one.prom
	prom_parse one.prom >one || fail "prometheus_client could not parse one.prom"
	assert_contains one "reckon_check_exit_status{table=mart.orders} 1"
	# the job's report directory is replaced as one set too
	echo mine >rep/notes.txt
	assert_exit 2 rk check --job job.ini --report rep
	assert_contains "$ERR" "holds 'notes.txt'"
	assert_eq "" "$(temporaries .)" "temporaries left"
}

# The demo's damaged sample: every finding has a named cause (none
# unclassified), and the changed row's values are in every output.
test_demo_every_finding_named() {
	assert_exit 1 rk check --source "$(conn demo_source)" --target "$(conn demo_target)" --table mart.orders \
		--key order_id,line_no --time created_at --sum amount --columns order_id,line_no,created_at,amount,customer \
		--from 2026-03-02T00:00:00Z --to 2026-03-03T00:00:00Z --window 1h --now 2026-03-03T06:00:00Z \
		--report rep
	assert_eq "boundary unbumped_update gap repeat" "$(jq -r '[.diagnosis[].pattern] | join(" ")' rep/summary.json)"
	assert_eq 5 "$(jq '[.diagnosis[].findings] | add' rep/summary.json)" "findings placed"
	assert_not_contains "$OUT" unclassified
	assert_file_eq rep/changes.csv - <<-EOF2
		window_start,window_end,order_id,line_no,column,source_value,target_value
		2026-03-02T19:00:00Z,2026-03-02T20:00:00Z,1080,2,amount,482.40,492.40
	EOF2
	assert_contains "$OUT" "(1080, 2): amount 482.40 -> 492.40"
	assert_contains rep/report.html '<td class="mono">amount</td><td class="mono">482.40</td><td class="mono">492.40</td>'
}

# --- where the report goes: checked before the work ----------------------------

# A rerun list named inside a report directory that does not exist yet:
# failed with exit 3 "No such file or directory" (the directory is created
# by the swap, after the check), and once the directory existed it was
# refused as a file reckon did not write.  Now it is part of the set, on the
# first run and every later one.
test_rerun_list_inside_new_report() {
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2" >/dev/null
	assert_exit 1 check --report fresh --rerun-list fresh/todo.csv
	assert_dir_only fresh changes.csv findings.csv report.html rerun.csv summary.json todo.csv windows.csv
	assert_file_eq fresh/todo.csv fresh/rerun.csv
	assert_exit 1 check --report fresh --rerun-list fresh/todo.csv
	assert_dir_only fresh changes.csv findings.csv report.html rerun.csv summary.json todo.csv windows.csv
	# the set's own name, spelled through the trailing slash and ./
	assert_exit 1 check --report ./new/ --rerun-list new/rerun.csv
	assert_dir_only new changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	assert_exit 1 check --report new --rerun-list ./new/rerun.csv
	assert_dir_only new changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	# a repair reads it from there
	assert_exit 0 rk repair --source "$(conn $SRC)" --target "$(conn $TGT)" --table mart.orders \
		--key order_id,line_no --time created_at --rerun-list fresh/todo.csv
	mk_orders $TGT
}

# --report DIR/ works as DIR; '.', '' and paths reckon cannot replace are
# refused before any work (they failed after the whole check, exit 3, the
# results lost).
test_report_path_checked_first() {
	assert_exit 0 check --report slash/
	assert_dir_only slash changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	assert_exit 0 check --report slash//
	assert_dir_only slash changes.csv findings.csv report.html rerun.csv summary.json windows.csv
	assert_eq "" "$(temporaries .)" "temporaries left"
	local p
	for p in . "" ./ .. slash/. slash/.. /; do
		assert_exit 2 check --report "$p" --audit "host=127.0.0.1 port=$(closed_port) dbname=x"
		assert_contains "$ERR" "option --report"
		assert_contains "$ERR" "hint: "
		# refused before any work: no connection was tried
		assert_not_contains "$ERR" "127.0.0.1"
	done
	assert_exit 2 check --report ""
	assert_contains "$ERR" "option --report needs a directory name"
	assert_exit 2 check --report .
	assert_contains "$ERR" "option --report . names the current directory"
	assert_exit 2 check --report missing/parent/rep
	assert_contains "$ERR" "option --report missing/parent/rep: directory 'missing' does not exist"
	echo x >plain
	assert_exit 2 check --report plain
	assert_contains "$ERR" "option --report plain is not a directory"
	assert_exit 2 check --report plain/rep
	assert_contains "$ERR" "option --report plain/rep: 'plain' is not a directory"
}

# --- quiet cron, loud damage -----------------------------------------------------

# The cron line of docs/cron.md sends stdout to /dev/null: a check that
# differs says so in one line on stderr (which cron mails), one that
# matches says nothing, and --quiet silences the line.
test_differences_reach_stderr_in_one_line() {
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2" >/dev/null
	assert_exit 1 check --report rep
	assert_eq 1 "$(wc -l <"$ERR")" "lines on stderr: $(cat "$ERR")"
	assert_eq "reckon: differ: mart.orders: 1 of 4 closed windows differs: 1 missing; see rep/report.html" \
		"$(cat "$ERR")"
	assert_exit 1 check --rerun-list todo.csv
	assert_eq "reckon: differ: mart.orders: 1 of 4 closed windows differs: 1 missing; rerun list todo.csv" \
		"$(cat "$ERR")"
	assert_exit 1 check --quiet --format json
	assert_eq "" "$(cat "$ERR")" "stderr with --quiet"
	# the documented cron command: its mail is the stderr line
	local line
	line=$(sed -n 's/^30 2 \* \* \*  reckon  //p' "$RK_REPO/docs/cron.md")
	assert_match "$line" '^reckon check .*>/dev/null$'
	mk_orders $TGT
	assert_exit 0 check
	assert_eq "" "$(cat "$ERR")" "stderr of a match"
}

test_a_job_that_differs_says_so_on_stderr() {
	mk_orders $TGT
	sql $TGT "delete from mart.orders where order_id = 3 and line_no = 2" >/dev/null
	cat >job.ini <<-EOF
		[defaults]
		source = $(conn $SRC)
		target = $(conn $TGT)
		window = 1h
		from = 2026-03-02T00:00:00Z
		to = 2026-03-02T04:00:00Z
		now = 2026-03-03T00:00:00Z
		key = order_id,line_no
		time = created_at

		[table orders]
		table = mart.orders

		[table again]
		table = mart.big
		key = order_id,line_no

		[table gone]
		table = mart.no_such_table
	EOF
	assert_exit 2 rk check --job job.ini --report rep
	assert_contains "$OUT" "job: 1 differs, 1 failed, 1 matches, exit status 2"
	assert_eq 1 "$(grep -c '^reckon: differ: ' "$ERR")" "differ lines: $(cat "$ERR")"
	assert_contains "$ERR" "reckon: differ: job job.ini: 1 differs, 1 failed, 1 matches (differ: orders); see rep/index.html"
	assert_contains "$ERR" "reckon: error: table gone:"
	assert_exit 2 rk check --job job.ini --quiet
	assert_not_contains "$ERR" 'reckon: differ: '
}
