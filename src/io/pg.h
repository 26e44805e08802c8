/*
 * pg.h - the libpq wrapper.  The io/ layer is the only one that includes
 * libpq-fe.h; everything else talks to PostgreSQL through this interface.
 *
 * Every failure fills an rk_error with what failed, where (the redacted
 * conninfo), the server's own message and its SQLSTATE.  Passwords never
 * appear in any message.  SQL text is logged at debug level only.
 */
#ifndef RK_PG_H
#define RK_PG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"

typedef struct rk_pg rk_pg;
typedef struct rk_pg_result rk_pg_result;

/* The shape of result a statement is expected to return; any other shape
 * is an error, never a silent zero. */
typedef enum rk_pg_expect {
	RK_PG_COMMAND, /* no rows (DDL, INSERT/UPDATE/DELETE without RETURNING, SET, BEGIN...) */
	RK_PG_ONE_ROW, /* exactly one row */
	RK_PG_ANY_ROWS /* zero or more rows */
} rk_pg_expect;

/*
 * Connects and pins reckon's session settings (TimeZone=UTC, DateStyle=ISO,
 * extra_float_digits=3, client_encoding=UTF8, application_name=reckon).
 * what names the connection's role in messages ("source", "target",
 * "audit", ...).  Connection failure is RK_EXIT_RUNTIME; the message names
 * the redacted conninfo and carries libpq's text.
 * Returns a new connection owned by the caller (rk_pg_close), or NULL.
 */
rk_pg *rk_pg_connect(const char *conninfo, const char *what, rk_error *err);

/* Closes the connection; NULL is harmless. */
void rk_pg_close(rk_pg *pg);

/* The conninfo with any password replaced by "********"; owned by pg. */
const char *rk_pg_describe(const rk_pg *pg);

/* "host=... port=... dbname=..." of the established session (what libpq
 * actually connected to, whatever form the conninfo had); never holds a
 * password.  Owned by pg. */
const char *rk_pg_location(const rk_pg *pg);

/* Redacts a conninfo string or URI into out (always NUL-terminated). */
void rk_pg_redact(const char *conninfo, char *out, size_t outsz);

/*
 * A conninfo or URI rewritten as "key=value" pairs without the secrets
 * libpq knows of (password, sslpassword: the keywords PQconndefaults marks
 * as secret), for a file a user keeps (reckon init): the connection then
 * takes its password from ~/.pgpass or a service file.  Appends to out.
 * Returns 0, or -1 with err (RK_EXIT_USAGE) when libpq cannot parse it.
 */
int rk_pg_conninfo_public(const char *conninfo, rk_buf *out, rk_error *err);

/*
 * Runs one statement with text parameters (values[i] NULL = SQL NULL) and
 * checks its result against expect.  On success *res (when res is not NULL)
 * receives the result, owned by the caller (rk_pg_result_free).  On failure
 * the server's message, detail and SQLSTATE are in err (RK_EXIT_RUNTIME,
 * or RK_EXIT_USAGE for SQLSTATE classes 42 and 22 raised by user-named
 * objects, at the caller's discretion via rk_pg_error_is_usage()).
 * label is a short name of the statement for messages ("resolve table").
 */
int rk_pg_exec(rk_pg *pg, const char *label, const char *sql, int nparams, const char *const *values,
               rk_pg_expect expect, rk_pg_result **res, rk_error *err);

/*
 * One statement with text parameters whose rows come one at a time (libpq's
 * single-row mode) in binary form: fn gets each row's first value as its
 * type's send function makes it (a bytea's bytes; NULL, 0 for SQL NULL), so
 * a result of many large rows is never held whole.  When fn returns -1 the
 * rest is read and dropped and its error returned.  0 or -1 with err.
 */
typedef int (*rk_pg_value_fn)(void *ctx, const char *p, size_t len, rk_error *err);
int rk_pg_rows_binary(rk_pg *pg, const char *label, const char *sql, int nparams, const char *const *values,
                      rk_pg_value_fn fn, void *ctx, rk_error *err);

/* Whether the server's encoding is UTF8 (its text is COPY's bytes as they
 * are, and octet_length counts them). */
bool rk_pg_server_utf8(const rk_pg *pg);

/* Convenience for statements without parameters and without a result. */
int rk_pg_command(rk_pg *pg, const char *label, const char *sql, rk_error *err);

/* Several statements of constant text, none returning rows, sent as one
 * simple-protocol message: one round trip (the last one's result, or the
 * first error, decides).  Nothing is bound, and no transaction settings
 * are added after a BEGIN among them: the script sets its own. */
int rk_pg_script(rk_pg *pg, const char *label, const char *sql, rk_error *err);

/* One statement returning one row whose first value is a number (a count);
 * SQL NULL reads as 0. */
int rk_pg_exec_long(rk_pg *pg, const char *label, const char *sql, int nparams, const char *const *values,
                    long *out, rk_error *err);

int rk_pg_result_rows(const rk_pg_result *r);
int rk_pg_result_cols(const rk_pg_result *r);
/* The text of a value; NULL for SQL NULL.  Owned by the result. */
const char *rk_pg_result_value(const rk_pg_result *r, int row, int col);
void rk_pg_result_free(rk_pg_result *r);
/* The type oid and type modifier of a result column (how a statement
 * describes what it returns, rows or not). */
unsigned rk_pg_result_type(const rk_pg_result *r, int col);
int rk_pg_result_typmod(const rk_pg_result *r, int col);

/* Quotes an identifier (PQescapeIdentifier) into a new string owned by the
 * caller (free()).  Schema-qualified names are handled by rk_pg_quote_qualified. */
char *rk_pg_quote_ident(rk_pg *pg, const char *ident, rk_error *err);
/* Escapes a literal (PQescapeLiteral, quotes included); caller frees. */
char *rk_pg_quote_literal(rk_pg *pg, const char *value, rk_error *err);

/*
 * COPY ... TO STDOUT streaming.  Calls fn once per row with the raw row bytes
 * (text format, without the trailing newline).  Stops when fn returns -1.
 */
typedef int (*rk_pg_copy_fn)(void *ctx, const char *row, size_t len, rk_error *err);
int rk_pg_copy_out(rk_pg *pg, const char *label, const char *sql, rk_pg_copy_fn fn, void *ctx, rk_error *err);
/* The same for COPY ... TO STDOUT (FORMAT binary): fn gets each CopyData
 * message as it is (the server sends one per row, the file header with the
 * first and the trailer with the last, but the protocol does not promise
 * that: the caller reassembles). */
int rk_pg_copy_out_binary(rk_pg *pg, const char *label, const char *sql, rk_pg_copy_fn fn, void *ctx,
                          rk_error *err);

/*
 * COPY ... FROM STDIN: rk_pg_copy_in_begin sends the statement, then
 * rk_pg_copy_in_put sends data, rk_pg_copy_in_end finishes and checks the
 * result.  On error the COPY is aborted.
 */
int rk_pg_copy_in_begin(rk_pg *pg, const char *label, const char *sql, rk_error *err);
int rk_pg_copy_in_put(rk_pg *pg, const char *data, size_t len, rk_error *err);
int rk_pg_copy_in_end(rk_pg *pg, rk_error *err);
/* Aborts a COPY FROM STDIN begun with rk_pg_copy_in_begin (why goes to the
 * server log); the statement fails, the connection stays usable.  Harmless
 * when no COPY is in progress. */
void rk_pg_copy_in_abort(rk_pg *pg, const char *why);

/* Asks the server to cancel the statement pg is running, if any (the
 * statement then fails with SQLSTATE 57014).  Safe to call from another
 * thread while pg is in use; 0 when the request was sent. */
int rk_pg_cancel(rk_pg *pg);

/* The server process id of this session (for lab / fault tests). */
int rk_pg_backend_pid(const rk_pg *pg);

/* True when the error's SQLSTATE is of class 42 (undefined object,
 * insufficient privilege...) or 22 (data exception): the error
 * rk_pg_error_is_usage() in rk_pg_exec's contract, for callers that ran a
 * statement on objects the user named and want exit status 2. */
bool rk_pg_error_is_usage(const rk_error *err);

/* True when the error's SQLSTATE says the session or server went away
 * (class 08, 57P01..57P03), so callers can say "connection lost". */
bool rk_pg_error_is_connection(const rk_error *err);

#endif
