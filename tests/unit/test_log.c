/*
 * test_log.c - what reckon writes to stderr: every message escaped as a
 * whole (rk_text_escape), whatever bytes the data put into it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/buf.h"
#include "core/env.h"
#include "core/error.h"
#include "core/log.h"
#include "core/text.h"

static void assert_escapes(const char *in, size_t n, const char *want)
{
	rk_buf b = RK_BUF_INIT;

	rk_text_escape(&b, in, n);
	assert_int_equal(b.len, strlen(want));
	assert_memory_equal(b.data ? b.data : "", want, b.len);
	rk_buf_free(&b);
}

#define ESC(lit, want) assert_escapes(lit, sizeof lit - 1, want)

static void test_escape_printable_and_utf8_kept(void **state)
{
	(void)state;
	ESC("", "");
	ESC("plain ascii: 'a', \"b\" \\N ~", "plain ascii: 'a', \"b\" \\N ~");
	ESC("Gr\xc3\xbc\xc3\x9f"
	    "e \xe2\x9c\x93 \xf0\x9f\x98\x80",
	    "Gr\xc3\xbc\xc3\x9f"
	    "e \xe2\x9c\x93 \xf0\x9f\x98\x80");
	/* the last code points of each length */
	ESC("\xdf\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\xdf\xbf\xef\xbf\xbf\xf4\x8f\xbf\xbf");
}

static void test_escape_controls(void **state)
{
	(void)state;
	ESC("red \x1b[31mX\x1b[0m", "red \\x1b[31mX\\x1b[0m");
	ESC("a\tb\nc\rd", "a\\tb\\nc\\rd");
	ESC("nul\0here", "nul\\x00here");
	ESC("bell\x07 del\x7f", "bell\\x07 del\\x7f");
	/* C1 controls (CSI as U+009B) and bidirectional overrides */
	ESC("\xc2\x9b"
	    "31m",
	    "\\u009b31m");
	ESC("\xc2\x80\xc2\x9f\xc2\xa0", "\\u0080\\u009f\xc2\xa0");
	ESC("abc\xe2\x80\xae"
	    "cba",
	    "abc\\u202ecba");
	ESC("\xe2\x81\xa6x\xe2\x81\xa9", "\\u2066x\\u2069");
}

static void test_escape_invalid_utf8(void **state)
{
	(void)state;
	ESC("\xff", "\\xff");
	ESC("latin1 caf\xe9!", "latin1 caf\\xe9!");
	/* a lone continuation byte, a truncated sequence at the end */
	ESC("\x80"
	    "a\xe2\x9c",
	    "\\x80a\\xe2\\x9c");
	/* overlong forms, surrogates, past U+10FFFF */
	ESC("\xc0\xaf\xc1\xbf", "\\xc0\\xaf\\xc1\\xbf");
	ESC("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	ESC("\xed\xa0\x80", "\\xed\\xa0\\x80");
	ESC("\xf4\x90\x80\x80\xf5", "\\xf4\\x90\\x80\\x80\\xf5");
	/* a bad byte in the middle of a sequence: the rest is read afresh */
	ESC("\xe2\x28\xa1", "\\xe2(\\xa1");
}

/* Runs fn with stderr sent to a file; returns what it wrote (caller frees). */
static char *capture_stderr(void (*fn)(void *), void *arg, size_t *len)
{
	FILE *tmp = tmpfile();
	int saved;
	long n;
	char *out;

	assert_non_null(tmp);
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	fn(arg);
	fflush(stderr);
	assert_true(dup2(saved, 2) >= 0);
	close(saved);
	n = ftell(tmp);
	if (n < 0)
		n = (long)lseek(fileno(tmp), 0, SEEK_END);
	assert_true(n >= 0);
	out = malloc((size_t)n + 1);
	assert_non_null(out);
	rewind(tmp);
	assert_int_equal(fread(out, 1, (size_t)n, tmp), (size_t)n);
	out[n] = '\0';
	*len = (size_t)n;
	fclose(tmp);
	return out;
}

static void log_error_fn(void *arg)
{
	rk_log_error(arg);
}

static void log_warn_fn(void *arg)
{
	rk_log_warn("column '%s' of file '%s'", (const char *)arg, "x\ty.csv");
}

/* A header name with a terminal escape and a byte that is not UTF-8: the
 * message, its hint and its SQLSTATE come out escaped, on one line each. */
/* A cut never splits a UTF-8 character: "h\xc3\xa9llo" (héllo) cut at 2
 * bytes keeps "h", at 3 keeps "hé"; text within the bound is kept whole. */
static void test_utf8_cut(void **state)
{
	const char *s = "h\xc3\xa9llo";
	const char *euro = "\xe2\x82\xac\xe2\x82\xac";

	assert_int_equal(rk_utf8_cut(s, 6, 6), 6);
	assert_int_equal(rk_utf8_cut(s, 6, 10), 6);
	assert_int_equal(rk_utf8_cut(s, 6, 1), 1);
	assert_int_equal(rk_utf8_cut(s, 6, 2), 1);
	assert_int_equal(rk_utf8_cut(s, 6, 3), 3);
	assert_int_equal(rk_utf8_cut(euro, 6, 5), 3);
	assert_int_equal(rk_utf8_cut(euro, 6, 4), 3);
	assert_int_equal(rk_utf8_cut(euro, 6, 2), 0);
	assert_int_equal(rk_utf8_cut(s, 6, 0), 0);
}

static void test_log_error_escapes(void **state)
{
	rk_error err;
	size_t n;
	char *got;

	(void)state;
	rk_error_clear(&err);
	rk_error_set(&err, RK_EXIT_USAGE, "csv file '/tmp/a.csv' has no column 'zz' (its columns: 'a\x1b[31m\xff')");
	rk_error_hint(&err, "spell it as the header does:\n'a\x1b]0;pwned\x07'");
	got = capture_stderr(log_error_fn, &err, &n);
	assert_string_equal(got, "reckon: error: csv file '/tmp/a.csv' has no column 'zz' (its columns: "
	                         "'a\\x1b[31m\\xff')\n"
	                         "hint: spell it as the header does:\\n'a\\x1b]0;pwned\\x07'\n");
	assert_int_equal(strlen(got), n);
	free(got);

	rk_error_clear(&err);
	rk_error_set(&err, RK_EXIT_RUNTIME, "relation \"caf\xe9\" does not exist");
	memcpy(err.sqlstate, "42P01", 6);
	got = capture_stderr(log_error_fn, &err, &n);
	assert_string_equal(got, "reckon: error: relation \"caf\\xe9\" does not exist (SQLSTATE 42P01)\n");
	free(got);
}

static void test_log_warn_escapes(void **state)
{
	size_t n;
	char *got;

	(void)state;
	got = capture_stderr(log_warn_fn, "\xc2\x9b"
	                                  "2J",
	                     &n);
	assert_string_equal(got, "reckon: warning: column '\\u009b2J' of file 'x\\ty.csv'\n");
	free(got);
}

/* One CSV field as reckon's files write it: plain text as is; a comma,
 * quote, CR, LF or an edge space quoted with quotes doubled; the empty
 * string "" and NULL nothing, so a reader tells them apart. */
static void test_csv_field(void **state)
{
	const char *in[] = { "plain", "a,b", "say \"hi\"", "two\nlines", " lead", "trail ", "", NULL, "in side" };
	const char *want = "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"|\" lead\"|\"trail \"|\"\"||in side|";
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
		rk_text_csv_field(f, in[i]);
		fputc('|', f);
	}
	fclose(f);
	assert_string_equal(text, want);
	free(text);
}

typedef struct env_call {
	const char *name;
	size_t dflt, min, max, got;
} env_call;

static void env_bytes_fn(void *arg)
{
	env_call *c = arg;

	c->got = rk_env_bytes(c->name, c->dflt, c->min, c->max);
}

/* rk_env_bytes with name set to value (NULL: unset): the count it returns,
 * and what it wrote to stderr into *said (caller frees). */
static size_t env_bytes(const char *name, const char *value, size_t min, size_t max, char **said)
{
	env_call c = { name, 777, min, max, 0 };
	size_t n;

	if (value)
		assert_int_equal(setenv(name, value, 1), 0);
	else
		assert_int_equal(unsetenv(name), 0);
	*said = capture_stderr(env_bytes_fn, &c, &n);
	unsetenv(name);
	return c.got;
}

/* A byte count from the environment: a whole number in range is used, no
 * word said; unset or empty is the default; anything else is the default
 * with one warning per variable that names it, its value and the range. */
static void test_env_bytes(void **state)
{
	static const char *const bad[] = { "12x", "-5", "+5", " 5", "5 ", "0x10", "0", "2147483648",
		                           "99999999999999999999999" };
	char *said;

	(void)state;
	assert_int_equal(env_bytes("RK_TEST_ENV_A", NULL, 1, INT32_MAX, &said), 777);
	assert_string_equal(said, "");
	free(said);
	assert_int_equal(env_bytes("RK_TEST_ENV_A", "", 1, INT32_MAX, &said), 777);
	assert_string_equal(said, "");
	free(said);
	assert_int_equal(env_bytes("RK_TEST_ENV_A", "4096", 1, INT32_MAX, &said), 4096);
	assert_string_equal(said, "");
	free(said);
	assert_int_equal(env_bytes("RK_TEST_ENV_A", "2147483647", 1, INT32_MAX, &said), 2147483647);
	free(said);
	assert_int_equal(env_bytes("RK_TEST_ENV_A", "0", 0, 10, &said), 0);
	assert_string_equal(said, "");
	free(said);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char name[32];

		snprintf(name, sizeof name, "RK_TEST_ENV_B%zu", i);
		assert_int_equal(env_bytes(name, bad[i], 1, INT32_MAX, &said), 777);
		assert_non_null(strstr(said, "reckon: warning: "));
		assert_non_null(strstr(said, name));
		assert_non_null(strstr(said, bad[i]));
		assert_non_null(strstr(said, "from 1 to 2147483647: using the default, 777"));
		free(said);
	}
	/* once a variable */
	assert_int_equal(env_bytes("RK_TEST_ENV_B0", "12x", 1, INT32_MAX, &said), 777);
	assert_string_equal(said, "");
	free(said);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_printable_and_utf8_kept),
		cmocka_unit_test(test_escape_controls),
		cmocka_unit_test(test_escape_invalid_utf8),
		cmocka_unit_test(test_utf8_cut),
		cmocka_unit_test(test_csv_field),
		cmocka_unit_test(test_log_error_escapes),
		cmocka_unit_test(test_log_warn_escapes),
		cmocka_unit_test(test_env_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
