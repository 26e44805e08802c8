/*
 * drill.c - the key-level drilldown of the windows whose digests differ.
 *
 * It starts where the digest pass left off: with each damaged window's
 * damaged slices (check.c keeps every window's digest per slice as well),
 * so the first narrowing costs no read.  Work then proceeds in rounds.  A
 * node (a range still in question) small enough - at most the leaf size
 * on each side - is a leaf, whose rows are collected and compared key by
 * key; a bigger one is split, by time (or, when it is a single instant, by
 * more bits of the key hash), and the pieces' digests are computed, so the
 * next round recurses only into the pieces that differ, each shrunk to the
 * span of its rows.  Leaves are taken into a round only while their rows
 * fit the budget, so memory stays bounded by --leaf-rows per side whatever
 * the window size.  The planner (drill_plan.c: rk_drill_plan,
 * rk_drill_next) is pure: the unit tests drive it without a server.  The
 * rows a pass collects are judged key by key in drill_judge.c; this file
 * reads them and runs the rounds.
 *
 * Each side runs a round its own way.  Streaming: one scan of the round's
 * ranges, each row collected (leaf) or added to its piece's digest.  In
 * the database (a PostgreSQL side with the reckon extension 1.3, when the
 * check pushes down): the pieces' digests are computed by the server over
 * the time index, and only the leaves' rows are fetched - leaves of at
 * most RK_DRILL_SERVER_LEAF rows, since a split costs the server a scan of
 * a small range and saves fetching rows.
 *
 * A key's copies in one window may lie in several slices, some of which
 * matched and were never read (a duplicate moved in time, a stale copy),
 * so a key judged on a leaf of a time-split window is judged again on all
 * its copies in the window: the last pass (rk_drill_verify) fetches the
 * rows of those keys only - a PostgreSQL reader asks the database for them
 * by key value, which costs no transfer of the window - and sorts them
 * through a spill (drill_spill.h: past RK_SPILL_BYTES they wait in run files
 * beside the report), the tallies then taking them in one walk, so that
 * those rows and the tallies are not both held whole.
 *
 * A key is a finding when its copies differ between the sides in its
 * window (count or content); a source_duplicate is reported with such a
 * key when the source holds it more than once.  Keys whose copies agree are
 * never findings, whichever leaves they fell into: so the findings do not
 * depend on how the work was split, streamed or pushed down.
 *
 * For the diagnosis, the drilldown also notes where the damaged windows'
 * source rows that belong to no finding lie (rk_check_result.held), from
 * what it learns anyway: the slices and the pieces whose digests matched
 * (their rows' time span comes with their digests), and in each leaf the
 * runs of matching rows between damaged ones.  A gap or a repeat is then
 * told from scattered damage without reading anything again.
 */
#include <stdlib.h>
#include <string.h>

#include "check/drill.h"
#include "check/drill_judge.h"
#include "check/drill_spill.h"
#include "core/canon.h"
#include "core/log.h"

/* The leaf size of a round both sides run in their databases: a split
 * costs the server a scan of the node's rows (one index range), a leaf
 * costs fetching them. */
#define RK_DRILL_SERVER_LEAF 128

/* The most rows per side a round holds when the drilldown starts from
 * slices: a round then costs a range scan of a few of them, so holding
 * more would only make memory grow with the table (a slice is 1/64 of a
 * window) for no read saved - unless the damage is dense: then rounds
 * hold up to a RK_DRILL_RANGED_ROUNDS-th of the damaged slices' rows, so
 * that their number stays small.  --leaf-rows bounds it from above. */
#define RK_DRILL_RANGED_LEAF 4096
#define RK_DRILL_RANGED_ROUNDS 64

/* ------------------------------------------------------------------------
 * Collecting rows
 * ---------------------------------------------------------------------- */

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
			/* decoded from binary COPY: the value's own digits, written in
			 * place (a printf here was a sixth of the drilldown's work) */
			int64_t v = (int64_t)f[c].m;
			uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			size_t n = (size_t)rk_canon_ndigits(u) + (v < 0);

			rk_buf_grow(out, n);
			rk_canon_digits(out->data + out->len + n, u);
			if (v < 0)
				out->data[out->len] = '-';
			out->len += n;
		} else if (f[c].form == RK_FORM_CANON) {
			/* its canonical text, what rk_canon_text makes of the text */
			rk_buf_append(out, f[c].p, f[c].len);
		} else if (t == RK_T_TIMESTAMP || t == RK_T_TIMESTAMPTZ) {
			char ts[RK_TIME_STRLEN];
			rk_wusec v;
			if (f[c].form == RK_FORM_INSTANT)
				v = f[c].m;
			else if (rk_canon_instant_wide(t, f[c].p, f[c].len, &v, &why) < 0)
				return rk_side_bad_value(s, c, &f[c], why, err);
			rk_buf_puts(out, rk_time_format_wide(v, ts));
		} else if (t == RK_T_FLOAT4 || t == RK_T_FLOAT8 || t == RK_T_OTHER || t == RK_T_UNKNOWN ||
		           t == RK_T_BPCHAR) {
			/* a char(n) with its padding, as PostgreSQL prints it */
			rk_buf_append(out, f[c].p, f[c].len);
		} else if (rk_canon_text(t, f[c].p, f[c].len, out, &why) < 0) {
			return rk_side_bad_value(s, c, &f[c], why, err);
		}
		len = (uint32_t)(out->len - at - 4);
		memcpy(out->data + at, &len, 4);
	}
	return 0;
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

static inline uint64_t rk_mask(uint32_t bits)
{
	return bits >= 64 ? UINT64_MAX : ((UINT64_C(1) << bits) - 1);
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
		if (d->keyset && !rk_hash_set_has(d->keyset, d->nkeyset, key))
			return 0;
	}
	for (size_t i = (size_t)g; i < d->nentries && d->entries[i].node.lo == d->entries[g].node.lo; i++) {
		rk_entry *e = &d->entries[i];
		rk_drow *r;

		if (e->node.bits && ((uint64_t)key & rk_mask(e->node.bits)) != e->node.hval)
			continue;
		/* a piece the database digests: the row came with a leaf's (a
		 * reader may deliver more than it was asked for) */
		if (!e->leaf && d->server)
			return 0;
		/* a large value streamed into the hash, or pulled (s->late) */
		if (rk_side_hash_row(s, f, t, &row, err) < 0)
			return -1;
		if (!e->leaf) {
			/* each side writes its own element of the entry */
			e->sub_cnt[s->idx]++;
			e->sub_hash[s->idx] += row;
			if (t < e->min_t[s->idx])
				e->min_t[s->idx] = t;
			if (t > e->max_t[s->idx])
				e->max_t[s->idx] = t;
			return 0;
		}
		if (d->spill) {
			rk_drow rec = { key, row, t, e->node.window, (uint16_t)s->idx, false, (uint32_t)i, 0 };

			/* the record in the arena, which holds only it */
			rk_buf_reset(&d->arena);
			rk_drow_pack(&rec, &d->arena);
			if (rk_key_display(s, f, &d->arena, err) < 0)
				return -1;
			return rk_spill_add(d->spill, d->arena.data, d->arena.len, err);
		}
		if (d->nrows == d->caprows) {
			d->caprows = d->caprows ? d->caprows * 2 : 1024;
			d->rows = rk_xrealloc(d->rows, d->caprows * sizeof *d->rows);
		}
		r = &d->rows[d->nrows++];
		r->key = key;
		r->row = row;
		r->t = t;
		r->window = e->node.window;
		r->side = (uint16_t)s->idx;
		r->damaged = false;
		r->entry = (uint32_t)i;
		r->disp = d->arena.len;
		return rk_key_display(s, f, &d->arena, err);
	}
	return 0;
}

/* A row whose large values came out of band, after the scan's others:
 * the rows are sorted before they are judged, so order does not matter. */
static int rk_drill_late_row(void *ctx, const rk_field *f, rk_error *err)
{
	return rk_side_late(ctx, f, rk_drill_row, err);
}

/* One piece's digest as the server computed it. */
static int rk_drill_piece_row(void *ctx, const rk_field *f, rk_error *err)
{
	rk_side *s = ctx;
	rk_dside *d = s->drill;
	const rk_drill_round *rd = d->rd;
	int64_t part, piece, n, mn, mx;
	char hex[33];
	rk_u128 h;
	rk_entry *e;

	if (rk_field_int64(&f[0], &part) < 0 || part < 0 || (uint64_t)part >= rd->nparts ||
	    rk_field_int64(&f[1], &piece) < 0 || piece < 0 ||
	    (uint64_t)piece >= rd->part_first[part + 1] - rd->part_first[part] || rk_field_int64(&f[2], &n) < 0 ||
	    n < 0 || f[3].null || f[3].len != 32 || rk_field_int64(&f[4], &mn) < 0 || rk_field_int64(&f[5], &mx) < 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: the server's drilldown digests hold an unexpected row",
		             rk_reader_describe(s->reader));
		return rk_error_hint(err, "the reckon extension and this reckon do not agree: install the extension "
		                          "built from this reckon's sources (docs/pushdown.md)");
	}
	memcpy(hex, f[3].p, 32);
	hex[32] = '\0';
	if (rk_hash_parse(hex, &h) < 0)
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: the server's drilldown digests hold the hash '%s'",
		                    rk_reader_describe(s->reader), hex);
	e = &d->entries[rd->piece_entry[rd->part_first[part] + (uint64_t)piece]];
	e->sub_cnt[s->idx] += (uint64_t)n;
	e->sub_hash[s->idx] += h;
	if (mn < e->min_t[s->idx])
		e->min_t[s->idx] = mn;
	if (mx > e->max_t[s->idx])
		e->max_t[s->idx] = mx;
	d->server_rows += (uint64_t)n;
	return 0;
}

/* A round's or the verify pass's work on one side: the pieces' digests
 * (by its database, or from the scan) and the leaves' rows. */
static int rk_drill_side(rk_side *s)
{
	rk_dside *d = s->drill;
	const rk_plan *p = s->plan;
	rk_range *ranges = rk_xcalloc(d->nentries ? d->nentries : 1, sizeof *ranges);
	rk_keybits *kb = rk_xcalloc(d->nentries ? d->nentries : 1, sizeof *kb);
	bool any_bits = false;
	size_t n = 0;
	rk_scan scan;
	int rc = 0;

	if (d->server && d->rd && d->rd->nparts) {
		rk_drill_query q = { p->time_idx, p->hash_idx, p->nhash, p->key_idx, p->nkey, d->rd->parts, d->rd->nparts };

		rc = rk_reader_drill_digest(s->reader, &q, rk_drill_piece_row, s, &s->err);
		if (rc == 1)
			rc = -1; /* it could when probed: s->err says what changed */
	}
	for (size_t i = 0; i < d->nentries && rc == 0; i++) {
		const rk_node *nd = &d->entries[i].node;

		if (d->server && !d->entries[i].leaf)
			continue;
		/* the database narrows a key-hash leaf; streamed, ranges merge */
		if (d->server && nd->bits) {
			any_bits = true;
		} else if (n && ranges[n - 1].to >= nd->lo && !kb[n - 1].bits) {
			if (nd->hi > ranges[n - 1].to)
				ranges[n - 1].to = nd->hi;
			continue;
		}
		ranges[n].from = nd->lo;
		ranges[n].to = nd->hi;
		kb[n].bits = d->server ? nd->bits : 0;
		kb[n].hval = nd->hval;
		n++;
	}
	if (rc == 0 && n) {
		memset(&scan, 0, sizeof scan);
		scan.time_index = p->time_idx;
		scan.ranges = ranges;
		scan.nranges = n;
		scan.key_index = p->key_idx;
		scan.nkey = p->nkey;
		scan.keybits = any_bits ? kb : NULL;
		scan.key_text = d->key_text;
		scan.nkeys = d->key_text ? d->nkeyset : 0;
		scan.serial = d->serial;
		/* binary COPY when it can show every key value as the text would:
		 * a float key is shown as PostgreSQL prints it, which its bits do
		 * not say */
		scan.binary = true;
		for (size_t i = 0; i < p->nkey; i++) {
			rk_type t = s->types[p->key_idx[i]];

			if (t == RK_T_FLOAT4 || t == RK_T_FLOAT8)
				scan.binary = false;
		}
		rk_side_large_scan(s, &scan, rk_drill_late_row);
		rc = rk_side_scan(s, &scan, rk_drill_row, s, &s->err);
	}
	free(ranges);
	free(kb);
	return rc;
}

/* ------------------------------------------------------------------------
 * Rounds
 * ---------------------------------------------------------------------- */

static void rk_dside_reset(rk_dside *d, rk_entry *entries, size_t n)
{
	d->entries = entries;
	d->nentries = n;
	d->rd = NULL;
	d->keyset = NULL;
	d->nkeyset = 0;
	d->key_text = NULL;
	d->serial = false;
	d->nrows = 0;
	rk_buf_reset(&d->arena);
}

/* Runs the pass set up in ds on both sides, then judges what it collected
 * (noting the runs of matching rows in held, when given). */
static int rk_drill_pass(rk_side sides[2], rk_check_result *res, rk_dside ds[2], rk_tallies *ts, rk_helds *held,
                         rk_error *err)
{
	rk_side *both[2] = { &sides[0], &sides[1] };
	uint64_t before = res->side[0].rows_read + res->side[1].rows_read;

	for (int s = 0; s < 2; s++)
		ds[s].server_rows = 0;
	res->drill_passes++;
	if (rk_sides_parallel(both, 2, rk_drill_side, err) < 0)
		return -1;
	res->drill_rows += res->side[0].rows_read + res->side[1].rows_read - before;
	res->drill_server_rows += ds[0].server_rows + ds[1].server_rows;
	return rk_drill_leaves(&ds[0], &ds[1], ts, held, err);
}

/* A key of the verify pass: its hash, and where its display texts are in
 * the arena of rk_vkeys. */
typedef struct rk_vkey {
	rk_u128 key;
	size_t at;
} rk_vkey;

static int rk_vkey_cmp(const void *a, const void *b)
{
	const rk_vkey *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* The verify pass's keys: sorted, distinct, and their display texts (nkey
 * a key, NULL for SQL NULL) in one arena. */
typedef struct rk_vkeys {
	rk_u128 *keys;
	const char **text;
	size_t n;
	rk_buf arena; /* a key's texts: per column a byte (0: SQL NULL), then the text and a NUL */
	/* More keys than the bound holds (rk_verify_keys): none kept, the pass
	 * reads every row of its windows. */
	bool unfiltered;
	size_t seen; /* the keys met, not distinct */
} rk_vkeys;

static void rk_vkeys_free(rk_vkeys *vk)
{
	free(vk->keys);
	free(vk->text);
	rk_buf_free(&vk->arena);
	memset(vk, 0, sizeof *vk);
}

/*
 * Whether the verify pass shares its read with the target: the slices
 * whose digests matched hold the same rows on both sides, so the target
 * can count a key's copies in some of them while the source reads the
 * rest, the two databases at once.  Only where that gives what the source
 * alone would, row for row: the time hashed (equal rows, equal times), the
 * key and time columns of one type on both sides (equal display texts), no
 * conversion, no zone.  Not when an index of the source makes the key
 * unique: its lookups read almost nothing, the target's might not.
 */
static bool rk_verify_shared(rk_side sides[2], const rk_check_result *res)
{
	const rk_plan *p = sides[0].plan;
	bool unique = true;
	rk_error e;

	if (res->keyed || res->slices < 4 || p->time_hashpos < 0 || p->convert[0] || p->convert[1] || sides[0].zoned ||
	    sides[1].zoned || sides[0].types[p->time_idx] != sides[1].types[p->time_idx])
		return false;
	for (size_t i = 0; i < p->nkey; i++)
		if (sides[0].types[p->key_idx[i]] != sides[1].types[p->key_idx[i]])
			return false;
	rk_error_clear(&e);
	if (rk_reader_key_unique(sides[0].reader, p->key_idx, p->nkey, &unique, &e) != 0) {
		rk_error_clear(&e);
		return false;
	}
	return !unique;
}

/* Appends a range of window w to es (n entries so far), merged with the
 * last when they touch. */
static size_t rk_verify_range(rk_entry *es, size_t n, size_t w, rk_usec lo, rk_usec hi)
{
	if (n && es[n - 1].node.window == w && es[n - 1].node.hi == lo) {
		es[n - 1].node.hi = hi;
		return n;
	}
	memset(&es[n], 0, sizeof es[n]);
	es[n].leaf = true;
	es[n].node.window = w;
	es[n].node.lo = lo;
	es[n].node.hi = hi;
	return n + 1;
}

/* The verify pass's ranges: each window of has whole for the source, or
 * when shared, the matching slices of its second half for the target
 * (tgt, *ntgt of them) and the rest for the source.  Returns how many the
 * source has. */
static size_t rk_verify_entries(const rk_check_result *res, const bool *has, bool shared, rk_entry *src, rk_entry *tgt,
                                size_t *ntgt)
{
	size_t ns = 0, nt = 0;

	for (size_t w = 0; w < res->nwindows; w++) {
		rk_usec start = rk_check_window_start(res, w), sw;

		if (!has[w])
			continue;
		if (!shared || res->slices < 2) {
			ns = rk_verify_range(src, ns, w, start, rk_check_window_end(res, w));
			continue;
		}
		sw = res->width / (rk_usec)res->slices;
		for (size_t k = 0; k < res->slices; k++) {
			size_t i = w * res->slices + k;
			rk_usec lo = start + (rk_usec)k * sw;
			bool same = res->side[0].slice_rows[i] == res->side[1].slice_rows[i] &&
			            res->side[0].slice_hash[i] == res->side[1].slice_hash[i];

			if (k >= res->slices / 2 && same)
				nt = rk_verify_range(tgt, nt, w, lo, lo + sw);
			else
				ns = rk_verify_range(src, ns, w, lo, lo + sw);
		}
	}
	*ntgt = nt;
	return ns;
}

/* The distinct keys of the tallies of time-split windows, sorted, and
 * their display texts, into *out; marks their windows in has.  One walk of
 * the tallies (their keys whose copies agree, all told, noted in held).
 * Past rk_spill_bound_env() bytes of keys being gathered (the set made from
 * them takes about as much again) none is kept: out->unfiltered, and the
 * pass reads every row of the windows into its spill (issue 25: a window
 * whose every row differs holds millions of keys). */
static int rk_verify_keys(const rk_check_result *res, rk_tallies *ts, rk_helds *held, bool *has, rk_vkeys *out,
                          rk_error *err)
{
	rk_vkey *vk = NULL;
	size_t nv = 0, cap = 0, nkey = res->nkey, bound = rk_spill_bound_env();
	rk_tally t;
	int more;

	memset(out, 0, sizeof *out);
	while ((more = rk_tallies_next(ts, held, &t, err)) > 0) {
		const char *p = t.enc;

		if (!ts->split_time[t.window])
			continue;
		has[t.window] = true;
		out->seen++;
		if (out->unfiltered)
			continue;
		/* past the bound the keys go: the pass's rows, spilled, are walked
		 * beside the tallies, which skip the keys they do not hold */
		if (nv * sizeof *vk + out->arena.len > bound) {
			out->unfiltered = true;
			free(vk);
			vk = NULL;
			nv = cap = 0;
			rk_buf_free(&out->arena);
			continue;
		}
		if (nv == cap) {
			cap = cap ? cap * 2 : 256;
			vk = rk_xrealloc(vk, cap * sizeof *vk);
		}
		vk[nv].key = t.key;
		vk[nv++].at = out->arena.len;
		for (size_t c = 0; c < nkey; c++) {
			const char *text;
			uint32_t len;

			p = rk_disp_field(p, &text, &len);
			rk_buf_append(&out->arena, text ? "\1" : "", 1);
			if (!text)
				continue;
			rk_buf_append(&out->arena, text, len);
			rk_buf_append(&out->arena, "", 1);
		}
	}
	if (more < 0) {
		free(vk);
		rk_vkeys_free(out);
		return -1;
	}
	if (nv)
		qsort(vk, nv, sizeof *vk, rk_vkey_cmp);
	out->keys = rk_xcalloc(nv ? nv : 1, sizeof *out->keys);
	out->text = rk_xcalloc((nv ? nv : 1) * (nkey ? nkey : 1), sizeof *out->text);
	for (size_t i = 0; i < nv; i++) {
		const char *p;

		if (out->n && out->keys[out->n - 1] == vk[i].key)
			continue;
		out->keys[out->n] = vk[i].key;
		p = out->arena.data + vk[i].at;
		for (size_t c = 0; c < nkey; c++) {
			if (!*p++)
				continue;
			out->text[out->n * nkey + c] = p;
			p += strlen(p) + 1;
		}
		out->n++;
	}
	free(vk);
	return 0;
}

/*
 * Judges again, on all their copies in the window, the keys that a leaf of
 * a time-split window found: a key's copies may also lie in ranges that
 * matched (a duplicate moved in time, a stale copy, a source duplicate) and
 * were never read.  Copies in ranges that matched are the same on both
 * sides, so one side tells how many there are: the source is read, in those
 * windows, for the rows of those keys only - their display texts let a
 * PostgreSQL reader ask for them by value - and each key gains, on both
 * sides, the copies its leaves did not hold.  Without an index on the key
 * that read is a scan of the windows: the target then reads half of their
 * matching slices (rk_verify_shared).
 */
static int rk_drill_verify(rk_side sides[2], rk_check_result *res, rk_dside ds[2], rk_tallies *ts, rk_helds *held,
                           const char *spill_dir, rk_error *err)
{
	rk_vkeys vk;
	rk_entry *entries[2];
	bool *has, shared = false;
	rk_side *list[2] = { &sides[0], &sides[1] };
	uint64_t before = res->side[0].rows_read + res->side[1].rows_read;
	size_t ne[2] = { 0, 0 }, nw = 0, cap;
	int rc;

	if (rk_tallies_finish(ts, err) < 0)
		return -1;
	/* no key judged on a leaf of a time-split window: the tallies are
	 * the findings' */
	if (!ts->nsplit)
		return rk_verify_stream(NULL, ts, rk_classify_tally, res, err);
	has = rk_xcalloc(res->nwindows, sizeof *has);
	if (rk_verify_keys(res, ts, held, has, &vk, err) < 0 || rk_tallies_rewind(ts, err) < 0) {
		free(has);
		return -1;
	}
	shared = rk_verify_shared(sides, res);
	cap = res->nwindows * (res->slices ? res->slices : 1);
	entries[0] = rk_xcalloc(cap, sizeof *entries[0]);
	entries[1] = rk_xcalloc(cap, sizeof *entries[1]);
	ne[0] = rk_verify_entries(res, has, shared, entries[0], entries[1], &ne[1]);
	for (size_t w = 0; w < res->nwindows; w++)
		nw += has[w];
	for (int s = 0; s < 2; s++) {
		rk_dside_reset(&ds[s], entries[s], ne[s]);
		ds[s].server = false;
		ds[s].need_key = true;
		ds[s].keyset = vk.unfiltered ? NULL : vk.keys;
		ds[s].nkeyset = vk.unfiltered ? 0 : vk.n;
		ds[s].key_text = res->nkey && !vk.unfiltered ? vk.text : NULL;
		/* shared, the two sides' reads of the windows already run at once,
		 * often on one server: a side's parallel workers would only
		 * compete with the other's (docs/performance.md) */
		ds[s].serial = ne[1] > 0;
		ds[s].spill = rk_drow_spill_new(spill_dir);
		/* the rounds' rows are judged: the pass collects into the spill */
		free(ds[s].rows);
		ds[s].rows = NULL;
		ds[s].caprows = 0;
	}
	res->drill_passes++;
	if (vk.unfiltered)
		rk_log_info("drilldown pass %d: every source row of %zu time-split window(s), for %zu key(s): more "
		            "than %zu bytes of them to hold%s",
		            res->drill_passes, nw, vk.seen, rk_spill_bound_env(),
		            ne[1] ? ", the target counting its rows in half the slices that matched" : "");
	else
		rk_log_info("drilldown pass %d: the source's copies of %zu key(s) in %zu time-split window(s)%s",
		            res->drill_passes, vk.n, nw,
		            ne[1] ? ", the target counting them in half the slices that matched" : "");
	rc = rk_sides_parallel(list, ne[1] ? 2 : 1, rk_drill_side, err);
	res->drill_rows += res->side[0].rows_read + res->side[1].rows_read - before;
	for (int s = 0; s < 2; s++) {
		ds[s].keyset = NULL;
		ds[s].key_text = NULL;
		ds[s].serial = false;
	}
	rk_vkeys_free(&vk);
	/* the target's rows are the source's copies too; then the tallies (in
	 * (window, key) order) take them in one walk, and become the findings */
	if (rc == 0)
		rc = rk_drow_spill_join(ds[0].spill, ds[1].spill, err);
	rk_spill_free(ds[1].spill);
	ds[1].spill = NULL;
	if (rc == 0) {
		rk_log_debug("drilldown pass %d: %llu row(s) sorted, %llu run(s) spilled to %s", res->drill_passes,
		             (unsigned long long)rk_spill_count(ds[0].spill),
		             (unsigned long long)rk_spill_runs_written(ds[0].spill), spill_dir ? spill_dir : "TMPDIR");
		rc = rk_verify_stream(ds[0].spill, ts, rk_classify_tally, res, err);
	}
	for (int s = 0; s < 2; s++) {
		rk_dside_reset(&ds[s], NULL, 0);
		rk_spill_free(ds[s].spill);
		ds[s].spill = NULL;
		rk_buf_free(&ds[s].arena);
	}
	free(entries[0]);
	free(entries[1]);
	free(has);
	return rc;
}

/* Whether side s narrows in its database: a PostgreSQL side of a check
 * that pushes down, whose database has what the drilldown needs. */
static bool rk_drill_server_side(rk_side *s, const rk_check_spec *spec, rk_error *err)
{
	rk_drill_query q;
	int rc;

	/* exact numbers compared as the other side's floats: hashed here */
	if (spec->pushdown == RK_PUSHDOWN_OFF || !rk_reader_has(s->reader, RK_CAP_PUSHDOWN) || s->zoned ||
	    s->plan->convert[s->idx])
		return false;
	memset(&q, 0, sizeof q);
	q.time_index = s->plan->time_idx;
	rc = rk_reader_drill_digest(s->reader, &q, NULL, NULL, err);
	if (rc != 0) {
		rk_log_info("%s: the drilldown streams its rows: %s", s->name, err->msg);
		rk_error_clear(err);
		return false;
	}
	rk_log_info("%s: the drilldown narrows the damage in the database", s->name);
	return true;
}

/* The first round's queue: each damaged window whole, or sliced, its
 * damaged slices (split_time set; the spans of the matching slices noted in
 * held, when given). */
static void rk_drill_queue(const rk_check_result *res, bool sliced, rk_helds *held, bool *split_time, rk_nodes *queue)
{
	for (size_t w = 0; w < res->nclosed; w++) {
		rk_usec start = rk_check_window_start(res, w);

		if (res->status[w] != RK_WIN_DIFFER)
			continue;
		if (!sliced) {
			rk_node node = { w, start, rk_check_window_end(res, w), 0, 0, { res->side[0].rows[w], res->side[1].rows[w] } };

			if (res->keyed) {
				/* the open ends of the outer segments: the span every
				 * point lies in, so that piece widths fit an int64 */
				if (node.lo < RK_KS_MIN)
					node.lo = RK_KS_MIN;
				if (node.hi > RK_KS_MAX)
					node.hi = RK_KS_MAX + 1;
			}

			rk_nodes_push(queue, &node);
			continue;
		}
		for (size_t k = 0; k < res->slices; k++) {
			size_t i = w * res->slices + k;
			rk_usec sw = res->width / (rk_usec)res->slices;
			rk_node node = { w, start + (rk_usec)k * sw, start + (rk_usec)(k + 1) * sw, 0, 0, { res->side[0].slice_rows[i], res->side[1].slice_rows[i] } };

			if (res->side[0].slice_rows[i] == res->side[1].slice_rows[i] &&
			    res->side[0].slice_hash[i] == res->side[1].slice_hash[i]) {
				/* where its rows lie inside it is not known: all of it */
				if (held && res->side[0].slice_rows[i])
					rk_held_add(held, node.lo, node.hi - 1);
				continue;
			}
			rk_nodes_push(queue, &node);
			split_time[w] = true;
		}
	}
}

/* The leaf size when the drilldown starts from slices: at most
 * RK_DRILL_RANGED_LEAF rows, or with dense damage a RK_DRILL_RANGED_ROUNDS-th
 * of the damaged slices' rows, and never more than leaf. */
static uint64_t rk_ranged_leaf(const rk_nodes *queue, uint64_t leaf)
{
	uint64_t damaged = 0, cap;

	for (size_t i = 0; i < queue->n; i++)
		damaged += queue->v[i].cnt[0] > queue->v[i].cnt[1] ? queue->v[i].cnt[0] : queue->v[i].cnt[1];
	cap = damaged / RK_DRILL_RANGED_ROUNDS > RK_DRILL_RANGED_LEAF ? damaged / RK_DRILL_RANGED_ROUNDS
	                                                              : RK_DRILL_RANGED_LEAF;
	return leaf > cap ? cap : leaf;
}

int rk_drill_run(rk_side sides[2], const rk_check_spec *spec, rk_check_result *res, rk_error *err)
{
	uint64_t leaf = spec->leaf_rows ? spec->leaf_rows : RK_CHECK_LEAF_ROWS;
	rk_nodes queue = { NULL, 0, 0 }, next = { NULL, 0, 0 };
	rk_dside ds[2];
	rk_drill_round rd;
	rk_tallies ts;
	rk_helds hl = { NULL, 0, 0 }, *held = spec->diagnose ? &hl : NULL;
	bool *split_time = rk_xcalloc(res->nwindows ? res->nwindows : 1, sizeof *split_time);
	bool server[2] = { false, false }, eager, sliced;
	bool any = false;
	int rc = -1;

	memset(ds, 0, sizeof ds);
	memset(&rd, 0, sizeof rd);
	for (size_t w = 0; w < res->nclosed; w++)
		any |= res->status[w] == RK_WIN_DIFFER;
	if (!any) {
		free(split_time);
		return 0;
	}
	for (int s = 0; s < 2; s++)
		server[s] = rk_drill_server_side(&sides[s], spec, err);
	res->side[0].drill_server = server[0];
	res->side[1].drill_server = server[1];
	/* both sides in their databases: small leaves, wide splits */
	eager = server[0] && server[1];
	if (eager && leaf > RK_DRILL_SERVER_LEAF)
		leaf = RK_DRILL_SERVER_LEAF;
	/* start from the damaged slices where both sides have them and a scan
	 * can read a range alone (a CSV side is read whole by every pass: its
	 * windows are better read once, and judged without a verify pass) */
	sliced = res->slices > 1 && res->side[0].slices_ok && res->side[1].slices_ok &&
	         rk_reader_has(sides[0].reader, RK_CAP_RANGE_SCAN) && rk_reader_has(sides[1].reader, RK_CAP_RANGE_SCAN);
	rk_drill_queue(res, sliced, held, split_time, &queue);
	/* the tallies are read back once or twice, in order, while the
	 * findings grow beside them: an eighth of the bound in memory */
	rk_tallies_init(&ts, spec->spill_dir, rk_spill_share_bound(), res->nkey, split_time);
	/* (and the findings' store, past as many bytes of them) */
	res->spill_dir = spec->spill_dir;
	if (sliced)
		leaf = rk_ranged_leaf(&queue, leaf);
	sides[0].drill = &ds[0];
	sides[1].drill = &ds[1];
	while (queue.n > 0) {
		rk_nodes tmp;

		next.n = 0;
		rk_drill_plan(queue.v, queue.n, leaf, eager, &rd, &next, split_time);
		for (int s = 0; s < 2; s++) {
			rk_dside_reset(&ds[s], rd.entries, rd.nentries);
			ds[s].rd = &rd;
			ds[s].server = server[s];
			ds[s].need_key = rd.nleaves > 0;
			for (size_t i = 0; i < rd.nentries; i++)
				ds[s].need_key |= rd.entries[i].node.bits > 0;
		}
		rk_log_info("drilldown pass %d: %zu leaves, %zu ranges split into %zu pieces", res->drill_passes + 1,
		            rd.nleaves, rd.nparts, rd.nentries - rd.nleaves);
		if (rk_drill_pass(sides, res, ds, &ts, held, err) < 0)
			goto done;
		if (held)
			rk_held_pieces(&rd, held);
		rk_drill_next(&rd, &next);
		tmp = queue;
		queue = next;
		next = tmp;
	}
	for (int s = 0; s < 2; s++)
		rk_dside_reset(&ds[s], NULL, 0);
	/* the findings: made in (window, key) order, then sorted */
	if (rk_drill_verify(sides, res, ds, &ts, held, spec->spill_dir, err) < 0)
		goto done;
	rk_log_debug("drilldown: %llu tally(ies), %llu run(s) of them spilled to %s", (unsigned long long)ts.n,
	             (unsigned long long)rk_spill_runs_written(ts.sp), spec->spill_dir ? spec->spill_dir : "TMPDIR");
	rk_tallies_free(&ts);
	if (rk_findings_sort(res, err) < 0)
		goto done;
	if (held) {
		res->held = hl.v;
		res->nheld = hl.n;
		hl.v = NULL;
	}
	rc = 0;
done:
	rk_tallies_free(&ts);
	free(hl.v);
	for (int s = 0; s < 2; s++) {
		free(ds[s].rows);
		rk_buf_free(&ds[s].arena);
		sides[s].drill = NULL;
	}
	rk_drill_round_free(&rd);
	free(queue.v);
	free(next.v);
	free(split_time);
	return rc;
}
