/*
 * deltawriter.c - one transaction on a Delta table, then one commit
 * (see deltawriter.h): which tables this writer may write, their columns,
 * a new table, deletes and the commit protocol.  The data files and their
 * statistics are deltawriter_data.c's.
 */
#include "io/deltawriter.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/timeutil.h"
#include "io/delta_impl.h"
#include "io/deltawriter_impl.h"
#include "io/fault.h"

#ifndef RK_VERSION
#define RK_VERSION "unknown"
#endif

/* ---- small helpers ---- */

static int64_t now_ms(void)
{
	return rk_time_now() / 1000;
}

/* A random (version 4) UUID. */
int rk_dw_uuid4(char out[37], rk_error *err)
{
	unsigned char b[16];

	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
		return rk_error_set(err, RK_EXIT_RUNTIME, "no random bytes for a file name: %s", strerror(errno));
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
	         b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}

static char *decoded(const char *log_path)
{
	rk_buf b = RK_BUF_INIT;
	char *s;

	if (rk_delta_uri_decode(log_path, &b) < 0) {
		rk_buf_free(&b);
		return rk_xstrdup(log_path);
	}
	s = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
	return s;
}

int rk_dw_query(rk_dw *w, const char *sql, duckdb_result *res, int code, const char *what, rk_error *err)
{
	return rk_duck_query(rk_duck_conn(w->duck), sql, res, code, what, err);
}

/* ---- which tables this writer may write ("Table Features") ---- */

/* Writer features this writer implements (in writerFeatures). */
static const char *const writer_features[] = {
	"appendOnly",          /* deletes refused when delta.appendOnly=true */
	"deletionVectors",     /* rewritten files are read through their DVs */
	"timestampNtz",        /* the type is written as Parquet TIMESTAMP(isAdjustedToUTC=false) */
	"v2Checkpoint",        /* no checkpoint is written */
	"vacuumProtocolCheck", /* nothing to do when not vacuuming */
	"domainMetadata",      /* none written; others' left alone */
};

static bool known_writer_feature(const char *f)
{
	for (size_t i = 0; i < sizeof writer_features / sizeof writer_features[0]; i++)
		if (strcmp(f, writer_features[i]) == 0)
			return true;
	return false;
}

static void list_add(rk_buf *b, size_t *n, const char *name)
{
	if (strstr(rk_buf_cstr(b), name))
		return;
	if ((*n)++)
		rk_buf_puts(b, ", ");
	rk_buf_puts(b, name);
}

/* Whether some field of a schema type (recursively) has metadata key. */
static bool schema_has_meta(json_t *type, const char *prefix)
{
	json_t *fields, *f, *md;
	const char *k;
	json_t *v;
	size_t i;

	if (!json_is_object(type))
		return false;
	fields = json_object_get(type, "fields");
	json_array_foreach(fields, i, f)
	{
		md = json_object_get(f, "metadata");
		json_object_foreach(md, k, v)
		{
			if (strncmp(k, prefix, strlen(prefix)) == 0)
				return true;
		}
		if (schema_has_meta(json_object_get(f, "type"), prefix))
			return true;
	}
	if (schema_has_meta(json_object_get(type, "elementType"), prefix) ||
	    schema_has_meta(json_object_get(type, "keyType"), prefix) ||
	    schema_has_meta(json_object_get(type, "valueType"), prefix))
		return true;
	return false;
}

static bool conf_true(json_t *conf, const char *key)
{
	const char *v = json_string_value(json_object_get(conf, key));

	return v && strcasecmp(v, "true") == 0;
}

static int check_writable(rk_dw *w, rk_error *err)
{
	json_t *p = w->snap->protocol, *conf = json_object_get(w->snap->metadata, "configuration");
	json_t *wv = json_object_get(p, "minWriterVersion"), *features = json_object_get(p, "writerFeatures"), *f;
	const char *mode = rk_delta_column_mapping(w->snap);
	rk_buf bad = RK_BUF_INIT;
	size_t nbad = 0, i;
	int version = json_is_integer(wv) ? (int)json_integer_value(wv) : 0;
	const char *k;
	json_t *v;

	if (version < 1 || version > 7)
		return rk_error_set(err, RK_EXIT_USAGE,
		                    "the table needs Delta writer version %d; this writer implements versions 1 to 7",
		                    version);
	if (version == 7) {
		json_array_foreach(features, i, f)
		{
			const char *name = json_string_value(f);

			if (!name)
				continue;
			if (strcmp(name, "columnMapping") == 0 && strcmp(mode, "none") == 0)
				continue;
			if (strcmp(name, "changeDataFeed") == 0 && !conf_true(conf, "delta.enableChangeDataFeed"))
				continue;
			if (!known_writer_feature(name))
				list_add(&bad, &nbad, name);
		}
	} else {
		/* "Writer Version Requirements": a legacy version implies its
		 * features; those the table uses must be implemented */
		if (version >= 2 && schema_has_meta(w->snap->schema, "delta.invariants"))
			list_add(&bad, &nbad, "invariants");
		json_object_foreach(conf, k, v)
		{
			if (version >= 3 && strncmp(k, "delta.constraints.", 18) == 0)
				list_add(&bad, &nbad, "checkConstraints");
		}
		if (version >= 4 && conf_true(conf, "delta.enableChangeDataFeed"))
			list_add(&bad, &nbad, "changeDataFeed");
		if (version >= 4 && schema_has_meta(w->snap->schema, "delta.generationExpression"))
			list_add(&bad, &nbad, "generatedColumns");
		if (version >= 5 && strcmp(mode, "none") != 0)
			list_add(&bad, &nbad, "columnMapping");
		if (version >= 6 && schema_has_meta(w->snap->schema, "delta.identity."))
			list_add(&bad, &nbad, "identityColumns");
	}
	if (nbad) {
		rk_error_set(err, RK_EXIT_USAGE, "the table needs Delta writer feature%s this writer does not implement: %s",
		             nbad > 1 ? "s" : "", rk_buf_cstr(&bad));
		rk_error_hint(err, "implemented: appendOnly, deletionVectors, timestampNtz, v2Checkpoint, "
		                   "vacuumProtocolCheck, domainMetadata, columnMapping in mode none (docs/delta.md)");
		rk_buf_free(&bad);
		return -1;
	}
	rk_buf_free(&bad);
	w->append_only = conf_true(conf, "delta.appendOnly");
	return 0;
}

/* ---- columns ---- */

/* The Delta type of a DuckDB type, or NULL. */
static const char *delta_type_of(const char *duck, rk_delta_kind *kind, char buf[64])
{
	static const struct {
		const char *duck, *delta;
		rk_delta_kind kind;
	} map[] = {
		{ "BIGINT", "long", RK_DELTA_LONG },
		{ "INTEGER", "integer", RK_DELTA_INTEGER },
		{ "SMALLINT", "short", RK_DELTA_SHORT },
		{ "TINYINT", "byte", RK_DELTA_BYTE },
		{ "DOUBLE", "double", RK_DELTA_DOUBLE },
		{ "FLOAT", "float", RK_DELTA_FLOAT },
		{ "BOOLEAN", "boolean", RK_DELTA_BOOLEAN },
		{ "VARCHAR", "string", RK_DELTA_STRING },
		{ "BLOB", "binary", RK_DELTA_BINARY },
		{ "DATE", "date", RK_DELTA_DATE },
		{ "TIMESTAMP WITH TIME ZONE", "timestamp", RK_DELTA_TIMESTAMP },
		{ "TIMESTAMP", "timestamp_ntz", RK_DELTA_TIMESTAMP_NTZ },
	};
	int p, s;

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		if (strcmp(duck, map[i].duck) == 0) {
			*kind = map[i].kind;
			return map[i].delta;
		}
	}
	if (sscanf(duck, "DECIMAL(%d,%d)", &p, &s) == 2 && p >= 1 && p <= 38 && s >= 0 && s <= p) {
		*kind = RK_DELTA_DECIMAL;
		snprintf(buf, 64, "decimal(%d,%d)", p, s);
		return buf;
	}
	return NULL;
}

static void cols_free(rk_dw *w)
{
	for (size_t i = 0; i < w->ncols; i++) {
		free(w->cols[i].name);
		free(w->cols[i].duck_type);
		free(w->cols[i].delta_type);
	}
	free(w->cols);
	w->cols = NULL;
	w->ncols = 0;
}

static void cols_from_snapshot(rk_dw *w)
{
	size_t n = rk_delta_ncolumns(w->snap);

	w->cols = rk_xcalloc(n ? n : 1, sizeof *w->cols);
	w->ncols = n;
	for (size_t i = 0; i < n; i++) {
		const rk_delta_column *c = rk_delta_column_at(w->snap, i);

		w->cols[i].name = rk_xstrdup(c->name);
		w->cols[i].duck_type = rk_xstrdup(c->duck_type);
		w->cols[i].delta_type = rk_xstrdup(c->type);
		w->cols[i].kind = c->kind;
		w->cols[i].partition = c->partition;
		if (c->kind == RK_DELTA_FLOAT || c->kind == RK_DELTA_DOUBLE)
			w->has_float = true;
	}
}

/* ---- open ---- */

/* Whether root's _delta_log holds a commit or a checkpoint (a name of
 * 20 digits and a dot): a table exists, and the reader reads it. */
static bool table_exists(const char *root)
{
	char path[PATH_MAX];
	DIR *dir;
	struct dirent *de;
	bool found = false;

	snprintf(path, sizeof path, "%s/_delta_log", root);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (de = readdir(dir)) != NULL) {
		size_t k = 0;

		while (k < 20 && isdigit((unsigned char)de->d_name[k]))
			k++;
		found = k == 20 && de->d_name[20] == '.';
	}
	closedir(dir);
	return found;
}

int rk_dw_open(rk_duck *duck, const char *root, const rk_dw_options *opt, rk_dw **out, rk_error *err)
{
	rk_dw *w = rk_xcalloc(1, sizeof *w);
	rk_delta_options dopt = { .partition_zone = opt ? opt->partition_zone : NULL };

	*out = NULL;
	w->duck = duck;
	w->display = rk_xstrdup(root);
	w->max_retries = opt && opt->max_retries > 0 ? opt->max_retries : 20;
	w->removes = json_array();
	if (table_exists(root)) {
		rk_delta_spec spec = { .path = (char *)root, .version = -1 };

		if (rk_delta_open(duck, &spec, &dopt, &w->snap, err) < 0)
			goto fail;
		w->root = rk_xstrdup(w->snap->root);
		if (check_writable(w, err) < 0) {
			rk_error_prefix(err, "Delta table %s", w->display);
			goto fail;
		}
		cols_from_snapshot(w);
	}
	*out = w;
	return 0;
fail:
	rk_dw_free(w);
	return -1;
}

static void unlink_uncommitted(rk_dw *w)
{
	for (size_t i = 0; i < w->nadded; i++)
		if (w->added[i].abs_path)
			unlink(w->added[i].abs_path);
}

void rk_dw_free(rk_dw *w)
{
	if (!w)
		return;
	if (!w->done)
		unlink_uncommitted(w);
	for (size_t i = 0; i < w->nadded; i++) {
		free(w->added[i].abs_path);
		json_decref(w->added[i].add);
	}
	free(w->added);
	for (size_t i = 0; i < w->nread; i++)
		free(w->read[i]);
	free(w->read);
	json_decref(w->removes);
	json_decref(w->protocol);
	json_decref(w->metadata);
	cols_free(w);
	rk_delta_free(w->snap);
	free(w->root);
	free(w->display);
	free(w);
}

const rk_delta *rk_dw_snapshot(const rk_dw *w)
{
	return w->snap;
}

void rk_dw_read_all(rk_dw *w)
{
	w->read_all = true;
}

static void read_add(rk_dw *w, const char *log_path);
static bool was_read(const rk_dw *w, const char *log_path);

void rk_dw_read_files(rk_dw *w, const size_t *files, size_t nfiles)
{
	for (size_t k = 0; w->snap && k < nfiles; k++) {
		const rk_delta_file *f = rk_delta_file_at(w->snap, files[k]);

		if (f && !was_read(w, f->log_path))
			read_add(w, f->log_path);
	}
}

/* ---- a new table ---- */

/* Makes root (and root/_delta_log) when missing; w->root gets its absolute path. */
static int make_root(rk_dw *w, rk_error *err)
{
	char path[PATH_MAX];
	char *real;

	if (mkdir(w->display, 0777) < 0 && errno != EEXIST)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot create Delta table directory %s: %s", w->display,
		                    strerror(errno));
	real = realpath(w->display, NULL);
	if (!real)
		return rk_error_set(err, RK_EXIT_RUNTIME, "Delta table %s: %s", w->display, strerror(errno));
	free(w->root);
	w->root = real;
	snprintf(path, sizeof path, "%s/_delta_log", w->root);
	if (mkdir(path, 0777) < 0 && errno != EEXIST)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot create %s: %s", path, strerror(errno));
	return 0;
}

int rk_dw_create(rk_dw *w, const char *relation, const char *const *partition, size_t npart, rk_error *err)
{
	rk_buf sql = RK_BUF_INIT;
	duckdb_result res;
	json_t *fields, *schema, *parts;
	bool ntz = false;
	idx_t n;
	char id[37], *schema_str;

	if (w->snap || w->creating)
		return rk_error_set(err, RK_EXIT_USAGE, "Delta table %s exists already", w->display);
	rk_buf_printf(&sql, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM %s)", relation);
	if (rk_dw_query(w, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "the columns of a new Delta table", err) < 0) {
		rk_buf_free(&sql);
		return -1;
	}
	rk_buf_free(&sql);
	n = duckdb_row_count(&res);
	w->cols = rk_xcalloc(n ? n : 1, sizeof *w->cols);
	fields = json_array();
	for (idx_t i = 0; i < n; i++) {
		char *name = duckdb_value_varchar(&res, 0, i), *type = duckdb_value_varchar(&res, 1, i), buf[64];
		dw_col *c = &w->cols[w->ncols++];
		const char *dt = delta_type_of(type, &c->kind, buf);

		c->name = rk_xstrdup(name);
		c->duck_type = rk_xstrdup(strcmp(type, "TIMESTAMP WITH TIME ZONE") == 0 ? "TIMESTAMPTZ" : type);
		c->delta_type = dt ? rk_xstrdup(dt) : NULL;
		duckdb_free(name);
		duckdb_free(type);
		if (!dt) {
			rk_error_set(err, RK_EXIT_USAGE, "column %s of a new Delta table has type %s, which has no Delta type here",
			             c->name, c->duck_type);
			rk_error_hint(err, "cast it to one of BIGINT, INTEGER, SMALLINT, TINYINT, DOUBLE, FLOAT, "
			                   "DECIMAL(p,s), BOOLEAN, VARCHAR, BLOB, DATE, TIMESTAMPTZ, TIMESTAMP");
			duckdb_destroy_result(&res);
			json_decref(fields);
			return -1;
		}
		if (c->kind == RK_DELTA_TIMESTAMP_NTZ)
			ntz = true;
		if (c->kind == RK_DELTA_FLOAT || c->kind == RK_DELTA_DOUBLE)
			w->has_float = true;
		json_array_append_new(fields, json_pack("{s:s,s:s,s:b,s:{}}", "name", c->name, "type", c->delta_type,
		                                        "nullable", 1, "metadata"));
	}
	duckdb_destroy_result(&res);
	parts = json_array();
	for (size_t p = 0; p < npart; p++) {
		size_t i;

		for (i = 0; i < w->ncols && strcmp(w->cols[i].name, partition[p]) != 0; i++)
			;
		if (i == w->ncols) {
			json_decref(fields);
			json_decref(parts);
			return rk_error_set(err, RK_EXIT_USAGE, "partition column %s is not a column of the new table",
			                    partition[p]);
		}
		w->cols[i].partition = true;
		json_array_append_new(parts, json_string(partition[p]));
	}
	schema = json_pack("{s:s,s:o}", "type", "struct", "fields", fields);
	schema_str = json_dumps(schema, JSON_COMPACT);
	json_decref(schema);
	if (rk_dw_uuid4(id, err) < 0) {
		free(schema_str);
		json_decref(parts);
		return -1;
	}
	/* "Protocol Evolution": 1/2 is what every writer and reader takes;
	 * timestamp_ntz needs table features (3/7) */
	if (ntz)
		w->protocol = json_pack("{s:i,s:i,s:[s],s:[s]}", "minReaderVersion", 3, "minWriterVersion", 7,
		                        "readerFeatures", "timestampNtz", "writerFeatures", "timestampNtz");
	else
		w->protocol = json_pack("{s:i,s:i}", "minReaderVersion", 1, "minWriterVersion", 2);
	w->metadata = json_pack("{s:s,s:{s:s,s:{}},s:s,s:o,s:{},s:I}", "id", id, "format", "provider", "parquet",
	                        "options", "schemaString", schema_str, "partitionColumns", parts, "configuration",
	                        "createdTime", (json_int_t)now_ms());
	free(schema_str);
	w->creating = true;
	return make_root(w, err);
}

/* ---- deletes ---- */

static void read_add(rk_dw *w, const char *log_path)
{
	w->read = rk_xrealloc(w->read, (w->nread + 1) * sizeof *w->read);
	w->read[w->nread++] = decoded(log_path);
}

/* The remove action of the snapshot's live file i ("Add File and Remove
 * File": the same path and deletion vector, so that it reconciles with
 * that add). */
static json_t *remove_of(const rk_dw *w, size_t i, int64_t when)
{
	json_t *add = w->snap->adds[i];
	json_t *r = json_pack("{s:O,s:I,s:b,s:b}", "path", json_object_get(add, "path"), "deletionTimestamp",
	                      (json_int_t)when, "dataChange", 1, "extendedFileMetadata", 1);

	json_object_set(r, "partitionValues",
	                json_object_get(add, "partitionValues") ? json_object_get(add, "partitionValues")
	                                                        : json_object());
	if (json_object_get(add, "size"))
		json_object_set(r, "size", json_object_get(add, "size"));
	if (json_is_object(json_object_get(add, "deletionVector")))
		json_object_set(r, "deletionVector", json_object_get(add, "deletionVector"));
	return r;
}

int rk_dw_delete(rk_dw *w, const char *predicate, const size_t *files, size_t nfiles, int64_t *rows,
                 rk_error *err)
{
	size_t n = files ? nfiles : (w->snap ? rk_delta_nfiles(w->snap) : 0);
	rk_buf sql = RK_BUF_INIT;
	int64_t deleted = 0, when = now_ms();
	int rc = -1;

	if (rows)
		*rows = 0;
	if (!w->snap)
		return 0; /* a new table has no row to delete */
	for (size_t k = 0; k < n; k++) {
		size_t i = files ? files[k] : k;
		const rk_delta_file *f = rk_delta_file_at(w->snap, i);
		duckdb_result res;
		int64_t matched, total, kept;

		if (!f) {
			rk_error_set(err, RK_EXIT_RUNTIME, "Delta table %s has no file %zu", w->display, i);
			goto out;
		}
		read_add(w, f->log_path);
		if (rk_delta_view(w->snap, rk_duck_conn(w->duck), "rk_dw_file", &i, 1, err) < 0)
			goto out;
		rk_buf_reset(&sql);
		rk_buf_printf(&sql, "SELECT count(*) FILTER (WHERE (%s)), count(*) FROM rk_dw_file", predicate);
		if (rk_dw_query(w, rk_buf_cstr(&sql), &res, RK_EXIT_USAGE, "the rows to delete", err) < 0)
			goto out;
		matched = duckdb_value_int64(&res, 0, 0);
		total = duckdb_value_int64(&res, 1, 0);
		duckdb_destroy_result(&res);
		if (matched == 0)
			continue;
		if (w->append_only) {
			rk_error_set(err, RK_EXIT_USAGE, "Delta table %s is append-only (delta.appendOnly=true): "
			                                 "this write would delete %lld rows of %s",
			             w->display, (long long)matched, f->log_path);
			goto out;
		}
		json_array_append_new(w->removes, remove_of(w, i, when));
		rk_buf_reset(&sql);
		rk_buf_printf(&sql, "(SELECT * FROM rk_dw_file WHERE (%s) IS NOT TRUE)", predicate);
		if (rk_dw_write_rows(w, rk_buf_cstr(&sql), &kept, err) < 0)
			goto out;
		w->rows_added -= kept; /* rewritten, not new */
		if (kept != total - matched) {
			rk_error_set(err, RK_EXIT_RUNTIME, "rewriting %s kept %lld of %lld rows, not %lld", f->log_path,
			             (long long)kept, (long long)total, (long long)(total - matched));
			goto out;
		}
		deleted += matched;
	}
	if (rows)
		*rows = deleted;
	rc = 0;
out:
	rk_buf_free(&sql);
	return rc;
}

/* ---- commit ---- */

static json_t *commit_info(const rk_dw *w, const char *operation, const char *const *params, int64_t rows_added)
{
	json_t *op = json_object(), *ci;
	char num[32];

	for (size_t i = 0; params && params[i] && params[i + 1]; i += 2)
		json_object_set_new(op, params[i], json_string(params[i + 1]));
	ci = json_pack("{s:I,s:s,s:o,s:b,s:s}", "timestamp", (json_int_t)now_ms(), "operation", operation,
	               "operationParameters", op, "isBlindAppend",
	               !w->read_all && w->nread == 0 && json_array_size(w->removes) == 0, "engineInfo",
	               "reckon/" RK_VERSION);
	if (w->snap)
		json_object_set_new(ci, "readVersion", json_integer(rk_delta_version(w->snap)));
	{
		json_t *m = json_object();

		snprintf(num, sizeof num, "%zu", w->nadded);
		json_object_set_new(m, "numAddedFiles", json_string(num));
		snprintf(num, sizeof num, "%zu", json_array_size(w->removes));
		json_object_set_new(m, "numRemovedFiles", json_string(num));
		snprintf(num, sizeof num, "%lld", (long long)rows_added);
		json_object_set_new(m, "numOutputRows", json_string(num));
		json_object_set_new(ci, "operationMetrics", m);
	}
	return ci;
}

/* The commit's text: one action per line. */
static char *commit_text(rk_dw *w, const char *operation, const char *const *params)
{
	rk_buf b = RK_BUF_INIT;
	json_t *a;
	size_t i;
	char *line, *out;

	a = json_pack("{s:o}", "commitInfo", commit_info(w, operation, params, w->rows_added));
	line = json_dumps(a, JSON_COMPACT);
	rk_buf_printf(&b, "%s\n", line);
	free(line);
	json_decref(a);
	if (w->creating) {
		a = json_pack("{s:O}", "protocol", w->protocol);
		line = json_dumps(a, JSON_COMPACT);
		rk_buf_printf(&b, "%s\n", line);
		free(line);
		json_decref(a);
		a = json_pack("{s:O}", "metaData", w->metadata);
		line = json_dumps(a, JSON_COMPACT);
		rk_buf_printf(&b, "%s\n", line);
		free(line);
		json_decref(a);
	}
	json_array_foreach(w->removes, i, a)
	{
		json_t *r = json_pack("{s:O}", "remove", a);

		line = json_dumps(r, JSON_COMPACT);
		rk_buf_printf(&b, "%s\n", line);
		free(line);
		json_decref(r);
	}
	for (i = 0; i < w->nadded; i++) {
		json_t *r = json_pack("{s:O}", "add", w->added[i].add);

		line = json_dumps(r, JSON_COMPACT);
		rk_buf_printf(&b, "%s\n", line);
		free(line);
		json_decref(r);
	}
	out = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
	return out;
}

/* Writes text to a new temporary file in dir, flushed to disk; *tmp gets its path. */
static int stage(const char *dir, const char *text, char **tmp, rk_error *err)
{
	char id[37];
	size_t len = strlen(text), off = 0;
	int fd;

	*tmp = NULL;
	if (rk_dw_uuid4(id, err) < 0)
		return -1;
	*tmp = rk_xmalloc(strlen(dir) + 64);
	sprintf(*tmp, "%s/.reckon-%s.json.tmp", dir, id);
	fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot create %s: %s", *tmp, strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s: %s", *tmp, strerror(errno));
			close(fd);
			unlink(*tmp);
			return -1;
		}
		off += (size_t)n;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s: %s", *tmp, strerror(errno));
		unlink(*tmp);
		return -1;
	}
	return 0;
}

/* Whether the path (as the log writes it, URI-encoded) is in the read set. */
static bool was_read(const rk_dw *w, const char *log_path)
{
	char *p = decoded(log_path);
	bool hit = false;

	for (size_t i = 0; i < w->nread && !hit; i++)
		hit = strcmp(w->read[i], p) == 0;
	free(p);
	return hit;
}

/*
 * Reads the commit at path, another writer's, and says in *why (new
 * string) what in it conflicts with this transaction, or leaves *why NULL.
 * *op gets its operation (new string, or NULL).
 */
static int winner_conflicts(const rk_dw *w, const char *path, char **why, char **op, rk_error *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool blind = !w->read_all && w->nread == 0 && json_array_size(w->removes) == 0;

	*why = NULL;
	*op = NULL;
	if (!f)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot read %s: %s", path, strerror(errno));
	while (!*why && (len = getline(&line, &cap, f)) > 0) {
		json_t *a = json_loads(line, JSON_DISABLE_EOF_CHECK, NULL), *x;
		rk_buf b = RK_BUF_INIT;

		if (!a)
			continue;
		if ((x = json_object_get(a, "commitInfo")) && json_string_value(json_object_get(x, "operation")))
			*op = rk_xstrdup(json_string_value(json_object_get(x, "operation")));
		if (json_object_get(a, "metaData") || json_object_get(a, "protocol"))
			rk_buf_puts(&b, w->creating ? "it created the table" : "it changed the table's metadata or protocol");
		else if ((x = json_object_get(a, "remove")) && json_string_value(json_object_get(x, "path")) &&
		         was_read(w, json_string_value(json_object_get(x, "path"))))
			rk_buf_printf(&b, "it removed %s, which this write read", json_string_value(json_object_get(x, "path")));
		else if ((x = json_object_get(a, "add")) && !blind)
			rk_buf_printf(&b, "it added %s, which this write would have read",
			              json_string_value(json_object_get(x, "path")) ? json_string_value(json_object_get(x, "path"))
			                                                            : "a file");
		else if (json_object_get(a, "remove") && w->read_all)
			rk_buf_puts(&b, "it removed a file, and this write read the whole table");
		if (b.len)
			*why = rk_xstrdup(rk_buf_cstr(&b));
		rk_buf_free(&b);
		json_decref(a);
	}
	free(line);
	fclose(f);
	return 0;
}

int rk_dw_commit(rk_dw *w, const char *operation, const char *const *params, rk_dw_result *res, rk_error *err)
{
	char dir[PATH_MAX], final[PATH_MAX], *tmp = NULL, *text;
	int64_t version;
	int rc = -1;

	memset(res, 0, sizeof *res);
	res->version = -1;
	if (w->done)
		return rk_error_set(err, RK_EXIT_RUNTIME, "Delta transaction on %s already ended", w->display);
	res->files_added = w->nadded;
	res->files_removed = json_array_size(w->removes);
	res->rows_added = w->rows_added;
	if (!w->creating && w->nadded == 0 && json_array_size(w->removes) == 0) {
		w->done = true;
		return 0; /* nothing changed: no commit */
	}
	if (rk_fault("delta-files-written") == RK_FAULT_FAIL)
		return rk_error_set(err, RK_EXIT_RUNTIME, "test fault: after the data files of %s", w->display);
	snprintf(dir, sizeof dir, "%s/_delta_log", w->root);
	text = commit_text(w, operation, params);
	if (stage(dir, text, &tmp, err) < 0)
		goto out;
	if (rk_fault("delta-commit-staged") == RK_FAULT_FAIL) {
		rk_error_set(err, RK_EXIT_RUNTIME, "test fault: before the commit of %s", w->display);
		goto out;
	}
	version = w->snap ? rk_delta_version(w->snap) + 1 : 0;
	for (int attempt = 0;; attempt++, version++) {
		char *why = NULL, *op = NULL;

		if ((size_t)snprintf(final, sizeof final, "%s/%020lld.json", dir, (long long)version) >= sizeof final) {
			rk_error_set(err, RK_EXIT_RUNTIME, "cannot commit to Delta table %s: its log's path is too long",
			             w->display);
			goto out;
		}
		if (link(tmp, final) == 0)
			break;
		if (errno != EEXIST) {
			rk_error_set(err, RK_EXIT_RUNTIME, "cannot commit %s: %s", final, strerror(errno));
			goto out;
		}
		/* lost the race for this version: read what won */
		if (winner_conflicts(w, final, &why, &op, err) < 0)
			goto out;
		if (why || attempt >= w->max_retries) {
			rk_error_set(err, RK_EXIT_RUNTIME,
			             "version %lld of Delta table %s, committed by another writer (%s), conflicts with this "
			             "write: %s; nothing was committed",
			             (long long)version, w->display, op ? op : "no commitInfo",
			             why ? why : "too many concurrent commits");
			rk_error_hint(err, "run it again: it reads the new snapshot");
			free(why);
			free(op);
			goto out;
		}
		free(op);
		res->retries++;
	}
	res->version = version;
	w->done = true;
	rc = 0;
out:
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(text);
	if (rc < 0) {
		unlink_uncommitted(w);
		w->done = true;
	}
	return rc;
}
