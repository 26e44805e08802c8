#include "core/text.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/buf.h"

char *rk_ident_unquote(const char *raw)
{
	size_t n = strlen(raw);
	char *out, *o;

	if (n < 2 || raw[0] != '"' || raw[n - 1] != '"')
		return rk_xstrdup(raw);
	out = o = rk_xmalloc(n);
	for (size_t i = 1; i + 1 < n; i++) {
		*o++ = raw[i];
		if (raw[i] == '"' && raw[i + 1] == '"')
			i++;
	}
	*o = '\0';
	return out;
}

size_t rk_edit_distance(const char *a, const char *b)
{
	size_t row[RK_EDIT_DISTANCE_MAX + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > RK_EDIT_DISTANCE_MAX)
		la = RK_EDIT_DISTANCE_MAX;
	if (lb > RK_EDIT_DISTANCE_MAX)
		lb = RK_EDIT_DISTANCE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));

			if (up + 1 < cost)
				cost = up + 1;
			if (row[j - 1] + 1 < cost)
				cost = row[j - 1] + 1;
			row[j] = cost;
			diag = up;
		}
	}
	return row[lb];
}

/* The length of the well-formed UTF-8 sequence at s[0..n) that starts with a
 * byte >= 0x80, with its code point in *cp; 0 when it is not one (RFC 3629:
 * no overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t rk_text_utf8(const unsigned char *s, size_t n, unsigned long *cp)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len;

	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
		*cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		*cp = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		*cp = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	*cp = *cp << 6 | (s[1] & 0x3F);
	for (size_t i = 2; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3F);
	}
	return len;
}

void rk_text_escape(rk_buf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned char c = p[i];
		unsigned long cp;
		size_t k;

		if (c >= 0x20 && c < 0x7F) {
			/* the common case: a run of printable ASCII in one append */
			for (k = i + 1; k < n && p[k] >= 0x20 && p[k] < 0x7F; k++)
				;
			rk_buf_append(out, s + i, k - i);
			i = k;
			continue;
		}
		if (c == '\t' || c == '\n' || c == '\r') {
			rk_buf_putc(out, '\\');
			rk_buf_putc(out, c == '\t' ? 't' : c == '\n' ? 'n'
			                                             : 'r');
			i++;
			continue;
		}
		if (c < 0x80 || (k = rk_text_utf8(p + i, n - i, &cp)) == 0) {
			rk_buf_printf(out, "\\x%02x", c);
			i++;
			continue;
		}
		if (cp <= 0x9F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
			rk_buf_printf(out, "\\u%04lx", cp);
		else
			rk_buf_append(out, s + i, k);
		i += k;
	}
}

size_t rk_utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned long cp;

	return s[0] < 0x80 ? 1 : rk_text_utf8(s, n, &cp);
}

void rk_shell_word(rk_buf *out, const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:/=+@%-";

	if (*s && strspn(s, plain) == strlen(s)) {
		rk_buf_puts(out, s);
		return;
	}
	rk_buf_putc(out, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			rk_buf_puts(out, "'\\''");
		else
			rk_buf_putc(out, *p);
	}
	rk_buf_putc(out, '\'');
}

size_t rk_text_width(int fd)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;

	if (cols && *cols) {
		char *end;
		unsigned long n = strtoul(cols, &end, 10);

		if (!*end && n >= 40 && n <= 100000)
			return (size_t)n;
	}
	if (isatty(fd) == 1 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 80;
}

/* Columns of p[0..n): its UTF-8 characters. */
static size_t rk_text_cols(const char *p, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)p[i] & 0xc0) != 0x80;
	return c;
}

void rk_text_wrap(rk_buf *out, const char *text, size_t first, size_t indent, size_t width)
{
	const char *p = text;
	size_t used = first;
	bool start = true;

	while (*p) {
		const char *w = p;
		size_t n, cols;

		while (*w == ' ')
			w++;
		if (!*w)
			break;
		n = strcspn(w, " ");
		cols = rk_text_cols(w, n);
		if (!start && used + 1 + cols > width) {
			rk_buf_putc(out, '\n');
			for (size_t i = 0; i < indent; i++)
				rk_buf_putc(out, ' ');
			used = indent;
		} else if (!start) {
			rk_buf_putc(out, ' ');
			used++;
		}
		rk_buf_append(out, w, n);
		used += cols;
		start = false;
		p = w + n;
	}
}

size_t rk_utf8_cut(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

void rk_text_csv_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!*s || strpbrk(s, ",\"\r\n") || s[0] == ' ' || s[strlen(s) - 1] == ' ') {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
		return;
	}
	fputs(s, out);
}
