/*
 * test_keys.c - the changed columns of a changed key from its copies on
 * both sides (rk_keys_compare): copies alike pair off first, the columns
 * whose hashes differ are named once each, with each side's text, NULL
 * apart from the empty string, a cut text flagged, and no value kept with
 * --no-values.  No server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/keys.h"

#define NCOL 3

/* One copy: its row hash, and per column a hash (0: NULL) and a text. */
typedef struct copy {
	rk_u128 col[NCOL];
	bool null[NCOL];
	bool cut[NCOL];
	const char *text[NCOL];
	rk_kcopy k;
} copy;

static void mk(copy *c, rk_u128 row, const char *a, const char *b, const char *d)
{
	const char *v[NCOL] = { a, b, d };

	memset(c, 0, sizeof *c);
	for (int i = 0; i < NCOL; i++) {
		c->null[i] = v[i] == NULL;
		c->text[i] = v[i];
		/* the text's hash stands for its canonical encoding's */
		c->col[i] = v[i] ? rk_row_hash(v[i], strlen(v[i])) : 0;
	}
	c->k.row = row;
	c->k.col = c->col;
	c->k.null = c->null;
	c->k.text = c->text;
	c->k.cut = c->cut;
}

static rk_check_result *result(void)
{
	rk_check_result *r = rk_xcalloc(1, sizeof *r);

	r->nfindings = 1;
	r->findings = rk_xcalloc(1, sizeof *r->findings);
	r->findings[0].kind = RK_FIND_CHANGED;
	return r;
}

static void test_one_copy_each(void **state)
{
	rk_check_result *r = result();
	copy s, t;

	(void)state;
	mk(&s, 1, "7", "note 10", "");
	mk(&t, 2, "7", NULL, "x");
	rk_keys_compare(r, 0, NCOL, &s.k, 1, &t.k, 1, true);
	assert_int_equal(r->nchanges, 2);
	assert_int_equal(r->changes[0].column, 1);
	assert_string_equal(r->changes[0].value[0], "note 10");
	assert_null(r->changes[0].value[1]);
	assert_int_equal(r->changes[1].column, 2);
	assert_string_equal(r->changes[1].value[0], "");
	assert_string_equal(r->changes[1].value[1], "x");
	rk_check_result_free(r);
}

/* Two copies a side, one alike: only the other pair is compared; a column
 * that differs in both pairs is named once. */
static void test_alike_copies_pair_off(void **state)
{
	rk_check_result *r = result();
	copy s[3], t[3];
	rk_kcopy sk[3], tk[3];

	(void)state;
	mk(&s[0], 10, "1", "a", "b");
	mk(&s[1], 20, "2", "c", "d");
	mk(&t[0], 30, "2", "c", "e");
	mk(&t[1], 10, "1", "a", "b");
	sk[0] = s[0].k;
	sk[1] = s[1].k;
	tk[0] = t[0].k;
	tk[1] = t[1].k;
	rk_keys_compare(r, 0, NCOL, sk, 2, tk, 2, true);
	assert_int_equal(r->nchanges, 1);
	assert_int_equal(r->changes[0].column, 2);
	assert_string_equal(r->changes[0].value[0], "d");
	assert_string_equal(r->changes[0].value[1], "e");
	/* copies all alike: nothing changed */
	rk_keys_compare(r, 0, NCOL, sk, 2, (rk_kcopy[]){ s[1].k, s[0].k }, 2, true);
	assert_int_equal(r->nchanges, 1);
	/* three pairs, the same column in two: once */
	mk(&s[2], 40, "3", "f", "g");
	mk(&t[2], 50, "3", "f", "h");
	sk[2] = s[2].k;
	tk[2] = t[2].k;
	rk_keys_compare(r, 0, NCOL, sk, 3, (rk_kcopy[]){ t[1].k, t[0].k, t[2].k }, 3, true);
	assert_int_equal(r->nchanges, 2);
	assert_int_equal(r->changes[1].column, 2);
	rk_check_result_free(r);
}

/* A text cut at reading stays flagged; --no-values keeps the column only. */
static void test_cut_and_no_values(void **state)
{
	rk_check_result *r = result();
	copy s, t;

	(void)state;
	mk(&s, 1, "1", "short", "z");
	mk(&t, 2, "1", "long, cut", "z");
	t.cut[1] = true;
	rk_keys_compare(r, 0, NCOL, &s.k, 1, &t.k, 1, true);
	assert_int_equal(r->nchanges, 1);
	assert_false(r->changes[0].cut[0]);
	assert_true(r->changes[0].cut[1]);
	rk_keys_compare(r, 0, NCOL, &s.k, 1, &t.k, 1, false);
	assert_int_equal(r->nchanges, 2);
	assert_int_equal(r->changes[1].column, 1);
	assert_null(r->changes[1].value[0]);
	assert_null(r->changes[1].value[1]);
	rk_check_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_copy_each),
		cmocka_unit_test(test_alike_copies_pair_off),
		cmocka_unit_test(test_cut_and_no_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
