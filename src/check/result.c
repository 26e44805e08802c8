/*
 * result.c - the helpers of a check's result (result.h): names, the texts
 * the reports show, the window of an instant, and freeing it.
 */
#include "check/result.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/findstore.h"

const char *rk_find_kind_name(rk_find_kind k)
{
	static const char *const names[] = { "missing", "extra", "duplicated", "changed", "source_duplicate" };

	return k < RK_FIND_NKINDS ? names[k] : "?";
}

void rk_finding_key_text(rk_buf *b, const rk_check_result *r, const rk_finding *f)
{
	if (r->nkey > 1)
		rk_buf_putc(b, '(');
	for (size_t i = 0; i < r->nkey; i++) {
		if (i)
			rk_buf_puts(b, ", ");
		rk_buf_puts(b, f->key[i] ? f->key[i] : "NULL");
	}
	if (r->nkey > 1)
		rk_buf_putc(b, ')');
}

void rk_fwalk_start(rk_fwalk *w, const rk_check_result *r)
{
	memset(w, 0, sizeof *w);
	w->res = r;
	if (r->store && rk_findstore_rewind(r->store, &w->err) < 0)
		w->failed = true;
}

const rk_finding *rk_fwalk_peek(rk_fwalk *w)
{
	const rk_check_result *r = w->res;

	if (w->failed || w->at >= r->nfindings)
		return NULL;
	if (!r->store)
		return &r->findings[w->at];
	if (!w->have) {
		int rc = rk_findstore_next(r->store, &w->cur, &w->err);

		if (rc <= 0) {
			/* the store holds nfindings: an end before them is an error too */
			if (rc == 0)
				rk_error_set(&w->err, RK_EXIT_RUNTIME, "the findings' store ended after %zu of %zu findings",
				             w->at, r->nfindings);
			w->failed = true;
			return NULL;
		}
		w->have = true;
	}
	return &w->cur;
}

const rk_finding *rk_fwalk_next(rk_fwalk *w, size_t *fi)
{
	const rk_finding *f = rk_fwalk_peek(w);

	if (!f)
		return NULL;
	if (fi)
		*fi = w->at;
	w->at++;
	w->have = false;
	return f;
}

int rk_fwalk_end(const rk_fwalk *w, rk_error *err)
{
	if (!w->failed)
		return 0;
	if (err)
		*err = w->err;
	return -1;
}

const char *rk_check_bound_text(const rk_check_result *r, size_t i, char *buf)
{
	if (r->keyed)
		return r->seg_text[i] ? r->seg_text[i] : "";
	return rk_time_format(r->bounds[i], buf);
}

size_t rk_check_window_of(const rk_check_result *r, rk_usec t)
{
	size_t lo = 0, hi = r->nwindows;

	if (!r->calendar)
		return (size_t)((t - r->from) / r->width);
	/* the last w with bounds[w] <= t */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->bounds[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The bytes a key of v takes laid out as rk_key_texts lays it. */
static size_t rk_key_bytes(const char *const *v, const size_t *len, size_t n)
{
	size_t bytes = (n ? n : 1) * sizeof(char *);

	for (size_t i = 0; i < n; i++)
		if (v[i])
			bytes += (len ? len[i] : strlen(v[i])) + 1;
	return bytes;
}

/* Lays the key of v out in out (rk_key_bytes of it). */
static char **rk_key_lay(void *mem, const char *const *v, const size_t *len, size_t n)
{
	char **out = mem;
	char *p = (char *)out + (n ? n : 1) * sizeof(char *);

	out[0] = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t l;

		out[i] = NULL;
		if (!v[i])
			continue;
		l = len ? len[i] : strlen(v[i]);
		memcpy(p, v[i], l);
		p[l] = '\0';
		out[i] = p;
		p += l + 1;
	}
	return out;
}

char **rk_key_texts(const char *const *v, const size_t *len, size_t n)
{
	return rk_key_lay(rk_xmalloc(rk_key_bytes(v, len, n)), v, len, n);
}

char **rk_keypool_key(rk_keypool *kp, const char *const *v, const size_t *len, size_t n)
{
	size_t bytes = rk_key_bytes(v, len, n), align = _Alignof(char *);
	char *mem;

	bytes = (bytes + align - 1) / align * align;
	if (bytes > RK_KEYPOOL_BLOCK / 4) {
		mem = rk_xmalloc(bytes);
		/* (the carving goes on where it was: at, left) */
		kp->blocks = rk_xrealloc(kp->blocks, (kp->nblocks + 1) * sizeof *kp->blocks);
		kp->blocks[kp->nblocks++] = mem;
		return rk_key_lay(mem, v, len, n);
	}
	if (bytes > kp->left) {
		kp->blocks = rk_xrealloc(kp->blocks, (kp->nblocks + 1) * sizeof *kp->blocks);
		kp->at = kp->blocks[kp->nblocks++] = rk_xmalloc(RK_KEYPOOL_BLOCK);
		kp->left = RK_KEYPOOL_BLOCK;
	}
	mem = kp->at;
	kp->at += bytes;
	kp->left -= bytes;
	return rk_key_lay(mem, v, len, n);
}

void rk_keypool_reset(rk_keypool *kp)
{
	if (kp->nblocks <= 1 && kp->left == RK_KEYPOOL_BLOCK)
		return;
	if (kp->nblocks > 1 || !kp->at) {
		rk_keypool_free(kp);
		return;
	}
	kp->at = kp->blocks[0];
	kp->left = RK_KEYPOOL_BLOCK;
}

void rk_keypool_free(rk_keypool *kp)
{
	for (size_t i = 0; i < kp->nblocks; i++)
		free(kp->blocks[i]);
	free(kp->blocks);
	memset(kp, 0, sizeof *kp);
}

void rk_check_result_free(rk_check_result *r)
{
	if (!r)
		return;
	for (int s = 0; s < 2; s++) {
		free(r->side[s].describe);
		free(r->side[s].rows);
		free(r->side[s].hash);
		free(r->side[s].sums);
		free(r->side[s].slice_rows);
		free(r->side[s].slice_hash);
		rk_history_free(r->side[s].history);
		free(r->side[s].history_note);
	}
	for (size_t i = 0; r->seg_text && i <= r->nwindows; i++)
		free(r->seg_text[i]);
	free(r->seg_text);
	free(r->findings);
	rk_findstore_free(r->store);
	rk_keypool_free(&r->key_pool);
	free(r->spans);
	free(r->span_cache);
	free(r->lookups);
	for (size_t i = 0; i < r->nchanges; i++) {
		free(r->changes[i].value[0]);
		free(r->changes[i].value[1]);
	}
	free(r->changes);
	for (size_t i = 0; r->key_names && i < r->nkey; i++)
		free(r->key_names[i]);
	free(r->key_names);
	for (size_t i = 0; r->sum_names && i < r->nsum; i++)
		free(r->sum_names[i]);
	free(r->sum_names);
	free(r->sum_scale);
	for (size_t i = 0; r->column_names && i < r->ncolumns; i++)
		free(r->column_names[i]);
	free(r->column_names);
	rk_drift_free(&r->drift);
	rk_diagnosis_free(r->diagnosis);
	free(r->held);
	free(r->status);
	free(r->win_kind);
	free(r->bounds);
	free(r);
}

/* Spans the cache of rk_finding_set_span remembers (a power of two): the
 * findings of a drilldown's leaf come together, or interleaved with a few
 * other leaves' when a leaf's rows went through the spill. */
#define RK_SPAN_CACHE 4096

/* A kept span's source_min when its source copies' span is the finding's
 * own source time (one copy, or none): the findings of one leaf then share
 * one kept span, whatever their times. */
#define RK_SPAN_IMPLIED RK_USEC_PINF

rk_fspan rk_finding_span(const rk_check_result *r, const rk_finding *f)
{
	rk_usec t = f->source_copies ? f->source_time : RK_USEC_NINF;
	rk_fspan s = { t, t, 0, 0 };

	if (f->span) {
		s = r->spans[f->span - 1];
		if (s.source_min == RK_SPAN_IMPLIED)
			s.source_min = s.source_max = t;
	}
	return s;
}

static bool rk_fspan_same(const rk_fspan *a, const rk_fspan *b)
{
	return a->source_min == b->source_min && a->source_max == b->source_max && a->leaf_lo == b->leaf_lo &&
	       a->leaf_hi == b->leaf_hi;
}

void rk_finding_set_span(rk_check_result *r, rk_finding *f, const rk_fspan *s)
{
	rk_usec t = f->source_copies ? f->source_time : RK_USEC_NINF;
	rk_fspan keep = *s;
	uint64_t h;
	uint32_t *slot;

	if (keep.source_min == t && keep.source_max == t)
		keep.source_min = keep.source_max = RK_SPAN_IMPLIED;
	if (keep.source_min == RK_SPAN_IMPLIED && keep.leaf_lo == 0 && keep.leaf_hi == 0) {
		f->span = 0;
		return;
	}
	if (!r->span_cache)
		r->span_cache = rk_xcalloc(RK_SPAN_CACHE, sizeof *r->span_cache);
	h = (uint64_t)keep.source_min * 0x9E3779B97F4A7C15u ^ (uint64_t)keep.source_max * 0xC2B2AE3D27D4EB4Fu ^
	    (uint64_t)keep.leaf_lo * 0x165667B19E3779F9u ^ (uint64_t)keep.leaf_hi * 0x27D4EB2F165667C5u;
	slot = &r->span_cache[(h ^ h >> 29) & (RK_SPAN_CACHE - 1)];
	if (*slot && rk_fspan_same(&r->spans[*slot - 1], &keep)) {
		f->span = *slot;
		return;
	}
	/* 2^32 spans are 128 GiB: out of memory as surely as rk_xrealloc's */
	if (r->nspans >= UINT32_MAX - 1) {
		fputs("reckon: error: out of memory: more than 2^32 spans of findings\n", stderr);
		abort();
	}
	/* grown by doubling: the count is a power of two when the room is full */
	if ((r->nspans & (r->nspans - 1)) == 0)
		r->spans = rk_xrealloc(r->spans, (r->nspans ? 2 * r->nspans : 16) * sizeof *r->spans);
	r->spans[r->nspans++] = keep;
	*slot = (uint32_t)r->nspans;
	f->span = *slot;
}

void rk_finding_spans_done(rk_check_result *r)
{
	free(r->span_cache);
	r->span_cache = NULL;
	if (r->nspans)
		r->spans = rk_xrealloc(r->spans, r->nspans * sizeof *r->spans);
}

/* The first of the n records of v (size bytes each, sorted by their
 * finding index, a size_t `at` bytes in) whose finding is fi or later. */
static size_t rk_finding_bound(const void *v, size_t n, size_t size, size_t at, size_t fi)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, f;

		memcpy(&f, (const char *)v + mid * size + at, sizeof f);
		if (f < fi)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first lookup at or after finding fi. */
static size_t rk_lookup_bound(const rk_check_result *r, size_t fi)
{
	return rk_finding_bound(r->lookups, r->nlookups, sizeof *r->lookups, offsetof(rk_lookup, finding), fi);
}

const rk_lookup *rk_finding_lookup(const rk_check_result *r, size_t fi)
{
	size_t at = rk_lookup_bound(r, fi);

	return at < r->nlookups && r->lookups[at].finding == fi ? &r->lookups[at] : NULL;
}

rk_lookup *rk_finding_lookup_add(rk_check_result *r, size_t fi)
{
	size_t at = rk_lookup_bound(r, fi);

	if (at < r->nlookups && r->lookups[at].finding == fi)
		return &r->lookups[at];
	r->lookups = rk_xrealloc(r->lookups, (r->nlookups + 1) * sizeof *r->lookups);
	memmove(&r->lookups[at + 1], &r->lookups[at], (r->nlookups - at) * sizeof *r->lookups);
	r->nlookups++;
	r->lookups[at] = (rk_lookup){ fi, RK_USEC_NINF, false };
	return &r->lookups[at];
}

size_t rk_finding_changes(const rk_check_result *r, size_t fi, size_t *n)
{
	size_t lo = rk_finding_bound(r->changes, r->nchanges, sizeof *r->changes, offsetof(rk_change, finding), fi);
	size_t m = 0;

	while (lo + m < r->nchanges && r->changes[lo + m].finding == fi)
		m++;
	*n = m;
	return lo;
}

void rk_change_value_text(rk_buf *b, const rk_change *ch, int s)
{
	if (!ch->value[s]) {
		rk_buf_puts(b, "NULL");
		return;
	}
	rk_buf_puts(b, ch->value[s]);
	if (ch->cut[s])
		rk_buf_puts(b, "...");
}

void rk_drift_free(rk_drift *d)
{
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < d->nonly[s]; i++)
			free(d->only[s][i]);
		free(d->only[s]);
	}
	for (size_t i = 0; i < d->nkinds; i++) {
		free(d->kinds[i].name);
		free(d->kinds[i].source_type);
		free(d->kinds[i].target_type);
	}
	free(d->kinds);
	memset(d, 0, sizeof *d);
}

void rk_diagnosis_free(rk_diagnosis *d)
{
	if (!d)
		return;
	rk_diagnosis_causes_free(d);
	for (size_t i = 0; i < d->nwarnings; i++)
		free(d->warnings[i].message);
	free(d->warnings);
	free(d->of);
	free(d);
}

void rk_diagnosis_causes_free(rk_diagnosis *d)
{
	for (size_t i = 0; i < d->ncauses; i++) {
		free(d->causes[i].windows);
		free(d->causes[i].cause);
		free(d->causes[i].evidence);
		free(d->causes[i].next_step);
	}
	free(d->causes);
	d->causes = NULL;
	d->ncauses = 0;
}
