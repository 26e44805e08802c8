/*
 * pgreader_impl.h - what the files of the PostgreSQL reader share; not for
 * use outside them (and their unit tests).
 *
 * The reader is one driver (reader_impl.h) in four files, one job each:
 *   pgreader.c  the session (connect, snapshot, resolve the relation, the
 *               row filter), binding the columns, the scans and the key
 *               sample, the ops table
 *   pgsql.c     the SQL text of scans and pushdown statements, built from
 *               the bound columns alone: no libpq call (tests/unit/test_pgsql.c)
 *   pgdigest.c  the pushdown and drilldown digests: finding the reckon
 *               extension, running its statements
 *   pgprobe.c   what the diagnosis and reckon lateness ask of a source
 *   pglarge.c   large values out of band: the rows that hold one kept
 *               until the scan's COPY ends, their values read again then
 */
#ifndef RK_IO_PGREADER_IMPL_H
#define RK_IO_PGREADER_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/keyspace.h"
#include "core/types.h"
#include "io/copybin.h"
#include "io/pg.h"
#include "io/reader_impl.h"

/* More ranges than this become one [min, max) range filtered by the caller:
 * a long OR list costs the planner more than it saves. */
#define RK_PGREADER_MAX_RANGES 64

/* The most keys a scan asks the database for by value (rk_scan.key_text):
 * past that the condition costs the planner more than it saves. */
#define RK_PGREADER_MAX_KEYS 256

/* Set to "text" in the environment, readers never stream binary COPY: a
 * diagnostic switch (docs/runbook.md); the digests are the same either way. */
#define RK_PGREADER_COPY_FORMAT_ENV "RECKON_COPY_FORMAT"

/* reckon_window takes the hashed and summed columns as arguments, and a
 * function takes at most 100 (FUNC_MAX_ARGS): its transition function's
 * state and roles are two. */
#define RK_PGREADER_PUSHDOWN_MAX_COLS 98

/* A foreign leaf partition's digest statement has one branch per window
 * (rk_pgsql_digest_windows); past this many the leaf is grouped. */
#define RK_PGREADER_MAX_WINDOW_BRANCHES 512

/* The most parts one drilldown statement takes; more go in further
 * statements. */
#define RK_PGREADER_DRILL_PARTS 128

/* The size of the chunks a value sent out of band is read back in
 * (rk_pgsql_large_value), and the environment variable that sets another
 * (tests set it small to cut multibyte characters). */
#define RK_PGREADER_LARGE_CHUNK ((size_t)8 << 20)
#define RK_PGREADER_LARGE_CHUNK_ENV "RECKON_LARGE_CHUNK"

/* A bound of this many bytes or more is past what any value a row keeps in
 * line can hold, even compressed: such values live in the relation's TOAST
 * table, and when it is empty the scan sends none out of band (a CASE per
 * text column costs the server about 60 ns a row). */
#define RK_PGREADER_LARGE_TOASTED ((size_t)1 << 20)

/* A row kept until its scan's COPY ends (pglarge.c). */
typedef struct rk_pglate {
	size_t fields; /* its first field in rk_pgreader.late_fields */
	size_t bytes;  /* its fields' text and encodings in rk_pgreader.late_bytes, */
	size_t marker; /* ... then the marker ("tableoid ctid len..."), NUL-ended */
} rk_pglate;

typedef struct rk_pgreader {
	rk_pg *pg;
	char *side;      /* "source" / "target" */
	char *oid;       /* the relation's oid, as text for $1 */
	char relkind;    /* pg_class.relkind: 'r' table, 'p' partitioned, 'f' foreign, ... */
	char *display;   /* schema.name for messages */
	char *qualified; /* "schema"."name" for SQL (PQescapeIdentifier) */
	char *desc;      /* "source table mart.orders on host=... dbname=..." */
	char *snapshot;  /* exported snapshot id, when asked for */

	/* the side's mapping and filter (--source-expr, --source-where) */
	rk_reader_exprs expr; /* the side's mapping expressions */
	char *filter;         /* "(<where>\n)", or NULL */

	size_t ncols;    /* bound columns */
	char **cols;     /* their catalog names (an expression's: the logical name) */
	char **quoted;   /* ... as SQL: the quoted name, or "(<expression>\n)" */
	char **typnames; /* ... their declared types, to cast a bound value to (diagnosis) */
	rk_type *types;
	int *scales;      /* each column's declared scale (rk_type_scale), or -1 */
	rk_wire *wires;   /* each column's binary COPY form */
	bool binary_ok;   /* every column has one: digest passes stream binary */
	rk_copybin bin;   /* the binary scan in progress */
	rk_field *fields; /* one row's fields, reused for every row */
	rk_buf scratch;   /* unescaped field text, reused for every row */
	rk_buf sql;
	char label[160]; /* "scan of mart.orders" */

	bool broken; /* the transaction could not be recovered */

	/* pushdown digests (pgdigest.c) */
	int digest_state;    /* 0 not probed yet, 1 the reckon extension is usable, -1 not */
	char *digest_schema; /* its schema, quoted for SQL */
	bool has_windows;    /* it has reckon_windows (extension 1.2) */
	bool has_key_hash;   /* it has reckon_key_hash (extension 1.3): the drilldown
	                      * narrows in the database */
	char **leaves;       /* a partitioned table with foreign leaves: every leaf, */
	size_t nleaves;      /* quoted for SQL, aggregated one by one (else none) */
	bool *leaf_foreign;  /* ... and which of them are foreign tables */
	rk_error digest_why; /* why not, when digest_state is -1 */

	/* key segments: scans of column ks_col take ranges of ks's points */
	const rk_keyspace *ks;
	size_t ks_col;

	/* large values out of band (pglarge.c) */
	bool large_ok;          /* rows can be read again by tableoid and ctid: a
	                         * table, partitioned or not, or a materialized
	                         * view, with no foreign table under it, on a
	                         * UTF-8 server */
	int large_toast;        /* 0 not asked yet, 1 its (or its tables') TOAST
	                         * holds data, -1 not */
	size_t large_bound;     /* the scan in progress sends values of this many */
	const bool *large_cols; /* bytes or more of these columns out of band (0: none) */
	rk_pglate *lates;       /* its rows that hold one, */
	size_t nlates, caplates;
	rk_field *late_fields; /* ... their fields, ncols each (p, enc unset) */
	size_t caplate_fields;
	rk_buf late_bytes;  /* ... their bytes */
	rk_field *late_row; /* the row a late callback holds (ncols) */
	char *late_tid[2];  /* ... its tableoid and ctid, */
	rk_buf late_marker; /* ... in this copy of its marker */

	/* the scan in progress */
	rk_row_fn fn;
	void *ctx;
	uint64_t rows;
} rk_pgreader;

/* ------------------------------------------------------------------------
 * pgreader.c: the session
 * ---------------------------------------------------------------------- */

/* Clears the parts of err a reader's own message leaves unset (no field,
 * no SQLSTATE), before rk_error_set. */
void rk_pgreader_err(rk_error *err);

/* A statement of the user's SQL (what: "filter", "expression for column
 * x,") failed: the transaction goes back to the scan savepoint, and the
 * error is the user's to fix (RK_EXIT_USAGE, a hint to try it in psql),
 * unless the connection was lost.  Returns -1. */
int rk_pgreader_sql_error(rk_pgreader *r, const char *what, const char *sql, rk_error *err);

/* A failed statement aborted the transaction: back to the scan savepoint
 * (r->broken when even that fails). */
void rk_pgreader_recover(rk_pgreader *r);

/* The mapping expression of logical column name (catalog spelling): its
 * index in r->expr, or -1. */
long rk_pgreader_expr_of(const rk_pgreader *r, const char *name);

/* ------------------------------------------------------------------------
 * pgsql.c: statement text.  Each reads only the relation and its bound
 * columns (qualified, filter, ncols, quoted, types, ks, the extension's
 * digest_schema, has_windows, has_key_hash, leaves) and appends to sql;
 * none talks to the server.  Values are literals (COPY takes no
 * parameters), quoted as PQescapeLiteral quotes them for a UTF-8 session.
 * ---------------------------------------------------------------------- */

/* Appends v as a string literal: 'v' with quotes doubled, or, when v holds
 * a backslash, " E'v'" with backslashes doubled too (PQescapeLiteral's
 * form).  v is valid UTF-8. */
void rk_pgsql_literal(rk_buf *sql, const char *v);

/*
 * Appends the WHERE clause selecting scan's rows (nothing when the time
 * column has no time type, the side has no filter and no key is asked
 * for).  *empty is set, and nothing appended, when no row can be wanted (no
 * ranges, no NULL times).  Ranges with key bits (the reckon extension 1.3)
 * are taken one by one; others merge where they touch.
 */
void rk_pgsql_where(const rk_pgreader *r, const rk_scan *scan, rk_buf *sql, bool *empty);

/* The COPY statement of a scan into sql (reset first), in binary or text
 * format; *empty as for rk_pgsql_where. */
void rk_pgsql_scan(const rk_pgreader *r, const rk_scan *scan, bool binary, rk_buf *sql, bool *empty);

/* The arguments of reckon_window for a digest query: the hashed columns in
 * their order, each marked h (hashed) or b (hashed and summed), then the
 * summed columns that are not hashed (s).  Free col and roles. */
typedef struct rk_pgsql_wargs {
	size_t *col; /* argument a's column */
	char *roles; /* its letter: h hashed, b hashed and summed, s summed */
	size_t n;
} rk_pgsql_wargs;

void rk_pgsql_digest_args(const rk_digest_query *q, rk_pgsql_wargs *wa);

/* The window digests' COPY statement of q into sql (reset first), with
 * arguments wa; sets q->slices to 1 when it groups per window.  *empty as
 * for rk_pgsql_where. */
/* Whether bound column i of a scan is sent out of band when large: a
 * plain text column the scan's large_cols marks, of a reader that can
 * read its rows again (large_ok), with a bound a text can reach and, from
 * RK_PGREADER_LARGE_TOASTED up, a TOAST table holding data (large_toast). */
bool rk_pgsql_large_col(const rk_pgreader *r, const rk_scan *scan, size_t i);

/* The statement reading back the value of bound column col of the row
 * whose tableoid is $1 and ctid $2, in rows of chunks of $3 bytes (its
 * UTF-8 bytes, as COPY sends them), into sql (reset first). */
void rk_pgsql_large_value(const rk_pgreader *r, size_t col, rk_buf *sql);

/* Returns whether the statement groups the table's rows (GROUP BY over
 * them, or foreign leaves): only then the planner settings of
 * pushdown_plan_hash.sql matter. */
bool rk_pgsql_digest(const rk_pgreader *r, rk_digest_query *q, const rk_pgsql_wargs *wa, rk_buf *sql, bool *empty);

/* The drilldown's COPY statement of parts [at, end) of q into sql (reset
 * first). */
void rk_pgsql_drill(const rk_pgreader *r, const rk_drill_query *q, size_t at, size_t end, rk_buf *sql);

/* ------------------------------------------------------------------------
 * pglarge.c: large values out of band
 * ---------------------------------------------------------------------- */

/* Keeps a row of the scan in progress whose marker (field ncols) is not
 * NULL, to be handed to the late callback after the COPY. */
void rk_pglarge_keep(rk_pgreader *r, const rk_field *fields);

/* Hands the rows kept to fn (the scan's late callback), each with its large
 * values' fields f->large, then forgets them.  0 or -1 with err. */
int rk_pglarge_deliver(rk_pgreader *r, rk_row_fn fn, void *ctx, rk_error *err);

/* Forgets the rows kept; frees what the reader holds for them (at_end). */
void rk_pglarge_reset(rk_pgreader *r, bool at_end);

/* Asks once, when a scan may send values out of band, whether the TOAST
 * tables of the relation and of the tables under it hold data
 * (large_toast), and whether one of those is foreign (then large_ok goes
 * false: its rows cannot be read again).  0 or -1 with err. */
int rk_pglarge_probe(rk_pgreader *r, rk_error *err);

/* rk_reader_large_value's op. */
int rk_pgreader_large_value(void *impl, size_t col, rk_chunk_fn fn, void *ctx, uint64_t *total, rk_error *err);

/* ------------------------------------------------------------------------
 * the ops of pgdigest.c and pgprobe.c (reader.h has their contracts)
 * ---------------------------------------------------------------------- */

int rk_pgreader_digest(void *impl, rk_digest_query *q, rk_row_fn fn, void *ctx, rk_error *err);
int rk_pgreader_drill_digest(void *impl, const rk_drill_query *q, rk_row_fn fn, void *ctx, rk_error *err);

int rk_pgreader_commit_times(void *impl, const rk_key_query *q, rk_usec *commit, uint32_t *xid, bool *known,
                             rk_error *err);
int rk_pgreader_xact_rows(void *impl, const rk_xact_query *q, uint64_t *rows, rk_error *err);
int rk_pgreader_key_unique(void *impl, const size_t *key_index, size_t nkey, bool *unique, rk_error *err);
int rk_pgreader_open_xacts(void *impl, rk_usec before, const int *skip_pids, size_t nskip, rk_open_xacts *out,
                           rk_error *err);
int rk_pgreader_lateness(void *impl, const rk_lag_query *q, rk_lag_stats *all, rk_lag_stats *win, rk_error *err);
int rk_pgreader_watermark(const rk_reader_opts *o, const char *query, rk_usec *at, rk_error *err);

#endif
