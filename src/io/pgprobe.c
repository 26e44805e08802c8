/*
 * pgprobe.c - what the diagnosis (check/diagnose.h) and reckon lateness ask
 * of a PostgreSQL source: the commit times of rows and the rows of
 * transactions (track_commit_timestamp), whether the key is unique, the
 * transactions open on the database, the commit lag of a range; and the
 * user's --watermark-query, before the reader opens.  Each statement of
 * reckon's is a file of sql/ rendered with the reader's quoted names;
 * values are bound.  A failed statement goes back to the scan savepoint.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/timeutil.h"
#include "io/pg.h"
#include "io/pgident.h"
#include "io/pgreader_impl.h"
#include "io/sqltpl.h"
#include "rk_sql.h"

/* Appends a text[] literal of values v[i * stride + off], i < n. */
static void rk_pgreader_text_array(rk_buf *b, const char *const *v, size_t n, size_t stride, size_t off)
{
	rk_buf_putc(b, '{');
	for (size_t i = 0; i < n; i++) {
		const char *p = v[i * stride + off];

		if (i)
			rk_buf_putc(b, ',');
		if (!p) {
			rk_buf_puts(b, "NULL");
			continue;
		}
		rk_buf_putc(b, '"');
		for (; *p; p++) {
			if (*p == '"' || *p == '\\')
				rk_buf_putc(b, '\\');
			rk_buf_putc(b, *p);
		}
		rk_buf_putc(b, '"');
	}
	rk_buf_putc(b, '}');
}

/* Element i of an array literal (a comma before all but the first), in
 * double quotes when quoted (the text needs no escape: a time or a number).
 * No printf: the diagnosis writes one per missing row. */
static void rk_pgprobe_elem(rk_buf *b, size_t i, const char *text, bool quoted)
{
	if (i)
		rk_buf_putc(b, ',');
	if (quoted)
		rk_buf_putc(b, '"');
	rk_buf_puts(b, text);
	if (quoted)
		rk_buf_putc(b, '"');
}

/* v in decimal in out (24 bytes); returns out. */
static const char *rk_pgprobe_u64(uint64_t v, char out[24])
{
	char *p = out + 23;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return memmove(out, p, (size_t)(out + 24 - p));
}

/* 0 when the server keeps commit times, 1 (err says so) when it does not. */
static int rk_pgreader_commit_on(rk_pgreader *r, rk_error *err)
{
	rk_pg_result *res = NULL;
	const char *v;
	bool on;

	if (rk_pg_exec(r->pg, "track_commit_timestamp", rk_sql_diagnose_commit_ts_on, 0, NULL, RK_PG_ONE_ROW, &res,
	               err) < 0) {
		rk_pgreader_recover(r);
		return -1;
	}
	v = rk_pg_result_value(res, 0, 0);
	on = v && v[0] == 't';
	rk_pg_result_free(res);
	if (on)
		return 0;
	rk_pgreader_err(err);
	rk_error_set(err, RK_EXIT_USAGE, "track_commit_timestamp is off on %s: the server keeps no commit times",
	             rk_pg_location(r->pg));
	rk_error_hint(err, "set track_commit_timestamp = on in postgresql.conf and restart the server; rows written "
	                   "before that have no commit time");
	return 1;
}

/* A statement on the relation's xmin failed: a relation without one (a view)
 * is a fact (1), anything else an error. */
static int rk_pgreader_xmin_failed(rk_pgreader *r, rk_error *err)
{
	rk_pgreader_recover(r);
	if (strcmp(err->sqlstate, "42703") != 0)
		return -1;
	rk_pgreader_err(err);
	rk_error_set(err, RK_EXIT_USAGE, "%s has no xmin (a view or a foreign table): its rows' commit times cannot be "
	                                 "read",
	             r->display);
	rk_error_hint(err, "point the source at the table itself");
	return 1;
}

int rk_pgreader_commit_times(void *impl, const rk_key_query *q, rk_usec *commit, uint32_t *xid, bool *known,
                             rk_error *err)
{
	rk_pgreader *r = impl;
	rk_buf keys = RK_BUF_INIT, match = RK_BUF_INIT;
	rk_buf *arrays = rk_xcalloc(q->nkey + 2, sizeof *arrays);
	const char **params = rk_xcalloc(q->nkey + 2, sizeof *params);
	rk_type tt = r->types[q->time_index];
	bool with_zone = tt == RK_T_TIMESTAMPTZ;
	/* a time column of no time type is not compared (as in a scan) */
	bool span = q->lo && q->hi && (tt == RK_T_TIMESTAMPTZ || tt == RK_T_TIMESTAMP || tt == RK_T_DATE);
	size_t nparams = q->nkey + (span ? 2 : 0);
	rk_pg_result *res = NULL;
	rk_sqlvar vars[3];
	int rc;

	for (size_t i = 0; i < q->nrows; i++) {
		commit[i] = 0;
		xid[i] = 0;
		known[i] = false;
	}
	/* (with no rows: whether it keeps them, alone) */
	rc = rk_pgreader_commit_on(r, err);
	if (rc != 0 || !q->nrows)
		goto done;
	rk_buf_puts(&keys, "unnest(");
	for (size_t c = 0; c < q->nkey; c++) {
		size_t col = q->key_index[c];

		rk_buf_printf(&keys, "%s$%zu::pg_catalog.text[]", c ? ", " : "", c + 1);
		rk_buf_printf(&match, "%s%s = k.reckon_k%zu::%s", c ? " AND " : "", r->quoted[col], c + 1, r->typnames[col]);
		rk_pgreader_text_array(&arrays[c], q->values, q->nrows, q->nkey, c);
		params[c] = rk_buf_cstr(&arrays[c]);
	}
	if (span) {
		/* the rows' time span, as the scans bound their ranges */
		const char *type = with_zone ? "timestamptz" : "timestamp";
		const char *tcol = r->quoted[q->time_index];

		for (size_t e = 0; e < 2; e++) {
			rk_buf *a = &arrays[q->nkey + e];
			char text[RK_TIME_STRLEN];

			rk_buf_putc(a, '{');
			for (size_t i = 0; i < q->nrows; i++)
				rk_pgprobe_elem(a, i, rk_time_format_sql(e ? q->hi[i] : q->lo[i], with_zone, text), true);
			rk_buf_putc(a, '}');
			params[q->nkey + e] = rk_buf_cstr(a);
			rk_buf_printf(&keys, ", $%zu::pg_catalog.%s[]", q->nkey + e + 1, type);
		}
		rk_buf_printf(&match, " AND %s >= k.reckon_lo AND %s <= k.reckon_hi", tcol, tcol);
	}
	rk_buf_puts(&keys, ") WITH ORDINALITY AS k(");
	for (size_t c = 0; c < q->nkey; c++)
		rk_buf_printf(&keys, "reckon_k%zu, ", c + 1);
	rk_buf_puts(&keys, span ? "reckon_lo, reckon_hi, reckon_n)" : "reckon_n)");
	vars[0] = (rk_sqlvar){ "keys", rk_buf_cstr(&keys) };
	vars[1] = (rk_sqlvar){ "source_table", r->qualified };
	vars[2] = (rk_sqlvar){ "key_match", rk_buf_cstr(&match) };
	rc = rk_sql_render(&r->sql, rk_sql_diagnose_commit_times, vars, 3, err);
	if (rc == 0 && span && rk_pg_script(r->pg, "commit times planner settings", rk_sql_diagnose_plan, err) < 0) {
		rk_pgreader_recover(r);
		rc = -1;
	}
	if (rc == 0 && rk_pg_exec(r->pg, "commit times", r->sql.data, (int)nparams, params, RK_PG_ANY_ROWS, &res,
	                          err) < 0)
		rc = rk_pgreader_xmin_failed(r, err);
	if (rc == 0 && span &&
	    rk_pg_script(r->pg, "commit times planner settings", rk_sql_diagnose_plan_reset, err) < 0) {
		rk_pgreader_recover(r);
		rc = -1;
	}
	for (int i = 0; rc == 0 && i < rk_pg_result_rows(res); i++) {
		const char *n = rk_pg_result_value(res, i, 0), *ts = rk_pg_result_value(res, i, 1), *why;
		const char *x = rk_pg_result_value(res, i, 2);
		unsigned long long k = n ? strtoull(n, NULL, 10) : 0;
		rk_usec t;

		if (!ts || k < 1 || k > q->nrows)
			continue;
		if (rk_time_parse(ts, strlen(ts), &t, &why) < 0) {
			rk_pgreader_err(err);
			rc = rk_error_set(err, RK_EXIT_RUNTIME, "%s: commit time '%s' is not a timestamp: %s", r->desc, ts, why);
			break;
		}
		commit[k - 1] = t;
		xid[k - 1] = x ? (uint32_t)strtoul(x, NULL, 10) : 0;
		known[k - 1] = true;
	}
done:
	rk_pg_result_free(res);
	for (size_t c = 0; c < q->nkey + 2; c++)
		rk_buf_free(&arrays[c]);
	free(arrays);
	free(params);
	rk_buf_free(&keys);
	rk_buf_free(&match);
	return rc;
}

int rk_pgreader_xact_rows(void *impl, const rk_xact_query *q, uint64_t *rows, rk_error *err)
{
	rk_pgreader *r = impl;
	rk_buf arrays[4] = { RK_BUF_INIT, RK_BUF_INIT, RK_BUF_INIT, RK_BUF_INIT };
	const char *params[4];
	rk_pg_result *res = NULL;
	rk_sqlvar vars[3];
	rk_type tt = q->time_index < r->ncols ? r->types[q->time_index] : RK_T_UNKNOWN;
	int rc = 0;

	for (size_t i = 0; i < q->n; i++)
		rows[i] = 0;
	if (!q->n)
		return 0;
	if (tt != RK_T_TIMESTAMPTZ && tt != RK_T_TIMESTAMP && tt != RK_T_DATE) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_USAGE, "the time column of %s has no time type: its rows' transactions were not "
		                                 "asked about",
		             r->display);
		return 1;
	}
	for (int a = 0; a < 4; a++)
		rk_buf_putc(&arrays[a], '{');
	for (size_t i = 0; i < q->n; i++) {
		char lo[RK_TIME_STRLEN], hi[RK_TIME_STRLEN], num[2][24];

		rk_pgprobe_elem(&arrays[0], i, rk_pgprobe_u64(q->xid[i], num[0]), false);
		rk_pgprobe_elem(&arrays[1], i, rk_time_format_sql(q->lo[i], true, lo), true);
		rk_pgprobe_elem(&arrays[2], i, rk_time_format_sql(q->hi[i], true, hi), true);
		rk_pgprobe_elem(&arrays[3], i, rk_pgprobe_u64(q->cap[i], num[1]), false);
	}
	for (int a = 0; a < 4; a++) {
		rk_buf_putc(&arrays[a], '}');
		params[a] = rk_buf_cstr(&arrays[a]);
	}
	vars[0] = (rk_sqlvar){ "source_table", r->qualified };
	vars[1] = (rk_sqlvar){ "time_column", r->quoted[q->time_index] };
	vars[2] = (rk_sqlvar){ "filter", r->filter ? r->filter : "true" };
	rc = rk_sql_render(&r->sql, rk_sql_diagnose_xact_rows, vars, 3, err);
	/* the spans come with the query: the planner would rather scan */
	if (rc == 0 && rk_pg_script(r->pg, "transactions' rows planner settings", rk_sql_diagnose_plan, err) < 0) {
		rk_pgreader_recover(r);
		rc = -1;
	}
	if (rc == 0 && rk_pg_exec(r->pg, "transactions' rows", r->sql.data, 4, params, RK_PG_ANY_ROWS, &res, err) < 0)
		rc = rk_pgreader_xmin_failed(r, err);
	else if (rc == 0 &&
	         rk_pg_script(r->pg, "transactions' rows planner settings", rk_sql_diagnose_plan_reset, err) < 0) {
		rk_pgreader_recover(r);
		rc = -1;
	}
	for (int i = 0; rc == 0 && i < rk_pg_result_rows(res); i++) {
		const char *n = rk_pg_result_value(res, i, 0), *c = rk_pg_result_value(res, i, 1);
		unsigned long long k = n ? strtoull(n, NULL, 10) : 0;

		if (c && k >= 1 && k <= q->n)
			rows[k - 1] = strtoull(c, NULL, 10);
	}
	rk_pg_result_free(res);
	for (int a = 0; a < 4; a++)
		rk_buf_free(&arrays[a]);
	return rc;
}

int rk_pgreader_key_unique(void *impl, const size_t *key_index, size_t nkey, bool *unique, rk_error *err)
{
	rk_pgreader *r = impl;
	const char **names = rk_xcalloc(nkey ? nkey : 1, sizeof *names);
	char **owned = rk_xcalloc(nkey ? nkey : 1, sizeof *owned);
	const char *params[2];
	rk_buf arr = RK_BUF_INIT;
	rk_pg_result *res = NULL;
	int rc = 0;

	*unique = false;
	for (size_t c = 0; c < nkey; c++) {
		long k = rk_pgreader_expr_of(r, r->cols[key_index[c]]);
		char *bare[1] = { NULL };
		size_t np = 0;
		const char *why;

		names[c] = r->cols[key_index[c]];
		if (k < 0)
			continue;
		/* a key mapped to a column as it is (id = customer_id) is that
		 * column; a computed one is backed by no index reckon can see */
		if (rk_pgident_parse(r->expr.sql[k], bare, 1, &np, &why) < 0 || np != 1) {
			free(bare[0]);
			goto done;
		}
		owned[c] = bare[0];
		names[c] = bare[0];
	}
	rk_pgreader_text_array(&arr, names, nkey, 1, 0);
	params[0] = r->oid;
	params[1] = rk_buf_cstr(&arr);
	rc = rk_pg_exec(r->pg, "unique key", rk_sql_diagnose_key_unique, 2, params, RK_PG_ONE_ROW, &res, err);
	if (rc < 0)
		rk_pgreader_recover(r);
	if (rc == 0) {
		const char *v = rk_pg_result_value(res, 0, 0);
		*unique = v && v[0] == 't';
	}
done:
	rk_pg_result_free(res);
	rk_buf_free(&arr);
	for (size_t c = 0; c < nkey; c++)
		free(owned[c]);
	free(owned);
	free(names);
	return rc;
}

int rk_pgreader_open_xacts(void *impl, rk_usec before, const int *skip_pids, size_t nskip, rk_open_xacts *out,
                           rk_error *err)
{
	rk_pgreader *r = impl;
	char ts[RK_TIME_STRLEN];
	const char *params[2], *v, *why;
	rk_buf pids = RK_BUF_INIT;
	rk_pg_result *res = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	out->oldest = RK_USEC_PINF;
	rk_buf_putc(&pids, '{');
	for (size_t i = 0; i < nskip; i++)
		rk_buf_printf(&pids, "%s%d", i ? "," : "", skip_pids[i]);
	rk_buf_putc(&pids, '}');
	params[0] = rk_time_format(before, ts);
	params[1] = rk_buf_cstr(&pids);
	rc = rk_pg_exec(r->pg, "open transactions", rk_sql_diagnose_open_transactions, 2, params, RK_PG_ONE_ROW, &res,
	                err);
	if (rc < 0)
		rk_pgreader_recover(r);
	if (rc == 0) {
		out->count = strtoull(rk_pg_result_value(res, 0, 0), NULL, 10);
		v = rk_pg_result_value(res, 0, 1);
		if (v && rk_time_parse(v, strlen(v), &out->oldest, &why) < 0)
			out->oldest = RK_USEC_PINF;
		v = rk_pg_result_value(res, 0, 2);
		out->oldest_pid = v ? atoi(v) : 0;
		v = rk_pg_result_value(res, 0, 3);
		snprintf(out->oldest_app, sizeof out->oldest_app, "%s", v ? v : "");
		v = rk_pg_result_value(res, 0, 4);
		out->sees_all = v && v[0] == 't';
	}
	rk_pg_result_free(res);
	rk_buf_free(&pids);
	return rc;
}

/* "12.5" -> 12.5; NULL -> 0 */
static double rk_pgreader_num(const char *v)
{
	return v ? strtod(v, NULL) : 0;
}

int rk_pgreader_lateness(void *impl, const rk_lag_query *q, rk_lag_stats *all, rk_lag_stats *win,
                         rk_error *err)
{
	rk_pgreader *r = impl;
	char from[RK_TIME_STRLEN], to[RK_TIME_STRLEN], width[32];
	const char *params[4];
	rk_buf margins = RK_BUF_INIT;
	rk_pg_result *res = NULL;
	rk_sqlvar vars[4];
	size_t nwin = q->bounds ? q->nbounds - 1 : q->width > 0 ? (size_t)((q->to - q->from) / q->width)
	                                                        : 0;
	rk_buf bounds = RK_BUF_INIT;
	int rc;

	if (q->nmargins > RK_LAG_MAX_MARGINS || q->time_index >= r->ncols) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: lateness query out of range", r->desc);
	}
	if ((rc = rk_pgreader_commit_on(r, err)) != 0)
		return rc;
	rk_buf_putc(&margins, '{');
	for (size_t k = 0; k < q->nmargins; k++)
		rk_buf_printf(&margins, "%s%lld.%06lld", k ? "," : "", (long long)(q->margins[k] / RK_USEC_PER_SEC),
		              (long long)(q->margins[k] % RK_USEC_PER_SEC));
	rk_buf_putc(&margins, '}');
	snprintf(width, sizeof width, "%lld", (long long)q->width);
	/* calendar windows: $3 is their boundaries, a row's window its
	 * bucket among them */
	rk_buf_putc(&bounds, '{');
	for (size_t k = 0; q->bounds && k < q->nbounds; k++) {
		char b[RK_TIME_STRLEN];

		rk_buf_printf(&bounds, "%s%s", k ? "," : "", rk_time_format(q->bounds[k], b));
	}
	rk_buf_putc(&bounds, '}');
	params[0] = rk_time_format(q->from, from);
	params[1] = rk_time_format(q->to, to);
	params[2] = q->bounds ? rk_buf_cstr(&bounds) : width;
	params[3] = rk_buf_cstr(&margins);
	vars[0] = (rk_sqlvar){ "source_table", r->qualified };
	vars[1] = (rk_sqlvar){ "time_column", r->quoted[q->time_index] };
	vars[2] = (rk_sqlvar){ "filter", r->filter ? r->filter : "true" };
	vars[3] = (rk_sqlvar){ "window_of",
		               q->bounds ? "pg_catalog.width_bucket(r.at, $3::pg_catalog.timestamptz[]) - 1"
		                         : "(extract(epoch FROM r.at - $1::pg_catalog.timestamptz) * 1000000)::pg_catalog.int8 "
		                           "/ $3::pg_catalog.int8" };
	rc = rk_sql_render(&r->sql, rk_sql_lateness, vars, 4, err);
	if (rc == 0 && rk_pg_exec(r->pg, "lateness", r->sql.data, 4, params, RK_PG_ANY_ROWS, &res, err) < 0)
		rc = rk_pgreader_xmin_failed(r, err);
	for (int i = 0; rc == 0 && i < rk_pg_result_rows(res); i++) {
		const char *w = rk_pg_result_value(res, i, 0);
		rk_lag_stats *st;

		if (w) {
			long long k = strtoll(w, NULL, 10);
			if (k < 0 || (size_t)k >= nwin)
				continue;
			st = &win[k];
		} else {
			st = all;
		}
		st->rows = strtoull(rk_pg_result_value(res, i, 1), NULL, 10);
		st->known = strtoull(rk_pg_result_value(res, i, 2), NULL, 10);
		st->p50 = rk_pgreader_num(rk_pg_result_value(res, i, 3));
		st->p90 = rk_pgreader_num(rk_pg_result_value(res, i, 4));
		st->p99 = rk_pgreader_num(rk_pg_result_value(res, i, 5));
		st->p999 = rk_pgreader_num(rk_pg_result_value(res, i, 6));
		st->max = rk_pgreader_num(rk_pg_result_value(res, i, 7));
		for (size_t k = 0; k < q->nmargins; k++)
			st->missed[k] = strtoull(rk_pg_result_value(res, i, 8 + (int)k), NULL, 10);
	}
	rk_pg_result_free(res);
	rk_buf_free(&margins);
	rk_buf_free(&bounds);
	return rc;
}

/*
 * The watermark is read before either side is read: the watermark claims
 * that every source row at or before it is in the target, so rows visible
 * now must be there.  The query is the user's own SQL, run as given on the
 * source in a read-only transaction of its own connection.
 */
int rk_pgreader_watermark(const rk_reader_opts *o, const char *query, rk_usec *at, rk_error *err)
{
	rk_pg *pg;
	rk_pg_result *r = NULL;
	const char *v, *why;
	int rc = -1;

	pg = rk_pg_connect(o->conn, "source", err);
	if (!pg)
		return -1;
	if (rk_pg_command(pg, "begin watermark read", "BEGIN TRANSACTION READ ONLY", err) < 0)
		goto done;
	if (rk_pg_exec(pg, "watermark query", query, 0, NULL, RK_PG_ONE_ROW, &r, err) < 0) {
		/* a result of the wrong shape is the query's, as a wrong column
		 * count is: the user's to fix, not a runtime failure */
		if (!err->sqlstate[0] && !rk_pg_error_is_connection(err)) {
			err->code = RK_EXIT_USAGE;
			rk_error_hint(err, "the query must return one row of one timestamp, e.g. SELECT watermark FROM "
			                   "etl_watermark WHERE load_name = 'orders'");
		}
		goto done;
	}
	if (rk_pg_result_cols(r) != 1) {
		rk_error_set(err, RK_EXIT_USAGE, "--watermark-query returned %d columns; it must return one timestamp",
		             rk_pg_result_cols(r));
		rk_error_hint(err, "e.g. SELECT watermark FROM etl_watermark WHERE load_name = 'orders'");
		goto done;
	}
	v = rk_pg_result_value(r, 0, 0);
	if (!v) {
		/* no watermark yet: nothing is claimed */
		*at = RK_USEC_NINF;
	} else if (rk_time_parse_placed(v, strlen(v), false, at, &why) < 0) {
		/* a max(time) of PostgreSQL's last 30 years: 'infinity' (timeutil.h) */
		rk_error_set(err, RK_EXIT_USAGE, "--watermark-query returned '%s', which is not a timestamp: %s", v, why);
		rk_error_hint(err, "the query must return one timestamptz, timestamp or date value");
		goto done;
	}
	rc = 0;
done:
	rk_pg_result_free(r);
	rk_pg_close(pg);
	return rc;
}
