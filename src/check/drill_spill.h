/*
 * drill_spill.h - the drilldown's verify pass through a spill
 * (drill_spill.c): the rows it collects are records of an rk_spill (io/spill.h)
 * sorted as rk_drow_cmp sorts them, each with its key's display text, and the
 * tallies (tallies.h, a spill too) of time-split windows are brought up to
 * date by one walk of the merged rows beside them, both in (window, key)
 * order.  So neither the rows nor the tallies of every damaged key are held
 * in memory: past the spill's bound they wait in its run files.  Not for
 * use outside src/check/.
 */
#ifndef RK_CHECK_DRILL_SPILL_H
#define RK_CHECK_DRILL_SPILL_H

#include <stdbool.h>
#include <stddef.h>

#include "check/drill_judge.h"
#include "core/buf.h"
#include "io/spill.h"

/* Bytes of a row's record before its key's display text: key, row hash,
 * time, window, entry, side, damaged (rk_drow's fields but disp). */
#define RK_DROW_REC 55

/* Appends r's record head (RK_DROW_REC bytes) to out; the display text
 * (rk_key_display's encoding) is to follow it. */
void rk_drow_pack(const rk_drow *r, rk_buf *out);

/* The fields of the record at p (at least RK_DROW_REC bytes); disp is 0: the
 * display text is at p + RK_DROW_REC. */
void rk_drow_unpack(const void *p, rk_drow *r);

/* Orders two records as rk_drow_cmp orders their rows (an rk_spill_cmp). */
int rk_drow_rec_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx);

/* A new spill of row records, in dir (NULL: the spill's default), its bound
 * rk_spill_share_bound(). */
rk_spill *rk_drow_spill_new(const char *dir);

/* Ends the adding to both spills: the records of from (the target's rows
 * of the verify pass) are added to to's (the source's) as source rows,
 * after them, as rk_drow_cmp's stable sort of the two lists one after the
 * other would have them; then to is finished.  0, or -1 with err. */
int rk_drow_spill_join(rk_spill *to, rk_spill *from, rk_error *err);

/* The verify pass's judging, and the tallies handed on: each key of ts
 * (finished or rewound), in (window, key) order, goes to sink; one of a
 * time-split window first gains, on both sides, the copies of its key the
 * source's rows in rows (finished, rk_drow_cmp's order) hold beyond those
 * its leaves held, and takes the first of them's time and display text.
 * rows NULL: no verify pass (the tallies go to sink as they are).  0, or
 * -1 with err (the reading, or the sink's). */
int rk_verify_stream(rk_spill *rows, rk_tallies *ts, rk_tally_sink sink, void *ctx, rk_error *err);

#endif
