/*
 * test_diagnose.c - the classification of findings into patterns, on check
 * results built by hand: the order in which a finding is fitted, what makes
 * two damaged rows neighbours (and what keeps them apart: the spans where
 * the drilldown saw rows the target holds, the findings the target holds
 * in some form, windows between), and, on random damage, that every finding
 * lands in exactly one pattern.  No server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/diagnose.h"
#include "check/history.h"

#define MIN (60 * RK_USEC_PER_SEC)
#define HOUR (60 * MIN)
#define T0 INT64_C(1772409600000000) /* 2026-03-02T00:00:00Z */

/* A result of nwin closed 1h windows from T0 with rows[w] source rows each. */
static rk_check_result *result(size_t nwin, const uint64_t *rows)
{
	rk_check_result *r = rk_xcalloc(1, sizeof *r);

	r->nwindows = r->nclosed = nwin;
	r->from = T0;
	r->width = HOUR;
	r->bounds = rk_xcalloc(nwin + 1, sizeof *r->bounds);
	for (size_t w = 0; w <= nwin; w++)
		r->bounds[w] = T0 + (rk_usec)w * HOUR;
	r->nkey = 1;
	r->key_names = rk_xcalloc(1, sizeof *r->key_names);
	r->key_names[0] = rk_xstrdup("id");
	for (int s = 0; s < 2; s++)
		r->side[s].rows = rk_xcalloc(nwin, sizeof(uint64_t));
	for (size_t w = 0; w < nwin; w++)
		r->side[0].rows[w] = rows[w];
	return r;
}

/* Adds a finding of key id at source time ts (target time tt). */
static rk_finding *add(rk_check_result *r, rk_find_kind kind, int id, rk_usec ts, rk_usec tt, uint32_t s, uint32_t t)
{
	char k[32];
	rk_finding *f;

	r->findings = rk_xrealloc(r->findings, (r->nfindings + 1) * sizeof *r->findings);
	f = &r->findings[r->nfindings++];
	memset(f, 0, sizeof *f);
	f->window = (size_t)(((s ? ts : tt) - T0) / HOUR);
	f->kind = kind;
	snprintf(k, sizeof k, "%d", id);
	{
		const char *kv[1] = { k };

		f->key = rk_keypool_key(&r->key_pool, kv, NULL, 1);
	}
	/* (a key's hash, as the drilldown gives it: the diagnosis counts
	 * distinct keys by it) */
	f->key_hash = (rk_u128)id + 1;
	f->source_copies = s;
	f->target_copies = t;
	f->source_time = s ? ts : RK_USEC_NINF;
	f->target_time = t ? tt : RK_USEC_NINF;
	return f;
}

/* Its source copies' earliest time set to t (their latest stays). */
static void set_source_min(rk_check_result *r, rk_finding *f, rk_usec t)
{
	rk_fspan sp = rk_finding_span(r, f);

	sp.source_min = t;
	rk_finding_set_span(r, f, &sp);
}

/* Notes that the drilldown saw source rows the target holds in [lo, hi]. */
static void held(rk_check_result *r, rk_usec lo, rk_usec hi)
{
	r->held = rk_xrealloc(r->held, (r->nheld + 1) * sizeof *r->held);
	r->held[r->nheld].lo = lo;
	r->held[r->nheld++].hi = hi;
}

static int finding_cmp(const void *a, const void *b)
{
	const rk_finding *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->key[0], y->key[0]);
}

/* The extra key id looked up: its source copy now at `elsewhere`
 * (RK_USEC_NINF: none), the target holding that copy or not.  A lookup
 * names its finding by index, as keys.c makes them once the findings are
 * sorted: they are sorted here first (causes_of's sort leaves them so). */
static void set_looked_up(rk_check_result *r, int id, rk_usec elsewhere, bool target_has_it)
{
	char k[32];
	rk_lookup *lk = NULL;

	snprintf(k, sizeof k, "%d", id);
	qsort(r->findings, r->nfindings, sizeof *r->findings, finding_cmp);
	for (size_t i = 0; i < r->nfindings && !lk; i++)
		if (r->findings[i].kind == RK_FIND_EXTRA && strcmp(r->findings[i].key[0], k) == 0)
			lk = rk_finding_lookup_add(r, i);
	assert_non_null(lk);
	lk->source_elsewhere = elsewhere;
	lk->target_has_it = target_has_it;
}

/* "pattern:keys:w1,w2 ..." of the causes, after sorting the findings as the
 * drilldown leaves them. */
static char *causes_of(rk_check_result *r, const rk_usec *commit, const bool *known, const bool *arrived)
{
	static char out[1024];
	size_t n = 0;

	if (r->nfindings)
		qsort(r->findings, r->nfindings, sizeof *r->findings, finding_cmp);
	rk_diagnose_classify(r, 10 * MIN, commit, known, arrived, commit ? NULL : "track_commit_timestamp is off");
	out[0] = '\0';
	for (size_t i = 0; i < r->diagnosis->ncauses; i++) {
		const rk_cause *c = &r->diagnosis->causes[i];

		n += (size_t)snprintf(out + n, sizeof out - n, "%s%s:%zu:", i ? " " : "", rk_pattern_name(c->pattern),
		                      c->keys);
		for (size_t w = 0; w < c->nwindows; w++)
			n += (size_t)snprintf(out + n, sizeof out - n, "%s%zu", w ? "," : "", c->windows[w]);
	}
	return out;
}

static char *causes(rk_check_result *r, const rk_usec *commit, const bool *known)
{
	return causes_of(r, commit, known, NULL);
}

static void test_gap_needs_no_held_row_between(void **state)
{
	uint64_t rows[3] = { 6, 6, 6 };
	rk_check_result *r = result(3, rows);

	(void)state;
	/* window 1 lost whole */
	for (int i = 0; i < 6; i++)
		add(r, RK_FIND_MISSING, 10 + i, T0 + HOUR + i * 10 * MIN, 0, 1, 0);
	assert_string_equal(causes(r, NULL, NULL), "gap:6:1");
	rk_check_result_free(r);

	/* two lost rows of a window whose other rows the drilldown placed no
	 * closer than somewhere in the window (a slice that matched): apart */
	r = result(3, rows);
	add(r, RK_FIND_MISSING, 1, T0 + HOUR + 10 * MIN, 0, 1, 0);
	add(r, RK_FIND_MISSING, 2, T0 + HOUR + 20 * MIN, 0, 1, 0);
	held(r, T0 + HOUR, T0 + 2 * HOUR - 1);
	assert_string_equal(causes(r, NULL, NULL), "unclassified:2:1");
	rk_check_result_free(r);

	/* ... placed before and after them: neighbours */
	r = result(3, rows);
	add(r, RK_FIND_MISSING, 1, T0 + HOUR + 10 * MIN, 0, 1, 0);
	add(r, RK_FIND_MISSING, 2, T0 + HOUR + 20 * MIN, 0, 1, 0);
	held(r, T0 + HOUR + 30 * MIN, T0 + 2 * HOUR - 1);
	held(r, T0 + HOUR, T0 + HOUR + 10 * MIN - 1);
	assert_string_equal(causes(r, NULL, NULL), "gap:2:1");
	/* a held row at the second one's very time breaks the span */
	held(r, T0 + HOUR + 20 * MIN, T0 + HOUR + 20 * MIN);
	assert_string_equal(causes(r, NULL, NULL), "unclassified:2:1");
	rk_check_result_free(r);

	/* a span that holds both ends of the run, inside it breaks it too */
	r = result(3, rows);
	add(r, RK_FIND_MISSING, 1, T0 + HOUR + 10 * MIN, 0, 1, 0);
	add(r, RK_FIND_MISSING, 2, T0 + HOUR + 20 * MIN, 0, 1, 0);
	held(r, T0 + HOUR + 12 * MIN, T0 + HOUR + 13 * MIN);
	assert_string_equal(causes(r, NULL, NULL), "unclassified:2:1");
	rk_check_result_free(r);

	/* across a boundary: the end of window 0 and the start of window 1 */
	r = result(3, rows);
	add(r, RK_FIND_MISSING, 1, T0 + 50 * MIN, 0, 1, 0);
	add(r, RK_FIND_MISSING, 2, T0 + HOUR, 0, 1, 0);
	held(r, T0, T0 + 40 * MIN);
	held(r, T0 + HOUR + 10 * MIN, T0 + 2 * HOUR - 1);
	assert_string_equal(causes(r, NULL, NULL), "gap:2:0,1");
	/* a changed row (held by the target) between them breaks it */
	add(r, RK_FIND_CHANGED, 3, T0 + 55 * MIN, T0 + 55 * MIN, 1, 1);
	/* (the one on the boundary, alone now, an exclusive start's loss) */
	assert_string_equal(causes(r, NULL, NULL), "boundary:1:1 unbumped_update:1:0 unclassified:1:0");
	rk_check_result_free(r);

	/* across a window between them that holds source rows: apart; one
	 * that holds none: neighbours */
	rows[1] = 3;
	r = result(3, rows);
	add(r, RK_FIND_MISSING, 1, T0 + 59 * MIN, 0, 1, 0);
	add(r, RK_FIND_MISSING, 2, T0 + 2 * HOUR + MIN, 0, 1, 0);
	held(r, T0, T0 + 58 * MIN);
	held(r, T0 + 2 * HOUR + MIN + 1, T0 + 3 * HOUR - 1);
	assert_string_equal(causes(r, NULL, NULL), "unclassified:2:0,2");
	r->side[0].rows[1] = 0;
	assert_string_equal(causes(r, NULL, NULL), "gap:2:0,2");
	rk_check_result_free(r);
}

/* A key the source holds twice and the target once: its copies break a
 * gap wherever they lie, not only at the copy the finding names. */
static void test_gap_broken_by_a_copy_held(void **state)
{
	uint64_t rows[1] = { 5 };
	rk_check_result *r = result(1, rows);
	rk_finding *f;

	(void)state;
	add(r, RK_FIND_MISSING, 1, T0 + 10 * MIN, 0, 1, 0);
	add(r, RK_FIND_MISSING, 2, T0 + 30 * MIN, 0, 1, 0);
	f = add(r, RK_FIND_MISSING, 3, T0 + 50 * MIN, T0 + 50 * MIN, 2, 1);
	set_source_min(r, f, T0 + 20 * MIN);
	assert_string_equal(causes(r, NULL, NULL), "unclassified:3:0");
	set_source_min(r, &r->findings[2], T0 + 40 * MIN);
	assert_string_equal(causes(r, NULL, NULL), "gap:2:0 unclassified:1:0");
	rk_check_result_free(r);
}

static void test_late_commit_comes_first(void **state)
{
	uint64_t rows[2] = { 3, 6 };
	rk_check_result *r = result(2, rows);
	rk_usec commit[3];
	bool known[3] = { true, true, false };

	(void)state;
	for (int i = 0; i < 3; i++)
		add(r, RK_FIND_MISSING, i, T0 + i * 10 * MIN, 0, 1, 0);
	/* sorted by key already (window 0, missing, "0" < "1" < "2") */
	commit[0] = T0 + 11 * MIN;           /* 11 min after its time: late */
	commit[1] = T0 + 10 * MIN + 5 * MIN; /* 5 min: within the margin */
	commit[2] = 0;                       /* unknown */
	assert_string_equal(causes(r, commit, known), "late_commit:1:0 gap:2:0");
	assert_true(r->diagnosis->late_examined);
	assert_true(r->diagnosis->causes[0].max_lag > 659.999 && r->diagnosis->causes[0].max_lag < 660.001);
	rk_check_result_free(r);
}

/* A late commit whose transaction also wrote rows just before it in time
 * that arrived is none: alone it is a partial_transaction; in a
 * gap, on a boundary, it is what they say, and their evidence says why it
 * is no late commit. */
static void test_late_commit_refuted_by_its_transaction(void **state)
{
	uint64_t rows[3] = { 6, 6, 6 };
	rk_check_result *r = result(3, rows);
	rk_usec commit[4];
	bool known[4] = { true, true, true, true };
	bool arrived[4] = { true, false, true, false };
	const rk_cause *c;

	(void)state;
	add(r, RK_FIND_MISSING, 0, T0 + 25 * MIN, 0, 1, 0);        /* alone, mid-window: refuted */
	add(r, RK_FIND_MISSING, 1, T0 + HOUR + 25 * MIN, 0, 1, 0); /* late, nothing arrived */
	add(r, RK_FIND_MISSING, 2, T0 + 2 * HOUR, 0, 1, 0);        /* on the boundary: refuted */
	add(r, RK_FIND_MISSING, 3, T0 + 2 * HOUR + 30 * MIN, 0, 1, 0);
	for (int i = 0; i < 4; i++)
		commit[i] = r->findings[i].source_time + 3 * HOUR;
	commit[3] = r->findings[3].source_time + MIN; /* committed in time */
	/* the target holds rows between them: no gap */
	held(r, T0 + 30 * MIN, T0 + HOUR + 20 * MIN);
	held(r, T0 + HOUR + 30 * MIN, T0 + 2 * HOUR - 1);
	held(r, T0 + 2 * HOUR + 10 * MIN, T0 + 2 * HOUR + 20 * MIN);
	/* asked nothing: three are late commits */
	assert_string_equal(causes_of(r, commit, known, NULL), "late_commit:3:0,1,2 unclassified:1:2");
	assert_string_equal(causes_of(r, commit, known, arrived),
	                    "late_commit:1:1 boundary:1:2 partial_transaction:1:0 unclassified:1:2");
	c = &r->diagnosis->causes[2];
	assert_int_equal(c->pattern, RK_PAT_PARTIAL_XACT);
	assert_non_null(strstr(c->evidence, "1 missing row committed up to 3h 00m after its time, but its transaction "
	                                    "also wrote rows just before it in time that arrived: the load read that "
	                                    "transaction after the commit, so no late commit: e.g. 0 "
	                                    "(time 2026-03-02T00:25:00Z, committed 2026-03-02T03:25:00Z: 3h 00m later)"));
	assert_non_null(strstr(r->diagnosis->causes[1].evidence, "(no late commit, though committed up to 3h 00m after "
	                                                         "its time: its transaction also wrote rows just "
	                                                         "before it in time that arrived)"));
	assert_null(strstr(r->diagnosis->causes[0].evidence, "no late commit"));
	rk_check_result_free(r);
}

/* A single row classified when its evidence allows: lost on a boundary,
 * doubled with alike copies; an extra key looked up: deleted at the
 * source, or its new version where it belongs (appended), or later past
 * the range and not in the target (a stale copy); not looked up: nothing. */
static void test_single_rows_and_lookups(void **state)
{
	uint64_t rows[4] = { 6, 6, 6, 6 };
	rk_check_result *r = result(4, rows);
	rk_finding *f;

	(void)state;
	add(r, RK_FIND_MISSING, 1, T0 + HOUR, 0, 1, 0);
	f = add(r, RK_FIND_DUPLICATED, 2, T0 + HOUR + 25 * MIN, T0 + HOUR + 25 * MIN, 1, 2);
	f->same_copies = true;
	add(r, RK_FIND_DUPLICATED, 3, T0 + 2 * HOUR + 25 * MIN, T0 + 2 * HOUR + 25 * MIN, 1, 2);
	held(r, T0 + HOUR + 30 * MIN, T0 + 2 * HOUR + 20 * MIN);
	add(r, RK_FIND_EXTRA, 4, 0, T0 + 3 * HOUR + 5 * MIN, 0, 1);
	add(r, RK_FIND_EXTRA, 5, 0, T0 + 5 * MIN, 0, 1);
	add(r, RK_FIND_EXTRA, 6, 0, T0 + 3 * HOUR + 10 * MIN, 0, 1);
	add(r, RK_FIND_EXTRA, 7, 0, T0 + 3 * HOUR + 20 * MIN, 0, 1);
	set_looked_up(r, 4, RK_USEC_NINF, false);
	set_looked_up(r, 5, T0 + 9 * HOUR, true);
	set_looked_up(r, 6, T0 + 9 * HOUR, false);
	assert_string_equal(causes(r, NULL, NULL),
	                    "boundary:1:1 moved:1:3 appended_update:1:0 deleted_at_source:1:3 repeat:1:1 unclassified:2:2,3");
	rk_check_result_free(r);
}

static void test_boundary_repeat_moved(void **state)
{
	uint64_t rows[4] = { 6, 6, 6, 6 };
	rk_check_result *r = result(4, rows);

	(void)state;
	/* one doubled row on the hour: boundary; a whole window doubled: repeat */
	add(r, RK_FIND_DUPLICATED, 1, T0 + HOUR, T0 + HOUR, 1, 2);
	held(r, T0 + HOUR + MIN, T0 + 2 * HOUR - 1); /* window 1's other rows */
	for (int i = 0; i < 6; i++)
		add(r, RK_FIND_DUPLICATED, 20 + i, T0 + 2 * HOUR + i * 10 * MIN, T0 + 2 * HOUR + i * 10 * MIN, 1, 2);
	/* a stale copy in window 0, the row now in window 3 */
	add(r, RK_FIND_EXTRA, 9, 0, T0 + 30 * MIN, 0, 1);
	add(r, RK_FIND_MISSING, 9, T0 + 3 * HOUR + 5 * MIN, 0, 1, 0);
	assert_string_equal(causes(r, NULL, NULL), "boundary:1:1 moved:1:0,3 repeat:6:2");
	rk_check_result_free(r);
}

static void test_source_duplicate_takes_its_key(void **state)
{
	uint64_t rows[1] = { 7 };
	rk_check_result *r = result(1, rows);

	(void)state;
	add(r, RK_FIND_SOURCE_DUPLICATE, 5, T0 + 5 * MIN, T0 + 5 * MIN, 2, 1);
	add(r, RK_FIND_MISSING, 5, T0 + 5 * MIN, T0 + 5 * MIN, 2, 1);
	r->side[1].null_time = 2;
	assert_string_equal(causes(r, NULL, NULL), "source_duplicate:1:0 null_time:2:");
	rk_check_result_free(r);
}

/* Random damage: every finding in exactly one pattern, none hidden. */
static void test_every_finding_in_one_pattern(void **state)
{
	(void)state;
	srand(12);
	for (int round = 0; round < 300; round++) {
		uint64_t rows[6];
		rk_check_result *r;
		rk_usec *commit;
		bool *known;
		size_t total = 0, nf;

		for (int w = 0; w < 6; w++)
			rows[w] = (uint64_t)(rand() % 8);
		r = result(6, rows);
		nf = (size_t)(rand() % 20);
		for (size_t i = 0; i < nf; i++) {
			rk_find_kind k = (rk_find_kind)(rand() % RK_FIND_NKINDS);
			rk_usec t = T0 + (rk_usec)(rand() % 6) * HOUR + (rk_usec)(rand() % 6) * 10 * MIN;
			add(r, k, rand() % 10, t, t + (rand() % 3) * MIN, k == RK_FIND_EXTRA ? 0 : 1 + (k == RK_FIND_SOURCE_DUPLICATE),
			    k == RK_FIND_MISSING ? (uint32_t)(rand() % 2) : 1 + (k == RK_FIND_DUPLICATED));
			if (rand() % 2)
				held(r, t + MIN, t + MIN + (rk_usec)(rand() % 30) * MIN);
		}
		commit = rk_xcalloc(nf ? nf : 1, sizeof *commit);
		known = rk_xcalloc(nf ? nf : 1, sizeof *known);
		for (size_t i = 0; i < nf; i++) {
			known[i] = rand() % 2;
			commit[i] = T0 + (rk_usec)(rand() % 8) * HOUR;
		}
		causes(r, round % 2 ? commit : NULL, known);
		for (size_t i = 0; i < nf; i++)
			assert_true(r->diagnosis->of[i] < RK_PAT_COUNT && r->diagnosis->of[i] != RK_PAT_NULL_TIME);
		for (size_t i = 0; i < r->diagnosis->ncauses; i++) {
			const rk_cause *c = &r->diagnosis->causes[i];
			total += c->findings;
			assert_true(c->pattern != RK_PAT_NULL_TIME);
			for (size_t w = 1; w < c->nwindows; w++)
				assert_true(c->windows[w - 1] < c->windows[w]);
			assert_true(c->keys >= 1 && c->keys <= c->findings);
			if (i)
				assert_true(r->diagnosis->causes[i - 1].pattern < c->pattern);
		}
		assert_int_equal(total, nf);
		free(commit);
		free(known);
		rk_check_result_free(r);
	}
}

/* Gives the target a log of 4 versions whose only range is window w, with
 * the touches t[0..n) (operation op each; times T0 + version minutes). */
static void target_log(rk_check_result *r, size_t w, const rk_touch *t, size_t n, uint32_t live)
{
	rk_history *h = rk_xcalloc(1, sizeof *h);
	rk_range_history *rh;

	h->version = 3;
	h->base = -1;
	h->ncommits = 4;
	h->nranges = 1;
	h->ranges = rh = rk_xcalloc(1, sizeof *rh);
	rh->range = (rk_range){ r->bounds[w], r->bounds[w + 1] };
	rh->touch = rk_xcalloc(n ? n : 1, sizeof *rh->touch);
	rh->ntouch = n;
	rh->live = live;
	for (size_t i = 0; i < n; i++) {
		rh->touch[i] = t[i];
		rh->touch[i].operation = rk_xstrdup(t[i].operation);
		rh->touch[i].time = T0 + t[i].version * MIN;
	}
	rk_history_free(r->side[1].history);
	r->side[1].history = h;
}

/* The first cause's cause, evidence and next step, after classifying. */
static const rk_cause *first_cause(rk_check_result *r)
{
	causes(r, NULL, NULL);
	assert_true(r->diagnosis->ncauses > 0);
	return &r->diagnosis->causes[0];
}

static void assert_has(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("'%s' does not say '%s'", text, part);
}

/* A gap on a target that keeps a log (a Delta table): what the log says of
 * its window names the cause. */
static void test_gap_and_the_targets_log(void **state)
{
	uint64_t rows[3] = { 6, 6, 6 };
	rk_check_result *r = result(3, rows);
	const rk_cause *c;
	const rk_touch written = { .version = 0, .operation = "WRITE", .added = 1, .rows_added = 6 };
	const rk_touch deleted = { .version = 2, .operation = "DELETE", .removed = 1 };
	const rk_touch merged = { .version = 2, .operation = "MERGE", .removed = 1, .added = 1, .rows_added = 2 };
	const rk_touch blind = { .version = 1, .operation = "WRITE", .added_unknown = 1, .rows_added = -1 };
	rk_touch t[2];

	(void)state;
	for (int i = 0; i < 6; i++)
		add(r, RK_FIND_MISSING, 10 + i, T0 + HOUR + i * 10 * MIN, 0, 1, 0);
	/* no log: the general cause */
	c = first_cause(r);
	assert_int_equal(c->pattern, RK_PAT_GAP);
	assert_has(c->cause, "its watermark was saved before its write");
	assert_null(strstr(c->evidence, "log"));
	/* no commit wrote the window */
	target_log(r, 1, NULL, 0, 0);
	c = first_cause(r);
	assert_has(c->cause, "no commit of the target wrote these windows");
	assert_has(c->evidence, "the target's log (versions 0 to 3): 2026-03-02T01:00:00Z written by no commit");
	assert_has(c->next_step, "commit the watermark after the write");
	/* written by v0, its file removed by v2 and none written back */
	t[0] = written;
	t[1] = deleted;
	target_log(r, 1, t, 2, 0);
	c = first_cause(r);
	assert_has(c->cause, "a later commit removed them without writing them back");
	assert_has(c->evidence, "written by version 0 (WRITE, 2026-03-02T00:00:00Z), then its files removed by version "
	                        "2 (DELETE, 2026-03-02T00:02:00Z), which wrote none back");
	assert_has(c->next_step, "look up the removing commit");
	/* ... while a file of the snapshot holds rows of it: not "removed" */
	target_log(r, 1, t, 2, 1);
	c = first_cause(r);
	assert_has(c->cause, "its watermark was saved before its write");
	/* rewritten by v2 */
	t[1] = merged;
	target_log(r, 1, t, 2, 1);
	c = first_cause(r);
	assert_has(c->cause, "a later commit rewrote these windows without these rows");
	assert_has(c->evidence, "rewritten by version 2 (MERGE, 2026-03-02T00:02:00Z), which removed 1 of its files and "
	                        "added 1");
	/* only a file without statistics may hold it: nothing is claimed */
	t[0] = blind;
	target_log(r, 1, t, 1, 0);
	c = first_cause(r);
	assert_has(c->cause, "its watermark was saved before its write");
	assert_has(c->evidence, "version 1 (WRITE, 2026-03-02T00:01:00Z) added files without them, which may hold its rows");
	rk_check_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gap_needs_no_held_row_between),
		cmocka_unit_test(test_gap_broken_by_a_copy_held),
		cmocka_unit_test(test_late_commit_comes_first),
		cmocka_unit_test(test_late_commit_refuted_by_its_transaction),
		cmocka_unit_test(test_boundary_repeat_moved),
		cmocka_unit_test(test_single_rows_and_lookups),
		cmocka_unit_test(test_source_duplicate_takes_its_key),
		cmocka_unit_test(test_every_finding_in_one_pattern),
		cmocka_unit_test(test_gap_and_the_targets_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
