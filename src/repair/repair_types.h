/*
 * repair_types.h - the types of a `reckon repair` run (repair.h): its spec,
 * its intervals and their states, and what it touched, Delta commits
 * included.  Below both repair.h and repair_delta.h, so that repair.c can
 * hand a Delta target to repair_delta.c while repair_delta.c needs none of
 * repair.h (no include cycle, issue 24).
 */
#ifndef RK_REPAIR_TYPES_H
#define RK_REPAIR_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/spec.h"
#include "core/timeutil.h"

/* What happened to one interval, in the order a run moves through them. */
typedef enum rk_repair_state {
	RK_REPAIR_PENDING = 0, /* not reached (the run stopped earlier) */
	RK_REPAIR_FAILED,      /* its transaction failed and was rolled back: untouched */
	RK_REPAIR_UNKNOWN,     /* the connection was lost during COMMIT: done or untouched */
	RK_REPAIR_ALREADY,     /* it matched when checked first: left alone */
	RK_REPAIR_PLANNED,     /* dry run: counted, nothing changed */
	RK_REPAIR_COMMITTED,   /* replaced; the re-check failed to run */
	RK_REPAIR_MATCH,       /* replaced and the re-check matches */
	RK_REPAIR_DIFFER       /* replaced, but the re-check still differs */
} rk_repair_state;

typedef struct rk_repair_interval {
	rk_usec start, end; /* [start, end), from the rerun list */
	rk_repair_state state;
	uint64_t source_rows;     /* source rows of [start, end) read and staged */
	uint64_t deleted_by_time; /* target rows in [start, end) deleted (dry run: would be) */
	uint64_t deleted_by_key;  /* target rows outside it holding one of its source keys */
	uint64_t inserted;        /* rows inserted (dry run: would be) */
	uint64_t updated;         /* rows updated in place (row-level repair; dry run: would be),
	                             * moved in from another window included */
	uint64_t moved;           /* of those, rows moved in from outside the interval */
	uint64_t reset;           /* --replace-interval dry run: rows deleted and inserted again, their
	                             * target-only columns (rk_repair_result.reset_columns) reset */
	char reset_keys[160];     /* up to three of their keys, blank-separated ("" when none) */
	/* the re-check (MATCH, DIFFER), or the first check (ALREADY) */
	uint64_t after_source_rows;
	uint64_t after_target_rows;
	/* a key segment (spec.check.time NULL): [key_start, key_end) of the
	 * first key column, key texts (NULL: an open end), the caller's; start
	 * and end unused.  Its deletes are counted in deleted_by_time. */
	const char *key_start, *key_end;
} rk_repair_interval;

/* A window outside the list whose target rows an interval's delete by key
 * removed (a stale copy of a key that moved windows), on the grid of that
 * interval: [start + k * width, ...). */
typedef struct rk_repair_touched {
	rk_usec start, end;
	size_t interval;       /* the interval whose delete reached it (the last one) */
	uint64_t deleted;      /* target rows it lost (dry run: would lose) */
	rk_repair_state state; /* PLANNED, MATCH, DIFFER, or COMMITTED (not re-checked) */
	uint64_t after_source_rows, after_target_rows;
} rk_repair_touched;

/* A file of a Delta target an interval's commit removes (docs/delta.md):
 * its rows but the deleted ones are added back as a new file. */
typedef struct rk_repair_dfile {
	char *path;       /* as the log names it; owned */
	uint64_t rows;    /* its live rows */
	uint64_t deleted; /* of which the commit deletes */
} rk_repair_dfile;

/* One interval's Delta commit (planned, made, or found unneeded). */
typedef struct rk_repair_delta {
	size_t interval;          /* the interval (index of the caller's) */
	long long read_version;   /* the table version it was checked and planned on */
	long long version;        /* the version committed; -1: none (dry run, nothing to change, failed) */
	size_t files_read;        /* files whose stats reach the interval, read to plan it */
	rk_repair_dfile *removed; /* owned */
	size_t nremoved;
	size_t files_added; /* the rewritten files, and one of the source's rows when it adds any */
} rk_repair_delta;

typedef struct rk_repair_result {
	rk_repair_touched *touched; /* in time order; owned */
	size_t ntouched;
	uint64_t null_time_deleted; /* rows with a NULL time the deletes by key removed */
	char *reset_columns;        /* --replace-interval: the target-only columns an inserted row takes
	                             * its default in, ", "-joined; NULL when none; owned */
	rk_repair_delta *delta;     /* a Delta target: the intervals planned or replaced, in order; owned */
	size_t ndelta;
} rk_repair_result;

typedef struct rk_repair_spec {
	/* The pair and what the checks compare, as for `reckon check`: the
	 * reader options (mappings and filters included), key, time, sum,
	 * columns, exclude, types and leaf_rows are used, and settle and now
	 * say which intervals are closed; the range and window are set per
	 * interval. */
	rk_check_spec check;
	const char *interval_column; /* --interval-column, or NULL */
	rk_usec load_interval;       /* --load-interval: the load's interval width, or 0 (then the
	                                * value is taken from the target's rows of the interval) */
	bool replace_interval;       /* --replace-interval: replace whole intervals, not rows */
	bool allow_cascade;          /* --allow-cascade: deletes may reach referencing rows */
	bool execute;                /* false: dry run */
	bool allow_open;             /* --allow-open: open intervals too */
	bool force;                  /* --force: a target a subscription writes into */
} rk_repair_spec;

#endif
