/*
 * tallies.c - the drilldown's tallies through a spill (tallies.h).  A
 * record is a tally's fields at fixed offsets, in host byte order (a spill
 * lives and dies with the process), then its key's display encoding.
 */
#include "check/tallies.h"

#include <stdlib.h>
#include <string.h>

/* offsets of the fields in a record */
#define RK_TREC_KEY 0
#define RK_TREC_HS 16
#define RK_TREC_HT 32
#define RK_TREC_WINDOW 48
#define RK_TREC_SRC_T 56
#define RK_TREC_TGT_T 64
#define RK_TREC_SRC_LO 72
#define RK_TREC_SRC_HI 80
#define RK_TREC_LEAF_LO 88
#define RK_TREC_LEAF_HI 96
#define RK_TREC_S 104
#define RK_TREC_T 108
#define RK_TREC 112

void rk_held_add(rk_helds *h, rk_usec lo, rk_usec hi)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 256;
		h->v = rk_xrealloc(h->v, h->cap * sizeof *h->v);
	}
	h->v[h->n].lo = lo;
	h->v[h->n++].hi = hi;
}

const char *rk_disp_field(const char *p, const char **text, uint32_t *len)
{
	*text = NULL;
	*len = 0;
	if (*p++ == 0)
		return p;
	memcpy(len, p, 4);
	*text = p + 4;
	return p + 4 + *len;
}

size_t rk_disp_len(const char *p, size_t nkey)
{
	const char *q = p, *text;
	uint32_t len;

	for (size_t i = 0; i < nkey; i++)
		q = rk_disp_field(q, &text, &len);
	return (size_t)(q - p);
}

/* Keys of up to this many columns are decoded without a temporary
 * allocation (rk_disp_decode runs once a finding). */
#define RK_DISP_STACK 8

char **rk_disp_decode(rk_keypool *kp, const char *p, size_t nkey)
{
	const char *vs[RK_DISP_STACK] = { NULL };
	size_t ls[RK_DISP_STACK] = { 0 };
	const char **v = nkey > RK_DISP_STACK ? rk_xcalloc(nkey, sizeof *v) : vs;
	size_t *len = nkey > RK_DISP_STACK ? rk_xcalloc(nkey, sizeof *len) : ls;
	char **out;

	for (size_t i = 0; i < nkey; i++) {
		uint32_t l;

		p = rk_disp_field(p, &v[i], &l);
		len[i] = l;
	}
	out = kp ? rk_keypool_key(kp, v, len, nkey) : rk_key_texts(v, len, nkey);
	if (nkey > RK_DISP_STACK) {
		free(v);
		free(len);
	}
	return out;
}

static void rk_tally_pack(const rk_tally *t, size_t nkey, rk_buf *out)
{
	size_t dl = rk_disp_len(t->enc, nkey);
	uint64_t w = (uint64_t)t->window;
	unsigned char *p;

	rk_buf_reset(out);
	rk_buf_grow(out, RK_TREC + dl);
	p = (unsigned char *)out->data;
	memcpy(p + RK_TREC_KEY, &t->key, 16);
	memcpy(p + RK_TREC_HS, &t->hs, 16);
	memcpy(p + RK_TREC_HT, &t->ht, 16);
	memcpy(p + RK_TREC_WINDOW, &w, 8);
	memcpy(p + RK_TREC_SRC_T, &t->src_t, 8);
	memcpy(p + RK_TREC_TGT_T, &t->tgt_t, 8);
	memcpy(p + RK_TREC_SRC_LO, &t->src_lo, 8);
	memcpy(p + RK_TREC_SRC_HI, &t->src_hi, 8);
	memcpy(p + RK_TREC_LEAF_LO, &t->leaf_lo, 8);
	memcpy(p + RK_TREC_LEAF_HI, &t->leaf_hi, 8);
	memcpy(p + RK_TREC_S, &t->s, 4);
	memcpy(p + RK_TREC_T, &t->t, 4);
	memcpy(p + RK_TREC, t->enc, dl);
	out->len = RK_TREC + dl;
}

/* The fields of the record at p; enc points into it. */
static void rk_tally_unpack(const void *rec, rk_tally *t)
{
	const unsigned char *p = rec;
	uint64_t w;

	memcpy(&t->key, p + RK_TREC_KEY, 16);
	memcpy(&t->hs, p + RK_TREC_HS, 16);
	memcpy(&t->ht, p + RK_TREC_HT, 16);
	memcpy(&w, p + RK_TREC_WINDOW, 8);
	memcpy(&t->src_t, p + RK_TREC_SRC_T, 8);
	memcpy(&t->tgt_t, p + RK_TREC_TGT_T, 8);
	memcpy(&t->src_lo, p + RK_TREC_SRC_LO, 8);
	memcpy(&t->src_hi, p + RK_TREC_SRC_HI, 8);
	memcpy(&t->leaf_lo, p + RK_TREC_LEAF_LO, 8);
	memcpy(&t->leaf_hi, p + RK_TREC_LEAF_HI, 8);
	memcpy(&t->s, p + RK_TREC_S, 4);
	memcpy(&t->t, p + RK_TREC_T, 4);
	t->window = (size_t)w;
	t->enc = (const char *)p + RK_TREC;
}

/* (window, key), the order of the records */
static int rk_tally_rec_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx)
{
	uint64_t wa, wb;
	rk_u128 ka, kb;

	(void)alen;
	(void)blen;
	(void)ctx;
	memcpy(&wa, (const char *)a + RK_TREC_WINDOW, 8);
	memcpy(&wb, (const char *)b + RK_TREC_WINDOW, 8);
	if (wa != wb)
		return wa < wb ? -1 : 1;
	memcpy(&ka, (const char *)a + RK_TREC_KEY, 16);
	memcpy(&kb, (const char *)b + RK_TREC_KEY, 16);
	return ka < kb ? -1 : ka > kb;
}

void rk_tallies_init(rk_tallies *ts, const char *dir, size_t bound, size_t nkey, const bool *split_time)
{
	memset(ts, 0, sizeof *ts);
	ts->sp = rk_spill_new(dir, bound, rk_tally_rec_cmp, NULL);
	ts->nkey = nkey;
	ts->split_time = split_time;
	ts->add = (rk_buf)RK_BUF_INIT;
	ts->cur = (rk_buf)RK_BUF_INIT;
	ts->ahead = (rk_buf)RK_BUF_INIT;
}

int rk_tallies_add(rk_tallies *ts, const rk_tally *t, rk_error *err)
{
	rk_tally_pack(t, ts->nkey, &ts->add);
	if (rk_spill_add(ts->sp, ts->add.data, ts->add.len, err) < 0)
		return -1;
	ts->n++;
	ts->nsplit += ts->split_time[t->window];
	return 0;
}

int rk_tallies_finish(rk_tallies *ts, rk_error *err)
{
	ts->have_ahead = false;
	rk_buf_free(&ts->add);
	return rk_spill_finish(ts->sp, err);
}

int rk_tallies_rewind(rk_tallies *ts, rk_error *err)
{
	ts->have_ahead = false;
	return rk_spill_rewind(ts->sp, err);
}

/* Reads the next record into ts->ahead: 1, 0 at the end, -1 with err. */
static int rk_tallies_read(rk_tallies *ts, rk_error *err)
{
	const void *p;
	size_t len;
	int more = rk_spill_next(ts->sp, &p, &len, err);

	if (more > 0) {
		rk_buf_reset(&ts->ahead);
		rk_buf_append(&ts->ahead, p, len);
	}
	ts->have_ahead = more > 0;
	return more;
}

/* Tally b's copies added to a's (one key of one window). */
static void rk_tally_merge(rk_tally *a, const rk_tally *b)
{
	a->s += b->s;
	a->t += b->t;
	a->hs += b->hs;
	a->ht += b->ht;
	if (a->src_t == RK_USEC_NINF)
		a->src_t = b->src_t;
	if (a->tgt_t == RK_USEC_NINF)
		a->tgt_t = b->tgt_t;
	if (b->src_lo < a->src_lo)
		a->src_lo = b->src_lo;
	if (b->src_hi > a->src_hi)
		a->src_hi = b->src_hi;
	if (b->leaf_lo < a->leaf_lo)
		a->leaf_lo = b->leaf_lo;
	if (b->leaf_hi > a->leaf_hi)
		a->leaf_hi = b->leaf_hi;
}

int rk_tallies_next(rk_tallies *ts, rk_helds *held, rk_tally *t, rk_error *err)
{
	for (;;) {
		rk_buf swap;
		int more = ts->have_ahead ? 1 : rk_tallies_read(ts, err);

		if (more <= 0)
			return more;
		/* the record read ahead is the key's first */
		swap = ts->cur;
		ts->cur = ts->ahead;
		ts->ahead = swap;
		ts->have_ahead = false;
		rk_tally_unpack(ts->cur.data, t);
		while ((more = rk_tallies_read(ts, err)) > 0) {
			rk_tally o;

			rk_tally_unpack(ts->ahead.data, &o);
			if (o.window != t->window || o.key != t->key)
				break;
			rk_tally_merge(t, &o);
			ts->have_ahead = false;
		}
		if (more < 0)
			return -1;
		if (ts->nsplit && t->s == t->t && t->hs == t->ht) {
			if (held && t->s)
				rk_held_add(held, t->src_lo, t->src_hi);
			continue;
		}
		return 1;
	}
}

void rk_tallies_free(rk_tallies *ts)
{
	rk_spill_free(ts->sp);
	rk_buf_free(&ts->add);
	rk_buf_free(&ts->cur);
	rk_buf_free(&ts->ahead);
	memset(ts, 0, sizeof *ts);
}
