/*
 * deltawriter_data.c - the data files of a Delta transaction (see
 * deltawriter.h): rows written by DuckDB as Parquet, one file per
 * combination of partition values, and each file's add action with its
 * partition values and statistics ("Per-file Statistics": numRecords, and
 * per top-level primitive column minValues, maxValues and nullCount,
 * where they can be written exactly).
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/text.h"
#include "core/timeutil.h"
#include "io/deltawriter_impl.h"

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
	if (rk_dw_uuid4(id, err) < 0)
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
	if (rk_dw_query(w, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "writing a Delta data file", err) < 0) {
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
int rk_dw_write_rows(rk_dw *w, const char *from, int64_t *rows, rk_error *err)
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
	if (rk_dw_query(w, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "the partition values written", err) < 0)
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
	if (rk_dw_query(w, rk_buf_cstr(&sql), &res, RK_EXIT_RUNTIME, "the columns written", err) < 0)
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
	if (rk_dw_write_rows(w, rk_buf_cstr(&from), &n, err) < 0)
		goto out;
	if (rows)
		*rows = n;
	rc = 0;
out:
	rk_buf_free(&sql);
	rk_buf_free(&from);
	return rc;
}
