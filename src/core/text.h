/*
 * text.h - small text helpers shared by the layers.
 */
#ifndef RK_TEXT_H
#define RK_TEXT_H

#include <stddef.h>

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

/* Names longer than this are compared on their first RK_EDIT_DISTANCE_MAX
 * bytes (PostgreSQL identifiers are at most 63). */
#define RK_EDIT_DISTANCE_MAX 64

/* The Levenshtein distance of a and b, ignoring ASCII case: how "did you
 * mean" hints find the option, relation or column a user meant. */
size_t rk_edit_distance(const char *a, const char *b);

/* The length of the valid UTF-8 sequence at s (n bytes left, n >= 1), or
 * 0 when the bytes there are no UTF-8 (overlong forms, surrogates and code
 * points past U+10FFFF included). */
size_t rk_utf8_seq_len(const unsigned char *s, size_t n);

#endif
