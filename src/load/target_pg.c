/*
 * target_pg.c - a PostgreSQL table as the destination of a load (target.h):
 * the write stages the batch in a temporary table and runs set-based
 * statements (sql/load_*.sql) in one transaction that holds the target's
 * write lock (dest.h, rk_dest_lock).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/guard.h"
#include "load/target_impl.h"
#include "rk_sql.h"

typedef struct pg_target {
	rk_buf sql;
} pg_target;

static bool pg_accepts(const char *conn)
{
	return true;
}

static int pg_open(rk_target *t, const char *conn, const char *table, const rk_dest *src, const char *zone,
                   rk_error *err)
{
	pg_target *p = rk_xcalloc(1, sizeof *p);

	t->impl = p;
	if (!(t->pg = rk_pg_connect(conn, "target", err)) || rk_guard_session(t->pg, conn, err) < 0 ||
	    rk_dest_open(&t->dest, t->pg, "target", table, true, err) < 0)
		return -1;
	t->display = rk_xstrdup(t->dest.display);
	return 0;
}

static void pg_close(rk_target *t)
{
	pg_target *p = t->impl;

	if (t->pg) {
		/* closing an open transaction's connection rolls it back */
		rk_guard_release(t->pg);
		rk_pg_close(t->pg);
	}
	if (p)
		rk_buf_free(&p->sql);
	free(p);
}

static int pg_render(rk_target *t, const rk_target_write_in *in, const char *tpl, rk_error *err)
{
	pg_target *p = t->impl;

	return rk_sql_render(&p->sql, tpl, in->vars, in->nvars, err);
}

static int pg_newest(rk_target *t, const rk_target_write_in *in, size_t time_col, rk_usec lookback, rk_usec *out,
                     const char **how, rk_error *err)
{
	pg_target *p = t->impl;
	char lb[64];
	const char *params[1] = { lb };
	rk_pg_result *res = NULL;
	const char *why = NULL, *v;

	snprintf(lb, sizeof lb, "%lld microseconds", (long long)lookback);
	*how = "max() query";
	if (pg_render(t, in, rk_sql_load_target_newest, err) < 0 ||
	    rk_pg_exec(t->pg, "newest target time", p->sql.data, 1, params, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	v = rk_pg_result_value(res, 0, 0);
	if (rk_time_parse_placed(v, strlen(v), false, out, &why) < 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot read newest target time \"%s\": %s", v,
		             why ? why : "malformed");
		rk_pg_result_free(res);
		return -1;
	}
	rk_pg_result_free(res);
	return 0;
}

static int pg_write(rk_target *t, const rk_target_write_in *in, long *deleted, long *written, rk_error *err)
{
	pg_target *p = t->impl;
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];
	const char *params[2] = { NULL, NULL };

	if (in->has_interval) {
		params[0] = rk_time_format_sql(in->start, true, a);
		params[1] = rk_time_format_sql(in->end, true, b);
	}
	/* a repair of the same target (or another load) never interleaves
	 * with this write: each would delete only what it can see */
	if (pg_render(t, in, rk_sql_load_begin, err) < 0 || rk_pg_command(t->pg, "begin write", p->sql.data, err) < 0 ||
	    rk_dest_lock(&t->dest, "load", err) < 0 || pg_render(t, in, rk_sql_load_batch_create, err) < 0 ||
	    rk_pg_command(t->pg, "create staging table", p->sql.data, err) < 0 ||
	    rk_pg_copy_in_begin(t->pg, "stage rows", rk_sql_load_batch_copy, err) < 0 ||
	    (in->rows->len && rk_pg_copy_in_put(t->pg, in->rows->data, in->rows->len, err) < 0) ||
	    rk_pg_copy_in_end(t->pg, err) < 0)
		return -1;
	if (in->mode == RK_TARGET_REPLACE_KEYS) {
		if (pg_render(t, in, rk_sql_load_delete_keys, err) < 0 ||
		    rk_pg_exec_long(t->pg, "delete keys read", p->sql.data, 0, NULL, deleted, err) < 0)
			return -1;
	} else if (in->mode == RK_TARGET_REPLACE_INTERVAL) {
		const char *tpl = in->interval_col >= 0 ? rk_sql_load_delete_interval
		                  : !in->closed         ? rk_sql_load_delete_range
		                                        : rk_sql_load_delete_range_closed;

		if (pg_render(t, in, tpl, err) < 0 ||
		    rk_pg_exec_long(t->pg, "delete interval", p->sql.data, in->interval_col >= 0 ? 1 : 2, params, deleted, err) < 0)
			return -1;
	}
	if (in->interval_col >= 0) {
		if (pg_render(t, in, rk_sql_load_insert_interval, err) < 0 ||
		    rk_pg_exec_long(t->pg, "insert rows", p->sql.data, 1, params, written, err) < 0)
			return -1;
	} else if (pg_render(t, in, rk_sql_load_insert, err) < 0 ||
	           rk_pg_exec_long(t->pg, "insert rows", p->sql.data, 0, NULL, written, err) < 0) {
		return -1;
	}
	return 0;
}

static int pg_commit(rk_target *t, const rk_target_write_in *in, long long *version, rk_error *err)
{
	return rk_pg_command(t->pg, "commit write", rk_sql_load_commit, err);
}

const rk_target_ops rk_target_pg_ops = {
	.kind = "postgres",
	.caps = RK_TARGET_SPANS_WATERMARK | RK_TARGET_KEYED_REPLACE | RK_TARGET_INTERVAL_REPLACE |
	        RK_TARGET_CHEAP_MAX_TIME,
	.accepts = pg_accepts,
	.open = pg_open,
	.newest = pg_newest,
	.write = pg_write,
	.commit = pg_commit,
	.close = pg_close,
};
