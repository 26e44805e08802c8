/*
 * repair.h - `reckon repair`: replaces the intervals of a rerun list in the
 * target, one transaction per interval, then re-checks each (docs/reference.md,
 * docs/repair.md).
 *
 * A run, in order, changing nothing before its last step:
 *   1. refuses an open interval (end after now - settle) unless allow_open,
 *      and a target that an enabled subscription writes into unless force;
 *   2. checks each interval as `reckon check` would, and leaves the ones
 *      that already match alone ("already matches");
 *   3. reads the source's rows of the others once, from one snapshot, into
 *      a staging table on the target (with the target's column types);
 *   4. refuses a key the source does not hold uniquely when the delete by
 *      key would reach target rows outside an interval whose keys the
 *      source also holds outside it;
 *   5. per interval, one target transaction: the table's advisory lock, the
 *      target rows of [s, e) deleted, the other target rows holding one of
 *      the interval's source keys deleted, the staged rows inserted, commit;
 *      then the interval checked again, and every window outside it whose
 *      rows the delete by key removed.
 * A dry run does 1-4 and counts what 5 would delete and insert, interval by
 * interval as the real run would (a row counted once), in read-only
 * transactions.  Only the target rows of the pair are touched: those
 * --target-where selects.
 *
 * Layering: uses io/ (readers, libpq wrapper) and check/ (the re-check);
 * knows nothing of argv or output formats.
 */
#ifndef RK_REPAIR_REPAIR_H
#define RK_REPAIR_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "repair/repair_types.h"

/* What reckon repair prints: "pending", "failed", "unknown",
 * "already matches", "planned", "unverified", "match", "differ". */
const char *rk_repair_state_name(rk_repair_state s);

/* The same as one word for JSON ("already_matches"). */
const char *rk_repair_state_key(rk_repair_state s);

/* True when the state means the interval's replacement was committed. */
bool rk_repair_state_done(rk_repair_state s);

void rk_repair_result_free(rk_repair_result *res);

/*
 * Repairs (or, without execute, plans) the n intervals in order (sorted,
 * disjoint, as a rerun list holds them), filling each one's state and
 * counts as it goes, and *res with the windows outside the list it touched
 * (rk_repair_result_free frees, also after a failure).  Refuses, before any
 * change (RK_EXIT_USAGE): a CSV target, unknown or unwritable columns, an
 * uncovered NOT NULL column, open intervals, a subscribed target, a key
 * the source does not hold uniquely.
 *
 * Returns 0 when every interval was planned, left alone or replaced and
 * re-checked (whatever the re-checks said: see the states), -1 with err
 * otherwise.  On -1 after the first write, the message says which
 * intervals were replaced and that the failing one was not changed (or may
 * have been, when the connection was lost during its COMMIT); intervals
 * past it are PENDING.  A caught SIGINT/SIGTERM (guard.h) stops the run
 * that way too, with err's code 128 + the signal.  A lock wait longer than
 * the guard's lock timeout: RK_EXIT_RUNTIME naming the blocking sessions.
 * The intervals are the caller's; the function only writes their results.
 */
int rk_repair_run(const rk_repair_spec *spec, rk_repair_interval *iv, size_t n, rk_repair_result *res,
                  rk_error *err);

/*
 * The same for a rerun list of key segments (rk_repair_run calls it when
 * spec->check.time is NULL; repair_keys.c): each segment
 * [key_start, key_end) of the first key column repaired row by row (or
 * replaced whole, replace_interval) in one transaction and checked again.
 * Refuses, before any change (RK_EXIT_USAGE), besides what rk_repair_run
 * refuses: segments out of key order or whose bounds are no exact segment
 * bounds (rk_keyspace_fit), and the options about time (interval_column,
 * load_interval, check.tz).  No window outside the list is touched: res
 * stays empty.
 */
int rk_repair_keys_run(const rk_repair_spec *spec, rk_repair_interval *iv, size_t n, rk_repair_result *res,
                       rk_error *err);

#endif
