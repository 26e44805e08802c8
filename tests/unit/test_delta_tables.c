/*
 * test_delta_tables.c - the Delta reader (io/delta.h) against the 16 tables
 * of ../shared/data/delta, written by Spark/Delta, Databricks and delta-rs,
 * read in place.
 *
 * For the 11 tables that carry Spark's own read output (_expected/<name>/,
 * from delta-kernel-rs' golden data) every row and every column of the
 * view must equal Spark's: EXCEPT ALL both ways over the logical columns
 * (a row missing, doubled or with one value different fails), and the
 * column names and types are compared too.  The 5 others (delta-rs and
 * Delta's own test tables) have no such output; their rows are checked
 * against what their upstream tests assert (README of the data directory).
 *
 * The data directory is $RK_DELTA_TABLES, else shared/data/delta found
 * from the working directory upwards (the work tree's parent, or its
 * grandparent for a git worktree).  Its absence fails the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/buf.h"
#include "io/delta.h"
#include "io/duck.h"

static char data[4096];

static void find_data(void)
{
	const char *env = getenv("RK_DELTA_TABLES");
	const char *tries[] = { "shared/data/delta", "../shared/data/delta", "../../shared/data/delta",
		                "../../../shared/data/delta" };
	struct stat st;

	if (data[0])
		return;
	if (env && *env) {
		snprintf(data, sizeof data, "%s", env);
		return;
	}
	for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		if (stat(tries[i], &st) == 0 && S_ISDIR(st.st_mode) && realpath(tries[i], data))
			return;
	}
	fail_msg("the shared Delta tables are not found: set RK_DELTA_TABLES to their directory "
	         "(../shared/data/delta of the main work tree)");
}

/* The first value of the first row of sql, as text (caller frees), "NULL"
 * for NULL. */
static char *one(duckdb_connection con, const char *sql)
{
	duckdb_result res;
	rk_error err;
	char *v, *copy;

	rk_error_clear(&err);
	if (rk_duck_query(con, sql, &res, RK_EXIT_RUNTIME, "test", &err) < 0)
		fail_msg("%s\n-> %s", sql, err.msg);
	assert_true(duckdb_row_count(&res) >= 1);
	v = duckdb_value_varchar(&res, 0, 0);
	copy = strdup(v ? v : "NULL");
	duckdb_free(v);
	duckdb_destroy_result(&res);
	return copy;
}

static void expect(duckdb_connection con, const char *sql, const char *want)
{
	char *got = one(con, sql);

	if (strcmp(got, want) != 0)
		fail_msg("%s\n-> %s, expected %s", sql, got, want);
	free(got);
}

typedef struct opened {
	rk_duck *duck;
	rk_delta *d;
} opened;

static void open_table(const char *path, const char *zone, opened *o)
{
	rk_delta_spec spec;
	rk_delta_options opt = { .partition_zone = zone };
	rk_error err;
	char conn[4200];

	rk_error_clear(&err);
	if (rk_duck_open(&o->duck, 2, &err) < 0)
		fail_msg("%s", err.msg);
	snprintf(conn, sizeof conn, "delta:%s", path);
	assert_int_equal(rk_delta_spec_parse(conn, "--source", &spec, &err), 0);
	if (rk_delta_open(o->duck, &spec, &opt, &o->d, &err) < 0)
		fail_msg("%s: %s (exit %d)", path, err.msg, err.code);
	rk_delta_spec_clear(&spec);
	if (rk_delta_view(o->d, rk_duck_conn(o->duck), "t", NULL, 0, &err) < 0)
		fail_msg("%s: view: %s", path, err.msg);
}

static void close_table(opened *o)
{
	rk_delta_free(o->d);
	rk_duck_free(o->duck);
}

/* The view of table name equals Spark's read of it, row for row. */
static void same_as_spark(const char *name, const char *zone)
{
	rk_buf sql = RK_BUF_INIT, cols = RK_BUF_INIT, ecols = RK_BUF_INIT, exp = RK_BUF_INIT;
	char path[4200], *n;
	opened o;

	find_data();
	snprintf(path, sizeof path, "%s/%s", data, name);
	open_table(path, zone, &o);
	rk_buf_printf(&exp, "read_parquet('%s/_expected/%s/*.parquet')", data, name);
	for (size_t i = 0; i < rk_delta_ncolumns(o.d); i++) {
		const rk_delta_column *c = rk_delta_column_at(o.d, i);

		rk_buf_printf(&cols, "%s\"%s\"", i ? ", " : "", c->name);
		rk_buf_printf(&ecols, "%sCAST(\"%s\" AS %s)", i ? ", " : "", c->name, c->duck_type);
		/* Spark's output has the same column under the same type */
		rk_buf_reset(&sql);
		rk_buf_printf(&sql, "SELECT typeof(\"%s\") FROM %s LIMIT 1", c->name, rk_buf_cstr(&exp));
		n = one(rk_duck_conn(o.duck), rk_buf_cstr(&sql));
		rk_buf_reset(&sql);
		rk_buf_printf(&sql, "SELECT typeof(\"%s\") FROM t LIMIT 1", c->name);
		expect(rk_duck_conn(o.duck), rk_buf_cstr(&sql), n);
		free(n);
	}
	/* the same number of columns as Spark's output */
	rk_buf_reset(&sql);
	rk_buf_printf(&sql, "SELECT count(*)::VARCHAR FROM (DESCRIBE SELECT * FROM %s)", rk_buf_cstr(&exp));
	n = one(rk_duck_conn(o.duck), rk_buf_cstr(&sql));
	assert_int_equal(atoi(n), (int)rk_delta_ncolumns(o.d));
	free(n);
	/* the same rows: nothing in one and not the other, duplicates counted */
	rk_buf_reset(&sql);
	rk_buf_printf(&sql,
	              "SELECT (SELECT count(*) FROM t)::VARCHAR || ' ' || (SELECT count(*) FROM %s)::VARCHAR || ' ' || "
	              "(SELECT count(*) FROM (SELECT %s FROM t EXCEPT ALL SELECT %s FROM %s))::VARCHAR || ' ' || "
	              "(SELECT count(*) FROM (SELECT %s FROM %s EXCEPT ALL SELECT %s FROM t))::VARCHAR",
	              rk_buf_cstr(&exp), rk_buf_cstr(&cols), rk_buf_cstr(&ecols), rk_buf_cstr(&exp), rk_buf_cstr(&ecols),
	              rk_buf_cstr(&exp), rk_buf_cstr(&cols));
	n = one(rk_duck_conn(o.duck), rk_buf_cstr(&sql));
	{
		long rows_t, rows_e, only_t, only_e;

		assert_int_equal(sscanf(n, "%ld %ld %ld %ld", &rows_t, &rows_e, &only_t, &only_e), 4);
		if (rows_t != rows_e || only_t || only_e)
			fail_msg("%s: %ld rows read, Spark %ld; %ld rows only in ours, %ld only in Spark's", name, rows_t,
			         rows_e, only_t, only_e);
		assert_true(rows_t > 0);
	}
	free(n);
	rk_buf_free(&sql);
	rk_buf_free(&cols);
	rk_buf_free(&ecols);
	rk_buf_free(&exp);
	close_table(&o);
}

static void test_basic_with_inserts_deletes_checkpoint(void **state)
{
	same_as_spark("basic-with-inserts-deletes-checkpoint", NULL);
}

static void test_multi_part_checkpoint(void **state)
{
	same_as_spark("multi-part-checkpoint", NULL);
}

static void test_v2_checkpoint_parquet(void **state)
{
	same_as_spark("v2-checkpoint-parquet", NULL);
}

static void test_dv_partitioned_with_checkpoint(void **state)
{
	same_as_spark("dv-partitioned-with-checkpoint", NULL);
}

static void test_dv_with_columnmapping(void **state)
{
	same_as_spark("dv-with-columnmapping", NULL);
}

static void test_log_replay_dv_key_cases(void **state)
{
	same_as_spark("log-replay-dv-key-cases", NULL);
}

static void test_table_with_columnmapping_mode_id(void **state)
{
	same_as_spark("table-with-columnmapping-mode-id", NULL);
}

/* Written from America/Los_Angeles: its zoneless partition timestamps are
 * that zone's wall clock ("Partition Value Serialization"). */
static void test_data_reader_partition_values(void **state)
{
	same_as_spark("data-reader-partition-values", "America/Los_Angeles");
}

/* Read in UTC (the default) the same partition timestamp is 7 hours off
 * Spark's: the zone matters, and the default is UTC. */
static void test_data_reader_partition_values_utc(void **state)
{
	char path[4200];
	opened o;

	find_data();
	snprintf(path, sizeof path, "%s/data-reader-partition-values", data);
	open_table(path, NULL, &o);
	expect(rk_duck_conn(o.duck), "SELECT sum(epoch_us(as_timestamp))::VARCHAR FROM t", "3262198942000000");
	close_table(&o);
	open_table(path, "America/Los_Angeles", &o);
	expect(rk_duck_conn(o.duck), "SELECT sum(epoch_us(as_timestamp))::VARCHAR FROM t", "3262249342000000");
	/* the NULL partition (JSON null, __HIVE_DEFAULT_PARTITION__ on disk)
	 * and the literal string "null" */
	expect(rk_duck_conn(o.duck), "SELECT count(*)::VARCHAR FROM t WHERE as_int IS NULL AND as_timestamp IS NULL",
	       "1");
	expect(rk_duck_conn(o.duck), "SELECT count(*)::VARCHAR FROM t WHERE as_string_lit_null = 'null'", "2");
	close_table(&o);
}

static void test_decimal_various_scale_precision(void **state)
{
	same_as_spark("decimal-various-scale-precision", NULL);
}

static void test_data_reader_timestamp_ntz(void **state)
{
	same_as_spark("data-reader-timestamp_ntz", NULL);
}

static void test_basic_with_inserts_overwrite_restore(void **state)
{
	same_as_spark("basic-with-inserts-overwrite-restore", NULL);
}

/* ---- the tables without Spark output: their upstream tests' assertions ---- */

static void rows_are(const char *name, int64_t version, const char *sql, const char *want)
{
	char path[4200];
	opened o;

	find_data();
	snprintf(path, sizeof path, "%s/%s", data, name);
	open_table(path, NULL, &o);
	assert_int_equal(rk_delta_version(o.d), version);
	expect(rk_duck_conn(o.duck), sql, want);
	close_table(&o);
}

/* delta-rs load_cdf.rs: ids 1..10 written, 7 deleted at version 3; the
 * _change_data files are not rows of the table */
static void test_cdf_table(void **state)
{
	rows_are("cdf-table", 3, "SELECT string_agg(id::VARCHAR, ',' ORDER BY id) || ' ' || sum(id) FROM t",
	         "1,2,3,4,5,6,8,9,10 48");
}

/* delta-rs: a delta-rs-written checkpoint at 0 and commit 1 */
static void test_python_checkpoint(void **state)
{
	rows_are("python-0.25.5-checkpoint", 1, "SELECT count(*) || ' ' || sum(x) FROM t", "6 12");
}

/* Databricks: a `u` deletion vector deleting rows 0 and 9 of 0..9 */
static void test_table_with_dv_small(void **state)
{
	rows_are("table-with-dv-small", 1, "SELECT string_agg(value::VARCHAR, ',' ORDER BY value) FROM t",
	         "1,2,3,4,5,6,7,8");
}

/* the same bitmap inline (storage type `i`, Z85) */
static void test_dv_inline_small(void **state)
{
	rows_are("dv-inline-small", 1, "SELECT string_agg(value::VARCHAR, ',' ORDER BY value) FROM t",
	         "1,2,3,4,5,6,7,8");
}

/* Delta's table-with-dv-special-char: a `p` (absolute path) DV in a folder
 * named "folder&with%special char"; the log is a template, filled here in a
 * copy with the folder's absolute path, percent-encoded. */
static void test_dv_absolute_path(void **state)
{
	char tmp[] = "/tmp/rk-delta-abs.XXXXXX", cmd[8192], logf[4300];
	rk_buf text = RK_BUF_INIT, enc = RK_BUF_INIT;
	const char *mark = "{{FOLDER_WITH_SPECIAL_CHAR}}", *p;
	char buf[4096];
	size_t n;
	FILE *f;
	opened o;

	find_data();
	assert_non_null(mkdtemp(tmp));
	snprintf(cmd, sizeof cmd, "cp -R '%s/dv-absolute-path-template' '%s/t'", data, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "chmod -R u+w '%s/t'", tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(logf, sizeof logf, "%s/t/_delta_log/00000000000000000000.json", tmp);
	f = fopen(logf, "rb");
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		rk_buf_append(&text, buf, n);
	fclose(f);
	snprintf(buf, sizeof buf, "%s/t/folder&with%%special char", tmp);
	for (p = buf; *p; p++) {
		if (*p == '&' || *p == '%' || *p == ' ')
			rk_buf_printf(&enc, "%%%02X", (unsigned char)*p);
		else
			rk_buf_putc(&enc, *p);
	}
	p = strstr(rk_buf_cstr(&text), mark);
	assert_non_null(p);
	f = fopen(logf, "wb");
	assert_non_null(f);
	fwrite(text.data, 1, (size_t)(p - text.data), f);
	fwrite(enc.data, 1, enc.len, f);
	fputs(p + strlen(mark), f);
	assert_int_equal(fclose(f), 0);

	snprintf(logf, sizeof logf, "%s/t", tmp);
	open_table(logf, NULL, &o);
	expect(rk_duck_conn(o.duck), "SELECT string_agg(id::VARCHAR, ',' ORDER BY id) FROM t", "1,3,5,7,9");
	close_table(&o);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
	rk_buf_free(&text);
	rk_buf_free(&enc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic_with_inserts_deletes_checkpoint),
		cmocka_unit_test(test_multi_part_checkpoint),
		cmocka_unit_test(test_v2_checkpoint_parquet),
		cmocka_unit_test(test_dv_partitioned_with_checkpoint),
		cmocka_unit_test(test_dv_with_columnmapping),
		cmocka_unit_test(test_log_replay_dv_key_cases),
		cmocka_unit_test(test_table_with_columnmapping_mode_id),
		cmocka_unit_test(test_data_reader_partition_values),
		cmocka_unit_test(test_data_reader_partition_values_utc),
		cmocka_unit_test(test_decimal_various_scale_precision),
		cmocka_unit_test(test_data_reader_timestamp_ntz),
		cmocka_unit_test(test_basic_with_inserts_overwrite_restore),
		cmocka_unit_test(test_cdf_table),
		cmocka_unit_test(test_python_checkpoint),
		cmocka_unit_test(test_table_with_dv_small),
		cmocka_unit_test(test_dv_inline_small),
		cmocka_unit_test(test_dv_absolute_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
