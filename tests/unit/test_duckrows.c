/*
 * test_duckrows.c - DuckDB values handed on as rk_fields (io/duckrows.h):
 * each one's encoding equals the canonical encoding reckon makes of the
 * text PostgreSQL prints for the same value (digest.md), so that a Delta
 * table and a PostgreSQL table of the same rows hash alike; and the forms
 * (an integer's value, a timestamp's instant, a decimal's exact value).
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
#include "core/canon.h"
#include "io/duck.h"
#include "io/duckrows.h"

/* One value of DuckDB SQL and the text PostgreSQL prints for it, read as
 * type t (NULL pg: SQL NULL). */
typedef struct probe {
	const char *duck;
	rk_type t;
	const char *pg;
} probe;

typedef struct got {
	rk_buf enc;
	rk_buf text; /* f.p points here after the row */
	rk_field f;
	size_t rows;
} got;

static int keep(void *ctx, const rk_field *fields, rk_error *err)
{
	got *g = ctx;

	(void)err;
	rk_buf_reset(&g->enc);
	rk_buf_append(&g->enc, fields[0].enc, fields[0].enc_len);
	rk_buf_reset(&g->text);
	rk_buf_append(&g->text, fields[0].p, fields[0].len);
	rk_buf_putc(&g->text, 0);
	g->f = fields[0];
	g->f.p = g->text.data;
	g->rows++;
	return 0;
}

/* Runs SELECT duck, decodes it as the Delta reader does (its cast first),
 * fills g with the one row's field and encoding; returns the column's type. */
static rk_type run(rk_duck *d, const char *duck, got *g)
{
	duckdb_connection con = rk_duck_conn(d);
	rk_buf sql = RK_BUF_INIT;
	duckdb_result res;
	duckdb_logical_type lt;
	duckdb_data_chunk chunk;
	rk_duckrows rows;
	const char *cast;
	rk_dcol how;
	rk_type t;
	rk_error err;
	int scale;

	rk_error_clear(&err);
	rk_buf_printf(&sql, "SELECT %s", duck);
	if (rk_duck_query(con, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "probe", &err) < 0)
		fail_msg("%s: %s", duck, err.msg);
	lt = duckdb_column_logical_type(&res, 0);
	rk_duckrows_type(lt, &t, &scale, &how, &cast);
	duckdb_destroy_logical_type(&lt);
	if (cast) {
		duckdb_destroy_result(&res);
		rk_buf_reset(&sql);
		rk_buf_printf(&sql, "SELECT CAST(%s AS %s)", duck, cast);
		if (rk_duck_query(con, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "probe", &err) < 0)
			fail_msg("%s: %s", duck, err.msg);
		rk_type t2;

		lt = duckdb_column_logical_type(&res, 0);
		/* read as the cast's type, typed as the first look said */
		rk_duckrows_type(lt, &t2, &scale, &how, &cast);
		duckdb_destroy_logical_type(&lt);
		assert_null(cast);
	}
	rk_duckrows_init(&rows, &t, &scale, &how, 1);
	g->rows = 0;
	while ((chunk = duckdb_fetch_chunk(res))) {
		if (rk_duckrows_chunk(&rows, chunk, keep, g, &err) < 0)
			fail_msg("%s: %s", duck, err.msg);
		duckdb_destroy_data_chunk(&chunk);
	}
	assert_int_equal(g->rows, 1);
	rk_duckrows_free(&rows);
	duckdb_destroy_result(&res);
	rk_buf_free(&sql);
	return t;
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

static void test_same_encoding_as_postgres_text(void **state)
{
	static const probe probes[] = {
		{ "1::BIGINT", RK_T_INT8, "1" },
		{ "(-9223372036854775808)::BIGINT", RK_T_INT8, "-9223372036854775808" },
		{ "-5::SMALLINT", RK_T_INT2, "-5" },
		{ "2147483647::INTEGER", RK_T_INT4, "2147483647" },
		{ "7::TINYINT", RK_T_INT2, "7" },
		{ "4294967295::UINTEGER", RK_T_INT8, "4294967295" },
		{ "18446744073709551615::UBIGINT", RK_T_NUMERIC, "18446744073709551615" },
		{ "12.50::DECIMAL(12,2)", RK_T_NUMERIC, "12.50" },
		{ "-0.05::DECIMAL(4,2)", RK_T_NUMERIC, "-0.05" },
		{ "0::DECIMAL(38,10)", RK_T_NUMERIC, "0.0000000000" },
		{ "-0.000000000000000000000000000000000026::DECIMAL(38,36)", RK_T_NUMERIC,
		  "-0.000000000000000000000000000000000026" },
		{ "12345678901234567890123456789012.345678::DECIMAL(38,6)", RK_T_NUMERIC,
		  "12345678901234567890123456789012.345678" },
		{ "1000::DECIMAL(9,0)", RK_T_NUMERIC, "1000" },
		{ "1.5::DOUBLE", RK_T_FLOAT8, "1.5" },
		{ "'-0'::DOUBLE", RK_T_FLOAT8, "-0" },
		{ "'NaN'::DOUBLE", RK_T_FLOAT8, "NaN" },
		{ "'-Infinity'::DOUBLE", RK_T_FLOAT8, "-Infinity" },
		{ "5e-324::DOUBLE", RK_T_FLOAT8, "5e-324" },
		{ "0.1::FLOAT", RK_T_FLOAT4, "0.1" },
		{ "'1e-45'::FLOAT", RK_T_FLOAT4, "1e-45" },
		{ "true", RK_T_BOOL, "t" },
		{ "'héllo, \"x\"'", RK_T_TEXT, "héllo, \"x\"" },
		{ "''", RK_T_TEXT, "" },
		{ "DATE '2026-03-02'", RK_T_DATE, "2026-03-02" },
		{ "DATE '0044-03-15'", RK_T_DATE, "0044-03-15" },
		{ "TIMESTAMPTZ '2026-03-02 10:58:00.5+00'", RK_T_TIMESTAMPTZ, "2026-03-02 10:58:00.5+00" },
		{ "TIMESTAMPTZ '1969-12-31 23:59:59.999999+00'", RK_T_TIMESTAMPTZ, "1969-12-31 23:59:59.999999+00" },
		{ "TIMESTAMP '2026-03-02 10:58:00'", RK_T_TIMESTAMP, "2026-03-02 10:58:00" },
		{ "TIMESTAMP_MS '2026-03-02 10:58:00.123'", RK_T_TIMESTAMP, "2026-03-02 10:58:00.123" },
		{ "TIMESTAMP_NS '2026-03-02 10:58:00.123456'", RK_T_TIMESTAMP, "2026-03-02 10:58:00.123456" },
		{ "'B8A2F6C2-0000-4000-8000-00000000ABCD'::UUID", RK_T_UUID, "b8a2f6c2-0000-4000-8000-00000000abcd" },
		{ "'\\x01\\xFF\\x00'::BLOB", RK_T_OTHER, "\\x01ff00" },
		{ "NULL::INTEGER", RK_T_INT4, NULL },
		{ "NULL::VARCHAR", RK_T_TEXT, NULL },
	};
	rk_duck *d = open_db();
	got g = { RK_BUF_INIT, RK_BUF_INIT, { 0 }, 0 };
	rk_buf want = RK_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
		const probe *p = &probes[i];
		const char *why = NULL;
		rk_type t = run(d, p->duck, &g);

		if (t != p->t)
			fail_msg("%s: type %s, want %s", p->duck, rk_type_name(t), rk_type_name(p->t));
		rk_buf_reset(&want);
		if (!p->pg)
			rk_canon_enc_null(&want);
		else if (rk_canon_enc_value(p->t, p->pg, strlen(p->pg), &want, &why) < 0)
			fail_msg("%s: %s", p->pg, why);
		if (want.len != g.enc.len || memcmp(want.data, g.enc.data, want.len) != 0)
			fail_msg("%s: encoded as '%.*s', PostgreSQL's '%s' as '%.*s'", p->duck, (int)g.enc.len - 5,
			         g.enc.data + 5, p->pg ? p->pg : "NULL", (int)want.len - 5, want.data + 5);
	}
	rk_buf_free(&want);
	rk_buf_free(&g.enc);
	rk_buf_free(&g.text);
	rk_duck_free(d);
}

/* The forms the checker reads without parsing: integers, instants, exact
 * decimals; a float keeps the text PostgreSQL prints for it. */
static void test_forms(void **state)
{
	rk_duck *d = open_db();
	got g = { RK_BUF_INIT, RK_BUF_INIT, { 0 }, 0 };

	(void)state;
	run(d, "-42::BIGINT", &g);
	assert_int_equal(g.f.form, RK_FORM_INT);
	assert_true(g.f.m == -42);
	run(d, "TIMESTAMPTZ '2026-03-02 10:58:00.5+00'", &g);
	assert_int_equal(g.f.form, RK_FORM_INSTANT);
	assert_true(g.f.m == INT64_C(1772449080500000));
	run(d, "12.50::DECIMAL(12,2)", &g);
	assert_int_equal(g.f.form, RK_FORM_CANON);
	assert_true(g.f.exact);
	assert_true(g.f.m == 125);
	assert_int_equal(g.f.scale, 1);
	assert_int_equal(g.f.len, 4);
	assert_memory_equal(g.f.p, "12.5", 4);
	run(d, "0.30000000000000004::DOUBLE", &g);
	assert_int_equal(g.f.form, RK_FORM_TEXT);
	assert_int_equal(g.f.len, 19);
	assert_memory_equal(g.f.p, "0.30000000000000004", 19);
	run(d, "'infinity'::TIMESTAMPTZ", &g);
	assert_int_equal(g.f.form, RK_FORM_TEXT);
	assert_memory_equal(g.f.p, "infinity", 8);
	run(d, "[1, 2]", &g);
	assert_memory_equal(g.f.p, "[1, 2]", 6);
	rk_buf_free(&g.enc);
	rk_buf_free(&g.text);
	rk_duck_free(d);
}

/* A float's text is what PostgreSQL prints for it (float8out / float4out:
 * the shortest digits that read back as the same value, in positional
 * notation for decimal exponents -4 to 14, -4 to 5 for a real, else
 * d.ddde+XX): a Delta side's float key or value then reads as the
 * PostgreSQL side's text of it. */
static void test_float_text(void **state)
{
	static const struct {
		const char *duck, *pg;
	} probes[] = {
		{ "100::DOUBLE", "100" },
		{ "1200000::DOUBLE", "1200000" },
		{ "123456789012345::DOUBLE", "123456789012345" },
		{ "1e14::DOUBLE", "100000000000000" },
		{ "1e15::DOUBLE", "1e+15" },
		{ "1.5e300::DOUBLE", "1.5e+300" },
		{ "0.0001::DOUBLE", "0.0001" },
		{ "0.00001::DOUBLE", "1e-05" },
		{ "-2.5e-7::DOUBLE", "-2.5e-07" },
		{ "0.1::DOUBLE", "0.1" },
		{ "0.30000000000000004::DOUBLE", "0.30000000000000004" },
		{ "1.7976931348623157e308::DOUBLE", "1.7976931348623157e+308" },
		{ "5e-324::DOUBLE", "5e-324" },
		{ "0::DOUBLE", "0" },
		{ "'-0'::DOUBLE", "-0" },
		{ "100::FLOAT", "100" },
		{ "123456::FLOAT", "123456" },
		{ "1000000::FLOAT", "1e+06" },
		{ "16777216::FLOAT", "1.6777216e+07" },
		{ "0.1::FLOAT", "0.1" },
		{ "3.4028235e38::FLOAT", "3.4028235e+38" },
		{ "'1e-45'::FLOAT", "1e-45" },
	};
	rk_duck *d = open_db();
	got g = { RK_BUF_INIT, RK_BUF_INIT, { 0 }, 0 };

	(void)state;
	for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
		run(d, probes[i].duck, &g);
		if (strcmp(g.f.p, probes[i].pg) != 0)
			fail_msg("%s: text '%s', PostgreSQL prints '%s'", probes[i].duck, g.f.p, probes[i].pg);
	}
	rk_buf_free(&g.enc);
	rk_buf_free(&g.text);
	rk_duck_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_encoding_as_postgres_text),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_float_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
