/*
 * log.h - diagnostics on stderr.  stdout and report files carry results only.
 * Levels: 0 errors and warnings (default), 1 info (-v), 2 debug (-vv, SQL text).
 * Every line is escaped as a whole before it is written (rk_text_escape in
 * core/text.h): call sites pass data bytes as they are.
 */
#ifndef RK_LOG_H
#define RK_LOG_H

#include "core/error.h"

extern int rk_log_level;

void rk_log_warn(const char *fmt, ...) RK_PRINTF(1, 2);
void rk_log_info(const char *fmt, ...) RK_PRINTF(1, 2);
void rk_log_debug(const char *fmt, ...) RK_PRINTF(1, 2);
/* "reckon: differ: ...": the one line a check that found differences
 * leaves on stderr (at every level), so that cron mails it. */
void rk_log_differ(const char *fmt, ...) RK_PRINTF(1, 2);

/* Prints an error record as "reckon: error: ..." plus "hint: ...". */
void rk_log_error(const rk_error *err);

#endif
