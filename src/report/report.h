/*
 * report.h - what a check says: the readable text summary, the JSON
 * summary, windows.csv, findings.csv and the rerun list (product.md 2.3).
 * All timestamps UTC, "YYYY-MM-DDTHH:MM:SSZ" with ".ffffff" only when the
 * fraction is not zero.  Files are written atomically.
 */
#ifndef RK_REPORT_H
#define RK_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "check/check.h"
#include "io/afile.h"

/* What the report needs to know besides the result. */
typedef struct rk_report_ctx {
	const rk_check_spec *spec;
	const char *const *key_names;   /* header names of the key columns (unquoted) */
	const char *const *sum_names;   /* header names of the sum columns (unquoted) */
} rk_report_ctx;

/* The readable summary: one line per window (matching windows elided past
 * a screenful), the damage per window with the first keys of each kind,
 * and the verdict. */
void rk_report_text(FILE *out, const rk_report_ctx *c, const rk_check_result *r);

/* The damage part of the text summary: each differing window with the
 * first keys of each kind, the NULL-time rows, the watermark's claim. */
void rk_report_text_damage(FILE *out, const rk_report_ctx *c, const rk_check_result *r);

/* summary.json as a JSON object (new reference): the verdict, windows,
 * findings, rows, range, key, hashed columns, schema drift, rerun list. */
json_t *rk_report_summary(const rk_report_ctx *c, const rk_check_result *r);

/* summary.json / --format json, followed by a newline.  Returns 0 or -1
 * (a write error; errno set). */
int rk_report_json(FILE *out, const rk_report_ctx *c, const rk_check_result *r);


/*
 * Report files are opened before the check runs, so an unwritable path
 * fails at once, and written and renamed into place only at the end:
 * all three report files or none.
 */
#define RK_REPORT_FILES 3
int rk_report_dir_open(const char *dir, rk_afile *af[RK_REPORT_FILES], rk_error *err);
/* Writes windows.csv, findings.csv and summary.json and renames them into
 * place; the handles are consumed whatever the outcome. */
int rk_report_dir_commit(rk_afile *af[RK_REPORT_FILES], const char *dir, const rk_report_ctx *c,
                         const rk_check_result *r, rk_error *err);
void rk_report_dir_abort(rk_afile *af[RK_REPORT_FILES]);

/* Writes the rerun list into an opened file and commits it (consumed). */
int rk_report_rerun_commit(rk_afile *af, const char *path, const rk_check_result *r, rk_error *err);


#endif
