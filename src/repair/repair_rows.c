/*
 * repair_rows.c - a row-level repair, the default (repair_impl.h): per
 * interval, in one transaction, only the rows of the finding keys are
 * written; the plan of the dry run is the same statements, rolled back.
 */
#include "repair/repair_impl.h"

/* Row by row: refuses, in the interval's transaction before its writes
 * (the dry run: in its plan), deleting rows that other rows reference -
 * the delete would fail (NO ACTION, RESTRICT) or reach them (CASCADE, SET
 * NULL, SET DEFAULT; allowed with --allow-cascade) - and moving a row whose
 * time is out of reckon's range. */
static int rk_repair_row_refuse(rk_repair *r, size_t i, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	uint64_t n = 0;
	char *example = NULL;

	rk_repair_put_interval(&b, r->iv[i].start, r->iv[i].end);
	if (rk_repair_count(r, "rows moved from out of range", rk_sql_repair_row_unbounded, 0, NULL, &n, &example,
	                    err) < 0)
		goto fail;
	if (n) {
		rk_error_set(err, RK_EXIT_USAGE, "the target holds %llu row%s of a missing key of %s at +-infinity or out "
		                                 "of reckon's time range (e.g. %s): its window cannot be checked again; nothing was changed",
		             (unsigned long long)n, n == 1 ? "" : "s", rk_buf_cstr(&b), example ? example : "?");
		rk_error_hint(err, "correct or delete those rows' time first; reckon checks windows of finite times only");
		goto fail;
	}
	for (size_t f = 0; r->iv[i].deleted_by_time && f < r->nfk; f++) {
		if (rk_repair_count(r, "count referencing rows", r->fk[f].sql_count, 0, NULL, &n, NULL, err) < 0)
			goto fail;
		if (!n || (rk_repair_fk_cascades(r->fk[f].action) && r->spec->allow_cascade))
			continue;
		rk_error_set(err, RK_EXIT_USAGE, "repairing %s deletes %llu target row%s that %llu row%s of %s "
		                                 "reference%s through foreign key %s (%s); nothing was changed in it",
		             rk_buf_cstr(&b),
		             (unsigned long long)r->iv[i].deleted_by_time, r->iv[i].deleted_by_time == 1 ? "" : "s",
		             (unsigned long long)n, n == 1 ? "" : "s", r->fk[f].child, n == 1 ? "s" : "",
		             r->fk[f].name, rk_repair_fk_action(r->fk[f].action));
		if (rk_repair_fk_cascades(r->fk[f].action))
			rk_error_hint(err, "add --allow-cascade if the referencing rows may go with the extra rows");
		else
			rk_error_hint(err, "delete or re-point the referencing rows first, or repair that interval by hand");
		goto fail;
	}
	free(example);
	rk_buf_free(&b);
	return 0;
fail:
	free(example);
	rk_buf_free(&b);
	return -1;
}

/* The transaction's own settings (nothing is kept in the session, so a
 * transaction pooler may hand each transaction to another server session). */
int rk_repair_row_settings(rk_repair *r, rk_error *err)
{
	char ms[32];
	const char *params[1] = { rk_guard_lock_timeout_text(ms) };

	if (rk_pg_exec(r->tgt, "transaction settings", rk_sql_repair_row_settings, 1, params, RK_PG_ONE_ROW, NULL,
	               err) < 0)
		return rk_repair_tgt_fail(r, err);
	return 0;
}

/* The interval's finding keys and source rows, staged in the transaction's
 * own temporary tables, and the tables the plan is worked out in. */
static int rk_repair_row_stage(rk_repair *r, size_t i, bool plan, rk_error *err)
{
	int rc = -1;

	if (rk_repair_cmd(r, "create staging table", r->sql_row_stage, err) < 0 ||
	    rk_repair_cmd(r, "create key table", r->sql_row_want, err) < 0 ||
	    rk_repair_cmd(r, "create pair table", rk_sql_repair_row_pair_create, err) < 0 ||
	    rk_repair_cmd(r, "create plan table", rk_sql_repair_row_diff_create, err) < 0 ||
	    rk_repair_cmd(r, "create written table", rk_sql_repair_row_written_create, err) < 0)
		goto done;
	if (rk_repair_copy_key_lines(r->tgt, &r->want[i], err) < 0) {
		rk_repair_tgt_fail(r, err);
		goto done;
	}
	r->cur = i;
	/* the staging reader read a check since: its columns again */
	if (r->src_rebound && rk_repair_bind(r, err) < 0)
		goto done;
	r->src_rebound = false;
	if (rk_repair_scan(r, RK_STAGE_ONE, rk_sql_repair_row_stage_copy, err) < 0)
		goto done;
	if (plan && r->sql_probe_create &&
	    (rk_repair_cmd(r, "create probe table", r->sql_probe_create, err) < 0 ||
	     (r->sql_probe_alter && rk_repair_cmd(r, "shape probe table", r->sql_probe_alter, err) < 0)))
		goto done;
	if (plan && rk_repair_cmd(r, "make the plan read-only", rk_sql_repair_plan_read_only, err) < 0)
		goto done;
	rc = 0;
done:
	return rc;
}

/* Works out what the interval's repair writes (reckon_repair_diff), counts
 * it into the interval, and notes the windows the moved rows leave. */
static int rk_repair_row_diff(rk_repair *r, size_t i, rk_repair_state state, rk_repair_result *mine, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN], w[32];
	const char *bounds[2] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb) };
	const char *grid[2] = { bounds[0], w };
	rk_pg_result *res = NULL;
	uint64_t n[4];
	uint64_t total;
	int rc;

	{
		rk_calunit unit;
		bool calendar;

		snprintf(w, sizeof w, "%lld", (long long)rk_repair_grid(r, v, &calendar, &unit));
	}
	if (rk_pg_exec(r->tgt, "select the pair's rows", r->sql_row_pair, 0, NULL, RK_PG_COMMAND, NULL, err) < 0 ||
	    rk_pg_exec(r->tgt, "analyze the staged rows", rk_sql_repair_row_analyze, 0, NULL, RK_PG_COMMAND, NULL,
	               err) < 0 ||
	    rk_pg_exec(r->tgt, "compare the interval's rows", r->sql_row_inside, 2, bounds, RK_PG_COMMAND, NULL,
	               err) < 0 ||
	    (r->can_update && rk_pg_exec(r->tgt, "find moved rows", r->sql_row_moved, 2, bounds, RK_PG_COMMAND, NULL,
	                                 err) < 0) ||
	    rk_pg_exec(r->tgt, "find missing rows", r->sql_row_add, 0, NULL, RK_PG_COMMAND, NULL, err) < 0 ||
	    rk_pg_exec(r->tgt, "count the plan", rk_sql_repair_row_counts, 0, NULL, RK_PG_ONE_ROW, &res, err) < 0)
		return rk_repair_tgt_fail(r, err);
	for (int c = 0; c < 4; c++) {
		const char *x = rk_pg_result_value(res, 0, c);

		n[c] = x ? strtoull(x, NULL, 10) : 0;
	}
	rk_pg_result_free(res);
	v->inserted = n[0];
	v->updated = n[1] + n[3];
	v->deleted_by_time = n[2];
	v->moved = n[3];
	if (!n[3])
		return 0;
	if (rk_pg_exec(r->tgt, "windows of moved rows", rk_sql_repair_row_moved_windows, 2, grid, RK_PG_ANY_ROWS, &res,
	               err) < 0)
		return rk_repair_tgt_fail(r, err);
	rc = rk_repair_touch(r, i, res, state, mine, &total, err);
	rk_pg_result_free(res);
	return rc;
}

/* Every row the repair inserted or updated is a row of the pair: else the
 * interval is rolled back (a column the filter needs that no source column
 * fills takes its default, perhaps another owner's value). */
static int rk_repair_row_verify(rk_repair *r, size_t i, rk_error *err)
{
	uint64_t bad = 0;
	rk_buf b = RK_BUF_INIT, cols = RK_BUF_INIT;
	size_t ncols;

	if (!r->spec->check.target.where)
		return 0;
	if (rk_repair_count(r, "check the written rows", r->sql_row_verify, 0, NULL, &bad, NULL, err) < 0)
		return -1;
	if (!bad)
		return 0;
	rk_repair_put_interval(&b, r->iv[i].start, r->iv[i].end);
	ncols = rk_repair_unfilled(r->spec->check.target.where, &r->dest, &r->map, r->interval_col, &cols);
	rk_error_set(err, RK_EXIT_USAGE, "%llu row%s repair wrote into %s %s not selected by --target-where %s: "
	                                 "the interval was rolled back",
	             (unsigned long long)bad, bad == 1 ? "" : "s", rk_buf_cstr(&b),
	             bad == 1 ? "is" : "are", r->spec->check.target.where);
	if (ncols)
		rk_error_hint(err, "no source column fills %s %s, so written rows take %s default; map %s with "
		                   "--source-expr %s=SQL",
		              ncols == 1 ? "the target column" : "the target columns",
		              rk_buf_cstr(&cols), ncols == 1 ? "its" : "their", ncols == 1 ? "it" : "them",
		              ncols == 1 ? rk_buf_cstr(&cols) : "COL");
	else
		rk_error_hint(err, "the source's rows of the pair must satisfy --target-where once written: map the "
		                   "columns it tests with --source-expr COL=SQL");
	rk_buf_free(&b);
	rk_buf_free(&cols);
	return -1;
}

/* The dry run of interval i, which would insert rows, with a
 * --target-where that tests a target column no source column fills: the
 * rows are inserted into the probe instead (each takes the defaults the
 * target would give it) and refused, naming the column, when the filter
 * does not select one.  --execute checks the rows it wrote inside the
 * transaction instead. */
int rk_repair_refuse_unfilled(rk_repair *r, size_t i, rk_error *err)
{
	rk_buf b = RK_BUF_INIT, cols = RK_BUF_INIT;
	char s[RK_TIME_STRLEN];
	const char *params[1] = { rk_time_format_sql(r->iv[i].start, true, s) };
	uint64_t bad = 0;
	size_t ncols;
	rk_error scratch;

	if (!r->sql_probe_check || !r->iv[i].inserted)
		return 0;
	rk_error_clear(&scratch);
	if (rk_repair_cmd(r, "probe savepoint", rk_sql_repair_row_probe_savepoint, err) < 0)
		return -1;
	if (rk_pg_exec(r->tgt, "probe the inserted rows", r->sql_probe_insert, r->spec->replace_interval ? 1 : 0, params,
	               RK_PG_COMMAND, NULL, &scratch) < 0 ||
	    rk_repair_count(r, "check the probed rows", r->sql_probe_check, 0, NULL, &bad, NULL, &scratch) < 0) {
		/* a filter the probe cannot evaluate: --execute checks the
		 * rows it writes */
		rk_log_info("the dry run could not try --target-where on the rows it would insert: %s", scratch.msg);
		bad = 0;
	}
	if (rk_repair_cmd(r, "end the probe", rk_sql_repair_row_probe_rollback, err) < 0)
		return -1;
	if (!bad)
		return 0;
	ncols = rk_repair_unfilled(r->spec->check.target.where, &r->dest, &r->map, r->interval_col, &cols);
	rk_repair_put_interval(&b, r->iv[i].start, r->iv[i].end);
	rk_error_set(err, RK_EXIT_USAGE, "--target-where %s tests %s %s, which no source column fills: %llu of the %llu "
	                                 "row%s repair would insert into %s would take %s default and not be selected by it",
	             r->spec->check.target.where, ncols == 1 ? "the target column" : "the target columns",
	             rk_buf_cstr(&cols), (unsigned long long)bad, (unsigned long long)r->iv[i].inserted,
	             r->iv[i].inserted == 1 ? "" : "s", rk_buf_cstr(&b), ncols == 1 ? "its" : "their");
	rk_error_hint(err, "map %s with --source-expr %s=SQL (the value the load writes)", ncols == 1 ? "it" : "them",
	              ncols == 1 ? rk_buf_cstr(&cols) : "COL");
	rk_buf_free(&b);
	rk_buf_free(&cols);
	return -1;
}

/* One interval repaired row by row in one transaction. */
int rk_repair_row_execute(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN], li[32];
	const char *params[3] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb),
		                  r->interval_col >= 0 ? rk_repair_icol_param(r, i, li) : NULL };
	int np = r->interval_col >= 0 ? 3 : 2;
	rk_repair_result mine;
	uint64_t deleted = 0, updated = 0, inserted = 0;

	memset(&mine, 0, sizeof mine);
	v->state = RK_REPAIR_FAILED;
	if (rk_repair_begin(r, "begin repair", rk_sql_repair_begin, err) < 0)
		return -1;
	if (rk_repair_row_settings(r, err) < 0 || rk_repair_lock(r, err) < 0 || rk_repair_row_stage(r, i, false, err) < 0 ||
	    rk_repair_row_diff(r, i, RK_REPAIR_COMMITTED, &mine, err) < 0 || rk_repair_row_refuse(r, i, err) < 0 ||
	    rk_repair_count(r, "delete rows", r->sql_row_delete, 2, params, &deleted, NULL, err) < 0 ||
	    (r->sql_row_update &&
	     rk_repair_count(r, "update rows", r->sql_row_update, np, params, &updated, NULL, err) < 0) ||
	    rk_repair_count(r, "insert rows", r->sql_row_insert, np, params, &inserted, NULL, err) < 0 ||
	    rk_repair_row_verify(r, i, err) < 0 || rk_guard_check(err) < 0) {
		rk_repair_result_free(&mine);
		rk_repair_rollback(r);
		return -1;
	}
	v->deleted_by_time = deleted;
	v->updated = updated;
	v->inserted = inserted;
	return rk_repair_commit(r, v, &mine, out, err);
}

/* One interval's row-level plan, in a transaction rolled back at the end. */
int rk_repair_row_plan(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	rk_repair_result mine;

	memset(&mine, 0, sizeof mine);
	v->state = RK_REPAIR_FAILED;
	if (rk_repair_begin(r, "begin the plan", rk_sql_repair_plan_begin, err) < 0)
		return -1;
	if (rk_repair_row_settings(r, err) < 0 || rk_repair_row_stage(r, i, true, err) < 0 ||
	    rk_repair_row_diff(r, i, RK_REPAIR_PLANNED, &mine, err) < 0 || rk_repair_row_refuse(r, i, err) < 0 ||
	    rk_repair_refuse_unfilled(r, i, err) < 0) {
		rk_repair_result_free(&mine);
		rk_repair_rollback(r);
		return -1;
	}
	rk_repair_rollback(r);
	rk_repair_merge(out, &mine);
	v->state = RK_REPAIR_PLANNED;
	return 0;
}
