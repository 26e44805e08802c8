/*
 * test_pgsql.c - the PostgreSQL reader's statement text (io/pgsql.c), built
 * from a reader's bound columns without a server: the exact SQL of scans
 * (columns quoted, the side's filter wrapped, time ranges, key segments,
 * keys asked for by value, key bits), of window digests (grouped, by
 * reckon_windows, per foreign leaf) and of the drilldown's sub-digests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/keyspace.h"
#include "core/timeutil.h"
#include "io/pgreader_impl.h"
#include "io/sqltpl.h"

/* "mart"."orders" (id bigint, ts timestamptz, amount numeric, name text) */
static char *quoted[] = { "\"id\"", "\"ts\"", "\"amount\"", "\"name\"" };
static rk_type types[] = { RK_T_INT8, RK_T_TIMESTAMPTZ, RK_T_NUMERIC, RK_T_TEXT };

static rk_pgreader orders(void)
{
	rk_pgreader r;

	memset(&r, 0, sizeof r);
	r.qualified = "\"mart\".\"orders\"";
	r.desc = "source table mart.orders";
	r.ncols = 4;
	r.quoted = quoted;
	r.types = types;
	r.digest_schema = "\"ext\"";
	return r;
}

static rk_usec T(const char *s)
{
	rk_usec t;
	const char *why;

	assert_int_equal(rk_time_parse(s, strlen(s), &t, &why), 0);
	return t;
}

static void assert_scan(const rk_pgreader *r, const rk_scan *scan, bool binary, const char *want)
{
	rk_buf sql = RK_BUF_INIT;
	bool empty = true;

	rk_buf_puts(&sql, "left over from the last statement");
	rk_pgsql_scan(r, scan, binary, &sql, &empty);
	assert_false(empty);
	assert_string_equal(rk_buf_cstr(&sql), want);
	rk_buf_free(&sql);
}

static rk_scan one_range(const rk_range *g, size_t n)
{
	rk_scan s;

	memset(&s, 0, sizeof s);
	s.time_index = 1;
	s.ranges = g;
	s.nranges = n;
	return s;
}

static void test_literal(void **state)
{
	rk_buf b = RK_BUF_INIT;

	(void)state;
	rk_pgsql_literal(&b, "plain");
	rk_buf_puts(&b, "|");
	rk_pgsql_literal(&b, "it's");
	rk_buf_puts(&b, "|");
	/* a backslash: the escape string syntax, with a blank before it, as
	 * PQescapeLiteral writes it */
	rk_pgsql_literal(&b, "a\\b'c");
	rk_buf_puts(&b, "|");
	rk_pgsql_literal(&b, "");
	rk_buf_puts(&b, "|");
	rk_pgsql_literal(&b, "h\xc3\xa9");
	assert_string_equal(rk_buf_cstr(&b), "'plain'|'it''s'| E'a\\\\b''c'|''|'h\xc3\xa9'");
	rk_buf_free(&b);
}

static void test_scan_range(void **state)
{
	rk_pgreader r = orders();
	rk_range g = { T("2024-01-01T00:00:00Z"), T("2024-01-02T00:00:00Z") };
	rk_scan s = one_range(&g, 1);

	(void)state;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" >= "
	            "'2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-01-02 00:00:00.000000+00'::timestamptz))) TO STDOUT");
	assert_scan(&r, &s, true,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" >= "
	            "'2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-01-02 00:00:00.000000+00'::timestamptz))) TO STDOUT (FORMAT binary)");
}

static void test_scan_filter(void **state)
{
	rk_pgreader r = orders();
	rk_range g = { T("2024-01-01T00:00:00Z"), RK_USEC_PINF };
	rk_scan s = one_range(&g, 1);

	(void)state;
	/* the user's condition in parentheses, the closing one on a line of its
	 * own (a trailing "--" comment ends before it) */
	r.filter = rk_sql_filter("amount > 0 -- paid");
	s.include_null_time = true;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE (amount > 0 -- "
	            "paid\n) AND ((\"ts\" >= '2024-01-01 00:00:00.000000+00'::timestamptz) OR \"ts\" IS NULL)) TO "
	            "STDOUT");
	free(r.filter);
}

static void test_scan_timestamp_and_unbounded(void **state)
{
	rk_pgreader r = orders();
	rk_type local[] = { RK_T_INT8, RK_T_TIMESTAMP, RK_T_NUMERIC, RK_T_TEXT };
	rk_range all = { RK_USEC_NINF, RK_USEC_PINF };
	rk_range upto = { RK_USEC_NINF, T("2024-03-01T12:30:00.5Z") };
	rk_scan s = one_range(&all, 1);

	(void)state;
	r.types = local;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" IS NOT "
	            "NULL))) TO STDOUT");
	s.ranges = &upto;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" < "
	            "'2024-03-01 12:30:00.500000'::timestamp))) TO STDOUT");
}

static void test_scan_ranges_merge(void **state)
{
	rk_pgreader r = orders();
	rk_range g[] = {
		{ T("2024-01-01T00:00:00Z"), T("2024-01-02T00:00:00Z") },
		{ T("2024-01-02T00:00:00Z"), T("2024-01-03T00:00:00Z") }, /* touches the first */
		{ T("2024-01-05T00:00:00Z"), T("2024-01-05T00:00:00Z") }, /* empty: left out */
		{ T("2024-01-07T00:00:00Z"), T("2024-01-08T00:00:00Z") },
	};
	rk_scan s = one_range(g, 4);

	(void)state;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" >= "
	            "'2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-01-03 00:00:00.000000+00'::timestamptz) OR (\"ts\" >= "
	            "'2024-01-07 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-01-08 00:00:00.000000+00'::timestamptz))) TO STDOUT");
}

static void test_scan_too_many_ranges(void **state)
{
	rk_pgreader r = orders();
	rk_range g[RK_PGREADER_MAX_RANGES + 1];
	rk_scan s = one_range(g, RK_PGREADER_MAX_RANGES + 1);
	rk_usec day = T("2024-01-02T00:00:00Z") - T("2024-01-01T00:00:00Z");

	(void)state;
	/* every other day: none touch, one too many become their hull */
	for (size_t i = 0; i <= RK_PGREADER_MAX_RANGES; i++) {
		g[i].from = T("2024-01-01T00:00:00Z") + (rk_usec)(2 * i) * day;
		g[i].to = g[i].from + day;
	}
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" >= "
	            "'2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-05-09 00:00:00.000000+00'::timestamptz))) TO STDOUT");
}

static void test_scan_empty(void **state)
{
	rk_pgreader r = orders();
	rk_range g = { T("2024-01-01T00:00:00Z"), T("2024-01-01T00:00:00Z") };
	rk_scan s = one_range(&g, 1);
	rk_buf sql = RK_BUF_INIT;
	bool empty = false;

	(void)state;
	/* no row can be wanted: the scan is not run */
	rk_pgsql_scan(&r, &s, false, &sql, &empty);
	assert_true(empty);
	s.nranges = 0;
	empty = false;
	rk_pgsql_scan(&r, &s, false, &sql, &empty);
	assert_true(empty);
	rk_buf_free(&sql);
}

static void test_scan_time_not_a_time(void **state)
{
	rk_pgreader r = orders();
	rk_range g = { 10, 20 };
	rk_scan s = one_range(&g, 1);

	(void)state;
	/* a time column of no time type is not compared: the caller filters */
	s.time_index = 0;
	assert_scan(&r, &s, false, "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\") TO STDOUT");
}

static void test_scan_keys(void **state)
{
	rk_pgreader r = orders();
	rk_range g = { T("2024-01-01T00:00:00Z"), T("2024-01-02T00:00:00Z") };
	rk_scan s = one_range(&g, 1);
	size_t key[] = { 0, 3 };
	const char *keys[] = { "42", "it's", "-7", NULL, "8", "a\\b" };
	const char *bad[] = { "42", "x", "forty-two", "y" };

	(void)state;
	s.key_index = key;
	s.nkey = 2;
	s.key_text = keys;
	s.nkeys = 3;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" >= "
	            "'2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-01-02 00:00:00.000000+00'::timestamptz)) AND (((\"id\") = '42' AND (\"name\") = 'it''s') OR "
	            "((\"id\") = '-7' AND (\"name\") IS NULL) OR ((\"id\") = '8' AND (\"name\") =  E'a\\\\b'))) TO "
	            "STDOUT");
	/* a key this column cannot hold: asked for without keys */
	s.key_text = bad;
	s.nkeys = 2;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" >= "
	            "'2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-01-02 00:00:00.000000+00'::timestamptz))) TO STDOUT");
}

static void test_scan_keybits(void **state)
{
	rk_pgreader r = orders();
	rk_range g[] = {
		{ T("2024-01-01T00:00:00Z"), T("2024-01-02T00:00:00Z") },
		{ T("2024-01-02T00:00:00Z"), T("2024-01-03T00:00:00Z") },
	};
	rk_keybits kb[] = { { 3, 5 }, { 0, 0 } };
	rk_scan s = one_range(g, 2);
	size_t key[] = { 0 };

	(void)state;
	s.key_index = key;
	s.nkey = 1;
	s.keybits = kb;
	/* without reckon_key_hash the bits are the caller's to filter */
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" >= "
	            "'2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-01-03 00:00:00.000000+00'::timestamptz))) TO STDOUT");
	/* with it, ranges with bits stay apart */
	r.has_key_hash = true;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"ts\" >= "
	            "'2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-01-02 00:00:00.000000+00'::timestamptz AND (\"ext\".reckon_key_hash(\"id\") & "
	            "(7)::pg_catalog.int8) = (5)::pg_catalog.int8) OR (\"ts\" >= "
	            "'2024-01-02 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	            "'2024-01-03 00:00:00.000000+00'::timestamptz))) TO STDOUT");
}

static void test_scan_key_segments(void **state)
{
	rk_pgreader r = orders();
	rk_keyspace ks;
	const char *why;
	rk_range g = { 1000, 2000 };
	rk_range lo = { RK_KS_MIN, 5 };
	rk_scan s = one_range(&g, 1);

	(void)state;
	/* ranges of points on the key column, compared as its values */
	assert_int_equal(rk_keyspace_init(&ks, RK_T_INT8, &why), 0);
	r.ks = &ks;
	r.ks_col = 0;
	s.time_index = 0;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((\"id\" >= "
	            "'1000'::bigint AND \"id\" < '2000'::bigint))) TO STDOUT");
	s.ranges = &lo;
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", \"amount\", \"name\" FROM \"mart\".\"orders\" WHERE ((true AND \"id\" < "
	            "'5'::bigint))) TO STDOUT");
	/* texts as their UTF-8 bytes */
	assert_int_equal(rk_keyspace_init(&ks, RK_T_TEXT, &why), 0);
	s.time_index = 3;
	r.ks_col = 3;
	s.ranges = &g;
	{
		rk_buf sql = RK_BUF_INIT, v = RK_BUF_INIT;
		bool empty;

		assert_int_equal(rk_keyspace_bound(&ks, 1000, &v), RK_KSB_VALUE);
		rk_pgsql_scan(&r, &s, false, &sql, &empty);
		assert_false(empty);
		assert_non_null(strstr(rk_buf_cstr(&sql), "WHERE ((convert_to(\"name\", 'UTF8') >=  E'\\\\x"));
		assert_non_null(strstr(rk_buf_cstr(&sql), "'::bytea AND convert_to(\"name\", 'UTF8') <  E'\\\\x"));
		rk_buf_free(&sql);
		rk_buf_free(&v);
	}
}

/* A digest query of the day of *g in windows of an hour, hashing and
 * summing the columns given. */
static rk_digest_query day_query(rk_scan *s, rk_range *g, const size_t *hash, size_t nhash, const size_t *sum,
                                 size_t nsum)
{
	rk_digest_query q;

	*g = (rk_range){ T("2024-01-01T00:00:00Z"), T("2024-01-02T00:00:00Z") };
	*s = one_range(g, 1);
	memset(&q, 0, sizeof q);
	q.scan = s;
	q.hash_index = hash;
	q.nhash = nhash;
	q.sum_index = sum;
	q.nsum = nsum;
	q.from = g->from;
	q.width = (rk_usec)3600 * RK_USEC_PER_SEC;
	return q;
}

static void test_digest_args(void **state)
{
	size_t hash[] = { 0, 2 }, sum[] = { 2, 3 };
	rk_digest_query q;
	rk_pgsql_wargs wa;
	rk_scan s;
	rk_range g;

	(void)state;
	q = day_query(&s, &g, hash, 2, sum, 2);
	rk_pgsql_digest_args(&q, &wa);
	assert_int_equal(wa.n, 3);
	assert_string_equal(wa.roles, "hbs");
	assert_int_equal(wa.col[0], 0);
	assert_int_equal(wa.col[1], 2);
	assert_int_equal(wa.col[2], 3);
	free(wa.col);
	free(wa.roles);
}

static void assert_digest(const rk_pgreader *r, rk_digest_query *q, size_t slices, const char *want)
{
	rk_buf sql = RK_BUF_INIT;
	rk_pgsql_wargs wa;
	bool empty = true;

	q->slices = slices;
	rk_pgsql_digest_args(q, &wa);
	rk_pgsql_digest(r, q, &wa, &sql, &empty);
	assert_false(empty);
	assert_string_equal(rk_buf_cstr(&sql), want);
	free(wa.col);
	free(wa.roles);
	rk_buf_free(&sql);
}

static void test_digest_grouped(void **state)
{
	rk_pgreader r = orders();
	size_t hash[] = { 0, 2 }, sum[] = { 3, 2 };
	rk_digest_query q;
	rk_scan s;
	rk_range g;

	(void)state;
	/* extension 1.1: reckon_window grouped by window; sum j picks its
	 * argument's element among the summed ones */
	q = day_query(&s, &g, hash, 2, sum, 2);
	assert_digest(&r, &q, 4,
	              "COPY (SELECT w, d[1], d[2], d[4], d[3] FROM (SELECT (\"ext\".reckon_instant(\"ts\") - "
	              "(1704067200000000)::pg_catalog.int8) / (900000000)::pg_catalog.int8 AS w, "
	              "\"ext\".reckon_window('hbs'::pg_catalog.bytea, \"id\", \"amount\", \"name\") AS d FROM "
	              "\"mart\".\"orders\" WHERE ((\"ts\" >= '2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	              "'2024-01-02 00:00:00.000000+00'::timestamptz)) GROUP BY 1) AS s) TO STDOUT");
	assert_int_equal(q.slices, 4);
}

static void test_digest_ungrouped(void **state)
{
	rk_pgreader r = orders();
	size_t hash[] = { 0 }, sum[] = { 2 };
	rk_digest_query q;
	rk_scan s;
	rk_range g;

	(void)state;
	r.has_windows = true;
	r.filter = rk_sql_filter("id > 0");
	q = day_query(&s, &g, hash, 1, sum, 1);
	assert_digest(&r, &q, 0,
	              "COPY (SELECT w, d[1], d[2], d[3] FROM (SELECT (max(v) FILTER (WHERE c = 0))::pg_catalog.int8 AS "
	              "w, ARRAY[max(v) FILTER (WHERE c = 1), max(v) FILTER (WHERE c = 2), max(v) FILTER (WHERE c = 3)] "
	              "AS d FROM (SELECT (u.o - 1) / 4 AS r, (u.o - 1) % 4 AS c, u.v FROM (SELECT "
	              "\"ext\".reckon_windows((1704067200000000)::pg_catalog.int8, (3600000000)::pg_catalog.int8, "
	              "'hs'::pg_catalog.bytea, \"ts\", \"id\", \"amount\") AS d FROM \"mart\".\"orders\" WHERE (id > "
	              "0\n) AND ((\"ts\" >= '2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	              "'2024-01-02 00:00:00.000000+00'::timestamptz))) AS x, pg_catalog.unnest(x.d) WITH ORDINALITY AS "
	              "u(v, o)) AS y GROUP BY r) AS s) TO STDOUT");
	assert_int_equal(q.slices, 1);
	free(r.filter);
}

static void test_digest_foreign_leaves(void **state)
{
	rk_pgreader r = orders();
	char *leaves[] = { "\"mart\".\"orders_local\"", "\"mart\".\"orders_far\"" };
	bool foreign[] = { false, true };
	size_t hash[] = { 0 };
	rk_digest_query q;
	rk_scan s;
	rk_range g;

	(void)state;
	r.leaves = leaves;
	r.leaf_foreign = foreign;
	r.nleaves = 2;
	q = day_query(&s, &g, hash, 1, NULL, 0);
	/* two windows: the foreign leaf has a branch per window, no slices */
	g.to = T("2024-01-01T02:00:00Z");
	s.include_null_time = true;
	assert_digest(&r, &q, 8,
	              "COPY (SELECT w, d[1], d[2] FROM (SELECT (\"ext\".reckon_instant(\"ts\") - "
	              "(1704067200000000)::pg_catalog.int8) / (3600000000)::pg_catalog.int8 AS w, "
	              "\"ext\".reckon_window('h'::pg_catalog.bytea, \"id\") AS d FROM \"mart\".\"orders_local\" WHERE "
	              "((\"ts\" >= '2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	              "'2024-01-01 02:00:00.000000+00'::timestamptz) OR \"ts\" IS NULL) GROUP BY 1 UNION ALL SELECT "
	              "(0)::pg_catalog.int8 AS w, \"ext\".reckon_window('h'::pg_catalog.bytea, \"id\") AS d FROM "
	              "\"mart\".\"orders_far\" WHERE \"ts\" >= '2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < "
	              "'2024-01-01 01:00:00.000000+00'::timestamptz UNION ALL SELECT (1)::pg_catalog.int8 AS w, "
	              "\"ext\".reckon_window('h'::pg_catalog.bytea, \"id\") AS d FROM \"mart\".\"orders_far\" WHERE "
	              "\"ts\" >= '2024-01-01 01:00:00.000000+00'::timestamptz AND \"ts\" < "
	              "'2024-01-01 02:00:00.000000+00'::timestamptz UNION ALL SELECT NULL::pg_catalog.int8 AS w, "
	              "\"ext\".reckon_window('h'::pg_catalog.bytea, \"id\") AS d FROM \"mart\".\"orders_far\" WHERE "
	              "\"ts\" IS NULL) AS s) TO STDOUT");
	assert_int_equal(q.slices, 1);
}

static void test_drill(void **state)
{
	rk_pgreader r = orders();
	size_t hash[] = { 0, 2 }, key[] = { 0 };
	rk_drill_part parts[2];
	rk_drill_query q;
	rk_buf sql = RK_BUF_INIT;

	(void)state;
	r.has_key_hash = true;
	memset(parts, 0, sizeof parts);
	parts[0].lo = T("2024-01-01T00:00:00Z");
	parts[0].hi = T("2024-01-01T01:00:00Z");
	parts[0].width = (rk_usec)60 * RK_USEC_PER_SEC;
	parts[1].lo = T("2024-01-01T01:00:00Z");
	parts[1].hi = T("2024-01-01T01:00:01Z");
	parts[1].keybits = (rk_keybits){ 2, 1 };
	parts[1].more = 4;
	memset(&q, 0, sizeof q);
	q.time_index = 1;
	q.hash_index = hash;
	q.nhash = 2;
	q.key_index = key;
	q.nkey = 1;
	q.parts = parts;
	q.nparts = 2;
	rk_pgsql_drill(&r, &q, 0, 2, &sql);
	assert_string_equal(
	        rk_buf_cstr(&sql),
	        "COPY (SELECT n, p, d[1], d[2], a, b FROM (SELECT (0)::pg_catalog.int8 AS n, "
	        "(\"ext\".reckon_instant(\"ts\") - (1704067200000000)::pg_catalog.int8) / (60000000)::pg_catalog.int8 AS p, "
	        "\"ext\".reckon_window('hh'::pg_catalog.bytea, \"id\", \"amount\") AS d, min(\"ext\".reckon_instant(\"ts\")) "
	        "AS a, max(\"ext\".reckon_instant(\"ts\")) AS b FROM \"mart\".\"orders\" WHERE ((\"ts\" >= "
	        "'2024-01-01 00:00:00.000000+00'::timestamptz AND \"ts\" < '2024-01-01 01:00:00.000000+00'::timestamptz)) "
	        "GROUP BY 2 UNION ALL SELECT (1)::pg_catalog.int8 AS n, (\"ext\".reckon_key_hash(\"id\") >> 2) & "
	        "(15)::pg_catalog.int8 AS p, \"ext\".reckon_window('hh'::pg_catalog.bytea, \"id\", \"amount\") AS d, "
	        "min(\"ext\".reckon_instant(\"ts\")) AS a, max(\"ext\".reckon_instant(\"ts\")) AS b FROM "
	        "\"mart\".\"orders\" WHERE ((\"ts\" >= '2024-01-01 01:00:00.000000+00'::timestamptz AND \"ts\" < "
	        "'2024-01-01 01:00:01.000000+00'::timestamptz AND (\"ext\".reckon_key_hash(\"id\") & (3)::pg_catalog.int8) = "
	        "(1)::pg_catalog.int8)) GROUP BY 2) AS s) TO STDOUT");
	/* a part of no rows still takes its place in the statement */
	parts[0].hi = parts[0].lo;
	rk_pgsql_drill(&r, &q, 0, 1, &sql);
	assert_non_null(strstr(rk_buf_cstr(&sql), "FROM \"mart\".\"orders\" WHERE false GROUP BY 2) AS s) TO STDOUT"));
	rk_buf_free(&sql);
}

/* Large values out of band (pglarge.c): the text columns the scan marks,
 * NULL when large, and the marker column of their rows; not when the
 * reader cannot read a row again, nor for expressions, other types or a
 * bound no text reaches. */
static void test_scan_large(void **state)
{
	char *q[] = { "\"id\"", "\"ts\"", "\"note\"", "(lower(x)\n)", "\"amount\"", "\"memo\"" };
	rk_type t[] = { RK_T_INT8, RK_T_TIMESTAMPTZ, RK_T_TEXT, RK_T_TEXT, RK_T_NUMERIC, RK_T_TEXT };
	bool marks[] = { true, false, true, true, true, true };
	rk_pgreader r = orders();
	rk_scan s = one_range(NULL, 0);

	(void)state;
	r.ncols = 6;
	r.quoted = q;
	r.types = t;
	s.include_null_time = true;
	s.large_bound = 1000;
	s.large_cols = marks;
	/* no ctid to read a row again by: as without a bound */
	assert_scan(&r, &s, true,
	            "COPY (SELECT \"id\", \"ts\", \"note\", (lower(x)\n), \"amount\", \"memo\" FROM \"mart\".\"orders\" "
	            "WHERE (\"ts\" IS NULL)) TO STDOUT (FORMAT binary)");
	r.large_ok = true;
	assert_false(rk_pgsql_large_col(&r, &s, 0)); /* not a text */
	assert_false(rk_pgsql_large_col(&r, &s, 1)); /* not marked */
	assert_true(rk_pgsql_large_col(&r, &s, 2));
	assert_false(rk_pgsql_large_col(&r, &s, 3)); /* an expression */
	assert_true(rk_pgsql_large_col(&r, &s, 5));
	assert_scan(&r, &s, false,
	            "COPY (SELECT \"id\", \"ts\", CASE WHEN pg_catalog.octet_length(\"note\") >= 1000 THEN NULL ELSE \"note\" "
	            "END, (lower(x)\n), \"amount\", CASE WHEN pg_catalog.octet_length(\"memo\") >= 1000 THEN NULL ELSE \"memo\" "
	            "END, CASE WHEN pg_catalog.octet_length(\"note\") >= 1000 OR pg_catalog.octet_length(\"memo\") >= 1000 "
	            "THEN pg_catalog.concat_ws(' ', tableoid, ctid, CASE WHEN pg_catalog.octet_length(\"note\") >= 1000 THEN "
	            "pg_catalog.octet_length(\"note\") ELSE -1 END, CASE WHEN pg_catalog.octet_length(\"memo\") >= 1000 THEN "
	            "pg_catalog.octet_length(\"memo\") ELSE -1 END) END FROM \"mart\".\"orders\" WHERE (\"ts\" IS NULL)) "
	            "TO STDOUT");
	/* from a mebibyte up, only with a TOAST table holding data */
	s.large_bound = (size_t)1 << 20;
	assert_false(rk_pgsql_large_col(&r, &s, 2));
	r.large_toast = -1;
	assert_false(rk_pgsql_large_col(&r, &s, 2));
	r.large_toast = 1;
	assert_true(rk_pgsql_large_col(&r, &s, 2));
	/* no text reaches 2^31 bytes; no bound, no marks: none out of band */
	s.large_bound = (size_t)INT32_MAX + 1;
	assert_false(rk_pgsql_large_col(&r, &s, 2));
	s.large_bound = 0;
	assert_false(rk_pgsql_large_col(&r, &s, 2));
	s.large_bound = 1000;
	s.large_cols = NULL;
	assert_false(rk_pgsql_large_col(&r, &s, 2));
}

/* Reading a value back: by tableoid and ctid, converted to UTF-8 once,
 * cut into chunks of bytes. */
static void test_large_value(void **state)
{
	rk_pgreader r = orders();
	rk_buf sql = RK_BUF_INIT;

	(void)state;
	rk_buf_puts(&sql, "left over");
	rk_pgsql_large_value(&r, 3, &sql);
	assert_string_equal(rk_buf_cstr(&sql),
	                    "SELECT pg_catalog.substring(s.v, g * $3::pg_catalog.int4 + 1, $3::pg_catalog.int4) FROM "
	                    "(SELECT pg_catalog.convert_to(\"name\", 'UTF8') AS v FROM \"mart\".\"orders\" WHERE tableoid = "
	                    "$1::pg_catalog.oid AND ctid = $2::pg_catalog.tid OFFSET 0) AS s, LATERAL "
	                    "pg_catalog.generate_series(0, (pg_catalog.octet_length(s.v) - 1) / $3::pg_catalog.int4) AS g");
	rk_buf_free(&sql);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literal),
		cmocka_unit_test(test_scan_range),
		cmocka_unit_test(test_scan_large),
		cmocka_unit_test(test_large_value),
		cmocka_unit_test(test_scan_filter),
		cmocka_unit_test(test_scan_timestamp_and_unbounded),
		cmocka_unit_test(test_scan_ranges_merge),
		cmocka_unit_test(test_scan_too_many_ranges),
		cmocka_unit_test(test_scan_empty),
		cmocka_unit_test(test_scan_time_not_a_time),
		cmocka_unit_test(test_scan_keys),
		cmocka_unit_test(test_scan_keybits),
		cmocka_unit_test(test_scan_key_segments),
		cmocka_unit_test(test_digest_args),
		cmocka_unit_test(test_digest_grouped),
		cmocka_unit_test(test_digest_ungrouped),
		cmocka_unit_test(test_digest_foreign_leaves),
		cmocka_unit_test(test_drill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
