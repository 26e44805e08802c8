#include "io/pgident.h"

#include "core/text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool rk_pgident_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Truncates like the server's truncate_identifier(): never inside a UTF-8
 * sequence. */
static void rk_pgident_truncate(char *s)
{
	s[rk_utf8_cut(s, strlen(s), RK_PGIDENT_MAXLEN)] = '\0';
}

static void rk_pgident_free_parts(char **parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(parts[i]);
		parts[i] = NULL;
	}
}

int rk_pgident_parse(const char *s, char **parts, size_t maxparts, size_t *nparts, const char **why)
{
	const char *p = s;
	size_t n = 0;

	*nparts = 0;
	for (;;) {
		rk_buf b = RK_BUF_INIT;

		while (rk_pgident_blank(*p))
			p++;
		if (n == maxparts) {
			rk_pgident_free_parts(parts, n);
			*why = maxparts == 1 ? "a column name cannot be qualified"
			                     : "too many dotted parts (write name or schema.name)";
			return -1;
		}
		if (*p == '"') {
			for (p++;; p++) {
				if (*p == '\0') {
					rk_buf_free(&b);
					rk_pgident_free_parts(parts, n);
					*why = "unterminated quoted name";
					return -1;
				}
				if (*p == '"') {
					if (p[1] != '"')
						break;
					p++;
				}
				rk_buf_putc(&b, *p);
			}
			p++;
			if (b.len == 0) {
				rk_buf_free(&b);
				rk_pgident_free_parts(parts, n);
				*why = "zero-length quoted name";
				return -1;
			}
			while (rk_pgident_blank(*p))
				p++;
		} else {
			const char *start = p;
			const char *end;

			while (*p && *p != '.' && *p != '"')
				p++;
			end = p;
			while (end > start && rk_pgident_blank(end[-1]))
				end--;
			for (const char *q = start; q < end; q++) {
				if (rk_pgident_blank(*q)) {
					rk_buf_free(&b);
					rk_pgident_free_parts(parts, n);
					*why = "an unquoted name cannot contain blanks (double-quote it)";
					return -1;
				}
				rk_buf_putc(&b, *q >= 'A' && *q <= 'Z' ? (char)(*q - 'A' + 'a') : *q);
			}
			if (*p == '"') {
				rk_buf_free(&b);
				rk_pgident_free_parts(parts, n);
				*why = "a quote inside an unquoted name (quote the whole part)";
				return -1;
			}
			if (b.len == 0) {
				rk_buf_free(&b);
				rk_pgident_free_parts(parts, n);
				*why = "empty name";
				return -1;
			}
		}
		parts[n] = rk_xstrdup(rk_buf_cstr(&b));
		rk_buf_free(&b);
		rk_pgident_truncate(parts[n]);
		n++;
		if (*p == '\0')
			break;
		if (*p != '.') {
			rk_pgident_free_parts(parts, n);
			*why = "unexpected text after a quoted name";
			return -1;
		}
		p++;
	}
	*nparts = n;
	return 0;
}

void rk_pgident_display(rk_buf *b, const char *name)
{
	bool plain = name[0] != '\0' && !(name[0] >= '0' && name[0] <= '9');

	for (const char *q = name; *q && plain; q++)
		plain = (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_' || *q == '$' ||
		        (unsigned char)*q >= 0x80;
	if (plain) {
		rk_buf_puts(b, name);
		return;
	}
	rk_buf_putc(b, '"');
	for (const char *q = name; *q; q++) {
		if (*q == '"')
			rk_buf_putc(b, '"');
		rk_buf_putc(b, *q);
	}
	rk_buf_putc(b, '"');
}
