/*
 * repair.c - replaces the intervals of a rerun list in the target
 * (repair.h): the run.  The states an interval goes through, the refusals
 * that need no connection, each interval checked first, then each repaired
 * (row by row, repair_rows.c, or whole with --replace-interval,
 * repair_replace.c) and checked again, and the message of a run that
 * stopped.  What the other files of src/repair do: repair_impl.h; a Delta
 * target: repair_delta.h.
 */
#include "repair/repair_impl.h"

static const struct {
	const char *name, *key;
} rk_repair_states[] = {
	[RK_REPAIR_PENDING] = { "pending", "pending" },
	[RK_REPAIR_FAILED] = { "failed", "failed" },
	[RK_REPAIR_UNKNOWN] = { "unknown", "unknown" },
	[RK_REPAIR_ALREADY] = { "already matches", "already_matches" },
	[RK_REPAIR_PLANNED] = { "planned", "planned" },
	[RK_REPAIR_COMMITTED] = { "unverified", "unverified" },
	[RK_REPAIR_MATCH] = { "match", "match" },
	[RK_REPAIR_DIFFER] = { "differ", "differ" },
};

const char *rk_repair_state_name(rk_repair_state s)
{
	return (unsigned)s <= RK_REPAIR_DIFFER ? rk_repair_states[s].name : "?";
}

const char *rk_repair_state_key(rk_repair_state s)
{
	return (unsigned)s <= RK_REPAIR_DIFFER ? rk_repair_states[s].key : "?";
}

bool rk_repair_state_done(rk_repair_state s)
{
	return s == RK_REPAIR_COMMITTED || s == RK_REPAIR_MATCH || s == RK_REPAIR_DIFFER;
}

void rk_repair_result_free(rk_repair_result *res)
{
	free(res->touched);
	free(res->reset_columns);
	rk_repair_delta_free(res);
	memset(res, 0, sizeof *res);
}

static void rk_repair_close(rk_repair *r)
{
	rk_repair_strv_free(r->key, r->nkey);
	rk_reader_free(r->src);
	rk_reader_free(r->ck[0]);
	rk_reader_free(r->ck[1]);
	rk_guard_release(r->tgt);
	rk_pg_close(r->tgt);
	rk_dest_free(&r->dest);
	rk_wmap_free(&r->map);
	free(r->todo);
	free(r->sql_stage_create);
	free(r->sql_keys_create);
	free(r->sql_twice);
	free(r->sql_reach);
	free(r->sql_refuse);
	free(r->sql_unbounded);
	free(r->sql_plan_time);
	free(r->sql_plan_key);
	free(r->sql_delete_time);
	free(r->sql_delete_key);
	free(r->sql_insert);
	free(r->sql_icol_probe);
	free(r->sql_plan_reset);
	free(r->reset_columns);
	free(r->sql_row_stage);
	free(r->sql_row_want);
	free(r->sql_row_pair);
	free(r->sql_row_inside);
	free(r->sql_row_moved);
	free(r->sql_row_add);
	free(r->sql_row_delete);
	free(r->sql_row_update);
	free(r->sql_row_insert);
	free(r->sql_row_verify);
	free(r->sql_probe_create);
	free(r->sql_probe_alter);
	free(r->sql_probe_insert);
	free(r->sql_probe_check);
	for (size_t i = 0; r->want && i < r->n; i++)
		rk_repair_keys_free(&r->want[i], r->nkey);
	free(r->want);
	rk_repair_strv_free(r->icol_value, r->icol_value ? r->n : 0);
	for (size_t i = 0; r->seen && i < r->n; i++)
		free(r->seen[i].sums);
	free(r->seen);
	for (size_t i = 0; i < r->nfk; i++) {
		free(r->fk[i].name);
		free(r->fk[i].child);
		free(r->fk[i].sql_count);
	}
	free(r->fk);
	free(r->large_cols);
	rk_buf_free(&r->copy.out);
}

/* An interval whose end is after now - settle may still receive rows: its
 * repair would be out of date at once (docs/reference.md closed windows). */
static int rk_repair_refuse_open(const rk_repair_spec *spec, const rk_repair_interval *iv, size_t n, rk_error *err)
{
	rk_usec closed = spec->check.now - spec->check.settle;
	size_t open = 0, first = 0;
	rk_buf b = RK_BUF_INIT;
	char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN], d[RK_TIME_STRLEN];

	for (size_t i = 0; i < n; i++)
		if (iv[i].end > closed && open++ == 0)
			first = i;
	if (!open)
		return 0;
	if (spec->allow_open) {
		rk_log_warn("%zu interval%s of the list %s open (end after %s): repairing as --allow-open says", open,
		            open == 1 ? "" : "s", open == 1 ? "is" : "are", rk_time_format(closed, a));
		return 0;
	}
	rk_repair_put_interval(&b, iv[first].start, iv[first].end);
	rk_error_set(err, RK_EXIT_USAGE, "%zu interval%s of the list %s open: %s ends after %s (now %s minus --settle "
	                                 "%s); nothing was changed",
	             open, open == 1 ? "" : "s", open == 1 ? "is" : "are", rk_buf_cstr(&b),
	             rk_time_format(closed, a), rk_time_format(spec->check.now, z),
	             rk_duration_format(spec->check.settle, d));
	rk_buf_free(&b);
	return rk_error_hint(err, "an open window may still receive rows; repair it once it is closed, or add "
	                          "--allow-open to repair it now");
}

/* Rewrites err as "repaired D of N intervals: [..), [..); interval [..) was
 * not changed: <cause>", keeping the cause's code, SQLSTATE and hint.
 * failed == n: the run stopped before any interval. */
static void rk_repair_explain(const rk_repair_spec *spec, const rk_repair_interval *iv, size_t n, size_t failed,
                              rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	size_t done = 0, others = 0, listed = 0, later = 0;
	char hint[sizeof err->hint];
	char cause[sizeof err->msg];
	int code = err->code ? err->code : RK_EXIT_RUNTIME;

	memcpy(hint, err->hint, sizeof hint);
	memcpy(cause, err->msg, sizeof cause);
	for (size_t i = 0; i < n; i++) {
		if (rk_repair_state_done(iv[i].state)) {
			done++;
			if (i != failed)
				others++;
		}
		if (i > failed && iv[i].state == RK_REPAIR_PENDING)
			later++;
	}
	if (failed == n) {
		rk_buf_puts(&b, "nothing was changed");
	} else if (!spec->execute) {
		rk_buf_puts(&b, "dry run of interval ");
		rk_repair_put_interval(&b, iv[failed].start, iv[failed].end);
		rk_buf_puts(&b, " failed; nothing was changed");
	} else {
		rk_buf_printf(&b, "repaired %zu of %zu interval%s", done, n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n && listed < others; i++) {
			if (!rk_repair_state_done(iv[i].state) || i == failed)
				continue;
			if (listed == RK_REPAIR_LIST_MAX) {
				rk_buf_printf(&b, ", and %zu more", others - listed);
				break;
			}
			rk_buf_puts(&b, listed ? ", " : ": ");
			rk_repair_put_interval(&b, iv[i].start, iv[i].end);
			listed++;
		}
		rk_buf_puts(&b, "; interval ");
		rk_repair_put_interval(&b, iv[failed].start, iv[failed].end);
		switch (iv[failed].state) {
		case RK_REPAIR_UNKNOWN:
			rk_buf_puts(&b, " may or may not have been replaced (the connection was lost during its commit)");
			break;
		case RK_REPAIR_COMMITTED:
			rk_buf_puts(&b, " was replaced but could not be checked again");
			break;
		default:
			rk_buf_puts(&b, " was not changed");
			break;
		}
		if (later)
			rk_buf_printf(&b, "; %zu later interval%s not started", later, later == 1 ? " was" : "s were");
	}
	rk_buf_printf(&b, ": %s", cause);
	rk_error_set(err, code, "%s", rk_buf_cstr(&b));
	if (spec->execute && failed < n)
		rk_error_hint(err, "%s%srepair is idempotent: run the same command again to finish", hint,
		              hint[0] ? "; " : "");
	else if (hint[0])
		rk_error_hint(err, "%s", hint);
	rk_buf_free(&b);
}

/* Checks every interval first; those that match are left alone.  Row by
 * row, takes the others' finding keys; with --replace-interval, stages the
 * others and refuses what must be refused. */
static int rk_repair_prepare(rk_repair *r, rk_error *err)
{
	bool rows = !r->spec->replace_interval;

	/* the staging table is made first: referring to the target, it waits
	 * (under the guard) for whoever holds the table exclusively, before a
	 * check's reader would wait where no one can name the blocker */
	if (!rows) {
		if (rk_guard_busy(r->tgt, err) < 0)
			return -1;
		if (rk_repair_cmd(r, "create staging table", r->sql_stage_create, err) < 0 ||
		    (!r->spec->execute && rk_repair_cmd(r, "create plan table", rk_sql_repair_gone_create, err) < 0)) {
			rk_guard_idle(r->tgt);
			return -1;
		}
		rk_guard_idle(r->tgt);
	} else {
		/* row by row it lives in a transaction: made and rolled back */
		if (rk_repair_begin(r, "begin the first transaction", rk_sql_repair_plan_begin, err) < 0)
			return -1;
		if (rk_repair_row_settings(r, err) < 0 ||
		    rk_repair_cmd(r, "create staging table", r->sql_row_stage, err) < 0) {
			rk_repair_rollback(r);
			return -1;
		}
		rk_repair_rollback(r);
		r->want = rk_xcalloc(r->n + 1, sizeof *r->want);
		r->seen = rk_xcalloc(r->n + 1, sizeof *r->seen);
	}
	r->todo = rk_xcalloc(r->n + 1, sizeof *r->todo);
	for (size_t i = 0; i < r->n; i++) {
		rk_repair_interval *v = &r->iv[i];
		rk_check_result *res = NULL;
		bool match;

		if (rk_guard_check(err) < 0 ||
		    rk_repair_check_window2(r, v->start, v->end, &match, &v->after_source_rows, &v->after_target_rows,
		                            rows ? &res : NULL, NULL, err) < 0)
			return -1;
		if (match) {
			rk_check_result_free(res);
			v->state = RK_REPAIR_ALREADY;
			continue;
		}
		if (rows) {
			int rc;

			v->source_rows = v->after_source_rows;
			rk_repair_keep_seen(r, i, res);
			rc = rk_repair_want(r, i, res, err);
			rk_check_result_free(res);
			if (rc < 0)
				return -1;
		}
		v->after_source_rows = v->after_target_rows = 0;
		r->todo[r->ntodo++] = i;
	}
	if (!r->ntodo)
		return 0;
	if (r->interval_col >= 0 && !r->spec->load_interval) {
		/* the values are read before any change removes them */
		r->icol_value = rk_xcalloc(r->n + 1, sizeof *r->icol_value);
		for (size_t k = 0; k < r->ntodo; k++)
			if (rk_repair_icol_probe(r, r->todo[k], err) < 0)
				return -1;
	} else if (r->interval_col >= 0 && r->spec->check.tz) {
		r->icol_value = rk_xcalloc(r->n + 1, sizeof *r->icol_value);
		for (size_t k = 0; k < r->ntodo; k++)
			if (rk_repair_icol_bounds(r, r->todo[k], err) < 0)
				return -1;
	}
	if (rows)
		return 0;
	if (rk_guard_busy(r->tgt, err) < 0)
		return -1;
	if (rk_repair_stage(r, err) < 0 || rk_repair_survey(r, err) < 0) {
		rk_guard_idle(r->tgt);
		return -1;
	}
	rk_guard_idle(r->tgt);
	/* the source's snapshot is no longer needed: do not hold it while the
	 * target is written */
	rk_reader_free(r->src);
	r->src = NULL;
	return 0;
}

int rk_repair_run(const rk_repair_spec *spec, rk_repair_interval *iv, size_t n, rk_repair_result *res,
                  rk_error *err)
{
	rk_repair r;
	int rc = 0, opened;

	if (!spec->check.time)
		return rk_repair_keys_run(spec, iv, n, res, err);
	memset(res, 0, sizeof *res);
	memset(&r, 0, sizeof r);
	r.spec = spec;
	r.iv = iv;
	r.n = n;
	rk_repair_reset_intervals(iv, n);
	if (rk_repair_refuse_open(spec, iv, n, err) < 0)
		return -1;
	if (rk_target_is_delta(spec->check.target.conn)) {
		size_t failed = n;

		/* a Delta target: one commit per interval (repair_delta.h) */
		rc = rk_repair_delta_run(spec, iv, n, res, &failed, err);
		if (rc < 0 && failed < n) {
			if (rk_guard_signal())
				rk_guard_check(err);
			rk_repair_explain(spec, iv, n, failed, err);
		}
		return rc;
	}
	opened = rk_repair_open(&r, err);
	if (opened == 0 && r.reset_columns)
		res->reset_columns = rk_xstrdup(r.reset_columns);
	if (opened < 0 || rk_repair_prepare(&r, err) < 0) {
		if (rk_guard_signal())
			rk_guard_check(err);
		if (rk_guard_is_interrupt(err) || rk_guard_is_lock_timeout(err) || r.todo)
			rk_repair_explain(spec, iv, n, n, err);
		rk_repair_close(&r);
		return -1;
	}
	for (size_t k = 0; k < r.ntodo; k++) {
		size_t i = r.todo[k];
		rk_buf b = RK_BUF_INIT;

		rk_repair_put_interval(&b, iv[i].start, iv[i].end);
		rk_log_info("%s interval %s of %s", spec->execute ? "repairing" : "planning", rk_buf_cstr(&b),
		            r.dest.display);
		rk_buf_free(&b);
		if (spec->execute ? (spec->replace_interval ? rk_repair_execute(&r, i, res, err)
		                                            : rk_repair_row_execute(&r, i, res, err)) < 0 ||
		                            rk_repair_verify(&r, i, res, err) < 0
		                  : (spec->replace_interval ? rk_repair_plan(&r, i, res, err)
		                                            : rk_repair_row_plan(&r, i, res, err)) < 0) {
			if (rk_guard_signal())
				rk_guard_check(err);
			rk_repair_explain(spec, iv, n, i, err);
			rc = -1;
			break;
		}
	}
	rk_repair_close(&r);
	return rc;
}
