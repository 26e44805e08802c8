/*
 * status.h - the windows' status as every output names and counts it,
 * shared by the report's writers (report.c, files.c, html.c, metrics.c).
 * Not for use outside src/report/.  status.c also holds the outcome in one
 * phrase that report.h declares (rk_report_brief, rk_report_job_counts,
 * rk_report_thousands), which html.c uses too: so neither report.c nor
 * html.c needs the other's code but for report.html itself.
 */
#ifndef RK_REPORT_STATUS_H
#define RK_REPORT_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include "check/check.h"
#include "core/buf.h"
#include "core/timeutil.h"

/* "match", "differ" or "open". */
const char *rk_report_status_name(rk_win_status s);

/* How many windows have status s. */
size_t rk_report_count_status(const rk_check_result *r, rk_win_status s);

/* Whether window w goes on the rerun list: it is closed and differs. */
bool rk_report_win_rerun(const rk_check_result *r, size_t w);

/* The window as every output names it: as given with --timezone ("1mo",
 * whose width is no duration), else the width ("1h"), written into out. */
const char *rk_report_window(const rk_check_spec *sp, char out[RK_TIME_STRLEN]);

#endif
