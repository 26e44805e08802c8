/*
 * repair_delta.c - reckon repair of a Delta target (repair_delta.h): per
 * interval one commit, made through the destination seam (load/target.h,
 * target_delta.c) on the snapshot the interval was checked on.
 *
 * One source reader (one snapshot) serves every interval.  The target is
 * opened afresh per interval: its latest version is what the check, the
 * plan and the write all read, so that what the commit removes is exactly
 * what the check found different, and a commit another writer made since is
 * the writer's to detect (io/deltawriter.h: retried or refused).
 */
#include "repair/repair_delta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "core/buf.h"
#include "core/canon.h"
#include "core/log.h"
#include "io/copytext.h"
#include "io/delta.h"
#include "io/reader.h"
#include "load/dest.h"
#include "load/guard.h"
#include "load/target.h"
#include "repair/repair_share.h"

typedef struct drep {
	const rk_repair_spec *spec;
	rk_repair_interval *iv;
	char **key; /* the logical key: the spec's, or discovered */
	size_t nkey;
	rk_reader *src;
	rk_wmap map;       /* the target columns written, and the source's names for them */
	rk_type time_type; /* how the source's time text is read */
	long icol;         /* --interval-column: the target column, or -1 */
	char *path;        /* the table root */
	const char *zone;  /* delta-partition-zone of the target side */
	/* the interval being repaired */
	size_t cur;
	char **want; /* the check's finding keys, nwant * nkey texts (NULL: SQL NULL) */
	size_t nwant;
	rk_buf rows, keys; /* COPY text: the source's rows of the interval, the keys */
	long nrows;
} drep;

void rk_repair_delta_free(rk_repair_result *res)
{
	for (size_t i = 0; i < res->ndelta; i++) {
		for (size_t f = 0; f < res->delta[i].nremoved; f++)
			free(res->delta[i].removed[f].path);
		free(res->delta[i].removed);
	}
	free(res->delta);
	res->delta = NULL;
	res->ndelta = 0;
}

static void drep_want_free(drep *r)
{
	rk_repair_strv_free(r->want, r->nwant * r->nkey);
	r->want = NULL;
	r->nwant = 0;
}

static void drep_close(drep *r)
{
	rk_repair_strv_free(r->key, r->nkey);
	rk_reader_free(r->src);
	rk_wmap_free(&r->map);
	free(r->path);
	drep_want_free(r);
	rk_buf_free(&r->rows);
	rk_buf_free(&r->keys);
}

/* Binds the source reader to the written columns and learns how to read
 * its time (as repair.c does for a PostgreSQL target). */
static int drep_bind(drep *r, const rk_dest *dest, rk_error *err)
{
	const char **names = rk_xcalloc(r->map.n + 1, sizeof *names);
	rk_type *types = rk_xcalloc(r->map.n + 1, sizeof *types);
	const rk_wcol *tc = &r->map.c[r->map.time];
	int rc = -1;

	for (size_t i = 0; i < r->map.n; i++)
		names[i] = r->map.c[i].bind;
	if (rk_reader_bind(r->src, names, r->map.n, types, err) < 0)
		goto done;
	if (!rk_reader_has(r->src, RK_CAP_TYPED)) {
		/* untyped (CSV) text is read with the target column's type */
		if (rk_type_from_name(dest->base[tc->tcol], true, &r->time_type) < 0)
			r->time_type = RK_T_OTHER;
	} else {
		r->time_type = types[r->map.time];
	}
	if (!rk_type_is_time(r->time_type)) {
		rk_error_set(err, RK_EXIT_USAGE, "time column '%s' of %s is %s, not a timestamp or date", tc->logical,
		             rk_reader_describe(r->src), rk_type_name(r->time_type));
		rk_error_hint(err, "--time names a timestamptz, timestamp or date column (or expression) on both sides");
		goto done;
	}
	rc = 0;
done:
	free(names);
	free(types);
	return rc;
}

/* Opens the target at its latest version; a table that does not exist is
 * refused (there is nothing to repair). */
static int drep_target(drep *r, rk_target **t, rk_error *err)
{
	rk_dest none;

	memset(&none, 0, sizeof none);
	if (rk_target_open(r->spec->check.target.conn, NULL, &none, r->zone, t, err) < 0)
		return -1;
	if (rk_target_version(*t) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "Delta table %s does not exist: repair replaces rows of a table",
		             rk_target_display(*t));
		return rk_error_hint(err, "load it first (reckon load --target delta:PATH)");
	}
	return 0;
}

/* Connects the source, resolves the columns written and the key. */
static int drep_open(drep *r, rk_error *err)
{
	const rk_check_spec *c = &r->spec->check;
	char **names = NULL;
	size_t nnames = 0;
	rk_target *t = NULL;
	rk_wmap_in in;
	int rc = -1;

	r->icol = -1;
	if (r->spec->interval_column && (r->spec->load_interval <= 0 || c->tz)) {
		rk_error_set(err, RK_EXIT_USAGE, "--interval-column on a Delta target needs --load-interval (a fixed "
		                                 "width, without --timezone)");
		return rk_error_hint(err, "give --load-interval DUR, the width of the load's intervals: a row then records "
		                          "the start of the DUR-wide interval holding its time");
	}
	if (!c->time) {
		rk_error_set(err, RK_EXIT_USAGE, "repair needs --time");
		return rk_error_hint(err, "the same table options as reckon check");
	}
	if (rk_repair_key_columns(c, &r->key, &r->nkey, err) < 0)
		return -1;
	r->zone = rk_reader_setting_of(&c->target, "delta-partition-zone");
	if (drep_target(r, &t, err) < 0)
		goto done;
	r->path = rk_xstrdup(rk_target_display(t));
	if (r->spec->interval_column && (r->icol = rk_dest_column(rk_target_dest(t), r->spec->interval_column)) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "interval column '%s' does not exist in Delta table %s",
		             r->spec->interval_column, r->path);
		rk_dest_hint_columns(rk_target_dest(t), err);
		goto done;
	}
	if (!(r->src = rk_reader_open(&c->source, err)) || rk_reader_columns(r->src, &names, &nnames, err) < 0)
		goto done;
	rk_repair_wmap_in(&in, c, rk_target_dest(t), r->icol, r->src, names, nnames, r->key, r->nkey, c->time);
	if (rk_wmap_build(&in, &r->map, err) < 0 || drep_bind(r, rk_target_dest(t), err) < 0)
		goto done;
	rk_log_info("repair writes %zu column%s of Delta table %s", r->map.n, r->map.n == 1 ? "" : "s", r->path);
	rc = 0;
done:
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	rk_target_close(t);
	return rc;
}

/* Checks [start, end) of the table at version (-1: the latest) as `reckon
 * check` would: *match and the counts; with keep, the findings too. */
static int drep_check(drep *r, rk_usec start, rk_usec end, long long version, bool *match, uint64_t *srows,
                      uint64_t *trows, rk_check_result **keep, rk_error *err)
{
	rk_check_spec cs = r->spec->check;
	rk_check_result *res = NULL;
	rk_buf conn = RK_BUF_INIT;
	int rc;

	if (version >= 0) {
		rk_buf_printf(&conn, "delta:%s@%lld", r->path, version);
		cs.target.conn = rk_buf_cstr(&conn);
	}
	cs.key = (const char *const *)r->key;
	cs.nkey = r->nkey;
	cs.from = start;
	cs.to = end;
	cs.width = end - start;
	cs.bounds = NULL;
	cs.nbounds = 0;
	cs.settle = 0;
	cs.now = end;
	cs.findings = keep != NULL;
	cs.diagnose = false;
	cs.watermark_query = NULL;
	rc = rk_check_run(&cs, &res, err);
	rk_buf_free(&conn);
	if (rc < 0)
		return -1;
	*srows = res->side[0].rows[0];
	*trows = res->side[1].rows[0];
	*match = res->status[0] == RK_WIN_MATCH;
	if (keep)
		*keep = res;
	else
		rk_check_result_free(res);
	return 0;
}

/* The finding keys of the interval's check: the keys the commit replaces.
 * A key the source holds twice is refused; one with a NULL part is left
 * out (it matches no row by "="). */
static int drep_want(drep *r, const rk_check_result *res, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc;

	drep_want_free(r);
	rk_repair_put_interval(&b, r->iv[r->cur].start, r->iv[r->cur].end);
	rc = rk_repair_take_keys(res, r->key, r->nkey, " within an interval", rk_buf_cstr(&b),
	                         "; --replace-interval replaces the whole interval", &r->want, &r->nwant, err);
	rk_buf_free(&b);
	return rc;
}

/* A source row of the interval (a CSV reader delivers every row: this
 * filters), appended in COPY text. */
static int drep_row(void *ctx, const rk_field *fields, rk_error *err)
{
	drep *r = ctx;
	const rk_field *tf = &fields[r->map.time];
	const rk_repair_interval *v = &r->iv[r->cur];
	const char *why = NULL;
	rk_usec t = 0;

	if (rk_guard_check(err) < 0)
		return -1;
	if (tf->null)
		return 0;
	if (rk_canon_instant(r->time_type, tf->p, tf->len, &t, &why) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "time value '%.*s' is not a valid %s: %s",
		             (int)(tf->len > 64 ? 64 : tf->len), tf->p, rk_type_name(r->time_type), why ? why : "bad value");
		err->field = (int)r->map.time;
		return -1;
	}
	if (t < v->start || t >= v->end)
		return 0;
	rk_repair_put_row(&r->rows, fields, r->map.n);
	r->nrows++;
	return 0;
}

/* Reads the source's rows of the current interval (a PostgreSQL source is
 * asked for the finding keys only), and puts the keys in COPY text. */
static int drep_read(drep *r, rk_error *err)
{
	const rk_repair_interval *v = &r->iv[r->cur];
	rk_range range = { v->start, v->end };
	rk_scan scan;

	rk_buf_reset(&r->rows);
	rk_buf_reset(&r->keys);
	r->nrows = 0;
	memset(&scan, 0, sizeof scan);
	scan.time_index = r->map.time;
	scan.ranges = &range;
	scan.nranges = 1;
	if (!r->spec->replace_interval && r->nwant) {
		scan.key_index = r->map.key;
		scan.nkey = r->map.nkey;
		scan.key_text = (const char *const *)r->want;
		scan.nkeys = r->nwant;
	}
	if (rk_reader_scan(r->src, &scan, drep_row, r, err) < 0)
		return -1;
	for (size_t w = 0; w < r->nwant; w++) {
		for (size_t k = 0; k < r->nkey; k++) {
			const char *s = r->want[w * r->nkey + k];

			if (k)
				rk_buf_putc(&r->keys, '\t');
			rk_copytext_put(&r->keys, s, strlen(s));
		}
		rk_buf_putc(&r->keys, '\n');
	}
	return 0;
}

/* Records the plan of interval i in res->delta. */
static rk_repair_delta *drep_record(drep *r, const rk_target_plan *p, rk_repair_result *res)
{
	rk_repair_delta *d;
	bool news = p->inserted > 0;

	res->delta = rk_xrealloc(res->delta, (res->ndelta + 1) * sizeof *res->delta);
	d = &res->delta[res->ndelta++];
	memset(d, 0, sizeof *d);
	d->interval = r->cur;
	d->read_version = p->version;
	d->version = -1;
	d->files_read = p->files_read;
	d->removed = rk_xcalloc(p->nfiles + 1, sizeof *d->removed);
	for (size_t f = 0; f < p->nfiles; f++) {
		d->removed[f].path = rk_xstrdup(p->files[f].path);
		d->removed[f].rows = (uint64_t)p->files[f].rows;
		d->removed[f].deleted = (uint64_t)p->files[f].gone;
		if (p->files[f].rows > p->files[f].gone)
			d->files_added++;
	}
	d->nremoved = p->nfiles;
	d->files_added += news ? 1 : 0;
	return d;
}

/* --interval-column: the start of the --load-interval-wide interval (from
 * the epoch) holding the current interval, which must lie in one. */
static int drep_icol_value(drep *r, rk_usec *out, rk_error *err)
{
	const rk_repair_interval *v = &r->iv[r->cur];
	rk_usec li = r->spec->load_interval;
	rk_usec a = v->start / li * li - (v->start % li < 0 ? li : 0);

	*out = a;
	if (v->end - a > li) {
		rk_buf b = RK_BUF_INIT;

		rk_repair_put_interval(&b, v->start, v->end);
		rk_error_set(err, RK_EXIT_USAGE, "--interval-column on a Delta target: interval %s spans more than one "
		                                 "--load-interval",
		             rk_buf_cstr(&b));
		rk_buf_free(&b);
		return rk_error_hint(err, "check with --window no wider than the load's intervals, aligned with them");
	}
	return 0;
}

/* Plans (and with execute, makes) the commit of the current interval on
 * target t, checked different at its version. */
static int drep_commit(drep *r, rk_target *t, rk_repair_result *res, rk_error *err)
{
	rk_repair_interval *v = &r->iv[r->cur];
	rk_target_write_in in;
	rk_target_plan plan;
	rk_repair_delta *d;
	long deleted = 0, written = 0;
	long long version = -1;
	int rc = -1;

	memset(&in, 0, sizeof in);
	in.mode = r->spec->replace_interval ? RK_TARGET_REPLACE_INTERVAL : RK_TARGET_REPLACE_ROWS;
	in.map = &r->map;
	in.rows = &r->rows;
	in.nrows = r->nrows;
	in.has_interval = true;
	in.start = v->start;
	in.end = v->end;
	in.interval_col = r->icol;
	if (r->icol >= 0 && drep_icol_value(r, &in.interval_value, err) < 0)
		return -1;
	in.target_where = r->spec->check.target.where;
	in.keys = &r->keys;
	in.operation = r->spec->replace_interval ? "WRITE" : "MERGE";
	in.strategy = "repair";
	if (rk_target_plan_write(t, &in, &plan, err) < 0)
		goto out;
	d = drep_record(r, &plan, res);
	v->deleted_by_time = (uint64_t)plan.deleted;
	v->inserted = (uint64_t)plan.inserted;
	if (!r->spec->execute) {
		v->state = RK_REPAIR_PLANNED;
		rc = 0;
		goto out;
	}
	in.plan = &plan;
	if (rk_guard_check(err) < 0 || rk_target_write(t, &in, &deleted, &written, err) < 0 ||
	    rk_guard_check(err) < 0 || rk_target_commit(t, &in, &version, err) < 0)
		goto out;
	v->deleted_by_time = (uint64_t)deleted;
	v->inserted = (uint64_t)written;
	v->state = RK_REPAIR_COMMITTED;
	d->version = version;
	rc = 0;
out:
	rk_target_plan_free(&plan);
	return rc;
}

/* One interval: checked on the latest version, then planned or replaced,
 * then (execute) checked again. */
static int drep_interval(drep *r, rk_repair_result *res, rk_error *err)
{
	rk_repair_interval *v = &r->iv[r->cur];
	rk_check_result *cres = NULL;
	rk_target *t = NULL;
	bool match;
	int rc = -1;
	rk_buf b = RK_BUF_INIT;

	rk_repair_put_interval(&b, v->start, v->end);
	if (rk_guard_check(err) < 0 || drep_target(r, &t, err) < 0 ||
	    drep_check(r, v->start, v->end, rk_target_version(t), &match, &v->after_source_rows, &v->after_target_rows,
	               r->spec->replace_interval ? NULL : &cres, err) < 0)
		goto out;
	if (match) {
		v->state = RK_REPAIR_ALREADY;
		rk_log_info("interval %s of %s already matches at version %lld: no commit", rk_buf_cstr(&b), r->path,
		            rk_target_version(t));
		rc = 0;
		goto out;
	}
	v->source_rows = v->after_source_rows;
	v->after_source_rows = v->after_target_rows = 0;
	rk_log_info("%s interval %s of %s (version %lld)", r->spec->execute ? "repairing" : "planning", rk_buf_cstr(&b),
	            r->path, rk_target_version(t));
	if ((cres && drep_want(r, cres, err) < 0) || drep_read(r, err) < 0 || drep_commit(r, t, res, err) < 0)
		goto out;
	rk_target_close(t);
	t = NULL;
	if (r->spec->execute) {
		if (drep_check(r, v->start, v->end, -1, &match, &v->after_source_rows, &v->after_target_rows, NULL, err) < 0)
			goto out;
		v->state = match ? RK_REPAIR_MATCH : RK_REPAIR_DIFFER;
	}
	rc = 0;
out:
	if (rc < 0 && v->state == RK_REPAIR_PENDING)
		v->state = RK_REPAIR_FAILED;
	rk_check_result_free(cres);
	rk_target_close(t);
	rk_buf_free(&b);
	return rc;
}

int rk_repair_delta_run(const rk_repair_spec *spec, rk_repair_interval *iv, size_t n, rk_repair_result *res,
                        size_t *failed, rk_error *err)
{
	drep r;
	int rc = 0;

	memset(&r, 0, sizeof r);
	r.spec = spec;
	r.iv = iv;
	*failed = n;
	if (drep_open(&r, err) < 0) {
		drep_close(&r);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		r.cur = i;
		if (drep_interval(&r, res, err) < 0) {
			*failed = i;
			rc = -1;
			break;
		}
	}
	drep_close(&r);
	return rc;
}
