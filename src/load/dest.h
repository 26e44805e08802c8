/*
 * dest.h - the PostgreSQL table a command writes into (repair, load), and
 * which of its columns the rows of a table pair cover (docs/reference.md,
 * docs/repair.md "Which columns are written").
 *
 * A pair names logical columns; on each side a logical column is that
 * side's column of the same name unless the side maps it to a column or an
 * SQL expression (--source-expr / --target-expr NAME=SQL).  Writing a row
 * means: for every target column that carries a logical column the source
 * has, the source side's value of that logical column.  A target column
 * carries the logical column of its own name, or the one a target mapping
 * names it for as a bare column name (--target-expr name=full_name);
 * a target mapping that is an expression cannot be written.  The other
 * target columns are left to their defaults.
 *
 * Layering: io/ (libpq wrapper) and check/pair.h's name comparison only.
 */
#ifndef RK_LOAD_DEST_H
#define RK_LOAD_DEST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "io/pg.h"
#include "io/reader.h"

typedef struct rk_dest {
	rk_pg *pg;         /* borrowed */
	const char *side;  /* "target" or "source", for messages */
	char *oid;         /* as text, for $1 */
	char *display;     /* schema.name, for messages */
	char *qualified;   /* "schema"."name", for SQL */
	char relkind;      /* 'r', 'p', 'v', 'm', 'f' */
	size_t ncols;      /* every column, attnum order: */
	char **cols;       /*   catalog names */
	char **base;       /*   base type names (format_type, a domain's base) */
	bool *generated;   /*   computed by the server: never written */
	bool *identity;    /*   GENERATED ... AS IDENTITY: a value without a default */
	bool *has_default; /*   the column's default, or its domain's */
	bool *not_null;    /*   NOT NULL, or a NOT NULL domain */
} rk_dest;

/*
 * Resolves table (as written: "mart.orders", "\"My Schema\".t") on pg's
 * catalog the way a query would, and lists its columns.  write: the table
 * must be one (or a partitioned one), not a view or foreign table.  side
 * names it in messages.  Unknown table or not a table: RK_EXIT_USAGE.
 * Returns 0 (rk_dest_free frees, also after a failure) or -1 with err.
 */
int rk_dest_open(rk_dest *d, rk_pg *pg, const char *side, const char *table, bool write, rk_error *err);
void rk_dest_free(rk_dest *d);

/*
 * A destination without a PostgreSQL catalog (a Delta table, load/target.h):
 * d gets the columns names[0..n) with their type names types (copied) and
 * not_null flags (may be NULL: all nullable); pg stays NULL, and
 * rk_dest_quote quotes with double quotes.  display names it in messages.
 */
void rk_dest_init_columns(rk_dest *d, const char *side, const char *display, size_t n, const char *const *names,
                          const char *const *types, const bool *not_null);

/* The column a written name names (folded as PostgreSQL folds), or -1. */
long rk_dest_column(const rk_dest *d, const char *written);

/* The column an SQL expression is when it is a bare column name, or -1. */
long rk_dest_bare(const rk_dest *d, const char *sql);

/* Sets err's hint to "T has N columns: a, b, ...". */
void rk_dest_hint_columns(const rk_dest *d, rk_error *err);

/* Column i quoted for SQL (new string), or NULL with err. */
char *rk_dest_quote(const rk_dest *d, size_t i, rk_error *err);

/*
 * The enabled logical-replication subscriptions that write into the table,
 * as "'name' (state)" joined by ", " in *names (new string, NULL when
 * none).  Returns 0 or -1 with err.
 */
int rk_dest_subscriptions(const rk_dest *d, char **names, rk_error *err);

/*
 * Takes the table's write lock inside pg's open transaction: the one lock
 * repair and load both take on their target, so that they exclude each
 * other and concurrent repairs serialise (sql/write_lock.sql; held until
 * the transaction ends).  When another session holds it, warns that cmd
 * ("repair", "load") waits, and waits (at most the session's lock_timeout).
 * Returns 0 or -1 with err (a lock timeout: SQLSTATE 55P03).
 */
int rk_dest_lock(const rk_dest *d, const char *cmd, rk_error *err);

/* One written column: a target column and where its value comes from. */
typedef struct rk_wcol {
	size_t tcol;   /* the target column (rk_dest index) */
	char *logical; /* the logical column it carries, as written */
	char *bind;    /* the name the source reader binds for it */
	long sexpr;    /* the source's mapping of it (index), or -1 */
	long scol;     /* else the source's column of that name (index) */
} rk_wcol;

typedef struct rk_wmap {
	rk_wcol *c; /* in the target's column order */
	size_t n;
	size_t time; /* the time column among them */
	size_t *key; /* the key columns among them, in key order */
	size_t nkey;
} rk_wmap;

typedef struct rk_wmap_in {
	const char *cmd; /* "repair" or "load", for messages */
	const rk_dest *target;
	long interval_col;                 /* a target column written by the command itself, or -1 */
	const rk_reader_opts *source;      /* the source side: its mappings */
	const rk_reader_opts *target_side; /* the target side: its mappings */
	char *const *src_cols;             /* the source's columns (catalog names, or a CSV header) */
	size_t nsrc;
	bool src_csv;
	const char *src_desc;   /* the source, for messages */
	const char *const *key; /* logical key columns */
	size_t nkey;
	const char *time;           /* logical time column */
	const char *const *only;    /* when given, write only these logical columns (and */
	size_t nonly;               /* the key and time): load --columns */
	const char *const *exclude; /* logical columns not written (--exclude-columns) */
	size_t nexclude;
} rk_wmap_in;

/*
 * Decides which target columns are written and from what.  Refuses with
 * RK_EXIT_USAGE, naming it: a target mapping that is an expression for a
 * logical column the source has; a key or time column that is not written
 * (missing on a side, generated, or the interval column); a target column
 * that no logical column covers and that is NOT NULL without a default.
 * Returns 0 (rk_wmap_free frees, also after a failure) or -1 with err.
 */
int rk_wmap_build(const rk_wmap_in *in, rk_wmap *out, rk_error *err);
void rk_wmap_free(rk_wmap *m);

#endif
