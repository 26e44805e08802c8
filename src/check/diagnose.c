/*
 * diagnose.c - the findings of a check grouped into patterns, each with its
 * likely cause (docs/reference.md), and the warnings a verdict cannot carry.
 *
 * A finding goes to the first pattern that fits, in rk_pattern's order.
 * gap and repeat need to know that no source row lies between two damaged
 * ones unless it is damaged the same way: the findings say where the other
 * damaged rows are (each with the span of its source copies), the windows
 * between them how many source rows they hold, and the drilldown noted
 * where the damaged windows' other source rows lie (rk_check_result.held):
 * spans that may be wider than their rows, never narrower.  Where a span
 * meets two damaged rows' interval, they are taken as apart: the diagnosis
 * then names less, never something false.
 */
#include "check/diagnose.h"
#include "core/tz.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/history.h"
#include "io/spill.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/timeutil.h"

/* Keys named as examples in one evidence. */
#define RK_DIAG_EXAMPLES 3
#define RK_DIAG_HOUR (3600 * RK_USEC_PER_SEC)
/* Not yet fitted to a pattern. */
#define RK_PAT_NONE RK_PAT_COUNT

static const struct {
	const char *name;
	const char *cause;
	const char *next_step;
} rk_pat_text[RK_PAT_COUNT] = {
	[RK_PAT_LATE_COMMIT] = { "late_commit",
	                         "the rows' transactions committed after the load had read past their time",
	                         "replace these windows (reckon repair with the rerun list); then re-read behind the "
	                         "watermark by more than the lag (a lookback), or rerun recent intervals: reckon lateness "
	                         "measures the margin" },
	[RK_PAT_BOUNDARY] = { "boundary", "an interval load with an inclusive end (BETWEEN, <=) read the boundary rows twice",
	                      "replace these windows (reckon repair with the rerun list); then read half-open intervals: "
	                      "time >= start AND time < end" },
	[RK_PAT_MOVED] = { "moved",
	                   "a stale copy: the row was updated into a later window and the load does not delete by key",
	                   "replace these windows (reckon repair deletes stale copies by key); then make the load delete "
	                   "the keys it writes before inserting them (a keyed write)" },
	[RK_PAT_APPENDED_UPDATE] = { "appended_update",
	                             "an update loaded by append: the target holds the row's new version where it belongs "
	                             "and its old version too, and the load does not delete by key",
	                             "replace these windows (reckon repair deletes the old copies by key); then make the "
	                             "load delete the keys it writes before inserting them (a keyed write or a merge)" },
	[RK_PAT_DELETED_AT_SOURCE] = { "deleted_at_source",
	                               "a hard delete at the source: the source holds the key nowhere, and an incremental "
	                               "load never sees a delete",
	                               "replace these windows (reckon repair removes the rows); then carry deletes to the "
	                               "target: soft deletes (a deleted_at column the load reads), or change data capture" },
	[RK_PAT_UNBUMPED_UPDATE] = { "unbumped_update",
	                             "the rows were updated without moving their time column: no incremental load can see "
	                             "that",
	                             "replace these windows (reckon repair with the rerun list); then make every update set "
	                             "the time column (a trigger), or reload these tables in full" },
	[RK_PAT_GAP] = { "gap",
	                 "a run's rows never arrived: its watermark was saved before its write (crash), or a run was "
	                 "skipped",
	                 "reload these windows (reckon repair with the rerun list); then commit the watermark after the "
	                 "write, or with it in one transaction" },
	[RK_PAT_REPEAT] = { "repeat", "a run was applied twice: an append retried after its write",
	                    "replace these windows (reckon repair with the rerun list); then make the write idempotent: a "
	                    "keyed write or an interval replace instead of an append" },
	[RK_PAT_PARTIAL_XACT] = { "partial_transaction",
	                          "the load read these rows' transactions (rows they wrote just before these, in time, "
	                          "arrived) but did not write these rows: rows it rejected or filtered out, or rows deleted "
	                          "from the target since",
	                          "look for these keys in the load's rejected rows or error log and in the target's "
	                          "deletes; then replace these windows (reckon repair with the rerun list)" },
	[RK_PAT_SOURCE_DUPLICATE] = { "source_duplicate", "the key is not unique at the source",
	                              "make the key unique at the source, or check with a key that is (--key)" },
	[RK_PAT_NULL_TIME] = { "null_time", "rows with a NULL time: no time-based load reads them",
	                       "give these rows a time at the source, or load them by another path" },
	[RK_PAT_UNCLASSIFIED] = { "unclassified", "no known pattern explains these findings",
	                          "look at these keys in findings.csv, then replace the windows (reckon repair with the "
	                          "rerun list)" },
};

const char *rk_pattern_name(rk_pattern p)
{
	return p < RK_PAT_COUNT ? rk_pat_text[p].name : "?";
}

/* The findings of kind k (counted: a caller may not have kept kind_count). */
static size_t rk_kind_count(const rk_check_result *res, rk_find_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < res->nfindings; i++)
		n += res->findings[i].kind == k;
	return n;
}

/* ------------------------------------------------------------------------
 * classification
 * ---------------------------------------------------------------------- */

/* qsort takes no context; a job checks tables on several threads */
static _Thread_local int rk_key_cmp_n;

static int rk_key_cmp(char *const *x, char *const *y)
{
	for (int i = 0; i < rk_key_cmp_n; i++) {
		int c;
		if (!x[i] || !y[i]) {
			if (x[i] != y[i])
				return x[i] ? 1 : -1;
			continue;
		}
		if ((c = strcmp(x[i], y[i])) != 0)
			return c;
	}
	return 0;
}

/*
 * A finding's index, as the classification's arrays hold it: four bytes,
 * not a pointer's or a size_t's eight (issue 25: a window whose every row
 * differs holds millions of findings, and each array here is one entry a
 * finding).  The classification takes at most RK_DIAG_MAX_FINDINGS.
 */
typedef uint32_t rk_fidx;
#define RK_DIAG_MAX_FINDINGS ((size_t)UINT32_MAX)

/* the findings the indexes being sorted point into */
static _Thread_local const rk_finding *rk_sort_findings;

typedef struct rk_diag {
	rk_check_result *res;       /* the findings classified: all's, or a proxy's (rk_diagnose_proxy) */
	unsigned char *of;          /* [res->nfindings]: each finding's rk_pattern */
	const bool *arrived;        /* [res->nfindings] or NULL: no late commit, its transaction's rows arrived */
	const rk_check_result *all; /* every finding, their lookups and changes */
	const rk_dproxy *px;        /* how res, a proxy, stands for all (rk_diagnose_in_proxy), or NULL: res is all */
	bool failed;                /* a read of all's store failed: err */
	rk_error err;
} rk_diag;

/* All's findings in order, each with its pattern: a proxy's findings (at
 * index pi of res) as it classified them, the lost rows it left out as its
 * sweep placed them, the rest as they classify alone (rk_diagnose_alone). */
typedef struct rk_dwalk {
	rk_fwalk w;
	const rk_diag *g;
	size_t pi; /* the proxy's next finding */
	size_t li; /* the next lost row left out */
	size_t di; /* the next doubled row left out */
} rk_dwalk;

static void rk_dwalk_start(rk_dwalk *d, const rk_diag *g)
{
	rk_fwalk_start(&d->w, g->all);
	d->g = g;
	d->pi = 0;
	d->li = 0;
	d->di = 0;
}

/* The next finding, its index in all (*gi), in res (*pi, SIZE_MAX when
 * the proxy does not hold it) and its pattern; NULL at the end. */
static const rk_finding *rk_dwalk_next(rk_dwalk *d, size_t *gi, size_t *pi, rk_pattern *pat)
{
	const rk_finding *f = rk_fwalk_next(&d->w, gi);
	const rk_dproxy *px = d->g->px;

	if (!f)
		return NULL;
	*pi = SIZE_MAX;
	if (rk_diagnose_in_proxy(px, f)) {
		*pi = d->pi++;
		*pat = (rk_pattern)d->g->of[*pi];
	} else if (px->lost.alone && rk_diagnose_lost(f)) {
		*pat = d->li < px->lost.n ? (rk_pattern)px->lost.of[d->li] : RK_PAT_UNCLASSIFIED;
		d->li++;
	} else if (px->doubled.alone && rk_diagnose_doubled(f)) {
		*pat = d->di < px->doubled.n ? (rk_pattern)px->doubled.of[d->di] : RK_PAT_UNCLASSIFIED;
		d->di++;
	} else {
		*pat = rk_diagnose_alone(f);
	}
	return f;
}

/* Ends a pass: a failed read is kept in g. */
static void rk_dwalk_end(rk_dwalk *d, rk_diag *g)
{
	if (rk_fwalk_end(&d->w, &g->err) < 0)
		g->failed = true;
}

/* Orders finding indexes by (key, window). */
static int rk_idx_key_cmp(const void *a, const void *b)
{
	const rk_finding *x = &rk_sort_findings[*(const rk_fidx *)a], *y = &rk_sort_findings[*(const rk_fidx *)b];
	int c = rk_key_cmp(x->key, y->key);

	if (c)
		return c;
	return x->window < y->window ? -1 : x->window > y->window;
}

/* Orders finding indexes by (source time, index). */
static int rk_idx_time_cmp(const void *a, const void *b)
{
	rk_fidx i = *(const rk_fidx *)a, j = *(const rk_fidx *)b;
	const rk_finding *x = &rk_sort_findings[i], *y = &rk_sort_findings[j];

	if (x->source_time != y->source_time)
		return x->source_time < y->source_time ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * Spans of source time that break a run of damaged rows (rows the target
 * holds otherwise than the run's do), sorted by start, with the latest end
 * among each prefix: whether one meets an interval is a binary search.
 */
typedef struct rk_breaks {
	rk_held *v;
	rk_usec *reach; /* reach[k]: the latest end among v[0..k] */
	size_t n;
} rk_breaks;

static int rk_held_cmp(const void *a, const void *b)
{
	const rk_held *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The drilldown's spans and those of the findings that pass says break:
 * each finding's source copies, [source_min, source_max]. */
static void rk_breaks_make(rk_breaks *b, const rk_check_result *r, bool (*breaks)(const rk_finding *))
{
	b->v = rk_xcalloc(r->nheld + r->nfindings + 1, sizeof *b->v);
	b->n = 0;
	for (size_t i = 0; i < r->nheld; i++)
		b->v[b->n++] = r->held[i];
	for (size_t i = 0; i < r->nfindings; i++) {
		const rk_finding *f = &r->findings[i];
		rk_fspan sp;

		if (!f->source_copies || !breaks(f))
			continue;
		sp = rk_finding_span(r, f);
		if (sp.source_min != RK_USEC_NINF)
			b->v[b->n++] = (rk_held){ sp.source_min, sp.source_max };
	}
	if (b->n)
		qsort(b->v, b->n, sizeof *b->v, rk_held_cmp);
	b->reach = rk_xcalloc(b->n + 1, sizeof *b->reach);
	for (size_t k = 0; k < b->n; k++)
		b->reach[k] = k && b->reach[k - 1] > b->v[k].hi ? b->reach[k - 1] : b->v[k].hi;
}

static void rk_breaks_free(rk_breaks *b)
{
	free(b->v);
	free(b->reach);
}

/* True when a span of b meets [lo, hi]. */
static bool rk_breaks_meet(const rk_breaks *b, rk_usec lo, rk_usec hi)
{
	size_t a = 0, z = b->n;

	/* the spans that start at or before hi: v[0..a) */
	while (a < z) {
		size_t mid = a + (z - a) / 2;
		if (b->v[mid].lo <= hi)
			a = mid + 1;
		else
			z = mid;
	}
	return a > 0 && b->reach[a - 1] >= lo;
}

/*
 * Whether the source rows x and y (x first) lie next to each other: no
 * source row between them, ties included, breaks the run (brk), and the
 * windows between them hold no source row.
 */
static bool rk_adjacent(const rk_diag *g, const rk_finding *x, const rk_finding *y, const rk_breaks *brk)
{
	const rk_check_result *r = g->res;

	if (rk_breaks_meet(brk, x->source_time, y->source_time))
		return false;
	for (size_t w = x->window + 1; w < y->window; w++)
		if (r->side[0].rows[w])
			return false;
	return true;
}

/* Where an extra key's source copy lies now, as its lookup found it
 * (RK_USEC_NINF: nowhere, or it was not looked up). */
static rk_usec rk_elsewhere(const rk_check_result *r, size_t fi)
{
	const rk_lookup *lk = rk_finding_lookup(r, fi);

	return lk ? lk->source_elsewhere : RK_USEC_NINF;
}

void rk_dspans_add(rk_dspans *s, rk_usec first, rk_usec last, size_t rows)
{
	if (s->n < RK_DIAG_SPANS)
		s->v[s->n] = (rk_dspan){ first, last, rows };
	s->n++;
}

bool rk_diagnose_on_boundary(const rk_check_result *r, rk_usec t)
{
	if (t % RK_DIAG_HOUR == 0)
		return true;
	if (r->calendar)
		return t >= r->from && t < r->bounds[r->nwindows] && r->bounds[rk_check_window_of(r, t)] == t;
	return (t - r->from) % r->width == 0;
}

rk_pattern rk_diagnose_run_pattern(rk_pattern pat, size_t free_rows, bool all_boundary, bool alike)
{
	rk_pattern to = pat == RK_PAT_REPEAT && free_rows && all_boundary ? RK_PAT_BOUNDARY : pat;

	/* one lost row alone on a boundary: an exclusive start skipped it */
	if (pat == RK_PAT_GAP && free_rows == 1 && all_boundary)
		to = RK_PAT_BOUNDARY;
	/* one doubled row, its copies alike: a retried insert */
	if (free_rows >= 2 || (to == RK_PAT_BOUNDARY && free_rows) || (to == RK_PAT_REPEAT && free_rows == 1 && alike))
		return to;
	return RK_PAT_NONE;
}

/*
 * Runs of rows in time order (cand, n of them), each row next to the one
 * before: gap's lost rows or repeat's doubled ones.  A run's rows that no
 * pattern holds yet become `pat` when there are at least two (repeat: when
 * they are not all on a boundary; those become boundary, however few).
 */
static void rk_runs(rk_diag *g, rk_fidx *cand, size_t n, const rk_breaks *brk, rk_pattern pat, rk_dspans *spans,
                    rk_dspans *bspans)
{
	const rk_check_result *r = g->res;
	size_t start = 0;

	rk_sort_findings = r->findings;
	qsort(cand, n, sizeof *cand, rk_idx_time_cmp);
	for (size_t k = 1; k <= n; k++) {
		size_t free_rows = 0;
		bool all_boundary = true, alike = false;
		rk_usec first = RK_USEC_PINF, last = RK_USEC_NINF;
		rk_pattern to;

		if (k < n && rk_adjacent(g, &r->findings[cand[k - 1]], &r->findings[cand[k]], brk))
			continue;
		for (size_t j = start; j < k; j++) {
			const rk_finding *f = &r->findings[cand[j]];
			if (g->of[cand[j]] != RK_PAT_NONE)
				continue;
			free_rows++;
			all_boundary &= rk_diagnose_on_boundary(r, f->source_time);
			alike = f->same_copies;
			if (f->source_time < first)
				first = f->source_time;
			if (f->source_time > last)
				last = f->source_time;
		}
		to = rk_diagnose_run_pattern(pat, free_rows, all_boundary, alike);
		if (to != RK_PAT_NONE) {
			for (size_t j = start; j < k; j++)
				if (g->of[cand[j]] == RK_PAT_NONE)
					g->of[cand[j]] = to;
			rk_dspans_add(to == RK_PAT_BOUNDARY ? bspans : spans, first, last, free_rows);
		}
		start = k;
	}
}

static void rk_fit_moved(rk_diag *g)
{
	rk_check_result *r = g->res;
	size_t nextra = rk_kind_count(r, RK_FIND_EXTRA), nmissing = rk_kind_count(r, RK_FIND_MISSING);
	rk_fidx *ix;
	size_t n = 0;

	/* an extra copy and a missing row of one key: none without both kinds */
	if (!nextra || !nmissing)
		return;
	ix = rk_xcalloc(nextra + nmissing, sizeof *ix);
	for (size_t i = 0; i < r->nfindings; i++) {
		rk_find_kind k = r->findings[i].kind;
		if (g->of[i] == RK_PAT_NONE && (k == RK_FIND_EXTRA || k == RK_FIND_MISSING))
			ix[n++] = (rk_fidx)i;
	}
	rk_sort_findings = r->findings;
	qsort(ix, n, sizeof *ix, rk_idx_key_cmp);
	/* per key, in window order: an extra copy, then a missing row later */
	for (size_t a = 0; a < n; a++) {
		const rk_finding *x = &r->findings[ix[a]];

		if (x->kind != RK_FIND_EXTRA || g->of[ix[a]] != RK_PAT_NONE)
			continue;
		for (size_t b = a + 1; b < n && !rk_key_cmp(x->key, r->findings[ix[b]].key); b++) {
			const rk_finding *y = &r->findings[ix[b]];
			if (y->kind == RK_FIND_MISSING && y->window > x->window && g->of[ix[b]] == RK_PAT_NONE) {
				g->of[ix[a]] = RK_PAT_MOVED;
				g->of[ix[b]] = RK_PAT_MOVED;
				break;
			}
		}
	}
	free(ix);
}

/* "4.2s", "12m 05s", "3h 20m", "273d 1h" */
static void rk_lag_text(rk_buf *b, double s)
{
	long long v = (long long)s;

	if (s < 0)
		rk_buf_printf(b, "%.3fs", s);
	else if (s < 60)
		rk_buf_printf(b, "%.3fs", s);
	else if (v < 3600)
		rk_buf_printf(b, "%lldm %02llds", v / 60, v % 60);
	else if (v < 86400)
		rk_buf_printf(b, "%lldh %02lldm", v / 3600, v % 3600 / 60);
	else
		rk_buf_printf(b, "%lldd %lldh", v / 86400, v % 86400 / 3600);
}

static void rk_spans_text(rk_buf *b, const rk_dspans *s)
{
	char t1[RK_TIME_STRLEN], t2[RK_TIME_STRLEN];

	for (size_t i = 0; i < s->n && i < RK_DIAG_SPANS; i++)
		rk_buf_printf(b, "%s%s to %s (%zu row%s)", i ? "; " : "", rk_time_format(s->v[i].first, t1),
		              rk_time_format(s->v[i].last, t2), s->v[i].rows, s->v[i].rows == 1 ? "" : "s");
	if (s->n > RK_DIAG_SPANS)
		rk_buf_printf(b, "; and %zu more span%s", s->n - RK_DIAG_SPANS, s->n - RK_DIAG_SPANS == 1 ? "" : "s");
}

/* The first keys of pattern p, with what each shows. */
static void rk_examples(rk_buf *b, rk_diag *g, rk_pattern p, const rk_usec *commit, size_t total)
{
	const rk_check_result *r = g->res, *all = g->all;
	char t1[RK_TIME_STRLEN], t2[RK_TIME_STRLEN];
	size_t shown = 0, gi, i;
	rk_dwalk dw;
	const rk_finding *f;
	rk_pattern fp;

	rk_dwalk_start(&dw, g);
	while (shown < RK_DIAG_EXAMPLES && (f = rk_dwalk_next(&dw, &gi, &i, &fp)) != NULL) {
		if (fp != p || (p == RK_PAT_MOVED && f->kind != RK_FIND_EXTRA))
			continue;
		rk_buf_puts(b, shown++ ? "; " : "e.g. ");
		rk_finding_key_text(b, r, f);
		switch (p) {
		case RK_PAT_LATE_COMMIT:
		case RK_PAT_PARTIAL_XACT:
			rk_buf_printf(b, " (time %s, committed %s: ", rk_time_format(f->source_time, t1),
			              rk_time_format(commit[i], t2));
			rk_lag_text(b, (double)(commit[i] - f->source_time) / RK_USEC_PER_SEC);
			rk_buf_puts(b, " later)");
			break;
		case RK_PAT_BOUNDARY:
			if (f->kind == RK_FIND_MISSING)
				rk_buf_printf(b, " at %s, not in the target", rk_time_format(f->source_time, t1));
			else
				rk_buf_printf(b, " at %s, %u copies in the target", rk_time_format(f->source_time, t1),
				              f->target_copies);
			break;
		case RK_PAT_REPEAT:
			rk_buf_printf(b, " at %s, %u alike copies in the target", rk_time_format(f->source_time, t1),
			              f->target_copies);
			break;
		case RK_PAT_MOVED: {
			/* the missing half of this key, for its source time */
			rk_usec now_at = rk_elsewhere(all, gi);
			/* (moved's findings are missing and extra ones: the proxy's) */
			for (size_t j = 0; j < r->nfindings; j++)
				if (g->of[j] == RK_PAT_MOVED && r->findings[j].kind == RK_FIND_MISSING &&
				    !rk_key_cmp(r->findings[j].key, f->key))
					now_at = r->findings[j].source_time;
			rk_buf_printf(b, ": the target's copy at %s, the source's row now at %s",
			              rk_time_format(f->target_time, t1), rk_time_format(now_at, t2));
			break;
		}
		case RK_PAT_APPENDED_UPDATE:
			rk_buf_printf(b, ": the target's old copy at %s, the source's row and the target's new copy at %s",
			              rk_time_format(f->target_time, t1), rk_time_format(rk_elsewhere(all, gi), t2));
			break;
		case RK_PAT_DELETED_AT_SOURCE:
			rk_buf_printf(b, " at %s in the target, nowhere in the source", rk_time_format(f->target_time, t1));
			break;
		case RK_PAT_UNBUMPED_UPDATE: {
			size_t nch, at = rk_finding_changes(all, gi, &nch);

			rk_buf_printf(b, " at %s on both sides", rk_time_format(f->source_time, t1));
			/* what changed, as changes.csv has it */
			for (size_t k = at; k < at + nch; k++) {
				rk_buf_printf(b, "%s %s", k > at ? ";" : ",", all->column_names[all->changes[k].column]);
				if (all->values_omitted)
					continue;
				rk_buf_puts(b, " ");
				rk_change_value_text(b, &all->changes[k], 0);
				rk_buf_puts(b, " -> ");
				rk_change_value_text(b, &all->changes[k], 1);
			}
			break;
		}
		case RK_PAT_SOURCE_DUPLICATE:
			rk_buf_printf(b, " (%u source rows)", f->source_copies);
			break;
		case RK_PAT_UNCLASSIFIED:
			rk_buf_printf(b, " (%s)", rk_find_kind_name(f->kind));
			break;
		default:
			break;
		}
	}
	rk_dwalk_end(&dw, g);
	if (total > shown && p != RK_PAT_MOVED)
		rk_buf_printf(b, "; and %zu more", total - shown);
}

/* The versions of one touch, "version 3 (WRITE, T)", up to RK_DIAG_SPANS
 * of the touches that pass has, then "and N more". */
static void rk_touches_text(rk_buf *b, const rk_history *h, const rk_range_history *rh,
                            bool (*pass)(const rk_touch *))
{
	size_t n = 0, shown = 0;

	for (size_t i = 0; i < rh->ntouch; i++)
		n += pass(&rh->touch[i]);
	for (size_t i = 0; i < rh->ntouch; i++) {
		if (!pass(&rh->touch[i]))
			continue;
		if (shown == RK_DIAG_SPANS) {
			rk_buf_printf(b, " and %zu more", n - shown);
			break;
		}
		if (shown)
			rk_buf_puts(b, shown + 1 == n ? " and " : ", ");
		rk_touch_name(b, h, &rh->touch[i]);
		shown++;
	}
}

static bool rk_touch_adds(const rk_touch *t)
{
	return t->added > 0;
}

static bool rk_touch_adds_unknown(const rk_touch *t)
{
	return t->added_unknown > 0;
}

/* What the log says of one window, in a few words. */
static void rk_window_history_text(rk_buf *b, const rk_history *h, const rk_range_history *rh)
{
	char t1[RK_TIME_STRLEN];
	const rk_touch *last;
	rk_hist_state st = rk_history_state(rh, &last);

	rk_buf_printf(b, "%s ", rk_time_format(rh->range.from, t1));
	switch (st) {
	case RK_HIST_UNWRITTEN:
		rk_buf_puts(b, "written by no commit");
		break;
	case RK_HIST_UNKNOWN:
		rk_buf_puts(b, "written by no commit whose files have statistics of the time column; ");
		rk_touches_text(b, h, rh, rk_touch_adds_unknown);
		rk_buf_puts(b, " added files without them, which may hold its rows");
		break;
	case RK_HIST_REMOVED:
		rk_buf_puts(b, "written by ");
		rk_touches_text(b, h, rh, rk_touch_adds);
		rk_buf_puts(b, ", then its files removed by ");
		rk_touch_name(b, h, last);
		rk_buf_puts(b, ", which wrote none back");
		break;
	case RK_HIST_REWRITTEN:
		rk_buf_puts(b, "rewritten by ");
		rk_touch_name(b, h, last);
		rk_buf_printf(b, ", which removed %u of its files and added %u", last->removed, last->added);
		break;
	case RK_HIST_WRITTEN:
		rk_buf_puts(b, "written by ");
		rk_touches_text(b, h, rh, rk_touch_adds);
		break;
	}
}

/*
 * The log of the cause's windows, on each side that keeps one (a Delta
 * table's): a sentence for the evidence.  *all gets the state every one of
 * the target's windows is in, or -1 when they differ or it has no log.
 */
static void rk_cause_history(const rk_check_result *r, const rk_cause *c, rk_buf *ev, int *all)
{
	*all = -1;
	for (int s = 1; s >= 0; s--) {
		const rk_history *h = r->side[s].history;
		size_t shown = 0, n = 0;

		for (size_t i = 0; h && i < c->nwindows; i++) {
			const rk_range_history *rh = rk_history_window(r, s, c->windows[i]);
			int st;

			if (!rh)
				continue;
			st = (int)rk_history_state(rh, NULL);
			if (s == 1)
				*all = n == 0 || *all == st ? st : -2;
			n++;
			if (shown == RK_DIAG_SPANS)
				continue;
			if (shown++ == 0)
				rk_buf_printf(ev, "; the %s's log (versions %s%" PRId64 " to %" PRId64 "): ", s ? "target" : "source",
				              h->base >= 0 ? "after a checkpoint, " : "", h->first, h->version);
			else
				rk_buf_puts(ev, "; ");
			rk_window_history_text(ev, h, rh);
		}
		if (n > shown)
			rk_buf_printf(ev, "; and %zu more window%s", n - shown, n - shown == 1 ? "" : "s");
	}
	if (*all < 0)
		*all = -1;
}

/* A gap's cause and next step, as the target's log tells them (every
 * window alike); NULL: the general ones. */
static const char *rk_gap_next(int state)
{
	switch (state) {
	case RK_HIST_REMOVED:
		return "reload these windows (reckon repair with the rerun list); then look up the removing commit in the "
		       "target's log (its operation parameters: DESCRIBE HISTORY) and the job that ran it: a delete or "
		       "replace whose condition reached these rows";
	case RK_HIST_REWRITTEN:
		return "reload these windows (reckon repair with the rerun list); then make the job that rewrote them "
		       "read every row of what it replaces (its replaceWhere against what it reads)";
	default:
		return NULL;
	}
}

static const char *rk_gap_cause(int state)
{
	switch (state) {
	case RK_HIST_UNWRITTEN:
		return "a run's rows never arrived: no commit of the target wrote these windows (its watermark was saved "
		       "before its write, a crash, or a run was skipped)";
	case RK_HIST_REMOVED:
		return "the rows arrived, and a later commit removed them without writing them back (a delete, or a "
		       "replace that read less than it removed)";
	case RK_HIST_REWRITTEN:
		return "a later commit rewrote these windows without these rows (an overwrite or replace that read less "
		       "than the windows held)";
	default:
		return NULL;
	}
}

/* The cause and next step of c (its pattern, findings, how many of them
 * missing; hist_all: the state of its windows in the target's log). */
static void rk_cause_words(rk_cause *c, size_t nmissing, int hist_all)
{
	rk_pattern p = c->pattern;

	if (p == RK_PAT_BOUNDARY && nmissing) {
		/* a missing row on the boundary: the other end of the mistake */
		rk_buf cs = RK_BUF_INIT;

		rk_buf_printf(&cs, "%s%san interval load with an exclusive start (time > start) skipped the rows exactly "
		                   "on the boundary",
		              nmissing < c->findings ? rk_pat_text[p].cause : "",
		              nmissing < c->findings ? "; " : "");
		c->cause = rk_xstrdup(rk_buf_cstr(&cs));
		rk_buf_free(&cs);
	} else if (p == RK_PAT_REPEAT && c->findings == 1) {
		c->cause = rk_xstrdup("an insert was retried after its write had committed (a lost acknowledgement)");
	} else if (p == RK_PAT_GAP && rk_gap_cause(hist_all)) {
		c->cause = rk_xstrdup(rk_gap_cause(hist_all));
	} else {
		c->cause = rk_xstrdup(rk_pat_text[p].cause);
	}
	c->next_step = rk_xstrdup(p == RK_PAT_GAP && rk_gap_next(hist_all) ? rk_gap_next(hist_all) : rk_pat_text[p].next_step);
}

/* The opening of cause c's evidence, in ev: what its findings have in
 * common (examples and history follow it, rk_add_cause). */
static void rk_evidence_opening(rk_buf *ev, rk_diag *g, const rk_cause *c, size_t nmissing, rk_usec settle,
                                const rk_usec *commit, const rk_dspans *spans)
{
	char sd[RK_TIME_STRLEN];

	switch (c->pattern) {
	case RK_PAT_LATE_COMMIT:
		rk_buf_printf(ev, "%zu missing row%s committed more than the settle margin (%s) after %s time, up to ",
		              c->findings, c->findings == 1 ? "" : "s", rk_duration_format(settle, sd),
		              c->findings == 1 ? "its" : "their");
		rk_lag_text(ev, c->max_lag);
		rk_buf_puts(ev, " later: ");
		break;
	case RK_PAT_GAP:
		rk_buf_printf(ev, "%zu source rows, none of them in the target, and the target holds no source row "
		                  "between them: ",
		              c->findings);
		rk_spans_text(ev, spans);
		break;
	case RK_PAT_REPEAT:
		if (c->findings == 1) {
			rk_buf_puts(ev, "1 source row, alone, that the target holds more than once, every copy alike: ");
			rk_examples(ev, g, c->pattern, commit, c->findings);
			break;
		}
		rk_buf_printf(ev, "%zu source rows the target holds more than once, and every source row between them "
		                  "too: ",
		              c->findings);
		rk_spans_text(ev, spans);
		break;
	case RK_PAT_BOUNDARY:
		if (nmissing < c->findings)
			rk_buf_printf(ev, "%zu duplicated row%s", c->findings - nmissing, c->findings - nmissing == 1 ? "" : "s");
		if (nmissing)
			rk_buf_printf(ev, "%s%zu missing row%s", nmissing < c->findings ? " and " : "", nmissing,
			              nmissing == 1 ? "" : "s");
		rk_buf_puts(ev, ", each alone and exactly on a window boundary or a whole hour: ");
		break;
	case RK_PAT_APPENDED_UPDATE:
		rk_buf_printf(ev, "%zu key%s the target holds twice: an old copy in a window the source no longer has it "
		                  "in, and the source's row where it belongs (looked up by key, in the checked range or "
		                  "not): ",
		              c->keys, c->keys == 1 ? "" : "s");
		break;
	case RK_PAT_DELETED_AT_SOURCE:
		rk_buf_printf(ev, "%zu extra key%s that the source holds nowhere (looked up by key outside the range "
		                  "too): ",
		              c->keys, c->keys == 1 ? "" : "s");
		break;
	case RK_PAT_MOVED:
		rk_buf_printf(ev, "%zu key%s with a target copy in one window that the source no longer has there, and "
		                  "a missing row in a later window (or a source row past the checked range, looked up by "
		                  "key, that the target does not hold): ",
		              c->keys, c->keys == 1 ? "" : "s");
		break;
	case RK_PAT_UNBUMPED_UPDATE:
		rk_buf_printf(ev, "%zu changed row%s whose time is the same on both sides: ", c->findings,
		              c->findings == 1 ? "" : "s");
		break;
	case RK_PAT_PARTIAL_XACT:
		rk_buf_printf(ev, "%zu missing row%s committed up to ", c->findings, c->findings == 1 ? "" : "s");
		rk_lag_text(ev, c->max_lag);
		rk_buf_printf(ev, " after %s time, but %s transaction%s also wrote rows just before %s in time that "
		                  "arrived: the load read %s after the commit, so no late commit: ",
		              c->findings == 1 ? "its" : "their", c->findings == 1 ? "its" : "their", c->findings == 1 ? "" : "s",
		              c->findings == 1 ? "it" : "them", c->findings == 1 ? "that transaction" : "those transactions");
		break;
	case RK_PAT_SOURCE_DUPLICATE:
		rk_buf_printf(ev, "%zu key%s held more than once by the source: ", c->keys, c->keys == 1 ? "" : "s");
		break;
	case RK_PAT_UNCLASSIFIED:
		rk_buf_printf(ev, "%zu finding%s no pattern explains: ", c->findings, c->findings == 1 ? "" : "s");
		break;
	default:
		break;
	}
}

int rk_diagnose_hash_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx)
{
	rk_u128 x, y;

	(void)alen;
	(void)blen;
	(void)ctx;
	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	return x < y ? -1 : x > y;
}

/* How many distinct keys the key hashes added to sp hold (sorted, then
 * counted; a spill holds them past its bound, so that a pattern of
 * millions of findings costs no array of them). */
static size_t rk_distinct(rk_spill *sp, rk_diag *g)
{
	const void *rec;
	size_t len, n = 0;
	rk_u128 last = 0, h;
	int rc;

	if (rk_spill_finish(sp, &g->err) < 0) {
		g->failed = true;
		return 0;
	}
	while ((rc = rk_spill_next(sp, &rec, &len, &g->err)) > 0) {
		memcpy(&h, rec, sizeof h);
		n += n == 0 || h != last;
		last = h;
	}
	if (rc < 0)
		g->failed = true;
	return n;
}

/* Appends the cause of pattern p, when some finding has it. */
static void rk_add_cause(rk_diag *g, rk_pattern p, rk_usec settle, const rk_usec *commit, const rk_dspans *spans,
                         const char *late_why, const size_t *count)
{
	rk_check_result *r = g->res;
	rk_diagnosis *d = r->diagnosis;
	rk_cause c;
	rk_buf ev = RK_BUF_INIT;
	size_t nmissing = 0, nturned = 0, gi, i;
	int hist_all = -1;
	rk_spill *keys;
	rk_dwalk dw;
	const rk_finding *f;
	rk_pattern fp;

	memset(&c, 0, sizeof c);
	c.pattern = p;
	if (p == RK_PAT_NULL_TIME) {
		c.keys = (size_t)(r->side[0].null_time + r->side[1].null_time);
		if (!c.keys)
			return;
		rk_buf_printf(&ev, "the source has %llu and the target %llu rows whose time is NULL",
		              (unsigned long long)r->side[0].null_time, (unsigned long long)r->side[1].null_time);
	} else {
		if (!count[p])
			return;
		/* the pattern's findings, in order; distinct keys by their hashes */
		keys = rk_spill_new(g->all->spill_dir, rk_spill_share_bound(), rk_diagnose_hash_cmp, NULL);
		rk_dwalk_start(&dw, g);
		while ((f = rk_dwalk_next(&dw, &gi, &i, &fp)) != NULL) {
			rk_u128 h = f->key_hash;

			if (fp != p)
				continue;
			c.findings++;
			nmissing += f->kind == RK_FIND_MISSING;
			if (!g->failed && rk_spill_add(keys, &h, sizeof h, &g->err) < 0)
				g->failed = true;
			if (!c.nwindows || c.windows[c.nwindows - 1] != f->window) {
				c.windows = rk_xrealloc(c.windows, (c.nwindows + 1) * sizeof *c.windows);
				c.windows[c.nwindows++] = f->window;
			}
			if (i != SIZE_MAX && (p == RK_PAT_LATE_COMMIT || (g->arrived && g->arrived[i]))) {
				double lag = (double)(commit[i] - f->source_time) / RK_USEC_PER_SEC;
				if (lag > c.max_lag)
					c.max_lag = lag;
				nturned += p != RK_PAT_LATE_COMMIT;
			}
		}
		rk_dwalk_end(&dw, g);
		c.keys = g->failed ? 0 : rk_distinct(keys, g);
		rk_spill_free(keys);
	}
	rk_evidence_opening(&ev, g, &c, nmissing, settle, commit, spans);
	if (p != RK_PAT_NULL_TIME && p != RK_PAT_GAP && p != RK_PAT_REPEAT)
		rk_examples(&ev, g, p, commit, c.findings);
	if (nmissing && late_why && p != RK_PAT_LATE_COMMIT)
		rk_buf_printf(&ev, " (late commits could not be examined: %s)", late_why);
	if (nturned && p != RK_PAT_PARTIAL_XACT) {
		rk_buf_printf(&ev, " (no late commit%s, though committed up to ", nturned == 1 ? "" : "s");
		rk_lag_text(&ev, c.max_lag);
		rk_buf_printf(&ev, " after %s time: %s transaction%s also wrote rows just before %s in time that "
		                   "arrived)",
		              nturned == 1 ? "its" : "their", nturned == 1 ? "its" : "their", nturned == 1 ? "" : "s",
		              nturned == 1 ? "it" : "them");
	}
	if (p != RK_PAT_NULL_TIME)
		rk_cause_history(r, &c, &ev, &hist_all);
	rk_cause_words(&c, nmissing, hist_all);
	c.evidence = rk_xstrdup(rk_buf_cstr(&ev));
	rk_buf_free(&ev);
	d->causes = rk_xrealloc(d->causes, (d->ncauses + 1) * sizeof *d->causes);
	d->causes[d->ncauses++] = c;
}

/* The causes, in rk_pattern order: each pattern's findings counted over
 * all of them (one pass), then a cause for each that has some. */
static void rk_add_causes(rk_diag *g, rk_usec settle, const rk_usec *commit, const rk_dspans *gaps,
                          const rk_dspans *repeats, const char *late_why)
{
	size_t count[RK_PAT_COUNT] = { 0 }, gi, pi;
	rk_dwalk dw;
	rk_pattern fp;

	rk_dwalk_start(&dw, g);
	while (rk_dwalk_next(&dw, &gi, &pi, &fp) != NULL)
		count[fp]++;
	rk_dwalk_end(&dw, g);
	for (int p = 0; p < RK_PAT_COUNT && !g->failed; p++)
		rk_add_cause(g, (rk_pattern)p, settle, commit, p == RK_PAT_GAP ? gaps : repeats, late_why, count);
}

/* What breaks a repeat: a source row the target holds at most once. */
static bool rk_breaks_repeat(const rk_finding *f)
{
	return f->kind == RK_FIND_MISSING || f->kind == RK_FIND_CHANGED ||
	       (f->kind == RK_FIND_SOURCE_DUPLICATE && f->target_copies <= f->source_copies);
}

/*
 * source_duplicate: every finding of a key the source holds twice in a
 * window, with that key's other findings of the window not placed yet.
 * The findings sorted by (key, window), so a window with many of them
 * costs a sort, not a scan per duplicate.
 */
static void rk_fit_source_dup(rk_diag *g)
{
	rk_check_result *r = g->res;
	rk_fidx *ix;

	/* the keys of a window that hold a source_duplicate: none without one */
	if (!rk_kind_count(r, RK_FIND_SOURCE_DUPLICATE))
		return;
	ix = rk_xcalloc(r->nfindings ? r->nfindings : 1, sizeof *ix);
	for (size_t i = 0; i < r->nfindings; i++)
		ix[i] = (rk_fidx)i;
	rk_sort_findings = r->findings;
	qsort(ix, r->nfindings, sizeof *ix, rk_idx_key_cmp);
	for (size_t a = 0, b; a < r->nfindings; a = b) {
		const rk_finding *x = &r->findings[ix[a]];
		bool dup = false;

		for (b = a; b < r->nfindings && r->findings[ix[b]].window == x->window &&
		            !rk_key_cmp(r->findings[ix[b]].key, x->key);
		     b++)
			dup |= r->findings[ix[b]].kind == RK_FIND_SOURCE_DUPLICATE;
		for (size_t c = a; dup && c < b; c++)
			if (g->of[ix[c]] == RK_PAT_NONE)
				g->of[ix[c]] = RK_PAT_SOURCE_DUPLICATE;
	}
	free(ix);
}

/* What breaks a gap: a key the target holds, in some form. */
static bool rk_breaks_gap(const rk_finding *f)
{
	return f->target_copies > 0;
}

/* A run's candidates: a doubled row (repeat, boundary), a lost one (gap). */
bool rk_diagnose_doubled(const rk_finding *f)
{
	return f->kind == RK_FIND_DUPLICATED && f->source_copies;
}

bool rk_diagnose_breaks(const rk_finding *f, bool repeat)
{
	return repeat ? rk_breaks_repeat(f) : rk_breaks_gap(f);
}

bool rk_diagnose_lost(const rk_finding *f)
{
	return f->kind == RK_FIND_MISSING && f->target_copies == 0;
}

void rk_diagnose_classify(rk_check_result *res, rk_usec settle, const rk_usec *commit, const bool *known,
                          const bool *arrived, const char *late_why)
{
	rk_error err;

	(void)rk_diagnose_classify_in(res, res, NULL, settle, commit, known, arrived, late_why, &err);
}

int rk_diagnose_classify_in(rk_check_result *res, const rk_check_result *all, const rk_dproxy *px, rk_usec settle,
                            const rk_usec *commit, const bool *known, const bool *arrived, const char *late_why,
                            rk_error *err)
{
	rk_diagnosis *d = rk_diagnosis_of(res);
	size_t n = res->nfindings, ncand = 0, ndup = 0, ngap = 0;
	rk_fidx *cand;
	rk_breaks brk;
	rk_dspans gaps = { .n = 0 }, repeats = { .n = 0 }, bounds = { .n = 0 };
	rk_diag g;

	rk_diagnosis_causes_free(d);
	free(d->of);
	d->of = NULL;
	if (n > RK_DIAG_MAX_FINDINGS) {
		rk_log_warn("the likely causes are not told: %zu findings, more than the %zu the diagnosis takes", n,
		            RK_DIAG_MAX_FINDINGS);
		return 0;
	}
	d->of = rk_xcalloc(n ? n : 1, sizeof *d->of);
	d->late_examined = commit != NULL;
	snprintf(d->late_why, sizeof d->late_why, "%s", commit || !late_why ? "" : late_why);
	late_why = commit ? NULL : d->late_why;
	rk_key_cmp_n = (int)res->nkey;
	for (size_t i = 0; i < n; i++) {
		const rk_finding *f = &res->findings[i];

		d->of[i] = RK_PAT_NONE;
		ndup += rk_diagnose_doubled(f);
		ngap += rk_diagnose_lost(f);
	}
	/* the candidates of a run, of one pattern at a time */
	cand = rk_xcalloc(ndup > ngap ? ndup : (ngap ? ngap : 1), sizeof *cand);
	memset(&g, 0, sizeof g);
	g.res = res;
	g.of = d->of;
	g.arrived = commit ? arrived : NULL;
	g.all = all;
	g.px = px;

	/* late_commit: committed after its time plus the settle margin */
	for (size_t i = 0; commit && i < n; i++) {
		const rk_finding *f = &res->findings[i];
		if (f->kind == RK_FIND_MISSING && known[i] && f->source_time != RK_USEC_NINF &&
		    commit[i] - f->source_time > settle && !(g.arrived && g.arrived[i]))
			d->of[i] = RK_PAT_LATE_COMMIT;
	}
	/* boundary and repeat: runs of doubled rows; rows the target holds at
	 * most once break them */
	for (size_t i = 0; i < n; i++) {
		const rk_finding *f = &res->findings[i];
		if (rk_diagnose_doubled(f))
			cand[ncand++] = (rk_fidx)i;
	}
	/* (the spans that break runs: one a finding, made only for candidates) */
	if (ncand) {
		rk_breaks_make(&brk, res, rk_breaks_repeat);
		rk_runs(&g, cand, ncand, &brk, RK_PAT_REPEAT, &repeats, &bounds);
		rk_breaks_free(&brk);
	}
	/* a repeat run is judged before moved and unbumped_update take theirs:
	 * they never hold a duplicated row, so the order of the table holds */
	rk_fit_moved(&g);
	/* an extra key looked up on both sides: its new version where it
	 * belongs (appended_update), or nowhere at the source */
	for (size_t i = 0; i < n; i++) {
		const rk_finding *f = &res->findings[i];
		const rk_lookup *lk;

		if (d->of[i] != RK_PAT_NONE || f->kind != RK_FIND_EXTRA || (lk = rk_finding_lookup(res, i)) == NULL)
			continue;
		if (lk->source_elsewhere == RK_USEC_NINF)
			d->of[i] = RK_PAT_DELETED_AT_SOURCE;
		else if (lk->target_has_it)
			d->of[i] = RK_PAT_APPENDED_UPDATE;
		else if (lk->source_elsewhere >= rk_check_window_end(res, f->window))
			/* its new version lies later, past the checked range, and
			 * the target does not hold it: a stale copy as moved's */
			d->of[i] = RK_PAT_MOVED;
	}
	for (size_t i = 0; i < n; i++) {
		const rk_finding *f = &res->findings[i];
		if (d->of[i] == RK_PAT_NONE && f->kind == RK_FIND_CHANGED && f->source_time != RK_USEC_NINF &&
		    f->source_time == f->target_time)
			d->of[i] = RK_PAT_UNBUMPED_UPDATE;
	}
	/* gap: runs of lost rows (no target copy); rows the target holds break them */
	ncand = 0;
	for (size_t i = 0; i < n; i++) {
		const rk_finding *f = &res->findings[i];
		if (rk_diagnose_lost(f))
			cand[ncand++] = (rk_fidx)i;
	}
	if (ncand) {
		rk_breaks_make(&brk, res, rk_breaks_gap);
		rk_runs(&g, cand, ncand, &brk, RK_PAT_GAP, &gaps, &bounds);
		rk_breaks_free(&brk);
	}
	/* source_duplicate: the key the source holds twice, and what that did
	 * to the same key's copies in the target of that window */
	rk_fit_source_dup(&g);
	/* a missing row that committed late, but whose transaction's rows
	 * just before it in time arrived: the load read that transaction */
	for (size_t i = 0; g.arrived && i < n; i++)
		if (d->of[i] == RK_PAT_NONE && g.arrived[i])
			d->of[i] = RK_PAT_PARTIAL_XACT;
	for (size_t i = 0; i < n; i++)
		if (d->of[i] == RK_PAT_NONE)
			d->of[i] = RK_PAT_UNCLASSIFIED;
	/* the rows left out of a proxy make no run in it: the sweep's */
	gaps = px && px->lost.alone ? px->lost.spans : gaps;
	repeats = px && px->doubled.alone ? px->doubled.spans : repeats;
	rk_add_causes(&g, settle, commit, &gaps, &repeats, late_why);
	free(cand);
	if (!g.failed)
		return 0;
	*err = g.err;
	return -1;
}

rk_pattern rk_diagnose_alone(const rk_finding *f)
{
	return f->kind == RK_FIND_CHANGED && f->source_time != RK_USEC_NINF && f->source_time == f->target_time
	               ? RK_PAT_UNBUMPED_UPDATE
	               : RK_PAT_UNCLASSIFIED;
}

bool rk_diagnose_in_proxy(const rk_dproxy *px, const rk_finding *f)
{
	if (!px)
		return true;
	if ((px->lost.alone && rk_diagnose_lost(f)) || (px->doubled.alone && rk_diagnose_doubled(f)))
		return false;
	return f->kind != RK_FIND_CHANGED || px->dupwin[f->window];
}
