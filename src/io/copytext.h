/*
 * copytext.h - rows of PostgreSQL's COPY ... TO STDOUT text format.
 *
 * Fields are separated by tabs; "\N" alone is NULL; a backslash escapes the
 * next character (\b \f \n \r \t \v, \NNN octal, \xHH hex, anything else
 * stands for itself).  This is the PostgreSQL reader's hot path: it makes
 * one pass over the row and copies nothing unless a field holds a backslash.
 */
#ifndef RK_COPYTEXT_H
#define RK_COPYTEXT_H

#include <stddef.h>

#include "core/buf.h"
#include "core/types.h"

/*
 * Splits one row (without its newline) into exactly nfields fields.  A field
 * without backslashes points into row; a field with escapes is decoded into
 * scratch, which is reset and sized once per row so the pointers stay valid
 * until the next call (scratch belongs to the caller and is reused across
 * rows; no allocation once it has reached the longest escaped row).
 * Returns 0, or -1 with *why set to a static description (too many or too
 * few fields, a dangling backslash).
 */
int rk_copytext_split(const char *row, size_t len, rk_field *fields, size_t nfields, rk_buf *scratch,
                      const char **why);

/*
 * Appends one field in the same format, the way COPY ... FROM STDIN reads
 * it: backslash, tab, newline and carriage return escaped; p NULL is SQL
 * NULL ("\\N").  The other bytes go as they are (the encoding is the
 * connection's).
 */
void rk_copytext_put(rk_buf *b, const char *p, size_t len);

#endif
