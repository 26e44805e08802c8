/*
 * test_spill.c - the external sort of records (io/spill.h): in memory below
 * the bound, through runs (and merges of runs) past it, the same order
 * either way, stable, read again after a rewind; its errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/buf.h"
#include "io/spill.h"

/* A record: a 4-byte big-endian sort key, then its sequence number as text. */
static size_t rec_make(char *out, uint32_t key, unsigned seq)
{
	out[0] = (char)(key >> 24);
	out[1] = (char)(key >> 16);
	out[2] = (char)(key >> 8);
	out[3] = (char)key;
	return 4 + (size_t)sprintf(out + 4, "%u", seq);
}

static int by_key(const void *a, size_t alen, const void *b, size_t blen, void *ctx)
{
	(void)alen;
	(void)blen;
	(*(int *)ctx)++;
	return memcmp(a, b, 4);
}

static uint32_t rec_key(const void *p)
{
	const unsigned char *u = p;
	return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static unsigned rec_seq(const void *p, size_t len)
{
	char t[32];

	assert_true(len > 4 && len - 4 < sizeof t);
	memcpy(t, (const char *)p + 4, len - 4);
	t[len - 4] = '\0';
	return (unsigned)strtoul(t, NULL, 10);
}

/* The records the last sort_and_check's merges of runs wrote again. */
static uint64_t last_merged;

/* Adds n records of keys in [0, keys) in a fixed pseudo-random order,
 * reads them back twice and checks the order: by key, then by sequence. */
static void sort_and_check(size_t bound, unsigned n, uint32_t keys, uint64_t *runs)
{
	rk_error err;
	int calls = 0;
	rk_spill *s = rk_spill_new(NULL, bound, by_key, &calls);
	uint32_t x = 12345;
	char rec[32];

	rk_error_clear(&err);
	for (unsigned i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		assert_int_equal(rk_spill_add(s, rec, rec_make(rec, (x >> 8) % keys, i), &err), 0);
	}
	assert_int_equal(rk_spill_count(s), n);
	assert_int_equal(rk_spill_finish(s, &err), 0);
	for (int pass = 0; pass < 2; pass++) {
		uint32_t pk = 0;
		unsigned pseq = 0, got = 0;
		const void *r;
		size_t len;
		int rc;
		while ((rc = rk_spill_next(s, &r, &len, &err)) == 1) {
			uint32_t k = rec_key(r);
			unsigned q = rec_seq(r, len);
			if (got) {
				assert_true(k >= pk);
				if (k == pk)
					assert_true(q > pseq);
			}
			pk = k;
			pseq = q;
			got++;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(got, n);
		assert_int_equal(rk_spill_next(s, &r, &len, &err), 0);
		assert_int_equal(rk_spill_rewind(s, &err), 0);
	}
	*runs = rk_spill_runs_written(s);
	last_merged = rk_spill_records_merged(s);
	rk_spill_free(s);
}

static void test_in_memory(void **state)
{
	uint64_t runs;

	(void)state;
	sort_and_check(RK_SPILL_DEFAULT_BYTES, 5000, 300, &runs);
	assert_int_equal(runs, 0);
}

static void test_runs(void **state)
{
	uint64_t runs;

	(void)state;
	/* a few records a run: several runs, no merge of runs */
	sort_and_check(16384, 2000, 100, &runs);
	assert_true(runs > 1 && runs < RK_SPILL_FANIN);
}

static void test_merged_runs(void **state)
{
	uint64_t runs;

	(void)state;
	/* one or two records a run: hundreds of runs, merged RK_SPILL_FANIN at a time */
	sort_and_check(40, 3000, 50, &runs);
	assert_true(runs > 3 * RK_SPILL_FANIN);
	/* a bound of 1: every record its own run */
	sort_and_check(1, 500, 7, &runs);
	assert_true(runs > 400);
}

/* Runs merged by levels: a record is written again once for each eightfold
 * of the runs (4,096 runs: four levels), where merging every open run
 * whenever there were RK_SPILL_FANIN of them wrote it again some 130 times. */
static void test_merges_by_level(void **state)
{
	uint64_t runs;

	(void)state;
	sort_and_check(1, 4096, 1000, &runs);
	assert_true(runs > 4096);
	assert_true(last_merged >= 3 * 4096);
	assert_true(last_merged <= 5 * 4096);
}

static void test_empty_and_short(void **state)
{
	rk_error err;
	int calls = 0;
	rk_spill *s = rk_spill_new("", 1, by_key, &calls);
	const void *r;
	size_t len;

	(void)state;
	rk_error_clear(&err);
	assert_int_equal(rk_spill_finish(s, &err), 0);
	assert_int_equal(rk_spill_next(s, &r, &len, &err), 0);
	assert_int_equal(rk_spill_add(s, "abcd", 4, &err), -1);
	assert_non_null(strstr(err.msg, "finished"));
	rk_spill_free(s);
	rk_spill_free(NULL);

	/* a record read before the finish */
	s = rk_spill_new(NULL, 1, by_key, &calls);
	assert_int_equal(rk_spill_next(s, &r, &len, &err), -1);
	assert_int_equal(rk_spill_rewind(s, &err), -1);
	rk_spill_free(s);
}

static void test_bad_dir(void **state)
{
	rk_error err;
	int calls = 0;
	rk_spill *s = rk_spill_new("/nonexistent/rk-spill", 8, by_key, &calls);

	(void)state;
	rk_error_clear(&err);
	/* the first record fits in memory; the second needs a run */
	assert_int_equal(rk_spill_add(s, "abcd", 4, &err), 0);
	assert_int_equal(rk_spill_add(s, "abce", 4, &err), -1);
	assert_int_equal(err.code, RK_EXIT_RUNTIME);
	assert_non_null(strstr(err.msg, "/nonexistent/rk-spill"));
	rk_spill_free(s);
}

static void test_bound_env(void **state)
{
	(void)state;
	unsetenv("RK_SPILL_BYTES");
	assert_int_equal(rk_spill_bound_env(), RK_SPILL_DEFAULT_BYTES);
	setenv("RK_SPILL_BYTES", "4096", 1);
	assert_int_equal(rk_spill_bound_env(), 4096);
	setenv("RK_SPILL_BYTES", "0", 1);
	assert_int_equal(rk_spill_bound_env(), RK_SPILL_DEFAULT_BYTES);
	setenv("RK_SPILL_BYTES", "-5", 1);
	assert_int_equal(rk_spill_bound_env(), RK_SPILL_DEFAULT_BYTES);
	setenv("RK_SPILL_BYTES", "12k", 1);
	assert_int_equal(rk_spill_bound_env(), RK_SPILL_DEFAULT_BYTES);
	unsetenv("RK_SPILL_BYTES");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_memory),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_merged_runs),
		cmocka_unit_test(test_merges_by_level),
		cmocka_unit_test(test_empty_and_short),
		cmocka_unit_test(test_bad_dir),
		cmocka_unit_test(test_bound_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
