/*
 * target.h - the table a load writes into, one driver per kind of target,
 * as the readers have one per kind of side (io/reader.h): PostgreSQL
 * (target_pg.c) and Delta Lake (target_delta.c, `delta:PATH`).  The loader
 * (strategy.c) is written once over it; what differs between the kinds is
 * what a driver can do, which it says in its capabilities:
 *
 *   RK_TARGET_SPANS_WATERMARK  one transaction can hold the write and the
 *                              watermark update (PostgreSQL, and only when
 *                              the target is the watermark's database: the
 *                              loader proves that, rk_load_same_database)
 *   RK_TARGET_KEYED_REPLACE    a write can replace the target copies of the
 *                              keys it writes, atomically with the insert
 *   RK_TARGET_INTERVAL_REPLACE a write can replace the rows of an interval
 *                              (by an interval column or the time range)
 *   RK_TARGET_CHEAP_MAX_TIME   the newest time is known without reading the
 *                              rows (an index; a Delta table's stats)
 *   RK_TARGET_ROW_REPLACE      a write can replace the target rows of given
 *                              keys within an interval, and say before it
 *                              is made which files it removes
 *                              (rk_target_plan: Delta, for repair)
 *
 * One run: rk_target_open, then (target-watermark) rk_target_newest, then
 * rk_target_write (staged, not visible), rk_target_commit (visible at once,
 * or not at all), rk_target_close.  A process killed between write and
 * commit leaves no visible change: PostgreSQL rolls the transaction back; a
 * Delta write has written data files no log entry names.
 *
 * Layering: io/ (libpq, the Delta writer) and load/dest.h.
 */
#ifndef RK_LOAD_TARGET_H
#define RK_LOAD_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/timeutil.h"
#include "io/pg.h"
#include "io/sqltpl.h"
#include "load/dest.h"

enum {
	RK_TARGET_SPANS_WATERMARK = 1u << 0,
	RK_TARGET_KEYED_REPLACE = 1u << 1,
	RK_TARGET_INTERVAL_REPLACE = 1u << 2,
	RK_TARGET_CHEAP_MAX_TIME = 1u << 3,
	RK_TARGET_ROW_REPLACE = 1u << 4,
};

typedef enum rk_target_mode {
	RK_TARGET_APPEND,           /* insert the rows */
	RK_TARGET_REPLACE_KEYS,     /* remove the target copies of the keys written, insert */
	RK_TARGET_REPLACE_INTERVAL, /* remove the rows of the interval, insert */
	RK_TARGET_REPLACE_ROWS,     /* in the interval [start, end): remove the target rows holding one of
	                             * the keys given, insert the given rows holding one (ROW_REPLACE) */
} rk_target_mode;

typedef struct rk_target_plan rk_target_plan;

/* One write: what to write and what it replaces.  Strings borrowed. */
typedef struct rk_target_write_in {
	rk_target_mode mode;
	const rk_wmap *map; /* the target columns written (dest.h) */
	const rk_buf *rows; /* the rows, COPY text format, columns in map order */
	long nrows;
	bool has_interval; /* the run's data interval [start, end) ... */
	rk_usec start, end;
	bool closed;              /* ... or [start, end] (interval-closed) */
	long interval_col;        /* target column recording the interval start, or -1 */
	rk_usec interval_value;   /* RK_TARGET_REPLACE_ROWS: the value it records (else start) */
	const char *target_where; /* the user's filter on the target, or NULL */
	/* PostgreSQL: the SQL fragments of sql/load_*.sql, quoted */
	const rk_sqlvar *vars;
	size_t nvars;
	/* RK_TARGET_REPLACE_ROWS: the keys, COPY text format, the key columns
	 * in the map's key order (display texts, cast to the columns' types) */
	const rk_buf *keys;
	/* a plan of this write on this target (rk_target_plan), or NULL: the
	 * write then looks at every file the interval may touch */
	const rk_target_plan *plan;
	/* Delta: the commit's operation (NULL: "WRITE") and operationParameters */
	const char *operation;
	const char *strategy;
} rk_target_write_in;

/* One file a write removes (rk_target_plan). */
typedef struct rk_target_file {
	char *path;     /* as the log names it */
	long long rows; /* its live rows */
	long long gone; /* of which the write deletes (the others are rewritten into a new file) */
	size_t index;   /* the snapshot's file index */
} rk_target_file;

/* What a write would do, before it is made: the files it removes. */
struct rk_target_plan {
	long long version;     /* the snapshot the plan read */
	size_t files_read;     /* files whose stats reach the interval: read to find the rows */
	rk_target_file *files; /* the files holding a row the write deletes, in the snapshot's order */
	size_t nfiles;
	long long deleted;  /* rows deleted */
	long long inserted; /* rows of the write's own (a new file, when any) */
};

typedef struct rk_target rk_target;

/* True when conn names a target of a kind other than PostgreSQL's
 * default (delta:PATH). */
bool rk_target_is_delta(const char *conn);

/*
 * Opens the target: conn ("delta:PATH", else a PostgreSQL connection),
 * table (PostgreSQL: the table's name; Delta: unused), side for messages.
 * src_dest describes the source's columns: a Delta table that does not
 * exist yet is created from them by the first write (their PostgreSQL types
 * mapped to Delta types).  The caller owns *out (rk_target_close, also
 * after a failure).  Returns 0 or -1.
 */
int rk_target_open(const char *conn, const char *table, const rk_dest *src_dest, const char *partition_zone,
                   rk_target **out, rk_error *err);
void rk_target_close(rk_target *t);

/* "postgres" or "delta". */
const char *rk_target_kind(const rk_target *t);
/* RK_TARGET_* bits; SPANS_WATERMARK only says the kind can (PostgreSQL). */
unsigned rk_target_caps(const rk_target *t);
/* The target's columns (dest.h), valid until close. */
const rk_dest *rk_target_dest(const rk_target *t);
/* The PostgreSQL connection of a PostgreSQL target, else NULL: the
 * one-transaction strategy updates the watermark in it. */
rk_pg *rk_target_pg(rk_target *t);
/* A name for the load's advisory lock and messages: the table, or the path. */
const char *rk_target_display(const rk_target *t);

/*
 * The newest time column value among the target rows (the pair's:
 * target_where), minus lookback; RK_USEC_NINF for an empty target.  *how
 * says how it was found ("max() query", "the files' stats", "a scan of N
 * files").  time_col is the target column.  Returns 0 or -1.
 */
int rk_target_newest(rk_target *t, const rk_target_write_in *in, size_t time_col, rk_usec lookback, rk_usec *out,
                     const char **how, rk_error *err);

/*
 * Stages the write (not visible until rk_target_commit): PostgreSQL begins
 * a transaction, takes the target's write lock, stages and runs the
 * statements; Delta writes the data files.  *deleted and *written count
 * rows.  Returns 0 or -1.
 */
int rk_target_write(rk_target *t, const rk_target_write_in *in, long *deleted, long *written, rk_error *err);

/*
 * Plans the write in (RK_TARGET_ROW_REPLACE kinds; RK_TARGET_REPLACE_ROWS
 * or RK_TARGET_REPLACE_INTERVAL): which files it removes and how many rows
 * it deletes and inserts, changing nothing.  *out is the caller's
 * (rk_target_plan_free, also after a failure); pass it to the write as
 * in->plan so that the write reads only those files.  Another kind:
 * RK_EXIT_USAGE.  Returns 0 or -1.
 */
int rk_target_plan_write(rk_target *t, const rk_target_write_in *in, rk_target_plan *out, rk_error *err);
void rk_target_plan_free(rk_target_plan *p);

/* The version of the table the write reads (Delta), or -1 (no table yet;
 * PostgreSQL). */
long long rk_target_version(const rk_target *t);

/* Makes the write visible at once.  *version gets the Delta version
 * committed (-1: no commit, nothing changed; PostgreSQL: -1).  Returns 0 or -1. */
int rk_target_commit(rk_target *t, const rk_target_write_in *in, long long *version, rk_error *err);

#endif
