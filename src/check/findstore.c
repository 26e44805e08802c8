/*
 * findstore.c - findings as records of io/spill.h (findstore.h).  A record
 * is the finding's fixed fields as they lie in rk_finding (its key pointer
 * zeroed), then per key column a byte (0: SQL NULL, 1: a text) and, for a
 * text, its bytes and a NUL.  The order reads the window and the kind out of
 * the fixed part and walks the texts in place.
 */
#include "check/findstore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "io/fault.h"
#include "io/spill.h"

struct rk_findstore {
	rk_spill *spill;
	size_t nkey;
	rk_buf rec;       /* the record being added */
	const char **key; /* [nkey] the key of the finding last read */
};

int rk_finding_order(const rk_finding *x, const rk_finding *y, size_t nkey)
{
	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	for (size_t i = 0; i < nkey; i++) {
		const char *p = x->key[i], *q = y->key[i];
		int c;
		if (!p || !q) {
			if (p != q)
				return p ? 1 : -1;
			continue;
		}
		c = strcmp(p, q);
		if (c)
			return c;
	}
	return 0;
}

/* The records' order: the fixed parts' window and kind, then the texts. */
static int rk_findstore_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx)
{
	const rk_findstore *st = ctx;
	const char *p = a, *q = b;
	rk_finding fa, fb; /* the records are not aligned for one */

	(void)alen;
	(void)blen;
	memcpy(&fa, p, sizeof fa);
	memcpy(&fb, q, sizeof fb);
	if (fa.window != fb.window)
		return fa.window < fb.window ? -1 : 1;
	if (fa.kind != fb.kind)
		return fa.kind < fb.kind ? -1 : 1;
	p += sizeof(rk_finding);
	q += sizeof(rk_finding);
	for (size_t i = 0; i < st->nkey; i++) {
		int c;
		if (*p != *q)
			return *p ? 1 : -1;
		if (*p++ == 0) {
			q++;
			continue;
		}
		q++;
		c = strcmp(p, q);
		if (c)
			return c;
		p += strlen(p) + 1;
		q += strlen(q) + 1;
	}
	return 0;
}

rk_findstore *rk_findstore_new(const char *dir, size_t bound, size_t nkey)
{
	rk_findstore *st = rk_xcalloc(1, sizeof *st);

	st->nkey = nkey;
	st->key = rk_xcalloc(nkey ? nkey : 1, sizeof *st->key);
	st->spill = rk_spill_new(dir, bound, rk_findstore_cmp, st);
	return st;
}

int rk_findstore_add(rk_findstore *st, const rk_finding *f, rk_error *err)
{
	rk_finding fixed = *f;

	fixed.key = NULL;
	rk_buf_reset(&st->rec);
	rk_buf_append(&st->rec, &fixed, sizeof fixed);
	for (size_t i = 0; i < st->nkey; i++) {
		const char *k = f->key ? f->key[i] : NULL;
		rk_buf_putc(&st->rec, k ? 1 : 0);
		if (k)
			rk_buf_append(&st->rec, k, strlen(k) + 1);
	}
	return rk_spill_add(st->spill, st->rec.data, st->rec.len, err);
}

int rk_findstore_finish(rk_findstore *st, rk_error *err)
{
	return rk_spill_finish(st->spill, err);
}

int rk_findstore_next(rk_findstore *st, rk_finding *f, rk_error *err)
{
	const void *rec;
	const char *p;
	size_t len;
	int rc = rk_spill_next(st->spill, &rec, &len, err);

	if (rc <= 0)
		return rc;
	p = rec;
	memcpy(f, p, sizeof *f);
	p += sizeof *f;
	for (size_t i = 0; i < st->nkey; i++) {
		if (*p++ == 0) {
			st->key[i] = NULL;
			continue;
		}
		st->key[i] = p;
		p += strlen(p) + 1;
	}
	/* the texts are the store's; the finding's type has them non-const */
	f->key = (char **)(void *)st->key;
	return 1;
}

int rk_findstore_rewind(rk_findstore *st, rk_error *err)
{
	if (rk_fault("findstore-pass") == RK_FAULT_FAIL)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot read the findings' store again: %s", strerror(EIO));
	return rk_spill_rewind(st->spill, err);
}

uint64_t rk_findstore_count(const rk_findstore *st)
{
	return rk_spill_count(st->spill);
}

uint64_t rk_findstore_runs(const rk_findstore *st)
{
	return rk_spill_runs_written(st->spill);
}

void rk_findstore_free(rk_findstore *st)
{
	if (!st)
		return;
	rk_spill_free(st->spill);
	rk_buf_free(&st->rec);
	free(st->key);
	free(st);
}
