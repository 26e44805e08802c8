/*
 * diagnose.h - why the rows went missing: the findings of a check grouped
 * into patterns, each with its likely cause, evidence and next step, and the
 * warnings a verdict cannot carry (docs/reference.md).
 *
 * Works on the check result (rk_check_result: the findings with the span
 * of their source copies, and where the drilldown saw the damaged windows'
 * other source rows, rk_check_result.held) plus cheap targeted queries on
 * the source: the commit times of the missing keys only, the source's
 * unique indexes and its open transactions.  Nothing here reads a window
 * again.  A diagnosis never
 * changes the verdict and never hides a finding: each finding belongs to
 * exactly one pattern, the first that fits in the order of rk_pattern.
 */
#ifndef RK_CHECK_DIAGNOSE_H
#define RK_CHECK_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "check/result.h"
#include "core/error.h"
#include "io/reader.h"

/* "gap", "late_commit", ... */
const char *rk_pattern_name(rk_pattern p);

/* res's diagnosis, created empty when it has none (diagnose_warn.c). */
rk_diagnosis *rk_diagnosis_of(rk_check_result *res);

/* Adds a warning of kind (a string that outlives res) with a copy of
 * message to res's diagnosis, creating it when needed (diagnose_warn.c). */
void rk_diagnose_note(rk_check_result *res, const char *kind, const char *message);

/*
 * The warnings about the source, asked before the digest pass, while the
 * snapshot the check reads is new: other sessions of the source database in
 * a transaction that began before the end of the newest closed window
 * (reckon's own sessions, own_pids, left out), whether the role can see
 * other roles' sessions, and whether a primary key or unique index backs
 * key_index.  Creates res->diagnosis.  A query that fails becomes a warning;
 * returns 0.  (diagnose_warn.c)
 */
int rk_diagnose_warn(rk_check_result *res, rk_reader *source, const size_t *key_index, size_t nkey,
                     const int *own_pids, size_t nown);

/*
 * After the drilldown: reads the commit times of the missing keys from the
 * source (when it keeps them), each key's rows within its source copies'
 * time span (time_index: the time column), and classifies every finding
 * (rk_diagnose_classify).  Returns 0, or -1 with err when the source failed.
 */
int rk_diagnose_run(rk_check_result *res, rk_usec settle, rk_reader *source, const size_t *key_index, size_t nkey,
                    size_t time_index, rk_error *err);

/*
 * The classification itself, on the result alone: commit[i] / known[i]
 * are finding i's source commit time (missing findings only; NULL when
 * late commits could not be examined, late_why saying why); arrived[i]
 * (or NULL: not asked) that its transaction also wrote rows at or before
 * its time (in its window or the one before) that arrived: then it is no
 * late commit.  Fills
 * res->diagnosis (created when NULL), replacing earlier causes.  The
 * findings must be in memory (res->store NULL): rk_diagnose_run takes a
 * store's through a proxy.
 */
void rk_diagnose_classify(rk_check_result *res, rk_usec settle, const rk_usec *commit, const bool *known,
                          const bool *arrived, const char *late_why);

/* Spans of damaged rows as a gap's or a repeat's evidence names them: the
 * first RK_DIAG_SPANS, and how many there are. */
#define RK_DIAG_SPANS 3
typedef struct rk_dspan {
	rk_usec first, last;
	size_t rows;
} rk_dspan;
typedef struct rk_dspans {
	rk_dspan v[RK_DIAG_SPANS];
	size_t n;
} rk_dspans;

/* Adds a span to s (kept when among the first RK_DIAG_SPANS). */
void rk_dspans_add(rk_dspans *s, rk_usec first, rk_usec last, size_t rows);

/* Findings of one kind that a proxy leaves out, placed by a sweep of the
 * runs they make (diagnose_store.c). */
typedef struct rk_dswept {
	bool alone;        /* left out of the proxy: of places them */
	unsigned char *of; /* [n]: their patterns, in the findings' order */
	size_t n;
	rk_dspans spans; /* the runs the sweep found: a gap's or a repeat's */
} rk_dswept;

/*
 * How a proxy (rk_diagnose_proxy) stands for all the findings.  It holds
 * every finding but a changed one outside the windows that hold a
 * source_duplicate (classified alone, rk_diagnose_alone) and those that
 * only the runs they make can place, which a sweep of them in time order
 * places instead: the lost rows (rk_diagnose_lost: gap, boundary, else
 * unclassified) where no extra finding has a lost row's key, none is a
 * source_duplicate and the source keeps no commit times, and the doubled
 * rows (rk_diagnose_doubled:
 * repeat, boundary, else unclassified) where none is a source_duplicate.
 */
typedef struct rk_dproxy {
	bool *dupwin;      /* [nwindows]: the windows that hold a source_duplicate */
	rk_dswept lost;    /* the lost rows */
	rk_dswept doubled; /* the doubled rows */
} rk_dproxy;

/*
 * The classification of res's findings, where res may be a proxy of all's
 * (px: all's findings in its store): the findings res lacks are
 * classified alone (rk_diagnose_alone) or by px's sweep, and every cause
 * counts, names and shows all's findings.  With px NULL, res is all.  0,
 * or -1 with err when a read of all's store failed.
 */
int rk_diagnose_classify_in(rk_check_result *res, const rk_check_result *all, const rk_dproxy *px, rk_usec settle,
                            const rk_usec *commit, const bool *known, const bool *arrived, const char *late_why,
                            rk_error *err);

/* A changed finding no other finding bears on: unbumped_update when its
 * time is the same on both sides, else unclassified. */
rk_pattern rk_diagnose_alone(const rk_finding *f);

/* A lost row: a missing finding the target holds no copy of (a gap's
 * candidate). */
bool rk_diagnose_lost(const rk_finding *f);

/* A doubled row: a duplicated finding the source holds (a repeat's
 * candidate). */
bool rk_diagnose_doubled(const rk_finding *f);

/* Whether f's source copies break a run of doubled rows (repeat) or of
 * lost ones (a gap). */
bool rk_diagnose_breaks(const rk_finding *f, bool repeat);

/* What a run of doubled rows (pat RK_PAT_REPEAT) or lost ones (RK_PAT_GAP)
 * makes of its free_rows rows no pattern holds yet: pat, RK_PAT_BOUNDARY
 * (a lone lost row on a boundary, doubled rows all on one), or RK_PAT_COUNT
 * when it places none.  alike: the lone free row's copies are alike (a
 * retried insert: a repeat of one). */
rk_pattern rk_diagnose_run_pattern(rk_pattern pat, size_t free_rows, bool all_boundary, bool alike);

/* Orders key hashes: spill records of one rk_u128 (an rk_spill_cmp). */
int rk_diagnose_hash_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx);

/* Whether a lone row at source time t lies on a boundary: a window's start
 * or a whole hour. */
bool rk_diagnose_on_boundary(const rk_check_result *r, rk_usec t);

/* Whether the proxy px holds f (every finding with px NULL). */
bool rk_diagnose_in_proxy(const rk_dproxy *px, const rk_finding *f);

/*
 * Past the findings' bound (res->store), p made a proxy of res for the
 * classification (diagnose_store.c): res's fields, its own copies of the
 * findings rk_diagnose_in_proxy holds (px made), their lookups by the
 * proxy's index, and in its held the spans of the findings left out (they
 * break runs).  no_commits: the source keeps no commit times, so the
 * lost rows may be left out (px says which kinds were, their patterns
 * found).  0, or -1 with err.
 */
int rk_diagnose_proxy(const rk_check_result *res, rk_check_result *p, rk_dproxy *px, bool no_commits, rk_error *err);

/* Frees what rk_diagnose_proxy made (not res's). */
void rk_diagnose_proxy_free(rk_check_result *p, rk_dproxy *px);
#endif
