/*
 * side.c - what the digest pass, the server's digests and the drilldown
 * share about one side: the column plan, the row and key encodings, and
 * running side objects in parallel.
 */
#include "check/side.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/env.h"

static size_t rk_plan_add(rk_plan *p, const char *name)
{
	for (size_t i = 0; i < p->ncols; i++)
		if (!strcmp(p->cols[i], name))
			return i;
	p->cols = rk_xrealloc(p->cols, (p->ncols + 1) * sizeof *p->cols);
	p->cols[p->ncols] = rk_xstrdup(name);
	return p->ncols++;
}

void rk_plan_init(rk_plan *p, const rk_check_spec *spec)
{
	memset(p, 0, sizeof *p);
	p->hash_idx = rk_xcalloc(spec->ncolumns, sizeof *p->hash_idx);
	p->key_idx = rk_xcalloc(spec->nkey, sizeof *p->key_idx);
	p->sum_idx = rk_xcalloc(spec->nsum, sizeof *p->sum_idx);
	for (size_t i = 0; i < spec->ncolumns; i++)
		p->hash_idx[p->nhash++] = rk_plan_add(p, spec->columns[i]);
	for (size_t i = 0; i < spec->nkey; i++)
		p->key_idx[p->nkey++] = rk_plan_add(p, spec->key[i]);
	/* key segments: the first key column places a row, as the time
	 * column does (it is not hashed twice: time_hashpos stays -1) */
	p->time_idx = spec->time ? rk_plan_add(p, spec->time) : p->key_idx[0];
	for (size_t i = 0; i < spec->nsum; i++)
		p->sum_idx[p->nsum++] = rk_plan_add(p, spec->sum[i]);
	p->sum_hashpos = rk_xcalloc(spec->nsum ? spec->nsum : 1, sizeof *p->sum_hashpos);
	p->time_hashpos = -1;
	for (size_t j = 0; j < p->nsum; j++) {
		p->sum_hashpos[j] = -1;
		for (size_t i = 0; i < p->nhash; i++)
			if (p->hash_idx[i] == p->sum_idx[j])
				p->sum_hashpos[j] = (long)i;
	}
	for (size_t i = 0; i < p->nhash && spec->time; i++)
		if (p->hash_idx[i] == p->time_idx)
			p->time_hashpos = (long)i;
	p->hash_is_row = p->nhash == p->ncols;
	for (size_t i = 0; i < p->nhash; i++)
		if (p->hash_idx[i] != i)
			p->hash_is_row = false;
}

void rk_plan_numbers(rk_plan *p, const rk_type *const types[2])
{
	for (int s = 0; s < 2; s++) {
		free(p->as_float[s]);
		p->as_float[s] = rk_xcalloc(p->ncols ? p->ncols : 1, sizeof *p->as_float[s]);
		p->convert[s] = false;
	}
	for (size_t c = 0; c < p->ncols; c++) {
		rk_type as = rk_type_numbers_as(types[0][c], types[1][c]);
		int s = as == types[1][c] ? 0 : 1;

		if (as == RK_T_UNKNOWN)
			continue;
		/* the exact side's values, as the float side's type holds them */
		p->as_float[s][c] = as;
		p->convert[s] = true;
	}
}

void rk_plan_free(rk_plan *p)
{
	for (size_t i = 0; i < p->ncols; i++)
		free(p->cols[i]);
	free(p->cols);
	free(p->as_float[0]);
	free(p->as_float[1]);
	free(p->hash_idx);
	free(p->key_idx);
	free(p->sum_idx);
	free(p->sum_hashpos);
}

void rk_side_init(rk_side *s, int idx, const rk_plan *plan, rk_check_result *res, rk_pushdown pushdown)
{
	size_t n = plan->nhash ? plan->nhash : 1;

	memset(s, 0, sizeof *s);
	s->idx = idx;
	s->name = idx ? "target" : "source";
	s->plan = plan;
	s->res = res;
	s->pushdown = pushdown;
	s->canon_off = rk_xcalloc(n, sizeof *s->canon_off);
	s->canon_len = rk_xcalloc(n, sizeof *s->canon_len);
	s->canon_dec = rk_xcalloc(n, sizeof *s->canon_dec);
	s->large_value = rk_large_value_bound();
}

void rk_side_release(rk_side *s)
{
	uint64_t files, bytes;

	if (s->reader && s->res && rk_reader_io(s->reader, &files, &bytes)) {
		rk_side_result *sr = &s->res->side[s->idx];

		sr->reads_files = true;
		sr->files_read += files;
		sr->bytes_read += bytes;
	}
	rk_reader_free(s->reader);
	s->reader = NULL;
	rk_buf_free(&s->enc);
	rk_buf_free(&s->tmp);
	free(s->canon_off);
	free(s->canon_len);
	free(s->canon_dec);
	free(s->large_cols);
	s->large_cols = NULL;
	s->canon_off = NULL;
	s->canon_len = NULL;
	s->canon_dec = NULL;
}

int rk_side_bad_value(const rk_side *s, size_t col, const rk_field *f, const char *why, rk_error *err)
{
	int shown = f->len > 80 ? 80 : (int)f->len;

	rk_error_set(err, RK_EXIT_USAGE, "value '%.*s%s' in column %s is not a valid %s: %s", shown, f->p,
	             f->len > 80 ? "..." : "", s->plan->cols[col], rk_type_name(s->types[col]), why);
	rk_error_hint(err, "fix the data, or declare the column's type with --types %s:TYPE", s->plan->cols[col]);
	err->field = (int)col;
	return -1;
}

/* The row encoding of fields a binary COPY reader encoded already (their
 * enc): the hashed columns' encodings, in --columns order. */
static void rk_side_encode_pre(rk_side *s, const rk_field *f)
{
	const rk_plan *p = s->plan;

	rk_buf_reset(&s->enc);
	for (size_t i = 0; i < p->nhash; i++) {
		const rk_field *x = &f[p->hash_idx[i]];

		rk_buf_append(&s->enc, x->enc, x->enc_len);
	}
}

/*
 * Re-encodes the columns idx[0..n) of s->enc that plan->as_float marks for
 * this side: an exact number's canonical text (digest.md) parsed as the
 * float type of the other side would parse PostgreSQL's text of it, as
 * numeric::float8 does, and encoded as such a float is.  Other columns are
 * copied; with offs, each column's canonical text is noted again
 * (s->canon_off, s->canon_len).
 */
static int rk_side_numbers(rk_side *s, const rk_field *f, const size_t *idx, size_t n, bool offs, rk_error *err)
{
	const rk_type *as = s->plan->as_float[s->idx];
	const unsigned char *src = (const unsigned char *)s->enc.data;
	size_t at = 0;
	const char *why;

	rk_buf_reset(&s->tmp);
	for (size_t i = 0; i < n; i++) {
		size_t start = s->tmp.len;
		uint32_t len;

		if (at >= s->enc.len || src[at] == 0) {
			rk_canon_enc_null(&s->tmp);
			at++;
			continue;
		}
		len = (uint32_t)src[at + 1] | (uint32_t)src[at + 2] << 8 | (uint32_t)src[at + 3] << 16 |
		      (uint32_t)src[at + 4] << 24;
		if (as[idx[i]] != RK_T_UNKNOWN) {
			if (rk_canon_enc_value(as[idx[i]], s->enc.data + at + RK_CANON_HDR, len, &s->tmp, &why) < 0)
				return rk_side_bad_value(s, idx[i], &f[idx[i]], why, err);
		} else {
			rk_buf_append(&s->tmp, s->enc.data + at, RK_CANON_HDR + (size_t)len);
		}
		at += RK_CANON_HDR + (size_t)len;
		if (offs) {
			s->canon_off[i] = start + RK_CANON_HDR;
			s->canon_len[i] = (uint32_t)(s->tmp.len - start - RK_CANON_HDR);
		}
	}
	{
		rk_buf swap = s->enc;

		s->enc = s->tmp;
		s->tmp = swap;
	}
	return 0;
}

size_t rk_large_value_bound(void)
{
	return rk_env_bytes(RK_LARGE_VALUE_ENV, RK_LARGE_VALUE_DEFAULT, 1, SIZE_MAX);
}

const bool *rk_side_large_cols(rk_side *s)
{
	const rk_plan *p = s->plan;

	free(s->large_cols);
	s->large_cols = rk_xcalloc(p->ncols ? p->ncols : 1, sizeof *s->large_cols);
	for (size_t c = 0; c < p->ncols && !p->convert[s->idx]; c++)
		s->large_cols[c] = s->types[c] == RK_T_TEXT && c != p->time_idx;
	for (size_t j = 0; j < p->nsum; j++)
		s->large_cols[p->sum_idx[j]] = false;
	return s->large_cols;
}

void rk_side_large_scan(rk_side *s, rk_scan *scan, rk_row_fn late)
{
	const rk_plan *p = s->plan;

	rk_side_large_cols(s);
	for (size_t i = 0; i < p->nkey; i++)
		s->large_cols[p->key_idx[i]] = false;
	scan->large_bound = s->large_value;
	scan->large_cols = s->large_cols;
	scan->late = late;
}

int rk_side_late(rk_side *s, const rk_field *f, rk_row_fn fn, rk_error *err)
{
	int rc;

	s->late = true;
	rc = fn(s, f, err);
	s->late = false;
	return rc;
}

/* Where a value read back goes: the row's hash, and s->tap. */
typedef struct rk_side_sink {
	rk_side *s;
	size_t col;
	rk_row_hasher *hs;
} rk_side_sink;

static int rk_side_chunk(void *ctx, const char *p, size_t len, rk_error *err)
{
	rk_side_sink *k = ctx;

	(void)err;
	rk_row_hasher_update(k->hs, p, len);
	if (k->s->tap)
		k->s->tap(k->s->tap_ctx, k->col, p, len);
	return 0;
}

/* A value sent out of band, column c's of x->len bytes, into hs: its
 * header, then its bytes as the reader reads them back. */
static int rk_side_pull(rk_side *s, size_t c, const rk_field *x, rk_row_hasher *hs, rk_error *err)
{
	rk_side_sink k = { s, c, hs };

	rk_row_hasher_value(hs, (uint32_t)x->len);
	return rk_reader_large_value(s->reader, c, s->plan->cols[c], x->len, rk_side_chunk, &k, err);
}

/* A large text value (rk_side_hash_row), column c's, into the streaming
 * hash hs: what s->enc holds past *fed first, then the value's header and
 * its bytes where they lie, or as the reader reads them back (x->large).
 * *streaming says whether hs has been started. */
static int rk_side_stream_value(rk_side *s, size_t c, const rk_field *x, rk_row_hasher *hs, bool *streaming,
                                size_t *fed, rk_error *err)
{
	if (!*streaming) {
		rk_row_hasher_reset(hs);
		*streaming = true;
	}
	rk_row_hasher_update(hs, s->enc.data + *fed, s->enc.len - *fed);
	*fed = s->enc.len;
	if (x->large)
		return rk_side_pull(s, c, x, hs, err);
	rk_row_hasher_value(hs, (uint32_t)x->len);
	rk_row_hasher_update(hs, x->p, x->len);
	return 0;
}

/* A late row a binary COPY reader encoded (every field's enc but the large
 * ones'): the hashed columns' encodings into hs, the large values pulled. */
static int rk_side_hash_late(rk_side *s, const rk_field *f, rk_u128 *h, rk_error *err)
{
	const rk_plan *p = s->plan;
	rk_row_hasher hs;

	rk_row_hasher_reset(&hs);
	for (size_t i = 0; i < p->nhash; i++) {
		size_t c = p->hash_idx[i];

		if (!f[c].large)
			rk_row_hasher_update(&hs, f[c].enc, f[c].enc_len);
		else if (rk_side_pull(s, c, &f[c], &hs, err) < 0)
			return -1;
	}
	*h = rk_row_hasher_final(&hs);
	return 0;
}

/* The hashed columns into s->enc; with hs, large text values go to hs as
 * they lie instead, and *streamed says whether any did (the row's hash is
 * then hs's once the rest of s->enc is fed). */
static int rk_side_encode_hashed(rk_side *s, const rk_field *f, rk_usec t, rk_row_hasher *hs, bool *streamed,
                                 rk_error *err)
{
	size_t fed = 0;
	bool streaming = false;
	const rk_plan *p = s->plan;
	const char *why;
	rk_type tt = s->types[p->time_idx];

	/* a zoneless value placed in its zone encodes as read (digest.md) */
	if (s->zoned)
		t = s->time_raw;
	/* infinities keep their words; dates are not instants in canonical form */
	bool derive = (tt == RK_T_TIMESTAMP || tt == RK_T_TIMESTAMPTZ) && t != RK_USEC_PINF && t != RK_USEC_NINF;

	if (f[0].enc) {
		rk_side_encode_pre(s, f);
		return 0;
	}
	rk_buf_reset(&s->enc);
	for (size_t i = 0; i < p->nhash; i++) {
		size_t c = p->hash_idx[i], at = s->enc.len;

		s->canon_dec[i].ok = false;
		if (f[c].null) {
			rk_canon_enc_null(&s->enc);
			continue;
		}
		if (hs && s->types[c] == RK_T_TEXT && (f[c].large || f[c].len >= s->large_value) && f[c].len <= UINT32_MAX) {
			if (rk_side_stream_value(s, c, &f[c], hs, &streaming, &fed, err) < 0)
				return -1;
			s->canon_off[i] = s->enc.len;
			s->canon_len[i] = 0;
			continue;
		}
		if ((long)i == p->time_hashpos && derive)
			/* the canonical text of a timestamp is its instant in decimal
			 * microseconds (digest.md): derived from the instant already
			 * parsed instead of parsing the text again */
			rk_canon_enc_instant(&s->enc, &s->sec_digits, t);
		else if ((s->types[c] == RK_T_TEXT || (s->server_text && rk_type_is_int(s->types[c]))) &&
		         f[c].len <= UINT32_MAX)
			/* a text's canonical form is itself; int2out/int4out/int8out
			 * print the canonical form (digest.md): in as it is */
			rk_canon_enc_raw(&s->enc, f[c].p, f[c].len);
		else if (s->types[c] == RK_T_NUMERIC && f[c].len <= UINT32_MAX &&
		         rk_canon_enc_numeric_plain(&s->enc, f[c].p, f[c].len, &s->canon_dec[i]))
			/* numeric_out's form: canonical text and value in one walk */
			;
		else if (rk_canon_enc_value(s->types[c], f[c].p, f[c].len, &s->enc, &why) < 0)
			return rk_side_bad_value(s, c, &f[c], why, err);
		s->canon_off[i] = at + RK_CANON_HDR;
		s->canon_len[i] = (uint32_t)(s->enc.len - at - RK_CANON_HDR);
	}
	if (streaming)
		rk_row_hasher_update(hs, s->enc.data + fed, s->enc.len - fed);
	if (streamed)
		*streamed = streaming;
	return 0;
}

int rk_side_encode_row(rk_side *s, const rk_field *f, rk_usec t, rk_error *err)
{
	if (rk_side_encode_hashed(s, f, t, NULL, NULL, err) < 0)
		return -1;
	return s->plan->convert[s->idx] ? rk_side_numbers(s, f, s->plan->hash_idx, s->plan->nhash, true, err) : 0;
}

int rk_side_hash_row(rk_side *s, const rk_field *f, rk_usec t, rk_u128 *h, rk_error *err)
{
	rk_row_hasher hs;
	bool streamed = false;

	if (s->late && f[s->plan->time_idx].enc)
		return rk_side_hash_late(s, f, h, err);
	/* a float re-encoding reads every value back from s->enc */
	if (s->plan->convert[s->idx] || f[0].enc) {
		if (rk_side_encode_row(s, f, t, err) < 0)
			return -1;
		*h = rk_row_hash(s->enc.data, s->enc.len);
		return 0;
	}
	if (rk_side_encode_hashed(s, f, t, &hs, &streamed, err) < 0)
		return -1;
	*h = streamed ? rk_row_hasher_final(&hs) : rk_row_hash(s->enc.data, s->enc.len);
	return 0;
}

int rk_side_encode_key(rk_side *s, const rk_field *f, rk_error *err)
{
	const rk_plan *p = s->plan;
	const char *why;

	rk_buf_reset(&s->enc);
	for (size_t i = 0; i < p->nkey; i++) {
		size_t c = p->key_idx[i];
		if (f[c].enc)
			rk_buf_append(&s->enc, f[c].enc, f[c].enc_len);
		else if (f[c].null)
			rk_canon_enc_null(&s->enc);
		else if (rk_canon_enc_value(s->types[c], f[c].p, f[c].len, &s->enc, &why) < 0)
			return rk_side_bad_value(s, c, &f[c], why, err);
	}
	return p->convert[s->idx] ? rk_side_numbers(s, f, p->key_idx, p->nkey, false, err) : 0;
}

void rk_side_zone(rk_side *s, const rk_check_spec *spec)
{
	s->zoned = spec->time_zone && !rk_tz_is_utc(spec->time_zone) && s->types[s->plan->time_idx] == RK_T_TIMESTAMP;
	if (s->zoned)
		rk_tz_placer_init(&s->placer, spec->time_zone);
	s->res->side[s->idx].time_zoneless = s->types[s->plan->time_idx] == RK_T_TIMESTAMP;
	s->res->side[s->idx].zoned = s->zoned;
}

int rk_side_scan(rk_side *s, const rk_scan *scan, rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_scan wall;
	rk_range *r;
	int rc;

	if (!s->zoned || !scan->nranges)
		return rk_reader_scan(s->reader, scan, fn, ctx, err);
	wall = *scan;
	r = rk_xcalloc(scan->nranges, sizeof *r);
	for (size_t i = 0; i < scan->nranges; i++)
		rk_tz_wall_range(s->placer.z, scan->ranges[i].from, scan->ranges[i].to, &r[i].from, &r[i].to);
	/* widened ranges may meet: a reader takes them sorted and disjoint
	 * (ranges with key bits are taken one by one, as they are) */
	if (!scan->keybits) {
		size_t n = 0;

		for (size_t i = 0; i < scan->nranges; i++) {
			if (n && r[i].from <= r[n - 1].to) {
				if (r[i].to > r[n - 1].to)
					r[n - 1].to = r[i].to;
				continue;
			}
			r[n++] = r[i];
		}
		wall.nranges = n;
	}
	wall.ranges = r;
	rc = rk_reader_scan(s->reader, &wall, fn, ctx, err);
	free(r);
	return rc;
}

/* Key segments: the share of a side done counts segments, not
 * microseconds (their open ends span the whole int64 range). */
static void rk_side_meter_segments(const rk_side *s, bool at_end, rk_usec *done, rk_usec *span)
{
	size_t w0 = rk_check_window_of(s->res, s->lo);

	*span = s->hi > s->lo ? (rk_usec)(rk_check_window_of(s->res, s->hi - 1) + 1 - w0) : 0;
	*done = at_end ? *span : s->win_hi > s->lo && s->win > w0 ? (rk_usec)(s->win - w0)
	                                                          : 0;
}

void rk_side_meter(rk_side *s, bool at_end)
{
	rk_usec done, span;

	if (!s->meter)
		return;
	if (s->res->keyed) {
		rk_side_meter_segments(s, at_end, &done, &span);
	} else {
		span = s->hi - s->lo;
		done = at_end ? span : s->win_hi > s->lo ? (s->win_lo > s->lo ? s->win_lo : s->lo) - s->lo
		                                         : 0;
	}
	if (done > span)
		done = span;
	atomic_fetch_add_explicit(&s->meter->rows[s->idx], s->rows_read - s->meter_rows, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->meter->done[s->idx], done - s->meter_done, memory_order_relaxed);
	s->meter_rows = s->rows_read;
	s->meter_done = done;
}

typedef struct rk_thread_arg {
	rk_side *side;
	int (*fn)(rk_side *s);
} rk_thread_arg;

static void *rk_side_thread(void *arg)
{
	rk_thread_arg *a = arg;

	a->side->rc = a->fn(a->side);
	return NULL;
}

int rk_sides_parallel(rk_side *const *list, size_t n, int (*fn)(rk_side *s), rk_error *err)
{
	pthread_t *th = rk_xcalloc(n, sizeof *th);
	rk_thread_arg *args = rk_xcalloc(n, sizeof *args);
	bool *started = rk_xcalloc(n, sizeof *started);
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		rk_error_clear(&list[i]->err);
		list[i]->rows_read = list[i]->null_time = list[i]->total = 0;
		list[i]->dst_ambiguous = list[i]->dst_nonexistent = 0;
		list[i]->meter_rows = 0;
		list[i]->meter_done = 0;
		args[i].side = list[i];
		args[i].fn = fn;
	}
	/* the first runs on this thread; the others each get their own */
	for (size_t i = 1; i < n; i++)
		started[i] = pthread_create(&th[i], NULL, rk_side_thread, &args[i]) == 0;
	list[0]->rc = fn(list[0]);
	for (size_t i = 1; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			list[i]->rc = fn(list[i]);
	}
	for (size_t i = 0; i < n; i++) {
		rk_side_result *sr = &list[i]->res->side[list[i]->idx];
		sr->rows_read += list[i]->rows_read;
		sr->null_time += list[i]->null_time;
		sr->dst_ambiguous += list[i]->dst_ambiguous;
		sr->dst_nonexistent += list[i]->dst_nonexistent;
		sr->total += list[i]->total;
		if (list[i]->whole_windows)
			sr->slices_ok = false;
		if (list[i]->rc < 0 && rc == 0) {
			*err = list[i]->err;
			rc = -1;
		}
	}
	free(th);
	free(args);
	free(started);
	return rc;
}
