/*
 * test_keyspace.c - the first key column's points (core/keyspace.c), on
 * random keys: the map is monotone, and for every point m the keys whose
 * point is >= m are exactly those >= its bound (the condition a database
 * evaluates for a key range).  No server needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/keyspace.h"

static uint64_t rk_rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rk_rng ^= rk_rng << 13;
	rk_rng ^= rk_rng >> 7;
	rk_rng ^= rk_rng << 17;
	return rk_rng;
}

/* A random key text of kind k into buf (NUL-terminated). */
static void random_key(rk_ks_kind k, char *buf, size_t cap)
{
	static const char *const stems[] = { "customer-", "cust", "c", "", "customer-00", "Zürich", "é" };

	if (k == RK_KS_INT) {
		int64_t v = (int64_t)rnd();

		if (rnd() % 2)
			v %= 1000;
		snprintf(buf, cap, "%lld", (long long)v);
	} else if (k == RK_KS_UUID) {
		uint64_t a = rnd(), b = rnd();

		if (rnd() % 3 == 0)
			a &= 0xFFFFFFFF00000000ULL;
		snprintf(buf, cap, "%08llx-%04llx-%04llx-%04llx-%012llx", (unsigned long long)(a >> 32),
		         (unsigned long long)((a >> 16) & 0xFFFF), (unsigned long long)(a & 0xFFFF),
		         (unsigned long long)(b >> 48), (unsigned long long)(b & 0xFFFFFFFFFFFFULL));
	} else {
		size_t n = (size_t)snprintf(buf, cap, "%s", stems[rnd() % 7]);
		size_t extra = rnd() % 12;

		for (size_t i = 0; i < extra && n + 1 < cap; i++)
			buf[n++] = (char)('0' + rnd() % 40);
		buf[n] = '\0';
	}
}

static int key_cmp(rk_ks_kind k, const char *a, const char *b, size_t nb)
{
	if (k == RK_KS_INT) {
		long long x = strtoll(a, NULL, 10), y = strtoll(b, NULL, 10);

		return x < y ? -1 : x > y;
	}
	/* uuids: lowercase canonical text orders as their bytes do */
	return rk_keyspace_cmp_bytes(a, strlen(a), b, nb);
}

static void check_kind(rk_type t, bool prefixed)
{
	rk_keyspace ks;
	const char *why;
	char keys[400][64];
	int64_t pt[400];
	rk_buf v = RK_BUF_INIT;

	assert_int_equal(rk_keyspace_init(&ks, t, &why), 0);
	if (prefixed)
		rk_keyspace_prefix(&ks, "customer-0001", 13, "customer-9", 10);
	for (int i = 0; i < 400; i++) {
		random_key(ks.kind, keys[i], sizeof keys[i]);
		assert_int_equal(rk_keyspace_point_text(&ks, keys[i], strlen(keys[i]), &pt[i], &why), 0);
		assert_true(pt[i] >= RK_KS_MIN && pt[i] <= RK_KS_MAX);
	}
	for (int i = 0; i < 400; i++) {
		for (int j = 0; j < 400; j++)
			if (key_cmp(ks.kind, keys[i], keys[j], strlen(keys[j])) <= 0)
				assert_true(pt[i] <= pt[j]); /* monotone */
	}
	/* bounds of the keys' own points, their neighbours and random points */
	for (int r = 0; r < 1200; r++) {
		int64_t m = r < 400 ? pt[r] : r < 800 ? pt[r - 400] + 1
		                                      : RK_KS_MIN + (int64_t)(rnd() % (uint64_t)RK_KS_MAX) * 2;
		rk_ks_bound b = rk_keyspace_bound(&ks, m, &v);

		for (int i = 0; i < 400; i++) {
			bool in = pt[i] >= m;

			if (b == RK_KSB_ALL)
				assert_true(in);
			else if (b == RK_KSB_NONE)
				assert_false(in);
			else
				assert_int_equal(in, key_cmp(ks.kind, keys[i], v.data, v.len) >= 0);
		}
	}
	rk_buf_free(&v);
}

static void test_int_points(void **state)
{
	(void)state;
	check_kind(RK_T_INT8, false);
}

static void test_uuid_points(void **state)
{
	(void)state;
	check_kind(RK_T_UUID, false);
}

static void test_text_points(void **state)
{
	(void)state;
	check_kind(RK_T_TEXT, false);
	check_kind(RK_T_TEXT, true);
}

/* A boundary snapped from a point is whole characters: the point of
 * "abcdefüx" holds its first 7 bytes, which cut the ü (two bytes): the
 * snapped boundary is "abcdef". */
static void test_snap_keeps_whole_characters(void **state)
{
	rk_keyspace ks;
	const char *why;
	int64_t m;
	rk_buf v = RK_BUF_INIT;

	(void)state;
	assert_int_equal(rk_keyspace_init(&ks, RK_T_TEXT, &why), 0);
	rk_keyspace_prefix(&ks, "abcdefZ\xc3\xbcrich", 14, "abcdefZ\xc3\xbcrich", 14);
	assert_int_equal(ks.nprefix, 14);
	rk_keyspace_prefix(&ks, "abcdefZ\xc3\xbc", 9, "abcdefZ\xc3\xa4", 9);
	assert_int_equal(ks.nprefix, 7); /* the prefix stops before the ü/ä */
	assert_int_equal(rk_keyspace_init(&ks, RK_T_TEXT, &why), 0);
	assert_int_equal(rk_keyspace_point_text(&ks, "abcdef\xc3\xbcx", 9, &m, &why), 0);
	m = rk_keyspace_snap(&ks, m);
	assert_int_equal(rk_keyspace_bound(&ks, m, &v), RK_KSB_VALUE);
	assert_int_equal(v.len, 6);
	assert_memory_equal(v.data, "abcdef", 6);
	rk_buf_free(&v);
}

/* A key range fitted from its bounds (rk_keyspace_fit), the bounds being
 * segment boundaries as reckon check writes them (a snapped point's bound
 * in a keyspace with the sample's prefix): a random key's point lies in
 * [mlo, mhi) exactly when the key lies in [lo, hi), and rk_keyspace_cmp_keys
 * orders keys as that comparison does. */
static void check_fit(rk_type t)
{
	rk_keyspace ks, fit;
	const char *why;
	char keys[300][64];
	rk_buf lo = RK_BUF_INIT, hi = RK_BUF_INIT;

	assert_int_equal(rk_keyspace_init(&ks, t, &why), 0);
	if (ks.kind == RK_KS_TEXT)
		rk_keyspace_prefix(&ks, "customer-0001", 13, "customer-9", 10);
	for (int i = 0; i < 300; i++)
		random_key(ks.kind, keys[i], sizeof keys[i]);
	for (int r = 0; r < 200; r++) {
		int64_t a, b, mlo, mhi;
		int open = (int)(rnd() % 4); /* 0: both bounds, 1: open start, 2: open end, 3: both open */

		assert_int_equal(rk_keyspace_point_text(&ks, keys[r], strlen(keys[r]), &a, &why), 0);
		assert_int_equal(rk_keyspace_point_text(&ks, keys[r + 1], strlen(keys[r + 1]), &b, &why), 0);
		a = rk_keyspace_snap(&ks, a);
		b = rk_keyspace_snap(&ks, b);
		if (a > b) {
			int64_t x = a;

			a = b;
			b = x;
		}
		/* a sample's keys all hold its prefix: no boundary is the one
		 * above them (the prefix with its last byte raised) */
		if (rk_keyspace_bound(&ks, a, &lo) != RK_KSB_VALUE || rk_keyspace_bound(&ks, b, &hi) != RK_KSB_VALUE ||
		    a == b || (ks.kind == RK_KS_TEXT && b >= (INT64_C(1) << 56)))
			continue;
		fit = ks;
		assert_int_equal(rk_keyspace_init(&fit, t, &why), 0);
		assert_int_equal(rk_keyspace_fit(&fit, open & 1 ? NULL : rk_buf_cstr(&lo), open & 2 ? NULL : rk_buf_cstr(&hi),
		                                 &mlo, &mhi, &why),
		                 0);
		for (int i = 0; i < 300; i++) {
			int64_t m;
			int c1 = 0, c2 = 0;
			bool want, got;

			assert_int_equal(rk_keyspace_point_text(&fit, keys[i], strlen(keys[i]), &m, &why), 0);
			assert_int_equal(rk_keyspace_cmp_keys(&fit, keys[i], rk_buf_cstr(&lo), &c1, &why), 0);
			assert_int_equal(rk_keyspace_cmp_keys(&fit, keys[i], rk_buf_cstr(&hi), &c2, &why), 0);
			assert_int_equal(c1 < 0, key_cmp(ks.kind, keys[i], lo.data, lo.len) < 0);
			want = ((open & 1) || c1 >= 0) && ((open & 2) || c2 < 0);
			got = (mlo == INT64_MIN || m >= mlo) && (mhi == INT64_MAX || m < mhi);
			assert_int_equal(got, want);
		}
	}
	rk_buf_free(&lo);
	rk_buf_free(&hi);
}

static void test_fit_is_exact(void **state)
{
	(void)state;
	check_fit(RK_T_INT8);
	check_fit(RK_T_UUID);
	check_fit(RK_T_TEXT);
}

/* Bounds no segment can hold exactly, and empty ranges, are refused. */
static void test_fit_refuses(void **state)
{
	rk_keyspace ks;
	const char *why = NULL;
	int64_t lo, hi;

	(void)state;
	assert_int_equal(rk_keyspace_init(&ks, RK_T_INT8, &why), 0);
	assert_int_equal(rk_keyspace_fit(&ks, NULL, "9000000000000000000", &lo, &hi, &why), -1);
	assert_non_null(strstr(why, "2^61"));
	assert_int_equal(rk_keyspace_fit(&ks, "10", "10", &lo, &hi, &why), -1);
	assert_int_equal(rk_keyspace_fit(&ks, "11", "10", &lo, &hi, &why), -1);
	assert_int_equal(rk_keyspace_fit(&ks, "x", NULL, &lo, &hi, &why), -1);
	assert_int_equal(rk_keyspace_fit(&ks, "-5", "10", &lo, &hi, &why), 0);
	assert_true(lo == -5 && hi == 10);
	assert_int_equal(rk_keyspace_fit(&ks, NULL, NULL, &lo, &hi, &why), 0);
	assert_true(lo == INT64_MIN && hi == INT64_MAX);
	assert_int_equal(rk_keyspace_init(&ks, RK_T_UUID, &why), 0);
	assert_int_equal(rk_keyspace_fit(&ks, "0f000000-0000-0000-0000-000000000000", NULL, &lo, &hi, &why), 0);
	assert_int_equal(rk_keyspace_fit(&ks, "0f000000-0000-0000-0000-000000000001", NULL, &lo, &hi, &why), -1);
	assert_int_equal(rk_keyspace_init(&ks, RK_T_TEXT, &why), 0);
	assert_int_equal(rk_keyspace_fit(&ks, "customer-0100", "customer-0200", &lo, &hi, &why), 0);
	assert_int_equal(ks.nprefix, 10);
	assert_int_equal(rk_keyspace_fit(&ks, "", "b", &lo, &hi, &why), 0);
	assert_int_equal(rk_keyspace_fit(&ks, "apple-pie-1", "banana-split-2", &lo, &hi, &why), -1);
	assert_int_equal(rk_keyspace_fit(&ks, "b", "a", &lo, &hi, &why), -1);
}

static void test_unsupported_types(void **state)
{
	rk_keyspace ks;
	const char *why = NULL;

	(void)state;
	assert_int_equal(rk_keyspace_init(&ks, RK_T_FLOAT8, &why), -1);
	assert_non_null(why);
	assert_int_equal(rk_keyspace_init(&ks, RK_T_NUMERIC, &why), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_points),
		cmocka_unit_test(test_uuid_points),
		cmocka_unit_test(test_text_points),
		cmocka_unit_test(test_snap_keeps_whole_characters),
		cmocka_unit_test(test_fit_is_exact),
		cmocka_unit_test(test_fit_refuses),
		cmocka_unit_test(test_unsupported_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
