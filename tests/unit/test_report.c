/*
 * test_report.c - what a check shows people and monitors, from synthetic
 * results (no server): the HTML template renderer and its escaping,
 * report.html (hostile key values, 10,000 windows within 5 MB), a job's
 * index.html, the Prometheus text of --metrics, and sums at their scale.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "check/check.h"
#include "core/buf.h"
#include "core/digest.h"
#include "core/types.h"
#include "report/metrics.h"
#include "report/report.h"
#include "report/tpl.h"

/* ------------------------------------------------------------------------
 * a synthetic result
 * ---------------------------------------------------------------------- */

#define FROM INT64_C(1772409600000000) /* 2026-03-02T00:00:00Z */
#define HOUR INT64_C(3600000000)

static rk_check_spec spec;

/* nwin hourly windows from FROM, the last nopen open; every window whose
 * index is in differ[] (or every closed one when all_differ) differs with
 * one missing key per entry of keys; one sum column "amount", scale 2. */
static rk_check_result *result(size_t nwin, size_t nopen, const size_t *differ, size_t ndiffer, bool all_differ,
                               const char *const *keys, size_t nkeys)
{
	rk_check_result *r = rk_xcalloc(1, sizeof *r);
	size_t nf = 0;

	memset(&spec, 0, sizeof spec);
	spec.from = FROM;
	spec.to = FROM + (rk_usec)nwin * HOUR;
	spec.width = HOUR;
	spec.settle = 600 * INT64_C(1000000);
	spec.now = spec.to + HOUR;
	spec.time = "created_at";
	spec.target.table = "mart.orders";
	spec.findings = true;
	r->nwindows = nwin;
	r->nclosed = nwin - nopen;
	r->from = FROM;
	r->width = HOUR;
	r->bounds = rk_xcalloc(nwin + 1, sizeof *r->bounds);
	for (size_t w = 0; w <= nwin; w++)
		r->bounds[w] = FROM + (rk_usec)w * HOUR;
	r->nsum = 1;
	r->nkey = 1;
	r->status = rk_xcalloc(nwin, sizeof *r->status);
	r->win_kind = rk_xcalloc(nwin, sizeof *r->win_kind);
	r->key_names = rk_xcalloc(1, sizeof *r->key_names);
	r->key_names[0] = rk_xstrdup("order_id");
	r->sum_names = rk_xcalloc(1, sizeof *r->sum_names);
	r->sum_names[0] = rk_xstrdup("amount");
	r->sum_scale = rk_xcalloc(1, sizeof *r->sum_scale);
	r->sum_scale[0] = 2;
	r->column_names = rk_xcalloc(1, sizeof *r->column_names);
	r->column_names[0] = rk_xstrdup("order_id");
	r->ncolumns = 1;
	r->key_origin = "--key";
	for (int s = 0; s < 2; s++) {
		r->side[s].describe = rk_xstrdup(s ? "target table mart.orders" : "source table mart.orders");
		r->side[s].rows = rk_xcalloc(nwin, sizeof(uint64_t));
		r->side[s].hash = rk_xcalloc(nwin, sizeof(rk_u128));
		r->side[s].sums = rk_xcalloc(nwin, sizeof(rk_sum));
	}
	r->findings = rk_xcalloc(nwin * (nkeys ? nkeys : 1), sizeof *r->findings);
	for (size_t w = 0; w < nwin; w++) {
		bool d = all_differ && w < r->nclosed;
		const char *why;

		for (size_t i = 0; i < ndiffer; i++)
			d |= differ[i] == w;
		r->status[w] = w >= r->nclosed ? RK_WIN_OPEN : d ? RK_WIN_DIFFER
		                                                 : RK_WIN_MATCH;
		if (r->status[w] == RK_WIN_OPEN)
			continue;
		r->side[0].rows[w] = 10 + nkeys * d;
		r->side[1].rows[w] = 10;
		assert_int_equal(rk_sum_add(&r->side[0].sums[w], "2030874.8", 9, &why), 0);
		assert_int_equal(rk_sum_add(&r->side[1].sums[w], "2030874.8", 9, &why), 0);
		r->side[0].total += r->side[0].rows[w];
		r->side[1].total += r->side[1].rows[w];
		if (!d)
			continue;
		r->differ = true;
		for (size_t k = 0; k < nkeys; k++) {
			rk_finding *f = &r->findings[nf++];

			f->window = w;
			f->kind = RK_FIND_MISSING;
			f->key = rk_keypool_key(&r->key_pool, &keys[k], NULL, 1);
			f->source_copies = 1;
			r->win_kind[w][RK_FIND_MISSING]++;
			r->kind_count[RK_FIND_MISSING]++;
		}
	}
	r->nfindings = nf;
	return r;
}

/* report.html of r, as a new string. */
static char *html_of(const rk_check_result *r, const json_t *summary, size_t *len)
{
	rk_report_ctx c = { .spec = &spec, .key_names = (const char *const *)r->key_names, .sum_names = (const char *const *)r->sum_names };
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	rk_error err;

	assert_non_null(f);
	rk_error_clear(&err);
	assert_int_equal(rk_report_html(f, &c, r, summary, &err), 0);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* The timeline's cells of a status (the legend's samples have no title). */
static size_t cells(const char *h, const char *status)
{
	char a[64], b[64];

	snprintf(a, sizeof a, "class=\"w %s\" href=", status);
	snprintf(b, sizeof b, "class=\"w %s\" title=", status);
	return count(h, a) + count(h, b);
}

/* ------------------------------------------------------------------------
 * the template renderer
 * ---------------------------------------------------------------------- */

static char *render(const char *tpl, json_t *view, int *rc)
{
	rk_buf out = RK_BUF_INIT;
	rk_error err;

	rk_error_clear(&err);
	*rc = rk_tpl_render(&out, tpl, view, &err);
	json_decref(view);
	rk_buf_cstr(&out);
	return out.data;
}

static void test_tpl_values_and_sections(void **state)
{
	json_t *v = json_pack("{s:s, s:i, s:[s,s], s:[{s:s},{s:s}], s:b, s:{s:s}, s:[], s:s}", "name", "a<b>&\"c'", "n",
	                      42, "list", "x", "y&", "objs", "k", "1", "k", "2", "flag", 0, "obj", "inner", "in",
	                      "empty", "blank", "");
	int rc;
	char *s = render("{{! a comment }}[{{name}}] {{n}} {{#list}}<{{.}}>{{/list}} {{#objs}}({{k}}:{{n}}){{/objs}}"
	                 "{{#flag}}F{{/flag}}{{^flag}}!F{{/flag}} {{#obj}}{{inner}}{{/obj}} {{obj.inner}}"
	                 "{{#empty}}E{{/empty}}{{^empty}}no{{/empty}}{{#blank}}B{{/blank}}{{#missing}}M{{/missing}}",
	                 v, &rc);

	assert_int_equal(rc, 0);
	assert_string_equal(s, "[a&lt;b&gt;&amp;&quot;c&#39;] 42 <x><y&amp;> (1:42)(2:42)!F in inno");
	free(s);
}

static void test_tpl_mistakes(void **state)
{
	int rc;
	char *s;

	s = render("a {{nope}} b", json_object(), &rc);
	assert_int_equal(rc, -1);
	free(s);
	s = render("{{#a}} never closed", json_pack("{s:b}", "a", 1), &rc);
	assert_int_equal(rc, -1);
	free(s);
	s = render("{{/a}}", json_object(), &rc);
	assert_int_equal(rc, -1);
	free(s);
	s = render("{{o}}", json_pack("{s:{}}", "o"), &rc);
	assert_int_equal(rc, -1);
	free(s);
	/* nested sections of the same name close in order */
	s = render("{{#a}}{{#b}}{{#a}}x{{/a}}{{/b}}{{/a}}", json_pack("{s:b,s:b}", "a", 1, "b", 1), &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(s, "x");
	free(s);
}

static void test_tpl_text_sanitises(void **state)
{
	json_t *j = rk_tpl_text("ok \xc3\xa9 \xff\xfe bell\x07 esc\x1b[31m nl\n");

	assert_non_null(j);
	assert_string_equal(json_string_value(j), "ok \xc3\xa9 \\xff\\xfe bell\\x07 esc\\x1b[31m nl\\x0a");
	json_decref(j);
	/* overlong and surrogate forms are no UTF-8 either */
	j = rk_tpl_text("\xc0\xaf \xed\xa0\x80");
	assert_string_equal(json_string_value(j), "\\xc0\\xaf \\xed\\xa0\\x80");
	json_decref(j);
}

/* ------------------------------------------------------------------------
 * report.html
 * ---------------------------------------------------------------------- */

static void test_html_hostile_keys(void **state)
{
	static const char *const keys[] = { "<script>alert(1)</script>", "\"quoted\" & 'single'", "bad \xff\xfe utf8",
		                            "<img src=x onerror=alert(2)>", NULL };
	size_t differ[] = { 1 };
	rk_check_result *r = result(4, 1, differ, 1, false, keys, 5);
	char *h;

	free(r->column_names[0]);
	r->column_names[0] = rk_xstrdup("col</td><script>");
	h = html_of(r, NULL, NULL);
	assert_null(strstr(h, "<script>"));
	assert_null(strstr(h, "<img"));
	assert_non_null(strstr(h, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(h, "&quot;quoted&quot; &amp; &#39;single&#39;"));
	assert_non_null(strstr(h, "bad \\xff\\xfe utf8"));
	assert_non_null(strstr(h, "col&lt;/td&gt;&lt;script&gt;"));
	assert_non_null(strstr(h, "<code>NULL</code>"));
	/* no script and nothing fetched from elsewhere */
	assert_null(strstr(h, "<script"));
	assert_null(strstr(h, "http:"));
	assert_null(strstr(h, "https:"));
	assert_null(strstr(h, " src=\""));
	assert_null(strstr(h, "@import"));
	/* every window, the damaged one linked to its findings */
	assert_int_equal(cells(h, "match"), 2);
	assert_int_equal(cells(h, "differ"), 1);
	assert_int_equal(cells(h, "open"), 1);
	assert_non_null(strstr(h, "href=\"#w1\""));
	assert_non_null(strstr(h, "id=\"w1\""));
	/* the sum at its column's scale, in the window's title and the damage */
	assert_non_null(strstr(h, "amount 2,030,874.80 / 2,030,874.80"));
	/* a tooltip's lines are lines, not \x0a; a hostile name in it still shows as text */
	assert_null(strstr(h, "\\x0a"));
	assert_non_null(strstr(h, " differ\nsource 15 rows, target 10 rows\namount 2,030,874.80"));
	/* no diagnosis in the result: no such section */
	assert_null(strstr(h, "id=\"causes\""));
	assert_null(strstr(h, "id=\"warnings\""));
	free(h);
	rk_check_result_free(r);
}

/* r's windows made width wide (the findings keep their window indexes). */
static void rewidth(rk_check_result *r, rk_usec width)
{
	r->width = spec.width = width;
	for (size_t w = 0; w <= r->nwindows; w++)
		r->bounds[w] = FROM + (rk_usec)w * width;
	spec.to = FROM + (rk_usec)r->nwindows * width;
	spec.now = spec.to + HOUR;
}

/* The timeline: an axis of hours over a row per day, marks that share the
 * row's width (5-minute windows: 288 a row, one per window), several windows
 * a mark when a day holds more (1-minute windows: 5 a mark), the damaged
 * ones always shown; rows of windows that do not tile days labelled with
 * their start. */
static void test_html_timeline_axis_and_scale(void **state)
{
	const char *keys[] = { "1" };
	size_t differ[] = { 100 };
	rk_check_result *r = result(2 * 288, 0, differ, 1, false, keys, 1);
	char *h;

	rewidth(r, 5 * 60 * INT64_C(1000000));
	h = html_of(r, NULL, NULL);
	assert_int_equal(count(h, "<div class=\"tl-row\"><span class=\"tl-label\">2026-03-0"), 2);
	assert_non_null(strstr(h, "<span class=\"tl-label\">2026-03-03</span>"));
	for (int hr = 0; hr < 24; hr += 3) {
		char tick[64];

		snprintf(tick, sizeof tick, "%%\">%02d:00</span>", hr);
		assert_non_null(strstr(h, tick));
	}
	assert_int_equal(cells(h, "match"), 2 * 288 - 1);
	assert_int_equal(cells(h, "differ"), 1);
	assert_non_null(strstr(h, "href=\"#w100\" title=\"2026-03-02T08:20:00Z differ"));
	assert_non_null(strstr(h, "each mark is one window of 5m; a row per UTC day"));
	assert_non_null(strstr(h, "<div class=\"timeline dense\">"));
	free(h);
	rk_check_result_free(r);

	differ[0] = 7;
	r = result(1440 + 60, 0, differ, 1, false, keys, 1);
	rewidth(r, 60 * INT64_C(1000000));
	h = html_of(r, NULL, NULL);
	/* a day of 1440 windows in 288 marks, the next hour in 12 and padding */
	assert_int_equal(cells(h, "match") + cells(h, "differ"), 288 + 12);
	assert_int_equal(count(h, "<span class=\"w pad\"></span>"), 288 - 12);
	assert_int_equal(cells(h, "differ"), 1);
	assert_non_null(strstr(h, "href=\"#w7\" title=\"2026-03-02T00:05:00Z to 2026-03-02T00:10:00Z: 5 windows, "
	                          "1 differ, 4 match\nsource 51 rows, target 50 rows\ndiffers: 2026-03-02T00:07:00Z\""));
	assert_non_null(strstr(h, "each mark is 5 windows of 1m, shown as the worst of them"));
	free(h);
	rk_check_result_free(r);

	/* 7-minute windows do not tile days: rows of 96 labelled with their start */
	differ[0] = 150;
	r = result(200, 0, differ, 1, false, keys, 1);
	rewidth(r, 7 * 60 * INT64_C(1000000));
	h = html_of(r, NULL, NULL);
	assert_int_equal(count(h, "<div class=\"tl-row\"><span class=\"tl-label\">2026"), 3);
	assert_non_null(strstr(h, "<span class=\"tl-label\">2026-03-02T11:12:00Z</span>"));
	assert_non_null(strstr(h, "<span class=\"tl-label\">2026-03-02T22:24:00Z</span>"));
	assert_non_null(strstr(h, "<div class=\"timeline spans\">"));
	assert_non_null(strstr(h, ">+2h48m</span>"));
	assert_int_equal(cells(h, "match") + cells(h, "differ"), 200);
	assert_int_equal(count(h, "<span class=\"w pad\"></span>"), 3 * 96 - 200);
	assert_non_null(strstr(h, "href=\"#w150\""));
	free(h);
	rk_check_result_free(r);
}

static void test_html_diagnosis_from_summary(void **state)
{
	size_t differ[] = { 2 };
	static const char *const keys[] = { "7" };
	rk_check_result *r = result(4, 0, differ, 1, false, keys, 1);
	json_t *summary = json_pack(
	        "{s:[{s:s, s:[s], s:i, s:s, s:{s:s}, s:s}], s:[s, {s:s}]}", "diagnosis", "pattern", "gap", "windows",
	        "2026-03-02T02:00:00Z", "keys", 1, "cause", "a run's rows <never> arrived", "evidence", "lag", "3h",
	        "next_step", "repair the window", "warnings", "source transaction open since 01:00 & still running",
	        "message", "key not unique");
	char *h = html_of(r, summary, NULL);

	assert_non_null(strstr(h, "id=\"causes\""));
	assert_non_null(strstr(h, "data-pattern=\"gap\""));
	assert_non_null(strstr(h, "a run&#39;s rows &lt;never&gt; arrived"));
	assert_non_null(strstr(h, "{&quot;lag&quot;:&quot;3h&quot;}"));
	assert_non_null(strstr(h, "href=\"#w2\""));
	assert_non_null(strstr(h, "open since 01:00 &amp; still running"));
	assert_non_null(strstr(h, "key not unique"));
	json_decref(summary);
	free(h);
	rk_check_result_free(r);
}

static void test_html_ten_thousand_windows(void **state)
{
	static const char *const keys[] = { "(1000001, 1)", "(1000002, 2)", "(1000003, 1)", "(1000004, 2)",
		                            "(1000005, 1)", "(1000006, 2)", "(1000007, 1)" };
	rk_check_result *r = result(10000, 0, NULL, 0, true, keys, 7);
	size_t len;
	char *h = html_of(r, NULL, &len);

	/* every window is in the timeline; the detail is capped */
	assert_int_equal(cells(h, "differ"), 10000);
	print_message("report.html of 10,000 damaged windows: %zu bytes\n", len);
	assert_true(len < 5u * 1024 * 1024);
	assert_non_null(strstr(h, "more damaged windows are not shown here"));
	free(h);
	rk_check_result_free(r);
}

static void test_index_html(void **state)
{
	json_t *ok = json_pack("{s:s, s:{s:i, s:i}, s:{s:i}, s:i, s:i, s:f}", "verdict", "match", "windows", "checked",
	                       24, "differ", 0, "findings", "missing", 0, "source_rows", 200, "target_rows", 200,
	                       "seconds", 1.5);
	json_t *bad = json_pack("{s:s, s:i, s:s}", "verdict", "error", "exit_status", 3, "error",
	                        "connection to <server> refused");
	json_t *differ = json_pack("{s:s, s:{s:i, s:i}, s:{s:i}, s:i, s:i, s:f, s:{s:s, s:s, s:s}}", "verdict", "differ",
	                           "windows", "checked", 24, "differ", 1, "findings", "missing", 1234567, "source_rows",
	                           2000000, "target_rows", 765433, "seconds", 12.25, "range", "from",
	                           "2026-03-02T00:00:00Z", "to", "2026-03-03T00:00:00Z", "window", "1h");
	rk_report_index_row rows[] = { { "orders", ok }, { "we<ird>", bad }, { "lines", differ } };
	rk_report_index ix = { "nightly.ini", "reckon repair --job /etc/reckon/nightly.ini --report '/var/r e' --execute",
		               (rk_usec)1764621000 * RK_USEC_PER_SEC + 123456 };
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	rk_error err;

	assert_int_equal(rk_report_index_html(f, &ix, rows, 3, &err), 0);
	fclose(f);
	assert_non_null(strstr(buf, "href=\"orders/report.html\""));
	assert_null(strstr(buf, "we&lt;ird&gt;/report.html"));
	assert_non_null(strstr(buf, "connection to &lt;server&gt; refused"));
	assert_non_null(strstr(buf, "data-verdict=\"error\""));
	/* the headline counts what happened */
	assert_non_null(strstr(buf, "<span id=\"headline\">1 differs, 1 failed, 1 matches</span>"));
	/* numbers with thousands separators; the range checked; when it ran */
	assert_non_null(strstr(buf, ">1,234,567<"));
	assert_non_null(strstr(buf, ">2,000,000<"));
	assert_non_null(strstr(buf, ">12.2<") ? strstr(buf, ">12.2<") : strstr(buf, ">12.3<"));
	assert_non_null(strstr(buf, "[2026-03-02T00:00:00Z, 2026-03-03T00:00:00Z) 1h"));
	assert_non_null(strstr(buf, "<span class=\"mono\" id=\"ran-at\">2025-12-01T20:30:00Z</span>"));
	/* the repair command to paste, escaped */
	assert_non_null(strstr(buf, "<pre class=\"cmd\" id=\"repair\">reckon repair --job /etc/reckon/nightly.ini "
	                            "--report &#39;/var/r e&#39; --execute</pre>"));
	assert_null(strstr(buf, "<script"));
	free(buf);
	json_decref(ok);
	json_decref(bad);
	json_decref(differ);
}

/* ------------------------------------------------------------------------
 * metrics
 * ---------------------------------------------------------------------- */

static void test_metrics_text(void **state)
{
	size_t differ[] = { 0 };
	static const char *const keys[] = { "1", "2" };
	rk_check_result *r = result(3, 1, differ, 1, false, keys, 2);
	rk_metrics_table t[2] = {
		{ .table = "mart.\"we\\ird\"\nname", .result = r, .exit_status = 1, .seconds = 1.25, .finished = FROM + 1500 },
		{ .table = "failed", .exit_status = 3, .seconds = 0.5, .finished = FROM },
	};
	rk_metrics_table in_job = { .table = "mart.orders", .job = "nightly", .label = "orders", .result = r, .exit_status = 1, .seconds = 1, .finished = FROM };
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_int_equal(rk_metrics_write(f, t, 2), 0);
	fclose(f);
	assert_non_null(strstr(buf, "# HELP reckon_check_windows "));
	assert_non_null(strstr(buf, "# TYPE reckon_check_windows gauge\n"));
	assert_non_null(strstr(buf, "reckon_check_windows{table=\"mart.\\\"we\\\\ird\\\"\\nname\",status=\"differ\"} 1\n"));
	assert_non_null(strstr(buf, "reckon_check_windows{table=\"mart.\\\"we\\\\ird\\\"\\nname\",status=\"open\"} 1\n"));
	assert_non_null(strstr(buf, ",kind=\"missing\"} 2\n"));
	assert_non_null(strstr(buf, ",side=\"source\"} 22\n"));
	assert_non_null(strstr(buf, "reckon_check_exit_status{table=\"failed\"} 3\n"));
	assert_non_null(strstr(buf, "reckon_check_last_run_timestamp_seconds{table=\"failed\"} 1772409600.000\n"));
	assert_non_null(strstr(buf, "reckon_check_duration_seconds{table=\"failed\"} 0.500\n"));
	/* a failed table has no windows, findings or rows */
	assert_null(strstr(buf, "reckon_check_windows{table=\"failed\""));
	/* which reckon wrote it */
	assert_non_null(strstr(buf, "# TYPE reckon_build_info gauge\nreckon_build_info{version=\"" RK_VERSION "\"} 1\n"));
	free(buf);
	/* a job's table: its job and label, and table the relation as without a job */
	f = open_memstream(&buf, &n);
	assert_int_equal(rk_metrics_write(f, &in_job, 1), 0);
	fclose(f);
	assert_non_null(strstr(buf, "reckon_check_windows{job=\"nightly\",label=\"orders\",table=\"mart.orders\","
	                            "status=\"differ\"} 1\n"));
	assert_non_null(strstr(buf, "reckon_check_exit_status{job=\"nightly\",label=\"orders\",table=\"mart.orders\"} 1\n"));
	free(buf);
	rk_check_result_free(r);
}

/* ------------------------------------------------------------------------
 * sums at their scale
 * ---------------------------------------------------------------------- */

/* rk_report_path: "rep/" is "rep"; names reckon cannot replace as a whole,
 * a missing parent and a file are refused (exit 2, with a hint). */
static void test_report_path(void **state)
{
	static const char *const refused[] = { "", ".", "./", "..", "../", "/", "//", "a/.", "a/..", "a/../" };
	char base[] = "/tmp/rk-report-path.XXXXXX", p[256];
	rk_error err;
	char *dir;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		rk_error_clear(&err);
		if ((dir = rk_report_path("--report", refused[i], &err)) != NULL)
			fail_msg("--report '%s' was taken as '%s'", refused[i], dir);
		assert_int_equal(err.code, RK_EXIT_USAGE);
		assert_true(strstr(err.msg, "option --report") != NULL);
		assert_true(err.hint[0] != '\0');
	}
	assert_non_null(mkdtemp(base));
	snprintf(p, sizeof p, "%s/rep//", base);
	dir = rk_report_path("--report", p, &err);
	assert_non_null(dir);
	snprintf(p, sizeof p, "%s/rep", base);
	assert_string_equal(dir, p);
	free(dir);
	snprintf(p, sizeof p, "%s/", base);
	dir = rk_report_path("--report", p, &err);
	assert_string_equal(dir, base);
	free(dir);
	/* no parent; a file in the way, as the path or as its parent */
	snprintf(p, sizeof p, "%s/none/rep", base);
	rk_error_clear(&err);
	assert_null(rk_report_path("--report", p, &err));
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_true(strstr(err.msg, "/none' does not exist") != NULL);
	snprintf(p, sizeof p, "%s/plain", base);
	assert_non_null(f = fopen(p, "w"));
	fclose(f);
	rk_error_clear(&err);
	assert_null(rk_report_path("--report", p, &err));
	assert_true(strstr(err.msg, "is not a directory") != NULL);
	snprintf(p, sizeof p, "%s/plain/rep", base);
	rk_error_clear(&err);
	assert_null(rk_report_path("--report", p, &err));
	assert_true(strstr(err.msg, "/plain' is not a directory") != NULL);
	snprintf(p, sizeof p, "%s/plain", base);
	remove(p);
	rmdir(base);
}

static void test_sum_scale(void **state)
{
	rk_sum s;
	char out[RK_SUM_STRLEN];
	const char *why;

	memset(&s, 0, sizeof s);
	assert_int_equal(rk_sum_add(&s, "2030874.8", 9, &why), 0);
	assert_string_equal(rk_sum_format_scale(&s, 2, out), "2030874.80");
	assert_string_equal(rk_sum_format_scale(&s, -1, out), "2030874.8");
	assert_string_equal(rk_sum_format_scale(&s, 0, out), "2030874.8"); /* never hides a digit */
	memset(&s, 0, sizeof s);
	assert_int_equal(rk_sum_add(&s, "12", 2, &why), 0);
	assert_string_equal(rk_sum_format_scale(&s, 3, out), "12.000");
	memset(&s, 0, sizeof s);
	assert_string_equal(rk_sum_format_scale(&s, 2, out), "0.00");
	assert_int_equal(rk_sum_add(&s, "-0.5", 4, &why), 0);
	assert_string_equal(rk_sum_format_scale(&s, 2, out), "-0.50");
	assert_int_equal(rk_sum_add(&s, "NaN", 3, &why), 0);
	assert_string_equal(rk_sum_format_scale(&s, 2, out), "NaN");

	assert_int_equal(rk_type_scale("numeric(12,2)"), 2);
	assert_int_equal(rk_type_scale("NUMERIC(12, 4)"), 4);
	assert_int_equal(rk_type_scale("numeric(5)"), 0);
	assert_int_equal(rk_type_scale("numeric(2,-3)"), 0);
	assert_int_equal(rk_type_scale("numeric"), -1);
	assert_int_equal(rk_type_scale("decimal(10,3)"), 3);
	assert_int_equal(rk_type_scale("bigint"), 0);
	assert_int_equal(rk_type_scale("text"), -1);
	assert_int_equal(rk_type_scale("double precision"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_path),
		cmocka_unit_test(test_tpl_values_and_sections),
		cmocka_unit_test(test_tpl_mistakes),
		cmocka_unit_test(test_tpl_text_sanitises),
		cmocka_unit_test(test_html_hostile_keys),
		cmocka_unit_test(test_html_diagnosis_from_summary),
		cmocka_unit_test(test_html_timeline_axis_and_scale),
		cmocka_unit_test(test_html_ten_thousand_windows),
		cmocka_unit_test(test_index_html),
		cmocka_unit_test(test_metrics_text),
		cmocka_unit_test(test_sum_scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
