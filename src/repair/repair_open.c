/*
 * repair_open.c - what repair finds out and decides before the first change
 * (repair_impl.h): the target and its columns, the source, which columns are
 * written, the refusals that need a database, and every statement,
 * rendered once.
 */
#include "repair/repair_impl.h"

/* Checks --target-where on no rows, so a mistake is an input error before
 * anything is staged, with the server's own words. */
static int rk_repair_check_filter(rk_repair *r, const char *filter, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc;

	rk_buf_printf(&b, "SELECT 1 FROM %s WHERE %s LIMIT 0", r->dest.qualified, filter);
	rc = rk_pg_exec(r->tgt, "target filter", rk_buf_cstr(&b), 0, NULL, RK_PG_ANY_ROWS, NULL, err);
	rk_buf_free(&b);
	if (rc < 0) {
		err->code = RK_EXIT_USAGE;
		rk_error_prefix(err, "--target-where %s", r->spec->check.target.where);
		return rk_error_hint(err, "write a condition on the columns of %s, e.g. 'not is_test'", r->dest.display);
	}
	return 0;
}

bool rk_repair_fk_cascades(char a)
{
	return a == 'c' || a == 'n' || a == 'd';
}

/* Reads the foreign keys that reference the target.  --replace-interval
 * deletes every row of an interval: a cascading one is refused before any
 * change unless --allow-cascade, a blocking one named.  Row by row, the
 * referencing rows of the rows to delete are counted per interval. */
static int rk_repair_referencing(rk_repair *r, rk_error *err)
{
	const char *params[1] = { r->dest.oid };
	rk_pg_result *res;
	rk_buf names = RK_BUF_INIT;
	size_t ncascade = 0;

	if (rk_pg_exec(r->tgt, "read the referencing foreign keys", rk_sql_repair_referencing, 1, params,
	               RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	r->nfk = (size_t)rk_pg_result_rows(res);
	r->fk = rk_xcalloc(r->nfk + 1, sizeof *r->fk);
	for (size_t i = 0; i < r->nfk; i++) {
		rk_repair_fk *f = &r->fk[i];
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
		if (rk_repair_fk_cascades(f->action)) {
			rk_buf_printf(&names, "%s%s on %s (%s)", ncascade ? "; " : "", f->name, f->child,
			              rk_repair_fk_action(f->action));
			ncascade++;
		}
	}
	rk_pg_result_free(res);
	if (r->spec->replace_interval && ncascade && !r->spec->allow_cascade) {
		rk_error_set(err, RK_EXIT_USAGE, "--replace-interval deletes every target row of an interval, and %zu "
		                                 "foreign key%s reference%s target table %s: %s; nothing was changed",
		             ncascade,
		             ncascade == 1 ? "" : "s", ncascade == 1 ? "s" : "", r->dest.display, rk_buf_cstr(&names));
		rk_buf_free(&names);
		return rk_error_hint(err, "repair row by row (leave --replace-interval out): only rows that differ are "
		                          "deleted; or add --allow-cascade if the referencing rows may go");
	}
	if (r->spec->replace_interval)
		for (size_t i = 0; i < r->nfk; i++)
			if (!rk_repair_fk_cascades(r->fk[i].action))
				rk_log_warn("foreign key %s on %s references target table %s (%s): --replace-interval fails on "
				            "a row that is referenced",
				            r->fk[i].name, r->fk[i].child, r->dest.display,
				            rk_repair_fk_action(r->fk[i].action));
	if (ncascade && r->spec->allow_cascade)
		rk_log_warn("foreign keys referencing %s: %s; deleting anyway (--allow-cascade)", r->dest.display,
		            rk_buf_cstr(&names));
	rk_buf_free(&names);
	return 0;
}

/* Binds the source reader to the written columns and learns how to read
 * its time. */
int rk_repair_bind(rk_repair *r, rk_error *err)
{
	const char **names = rk_xcalloc(r->map.n + 1, sizeof *names);
	rk_type *types = rk_xcalloc(r->map.n + 1, sizeof *types);
	const rk_wcol *tc = &r->map.c[r->map.time];
	int rc = -1;

	for (size_t i = 0; i < r->map.n; i++)
		names[i] = r->map.c[i].bind;
	if (rk_reader_bind(r->src, names, r->map.n, types, err) < 0)
		goto done;
	free(r->large_cols);
	r->large_cols = rk_repair_large_cols(&r->map, types);
	if (!rk_reader_has(r->src, RK_CAP_TYPED)) {
		/* untyped (CSV) text is read with the target column's type */
		if (rk_type_from_name(r->dest.base[tc->tcol], true, &r->time_type) < 0)
			r->time_type = RK_T_OTHER;
	} else {
		r->time_type = types[r->map.time];
	}
	if (!rk_type_is_time(r->time_type)) {
		rk_error_set(err, RK_EXIT_USAGE, "time column '%s' of %s is %s, not a timestamp or date", tc->logical,
		             !rk_reader_has(r->src, RK_CAP_TYPED) ? r->dest.display : rk_reader_describe(r->src),
		             !rk_reader_has(r->src, RK_CAP_TYPED) ? r->dest.base[tc->tcol] : rk_type_name(r->time_type));
		rk_error_hint(err, "--time names a timestamptz, timestamp or date column (or expression) on both sides");
		goto done;
	}
	{
		rk_type tt = RK_T_OTHER;

		if (rk_type_from_name(r->dest.base[tc->tcol], true, &tt) < 0 || !rk_type_is_time(tt)) {
			rk_error_set(err, RK_EXIT_USAGE, "time column '%s' of target table %s is %s, not a timestamp or "
			                                 "date",
			             tc->logical, r->dest.display, r->dest.base[tc->tcol]);
			rk_error_hint(err, "--time names a timestamptz, timestamp or date column");
			goto done;
		}
	}
	rc = 0;
done:
	free(names);
	free(types);
	return rc;
}

/* The value the load would have written into the interval column for a
 * row whose time is the SQL expression time, into b: with --load-interval,
 * the start of the load interval holding it - on the grid counted from the
 * epoch (parameter param: the width in microseconds), or with --timezone
 * among the starts of the zone's units that cover the interval (parameter
 * param: a timestamptz[] of them, rk_repair_icol_bounds); without,
 * parameter param itself (the one value the target's rows of the interval
 * record). */
static void rk_repair_icol_expr(const rk_repair *r, rk_buf *b, const char *time, int param)
{
	if (r->spec->load_interval && r->spec->check.tz)
		rk_buf_printf(b, "(($%d::pg_catalog.timestamptz[])[pg_catalog.width_bucket((%s)::pg_catalog.timestamptz, "
		                 "$%d::pg_catalog.timestamptz[])])",
		              param, time, param);
	else if (r->spec->load_interval)
		rk_buf_printf(b, "pg_catalog.to_timestamp(floor(extract(epoch FROM %s) / ($%d::numeric / 1000000)) * "
		                 "($%d::numeric / 1000000))",
		              time, param, param);
	else
		rk_buf_printf(b, "$%d", param);
}

/* The parameter rk_repair_icol_expr's expression takes for interval i
 * (li: room for the width). */
const char *rk_repair_icol_param(const rk_repair *r, size_t i, char li[32])
{
	if (!r->spec->load_interval || r->spec->check.tz)
		return r->icol_value[i];
	snprintf(li, 32, "%lld", (long long)r->spec->load_interval);
	return li;
}

/* The most load intervals one repair interval may cover with --timezone. */
#define RK_REPAIR_MAX_LOAD_INTERVALS 100000

/*
 * --load-interval with --timezone: the starts of the load intervals that
 * cover interval i, and the end of the last, as a timestamptz[] literal,
 * into r->icol_value[i].  They are aligned as --last aligns windows: days,
 * weeks and months of the zone (rk_tz_floor), h/m/s widths from the local
 * midnight of the interval's start.
 */
int rk_repair_icol_bounds(rk_repair *r, size_t i, rk_error *err)
{
	const rk_tz *tz = r->spec->check.tz;
	const rk_repair_interval *v = &r->iv[i];
	rk_usec li = r->spec->load_interval, b;
	bool calendar = li < 0 || li % RK_USEC_PER_DAY == 0;
	rk_calunit unit = { li < 0 ? (int32_t)-li : 0, li > 0 ? (int32_t)(li / RK_USEC_PER_DAY) : 0 };
	rk_buf out = RK_BUF_INIT;
	size_t n = 0;

	if (calendar) {
		b = rk_tz_floor(tz, unit, v->start);
	} else {
		rk_usec mid = rk_tz_midnight(tz, v->start);

		b = mid + (v->start - mid) / li * li;
	}
	rk_buf_putc(&out, '{');
	for (;;) {
		char t[RK_TIME_STRLEN];

		if (++n > RK_REPAIR_MAX_LOAD_INTERVALS) {
			rk_buf_free(&out);
			rk_error_set(err, RK_EXIT_USAGE, "--load-interval: interval %zu of the rerun list holds more than %d "
			                                 "load intervals; nothing was changed",
			             i + 1, RK_REPAIR_MAX_LOAD_INTERVALS);
			return rk_error_hint(err, "give the width the load's intervals have");
		}
		rk_buf_printf(&out, "%s%s", n > 1 ? "," : "", rk_time_format(b, t));
		if (b >= v->end)
			break;
		b = calendar ? rk_tz_step(tz, unit, b, 1) : b + li;
	}
	rk_buf_putc(&out, '}');
	rk_buf_cstr(&out);
	r->icol_value[i] = out.data;
	return 0;
}

/* The dry run's probe of the rows it would insert, when --target-where
 * tests a target column no source column fills: a table like the target
 * whose columns keep their defaults only where the filter tests them (no
 * sequence is advanced by the others), none NOT NULL. */
static int rk_repair_probe_statements(rk_repair *r, const rk_sqlvar *vars, size_t nv, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	size_t n = 0;
	bool any = false;

	for (size_t c = 0; c < r->dest.ncols; c++)
		any = any || rk_repair_mentioned(r->spec->check.target.where, &r->dest, &r->map, r->interval_col, c);
	if (!any)
		return 0;
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
		if (!rk_repair_mentioned(r->spec->check.target.where, &r->dest, &r->map, r->interval_col, c))
			rk_buf_printf(&b, ", ALTER COLUMN %s DROP DEFAULT", q);
		free(q);
	}
	r->sql_probe_alter = n ? rk_xstrdup(rk_buf_cstr(&b)) : NULL;
	rk_buf_free(&b);
	if (!(r->sql_probe_create = rk_repair_render(rk_sql_repair_row_probe_create, vars, nv, err)) ||
	    !(r->sql_probe_insert = rk_repair_render(r->spec->replace_interval ? rk_sql_repair_plan_probe_insert
	                                                                       : rk_sql_repair_row_probe_insert,
	                                             vars, nv, err)) ||
	    !(r->sql_probe_check = rk_repair_render(rk_sql_repair_row_probe_check, vars, nv, err)))
		return -1;
	return 0;
}

/*
 * Renders the statements of a row-level repair.  Only the pair statement
 * and the verification hold the user's filter text (rk_sql_filter), each as
 * one boolean column of a subquery in a statement that writes nothing but
 * reckon's temporary tables; every write applies the interval and the
 * finding keys itself.
 */
static int rk_repair_row_statements(rk_repair *r, const char *filter, const char *icol, rk_error *err)
{
	size_t *set = rk_xcalloc(r->map.n + 1, sizeof *set), nset = 0;
	char *columns = NULL, *s_columns = NULL, *keys = NULL, *t_keys = NULL, *s_keys = NULL, *tk = NULL;
	char *t_time = NULL, *s_time = NULL, *set_cols = NULL, *s_set = NULL, *t_cmp = NULL, *s_cmp = NULL;
	rk_buf tq = RK_BUF_INIT, same = RK_BUF_INIT, extra = RK_BUF_INIT, ival = RK_BUF_INIT, ic = RK_BUF_INIT;
	rk_buf icv = RK_BUF_INIT;
	int rc = -1;

	for (size_t i = 0; i < r->map.n; i++) {
		bool is_key = false;

		for (size_t k = 0; k < r->map.nkey; k++)
			is_key = is_key || r->map.key[k] == i;
		/* an update leaves the key, identity values and target-only columns */
		if (!is_key && !r->dest.identity[r->map.c[i].tcol])
			set[nset++] = i;
	}
	r->can_update = nset > 0;
	rk_buf_printf(&tq, "%s.", r->dest.qualified);
	if (!(columns = rk_repair_quote_cols(&r->dest, &r->map, NULL, r->map.n, "", "", err)) ||
	    !(s_columns = rk_repair_quote_cols(&r->dest, &r->map, NULL, r->map.n, "s.", "", err)) ||
	    !(keys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, "", "", err)) ||
	    !(t_keys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, "t.", "", err)) ||
	    !(s_keys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, "s.", "", err)) ||
	    !(tk = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, rk_buf_cstr(&tq), "", err)) ||
	    !(t_time = rk_repair_quote_cols(&r->dest, &r->map, &r->map.time, 1, "t.", "", err)) ||
	    !(s_time = rk_repair_quote_cols(&r->dest, &r->map, &r->map.time, 1, "s.", "", err)) ||
	    !(set_cols = rk_repair_quote_cols(&r->dest, &r->map, set, nset, "", "", err)) ||
	    !(s_set = rk_repair_quote_cols(&r->dest, &r->map, set, nset, "s.", "", err)) ||
	    !(t_cmp = rk_repair_quote_cols(&r->dest, &r->map, set, nset, "t.", "::text", err)) ||
	    !(s_cmp = rk_repair_quote_cols(&r->dest, &r->map, set, nset, "s.", "::text", err)))
		goto done;
	if (nset)
		rk_buf_printf(&same, "(ROW(%s) IS NOT DISTINCT FROM ROW(%s))", t_cmp, s_cmp);
	else
		rk_buf_puts(&same, "true");
	if (icol) {
		/* the value the load would have written ($3) */
		rk_repair_icol_expr(r, &ival, s_time, 3);
		rk_buf_printf(&ic, ", %s", icol);
		rk_buf_printf(&icv, ", %s", rk_buf_cstr(&ival));
		rk_buf_printf(&extra, ", %s = CASE WHEN d.act = 'm' THEN %s ELSE t.%s END", icol, rk_buf_cstr(&ival), icol);
	}
	{
		const rk_sqlvar vars[] = {
			{ "target_table", r->dest.qualified },
			{ "target_filter", filter },
			{ "target_keys", tk },
			{ "columns", columns },
			{ "s_columns", s_columns },
			{ "keys", keys },
			{ "t_keys", t_keys },
			{ "s_keys", s_keys },
			{ "t_time", t_time },
			{ "s_time", s_time },
			{ "same", rk_buf_cstr(&same) },
			{ "set_columns", set_cols },
			{ "s_set_columns", s_set },
			{ "set_extra", rk_buf_cstr(&extra) },
			{ "icol", rk_buf_cstr(&ic) },
			{ "icol_value", rk_buf_cstr(&icv) },
		};
		size_t nv = sizeof vars / sizeof vars[0];

		rc = 0;
		if (!(r->sql_row_stage = rk_repair_render(rk_sql_repair_row_stage_create, vars, nv, err)) ||
		    !(r->sql_row_want = rk_repair_render(rk_sql_repair_row_want_create, vars, nv, err)) ||
		    !(r->sql_row_pair = rk_repair_render(rk_sql_repair_row_pair, vars, nv, err)) ||
		    !(r->sql_row_inside = rk_repair_render(rk_sql_repair_row_diff_inside, vars, nv, err)) ||
		    !(r->sql_row_moved = rk_repair_render(rk_sql_repair_row_diff_moved, vars, nv, err)) ||
		    !(r->sql_row_add = rk_repair_render(rk_sql_repair_row_diff_insert, vars, nv, err)) ||
		    !(r->sql_row_delete = rk_repair_render(rk_sql_repair_row_delete, vars, nv, err)) ||
		    (nset && !(r->sql_row_update = rk_repair_render(rk_sql_repair_row_update, vars, nv, err))) ||
		    !(r->sql_row_insert = rk_repair_render(rk_sql_repair_row_insert, vars, nv, err)) ||
		    !(r->sql_row_verify = rk_repair_render(rk_sql_repair_row_verify, vars, nv, err)))
			rc = -1;
		if (rc == 0 && !r->spec->execute && rk_repair_probe_statements(r, vars, nv, err) < 0)
			rc = -1;
	}
done:
	free(set);
	free(columns);
	free(s_columns);
	free(keys);
	free(t_keys);
	free(s_keys);
	free(tk);
	free(t_time);
	free(s_time);
	free(set_cols);
	free(s_set);
	free(t_cmp);
	free(s_cmp);
	rk_buf_free(&tq);
	rk_buf_free(&same);
	rk_buf_free(&extra);
	rk_buf_free(&ival);
	rk_buf_free(&ic);
	rk_buf_free(&icv);
	return rc;
}

/* Renders every statement that names the user's table and columns. */
static int rk_repair_statements(rk_repair *r, rk_error *err)
{
	char *columns = NULL, *keys = NULL, *skeys = NULL, *okeys = NULL, *tkeys = NULL, *tcol = NULL, *ttime = NULL;
	char *icol = NULL, *filter = rk_sql_filter(r->spec->check.target.where);
	rk_buf b = RK_BUF_INIT, iv = RK_BUF_INIT, ti = RK_BUF_INIT;
	int rc = -1;

	rk_buf_printf(&b, "%s.", r->dest.qualified);
	if (!(columns = rk_repair_quote_cols(&r->dest, &r->map, NULL, r->map.n, "", "", err)) ||
	    !(keys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, "", "", err)) ||
	    !(skeys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, "s.", "", err)) ||
	    !(okeys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, "o.", "", err)) ||
	    !(tkeys = rk_repair_quote_cols(&r->dest, &r->map, r->map.key, r->map.nkey, rk_buf_cstr(&b), "", err)) ||
	    !(tcol = rk_repair_quote_cols(&r->dest, &r->map, &r->map.time, 1, "", "", err)) ||
	    !(ttime = rk_repair_quote_cols(&r->dest, &r->map, &r->map.time, 1, rk_buf_cstr(&b), "", err)))
		goto done;
	if (r->interval_col >= 0 && !(icol = rk_dest_quote(&r->dest, (size_t)r->interval_col, err)))
		goto done;
	if (r->spec->check.target.where && rk_repair_check_filter(r, filter, err) < 0)
		goto done;
	if (rk_repair_row_statements(r, filter, icol, err) < 0)
		goto done;
	if (icol) {
		/* the value the load would have written ($2) */
		rk_buf_puts(&iv, ", ");
		rk_repair_icol_expr(r, &iv, tcol, 2);
		rk_buf_printf(&ti, "%s%s", rk_buf_cstr(&b), icol);
	}
	{
		const rk_sqlvar vars[] = {
			{ "icol_value", rk_buf_cstr(&iv) },
			{ "t_icol", rk_buf_cstr(&ti) },
			{ "target_table", r->dest.qualified },
			{ "columns", columns },
			{ "keys", keys },
			{ "staged_keys", skeys },
			{ "outside_keys", okeys },
			{ "target_keys", tkeys },
			{ "time", tcol },
			{ "target_time", ttime },
			{ "target_filter", filter },
			{ "interval_column", icol ? icol : "" },
		};
		size_t nv = sizeof vars / sizeof vars[0];

		if (!(r->sql_stage_create = rk_repair_render(rk_sql_repair_stage_create, vars, nv, err)) ||
		    !(r->sql_keys_create = rk_repair_render(rk_sql_repair_keys_create, vars, nv, err)) ||
		    !(r->sql_twice = rk_repair_render(rk_sql_repair_survey_twice, vars, nv, err)) ||
		    !(r->sql_reach = rk_repair_render(rk_sql_repair_survey_reach, vars, nv, err)) ||
		    !(r->sql_refuse = rk_repair_render(rk_sql_repair_survey_refuse, vars, nv, err)) ||
		    !(r->sql_unbounded = rk_repair_render(rk_sql_repair_survey_unbounded, vars, nv, err)) ||
		    !(r->sql_plan_time = rk_repair_render(rk_sql_repair_plan_by_time, vars, nv, err)) ||
		    !(r->sql_plan_key = rk_repair_render(rk_sql_repair_plan_by_key, vars, nv, err)) ||
		    !(r->sql_plan_reset = rk_repair_render(rk_sql_repair_plan_reset, vars, nv, err)) ||
		    !(r->sql_delete_time = rk_repair_render(rk_sql_repair_delete_by_time, vars, nv, err)) ||
		    !(r->sql_delete_key = rk_repair_render(rk_sql_repair_delete_by_key, vars, nv, err)) ||
		    !(r->sql_insert = rk_repair_render(icol ? rk_sql_repair_insert_interval : rk_sql_repair_insert, vars,
		                                       nv, err)) ||
		    (icol && !(r->sql_icol_probe = rk_repair_render(rk_sql_repair_icol_probe, vars, nv, err))))
			goto done;
	}
	rc = 0;
done:
	free(columns);
	free(keys);
	free(skeys);
	free(okeys);
	free(tkeys);
	free(tcol);
	free(ttime);
	free(icol);
	free(filter);
	rk_buf_free(&b);
	rk_buf_free(&iv);
	rk_buf_free(&ti);
	return rc;
}

/* --replace-interval stages the written columns beside the interval's
 * start (sql/repair_stage_create.sql): refused, before anything is
 * staged, when that table would have more columns than PostgreSQL allows
 * (row by row, the staging table has only the written columns). */
static int rk_repair_column_limit(rk_repair *r, rk_error *err)
{
	if (!r->spec->replace_interval || r->map.n + 1 <= RK_REPAIR_PG_MAX_COLUMNS)
		return 0;
	rk_error_set(err, RK_EXIT_USAGE, "--replace-interval stages the %zu written columns of target table %s and the "
	                                 "interval's start: %zu columns, more than the %d a PostgreSQL table may have; "
	                                 "nothing was changed",
	             r->map.n, r->dest.display, r->map.n + 1, RK_REPAIR_PG_MAX_COLUMNS);
	return rk_error_hint(err, "repair row by row (leave --replace-interval out), or leave a column out with "
	                          "--exclude-columns");
}

/* --replace-interval: the target columns an inserted row takes its
 * default (or a new identity value) in - neither written nor generated
 * nor the interval column - which every replaced row loses. */
static void rk_repair_reset_columns(rk_repair *r)
{
	rk_buf b = RK_BUF_INIT;

	if (!r->spec->replace_interval)
		return;
	for (size_t c = 0; c < r->dest.ncols; c++) {
		bool written = (long)c == r->interval_col || r->dest.generated[c];

		for (size_t i = 0; i < r->map.n && !written; i++)
			written = r->map.c[i].tcol == c;
		if (!written)
			rk_buf_printf(&b, "%s%s", b.len ? ", " : "", r->dest.cols[c]);
	}
	if (b.len)
		r->reset_columns = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
}

/* Connects, resolves and checks everything before the first change. */
int rk_repair_open(rk_repair *r, rk_error *err)
{
	const rk_check_spec *c = &r->spec->check;
	char **names = NULL;
	size_t nnames = 0;
	rk_wmap_in in;
	int rc = -1;

	r->interval_col = -1;
	if (!rk_conn_has(c->target.conn, RK_CAP_LIBPQ)) {
		rk_error_set(err, RK_EXIT_USAGE, "--target %s is %s: repair writes into a PostgreSQL table or a Delta table", c->target.conn,
		             rk_conn_noun(c->target.conn));
		return rk_error_hint(err, "give the target as a libpq conninfo or URI, or delta:PATH; a CSV source is fine");
	}
	if (!c->target.table || !*c->target.table) {
		rk_error_set(err, RK_EXIT_USAGE, "no target table named");
		return rk_error_hint(err, "give --table NAME (or --target-table NAME)");
	}
	if (!c->time) {
		rk_error_set(err, RK_EXIT_USAGE, "repair needs --time");
		return rk_error_hint(err, "the same table options as reckon check");
	}
	if (rk_repair_key_columns(c, &r->key, &r->nkey, err) < 0)
		return -1;
	if (!(r->tgt = rk_pg_connect(c->target.conn, "target", err)) ||
	    rk_guard_session(r->tgt, c->target.conn, err) < 0 ||
	    rk_dest_open(&r->dest, r->tgt, "target", c->target.table, true, err) < 0)
		return -1;
	/* the dry run refuses too: its plan is what --execute would refuse */
	if (rk_repair_refuse_subscribed(r->spec, &r->dest, r->tgt, err) < 0)
		return -1;
	if (r->spec->interval_column) {
		long t = rk_dest_column(&r->dest, r->spec->interval_column);

		if (t < 0) {
			rk_error_set(err, RK_EXIT_USAGE, "interval column '%s' does not exist in target table %s on %s",
			             r->spec->interval_column, r->dest.display, rk_pg_location(r->tgt));
			rk_dest_hint_columns(&r->dest, err);
			return -1;
		}
		if (r->dest.generated[t]) {
			rk_error_set(err, RK_EXIT_USAGE, "--interval-column %s is a generated column of %s",
			             r->spec->interval_column, r->dest.display);
			return rk_error_hint(err, "name a column repair can write");
		}
		r->interval_col = t;
	}
	if (rk_repair_refuse_privileges(r->spec, &r->dest, r->tgt, err) < 0 || rk_repair_referencing(r, err) < 0)
		return -1;
	/* the source's snapshot starts here and serves every interval; row by
	 * row the checks read the source in it too (rk_repair_check_readers) */
	if (!(r->src = rk_reader_open(&c->source, err)) || rk_reader_columns(r->src, &names, &nnames, err) < 0)
		return -1;
	rk_repair_wmap_in(&in, c, &r->dest, r->interval_col, r->src, names, nnames, r->key, r->nkey, c->time);
	if (rk_wmap_build(&in, &r->map, err) < 0 || rk_repair_column_limit(r, err) < 0 || rk_repair_bind(r, err) < 0 ||
	    rk_repair_statements(r, err) < 0)
		goto done;
	rk_log_info("repair writes %zu column%s of %s", r->map.n, r->map.n == 1 ? "" : "s", r->dest.display);
	rk_repair_reset_columns(r);
	rc = 0;
done:
	rk_repair_strv_free(names, nnames);
	return rc;
}
