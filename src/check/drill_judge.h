/*
 * drill_judge.h - the drilldown's judging of keys (drill_judge.c): the rows
 * a pass collected from both sides' leaves compared key by key into tallies,
 * and the tallies turned into findings.  Not for use outside src/check/.
 */
#ifndef RK_CHECK_DRILL_JUDGE_H
#define RK_CHECK_DRILL_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/drill_plan.h"
#include "check/result.h"
#include "check/tallies.h"
#include "core/buf.h"

/* One collected row of a leaf. */
typedef struct rk_drow {
	rk_u128 key;
	rk_u128 row;
	rk_usec t;
	size_t window;
	uint16_t side;
	bool damaged;   /* its key's copies differ (rk_drill_leaves) */
	uint32_t entry; /* the round's entry it was collected for */
	size_t disp;    /* offset of the key's display encoding in the side's arena */
} rk_drow;

/* One side's state in a round or the verify pass. */
typedef struct rk_dside {
	rk_entry *entries; /* shared by both sides, sorted by (lo, hval) */
	size_t nentries;
	const rk_drill_round *rd; /* the round's split parts (NULL in the verify pass) */
	bool server;              /* this side's pieces are computed by its database */
	bool need_key;            /* some entry needs the key hash */
	const rk_u128 *keyset;    /* when set: only rows of these keys (sorted) */
	size_t nkeyset;
	const char *const *key_text; /* ... whose display texts these are (a hint for the reader) */
	bool serial;                 /* its scan read by one process (rk_scan.serial) */
	rk_drow *rows;
	size_t nrows, caprows;
	rk_buf arena;           /* display texts of collected keys (with spill: a record's scratch) */
	struct rk_spill *spill; /* when set: the rows go there as records (drill_spill.h), not to rows */
	uint64_t server_rows;   /* rows the database digested for this side */
} rk_dside;

/* Orders collected rows by (window, key). */
int rk_drow_key_cmp(const rk_drow *x, const rk_drow *y);

/* Orders collected rows by (window, key, side, row hash). */
int rk_drow_cmp(const void *a, const void *b);

/*
 * Compares the collected rows key by key, per window: a key whose copies
 * differ (in number or in content) gets a tally.  Each side is sorted in
 * place and the two are walked together, so comparing needs no memory
 * beyond what the pass collected.  With held, the runs of matching source
 * rows are noted there (rk_leaf_runs).  The tallies go to ts; 0, or -1
 * with err (a run of them that could not be written).
 */
int rk_drill_leaves(rk_dside *d0, rk_dside *d1, rk_tallies *ts, rk_helds *held, rk_error *err);

/* Notes the pieces of a round whose digests matched and that hold source
 * rows: their span, as the digests brought it. */
void rk_held_pieces(const rk_drill_round *rd, rk_helds *held);

/* Turns the tally t into its findings (one a key, with a source_duplicate
 * beside it when the source holds the key more than once), appended to
 * res's (an rk_tally_sink: res is the rk_check_result), or past
 * rk_spill_share_bound() bytes of them added to its store
 * (rk_check_result.store, in spill_dir), every one made so far moved
 * there.  Each (window, key)
 * has one tally: a leaf holds all copies of a key in its slice, and the
 * keys of time-split windows were judged again on the whole window by
 * rk_drill_verify (drill.c).  Returns 0, or -1 with err when the
 * store could not write. */
int rk_classify_tally(void *res, rk_tally *t, rk_error *err);

/* Sorts res's findings into their order (window, kind, key); in its store
 * (past the findings' bound) ends the adding.  0, or -1 with err. */
int rk_findings_sort(rk_check_result *res, rk_error *err);

#endif
