/*
 * check.c - digest pass: both sides stream their rows once, each row is
 * encoded canonically, hashed and added to its window's accumulators.
 */
#include "check/check.h"

#include <stdatomic.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check/diagnose.h"
#include "check/history.h"
#include "check/keys.h"
#include "check/drill.h"
#include "check/pair.h"
#include "check/pushdown.h"
#include "check/segments.h"
#include "check/side.h"
#include "core/canon.h"
#include "core/log.h"
#include "core/text.h"

/* More windows than this is almost certainly a mistake in --window. */
#define RK_MAX_WINDOWS 10000000
_Static_assert(RK_MAX_WINDOWS <= RK_FINDING_MAX_WINDOWS, "a finding names its window in 24 bits");

/* Adds the value of a field a binary COPY reader encoded to sum: from its
 * decoded value, or else its canonical text. */
static inline int rk_sum_add_field(rk_sum *sum, const rk_field *f, const char **why)
{
	if (f->form == RK_FORM_INT)
		return rk_sum_add_decimal(sum, f->m, 0, why);
	if (f->form == RK_FORM_CANON && f->exact)
		return rk_sum_add_decimal(sum, f->m, f->scale, why);
	return rk_sum_add(sum, f->enc + RK_CANON_HDR, f->enc_len - RK_CANON_HDR, why);
}

/* The hot path: one row of the digest pass. */
static int rk_digest_row(void *ctx, const rk_field *f, rk_error *err)
{
	rk_side *s = ctx;
	const rk_plan *p = s->plan;
	rk_check_result *res = s->res;
	rk_side_result *sr = &res->side[s->idx];
	const rk_field *tf = &f[p->time_idx];
	const char *why;
	rk_usec t;
	size_t w, sl;

	/* progress: a mask and a branch per row, the counters every few thousand */
	if ((++s->rows_read & (RK_METER_EVERY - 1)) == 0 && s->meter)
		rk_side_meter(s, false);
	if (tf->null) {
		s->null_time += s->null_rows;
		return 0;
	}
	if (rk_side_time(s, tf, &t, err) < 0)
		return -1;
	if (t < s->lo || t >= s->hi)
		return 0;
	if (s->zoned && s->time_fit != RK_TZ_EXACT) {
		s->dst_ambiguous += s->time_fit == RK_TZ_AMBIGUOUS;
		s->dst_nonexistent += s->time_fit == RK_TZ_GAP;
	}
	/* rows mostly come in time order: the last row's slice of its window,
	 * without a 64-bit division, while t stays in it */
	if (t >= s->win_lo && t < s->win_hi) {
		w = s->win;
		sl = s->slice;
	} else if (res->calendar) {
		/* one slice per window, found among the boundaries */
		w = sl = rk_check_window_of(res, t);
		s->win = w;
		s->slice = sl;
		s->win_lo = res->bounds[w];
		s->win_hi = res->bounds[w + 1];
		if (s->meter)
			rk_side_meter(s, false);
	} else {
		rk_usec sw = res->width / (rk_usec)res->slices;

		sl = (size_t)((t - res->from) / sw);
		w = sl / res->slices;
		s->win = w;
		s->slice = sl;
		s->win_lo = res->from + (rk_usec)sl * sw;
		s->win_hi = s->win_lo + sw;
		/* and at each new slice: a long window's progress shows */
		if (s->meter)
			rk_side_meter(s, false);
	}
	if (f[0].enc && p->hash_is_row && !p->convert[s->idx] && !s->late) {
		/* encoded by the reader, every bound column in --columns order:
		 * the row encoding is its buffer as it is */
		const rk_field *last = &f[p->ncols - 1];

		sr->slice_hash[sl] += rk_row_hash(f[0].enc, (size_t)(last->enc + last->enc_len - f[0].enc));
	} else {
		rk_u128 h;

		if (rk_side_hash_row(s, f, t, &h, err) < 0)
			return -1;
		sr->slice_hash[sl] += h;
	}
	sr->slice_rows[sl]++;
	s->total++;
	for (size_t j = 0; j < p->nsum; j++) {
		size_t c = p->sum_idx[j];
		long hp = p->sum_hashpos[j];
		rk_sum *sum = &sr->sums[w * p->nsum + j];
		int rc;

		if (f[c].null)
			continue;
		if (f[c].enc) {
			rc = rk_sum_add_field(sum, &f[c], &why);
		} else if (hp >= 0 && s->canon_dec[hp].ok) {
			/* its value, from the encoder */
			rc = rk_sum_add_decimal(sum, s->canon_dec[hp].m, s->canon_dec[hp].scale, &why);
		} else if (hp >= 0) {
			/* already canonical in the row encoding */
			rc = rk_sum_add(sum, s->enc.data + s->canon_off[hp], s->canon_len[hp], &why);
		} else {
			rk_buf_reset(&s->tmp);
			if (rk_canon_text(s->types[c], f[c].p, f[c].len, &s->tmp, &why) < 0)
				return rk_side_bad_value(s, c, &f[c], why, err);
			rc = rk_sum_add(sum, s->tmp.data, s->tmp.len, &why);
		}
		if (rc < 0) {
			rk_error_set(err, RK_EXIT_USAGE, "sum of column %s in window %zu: %s", p->cols[c], w, why);
			rk_error_hint(err, "drop %s from --sum; an exact sum cannot be formed", p->cols[c]);
			return -1;
		}
	}
	return 0;
}

/* A row whose large values came out of band, after the scan's others. */
static int rk_digest_late_row(void *ctx, const rk_field *f, rk_error *err)
{
	return rk_side_late(ctx, f, rk_digest_row, err);
}

static int rk_digest_side(rk_side *s)
{
	rk_range range = { s->lo, s->hi };
	/* every form: a PostgreSQL side may stream binary COPY; large values
	 * out of band, read after the others */
	rk_scan scan = { .time_index = s->plan->time_idx, .ranges = &range, .nranges = s->lo < s->hi ? 1 : 0, .include_null_time = s->null_rows, .binary = true, .large_bound = s->large_value, .large_cols = rk_side_large_cols(s), .late = rk_digest_late_row };
	int rc = rk_pushdown_side(s);

	/* with nothing closed the scan still counts the rows no window can hold */
	if (rc > 0)
		rc = rk_side_scan(s, &scan, rk_digest_row, s, &s->err);
	if (rc == 0)
		rk_side_meter(s, true);
	return rc;
}

/* Splits a --types item "COL:TYPE" at its last colon (a type name has
 * none; a quoted column name may): *col is a new string, *type points into
 * item.  -1 when it is not of that form. */
static int rk_types_item(const char *item, char **col, const char **type)
{
	const char *colon = strrchr(item, ':');

	if (!colon || colon == item || !colon[1])
		return -1;
	*col = rk_xstrndup(item, (size_t)(colon - item));
	*type = colon + 1;
	return 0;
}

/* The --types type of a column, or NULL. */
static const char *rk_spec_type_for(const rk_check_spec *spec, const char *col)
{
	for (size_t i = 0; i < spec->ntypes; i++) {
		char *c;
		const char *type;
		bool same;

		if (rk_types_item(spec->types[i], &c, &type) < 0)
			continue;
		same = rk_pair_same_name(c, col);
		free(c);
		if (same)
			return type;
	}
	return NULL;
}

static int rk_check_types_option(const rk_check_spec *spec, const rk_plan *p, rk_error *err)
{
	for (size_t i = 0; i < spec->ntypes; i++) {
		const char *it = spec->types[i], *type;
		char *col;
		bool known = false;
		rk_type t;

		if (rk_types_item(it, &col, &type) < 0) {
			rk_error_set(err, RK_EXIT_USAGE, "option --types: '%s' is not COL:TYPE", it);
			return rk_error_hint(err, "e.g. --types updated_at:timestamptz,amount:numeric");
		}
		for (size_t c = 0; c < p->ncols; c++)
			known |= rk_pair_same_name(p->cols[c], col);
		if (!known) {
			rk_error_set(err, RK_EXIT_USAGE, "option --types names column '%s', which the check does not use", col);
			free(col);
			return rk_error_hint(err, "--types only types the key, time, sum and hashed columns");
		}
		if (rk_type_from_name(type, false, &t) < 0) {
			rk_error_set(err, RK_EXIT_USAGE, "option --types: unknown type '%s' for column %s", type, col);
			free(col);
			return rk_error_hint(err, "types: smallint, integer, bigint, numeric, real, double precision, boolean, "
			                          "text, char, date, timestamp, timestamptz, uuid");
		}
		free(col);
	}
	return 0;
}

/* Types of an untyped side's columns (CSV): --types first, then the other
 * side's (a catalog, a schema), then a default by role (sums numeric,
 * others text). */
static int rk_assign_types(rk_side sides[2], const rk_check_spec *spec, const rk_plan *p, rk_error *err)
{
	for (int s = 0; s < 2; s++) {
		rk_side *me = &sides[s], *other = &sides[1 - s];

		if (rk_reader_has(me->reader, RK_CAP_TYPED))
			continue;
		for (size_t c = 0; c < p->ncols; c++) {
			const char *tn = rk_spec_type_for(spec, p->cols[c]);
			bool is_sum = false;

			for (size_t j = 0; j < p->nsum; j++)
				is_sum |= p->sum_idx[j] == c;
			if (tn) {
				if (rk_type_from_name(tn, false, &me->types[c]) < 0)
					return rk_error_set(err, RK_EXIT_USAGE, "option --types: unknown type '%s'", tn);
			} else if (rk_reader_has(other->reader, RK_CAP_TYPED)) {
				me->types[c] = other->types[c];
			} else if (c == p->time_idx && spec->time) {
				rk_error_set(err, RK_EXIT_USAGE, "the type of time column %s is unknown: both sides are CSV",
				             p->cols[c]);
				return rk_error_hint(err, "declare it, e.g. --types %s:timestamptz", p->cols[c]);
			} else {
				me->types[c] = is_sum ? RK_T_NUMERIC : RK_T_TEXT;
			}
		}
	}
	for (int s = 0; s < 2; s++) {
		const rk_side *me = &sides[s];
		rk_type tt = me->types[p->time_idx];

		if (spec->time && !rk_type_is_time(tt)) {
			rk_error_set(err, RK_EXIT_USAGE, "time column %s has type %s on the %s; it must be timestamptz, "
			                                 "timestamp or date",
			             p->cols[p->time_idx], rk_type_name(tt), me->name);
			return rk_error_hint(err, "choose another --time column, or declare its type with --types");
		}
		for (size_t j = 0; j < p->nsum; j++) {
			size_t c = p->sum_idx[j];
			if (!rk_type_summable(me->types[c])) {
				rk_error_set(err, RK_EXIT_USAGE, "sum column %s has type %s on the %s; exact sums need an "
				                                 "integer or numeric column",
				             p->cols[c], rk_type_name(me->types[c]),
				             me->name);
				return rk_error_hint(err, "remove it from --sum (it is still hashed), or cast it in a view");
			}
		}
	}
	return 0;
}

static rk_usec rk_check_gcd(rk_usec a, rk_usec b)
{
	while (b) {
		rk_usec t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Calendar windows: the boundaries as given, the grid they share (the
 * greatest common divisor of their distances from the first: an hour for
 * the days of a zone whose offsets differ by whole hours). */
static int rk_check_calendar(const rk_check_spec *spec, rk_check_result *res, rk_error *err)
{
	rk_usec closed_limit = spec->now - spec->settle, g = 0;

	if (spec->nbounds < 2 || spec->nbounds - 1 > RK_MAX_WINDOWS)
		return rk_error_set(err, RK_EXIT_USAGE, "calendar windows: %zu boundaries", spec->nbounds);
	res->nwindows = spec->nbounds - 1;
	res->bounds = rk_xcalloc(spec->nbounds, sizeof *res->bounds);
	for (size_t i = 0; i < spec->nbounds; i++) {
		if (i && spec->bounds[i] <= spec->bounds[i - 1])
			return rk_error_set(err, RK_EXIT_USAGE, "calendar windows: boundary %zu is not after the one before", i);
		res->bounds[i] = spec->bounds[i];
		g = rk_check_gcd(g, spec->bounds[i] - spec->bounds[0]);
	}
	res->calendar = true;
	res->from = spec->bounds[0];
	res->width = g;
	res->nclosed = 0;
	while (res->nclosed < res->nwindows && res->bounds[res->nclosed + 1] <= closed_limit)
		res->nclosed++;
	return 0;
}

static int rk_check_grid(const rk_check_spec *spec, rk_check_result *res, rk_error *err)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], w[RK_TIME_STRLEN];
	rk_usec closed_limit;

	if (spec->nbounds)
		return rk_check_calendar(spec, res, err);
	if (spec->from >= spec->to) {
		rk_error_set(err, RK_EXIT_USAGE, "--from %s is not before --to %s", rk_time_format(spec->from, a),
		             rk_time_format(spec->to, b));
		return rk_error_hint(err, "the check range is [from, to): give a later --to");
	}
	if (spec->width <= 0)
		return rk_error_set(err, RK_EXIT_USAGE, "--window must be positive");
	if ((spec->to - spec->from) % spec->width != 0) {
		rk_error_set(err, RK_EXIT_USAGE, "the range [%s, %s) is not a whole number of %s windows",
		             rk_time_format(spec->from, a), rk_time_format(spec->to, b), rk_duration_format(spec->width, w));
		return rk_error_hint(err, "move --to so that to - from is a multiple of --window");
	}
	if ((spec->to - spec->from) / spec->width > RK_MAX_WINDOWS) {
		rk_error_set(err, RK_EXIT_USAGE, "the range holds %lld windows of %s; at most %d are allowed",
		             (long long)((spec->to - spec->from) / spec->width), rk_duration_format(spec->width, w),
		             RK_MAX_WINDOWS);
		return rk_error_hint(err, "use a wider --window or a shorter range");
	}
	res->from = spec->from;
	res->width = spec->width;
	res->nwindows = (size_t)((spec->to - spec->from) / spec->width);
	res->bounds = rk_xcalloc(res->nwindows + 1, sizeof *res->bounds);
	for (size_t i = 0; i <= res->nwindows; i++)
		res->bounds[i] = spec->from + (rk_usec)i * spec->width;
	closed_limit = spec->now - spec->settle;
	if (closed_limit < spec->from + spec->width)
		res->nclosed = 0;
	else if (closed_limit >= spec->to)
		res->nclosed = res->nwindows;
	else
		res->nclosed = (size_t)((closed_limit - spec->from) / spec->width);
	return 0;
}

/*
 * The slices the digest pass keeps per window, where the drilldown starts:
 * narrowing a damaged window to its damaged slices then costs no read at
 * all.  The largest power of two up to RK_CHECK_SLICES that divides the
 * width, with at most RK_CHECK_MAX_SLICES in all; 1 without a drilldown.
 */
#define RK_CHECK_SLICES 64
#define RK_CHECK_MAX_SLICES 32768

static size_t rk_check_slices(const rk_check_spec *spec, size_t nwindows)
{
	size_t f = RK_CHECK_SLICES;

	if (!spec->findings || spec->nbounds || !spec->time)
		return 1;
	while (f > 1 && (spec->width % (rk_usec)f != 0 || nwindows > RK_CHECK_MAX_SLICES / f))
		f /= 2;
	return f;
}

static int rk_watermark_read(const rk_check_spec *spec, rk_check_result *res, rk_error *err);
static int rk_watermark_audit(rk_check_result *res, rk_error *err);

/*
 * The digest pass.  With --jobs N each PostgreSQL side is read by N
 * sessions over disjoint runs of whole windows, all in the first session's
 * exported snapshot, so the side is still one consistent picture; the
 * windows they fill never overlap, so they share the result arrays without
 * locks.  A CSV side is one stream.  *jobs receives the extra side objects
 * (freed by the caller, also on error).
 */
static int rk_digest_pass(rk_side sides[2], const rk_check_spec *spec, const rk_plan *plan, char **names[2],
                          rk_check_result *res, rk_side **jobs, size_t *njobs, rk_error *err)
{
	size_t want = spec->jobs > 1 ? spec->jobs : 1, n = 0;
	rk_side **list;
	int rc;

	if (want > res->nclosed)
		want = res->nclosed ? res->nclosed : 1;
	*jobs = rk_xcalloc(2 * want, sizeof **jobs);
	list = rk_xcalloc(2 * want, sizeof *list);
	for (int s = spec->source_known ? 1 : 0; s < 2; s++) {
		const char *snap = rk_reader_snapshot(sides[s].reader);
		size_t js = snap ? want : 1;

		for (size_t k = 0; k < js; k++) {
			rk_side *me = &sides[s];
			size_t a = k * res->nclosed / js, b = (k + 1) * res->nclosed / js;

			if (k > 0) {
				rk_reader_opts o = s ? spec->target : spec->source;
				rk_type *scratch = rk_xcalloc(plan->ncols, sizeof *scratch);

				me = &(*jobs)[(*njobs)++];
				rk_side_init(me, s, plan, res, sides[s].pushdown);
				me->meter = spec->meter;
				me->types = sides[s].types; /* shared, read-only */
				rk_side_zone(me, spec);
				o.snapshot = snap;
				me->reader = rk_reader_open(&o, err);
				me->server_text = me->reader && rk_reader_has(me->reader, RK_CAP_CANON_INTS);
				rc = me->reader ? rk_reader_bind(me->reader, (const char *const *)names[s], plan->ncols, scratch,
				                                 err)
				                : -1;
				free(scratch);
				if (rc < 0) {
					free(list);
					return -1;
				}
				if (res->keyed)
					rk_reader_keyspace(me->reader, plan->time_idx, &res->keyspace);
			}
			me->lo = res->bounds[a];
			me->hi = res->bounds[b];
			me->null_rows = k == 0;
			list[n++] = me;
		}
	}
	rk_log_info("digest pass: %zu reader(s)", n);
	rc = rk_sides_parallel(list, n, rk_digest_side, err);
	free(list);
	return rc;
}

/* The source's digests of the windows, known (rk_check_spec.source_known). */
static int rk_check_take_known(rk_check_result *res, const rk_check_known *k, size_t nsum, rk_error *err)
{
	rk_side_result *sr = &res->side[0];

	if (k->nwindows != res->nwindows)
		return rk_error_set(err, RK_EXIT_RUNTIME, "the source's known digests are of %zu windows, not %zu",
		                    k->nwindows, res->nwindows);
	memcpy(sr->rows, k->rows, res->nwindows * sizeof *sr->rows);
	memcpy(sr->hash, k->hash, res->nwindows * sizeof *sr->hash);
	if (nsum)
		memcpy(sr->sums, k->sums, res->nwindows * nsum * sizeof *sr->sums);
	sr->null_time = k->null_time;
	sr->total = 0;
	for (size_t w = 0; w < res->nclosed; w++)
		sr->total += sr->rows[w];
	return 0;
}

/* The pair's resolved names as the reports show them (unquoted). */
static void rk_check_names(rk_check_result *res, const rk_check_spec *eff, const rk_pair *pair)
{
	res->key_names = rk_xcalloc(eff->nkey ? eff->nkey : 1, sizeof *res->key_names);
	for (size_t i = 0; i < eff->nkey; i++)
		res->key_names[i] = rk_ident_unquote(eff->key[i]);
	res->sum_names = rk_xcalloc(eff->nsum ? eff->nsum : 1, sizeof *res->sum_names);
	for (size_t i = 0; i < eff->nsum; i++)
		res->sum_names[i] = rk_ident_unquote(eff->sum[i]);
	res->column_names = rk_xcalloc(eff->ncolumns ? eff->ncolumns : 1, sizeof *res->column_names);
	for (size_t i = 0; i < eff->ncolumns; i++)
		res->column_names[i] = rk_ident_unquote(eff->columns[i]);
	res->ncolumns = eff->ncolumns;
	res->key_origin = pair->key_origin;
	res->whole_row = pair->whole_row;
}

/* The scale each sum is shown at: the larger of what the two sides declare
 * (a PostgreSQL column's typmod or an expression's type; a CSV column's
 * --types numeric(p,s)).  Display only: sums compare by value. */
static void rk_check_scales(rk_check_result *res, const rk_check_spec *spec, const rk_side sides[2],
                            const rk_plan *p)
{
	res->sum_scale = rk_xcalloc(p->nsum ? p->nsum : 1, sizeof *res->sum_scale);
	for (size_t j = 0; j < p->nsum; j++) {
		size_t c = p->sum_idx[j];

		res->sum_scale[j] = -1;
		for (int s = 0; s < 2; s++) {
			int sc = -1;

			if (rk_reader_has(sides[s].reader, RK_CAP_TYPED)) {
				sc = rk_reader_scale(sides[s].reader, c);
			} else {
				const char *tn = rk_spec_type_for(spec, p->cols[c]);

				sc = tn ? rk_type_scale(tn) : -1;
			}
			if (sc > res->sum_scale[j])
				res->sum_scale[j] = sc;
		}
	}
}

/*
 * One check while it runs: what rk_check_run's phases share.  spec is the
 * caller's spec with the key and the hashed columns resolved (rk_run_plan)
 * and the diagnosis off with key segments (rk_run_bind); every phase reads
 * it, never the caller's.
 */
typedef struct rk_run {
	rk_check_spec spec;
	rk_check_result *res;
	rk_reader *rd[2]; /* open, until their side takes them (rk_run_bind) */
	rk_side sides[2];
	rk_pair pair;
	rk_plan plan;
	char **names[2]; /* per side: the bound columns' names as its reader takes them */
	rk_side *jobs;   /* the digest pass's extra readers (rk_digest_pass) */
	size_t njobs;
	bool borrowed; /* the readers are the caller's (spec.readers): left open */
} rk_run;

/* The plan: the windows, the watermark, both sides open, the key and the
 * hashed columns resolved, the columns' roles. */
static int rk_run_plan(rk_run *run, rk_error *err)
{
	rk_check_spec *spec = &run->spec;
	rk_check_result *res = run->res;

	res->nsum = spec->nsum;
	if (spec->source_known && (spec->findings || !spec->time)) {
		/* the drilldown reads the source's rows */
		rk_error_set(err, RK_EXIT_RUNTIME, "known source digests are for a check of time windows without findings");
		return -1;
	}
	if (spec->time && rk_check_grid(spec, res, err) < 0)
		return -1;
	if (spec->time && spec->watermark_query && rk_watermark_read(spec, res, err) < 0)
		return -1;
	for (int s = 0; s < 2; s++) {
		rk_reader_opts o = s ? spec->target : spec->source;

		/* parallel readers of this side will share its snapshot */
		o.export_snapshot = spec->jobs > 1;
		if (run->borrowed)
			run->rd[s] = spec->readers[s];
		else if (!(run->rd[s] = rk_reader_open(&o, err)))
			return -1;
	}
	/* the key and the hashed columns, discovered when not given */
	if (rk_pair_resolve(spec, run->rd[0], run->rd[1], &run->pair, err) < 0)
		return -1;
	spec->key = (const char *const *)run->pair.key;
	spec->nkey = run->pair.nkey;
	spec->columns = (const char *const *)run->pair.columns;
	spec->ncolumns = run->pair.ncolumns;
	res->nkey = spec->nkey;
	rk_plan_init(&run->plan, spec);
	return rk_check_types_option(spec, &run->plan, err);
}

/* Each side bound to the plan's columns, their types agreed, the key
 * segments planned (no time column); what the result says of the columns,
 * and the warnings asked while the sides' snapshots are new. */
static int rk_run_bind(rk_run *run, rk_error *err)
{
	rk_check_spec *spec = &run->spec;
	rk_check_result *res = run->res;
	rk_plan *plan = &run->plan;
	rk_side *sides = run->sides;

	for (int s = 0; s < 2; s++) {
		rk_side *me = &sides[s];
		bool sql_names = rk_reader_has(run->rd[s], RK_CAP_SQL_NAMES);

		rk_side_init(me, s, plan, res, spec->pushdown);
		me->meter = spec->meter;
		me->types = rk_xcalloc(plan->ncols, sizeof *me->types);
		me->reader = run->rd[s];
		run->rd[s] = NULL;
		me->server_text = rk_reader_has(me->reader, RK_CAP_CANON_INTS);
		run->names[s] = rk_xcalloc(plan->ncols, sizeof *run->names[s]);
		for (size_t c = 0; c < plan->ncols; c++)
			run->names[s][c] = sql_names ? rk_xstrdup(plan->cols[c]) : rk_ident_unquote(plan->cols[c]);
		if (rk_reader_bind(me->reader, (const char *const *)run->names[s], plan->ncols, me->types, err) < 0)
			return -1;
		res->side[s].describe = rk_xstrdup(rk_reader_describe(me->reader));
	}
	if (rk_assign_types(sides, spec, plan, err) < 0)
		return -1;
	if (!spec->time && rk_segments_plan(spec, sides, plan, res, err) < 0)
		return -1;
	res->time_zone = spec->time_zone;
	for (int s = 0; s < 2; s++)
		rk_side_zone(&sides[s], spec);
	{
		const rk_type *const types[2] = { sides[0].types, sides[1].types };

		rk_pair_kinds(&run->pair, (const char *const *)plan->cols, plan->ncols, types);
		rk_plan_numbers(plan, types);
	}
	if (spec->range_warning && (res->side[0].time_zoneless || res->side[1].time_zoneless))
		rk_diagnose_note(res, "time_column_zone", spec->range_warning);
	rk_check_names(res, spec, &run->pair);
	rk_check_scales(res, spec, sides, plan);
	rk_drift_take(&res->drift, &run->pair);
	if (!spec->time) {
		/* the diagnosis reads time: it has nothing to say about key segments */
		spec->diagnose = false;
		spec->watermark_query = NULL;
	}
	if (spec->diagnose && spec->findings) {
		/* asked now, while the sides' snapshots are new */
		int own[2] = { rk_reader_backend_pid(sides[0].reader), rk_reader_backend_pid(sides[1].reader) };

		rk_diagnose_warn(res, sides[0].reader, plan->key_idx, plan->nkey, own, 2);
	}
	return 0;
}

/* The digest pass: each window's count, hash and sums on both sides. */
static int rk_run_scan(rk_run *run, rk_error *err)
{
	const rk_check_spec *spec = &run->spec;
	rk_check_result *res = run->res;

	res->status = rk_xcalloc(res->nwindows, sizeof *res->status);
	res->win_kind = rk_xcalloc(res->nwindows, sizeof *res->win_kind);
	res->slices = rk_check_slices(spec, res->nwindows);
	for (int s = 0; s < 2; s++) {
		res->side[s].rows = rk_xcalloc(res->nwindows, sizeof(uint64_t));
		res->side[s].hash = rk_xcalloc(res->nwindows, sizeof(rk_u128));
		res->side[s].slice_rows = rk_xcalloc(res->nwindows * res->slices, sizeof(uint64_t));
		res->side[s].slice_hash = rk_xcalloc(res->nwindows * res->slices, sizeof(rk_u128));
		res->side[s].slices_ok = true;
		res->side[s].sums = rk_xcalloc(res->nwindows * (spec->nsum ? spec->nsum : 1), sizeof(rk_sum));
		run->sides[s].lo = res->from;
		run->sides[s].hi = res->bounds[res->nclosed];
	}
	rk_log_info("checking %zu closed of %zu windows: %s against %s", res->nclosed, res->nwindows,
	            res->side[0].describe, res->side[1].describe);
	if (spec->meter) {
		/* key segments: counted in segments (rk_side_meter) */
		atomic_store(&spec->meter->span, res->keyed ? (int64_t)res->nclosed
		                                            : (int64_t)(res->bounds[res->nclosed] - res->from));
		atomic_store(&spec->meter->phase, RK_PHASE_DIGEST);
	}
	if (rk_digest_pass(run->sides, spec, &run->plan, run->names, res, &run->jobs, &run->njobs, err) < 0)
		return -1;
	/* each window's count and hash: the sum of its slices' */
	for (int s = 0; s < 2; s++) {
		rk_side_result *sr = &res->side[s];

		for (size_t i = 0; i < res->nwindows * res->slices; i++) {
			sr->rows[i / res->slices] += sr->slice_rows[i];
			sr->hash[i / res->slices] += sr->slice_hash[i];
		}
	}
	if (spec->source_known && rk_check_take_known(res, spec->source_known, spec->nsum, err) < 0)
		return -1;
	return 0;
}

/* The verdict: each closed window matches or differs, the others are open. */
static void rk_run_compare(rk_run *run)
{
	const rk_check_spec *spec = &run->spec;
	rk_check_result *res = run->res;

	for (size_t w = 0; w < res->nwindows; w++) {
		bool same = true;

		if (w >= res->nclosed) {
			res->status[w] = RK_WIN_OPEN;
			continue;
		}
		same = res->side[0].rows[w] == res->side[1].rows[w] && res->side[0].hash[w] == res->side[1].hash[w];
		for (size_t j = 0; same && j < spec->nsum; j++)
			same = rk_sum_equal(&res->side[0].sums[w * spec->nsum + j], &res->side[1].sums[w * spec->nsum + j]);
		res->status[w] = same ? RK_WIN_MATCH : RK_WIN_DIFFER;
		res->differ |= !same;
	}
	res->differ |= res->side[0].null_time > 0 || res->side[1].null_time > 0;
}

/* With findings: the drilldown of the windows that differ, the history of
 * the damaged windows, then with the diagnosis the changed keys' columns
 * and the likely causes. */
static int rk_run_findings(rk_run *run, rk_error *err)
{
	const rk_check_spec *spec = &run->spec;
	rk_check_result *res = run->res;
	const rk_plan *plan = &run->plan;
	rk_side *sides = run->sides;

	if (spec->meter && res->differ)
		atomic_store(&spec->meter->phase, RK_PHASE_DRILL);
	if (rk_drill_run(sides, spec, res, err) < 0)
		return -1;
	/* which commits wrote the damaged windows, where a side keeps a log */
	for (int s = 0; s < 2; s++)
		rk_history_collect(res, s, sides[s].reader, plan->time_idx);
	if (!spec->diagnose)
		return 0;
	if (rk_keys_run(sides, spec, res, err) < 0)
		return -1;
	return rk_diagnose_run(res, spec->settle, sides[0].reader, plan->key_idx, plan->nkey, plan->time_idx, err);
}

/* Everything of run but its result; logs what the sides' readers read. */
static void rk_run_release(rk_run *run)
{
	rk_check_result *res = run->res;

	for (size_t j = 0; j < run->njobs; j++)
		rk_side_release(&run->jobs[j]);
	free(run->jobs);
	for (int s = 0; s < 2; s++) {
		for (size_t c = 0; run->names[s] && c < run->plan.ncols; c++)
			free(run->names[s][c]);
		free(run->names[s]);
		free(run->sides[s].types);
		if (run->borrowed)
			run->sides[s].reader = NULL;
		rk_side_release(&run->sides[s]);
	}
	for (int s = 0; s < 2; s++)
		if (res->side[s].reads_files)
			rk_log_info("%s: read %" PRIu64 " files, %" PRIu64 " bytes", s ? "target" : "source",
			            res->side[s].files_read, res->side[s].bytes_read);
	if (!run->borrowed) {
		rk_reader_free(run->rd[0]);
		rk_reader_free(run->rd[1]);
	}
	rk_plan_free(&run->plan);
	rk_pair_free(&run->pair);
}

int rk_check_run(const rk_check_spec *spec, rk_check_result **out, rk_error *err)
{
	rk_run run;
	int rc = -1;

	memset(&run, 0, sizeof run);
	run.spec = *spec;
	run.borrowed = spec->readers != NULL;
	run.res = rk_xcalloc(1, sizeof *run.res);
	if (rk_run_plan(&run, err) < 0 || rk_run_bind(&run, err) < 0 || rk_run_scan(&run, err) < 0)
		goto done;
	rk_run_compare(&run);
	if (run.spec.findings && rk_run_findings(&run, err) < 0)
		goto done;
	if (run.spec.meter)
		atomic_store(&run.spec.meter->phase, RK_PHASE_DONE);
	if (run.res->has_watermark && rk_watermark_audit(run.res, err) < 0)
		goto done;
	rc = 0;
done:
	rk_run_release(&run);
	if (rc < 0) {
		rk_check_result_free(run.res);
		return -1;
	}
	*out = run.res;
	return 0;
}

int rk_check_key(const rk_check_spec *spec, char ***key, size_t *nkey, rk_error *err)
{
	rk_reader *rd[2] = { NULL, NULL };
	rk_pair pair;
	int rc = -1;

	*key = NULL;
	*nkey = 0;
	if (!(rd[0] = rk_reader_open(&spec->source, err)) || !(rd[1] = rk_reader_open(&spec->target, err)) ||
	    rk_pair_resolve(spec, rd[0], rd[1], &pair, err) < 0)
		goto done;
	*key = pair.key;
	*nkey = pair.nkey;
	pair.key = NULL;
	pair.nkey = 0;
	rk_pair_free(&pair);
	rc = 0;
done:
	rk_reader_free(rd[0]);
	rk_reader_free(rd[1]);
	return rc;
}

/* Reads the watermark before either side is read (rk_reader_watermark). */
static int rk_watermark_read(const rk_check_spec *spec, rk_check_result *res, rk_error *err)
{
	int rc = rk_reader_watermark(&spec->source, spec->watermark_query, &res->watermark, err);

	if (rc == 1) {
		rk_error_set(err, RK_EXIT_USAGE, "--watermark-query needs a PostgreSQL source, not %s", spec->source.conn);
		return rk_error_hint(err, "the watermark lives in the source database; drop the option for a source of %s",
		                     rk_conn_noun(spec->source.conn));
	}
	if (rc < 0)
		return -1;
	res->has_watermark = true;
	return 0;
}

/* Missing keys at or before the watermark break its claim.  0, or -1 with
 * err when a read of the findings failed. */
static int rk_watermark_audit(rk_check_result *res, rk_error *err)
{
	const rk_finding *f;
	rk_fwalk fw;

	rk_fwalk_start(&fw, res);
	while ((f = rk_fwalk_next(&fw, NULL)) != NULL)
		if (f->kind == RK_FIND_MISSING && f->source_time != RK_USEC_NINF && f->source_time <= res->watermark)
			res->behind_watermark_missing++;
	if (rk_fwalk_end(&fw, err) < 0)
		return -1;
	if (res->behind_watermark_missing)
		res->differ = true;
	return 0;
}
