/*
 * html.c - report.html and a job's index.html: the views the templates
 * src/report/report.html.in and index.html.in are filled from (report.h).
 *
 * The pages are built for the size of a long range: every window is one
 * small element of the timeline (its counts and sums in its title), while
 * the detailed lists are capped and point at the CSV files for the rest,
 * so that 10,000 windows stay a page of a few megabytes that a browser
 * opens at once.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/timeutil.h"
#include "report/report.h"
#include "report/report_impl.h"
#include "report/tpl.h"
#include "rk_tpl.h"

/* Damaged windows shown with their findings; the rest are in findings.csv. */
#define RK_HTML_MAX_DAMAGE 500
/* Intervals of the rerun list shown; the rest are in rerun.csv. */
#define RK_HTML_MAX_RERUN 2000
/* Keys of each kind shown per damaged window. */
#define RK_HTML_KEYS 5
/* Windows listed per likely cause. */
#define RK_HTML_CAUSE_WINDOWS 12
/* The timeline has a row per day when a day holds at most this many
 * windows (15-minute windows and wider); else one wrapped row. */
#define RK_HTML_DAY_CELLS 96

static void rk_set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v);
}

static json_t *rk_time_str(rk_usec t)
{
	char a[RK_TIME_STRLEN];

	return json_string(rk_time_format(t, a));
}

static json_t *rk_uint(uint64_t n)
{
	return json_integer((json_int_t)n);
}

/* names joined with ", " for the page (a new reference). */
static json_t *rk_joined(char *const *names, size_t n)
{
	rk_buf b = RK_BUF_INIT;
	json_t *j;

	for (size_t i = 0; i < n; i++)
		rk_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	j = rk_tpl_text(rk_buf_cstr(&b));
	rk_buf_free(&b);
	return j;
}

static json_t *rk_texts(char *const *names, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, rk_tpl_text(names[i]));
	return a;
}

static char *rk_sum_text(const rk_check_result *r, int side, size_t w, size_t j, char out[RK_SUM_STRLEN])
{
	return rk_sum_format_scale(&r->side[side].sums[w * r->nsum + j], r->sum_scale ? r->sum_scale[j] : -1, out);
}

/* The anchor of window w's damage section. */
static json_t *rk_anchor(size_t w)
{
	char a[32];

	snprintf(a, sizeof a, "w%zu", w);
	return json_string(a);
}

/* A window's tooltip: start, status, counts and sums. */
static json_t *rk_cell_title(const rk_report_ctx *c, const rk_check_result *r, size_t w, rk_buf *b)
{
	char a[RK_TIME_STRLEN], s1[RK_SUM_STRLEN], s2[RK_SUM_STRLEN];

	rk_buf_reset(b);
	rk_buf_printf(b, "%s %s", rk_time_format(rk_check_window_start(r, w), a), rk_report_status_name(r->status[w]));
	if (r->status[w] == RK_WIN_OPEN)
		return json_string(rk_buf_cstr(b));
	rk_buf_printf(b, "\nsource %llu rows, target %llu rows", (unsigned long long)r->side[0].rows[w],
	              (unsigned long long)r->side[1].rows[w]);
	for (size_t j = 0; j < r->nsum; j++)
		rk_buf_printf(b, "\n%s %s / %s", c->sum_names[j], rk_sum_text(r, 0, w, j, s1), rk_sum_text(r, 1, w, j, s2));
	if (r->status[w] == RK_WIN_DIFFER) {
		for (int k = 0; k < RK_FIND_NKINDS; k++)
			if (r->win_kind[w][k])
				rk_buf_printf(b, "\n%s %u", rk_find_kind_name((rk_find_kind)k), r->win_kind[w][k]);
	}
	return rk_tpl_text(rk_buf_cstr(b));
}

/* The timeline: a row per UTC day when the windows tile days, padded so
 * that equal times of day line up; else one row that wraps. */
static json_t *rk_view_timeline(const rk_report_ctx *c, const rk_check_result *r, size_t shown_damage)
{
	json_t *rows = json_array(), *row = NULL, *cells = NULL;
	bool by_day = !r->calendar && r->width <= RK_USEC_PER_DAY && RK_USEC_PER_DAY % r->width == 0 &&
	              RK_USEC_PER_DAY / r->width <= RK_HTML_DAY_CELLS;
	int64_t day = INT64_MIN;
	size_t damaged = 0;
	rk_buf b = RK_BUF_INIT;

	for (size_t w = 0; w < r->nwindows; w++) {
		rk_usec t = rk_check_window_start(r, w);
		int64_t d = t >= 0 ? t / RK_USEC_PER_DAY : -((-t + RK_USEC_PER_DAY - 1) / RK_USEC_PER_DAY);
		json_t *cell = json_object();

		if (!row || (by_day && d != day)) {
			char a[RK_TIME_STRLEN];
			json_t *pad = json_array();

			row = json_object();
			cells = json_array();
			if (by_day) {
				rk_usec into = t - d * RK_USEC_PER_DAY;

				for (rk_usec p = 0; p + r->width <= into; p += r->width)
					json_array_append_new(pad, json_true());
				rk_set(row, "label", json_string(rk_date_format(d, a)));
			} else {
				rk_set(row, "label", json_string(""));
			}
			rk_set(row, "wrap", json_boolean(!by_day));
			rk_set(row, "pad", pad);
			rk_set(row, "cells", cells);
			json_array_append_new(rows, row);
			day = d;
		}
		rk_set(cell, "s", json_string(rk_report_status_name(r->status[w])));
		rk_set(cell, "t", rk_cell_title(c, r, w, &b));
		if (r->status[w] == RK_WIN_DIFFER && damaged++ < shown_damage)
			rk_set(cell, "h", rk_anchor(w));
		json_array_append_new(cells, cell);
	}
	rk_buf_free(&b);
	return rows;
}

/* The damaged windows with their first keys per kind. */
static json_t *rk_view_damage(const rk_report_ctx *c, const rk_check_result *r, size_t *shown)
{
	json_t *dmg = json_object(), *list = json_array();
	size_t fi = 0, n = 0, total = rk_report_count_status(r, RK_WIN_DIFFER);
	rk_buf key = RK_BUF_INIT;

	for (size_t w = 0; w < r->nwindows && n < RK_HTML_MAX_DAMAGE; w++) {
		json_t *it, *sums, *kinds;
		char s1[RK_SUM_STRLEN], s2[RK_SUM_STRLEN];
		uint64_t keys = 0;

		if (r->status[w] != RK_WIN_DIFFER)
			continue;
		n++;
		it = json_object();
		sums = json_array();
		kinds = json_array();
		rk_set(it, "anchor", rk_anchor(w));
		rk_set(it, "start", rk_time_str(rk_check_window_start(r, w)));
		rk_set(it, "end", rk_time_str(rk_check_window_end(r, w)));
		rk_set(it, "source_rows", rk_uint(r->side[0].rows[w]));
		rk_set(it, "target_rows", rk_uint(r->side[1].rows[w]));
		for (size_t j = 0; j < r->nsum; j++) {
			json_t *sm = json_object();

			rk_set(sm, "name", rk_tpl_text(c->sum_names[j]));
			rk_set(sm, "source", json_string(rk_sum_text(r, 0, w, j, s1)));
			rk_set(sm, "target", json_string(rk_sum_text(r, 1, w, j, s2)));
			json_array_append_new(sums, sm);
		}
		while (fi < r->nfindings && r->findings[fi].window < w)
			fi++;
		for (int k = 0; k < RK_FIND_NKINDS; k++) {
			uint32_t cnt = r->win_kind[w][k], got = 0;
			json_t *kind, *shown_keys;

			if (!cnt)
				continue;
			keys += cnt;
			kind = json_object();
			shown_keys = json_array();
			for (size_t i = fi; i < r->nfindings && r->findings[i].window == w && got < RK_HTML_KEYS; i++) {
				if ((int)r->findings[i].kind != k)
					continue;
				rk_buf_reset(&key);
				rk_finding_key_text(&key, r, &r->findings[i]);
				json_array_append_new(shown_keys, rk_tpl_text(rk_buf_cstr(&key)));
				got++;
			}
			rk_set(kind, "kind", json_string(rk_find_kind_name((rk_find_kind)k)));
			rk_set(kind, "count", json_integer(cnt));
			rk_set(kind, "keys", shown_keys);
			rk_set(kind, "more", json_integer(cnt - got));
			json_array_append_new(kinds, kind);
		}
		rk_set(it, "sums", sums);
		rk_set(it, "has_kinds", json_boolean(json_array_size(kinds) > 0));
		rk_set(it, "kinds", kinds);
		rk_set(it, "unexplained", json_boolean(!keys && c->spec->findings));
		json_array_append_new(list, it);
	}
	rk_buf_free(&key);
	*shown = n;
	rk_set(dmg, "any", json_boolean(total > 0));
	rk_set(dmg, "windows", list);
	rk_set(dmg, "more", rk_uint(total - n));
	return dmg;
}

static json_t *rk_view_rerun(const rk_check_result *r)
{
	json_t *v = json_object(), *items = json_array();
	size_t total = 0;

	for (size_t w = 0; w < r->nwindows; w++) {
		json_t *it;

		if (r->status[w] != RK_WIN_DIFFER || total++ >= RK_HTML_MAX_RERUN)
			continue;
		it = json_object();
		rk_set(it, "anchor", rk_anchor(w));
		rk_set(it, "start", rk_time_str(rk_check_window_start(r, w)));
		rk_set(it, "end", rk_time_str(rk_check_window_end(r, w)));
		rk_set(it, "source_rows", rk_uint(r->side[0].rows[w]));
		rk_set(it, "target_rows", rk_uint(r->side[1].rows[w]));
		for (int k = 0; k < RK_FIND_SOURCE_DUPLICATE; k++)
			rk_set(it, rk_find_kind_name((rk_find_kind)k), json_integer(r->win_kind[w][k]));
		json_array_append_new(items, it);
	}
	rk_set(v, "any", json_boolean(total > 0));
	rk_set(v, "items", items);
	rk_set(v, "more", rk_uint(total > RK_HTML_MAX_RERUN ? total - RK_HTML_MAX_RERUN : 0));
	return v;
}

/* A value of the summary shown as text: a string as it is, anything else
 * as compact JSON (an evidence object, a number). */
static json_t *rk_view_any(const json_t *v)
{
	char *s;
	json_t *j;

	if (!v || json_is_null(v))
		return json_null();
	if (json_is_string(v))
		return json_string(json_string_value(v));
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	j = json_string(s ? s : "");
	free(s);
	return j;
}

/* The window index of a start time, when it is on the grid. */
static bool rk_view_window_of(const rk_check_result *r, const char *start, size_t *w)
{
	rk_usec t;
	const char *why;

	if (rk_time_parse(start, strlen(start), &t, &why) < 0 || t < r->from || t >= r->bounds[r->nwindows])
		return false;
	*w = rk_check_window_of(r, t);
	return r->bounds[*w] == t;
}

/*
 * Likely causes and warnings, from the summary's "diagnosis" and
 * "warnings" (docs/reference.md) when present.  The page takes each field it
 * knows and shows any other value as text, so a richer diagnosis still
 * shows.
 */
static void rk_view_diagnosis(json_t *view, const rk_check_result *r, const json_t *summary)
{
	const json_t *diag = summary ? json_object_get(summary, "diagnosis") : NULL;
	const json_t *warn = summary ? json_object_get(summary, "warnings") : NULL;
	size_t i;
	const json_t *e;

	if (json_is_array(diag) && json_array_size(diag)) {
		json_t *d = json_object(), *items = json_array();

		json_array_foreach(diag, i, e) {
			json_t *it = json_object(), *wins = json_object(), *list = json_array();
			const json_t *ws = json_object_get(e, "windows"), *x;
			size_t k, shown = 0;

			rk_set(it, "pattern", rk_view_any(json_object_get(e, "pattern")));
			rk_set(it, "keys", rk_view_any(json_object_get(e, "keys")));
			rk_set(it, "cause", rk_view_any(json_object_get(e, "cause")));
			rk_set(it, "evidence", rk_view_any(json_object_get(e, "evidence")));
			rk_set(it, "next_step", rk_view_any(json_object_get(e, "next_step")));
			if (json_is_array(ws)) {
				json_array_foreach(ws, k, x) {
					json_t *wv;
					size_t w;

					if (!json_is_string(x) || shown == RK_HTML_CAUSE_WINDOWS)
						continue;
					wv = json_object();
					rk_set(wv, "start", json_string(json_string_value(x)));
					rk_set(wv, "anchor", rk_view_window_of(r, json_string_value(x), &w) ? rk_anchor(w)
					                                                                  : json_string("damage"));
					json_array_append_new(list, wv);
					shown++;
				}
				rk_set(wins, "list", list);
				rk_set(wins, "more", rk_uint(json_array_size(ws) - shown));
				rk_set(it, "windows", wins);
			} else {
				json_decref(list);
				json_decref(wins);
				rk_set(it, "windows", json_null());
			}
			json_array_append_new(items, it);
		}
		rk_set(d, "items", items);
		rk_set(view, "diagnosis", d);
	} else {
		rk_set(view, "diagnosis", json_null());
	}
	if (json_is_array(warn) && json_array_size(warn)) {
		json_t *wv = json_object(), *items = json_array();

		json_array_foreach(warn, i, e) {
			const json_t *msg = json_is_object(e) ? json_object_get(e, "message") : NULL;

			json_array_append_new(items, rk_view_any(msg ? msg : e));
		}
		rk_set(wv, "items", items);
		rk_set(view, "warnings", wv);
	} else {
		rk_set(view, "warnings", json_null());
	}
}

static json_t *rk_view_schema(const rk_drift *d)
{
	json_t *sch, *kinds;

	if (!d->nonly[0] && !d->nonly[1] && !d->nkinds)
		return json_null();
	sch = json_object();
	kinds = json_array();
	rk_set(sch, "source_only", rk_texts(d->only[0], d->nonly[0]));
	rk_set(sch, "target_only", rk_texts(d->only[1], d->nonly[1]));
	for (size_t i = 0; i < d->nkinds; i++) {
		json_t *k = json_object();

		rk_set(k, "column", rk_tpl_text(d->kinds[i].name));
		rk_set(k, "source_type", rk_tpl_text(d->kinds[i].source_type));
		rk_set(k, "target_type", rk_tpl_text(d->kinds[i].target_type));
		json_array_append_new(kinds, k);
	}
	rk_set(sch, "type_mismatch", kinds);
	return sch;
}

/* The view of report.html (a new reference). */
static json_t *rk_view_report(const rk_report_ctx *c, const rk_check_result *r, const json_t *summary)
{
	const rk_check_spec *sp = c->spec;
	json_t *v = json_object(), *range = json_object(), *counts = json_object(), *rows = json_object();
	json_t *finds = json_array();
	size_t ndiff = rk_report_count_status(r, RK_WIN_DIFFER), shown = 0;
	char d[RK_TIME_STRLEN];
	rk_buf b = RK_BUF_INIT;

	rk_set(v, "version", json_string(RK_VERSION));
	rk_set(v, "title", rk_tpl_text(c->label ? c->label : sp->target.table ? sp->target.table : "?"));
	rk_set(v, "verdict", json_string(r->differ ? "differ" : "match"));
	if (ndiff)
		rk_buf_printf(&b, "%zu of %zu closed windows differ", ndiff, r->nclosed);
	else if (r->differ)
		rk_buf_printf(&b, "every closed window matches, but see below");
	else
		rk_buf_printf(&b, "all %zu closed windows arrived exactly once and unchanged", r->nclosed);
	rk_set(v, "headline", json_string(rk_buf_cstr(&b)));
	rk_set(v, "source", rk_tpl_text(r->side[0].describe ? r->side[0].describe : ""));
	rk_set(v, "target", rk_tpl_text(r->side[1].describe ? r->side[1].describe : ""));
	rk_set(range, "from", rk_time_str(sp->from));
	rk_set(range, "to", rk_time_str(sp->to));
	rk_set(range, "window", json_string(rk_duration_format(sp->width, d)));
	rk_set(range, "settle", json_string(sp->settle ? rk_duration_format(sp->settle, d) : "0s"));
	rk_set(range, "now", rk_time_str(sp->now));
	rk_set(v, "range", range);
	rk_set(v, "nwindows", rk_uint(r->nwindows));
	rk_set(v, "closed", rk_uint(r->nclosed));
	rk_set(v, "open", rk_uint(rk_report_count_status(r, RK_WIN_OPEN)));
	rk_set(v, "key", rk_joined(r->key_names, r->nkey));
	rk_set(v, "key_origin", json_string(r->key_origin && strcmp(r->key_origin, "--key") ? r->key_origin : ""));
	rk_set(v, "columns", rk_joined(r->column_names, r->ncolumns));
	rk_set(v, "ncolumns", rk_uint(r->ncolumns));
	rk_set(v, "whole_row", json_boolean(r->whole_row));
	if (r->nsum) {
		json_t *s = json_object();

		rk_set(s, "names", rk_joined(r->sum_names, r->nsum));
		rk_set(v, "sums", s);
	} else {
		rk_set(v, "sums", json_null());
	}
	rk_set(counts, "checked", rk_uint(r->nclosed));
	rk_set(counts, "matched", rk_uint(rk_report_count_status(r, RK_WIN_MATCH)));
	rk_set(counts, "differ", rk_uint(ndiff));
	rk_set(counts, "open", rk_uint(rk_report_count_status(r, RK_WIN_OPEN)));
	rk_set(v, "counts", counts);
	rk_set(rows, "source", rk_uint(r->side[0].total));
	rk_set(rows, "target", rk_uint(r->side[1].total));
	rk_set(v, "rows", rows);
	for (int k = 0; k < RK_FIND_NKINDS && sp->findings; k++) {
		json_t *f = json_object();

		rk_set(f, "kind", json_string(rk_find_kind_name((rk_find_kind)k)));
		rk_set(f, "count", rk_uint(r->kind_count[k]));
		json_array_append_new(finds, f);
	}
	rk_set(v, "findings", finds);
	if (r->side[0].null_time || r->side[1].null_time) {
		json_t *n = json_object();

		rk_set(n, "column", rk_tpl_text(sp->time ? sp->time : "time"));
		rk_set(n, "source", rk_uint(r->side[0].null_time));
		rk_set(n, "target", rk_uint(r->side[1].null_time));
		rk_set(v, "null_time", n);
	} else {
		rk_set(v, "null_time", json_null());
	}
	if (r->has_watermark) {
		json_t *wm = json_object();

		rk_set(wm, "value", rk_time_str(r->watermark));
		rk_set(wm, "missing", rk_uint(r->behind_watermark_missing));
		rk_set(wm, "holds", json_boolean(r->behind_watermark_missing == 0));
		rk_set(v, "watermark", wm);
	} else {
		rk_set(v, "watermark", json_null());
	}
	rk_set(v, "schema", rk_view_schema(&r->drift));
	rk_view_diagnosis(v, r, summary);
	rk_set(v, "damage", rk_view_damage(c, r, &shown));
	rk_set(v, "timeline", rk_view_timeline(c, r, shown));
	rk_set(v, "rerun", rk_view_rerun(r));
	rk_buf_free(&b);
	return v;
}

/* Renders tpl with view (consumed) to out. */
static int rk_html_emit(FILE *out, const char *tpl, json_t *view, const char *what, rk_error *err)
{
	rk_buf page = RK_BUF_INIT;
	int rc = rk_tpl_render(&page, tpl, view, err);

	json_decref(view);
	if (rc == 0 && page.len && fwrite(page.data, 1, page.len, out) != page.len) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s: %s", what, strerror(errno ? errno : EIO));
		rc = -1;
	}
	rk_buf_free(&page);
	return rc;
}

int rk_report_html(FILE *out, const rk_report_ctx *c, const rk_check_result *r, const json_t *summary,
                   rk_error *err)
{
	return rk_html_emit(out, rk_tpl_report_html, rk_view_report(c, r, summary), "report.html", err);
}

/* An integer member of o (or of o's member sub), or null. */
static json_t *rk_index_num(const json_t *o, const char *sub, const char *k)
{
	const json_t *v = sub ? json_object_get(o, sub) : o;

	v = json_is_object(v) ? json_object_get(v, k) : NULL;
	if (json_is_integer(v))
		return json_integer(json_integer_value(v));
	if (json_is_real(v))
		return json_real(json_real_value(v));
	return json_string("");
}

int rk_report_index_html(FILE *out, const char *title, const rk_report_index_row *rows, size_t n, rk_error *err)
{
	json_t *v = json_object(), *tables = json_array();
	int worst = 0;   /* 0 match, 1 differ, 2 error */
	size_t bad = 0;
	rk_buf b = RK_BUF_INIT;
	static const char *const verdicts[] = {"match", "differ", "error"};

	for (size_t i = 0; i < n; i++) {
		const json_t *s = rows[i].summary;
		json_t *t = json_object(), *rep = json_object();
		const char *vd = json_string_value(json_object_get(s, "verdict"));
		int rank = vd && !strcmp(vd, "match") ? 0 : vd && !strcmp(vd, "differ") ? 1 : 2;

		if (rank > worst)
			worst = rank;
		bad += rank > 0;
		rk_set(t, "label", rk_tpl_text(rows[i].label));
		rk_set(t, "verdict", json_string(verdicts[rank]));
		rk_set(t, "error", rk_view_any(json_object_get(s, "error")));
		rk_buf_reset(&b);
		rk_buf_printf(&b, "%s/report.html", rows[i].label);
		rk_set(rep, "href", rk_tpl_text(rk_buf_cstr(&b)));
		rk_set(t, "report", rank < 2 ? rep : json_null());
		if (rank == 2)
			json_decref(rep);
		rk_set(t, "checked", rk_index_num(s, "windows", "checked"));
		rk_set(t, "differ", rk_index_num(s, "windows", "differ"));
		for (int k = 0; k < RK_FIND_NKINDS; k++)
			rk_set(t, rk_find_kind_name((rk_find_kind)k), rk_index_num(s, "findings", rk_find_kind_name((rk_find_kind)k)));
		rk_set(t, "source_rows", rk_index_num(s, NULL, "source_rows"));
		rk_set(t, "target_rows", rk_index_num(s, NULL, "target_rows"));
		rk_set(t, "seconds", rk_index_num(s, NULL, "seconds"));
		json_array_append_new(tables, t);
	}
	rk_buf_reset(&b);
	if (bad)
		rk_buf_printf(&b, "%zu of %zu table%s differ%s or failed", bad, n, n == 1 ? "" : "s", bad == 1 ? "s" : "");
	else if (n == 1)
		rk_buf_puts(&b, "the table matches");
	else
		rk_buf_printf(&b, "all %zu tables match", n);
	rk_set(v, "version", json_string(RK_VERSION));
	rk_set(v, "title", rk_tpl_text(title ? title : ""));
	rk_set(v, "verdict", json_string(verdicts[worst]));
	rk_set(v, "headline", json_string(rk_buf_cstr(&b)));
	rk_set(v, "tables", tables);
	rk_buf_free(&b);
	return rk_html_emit(out, rk_tpl_index_html, v, "index.html", err);
}
