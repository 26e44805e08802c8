/*
 * repair.c - replaces the intervals of a rerun list in the target.
 *
 * One source reader (one REPEATABLE READ snapshot) serves every interval;
 * one target connection runs one transaction per interval.  Each interval's
 * source rows are read once and streamed straight into the target's COPY,
 * through a reused buffer: no per-row allocation, memory independent of the
 * interval's size.
 */
#include "load/repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/canon.h"
#include "core/log.h"
#include "io/pg.h"
#include "io/pgident.h"
#include "io/reader.h"
#include "io/sqltpl.h"
#include "rk_sql.h"

/* COPY data is sent in chunks of about this size. */
#define RK_REPAIR_FLUSH (256 * 1024)

/* How many intervals a failure message names before summarising. */
#define RK_REPAIR_LIST_MAX 6

typedef struct rk_repair {
	const rk_repair_spec *spec;
	char **key;          /* the key: the spec's, or discovered (rk_check_key) */
	size_t nkey;
	rk_pg *tgt;
	rk_reader *src;

	/* the target relation */
	char *oid;           /* as text, for $1 */
	char *display;       /* schema.name for messages */
	char *qualified;     /* "schema"."name" for SQL */
	size_t ntcols;       /* every column of the target, attnum order */
	char **tcols;        /* catalog names */
	char **tbase;        /* base type names (format_type) */
	bool *tgenerated;

	/* the columns copied: on both sides, not generated, not the interval column */
	size_t ncols;
	size_t *tidx;        /* index into tcols */
	char **sbind;        /* the names the source reader is bound with */
	size_t time_index;   /* of the time column among the copied columns */
	rk_type time_type;   /* how the source's time text is read */

	/* statements, rendered once */
	char *sql_stage_create;
	char *sql_plan_time, *sql_plan_key;
	char *sql_delete_time, *sql_delete_key, *sql_insert;

	/* the interval being streamed */
	rk_usec from, to;
	rk_buf out;
	uint64_t rows;
	bool copy_failed;    /* the target side of the stream failed ... */
	rk_error copy_err;   /* ... with this error */
} rk_repair;

const char *rk_repair_state_name(rk_repair_state s)
{
	switch (s) {
	case RK_REPAIR_PENDING: return "pending";
	case RK_REPAIR_FAILED: return "failed";
	case RK_REPAIR_UNKNOWN: return "unknown";
	case RK_REPAIR_PLANNED: return "planned";
	case RK_REPAIR_COMMITTED: return "unverified";
	case RK_REPAIR_MATCH: return "match";
	case RK_REPAIR_DIFFER: return "differ";
	}
	return "?";
}

bool rk_repair_state_done(rk_repair_state s)
{
	return s == RK_REPAIR_COMMITTED || s == RK_REPAIR_MATCH || s == RK_REPAIR_DIFFER;
}

static void rk_repair_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static void rk_repair_close(rk_repair *r)
{
	rk_repair_strv_free(r->key, r->nkey);
	rk_reader_free(r->src);
	rk_pg_close(r->tgt);
	free(r->oid);
	free(r->display);
	free(r->qualified);
	rk_repair_strv_free(r->tcols, r->ntcols);
	rk_repair_strv_free(r->tbase, r->ntcols);
	free(r->tgenerated);
	free(r->tidx);
	rk_repair_strv_free(r->sbind, r->ncols);
	free(r->sql_stage_create);
	free(r->sql_plan_time);
	free(r->sql_plan_key);
	free(r->sql_delete_time);
	free(r->sql_delete_key);
	free(r->sql_insert);
	rk_buf_free(&r->out);
}

/* "[2026-03-02T10:00:00Z, 2026-03-02T11:00:00Z)" */
static void rk_repair_put_interval(rk_buf *b, rk_usec s, rk_usec e)
{
	char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN];

	rk_buf_printf(b, "[%s, %s)", rk_time_format(s, a), rk_time_format(e, z));
}

/* ------------------------------------------------------------------------
 * the target relation and the columns copied
 * ---------------------------------------------------------------------- */

/* Resolves the target table the way a query would, on the target's own
 * catalog; only tables can be written. */
static int rk_repair_resolve(rk_repair *r, const char *table, rk_error *err)
{
	char *parts[2] = {NULL, NULL};
	size_t nparts = 0;
	const char *why = NULL;
	const char *params[2];
	rk_pg_result *res = NULL;
	rk_buf b = RK_BUF_INIT;
	char *qs = NULL, *qr = NULL;
	int rc = -1;

	if (rk_pgident_parse(table, parts, 2, &nparts, &why) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "invalid target table name '%s': %s", table, why);
		return rk_error_hint(err, "write name, schema.name, or double-quote parts with capitals, blanks or "
		                          "dots: '\"My Schema\".\"Orders\"'");
	}
	params[0] = nparts == 2 ? parts[0] : NULL;
	params[1] = parts[nparts - 1];
	if (rk_pg_exec(r->tgt, "resolve table", rk_sql_catalog_resolve_table, 2, params, RK_PG_ANY_ROWS, &res, err) < 0)
		goto done;
	if (rk_pg_result_rows(res) != 1) {
		if (rk_pg_result_rows(res) > 1) {
			rk_error_set(err, RK_EXIT_RUNTIME, "target table '%s' resolves to %d relations on %s", table,
			             rk_pg_result_rows(res), rk_pg_location(r->tgt));
		} else {
			rk_error_set(err, RK_EXIT_USAGE, "target table '%s' does not exist on %s", table,
			             rk_pg_location(r->tgt));
			rk_error_hint(err, "repair writes into an existing table; 'reckon check' with the same options "
			                   "lists the relations that do exist");
		}
		goto done;
	}
	rk_pgident_display(&b, rk_pg_result_value(res, 0, 1));
	rk_buf_putc(&b, '.');
	rk_pgident_display(&b, rk_pg_result_value(res, 0, 2));
	r->display = rk_xstrdup(rk_buf_cstr(&b));
	{
		const char *kind = rk_pg_result_value(res, 0, 3);

		if (strcmp(kind, "r") != 0 && strcmp(kind, "p") != 0) {
			rk_error_set(err, RK_EXIT_USAGE, "target %s on %s is not a table (relkind '%s')", r->display,
			             rk_pg_location(r->tgt), kind);
			rk_error_hint(err, "repair deletes and inserts rows: name the table a view or foreign table "
			                   "reads from");
			goto done;
		}
	}
	r->oid = rk_xstrdup(rk_pg_result_value(res, 0, 0));
	if (!(qs = rk_pg_quote_ident(r->tgt, rk_pg_result_value(res, 0, 1), err)) ||
	    !(qr = rk_pg_quote_ident(r->tgt, rk_pg_result_value(res, 0, 2), err)))
		goto done;
	rk_buf_reset(&b);
	rk_buf_printf(&b, "%s.%s", qs, qr);
	r->qualified = rk_xstrdup(rk_buf_cstr(&b));
	rc = 0;
done:
	free(qs);
	free(qr);
	free(parts[0]);
	free(parts[1]);
	rk_buf_free(&b);
	rk_pg_result_free(res);
	return rc;
}

static int rk_repair_target_columns(rk_repair *r, rk_error *err)
{
	const char *params[1] = {r->oid};
	rk_pg_result *res = NULL;
	int n;

	if (rk_pg_exec(r->tgt, "list columns", rk_sql_catalog_columns, 1, params, RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	n = rk_pg_result_rows(res);
	r->ntcols = (size_t)n;
	r->tcols = rk_xcalloc(r->ntcols + 1, sizeof *r->tcols);
	r->tbase = rk_xcalloc(r->ntcols + 1, sizeof *r->tbase);
	r->tgenerated = rk_xcalloc(r->ntcols + 1, sizeof *r->tgenerated);
	for (int i = 0; i < n; i++) {
		r->tcols[i] = rk_xstrdup(rk_pg_result_value(res, i, 0));
		r->tbase[i] = rk_xstrdup(rk_pg_result_value(res, i, 2));
	}
	rk_pg_result_free(res);
	if (rk_pg_exec(r->tgt, "list generated columns", rk_sql_repair_generated_columns, 1, params, RK_PG_ANY_ROWS,
	               &res, err) < 0)
		return -1;
	for (int i = 0; i < rk_pg_result_rows(res); i++)
		for (size_t j = 0; j < r->ntcols; j++)
			if (!strcmp(r->tcols[j], rk_pg_result_value(res, i, 0)))
				r->tgenerated[j] = true;
	rk_pg_result_free(res);
	return 0;
}

/* The hint listing the target's columns. */
static void rk_repair_hint_columns(const rk_repair *r, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	rk_buf_printf(&b, "%s has %zu column%s: ", r->display, r->ntcols, r->ntcols == 1 ? "" : "s");
	for (size_t i = 0; i < r->ntcols; i++) {
		size_t mark = b.len;

		if (i)
			rk_buf_puts(&b, ", ");
		rk_pgident_display(&b, r->tcols[i]);
		if (b.len > sizeof err->hint - 8) {
			b.len = mark;
			rk_buf_puts(&b, ", ...");
			break;
		}
	}
	rk_error_hint(err, "%s", rk_buf_cstr(&b));
	rk_buf_free(&b);
}

/* Finds a user-written column name (folded as PostgreSQL folds it) among the
 * target's columns.  what names the option in the message. */
static int rk_repair_target_column(const rk_repair *r, const char *written, const char *what, size_t *out,
                                   rk_error *err)
{
	char *name = NULL;
	size_t nparts;
	const char *why;

	if (rk_pgident_parse(written, &name, 1, &nparts, &why) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "invalid %s column name '%s': %s", what, written, why);
		return rk_error_hint(err, "double-quote names with capitals, blanks or dots: '\"Order Id\"'");
	}
	for (size_t i = 0; i < r->ntcols; i++) {
		if (!strcmp(r->tcols[i], name)) {
			free(name);
			*out = i;
			return 0;
		}
	}
	free(name);
	rk_error_set(err, RK_EXIT_USAGE, "%s column '%s' does not exist in target table %s on %s", what, written,
	             r->display, rk_pg_location(r->tgt));
	rk_repair_hint_columns(r, err);
	return -1;
}

/* The position of target column t among the copied columns, or -1. */
static long rk_repair_copied(const rk_repair *r, size_t t)
{
	for (size_t i = 0; i < r->ncols; i++)
		if (r->tidx[i] == t)
			return (long)i;
	return -1;
}

/*
 * The columns repair writes: the target's, in its order, that the source has
 * too (a CSV header matches exactly, else case-insensitively when that is
 * unique, as the CSV reader matches), minus generated columns and the
 * interval column.  Then binds the source reader to them.
 */
static int rk_repair_columns(rk_repair *r, long interval_col, rk_error *err)
{
	char **names = NULL;
	size_t nnames = 0;
	bool csv = rk_reader_kind_of(r->src) == RK_READER_CSV;
	rk_type *types = NULL;
	int rc = -1;

	if (rk_reader_columns(r->src, &names, &nnames, err) < 0)
		return -1;
	r->tidx = rk_xcalloc(r->ntcols + 1, sizeof *r->tidx);
	r->sbind = rk_xcalloc(r->ntcols + 1, sizeof *r->sbind);
	for (size_t t = 0; t < r->ntcols; t++) {
		long hit = -1;
		size_t nci = 0;

		if (r->tgenerated[t] || (long)t == interval_col)
			continue;
		for (size_t j = 0; j < nnames && hit < 0; j++)
			if (!strcmp(names[j], r->tcols[t]))
				hit = (long)j;
		if (hit < 0 && csv) {
			for (size_t j = 0; j < nnames; j++) {
				if (!strcasecmp(names[j], r->tcols[t])) {
					hit = (long)j;
					nci++;
				}
			}
			if (nci > 1)
				hit = -1;
		}
		if (hit < 0)
			continue;
		r->tidx[r->ncols] = t;
		if (csv) {
			r->sbind[r->ncols] = rk_xstrdup(names[hit]);
		} else {
			/* the reader folds names as PostgreSQL does: hand it a
			 * spelling that folds back to the catalog name */
			rk_buf b = RK_BUF_INIT;

			rk_pgident_display(&b, names[hit]);
			r->sbind[r->ncols] = rk_xstrdup(rk_buf_cstr(&b));
			rk_buf_free(&b);
		}
		r->ncols++;
	}
	rk_log_info("repair copies %zu column%s of %s that the source has too", r->ncols, r->ncols == 1 ? "" : "s",
	            r->display);

	/* the key and time columns must travel with the rows */
	for (size_t k = 0; k <= r->nkey; k++) {
		bool is_time = k == r->nkey;
		const char *written = is_time ? r->spec->check.time : r->key[k];
		size_t t;
		long c;

		if (rk_repair_target_column(r, written, is_time ? "time" : "key", &t, err) < 0)
			goto done;
		if ((long)t == interval_col) {
			rk_error_set(err, RK_EXIT_USAGE, "--interval-column %s is also the %s column", written,
			             is_time ? "time" : "a key");
			rk_error_hint(err, "the interval column records each row's load interval; name a column of its "
			                   "own");
			goto done;
		}
		c = rk_repair_copied(r, t);
		if (c < 0) {
			rk_error_set(err, RK_EXIT_USAGE, "%s column '%s' of target table %s is not a column of %s", is_time ?
			             "time" : "key", written, r->display, rk_reader_describe(r->src));
			rk_error_hint(err, "%s", r->tgenerated[t] ? "it is a generated column of the target"
			                                          : "repair copies the columns both sides have; the key and "
			                                            "time columns must be among them");
			goto done;
		}
		if (is_time) {
			rk_type tt = RK_T_OTHER;

			if (rk_type_from_name(r->tbase[t], true, &tt) < 0 || !rk_type_is_time(tt)) {
				rk_error_set(err, RK_EXIT_USAGE, "time column '%s' of target table %s is %s, not a timestamp or "
				             "date", written, r->display, r->tbase[t]);
				rk_error_hint(err, "--time names a timestamptz, timestamp or date column");
				goto done;
			}
			r->time_index = (size_t)c;
			r->time_type = tt;
		}
	}
	/* what the re-check compares must exist in the target (the checker
	 * judges the source side and the types) */
	for (size_t i = 0; i < r->spec->check.nsum + r->spec->check.ncolumns; i++) {
		bool is_sum = i < r->spec->check.nsum;
		const char *written = is_sum ? r->spec->check.sum[i] : r->spec->check.columns[i - r->spec->check.nsum];
		size_t t;

		if (rk_repair_target_column(r, written, is_sum ? "sum" : "hashed", &t, err) < 0)
			goto done;
	}

	types = rk_xcalloc(r->ncols, sizeof *types);
	if (rk_reader_bind(r->src, (const char *const *)r->sbind, r->ncols, types, err) < 0)
		goto done;
	if (!csv) {
		/* the source's own type says how to read its time text */
		if (!rk_type_is_time(types[r->time_index])) {
			rk_error_set(err, RK_EXIT_USAGE, "time column '%s' of %s is %s, not a timestamp or date",
			             r->spec->check.time, rk_reader_describe(r->src), rk_type_name(types[r->time_index]));
			rk_error_hint(err, "--time names a timestamptz, timestamp or date column on both sides");
			goto done;
		}
		r->time_type = types[r->time_index];
	}
	rc = 0;
done:
	free(types);
	rk_repair_strv_free(names, nnames);
	return rc;
}

/* Quotes the copied columns' target names, joined by ", ", each prefixed. */
static char *rk_repair_quoted_list(rk_repair *r, const size_t *idx, size_t n, const char *prefix,
                                   const char *joint, const char *prefix2, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		char *q = rk_pg_quote_ident(r->tgt, r->tcols[idx[i]], err);

		if (!q) {
			rk_buf_free(&b);
			return NULL;
		}
		if (i)
			rk_buf_puts(&b, joint);
		if (prefix2)
			rk_buf_printf(&b, "%s%s = %s%s", prefix, q, prefix2, q);
		else
			rk_buf_printf(&b, "%s%s", prefix, q);
		free(q);
	}
	rk_buf_cstr(&b);
	return b.data;
}

static char *rk_repair_render(const char *tpl, const rk_sqlvar *vars, size_t nvars, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	if (rk_sql_render(&b, tpl, vars, nvars, err) < 0) {
		rk_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* Renders every statement that names the user's table and columns. */
static int rk_repair_statements(rk_repair *r, long interval_col, rk_error *err)
{
	size_t *keys = rk_xcalloc(r->nkey, sizeof *keys);
	char *columns = NULL, *key_match = NULL, *tcol = NULL, *icol = NULL;
	int rc = -1;

	for (size_t k = 0; k < r->nkey; k++)
		if (rk_repair_target_column(r, r->key[k], "key", &keys[k], err) < 0)
			goto done;
	if (!(columns = rk_repair_quoted_list(r, r->tidx, r->ncols, "", ", ", NULL, err)) ||
	    !(key_match = rk_repair_quoted_list(r, keys, r->nkey, "t.", " AND ", "s.", err)) ||
	    !(tcol = rk_pg_quote_ident(r->tgt, r->tcols[r->tidx[r->time_index]], err)))
		goto done;
	if (interval_col >= 0 && !(icol = rk_pg_quote_ident(r->tgt, r->tcols[interval_col], err)))
		goto done;
	{
		const rk_sqlvar vars[] = {
			{"target_table", r->qualified},
			{"columns", columns},
			{"key_match", key_match},
			{"time", tcol},
			{"interval_column", icol ? icol : ""},
		};
		size_t nv = sizeof vars / sizeof vars[0];

		if (!(r->sql_stage_create = rk_repair_render(rk_sql_repair_stage_create, vars, nv, err)) ||
		    !(r->sql_plan_time = rk_repair_render(rk_sql_repair_plan_by_time, vars, nv, err)) ||
		    !(r->sql_plan_key = rk_repair_render(rk_sql_repair_plan_by_key, vars, nv, err)) ||
		    !(r->sql_delete_time = rk_repair_render(rk_sql_repair_delete_by_time, vars, nv, err)) ||
		    !(r->sql_delete_key = rk_repair_render(rk_sql_repair_delete_by_key, vars, nv, err)) ||
		    !(r->sql_insert = rk_repair_render(icol ? rk_sql_repair_insert_interval : rk_sql_repair_insert, vars,
		                                       nv, err)))
			goto done;
	}
	rc = 0;
done:
	free(keys);
	free(columns);
	free(key_match);
	free(tcol);
	free(icol);
	return rc;
}

/* Connects, resolves and checks everything before the first interval. */
static int rk_repair_open(rk_repair *r, rk_error *err)
{
	const rk_check_spec *c = &r->spec->check;
	long interval_col = -1;

	if (rk_reader_conn_is_csv(c->target.conn)) {
		rk_error_set(err, RK_EXIT_USAGE, "--target %s is CSV data: repair writes into a PostgreSQL table",
		             c->target.conn);
		return rk_error_hint(err, "give the target as a libpq conninfo or URI; a CSV source is fine");
	}
	if (!c->target.table || !*c->target.table) {
		rk_error_set(err, RK_EXIT_USAGE, "no target table named");
		return rk_error_hint(err, "give --table NAME (or --target-table NAME)");
	}
	if (!c->time) {
		rk_error_set(err, RK_EXIT_USAGE, "repair needs --time");
		return rk_error_hint(err, "the same table options as reckon check");
	}
	if (c->nkey) {
		r->key = rk_xcalloc(c->nkey, sizeof *r->key);
		for (size_t k = 0; k < c->nkey; k++)
			r->key[r->nkey++] = rk_xstrdup(c->key[k]);
	} else if (rk_check_key(c, &r->key, &r->nkey, err) < 0) {
		return -1;
	}
	if (!(r->tgt = rk_pg_connect(c->target.conn, "target", err)))
		return -1;
	if (rk_repair_resolve(r, c->target.table, err) < 0 || rk_repair_target_columns(r, err) < 0)
		return -1;
	if (r->spec->interval_column) {
		size_t t;

		if (rk_repair_target_column(r, r->spec->interval_column, "interval", &t, err) < 0)
			return -1;
		if (r->tgenerated[t]) {
			rk_error_set(err, RK_EXIT_USAGE, "--interval-column %s is a generated column of %s",
			             r->spec->interval_column, r->display);
			return rk_error_hint(err, "name a column repair can write");
		}
		interval_col = (long)t;
	}
	/* the source's snapshot starts here and serves every interval */
	if (!(r->src = rk_reader_open(&c->source, err)))
		return -1;
	if (rk_repair_columns(r, interval_col, err) < 0 || rk_repair_statements(r, interval_col, err) < 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------------
 * one interval
 * ---------------------------------------------------------------------- */

/* Appends one field in COPY text format: backslash, tab, newline and
 * carriage return escaped. */
static void rk_repair_put_field(rk_buf *b, const rk_field *f)
{
	const char *p = f->p, *run = f->p, *end = f->p + f->len;

	if (f->null) {
		rk_buf_append(b, "\\N", 2);
		return;
	}
	for (; p < end; p++) {
		const char *esc;

		switch (*p) {
		case '\\': esc = "\\\\"; break;
		case '\t': esc = "\\t"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		default: continue;
		}
		rk_buf_append(b, run, (size_t)(p - run));
		rk_buf_append(b, esc, 2);
		run = p + 1;
	}
	rk_buf_append(b, run, (size_t)(end - run));
}

/* Sends what is buffered; a failure is kept apart from the reader's errors
 * (the reader would blame the source for it). */
static int rk_repair_flush(rk_repair *r, rk_error *err)
{
	if (r->out.len == 0)
		return 0;
	rk_error_clear(&r->copy_err);
	if (rk_pg_copy_in_put(r->tgt, r->out.data, r->out.len, &r->copy_err) < 0) {
		r->copy_failed = true;
		return rk_error_set(err, RK_EXIT_RUNTIME, "sending rows to the target failed");
	}
	rk_buf_reset(&r->out);
	return 0;
}

/* A source row: kept when its time is in the interval (a CSV reader
 * delivers every row), written to the COPY stream. */
static int rk_repair_row(void *ctx, const rk_field *fields, rk_error *err)
{
	rk_repair *r = ctx;
	const rk_field *tf = &fields[r->time_index];
	const char *why = NULL;
	rk_usec t;

	if (tf->null)
		return 0;
	if (rk_canon_instant(r->time_type, tf->p, tf->len, &t, &why) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "time value '%.*s' is not a valid %s: %s", (int)(tf->len > 64 ? 64 : tf->len),
		             tf->p, rk_type_name(r->time_type), why ? why : "bad value");
		err->field = (int)r->time_index;
		return -1;
	}
	if (t < r->from || t >= r->to)
		return 0;
	for (size_t i = 0; i < r->ncols; i++) {
		if (i)
			rk_buf_putc(&r->out, '\t');
		rk_repair_put_field(&r->out, &fields[i]);
	}
	rk_buf_putc(&r->out, '\n');
	r->rows++;
	if (r->out.len >= RK_REPAIR_FLUSH)
		return rk_repair_flush(r, err);
	return 0;
}

/* Streams the source's rows of the interval into the staging table. */
static int rk_repair_stage(rk_repair *r, rk_repair_interval *iv, rk_error *err)
{
	rk_range range = {iv->start, iv->end};
	rk_scan scan;

	memset(&scan, 0, sizeof scan);
	scan.time_index = r->time_index;
	scan.ranges = &range;
	scan.nranges = 1;
	scan.include_null_time = false;
	r->from = iv->start;
	r->to = iv->end;
	r->rows = 0;
	r->copy_failed = false;
	rk_buf_reset(&r->out);
	if (rk_pg_command(r->tgt, "create staging table", r->sql_stage_create, err) < 0)
		return -1;
	if (!r->spec->execute && rk_pg_command(r->tgt, "make the plan read-only", rk_sql_repair_plan_read_only, err) < 0)
		return -1;
	if (rk_pg_copy_in_begin(r->tgt, "copy rows to the target", rk_sql_repair_stage_copy, err) < 0)
		return -1;
	if (rk_reader_scan(r->src, &scan, rk_repair_row, r, err) < 0 || rk_repair_flush(r, err) < 0) {
		if (r->copy_failed)
			*err = r->copy_err;
		rk_pg_copy_in_abort(r->tgt, "the source read failed");
		return -1;
	}
	if (rk_pg_copy_in_end(r->tgt, err) < 0) {
		/* a value the target's column type refuses is bad input */
		if (err->sqlstate[0] == '2' && err->sqlstate[1] == '2')
			err->code = RK_EXIT_USAGE;
		return -1;
	}
	iv->source_rows = r->rows;
	return rk_pg_command(r->tgt, "analyze staging table", rk_sql_repair_stage_analyze, err);
}

/* Runs a statement returning one count. */
static int rk_repair_count(rk_repair *r, const char *label, const char *sql, int nparams,
                           const char *const *params, uint64_t *out, rk_error *err)
{
	rk_pg_result *res;
	const char *v;

	if (rk_pg_exec(r->tgt, label, sql, nparams, params, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	v = rk_pg_result_value(res, 0, 0);
	/* a count is never NULL or text: another shape is an error, not a zero */
	if (!v || !*v || strspn(v, "0123456789") != strlen(v)) {
		rk_error_set(err, RK_EXIT_RUNTIME, "%s returned '%s' where a row count was expected", label,
		             v ? v : "NULL");
		rk_pg_result_free(res);
		return -1;
	}
	*out = strtoull(v, NULL, 10);
	rk_pg_result_free(res);
	return 0;
}

/* Takes the table's repair lock, saying so when another session holds it. */
static int rk_repair_lock(rk_repair *r, rk_error *err)
{
	const char *params[1] = {r->oid};
	rk_pg_result *res;
	bool got;

	if (rk_pg_exec(r->tgt, "try repair lock", rk_sql_repair_try_lock, 1, params, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	got = rk_pg_result_value(res, 0, 0) && !strcmp(rk_pg_result_value(res, 0, 0), "t");
	rk_pg_result_free(res);
	if (got)
		return 0;
	rk_log_warn("target table %s is locked by another repair; waiting for it to finish", r->display);
	return rk_pg_exec(r->tgt, "repair lock", rk_sql_repair_lock, 1, params, RK_PG_ONE_ROW, NULL, err);
}

/* One interval in one transaction; iv->state says how it ended. */
static int rk_repair_interval_run(rk_repair *r, rk_repair_interval *iv, rk_error *err)
{
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN];
	const char *bounds[2] = {rk_time_format_sql(iv->start, true, sa), rk_time_format_sql(iv->end, true, sb)};
	bool execute = r->spec->execute;
	rk_error scratch;

	iv->state = RK_REPAIR_FAILED;
	if (rk_pg_command(r->tgt, "begin repair", rk_sql_repair_begin, err) < 0)
		return -1;
	if ((execute && rk_repair_lock(r, err) < 0) || rk_repair_stage(r, iv, err) < 0)
		goto rollback;
	if (execute) {
		if (rk_repair_count(r, "delete by time", r->sql_delete_time, 2, bounds, &iv->deleted_by_time, err) < 0 ||
		    rk_repair_count(r, "delete by key", r->sql_delete_key, 0, NULL, &iv->deleted_by_key, err) < 0 ||
		    rk_repair_count(r, "insert rows", r->sql_insert, r->spec->interval_column ? 1 : 0, bounds,
		                    &iv->inserted, err) < 0)
			goto rollback;
		if (rk_pg_command(r->tgt, "commit repair", rk_sql_repair_commit, err) < 0) {
			/* a lost connection leaves the outcome of COMMIT unknown; any
			 * other failure (a deferred constraint) rolled it back */
			if (rk_pg_error_is_connection(err))
				iv->state = RK_REPAIR_UNKNOWN;
			return -1;
		}
		iv->state = RK_REPAIR_COMMITTED;
		return 0;
	}
	if (rk_repair_count(r, "count rows by time", r->sql_plan_time, 2, bounds, &iv->deleted_by_time, err) < 0 ||
	    rk_repair_count(r, "count rows by key", r->sql_plan_key, 2, bounds, &iv->deleted_by_key, err) < 0)
		goto rollback;
	iv->inserted = iv->source_rows;
	if (rk_pg_command(r->tgt, "end the plan", rk_sql_repair_rollback, err) < 0)
		return -1;
	iv->state = RK_REPAIR_PLANNED;
	return 0;
rollback:
	rk_error_clear(&scratch);
	if (rk_pg_command(r->tgt, "roll back", rk_sql_repair_rollback, &scratch) < 0)
		rk_log_debug("rollback after a failed interval: %s", scratch.msg);
	return -1;
}

/* Checks the replaced interval again, as `reckon check` would. */
static int rk_repair_verify(rk_repair *r, rk_repair_interval *iv, rk_error *err)
{
	rk_check_spec cs = r->spec->check;
	rk_check_result *res = NULL;

	cs.key = (const char *const *)r->key;
	cs.nkey = r->nkey;
	cs.from = iv->start;
	cs.to = iv->end;
	cs.width = iv->end - iv->start;
	cs.settle = 0;
	cs.now = iv->end;
	cs.findings = false;
	cs.watermark_query = NULL;
	if (rk_check_run(&cs, &res, err) < 0)
		return -1;
	iv->after_source_rows = res->side[0].rows[0];
	iv->after_target_rows = res->side[1].rows[0];
	/* the window's own verdict: NULL-time rows elsewhere in the table make
	 * the run's verdict differ but are no business of this interval */
	iv->state = res->status[0] == RK_WIN_MATCH ? RK_REPAIR_MATCH : RK_REPAIR_DIFFER;
	rk_check_result_free(res);
	return 0;
}

/* Rewrites err as "repaired D of N intervals: [..), [..); interval [..) was
 * not changed: <cause>", keeping the cause's code, SQLSTATE and hint. */
static void rk_repair_explain(const rk_repair_spec *spec, const rk_repair_interval *iv, size_t n, size_t failed,
                              rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	size_t done = 0, others = 0, listed = 0, later = n - failed - 1;
	char hint[sizeof err->hint];
	char cause[sizeof err->msg];
	int code = err->code ? err->code : RK_EXIT_RUNTIME;

	memcpy(hint, err->hint, sizeof hint);
	memcpy(cause, err->msg, sizeof cause);
	for (size_t i = 0; i < n; i++) {
		if (rk_repair_state_done(iv[i].state)) {
			done++;
			if (i != failed)
				others++;
		}
	}
	if (!spec->execute) {
		rk_buf_puts(&b, "dry run of interval ");
		rk_repair_put_interval(&b, iv[failed].start, iv[failed].end);
		rk_buf_puts(&b, " failed; nothing was changed");
	} else {
		rk_buf_printf(&b, "repaired %zu of %zu interval%s", done, n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n && listed < others; i++) {
			if (!rk_repair_state_done(iv[i].state) || i == failed)
				continue;
			if (listed == RK_REPAIR_LIST_MAX) {
				rk_buf_printf(&b, ", and %zu more", others - listed);
				break;
			}
			rk_buf_puts(&b, listed ? ", " : ": ");
			rk_repair_put_interval(&b, iv[i].start, iv[i].end);
			listed++;
		}
		rk_buf_puts(&b, "; interval ");
		rk_repair_put_interval(&b, iv[failed].start, iv[failed].end);
		switch (iv[failed].state) {
		case RK_REPAIR_UNKNOWN:
			rk_buf_puts(&b, " may or may not have been replaced (the connection was lost during its commit)");
			break;
		case RK_REPAIR_COMMITTED:
			rk_buf_puts(&b, " was replaced but could not be checked again");
			break;
		default:
			rk_buf_puts(&b, " was not changed");
			break;
		}
		if (later)
			rk_buf_printf(&b, "; %zu later interval%s not started", later, later == 1 ? " was" : "s were");
	}
	rk_buf_printf(&b, ": %s", cause);
	rk_error_set(err, code, "%s", rk_buf_cstr(&b));
	if (spec->execute)
		rk_error_hint(err, "%s%srepair is idempotent: run the same command again to finish", hint,
		              hint[0] ? "; " : "");
	else if (hint[0])
		rk_error_hint(err, "%s", hint);
	rk_buf_free(&b);
}

int rk_repair_run(const rk_repair_spec *spec, rk_repair_interval *iv, size_t n, rk_error *err)
{
	rk_repair r;
	int rc = 0;

	memset(&r, 0, sizeof r);
	r.spec = spec;
	for (size_t i = 0; i < n; i++) {
		iv[i].state = RK_REPAIR_PENDING;
		iv[i].source_rows = iv[i].deleted_by_time = iv[i].deleted_by_key = iv[i].inserted = 0;
		iv[i].after_source_rows = iv[i].after_target_rows = 0;
	}
	if (rk_repair_open(&r, err) < 0) {
		rk_repair_close(&r);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		rk_buf b = RK_BUF_INIT;

		rk_repair_put_interval(&b, iv[i].start, iv[i].end);
		rk_log_info("%s interval %s of %s", spec->execute ? "repairing" : "planning", rk_buf_cstr(&b),
		            r.display);
		rk_buf_free(&b);
		if (rk_repair_interval_run(&r, &iv[i], err) < 0 || (spec->execute && rk_repair_verify(&r, &iv[i], err) < 0)) {
			rk_repair_explain(spec, iv, n, i, err);
			rc = -1;
			break;
		}
	}
	rk_repair_close(&r);
	return rc;
}
