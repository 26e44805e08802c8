/*
 * drill_judge.c - the drilldown's judging of keys (drill_judge.h): a key
 * whose copies differ in a window is a tally, the tallies of one key are
 * merged, and each becomes its findings.  The drilldown itself is drill.c.
 */
#include "check/drill_judge.h"

#include "check/findstore.h"
#include "core/log.h"
#include "io/spill.h"

#include <stdlib.h>
#include <string.h>

/* Orders collected rows by (window, key). */
int rk_drow_key_cmp(const rk_drow *x, const rk_drow *y)
{
	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return 0;
}

/* Orders collected rows by (window, key, side, row hash). */
int rk_drow_cmp(const void *a, const void *b)
{
	const rk_drow *x = a, *y = b;
	int c = rk_drow_key_cmp(x, y);

	if (c)
		return c;
	if (x->side != y->side)
		return x->side < y->side ? -1 : 1;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return 0;
}

/* Widens t's leaf span to leaf node nd. */
static void rk_tally_leaf(rk_tally *t, const rk_node *nd)
{
	if (nd->lo < t->leaf_lo)
		t->leaf_lo = nd->lo;
	if (nd->hi > t->leaf_hi)
		t->leaf_hi = nd->hi;
}

/* A damaged source row of a leaf: its entry and time. */
typedef struct rk_dmg {
	uint32_t entry;
	rk_usec t;
} rk_dmg;

static int rk_dmg_cmp(const void *a, const void *b)
{
	const rk_dmg *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/*
 * Notes the runs of matching source rows of the pass's leaves: in each
 * leaf, the matching rows between two damaged ones (in time) make one
 * span.  A leaf holds every row of its range (or, split by key hash, of its
 * one instant), so no other source row lies inside such a span.  A
 * matching row at a damaged row's very instant joins the run before it:
 * the span then reaches that instant, as it should (a row the target holds
 * lies there).  Costs a binary search among the damaged rows per matching
 * row, and memory for the damaged ones and the leaves.
 */
static void rk_leaf_runs(const rk_dside *d0, size_t nentries, rk_helds *held)
{
	rk_dmg *dmg;
	rk_usec *lo, *hi;
	size_t nd = 0, nslots;

	for (size_t i = 0; i < d0->nrows; i++)
		nd += d0->rows[i].damaged;
	dmg = rk_xcalloc(nd ? nd : 1, sizeof *dmg);
	nd = 0;
	for (size_t i = 0; i < d0->nrows; i++)
		if (d0->rows[i].damaged)
			dmg[nd++] = (rk_dmg){ d0->rows[i].entry, d0->rows[i].t };
	if (nd)
		qsort(dmg, nd, sizeof *dmg, rk_dmg_cmp);
	/* entry e's slots: e + the index of each of its damaged rows, and one
	 * past its last - disjoint from the next entry's */
	nslots = nd + nentries;
	lo = rk_xcalloc(nslots ? nslots : 1, sizeof *lo);
	hi = rk_xcalloc(nslots ? nslots : 1, sizeof *hi);
	for (size_t k = 0; k < nslots; k++) {
		lo[k] = RK_USEC_PINF;
		hi[k] = RK_USEC_NINF;
	}
	for (size_t i = 0; i < d0->nrows; i++) {
		const rk_drow *r = &d0->rows[i];
		size_t a = 0, b = nd, slot;

		if (r->damaged)
			continue;
		while (a < b) {
			size_t mid = a + (b - a) / 2;

			if (dmg[mid].entry < r->entry || (dmg[mid].entry == r->entry && dmg[mid].t < r->t))
				a = mid + 1;
			else
				b = mid;
		}
		slot = a + r->entry;
		if (r->t < lo[slot])
			lo[slot] = r->t;
		if (r->t > hi[slot])
			hi[slot] = r->t;
	}
	for (size_t k = 0; k < nslots; k++)
		if (lo[k] <= hi[k])
			rk_held_add(held, lo[k], hi[k]);
	free(dmg);
	free(lo);
	free(hi);
}

/*
 * Compares the collected rows key by key, per window: a key whose copies
 * differ (in number or in content) gets a tally.  Each side is sorted in
 * place and the two are walked together, so comparing needs no memory
 * beyond what the pass collected.  With held, the runs of matching source
 * rows are noted there (rk_leaf_runs).
 */
int rk_drill_leaves(rk_dside *d0, rk_dside *d1, rk_tallies *ts, rk_helds *held, rk_error *err)
{
	size_t i = 0, j = 0;

	if (d0->nrows)
		qsort(d0->rows, d0->nrows, sizeof *d0->rows, rk_drow_cmp);
	if (d1->nrows)
		qsort(d1->rows, d1->nrows, sizeof *d1->rows, rk_drow_cmp);
	while (i < d0->nrows || j < d1->nrows) {
		const rk_drow *head;
		size_t ie = i, je = j, s, t;
		bool diff = false;
		int c;

		/* the smaller (window, key) of the two heads is the next key */
		if (i == d0->nrows)
			c = 1;
		else if (j == d1->nrows)
			c = -1;
		else
			c = rk_drow_key_cmp(&d0->rows[i], &d1->rows[j]);
		head = c <= 0 ? &d0->rows[i] : &d1->rows[j];
		if (c <= 0)
			while (ie < d0->nrows && !rk_drow_key_cmp(&d0->rows[ie], head))
				ie++;
		if (c >= 0)
			while (je < d1->nrows && !rk_drow_key_cmp(&d1->rows[je], head))
				je++;
		s = ie - i;
		t = je - j;
		if (s != t) {
			diff = true;
		} else {
			for (size_t k = 0; k < s; k++)
				diff |= d0->rows[i + k].row != d1->rows[j + k].row;
		}
		if (diff) {
			const rk_dside *ds = s ? d0 : d1;
			const rk_drow *src = s ? &d0->rows[i] : &d1->rows[j];
			rk_tally tl;

			memset(&tl, 0, sizeof tl);
			tl.window = src->window;
			tl.key = src->key;
			tl.s = (uint32_t)s;
			tl.t = (uint32_t)t;
			for (size_t k = 0; k < s; k++)
				tl.hs += d0->rows[i + k].row;
			for (size_t k = 0; k < t; k++)
				tl.ht += d1->rows[j + k].row;
			tl.src_t = s ? src->t : RK_USEC_NINF;
			tl.tgt_t = t ? d1->rows[j].t : RK_USEC_NINF;
			tl.src_lo = RK_USEC_PINF;
			tl.src_hi = RK_USEC_NINF;
			tl.leaf_lo = RK_USEC_PINF;
			tl.leaf_hi = RK_USEC_NINF;
			/* both sides' rows point into the round's one list of entries */
			for (size_t k = i; k < ie; k++)
				rk_tally_leaf(&tl, &d0->entries[d0->rows[k].entry].node);
			for (size_t k = j; k < je; k++)
				rk_tally_leaf(&tl, &d1->entries[d1->rows[k].entry].node);
			for (size_t k = i; k < ie; k++) {
				d0->rows[k].damaged = true;
				if (d0->rows[k].t < tl.src_lo)
					tl.src_lo = d0->rows[k].t;
				if (d0->rows[k].t > tl.src_hi)
					tl.src_hi = d0->rows[k].t;
			}
			tl.enc = ds->arena.data + src->disp;
			if (rk_tallies_add(ts, &tl, err) < 0)
				return -1;
		}
		i = ie;
		j = je;
	}
	if (held)
		rk_leaf_runs(d0, d0->nentries, held);
	return 0;
}

/* Notes the pieces of a round whose digests matched and that hold source
 * rows: their span, as the digests brought it. */
void rk_held_pieces(const rk_drill_round *rd, rk_helds *held)
{
	for (size_t i = 0; i < rd->nentries; i++) {
		const rk_entry *e = &rd->entries[i];

		if (!e->leaf && e->sub_cnt[0] && e->sub_cnt[0] == e->sub_cnt[1] && e->sub_hash[0] == e->sub_hash[1])
			rk_held_add(held, e->min_t[0], e->max_t[0]);
	}
}

/* qsort takes no context; a job checks tables on several threads */
static _Thread_local int rk_finding_cmp_nkey;
static _Thread_local const rk_finding *rk_finding_cmp_base;

static int rk_finding_cmp(const void *a, const void *b)
{
	return rk_finding_order(a, b, (size_t)rk_finding_cmp_nkey);
}

/* Orders finding indexes by their findings' order, then by index. */
static int rk_finding_idx_cmp(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c = rk_finding_order(&rk_finding_cmp_base[i], &rk_finding_cmp_base[j], (size_t)rk_finding_cmp_nkey);

	return c ? c : (i < j ? -1 : i > j);
}

/* The findings made so far - past rk_spill_share_bound() bytes of them and
 * their keys, the share the tallies' and the rows' spills take too - moved
 * out of memory into a new store of res (rk_check_result.store): the rest
 * are added to it as they are made. */
static int rk_findings_to_store(rk_check_result *res, rk_error *err)
{
	res->store = rk_findstore_new(res->spill_dir, rk_spill_share_bound(), res->nkey);
	for (size_t i = 0; i < res->nfindings; i++)
		if (rk_findstore_add(res->store, &res->findings[i], err) < 0)
			return -1;
	rk_log_debug("findings: %zu of them past %zu bytes in memory: into a store in %s", res->nfindings,
	             rk_spill_share_bound(), res->spill_dir ? res->spill_dir : "TMPDIR");
	free(res->findings);
	res->findings = NULL;
	res->findings_cap = 0;
	rk_keypool_free(&res->key_pool);
	return 0;
}

/* Adds one finding of key (in res's key pool, shared by a tally's
 * findings).  The array grows by doubling: a realloc a finding moved the
 * mapping of millions of them once every page's worth; past the findings'
 * bound they go to the store instead. */
static int rk_add_finding(rk_check_result *res, const rk_tally *t, char **key, rk_find_kind kind, rk_error *err)
{
	rk_finding one, *f = &one;
	rk_fspan span;

	if (!res->store && res->nfindings == res->findings_cap) {
		res->findings_cap = res->nfindings ? 2 * res->nfindings : 16;
		res->findings = rk_xrealloc(res->findings, res->findings_cap * sizeof *res->findings);
	}
	if (!res->store)
		f = &res->findings[res->nfindings];
	memset(f, 0, sizeof *f);
	f->window = (uint32_t)t->window;
	f->kind = kind;
	f->key_hash = t->key;
	f->key = key;
	f->source_copies = t->s;
	f->target_copies = t->t;
	/* a duplicated row whose target copies all equal its one source copy:
	 * an insert written again as it was (the diagnosis's retried insert) */
	f->same_copies = kind == RK_FIND_DUPLICATED && t->s == 1 && t->ht == (rk_u128)t->t * t->hs;
	f->source_time = t->src_t;
	f->target_time = t->tgt_t;
	span.source_min = t->s ? t->src_lo : RK_USEC_NINF;
	span.source_max = t->s ? t->src_hi : RK_USEC_NINF;
	span.leaf_lo = t->leaf_lo < t->leaf_hi ? t->leaf_lo : 0;
	span.leaf_hi = t->leaf_lo < t->leaf_hi ? t->leaf_hi : 0;
	rk_finding_set_span(res, f, &span);
	res->nfindings++;
	res->kind_count[kind]++;
	res->win_kind[t->window][kind]++;
	return res->store ? rk_findstore_add(res->store, f, err) : 0;
}

int rk_classify_tally(void *ctx, rk_tally *t, rk_error *err)
{
	rk_check_result *res = ctx;
	char **key;
	int rc = 0;

	if (!res->store && res->nfindings * sizeof *res->findings + res->key_pool.nblocks * RK_KEYPOOL_BLOCK > rk_spill_share_bound() &&
	    rk_findings_to_store(res, err) < 0)
		return -1;
	key = rk_disp_decode(&res->key_pool, t->enc, res->nkey);
	if (t->s > 1)
		rc = rk_add_finding(res, t, key, RK_FIND_SOURCE_DUPLICATE, err);
	if (rc < 0)
		return -1;
	if (t->s == 0)
		rc = rk_add_finding(res, t, key, RK_FIND_EXTRA, err);
	else if (t->t < t->s)
		rc = rk_add_finding(res, t, key, RK_FIND_MISSING, err);
	else if (t->t > t->s)
		rc = rk_add_finding(res, t, key, RK_FIND_DUPLICATED, err);
	else
		rc = rk_add_finding(res, t, key, RK_FIND_CHANGED, err);
	/* in the store: the key was copied there */
	if (res->store)
		rk_keypool_reset(&res->key_pool);
	return rc;
}

/*
 * glibc's qsort sorts records this size through an array of two pointers
 * a record (16 bytes a finding, 80 MB at 5M findings, beside the findings
 * themselves: issue 25).  The findings' indexes are sorted instead (4 bytes,
 * and 4 more qsort's merge takes), and the findings then moved into their
 * places in place, one cycle of the permutation at a time.
 */
int rk_findings_sort(rk_check_result *res, rk_error *err)
{
	size_t n = res->nfindings;
	uint32_t *ix;

	rk_finding_cmp_nkey = (int)res->nkey;
	rk_finding_spans_done(res);
	if (res->store)
		return rk_findstore_finish(res->store, err);
	/* the room grown by doubling goes (with glibc, a mapping shrunk) */
	if (n && n < res->findings_cap) {
		res->findings = rk_xrealloc(res->findings, n * sizeof *res->findings);
		res->findings_cap = n;
	}
	if (n < 2)
		return 0;
	if (n > UINT32_MAX) {
		qsort(res->findings, n, sizeof *res->findings, rk_finding_cmp);
		return 0;
	}
	ix = rk_xcalloc(n, sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	rk_finding_cmp_base = res->findings;
	qsort(ix, n, sizeof *ix, rk_finding_idx_cmp);
	/* place i takes the finding at ix[i]; a place done points at itself */
	for (size_t i = 0; i < n; i++) {
		rk_finding hold;
		size_t j = i;

		if (ix[i] == i)
			continue;
		hold = res->findings[i];
		for (;;) {
			size_t k = ix[j];

			ix[j] = (uint32_t)j;
			if (k == i) {
				res->findings[j] = hold;
				break;
			}
			res->findings[j] = res->findings[k];
			j = k;
		}
	}
	free(ix);
	return 0;
}
