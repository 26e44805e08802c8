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
 * The lost rows (missing, no target copy) are most of a large gap.  Where
 * no finding is extra (no moved key) or a source_duplicate and the source
 * keeps no commit times (no late commit, no partial transaction), only the
 * runs they make place them: a gap (two or more next to each other), a
 * boundary (one alone on a window's start or a whole hour), else nothing.
 * Then the proxy leaves them out too, and a sweep finds their runs: the
 * lost rows sorted by source time (16 bytes each, an external sort), beside
 * the spans that break a gap sorted by start (the drilldown's held and each
 * finding the target holds a copy of), whose prefix's latest end tells
 * whether one meets the interval between two lost rows.  What the sweep
 * keeps is a byte a lost row, a bit a lost row while it runs and a byte a
 * run (issue 25: a window of millions of lost rows).
 */
#include "check/diagnose.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "io/spill.h"

/* The windows that hold a source_duplicate, in dupwin, and how many
 * findings are extra, source duplicates and lost rows: one pass. */
static int rk_proxy_dupwin(const rk_check_result *res, bool *dupwin, size_t *nextra, size_t *ndup, size_t *nlost,
                           rk_error *err)
{
	rk_fwalk w;
	const rk_finding *f;

	rk_fwalk_start(&w, res);
	while ((f = rk_fwalk_next(&w, NULL)) != NULL) {
		*nextra += f->kind == RK_FIND_EXTRA;
		*nlost += rk_diagnose_lost(f);
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
		*runs |= (f->kind == RK_FIND_DUPLICATED && f->source_copies) ||
		         (f->kind == RK_FIND_MISSING && f->target_copies == 0);
		p->nfindings++;
	}
	return rk_fwalk_end(&w, err);
}

/* The left-out findings' source spans, added to the proxy's held: a
 * changed row breaks a run of lost rows and one of doubled rows alike, a
 * lost row one of doubled rows (the proxy then holds no lost row). */
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

/* A lost row in the sweep's order: its source time, then its place among
 * the lost rows (the findings' order). */
typedef struct rk_lost_rec {
	rk_usec t;
	uint32_t rank;
	uint32_t window;
} rk_lost_rec;

static int rk_lost_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx)
{
	rk_lost_rec x, y;

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

/* The sweep: the lost rows in time order, the spans that break a gap in
 * order of their start, those that start at or before the last lost row
 * read taken (their latest end, reach). */
typedef struct rk_sweep {
	const rk_check_result *res;
	rk_spill *lost, *brk;
	rk_held next; /* the first break not taken, when more */
	bool more, taken;
	rk_usec reach;
	rk_error *err;
} rk_sweep;

/* The lost rows and the breaks, from one pass of the findings. */
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
		if (rk_diagnose_lost(f)) {
			rk_lost_rec r = { f->source_time, rank++, (uint32_t)f->window };

			rc = rk_spill_add(sw->lost, &r, sizeof r, err);
		} else if (f->source_copies && f->target_copies > 0) {
			/* a row the target holds, in some form: it breaks a gap */
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

/* Whether lost rows x and y (x first) lie next to each other: no break
 * meets [x's time, y's time] and no window between them holds a source
 * row (diagnose.c's rk_adjacent, over the breaks in order).  -1: a failed
 * read. */
static int rk_sweep_adjacent(rk_sweep *sw, const rk_lost_rec *x, const rk_lost_rec *y)
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

/* A run of n lost rows from first to last, all on a boundary or not: its
 * pattern (diagnose.c's rk_runs for a gap, every row free). */
static unsigned char rk_sweep_run(rk_dproxy *px, size_t n, bool all_boundary, rk_usec first, rk_usec last)
{
	if (n == 1 && all_boundary)
		return RK_PAT_BOUNDARY;
	if (n < 2)
		return RK_PAT_UNCLASSIFIED;
	rk_dspans_add(&px->gaps, first, last, n);
	return RK_PAT_GAP;
}

/* Appends pattern to a run's patterns (*n of them, room for *cap). */
static void rk_sweep_push(unsigned char **run_of, size_t *n, size_t *cap, unsigned char pattern)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*run_of = rk_xrealloc(*run_of, *cap);
	}
	(*run_of)[(*n)++] = pattern;
}

/* Walks the lost rows in time order: the rows that start a run marked in
 * starts, each run's pattern appended to *run_of (*nruns). */
static int rk_sweep_runs(rk_sweep *sw, rk_dproxy *px, unsigned char *starts, unsigned char **run_of, size_t *nruns)
{
	rk_lost_rec prev = { 0, 0, 0 }, cur;
	size_t k = 0, n = 0, cap = 0;
	bool all_boundary = true;
	rk_usec first = 0;
	const void *rec;
	size_t len;
	int rc;

	if (rk_sweep_next_break(sw) < 0)
		return -1;
	while ((rc = rk_spill_next(sw->lost, &rec, &len, sw->err)) > 0) {
		int adj = 0;

		memcpy(&cur, rec, sizeof cur);
		if (k && (adj = rk_sweep_adjacent(sw, &prev, &cur)) < 0)
			return -1;
		if (k && !adj)
			rk_sweep_push(run_of, nruns, &cap, rk_sweep_run(px, n, all_boundary, first, prev.t));
		if (!k || !adj) {
			starts[k / 8] |= (unsigned char)(1u << (k % 8));
			n = 0;
			all_boundary = true;
			first = cur.t;
		}
		n++;
		all_boundary &= rk_diagnose_on_boundary(sw->res, cur.t);
		prev = cur;
		k++;
	}
	if (rc < 0)
		return -1;
	if (k)
		rk_sweep_push(run_of, nruns, &cap, rk_sweep_run(px, n, all_boundary, first, prev.t));
	return 0;
}

/* The lost rows' patterns (px->lost_of, nlost of them) and the gaps'
 * spans, by the sweep. */
static int rk_proxy_sweep(const rk_check_result *res, rk_dproxy *px, size_t nlost, rk_error *err)
{
	rk_sweep sw;
	unsigned char *starts = rk_xcalloc(nlost / 8 + 1, 1), *run_of = NULL;
	size_t nruns = 0, run = 0, k = 0;
	const void *rec;
	size_t len;
	int rc;

	memset(&sw, 0, sizeof sw);
	sw.res = res;
	sw.err = err;
	sw.lost = rk_spill_new(res->spill_dir, rk_spill_share_bound(), rk_lost_cmp, NULL);
	sw.brk = rk_spill_new(res->spill_dir, rk_spill_share_bound(), rk_break_cmp, NULL);
	px->lost_of = rk_xcalloc(nlost ? nlost : 1, 1);
	px->nlost = nlost;
	rc = rk_sweep_fill(&sw, err);
	if (rc == 0 && (rk_spill_finish(sw.lost, err) < 0 || rk_spill_finish(sw.brk, err) < 0))
		rc = -1;
	if (rc == 0)
		rc = rk_sweep_runs(&sw, px, starts, &run_of, &nruns);
	/* again in time order: each lost row takes its run's pattern */
	if (rc == 0)
		rc = rk_spill_rewind(sw.lost, err);
	while (rc == 0 && (rc = rk_spill_next(sw.lost, &rec, &len, err)) > 0) {
		rk_lost_rec cur;

		memcpy(&cur, rec, sizeof cur);
		if (k && starts[k / 8] & (1u << (k % 8)))
			run++;
		if (cur.rank < nlost && run < nruns)
			px->lost_of[cur.rank] = run_of[run];
		k++;
		rc = 0;
	}
	rk_log_debug("diagnosis: %zu lost row(s) in %zu run(s) placed by a sweep, %llu run(s) of them spilled", nlost,
	             nruns, (unsigned long long)rk_spill_runs_written(sw.lost));
	rk_spill_free(sw.lost);
	rk_spill_free(sw.brk);
	free(starts);
	free(run_of);
	return rc < 0 ? -1 : 0;
}

int rk_diagnose_proxy(const rk_check_result *res, rk_check_result *p, rk_dproxy *px, bool lost_alone, rk_error *err)
{
	bool runs = false;
	size_t alone = 0, nextra = 0, ndup = 0, nlost = 0;

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
	if (rk_proxy_dupwin(res, px->dupwin, &nextra, &ndup, &nlost, err) < 0)
		return -1;
	/* (a rank and a window in 32 bits each) */
	px->lost_alone = lost_alone && nlost && !nextra && !ndup && nlost <= UINT32_MAX && res->nwindows <= UINT32_MAX;
	if (px->lost_alone && rk_proxy_sweep(res, px, nlost, err) < 0)
		return -1;
	if (rk_proxy_findings(res, p, px, &runs, &alone, err) < 0)
		return -1;
	rk_log_debug("diagnosis: %zu of %zu findings in memory, %zu changed ones read from the store%s", p->nfindings,
	             res->nfindings, alone - px->nlost, px->lost_alone ? ", the lost rows placed by a sweep" : "");
	return runs && alone ? rk_proxy_breaks(res, p, px, err) : 0;
}

void rk_diagnose_proxy_free(rk_check_result *p, rk_dproxy *px)
{
	free(p->findings);
	rk_keypool_free(&p->key_pool);
	free(p->lookups);
	free(p->held);
	free(px->dupwin);
	free(px->lost_of);
}
