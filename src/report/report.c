/*
 * report.c - what a check says on stdout and in summary.json: the text
 * summary and the JSON object (report.h).  The report's files and its
 * directory are files.c's, report.html html.c's, the windows' status and
 * the one-phrase outcome status.c's.
 */
#include "report/report.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check/diagnose.h"
#include "check/history.h"
#include "core/buf.h"
#include "core/text.h"
#include "core/tz.h"
#include "report/status.h"

/* Past this many windows the text summary lists only the ones that differ. */
#define RK_TEXT_MAX_WINDOWS 100
/* Keys of each kind shown per damaged window in the text summary. */
#define RK_TEXT_KEYS 5
/* Commits named per damaged window. */
#define RK_TEXT_COMMITS 8
/* Changed keys whose values summary.json lists (changes.csv has them all). */
#define RK_JSON_CHANGES 100
static uint64_t rk_win_keys(const rk_check_result *r, size_t w)
{
	uint64_t n = 0;

	for (int k = 0; k < RK_FIND_NKINDS; k++)
		n += r->win_kind[w][k];
	return n;
}

/* Joins names with ", ". */
static void rk_report_join(rk_buf *b, char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rk_buf_printf(b, "%s%s", i ? ", " : "", names[i]);
}

/* The key and columns the check used, and the schema drift. */
static void rk_report_text_pair(FILE *out, const rk_check_result *r)
{
	const rk_drift *d = &r->drift;
	rk_buf b = RK_BUF_INIT;

	rk_report_join(&b, r->key_names, r->nkey);
	fprintf(out, "key:    %s", rk_buf_cstr(&b));
	if (r->key_origin && strcmp(r->key_origin, "--key") != 0)
		fprintf(out, "  (%s)", r->key_origin);
	fprintf(out, "\nhashed: %zu column%s%s\n", r->ncolumns, r->ncolumns == 1 ? "" : "s",
	        r->whole_row ? " (the whole row: every column both sides have)" : "");
	for (int s = 0; s < 2; s++) {
		if (!d->nonly[s])
			continue;
		rk_buf_reset(&b);
		rk_report_join(&b, d->only[s], d->nonly[s]);
		fprintf(out, "schema: only the %s has %s (not compared)\n", s ? "target" : "source", rk_buf_cstr(&b));
	}
	for (size_t i = 0; i < d->nkinds; i++)
		fprintf(out, "schema: column %s is %s on the source but %s on the target%s\n", d->kinds[i].name,
		        d->kinds[i].source_type, d->kinds[i].target_type,
		        d->kinds[i].as_numbers ? ": compared as numbers (the exact side's values as the float type)" : "");
	fputc('\n', out);
	rk_buf_free(&b);
}

/* "likely causes:" (each pattern: keys, windows, cause, evidence, next
 * step) and "warnings:". */
static void rk_report_text_diagnosis(FILE *out, const rk_report_ctx *ctx, const rk_check_result *r)
{
	const rk_diagnosis *d = r->diagnosis;
	char a[RK_TIME_STRLEN];
	/* cause, evidence and next step wrapped for a terminal */
	size_t width = ctx->text_width ? ctx->text_width : rk_text_width(fileno(out));
	rk_buf b = RK_BUF_INIT;

	if (!d)
		return;
	if (d->ncauses)
		fprintf(out, "\nlikely causes:\n");
	for (size_t i = 0; i < d->ncauses; i++) {
		const rk_cause *c = &d->causes[i];

		rk_buf wins = RK_BUF_INIT;

		rk_buf_reset(&b);
		rk_buf_printf(&b, "  %-16s %zu %s", rk_pattern_name(c->pattern), c->keys,
		              c->pattern == RK_PAT_NULL_TIME ? (c->keys == 1 ? "row" : "rows")
		                                             : (c->keys == 1 ? "key" : "keys"));
		for (size_t w = 0; w < c->nwindows; w++)
			rk_buf_printf(&wins, "%s%s", w ? ", " : "in windows starting ",
			              rk_check_bound_text(r, c->windows[w], a));
		if (c->nwindows) {
			rk_buf_puts(&b, "  ");
			rk_text_wrap(&b, rk_buf_cstr(&wins), b.len, 4, width);
		}
		rk_buf_free(&wins);
		fputs(rk_buf_cstr(&b), out);
		rk_buf_reset(&b);
		rk_buf_puts(&b, "\n    cause:     ");
		rk_text_wrap(&b, c->cause, 15, 15, width);
		rk_buf_puts(&b, "\n    evidence:  ");
		rk_text_wrap(&b, c->evidence, 15, 15, width);
		rk_buf_puts(&b, "\n    next step: ");
		rk_text_wrap(&b, c->next_step, 15, 15, width);
		fprintf(out, "%s\n", rk_buf_cstr(&b));
	}
	if (d->nwarnings)
		fprintf(out, "\nwarnings (the verdict does not depend on them):\n");
	for (size_t i = 0; i < d->nwarnings; i++) {
		rk_buf_reset(&b);
		rk_buf_printf(&b, "  %s: ", d->warnings[i].kind);
		rk_text_wrap(&b, d->warnings[i].message, b.len, 4, width);
		fprintf(out, "%s\n", rk_buf_cstr(&b));
	}
	rk_buf_free(&b);
}

/* A changed key's line of differing columns, into b: "(K): col 'source'
 * -> 'target'", or the column names alone with --no-values. */
static void rk_report_text_change(rk_buf *b, const rk_check_result *r, const rk_finding *f, size_t at, size_t n)
{
	rk_buf_puts(b, "      ");
	rk_finding_key_text(b, r, f);
	rk_buf_puts(b, ":");
	for (size_t k = at; k < at + n; k++) {
		const rk_change *ch = &r->changes[k];

		rk_buf_printf(b, "%s %s", k > at ? ";" : "", r->column_names[ch->column]);
		if (r->values_omitted)
			continue;
		rk_buf_puts(b, " ");
		rk_change_value_text(b, ch, 0);
		rk_buf_puts(b, " -> ");
		rk_change_value_text(b, ch, 1);
	}
	rk_buf_putc(b, '\n');
}

/* Window w's findings, read on from fw (past those of earlier windows):
 * into keys[k] the first keys of kind k ("... N more" past them), into
 * changes the lines of its first changed keys that have changes. */
static void rk_report_text_window(rk_fwalk *fw, const rk_check_result *r, size_t w, rk_buf keys[RK_FIND_NKINDS],
                                  rk_buf *changes)
{
	uint32_t shown[RK_FIND_NKINDS] = { 0 };
	unsigned nchanged = 0;
	const rk_finding *f;
	size_t i;

	for (int k = 0; k < RK_FIND_NKINDS; k++)
		rk_buf_reset(&keys[k]);
	rk_buf_reset(changes);
	while ((f = rk_fwalk_peek(fw)) != NULL && f->window < w)
		rk_fwalk_next(fw, NULL);
	while ((f = rk_fwalk_peek(fw)) != NULL && f->window == w) {
		uint32_t *sh = &shown[f->kind];

		rk_fwalk_next(fw, &i);
		if (*sh == RK_TEXT_KEYS) {
			rk_buf_printf(&keys[f->kind], ", ... %u more", r->win_kind[w][f->kind] - *sh);
			(*sh)++; /* said once */
		} else if (*sh < RK_TEXT_KEYS) {
			if ((*sh)++)
				rk_buf_puts(&keys[f->kind], ", ");
			rk_finding_key_text(&keys[f->kind], r, f);
		}
		if (f->kind == RK_FIND_CHANGED && nchanged < RK_TEXT_KEYS) {
			size_t n, at = rk_finding_changes(r, i, &n);

			if (n) {
				nchanged++;
				rk_report_text_change(changes, r, f, at, n);
			}
		}
	}
}

/* The commits that wrote window w, on each side that keeps a log. */
static void rk_report_text_history(FILE *out, const rk_check_result *r, size_t w, rk_buf *line)
{
	for (int s = 0; s < 2; s++) {
		const rk_range_history *rh = rk_history_window(r, s, w);

		if (!rh)
			continue;
		rk_buf_reset(line);
		rk_history_text(line, r->side[s].history, rh, RK_TEXT_COMMITS);
		fprintf(out, "    %s history, %s\n", s ? "target" : "source", rk_buf_cstr(line));
	}
}

int rk_report_text_damage(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];
	size_t ndiff = rk_report_count_status(r, RK_WIN_DIFFER);
	rk_buf line = RK_BUF_INIT;
	int rc = 0;

	if (ndiff) {
		/* one pass of the findings, by window, each window's lines kept
		 * until they are printed in kind order */
		rk_buf keys[RK_FIND_NKINDS], changes = RK_BUF_INIT;
		rk_fwalk fw;

		for (int k = 0; k < RK_FIND_NKINDS; k++)
			keys[k] = (rk_buf)RK_BUF_INIT;
		fprintf(out, "\ndamage:\n");
		rk_fwalk_start(&fw, r);
		for (size_t w = 0; w < r->nwindows; w++) {
			if (r->status[w] != RK_WIN_DIFFER)
				continue;
			fprintf(out, "  [%s, %s)  source %llu rows, target %llu rows\n",
			        rk_check_bound_text(r, w, a), rk_check_bound_text(r, w + 1, b),
			        (unsigned long long)r->side[0].rows[w], (unsigned long long)r->side[1].rows[w]);
			if (c->spec->tz)
				fprintf(out, "    local [%s, %s) in %s\n", rk_tz_format(c->spec->tz, rk_check_window_start(r, w), a),
				        rk_tz_format(c->spec->tz, rk_check_window_end(r, w), b), rk_tz_name(c->spec->tz));
			rk_report_text_window(&fw, r, w, keys, &changes);
			for (int k = 0; k < RK_FIND_NKINDS; k++) {
				uint32_t n = r->win_kind[w][k];
				if (!n)
					continue;
				fprintf(out, "    %-16s %5u  %s\n", rk_find_kind_name((rk_find_kind)k), n, rk_buf_cstr(&keys[k]));
				if (k == RK_FIND_CHANGED)
					fputs(rk_buf_cstr(&changes), out);
			}
			if (!rk_win_keys(r, w) && c->spec->findings)
				fprintf(out, "    (no key differs: the sums or hashed columns differ in a way no key explains)\n");
			rk_report_text_history(out, r, w, &line);
		}
		rc = rk_fwalk_end(&fw, err);
		for (int k = 0; k < RK_FIND_NKINDS; k++)
			rk_buf_free(&keys[k]);
		rk_buf_free(&changes);
		if (rc < 0) {
			rk_buf_free(&line);
			return -1;
		}
	}
	for (int s = 0; s < 2; s++)
		if (r->side[s].history_note)
			fprintf(out, "\n%s history: not read: %s\n", s ? "target" : "source", r->side[s].history_note);
	rk_report_text_diagnosis(out, c, r);
	if (r->side[0].null_time || r->side[1].null_time)
		fprintf(out, "\nrows with a NULL %s (no %s can hold them): source %llu, target %llu\n",
		        r->keyed ? r->key_names[0] : c->spec->time, r->keyed ? "segment" : "window",
		        (unsigned long long)r->side[0].null_time, (unsigned long long)r->side[1].null_time);
	if (r->has_watermark)
		fprintf(out, "\nwatermark %s: %llu missing key(s) at or before it%s\n", rk_time_format(r->watermark, a),
		        (unsigned long long)r->behind_watermark_missing,
		        r->behind_watermark_missing ? " - the watermark claims rows the target does not hold" : "");
	rk_buf_free(&line);
	return 0;
}

/* The zone a zoneless time column was read in, or NULL when neither
 * side's time column is zoneless. */
static const char *rk_report_column_zone(const rk_check_result *r)
{
	if (!r->side[0].time_zoneless && !r->side[1].time_zoneless)
		return NULL;
	return r->time_zone ? rk_tz_name(r->time_zone) : "UTC";
}

/* "time:" line: which zone a zoneless time column's values were read in,
 * and how many fell in a DST hour. */
static void rk_report_text_zone(FILE *out, const rk_report_ctx *c, const rk_check_result *r)
{
	const char *zone = rk_report_column_zone(r);
	uint64_t amb = r->side[0].dst_ambiguous + r->side[1].dst_ambiguous;
	uint64_t gap = r->side[0].dst_nonexistent + r->side[1].dst_nonexistent;

	if (!zone)
		return;
	fprintf(out, "time:   %s is a timestamp without time zone on the %s, read in %s (--time-column-zone)\n",
	        c->spec->time ? c->spec->time : "the time column",
	        r->side[0].time_zoneless && r->side[1].time_zoneless ? "source and the target"
	        : r->side[0].time_zoneless                           ? "source"
	                                                             : "target",
	        zone);
	if (amb || gap)
		fprintf(out, "        the DST hour: %llu ambiguous (source %llu, target %llu) and %llu nonexistent (source "
		             "%llu, target %llu) wall-clock times, placed as AT TIME ZONE places them (the later instant; "
		             "the offset before the change)\n",
		        (unsigned long long)amb, (unsigned long long)r->side[0].dst_ambiguous,
		        (unsigned long long)r->side[1].dst_ambiguous, (unsigned long long)gap,
		        (unsigned long long)r->side[0].dst_nonexistent, (unsigned long long)r->side[1].dst_nonexistent);
}

int rk_report_text(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], d[RK_TIME_STRLEN];
	size_t ndiff = rk_report_count_status(r, RK_WIN_DIFFER), nopen = rk_report_count_status(r, RK_WIN_OPEN);
	bool all = r->nwindows <= RK_TEXT_MAX_WINDOWS;
	rk_buf line = RK_BUF_INIT;

	fprintf(out, "source: %s\ntarget: %s\n", r->side[0].describe, r->side[1].describe);
	if (r->keyed)
		fprintf(out, "range:  every key, in %zu key segment%s of %s (no --time)\n", r->nwindows,
		        r->nwindows == 1 ? "" : "s", r->key_names[0]);
	else
		fprintf(out, "range:  [%s, %s)  window %s  closed %zu  open %zu\n", rk_time_format(c->spec->from, a),
		        rk_time_format(c->spec->to, b), rk_report_window(c->spec, d), r->nclosed, nopen);
	if (c->spec->tz)
		fprintf(out, "local:  [%s, %s)  in %s (%s)\n", rk_tz_format(c->spec->tz, c->spec->from, a),
		        rk_tz_format(c->spec->tz, c->spec->to, b), rk_tz_name(c->spec->tz),
		        r->calendar ? "calendar windows" : "fixed widths from its midnight");
	rk_report_text_pair(out, r);
	rk_report_text_zone(out, c, r);
	if (c->spec->tz)
		fprintf(out, "%-22s %-26s %-7s %10s %10s%s\n", "window start", "local start", "status", "source", "target",
		        r->nsum ? "  sums source/target" : "");
	else
		fprintf(out, "%-22s %-7s %10s %10s%s\n", r->keyed ? "segment start" : "window start", "status", "source",
		        "target", r->nsum ? "  sums source/target" : "");
	for (size_t w = 0; w < r->nwindows; w++) {
		if (!all && r->status[w] != RK_WIN_DIFFER)
			continue;
		fprintf(out, "%-22s", r->keyed && w == 0 ? "(first)" : rk_check_bound_text(r, w, a));
		if (c->spec->tz)
			fprintf(out, " %-26s", rk_tz_format(c->spec->tz, rk_check_window_start(r, w), b));
		fprintf(out, " %-7s", rk_report_status_name(r->status[w]));
		if (r->status[w] == RK_WIN_OPEN) {
			fputc('\n', out);
			continue;
		}
		fprintf(out, " %10llu %10llu", (unsigned long long)r->side[0].rows[w],
		        (unsigned long long)r->side[1].rows[w]);
		for (size_t j = 0; j < r->nsum; j++) {
			char s1[RK_SUM_STRLEN], s2[RK_SUM_STRLEN];
			int sc = r->sum_scale ? r->sum_scale[j] : -1;

			fprintf(out, "  %s=%s/%s", c->sum_names[j],
			        rk_sum_format_scale(&r->side[0].sums[w * r->nsum + j], sc, s1),
			        rk_sum_format_scale(&r->side[1].sums[w * r->nsum + j], sc, s2));
		}
		fputc('\n', out);
	}
	if (!all)
		fprintf(out, "(%zu matching or open windows not listed; --report DIR writes them all)\n",
		        r->nwindows - ndiff);

	if (rk_report_text_damage(out, c, r, err) < 0) {
		rk_buf_free(&line);
		return -1;
	}
	fprintf(out, "\nverdict: %s  (%zu of %zu closed windows differ", r->differ ? "differ" : "match", ndiff,
	        r->nclosed);
	if (c->spec->findings)
		fprintf(out, "; missing %zu, extra %zu, duplicated %zu, changed %zu, source_duplicate %zu",
		        r->kind_count[RK_FIND_MISSING], r->kind_count[RK_FIND_EXTRA], r->kind_count[RK_FIND_DUPLICATED],
		        r->kind_count[RK_FIND_CHANGED], r->kind_count[RK_FIND_SOURCE_DUPLICATE]);
	fprintf(out, ")\n");
	rk_buf_free(&line);
	return 0;
}

static json_t *rk_json_time(rk_usec t)
{
	char a[RK_TIME_STRLEN];

	return json_string(rk_time_format(t, a));
}

static json_t *rk_json_names(char *const *names, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(names[i]));
	return a;
}

/* "schema": the columns one side only has and the kind mismatches. */
static json_t *rk_json_schema(const rk_drift *d)
{
	json_t *sch = json_object(), *kinds = json_array();

	json_object_set_new(sch, "source_only", rk_json_names(d->only[0], d->nonly[0]));
	json_object_set_new(sch, "target_only", rk_json_names(d->only[1], d->nonly[1]));
	for (size_t i = 0; i < d->nkinds; i++) {
		json_t *k = json_object();

		json_object_set_new(k, "column", json_string(d->kinds[i].name));
		json_object_set_new(k, "source_type", json_string(d->kinds[i].source_type));
		json_object_set_new(k, "target_type", json_string(d->kinds[i].target_type));
		json_object_set_new(k, "compared", json_string(d->kinds[i].as_numbers ? "as_numbers" : "as_hashed"));
		json_array_append_new(kinds, k);
	}
	json_object_set_new(sch, "type_mismatch", kinds);
	return sch;
}

static int rk_report_summary_of(const rk_report_ctx *c, const rk_check_result *r, json_t **root, rk_error *err);

int rk_report_json(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	json_t *root;
	int rc;

	/* nothing written when a read of the findings failed */
	if (rk_report_summary_of(c, r, &root, err) < 0) {
		json_decref(root);
		return -1;
	}
	rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	json_decref(root);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	return rc;
}

/* summary.json's "changes", into root: the first RK_JSON_CHANGES changed
 * findings' differing columns, {"values": bool, "unread": N, "first":
 * [{"window_start", "key": [...], "columns": [{"column", "source",
 * "target"}]}]} (no values with --no-values; a cut value has "source_cut"
 * / "target_cut").  0, or -1 with err when a read of the findings failed
 * ("first" then holds those read before). */
static int rk_json_changes(json_t *root, const rk_check_result *r, rk_error *err)
{
	json_t *o = json_object(), *first = json_array();
	size_t shown = 0, i;
	/* no finding past the last change's has changes */
	size_t last = r->nchanges ? r->changes[r->nchanges - 1].finding : 0;
	bool walk = r->nchanges > 0;
	const rk_finding *f;
	rk_fwalk fw;
	int rc = 0;

	if (walk)
		rk_fwalk_start(&fw, r);
	while (walk && shown < RK_JSON_CHANGES && (f = rk_fwalk_next(&fw, &i)) != NULL && i <= last) {
		json_t *it, *key, *cols;
		size_t n, at;

		if (f->kind != RK_FIND_CHANGED)
			continue;
		at = rk_finding_changes(r, i, &n);
		if (!n)
			continue;
		shown++;
		it = json_object();
		key = json_array();
		cols = json_array();
		json_object_set_new(it, "window_start", rk_json_time(rk_check_window_start(r, f->window)));
		for (size_t k = 0; k < r->nkey; k++)
			json_array_append_new(key, f->key[k] ? json_string(f->key[k]) : json_null());
		json_object_set_new(it, "key", key);
		for (size_t k = at; k < at + n; k++) {
			const rk_change *ch = &r->changes[k];
			json_t *c = json_object();

			json_object_set_new(c, "column", json_string(r->column_names[ch->column]));
			for (int s = 0; s < 2 && !r->values_omitted; s++) {
				json_object_set_new(c, s ? "target" : "source",
				                    ch->value[s] ? json_string(ch->value[s]) : json_null());
				if (ch->cut[s])
					json_object_set_new(c, s ? "target_cut" : "source_cut", json_true());
			}
			json_array_append_new(cols, c);
		}
		json_object_set_new(it, "columns", cols);
		json_array_append_new(first, it);
	}
	if (walk)
		rc = rk_fwalk_end(&fw, err);
	json_object_set_new(o, "values", json_boolean(!r->values_omitted));
	json_object_set_new(o, "unread", json_integer((json_int_t)r->changed_unread));
	json_object_set_new(o, "first", first);
	json_object_set_new(root, "changes", o);
	return rc;
}

/* One side's "history": the versions read and, per damaged window, the
 * commits that wrote or removed its files (or "note": why there is none). */
static json_t *rk_json_history(const rk_side_result *sr)
{
	const rk_history *h = sr->history;
	json_t *o = json_object(), *ws;

	if (!h) {
		json_object_set_new(o, "note", json_string(sr->history_note));
		return o;
	}
	ws = json_array();
	json_object_set_new(o, "version", json_integer(h->version));
	json_object_set_new(o, "first", json_integer(h->first));
	json_object_set_new(o, "base_checkpoint", h->base >= 0 ? json_integer(h->base) : json_null());
	json_object_set_new(o, "commits_read", json_integer((json_int_t)h->ncommits));
	for (size_t i = 0; i < h->nranges; i++) {
		const rk_range_history *rh = &h->ranges[i];
		json_t *w = json_object(), *cs = json_array();

		json_object_set_new(w, "start", rk_json_time(rh->range.from));
		json_object_set_new(w, "end", rk_json_time(rh->range.to));
		json_object_set_new(w, "state", json_string(rk_hist_state_name(rk_history_state(rh, NULL))));
		json_object_set_new(w, "live_files", json_integer(rh->live));
		json_object_set_new(w, "live_files_without_stats", json_integer(rh->live_unknown));
		for (size_t k = 0; k < rh->ntouch; k++) {
			const rk_touch *t = &rh->touch[k];
			json_t *c = json_object();

			json_object_set_new(c, "version", t->version >= 0 ? json_integer(t->version) : json_null());
			json_object_set_new(c, "operation", json_string(t->operation));
			json_object_set_new(c, "timestamp", t->version >= 0 ? rk_json_time(t->time) : json_null());
			json_object_set_new(c, "files_added", json_integer(t->added));
			json_object_set_new(c, "files_removed", json_integer(t->removed));
			json_object_set_new(c, "files_added_without_stats", json_integer(t->added_unknown));
			json_object_set_new(c, "files_removed_without_stats", json_integer(t->removed_unknown));
			json_object_set_new(c, "rows_added", t->rows_added >= 0 ? json_integer(t->rows_added) : json_null());
			json_array_append_new(cs, c);
		}
		json_object_set_new(w, "commits", cs);
		json_array_append_new(ws, w);
	}
	json_object_set_new(o, "windows", ws);
	return o;
}

/* summary.json's "time_column_zone": the zone of zoneless time columns and
 * the rows in its DST hours. */
static json_t *rk_json_column_zone(const rk_check_result *r)
{
	json_t *tz = json_object(), *amb = json_object(), *gap = json_object();

	json_object_set_new(tz, "zone", json_string(rk_report_column_zone(r)));
	json_object_set_new(tz, "source_zoneless", json_boolean(r->side[0].time_zoneless));
	json_object_set_new(tz, "target_zoneless", json_boolean(r->side[1].time_zoneless));
	json_object_set_new(amb, "source", json_integer((json_int_t)r->side[0].dst_ambiguous));
	json_object_set_new(amb, "target", json_integer((json_int_t)r->side[1].dst_ambiguous));
	json_object_set_new(gap, "source", json_integer((json_int_t)r->side[0].dst_nonexistent));
	json_object_set_new(gap, "target", json_integer((json_int_t)r->side[1].dst_nonexistent));
	json_object_set_new(tz, "ambiguous", amb);
	json_object_set_new(tz, "nonexistent", gap);
	return tz;
}

/* summary.json's "range": the key segments or the time range, the zone,
 * now and settle. */
static json_t *rk_json_range(const rk_report_ctx *c, const rk_check_result *r)
{
	json_t *range = json_object();
	char d[RK_TIME_STRLEN];

	if (r->keyed) {
		/* key segments: no time range (docs/key-segments.md) */
		json_object_set_new(range, "by", json_string("key"));
		json_object_set_new(range, "column", json_string(r->key_names[0]));
		json_object_set_new(range, "segments", json_integer((json_int_t)r->nwindows));
	} else {
		json_object_set_new(range, "from", rk_json_time(c->spec->from));
		json_object_set_new(range, "to", rk_json_time(c->spec->to));
		json_object_set_new(range, "window", json_string(rk_report_window(c->spec, d)));
	}
	if (c->spec->tz) {
		json_object_set_new(range, "timezone", json_string(rk_tz_name(c->spec->tz)));
		json_object_set_new(range, "from_local", json_string(rk_tz_format(c->spec->tz, c->spec->from, d)));
		json_object_set_new(range, "to_local", json_string(rk_tz_format(c->spec->tz, c->spec->to, d)));
	}
	json_object_set_new(range, "now", rk_json_time(c->spec->now));
	json_object_set_new(range, "settle", json_string(rk_duration_format(c->spec->settle, d)));
	return range;
}

/* summary.json's "rerun": the windows to redo, with their rows and
 * findings. */
static json_t *rk_json_rerun(const rk_report_ctx *c, const rk_check_result *r)
{
	json_t *rerun = json_array();

	for (size_t w = 0; w < r->nwindows; w++) {
		json_t *it;
		if (!rk_report_win_rerun(r, w))
			continue;
		it = json_object();
		if (r->keyed) {
			json_object_set_new(it, "kind", json_string("key"));
			json_object_set_new(it, "interval_start", r->seg_text[w] ? json_string(r->seg_text[w]) : json_null());
			json_object_set_new(it, "interval_end", r->seg_text[w + 1] ? json_string(r->seg_text[w + 1]) : json_null());
		} else {
			json_object_set_new(it, "interval_start", rk_json_time(rk_check_window_start(r, w)));
			json_object_set_new(it, "interval_end", rk_json_time(rk_check_window_end(r, w)));
		}
		if (c->spec->tz) {
			char lb[RK_TIME_STRLEN];

			json_object_set_new(it, "window_label", json_string(rk_tz_format(c->spec->tz, rk_check_window_start(r, w), lb)));
		}
		json_object_set_new(it, "source_rows", json_integer((json_int_t)r->side[0].rows[w]));
		json_object_set_new(it, "target_rows", json_integer((json_int_t)r->side[1].rows[w]));
		for (int k = 0; k < RK_FIND_SOURCE_DUPLICATE; k++)
			json_object_set_new(it, rk_find_kind_name((rk_find_kind)k), json_integer(r->win_kind[w][k]));
		json_array_append_new(rerun, it);
	}
	return rerun;
}

/* summary.json's "read": what the readers of files (Delta tables)
 * opened, all passes. */
static json_t *rk_json_read(const rk_check_result *r)
{
	json_t *rd = json_object();

	for (int s = 0; s < 2; s++) {
		if (!r->side[s].reads_files)
			continue;
		json_object_set_new(rd, s ? "target" : "source",
		                    json_pack("{s:I,s:I}", "files", (json_int_t)r->side[s].files_read, "bytes",
		                              (json_int_t)r->side[s].bytes_read));
	}
	return rd;
}

/* summary.json's "diagnosis" (the likely causes) and "warnings", into
 * root. */
static void rk_json_diagnosis(json_t *root, const rk_check_result *r)
{
	json_t *dg = json_array(), *wa = json_array();

	for (size_t i = 0; i < r->diagnosis->ncauses; i++) {
		const rk_cause *cs = &r->diagnosis->causes[i];
		json_t *it = json_object(), *ws = json_array();

		json_object_set_new(it, "pattern", json_string(rk_pattern_name(cs->pattern)));
		for (size_t w = 0; w < cs->nwindows; w++)
			json_array_append_new(ws, rk_json_time(rk_check_window_start(r, cs->windows[w])));
		json_object_set_new(it, "windows", ws);
		json_object_set_new(it, "keys", json_integer((json_int_t)cs->keys));
		json_object_set_new(it, "findings", json_integer((json_int_t)cs->findings));
		json_object_set_new(it, "cause", json_string(cs->cause));
		json_object_set_new(it, "evidence", json_string(cs->evidence));
		json_object_set_new(it, "next_step", json_string(cs->next_step));
		if (cs->pattern == RK_PAT_LATE_COMMIT || cs->pattern == RK_PAT_PARTIAL_XACT)
			json_object_set_new(it, "max_lag_seconds", json_real(cs->max_lag));
		json_array_append_new(dg, it);
	}
	json_object_set_new(root, "diagnosis", dg);
	for (size_t i = 0; i < r->diagnosis->nwarnings; i++) {
		json_t *it = json_object();

		json_object_set_new(it, "kind", json_string(r->diagnosis->warnings[i].kind));
		json_object_set_new(it, "message", json_string(r->diagnosis->warnings[i].message));
		json_array_append_new(wa, it);
	}
	json_object_set_new(root, "warnings", wa);
}

/* summary.json's "watermark": its value, and whether its claim holds. */
static json_t *rk_json_watermark(const rk_check_result *r)
{
	json_t *wm = json_object();

	json_object_set_new(wm, "value", rk_json_time(r->watermark));
	json_object_set_new(wm, "missing_at_or_before", json_integer((json_int_t)r->behind_watermark_missing));
	json_object_set_new(wm, "holds", json_boolean(r->behind_watermark_missing == 0));
	return wm;
}

/* rk_report_summary into *root (a new reference, also on failure): 0, or -1
 * with err when a read of the findings failed (its "changes" then hold
 * only those read before). */
static int rk_report_summary_of(const rk_report_ctx *c, const rk_check_result *r, json_t **root_out, rk_error *err)
{
	json_t *root = json_object(), *win = json_object(), *fin = json_object(), *nul = json_object();
	json_t *drill = json_object();
	int rc;

	json_object_set_new(root, "verdict", json_string(r->differ ? "differ" : "match"));
	json_object_set_new(win, "checked", json_integer((json_int_t)r->nclosed));
	json_object_set_new(win, "matched", json_integer((json_int_t)rk_report_count_status(r, RK_WIN_MATCH)));
	json_object_set_new(win, "differ", json_integer((json_int_t)rk_report_count_status(r, RK_WIN_DIFFER)));
	json_object_set_new(win, "open", json_integer((json_int_t)rk_report_count_status(r, RK_WIN_OPEN)));
	json_object_set_new(root, "windows", win);
	for (int k = 0; k < RK_FIND_NKINDS; k++)
		json_object_set_new(fin, rk_find_kind_name((rk_find_kind)k), json_integer((json_int_t)r->kind_count[k]));
	json_object_set_new(root, "findings", fin);
	json_object_set_new(root, "source_rows", json_integer((json_int_t)r->side[0].total));
	json_object_set_new(root, "target_rows", json_integer((json_int_t)r->side[1].total));
	json_object_set_new(nul, "source", json_integer((json_int_t)r->side[0].null_time));
	json_object_set_new(nul, "target", json_integer((json_int_t)r->side[1].null_time));
	json_object_set_new(root, "null_time_rows", nul);
	if (rk_report_column_zone(r))
		json_object_set_new(root, "time_column_zone", rk_json_column_zone(r));
	json_object_set_new(root, "range", rk_json_range(c, r));
	json_object_set_new(root, "source", json_string(r->side[0].describe));
	json_object_set_new(root, "target", json_string(r->side[1].describe));
	json_object_set_new(root, "key", rk_json_names(r->key_names, r->nkey));
	json_object_set_new(root, "key_origin", json_string(r->key_origin ? r->key_origin : "--key"));
	json_object_set_new(root, "columns", rk_json_names(r->column_names, r->ncolumns));
	json_object_set_new(root, "whole_row", json_boolean(r->whole_row));
	json_object_set_new(root, "schema", rk_json_schema(&r->drift));
	json_object_set_new(root, "rerun", rk_json_rerun(c, r));
	json_object_set_new(drill, "rows_reread", json_integer((json_int_t)r->drill_rows));
	json_object_set_new(drill, "passes", json_integer(r->drill_passes));
	json_object_set_new(root, "drilldown", drill);
	rc = rk_json_changes(root, r, err);
	if (r->side[0].reads_files || r->side[1].reads_files)
		json_object_set_new(root, "read", rk_json_read(r));
	if (r->side[0].history || r->side[1].history || r->side[0].history_note || r->side[1].history_note) {
		json_t *hs = json_object();

		for (int s = 0; s < 2; s++)
			if (r->side[s].history || r->side[s].history_note)
				json_object_set_new(hs, s ? "target" : "source", rk_json_history(&r->side[s]));
		json_object_set_new(root, "history", hs);
	}
	if (r->diagnosis)
		rk_json_diagnosis(root, r);
	if (r->has_watermark)
		json_object_set_new(root, "watermark", rk_json_watermark(r));
	*root_out = root;
	return rc;
}

json_t *rk_report_summary(const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	json_t *root;

	if (rk_report_summary_of(c, r, &root, err) < 0) {
		json_decref(root);
		return NULL;
	}
	return root;
}
