/*
 * lab_delta.h - the lab's engine `delta` (lab.h, docs/loader.md "The lab
 * on Delta Lake"): the target is a Delta table the steps write
 * (`--target delta:DIR`); the lab itself only creates it, mirrors its rows
 * into PostgreSQL after every step so that the snapshots and verdicts are
 * the other engines' own SQL, and writes its history.  Not for other
 * modules.
 */
#ifndef RK_LAB_DELTA_H
#define RK_LAB_DELTA_H

#include "core/error.h"
#include "io/pg.h"

/*
 * Removes what a previous run left of the Delta table at dir (its data
 * files and _delta_log/: only regular files directly in them), then creates
 * the table empty: version 0, operation CREATE TABLE, the lab target's
 * columns but loaded_at (a Delta table has no column defaults): txn_id
 * string, updated_at timestamp, amount decimal(12,2), interval_start
 * timestamp.  Returns 0 or -1.
 */
int rk_lab_delta_reset(const char *dir, rk_error *err);

/*
 * Replaces the rows of reckon_lab.fact_transactions on pg (the mirror) with
 * the live rows of the Delta table at dir, read by reckon's Delta reader
 * (loaded_at NULL).  Returns 0 or -1.
 */
int rk_lab_delta_mirror(rk_pg *pg, const char *dir, rk_error *err);

/*
 * Writes the table's history to path as history.csv:
 * version,operation,files_added,files_removed,rows_added, one row per
 * commit.  Returns 0 or -1.
 */
int rk_lab_delta_history(const char *dir, const char *path, rk_error *err);

#endif
