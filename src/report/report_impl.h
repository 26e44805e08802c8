/*
 * report_impl.h - what the report's writers share (report.c, html.c,
 * metrics.c).  Not for use outside src/report/.
 */
#ifndef RK_REPORT_IMPL_H
#define RK_REPORT_IMPL_H

#include "check/result.h"
#include "check/spec.h"
#include "core/buf.h"
#include "core/timeutil.h"

/* "match", "differ" or "open". */
const char *rk_report_status_name(rk_win_status s);

/* How many windows have status s. */
size_t rk_report_count_status(const rk_check_result *r, rk_win_status s);

/* The window as every output names it: as given with --timezone ("1mo",
 * whose width is no duration), else the width ("1h"), written into out. */
const char *rk_report_window(const rk_check_spec *sp, char out[RK_TIME_STRLEN]);

#endif
