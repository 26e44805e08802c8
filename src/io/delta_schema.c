/*
 * delta_schema.c - what a Delta table's metadata and add actions mean: the
 * protocol checked against the features this reader implements, the schema
 * and its column mapping read, and each add action's partition values and
 * statistics typed (see delta.h; section names are PROTOCOL.md's).  The
 * log and its replay are delta.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeutil.h"
#include "io/delta_impl.h"

/* ---- protocol ("Protocol Evolution", "Table Features") ---- */

/* Reader features this reader implements. */
static const char *const reader_features[] = {
	"columnMapping",       /* "Column Mapping": name and id */
	"deletionVectors",     /* "Deletion Vectors": u, p, i */
	"timestampNtz",        /* "Timestamp without timezone (TimestampNtz)" */
	"v2Checkpoint",        /* "V2 Checkpoint Table Feature": UUID-named, sidecars */
	"vacuumProtocolCheck", /* "Reader Requirements for Vacuum Protocol Check": nothing to do */
};

static bool known_reader_feature(const char *f)
{
	for (size_t i = 0; i < sizeof reader_features / sizeof reader_features[0]; i++)
		if (strcmp(f, reader_features[i]) == 0)
			return true;
	return false;
}

int rk_delta_check_protocol(rk_delta *d, json_t *p, rk_error *err)
{
	json_t *rv = json_object_get(p, "minReaderVersion");
	json_t *features = json_object_get(p, "readerFeatures");
	rk_buf bad = RK_BUF_INIT;
	size_t i, nbad = 0;
	json_t *f;
	int min_reader;

	if (!json_is_integer(rv))
		return rk_error_set(err, RK_EXIT_USAGE, "the table's protocol action has no minReaderVersion");
	min_reader = (int)json_integer_value(rv);
	/* "Reader Version Requirements": 1 plain, 2 column mapping, 3 table features */
	if (min_reader < 1 || min_reader > 3)
		return rk_error_set(err, RK_EXIT_USAGE,
		                    "the table needs Delta reader version %d; this reader implements versions 1 to 3",
		                    min_reader);
	if (min_reader == 3) {
		json_array_foreach(features, i, f)
		{
			const char *name = json_string_value(f);

			if (!name)
				continue;
			if (!known_reader_feature(name)) {
				if (nbad++)
					rk_buf_puts(&bad, ", ");
				rk_buf_puts(&bad, name);
			}
		}
	}
	if (nbad) {
		rk_error_set(err, RK_EXIT_USAGE, "the table needs Delta reader feature%s this reader does not implement: %s",
		             nbad > 1 ? "s" : "", rk_buf_cstr(&bad));
		rk_error_hint(err, "implemented: columnMapping, deletionVectors, timestampNtz, v2Checkpoint, "
		                   "vacuumProtocolCheck (docs/delta.md)");
		rk_buf_free(&bad);
		return -1;
	}
	rk_buf_free(&bad);
	return 0;
}

/* ---- schema ("Schema Serialization Format", "Column Mapping") ---- */

int rk_delta_read_schema(rk_delta *d, json_t *meta, rk_error *err)
{
	const char *schema = json_string_value(json_object_get(meta, "schemaString"));
	json_t *conf = json_object_get(meta, "configuration");
	const char *mode = json_string_value(json_object_get(conf, "delta.columnMapping.mode"));
	json_t *pcols = json_object_get(meta, "partitionColumns"), *fields, *f;
	json_error_t je;
	size_t i;

	if (!schema)
		return rk_error_set(err, RK_EXIT_USAGE, "the table's metaData has no schemaString");
	d->schema = json_loads(schema, 0, &je);
	if (!d->schema)
		return rk_error_set(err, RK_EXIT_USAGE, "the table's schemaString is not JSON: %s", je.text);
	if (!mode)
		mode = "none";
	if (strcmp(mode, "none") && strcmp(mode, "name") && strcmp(mode, "id"))
		return rk_error_set(err, RK_EXIT_USAGE, "column mapping mode '%s' is not none, name or id", mode);
	d->mapping = rk_delta_strdup(d, mode);
	fields = json_object_get(d->schema, "fields");
	if (!json_is_array(fields))
		return rk_error_set(err, RK_EXIT_USAGE, "the table's schema has no fields");
	d->ncols = json_array_size(fields);
	d->cols = rk_delta_own(d, rk_xcalloc(d->ncols ? d->ncols : 1, sizeof *d->cols));
	d->col_types = rk_delta_own(d, rk_xcalloc(d->ncols ? d->ncols : 1, sizeof *d->col_types));
	json_array_foreach(fields, i, f)
	{
		rk_delta_column *c = &d->cols[i];
		json_t *md = json_object_get(f, "metadata"), *type = json_object_get(f, "type");
		const char *name = json_string_value(json_object_get(f, "name"));
		const char *phys = json_string_value(json_object_get(md, "delta.columnMapping.physicalName"));
		json_t *id = json_object_get(md, "delta.columnMapping.id");
		rk_buf duck = RK_BUF_INIT;
		size_t j;
		json_t *pc;

		if (!name || !type)
			return rk_error_set(err, RK_EXIT_USAGE, "the table's schema has a field without name or type");
		c->name = rk_delta_strdup(d, name);
		if (rk_delta_type(type, name, &duck, &c->kind, &c->precision, &c->scale, err) < 0) {
			rk_buf_free(&duck);
			return -1;
		}
		c->duck_type = rk_delta_strdup(d, rk_buf_cstr(&duck));
		rk_buf_free(&duck);
		c->type = rk_delta_strdup(d, json_is_string(type) ? json_string_value(type)
		                                                  : json_string_value(json_object_get(type, "type")));
		c->nullable = !json_is_false(json_object_get(f, "nullable"));
		c->field_id = json_is_integer(id) ? json_integer_value(id) : -1;
		if (strcmp(mode, "none") != 0) {
			/* "Reader Requirements for Column Mapping" */
			if (!phys)
				return rk_error_set(err, RK_EXIT_USAGE,
				                    "column mapping mode %s but column %s has no physical name", mode, name);
			if (strcmp(mode, "id") == 0 && c->field_id < 0)
				return rk_error_set(err, RK_EXIT_USAGE,
				                    "column mapping mode id but column %s has no delta.columnMapping.id",
				                    name);
			c->physical_name = rk_delta_strdup(d, phys);
		} else {
			c->physical_name = c->name;
		}
		json_array_foreach(pcols, j, pc)
		{
			if (json_is_string(pc) && strcmp(json_string_value(pc), name) == 0)
				c->partition = true;
		}
		d->col_types[i] = type;
	}
	json_array_foreach(pcols, i, f)
	{
		if (!json_is_string(f) || rk_delta_column_index(d, json_string_value(f)) < 0)
			return rk_error_set(err, RK_EXIT_USAGE, "partition column %s is not in the table's schema",
			                    json_string_value(f) ? json_string_value(f) : "(not a string)");
	}
	return 0;
}

/* ---- values: partitions ("Partition Value Serialization") and stats ---- */

typedef struct rk_delta_zone {
	duckdb_prepared_statement stmt; /* epoch_us(timezone(zone, ts)) */
	const char *zone;
} zone_conv;

/* Naive wall-clock microseconds in the writer's zone to an instant. */
static int zone_convert(zone_conv *z, rk_usec naive, rk_usec *out, const char *column, rk_error *err)
{
	char text[RK_TIME_STRLEN];
	duckdb_result res;

	rk_time_format_sql(naive, false, text);
	duckdb_bind_varchar(z->stmt, 1, z->zone);
	duckdb_bind_varchar(z->stmt, 2, text);
	if (duckdb_execute_prepared(z->stmt, &res) != DuckDBSuccess) {
		rk_error_set(err, RK_EXIT_USAGE, "partition value '%s' of %s in time zone %s: %s", text, column,
		             z->zone, duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return -1;
	}
	*out = duckdb_value_int64(&res, 0, 0);
	duckdb_destroy_result(&res);
	return 0;
}

struct rk_delta_zone *rk_delta_zone_new(rk_duck *duck, const char *zone, rk_error *err)
{
	zone_conv *z = rk_xcalloc(1, sizeof *z);
	rk_usec probe;

	if (duckdb_prepare(rk_duck_conn(duck), "SELECT epoch_us(timezone($1, CAST($2 AS TIMESTAMP)))", &z->stmt) !=
	    DuckDBSuccess) {
		rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: %s", duckdb_prepare_error(z->stmt));
		rk_delta_zone_free(z);
		return NULL;
	}
	z->zone = zone;
	if (zone_convert(z, 0, &probe, "(probe)", err) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "unknown time zone '%s' for partition values", zone);
		rk_error_hint(err, "an IANA zone name, e.g. America/Los_Angeles");
		rk_delta_zone_free(z);
		return NULL;
	}
	return z;
}

void rk_delta_zone_free(struct rk_delta_zone *z)
{
	if (!z)
		return;
	if (z->stmt)
		duckdb_destroy_prepare(&z->stmt);
	free(z);
}

static bool parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* A value of column c from its serialized text (a partition value, or a
 * stats string); zone converts naive partition timestamps (NULL: UTC). */
static int typed_value(rk_delta *d, const rk_delta_column *c, const char *s, zone_conv *zone, rk_delta_value *v,
                       rk_error *err)
{
	char buf[RK_TIME_STRLEN];
	const char *why = NULL;
	int64_t n = 0;
	rk_usec t = 0;
	bool ok = true;

	v->present = true;
	v->num = 0;
	switch (c->kind) {
	case RK_DELTA_LONG:
		ok = parse_int(s, INT64_MIN, INT64_MAX, &n);
		break;
	case RK_DELTA_INTEGER:
		ok = parse_int(s, INT32_MIN, INT32_MAX, &n);
		break;
	case RK_DELTA_SHORT:
		ok = parse_int(s, INT16_MIN, INT16_MAX, &n);
		break;
	case RK_DELTA_BYTE:
		ok = parse_int(s, INT8_MIN, INT8_MAX, &n);
		break;
	case RK_DELTA_BOOLEAN:
		ok = strcasecmp(s, "true") == 0 || strcasecmp(s, "false") == 0;
		n = strcasecmp(s, "true") == 0;
		s = n ? "true" : "false";
		break;
	case RK_DELTA_FLOAT:
	case RK_DELTA_DOUBLE: {
		char *end;

		(void)strtod(s, &end);
		ok = end != s && *end == '\0';
		break;
	}
	case RK_DELTA_DECIMAL: {
		size_t k = (s[0] == '-' || s[0] == '+') ? 1 : 0, digits = 0;

		for (; s[k]; k++) {
			if (isdigit((unsigned char)s[k]))
				digits++;
			else if (s[k] != '.')
				ok = false;
		}
		ok = ok && digits > 0;
		break;
	}
	case RK_DELTA_DATE:
		ok = rk_date_parse(s, strlen(s), &n, &why) == 0;
		if (ok)
			s = rk_date_format(n, buf);
		break;
	case RK_DELTA_TIMESTAMP: {
		size_t len = strlen(s);
		bool zoned = len > 0 && (s[len - 1] == 'Z' || (len > 6 && (strchr(s + len - 6, '+') ||
		                                                           strchr(s + len - 6, '-'))));

		if (zoned) {
			ok = rk_time_parse(s, len, &t, &why) == 0;
		} else {
			ok = rk_time_parse_local(s, len, &t, &why) == 0;
			if (ok && zone && zone_convert(zone, t, &t, c->name, err) < 0)
				return -1;
		}
		n = t;
		if (ok)
			s = rk_time_format_sql(t, true, buf);
		break;
	}
	case RK_DELTA_TIMESTAMP_NTZ:
		ok = rk_time_parse_local(s, strlen(s), &t, &why) == 0;
		n = t;
		if (ok)
			s = rk_time_format_sql(t, false, buf);
		break;
	default:
		break;
	}
	if (!ok)
		return rk_error_set(err, RK_EXIT_USAGE, "value '%s' is not a %s%s%s", s, c->type, why ? ": " : "",
		                    why ? why : "");
	v->num = n;
	v->text = rk_delta_strdup(d, s);
	return 0;
}

static bool primitive(rk_delta_kind k)
{
	return k != RK_DELTA_STRUCT && k != RK_DELTA_ARRAY && k != RK_DELTA_MAP;
}

/* A min/max statistic: a JSON number or string; anything unexpected is
 * left absent (stats are optional, and only narrow what is read). */
static void stat_value(rk_delta *d, const rk_delta_column *c, json_t *j, rk_delta_value *v)
{
	char buf[64];
	rk_error ignored;

	v->present = false;
	if (json_is_integer(j)) {
		snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(j));
	} else if (json_is_real(j)) {
		snprintf(buf, sizeof buf, "%.17g", json_real_value(j));
	} else if (json_is_string(j)) {
		if (c->kind == RK_DELTA_STRING || c->kind == RK_DELTA_BINARY) {
			v->present = true;
			v->text = rk_delta_strdup(d, json_string_value(j));
			return;
		}
		snprintf(buf, sizeof buf, "%s", json_string_value(j));
	} else if (json_is_boolean(j)) {
		snprintf(buf, sizeof buf, "%s", json_is_true(j) ? "true" : "false");
	} else {
		return;
	}
	rk_error_clear(&ignored);
	if (typed_value(d, c, buf, NULL, v, &ignored) < 0)
		v->present = false;
}

static int read_stats(rk_delta *d, rk_delta_file *f, const char *stats, const rk_delta_value *absent,
                      const int64_t *no_counts)
{
	json_t *j = stats ? json_loads(stats, JSON_DECODE_ANY, NULL) : NULL;
	json_t *minv, *maxv, *nulls, *nr;

	f->num_records = -1;
	f->tight_bounds = true;
	f->min = f->max = absent;
	f->null_count = no_counts;
	if (!json_is_object(j)) {
		json_decref(j);
		return 0;
	}
	nr = json_object_get(j, "numRecords");
	if (json_is_integer(nr))
		f->num_records = json_integer_value(nr);
	f->tight_bounds = !json_is_false(json_object_get(j, "tightBounds"));
	minv = json_object_get(j, "minValues");
	maxv = json_object_get(j, "maxValues");
	nulls = json_object_get(j, "nullCount");
	if (json_is_object(minv) || json_is_object(maxv)) {
		rk_delta_value *mn = rk_delta_own(d, rk_xcalloc(d->ncols, sizeof *mn));
		rk_delta_value *mx = rk_delta_own(d, rk_xcalloc(d->ncols, sizeof *mx));

		for (size_t i = 0; i < d->ncols; i++) {
			if (!primitive(d->cols[i].kind) || d->cols[i].partition)
				continue;
			stat_value(d, &d->cols[i], json_object_get(minv, d->cols[i].physical_name), &mn[i]);
			stat_value(d, &d->cols[i], json_object_get(maxv, d->cols[i].physical_name), &mx[i]);
		}
		f->min = mn;
		f->max = mx;
	}
	if (json_is_object(nulls)) {
		int64_t *nc = rk_delta_own(d, rk_xmalloc(d->ncols * sizeof *nc));

		for (size_t i = 0; i < d->ncols; i++) {
			json_t *x = json_object_get(nulls, d->cols[i].physical_name);

			nc[i] = json_is_integer(x) ? json_integer_value(x) : -1;
		}
		f->null_count = nc;
	}
	json_decref(j);
	return 0;
}

/* The "absent" values and counts every file without stats shares. */
static void shared_absent(rk_delta *d)
{
	int64_t *no_counts;

	if (d->absent)
		return;
	d->absent = rk_delta_own(d, rk_xcalloc(d->ncols ? d->ncols : 1, sizeof *d->absent));
	no_counts = rk_delta_own(d, rk_xmalloc((d->ncols ? d->ncols : 1) * sizeof *no_counts));
	for (size_t i = 0; i < d->ncols; i++)
		no_counts[i] = -1;
	d->no_counts = no_counts;
}

int rk_delta_file_fill(rk_delta *d, rk_delta_file *f, const char *key, json_t *add, zone_conv *zone, rk_error *err)
{
	json_t *pv;

	shared_absent(d);
	f->path = rk_delta_own(d, rk_xstrndup(key, strcspn(key, "\n")));
	f->log_path = rk_delta_strdup(d, json_string_value(json_object_get(add, "path")));
	f->size = json_integer_value(json_object_get(add, "size"));
	f->modification_time = json_integer_value(json_object_get(add, "modificationTime"));
	/* partition values, keyed by physical name */
	pv = json_object_get(add, "partitionValues");
	f->part = d->absent;
	for (size_t c = 0; c < d->ncols; c++) {
		const rk_delta_column *col = &d->cols[c];
		json_t *x;
		const char *s;

		if (!col->partition)
			continue;
		if (f->part == d->absent)
			f->part = rk_delta_own(d, rk_xcalloc(d->ncols, sizeof *f->part));
		/* keyed by the physical name (a writer without column
		 * mapping: the same as the logical one) */
		x = json_object_get(pv, col->physical_name);
		if (!x)
			x = json_object_get(pv, col->name);
		if (!x)
			return rk_error_set(err, RK_EXIT_USAGE, "data file %s has no partition value for %s", f->log_path,
			                    col->name);
		s = json_string_value(x);
		/* an empty string or null is NULL; Hive's marker too */
		if (!s || !*s || strcmp(s, "__HIVE_DEFAULT_PARTITION__") == 0)
			continue;
		if (typed_value(d, col, s, zone, (rk_delta_value *)&f->part[c], err) < 0)
			return rk_error_prefix(err, "partition column %s of %s", col->name, f->log_path);
	}
	read_stats(d, f, json_string_value(json_object_get(add, "stats")), d->absent, d->no_counts);
	return 0;
}
