#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rk_error_clear(rk_error *err)
{
	err->code = 0;
	err->field = -1;
	err->sqlstate[0] = '\0';
	err->msg[0] = '\0';
	err->hint[0] = '\0';
}

int rk_error_set(rk_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	err->hint[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int rk_error_hint(rk_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof err->hint, fmt, ap);
	va_end(ap);
	return -1;
}

int rk_error_prefix(rk_error *err, const char *fmt, ...)
{
	char prefix[512];
	char old[sizeof err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
	return -1;
}
