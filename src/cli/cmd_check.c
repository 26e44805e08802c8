/*
 * cmd_check.c - reckon check: one table pair from the options, or every
 * table of a job file (--job), then the outputs.
 *
 * A job's tables are checked by up to --parallel worker threads
 * (check/job.h); each table is parsed from its own layers (command line,
 * its [table LABEL], the job's [defaults], --config), so one table's bad
 * option is that table's error, reported while the others are still
 * checked.  The outputs are written by this thread once every table is
 * done (report/jobsummary.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check/check.h"
#include "check/job.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "cli/tableopts.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "io/afile.h"
#include "io/reader.h"
#include "report/audit.h"
#include "report/jobsummary.h"
#include "report/metrics.h"
#include "report/report.h"
#include "report/status.h"

/* One table of a run: a lone check, or one [table LABEL] of a job. */
typedef struct rk_table_run {
	const char *label; /* NULL for a lone check */
	rk_opts opts;
	bool parsed; /* opts hold this table's options */
	rk_check_spec spec;
	rk_check_result *res;
	rk_report_ctx ctx;
	int status;   /* its exit status */
	rk_error err; /* why it failed (status 2 or 3) */
	double seconds;
	rk_check_meter meter;  /* its progress (--progress) */
	const char *spill_dir; /* the drilldown's spill files (the report's staging directory), or NULL */
} rk_table_run;

static double rk_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Checks one table whose options are parsed: spec, run, status; its
 * progress on stderr while it runs (--progress). */
static void rk_table_check(rk_table_run *t, rk_usec now)
{
	double t0 = rk_clock();
	rk_progress *progress;
	int rc;

	memset(&t->spec, 0, sizeof t->spec);
	memset(&t->meter, 0, sizeof t->meter);
	rk_error_clear(&t->err);
	t->spec.meter = &t->meter;
	t->spec.spill_dir = t->spill_dir;
	progress = rk_progress_start(t->opts.progress, t->label, &t->meter);
	rc = rk_tableopts_pair(&t->opts, &t->spec, &t->err) < 0 ||
	                     rk_tableopts_check(&t->opts, now, &t->spec, &t->err) < 0 ||
	                     rk_check_run(&t->spec, &t->res, &t->err) < 0
	             ? -1
	             : 0;
	rk_progress_stop(progress);
	if (rc < 0) {
		t->status = t->err.code ? t->err.code : RK_EXIT_RUNTIME;
	} else {
		t->status = t->res->differ ? RK_EXIT_DIFFER : RK_EXIT_OK;
		t->ctx.spec = &t->spec;
		t->ctx.label = t->label;
		t->ctx.key_names = (const char *const *)t->res->key_names;
		t->ctx.sum_names = (const char *const *)t->res->sum_names;
	}
	if (t->label && t->status > RK_EXIT_DIFFER)
		rk_error_prefix(&t->err, "table %s", t->label);
	t->seconds = rk_clock() - t0;
}

/* The target relation (a file target: its path, which holds no password):
 * the metrics' table label in both modes, and a lone check's name on
 * stderr. */
static const char *rk_table_relation(const rk_table_run *t)
{
	const rk_opts *o = &t->opts;

	if (o->target_table || o->table)
		return o->target_table ? o->target_table : o->table;
	return o->target && !rk_conn_has(o->target, RK_CAP_LIBPQ) ? o->target : "";
}

/* --metrics: written whatever the outcome, with each table's exit status,
 * so that a monitor sees failed runs too.  af is consumed.  Returns the
 * status to exit with (3 when the file cannot be written). */
static int rk_check_metrics(rk_afile *af, const char *path, const char *job, const rk_table_run *tables, size_t n,
                            int status)
{
	rk_metrics_table *m = rk_xcalloc(n ? n : 1, sizeof *m);
	rk_usec now = rk_time_now();
	rk_error err;
	char *name = NULL;

	/* the job's name: its file's, without directory and .ini */
	if (job) {
		const char *base = strrchr(job, '/') ? strrchr(job, '/') + 1 : job;
		size_t len = strlen(base);

		if (len > 4 && !strcmp(base + len - 4, ".ini"))
			len -= 4;
		name = rk_xstrndup(base, len);
	}
	for (size_t i = 0; i < n; i++) {
		m[i].table = rk_table_relation(&tables[i]);
		m[i].job = name;
		m[i].label = tables[i].label;
		m[i].result = tables[i].res;
		m[i].exit_status = tables[i].status;
		m[i].seconds = tables[i].seconds;
		m[i].finished = now;
	}
	rk_error_clear(&err);
	if (rk_metrics_commit(af, path, m, n, &err) < 0) {
		rk_log_error(&err);
		if (status < RK_EXIT_RUNTIME)
			status = RK_EXIT_RUNTIME;
	}
	free(m);
	free(name);
	return status;
}

static void rk_table_free(rk_table_run *t)
{
	rk_check_result_free(t->res);
	rk_tableopts_free(&t->spec);
	rk_opts_free(&t->opts);
	t->res = NULL;
}

/* path made absolute (against the working directory), as a shell word, into
 * out: a command to paste works from anywhere. */
static void rk_abs_word(rk_buf *out, const char *path)
{
	rk_buf p = RK_BUF_INIT;
	char cwd[4096];

	if (path[0] != '/' && getcwd(cwd, sizeof cwd))
		rk_buf_printf(&p, "%s/%s", cwd, path);
	else
		rk_buf_puts(&p, path);
	rk_shell_word(out, rk_buf_cstr(&p));
	rk_buf_free(&p);
}

/* The repair command of one checked table whose rerun list is list (a
 * check without --job), or of a job's table (--only label) or of the
 * whole job (label NULL); a new string. */
static char *rk_repair_command(const rk_opts *o, const char *list, const char *label)
{
	rk_buf extra = RK_BUF_INIT, cmd = RK_BUF_INIT;

	if (o->job) {
		rk_buf_puts(&extra, "--job ");
		rk_abs_word(&extra, o->job);
		rk_buf_puts(&extra, " --report ");
		rk_abs_word(&extra, o->report);
		if (label) {
			rk_buf_puts(&extra, " --only ");
			rk_shell_word(&extra, label);
		}
	} else {
		rk_buf_puts(&extra, "--rerun-list ");
		rk_abs_word(&extra, list);
	}
	rk_opts_repair_command(o, rk_buf_cstr(&extra), &cmd);
	rk_buf_free(&extra);
	rk_buf_cstr(&cmd);
	return cmd.data;
}

/* Records a checked table in the audit trail; 0 or -1 with err. */
static int rk_table_audit(const rk_table_run *t, const char *conninfo, rk_error *err)
{
	rk_opts_record rec;
	int rc;

	rk_opts_audit(&t->opts, &rec);
	rc = rk_audit_record_check(conninfo, &rec.options, &t->ctx, t->res, err);
	rk_opts_record_free(&rec);
	return rc;
}

/* ------------------------------------------------------------------------
 * one table
 * ---------------------------------------------------------------------- */

/* --report checked before any work, and spelled as the set is written
 * ("rep/" is "rep"). */
static int rk_check_report_path(rk_opts *o, rk_error *err)
{
	char *dir = rk_report_path("--report", o->report, err);

	if (!dir)
		return -1;
	free(o->report);
	o->report = dir;
	return 0;
}

/* The table's summary for standard output, rendered into *text (*len
 * bytes) before any output is put in place: a read of the findings' store
 * that fails half way then fails the run with nothing changed (issue 25). */
static int rk_table_summary(const rk_opts *o, const rk_table_run *t, char **text, size_t *len, rk_error *err)
{
	FILE *m = open_memstream(text, len);
	rk_report_ctx ctx = t->ctx;
	int rc;

	if (!m)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot hold the summary: %s", strerror(errno));
	/* wrapped for the terminal it will go to, not for the memory */
	ctx.text_width = rk_text_width(fileno(stdout));
	rc = o->format == RK_OPT_FORMAT_JSON ? rk_report_json(m, &ctx, t->res, err)
	                                     : rk_report_text(m, &ctx, t->res, err);
	if (fclose(m) != 0 && rc == 0)
		rc = -1;
	if (rc < 0 && !err->code)
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot hold the summary: %s", strerror(errno ? errno : ENOMEM));
	return rc;
}

static int rk_check_single(rk_opts *o)
{
	rk_table_run t;
	rk_error err;
	rk_report_dir *report = NULL;
	rk_afile *rerun = NULL, *metrics = NULL;
	char *repair = NULL, *summary = NULL;
	size_t summary_len = 0;
	int status;

	memset(&t, 0, sizeof t);
	t.opts = *o; /* borrowed: freed by the caller */
	rk_error_clear(&err);
	/* outputs are opened first: an unwritable path fails before the work
	 * (the metrics first of all: they report the other failures too) */
	if (o->metrics && !(metrics = rk_afile_open(o->metrics, "metrics file", &err)))
		goto fail;
	if (o->report && rk_check_report_path(o, &err) < 0)
		goto fail;
	if (o->report && !(report = rk_report_dir_open(o->report, o->rerun_list, &err)))
		goto fail;
	if (o->rerun_list && !(report && rk_report_dir_has_rerun(report)) &&
	    !(rerun = rk_afile_open(o->rerun_list, "rerun list", &err)))
		goto fail;

	rk_tableopts_preload(o, NULL); /* before the progress thread starts */
	t.spill_dir = report ? rk_report_dir_stage(report) : NULL;
	rk_table_check(&t, rk_time_now());
	if (t.status > RK_EXIT_DIFFER) {
		err = t.err;
		goto fail;
	}
	if (rk_table_summary(o, &t, &summary, &summary_len, &err) < 0)
		goto fail;
	if (report) {
		rk_report_dir *d = report;
		rk_buf list = RK_BUF_INIT;

		if (o->rerun_list)
			rk_buf_puts(&list, o->rerun_list);
		else
			rk_buf_printf(&list, "%s/rerun.csv", o->report);
		t.ctx.repair = repair = rk_repair_command(o, rk_buf_cstr(&list), NULL);
		t.ctx.ran_at = rk_time_now();
		rk_buf_free(&list);
		report = NULL;
		if (rk_report_dir_commit(d, &t.ctx, t.res, &err) < 0)
			goto fail;
	}
	if (rerun) {
		rk_afile *a = rerun;

		rerun = NULL;
		if (rk_report_rerun_commit(a, o->rerun_list, t.res, &err) < 0)
			goto fail;
	}
	/* recorded once the files it describes are in place */
	if (o->audit && rk_table_audit(&t, o->audit, &err) < 0)
		goto fail;
	if (fwrite(summary, 1, summary_len, stdout) != summary_len || fflush(stdout) != 0) {
		rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to standard output");
		goto fail;
	}
	status = t.status;
	if (status == RK_EXIT_DIFFER && !o->quiet) {
		rk_buf line = RK_BUF_INIT;

		rk_report_brief(&line, t.res, false);
		if (o->report)
			rk_buf_printf(&line, "; see %s/report.html", o->report);
		else if (o->rerun_list)
			rk_buf_printf(&line, "; rerun list %s", o->rerun_list);
		rk_log_differ("%s: %s", rk_table_relation(&t), rk_buf_cstr(&line));
		rk_buf_free(&line);
	}
	goto done;
fail:
	rk_log_error(&err);
	status = err.code ? err.code : RK_EXIT_RUNTIME;
	rk_report_dir_abort(report);
	rk_afile_abort(rerun);
done:
	if (metrics) {
		t.status = status;
		status = rk_check_metrics(metrics, o->metrics, NULL, &t, 1, status);
	}
	rk_check_result_free(t.res);
	rk_tableopts_free(&t.spec);
	free(repair);
	free(summary);
	return status;
}

/* ------------------------------------------------------------------------
 * a job
 * ---------------------------------------------------------------------- */

typedef struct rk_job {
	int argc;
	char **argv;
	const rk_ini *ini;
	rk_table_run *tables;
	size_t n;
	rk_usec now; /* one clock for every table */
} rk_job;

/* One table of the job (rk_job_run, on any of its threads): its options
 * from its layers, then its check. */
static void rk_job_table(void *arg, size_t i)
{
	rk_job *job = arg;
	rk_table_run *t = &job->tables[i];

	if (rk_opts_parse_table(&t->opts, RK_CMD_CHECK, job->argc, job->argv, job->ini, t->label, &t->err) < 0) {
		t->status = t->err.code ? t->err.code : RK_EXIT_USAGE;
	} else {
		t->parsed = true;
		rk_table_check(t, job->now);
	}
	if (t->status > RK_EXIT_DIFFER)
		rk_log_error(&t->err);
	else
		rk_log_info("table %s: %s in %.1fs", t->label, t->status ? "differ" : "match", t->seconds);
}

/* The job's tables: every [table LABEL], or those of --only, in file order. */
static int rk_job_tables(const rk_opts *o, const char *const *labels, size_t nlabels, rk_job *job, rk_error *err)
{
	for (size_t i = 0; i < o->only.n; i++) {
		size_t k;

		for (k = 0; k < nlabels && strcmp(labels[k], o->only.items[i]) != 0; k++)
			;
		if (k == nlabels) {
			rk_buf b = RK_BUF_INIT;

			for (size_t j = 0; j < nlabels; j++)
				rk_buf_printf(&b, "%s%s", j ? ", " : "", labels[j]);
			rk_error_set(err, RK_EXIT_USAGE, "option --only names table '%s', which job %s does not have",
			             o->only.items[i], o->job);
			rk_error_hint(err, "its tables: %s", rk_buf_cstr(&b));
			rk_buf_free(&b);
			return -1;
		}
	}
	job->tables = rk_xcalloc(nlabels, sizeof *job->tables);
	for (size_t k = 0; k < nlabels; k++) {
		bool take = o->only.n == 0;

		for (size_t i = 0; i < o->only.n && !take; i++)
			take = !strcmp(labels[k], o->only.items[i]);
		if (take)
			job->tables[job->n++].label = labels[k];
	}
	return 0;
}

/* The job's tables as its outputs show them (report/jobsummary.h): a new
 * array of views into job's tables. */
static rk_jobsummary_table *rk_job_outcomes(const rk_job *job)
{
	rk_jobsummary_table *v = rk_xcalloc(job->n ? job->n : 1, sizeof *v);

	for (size_t i = 0; i < job->n; i++) {
		const rk_table_run *t = &job->tables[i];

		v[i].label = t->label;
		v[i].ctx = &t->ctx;
		v[i].res = t->res;
		v[i].err = &t->err;
		v[i].status = t->status;
		v[i].seconds = t->seconds;
	}
	return v;
}

/* The line on stderr of a job in which tables differ: the counts and the
 * labels that differ. */
static void rk_job_differ_line(const rk_job *job, const rk_jobsummary_table *v, const rk_opts *o)
{
	rk_buf line = RK_BUF_INIT;
	bool first = true;

	rk_jobsummary_counts(&line, v, job->n);
	for (size_t i = 0; i < job->n; i++) {
		if (job->tables[i].status != RK_EXIT_DIFFER)
			continue;
		rk_buf_printf(&line, "%s%s", first ? " (differ: " : ", ", job->tables[i].label);
		first = false;
	}
	rk_buf_puts(&line, ")");
	if (o->report)
		rk_buf_printf(&line, "; see %s/index.html", o->report);
	rk_log_differ("job %s: %s", o->job, rk_buf_cstr(&line));
	rk_buf_free(&line);
}

/* The job's report set, replaced whole (d, consumed): DIR/LABEL/ with each
 * checked table's files, each with the repair command of its table,
 * DIR/index.html with the whole job's, and DIR/summary.json. */
static int rk_job_reports(rk_job *job, const rk_opts *o, const rk_jobsummary_table *v, rk_adir *d, json_t *summary,
                          rk_error *err)
{
	rk_report_index page = { o->job, NULL, rk_time_now() };
	char *repair = rk_repair_command(o, NULL, NULL);
	int rc;

	page.repair = repair;
	for (size_t i = 0; i < job->n; i++) {
		rk_table_run *t = &job->tables[i];

		if (!t->res)
			continue;
		t->ctx.repair = rk_repair_command(o, NULL, t->label);
		t->ctx.ran_at = page.ran_at;
	}
	rc = rk_jobsummary_commit(d, &page, v, job->n, summary, err);
	for (size_t i = 0; i < job->n; i++) {
		free((char *)job->tables[i].ctx.repair);
		job->tables[i].ctx.repair = NULL;
	}
	free(repair);
	return rc;
}

static int rk_check_job(rk_opts *o, int argc, char **argv)
{
	rk_ini *ini = NULL;
	const char **labels = NULL;
	size_t nlabels = 0;
	rk_job job;
	rk_error err;
	size_t nth;
	rk_jobsummary_table *v = NULL;
	json_t *summary = NULL;
	rk_adir *report = NULL;
	rk_afile *metrics = NULL;
	int status = RK_EXIT_OK;

	memset(&job, 0, sizeof job);
	rk_error_clear(&err);
	if (o->rerun_list) {
		rk_error_set(&err, RK_EXIT_USAGE, "option --rerun-list does not go with --job");
		rk_error_hint(&err, "each table's rerun list is written to DIR/LABEL/rerun.csv of --report DIR");
		goto fail;
	}
	if (rk_opts_job_read(o->job, RK_CMD_CHECK, &ini, &labels, &nlabels, &err) < 0 ||
	    rk_job_tables(o, labels, nlabels, &job, &err) < 0)
		goto fail;
	if (o->report && rk_check_report_path(o, &err) < 0)
		goto fail;
	/* outputs are opened first: an unwritable path fails before the work */
	if (o->metrics && !(metrics = rk_afile_open(o->metrics, "metrics file", &err)))
		goto fail;
	if (o->report && (rk_report_dir_owned(o->report, NULL, &err) < 0 || !(report = rk_adir_open(o->report, "report", &err))))
		goto fail;
	/* the drilldown's spill files go where the report is staged */
	for (size_t i = 0; report && i < job.n; i++)
		job.tables[i].spill_dir = rk_adir_stage(report);
	job.argc = argc;
	job.argv = argv;
	job.ini = ini;
	job.now = rk_time_now();
	/* zones are loaded here, before any thread: loading one sets TZ */
	rk_tableopts_preload(o, ini);
	nth = o->parallel < job.n ? o->parallel : job.n;
	rk_log_info("job %s: %zu table%s, %zu at a time", o->job, job.n, job.n == 1 ? "" : "s", nth);
	rk_job_run(job.n, o->parallel, rk_job_table, &job);

	for (size_t i = 0; i < job.n; i++)
		if (job.tables[i].status > status)
			status = job.tables[i].status;
	/* recorded per table, once its check is done; a failed record is the
	 * job's runtime error, the other tables still recorded */
	for (size_t i = 0; o->audit && i < job.n; i++) {
		rk_table_run *t = &job.tables[i];

		if (t->res && rk_table_audit(t, o->audit, &err) < 0) {
			rk_error_prefix(&err, "table %s", t->label);
			rk_log_error(&err);
			if (status < RK_EXIT_RUNTIME)
				status = RK_EXIT_RUNTIME;
		}
	}
	v = rk_job_outcomes(&job);
	summary = rk_jobsummary_json(v, job.n, &status);
	if (report && o->only.n && rk_jobsummary_keep(o->report, labels, nlabels, v, job.n, summary, report, &err) < 0) {
		rk_adir_abort(report);
		report = NULL;
		rk_log_error(&err);
		status = RK_EXIT_RUNTIME;
		json_object_set_new(summary, "exit_status", json_integer(status));
	}
	if (report && rk_job_reports(&job, o, v, report, summary, &err) < 0) {
		report = NULL;
		rk_log_error(&err);
		status = RK_EXIT_RUNTIME;
		json_object_set_new(summary, "exit_status", json_integer(status));
	}
	report = NULL;
	if (o->format == RK_OPT_FORMAT_JSON) {
		json_dumpf(summary, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
	} else {
		rk_jobsummary_text(stdout, v, job.n, &status);
	}
	if (fflush(stdout) != 0) {
		rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to standard output");
		rk_log_error(&err);
		status = RK_EXIT_RUNTIME;
	}
	for (size_t i = 0; !o->quiet && i < job.n; i++)
		if (job.tables[i].status == RK_EXIT_DIFFER) {
			rk_job_differ_line(&job, v, o);
			break;
		}
	goto done;
fail:
	rk_log_error(&err);
	status = err.code ? err.code : RK_EXIT_RUNTIME;
done:
	rk_adir_abort(report);
	if (metrics)
		status = rk_check_metrics(metrics, o->metrics, o->job, job.tables, job.n, status);
	json_decref(summary);
	for (size_t i = 0; i < job.n; i++)
		rk_table_free(&job.tables[i]);
	free(job.tables);
	free(v);
	free(labels);
	rk_ini_free(ini);
	return status;
}

int rk_cmd_check(int argc, char **argv)
{
	rk_opts o;
	rk_error err;
	int status;

	rk_error_clear(&err);
	status = rk_opts_start(&o, RK_CMD_CHECK, argc, argv,
	                       "every input of reckon check is an option; see 'reckon check --help'", &err);
	if (status <= 0)
		return rk_opts_stop(&o, status, &err);
	status = o.job ? rk_check_job(&o, argc, argv) : rk_check_single(&o);
	rk_opts_free(&o);
	return status;
}
