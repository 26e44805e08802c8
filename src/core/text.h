/*
 * text.h - small text helpers shared by the layers.
 */
#ifndef RK_TEXT_H
#define RK_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "core/buf.h"

/* The value of one hex digit, or -1. */
static inline int rk_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * A column name as written on the command line, without SQL quoting:
 * "My Col" -> My Col ("" inside quotes is one quote); an unquoted name is
 * returned as written.  This is how CSV headers and the files reckon writes
 * name the column.  Returns a new string owned by the caller.
 */
char *rk_ident_unquote(const char *raw);

/*
 * The width text for a terminal is wrapped to: $COLUMNS when it is a
 * number of at least 40, else the terminal's when fd is one, else 80.
 */
size_t rk_text_width(int fd);

/*
 * Appends text word-wrapped at spaces to lines of at most width columns
 * (counted in UTF-8 characters): the first line after `first` columns
 * already used on it, the next ones each indented by indent spaces.  A word
 * longer than a line stays whole.  No newline after the last line.
 */
void rk_text_wrap(rk_buf *out, const char *text, size_t first, size_t indent, size_t width);

/* Writes s to out as one CSV field, quoted when it must be (a comma, quote,
 * CR or LF, or a space at either end); NULL writes nothing and the empty
 * string "", so that the two stay apart, as PostgreSQL's COPY CSV does. */
void rk_text_csv_field(FILE *out, const char *s);

/* Names longer than this are compared on their first RK_EDIT_DISTANCE_MAX
 * bytes (PostgreSQL identifiers are at most 63). */
#define RK_EDIT_DISTANCE_MAX 64

/* The Levenshtein distance of a and b, ignoring ASCII case: how "did you
 * mean" hints find the option, relation or column a user meant. */
size_t rk_edit_distance(const char *a, const char *b);

/*
 * Appends s[0..n) to out in a form that is safe to print on a terminal and
 * is valid UTF-8, whatever bytes s holds (messages quote file names, header
 * names and values from the data).  Printable ASCII and well-formed UTF-8
 * are kept as they are; tab, line feed and carriage return become \t \n \r;
 * every other ASCII control byte (ESC starts a terminal escape sequence),
 * DEL, and each byte that is not part of well-formed UTF-8 becomes \xHH;
 * the C1 controls and the bidirectional overrides (U+0080-U+009F,
 * U+202A-U+202E, U+2066-U+2069), which a terminal or an editor would act on,
 * become \uHHHH.  A NUL byte in s is escaped like any control byte.
 */
void rk_text_escape(rk_buf *out, const char *s, size_t n);
/* The length of the valid UTF-8 sequence at s (n bytes left, n >= 1), or
 * 0 when the bytes there are no UTF-8 (overlong forms, surrogates and code
 * points past U+10FFFF included). */
size_t rk_utf8_seq_len(const unsigned char *s, size_t n);
/* The length of text s[0..n) cut to at most max bytes, never inside a UTF-8
 * character (backs over the continuation bytes at the cut). */
size_t rk_utf8_cut(const char *s, size_t n, size_t max);

/* Appends s to out as one POSIX shell word: as it is when it holds only
 * characters no shell treats specially, else single-quoted (a ' inside as
 * '\''); the empty string is ''.  The commands reckon prints to paste (the
 * repair command, the scheduler commands of rerun-list --as). */
void rk_shell_word(rk_buf *out, const char *s);

#endif
