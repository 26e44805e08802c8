/*
 * diagnose_store.c - the classification's proxy when a check's findings
 * lie in its store (diagnose.h, rk_diagnose_proxy; issue 25: a window whose
 * every row differs holds millions of them).  Most findings need others
 * to be classified: a run of lost or doubled rows, a stale copy and its
 * moved row, a key the source holds twice.  A changed finding outside a
 * window with a source_duplicate needs none (rk_diagnose_alone) beyond
 * breaking the runs it lies in, which its span in the proxy's held does.
 * The proxy holds the others in memory, as a result's findings; the
 * changed ones are read again from the store, one pass a cause.
 *
 * Some findings only the runs they make can place, and past the bound
 * they are most of the damage: the lost rows (missing, no target copy) of
 * a large gap, the doubled rows of an interval loaded twice.  A lost row
 * is a gap (two or more next to each other), a boundary (one alone on a
 * window's start or a whole hour) or nothing, where no extra finding has
 * a lost row's key (no moved key: their key hashes, sorted, never meet),
 * none is a source_duplicate and the source keeps no commit times (no
 * late commit, no partial transaction); a doubled row is a
 * repeat, a boundary or nothing where no finding is a source_duplicate.
 * Then the proxy leaves them out too, and a sweep of each kind finds their
 * runs: the rows sorted by source time (24 bytes each, an external sort),
 * beside the spans that break such a run sorted by start (the drilldown's
 * held and each finding that breaks it), whose prefix's latest end tells
 * whether one meets the interval between two rows.  What the sweep keeps
 * is a byte a row, a bit a row while it runs and a byte a run (issue 25: a
 * window of millions of lost or doubled rows).
 */
#include "check/diagnose.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "io/spill.h"

/* The windows that hold a source_duplicate, in dupwin, and how many
 * findings are extra, source duplicates, lost and doubled rows: one pass. */
static int rk_proxy_dupwin(const rk_check_result *res, bool *dupwin, size_t *nextra, size_t *ndup, size_t *nlost,
                           size_t *ndoubled, rk_error *err)
{
	rk_fwalk w;
	const rk_finding *f;

	rk_fwalk_start(&w, res);
	while ((f = rk_fwalk_next(&w, NULL)) != NULL) {
		*nextra += f->kind == RK_FIND_EXTRA;
		*nlost += rk_diagnose_lost(f);
		*ndoubled += rk_diagnose_doubled(f);
		if (f->kind == RK_FIND_SOURCE_DUPLICATE) {
			dupwin[f->window] = true;
			(*ndup)++;
		}
	}
	return rk_fwalk_end(&w, err);
}

/* The proxy's findings, copied with their keys, and their lookups; *runs:
 * whether some finding is a run's candidate, *alone: how many the proxy
 * left out. */
static int rk_proxy_findings(const rk_check_result *res, rk_check_result *p, const rk_dproxy *px, bool *runs,
                             size_t *alone, rk_error *err)
{
	rk_fwalk w;
	const rk_finding *f;
	size_t gi, li = 0;

	rk_fwalk_start(&w, res);
	while ((f = rk_fwalk_next(&w, &gi)) != NULL) {
		rk_finding *c;

		if (!rk_diagnose_in_proxy(px, f)) {
			(*alone)++;
			continue;
		}
		if (p->nfindings == p->findings_cap) {
			p->findings_cap = p->findings_cap ? 2 * p->findings_cap : 64;
			p->findings = rk_xrealloc(p->findings, p->findings_cap * sizeof *p->findings);
		}
		c = &p->findings[p->nfindings];
		*c = *f;
		c->key = rk_keypool_key(&p->key_pool, (const char *const *)f->key, NULL, res->nkey);
		while (li < res->nlookups && res->lookups[li].finding < gi)
			li++;
		if (li < res->nlookups && res->lookups[li].finding == gi) {
			p->lookups = rk_xrealloc(p->lookups, (p->nlookups + 1) * sizeof *p->lookups);
			p->lookups[p->nlookups] = res->lookups[li];
			p->lookups[p->nlookups++].finding = p->nfindings;
		}
		*runs |= rk_diagnose_doubled(f) || rk_diagnose_lost(f);
		p->nfindings++;
	}
	return rk_fwalk_end(&w, err);
}

/* The left-out findings' source spans, added to the proxy's held: a
 * changed row breaks a run of lost rows and one of doubled rows alike, a
 * lost row one of doubled rows, a doubled row one of lost rows (and the
 * proxy holds no run of the kind a left-out row does not break). */
static int rk_proxy_breaks(const rk_check_result *res, rk_check_result *p, const rk_dproxy *px, rk_error *err)
{
	rk_fwalk w;
	const rk_finding *f;
	size_t cap = p->nheld;

	rk_fwalk_start(&w, res);
	while ((f = rk_fwalk_next(&w, NULL)) != NULL) {
		rk_fspan sp;

		if (rk_diagnose_in_proxy(px, f) || !f->source_copies)
			continue;
		sp = rk_finding_span(res, f);
		if (sp.source_min == RK_USEC_NINF)
			continue;
		if (p->nheld == cap) {
			cap = cap ? 2 * cap : 64;
			p->held = rk_xrealloc(p->held, cap * sizeof *p->held);
		}
		p->held[p->nheld++] = (rk_held){ sp.source_min, sp.source_max };
	}
	return rk_fwalk_end(&w, err);
}

/* A row in the sweep's order: its source time, then its place among the
 * rows of its kind (the findings' order). */
typedef struct rk_run_rec {
	rk_usec t;
	uint32_t rank;
	uint32_t window;
	uint64_t same; /* its copies alike (a doubled row) */
} rk_run_rec;

static int rk_run_rec_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx)
{
	rk_run_rec x, y;

	(void)alen;
	(void)blen;
	(void)ctx;
	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	if (x.t != y.t)
		return x.t < y.t ? -1 : 1;
	return x.rank < y.rank ? -1 : x.rank > y.rank;
}

static int rk_break_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx)
{
	rk_held x, y;

	(void)alen;
	(void)blen;
	(void)ctx;
	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	return x.lo < y.lo ? -1 : x.lo > y.lo;
}

/* A sweep of one kind's rows (repeat: the doubled ones, else the lost
 * ones) in time order, beside the spans that break their runs in order of
 * their start, those that start at or before the last row read taken
 * (their latest end, reach). */
typedef struct rk_sweep {
	const rk_check_result *res;
	bool repeat;
	rk_spill *rows, *brk;
	rk_held next; /* the first break not taken, when more */
	bool more, taken;
	rk_usec reach;
	rk_error *err;
} rk_sweep;

/* The kind's rows and the breaks, from one pass of the findings. */
static int rk_sweep_fill(rk_sweep *sw, rk_error *err)
{
	const rk_check_result *res = sw->res;
	rk_fwalk w;
	const rk_finding *f;
	uint32_t rank = 0;
	int rc = 0;

	for (size_t i = 0; i < res->nheld && rc == 0; i++)
		rc = rk_spill_add(sw->brk, &res->held[i], sizeof res->held[i], err);
	rk_fwalk_start(&w, res);
	while (rc == 0 && (f = rk_fwalk_next(&w, NULL)) != NULL) {
		if (sw->repeat ? rk_diagnose_doubled(f) : rk_diagnose_lost(f)) {
			rk_run_rec r = { f->source_time, rank++, (uint32_t)f->window, f->same_copies };

			rc = rk_spill_add(sw->rows, &r, sizeof r, err);
		} else if (f->source_copies && rk_diagnose_breaks(f, sw->repeat)) {
			rk_fspan sp = rk_finding_span(res, f);
			rk_held h = { sp.source_min, sp.source_max };

			if (sp.source_min != RK_USEC_NINF)
				rc = rk_spill_add(sw->brk, &h, sizeof h, err);
		}
	}
	if (rk_fwalk_end(&w, rc == 0 ? err : NULL) < 0)
		rc = -1;
	return rc;
}

/* Reads the next break into sw->next (sw->more: there was one). */
static int rk_sweep_next_break(rk_sweep *sw)
{
	const void *rec;
	size_t len;
	int rc = rk_spill_next(sw->brk, &rec, &len, sw->err);

	if (rc < 0)
		return -1;
	sw->more = rc > 0;
	if (sw->more)
		memcpy(&sw->next, rec, sizeof sw->next);
	return 0;
}

/* Whether rows x and y (x first) lie next to each other: no break meets
 * [x's time, y's time] and no window between them holds a source row
 * (diagnose.c's rk_adjacent, over the breaks in order).  -1: a failed
 * read. */
static int rk_sweep_adjacent(rk_sweep *sw, const rk_run_rec *x, const rk_run_rec *y)
{
	while (sw->more && sw->next.lo <= y->t) {
		if (!sw->taken || sw->next.hi > sw->reach)
			sw->reach = sw->next.hi;
		sw->taken = true;
		if (rk_sweep_next_break(sw) < 0)
			return -1;
	}
	if (sw->taken && sw->reach >= x->t)
		return 0;
	for (size_t w = (size_t)x->window + 1; w < y->window; w++)
		if (sw->res->side[0].rows[w])
			return 0;
	return 1;
}

/* A run's rows as the sweep counts them. */
typedef struct rk_sweep_run {
	size_t n;
	bool all_boundary, same;
	rk_usec first, last;
} rk_sweep_run;

/* A run's pattern (as diagnose.c's rk_runs judges it, every row free:
 * nothing else places them), unclassified when it places none; its span
 * added to the kind's. */
static unsigned char rk_sweep_judge(const rk_sweep *sw, rk_dswept *k, const rk_sweep_run *run)
{
	rk_pattern p =
	        rk_diagnose_run_pattern(sw->repeat ? RK_PAT_REPEAT : RK_PAT_GAP, run->n, run->all_boundary, run->same);

	if (p == RK_PAT_COUNT)
		return RK_PAT_UNCLASSIFIED;
	if (p != RK_PAT_BOUNDARY)
		rk_dspans_add(&k->spans, run->first, run->last, run->n);
	return (unsigned char)p;
}

/* Appends pattern to the runs' patterns (*n of them, room for *cap). */
static void rk_sweep_push(unsigned char **run_of, size_t *n, size_t *cap, unsigned char pattern)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*run_of = rk_xrealloc(*run_of, *cap);
	}
	(*run_of)[(*n)++] = pattern;
}

/* Walks the rows in time order: the rows that start a run marked in
 * starts, each run's pattern appended to *run_of (*nruns). */
static int rk_sweep_runs(rk_sweep *sw, rk_dswept *k, unsigned char *starts, unsigned char **run_of, size_t *nruns)
{
	rk_run_rec prev, cur;
	rk_sweep_run run = { 0, true, false, 0, 0 };
	size_t i = 0, cap = 0;
	const void *rec;
	size_t len;
	int rc;

	if (rk_sweep_next_break(sw) < 0)
		return -1;
	while ((rc = rk_spill_next(sw->rows, &rec, &len, sw->err)) > 0) {
		int adj = 0;

		memcpy(&cur, rec, sizeof cur);
		if (i && (adj = rk_sweep_adjacent(sw, &prev, &cur)) < 0)
			return -1;
		if (i && !adj)
			rk_sweep_push(run_of, nruns, &cap, rk_sweep_judge(sw, k, &run));
		if (!i || !adj) {
			starts[i / 8] |= (unsigned char)(1u << (i % 8));
			run = (rk_sweep_run){ 0, true, false, cur.t, cur.t };
		}
		run.n++;
		run.all_boundary &= rk_diagnose_on_boundary(sw->res, cur.t);
		run.same = cur.same != 0;
		run.last = cur.t;
		prev = cur;
		i++;
	}
	if (rc < 0)
		return -1;
	if (i)
		rk_sweep_push(run_of, nruns, &cap, rk_sweep_judge(sw, k, &run));
	return 0;
}

/* The patterns of the n rows of one kind (repeat: the doubled ones, else
 * the lost ones), into k, and their runs' spans, by the sweep. */
static int rk_proxy_sweep(const rk_check_result *res, bool repeat, rk_dswept *k, size_t n, rk_error *err)
{
	rk_sweep sw;
	unsigned char *starts = rk_xcalloc(n / 8 + 1, 1), *run_of = NULL;
	size_t nruns = 0, run = 0, i = 0;
	const void *rec;
	size_t len;
	int rc;

	memset(&sw, 0, sizeof sw);
	sw.res = res;
	sw.repeat = repeat;
	sw.err = err;
	sw.rows = rk_spill_new(res->spill_dir, rk_spill_share_bound(), rk_run_rec_cmp, NULL);
	sw.brk = rk_spill_new(res->spill_dir, rk_spill_share_bound(), rk_break_cmp, NULL);
	k->of = rk_xcalloc(n ? n : 1, 1);
	k->n = n;
	rc = rk_sweep_fill(&sw, err);
	if (rc == 0 && (rk_spill_finish(sw.rows, err) < 0 || rk_spill_finish(sw.brk, err) < 0))
		rc = -1;
	if (rc == 0)
		rc = rk_sweep_runs(&sw, k, starts, &run_of, &nruns);
	/* again in time order: each row takes its run's pattern */
	if (rc == 0)
		rc = rk_spill_rewind(sw.rows, err);
	while (rc == 0 && (rc = rk_spill_next(sw.rows, &rec, &len, err)) > 0) {
		rk_run_rec cur;

		memcpy(&cur, rec, sizeof cur);
		if (i && starts[i / 8] & (1u << (i % 8)))
			run++;
		if (cur.rank < n && run < nruns)
			k->of[cur.rank] = run_of[run];
		i++;
		rc = 0;
	}
	rk_log_debug("diagnosis: %zu %s row(s) in %zu run(s) placed by a sweep, %llu run(s) of them spilled", n,
	             repeat ? "doubled" : "lost", nruns, (unsigned long long)rk_spill_runs_written(sw.rows));
	rk_spill_free(sw.rows);
	rk_spill_free(sw.brk);
	free(starts);
	free(run_of);
	return rc < 0 ? -1 : 0;
}

/* Whether an extra finding and a lost row have one key hash (a moved key
 * may pair them; no shared hash, no shared key): both kinds' hashes sorted
 * (external sorts), then walked together.  1, 0, or -1 with err. */
static int rk_proxy_moved_may(const rk_check_result *res, rk_error *err)
{
	rk_spill *sp[2];
	rk_fwalk w;
	const rk_finding *f;
	const void *rec[2];
	size_t len;
	rk_u128 h[2];
	int rc = 0, more[2] = { 0, 0 };

	for (int k = 0; k < 2; k++)
		sp[k] = rk_spill_new(res->spill_dir, rk_spill_share_bound(), rk_diagnose_hash_cmp, NULL);
	rk_fwalk_start(&w, res);
	while (rc == 0 && (f = rk_fwalk_next(&w, NULL)) != NULL)
		if (f->kind == RK_FIND_EXTRA || rk_diagnose_lost(f))
			rc = rk_spill_add(sp[f->kind == RK_FIND_EXTRA], &f->key_hash, sizeof f->key_hash, err);
	if (rk_fwalk_end(&w, rc == 0 ? err : NULL) < 0)
		rc = -1;
	for (int k = 0; k < 2 && rc == 0; k++)
		if (rk_spill_finish(sp[k], err) < 0 || (more[k] = rk_spill_next(sp[k], &rec[k], &len, err)) < 0)
			rc = -1;
	while (rc == 0 && more[0] > 0 && more[1] > 0) {
		int k;

		memcpy(&h[0], rec[0], sizeof h[0]);
		memcpy(&h[1], rec[1], sizeof h[1]);
		if (h[0] == h[1]) {
			rc = 1;
			break;
		}
		k = h[0] < h[1] ? 0 : 1;
		if ((more[k] = rk_spill_next(sp[k], &rec[k], &len, err)) < 0)
			rc = -1;
	}
	for (int k = 0; k < 2; k++)
		rk_spill_free(sp[k]);
	return rc;
}

int rk_diagnose_proxy(const rk_check_result *res, rk_check_result *p, rk_dproxy *px, bool no_commits, rk_error *err)
{
	bool runs = false, fits;
	int moved = 0;
	size_t alone = 0, nextra = 0, ndup = 0, nlost = 0, ndoubled = 0;

	memset(px, 0, sizeof *px);
	*p = *res;
	p->store = NULL;
	p->findings = NULL;
	p->nfindings = p->findings_cap = 0;
	memset(&p->key_pool, 0, sizeof p->key_pool);
	p->lookups = NULL;
	p->nlookups = 0;
	p->span_cache = NULL;
	/* (a change is read from res, by res's index: rk_diagnose_classify_in) */
	p->changes = NULL;
	p->nchanges = 0;
	p->held = rk_xcalloc(res->nheld ? res->nheld : 1, sizeof *p->held);
	if (res->nheld)
		memcpy(p->held, res->held, res->nheld * sizeof *p->held);
	px->dupwin = rk_xcalloc(res->nwindows ? res->nwindows : 1, sizeof *px->dupwin);
	if (rk_proxy_dupwin(res, px->dupwin, &nextra, &ndup, &nlost, &ndoubled, err) < 0)
		return -1;
	/* (a rank and a window in 32 bits each) */
	fits = res->nfindings <= UINT32_MAX && res->nwindows <= UINT32_MAX && !ndup;
	if (fits && nlost && no_commits && nextra && (moved = rk_proxy_moved_may(res, err)) < 0)
		return -1;
	px->lost.alone = fits && nlost && no_commits && !moved;
	px->doubled.alone = fits && ndoubled;
	if (px->lost.alone && rk_proxy_sweep(res, false, &px->lost, nlost, err) < 0)
		return -1;
	if (px->doubled.alone && rk_proxy_sweep(res, true, &px->doubled, ndoubled, err) < 0)
		return -1;
	if (rk_proxy_findings(res, p, px, &runs, &alone, err) < 0)
		return -1;
	rk_log_debug("diagnosis: %zu of %zu findings in memory, %zu changed ones read from the store%s%s", p->nfindings,
	             res->nfindings, alone - px->lost.n - px->doubled.n,
	             px->lost.alone ? ", the lost rows placed by a sweep" : "",
	             px->doubled.alone ? ", the doubled rows placed by a sweep" : "");
	return runs && alone ? rk_proxy_breaks(res, p, px, err) : 0;
}

void rk_diagnose_proxy_free(rk_check_result *p, rk_dproxy *px)
{
	free(p->findings);
	rk_keypool_free(&p->key_pool);
	free(p->lookups);
	free(p->held);
	free(px->dupwin);
	free(px->lost.of);
	free(px->doubled.of);
}
