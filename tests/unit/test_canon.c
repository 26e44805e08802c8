/*
 * test_canon.c - pins the canonical text of every type (digest.md's table,
 * every example in it), the row/key encoding bytes, and the row hash of a
 * worked example.  The hash constants were computed once with a separate
 * throwaway program calling libxxhash directly on hand-written bytes, so a
 * drift in the encoding or the hash shows up here.
 *
 * Every input is handed over in a heap block of exactly its length, without
 * a terminating NUL, so AddressSanitizer catches any read past the value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/canon.h"
#include "core/digest.h"

/* A copy of s without its NUL. */
static char *exact(const char *s, size_t len)
{
	char *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, s, len);
	return p;
}

static void check_canon_len(rk_type t, const char *in, size_t inlen, const char *want, int line)
{
	rk_buf b = RK_BUF_INIT;
	const char *why = NULL;
	char *p = exact(in, inlen);
	int rc = rk_canon_text(t, p, inlen, &b, &why);

	if (rc != 0)
		fail_msg("line %d: %s '%s' refused: %s", line, rk_type_name(t), in, why ? why : "(no why)");
	if (b.len != strlen(want) || (b.len && memcmp(b.data, want, b.len) != 0))
		fail_msg("line %d: %s '%s' -> '%.*s', want '%s'", line, rk_type_name(t), in, (int)b.len,
		         b.data ? b.data : "", want);
	free(p);
	rk_buf_free(&b);
}

static void check_bad_len(rk_type t, const char *in, size_t inlen, const char *want_why, int line)
{
	rk_buf b = RK_BUF_INIT;
	const char *why = NULL;
	char *p = exact(in, inlen);
	int rc = rk_canon_text(t, p, inlen, &b, &why);

	if (rc != -1)
		fail_msg("line %d: %s '%s' accepted as '%.*s'", line, rk_type_name(t), in, (int)b.len,
		         b.data ? b.data : "");
	if (!why)
		fail_msg("line %d: %s '%s' refused without a why", line, rk_type_name(t), in);
	if (want_why && strcmp(why, want_why) != 0)
		fail_msg("line %d: %s '%s': why '%s', want '%s'", line, rk_type_name(t), in, why, want_why);
	free(p);
	rk_buf_free(&b);
}

#define CANON(t, in, want) check_canon_len((t), (in), strlen(in), (want), __LINE__)
#define BAD(t, in, why) check_bad_len((t), (in), strlen(in), (why), __LINE__)

/* ------------------------------------------------------------------ */

static void test_integers(void **state)
{
	(void)state;
	/* digest.md examples */
	CANON(RK_T_INT4, "007", "7");
	CANON(RK_T_INT4, "-0", "0");

	CANON(RK_T_INT4, "0", "0");
	CANON(RK_T_INT4, "42", "42");
	CANON(RK_T_INT4, "+42", "42");
	CANON(RK_T_INT4, "-42", "-42");
	CANON(RK_T_INT4, "-007", "-7");
	CANON(RK_T_INT4, "000", "0");
	CANON(RK_T_INT4, "  42 ", "42");
	CANON(RK_T_INT8, "00000000000000000000000000001", "1");

	CANON(RK_T_INT2, "32767", "32767");
	CANON(RK_T_INT2, "-32768", "-32768");
	BAD(RK_T_INT2, "32768", "out of range for smallint");
	BAD(RK_T_INT2, "-32769", "out of range for smallint");
	CANON(RK_T_INT4, "2147483647", "2147483647");
	CANON(RK_T_INT4, "-2147483648", "-2147483648");
	BAD(RK_T_INT4, "2147483648", "out of range for integer");
	BAD(RK_T_INT4, "-2147483649", "out of range for integer");
	CANON(RK_T_INT8, "9223372036854775807", "9223372036854775807");
	CANON(RK_T_INT8, "-9223372036854775808", "-9223372036854775808");
	BAD(RK_T_INT8, "9223372036854775808", "out of range for bigint");
	BAD(RK_T_INT8, "-9223372036854775809", "out of range for bigint");
	BAD(RK_T_INT8, "18446744073709551616", "out of range for bigint");
	BAD(RK_T_INT8, "99999999999999999999999", "out of range for bigint");

	BAD(RK_T_INT4, "", "not a valid integer");
	BAD(RK_T_INT4, "   ", "not a valid integer");
	BAD(RK_T_INT4, "-", "not a valid integer");
	BAD(RK_T_INT4, "+", "not a valid integer");
	BAD(RK_T_INT4, "1.0", "not a valid integer");
	BAD(RK_T_INT4, "1e3", "not a valid integer");
	BAD(RK_T_INT4, "1 2", "not a valid integer");
	BAD(RK_T_INT4, "0x1F", "not a valid integer");
	BAD(RK_T_INT4, "--1", "not a valid integer");
	BAD(RK_T_INT4, "abc", "not a valid integer");
}

/* The extreme exponents PostgreSQL accepts expand to plain digits. */
static void check_long_exponents(void)
{
	char want[1100];

	memcpy(want, "0.", 2);
	memset(want + 2, '0', 999);
	memcpy(want + 1001, "1", 2);
	CANON(RK_T_NUMERIC, "1e-1000", want);
	CANON(RK_T_NUMERIC, "0.01e-998", want);
	want[0] = '1';
	memset(want + 1, '0', 1000);
	want[1001] = '\0';
	CANON(RK_T_NUMERIC, "1e1000", want);
	CANON(RK_T_NUMERIC, "1000e997", want);
}

static void test_numeric(void **state)
{
	(void)state;
	/* digest.md examples */
	CANON(RK_T_NUMERIC, "12.50", "12.5");
	CANON(RK_T_NUMERIC, "0012.000", "12");
	CANON(RK_T_NUMERIC, "-0.00", "0");
	CANON(RK_T_NUMERIC, ".5", "0.5");
	CANON(RK_T_NUMERIC, "1e3", "1000");

	CANON(RK_T_NUMERIC, "0", "0");
	CANON(RK_T_NUMERIC, "-0", "0");
	CANON(RK_T_NUMERIC, "0.000", "0");
	CANON(RK_T_NUMERIC, "100", "100");
	CANON(RK_T_NUMERIC, "100.0", "100");
	CANON(RK_T_NUMERIC, "1.", "1");
	CANON(RK_T_NUMERIC, "-12.340", "-12.34");
	CANON(RK_T_NUMERIC, "-.5", "-0.5");
	CANON(RK_T_NUMERIC, "+1.5", "1.5");
	CANON(RK_T_NUMERIC, "0.001", "0.001");
	CANON(RK_T_NUMERIC, " 3.14 ", "3.14");
	CANON(RK_T_NUMERIC, "1.5E-2", "0.015");
	CANON(RK_T_NUMERIC, "1.5e-2", "0.015");
	CANON(RK_T_NUMERIC, "12e-1", "1.2");
	CANON(RK_T_NUMERIC, "1.23e1", "12.3");
	CANON(RK_T_NUMERIC, "123e-5", "0.00123");
	/* PostgreSQL's own output form takes a fast path: same bytes */
	CANON(RK_T_NUMERIC, "00", "0");
	CANON(RK_T_NUMERIC, "-00.000", "0");
	CANON(RK_T_NUMERIC, "-0.50", "-0.5");
	CANON(RK_T_NUMERIC, "-007.10", "-7.1");
	CANON(RK_T_NUMERIC, "120.00", "120");
	CANON(RK_T_NUMERIC, "0.10", "0.1");
	CANON(RK_T_NUMERIC, "99999999999999999999999999999999999999.99", "99999999999999999999999999999999999999.99");
	BAD(RK_T_NUMERIC, "-", "not a valid numeric");
	BAD(RK_T_NUMERIC, "1.2.3", "not a valid numeric");
	CANON(RK_T_NUMERIC, "5E+2", "500");
	CANON(RK_T_NUMERIC, "0.0012e3", "1.2");
	CANON(RK_T_NUMERIC, "1200e-2", "12");
	CANON(RK_T_NUMERIC, "0e10", "0");
	CANON(RK_T_NUMERIC, "-0e-3", "0");
	CANON(RK_T_NUMERIC, "123456789012345678901234567890.123456789012345678901234567890",
	      "123456789012345678901234567890.12345678901234567890123456789");

	CANON(RK_T_NUMERIC, "NaN", "NaN");
	CANON(RK_T_NUMERIC, "nan", "NaN");
	CANON(RK_T_NUMERIC, "Infinity", "Infinity");
	CANON(RK_T_NUMERIC, "+Infinity", "Infinity");
	CANON(RK_T_NUMERIC, "inf", "Infinity");
	CANON(RK_T_NUMERIC, "INF", "Infinity");
	CANON(RK_T_NUMERIC, "-Infinity", "-Infinity");
	CANON(RK_T_NUMERIC, "-inf", "-Infinity");

	BAD(RK_T_NUMERIC, "", "not a valid numeric");
	BAD(RK_T_NUMERIC, ".", "not a valid numeric");
	BAD(RK_T_NUMERIC, "-", "not a valid numeric");
	BAD(RK_T_NUMERIC, "-.", "not a valid numeric");
	BAD(RK_T_NUMERIC, "1e", "not a valid numeric");
	BAD(RK_T_NUMERIC, "1e+", "not a valid numeric");
	BAD(RK_T_NUMERIC, "e5", "not a valid numeric");
	BAD(RK_T_NUMERIC, "1.2.3", "not a valid numeric");
	BAD(RK_T_NUMERIC, "1,5", "not a valid numeric");
	BAD(RK_T_NUMERIC, "--1", "not a valid numeric");
	BAD(RK_T_NUMERIC, "-nan", "not a valid numeric");
	BAD(RK_T_NUMERIC, "infinite", "not a valid numeric");
	BAD(RK_T_NUMERIC, "1e1001", "numeric exponent out of range");
	BAD(RK_T_NUMERIC, "1e-99999999999999999999", "numeric exponent out of range");
	check_long_exponents();
}

static void test_double(void **state)
{
	(void)state;
	/* digest.md example */
	CANON(RK_T_FLOAT8, "1.5", "3ff8000000000000");

	CANON(RK_T_FLOAT8, "0", "0000000000000000");
	CANON(RK_T_FLOAT8, "-0", "8000000000000000");
	CANON(RK_T_FLOAT8, "0.1", "3fb999999999999a");
	CANON(RK_T_FLOAT8, "-2", "c000000000000000");
	CANON(RK_T_FLOAT8, "1e3", "408f400000000000");
	CANON(RK_T_FLOAT8, "1000", "408f400000000000");
	CANON(RK_T_FLOAT8, " 1.5 ", "3ff8000000000000");
	CANON(RK_T_FLOAT8, "3.141592653589793", "400921fb54442d18");
	CANON(RK_T_FLOAT8, "1.7976931348623157e+308", "7fefffffffffffff");
	CANON(RK_T_FLOAT8, "4.9e-324", "0000000000000001"); /* subnormal: accepted */
	CANON(RK_T_FLOAT8, "NaN", "7ff8000000000000");
	CANON(RK_T_FLOAT8, "nan", "7ff8000000000000");
	CANON(RK_T_FLOAT8, "-nan", "7ff8000000000000"); /* every NaN alike */
	CANON(RK_T_FLOAT8, "Infinity", "7ff0000000000000");
	CANON(RK_T_FLOAT8, "inf", "7ff0000000000000");
	CANON(RK_T_FLOAT8, "-Infinity", "fff0000000000000");
	CANON(RK_T_FLOAT8, "-inf", "fff0000000000000");
	/* longer than the stack scratch: goes through the buffer's tail */
	CANON(RK_T_FLOAT8, "1.500000000000000000000000000000000000000000000000000000000000000000000000000",
	      "3ff8000000000000");

	BAD(RK_T_FLOAT8, "", "not a valid double precision");
	BAD(RK_T_FLOAT8, "1.5x", "not a valid double precision");
	BAD(RK_T_FLOAT8, "abc", "not a valid double precision");
	BAD(RK_T_FLOAT8, "1,5", "not a valid double precision");
	BAD(RK_T_FLOAT8, "\n1.5", "not a valid double precision");
	BAD(RK_T_FLOAT8, "1e400", "out of range for double precision");
	BAD(RK_T_FLOAT8, "-1e400", "out of range for double precision");
	BAD(RK_T_FLOAT8, "1e-400", "out of range for double precision");
	check_bad_len(RK_T_FLOAT8, "1.5\0", 4, "not a valid double precision", __LINE__);
	BAD(RK_T_FLOAT8, "1.5000000000000000000000000000000000000000000000000000000000000000000000000000x",
	    "not a valid double precision");
}

static void test_real(void **state)
{
	(void)state;
	/* binary32, widened: 0.1f is not 0.1 */
	CANON(RK_T_FLOAT4, "1.5", "3ff8000000000000");
	CANON(RK_T_FLOAT4, "0.1", "3fb99999a0000000");
	CANON(RK_T_FLOAT4, "3.1415927", "400921fb60000000");
	CANON(RK_T_FLOAT4, "-0", "8000000000000000");
	CANON(RK_T_FLOAT4, "NaN", "7ff8000000000000");
	CANON(RK_T_FLOAT4, "Infinity", "7ff0000000000000");
	CANON(RK_T_FLOAT4, "-Infinity", "fff0000000000000");
	CANON(RK_T_FLOAT4, "3.4028235e+38", "47efffffe0000000");
	BAD(RK_T_FLOAT4, "1e39", "out of range for real");
	BAD(RK_T_FLOAT4, "1e-50", "out of range for real");
	BAD(RK_T_FLOAT4, "x", "not a valid real");
}

/*
 * The short-literal fast path must agree bit for bit with the C library on
 * the forms PostgreSQL and CSV exports write; random literals, fixed seed.
 */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_float_vs_libc(void **state)
{
	rk_buf b = RK_BUF_INIT;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		char lit[64], want[17];
		size_t n = 0;
		int nint = (int)(rng() % 12), nfrac = (int)(rng() % 12);
		bool single = (i & 1) != 0;
		const char *why = NULL;
		uint64_t bits;
		double d;

		if (rng() % 3 == 0)
			lit[n++] = '-';
		for (int k = 0; k < nint; k++)
			lit[n++] = (char)('0' + rng() % 10);
		if (nfrac || nint == 0) {
			lit[n++] = '.';
			for (int k = 0; k < (nfrac ? nfrac : 1); k++)
				lit[n++] = (char)('0' + rng() % 10);
		}
		if (rng() % 4 == 0)
			n += (size_t)snprintf(lit + n, sizeof lit - n, "e%+d", (int)(rng() % 60) - 30);
		lit[n] = '\0';

		errno = 0;
		d = single ? (double)strtof(lit, NULL) : strtod(lit, NULL);
		if (errno == ERANGE)
			continue;
		memcpy(&bits, &d, sizeof bits);
		snprintf(want, sizeof want, "%016llx", (unsigned long long)bits);
		rk_buf_reset(&b);
		if (rk_canon_text(single ? RK_T_FLOAT4 : RK_T_FLOAT8, lit, n, &b, &why) != 0)
			fail_msg("'%s' refused: %s", lit, why);
		if (b.len != 16 || memcmp(b.data, want, 16) != 0)
			fail_msg("%s '%s' -> %.*s, libc says %s", single ? "real" : "double", lit, (int)b.len, b.data, want);
	}
	rk_buf_free(&b);
}

/* The process's LC_NUMERIC must not change a float's bytes. */
static void test_float_locale(void **state)
{
	static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "de_DE" };
	char *saved = strdup(setlocale(LC_NUMERIC, NULL));
	bool set = false;

	(void)state;
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !set; i++)
		set = setlocale(LC_NUMERIC, names[i]) != NULL;
	CANON(RK_T_FLOAT8, "1.5", "3ff8000000000000");
	CANON(RK_T_FLOAT4, "0.1", "3fb99999a0000000");
	BAD(RK_T_FLOAT8, "1,5", "not a valid double precision");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00.1234567+00", "1772449080123457");
	setlocale(LC_NUMERIC, saved);
	free(saved);
	if (!set)
		skip(); /* no comma-decimal locale installed: only the C path ran */
}

static void test_bool(void **state)
{
	static const char *const yes[] = { "t", "T", "true", "TRUE", "True", "yes", "YES", "on", "On", "1", " t " };
	static const char *const no[] = { "f", "F", "false", "FALSE", "no", "No", "off", "OFF", "0", "\tf" };

	(void)state;
	CANON(RK_T_BOOL, "TRUE", "t"); /* digest.md example */
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		CANON(RK_T_BOOL, yes[i], "t");
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		CANON(RK_T_BOOL, no[i], "f");
	BAD(RK_T_BOOL, "", "not a valid boolean");
	BAD(RK_T_BOOL, "tr", "not a valid boolean");
	BAD(RK_T_BOOL, "y", "not a valid boolean");
	BAD(RK_T_BOOL, "2", "not a valid boolean");
	BAD(RK_T_BOOL, "truee", "not a valid boolean");
}

static void test_text_char_other(void **state)
{
	(void)state;
	CANON(RK_T_TEXT, "", "");
	CANON(RK_T_TEXT, "ab  ", "ab  ");
	CANON(RK_T_TEXT, "  x ", "  x ");
	CANON(RK_T_TEXT, "caf\xc3\xa9", "caf\xc3\xa9");
	CANON(RK_T_BPCHAR, "ab  ", "ab"); /* digest.md example */
	CANON(RK_T_BPCHAR, "    ", "");
	CANON(RK_T_BPCHAR, "  ab", "  ab");
	CANON(RK_T_BPCHAR, "ab\t", "ab\t"); /* only 0x20 is padding */
	CANON(RK_T_OTHER, "{1,2,3}", "{1,2,3}");
	CANON(RK_T_OTHER, " 10:58:00 ", " 10:58:00 ");
	BAD(RK_T_UNKNOWN, "x", "column type is not known");
}

static void test_text_embedded_nul(void **state)
{
	rk_buf b = RK_BUF_INIT;
	const char *why = NULL;
	char *p = exact("a\0b", 3);

	(void)state;
	assert_int_equal(rk_canon_text(RK_T_TEXT, p, 3, &b, &why), 0);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "a\0b", 3);
	free(p);
	rk_buf_free(&b);
}

static void test_date(void **state)
{
	(void)state;
	CANON(RK_T_DATE, "2026-03-02", "2026-03-02");
	CANON(RK_T_DATE, " 2026-03-02 ", "2026-03-02");
	CANON(RK_T_DATE, "2026-3-2", "2026-03-02");
	CANON(RK_T_DATE, "1970-01-01", "1970-01-01");
	CANON(RK_T_DATE, "0001-01-01", "0001-01-01");
	CANON(RK_T_DATE, "9999-12-31", "9999-12-31");
	CANON(RK_T_DATE, "10000-01-01", "10000-01-01");
	CANON(RK_T_DATE, "2024-02-29", "2024-02-29");
	CANON(RK_T_DATE, "2000-02-29", "2000-02-29");
	BAD(RK_T_DATE, "2023-02-29", "day out of range for month");
	BAD(RK_T_DATE, "1900-02-29", "day out of range for month");
	BAD(RK_T_DATE, "2026-04-31", "day out of range for month");
	BAD(RK_T_DATE, "2026-01-00", "day out of range for month");
	BAD(RK_T_DATE, "2026-13-01", "month out of range");
	BAD(RK_T_DATE, "2026-00-10", "month out of range");
	BAD(RK_T_DATE, "0000-01-01", "year 0 does not exist");
	/* BC as PostgreSQL prints it; 1 BC is astronomical year 0, a leap year */
	CANON(RK_T_DATE, "0044-03-15 BC", "0044-03-15 BC");
	CANON(RK_T_DATE, "0044-03-15 bc", "0044-03-15 BC");
	CANON(RK_T_DATE, "0001-02-29 BC", "0001-02-29 BC");
	CANON(RK_T_DATE, "0005-02-29 BC", "0005-02-29 BC");
	BAD(RK_T_DATE, "0004-02-29 BC", "day out of range for month");
	CANON(RK_T_DATE, "4714-11-24 BC", "4714-11-24 BC");
	BAD(RK_T_DATE, "4714-11-23 BC", "date out of range");
	CANON(RK_T_DATE, "5874897-12-31", "5874897-12-31");
	BAD(RK_T_DATE, "5874898-01-01", "date out of range");
	CANON(RK_T_DATE, "infinity", "infinity");
	CANON(RK_T_DATE, "-infinity", "-infinity");
	CANON(RK_T_DATE, "Infinity", "infinity");
	BAD(RK_T_DATE, "", "empty value");
	BAD(RK_T_DATE, "2026-03-02T00:00", NULL);
	BAD(RK_T_DATE, "2026-03-02 00:00:00", NULL);
	BAD(RK_T_DATE, "20260302", NULL);
	BAD(RK_T_DATE, "26-03-02", NULL);
	BAD(RK_T_DATE, "2026/03/02", NULL);
	BAD(RK_T_DATE, "2026-03-02BC", NULL);
	BAD(RK_T_DATE, "today", NULL);
}

static void test_timestamptz(void **state)
{
	(void)state;
	/* digest.md example, and the same instant written other ways */
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00+00", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02T10:58:00Z", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02t10:58:00z", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02T10:58Z", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00 UTC", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, " 2026-03-02 10:58:00+00 ", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 16:28:00+05:30", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 16:28:00+0530", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02T11:58:00.000+0100", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 05:58:00-05", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-01 22:58:00-12:00", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 11:18:15+00:20:15", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00 +01:00", "1772445480000000");
	/* sub-second */
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00.5+00", "1772449080500000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00.123456+00", "1772449080123456");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00.000001+00", "1772449080000001");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00.1234567+00", "1772449080123457");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00.12345649+00", "1772449080123456");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:59.9999996+00", "1772449140000000");
	/* epoch neighbourhood */
	CANON(RK_T_TIMESTAMPTZ, "1970-01-01 00:00:00+00", "0");
	CANON(RK_T_TIMESTAMPTZ, "1969-12-31 23:59:59.999999+00", "-1");
	CANON(RK_T_TIMESTAMPTZ, "1900-01-01 00:00:00+00", "-2208988800000000");
	/* a bare date is midnight; 24:00:00 is the next midnight */
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02", "1772409600000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 24:00:00", "1772496000000000");
	CANON(RK_T_TIMESTAMPTZ, "infinity", "infinity");
	CANON(RK_T_TIMESTAMPTZ, "-infinity", "-infinity");
	CANON(RK_T_TIMESTAMPTZ, "0001-01-01 00:00:00+00", "-62135596800000000");
	CANON(RK_T_TIMESTAMPTZ, "0001-12-31 23:59:59.999999+00 BC", "-62135596800000001");
	CANON(RK_T_TIMESTAMPTZ, "0044-03-15 12:00:00+00 BC", "-63517780800000000");
	CANON(RK_T_TIMESTAMPTZ, "0044-03-15 12:00:00 BC", "-63517780800000000");
	CANON(RK_T_TIMESTAMPTZ, "4714-11-24 00:00:00+00 BC", "-210866803200000000");
	BAD(RK_T_TIMESTAMPTZ, "4714-11-23 23:59:59+00 BC", "timestamp out of range");
	BAD(RK_T_TIMESTAMPTZ, "4714-11-24 00:00:00+01 BC", "timestamp out of range");
	CANON(RK_T_TIMESTAMPTZ, "294246-12-31 23:59:59+00", "9223371244799000000");
	CANON(RK_T_TIMESTAMPTZ, "4713-01-01 00:00:00+00 BC", "-210863520000000000");
	/* an int64 since 1970 ends here; PostgreSQL's range goes on for 30
	 * years, and so does the decimal (digest.md) */
	CANON(RK_T_TIMESTAMPTZ, "294247-01-10 04:00:54.775806+00", "9223372036854775806");
	CANON(RK_T_TIMESTAMPTZ, "294247-01-10 04:00:54.775807+00", "9223372036854775807");
	CANON(RK_T_TIMESTAMPTZ, "294247-01-10 04:00:54.775808+00", "9223372036854775808");
	CANON(RK_T_TIMESTAMPTZ, "294276-12-31 23:59:59+00", "9224318015999000000");
	CANON(RK_T_TIMESTAMPTZ, "294276-12-31 23:59:59.999999+00", "9224318015999999999");
	CANON(RK_T_TIMESTAMPTZ, "294277-01-01 00:59:59.999999+01", "9224318015999999999");
	CANON(RK_T_TIMESTAMP, "294276-12-31 23:59:59.999999", "9224318015999999999");
	CANON(RK_T_TIMESTAMP, "294276-12-31 23:59:59.999999-05", "9224318015999999999");
	BAD(RK_T_TIMESTAMPTZ, "294277-01-01 00:00:00+00", "timestamp out of range");
	BAD(RK_T_TIMESTAMPTZ, "294276-12-31 23:59:59.999999-00:01", "timestamp out of range");
	BAD(RK_T_TIMESTAMP, "294277-01-01 00:00:00", "timestamp out of range");

	BAD(RK_T_TIMESTAMPTZ, "", "empty value");
	BAD(RK_T_TIMESTAMPTZ, "now", NULL);
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:60", "second out of range (leap seconds are not accepted)");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:60:00", "minute out of range");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 25:00:00", "hour out of range");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 24:00:01", "hour out of range");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 24:00:00.5", "hour out of range");
	BAD(RK_T_TIMESTAMPTZ, "2026-02-29 10:00:00", "day out of range for month");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00+16", "time zone offset out of range");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00+05:60", "time zone offset out of range");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00+", "not a valid time zone offset");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00+05:3", "not a valid time zone offset");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00 CET", "not a valid time zone offset");
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00.", NULL);
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:0", NULL);
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10", NULL);
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02x", NULL);
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02T", NULL);
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00+00 AD", NULL);
	BAD(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00.12345678901234567890123456789012345678901+00",
	    "too many fractional second digits");
}

static void test_timestamp_without_zone(void **state)
{
	(void)state;
	CANON(RK_T_TIMESTAMP, "2026-03-02 10:58:00", "1772449080000000");
	CANON(RK_T_TIMESTAMP, "2026-03-02T10:58:00.5", "1772449080500000");
	/* an offset is ignored, as PostgreSQL's timestamp input ignores it */
	CANON(RK_T_TIMESTAMP, "2026-03-02 10:58:00+05", "1772449080000000");
	CANON(RK_T_TIMESTAMP, "2026-03-02T10:58:00Z", "1772449080000000");
	CANON(RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00+05", "1772431080000000");
	CANON(RK_T_TIMESTAMP, "infinity", "infinity");
	BAD(RK_T_TIMESTAMP, "10:58:00", NULL);
}

static void test_uuid(void **state)
{
	static const char *const forms[] = {
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"a0eebc999c0b4ef8bb6d6bb9bd380a11",
		"a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
		"{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
		" a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ",
	};

	(void)state;
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
		CANON(RK_T_UUID, forms[i], "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
	BAD(RK_T_UUID, "", "not a valid uuid");
	BAD(RK_T_UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "not a valid uuid");
	BAD(RK_T_UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111", "not a valid uuid");
	BAD(RK_T_UUID, "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "not a valid uuid");
	BAD(RK_T_UUID, "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "not a valid uuid");
	BAD(RK_T_UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "not a valid uuid");
	BAD(RK_T_UUID, "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11", "not a valid uuid");
	BAD(RK_T_UUID, "-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "not a valid uuid");
	BAD(RK_T_UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-", "not a valid uuid");
	BAD(RK_T_UUID, "a0eebc9-99c0b-4ef8-bb6d-6bb9bd380a11", "not a valid uuid");
}

/* ------------------------------------------------------------------ */
/* Encoding of rows and keys. */

static void enc(rk_buf *b, rk_type t, const char *v)
{
	const char *why = NULL;

	if (!v) {
		rk_canon_enc_null(b);
		return;
	}
	char *p = exact(v, strlen(v));
	if (rk_canon_enc_value(t, p, strlen(v), b, &why) != 0)
		fail_msg("enc %s '%s': %s", rk_type_name(t), v, why);
	free(p);
}

static void test_enc_null_vs_empty(void **state)
{
	rk_buf a = RK_BUF_INIT, b = RK_BUF_INIT;

	(void)state;
	enc(&a, RK_T_TEXT, NULL);
	enc(&b, RK_T_TEXT, "");
	assert_int_equal(a.len, 1);
	assert_memory_equal(a.data, "\x00", 1);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.data, "\x01\x00\x00\x00\x00", 5);
	assert_true(rk_row_hash(a.data, a.len) != rk_row_hash(b.data, b.len));
	rk_buf_free(&a);
	rk_buf_free(&b);
}

static void test_enc_boundaries(void **state)
{
	rk_buf a = RK_BUF_INIT, b = RK_BUF_INIT;
	static const unsigned char want_a[] = { 1, 1, 0, 0, 0, '1', 1, 2, 0, 0, 0, '1', '1' };
	static const unsigned char want_b[] = { 1, 2, 0, 0, 0, '1', '1', 1, 1, 0, 0, 0, '1' };
	char hex[33];

	(void)state;
	enc(&a, RK_T_TEXT, "1");
	enc(&a, RK_T_TEXT, "11");
	enc(&b, RK_T_TEXT, "11");
	enc(&b, RK_T_TEXT, "1");
	assert_int_equal(a.len, sizeof want_a);
	assert_memory_equal(a.data, want_a, sizeof want_a);
	assert_int_equal(b.len, sizeof want_b);
	assert_memory_equal(b.data, want_b, sizeof want_b);
	rk_hash_hex(rk_row_hash(a.data, a.len), hex);
	assert_string_equal(hex, "6a085493069b8c248cd659ae70d4fffc");
	rk_hash_hex(rk_row_hash(b.data, b.len), hex);
	assert_string_equal(hex, "fc5b42105f0e519aafb73c0244966bf3");
	rk_buf_free(&a);
	rk_buf_free(&b);
}

static void test_enc_length_le32(void **state)
{
	rk_buf b = RK_BUF_INIT;
	char v[301];

	(void)state;
	memset(v, 'x', 300);
	v[300] = '\0';
	enc(&b, RK_T_TEXT, v);
	assert_int_equal(b.len, 305);
	assert_memory_equal(b.data, "\x01\x2c\x01\x00\x00", 5);
	/* the length counts the canonical text, not the input */
	rk_buf_reset(&b);
	enc(&b, RK_T_NUMERIC, "0012.500");
	assert_int_equal(b.len, 9);
	assert_memory_equal(b.data, "\x01\x04\x00\x00\x00"
	                            "12.5",
	                    9);
	rk_buf_free(&b);
}

/* A refused value leaves the buffer as it was (the row so far survives). */
static void test_enc_error_restores(void **state)
{
	rk_buf b = RK_BUF_INIT;
	const char *why = NULL;
	const char *bad = "1.5000000000000000000000000000000000000000000000000000000000000000000000000000x";

	(void)state;
	enc(&b, RK_T_INT4, "7");
	assert_int_equal(rk_canon_enc_value(RK_T_INT4, "x", 1, &b, &why), -1);
	assert_string_equal(why, "not a valid integer");
	assert_int_equal(rk_canon_enc_value(RK_T_FLOAT8, bad, strlen(bad), &b, &why), -1);
	assert_int_equal(b.len, 6);
	assert_memory_equal(b.data, "\x01\x01\x00\x00\x00"
	                            "7",
	                    6);
	rk_buf_free(&b);
}

/*
 * The worked example of docs/digest.md: (id integer, created_at timestamptz,
 * amount numeric, note text) = (' 042', '2026-03-02T11:58:00+01:00', '12.50',
 * NULL), messy CSV-style input on purpose.
 */
static void test_enc_worked_example(void **state)
{
	static const char want[] =
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
	rk_buf b = RK_BUF_INIT, c = RK_BUF_INIT;
	char hex[33];

	(void)state;
	enc(&b, RK_T_INT4, " 042");
	enc(&b, RK_T_TIMESTAMPTZ, "2026-03-02T11:58:00+01:00");
	enc(&b, RK_T_NUMERIC, "12.50");
	enc(&b, RK_T_TEXT, NULL);
	assert_int_equal(b.len, sizeof want - 1);
	assert_int_equal(b.len, 38);
	assert_memory_equal(b.data, want, sizeof want - 1);
	rk_hash_hex(rk_row_hash(b.data, b.len), hex);
	assert_string_equal(hex, "5d73ea65bfe6913f5a5763d487edf87c");

	/* the same row as PostgreSQL prints it encodes to the same bytes */
	enc(&c, RK_T_INT4, "42");
	enc(&c, RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00+00");
	enc(&c, RK_T_NUMERIC, "12.5");
	enc(&c, RK_T_TEXT, NULL);
	assert_int_equal(c.len, b.len);
	assert_memory_equal(c.data, b.data, b.len);

	/* the second row of the document's window, and the window hash */
	rk_u128 window = rk_row_hash(b.data, b.len);
	rk_buf_reset(&c);
	enc(&c, RK_T_INT4, "43");
	enc(&c, RK_T_TIMESTAMPTZ, "2026-03-02 10:59:30.25+00");
	enc(&c, RK_T_NUMERIC, "-0.50");
	enc(&c, RK_T_TEXT, "hi");
	assert_int_equal(c.len, 44);
	rk_hash_hex(rk_row_hash(c.data, c.len), hex);
	assert_string_equal(hex, "d71dbc5fb7be96f73e39f6e61d354c86");
	window += rk_row_hash(c.data, c.len);
	rk_hash_hex(window, hex);
	assert_string_equal(hex, "3491a6c577a5283698915abaa5234502");
	window += rk_row_hash(c.data, c.len); /* a duplicated row adds again */
	rk_hash_hex(window, hex);
	assert_string_equal(hex, "0baf63252f63bf2dd6cb51a0c2589188");
	rk_buf_free(&b);
	rk_buf_free(&c);
}

static void test_instant(void **state)
{
	rk_usec t = 0;
	const char *why = NULL;

	(void)state;
	assert_int_equal(rk_canon_instant(RK_T_DATE, "2026-03-02", 10, &t, &why), 0);
	assert_true(t == INT64_C(1772409600000000));
	assert_int_equal(rk_canon_instant(RK_T_TIMESTAMPTZ, "2026-03-02 16:28:00+05:30", 25, &t, &why), 0);
	assert_true(t == INT64_C(1772449080000000));
	assert_int_equal(rk_canon_instant(RK_T_TIMESTAMP, "2026-03-02 10:58:00+05", 22, &t, &why), 0);
	assert_true(t == INT64_C(1772449080000000));
	assert_int_equal(rk_canon_instant(RK_T_DATE, "infinity", 8, &t, &why), 0);
	assert_true(t == RK_USEC_PINF);
	assert_int_equal(rk_canon_instant(RK_T_DATE, "-infinity", 9, &t, &why), 0);
	assert_true(t == RK_USEC_NINF);
	assert_int_equal(rk_canon_instant(RK_T_TIMESTAMPTZ, "-infinity", 9, &t, &why), 0);
	assert_true(t == RK_USEC_NINF);
	/* past the last instant an int64 holds: after every window, as
	 * 'infinity' is (the exact value is rk_canon_instant_wide's) */
	assert_int_equal(rk_canon_instant(RK_T_DATE, "300000-01-01", 12, &t, &why), 0);
	assert_true(t == RK_USEC_PINF);
	assert_int_equal(rk_canon_instant(RK_T_TIMESTAMPTZ, "294270-01-01 00:00:00+00", 24, &t, &why), 0);
	assert_true(t == RK_USEC_PINF);
	assert_int_equal(rk_canon_instant(RK_T_TIMESTAMP, "294247-01-10 04:00:54.775807", 28, &t, &why), 0);
	assert_true(t == RK_USEC_PINF);
	assert_int_equal(rk_canon_instant(RK_T_TIMESTAMP, "294247-01-10 04:00:54.775806", 28, &t, &why), 0);
	assert_true(t == RK_USEC_LAST);
	assert_int_equal(rk_canon_instant(RK_T_TIMESTAMPTZ, "294277-01-01 00:00:00+00", 24, &t, &why), -1);
	assert_string_equal(why, "timestamp out of range");
	{
		rk_wusec w = 0;

		assert_int_equal(rk_canon_instant_wide(RK_T_TIMESTAMPTZ, "294270-01-01 00:00:00+00", 24, &w, &why), 0);
		assert_true(w == (rk_wusec)UINT64_C(9224097091200000000));
		assert_int_equal(rk_canon_instant_wide(RK_T_DATE, "2026-03-02", 10, &w, &why), -1);
	}
	assert_int_equal(rk_canon_instant(RK_T_INT4, "1", 1, &t, &why), -1);
	assert_string_equal(why, "not a time column type");
	assert_int_equal(rk_canon_instant(RK_T_DATE, "2026-02-30", 10, &t, &why), -1);
	assert_string_equal(why, "day out of range for month");
}

static void check_type(const char *name, bool allow_other, int want_rc, rk_type want, int line)
{
	rk_type t = RK_T_UNKNOWN;
	int rc = rk_type_from_name(name, allow_other, &t);

	if (rc != want_rc || (rc == 0 && t != want))
		fail_msg("line %d: '%s' -> rc %d type %s, want rc %d type %s", line, name, rc, rk_type_name(t),
		         want_rc, rk_type_name(want));
}

#define TYPE(name, want) check_type((name), false, 0, (want), __LINE__)
#define TYPE_OTHER(name)                                   \
	check_type((name), true, 0, RK_T_OTHER, __LINE__); \
	check_type((name), false, -1, RK_T_UNKNOWN, __LINE__)

static void test_type_names(void **state)
{
	(void)state;
	/* format_type() spellings */
	TYPE("smallint", RK_T_INT2);
	TYPE("integer", RK_T_INT4);
	TYPE("bigint", RK_T_INT8);
	TYPE("numeric", RK_T_NUMERIC);
	TYPE("numeric(12,2)", RK_T_NUMERIC);
	TYPE("real", RK_T_FLOAT4);
	TYPE("double precision", RK_T_FLOAT8);
	TYPE("boolean", RK_T_BOOL);
	TYPE("text", RK_T_TEXT);
	TYPE("character varying(10)", RK_T_TEXT);
	TYPE("character varying", RK_T_TEXT);
	TYPE("character(4)", RK_T_BPCHAR);
	TYPE("date", RK_T_DATE);
	TYPE("timestamp without time zone", RK_T_TIMESTAMP);
	TYPE("timestamp(3) without time zone", RK_T_TIMESTAMP);
	TYPE("timestamp with time zone", RK_T_TIMESTAMPTZ);
	TYPE("timestamp(6) with time zone", RK_T_TIMESTAMPTZ);
	TYPE("uuid", RK_T_UUID);
	TYPE("name", RK_T_TEXT);
	TYPE("public.citext", RK_T_TEXT);
	/* --types aliases, any case */
	TYPE("int", RK_T_INT4);
	TYPE("INT4", RK_T_INT4);
	TYPE("int8", RK_T_INT8);
	TYPE("int2", RK_T_INT2);
	TYPE("Decimal", RK_T_NUMERIC);
	TYPE("decimal(10, 3)", RK_T_NUMERIC);
	TYPE("float4", RK_T_FLOAT4);
	TYPE("double", RK_T_FLOAT8);
	TYPE("float8", RK_T_FLOAT8);
	TYPE("float", RK_T_FLOAT8);
	TYPE("float(24)", RK_T_FLOAT4);
	TYPE("float(25)", RK_T_FLOAT8);
	TYPE("bool", RK_T_BOOL);
	TYPE("varchar", RK_T_TEXT);
	TYPE("varchar(255)", RK_T_TEXT);
	TYPE("char", RK_T_BPCHAR);
	TYPE("bpchar", RK_T_BPCHAR);
	TYPE("TIMESTAMPTZ", RK_T_TIMESTAMPTZ);
	TYPE("timestamptz(3)", RK_T_TIMESTAMPTZ);
	TYPE("timestamp", RK_T_TIMESTAMP);
	TYPE("  double   precision ", RK_T_FLOAT8);
	TYPE("pg_catalog.int4", RK_T_INT4);
	/* everything else is PostgreSQL's text output, only when allowed */
	TYPE_OTHER("integer[]");
	TYPE_OTHER("time with time zone");
	TYPE_OTHER("time without time zone");
	TYPE_OTHER("interval");
	TYPE_OTHER("jsonb");
	TYPE_OTHER("\"char\"");
	TYPE_OTHER("numeric(12");
	check_type("", true, -1, RK_T_UNKNOWN, __LINE__);

	assert_string_equal(rk_type_name(RK_T_INT4), "integer");
	assert_string_equal(rk_type_name(RK_T_TIMESTAMPTZ), "timestamptz");
	assert_string_equal(rk_type_name(RK_T_OTHER), "other");
	for (int t = RK_T_INT2; t < RK_T_OTHER; t++) {
		rk_type back = RK_T_UNKNOWN;

		assert_int_equal(rk_type_from_name(rk_type_name((rk_type)t), false, &back), 0);
		assert_int_equal(back, t);
	}
	assert_true(rk_type_summable(RK_T_INT2) && rk_type_summable(RK_T_INT4) && rk_type_summable(RK_T_INT8) &&
	            rk_type_summable(RK_T_NUMERIC));
	assert_false(rk_type_summable(RK_T_FLOAT8) || rk_type_summable(RK_T_FLOAT4) || rk_type_summable(RK_T_TEXT));
	assert_true(rk_type_is_time(RK_T_DATE) && rk_type_is_time(RK_T_TIMESTAMP) &&
	            rk_type_is_time(RK_T_TIMESTAMPTZ));
	assert_false(rk_type_is_time(RK_T_TEXT) || rk_type_is_time(RK_T_INT8) || rk_type_is_time(RK_T_OTHER));
}

/* rk_canon_enc_numeric_plain: numeric_out's form encoded as
 * rk_canon_enc_value encodes it, and its value as rk_sum_add reads the
 * canonical text; any other form left to rk_canon_enc_value. */
static void test_enc_numeric_plain(void **state)
{
	static const char *const plain[] = {
		"0",
		"-0",
		"0.00",
		"-0.000",
		"1",
		"-1",
		"10",
		"100.00",
		"1234.50",
		"-1234.56",
		"0.05",
		"-0.5",
		"007.50",
		"99999999999999999.9",
		"999999999999999999",
		"9999999999999999999",
		"-0.000000000000000001",
		"123456789012345678901234567890.123",
		"1.10",
		"5.000000000000000000001",
		"5.",
	};
	static const char *const other[] = {
		"",
		"-",
		".5",
		"1e3",
		"+1",
		" 1",
		"1 ",
		"NaN",
		"Infinity",
		"-Infinity",
		"1.2.3",
		"--1",
		"0x10",
	};
	const char *why;
	char s1[96];

	(void)state;
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
		rk_buf a = RK_BUF_INIT, b = RK_BUF_INIT;
		rk_canon_dec d;
		rk_sum x = { 0 }, y = { 0 };

		assert_true(rk_canon_enc_numeric_plain(&a, plain[i], strlen(plain[i]), &d));
		assert_int_equal(rk_canon_enc_value(RK_T_NUMERIC, plain[i], strlen(plain[i]), &b, &why), 0);
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.data, b.data, a.len);
		/* the value: what rk_sum_add makes of the canonical text */
		assert_int_equal(rk_sum_add(&x, b.data + 5, b.len - 5, &why), 0);
		if (b.len - 5 - (b.data[5] == '-') - (memchr(b.data + 5, '.', b.len - 5) != NULL) <= 18) {
			assert_true(d.ok);
			assert_int_equal(rk_sum_add_decimal(&y, d.m, d.scale, &why), 0);
			assert_string_equal(rk_sum_format(&y, s1), rk_sum_format(&x, (char[RK_SUM_STRLEN]){ 0 }));
			assert_int_equal(y.scale, x.scale);
		} else {
			assert_false(d.ok);
		}
		rk_buf_free(&a);
		rk_buf_free(&b);
	}
	for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
		rk_buf a = RK_BUF_INIT;
		rk_canon_dec d;

		assert_false(rk_canon_enc_numeric_plain(&a, other[i], strlen(other[i]), &d));
		assert_int_equal(a.len, 0);
		assert_false(d.ok);
		rk_buf_free(&a);
	}
}

/* rk_canon_enc_instant writes what rk_canon_enc_int64 does, whatever the
 * second it kept from the row before. */
static void test_enc_instant_cached(void **state)
{
	static const int64_t t[] = {
		INT64_C(1772449080000000),
		INT64_C(1772449080000001),
		INT64_C(1772449080999999),
		INT64_C(1772449081000000),
		INT64_C(1772449080500000),
		INT64_C(999999),
		0,
		INT64_C(-1),
		INT64_C(-1772449080000000),
		INT64_C(1000000),
		INT64_C(1772449080123456),
		INT64_C(9223372036854775806),
		INT64_C(1772449080654321),
	};
	rk_sec_digits sc = { 0 };
	rk_buf a = RK_BUF_INIT, b = RK_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		rk_buf_reset(&a);
		rk_buf_reset(&b);
		rk_canon_enc_instant(&a, &sc, t[i]);
		rk_canon_enc_int64(&b, t[i]);
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.data, b.data, a.len);
	}
	rk_buf_free(&a);
	rk_buf_free(&b);
}

/* rk_field_int64: what the drilldown reads back from the server. */
static int field_int64(const char *text, int64_t *out)
{
	rk_field f = { .p = text, .len = text ? strlen(text) : 0, .null = text == NULL };

	return rk_field_int64(&f, out);
}

static void test_field_int64(void **state)
{
	int64_t v = 7;

	(void)state;
	assert_int_equal(field_int64("42", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(field_int64("-9223372036854775808", &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(field_int64("9223372036854775807", &v), 0);
	assert_true(v == INT64_MAX);
	/* out of range is an error, not INT64_MAX */
	assert_int_equal(field_int64("9223372036854775808", &v), -1);
	assert_int_equal(field_int64("", &v), -1);
	assert_int_equal(field_int64(NULL, &v), -1);
	assert_int_equal(field_int64("12x", &v), -1);
	assert_int_equal(field_int64("123456789012345678901234567890", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_numeric),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_real),
		cmocka_unit_test(test_float_vs_libc),
		cmocka_unit_test(test_float_locale),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_text_char_other),
		cmocka_unit_test(test_text_embedded_nul),
		cmocka_unit_test(test_date),
		cmocka_unit_test(test_timestamptz),
		cmocka_unit_test(test_timestamp_without_zone),
		cmocka_unit_test(test_uuid),
		cmocka_unit_test(test_enc_null_vs_empty),
		cmocka_unit_test(test_enc_boundaries),
		cmocka_unit_test(test_enc_length_le32),
		cmocka_unit_test(test_enc_error_restores),
		cmocka_unit_test(test_enc_worked_example),
		cmocka_unit_test(test_instant),
		cmocka_unit_test(test_enc_instant_cached),
		cmocka_unit_test(test_enc_numeric_plain),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_field_int64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
