/*
 * window.c - the aggregates reckon_window and reckon_windows of the reckon
 * PostgreSQL extension: a window's whole digest (row count, hash, sums) in
 * one pass, and the digests of many fixed-width time windows at once.  The
 * row encoding and the call-site cache are reckon.c's (reckon_impl.h).
 */
#include "postgres.h"

#include "reckon_impl.h"

/* ------------------------------------------------------------------------
 * The aggregate reckon_window(roles bytea, VARIADIC "any") -> text[]: all of
 * a window's digest in one pass over its rows - {row count, window hash,
 * exact sum of each summed column} - each row encoded once, its summed
 * values added from the canonical text the encoding holds, with the
 * client's own rk_sum_add.  roles spells one letter per column: h hashed,
 * s summed, b both; the sums come in the order of their columns.  This is
 * the statement of reckon check --pushdown (src/io/pgreader.c): one
 * aggregate instead of count(*), reckon_digest and a numeric sum() per
 * column, which cost a transition call each and, for sum(), numeric
 * arithmetic per row.
 * ---------------------------------------------------------------------- */

typedef struct rkx_window {
	int64 count;
	rkx_u128 hash;
	int32 nsum;
	bool *overflow; /* the sum would not fit 128 bits */
	rk_sum *sums;   /* 16-byte aligned inside the same chunk */
} rkx_window;

static rkx_window *rkx_window_new(MemoryContext ctx, int nsum)
{
	size_t sz = MAXALIGN(sizeof(rkx_window)) + MAXALIGN(nsum * sizeof(bool)) + 16 + nsum * sizeof(rk_sum);
	rkx_window *st = MemoryContextAllocZero(ctx, sz);
	char *p = (char *)st + MAXALIGN(sizeof(rkx_window));

	st->nsum = nsum;
	st->overflow = (bool *)p;
	p += MAXALIGN(nsum * sizeof(bool));
	st->sums = (rk_sum *)TYPEALIGN(16, p);
	return st;
}

/* Adds a summed value to sum j: its digits when the encoder had them,
 * else its canonical text. */
static inline void rkx_window_add(rkx_window *st, int j, const rkx_dec *dec, const char *txt, size_t len)
{
	const char *why;

	if (st->overflow[j])
		return;
	if (dec->ok ? rk_sum_add_decimal(&st->sums[j], dec->m, dec->scale, &why) < 0
	            : rk_sum_add(&st->sums[j], txt, len, &why) < 0)
		st->overflow[j] = true;
}

/*
 * A summed value argument i, the j-th sum: encoded into the row (role b) or
 * apart (role s), then added.  Inline: out of line it cost the bench
 * table's row 17 more instructions (make bench-instr), its call and the
 * registers it saved, than the larger loop does.
 */
static pg_attribute_always_inline void rkx_window_summed(FunctionCallInfo fcinfo, rkx_cache *c, rkx_window *st, int i, int j)
{
	rk_buf *b = &c->enc;
	rkx_dec dec;
	size_t at;

	if (c->role[i] == RKX_SUM) {
		if (PG_ARGISNULL(c->first + i))
			return;
		b = &c->sumval;
		rk_buf_reset(b);
	}
	at = b->len;
	dec.ok = false;
	rkx_enc_value(fcinfo, c, i, b, &dec);
	if (!PG_ARGISNULL(c->first + i))
		rkx_window_add(st, j, &dec, b->data + at + RK_CANON_HDR, b->len - at - RK_CANON_HDR);
}

/* One row into a window's state: the hashed values encoded as one row,
 * counted and hashed, the summed ones added. */
static pg_attribute_always_inline void rkx_window_row(FunctionCallInfo fcinfo, rkx_cache *c, rkx_window *st)
{
	int j = 0;

	rk_buf_reset(&c->enc);
	for (int i = 0; i < c->nargs; i++) {
		if (likely(c->role[i] == RKX_HASH)) {
			rkx_dec dec;

			rkx_enc_value(fcinfo, c, i, &c->enc, &dec);
		} else {
			rkx_window_summed(fcinfo, c, st, i, j++);
		}
	}
	st->count++;
	rkx_set(&st->hash, rkx_get(&st->hash) + rk_row_hash(c->enc.data, c->enc.len));
}

PG_FUNCTION_INFO_V1(reckon_window_trans);
Datum reckon_window_trans(PG_FUNCTION_ARGS)
{
	rkx_cache *c = rkx_cache_get(fcinfo, 2, 1);
	rkx_window *st = PG_ARGISNULL(0) ? rkx_window_new(rkx_aggcontext(fcinfo, "reckon_window_trans"), c->nsum)
	                                 : (rkx_window *)PG_GETARG_POINTER(0);

	rkx_window_row(fcinfo, c, st);
	PG_RETURN_POINTER(st);
}

/* a += b, states of the same sums; an overflow of either stays one. */
static void rkx_window_merge(rkx_window *a, const rkx_window *b)
{
	const char *why;

	a->count += b->count;
	rkx_set(&a->hash, rkx_get(&a->hash) + rkx_get(&b->hash));
	for (int j = 0; j < a->nsum; j++) {
		a->overflow[j] = a->overflow[j] || b->overflow[j];
		if (!a->overflow[j] && rk_sum_merge(&a->sums[j], &b->sums[j], &why) < 0)
			a->overflow[j] = true;
	}
}

PG_FUNCTION_INFO_V1(reckon_window_combine);
Datum reckon_window_combine(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_window_combine");
	rkx_window *a = PG_ARGISNULL(0) ? NULL : (rkx_window *)PG_GETARG_POINTER(0);
	rkx_window *b = PG_ARGISNULL(1) ? NULL : (rkx_window *)PG_GETARG_POINTER(1);

	if (!b)
		PG_RETURN_POINTER(a ? a : rkx_window_new(ctx, 0));
	if (!a)
		a = rkx_window_new(ctx, b->nsum);
	if (a->count == 0 && a->nsum != b->nsum) {
		/* an empty state made without knowing the columns */
		a = rkx_window_new(ctx, b->nsum);
	}
	if (b->count == 0 && a->nsum != b->nsum)
		PG_RETURN_POINTER(a);
	if (a->nsum != b->nsum)
		elog(ERROR, "reckon_window_combine: states of %d and %d sums", a->nsum, b->nsum);
	rkx_window_merge(a, b);
	PG_RETURN_POINTER(a);
}

/*
 * Partial states travel between processes (leader and parallel workers of
 * one query, so of one module) as: the number of sums (4 bytes), count (8),
 * hash (16), then per sum its 128-bit value (16), scale and the counts of
 * NaN, Infinity and -Infinity (4 each) and the overflow flag (1); integers
 * in network byte order.  reckon_windows' states hold the same per window
 * from the count on (rkx_window_write).
 */
#define RKX_WINDOW_SUM_BYTES (16 + 4 * 4 + 1)
#define RKX_WINDOW_BYTES(nsum) (8 + 16 + (size_t)(nsum)*RKX_WINDOW_SUM_BYTES)

static void rkx_put64(char **p, uint64 v)
{
	v = pg_hton64(v);
	memcpy(*p, &v, 8);
	*p += 8;
}

static void rkx_put32(char **p, uint32 v)
{
	v = pg_hton32(v);
	memcpy(*p, &v, 4);
	*p += 4;
}

static uint64 rkx_get64(const char **p)
{
	uint64 v;

	memcpy(&v, *p, 8);
	*p += 8;
	return pg_ntoh64(v);
}

static uint32 rkx_get32(const char **p)
{
	uint32 v;

	memcpy(&v, *p, 4);
	*p += 4;
	return pg_ntoh32(v);
}

/* A window's count, hash and sums: RKX_WINDOW_BYTES(st->nsum) bytes. */
static void rkx_window_write(char **p, const rkx_window *st)
{
	rkx_put64(p, (uint64)st->count);
	rkx_put64(p, st->hash.hi);
	rkx_put64(p, st->hash.lo);
	for (int j = 0; j < st->nsum; j++) {
		const rk_sum *s = &st->sums[j];
		rk_u128 v = (rk_u128)s->v;

		rkx_put64(p, (uint64)(v >> 64));
		rkx_put64(p, (uint64)v);
		rkx_put32(p, (uint32)s->scale);
		rkx_put32(p, s->nan);
		rkx_put32(p, s->pinf);
		rkx_put32(p, s->ninf);
		*(*p)++ = st->overflow[j] ? 1 : 0;
	}
}

/* The reverse, into a new state of st->nsum sums. */
static void rkx_window_read(const char **p, rkx_window *st)
{
	st->count = (int64)rkx_get64(p);
	st->hash.hi = rkx_get64(p);
	st->hash.lo = rkx_get64(p);
	for (int j = 0; j < st->nsum; j++) {
		rk_sum *s = &st->sums[j];
		rk_u128 v = (rk_u128)rkx_get64(p) << 64;

		v |= rkx_get64(p);
		s->v = (rk_i128)v;
		s->scale = (int32)rkx_get32(p);
		s->nan = rkx_get32(p);
		s->pinf = rkx_get32(p);
		s->ninf = rkx_get32(p);
		st->overflow[j] = *(*p)++ != 0;
	}
}

PG_FUNCTION_INFO_V1(reckon_window_serial);
Datum reckon_window_serial(PG_FUNCTION_ARGS)
{
	rkx_window *st = (rkx_window *)PG_GETARG_POINTER(0);
	size_t n = 4 + RKX_WINDOW_BYTES(st->nsum);
	bytea *out = palloc(VARHDRSZ + n);
	char *p = VARDATA(out);

	SET_VARSIZE(out, VARHDRSZ + n);
	rkx_put32(&p, (uint32)st->nsum);
	rkx_window_write(&p, st);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(reckon_window_deserial);
Datum reckon_window_deserial(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_window_deserial");
	bytea *in = PG_GETARG_BYTEA_PP(0);
	const char *p = VARDATA_ANY(in);
	size_t n = VARSIZE_ANY_EXHDR(in);
	rkx_window *st;
	uint32 nsum;

	if (n < 4)
		elog(ERROR, "reckon_window_deserial: a state of %zu bytes", n);
	nsum = rkx_get32(&p);
	if (nsum > FUNC_MAX_ARGS || n != 4 + RKX_WINDOW_BYTES(nsum))
		elog(ERROR, "reckon_window_deserial: a state of %zu bytes with %u sums", n, nsum);
	st = rkx_window_new(ctx, (int)nsum);
	rkx_window_read(&p, st);
	PG_RETURN_POINTER(st);
}

/*
 * A window's {count, hash, sum...} as text: the count in decimal, the hash
 * in 32 hex digits, each sum as rk_sum_format writes it (canonical numeric
 * text, NaN, Infinity, -Infinity), or the word "overflow" when its exact
 * value does not fit 128 bits - the client then fails as streaming would.
 * 2 + nsum elements (st NULL: an empty window of no sums).
 */
static void rkx_window_elems(const rkx_window *st, Datum *elems)
{
	char num[MAXINT8LEN + 1];
	char sum[RK_SUM_STRLEN];

	pg_lltoa(st ? st->count : 0, num);
	elems[0] = PointerGetDatum(cstring_to_text(num));
	elems[1] = PointerGetDatum(rkx_hex(st ? rkx_get(&st->hash) : 0));
	for (int j = 0; st && j < st->nsum; j++)
		elems[2 + j] = PointerGetDatum(cstring_to_text(st->overflow[j] ? "overflow" : rk_sum_format(&st->sums[j], sum)));
}

PG_FUNCTION_INFO_V1(reckon_window_final);
Datum reckon_window_final(PG_FUNCTION_ARGS)
{
	rkx_window *st = PG_ARGISNULL(0) ? NULL : (rkx_window *)PG_GETARG_POINTER(0);
	int nsum = st ? st->nsum : 0;
	Datum *elems = palloc((2 + nsum) * sizeof(Datum));

	rkx_window_elems(st, elems);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, 2 + nsum, TEXTOID, -1, false, TYPALIGN_INT));
}

/* ------------------------------------------------------------------------
 * The aggregate reckon_windows(from int8, width int8, roles bytea, t,
 * VARIADIC "any") -> text[][]: every window's digest in one pass without
 * GROUP BY.  t is the time column (timestamptz, timestamp or date); a row
 * goes to window (reckon_instant(t) - from) / width, a row whose t is NULL
 * to a window of its own; the values that follow are reckon_window's, with
 * its roles.  The result has one row per window that has rows: {window,
 * count, hash, sum...}, the window NULL for the NULL times.  This is the
 * statement of reckon check --pushdown from extension 1.2 on: the same
 * digests as reckon_window grouped by window, without the hash aggregate's
 * per-row lookup and the window expression the executor evaluates for it
 * (more than a quarter of the grouped statement's work per row), in any number
 * of parallel workers.
 * ---------------------------------------------------------------------- */

/* The most windows one state holds (RK_PUSHDOWN_MAX_WINDOWS; the client
 * groups beyond), so that a row outside the windows the statement asks for
 * cannot make a state grow without bound. */
#define RKX_WINDOWS_MAX RK_PUSHDOWN_MAX_WINDOWS

typedef struct rkx_windows {
	int64 from;  /* the first window's start, microseconds since 1970 */
	int64 width; /* every window's width */
	int32 nsum;
	int32 cap;         /* entries of win */
	rkx_window **win;  /* window k's state, or NULL while it has no rows */
	rkx_window *nulls; /* the rows whose time is NULL, or NULL */
	MemoryContext ctx; /* where the states live */
	rkx_window *cur;   /* the last row's window, or NULL */
	int64 cur_from;    /* its start */
} rkx_windows;

static rkx_windows *rkx_windows_new(MemoryContext ctx, int64 from, int64 width, int nsum)
{
	rkx_windows *ws = MemoryContextAllocZero(ctx, sizeof *ws);

	ws->from = from;
	ws->width = width;
	ws->nsum = nsum;
	ws->ctx = ctx;
	return ws;
}

/* Window k's state, made (and the array grown) when it is the first row. */
static rkx_window *rkx_windows_at(rkx_windows *ws, int64 k)
{
	if (unlikely(k < 0 || k >= RKX_WINDOWS_MAX))
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		                errmsg("reckon_windows: a row in window %lld, outside windows 0 to %d", (long long)k,
		                       RKX_WINDOWS_MAX - 1),
		                errhint("Select only the rows from the first window's start on, over at most %d windows.",
		                        RKX_WINDOWS_MAX)));
	if (unlikely(k >= ws->cap)) {
		int cap = ws->cap ? ws->cap : 64;

		while (cap <= k)
			cap *= 2;
		if (ws->win)
			ws->win = repalloc(ws->win, cap * sizeof *ws->win);
		else
			ws->win = MemoryContextAlloc(ws->ctx, cap * sizeof *ws->win);
		memset(ws->win + ws->cap, 0, (cap - ws->cap) * sizeof *ws->win);
		ws->cap = cap;
	}
	if (unlikely(!ws->win[k]))
		ws->win[k] = rkx_window_new(ws->ctx, ws->nsum);
	return ws->win[k];
}

/* The state of the window of instant t, which becomes the current one.
 * The WHERE clause asks for [from, from + n * width); an instant before
 * from, or too far after it to subtract, is outside (rkx_windows_at fails). */
static pg_noinline rkx_window *rkx_windows_place(rkx_windows *ws, int64 t)
{
	int64 dt, k;

	if (t < ws->from || pg_sub_s64_overflow(t, ws->from, &dt))
		dt = -1;
	k = dt < 0 ? -1 : dt / ws->width;
	ws->cur = rkx_windows_at(ws, k);
	ws->cur_from = ws->from + k * ws->width; /* k * width <= dt: no overflow */
	return ws->cur;
}

/* The instant of time argument a (a timestamp, timestamptz or date). */
static inline int64 rkx_time_instant(FunctionCallInfo fcinfo, rkx_cache *c, int a)
{
	if (c->time_kind == 'd')
		return rkx_date_instant(DatumGetDateADT(PG_GETARG_DATUM(a)));
	return rkx_instant(DatumGetTimestamp(PG_GETARG_DATUM(a)));
}

PG_FUNCTION_INFO_V1(reckon_windows_trans);
Datum reckon_windows_trans(PG_FUNCTION_ARGS)
{
	rkx_cache *c = rkx_cache_get(fcinfo, 5, 3);
	rkx_windows *ws;
	rkx_window *st;

	if (unlikely(PG_ARGISNULL(0))) {
		int64 width;

		if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || !rkx_agg_arg_const(fcinfo, 0) || !rkx_agg_arg_const(fcinfo, 1))
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			                errmsg("reckon_windows: the first window's start and the width must be constants, "
			                       "not NULL")));
		width = PG_GETARG_INT64(2);
		if (width <= 0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			                errmsg("reckon_windows: a window width of %lld microseconds", (long long)width)));
		ws = rkx_windows_new(rkx_aggcontext(fcinfo, "reckon_windows_trans"), PG_GETARG_INT64(1), width, c->nsum);
	} else {
		ws = (rkx_windows *)PG_GETARG_POINTER(0);
	}
	if (unlikely(c->time_kind == 0))
		rkx_cache_time(fcinfo, c, 4);
	if (PG_ARGISNULL(4)) {
		if (!ws->nulls)
			ws->nulls = rkx_window_new(ws->ctx, ws->nsum);
		st = ws->nulls;
	} else {
		int64 t = rkx_time_instant(fcinfo, c, 4);

		/* the last row's window again (a table's rows mostly come in the
		 * order of their times): no division; t - cur_from is exact in
		 * uint64 once t >= cur_from */
		if (likely(ws->cur && t >= ws->cur_from && (uint64)t - (uint64)ws->cur_from < (uint64)ws->width))
			st = ws->cur;
		else
			st = rkx_windows_place(ws, t);
	}
	rkx_window_row(fcinfo, c, st);
	PG_RETURN_POINTER(ws);
}

PG_FUNCTION_INFO_V1(reckon_windows_combine);
Datum reckon_windows_combine(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_windows_combine");
	rkx_windows *a = PG_ARGISNULL(0) ? NULL : (rkx_windows *)PG_GETARG_POINTER(0);
	rkx_windows *b = PG_ARGISNULL(1) ? NULL : (rkx_windows *)PG_GETARG_POINTER(1);

	if (!b)
		PG_RETURN_POINTER(a);
	if (!a)
		a = rkx_windows_new(ctx, b->from, b->width, b->nsum);
	if (a->from != b->from || a->width != b->width || a->nsum != b->nsum)
		elog(ERROR, "reckon_windows_combine: states of other windows or sums");
	for (int k = 0; k < b->cap; k++)
		if (b->win[k])
			rkx_window_merge(rkx_windows_at(a, k), b->win[k]);
	if (b->nulls) {
		if (!a->nulls)
			a->nulls = rkx_window_new(a->ctx, a->nsum);
		rkx_window_merge(a->nulls, b->nulls);
	}
	PG_RETURN_POINTER(a);
}

/*
 * Partial states travel as: from, width (8 bytes each), the number of sums
 * (4) and of windows (4), then per window its number (4, -1 for the NULL
 * times) and its state (rkx_window_write); integers in network byte order.
 */
PG_FUNCTION_INFO_V1(reckon_windows_serial);
Datum reckon_windows_serial(PG_FUNCTION_ARGS)
{
	rkx_windows *ws = (rkx_windows *)PG_GETARG_POINTER(0);
	uint32 nwin = ws->nulls ? 1 : 0;
	size_t n;
	bytea *out;
	char *p;

	for (int k = 0; k < ws->cap; k++)
		nwin += ws->win[k] != NULL;
	n = 8 + 8 + 4 + 4 + (size_t)nwin * (4 + RKX_WINDOW_BYTES(ws->nsum));
	out = palloc(VARHDRSZ + n);
	SET_VARSIZE(out, VARHDRSZ + n);
	p = VARDATA(out);
	rkx_put64(&p, (uint64)ws->from);
	rkx_put64(&p, (uint64)ws->width);
	rkx_put32(&p, (uint32)ws->nsum);
	rkx_put32(&p, nwin);
	for (int k = 0; k < ws->cap; k++)
		if (ws->win[k]) {
			rkx_put32(&p, (uint32)k);
			rkx_window_write(&p, ws->win[k]);
		}
	if (ws->nulls) {
		rkx_put32(&p, UINT32_MAX);
		rkx_window_write(&p, ws->nulls);
	}
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(reckon_windows_deserial);
Datum reckon_windows_deserial(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_windows_deserial");
	bytea *in = PG_GETARG_BYTEA_PP(0);
	const char *p = VARDATA_ANY(in);
	size_t n = VARSIZE_ANY_EXHDR(in);
	rkx_windows *ws;
	int64 from, width;
	uint32 nsum, nwin;

	if (n < 8 + 8 + 4 + 4)
		elog(ERROR, "reckon_windows_deserial: a state of %zu bytes", n);
	from = (int64)rkx_get64(&p);
	width = (int64)rkx_get64(&p);
	nsum = rkx_get32(&p);
	nwin = rkx_get32(&p);
	if (nsum > FUNC_MAX_ARGS || nwin > RKX_WINDOWS_MAX + 1 ||
	    n != 8 + 8 + 4 + 4 + (size_t)nwin * (4 + RKX_WINDOW_BYTES(nsum)))
		elog(ERROR, "reckon_windows_deserial: a state of %zu bytes with %u sums and %u windows", n, nsum, nwin);
	ws = rkx_windows_new(ctx, from, width, (int)nsum);
	for (uint32 i = 0; i < nwin; i++) {
		uint32 k = rkx_get32(&p);
		rkx_window *st;

		if (k == UINT32_MAX) {
			st = ws->nulls = rkx_window_new(ctx, ws->nsum);
		} else {
			st = rkx_windows_at(ws, (int64)k);
			if (st->count)
				elog(ERROR, "reckon_windows_deserial: window %u twice", k);
		}
		rkx_window_read(&p, st);
	}
	PG_RETURN_POINTER(ws);
}

/* {{window, count, hash, sum...}, ...}: the windows with rows in order, then
 * the NULL times' (window NULL); NULL when no row came. */
PG_FUNCTION_INFO_V1(reckon_windows_final);
Datum reckon_windows_final(PG_FUNCTION_ARGS)
{
	rkx_windows *ws = PG_ARGISNULL(0) ? NULL : (rkx_windows *)PG_GETARG_POINTER(0);
	int ncol, nrow = 0, r = 0;
	Datum *elems;
	bool *nulls;
	int dims[2], lbs[2] = { 1, 1 };
	char num[MAXINT8LEN + 1];

	if (!ws)
		PG_RETURN_NULL();
	ncol = 3 + ws->nsum;
	for (int k = 0; k < ws->cap; k++)
		nrow += ws->win[k] != NULL;
	nrow += ws->nulls != NULL;
	if (nrow == 0)
		PG_RETURN_NULL();
	elems = palloc(sizeof(Datum) * nrow * ncol);
	nulls = palloc0(sizeof(bool) * nrow * ncol);
	for (int k = 0; k <= ws->cap; k++) {
		rkx_window *st = k < ws->cap ? ws->win[k] : ws->nulls;

		if (!st)
			continue;
		if (k < ws->cap) {
			pg_lltoa(k, num);
			elems[r * ncol] = PointerGetDatum(cstring_to_text(num));
		} else {
			nulls[r * ncol] = true;
			elems[r * ncol] = (Datum)0;
		}
		rkx_window_elems(st, elems + r * ncol + 1);
		r++;
	}
	dims[0] = nrow;
	dims[1] = ncol;
	PG_RETURN_ARRAYTYPE_P(construct_md_array(elems, nulls, 2, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT));
}
