/*
 * test_drill_spill.c - the verify pass's rows through a spill
 * (check/drill_spill.h): a row's record gives its fields back; records sort
 * as rk_drow_cmp sorts rows, stably, held in memory or spilled past a bound
 * of one byte; the target's records join the source's as source rows after
 * them; the tallies (check/tallies.h) come back by (window, key), a key's
 * merged, one whose copies agree skipped (bounds of one byte, 4 KiB and
 * 64 MiB); those of time-split windows take the copies, first time, span
 * and display text of their keys' runs of rows, the others are handed on
 * as they were, and a sink's failure ends the walk.
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
			d = rk_disp_decode(NULL, (const char *)p + RK_DROW_REC, NKEY);
			snprintf(a, sizeof a, "e%u", w[k].entry);
			assert_string_equal(d[0], a);
			if (w[k].entry % 3)
				assert_string_equal(d[1], "b");
			else
				assert_null(d[1]);
			free(d); /* one allocation, texts and all */
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

/* A tally handed to the sink, kept: its fields and its key's first text. */
typedef struct kept {
	rk_tally t;
	char *a;
	bool b_null;
} kept;

typedef struct sinkbox {
	kept v[8];
	int n;
	int fail_at; /* the sink fails on this call (-1: never) */
} sinkbox;

static int keep(void *ctx, rk_tally *t, rk_error *err)
{
	sinkbox *box = ctx;
	char **d = rk_disp_decode(NULL, t->enc, NKEY);

	if (box->n == box->fail_at) {
		free(d);
		return rk_error_set(err, RK_EXIT_RUNTIME, "the sink failed");
	}
	assert_true(box->n < 8);
	box->v[box->n].t = *t;
	box->v[box->n].t.enc = NULL;
	box->v[box->n].a = rk_xstrdup(d[0]);
	box->v[box->n].b_null = d[1] == NULL;
	free(d);
	box->n++;
	return 0;
}

static void box_free(sinkbox *box)
{
	for (int i = 0; i < box->n; i++)
		free(box->v[i].a);
	box->n = 0;
}

/* adds a tally of window w and key to ts, its copies' hash sums hs and ht,
 * its display text (a, NULL) */
static void tally_h(rk_tallies *ts, size_t w, rk_u128 key, uint32_t s, uint32_t t, rk_u128 hs, rk_u128 ht,
                    const char *a)
{
	rk_buf d = RK_BUF_INIT;
	rk_tally tl;
	rk_error err;

	memset(&tl, 0, sizeof tl);
	tl.window = w;
	tl.key = key;
	tl.s = s;
	tl.t = t;
	tl.hs = hs;
	tl.ht = ht;
	tl.src_t = 1;
	tl.tgt_t = t ? 2 : RK_USEC_NINF;
	tl.src_lo = 1;
	tl.src_hi = 1;
	tl.leaf_lo = 10 * (rk_usec)s;
	tl.leaf_hi = 10 * (rk_usec)s + 5;
	disp_put(&d, a, NULL);
	tl.enc = d.data;
	assert_int_equal(rk_tallies_add(ts, &tl, &err), 0);
	rk_buf_free(&d);
}

/* ... whose copies differ in content (hs and ht differ) */
static void tally(rk_tallies *ts, size_t w, rk_u128 key, uint32_t s, uint32_t t, const char *a)
{
	tally_h(ts, w, key, s, t, s, (rk_u128)t * 3, a);
}

static void test_verify_stream(void **state)
{
	bool split[3] = { true, false, true };
	rk_tallies ts;
	rk_spill *sp = rk_spill_new(NULL, 1, rk_drow_rec_cmp, NULL);
	rk_drow r = { 0, 0, 0, 0, 0, false, 0, 0 };
	sinkbox box = { .n = 0, .fail_at = -1 };
	rk_error err;

	(void)state;
	rk_tallies_init(&ts, NULL, 1, NKEY, split);
	/* added out of order: read back by (window, key) */
	tally(&ts, 2, 30, 1, 1, "old"); /* past the last row */
	tally(&ts, 0, 20, 0, 2, "old"); /* an extra key: none */
	tally(&ts, 0, 10, 1, 0, "old"); /* three copies in the source */
	tally(&ts, 1, 10, 1, 0, "old"); /* a window not split by time */
	tally(&ts, 2, 10, 2, 1, "old"); /* two copies, both in its leaves */
	assert_int_equal(ts.nsplit, 4);
	assert_int_equal(rk_tallies_finish(&ts, &err), 0);
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
	assert_int_equal(rk_verify_stream(sp, &ts, keep, &box, &err), 0);
	assert_int_equal(box.n, 5);
	assert_int_equal(box.v[0].t.window, 0);
	assert_true(box.v[0].t.key == 10);
	assert_int_equal(box.v[0].t.s, 3);
	assert_int_equal(box.v[0].t.t, 2);
	assert_int_equal(box.v[0].t.src_t, 40);
	assert_int_equal(box.v[0].t.src_lo, 40);
	assert_int_equal(box.v[0].t.src_hi, 60);
	assert_string_equal(box.v[0].a, "first");
	assert_true(box.v[0].b_null);
	assert_true(box.v[1].t.key == 20);
	assert_int_equal(box.v[1].t.s, 0);
	assert_int_equal(box.v[1].t.t, 2);
	assert_int_equal(box.v[1].t.src_t, 1);
	assert_string_equal(box.v[1].a, "old");
	assert_int_equal(box.v[2].t.window, 1);
	assert_int_equal(box.v[2].t.s, 1);
	assert_int_equal(box.v[2].t.src_t, 1);
	assert_string_equal(box.v[2].a, "old");
	assert_int_equal(box.v[3].t.window, 2);
	assert_true(box.v[3].t.key == 10);
	assert_int_equal(box.v[3].t.s, 2);
	assert_int_equal(box.v[3].t.t, 1);
	assert_int_equal(box.v[3].t.src_t, 8);
	assert_int_equal(box.v[3].t.src_hi, 9);
	assert_string_equal(box.v[3].a, "two");
	assert_true(box.v[4].t.key == 30);
	assert_int_equal(box.v[4].t.s, 1);
	assert_string_equal(box.v[4].a, "old");
	box_free(&box);
	/* read again, without the rows, and a sink that fails: the failure
	 * comes back */
	assert_int_equal(rk_tallies_rewind(&ts, &err), 0);
	box.fail_at = 2;
	assert_int_equal(rk_verify_stream(NULL, &ts, keep, &box, &err), -1);
	assert_string_equal(err.msg, "the sink failed");
	assert_int_equal(box.n, 2);
	assert_int_equal(box.v[0].t.s, 1); /* as added: no rows to judge by */
	box_free(&box);
	rk_tallies_free(&ts);
	rk_spill_free(sp);
}

/* A key's tallies of one window come back merged, whatever the bound; one
 * whose copies agree, all told, is skipped when some window is split by
 * time, its span noted as held. */
static void test_tallies_merge(void **state)
{
	bool split[2] = { true, false };
	size_t bounds[] = { 1, 4096, (size_t)64 << 20 };
	rk_error err;

	(void)state;
	for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++) {
		rk_tallies ts;
		rk_helds held = { NULL, 0, 0 };
		sinkbox box = { .n = 0, .fail_at = -1 };
		rk_tally t;
		int got;

		rk_tallies_init(&ts, NULL, bounds[b], NKEY, split);
		for (int round = 0; round < 3; round++) {
			tally(&ts, 0, 7, 1, 0, "seven"); /* three rounds' leaves: s 3, t 0 */
			/* one source copy, one target copy alike: agree */
			tally_h(&ts, 0, 9, round == 0, round == 1, round == 0 ? 5 : 0, round == 1 ? 5 : 0, "nine");
		}
		tally(&ts, 1, 9, 2, 1, "w1");
		assert_int_equal(ts.n, 7);
		assert_int_equal(ts.nsplit, 6);
		assert_int_equal(rk_tallies_finish(&ts, &err), 0);
		/* a bound of one byte writes every tally as a run of its own */
		if (bounds[b] == 1)
			assert_int_equal(rk_spill_runs_written(ts.sp) > 0, 1);
		else
			assert_int_equal(rk_spill_runs_written(ts.sp), 0);
		while ((got = rk_tallies_next(&ts, &held, &t, &err)) > 0)
			assert_int_equal(keep(&box, &t, &err), 0);
		assert_int_equal(got, 0);
		assert_int_equal(box.n, 2);
		assert_true(box.v[0].t.key == 7);
		assert_int_equal(box.v[0].t.s, 3);
		assert_int_equal(box.v[0].t.t, 0);
		assert_int_equal(box.v[0].t.leaf_lo, 10);
		assert_int_equal(box.v[0].t.leaf_hi, 15);
		assert_string_equal(box.v[0].a, "seven");
		assert_int_equal(box.v[1].t.window, 1);
		assert_int_equal(box.v[1].t.s, 2);
		assert_string_equal(box.v[1].a, "w1");
		/* key 9 of window 0 skipped, its source copy's span held */
		assert_int_equal(held.n, 1);
		assert_int_equal(held.v[0].lo, 1);
		assert_int_equal(held.v[0].hi, 1);
		box_free(&box);
		rk_tallies_free(&ts);
		free(held.v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_unpack),
		cmocka_unit_test(test_sort_in_memory),
		cmocka_unit_test(test_sort_spilled),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_verify_stream),
		cmocka_unit_test(test_tallies_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
