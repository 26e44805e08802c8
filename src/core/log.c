#include "core/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/text.h"

int rk_log_level = 0;

static pthread_mutex_t rk_log_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Every line reckon writes to stderr goes through here, so this is the one
 * place that makes it safe: messages quote file names, CSV headers, keys
 * and values, which may hold terminal escapes or bytes that are not UTF-8.
 * The text is formatted first and then escaped as a whole (rk_text_escape),
 * so no call site needs to think about it; the line is written in one go
 * under the lock so threads do not interleave.
 */
static void rk_log_line(rk_buf *line, const char *prefix, const char *text, size_t n, const char *suffix)
{
	rk_buf_puts(line, prefix);
	rk_text_escape(line, text, n);
	rk_buf_puts(line, suffix);
}

static void rk_log_v(const char *level, const char *fmt, va_list ap) RK_PRINTF(2, 0);

static void rk_log_v(const char *level, const char *fmt, va_list ap)
{
	rk_buf text = RK_BUF_INIT, line = RK_BUF_INIT;
	char head[32];
	int n;
	va_list aq;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n > 0) {
		rk_buf_grow(&text, (size_t)n + 1);
		vsnprintf(text.data, (size_t)n + 1, fmt, ap);
		text.len = (size_t)n;
	}
	snprintf(head, sizeof head, "reckon: %s: ", level);
	rk_log_line(&line, head, text.data ? text.data : "", text.len, "\n");
	pthread_mutex_lock(&rk_log_lock);
	fwrite(line.data, 1, line.len, stderr);
	pthread_mutex_unlock(&rk_log_lock);
	rk_buf_free(&text);
	rk_buf_free(&line);
}

void rk_log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rk_log_v("warning", fmt, ap);
	va_end(ap);
}

void rk_log_differ(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rk_log_v("differ", fmt, ap);
	va_end(ap);
}

void rk_log_info(const char *fmt, ...)
{
	va_list ap;

	if (rk_log_level < 1)
		return;
	va_start(ap, fmt);
	rk_log_v("info", fmt, ap);
	va_end(ap);
}

void rk_log_debug(const char *fmt, ...)
{
	va_list ap;

	if (rk_log_level < 2)
		return;
	va_start(ap, fmt);
	rk_log_v("debug", fmt, ap);
	va_end(ap);
}

void rk_log_error(const rk_error *err)
{
	rk_buf line = RK_BUF_INIT;

	rk_log_line(&line, "reckon: error: ", err->msg, strnlen(err->msg, sizeof err->msg), "");
	if (err->sqlstate[0])
		rk_log_line(&line, " (SQLSTATE ", err->sqlstate, strnlen(err->sqlstate, sizeof err->sqlstate), ")");
	rk_buf_putc(&line, '\n');
	if (err->hint[0])
		rk_log_line(&line, "hint: ", err->hint, strnlen(err->hint, sizeof err->hint), "\n");
	pthread_mutex_lock(&rk_log_lock);
	fwrite(line.data, 1, line.len, stderr);
	pthread_mutex_unlock(&rk_log_lock);
	rk_buf_free(&line);
}
