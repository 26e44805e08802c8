/*
 * jobsummary.c - a job's summary.json, its text and its report set
 * (jobsummary.h).
 */
#include "report/jobsummary.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/log.h"
#include "report/status.h"

json_t *rk_jobsummary_json(const rk_jobsummary_table *t, size_t n, int *status)
{
	json_t *root = json_object(), *tables = json_object();
	bool any_error = false, any_differ = false;

	for (size_t i = 0; i < n; i++) {
		json_t *s;
		int st = t[i].status;
		rk_error err;

		rk_error_clear(&err);
		s = t[i].res ? rk_report_summary(t[i].ctx, t[i].res, &err) : NULL;
		if (s) {
			json_object_set_new(s, "error", json_null());
		} else if (t[i].res) {
			/* its findings could not be read back: the table failed,
			 * and the job with it */
			rk_error_prefix(&err, "table %s", t[i].label);
			rk_log_error(&err);
			s = json_object();
			json_object_set_new(s, "verdict", json_string("error"));
			json_object_set_new(s, "error", json_string(err.msg));
			st = RK_EXIT_RUNTIME;
			if (*status < RK_EXIT_RUNTIME)
				*status = RK_EXIT_RUNTIME;
		} else {
			s = json_object();
			json_object_set_new(s, "verdict", json_string("error"));
			json_object_set_new(s, "error", json_string(t[i].err->msg));
		}
		json_object_set_new(s, "exit_status", json_integer(st));
		json_object_set_new(s, "seconds", json_real(t[i].seconds));
		json_object_set_new(tables, t[i].label, s);
		any_error |= st > RK_EXIT_DIFFER;
		any_differ |= t[i].status == RK_EXIT_DIFFER;
	}
	json_object_set_new(root, "verdict", json_string(any_error ? "error" : any_differ ? "differ"
	                                                                                  : "match"));
	json_object_set_new(root, "exit_status", json_integer(*status));
	json_object_set_new(root, "tables", tables);
	return root;
}

void rk_jobsummary_counts(rk_buf *b, const rk_jobsummary_table *t, size_t n)
{
	size_t match = 0, differ = 0, failed = 0;

	for (size_t i = 0; i < n; i++) {
		int st = t[i].status;

		match += st == RK_EXIT_OK;
		differ += st == RK_EXIT_DIFFER;
		failed += st > RK_EXIT_DIFFER;
	}
	rk_report_job_counts(b, match, differ, failed);
}

/* One line per table: its verdict, windows, findings, rows, seconds. */
static void rk_jobsummary_lines(FILE *out, const rk_jobsummary_table *t, size_t n)
{
	size_t w = 5;

	for (size_t i = 0; i < n; i++)
		if (strlen(t[i].label) > w)
			w = strlen(t[i].label);
	fprintf(out, "%-*s  %-7s %7s %7s %8s %8s %8s %8s %12s %12s %8s\n", (int)w, "table", "verdict", "closed",
	        "differ", "missing", "extra", "dupl", "changed", "source rows", "target rows", "seconds");
	for (size_t i = 0; i < n; i++) {
		const rk_check_result *r = t[i].res;
		size_t ndiff = 0;

		if (!r) {
			fprintf(out, "%-*s  %-7s %70s %8.1f\n", (int)w, t[i].label, "error", "(below)", t[i].seconds);
			continue;
		}
		for (size_t k = 0; k < r->nwindows; k++)
			ndiff += r->status[k] == RK_WIN_DIFFER;
		fprintf(out, "%-*s  %-7s %7zu %7zu %8zu %8zu %8zu %8zu %12llu %12llu %8.1f\n", (int)w, t[i].label,
		        r->differ ? "differ" : "match", r->nclosed, ndiff, r->kind_count[RK_FIND_MISSING],
		        r->kind_count[RK_FIND_EXTRA], r->kind_count[RK_FIND_DUPLICATED], r->kind_count[RK_FIND_CHANGED],
		        (unsigned long long)r->side[0].total, (unsigned long long)r->side[1].total, t[i].seconds);
	}
}

void rk_jobsummary_text(FILE *out, const rk_jobsummary_table *t, size_t n, int *status)
{
	rk_buf counts = RK_BUF_INIT;
	rk_error err;

	rk_jobsummary_lines(out, t, n);
	for (size_t i = 0; i < n; i++) {
		if (!t[i].res) {
			fprintf(out, "\n== %s: error (exit status %d)\n%s\n", t[i].label, t[i].status, t[i].err->msg);
			if (t[i].err->hint[0])
				fprintf(out, "hint: %s\n", t[i].err->hint);
			continue;
		}
		if (!t[i].res->differ)
			continue;
		fprintf(out, "\n== %s: %s against %s\n", t[i].label, t[i].res->side[0].describe, t[i].res->side[1].describe);
		if (rk_report_text_damage(out, t[i].ctx, t[i].res, &err) < 0) {
			fprintf(out, "(the findings could not be read: %s)\n", err.msg);
			rk_error_prefix(&err, "table %s", t[i].label);
			rk_log_error(&err);
			if (*status < RK_EXIT_RUNTIME)
				*status = RK_EXIT_RUNTIME;
		}
	}
	rk_jobsummary_counts(&counts, t, n);
	fprintf(out, "\njob: %s, exit status %d\n", rk_buf_cstr(&counts), *status);
	rk_buf_free(&counts);
}

/* Writes file name of the staging set d with fn; 0 or -1 with err. */
static int rk_jobsummary_file(rk_adir *d, const char *name, int (*fn)(FILE *f, const void *arg, rk_error *err),
                              const void *arg, rk_error *err)
{
	FILE *f = rk_adir_fopen(d, name, err);

	if (!f)
		return -1;
	if (fn(f, arg, err) < 0) {
		fclose(f);
		return -1;
	}
	return rk_adir_fclose(d, f, name, err);
}

static int rk_jobsummary_json_file(FILE *f, const void *arg, rk_error *err)
{
	if (json_dumpf(arg, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 || fputc('\n', f) == EOF)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot write the job summary");
	return 0;
}

typedef struct rk_jobsummary_index {
	const json_t *summary;
	const rk_report_index *page;
} rk_jobsummary_index;

static int rk_jobsummary_index_file(FILE *f, const void *arg, rk_error *err)
{
	const rk_jobsummary_index *ix = arg;
	json_t *tables = json_object_get(ix->summary, "tables");
	rk_report_index_row *rows = rk_xcalloc(json_object_size(tables) ? json_object_size(tables) : 1, sizeof *rows);
	const char *label;
	json_t *entry;
	size_t n = 0;
	int rc;

	/* the summary's tables, in file order: those checked, and those an
	 * --only run kept (rk_jobsummary_keep) */
	json_object_foreach(tables, label, entry)
	{
		rows[n].label = label;
		rows[n++].summary = entry;
	}
	rc = rk_report_index_html(f, ix->page, rows, n, err);
	free(rows);
	return rc;
}

int rk_jobsummary_keep(const char *dir, const char *const *labels, size_t nlabels, const rk_jobsummary_table *t,
                       size_t n, json_t *summary, rk_adir *d, rk_error *err)
{
	rk_buf path = RK_BUF_INIT;
	json_t *old, *old_tables, *tables = json_object(), *kept = json_array();
	json_t *now = json_object_get(summary, "tables");
	int rc = 0;

	rk_buf_printf(&path, "%s/summary.json", dir);
	old = json_load_file(rk_buf_cstr(&path), 0, NULL);
	old_tables = json_object_get(old, "tables");
	for (size_t k = 0; k < nlabels && rc == 0; k++) {
		json_t *entry = json_object_get(now, labels[k]);
		struct stat st;
		bool checked = false;

		for (size_t i = 0; i < n && !checked; i++)
			checked = !strcmp(t[i].label, labels[k]);
		if (checked) {
			json_object_set(tables, labels[k], entry);
			continue;
		}
		entry = json_object_get(old_tables, labels[k]);
		rk_buf_reset(&path);
		rk_buf_printf(&path, "%s/%s", dir, labels[k]);
		if (!json_is_object(entry) || stat(rk_buf_cstr(&path), &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		rc = rk_adir_keep(d, labels[k], err);
		json_object_set(tables, labels[k], entry);
		json_array_append_new(kept, json_string(labels[k]));
	}
	json_object_set_new(summary, "tables", tables);
	json_object_set_new(summary, "kept", kept);
	json_decref(old);
	rk_buf_free(&path);
	return rc;
}

int rk_jobsummary_commit(rk_adir *d, const rk_report_index *page, const rk_jobsummary_table *t, size_t n,
                         const json_t *summary, rk_error *err)
{
	rk_jobsummary_index ix = { summary, page };

	for (size_t i = 0; i < n; i++) {
		if (!t[i].res)
			continue;
		if (rk_adir_mkdir(d, t[i].label, err) < 0 || rk_report_set_write(d, t[i].label, NULL, t[i].ctx, t[i].res, err) < 0)
			goto fail;
	}
	if (rk_jobsummary_file(d, "index.html", rk_jobsummary_index_file, &ix, err) < 0 ||
	    rk_jobsummary_file(d, "summary.json", rk_jobsummary_json_file, summary, err) < 0)
		goto fail;
	return rk_adir_commit(d, err);
fail:
	rk_adir_abort(d);
	return -1;
}
