/*
 * repair_stage.c - the source's rows streamed into the target's staging
 * tables (repair_impl.h): one scan, through a reused buffer, no per-row
 * allocation; and, with --replace-interval, the survey of what its delete by
 * key would reach.
 */
#include "repair/repair_impl.h"

/* The interval to replace that holds t, or -1 (binary search: they are in
 * time order and disjoint). */
static long rk_repair_find(const rk_repair *r, rk_usec t)
{
	size_t lo = 0, hi = r->ntodo;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const rk_repair_interval *v = &r->iv[r->todo[mid]];

		if (t < v->start)
			hi = mid;
		else if (t >= v->end)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

/* A source row: staged with its interval's start (rows), or its key when
 * it lies outside every interval to replace (keys).  A CSV reader delivers
 * every row; this filters. */
static int rk_repair_row(void *ctx, const rk_field *fields, rk_error *err)
{
	rk_repair *r = ctx;
	const rk_field *tf = &fields[r->map.time];
	const char *why = NULL;
	rk_usec t = 0;
	long hit = -1;

	if (rk_guard_check(err) < 0)
		return -1;
	if (!tf->null) {
		if (rk_canon_instant(r->time_type, tf->p, tf->len, &t, &why) < 0) {
			rk_error_set(err, RK_EXIT_USAGE, "time value '%.*s' is not a valid %s: %s",
			             (int)(tf->len > 64 ? 64 : tf->len), tf->p, rk_type_name(r->time_type),
			             why ? why : "bad value");
			err->field = (int)r->map.time;
			return -1;
		}
		hit = r->what == RK_STAGE_ONE ? -1 : rk_repair_find(r, t);
	}
	if (r->what == RK_STAGE_ONE) {
		const rk_repair_interval *v = &r->iv[r->cur];

		if (tf->null || t < v->start || t >= v->end)
			return 0;
		if (rk_repair_put_fields(&r->copy, r->src, &r->map, fields, err) < 0)
			return -1;
	} else if (r->what == RK_STAGE_ROWS) {
		char s[RK_TIME_STRLEN];
		rk_repair_interval *v;

		if (hit < 0)
			return 0;
		v = &r->iv[r->todo[hit]];
		rk_buf_puts(&r->copy.out, rk_time_format_sql(v->start, true, s));
		rk_buf_putc(&r->copy.out, '\t');
		if (rk_repair_put_fields(&r->copy, r->src, &r->map, fields, err) < 0)
			return -1;
		v->source_rows++;
	} else {
		if (hit >= 0)
			return 0;
		for (size_t k = 0; k < r->map.nkey; k++) {
			size_t c = r->map.key[k];

			if (k)
				rk_buf_putc(&r->copy.out, '\t');
			if (rk_repair_put_field(&r->copy, r->src, c, r->map.c[c].logical, &fields[c], err) < 0)
				return -1;
		}
	}
	r->rows++;
	return rk_copy_stream_row_end(&r->copy, err);
}

/* One scan of the source into the target table the COPY statement copy
 * fills: the intervals to replace (rows), or everything else (keys). */
int rk_repair_scan(rk_repair *r, rk_stage_what what, const char *copy, rk_error *err)
{
	rk_range *ranges = rk_xcalloc(r->ntodo + 2, sizeof *ranges);
	size_t nr = 0;
	rk_scan scan;
	int rc = -1;

	if (what == RK_STAGE_ONE) {
		ranges[nr++] = (rk_range){ r->iv[r->cur].start, r->iv[r->cur].end };
	} else if (what == RK_STAGE_ROWS) {
		for (size_t i = 0; i < r->ntodo; i++)
			ranges[nr++] = (rk_range){ r->iv[r->todo[i]].start, r->iv[r->todo[i]].end };
	} else {
		rk_usec from = RK_USEC_NINF;

		for (size_t i = 0; i < r->ntodo; i++) {
			if (r->iv[r->todo[i]].start > from)
				ranges[nr++] = (rk_range){ from, r->iv[r->todo[i]].start };
			from = r->iv[r->todo[i]].end;
		}
		ranges[nr++] = (rk_range){ from, RK_USEC_PINF };
	}
	memset(&scan, 0, sizeof scan);
	scan.time_index = r->map.time;
	scan.ranges = ranges;
	scan.nranges = nr;
	scan.include_null_time = what == RK_STAGE_KEYS;
	/* large text values arrive after the COPY, streamed (rk_repair_put_field) */
	scan.large_bound = rk_large_value_bound();
	scan.large_cols = r->large_cols;
	if (what == RK_STAGE_ONE && r->want[r->cur].text) {
		/* a hint: a PostgreSQL source asks for the finding keys only
		 * (past RK_REPAIR_KEY_TEXTS of them it reads the interval) */
		scan.key_index = r->map.key;
		scan.nkey = r->map.nkey;
		scan.key_text = (const char *const *)r->want[r->cur].text;
		scan.nkeys = r->want[r->cur].n;
	}
	r->what = what;
	r->rows = 0;
	rk_copy_stream_start(&r->copy, r->tgt);
	if (rk_pg_copy_in_begin(r->tgt, what == RK_STAGE_KEYS ? "stage keys" : "stage rows", copy, err) < 0) {
		rk_repair_tgt_fail(r, err);
		goto done;
	}
	if (rk_reader_scan(r->src, &scan, rk_repair_row, r, err) < 0 || rk_copy_stream_flush(&r->copy, err) < 0) {
		if (r->copy.failed)
			*err = r->copy.err;
		rk_pg_copy_in_abort(r->tgt, "the source read failed");
		goto done;
	}
	if (rk_pg_copy_in_end(r->tgt, err) < 0) {
		/* a value the target's column type refuses is bad input */
		if (err->sqlstate[0] == '2' && err->sqlstate[1] == '2')
			err->code = RK_EXIT_USAGE;
		rk_repair_tgt_fail(r, err);
		goto done;
	}
	rc = 0;
done:
	free(ranges);
	return rc;
}

/* The intervals to replace, for the statements that tell a row inside its
 * interval from one outside. */
static int rk_repair_stage_intervals(rk_repair *r, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc = -1;

	if (rk_repair_cmd(r, "create interval table", rk_sql_repair_intervals_create, err) < 0 ||
	    rk_pg_copy_in_begin(r->tgt, "stage intervals", rk_sql_repair_intervals_copy, err) < 0)
		goto done;
	for (size_t i = 0; i < r->ntodo; i++) {
		char s[RK_TIME_STRLEN], e[RK_TIME_STRLEN];
		const rk_repair_interval *v = &r->iv[r->todo[i]];

		rk_buf_printf(&b, "%s\t%s\n", rk_time_format_sql(v->start, true, s), rk_time_format_sql(v->end, true, e));
	}
	if ((b.len && rk_pg_copy_in_put(r->tgt, b.data, b.len, err) < 0) || rk_pg_copy_in_end(r->tgt, err) < 0)
		goto done;
	rc = 0;
done:
	rk_buf_free(&b);
	return rc;
}

/* Reads the rows of every interval to replace into the staging table. */
int rk_repair_stage(rk_repair *r, rk_error *err)
{
	if (rk_repair_scan(r, RK_STAGE_ROWS, rk_sql_repair_stage_copy, err) < 0 ||
	    rk_repair_cmd(r, "index staging table", rk_sql_repair_stage_index, err) < 0 ||
	    rk_repair_cmd(r, "analyze staging table", rk_sql_repair_stage_analyze, err) < 0 ||
	    rk_repair_stage_intervals(r, err) < 0)
		return -1;
	rk_log_info("staged %llu source row%s of %zu interval%s", (unsigned long long)r->rows, r->rows == 1 ? "" : "s",
	            r->ntodo, r->ntodo == 1 ? "" : "s");
	r->staged = true;
	return 0;
}

/*
 * Refuses a key the source does not hold uniquely, when that would make a
 * delete by key remove rows it must not: the source holds one key in two
 * of the intervals (the later delete would remove what the earlier insert
 * wrote), or a delete by key would reach target rows outside an interval
 * whose key the source also holds outside it (legitimate copies, not stale
 * ones).  The source's keys outside the intervals are read only when some
 * delete by key reaches outside at all.
 */
int rk_repair_survey(rk_repair *r, rk_error *err)
{
	uint64_t twice = 0, reach = 0, bad = 0;
	char *example = NULL;
	rk_buf b = RK_BUF_INIT;

	if (rk_repair_count(r, "keys in two intervals", r->sql_twice, 0, NULL, &twice, &example, err) < 0)
		return -1;
	if (twice) {
		rk_repair_put_key(&b, r->key, r->nkey);
		rk_error_set(err, RK_EXIT_USAGE, "%s is not unique at the source: %llu key%s %s in more than one of the "
		                                 "intervals (e.g. %s), so the delete by key of one would remove the rows another inserts",
		             rk_buf_cstr(&b), (unsigned long long)twice, twice == 1 ? "" : "s",
		             twice == 1 ? "is" : "are", example ? example : "?");
		goto refuse;
	}
	if (rk_repair_count(r, "rows a delete by key reaches", r->sql_reach, 0, NULL, &reach, NULL, err) < 0)
		return -1;
	if (!reach)
		return 0;
	if (rk_repair_count(r, "rows a delete by key reaches out of range", r->sql_unbounded, 0, NULL, &bad, &example,
	                    err) < 0)
		return -1;
	if (bad) {
		rk_error_set(err, RK_EXIT_USAGE, "the delete by key would remove %llu stale target row%s at +-infinity or "
		                                 "out of reckon's time range (e.g. %s): the window %s left cannot be checked again; "
		                                 "nothing was changed",
		             (unsigned long long)bad, bad == 1 ? "" : "s", example ? example : "?",
		             bad == 1 ? "it" : "they");
		free(example);
		return rk_error_hint(err, "correct or delete those rows' time first; reckon checks windows of finite "
		                          "times only");
	}
	free(example);
	example = NULL;
	rk_log_info("the deletes by key reach %llu target row%s outside their intervals: reading the source's other "
	            "keys",
	            (unsigned long long)reach, reach == 1 ? "" : "s");
	if (rk_repair_cmd(r, "create key table", r->sql_keys_create, err) < 0 ||
	    rk_repair_scan(r, RK_STAGE_KEYS, rk_sql_repair_keys_copy, err) < 0 ||
	    rk_repair_cmd(r, "analyze key table", rk_sql_repair_keys_analyze, err) < 0 ||
	    rk_repair_count(r, "rows the source also holds elsewhere", r->sql_refuse, 0, NULL, &bad, &example, err) < 0)
		return -1;
	if (!bad) {
		free(example);
		return 0;
	}
	rk_repair_put_key(&b, r->key, r->nkey);
	rk_error_set(err, RK_EXIT_USAGE, "%s is not unique at the source: the delete by key would remove %llu target "
	                                 "row%s outside %s interval%s whose key%s the source also holds outside %s (e.g. %s)",
	             rk_buf_cstr(&b), (unsigned long long)bad, bad == 1 ? "" : "s",
	             r->ntodo == 1 ? "the" : "their", r->ntodo == 1 ? "" : "s", bad == 1 ? "" : "s",
	             r->ntodo == 1 ? "it" : "them", example ? example : "?");
refuse:
	free(example);
	rk_buf_free(&b);
	return rk_error_hint(err, "repair replaces rows by key: give --key the columns that identify one row (a "
	                          "primary key), and check with the same key");
}
