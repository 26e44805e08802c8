/*
 * tallies.h - the drilldown's tallies through a spill (tallies.c): a key
 * whose copies differ in a window is a tally, written as a record of an
 * rk_spill (io/spill.h) as the rounds judge their leaves and read back in
 * (window, key) order, a key's tallies of one window merged into one.  So
 * the tallies of a window whose every row differs are not held in memory:
 * past RK_SPILL_BYTES they wait in run files beside the report (issue 25).
 * Not for use outside src/check/.
 */
#ifndef RK_CHECK_TALLIES_H
#define RK_CHECK_TALLIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/result.h"
#include "core/buf.h"
#include "io/spill.h"

/* A key whose copies differ inside one window. */
typedef struct rk_tally {
	rk_u128 key;
	rk_u128 hs, ht; /* the sums of its copies' row hashes, per side */
	size_t window;
	rk_usec src_t;
	rk_usec tgt_t;            /* time of the first target copy */
	rk_usec src_lo, src_hi;   /* the span of its source copies' times (rk_finding) */
	rk_usec leaf_lo, leaf_hi; /* the span of the leaves holding its copies (rk_finding) */
	/* its key's display encoding (rk_key_display's: per column a byte, 0
	 * for SQL NULL, else 1, a 4-byte length and the text), owned by
	 * whoever handed the tally out, valid until its next call */
	const char *enc;
	uint32_t s, t;
} rk_tally;

/* Takes one tally handed out (t->enc valid for the call only): 0, or -1
 * with err. */
typedef int (*rk_tally_sink)(void *ctx, rk_tally *t, rk_error *err);

/* The spans noted for the diagnosis (rk_check_result.held). */
typedef struct rk_helds {
	rk_held *v;
	size_t n, cap;
} rk_helds;

/* Notes the span [lo, hi] of source time (both ends included). */
void rk_held_add(rk_helds *h, rk_usec lo, rk_usec hi);

typedef struct rk_tallies {
	rk_spill *sp;
	size_t nkey;
	const bool *split_time; /* [nwindows]: the windows the drilldown split by time */
	uint64_t n;             /* tallies added */
	uint64_t nsplit;        /* ... of them in time-split windows */
	rk_buf add;             /* a record being added */
	rk_buf cur, ahead;      /* the record handed out, the one read after it */
	bool have_ahead;
} rk_tallies;

/* The column of a display encoding at p: *text (not NUL-terminated;
 * NULL for SQL NULL) and its *len bytes.  Returns where the next column
 * starts. */
const char *rk_disp_field(const char *p, const char **text, uint32_t *len);

/* Bytes of the display encoding at p (nkey columns). */
size_t rk_disp_len(const char *p, size_t nkey);

/* The nkey texts of the display encoding at p, as a finding's key: in kp
 * (rk_keypool_key), or with kp NULL one allocation (rk_key_texts); NULL
 * for SQL NULL. */
char **rk_disp_decode(rk_keypool *kp, const char *p, size_t nkey);

/* An empty set of tallies of nkey key columns; its runs go to dir (NULL:
 * the spill's default), bound bytes of them held in memory
 * (rk_spill_bound_env(): the environment's); split_time is kept (not
 * copied). */
void rk_tallies_init(rk_tallies *ts, const char *dir, size_t bound, size_t nkey, const bool *split_time);

/* Adds a copy of t, its display encoding t->enc.  0, or -1 with err (a run
 * that could not be written). */
int rk_tallies_add(rk_tallies *ts, const rk_tally *t, rk_error *err);

/* Ends the adding; the reading starts at the first tally. */
int rk_tallies_finish(rk_tallies *ts, rk_error *err);

/* Reads again from the first tally. */
int rk_tallies_rewind(rk_tallies *ts, rk_error *err);

/*
 * The next key of a window, in (window, key) order, into *t: its tallies
 * merged (a key of a time-split window may have copies in leaves of
 * several rounds, each of which judged only its own).  When some tally
 * lies in a time-split window, a key whose copies, all told, agree is no
 * finding (its time moved, say, in a window whose time is not hashed): it
 * is skipped, its source copies noted in held when given, as rows the
 * target holds.  t->enc is valid until the next call.  1, 0 at the end,
 * -1 with err.
 */
int rk_tallies_next(rk_tallies *ts, rk_helds *held, rk_tally *t, rk_error *err);

/* Frees the tallies and their files; an empty set is left. */
void rk_tallies_free(rk_tallies *ts);

#endif
