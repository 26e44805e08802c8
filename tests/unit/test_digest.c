/*
 * test_digest.c - row hashes against constants computed once by a separate
 * program that called libxxhash directly on hand-written bytes; the 128-bit
 * window hash arithmetic; exact sums.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/digest.h"

static void check_hash(const void *p, size_t n, const char *want)
{
	char hex[33];
	rk_u128 back = 0;

	rk_hash_hex(rk_row_hash(p, n), hex);
	assert_string_equal(hex, want);
	assert_int_equal(rk_hash_parse(hex, &back), 0);
	assert_true(back == rk_row_hash(p, n));
}

/* The encodings are spelled out byte by byte: this test must not depend on canon.c. */
static const char row_example[] =
        "\x01"
        "\x02\x00\x00\x00"
        "42"
        "\x01"
        "\x10\x00\x00\x00"
        "1772449080000000"
        "\x01"
        "\x04\x00\x00\x00"
        "12.5"
        "\x00";
static const char key_1_11[] = "\x01\x01\x00\x00\x00"
                               "1"
                               "\x01\x02\x00\x00\x00"
                               "11";

static void test_row_hash_known(void **state)
{
	static const char key_11_1[] = "\x01\x02\x00\x00\x00"
	                               "11"
	                               "\x01\x01\x00\x00\x00"
	                               "1";

	(void)state;
	check_hash("", 0, "99aa06d3014798d86001c324468d497f");
	check_hash(row_example, sizeof row_example - 1, "5d73ea65bfe6913f5a5763d487edf87c");
	check_hash(key_1_11, sizeof key_1_11 - 1, "6a085493069b8c248cd659ae70d4fffc");
	check_hash(key_11_1, sizeof key_11_1 - 1, "fc5b42105f0e519aafb73c0244966bf3");
	check_hash("\x00", 1, "a6cd5e9392000f6ac44bdff4074eecdb");
	check_hash("\x01\x00\x00\x00\x00", 5, "624d00ca1a5816e84487fda79cc1828d");
}

static void test_hash_hex_parse(void **state)
{
	rk_u128 h = 0;
	char hex[33];

	(void)state;
	rk_hash_hex(0, hex);
	assert_string_equal(hex, "00000000000000000000000000000000");
	rk_hash_hex(((rk_u128)UINT64_C(0x0123456789abcdef) << 64) | UINT64_C(0xfedcba9876543210), hex);
	assert_string_equal(hex, "0123456789abcdeffedcba9876543210"); /* high 64 bits first */
	rk_hash_hex(~(rk_u128)0, hex);
	assert_string_equal(hex, "ffffffffffffffffffffffffffffffff");

	assert_int_equal(rk_hash_parse("0123456789ABCDEFfedcba9876543210", &h), 0);
	assert_true((uint64_t)(h >> 64) == UINT64_C(0x0123456789abcdef));
	assert_true((uint64_t)h == UINT64_C(0xfedcba9876543210));
	assert_int_equal(rk_hash_parse("0123456789abcdeffedcba987654321", &h), -1);
	assert_int_equal(rk_hash_parse("0123456789abcdeffedcba98765432100", &h), -1);
	assert_int_equal(rk_hash_parse("0123456789abcdeffedcba987654321g", &h), -1);
	assert_int_equal(rk_hash_parse("", &h), -1);
	assert_int_equal(rk_hash_parse(NULL, &h), -1);
}

/* A window hash is the sum of row hashes modulo 2^128. */
/* A set of row hashes, sorted by rk_hash_cmp (high 64 bits decide first),
 * answers membership at both ends, in the middle and between members. */
static void test_hash_set(void **state)
{
	(void)state;
	rk_u128 hi = (rk_u128)1 << 64;
	rk_u128 set[] = { hi + 5, 7, hi, 0, ~(rk_u128)0, 3 };
	size_t n = sizeof set / sizeof set[0];

	qsort(set, n, sizeof set[0], rk_hash_cmp);
	assert_true(set[0] == 0 && set[1] == 3 && set[2] == 7 && set[3] == hi && set[5] == ~(rk_u128)0);
	for (size_t i = 0; i < n; i++)
		assert_true(rk_hash_set_has(set, n, set[i]));
	assert_false(rk_hash_set_has(set, n, 4));
	assert_false(rk_hash_set_has(set, n, hi + 1));
	assert_false(rk_hash_set_has(set, n, hi - 1));
	assert_false(rk_hash_set_has(set, 0, 0));
}

static void test_window_hash(void **state)
{
	rk_u128 a = rk_row_hash(row_example, sizeof row_example - 1);
	rk_u128 b = rk_row_hash(key_1_11, sizeof key_1_11 - 1);
	rk_u128 w1 = 0, w2 = 0;
	char hex[33];

	(void)state;
	w1 += a;
	w1 += b;
	w1 += b;
	w2 += b;
	w2 += a;
	w2 += b;
	assert_true(w1 == w2); /* order does not matter */
	rk_hash_hex(w1, hex);
	assert_string_equal(hex, "3184938bcd1da988740417316997f874");
	assert_true(w1 != a + b);                          /* a duplicate adds, it does not cancel */
	assert_true((rk_u128)(a + ((rk_u128)0 - a)) == 0); /* wraps modulo 2^128 */
}

/* ------------------------------------------------------------------ */

static void add(rk_sum *s, const char *v)
{
	const char *why = NULL;

	if (rk_sum_add(s, v, strlen(v), &why) != 0)
		fail_msg("adding '%s': %s", v, why);
}

static void check_sum(const rk_sum *s, const char *want)
{
	char buf[RK_SUM_STRLEN];

	assert_string_equal(rk_sum_format(s, buf), want);
}

static void test_sum_basic(void **state)
{
	rk_sum s = { 0 };

	(void)state;
	check_sum(&s, "0");
	add(&s, "1.5");
	add(&s, "2.25");
	check_sum(&s, "3.75");
	assert_int_equal(s.scale, 2);

	rk_sum t = { 0 };
	add(&t, "10");
	add(&t, "-12.5");
	check_sum(&t, "-2.5");
	add(&t, "2.5");
	check_sum(&t, "0");

	rk_sum u = { 0 };
	add(&u, "0.001");
	add(&u, "-0.002");
	check_sum(&u, "-0.001");
	add(&u, "100");
	check_sum(&u, "99.999");
	add(&u, "0.001");
	check_sum(&u, "100"); /* trailing zeros of the held scale are not shown */

	/* tolerated although not canonical: leading and trailing zeros */
	rk_sum v = { 0 };
	add(&v, "007.50");
	check_sum(&v, "7.5");
	assert_int_equal(v.scale, 1);
}

/* rk_sum_add_decimal(m, scale) is rk_sum_add of the same value's text:
 * the same sums, scales and overflows, step by step. */
static void test_sum_add_decimal(void **state)
{
	static const struct {
		const char *text;
		long long m;
		int scale;
	} v[] = {
		{ "0", 0, 0 },
		{ "0.05", 5, 2 },
		{ "1200", 1200, 0 },
		{ "-1.5", -15, 1 },
		{ "0.0001", 1, 4 },
		{ "-9223372036854775808", INT64_MIN, 0 },
		{ "99999999999999999.9", 999999999999999999LL, 1 },
		{ "7", 7, 0 },
		{ "-0.000000000000000001", -1, 18 },
	};
	rk_sum a = { 0 }, b = { 0 };
	char ta[RK_SUM_STRLEN], tb[RK_SUM_STRLEN];
	const char *why;

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		add(&a, v[i].text);
		assert_int_equal(rk_sum_add_decimal(&b, v[i].m, v[i].scale, &why), 0);
		assert_string_equal(rk_sum_format(&b, tb), rk_sum_format(&a, ta));
		assert_int_equal(b.scale, a.scale);
	}
	/* the same overflow */
	rk_sum c = { 0 };
	assert_int_equal(rk_sum_add_decimal(&c, (rk_i128)1 << 126, 0, &why), 0);
	assert_int_equal(rk_sum_add_decimal(&c, (rk_i128)1 << 126, 0, &why), -1);
	assert_string_equal(why, "sum overflows 128 bits");
	assert_int_equal(rk_sum_add_decimal(&c, 1, 39, &why), -1);
	assert_string_equal(why, "value has more than 38 fractional digits");
}

static void test_sum_equal_scales(void **state)
{
	rk_sum a = { 0 }, b = { 0 }, c = { 0 };

	(void)state;
	add(&a, "1.5");
	add(&a, "2.25");
	b.v = 3750;
	b.scale = 3;
	assert_true(rk_sum_equal(&a, &b));
	assert_true(rk_sum_equal(&b, &a));
	add(&c, "3.76");
	assert_false(rk_sum_equal(&a, &c));
	add(&c, "-0.01");
	assert_true(rk_sum_equal(&a, &c));

	rk_sum z1 = { 0 }, z2 = { 0 };
	z2.scale = 7;
	assert_true(rk_sum_equal(&z1, &z2));
	add(&z1, "1");
	add(&z2, "1.0000001");
	assert_false(rk_sum_equal(&z1, &z2));
}

static void test_sum_overflow(void **state)
{
	rk_sum s = { 0 };
	const char *why = NULL;
	const char *max = "170141183460469231731687303715884105727";  /* 2^127 - 1 */
	const char *min = "-170141183460469231731687303715884105728"; /* -2^127 */
	char buf[RK_SUM_STRLEN];

	(void)state;
	add(&s, max);
	check_sum(&s, max);
	assert_int_equal(rk_sum_add(&s, "1", 1, &why), -1);
	assert_string_equal(why, "sum overflows 128 bits");
	check_sum(&s, max); /* unchanged by the failed add */
	add(&s, "-1");
	add(&s, "1");
	check_sum(&s, max);

	rk_sum m = { 0 };
	add(&m, min);
	check_sum(&m, min);
	assert_int_equal(rk_sum_add(&m, "-1", 2, &why), -1);
	assert_string_equal(why, "sum overflows 128 bits");

	/* one value too large for 128 bits */
	rk_sum big = { 0 };
	assert_int_equal(rk_sum_add(&big, "170141183460469231731687303715884105728", 39, &why), -1);
	assert_string_equal(why, "sum overflows 128 bits");
	check_sum(&big, "0");

	/* scale alignment can overflow too: 10^37 held, then a value with 2 decimals */
	rk_sum al = { 0 };
	add(&al, "10000000000000000000000000000000000000");
	add(&al, "0.1");
	check_sum(&al, "10000000000000000000000000000000000000.1");
	assert_int_equal(rk_sum_add(&al, "0.01", 4, &why), -1);
	assert_string_equal(why, "sum overflows 128 bits");
	assert_int_equal(al.scale, 1);
	check_sum(&al, "10000000000000000000000000000000000000.1");

	/* more fractional digits than 128 bits can carry */
	rk_sum fr = { 0 };
	add(&fr, "0.00000000000000000000000000000000000001"); /* 38 decimals */
	check_sum(&fr, "0.00000000000000000000000000000000000001");
	assert_int_equal(rk_sum_add(&fr, "0.000000000000000000000000000000000000001", 41, &why), -1);
	assert_string_equal(why, "value has more than 38 fractional digits");

	/* merge overflow leaves the target as it was */
	rk_sum a = { 0 }, b = { 0 };
	add(&a, max);
	add(&b, "1");
	assert_int_equal(rk_sum_merge(&a, &b, &why), -1);
	assert_string_equal(why, "sum overflows 128 bits");
	assert_string_equal(rk_sum_format(&a, buf), max);
}

static void test_sum_special(void **state)
{
	rk_sum s = { 0 }, t = { 0 }, u = { 0 };

	(void)state;
	add(&s, "1.5");
	add(&s, "Infinity");
	check_sum(&s, "Infinity");
	assert_int_equal(s.pinf, 1);
	check_sum(&s, "Infinity");
	add(&t, "-Infinity");
	add(&t, "2");
	check_sum(&t, "-Infinity");
	add(&t, "Infinity");
	check_sum(&t, "NaN"); /* Infinity + -Infinity */
	add(&u, "NaN");
	check_sum(&u, "NaN");
	assert_int_equal(u.nan, 1);

	/* equality is by the value denoted */
	rk_sum p1 = { 0 }, p2 = { 0 };
	add(&p1, "Infinity");
	add(&p2, "7");
	add(&p2, "Infinity");
	add(&p2, "Infinity");
	assert_true(rk_sum_equal(&p1, &p2));
	assert_false(rk_sum_equal(&p1, &t));
	assert_true(rk_sum_equal(&t, &u));
	rk_sum fin = { 0 };
	add(&fin, "7");
	assert_false(rk_sum_equal(&fin, &p2));
	assert_false(rk_sum_equal(&p2, &fin));
}

static void test_sum_merge(void **state)
{
	rk_sum a = { 0 }, b = { 0 }, c = { 0 };
	const char *why = NULL;

	(void)state;
	add(&a, "1.5");
	add(&a, "NaN");
	add(&b, "2.25");
	add(&b, "-Infinity");
	add(&b, "-0.001");
	assert_int_equal(rk_sum_merge(&a, &b, &why), 0);
	assert_int_equal(a.nan, 1);
	assert_int_equal(a.ninf, 1);
	assert_int_equal(a.scale, 3);
	a.nan = 0;
	a.ninf = 0;
	check_sum(&a, "3.749");
	assert_int_equal(rk_sum_merge(&c, &a, &why), 0);
	assert_true(rk_sum_equal(&c, &a));
	check_sum(&c, "3.749");
}

static void test_sum_bad_input(void **state)
{
	static const char *const bad[] = { "", "-", ".", "1e3", "abc", "1.2.3", "+1", " 1", "nan", "-NaN", "Inf" };
	rk_sum s = { 0 };
	const char *why = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why = NULL;
		if (rk_sum_add(&s, bad[i], strlen(bad[i]), &why) != -1)
			fail_msg("'%s' accepted", bad[i]);
		assert_string_equal(why, "not a canonical numeric value");
	}
	check_sum(&s, "0");
	/* only len counts: the bytes past it are not part of the value */
	assert_int_equal(rk_sum_add(&s, "12.5xyz", 4, &why), 0);
	check_sum(&s, "12.5");
}

static void test_sum_format(void **state)
{
	rk_sum s = { 0 };
	char buf[RK_SUM_STRLEN];

	(void)state;
	s.v = 1200;
	s.scale = 2;
	assert_string_equal(rk_sum_format(&s, buf), "12");
	s.v = -5;
	s.scale = 1;
	assert_string_equal(rk_sum_format(&s, buf), "-0.5");
	s.v = 1;
	s.scale = 38;
	assert_string_equal(rk_sum_format(&s, buf), "0.00000000000000000000000000000000000001");
	s.v = -(rk_i128)(((rk_u128)1 << 127) - 1) - 1;
	s.scale = 38;
	assert_string_equal(rk_sum_format(&s, buf), "-1.70141183460469231731687303715884105728");
	s.scale = 0;
	assert_string_equal(rk_sum_format(&s, buf), "-170141183460469231731687303715884105728");
	s.v = 0;
	s.scale = 5;
	assert_string_equal(rk_sum_format(&s, buf), "0");
}

/* The streaming hasher gives rk_row_hash of the concatenation, whatever the
 * pieces: every length around XXH3's internal thresholds (16, 128, 240
 * bytes, its 1 KiB stripe block and 256-byte buffer), split at every step. */
static void test_row_hasher_pieces(void **state)
{
	static const size_t lens[] = { 0, 1, 3, 16, 17, 128, 129, 240, 241, 255, 256, 257, 1023, 1024, 1025, 5000, 100003 };
	unsigned char *buf = malloc(100003);

	(void)state;
	for (size_t i = 0; i < 100003; i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 13);
	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		size_t n = lens[k];
		rk_u128 want = rk_row_hash(buf, n);
		static const size_t steps[] = { 1, 7, 64, 255, 256, 4096 };

		for (size_t j = 0; j < sizeof steps / sizeof steps[0]; j++) {
			rk_row_hasher h;

			if (steps[j] == 1 && n > 5000)
				continue;
			rk_row_hasher_reset(&h);
			for (size_t at = 0; at < n; at += steps[j])
				rk_row_hasher_update(&h, buf + at, n - at < steps[j] ? n - at : steps[j]);
			assert_true(rk_row_hasher_final(&h) == want);
		}
	}
	free(buf);
}

/* A value's header from rk_row_hasher_value is the encoding's own (digest.md):
 * the known row, fed as header, text, header, text... */
static void test_row_hasher_values(void **state)
{
	rk_row_hasher h;
	char hex[33];

	(void)state;
	rk_row_hasher_reset(&h);
	rk_row_hasher_value(&h, 2);
	rk_row_hasher_update(&h, "42", 2);
	rk_row_hasher_value(&h, 16);
	rk_row_hasher_update(&h, "1772449080000000", 16);
	rk_row_hasher_value(&h, 4);
	rk_row_hasher_update(&h, "12.5", 4);
	rk_row_hasher_update(&h, "\x00", 1);
	rk_hash_hex(rk_row_hasher_final(&h), hex);
	assert_string_equal(hex, "5d73ea65bfe6913f5a5763d487edf87c");
	/* reset starts over: the empty input */
	rk_row_hasher_reset(&h);
	rk_hash_hex(rk_row_hasher_final(&h), hex);
	assert_string_equal(hex, "99aa06d3014798d86001c324468d497f");
	/* a header's length in its four bytes, low byte first */
	rk_row_hasher_reset(&h);
	rk_row_hasher_value(&h, 0x01020304u);
	assert_true(rk_row_hasher_final(&h) == rk_row_hash("\x01\x04\x03\x02\x01", 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_hash_known),
		cmocka_unit_test(test_hash_hex_parse),
		cmocka_unit_test(test_hash_set),
		cmocka_unit_test(test_window_hash),
		cmocka_unit_test(test_row_hasher_pieces),
		cmocka_unit_test(test_row_hasher_values),
		cmocka_unit_test(test_sum_basic),
		cmocka_unit_test(test_sum_add_decimal),
		cmocka_unit_test(test_sum_equal_scales),
		cmocka_unit_test(test_sum_overflow),
		cmocka_unit_test(test_sum_special),
		cmocka_unit_test(test_sum_merge),
		cmocka_unit_test(test_sum_bad_input),
		cmocka_unit_test(test_sum_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
