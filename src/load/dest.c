/*
 * dest.c - the table a command writes into, and the columns it writes
 * (dest.h).
 */
#include "load/dest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/pair.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "io/pgident.h"
#include "rk_sql.h"

static void rk_dest_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void rk_dest_free(rk_dest *d)
{
	free(d->oid);
	free(d->display);
	free(d->qualified);
	rk_dest_strv_free(d->cols, d->ncols);
	rk_dest_strv_free(d->base, d->ncols);
	free(d->generated);
	free(d->identity);
	free(d->has_default);
	free(d->not_null);
	memset(d, 0, sizeof *d);
}

static int rk_dest_resolve(rk_dest *d, const char *table, bool write, rk_error *err)
{
	char *parts[2] = { NULL, NULL };
	size_t nparts = 0;
	const char *why = NULL;
	const char *params[2];
	rk_pg_result *res = NULL;
	rk_buf b = RK_BUF_INIT;
	char *qs = NULL, *qr = NULL;
	int rc = -1;

	if (rk_pgident_parse(table, parts, 2, &nparts, &why) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "invalid %s table name '%s': %s", d->side, table, why);
		return rk_error_hint(err, "write name, schema.name, or double-quote parts with capitals, blanks or "
		                          "dots: '\"My Schema\".\"Orders\"'");
	}
	params[0] = nparts == 2 ? parts[0] : NULL;
	params[1] = parts[nparts - 1];
	if (rk_pg_exec(d->pg, "resolve table", rk_sql_catalog_resolve_table, 2, params, RK_PG_ANY_ROWS, &res, err) < 0)
		goto done;
	if (rk_pg_result_rows(res) != 1) {
		if (rk_pg_result_rows(res) > 1) {
			rk_error_set(err, RK_EXIT_RUNTIME, "%s table '%s' resolves to %d relations on %s", d->side, table,
			             rk_pg_result_rows(res), rk_pg_location(d->pg));
		} else {
			rk_error_set(err, RK_EXIT_USAGE, "%s table '%s' does not exist on %s", d->side, table,
			             rk_pg_location(d->pg));
			rk_error_hint(err, "'reckon check' with the same options lists the relations that do exist");
		}
		goto done;
	}
	rk_pgident_display(&b, rk_pg_result_value(res, 0, 1));
	rk_buf_putc(&b, '.');
	rk_pgident_display(&b, rk_pg_result_value(res, 0, 2));
	d->display = rk_xstrdup(rk_buf_cstr(&b));
	d->relkind = rk_pg_result_value(res, 0, 3)[0];
	if (write && d->relkind != 'r' && d->relkind != 'p') {
		rk_error_set(err, RK_EXIT_USAGE, "%s %s on %s is not a table (relkind '%c')", d->side, d->display,
		             rk_pg_location(d->pg), d->relkind);
		rk_error_hint(err, "rows are deleted and inserted: name the table a view or foreign table reads from, "
		                   "and map its columns with --target-expr");
		goto done;
	}
	d->oid = rk_xstrdup(rk_pg_result_value(res, 0, 0));
	if (!(qs = rk_pg_quote_ident(d->pg, rk_pg_result_value(res, 0, 1), err)) ||
	    !(qr = rk_pg_quote_ident(d->pg, rk_pg_result_value(res, 0, 2), err)))
		goto done;
	rk_buf_reset(&b);
	rk_buf_printf(&b, "%s.%s", qs, qr);
	d->qualified = rk_xstrdup(rk_buf_cstr(&b));
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

static bool rk_dest_flag(const rk_pg_result *res, int row, int col)
{
	const char *v = rk_pg_result_value(res, row, col);

	return v && v[0] == 't';
}

static int rk_dest_columns(rk_dest *d, rk_error *err)
{
	const char *params[1] = { d->oid };
	rk_pg_result *res = NULL;
	int n;

	if (rk_pg_exec(d->pg, "list columns", rk_sql_catalog_columns, 1, params, RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	n = rk_pg_result_rows(res);
	d->ncols = (size_t)n;
	d->cols = rk_xcalloc(d->ncols + 1, sizeof *d->cols);
	d->base = rk_xcalloc(d->ncols + 1, sizeof *d->base);
	d->generated = rk_xcalloc(d->ncols + 1, sizeof *d->generated);
	d->identity = rk_xcalloc(d->ncols + 1, sizeof *d->identity);
	d->has_default = rk_xcalloc(d->ncols + 1, sizeof *d->has_default);
	d->not_null = rk_xcalloc(d->ncols + 1, sizeof *d->not_null);
	for (int i = 0; i < n; i++) {
		d->cols[i] = rk_xstrdup(rk_pg_result_value(res, i, 0));
		d->base[i] = rk_xstrdup(rk_pg_result_value(res, i, 2));
	}
	rk_pg_result_free(res);
	if (rk_pg_exec(d->pg, "column defaults", rk_sql_write_columns, 1, params, RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	for (int i = 0; i < rk_pg_result_rows(res); i++) {
		long c = -1;

		for (size_t j = 0; j < d->ncols && c < 0; j++)
			if (!strcmp(d->cols[j], rk_pg_result_value(res, i, 0)))
				c = (long)j;
		if (c < 0)
			continue; /* a column added between the two queries */
		d->generated[c] = rk_dest_flag(res, i, 1);
		d->identity[c] = rk_dest_flag(res, i, 2);
		d->has_default[c] = rk_dest_flag(res, i, 3);
		d->not_null[c] = rk_dest_flag(res, i, 4);
	}
	rk_pg_result_free(res);
	return 0;
}

int rk_dest_open(rk_dest *d, rk_pg *pg, const char *side, const char *table, bool write, rk_error *err)
{
	memset(d, 0, sizeof *d);
	d->pg = pg;
	d->side = side;
	if (rk_dest_resolve(d, table, write, err) < 0 || rk_dest_columns(d, err) < 0)
		return -1;
	return 0;
}

long rk_dest_column(const rk_dest *d, const char *written)
{
	char *name = NULL;
	size_t np;
	const char *why;
	long hit = -1;

	if (rk_pgident_parse(written, &name, 1, &np, &why) < 0)
		return -1;
	for (size_t i = 0; i < d->ncols && hit < 0; i++)
		if (!strcmp(d->cols[i], name))
			hit = (long)i;
	free(name);
	return hit;
}

long rk_dest_bare(const rk_dest *d, const char *sql)
{
	/* a bare name parses as one identifier ("full_name", " \"Full Name\" ");
	 * anything else (an operator, a call, a cast) does not */
	return rk_dest_column(d, sql);
}

void rk_dest_hint_columns(const rk_dest *d, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	rk_buf_printf(&b, "%s has %zu column%s: ", d->display, d->ncols, d->ncols == 1 ? "" : "s");
	for (size_t i = 0; i < d->ncols; i++) {
		size_t mark = b.len;

		if (i)
			rk_buf_puts(&b, ", ");
		rk_pgident_display(&b, d->cols[i]);
		if (b.len > sizeof err->hint - 8) {
			b.len = mark;
			rk_buf_puts(&b, ", ...");
			break;
		}
	}
	rk_error_hint(err, "%s", rk_buf_cstr(&b));
	rk_buf_free(&b);
}

char *rk_dest_quote(const rk_dest *d, size_t i, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	if (d->pg)
		return rk_pg_quote_ident(d->pg, d->cols[i], err);
	rk_buf_putc(&b, '"');
	for (const char *s = d->cols[i]; *s; s++) {
		if (*s == '"')
			rk_buf_putc(&b, '"');
		rk_buf_putc(&b, *s);
	}
	rk_buf_putc(&b, '"');
	rk_buf_cstr(&b);
	return b.data;
}

void rk_dest_init_columns(rk_dest *d, const char *side, const char *display, size_t n, const char *const *names,
                          const char *const *types, const bool *not_null)
{
	memset(d, 0, sizeof *d);
	d->side = side;
	d->display = rk_xstrdup(display);
	d->qualified = rk_xstrdup(display);
	d->oid = rk_xstrdup("0");
	d->relkind = 'r';
	d->ncols = n;
	d->cols = rk_xcalloc(n ? n : 1, sizeof *d->cols);
	d->base = rk_xcalloc(n ? n : 1, sizeof *d->base);
	d->generated = rk_xcalloc(n ? n : 1, sizeof *d->generated);
	d->identity = rk_xcalloc(n ? n : 1, sizeof *d->identity);
	d->has_default = rk_xcalloc(n ? n : 1, sizeof *d->has_default);
	d->not_null = rk_xcalloc(n ? n : 1, sizeof *d->not_null);
	for (size_t i = 0; i < n; i++) {
		d->cols[i] = rk_xstrdup(names[i]);
		d->base[i] = rk_xstrdup(types[i]);
		d->not_null[i] = not_null && not_null[i];
	}
}

int rk_dest_subscriptions(const rk_dest *d, char **names, rk_error *err)
{
	const char *params[1] = { d->oid };
	rk_pg_result *res = NULL;
	rk_buf b = RK_BUF_INIT;

	*names = NULL;
	if (rk_pg_exec(d->pg, "list subscriptions", rk_sql_write_subscriptions, 1, params, RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	for (int i = 0; i < rk_pg_result_rows(res); i++)
		rk_buf_printf(&b, "%s'%s' (%s)", i ? ", " : "", rk_pg_result_value(res, i, 0),
		              rk_pg_result_value(res, i, 1));
	rk_pg_result_free(res);
	if (b.len)
		*names = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
	return 0;
}

int rk_dest_lock(const rk_dest *d, const char *cmd, rk_error *err)
{
	const char *params[1] = { d->oid };
	rk_pg_result *res = NULL;
	bool got;

	if (rk_pg_exec(d->pg, "try the write lock", rk_sql_write_try_lock, 1, params, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	got = rk_pg_result_value(res, 0, 0) && !strcmp(rk_pg_result_value(res, 0, 0), "t");
	rk_pg_result_free(res);
	if (got)
		return 0;
	rk_log_warn("%s table %s is locked by another repair or load; %s waits for it to finish", d->side, d->display,
	            cmd);
	return rk_pg_exec(d->pg, "take the write lock", rk_sql_write_lock, 1, params, RK_PG_ONE_ROW, NULL, err);
}

/* ------------------------------------------------------------------------
 * the written columns
 * ---------------------------------------------------------------------- */

static bool rk_wmap_listed(const char *const *v, size_t n, const char *written)
{
	for (size_t i = 0; i < n; i++)
		if (rk_pair_same_name(v[i], written))
			return true;
	return false;
}

/* The source's mapping of a logical column, or -1. */
static long rk_wmap_sexpr(const rk_wmap_in *in, const char *logical)
{
	for (size_t i = 0; i < in->source->nexpr; i++)
		if (rk_pair_same_name(in->source->expr_names[i], logical))
			return (long)i;
	return -1;
}

/* The source's column of a logical column's name, or -1 (rk_pair_find). */
static long rk_wmap_scol(const rk_wmap_in *in, const char *logical)
{
	return rk_pair_find(in->src_cols, in->nsrc, logical, in->src_csv);
}

/* The target mapping of a logical column, or -1. */
static long rk_wmap_texpr(const rk_wmap_in *in, const char *logical)
{
	for (size_t i = 0; i < in->target_side->nexpr; i++)
		if (rk_pair_same_name(in->target_side->expr_names[i], logical))
			return (long)i;
	return -1;
}

/* Whether the command writes logical column L at all (before asking
 * whether the source has it). */
static bool rk_wmap_wanted(const rk_wmap_in *in, const char *logical)
{
	bool role = rk_wmap_listed(in->key, in->nkey, logical) || rk_pair_same_name(in->time, logical);

	if (role)
		return true;
	if (rk_wmap_listed(in->exclude, in->nexclude, logical))
		return false;
	return in->nonly == 0 || rk_wmap_listed(in->only, in->nonly, logical);
}

static char *rk_wmap_written(const char *phys)
{
	rk_buf b = RK_BUF_INIT;

	rk_pgident_display(&b, phys);
	rk_buf_cstr(&b);
	return b.data;
}

/* A key or time column that is not written: says why. */
static int rk_wmap_role_missing(const rk_wmap_in *in, const char *role, const char *logical, rk_error *err)
{
	const rk_dest *d = in->target;
	long te = rk_wmap_texpr(in, logical);
	long t = te >= 0 ? rk_dest_bare(d, in->target_side->expr_sql[te]) : rk_dest_column(d, logical);

	if (te >= 0 && t < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "%s column '%s' is the target expression '%s', which %s cannot write",
		             role, logical, in->target_side->expr_sql[te], in->cmd);
		return rk_error_hint(err, "map the %s column to a column of %s with --target-expr %s=COLUMN", role,
		                     d->display, logical);
	}
	if (t < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "%s column '%s' does not exist in target table %s%s%s", role, logical,
		             d->display, d->pg ? " on " : "", d->pg ? rk_pg_location(d->pg) : "");
		rk_dest_hint_columns(d, err);
		return -1;
	}
	if (t == in->interval_col) {
		rk_error_set(err, RK_EXIT_USAGE, "--interval-column %s is also %s", d->cols[t],
		             !strcmp(role, "time") ? "the time column" : "a key column");
		return rk_error_hint(err, "the interval column records each row's load interval; name a column of its "
		                          "own");
	}
	rk_error_set(err, RK_EXIT_USAGE, "%s column '%s' of target table %s is not a column of %s", role, logical,
	             d->display, in->src_desc);
	return rk_error_hint(err, "%s", d->generated[t] ? "it is a generated column of the target" : "the key and time columns must be on both sides: map the "
	                                                                                             "source's with --source-expr NAME=SQL");
}

int rk_wmap_build(const rk_wmap_in *in, rk_wmap *out, rk_error *err)
{
	const rk_dest *d = in->target;
	const rk_reader_opts *ts = in->target_side;
	bool *covered = rk_xcalloc(d->ncols + 1, sizeof *covered);
	int rc = -1;

	memset(out, 0, sizeof *out);
	out->c = rk_xcalloc(d->ncols + 1, sizeof *out->c);

	/* a target mapping that computes a logical column cannot be written */
	for (size_t m = 0; m < ts->nexpr; m++) {
		const char *name = ts->expr_names[m];

		if (rk_dest_bare(d, ts->expr_sql[m]) >= 0 || !rk_wmap_wanted(in, name) ||
		    (rk_wmap_sexpr(in, name) < 0 && rk_wmap_scol(in, name) < 0))
			continue;
		rk_error_set(err, RK_EXIT_USAGE, "--target-expr %s=%s is an expression, not a column of %s: %s cannot "
		                                 "write it",
		             name, ts->expr_sql[m], d->display, in->cmd);
		rk_error_hint(err, "map the source side onto the target's own column instead (--source-expr COLUMN=SQL), "
		                   "or leave %s out with --exclude-columns %s",
		              name, name);
		goto done;
	}

	for (size_t t = 0; t < d->ncols; t++) {
		char *logical = NULL;
		long se, sc;
		rk_wcol *c;

		if (d->generated[t] || (long)t == in->interval_col)
			continue;
		for (size_t m = 0; m < ts->nexpr && !logical; m++)
			if (rk_dest_bare(d, ts->expr_sql[m]) == (long)t)
				logical = rk_xstrdup(ts->expr_names[m]);
		if (!logical) {
			logical = rk_wmap_written(d->cols[t]);
			/* a target mapping of this name makes the column something
			 * else's: it carries no logical column */
			if (rk_wmap_texpr(in, logical) >= 0) {
				free(logical);
				continue;
			}
		}
		se = rk_wmap_sexpr(in, logical);
		sc = se >= 0 ? -1 : rk_wmap_scol(in, logical);
		if (!rk_wmap_wanted(in, logical) || (se < 0 && sc < 0)) {
			free(logical);
			continue;
		}
		c = &out->c[out->n++];
		c->tcol = t;
		c->logical = logical;
		c->sexpr = se;
		c->scol = sc;
		c->bind = rk_xstrdup(sc >= 0 && in->src_csv ? in->src_cols[sc] : logical);
		covered[t] = true;
	}

	/* the key and the time travel with every row */
	out->key = rk_xcalloc(in->nkey + 1, sizeof *out->key);
	for (size_t k = 0; k <= in->nkey; k++) {
		bool is_time = k == in->nkey;
		const char *logical = is_time ? in->time : in->key[k];
		long hit = -1;

		for (size_t i = 0; i < out->n && hit < 0; i++)
			if (rk_pair_same_name(out->c[i].logical, logical))
				hit = (long)i;
		if (hit < 0) {
			rk_wmap_role_missing(in, is_time ? "time" : "key", logical, err);
			goto done;
		}
		if (is_time)
			out->time = (size_t)hit;
		else
			out->key[out->nkey++] = (size_t)hit;
	}

	/* a column nothing covers gets its default: there must be one */
	for (size_t t = 0; t < d->ncols; t++) {
		if (covered[t] || (long)t == in->interval_col || d->generated[t] || d->identity[t] || d->has_default[t] ||
		    !d->not_null[t])
			continue;
		rk_error_set(err, RK_EXIT_USAGE, "target column %s of %s is NOT NULL and has no default, and no logical "
		                                 "column covers it: the rows %s inserts would leave it NULL",
		             d->cols[t], d->display, in->cmd);
		rk_error_hint(err, "map it from the source (--source-expr %s=SQL), or give the column a default", d->cols[t]);
		goto done;
	}
	rc = 0;
done:
	free(covered);
	return rc;
}

void rk_wmap_free(rk_wmap *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->c[i].logical);
		free(m->c[i].bind);
	}
	free(m->c);
	free(m->key);
	memset(m, 0, sizeof *m);
}
