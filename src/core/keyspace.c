/*
 * keyspace.c - the first key column's values as points (keyspace.h).
 *
 * Text keys: a key below every key with the prefix P is point -1, a key
 * above them 2^56, and a key P + rest is the big-endian number of rest's
 * first 7 bytes (zero-padded).  Comparing that number is comparing the
 * first 7 bytes, which agrees with comparing whole texts byte by byte
 * wherever they differ in those bytes; texts that agree in them share a
 * point.  Uuids: their first 8 bytes shifted right by 3, so that the span
 * fits; integers: their value, clamped to the span.
 */
#include "core/keyspace.h"
#include "core/text.h"

#include <string.h>

#include <stdio.h>

#define RK_KS_TEXT_HIGH (INT64_C(1) << 56) /* the region above the prefix */
#define RK_KS_UUID_HALF (INT64_C(1) << 60)

int rk_keyspace_init(rk_keyspace *ks, rk_type t, const char **why)
{
	memset(ks, 0, sizeof *ks);
	ks->type = t;
	if (rk_type_is_int(t))
		ks->kind = RK_KS_INT;
	else if (t == RK_T_UUID)
		ks->kind = RK_KS_UUID;
	else if (t == RK_T_TEXT)
		ks->kind = RK_KS_TEXT;
	else {
		*why = "key segments need a first key column of type smallint, integer, bigint, text, varchar or uuid";
		return -1;
	}
	return 0;
}

int rk_keyspace_cmp_bytes(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);

	if (c)
		return c;
	return na < nb ? -1 : na > nb;
}

/* How many of the first n bytes of p are whole UTF-8 characters. */
static size_t rk_ks_whole_chars(const unsigned char *p, size_t n)
{
	size_t i = n;

	/* back over a trailing character that n cuts */
	while (i > 0 && (p[i - 1] & 0xC0) == 0x80)
		i--;
	if (i > 0 && p[i - 1] >= 0xC0) {
		size_t want = p[i - 1] >= 0xF0 ? 4 : p[i - 1] >= 0xE0 ? 3
		                                                      : 2;

		if (n - (i - 1) < want)
			return i - 1;
	}
	return n;
}

void rk_keyspace_prefix(rk_keyspace *ks, const char *lo, size_t nlo, const char *hi, size_t nhi)
{
	size_t n = 0;

	if (ks->kind != RK_KS_TEXT)
		return;
	while (n < nlo && n < nhi && n < RK_KS_PREFIX_MAX && lo[n] == hi[n])
		n++;
	n = rk_ks_whole_chars((const unsigned char *)lo, n);
	memcpy(ks->prefix, lo, n);
	ks->nprefix = n;
}

static int64_t rk_ks_clamp(int64_t v)
{
	return v < RK_KS_MIN ? RK_KS_MIN : v > RK_KS_MAX ? RK_KS_MAX
	                                                 : v;
}

static int rk_ks_uuid_point(const char *p, size_t len, int64_t *m, const char **why)
{
	uint64_t u = 0;
	size_t digits = 0, total = 0;

	for (size_t i = 0; i < len; i++) {
		int d;

		if (p[i] == '-' || p[i] == '{' || p[i] == '}')
			continue;
		if ((d = rk_hexval(p[i])) < 0) {
			*why = "not a uuid";
			return -1;
		}
		if (digits < 16) {
			u = u << 4 | (uint64_t)d;
			digits++;
		}
		total++;
	}
	if (total != 32) {
		*why = "not a uuid";
		return -1;
	}
	*m = (int64_t)(u >> 3) - RK_KS_UUID_HALF;
	return 0;
}

static int64_t rk_ks_text_point(const rk_keyspace *ks, const char *p, size_t len)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t np = ks->nprefix;
	int c = memcmp(p, ks->prefix, len < np ? len : np);
	uint64_t v = 0;

	if (c < 0 || (c == 0 && len < np))
		return -1;
	if (c > 0)
		return RK_KS_TEXT_HIGH;
	for (size_t i = 0; i < 7; i++)
		v = v << 8 | (np + i < len ? u[np + i] : 0);
	return (int64_t)v;
}

int rk_keyspace_point_text(const rk_keyspace *ks, const char *p, size_t len, int64_t *m, const char **why)
{
	switch (ks->kind) {
	case RK_KS_INT: {
		rk_field f = { .p = p, .len = len };
		int64_t v;

		if (rk_field_int64(&f, &v) < 0) {
			*why = "not an integer";
			return -1;
		}
		*m = rk_ks_clamp(v);
		return 0;
	}
	case RK_KS_UUID:
		return rk_ks_uuid_point(p, len, m, why);
	case RK_KS_TEXT:
		*m = rk_ks_text_point(ks, p, len);
		return 0;
	}
	*why = "unknown keyspace";
	return -1;
}

int rk_keyspace_point(const rk_keyspace *ks, const rk_field *f, int64_t *m, const char **why)
{
	if (f->form == RK_FORM_INT && ks->kind == RK_KS_INT) {
		*m = rk_ks_clamp((int64_t)f->m);
		return 0;
	}
	return rk_keyspace_point_text(ks, f->p, f->len, m, why);
}

/* The bytes of text point m in [0, 2^56): the prefix, then m's 7 bytes
 * without their trailing zeros. */
static void rk_ks_text_bytes(const rk_keyspace *ks, int64_t m, rk_buf *value)
{
	unsigned char b[7];
	size_t n = 7;

	for (int i = 6; i >= 0; i--) {
		b[i] = (unsigned char)(m & 0xFF);
		m >>= 8;
	}
	while (n > 0 && b[n - 1] == 0)
		n--;
	rk_buf_append(value, ks->prefix, ks->nprefix);
	rk_buf_append(value, b, n);
}

rk_ks_bound rk_keyspace_bound(const rk_keyspace *ks, int64_t m, rk_buf *value)
{
	rk_buf_reset(value);
	switch (ks->kind) {
	case RK_KS_INT:
		if (m <= RK_KS_MIN)
			return RK_KSB_ALL;
		if (m > RK_KS_MAX)
			return RK_KSB_NONE;
		rk_buf_printf(value, "%lld", (long long)m);
		return RK_KSB_VALUE;
	case RK_KS_UUID: {
		uint64_t u;
		char hex[17];

		if (m <= -RK_KS_UUID_HALF)
			return RK_KSB_ALL;
		if (m >= RK_KS_UUID_HALF)
			return RK_KSB_NONE;
		u = (uint64_t)(m + RK_KS_UUID_HALF) << 3;
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)u);
		rk_buf_printf(value, "%.8s-%.4s-%.4s-0000-000000000000", hex, hex + 8, hex + 12);
		return RK_KSB_VALUE;
	}
	case RK_KS_TEXT:
		if (m <= -1 || (m <= 0 && ks->nprefix == 0))
			return RK_KSB_ALL;
		if (m > RK_KS_TEXT_HIGH || (m == RK_KS_TEXT_HIGH && ks->nprefix == 0))
			return RK_KSB_NONE;
		if (m == RK_KS_TEXT_HIGH) {
			/* the smallest text above every text with the prefix (a
			 * UTF-8 prefix holds no 0xFF byte to carry over) */
			rk_buf_append(value, ks->prefix, ks->nprefix);
			value->data[value->len - 1]++;
			return RK_KSB_VALUE;
		}
		rk_ks_text_bytes(ks, m, value);
		return RK_KSB_VALUE;
	}
	return RK_KSB_ALL;
}

int64_t rk_keyspace_snap(const rk_keyspace *ks, int64_t m)
{
	rk_buf b = RK_BUF_INIT;
	size_t keep;
	int64_t out;

	if (ks->kind != RK_KS_TEXT || m < 0 || m >= RK_KS_TEXT_HIGH)
		return m;
	rk_ks_text_bytes(ks, m, &b);
	keep = rk_ks_whole_chars((const unsigned char *)b.data, b.len);
	out = rk_ks_text_point(ks, b.data, keep);
	rk_buf_free(&b);
	return out;
}

/* The 16 bytes of a uuid's text, or -1. */
static int rk_ks_uuid_bytes(const char *p, unsigned char out[16])
{
	size_t n = 0;

	for (; *p; p++) {
		int d;

		if (*p == '-' || *p == '{' || *p == '}')
			continue;
		if ((d = rk_hexval(*p)) < 0 || n == 32)
			return -1;
		out[n / 2] = (unsigned char)(n % 2 ? out[n / 2] | d : d << 4);
		n++;
	}
	return n == 32 ? 0 : -1;
}

/* Whether point m's bound is exactly key x (a text of ks's kind). */
static bool rk_ks_exact(const rk_keyspace *ks, int64_t m, const char *x)
{
	rk_buf v = RK_BUF_INIT;
	bool same = false;

	if (rk_keyspace_bound(ks, m, &v) == RK_KSB_VALUE) {
		unsigned char a[16], b[16];
		rk_field fx = { .p = x, .len = strlen(x) }, fv = { .p = rk_buf_cstr(&v), .len = v.len };
		int64_t ix, iv;

		switch (ks->kind) {
		case RK_KS_INT:
			same = rk_field_int64(&fx, &ix) == 0 && rk_field_int64(&fv, &iv) == 0 && ix == iv;
			break;
		case RK_KS_UUID:
			same = rk_ks_uuid_bytes(x, a) == 0 && rk_ks_uuid_bytes(v.data, b) == 0 && !memcmp(a, b, 16);
			break;
		case RK_KS_TEXT:
			same = v.len == fx.len && !memcmp(v.data, x, v.len);
			break;
		}
	} else if (ks->kind == RK_KS_TEXT && !*x) {
		/* "" with no prefix: every text is >= it, as RK_KSB_ALL says */
		same = ks->nprefix == 0 && m == 0;
	}
	rk_buf_free(&v);
	return same;
}

int rk_keyspace_fit(rk_keyspace *ks, const char *lo, const char *hi, int64_t *mlo, int64_t *mhi, const char **why)
{
	const char *x[2] = { lo, hi };
	int64_t *m[2] = { mlo, mhi };

	if (ks->kind == RK_KS_TEXT) {
		size_t n = 0;

		if (lo && hi) {
			while (lo[n] && lo[n] == hi[n] && n < RK_KS_PREFIX_MAX)
				n++;
		} else if (lo || hi) {
			/* one bound: all of it but the 7 bytes a point holds */
			size_t len = strlen(lo ? lo : hi);

			n = len > 7 ? len - 7 : 0;
			if (n > RK_KS_PREFIX_MAX)
				n = RK_KS_PREFIX_MAX;
		}
		memcpy(ks->prefix, lo ? lo : hi ? hi
		                                : "",
		       n);
		ks->nprefix = n;
	}
	for (int i = 0; i < 2; i++) {
		if (!x[i]) {
			*m[i] = i ? INT64_MAX : INT64_MIN;
			continue;
		}
		if (rk_keyspace_point_text(ks, x[i], strlen(x[i]), m[i], why) < 0)
			return -1;
		if (!rk_ks_exact(ks, *m[i], x[i])) {
			*why = ks->kind == RK_KS_INT    ? "reckon's key segments hold integers within +-2^61 only"
			       : ks->kind == RK_KS_UUID ? "a uuid bound of a key segment has only its first 61 bits set, as "
			                                  "reckon check writes it"
			                                : "a text range's bounds must agree but for their last 7 bytes, as "
			                                  "the segments reckon check writes do";
			return -1;
		}
	}
	if (*mlo >= *mhi) {
		*why = "the segment is empty: its start is not below its end";
		return -1;
	}
	return 0;
}

int rk_keyspace_cmp_keys(const rk_keyspace *ks, const char *a, const char *b, int *cmp, const char **why)
{
	unsigned char ua[16], ub[16];
	rk_field fa = { .p = a, .len = strlen(a) }, fb = { .p = b, .len = strlen(b) };
	int64_t ia, ib;

	switch (ks->kind) {
	case RK_KS_INT:
		if (rk_field_int64(&fa, &ia) < 0 || rk_field_int64(&fb, &ib) < 0) {
			*why = "not an integer";
			return -1;
		}
		*cmp = ia < ib ? -1 : ia > ib;
		return 0;
	case RK_KS_UUID:
		if (rk_ks_uuid_bytes(a, ua) < 0 || rk_ks_uuid_bytes(b, ub) < 0) {
			*why = "not a uuid";
			return -1;
		}
		*cmp = memcmp(ua, ub, 16);
		return 0;
	case RK_KS_TEXT:
		*cmp = rk_keyspace_cmp_bytes(a, fa.len, b, fb.len);
		return 0;
	}
	*why = "unknown keyspace";
	return -1;
}
