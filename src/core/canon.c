/* strtod_l / strtof_l: float parsing must not follow the process's
 * LC_NUMERIC (a ',' decimal point would silently change the bytes). */
#define _GNU_SOURCE

#include "core/canon.h"
#include "core/text.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * Every function here runs once per value per row, for millions of rows:
 * inputs are (pointer, length) and never NUL-terminated, nothing allocates
 * except growth of the caller's rk_buf, and the forms PostgreSQL itself
 * prints take the shortest path.  CSV exports may pad values with blanks, so
 * all types except text, char(n) and "other" ignore surrounding spaces/tabs.
 */

static bool rk_cn_digit(char c)
{
	return (unsigned)(c - '0') < 10u;
}

static char rk_cn_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static void rk_cn_trim(const char **s, size_t *len)
{
	const char *p = *s;
	const char *e = p + *len;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*s = p;
	*len = (size_t)(e - p);
}

/* Case-insensitive equality of p[0..len) with a lowercase literal. */
static bool rk_cn_word(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	if (len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (rk_cn_lower(p[i]) != lit[i])
			return false;
	return true;
}

/* Room for n more bytes at out->data + out->len, without changing len. */
static char *rk_cn_reserve(rk_buf *out, size_t n)
{
	if (out->cap - out->len < n)
		rk_buf_grow(out, n);
	return out->data + out->len;
}

/* ------------------------------------------------------------------ */
/* smallint, integer, bigint */

static int rk_canon_int(const char *p, size_t len, uint64_t max_pos, const char *range_why,
                        rk_buf *out, const char **why)
{
	const char *e, *d;
	bool neg = false;
	uint64_t acc = 0;
	size_t n;
	char *w;

	rk_cn_trim(&p, &len);
	e = p + len;
	if (p < e && (*p == '+' || *p == '-')) {
		neg = *p == '-';
		p++;
	}
	d = p;
	while (p < e && rk_cn_digit(*p))
		p++;
	if (p == d || p != e) {
		*why = "not a valid integer";
		return -1;
	}
	while (d < e - 1 && *d == '0')
		d++;
	n = (size_t)(e - d);
	/* 19 digits always fit uint64; anything longer is out of every range */
	if (n > 19)
		goto range;
	for (const char *q = d; q < e; q++)
		acc = acc * 10 + (uint64_t)(*q - '0');
	if (acc > max_pos + (neg ? 1u : 0u))
		goto range;
	if (acc == 0)
		neg = false;
	w = rk_cn_reserve(out, n + 1);
	if (neg)
		*w++ = '-';
	memcpy(w, d, n);
	out->len += n + (neg ? 1u : 0u);
	return 0;
range:
	*why = range_why;
	return -1;
}

/* ------------------------------------------------------------------ */
/* numeric */

/* PostgreSQL refuses exponents beyond its maximum precision too. */
#define RK_NUMERIC_MAX_EXP 1000

/*
 * The digits of a numeric literal are the integer digits followed by the
 * fraction digits, two runs of the input; this copies digits [from, to) of
 * that virtual sequence.
 */
static char *rk_cn_copy_digits(char *w, const char *ip, size_t ni, const char *fp, size_t from, size_t to)
{
	if (from < ni) {
		size_t end = to < ni ? to : ni;

		memcpy(w, ip + from, end - from);
		w += end - from;
		from = end;
	}
	if (from < to) {
		memcpy(w, fp + (from - ni), to - from);
		w += to - from;
	}
	return w;
}

static char rk_cn_vdigit(const char *ip, size_t ni, const char *fp, size_t i)
{
	return i < ni ? ip[i] : fp[i - ni];
}

/*
 * The form PostgreSQL itself prints: an optional '-', integer digits,
 * optionally '.' and fraction digits.  False for anything else, which the
 * general parser below takes.  Else the significant digits: the integer
 * ones without leading zeros (one "0" left), the fraction's without its
 * trailing zeros (frac: some are left).
 */
typedef struct rk_cn_plain {
	bool neg, frac;
	const char *ip, *ie, *fp, *fe;
} rk_cn_plain;

static bool rk_cn_plain_parse(const char *p, size_t len, rk_cn_plain *pl)
{
	const char *e = p + len, *q = p;

	pl->neg = false;
	pl->fp = pl->fe = NULL;
	if (q < e && *q == '-') {
		pl->neg = true;
		q++;
	}
	pl->ip = q;
	while (q < e && rk_cn_digit(*q))
		q++;
	pl->ie = q;
	if (pl->ie == pl->ip)
		return false;
	if (q < e) {
		if (*q != '.')
			return false;
		pl->fp = ++q;
		while (q < e && rk_cn_digit(*q))
			q++;
		if (q != e)
			return false;
		pl->fe = e;
		while (pl->fe > pl->fp && pl->fe[-1] == '0')
			pl->fe--;
	}
	while (pl->ie - pl->ip > 1 && *pl->ip == '0')
		pl->ip++;
	pl->frac = pl->fp && pl->fe > pl->fp;
	return true;
}

/* The canonical text of a plain numeric (above): its length, and the text
 * written to w when w is not NULL. */
static size_t rk_cn_plain_text(const rk_cn_plain *pl, char *w)
{
	size_t ni = (size_t)(pl->ie - pl->ip), nf = pl->frac ? (size_t)(pl->fe - pl->fp) : 0;

	if (!pl->frac && ni == 1 && *pl->ip == '0') {
		if (w)
			*w = '0'; /* 0, -0, 0.000 */
		return 1;
	}
	if (w) {
		if (pl->neg)
			*w++ = '-';
		memcpy(w, pl->ip, ni);
		if (pl->frac) {
			w[ni] = '.';
			memcpy(w + ni + 1, pl->fp, nf);
		}
	}
	return (size_t)pl->neg + ni + (pl->frac ? 1 + nf : 0);
}

static bool rk_canon_numeric_plain(const char *p, size_t len, rk_buf *out)
{
	rk_cn_plain pl;
	size_t n;

	if (!rk_cn_plain_parse(p, len, &pl))
		return false;
	n = rk_cn_plain_text(&pl, NULL);
	rk_cn_plain_text(&pl, rk_cn_reserve(out, n));
	out->len += n;
	return true;
}

bool rk_canon_enc_numeric_plain(rk_buf *out, const char *p, size_t len, rk_canon_dec *d)
{
	rk_cn_plain pl;
	size_t n, ni, nf;

	d->ok = false;
	if (!rk_cn_plain_parse(p, len, &pl))
		return false;
	n = rk_cn_plain_text(&pl, NULL);
	rk_cn_plain_text(&pl, rk_canon_enc_begin(out, (uint32_t)n));
	out->len += RK_CANON_HDR + n;
	ni = (size_t)(pl.ie - pl.ip);
	nf = pl.frac ? (size_t)(pl.fe - pl.fp) : 0;
	if (ni + nf <= 18) {
		int64_t m = 0;

		for (const char *q = pl.ip; q < pl.ie; q++)
			m = m * 10 + (*q - '0');
		for (size_t i = 0; i < nf; i++)
			m = m * 10 + (pl.fp[i] - '0');
		d->m = pl.neg ? -m : m;
		d->scale = (int32_t)nf;
		d->ok = true;
	}
	return true;
}

static int rk_canon_numeric(const char *p, size_t len, rk_buf *out, const char **why)
{
	const char *e, *ip, *fp = NULL;
	size_t ni, nf = 0, nd, i0, i1, nsig;
	int64_t exp = 0, k;
	bool neg = false;
	char *w, *w0;

	if (rk_canon_numeric_plain(p, len, out))
		return 0;
	rk_cn_trim(&p, &len);
	e = p + len;
	if (len == 0)
		goto bad;
	if (!rk_cn_digit(*p) && *p != '.' && !((*p == '-' || *p == '+') && len > 1 && (rk_cn_digit(p[1]) || p[1] == '.'))) {
		const char *word;

		if (rk_cn_word(p, len, "nan"))
			word = "NaN";
		else if (rk_cn_word(p, len, "infinity") || rk_cn_word(p, len, "+infinity") ||
		         rk_cn_word(p, len, "inf") || rk_cn_word(p, len, "+inf"))
			word = "Infinity";
		else if (rk_cn_word(p, len, "-infinity") || rk_cn_word(p, len, "-inf"))
			word = "-Infinity";
		else
			goto bad;
		rk_buf_puts(out, word);
		return 0;
	}
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	ip = p;
	while (p < e && rk_cn_digit(*p))
		p++;
	ni = (size_t)(p - ip);
	if (p < e && *p == '.') {
		fp = ++p;
		while (p < e && rk_cn_digit(*p))
			p++;
		nf = (size_t)(p - fp);
	}
	nd = ni + nf;
	if (nd == 0)
		goto bad;
	if (p < e && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		const char *ed;

		p++;
		if (p < e && (*p == '+' || *p == '-')) {
			eneg = *p == '-';
			p++;
		}
		ed = p;
		while (p < e && rk_cn_digit(*p)) {
			if (exp <= RK_NUMERIC_MAX_EXP)
				exp = exp * 10 + (*p - '0');
			p++;
		}
		if (p == ed)
			goto bad;
		if (exp > RK_NUMERIC_MAX_EXP) {
			*why = "numeric exponent out of range";
			return -1;
		}
		if (eneg)
			exp = -exp;
	}
	if (p != e)
		goto bad;

	/* significant digits [i0, i1); the point sits k digits after i0 */
	for (i0 = 0; i0 < nd && rk_cn_vdigit(ip, ni, fp, i0) == '0'; i0++)
		;
	if (i0 == nd) {
		rk_buf_putc(out, '0');
		return 0;
	}
	for (i1 = nd; rk_cn_vdigit(ip, ni, fp, i1 - 1) == '0'; i1--)
		;
	nsig = i1 - i0;
	k = (int64_t)ni + exp - (int64_t)i0;

	w0 = w = rk_cn_reserve(out, nsig + (size_t)(k < 0 ? -k : k) + 4);
	if (neg)
		*w++ = '-';
	if (k <= 0) {
		*w++ = '0';
		*w++ = '.';
		memset(w, '0', (size_t)-k);
		w += -k;
		w = rk_cn_copy_digits(w, ip, ni, fp, i0, i1);
	} else if ((size_t)k >= nsig) {
		w = rk_cn_copy_digits(w, ip, ni, fp, i0, i1);
		memset(w, '0', (size_t)k - nsig);
		w += (size_t)k - nsig;
	} else {
		w = rk_cn_copy_digits(w, ip, ni, fp, i0, i0 + (size_t)k);
		*w++ = '.';
		w = rk_cn_copy_digits(w, ip, ni, fp, i0 + (size_t)k, i1);
	}
	out->len += (size_t)(w - w0);
	return 0;
bad:
	*why = "not a valid numeric";
	return -1;
}

/* ------------------------------------------------------------------ */
/* real, double precision */

static locale_t rk_cn_c_locale;
static pthread_once_t rk_cn_c_locale_once = PTHREAD_ONCE_INIT;

static void rk_cn_c_locale_init(void)
{
	rk_cn_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* A float's canonical text, from its value: the hex digits of its
 * binary64 bits, every NaN the same. */
static void rk_cn_put_double(rk_buf *out, double d)
{
	static const char hex[] = "0123456789abcdef";
	char *w = rk_cn_reserve(out, 16);
	uint64_t bits;

	if (isnan(d))
		bits = UINT64_C(0x7ff8000000000000);
	else
		memcpy(&bits, &d, sizeof bits);
	for (int i = 15; i >= 0; i--) {
		w[i] = hex[bits & 0xf];
		bits >>= 4;
	}
	out->len += 16;
}

void rk_canon_enc_double(rk_buf *out, double d)
{
	rk_canon_enc_begin(out, 16);
	out->len += RK_CANON_HDR;
	rk_cn_put_double(out, d);
}

/*
 * Clinger's fast path: a decimal m * 10^k whose m and 10^k are both exact in
 * the target format is correctly rounded by one multiplication or division,
 * so it equals what strtod/strtof return.  It covers the short literals
 * most columns hold; everything else (long digit strings, big exponents,
 * inf/nan, hex) goes to the C library.  Needs arithmetic done in the
 * declared type, hence the FLT_EVAL_METHOD check.
 */
static bool rk_cn_float_fast(const char *p, size_t len, bool single, double *out)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
	static const double p10[23] = {
		1e0,
		1e1,
		1e2,
		1e3,
		1e4,
		1e5,
		1e6,
		1e7,
		1e8,
		1e9,
		1e10,
		1e11,
		1e12,
		1e13,
		1e14,
		1e15,
		1e16,
		1e17,
		1e18,
		1e19,
		1e20,
		1e21,
		1e22,
	};
	static const float p10f[11] = { 1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f };
	const char *e = p + len, *q;
	bool neg = false;
	uint64_t m = 0;
	int nd = 0, k = 0, ndig = 0;

	if (p < e && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	for (; p < e && rk_cn_digit(*p); p++, ndig++) {
		if (m == 0 && *p == '0')
			continue;
		if (++nd > 19)
			return false;
		m = m * 10 + (uint64_t)(*p - '0');
	}
	if (p < e && *p == '.') {
		for (p++; p < e && rk_cn_digit(*p); p++, ndig++) {
			k--;
			if (m == 0 && *p == '0')
				continue;
			if (++nd > 19)
				return false;
			m = m * 10 + (uint64_t)(*p - '0');
		}
	}
	if (ndig == 0)
		return false;
	if (p < e && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		int x = 0;

		q = ++p;
		if (p < e && (*p == '+' || *p == '-')) {
			eneg = *p == '-';
			q = ++p;
		}
		for (; p < e && rk_cn_digit(*p); p++)
			if ((x = x * 10 + (*p - '0')) > 1000)
				return false;
		if (p == q)
			return false;
		k += eneg ? -x : x;
	}
	if (p != e)
		return false;
	if (single) {
		float f;

		if (m > (UINT64_C(1) << 24) || k < -10 || k > 10)
			return m == 0 ? (*out = neg ? -0.0 : 0.0, true) : false;
		f = (float)m;
		f = k < 0 ? f / p10f[-k] : f * p10f[k];
		*out = (double)(neg ? -f : f);
	} else {
		double d;

		if (m > (UINT64_C(1) << 53) || k < -22 || k > 22)
			return m == 0 ? (*out = neg ? -0.0 : 0.0, true) : false;
		d = (double)m;
		d = k < 0 ? d / p10[-k] : d * p10[k];
		*out = neg ? -d : d;
	}
	return true;
#else
	(void)p;
	(void)len;
	(void)single;
	(void)out;
	return false;
#endif
}

/*
 * Parses with strtod/strtof semantics in the C locale, as PostgreSQL's
 * float8in/float4in do: results that overflow, or underflow to zero, are
 * errors; subnormals are fine.  Every NaN is written as the one quiet NaN
 * 7ff8000000000000, since PostgreSQL prints all NaNs alike.
 */
static int rk_canon_float(const char *p, size_t len, bool single, rk_buf *out, const char **why)
{
	char tmp[64];
	const char *s;
	char *end;
	size_t mark = out->len;
	double d;
	bool range = false;

	rk_cn_trim(&p, &len);
	if (rk_cn_float_fast(p, len, single, &d))
		goto done;
	/* strtod would skip other leading white space and stop at a NUL byte */
	if (len == 0 || !(rk_cn_digit(*p) || *p == '-' || *p == '+' || *p == '.' ||
	                  (rk_cn_lower(*p) >= 'a' && rk_cn_lower(*p) <= 'z')))
		goto bad;
	if (len < sizeof tmp) {
		memcpy(tmp, p, len);
		tmp[len] = '\0';
		s = tmp;
	} else {
		/* long literal: borrow the tail of out as scratch, then drop it */
		rk_buf_append(out, p, len);
		rk_buf_putc(out, '\0');
		s = out->data + mark;
	}
	pthread_once(&rk_cn_c_locale_once, rk_cn_c_locale_init);
	errno = 0;
	if (single) {
		float f = rk_cn_c_locale ? strtof_l(s, &end, rk_cn_c_locale) : strtof(s, &end);

		range = errno == ERANGE && (f == 0.0f || isinf(f));
		d = (double)f;
	} else {
		d = rk_cn_c_locale ? strtod_l(s, &end, rk_cn_c_locale) : strtod(s, &end);
		range = errno == ERANGE && (d == 0.0 || isinf(d));
	}
	out->len = mark;
	if (end != s + len)
		goto bad;
	if (range) {
		*why = single ? "out of range for real" : "out of range for double precision";
		return -1;
	}
done:
	rk_cn_put_double(out, d);
	return 0;
bad:
	out->len = mark;
	*why = single ? "not a valid real" : "not a valid double precision";
	return -1;
}

/* ------------------------------------------------------------------ */
/* boolean */

static int rk_canon_bool(const char *p, size_t len, rk_buf *out, const char **why)
{
	char v;

	rk_cn_trim(&p, &len);
	if (len == 1 && (*p == 't' || *p == 'f')) {
		v = *p;
	} else if (rk_cn_word(p, len, "t") || rk_cn_word(p, len, "true") || rk_cn_word(p, len, "yes") ||
	           rk_cn_word(p, len, "on") || rk_cn_word(p, len, "1")) {
		v = 't';
	} else if (rk_cn_word(p, len, "f") || rk_cn_word(p, len, "false") || rk_cn_word(p, len, "no") ||
	           rk_cn_word(p, len, "off") || rk_cn_word(p, len, "0")) {
		v = 'f';
	} else {
		*why = "not a valid boolean";
		return -1;
	}
	rk_buf_putc(out, v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* date, timestamp, timestamptz */

static bool rk_cn_plain_date_shape(const char *p, size_t len)
{
	return len == 10 && p[4] == '-' && p[7] == '-' && rk_cn_digit(p[0]) && rk_cn_digit(p[1]) &&
	       rk_cn_digit(p[2]) && rk_cn_digit(p[3]) && rk_cn_digit(p[5]) && rk_cn_digit(p[6]) &&
	       rk_cn_digit(p[8]) && rk_cn_digit(p[9]);
}

static int rk_canon_date(const char *p, size_t len, rk_buf *out, const char **why)
{
	int64_t days;
	char tmp[RK_TIME_STRLEN];

	rk_cn_trim(&p, &len);
	if (rk_date_parse(p, len, &days, why) < 0)
		return -1;
	/* a valid date already written YYYY-MM-DD is its own canonical text */
	if (rk_cn_plain_date_shape(p, len)) {
		rk_buf_append(out, p, len);
		return 0;
	}
	rk_buf_puts(out, rk_date_format(days, tmp));
	return 0;
}

const uint64_t rk_canon_pow10[20] = {
	UINT64_C(1),
	UINT64_C(10),
	UINT64_C(100),
	UINT64_C(1000),
	UINT64_C(10000),
	UINT64_C(100000),
	UINT64_C(1000000),
	UINT64_C(10000000),
	UINT64_C(100000000),
	UINT64_C(1000000000),
	UINT64_C(10000000000),
	UINT64_C(100000000000),
	UINT64_C(1000000000000),
	UINT64_C(10000000000000),
	UINT64_C(100000000000000),
	UINT64_C(1000000000000000),
	UINT64_C(10000000000000000),
	UINT64_C(100000000000000000),
	UINT64_C(1000000000000000000),
	UINT64_C(10000000000000000000),
};

/* The two decimal digits of 0..99, in order. */
const char rk_canon_pairs[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";

/* The decimal digits of v, with its '-', written backwards from end. */
static char *rk_cn_digits(char *end, int64_t v)
{
	char *q = rk_canon_digits(end, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--q = '-';
	return q;
}

/* Decimal text of v. */
static void rk_cn_put_int64(rk_buf *out, int64_t v)
{
	char tmp[24];
	char *e = tmp + sizeof tmp, *q = rk_cn_digits(e, v);
	size_t n = (size_t)(e - q);

	memcpy(rk_cn_reserve(out, n), q, n);
	out->len += n;
}

void rk_canon_enc_instant_new_sec(rk_buf *out, rk_sec_digits *sc, int64_t t)
{
	uint64_t sec;

	if (t < RK_CANON_USEC) {
		rk_canon_enc_int64(out, t);
		return;
	}
	/* its digits printed in place, from the last one */
	sec = (uint64_t)(t / RK_CANON_USEC);
	sc->n = (size_t)rk_canon_ndigits(sec);
	rk_canon_digits(sc->digits + sc->n, sec);
	sc->sec = (int64_t)sec;
	rk_canon_enc_sec_us(out, sc, (uint32_t)(t % RK_CANON_USEC));
}

void rk_canon_enc_instant(rk_buf *out, rk_sec_digits *sc, int64_t t)
{
	rk_canon_enc_instant_inline(out, sc, t);
}

/* The decimal text of a finite wide instant: PostgreSQL's range fits an
 * int64 below zero and a uint64 above. */
static void rk_cn_put_wide(rk_buf *out, rk_wusec t)
{
	char tmp[24];
	char *e = tmp + sizeof tmp, *q = t < 0 ? rk_cn_digits(e, (int64_t)t) : rk_canon_digits(e, (uint64_t)t);
	size_t n = (size_t)(e - q);

	memcpy(rk_cn_reserve(out, n), q, n);
	out->len += n;
}

void rk_canon_enc_instant_wide(rk_buf *out, rk_wusec t)
{
	size_t mark = out->len;

	rk_cn_reserve(out, RK_CANON_HDR);
	out->data[out->len] = '\x01';
	out->len += RK_CANON_HDR;
	rk_cn_put_wide(out, t);
	rk_canon_put_len(out->data + mark + 1, (uint32_t)(out->len - mark - RK_CANON_HDR));
}

static int rk_canon_timestamp(const char *p, size_t len, bool local, rk_buf *out, const char **why)
{
	rk_usec t;
	rk_wusec w;

	if ((local ? rk_time_parse_local(p, len, &t, why) : rk_time_parse(p, len, &t, why)) < 0) {
		/* PostgreSQL's last 30 years: a longer decimal (digest.md) */
		if (rk_time_parse_wide(p, len, local, &w, why) < 0)
			return -1;
		rk_cn_put_wide(out, w);
		return 0;
	}
	if (t == RK_USEC_PINF)
		rk_buf_puts(out, "infinity");
	else if (t == RK_USEC_NINF)
		rk_buf_puts(out, "-infinity");
	else
		rk_cn_put_int64(out, t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* uuid */

static bool rk_cn_canonical_uuid(const char *p, size_t len)
{
	if (len != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		char c = p[i];

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				return false;
		} else if (!rk_cn_digit(c) && !(c >= 'a' && c <= 'f')) {
			return false;
		}
	}
	return true;
}

/*
 * Accepts what PostgreSQL's uuid_in accepts: 32 hex digits in either case,
 * optionally in braces, with a single '-' allowed after any group of four.
 */
static int rk_canon_uuid(const char *p, size_t len, rk_buf *out, const char **why)
{
	static const char hex[] = "0123456789abcdef";
	const char *e;
	bool braces = false;
	char *w;

	rk_cn_trim(&p, &len);
	if (rk_cn_canonical_uuid(p, len)) {
		rk_buf_append(out, p, len);
		return 0;
	}
	e = p + len;
	if (p < e && *p == '{') {
		braces = true;
		p++;
	}
	w = rk_cn_reserve(out, 36);
	for (int i = 0; i < 16; i++) {
		int hi, lo;

		if (e - p < 2 || (hi = rk_hexval(p[0])) < 0 || (lo = rk_hexval(p[1])) < 0)
			goto bad;
		p += 2;
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*w++ = '-';
		*w++ = hex[hi];
		*w++ = hex[lo];
		if (p < e && *p == '-' && i % 2 == 1 && i < 15)
			p++;
	}
	if (braces) {
		if (p == e || *p != '}')
			goto bad;
		p++;
	}
	if (p != e)
		goto bad;
	out->len += 36;
	return 0;
bad:
	*why = "not a valid uuid";
	return -1;
}

/* ------------------------------------------------------------------ */

int rk_canon_text(rk_type t, const char *p, size_t len, rk_buf *out, const char **why)
{
	switch (t) {
	case RK_T_TEXT:
	case RK_T_OTHER:
		rk_buf_append(out, p, len);
		return 0;
	case RK_T_BPCHAR:
		while (len > 0 && p[len - 1] == ' ')
			len--;
		rk_buf_append(out, p, len);
		return 0;
	case RK_T_INT2:
		return rk_canon_int(p, len, INT16_MAX, "out of range for smallint", out, why);
	case RK_T_INT4:
		return rk_canon_int(p, len, INT32_MAX, "out of range for integer", out, why);
	case RK_T_INT8:
		return rk_canon_int(p, len, INT64_MAX, "out of range for bigint", out, why);
	case RK_T_NUMERIC:
		return rk_canon_numeric(p, len, out, why);
	case RK_T_FLOAT4:
		return rk_canon_float(p, len, true, out, why);
	case RK_T_FLOAT8:
		return rk_canon_float(p, len, false, out, why);
	case RK_T_BOOL:
		return rk_canon_bool(p, len, out, why);
	case RK_T_DATE:
		return rk_canon_date(p, len, out, why);
	case RK_T_TIMESTAMP:
		return rk_canon_timestamp(p, len, true, out, why);
	case RK_T_TIMESTAMPTZ:
		return rk_canon_timestamp(p, len, false, out, why);
	case RK_T_UUID:
		return rk_canon_uuid(p, len, out, why);
	case RK_T_UNKNOWN:
		break;
	}
	*why = "column type is not known";
	return -1;
}

void rk_canon_enc_null(rk_buf *out)
{
	rk_buf_putc(out, '\0');
}

int rk_canon_enc_value(rk_type t, const char *p, size_t len, rk_buf *out, const char **why)
{
	size_t mark = out->len;
	size_t n;

	/* one growth for the usual case: tag, length, text about the input's size */
	rk_cn_reserve(out, RK_CANON_HDR + len + 24);
	out->data[out->len] = '\x01';
	out->len += RK_CANON_HDR;
	if (rk_canon_text(t, p, len, out, why) < 0) {
		out->len = mark;
		return -1;
	}
	n = out->len - mark - RK_CANON_HDR;
	if (n > UINT32_MAX) {
		out->len = mark;
		*why = "value longer than 4 GiB";
		return -1;
	}
	rk_canon_put_len(out->data + mark + 1, (uint32_t)n);
	return 0;
}

int rk_canon_instant_wide(rk_type t, const char *p, size_t len, rk_wusec *out, const char **why)
{
	if (t != RK_T_TIMESTAMP && t != RK_T_TIMESTAMPTZ) {
		*why = "not a timestamp";
		return -1;
	}
	return rk_time_parse_wide(p, len, t == RK_T_TIMESTAMP, out, why);
}

int rk_canon_instant(rk_type t, const char *p, size_t len, rk_usec *out, const char **why)
{
	int64_t days;
	switch (t) {
	case RK_T_TIMESTAMPTZ:
	case RK_T_TIMESTAMP:
		/* a value past an rk_usec's end is after every window */
		return rk_time_parse_placed(p, len, t == RK_T_TIMESTAMP, out, why);
	case RK_T_DATE:
		if (rk_date_parse(p, len, &days, why) < 0)
			return -1;
		if (days == INT64_MAX || days == INT64_MIN) {
			*out = days == INT64_MAX ? RK_USEC_PINF : RK_USEC_NINF;
			return 0;
		}
		/* past an rk_usec's end (dates reach year 5874897): after
		 * every window, as a timestamp there is */
		if (__builtin_mul_overflow(days, RK_USEC_PER_DAY, out) || *out == RK_USEC_PINF)
			*out = RK_USEC_PINF;
		return 0;
	default:
		break;
	}
	*why = "not a time column type";
	return -1;
}

bool rk_canon_enc_numeric_long(rk_buf *out, rk_buf *scratch, const unsigned char *p, size_t ndigits, int weight,
                               int dscale, bool neg, bool be, rk_canon_dec *dec)
{
	char local[256];
	char *dig;
	size_t nd, i0, i1, nsig, len;
	int64_t point, lim, k;
	char *w, *w0;

	nd = 4 * ndigits;
	if (nd <= sizeof local) {
		dig = local;
	} else {
		rk_buf_reset(scratch);
		if (scratch->cap < nd)
			rk_buf_grow(scratch, nd);
		dig = scratch->data;
	}
	for (size_t i = 0; i < ndigits; i++) {
		int x = rk_canon_nbase_digit(p, i, be);

		if (x < 0 || x > 9999)
			return false;
		memcpy(dig + 4 * i, rk_canon_pairs + 2 * (x / 100), 2);
		memcpy(dig + 4 * i + 2, rk_canon_pairs + 2 * (x % 100), 2);
	}
	/* the point sits after decimal digit 'point'; numeric_out stops dscale
	 * digits after it */
	point = 4 * ((int64_t)weight + 1);
	lim = point + dscale;
	if (lim < (int64_t)nd)
		nd = lim < 0 ? 0 : (size_t)lim;
	for (i0 = 0; i0 < nd && dig[i0] == '0'; i0++)
		;
	dec->ok = false;
	if (i0 == nd) {
		rk_canon_enc_raw(out, "0", 1);
		dec->ok = true;
		dec->m = 0;
		dec->scale = 0;
		return true;
	}
	for (i1 = nd; dig[i1 - 1] == '0'; i1--)
		;
	nsig = i1 - i0;
	k = point - (int64_t)i0;
	/* the canonical text's digits: the significant ones, then k - nsig
	 * zeros before the point when k > nsig; nsig - k after it otherwise */
	if (nsig <= 18 && k - (int64_t)nsig <= 18 && (int64_t)nsig - k <= 38) {
		uint64_t acc = 0;

		for (size_t q = i0; q < i1; q++)
			acc = acc * 10 + (uint64_t)(dig[q] - '0');
		dec->m = (rk_i128)acc;
		for (int64_t z = k - (int64_t)nsig; z > 0; z--)
			dec->m *= 10;
		if (neg)
			dec->m = -dec->m;
		dec->scale = (int32_t)((int64_t)nsig > k ? (int64_t)nsig - k : 0);
		dec->ok = true;
	}
	if (k <= 0)
		len = 2 + (size_t)-k + nsig;
	else if ((size_t)k >= nsig)
		len = (size_t)k;
	else
		len = nsig + 1;
	w0 = w = rk_canon_enc_begin(out, (uint32_t)(neg + len));
	if (neg)
		*w++ = '-';
	if (k <= 0) {
		*w++ = '0';
		*w++ = '.';
		memset(w, '0', (size_t)-k);
		w += -k;
		memcpy(w, dig + i0, nsig);
		w += nsig;
	} else if ((size_t)k >= nsig) {
		memcpy(w, dig + i0, nsig);
		w += nsig;
		memset(w, '0', (size_t)k - nsig);
		w += (size_t)k - nsig;
	} else {
		memcpy(w, dig + i0, (size_t)k);
		w += k;
		*w++ = '.';
		memcpy(w, dig + i0 + k, nsig - (size_t)k);
		w += nsig - (size_t)k;
	}
	out->len += RK_CANON_HDR + (size_t)(w - w0);
	return true;
}
