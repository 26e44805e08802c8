/*
 * buf.h - a growable byte buffer.  Reused across rows so the hot path does
 * not allocate once it has reached its working size.
 */
#ifndef RK_BUF_H
#define RK_BUF_H

#include <stddef.h>
#include <string.h>

typedef struct rk_buf {
	char *data; /* owned; NUL-terminated after rk_buf_cstr() */
	size_t len;
	size_t cap;
} rk_buf;

#define RK_BUF_INIT        \
	{                  \
		NULL, 0, 0 \
	}

/* Makes room for n more bytes; aborts the process on out-of-memory. */
void rk_buf_grow(rk_buf *b, size_t n);
void rk_buf_free(rk_buf *b);
/* Appends a printf-formatted string. */
void rk_buf_printf(rk_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
/* Ensures a terminating NUL (not counted in len) and returns data. */
const char *rk_buf_cstr(rk_buf *b);

static inline void rk_buf_reset(rk_buf *b)
{
	b->len = 0;
}

static inline void rk_buf_append(rk_buf *b, const void *p, size_t n)
{
	if (b->cap - b->len < n)
		rk_buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void rk_buf_putc(rk_buf *b, char c)
{
	if (b->cap == b->len)
		rk_buf_grow(b, 1);
	b->data[b->len++] = c;
}

static inline void rk_buf_puts(rk_buf *b, const char *s)
{
	rk_buf_append(b, s, strlen(s));
}

/* Out-of-memory is not recoverable for this tool. */
void *rk_xmalloc(size_t n);
void *rk_xcalloc(size_t n, size_t size);
void *rk_xrealloc(void *p, size_t n);
char *rk_xstrdup(const char *s);
char *rk_xstrndup(const char *s, size_t n);

#endif
