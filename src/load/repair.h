/*
 * repair.h - `reckon repair`: replaces the intervals of a rerun list in the
 * target, one transaction per interval, then re-checks each (product.md 2.4,
 * docs/repair.md).
 *
 * For an interval [s, e), one target transaction: an advisory lock on the
 * target table (so two repairs never interleave on it), the source's rows
 * of [s, e) streamed by COPY into a temporary table, the target rows whose
 * time is in [s, e) deleted, the target rows holding one of those source
 * keys deleted, the staged rows inserted, commit.  Then the interval is
 * checked again like `reckon check` would.  A dry run stages the rows the
 * same way but only counts, in a transaction that turns read-only and is
 * rolled back.
 *
 * Layering: uses io/ (readers, libpq wrapper) and check/ (the re-check);
 * knows nothing of argv or output formats.
 */
#ifndef RK_LOAD_REPAIR_H
#define RK_LOAD_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/check.h"
#include "core/error.h"
#include "core/timeutil.h"

/* What happened to one interval, in the order a run moves through them. */
typedef enum rk_repair_state {
	RK_REPAIR_PENDING = 0,  /* not reached (the run stopped earlier) */
	RK_REPAIR_FAILED,       /* its transaction failed and was rolled back: untouched */
	RK_REPAIR_UNKNOWN,      /* the connection was lost during COMMIT: done or untouched */
	RK_REPAIR_PLANNED,      /* dry run: counted, nothing changed */
	RK_REPAIR_COMMITTED,    /* replaced; the re-check failed to run */
	RK_REPAIR_MATCH,        /* replaced and the re-check matches */
	RK_REPAIR_DIFFER        /* replaced, but the re-check still differs */
} rk_repair_state;

/* "pending", "failed", "unknown", "planned", "unverified", "match", "differ" */
const char *rk_repair_state_name(rk_repair_state s);

/* True when the state means the interval's replacement was committed. */
bool rk_repair_state_done(rk_repair_state s);

typedef struct rk_repair_interval {
	rk_usec start, end;         /* [start, end), from the rerun list */
	rk_repair_state state;
	uint64_t source_rows;       /* source rows of [start, end) read and staged */
	uint64_t deleted_by_time;   /* target rows in [start, end) deleted (dry run: would be) */
	uint64_t deleted_by_key;    /* target rows outside it holding a staged key */
	uint64_t inserted;          /* rows inserted (dry run: would be) */
	/* the re-check (states MATCH and DIFFER) */
	uint64_t after_source_rows;
	uint64_t after_target_rows;
} rk_repair_interval;

typedef struct rk_repair_spec {
	/* The pair and what the re-check compares, as for `reckon check`: the
	 * source/target reader options, key, time, sum, columns, types and
	 * leaf_rows are used; the range, window, clock and findings are set
	 * per interval. */
	rk_check_spec check;
	const char *interval_column;   /* --interval-column, or NULL */
	bool execute;                  /* false: dry run */
} rk_repair_spec;

/*
 * Repairs (or, without execute, plans) the n intervals in order, filling
 * each one's state and counts as it goes.  Refuses a CSV target and checks
 * every named column before the first write (RK_EXIT_USAGE).
 *
 * Returns 0 when every interval was planned or replaced and re-checked
 * (whatever the re-checks said: see the states), -1 with err otherwise.
 * On -1 after the first write, the message says which intervals were
 * replaced and that the failing one was not changed (or may have been, when
 * the connection was lost during its COMMIT); intervals past it are PENDING.
 * The intervals are the caller's; the function only writes their results.
 */
int rk_repair_run(const rk_repair_spec *spec, rk_repair_interval *iv, size_t n, rk_error *err);

#endif
