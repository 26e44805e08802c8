/*
 * test_drill.c - the drilldown without a server: its planner (split
 * fan-out, leaf budget, range shrinking) on its own, and the whole check -
 * digest pass, drilldown streamed or narrowed "in the database" - over fake
 * readers registered behind the reader API, against a naive diff of random
 * damage (many rows at one instant, composite keys with NULLs, damage on
 * both sides, duplicates); and what it notes for the diagnosis: where the
 * source rows that belong to no finding lie, so that a gap or a repeat
 * covering part of a window is named whatever the drilldown's split.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/check.h"
#include "check/diagnose.h"
#include "check/drill.h"
#include "core/canon.h"
#include "core/digest.h"
#include "core/log.h"
#include "../hooks/hooks.h"
#include "io/reader_impl.h"

/* ------------------------------------------------------------------------
 * The planner
 * ---------------------------------------------------------------------- */

static rk_node node(size_t w, rk_usec lo, rk_usec hi, uint64_t c0, uint64_t c1)
{
	rk_node n = { w, lo, hi, 0, 0, { c0, c1 } };

	return n;
}

/* Leaves are taken while they fit the budget (the first always); the
 * others wait for a later round, in order. */
static void test_plan_leaf_budget(void **state)
{
	rk_node q[4] = { node(0, 0, 10, 60, 50), node(1, 10, 20, 60, 60), node(2, 20, 30, 30, 40), node(3, 30, 40, 20, 1) };
	rk_drill_round rd;
	rk_nodes wait = { NULL, 0, 0 };
	bool split[4] = { false };

	(void)state;
	memset(&rd, 0, sizeof rd);
	rk_drill_plan(q, 4, 100, false, &rd, &wait, split);
	assert_int_equal(rd.nleaves, 2);
	assert_int_equal(rd.nentries, 2);
	assert_int_equal(rd.nparts, 0);
	assert_int_equal(rd.entries[0].node.window, 0);
	assert_int_equal(rd.entries[1].node.window, 2);
	assert_int_equal(wait.n, 2);
	assert_int_equal(wait.v[0].window, 1);
	assert_int_equal(wait.v[1].window, 3);
	/* a node bigger than the budget on its own is split, not waited for */
	wait.n = 0;
	q[0].cnt[1] = 101;
	rk_drill_plan(q, 1, 100, false, &rd, &wait, split);
	assert_int_equal(rd.nleaves, 0);
	assert_int_equal(rd.nparts, 1);
	assert_true(split[0]);
	rk_drill_round_free(&rd);
	free(wait.v);
}

/* A time split: enough pieces of one width that an even spread lands at
 * leaf size (at most RK_DRILL_FANOUT; always that many when eager), which
 * tile the node's range; never more pieces than instants. */
static void test_plan_time_split(void **state)
{
	rk_node q[1] = { node(0, 1000, 2000, 1000, 990) };
	rk_drill_round rd;
	rk_nodes wait = { NULL, 0, 0 };
	bool split[1] = { false };

	(void)state;
	memset(&rd, 0, sizeof rd);
	rk_drill_plan(q, 1, 100, false, &rd, &wait, split);
	/* 1000 / 100 * 2 + 2 = 22 pieces of ceil(1000 / 22) = 46: 22 of them */
	assert_int_equal(rd.nparts, 1);
	assert_int_equal(rd.parts[0].width, 46);
	assert_int_equal(rd.parts[0].lo, 1000);
	assert_int_equal(rd.nentries, 22);
	for (size_t i = 0; i < rd.nentries; i++) {
		const rk_entry *e = &rd.entries[i];

		assert_false(e->leaf);
		assert_int_equal(e->part, 0);
		assert_int_equal(e->piece, i);
		assert_int_equal(e->node.lo, 1000 + (rk_usec)i * 46);
		assert_int_equal(e->node.hi, i == 21 ? 2000 : 1000 + (rk_usec)(i + 1) * 46);
		assert_int_equal(rd.piece_entry[rd.part_first[0] + i], i);
	}
	assert_true(split[0]);
	rk_drill_plan(q, 1, 100, true, &rd, &wait, split);
	/* 64 wanted: pieces of ceil(1000 / 64) = 16, 63 of them */
	assert_int_equal(rd.parts[0].width, 16);
	assert_int_equal(rd.nentries, 63);
	/* 5 instants: 5 pieces */
	q[0] = node(0, 7, 12, 500, 500);
	rk_drill_plan(q, 1, 100, true, &rd, &wait, split);
	assert_int_equal(rd.nentries, 5);
	assert_int_equal(rd.parts[0].width, 1);
	rk_drill_round_free(&rd);
	free(wait.v);
}

/* One instant: split by more bits of the key hash, not by time (the
 * window is not marked time-split); all 64 bits taken: a leaf whatever its
 * size. */
static void test_plan_hash_split(void **state)
{
	rk_node q[1] = { node(3, 50, 51, 1000, 1000) };
	rk_drill_round rd;
	rk_nodes wait = { NULL, 0, 0 };
	bool split[4] = { false };

	(void)state;
	memset(&rd, 0, sizeof rd);
	q[0].bits = 2;
	q[0].hval = 1;
	rk_drill_plan(q, 1, 100, false, &rd, &wait, split);
	/* 22 pieces wanted: 5 more bits */
	assert_int_equal(rd.nparts, 1);
	assert_int_equal(rd.parts[0].width, 0);
	assert_int_equal(rd.parts[0].more, 5);
	assert_int_equal(rd.parts[0].keybits.bits, 2);
	assert_int_equal(rd.nentries, 32);
	for (size_t i = 0; i < rd.nentries; i++) {
		const rk_entry *e = &rd.entries[i];

		assert_int_equal(e->node.bits, 7);
		assert_int_equal(e->node.hval & 3, 1);
		assert_int_equal(e->node.lo, 50);
		assert_int_equal(rd.entries[rd.piece_entry[rd.part_first[0] + e->piece]].piece, e->piece);
		assert_int_equal(e->node.hval >> 2, e->piece);
	}
	assert_false(split[3]);
	q[0].bits = 64;
	rk_drill_plan(q, 1, 100, false, &rd, &wait, split);
	assert_int_equal(rd.nleaves, 1);
	assert_int_equal(rd.nparts, 0);
	rk_drill_round_free(&rd);
	free(wait.v);
}

/* After a round: the pieces whose digests differ go on, with their
 * counts, shrunk to the span of their rows on both sides. */
static void test_next_shrinks(void **state)
{
	rk_node q[1] = { node(0, 0, 6400, 1000, 1000) };
	rk_drill_round rd;
	rk_nodes wait = { NULL, 0, 0 }, next = { NULL, 0, 0 };
	bool split[1] = { false };

	(void)state;
	memset(&rd, 0, sizeof rd);
	rk_drill_plan(q, 1, 100, true, &rd, &wait, split);
	assert_int_equal(rd.nentries, 64);
	/* piece 3 [300, 400): rows at 310..340 and 320..390, one more row on a side */
	rd.entries[3].sub_cnt[0] = 5;
	rd.entries[3].sub_cnt[1] = 6;
	rd.entries[3].min_t[0] = 310;
	rd.entries[3].max_t[0] = 340;
	rd.entries[3].min_t[1] = 320;
	rd.entries[3].max_t[1] = 390;
	/* piece 7: same count, other hash; rows on one side only at 777 */
	rd.entries[7].sub_cnt[0] = rd.entries[7].sub_cnt[1] = 1;
	rd.entries[7].sub_hash[0] = 1;
	rd.entries[7].sub_hash[1] = 2;
	rd.entries[7].min_t[0] = rd.entries[7].max_t[0] = 777;
	/* piece 9: equal digests, so not in question */
	rd.entries[9].sub_cnt[0] = rd.entries[9].sub_cnt[1] = 4;
	rk_drill_next(&rd, &next);
	assert_int_equal(next.n, 2);
	assert_int_equal(next.v[0].lo, 310);
	assert_int_equal(next.v[0].hi, 391);
	assert_int_equal(next.v[0].cnt[0], 5);
	assert_int_equal(next.v[0].cnt[1], 6);
	assert_int_equal(next.v[1].lo, 777);
	assert_int_equal(next.v[1].hi, 778);
	rk_drill_round_free(&rd);
	free(wait.v);
	free(next.v);
}

/* ------------------------------------------------------------------------
 * Fake readers: a table of (k1 bigint, k2 text, ts timestamptz, v text)
 * in memory, named by the conn after the prefix ("fake:src").
 * ---------------------------------------------------------------------- */

#define NCOL 4
enum { C_K1,
       C_K2,
       C_TS,
       C_V };
static const rk_type col_type[NCOL] = { RK_T_INT8, RK_T_TEXT, RK_T_TIMESTAMPTZ, RK_T_TEXT };
static const char *const col_name[NCOL] = { "k1", "k2", "ts", "v" };

typedef struct frow {
	long long k1;
	bool k1_null;
	char k2[8];
	bool k2_null;
	rk_usec ts;
	bool ts_null;
	char v[16];
} frow;

typedef struct ftable {
	frow *rows;
	size_t n, cap;
} ftable;

static ftable tables[2];   /* "src", "tgt" (and "tgtw": the same, digests per window) */
static unsigned fake_seed; /* whether a scan applies its hints (both ways are correct) */
static bool fake_hints;    /* always apply them */

static unsigned rnd(void)
{
	fake_seed = fake_seed * 1103515245u + 12345u;
	return (fake_seed >> 8) & 0xffffff;
}

typedef struct fake {
	ftable *t;
	size_t map[NCOL * 2]; /* bound column i: which table column */
	size_t ncols;
	bool sliced;       /* its digests come per slice (else per window) */
	bool no_key_index; /* says no unique index backs the key ("srcnx") */
} fake;

static void *fake_open(const rk_reader_opts *o, const char *rest, rk_error *err)
{
	fake *f = calloc(1, sizeof *f);

	(void)o;
	(void)err;
	f->t = &tables[strncmp(rest, "tgt", 3) == 0];
	f->sliced = strcmp(rest, "tgtw") != 0;
	f->no_key_index = strcmp(rest, "srcnx") == 0;
	return f;
}

static int fake_bind(void *impl, const char *const *columns, size_t n, rk_type *types, rk_error *err)
{
	fake *f = impl;

	f->ncols = n;
	for (size_t i = 0; i < n; i++) {
		size_t c = 0;

		while (c < NCOL && strcmp(col_name[c], columns[i]))
			c++;
		if (c == NCOL)
			return rk_error_set(err, RK_EXIT_USAGE, "no column %s", columns[i]);
		f->map[i] = c;
		types[i] = col_type[c];
	}
	return 0;
}

/* Row r's fields in bound order, as COPY text would give them. */
static void fake_fields(const fake *f, const frow *r, rk_field *fl, char (*txt)[48])
{
	for (size_t i = 0; i < f->ncols; i++) {
		memset(&fl[i], 0, sizeof fl[i]);
		switch (f->map[i]) {
		case C_K1:
			fl[i].null = r->k1_null;
			snprintf(txt[i], 48, "%lld", r->k1);
			break;
		case C_K2:
			fl[i].null = r->k2_null;
			snprintf(txt[i], 48, "%s", r->k2);
			break;
		case C_TS:
			fl[i].null = r->ts_null;
			rk_time_format(r->ts, txt[i]);
			break;
		default:
			snprintf(txt[i], 48, "%s", r->v);
		}
		fl[i].p = txt[i];
		fl[i].len = strlen(txt[i]);
	}
}

/* The encoding of a row's columns cols (table columns), as digest.md. */
static rk_u128 fake_hash(const frow *r, const size_t *cols, size_t n)
{
	rk_buf b = RK_BUF_INIT;
	const char *why;
	char txt[48];
	rk_u128 h;

	for (size_t i = 0; i < n; i++) {
		bool null = (cols[i] == C_K1 && r->k1_null) || (cols[i] == C_K2 && r->k2_null) ||
		            (cols[i] == C_TS && r->ts_null);

		if (cols[i] == C_K1)
			snprintf(txt, sizeof txt, "%lld", r->k1);
		else if (cols[i] == C_K2)
			snprintf(txt, sizeof txt, "%s", r->k2);
		else if (cols[i] == C_TS)
			rk_time_format(r->ts, txt);
		else
			snprintf(txt, sizeof txt, "%s", r->v);
		if (null)
			rk_canon_enc_null(&b);
		else
			assert_int_equal(rk_canon_enc_value(col_type[cols[i]], txt, strlen(txt), &b, &why), 0);
	}
	h = rk_row_hash(b.data, b.len);
	rk_buf_free(&b);
	return h;
}

static bool in_ranges(const rk_scan *s, rk_usec t, size_t *which)
{
	for (size_t i = 0; i < s->nranges; i++)
		if (t >= s->ranges[i].from && t < s->ranges[i].to) {
			*which = i;
			return true;
		}
	return false;
}

/* Whether row r is in a range of s and has its key bits (key columns kc). */
static bool wanted(const rk_scan *s, const frow *r, const size_t *kc)
{
	for (size_t i = 0; i < s->nranges; i++) {
		uint64_t m;

		if (r->ts < s->ranges[i].from || r->ts >= s->ranges[i].to)
			continue;
		if (!s->keybits || !s->keybits[i].bits)
			return true;
		m = s->keybits[i].bits >= 64 ? UINT64_MAX : (UINT64_C(1) << s->keybits[i].bits) - 1;
		if (((uint64_t)fake_hash(r, kc, s->nkey) & m) == s->keybits[i].hval)
			return true;
	}
	return false;
}

static void table_cols(const fake *f, const size_t *idx, size_t n, size_t *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = f->map[idx[i]];
}

/* Whether the row of fields fl holds one of the keys of s->key_text. */
static bool has_key(const fake *f, const rk_scan *s, const rk_field *fl)
{
	(void)f;
	for (size_t k = 0; k < s->nkeys; k++) {
		bool all = true;

		for (size_t i = 0; i < s->nkey && all; i++) {
			const char *v = s->key_text[k * s->nkey + i];
			const rk_field *x = &fl[s->key_index[i]];

			all = v ? !x->null && strlen(v) == x->len && !memcmp(v, x->p, x->len) : x->null;
		}
		if (all)
			return true;
	}
	return false;
}

static int fake_scan(void *impl, const rk_scan *s, rk_row_fn fn, void *ctx, rk_error *err)
{
	fake *f = impl;
	bool hints = fake_hints || rnd() % 2;
	size_t kc[NCOL];

	table_cols(f, s->key_index, s->nkey, kc);
	for (size_t i = 0; i < f->t->n; i++) {
		const frow *r = &f->t->rows[i];
		rk_field fl[NCOL * 2];
		char txt[NCOL * 2][48];

		/* a reader may deliver more rows than asked: every row, at times */
		if ((hints || rnd() % 2) && (r->ts_null ? !s->include_null_time : !wanted(s, r, kc)))
			continue;
		fake_fields(f, r, fl, txt);
		if (hints && s->key_text && !has_key(f, s, fl))
			continue;
		if (fn(ctx, fl, err) < 0)
			return -1;
	}
	return 0;
}

static int fake_columns(void *impl, char ***names, size_t *n, rk_error *err)
{
	(void)impl;
	(void)err;
	*names = calloc(NCOL, sizeof **names);
	for (size_t i = 0; i < NCOL; i++)
		(*names)[i] = strdup(col_name[i]);
	*n = NCOL;
	return 0;
}

static const char *fake_describe(const void *impl)
{
	(void)impl;
	return "fake table";
}

static void fake_free(void *impl)
{
	free(impl);
}

/* Calls fn with text fields made by printf-style pieces. */
static int emit(rk_row_fn fn, void *ctx, rk_error *err, size_t n, char (*txt)[48])
{
	rk_field fl[8];

	memset(fl, 0, sizeof fl);
	for (size_t i = 0; i < n; i++) {
		fl[i].p = txt[i];
		fl[i].len = strlen(txt[i]);
	}
	return fn(ctx, fl, err);
}

/* The server's window digests: count and hash per slice (no sums here). */
static int fake_digest(void *impl, rk_digest_query *q, rk_row_fn fn, void *ctx, rk_error *err)
{
	fake *f = impl;
	size_t hc[NCOL * 2];
	rk_usec unit;
	size_t nw;
	uint64_t *cnt;
	rk_u128 *hash;

	if (!f->sliced)
		q->slices = 1;
	unit = q->width / (rk_usec)(q->slices > 1 ? q->slices : 1);
	nw = q->scan->nranges ? (size_t)((q->scan->ranges[0].to - q->from) / unit) : 0;
	cnt = calloc(nw + 1, sizeof *cnt);
	hash = calloc(nw + 1, sizeof *hash);
	table_cols(f, q->hash_index, q->nhash, hc);
	for (size_t i = 0; i < f->t->n; i++) {
		const frow *r = &f->t->rows[i];
		size_t w;

		if (r->ts_null || !in_ranges(q->scan, r->ts, &w))
			continue;
		w = (size_t)((r->ts - q->from) / unit);
		cnt[w]++;
		hash[w] += fake_hash(r, hc, q->nhash);
	}
	for (size_t w = 0; w < nw; w++) {
		char txt[3][48];

		if (!cnt[w])
			continue;
		snprintf(txt[0], 48, "%zu", w);
		snprintf(txt[1], 48, "%llu", (unsigned long long)cnt[w]);
		rk_hash_hex(hash[w], txt[2]);
		if (emit(fn, ctx, err, 3, txt) < 0)
			return -1;
	}
	free(cnt);
	free(hash);
	return 0;
}

/* The drilldown's pieces, as the extension's statement computes them. */
static int fake_drill_digest(void *impl, const rk_drill_query *q, rk_row_fn fn, void *ctx, rk_error *err)
{
	fake *f = impl;
	size_t hc[NCOL * 2], kc[NCOL * 2];

	table_cols(f, q->hash_index, q->nhash, hc);
	table_cols(f, q->key_index, q->nkey, kc);
	for (size_t p = 0; p < q->nparts; p++) {
		const rk_drill_part *pt = &q->parts[p];
		uint64_t mask = pt->keybits.bits >= 64 ? UINT64_MAX : (UINT64_C(1) << pt->keybits.bits) - 1;
		size_t np = pt->width ? (size_t)((pt->hi - pt->lo + pt->width - 1) / pt->width) : (size_t)1 << pt->more;
		uint64_t *cnt = calloc(np, sizeof *cnt);
		rk_u128 *hash = calloc(np, sizeof *hash);
		rk_usec *mn = calloc(np, sizeof *mn), *mx = calloc(np, sizeof *mx);

		for (size_t i = 0; i < f->t->n; i++) {
			const frow *r = &f->t->rows[i];
			uint64_t kh;
			size_t k;

			if (r->ts_null || r->ts < pt->lo || r->ts >= pt->hi)
				continue;
			kh = (uint64_t)fake_hash(r, kc, q->nkey);
			if ((kh & mask) != pt->keybits.hval)
				continue;
			k = pt->width ? (size_t)((r->ts - pt->lo) / pt->width)
			              : (size_t)((kh >> pt->keybits.bits) & ((UINT64_C(1) << pt->more) - 1));
			if (!cnt[k] || r->ts < mn[k])
				mn[k] = r->ts;
			if (!cnt[k] || r->ts > mx[k])
				mx[k] = r->ts;
			cnt[k]++;
			hash[k] += fake_hash(r, hc, q->nhash);
		}
		for (size_t k = 0; k < np; k++) {
			char txt[6][48];

			if (!cnt[k])
				continue;
			snprintf(txt[0], 48, "%zu", p);
			snprintf(txt[1], 48, "%zu", k);
			snprintf(txt[2], 48, "%llu", (unsigned long long)cnt[k]);
			rk_hash_hex(hash[k], txt[3]);
			snprintf(txt[4], 48, "%lld", (long long)mn[k]);
			snprintf(txt[5], 48, "%lld", (long long)mx[k]);
			if (emit(fn, ctx, err, 6, txt) < 0)
				return -1;
		}
		free(cnt);
		free(hash);
		free(mn);
		free(mx);
	}
	return 0;
}

/* "srcnx": no unique index backs the key, so that the verify pass shares
 * its read with the target (drill.c: rk_verify_shared); the others cannot
 * tell, as before. */
static int fake_unique_asked; /* how often fake_key_unique was asked */

static int fake_key_unique(void *impl, const size_t *key_index, size_t nkey, bool *unique, rk_error *err)
{
	const fake *f = impl;

	(void)key_index;
	(void)nkey;
	fake_unique_asked++;
	if (!f->no_key_index) {
		rk_error_set(err, RK_EXIT_USAGE, "a fake table has no unique index");
		return 1;
	}
	*unique = false;
	return 0;
}

static const rk_reader_ops fake_ops = {
	.bind = fake_bind,
	.scan = fake_scan,
	.describe = fake_describe,
	.free = fake_free,
	.columns = fake_columns,
	.digest = fake_digest,
	.drill_digest = fake_drill_digest,
	.key_unique = fake_key_unique,
};

/* The same without a server's functions, and read whole by every scan. */
static const rk_reader_ops fake_csv_ops = {
	.bind = fake_bind,
	.scan = fake_scan,
	.describe = fake_describe,
	.free = fake_free,
	.columns = fake_columns,
};

/* A database's table in memory, and the same behind a CSV reader's
 * capabilities. */
static const rk_reader_driver fake_driver = {
	.prefix = "fake:",
	.noun = "a fake table",
	.caps = RK_CAP_TYPED | RK_CAP_SQL_NAMES | RK_CAP_EXPRESSIONS | RK_CAP_RELATION | RK_CAP_RANGE_SCAN |
	        RK_CAP_CANON_INTS | RK_CAP_PUSHDOWN | RK_CAP_COMMIT_TIMES | RK_CAP_LIBPQ,
	.open = fake_open,
	.ops = &fake_ops,
};

static const rk_reader_driver fake_csv_driver = {
	.prefix = "fakecsv:",
	.noun = "fake CSV data",
	.caps = 0,
	.open = fake_open,
	.ops = &fake_csv_ops,
};

/* ------------------------------------------------------------------------
 * Random tables, damage, and the naive diff
 * ---------------------------------------------------------------------- */

#define T0 INT64_C(1772409600000000) /* 2026-03-02T00:00:00Z */
#define HOUR INT64_C(3600000000)
#define NWIN 6

static void add(ftable *t, const frow *r)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->rows = realloc(t->rows, t->cap * sizeof *t->rows);
	}
	t->rows[t->n++] = *r;
}

static void random_row(frow *r, unsigned id)
{
	memset(r, 0, sizeof *r);
	r->k1 = id / 3;
	r->k1_null = rnd() % 40 == 0;
	snprintf(r->k2, sizeof r->k2, "%c%u", 'a' + (int)(id % 3), rnd() % 4);
	r->k2_null = rnd() % 40 == 0;
	switch (rnd() % 5) {
	case 0:
		/* many rows at one instant */
		r->ts = T0 + (rk_usec)(rnd() % 3) * HOUR + 1234567;
		break;
	case 1:
		r->ts = T0 - 1 - (rk_usec)(rnd() % 1000); /* before the range */
		break;
	default:
		r->ts = T0 + (rk_usec)(rnd() % (NWIN * 3600)) * 1000000 + (rk_usec)(rnd() % 1000000);
	}
	r->ts_null = rnd() % 60 == 0;
	snprintf(r->v, sizeof r->v, "v%u", rnd() % 1000);
}

/* Damage to side t (the other is o): what loads and their bugs do. */
static void damage(ftable *t, const ftable *o, unsigned n)
{
	for (unsigned d = 0; d < n && t->n; d++) {
		size_t i = rnd() % t->n;
		frow r = t->rows[i];

		switch (rnd() % 7) {
		case 0: /* lost */
			t->rows[i] = t->rows[--t->n];
			break;
		case 1: /* twice */
			add(t, &r);
			break;
		case 2: /* changed */
			r.v[0] = 'w';
			t->rows[i] = r;
			break;
		case 3: /* moved in time, a little or to another window */
			r.ts += rnd() % 2 ? (rk_usec)(rnd() % 1000) : HOUR;
			t->rows[i] = r;
			break;
		case 4: /* a stale copy beside the moved row */
			add(t, &r);
			t->rows[i].ts += (rk_usec)(rnd() % 600) * 1000000;
			break;
		case 5: /* a key part lost */
			t->rows[i].k2_null = true;
			break;
		default: /* a row of the other side's, twice here */
			if (o->n) {
				add(t, &o->rows[rnd() % o->n]);
				add(t, &t->rows[t->n - 1]);
			}
		}
	}
}

typedef struct fkey {
	size_t window;
	char key[40];
	char row[80];
	int side;
	rk_usec ts;
} fkey;

static int fkey_cmp(const void *a, const void *b)
{
	const fkey *x = a, *y = b;
	int c;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if ((c = strcmp(x->key, y->key)) != 0)
		return c;
	if (x->side != y->side)
		return x->side - y->side;
	return strcmp(x->row, y->row);
}

/* Both sides' rows of the range, sorted by (window, key, side, row): a
 * run of one (window, key) is what reckon judges as one key. */
static fkey *naive_rows(size_t *nrows)
{
	fkey *v = NULL;
	size_t n = 0, cap = 0;

	for (int s = 0; s < 2; s++)
		for (size_t j = 0; j < tables[s].n; j++) {
			const frow *r = &tables[s].rows[j];

			if (r->ts_null || r->ts < T0 || r->ts >= T0 + NWIN * HOUR)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				v = realloc(v, cap * sizeof *v);
			}
			v[n].window = (size_t)((r->ts - T0) / HOUR);
			snprintf(v[n].key, sizeof v[n].key, "%s%lld|%s%s", r->k1_null ? "N" : "", r->k1_null ? 0 : r->k1,
			         r->k2_null ? "N" : "", r->k2_null ? "" : r->k2);
			snprintf(v[n].row, sizeof v[n].row, "%s|%lld|%s", v[n].key, (long long)r->ts, r->v);
			v[n].side = s;
			v[n].ts = r->ts;
			n++;
		}
	qsort(v, n, sizeof *v, fkey_cmp);
	*nrows = n;
	return v;
}

/* The end of the run of v[i]'s (window, key), its rows per side, and
 * whether its copies differ. */
static size_t naive_key(const fkey *v, size_t n, size_t i, size_t *s, size_t *t, bool *diff)
{
	size_t j = i;

	while (j < n && v[j].window == v[i].window && !strcmp(v[j].key, v[i].key))
		j++;
	*s = *t = 0;
	for (size_t k = i; k < j; k++)
		*(v[k].side ? t : s) += 1;
	*diff = *s != *t;
	for (size_t k = 0; !*diff && k < *s; k++)
		*diff = strcmp(v[i + k].row, v[i + *s + k].row) != 0;
	return j;
}

/* Expected findings as "window kind k1 k2 s t" lines, sorted like reckon's. */
static char *naive(void)
{
	size_t n, i = 0;
	fkey *v = naive_rows(&n);
	char *out = calloc(1, 1), line[160];
	size_t len = 0;

	while (i < n) {
		size_t s, t;
		bool diff;
		size_t j = naive_key(v, n, i, &s, &t, &diff);

		if (diff) {
			const char *kinds[2] = { NULL, NULL };

			if (s > 1)
				kinds[0] = "source_duplicate";
			kinds[1] = s == 0 ? "extra" : t < s ? "missing"
			                      : t > s       ? "duplicated"
			                                    : "changed";
			for (int k = 0; k < 2; k++) {
				if (!kinds[k])
					continue;
				snprintf(line, sizeof line, "%zu %s %s %zu %zu\n", v[i].window, kinds[k], v[i].key, s, t);
				out = realloc(out, len + strlen(line) + 1);
				strcpy(out + len, line);
				len += strlen(line);
			}
		}
		i = j;
	}
	free(v);
	return out;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the lines of text (findings in both lists are compared as sets of
 * lines: reckon orders keys by their display text, the same here). */
static char *sorted_lines(char *text)
{
	char **l = NULL, *out, *p = text;
	size_t n = 0, len = strlen(text);

	while (*p) {
		char *e = strchr(p, '\n');
		l = realloc(l, (n + 1) * sizeof *l);
		l[n++] = p;
		*e = '\0';
		p = e + 1;
	}
	qsort(l, n, sizeof *l, line_cmp);
	out = calloc(1, len + 1);
	for (size_t i = 0; i < n; i++) {
		strcat(out, l[i]);
		strcat(out, "\n");
	}
	free(l);
	free(text);
	return out;
}

static char *reckon_findings(const rk_check_result *res)
{
	char *out = calloc(1, 1), line[160];
	size_t len = 0;

	for (size_t i = 0; i < res->nfindings; i++) {
		const rk_finding *f = &res->findings[i];

		snprintf(line, sizeof line, "%u %s %s%s|%s%s %u %u\n", f->window, rk_find_kind_name(f->kind),
		         f->key[0] ? "" : "N", f->key[0] ? f->key[0] : "0", f->key[1] ? "" : "N", f->key[1] ? f->key[1] : "",
		         f->source_copies, f->target_copies);
		out = realloc(out, len + strlen(line) + 1);
		strcpy(out + len, line);
		len += strlen(line);
	}
	return out;
}

/* The two results' findings are the same, every field. */
static void same_findings(const rk_check_result *a, const rk_check_result *b)
{
	assert_int_equal(a->nfindings, b->nfindings);
	for (size_t i = 0; i < a->nfindings; i++) {
		const rk_finding *x = &a->findings[i], *y = &b->findings[i];

		assert_int_equal(x->window, y->window);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->source_copies, y->source_copies);
		assert_int_equal(x->target_copies, y->target_copies);
		assert_int_equal(x->source_time, y->source_time);
		for (size_t k = 0; k < 2; k++) {
			assert_int_equal(!x->key[k], !y->key[k]);
			if (x->key[k])
				assert_string_equal(x->key[k], y->key[k]);
		}
	}
}

static int held_cmp(const void *a, const void *b)
{
	const rk_held *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int usec_cmp(const void *a, const void *b)
{
	rk_usec x = *(const rk_usec *)a, y = *(const rk_usec *)b;

	return x < y ? -1 : x > y;
}

/* The finding of (window, key), the key as naive() writes it. */
static const rk_finding *finding_of(const rk_check_result *res, size_t w, const char *key)
{
	char k[40];

	for (size_t i = 0; i < res->nfindings; i++) {
		const rk_finding *f = &res->findings[i];

		snprintf(k, sizeof k, "%s%s|%s%s", f->key[0] ? "" : "N", f->key[0] ? f->key[0] : "0", f->key[1] ? "" : "N",
		         f->key[1] ? f->key[1] : "");
		if (f->window == w && !strcmp(k, key))
			return f;
	}
	return NULL;
}

/*
 * What the drilldown noted for the diagnosis, against the tables: each
 * source row of a damaged window lies in a held span when its key's copies
 * agree, and inside its finding's source span when they do not; and each
 * held span holds a source row (rk_check_result.held).
 */
static void check_held(const rk_check_result *res)
{
	size_t n, i = 0, nsrc = 0, nh = res->nheld;
	fkey *v = naive_rows(&n);
	rk_held *h = calloc(nh + 1, sizeof *h);
	rk_usec *reach = calloc(nh + 1, sizeof *reach), *src = calloc(n + 1, sizeof *src);

	if (nh)
		memcpy(h, res->held, nh * sizeof *h);
	qsort(h, nh, sizeof *h, held_cmp);
	for (size_t k = 0; k < nh; k++) {
		assert_true(h[k].lo <= h[k].hi);
		reach[k] = k && reach[k - 1] > h[k].hi ? reach[k - 1] : h[k].hi;
	}
	while (i < n) {
		size_t s, t, j;
		bool diff;

		j = naive_key(v, n, i, &s, &t, &diff);
		for (size_t k = i; k < j; k++) {
			const rk_finding *f;
			size_t a = 0, b = nh;

			if (v[k].side)
				continue;
			src[nsrc++] = v[k].ts;
			if (res->status[v[k].window] != RK_WIN_DIFFER)
				continue;
			if (diff) {
				f = finding_of(res, v[k].window, v[k].key);
				assert_non_null(f);
				rk_fspan sp = rk_finding_span(res, f);
				assert_true(sp.source_min <= v[k].ts && v[k].ts <= sp.source_max);
				continue;
			}
			/* a span starting at or before ts reaches it */
			while (a < b) {
				size_t mid = a + (b - a) / 2;
				if (h[mid].lo <= v[k].ts)
					a = mid + 1;
				else
					b = mid;
			}
			if (!(a > 0 && reach[a - 1] >= v[k].ts))
				fail_msg("source row %s at %lld of damaged window %zu lies in no held span", v[k].key,
				         (long long)v[k].ts, v[k].window);
		}
		i = j;
	}
	qsort(src, nsrc, sizeof *src, usec_cmp);
	for (size_t k = 0; k < nh; k++) {
		size_t a = 0, b = nsrc;

		while (a < b) {
			size_t mid = a + (b - a) / 2;
			if (src[mid] < h[k].lo)
				a = mid + 1;
			else
				b = mid;
		}
		assert_true(a < nsrc && src[a] <= h[k].hi);
	}
	free(v);
	free(h);
	free(reach);
	free(src);
}

static const char *const key_cols[] = { "k1", "k2" };
static const char *const hash_cols[] = { "k1", "k2", "ts", "v" };

static rk_check_result *run(const char *src, const char *tgt, size_t leaf, rk_pushdown pd)
{
	rk_check_spec spec;
	rk_check_result *res = NULL;
	rk_error err;

	memset(&spec, 0, sizeof spec);
	spec.source.side = "source";
	spec.source.conn = src;
	spec.source.table = "t";
	spec.target.side = "target";
	spec.target.conn = tgt;
	spec.target.table = "t";
	spec.key = key_cols;
	spec.nkey = 2;
	spec.time = "ts";
	spec.columns = hash_cols;
	spec.ncolumns = 4;
	spec.from = T0;
	spec.to = T0 + NWIN * HOUR;
	spec.width = HOUR;
	spec.now = T0 + 100 * HOUR;
	spec.leaf_rows = leaf;
	spec.pushdown = pd;
	spec.findings = true;
	spec.diagnose = true;
	rk_error_clear(&err);
	if (rk_check_run(&spec, &res, &err) < 0)
		fail_msg("check failed: %s", err.msg);
	return res;
}

static void setup_tables(unsigned seed, unsigned rows, unsigned dmg)
{
	frow r;

	fake_seed = seed;
	for (int s = 0; s < 2; s++)
		tables[s].n = 0;
	for (unsigned i = 0; i < rows; i++) {
		random_row(&r, i);
		add(&tables[0], &r);
		add(&tables[1], &r);
	}
	damage(&tables[1], &tables[0], dmg);
	damage(&tables[0], &tables[1], dmg / 3);
}

/*
 * The property: over random tables and random damage on both sides, the
 * findings are the naive diff's, whatever the leaf size forces the
 * drilldown to do, streamed, narrowed "in the database" (sub-digests from
 * the fake's drill_digest, leaves fetched), or read whole (a CSV-like side,
 * the other without slices); and what it notes for the diagnosis holds
 * (check_held).
 */
static void test_random_damage_naive(void **state)
{
	static const size_t leaves[] = { 1, 2, 5, 40, 200000 };
	static const struct {
		const char *src, *tgt;
		rk_pushdown pd;
	} modes[] = {
		{ "fake:src", "fake:tgt", RK_PUSHDOWN_OFF },
		{ "fake:src", "fake:tgt", RK_PUSHDOWN_ON },
		{ "fake:src", "fake:tgtw", RK_PUSHDOWN_ON }, /* target digests per window */
		{ "fakecsv:src", "fake:tgt", RK_PUSHDOWN_AUTO },
		/* no index on the key: the target reads half the matching slices */
		{ "fake:srcnx", "fake:tgt", RK_PUSHDOWN_OFF },
		{ "fake:srcnx", "fake:tgt", RK_PUSHDOWN_ON },
	};

	(void)state;
	for (unsigned seed = 1; seed <= 24; seed++) {
		rk_check_result *ref;
		char *want;

		setup_tables(seed * 7919u, 300 + seed * 37 % 400, 3 + seed % 12);
		want = sorted_lines(naive());
		/* the reference for every field, source times included */
		ref = run("fake:src", "fake:tgt", 200000, RK_PUSHDOWN_OFF);
		for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
			for (size_t l = 0; l < sizeof leaves / sizeof *leaves; l++) {
				rk_check_result *res;
				char *got;

				res = run(modes[m].src, modes[m].tgt, leaves[l], modes[m].pd);
				got = sorted_lines(reckon_findings(res));
				if (strcmp(got, want) != 0) {
					fprintf(stderr, "seed %u mode %zu leaf %zu\nwant:\n%sgot:\n%s", seed, m, leaves[l], want, got);
					fail();
				}
				if (modes[m].pd == RK_PUSHDOWN_ON)
					assert_true(res->side[0].drill_server || !res->nfindings);
				same_findings(res, ref);
				check_held(res);
				free(got);
				rk_check_result_free(res);
			}
		}
		free(want);
		rk_check_result_free(ref);
	}
}

/*
 * The streaming drilldown reads the damaged ranges at most once more:
 * every row its passes get (rounds over the damaged slices and their
 * pieces, then the damaged keys' copies in their windows) adds up to no
 * more than the damaged windows hold, when the reader narrows as asked.
 * (The 400 rows of one instant
 * here fit the leaf: past it, each key-hash round reads the instant again,
 * docs/performance.md.)
 */
static void test_one_extra_read(void **state)
{
	static const size_t leaves[] = { 500, 200000 };

	unsigned runs = 0;

	(void)state;
	fake_hints = true;
	for (unsigned seed = 1; seed <= 8; seed++) {
		setup_tables(seed * 104729u, 6000, 3);
		for (size_t l = 0; l < sizeof leaves / sizeof *leaves; l++) {
			rk_check_result *res = run("fake:src", "fake:tgt", leaves[l], RK_PUSHDOWN_OFF);
			uint64_t damaged = 0;

			for (size_t w = 0; w < res->nclosed; w++)
				if (res->status[w] == RK_WIN_DIFFER)
					damaged += res->side[0].rows[w] + res->side[1].rows[w];
			/* (damage outside the range, or to NULL times, is no window's) */
			runs += damaged > 0;
			if (res->drill_rows > damaged)
				fprintf(stderr, "seed %u leaf %zu: %llu rows read, damaged windows %llu, passes %d\n", seed,
				        leaves[l], (unsigned long long)res->drill_rows, (unsigned long long)damaged, res->drill_passes);
			assert_true(res->drill_rows <= damaged);
			rk_check_result_free(res);
		}
	}
	assert_true(runs >= 8);
	fake_hints = false;
}

/* "pattern:keys:w1,w2 ..." of a result's likely causes. */
static const char *causes(const rk_check_result *res)
{
	static char out[512];
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; res->diagnosis && i < res->diagnosis->ncauses; i++) {
		const rk_cause *c = &res->diagnosis->causes[i];

		n += (size_t)snprintf(out + n, sizeof out - n, "%s%s:%zu:", i ? " " : "", rk_pattern_name(c->pattern),
		                      c->keys);
		for (size_t w = 0; w < c->nwindows; w++)
			n += (size_t)snprintf(out + n, sizeof out - n, "%s%zu", w ? "," : "", c->windows[w]);
	}
	return out;
}

/*
 * A gap and a repeat that each cover part of one window, beside two
 * scattered losses, are named exactly whatever the drilldown's split:
 * every leaf size, streamed, in the "database", a CSV-like side.  The
 * spans it notes on its way say that no row the target holds lies inside
 * the lost or the doubled run, and that some lie between the scattered
 * losses.
 */
static void test_gap_repeat_in_part_of_a_window(void **state)
{
	static const size_t leaves[] = { 1, 2, 5, 40, 200000 };
	static const char *const modes[][2] = {
		{ "fake:src", "fake:tgt" }, { "fake:src", "fake:tgtw" }, { "fakecsv:src", "fake:tgt" }
	};
	frow r;

	(void)state;
	for (int s = 0; s < 2; s++)
		tables[s].n = 0;
	/* 100 rows per window, 36 s apart, off the whole seconds */
	for (unsigned id = 0; id < 600; id++) {
		memset(&r, 0, sizeof r);
		r.k1 = id;
		snprintf(r.k2, sizeof r.k2, "a");
		r.ts = T0 + (rk_usec)id * 36000000 + 500000;
		snprintf(r.v, sizeof r.v, "v%u", id);
		add(&tables[0], &r);
		if ((id < 130 || id > 150) && id != 250 && id != 260)
			add(&tables[1], &r);
		if (id >= 410 && id <= 415)
			add(&tables[1], &r);
	}
	for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
		for (int pd = 0; pd < 2; pd++) {
			for (size_t l = 0; l < sizeof leaves / sizeof *leaves; l++) {
				rk_check_result *res = run(modes[m][0], modes[m][1], leaves[l], pd ? RK_PUSHDOWN_ON : RK_PUSHDOWN_OFF);

				if (strcmp(causes(res), "gap:21:1 repeat:6:4 unclassified:2:2") != 0)
					fail_msg("mode %zu pushdown %d leaf %zu: %s", m, pd, leaves[l], causes(res));
				check_held(res);
				rk_check_result_free(res);
			}
		}
	}
}

/* The drilldown and the diagnosis both ask whether an index makes the key
 * unique: the reader asks its driver once per key, not once per caller. */
static void test_key_unique_asked_once(void **state)
{
	rk_reader_opts o = { .side = "source", .conn = "fake:srcnx", .table = "t" };
	const size_t key[] = { 0 }, other[] = { 0, 1 };
	rk_reader *r;
	rk_error err;
	bool unique = true;

	(void)state;
	rk_error_clear(&err);
	r = rk_reader_open(&o, &err);
	assert_non_null(r);
	fake_unique_asked = 0;
	assert_int_equal(rk_reader_key_unique(r, key, 1, &unique, &err), 0);
	assert_false(unique);
	unique = true;
	assert_int_equal(rk_reader_key_unique(r, key, 1, &unique, &err), 0);
	assert_false(unique);
	assert_int_equal(fake_unique_asked, 1);
	assert_int_equal(rk_reader_key_unique(r, other, 2, &unique, &err), 0);
	assert_int_equal(fake_unique_asked, 2);
	rk_reader_free(r);
}

static int setup(void **state)
{
	(void)state;
	rk_log_level = -1;
	assert_int_equal(rk_reader_register(&fake_csv_driver), 0);
	assert_int_equal(rk_reader_register(&fake_driver), 0);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_leaf_budget),
		cmocka_unit_test(test_plan_time_split),
		cmocka_unit_test(test_plan_hash_split),
		cmocka_unit_test(test_next_shrinks),
		cmocka_unit_test(test_random_damage_naive),
		cmocka_unit_test(test_one_extra_read),
		cmocka_unit_test(test_gap_repeat_in_part_of_a_window),
		cmocka_unit_test(test_key_unique_asked_once),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
