/*
 * repair_keys.c - reckon repair of a rerun list of key segments, the list
 * a check without --time writes (docs/key-segments.md, docs/repair.md).
 *
 * A segment [lo, hi) of the first key column is repaired as repair.c
 * repairs a time interval row by row, the key range taking the time
 * range's place: each segment checked first (one that matches is left
 * alone), then in one target transaction the repair's write lock, the
 * segment's finding keys and source rows staged in temporary tables, the
 * pair's rows of those keys read through --target-where (the only
 * statement holding the user's text), the extra rows and surplus copies
 * deleted, the changed rows updated in place, the missing ones inserted,
 * every written row checked against --target-where, commit; then the
 * segment checked again.  --replace-interval replaces every pair row of
 * the segment instead.  A key places a row in its segment, so no row moves
 * between segments: there is no delete by key outside the segment and no
 * other window to check again.
 *
 * The bounds are bound parameters ($1, $2; NULL an open end) of a range
 * condition on the key column that every write applies itself: integers
 * and uuids compared as their type, texts as their UTF-8 bytes (as COLLATE
 * "C" orders them, and as the check's readers read them).  Nothing is
 * kept in the session between transactions (a transaction pooler may hand
 * each to another server session).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/side.h"
#include "core/log.h"
#include "core/text.h"
#include "io/copytext.h"
#include "load/guard.h"
#include "repair/repair_keys_impl.h"
#include "rk_sql.h"

static void rk_krep_close(rk_krep *r)
{
	char **sql[] = { &r->sql_stage, &r->sql_want, &r->sql_pair, &r->sql_pair_range,
		         &r->sql_diff, &r->sql_add, &r->sql_replace, &r->sql_delete,
		         &r->sql_update, &r->sql_insert, &r->sql_verify, &r->sql_probe_create,
		         &r->sql_probe_alter, &r->sql_probe_insert, &r->sql_probe_check, &r->param[0],
		         &r->param[1] };

	rk_repair_strv_free(r->key, r->nkey);
	rk_reader_free(r->src);
	rk_guard_release(r->tgt);
	rk_pg_close(r->tgt);
	rk_dest_free(&r->dest);
	rk_wmap_free(&r->map);
	free(r->large_cols);
	for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++)
		free(*sql[i]);
	for (size_t i = 0; r->want && i < r->n; i++)
		rk_repair_strv_free(r->want[i], r->nwant[i] * r->nkey);
	free(r->want);
	free(r->nwant);
	for (size_t i = 0; i < r->nfk; i++) {
		free(r->fk[i].name);
		free(r->fk[i].child);
		free(r->fk[i].sql_count);
	}
	free(r->fk);
	rk_buf_free(&r->copy.out);
}

/* ------------------------------------------------------------------------
 * statements of the target, under the guard
 * ---------------------------------------------------------------------- */

/* Fills in what the guard knows when a statement failed on a lock wait or
 * was canceled by a signal. */
static int rk_krep_fail(rk_krep *r, rk_error *err)
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

static int rk_krep_cmd(rk_krep *r, const char *label, const char *sql, rk_error *err)
{
	if (rk_pg_command(r->tgt, label, sql, err) < 0)
		return rk_krep_fail(r, err);
	return 0;
}

/* Runs a statement returning one count, bound to the segment's bounds when
 * bounds is set; out2 (when given) receives its second value, or NULL. */
static int rk_krep_count(rk_krep *r, const char *label, const char *sql, bool bounds, uint64_t *out, char **out2,
                         rk_error *err)
{
	rk_pg_result *res;

	if (rk_pg_exec(r->tgt, label, sql, bounds ? 2 : 0, bounds ? (const char *const *)r->param : NULL,
	               RK_PG_ONE_ROW, &res, err) < 0)
		return rk_krep_fail(r, err);
	return rk_repair_count_of(res, label, out, out2, err);
}

static int rk_krep_refuse_options(const rk_repair_spec *spec, rk_error *err)
{
	const char *opt = spec->interval_column ? "--interval-column"
	                  : spec->load_interval ? "--load-interval"
	                  : spec->check.tz      ? "--timezone"
	                                        : NULL;

	if (!opt)
		return 0;
	rk_error_set(err, RK_EXIT_USAGE, "option %s is about time, and a rerun list of key segments has none; nothing "
	                                 "was changed",
	             opt);
	return rk_error_hint(err, "leave %s out to repair key segments", opt);
}

/* Reads the foreign keys that reference the target, each with the count
 * of the referencing rows of the rows a segment's repair deletes. */
/* ------------------------------------------------------------------------
 * the checks of a segment, and its finding keys
 * ---------------------------------------------------------------------- */

/* Checks segment i as `reckon check` would: *match, the counts; with keep,
 * the key-level findings too, the result kept there; the segment's
 * keyspace and points noted for its repair. */
static int rk_krep_check(rk_krep *r, size_t i, bool *match, uint64_t *srows, uint64_t *trows, rk_check_result **keep,
                         rk_error *err)
{
	rk_check_spec cs = r->spec->check;
	rk_check_result *res = NULL;

	cs.key = (const char *const *)r->key;
	cs.nkey = r->nkey;
	cs.time = NULL;
	cs.key_range = true;
	cs.key_from = r->iv[i].key_start;
	cs.key_to = r->iv[i].key_end;
	cs.settle = 0;
	cs.findings = keep != NULL;
	cs.diagnose = false;
	cs.watermark_query = NULL;
	if (rk_check_run(&cs, &res, err) < 0) {
		if (rk_guard_is_lock_timeout(err)) {
			char what[600];

			snprintf(what, sizeof what, "the pair's tables (checking %s)", r->dest.display);
			rk_guard_explain_lock(NULL, what, err);
		}
		return -1;
	}
	*srows = res->side[0].rows[0];
	*trows = res->side[1].rows[0];
	*match = res->status[0] == RK_WIN_MATCH;
	if (keep)
		*keep = res;
	else
		rk_check_result_free(res);
	return 0;
}

/* Takes segment i's finding keys from its check: the keys a row-level
 * repair may write.  A key the source holds twice is refused (which copy
 * would the target hold?); a key with a NULL part is left out (it matches
 * no row by "="). */
static int rk_krep_want(rk_krep *r, size_t i, const rk_check_result *res, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc;

	rk_buf_puts(&b, "segment ");
	rk_repair_put_segment(&b, &r->iv[i]);
	rc = rk_repair_take_keys(res, r->key, r->nkey, "", rk_buf_cstr(&b), "", &r->want[i], &r->nwant[i], err);
	rk_buf_free(&b);
	return rc;
}

/* Checks every segment first; those that match are left alone, the others'
 * finding keys are taken (every refusal comes before the first change). */
static int rk_krep_prepare(rk_krep *r, rk_error *err)
{
	r->want = rk_xcalloc(r->n + 1, sizeof *r->want);
	r->nwant = rk_xcalloc(r->n + 1, sizeof *r->nwant);
	for (size_t i = 0; i < r->n; i++) {
		rk_repair_interval *v = &r->iv[i];
		rk_check_result *res = NULL;
		bool match;
		int rc;

		if (rk_guard_check(err) < 0 ||
		    rk_krep_check(r, i, &match, &v->after_source_rows, &v->after_target_rows, &res, err) < 0)
			return -1;
		if (match) {
			rk_check_result_free(res);
			v->state = RK_REPAIR_ALREADY;
			continue;
		}
		v->source_rows = v->after_source_rows;
		v->after_source_rows = v->after_target_rows = 0;
		rc = rk_krep_want(r, i, res, err);
		rk_check_result_free(res);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * one segment's transaction
 * ---------------------------------------------------------------------- */

/* A source row, staged when its key lies in the segment (a CSV reader
 * delivers every row; this filters). */
static int rk_krep_row(void *ctx, const rk_field *fields, rk_error *err)
{
	rk_krep *r = ctx;
	const rk_field *kf = &fields[r->map.time];
	const char *why = NULL;
	int64_t m;

	if (rk_guard_check(err) < 0)
		return -1;
	if (kf->null)
		return 0;
	if (rk_keyspace_point(&r->ks, kf, &m, &why) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "key value '%.*s' is %s", (int)(kf->len > 64 ? 64 : kf->len), kf->p,
		             why ? why : "not a key");
		err->field = (int)r->map.time;
		return -1;
	}
	if ((r->mlo != INT64_MIN && m < r->mlo) || (r->mhi != INT64_MAX && m >= r->mhi))
		return 0;
	if (rk_repair_put_fields(&r->copy, r->src, &r->map, fields, err) < 0)
		return -1;
	r->rows++;
	return rk_copy_stream_row_end(&r->copy, err);
}

/* The source's rows of the segment (row by row: of its finding keys only,
 * a hint a PostgreSQL source applies) into reckon_repair_rows. */
static int rk_krep_scan(rk_krep *r, size_t i, rk_error *err)
{
	rk_range range = { r->mlo, r->mhi };
	rk_scan scan;

	memset(&scan, 0, sizeof scan);
	scan.time_index = r->map.time;
	scan.ranges = &range;
	scan.nranges = 1;
	/* large text values arrive after the COPY, streamed (rk_repair_put_field) */
	scan.large_bound = rk_large_value_bound();
	scan.large_cols = r->large_cols;
	if (!r->spec->replace_interval) {
		scan.key_index = r->map.key;
		scan.nkey = r->map.nkey;
		scan.key_text = (const char *const *)r->want[i];
		scan.nkeys = r->nwant[i];
	}
	rk_reader_keyspace(r->src, r->map.time, &r->ks);
	r->rows = 0;
	rk_copy_stream_start(&r->copy, r->tgt);
	if (rk_pg_copy_in_begin(r->tgt, "stage rows", rk_sql_repair_row_stage_copy, err) < 0)
		return rk_krep_fail(r, err);
	if (rk_reader_scan(r->src, &scan, rk_krep_row, r, err) < 0 || rk_copy_stream_flush(&r->copy, err) < 0) {
		if (r->copy.failed)
			*err = r->copy.err;
		rk_pg_copy_in_abort(r->tgt, "the source read failed");
		return -1;
	}
	if (rk_pg_copy_in_end(r->tgt, err) < 0) {
		/* a value the target's column type refuses is bad input */
		if (err->sqlstate[0] == '2' && err->sqlstate[1] == '2')
			err->code = RK_EXIT_USAGE;
		return rk_krep_fail(r, err);
	}
	return 0;
}

/* Segment i's points and its bounds as bound parameters: integers and
 * uuids as their text, a text key as the bytea of its UTF-8 bytes. */
static void rk_krep_bounds(rk_krep *r, size_t i)
{
	const char *x[2] = { r->iv[i].key_start, r->iv[i].key_end };
	const char *why = NULL;

	r->ks = r->kind;
	/* rk_krep_list has fitted every segment: this cannot fail */
	(void)rk_keyspace_fit(&r->ks, x[0], x[1], &r->mlo, &r->mhi, &why);
	for (int e = 0; e < 2; e++) {
		rk_buf b = RK_BUF_INIT;

		free(r->param[e]);
		r->param[e] = NULL;
		if (!x[e])
			continue;
		if (r->kind.kind == RK_KS_TEXT) {
			rk_buf_puts(&b, "\\x");
			for (const unsigned char *p = (const unsigned char *)x[e]; *p; p++)
				rk_buf_printf(&b, "%02x", *p);
		} else {
			rk_buf_puts(&b, x[e]);
		}
		r->param[e] = rk_xstrdup(rk_buf_cstr(&b));
		rk_buf_free(&b);
	}
}

/* The temporary tables of the segment's transaction, its finding keys
 * (row by row) and its source rows staged. */
static int rk_krep_stage(rk_krep *r, size_t i, rk_error *err)
{
	int rc = -1;

	if (rk_krep_cmd(r, "create staging table", r->sql_stage, err) < 0 ||
	    rk_krep_cmd(r, "create key table", r->sql_want, err) < 0 ||
	    rk_krep_cmd(r, "create pair table", rk_sql_repair_row_pair_create, err) < 0 ||
	    rk_krep_cmd(r, "create plan table", rk_sql_repair_row_diff_create, err) < 0 ||
	    rk_krep_cmd(r, "create written table", rk_sql_repair_row_written_create, err) < 0)
		goto done;
	if (!r->spec->replace_interval) {
		if (rk_repair_copy_keys(r->tgt, r->want[i], r->nwant[i], r->nkey, err) < 0) {
			rk_krep_fail(r, err);
			goto done;
		}
	}
	if (rk_krep_scan(r, i, err) < 0)
		goto done;
	if (!r->spec->execute && r->sql_probe_create &&
	    (rk_krep_cmd(r, "create probe table", r->sql_probe_create, err) < 0 ||
	     (r->sql_probe_alter && rk_krep_cmd(r, "shape probe table", r->sql_probe_alter, err) < 0)))
		goto done;
	if (!r->spec->execute && rk_krep_cmd(r, "make the plan read-only", rk_sql_repair_plan_read_only, err) < 0)
		goto done;
	rc = 0;
done:
	return rc;
}

/* Works out what the segment's repair writes (reckon_repair_diff) and
 * counts it into the segment. */
static int rk_krep_diff(rk_krep *r, size_t i, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	const char *const *bounds = (const char *const *)r->param;
	rk_pg_result *res = NULL;
	uint64_t n[4];

	if (r->spec->replace_interval) {
		if (rk_pg_exec(r->tgt, "select the segment's rows", r->sql_pair_range, 2, bounds, RK_PG_COMMAND, NULL,
		               err) < 0 ||
		    rk_pg_exec(r->tgt, "plan the replacement", r->sql_replace, 0, NULL, RK_PG_COMMAND, NULL, err) < 0)
			return rk_krep_fail(r, err);
	} else if (rk_pg_exec(r->tgt, "select the pair's rows", r->sql_pair, 0, NULL, RK_PG_COMMAND, NULL, err) < 0 ||
	           rk_pg_exec(r->tgt, "compare the segment's rows", r->sql_diff, 2, bounds, RK_PG_COMMAND, NULL, err) < 0 ||
	           rk_pg_exec(r->tgt, "find missing rows", r->sql_add, 0, NULL, RK_PG_COMMAND, NULL, err) < 0) {
		return rk_krep_fail(r, err);
	}
	if (rk_pg_exec(r->tgt, "count the plan", rk_sql_repair_row_counts, 0, NULL, RK_PG_ONE_ROW, &res, err) < 0)
		return rk_krep_fail(r, err);
	for (int c = 0; c < 4; c++) {
		const char *x = rk_pg_result_value(res, 0, c);

		n[c] = x ? strtoull(x, NULL, 10) : 0;
	}
	rk_pg_result_free(res);
	v->inserted = n[0];
	v->updated = n[1];
	v->deleted_by_time = n[2];
	return 0;
}

/* Refuses, in the segment's transaction before its writes (the dry run:
 * in its plan), deleting rows that other rows reference: the delete would
 * fail (NO ACTION, RESTRICT) or reach them (CASCADE, SET NULL, SET
 * DEFAULT; allowed with --allow-cascade). */
static int rk_krep_refuse_fk(rk_krep *r, size_t i, rk_error *err)
{
	const rk_repair_interval *v = &r->iv[i];

	for (size_t f = 0; v->deleted_by_time && f < r->nfk; f++) {
		bool cascades = r->fk[f].action == 'c' || r->fk[f].action == 'n' || r->fk[f].action == 'd';
		rk_buf b = RK_BUF_INIT;
		uint64_t n = 0;

		if (rk_krep_count(r, "count referencing rows", r->fk[f].sql_count, false, &n, NULL, err) < 0)
			return -1;
		if (!n || (cascades && r->spec->allow_cascade))
			continue;
		rk_repair_put_segment(&b, v);
		rk_error_set(err, RK_EXIT_USAGE, "repairing segment %s deletes %llu target row%s that %llu row%s of %s "
		                                 "reference%s through foreign key %s (%s); nothing was changed in it",
		             rk_buf_cstr(&b), (unsigned long long)v->deleted_by_time, v->deleted_by_time == 1 ? "" : "s",
		             (unsigned long long)n, n == 1 ? "" : "s", r->fk[f].child, n == 1 ? "s" : "", r->fk[f].name,
		             rk_repair_fk_action(r->fk[f].action));
		rk_buf_free(&b);
		return rk_error_hint(err, "%s", cascades ? "add --allow-cascade if the referencing rows may go" : "delete or re-point the referencing rows first, or repair that "
		                                                                                                  "segment by hand");
	}
	return 0;
}

/* The dry run, a --target-where testing a target column no source column
 * fills: the rows it would insert go into the probe (each takes the
 * defaults the target would give it), refused when the filter does not
 * select one.  --execute checks the rows it wrote instead. */
static int rk_krep_refuse_unfilled(rk_krep *r, size_t i, rk_error *err)
{
	rk_buf b = RK_BUF_INIT, cols = RK_BUF_INIT;
	uint64_t bad = 0;
	size_t ncols;
	rk_error scratch;

	if (!r->sql_probe_check || !r->iv[i].inserted)
		return 0;
	rk_error_clear(&scratch);
	if (rk_krep_cmd(r, "probe savepoint", rk_sql_repair_row_probe_savepoint, err) < 0)
		return -1;
	if (rk_pg_exec(r->tgt, "probe the inserted rows", r->sql_probe_insert, 0, NULL, RK_PG_COMMAND, NULL, &scratch) < 0 ||
	    rk_krep_count(r, "check the probed rows", r->sql_probe_check, false, &bad, NULL, &scratch) < 0) {
		rk_log_info("the dry run could not try --target-where on the rows it would insert: %s", scratch.msg);
		bad = 0;
	}
	if (rk_krep_cmd(r, "end the probe", rk_sql_repair_row_probe_rollback, err) < 0)
		return -1;
	if (!bad)
		return 0;
	ncols = rk_repair_unfilled(r->spec->check.target.where, &r->dest, &r->map, -1, &cols);
	rk_repair_put_segment(&b, &r->iv[i]);
	rk_error_set(err, RK_EXIT_USAGE, "--target-where %s tests %s %s, which no source column fills: %llu of the %llu "
	                                 "row%s repair would insert into segment %s would take %s default and not be "
	                                 "selected by it",
	             r->spec->check.target.where, ncols == 1 ? "the target column" : "the target columns",
	             rk_buf_cstr(&cols), (unsigned long long)bad, (unsigned long long)r->iv[i].inserted,
	             r->iv[i].inserted == 1 ? "" : "s", rk_buf_cstr(&b), ncols == 1 ? "its" : "their");
	rk_error_hint(err, "map %s with --source-expr %s=SQL (the value the load writes)", ncols == 1 ? "it" : "them",
	              ncols == 1 ? rk_buf_cstr(&cols) : "COL");
	rk_buf_free(&b);
	rk_buf_free(&cols);
	return -1;
}

/* Every row the repair inserted or updated is a row of the pair: else the
 * segment is rolled back. */
static int rk_krep_verify_written(rk_krep *r, size_t i, rk_error *err)
{
	uint64_t bad = 0;
	rk_buf b = RK_BUF_INIT, cols = RK_BUF_INIT;
	size_t ncols;

	if (!r->spec->check.target.where)
		return 0;
	if (rk_krep_count(r, "check the written rows", r->sql_verify, false, &bad, NULL, err) < 0)
		return -1;
	if (!bad)
		return 0;
	rk_repair_put_segment(&b, &r->iv[i]);
	ncols = rk_repair_unfilled(r->spec->check.target.where, &r->dest, &r->map, -1, &cols);
	rk_error_set(err, RK_EXIT_USAGE, "%llu row%s repair wrote into segment %s %s not selected by --target-where %s: "
	                                 "the segment was rolled back",
	             (unsigned long long)bad, bad == 1 ? "" : "s", rk_buf_cstr(&b), bad == 1 ? "is" : "are",
	             r->spec->check.target.where);
	if (ncols)
		rk_error_hint(err, "no source column fills %s, so written rows take a default; map it with --source-expr "
		                   "COL=SQL",
		              rk_buf_cstr(&cols));
	else
		rk_error_hint(err, "the source's rows of the pair must satisfy --target-where once written: map the "
		                   "columns it tests with --source-expr COL=SQL");
	rk_buf_free(&b);
	rk_buf_free(&cols);
	return -1;
}

static void rk_krep_rollback(rk_krep *r)
{
	rk_error scratch;

	rk_guard_idle(r->tgt);
	rk_error_clear(&scratch);
	if (rk_pg_command(r->tgt, "roll back", rk_sql_repair_rollback, &scratch) < 0)
		rk_log_debug("rollback after a failed segment: %s", scratch.msg);
}

/* Takes the target's write lock (rk_dest_lock), which loads take too. */
static int rk_krep_lock(rk_krep *r, rk_error *err)
{
	if (rk_dest_lock(&r->dest, "repair", err) < 0)
		return rk_krep_fail(r, err);
	return 0;
}

/* The transaction's own settings (nothing is kept in the session). */
static int rk_krep_settings(rk_krep *r, rk_error *err)
{
	char ms[32];
	const char *params[1] = { rk_guard_lock_timeout_text(ms) };

	if (rk_pg_exec(r->tgt, "transaction settings", rk_sql_repair_row_settings, 1, params, RK_PG_ONE_ROW, NULL, err) <
	    0)
		return rk_krep_fail(r, err);
	return 0;
}

/* Segment i repaired (or, in a dry run, planned) in one transaction;
 * v->state says how it ended. */
static int rk_krep_segment(rk_krep *r, size_t i, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	bool execute = r->spec->execute;
	uint64_t deleted = 0, updated = 0, inserted = 0;

	v->state = RK_REPAIR_FAILED;
	rk_krep_bounds(r, i);
	if (rk_guard_busy(r->tgt, err) < 0)
		return -1;
	if (rk_krep_cmd(r, "begin repair", execute ? rk_sql_repair_begin : rk_sql_repair_plan_begin, err) < 0) {
		rk_guard_idle(r->tgt);
		return -1;
	}
	if (rk_krep_settings(r, err) < 0 || (execute && rk_krep_lock(r, err) < 0) || rk_krep_stage(r, i, err) < 0 || rk_krep_diff(r, i, err) < 0 || rk_krep_refuse_fk(r, i, err) < 0 ||
	    (!execute && rk_krep_refuse_unfilled(r, i, err) < 0))
		goto fail;
	if (!execute) {
		rk_krep_rollback(r);
		v->state = RK_REPAIR_PLANNED;
		return 0;
	}
	if (rk_krep_count(r, "delete rows", r->sql_delete, true, &deleted, NULL, err) < 0 ||
	    (r->sql_update && rk_krep_count(r, "update rows", r->sql_update, true, &updated, NULL, err) < 0) ||
	    rk_krep_count(r, "insert rows", r->sql_insert, true, &inserted, NULL, err) < 0 ||
	    rk_krep_verify_written(r, i, err) < 0 || rk_guard_check(err) < 0)
		goto fail;
	v->deleted_by_time = deleted;
	v->updated = updated;
	v->inserted = inserted;
	if (rk_pg_command(r->tgt, "commit repair", rk_sql_repair_commit, err) < 0) {
		rk_guard_idle(r->tgt);
		/* a lost connection leaves the outcome of COMMIT unknown */
		if (rk_pg_error_is_connection(err))
			v->state = RK_REPAIR_UNKNOWN;
		return rk_krep_fail(r, err);
	}
	rk_guard_idle(r->tgt);
	v->state = RK_REPAIR_COMMITTED;
	return 0;
fail:
	rk_krep_rollback(r);
	return -1;
}

/* ------------------------------------------------------------------------
 * the run
 * ---------------------------------------------------------------------- */

/* Rewrites err as "repaired D of N segments; segment [..) was not
 * changed: <cause>", keeping the cause's code, SQLSTATE and hint.
 * failed == n: the run stopped before any segment. */
static void rk_krep_explain(const rk_krep *r, size_t failed, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	size_t done = 0;
	char hint[sizeof err->hint], cause[sizeof err->msg];
	int code = err->code ? err->code : RK_EXIT_RUNTIME;

	memcpy(hint, err->hint, sizeof hint);
	memcpy(cause, err->msg, sizeof cause);
	for (size_t i = 0; i < r->n; i++)
		done += rk_repair_state_done(r->iv[i].state);
	if (failed == r->n) {
		rk_buf_puts(&b, "nothing was changed");
	} else if (!r->spec->execute) {
		rk_buf_puts(&b, "dry run of segment ");
		rk_repair_put_segment(&b, &r->iv[failed]);
		rk_buf_puts(&b, " failed; nothing was changed");
	} else {
		rk_buf_printf(&b, "repaired %zu of %zu segment%s; segment ", done, r->n, r->n == 1 ? "" : "s");
		rk_repair_put_segment(&b, &r->iv[failed]);
		rk_buf_puts(&b, r->iv[failed].state == RK_REPAIR_UNKNOWN     ? " may or may not have been repaired (the "
		                                                               "connection was lost during its commit)"
		                : r->iv[failed].state == RK_REPAIR_COMMITTED ? " was repaired but could not be checked again"
		                                                             : " was not changed");
	}
	rk_buf_printf(&b, ": %s", cause);
	rk_error_set(err, code, "%s", rk_buf_cstr(&b));
	if (r->spec->execute && failed < r->n)
		rk_error_hint(err, "%s%srepair is idempotent: run the same command again to finish", hint, hint[0] ? "; " : "");
	else if (hint[0])
		rk_error_hint(err, "%s", hint);
	rk_buf_free(&b);
}

int rk_repair_keys_run(const rk_repair_spec *spec, rk_repair_interval *iv, size_t n, rk_repair_result *res,
                       rk_error *err)
{
	rk_krep r;
	int rc = -1;
	size_t i = n;

	memset(res, 0, sizeof *res);
	memset(&r, 0, sizeof r);
	r.spec = spec;
	r.iv = iv;
	r.n = n;
	rk_repair_reset_intervals(iv, n);
	if (rk_krep_refuse_options(spec, err) < 0 || rk_krep_open(&r, err) < 0 || rk_krep_prepare(&r, err) < 0) {
		if (rk_guard_signal())
			rk_guard_check(err);
		if (r.want)
			rk_krep_explain(&r, n, err);
		goto done;
	}
	for (i = 0; i < n; i++) {
		rk_repair_interval *v = &iv[i];
		rk_buf b = RK_BUF_INIT;
		bool match;

		if (v->state == RK_REPAIR_ALREADY)
			continue;
		rk_repair_put_segment(&b, v);
		rk_log_info("%s segment %s of %s", spec->execute ? "repairing" : "planning", rk_buf_cstr(&b),
		            r.dest.display);
		rk_buf_free(&b);
		if (rk_krep_segment(&r, i, err) < 0 ||
		    (spec->execute &&
		     rk_krep_check(&r, i, &match, &v->after_source_rows, &v->after_target_rows, NULL, err) < 0)) {
			if (rk_guard_signal())
				rk_guard_check(err);
			rk_krep_explain(&r, i, err);
			goto done;
		}
		if (spec->execute)
			v->state = match ? RK_REPAIR_MATCH : RK_REPAIR_DIFFER;
	}
	rc = 0;
done:
	rk_krep_close(&r);
	return rc;
}
