/*
 * cmd_repair.c - reckon repair: a rerun list and the table options to a
 * repair spec, run, the per-interval table (or JSON) on stdout, and with
 * --audit the run recorded in the audit trail, also when it stopped part way
 * or was interrupted.  With --job, the same for every table of a job, each
 * replaying DIR/LABEL/rerun.csv of the job's report directory.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/tableopts.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "core/tz.h"
#include "load/guard.h"
#include "repair/repair.h"
#include "repair/repair_share.h"
#include "report/audit.h"
#include "report/rerun.h"

/* One table's repair, as the outputs and the audit trail need it. */
typedef struct rk_rtable {
	const char *label; /* the job's label, or NULL */
	rk_repair_spec spec;
	rk_rerun_list *list;
	rk_repair_interval *iv;
	rk_repair_result res;
	bool ran;      /* the repair was started */
	bool complete; /* ... and finished */
	bool failed;
	int status;
	rk_error err;
} rk_rtable;

typedef struct rk_repair_totals {
	size_t done, match, differ, already;
	size_t touched_differ;
	uint64_t deleted_by_time, deleted_by_key, inserted, updated, moved;
} rk_repair_totals;

static void rk_repair_sum(const rk_rtable *t, rk_repair_totals *s)
{
	memset(s, 0, sizeof *s);
	for (size_t i = 0; t->list && i < t->list->n; i++) {
		const rk_repair_interval *v = &t->iv[i];

		if (rk_repair_state_done(v->state))
			s->done++;
		if (v->state == RK_REPAIR_MATCH)
			s->match++;
		if (v->state == RK_REPAIR_DIFFER)
			s->differ++;
		if (v->state == RK_REPAIR_ALREADY)
			s->already++;
		if (v->state == RK_REPAIR_PLANNED || rk_repair_state_done(v->state)) {
			s->deleted_by_time += v->deleted_by_time;
			s->deleted_by_key += v->deleted_by_key;
			s->inserted += v->inserted;
			s->updated += v->updated;
			s->moved += v->moved;
		}
	}
	for (size_t j = 0; j < t->res.ntouched; j++)
		if (t->res.touched[j].state == RK_REPAIR_DIFFER || t->res.touched[j].state == RK_REPAIR_COMMITTED)
			s->touched_differ++;
}

/* An interval as the table shows it: "[start, end)", or a key segment's
 * "[cust-0100, cust-0200)" (escaped; "(first)", "(last)" for open ends). */
static void rk_repair_cell(rk_buf *b, const rk_rerun_list *l, const rk_repair_interval *v)
{
	if (l->keyed)
		rk_repair_put_segment(b, v);
	else
		rk_repair_put_interval(b, v->start, v->end);
}

/* The rerun list's damage counts of one interval: "missing 1, extra 2" or "-". */
static void rk_repair_damage(rk_buf *b, const rk_rerun_interval *li)
{
	static const char *const names[] = { "missing", "extra", "duplicated", "changed" };
	static const int idx[] = { RK_RERUN_MISSING, RK_RERUN_EXTRA, RK_RERUN_DUPLICATED, RK_RERUN_CHANGED };
	size_t mark = b->len;

	for (size_t k = 0; k < 4; k++)
		if (li->count[idx[k]])
			rk_buf_printf(b, "%s%s %llu", b->len > mark ? ", " : "", names[k],
			              (unsigned long long)li->count[idx[k]]);
	if (b->len == mark)
		rk_buf_putc(b, '-');
}

static void rk_repair_text_touched(FILE *out, const rk_rtable *t)
{
	rk_buf cell = RK_BUF_INIT;

	if (!t->res.ntouched && !t->res.null_time_deleted)
		return;
	if (t->spec.replace_interval)
		fprintf(out, "windows outside the list whose stale rows the delete by key %s:\n",
		        t->spec.execute ? "removed (checked again)" : "would remove");
	else
		fprintf(out, "windows outside the list whose rows of a missing key %s into the interval:\n",
		        t->spec.execute ? "were moved (checked again)" : "would be moved");
	for (size_t j = 0; j < t->res.ntouched; j++) {
		const rk_repair_touched *w = &t->res.touched[j];
		const rk_repair_interval *v = &t->iv[w->interval];
		char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN];

		rk_buf_reset(&cell);
		rk_buf_printf(&cell, "[%s, %s)", rk_time_format(w->start, a), rk_time_format(w->end, z));
		fprintf(out, "%-46s  ", rk_buf_cstr(&cell));
		if (t->spec.check.tz)
			fprintf(out, "%-26s  ", rk_tz_format(t->spec.check.tz, w->start, a));
		rk_buf_reset(&cell);
		rk_buf_printf(&cell, "by [%s, %s)", rk_time_format(v->start, a), rk_time_format(v->end, z));
		fprintf(out, "%-49s  %s %-6llu  ", rk_buf_cstr(&cell),
		        t->spec.replace_interval ? (t->spec.execute ? "deleted" : "delete")
		                                 : (t->spec.execute ? "moved" : "move"),
		        (unsigned long long)w->deleted);
		rk_buf_reset(&cell);
		if (w->state == RK_REPAIR_MATCH || w->state == RK_REPAIR_DIFFER)
			rk_buf_printf(&cell, "%llu/%llu", (unsigned long long)w->after_source_rows,
			              (unsigned long long)w->after_target_rows);
		else
			rk_buf_putc(&cell, '-');
		fprintf(out, "after %-13s  %s\n", rk_buf_cstr(&cell), rk_repair_state_name(w->state));
	}
	if (t->res.null_time_deleted)
		fprintf(out, "and %llu row%s without a time\n", (unsigned long long)t->res.null_time_deleted,
		        t->res.null_time_deleted == 1 ? "" : "s");
	rk_buf_free(&cell);
}

/* A Delta target: per interval, the commit made (or planned) and the files
 * it removes and adds. */
static void rk_repair_text_delta(FILE *out, const rk_rtable *t)
{
	bool execute = t->spec.execute;

	if (!t->res.ndelta)
		return;
	fprintf(out, "Delta commits (one per interval):\n");
	for (size_t j = 0; j < t->res.ndelta; j++) {
		const rk_repair_delta *d = &t->res.delta[j];
		const rk_repair_interval *v = &t->iv[d->interval];
		char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN];

		fprintf(out, "[%s, %s)  checked on version %lld, %zu file%s read; ", rk_time_format(v->start, a),
		        rk_time_format(v->end, z), d->read_version, d->files_read, d->files_read == 1 ? "" : "s");
		if (!execute)
			fprintf(out, "would commit:\n");
		else if (d->version >= 0)
			fprintf(out, "committed version %lld:\n", d->version);
		else
			fprintf(out, "%s\n", rk_repair_state_done(v->state) ? "nothing to change, no commit" : "not committed");
		for (size_t f = 0; f < d->nremoved; f++) {
			const rk_repair_dfile *r = &d->removed[f];

			fprintf(out, "    %s %s (%llu row%s: %llu deleted", execute ? "removed" : "remove", r->path,
			        (unsigned long long)r->rows, r->rows == 1 ? "" : "s", (unsigned long long)r->deleted);
			if (r->rows > r->deleted)
				fprintf(out, ", %llu %s into a new file", (unsigned long long)(r->rows - r->deleted),
				        execute ? "rewritten" : "to rewrite");
			fprintf(out, ")\n");
		}
		if (v->inserted)
			fprintf(out, "    %s %llu source row%s in a new file\n", execute ? "added" : "add",
			        (unsigned long long)v->inserted, v->inserted == 1 ? "" : "s");
		fprintf(out, "    %zu file%s %s, %zu %s\n", d->nremoved, d->nremoved == 1 ? "" : "s",
		        execute ? "removed" : "to remove", d->files_added, execute ? "added" : "to add");
	}
}

/* The table's columns, before the damage listed: interval, before s/t,
 * delete(d), [update(d)], insert(ed), after s/t, status; and a width that
 * leaves the damage room too.  Narrower terminals get a block an interval. */
#define RK_REPAIR_TABLE_WIDTH 150

/* The table of the intervals, a row each (a block each on a narrow
 * terminal): before, the rows written, after, the status, the damage. */
static void rk_repair_text_rows(FILE *out, const rk_rtable *t)
{
	const rk_rerun_list *l = t->list;
	bool execute = t->spec.execute, rows = !t->spec.replace_interval;
	const rk_tz *tz = t->spec.check.tz;
	/* --timezone: a local start column after the interval */
	bool table = rk_text_width(fileno(out)) >= RK_REPAIR_TABLE_WIDTH + (tz ? 28 : 0);
	const char *h_local = tz ? "local start                 " : "";
	const char *h_del = rows ? (execute ? "deleted" : "delete") : (execute ? "deleted t+k" : "delete t+k");
	const char *h_upd = execute ? "updated" : "update", *h_ins = execute ? "inserted" : "insert";
	rk_buf c[7];

	if (tz)
		fprintf(out, "local times in %s:\n", rk_tz_name(tz));
	if (table && rows)
		fprintf(out, "%-46s  %s%-13s  %-9s  %-9s  %-9s  %-13s  %-15s  %s\n", l->keyed ? "segment" : "interval", h_local, "before s/t", h_del,
		        h_upd, h_ins, "after s/t", "status", "damage listed");
	else if (table)
		fprintf(out, "%-46s  %s%-13s  %-13s  %-9s  %-13s  %-15s  %s\n", l->keyed ? "segment" : "interval", h_local, "before s/t", h_del,
		        h_ins, "after s/t", "status", "damage listed");
	for (int k = 0; k < 7; k++)
		c[k] = (rk_buf)RK_BUF_INIT;
	for (size_t i = 0; i < l->n; i++) {
		char a[RK_TIME_STRLEN];
		const rk_repair_interval *v = &t->iv[i];
		bool counted = v->state == RK_REPAIR_PLANNED || rk_repair_state_done(v->state);
		bool after = v->state == RK_REPAIR_MATCH || v->state == RK_REPAIR_DIFFER || v->state == RK_REPAIR_ALREADY;

		for (int k = 0; k < 7; k++)
			rk_buf_reset(&c[k]);
		/* 0 interval, 1 before, 2 delete, 3 update, 4 insert, 5 after, 6 damage */
		rk_repair_cell(&c[0], l, v);
		rk_buf_printf(&c[1], "%llu/%llu", (unsigned long long)l->items[i].count[RK_RERUN_SOURCE_ROWS],
		              (unsigned long long)l->items[i].count[RK_RERUN_TARGET_ROWS]);
		if (counted && rows)
			rk_buf_printf(&c[2], "%llu", (unsigned long long)v->deleted_by_time);
		else if (counted)
			rk_buf_printf(&c[2], "%llu+%llu", (unsigned long long)v->deleted_by_time,
			              (unsigned long long)v->deleted_by_key);
		else
			rk_buf_putc(&c[2], '-');
		if (counted)
			rk_buf_printf(&c[3], "%llu", (unsigned long long)v->updated);
		else
			rk_buf_putc(&c[3], '-');
		if (counted)
			rk_buf_printf(&c[4], "%llu", (unsigned long long)v->inserted);
		else
			rk_buf_putc(&c[4], '-');
		if (after)
			rk_buf_printf(&c[5], "%llu/%llu", (unsigned long long)v->after_source_rows,
			              (unsigned long long)v->after_target_rows);
		else
			rk_buf_putc(&c[5], '-');
		rk_repair_damage(&c[6], &l->items[i]);
		if (!table) {
			/* a narrow terminal: the interval and its status, then the counts */
			fprintf(out, "%s  %s\n", rk_buf_cstr(&c[0]), rk_repair_state_name(v->state));
			if (tz)
				fprintf(out, "    local start %s\n", rk_tz_format(tz, v->start, a));
			fprintf(out, "    before s/t %s  %s %s",
			        rk_buf_cstr(&c[1]), h_del, rk_buf_cstr(&c[2]));
			if (rows)
				fprintf(out, "  %s %s", h_upd, rk_buf_cstr(&c[3]));
			fprintf(out, "  %s %s  after s/t %s\n    damage listed: %s\n", h_ins, rk_buf_cstr(&c[4]),
			        rk_buf_cstr(&c[5]), rk_buf_cstr(&c[6]));
			continue;
		}
		fprintf(out, "%-46s  ", rk_buf_cstr(&c[0]));
		if (tz)
			fprintf(out, "%-26s  ", rk_tz_format(tz, v->start, a));
		fprintf(out, "%-13s  ", rk_buf_cstr(&c[1]));
		fprintf(out, rows ? "%-9s  " : "%-13s  ", rk_buf_cstr(&c[2]));
		if (rows)
			fprintf(out, "%-9s  ", rk_buf_cstr(&c[3]));
		fprintf(out, "%-9s  %-13s  %-15s  %s\n", rk_buf_cstr(&c[4]), rk_buf_cstr(&c[5]),
		        rk_repair_state_name(v->state), rk_buf_cstr(&c[6]));
	}
	for (int k = 0; k < 7; k++)
		rk_buf_free(&c[k]);
}

/* A dry run of --replace-interval: the target-only columns it resets and,
 * per interval, the rows it deletes and inserts again. */
static void rk_repair_text_reset(FILE *out, const rk_rtable *t)
{
	const rk_rerun_list *l = t->list;
	rk_buf cell = RK_BUF_INIT;

	if (t->spec.execute || !t->spec.replace_interval || !t->res.reset_columns)
		return;
	fprintf(out, "target-only columns that --replace-interval resets to their defaults: %s; the rows it "
	             "deletes and inserts again:\n",
	        t->res.reset_columns);
	for (size_t i = 0; i < l->n; i++) {
		char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN];
		const rk_repair_interval *v = &t->iv[i];

		if (v->state != RK_REPAIR_PLANNED)
			continue;
		rk_buf_reset(&cell);
		rk_buf_printf(&cell, "[%s, %s)", rk_time_format(v->start, a), rk_time_format(v->end, z));
		fprintf(out, "%-46s  %llu row%s", rk_buf_cstr(&cell), (unsigned long long)v->reset,
		        v->reset == 1 ? "" : "s");
		if (v->reset_keys[0])
			fprintf(out, " (%s%s)", v->reset > 3 ? "e.g. " : "", v->reset_keys);
		fputc('\n', out);
	}
	rk_buf_free(&cell);
}

/* The closing line: what a dry run would do, or what was done. */
static void rk_repair_text_totals(FILE *out, const rk_rtable *t)
{
	const rk_rerun_list *l = t->list;
	bool execute = t->spec.execute, rows = !t->spec.replace_interval;
	rk_repair_totals s;

	rk_repair_sum(t, &s);
	if (!execute) {
		fprintf(out, "dry run: %zu interval%s", l->n, l->n == 1 ? "" : "s");
		if (s.already)
			fprintf(out, " (%zu already match%s)", s.already, s.already == 1 ? "es" : "");
		if (rows)
			fprintf(out, "; would delete %llu target row%s, update %llu (%llu moved in from other windows) and "
			             "insert %llu",
			        (unsigned long long)s.deleted_by_time, s.deleted_by_time == 1 ? "" : "s",
			        (unsigned long long)s.updated, (unsigned long long)s.moved, (unsigned long long)s.inserted);
		else
			fprintf(out, "; would delete %llu target rows (%llu by time, %llu by key) and insert %llu source rows",
			        (unsigned long long)(s.deleted_by_time + s.deleted_by_key),
			        (unsigned long long)s.deleted_by_time, (unsigned long long)s.deleted_by_key,
			        (unsigned long long)s.inserted);
		fprintf(out, "; nothing was changed%s\n", t->complete ? " (add --execute to repair)" : " (stopped)");
		return;
	}
	if (rows)
		fprintf(out, "repaired %zu of %zu interval%s: deleted %llu target row%s, updated %llu (%llu moved in "
		             "from other windows), inserted %llu; %zu match%s",
		        s.done, l->n, l->n == 1 ? "" : "s", (unsigned long long)s.deleted_by_time,
		        s.deleted_by_time == 1 ? "" : "s", (unsigned long long)s.updated, (unsigned long long)s.moved,
		        (unsigned long long)s.inserted, s.match, s.match == 1 ? "es" : "");
	else
		fprintf(out, "repaired %zu of %zu interval%s: deleted %llu target row%s (%llu by time, %llu by key), "
		             "inserted %llu; %zu match%s",
		        s.done, l->n, l->n == 1 ? "" : "s",
		        (unsigned long long)(s.deleted_by_time + s.deleted_by_key),
		        s.deleted_by_time + s.deleted_by_key == 1 ? "" : "s", (unsigned long long)s.deleted_by_time,
		        (unsigned long long)s.deleted_by_key, (unsigned long long)s.inserted, s.match,
		        s.match == 1 ? "es" : "");
	if (s.already)
		fprintf(out, ", %zu already matched (left alone)", s.already);
	if (s.differ)
		fprintf(out, ", %zu still differ%s", s.differ, s.differ == 1 ? "s" : "");
	if (s.touched_differ)
		fprintf(out, ", %zu window%s outside the list still differ%s", s.touched_differ,
		        s.touched_differ == 1 ? "" : "s", s.touched_differ == 1 ? "s" : "");
	fprintf(out, "%s\n", t->complete ? "" : rk_guard_signal() ? " (interrupted)"
	                                                          : " (stopped by an error)");
}

static void rk_repair_text(FILE *out, const rk_rtable *t)
{
	bool rows = !t->spec.replace_interval;

	if (t->list->n == 0) {
		fprintf(out, "nothing to repair: the rerun list %s holds no interval\n", t->list->name);
		return;
	}
	rk_repair_text_rows(out, t);
	if (rows)
		fprintf(out, "(s/t: source/target rows in the interval, before as the rerun list says; only the rows of "
		             "the keys its check names are written)\n");
	else
		fprintf(out, "(s/t: source/target rows in the interval, before as the rerun list says; t+k: target rows "
		             "deleted by time + by key)\n");
	rk_repair_text_touched(out, t);
	rk_repair_text_delta(out, t);
	rk_repair_text_reset(out, t);
	rk_repair_text_totals(out, t);
}

/* The run's verdict, as --format json and the audit trail say it. */
static const char *rk_repair_verdict(const rk_rtable *t)
{
	rk_repair_totals s;

	rk_repair_sum(t, &s);
	if (!t->complete)
		return "failed";
	if (!t->spec.execute)
		return "planned";
	return s.match + s.already == t->list->n && !s.touched_differ ? "match" : "differ";
}

/* reckon.repair_interval.status of a state (docs/audit.md maps them to the
 * words of reckon repair's own output). */
static const char *rk_repair_audit_status(rk_repair_state s)
{
	switch (s) {
	case RK_REPAIR_PENDING: return "not_started";
	case RK_REPAIR_FAILED: return "not_changed";
	case RK_REPAIR_UNKNOWN: return "unknown";
	case RK_REPAIR_ALREADY: return "already_matches";
	case RK_REPAIR_PLANNED: return "planned";
	case RK_REPAIR_COMMITTED: return "replaced";
	case RK_REPAIR_MATCH: return "verified";
	case RK_REPAIR_DIFFER: return "differ";
	}
	return "unknown";
}

/* One interval as the audit trail records it. */
static void rk_repair_audit_interval(const rk_rerun_interval *li, const rk_repair_interval *v, rk_audit_interval *a)
{
	static const int before[6] = { RK_RERUN_SOURCE_ROWS, RK_RERUN_TARGET_ROWS, RK_RERUN_MISSING, RK_RERUN_EXTRA,
		                       RK_RERUN_DUPLICATED, RK_RERUN_CHANGED };

	memset(a, 0, sizeof *a);
	a->start = v->start;
	a->end = v->end;
	a->status = rk_repair_audit_status(v->state);
	for (int k = 0; k < 6; k++)
		a->before[k] = li->count[before[k]];
	/* what the run did to it: a dry run's counts are what it would do; a
	 * COMMIT lost on the wire leaves what the transaction had done */
	a->counted = v->state == RK_REPAIR_PLANNED || v->state == RK_REPAIR_UNKNOWN || rk_repair_state_done(v->state);
	a->source_rows = v->source_rows;
	a->deleted_by_time = v->deleted_by_time;
	a->deleted_by_key = v->deleted_by_key;
	a->inserted = v->inserted;
	a->updated = v->updated;
	a->moved = v->moved;
	if (v->state == RK_REPAIR_MATCH || v->state == RK_REPAIR_DIFFER || v->state == RK_REPAIR_ALREADY) {
		a->after = v->state == RK_REPAIR_DIFFER ? "differ" : "match";
		a->after_source_rows = v->after_source_rows;
		a->after_target_rows = v->after_target_rows;
	}
}

static void rk_json_time(FILE *out, const char *name, rk_usec t)
{
	char a[RK_TIME_STRLEN];

	fprintf(out, "\"%s\":\"%s\"", name, rk_time_format(t, a));
}

/* A message as a JSON string: quotes, backslashes and control characters
 * escaped, bytes that are not UTF-8 replaced by U+FFFD. */
static void rk_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		size_t n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2
		                   : (*p & 0xf0) == 0xe0       ? 3
		                   : (*p & 0xf8) == 0xf0       ? 4
		                                               : 0;
		size_t k;

		for (k = 1; k < n && (p[k] & 0xc0) == 0x80; k++)
			;
		if (n == 0 || k < n || (n == 2 && *p < 0xc2)) {
			fputs("\xef\xbf\xbd", out);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p++);
		} else if (*p < 0x20) {
			fprintf(out, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
	}
	fputc('"', out);
}

/* Every value is a number, an instant, one of a few fixed words or an
 * escaped message. */
static void rk_repair_json(FILE *out, const rk_rtable *t)
{
	const rk_rerun_list *l = t->list;
	rk_repair_totals s;

	rk_repair_sum(t, &s);
	fprintf(out, "{\"mode\":\"%s\",\"repair\":\"%s\",\"complete\":%s,\"verdict\":\"%s\",\"intervals\":[",
	        t->spec.execute ? "execute" : "dry-run", t->spec.replace_interval ? "replace-interval" : "rows",
	        t->complete ? "true" : "false", rk_repair_verdict(t));
	for (size_t i = 0; i < l->n; i++) {
		const rk_repair_interval *v = &t->iv[i];
		const uint64_t *c = l->items[i].count;

		fprintf(out, "%s{", i ? "," : "");
		if (l->keyed) {
			/* a key segment: its bounds as strings, null for an open end */
			fputs("\"kind\":\"key\",\"interval_start\":", out);
			if (v->key_start)
				rk_json_string(out, v->key_start);
			else
				fputs("null", out);
			fputs(",\"interval_end\":", out);
			if (v->key_end)
				rk_json_string(out, v->key_end);
			else
				fputs("null", out);
		} else {
			rk_json_time(out, "interval_start", v->start);
			fputc(',', out);
			rk_json_time(out, "interval_end", v->end);
		}
		if (t->spec.check.tz) {
			char lb[RK_TIME_STRLEN];

			fprintf(out, ",\"interval_label\":\"%s\"", rk_tz_format(t->spec.check.tz, v->start, lb));
		}
		fprintf(out, ",\"status\":\"%s\",\"before\":{\"source_rows\":%llu,\"target_rows\":%llu,\"missing\":%llu,"
		             "\"extra\":%llu,\"duplicated\":%llu,\"changed\":%llu}",
		        rk_repair_state_key(v->state), (unsigned long long)c[RK_RERUN_SOURCE_ROWS],
		        (unsigned long long)c[RK_RERUN_TARGET_ROWS], (unsigned long long)c[RK_RERUN_MISSING],
		        (unsigned long long)c[RK_RERUN_EXTRA], (unsigned long long)c[RK_RERUN_DUPLICATED],
		        (unsigned long long)c[RK_RERUN_CHANGED]);
		fprintf(out, ",\"source_rows\":%llu,\"deleted_by_time\":%llu,\"deleted_by_key\":%llu,\"inserted\":%llu"
		             ",\"updated\":%llu,\"moved\":%llu",
		        (unsigned long long)v->source_rows, (unsigned long long)v->deleted_by_time,
		        (unsigned long long)v->deleted_by_key, (unsigned long long)v->inserted,
		        (unsigned long long)v->updated, (unsigned long long)v->moved);
		if (t->spec.replace_interval && !t->spec.execute && v->state == RK_REPAIR_PLANNED) {
			/* the rows whose target-only columns would be reset */
			fprintf(out, ",\"reset\":%llu,\"reset_keys\":", (unsigned long long)v->reset);
			rk_json_string(out, v->reset_keys);
		}
		if (v->state == RK_REPAIR_MATCH || v->state == RK_REPAIR_DIFFER || v->state == RK_REPAIR_ALREADY)
			fprintf(out, ",\"after\":{\"source_rows\":%llu,\"target_rows\":%llu}}",
			        (unsigned long long)v->after_source_rows, (unsigned long long)v->after_target_rows);
		else
			fprintf(out, ",\"after\":null}");
	}
	fprintf(out, "],\"reset_columns\":");
	if (t->res.reset_columns)
		rk_json_string(out, t->res.reset_columns);
	else
		fputs("null", out);
	fprintf(out, ",\"touched\":[");
	for (size_t j = 0; j < t->res.ntouched; j++) {
		const rk_repair_touched *w = &t->res.touched[j];

		fprintf(out, "%s{", j ? "," : "");
		rk_json_time(out, "window_start", w->start);
		fputc(',', out);
		rk_json_time(out, "window_end", w->end);
		if (t->spec.check.tz) {
			char lb[RK_TIME_STRLEN];

			fprintf(out, ",\"window_label\":\"%s\"", rk_tz_format(t->spec.check.tz, w->start, lb));
		}
		fputc(',', out);
		rk_json_time(out, "by_interval_start", t->iv[w->interval].start);
		fprintf(out, ",\"deleted\":%llu,\"status\":\"%s\"", (unsigned long long)w->deleted,
		        rk_repair_state_key(w->state));
		if (w->state == RK_REPAIR_MATCH || w->state == RK_REPAIR_DIFFER)
			fprintf(out, ",\"after\":{\"source_rows\":%llu,\"target_rows\":%llu}}",
			        (unsigned long long)w->after_source_rows, (unsigned long long)w->after_target_rows);
		else
			fprintf(out, ",\"after\":null}");
	}
	fprintf(out, "],\"delta\":[");
	for (size_t j = 0; j < t->res.ndelta; j++) {
		const rk_repair_delta *d = &t->res.delta[j];

		fprintf(out, "%s{", j ? "," : "");
		rk_json_time(out, "interval_start", t->iv[d->interval].start);
		fprintf(out, ",\"read_version\":%lld,\"version\":", d->read_version);
		if (d->version >= 0)
			fprintf(out, "%lld", d->version);
		else
			fputs("null", out);
		fprintf(out, ",\"files_read\":%zu,\"files_added\":%zu,\"removed\":[", d->files_read, d->files_added);
		for (size_t f = 0; f < d->nremoved; f++) {
			fprintf(out, "%s{\"path\":", f ? "," : "");
			rk_json_string(out, d->removed[f].path);
			fprintf(out, ",\"rows\":%llu,\"deleted\":%llu}", (unsigned long long)d->removed[f].rows,
			        (unsigned long long)d->removed[f].deleted);
		}
		fputs("]}", out);
	}
	fprintf(out, "],\"totals\":{\"intervals\":%zu,\"repaired\":%zu,\"match\":%zu,\"differ\":%zu,"
	             "\"already_matches\":%zu,\"deleted_by_time\":%llu,\"deleted_by_key\":%llu,\"inserted\":%llu,"
	             "\"updated\":%llu,\"moved\":%llu,\"null_time_deleted\":%llu}}",
	        l->n, s.done, s.match, s.differ, s.already, (unsigned long long)s.deleted_by_time,
	        (unsigned long long)s.deleted_by_key, (unsigned long long)s.inserted, (unsigned long long)s.updated,
	        (unsigned long long)s.moved,
	        (unsigned long long)t->res.null_time_deleted);
}

/* Records the table's run in the audit trail; an audit failure raises the
 * status (docs/audit.md) and is printed. */
static void rk_repair_record(const char *audit, const rk_opts *o, rk_rtable *t)
{
	size_t n = t->list ? t->list->n : 0;
	rk_audit_interval *ai = rk_xcalloc(n ? n : 1, sizeof *ai);
	rk_audit_repair ar;
	rk_opts_record rec;
	rk_error aerr;

	rk_error_clear(&aerr);
	for (size_t i = 0; i < n; i++)
		rk_repair_audit_interval(&t->list->items[i], &t->iv[i], &ai[i]);
	memset(&ar, 0, sizeof ar);
	ar.source = &t->spec.check.source;
	ar.target = &t->spec.check.target;
	ar.key = t->spec.check.key;
	ar.nkey = t->spec.check.nkey;
	ar.sum = t->spec.check.sum;
	ar.nsum = t->spec.check.nsum;
	ar.iv = ai;
	ar.n = n;
	ar.verdict = rk_repair_verdict(t);
	ar.exit_status = t->status;
	ar.error = t->failed ? t->err.msg : NULL;
	rk_opts_audit(o, &rec);
	if (rk_audit_record_repair(audit, &rec.options, &ar, &aerr) < 0) {
		if (t->label)
			rk_error_prefix(&aerr, "table %s", t->label);
		rk_log_error(&aerr);
		/* an interruption stays what the run exits with */
		if (aerr.code > t->status && t->status < 128)
			t->status = aerr.code;
	}
	rk_opts_record_free(&rec);
	free(ai);
}

/* A list of key segments is repaired without --time (repair_keys.c), a
 * list of time intervals with it; the audit trail records time intervals
 * only. */
static int rk_repair_list_kind(const rk_opts *o, rk_rtable *t)
{
	if (!t->list->keyed && !t->spec.check.time) {
		rk_error_set(&t->err, RK_EXIT_USAGE, "repair of %s needs --time: it holds time intervals", t->list->name);
		return rk_error_hint(&t->err, "the same table options as reckon check");
	}
	if (t->list->keyed && t->spec.check.time) {
		rk_error_set(&t->err, RK_EXIT_USAGE, "%s holds key segments (kind key), and --time %s was given; nothing "
		                                     "was changed",
		             t->list->name, t->spec.check.time);
		return rk_error_hint(&t->err, "a list of key segments is repaired as it was checked: without --time");
	}
	if (t->list->keyed && o->audit) {
		rk_error_set(&t->err, RK_EXIT_USAGE, "--audit records repairs of time intervals, and %s holds key "
		                                     "segments; nothing was changed",
		             t->list->name);
		return rk_error_hint(&t->err, "repair the key segments without --audit");
	}
	return 0;
}

/*
 * Repairs one table: o holds its options (a job's table: already merged),
 * rerun the list to replay.  Fills t; prints the errors (prefixed with the
 * label) but not the result.  Returns t->status.
 */
static int rk_repair_table(const rk_opts *o, const char *rerun, rk_rtable *t)
{
	rk_error_clear(&t->err);
	t->status = RK_EXIT_OK;
	if (rk_tableopts_pair(o, &t->spec.check, &t->err) < 0)
		goto fail;
	if (t->spec.check.time_zone && !rk_tz_is_utc(t->spec.check.time_zone)) {
		/* its deletes and inserts select the interval's rows by UTC */
		rk_error_set(&t->err, RK_EXIT_USAGE, "repair does not read a zoneless time column in --time-column-zone %s "
		                                     "yet; nothing was changed",
		             rk_tz_name(t->spec.check.time_zone));
		rk_error_hint(&t->err, "repair the table with the column read as UTC (a rerun list from a check without "
		                       "--time-column-zone), or load the intervals again");
		goto fail;
	}
	t->spec.check.leaf_rows = RK_CHECK_LEAF_ROWS;
	/* the checks before and after each interval: their window digests are
	 * computed in the server where the reckon extension is (the same
	 * digests, without streaming the interval's rows), unless --pushdown
	 * says otherwise */
	t->spec.check.pushdown = !rk_opts_is_set(o, RK_O_PUSHDOWN) || o->pushdown == RK_OPT_PUSHDOWN_AUTO
	                                 ? RK_PUSHDOWN_AUTO
	                         : o->pushdown == RK_OPT_PUSHDOWN_ON ? RK_PUSHDOWN_ON
	                                                             : RK_PUSHDOWN_OFF;
	if (!o->time) {
		/* key segments are digested by reckon, as check digests them */
		if (rk_opts_is_set(o, RK_O_PUSHDOWN) && o->pushdown == RK_OPT_PUSHDOWN_ON) {
			rk_error_set(&t->err, RK_EXIT_USAGE, "--pushdown on needs --time: key segments are digested by reckon");
			rk_error_hint(&t->err, "drop --pushdown, or use --pushdown auto");
			goto fail;
		}
		t->spec.check.pushdown = RK_PUSHDOWN_OFF;
	}
	t->spec.check.settle = o->settle;
	t->spec.check.now = rk_opts_is_set(o, RK_O_NOW) ? o->now : rk_time_now();
	t->spec.interval_column = o->interval_column;
	t->spec.execute = o->execute;
	t->spec.allow_open = o->allow_open;
	t->spec.replace_interval = o->replace_interval;
	t->spec.allow_cascade = o->allow_cascade;
	t->spec.load_interval = rk_opts_is_set(o, RK_O_LOAD_INTERVAL) ? o->load_interval : 0;
	t->spec.force = o->force;
	if (o->timezone && !(t->spec.check.tz = rk_tz_get(o->timezone, "--timezone", &t->err)))
		goto fail;
	if (t->spec.load_interval < 0 && !t->spec.check.tz) {
		rk_error_set(&t->err, RK_EXIT_USAGE, "--load-interval %s is a calendar unit: it needs --timezone",
		             o->text[RK_O_LOAD_INTERVAL]);
		rk_error_hint(&t->err, "add --timezone ZONE, the zone whose months the load's intervals are");
		goto fail;
	}
	if (t->spec.load_interval && !o->interval_column) {
		rk_error_set(&t->err, RK_EXIT_USAGE, "--load-interval says what --interval-column records; no "
		                                     "--interval-column was given");
		rk_error_hint(&t->err, "add --interval-column COL, or leave --load-interval out");
		goto fail;
	}
	if (rk_rerun_read(rerun, &t->list, &t->err) < 0)
		goto fail;
	if (rk_repair_list_kind(o, t) < 0)
		goto fail;
	for (size_t i = 0; i < t->list->n; i++) {
		char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN];

		if (!t->list->items[i].zoneless)
			continue;
		rk_error_set(&t->err, RK_EXIT_USAGE, "%s:%lu: interval [%s, %s) is written without a time zone; repair "
		                                     "reads an instant as --from does and does not guess one",
		             t->list->name,
		             t->list->items[i].line, rk_time_format(t->list->items[i].start, a),
		             rk_time_format(t->list->items[i].end, z));
		rk_error_hint(&t->err, "write Z or an offset, as reckon check does: 2026-03-02T10:00:00Z");
		goto fail;
	}
	t->iv = rk_xcalloc(t->list->n ? t->list->n : 1, sizeof *t->iv);
	for (size_t i = 0; i < t->list->n; i++) {
		t->iv[i].start = t->list->items[i].start;
		t->iv[i].end = t->list->items[i].end;
		t->iv[i].key_start = t->list->items[i].key_start;
		t->iv[i].key_end = t->list->items[i].key_end;
	}
	t->ran = true;
	if (rk_repair_run(&t->spec, t->iv, t->list->n, &t->res, &t->err) < 0)
		goto fail;
	t->complete = true;
	for (size_t i = 0; i < t->list->n; i++)
		if (t->iv[i].state != RK_REPAIR_MATCH && t->iv[i].state != RK_REPAIR_PLANNED &&
		    t->iv[i].state != RK_REPAIR_ALREADY)
			t->status = RK_EXIT_DIFFER;
	for (size_t j = 0; j < t->res.ntouched; j++)
		if (t->res.touched[j].state != RK_REPAIR_MATCH && t->res.touched[j].state != RK_REPAIR_PLANNED)
			t->status = RK_EXIT_DIFFER;
	return t->status;
fail:
	t->failed = true;
	t->status = t->err.code ? t->err.code : RK_EXIT_RUNTIME;
	if (t->label)
		rk_error_prefix(&t->err, "table %s", t->label);
	return t->status;
}

/* Whether the table has a result to print: done, or stopped part way with
 * something to say about its intervals. */
static bool rk_repair_printable(const rk_rtable *t)
{
	if (!t->ran || (!t->complete && !t->spec.execute && !rk_guard_signal()))
		return false;
	if (t->complete)
		return true;
	for (size_t i = 0; i < t->list->n; i++)
		if (t->iv[i].state != RK_REPAIR_PENDING)
			return true;
	return rk_guard_signal() != 0;
}

static void rk_rtable_free(rk_rtable *t)
{
	rk_repair_result_free(&t->res);
	free(t->iv);
	rk_rerun_free(t->list);
	memset(t, 0, sizeof *t);
}

/* The audit database must be usable before the target is touched: an
 * audited repair is not done unrecorded. */
static int rk_repair_audit_first(const char *audit, rk_error *err)
{
	char hint[sizeof err->hint];

	if (rk_audit_prepare(audit, err) == 0)
		return 0;
	memcpy(hint, err->hint, sizeof hint);
	rk_error_prefix(err, "repair not started");
	return rk_error_hint(err, "%s; or run without --audit to repair unrecorded",
	                     hint[0] ? hint : "fix the --audit database");
}

/* The higher of two exit statuses (0 < 1 < 2 < 3); an interruption wins. */
static int rk_repair_worst(int a, int b)
{
	if (a >= 128 || b >= 128)
		return a >= 128 ? a : b;
	return a > b ? a : b;
}

/* reckon repair --rerun-list FILE ... */
static int rk_repair_one(rk_opts *o)
{
	rk_rtable t;
	bool json = o->format == RK_OPT_FORMAT_JSON;
	int status;

	memset(&t, 0, sizeof t);
	if (rk_opts_require(o, RK_O_RERUN_LIST, &t.err) < 0 ||
	    (o->audit && rk_repair_audit_first(o->audit, &t.err) < 0)) {
		rk_log_error(&t.err);
		return t.err.code ? t.err.code : RK_EXIT_RUNTIME;
	}
	rk_repair_table(o, o->rerun_list, &t);
	/* what was done is a result even when the run stopped part way */
	if (rk_repair_printable(&t)) {
		if (json) {
			rk_repair_json(stdout, &t);
			fputc('\n', stdout);
		} else {
			rk_repair_text(stdout, &t);
		}
		if (fflush(stdout) != 0 && !t.failed) {
			rk_error_set(&t.err, RK_EXIT_RUNTIME, "cannot write to standard output");
			t.failed = true;
			t.status = RK_EXIT_RUNTIME;
		}
	}
	if (t.failed)
		rk_log_error(&t.err);
	/* the run is recorded whatever its outcome: the intervals done and not
	 * done are what whoever picks it up needs */
	if (t.ran && o->audit)
		rk_repair_record(o->audit, o, &t);
	status = t.status;
	rk_rtable_free(&t);
	return status;
}

/* "DIR/LABEL/rerun.csv" */
static char *rk_repair_job_list(const char *dir, const char *label)
{
	rk_buf b = RK_BUF_INIT;

	rk_buf_printf(&b, "%s/%s/rerun.csv", dir, label);
	rk_buf_cstr(&b);
	return b.data;
}

static bool rk_repair_only(const rk_opts *o, const char *label)
{
	if (!o->only.n)
		return true;
	for (size_t i = 0; i < o->only.n; i++)
		if (!strcmp(o->only.items[i], label))
			return true;
	return false;
}

/* reckon repair --job FILE --report DIR ... */
static int rk_repair_job(rk_opts *o, int argc, char **argv)
{
	rk_ini *job = NULL;
	const char **labels = NULL;
	size_t nlabels = 0, ran = 0;
	rk_error err;
	bool json = o->format == RK_OPT_FORMAT_JSON;
	int status = RK_EXIT_OK;

	rk_error_clear(&err);
	if (rk_opts_is_set(o, RK_O_RERUN_LIST)) {
		rk_error_set(&err, RK_EXIT_USAGE, "options --job and --rerun-list exclude each other");
		rk_error_hint(&err, "a job replays DIR/LABEL/rerun.csv of each table: give --report DIR");
		goto fail;
	}
	if (!o->report || !*o->report) {
		rk_error_set(&err, RK_EXIT_USAGE, "repair --job needs --report DIR%s",
		             o->report ? " (a directory name, not '')" : "");
		rk_error_hint(&err, "the report directory 'reckon check --job ... --report DIR' wrote: repair replays "
		                    "DIR/LABEL/rerun.csv of each table");
		goto fail;
	}
	if (rk_opts_job_read(o->job, RK_CMD_REPAIR, &job, &labels, &nlabels, &err) < 0)
		goto fail;
	{
		struct stat st;
		int e = stat(o->report, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0
		                                                                : ENOTDIR;

		if (e) {
			rk_error_set(&err, RK_EXIT_USAGE, "option --report %s: %s", o->report,
			             e == ENOENT ? "no such directory" : strerror(e));
			rk_error_hint(&err, "name the report directory 'reckon check --job ... --report DIR' wrote");
			goto fail;
		}
	}
	for (size_t i = 0; i < o->only.n; i++) {
		size_t k;

		for (k = 0; k < nlabels && strcmp(labels[k], o->only.items[i]); k++)
			;
		if (k == nlabels) {
			rk_error_set(&err, RK_EXIT_USAGE, "--only %s: no table of that label in %s", o->only.items[i], o->job);
			rk_error_hint(&err, "the job's tables are its [table LABEL] sections");
			goto fail;
		}
	}
	if (o->audit && rk_repair_audit_first(o->audit, &err) < 0)
		goto fail;
	if (json)
		fputs("{\"tables\":{", stdout);
	for (size_t i = 0; i < nlabels && !rk_guard_signal(); i++) {
		rk_opts to;
		rk_rtable t;
		char *path;

		if (!rk_repair_only(o, labels[i]))
			continue;
		memset(&t, 0, sizeof t);
		t.label = labels[i];
		path = rk_repair_job_list(o->report, labels[i]);
		if (rk_opts_parse_table(&to, RK_CMD_REPAIR, argc, argv, job, labels[i], &t.err) < 0) {
			t.failed = true;
			t.status = t.err.code ? t.err.code : RK_EXIT_USAGE;
		} else {
			rk_repair_table(&to, path, &t);
		}
		if (json) {
			fprintf(stdout, "%s\"%s\":{\"exit_status\":%d,\"error\":", ran ? "," : "", labels[i], t.status);
			if (t.failed)
				rk_json_string(stdout, t.err.msg);
			else
				fputs("null", stdout);
			fputs(",\"repair\":", stdout);
			if (rk_repair_printable(&t))
				rk_repair_json(stdout, &t);
			else
				fputs("null", stdout);
			fputc('}', stdout);
		} else {
			printf("%s== table %s: %s -> %s\n", ran ? "\n" : "", labels[i],
			       t.spec.check.source.table ? t.spec.check.source.table : "?",
			       t.spec.check.target.table ? t.spec.check.target.table : "?");
			if (rk_repair_printable(&t))
				rk_repair_text(stdout, &t);
			if (t.failed)
				printf("error (exit %d): %s\n", t.status, t.err.msg);
		}
		fflush(stdout);
		if (t.failed)
			rk_log_error(&t.err);
		if (t.ran && o->audit)
			rk_repair_record(o->audit, &to, &t);
		status = rk_repair_worst(status, t.status);
		ran++;
		rk_rtable_free(&t);
		rk_opts_free(&to);
		free(path);
	}
	if (json)
		printf("},\"exit_status\":%d}\n", status);
	else
		printf("\njob %s: %zu table%s%s; exit status %d\n", o->job, ran, ran == 1 ? "" : "s",
		       o->execute ? "" : ", dry run", status);
	if (fflush(stdout) != 0) {
		rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to standard output");
		goto fail;
	}
	free(labels);
	rk_ini_free(job);
	return status;
fail:
	rk_log_error(&err);
	free(labels);
	rk_ini_free(job);
	return rk_repair_worst(status, err.code ? err.code : RK_EXIT_RUNTIME);
}

int rk_cmd_repair(int argc, char **argv)
{
	rk_opts o;
	rk_error err;
	int status;

	rk_error_clear(&err);
	status = rk_opts_start(&o, RK_CMD_REPAIR, argc, argv,
	                       "the rerun list is given with --rerun-list FILE; see 'reckon repair --help'", &err);
	if (status <= 0)
		return rk_opts_stop(&o, status, &err);
	if (rk_guard_begin(o.lock_timeout, &err) < 0) {
		rk_log_error(&err);
		rk_opts_free(&o);
		return err.code;
	}
	status = o.job ? rk_repair_job(&o, argc, argv) : rk_repair_one(&o);
	rk_guard_end();
	rk_opts_free(&o);
	return status;
}
