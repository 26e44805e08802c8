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
 */
#include "check/diagnose.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* The windows that hold a source_duplicate, in dupwin: one pass. */
static int rk_proxy_dupwin(const rk_check_result *res, bool *dupwin, rk_error *err)
{
	rk_fwalk w;
	const rk_finding *f;

	rk_fwalk_start(&w, res);
	while ((f = rk_fwalk_next(&w, NULL)) != NULL)
		if (f->kind == RK_FIND_SOURCE_DUPLICATE)
			dupwin[f->window] = true;
	return rk_fwalk_end(&w, err);
}

/* The proxy's findings, copied with their keys, and their lookups; *runs:
 * whether some finding is a run's candidate, *alone: how many the proxy
 * left out. */
static int rk_proxy_findings(const rk_check_result *res, rk_check_result *p, const bool *dupwin, bool *runs,
                             size_t *alone, rk_error *err)
{
	rk_fwalk w;
	const rk_finding *f;
	size_t gi, li = 0;

	rk_fwalk_start(&w, res);
	while ((f = rk_fwalk_next(&w, &gi)) != NULL) {
		rk_finding *c;

		if (!rk_diagnose_in_proxy(dupwin, f)) {
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

/* The left-out changed findings' source spans, added to the proxy's held:
 * a changed row breaks a run of lost rows and one of doubled rows alike. */
static int rk_proxy_breaks(const rk_check_result *res, rk_check_result *p, const bool *dupwin, rk_error *err)
{
	rk_fwalk w;
	const rk_finding *f;
	size_t cap = p->nheld;

	rk_fwalk_start(&w, res);
	while ((f = rk_fwalk_next(&w, NULL)) != NULL) {
		rk_fspan sp;

		if (rk_diagnose_in_proxy(dupwin, f) || !f->source_copies)
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

int rk_diagnose_proxy(const rk_check_result *res, rk_check_result *p, bool **dupwin, rk_error *err)
{
	bool runs = false;
	size_t alone = 0;

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
	*dupwin = rk_xcalloc(res->nwindows ? res->nwindows : 1, sizeof **dupwin);
	if (rk_proxy_dupwin(res, *dupwin, err) < 0 || rk_proxy_findings(res, p, *dupwin, &runs, &alone, err) < 0)
		return -1;
	rk_log_debug("diagnosis: %zu of %zu findings in memory, %zu changed ones read from the store", p->nfindings,
	             res->nfindings, alone);
	return runs && alone ? rk_proxy_breaks(res, p, *dupwin, err) : 0;
}

void rk_diagnose_proxy_free(rk_check_result *p, bool *dupwin)
{
	free(p->findings);
	rk_keypool_free(&p->key_pool);
	free(p->lookups);
	free(p->held);
	free(dupwin);
}
