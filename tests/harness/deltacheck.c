/*
 * deltacheck.c - the tests' checker of a Delta table reckon wrote (see
 * deltacheck.h).
 */
#include "deltacheck.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/delta.h"
#include "io/duck.h"

typedef struct live {
	char *key;   /* path '\n' dv unique id */
	json_t *add; /* reference */
} live;

typedef struct checker {
	const char *root;
	rk_buf *report;
	int bad;
	live *l;
	size_t n, cap;
	rk_duck *duck;
} checker;

__attribute__((format(printf, 2, 3))) static void bad(checker *c, const char *fmt, ...)
{
	va_list ap;
	char line[2048];

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	rk_buf_printf(c->report, "%s: %s\n", c->root, line);
	c->bad++;
}

static const char *str_or(json_t *j)
{
	return json_is_string(j) ? json_string_value(j) : "";
}

static char *key_of(json_t *a)
{
	json_t *dv = json_object_get(a, "deletionVector");
	const char *p = json_string_value(json_object_get(a, "path"));
	rk_buf b = RK_BUF_INIT;
	char *s;

	rk_buf_printf(&b, "%s\n", p ? p : "");
	if (json_is_object(dv)) {
		rk_buf_printf(&b, "%s%s", str_or(json_object_get(dv, "storageType")),
		              str_or(json_object_get(dv, "pathOrInlineDv")));
		if (json_is_integer(json_object_get(dv, "offset")))
			rk_buf_printf(&b, "@%lld", (long long)json_integer_value(json_object_get(dv, "offset")));
	}
	s = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
	return s;
}

static long find_live(checker *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->l[i].key, key) == 0)
			return (long)i;
	return -1;
}

static void check_stats_present(checker *c, long long v, json_t *add)
{
	const char *path = json_string_value(json_object_get(add, "path"));
	const char *stats = json_string_value(json_object_get(add, "stats"));
	json_t *s = stats ? json_loads(stats, 0, NULL) : NULL;

	if (!json_is_integer(json_object_get(add, "size")))
		bad(c, "version %lld: add %s has no size", v, path);
	if (!s) {
		bad(c, "version %lld: add %s has no stats", v, path);
		return;
	}
	if (!json_is_integer(json_object_get(s, "numRecords")))
		bad(c, "version %lld: add %s: stats without numRecords", v, path);
	if (!json_is_object(json_object_get(s, "minValues")) || !json_is_object(json_object_get(s, "maxValues")) ||
	    !json_is_object(json_object_get(s, "nullCount")))
		bad(c, "version %lld: add %s: stats without minValues, maxValues and nullCount", v, path);
	json_decref(s);
}

/* One commit, replayed. */
static void check_commit(checker *c, long long v, const char *file)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	int nprotocol = 0, nmeta = 0, ninfo = 0;

	if (!f) {
		bad(c, "version %lld: cannot read %s", v, file);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		json_error_t je;
		json_t *a = json_loads(line, JSON_DISABLE_EOF_CHECK, &je), *x;

		if (!a) {
			bad(c, "version %lld: a line that is not JSON: %s", v, je.text);
			continue;
		}
		if (json_object_get(a, "protocol"))
			nprotocol++;
		if (json_object_get(a, "metaData"))
			nmeta++;
		if ((x = json_object_get(a, "commitInfo"))) {
			ninfo++;
			if (!json_string_value(json_object_get(x, "operation")) ||
			    !json_is_integer(json_object_get(x, "timestamp")))
				bad(c, "version %lld: commitInfo without operation or timestamp", v);
		}
		if ((x = json_object_get(a, "add"))) {
			char *k = key_of(x);

			check_stats_present(c, v, x);
			if (find_live(c, k) >= 0) {
				bad(c, "version %lld: adds %s, which is live already (no remove between)", v,
				    json_string_value(json_object_get(x, "path")));
				free(k);
			} else {
				if (c->n == c->cap) {
					c->cap = c->cap ? 2 * c->cap : 16;
					c->l = rk_xrealloc(c->l, c->cap * sizeof *c->l);
				}
				c->l[c->n].key = k;
				c->l[c->n++].add = json_incref(x);
			}
		}
		if ((x = json_object_get(a, "remove"))) {
			char *k = key_of(x);
			long i = find_live(c, k);

			if (!json_is_integer(json_object_get(x, "deletionTimestamp")))
				bad(c, "version %lld: remove %s has no deletionTimestamp", v,
				    json_string_value(json_object_get(x, "path")));
			if (i < 0) {
				bad(c, "version %lld: removes %s, which is not live", v,
				    json_string_value(json_object_get(x, "path")));
			} else {
				free(c->l[i].key);
				json_decref(c->l[i].add);
				c->l[i] = c->l[--c->n];
			}
			free(k);
		}
		json_decref(a);
	}
	free(line);
	fclose(f);
	if (v == 0 && (nprotocol != 1 || nmeta != 1))
		bad(c, "version 0 holds %d protocol and %d metaData actions, not one of each", nprotocol, nmeta);
	if (v > 0 && (nprotocol > 1 || nmeta > 1))
		bad(c, "version %lld holds %d protocol and %d metaData actions", v, nprotocol, nmeta);
	if (ninfo != 1)
		bad(c, "version %lld holds %d commitInfo actions, not one", v, ninfo);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The commit versions in _delta_log, sorted; -1 when it cannot be listed. */
static long list_versions(checker *c, long long **out)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *de;
	long n = 0, cap = 0;

	*out = NULL;
	snprintf(dir, sizeof dir, "%s/_delta_log", c->root);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		size_t k = 0;

		while (k < 20 && isdigit((unsigned char)de->d_name[k]))
			k++;
		if (k != 20 || strcmp(de->d_name + 20, ".json") != 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = rk_xrealloc(*out, (size_t)cap * sizeof **out);
		}
		(*out)[n++] = strtoll(de->d_name, NULL, 10);
	}
	closedir(d);
	if (n)
		qsort(*out, (size_t)n, sizeof **out, cmp_ll);
	return n;
}

/* A SQL query's first value as text (new string), or NULL with a violation. */
static char *value(checker *c, const char *sql)
{
	duckdb_result res;
	rk_error err;
	char *v, *s;

	rk_error_clear(&err);
	if (rk_duck_query(rk_duck_conn(c->duck), sql, &res, RK_EXIT_RUNTIME, "duckdb", &err) < 0) {
		bad(c, "%s (in: %.300s)", err.msg, sql);
		return NULL;
	}
	v = duckdb_value_varchar(&res, 0, 0);
	s = rk_xstrdup(v ? v : "NULL");
	duckdb_free(v);
	duckdb_destroy_result(&res);
	return s;
}

/* Each live file against its stats, read by DuckDB's Parquet reader. */
static void check_file_stats(checker *c, const rk_delta *d, const rk_delta_file *f)
{
	rk_buf sql = RK_BUF_INIT, file = RK_BUF_INIT;
	char *v;
	json_t *s = NULL;
	long idx = -1;

	for (size_t i = 0; i < c->n && idx < 0; i++) {
		char *p = c->l[i].key;

		if (strncmp(p, f->log_path, strlen(f->log_path)) == 0 && p[strlen(f->log_path)] == '\n')
			idx = (long)i;
	}
	if (idx >= 0)
		s = json_loads(str_or(json_object_get(c->l[idx].add, "stats")), 0, NULL);
	rk_duck_quote(&file, f->path);
	rk_buf_printf(&sql, "SELECT count(*) FROM read_parquet(%s)", rk_buf_cstr(&file));
	v = value(c, rk_buf_cstr(&sql));
	if (v && f->num_records >= 0 && strtoll(v, NULL, 10) != f->num_records)
		bad(c, "%s holds %s rows, its stats say %lld", f->log_path, v, (long long)f->num_records);
	free(v);
	for (size_t i = 0; s && i < rk_delta_ncolumns(d); i++) {
		const rk_delta_column *col = rk_delta_column_at(d, i);
		json_t *mn = json_object_get(json_object_get(s, "minValues"), col->physical_name);
		json_t *mx = json_object_get(json_object_get(s, "maxValues"), col->physical_name);
		json_t *nc = json_object_get(json_object_get(s, "nullCount"), col->physical_name);
		rk_buf q = RK_BUF_INIT, name = RK_BUF_INIT;
		char *mns = mn ? json_dumps(mn, JSON_ENCODE_ANY) : NULL, *mxs = mx ? json_dumps(mx, JSON_ENCODE_ANY) : NULL;

		if (col->partition || (!mn && !mx && !nc)) {
			free(mns);
			free(mxs);
			continue;
		}
		rk_duck_quote_ident(&name, col->physical_name);
		rk_buf_printf(&q, "SELECT (count(*) - count(%s))::VARCHAR || ',' || ", rk_buf_cstr(&name));
		if (mn) {
			rk_buf_printf(&q, "coalesce((min(%s) >= CAST(", rk_buf_cstr(&name));
			if (json_is_string(mn))
				rk_duck_quote(&q, json_string_value(mn));
			else
				rk_duck_quote(&q, mns);
			rk_buf_printf(&q, " AS %s))::VARCHAR, 'none')", col->duck_type);
		} else {
			rk_buf_puts(&q, "'-'");
		}
		rk_buf_puts(&q, " || ',' || ");
		if (mx) {
			rk_buf_printf(&q, "coalesce((max(%s) <= CAST(", rk_buf_cstr(&name));
			if (json_is_string(mx))
				rk_duck_quote(&q, json_string_value(mx));
			else
				rk_duck_quote(&q, mxs);
			rk_buf_printf(&q, " AS %s))::VARCHAR, 'none')", col->duck_type);
		} else {
			rk_buf_puts(&q, "'-'");
		}
		rk_buf_printf(&q, " FROM read_parquet(%s)", rk_buf_cstr(&file));
		v = value(c, rk_buf_cstr(&q));
		if (v) {
			long long nulls = strtoll(v, NULL, 10);
			const char *rest = strchr(v, ',');

			if (nc && json_integer_value(nc) != nulls)
				bad(c, "%s: column %s has %lld NULLs, its stats say %lld", f->log_path, col->name, nulls,
				    (long long)json_integer_value(nc));
			if (rest && strncmp(rest + 1, "false", 5) == 0)
				bad(c, "%s: column %s has a value below its minValues %s", f->log_path, col->name, mns);
			if (rest && strstr(rest + 1, ",false"))
				bad(c, "%s: column %s has a value above its maxValues %s", f->log_path, col->name, mxs);
		}
		free(v);
		free(mns);
		free(mxs);
		rk_buf_free(&q);
		rk_buf_free(&name);
	}
	json_decref(s);
	rk_buf_free(&sql);
	rk_buf_free(&file);
}

/* reckon's reader against DuckDB's Parquet reader of the live files. */
static void check_rows(checker *c)
{
	rk_delta_spec spec = { .path = (char *)c->root, .version = -1 };
	rk_delta *d = NULL;
	rk_error err;
	rk_buf sql = RK_BUF_INIT, files = RK_BUF_INIT, cols = RK_BUF_INIT;
	int64_t stats_rows = 0;
	bool dvs = false, first = true;
	char *v;

	rk_error_clear(&err);
	if (rk_delta_open(c->duck, &spec, NULL, &d, &err) < 0) {
		bad(c, "reckon's Delta reader refuses the table: %s", err.msg);
		return;
	}
	if (rk_delta_nfiles(d) != c->n)
		bad(c, "reckon's Delta reader finds %zu live files, the replay %zu", rk_delta_nfiles(d), c->n);
	if (rk_delta_view(d, rk_duck_conn(c->duck), "rk_check_view", NULL, 0, &err) < 0) {
		bad(c, "reckon's Delta reader cannot make the view: %s", err.msg);
		rk_delta_free(d);
		return;
	}
	rk_buf_putc(&files, '[');
	for (size_t i = 0; i < rk_delta_nfiles(d); i++) {
		const rk_delta_file *f = rk_delta_file_at(d, i);

		if (i)
			rk_buf_putc(&files, ',');
		rk_duck_quote(&files, f->path);
		stats_rows += f->num_records - (int64_t)f->dv_count;
		dvs = dvs || f->dv_count > 0;
		check_file_stats(c, d, f);
	}
	rk_buf_putc(&files, ']');
	v = value(c, "SELECT count(*) FROM rk_check_view");
	if (v && strtoll(v, NULL, 10) != stats_rows)
		bad(c, "reckon's Delta reader reads %s rows, the stats say %lld", v, (long long)stats_rows);
	free(v);
	for (size_t i = 0; i < rk_delta_ncolumns(d); i++) {
		const rk_delta_column *col = rk_delta_column_at(d, i);

		if (col->partition)
			continue;
		if (!first)
			rk_buf_puts(&cols, ", ");
		first = false;
		rk_duck_quote_ident(&cols, col->name);
	}
	if (rk_delta_nfiles(d) > 0 && !dvs && cols.len) {
		const char *way[2] = { "reckon's reader has rows DuckDB's Parquet reader does not",
			               "DuckDB's Parquet reader has rows reckon's reader does not" };

		for (int k = 0; k < 2; k++) {
			rk_buf_reset(&sql);
			if (k == 0)
				rk_buf_printf(&sql,
				              "SELECT count(*) FROM (SELECT %s FROM rk_check_view EXCEPT ALL SELECT %s FROM "
				              "read_parquet(%s, union_by_name = true))",
				              rk_buf_cstr(&cols), rk_buf_cstr(&cols), rk_buf_cstr(&files));
			else
				rk_buf_printf(&sql,
				              "SELECT count(*) FROM (SELECT %s FROM read_parquet(%s, union_by_name = true) "
				              "EXCEPT ALL SELECT %s FROM rk_check_view)",
				              rk_buf_cstr(&cols), rk_buf_cstr(&files), rk_buf_cstr(&cols));
			v = value(c, rk_buf_cstr(&sql));
			if (v && strcmp(v, "0") != 0)
				bad(c, "%s: %s rows", way[k], v);
			free(v);
		}
	}
	rk_buf_free(&sql);
	rk_buf_free(&files);
	rk_buf_free(&cols);
	rk_delta_free(d);
}

int rk_test_delta_check(const char *root, rk_buf *report)
{
	checker c = { .root = root, .report = report };
	long long *versions;
	long n = list_versions(&c, &versions);
	rk_error err;

	if (n < 0) {
		rk_buf_printf(report, "%s: no _delta_log directory\n", root);
		return -1;
	}
	if (n == 0) {
		free(versions);
		rk_buf_printf(report, "%s: no commit in _delta_log\n", root);
		return -1;
	}
	for (long i = 0; i < n; i++) {
		char file[PATH_MAX];

		if (versions[i] != i) {
			bad(&c, "the log misses version %ld (the versions must be contiguous from 0)", i);
			break;
		}
		snprintf(file, sizeof file, "%s/_delta_log/%020lld.json", root, versions[i]);
		check_commit(&c, versions[i], file);
	}
	free(versions);
	for (size_t i = 0; i < c.n; i++) {
		const char *p = json_string_value(json_object_get(c.l[i].add, "path"));
		char file[PATH_MAX];
		struct stat st;

		snprintf(file, sizeof file, "%s/%s", root, p ? p : "");
		if (p && !strstr(p, "%") && stat(file, &st) != 0)
			bad(&c, "live file %s does not exist", p);
	}
	rk_error_clear(&err);
	if (rk_duck_open(&c.duck, 1, &err) < 0) {
		rk_buf_printf(report, "%s: %s\n", root, err.msg);
		c.bad = -1;
	} else {
		check_rows(&c);
	}
	rk_duck_free(c.duck);
	for (size_t i = 0; i < c.n; i++) {
		free(c.l[i].key);
		json_decref(c.l[i].add);
	}
	free(c.l);
	return c.bad;
}
