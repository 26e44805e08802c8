/*
 * repair_target.c - the target's statements and transactions, as both
 * modes run them (repair_impl.h): failures named with what the guard
 * knows, counts, the repair lock, BEGIN, COMMIT and ROLLBACK, and the windows
 * outside the list a change reached.
 */
#include "repair/repair_impl.h"

/* Fills in what the guard knows when a statement failed on a lock wait or
 * was canceled by a signal. */
int rk_repair_tgt_fail(rk_repair *r, rk_error *err)
{
	if (rk_guard_is_interrupt(err))
		rk_guard_check(err);
	else if (rk_guard_is_lock_timeout(err)) {
		char what[600];

		snprintf(what, sizeof what, "target table %s", r->dest.display);
		rk_guard_explain_lock(r->tgt, what, err);
	}
	return -1;
}

int rk_repair_cmd(rk_repair *r, const char *label, const char *sql, rk_error *err)
{
	if (rk_pg_command(r->tgt, label, sql, err) < 0)
		return rk_repair_tgt_fail(r, err);
	return 0;
}

/* Runs a statement returning one count (and, when out2 is given, a second
 * value, NULL or text). */
int rk_repair_count(rk_repair *r, const char *label, const char *sql, int nparams, const char *const *params,
                    uint64_t *out, char **out2, rk_error *err)
{
	rk_pg_result *res;

	if (rk_pg_exec(r->tgt, label, sql, nparams, params, RK_PG_ONE_ROW, &res, err) < 0)
		return rk_repair_tgt_fail(r, err);
	return rk_repair_count_of(res, label, out, out2, err);
}

/* The grid the windows outside interval v are counted on, as the width in
 * microseconds the by-key statements group by (their $2): the interval's
 * own width, or with --timezone, for an interval of whole calendar units
 * of the zone (*unit), one second, each group then placed in its unit. */
rk_usec rk_repair_grid(const rk_repair *r, const rk_repair_interval *v, bool *calendar, rk_calunit *unit)
{
	const rk_tz *tz = r->spec->check.tz;

	*calendar = tz && rk_tz_unit_of(tz, v->start, v->end, unit);
	return *calendar ? RK_USEC_PER_SEC : v->end - v->start;
}

/* Notes the windows a delete by key reached (rows: window index, count;
 * NULL index: rows without a time). */
int rk_repair_touch(rk_repair *r, size_t i, const rk_pg_result *res, rk_repair_state state,
                    rk_repair_result *out, uint64_t *total, rk_error *err)
{
	const rk_repair_interval *v = &r->iv[i];
	rk_calunit unit;
	bool calendar;
	rk_usec w = rk_repair_grid(r, v, &calendar, &unit);

	*total = 0;
	for (int row = 0; row < rk_pg_result_rows(res); row++) {
		const char *idx = rk_pg_result_value(res, row, 0), *cnt = rk_pg_result_value(res, row, 1);
		uint64_t c = cnt ? strtoull(cnt, NULL, 10) : 0;
		long long k;
		rk_usec s, e;
		size_t j;

		*total += c;
		if (!idx) {
			out->null_time_deleted += c;
			continue;
		}
		k = strtoll(idx, NULL, 10);
		if (k == 0)
			continue; /* the interval itself: not reached by the delete by key after the one by time */
		/* the window [s, s + w) must be instants reckon can write */
		if (__builtin_mul_overflow((rk_usec)k, w, &s) || __builtin_add_overflow(s, v->start, &s) ||
		    s == RK_USEC_NINF || s > RK_USEC_PINF - w)
			return rk_error_set(err, RK_EXIT_RUNTIME, "a row the delete by key reached lies out of reckon's time "
			                                          "range");
		e = s + w;
		if (calendar) {
			/* the second's calendar unit, counted from the interval */
			int64_t u = rk_tz_units_between(r->spec->check.tz, unit, v->start, s);

			if (u == 0)
				continue;
			s = rk_tz_step(r->spec->check.tz, unit, v->start, u);
			e = rk_tz_step(r->spec->check.tz, unit, v->start, u + 1);
		}
		for (j = 0; j < out->ntouched; j++)
			if (out->touched[j].start == s && out->touched[j].end == e)
				break;
		if (j == out->ntouched) {
			out->touched = rk_xrealloc(out->touched, (out->ntouched + 1) * sizeof *out->touched);
			memset(&out->touched[j], 0, sizeof out->touched[j]);
			out->touched[j].start = s;
			out->touched[j].end = e;
			out->ntouched++;
		}
		out->touched[j].interval = i;
		out->touched[j].deleted += c;
		out->touched[j].state = state;
	}
	return 0;
}

/* Takes the target's write lock (rk_dest_lock), which loads take too. */
int rk_repair_lock(rk_repair *r, rk_error *err)
{
	if (rk_dest_lock(&r->dest, "repair", err) < 0)
		return rk_repair_tgt_fail(r, err);
	return 0;
}

/* Adds the windows one interval touched to the run's. */
void rk_repair_merge(rk_repair_result *out, rk_repair_result *mine)
{
	for (size_t j = 0; j < mine->ntouched; j++) {
		rk_repair_touched *t = &mine->touched[j];
		size_t k;

		for (k = 0; k < out->ntouched; k++)
			if (out->touched[k].start == t->start && out->touched[k].end == t->end)
				break;
		if (k == out->ntouched) {
			out->touched = rk_xrealloc(out->touched, (out->ntouched + 1) * sizeof *out->touched);
			out->touched[k] = *t;
			out->touched[k].deleted = 0;
			out->ntouched++;
		}
		out->touched[k].interval = t->interval;
		out->touched[k].state = t->state;
		out->touched[k].deleted += t->deleted;
	}
	out->null_time_deleted += mine->null_time_deleted;
	rk_repair_result_free(mine);
}

void rk_repair_rollback(rk_repair *r)
{
	rk_error scratch;

	rk_guard_idle(r->tgt);
	rk_error_clear(&scratch);
	if (rk_pg_command(r->tgt, "roll back", rk_sql_repair_rollback, &scratch) < 0)
		rk_log_debug("rollback after a failed interval: %s", scratch.msg);
}

/* Opens an interval's transaction with the statement begin, the target
 * session marked busy for the guard. */
int rk_repair_begin(rk_repair *r, const char *label, const char *begin, rk_error *err)
{
	if (rk_guard_busy(r->tgt, err) < 0)
		return -1;
	if (rk_repair_cmd(r, label, begin, err) < 0) {
		rk_guard_idle(r->tgt);
		return -1;
	}
	return 0;
}

/* Commits interval v's writes: COMMITTED, and the windows it touched
 * (mine) added to out's; else rolled back (FAILED), or UNKNOWN when the
 * connection was lost during COMMIT. */
int rk_repair_commit(rk_repair *r, rk_repair_interval *v, rk_repair_result *mine, rk_repair_result *out,
                     rk_error *err)
{
	if (rk_pg_command(r->tgt, "commit repair", rk_sql_repair_commit, err) < 0) {
		rk_guard_idle(r->tgt);
		rk_repair_result_free(mine);
		/* a lost connection leaves the outcome of COMMIT unknown; any
		 * other failure (a deferred constraint, a cancel) rolled it back */
		if (rk_pg_error_is_connection(err))
			v->state = RK_REPAIR_UNKNOWN;
		return rk_repair_tgt_fail(r, err);
	}
	rk_guard_idle(r->tgt);
	v->state = RK_REPAIR_COMMITTED;
	rk_repair_merge(out, mine);
	return 0;
}
