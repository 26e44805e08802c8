/*
 * test_dest.c - which target columns repair and load write, and from what
 * (load/dest.c, rk_wmap_build): the whole row by default, a target column
 * carrying a logical column by a bare-name mapping, source expressions,
 * --exclude-columns and --columns, CSV headers, and the refusals - a target
 * expression, an uncovered NOT NULL column without a default, a key or time
 * column that is not written.  The target is described by hand: no server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "load/dest.h"

/* A target table of up to 8 columns, described by hand. */
typedef struct fake_target {
	rk_dest d;
	char *cols[8];
	char *base[8];
	bool generated[8], identity[8], has_default[8], not_null[8];
} fake_target;

/* cols: "name" or "name!" (NOT NULL) or "name!=" (NOT NULL with a
 * default), "name*" (generated), "name#" (identity). */
static void target(fake_target *t, const char *const *cols)
{
	memset(t, 0, sizeof *t);
	t->d.side = "target";
	t->d.display = "mart.fact";
	t->d.cols = t->cols;
	t->d.base = t->base;
	t->d.generated = t->generated;
	t->d.identity = t->identity;
	t->d.has_default = t->has_default;
	t->d.not_null = t->not_null;
	for (size_t i = 0; cols[i]; i++) {
		char *c = strdup(cols[i]);
		size_t n = strcspn(c, "!=*#");

		t->not_null[i] = strchr(cols[i], '!') != NULL;
		t->has_default[i] = strchr(cols[i], '=') != NULL;
		t->generated[i] = strchr(cols[i], '*') != NULL;
		t->identity[i] = strchr(cols[i], '#') != NULL;
		c[n] = '\0';
		t->cols[i] = c;
		t->base[i] = "text";
		t->d.ncols++;
	}
}

static void target_free(fake_target *t)
{
	for (size_t i = 0; i < t->d.ncols; i++)
		free(t->cols[i]);
}

typedef struct pair_in {
	rk_reader_opts src, tgt;
	rk_wmap_in in;
} pair_in;

/* The pair: source columns, source and target mappings ("name=sql"
 * alternating name, sql), key, time. */
static void pair(pair_in *p, const fake_target *t, char *const *src, size_t nsrc, const char *const *smap,
                 size_t nsmap, const char *const *tmap, size_t ntmap, const char *const *key, size_t nkey,
                 const char *time)
{
	static const char *snames[8], *ssql[8], *tnames[8], *tsql[8];

	memset(p, 0, sizeof *p);
	for (size_t i = 0; i < nsmap; i++) {
		snames[i] = smap[2 * i];
		ssql[i] = smap[2 * i + 1];
	}
	for (size_t i = 0; i < ntmap; i++) {
		tnames[i] = tmap[2 * i];
		tsql[i] = tmap[2 * i + 1];
	}
	p->src.expr_names = snames;
	p->src.expr_sql = ssql;
	p->src.nexpr = nsmap;
	p->tgt.expr_names = tnames;
	p->tgt.expr_sql = tsql;
	p->tgt.nexpr = ntmap;
	p->in.cmd = "repair";
	p->in.target = &t->d;
	p->in.interval_col = -1;
	p->in.source = &p->src;
	p->in.target_side = &p->tgt;
	p->in.src_cols = src;
	p->in.nsrc = nsrc;
	p->in.src_desc = "source table shop.orders";
	p->in.key = key;
	p->in.nkey = nkey;
	p->in.time = time;
}

/* "tcol<-logical" for each written column, joined by spaces. */
static char *written(const rk_wmap *m, const fake_target *t)
{
	static char out[512];

	out[0] = '\0';
	for (size_t i = 0; i < m->n; i++) {
		strcat(out, i ? " " : "");
		strcat(out, t->cols[m->c[i].tcol]);
		if (strcmp(t->cols[m->c[i].tcol], m->c[i].logical)) {
			strcat(out, "<-");
			strcat(out, m->c[i].logical);
		}
	}
	return out;
}

static const char *const KEY[] = { "id" };

static void test_whole_row_by_name(void **state)
{
	static const char *const cols[] = { "id!", "ts!", "amount", "loaded_at!=", "total*", NULL };
	char *src[] = { "id", "ts", "amount", "is_test" };
	fake_target t;
	pair_in p;
	rk_wmap m;
	rk_error err;

	(void)state;
	target(&t, cols);
	pair(&p, &t, src, 4, NULL, 0, NULL, 0, KEY, 1, "ts");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
	assert_string_equal(written(&m, &t), "id ts amount");
	assert_int_equal(m.nkey, 1);
	assert_int_equal(m.c[m.key[0]].tcol, 0);
	assert_int_equal(m.c[m.time].tcol, 1);
	assert_int_equal(m.c[2].sexpr, -1);
	assert_int_equal(m.c[2].scol, 2);
	assert_string_equal(m.c[2].bind, "amount");
	rk_wmap_free(&m);
	target_free(&t);
}

static void test_mappings(void **state)
{
	/* the source says id/ts/amount_cents; the target's note is memo */
	static const char *const cols[] = { "order_id!", "created_at!", "amount", "memo", "origin!=", NULL };
	static const char *const smap[] = { "order_id", "id", "created_at", "ts", "amount", "amount_cents / 100.0" };
	static const char *const tmap[] = { "note", " memo " };
	static const char *const key[] = { "order_id" };
	char *src[] = { "id", "ts", "amount_cents", "note", "origin_code" };
	fake_target t;
	pair_in p;
	rk_wmap m;
	rk_error err;

	(void)state;
	target(&t, cols);
	pair(&p, &t, src, 5, smap, 3, tmap, 1, key, 1, "created_at");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
	assert_string_equal(written(&m, &t), "order_id created_at amount memo<-note");
	assert_int_equal(m.c[2].sexpr, 2);
	assert_string_equal(m.c[2].bind, "amount");
	assert_int_equal(m.c[3].sexpr, -1);
	assert_int_equal(m.c[3].scol, 3);
	rk_wmap_free(&m);
	target_free(&t);
}

static void test_target_expression_refused(void **state)
{
	static const char *const cols[] = { "id!", "ts!", "amount_cents", NULL };
	static const char *const tmap[] = { "amount", "amount_cents / 100.0" };
	static const char *const tmap2[] = { "other", "upper(x)" };
	char *src[] = { "id", "ts", "amount" };
	fake_target t;
	pair_in p;
	rk_wmap m;
	rk_error err;

	(void)state;
	target(&t, cols);
	pair(&p, &t, src, 3, NULL, 0, tmap, 1, KEY, 1, "ts");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_string_equal(err.msg, "--target-expr amount=amount_cents / 100.0 is an expression, not a column of "
	                             "mart.fact: repair cannot write it");
	rk_wmap_free(&m);
	/* a mapping of a column the source does not have is no business of
	 * the write */
	pair(&p, &t, src, 3, NULL, 0, tmap2, 1, KEY, 1, "ts");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
	assert_string_equal(written(&m, &t), "id ts");
	rk_wmap_free(&m);
	/* nor of one left out */
	{
		static const char *const ex[] = { "amount" };

		pair(&p, &t, src, 3, NULL, 0, tmap, 1, KEY, 1, "ts");
		p.in.exclude = ex;
		p.in.nexclude = 1;
		assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
		rk_wmap_free(&m);
	}
	target_free(&t);
}

static void test_uncovered_not_null(void **state)
{
	static const char *const bad[] = { "id!", "ts!", "batch_id!", NULL };
	static const char *const ok[] = { "id!", "ts!", "batch_id!=", "seq!#", "gen!*", "note", NULL };
	static const char *const smap[] = { "batch_id", "7" };
	char *src[] = { "id", "ts" };
	fake_target t;
	pair_in p;
	rk_wmap m;
	rk_error err;

	(void)state;
	target(&t, bad);
	pair(&p, &t, src, 2, NULL, 0, NULL, 0, KEY, 1, "ts");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), -1);
	assert_string_equal(err.msg, "target column batch_id of mart.fact is NOT NULL and has no default, and no "
	                             "logical column covers it: the rows repair inserts would leave it NULL");
	rk_wmap_free(&m);
	/* covered by a mapping */
	pair(&p, &t, src, 2, smap, 1, NULL, 0, KEY, 1, "ts");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
	assert_string_equal(written(&m, &t), "id ts batch_id");
	rk_wmap_free(&m);
	/* or the interval column, which the command writes itself */
	pair(&p, &t, src, 2, NULL, 0, NULL, 0, KEY, 1, "ts");
	p.in.interval_col = 2;
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
	rk_wmap_free(&m);
	target_free(&t);
	/* a default, an identity, a generated column, a nullable one: fine */
	target(&t, ok);
	pair(&p, &t, src, 2, NULL, 0, NULL, 0, KEY, 1, "ts");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
	assert_string_equal(written(&m, &t), "id ts");
	rk_wmap_free(&m);
	target_free(&t);
}

static void test_exclude_and_only(void **state)
{
	static const char *const cols[] = { "id", "ts", "a", "b", "loaded_at", NULL };
	static const char *const ex[] = { "loaded_at", "id" };
	static const char *const only[] = { "b" };
	char *src[] = { "id", "ts", "a", "b", "loaded_at" };
	fake_target t;
	pair_in p;
	rk_wmap m;
	rk_error err;

	(void)state;
	target(&t, cols);
	pair(&p, &t, src, 5, NULL, 0, NULL, 0, KEY, 1, "ts");
	p.in.exclude = ex;
	p.in.nexclude = 2;
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
	/* the key is written even when excluded from the hash */
	assert_string_equal(written(&m, &t), "id ts a b");
	rk_wmap_free(&m);
	pair(&p, &t, src, 5, NULL, 0, NULL, 0, KEY, 1, "ts");
	p.in.only = only;
	p.in.nonly = 1;
	p.in.cmd = "load";
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
	assert_string_equal(written(&m, &t), "id ts b");
	rk_wmap_free(&m);
	target_free(&t);
}

static void test_csv_headers(void **state)
{
	static const char *const cols[] = { "id", "ts", "Amount", "note", NULL };
	static const char *const key[] = { "ID" };
	char *src[] = { "ID", "ts", "Amount", "Note", "NOTE" };
	fake_target t;
	pair_in p;
	rk_wmap m;
	rk_error err;

	(void)state;
	target(&t, cols);
	pair(&p, &t, src, 5, NULL, 0, NULL, 0, key, 1, "ts");
	p.in.src_csv = true;
	/* ID matches id case-insensitively, "Amount" exactly; note is
	 * ambiguous (Note, NOTE) and not written */
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), 0);
	assert_string_equal(written(&m, &t), "id ts Amount<-\"Amount\"");
	assert_string_equal(m.c[0].bind, "ID");
	assert_string_equal(m.c[2].bind, "Amount");
	rk_wmap_free(&m);
	target_free(&t);
}

static void test_key_and_time_must_be_written(void **state)
{
	static const char *const cols[] = { "id", "line_no", "ts", "gen*", NULL };
	static const char *const key[] = { "id", "line_no" };
	static const char *const genkey[] = { "gen" };
	char *src[] = { "id", "line_no", "created", "gen" };
	fake_target t;
	pair_in p;
	rk_wmap m;
	rk_error err;

	(void)state;
	target(&t, cols);
	pair(&p, &t, src, 4, NULL, 0, NULL, 0, key, 2, "ts");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), -1);
	assert_string_equal(err.msg, "time column 'ts' of target table mart.fact is not a column of source table "
	                             "shop.orders");
	rk_wmap_free(&m);
	pair(&p, &t, src, 4, NULL, 0, NULL, 0, key, 2, "nope");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), -1);
	assert_string_equal(err.msg, "time column 'nope' does not exist in target table mart.fact");
	assert_non_null(strstr(err.hint, "mart.fact has 4 columns: id, line_no, ts, gen"));
	rk_wmap_free(&m);
	pair(&p, &t, src, 4, NULL, 0, NULL, 0, key, 2, "created");
	p.in.interval_col = 1;
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), -1);
	assert_string_equal(err.msg, "--interval-column line_no is also a key column");
	rk_wmap_free(&m);
	pair(&p, &t, src, 4, NULL, 0, NULL, 0, genkey, 1, "id");
	assert_int_equal(rk_wmap_build(&p.in, &m, &err), -1);
	assert_string_equal(err.hint, "it is a generated column of the target");
	rk_wmap_free(&m);
	target_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_row_by_name),
		cmocka_unit_test(test_mappings),
		cmocka_unit_test(test_target_expression_refused),
		cmocka_unit_test(test_uncovered_not_null),
		cmocka_unit_test(test_exclude_and_only),
		cmocka_unit_test(test_csv_headers),
		cmocka_unit_test(test_key_and_time_must_be_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
