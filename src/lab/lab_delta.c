/*
 * lab_delta.c - the lab's engine delta (lab_delta.h): the Delta table
 * created, mirrored into PostgreSQL, and its history written.
 */
#include "lab/lab_delta.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "io/afile.h"
#include "io/copytext.h"
#include "io/delta.h"
#include "io/deltawriter.h"
#include "io/duck.h"
#include "rk_sql.h"

/* Removes the regular files directly in dir (a missing dir is fine). */
static int remove_files(const char *dir, rk_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : rk_error_set(err, RK_EXIT_RUNTIME, "cannot open %s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		char p[PATH_MAX];
		struct stat st;

		if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p || lstat(p, &st) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (unlink(p) < 0) {
			rc = rk_error_set(err, RK_EXIT_RUNTIME, "cannot remove %s: %s", p, strerror(errno));
			break;
		}
	}
	closedir(d);
	return rc;
}

int rk_lab_delta_reset(const char *dir, rk_error *err)
{
	static const char *const schema = "(SELECT CAST(NULL AS VARCHAR) AS txn_id, CAST(NULL AS TIMESTAMPTZ) AS "
	                                  "updated_at, CAST(NULL AS DECIMAL(12,2)) AS amount, CAST(NULL AS TIMESTAMPTZ) "
	                                  "AS interval_start)";
	const char *const params[] = { "reckon.lab", "the lab's target, empty", NULL };
	char log[PATH_MAX];
	rk_duck *duck = NULL;
	rk_dw *w = NULL;
	rk_dw_result res;
	int rc = -1;

	if ((size_t)snprintf(log, sizeof log, "%s/_delta_log", dir) >= sizeof log)
		return rk_error_set(err, RK_EXIT_USAGE, "path too long: %s", dir);
	if (remove_files(log, err) < 0 || (rmdir(log) < 0 && errno != ENOENT) || remove_files(dir, err) < 0) {
		if (!err->code)
			rk_error_set(err, RK_EXIT_RUNTIME, "cannot remove %s: %s", log, strerror(errno));
		return -1;
	}
	if (rk_duck_open(&duck, 1, err) < 0 || rk_dw_open(duck, dir, NULL, &w, err) < 0 ||
	    rk_dw_create(w, schema, NULL, 0, err) < 0 || rk_dw_commit(w, "CREATE TABLE", params, &res, err) < 0)
		goto out;
	rc = 0;
out:
	rk_dw_free(w);
	rk_duck_free(duck);
	return rc;
}

/* Opens the latest snapshot of the table at dir (with its history). */
static int open_table(rk_duck **duck, const char *dir, bool history, rk_delta **d, rk_error *err)
{
	rk_delta_spec spec;
	rk_delta_options opt = { .history = history };
	rk_buf conn = RK_BUF_INIT;
	int rc;

	memset(&spec, 0, sizeof spec);
	rk_buf_printf(&conn, "delta:%s", dir);
	rc = rk_duck_open(duck, 1, err) < 0 || rk_delta_spec_parse(rk_buf_cstr(&conn), "the lab's target", &spec, err) < 0 ||
	                     rk_delta_open(*duck, &spec, &opt, d, err) < 0
	             ? -1
	             : 0;
	rk_delta_spec_clear(&spec);
	rk_buf_free(&conn);
	return rc;
}

int rk_lab_delta_mirror(rk_pg *pg, const char *dir, rk_error *err)
{
	rk_duck *duck = NULL;
	rk_delta *d = NULL;
	duckdb_result res;
	rk_buf rows = RK_BUF_INIT;
	int rc = -1;

	if (open_table(&duck, dir, false, &d, err) < 0 ||
	    rk_delta_view(d, rk_duck_conn(duck), "rk_lab", NULL, 0, err) < 0 ||
	    rk_duck_query(rk_duck_conn(duck),
	                  "SELECT txn_id, CAST(updated_at AS VARCHAR), CAST(amount AS VARCHAR), "
	                  "CAST(interval_start AS VARCHAR) FROM rk_lab",
	                  &res, RK_EXIT_RUNTIME, "reading the lab's Delta target", err) < 0)
		goto out;
	for (idx_t r = 0; r < duckdb_row_count(&res); r++) {
		for (idx_t c = 0; c < 4; c++) {
			char *v = duckdb_value_is_null(&res, c, r) ? NULL : duckdb_value_varchar(&res, c, r);

			rk_copytext_put(&rows, v, v ? strlen(v) : 0);
			rk_buf_putc(&rows, '\t');
			duckdb_free(v);
		}
		rk_buf_puts(&rows, "\\N\n");
	}
	duckdb_destroy_result(&res);
	if (rk_pg_command(pg, "clear the mirror", rk_sql_lab_mirror_clear, err) < 0 ||
	    rk_pg_copy_in_begin(pg, "mirror the Delta target", rk_sql_lab_mirror_copy, err) < 0 ||
	    (rows.len && rk_pg_copy_in_put(pg, rows.data, rows.len, err) < 0) || rk_pg_copy_in_end(pg, err) < 0)
		goto out;
	rc = 0;
out:
	rk_buf_free(&rows);
	rk_delta_free(d);
	rk_duck_free(duck);
	return rc;
}

int rk_lab_delta_history(const char *dir, const char *path, rk_error *err)
{
	rk_duck *duck = NULL;
	rk_delta *d = NULL;
	rk_afile *af = NULL;
	FILE *f;
	int rc = -1;

	if (open_table(&duck, dir, true, &d, err) < 0 || !(af = rk_afile_open(path, "history", err)))
		goto out;
	f = rk_afile_stream(af);
	fputs("version,operation,files_added,files_removed,rows_added\n", f);
	for (size_t i = 0; i < rk_delta_ncommits(d); i++) {
		const rk_delta_commit *c = rk_delta_commit_at(d, i);

		fprintf(f, "%lld,%s,%zu,%zu,", (long long)c->version, c->operation, c->files_added, c->files_removed);
		if (c->rows_added >= 0)
			fprintf(f, "%lld", (long long)c->rows_added);
		fputc('\n', f);
	}
	rc = rk_afile_commit(af, err);
	af = NULL;
out:
	if (af)
		rk_afile_abort(af);
	rk_delta_free(d);
	rk_duck_free(duck);
	return rc;
}
