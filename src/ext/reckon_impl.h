/*
 * reckon_impl.h - what the files of the reckon PostgreSQL extension share
 * (reckon.c: the call-site cache, the row encoder, the row functions and
 * reckon_digest; window.c: the aggregates reckon_window and reckon_windows).
 * The per-row encoders are static inline here, as they were inside one file:
 * every transition function inlines them (see the top of reckon.c).
 */
#ifndef RK_EXT_RECKON_IMPL_H
#define RK_EXT_RECKON_IMPL_H

#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "nodes/primnodes.h"
#include "nodes/pg_list.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "port/pg_bswap.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/bytea.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "core/buf.h"
#include "core/canon.h"
#include "core/digest.h"
#include "core/types.h"

/* Microseconds since 1970 of a timestamp (taken as UTC) or timestamptz,
 * where the client places its row (rk_canon_instant): the infinities are
 * INT64_MAX / INT64_MIN, and so is PostgreSQL's last ~30 years, which no
 * int64 since 1970 holds: after every window (rk_usec_place). */
static inline int64 rkx_instant(Timestamp ts)
{
	rk_usec t;

	if (unlikely(rk_pg_timestamp_instant(ts, &t) < 0))
		return rk_usec_place(rk_pg_timestamp_wide(ts));
	return t;
}

/*
 * How a value argument becomes canonical text.  RKX_OUT is the general way
 * (the output function's text through the core encoder); the others are
 * shortcuts for built-in types whose canonical text follows from the stored
 * value in a few instructions, each giving exactly the bytes the core
 * encoder makes of the output function's text (rk_canon_text):
 *
 *  - int2/int4/int8: the output function prints the decimal digits with a
 *    '-' and no leading zeros, which is already canonical (rk_canon_int
 *    returns it unchanged), so it is printed straight into the encoding;
 *  - boolean: 't' or 'f', as boolout prints and rk_canon_bool keeps;
 *  - numeric: the digits are read from the stored value (its on-disk
 *    layout, below) and laid out as rk_canon_numeric lays out numeric_out's
 *    text: no leading or trailing zeros, no exponent, "0" for zero;
 *  - text, varchar, char(n): the stored bytes, read in place (their output
 *    functions only copy them), then the core encoder (char(n)'s trailing
 *    blanks, the conversion of a non-UTF-8 database);
 *  - timestamp, timestamptz: the instant (see the top of the file).
 */
typedef enum rkx_kind {
	RKX_OUT,
	RKX_RAW,
	RKX_TEXT,
	RKX_INSTANT,
	RKX_INT2,
	RKX_INT4,
	RKX_INT8,
	RKX_BOOL,
	RKX_NUMERIC,
} rkx_kind;

/*
 * What a call site needs per row, built at its first call and kept in
 * fn_extra for the rest of the query (a parallel worker builds its own).
 */
typedef struct rkx_cache {
	int nargs;         /* value arguments */
	int first;         /* index of the first value argument (1 or 2 in the aggregates) */
	char *role;        /* per value argument: RKX_HASH, RKX_SUM or RKX_BOTH */
	int nsum;          /* arguments summed (RKX_SUM, RKX_BOTH), in argument order */
	Oid *typid;        /* as passed */
	rk_type *type;     /* as the client maps it */
	FmgrInfo *out;     /* output functions */
	rkx_kind *kind;    /* how the canonical text is made */
	bool utf8;         /* the database encoding needs no conversion */
	rk_buf enc;        /* row encoding, malloc'd by core/buf.c: freed by
	                         * the reset callback of the cache's context */
	rk_buf scratch;    /* decimal digits of a long numeric, likewise */
	rk_buf sumval;     /* the encoding of a summed, not hashed, value */
	rk_sec_digits sec; /* the last instant's whole seconds (rk_canon_enc_instant) */
	char time_kind;    /* reckon_windows' time argument: 't' a timestamp or
	                         * timestamptz, 'd' a date, 0 not yet known */
	MemoryContextCallback cb;
} rkx_cache;

/* The roles of reckon_window's value arguments (its first argument spells
 * one letter per value argument). */
#define RKX_HASH 'h' /* hashed: part of the row encoding */
#define RKX_SUM 's'  /* summed only */
#define RKX_BOTH 'b' /* hashed and summed */

/* reckon.c; hidden, so that the module exports what it did as one file:
 * its SQL functions and nothing else of its own. */
#define RKX_PRIVATE __attribute__((visibility("hidden")))
RKX_PRIVATE bool rkx_agg_arg_const(FunctionCallInfo fcinfo, int n);
RKX_PRIVATE rkx_cache *rkx_cache_build(FunctionCallInfo fcinfo, int first, int roles);
RKX_PRIVATE void rkx_cache_time(FunctionCallInfo fcinfo, rkx_cache *c, int a);
RKX_PRIVATE pg_noinline void rkx_enc_general(FunctionCallInfo fcinfo, rkx_cache *c, int i, Datum d, rk_buf *b);

/* Once per row: the call site's cache, built at its first call. */
static inline rkx_cache *rkx_cache_get(FunctionCallInfo fcinfo, int first, int roles)
{
	rkx_cache *c = fcinfo->flinfo->fn_extra;

	if (likely(c && c->nargs == PG_NARGS() - first && c->first == first))
		return c;
	return rkx_cache_build(fcinfo, first, roles);
}

/*
 * A value written straight into the row encoding (digest.md): the tag 0x01
 * and 4 length bytes, then the canonical text.  rkx_val_begin makes room for
 * at most max bytes of text and returns where it goes; rkx_val_end fills in
 * the length n of what was written there.
 */
static inline char *rkx_val_begin(rk_buf *b, size_t max)
{
	if (b->cap - b->len < RK_CANON_HDR + max)
		rk_buf_grow(b, RK_CANON_HDR + max);
	b->data[b->len] = '\x01';
	return b->data + b->len + RK_CANON_HDR;
}

static inline void rkx_val_end(rk_buf *b, size_t n)
{
	rk_canon_put_len(b->data + b->len + 1, (uint32)n);
	b->len += RK_CANON_HDR + n;
}

static inline void rkx_val_word(rk_buf *b, const char *w)
{
	size_t n = strlen(w);

	memcpy(rkx_val_begin(b, n), w, n);
	rkx_val_end(b, n);
}

/*
 * numeric's on-disk layout (src/backend/utils/adt/numeric.c, kept stable
 * for pg_upgrade): a uint16 header, in the long form an int16 weight, then
 * int16 digits in base 10000, the first one worth 10000^weight.  The two
 * top bits of the header: 00 positive, 01 negative (long form: dscale in the
 * low 14 bits), 10 short form (sign 0x2000, dscale in 0x1F80, weight a
 * 7-bit two's complement number in 0x007F), 11 special (0xC000 NaN, 0xD000
 * Infinity, 0xF000 -Infinity).
 */
#define RKX_NUM_SIGN_MASK 0xC000
#define RKX_NUM_NEG 0x4000
#define RKX_NUM_SHORT 0x8000
#define RKX_NUM_SPECIAL 0xC000
#define RKX_NUM_EXT_MASK 0xF000
#define RKX_NUM_NAN 0xC000
#define RKX_NUM_PINF 0xD000
#define RKX_NUM_NINF 0xF000
#define RKX_NUM_SHORT_NEG 0x2000
#define RKX_NUM_SHORT_DSCALE_MASK 0x1F80
#define RKX_NUM_SHORT_DSCALE_SHIFT 7
#define RKX_NUM_SHORT_WEIGHT_SIGN 0x0040
#define RKX_NUM_SHORT_WEIGHT_MASK 0x003F
#define RKX_NUM_DSCALE_MASK 0x3FFF

/* A value's digits as rk_sum_add would read them from its canonical text,
 * when the encoder had them at hand (core/canon.h), so that a summed value
 * is added without parsing its text again (rk_sum_add_decimal). */
typedef rk_canon_dec rkx_dec;

/*
 * The bytes of a varlena argument: what PG_DETOAST_DATUM_PACKED gives, with
 * the call only for a value stored compressed or out of line.
 */
static inline struct varlena *rkx_packed(Datum d)
{
	struct varlena *v = (struct varlena *)DatumGetPointer(d);

	if (unlikely(VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v)))
		v = pg_detoast_datum_packed(v);
	return v;
}

/*
 * Appends the encoding of a numeric from its stored form: the bytes
 * rk_canon_numeric makes of numeric_out's text.  numeric_out prints every
 * integer digit and exactly dscale fraction digits (truncating any stored
 * beyond them, as get_str_from_var does); the canonical text drops the
 * leading and trailing zeros of that digit string, is "0" for zero (with
 * either sign) and puts "0." before a fraction.  False, with nothing
 * appended, for a layout this does not know: the caller then takes the
 * output function's way.  The header here, the digits in core/canon.h
 * (shared with the client, which reads binary COPY's numerics the same way).
 */
static pg_attribute_always_inline bool rkx_enc_numeric(rkx_cache *c, Datum d, rk_buf *b, rkx_dec *dec)
{
	struct varlena *v = rkx_packed(d);
	const char *p = VARDATA_ANY(v);
	size_t n = VARSIZE_ANY_EXHDR(v);
	uint16 hdr;
	int weight, dscale;
	bool neg;
	size_t ndigits;

	if (n < 2)
		return false;
	memcpy(&hdr, p, 2);
	switch (hdr & RKX_NUM_SIGN_MASK) {
	case RKX_NUM_SPECIAL:
		switch (hdr & RKX_NUM_EXT_MASK) {
		case RKX_NUM_NAN:
			rkx_val_word(b, "NaN");
			return true;
		case RKX_NUM_PINF:
			rkx_val_word(b, "Infinity");
			return true;
		case RKX_NUM_NINF:
			rkx_val_word(b, "-Infinity");
			return true;
		default:
			return false;
		}
	case RKX_NUM_SHORT:
		neg = (hdr & RKX_NUM_SHORT_NEG) != 0;
		dscale = (hdr & RKX_NUM_SHORT_DSCALE_MASK) >> RKX_NUM_SHORT_DSCALE_SHIFT;
		weight = (int)(hdr & RKX_NUM_SHORT_WEIGHT_MASK) - ((hdr & RKX_NUM_SHORT_WEIGHT_SIGN) ? 64 : 0);
		p += 2;
		n -= 2;
		break;
	default: {
		int16 w16;

		if (n < 4)
			return false;
		neg = (hdr & RKX_NUM_SIGN_MASK) == RKX_NUM_NEG;
		dscale = hdr & RKX_NUM_DSCALE_MASK;
		memcpy(&w16, p + 2, 2);
		weight = w16;
		p += 4;
		n -= 4;
		break;
	}
	}
	if (n % 2 != 0)
		return false;
	ndigits = n / 2;
	return rk_canon_enc_numeric_nbase(b, &c->scratch, (const unsigned char *)p, ndigits, weight, dscale, neg,
	                                  false, dec);
}

/* An integer: int8out's digits, which rk_canon_int keeps as they are. */
static pg_attribute_always_inline void rkx_val_int(rk_buf *b, int64 v, rkx_dec *dec)
{
	rk_canon_enc_int64(b, v);
	dec->ok = true;
	dec->m = v;
	dec->scale = 0;
}

/*
 * Appends the encoding of value argument i (digest.md: a NULL, or the tag,
 * length and canonical text of a value) to b.  The text of a value is what
 * COPY TO in UTF-8 would have sent the client, or (the shortcuts of
 * rkx_kind) its canonical text made from the stored value.
 */
static pg_attribute_always_inline void rkx_enc_value(FunctionCallInfo fcinfo, rkx_cache *c, int i, rk_buf *b,
                                                     rkx_dec *dec)
{
	int a = c->first + i;
	Datum d;
	char *w;

	if (PG_ARGISNULL(a)) {
		rk_canon_enc_null(b);
		return;
	}
	d = PG_GETARG_DATUM(a);
	switch (c->kind[i]) {
	case RKX_INSTANT: {
		Timestamp ts = DatumGetTimestamp(d);
		rk_usec t;

		if (unlikely(TIMESTAMP_NOT_FINITE(ts)))
			break;
		/* decimal microseconds: the canonical text of a timestamp is
		 * this integer's, printed as rk_canon_int leaves it; past an
		 * int64 since 1970, the longer decimal (digest.md) */
		if (unlikely(rk_pg_timestamp_instant(ts, &t) < 0)) {
			rk_canon_enc_instant_wide(b, rk_pg_timestamp_wide(ts));
			return;
		}
		rk_canon_enc_instant_inline(b, &c->sec, t);
		return;
	}
	case RKX_INT8:
		rkx_val_int(b, DatumGetInt64(d), dec);
		return;
	case RKX_INT4:
		rkx_val_int(b, DatumGetInt32(d), dec);
		return;
	case RKX_INT2:
		rkx_val_int(b, DatumGetInt16(d), dec);
		return;
	case RKX_BOOL:
		w = rkx_val_begin(b, 1);
		*w = DatumGetBool(d) ? 't' : 'f';
		rkx_val_end(b, 1);
		return;
	case RKX_NUMERIC:
		if (likely(rkx_enc_numeric(c, d, b, dec)))
			return;
		break;
	case RKX_TEXT: {
		/* a text in a UTF-8 database, copied as it is stored */
		text *t = (text *)rkx_packed(d);

		rk_canon_enc_raw(b, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
		return;
	}
	default:
		break;
	}
	rkx_enc_general(fcinfo, c, i, d, b);
}

/* A 128-bit sum kept as two halves: palloc only guarantees 8-byte
 * alignment, and a 16-byte integer may be accessed with aligned loads. */
typedef struct rkx_u128 {
	uint64 hi;
	uint64 lo;
} rkx_u128;

static inline rk_u128 rkx_get(const rkx_u128 *v)
{
	return ((rk_u128)v->hi << 64) | (rk_u128)v->lo;
}

static inline void rkx_set(rkx_u128 *v, rk_u128 h)
{
	v->hi = (uint64)(h >> 64);
	v->lo = (uint64)h;
}

RKX_PRIVATE text *rkx_hex(rk_u128 h);

/* A date's instant: midnight UTC of the day; the infinities, and a day
 * past an int64 since 1970, as for timestamps. */
static inline int64 rkx_date_instant(DateADT d)
{
	rk_usec t;

	if (rk_pg_date_instant(d, &t) < 0)
		return RK_USEC_PINF;
	return t;
}

static inline MemoryContext rkx_aggcontext(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext ctx;

	if (!AggCheckCallContext(fcinfo, &ctx))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return ctx;
}

#endif
