#include "load/watermark.h"

#include <stdbool.h>
#include <string.h>

#include "rk_sql.h"

static int rk_load_watermark_value(rk_pg_result *res, rk_usec *out, rk_error *err)
{
	const char *v = rk_pg_result_value(res, 0, 0);
	const char *why = NULL;

	if (!v || rk_time_parse(v, strlen(v), out, &why) < 0)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot read watermark \"%s\": %s", v ? v : "NULL",
		                    why ? why : "null value");
	return 0;
}

int rk_load_watermark_prepare(rk_pg *pg, rk_buf *sql, const rk_sqlvar *vars, size_t nvars, const char *load_name,
                              rk_error *err)
{
	const char *p[1] = { NULL };
	rk_pg_result *res = NULL;
	bool exists = false;

	for (size_t i = 0; i < nvars; i++)
		if (strcmp(vars[i].name, "watermark_table") == 0)
			p[0] = vars[i].sql;
	if (rk_pg_exec(pg, "find watermark table", rk_sql_load_watermark_exists, 1, p, RK_PG_ONE_ROW, &res, err) < 0)
		return rk_error_prefix(err, "cannot prepare the watermark of load %s", load_name);
	exists = strcmp(rk_pg_result_value(res, 0, 0), "t") == 0;
	rk_pg_result_free(res);
	p[0] = load_name;
	if ((!exists && (rk_sql_render(sql, rk_sql_load_watermark_ddl, vars, nvars, err) < 0 ||
	                 rk_pg_command(pg, "create watermark table", sql->data, err) < 0)) ||
	    rk_sql_render(sql, rk_sql_load_watermark_init, vars, nvars, err) < 0 ||
	    rk_pg_exec(pg, "create watermark row", sql->data, 1, p, RK_PG_COMMAND, NULL, err) < 0)
		return rk_error_prefix(err, "cannot prepare the watermark of load %s", load_name);
	return 0;
}

int rk_load_watermark_get(rk_pg *pg, rk_buf *sql, const rk_sqlvar *vars, size_t nvars, const char *load_name,
                          rk_usec *out, rk_error *err)
{
	const char *p[1] = { load_name };
	rk_pg_result *res = NULL;
	int rc;

	if (rk_sql_render(sql, rk_sql_load_watermark_get, vars, nvars, err) < 0 ||
	    rk_pg_exec(pg, "read watermark", sql->data, 1, p, RK_PG_ONE_ROW, &res, err) < 0)
		return rk_error_prefix(err, "cannot read the watermark of load %s", load_name);
	rc = rk_load_watermark_value(res, out, err);
	rk_pg_result_free(res);
	return rc;
}

int rk_load_watermark_advance(rk_pg *pg, rk_buf *sql, const rk_sqlvar *vars, size_t nvars, const char *load_name,
                              rk_usec newest, rk_usec *out, rk_error *err)
{
	char t[RK_TIME_STRLEN];
	const char *p[2] = { load_name, rk_time_format_sql(newest, true, t) };
	rk_pg_result *res = NULL;
	int rc;

	if (rk_sql_render(sql, rk_sql_load_watermark_advance, vars, nvars, err) < 0 ||
	    rk_pg_exec(pg, "advance watermark", sql->data, 2, p, RK_PG_ONE_ROW, &res, err) < 0)
		return rk_error_prefix(err, "cannot move the watermark of load %s", load_name);
	rc = rk_load_watermark_value(res, out, err);
	rk_pg_result_free(res);
	return rc;
}
