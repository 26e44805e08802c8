/*
 * strategy.h - the loader module: one incremental load run with a named
 * strategy (docs/loader.md).  Several strategies are deliberately unsafe; they exist
 * so the lab can show what goes wrong, and `reckon load` refuses them
 * without --unsafe.
 */
#ifndef RK_LOAD_STRATEGY_H
#define RK_LOAD_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>

#include "check/check.h"
#include "core/error.h"
#include "core/timeutil.h"
#include "io/pg.h"

typedef enum rk_load_strategy {
	RK_LOAD_WATERMARK_FIRST = 0,
	RK_LOAD_WRITE_FIRST_APPEND,
	RK_LOAD_WRITE_FIRST_KEYED,
	RK_LOAD_ONE_TRANSACTION,
	RK_LOAD_INTERVAL,
	RK_LOAD_INTERVAL_CLOSED,
	RK_LOAD_TARGET_WATERMARK,
	RK_LOAD_NSTRATEGIES
} rk_load_strategy;

/* Fault injection points, in the order a run passes them. */
typedef enum rk_load_crash {
	RK_CRASH_NONE = 0,
	RK_CRASH_AFTER_READ,
	RK_CRASH_AFTER_WATERMARK_COMMIT,
	RK_CRASH_BEFORE_WRITE,
	RK_CRASH_INSIDE_TRANSACTION,
	RK_CRASH_AFTER_WRITE_COMMIT
} rk_load_crash;

/* Name <-> value; parse functions return 0 or -1 with a usage error that
 * lists the accepted names. */
int rk_load_strategy_parse(const char *name, rk_load_strategy *out, rk_error *err);
const char *rk_load_strategy_name(rk_load_strategy s);
int rk_load_crash_parse(const char *name, rk_load_crash *out, rk_error *err);
const char *rk_load_crash_name(rk_load_crash c);

/* NULL for a safe strategy, else one sentence saying what goes wrong. */
const char *rk_load_strategy_unsafe_reason(rk_load_strategy s);

/* Strategies keeping a watermark row in a watermark table. */
bool rk_load_strategy_has_watermark_table(rk_load_strategy s);
/* Strategies writing by key (delete the keys read, insert). */
bool rk_load_strategy_is_keyed(rk_load_strategy s);
/* Strategies reading a scheduler-assigned data interval. */
bool rk_load_strategy_is_interval(rk_load_strategy s);
/* True when a run of strategy s ever reaches crash point c. */
bool rk_load_strategy_passes(rk_load_strategy s, rk_load_crash c);

/* Everything one run needs; strings are borrowed from the caller. */
typedef struct rk_load_spec {
	/* The pair, as every table command gives it: source and target (conn,
	 * table, --source-expr/--target-expr mappings, --source-where/
	 * --target-where filters), key, time and --exclude-columns.  Both sides
	 * PostgreSQL. */
	const rk_check_spec *pair;
	const char *const *columns; /* --columns: write only these logical columns (key and
	                              * time always); none: the whole row (dest.h) */
	size_t ncolumns;
	rk_load_strategy strategy;
	const char *watermark_table; /* strategies with a watermark table */
	const char *load_name;
	rk_usec lookback; /* 0 = none */
	bool has_interval;
	rk_usec interval_start, interval_end;
	const char *interval_column; /* NULL = none */
	rk_load_crash crash_at;
	int report_fd; /* -1, or a descriptor receiving progress lines */
} rk_load_spec;

typedef struct rk_load_result {
	bool committed; /* the run committed something (a write or a watermark) */
	long rows_read;
	long rows_deleted; /* target rows replaced (keyed / interval writes) */
	long rows_written;
	bool has_watermark;
	rk_usec watermark;       /* the watermark after the run */
	const char *newest_from; /* target-watermark on a Delta target: "stats" or "scan" (static), else NULL */
	long long version;       /* a Delta target: the version committed, -1: none */
} rk_load_result;

/*
 * Checks the spec for contradictions (missing interval for an interval
 * strategy, a lookback on an append, a crash point the strategy never
 * reaches...).  Usage errors only; no connection is made.
 */
int rk_load_validate(const rk_load_spec *spec, rk_error *err);

/*
 * Runs one load.  Refuses one-transaction when the target is not the
 * watermark's database (RK_EXIT_USAGE), and, before anything is read, a
 * mapping the target cannot take or an uncovered NOT NULL target column
 * (dest.h).  The source side's expressions and filter shape what is read;
 * the target's filter limits what a keyed or interval write deletes.  A
 * SIGINT/SIGTERM caught by the guard (guard.h) before the run's first
 * commit rolls back and fails with code 128 + the signal; after it, the
 * run finishes its few remaining steps.  A lock wait longer than the
 * guard's timeout fails with RK_EXIT_RUNTIME naming the blocking sessions.  When report_fd >= 0, writes
 * "rows_read=N", "rows_written=N" and "watermark=TS" lines to it as soon as
 * each is known (unbuffered, so they survive a crash).  With crash_at set,
 * the process dies of SIGKILL at that point and this never returns.
 */
int rk_load_run(const rk_load_spec *spec, rk_load_result *res, rk_error *err);

/*
 * Sets *same to whether connections a and b reach the same database of the
 * same server (b sees a's session, tagged with a unique application_name,
 * in its own database's pg_stat_activity).  Changes a's application_name.
 */
int rk_load_same_database(rk_pg *a, rk_pg *b, bool *same, rk_error *err);

#endif
