/*
 * repair_check.c - the checks of a repair (repair_impl.h): each interval
 * checked first, as `reckon check` checks one window, for the keys a
 * row-level repair writes; and again after its change.
 */
#include "repair/repair_impl.h"

/* The checks' two readers, in rd.  The target's is opened by the first
 * check and kept: it reads a snapshot of its own in each check (it is let
 * go after each one, rk_reader_renew), as a reader opened for the check
 * would, without connecting again.  Row by row the source's is the staging
 * reader, in the run's one source snapshot throughout (a check binds it to
 * its columns: r->src_rebound); with --replace-interval each check opens
 * its own (no source session stays while the target is written). */
int rk_repair_check_readers(rk_repair *r, rk_reader *rd[2], rk_error *err)
{
	if (!r->ck[1] && !(r->ck[1] = rk_reader_open(&r->spec->check.target, err)))
		return -1;
	if (!r->spec->replace_interval) {
		rd[0] = r->src;
		r->src_rebound = true;
	} else if (!r->ck[0] && !(r->ck[0] = rk_reader_open(&r->spec->check.source, err))) {
		return -1;
	} else {
		rd[0] = r->ck[0];
	}
	rd[1] = r->ck[1];
	return 0;
}

/* Checks [start, end) as `reckon check` would (rk_repair_check_readers):
 * *match, and the counts; with keep, the key-level findings too, and the
 * result is kept there; with known, the source's digest of the interval is
 * that, and only the target is read. */
int rk_repair_check_window2(rk_repair *r, rk_usec start, rk_usec end, bool *match, uint64_t *srows,
                            uint64_t *trows, rk_check_result **keep, const rk_check_known *known,
                            rk_error *err)
{
	rk_check_spec cs = r->spec->check;
	rk_check_result *res = NULL;
	rk_reader *rd[2] = { NULL, NULL };
	int rc;

	if (rk_repair_check_readers(r, rd, err) < 0)
		return -1;
	cs.readers = rd;
	cs.source_known = known;
	cs.key = (const char *const *)r->key;
	cs.nkey = r->nkey;
	cs.from = start;
	cs.to = end;
	cs.width = end - start;
	cs.settle = 0;
	cs.now = end;
	cs.findings = keep != NULL;
	cs.diagnose = false;
	cs.watermark_query = NULL;
	rc = rk_check_run(&cs, &res, err);
	/* the target's snapshot and locks end with the check */
	if (rc == 0)
		rc = rk_reader_renew(r->ck[1], err);
	if (r->spec->replace_interval) {
		rk_reader_free(r->ck[0]);
		r->ck[0] = NULL;
	}
	if (rc < 0) {
		rk_check_result_free(res);
		if (rk_guard_is_lock_timeout(err)) {
			char what[600];

			snprintf(what, sizeof what, "the pair's tables (checking %s)", r->dest.display);
			rk_guard_explain_lock(NULL, what, err);
		}
		return -1;
	}
	*srows = res->side[0].rows[0];
	*trows = res->side[1].rows[0];
	/* the window's own verdict: NULL-time rows elsewhere in the table make
	 * the run's verdict differ but are no business of this interval */
	*match = res->status[0] == RK_WIN_MATCH;
	if (keep)
		*keep = res;
	else
		rk_check_result_free(res);
	return 0;
}

static int rk_repair_check_window(rk_repair *r, rk_usec start, rk_usec end, bool *match, uint64_t *srows,
                                  uint64_t *trows, rk_error *err)
{
	return rk_repair_check_window2(r, start, end, match, srows, trows, NULL, NULL, err);
}

/* Row by row: keeps the source's digest of interval i from its check. */
void rk_repair_keep_seen(rk_repair *r, size_t i, const rk_check_result *res)
{
	rk_repair_seen *v = &r->seen[i];
	size_t nsum = r->spec->check.nsum;

	v->rows = res->side[0].rows[0];
	v->hash = res->side[0].hash[0];
	v->null_time = res->side[0].null_time;
	v->sums = rk_xcalloc(nsum ? nsum : 1, sizeof *v->sums);
	if (nsum)
		memcpy(v->sums, res->side[0].sums, nsum * sizeof *v->sums);
}

/* Takes interval i's finding keys from its check: the keys a row-level
 * repair may write.  A key the source holds twice in the interval is
 * refused (which copy would the target hold?); a key with a NULL part is
 * left out (it matches no row by "="). */
int rk_repair_want(rk_repair *r, size_t i, const rk_check_result *res, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc;

	rk_repair_put_interval(&b, r->iv[i].start, r->iv[i].end);
	rc = rk_repair_take_key_lines(res, r->key, r->nkey, " within an interval", rk_buf_cstr(&b),
	                              "; --replace-interval replaces the whole interval", &r->want[i], err);
	rk_buf_free(&b);
	return rc;
}

/* --interval-column without --load-interval: the value the target's rows
 * of interval i record, or a refusal when they record none or several. */
int rk_repair_icol_probe(rk_repair *r, size_t i, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN];
	const char *bounds[2] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb) };
	uint64_t distinct = 0;
	char *value = NULL;
	rk_buf b = RK_BUF_INIT;

	if (rk_repair_count(r, "read the interval column", r->sql_icol_probe, 2, bounds, &distinct, &value, err) < 0)
		return -1;
	if (distinct == 1) {
		r->icol_value[i] = value;
		return 0;
	}
	free(value);
	rk_repair_put_interval(&b, v->start, v->end);
	rk_error_set(err, RK_EXIT_USAGE, "--interval-column %s: cannot tell the load's interval for %s: the target's "
	                                 "rows of it record %s; nothing was changed",
	             r->spec->interval_column, rk_buf_cstr(&b),
	             distinct ? "several different values" : "none");
	rk_buf_free(&b);
	return rk_error_hint(err, "give --load-interval DUR, the width of the load's intervals: a row then records the "
	                          "start of the DUR-wide interval holding its time");
}

/* Checks the replaced interval again, then the windows its delete by key
 * reached. */
int rk_repair_verify(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	bool match;
	rk_check_known known = { 1, NULL, NULL, NULL, 0 };

	if (r->seen) {
		/* row by row: the whole interval of the target read again, against
		 * the source's digest of it in the run's snapshot, which its check
		 * before the change computed (and the staged rows come from) */
		known.rows = &r->seen[i].rows;
		known.hash = &r->seen[i].hash;
		known.sums = r->seen[i].sums;
		known.null_time = r->seen[i].null_time;
	}
	if (rk_repair_check_window2(r, v->start, v->end, &match, &v->after_source_rows, &v->after_target_rows, NULL,
	                            r->seen ? &known : NULL, err) < 0)
		return -1;
	v->state = match ? RK_REPAIR_MATCH : RK_REPAIR_DIFFER;
	for (size_t j = 0; j < out->ntouched; j++) {
		rk_repair_touched *t = &out->touched[j];

		if (t->interval != i || t->state != RK_REPAIR_COMMITTED)
			continue;
		if (rk_repair_check_window(r, t->start, t->end, &match, &t->after_source_rows, &t->after_target_rows,
		                           err) < 0)
			return -1;
		t->state = match ? RK_REPAIR_MATCH : RK_REPAIR_DIFFER;
	}
	return 0;
}
