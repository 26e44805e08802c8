#include "core/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

int rk_log_level = 0;

static pthread_mutex_t rk_log_lock = PTHREAD_MUTEX_INITIALIZER;

static void rk_log_v(const char *level, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&rk_log_lock);
	fprintf(stderr, "reckon: %s: ", level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&rk_log_lock);
}

void rk_log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rk_log_v("warning", fmt, ap);
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
	pthread_mutex_lock(&rk_log_lock);
	if (err->sqlstate[0])
		fprintf(stderr, "reckon: error: %s (SQLSTATE %s)\n", err->msg, err->sqlstate);
	else
		fprintf(stderr, "reckon: error: %s\n", err->msg);
	if (err->hint[0])
		fprintf(stderr, "hint: %s\n", err->hint);
	pthread_mutex_unlock(&rk_log_lock);
}
