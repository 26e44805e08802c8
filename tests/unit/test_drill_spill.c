/*
 * test_drill_spill.c - the verify pass's rows through a spill
 * (check/drill_spill.h): a row's record gives its fields back; records sort
 * as rk_drow_cmp sorts rows, stably, held in memory or spilled past a bound
 * of one byte; the target's records join the source's as source rows after
 * them; the tallies of time-split windows take the copies, first time,
 * span and display text of their keys' runs of rows, and the others are
 * left as they were.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/drill_spill.h"
#include "core/buf.h"

#define NKEY 2

/* the display encoding of a key of two texts, the second SQL NULL when b is */
static void disp_put(rk_buf *out, const char *a, const char *b)
{
	const char *v[NKEY] = { a, b };

	for (int i = 0; i < NKEY; i++) {
		uint32_t len;

		if (!v[i]) {
			rk_buf_putc(out, 0);
			continue;
		}
		len = (uint32_t)strlen(v[i]);
		rk_buf_putc(out, 1);
		rk_buf_append(out, &len, 4);
		rk_buf_append(out, v[i], len);
	}
}

/* adds row r with display text (a, b) to sp */
static void add(rk_spill *sp, const rk_drow *r, const char *a, const char *b)
{
	rk_buf rec = RK_BUF_INIT;
	rk_error err;

	rk_drow_pack(r, &rec);
	disp_put(&rec, a, b);
	assert_int_equal(rk_spill_add(sp, rec.data, rec.len, &err), 0);
	rk_buf_free(&rec);
}

static void test_pack_unpack(void **state)
{
	rk_drow r = { ((rk_u128)0xfedcba9876543210u << 64) | 7, (rk_u128)3 << 100, -123456789, 41, 1, true, 77, 999 }, u;
	rk_buf b = RK_BUF_INIT;

	(void)state;
	rk_buf_putc(&b, 'x'); /* at an odd offset: the record has no alignment */
	rk_drow_pack(&r, &b);
	assert_int_equal(b.len, 1 + RK_DROW_REC);
	rk_drow_unpack(b.data + 1, &u);
	assert_true(u.key == r.key);
	assert_true(u.row == r.row);
	assert_int_equal(u.t, r.t);
	assert_int_equal(u.window, r.window);
	assert_int_equal(u.side, r.side);
	assert_true(u.damaged);
	assert_int_equal(u.entry, r.entry);
	assert_int_equal(u.disp, 0);
	rk_buf_free(&b);
}

/* n rows in a scrambled order, of few (window, key)s, with equal rows */
static rk_drow *rows(size_t n)
{
	rk_drow *v = rk_xcalloc(n, sizeof *v);

	for (size_t i = 0; i < n; i++) {
		size_t j = (i * 7919) % n;

		v[j].window = i % 3;
		v[j].key = (rk_u128)(i % 7) << 64 | (i % 5);
		v[j].side = (uint16_t)(i % 2);
		v[j].row = (rk_u128)(i % 4);
		v[j].t = (rk_usec)i; /* tells equal rows apart: the order added */
		v[j].entry = (uint32_t)j;
	}
	return v;
}

/* The sort of n rows through a spill of bound bytes is the stable sort by
 * rk_drow_cmp (an insertion sort here), display texts with them. */
static void sorted_as_rows(size_t n, size_t bound)
{
	rk_drow *v = rows(n), *w = rk_xcalloc(n, sizeof *w);
	rk_spill *sp = rk_spill_new(NULL, bound, rk_drow_rec_cmp, NULL);
	const void *p;
	size_t len, k = 0;
	rk_error err;
	char a[32];

	for (size_t i = 0; i < n; i++) {
		snprintf(a, sizeof a, "e%u", v[i].entry);
		add(sp, &v[i], a, v[i].entry % 3 ? "b" : NULL);
	}
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		w[i] = v[i];
		for (; j > 0 && rk_drow_cmp(&w[j - 1], &w[j]) > 0; j--) {
			rk_drow t = w[j - 1];
			w[j - 1] = w[j];
			w[j] = t;
		}
	}
	assert_int_equal(rk_spill_finish(sp, &err), 0);
	for (int pass = 0; pass < 2; pass++) {
		k = 0;
		while (rk_spill_next(sp, &p, &len, &err) > 0) {
			rk_drow u;
			char **d;

			rk_drow_unpack(p, &u);
			assert_true(k < n);
			assert_true(u.key == w[k].key && u.window == w[k].window && u.row == w[k].row);
			assert_int_equal(u.t, w[k].t);
			d = rk_disp_decode((const char *)p + RK_DROW_REC, NKEY);
			snprintf(a, sizeof a, "e%u", w[k].entry);
			assert_string_equal(d[0], a);
			if (w[k].entry % 3)
				assert_string_equal(d[1], "b");
			else
				assert_null(d[1]);
			free(d[0]);
			free(d[1]);
			free(d);
			k++;
		}
		assert_int_equal(k, n);
		assert_int_equal(rk_spill_rewind(sp, &err), 0);
	}
	if (bound == 1)
		assert_true(rk_spill_runs_written(sp) > 0);
	rk_spill_free(sp);
	free(v);
	free(w);
}

static void test_sort_in_memory(void **state)
{
	(void)state;
	sorted_as_rows(500, 1 << 20);
}

static void test_sort_spilled(void **state)
{
	(void)state;
	sorted_as_rows(500, 1);
}

/* The target's records come after the source's equal ones, as source rows. */
static void test_join(void **state)
{
	rk_spill *to = rk_spill_new(NULL, 1, rk_drow_rec_cmp, NULL);
	rk_spill *from = rk_spill_new(NULL, 1, rk_drow_rec_cmp, NULL);
	rk_drow r = { 5, 9, 100, 0, 0, false, 0, 0 };
	const void *p;
	size_t len;
	rk_error err;
	rk_usec want[] = { 100, 300, 200, 400 };
	size_t k = 0;

	(void)state;
	add(to, &r, "s", NULL);
	r.side = 1;
	r.t = 200;
	add(from, &r, "t", NULL);
	r.side = 0;
	r.t = 300;
	add(to, &r, "s", NULL);
	r.side = 1;
	r.t = 400;
	add(from, &r, "t", NULL);
	assert_int_equal(rk_drow_spill_join(to, from, &err), 0);
	assert_int_equal(rk_spill_count(to), 4);
	while (rk_spill_next(to, &p, &len, &err) > 0) {
		rk_drow u;

		rk_drow_unpack(p, &u);
		assert_int_equal(u.side, 0);
		assert_int_equal(u.t, want[k]);
		k++;
	}
	assert_int_equal(k, 4);
	rk_spill_free(to);
	rk_spill_free(from);
}

static rk_tally tally(size_t w, rk_u128 key, uint32_t s, uint32_t t, const char *a)
{
	rk_tally tl;

	memset(&tl, 0, sizeof tl);
	tl.window = w;
	tl.key = key;
	tl.s = s;
	tl.t = t;
	tl.src_t = 1;
	tl.src_lo = 1;
	tl.src_hi = 1;
	tl.disp = rk_xcalloc(NKEY, sizeof *tl.disp);
	tl.disp[0] = rk_xstrdup(a);
	return tl;
}

static void test_verify_stream(void **state)
{
	bool split[3] = { true, false, true };
	rk_tally v[5];
	rk_tallies ts = { v, 5, 5 };
	rk_spill *sp = rk_spill_new(NULL, 1, rk_drow_rec_cmp, NULL);
	rk_drow r = { 0, 0, 0, 0, 0, false, 0, 0 };
	rk_error err;

	(void)state;
	v[0] = tally(0, 10, 1, 0, "old"); /* three copies in the source */
	v[1] = tally(0, 20, 0, 2, "old"); /* an extra key: none */
	v[2] = tally(1, 10, 1, 0, "old"); /* a window not split by time */
	v[3] = tally(2, 10, 2, 1, "old"); /* two copies, both in its leaves */
	v[4] = tally(2, 30, 1, 1, "old"); /* past the last row */
	/* rows of keys with no tally, before, between and after */
	r.window = 0, r.key = 5, r.t = 7;
	add(sp, &r, "no", NULL);
	r.key = 10, r.t = 50, r.row = 3;
	add(sp, &r, "late", "x");
	r.t = 40, r.row = 1;
	add(sp, &r, "first", NULL);
	r.t = 60, r.row = 2;
	add(sp, &r, "mid", NULL);
	r.key = 15, r.t = 1;
	add(sp, &r, "no", NULL);
	r.window = 1, r.key = 10, r.t = 5;
	add(sp, &r, "no", NULL);
	r.window = 2, r.key = 10, r.t = 8;
	add(sp, &r, "two", NULL);
	r.t = 9, r.row = 5;
	add(sp, &r, "two", NULL);
	assert_int_equal(rk_spill_finish(sp, &err), 0);
	assert_int_equal(rk_verify_stream(sp, &ts, split, NKEY, &err), 0);
	assert_int_equal(v[0].s, 3);
	assert_int_equal(v[0].t, 2);
	assert_int_equal(v[0].src_t, 40);
	assert_int_equal(v[0].src_lo, 40);
	assert_int_equal(v[0].src_hi, 60);
	assert_string_equal(v[0].disp[0], "first");
	assert_null(v[0].disp[1]);
	assert_int_equal(v[1].s, 0);
	assert_int_equal(v[1].t, 2);
	assert_int_equal(v[1].src_t, 1);
	assert_string_equal(v[1].disp[0], "old");
	assert_int_equal(v[2].s, 1);
	assert_int_equal(v[2].src_t, 1);
	assert_string_equal(v[2].disp[0], "old");
	assert_int_equal(v[3].s, 2);
	assert_int_equal(v[3].t, 1);
	assert_int_equal(v[3].src_t, 8);
	assert_int_equal(v[3].src_hi, 9);
	assert_string_equal(v[3].disp[0], "two");
	assert_int_equal(v[4].s, 1);
	assert_string_equal(v[4].disp[0], "old");
	for (int i = 0; i < 5; i++)
		rk_tally_free(&v[i], NKEY);
	rk_spill_free(sp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_unpack),
		cmocka_unit_test(test_sort_in_memory),
		cmocka_unit_test(test_sort_spilled),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_verify_stream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
