/*
 * fuzz_rerun.c - libFuzzer harness for the rerun-list reader
 * (report/rerun.c), which drives `reckon repair`.
 *
 * Input: the file's bytes, read through a stdio stream as a file is.  A
 * list that is accepted must hold its promises (intervals finite, non-empty,
 * in time order, disjoint) and survive a round trip: written back with
 * rk_rerun_write and read again, it is the same list.  Merging it must
 * keep the row counts' totals and the covered span.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/rerun.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RK_FUZZ_CHECK(cond) \
	do {                    \
		if (!(cond))        \
			abort();        \
	} while (0)

static void rk_fz_valid(const rk_rerun_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const rk_rerun_interval *it = &l->items[i];

		RK_FUZZ_CHECK(it->start != RK_USEC_NINF && it->end != RK_USEC_PINF && it->start < it->end);
		RK_FUZZ_CHECK(i == 0 || l->items[i - 1].end <= it->start);
		for (int k = 0; k < RK_RERUN_NCOUNTS; k++)
			RK_FUZZ_CHECK(it->count[k] <= (uint64_t)INT64_MAX);
	}
}

static void rk_fz_round_trip(const rk_rerun_list *l)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	rk_rerun_list *back = NULL;
	rk_error err;

	RK_FUZZ_CHECK(fp != NULL);
	RK_FUZZ_CHECK(rk_rerun_write(fp, l) == 0);
	RK_FUZZ_CHECK(fclose(fp) == 0);
	fp = fmemopen(text, len, "r");
	RK_FUZZ_CHECK(fp != NULL);
	rk_error_clear(&err);
	RK_FUZZ_CHECK(rk_rerun_read_stream(fp, "again", &back, &err) == 0);
	fclose(fp);
	RK_FUZZ_CHECK(back->n == l->n);
	for (size_t i = 0; i < l->n; i++) {
		const rk_rerun_interval *a = &l->items[i], *b = &back->items[i];

		RK_FUZZ_CHECK(a->start == b->start && a->end == b->end);
		RK_FUZZ_CHECK(memcmp(a->count, b->count, sizeof a->count) == 0);
	}
	rk_rerun_free(back);
	free(text);
}

static void rk_fz_merge(const rk_rerun_list *l)
{
	rk_rerun_list *m = NULL;
	rk_error err;
	size_t intervals = 0;

	rk_error_clear(&err);
	if (rk_rerun_merge(l, &m, &err) < 0) {
		RK_FUZZ_CHECK(m == NULL && err.code == RK_EXIT_USAGE);
		return;
	}
	rk_fz_valid(m);
	for (size_t i = 0; i < m->n; i++) {
		intervals += m->items[i].intervals;
		/* merged ranges do not touch: they would have been joined */
		RK_FUZZ_CHECK(i == 0 || m->items[i - 1].end < m->items[i].start);
	}
	RK_FUZZ_CHECK(intervals == l->n);
	RK_FUZZ_CHECK(m->n <= l->n && (l->n == 0 || (m->items[0].start == l->items[0].start &&
	                                             m->items[m->n - 1].end == l->items[l->n - 1].end)));
	rk_rerun_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_rerun_list *l = NULL;
	rk_error err;
	FILE *fp;

	if (size == 0)
		return 0;   /* fmemopen refuses an empty buffer */
	fp = fmemopen((void *)data, size, "r");
	RK_FUZZ_CHECK(fp != NULL);
	rk_error_clear(&err);
	if (rk_rerun_read_stream(fp, "list.csv", &l, &err) < 0) {
		RK_FUZZ_CHECK(l == NULL && err.code == RK_EXIT_USAGE && err.msg[0] && err.hint[0]);
	} else {
		rk_fz_valid(l);
		rk_fz_round_trip(l);
		rk_fz_merge(l);
		rk_rerun_free(l);
	}
	fclose(fp);
	return 0;
}
