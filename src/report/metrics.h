/*
 * metrics.h - the Prometheus text exposition format of check runs, for
 * node_exporter's textfile collector (check --metrics FILE).
 *
 * reckon_build_info{version} 1, then these families (each with # HELP and
 * # TYPE, all gauges), per table labelled table (the target relation, in
 * both modes) and, in a job, job (the job file's name) and label (the
 * table's label in it):
 *   reckon_check_windows{table,status}            match, differ, open
 *   reckon_check_findings{table,kind}             missing, extra, duplicated,
 *                                                 changed, source_duplicate
 *   reckon_check_rows{table,side}                 rows in closed windows
 *   reckon_check_null_time_rows{table,side}       rows no window can hold
 *   reckon_check_duration_seconds{table}
 *   reckon_check_exit_status{table}               0, 1, 2 or 3
 *   reckon_check_last_run_timestamp_seconds{table}
 * A table whose check failed (no result) has the last three only.
 */
#ifndef RK_REPORT_METRICS_H
#define RK_REPORT_METRICS_H

#include <stddef.h>
#include <stdio.h>

#include "check/result.h"
#include "core/error.h"
#include "io/afile.h"

typedef struct rk_metrics_table {
	const char *table;             /* label table: the target relation (a CSV target: csv:PATH) */
	const char *job;               /* label job: the job file's name without .ini, or NULL (no --job) */
	const char *label;             /* label label: the table's [table LABEL] in the job */
	const rk_check_result *result; /* NULL when the check failed */
	int exit_status;               /* the table's exit status */
	double seconds;                /* how long its check took */
	rk_usec finished;              /* when it ended */
} rk_metrics_table;

/* Writes the families of n tables (a job writes all its tables into one
 * file).  Returns 0 or -1 (a write error; errno set). */
int rk_metrics_write(FILE *out, const rk_metrics_table *t, size_t n);

/* Writes them into af, opened on path before the work (so that an
 * unwritable path fails at once), and renames it into place: the
 * collector never reads half a file.  af is consumed whatever the
 * outcome.  0 or -1 with err (RK_EXIT_RUNTIME). */
int rk_metrics_commit(rk_afile *af, const char *path, const rk_metrics_table *t, size_t n, rk_error *err);

#endif
