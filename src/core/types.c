#include "core/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Type names arrive from two places: PostgreSQL's format_type() (which adds
 * typmods such as "(12,2)" and spells types out: "character varying",
 * "timestamp(3) with time zone") and the --types option, where people write
 * the short aliases.  Both are folded to one normal form first: lowercase,
 * typmods dropped, runs of blanks collapsed, a "pg_catalog." prefix dropped.
 * The typmod of float(p) is kept aside because it decides real vs double.
 */

#define RK_TYPE_NAME_MAX 64

typedef struct rk_type_alias {
	const char *name;
	rk_type type;
} rk_type_alias;

static const rk_type_alias rk_type_aliases[] = {
	{ "smallint", RK_T_INT2 },
	{ "int2", RK_T_INT2 },
	{ "smallserial", RK_T_INT2 },
	{ "serial2", RK_T_INT2 },
	{ "integer", RK_T_INT4 },
	{ "int", RK_T_INT4 },
	{ "int4", RK_T_INT4 },
	{ "serial", RK_T_INT4 },
	{ "serial4", RK_T_INT4 },
	{ "bigint", RK_T_INT8 },
	{ "int8", RK_T_INT8 },
	{ "bigserial", RK_T_INT8 },
	{ "serial8", RK_T_INT8 },
	{ "numeric", RK_T_NUMERIC },
	{ "decimal", RK_T_NUMERIC },
	{ "real", RK_T_FLOAT4 },
	{ "float4", RK_T_FLOAT4 },
	{ "double precision", RK_T_FLOAT8 },
	{ "double", RK_T_FLOAT8 },
	{ "float8", RK_T_FLOAT8 },
	{ "float", RK_T_FLOAT8 },
	{ "boolean", RK_T_BOOL },
	{ "bool", RK_T_BOOL },
	{ "text", RK_T_TEXT },
	{ "varchar", RK_T_TEXT },
	{ "character varying", RK_T_TEXT },
	{ "name", RK_T_TEXT },
	{ "citext", RK_T_TEXT },
	{ "char", RK_T_BPCHAR },
	{ "character", RK_T_BPCHAR },
	{ "bpchar", RK_T_BPCHAR },
	{ "date", RK_T_DATE },
	{ "timestamp", RK_T_TIMESTAMP },
	{ "timestamp without time zone", RK_T_TIMESTAMP },
	{ "timestamptz", RK_T_TIMESTAMPTZ },
	{ "timestamp with time zone", RK_T_TIMESTAMPTZ },
	{ "uuid", RK_T_UUID },
};

static char rk_type_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool rk_type_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Folds name into norm (see above).  *float_prec receives the first typmod
 * number when there is one, else -1.  Returns -1 when the name is too long
 * or malformed (unbalanced parentheses) to be any type we know.
 */
static int rk_type_normalize(const char *name, char *norm, size_t cap, int *float_prec)
{
	size_t n = 0;
	int depth = 0;
	bool pending_blank = false;
	bool in_first_typmod = false;
	bool seen_typmod = false;
	int prec = -1;

	for (const char *s = name; *s; s++) {
		char c = *s;

		if (c == '(') {
			if (depth == 0 && !seen_typmod) {
				in_first_typmod = true;
				prec = 0;
			}
			depth++;
			seen_typmod = true;
			/* "timestamp(3) with time zone": the typmod acts as a blank */
			pending_blank = n > 0;
			continue;
		}
		if (c == ')') {
			if (depth == 0)
				return -1;
			depth--;
			in_first_typmod = false;
			pending_blank = n > 0;
			continue;
		}
		if (depth > 0) {
			if (in_first_typmod) {
				if (c >= '0' && c <= '9') {
					if (prec < 1000)
						prec = prec * 10 + (c - '0');
				} else if (!rk_type_blank(c)) {
					in_first_typmod = false;
				}
			}
			continue;
		}
		if (rk_type_blank(c)) {
			pending_blank = n > 0;
			continue;
		}
		if (pending_blank) {
			if (n + 1 >= cap)
				return -1;
			norm[n++] = ' ';
			pending_blank = false;
		}
		if (n + 1 >= cap)
			return -1;
		norm[n++] = rk_type_lower(c);
	}
	if (depth != 0)
		return -1;
	norm[n] = '\0';
	if (strncmp(norm, "pg_catalog.", 11) == 0)
		memmove(norm, norm + 11, n - 11 + 1);
	*float_prec = prec;
	return 0;
}

int rk_type_from_name(const char *name, bool allow_other, rk_type *out)
{
	char norm[RK_TYPE_NAME_MAX];
	int prec = -1;

	if (name && rk_type_normalize(name, norm, sizeof norm, &prec) == 0 && norm[0]) {
		/* float(p): p <= 24 is real, as in PostgreSQL */
		if (strcmp(norm, "float") == 0 && prec >= 1 && prec <= 24) {
			*out = RK_T_FLOAT4;
			return 0;
		}
		for (size_t i = 0; i < sizeof rk_type_aliases / sizeof rk_type_aliases[0]; i++) {
			if (strcmp(norm, rk_type_aliases[i].name) == 0) {
				*out = rk_type_aliases[i].type;
				return 0;
			}
		}
		/* An extension type printed schema-qualified ("public.citext"). */
		const char *dot = strrchr(norm, '.');
		if (dot && strcmp(dot + 1, "citext") == 0) {
			*out = RK_T_TEXT;
			return 0;
		}
	}
	if (allow_other && name && name[0]) {
		*out = RK_T_OTHER;
		return 0;
	}
	return -1;
}

const char *rk_type_name(rk_type t)
{
	switch (t) {
	case RK_T_UNKNOWN: return "unknown";
	case RK_T_INT2: return "smallint";
	case RK_T_INT4: return "integer";
	case RK_T_INT8: return "bigint";
	case RK_T_NUMERIC: return "numeric";
	case RK_T_FLOAT4: return "real";
	case RK_T_FLOAT8: return "double precision";
	case RK_T_BOOL: return "boolean";
	case RK_T_TEXT: return "text";
	case RK_T_BPCHAR: return "char";
	case RK_T_DATE: return "date";
	case RK_T_TIMESTAMP: return "timestamp";
	case RK_T_TIMESTAMPTZ: return "timestamptz";
	case RK_T_UUID: return "uuid";
	case RK_T_OTHER: return "other";
	}
	return "unknown";
}

bool rk_type_summable(rk_type t)
{
	return t == RK_T_INT2 || t == RK_T_INT4 || t == RK_T_INT8 || t == RK_T_NUMERIC;
}

bool rk_type_is_time(rk_type t)
{
	return t == RK_T_DATE || t == RK_T_TIMESTAMP || t == RK_T_TIMESTAMPTZ;
}

const char *rk_type_kind(rk_type t)
{
	switch (t) {
	case RK_T_INT2:
	case RK_T_INT4:
	case RK_T_INT8:
	case RK_T_NUMERIC: return "number";
	case RK_T_FLOAT4:
	case RK_T_FLOAT8: return "float";
	case RK_T_TEXT:
	case RK_T_BPCHAR: return "text";
	case RK_T_TIMESTAMP:
	case RK_T_TIMESTAMPTZ: return "instant";
	case RK_T_DATE: return "date";
	case RK_T_BOOL: return "boolean";
	case RK_T_UUID: return "uuid";
	case RK_T_OTHER: return "other";
	case RK_T_UNKNOWN: break;
	}
	return "unknown";
}

int rk_type_scale(const char *name)
{
	rk_type t;
	const char *open = strchr(name, '('), *comma;
	long sc;

	if (rk_type_from_name(name, false, &t) < 0)
		return -1;
	if (rk_type_is_int(t))
		return 0;
	if (t != RK_T_NUMERIC || !open)
		return -1;
	comma = strchr(open, ',');
	if (!comma || comma > strchr(open, ')'))
		return 0;
	sc = strtol(comma + 1, NULL, 10);
	return sc < 0 ? 0 : sc > 1000 ? 1000
	                              : (int)sc;
}

int rk_field_int64(const rk_field *f, int64_t *out)
{
	char tmp[24], *end;
	long long v;

	if (f->null || f->len == 0 || f->len >= sizeof tmp)
		return -1;
	memcpy(tmp, f->p, f->len);
	tmp[f->len] = '\0';
	errno = 0;
	v = strtoll(tmp, &end, 10);
	if (errno || *end)
		return -1;
	*out = (int64_t)v;
	return 0;
}
