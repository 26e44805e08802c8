/*
 * deltawriter.c - one transaction on a Delta table, then one commit
 * (see deltawriter.h).
 */
#include "io/deltawriter.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/text.h"
#include "core/timeutil.h"
#include "io/delta_impl.h"
#include "io/fault.h"

#ifndef RK_VERSION
#define RK_VERSION "unknown"
#endif

/* One column of the table being written. */
typedef struct dw_col {
	char *name;      /* logical = physical (no column mapping) */
	char *duck_type; /* DuckDB type rows are cast to */
	char *delta_type;
	rk_delta_kind kind;
	bool partition;
} dw_col;

/* One data file written by this transaction. */
typedef struct dw_file {
	char *abs_path;
	json_t *add; /* the add action's body */
} dw_file;

struct rk_dw {
	rk_duck *duck;
	char *root;     /* absolute, no trailing '/' */
	char *display;  /* the root as given, for messages */
	rk_delta *snap; /* NULL: a new table */
	int max_retries;
	/* the table's columns (from the snapshot or rk_dw_create) */
	dw_col *cols;
	size_t ncols;
	bool creating;    /* rk_dw_create called: protocol and metaData to write */
	json_t *protocol; /* when creating */
	json_t *metadata; /* when creating */
	bool append_only; /* delta.appendOnly=true */
	bool has_float;   /* a float/double column: no dictionary pages (duckdb -0.0) */
	/* the transaction */
	json_t *removes; /* array of remove action bodies */
	dw_file *added;
	size_t nadded;
	int64_t rows_added;
	char **read; /* URI-decoded paths of the files read */
	size_t nread;
	bool read_all;
	bool done;
};

/* ---- small helpers ---- */

static int64_t now_ms(void)
{
	return rk_time_now() / 1000;
}

/* A random (version 4) UUID. */
static int uuid4(char out[37], rk_error *err)
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

static int query(rk_dw *w, const char *sql, duckdb_result *res, int code, const char *what, rk_error *err)
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
	if (query(w, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "the columns of a new Delta table", err) < 0) {
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
	if (uuid4(id, err) < 0) {
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

/* ---- writing data files ---- */

typedef struct col_stats {
	char *min, *max; /* DuckDB's text, NULL when absent */
	int64_t nulls;   /* -1 absent */
	bool nan;
} col_stats;

static char *vec_str(duckdb_vector v, idx_t i)
{
	duckdb_string_t *d = duckdb_vector_get_data(v);
	uint64_t *valid = duckdb_vector_get_validity(v);

	if (valid && !duckdb_validity_row_is_valid(valid, i))
		return NULL;
	return rk_xstrndup(duckdb_string_t_data(&d[i]), duckdb_string_t_length(d[i]));
}

/* Reads the column_statistics of RETURN_STATS (MAP(VARCHAR, MAP(VARCHAR,
 * VARCHAR)), keyed by the quoted column path) into st[ncols] for the
 * columns cols (names, parallel). */
static void read_column_stats(duckdb_vector cs, idx_t row, char *const *names, size_t n, col_stats *st)
{
	duckdb_list_entry *le = duckdb_vector_get_data(cs);
	duckdb_vector entries = duckdb_list_vector_get_child(cs);
	duckdb_vector keys = duckdb_struct_vector_get_child(entries, 0);
	duckdb_vector vals = duckdb_struct_vector_get_child(entries, 1);
	duckdb_list_entry *le2 = duckdb_vector_get_data(vals);
	duckdb_vector inner = duckdb_list_vector_get_child(vals);
	duckdb_vector k2 = duckdb_struct_vector_get_child(inner, 0), v2 = duckdb_struct_vector_get_child(inner, 1);
	uint64_t *valid = duckdb_vector_get_validity(cs);

	if (valid && !duckdb_validity_row_is_valid(valid, row))
		return;
	for (idx_t j = le[row].offset; j < le[row].offset + le[row].length; j++) {
		char *key = vec_str(keys, j);
		size_t c;
		rk_buf q = RK_BUF_INIT;

		for (c = 0; key && c < n; c++) {
			rk_buf_reset(&q);
			rk_duck_quote_ident(&q, names[c]);
			if (strcmp(rk_buf_cstr(&q), key) == 0)
				break;
		}
		rk_buf_free(&q);
		free(key);
		if (c >= n)
			continue; /* a nested field: top-level columns only */
		for (idx_t m = le2[j].offset; m < le2[j].offset + le2[j].length; m++) {
			char *sk = vec_str(k2, m), *sv = vec_str(v2, m);

			if (sk && sv && strcmp(sk, "min") == 0 && !st[c].min)
				st[c].min = sv, sv = NULL;
			else if (sk && sv && strcmp(sk, "max") == 0 && !st[c].max)
				st[c].max = sv, sv = NULL;
			else if (sk && sv && strcmp(sk, "null_count") == 0)
				st[c].nulls = strtoll(sv, NULL, 10);
			else if (sk && sv && strcmp(sk, "has_nan") == 0)
				st[c].nan = strcmp(sv, "true") == 0;
			free(sk);
			free(sv);
		}
	}
}

/* The longest prefix of s of at most max bytes that ends on a UTF-8 boundary. */
/* Appends text to out as a JSON string. */
static void json_text(rk_buf *out, const char *s, size_t n)
{
	json_t *j = json_stringn(s, n);
	char *t = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	rk_buf_puts(out, t ? t : "null");
	free(t);
	json_decref(j);
}

/* Whether s is a JSON number as RFC 8259 spells one. */
static bool json_number(const char *s)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else
		return false;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return *p == '\0';
}

/*
 * Appends a min or max statistic of column c (DuckDB's text v) as a JSON
 * value to out; returns false (out unchanged) when it is left out because
 * it cannot be written exactly ("Per-file Statistics": stats are
 * optional).  Numbers are DuckDB's own text (exact decimals, the shortest
 * text of a double), timestamps microseconds in ISO 8601.
 */
static bool put_stat(rk_buf *out, const dw_col *c, const char *v, bool is_max)
{
	/* string stats are prefixes (Spark: 32 characters): a prefix is a
	 * lower bound, never an upper one */
	enum { STRING_PREFIX = 32 };
	rk_usec t;
	const char *why;
	char buf[RK_TIME_STRLEN + 8];

	switch (c->kind) {
	case RK_DELTA_LONG:
	case RK_DELTA_INTEGER:
	case RK_DELTA_SHORT:
	case RK_DELTA_BYTE:
	case RK_DELTA_FLOAT:
	case RK_DELTA_DOUBLE:
	case RK_DELTA_DECIMAL:
		if (!json_number(v)) /* inf, nan */
			return false;
		rk_buf_puts(out, v);
		return true;
	case RK_DELTA_STRING: {
		size_t n = rk_utf8_cut(v, strlen(v), STRING_PREFIX);

		if (n < strlen(v) && is_max)
			return false;
		json_text(out, v, n);
		return true;
	}
	case RK_DELTA_DATE:
		if (!isdigit((unsigned char)v[0]) || strlen(v) != 10)
			return false; /* infinity, BC, years past 9999 */
		json_text(out, v, strlen(v));
		return true;
	case RK_DELTA_TIMESTAMP:
	case RK_DELTA_TIMESTAMP_NTZ: {
		/* DuckDB: "2026-03-02 09:04:00.123456+00"; the log:
		 * "2026-03-02T09:04:00.123456Z" (exact: no truncation) */
		int64_t days, us, y;
		unsigned mo, d;

		if ((c->kind == RK_DELTA_TIMESTAMP ? rk_time_parse(v, strlen(v), &t, &why)
		                                   : rk_time_parse_local(v, strlen(v), &t, &why)) < 0 ||
		    t == INT64_MAX || t == INT64_MIN)
			return false;
		days = t >= 0 ? t / 86400000000LL : -((-t + 86400000000LL - 1) / 86400000000LL);
		us = t - days * 86400000000LL;
		rk_civil_from_days(days, &y, &mo, &d);
		if (y < 1 || y > 9999)
			return false;
		snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%06lld%s", (long long)y, mo, d,
		         (long long)(us / 3600000000LL), (long long)(us / 60000000LL % 60),
		         (long long)(us / 1000000LL % 60), (long long)(us % 1000000LL),
		         c->kind == RK_DELTA_TIMESTAMP ? "Z" : "");
		json_text(out, buf, strlen(buf));
		return true;
	}
	default:
		return false; /* booleans, binaries, nested: no min/max */
	}
}

/* The stats JSON of a file: numRecords, and per written column minValues,
 * maxValues (where exact enough) and nullCount.  Returns a new string. */
static char *stats_json(const rk_dw *w, int64_t rows, const size_t *wc, size_t nwc, const col_stats *st)
{
	rk_buf b = RK_BUF_INIT;
	char *out;

	rk_buf_printf(&b, "{\"numRecords\":%lld", (long long)rows);
	for (int part = 0; part < 3; part++) {
		bool first = true;

		rk_buf_puts(&b, part == 0 ? ",\"minValues\":{" : part == 1 ? ",\"maxValues\":{"
		                                                           : ",\"nullCount\":{");
		for (size_t i = 0; i < nwc; i++) {
			const dw_col *c = &w->cols[wc[i]];
			const char *v = part == 0 ? st[i].min : st[i].max;
			size_t mark = b.len;

			if (part == 2 ? st[i].nulls < 0 : (st[i].nan || !v))
				continue;
			if (!first)
				rk_buf_putc(&b, ',');
			json_text(&b, c->name, strlen(c->name));
			rk_buf_putc(&b, ':');
			if (part == 2)
				rk_buf_printf(&b, "%lld", (long long)st[i].nulls);
			else if (!put_stat(&b, c, v, part == 1)) {
				b.len = mark; /* left out */
				continue;
			}
			first = false;
		}
		rk_buf_putc(&b, '}');
	}
	rk_buf_putc(&b, '}');
	out = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
	return out;
}

/* A partition value as the log writes it ("Partition Value Serialization"),
 * from DuckDB's text of the value (NULL: JSON null). */
static json_t *partition_value(const dw_col *c, const char *v)
{
	rk_usec t;
	const char *why;
	char buf[RK_TIME_STRLEN];

	if (!v)
		return json_null();
	if (c->kind == RK_DELTA_TIMESTAMP && rk_time_parse(v, strlen(v), &t, &why) == 0) {
		/* an instant, explicitly UTC: no reader has to guess the zone */
		rk_time_format_sql(t, false, buf);
		{
			char iso[RK_TIME_STRLEN + 2];
			char *sp = strchr(buf, ' ');

			if (sp)
				*sp = 'T';
			snprintf(iso, sizeof iso, "%sZ", buf);
			return json_string(iso);
		}
	}
	return json_string(v);
}

/*
 * Writes the rows of `select_sql` (a SELECT of the non-partition columns,
 * in w->cols order) as one new data file with partition values pv (JSON
 * object); appends its add action.  A selection of no row writes no file.
 */
static int write_file(rk_dw *w, const char *select_sql, json_t *pv, int64_t *rows, rk_error *err)
{
	char id[37], name[96], *path = NULL, *stats = NULL;
	size_t *wc = rk_xcalloc(w->ncols ? w->ncols : 1, sizeof *wc), nwc = 0;
	char **names = rk_xcalloc(w->ncols ? w->ncols : 1, sizeof *names);
	col_stats *st = rk_xcalloc(w->ncols ? w->ncols : 1, sizeof *st);
	rk_buf sql = RK_BUF_INIT;
	duckdb_result res;
	duckdb_data_chunk chunk;
	int64_t count = 0, size = 0;
	struct stat sb;
	int rc = -1;

	*rows = 0;
	for (size_t i = 0; i < w->ncols; i++) {
		if (!w->cols[i].partition) {
			names[nwc] = w->cols[i].name;
			st[nwc].nulls = -1;
			wc[nwc++] = i;
		}
	}
	if (uuid4(id, err) < 0)
		goto out;
	snprintf(name, sizeof name, "part-00000-%s-c000.snappy.parquet", id);
	path = rk_xmalloc(strlen(w->root) + strlen(name) + 2);
	sprintf(path, "%s/%s", w->root, name);
	rk_buf_printf(&sql, "COPY (%s) TO ", select_sql);
	rk_duck_quote(&sql, path);
	/* DuckDB 1.4.4's dictionary takes 0.0 and -0.0 for one value
	 * (docs/delta.md): no dictionary pages when a float column is written */
	rk_buf_printf(&sql, " (FORMAT parquet, COMPRESSION snappy, RETURN_STATS%s)",
	              w->has_float ? ", DICTIONARY_SIZE_LIMIT 1" : "");
	if (query(w, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "writing a Delta data file", err) < 0) {
		unlink(path);
		goto out;
	}
	while ((chunk = duckdb_fetch_chunk(res)) != NULL) {
		idx_t n = duckdb_data_chunk_get_size(chunk);
		int64_t *cnt = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 1));
		int64_t *sz = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 2));

		for (idx_t r = 0; r < n; r++) {
			count += cnt[r];
			size = sz[r];
			read_column_stats(duckdb_data_chunk_get_vector(chunk, 4), r, names, nwc, st);
		}
		duckdb_destroy_data_chunk(&chunk);
	}
	duckdb_destroy_result(&res);
	if (count == 0) {
		unlink(path);
		rc = 0;
		goto out;
	}
	if (stat(path, &sb) < 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "data file %s: %s", path, strerror(errno));
		goto out;
	}
	if (size <= 0)
		size = sb.st_size;
	stats = stats_json(w, count, wc, nwc, st);
	w->added = rk_xrealloc(w->added, (w->nadded + 1) * sizeof *w->added);
	w->added[w->nadded].abs_path = path;
	w->added[w->nadded].add = json_pack("{s:s,s:O,s:I,s:I,s:b,s:s}", "path", name, "partitionValues", pv, "size",
	                                    (json_int_t)size, "modificationTime",
	                                    (json_int_t)((int64_t)sb.st_mtim.tv_sec * 1000 +
	                                                 sb.st_mtim.tv_nsec / 1000000),
	                                    "dataChange", 1, "stats", stats);
	w->nadded++;
	path = NULL;
	w->rows_added += count;
	*rows = count;
	rc = 0;
out:
	for (size_t i = 0; i < nwc; i++) {
		free(st[i].min);
		free(st[i].max);
	}
	free(st);
	free(names);
	free(wc);
	free(stats);
	free(path);
	rk_buf_free(&sql);
	return rc;
}

/* The SELECT list of the non-partition columns of the table from a source
 * whose columns are the table's (cast to the table's types). */
static void data_columns(const rk_dw *w, rk_buf *sql)
{
	bool first = true;

	for (size_t i = 0; i < w->ncols; i++) {
		if (w->cols[i].partition)
			continue;
		if (!first)
			rk_buf_puts(sql, ", ");
		first = false;
		rk_buf_puts(sql, "CAST(");
		rk_duck_quote_ident(sql, w->cols[i].name);
		rk_buf_printf(sql, " AS %s) AS ", w->cols[i].duck_type);
		rk_duck_quote_ident(sql, w->cols[i].name);
	}
}

/*
 * Writes the rows of relation `from` (its columns already the table's, by
 * name) as one file per distinct combination of partition values.
 */
static int write_rows(rk_dw *w, const char *from, int64_t *rows, rk_error *err)
{
	rk_buf sql = RK_BUF_INIT, where = RK_BUF_INIT;
	size_t *pc = rk_xcalloc(w->ncols ? w->ncols : 1, sizeof *pc), np = 0;
	duckdb_result res;
	int64_t n;
	int rc = -1;

	*rows = 0;
	for (size_t i = 0; i < w->ncols; i++)
		if (w->cols[i].partition)
			pc[np++] = i;
	if (np == 0) {
		rk_buf_puts(&sql, "SELECT ");
		data_columns(w, &sql);
		rk_buf_printf(&sql, " FROM %s", from);
		json_t *none = json_object();

		rc = write_file(w, rk_buf_cstr(&sql), none, rows, err);
		json_decref(none);
		goto out;
	}
	/* the distinct partition values, as text */
	rk_buf_puts(&sql, "SELECT DISTINCT ");
	for (size_t p = 0; p < np; p++) {
		rk_buf_puts(&sql, p ? ", CAST(" : "CAST(");
		rk_duck_quote_ident(&sql, w->cols[pc[p]].name);
		rk_buf_printf(&sql, " AS %s)::VARCHAR", w->cols[pc[p]].duck_type);
	}
	rk_buf_printf(&sql, " FROM %s", from);
	if (query(w, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "the partition values written", err) < 0)
		goto out;
	for (idx_t r = 0; r < duckdb_row_count(&res); r++) {
		json_t *pv = json_object();

		rk_buf_reset(&where);
		for (size_t p = 0; p < np; p++) {
			char *v = duckdb_value_is_null(&res, p, r) ? NULL : duckdb_value_varchar(&res, p, r);

			json_object_set_new(pv, w->cols[pc[p]].name, partition_value(&w->cols[pc[p]], v));
			rk_buf_puts(&where, p ? " AND CAST(" : "CAST(");
			rk_duck_quote_ident(&where, w->cols[pc[p]].name);
			rk_buf_printf(&where, " AS %s)::VARCHAR IS NOT DISTINCT FROM ", w->cols[pc[p]].duck_type);
			if (v)
				rk_duck_quote(&where, v);
			else
				rk_buf_puts(&where, "NULL");
			duckdb_free(v);
		}
		rk_buf_reset(&sql);
		rk_buf_puts(&sql, "SELECT ");
		data_columns(w, &sql);
		rk_buf_printf(&sql, " FROM %s WHERE %s", from, rk_buf_cstr(&where));
		if (write_file(w, rk_buf_cstr(&sql), pv, &n, err) < 0) {
			json_decref(pv);
			duckdb_destroy_result(&res);
			goto out;
		}
		json_decref(pv);
		*rows += n;
	}
	duckdb_destroy_result(&res);
	rc = 0;
out:
	free(pc);
	rk_buf_free(&sql);
	rk_buf_free(&where);
	return rc;
}

int rk_dw_append(rk_dw *w, const char *relation, int64_t *rows, rk_error *err)
{
	rk_buf sql = RK_BUF_INIT, from = RK_BUF_INIT;
	duckdb_result res;
	int64_t n = 0;
	int rc = -1;

	if (rows)
		*rows = 0;
	if (!w->snap && !w->creating)
		return rk_error_set(err, RK_EXIT_USAGE, "Delta table %s does not exist", w->display);
	/* every column of relation must be the table's */
	rk_buf_printf(&sql, "SELECT column_name FROM (DESCRIBE SELECT * FROM %s)", relation);
	if (query(w, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "the columns written", err) < 0)
		goto out;
	for (idx_t r = 0; r < duckdb_row_count(&res); r++) {
		char *name = duckdb_value_varchar(&res, 0, r);
		size_t i;

		for (i = 0; i < w->ncols && strcmp(w->cols[i].name, name) != 0; i++)
			;
		if (i == w->ncols) {
			rk_error_set(err, RK_EXIT_USAGE, "column %s is not in the schema of Delta table %s", name,
			             w->display);
			rk_error_hint(err, "reckon does not change a Delta table's schema");
			duckdb_free(name);
			duckdb_destroy_result(&res);
			goto out;
		}
		duckdb_free(name);
	}
	/* the table's columns from relation, NULL for those it lacks */
	rk_buf_puts(&from, "(SELECT ");
	for (size_t i = 0; i < w->ncols; i++) {
		bool have = false;

		for (idx_t r = 0; r < duckdb_row_count(&res) && !have; r++) {
			char *name = duckdb_value_varchar(&res, 0, r);

			have = strcmp(name, w->cols[i].name) == 0;
			duckdb_free(name);
		}
		if (i)
			rk_buf_puts(&from, ", ");
		if (have)
			rk_duck_quote_ident(&from, w->cols[i].name);
		else
			rk_buf_printf(&from, "CAST(NULL AS %s) AS ", w->cols[i].duck_type),
			        rk_duck_quote_ident(&from, w->cols[i].name);
	}
	rk_buf_printf(&from, " FROM %s)", relation);
	duckdb_destroy_result(&res);
	if (write_rows(w, rk_buf_cstr(&from), &n, err) < 0)
		goto out;
	if (rows)
		*rows = n;
	rc = 0;
out:
	rk_buf_free(&sql);
	rk_buf_free(&from);
	return rc;
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
		if (query(w, rk_buf_cstr(&sql), &res, RK_EXIT_USAGE, "the rows to delete", err) < 0)
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
		if (write_rows(w, rk_buf_cstr(&sql), &kept, err) < 0)
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
	if (uuid4(id, err) < 0)
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

		snprintf(final, sizeof final, "%s/%020lld.json", dir, (long long)version);
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
