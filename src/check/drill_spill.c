/*
 * drill_spill.c - the drilldown's verify pass through a spill
 * (drill_spill.h).  A record is a row's fields at fixed offsets, in host
 * byte order (a spill lives and dies with the process), then its key's
 * display text.
 */
#include "check/drill_spill.h"

#include <stdlib.h>
#include <string.h>

/* offsets of the fields in a record */
#define RK_REC_KEY 0
#define RK_REC_ROW 16
#define RK_REC_T 32
#define RK_REC_WINDOW 40
#define RK_REC_ENTRY 48
#define RK_REC_SIDE 52
#define RK_REC_DAMAGED 54

void rk_drow_pack(const rk_drow *r, rk_buf *out)
{
	unsigned char *p;
	uint64_t w = (uint64_t)r->window;

	rk_buf_grow(out, RK_DROW_REC);
	p = (unsigned char *)out->data + out->len;
	memcpy(p + RK_REC_KEY, &r->key, 16);
	memcpy(p + RK_REC_ROW, &r->row, 16);
	memcpy(p + RK_REC_T, &r->t, 8);
	memcpy(p + RK_REC_WINDOW, &w, 8);
	memcpy(p + RK_REC_ENTRY, &r->entry, 4);
	memcpy(p + RK_REC_SIDE, &r->side, 2);
	p[RK_REC_DAMAGED] = r->damaged;
	out->len += RK_DROW_REC;
}

void rk_drow_unpack(const void *rec, rk_drow *r)
{
	const unsigned char *p = rec;
	uint64_t w;

	memset(r, 0, sizeof *r);
	memcpy(&r->key, p + RK_REC_KEY, 16);
	memcpy(&r->row, p + RK_REC_ROW, 16);
	memcpy(&r->t, p + RK_REC_T, 8);
	memcpy(&w, p + RK_REC_WINDOW, 8);
	memcpy(&r->entry, p + RK_REC_ENTRY, 4);
	memcpy(&r->side, p + RK_REC_SIDE, 2);
	r->window = (size_t)w;
	r->damaged = p[RK_REC_DAMAGED] != 0;
}

int rk_drow_rec_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx)
{
	rk_drow x, y;

	(void)alen;
	(void)blen;
	(void)ctx;
	rk_drow_unpack(a, &x);
	rk_drow_unpack(b, &y);
	return rk_drow_cmp(&x, &y);
}

rk_spill *rk_drow_spill_new(const char *dir)
{
	return rk_spill_new(dir, rk_spill_share_bound(), rk_drow_rec_cmp, NULL);
}

int rk_drow_spill_join(rk_spill *to, rk_spill *from, rk_error *err)
{
	rk_buf rec = RK_BUF_INIT;
	const void *p;
	size_t len;
	int more = 0;

	if (rk_spill_finish(from, err) < 0)
		return -1;
	while ((more = rk_spill_next(from, &p, &len, err)) > 0) {
		uint16_t side = 0;

		rk_buf_reset(&rec);
		rk_buf_append(&rec, p, len);
		memcpy(rec.data + RK_REC_SIDE, &side, 2);
		if (rk_spill_add(to, rec.data, rec.len, err) < 0) {
			more = -1;
			break;
		}
	}
	rk_buf_free(&rec);
	if (more < 0)
		return -1;
	return rk_spill_finish(to, err);
}

/* The next record of rows into *r (and its bytes into *rec): 1, 0 at the
 * end, -1 with err. */
static int rk_verify_next(rk_spill *rows, rk_drow *r, const char **rec, rk_error *err)
{
	const void *p;
	size_t len;
	int more = rk_spill_next(rows, &p, &len, err);

	if (more > 0) {
		rk_drow_unpack(p, r);
		*rec = p;
	}
	return more;
}

int rk_verify_stream(rk_spill *rows, rk_tallies *ts, rk_tally_sink sink, void *ctx, rk_error *err)
{
	const char *rec = NULL;
	rk_buf disp = RK_BUF_INIT;
	rk_drow r;
	rk_tally t;
	int more = rows ? rk_verify_next(rows, &r, &rec, err) : 0, got = 0;

	while (more >= 0 && (got = rk_tallies_next(ts, NULL, &t, err)) > 0) {
		rk_drow probe;
		size_t n = 0;
		uint32_t m;

		if (rows && ts->split_time[t.window]) {
			probe.window = t.window;
			probe.key = t.key;
			while (more > 0 && rk_drow_key_cmp(&r, &probe) < 0)
				more = rk_verify_next(rows, &r, &rec, err);
			/* the source's copies of (window, key): a run of the sorted rows */
			for (; more > 0 && !rk_drow_key_cmp(&r, &probe); n++) {
				if (!n) {
					/* the first source copy, and its display, as a
					 * leaf holding every copy would have taken them */
					t.src_t = r.t;
					t.src_lo = RK_USEC_PINF;
					t.src_hi = RK_USEC_NINF;
					rk_buf_reset(&disp);
					rk_buf_append(&disp, rec + RK_DROW_REC, rk_disp_len(rec + RK_DROW_REC, ts->nkey));
				}
				if (r.t < t.src_lo)
					t.src_lo = r.t;
				if (r.t > t.src_hi)
					t.src_hi = r.t;
				more = rk_verify_next(rows, &r, &rec, err);
			}
			if (more < 0)
				break;
			/* a copy the leaves held is among them: the others are those
			 * of ranges that matched, on both sides alike */
			m = n > t.s ? (uint32_t)n - t.s : 0;
			t.s += m;
			t.t += m;
			if (n)
				t.enc = disp.data;
		}
		if (sink(ctx, &t, err) < 0) {
			got = -1;
			break;
		}
	}
	rk_buf_free(&disp);
	return more < 0 || got < 0 ? -1 : 0;
}
