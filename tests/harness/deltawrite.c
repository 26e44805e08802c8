/*
 * deltawrite.c - rk-deltawrite, the tests' own minimal Delta writer (not
 * part of reckon): Parquet files written by DuckDB, and the _delta_log JSON
 * commits written here as PROTOCOL.md describes them, so that an
 * integration test can put the rows of a PostgreSQL table into a Delta table
 * and then damage it the ways a lake gets damaged.
 *
 *   rk-deltawrite DIR create FILES SQL
 *       commit 0: protocol (reader 3 / writer 7, deletionVectors), metaData
 *       (the schema of SQL's result), and FILES add actions, the rows of the
 *       DuckDB query SQL cut into FILES parquet files in their order, each
 *       with stats as Spark writes them (numRecords, minValues/maxValues -
 *       timestamps truncated to milliseconds - and nullCount)
 *   rk-deltawrite DIR append OPERATION SQL [nostats]
 *       the next commit (commitInfo.operation OPERATION) adds one file of
 *       the rows of SQL, with stats as create writes them (none: nostats)
 *   rk-deltawrite DIR replace OPERATION N SQL
 *       the next commit removes the N-th file and adds one of the rows of SQL
 *   rk-deltawrite DIR remove N
 *       the next commit removes the N-th file (0-based, in the order of the
 *       log's add actions: commit 0's first)
 *   rk-deltawrite DIR dv N ROW
 *       the next commit re-adds the N-th file with an inline deletion vector
 *       (storageType i) that deletes its row ROW (0-based)
 * Commit v's commitInfo.timestamp is 2026-03-02T00:00:00Z plus v minutes.
 *   rk-deltawrite - sql SQL
 *       runs SQL on DuckDB's own threads and prints its first value (the
 *       benchmark's floor: DuckDB itself reading a table's files)
 *
 * Exit status 0, or 1 with a message on stderr.
 */
#include <dirent.h>
#include <duckdb.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rk-deltawrite: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static duckdb_database db;
static duckdb_connection con;

static void sql(const char *q, duckdb_result *res)
{
	duckdb_result tmp;

	if (duckdb_query(con, q, res ? res : &tmp) == DuckDBError) {
		fprintf(stderr, "rk-deltawrite: %s\n  in: %s\n", duckdb_result_error(res ? res : &tmp), q);
		exit(1);
	}
	if (!res)
		duckdb_destroy_result(&tmp);
}

/* The Delta type of a DuckDB column type (PROTOCOL.md, Primitive Types). */
static char *delta_type(const char *duck)
{
	char buf[64];

	if (!strcmp(duck, "BIGINT"))
		return strdup("long");
	if (!strcmp(duck, "INTEGER"))
		return strdup("integer");
	if (!strcmp(duck, "SMALLINT"))
		return strdup("short");
	if (!strcmp(duck, "TINYINT"))
		return strdup("byte");
	if (!strcmp(duck, "DOUBLE"))
		return strdup("double");
	if (!strcmp(duck, "FLOAT"))
		return strdup("float");
	if (!strcmp(duck, "BOOLEAN"))
		return strdup("boolean");
	if (!strcmp(duck, "VARCHAR"))
		return strdup("string");
	if (!strcmp(duck, "BLOB"))
		return strdup("binary");
	if (!strcmp(duck, "DATE"))
		return strdup("date");
	if (!strcmp(duck, "TIMESTAMP WITH TIME ZONE"))
		return strdup("timestamp");
	if (!strcmp(duck, "TIMESTAMP"))
		return strdup("timestamp_ntz");
	if (!strncmp(duck, "DECIMAL(", 8)) {
		snprintf(buf, sizeof buf, "decimal%s", duck + 7);
		return strdup(buf);
	}
	die("no Delta type for DuckDB type %s", duck);
}

/* Whether stats are kept for a Delta type (not for booleans and binaries). */
static int has_minmax(const char *t)
{
	return strcmp(t, "boolean") && strcmp(t, "binary");
}

static int is_number(const char *t)
{
	return !strcmp(t, "long") || !strcmp(t, "integer") || !strcmp(t, "short") || !strcmp(t, "byte") ||
	       !strcmp(t, "double") || !strcmp(t, "float") || !strncmp(t, "decimal", 7);
}

static char *log_path(const char *dir, long version)
{
	char *p = malloc(strlen(dir) + 64);

	sprintf(p, "%s/_delta_log/%020ld.json", dir, version);
	return p;
}

/* Writes the actions (a JSON array) as commit version, one per line; the
 * version must not exist (create-exclusive, as a Delta writer puts it). */
static void write_commit(const char *dir, long version, json_t *actions)
{
	char *p = log_path(dir, version);
	FILE *f;
	size_t i;
	json_t *a;

	f = fopen(p, "wx");
	if (!f)
		die("cannot create %s", p);
	json_array_foreach(actions, i, a) {
		char *line = json_dumps(a, JSON_COMPACT);

		fprintf(f, "%s\n", line);
		free(line);
	}
	if (fclose(f) != 0)
		die("cannot write %s", p);
	free(p);
}

static long next_version(const char *dir)
{
	long v = 0;

	for (;;) {
		char *p = log_path(dir, v);
		struct stat st;
		int there = stat(p, &st) == 0;

		free(p);
		if (!there)
			return v;
		v++;
	}
}

static json_t *commit_info(const char *op, long version)
{
	return json_pack("{s:{s:I,s:s,s:s}}", "commitInfo", "timestamp", (json_int_t)1772409600000 + version * 60000,
	                 "operation", op, "engineInfo", "reckon tests rk-deltawrite");
}

/* The rows of query, as table src2 whose __file cuts them into nfiles
 * files in their order; the columns' names and Delta types. */
typedef struct rows {
	idx_t ncols;
	char **names, **types;
} rows;

static void load_rows(const char *query, int nfiles, rows *r)
{
	char q[8192];
	duckdb_result res;
	long total;

	snprintf(q, sizeof q, "CREATE TABLE src AS %s", query);
	sql(q, NULL);
	sql("SELECT column_name, column_type FROM (DESCRIBE src)", &res);
	r->ncols = duckdb_row_count(&res);
	r->names = calloc(r->ncols, sizeof *r->names);
	r->types = calloc(r->ncols, sizeof *r->types);
	for (idx_t c = 0; c < r->ncols; c++) {
		char *dt = duckdb_value_varchar(&res, 1, c);

		r->names[c] = duckdb_value_varchar(&res, 0, c);
		r->types[c] = delta_type(dt);
		duckdb_free(dt);
	}
	duckdb_destroy_result(&res);
	sql("SELECT count(*) FROM src", &res);
	total = (long)duckdb_value_int64(&res, 0, 0);
	duckdb_destroy_result(&res);
	snprintf(q, sizeof q,
	         "CREATE TABLE src2 AS SELECT *, (row_number() OVER (ORDER BY rowid) - 1) * %d // greatest(%ld, 1) AS "
	         "__file FROM src ORDER BY rowid",
	         nfiles, total);
	sql(q, NULL);
}

static void rows_free(rows *r)
{
	for (idx_t c = 0; c < r->ncols; c++) {
		duckdb_free(r->names[c]);
		free(r->types[c]);
	}
	free(r->names);
	free(r->types);
}

/* Writes file f of src2 as DIR/name; its add action, with stats unless
 * told not to. */
static json_t *file_add(const char *dir, int f, const char *name, const rows *r, int with_stats)
{
	char q[8192], path[4096];
	json_t *mins = json_object(), *maxs = json_object(), *nulls = json_object(), *stats, *add;
	duckdb_result res;
	struct stat st;
	char *stats_str;
	long n;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	/* no dictionary pages: DuckDB 1.4.4's dictionary takes 0.0 and
	 * -0.0 for one value, and writes one of them for both */
	snprintf(q, sizeof q,
	         "COPY (SELECT * EXCLUDE (__file) FROM src2 WHERE __file = %d ORDER BY rowid) TO '%s' "
	         "(FORMAT parquet, DICTIONARY_SIZE_LIMIT 1)",
	         f, path);
	sql(q, NULL);
	if (stat(path, &st) != 0)
		die("no file %s", path);
	snprintf(q, sizeof q, "SELECT count(*) FROM src2 WHERE __file = %d", f);
	sql(q, &res);
	n = (long)duckdb_value_int64(&res, 0, 0);
	duckdb_destroy_result(&res);
	for (idx_t c = 0; c < r->ncols; c++) {
		const char *t = r->types[c];
		char *lo, *hi;
		/* timestamps as Spark writes their stats: milliseconds, truncated */
		const char *pre = !strcmp(t, "timestamp") || !strcmp(t, "timestamp_ntz") ? "strftime(" : "CAST(";
		const char *post = !strcmp(t, "timestamp")       ? ", '%Y-%m-%dT%H:%M:%S.%gZ')"
		                   : !strcmp(t, "timestamp_ntz") ? ", '%Y-%m-%dT%H:%M:%S.%g')"
		                                                 : " AS VARCHAR)";
		char a[512], b[512];

		snprintf(a, sizeof a, "%smin(\"%s\")%s", pre, r->names[c], post);
		snprintf(b, sizeof b, "%smax(\"%s\")%s", pre, r->names[c], post);
		snprintf(q, sizeof q, "SELECT %s, %s, count(*) - count(\"%s\") FROM src2 WHERE __file = %d", a, b,
		         r->names[c], f);
		sql(q, &res);
		json_object_set_new(nulls, r->names[c], json_integer(duckdb_value_int64(&res, 2, 0)));
		if (has_minmax(t) && !duckdb_value_is_null(&res, 0, 0)) {
			lo = duckdb_value_varchar(&res, 0, 0);
			hi = duckdb_value_varchar(&res, 1, 0);
			if (is_number(t)) {
				json_object_set_new(mins, r->names[c], json_loads(lo, JSON_DECODE_ANY, NULL));
				json_object_set_new(maxs, r->names[c], json_loads(hi, JSON_DECODE_ANY, NULL));
			} else {
				json_object_set_new(mins, r->names[c], json_string(lo));
				json_object_set_new(maxs, r->names[c], json_string(hi));
			}
			duckdb_free(lo);
			duckdb_free(hi);
		}
		duckdb_destroy_result(&res);
	}
	stats = json_pack("{s:I,s:o,s:o,s:o}", "numRecords", (json_int_t)n, "minValues", mins, "maxValues", maxs,
	                  "nullCount", nulls);
	stats_str = json_dumps(stats, JSON_COMPACT);
	json_decref(stats);
	add = json_pack("{s:{s:s,s:{},s:I,s:I,s:b}}", "add", "path", name, "partitionValues", "size",
	                (json_int_t)st.st_size, "modificationTime", (json_int_t)1772409600000, "dataChange", 1);
	if (with_stats)
		json_object_set_new(json_object_get(add, "add"), "stats", json_string(stats_str));
	free(stats_str);
	return add;
}

static void cmd_create(const char *dir, int nfiles, const char *query)
{
	char q[8192], *schema_str;
	json_t *actions = json_array(), *fields = json_array(), *schema;
	rows r;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		die("cannot create %s", dir);
	snprintf(q, sizeof q, "%s/_delta_log", dir);
	if (mkdir(q, 0755) != 0 && errno != EEXIST)
		die("cannot create %s", q);
	load_rows(query, nfiles, &r);
	for (idx_t c = 0; c < r.ncols; c++)
		json_array_append_new(fields, json_pack("{s:s,s:s,s:b,s:{}}", "name", r.names[c], "type", r.types[c],
		                                        "nullable", 1, "metadata"));
	schema = json_pack("{s:s,s:o}", "type", "struct", "fields", fields);
	schema_str = json_dumps(schema, JSON_COMPACT);
	json_decref(schema);

	json_array_append_new(actions, commit_info("WRITE", 0));
	json_array_append_new(actions, json_pack("{s:{s:i,s:i,s:[s],s:[s]}}", "protocol", "minReaderVersion", 3,
	                                         "minWriterVersion", 7, "readerFeatures", "deletionVectors",
	                                         "writerFeatures", "deletionVectors"));
	json_array_append_new(actions,
	                      json_pack("{s:{s:s,s:{s:s,s:{}},s:s,s:[],s:{s:s},s:I}}", "metaData", "id",
	                                "00000000-0000-4000-8000-000000000001", "format", "provider", "parquet",
	                                "options", "schemaString", schema_str, "partitionColumns", "configuration",
	                                "delta.enableDeletionVectors", "true", "createdTime",
	                                (json_int_t)1772409600000));
	free(schema_str);

	for (int f = 0; f < nfiles; f++) {
		char name[64];

		snprintf(name, sizeof name, "part-%05d-reckon-test.snappy.parquet", f);
		json_array_append_new(actions, file_add(dir, f, name, &r, 1));
	}
	write_commit(dir, 0, actions);
	json_decref(actions);
	rows_free(&r);
}

/* The N-th add action of the log (commit 0's first, then the later ones'). */
static json_t *nth_add(const char *dir, int nth)
{
	long last = next_version(dir);
	char line[1 << 16];
	int seen = 0;

	for (long v = 0; v < last; v++) {
		char *p = log_path(dir, v);
		FILE *f = fopen(p, "r");

		if (!f)
			die("cannot read %s", p);
		free(p);
		while (fgets(line, sizeof line, f)) {
			json_t *a = json_loads(line, 0, NULL), *add = a ? json_object_get(a, "add") : NULL;

			if (add && seen++ == nth) {
				json_incref(add);
				json_decref(a);
				fclose(f);
				return add;
			}
			json_decref(a);
		}
		fclose(f);
	}
	die("the log has no file %d", nth);
}

static json_t *remove_of(json_t *add)
{
	return json_pack("{s:{s:O,s:I,s:b,s:O,s:O}}", "remove", "path", json_object_get(add, "path"),
	                 "deletionTimestamp", (json_int_t)1772409700000, "dataChange", 1, "partitionValues",
	                 json_object_get(add, "partitionValues"), "size", json_object_get(add, "size"));
}

/* Z85 (ZeroMQ RFC 32) of n bytes, n a multiple of 4. */
static void z85(const unsigned char *in, size_t n, char *out)
{
	static const char alphabet[] =
	        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

	for (size_t i = 0; i < n; i += 4) {
		uint32_t v = (uint32_t)in[i] << 24 | (uint32_t)in[i + 1] << 16 | (uint32_t)in[i + 2] << 8 | in[i + 3];

		for (int k = 4; k >= 0; k--) {
			out[k] = alphabet[v % 85];
			v /= 85;
		}
		out += 5;
	}
	*out = 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

static void cmd_dv(const char *dir, int nth, unsigned row)
{
	json_t *add = nth_add(dir, nth), *actions = json_array(), *readd, *dv;
	/* PROTOCOL.md, Deletion Vector Format: the magic number, then a
	 * RoaringBitmapArray of one 32-bit bitmap (key 0) in the portable
	 * serialization: cookie 12346 (no run containers), one container, its
	 * key and cardinality - 1, its offset, its one 16-bit value */
	unsigned char data[40] = {0};
	char text[64];
	size_t len = 0;

	if (row > 65535)
		die("rows up to 65535 only, not %u", row);
	put32(data, 1681511377), len = 4;
	memset(data + len, 0, 8), data[len] = 1, len += 8;   /* one bitmap, int64 LE */
	put32(data + len, 0), len += 4;                       /* its key */
	put32(data + len, 12346), len += 4;
	put32(data + len, 1), len += 4;
	data[len] = 0, data[len + 1] = 0, data[len + 2] = 0, data[len + 3] = 0, len += 4;
	put32(data + len, 16), len += 4;
	data[len] = (unsigned char)(row & 0xff), data[len + 1] = (unsigned char)(row >> 8), len += 2;
	z85(data, (len + 3) / 4 * 4, text);
	json_array_append_new(actions, commit_info("DELETE", next_version(dir)));
	json_array_append_new(actions, remove_of(add));
	readd = json_deep_copy(add);
	dv = json_pack("{s:s,s:s,s:i,s:i}", "storageType", "i", "pathOrInlineDv", text, "sizeInBytes", (int)len,
	               "cardinality", 1);
	json_object_set_new(readd, "deletionVector", dv);
	json_array_append_new(actions, json_pack("{s:o}", "add", readd));
	write_commit(dir, next_version(dir), actions);
	json_decref(actions);
	json_decref(add);
}

/* The next commit: operation op, removing the nth file (nth >= 0), adding
 * one file of the rows of query (query non-NULL). */
static void cmd_commit(const char *dir, const char *op, int nth, const char *query, int with_stats)
{
	long v = next_version(dir);
	json_t *actions = json_array();

	json_array_append_new(actions, commit_info(op, v));
	if (nth >= 0) {
		json_t *add = nth_add(dir, nth);

		json_array_append_new(actions, remove_of(add));
		json_decref(add);
	}
	if (query) {
		char name[64];
		rows r;

		load_rows(query, 1, &r);
		snprintf(name, sizeof name, "part-00000-reckon-test-v%ld.snappy.parquet", v);
		json_array_append_new(actions, file_add(dir, 0, name, &r, with_stats));
		rows_free(&r);
	}
	write_commit(dir, v, actions);
	json_decref(actions);
}

static void cmd_remove(const char *dir, int nth)
{
	json_t *add = nth_add(dir, nth), *actions = json_array();

	json_array_append_new(actions, commit_info("DELETE", next_version(dir)));
	json_array_append_new(actions, remove_of(add));
	write_commit(dir, next_version(dir), actions);
	json_decref(actions);
	json_decref(add);
}

static void cmd_sql(const char *query)
{
	duckdb_result res;
	char *v;

	sql(query, &res);
	v = duckdb_value_varchar(&res, 0, 0);
	printf("%s\n", v ? v : "NULL");
	duckdb_free(v);
	duckdb_destroy_result(&res);
}

int main(int argc, char **argv)
{
	duckdb_config cfg;

	if (argc < 3)
		die("usage: rk-deltawrite DIR create FILES SQL | append OP SQL [nostats] | replace OP N SQL | remove N | "
		    "dv N ROW | - sql SQL");
	/* one thread writes the files in order; a query gets DuckDB's default */
	if (duckdb_create_config(&cfg) == DuckDBError ||
	    (strcmp(argv[2], "sql") != 0 && duckdb_set_config(cfg, "threads", "1") == DuckDBError) ||
	    duckdb_set_config(cfg, "autoinstall_known_extensions", "false") == DuckDBError ||
	    duckdb_set_config(cfg, "autoload_known_extensions", "false") == DuckDBError ||
	    duckdb_open_ext(NULL, &db, cfg, NULL) == DuckDBError || duckdb_connect(db, &con) == DuckDBError)
		die("%s", "cannot open DuckDB");
	duckdb_destroy_config(&cfg);
	sql("SET TimeZone = 'UTC'", NULL);
	if (!strcmp(argv[2], "create") && argc == 5)
		cmd_create(argv[1], atoi(argv[3]), argv[4]);
	else if (!strcmp(argv[2], "append") && (argc == 5 || (argc == 6 && !strcmp(argv[5], "nostats"))))
		cmd_commit(argv[1], argv[3], -1, argv[4], argc == 5);
	else if (!strcmp(argv[2], "replace") && argc == 6)
		cmd_commit(argv[1], argv[3], atoi(argv[4]), argv[5], 1);
	else if (!strcmp(argv[2], "remove") && argc == 4)
		cmd_remove(argv[1], atoi(argv[3]));
	else if (!strcmp(argv[2], "sql") && argc == 4)
		cmd_sql(argv[3]);
	else if (!strcmp(argv[2], "dv") && argc == 5)
		cmd_dv(argv[1], atoi(argv[3]), (unsigned)atoi(argv[4]));
	else
		die("usage: rk-deltawrite DIR create FILES SQL | append OP SQL [nostats] | replace OP N SQL | remove N | "
		    "dv N ROW | - sql SQL");
	duckdb_disconnect(&con);
	duckdb_close(&db);
	return 0;
}
