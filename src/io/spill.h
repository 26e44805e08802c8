/*
 * spill.h - an external sort of byte records: records are added in any
 * order, held in memory up to a bound, written past it as sorted runs to
 * files, and read back once or several times in sorted order (a k-way merge
 * of the runs and what memory still holds).
 *
 * Below the bound nothing touches a file: the records are sorted in memory
 * and read from there, as fast as an array.  A run's file is created in the
 * directory the caller names (the report's place, so that the runs sit
 * beside the report set afile.h stages) and unlinked at once: it leaves with
 * the process, whatever way the process ends.  At most RK_SPILL_FANIN runs
 * are open at once: RK_SPILL_GROUP runs of one level (a run written from
 * memory is of level 0, a merge of runs one above the highest of them) are
 * merged into one as they come, so that a record is written again once
 * for each eightfold of the runs.
 *
 * The sort is stable: records that compare equal come back in the order
 * they were added.
 */
#ifndef RK_SPILL_H
#define RK_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Open runs at most (and runs merged at once). */
#define RK_SPILL_FANIN 16

/* Runs of one level merged into one of the next. */
#define RK_SPILL_GROUP 8

/* The default bound: 64 MiB of records in memory. */
#define RK_SPILL_DEFAULT_BYTES ((size_t)64 << 20)

/* Orders two records: negative, zero or positive, as strcmp. */
typedef int (*rk_spill_cmp)(const void *a, size_t alen, const void *b, size_t blen, void *ctx);

typedef struct rk_spill rk_spill;

/* The bound the environment asks for: RK_SPILL_BYTES, a byte count (at
 * least 1; a test forces the spill with a small one), else
 * RK_SPILL_DEFAULT_BYTES.  A value that is not a positive number is
 * not used: the default is, with a warning (core/env.h). */
size_t rk_spill_bound_env(void);

/* The share of that bound each sort of a run that holds several at once
 * takes in memory: the drilldown's tallies, each side's rows of its verify
 * pass, the findings' store, a cause's key hashes, a repair's keys. */
#define RK_SPILL_SHARE 8

/* rk_spill_bound_env() / RK_SPILL_SHARE, at least 1. */
size_t rk_spill_share_bound(void);

/* A new, empty sort.  dir: where run files go (NULL or "": $TMPDIR, else
 * /tmp); copied.  bound: bytes of records (and their bookkeeping) held in
 * memory before a run is written.  cmp and ctx order the records. */
rk_spill *rk_spill_new(const char *dir, size_t bound, rk_spill_cmp cmp, void *ctx);

/* Adds a copy of the record [rec, rec + len) (len below 4 GiB).  Fails
 * (RK_EXIT_RUNTIME) when a run cannot be written; not after rk_spill_finish. */
int rk_spill_add(rk_spill *s, const void *rec, size_t len, rk_error *err);

/* Ends the adding and starts the reading at the first record. */
int rk_spill_finish(rk_spill *s, rk_error *err);

/* The next record in order: *rec (valid until the next call) and *len.
 * Returns 1 with a record, 0 at the end, -1 on a read error (RK_EXIT_RUNTIME). */
int rk_spill_next(rk_spill *s, const void **rec, size_t *len, rk_error *err);

/* Starts the reading again at the first record (after rk_spill_finish). */
int rk_spill_rewind(rk_spill *s, rk_error *err);

/* Records added. */
uint64_t rk_spill_count(const rk_spill *s);

/* Runs written to files so far (0: everything was held in memory). */
uint64_t rk_spill_runs_written(const rk_spill *s);

/* Records written again by merges of runs (each record once a level). */
uint64_t rk_spill_records_merged(const rk_spill *s);

/* Closes the runs' files and frees everything.  NULL is harmless. */
void rk_spill_free(rk_spill *s);

#endif
