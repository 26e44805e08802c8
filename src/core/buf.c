#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void rk_oom(void)
{
	fputs("reckon: error: out of memory\n", stderr);
	abort();
}

void *rk_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		rk_oom();
	return p;
}

void *rk_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		rk_oom();
	return p;
}

void *rk_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		rk_oom();
	return q;
}

char *rk_xstrdup(const char *s)
{
	return rk_xstrndup(s, strlen(s));
}

char *rk_xstrndup(const char *s, size_t n)
{
	char *p = rk_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void rk_buf_grow(rk_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 64;

	if (b->data && b->cap - b->len >= n + 1)
		return; /* room already: rk_buf_printf asks every time */
	while (cap - b->len < n + 1)
		cap *= 2;
	b->data = rk_xrealloc(b->data, cap);
	b->cap = cap;
}

void rk_buf_free(rk_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void rk_buf_printf(rk_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	rk_buf_grow(b, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *rk_buf_cstr(rk_buf *b)
{
	if (b->cap == b->len)
		rk_buf_grow(b, 1);
	b->data[b->len] = '\0';
	return b->data;
}
