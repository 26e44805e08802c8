/*
 * pgident.h - SQL identifiers as a user writes them on the command line.
 *
 * PostgreSQL's rules, applied on the client so the catalog can be queried
 * with bound parameters instead of pasting names into SQL: a name is one or
 * more parts separated by '.'; an unquoted part has its ASCII letters folded
 * to lower case; a "double quoted" part is kept exactly, with "" standing for
 * one quote.  Like the server, names longer than 63 bytes are truncated (at a
 * UTF-8 character boundary).
 */
#ifndef RK_PGIDENT_H
#define RK_PGIDENT_H

#include <stddef.h>

#include "core/buf.h"

#define RK_PGIDENT_MAXLEN 63 /* NAMEDATALEN - 1 */

/*
 * Parses s into 1..maxparts parts ("orders", "mart.orders", "\"My Table\"",
 * "\"s\".\"t.x\"").  Blanks around a part are ignored; an unquoted part may
 * not contain blanks.  On success parts[0..*nparts) are new strings owned by
 * the caller (free() each).  Returns 0, or -1 with *why set to a static
 * description of the problem (nothing is allocated then).
 */
int rk_pgident_parse(const char *s, char **parts, size_t maxparts, size_t *nparts, const char **why);

/*
 * Appends name to b for messages, double-quoted when reading it back through
 * rk_pgident_parse would not give the same name (upper case, blanks, dots,
 * quotes...).  For display only: SQL text uses PQescapeIdentifier.
 */
void rk_pgident_display(rk_buf *b, const char *name);

#endif
