/*
 * reader.h - one side of a table pair: a PostgreSQL relation or CSV data,
 * each read by its driver (reader_impl.h).
 *
 * A reader is opened once, bound to the list of columns the check needs,
 * and then scanned one or more times (the drilldown re-reads ranges).  A
 * PostgreSQL reader holds one connection with reckon's own session settings
 * and one REPEATABLE READ READ ONLY transaction for its whole life, so all
 * scans see the same snapshot.  A reader is used by one thread at a time.
 */
#ifndef RK_READER_H
#define RK_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/keyspace.h"
#include "core/timeutil.h"
#include "core/types.h"

typedef struct rk_reader rk_reader;

/*
 * What a kind of source can do.  Code outside src/io asks these
 * (rk_reader_has, rk_conn_has), never which kind a reader is: a new kind of
 * source is one driver file plus one line in reader.c's list of drivers.
 */
enum {
	RK_CAP_TYPED = 1u << 0,        /* bind fills each column's type (a catalog, a schema); without
	                               * it the caller assigns types (the other side, --types) */
	RK_CAP_SQL_NAMES = 1u << 1,    /* column names are SQL identifiers, folded as a query folds
	                               * them; without it they match as a header does: exactly,
	                               * else uniquely ignoring case */
	RK_CAP_EXPRESSIONS = 1u << 2,  /* takes SQL of its own: --source-expr, --source-where */
	RK_CAP_RELATION = 1u << 3,     /* reads a named relation: needs --table */
	RK_CAP_RANGE_SCAN = 1u << 4,   /* a scan reads its ranges alone, not the whole data */
	RK_CAP_CANON_INTS = 1u << 5,   /* integers arrive in their canonical text (digest.md) */
	RK_CAP_PUSHDOWN = 1u << 6,     /* may compute window and drilldown digests itself */
	RK_CAP_COMMIT_TIMES = 1u << 7, /* may know when each row was committed (diagnosis, lateness) */
	RK_CAP_LIBPQ = 1u << 8,        /* the conn is a libpq conninfo: reckon's own SQL runs there
	                               * (--watermark-query) and repair/ write there; without it
	                               * the conn is a path, which holds no password */
	RK_CAP_HISTORY = 1u << 9,      /* keeps a log of the commits that wrote it (a Delta table):
	                               * rk_reader_history */
	RK_CAP_KEY_RANGES = 1u << 10,  /* scans take ranges of key points (rk_reader_keyspace), or
	                               * deliver every row: key segments can read it */
};

/*
 * A driver's own setting, as the option that gave it ({"csv-delimiter",
 * ";"}): settings stay with the driver that reads them, not in the common
 * options.  A driver ignores the settings it does not read.
 */
typedef struct rk_reader_setting {
	const char *name;
	const char *value;
} rk_reader_setting;

#define RK_READER_MAX_SETTINGS 8

typedef struct rk_reader_opts {
	const char *side;  /* "source" or "target": used in every message */
	const char *conn;  /* libpq conninfo / URI, or PREFIX:PATH of another driver ("csv:PATH") */
	const char *table; /* relation name, schema-qualified allowed (RK_CAP_RELATION) */
	rk_reader_setting settings[RK_READER_MAX_SETTINGS];
	size_t nsettings;
	const char *const *expr_names; /* RK_CAP_EXPRESSIONS: logical columns this side computes */
	const char *const *expr_sql;   /* ... with these SQL expressions (--source-expr) */
	size_t nexpr;
	const char *where;    /* RK_CAP_EXPRESSIONS: only the rows this SQL condition holds
	                         * for (--source-where), or NULL */
	bool export_snapshot; /* export the snapshot (rk_reader_snapshot), if the driver can */
	const char *snapshot; /* read in this exported snapshot instead of taking a new one
	                         * (parallel readers of one side) */
} rk_reader_opts;

/* The value of setting name in o, or NULL when not given. */
const char *rk_reader_setting_of(const rk_reader_opts *o, const char *name);

/* Adds setting name = value to o (value NULL: nothing).  Returns 0, or -1
 * when o holds RK_READER_MAX_SETTINGS already. */
int rk_reader_setting_add(rk_reader_opts *o, const char *name, const char *value);

/* Whether the driver conn names has every capability in caps (a NULL conn
 * names the PostgreSQL driver, as an empty conninfo does). */
bool rk_conn_has(const char *conn, unsigned caps);

/* What the driver conn names reads, for messages: "CSV data", "a
 * PostgreSQL table". */
const char *rk_conn_noun(const char *conn);

/* A called-back row: fields in the order of the bound columns.  Return 0 to
 * continue, -1 (with err filled, err->field set to the offending field index
 * when one field is to blame) to stop the scan with that error. */
typedef int (*rk_row_fn)(void *ctx, const rk_field *fields, rk_error *err);

typedef struct rk_range {
	rk_usec from; /* inclusive */
	rk_usec to;   /* exclusive */
} rk_range;

/* The rows of a range whose key hash (the XXH3-128 of the key's encoding,
 * digest.md) has hval in its low bits bits (0 bits: every row). */
typedef struct rk_keybits {
	uint32_t bits;
	uint64_t hval;
} rk_keybits;

typedef struct rk_scan {
	size_t time_index;      /* index of the time column among the bound columns */
	const rk_range *ranges; /* sorted, disjoint; rows are wanted when their time is in one */
	size_t nranges;
	bool include_null_time; /* also deliver rows whose time is NULL */
	bool binary;            /* the caller takes every rk_form: a PostgreSQL
	                              * reader may then stream binary COPY */
	/*
	 * Optional narrowing for the drilldown.  A reader may apply either in the
	 * database or ignore it and deliver more rows: the callback filters, so
	 * they only ever save work.
	 */
	const size_t *key_index; /* the key columns (bound column indexes), in --key order */
	size_t nkey;
	const rk_keybits *keybits;   /* per range, or NULL: only rows whose key hash matches
	                              * (a PostgreSQL reader with the reckon extension 1.3) */
	const char *const *key_text; /* nkeys keys of nkey display texts each (the key as
	                              * findings show it; NULL entry: SQL NULL): only rows
	                              * holding one of these keys */
	size_t nkeys;
	bool serial; /* read by one process: a PostgreSQL reader plans the statement
	              * without parallel workers (session_scan_serial.sql) */
	/*
	 * Large values out of band (docs/performance.md "Large values"): a
	 * reader that can re-read a row in its snapshot (a PostgreSQL table)
	 * sends a text value of large_bound bytes or more of a column large_cols
	 * marks not in its row but on demand: the rows holding one go to late
	 * (fn when NULL) after every other row of the scan, with such a field
	 * f->large, and the late callback reads its bytes with
	 * rk_reader_large_value.  0: every value in its row.
	 */
	size_t large_bound;
	const bool *large_cols; /* per bound column */
	rk_row_fn late;
} rk_scan;

/*
 * Opens a reader.  For PostgreSQL: connects, pins TimeZone=UTC,
 * DateStyle=ISO, extra_float_digits=3, client_encoding=UTF8, starts the
 * REPEATABLE READ READ ONLY transaction and resolves the table (error 2
 * listing similar relations when it does not exist; error 3 when the server
 * cannot be reached, with the password redacted).  For "csv:PATH": checks the
 * file or directory (*.csv, name order) and reads the header(s).
 * Returns a new reader owned by the caller (rk_reader_free), or NULL.
 */
rk_reader *rk_reader_open(const rk_reader_opts *o, rk_error *err);

/* Whether reader r has every capability in caps. */
bool rk_reader_has(const rk_reader *r, unsigned caps);

/* "source table mart.orders on host=... dbname=..." / "source csv:PATH";
 * never shows a password.  Owned by the reader. */
const char *rk_reader_describe(const rk_reader *r);

/*
 * Binds the columns the caller wants, in this order.  Fills types[i] from the
 * catalog (PostgreSQL) or RK_T_UNKNOWN (CSV: the caller assigns types from the
 * other side or --types).  An unknown column is error 2 naming it and listing
 * the columns that exist.  Call before any scan; binding again replaces the columns bound before.
 */
int rk_reader_bind(rk_reader *r, const char *const *columns, size_t ncolumns, rk_type *types, rk_error *err);

/*
 * The scale bound column col is declared with, from the catalog typmod of a
 * PostgreSQL column or the described type of an expression (rk_type_scale:
 * numeric(12,2) gives 2, integers 0); -1 when it declares none (an
 * unconstrained numeric, CSV data).  For showing sums as people expect.
 */
int rk_reader_scale(const rk_reader *r, size_t col);

/*
 * Streams the rows selected by scan to fn.  A reader may deliver rows outside
 * the ranges (a CSV reader delivers every row); the callback filters.  For
 * CSV, an error returned by fn is prefixed with "FILE:LINE:COLUMN" using
 * err->field.  Returns 0 or -1.
 */
int rk_reader_scan(rk_reader *r, const rk_scan *scan, rk_row_fn fn, void *ctx, rk_error *err);

/* The bytes of field col of the row a late callback of rk_reader_scan is
 * handed (f[col].large, f[col].len of them), read in chunks in the
 * reader's snapshot and given to fn in order.  Only during that callback.
 * Returns 0, or -1 with err - also when other than len bytes came (its
 * message names the column as name). */
typedef int (*rk_chunk_fn)(void *ctx, const char *p, size_t len, rk_error *err);
int rk_reader_large_value(rk_reader *r, size_t col, const char *name, size_t len, rk_chunk_fn fn, void *ctx,
                          rk_error *err);

/* The data files and bytes this reader's scans have read so far, for
 * readers that read files (a Delta table); false (and zeros) for others. */
bool rk_reader_io(const rk_reader *r, uint64_t *files, uint64_t *bytes);

/*
 * Lists every column the relation has (PostgreSQL, attnum order) or the
 * header of the first CSV file holds, as plain names.  *names is a new
 * array of new strings owned by the caller (free each, then the array).
 */
int rk_reader_columns(rk_reader *r, char ***names, size_t *n, rk_error *err);

/*
 * The relation's primary key columns as plain names, in the key's order;
 * *n is 0 when it has none (and for CSV data).  *names is a new array of
 * new strings owned by the caller.
 */
int rk_reader_primary_key(rk_reader *r, char ***names, size_t *n, rk_error *err);

/*
 * Window digests computed by the server (reckon check --pushdown).  The rows
 * are those scan selects; the server groups them by window index
 * (instant - from) / width, in bigint arithmetic as the client computes it,
 * and hashes and sums them with the reckon extension (docs/pushdown.md).
 */
typedef struct rk_digest_query {
	const rk_scan *scan;      /* which rows, as for rk_reader_scan */
	const size_t *hash_index; /* the hashed columns (bound column indexes), in --columns order */
	size_t nhash;
	const size_t *sum_index; /* the summed columns (integer or numeric) */
	size_t nsum;
	rk_usec from, width; /* the window grid */
	size_t slices;       /* in: groups wanted per slice, width / slices wide
	                              * (a power of two dividing width; 0 or 1: per window);
	                              * out: 1 when the reader grouped per window instead */
} rk_digest_query;

/*
 * Runs q and calls fn once per group with 3 + nsum fields: the window index
 * (decimal, in slices when q->slices stays above 1; NULL for the group of
 * rows whose time is NULL), the row count,
 * the window hash (32 hex digits), then each column's exact sum as numeric
 * text (NULL when the group has no non-NULL value).  The groups come in no
 * particular order.  Returns 0, or -1 on error, or 1 when this reader cannot
 * compute digests (a CSV reader, or a database without the reckon extension
 * in the version this client needs): err then says why, with a hint, as an
 * RK_EXIT_USAGE error the caller may report or pass over.
 */
int rk_reader_digest(rk_reader *r, rk_digest_query *q, rk_row_fn fn, void *ctx, rk_error *err);

/*
 * Sub-digests for the drilldown, computed by the server: each part is the
 * rows of [lo, hi) (and, with bits, of one key-hash value) split into
 * pieces by time - piece (instant - lo) / width - or, when width is 0, by
 * the next more bits of the key hash - piece (hash >> bits) & (2^more - 1).
 */
typedef struct rk_drill_part {
	rk_usec lo, hi;
	rk_keybits keybits;
	rk_usec width;
	uint32_t more;
} rk_drill_part;

typedef struct rk_drill_query {
	size_t time_index;
	const size_t *hash_index; /* the hashed columns, in --columns order */
	size_t nhash;
	const size_t *key_index; /* the key columns, in --key order */
	size_t nkey;
	const rk_drill_part *parts;
	size_t nparts;
} rk_drill_query;

/*
 * Runs q and calls fn once per piece that has rows with 6 fields: the
 * part's index, the piece's, its row count, its hash (32 hex digits, the
 * hashed columns' row hashes added as for a window), its smallest and
 * largest instant (decimal microseconds).  With no parts it only says
 * whether this reader can: 0 yes, 1 no (err says why, as rk_reader_digest
 * does), -1 on error.
 */
int rk_reader_drill_digest(rk_reader *r, const rk_drill_query *q, rk_row_fn fn, void *ctx, rk_error *err);

/*
 * Key segments (core/keyspace.h): from now on, a scan whose time_index is
 * col reads its ranges as points of ks on that column (ks stays the
 * caller's, and must outlive the reader's scans).  A driver without range
 * scans ignores it (it delivers every row).
 */
void rk_reader_keyspace(rk_reader *r, size_t col, const rk_keyspace *ks);

/*
 * About one value of bound column col in every `every` rows of the side
 * (its mapping and filter applied; NULLs left out), drawn from the whole
 * relation, each to fn as a row of one field, in no order; *rows is the
 * side's estimated row count.  Nothing is drawn when that is below
 * min_rows.  Returns 0, -1 on error, or 1 when this reader cannot draw a
 * sample (CSV data, a view): *rows is then 0.
 */
int rk_reader_sample(rk_reader *r, size_t col, uint64_t every, uint64_t min_rows, uint64_t *rows, rk_row_fn fn,
                     void *ctx, rk_error *err);

/*
 * Lets go of the reader's snapshot: the next scan sees the data as it is
 * then, as a reader opened then would (a PostgreSQL reader ends its
 * transaction, and with it the locks its scans took, and begins another;
 * a reader of files keeps what it opened).
 * The bound columns stay bound.  So one reader serves checks one after
 * another, each in a snapshot of its own, without connecting again
 * (repair's checks).  Not for a reader whose exported snapshot others
 * share.  Returns 0 or -1.
 */
int rk_reader_renew(rk_reader *r, rk_error *err);

/* The id of the snapshot exported at open (opts.export_snapshot), valid
 * while r lives; NULL for CSV readers or when not exported. */
const char *rk_reader_snapshot(const rk_reader *r);

/*
 * What the diagnosis asks of a source (check/diagnose.h).  Each returns 0,
 * -1 with err on a failure, or 1 when this reader cannot tell (CSV data, a
 * setting that is off, a relation without the system column): err then says
 * why, as an RK_EXIT_USAGE error the caller reports as a fact, not a failure.
 * A failed statement leaves the reader's transaction usable.
 */

/* Rows asked for by key: nrows keys of nkey values each, as the drilldown
 * shows them (rk_finding.key: NULL = SQL NULL, never found), each only
 * where its time lies in [lo[i], hi[i]] when lo and hi are given: so that
 * the time column's index finds them when no index serves the key, and a
 * key the source holds elsewhere too is not confused with these rows. */
typedef struct rk_key_query {
	const size_t *key_index; /* the key columns (bound column indexes) */
	size_t nkey;
	const char *const *values; /* [nrows * nkey], row-major */
	size_t nrows;
	size_t time_index;      /* the time column (bound column index) */
	const rk_usec *lo, *hi; /* [nrows], or NULL: any time */
} rk_key_query;

/*
 * The commit time (pg_xact_commit_timestamp of the row's xmin, with
 * track_commit_timestamp = on) of the row holding each key of q (in its
 * time span), compared with the key columns' own types; the latest when
 * several rows hold it.
 * commit[i], xid[i] (that row's xmin) and known[i] are filled for every row
 * of q (known false: no row, or a transaction whose commit time was not
 * kept).  Returns 1 when the
 * server keeps no commit times; with no rows in q, only that is asked
 * (0: it keeps them).
 */
int rk_reader_commit_times(rk_reader *r, const rk_key_query *q, rk_usec *commit, uint32_t *xid, bool *known,
                           rk_error *err);

/* Transactions asked about by their xmin (xid, as rk_reader_commit_times
 * gives it): for each, how many source rows, up to cap[i], it wrote with a
 * time in [lo[i], hi[i]], within the side's row filter. */
typedef struct rk_xact_query {
	const uint32_t *xid;    /* [n] */
	const rk_usec *lo, *hi; /* [n] */
	const uint64_t *cap;    /* [n] */
	size_t n;
	size_t time_index; /* the time column (bound column index) */
} rk_xact_query;

/* rows[i] for each transaction of q; 1 when this reader cannot tell. */
int rk_reader_xact_rows(rk_reader *r, const rk_xact_query *q, uint64_t *rows, rk_error *err);

/* Whether a primary key or a unique index of the relation (valid, not
 * partial, on plain columns) makes the key columns unique.  Returns 1 for
 * CSV data. */
int rk_reader_key_unique(rk_reader *r, const size_t *key_index, size_t nkey, bool *unique, rk_error *err);

/* Transactions open on the reader's database (pg_stat_activity), other
 * than the sessions skip_pids lists. */
typedef struct rk_open_xacts {
	uint64_t count;      /* sessions in a transaction that began before `before` */
	rk_usec oldest;      /* the oldest such transaction's start */
	int oldest_pid;      /* ... and its session */
	char oldest_app[64]; /* ... its application_name (may be empty) */
	bool sees_all;       /* the role may see every role's sessions (pg_read_all_stats) */
} rk_open_xacts;
int rk_reader_open_xacts(rk_reader *r, rk_usec before, const int *skip_pids, size_t nskip, rk_open_xacts *out,
                         rk_error *err);

/* The server process id of the reader's session; 0 for CSV data. */
int rk_reader_backend_pid(const rk_reader *r);

/*
 * reckon lateness: the commit lag (commit time - time column, in seconds)
 * of the rows of [from, to), in one statement: per window of the grid and
 * overall, its percentiles over the rows whose commit time is known, and
 * how many of those lag more than each margin.
 */
#define RK_LAG_MAX_MARGINS 8
typedef struct rk_lag_query {
	size_t time_index; /* the time column (bound column index) */
	rk_usec from, to, width;
	const rk_usec *bounds; /* calendar windows (--timezone): window w is [bounds[w],
	                        * bounds[w + 1]), from = bounds[0], to = bounds[nbounds - 1];
	                        * NULL: windows of width from from */
	size_t nbounds;
	const rk_usec *margins; /* at most RK_LAG_MAX_MARGINS */
	size_t nmargins;
} rk_lag_query;

typedef struct rk_lag_stats {
	uint64_t rows;                       /* rows in the range (window) */
	uint64_t known;                      /* ... whose commit time is known */
	double p50, p90, p99, p999, max;     /* seconds, over the known ones (0 when none) */
	uint64_t missed[RK_LAG_MAX_MARGINS]; /* known ones lagging more than margins[k] */
} rk_lag_stats;

/* Fills *all and win[w] for every window w of the grid (the caller sizes
 * win: (to - from) / width entries, or nbounds - 1, zeroed).  Returns 1 when the server keeps
 * no commit times. */
int rk_reader_lateness(rk_reader *r, const rk_lag_query *q, rk_lag_stats *all, rk_lag_stats *win, rk_error *err);

/*
 * The history of ranges (RK_CAP_HISTORY): per range, the commits of the
 * table's log whose add actions put in files that hold rows of it, and
 * those whose remove actions took such files out, judged by each file's
 * statistics (or partition value) of the time column, read the way the
 * scans skip files.  A file without statistics of the time column may hold
 * rows of any range: it is counted apart (added_unknown ...).
 */
typedef struct rk_touch {
	/* -1: the files of the checkpoint the history starts at (added at or
	 * before rk_history.base) */
	int64_t version;
	char *operation;   /* commitInfo's ("WRITE", "DELETE"...); "" when none */
	rk_usec time;      /* the commit's time; RK_USEC_NINF for version -1 */
	bool time_of_file; /* the commit names no time: its file's modification time */
	/* files whose statistics place rows in the range; files without
	 * statistics of the time column */
	uint32_t added, removed;
	uint32_t added_unknown, removed_unknown;
	/* the rows of the files counted in added (their numRecords: the whole
	 * files, not only the range's); -1 when one has none */
	int64_t rows_added;
} rk_touch;

typedef struct rk_range_history {
	rk_range range;
	rk_touch *touch; /* ascending version; only commits that touched the range */
	size_t ntouch;
	uint32_t live;         /* files of the snapshot whose statistics place rows in it */
	uint32_t live_unknown; /* files of the snapshot without statistics of the time column */
} rk_range_history;

typedef struct rk_history {
	int64_t version; /* the snapshot the ranges were read at */
	int64_t first;   /* the oldest commit read (0, or the base checkpoint's + 1) */
	/* -1: the history starts at version 0; else the checkpoint it starts
	 * from (older commits were cleaned up) */
	int64_t base;
	size_t ncommits;          /* commits read */
	rk_range_history *ranges; /* [nranges], in the order asked */
	size_t nranges;
} rk_history;

/*
 * Fills *out (a new history, rk_history_free) for ranges[0..nranges) of
 * bound column time_index.  Returns 0; 1 (err saying why, RK_EXIT_USAGE)
 * when the reader keeps no history or cannot place its files in time (a
 * time column mapped by an expression); -1 on error.
 */
int rk_reader_history(rk_reader *r, size_t time_index, const rk_range *ranges, size_t nranges, rk_history **out,
                      rk_error *err);

/* Frees h; rk_history_free(NULL) is harmless. */
void rk_history_free(rk_history *h);

/*
 * --watermark-query: runs query, the user's SQL as written, on the source
 * o->conn names, in a read-only transaction of its own, before any reader
 * of that side is opened (the watermark claims that every source row at or
 * before it is in the target, so it is read before either side's
 * snapshot).  *at is the one timestamp the query returns, RK_USEC_NINF when
 * it is NULL (no watermark yet).  Returns 0; -1 on error (a query that
 * fails, or whose result is not one row of one timestamp: RK_EXIT_USAGE);
 * 1 when that kind of source runs no SQL of reckon's (RK_CAP_LIBPQ), err
 * then saying so (RK_EXIT_USAGE).
 */
int rk_reader_watermark(const rk_reader_opts *o, const char *query, rk_usec *at, rk_error *err);

/* Ends the transaction, closes the connection / files.  NULL is harmless. */
void rk_reader_free(rk_reader *r);

#endif
