/*
 * repair_replace.c - --replace-interval (repair_impl.h): per interval, in
 * one transaction, the target rows of the interval and of its keys deleted
 * and the staged source rows inserted; the dry run's plan counts them.
 */
#include "repair/repair_impl.h"

/* Runs one of the by-key statements (they return window, count rows),
 * noting the windows it reached in *out (the interval's own). */
static int rk_repair_by_key(rk_repair *r, size_t i, const char *label, const char *sql, rk_repair_state state,
                            rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char s[RK_TIME_STRLEN], w[32];
	const char *params[2] = { rk_time_format_sql(v->start, true, s), w };
	rk_pg_result *res = NULL;
	int rc;

	{
		rk_calunit unit;
		bool calendar;

		snprintf(w, sizeof w, "%lld", (long long)rk_repair_grid(r, v, &calendar, &unit));
	}
	if (rk_pg_exec(r->tgt, label, sql, 2, params, RK_PG_ANY_ROWS, &res, err) < 0)
		return rk_repair_tgt_fail(r, err);
	rc = rk_repair_touch(r, i, res, state, out, &v->deleted_by_key, err);
	rk_pg_result_free(res);
	return rc;
}

/* One interval replaced in one transaction; v->state says how it ended. */
int rk_repair_execute(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN];
	const char *bounds[2] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb) };
	char li[32];
	const char *ins[2] = { bounds[0], r->interval_col >= 0 ? rk_repair_icol_param(r, i, li) : NULL };
	rk_repair_result mine;

	memset(&mine, 0, sizeof mine);
	v->state = RK_REPAIR_FAILED;
	if (rk_repair_begin(r, "begin repair", rk_sql_repair_begin, err) < 0)
		return -1;
	if (rk_repair_lock(r, err) < 0 ||
	    rk_repair_count(r, "delete by time", r->sql_delete_time, 2, bounds, &v->deleted_by_time, NULL, err) < 0 ||
	    rk_repair_by_key(r, i, "delete by key", r->sql_delete_key, RK_REPAIR_COMMITTED, &mine, err) < 0 ||
	    rk_repair_count(r, "insert rows", r->sql_insert, r->interval_col >= 0 ? 2 : 1, ins, &v->inserted, NULL,
	                    err) < 0 ||
	    rk_guard_check(err) < 0) {
		rk_repair_result_free(&mine);
		rk_repair_rollback(r);
		return -1;
	}
	return rk_repair_commit(r, v, &mine, out, err);
}

/* The rows of interval i the plan deletes and inserts again: their
 * target-only columns are reset (none to reset: nothing counted). */
static int rk_repair_plan_reset(rk_repair *r, size_t i, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char s[RK_TIME_STRLEN];
	const char *params[1] = { rk_time_format_sql(v->start, true, s) };
	char *keys = NULL;

	v->reset = 0;
	v->reset_keys[0] = '\0';
	if (!r->reset_columns)
		return 0;
	if (rk_repair_count(r, "count rows reset", r->sql_plan_reset, 1, params, &v->reset, &keys, err) < 0)
		return -1;
	if (keys)
		snprintf(v->reset_keys, sizeof v->reset_keys, "%s", keys);
	free(keys);
	return 0;
}

/* One interval counted as the execution would change it, in a read-only
 * transaction that marks what it counts as deleted. */
int rk_repair_plan(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN];
	const char *bounds[2] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb) };
	rk_repair_result mine;

	memset(&mine, 0, sizeof mine);
	v->state = RK_REPAIR_FAILED;
	if (rk_repair_begin(r, "begin the plan", rk_sql_repair_plan_begin, err) < 0)
		return -1;
	v->inserted = v->source_rows;
	if ((r->sql_probe_create && (rk_repair_cmd(r, "create probe table", r->sql_probe_create, err) < 0 ||
	                             (r->sql_probe_alter &&
	                              rk_repair_cmd(r, "shape probe table", r->sql_probe_alter, err) < 0))) ||
	    rk_repair_cmd(r, "make the plan read-only", rk_sql_repair_plan_read_only, err) < 0 ||
	    rk_repair_count(r, "count rows by time", r->sql_plan_time, 2, bounds, &v->deleted_by_time, NULL, err) < 0 ||
	    rk_repair_by_key(r, i, "count rows by key", r->sql_plan_key, RK_REPAIR_PLANNED, &mine, err) < 0 ||
	    rk_repair_plan_reset(r, i, err) < 0 || rk_repair_refuse_unfilled(r, i, err) < 0) {
		rk_repair_result_free(&mine);
		rk_repair_rollback(r);
		return -1;
	}
	if (rk_repair_cmd(r, "end the plan", rk_sql_repair_commit, err) < 0) {
		rk_guard_idle(r->tgt);
		rk_repair_result_free(&mine);
		return -1;
	}
	rk_guard_idle(r->tgt);
	rk_repair_merge(out, &mine);
	v->state = RK_REPAIR_PLANNED;
	return 0;
}
