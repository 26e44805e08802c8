/*
 * test_timeutil.c - calendar arithmetic against a naive day counter, the
 * accepted timestamp/date forms and their errors, formatting round trips,
 * command-line instants and durations; time zones (core/tz.c): offsets, the
 * DST-hour rule, calendar days, weeks and months across DST changes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeutil.h"
#include "core/tz.h"

/* A copy of s without its NUL, so ASan sees any read past the value. */
static char *exact(const char *s, size_t len)
{
	char *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, s, len);
	return p;
}

static int parse(const char *s, rk_usec *out, const char **why)
{
	size_t n = strlen(s);
	char *p = exact(s, n);
	int rc = rk_time_parse(p, n, out, why);

	free(p);
	return rc;
}

static void check_ts(const char *s, rk_usec want, int line)
{
	rk_usec t = 0;
	const char *why = NULL;

	if (parse(s, &t, &why) != 0)
		fail_msg("line %d: '%s' refused: %s", line, s, why);
	if (t != want)
		fail_msg("line %d: '%s' -> %lld, want %lld", line, s, (long long)t, (long long)want);
}

static void check_ts_bad(const char *s, const char *want_why, int line)
{
	rk_usec t = 0;
	const char *why = NULL;

	if (parse(s, &t, &why) != -1)
		fail_msg("line %d: '%s' accepted as %lld", line, s, (long long)t);
	if (!why || (want_why && strcmp(why, want_why) != 0))
		fail_msg("line %d: '%s': why '%s', want '%s'", line, s, why ? why : "(none)",
		         want_why ? want_why : "(any)");
}

#define TS(s, want) check_ts((s), (want), __LINE__)
#define TS_BAD(s, why) check_ts_bad((s), (why), __LINE__)

/* ------------------------------------------------------------------ */

static bool naive_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days from 1970-01-01 to Jan 1 of astronomical year y, one year at a time. */
static int64_t naive_jan1(int64_t y)
{
	int64_t d = 0;

	for (int64_t i = 1970; i < y; i++)
		d += naive_leap(i) ? 366 : 365;
	for (int64_t i = y; i < 1970; i++)
		d -= naive_leap(i) ? 366 : 365;
	return d;
}

/* rk_date_parse agrees with a naive day counter, BC years included. */
static void test_days_vs_naive(void **state)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	(void)state;
	for (int64_t y = -4712; y <= 12000; y += (y > -100 && y < 2500) ? 1 : 37) {
		int64_t want = naive_jan1(y);

		for (int m = 1; m <= 12; m++) {
			int last = mdays[m - 1] + (m == 2 && naive_leap(y));
			int days_to_check[] = { 1, last };

			for (int k = 0; k < 2; k++) {
				char s[40];
				int64_t got = 0;
				const char *why = NULL;
				int64_t year = y > 0 ? y : 1 - y;

				snprintf(s, sizeof s, "%04lld-%02d-%02d%s", (long long)year, m, days_to_check[k],
				         y > 0 ? "" : " BC");
				if (rk_date_parse(s, strlen(s), &got, &why) != 0)
					fail_msg("'%s' refused: %s", s, why);
				if (got != want + days_to_check[k] - 1)
					fail_msg("'%s' -> %lld, want %lld", s, (long long)got,
					         (long long)(want + days_to_check[k] - 1));
			}
			want += last;
		}
	}
}

/* Every day over a wide span formats and parses back to itself. */
static void test_date_roundtrip(void **state)
{
	(void)state;
	for (int64_t d = -2440588; d < 2145042906; d += (d > -800000 && d < 800000) ? 1 : 9973) {
		char buf[RK_TIME_STRLEN];
		int64_t back = 0;
		const char *why = NULL;

		rk_date_format(d, buf);
		if (rk_date_parse(buf, strlen(buf), &back, &why) != 0 || back != d)
			fail_msg("day %lld -> '%s' -> %lld (%s)", (long long)d, buf, (long long)back,
			         why ? why : "");
	}
}

static void test_date_parse(void **state)
{
	int64_t d = 0;
	const char *why = NULL;
	char buf[RK_TIME_STRLEN];

	(void)state;
	assert_int_equal(rk_date_parse("1970-01-01", 10, &d, &why), 0);
	assert_true(d == 0);
	assert_int_equal(rk_date_parse("2026-03-02", 10, &d, &why), 0);
	assert_true(d == 20514);
	assert_int_equal(rk_date_parse("1969-12-31", 10, &d, &why), 0);
	assert_true(d == -1);
	assert_int_equal(rk_date_parse("infinity", 8, &d, &why), 0);
	assert_true(d == INT64_MAX);
	assert_int_equal(rk_date_parse("-infinity", 9, &d, &why), 0);
	assert_true(d == INT64_MIN);
	assert_string_equal(rk_date_format(INT64_MAX, buf), "infinity");
	assert_string_equal(rk_date_format(INT64_MIN, buf), "-infinity");
	assert_string_equal(rk_date_format(0, buf), "1970-01-01");
	assert_string_equal(rk_date_format(-719162, buf), "0001-01-01");
	assert_string_equal(rk_date_format(-719163, buf), "0001-12-31 BC");
	assert_string_equal(rk_date_format(-719528, buf), "0001-01-01 BC");
	assert_string_equal(rk_date_format(-2440588, buf), "4714-11-24 BC");
	assert_int_equal(rk_date_parse("2026-02-29", 10, &d, &why), -1);
	assert_string_equal(why, "day out of range for month");
	assert_int_equal(rk_date_parse("2026-03-02x", 11, &d, &why), -1);
	assert_string_equal(why, "not a valid date (expected YYYY-MM-DD)");
	/* the length is the end, whatever follows in memory */
	assert_int_equal(rk_date_parse("2026-03-02 garbage", 10, &d, &why), 0);
	assert_true(d == 20514);
}

static void test_time_parse_forms(void **state)
{
	const rk_usec t0 = INT64_C(1772449080000000); /* 2026-03-02 10:58:00 UTC */

	(void)state;
	TS("2026-03-02 10:58:00+00", t0);
	TS("2026-03-02 10:58:00", t0);
	TS("2026-03-02T10:58:00Z", t0);
	TS("2026-03-02T10:58:00", t0);
	TS("2026-03-02 10:58", t0);
	TS("2026-03-02T10:58:00.000Z", t0);
	TS("2026-3-2 10:58:00", t0);
	TS("2026-03-02   10:58:00", t0);
	TS("2026-03-02 10:58:00 Z", t0);
	TS("2026-03-02 10:58:00 GMT", t0);
	TS("2026-03-02 10:58:00-00", t0);
	TS("2026-03-02 11:58:00+01", t0);
	TS("2026-03-02 11:58:00+1", t0);
	TS("2026-03-02 11:58:00+01:00", t0);
	TS("2026-03-02 11:58:00+0100", t0);
	TS("2026-03-02 16:28:00+05:30", t0);
	TS("2026-03-02 16:28:00+0530", t0);
	TS("2026-03-02 16:43:00+05:45", t0);
	TS("2026-03-02 02:58:00-08", t0);
	TS("2026-03-02 02:28:00-08:30", t0);
	TS("2026-03-03 00:58:00+14", t0);
	TS("2026-03-02 11:17:32+00:19:32", t0);
	TS("2026-03-02 11:17:32+001932", t0);
	TS("2026-03-02 10:38:28-00:19:32", t0);
	TS("\t2026-03-02 10:58:00+00  ", t0);

	/* sub-second */
	TS("2026-03-02 10:58:00.5+00", t0 + 500000);
	TS("2026-03-02 10:58:00.05", t0 + 50000);
	TS("2026-03-02 10:58:00.000001", t0 + 1);
	TS("2026-03-02 10:58:00.999999", t0 + 999999);
	TS("2026-03-02 10:58:00.123456+05:30", t0 - INT64_C(19800000000) + 123456);
	/* beyond microseconds: PostgreSQL's rint(strtod(fraction) * 1e6) */
	TS("2026-03-02 10:58:00.1234564", t0 + 123456);
	TS("2026-03-02 10:58:00.1234566", t0 + 123457);
	TS("2026-03-02 10:58:00.0000015", t0 + 2);
	TS("2026-03-02 10:58:00.00000049999", t0);
	TS("2026-03-02 10:58:00.123456000000000000000", t0 + 123456);
	TS("2026-03-02 23:59:59.9999999", INT64_C(1772496000000000));

	/* midnight forms */
	TS("2026-03-02", INT64_C(1772409600000000));
	TS("2026-03-02 00:00", INT64_C(1772409600000000));
	TS("2026-03-01 24:00:00", INT64_C(1772409600000000));
	TS("2026-03-01 24:00", INT64_C(1772409600000000));

	/* leap days and year boundaries */
	TS("2024-02-29 12:00:00Z", INT64_C(1709208000000000));
	TS("2000-02-29 00:00:00Z", INT64_C(951782400000000));
	TS("1999-12-31 23:59:59Z", INT64_C(946684799000000));
	TS("2000-01-01 00:00:00Z", INT64_C(946684800000000));
	TS("1970-01-01 00:00:00.000001Z", 1);
	TS("1969-12-31 23:59:59.999999Z", -1);
	TS("1600-03-01 00:00:00Z", INT64_C(-11670912000000000));
	TS("0001-01-01 00:00:00Z", INT64_C(-62135596800000000));
	TS("0001-12-31 23:59:59.999999 BC", INT64_C(-62135596800000001));
	TS("0001-12-31 23:59:59.999999+00 BC", INT64_C(-62135596800000001));
	TS("0044-03-15 12:00:00+00 BC", INT64_C(-63517780800000000));
	TS("4714-11-24 00:00:00+00 BC", INT64_C(-210866803200000000));
	TS("10000-01-01 00:00:00+00", INT64_C(253402300800000000));

	TS("infinity", RK_USEC_PINF);
	TS("+infinity", RK_USEC_PINF);
	TS("Infinity", RK_USEC_PINF);
	TS("-infinity", RK_USEC_NINF);
	TS(" -INFINITY ", RK_USEC_NINF);
}

static void test_time_parse_errors(void **state)
{
	(void)state;
	TS_BAD("", "empty value");
	TS_BAD("   ", "empty value");
	TS_BAD("now", "not a valid timestamp");
	TS_BAD("epoch", "not a valid timestamp");
	TS_BAD("infinityx", "not a valid timestamp");
	TS_BAD("26-03-02 10:58:00", "not a valid date (expected YYYY-MM-DD)");
	TS_BAD("2026/03/02 10:58:00", "not a valid date (expected YYYY-MM-DD)");
	TS_BAD("20260302T105800Z", "not a valid date (expected YYYY-MM-DD)");
	TS_BAD("12345678-01-01", "not a valid date (expected YYYY-MM-DD)");
	TS_BAD("2026-13-02 10:58:00", "month out of range");
	TS_BAD("2026-02-29 10:58:00", "day out of range for month");
	TS_BAD("2100-02-29", "day out of range for month");
	TS_BAD("2026-03-32", "day out of range for month");
	TS_BAD("0000-03-02", "year 0 does not exist");
	TS_BAD("2026-03-02 10:58:60", "second out of range (leap seconds are not accepted)");
	TS_BAD("2026-03-02 10:58:99", "second out of range (leap seconds are not accepted)");
	TS_BAD("2026-03-02 10:61", "minute out of range");
	TS_BAD("2026-03-02 25:00", "hour out of range");
	TS_BAD("2026-03-02 24:00:00.000001", "hour out of range");
	TS_BAD("2026-03-02 24:01", "hour out of range");
	TS_BAD("2026-03-02 10:5", "not a valid time of day (expected HH:MM[:SS[.ffffff]])");
	TS_BAD("2026-03-02 10", "not a valid time of day (expected HH:MM[:SS[.ffffff]])");
	TS_BAD("2026-03-02 10:58:00.", "not a valid time of day (expected HH:MM[:SS[.ffffff]])");
	TS_BAD("2026-03-02 100:58", "not a valid time of day (expected HH:MM[:SS[.ffffff]])");
	TS_BAD("2026-03-02T", "not a valid timestamp");
	TS_BAD("2026-03-02 10:58:00+16", "time zone offset out of range");
	TS_BAD("2026-03-02 10:58:00+15:60", "time zone offset out of range");
	TS_BAD("2026-03-02 10:58:00+", "not a valid time zone offset");
	TS_BAD("2026-03-02 10:58:00+123", "not a valid time zone offset");
	TS_BAD("2026-03-02 10:58:00+01:", "not a valid time zone offset");
	TS_BAD("2026-03-02 10:58:00 Europe/Paris", "not a valid time zone offset");
	TS_BAD("2026-03-02 10:58:00ZZ", "not a valid timestamp");
	TS_BAD("2026-03-02 10:58:00+00BC", "not a valid timestamp");
	TS_BAD("2026-03-02 10:58:00 +00 BCE", "not a valid timestamp");
	TS_BAD("4714-11-23 23:59:59.999999+00 BC", "timestamp out of range");
	TS_BAD("294247-01-11 00:00:00+00", "timestamp out of range");
	TS_BAD("5000000-01-01", "timestamp out of range");
	TS_BAD("2026-03-02 10:58:00.12345678901234567890123456789012345678901",
	       "too many fractional second digits");
}

/* The length bounds the value; nothing past it is read or needed. */
static void test_time_parse_unterminated(void **state)
{
	const char *s = "2026-03-02 10:58:00+00:00 trailing";
	rk_usec t = 0;
	const char *why = NULL;

	(void)state;
	assert_int_equal(rk_time_parse(s, 22, &t, &why), 0);
	assert_true(t == INT64_C(1772449080000000));
	assert_int_equal(rk_time_parse(s, 19, &t, &why), 0);
	assert_true(t == INT64_C(1772449080000000));
	assert_int_equal(rk_time_parse(s, 16, &t, &why), 0);
	assert_true(t == INT64_C(1772449080000000));
	assert_int_equal(rk_time_parse(s, 10, &t, &why), 0);
	assert_true(t == INT64_C(1772409600000000));
	assert_int_equal(rk_time_parse(s, 14, &t, &why), -1);
}

static void test_time_parse_local(void **state)
{
	rk_usec t = 0;
	const char *why = NULL;

	(void)state;
	assert_int_equal(rk_time_parse_local("2026-03-02 10:58:00+05:30", 25, &t, &why), 0);
	assert_true(t == INT64_C(1772449080000000));
	assert_int_equal(rk_time_parse("2026-03-02 10:58:00+05:30", 25, &t, &why), 0);
	assert_true(t == INT64_C(1772449080000000) - INT64_C(19800000000));
	assert_int_equal(rk_time_parse_local("2026-03-02 10:58:00+16", 22, &t, &why), -1);
}

/* ------------------------------------------------------------------ */

static void test_time_format(void **state)
{
	char buf[RK_TIME_STRLEN];

	(void)state;
	assert_string_equal(rk_time_format(0, buf), "1970-01-01T00:00:00Z");
	assert_string_equal(rk_time_format(INT64_C(1772449080000000), buf), "2026-03-02T10:58:00Z");
	assert_string_equal(rk_time_format(INT64_C(1772449080500000), buf), "2026-03-02T10:58:00.500000Z");
	assert_string_equal(rk_time_format(INT64_C(1772449080000001), buf), "2026-03-02T10:58:00.000001Z");
	assert_string_equal(rk_time_format(-1, buf), "1969-12-31T23:59:59.999999Z");
	assert_string_equal(rk_time_format(INT64_C(-62135596800000001), buf), "0001-12-31T23:59:59.999999Z BC");
	assert_string_equal(rk_time_format(RK_USEC_PINF, buf), "infinity");
	assert_string_equal(rk_time_format(RK_USEC_NINF, buf), "-infinity");
	assert_string_equal(rk_time_format(INT64_C(9223371244799999999), buf), "294246-12-31T23:59:59.999999Z");
	assert_string_equal(rk_time_format(INT64_C(-210866803200000000), buf), "4714-11-24T00:00:00Z BC");

	assert_string_equal(rk_time_format_sql(INT64_C(1772449080000000), true, buf),
	                    "2026-03-02 10:58:00.000000+00");
	assert_string_equal(rk_time_format_sql(INT64_C(1772449080123456), false, buf),
	                    "2026-03-02 10:58:00.123456");
	assert_string_equal(rk_time_format_sql(-1, true, buf), "1969-12-31 23:59:59.999999+00");
	/* PostgreSQL's text output: no fraction when zero, no trailing zeros */
	assert_string_equal(rk_time_format_pg(INT64_C(1772449080000000), true, buf), "2026-03-02 10:58:00+00");
	assert_string_equal(rk_time_format_pg(INT64_C(1772449081500000), false, buf), "2026-03-02 10:58:01.5");
	assert_string_equal(rk_time_format_pg(INT64_C(1772449080000010), true, buf), "2026-03-02 10:58:00.00001+00");
	assert_string_equal(rk_time_format_pg(INT64_C(-63517780800000000), true, buf), "0044-03-15 12:00:00+00 BC");
	assert_string_equal(rk_time_format_pg(RK_USEC_NINF, false, buf), "-infinity");
	assert_string_equal(rk_time_format_sql(INT64_C(-63517780800000000), true, buf),
	                    "0044-03-15 12:00:00.000000+00 BC");
	assert_string_equal(rk_time_format_sql(RK_USEC_PINF, true, buf), "infinity");
	assert_string_equal(rk_time_format_sql(RK_USEC_NINF, false, buf), "-infinity");
}

/* Formatted instants parse back to themselves (the rerun list relies on it). */
/*
 * The fast path keeps the last minute it parsed: a sequence that returns to
 * a minute, changes only the separator, the day, or only the seconds, and
 * meets values the fast path refuses in between, parses each value as it
 * would alone.
 */
static void test_time_parse_minute_cache(void **state)
{
	const rk_usec m = INT64_C(1772449080000000); /* 2026-03-02 10:58:00 UTC */

	(void)state;
	TS("2026-03-02 10:58:00+00", m);
	TS("2026-03-02 10:58:59.5+00", m + INT64_C(59500000));
	TS("2026-03-02T10:58:01Z", m + INT64_C(1000000));
	TS("2026-03-02 10:58:02-01", m + INT64_C(3602000000));
	TS_BAD("2026-03-02 10:58:60+00", NULL);
	TS("2026-03-02 10:58:03+00", m + INT64_C(3000000));
	TS("2026-03-03 10:58:03+00", m + INT64_C(86403000000));
	TS("2026-03-02 10:57:03+00", m - INT64_C(57000000));
	TS_BAD("2026-02-30 10:57:03+00", NULL);
	TS("2026-03-02 10:57:04+00", m - INT64_C(56000000));
	TS("2026-03-02 10:57:04.1234567+00", m - INT64_C(55876543)); /* rounding: the general path */
	TS("2026-03-02 10:57:05 +00", m - INT64_C(55000000));        /* blank before the zone: general */
	TS("2026-03-02 10:57:06+00", m - INT64_C(54000000));
}

static void test_time_roundtrip(void **state)
{
	const rk_usec step = INT64_C(98765432109876);

	for (rk_usec t = INT64_C(-210866803200000000); t < INT64_C(9223371244799000000) - step; t += step) {
		char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];
		rk_usec back = 0;
		const char *why = NULL;

		rk_time_format(t, a);
		if (rk_time_parse(a, strlen(a), &back, &why) != 0 || back != t)
			fail_msg("%lld -> '%s' -> %lld (%s)", (long long)t, a, (long long)back, why ? why : "");
		rk_time_format_sql(t, true, b);
		if (rk_time_parse(b, strlen(b), &back, &why) != 0 || back != t)
			fail_msg("%lld -> '%s' -> %lld (%s)", (long long)t, b, (long long)back, why ? why : "");
	}
	(void)state;
}

/* ------------------------------------------------------------------ */

static void test_time_parse_arg(void **state)
{
	rk_usec t = 0;
	rk_error err;

	(void)state;
	rk_error_clear(&err);
	assert_int_equal(rk_time_parse_arg("--from", "2026-03-02T10:00:00Z", &t, &err), 0);
	assert_true(t == INT64_C(1772445600000000));
	assert_int_equal(rk_time_parse_arg("--from", "2026-03-02 11:00+01:00", &t, &err), 0);
	assert_true(t == INT64_C(1772445600000000));
	assert_int_equal(rk_time_parse_arg("--to", "2026-03-02T10:00:00.25-00:30", &t, &err), 0);
	assert_true(t == INT64_C(1772447400250000));

	assert_int_equal(rk_time_parse_arg("--from", "2026-03-02 10:00", &t, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_string_equal(err.msg, "invalid --from '2026-03-02 10:00': no time zone given");
	assert_true(err.hint[0] != '\0');

	/* a bare date is its midnight (UTC here; --timezone re-reads it) */
	assert_int_equal(rk_time_parse_arg("--to", "2026-03-02", &t, &err), 0);
	assert_true(t == INT64_C(1772409600000000));
	{
		int64_t d = 0;

		assert_true(rk_time_arg_date("2026-03-02", &d));
		assert_true(d * RK_USEC_PER_DAY == INT64_C(1772409600000000));
		assert_false(rk_time_arg_date("2026-03-02T00:00:00Z", &d));
		assert_false(rk_time_arg_date("infinity", &d));
		assert_false(rk_time_arg_date("2026-02-30", &d));
	}

	assert_int_equal(rk_time_parse_arg("--now", "infinity", &t, &err), -1);
	assert_string_equal(err.msg, "invalid --now 'infinity': not a finite instant");

	assert_int_equal(rk_time_parse_arg("--from", "2026-02-30T00:00:00Z", &t, &err), -1);
	assert_string_equal(err.msg, "invalid --from '2026-02-30T00:00:00Z': day out of range for month");
	assert_int_equal(err.code, RK_EXIT_USAGE);

	assert_int_equal(rk_time_parse_arg("--from", "", &t, &err), -1);
	assert_string_equal(err.msg, "--from needs a value");

	/* a window's bound is an rk_usec: PostgreSQL's last 30 years are
	 * values, never bounds, and the refusal says where the bounds end */
	assert_int_equal(rk_time_parse_arg("--to", "294247-01-10T04:00:54.775806Z", &t, &err), 0);
	assert_true(t == RK_USEC_LAST);
	assert_int_equal(rk_time_parse_arg("--to", "294270-01-01T00:00:00Z", &t, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_string_equal(err.msg, "invalid --to '294270-01-01T00:00:00Z': later than the last instant reckon's "
	                             "windows reach, 294247-01-10T04:00:54.775806Z");
	assert_int_equal(rk_time_parse_arg("--to", "294277-01-01T00:00:00Z", &t, &err), -1);
	assert_string_equal(err.msg, "invalid --to '294277-01-01T00:00:00Z': timestamp out of range");
}

/* PostgreSQL's whole range as wide instants: to 294276-12-31
 * 23:59:59.999999 UTC, from 4714-11-24 BC, past the int64 edge; checked
 * as tm2timestamp checks it (the date before the offset, the instant after). */
static void test_time_parse_wide(void **state)
{
	static const struct {
		const char *text;
		bool local;
		rk_wusec want;
	} ok[] = {
		{ "294276-12-31 23:59:59.999999+00", false, (rk_wusec)UINT64_C(9224318015999999999) },
		{ "294276-12-31 23:59:59.999999", true, (rk_wusec)UINT64_C(9224318015999999999) },
		{ "294277-01-01 00:30:00+01", false, (rk_wusec)UINT64_C(9224318014200000000) },
		{ "294276-12-31 23:59:59.999999-08", true, (rk_wusec)UINT64_C(9224318015999999999) },
		{ "294247-01-10 04:00:54.775807+00", false, (rk_wusec)INT64_MAX },
		{ "294247-01-10T04:00:54.775806Z", false, (rk_wusec)RK_USEC_LAST },
		{ "4713-01-01 00:00:00+00 BC", false, (rk_wusec)INT64_C(-210863520000000000) },
		{ "4714-11-24 00:00:00 BC", true, (rk_wusec)INT64_C(-210866803200000000) },
		{ "2026-03-02 10:58:00+00", false, (rk_wusec)INT64_C(1772449080000000) },
		{ "infinity", false, RK_WUSEC_PINF },
		{ "-infinity", true, RK_WUSEC_NINF },
	};
	static const char *const bad[] = {
		"294277-01-01 00:00:00+00",
		"294276-12-31 23:59:59.999999-01",
		"294277-01-01 00:00:00",
		"4714-11-23 23:59:59.999999+00 BC",
		"4714-11-24 00:00:00+01 BC",
		"5874898-01-01",
	};
	const char *why = NULL;
	rk_wusec w;
	rk_usec t;

	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		w = 0;
		assert_int_equal(rk_time_parse_wide(ok[i].text, strlen(ok[i].text), ok[i].local, &w, &why), 0);
		assert_true(w == ok[i].want);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why = NULL;
		assert_int_equal(rk_time_parse_wide(bad[i], strlen(bad[i]), false, &w, &why), -1);
		assert_string_equal(why, "timestamp out of range");
	}
	assert_int_equal(rk_time_parse_wide("2026-02-30", 10, false, &w, &why), -1);
	assert_string_equal(why, "day out of range for month");
	/* an rk_usec ends one microsecond before INT64_MAX ('infinity') */
	assert_int_equal(rk_time_parse("294247-01-10 04:00:54.775806+00", 31, &t, &why), 0);
	assert_true(t == RK_USEC_LAST);
	assert_int_equal(rk_time_parse("294247-01-10 04:00:54.775807+00", 31, &t, &why), -1);
	/* a local time past that end whose offset brings the instant back
	 * inside parses, narrow and wide alike (found by fuzz_time: the sum
	 * overflowed before the offset applied) */
	assert_int_equal(rk_time_parse("294247-01-10 04:00:55.77580700+15", 33, &t, &why), 0);
	assert_true(t == INT64_MAX - INT64_C(15) * 3600 * RK_USEC_PER_SEC + RK_USEC_PER_SEC);
	assert_int_equal(rk_time_parse_wide("294247-01-10 04:00:55.77580700+15", 33, false, &w, &why), 0);
	assert_true(w == rk_wusec_of(t));
	assert_int_equal(rk_time_parse_local("294247-01-10 04:00:55.77580700+15", 33, &t, &why), -1);
	assert_string_equal(why, "timestamp out of range");
	/* where a row is placed: an rk_usec's own instants, the rest after
	 * every window */
	assert_true(rk_usec_place((rk_wusec)RK_USEC_LAST) == RK_USEC_LAST);
	assert_true(rk_usec_place((rk_wusec)INT64_MAX) == RK_USEC_PINF);
	assert_true(rk_usec_place((rk_wusec)UINT64_C(9224318015999999999)) == RK_USEC_PINF);
	assert_true(rk_usec_place(RK_WUSEC_PINF) == RK_USEC_PINF);
	assert_true(rk_usec_place(RK_WUSEC_NINF) == RK_USEC_NINF);
	assert_true(rk_usec_place(-1) == -1);
	assert_int_equal(rk_time_parse_placed("294276-12-31 23:59:59.999999+00", 31, false, &t, &why), 0);
	assert_true(t == RK_USEC_PINF);
	assert_int_equal(rk_time_parse_placed("294247-01-10 04:00:54.775806-05", 31, true, &t, &why), 0);
	assert_true(t == RK_USEC_LAST);
	assert_int_equal(rk_time_parse_placed("294247-01-10 04:00:54.775806-05", 31, false, &t, &why), 0);
	assert_true(t == RK_USEC_PINF);
	assert_int_equal(rk_time_parse_placed("2026-03-02 10:58:00+00", 22, false, &t, &why), 0);
	assert_true(t == INT64_C(1772449080000000));
	assert_int_equal(rk_time_parse_placed("294277-01-01 00:00:00+00", 24, false, &t, &why), -1);
	assert_string_equal(why, "timestamp out of range");
	/* PostgreSQL's END_TIMESTAMP and MIN_TIMESTAMP, from 2000 */
	assert_true(RK_WUSEC_END - RK_PG_EPOCH_USEC == (rk_wusec)INT64_C(9223371331200000000));
	assert_true(RK_WUSEC_MIN - RK_PG_EPOCH_USEC == (rk_wusec)INT64_C(-211813488000000000));
	assert_true(rk_pg_timestamp_wide(INT64_C(9223371331199999999)) == RK_WUSEC_END - 1);
	assert_true(rk_pg_timestamp_wide(INT64_MAX) == RK_WUSEC_PINF);
	assert_true(rk_pg_timestamp_wide(INT64_MIN) == RK_WUSEC_NINF);
}

/* Wide instants printed as PostgreSQL prints them, and back. */
static void test_time_format_wide(void **state)
{
	char buf[RK_TIME_STRLEN];
	rk_wusec end = RK_WUSEC_END - 1, w = 0;
	const char *why;

	(void)state;
	assert_string_equal(rk_time_format_wide(end, buf), "294276-12-31T23:59:59.999999Z");
	assert_int_equal(rk_time_parse_wide(buf, strlen(buf), false, &w, &why), 0);
	assert_true(w == end);
	assert_string_equal(rk_time_format_pg_wide(end, true, buf), "294276-12-31 23:59:59.999999+00");
	assert_string_equal(rk_time_format_pg_wide(end - 999999, false, buf), "294276-12-31 23:59:59");
	assert_string_equal(rk_time_format_sql_wide(end, true, buf), "294276-12-31 23:59:59.999999+00");
	assert_string_equal(rk_time_format_sql_wide((rk_wusec)INT64_MAX, false, buf), "294247-01-10 04:00:54.775807");
	assert_string_equal(rk_time_format_wide(RK_WUSEC_PINF, buf), "infinity");
	assert_string_equal(rk_time_format_pg_wide(RK_WUSEC_NINF, true, buf), "-infinity");
	assert_string_equal(rk_time_format_pg_wide(RK_WUSEC_MIN, true, buf), "4714-11-24 00:00:00+00 BC");
	assert_string_equal(rk_time_format_wide((rk_wusec)INT64_C(-210863520000000000), buf), "4713-01-01T00:00:00Z BC");
	/* the rk_usec forms are the same functions */
	assert_string_equal(rk_time_format(RK_USEC_LAST, buf), "294247-01-10T04:00:54.775806Z");
	assert_string_equal(rk_time_format_pg(RK_USEC_PINF, true, buf), "infinity");
}

static void check_dur(const char *s, bool allow_zero, rk_usec want, int line)
{
	rk_usec d = -1;
	rk_error err;

	rk_error_clear(&err);
	if (rk_duration_parse("--window", s, allow_zero, &d, &err) != 0)
		fail_msg("line %d: '%s' refused: %s", line, s, err.msg);
	if (d != want)
		fail_msg("line %d: '%s' -> %lld, want %lld", line, s, (long long)d, (long long)want);
}

static void check_dur_bad(const char *s, bool allow_zero, const char *want_msg, int line)
{
	rk_usec d = -1;
	rk_error err;

	rk_error_clear(&err);
	if (rk_duration_parse("--window", s, allow_zero, &d, &err) != -1)
		fail_msg("line %d: '%s' accepted as %lld", line, s, (long long)d);
	if (err.code != RK_EXIT_USAGE || strcmp(err.msg, want_msg) != 0)
		fail_msg("line %d: '%s': message '%s', want '%s'", line, s, err.msg, want_msg);
}

#define DUR(s, z, want) check_dur((s), (z), (want), __LINE__)
#define DUR_BAD(s, z, msg) check_dur_bad((s), (z), (msg), __LINE__)

static void test_duration_parse(void **state)
{
	(void)state;
	DUR("90s", false, INT64_C(90000000));
	DUR("15m", false, INT64_C(900000000));
	DUR("1h", false, INT64_C(3600000000));
	DUR("1d", false, RK_USEC_PER_DAY);
	DUR("1w", false, 7 * RK_USEC_PER_DAY);
	DUR("1h30m", false, INT64_C(5400000000));
	DUR("1d2h3m4s5ms6us", false, RK_USEC_PER_DAY + INT64_C(7384005006));
	DUR("500ms", false, INT64_C(500000));
	DUR("10us", false, 10);
	DUR("0", true, 0);
	DUR("0s", true, 0);
	DUR("0m", true, 0);
	DUR("106751991d", false, INT64_C(106751991) * RK_USEC_PER_DAY);

	DUR_BAD("0", false, "invalid --window '0': must be greater than zero");
	DUR_BAD("0s", false, "invalid --window '0s': must be greater than zero");
	DUR_BAD("1", false, "invalid --window '1': missing unit");
	DUR_BAD("1x", false, "invalid --window '1x': unknown unit");
	DUR_BAD("1 h", false, "invalid --window '1 h': unknown unit");
	DUR_BAD("1H", false, "invalid --window '1H': unknown unit");
	DUR_BAD("h", false, "invalid --window 'h': expected a number");
	DUR_BAD("-1h", false, "invalid --window '-1h': expected a number");
	DUR_BAD("1.5h", false, "invalid --window '1.5h': unknown unit");
	DUR_BAD("106751992d", false, "invalid --window '106751992d': too large");
	DUR_BAD("99999999999999999999s", false, "invalid --window '99999999999999999999s': too large");
	DUR_BAD("", false, "--window needs a value");
}

static void test_duration_format(void **state)
{
	static const rk_usec samples[] = {
		1,
		999,
		1000,
		1500000,
		90000000,
		900000000,
		3600000000,
		5400000000,
		86400000000,
		INT64_C(90061001001),
		INT64_C(106751991) * INT64_C(86400000000),
	};
	char buf[RK_TIME_STRLEN];

	(void)state;
	assert_string_equal(rk_duration_format(0, buf), "0s");
	assert_string_equal(rk_duration_format(INT64_C(3600000000), buf), "1h");
	assert_string_equal(rk_duration_format(INT64_C(5400000000), buf), "1h30m");
	assert_string_equal(rk_duration_format(INT64_C(90000000), buf), "1m30s");
	assert_string_equal(rk_duration_format(INT64_C(900000000), buf), "15m");
	assert_string_equal(rk_duration_format(RK_USEC_PER_DAY, buf), "1d");
	assert_string_equal(rk_duration_format(INT64_C(1500), buf), "1ms500us");
	assert_string_equal(rk_duration_format(INT64_C(-3600000000), buf), "-1h");
	assert_string_equal(rk_duration_format(INT64_MIN, buf), "-106751991d4h54s775ms808us");
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		rk_usec back = 0;
		rk_error err;

		rk_duration_format(samples[i], buf);
		assert_int_equal(rk_duration_parse("--window", buf, false, &back, &err), 0);
		assert_true(back == samples[i]);
	}
}

static void test_now(void **state)
{
	rk_usec a = rk_time_now(), b = rk_time_now();

	(void)state;
	assert_true(a > INT64_C(1704067200000000)); /* after 2024-01-01 */
	assert_true(a < INT64_C(4102444800000000)); /* before 2100-01-01 */
	assert_true(b >= a);
}

/* An instant from its ISO text (test input, so it must parse). */
static rk_usec at(const char *s)
{
	rk_usec t = 0;
	const char *why = NULL;

	if (rk_time_parse(s, strlen(s), &t, &why) < 0)
		fail_msg("'%s': %s", s, why);
	return t;
}

static const rk_tz *zone(const char *name)
{
	rk_error err;
	const rk_tz *z;

	rk_error_clear(&err);
	z = rk_tz_get(name, "--timezone", &err);
	if (!z)
		fail_msg("%s: %s", name, err.msg);
	return z;
}

/* Berlin's 2026 changes: 2026-03-29 01:00Z (+1 to +2), 2026-10-25 01:00Z
 * (+2 to +1), to the second, from the system's zoneinfo. */
static void test_tz_offsets(void **state)
{
	const rk_tz *z = zone("Europe/Berlin");
	char b[RK_TIME_STRLEN];

	(void)state;
	assert_int_equal(rk_tz_offset(z, at("2026-03-29T00:59:59Z")), 3600);
	assert_int_equal(rk_tz_offset(z, at("2026-03-29T01:00:00Z")), 7200);
	assert_int_equal(rk_tz_offset(z, at("2026-10-25T00:59:59.999999Z")), 7200);
	assert_int_equal(rk_tz_offset(z, at("2026-10-25T01:00:00Z")), 3600);
	assert_int_equal(rk_tz_offset(z, at("1950-06-01T00:00:00Z")), 3600);
	assert_string_equal(rk_tz_format(z, at("2026-03-29T01:00:00Z"), b), "2026-03-29T03:00:00+02:00");
	assert_string_equal(rk_tz_format(z, at("2026-03-29T00:59:59.5Z"), b), "2026-03-29T01:59:59.500000+01:00");
	assert_string_equal(rk_tz_format(zone("Asia/Kolkata"), at("2026-03-29T00:00:00Z"), b),
	                    "2026-03-29T05:30:00+05:30");
	assert_string_equal(rk_tz_format(zone("America/New_York"), at("2026-03-29T00:00:00Z"), b),
	                    "2026-03-28T20:00:00-04:00");
	assert_string_equal(rk_tz_format(zone("UTC"), at("2026-03-29T00:00:00Z"), b), "2026-03-29T00:00:00+00:00");
	/* the same zone twice is the same table */
	assert_ptr_equal(zone("Europe/Berlin"), z);
}

/* The DST hour, placed as PostgreSQL's AT TIME ZONE places it: a time in
 * the March gap with the offset before it, a time of the repeated October
 * hour with the offset after it (the later instant). */
static void test_tz_dst_hour_rule(void **state)
{
	const rk_tz *z = zone("Europe/Berlin");
	rk_tz_fit fit;

	(void)state;
	assert_true(rk_tz_utc(z, at("2026-03-29T12:00:00Z"), &fit) == at("2026-03-29T10:00:00Z"));
	assert_int_equal(fit, RK_TZ_EXACT);
	assert_true(rk_tz_utc(z, at("2026-03-29T02:30:00Z"), &fit) == at("2026-03-29T01:30:00Z"));
	assert_int_equal(fit, RK_TZ_GAP);
	assert_true(rk_tz_utc(z, at("2026-03-29T03:00:00Z"), &fit) == at("2026-03-29T01:00:00Z"));
	assert_int_equal(fit, RK_TZ_EXACT);
	assert_true(rk_tz_utc(z, at("2026-03-29T01:59:59Z"), &fit) == at("2026-03-29T00:59:59Z"));
	assert_int_equal(fit, RK_TZ_EXACT);
	assert_true(rk_tz_utc(z, at("2026-10-25T02:30:00Z"), &fit) == at("2026-10-25T01:30:00Z"));
	assert_int_equal(fit, RK_TZ_AMBIGUOUS);
	assert_true(rk_tz_utc(z, at("2026-10-25T02:00:00Z"), &fit) == at("2026-10-25T01:00:00Z"));
	assert_int_equal(fit, RK_TZ_AMBIGUOUS);
	assert_true(rk_tz_utc(z, at("2026-10-25T01:59:59Z"), &fit) == at("2026-10-24T23:59:59Z"));
	assert_int_equal(fit, RK_TZ_EXACT);
	assert_true(rk_tz_utc(z, at("2026-10-25T03:00:00Z"), &fit) == at("2026-10-25T02:00:00Z"));
	assert_int_equal(fit, RK_TZ_EXACT);
}

/* The placer's cache gives what rk_tz_utc gives, minute by minute across
 * both changes of several zones (and on second boundaries near them), and
 * the wall-clock range of [from, to) holds every time placed in it. */
static void test_tz_placer_and_wall_range(void **state)
{
	static const char *const zones[] = { "Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
		                             "Asia/Kolkata", "America/Sao_Paulo" };

	(void)state;
	for (size_t k = 0; k < sizeof zones / sizeof zones[0]; k++) {
		const rk_tz *z = zone(zones[k]);
		rk_tz_placer p;
		rk_usec step = 60 * RK_USEC_PER_SEC;
		rk_usec from = at("2026-03-25T00:00:00Z"), to = at("2026-03-26T00:00:00Z");
		rk_usec lo, hi;

		rk_tz_placer_init(&p, z);
		for (rk_usec v = at("2026-01-01T00:00:00Z"); v < at("2027-01-01T00:00:00Z"); v += step) {
			rk_tz_fit f1, f2;
			rk_usec a = rk_tz_utc(z, v, &f1), b = rk_tz_place(&p, v, &f2);

			assert_true(a == b);
			assert_int_equal(f1, f2);
		}
		/* every wall-clock time the rule places in a day of each change
		 * lies in the day's wall-clock range */
		for (int d = 0; d < 366; d++) {
			from = at("2026-01-01T00:00:00Z") + (rk_usec)d * RK_USEC_PER_DAY;
			to = from + RK_USEC_PER_DAY;
			rk_tz_wall_range(z, from, to, &lo, &hi);
			for (rk_usec v = lo - 2 * 3600 * RK_USEC_PER_SEC; v < hi + 2 * 3600 * RK_USEC_PER_SEC; v += 15 * step) {
				rk_tz_fit f;
				rk_usec t = rk_tz_utc(z, v, &f);

				if (t >= from && t < to)
					assert_true(v >= lo && v < hi);
			}
			/* no wider than the offsets' difference either side */
			assert_true(lo >= from + rk_tz_offset(z, from) * RK_USEC_PER_SEC - 3 * 3600 * RK_USEC_PER_SEC);
			assert_true(hi <= to + rk_tz_offset(z, to) * RK_USEC_PER_SEC + 3 * 3600 * RK_USEC_PER_SEC);
		}
	}
	assert_true(rk_tz_is_utc(zone("UTC")));
	assert_false(rk_tz_is_utc(zone("Europe/Berlin")));
}

/* The offset an instant's text names: Z, +HH:MM, -HHMM; none for a date or
 * a zoneless time. */
static void test_time_text_offset(void **state)
{
	int32_t off = 99;

	(void)state;
	assert_true(rk_time_text_offset("2026-03-29T00:00:00Z", &off));
	assert_int_equal(off, 0);
	assert_true(rk_time_text_offset("2026-03-29T00:00:00+02:00", &off));
	assert_int_equal(off, 7200);
	assert_true(rk_time_text_offset("2026-03-29T00:00:00.5-0430", &off));
	assert_int_equal(off, -(4 * 3600 + 30 * 60));
	assert_true(rk_time_text_offset("2026-03-29 00:00:00+05", &off));
	assert_int_equal(off, 5 * 3600);
	assert_false(rk_time_text_offset("2026-03-29", &off));
	assert_false(rk_time_text_offset("2026-03-29T00:00:00", &off));
}

/* Calendar days across both changes: 23 h in March, 25 h in October;
 * months and weeks on local midnights; a range off the grid refused. */
static void test_tz_calendar_bounds(void **state)
{
	const rk_tz *z = zone("Europe/Berlin");
	rk_calunit day = { 0, 1 }, week = { 0, 7 }, month = { 1, 0 };
	rk_usec *v = NULL;
	size_t n = 0;
	rk_error err;

	(void)state;
	rk_error_clear(&err);
	assert_int_equal(rk_tz_bounds(z, day, at("2026-03-27T23:00:00Z"), at("2026-03-30T22:00:00Z"), 100, &v, &n, &err),
	                 0);
	assert_int_equal(n, 4);
	assert_true(v[1] - v[0] == 24 * INT64_C(3600000000));
	assert_true(v[2] - v[1] == 23 * INT64_C(3600000000));
	assert_true(v[3] - v[2] == 24 * INT64_C(3600000000));
	assert_true(v[2] == at("2026-03-29T22:00:00Z"));
	free(v);
	assert_int_equal(rk_tz_bounds(z, day, at("2026-10-24T22:00:00Z"), at("2026-10-25T23:00:00Z"), 100, &v, &n, &err),
	                 0);
	assert_int_equal(n, 2);
	assert_true(v[1] - v[0] == 25 * INT64_C(3600000000));
	free(v);
	assert_int_equal(rk_tz_bounds(z, month, at("2026-02-28T23:00:00Z"), at("2026-04-30T22:00:00Z"), 100, &v, &n, &err),
	                 0);
	assert_int_equal(n, 3);
	assert_true(v[1] == at("2026-03-31T22:00:00Z"));
	free(v);

	/* not a local midnight: 00:00Z is 01:00 in Berlin */
	assert_int_equal(rk_tz_bounds(z, day, at("2026-03-28T00:00:00Z"), at("2026-03-30T00:00:00Z"), 100, &v, &n, &err),
	                 -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "is not the start of a day in Europe/Berlin"));
	assert_null(v);
	/* a 24 h range over the March change is not a whole day there */
	assert_int_equal(rk_tz_bounds(z, day, at("2026-03-28T23:00:00Z"), at("2026-03-29T23:00:00Z"), 100, &v, &n, &err),
	                 -1);
	assert_non_null(strstr(err.msg, "not a whole number of 1-day windows in Europe/Berlin"));
	assert_non_null(strstr(err.hint, "--to 2026-03-31T00:00:00+02:00"));
	/* a month must start on the first */
	assert_int_equal(rk_tz_bounds(z, month, at("2026-03-01T23:00:00Z"), at("2026-04-30T22:00:00Z"), 100, &v, &n, &err),
	                 -1);
	assert_non_null(strstr(err.msg, "is not the start of a month"));
	/* the bound on windows */
	assert_int_equal(rk_tz_bounds(z, day, at("2026-03-27T23:00:00Z"), at("2026-03-30T22:00:00Z"), 2, &v, &n, &err), -1);
	assert_non_null(strstr(err.msg, "more than 2 windows"));

	/* the latest boundary at or before an instant, and steps back */
	assert_true(rk_tz_floor(z, day, at("2026-03-29T21:59:59Z")) == at("2026-03-28T23:00:00Z"));
	assert_true(rk_tz_floor(z, day, at("2026-03-29T22:00:00Z")) == at("2026-03-29T22:00:00Z"));
	assert_true(rk_tz_floor(z, week, at("2026-04-01T12:00:00Z")) == at("2026-03-29T22:00:00Z")); /* Monday 30th */
	assert_true(rk_tz_floor(z, month, at("2026-04-01T12:00:00Z")) == at("2026-03-31T22:00:00Z"));
	assert_true(rk_tz_step(z, day, at("2026-03-30T22:00:00Z"), -7) == at("2026-03-23T23:00:00Z"));
	assert_true(rk_tz_step(z, month, at("2026-03-31T22:00:00Z"), -3) == at("2025-12-31T23:00:00Z"));
	assert_true(rk_tz_midnight(z, at("2026-10-25T12:00:00Z")) == at("2026-10-24T22:00:00Z"));
}

/* Names that are no zone file are refused, naming the option. */
static void test_tz_unknown(void **state)
{
	static const char *const bad[] = { "Europe/Berln", "../../etc/passwd", "/usr/share/zoneinfo/UTC",
		                           "zone.tab", "", "Europe/Berlin ", "Europe" };
	rk_error err;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rk_error_clear(&err);
		assert_null(rk_tz_get(bad[i], "--timezone", &err));
		assert_int_equal(err.code, RK_EXIT_USAGE);
		assert_true(strncmp(err.msg, "invalid --timezone '", 20) == 0);
		assert_non_null(strstr(err.hint, "Europe/Berlin"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_days_vs_naive),
		cmocka_unit_test(test_date_roundtrip),
		cmocka_unit_test(test_date_parse),
		cmocka_unit_test(test_time_parse_forms),
		cmocka_unit_test(test_time_parse_errors),
		cmocka_unit_test(test_time_parse_unterminated),
		cmocka_unit_test(test_time_parse_local),
		cmocka_unit_test(test_time_format),
		cmocka_unit_test(test_time_parse_wide),
		cmocka_unit_test(test_time_format_wide),
		cmocka_unit_test(test_time_parse_minute_cache),
		cmocka_unit_test(test_time_roundtrip),
		cmocka_unit_test(test_time_parse_arg),
		cmocka_unit_test(test_duration_parse),
		cmocka_unit_test(test_duration_format),
		cmocka_unit_test(test_now),
		cmocka_unit_test(test_tz_offsets),
		cmocka_unit_test(test_tz_dst_hour_rule),
		cmocka_unit_test(test_tz_placer_and_wall_range),
		cmocka_unit_test(test_time_text_offset),
		cmocka_unit_test(test_tz_calendar_bounds),
		cmocka_unit_test(test_tz_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
