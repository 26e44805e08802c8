/*
 * test_deltawriter.c - the Delta writer (io/deltawriter.h): every table
 * written here is read back by reckon's Delta reader and by DuckDB's
 * Parquet reader of its data files, and its log checked for the protocol's
 * rules (tests/harness/deltacheck.h).  New tables, appends, deletes that
 * rewrite files (also through a deletion vector Spark wrote), partitions,
 * the stats, a transaction that changes nothing making no commit, lost
 * commit races (retried on a blind append, refused with the version named
 * when the read set changed), a failed commit leaving the table as it was,
 * and the refused tables (exit 2 naming the writer features).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/buf.h"
#include "deltacheck.h"
#include "../hooks/hooks.h"
#include "io/delta.h"
#include "io/deltawriter.h"
#include "io/duck.h"

static char tmp[64];
static rk_duck *duck;

static int setup(void **state)
{
	rk_error err;

	strcpy(tmp, "/tmp/rk-dwriter.XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	rk_error_clear(&err);
	return rk_duck_open(&duck, 1, &err);
}

static int teardown(void **state)
{
	char cmd[128];

	rk_duck_free(duck);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static char *path(const char *name)
{
	static char p[4][512];
	static int next;
	char *out = p[next++ % 4];

	snprintf(out, sizeof p[0], "%s/%s", tmp, name);
	return out;
}

static void sql(const char *q)
{
	rk_error err;

	rk_error_clear(&err);
	if (rk_duck_query(rk_duck_conn(duck), q, NULL, RK_EXIT_RUNTIME, "test", &err) < 0)
		fail_msg("%s", err.msg);
}

static char *value(const char *q)
{
	static char out[4096];
	duckdb_result res;
	rk_error err;
	char *v;

	rk_error_clear(&err);
	if (rk_duck_query(rk_duck_conn(duck), q, &res, RK_EXIT_RUNTIME, "test", &err) < 0)
		fail_msg("%s", err.msg);
	v = duckdb_value_varchar(&res, 0, 0);
	snprintf(out, sizeof out, "%s", v ? v : "NULL");
	duckdb_free(v);
	duckdb_destroy_result(&res);
	return out;
}

/* The checker passes the table. */
static void assert_valid(const char *root)
{
	rk_buf report = RK_BUF_INIT;
	int n = rk_test_delta_check(root, &report);

	if (n != 0)
		fail_msg("the table does not pass the checker:\n%s", rk_buf_cstr(&report));
	rk_buf_free(&report);
}

/* Reads the table's latest snapshot into view "got". */
static int64_t read_back(const char *root)
{
	rk_delta_spec spec = { .path = (char *)root, .version = -1 };
	rk_delta *d;
	rk_error err;
	int64_t v;

	rk_error_clear(&err);
	if (rk_delta_open(duck, &spec, NULL, &d, &err) < 0)
		fail_msg("%s", err.msg);
	if (rk_delta_view(d, rk_duck_conn(duck), "got", NULL, 0, &err) < 0)
		fail_msg("%s", err.msg);
	v = rk_delta_version(d);
	rk_delta_free(d);
	return v;
}

/* The table holds exactly the rows of query want (EXCEPT ALL both ways). */
static void assert_rows(const char *root, const char *want)
{
	char q[4096];

	read_back(root);
	snprintf(q, sizeof q, "SELECT (SELECT count(*) FROM (FROM got EXCEPT ALL FROM (%s))) || ',' || "
	                      "(SELECT count(*) FROM (FROM (%s) EXCEPT ALL FROM got))",
	         want, want);
	assert_string_equal(value(q), "0,0");
}

static size_t count_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name), s = strlen(suffix);

		n += l >= s && strcmp(de->d_name + l - s, suffix) == 0;
	}
	closedir(d);
	return n;
}

static char *slurp(const char *file)
{
	static char buf[1 << 16];
	FILE *f = fopen(file, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static const char *log_file(const char *root, int v)
{
	static char p[512];

	snprintf(p, sizeof p, "%s/_delta_log/%020d.json", root, v);
	return p;
}

#define ROWS1                                                                                                     \
	"SELECT 'T-0' || i AS id, TIMESTAMPTZ '2026-03-02 09:00:00+00' + i * INTERVAL 7 minute + i * INTERVAL 1 " \
	"microsecond AS updated_at, CAST(i * 1.25 AS DECIMAL(12,2)) AS amount, CASE WHEN i = 3 THEN NULL ELSE i " \
	"END::BIGINT AS n, CASE WHEN i = 2 THEN '-0.0'::DOUBLE ELSE i / 3 END AS x, i % 2 = 0 AS flag, DATE "     \
	"'2026-03-01' + i::INTEGER AS day FROM range(1, 6) r(i)"

static rk_dw *open_writer(const char *root)
{
	rk_dw *w;
	rk_error err;

	rk_error_clear(&err);
	if (rk_dw_open(duck, root, NULL, &w, &err) < 0)
		fail_msg("%s", err.msg);
	return w;
}

static int64_t commit(rk_dw *w, const char *op)
{
	rk_dw_result res;
	rk_error err;
	const char *params[] = { "mode", "Append", NULL };

	rk_error_clear(&err);
	if (rk_dw_commit(w, op, params, &res, &err) < 0)
		fail_msg("%s", err.msg);
	return res.version;
}

/* A new table from ROWS1 at root, version 0. */
static void create_table(const char *root)
{
	rk_dw *w = open_writer(root);
	rk_error err;
	int64_t rows;

	assert_null(rk_dw_snapshot(w));
	sql("CREATE OR REPLACE TEMP TABLE rows1 AS " ROWS1);
	rk_error_clear(&err);
	assert_int_equal(rk_dw_create(w, "rows1", NULL, 0, &err), 0);
	assert_int_equal(rk_dw_append(w, "rows1", &rows, &err), 0);
	assert_int_equal(rows, 5);
	assert_int_equal(commit(w, "CREATE TABLE AS SELECT"), 0);
	rk_dw_free(w);
}

static void test_new_table(void **state)
{
	const char *root = path("t1");
	const char *log;

	create_table(root);
	assert_valid(root);
	assert_rows(root, "FROM rows1");
	log = slurp(log_file(root, 0));
	/* commitInfo first, then protocol 1/2 and metaData, then the add */
	assert_int_equal(strncmp(log, "{\"commitInfo\":", 14), 0);
	assert_non_null(strstr(log, "\"engineInfo\":\"reckon/"));
	assert_non_null(strstr(log, "\"operation\":\"CREATE TABLE AS SELECT\""));
	assert_non_null(strstr(log, "\"operationParameters\":{\"mode\":\"Append\"}"));
	assert_non_null(strstr(log, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}"));
	assert_non_null(strstr(log, "\\\"type\\\":\\\"decimal(12,2)\\\""));
	assert_non_null(strstr(log, "\\\"type\\\":\\\"timestamp\\\""));
	assert_non_null(strstr(log, "\"partitionColumns\":[]"));
	assert_non_null(strstr(log, "\"createdTime\":"));
	/* exact stats: decimals as written, timestamps to the microsecond,
	 * the NULL counted, -0.0 kept apart (no dictionary) */
	assert_non_null(strstr(log, "\\\"minValues\\\":{\\\"id\\\":\\\"T-01\\\""));
	assert_non_null(strstr(log, "\\\"updated_at\\\":\\\"2026-03-02T09:07:00.000001Z\\\""));
	assert_non_null(strstr(log, "\\\"updated_at\\\":\\\"2026-03-02T09:35:00.000005Z\\\""));
	assert_non_null(strstr(log, "\\\"amount\\\":6.25"));
	assert_non_null(strstr(log, "\\\"nullCount\\\":{\\\"id\\\":0,\\\"updated_at\\\":0,\\\"amount\\\":0,\\\"n\\\":1"));
	read_back(root);
	assert_string_equal(value("SELECT count(*) FROM got WHERE x = 0 AND sign(x) = 0 AND "
	                          "CAST(x AS VARCHAR) = '-0.0'"),
	                    "1");
	/* a version of a new table is never written twice: a second create fails */
	{
		rk_dw *w = open_writer(root);
		rk_error err;

		rk_error_clear(&err);
		assert_non_null(rk_dw_snapshot(w));
		assert_int_equal(rk_dw_create(w, "rows1", NULL, 0, &err), -1);
		rk_dw_free(w);
	}
}

static void test_append_and_delete(void **state)
{
	const char *root = path("t2");
	rk_dw *w;
	rk_error err;
	int64_t n;

	create_table(root);
	w = open_writer(root);
	sql("CREATE OR REPLACE TEMP TABLE rows2 AS SELECT 'T-1' || i AS id, TIMESTAMPTZ '2026-03-02 11:00:00+00' + "
	    "i * INTERVAL 1 minute AS updated_at, CAST(i AS DECIMAL(12,2)) AS amount FROM range(0, 3) r(i)");
	rk_error_clear(&err);
	assert_int_equal(rk_dw_append(w, "rows2", &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(commit(w, "WRITE"), 1);
	rk_dw_free(w);
	assert_valid(root);

	/* a delete rewrites the files that hold a match, only those */
	w = open_writer(root);
	rk_error_clear(&err);
	assert_int_equal(rk_dw_delete(w, "id IN ('T-02', 'T-04')", NULL, 0, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(commit(w, "DELETE"), 2);
	rk_dw_free(w);
	assert_valid(root);
	assert_rows(root, "SELECT * FROM rows1 WHERE id NOT IN ('T-02', 'T-04') UNION ALL "
	                  "SELECT *, NULL::BIGINT, NULL::DOUBLE, NULL::BOOLEAN, NULL::DATE FROM rows2");
	{
		const char *log = slurp(log_file(root, 2));

		assert_non_null(strstr(log, "\"operation\":\"DELETE\""));
		assert_non_null(strstr(log, "{\"remove\":"));
		assert_non_null(strstr(log, "\"deletionTimestamp\":"));
		assert_non_null(strstr(log, "\"readVersion\":1"));
		assert_non_null(strstr(log, "\"isBlindAppend\":false"));
		/* the second file held no match: one remove, one add */
		assert_null(strstr(strstr(log, "{\"remove\":") + 1, "{\"remove\":"));
	}

	/* a delete that matches nothing makes no commit */
	w = open_writer(root);
	rk_error_clear(&err);
	assert_int_equal(rk_dw_delete(w, "id = 'nope'", NULL, 0, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(commit(w, "DELETE"), -1);
	rk_dw_free(w);
	assert_int_equal(count_files(path("t2/_delta_log"), ".json"), 3);

	/* deleting every row of a file removes it and adds nothing */
	w = open_writer(root);
	rk_error_clear(&err);
	assert_int_equal(rk_dw_delete(w, "id LIKE 'T-1%'", NULL, 0, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(commit(w, "DELETE"), 3);
	rk_dw_free(w);
	assert_valid(root);
	assert_rows(root, "SELECT * FROM rows1 WHERE id NOT IN ('T-02', 'T-04')");
	assert_null(strstr(slurp(log_file(root, 3)), "{\"add\":"));
}

static void test_partitioned(void **state)
{
	const char *root = path("t3");
	const char *parts[] = { "region" };
	rk_dw *w = open_writer(root);
	rk_error err;
	int64_t n;

	sql("CREATE OR REPLACE TEMP TABLE prow AS SELECT i AS id, CASE WHEN i % 3 = 0 THEN NULL WHEN i % 3 = 1 "
	    "THEN 'north' ELSE 'so''uth/%' END AS region, TIMESTAMP '2026-01-01 00:00:00' + i * INTERVAL 1 hour AS "
	    "local_ts FROM range(0, 10) r(i)");
	rk_error_clear(&err);
	assert_int_equal(rk_dw_create(w, "prow", parts, 1, &err), 0);
	assert_int_equal(rk_dw_append(w, "prow", &n, &err), 0);
	assert_int_equal(n, 10);
	assert_int_equal(commit(w, "WRITE"), 0);
	rk_dw_free(w);
	assert_valid(root);
	assert_rows(root, "FROM prow");
	{
		const char *log = slurp(log_file(root, 0));

		/* timestamp_ntz needs table features */
		assert_non_null(strstr(log, "\"readerFeatures\":[\"timestampNtz\"]"));
		assert_non_null(strstr(log, "\"partitionColumns\":[\"region\"]"));
		assert_non_null(strstr(log, "\"partitionValues\":{\"region\":null}"));
		assert_non_null(strstr(log, "\"partitionValues\":{\"region\":\"so'uth/%\"}"));
	}
	/* a delete in one partition rewrites that partition's file with its value */
	w = open_writer(root);
	rk_error_clear(&err);
	assert_int_equal(rk_dw_delete(w, "id = 4", NULL, 0, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(commit(w, "DELETE"), 1);
	rk_dw_free(w);
	assert_valid(root);
	assert_rows(root, "FROM prow WHERE id <> 4");
}

/* A table Spark wrote with a deletion vector: a rewrite drops its deleted rows too. */
static void test_rewrite_through_dv(void **state)
{
	const char *tries[] = { "../shared/data/delta/table-with-dv-small", "../../shared/data/delta/table-with-dv-small",
		                "shared/data/delta/table-with-dv-small" };
	const char *root = path("dv");
	const char *env = getenv("RK_DELTA_TABLES");
	char src[4096] = "", cmd[8192];
	struct stat st;
	rk_dw *w;
	rk_error err;
	int64_t n;

	if (env && *env)
		snprintf(src, sizeof src, "%s/table-with-dv-small", env);
	for (size_t i = 0; !src[0] && i < sizeof tries / sizeof tries[0]; i++)
		if (stat(tries[i], &st) == 0)
			snprintf(src, sizeof src, "%s", tries[i]);
	if (!src[0])
		fail_msg("the shared Delta tables are not found: set RK_DELTA_TABLES");
	snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", src, root);
	assert_int_equal(system(cmd), 0);
	read_back(root);
	sql("CREATE OR REPLACE TEMP TABLE before AS FROM got");
	assert_string_equal(value("SELECT count(*) FROM before"), "8"); /* 10 rows, 2 deleted by the DV */
	w = open_writer(root);
	rk_error_clear(&err);
	assert_int_equal(rk_dw_delete(w, "value = 5", NULL, 0, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(commit(w, "DELETE"), 2);
	rk_dw_free(w);
	assert_rows(root, "FROM before WHERE value <> 5");
	/* the remove names the DV, so that it reconciles with Spark's add */
	assert_non_null(strstr(slurp(log_file(root, 2)), "\"deletionVector\":"));
	assert_valid(root);
}

static void test_lost_race_blind_append_retried(void **state)
{
	const char *root = path("race1");
	rk_dw *a, *b;
	rk_dw_result res;
	rk_error err;
	int64_t n;

	create_table(root);
	a = open_writer(root);
	b = open_writer(root);
	sql("CREATE OR REPLACE TEMP TABLE ra AS SELECT 'A' AS id");
	sql("CREATE OR REPLACE TEMP TABLE rb AS SELECT 'B' AS id");
	rk_error_clear(&err);
	assert_int_equal(rk_dw_append(a, "ra", &n, &err), 0);
	assert_int_equal(rk_dw_append(b, "rb", &n, &err), 0);
	assert_int_equal(commit(a, "WRITE"), 1);
	/* b read version 0 too; version 1 is taken: b's blind append goes to 2 */
	assert_int_equal(rk_dw_commit(b, "WRITE", NULL, &res, &err), 0);
	assert_int_equal(res.version, 2);
	assert_int_equal(res.retries, 1);
	rk_dw_free(a);
	rk_dw_free(b);
	assert_valid(root);
	read_back(root);
	assert_string_equal(value("SELECT string_agg(id, ',' ORDER BY id) FROM got WHERE id IN ('A', 'B')"), "A,B");
	/* version 1 is a's, untouched */
	assert_non_null(strstr(slurp(log_file(root, 1)), "\"readVersion\":0"));
}

static void test_lost_race_conflict(void **state)
{
	const char *root = path("race2");
	char *log2;
	rk_dw *a, *b;
	rk_dw_result res;
	rk_error err;
	int64_t n;
	size_t before;

	create_table(root);
	a = open_writer(root);
	b = open_writer(root);
	rk_error_clear(&err);
	/* a deletes T-01 (removing the only file); b deletes T-05 from the same file */
	assert_int_equal(rk_dw_delete(a, "id = 'T-01'", NULL, 0, &n, &err), 0);
	assert_int_equal(rk_dw_delete(b, "id = 'T-05'", NULL, 0, &n, &err), 0);
	assert_int_equal(commit(a, "DELETE"), 1);
	before = count_files(root, ".parquet");
	assert_int_equal(rk_dw_commit(b, "DELETE", NULL, &res, &err), -1);
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	assert_non_null(strstr(err.msg, "version 1 of Delta table"));
	assert_non_null(strstr(err.msg, "(DELETE)"));
	assert_non_null(strstr(err.msg, "which this write read"));
	/* nothing of b's stays: no version 2, its data file removed */
	assert_int_equal(count_files(path("race2/_delta_log"), ".json"), 2);
	assert_int_equal(count_files(path("race2/_delta_log"), ".tmp"), 0);
	assert_int_equal(count_files(root, ".parquet"), before - 1);
	rk_dw_free(a);
	rk_dw_free(b);
	assert_valid(root);
	assert_rows(root, "FROM rows1 WHERE id <> 'T-01'");

	/* a write that deleted conflicts with a concurrent append as well */
	a = open_writer(root);
	b = open_writer(root);
	sql("CREATE OR REPLACE TEMP TABLE ra AS SELECT 'A' AS id");
	assert_int_equal(rk_dw_append(a, "ra", &n, &err), 0);
	assert_int_equal(rk_dw_delete(b, "id = 'T-05'", NULL, 0, &n, &err), 0);
	assert_int_equal(commit(a, "WRITE"), 2);
	assert_int_equal(rk_dw_commit(b, "DELETE", NULL, &res, &err), -1);
	assert_non_null(strstr(err.msg, "version 2 of Delta table"));
	assert_non_null(strstr(err.msg, "it added"));
	rk_dw_free(a);
	rk_dw_free(b);
	log2 = slurp(log_file(root, 2));
	assert_null(strstr(log2, "{\"remove\":"));
	assert_valid(root);
}

static void test_failed_commit_leaves_table(void **state)
{
	const char *root = path("fault");
	rk_dw *w;
	rk_dw_result res;
	rk_error err;
	int64_t n;
	size_t files;

	create_table(root);
	files = count_files(root, ".parquet");
	w = open_writer(root);
	sql("CREATE OR REPLACE TEMP TABLE ra AS SELECT 'A' AS id");
	rk_error_clear(&err);
	assert_int_equal(rk_dw_append(w, "ra", &n, &err), 0);
	setenv(RK_FAULT_ENV, "delta-commit-staged:fail", 1);
	assert_int_equal(rk_dw_commit(w, "WRITE", NULL, &res, &err), -1);
	unsetenv(RK_FAULT_ENV);
	rk_dw_free(w);
	assert_int_equal(read_back(root), 0);
	assert_int_equal(count_files(path("fault/_delta_log"), ".tmp"), 0);
	assert_int_equal(count_files(root, ".parquet"), files);
	assert_valid(root);
}

/* Writes a version 0 with the given protocol and metaData configuration/field metadata. */
static void hand_table(const char *root, const char *protocol, const char *conf, const char *field_md)
{
	char d[600], line[4096], md[1024];
	size_t k = 0;
	FILE *f;

	/* field_md goes inside the schemaString, itself a JSON string */
	for (const char *p = field_md; *p && k + 2 < sizeof md; p++) {
		if (*p == '"' || *p == '\\')
			md[k++] = '\\';
		md[k++] = *p;
	}
	md[k] = 0;

	snprintf(d, sizeof d, "%s/_delta_log", root);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(d, 0755), 0);
	f = fopen(log_file(root, 0), "w");
	assert_non_null(f);
	snprintf(line, sizeof line,
	         "{\"commitInfo\":{\"timestamp\":1,\"operation\":\"CREATE TABLE\"}}\n{\"protocol\":%s}\n"
	         "{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
	         "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"long\\\","
	         "\\\"nullable\\\":true,\\\"metadata\\\":%s}]}\",\"partitionColumns\":[],\"configuration\":%s}}\n",
	         protocol, md, conf);
	fputs(line, f);
	fclose(f);
}

static void assert_refused(const char *root, const char *needle)
{
	rk_dw *w;
	rk_error err;

	rk_error_clear(&err);
	assert_int_equal(rk_dw_open(duck, root, NULL, &w, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	if (!strstr(err.msg, needle))
		fail_msg("'%s' does not name %s", err.msg, needle);
}

static void test_refusals(void **state)
{
	rk_dw *w;
	rk_error err;
	int64_t n;

	hand_table(path("f1"),
	           "{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":[],\"writerFeatures\":"
	           "[\"invariants\",\"checkConstraints\",\"generatedColumns\",\"identityColumns\",\"rowTracking\","
	           "\"clustering\",\"inCommitTimestamp\",\"catalogManaged\",\"someFutureFeature\",\"appendOnly\"]}",
	           "{}", "{}");
	assert_refused(path("f1"), "writer features this writer does not implement: invariants, checkConstraints, "
	                           "generatedColumns, identityColumns, rowTracking, clustering, inCommitTimestamp, "
	                           "catalogManaged, someFutureFeature");
	hand_table(path("f2"), "{\"minReaderVersion\":1,\"minWriterVersion\":2}", "{}",
	           "{\"delta.invariants\":\"{\\\"expression\\\":{\\\"expression\\\":\\\"a > 0\\\"}}\"}");
	assert_refused(path("f2"), "feature this writer does not implement: invariants");
	hand_table(path("f3"), "{\"minReaderVersion\":1,\"minWriterVersion\":3}", "{\"delta.constraints.pos\":\"a > 0\"}",
	           "{}");
	assert_refused(path("f3"), "checkConstraints");
	hand_table(path("f4"), "{\"minReaderVersion\":1,\"minWriterVersion\":4}", "{}",
	           "{\"delta.generationExpression\":\"1\"}");
	assert_refused(path("f4"), "generatedColumns");
	hand_table(path("f5"), "{\"minReaderVersion\":1,\"minWriterVersion\":6}", "{}",
	           "{\"delta.identity.start\":1,\"delta.identity.step\":1}");
	assert_refused(path("f5"), "identityColumns");
	hand_table(path("f6"), "{\"minReaderVersion\":1,\"minWriterVersion\":8}", "{}", "{}");
	assert_refused(path("f6"), "writer version 8");
	hand_table(path("f7"), "{\"minReaderVersion\":1,\"minWriterVersion\":4}", "{\"delta.enableChangeDataFeed\":\"true\"}",
	           "{}");
	assert_refused(path("f7"), "changeDataFeed");
	/* a legacy version whose features the table does not use is written */
	hand_table(path("ok"), "{\"minReaderVersion\":1,\"minWriterVersion\":4}", "{}", "{}");
	w = open_writer(path("ok"));
	rk_dw_free(w);

	/* append-only: appends yes, deletes no */
	hand_table(path("ao"), "{\"minReaderVersion\":1,\"minWriterVersion\":2}", "{\"delta.appendOnly\":\"true\"}",
	           "{}");
	sql("CREATE OR REPLACE TEMP TABLE ao AS SELECT 1::BIGINT AS a");
	w = open_writer(path("ao"));
	rk_error_clear(&err);
	assert_int_equal(rk_dw_append(w, "ao", &n, &err), 0);
	assert_int_equal(commit(w, "WRITE"), 1);
	rk_dw_free(w);
	w = open_writer(path("ao"));
	assert_int_equal(rk_dw_delete(w, "a = 1", NULL, 0, &n, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "append-only"));
	rk_dw_free(w);

	/* a column the table lacks, a type Delta lacks */
	w = open_writer(path("ao"));
	sql("CREATE OR REPLACE TEMP TABLE extra AS SELECT 1::BIGINT AS a, 2 AS b");
	assert_int_equal(rk_dw_append(w, "extra", &n, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "column b is not in the schema"));
	rk_dw_free(w);
	w = open_writer(path("new"));
	sql("CREATE OR REPLACE TEMP TABLE odd AS SELECT INTERVAL 1 day AS span");
	assert_int_equal(rk_dw_create(w, "odd", NULL, 0, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "column span"));
	rk_dw_free(w);
	/* the shared CDF table: Spark's, change data feed on */
	{
		const char *env = getenv("RK_DELTA_TABLES");
		char p[4096];
		struct stat st;

		snprintf(p, sizeof p, "%s/cdf-table", env && *env ? env : "../shared/data/delta");
		if (stat(p, &st) == 0)
			assert_refused(p, "changeDataFeed");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_table),
		cmocka_unit_test(test_append_and_delete),
		cmocka_unit_test(test_partitioned),
		cmocka_unit_test(test_rewrite_through_dv),
		cmocka_unit_test(test_lost_race_blind_append_retried),
		cmocka_unit_test(test_lost_race_conflict),
		cmocka_unit_test(test_failed_commit_leaves_table),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
