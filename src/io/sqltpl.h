/*
 * sqltpl.h - fills user-named identifiers into statements from sql/.
 *
 * Statements that name the user's tables and columns are kept in sql/ with
 * psql's variable syntax, so each file still runs as-is in psql
 * (psql -v target_table=fact -f sql/load_insert.sql):
 *   :"name"   an identifier (psql quotes it; here the caller's quoted text)
 *   :name     a fragment (a column list) the caller built from quoted
 *             identifiers
 * Values are never substituted: they stay $1, $2 parameters and are bound.
 * "::" casts, string literals and comments are left alone.
 */
#ifndef RK_IO_SQLTPL_H
#define RK_IO_SQLTPL_H

#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "io/pg.h"

typedef struct rk_sqlvar {
	const char *name; /* without the colon */
	const char *sql;  /* already quoted SQL text */
} rk_sqlvar;

/*
 * Renders tpl into out (reset first, NUL-terminated).  A placeholder with no
 * variable is a programmer error reported as RK_EXIT_RUNTIME naming it.
 */
int rk_sql_render(rk_buf *out, const char *tpl, const rk_sqlvar *vars, size_t nvars, rk_error *err);

/*
 * A user's row condition (--source-where, --target-where) as a term of a
 * WHERE clause: in parentheses, the closing one on a line of its own so that
 * a trailing "--" comment ends before it; "true" when where is NULL or
 * empty.  A new string the caller frees.
 */
char *rk_sql_filter(const char *where);

/*
 * Quotes a possibly schema-qualified name as PostgreSQL reads it (io/pgident.h:
 * unquoted parts fold to lower case; "mart.orders" -> "mart"."orders").
 * Returns a new string the caller frees, or NULL with err.
 */
char *rk_sql_quote_name(rk_pg *pg, const char *name, rk_error *err);

/*
 * Quotes each item and joins them with ", ", each optionally prefixed by
 * prefix (e.g. "t." -> t."a", t."b").  Returns a new string the caller frees,
 * or NULL with err.
 */
char *rk_sql_quote_list(rk_pg *pg, char *const *items, size_t n, const char *prefix, rk_error *err);

#endif
