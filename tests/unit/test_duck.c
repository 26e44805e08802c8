/*
 * test_duck.c - DuckDB as reckon opens it (io/duck.h): TimeZone UTC,
 * extension autoloading and autoinstalling off and locked, the built-in
 * extensions there, and a query needing one that is not built in failing
 * instead of fetching it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/buf.h"
#include "io/duck.h"

/* The first value of the first row of sql, as text (caller frees). */
static char *one(rk_duck *d, const char *sql)
{
	duckdb_result res;
	rk_error err;
	char *v;

	rk_error_clear(&err);
	if (rk_duck_query(rk_duck_conn(d), sql, &res, RK_EXIT_RUNTIME, "test", &err) < 0)
		fail_msg("%s: %s", sql, err.msg);
	assert_int_equal(duckdb_row_count(&res), 1);
	v = duckdb_value_varchar(&res, 0, 0);
	assert_non_null(v);
	char *copy = strdup(v);
	duckdb_free(v);
	duckdb_destroy_result(&res);
	return copy;
}

static rk_duck *open_db(void)
{
	rk_duck *d = NULL;
	rk_error err;

	rk_error_clear(&err);
	if (rk_duck_open(&d, 1, &err) < 0)
		fail_msg("rk_duck_open: %s", err.msg);
	return d;
}

static void assert_one(rk_duck *d, const char *sql, const char *want)
{
	char *got = one(d, sql);

	assert_string_equal(got, want);
	free(got);
}

static void test_settings(void **state)
{
	rk_duck *d = open_db();

	assert_one(d, "SELECT current_setting('TimeZone')", "UTC");
	assert_one(d, "SELECT current_setting('autoload_known_extensions')::text", "false");
	assert_one(d, "SELECT current_setting('autoinstall_known_extensions')::text", "false");
	assert_one(d, "SELECT current_setting('threads')::text", "1");
	/* spills under TMPDIR, not into the working directory */
	{
		const char *base = getenv("TMPDIR");
		char sql[512];

		snprintf(sql, sizeof sql, "SELECT starts_with(current_setting('temp_directory'), '%s/reckon-duckdb.')",
		         base && *base ? base : "/tmp");
		assert_one(d, sql, "true");
	}
	/* a naive timestamp (INT96, timestamp_ntz) taken as UTC */
	assert_one(d, "SELECT epoch_us(TIMESTAMP '2021-09-08 11:11:11'::TIMESTAMPTZ)::text", "1631099471000000");
	assert_one(d, "SELECT TIMESTAMPTZ '2021-09-08 11:11:11-07'::text", "2021-09-08 18:11:11+00");
	/* parquet, json and icu are built in and loaded */
	assert_one(d,
	           "SELECT count(*)::text FROM duckdb_extensions() "
	           "WHERE extension_name IN ('parquet', 'json', 'icu') AND loaded",
	           "3");
	rk_duck_free(d);
}

static void test_locked(void **state)
{
	rk_duck *d;
	rk_error err;

	rk_error_clear(&err);
	d = open_db();
	assert_int_equal(rk_duck_query(rk_duck_conn(d), "SET autoinstall_known_extensions = true", NULL,
	                               RK_EXIT_USAGE, "expr", &err),
	                 -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "expr: "));
	rk_error_clear(&err);
	assert_int_equal(rk_duck_query(rk_duck_conn(d), "SET TimeZone = 'America/New_York'", NULL,
	                               RK_EXIT_USAGE, "expr", &err),
	                 -1);
	assert_one(d, "SELECT current_setting('TimeZone')", "UTC");
	rk_duck_free(d);
}

/* httpfs is not built in: reading a URL fails at once (no autoinstall, so
 * nothing is fetched), and says so. */
static void test_no_network(void **state)
{
	rk_duck *d;
	rk_error err;

	rk_error_clear(&err);
	d = open_db();
	assert_int_equal(rk_duck_query(rk_duck_conn(d),
	                               "SELECT * FROM read_parquet('https://example.invalid/x.parquet')", NULL,
	                               RK_EXIT_RUNTIME, "read", &err),
	                 -1);
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	assert_non_null(strstr(err.msg, "httpfs"));
	assert_one(d, "SELECT count(*)::text FROM duckdb_extensions() WHERE extension_name = 'httpfs' AND installed",
	           "0");
	rk_duck_free(d);
	rk_duck_free(NULL);
}

static void test_quote(void **state)
{
	rk_buf b = RK_BUF_INIT;

	rk_duck_quote(&b, "it's a/b");
	rk_buf_putc(&b, ' ');
	rk_duck_quote_ident(&b, "say \"hi\"");
	assert_string_equal(rk_buf_cstr(&b), "'it''s a/b' \"say \"\"hi\"\"\"");
	rk_buf_free(&b);
}

/* What rk_duck_each_string hands its callback: each row's text with its
 * length (a string past DuckDB's 12-byte inline limit too), NULL for a
 * NULL, across chunks; a callback's error stops the rows; a result that is
 * not one text column is refused before any row. */
struct seen {
	int rows, nulls, stop_at;
	size_t bytes;
	char last[64];
};

static int seen_row(void *ctx, const char *s, size_t len, rk_error *err)
{
	struct seen *sn = ctx;

	if (++sn->rows == sn->stop_at)
		return rk_error_set(err, RK_EXIT_RUNTIME, "stopped at row %d", sn->rows);
	if (!s) {
		sn->nulls++;
		return 0;
	}
	sn->bytes += len;
	snprintf(sn->last, sizeof sn->last, "%.*s", (int)len, s);
	return 0;
}

static void test_each_string(void **state)
{
	rk_duck *d = open_db();
	struct seen sn = { 0 };
	rk_error err;

	rk_error_clear(&err);
	assert_int_equal(rk_duck_each_string(rk_duck_conn(d),
	                                     "SELECT CASE WHEN i % 1000 = 0 THEN NULL ELSE 'row number ' || i::VARCHAR END "
	                                     "FROM range(1, 5001) t(i) ORDER BY i",
	                                     RK_EXIT_RUNTIME, "test", seen_row, &sn, &err),
	                 0);
	assert_int_equal(sn.rows, 5000);
	assert_int_equal(sn.nulls, 5);
	assert_string_equal(sn.last, "row number 4999");

	memset(&sn, 0, sizeof sn);
	sn.stop_at = 3;
	assert_int_equal(rk_duck_each_string(rk_duck_conn(d), "SELECT 'x' || i::VARCHAR FROM range(10) t(i)",
	                                     RK_EXIT_RUNTIME, "test", seen_row, &sn, &err),
	                 -1);
	assert_int_equal(sn.rows, 3);
	assert_string_equal(err.msg, "stopped at row 3");

	memset(&sn, 0, sizeof sn);
	assert_int_equal(rk_duck_each_string(rk_duck_conn(d), "SELECT 1", RK_EXIT_RUNTIME, "probe", seen_row, &sn, &err),
	                 -1);
	assert_string_equal(err.msg, "probe: expected one text column");
	assert_int_equal(rk_duck_each_string(rk_duck_conn(d), "SELECT 'a', 'b'", RK_EXIT_RUNTIME, "probe", seen_row,
	                                     &sn, &err),
	                 -1);
	assert_int_equal(sn.rows, 0);
	rk_duck_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_locked),
		cmocka_unit_test(test_no_network),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_each_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
