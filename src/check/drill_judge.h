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
	rk_drow *rows;
	size_t nrows, caprows;
	rk_buf arena;           /* display texts of collected keys (with spill: a record's scratch) */
	struct rk_spill *spill; /* when set: the rows go there as records (drill_spill.h), not to rows */
	uint64_t server_rows;   /* rows the database digested for this side */
} rk_dside;

/* A key whose copies differ inside one window. */
typedef struct rk_tally {
	/* (widest first: 128 bytes, not 144, a tally) */
	rk_u128 key;
	rk_u128 hs, ht; /* the sums of its copies' row hashes, per side */
	size_t window;
	rk_usec src_t;
	rk_usec tgt_t;            /* time of the first target copy */
	rk_usec src_lo, src_hi;   /* the span of its source copies' times (rk_finding) */
	rk_usec leaf_lo, leaf_hi; /* the span of the leaves holding its copies (rk_finding) */
	char **disp;              /* nkey strings, NULL for SQL NULL */
	uint32_t s, t;
} rk_tally;

typedef struct rk_tallies {
	rk_tally *v;
	size_t n, cap;
} rk_tallies;

/* The spans noted for the diagnosis (rk_check_result.held). */
typedef struct rk_helds {
	rk_held *v;
	size_t n, cap;
} rk_helds;

/* Notes the span [lo, hi] of source time (both ends included). */
void rk_held_add(rk_helds *h, rk_usec lo, rk_usec hi);

/* Orders collected rows by (window, key). */
int rk_drow_key_cmp(const rk_drow *x, const rk_drow *y);

/* Orders collected rows by (window, key, side, row hash). */
int rk_drow_cmp(const void *a, const void *b);

/* The nkey texts of a key's display encoding at p (rk_drow.disp), as new
 * strings in a new array; NULL for SQL NULL. */
char **rk_disp_decode(const char *p, size_t nkey);

/* Frees t's key texts (nkey of them). */
void rk_tally_free(rk_tally *t, size_t nkey);

/*
 * Compares the collected rows key by key, per window: a key whose copies
 * differ (in number or in content) gets a tally.  Each side is sorted in
 * place and the two are walked together, so comparing needs no memory
 * beyond what the pass collected.  With held, the runs of matching source
 * rows are noted there (rk_leaf_runs).
 */
void rk_drill_leaves(rk_dside *d0, rk_dside *d1, size_t nkey, rk_tallies *ts, rk_helds *held);

/* Notes the pieces of a round whose digests matched and that hold source
 * rows: their span, as the digests brought it. */
void rk_held_pieces(const rk_drill_round *rd, rk_helds *held);

/* Turns tallies into findings.  Each (window, key) has one tally: a leaf
 * holds all copies of a key in its slice, and the keys of time-split
 * windows were judged again on the whole window by rk_drill_verify (drill.c);
 * merging a key's tallies here only guards that invariant.  ts is consumed
 * from the end, its array cut as it goes, and left empty (freed). */
void rk_drill_classify(rk_check_result *res, rk_tallies *ts);

/*
 * A key of a time-split window may have copies in leaves of several rounds,
 * each of which judged only its own: their tallies become one, and a key
 * whose copies, all told, agree is no finding (its time moved, say, in a
 * window whose time is not hashed): its source copies are then noted in
 * held, when given, as rows the target holds.
 */
void rk_drill_merge(rk_check_result *res, const bool *split_time, rk_tallies *ts, rk_helds *held);

#endif
