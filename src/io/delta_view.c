/*
 * delta_view.c - the Delta schema's types in DuckDB, and the view of a
 * snapshot's live rows (see rk_delta_view in delta.h).
 *
 * The view reads the data files with read_parquet (never a Parquet reader
 * of our own), under the physical column names, and gives each column its
 * logical name and type:
 *   - column mapping ("Reader Requirements for Column Mapping"): columns are
 *     read by physical name, nested struct fields renamed by struct_pack;
 *     in id mode the files' field ids are checked against those names;
 *   - partition columns ("Partition Value Serialization") come from a
 *     helper table of the files' partition values, joined on file_index;
 *   - deletion vectors ("Reader Requirements for Deletion Vectors"): an
 *     anti-join of (file_index, file_row_number) with a helper table of the
 *     deleted rows;
 *   - timestamps are cast to TIMESTAMPTZ: INT96 and every naive Parquet
 *     timestamp are taken as UTC, as the session's TimeZone is (io/duck.h);
 *     timestamp_ntz is TIMESTAMP.
 * hive_partitioning is off: partition values come from the log, never from
 * directory names ("Data Files").
 */
#include "io/delta_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *delta;
	const char *duck;
	rk_delta_kind kind;
} primitives[] = {
	{ "string", "VARCHAR", RK_DELTA_STRING },
	{ "long", "BIGINT", RK_DELTA_LONG },
	{ "integer", "INTEGER", RK_DELTA_INTEGER },
	{ "short", "SMALLINT", RK_DELTA_SHORT },
	{ "byte", "TINYINT", RK_DELTA_BYTE },
	{ "float", "FLOAT", RK_DELTA_FLOAT },
	{ "double", "DOUBLE", RK_DELTA_DOUBLE },
	{ "boolean", "BOOLEAN", RK_DELTA_BOOLEAN },
	{ "binary", "BLOB", RK_DELTA_BINARY },
	{ "date", "DATE", RK_DELTA_DATE },
	{ "timestamp", "TIMESTAMPTZ", RK_DELTA_TIMESTAMP },
	{ "timestamp_ntz", "TIMESTAMP", RK_DELTA_TIMESTAMP_NTZ },
};

int rk_delta_type(json_t *type, const char *column, rk_buf *out, rk_delta_kind *kind, int *precision, int *scale,
                  rk_error *err)
{
	rk_delta_kind k;
	int p = 0, s = 0;
	const char *name;

	if (json_is_string(type)) {
		name = json_string_value(type);
		for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++) {
			if (strcmp(name, primitives[i].delta) == 0) {
				rk_buf_puts(out, primitives[i].duck);
				if (kind)
					*kind = primitives[i].kind;
				return 0;
			}
		}
		/* "decimal(p,s)"; a bare "decimal" is Spark's decimal(10,0) */
		if (strcmp(name, "decimal") == 0 || sscanf(name, "decimal(%d,%d)", &p, &s) == 2 ||
		    sscanf(name, "decimal(%d, %d)", &p, &s) == 2) {
			if (strcmp(name, "decimal") == 0) {
				p = 10;
				s = 0;
			}
			if (p < 1 || p > 38 || s < 0 || s > p)
				return rk_error_set(err, RK_EXIT_USAGE, "column %s: type %s: precision 1 to 38, scale 0 to "
				                                        "precision",
				                    column, name);
			rk_buf_printf(out, "DECIMAL(%d,%d)", p, s);
			if (kind) {
				*kind = RK_DELTA_DECIMAL;
				*precision = p;
				*scale = s;
			}
			return 0;
		}
		rk_error_set(err, RK_EXIT_USAGE, "column %s: Delta type '%s' is not implemented by this reader", column,
		             name);
		return rk_error_hint(err, "implemented: string, long, integer, short, byte, float, double, decimal, "
		                          "boolean, binary, date, timestamp, timestamp_ntz, struct, array, map");
	}
	name = json_string_value(json_object_get(type, "type"));
	if (!name)
		return rk_error_set(err, RK_EXIT_USAGE, "column %s: a type that is neither a name nor an object",
		                    column);
	if (strcmp(name, "struct") == 0) {
		json_t *fields = json_object_get(type, "fields"), *f;
		size_t i;

		k = RK_DELTA_STRUCT;
		rk_buf_puts(out, "STRUCT(");
		json_array_foreach(fields, i, f)
		{
			const char *fname = json_string_value(json_object_get(f, "name"));

			if (!fname)
				return rk_error_set(err, RK_EXIT_USAGE, "column %s: a struct field without a name", column);
			if (i)
				rk_buf_puts(out, ", ");
			rk_duck_quote_ident(out, fname);
			rk_buf_putc(out, ' ');
			if (rk_delta_type(json_object_get(f, "type"), column, out, NULL, NULL, NULL, err) < 0)
				return -1;
		}
		rk_buf_putc(out, ')');
	} else if (strcmp(name, "array") == 0) {
		k = RK_DELTA_ARRAY;
		if (rk_delta_type(json_object_get(type, "elementType"), column, out, NULL, NULL, NULL, err) < 0)
			return -1;
		rk_buf_puts(out, "[]");
	} else if (strcmp(name, "map") == 0) {
		k = RK_DELTA_MAP;
		rk_buf_puts(out, "MAP(");
		if (rk_delta_type(json_object_get(type, "keyType"), column, out, NULL, NULL, NULL, err) < 0)
			return -1;
		rk_buf_puts(out, ", ");
		if (rk_delta_type(json_object_get(type, "valueType"), column, out, NULL, NULL, NULL, err) < 0)
			return -1;
		rk_buf_putc(out, ')');
	} else {
		return rk_error_set(err, RK_EXIT_USAGE, "column %s: Delta type '%s' is not implemented by this reader",
		                    column, name);
	}
	if (kind)
		*kind = k;
	return 0;
}

/* The physical name of a (nested) field: its column mapping name. */
static const char *field_physical(const rk_delta *d, json_t *field)
{
	const char *phys = json_string_value(
	        json_object_get(json_object_get(field, "metadata"), "delta.columnMapping.physicalName"));

	return strcmp(d->mapping, "none") != 0 && phys ? phys : json_string_value(json_object_get(field, "name"));
}

/* Whether a type holds a struct field whose physical name differs from its
 * logical one (then a plain CAST cannot rename it). */
static bool renames(const rk_delta *d, json_t *type)
{
	const char *name = json_string_value(json_object_get(type, "type"));
	json_t *f;
	size_t i;

	if (!name)
		return false;
	if (strcmp(name, "struct") == 0) {
		json_array_foreach(json_object_get(type, "fields"), i, f)
		{
			if (strcmp(field_physical(d, f), json_string_value(json_object_get(f, "name"))) != 0 ||
			    renames(d, json_object_get(f, "type")))
				return true;
		}
		return false;
	}
	if (strcmp(name, "array") == 0)
		return renames(d, json_object_get(type, "elementType"));
	if (strcmp(name, "map") == 0)
		return renames(d, json_object_get(type, "keyType")) || renames(d, json_object_get(type, "valueType"));
	return false;
}

/* The expression reading src (physical layout) as type (logical names). */
static void read_expr(const rk_delta *d, json_t *type, const char *src, int depth, rk_buf *out)
{
	rk_buf duck = RK_BUF_INIT, sub = RK_BUF_INIT;
	const char *name = json_string_value(json_object_get(type, "type"));
	rk_error ignored;

	if (!renames(d, type)) {
		rk_error_clear(&ignored);
		rk_delta_type(type, "", &duck, NULL, NULL, NULL, &ignored);
		rk_buf_printf(out, "CAST(%s AS %s)", src, rk_buf_cstr(&duck));
	} else if (strcmp(name, "struct") == 0) {
		json_t *f;
		size_t i;

		rk_buf_printf(out, "CASE WHEN (%s) IS NULL THEN NULL ELSE struct_pack(", src);
		json_array_foreach(json_object_get(type, "fields"), i, f)
		{
			if (i)
				rk_buf_puts(out, ", ");
			rk_duck_quote_ident(out, json_string_value(json_object_get(f, "name")));
			rk_buf_puts(out, " := ");
			rk_buf_reset(&sub);
			rk_buf_printf(&sub, "struct_extract(%s, ", src);
			rk_duck_quote(&sub, field_physical(d, f));
			rk_buf_putc(&sub, ')');
			read_expr(d, json_object_get(f, "type"), rk_buf_cstr(&sub), depth, out);
		}
		rk_buf_puts(out, ") END");
	} else if (strcmp(name, "array") == 0) {
		rk_buf_printf(&sub, "e%d", depth);
		rk_buf_printf(out, "list_transform(%s, lambda e%d: ", src, depth);
		read_expr(d, json_object_get(type, "elementType"), rk_buf_cstr(&sub), depth + 1, out);
		rk_buf_putc(out, ')');
	} else { /* map */
		rk_buf_printf(out, "map_from_entries(list_transform(map_entries(%s), lambda e%d: struct_pack(key := ",
		              src, depth);
		rk_buf_printf(&sub, "struct_extract(e%d, 'key')", depth);
		read_expr(d, json_object_get(type, "keyType"), rk_buf_cstr(&sub), depth + 1, out);
		rk_buf_puts(out, ", value := ");
		rk_buf_reset(&sub);
		rk_buf_printf(&sub, "struct_extract(e%d, 'value')", depth);
		read_expr(d, json_object_get(type, "valueType"), rk_buf_cstr(&sub), depth + 1, out);
		rk_buf_puts(out, ")))");
	}
	rk_buf_free(&duck);
	rk_buf_free(&sub);
}

static void file_list(const rk_delta *d, const size_t *files, size_t n, rk_buf *out)
{
	rk_buf_puts(out, "read_parquet([");
	for (size_t i = 0; i < n; i++) {
		if (i)
			rk_buf_putc(out, ',');
		rk_duck_quote(out, d->files[files ? files[i] : i].path);
	}
	rk_buf_puts(out, "], hive_partitioning = false, union_by_name = true)");
}

/* Physical column names present in the files (union of their schemas). */
typedef struct names {
	char **v;
	size_t n;
} names;

static int name_cb(void *ctx, const char *s, size_t len, rk_error *err)
{
	names *nm = ctx;

	if (!s)
		return 0;
	nm->v = rk_xrealloc(nm->v, (nm->n + 1) * sizeof *nm->v);
	nm->v[nm->n++] = rk_xstrndup(s, len);
	return 0;
}

static bool has_name(const names *nm, const char *s)
{
	for (size_t i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i], s) == 0)
			return true;
	return false;
}

static void names_free(names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
}

static int exec(duckdb_connection con, rk_buf *sql, rk_error *err)
{
	return rk_duck_query(con, rk_buf_cstr(sql), NULL, RK_EXIT_RUNTIME, "reading the Delta table", err);
}

/* "Reader Requirements for Column Mapping", id mode: columns are resolved
 * here by physical name; a file whose field ids disagree with those names
 * is refused rather than read wrongly. */
static int check_field_ids(const rk_delta *d, duckdb_connection con, const size_t *files, size_t n, rk_error *err)
{
	rk_buf sql = RK_BUF_INIT;
	names bad = { 0 };
	int rc;

	rk_buf_puts(&sql, "SELECT DISTINCT file_name || ': field id ' || field_id || ' is named ' || name "
	                  "FROM parquet_schema([");
	for (size_t i = 0; i < n; i++) {
		if (i)
			rk_buf_putc(&sql, ',');
		rk_duck_quote(&sql, d->files[files ? files[i] : i].path);
	}
	rk_buf_puts(&sql, "]) WHERE ");
	for (size_t c = 0, k = 0; c < d->ncols; c++) {
		if (d->cols[c].partition)
			continue;
		if (k++)
			rk_buf_puts(&sql, " OR ");
		rk_buf_printf(&sql, "(field_id = %lld AND name <> ", (long long)d->cols[c].field_id);
		rk_duck_quote(&sql, d->cols[c].physical_name);
		rk_buf_putc(&sql, ')');
	}
	rk_buf_puts(&sql, " LIMIT 1");
	rc = rk_duck_each_string(con, rk_buf_cstr(&sql), RK_EXIT_RUNTIME, "reading the Delta table's field ids",
	                         name_cb, &bad, err);
	rk_buf_free(&sql);
	if (rc == 0 && bad.n) {
		rk_error_set(err, RK_EXIT_USAGE,
		             "column mapping mode id: %s, not as the schema's physical name; resolving columns by "
		             "field id alone is not implemented",
		             bad.v[0]);
		rc = -1;
	}
	names_free(&bad);
	return rc;
}

static bool has_data_column(const rk_delta *d)
{
	for (size_t c = 0; c < d->ncols; c++)
		if (!d->cols[c].partition)
			return true;
	return false;
}

/* The view of no file: every column NULL, no row. */
static int empty_view(const rk_delta *d, duckdb_connection con, const char *name, rk_buf *sql, rk_error *err)
{
	rk_buf_puts(sql, "CREATE OR REPLACE TEMP VIEW ");
	rk_duck_quote_ident(sql, name);
	rk_buf_puts(sql, " AS SELECT ");
	for (size_t c = 0; c < d->ncols; c++) {
		rk_buf_printf(sql, "%sCAST(NULL AS %s) AS ", c ? ", " : "", d->cols[c].duck_type);
		rk_duck_quote_ident(sql, d->cols[c].name);
	}
	rk_buf_puts(sql, " WHERE false");
	return exec(con, sql, err);
}

/* The helper tables t_files (each file's position and partition values)
 * and t_dv (the positions of its deleted rows), created empty, then filled
 * when the files have partition values (any_part) or deletion vectors
 * (any_dv). */
static int fill_helpers(const rk_delta *d, duckdb_connection con, const size_t *files, size_t nfiles,
                        const char *t_files, const char *t_dv, bool any_part, bool any_dv, rk_buf *sql, rk_error *err)
{
	duckdb_appender app = NULL;

	rk_buf_reset(sql);
	rk_buf_puts(sql, "CREATE OR REPLACE TEMP TABLE ");
	rk_duck_quote_ident(sql, t_files);
	rk_buf_puts(sql, " (pos UBIGINT");
	for (size_t c = 0; c < d->ncols; c++)
		if (d->cols[c].partition)
			rk_buf_printf(sql, ", c%zu VARCHAR", c);
	rk_buf_puts(sql, ")");
	if (exec(con, sql, err) < 0)
		return -1;
	rk_buf_reset(sql);
	rk_buf_puts(sql, "CREATE OR REPLACE TEMP TABLE ");
	rk_duck_quote_ident(sql, t_dv);
	rk_buf_puts(sql, " (pos UBIGINT, row BIGINT)");
	if (exec(con, sql, err) < 0)
		return -1;
	if (any_part) {
		if (duckdb_appender_create_ext(con, "temp", "main", t_files, &app) != DuckDBSuccess)
			goto app_fail;
		for (size_t i = 0; i < nfiles; i++) {
			const rk_delta_file *f = &d->files[files ? files[i] : i];

			duckdb_append_uint64(app, i);
			for (size_t c = 0; c < d->ncols; c++) {
				if (!d->cols[c].partition)
					continue;
				if (f->part[c].present)
					duckdb_append_varchar(app, f->part[c].text);
				else
					duckdb_append_null(app);
			}
			if (duckdb_appender_end_row(app) != DuckDBSuccess)
				goto app_fail;
		}
		if (duckdb_appender_close(app) != DuckDBSuccess)
			goto app_fail;
		duckdb_appender_destroy(&app);
	}
	if (any_dv) {
		if (duckdb_appender_create_ext(con, "temp", "main", t_dv, &app) != DuckDBSuccess)
			goto app_fail;
		for (size_t i = 0; i < nfiles; i++) {
			const rk_delta_file *f = &d->files[files ? files[i] : i];

			for (size_t k = 0; k < f->dv_count; k++) {
				duckdb_append_uint64(app, i);
				duckdb_append_int64(app, (int64_t)f->dv_rows[k]);
				if (duckdb_appender_end_row(app) != DuckDBSuccess)
					goto app_fail;
			}
		}
		if (duckdb_appender_close(app) != DuckDBSuccess)
			goto app_fail;
		duckdb_appender_destroy(&app);
	}
	return 0;
app_fail:
	rk_error_set(err, RK_EXIT_RUNTIME, "reading the Delta table: duckdb appender: %s",
	             app ? duckdb_appender_error(app) : "cannot create it");
	if (app)
		duckdb_appender_destroy(&app);
	return -1;
}

/* The view itself: each column by its logical name and type, from the
 * files (NULL where a file lacks it), the partition values joined on the
 * file's position, the deleted rows left out. */
static void view_sql(const rk_delta *d, const char *name, const size_t *files, size_t nfiles, const names *present,
                     const char *t_files, const char *t_dv, bool any_part, bool any_dv, rk_buf *sql)
{
	rk_buf col = RK_BUF_INIT;

	rk_buf_reset(sql);
	rk_buf_puts(sql, "CREATE OR REPLACE TEMP VIEW ");
	rk_duck_quote_ident(sql, name);
	rk_buf_puts(sql, " AS SELECT ");
	for (size_t c = 0; c < d->ncols; c++) {
		const rk_delta_column *cl = &d->cols[c];

		if (c)
			rk_buf_puts(sql, ", ");
		rk_buf_reset(&col);
		if (cl->partition) {
			rk_buf_printf(sql, "CAST(f.c%zu AS %s)", c, cl->duck_type);
		} else if (!has_name(present, cl->physical_name)) {
			rk_buf_printf(sql, "CAST(NULL AS %s)", cl->duck_type);
		} else {
			rk_buf_puts(&col, "d.");
			rk_duck_quote_ident(&col, cl->physical_name);
			read_expr(d, d->col_types[c], rk_buf_cstr(&col), 0, sql);
		}
		rk_buf_puts(sql, " AS ");
		rk_duck_quote_ident(sql, cl->name);
	}
	rk_buf_puts(sql, " FROM ");
	file_list(d, files, nfiles, sql);
	rk_buf_puts(sql, " AS d");
	if (any_part) {
		rk_buf_puts(sql, " JOIN ");
		rk_duck_quote_ident(sql, t_files);
		rk_buf_puts(sql, " AS f ON f.pos = d.file_index");
	}
	if (any_dv) {
		rk_buf_puts(sql, " ANTI JOIN ");
		rk_duck_quote_ident(sql, t_dv);
		rk_buf_puts(sql, " AS x ON x.pos = d.file_index AND x.row = d.file_row_number");
	}
	rk_buf_free(&col);
}

int rk_delta_view(const rk_delta *d, duckdb_connection con, const char *name, const size_t *files, size_t nfiles,
                  rk_error *err)
{
	rk_buf sql = RK_BUF_INIT, t_files = RK_BUF_INIT, t_dv = RK_BUF_INIT;
	names present = { 0 };
	bool any_dv = false, any_part = false;
	int rc = -1;

	if (!files)
		nfiles = d->nfiles;
	for (size_t i = 0; i < nfiles; i++) {
		if (d->files[files ? files[i] : i].dv_count)
			any_dv = true;
	}
	for (size_t c = 0; c < d->ncols; c++)
		if (d->cols[c].partition)
			any_part = true;
	rk_buf_printf(&t_files, "%s__files", name);
	rk_buf_printf(&t_dv, "%s__dv", name);

	if (nfiles == 0) {
		rc = empty_view(d, con, name, &sql, err);
		goto out;
	}

	/* which physical columns the files have: a column added to the schema
	 * after a file was written is NULL in that file's rows */
	rk_buf_puts(&sql, "SELECT column_name::VARCHAR FROM (DESCRIBE SELECT * FROM ");
	file_list(d, files, nfiles, &sql);
	rk_buf_puts(&sql, ")");
	if (rk_duck_each_string(con, rk_buf_cstr(&sql), RK_EXIT_RUNTIME, "reading the Delta table's data files",
	                        name_cb, &present, err) != 0)
		goto out;
	if ((any_part || any_dv) && (has_name(&present, "file_index") || has_name(&present, "file_row_number"))) {
		rk_error_set(err, RK_EXIT_USAGE,
		             "a data file has a column named file_index or file_row_number, which DuckDB's "
		             "position columns would hide; this reader cannot join its partition values or "
		             "deletion vectors");
		goto out;
	}
	if (strcmp(d->mapping, "id") == 0 && has_data_column(d) && check_field_ids(d, con, files, nfiles, err) < 0)
		goto out;
	if (fill_helpers(d, con, files, nfiles, rk_buf_cstr(&t_files), rk_buf_cstr(&t_dv), any_part, any_dv, &sql,
	                 err) < 0)
		goto out;
	view_sql(d, name, files, nfiles, &present, rk_buf_cstr(&t_files), rk_buf_cstr(&t_dv), any_part, any_dv, &sql);
	rc = exec(con, &sql, err);
out:
	names_free(&present);
	rk_buf_free(&sql);
	rk_buf_free(&t_files);
	rk_buf_free(&t_dv);
	return rc;
}
