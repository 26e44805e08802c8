/*
 * metrics.c - Prometheus text exposition of check runs (metrics.h).
 */
#include "report/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/text.h"
#include "io/afile.h"
#include "report/status.h"

/* One family: its name, help, and what a table gives it. */
typedef struct rk_family {
	const char *name;
	const char *help;
	bool needs_result;
	void (*samples)(rk_buf *b, const char *name, const char *label, const rk_metrics_table *t);
} rk_family;

/*
 * A label value as the format wants it: backslash, double quote and line
 * feed escaped; bytes that are no UTF-8 replaced by U+FFFD (the format is
 * UTF-8, and a relation name from a CSV side's options may be anything).
 */
static void rk_metrics_label(rk_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	while (i < n) {
		size_t l = rk_utf8_seq_len(p + i, n - i);

		if (!l) {
			rk_buf_puts(b, "\xEF\xBF\xBD");
			i++;
		} else if (p[i] == '\\') {
			rk_buf_puts(b, "\\\\");
			i++;
		} else if (p[i] == '"') {
			rk_buf_puts(b, "\\\"");
			i++;
		} else if (p[i] == '\n') {
			rk_buf_puts(b, "\\n");
			i++;
		} else {
			rk_buf_append(b, p + i, l);
			i += l;
		}
	}
}

/* name{LABELS,key="value"} (key NULL: the table's labels only); labels is
 * the table's label set, rendered by rk_metrics_labels */
static void rk_metrics_sample(rk_buf *b, const char *name, const char *labels, const char *key, const char *value)
{
	rk_buf_printf(b, "%s{%s", name, labels);
	if (key)
		rk_buf_printf(b, ",%s=\"%s\"", key, value);
	rk_buf_puts(b, "} ");
}

static void rk_fam_windows(rk_buf *b, const char *name, const char *label, const rk_metrics_table *t)
{
	static const rk_win_status st[] = { RK_WIN_MATCH, RK_WIN_DIFFER, RK_WIN_OPEN };

	for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
		rk_metrics_sample(b, name, label, "status", rk_report_status_name(st[i]));
		rk_buf_printf(b, "%zu\n", rk_report_count_status(t->result, st[i]));
	}
}

static void rk_fam_findings(rk_buf *b, const char *name, const char *label, const rk_metrics_table *t)
{
	for (int k = 0; k < RK_FIND_NKINDS; k++) {
		rk_metrics_sample(b, name, label, "kind", rk_find_kind_name((rk_find_kind)k));
		rk_buf_printf(b, "%zu\n", t->result->kind_count[k]);
	}
}

static void rk_fam_rows(rk_buf *b, const char *name, const char *label, const rk_metrics_table *t)
{
	for (int s = 0; s < 2; s++) {
		rk_metrics_sample(b, name, label, "side", s ? "target" : "source");
		rk_buf_printf(b, "%llu\n", (unsigned long long)t->result->side[s].total);
	}
}

static void rk_fam_null_time(rk_buf *b, const char *name, const char *label, const rk_metrics_table *t)
{
	for (int s = 0; s < 2; s++) {
		rk_metrics_sample(b, name, label, "side", s ? "target" : "source");
		rk_buf_printf(b, "%llu\n", (unsigned long long)t->result->side[s].null_time);
	}
}

static void rk_fam_duration(rk_buf *b, const char *name, const char *label, const rk_metrics_table *t)
{
	rk_metrics_sample(b, name, label, NULL, NULL);
	rk_buf_printf(b, "%.3f\n", t->seconds);
}

static void rk_fam_exit(rk_buf *b, const char *name, const char *label, const rk_metrics_table *t)
{
	rk_metrics_sample(b, name, label, NULL, NULL);
	rk_buf_printf(b, "%d\n", t->exit_status);
}

static void rk_fam_last_run(rk_buf *b, const char *name, const char *label, const rk_metrics_table *t)
{
	rk_metrics_sample(b, name, label, NULL, NULL);
	rk_buf_printf(b, "%lld.%03lld\n", (long long)(t->finished / RK_USEC_PER_SEC),
	              (long long)(t->finished % RK_USEC_PER_SEC / 1000));
}

static const rk_family rk_families[] = {
	{ "reckon_check_windows", "Windows of the last check, by status (match, differ, open).", true, rk_fam_windows },
	{ "reckon_check_findings", "Keys found damaged by the last check, by kind.", true, rk_fam_findings },
	{ "reckon_check_rows", "Rows in the closed windows of the last check, per side.", true, rk_fam_rows },
	{ "reckon_check_null_time_rows", "Rows with a NULL time column (no window holds them), per side.", true,
	  rk_fam_null_time },
	{ "reckon_check_duration_seconds", "How long the last check took.", false, rk_fam_duration },
	{ "reckon_check_exit_status", "Exit status of the last check: 0 match, 1 differ, 2 input error, 3 runtime error.",
	  false, rk_fam_exit },
	{ "reckon_check_last_run_timestamp_seconds", "When the last check ended, in seconds since the Unix epoch.", false,
	  rk_fam_last_run },
};

/* A table's label set: job="NAME",label="LABEL" for a job's table, then
 * table="RELATION" (the target relation, whatever the mode). */
static void rk_metrics_labels(rk_buf *b, const rk_metrics_table *t)
{
	if (t->job) {
		rk_buf_puts(b, "job=\"");
		rk_metrics_label(b, t->job);
		rk_buf_puts(b, "\",label=\"");
		rk_metrics_label(b, t->label ? t->label : "");
		rk_buf_puts(b, "\",");
	}
	rk_buf_puts(b, "table=\"");
	rk_metrics_label(b, t->table ? t->table : "");
	rk_buf_putc(b, '"');
}

static void rk_metrics_text(rk_buf *b, const rk_metrics_table *t, size_t n)
{
	rk_buf *labels = rk_xcalloc(n ? n : 1, sizeof *labels);

	rk_buf_puts(b, "# HELP reckon_build_info The reckon that wrote this file (always 1).\n"
	               "# TYPE reckon_build_info gauge\n");
	rk_buf_printf(b, "reckon_build_info{version=\"%s\"} 1\n", RK_VERSION);
	for (size_t i = 0; i < n; i++)
		rk_metrics_labels(&labels[i], &t[i]);
	for (size_t f = 0; f < sizeof rk_families / sizeof rk_families[0]; f++) {
		const rk_family *fam = &rk_families[f];

		rk_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", fam->name, fam->help, fam->name);
		for (size_t i = 0; i < n; i++)
			if (t[i].result || !fam->needs_result)
				fam->samples(b, fam->name, rk_buf_cstr(&labels[i]), &t[i]);
	}
	for (size_t i = 0; i < n; i++)
		rk_buf_free(&labels[i]);
	free(labels);
}

int rk_metrics_write(FILE *out, const rk_metrics_table *t, size_t n)
{
	rk_buf b = RK_BUF_INIT;
	int rc = 0;

	rk_metrics_text(&b, t, n);
	if (fwrite(b.data, 1, b.len, out) != b.len)
		rc = -1;
	rk_buf_free(&b);
	return rc;
}

int rk_metrics_commit(rk_afile *af, const char *path, const rk_metrics_table *t, size_t n, rk_error *err)
{
	errno = 0;
	if (rk_metrics_write(rk_afile_stream(af), t, n) < 0) {
		rk_afile_abort(af);
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot write metrics file '%s': %s", path,
		                    strerror(errno ? errno : EIO));
	}
	return rk_afile_commit(af, err);
}
