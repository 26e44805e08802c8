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

#include "check/history.h"
#include "core/buf.h"
#include "core/timeutil.h"
#include "core/tz.h"
#include "report/report.h"
#include "report/status.h"
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
/* Commits listed per damaged window's history. */
#define RK_HTML_COMMITS 20
/* The timeline (rk_view_timeline): marks per row at most (a day of
 * 5-minute windows), windows per row when they do not tile days, and the
 * marks per row up to which they are drawn apart. */
#define RK_HTML_ROW_MAX 288
#define RK_HTML_ROW_CELLS 96
#define RK_HTML_GAP_CELLS 100

static void rk_set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v);
}

static json_t *rk_time_str(rk_usec t)
{
	char a[RK_TIME_STRLEN];

	return json_string(rk_time_format(t, a));
}

/* Boundary i of r (a window's start or end) as the report shows it. */
static json_t *rk_bound_str(const rk_check_result *r, size_t i)
{
	char a[RK_TIME_STRLEN];

	return json_string(rk_check_bound_text(r, i, a));
}

/* Instant t in --timezone's local time with its offset, or false (no zone). */
static json_t *rk_local_str(const rk_report_ctx *c, rk_usec t)
{
	char a[RK_TIME_STRLEN];

	return c->spec->tz ? json_string(rk_tz_format(c->spec->tz, t, a)) : json_false();
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

/* A number as the page shows it: with thousands separators. */
static json_t *rk_num(uint64_t n)
{
	char a[32];

	return json_string(rk_report_thousands(n, a));
}

/* A sum as the page shows it: its digits grouped by thousands before the
 * decimal point ("-2,030,874.80"). */
static json_t *rk_sum_grouped(const char *sum)
{
	rk_buf b = RK_BUF_INIT;
	const char *p = sum, *dot;
	size_t int_len;
	json_t *j;

	if (*p == '-' || *p == '+')
		rk_buf_putc(&b, *p++);
	dot = p + strspn(p, "0123456789");
	int_len = (size_t)(dot - p);
	for (size_t i = 0; i < int_len; i++) {
		if (i && (int_len - i) % 3 == 0)
			rk_buf_putc(&b, ',');
		rk_buf_putc(&b, p[i]);
	}
	rk_buf_puts(&b, dot);
	j = json_string(rk_buf_cstr(&b));
	rk_buf_free(&b);
	return j;
}

/* Appends the page's text form of s (rk_tpl_text) to b. */
static void rk_title_text(rk_buf *b, const char *s)
{
	json_t *t = rk_tpl_text(s);

	rk_buf_puts(b, json_string_value(t));
	json_decref(t);
}

/* A window's tooltip: start, status, counts and sums, one per line (the
 * names in it made safe one by one, so that the line breaks stay line
 * breaks). */
static void rk_cell_title_window(const rk_report_ctx *c, const rk_check_result *r, size_t w, rk_buf *b)
{
	char a[RK_TIME_STRLEN], s1[RK_SUM_STRLEN], s2[RK_SUM_STRLEN], n1[32], n2[32];

	rk_buf_printf(b, "%s %s", rk_check_bound_text(r, w, a), rk_report_status_name(r->status[w]));
	if (c->spec->tz)
		rk_buf_printf(b, "\nlocal %s", rk_tz_format(c->spec->tz, rk_check_window_start(r, w), a));
	if (r->status[w] == RK_WIN_OPEN)
		return;
	rk_buf_printf(b, "\nsource %s rows, target %s rows", rk_report_thousands(r->side[0].rows[w], n1),
	              rk_report_thousands(r->side[1].rows[w], n2));
	for (size_t j = 0; j < r->nsum; j++) {
		json_t *g1 = rk_sum_grouped(rk_sum_text(r, 0, w, j, s1)), *g2 = rk_sum_grouped(rk_sum_text(r, 1, w, j, s2));

		rk_buf_putc(b, '\n');
		rk_title_text(b, c->sum_names[j]);
		rk_buf_printf(b, " %s / %s", json_string_value(g1), json_string_value(g2));
		json_decref(g1);
		json_decref(g2);
	}
	if (r->status[w] == RK_WIN_DIFFER) {
		for (int k = 0; k < RK_FIND_NKINDS; k++)
			if (r->win_kind[w][k])
				rk_buf_printf(b, "\n%s %s", rk_find_kind_name((rk_find_kind)k),
				              rk_report_thousands(r->win_kind[w][k], n1));
	}
}

/* The tooltip of a mark standing for windows [w0, w1): the window's own
 * when it is one, else the span, how many windows of each status and the
 * rows, and the first damaged windows' starts. */
static json_t *rk_cell_title(const rk_report_ctx *c, const rk_check_result *r, size_t w0, size_t w1, rk_buf *b)
{
	char a[RK_TIME_STRLEN], e[RK_TIME_STRLEN], n1[32], n2[32];
	size_t st[3] = { 0, 0, 0 }, listed = 0;
	uint64_t rows[2] = { 0, 0 };

	rk_buf_reset(b);
	if (w1 == w0 + 1) {
		rk_cell_title_window(c, r, w0, b);
		return json_string(rk_buf_cstr(b));
	}
	for (size_t w = w0; w < w1; w++) {
		st[r->status[w] == RK_WIN_DIFFER ? 1 : r->status[w] == RK_WIN_OPEN ? 2
		                                                                   : 0]++;
		if (r->status[w] != RK_WIN_OPEN) {
			rows[0] += r->side[0].rows[w];
			rows[1] += r->side[1].rows[w];
		}
	}
	rk_buf_printf(b, "%s to %s: %zu windows", rk_check_bound_text(r, w0, a),
	              rk_check_bound_text(r, w1, e), w1 - w0);
	if (st[1])
		rk_buf_printf(b, ", %zu differ", st[1]);
	if (st[0])
		rk_buf_printf(b, ", %zu match", st[0]);
	if (st[2])
		rk_buf_printf(b, ", %zu open", st[2]);
	rk_buf_printf(b, "\nsource %s rows, target %s rows", rk_report_thousands(rows[0], n1),
	              rk_report_thousands(rows[1], n2));
	for (size_t w = w0; w < w1 && listed < 5; w++)
		if (r->status[w] == RK_WIN_DIFFER) {
			rk_buf_printf(b, "\ndiffers: %s", rk_check_bound_text(r, w, a));
			listed++;
		}
	return json_string(rk_buf_cstr(b));
}

static int64_t rk_day_of(rk_usec t)
{
	/* floor division that cannot overflow (a key segment starts at INT64_MIN) */
	return t / RK_USEC_PER_DAY - (t % RK_USEC_PER_DAY < 0);
}

static json_t *rk_tick(double at, const char *label)
{
	json_t *t = json_object();
	char a[16];

	snprintf(a, sizeof a, "%.3f", at);
	rk_set(t, "at", json_string(a));
	rk_set(t, "label", json_string(label));
	return t;
}

/*
 * The timeline: one row per UTC day when the windows tile days (an axis of
 * the hours above), else rows of RK_HTML_ROW_CELLS windows, each labelled
 * with its start (an axis of the time since the row's start).  A row's
 * marks share its width, so a row fits any screen; when a day holds more
 * than RK_HTML_ROW_MAX windows, each mark stands for several consecutive
 * windows, marked with the worst status among them (differ, then open), so
 * a damaged window is never hidden.  Rows are padded so that equal times
 * line up under the axis.
 */
static json_t *rk_view_timeline(const rk_report_ctx *c, const rk_check_result *r, size_t shown_damage)
{
	json_t *tl = json_object(), *rows = json_array(), *axis = json_array(), *row = NULL, *cells = NULL;
	bool by_day = !r->calendar && r->width <= RK_USEC_PER_DAY && RK_USEC_PER_DAY % r->width == 0;
	size_t per_row = by_day ? (size_t)(RK_USEC_PER_DAY / r->width) : RK_HTML_ROW_CELLS;
	size_t k = by_day ? (per_row + RK_HTML_ROW_MAX - 1) / RK_HTML_ROW_MAX : 1;
	size_t marks = (per_row + k - 1) / k, in_row = 0, damaged = 0;
	int64_t day = INT64_MIN;
	char a[RK_TIME_STRLEN], d[RK_TIME_STRLEN];
	rk_buf b = RK_BUF_INIT;

	if (!by_day && r->nwindows < per_row)
		per_row = marks = r->nwindows ? r->nwindows : 1;
	for (size_t w = 0; w < r->nwindows;) {
		rk_usec t = rk_check_window_start(r, w);
		int64_t dd = rk_day_of(t);
		size_t slot = by_day ? (size_t)((t - dd * RK_USEC_PER_DAY) / r->width) : in_row;
		size_t w1 = w + 1, mark = slot / k;
		bool differ = false;
		json_t *cell = json_object();

		if (!row || (by_day ? dd != day : in_row == per_row)) {
			row = json_object();
			cells = json_array();
			rk_set(row, "label", json_string(by_day ? rk_date_format(dd, a) : c->spec->tz ? rk_tz_format(c->spec->tz, t, a)
			                                                                              : rk_time_format(t, a)));
			rk_set(row, "cells", cells);
			json_array_append_new(rows, row);
			day = dd;
			in_row = 0;
			slot = by_day ? slot : 0;
			mark = slot / k;
			/* the row starts later in its day: empty marks before */
			for (size_t p = 0; p < mark; p++)
				json_array_append_new(cells, json_pack("{s:s}", "s", "pad"));
		}
		/* the windows of this mark: up to the next multiple of k in the day */
		while (w1 < r->nwindows && k > 1) {
			rk_usec t1 = rk_check_window_start(r, w1);

			if (rk_day_of(t1) != dd || (size_t)((t1 - dd * RK_USEC_PER_DAY) / r->width) / k != mark)
				break;
			w1++;
		}
		for (size_t x = w; x < w1; x++)
			differ |= r->status[x] == RK_WIN_DIFFER;
		{
			rk_win_status worst = RK_WIN_MATCH;

			for (size_t x = w; x < w1; x++)
				if (r->status[x] == RK_WIN_DIFFER || (r->status[x] == RK_WIN_OPEN && worst != RK_WIN_DIFFER))
					worst = r->status[x];
			rk_set(cell, "s", json_string(rk_report_status_name(worst)));
		}
		rk_set(cell, "t", rk_cell_title(c, r, w, w1, &b));
		if (differ) {
			size_t first = w;

			while (r->status[first] != RK_WIN_DIFFER)
				first++;
			/* the link goes to the first damaged window of the mark that the
			 * page shows; count every damaged window passed */
			for (size_t x = w; x < w1; x++)
				if (r->status[x] == RK_WIN_DIFFER && damaged++ < shown_damage && x == first)
					rk_set(cell, "h", rk_anchor(x));
		}
		json_array_append_new(cells, cell);
		in_row += w1 - w;
		w = w1;
	}
	/* the last row padded to the full width */
	if (row) {
		while (json_array_size(cells) < marks)
			json_array_append_new(cells, json_pack("{s:s}", "s", "pad"));
	}
	if (by_day) {
		int step = per_row * k >= 4 ? 3 : 24;

		for (int h = 0; h < 24; h += step) {
			char lab[16]; /* room for any int: the compiler cannot see h < 24 */

			snprintf(lab, sizeof lab, "%02d:00", h);
			json_array_append_new(axis, rk_tick(100.0 * h / 24, lab));
		}
	} else {
		for (int q = 0; q < 4; q++) {
			char lab[RK_TIME_STRLEN + 1];

			snprintf(lab, sizeof lab, "+%s", q ? rk_duration_format((rk_usec)(per_row * (size_t)r->width / 4 * (size_t)q), d) : "0");
			json_array_append_new(axis, rk_tick(25.0 * q, lab));
		}
	}
	rk_set(tl, "rows", rows);
	rk_set(tl, "axis", axis);
	rk_set(tl, "by_day", json_boolean(by_day));
	rk_set(tl, "dense", json_boolean(marks > RK_HTML_GAP_CELLS));
	rk_buf_reset(&b);
	if (k > 1)
		rk_buf_printf(&b, "each mark is %zu windows of %s, shown as the worst of them (differ, then open)", k,
		              rk_report_window(c->spec, d));
	else
		rk_buf_printf(&b, "each mark is one window of %s",
		              rk_report_window(c->spec, d));
	rk_buf_printf(&b, by_day ? "; a row per UTC day" : "; a row per %zu windows, labelled with its start", per_row);
	if (!by_day && c->spec->tz)
		rk_buf_printf(&b, " in %s", rk_tz_name(c->spec->tz));
	rk_set(tl, "scale", json_string(rk_buf_cstr(&b)));
	rk_buf_free(&b);
	return tl;
}

/* Changed key f's differing columns (its n changes from at): one row
 * each into rows, the key on each. */
static void rk_view_change_rows(json_t *rows, const rk_check_result *r, const rk_finding *f, size_t at, size_t n,
                                rk_buf *b)
{
	for (size_t k = at; k < at + n; k++) {
		const rk_change *ch = &r->changes[k];
		json_t *row = json_object();

		rk_buf_reset(b);
		rk_finding_key_text(b, r, f);
		rk_set(row, "key", rk_tpl_text(rk_buf_cstr(b)));
		rk_set(row, "column", rk_tpl_text(r->column_names[ch->column]));
		for (int s = 0; s < 2; s++) {
			rk_buf_reset(b);
			if (r->values_omitted)
				rk_buf_puts(b, "(not shown: --no-values)");
			else
				rk_change_value_text(b, ch, s);
			rk_set(row, s ? "target" : "source", rk_tpl_text(rk_buf_cstr(b)));
		}
		json_array_append_new(rows, row);
	}
}

/* Window w's findings, read on from fw (past those of earlier windows):
 * the first keys of kind k into keys[k] (got[k] of them) where keys[k] is
 * not NULL, and into rows the differing columns of its first changed keys
 * that have changes. */
static void rk_view_window(rk_fwalk *fw, const rk_check_result *r, size_t w, json_t *keys[RK_FIND_NKINDS],
                           uint32_t got[RK_FIND_NKINDS], json_t *rows)
{
	rk_buf b = RK_BUF_INIT;
	size_t changed = 0, i;
	const rk_finding *f;

	while ((f = rk_fwalk_peek(fw)) != NULL && f->window < w)
		rk_fwalk_next(fw, NULL);
	while ((f = rk_fwalk_peek(fw)) != NULL && f->window == w) {
		rk_fwalk_next(fw, &i);
		if (keys[f->kind] && got[f->kind] < RK_HTML_KEYS) {
			rk_buf_reset(&b);
			rk_finding_key_text(&b, r, f);
			json_array_append_new(keys[f->kind], rk_tpl_text(rk_buf_cstr(&b)));
			got[f->kind]++;
		}
		if (f->kind == RK_FIND_CHANGED && changed < RK_HTML_KEYS) {
			size_t n, at = rk_finding_changes(r, i, &n);

			changed += n > 0;
			rk_view_change_rows(rows, r, f, at, n, &b);
		}
	}
	rk_buf_free(&b);
}

/* The commits that wrote window w, per side that keeps a log: the versions
 * read, the window's state, a row per commit, and the live files. */
static json_t *rk_view_history(const rk_check_result *r, size_t w)
{
	json_t *list = json_array();
	rk_buf b = RK_BUF_INIT;

	for (int s = 0; s < 2; s++) {
		const rk_history *h = r->side[s].history;
		const rk_range_history *rh = rk_history_window(r, s, w);
		json_t *it, *commits;

		if (!rh)
			continue;
		it = json_object();
		commits = json_array();
		rk_set(it, "side", json_string(s ? "target" : "source"));
		rk_set(it, "state", json_string(rk_hist_state_name(rk_history_state(rh, NULL))));
		rk_buf_reset(&b);
		if (h->base >= 0)
			rk_buf_printf(&b, "versions %lld to %lld, after checkpoint %lld", (long long)h->first,
			              (long long)h->version, (long long)h->base);
		else
			rk_buf_printf(&b, "versions 0 to %lld", (long long)h->version);
		rk_set(it, "versions", json_string(rk_buf_cstr(&b)));
		for (size_t k = 0; k < rh->ntouch && k < RK_HTML_COMMITS; k++) {
			const rk_touch *t = &rh->touch[k];
			json_t *c = json_object();

			rk_buf_reset(&b);
			if (t->version >= 0)
				rk_buf_printf(&b, "%lld", (long long)t->version);
			else
				rk_buf_printf(&b, "checkpoint %lld", (long long)h->base);
			rk_set(c, "version", json_string(rk_buf_cstr(&b)));
			rk_set(c, "operation", rk_tpl_text(t->operation[0] ? t->operation : "-"));
			rk_set(c, "time", t->version >= 0 ? rk_time_str(t->time) : json_string("-"));
			rk_buf_reset(&b);
			rk_touch_did(&b, t);
			rk_set(c, "did", rk_tpl_text(rk_buf_cstr(&b)));
			json_array_append_new(commits, c);
		}
		rk_set(it, "none", json_boolean(rh->ntouch == 0));
		rk_set(it, "more", rh->ntouch > RK_HTML_COMMITS ? rk_uint(rh->ntouch - RK_HTML_COMMITS) : json_integer(0));
		rk_set(it, "commits", commits);
		rk_buf_reset(&b);
		if (rh->live)
			rk_buf_printf(&b, "%u file%s of version %lld hold%s rows of it", rh->live, rh->live == 1 ? "" : "s",
			              (long long)h->version, rh->live == 1 ? "s" : "");
		else
			rk_buf_printf(&b, "no file of version %lld holds rows of it", (long long)h->version);
		if (rh->live_unknown)
			rk_buf_printf(&b, "; %u without statistics of the time column may", rh->live_unknown);
		rk_set(it, "live", json_string(rk_buf_cstr(&b)));
		json_array_append_new(list, it);
	}
	rk_buf_free(&b);
	return list;
}

/* The damaged windows with their first keys per kind (one pass of the
 * findings), or NULL with err when a read of them failed. */
static json_t *rk_view_damage(const rk_report_ctx *c, const rk_check_result *r, size_t *shown, rk_error *err)
{
	json_t *dmg = json_object(), *list = json_array();
	size_t n = 0, total = rk_report_count_status(r, RK_WIN_DIFFER);
	rk_fwalk fw;

	if (total)
		rk_fwalk_start(&fw, r);
	for (size_t w = 0; w < r->nwindows && n < RK_HTML_MAX_DAMAGE; w++) {
		json_t *it, *sums, *kinds, *rows, *keys[RK_FIND_NKINDS];
		uint32_t got[RK_FIND_NKINDS] = { 0 };
		char s1[RK_SUM_STRLEN], s2[RK_SUM_STRLEN];
		uint64_t nkeys = 0;

		if (r->status[w] != RK_WIN_DIFFER)
			continue;
		n++;
		it = json_object();
		sums = json_array();
		kinds = json_array();
		rows = json_array();
		rk_set(it, "anchor", rk_anchor(w));
		rk_set(it, "start", rk_bound_str(r, w));
		rk_set(it, "end", rk_bound_str(r, w + 1));
		rk_set(it, "start_local", rk_local_str(c, rk_check_window_start(r, w)));
		rk_set(it, "end_local", rk_local_str(c, rk_check_window_end(r, w)));
		rk_set(it, "source_rows", rk_num(r->side[0].rows[w]));
		rk_set(it, "target_rows", rk_num(r->side[1].rows[w]));
		for (size_t j = 0; j < r->nsum; j++) {
			json_t *sm = json_object();

			rk_set(sm, "name", rk_tpl_text(c->sum_names[j]));
			rk_set(sm, "source", rk_sum_grouped(rk_sum_text(r, 0, w, j, s1)));
			rk_set(sm, "target", rk_sum_grouped(rk_sum_text(r, 1, w, j, s2)));
			json_array_append_new(sums, sm);
		}
		for (int k = 0; k < RK_FIND_NKINDS; k++)
			keys[k] = r->win_kind[w][k] ? json_array() : NULL;
		rk_view_window(&fw, r, w, keys, got, rows);
		for (int k = 0; k < RK_FIND_NKINDS; k++) {
			uint32_t cnt = r->win_kind[w][k];
			json_t *kind;

			if (!cnt)
				continue;
			nkeys += cnt;
			kind = json_object();
			rk_set(kind, "kind", json_string(rk_find_kind_name((rk_find_kind)k)));
			rk_set(kind, "count", rk_num(cnt));
			rk_set(kind, "keys", keys[k]);
			rk_set(kind, "more", cnt > got[k] ? rk_num(cnt - got[k]) : json_integer(0));
			json_array_append_new(kinds, kind);
		}
		rk_set(it, "sums", sums);
		if (json_array_size(rows)) {
			json_t *o = json_object();

			rk_set(o, "rows", rows);
			rk_set(it, "changes", o);
		} else {
			json_decref(rows);
			rk_set(it, "changes", json_false());
		}
		rk_set(it, "has_kinds", json_boolean(json_array_size(kinds) > 0));
		rk_set(it, "kinds", kinds);
		rk_set(it, "unexplained", json_boolean(!nkeys && c->spec->findings));
		rk_set(it, "history", rk_view_history(r, w));
		json_array_append_new(list, it);
	}
	if (total && rk_fwalk_end(&fw, err) < 0) {
		json_decref(list);
		json_decref(dmg);
		return NULL;
	}
	*shown = n;
	rk_set(dmg, "any", json_boolean(total > 0));
	rk_set(dmg, "windows", list);
	rk_set(dmg, "more", total > n ? rk_num(total - n) : json_integer(0));
	return dmg;
}

static json_t *rk_view_rerun(const rk_report_ctx *c, const rk_check_result *r)
{
	json_t *v = json_object(), *items = json_array();
	size_t total = 0;

	for (size_t w = 0; w < r->nwindows; w++) {
		json_t *it;

		if (r->status[w] != RK_WIN_DIFFER || total++ >= RK_HTML_MAX_RERUN)
			continue;
		it = json_object();
		rk_set(it, "anchor", rk_anchor(w));
		rk_set(it, "start", rk_bound_str(r, w));
		rk_set(it, "end", rk_bound_str(r, w + 1));
		rk_set(it, "local", rk_local_str(c, rk_check_window_start(r, w)));
		rk_set(it, "source_rows", rk_num(r->side[0].rows[w]));
		rk_set(it, "target_rows", rk_num(r->side[1].rows[w]));
		for (int k = 0; k < RK_FIND_SOURCE_DUPLICATE; k++)
			rk_set(it, rk_find_kind_name((rk_find_kind)k), rk_num(r->win_kind[w][k]));
		json_array_append_new(items, it);
	}
	rk_set(v, "any", json_boolean(total > 0));
	rk_set(v, "items", items);
	rk_set(v, "more", total > RK_HTML_MAX_RERUN ? rk_num(total - RK_HTML_MAX_RERUN) : json_integer(0));
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

		json_array_foreach(diag, i, e)
		{
			json_t *it = json_object(), *wins = json_object(), *list = json_array();
			const json_t *ws = json_object_get(e, "windows"), *x;
			size_t k, shown = 0;

			rk_set(it, "pattern", rk_view_any(json_object_get(e, "pattern")));
			rk_set(it, "keys", rk_view_any(json_object_get(e, "keys")));
			rk_set(it, "cause", rk_view_any(json_object_get(e, "cause")));
			rk_set(it, "evidence", rk_view_any(json_object_get(e, "evidence")));
			rk_set(it, "next_step", rk_view_any(json_object_get(e, "next_step")));
			if (json_is_array(ws)) {
				json_array_foreach(ws, k, x)
				{
					json_t *wv;
					size_t w;

					if (!json_is_string(x) || shown == RK_HTML_CAUSE_WINDOWS)
						continue;
					wv = json_object();
					rk_set(wv, "start", json_string(json_string_value(x)));
					rk_set(wv, "anchor", rk_view_window_of(r, json_string_value(x), &w) ? rk_anchor(w) : json_string("damage"));
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

		json_array_foreach(warn, i, e)
		{
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
		if (d->kinds[i].as_numbers)
			rk_set(k, "as_numbers", json_true());
		json_array_append_new(kinds, k);
	}
	rk_set(sch, "type_mismatch", kinds);
	return sch;
}

/* The view of report.html (a new reference), or NULL with err when a read
 * of the findings failed. */
static json_t *rk_view_report(const rk_report_ctx *c, const rk_check_result *r, const json_t *summary,
                              rk_error *err)
{
	const rk_check_spec *sp = c->spec;
	json_t *v = json_object(), *range = json_object(), *counts = json_object(), *rows = json_object();
	json_t *finds = json_array(), *dmg;
	size_t ndiff = rk_report_count_status(r, RK_WIN_DIFFER), shown = 0;
	char d[RK_TIME_STRLEN];
	rk_buf b = RK_BUF_INIT;

	rk_set(v, "version", json_string(RK_VERSION));
	rk_set(v, "title", rk_tpl_text(c->label ? c->label : sp->target.table ? sp->target.table
	                                                                      : "?"));
	rk_set(v, "verdict", json_string(r->differ ? "differ" : "match"));
	if (ndiff || r->differ) {
		rk_report_brief(&b, r, true);
	} else {
		char n1[32];

		rk_buf_printf(&b, "all %s closed windows arrived exactly once and unchanged", rk_report_thousands(r->nclosed, n1));
	}
	rk_set(v, "headline", json_string(rk_buf_cstr(&b)));
	rk_set(v, "repair", c->repair && r->differ ? rk_tpl_text(c->repair) : json_null());
	rk_set(v, "ran_at", c->ran_at ? rk_time_str(c->ran_at - c->ran_at % RK_USEC_PER_SEC) : json_null());
	rk_set(v, "source", rk_tpl_text(r->side[0].describe ? r->side[0].describe : ""));
	rk_set(v, "target", rk_tpl_text(r->side[1].describe ? r->side[1].describe : ""));
	rk_set(range, "from", rk_time_str(sp->from));
	rk_set(range, "to", rk_time_str(sp->to));
	rk_set(range, "window", json_string(rk_report_window(sp, d)));
	rk_set(range, "settle", json_string(sp->settle ? rk_duration_format(sp->settle, d) : "0s"));
	rk_set(range, "now", rk_time_str(sp->now));
	rk_set(range, "zone", sp->tz ? json_string(rk_tz_name(sp->tz)) : json_false());
	rk_set(range, "from_local", rk_local_str(c, sp->from));
	rk_set(range, "to_local", rk_local_str(c, sp->to));
	if (r->side[0].time_zoneless || r->side[1].time_zoneless) {
		rk_buf zb = RK_BUF_INIT;

		rk_buf_printf(&zb, "a timestamp without time zone, read in %s (--time-column-zone)",
		              r->time_zone ? rk_tz_name(r->time_zone) : "UTC");
		if (r->side[0].dst_ambiguous + r->side[1].dst_ambiguous + r->side[0].dst_nonexistent +
		    r->side[1].dst_nonexistent)
			rk_buf_printf(&zb, "; the DST hour: %llu ambiguous and %llu nonexistent wall-clock times, placed as "
			                   "AT TIME ZONE places them",
			              (unsigned long long)(r->side[0].dst_ambiguous + r->side[1].dst_ambiguous),
			              (unsigned long long)(r->side[0].dst_nonexistent + r->side[1].dst_nonexistent));
		rk_set(v, "time_zone", rk_tpl_text(rk_buf_cstr(&zb)));
		rk_buf_free(&zb);
	} else {
		rk_set(v, "time_zone", json_false());
	}
	rk_set(v, "range", range);
	rk_set(v, "nwindows", rk_num(r->nwindows));
	rk_set(v, "closed", rk_num(r->nclosed));
	rk_set(v, "open", rk_num(rk_report_count_status(r, RK_WIN_OPEN)));
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
	rk_set(counts, "checked", rk_num(r->nclosed));
	rk_set(counts, "matched", rk_num(rk_report_count_status(r, RK_WIN_MATCH)));
	rk_set(counts, "differ", rk_num(ndiff));
	rk_set(counts, "bad", json_boolean(ndiff > 0));
	rk_set(counts, "open", rk_num(rk_report_count_status(r, RK_WIN_OPEN)));
	rk_set(v, "counts", counts);
	rk_set(rows, "source", rk_num(r->side[0].total));
	rk_set(rows, "target", rk_num(r->side[1].total));
	rk_set(v, "rows", rows);
	for (int k = 0; k < RK_FIND_NKINDS && sp->findings; k++) {
		json_t *f = json_object();

		rk_set(f, "kind", json_string(rk_find_kind_name((rk_find_kind)k)));
		rk_set(f, "count", rk_num(r->kind_count[k]));
		rk_set(f, "bad", json_boolean(r->kind_count[k] > 0));
		json_array_append_new(finds, f);
	}
	rk_set(v, "findings", finds);
	if (r->side[0].null_time || r->side[1].null_time) {
		json_t *n = json_object();

		rk_set(n, "column", rk_tpl_text(sp->time ? sp->time : "time"));
		rk_set(n, "source", rk_num(r->side[0].null_time));
		rk_set(n, "target", rk_num(r->side[1].null_time));
		rk_set(v, "null_time", n);
	} else {
		rk_set(v, "null_time", json_null());
	}
	if (r->has_watermark) {
		json_t *wm = json_object();

		rk_set(wm, "value", rk_time_str(r->watermark));
		rk_set(wm, "missing", rk_num(r->behind_watermark_missing));
		rk_set(wm, "holds", json_boolean(r->behind_watermark_missing == 0));
		rk_set(v, "watermark", wm);
	} else {
		rk_set(v, "watermark", json_null());
	}
	rk_set(v, "schema", rk_view_schema(&r->drift));
	rk_view_diagnosis(v, r, summary);
	if (!(dmg = rk_view_damage(c, r, &shown, err))) {
		rk_buf_free(&b);
		json_decref(v);
		return NULL;
	}
	rk_set(v, "damage", dmg);
	rk_set(v, "timeline", rk_view_timeline(c, r, shown));
	rk_set(v, "from", rk_time_str(sp->from));
	rk_set(v, "rerun", rk_view_rerun(c, r));
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
	json_t *view = rk_view_report(c, r, summary, err);

	if (!view)
		return -1;
	return rk_html_emit(out, rk_tpl_report_html, view, "report.html", err);
}

/* A number member of o (or of o's member sub) as the page shows it (with
 * thousands separators; seconds to a tenth), or "". */
static json_t *rk_index_num(const json_t *o, const char *sub, const char *k)
{
	const json_t *v = sub ? json_object_get(o, sub) : o;
	char a[32];

	v = json_is_object(v) ? json_object_get(v, k) : NULL;
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		return json_string(rk_report_thousands((uint64_t)json_integer_value(v), a));
	if (json_is_number(v)) {
		snprintf(a, sizeof a, "%.1f", json_number_value(v));
		return json_string(a);
	}
	return json_string("");
}

/* A string member of the summary's "range", or "". */
static json_t *rk_index_range(const json_t *s, const char *k)
{
	const json_t *v = json_object_get(json_object_get(s, "range"), k);

	return json_string(json_is_string(v) ? json_string_value(v) : "");
}

int rk_report_index_html(FILE *out, const rk_report_index *ix, const rk_report_index_row *rows, size_t n,
                         rk_error *err)
{
	json_t *v = json_object(), *tables = json_array();
	int worst = 0; /* 0 match, 1 differ, 2 error */
	size_t count[3] = { 0, 0, 0 };
	rk_buf b = RK_BUF_INIT;
	static const char *const verdicts[] = { "match", "differ", "error" };

	for (size_t i = 0; i < n; i++) {
		const json_t *s = rows[i].summary;
		json_t *t = json_object(), *rep = json_object();
		const char *vd = json_string_value(json_object_get(s, "verdict"));
		int rank = vd && !strcmp(vd, "match") ? 0 : vd && !strcmp(vd, "differ") ? 1
		                                                                        : 2;

		if (rank > worst)
			worst = rank;
		count[rank]++;
		rk_set(t, "label", rk_tpl_text(rows[i].label));
		rk_set(t, "verdict", json_string(verdicts[rank]));
		rk_set(t, "error", rk_view_any(json_object_get(s, "error")));
		rk_buf_reset(&b);
		rk_buf_printf(&b, "%s/report.html", rows[i].label);
		rk_set(rep, "href", rk_tpl_text(rk_buf_cstr(&b)));
		rk_set(t, "report", rank < 2 ? rep : json_null());
		if (rank == 2)
			json_decref(rep);
		rk_set(t, "from", rk_index_range(s, "from"));
		rk_set(t, "to", rk_index_range(s, "to"));
		rk_set(t, "window", rk_index_range(s, "window"));
		rk_set(t, "from_local", rk_index_range(s, "from_local"));
		rk_set(t, "to_local", rk_index_range(s, "to_local"));
		rk_set(t, "zone", rk_index_range(s, "timezone"));
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
	rk_report_job_counts(&b, count[0], count[1], count[2]);
	rk_set(v, "version", json_string(RK_VERSION));
	rk_set(v, "title", rk_tpl_text(ix->title ? ix->title : ""));
	rk_set(v, "verdict", json_string(verdicts[worst]));
	rk_set(v, "headline", json_string(rk_buf_cstr(&b)));
	rk_set(v, "repair", ix->repair && count[1] ? rk_tpl_text(ix->repair) : json_null());
	rk_set(v, "ran_at", ix->ran_at ? rk_time_str(ix->ran_at - ix->ran_at % RK_USEC_PER_SEC) : json_null());
	rk_set(v, "tables", tables);
	rk_buf_free(&b);
	return rk_html_emit(out, rk_tpl_index_html, v, "index.html", err);
}
