/*
 * keys.c - the damaged keys' own rows, asked for by key after the
 * drilldown (keys.h).
 *
 * The drilldown compares whole-row hashes: it knows that a changed key's
 * copies differ, not where.  Here each side is read once more, for the rows
 * of the changed keys only, and only in the time ranges where the
 * drilldown's leaves held their differing copies (rk_finding.leaf_lo/hi:
 * outside them a key's copies are alike on both sides and pair off
 * anyway).  A PostgreSQL side is asked by key value too, RK_KEYS_BATCH
 * keys a statement: an index on the key or on the time then makes it a
 * lookup, and without one on the key the server reads the leaves' few
 * rows, not the windows.  Each row is taken apart: per hashed column the
 * hash of its canonical encoding, its NULL flag and its text as the side
 * gave it.  Columns whose hashes differ are the changed ones.
 *
 * The extra keys are looked up the same way over all time, on both sides,
 * when both are PostgreSQL tables whose key a unique index backs (without
 * an index the lookup would be a scan of the whole table): whether the
 * source still holds the key anywhere, and whether the target holds the
 * source's copy where it belongs.
 */
#include "check/keys.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/diagnose.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/text.h"

/* One row collected by key. */
typedef struct rk_krow {
	rk_u128 key, row;
	rk_usec t;
	size_t window; /* SIZE_MAX: outside the closed range */
	size_t col;    /* its first column in the side's cols, or SIZE_MAX */
} rk_krow;

/* One column of a collected row. */
typedef struct rk_kcol {
	rk_u128 h;
	bool null;
	size_t off; /* its text in the side's arena */
	uint32_t len;
	bool cut; /* ... cut to RK_CHANGE_VALUE_MAX bytes */
} rk_kcol;

/* A value sent out of band as it is read back (rk_side.tap): the hash of
 * its bytes and the first of them, enough to cut it for display. */
typedef struct rk_ktap {
	rk_row_hasher h;
	char head[RK_CHANGE_VALUE_MAX + 1];
	size_t n;
} rk_ktap;

typedef struct rk_kside {
	const rk_scan *scan;
	rk_ktap *taps;      /* per bound column, for late rows */
	const rk_u128 *set; /* the keys wanted, sorted */
	size_t nset;
	bool values; /* take each row apart */
	rk_krow *rows;
	size_t nrows, caprows;
	rk_kcol *cols;
	size_t ncols, capcols;
	rk_buf arena;
} rk_kside;

/* Field v's text as its side shows it: the reader's text, or for a value a
 * reader decoded to a number (binary COPY, DuckDB: p/len empty) its digits
 * or PostgreSQL's form of the instant, written in tmp. */
static void rk_kfield_text(rk_type t, const rk_field *v, const char **p, size_t *n, char tmp[RK_TIME_STRLEN])
{
	*p = v->p;
	*n = v->len;
	if (v->form == RK_FORM_INT)
		*n = (size_t)snprintf(tmp, RK_TIME_STRLEN, "%" PRId64, (int64_t)v->m), *p = tmp;
	else if (v->form == RK_FORM_INSTANT)
		*p = rk_time_format_pg_wide(v->m, t == RK_T_TIMESTAMPTZ, tmp), *n = strlen(tmp);
}

static void rk_keys_tap(void *ctx, size_t col, const char *p, size_t len)
{
	rk_ktap *tp = &((rk_ktap *)ctx)[col];
	size_t room = sizeof tp->head - tp->n;

	rk_row_hasher_update(&tp->h, p, len);
	memcpy(tp->head + tp->n, p, len < room ? len : room);
	tp->n += len < room ? len : room;
}

/* The row hash of a late row (its values sent out of band), each such
 * value's hash and head kept in k->taps as it is read back. */
static int rk_keys_late_hash(rk_side *s, rk_kside *k, const rk_field *f, rk_usec t, rk_u128 *h, rk_error *err)
{
	const rk_plan *p = s->plan;
	int rc;

	if (!k->taps)
		k->taps = rk_xcalloc(p->ncols ? p->ncols : 1, sizeof *k->taps);
	for (size_t c = 0; c < p->ncols; c++) {
		if (!f[c].large)
			continue;
		rk_row_hasher_reset(&k->taps[c].h);
		k->taps[c].n = 0;
	}
	s->tap = rk_keys_tap;
	s->tap_ctx = k->taps;
	rc = rk_side_hash_row(s, f, t, h, err);
	s->tap = NULL;
	return rc;
}

/* Column i's hash (of its canonical text) and text (cut) into c. */
static void rk_keys_col(rk_side *s, rk_kside *k, const rk_field *f, size_t i, rk_kcol *c)
{
	const rk_plan *p = s->plan;
	size_t col = p->hash_idx[i];
	const rk_field *v = &f[col];
	char tmp[RK_TIME_STRLEN];
	const char *vp;
	size_t vn;

	memset(c, 0, sizeof *c);
	c->null = v->null;
	if (v->null)
		return;
	/* the column's canonical encoding decides; its text is shown */
	if (v->large)
		/* read back in chunks: a text's canonical text is itself */
		c->h = rk_row_hasher_final(&k->taps[col].h);
	else if (v->enc && (!p->convert[s->idx] || p->as_float[s->idx][col] == RK_T_UNKNOWN))
		/* a reader that encoded its fields (binary COPY, DuckDB) */
		c->h = rk_row_hash(v->enc + RK_CANON_HDR, v->enc_len - RK_CANON_HDR);
	else if (s->late && s->types[col] == RK_T_TEXT)
		/* a late row's large key value is hashed where it lies, not
		 * encoded (rk_side_hash_row) */
		c->h = rk_row_hash(v->p, v->len);
	else
		c->h = rk_row_hash(s->enc.data + s->canon_off[i], s->canon_len[i]);
	rk_kfield_text(s->types[col], v, &vp, &vn, tmp);
	if (v->large)
		vp = k->taps[col].head, vn = v->len;
	c->off = k->arena.len;
	c->len = (uint32_t)rk_utf8_cut(vp, vn, RK_CHANGE_VALUE_MAX);
	c->cut = c->len < vn;
	rk_buf_append(&k->arena, vp, c->len);
}

static int rk_keys_row(void *ctx, const rk_field *f, rk_error *err)
{
	rk_side *s = ctx;
	rk_kside *k = s->drill;
	const rk_plan *p = s->plan;
	const rk_check_result *res = s->res;
	rk_usec closed_end = res->nclosed ? rk_check_window_end(res, res->nclosed - 1) : res->from;
	rk_krow *r;
	rk_u128 key, row;
	rk_usec t;

	s->rows_read++;
	if (f[p->time_idx].null)
		return 0;
	if (rk_side_time(s, &f[p->time_idx], &t, err) < 0 || rk_side_encode_key(s, f, err) < 0)
		return -1;
	key = rk_row_hash(s->enc.data, s->enc.len);
	if (!rk_hash_set_has(k->set, k->nset, key))
		return 0;
	if (s->late) {
		if (rk_keys_late_hash(s, k, f, t, &row, err) < 0)
			return -1;
	} else {
		if (rk_side_encode_row(s, f, t, err) < 0)
			return -1;
		row = rk_row_hash(s->enc.data, s->enc.len);
	}
	if (k->nrows == k->caprows) {
		k->caprows = k->caprows ? k->caprows * 2 : 64;
		k->rows = rk_xrealloc(k->rows, k->caprows * sizeof *k->rows);
	}
	r = &k->rows[k->nrows++];
	r->key = key;
	r->row = row;
	r->t = t;
	r->window = t >= res->from && t < closed_end ? rk_check_window_of(res, t) : SIZE_MAX;
	r->col = SIZE_MAX;
	if (!k->values)
		return 0;
	if (k->ncols + p->nhash > k->capcols) {
		k->capcols = (k->capcols ? k->capcols * 2 : 64) + p->nhash;
		k->cols = rk_xrealloc(k->cols, k->capcols * sizeof *k->cols);
	}
	r->col = k->ncols;
	for (size_t i = 0; i < p->nhash; i++)
		rk_keys_col(s, k, f, i, &k->cols[k->ncols++]);
	return 0;
}

/* A row whose large values came out of band, after the scan's others (the
 * rows are sorted before they are used). */
static int rk_keys_late_row(void *ctx, const rk_field *f, rk_error *err)
{
	return rk_side_late(ctx, f, rk_keys_row, err);
}

static int rk_keys_side(rk_side *s)
{
	rk_kside *k = s->drill;
	rk_scan scan = *k->scan;

	rk_side_large_scan(s, &scan, rk_keys_late_row);
	return rk_side_scan(s, &scan, rk_keys_row, s, &s->err);
}

static int rk_krow_cmp(const void *a, const void *b)
{
	const rk_krow *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* The rows of key in window w (SIZE_MAX: of every window) among k's sorted
 * rows: *n of them from the returned index. */
static size_t rk_krows_of(const rk_kside *k, rk_u128 key, size_t w, size_t *n)
{
	size_t lo = 0, hi = k->nrows, m = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const rk_krow *r = &k->rows[mid];

		if (r->key < key || (r->key == key && w != SIZE_MAX && r->window < w))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + m < k->nrows && k->rows[lo + m].key == key && (w == SIZE_MAX || k->rows[lo + m].window == w))
		m++;
	*n = m;
	return lo;
}

/* Runs one scan on each side of `which` (bit 0 source, bit 1 target), over
 * ranges, for the keys of set. */
static int rk_keys_scan(rk_side sides[2], rk_kside ks[2], unsigned which, const rk_range *ranges, size_t nranges,
                        const rk_u128 *set, size_t nset, const char **text, bool values, rk_error *err)
{
	rk_side *list[2];
	rk_scan scan[2];
	size_t n = 0;
	int rc;

	for (int s = 0; s < 2; s++) {
		const rk_plan *p = sides[s].plan;

		ks[s].nrows = 0;
		ks[s].ncols = 0;
		rk_buf_reset(&ks[s].arena);
		if (!(which & (1u << s)))
			continue;
		memset(&scan[s], 0, sizeof scan[s]);
		scan[s].time_index = p->time_idx;
		scan[s].ranges = ranges;
		scan[s].nranges = nranges;
		scan[s].key_index = p->key_idx;
		scan[s].nkey = p->nkey;
		scan[s].key_text = p->nkey ? text : NULL;
		scan[s].nkeys = nset;
		/* each value's text as the side prints it: COPY text */
		scan[s].binary = !values;
		ks[s].scan = &scan[s];
		ks[s].set = set;
		ks[s].nset = nset;
		ks[s].values = values;
		sides[s].drill = &ks[s];
		list[n++] = &sides[s];
	}
	rc = rk_sides_parallel(list, n, rk_keys_side, err);
	sides[0].drill = sides[1].drill = NULL;
	for (int s = 0; rc == 0 && s < 2; s++)
		if (ks[s].nrows)
			qsort(ks[s].rows, ks[s].nrows, sizeof *ks[s].rows, rk_krow_cmp);
	return rc;
}

static int rk_range_cmp(const void *a, const void *b)
{
	const rk_range *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* The batch's distinct key hashes (sorted) and their texts. */
static size_t rk_keys_set(const rk_check_result *res, const rk_finding *fs, size_t n, rk_u128 *set, const char **text)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		set[i] = fs[i].key_hash;
	if (n)
		qsort(set, n, sizeof *set, rk_hash_cmp);
	for (size_t i = 0; i < n; i++)
		if (!m || set[m - 1] != set[i])
			set[m++] = set[i];
	/* the texts in the same order: the first finding of each key */
	for (size_t j = 0; j < m; j++) {
		for (size_t i = 0; i < n; i++) {
			const rk_finding *f = &fs[i];

			if (f->key_hash != set[j])
				continue;
			for (size_t c = 0; c < res->nkey; c++)
				text[j * res->nkey + c] = f->key[c];
			break;
		}
	}
	return m;
}

/*
 * The first max findings of kind k, copied with their keys (into kp) and
 * their indexes, in one pass of the findings wherever they lie: the few
 * read here by key need not hold the rest in memory (issue 25).  *more:
 * how many of that kind lay past them.  The count, or -1 with err.
 */
static long rk_keys_gather(const rk_check_result *res, rk_find_kind k, size_t max, rk_finding **fs, size_t **fi,
                           rk_keypool *kp, size_t *more, rk_error *err)
{
	rk_fwalk w;
	const rk_finding *f;
	size_t n = 0, i;

	*fs = rk_xcalloc(max ? max : 1, sizeof **fs);
	*fi = rk_xcalloc(max ? max : 1, sizeof **fi);
	*more = 0;
	rk_fwalk_start(&w, res);
	while ((f = rk_fwalk_next(&w, &i)) != NULL) {
		if (f->kind != k)
			continue;
		if (n == max) {
			(*more)++;
			continue;
		}
		(*fs)[n] = *f;
		(*fs)[n].key = rk_keypool_key(kp, (const char *const *)f->key, NULL, res->nkey);
		(*fi)[n++] = i;
	}
	return rk_fwalk_end(&w, err) < 0 ? -1 : (long)n;
}

static int rk_kcopy_cmp(const void *a, const void *b)
{
	const rk_kcopy *x = a, *y = b;

	return x->row < y->row ? -1 : x->row > y->row;
}

void rk_keys_compare(rk_check_result *res, size_t fi, size_t ncol, const rk_kcopy *src, size_t ns,
                     const rk_kcopy *tgt, size_t nt, bool values)
{
	rk_kcopy *a = rk_xcalloc(ns ? ns : 1, sizeof *a), *b = rk_xcalloc(nt ? nt : 1, sizeof *b);
	size_t na = 0, nb = 0, i = 0, j = 0;
	bool *seen = rk_xcalloc(ncol ? ncol : 1, sizeof *seen);

	memcpy(a, src, ns * sizeof *a);
	memcpy(b, tgt, nt * sizeof *b);
	if (ns)
		qsort(a, ns, sizeof *a, rk_kcopy_cmp);
	if (nt)
		qsort(b, nt, sizeof *b, rk_kcopy_cmp);
	/* copies alike on both sides pair off: what is left differs */
	while (i < ns || j < nt) {
		if (i < ns && j < nt && a[i].row == b[j].row) {
			i++;
			j++;
		} else if (j == nt || (i < ns && a[i].row < b[j].row)) {
			a[na++] = a[i++];
		} else {
			b[nb++] = b[j++];
		}
	}
	for (size_t k = 0; k < na && k < nb; k++) {
		for (size_t c = 0; c < ncol; c++) {
			rk_change *ch;

			if (seen[c] || (a[k].null[c] == b[k].null[c] && (a[k].null[c] || a[k].col[c] == b[k].col[c])))
				continue;
			seen[c] = true;
			res->changes = rk_xrealloc(res->changes, (res->nchanges + 1) * sizeof *res->changes);
			ch = &res->changes[res->nchanges++];
			memset(ch, 0, sizeof *ch);
			ch->finding = fi;
			ch->column = c;
			for (int s = 0; s < 2 && values; s++) {
				const char *v = (s ? b[k] : a[k]).text[c];

				if (v) {
					size_t n = strlen(v), cut = rk_utf8_cut(v, n, RK_CHANGE_VALUE_MAX);

					ch->value[s] = rk_xstrndup(v, cut);
					ch->cut[s] = cut < n || ((s ? b[k] : a[k]).cut && (s ? b[k] : a[k]).cut[c]);
				}
			}
		}
	}
	free(seen);
	free(a);
	free(b);
}

/* The copies of (w, key) on side k as rk_kcopy records; their column
 * arrays are laid out in store (ncol each). */
typedef struct rk_kstore {
	rk_kcopy *copies;
	rk_u128 *col;
	bool *null;
	bool *cut;
	const char **text;
	char **owned;
	size_t nowned;
} rk_kstore;

static size_t rk_kstore_fill(rk_kstore *st, const rk_kside *k, size_t at, size_t n, size_t ncol)
{
	size_t cells = n > 0 && ncol > 0 ? n * ncol : 1;

	st->copies = rk_xcalloc(n ? n : 1, sizeof *st->copies);
	st->col = rk_xcalloc(cells, sizeof *st->col);
	st->null = rk_xcalloc(cells, sizeof *st->null);
	st->cut = rk_xcalloc(cells, sizeof *st->cut);
	st->text = rk_xcalloc(cells, sizeof *st->text);
	st->owned = rk_xcalloc(cells, sizeof *st->owned);
	st->nowned = 0;
	for (size_t i = 0; i < n; i++) {
		const rk_krow *r = &k->rows[at + i];

		st->copies[i].row = r->row;
		st->copies[i].col = &st->col[i * ncol];
		st->copies[i].null = &st->null[i * ncol];
		st->copies[i].text = &st->text[i * ncol];
		st->copies[i].cut = &st->cut[i * ncol];
		for (size_t c = 0; c < ncol && r->col != SIZE_MAX; c++) {
			const rk_kcol *kc = &k->cols[r->col + c];

			st->col[i * ncol + c] = kc->h;
			st->null[i * ncol + c] = kc->null;
			st->cut[i * ncol + c] = kc->cut;
			if (!kc->null) {
				char *s = rk_xstrndup(k->arena.data + kc->off, kc->len);

				st->owned[st->nowned++] = s;
				st->text[i * ncol + c] = s;
			}
		}
	}
	return n;
}

static void rk_kstore_free(rk_kstore *st)
{
	for (size_t i = 0; i < st->nowned; i++)
		free(st->owned[i]);
	free(st->owned);
	free(st->copies);
	free(st->col);
	free(st->null);
	free(st->cut);
	free(st->text);
}

/* The changed findings' differing columns. */
static int rk_keys_changes(rk_side sides[2], const rk_check_spec *spec, rk_check_result *res, rk_kside ks[2],
                           size_t batch, rk_error *err)
{
	size_t ncol = sides[0].plan->nhash, *fi, n;
	rk_finding *fs;
	rk_keypool kp = { 0 };
	long got;
	int rc = 0;

	/* (room for the keys read, not for every finding: issue 25) */
	got = rk_keys_gather(res, RK_FIND_CHANGED, res->nfindings < RK_KEYS_CHANGED_MAX ? res->nfindings : RK_KEYS_CHANGED_MAX,
	                     &fs, &fi, &kp, &res->changed_unread, err);
	n = got < 0 ? 0 : (size_t)got;
	if (got < 0)
		rc = -1;
	for (size_t at = 0; at < n && rc == 0; at += batch) {
		size_t m = n - at < batch ? n - at : batch, nset, nr = 0;
		rk_u128 *set = rk_xcalloc(m, sizeof *set);
		const char **text = rk_xcalloc(m * (res->nkey ? res->nkey : 1), sizeof *text);
		rk_range *ranges = rk_xcalloc(m, sizeof *ranges);

		nset = rk_keys_set(res, fs + at, m, set, text);
		/* where the drilldown's leaves held each key's differing copies
		 * (else its window), in order, merged where they touch */
		for (size_t i = 0; i < m; i++) {
			const rk_finding *f = &fs[at + i];
			rk_fspan sp = rk_finding_span(res, f);
			bool leaf = sp.leaf_lo < sp.leaf_hi;

			ranges[i].from = leaf ? sp.leaf_lo : rk_check_window_start(res, f->window);
			ranges[i].to = leaf ? sp.leaf_hi : rk_check_window_end(res, f->window);
		}
		qsort(ranges, m, sizeof *ranges, rk_range_cmp);
		for (size_t i = 0; i < m; i++) {
			if (nr && ranges[nr - 1].to >= ranges[i].from) {
				if (ranges[i].to > ranges[nr - 1].to)
					ranges[nr - 1].to = ranges[i].to;
				continue;
			}
			ranges[nr++] = ranges[i];
		}
		rk_log_info("changed values: the rows of %zu changed key(s), by key in %zu range(s) the drilldown narrowed",
		            nset, nr);
		rc = rk_keys_scan(sides, ks, 3, ranges, nr, set, nset, text, true, err);
		for (size_t i = 0; rc == 0 && i < m; i++) {
			const rk_finding *f = &fs[at + i];
			size_t n0, n1, a0 = rk_krows_of(&ks[0], f->key_hash, f->window, &n0);
			size_t a1 = rk_krows_of(&ks[1], f->key_hash, f->window, &n1);
			rk_kstore s0, s1;

			rk_kstore_fill(&s0, &ks[0], a0, n0, ncol);
			rk_kstore_fill(&s1, &ks[1], a1, n1, ncol);
			rk_keys_compare(res, fi[at + i], ncol, s0.copies, n0, s1.copies, n1, !spec->no_values);
			rk_kstore_free(&s0);
			rk_kstore_free(&s1);
		}
		free(set);
		free(text);
		free(ranges);
	}
	res->values_omitted = spec->no_values;
	free(fi);
	free(fs);
	rk_keypool_free(&kp);
	return rc;
}

/* Whether the source answers a lookup by key with an index: a PostgreSQL
 * table whose key a primary key or unique index backs (as the diagnosis's
 * warnings asked it before the digest pass). */
static bool rk_keys_indexed(const rk_side *source, const rk_check_result *res)
{
	return rk_reader_has(source->reader, RK_CAP_RANGE_SCAN) && res->diagnosis && res->diagnosis->key_unique;
}

/* An extra key's source copy found in a checked window: the target holds
 * it there as the source does unless the key has a finding there too. */
typedef struct rk_kfound {
	size_t window;
	rk_u128 key;
	size_t finding; /* the extra finding whose lookup it answers */
	bool found;     /* the key has a finding in window */
} rk_kfound;

static int rk_kfound_cmp(const void *a, const void *b)
{
	const rk_kfound *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Answers the n questions of q (rk_kfound) in one pass of the findings,
 * and sets their lookups' target_has_it. */
static int rk_keys_found_in(rk_check_result *res, rk_kfound *q, size_t n, rk_error *err)
{
	rk_fwalk w;
	const rk_finding *f;

	if (!n)
		return 0;
	qsort(q, n, sizeof *q, rk_kfound_cmp);
	rk_fwalk_start(&w, res);
	while ((f = rk_fwalk_next(&w, NULL)) != NULL) {
		rk_kfound probe = { .window = f->window, .key = f->key_hash };
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (rk_kfound_cmp(&q[mid], &probe) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && !rk_kfound_cmp(&q[lo], &probe); lo++)
			q[lo].found = true;
	}
	if (rk_fwalk_end(&w, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		rk_finding_lookup_add(res, q[i].finding)->target_has_it = !q[i].found;
	return 0;
}

/*
 * The extra keys, looked up by key over all time on the source (when a
 * unique index backs its key: a lookup, not a scan).  A key the source
 * holds in a checked window without a finding there is in the target
 * there too, as the source has it; one outside the checked range is looked
 * up on the target (a PostgreSQL target, by key value).
 */
static int rk_keys_extra(rk_side sides[2], rk_check_result *res, rk_kside ks[2], rk_error *err)
{
	size_t n, more, nq = 0;
	size_t *fi, *out;
	rk_finding *fs;
	rk_keypool kp = { 0 };
	rk_range all = { RK_USEC_NINF, RK_USEC_PINF };
	rk_u128 *row;
	rk_kfound *q;
	long got;
	int rc = 0;

	if (!rk_keys_indexed(&sides[0], res))
		return 0;
	got = rk_keys_gather(res, RK_FIND_EXTRA, RK_KEYS_EXTRA_MAX, &fs, &fi, &kp, &more, err);
	if (got <= 0) {
		free(fs);
		free(fi);
		rk_keypool_free(&kp);
		return got < 0 ? -1 : 0;
	}
	n = (size_t)got;
	out = rk_xcalloc(n, sizeof *out);
	row = rk_xcalloc(n, sizeof *row);
	q = rk_xcalloc(n, sizeof *q);
	for (size_t at = 0; at < n && rc == 0; at += RK_KEYS_BATCH) {
		size_t m = n - at < RK_KEYS_BATCH ? n - at : RK_KEYS_BATCH, nset, nout = 0;
		rk_u128 *set = rk_xcalloc(m, sizeof *set);
		const char **text = rk_xcalloc(m * (res->nkey ? res->nkey : 1), sizeof *text);
		rk_finding *ofs = rk_xcalloc(m, sizeof *ofs);

		nset = rk_keys_set(res, fs + at, m, set, text);
		rk_log_info("diagnosis: %zu extra key(s) looked up by key on the source", nset);
		rc = rk_keys_scan(sides, ks, 1, &all, 1, set, nset, text, false, err);
		for (size_t i = 0; rc == 0 && i < m; i++) {
			const rk_finding *f = &fs[at + i];
			size_t n0, a0 = rk_krows_of(&ks[0], f->key_hash, SIZE_MAX, &n0);
			const rk_krow *latest = NULL;
			rk_lookup *lk = rk_finding_lookup_add(res, fi[at + i]);

			for (size_t k = a0; k < a0 + n0; k++)
				if (!latest || ks[0].rows[k].t >= latest->t)
					latest = &ks[0].rows[k];
			if (!latest)
				continue;
			lk->source_elsewhere = latest->t;
			if (latest->window != SIZE_MAX) {
				/* (answered below, in one pass for all of them) */
				q[nq++] = (rk_kfound){ latest->window, f->key_hash, fi[at + i], false };
			} else {
				row[at + i] = latest->row;
				ofs[nout] = *f;
				out[nout++] = at + i;
			}
		}
		if (rc == 0 && nout && rk_reader_has(sides[1].reader, RK_CAP_RANGE_SCAN)) {
			nset = rk_keys_set(res, ofs, nout, set, text);
			rk_log_info("diagnosis: %zu extra key(s) held outside the range looked up on the target", nset);
			rc = rk_keys_scan(sides, ks, 2, &all, 1, set, nset, text, false, err);
			for (size_t j = 0; rc == 0 && j < nout; j++) {
				const rk_finding *f = &fs[out[j]];
				rk_lookup *lk = rk_finding_lookup_add(res, fi[out[j]]);
				size_t n1, a1 = rk_krows_of(&ks[1], f->key_hash, SIZE_MAX, &n1);

				for (size_t k = a1; k < a1 + n1; k++)
					lk->target_has_it |= ks[1].rows[k].t == lk->source_elsewhere && ks[1].rows[k].row == row[out[j]];
			}
		}
		free(set);
		free(text);
		free(ofs);
	}
	if (rc == 0)
		rc = rk_keys_found_in(res, q, nq, err);
	free(fi);
	free(fs);
	free(out);
	free(row);
	free(q);
	rk_keypool_free(&kp);
	return rc;
}

int rk_keys_run(rk_side sides[2], const rk_check_spec *spec, rk_check_result *res, rk_error *err)
{
	rk_kside ks[2];
	size_t batch = RK_KEYS_BATCH;
	int rc;

	if (!res->nfindings)
		return 0;
	memset(ks, 0, sizeof ks);
	/* a CSV side is read whole by any scan: all the keys in one */
	if (!rk_reader_has(sides[0].reader, RK_CAP_RANGE_SCAN) || !rk_reader_has(sides[1].reader, RK_CAP_RANGE_SCAN))
		batch = RK_KEYS_CHANGED_MAX;
	rc = rk_keys_changes(sides, spec, res, ks, batch, err);
	if (rc == 0)
		rc = rk_keys_extra(sides, res, ks, err);
	for (int s = 0; s < 2; s++) {
		free(ks[s].rows);
		free(ks[s].cols);
		free(ks[s].taps);
		rk_buf_free(&ks[s].arena);
	}
	return rc;
}
