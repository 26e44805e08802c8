/*
 * types.h - the column types the canonical encoding knows (digest.md).
 */
#ifndef RK_TYPES_H
#define RK_TYPES_H

#include <stdbool.h>
#include <stddef.h>

typedef enum rk_type {
	RK_T_UNKNOWN = 0,  /* not yet known (a CSV side before types are assigned) */
	RK_T_INT2,
	RK_T_INT4,
	RK_T_INT8,
	RK_T_NUMERIC,
	RK_T_FLOAT4,
	RK_T_FLOAT8,
	RK_T_BOOL,
	RK_T_TEXT,         /* text, varchar, name, citext... bytes as they are */
	RK_T_BPCHAR,       /* char(n): trailing spaces removed */
	RK_T_DATE,
	RK_T_TIMESTAMP,    /* without time zone, taken as UTC */
	RK_T_TIMESTAMPTZ,
	RK_T_UUID,
	RK_T_OTHER         /* PostgreSQL's text output, as is */
} rk_type;

/*
 * One field of a row as a reader hands it over: the value's text exactly as
 * PostgreSQL's COPY text output or the CSV file holds it (after unquoting /
 * unescaping), not NUL-terminated, valid only during the row callback.
 */
typedef struct rk_field {
	const char *p;
	size_t len;
	bool null;
} rk_field;

/*
 * Maps a type name to rk_type.  Accepts what PostgreSQL's format_type()
 * prints ("numeric(12,2)", "character varying(10)", "timestamp with time
 * zone", "character(4)", ...) and the usual aliases accepted by --types
 * (int, int4, integer, bigint, int8, smallint, int2, numeric, decimal, real,
 * float4, double, "double precision", float8, bool, boolean, text, varchar,
 * char, bpchar, date, timestamp, timestamptz, uuid), case-insensitively.
 * With allow_other, any other name maps to RK_T_OTHER and the call succeeds;
 * without it an unknown name returns -1.
 */
int rk_type_from_name(const char *name, bool allow_other, rk_type *out);

/* A short display name ("integer", "numeric", "timestamptz", ...). */
const char *rk_type_name(rk_type t);

/* True for the types a --sum column may have (integers and numeric). */
bool rk_type_summable(rk_type t);

/* smallint, integer, bigint. */
static inline bool rk_type_is_int(rk_type t)
{
	return t == RK_T_INT2 || t == RK_T_INT4 || t == RK_T_INT8;
}

/* True for the types a --time column may have (date, timestamp, timestamptz). */
bool rk_type_is_time(rk_type t);

#endif
