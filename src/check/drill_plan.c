/*
 * drill_plan.c - the drilldown's planner (drill_plan.h): one round's leaves
 * and split pieces from the queued nodes, and the nodes the next round
 * recurses into.  The drilldown itself is drill.c.
 */
#include "check/drill_plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/log.h"

void rk_nodes_push(rk_nodes *q, const rk_node *node)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 64;
		q->v = rk_xrealloc(q->v, q->cap * sizeof *q->v);
	}
	q->v[q->n++] = *node;
}

static void rk_round_entry(rk_drill_round *rd, const rk_node *node, bool leaf, uint32_t part, uint32_t piece)
{
	rk_entry *e;

	if (rd->nentries == rd->cap) {
		rd->cap = rd->cap ? rd->cap * 2 : 64;
		rd->entries = rk_xrealloc(rd->entries, rd->cap * sizeof *rd->entries);
	}
	e = &rd->entries[rd->nentries++];
	memset(e, 0, sizeof *e);
	e->node = *node;
	e->leaf = leaf;
	e->part = part;
	e->piece = piece;
	for (int s = 0; s < 2; s++) {
		e->min_t[s] = RK_USEC_PINF;
		e->max_t[s] = RK_USEC_NINF;
	}
}

static int rk_entry_cmp(const void *a, const void *b)
{
	const rk_entry *x = a, *y = b;

	if (x->node.lo != y->node.lo)
		return x->node.lo < y->node.lo ? -1 : 1;
	if (x->node.hval != y->node.hval)
		return x->node.hval < y->node.hval ? -1 : 1;
	return 0;
}

void rk_drill_round_free(rk_drill_round *rd)
{
	free(rd->entries);
	free(rd->parts);
	free(rd->part_first);
	free(rd->piece_entry);
	memset(rd, 0, sizeof *rd);
}

void rk_drill_plan(const rk_node *queue, size_t nq, uint64_t leaf, bool eager, rk_drill_round *rd,
                   rk_nodes *wait, bool *split_time)
{
	uint64_t budget[2] = { 0, 0 };
	bool any_leaf = false;
	size_t capp = 0, npieces = 0;

	rk_drill_round_free(rd);
	rd->part_first = rk_xcalloc(1, sizeof *rd->part_first);
	for (size_t i = 0; i < nq; i++) {
		const rk_node *nd = &queue[i];
		bool splittable = nd->hi - nd->lo > 1 || nd->bits < 64;
		uint64_t most = nd->cnt[0] > nd->cnt[1] ? nd->cnt[0] : nd->cnt[1];
		bool small = most <= leaf;
		uint32_t part = (uint32_t)rd->nparts;
		rk_drill_part *pt;
		size_t pieces;

		if (small || !splittable) {
			if (any_leaf && (budget[0] + nd->cnt[0] > leaf || budget[1] + nd->cnt[1] > leaf)) {
				rk_nodes_push(wait, nd); /* a later round */
				continue;
			}
			if (!small)
				rk_log_warn("window %zu: %llu rows share one instant and one key hash; comparing them "
				            "beyond --leaf-rows",
				            nd->window, (unsigned long long)most);
			rk_round_entry(rd, nd, true, 0, 0);
			budget[0] += nd->cnt[0];
			budget[1] += nd->cnt[1];
			any_leaf = true;
			rd->nleaves++;
			continue;
		}
		/* enough pieces that an even spread lands at leaf size next round */
		pieces = eager ? RK_DRILL_FANOUT : (size_t)(most / leaf) * 2 + 2;
		if (pieces > RK_DRILL_FANOUT)
			pieces = RK_DRILL_FANOUT;
		if (rd->nparts == capp) {
			capp = capp ? capp * 2 : 16;
			rd->parts = rk_xrealloc(rd->parts, capp * sizeof *rd->parts);
			rd->part_first = rk_xrealloc(rd->part_first, (capp + 1) * sizeof *rd->part_first);
		}
		pt = &rd->parts[rd->nparts++];
		memset(pt, 0, sizeof *pt);
		pt->lo = nd->lo;
		pt->hi = nd->hi;
		pt->keybits.bits = nd->bits;
		pt->keybits.hval = nd->hval;
		if (nd->hi - nd->lo > 1) {
			/* pieces of one width, so that a server computes them as
			 * windows: the last one may be narrower */
			rk_usec span = nd->hi - nd->lo, wd;
			size_t n;

			if ((rk_usec)pieces > span)
				pieces = (size_t)span;
			wd = span / (rk_usec)pieces + (span % (rk_usec)pieces != 0);
			n = (size_t)(span / wd + (span % wd != 0));
			pt->width = wd;
			split_time[nd->window] = true;
			for (size_t k = 0; k < n; k++) {
				rk_node c = *nd;

				c.lo = nd->lo + (rk_usec)k * wd;
				c.hi = c.lo + wd < nd->hi ? c.lo + wd : nd->hi;
				rk_round_entry(rd, &c, false, part, (uint32_t)k);
			}
			npieces += n;
		} else {
			uint32_t more = 1;

			while ((UINT64_C(1) << more) < pieces && nd->bits + more < 64)
				more++;
			pt->more = more;
			for (uint64_t k = 0; k < (UINT64_C(1) << more); k++) {
				rk_node c = *nd;

				c.bits = nd->bits + more;
				c.hval = nd->hval | (k << nd->bits);
				rk_round_entry(rd, &c, false, part, (uint32_t)k);
			}
			npieces += (size_t)1 << more;
		}
		rd->part_first[part + 1] = (uint32_t)npieces;
	}
	if (rd->nentries)
		qsort(rd->entries, rd->nentries, sizeof *rd->entries, rk_entry_cmp);
	/* where each part's pieces went in the sorted entries */
	rd->piece_entry = rk_xcalloc(npieces ? npieces : 1, sizeof *rd->piece_entry);
	for (size_t i = 0; i < rd->nentries; i++) {
		const rk_entry *e = &rd->entries[i];

		if (!e->leaf)
			rd->piece_entry[rd->part_first[e->part] + e->piece] = i;
	}
}

void rk_drill_next(const rk_drill_round *rd, rk_nodes *next)
{
	for (size_t i = 0; i < rd->nentries; i++) {
		const rk_entry *e = &rd->entries[i];
		rk_node node;
		rk_usec mn, mx;

		if (e->leaf || (e->sub_cnt[0] == e->sub_cnt[1] && e->sub_hash[0] == e->sub_hash[1]))
			continue;
		node = e->node;
		node.cnt[0] = e->sub_cnt[0];
		node.cnt[1] = e->sub_cnt[1];
		/* shrink the range to the rows actually in it */
		mn = e->min_t[0] < e->min_t[1] ? e->min_t[0] : e->min_t[1];
		mx = e->max_t[0] > e->max_t[1] ? e->max_t[0] : e->max_t[1];
		if (mn >= node.lo && mx < node.hi && mn <= mx) {
			node.lo = mn;
			node.hi = mx + 1;
		}
		rk_nodes_push(next, &node);
	}
}
