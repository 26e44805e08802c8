/*
 * segments.c - where key segments begin and end.
 *
 * A time window's edges come from the clock; a key segment's from the
 * data: boundaries at quantiles of a sample of the source's first key
 * column, so that each segment holds about RK_SEGMENT_ROWS rows.  The
 * outer segments are unbounded (from RK_USEC_NINF, to RK_USEC_PINF), so a
 * key below or above every sampled one, or a row written since the
 * sample, still lies in a segment: the boundaries only decide how the
 * table is cut, never which rows are compared.
 */
#include "check/segments.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* (a segment, not more than RK_SEGMENT_MAX + 1 of them, is a window) */
_Static_assert(RK_SEGMENT_MAX < RK_FINDING_MAX_WINDOWS, "a finding names its key segment in 24 bits");

typedef struct rk_sample {
	rk_buf arena; /* the sampled key texts, one after the other */
	size_t *off, *len;
	size_t n, cap;
	size_t lo, hi; /* the smallest and the largest, byte by byte */
} rk_sample;

static int rk_sample_row(void *ctx, const rk_field *f, rk_error *err)
{
	rk_sample *s = ctx;

	(void)err;
	if (f->null)
		return 0;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->off = rk_xrealloc(s->off, s->cap * sizeof *s->off);
		s->len = rk_xrealloc(s->len, s->cap * sizeof *s->len);
	}
	s->off[s->n] = s->arena.len;
	s->len[s->n] = f->len;
	rk_buf_append(&s->arena, f->p, f->len);
	s->n++;
	return 0;
}

static const char *rk_sample_text(const rk_sample *s, size_t i)
{
	return s->arena.data + s->off[i];
}

static int rk_point_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first key column's type, the same kind on both sides. */
static int rk_segments_keyspace(rk_side sides[2], const rk_plan *p, rk_keyspace *ks, rk_error *err)
{
	rk_keyspace other;
	const char *why;
	const char *col = p->cols[p->time_idx];

	for (int s = 0; s < 2; s++) {
		if (!rk_reader_has(sides[s].reader, RK_CAP_KEY_RANGES)) {
			rk_error_set(err, RK_EXIT_USAGE, "the %s (%s) cannot be checked by key segments", sides[s].name,
			             rk_reader_describe(sides[s].reader));
			return rk_error_hint(err, "give --time COL to check it in time windows");
		}
		if (rk_keyspace_init(s ? &other : ks, sides[s].types[p->time_idx], &why) < 0) {
			rk_error_set(err, RK_EXIT_USAGE, "without --time the table is checked by ranges of its first key "
			                                 "column %s, which has type %s on the %s: %s",
			             col, rk_type_name(sides[s].types[p->time_idx]), sides[s].name, why);
			return rk_error_hint(err, "give --time COL, or put a column of such a type first in --key");
		}
	}
	if (other.kind != ks->kind) {
		rk_error_set(err, RK_EXIT_USAGE, "key column %s is %s on the source and %s on the target: their ranges "
		                                 "do not compare",
		             col, rk_type_name(sides[0].types[p->time_idx]), rk_type_name(sides[1].types[p->time_idx]));
		return rk_error_hint(err, "map one side's key to the other's type with --source-expr or --target-expr");
	}
	return 0;
}

/* The boundaries: nseg - 1 quantiles of the sample's points, snapped to
 * printable keys, increasing, each strictly inside the keyspace. */
static size_t rk_segments_cut(const rk_keyspace *ks, const rk_sample *smp, size_t nseg, int64_t *cut)
{
	int64_t *pt = rk_xcalloc(smp->n ? smp->n : 1, sizeof *pt);
	size_t n = 0, np = 0;

	for (size_t i = 0; i < smp->n; i++) {
		const char *why;

		if (rk_keyspace_point_text(ks, rk_sample_text(smp, i), smp->len[i], &pt[np], &why) == 0)
			np++;
	}
	qsort(pt, np, sizeof *pt, rk_point_cmp);
	for (size_t k = 1; k < nseg && np; k++) {
		int64_t m = rk_keyspace_snap(ks, pt[k * np / nseg]);
		rk_buf v = RK_BUF_INIT;
		bool usable = rk_keyspace_bound(ks, m, &v) == RK_KSB_VALUE;

		rk_buf_free(&v);
		if (usable && m > RK_KS_MIN && (n == 0 || m > cut[n - 1]))
			cut[n++] = m;
	}
	free(pt);
	return n;
}

/* The one segment spec->key_range names: bounds[0..1] its points (the
 * open ends RK_USEC_NINF, RK_USEC_PINF), seg_text its key texts. */
static int rk_segments_fixed(const rk_check_spec *spec, const rk_plan *p, rk_check_result *res, rk_error *err)
{
	int64_t lo, hi;
	const char *why = NULL;

	if (rk_keyspace_fit(&res->keyspace, spec->key_from, spec->key_to, &lo, &hi, &why) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "key segment [%s, %s) of %s: %s", spec->key_from ? spec->key_from : "(first)",
		             spec->key_to ? spec->key_to : "(last)", p->cols[p->time_idx], why);
		return rk_error_hint(err, "replay the segments reckon check wrote (--rerun-list without --time)");
	}
	res->nwindows = 1;
	res->bounds = rk_xcalloc(2, sizeof *res->bounds);
	res->seg_text = rk_xcalloc(2, sizeof *res->seg_text);
	res->bounds[0] = lo;
	res->bounds[1] = hi;
	res->seg_text[0] = spec->key_from ? rk_xstrdup(spec->key_from) : NULL;
	res->seg_text[1] = spec->key_to ? rk_xstrdup(spec->key_to) : NULL;
	return 0;
}

int rk_segments_plan(const rk_check_spec *spec, rk_side sides[2], const rk_plan *p, rk_check_result *res,
                     rk_error *err)
{
	rk_sample smp;
	uint64_t rows = 0;
	size_t nseg = 1, ncut = 0;
	int64_t *cut = NULL;
	int rc;

	(void)spec;
	memset(&smp, 0, sizeof smp);
	if (rk_segments_keyspace(sides, p, &res->keyspace, err) < 0)
		return -1;
	if (spec->key_range) {
		if (rk_segments_fixed(spec, p, res, err) < 0)
			return -1;
		goto planned;
	}
	rc = rk_reader_sample(sides[0].reader, p->time_idx, RK_SEGMENT_ROWS / RK_SEGMENT_SAMPLES, 2 * RK_SEGMENT_ROWS,
	                      &rows, rk_sample_row, &smp, err);
	if (rc < 0)
		goto done;
	if (rows >= 2 * RK_SEGMENT_ROWS && smp.n > 1) {
		nseg = (size_t)(rows / RK_SEGMENT_ROWS);
		if (nseg > RK_SEGMENT_MAX)
			nseg = RK_SEGMENT_MAX;
		if (nseg > smp.n)
			nseg = smp.n;
		for (size_t i = 1; i < smp.n; i++) {
			if (rk_keyspace_cmp_bytes(rk_sample_text(&smp, i), smp.len[i], rk_sample_text(&smp, smp.lo),
			                          smp.len[smp.lo]) < 0)
				smp.lo = i;
			if (rk_keyspace_cmp_bytes(rk_sample_text(&smp, i), smp.len[i], rk_sample_text(&smp, smp.hi),
			                          smp.len[smp.hi]) > 0)
				smp.hi = i;
		}
		rk_keyspace_prefix(&res->keyspace, rk_sample_text(&smp, smp.lo), smp.len[smp.lo],
		                   rk_sample_text(&smp, smp.hi), smp.len[smp.hi]);
		cut = rk_xcalloc(nseg, sizeof *cut);
		ncut = rk_segments_cut(&res->keyspace, &smp, nseg, cut);
	}
	res->nwindows = ncut + 1;
	res->bounds = rk_xcalloc(res->nwindows + 1, sizeof *res->bounds);
	res->seg_text = rk_xcalloc(res->nwindows + 1, sizeof *res->seg_text);
	res->bounds[0] = RK_USEC_NINF;
	res->bounds[res->nwindows] = RK_USEC_PINF;
	for (size_t i = 0; i < ncut; i++) {
		rk_buf v = RK_BUF_INIT;

		res->bounds[i + 1] = cut[i];
		(void)rk_keyspace_bound(&res->keyspace, cut[i], &v);
		res->seg_text[i + 1] = rk_xstrdup(rk_buf_cstr(&v));
		rk_buf_free(&v);
	}
	rk_log_info("key segments of %s: %zu (the source holds about %llu rows; %zu keys sampled)", p->cols[p->time_idx],
	            res->nwindows, (unsigned long long)rows, smp.n);
planned:
	res->keyed = true;
	res->calendar = true;
	res->from = RK_USEC_NINF;
	res->width = 0;
	res->nclosed = res->nwindows;
	for (int s = 0; s < 2; s++)
		rk_reader_keyspace(sides[s].reader, p->time_idx, &res->keyspace);
	rc = 0;
done:
	free(cut);
	free(smp.off);
	free(smp.len);
	rk_buf_free(&smp.arena);
	return rc;
}
