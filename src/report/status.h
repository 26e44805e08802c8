/*
 * status.h - the windows' status as every output names and counts it,
 * shared by the report's writers (report.c, files.c, html.c, metrics.c),
 * and the outcome in one phrase (rk_report_brief, rk_report_job_counts,
 * rk_report_thousands), which html.c, jobsummary.c and the line cmd_check.c
 * writes on stderr use too: so neither report.c nor html.c needs the
 * other's code but for report.html itself.  Below report.h: status.c
 * includes no other header of src/report/ (no include cycle, issue 24).
 */
#ifndef RK_REPORT_STATUS_H
#define RK_REPORT_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * The damage in one phrase, for a headline or the line on stderr: "4 of 24
 * closed windows differ: 3 missing, 1 extra" (the kinds that occur), or
 * why a check whose windows all match still differs (NULL times, the
 * watermark).  Numbers with thousands separators when sep.
 */
void rk_report_brief(rk_buf *b, const rk_check_result *r, bool sep);

/* A job's outcome counted: "1 differs, 2 failed, 3 match" (the counts that
 * are not zero), "all 3 tables match", "the table matches". */
void rk_report_job_counts(rk_buf *b, size_t match, size_t differ, size_t failed);

/* n with a comma every three digits ("1,234,567"), into out. */
char *rk_report_thousands(uint64_t n, char out[32]);

#endif
