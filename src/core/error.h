/*
 * error.h - one error record, filled where a failure happens.
 *
 * Functions that can fail return 0 on success and -1 on failure, after
 * filling the rk_error their caller passed in.  Callers only propagate
 * (optionally adding context with rk_error_prefix); main() prints the record
 * once and exits with its code.
 */
#ifndef RK_ERROR_H
#define RK_ERROR_H

#include <stddef.h>

#if defined(__GNUC__)
#define RK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RK_PRINTF(a, b)
#endif

/* Exit statuses, the same for every command (docs/reference.md). */
enum rk_exit {
	RK_EXIT_OK = 0,     /* everything matches / succeeded */
	RK_EXIT_DIFFER = 1, /* differences found */
	RK_EXIT_USAGE = 2,  /* usage, configuration or input error */
	RK_EXIT_RUNTIME = 3 /* connection, query, I/O failure */
};

typedef struct rk_error {
	int code;         /* RK_EXIT_USAGE or RK_EXIT_RUNTIME once set; 0 = no error */
	int field;        /* index of the offending field in a row callback, or -1 */
	char sqlstate[6]; /* server SQLSTATE when the failure came from PostgreSQL */
	char msg[1536];   /* lowercase, no trailing period */
	char hint[768];   /* optional: what the user can do about it */
} rk_error;

/* Resets err to "no error". */
void rk_error_clear(rk_error *err);

/* Sets code and message (replacing any previous one); returns -1 so callers
 * can write "return rk_error_set(...)". */
int rk_error_set(rk_error *err, int code, const char *fmt, ...) RK_PRINTF(3, 4);

/* Sets the hint; returns -1. */
int rk_error_hint(rk_error *err, const char *fmt, ...) RK_PRINTF(2, 3);

/* Prepends context to the message: "<context>: <old message>"; returns -1. */
int rk_error_prefix(rk_error *err, const char *fmt, ...) RK_PRINTF(2, 3);

#endif
