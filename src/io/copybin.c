/*
 * copybin.c - rows of COPY ... TO STDOUT (FORMAT binary), decoded.
 *
 * The format (PostgreSQL's "COPY" reference, "Binary Format"): an 11-byte
 * signature, a 32-bit flags field, a 32-bit header extension length and
 * that many bytes; then per row a 16-bit field count and per field a 32-bit
 * length (-1 for NULL) and the value in its type's send format; then a
 * field count of -1.  Every integer is big-endian.
 */
#include "io/copybin.h"

#include <stdlib.h>
#include <string.h>

#include "core/canon.h"
#include "core/timeutil.h"

/* PostgreSQL's epoch, 2000-01-01, in Unix microseconds and days. */

/* numeric_send's sign word (numeric.c). */
#define RK_COPYBIN_NUMERIC_POS 0x0000
#define RK_COPYBIN_NUMERIC_NEG 0x4000
#define RK_COPYBIN_NUMERIC_NAN 0xC000
#define RK_COPYBIN_NUMERIC_PINF 0xD000
#define RK_COPYBIN_NUMERIC_NINF 0xF000
#define RK_COPYBIN_NUMERIC_DSCALE_MAX 0x3FFF

static const char rk_copybin_signature[11] = { 'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0' };

rk_wire rk_copybin_wire(unsigned long typid, rk_type t)
{
	/* built-in type oids are fixed (pg_type.dat); each is checked against
	 * the type its name mapped to, so a surprise falls back to text */
	switch (typid) {
	case 21: return t == RK_T_INT2 ? RK_WIRE_INT2 : RK_WIRE_NONE;
	case 23: return t == RK_T_INT4 ? RK_WIRE_INT4 : RK_WIRE_NONE;
	case 20: return t == RK_T_INT8 ? RK_WIRE_INT8 : RK_WIRE_NONE;
	case 1700: return t == RK_T_NUMERIC ? RK_WIRE_NUMERIC : RK_WIRE_NONE;
	case 1114: return t == RK_T_TIMESTAMP ? RK_WIRE_TIMESTAMP : RK_WIRE_NONE;
	case 1184: return t == RK_T_TIMESTAMPTZ ? RK_WIRE_TIMESTAMP : RK_WIRE_NONE;
	case 16: return t == RK_T_BOOL ? RK_WIRE_BOOL : RK_WIRE_NONE;
	case 25:   /* text */
	case 1043: /* varchar */
	case 19:   /* name */
		return t == RK_T_TEXT ? RK_WIRE_TEXT : RK_WIRE_NONE;
	case 1042: return t == RK_T_BPCHAR ? RK_WIRE_TEXT : RK_WIRE_NONE;
	case 700: return t == RK_T_FLOAT4 ? RK_WIRE_FLOAT4 : RK_WIRE_NONE;
	case 701: return t == RK_T_FLOAT8 ? RK_WIRE_FLOAT8 : RK_WIRE_NONE;
	case 1082: return t == RK_T_DATE ? RK_WIRE_DATE : RK_WIRE_NONE;
	case 2950: return t == RK_T_UUID ? RK_WIRE_UUID : RK_WIRE_NONE;
	default: return RK_WIRE_NONE;
	}
}

void rk_copybin_init(rk_copybin *d, const rk_wire *wires, const rk_type *types, size_t ncols)
{
	memset(d, 0, sizeof *d);
	d->wires = wires;
	d->types = types;
	d->ncols = ncols;
	d->fields = rk_xcalloc(ncols ? ncols : 1, sizeof *d->fields);
	d->enc_off = rk_xcalloc(ncols ? ncols : 1, sizeof *d->enc_off);
	d->sec = rk_xcalloc(ncols ? ncols : 1, sizeof *d->sec);
}

void rk_copybin_free(rk_copybin *d)
{
	free(d->fields);
	free(d->enc_off);
	free(d->sec);
	rk_buf_free(&d->enc);
	rk_buf_free(&d->numscratch);
	rk_buf_free(&d->pending);
	memset(d, 0, sizeof *d);
}

static inline uint16_t rk_copybin_u16(const unsigned char *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t rk_copybin_u32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t rk_copybin_u64(const unsigned char *p)
{
	return (uint64_t)rk_copybin_u32(p) << 32 | rk_copybin_u32(p + 4);
}

/* A value handed on as text (p[0..n)): its encoding by its column's type.
 * -1, with the value blamed, when it has none. */
static int rk_copybin_text(rk_copybin *d, size_t i, const char *p, size_t n, const char **why)
{
	rk_field *f = &d->fields[i];

	f->form = RK_FORM_TEXT;
	f->p = p;
	f->len = n;
	if (d->types[i] == RK_T_TEXT && n <= UINT32_MAX) {
		/* a text's canonical form is itself */
		rk_canon_enc_raw(&d->enc, p, n);
		return 0;
	}
	if (rk_canon_enc_value(d->types[i], p, n, &d->enc, why) < 0) {
		d->bad_value = true;
		return -1;
	}
	return 0;
}

/* A value whose encoding the caller has just appended to d->enc: the field
 * is RK_FORM_CANON (p/len point at its text once the row is whole). */
static inline int rk_copybin_canon(rk_copybin *d, size_t i)
{
	d->fields[i].form = RK_FORM_CANON;
	d->fields[i].exact = false;
	return 0;
}

/* A date, days since 2000-01-01 (date_send): its canonical text, the
 * date's "YYYY-MM-DD" (BC and long years as rk_date_format writes them). */
static int rk_copybin_date(rk_copybin *d, size_t i, int32_t v, const char **why)
{
	char tmp[RK_TIME_STRLEN];
	size_t n;

	if (v == INT32_MAX)
		return rk_copybin_text(d, i, "infinity", 8, why);
	if (v == INT32_MIN)
		return rk_copybin_text(d, i, "-infinity", 9, why);
	rk_date_format(rk_pg_date_days(v), tmp);
	n = strlen(tmp);
	rk_canon_enc_raw(&d->enc, tmp, n);
	return rk_copybin_canon(d, i);
}

/* A uuid's 16 bytes: lowercase 8-4-4-4-12 hex. */
static int rk_copybin_uuid(rk_copybin *d, size_t i, const unsigned char *p)
{
	static const char hex[] = "0123456789abcdef";
	char *w = rk_canon_enc_begin(&d->enc, 36);

	for (int k = 0; k < 16; k++) {
		if (k == 4 || k == 6 || k == 8 || k == 10)
			*w++ = '-';
		*w++ = hex[p[k] >> 4];
		*w++ = hex[p[k] & 0xf];
	}
	d->enc.len += RK_CANON_HDR + 36;
	return rk_copybin_canon(d, i);
}

/* A numeric in numeric_send's form: RK_FORM_CANON, or the special values'
 * words.  Returns 0 or -1 with *why. */
static int rk_copybin_numeric(rk_copybin *d, size_t i, const unsigned char *p, size_t n, const char **why)
{
	rk_field *f = &d->fields[i];
	rk_canon_dec dec;
	size_t ndigits;
	uint16_t sign, dscale;

	if (n < 8 || (n - 8) % 2 != 0 || (ndigits = rk_copybin_u16(p)) != (n - 8) / 2) {
		*why = "a numeric whose length does not match its digit count";
		return -1;
	}
	sign = rk_copybin_u16(p + 4);
	dscale = rk_copybin_u16(p + 6);
	switch (sign) {
	case RK_COPYBIN_NUMERIC_NAN: return rk_copybin_text(d, i, "NaN", 3, why);
	case RK_COPYBIN_NUMERIC_PINF: return rk_copybin_text(d, i, "Infinity", 8, why);
	case RK_COPYBIN_NUMERIC_NINF: return rk_copybin_text(d, i, "-Infinity", 9, why);
	case RK_COPYBIN_NUMERIC_POS:
	case RK_COPYBIN_NUMERIC_NEG:
		break;
	default:
		*why = "a numeric with an unknown sign word";
		return -1;
	}
	if (dscale > RK_COPYBIN_NUMERIC_DSCALE_MAX) {
		*why = "a numeric with an invalid display scale";
		return -1;
	}
	if (!rk_canon_enc_numeric_nbase(&d->enc, &d->numscratch, p + 8, ndigits, (int16_t)rk_copybin_u16(p + 2),
	                                dscale, sign == RK_COPYBIN_NUMERIC_NEG, true, &dec)) {
		*why = "a numeric digit outside 0..9999";
		return -1;
	}
	/* p/len: the encoding's text, set by the caller */
	f->form = RK_FORM_CANON;
	f->exact = dec.ok;
	f->m = dec.m;
	f->scale = dec.scale;
	return 0;
}

/* Field i's n bytes at p into d->fields[i], its encoding appended to
 * d->enc.  0 or -1 with *why. */
static inline int rk_copybin_field(rk_copybin *d, size_t i, const unsigned char *p, size_t n, const char **why)
{
	rk_field *f = &d->fields[i];
	int64_t v;

	switch (d->wires[i]) {
	case RK_WIRE_INT2:
		if (n != 2)
			goto size;
		v = (int16_t)rk_copybin_u16(p);
		goto integer;
	case RK_WIRE_INT4:
		if (n != 4)
			goto size;
		v = (int32_t)rk_copybin_u32(p);
		goto integer;
	case RK_WIRE_INT8:
		if (n != 8)
			goto size;
		v = (int64_t)rk_copybin_u64(p);
		goto integer;
	case RK_WIRE_TIMESTAMP:
		if (n != 8)
			goto size;
		v = (int64_t)rk_copybin_u64(p);
		if (v == INT64_MAX)
			return rk_copybin_text(d, i, "infinity", 8, why);
		if (v == INT64_MIN)
			return rk_copybin_text(d, i, "-infinity", 9, why);
		f->form = RK_FORM_INSTANT;
		f->p = "";
		f->len = 0;
		/* PostgreSQL counts from 2000 and reaches 30 years past what
		 * microseconds since 1970 hold: those are wide instants in m,
		 * their canonical text the longer decimal (digest.md) */
		if (rk_pg_timestamp_instant(v, &v) < 0) {
			f->m = rk_pg_timestamp_wide((int64_t)rk_copybin_u64(p));
			rk_canon_enc_instant_wide(&d->enc, f->m);
			return 0;
		}
		f->m = v;
		/* its canonical text is the instant, with the digits of the whole
		 * second kept from the column's last row */
		rk_canon_enc_instant_inline(&d->enc, &d->sec[i], v);
		return 0;
	case RK_WIRE_NUMERIC:
		return rk_copybin_numeric(d, i, p, n, why);
	case RK_WIRE_BOOL:
		if (n != 1)
			goto size;
		return rk_copybin_text(d, i, p[0] ? "t" : "f", 1, why);
	case RK_WIRE_FLOAT4: {
		uint32_t bits;
		float x;

		if (n != 4)
			goto size;
		bits = rk_copybin_u32(p);
		memcpy(&x, &bits, sizeof x);
		/* widened exactly, as the text of a real is (digest.md) */
		rk_canon_enc_double(&d->enc, (double)x);
		return rk_copybin_canon(d, i);
	}
	case RK_WIRE_FLOAT8: {
		uint64_t bits;
		double x;

		if (n != 8)
			goto size;
		bits = rk_copybin_u64(p);
		memcpy(&x, &bits, sizeof x);
		rk_canon_enc_double(&d->enc, x);
		return rk_copybin_canon(d, i);
	}
	case RK_WIRE_DATE:
		if (n != 4)
			goto size;
		return rk_copybin_date(d, i, (int32_t)rk_copybin_u32(p), why);
	case RK_WIRE_UUID:
		if (n != 16)
			goto size;
		return rk_copybin_uuid(d, i, p);
	case RK_WIRE_TEXT:
		if (d->types[i] == RK_T_TEXT) {
			/* a text's canonical form is itself (n < 2^31) */
			f->form = RK_FORM_TEXT;
			f->p = (const char *)p;
			f->len = n;
			rk_canon_enc_raw(&d->enc, f->p, n);
			return 0;
		}
		return rk_copybin_text(d, i, (const char *)p, n, why);
	case RK_WIRE_NONE:
	default:
		break;
	}
	*why = "a column binary COPY cannot carry for reckon";
	return -1;
integer:
	f->form = RK_FORM_INT;
	f->p = "";
	f->len = 0;
	f->m = v;
	rk_canon_enc_int64(&d->enc, v);
	return 0;
size:
	*why = "a value of the wrong size for its type";
	return -1;
}

/*
 * The row at p[0..n): its size, 0 when the bytes end before it does (the
 * caller waits for more), -1 with *why when it is malformed, and the
 * trailer's 2 bytes (state 2).  Decodes and encodes the fields on the way;
 * the callback runs on the caller's side, once the row is known whole.
 */
static long rk_copybin_row(rk_copybin *d, const unsigned char *p, size_t n, const char **why)
{
	size_t off = 2;
	const char *base;
	int16_t nf;

	if (n < 2)
		return 0;
	nf = (int16_t)rk_copybin_u16(p);
	if (nf == -1) {
		d->state = 2;
		return 2;
	}
	if (nf < 0 || (size_t)nf != d->ncols) {
		d->bad_col = d->ncols;
		*why = nf < 0 ? "a row with a negative field count" : "a row with another field count than the columns";
		return -1;
	}
	rk_buf_reset(&d->enc);
	base = d->enc.data;
	for (size_t i = 0; i < d->ncols; i++) {
		rk_field *f = &d->fields[i];
		size_t at = d->enc.len;
		int32_t flen;

		if (n - off < 4)
			return 0;
		flen = (int32_t)rk_copybin_u32(p + off);
		off += 4;
		d->enc_off[i] = at;
		if (flen == -1) {
			f->null = true;
			f->form = RK_FORM_TEXT;
			f->p = "";
			f->len = 0;
			rk_canon_enc_null(&d->enc);
			f->enc = d->enc.data + at;
			f->enc_len = 1;
			continue;
		}
		if (flen < 0) {
			d->bad_col = i;
			*why = "a field with a negative length";
			return -1;
		}
		if (n - off < (size_t)flen)
			return 0;
		f->null = false;
		if (rk_copybin_field(d, i, p + off, (size_t)flen, why) < 0) {
			d->bad_col = i;
			return -1;
		}
		off += (size_t)flen;
		f->enc = d->enc.data + at;
		f->enc_len = d->enc.len - at;
		if (f->form == RK_FORM_CANON) {
			f->p = f->enc + RK_CANON_HDR;
			f->len = f->enc_len - RK_CANON_HDR;
		}
	}
	if (d->enc.data != base) {
		/* enc grew and moved during the row: point again */
		for (size_t i = 0; i < d->ncols; i++) {
			rk_field *f = &d->fields[i];

			f->enc = d->enc.data + d->enc_off[i];
			if (f->form == RK_FORM_CANON && !f->null)
				f->p = f->enc + RK_CANON_HDR;
		}
	}
	return (long)off;
}

/* The header at p[0..n): its size, 0 when incomplete, -1 with *why. */
static long rk_copybin_header(rk_copybin *d, const unsigned char *p, size_t n, const char **why)
{
	uint32_t flags, ext;

	if (memcmp(p, rk_copybin_signature, n < 11 ? n : 11) != 0) {
		*why = "no binary COPY signature";
		return -1;
	}
	if (n < 19)
		return 0;
	flags = rk_copybin_u32(p + 11);
	ext = rk_copybin_u32(p + 15);
	/* bits 16-31 flag what a reader must understand (16: OIDs included) */
	if (flags >> 16) {
		*why = "a binary COPY header with flags reckon does not know";
		return -1;
	}
	if (ext > INT32_MAX) {
		*why = "a binary COPY header extension of impossible length";
		return -1;
	}
	if (n - 19 < ext)
		return 0;
	d->state = 1;
	return (long)(19 + ext);
}

int rk_copybin_feed(rk_copybin *d, const char *buf, size_t len, rk_copybin_row_fn fn, void *ctx, rk_error *err,
                    const char **why)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t n = len, used = 0;
	bool from_pending = d->pending.len > 0;

	d->bad_col = d->ncols;
	d->bad_value = false;
	if (from_pending) {
		rk_buf_append(&d->pending, buf, len);
		p = (const unsigned char *)d->pending.data;
		n = d->pending.len;
	}
	while (used < n) {
		bool header = d->state == 0;
		long k;

		if (d->state == 2) {
			*why = "data after the end-of-data marker";
			return -1;
		}
		k = header ? rk_copybin_header(d, p + used, n - used, why) : rk_copybin_row(d, p + used, n - used, why);
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		used += (size_t)k;
		/* the header and the trailer call nothing */
		if (header || d->state == 2)
			continue;
		d->rows++;
		if (fn(ctx, d->fields, err) < 0)
			return -2;
	}
	if (from_pending) {
		memmove(d->pending.data, d->pending.data + used, n - used);
		d->pending.len = n - used;
	} else if (used < n) {
		rk_buf_append(&d->pending, p + used, n - used);
	}
	return 0;
}

int rk_copybin_finish(const rk_copybin *d, const char **why)
{
	if (d->state != 2 || d->pending.len) {
		*why = d->state == 2 ? "data after the end-of-data marker" : "the COPY data ended before its end-of-data marker";
		return -1;
	}
	return 0;
}
