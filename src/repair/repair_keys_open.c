/*
 * repair_keys_open.c - the repair of key segments before its first change
 * (repair_keys_impl.h): the target and the source resolved, what must be
 * refused refused, and every statement rendered once.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/text.h"
#include "io/sqltpl.h"
#include "load/guard.h"
#include "repair/repair_keys_impl.h"
#include "rk_sql.h"

/* ------------------------------------------------------------------------
 * before any change: the target, the source, the list
 * ---------------------------------------------------------------------- */

/* What a delete does to the rows that reference a deleted row. */
static int rk_krep_referencing(rk_krep *r, rk_error *err)
{
	const char *params[1] = { r->dest.oid };
	rk_pg_result *res;

	if (rk_pg_exec(r->tgt, "read the referencing foreign keys", rk_sql_repair_referencing, 1, params,
	               RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	r->nfk = (size_t)rk_pg_result_rows(res);
	r->fk = rk_xcalloc(r->nfk + 1, sizeof *r->fk);
	for (size_t i = 0; i < r->nfk; i++) {
		rk_kfk *f = &r->fk[i];
		const char *a = rk_pg_result_value(res, (int)i, 2);
		rk_buf q = RK_BUF_INIT;

		f->name = rk_xstrdup(rk_pg_result_value(res, (int)i, 0));
		f->child = rk_xstrdup(rk_pg_result_value(res, (int)i, 1));
		f->action = a ? a[0] : 'a';
		rk_buf_printf(&q, "SELECT count(*) FROM %s AS c WHERE (%s) IN (SELECT %s FROM %s AS t JOIN "
		                  "reckon_repair_diff AS d ON t.tableoid = d.relid AND t.ctid = d.row_id WHERE d.act = 'd')",
		              f->child, rk_pg_result_value(res, (int)i, 3), rk_pg_result_value(res, (int)i, 4),
		              r->dest.qualified);
		f->sql_count = rk_xstrdup(rk_buf_cstr(&q));
		rk_buf_free(&q);
	}
	rk_pg_result_free(res);
	return 0;
}

/* The first key column's kind, from its target type (the check of each
 * segment compares it with the source's), and the list checked with it:
 * every segment's bounds exact points of it, the segments in key order
 * and disjoint. */
static int rk_krep_list(rk_krep *r, rk_error *err)
{
	const rk_wcol *kc = &r->map.c[r->map.time];
	rk_type t = RK_T_OTHER;
	const char *why = NULL;

	if (rk_type_from_name(r->dest.base[kc->tcol], true, &t) < 0 || rk_keyspace_init(&r->kind, t, &why) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "key column %s of target table %s is %s: %s", kc->logical, r->dest.display,
		             r->dest.base[kc->tcol], why ? why : "not a type key segments range over");
		return rk_error_hint(err, "repair key segments of the key the check without --time segmented");
	}
	for (size_t i = 0; i < r->n; i++) {
		const rk_repair_interval *v = &r->iv[i], *p = i ? &r->iv[i - 1] : NULL;
		rk_keyspace ks = r->kind;
		int64_t lo, hi;
		int cmp = 0;
		rk_buf b = RK_BUF_INIT;

		if (rk_keyspace_fit(&ks, v->key_start, v->key_end, &lo, &hi, &why) == 0 &&
		    (!p || rk_keyspace_cmp_keys(&r->kind, p->key_end, v->key_start, &cmp, &why) == 0)) {
			if (cmp <= 0)
				continue;
			why = "it starts before the previous segment ends: the list must be in key order";
		}
		rk_repair_put_segment(&b, v);
		rk_error_set(err, RK_EXIT_USAGE, "segment %zu of the rerun list, %s, of %s %s: %s; nothing was changed", i + 1,
		             rk_buf_cstr(&b), kc->logical, r->dest.base[kc->tcol], why);
		rk_buf_free(&b);
		return rk_error_hint(err, "replay the list reckon check --rerun-list wrote without --time");
	}
	return 0;
}

/* Binds the source reader to the written columns. */
static int rk_krep_bind(rk_krep *r, rk_error *err)
{
	const char **names = rk_xcalloc(r->map.n + 1, sizeof *names);
	rk_type *types = rk_xcalloc(r->map.n + 1, sizeof *types);
	int rc;

	for (size_t i = 0; i < r->map.n; i++)
		names[i] = r->map.c[i].bind;
	rc = rk_reader_bind(r->src, names, r->map.n, types, err);
	free(r->large_cols);
	r->large_cols = rk_repair_large_cols(&r->map, types);
	free(names);
	free(types);
	return rc;
}

/* ------------------------------------------------------------------------
 * the statements
 * ---------------------------------------------------------------------- */

/* The segment's range on the first key column of alias a ("t", "s"), its
 * bounds $1 and $2 (NULL: an open end), into b: a NULL key is in no
 * segment. */
static int rk_krep_range(rk_krep *r, const char *a, rk_buf *b, rk_error *err)
{
	char *q = rk_dest_quote(&r->dest, r->map.c[r->map.time].tcol, err);
	const char *type = r->kind.kind == RK_KS_TEXT   ? "pg_catalog.bytea"
	                   : r->kind.kind == RK_KS_UUID ? "pg_catalog.uuid"
	                                                : "pg_catalog.int8";
	rk_buf col = RK_BUF_INIT;

	if (!q)
		return -1;
	if (r->kind.kind == RK_KS_TEXT)
		rk_buf_printf(&col, "pg_catalog.convert_to(%s.%s, 'UTF8')", a, q);
	else
		rk_buf_printf(&col, "%s.%s", a, q);
	rk_buf_printf(b, "(%s.%s IS NOT NULL AND ($1::%s IS NULL OR %s >= $1::%s) AND ($2::%s IS NULL OR %s < $2::%s))",
	              a, q, type, rk_buf_cstr(&col), type, type, rk_buf_cstr(&col), type);
	rk_buf_free(&col);
	free(q);
	return 0;
}

/* The dry run's probe of the rows it would insert, when --target-where
 * tests a target column no source column fills (sql/repair_row_probe_*). */
static int rk_krep_probe_statements(rk_krep *r, const rk_sqlvar *vars, size_t nv, rk_error *err)
{
	rk_buf b = RK_BUF_INIT, cols = RK_BUF_INIT;
	size_t n = 0;

	if (r->spec->execute || !rk_repair_unfilled(r->spec->check.target.where, &r->dest, &r->map, -1, &cols)) {
		rk_buf_free(&cols);
		return 0;
	}
	rk_buf_free(&cols);
	rk_buf_puts(&b, "ALTER TABLE reckon_repair_probe");
	for (size_t c = 0; c < r->dest.ncols; c++) {
		char *q;

		if (r->dest.generated[c])
			continue;
		if (!(q = rk_dest_quote(&r->dest, c, err))) {
			rk_buf_free(&b);
			return -1;
		}
		rk_buf_printf(&b, "%s ALTER COLUMN %s DROP NOT NULL", n++ ? "," : "", q);
		if (!rk_repair_mentioned(r->spec->check.target.where, &r->dest, &r->map, -1, c))
			rk_buf_printf(&b, ", ALTER COLUMN %s DROP DEFAULT", q);
		free(q);
	}
	r->sql_probe_alter = n ? rk_xstrdup(rk_buf_cstr(&b)) : NULL;
	rk_buf_free(&b);
	if (!(r->sql_probe_create = rk_repair_render(rk_sql_repair_row_probe_create, vars, nv, err)) ||
	    !(r->sql_probe_insert = rk_repair_render(rk_sql_repair_row_probe_insert, vars, nv, err)) ||
	    !(r->sql_probe_check = rk_repair_render(rk_sql_repair_row_probe_check, vars, nv, err)))
		return -1;
	return 0;
}

/* The column lists the statements name, and what they free. */
typedef struct rk_krep_cols {
	char *columns, *s_columns, *keys, *t_keys, *s_keys, *tk, *set, *s_set, *t_cmp, *s_cmp, *filter;
	rk_buf same, t_range, s_range;
} rk_krep_cols;

static void rk_krep_cols_free(rk_krep_cols *c)
{
	char *v[] = { c->columns, c->s_columns, c->keys, c->t_keys, c->s_keys, c->tk,
		      c->set, c->s_set, c->t_cmp, c->s_cmp, c->filter };

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		free(v[i]);
	rk_buf_free(&c->same);
	rk_buf_free(&c->t_range);
	rk_buf_free(&c->s_range);
}

static int rk_krep_cols_make(rk_krep *r, rk_krep_cols *c, rk_error *err)
{
	size_t *set = rk_xcalloc(r->map.n + 1, sizeof *set), nset = 0;
	rk_buf tq = RK_BUF_INIT;
	int rc = -1;

	for (size_t i = 0; i < r->map.n; i++) {
		bool is_key = false;

		for (size_t k = 0; k < r->map.nkey; k++)
			is_key = is_key || r->map.key[k] == i;
		/* an update leaves the key, identity values and target-only columns */
		if (!is_key && !r->dest.identity[r->map.c[i].tcol])
			set[nset++] = i;
	}
	r->can_update = nset > 0 && !r->spec->replace_interval;
	rk_buf_printf(&tq, "%s.", r->dest.qualified);
	c->filter = rk_sql_filter(r->spec->check.target.where);
	if (!(c->columns = rk_repair_quote_cols(&r->dest, &r->map, NULL, r->map.n, "", "", err)) ||
	    !(c->s_columns = rk_repair_quote_cols(&r->dest, &r->map, NULL, r->map.n, "s.", "", err)) ||
	    !(c->keys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, "", "", err)) ||
	    !(c->t_keys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, "t.", "", err)) ||
	    !(c->s_keys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, "s.", "", err)) ||
	    !(c->tk = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, rk_buf_cstr(&tq), "", err)) ||
	    !(c->set = rk_repair_quote_cols(&r->dest, &r->map, set, nset, "", "", err)) ||
	    !(c->s_set = rk_repair_quote_cols(&r->dest, &r->map, set, nset, "s.", "", err)) ||
	    !(c->t_cmp = rk_repair_quote_cols(&r->dest, &r->map, set, nset, "t.", "::text", err)) ||
	    !(c->s_cmp = rk_repair_quote_cols(&r->dest, &r->map, set, nset, "s.", "::text", err)) ||
	    rk_krep_range(r, "t", &c->t_range, err) < 0 || rk_krep_range(r, "s", &c->s_range, err) < 0)
		goto done;
	if (nset)
		rk_buf_printf(&c->same, "(ROW(%s) IS NOT DISTINCT FROM ROW(%s))", c->t_cmp, c->s_cmp);
	else
		rk_buf_puts(&c->same, "true");
	rc = 0;
done:
	free(set);
	rk_buf_free(&tq);
	return rc;
}

/*
 * Renders every statement that names the user's table and columns.  Only
 * the pair statements and the verifications hold the user's filter text
 * (rk_sql_filter), each as one boolean column of a subquery in a statement
 * that writes nothing but reckon's temporary tables; every write applies
 * the segment's range and its keys itself.
 */
static int rk_krep_statements(rk_krep *r, rk_error *err)
{
	rk_krep_cols c;
	int rc = -1;

	memset(&c, 0, sizeof c);
	if (rk_krep_cols_make(r, &c, err) < 0)
		goto done;
	{
		const rk_sqlvar vars[] = {
			{ "target_table", r->dest.qualified },
			{ "target_filter", c.filter },
			{ "target_keys", c.tk },
			{ "columns", c.columns },
			{ "s_columns", c.s_columns },
			{ "keys", c.keys },
			{ "t_keys", c.t_keys },
			{ "s_keys", c.s_keys },
			{ "same", rk_buf_cstr(&c.same) },
			{ "set_columns", c.set },
			{ "s_set_columns", c.s_set },
			{ "t_range", rk_buf_cstr(&c.t_range) },
			{ "s_range", rk_buf_cstr(&c.s_range) },
		};
		size_t nv = sizeof vars / sizeof vars[0];

		if (!(r->sql_stage = rk_repair_render(rk_sql_repair_row_stage_create, vars, nv, err)) ||
		    !(r->sql_want = rk_repair_render(rk_sql_repair_row_want_create, vars, nv, err)) ||
		    !(r->sql_pair = rk_repair_render(rk_sql_repair_row_pair, vars, nv, err)) ||
		    !(r->sql_pair_range = rk_repair_render(rk_sql_repair_key_pair_range, vars, nv, err)) ||
		    !(r->sql_diff = rk_repair_render(rk_sql_repair_key_diff, vars, nv, err)) ||
		    !(r->sql_add = rk_repair_render(rk_sql_repair_row_diff_insert, vars, nv, err)) ||
		    !(r->sql_replace = rk_repair_render(rk_sql_repair_key_replace_diff, vars, nv, err)) ||
		    !(r->sql_delete = rk_repair_render(rk_sql_repair_key_delete, vars, nv, err)) ||
		    (r->can_update && !(r->sql_update = rk_repair_render(rk_sql_repair_key_update, vars, nv, err))) ||
		    !(r->sql_insert = rk_repair_render(rk_sql_repair_key_insert, vars, nv, err)) ||
		    !(r->sql_verify = rk_repair_render(rk_sql_repair_row_verify, vars, nv, err)) ||
		    rk_krep_probe_statements(r, vars, nv, err) < 0)
			goto done;
	}
	if (r->spec->check.target.where) {
		/* a mistake in the filter is an input error before anything is
		 * staged, in the server's own words */
		rk_buf b = RK_BUF_INIT;
		int bad;

		rk_buf_printf(&b, "SELECT 1 FROM %s WHERE %s LIMIT 0", r->dest.qualified, c.filter);
		bad = rk_pg_exec(r->tgt, "target filter", rk_buf_cstr(&b), 0, NULL, RK_PG_ANY_ROWS, NULL, err);
		rk_buf_free(&b);
		if (bad < 0) {
			err->code = RK_EXIT_USAGE;
			rk_error_prefix(err, "--target-where %s", r->spec->check.target.where);
			rk_error_hint(err, "write a condition on the columns of %s, e.g. 'not is_test'", r->dest.display);
			goto done;
		}
	}
	rc = 0;
done:
	rk_krep_cols_free(&c);
	return rc;
}

/* Connects, resolves and checks everything before the first change. */
int rk_krep_open(rk_krep *r, rk_error *err)
{
	const rk_check_spec *c = &r->spec->check;
	char **names = NULL;
	size_t nnames = 0;
	rk_wmap_in in;
	int rc = -1;

	if (!rk_conn_has(c->target.conn, RK_CAP_LIBPQ)) {
		rk_error_set(err, RK_EXIT_USAGE, "--target %s is %s: repair writes into a PostgreSQL table", c->target.conn,
		             rk_conn_noun(c->target.conn));
		return rk_error_hint(err, "give the target as a libpq conninfo or URI; a CSV source is fine");
	}
	if (!c->target.table || !*c->target.table) {
		rk_error_set(err, RK_EXIT_USAGE, "no target table named");
		return rk_error_hint(err, "give --table NAME (or --target-table NAME)");
	}
	if (rk_repair_key_columns(c, &r->key, &r->nkey, err) < 0)
		return -1;
	if (!(r->tgt = rk_pg_connect(c->target.conn, "target", err)) ||
	    rk_guard_session(r->tgt, c->target.conn, err) < 0 ||
	    rk_dest_open(&r->dest, r->tgt, "target", c->target.table, true, err) < 0 || rk_repair_refuse_subscribed(r->spec, &r->dest, r->tgt, err) < 0 ||
	    rk_repair_refuse_privileges(r->spec, &r->dest, r->tgt, err) < 0 || rk_krep_referencing(r, err) < 0)
		return -1;
	if (!(r->src = rk_reader_open(&c->source, err)) || rk_reader_columns(r->src, &names, &nnames, err) < 0)
		return -1;
	/* the first key column places a row in its segment */
	rk_repair_wmap_in(&in, c, &r->dest, -1, r->src, names, nnames, r->key, r->nkey, r->key[0]);
	if (rk_wmap_build(&in, &r->map, err) < 0 || rk_krep_bind(r, err) < 0 || rk_krep_list(r, err) < 0 ||
	    rk_krep_statements(r, err) < 0)
		goto done;
	rk_log_info("repair writes %zu column%s of %s", r->map.n, r->map.n == 1 ? "" : "s", r->dest.display);
	rc = 0;
done:
	rk_repair_strv_free(names, nnames);
	return rc;
}
