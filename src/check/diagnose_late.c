/*
 * diagnose_late.c - what the source says of the missing rows' commits
 * (diagnose.h, rk_diagnose_run): each missing row's commit time and
 * transaction, asked a batch of keys at a time, and for a row that
 * committed late whether the rows its transaction wrote just before it in
 * time arrived (a partial transaction rather than a late commit).  Then
 * the classification (diagnose.c) with what they told.
 */
#include "check/diagnose.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/log.h"
#include "core/timeutil.h"
#include "core/tz.h"

/* Missing keys whose commit times one statement asks for. */
#define RK_DIAG_COMMIT_BATCH 10000

/* A missing row of a known transaction, for the caps of rk_diagnose_xacts. */
typedef struct rk_xrow {
	uint32_t xid;
	rk_usec t;       /* its source time */
	uint64_t copies; /* its source copies */
} rk_xrow;

static int rk_xrow_cmp(const void *a, const void *b)
{
	const rk_xrow *x = a, *y = b;

	if (x->xid != y->xid)
		return x->xid < y->xid ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* The first of v[0, n) (sorted) after (xid, t) if after, else not before it. */
static size_t rk_xrow_bound(const rk_xrow *v, size_t n, uint32_t xid, rk_usec t, bool after)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		bool before = v[mid].xid < xid || (v[mid].xid == xid && (after ? v[mid].t <= t : v[mid].t < t));

		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* cap[c] of each of the m candidates (transaction qx[c], span [lo[c],
 * hi[c]]): one plus the source copies of the missing rows of known
 * transactions that transaction wrote in the span.  Sorted by (transaction,
 * time), copies summed along: two binary searches each, where looking at
 * every finding took n * n steps for a gap of n rows of one transaction. */
static void rk_xact_caps(const rk_check_result *res, const uint32_t *xid, const bool *known, const uint32_t *qx,
                         const rk_usec *lo, const rk_usec *hi, size_t m, uint64_t *cap)
{
	size_t n = res->nfindings, nv = 0;
	rk_xrow *v = rk_xcalloc(n ? n : 1, sizeof *v);
	uint64_t *sum = rk_xcalloc(n + 1, sizeof *sum); /* sum[k]: the copies of v[0, k) */

	for (size_t j = 0; j < n; j++) {
		const rk_finding *o = &res->findings[j];

		if (o->kind == RK_FIND_MISSING && known[j] && o->source_time != RK_USEC_NINF)
			v[nv++] = (rk_xrow){ xid[j], o->source_time, o->source_copies };
	}
	if (nv)
		qsort(v, nv, sizeof *v, rk_xrow_cmp);
	for (size_t k = 0; k < nv; k++)
		sum[k + 1] = sum[k] + v[k].copies;
	for (size_t c = 0; c < m; c++) {
		size_t a = rk_xrow_bound(v, nv, qx[c], lo[c], false);
		size_t b = rk_xrow_bound(v, nv, qx[c], hi[c], true);

		cap[c] = 1 + (b > a ? sum[b] - sum[a] : 0);
	}
	free(v);
	free(sum);
}

/* A late-commit candidate: finding i is missing, and its commit time came
 * more than the settle margin after its time. */
static bool rk_late_cand(const rk_check_result *res, rk_usec settle, const rk_usec *commit, const bool *known,
                         size_t i)
{
	const rk_finding *f = &res->findings[i];

	return f->kind == RK_FIND_MISSING && known[i] && f->source_time != RK_USEC_NINF &&
	       commit[i] - f->source_time > settle;
}

/*
 * For each late-commit candidate (a missing row whose commit time came
 * more than the settle margin after its time): whether its transaction
 * wrote rows at or before its time, in its window or the one before,
 * beyond the missing rows of that transaction there (arrived[i]).  Each
 * is asked up to that count plus one, so that the scan stops there.  Those
 * rows arrived: the load that read them read past that transaction's
 * commit, and so read this row's time after it too (a load reads in time
 * order).  Rows of the transaction later in time prove nothing: a later
 * run may have read them.  Earlier ones would prove as much; the two
 * windows bound the scan of a transaction that wrote nothing else (a real
 * late commit).  0 or -1 with err; 1 (why) when the source cannot tell.
 */
static int rk_diagnose_xacts(rk_check_result *res, rk_usec settle, rk_reader *source, size_t time_index,
                             const rk_usec *commit, const uint32_t *xid, const bool *known, bool *arrived,
                             char *why, size_t whylen, rk_error *err)
{
	size_t n = res->nfindings, m = 0, ncand = 0;
	size_t *cand;
	uint32_t *qx;
	rk_usec *lo, *hi;
	uint64_t *cap, *rows;
	int rc = 0;

	/* (room for the candidates, not for every finding: issue 25) */
	for (size_t i = 0; i < n; i++)
		ncand += rk_late_cand(res, settle, commit, known, i);
	cand = rk_xcalloc(ncand ? ncand : 1, sizeof *cand);
	qx = rk_xcalloc(ncand ? ncand : 1, sizeof *qx);
	lo = rk_xcalloc(ncand ? ncand : 1, sizeof *lo);
	hi = rk_xcalloc(ncand ? ncand : 1, sizeof *hi);
	cap = rk_xcalloc(ncand ? ncand : 1, sizeof *cap);
	rows = rk_xcalloc(ncand ? ncand : 1, sizeof *rows);
	for (size_t i = 0; i < n; i++) {
		const rk_finding *f = &res->findings[i];

		if (!rk_late_cand(res, settle, commit, known, i))
			continue;
		cand[m] = i;
		qx[m] = xid[i];
		/* its window and the one before: a bound on the scan only */
		lo[m] = rk_check_window_start(res, f->window ? f->window - 1 : 0);
		hi[m] = f->source_copies ? rk_finding_span(res, f).source_max : f->source_time;
		m++;
	}
	/* the span's missing rows of that transaction, this one too */
	rk_xact_caps(res, xid, known, qx, lo, hi, m, cap);
	for (size_t at = 0; at < m && rc == 0; at += RK_DIAG_COMMIT_BATCH) {
		size_t k = m - at < RK_DIAG_COMMIT_BATCH ? m - at : RK_DIAG_COMMIT_BATCH;
		rk_xact_query q = { qx + at, lo + at, hi + at, cap + at, k, time_index };
		rk_error lerr;

		rk_error_clear(&lerr);
		rc = rk_reader_xact_rows(source, &q, rows + at, &lerr);
		if (rc > 0)
			snprintf(why, whylen, "%s", lerr.msg);
		else if (rc < 0)
			*err = lerr;
	}
	for (size_t c = 0; rc == 0 && c < m; c++)
		arrived[cand[c]] = rows[c] >= cap[c];
	free(cand);
	free(qx);
	free(lo);
	free(hi);
	free(cap);
	free(rows);
	return rc;
}

/* rk_diagnose_run on res, all's findings or a proxy of them (diagnose.h,
 * rk_diagnose_classify_in); cannot: why the source tells no commit times,
 * when that is known already (none is asked for). */
static int rk_diagnose_run_on(rk_check_result *res, const rk_check_result *all, const rk_dproxy *px, rk_usec settle,
                              rk_reader *source, const size_t *key_index, size_t nkey, size_t time_index,
                              const char *cannot, rk_error *err)
{
	/* commit and the rest: by finding, but read only at missing ones (one
	 * entry without them); made once the source has told a batch's commit
	 * times (issue 25: 14 bytes a finding, for nothing where the source
	 * cannot tell them) */
	size_t nmissing = 0, nf, next = 0, batch;
	size_t *idx;
	rk_usec *commit = NULL;
	uint32_t *xid = NULL;
	bool *known = NULL, *arrived = NULL;
	const char **values;
	char why[sizeof res->diagnosis->late_why] = "";
	char xwhy[sizeof res->diagnosis->late_why] = "";
	int rc = 0, xrc = 1;

	for (size_t i = 0; i < res->nfindings; i++)
		nmissing += res->findings[i].kind == RK_FIND_MISSING;
	if (cannot) {
		/* as the first batch would have been told */
		snprintf(why, sizeof why, "%s", cannot);
		rc = 1;
	}
	nf = nmissing ? res->nfindings : 1;
	batch = nmissing < RK_DIAG_COMMIT_BATCH ? nmissing : RK_DIAG_COMMIT_BATCH;
	idx = rk_xcalloc(batch ? batch : 1, sizeof *idx);
	values = rk_xcalloc(batch && nkey ? batch * nkey : 1, sizeof *values);
	/* the missing findings a batch at a time, in their order */
	while (rc == 0) {
		size_t m = 0;
		rk_usec *c, *lo, *hi;
		uint32_t *x;
		bool *k;
		rk_error lerr;

		for (; next < res->nfindings && m < batch; next++)
			if (res->findings[next].kind == RK_FIND_MISSING)
				idx[m++] = next;
		if (!m)
			break;
		c = rk_xcalloc(m, sizeof *c);
		lo = rk_xcalloc(m, sizeof *lo);
		hi = rk_xcalloc(m, sizeof *hi);
		x = rk_xcalloc(m, sizeof *x);
		k = rk_xcalloc(m, sizeof *k);
		for (size_t j = 0; j < m; j++) {
			const rk_finding *f = &res->findings[idx[j]];
			rk_fspan sp = rk_finding_span(res, f);

			for (size_t c2 = 0; c2 < nkey; c2++)
				values[j * nkey + c2] = f->key[c2];
			/* its source copies in its window: an index on the time
			 * column finds them when none serves the key, and a key
			 * held elsewhere too does not lend this row its commit */
			lo[j] = sp.source_min != RK_USEC_NINF ? sp.source_min : rk_check_window_start(res, f->window);
			hi[j] = sp.source_min != RK_USEC_NINF ? sp.source_max : rk_check_window_end(res, f->window) - 1;
			/* a zoneless column holds wall-clock times: the span that
			 * holds them (a superset) */
			if (res->side[0].zoned)
				rk_tz_wall_range(res->time_zone, lo[j], hi[j], &lo[j], &hi[j]);
		}
		rk_error_clear(&lerr);
		{
			rk_key_query q = { key_index, nkey, values, m, time_index, lo, hi };
			rc = rk_reader_commit_times(source, &q, c, x, k, &lerr);
		}
		if (rc == 0) {
			if (!commit) {
				commit = rk_xcalloc(nf, sizeof *commit);
				xid = rk_xcalloc(nf, sizeof *xid);
				known = rk_xcalloc(nf, sizeof *known);
				arrived = rk_xcalloc(nf, sizeof *arrived);
			}
			for (size_t j = 0; j < m; j++) {
				commit[idx[j]] = c[j];
				xid[idx[j]] = x[j];
				known[idx[j]] = k[j];
			}
		} else if (rc > 0) {
			snprintf(why, sizeof why, "%s", lerr.msg);
		} else {
			*err = lerr;
		}
		free(c);
		free(x);
		free(lo);
		free(hi);
		free(k);
	}
	/* no missing finding: none was late, and that was examined */
	if (rc == 0 && !commit) {
		commit = rk_xcalloc(1, sizeof *commit);
		xid = rk_xcalloc(1, sizeof *xid);
		known = rk_xcalloc(1, sizeof *known);
		arrived = rk_xcalloc(1, sizeof *arrived);
	}
	if (rc == 0 && nmissing) {
		xrc = rk_diagnose_xacts(res, settle, source, time_index, commit, xid, known, arrived, xwhy, sizeof xwhy, err);
		if (xrc < 0)
			rc = -1;
		else if (xrc > 0)
			rk_log_info("late commits not checked against their transactions' other rows: %s", xwhy);
	}
	if (rc >= 0 && rk_diagnose_classify_in(res, all, px, settle, rc == 0 ? commit : NULL, rc == 0 ? known : NULL,
	                                       rc == 0 && xrc == 0 ? arrived : NULL, why, err) < 0)
		rc = -1;
	free(values);
	free(idx);
	free(commit);
	free(xid);
	free(known);
	free(arrived);
	return rc < 0 ? -1 : 0;
}

int rk_diagnose_run(rk_check_result *res, rk_usec settle, rk_reader *source, const size_t *key_index, size_t nkey,
                    size_t time_index, rk_error *err)
{
	rk_check_result p;
	rk_dproxy px;
	rk_key_query none = { key_index, nkey, NULL, 0, time_index, NULL, NULL };
	rk_error cannot;
	int rc, crc;

	if (!res->store)
		return rk_diagnose_run_on(res, res, NULL, settle, source, key_index, nkey, time_index, NULL, err);
	/* a source that keeps no commit times has no late commit: its lost
	 * rows can be placed by their runs alone (diagnose_store.c) */
	rk_error_clear(&cannot);
	crc = rk_reader_commit_times(source, &none, NULL, NULL, NULL, &cannot);
	if (crc < 0) {
		*err = cannot;
		return -1;
	}
	rc = rk_diagnose_proxy(res, &p, &px, crc > 0, err);
	if (rc == 0)
		rc = rk_diagnose_run_on(&p, res, &px, settle, source, key_index, nkey, time_index,
		                        px.lost.alone ? cannot.msg : NULL, err);
	/* (the diagnosis made on the proxy, when res had none) */
	res->diagnosis = p.diagnosis;
	rk_diagnose_proxy_free(&p, &px);
	return rc;
}
