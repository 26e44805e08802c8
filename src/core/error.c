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
	size_t plen, mlen;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	plen = strlen(prefix);
	if (plen + 2 >= sizeof err->msg)
		plen = sizeof err->msg - 3;
	mlen = strnlen(err->msg, sizeof err->msg - 1);
	if (plen + 2 + mlen >= sizeof err->msg)
		mlen = sizeof err->msg - 1 - plen - 2;
	memmove(err->msg + plen + 2, err->msg, mlen);
	memcpy(err->msg, prefix, plen);
	err->msg[plen] = ':';
	err->msg[plen + 1] = ' ';
	err->msg[plen + 2 + mlen] = '\0';
	return -1;
}
