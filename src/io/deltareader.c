/*
 * deltareader.c - the Delta Lake side of a table pair ("delta:PATH",
 * "delta:PATH@VERSION", "delta:PATH@TIMESTAMP"): one driver file, on top of
 * the snapshot library (io/delta.h) and DuckDB (io/duck.h).
 *
 * The snapshot is read once, at open: every scan of the reader sees that
 * version, and a parallel reader of the same side (rk_reader_snapshot)
 * opens the same version.  A scan is one DuckDB query over a view of the
 * snapshot's live rows (logical column names, deletion vectors applied),
 * restricted to the files whose statistics or partition values can hold a
 * row of the scan's ranges ("Per-file Statistics" of PROTOCOL.md): the
 * others are never opened.  Rows come back as DuckDB data chunks and are
 * handed on with their canonical encodings (io/duckrows.h), so the digests
 * equal a PostgreSQL table's of the same rows.
 *
 * Column names match as a CSV header's do (exactly, else uniquely ignoring
 * case); mapping expressions (--source-expr) and filters (--source-where)
 * are DuckDB SQL over the snapshot's columns.
 */
#include "io/reader_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/log.h"
#include "io/delta.h"
#include "io/duck.h"
#include "io/duckrows.h"

/* Spark writes timestamp statistics in milliseconds, floored: a file's rows
 * lie at or after its minValues, and up to this much after its maxValues. */
#define RK_DELTA_STATS_SLACK INT64_C(999)

typedef struct rk_deltareader {
	char *side;
	char *desc;
	rk_delta_spec spec;
	rk_duck *duck;
	rk_delta *snap;
	char *version;        /* the snapshot's version, as text (rk_reader_snapshot) */
	char *partition_zone; /* --delta-partition-zone, or NULL */
	bool export_version;
	rk_reader_exprs expr; /* the side's mapping expressions */
	char *where;
	/* bound columns */
	size_t ncols;
	char **sel; /* each one's SQL in the scan's select list */
	rk_type *types;
	int *scales;
	rk_dcol *how;
	long *column; /* the snapshot column it is, or -1 for an expression */
	rk_duckrows rows;
	/* what the scans read */
	uint64_t files_read, bytes_read;
} rk_deltareader;

static void rk_deltareader_unbind(rk_deltareader *r)
{
	for (size_t i = 0; i < r->ncols; i++)
		free(r->sel ? r->sel[i] : NULL);
	free(r->sel);
	free(r->types);
	free(r->scales);
	free(r->how);
	free(r->column);
	rk_duckrows_free(&r->rows);
	r->sel = NULL;
	r->types = NULL;
	r->scales = NULL;
	r->how = NULL;
	r->column = NULL;
	r->ncols = 0;
}

static void rk_deltareader_free(void *impl)
{
	rk_deltareader *r = impl;

	if (!r)
		return;
	rk_deltareader_unbind(r);
	rk_delta_free(r->snap);
	rk_duck_free(r->duck);
	rk_delta_spec_clear(&r->spec);
	rk_reader_exprs_free(&r->expr);
	free(r->where);
	free(r->version);
	free(r->partition_zone);
	free(r->side);
	free(r->desc);
	free(r);
}

static const char *rk_deltareader_describe(const void *impl)
{
	const rk_deltareader *r = impl;

	return r->desc;
}

/* "delta:PATH[@VERSION|@TIMESTAMP]" */
static void *rk_deltareader_open(const rk_reader_opts *o, const char *rest, rk_error *err)
{
	rk_deltareader *r = rk_xcalloc(1, sizeof *r);
	rk_delta_options dopt = { .partition_zone = rk_reader_setting_of(o, "delta-partition-zone") };
	rk_buf b = RK_BUF_INIT;
	char opt[32];

	(void)rest;
	r->side = rk_xstrdup(o->side ? o->side : "source");
	snprintf(opt, sizeof opt, "--%s", r->side);
	if (rk_delta_spec_parse(o->conn, opt, &r->spec, err) < 0)
		goto fail;
	if (o->snapshot) {
		/* a parallel reader of this side: the version the first one read */
		r->spec.version = strtoll(o->snapshot, NULL, 10);
		r->spec.has_time = false;
	}
	if (rk_duck_open(&r->duck, 0, err) < 0 || rk_delta_open(r->duck, &r->spec, &dopt, &r->snap, err) < 0) {
		rk_error_prefix(err, "%s %s", r->side, o->conn);
		goto fail;
	}
	rk_buf_printf(&b, "%" PRId64, rk_delta_version(r->snap));
	r->version = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_reset(&b);
	rk_buf_printf(&b, "%s delta:%s (version %s)", r->side, r->spec.path, r->version);
	r->desc = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
	r->export_version = o->export_snapshot;
	r->partition_zone = dopt.partition_zone ? rk_xstrdup(dopt.partition_zone) : NULL;
	rk_reader_exprs_copy(&r->expr, o);
	r->where = o->where ? rk_xstrdup(o->where) : NULL;
	rk_log_info("%s: %zu live files, column mapping %s", r->desc, rk_delta_nfiles(r->snap),
	            rk_delta_column_mapping(r->snap));
	return r;
fail:
	rk_buf_free(&b);
	rk_deltareader_free(r);
	return NULL;
}

static int rk_deltareader_columns(void *impl, char ***names, size_t *n, rk_error *err)
{
	rk_deltareader *r = impl;
	size_t nc = rk_delta_ncolumns(r->snap);

	(void)err;
	*names = rk_xcalloc(nc ? nc : 1, sizeof **names);
	for (size_t i = 0; i < nc; i++)
		(*names)[i] = rk_xstrdup(rk_delta_column_at(r->snap, i)->name);
	*n = nc;
	return 0;
}

/* The snapshot column a name names, as a header would: exactly, else
 * uniquely ignoring case; -1 when none (or several ignoring case). */
static long rk_deltareader_find(const rk_deltareader *r, const char *name)
{
	size_t nc = rk_delta_ncolumns(r->snap), hits = 0;
	long hit = rk_delta_column_index(r->snap, name);

	if (hit >= 0)
		return hit;
	for (size_t i = 0; i < nc; i++)
		if (!strcasecmp(rk_delta_column_at(r->snap, i)->name, name)) {
			hit = (long)i;
			hits++;
		}
	return hits == 1 ? hit : -1;
}

static long rk_deltareader_expr_of(const rk_deltareader *r, const char *name)
{
	for (size_t i = 0; i < r->expr.n; i++)
		if (!strcmp(r->expr.names[i], name))
			return (long)i;
	for (size_t i = 0; i < r->expr.n; i++)
		if (!strcasecmp(r->expr.names[i], name))
			return (long)i;
	return -1;
}

/* The bound columns' select list, FROM the view "rk_snap", with the filter. */
static void rk_deltareader_select(const rk_deltareader *r, rk_buf *b)
{
	rk_buf_puts(b, "SELECT ");
	for (size_t i = 0; i < r->ncols; i++)
		rk_buf_printf(b, "%s%s", i ? ", " : "", r->sel[i]);
	rk_buf_puts(b, " FROM rk_snap");
	if (r->where)
		rk_buf_printf(b, " WHERE (%s\n)", r->where);
}

/* The types of the select list, from a query that reads no row: 0, or -1
 * with err (a user's expression or filter that DuckDB refuses: exit 2).
 * The first call wraps the columns that need it in their cast (cast[i] set);
 * the second, after casts, learns only how to read those (their type stays
 * the one the first call gave: an unsigned 64-bit integer is a numeric read
 * as text, not a text). */
static int rk_deltareader_describe_cols(rk_deltareader *r, bool *cast, bool *cast_any, rk_error *err)
{
	duckdb_connection con = rk_duck_conn(r->duck);
	duckdb_result res;
	rk_buf b = RK_BUF_INIT;
	int rc;

	rk_deltareader_select(r, &b);
	rk_buf_puts(&b, " LIMIT 0");
	rc = rk_duck_query(con, rk_buf_cstr(&b), &res, RK_EXIT_USAGE, r->desc, err);
	rk_buf_free(&b);
	if (rc < 0) {
		rk_error_hint(err, "expressions and filters on a Delta side are DuckDB SQL over the table's columns");
		return -1;
	}
	*cast_any = false;
	for (size_t i = 0; i < r->ncols; i++) {
		duckdb_logical_type lt = duckdb_column_logical_type(&res, i);
		const char *to;
		rk_type t;
		int scale;

		rk_duckrows_type(lt, &t, &scale, &r->how[i], &to);
		duckdb_destroy_logical_type(&lt);
		if (cast[i])
			continue;
		r->types[i] = t;
		r->scales[i] = scale;
		if (to) {
			char *s = r->sel[i];
			rk_buf c = RK_BUF_INIT;

			cast[i] = true;
			rk_buf_printf(&c, "CAST(%s AS %s)", s, to);
			r->sel[i] = rk_xstrdup(rk_buf_cstr(&c));
			rk_buf_free(&c);
			free(s);
			*cast_any = true;
		}
	}
	duckdb_destroy_result(&res);
	return 0;
}

static int rk_deltareader_bind(void *impl, const char *const *columns, size_t ncolumns, rk_type *types,
                               rk_error *err)
{
	rk_deltareader *r = impl;
	static const size_t no_file = 0;
	bool cast_any, *cast;

	rk_deltareader_unbind(r);
	if (ncolumns == 0)
		return rk_error_set(err, RK_EXIT_USAGE, "no columns to read from %s", r->desc);
	/* the view of no file: the columns under their names and types, to
	 * learn the select list's types, without opening a data file (each
	 * scan makes the view of its own files) */
	if (rk_delta_view(r->snap, rk_duck_conn(r->duck), "rk_snap", &no_file, 0, err) < 0)
		return rk_error_prefix(err, "%s", r->desc);
	cast = rk_xcalloc(ncolumns, sizeof *cast);
	r->ncols = ncolumns;
	r->sel = rk_xcalloc(ncolumns, sizeof *r->sel);
	r->types = rk_xcalloc(ncolumns, sizeof *r->types);
	r->scales = rk_xcalloc(ncolumns, sizeof *r->scales);
	r->how = rk_xcalloc(ncolumns, sizeof *r->how);
	r->column = rk_xcalloc(ncolumns, sizeof *r->column);
	for (size_t i = 0; i < ncolumns; i++) {
		long e = rk_deltareader_expr_of(r, columns[i]);
		rk_buf b = RK_BUF_INIT;

		r->column[i] = -1;
		if (e >= 0) {
			rk_buf_printf(&b, "(%s\n)", r->expr.sql[e]);
		} else {
			long c = rk_deltareader_find(r, columns[i]);

			if (c < 0) {
				rk_buf_reset(&b);
				for (size_t k = 0; k < rk_delta_ncolumns(r->snap) && k < 20; k++)
					rk_buf_printf(&b, "%s '%s'", k ? "," : "", rk_delta_column_at(r->snap, k)->name);
				rk_error_set(err, RK_EXIT_USAGE, "%s has no column '%s' (its columns:%s)", r->desc, columns[i],
				             rk_buf_cstr(&b));
				rk_buf_free(&b);
				rk_error_hint(err, "name the column as the Delta schema does, or map it with --%s-expr", r->side);
				goto fail;
			}
			r->column[i] = c;
			rk_duck_quote_ident(&b, rk_delta_column_at(r->snap, (size_t)c)->name);
		}
		r->sel[i] = rk_xstrdup(rk_buf_cstr(&b));
		rk_buf_free(&b);
	}
	if (rk_deltareader_describe_cols(r, cast, &cast_any, err) < 0)
		goto fail;
	if (cast_any && rk_deltareader_describe_cols(r, cast, &cast_any, err) < 0)
		goto fail;
	free(cast);
	for (size_t i = 0; i < ncolumns; i++) {
		types[i] = r->types[i];
		rk_log_debug("%s: column %s is %s (%s)", r->desc, columns[i], r->sel[i], rk_type_name(r->types[i]));
	}
	rk_duckrows_init(&r->rows, r->types, r->scales, r->how, r->ncols);
	return 0;
fail:
	free(cast);
	rk_deltareader_unbind(r);
	return -1;
}

static int rk_deltareader_scale(const void *impl, size_t col)
{
	const rk_deltareader *r = impl;

	return col < r->ncols ? r->scales[col] : -1;
}

/* The instants file f's rows of snapshot column c can hold, [*lo, *hi]
 * (inclusive); false when it cannot tell (no statistics). */
static bool rk_deltareader_file_span(const rk_deltareader *r, const rk_delta_file *f, size_t c, rk_usec *lo,
                                     rk_usec *hi, bool *all_null)
{
	const rk_delta_column *col = rk_delta_column_at(r->snap, c);
	const rk_delta_value *mn, *mx;
	bool date = col->kind == RK_DELTA_DATE;

	*all_null = false;
	if (col->kind != RK_DELTA_DATE && col->kind != RK_DELTA_TIMESTAMP && col->kind != RK_DELTA_TIMESTAMP_NTZ)
		return false;
	if (col->partition) {
		/* "Partition Value Serialization": one value for the whole file */
		if (!f->part[c].present) {
			*all_null = true;
			return true;
		}
		mn = mx = &f->part[c];
	} else {
		if (!f->min || !f->max || !f->min[c].present || !f->max[c].present) {
			*all_null = f->null_count && f->num_records >= 0 && f->null_count[c] == f->num_records;
			return *all_null;
		}
		mn = &f->min[c];
		mx = &f->max[c];
	}
	if (date) {
		*lo = mn->num * INT64_C(86400000000);
		*hi = (mx->num + 1) * INT64_C(86400000000) - 1;
	} else if (col->partition) {
		*lo = mn->num;
		*hi = mx->num;
	} else {
		*lo = mn->num;
		*hi = mx->num + RK_DELTA_STATS_SLACK;
	}
	return true;
}

/* Whether file f may hold a row the scan wants. */
static bool rk_deltareader_file_wanted(const rk_deltareader *r, const rk_delta_file *f, const rk_scan *scan)
{
	long c = r->column[scan->time_index];
	rk_usec lo, hi;
	bool all_null;

	if (c < 0 || !rk_deltareader_file_span(r, f, (size_t)c, &lo, &hi, &all_null))
		return true;
	if (all_null)
		return scan->include_null_time;
	if (scan->include_null_time && (!f->null_count || f->null_count[c] != 0))
		return true;
	for (size_t i = 0; i < scan->nranges; i++)
		if (scan->ranges[i].from <= hi && lo < scan->ranges[i].to)
			return true;
	return false;
}

/* The scan's time condition on the time column's SQL. */
static void rk_deltareader_time_filter(const rk_deltareader *r, const rk_scan *scan, rk_buf *b)
{
	const char *t = r->sel[scan->time_index];
	rk_type tt = r->types[scan->time_index];
	bool zoned = tt == RK_T_TIMESTAMPTZ;
	const char *lit = zoned ? "TIMESTAMPTZ" : "TIMESTAMP";

	rk_buf_puts(b, "(");
	for (size_t i = 0; i < scan->nranges; i++) {
		char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN];

		rk_time_format_sql(scan->ranges[i].from, zoned, a);
		rk_time_format_sql(scan->ranges[i].to, zoned, z);
		if (tt == RK_T_DATE)
			rk_buf_printf(b, "%s(CAST(%s AS TIMESTAMP) >= TIMESTAMP '%s' AND CAST(%s AS TIMESTAMP) < TIMESTAMP '%s')",
			              i ? " OR " : "", t, a, t, z);
		else
			rk_buf_printf(b, "%s(%s >= %s '%s' AND %s < %s '%s')", i ? " OR " : "", t, lit, a, t, lit, z);
	}
	if (scan->include_null_time)
		rk_buf_printf(b, "%s%s IS NULL", scan->nranges ? " OR " : "", t);
	if (!scan->nranges && !scan->include_null_time)
		rk_buf_puts(b, "false");
	rk_buf_puts(b, ")");
}

static int rk_deltareader_scan(void *impl, const rk_scan *scan, rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_deltareader *r = impl;
	duckdb_connection con = rk_duck_conn(r->duck);
	size_t nf = rk_delta_nfiles(r->snap), nkeep = 0;
	size_t *keep = rk_xcalloc(nf ? nf : 1, sizeof *keep);
	uint64_t bytes = 0;
	duckdb_prepared_statement stmt = NULL;
	duckdb_result res;
	bool have_res = false;
	rk_buf b = RK_BUF_INIT;
	int rc = -1;

	for (size_t i = 0; i < nf; i++) {
		const rk_delta_file *f = rk_delta_file_at(r->snap, i);

		if (scan->nranges == 0 && !scan->include_null_time)
			break;
		if (!scan->ranges || rk_deltareader_file_wanted(r, f, scan)) {
			keep[nkeep++] = i;
			bytes += f->size > 0 ? (uint64_t)f->size : 0;
		}
	}
	rk_log_info("%s: reading %zu of %zu files (%" PRIu64 " bytes)", r->desc, nkeep, nf, bytes);
	r->files_read += nkeep;
	r->bytes_read += bytes;
	if (rk_delta_view(r->snap, con, "rk_snap", keep, nkeep, err) < 0) {
		rk_error_prefix(err, "%s", r->desc);
		goto done;
	}
	rk_deltareader_select(r, &b);
	if (scan->ranges) {
		rk_buf_puts(&b, r->where ? " AND " : " WHERE ");
		rk_deltareader_time_filter(r, scan, &b);
	}
	rk_log_debug("%s: %s", r->desc, rk_buf_cstr(&b));
	if (duckdb_prepare(con, rk_buf_cstr(&b), &stmt) == DuckDBError) {
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: %s", r->desc, duckdb_prepare_error(stmt));
		goto done;
	}
	if (duckdb_execute_prepared_streaming(stmt, &res) == DuckDBError) {
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: %s", r->desc, duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		goto done;
	}
	have_res = true;
	for (;;) {
		duckdb_data_chunk chunk = duckdb_fetch_chunk(res);
		int crc;

		if (!chunk) {
			const char *e = duckdb_result_error(&res);

			if (e && *e) {
				rk_error_set(err, RK_EXIT_RUNTIME, "%s: %s", r->desc, e);
				goto done;
			}
			break;
		}
		crc = rk_duckrows_chunk(&r->rows, chunk, fn, ctx, err);
		duckdb_destroy_data_chunk(&chunk);
		if (crc < 0)
			goto done;
	}
	rc = 0;
done:
	if (have_res)
		duckdb_destroy_result(&res);
	if (stmt)
		duckdb_destroy_prepare(&stmt);
	rk_buf_free(&b);
	free(keep);
	return rc;
}

static const char *rk_deltareader_snapshot(const void *impl)
{
	const rk_deltareader *r = impl;

	return r->export_version ? r->version : NULL;
}

static void rk_deltareader_io(const void *impl, uint64_t *files, uint64_t *bytes)
{
	const rk_deltareader *r = impl;

	*files = r->files_read;
	*bytes = r->bytes_read;
}

/* ---- the history: which commits wrote the rows of a range ---- */

/* One thing a life did to a range: its add (or remove) counted there. */
typedef struct rk_hist_mark {
	size_t range;
	size_t commit; /* 0: the base checkpoint; else 1 + the commit's index */
	bool removed;  /* the life's end, not its start */
	bool unknown;  /* the file has no statistics of the time column */
	int64_t rows;  /* its numRecords, or -1 */
} rk_hist_mark;

typedef struct rk_hist_marks {
	rk_hist_mark *v;
	size_t n, cap;
} rk_hist_marks;

static void rk_hist_mark_add(rk_hist_marks *m, rk_hist_mark x)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->v = rk_xrealloc(m->v, m->cap * sizeof *m->v);
	}
	m->v[m->n++] = x;
}

static int rk_hist_mark_cmp(const void *a, const void *b)
{
	const rk_hist_mark *x = a, *y = b;

	if (x->range != y->range)
		return x->range < y->range ? -1 : 1;
	return x->commit < y->commit ? -1 : x->commit > y->commit;
}

/* The index among h's commits of version v (1 + its position), 0 for -1. */
static size_t rk_hist_commit_index(const rk_delta *h, int64_t v)
{
	const rk_delta_commit *c0 = rk_delta_commit_at(h, 0);

	return v < 0 || !c0 ? 0 : (size_t)(v - c0->version) + 1;
}

/* The marks of life l: the ranges its statistics place rows in (all of
 * them, unknown, without statistics), sorted ranges[0..n) being searched
 * by start. */
static void rk_hist_life_marks(const rk_deltareader *r, const rk_delta *h, const rk_delta_life *l, size_t c,
                               const rk_range *ranges, size_t n, rk_hist_marks *m, rk_range_history *out)
{
	rk_usec lo = 0, hi = 0;
	bool all_null, known = rk_deltareader_file_span(r, &l->file, c, &lo, &hi, &all_null);
	size_t a = 0, z = n;

	if (known && all_null)
		return; /* rows whose time is NULL: no range holds them */
	if (known) {
		/* the first range ending after lo */
		while (a < z) {
			size_t mid = a + (z - a) / 2;

			if (ranges[mid].to <= lo)
				a = mid + 1;
			else
				z = mid;
		}
	}
	for (size_t i = a; i < n && (!known || ranges[i].from <= hi); i++) {
		rk_hist_mark x = { i, rk_hist_commit_index(h, l->added), false, !known, l->file.num_records };

		rk_hist_mark_add(m, x);
		if (l->removed >= 0) {
			x.commit = rk_hist_commit_index(h, l->removed);
			x.removed = true;
			rk_hist_mark_add(m, x);
		} else if (known) {
			out[i].live++;
		} else {
			out[i].live_unknown++;
		}
	}
}

/* The marks, sorted by (range, commit), counted into each range's touches. */
static void rk_hist_touches(const rk_delta *h, rk_hist_marks *m, rk_range_history *out)
{
	if (m->n)
		qsort(m->v, m->n, sizeof *m->v, rk_hist_mark_cmp);
	for (size_t i = 0; i < m->n; i++) {
		const rk_hist_mark *x = &m->v[i];
		rk_range_history *rh = &out[x->range];
		rk_touch *t;

		if (!rh->ntouch || i == 0 || m->v[i - 1].range != x->range || m->v[i - 1].commit != x->commit) {
			const rk_delta_commit *c = x->commit ? rk_delta_commit_at(h, x->commit - 1) : NULL;

			rh->touch = rk_xrealloc(rh->touch, (rh->ntouch + 1) * sizeof *rh->touch);
			t = &rh->touch[rh->ntouch++];
			memset(t, 0, sizeof *t);
			t->version = c ? c->version : -1;
			t->operation = rk_xstrdup(c ? c->operation : "");
			t->time = c ? c->time_ms * 1000 : RK_USEC_NINF;
			t->time_of_file = c && c->time_of_file;
		}
		t = &rh->touch[rh->ntouch - 1];
		if (x->removed) {
			t->removed += !x->unknown;
			t->removed_unknown += x->unknown;
		} else {
			t->added += !x->unknown;
			t->added_unknown += x->unknown;
			if (!x->unknown)
				t->rows_added = t->rows_added < 0 || x->rows < 0 ? -1 : t->rows_added + x->rows;
		}
	}
}

static int rk_deltareader_history(void *impl, size_t time_index, const rk_range *ranges, size_t nranges,
                                  rk_history **out, rk_error *err)
{
	rk_deltareader *r = impl;
	rk_delta_options dopt = { .partition_zone = r->partition_zone, .history = true };
	rk_delta_spec spec = r->spec;
	rk_hist_marks marks = { NULL, 0, 0 };
	rk_delta *h = NULL;
	rk_history *hist;
	long c = time_index < r->ncols ? r->column[time_index] : -1;

	*out = NULL;
	if (c < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "the time column of %s is an expression: the files' statistics do not "
		                                 "place its values",
		             r->desc);
		return 1;
	}
	/* the same version as the snapshot the scans read, with its history */
	spec.version = rk_delta_version(r->snap);
	spec.has_time = false;
	if (rk_delta_open(r->duck, &spec, &dopt, &h, err) < 0)
		return rk_error_prefix(err, "the history of %s", r->desc);
	hist = rk_xcalloc(1, sizeof *hist);
	hist->version = rk_delta_version(h);
	hist->base = rk_delta_history_base(h);
	hist->ncommits = rk_delta_ncommits(h);
	hist->first = hist->ncommits ? rk_delta_commit_at(h, 0)->version : hist->version + 1;
	hist->nranges = nranges;
	hist->ranges = rk_xcalloc(nranges ? nranges : 1, sizeof *hist->ranges);
	for (size_t i = 0; i < nranges; i++)
		hist->ranges[i].range = ranges[i];
	for (size_t i = 0; i < rk_delta_nlives(h); i++)
		rk_hist_life_marks(r, h, rk_delta_life_at(h, i), (size_t)c, ranges, nranges, &marks, hist->ranges);
	rk_hist_touches(h, &marks, hist->ranges);
	rk_log_info("%s: the history of %zu range%s read from %zu commits and %zu files", r->desc, nranges,
	            nranges == 1 ? "" : "s", hist->ncommits, rk_delta_nlives(h));
	free(marks.v);
	rk_delta_free(h);
	*out = hist;
	return 0;
}

const rk_reader_ops rk_deltareader_ops = {
	.bind = rk_deltareader_bind,
	.scan = rk_deltareader_scan,
	.describe = rk_deltareader_describe,
	.free = rk_deltareader_free,
	.columns = rk_deltareader_columns,
	.snapshot = rk_deltareader_snapshot,
	.scale = rk_deltareader_scale,
	.io = rk_deltareader_io,
	.history = rk_deltareader_history,
};

/* Typed columns under header-like names, DuckDB SQL for expressions and
 * filters, scans that read only the files of their ranges, and the log's
 * history of them. */
const rk_reader_driver rk_deltareader_driver = {
	.prefix = RK_DELTA_PREFIX,
	.noun = "a Delta table",
	.caps = RK_CAP_TYPED | RK_CAP_EXPRESSIONS | RK_CAP_RANGE_SCAN | RK_CAP_HISTORY,
	.open = rk_deltareader_open,
	.ops = &rk_deltareader_ops,
};
