/*
 * report_impl.h - what the report's writers share (report.c, html.c,
 * metrics.c).  Not for use outside src/report/.
 */
#ifndef RK_REPORT_IMPL_H
#define RK_REPORT_IMPL_H

#include "check/check.h"
#include "core/buf.h"

/* "match", "differ" or "open". */
const char *rk_report_status_name(rk_win_status s);

/* How many windows have status s. */
size_t rk_report_count_status(const rk_check_result *r, rk_win_status s);

#endif
