/*
 * fuzz_canon.c - libFuzzer harness for the canonical value encoder
 * (core/canon.c, digest.md): rk_canon_enc_value for every type, and the
 * three numeric paths held equal.
 *
 * Input: one byte choosing the type, then the value's text, in a buffer of
 * exactly its size.  Properties:
 *  - an encoding is 0x01, the 4-byte length, the canonical text, which is
 *    what rk_canon_text appends; a refused value leaves the buffer as it was;
 *  - a canonical text is a fixed point: for the types whose canonical text
 *    is also an input of the type, encoding it again gives the same bytes;
 *  - a numeric's canonical text, written as PostgreSQL stores a numeric
 *    (base-10000 digits, weight, display scale) and encoded by
 *    rk_canon_enc_numeric_nbase in both byte orders (binary COPY, the
 *    extension), and by rk_canon_enc_numeric_plain, gives the same bytes and
 *    the same value (m, scale) wherever both paths hold it;
 *  - a timestamp's instant encodes the same through rk_canon_enc_instant
 *    (whatever second its digit cache holds) as through rk_canon_enc_int64.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/canon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RK_FUZZ_CHECK(cond) \
	do {                    \
		if (!(cond))        \
			abort();        \
	} while (0)

#define RK_FZ_PREFIX "xyz"

static bool rk_fz_same(const rk_buf *a, const rk_buf *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static bool rk_fz_fixed_point_type(rk_type t)
{
	switch (t) {
	case RK_T_INT2: case RK_T_INT4: case RK_T_INT8: case RK_T_NUMERIC: case RK_T_BOOL:
	case RK_T_TEXT: case RK_T_BPCHAR: case RK_T_DATE: case RK_T_UUID: case RK_T_OTHER:
		return true;
	default:
		return false;
	}
}

/* The canonical text of a finite numeric (-?D+(.D+)?) as PostgreSQL holds
 * it: base-10000 digits (big-endian or host order), weight, display scale;
 * extra_scale more fraction digits than it has (numeric_out prints zeros
 * that canonical text drops). */
static size_t rk_fz_nbase(const char *s, size_t n, bool be, int extra_scale, unsigned char *out, int *weight,
                          int *dscale, bool *neg)
{
	const char *dot, *ip;
	size_t ni, nf, lead, total, ngroups;
	char *digits;
	size_t first, last, nd = 0;

	*neg = n && s[0] == '-';
	ip = s + *neg;
	n -= *neg;
	dot = memchr(ip, '.', n);
	ni = dot ? (size_t)(dot - ip) : n;
	nf = dot ? n - ni - 1 : 0;
	/* the integer digits padded on the left, the fraction on the right,
	 * each to whole groups of four */
	lead = (4 - ni % 4) % 4;
	total = lead + ni + nf + (4 - nf % 4) % 4;
	digits = malloc(total + 1);
	if (!digits)
		abort();
	memset(digits, '0', total);
	memcpy(digits + lead, ip, ni);
	if (nf)
		memcpy(digits + lead + ni, dot + 1, nf);
	ngroups = total / 4;
	*weight = (int)((lead + ni) / 4) - 1;
	*dscale = (int)nf + extra_scale;
	/* leading and trailing zero groups are not stored */
	for (first = 0; first < ngroups && memcmp(digits + 4 * first, "0000", 4) == 0; first++)
		(*weight)--;
	for (last = ngroups; last > first && memcmp(digits + 4 * (last - 1), "0000", 4) == 0; last--)
		;
	if (first == last)
		*weight = 0;
	for (size_t g = first; g < last; g++) {
		int16_t v = (int16_t)((digits[4 * g] - '0') * 1000 + (digits[4 * g + 1] - '0') * 100 +
		                      (digits[4 * g + 2] - '0') * 10 + (digits[4 * g + 3] - '0'));

		if (be) {
			out[2 * nd] = (unsigned char)((uint16_t)v >> 8);
			out[2 * nd + 1] = (unsigned char)(v & 0xff);
		} else {
			memcpy(out + 2 * nd, &v, 2);
		}
		nd++;
	}
	free(digits);
	return nd;
}

static void rk_fz_numeric(const rk_buf *enc)
{
	const char *s = enc->data + sizeof RK_FZ_PREFIX - 1 + 5;
	size_t n = enc->len - (sizeof RK_FZ_PREFIX - 1) - 5;
	rk_buf plain = RK_BUF_INIT, other = RK_BUF_INIT, scratch = RK_BUF_INIT;
	rk_canon_dec d0, d1;
	unsigned char *digits;

	if (n == 0 || s[n - 1] < '0' || s[n - 1] > '9')
		return;   /* NaN and the infinities: words, no digits */
	/* the canonical text is plain: the plain path takes it as it is */
	rk_buf_puts(&plain, RK_FZ_PREFIX);
	RK_FUZZ_CHECK(rk_canon_enc_numeric_plain(&plain, s, n, &d0));
	RK_FUZZ_CHECK(rk_fz_same(&plain, enc));
	digits = malloc(n + 8);
	if (!digits)
		abort();
	for (int be = 0; be < 2; be++) {
		for (int extra = 0; extra < 6; extra += 5) {
			int weight, dscale;
			bool neg;
			size_t nd = rk_fz_nbase(s, n, be, extra, digits, &weight, &dscale, &neg);

			if (dscale > 0x3FFF)
				continue;   /* past numeric's display scale */
			rk_buf_reset(&other);
			rk_buf_puts(&other, RK_FZ_PREFIX);
			RK_FUZZ_CHECK(rk_canon_enc_numeric_nbase(&other, &scratch, digits, nd, weight, dscale, neg, be, &d1));
			RK_FUZZ_CHECK(rk_fz_same(&other, enc));
			/* the plain path counts a leading "0." as a digit, so it
			 * may give up on 18 significant digits where the other
			 * does not; where both hold the value, it is the same */
			RK_FUZZ_CHECK(!d0.ok || d1.ok);
			RK_FUZZ_CHECK(!d0.ok || (d0.m == d1.m && d0.scale == d1.scale));
		}
	}
	free(digits);
	rk_buf_free(&plain);
	rk_buf_free(&other);
	rk_buf_free(&scratch);
}

static void rk_fz_instant(rk_type t, const char *p, size_t len)
{
	rk_buf a = RK_BUF_INIT, b = RK_BUF_INIT;
	rk_sec_digits sc;
	const char *why;
	rk_usec v;

	if (rk_canon_instant(t, p, len, &v, &why) < 0 || v == RK_USEC_PINF || v == RK_USEC_NINF)
		return;
	rk_canon_enc_int64(&a, v);
	/* a fresh cache, then one holding this second, then another second */
	memset(&sc, 0, sizeof sc);
	for (int k = 0; k < 3; k++) {
		if (k == 2 && v > INT64_MIN + 2 * RK_CANON_USEC) {
			rk_buf_reset(&b);
			rk_canon_enc_instant(&b, &sc, v - RK_CANON_USEC);
		}
		rk_buf_reset(&b);
		rk_canon_enc_instant(&b, &sc, v);
		RK_FUZZ_CHECK(rk_fz_same(&a, &b));
	}
	rk_buf_free(&a);
	rk_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_buf enc = RK_BUF_INIT, text = RK_BUF_INIT, again = RK_BUF_INIT;
	const char *why = NULL;
	rk_type t;
	size_t len, plen = sizeof RK_FZ_PREFIX - 1;
	char *p;
	int rc;

	if (size < 1)
		return 0;
	t = (rk_type)(data[0] % (RK_T_OTHER + 1));
	len = size - 1;
	p = malloc(len ? len : 1);
	if (!p)
		abort();
	memcpy(p, data + 1, len);

	/* after bytes already in the buffer, as a row's encodings follow each other */
	rk_buf_puts(&enc, RK_FZ_PREFIX);
	rc = rk_canon_enc_value(t, p, len, &enc, &why);
	if (rc < 0) {
		RK_FUZZ_CHECK(why != NULL && enc.len == plen && memcmp(enc.data, RK_FZ_PREFIX, plen) == 0);
		goto done;
	}
	RK_FUZZ_CHECK(enc.len >= plen + 5 && enc.data[plen] == '\x01');
	{
		const unsigned char *l = (const unsigned char *)enc.data + plen + 1;
		size_t n = (size_t)l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;

		RK_FUZZ_CHECK(enc.len == plen + 5 + n);
		RK_FUZZ_CHECK(rk_canon_text(t, p, len, &text, &why) == 0);
		RK_FUZZ_CHECK(text.len == n && (n == 0 || memcmp(text.data, enc.data + plen + 5, n) == 0));
		if (rk_fz_fixed_point_type(t)) {
			rk_buf_puts(&again, RK_FZ_PREFIX);
			RK_FUZZ_CHECK(rk_canon_enc_value(t, text.data ? text.data : "", n, &again, &why) == 0);
			RK_FUZZ_CHECK(rk_fz_same(&again, &enc));
		}
	}
	if (t == RK_T_NUMERIC)
		rk_fz_numeric(&enc);
	if (t == RK_T_TIMESTAMP || t == RK_T_TIMESTAMPTZ || t == RK_T_DATE)
		rk_fz_instant(t, p, len);
done:
	free(p);
	rk_buf_free(&enc);
	rk_buf_free(&text);
	rk_buf_free(&again);
	return 0;
}
