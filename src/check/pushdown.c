/*
 * pushdown.c - the digest pass computed by the server (reckon check
 * --pushdown, docs/pushdown.md).
 *
 * A PostgreSQL side whose database has the reckon extension sends one row per
 * window - count, window hash, exact sums - instead of every row: the
 * extension's reckon_window aggregate encodes, hashes and sums each row with
 * this client's own core code, so the window digests are the ones streaming
 * would have computed.  The sums arrive as exact numeric text (or the word
 * "overflow" where the exact sum does not fit rk_sum) and go through the
 * canonical numeric text into rk_sum, as a streamed value would.  The
 * groups are the windows' slices where the reader can (check.c keeps them
 * for the drilldown).  A CSV side, and with --pushdown=auto a database
 * without the extension, stream as usual.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/pushdown.h"
#include "core/canon.h"
#include "core/log.h"

static int rk_pd_bad_row(const rk_side *s, const char *what, const rk_field *f, rk_error *err)
{
	int shown = f->null ? 4 : (f->len > 60 ? 60 : (int)f->len);

	rk_error_set(err, RK_EXIT_RUNTIME, "%s: the server's window digests hold %s '%.*s'", rk_reader_describe(s->reader),
	             what, shown, f->null ? "NULL" : f->p);
	return rk_error_hint(err, "the reckon extension and this reckon do not agree: install the extension built from "
	                          "this reckon's sources (docs/pushdown.md)");
}

typedef struct rk_pd_ctx {
	rk_side *s;
	const rk_digest_query *q; /* its slices say what a group's index counts */
} rk_pd_ctx;

/* One slice or window (or the NULL-time group) as the server computed it. */
static int rk_pd_row(void *ctx, const rk_field *f, rk_error *err)
{
	rk_pd_ctx *pc = ctx;
	rk_side *s = pc->s;
	const rk_plan *p = s->plan;
	rk_check_result *res = s->res;
	rk_side_result *sr = &res->side[s->idx];
	size_t per = pc->q->slices > 1 ? pc->q->slices : 1; /* groups per window */
	rk_usec unit = res->width / (rk_usec)per;
	int64_t w, n;
	size_t sl;
	rk_u128 h;
	const char *why;

	if (rk_field_int64(&f[1], &n) < 0 || n < 0)
		return rk_pd_bad_row(s, "the row count", &f[1], err);
	if (n == 0)
		return 0; /* a window of a foreign partition that has no rows */
	s->rows_read += (uint64_t)n;
	if (f[0].null) {
		s->null_time += (uint64_t)n;
		return 0;
	}
	/* the server groups exactly the rows of [lo, hi): any other window
	 * means the two sides of the contract have drifted apart */
	if (rk_field_int64(&f[0], &w) < 0 || w < (s->lo - res->from) / unit || w >= (s->hi - res->from) / unit)
		return rk_pd_bad_row(s, "the window index", &f[0], err);
	/* a group per window lands in the window's first slice: the side's
	 * slices then say nothing (rk_pushdown_side) */
	if (res->calendar) {
		/* groups of the grid the boundaries share: each in its window */
		w = (int64_t)rk_check_window_of(res, res->from + (rk_usec)w * unit);
		sl = (size_t)w;
	} else {
		sl = per == res->slices ? (size_t)w : (size_t)w * res->slices;
		w /= (int64_t)per;
	}
	if (f[2].null || f[2].len != 32) {
		return rk_pd_bad_row(s, "the window hash", &f[2], err);
	} else {
		char hex[33];

		memcpy(hex, f[2].p, 32);
		hex[32] = '\0';
		if (rk_hash_parse(hex, &h) < 0)
			return rk_pd_bad_row(s, "the window hash", &f[2], err);
	}
	sr->slice_rows[sl] += (uint64_t)n;
	sr->slice_hash[sl] += h;
	s->total += (uint64_t)n;
	for (size_t j = 0; j < p->nsum; j++) {
		const rk_field *sf = &f[3 + j];
		size_t c = p->sum_idx[j];

		if (sf->null)
			continue;
		why = "sum overflows 128 bits";
		if (sf->len == 8 && memcmp(sf->p, "overflow", 8) == 0)
			goto overflow;
		rk_buf_reset(&s->tmp);
		if (rk_canon_text(RK_T_NUMERIC, sf->p, sf->len, &s->tmp, &why) < 0)
			return rk_pd_bad_row(s, "a sum", sf, err);
		if (rk_sum_add(&sr->sums[(size_t)w * p->nsum + j], s->tmp.data, s->tmp.len, &why) < 0) {
overflow:
			/* as streaming the window's rows would have failed */
			rk_error_set(err, RK_EXIT_USAGE, "%s: sum of column %s in window %lld: %s", rk_reader_describe(s->reader),
			             p->cols[c], (long long)w, why);
			return rk_error_hint(err, "drop %s from --sum; an exact sum cannot be formed", p->cols[c]);
		}
	}
	return 0;
}

int rk_pushdown_side(rk_side *s)
{
	const rk_plan *p = s->plan;
	rk_range range = { s->lo, s->hi };
	rk_scan scan = { .time_index = p->time_idx, .ranges = &range, .nranges = s->lo < s->hi ? 1 : 0, .include_null_time = s->null_rows };
	rk_digest_query q = { &scan, p->hash_idx, p->nhash, p->sum_idx, p->nsum, s->res->from, s->res->width,
		              s->res->slices };
	rk_pd_ctx pc = { s, &q };
	int rc;

	if (s->pushdown == RK_PUSHDOWN_OFF || !rk_reader_has(s->reader, RK_CAP_PUSHDOWN))
		return 1;
	if (s->zoned) {
		/* the server would place the rows by UTC: the client places them */
		rk_error_set(&s->err, RK_EXIT_USAGE, "its time column is a timestamp read in --time-column-zone %s, "
		                                     "whose rows the client places in their windows",
		             rk_tz_name(s->placer.z));
		rk_error_hint(&s->err, "leave out --pushdown=on for this table, or give --pushdown=auto");
		rc = 1;
	} else if (p->convert[s->idx]) {
		/* exact numbers compared with the other side's floats: the
		 * server hashes their canonical decimals (digest.md) */
		size_t c = 0;

		while (c < p->ncols && p->as_float[s->idx][c] == RK_T_UNKNOWN)
			c++;
		rk_error_set(&s->err, RK_EXIT_USAGE,
		             "--pushdown: column %s of the %s is an exact number and a float on the other side: compared "
		             "as numbers, which the server's digests cannot do",
		             p->cols[c], s->name);
		rk_error_hint(&s->err, "check without --pushdown (or --pushdown=auto), or make both types alike");
		rc = 1;
	} else {
		rc = rk_reader_digest(s->reader, &q, rk_pd_row, &pc, &s->err);
	}
	if (rc == 0 && s->res->slices > 1 && q.slices <= 1)
		s->whole_windows = true;
	if (rc == 1 && s->pushdown == RK_PUSHDOWN_AUTO) {
		/* the first reader of the side speaks for its parallel readers */
		if (s->null_rows)
			rk_log_info("%s: %s; streaming its rows instead", s->name, s->err.msg);
		rk_error_clear(&s->err);
		return 1;
	}
	if (rc == 0 && s->null_rows)
		rk_log_info("%s: window digests computed by the server", s->name);
	return rc == 1 ? -1 : rc;
}
