/*
 * target_delta.c - a Delta Lake table as the destination of a load
 * (target.h), written by io/deltawriter.h: one write is one Delta commit.
 * The batch goes into DuckDB (a VARCHAR table of the COPY text, then cast
 * to the table's types); a keyed write removes the files that hold the
 * keys written and adds them rewritten without them (the reference's
 * replaceWhere on the keys), an interval write those that hold rows of the
 * interval; both in the commit that adds the batch.  No transaction spans
 * the watermark (in PostgreSQL) and the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "io/delta.h"
#include "io/deltawriter.h"
#include "io/duck.h"
#include "load/target_impl.h"

typedef struct delta_target {
	rk_delta_spec spec;
	rk_duck *duck;
	rk_dw *w;
	char **duck_types; /* [dest.ncols]: the DuckDB type of each column */
	bool exists;       /* the table has a version */
	rk_buf sql;
	char how[96];
} delta_target;

static bool delta_accepts(const char *conn)
{
	return rk_delta_is_spec(conn);
}

/* The DuckDB type of a PostgreSQL base type (a new table's column), or NULL. */
static const char *duck_of_pg(const char *pg, char buf[64])
{
	static const char *const map[][2] = {
		{ "bigint", "BIGINT" },
		{ "integer", "INTEGER" },
		{ "smallint", "SMALLINT" },
		{ "boolean", "BOOLEAN" },
		{ "text", "VARCHAR" },
		{ "uuid", "VARCHAR" },
		{ "date", "DATE" },
		{ "timestamp with time zone", "TIMESTAMPTZ" },
		{ "timestamp without time zone", "TIMESTAMP" },
		{ "double precision", "DOUBLE" },
		{ "real", "FLOAT" },
		{ "bytea", "BLOB" },
	};
	int p, s;

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(pg, map[i][0]) == 0)
			return map[i][1];
	if (strncmp(pg, "character varying", 17) == 0 || strncmp(pg, "character(", 10) == 0 ||
	    strcmp(pg, "character") == 0)
		return "VARCHAR";
	if (sscanf(pg, "numeric(%d,%d)", &p, &s) == 2 && p <= 38) {
		snprintf(buf, 64, "DECIMAL(%d,%d)", p, s);
		return buf;
	}
	return NULL;
}

static int delta_open(rk_target *t, const char *conn, const char *table, const rk_dest *src, const char *zone,
                      rk_error *err)
{
	delta_target *d = rk_xcalloc(1, sizeof *d);
	rk_dw_options opt = { .partition_zone = zone };
	const rk_delta *snap;

	t->impl = d;
	if (rk_delta_spec_parse(conn, "--target", &d->spec, err) < 0)
		return -1;
	if (d->spec.version >= 0 || d->spec.has_time) {
		rk_error_set(err, RK_EXIT_USAGE, "--target %s names a version: a load writes the latest one", conn);
		return rk_error_hint(err, "drop the @VERSION or @TIMESTAMP");
	}
	t->display = rk_xstrdup(d->spec.path);
	if (rk_duck_open(&d->duck, 0, err) < 0 || rk_dw_open(d->duck, d->spec.path, &opt, &d->w, err) < 0)
		return -1;
	snap = rk_dw_snapshot(d->w);
	if (snap) {
		size_t n = rk_delta_ncolumns(snap);
		const char **names = rk_xcalloc(n ? n : 1, sizeof *names), **types = rk_xcalloc(n ? n : 1, sizeof *types);
		bool *nn = rk_xcalloc(n ? n : 1, sizeof *nn);

		d->duck_types = rk_xcalloc(n ? n : 1, sizeof *d->duck_types);
		for (size_t i = 0; i < n; i++) {
			const rk_delta_column *c = rk_delta_column_at(snap, i);

			names[i] = c->name;
			types[i] = c->type;
			nn[i] = !c->nullable;
			d->duck_types[i] = rk_xstrdup(c->duck_type);
		}
		rk_dest_init_columns(&t->dest, "target", d->spec.path, n, names, types, nn);
		free(names);
		free(types);
		free(nn);
		d->exists = true;
		return 0;
	}
	/* a new table: the source's columns, created by the first write */
	rk_dest_init_columns(&t->dest, "target", d->spec.path, src->ncols, (const char *const *)src->cols,
	                     (const char *const *)src->base, NULL);
	d->duck_types = rk_xcalloc(src->ncols ? src->ncols : 1, sizeof *d->duck_types);
	for (size_t i = 0; i < src->ncols; i++) {
		char buf[64];
		const char *dt = duck_of_pg(src->base[i], buf);

		d->duck_types[i] = dt ? rk_xstrdup(dt) : NULL;
	}
	rk_log_info("Delta table %s does not exist yet: the load creates it", d->spec.path);
	return 0;
}

static void delta_close(rk_target *t)
{
	delta_target *d = t->impl;

	if (!d)
		return;
	rk_dw_free(d->w);
	rk_duck_free(d->duck);
	for (size_t i = 0; d->duck_types && i < t->dest.ncols; i++)
		free(d->duck_types[i]);
	free(d->duck_types);
	rk_delta_spec_clear(&d->spec);
	rk_buf_free(&d->sql);
	free(d);
}

static int query(delta_target *d, const char *sql, duckdb_result *res, int code, const char *what, rk_error *err)
{
	return rk_duck_query(rk_duck_conn(d->duck), sql, res, code, what, err);
}

static void quote_col(rk_buf *b, const rk_target *t, size_t i)
{
	rk_duck_quote_ident(b, t->dest.cols[i]);
}

/* ---- newest time (target-watermark) ---- */

static int delta_newest(rk_target *t, const rk_target_write_in *in, size_t time_col, rk_usec lookback, rk_usec *out,
                        const char **how, rk_error *err)
{
	delta_target *d = t->impl;
	const rk_delta *snap = rk_dw_snapshot(d->w);
	int col = snap ? rk_delta_column_index(snap, t->dest.cols[time_col]) : -1;
	const rk_delta_column *c = col >= 0 ? rk_delta_column_at(snap, (size_t)col) : NULL;
	bool tight = !in->target_where && c && !c->partition &&
	             (c->kind == RK_DELTA_TIMESTAMP || c->kind == RK_DELTA_TIMESTAMP_NTZ);
	rk_usec newest = RK_USEC_NINF;
	duckdb_result res;

	*out = RK_USEC_NINF;
	if (!snap || rk_delta_nfiles(snap) == 0) {
		*how = "an empty table";
		return 0;
	}
	/* the stats give the newest time when every file has a tight max
	 * (no deletion vector: its rows may be gone) */
	for (size_t i = 0; tight && i < rk_delta_nfiles(snap); i++) {
		const rk_delta_file *f = rk_delta_file_at(snap, i);
		bool all_null = f->num_records >= 0 && f->null_count[col] == f->num_records;

		if (!f->tight_bounds || f->dv_count > 0 || (!f->max[col].present && !all_null))
			tight = false;
		else if (f->max[col].present && f->max[col].num > newest)
			newest = f->max[col].num;
	}
	if (tight) {
		*how = "the files' stats";
	} else {
		rk_buf_reset(&d->sql);
		rk_buf_puts(&d->sql, "SELECT epoch_us(max(");
		quote_col(&d->sql, t, time_col);
		rk_buf_printf(&d->sql, "))::BIGINT FROM rk_target_all WHERE %s", in->target_where ? in->target_where : "true");
		if (rk_delta_view(snap, rk_duck_conn(d->duck), "rk_target_all", NULL, 0, err) < 0 ||
		    query(d, rk_buf_cstr(&d->sql), &res, RK_EXIT_USAGE, "the newest time in the Delta table", err) < 0)
			return -1;
		if (!duckdb_value_is_null(&res, 0, 0))
			newest = duckdb_value_int64(&res, 0, 0);
		duckdb_destroy_result(&res);
		snprintf(d->how, sizeof d->how, "a scan of %zu file%s", rk_delta_nfiles(snap),
		         rk_delta_nfiles(snap) == 1 ? "" : "s");
		*how = d->how;
	}
	*out = newest == RK_USEC_NINF ? RK_USEC_NINF : newest - lookback;
	return 0;
}

/* ---- the write ---- */

/* Appends the rows of rows (COPY text: tab-separated, \N for NULL,
 * backslash escapes) of ncols fields each to the VARCHAR table table. */
static int append_text(delta_target *d, const char *table, size_t ncols, const rk_buf *rows, rk_error *err)
{
	duckdb_appender app;
	rk_buf v = RK_BUF_INIT;
	const char *p = rows->data, *end = rows->data + rows->len;
	int rc = -1;

	if (duckdb_appender_create(rk_duck_conn(d->duck), NULL, table, &app) != DuckDBSuccess)
		return rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: cannot append to %s", table);
	while (p < end) {
		for (size_t f = 0; f < ncols; f++) {
			bool null = false;

			rk_buf_reset(&v);
			if (p + 2 <= end && p[0] == '\\' && p[1] == 'N' && (p + 2 == end || p[2] == '\t' || p[2] == '\n')) {
				null = true;
				p += 2;
			}
			while (!null && p < end && *p != '\t' && *p != '\n') {
				if (*p == '\\' && p + 1 < end) {
					p++;
					rk_buf_putc(&v, *p == 't' ? '\t' : *p == 'n' ? '\n'
					                           : *p == 'r'       ? '\r'
					                                             : *p);
				} else {
					rk_buf_putc(&v, *p);
				}
				p++;
			}
			if (p < end && (*p == '\t' || *p == '\n'))
				p++;
			if ((null ? duckdb_append_null(app) : duckdb_append_varchar_length(app, v.data ? v.data : "", v.len)) !=
			    DuckDBSuccess) {
				rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: staging a row: %s", duckdb_appender_error(app));
				goto out;
			}
		}
		if (duckdb_appender_end_row(app) != DuckDBSuccess) {
			rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: staging a row: %s", duckdb_appender_error(app));
			goto out;
		}
	}
	if (duckdb_appender_flush(app) != DuckDBSuccess) {
		rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: staging the rows: %s", duckdb_appender_error(app));
		goto out;
	}
	rc = 0;
out:
	duckdb_appender_destroy(&app);
	rk_buf_free(&v);
	return rc;
}

/* RK_TARGET_REPLACE_ROWS: the keys in rk_keys (k0, k1, ... VARCHAR). */
static int stage_keys(rk_target *t, const rk_target_write_in *in, rk_error *err)
{
	delta_target *d = t->impl;

	rk_buf_reset(&d->sql);
	rk_buf_puts(&d->sql, "CREATE OR REPLACE TEMP TABLE rk_keys (");
	for (size_t k = 0; k < in->map->nkey; k++)
		rk_buf_printf(&d->sql, "%sk%zu VARCHAR", k ? ", " : "", k);
	rk_buf_putc(&d->sql, ')');
	if (query(d, rk_buf_cstr(&d->sql), NULL, RK_EXIT_RUNTIME, "staging the keys", err) < 0)
		return -1;
	return in->keys && in->keys->len ? append_text(d, "rk_keys", in->map->nkey, in->keys, err) : 0;
}

/* The batch: rk_batch_text (every column VARCHAR, the COPY text decoded),
 * then rk_batch (typed as the table's columns, the interval column filled). */
static int stage(rk_target *t, const rk_target_write_in *in, rk_error *err)
{
	delta_target *d = t->impl;
	char when[RK_TIME_STRLEN];

	rk_buf_reset(&d->sql);
	rk_buf_puts(&d->sql, "CREATE OR REPLACE TEMP TABLE rk_batch_text (");
	for (size_t i = 0; i < in->map->n; i++) {
		if (i)
			rk_buf_puts(&d->sql, ", ");
		quote_col(&d->sql, t, in->map->c[i].tcol);
		rk_buf_puts(&d->sql, " VARCHAR");
	}
	rk_buf_putc(&d->sql, ')');
	if (query(d, rk_buf_cstr(&d->sql), NULL, RK_EXIT_RUNTIME, "staging the rows", err) < 0 ||
	    append_text(d, "rk_batch_text", in->map->n, in->rows, err) < 0)
		return -1;
	rk_buf_reset(&d->sql);
	rk_buf_puts(&d->sql, "CREATE OR REPLACE TEMP TABLE rk_batch AS SELECT ");
	for (size_t i = 0; i < in->map->n; i++) {
		size_t c = in->map->c[i].tcol;
		const char *type = d->duck_types[c];

		if (!type) {
			rk_error_set(err, RK_EXIT_USAGE, "column %s (%s) has no Delta type for a new Delta table",
			             t->dest.cols[c], t->dest.base[c]);
			return rk_error_hint(err, "create the table first, or cast the column (--source-expr) to one of "
			                          "bigint, integer, smallint, numeric(p,s), text, boolean, date, timestamptz, "
			                          "timestamp, double precision, real, bytea");
		}
		if (i)
			rk_buf_puts(&d->sql, ", ");
		if (strcmp(type, "BLOB") == 0) {
			/* PostgreSQL prints a bytea as \x and hex */
			rk_buf_puts(&d->sql, "unhex(substr(");
			quote_col(&d->sql, t, c);
			rk_buf_puts(&d->sql, ", 3))");
		} else {
			rk_buf_puts(&d->sql, "CAST(");
			quote_col(&d->sql, t, c);
			rk_buf_printf(&d->sql, " AS %s)", type);
		}
		rk_buf_puts(&d->sql, " AS ");
		quote_col(&d->sql, t, c);
	}
	if (in->interval_col >= 0) {
		rk_buf_puts(&d->sql, ", CAST(");
		rk_duck_quote(&d->sql, rk_time_format_sql(in->mode == RK_TARGET_REPLACE_ROWS ? in->interval_value : in->start,
		                                          true, when));
		rk_buf_printf(&d->sql, " AS %s) AS ", d->duck_types[in->interval_col] ? d->duck_types[in->interval_col] : "TIMESTAMPTZ");
		quote_col(&d->sql, t, (size_t)in->interval_col);
	}
	rk_buf_puts(&d->sql, " FROM rk_batch_text");
	if (query(d, rk_buf_cstr(&d->sql), NULL, RK_EXIT_RUNTIME, "casting the rows to the Delta table's types", err) < 0)
		return -1;
	return in->mode == RK_TARGET_REPLACE_ROWS ? stage_keys(t, in, err) : 0;
}

/* Appends "EXISTS (SELECT 1 FROM rk_keys k WHERE rel."k1" = CAST(k.k0 AS T) ...)". */
static void key_predicate(rk_buf *b, const rk_target *t, const rk_target_write_in *in, const char *rel)
{
	const delta_target *d = t->impl;

	rk_buf_puts(b, "EXISTS (SELECT 1 FROM rk_keys k WHERE ");
	for (size_t k = 0; k < in->map->nkey; k++) {
		size_t c = in->map->c[in->map->key[k]].tcol;

		if (k)
			rk_buf_puts(b, " AND ");
		rk_buf_printf(b, "%s.", rel);
		quote_col(b, t, c);
		rk_buf_printf(b, " = CAST(k.k%zu AS %s)", k, d->duck_types[c] ? d->duck_types[c] : "VARCHAR");
	}
	rk_buf_putc(b, ')');
}

/* Appends "col >= 'start' AND col < 'end'" (or <= for a closed interval). */
static void range_predicate(rk_buf *b, const rk_target *t, size_t col, const rk_target_write_in *in, const char *type)
{
	char s[RK_TIME_STRLEN], e[RK_TIME_STRLEN];

	quote_col(b, t, col);
	rk_buf_puts(b, " >= CAST(");
	rk_duck_quote(b, rk_time_format_sql(in->start, true, s));
	rk_buf_printf(b, " AS %s) AND ", type);
	quote_col(b, t, col);
	rk_buf_puts(b, in->closed ? " <= CAST(" : " < CAST(");
	rk_duck_quote(b, rk_time_format_sql(in->end, true, e));
	rk_buf_printf(b, " AS %s)", type);
}

/* The files that may hold rows of [lo, hi] (hi_open: [lo, hi)) of timestamp
 * column col by their stats (a file without them may): indexes in *out. */
static size_t files_in_range(const rk_delta *snap, int col, rk_usec lo, rk_usec hi, bool hi_open, size_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < rk_delta_nfiles(snap); i++) {
		const rk_delta_file *f = rk_delta_file_at(snap, i);

		/* Spark truncates timestamp stats to milliseconds: a max may be
		 * up to 999 us below the newest row */
		if (col >= 0 && f->max[col].present && f->max[col].num + 999 < lo)
			continue;
		if (col >= 0 && f->min[col].present && (hi_open ? f->min[col].num >= hi : f->min[col].num > hi))
			continue;
		out[n++] = i;
	}
	return n;
}

/*
 * What a write deletes: *pred (empty: nothing), among the files *files
 * (new array, *nfiles of them) or every file when *all.
 */
static void delete_of(rk_target *t, const rk_target_write_in *in, rk_buf *pred, size_t **files, size_t *nfiles,
                      bool *all)
{
	delta_target *d = t->impl;
	const rk_delta *snap = rk_dw_snapshot(d->w);

	*files = NULL;
	*nfiles = 0;
	*all = true;
	if (!snap)
		return;
	if (in->mode == RK_TARGET_REPLACE_KEYS) {
		/* every target copy of a key written (the pair's rows only) */
		rk_buf_puts(pred, "EXISTS (SELECT 1 FROM rk_batch b WHERE ");
		for (size_t k = 0; k < in->map->nkey; k++) {
			size_t c = in->map->c[in->map->key[k]].tcol;

			if (k)
				rk_buf_puts(pred, " AND ");
			rk_buf_puts(pred, "b.");
			quote_col(pred, t, c);
			rk_buf_puts(pred, " = rk_dw_file.");
			quote_col(pred, t, c);
		}
		rk_buf_putc(pred, ')');
	} else if (in->mode == RK_TARGET_REPLACE_INTERVAL || in->mode == RK_TARGET_REPLACE_ROWS) {
		bool rows = in->mode == RK_TARGET_REPLACE_ROWS;
		size_t col = in->interval_col >= 0 && !rows ? (size_t)in->interval_col : in->map->c[in->map->time].tcol;
		int dcol = rk_delta_column_index(snap, t->dest.cols[col]);
		const char *type = d->duck_types[col];
		bool by_icol = in->interval_col >= 0 && !rows;
		rk_usec hi = by_icol ? in->start : in->end;

		if (by_icol) {
			char s[RK_TIME_STRLEN];

			quote_col(pred, t, col);
			rk_buf_puts(pred, " = CAST(");
			rk_duck_quote(pred, rk_time_format_sql(in->start, true, s));
			rk_buf_printf(pred, " AS %s)", type);
		} else {
			range_predicate(pred, t, col, in, type);
		}
		if (rows) {
			rk_buf_puts(pred, " AND ");
			key_predicate(pred, t, in, "rk_dw_file");
		}
		/* only the files whose stats reach the interval are read */
		if (dcol >= 0 && (rk_delta_column_at(snap, (size_t)dcol)->kind == RK_DELTA_TIMESTAMP ||
		                  rk_delta_column_at(snap, (size_t)dcol)->kind == RK_DELTA_TIMESTAMP_NTZ)) {
			*files = rk_xcalloc(rk_delta_nfiles(snap) + 1, sizeof **files);
			*nfiles = files_in_range(snap, rk_delta_column_at(snap, (size_t)dcol)->partition ? -1 : dcol, in->start,
			                         hi, !by_icol && !in->closed, *files);
			*all = false;
			rk_log_info("Delta table %s: the interval may touch %zu of %zu files", d->spec.path, *nfiles,
			            rk_delta_nfiles(snap));
		}
	}
	if (pred->len && in->target_where)
		rk_buf_printf(pred, " AND (%s)", in->target_where);
}

/* The rows the write adds: the batch, or (REPLACE_ROWS) its rows of the keys. */
static void insert_of(rk_target *t, const rk_target_write_in *in, rk_buf *rel)
{
	if (in->mode != RK_TARGET_REPLACE_ROWS) {
		rk_buf_puts(rel, "rk_batch");
		return;
	}
	rk_buf_puts(rel, "(SELECT * FROM rk_batch b WHERE ");
	key_predicate(rel, t, in, "b");
	rk_buf_putc(rel, ')');
}

static int delta_write(rk_target *t, const rk_target_write_in *in, long *deleted, long *written, rk_error *err)
{
	delta_target *d = t->impl;
	const rk_delta *snap = rk_dw_snapshot(d->w);
	rk_buf pred = RK_BUF_INIT, rel = RK_BUF_INIT;
	size_t *files = NULL, nfiles = 0;
	bool all = true;
	int64_t del = 0, n = 0;
	int rc = -1;

	if (stage(t, in, err) < 0)
		goto out;
	if (!snap && rk_dw_create(d->w, "rk_batch", NULL, 0, err) < 0)
		goto out;
	delete_of(t, in, &pred, &files, &nfiles, &all);
	if (pred.len && in->plan) {
		/* the plan read these files: a concurrent commit that removes
		 * one conflicts; only the files it found rows in are rewritten */
		size_t *hit = rk_xcalloc(in->plan->nfiles + 1, sizeof *hit);

		if (!all)
			rk_dw_read_files(d->w, files, nfiles);
		else
			rk_dw_read_all(d->w);
		for (size_t k = 0; k < in->plan->nfiles; k++)
			hit[k] = in->plan->files[k].index;
		rc = in->plan->nfiles ? rk_dw_delete(d->w, rk_buf_cstr(&pred), hit, in->plan->nfiles, &del, err) : 0;
		free(hit);
		if (rc < 0)
			goto out;
		rc = -1;
	} else if (pred.len && rk_dw_delete(d->w, rk_buf_cstr(&pred), all ? NULL : files, nfiles, &del, err) < 0) {
		goto out;
	}
	insert_of(t, in, &rel);
	if (rk_dw_append(d->w, rk_buf_cstr(&rel), &n, err) < 0)
		goto out;
	*deleted = (long)del;
	*written = (long)n;
	rc = 0;
out:
	free(files);
	rk_buf_free(&pred);
	rk_buf_free(&rel);
	return rc;
}

static int count_of(delta_target *d, const char *sql, long long *out, rk_error *err)
{
	duckdb_result res;

	if (query(d, sql, &res, RK_EXIT_USAGE, "planning the write", err) < 0)
		return -1;
	*out = duckdb_value_int64(&res, 0, 0);
	duckdb_destroy_result(&res);
	return 0;
}

static int delta_plan(rk_target *t, const rk_target_write_in *in, rk_target_plan *out, rk_error *err)
{
	delta_target *d = t->impl;
	const rk_delta *snap = rk_dw_snapshot(d->w);
	rk_buf pred = RK_BUF_INIT, rel = RK_BUF_INIT;
	size_t *files = NULL, nfiles = 0;
	bool all = true;
	int rc = -1;

	if (!snap)
		return rk_error_set(err, RK_EXIT_USAGE, "Delta table %s does not exist", d->spec.path);
	out->version = (long long)rk_delta_version(snap);
	if (stage(t, in, err) < 0)
		goto out;
	delete_of(t, in, &pred, &files, &nfiles, &all);
	if (all)
		nfiles = pred.len ? rk_delta_nfiles(snap) : 0;
	out->files_read = nfiles;
	out->files = rk_xcalloc(nfiles + 1, sizeof *out->files);
	for (size_t k = 0; k < nfiles; k++) {
		size_t i = all ? k : files[k];
		long long gone, rows;

		if (rk_delta_view(snap, rk_duck_conn(d->duck), "rk_dw_file", &i, 1, err) < 0)
			goto out;
		rk_buf_reset(&d->sql);
		rk_buf_printf(&d->sql, "SELECT count(*) FILTER (WHERE (%s)) FROM rk_dw_file", rk_buf_cstr(&pred));
		if (count_of(d, rk_buf_cstr(&d->sql), &gone, err) < 0 ||
		    count_of(d, "SELECT count(*) FROM rk_dw_file", &rows, err) < 0)
			goto out;
		if (gone == 0)
			continue;
		out->files[out->nfiles++] = (rk_target_file){ rk_xstrdup(rk_delta_file_at(snap, i)->log_path), rows, gone, i };
		out->deleted += gone;
	}
	insert_of(t, in, &rel);
	rk_buf_reset(&d->sql);
	rk_buf_printf(&d->sql, "SELECT count(*) FROM %s", rk_buf_cstr(&rel));
	if (count_of(d, rk_buf_cstr(&d->sql), &out->inserted, err) < 0)
		goto out;
	rc = 0;
out:
	free(files);
	rk_buf_free(&pred);
	rk_buf_free(&rel);
	return rc;
}

static long long delta_version(const rk_target *t)
{
	const delta_target *d = t->impl;
	const rk_delta *snap = d && d->w ? rk_dw_snapshot(d->w) : NULL;

	return snap ? (long long)rk_delta_version(snap) : -1;
}

static int delta_commit(rk_target *t, const rk_target_write_in *in, long long *version, rk_error *err)
{
	delta_target *d = t->impl;
	rk_dw_result res;
	char s[RK_TIME_STRLEN], e[RK_TIME_STRLEN], pred[256];
	const char *params[8];
	size_t np = 0;

	params[np++] = "mode";
	params[np++] = in->mode == RK_TARGET_APPEND ? "Append" : "Overwrite";
	if (in->mode == RK_TARGET_REPLACE_KEYS) {
		params[np++] = "replaceWhere";
		params[np++] = "the keys written";
	} else if (in->mode == RK_TARGET_REPLACE_INTERVAL || in->mode == RK_TARGET_REPLACE_ROWS) {
		snprintf(pred, sizeof pred, "[%s, %s%c%s", rk_time_format(in->start, s), rk_time_format(in->end, e),
		         in->closed ? ']' : ')', in->mode == RK_TARGET_REPLACE_ROWS ? ", the keys that differ" : "");
		params[np++] = "replaceWhere";
		params[np++] = pred;
	}
	params[np++] = "reckon.strategy";
	params[np++] = in->strategy ? in->strategy : "";
	params[np] = NULL;
	if (rk_dw_commit(d->w, in->operation ? in->operation : "WRITE", params, &res, err) < 0)
		return -1;
	*version = res.version;
	if (res.version >= 0)
		rk_log_info("Delta table %s: committed version %lld (%zu files added, %zu removed%s)", d->spec.path,
		            (long long)res.version, res.files_added, res.files_removed,
		            res.retries ? ", after a lost race" : "");
	else
		rk_log_info("Delta table %s: nothing to write, no commit", d->spec.path);
	return 0;
}

const rk_target_ops rk_target_delta_ops = {
	.kind = "delta",
	.caps = RK_TARGET_KEYED_REPLACE | RK_TARGET_INTERVAL_REPLACE | RK_TARGET_CHEAP_MAX_TIME | RK_TARGET_ROW_REPLACE,
	.accepts = delta_accepts,
	.open = delta_open,
	.newest = delta_newest,
	.write = delta_write,
	.commit = delta_commit,
	.close = delta_close,
	.plan = delta_plan,
	.version = delta_version,
};
