/*
 * duck.h - the one wrapper around DuckDB (the embedded engine that reads
 * Parquet for the Delta reader).  Every database reckon opens comes from
 * rk_duck_open, so every one has the same settings:
 *
 *   - in memory, no database file; what it spills goes to its own
 *     directory under $TMPDIR (default /tmp), never the working directory;
 *   - extension autoloading and autoinstalling off, unsigned and community
 *     extensions refused: nothing reaches for the network (parquet, json
 *     and icu are built into the pinned library, tests/harness/duckdb.sh);
 *   - TimeZone UTC, so a TIMESTAMP WITH TIME ZONE prints, casts and
 *     truncates in UTC and a naive TIMESTAMP (Parquet INT96, timestamp_ntz)
 *     cast to TIMESTAMPTZ is taken as UTC, as the rest of reckon does;
 *   - the configuration locked afterwards: SQL that reaches DuckDB later
 *     (a user's --source-expr on a Delta side) cannot switch any of that
 *     back on (SET autoinstall_known_extensions=true is an error).
 *
 * Only src/io includes duckdb.h (through io/duckapi.h, which loads
 * libduckdb on first use: rk_duck_open); other layers get the handle types
 * from here.
 */
#ifndef RK_IO_DUCK_H
#define RK_IO_DUCK_H

#include "core/buf.h"
#include "core/error.h"
#include "io/duckapi.h"

typedef struct rk_duck rk_duck;

/*
 * Opens an in-memory database with the settings above and one connection,
 * loading libduckdb first if this process has not yet (rk_duckapi_load).
 * threads: DuckDB's worker threads (0: DuckDB's default, the core count).
 * Failure is RK_EXIT_RUNTIME with DuckDB's message, or the loader's.  The caller owns *out
 * (rk_duck_free).  Returns 0 or -1.
 */
int rk_duck_open(rk_duck **out, int threads, rk_error *err);

/* Closes the connection and the database; rk_duck_free(NULL) is harmless. */
void rk_duck_free(rk_duck *d);

/* The connection of d, owned by d: valid until rk_duck_free.  A
 * duckdb_connection is not for two threads at once (DuckDB parallelises
 * one query by itself: rk_duck_open's threads). */
duckdb_connection rk_duck_conn(rk_duck *d);

/*
 * Runs sql on con.  With res non-NULL the result is left in *res for the
 * caller (duckdb_destroy_result, also after a failure is harmless: *res is
 * destroyed here on failure); with res NULL the result is discarded.  On
 * failure err holds code (RK_EXIT_USAGE or RK_EXIT_RUNTIME, the caller's
 * judgement of what a failure of this statement means) and DuckDB's
 * message, prefixed by what ("reading the checkpoint").  Returns 0 or -1.
 */
int rk_duck_query(duckdb_connection con, const char *sql, duckdb_result *res, int code,
                  const char *what, rk_error *err);

/*
 * Runs sql, whose result has one VARCHAR column, and calls row(ctx, s, len)
 * for each row (s is NULL for a SQL NULL; not NUL-terminated, valid only
 * during the call), stopping at the first non-zero return, which is
 * returned (the callback fills err).  A failing query: code and DuckDB's
 * message prefixed by what.  Returns 0, the callback's value, or -1.
 */
int rk_duck_each_string(duckdb_connection con, const char *sql, int code, const char *what,
                        int (*row)(void *ctx, const char *s, size_t len, rk_error *err), void *ctx, rk_error *err);

/*
 * Appends s to out as a SQL string literal ('...' with ' doubled), for
 * file names in read_parquet([...]) and the like, where DuckDB takes no
 * bound parameter (a table function's list of files).
 */
void rk_duck_quote(rk_buf *out, const char *s);

/* Appends s as a quoted SQL identifier ("..." with " doubled). */
void rk_duck_quote_ident(rk_buf *out, const char *s);

#endif
