/*
 * files.c - the report's files: windows.csv, findings.csv, changes.csv and
 * the rerun list, and the report directory they are replaced in as one set
 * with summary.json (report.c) and report.html (html.c) (report.h).
 */
#include "report/report.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/text.h"
#include "core/tz.h"
#include "io/afile.h"
#include "report/status.h"

/* Boundary i of r as a CSV field: an open end of key segments is empty
 * (an empty key text would be quoted, ""). */
static void rk_report_csv_bound(FILE *out, const rk_check_result *r, size_t i, char *buf)
{
	if (r->keyed && !r->seg_text[i])
		return;
	rk_text_csv_field(out, rk_check_bound_text(r, i, buf));
}

static int rk_report_windows_csv(FILE *out, const rk_report_ctx *c, const rk_check_result *r)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], h1[33], h2[33];

	fputs("window_start,window_end,status,source_rows,target_rows", out);
	for (size_t j = 0; j < r->nsum; j++) {
		fputs(",", out);
		rk_buf nm = RK_BUF_INIT;
		rk_buf_printf(&nm, "source_sum_%s", c->sum_names[j]);
		rk_text_csv_field(out, rk_buf_cstr(&nm));
		rk_buf_reset(&nm);
		rk_buf_printf(&nm, "target_sum_%s", c->sum_names[j]);
		fputs(",", out);
		rk_text_csv_field(out, rk_buf_cstr(&nm));
		rk_buf_free(&nm);
	}
	fputs(c->spec->tz ? ",source_hash,target_hash,window_label\n" : ",source_hash,target_hash\n", out);
	for (size_t w = 0; w < r->nwindows; w++) {
		rk_usec s = rk_check_window_start(r, w);
		char label[RK_TIME_STRLEN + 2];

		/* --timezone: the window's local start, after the UTC columns */
		label[0] = '\0';
		if (c->spec->tz) {
			label[0] = ',';
			rk_tz_format(c->spec->tz, s, label + 1);
		}
		(void)s;
		rk_report_csv_bound(out, r, w, a);
		fputc(',', out);
		rk_report_csv_bound(out, r, w + 1, b);
		fprintf(out, ",%s", rk_report_status_name(r->status[w]));
		if (r->status[w] == RK_WIN_OPEN) {
			fputs(",,", out);
			for (size_t j = 0; j < r->nsum; j++)
				fputs(",,", out);
			fprintf(out, ",,%s\n", label);
			continue;
		}
		fprintf(out, ",%llu,%llu", (unsigned long long)r->side[0].rows[w], (unsigned long long)r->side[1].rows[w]);
		for (size_t j = 0; j < r->nsum; j++) {
			char s1[RK_SUM_STRLEN], s2[RK_SUM_STRLEN];
			fprintf(out, ",%s,%s", rk_sum_format(&r->side[0].sums[w * r->nsum + j], s1),
			        rk_sum_format(&r->side[1].sums[w * r->nsum + j], s2));
		}
		rk_hash_hex(r->side[0].hash[w], h1);
		rk_hash_hex(r->side[1].hash[w], h2);
		fprintf(out, ",%s,%s%s\n", h1, h2, label);
	}
	return ferror(out) ? -1 : 0;
}

/* findings.csv and changes.csv lines open alike: the finding's window by
 * its bounds (a calendar window is no multiple of the result's grid), its
 * kind in findings.csv, its key. */
static void rk_report_key_header(FILE *out, const rk_report_ctx *c, const rk_check_result *r, bool kind)
{
	fputs(kind ? "window_start,window_end,kind" : "window_start,window_end", out);
	for (size_t i = 0; i < r->nkey; i++) {
		fputc(',', out);
		rk_text_csv_field(out, c->key_names[i]);
	}
}

static void rk_report_key_line(FILE *out, const rk_check_result *r, const rk_finding *f, bool kind)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];

	rk_report_csv_bound(out, r, f->window, a);
	fputc(',', out);
	rk_report_csv_bound(out, r, f->window + 1, b);
	if (kind)
		fprintf(out, ",%s", rk_find_kind_name(f->kind));
	for (size_t k = 0; k < r->nkey; k++) {
		fputc(',', out);
		rk_text_csv_field(out, f->key[k]);
	}
}

static int rk_report_findings_csv(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	rk_fwalk fw;
	const rk_finding *f;

	rk_report_key_header(out, c, r, true);
	fputs(",source_copies,target_copies\n", out);
	rk_fwalk_start(&fw, r);
	while ((f = rk_fwalk_next(&fw, NULL)) != NULL) {
		rk_report_key_line(out, r, f, true);
		fprintf(out, ",%u,%u\n", f->source_copies, f->target_copies);
	}
	if (rk_fwalk_end(&fw, err) < 0)
		return -1;
	return ferror(out) ? -1 : 0;
}

/* The changes lie by finding, ascending: one pass of the findings beside
 * them gives each its finding (several may share one). */
static int rk_report_changes_csv(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	rk_fwalk fw;
	const rk_finding *f = NULL;
	size_t fi = 0;

	rk_report_key_header(out, c, r, false);
	fputs(",column,source_value,target_value\n", out);
	if (r->nchanges) {
		rk_fwalk_start(&fw, r);
		f = rk_fwalk_next(&fw, &fi);
	}
	for (size_t i = 0; i < r->nchanges && f; i++) {
		const rk_change *ch = &r->changes[i];

		while (f && fi < ch->finding)
			f = rk_fwalk_next(&fw, &fi);
		if (!f)
			break;
		rk_report_key_line(out, r, f, false);
		fputc(',', out);
		rk_text_csv_field(out, r->column_names[ch->column]);
		fputc(',', out);
		rk_text_csv_field(out, ch->value[0]);
		fputc(',', out);
		rk_text_csv_field(out, ch->value[1]);
		fputc('\n', out);
	}
	if (r->nchanges && rk_fwalk_end(&fw, err) < 0)
		return -1;
	if (r->nchanges && !f)
		return rk_error_set(err, RK_EXIT_RUNTIME, "a change names finding %zu, past the %zu findings",
		                    r->changes[r->nchanges - 1].finding, r->nfindings);
	return ferror(out) ? -1 : 0;
}

static int rk_report_rerun_csv(FILE *out, const rk_check_result *r)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];

	/* key segments add a last column, kind (docs/rerun.md); a time list
	 * keeps its exact header */
	fputs(r->keyed ? "interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed,kind\n"
	               : "interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed\n",
	      out);
	for (size_t w = 0; w < r->nwindows; w++) {
		if (!rk_report_win_rerun(r, w))
			continue;
		rk_report_csv_bound(out, r, w, a);
		fputc(',', out);
		rk_report_csv_bound(out, r, w + 1, b);
		fprintf(out, ",%llu,%llu,%u,%u,%u,%u%s\n", (unsigned long long)r->side[0].rows[w],
		        (unsigned long long)r->side[1].rows[w], r->win_kind[w][RK_FIND_MISSING], r->win_kind[w][RK_FIND_EXTRA],
		        r->win_kind[w][RK_FIND_DUPLICATED], r->win_kind[w][RK_FIND_CHANGED], r->keyed ? ",key" : "");
	}
	return ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * the report directory
 * ---------------------------------------------------------------------- */

const char *const rk_report_names[] = { "windows.csv", "findings.csv", "changes.csv", "rerun.csv", "summary.json", "report.html",
	                                "index.html", NULL };

struct rk_report_dir {
	rk_adir *adir;
	char *extra; /* another name the rerun list is written under, or NULL */
	bool has_rerun;
};

static bool rk_report_known(const char *name, const char *also)
{
	for (int i = 0; rk_report_names[i]; i++)
		if (!strcmp(name, rk_report_names[i]))
			return true;
	return also && !strcmp(name, also);
}

/* Checks one directory level; sub: a job's LABEL directory (no deeper). */
static int rk_report_owned_level(const char *dir, const char *also, bool sub, rk_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot read report directory '%s': %s", dir, strerror(errno));
		return rk_error_hint(err, "check its permissions");
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		rk_buf p = RK_BUF_INIT;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		rk_buf_printf(&p, "%s/%s", dir, e->d_name);
		if (lstat(rk_buf_cstr(&p), &st) == 0 && S_ISREG(st.st_mode) && rk_report_known(e->d_name, also)) {
			rk_buf_free(&p);
			continue;
		}
		if (!sub && lstat(p.data, &st) == 0 && S_ISDIR(st.st_mode) &&
		    rk_report_owned_level(p.data, NULL, true, err) == 0) {
			rk_buf_free(&p);
			continue;
		}
		if (!err->code) {
			rk_error_set(err, RK_EXIT_USAGE, "report directory '%s' holds '%s', which reckon did not write", dir,
			             e->d_name);
			rk_error_hint(err, "reckon replaces a report directory as a whole: give --report a directory of its "
			                   "own (new or empty), or move that file elsewhere");
		}
		rk_buf_free(&p);
		rc = -1;
	}
	closedir(d);
	return rc;
}

int rk_report_dir_owned(const char *dir, const char *also, rk_error *err)
{
	rk_error_clear(err);
	return rk_report_owned_level(dir, also, false, err);
}

/* path's directory made absolute and free of links and dots, when it
 * exists (new string), else NULL. */
static char *rk_report_real_dir(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? rk_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : rk_xstrdup(".");
	char *real = realpath(dir, NULL);

	*base = slash ? slash + 1 : path;
	free(dir);
	return real;
}

/* path made absolute and free of links and dots (new string): its real
 * path when it exists, else its directory's real path and its last name
 * (a report directory that the run creates); NULL when neither exists. */
static char *rk_report_real(const char *path)
{
	const char *base;
	char *real = realpath(path, NULL), *parent;
	rk_buf b = RK_BUF_INIT;

	if (real)
		return real;
	if (!(parent = rk_report_real_dir(path, &base)))
		return NULL;
	rk_buf_printf(&b, "%s/%s", strcmp(parent, "/") ? parent : "", base);
	free(parent);
	real = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
	return real;
}

/* True when file path is directly inside directory dir; *base gets its
 * name there.  Both are compared as real paths; dir, or the directory
 * path names, may not exist yet (the run creates it): their parents must. */
static bool rk_report_inside(const char *dir, const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char *pdir = slash ? rk_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : rk_xstrdup(".");
	char *dreal = rk_report_real(dir), *preal = rk_report_real(pdir);
	bool in;

	*base = slash ? slash + 1 : path;
	in = dreal && preal && !strcmp(dreal, preal) && **base;
	free(pdir);
	free(dreal);
	free(preal);
	return in;
}

char *rk_report_path(const char *opt, const char *path, rk_error *err)
{
	size_t n = strlen(path);
	const char *base;
	char *dir, *parent;
	struct stat st;

	while (n > 1 && path[n - 1] == '/')
		n--;
	dir = rk_xstrndup(path, n);
	base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	if (!n) {
		rk_error_set(err, RK_EXIT_USAGE, "option %s needs a directory name", opt);
		rk_error_hint(err, "name a directory of its own, e.g. %s report (reckon creates it)", opt);
	} else if (!strcmp(dir, "/") || !strcmp(base, ".") || !strcmp(base, "..")) {
		rk_error_set(err, RK_EXIT_USAGE, "option %s %s names %s", opt, path,
		             !strcmp(dir, "/")    ? "the root directory"
		             : !strcmp(dir, ".")  ? "the current directory"
		             : !strcmp(dir, "..") ? "the parent directory"
		                                  : "a directory through its last '.' or '..'");
		rk_error_hint(err, "reckon replaces the report directory as a whole: name a directory of its own, e.g. "
		                   "%s report",
		              opt);
	} else if (stat(dir, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return dir;
		rk_error_set(err, RK_EXIT_USAGE, "option %s %s is not a directory", opt, path);
		rk_error_hint(err, "name a directory; reckon creates it");
	} else {
		int perr;

		parent = base == dir ? rk_xstrdup(".") : rk_xstrndup(dir, base - 1 == dir ? 1 : (size_t)(base - 1 - dir));
		perr = stat(parent, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0
		                                                           : ENOTDIR;
		if (!perr) {
			free(parent);
			return dir;
		}
		if (perr == ENOENT || perr == ENOTDIR) {
			/* the first part of the parent that is missing, or a file */
			char *p = parent;

			do {
				p = strchr(p + 1, '/');
				if (p)
					*p = '\0';
				if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode))
					break;
				if (p)
					*p = '/';
			} while (p);
			if (stat(parent, &st) == 0)
				rk_error_set(err, RK_EXIT_USAGE, "option %s %s: '%s' is not a directory", opt, path, parent);
			else
				rk_error_set(err, RK_EXIT_USAGE, "option %s %s: directory '%s' does not exist", opt, path, parent);
			rk_error_hint(err, "reckon creates the report directory, not its parents: create them first");
		} else {
			rk_error_set(err, RK_EXIT_USAGE, "option %s %s: cannot reach its parent directory '%s': %s", opt, path,
			             parent, strerror(perr));
			rk_error_hint(err, "check the permissions of the directories on the path");
		}
		free(parent);
	}
	free(dir);
	return NULL;
}

rk_report_dir *rk_report_dir_open(const char *dir, const char *rerun_list, rk_error *err)
{
	rk_report_dir *d;
	const char *base = NULL;
	bool inside = rerun_list && rk_report_inside(dir, rerun_list, &base);
	const char *also = inside && strcmp(base, "rerun.csv") ? base : NULL;
	rk_adir *ad;

	if (rk_report_dir_owned(dir, also, err) < 0)
		return NULL;
	ad = rk_adir_open(dir, "report", err);
	if (!ad)
		return NULL;
	d = rk_xcalloc(1, sizeof *d);
	d->adir = ad;
	d->has_rerun = inside;
	d->extra = also ? rk_xstrdup(also) : NULL;
	return d;
}

const char *rk_report_dir_stage(const rk_report_dir *d)
{
	return rk_adir_stage(d->adir);
}

bool rk_report_dir_has_rerun(const rk_report_dir *d)
{
	return d->has_rerun;
}

void rk_report_dir_abort(rk_report_dir *d)
{
	if (!d)
		return;
	rk_adir_abort(d->adir);
	free(d->extra);
	free(d);
}

/* One file of a set: written by fn into sub/name of the staging directory. */
static int rk_report_set_file(rk_adir *d, const char *sub, const char *name,
                              int (*fn)(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err),
                              const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	rk_buf path = RK_BUF_INIT;
	FILE *f;
	int rc;

	rk_buf_printf(&path, "%s%s%s", sub, *sub ? "/" : "", name);
	f = rk_adir_fopen(d, rk_buf_cstr(&path), err);
	if (!f) {
		rk_buf_free(&path);
		return -1;
	}
	rc = fn(f, c, r, err);
	if (rc < 0 && !err->code)
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot write report file '%s/%s': %s", rk_adir_path(d), path.data,
		             strerror(errno ? errno : EIO));
	if (rc < 0)
		fclose(f);
	else
		rc = rk_adir_fclose(d, f, path.data, err);
	rk_buf_free(&path);
	return rc;
}

static int rk_report_windows_file(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	return rk_report_windows_csv(out, c, r);
}

static int rk_report_findings_file(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	return rk_report_findings_csv(out, c, r, err);
}

static int rk_report_changes_file(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	return rk_report_changes_csv(out, c, r, err);
}

static int rk_report_rerun_file(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	return rk_report_rerun_csv(out, r);
}

static int rk_report_summary_file(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	return rk_report_json(out, c, r, err);
}

static int rk_report_html_file(FILE *out, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	json_t *summary = rk_report_summary(c, r, err);
	int rc;

	if (!summary)
		return -1;
	rc = rk_report_html(out, c, r, summary, err);

	json_decref(summary);
	return rc;
}

int rk_report_set_write(rk_adir *d, const char *sub, const char *extra, const rk_report_ctx *c,
                        const rk_check_result *r, rk_error *err)
{
	errno = 0;
	if (rk_report_set_file(d, sub, "windows.csv", rk_report_windows_file, c, r, err) < 0 ||
	    rk_report_set_file(d, sub, "findings.csv", rk_report_findings_file, c, r, err) < 0 ||
	    rk_report_set_file(d, sub, "changes.csv", rk_report_changes_file, c, r, err) < 0 ||
	    rk_report_set_file(d, sub, "rerun.csv", rk_report_rerun_file, c, r, err) < 0 ||
	    (extra && rk_report_set_file(d, sub, extra, rk_report_rerun_file, c, r, err) < 0) ||
	    rk_report_set_file(d, sub, "report.html", rk_report_html_file, c, r, err) < 0 ||
	    rk_report_set_file(d, sub, "summary.json", rk_report_summary_file, c, r, err) < 0)
		return -1;
	return 0;
}

int rk_report_dir_commit(rk_report_dir *d, const rk_report_ctx *c, const rk_check_result *r, rk_error *err)
{
	rk_adir *ad = d->adir;
	int rc;

	d->adir = NULL;
	rc = rk_report_set_write(ad, "", d->extra, c, r, err);
	if (rc < 0)
		rk_adir_abort(ad);
	else
		rc = rk_adir_commit(ad, err);
	rk_report_dir_abort(d);
	return rc;
}

int rk_report_rerun_commit(rk_afile *af, const char *path, const rk_check_result *r, rk_error *err)
{
	if (rk_report_rerun_csv(rk_afile_stream(af), r) < 0) {
		rk_afile_abort(af);
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot write rerun list '%s': %s", path, strerror(errno));
	}
	return rk_afile_commit(af, err);
}
