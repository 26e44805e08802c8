/*
 * test_sqltpl.c - the SQL template renderer (io/sqltpl.c): psql-style
 * placeholders filled with pre-quoted text, everything else left as it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "io/sqltpl.h"

static const rk_sqlvar vars[] = {
	{ "target_table", "\"mart\".\"orders\"" },
	{ "cols", "\"a\", \"b\"" },
	{ "t_1", "x" },
};
#define NVARS (sizeof vars / sizeof vars[0])

static void assert_renders(const char *tpl, const char *want)
{
	rk_buf out = RK_BUF_INIT;
	rk_error err;

	rk_error_clear(&err);
	rk_buf_puts(&out, "left over from the last statement");
	if (rk_sql_render(&out, tpl, vars, NVARS, &err) < 0)
		fail_msg("render of '%s' failed: %s", tpl, err.msg);
	assert_string_equal(out.data, want);
	rk_buf_free(&out);
}

static void assert_refuses(const char *tpl, const char *msg)
{
	rk_buf out = RK_BUF_INIT;
	rk_error err;

	rk_error_clear(&err);
	assert_int_equal(rk_sql_render(&out, tpl, vars, NVARS, &err), -1);
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	assert_string_equal(err.msg, msg);
	rk_buf_free(&out);
}

static void test_placeholders(void **state)
{
	(void)state;
	assert_renders("DELETE FROM :\"target_table\" WHERE id = $1;", "DELETE FROM \"mart\".\"orders\" WHERE id = $1;");
	assert_renders("SELECT :cols FROM :\"target_table\"", "SELECT \"a\", \"b\" FROM \"mart\".\"orders\"");
	/* names run over letters, digits and '_' */
	assert_renders(":t_1,:t_1.", "x,x.");
	assert_renders("", "");
	assert_renders("SELECT 1", "SELECT 1");
}

static void test_left_alone(void **state)
{
	(void)state;
	/* casts, a colon before anything but a name, string literals, quoted
	 * identifiers and comments are not placeholders */
	assert_renders("SELECT $1::timestamptz, x::text[]", "SELECT $1::timestamptz, x::text[]");
	assert_renders("SELECT a[1:2], ': ', $1 :1", "SELECT a[1:2], ': ', $1 :1");
	assert_renders("SELECT ':cols', 'it''s :cols'", "SELECT ':cols', 'it''s :cols'");
	assert_renders("SELECT \":cols\" FROM t", "SELECT \":cols\" FROM t");
	assert_renders("-- uses :cols\nSELECT :cols", "-- uses :cols\nSELECT \"a\", \"b\"");
	assert_renders("SELECT 1 - -1", "SELECT 1 - -1");
	/* an unterminated literal runs to the end, as psql reads it */
	assert_renders("SELECT 'open :cols", "SELECT 'open :cols");
}

static void test_errors(void **state)
{
	(void)state;
	assert_refuses("SELECT :nope", "sql template placeholder :nope has no value");
	assert_refuses("SELECT * FROM :\"nope\"", "sql template placeholder :nope has no value");
	assert_refuses("SELECT * FROM :\"target-table\"",
	               "malformed placeholder in sql template near \":\"target-table\"\"");
}

/* A name that does not parse is refused before any quoting (no
 * connection is needed to find out). */
static void test_quote_malformed(void **state)
{
	char *items[] = { "ok", "a..b" };
	rk_error err;

	(void)state;
	rk_error_clear(&err);
	assert_null(rk_sql_quote_name(NULL, "mart..orders", &err));
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "malformed name \"mart..orders\""));
	rk_error_clear(&err);
	assert_null(rk_sql_quote_list(NULL, items + 1, 1, "t.", &err));
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "malformed name \"a..b\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placeholders),
		cmocka_unit_test(test_left_alone),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_quote_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
