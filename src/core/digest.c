#include "core/digest.h"

#include "core/canon.h"

#include <string.h>

/* xxHash's own header-only mode (libxxhash-dev ships it for this): XXH3 is
 * compiled here, where a row's short input can take its fast path inline,
 * instead of a call through the shared library for every row. */
#define XXH_INLINE_ALL
#include <xxhash.h>

/*
 * The row hash is XXH3-128 with the default secret and seed 0 (digest.md).
 * A window hash is a plain sum of row hashes modulo 2^128, which unsigned
 * __int128 arithmetic gives for free: order-independent, and duplicates add
 * up instead of cancelling as they would under XOR.
 */

rk_u128 rk_row_hash(const void *enc, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(enc, len);

	return ((rk_u128)h.high64 << 64) | (rk_u128)h.low64;
}

_Static_assert(sizeof(XXH3_state_t) <= sizeof(((rk_row_hasher *)0)->state), "rk_row_hasher holds XXH3_state_t");
_Static_assert(_Alignof(XXH3_state_t) <= 64, "rk_row_hasher is aligned for XXH3_state_t");

static XXH3_state_t *rk_row_hasher_state(rk_row_hasher *h)
{
	return (XXH3_state_t *)(void *)h->state;
}

void rk_row_hasher_reset(rk_row_hasher *h)
{
	XXH3_state_t *st = rk_row_hasher_state(h);

	XXH3_INITSTATE(st);
	(void)XXH3_128bits_reset(st);
}

void rk_row_hasher_update(rk_row_hasher *h, const void *p, size_t len)
{
	if (len)
		(void)XXH3_128bits_update(rk_row_hasher_state(h), p, len);
}

void rk_row_hasher_value(rk_row_hasher *h, uint32_t len)
{
	char hdr[RK_CANON_HDR];

	hdr[0] = '\x01';
	rk_canon_put_len(hdr + 1, len);
	rk_row_hasher_update(h, hdr, sizeof hdr);
}

rk_u128 rk_row_hasher_final(rk_row_hasher *h)
{
	XXH128_hash_t r = XXH3_128bits_digest(rk_row_hasher_state(h));

	return ((rk_u128)r.high64 << 64) | (rk_u128)r.low64;
}

void rk_hash_hex(rk_u128 h, char out[33])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 31; i >= 0; i--) {
		out[i] = hex[(unsigned)(h & 0xf)];
		h >>= 4;
	}
	out[32] = '\0';
}

int rk_hash_parse(const char *hex, rk_u128 *out)
{
	rk_u128 h = 0;

	if (!hex || strlen(hex) != 32)
		return -1;
	for (int i = 0; i < 32; i++) {
		char c = hex[i];
		unsigned v;

		if (c >= '0' && c <= '9')
			v = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = (unsigned)(c - 'A' + 10);
		else
			return -1;
		h = (h << 4) | v;
	}
	*out = h;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Exact sums. */

/* 10^38 is the largest power of ten a signed 128-bit integer holds. */
#define RK_SUM_MAX_SCALE 38

static const char rk_sum_overflow[] = "sum overflows 128 bits";

static rk_i128 rk_sum_pow10(int n)
{
	const uint64_t *p = rk_canon_pow10;

	if (n <= 19)
		return (rk_i128)p[n];
	return (rk_i128)p[19] * (rk_i128)p[n - 19];
}

/* v * 10^n, or -1 when that does not fit. */
static int rk_sum_rescale(rk_i128 v, int32_t n, rk_i128 *out)
{
	if (v == 0 || n == 0) {
		*out = v;
		return 0;
	}
	if (n > RK_SUM_MAX_SCALE)
		return -1;
	/* the usual case, a value of 64 bits times at most 10^19: below 2^127
	 * in magnitude, so a plain multiplication (no overflow check in
	 * 128-bit arithmetic, which is a library call) */
	if (n <= 19 && v >= INT64_MIN && v <= INT64_MAX) {
		*out = v * rk_sum_pow10((int)n);
		return 0;
	}
	return __builtin_mul_overflow(v, rk_sum_pow10((int)n), out) ? -1 : 0;
}

/* (v, scale) += (w, wscale) at the larger of the two scales; on overflow
 * returns -1 and leaves (v, scale) unchanged. */
static int rk_sum_add_scaled(rk_i128 *v, int32_t *scale, rk_i128 w, int32_t wscale)
{
	rk_i128 a = *v, b = w, r;
	int32_t sc = *scale;

	if (wscale > sc) {
		if (rk_sum_rescale(a, wscale - sc, &a) < 0)
			return -1;
		sc = wscale;
	} else if (wscale < sc) {
		if (rk_sum_rescale(b, sc - wscale, &b) < 0)
			return -1;
	}
	if (__builtin_add_overflow(a, b, &r))
		return -1;
	*v = r;
	*scale = sc;
	return 0;
}

static int rk_sum_count(uint32_t *c, uint32_t n, const char **why)
{
	if (__builtin_add_overflow(*c, n, c)) {
		*why = "too many NaN or infinite values in a sum";
		return -1;
	}
	return 0;
}

int rk_sum_add(rk_sum *s, const char *canon, size_t len, const char **why)
{
	const char *p = canon, *e = canon + len, *ip, *fp = NULL;
	size_t ni, nf = 0;
	bool neg = false;
	uint64_t acc = 0;
	rk_i128 m = 0;

	/* the special values are the exact canonical words (digest.md) */
	if (len == 3 && memcmp(canon, "NaN", 3) == 0)
		return rk_sum_count(&s->nan, 1, why);
	if (len == 8 && memcmp(canon, "Infinity", 8) == 0)
		return rk_sum_count(&s->pinf, 1, why);
	if (len == 9 && memcmp(canon, "-Infinity", 9) == 0)
		return rk_sum_count(&s->ninf, 1, why);

	if (p < e && *p == '-') {
		neg = true;
		p++;
	}
	/* one walk of the digits, accumulated as they come: exact in 64 bits
	 * for the usual value of at most 18 digits (checked below) */
	ip = p;
	while (p < e && (unsigned)(*p - '0') < 10u)
		acc = acc * 10 + (uint64_t)(*p++ - '0');
	ni = (size_t)(p - ip);
	if (p < e && *p == '.') {
		fp = ++p;
		while (p < e && (unsigned)(*p - '0') < 10u)
			acc = acc * 10 + (uint64_t)(*p++ - '0');
		nf = (size_t)(p - fp);
	}
	if (p != e || ni + nf == 0) {
		*why = "not a canonical numeric value";
		return -1;
	}
	if (ni + nf <= 18) {
		/* trailing fractional zeros carry no value; canonical text has none */
		while (nf > 0 && fp[nf - 1] == '0') {
			acc /= 10;
			nf--;
		}
		m = neg ? -(rk_i128)acc : (rk_i128)acc;
		return rk_sum_add_decimal(s, m, (int32_t)nf, why);
	}
	while (nf > 0 && fp[nf - 1] == '0')
		nf--;
	if (nf > RK_SUM_MAX_SCALE) {
		*why = "value has more than 38 fractional digits";
		return -1;
	}
	/* accumulate towards the sign so the most negative value fits too */
	for (size_t i = 0; i < ni + nf; i++) {
		int d = (i < ni ? ip[i] : fp[i - ni]) - '0';

		if (__builtin_mul_overflow(m, 10, &m) ||
		    (neg ? __builtin_sub_overflow(m, d, &m) : __builtin_add_overflow(m, d, &m))) {
			*why = rk_sum_overflow;
			return -1;
		}
	}
	if (rk_sum_add_scaled(&s->v, &s->scale, m, (int32_t)nf) < 0) {
		*why = rk_sum_overflow;
		return -1;
	}
	return 0;
}

/* rk_sum_add_decimal for a value of another scale than the sum's, or an
 * overflow. */
int rk_sum_add_decimal_rescaled(rk_sum *s, rk_i128 m, int32_t scale, const char **why)
{
	if (scale < 0 || scale > RK_SUM_MAX_SCALE) {
		*why = "value has more than 38 fractional digits";
		return -1;
	}
	if (rk_sum_add_scaled(&s->v, &s->scale, m, scale) < 0) {
		*why = rk_sum_overflow;
		return -1;
	}
	return 0;
}

int rk_sum_merge(rk_sum *a, const rk_sum *b, const char **why)
{
	rk_sum r = *a;

	if (rk_sum_count(&r.nan, b->nan, why) < 0 || rk_sum_count(&r.pinf, b->pinf, why) < 0 ||
	    rk_sum_count(&r.ninf, b->ninf, why) < 0)
		return -1;
	if (rk_sum_add_scaled(&r.v, &r.scale, b->v, b->scale) < 0) {
		*why = rk_sum_overflow;
		return -1;
	}
	*a = r;
	return 0;
}

enum { RK_SUM_FINITE,
       RK_SUM_NAN,
       RK_SUM_PINF,
       RK_SUM_NINF };

/* What the sum denotes, as numeric arithmetic defines it. */
static int rk_sum_class(const rk_sum *s)
{
	if (s->nan || (s->pinf && s->ninf))
		return RK_SUM_NAN;
	if (s->pinf)
		return RK_SUM_PINF;
	if (s->ninf)
		return RK_SUM_NINF;
	return RK_SUM_FINITE;
}

/* Drops trailing decimal zeros, so equal values get equal (v, scale). */
static void rk_sum_normalize(rk_i128 *v, int32_t *scale)
{
	if (*v == 0) {
		*scale = 0;
		return;
	}
	while (*scale > 0 && *v % 10 == 0) {
		*v /= 10;
		(*scale)--;
	}
}

bool rk_sum_equal(const rk_sum *a, const rk_sum *b)
{
	int ca = rk_sum_class(a), cb = rk_sum_class(b);
	rk_i128 va = a->v, vb = b->v;
	int32_t sa = a->scale, sb = b->scale;

	if (ca != cb)
		return false;
	if (ca != RK_SUM_FINITE)
		return true;
	rk_sum_normalize(&va, &sa);
	rk_sum_normalize(&vb, &sb);
	return va == vb && sa == sb;
}

char *rk_sum_format(const rk_sum *s, char out[RK_SUM_STRLEN])
{
	char digits[48];
	int nd = 0;
	rk_i128 v = s->v;
	int32_t scale = s->scale;
	rk_u128 mag;
	char *w = out;

	switch (rk_sum_class(s)) {
	case RK_SUM_NAN:
		strcpy(out, "NaN");
		return out;
	case RK_SUM_PINF:
		strcpy(out, "Infinity");
		return out;
	case RK_SUM_NINF:
		strcpy(out, "-Infinity");
		return out;
	default:
		break;
	}
	rk_sum_normalize(&v, &scale);
	mag = v < 0 ? (rk_u128)0 - (rk_u128)v : (rk_u128)v;
	do {
		digits[nd++] = (char)('0' + (int)(mag % 10));
		mag /= 10;
	} while (mag);
	if (v < 0)
		*w++ = '-';
	if (scale >= nd) {
		*w++ = '0';
		*w++ = '.';
		for (int32_t i = nd; i < scale; i++)
			*w++ = '0';
		while (nd)
			*w++ = digits[--nd];
	} else {
		while (nd) {
			if (nd == scale)
				*w++ = '.';
			*w++ = digits[--nd];
		}
	}
	*w = '\0';
	return out;
}

char *rk_sum_format_scale(const rk_sum *s, int scale, char out[RK_SUM_STRLEN])
{
	char *point;
	size_t len, have;

	rk_sum_format(s, out);
	if (scale <= 0 || rk_sum_class(s) != RK_SUM_FINITE)
		return out;
	if (scale > RK_SUM_MAX_SCALE)
		scale = RK_SUM_MAX_SCALE;
	len = strlen(out);
	point = strchr(out, '.');
	have = point ? len - (size_t)(point - out) - 1 : 0;
	if (!point)
		out[len++] = '.';
	while (have < (size_t)scale && len + 1 < RK_SUM_STRLEN) {
		out[len++] = '0';
		have++;
	}
	out[len] = '\0';
	return out;
}

bool rk_hash_set_has(const rk_u128 *set, size_t n, rk_u128 key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set[mid] == key)
			return true;
		if (set[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

int rk_hash_cmp(const void *a, const void *b)
{
	rk_u128 x = *(const rk_u128 *)a, y = *(const rk_u128 *)b;

	return x < y ? -1 : x > y;
}
