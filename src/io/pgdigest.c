/*
 * pgdigest.c - window and drilldown digests computed by the server (reckon
 * check --pushdown, docs/pushdown.md): finding the reckon extension once per
 * reader, then running the statements pgsql.c writes and handing their rows
 * to the caller.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/log.h"
#include "io/copytext.h"
#include "io/pg.h"
#include "io/pgreader_impl.h"
#include "rk_sql.h"

/* The digest format of the reckon extension this client works with (its
 * reckon_pushdown_version(), src/ext/reckon.c). */
#define RK_PGREADER_PUSHDOWN_VERSION "2"

/* After r->digest_why got its message: this database cannot compute
 * digests; returns 0. */
static int rk_pgreader_no_digest(rk_pgreader *r, const char *hint)
{
	rk_error_hint(&r->digest_why, "%s", hint);
	r->digest_state = -1;
	return 0;
}

/*
 * A partitioned table: when some of its leaf partitions are foreign tables
 * and this role may read every leaf, r->leaves lists them all, so that the
 * digest statement aggregates each leaf by name and postgres_fdw sends each
 * foreign leaf's aggregate to its server (PostgreSQL 15 pushes a grouped
 * aggregate down only for a foreign table on its own, not for a partition
 * reached through its parent).  Otherwise the parent is aggregated as one.
 * Returns 0, or -1 when the catalog could not be read.
 */
static int rk_pgreader_leaves(rk_pgreader *r, rk_error *err)
{
	const char *params[1] = { r->oid };
	rk_pg_result *res = NULL;
	size_t n, nforeign = 0, unreadable = 0;
	rk_buf b = RK_BUF_INIT;

	if (rk_pg_exec(r->pg, "list leaf partitions", rk_sql_pushdown_leaves, 1, params, RK_PG_ANY_ROWS, &res, err) < 0) {
		rk_pgreader_recover(r);
		return -1;
	}
	n = (size_t)rk_pg_result_rows(res);
	for (size_t i = 0; i < n; i++) {
		nforeign += rk_pg_result_value(res, (int)i, 2)[0] == 't';
		unreadable += rk_pg_result_value(res, (int)i, 3)[0] != 't';
	}
	if (nforeign == 0 || unreadable > 0) {
		if (nforeign > 0)
			rk_log_info("%s: %zu of %zu leaf partitions cannot be read by their own name: the window digests are "
			            "computed through the parent, and the foreign ones' rows travel to this server",
			            r->desc, unreadable, n);
		rk_pg_result_free(res);
		return 0;
	}
	r->leaves = rk_xcalloc(n, sizeof *r->leaves);
	r->leaf_foreign = rk_xcalloc(n, sizeof *r->leaf_foreign);
	for (size_t i = 0; i < n; i++) {
		char *qs = rk_pg_quote_ident(r->pg, rk_pg_result_value(res, (int)i, 0), err);
		char *qr = qs ? rk_pg_quote_ident(r->pg, rk_pg_result_value(res, (int)i, 1), err) : NULL;

		if (!qr) {
			free(qs);
			rk_pg_result_free(res);
			rk_buf_free(&b);
			return -1;
		}
		rk_buf_reset(&b);
		rk_buf_printf(&b, "%s.%s", qs, qr);
		r->leaf_foreign[r->nleaves] = rk_pg_result_value(res, (int)i, 2)[0] == 't';
		r->leaves[r->nleaves++] = rk_xstrdup(rk_buf_cstr(&b));
		free(qs);
		free(qr);
	}
	rk_pg_result_free(res);
	rk_buf_free(&b);
	rk_log_info("%s: partitioned, %zu of its %zu leaf partitions foreign: window digests computed per partition, "
	            "each foreign one on its server",
	            r->desc, nforeign, n);
	return 0;
}

/*
 * Finds the reckon extension (once per reader): 1 when its functions are
 * there in this client's format version, 0 when not (r->digest_why says
 * why), -1 when the catalog could not be read.
 */
static int rk_pgreader_probe(rk_pgreader *r, rk_error *err)
{
	static const char install[] = "install it on the database server (make ext-install, as root) and run "
	                              "CREATE EXTENSION reckon in the database; or use --pushdown=auto to stream "
	                              "the sides that do not have it (docs/pushdown.md)";
	rk_pg_result *res = NULL;
	rk_buf sql = RK_BUF_INIT;
	rk_error verr;
	const char *v;
	bool has_window;
	int rc;

	if (r->digest_state)
		return r->digest_state > 0;
	if (rk_pg_exec(r->pg, "find the reckon extension", rk_sql_pushdown_probe, 0, NULL, RK_PG_ANY_ROWS, &res,
	               err) < 0) {
		rk_pgreader_recover(r);
		return -1;
	}
	if (rk_pg_result_rows(res) == 0) {
		rk_pg_result_free(res);
		rk_error_set(&r->digest_why, RK_EXIT_USAGE, "the reckon extension is not installed in the %s database %s",
		             r->side, rk_pg_location(r->pg));
		return rk_pgreader_no_digest(r, install);
	}
	r->digest_schema = rk_pg_quote_ident(r->pg, rk_pg_result_value(res, 0, 0), err);
	has_window = rk_pg_result_value(res, 0, 1) && strcmp(rk_pg_result_value(res, 0, 1), "t") == 0;
	r->has_windows = rk_pg_result_value(res, 0, 2) && strcmp(rk_pg_result_value(res, 0, 2), "t") == 0;
	r->has_key_hash = rk_pg_result_value(res, 0, 3) && strcmp(rk_pg_result_value(res, 0, 3), "t") == 0;
	rk_pg_result_free(res);
	if (!r->digest_schema)
		return -1;
	rk_buf_printf(&sql, "SELECT %s.reckon_pushdown_version()", r->digest_schema);
	rk_error_clear(&verr);
	rc = rk_pg_exec(r->pg, "reckon extension version", rk_buf_cstr(&sql), 0, NULL, RK_PG_ONE_ROW, &res, &verr);
	rk_buf_free(&sql);
	if (rc < 0) {
		/* e.g. the SQL objects are there but the module is not */
		rk_pgreader_recover(r);
		rk_error_set(&r->digest_why, RK_EXIT_USAGE, "the reckon extension in the %s database cannot be used: %s",
		             r->side, verr.msg);
		return rk_pgreader_no_digest(r, install);
	}
	v = rk_pg_result_value(res, 0, 0);
	if (!v || strcmp(v, RK_PGREADER_PUSHDOWN_VERSION) != 0) {
		rk_error_set(&r->digest_why, RK_EXIT_USAGE,
		             "the reckon extension in the %s database computes digest format %s; this reckon needs format " RK_PGREADER_PUSHDOWN_VERSION, r->side, v ? v : "NULL");
		rk_pg_result_free(res);
		return rk_pgreader_no_digest(r, "install the extension built from this reckon's sources (make ext-install), "
		                                "then ALTER EXTENSION reckon UPDATE or re-create it");
	}
	rk_pg_result_free(res);
	if (!has_window) {
		/* the module of 1.1 under the SQL objects of 1.0 */
		rk_error_set(&r->digest_why, RK_EXIT_USAGE,
		             "the reckon extension in the %s database is version 1.0, without reckon_window", r->side);
		return rk_pgreader_no_digest(r, "run ALTER EXTENSION reckon UPDATE in that database (docs/pushdown.md)");
	}
	rk_log_debug("%s: reckon extension in schema %s%s", r->desc, r->digest_schema,
	             r->has_windows ? "" : ", version 1.1: digests grouped by window (ALTER EXTENSION reckon UPDATE "
	                                   "for reckon_windows, which needs no GROUP BY)");
	if (r->relkind == 'p' && rk_pgreader_leaves(r, err) < 0)
		return -1;
	r->digest_state = 1;
	return 1;
}

typedef struct rk_pgreader_dctx {
	rk_pgreader *r;
	rk_field *fields;
	size_t nfields;
	rk_row_fn fn;
	void *ctx;
} rk_pgreader_dctx;

static int rk_pgreader_digest_row(void *ctx, const char *row, size_t len, rk_error *err)
{
	rk_pgreader_dctx *d = ctx;
	const char *why;

	d->r->rows++;
	if (rk_copytext_split(row, len, d->fields, d->nfields, &d->r->scratch, &why) < 0) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: row %llu of the window digests has %s", d->r->desc,
		                    (unsigned long long)d->r->rows, why);
	}
	return d->fn(d->ctx, d->fields, err);
}

int rk_pgreader_digest(void *impl, rk_digest_query *q, rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_pgreader *r = impl;
	rk_pgreader_dctx d = { r, NULL, 3 + q->nsum, fn, ctx };
	rk_pgsql_wargs wa;
	char label[200];
	bool empty = false, grouped = false;
	int rc;

	if (r->ncols == 0 || q->scan->time_index >= r->ncols || q->scan->nranges > 1 || q->nhash == 0) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: digest query before bind, or not one range of whole windows",
		                    r->desc);
	}
	if (r->broken) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: the reader's transaction was lost after an earlier failure",
		             r->desc);
		return rk_error_hint(err, "run again; the first error reported is the cause");
	}
	rk_pgsql_digest_args(q, &wa);
	if (wa.n > RK_PGREADER_PUSHDOWN_MAX_COLS) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_USAGE, "%s: %zu hashed and summed columns; the reckon extension takes at most %d",
		             r->desc, wa.n, RK_PGREADER_PUSHDOWN_MAX_COLS);
		rk_error_hint(err, "hash fewer --columns, or leave out --pushdown");
		rc = 1;
	} else if ((rc = rk_pgreader_probe(r, err)) <= 0) {
		if (rc == 0)
			*err = r->digest_why;
		rc = rc < 0 ? -1 : 1;
	} else {
		grouped = rk_pgsql_digest(r, q, &wa, &r->sql, &empty);
		rc = 0;
	}
	free(wa.col);
	free(wa.roles);
	if (rc != 0)
		return rc; /* 1: this reader cannot compute digests; -1: error */
	if (empty)
		return 0;
	snprintf(label, sizeof label, "window digests of %s", r->display);
	d.fields = rk_xcalloc(d.nfields, sizeof *d.fields);
	r->rows = 0;
	/* one aggregate over the rows, grouped after by the few windows it
	 * returns (reckon_windows): no planner setting matters for it */
	rc = grouped ? rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_hash, err) : 0;
	if (rc == 0 && r->nleaves)
		rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_leaves, err);
	if (rc == 0)
		rc = rk_pg_copy_out(r->pg, label, r->sql.data, rk_pgreader_digest_row, &d, err);
	if (rc == 0 && grouped)
		rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_reset, err);
	if (rc == 0 && r->nleaves)
		rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_leaves_reset, err);
	free(d.fields);
	if (rc == 0) {
		rk_log_debug("%s: %llu window digests", r->desc, (unsigned long long)r->rows);
		return 0;
	}
	/* a value the extension refused, a setting, a privilege: the user's to fix */
	if (err->sqlstate[0] && rk_pg_error_is_usage(err))
		err->code = RK_EXIT_USAGE;
	rk_pgreader_recover(r);
	return -1;
}

int rk_pgreader_drill_digest(void *impl, const rk_drill_query *q, rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_pgreader *r = impl;
	rk_pgreader_dctx d = { r, NULL, 6, fn, ctx };
	rk_type tt;
	char label[200];
	int rc;

	if (r->ncols == 0 || q->time_index >= r->ncols || (q->nparts && q->nhash == 0)) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: drilldown digests before bind", r->desc);
	}
	if (r->broken) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: the reader's transaction was lost after an earlier failure",
		             r->desc);
		return rk_error_hint(err, "run again; the first error reported is the cause");
	}
	rc = rk_pgreader_probe(r, err);
	if (rc <= 0) {
		if (rc == 0)
			*err = r->digest_why;
		return rc < 0 ? -1 : 1;
	}
	tt = r->types[q->time_index];
	rk_pgreader_err(err);
	if (!r->has_key_hash) {
		rk_error_set(err, RK_EXIT_USAGE, "the reckon extension in the %s database is older than 1.3, without "
		                                 "reckon_key_hash",
		             r->side);
		return rk_error_hint(err, "run ALTER EXTENSION reckon UPDATE in that database (docs/pushdown.md)");
	}
	if (!(tt == RK_T_TIMESTAMPTZ || tt == RK_T_TIMESTAMP || tt == RK_T_DATE)) {
		rk_error_set(err, RK_EXIT_USAGE, "the time column of %s has no time type", r->desc);
		return 1;
	}
	if (q->nhash + 1 > RK_PGREADER_PUSHDOWN_MAX_COLS || q->nkey > RK_PGREADER_PUSHDOWN_MAX_COLS) {
		rk_error_set(err, RK_EXIT_USAGE, "%s: too many columns for the reckon extension's functions", r->desc);
		return 1;
	}
	if (q->nparts == 0)
		return 0;
	snprintf(label, sizeof label, "drilldown digests of %s", r->display);
	d.fields = rk_xcalloc(d.nfields, sizeof *d.fields);
	rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_hash, err);
	for (size_t at = 0; at < q->nparts && rc == 0; at += RK_PGREADER_DRILL_PARTS) {
		size_t end = q->nparts - at > RK_PGREADER_DRILL_PARTS ? at + RK_PGREADER_DRILL_PARTS : q->nparts;

		rk_pgsql_drill(r, q, at, end, &r->sql);
		r->rows = 0;
		rc = rk_pg_copy_out(r->pg, label, rk_buf_cstr(&r->sql), rk_pgreader_digest_row, &d, err);
	}
	if (rc == 0)
		rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_reset, err);
	free(d.fields);
	if (rc == 0)
		return 0;
	if (err->sqlstate[0] && rk_pg_error_is_usage(err))
		err->code = RK_EXIT_USAGE;
	rk_pgreader_recover(r);
	return -1;
}
