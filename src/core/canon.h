/*
 * canon.h - the canonical encoding of values, rows and keys (digest.md).
 *
 * Input is the text of one value as PostgreSQL prints it (under any server
 * settings; reckon pins its own session settings anyway) or as a CSV export
 * writes it.  Output bytes are normative: changing them is a format change.
 *
 * None of these functions allocate beyond growing the rk_buf they are given,
 * so a reused buffer keeps the hot path allocation-free.
 */
#ifndef RK_CANON_H
#define RK_CANON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "core/timeutil.h"
#include "core/types.h"

/* For the few helpers below that run per value on the hot path of both the
 * client and the server module: the compiler's own inlining leaves some of
 * them out of line, paying a call and six saved registers per value. */
#define RK_CANON_INLINE static inline __attribute__((always_inline))

/* The header of a non-NULL value in the row encoding (docs/digest.md): the
 * tag byte 0x01, then the length of its canonical text, 4 bytes little-
 * endian.  A NULL is the tag 0x00 alone. */
#define RK_CANON_HDR 5

/*
 * Appends the canonical text of one non-NULL value of type t to out.
 * Returns 0, or -1 with *why set to a static phrase such as
 * "not a valid integer" (out may then hold a partial append; callers
 * discard it).
 */
int rk_canon_text(rk_type t, const char *p, size_t len, rk_buf *out, const char **why);

/* Appends the encoding of NULL: the single byte 0x00. */
void rk_canon_enc_null(rk_buf *out);

/*
 * The encoding of an instant t (decimal microseconds since 1970, the
 * canonical text of a timestamp), with the digits of the last whole second
 * kept in *sc: rows in time order share it, so only the six microsecond
 * digits are printed per row.  Zero-initialise *sc; one per thread.
 */
typedef struct rk_sec_digits {
	int64_t sec; /* the whole seconds whose digits follow (0: none) */
	size_t n;
	char digits[24];
} rk_sec_digits;

/* The two decimal digits of 0..99, in order ("000102...99"). */
extern const char rk_canon_pairs[201];

/*
 * The decimal digits of u written backwards from end (at most 20 bytes
 * before it); returns where they start.  Timestamps have 16 digits and this
 * runs once per row: eight digits at a time in 32-bit arithmetic, two per
 * step, so the divisions do not form one long chain of 64-bit ones.  Inline
 * for the server module, which prints integers and numerics with it.
 */
RK_CANON_INLINE char *rk_canon_digits(char *end, uint64_t u)
{
	char *q = end;
	uint32_t w;

	while (u >= 100000000) {
		w = (uint32_t)(u % 100000000);
		u /= 100000000;
		for (int k = 0; k < 4; k++) {
			q -= 2;
			memcpy(q, rk_canon_pairs + 2 * (w % 100), 2);
			w /= 100;
		}
	}
	w = (uint32_t)u;
	while (w >= 100) {
		q -= 2;
		memcpy(q, rk_canon_pairs + 2 * (w % 100), 2);
		w /= 100;
	}
	if (w >= 10) {
		q -= 2;
		memcpy(q, rk_canon_pairs + 2 * w, 2);
	} else {
		*--q = (char)('0' + w);
	}
	return q;
}

/* 10^k for k in [0, 19]: every power of ten a uint64_t holds. */
extern const uint64_t rk_canon_pow10[20];

/* The count of decimal digits of u (1 for 0). */
RK_CANON_INLINE int rk_canon_ndigits(uint64_t u)
{
	/* log10 from log2 (1233 / 4096 ~ log10(2)), one short at most; u | 1
	 * has the digits of u (no power of ten is odd but 1) and is not 0 */
	uint64_t v = u | 1;
	int t = (64 - __builtin_clzll(v)) * 1233 >> 12;

	return t + (v >= rk_canon_pow10[t]);
}

/* Writes n as the 4-byte little-endian length of a value (digest.md). */
RK_CANON_INLINE void rk_canon_put_len(char *lp, uint32_t n)
{
	lp[0] = (char)(n & 0xff);
	lp[1] = (char)(n >> 8 & 0xff);
	lp[2] = (char)(n >> 16 & 0xff);
	lp[3] = (char)(n >> 24 & 0xff);
}

/* Makes room in out for a value of n bytes of canonical text, writes its
 * tag and length and returns where the n bytes go; the caller writes them
 * and adds RK_CANON_HDR + n to out->len. */
RK_CANON_INLINE char *rk_canon_enc_begin(rk_buf *out, uint32_t n)
{
	char *w;

	if (out->cap - out->len < RK_CANON_HDR + (size_t)n)
		rk_buf_grow(out, RK_CANON_HDR + (size_t)n);
	w = out->data + out->len;
	w[0] = '\x01';
	rk_canon_put_len(w + 1, n);
	return w + RK_CANON_HDR;
}

/* Appends the encoding of a value whose canonical text is p[0..len) as it
 * is (a text; an integer as PostgreSQL prints it).  len < 4 GiB. */
RK_CANON_INLINE void rk_canon_enc_raw(rk_buf *out, const char *p, size_t len)
{
	memcpy(rk_canon_enc_begin(out, (uint32_t)len), p, len);
	out->len += RK_CANON_HDR + len;
}

/* Appends the encoding of a value whose canonical text is v in decimal: an
 * integer's, or a timestamp's instant in microseconds (digest.md).  Inline:
 * the client and the server module run it once per row and integer. */
RK_CANON_INLINE void rk_canon_enc_int64(rk_buf *out, int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	uint32_t n = (uint32_t)(rk_canon_ndigits(u) + (v < 0));
	char *w = rk_canon_enc_begin(out, n);

	/* printed in place, from its last digit */
	rk_canon_digits(w + n, u);
	if (v < 0)
		w[0] = '-';
	out->len += RK_CANON_HDR + n;
}

#define RK_CANON_USEC INT64_C(1000000)

/* The encoding of an instant in sc's second, us microseconds into it.  The
 * seconds have at most 13 digits (t < 2^63): room is made for 16, copied as
 * one fixed block, the bytes past sc->n overwritten by the microseconds or
 * left past the end of the encoding. */
RK_CANON_INLINE void rk_canon_enc_sec_us(rk_buf *out, const rk_sec_digits *sc, uint32_t us)
{
	char *w;

	if (out->cap - out->len < RK_CANON_HDR + 16 + 6)
		rk_buf_grow(out, RK_CANON_HDR + 16 + 6);
	w = rk_canon_enc_begin(out, (uint32_t)(sc->n + 6));
	memcpy(w, sc->digits, 16);
	w += sc->n;
	memcpy(w, rk_canon_pairs + 2 * (us / 10000), 2);
	memcpy(w + 2, rk_canon_pairs + 2 * (us / 100 % 100), 2);
	memcpy(w + 4, rk_canon_pairs + 2 * (us % 100), 2);
	out->len += RK_CANON_HDR + sc->n + 6;
}

/* rk_canon_enc_instant for an instant before 1970-01-01 00:00:01 or in
 * another second than sc's: sc takes the new second's digits. */
void rk_canon_enc_instant_new_sec(rk_buf *out, rk_sec_digits *sc, int64_t t);

/* The encoding of instant t with the digits of its whole seconds from sc
 * (see rk_sec_digits): rk_canon_enc_instant, inline for the server module,
 * out of line for the client's row loop (where inlining it costs more in
 * registers than it saves). */
RK_CANON_INLINE void rk_canon_enc_instant_inline(rk_buf *out, rk_sec_digits *sc, int64_t t)
{
	if (t < RK_CANON_USEC || t / RK_CANON_USEC != sc->sec) {
		rk_canon_enc_instant_new_sec(out, sc, t);
		return;
	}
	rk_canon_enc_sec_us(out, sc, (uint32_t)(t % RK_CANON_USEC));
}

void rk_canon_enc_instant(rk_buf *out, rk_sec_digits *sc, int64_t t);

/* The encoding of a finite wide instant (timeutil.h): the decimal of its
 * microseconds, as for an rk_usec, for PostgreSQL's last 30 years too. */
void rk_canon_enc_instant_wide(rk_buf *out, rk_wusec t);

/*
 * A numeric's value as its canonical text spells it, from an encoder that
 * had the digits at hand: m the significant digits as one integer with the
 * sign, scale the count of fraction digits, as rk_sum_add_decimal takes
 * them; ok false when there are more than 18 digits.
 */
typedef struct rk_canon_dec {
	bool ok;
	int32_t scale;
	rk_i128 m;
} rk_canon_dec;

/*
 * A numeric from PostgreSQL's own form of it: ndigits base-10000 digits at
 * p, the first worth 10000^weight, dscale the fraction digits numeric_out
 * prints, neg the sign.  The digits are int16s, big-endian as binary COPY
 * sends them (be) or in the host's order as the server stores them (the
 * reckon extension).  Both give the bytes rk_canon_enc_value makes of
 * numeric_out's text: every integer digit and exactly dscale fraction
 * digits (stored ones beyond them dropped, as get_str_from_var does), then
 * no leading or trailing zeros, "0" for zero, "0." before a fraction.
 */
RK_CANON_INLINE int rk_canon_nbase_digit(const unsigned char *p, size_t i, bool be)
{
	int16_t x;

	if (be)
		x = (int16_t)(uint16_t)((unsigned)p[2 * i] << 8 | p[2 * i + 1]);
	else
		memcpy(&x, p + 2 * i, 2);
	return x;
}

/* The way for more than 4 digits, through a string of decimal digits
 * (scratch holds it past 256); false for a digit outside 0..9999. */
bool rk_canon_enc_numeric_long(rk_buf *out, rk_buf *scratch, const unsigned char *p, size_t ndigits, int weight,
                               int dscale, bool neg, bool be, rk_canon_dec *dec);

/*
 * Appends the encoding of the numeric (see above) and its value in *dec;
 * false, appending nothing, for a digit outside 0..9999.  Up to 4 digits
 * (16 decimal ones: a numeric(12,2) has at most 4) in integer arithmetic,
 * the value m * 10^e with m the digits read as one integer; inline for the
 * per-row loops of the client and the server module.
 */
RK_CANON_INLINE bool rk_canon_enc_numeric_nbase(rk_buf *out, rk_buf *scratch, const unsigned char *p,
                                                size_t ndigits, int weight, int dscale, bool neg, bool be,
                                                rk_canon_dec *dec)
{
	uint64_t m = 0;
	int64_t e;
	size_t len;
	char *w;

	if (ndigits > 4)
		return rk_canon_enc_numeric_long(out, scratch, p, ndigits, weight, dscale, neg, be, dec);
	for (size_t i = 0; i < ndigits; i++) {
		int x = rk_canon_nbase_digit(p, i, be);

		if (x < 0 || x > 9999)
			return false;
		m = m * 10000 + (uint64_t)x;
	}
	e = 4 * ((int64_t)weight + 1 - (int64_t)ndigits);
	if (-e > dscale) {
		/* numeric_out stops dscale digits after the point */
		m = -e - dscale >= 20 ? 0 : m / rk_canon_pow10[-e - dscale];
		e = -dscale;
	}
	dec->ok = false;
	if (m == 0) {
		rk_canon_enc_raw(out, "0", 1);
		dec->ok = true;
		dec->m = 0;
		dec->scale = 0;
		return true;
	}
	while (e < 0 && m % 10 == 0) {
		m /= 10;
		e++;
	}
	if (e <= 18 && -e <= 38) {
		dec->m = (rk_i128)m;
		if (e > 0)
			dec->m *= (rk_i128)rk_canon_pow10[e];
		if (neg)
			dec->m = -dec->m;
		dec->scale = (int32_t)(e < 0 ? -e : 0);
		dec->ok = true;
	}
	if (e >= 0) {
		/* the digits, then e zeros */
		size_t nq = (size_t)rk_canon_ndigits(m);

		len = neg + nq + (size_t)e;
		w = rk_canon_enc_begin(out, (uint32_t)len);
		if (neg)
			*w++ = '-';
		rk_canon_digits(w + nq, m);
		if (e > 0)
			memset(w + nq, '0', (size_t)e);
	} else {
		/* the integer part (0 when there is none), the point, and -e
		 * fraction digits, from their last one back, zeros before the
		 * fraction's own digits (m / 10^-e is 0 when -e has 20 or more) */
		size_t s = (size_t)-e;
		uint64_t ip = s < 20 ? m / rk_canon_pow10[s] : 0;
		uint64_t f = m - (s < 20 ? ip * rk_canon_pow10[s] : 0);
		size_t ni = (size_t)rk_canon_ndigits(ip);
		char *fr, *q;

		len = neg + ni + 1 + s;
		w = rk_canon_enc_begin(out, (uint32_t)len);
		if (neg)
			*w++ = '-';
		rk_canon_digits(w + ni, ip);
		w[ni] = '.';
		fr = w + ni + 1;
		q = rk_canon_digits(fr + s, f);
		if (q > fr)
			memset(fr, '0', (size_t)(q - fr));
	}
	out->len += RK_CANON_HDR + len;
	return true;
}

/*
 * Appends the encoding of the numeric p[0..len) (digest.md) when it has the
 * form PostgreSQL prints - an optional '-', digits, optionally '.' and
 * digits - with its value in *d, and returns true; false, appending
 * nothing, for any other text, which rk_canon_enc_value takes.
 */
bool rk_canon_enc_numeric_plain(rk_buf *out, const char *p, size_t len, rk_canon_dec *d);

/* Appends the encoding of a real or double precision value d (a real
 * widened to double exactly): its canonical text, the 16 hex digits of its
 * binary64 bits (digest.md). */
void rk_canon_enc_double(rk_buf *out, double d);

/* Appends the encoding of a value: 0x01, the 4-byte little-endian length of
 * the canonical text, the canonical text.  Same errors as rk_canon_text; on
 * error out is left exactly as it was before the call. */
int rk_canon_enc_value(rk_type t, const char *p, size_t len, rk_buf *out, const char **why);

/*
 * The instant a time-column value places its row at: timestamptz and
 * timestamp values as parsed by rk_time_parse, a date at midnight UTC; a
 * timestamp PostgreSQL holds after an rk_usec's end at RK_USEC_PINF, after
 * every window (rk_usec_place).  Returns 0 or -1 with *why.
 */
int rk_canon_instant(rk_type t, const char *p, size_t len, rk_usec *out, const char **why);

/* A timestamp or timestamptz value's exact wide instant (rk_time_parse_wide;
 * other types: -1).  Returns 0 or -1 with *why. */
int rk_canon_instant_wide(rk_type t, const char *p, size_t len, rk_wusec *out, const char **why);

#endif
