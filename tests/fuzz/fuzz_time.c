/*
 * fuzz_time.c - libFuzzer harness for the time and duration parsers
 * (core/timeutil.c).
 *
 * The input is one value.  Each parser reads it from a buffer of exactly its
 * size (no terminating NUL for the (pointer, length) parsers, so reading one
 * byte past the value is an AddressSanitizer report).  What parses must also
 * survive the formatter: formatting a parsed value and parsing the text
 * again gives the same value.  The wide parser (PostgreSQL's whole range)
 * agrees with the 64-bit one wherever that one parses, and takes more only
 * past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fuzzer's own failure: a property that does not hold. */
#define RK_FUZZ_CHECK(cond) \
	do {                    \
		if (!(cond))        \
			abort();        \
	} while (0)

static void rk_fz_instant(const char *s, size_t n, bool local)
{
	char text[RK_TIME_STRLEN];
	const char *why = NULL;
	rk_usec t, again;

	if ((local ? rk_time_parse_local(s, n, &t, &why) : rk_time_parse(s, n, &t, &why)) < 0) {
		RK_FUZZ_CHECK(why != NULL);
		return;
	}
	rk_time_format(t, text);
	RK_FUZZ_CHECK(strlen(text) < RK_TIME_STRLEN);
	RK_FUZZ_CHECK(rk_time_parse(text, strlen(text), &again, &why) == 0 && again == t);
	rk_time_format_sql(t, true, text);
	RK_FUZZ_CHECK(rk_time_parse(text, strlen(text), &again, &why) == 0 && again == t);
	rk_time_format_sql(t, false, text);
	RK_FUZZ_CHECK(rk_time_parse_local(text, strlen(text), &again, &why) == 0 && again == t);
}

static void rk_fz_wide(const char *s, size_t n, bool local)
{
	char text[RK_TIME_STRLEN];
	const char *why = NULL;
	rk_wusec w, again;
	rk_usec t;
	int narrow = local ? rk_time_parse_local(s, n, &t, &why) : rk_time_parse(s, n, &t, &why);

	if (rk_time_parse_wide(s, n, local, &w, &why) < 0) {
		RK_FUZZ_CHECK(why != NULL && narrow < 0);
		return;
	}
	RK_FUZZ_CHECK(narrow < 0 ? w > (rk_wusec)RK_USEC_LAST && w < RK_WUSEC_END : w == rk_wusec_of(t));
	rk_time_format_wide(w, text);
	RK_FUZZ_CHECK(rk_time_parse_wide(text, strlen(text), false, &again, &why) == 0 && again == w);
	rk_time_format_pg_wide(w, true, text);
	RK_FUZZ_CHECK(rk_time_parse_wide(text, strlen(text), false, &again, &why) == 0 && again == w);
	rk_time_format_sql_wide(w, false, text);
	RK_FUZZ_CHECK(rk_time_parse_wide(text, strlen(text), true, &again, &why) == 0 && again == w);
}

static void rk_fz_date(const char *s, size_t n)
{
	char text[RK_TIME_STRLEN];
	const char *why = NULL;
	int64_t days, again;

	if (rk_date_parse(s, n, &days, &why) < 0) {
		RK_FUZZ_CHECK(why != NULL);
		return;
	}
	rk_date_format(days, text);
	RK_FUZZ_CHECK(rk_date_parse(text, strlen(text), &again, &why) == 0 && again == days);
}

/* The command-line parsers take NUL-terminated strings. */
static void rk_fz_args(const char *s)
{
	char text[RK_TIME_STRLEN];
	rk_error err;
	rk_usec t, again;

	rk_error_clear(&err);
	if (rk_time_parse_arg("--from", s, &t, &err) == 0) {
		RK_FUZZ_CHECK(t != RK_USEC_PINF && t != RK_USEC_NINF);
		rk_time_format(t, text);
		RK_FUZZ_CHECK(rk_time_parse_arg("--from", text, &again, &err) == 0 && again == t);
	} else {
		RK_FUZZ_CHECK(err.code == RK_EXIT_USAGE && err.msg[0]);
	}
	for (int zero = 0; zero < 2; zero++) {
		rk_error_clear(&err);
		if (rk_duration_parse("--window", s, zero, &t, &err) == 0) {
			RK_FUZZ_CHECK(t > 0 || (zero && t == 0));
			rk_duration_format(t, text);
			RK_FUZZ_CHECK(rk_duration_parse("--window", text, true, &again, &err) == 0 && again == t);
		} else {
			RK_FUZZ_CHECK(err.code == RK_EXIT_USAGE && err.msg[0]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *exact = malloc(size ? size : 1);
	char *cstr = malloc(size + 1);

	if (!exact || !cstr)
		abort();
	memcpy(exact, data, size);
	rk_fz_instant(exact, size, false);
	rk_fz_instant(exact, size, true);
	rk_fz_wide(exact, size, false);
	rk_fz_wide(exact, size, true);
	rk_fz_date(exact, size);
	memcpy(cstr, data, size);
	cstr[size] = '\0';
	rk_fz_args(cstr);
	free(exact);
	free(cstr);
	return 0;
}
