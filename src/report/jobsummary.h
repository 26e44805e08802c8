/*
 * jobsummary.h - what a job (check --job) says of its tables: the job's
 * summary.json (also --format json), the text on stdout, and the report
 * set DIR/LABEL/..., DIR/index.html and DIR/summary.json (docs/jobs.md).
 */
#ifndef RK_JOBSUMMARY_H
#define RK_JOBSUMMARY_H

#include <jansson.h>
#include <stdio.h>

#include "check/check.h"
#include "core/buf.h"
#include "core/error.h"
#include "io/afile.h"
#include "report/report.h"

/* One table of a job as its outputs show it: checked (res), or failed
 * (err).  Everything borrowed. */
typedef struct rk_jobsummary_table {
	const char *label;
	const rk_report_ctx *ctx;   /* res's context (its repair: report.html's command) */
	const rk_check_result *res; /* NULL: the table failed */
	const rk_error *err;        /* why, when res is NULL */
	int status;                 /* its exit status */
	double seconds;
} rk_jobsummary_table;

/* The job's summary.json as a JSON object (new reference): its verdict,
 * exit status and, per label, the table's rk_report_summary object (or,
 * for a table that failed, "verdict": "error" and its "error"), each with
 * its "exit_status" and "seconds".  A table whose findings' store cannot
 * be read back fails there: *status (the job's) is raised to
 * RK_EXIT_RUNTIME. */
json_t *rk_jobsummary_json(const rk_jobsummary_table *t, size_t n, int *status);

/* The job's outcome counted ("1 differs, 2 failed, 3 match"), into b. */
void rk_jobsummary_counts(rk_buf *b, const rk_jobsummary_table *t, size_t n);

/* The text on stdout: one line per table, then the damage of each table
 * that differs and the error of each that failed, then the counts and the
 * job's exit status (*status, raised to RK_EXIT_RUNTIME when a table's
 * findings' store cannot be read back). */
void rk_jobsummary_text(FILE *out, const rk_jobsummary_table *t, size_t n, int *status);

/*
 * The tables a check --job --only run did not check, kept in its report
 * set as the earlier run left them: each label of the job file (labels)
 * whose DIR/LABEL/ and DIR/summary.json entry exist has its directory
 * carried over (d) and its entry put back into summary, whose tables are
 * then in file order; summary's "kept" lists them.  0 or -1 with err.
 */
int rk_jobsummary_keep(const char *dir, const char *const *labels, size_t nlabels, const rk_jobsummary_table *t,
                       size_t n, json_t *summary, rk_adir *d, rk_error *err);

/*
 * The job's report set written into d and swapped in (d consumed whatever
 * the outcome): DIR/LABEL/ with each checked table's files
 * (rk_report_set_write), DIR/index.html (page: its title, repair command
 * and time; a row per entry of summary's "tables") and DIR/summary.json
 * (summary).  0 or -1 with err.
 */
int rk_jobsummary_commit(rk_adir *d, const rk_report_index *page, const rk_jobsummary_table *t, size_t n,
                         const json_t *summary, rk_error *err);

#endif
