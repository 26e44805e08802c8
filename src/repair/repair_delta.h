/*
 * repair_delta.h - `reckon repair` of a Delta Lake target (`delta:PATH`,
 * docs/delta.md "Repair"), written over the destination seam
 * (load/target.h): repair.c hands such a target here.
 *
 * Per interval, in order, each one changing nothing before its last step:
 *   1. reads the table's latest snapshot (version V) and checks the
 *      interval on V as `reckon check` would; a match is left alone ("already
 *      matches", no commit: a second run of the same list makes none);
 *   2. reads the source's rows of the interval (through the pair's mappings
 *      and filters), of the keys the check names (all of them with
 *      --replace-interval);
 *   3. plans the commit on V: the files holding a target row of the interval
 *      of one of those keys (any row of it with --replace-interval), found
 *      among the files whose stats reach the interval;
 *   4. (--execute) one Delta commit on V: those files removed and added back
 *      rewritten without those rows, and the source's rows of those keys
 *      added as a new file; a concurrent commit since V is retried when it
 *      touched nothing V's plan read, else the run stops with exit 3 naming
 *      its version (never overwritten); then the interval is checked again
 *      on the new latest version.
 * A dry run does 1-3 and says which files the commit would remove and add.
 */
#ifndef RK_REPAIR_DELTA_H
#define RK_REPAIR_DELTA_H

#include <stddef.h>

#include "core/error.h"
#include "repair/repair_types.h"

/*
 * Runs spec (a Delta target) over the n intervals as rk_repair_run does
 * (same states, counts and return), recording each interval's commit in
 * res->delta.  On -1, *failed is the interval the run stopped at (n: before
 * any, a refusal).  Refused (RK_EXIT_USAGE): --interval-column, a table
 * that does not exist, a key the source holds twice in an interval.
 */
int rk_repair_delta_run(const rk_repair_spec *spec, rk_repair_interval *iv, size_t n, rk_repair_result *res,
                        size_t *failed, rk_error *err);

/* Frees res->delta. */
void rk_repair_delta_free(rk_repair_result *res);

#endif
