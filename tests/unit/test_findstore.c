/*
 * test_findstore.c - findings through the store (check/findstore.h): read
 * back in the findings' order, field for field and text for text, whether
 * held in memory or spilled to runs past a tiny bound; SQL NULL keys; a
 * second reading after a rewind; the findings sorted in place
 * (rk_findings_sort) into the same order as the store's; finding keys
 * carved from a key pool (rk_keypool_key), small and large, across blocks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/drill_judge.h"
#include "check/findstore.h"
#include "core/buf.h"

#define NKEY 2

static int order2(const void *a, const void *b)
{
	return rk_finding_order(a, b, NKEY);
}

/* n findings of distinct (window, kind, key), some of whose key texts are
 * SQL NULL, in a scrambled order. */
static rk_finding *make(size_t n)
{
	rk_finding *v = rk_xcalloc(n, sizeof *v);
	char t[32];

	for (size_t i = 0; i < n; i++) {
		size_t j = (i * 7919) % n; /* n is not a multiple of 7919 */
		rk_finding *f = &v[j];
		f->window = (uint32_t)(i % 5 * 2499999); /* up to 9,999,996: RK_MAX_WINDOWS is 10M */
		f->kind = (rk_find_kind)(i / 5 % RK_FIND_NKINDS);
		{
			char t2[32];
			const char *kv[NKEY];

			snprintf(t, sizeof t, "k%zu", i / 25);
			snprintf(t2, sizeof t2, "%zu", i * 31 % 1000);
			kv[0] = i % 50 == 49 ? NULL : t;
			kv[1] = i % 3 == 0 ? NULL : t2;
			f->key = rk_key_texts(kv, NULL, NKEY);
		}
		f->key_hash = ((rk_u128)i << 64) | (i * 3);
		f->source_copies = (uint32_t)(i % 4);
		f->target_copies = (uint32_t)(i % 3);
		f->source_time = (rk_usec)i * 1000;
		f->target_time = -(rk_usec)i;
		f->span = (uint32_t)(i % 5);
		f->same_copies = i % 7 == 0;
	}
	return v;
}

static void same(const rk_finding *a, const rk_finding *b)
{
	assert_int_equal(a->window, b->window);
	assert_int_equal(a->kind, b->kind);
	for (size_t k = 0; k < NKEY; k++) {
		if (!a->key[k])
			assert_null(b->key[k]);
		else
			assert_string_equal(a->key[k], b->key[k]);
	}
	assert_true(a->key_hash == b->key_hash);
	assert_int_equal(a->source_copies, b->source_copies);
	assert_int_equal(a->target_copies, b->target_copies);
	assert_int_equal(a->source_time, b->source_time);
	assert_int_equal(a->target_time, b->target_time);
	assert_int_equal(a->span, b->span);
	assert_int_equal(a->same_copies, b->same_copies);
}

static void round_trip(size_t bound, size_t n, bool spills)
{
	rk_finding *v = make(n);
	rk_findstore *st = rk_findstore_new(NULL, bound, NKEY);
	rk_finding f;
	rk_error err;

	rk_error_clear(&err);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rk_findstore_add(st, &v[i], &err), 0);
	assert_int_equal(rk_findstore_count(st), n);
	assert_int_equal(rk_findstore_finish(st, &err), 0);
	assert_int_equal(rk_findstore_runs(st) > 0, spills);
	qsort(v, n, sizeof *v, order2);
	for (int pass = 0; pass < 2; pass++) {
		size_t i = 0;
		int rc;
		while ((rc = rk_findstore_next(st, &f, &err)) == 1) {
			assert_true(i < n);
			same(&v[i++], &f);
		}
		assert_int_equal(rc, 0);
		assert_int_equal(i, n);
		assert_int_equal(rk_findstore_rewind(st, &err), 0);
	}
	rk_findstore_free(st);
	for (size_t i = 0; i < n; i++)
		free(v[i].key);
	free(v);
}

static void test_in_memory(void **state)
{
	(void)state;
	round_trip((size_t)64 << 20, 3000, false);
}

static void test_spilled(void **state)
{
	(void)state;
	/* a few findings a run: runs, and merges of runs */
	round_trip(4096, 3000, true);
	round_trip(1, 200, true);
}

/* rk_findings_sort sorts indexes and moves the findings along the
 * permutation's cycles: the result is qsort's, every finding once. */
static void sorted_in_place(size_t n)
{
	rk_finding *want = make(n);
	rk_check_result res;

	memset(&res, 0, sizeof res);
	res.nkey = NKEY;
	res.nfindings = n;
	res.findings = rk_xcalloc(n ? n : 1, sizeof *res.findings);
	if (n)
		memcpy(res.findings, want, n * sizeof *want);
	assert_int_equal(rk_findings_sort(&res, NULL), 0);
	qsort(want, n, sizeof *want, order2);
	for (size_t i = 0; i < n; i++) {
		same(&want[i], &res.findings[i]);
		assert_ptr_equal(want[i].key, res.findings[i].key);
	}
	for (size_t i = 0; i < n; i++)
		free(want[i].key);
	free(want);
	free(res.findings);
}

static void test_sort_in_place(void **state)
{
	(void)state;
	sorted_in_place(0);
	sorted_in_place(1);
	sorted_in_place(2);
	sorted_in_place(3000);
}

static void test_keypool(void **state)
{
	enum { N = 100000 };
	rk_keypool kp;
	char ***keys = rk_xcalloc(N, sizeof *keys);
	char *big = rk_xmalloc(700000);
	char t[32];

	(void)state;
	memset(&kp, 0, sizeof kp);
	memset(big, 'x', 699999);
	big[699999] = '\0';
	for (size_t i = 0; i < N; i++) {
		const char *kv[NKEY];

		snprintf(t, sizeof t, "key-%zu", i);
		kv[0] = i % 10 == 3 ? NULL : t;
		kv[1] = i % 25000 == 7 ? big : (i % 2 ? "odd" : NULL);
		keys[i] = rk_keypool_key(&kp, kv, NULL, NKEY);
		assert_int_equal((uintptr_t)keys[i] % _Alignof(char *), 0);
	}
	/* 100,000 keys of some 30 bytes and four of 700 KB: blocks of 1 MiB,
	 * the large keys each one of its own */
	assert_true(kp.nblocks >= 4 + 2);
	for (size_t i = 0; i < N; i++) {
		snprintf(t, sizeof t, "key-%zu", i);
		if (i % 10 == 3)
			assert_null(keys[i][0]);
		else
			assert_string_equal(keys[i][0], t);
		if (i % 25000 == 7)
			assert_string_equal(keys[i][1], big);
		else if (i % 2)
			assert_string_equal(keys[i][1], "odd");
		else
			assert_null(keys[i][1]);
	}
	rk_keypool_free(&kp);
	assert_int_equal(kp.nblocks, 0);
	assert_null(kp.blocks);
	free(big);
	free(keys);
}

static void test_order(void **state)
{
	char *ka[2] = { "a", NULL }, *kb[2] = { "a", "x" }, *kc[2] = { NULL, "x" };
	rk_finding a = { .window = 1, .kind = RK_FIND_MISSING, .key = ka };
	rk_finding b = { .window = 1, .kind = RK_FIND_MISSING, .key = kb };
	rk_finding c = { .window = 1, .kind = RK_FIND_MISSING, .key = kc };
	rk_finding d = { .window = 0, .kind = RK_FIND_CHANGED, .key = kb };

	(void)state;
	assert_true(rk_finding_order(&a, &b, 2) < 0); /* SQL NULL first */
	assert_true(rk_finding_order(&c, &a, 2) < 0);
	assert_true(rk_finding_order(&d, &a, 2) < 0); /* the window before the kind */
	assert_int_equal(rk_finding_order(&b, &b, 2), 0);
	assert_true(rk_finding_order(&b, &a, 2) > 0);
}

/* A finding's span: implied by its source time (no room taken), or kept
 * once for the findings alike (a leaf's, whatever their own times), however
 * they interleave. */
static void test_spans(void **state)
{
	rk_check_result r;
	rk_finding f[4];
	rk_fspan one = { 70, 70, 0, 0 }, none = { RK_USEC_NINF, RK_USEC_NINF, 0, 0 };
	rk_fspan leafa = { 70, 70, 10, 20 }, leafb = { 30, 90, 10, 20 }, got;

	(void)state;
	memset(&r, 0, sizeof r);
	memset(f, 0, sizeof f);
	f[0].source_copies = 1;
	f[0].source_time = 70;
	rk_finding_set_span(&r, &f[0], &one);
	assert_int_equal(f[0].span, 0);
	assert_int_equal(r.nspans, 0);
	got = rk_finding_span(&r, &f[0]);
	assert_int_equal(got.source_min, 70);
	assert_int_equal(got.source_max, 70);
	assert_int_equal(got.leaf_lo, 0);
	assert_int_equal(got.leaf_hi, 0);
	f[1].source_time = RK_USEC_NINF;
	rk_finding_set_span(&r, &f[1], &none);
	assert_int_equal(f[1].span, 0);
	assert_int_equal(rk_finding_span(&r, &f[1]).source_max, RK_USEC_NINF);
	/* the leaves kept; two source copies' span kept */
	f[2] = f[0];
	f[3] = f[0];
	f[3].source_copies = 2;
	for (int round = 0; round < 100; round++) {
		rk_finding_set_span(&r, &f[2], &leafa);
		rk_finding_set_span(&r, &f[3], &leafb);
	}
	assert_int_equal(r.nspans, 2);
	assert_int_not_equal(f[2].span, f[3].span);
	got = rk_finding_span(&r, &f[2]);
	assert_int_equal(got.leaf_lo, 10);
	assert_int_equal(got.leaf_hi, 20);
	assert_int_equal(got.source_min, 70);
	got = rk_finding_span(&r, &f[3]);
	assert_int_equal(got.source_min, 30);
	assert_int_equal(got.source_max, 90);
	/* another finding of that leaf, at its own time: the same span kept */
	{
		rk_finding g = f[0];
		rk_fspan leafg = { 80, 80, 10, 20 };

		g.source_time = 80;
		rk_finding_set_span(&r, &g, &leafg);
		assert_int_equal(g.span, f[2].span);
		assert_int_equal(r.nspans, 2);
		assert_int_equal(rk_finding_span(&r, &g).source_min, 80);
		assert_int_equal(rk_finding_span(&r, &g).leaf_hi, 20);
	}
	rk_finding_spans_done(&r);
	assert_null(r.span_cache);
	assert_int_equal(rk_finding_span(&r, &f[3]).source_max, 90);
	free(r.spans);
}

/* Lookups by finding index, made in any order, found by binary search. */
static void test_lookups(void **state)
{
	rk_check_result r;
	rk_finding f[8];
	const size_t order[] = { 7, 3, 5, 0 };

	(void)state;
	memset(&r, 0, sizeof r);
	memset(f, 0, sizeof f);
	r.findings = f;
	r.nfindings = 8;
	for (size_t i = 0; i < 4; i++)
		rk_finding_lookup_add(&r, order[i])->source_elsewhere = (rk_usec)order[i] * 10;
	rk_finding_lookup_add(&r, 3)->target_has_it = true;
	assert_int_equal(r.nlookups, 4);
	for (size_t i = 0; i < 8; i++) {
		const rk_lookup *lk = rk_finding_lookup(&r, i);
		bool made = i == 0 || i == 3 || i == 5 || i == 7;

		if (!made) {
			assert_null(lk);
			continue;
		}
		assert_non_null(lk);
		assert_int_equal(lk->finding, i);
		assert_int_equal(lk->source_elsewhere, (rk_usec)i * 10);
		assert_int_equal(lk->target_has_it, i == 3);
	}
	free(r.lookups);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_memory),
		cmocka_unit_test(test_spilled),
		cmocka_unit_test(test_sort_in_place),
		cmocka_unit_test(test_keypool),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_lookups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
