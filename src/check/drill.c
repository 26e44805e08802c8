/*
 * drill.c - the key-level drilldown of the windows whose digests differ.
 *
 * Work proceeds in passes.  Each pass re-reads, in one scan per side, only
 * the ranges still in question: a range small enough (at most leaf_rows rows
 * on each side) is a leaf, whose rows are collected and compared key by key;
 * a bigger range is split in two by time (or, when it is a single instant,
 * by one more bit of the key hash) and the halves' digests are computed, so
 * the next pass recurses only into the halves that differ.  Leaves are taken
 * into a pass only while their rows fit the budget, so memory stays bounded
 * by leaf_rows per side whatever the window size.  The last pass
 * (rk_drill_verify) holds the rows of damaged keys only: bounded by the
 * findings, which the result holds anyway.
 */
#include <stdlib.h>
#include <string.h>

#include "check/drill.h"
#include "core/canon.h"
#include "core/log.h"

typedef struct rk_node {
	size_t window;
	rk_usec lo, hi;         /* time range */
	uint32_t bits;          /* key-hash bits fixed by hash splits */
	uint64_t hval;          /* their value */
	uint64_t cnt[2];        /* rows per side, known from the parent's pass */
} rk_node;

typedef struct rk_entry {
	rk_node node;
	bool leaf;              /* collect rows; else accumulate a sub-digest */
	uint64_t sub_cnt[2];
	rk_u128 sub_hash[2];
	rk_usec min_t, max_t;   /* time span of the rows seen, both sides */
} rk_entry;

/* Most pieces one range is split into per pass. */
#define RK_DRILL_FANOUT 64

/* One collected row of a leaf. */
typedef struct rk_drow {
	rk_u128 key;
	rk_u128 row;
	rk_usec t;
	uint32_t entry;
	uint32_t side;
	size_t disp;            /* offset of the key's display encoding in the side's arena */
} rk_drow;

typedef struct rk_dside {
	rk_entry *entries;      /* shared, sorted by (lo, hval) */
	size_t nentries;
	struct rk_span { rk_usec min_t, max_t; } *span;  /* per entry, this side */
	bool need_key;          /* some entry needs the key hash */
	const rk_u128 *keyset;  /* when set: only rows of these keys (sorted) */
	size_t nkeyset;
	rk_drow *rows;
	size_t nrows, caprows;
	rk_buf arena;           /* display texts of collected keys */
	rk_buf disp;            /* scratch */
} rk_dside;

/* A key whose copies or contents differ inside one window. */
typedef struct rk_tally {
	size_t window;
	rk_u128 key;
	uint32_t s, t;
	bool diff;
	rk_usec src_t;
	rk_usec tgt_t;          /* time of the first target copy */
	rk_usec before, after;  /* nearest exactly matching source rows (rk_finding) */
	bool near;              /* ... known: its leaf was the whole window */
	char **disp;            /* nkey strings, NULL for SQL NULL */
} rk_tally;

typedef struct rk_tallies {
	rk_tally *v;
	size_t n, cap;
} rk_tallies;

/* The source rows of whole-window leaves that match exactly: where the
 * diagnosis looks for the rows around a damaged one (rk_drill_near). */
typedef struct rk_matches {
	struct rk_match { size_t window; rk_usec t; } *v;
	size_t n, cap;
} rk_matches;

static int rk_entry_cmp(const void *a, const void *b)
{
	const rk_entry *x = a, *y = b;

	if (x->node.lo != y->node.lo)
		return x->node.lo < y->node.lo ? -1 : 1;
	if (x->node.hval != y->node.hval)
		return x->node.hval < y->node.hval ? -1 : 1;
	return 0;
}

static inline uint64_t rk_mask(uint32_t bits)
{
	return bits >= 64 ? UINT64_MAX : ((UINT64_C(1) << bits) - 1);
}

/* Index of the first entry of the time group holding t, or -1. */
static long rk_find_group(const rk_entry *e, size_t n, rk_usec t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid].node.lo <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	lo--;
	while (lo > 0 && e[lo - 1].node.lo == e[lo].node.lo)
		lo--;
	return (long)lo;
}

/* Appends the display text of the key columns: per column a flag byte, a
 * 4-byte length and the text (timestamps as ISO-8601 UTC, other types in
 * canonical form, floats and unknown types as read). */
static int rk_key_display(rk_side *s, const rk_field *f, rk_buf *out, rk_error *err)
{
	const rk_plan *p = s->plan;
	const char *why;

	for (size_t i = 0; i < p->nkey; i++) {
		size_t c = p->key_idx[i], at;
		uint32_t len;
		rk_type t = s->types[c];

		if (f[c].null) {
			rk_buf_putc(out, 0);
			continue;
		}
		rk_buf_putc(out, 1);
		at = out->len;
		rk_buf_append(out, "\0\0\0\0", 4);
		if (f[c].form == RK_FORM_INT) {
			/* decoded from binary COPY: the value's own digits */
			rk_buf_printf(out, "%lld", (long long)f[c].m);
		} else if (f[c].form == RK_FORM_CANON) {
			/* its canonical text, what rk_canon_text makes of the text */
			rk_buf_append(out, f[c].p, f[c].len);
		} else if (t == RK_T_TIMESTAMP || t == RK_T_TIMESTAMPTZ) {
			char ts[RK_TIME_STRLEN];
			rk_usec v;
			if (f[c].form == RK_FORM_INSTANT)
				v = (rk_usec)f[c].m;
			else if (rk_canon_instant(t, f[c].p, f[c].len, &v, &why) < 0)
				return rk_side_bad_value(s, c, &f[c], why, err);
			rk_buf_puts(out, rk_time_format(v, ts));
		} else if (t == RK_T_FLOAT4 || t == RK_T_FLOAT8 || t == RK_T_OTHER || t == RK_T_UNKNOWN) {
			rk_buf_append(out, f[c].p, f[c].len);
		} else if (rk_canon_text(t, f[c].p, f[c].len, out, &why) < 0) {
			return rk_side_bad_value(s, c, &f[c], why, err);
		}
		len = (uint32_t)(out->len - at - 4);
		memcpy(out->data + at, &len, 4);
	}
	return 0;
}

static bool rk_keyset_has(const rk_u128 *set, size_t n, rk_u128 key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (set[mid] == key)
			return true;
		if (set[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int rk_u128_cmp(const void *a, const void *b)
{
	rk_u128 x = *(const rk_u128 *)a, y = *(const rk_u128 *)b;

	return x < y ? -1 : x > y;
}

static int rk_drill_row(void *ctx, const rk_field *f, rk_error *err)
{
	rk_side *s = ctx;
	rk_dside *d = s->drill;
	const rk_plan *p = s->plan;
	const rk_field *tf = &f[p->time_idx];
	rk_u128 key = 0, row;
	rk_usec t;
	long g;
	bool have_row = false;

	s->rows_read++;
	if (tf->null)
		return 0;
	if (rk_side_time(s, tf, &t, err) < 0)
		return -1;
	g = rk_find_group(d->entries, d->nentries, t);
	if (g < 0 || t >= d->entries[g].node.hi)
		return 0;
	if (d->need_key) {
		if (rk_side_encode_key(s, f, err) < 0)
			return -1;
		key = rk_row_hash(s->enc.data, s->enc.len);
		if (d->keyset && !rk_keyset_has(d->keyset, d->nkeyset, key))
			return 0;
	}
	for (size_t i = (size_t)g; i < d->nentries && d->entries[i].node.lo == d->entries[g].node.lo; i++) {
		rk_entry *e = &d->entries[i];

		if (e->node.bits && ((uint64_t)key & rk_mask(e->node.bits)) != e->node.hval)
			continue;
		if (!have_row) {
			if (rk_side_encode_row(s, f, t, err) < 0)
				return -1;
			row = rk_row_hash(s->enc.data, s->enc.len);
			have_row = true;
		}
		if (!e->leaf) {
			e->sub_cnt[s->idx]++;
			e->sub_hash[s->idx] += row;
			/* both sides write these: each side has its own copy of the
			 * span, merged after the pass */
			if (t < d->span[i].min_t)
				d->span[i].min_t = t;
			if (t > d->span[i].max_t)
				d->span[i].max_t = t;
		} else {
			rk_drow *r;
			if (d->nrows == d->caprows) {
				d->caprows = d->caprows ? d->caprows * 2 : 1024;
				d->rows = rk_xrealloc(d->rows, d->caprows * sizeof *d->rows);
			}
			r = &d->rows[d->nrows++];
			r->key = key;
			r->row = row;
			r->t = t;
			r->entry = (uint32_t)i;
			r->side = (uint32_t)s->idx;
			r->disp = d->arena.len;
			if (rk_key_display(s, f, &d->arena, err) < 0)
				return -1;
		}
		break;
	}
	return 0;
}

static int rk_drill_side(rk_side *s)
{
	rk_dside *d = s->drill;
	rk_range *ranges = rk_xcalloc(d->nentries, sizeof *ranges);
	size_t n = 0;
	rk_scan scan;
	int rc;

	for (size_t i = 0; i < d->nentries; i++) {
		if (n && ranges[n - 1].to >= d->entries[i].node.lo) {
			if (d->entries[i].node.hi > ranges[n - 1].to)
				ranges[n - 1].to = d->entries[i].node.hi;
			continue;
		}
		ranges[n].from = d->entries[i].node.lo;
		ranges[n].to = d->entries[i].node.hi;
		n++;
	}
	scan.time_index = s->plan->time_idx;
	scan.ranges = ranges;
	scan.nranges = n;
	scan.include_null_time = false;
	/* binary COPY when it can show every key value as the text would: a
	 * float key is shown as PostgreSQL prints it, which its bits do not say */
	scan.binary = true;
	for (size_t i = 0; i < s->plan->nkey; i++) {
		rk_type t = s->types[s->plan->key_idx[i]];

		if (t == RK_T_FLOAT4 || t == RK_T_FLOAT8)
			scan.binary = false;
	}
	rc = rk_reader_scan(s->reader, &scan, rk_drill_row, s, &s->err);
	free(ranges);
	return rc;
}

static int rk_drow_key_cmp(const rk_drow *x, const rk_drow *y);

/* Orders collected rows by (entry, key, side, row hash). */
static int rk_drow_cmp(const void *a, const void *b)
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

static char **rk_disp_decode(const char *p, size_t nkey)
{
	char **out = rk_xcalloc(nkey ? nkey : 1, sizeof *out);

	for (size_t i = 0; i < nkey; i++) {
		uint32_t len;
		if (*p++ == 0)
			continue;
		memcpy(&len, p, 4);
		p += 4;
		out[i] = rk_xstrndup(p, len);
		p += len;
	}
	return out;
}

static void rk_tally_push(rk_tallies *ts, const rk_tally *t)
{
	if (ts->n == ts->cap) {
		ts->cap = ts->cap ? ts->cap * 2 : 64;
		ts->v = rk_xrealloc(ts->v, ts->cap * sizeof *ts->v);
	}
	ts->v[ts->n++] = *t;
}

/* Orders collected rows by (entry, key). */
static int rk_drow_key_cmp(const rk_drow *x, const rk_drow *y)
{
	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return 0;
}

/*
 * Compares the collected rows of every leaf key by key.  Each side is
 * sorted in place and the two are walked together, so comparing needs no
 * memory beyond what the pass collected.
 */
static bool rk_entry_whole(const rk_check_result *res, const rk_node *nd)
{
	rk_usec start = rk_check_window_start(res, nd->window);

	return nd->bits == 0 && nd->lo == start && nd->hi == start + res->width;
}

static void rk_drill_leaves(rk_dside *d0, rk_dside *d1, const rk_check_result *res, rk_tallies *ts,
                            rk_matches *m)
{
	size_t nkey = res->nkey, i = 0, j = 0;

	if (d0->nrows)
		qsort(d0->rows, d0->nrows, sizeof *d0->rows, rk_drow_cmp);
	if (d1->nrows)
		qsort(d1->rows, d1->nrows, sizeof *d1->rows, rk_drow_cmp);
	while (i < d0->nrows || j < d1->nrows) {
		const rk_drow *head;
		size_t ie = i, je = j, s, t;
		bool diff = false;
		int c;

		/* the smaller (entry, key) of the two heads is the next key */
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
		if (diff || s > 1) {
			const rk_dside *ds = s ? d0 : d1;
			const rk_drow *src = s ? &d0->rows[i] : &d1->rows[j];
			rk_tally tl;

			memset(&tl, 0, sizeof tl);
			tl.window = d0->entries[src->entry].node.window;
			tl.key = src->key;
			tl.s = (uint32_t)s;
			tl.t = (uint32_t)t;
			tl.diff = diff;
			tl.src_t = s ? src->t : RK_USEC_NINF;
			tl.tgt_t = t ? d1->rows[j].t : RK_USEC_NINF;
			tl.near = m && rk_entry_whole(res, &d0->entries[src->entry].node);
			tl.before = RK_USEC_NINF;
			tl.after = RK_USEC_PINF;
			tl.disp = rk_disp_decode(ds->arena.data + src->disp, nkey);
			rk_tally_push(ts, &tl);
		} else if (m && s == 1 && rk_entry_whole(res, &d0->entries[d0->rows[i].entry].node)) {
			if (m->n == m->cap) {
				m->cap = m->cap ? m->cap * 2 : 1024;
				m->v = rk_xrealloc(m->v, m->cap * sizeof *m->v);
			}
			m->v[m->n].window = d0->entries[d0->rows[i].entry].node.window;
			m->v[m->n++].t = d0->rows[i].t;
		}
		i = ie;
		j = je;
	}
}

static int rk_match_cmp(const void *a, const void *b)
{
	const struct rk_match *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* Up to this many damaged keys in a pass, the matches are scanned once per
 * key rather than sorted (a handful of keys among a window of matches is
 * the usual damage). */
#define RK_DRILL_NEAR_SCAN 32

/* Fills the nearest matching source rows of the tallies from first on,
 * from the matches the same pass collected, then forgets those. */
static void rk_drill_near(rk_tallies *ts, size_t first, rk_matches *m)
{
	size_t nnear = 0;

	for (size_t i = first; i < ts->n; i++) {
		ts->v[i].before = RK_USEC_NINF;
		ts->v[i].after = RK_USEC_PINF;
		nnear += ts->v[i].near;
	}
	if (nnear > RK_DRILL_NEAR_SCAN && m->n)
		qsort(m->v, m->n, sizeof *m->v, rk_match_cmp);
	for (size_t i = first; nnear && i < ts->n; i++) {
		rk_tally *tl = &ts->v[i];
		rk_usec at = tl->s ? tl->src_t : tl->tgt_t;
		size_t lo = 0, hi = m->n;

		if (!tl->near)
			continue;
		if (nnear <= RK_DRILL_NEAR_SCAN) {
			for (size_t k = 0; k < m->n; k++) {
				const struct rk_match *x = &m->v[k];
				if (x->window != tl->window)
					continue;
				if (x->t <= at && x->t > tl->before)
					tl->before = x->t;
				if (x->t >= at && x->t < tl->after)
					tl->after = x->t;
			}
			continue;
		}
		/* the first match of the window at or after at */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->v[mid].window < tl->window || (m->v[mid].window == tl->window && m->v[mid].t < at))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < m->n && m->v[lo].window == tl->window)
			tl->after = m->v[lo].t;
		if (lo < m->n && m->v[lo].window == tl->window && m->v[lo].t == at)
			tl->before = at;
		else if (lo > 0 && m->v[lo - 1].window == tl->window)
			tl->before = m->v[lo - 1].t;
	}
	m->n = 0;
}

static int rk_tally_cmp(const void *a, const void *b)
{
	const rk_tally *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return 0;
}

/* qsort takes no context; a job checks tables on several threads */
static _Thread_local int rk_finding_cmp_nkey;

static int rk_finding_cmp(const void *a, const void *b)
{
	const rk_finding *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	for (int i = 0; i < rk_finding_cmp_nkey; i++) {
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

/* Adds one finding; the key texts are copied. */
static void rk_add_finding(rk_check_result *res, const rk_tally *t, rk_find_kind kind)
{
	rk_finding *f;

	res->findings = rk_xrealloc(res->findings, (res->nfindings + 1) * sizeof *res->findings);
	f = &res->findings[res->nfindings++];
	f->window = t->window;
	f->kind = kind;
	f->source_copies = t->s;
	f->target_copies = t->t;
	f->source_time = t->src_t;
	f->target_time = t->tgt_t;
	f->match_before = t->before;
	f->match_after = t->after;
	f->near_known = t->near;
	f->key = rk_xcalloc(res->nkey ? res->nkey : 1, sizeof *f->key);
	for (size_t i = 0; i < res->nkey; i++)
		f->key[i] = t->disp[i] ? rk_xstrdup(t->disp[i]) : NULL;
	res->kind_count[kind]++;
	res->win_kind[t->window][kind]++;
}

static void rk_tally_free(rk_tally *t, size_t nkey)
{
	for (size_t c = 0; c < nkey; c++)
		free(t->disp[c]);
	free(t->disp);
}

/* Turns tallies into findings.  Each (window, key) has one tally: a leaf
 * holds all copies of a key in its slice, and the keys of time-split
 * windows were re-judged whole by rk_drill_verify; the merge below only
 * guards that invariant. */
static void rk_classify(rk_check_result *res, rk_tallies *ts)
{
	size_t i = 0;

	if (ts->n)
		qsort(ts->v, ts->n, sizeof *ts->v, rk_tally_cmp);
	while (i < ts->n) {
		rk_tally m = ts->v[i];
		size_t j = i + 1;

		for (; j < ts->n && ts->v[j].window == m.window && ts->v[j].key == m.key; j++) {
			m.s += ts->v[j].s;
			m.t += ts->v[j].t;
			m.diff = true;
			m.near = false;
			if (m.src_t == RK_USEC_NINF)
				m.src_t = ts->v[j].src_t;
			if (m.tgt_t == RK_USEC_NINF)
				m.tgt_t = ts->v[j].tgt_t;
			rk_tally_free(&ts->v[j], res->nkey);
		}
		if (m.s > 1)
			rk_add_finding(res, &m, RK_FIND_SOURCE_DUPLICATE);
		if (m.s == 0)
			rk_add_finding(res, &m, RK_FIND_EXTRA);
		else if (m.t < m.s)
			rk_add_finding(res, &m, RK_FIND_MISSING);
		else if (m.t > m.s)
			rk_add_finding(res, &m, RK_FIND_DUPLICATED);
		else if (m.diff)
			rk_add_finding(res, &m, RK_FIND_CHANGED);
		rk_tally_free(&m, res->nkey);
		i = j;
	}
	rk_finding_cmp_nkey = (int)res->nkey;
	if (res->nfindings)
		qsort(res->findings, res->nfindings, sizeof *res->findings, rk_finding_cmp);
}

static void rk_entry_push(rk_entry **v, size_t *n, size_t *cap, const rk_node *node, bool leaf)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = rk_xrealloc(*v, *cap * sizeof **v);
	}
	memset(&(*v)[*n], 0, sizeof **v);
	(*v)[*n].node = *node;
	(*v)[*n].leaf = leaf;
	(*n)++;
}

static void rk_queue_push(rk_node **q, size_t *n, size_t *cap, const rk_node *node)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*q = rk_xrealloc(*q, *cap * sizeof **q);
	}
	(*q)[(*n)++] = *node;
}

/*
 * A window split by time may hold copies of one key in different slices:
 * each slice then judged only its own copies (a duplicate whose second copy
 * moved in time looked "extra" in one slice and fine in the other).  For
 * the keys with a tally in such a window, one more pass re-reads those
 * windows whole, keeps only the rows of those keys, and judges each key on
 * all its copies.  It holds only the rows of damaged keys.
 */
static int rk_drill_verify(rk_side sides[2], rk_check_result *res, const bool *split_time, rk_dside ds[2],
                           rk_tallies *ts, rk_error *err)
{
	rk_u128 *keys = NULL;
	rk_entry *entries = NULL;
	bool *has = NULL;
	size_t nkeys = 0, ne = 0, cape = 0, kept = 0;
	rk_side *both[2] = {&sides[0], &sides[1]};
	uint64_t before = res->side[0].rows_read + res->side[1].rows_read;
	int rc;

	for (size_t i = 0; i < ts->n; i++)
		nkeys += split_time[ts->v[i].window];
	if (!nkeys)
		return 0;
	keys = rk_xmalloc(nkeys * sizeof *keys);
	nkeys = 0;
	has = rk_xcalloc(res->nwindows, sizeof *has);
	for (size_t i = 0; i < ts->n; i++)
		has[ts->v[i].window] |= split_time[ts->v[i].window];
	for (size_t w = 0; w < res->nwindows; w++) {
		if (has[w]) {
			rk_node node = {w, rk_check_window_start(res, w), rk_check_window_start(res, w) + res->width, 0, 0,
			                {0, 0}};
			rk_entry_push(&entries, &ne, &cape, &node, true);
		}
	}
	/* the tallies of those windows are replaced by the exact ones */
	for (size_t i = 0; i < ts->n; i++) {
		if (split_time[ts->v[i].window]) {
			keys[nkeys++] = ts->v[i].key;
			rk_tally_free(&ts->v[i], res->nkey);
		} else {
			ts->v[kept++] = ts->v[i];
		}
	}
	ts->n = kept;
	qsort(keys, nkeys, sizeof *keys, rk_u128_cmp);
	for (int s = 0; s < 2; s++) {
		ds[s].entries = entries;
		ds[s].nentries = ne;
		ds[s].need_key = true;
		ds[s].keyset = keys;
		ds[s].nkeyset = nkeys;
		ds[s].nrows = 0;
		rk_buf_reset(&ds[s].arena);
		ds[s].span = rk_xrealloc(ds[s].span, ne * sizeof *ds[s].span);
	}
	res->drill_passes++;
	rk_log_info("drilldown pass %d: all copies of %zu key(s) in %zu time-split window(s)", res->drill_passes, nkeys,
	            ne);
	rc = rk_sides_parallel(both, 2, rk_drill_side, err);
	res->drill_rows += res->side[0].rows_read + res->side[1].rows_read - before;
	if (rc == 0)
		rk_drill_leaves(&ds[0], &ds[1], res, ts, NULL);
	for (int s = 0; s < 2; s++)
		ds[s].keyset = NULL;
	free(keys);
	free(entries);
	free(has);
	return rc;
}

int rk_drill_run(rk_side sides[2], const rk_check_spec *spec, rk_check_result *res, rk_error *err)
{
	size_t leaf = spec->leaf_rows ? spec->leaf_rows : RK_CHECK_LEAF_ROWS;
	rk_node *queue = NULL, *next = NULL;
	size_t nq = 0, capq = 0, nn = 0, capn = 0;
	rk_dside ds[2];
	rk_tallies ts = {NULL, 0, 0};
	rk_matches matches = {NULL, 0, 0};
	bool *split_time = rk_xcalloc(res->nwindows ? res->nwindows : 1, sizeof *split_time);
	int rc = -1;

	memset(ds, 0, sizeof ds);
	for (size_t w = 0; w < res->nclosed; w++) {
		rk_node node = {w, rk_check_window_start(res, w), rk_check_window_start(res, w) + res->width, 0, 0,
		                {res->side[0].rows[w], res->side[1].rows[w]}};
		if (res->status[w] == RK_WIN_DIFFER)
			rk_queue_push(&queue, &nq, &capq, &node);
	}
	sides[0].drill = &ds[0];
	sides[1].drill = &ds[1];
	while (nq > 0) {
		rk_entry *entries = NULL;
		size_t ne = 0, cape = 0;
		uint64_t budget[2] = {0, 0};
		bool any_leaf = false;
		uint64_t before = res->side[0].rows_read + res->side[1].rows_read;

		nn = 0;
		for (size_t i = 0; i < nq; i++) {
			rk_node *nd = &queue[i];
			bool splittable = nd->hi - nd->lo > 1 || nd->bits < 64;
			uint64_t most = nd->cnt[0] > nd->cnt[1] ? nd->cnt[0] : nd->cnt[1];
			bool small = most <= leaf;
			size_t pieces;

			if (small || !splittable) {
				if (any_leaf && (budget[0] + nd->cnt[0] > leaf || budget[1] + nd->cnt[1] > leaf)) {
					rk_queue_push(&next, &nn, &capn, nd);   /* next pass */
					continue;
				}
				if (!small)
					rk_log_warn("window %zu: %llu rows share one instant and one key hash; comparing them "
					            "beyond --leaf-rows", nd->window, (unsigned long long)most);
				rk_entry_push(&entries, &ne, &cape, nd, true);
				budget[0] += nd->cnt[0];
				budget[1] += nd->cnt[1];
				any_leaf = true;
				continue;
			}
			/* enough pieces that an even spread lands at leaf size next pass */
			pieces = (size_t)(most / leaf) * 2 + 2;
			if (pieces > RK_DRILL_FANOUT)
				pieces = RK_DRILL_FANOUT;
			if (nd->hi - nd->lo > 1) {
				rk_usec span = nd->hi - nd->lo;
				split_time[nd->window] = true;
				if ((rk_usec)pieces > span)
					pieces = (size_t)span;
				for (size_t k = 0; k < pieces; k++) {
					rk_node c = *nd;
					c.lo = nd->lo + (rk_usec)((__int128)span * (rk_usec)k / (rk_usec)pieces);
					c.hi = nd->lo + (rk_usec)((__int128)span * (rk_usec)(k + 1) / (rk_usec)pieces);
					rk_entry_push(&entries, &ne, &cape, &c, false);
				}
			} else {
				uint32_t more = 1;
				while ((UINT64_C(1) << more) < pieces && nd->bits + more < 64)
					more++;
				for (uint64_t k = 0; k < (UINT64_C(1) << more); k++) {
					rk_node c = *nd;
					c.bits = nd->bits + more;
					c.hval = nd->hval | (k << nd->bits);
					rk_entry_push(&entries, &ne, &cape, &c, false);
				}
			}
		}
		if (ne)
			qsort(entries, ne, sizeof *entries, rk_entry_cmp);
		for (int s = 0; s < 2; s++) {
			ds[s].entries = entries;
			ds[s].nentries = ne;
			ds[s].span = rk_xrealloc(ds[s].span, (ne ? ne : 1) * sizeof *ds[s].span);
			for (size_t i = 0; i < ne; i++) {
				ds[s].span[i].min_t = RK_USEC_PINF;
				ds[s].span[i].max_t = RK_USEC_NINF;
			}
			ds[s].need_key = any_leaf;
			for (size_t i = 0; i < ne; i++)
				ds[s].need_key |= entries[i].node.bits > 0;
			ds[s].nrows = 0;
			rk_buf_reset(&ds[s].arena);
		}
		res->drill_passes++;
		rk_log_info("drilldown pass %d: %zu ranges", res->drill_passes, ne);
		rk_side *both[2] = {&sides[0], &sides[1]};

		if (rk_sides_parallel(both, 2, rk_drill_side, err) < 0) {
			free(entries);
			goto done;
		}
		res->drill_rows += res->side[0].rows_read + res->side[1].rows_read - before;
		{
			size_t first = ts.n;

			rk_drill_leaves(&ds[0], &ds[1], res, &ts, spec->diagnose ? &matches : NULL);
			rk_drill_near(&ts, first, &matches);
		}
		for (size_t i = 0; i < ne; i++) {
			rk_entry *e = &entries[i];
			if (e->leaf)
				continue;
			if (e->sub_cnt[0] == e->sub_cnt[1] && e->sub_hash[0] == e->sub_hash[1])
				continue;
			e->node.cnt[0] = e->sub_cnt[0];
			e->node.cnt[1] = e->sub_cnt[1];
			/* shrink the range to the rows actually in it */
			{
				rk_usec mn = ds[0].span[i].min_t < ds[1].span[i].min_t ? ds[0].span[i].min_t : ds[1].span[i].min_t;
				rk_usec mx = ds[0].span[i].max_t > ds[1].span[i].max_t ? ds[0].span[i].max_t : ds[1].span[i].max_t;
				if (mn >= e->node.lo && mx < e->node.hi && mn <= mx) {
					e->node.lo = mn;
					e->node.hi = mx + 1;
				}
			}
			rk_queue_push(&next, &nn, &capn, &e->node);
		}
		free(entries);
		{
			rk_node *tmp = queue;
			size_t tcap = capq;
			queue = next;
			nq = nn;
			capq = capn;
			next = tmp;
			capn = tcap;
		}
	}
	if (rk_drill_verify(sides, res, split_time, ds, &ts, err) < 0)
		goto done;
	rk_classify(res, &ts);
	rc = 0;
done:
	if (rc < 0) {
		for (size_t i = 0; i < ts.n; i++)
			rk_tally_free(&ts.v[i], res->nkey);
	}
	free(ts.v);
	free(matches.v);
	for (int s = 0; s < 2; s++) {
		free(ds[s].rows);
		free(ds[s].span);
		rk_buf_free(&ds[s].arena);
		rk_buf_free(&ds[s].disp);
		sides[s].drill = NULL;
	}
	free(queue);
	free(next);
	free(split_time);
	return rc;
}
