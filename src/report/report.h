/*
 * report.h - what a check says: the readable text summary, the JSON
 * summary, windows.csv, findings.csv and the rerun list (docs/reference.md).
 * All timestamps UTC, "YYYY-MM-DDTHH:MM:SSZ" with ".ffffff" only when the
 * fraction is not zero.  Files are written atomically.
 */
#ifndef RK_REPORT_H
#define RK_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "check/result.h"
#include "check/spec.h"
#include "core/buf.h"
#include "io/afile.h"

/* What the report needs to know besides the result. */
typedef struct rk_report_ctx {
	const rk_check_spec *spec;
	const char *label;            /* a job's table label, or NULL: the report's title
	                                 * is then the target relation */
	const char *const *key_names; /* header names of the key columns (unquoted) */
	const char *const *sum_names; /* header names of the sum columns (unquoted) */
	const char *repair;           /* the repair command to paste (report.html), or NULL */
	rk_usec ran_at;               /* when the run happened (wall clock), or 0 */
	size_t text_width;            /* the columns the text is wrapped to, or 0: those of
	                               * the terminal its stream writes to (rk_text_width) */
} rk_report_ctx;

/* The readable summary: one line per window (matching windows elided past
 * a screenful), the damage per window with the first keys of each kind,
 * and the verdict. */
int rk_report_text(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err);

/* The damage part of the text summary: each differing window with the
 * first keys of each kind, the NULL-time rows, the watermark's claim.
 * The text functions return 0, or -1 with err when a read of the
 * findings' store failed (the text then ends there). */
int rk_report_text_damage(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err);

/* summary.json as a JSON object (new reference): the verdict, windows,
 * findings, rows, range, key, hashed columns, schema drift, rerun list.
 * NULL with err when a read of the findings' store failed. */
json_t *rk_report_summary(const rk_report_ctx *c, const rk_check_result *r, rk_error *err);

/* summary.json / --format json, followed by a newline.  Returns 0; -1
 * with err set when a read of the findings' store failed (nothing is
 * written then); -1 with errno and err untouched on a write error. */
int rk_report_json(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err);

/*
 * The report directory of one check (--report DIR): windows.csv,
 * findings.csv, rerun.csv, summary.json and report.html, replaced as one
 * set (io/afile.h: built beside DIR, swapped in with one rename).
 *
 * A report directory holds reckon's files only: rk_report_dir_open refuses
 * (RK_EXIT_USAGE, before any work) a DIR that holds anything else, since
 * replacing the directory would delete it.  The one exception is the
 * --rerun-list file when it is named inside DIR: it is then written as
 * part of the set.
 */
typedef struct rk_report_dir rk_report_dir;

/*
 * Checks the --report path before any work and spells it as the set is
 * written: trailing slashes removed ("rep/" is "rep").  Refused
 * (RK_EXIT_USAGE, with a hint): an empty name, a path ending in "." or ".."
 * or naming "/" (reckon replaces the directory as a whole: the current
 * directory, a parent or the root cannot be), a parent directory that does
 * not exist or is not one, a path that exists and is not a directory.
 * opt names the option in messages ("--report").  Returns the path (new
 * string), or NULL with err.
 */
char *rk_report_path(const char *opt, const char *path, rk_error *err);

/* Opened before the check runs, so that an unusable DIR fails at once.
 * rerun_list is the --rerun-list path, or NULL.  Returns a new handle
 * (commit or abort it), or NULL with err. */
rk_report_dir *rk_report_dir_open(const char *dir, const char *rerun_list, rk_error *err);

/* The staging directory the set is written into (rk_adir_stage): scratch
 * files of the check (the drilldown's spill) go there, beside the set, and
 * are unlinked as they are created.  Owned by d. */
const char *rk_report_dir_stage(const rk_report_dir *d);

/* True when the set writes the rerun list (it names a file of DIR): the
 * caller then writes it nowhere else. */
bool rk_report_dir_has_rerun(const rk_report_dir *d);

/* Writes the set and swaps it in; the handle is consumed whatever the
 * outcome (on failure DIR is left as it was). */
int rk_report_dir_commit(rk_report_dir *d, const rk_report_ctx *c, const rk_check_result *r, rk_error *err);

/* Drops the set; DIR is left as it was.  NULL is harmless. */
void rk_report_dir_abort(rk_report_dir *d);

/*
 * The names a report directory may hold (NULL-terminated): one check's
 * files, and a job's index.html and summary.json.
 */
extern const char *const rk_report_names[];

/*
 * Checks that dir (absent is fine) holds only reckon's files: names of
 * rk_report_names, also (when not NULL), and subdirectories that hold only
 * such names (a job's LABEL/ directories).  Returns 0, or -1 with err
 * (RK_EXIT_USAGE) naming the first foreign entry.
 */
int rk_report_dir_owned(const char *dir, const char *also, rk_error *err);

/*
 * Writes one check's files into directory sub of the staging set d ("" for
 * the top: a single check; LABEL for a job's table, which must exist:
 * rk_adir_mkdir): windows.csv, findings.csv, rerun.csv, summary.json and
 * report.html.  extra, when not NULL, is one more name the rerun list is
 * written under.  0 or -1 with err.
 */
int rk_report_set_write(rk_adir *d, const char *sub, const char *extra, const rk_report_ctx *c,
                        const rk_check_result *r, rk_error *err);

/* Writes the rerun list into an opened file and commits it (consumed). */
int rk_report_rerun_commit(rk_afile *af, const char *path, const rk_check_result *r, rk_error *err);

/*
 * report.html of one check: the verdict, range and settle, key and hashed
 * columns, schema drift, a timeline of every window, the damaged windows
 * with their first keys per kind, and the rerun list (report/html.c, from
 * the template src/report/report.html.in).  summary is rk_report_summary's
 * object: its "diagnosis" and "warnings" (docs/reference.md), when the check
 * produced them, are shown as likely causes and warnings; absent, the page
 * has no such section.  Returns 0, or -1 with err.
 */
int rk_report_html(FILE *out, const rk_report_ctx *c, const rk_check_result *r, const json_t *summary,
                   rk_error *err);

/*
 * A job's index.html (check --job): one row per table, linking
 * LABEL/report.html.
 *
 * Each row's summary is that table's entry of the job's summary.json: a
 * check's rk_report_summary object, or for a table that failed an object
 * with "verdict": "error", "exit_status" and "error" (its message).  Read
 * from it, each optional: "verdict", "exit_status", "error",
 * "windows" {"checked", "differ"}, "findings" {"missing", "extra",
 * "duplicated", "changed", "source_duplicate"}, "source_rows",
 * "target_rows", "seconds" (a number).  A table whose verdict is "error"
 * gets no link (it has no report).  title names the job (its file).  The
 * page's verdict is the worst of the rows' (error > differ > match).
 * Returns 0, or -1 with err.
 */
typedef struct rk_report_index_row {
	const char *label;
	const json_t *summary;
} rk_report_index_row;

/* The job's page: title (the job file), the repair command of the whole
 * job (or NULL) and when the run happened. */
typedef struct rk_report_index {
	const char *title;
	const char *repair;
	rk_usec ran_at;
} rk_report_index;

int rk_report_index_html(FILE *out, const rk_report_index *ix, const rk_report_index_row *rows, size_t n,
                         rk_error *err);

#endif
