/*
 * findstore.h - a check's findings as a stream (io/spill.h underneath):
 * added in any order, read back in their final order - by window, kind and
 * key, as rk_check_result.findings is sorted - held in memory below a bound
 * and written as sorted runs to files past it.  A finding read back is the
 * one added, field for field and text for text (its span, an index into
 * its result's spans, read back as it was: rk_finding_span with that
 * result reads it).
 *
 * A check's findings move here past their bound (drill_judge.c,
 * rk_check_result.store; docs/performance.md, "The findings in a store"),
 * and every reader takes them by rk_fwalk (result.h).
 */
#ifndef RK_CHECK_FINDSTORE_H
#define RK_CHECK_FINDSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "check/finding.h"
#include "core/error.h"

typedef struct rk_findstore rk_findstore;

/* The findings' order: window, kind, then the nkey key texts (strcmp, SQL
 * NULL first).  Negative, zero or positive. */
int rk_finding_order(const rk_finding *x, const rk_finding *y, size_t nkey);

/* A new, empty store of findings of nkey key columns.  dir: where its runs
 * go (io/spill.h; NULL: $TMPDIR or /tmp); bound: bytes held in memory
 * (rk_spill_bound_env() reads the one the environment sets). */
rk_findstore *rk_findstore_new(const char *dir, size_t bound, size_t nkey);

/* Adds a copy of f (its key texts copied; f is not changed).  Fails
 * (RK_EXIT_RUNTIME) when a run cannot be written. */
int rk_findstore_add(rk_findstore *st, const rk_finding *f, rk_error *err);

/* Ends the adding; the reading starts at the first finding. */
int rk_findstore_finish(rk_findstore *st, rk_error *err);

/* The next finding in order, into *f: its key array and texts belong to
 * the store and stay valid until the next call.  1 with a finding, 0 at the
 * end, -1 on a read error. */
int rk_findstore_next(rk_findstore *st, rk_finding *f, rk_error *err);

/* Reads again from the first finding (after rk_findstore_finish). */
int rk_findstore_rewind(rk_findstore *st, rk_error *err);

/* Findings added. */
uint64_t rk_findstore_count(const rk_findstore *st);

/* Runs written to files (0: all of them were held in memory). */
uint64_t rk_findstore_runs(const rk_findstore *st);

/* Frees the store and its files.  NULL is harmless. */
void rk_findstore_free(rk_findstore *st);

#endif
