/*
 * types.h - the column types the canonical encoding knows (digest.md).
 */
#ifndef RK_TYPES_H
#define RK_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 128-bit integers (GCC and Clang): window hashes and exact sums. */
__extension__ typedef unsigned __int128 rk_u128;
__extension__ typedef __int128 rk_i128;

typedef enum rk_type {
	RK_T_UNKNOWN = 0, /* not yet known (a CSV side before types are assigned) */
	RK_T_INT2,
	RK_T_INT4,
	RK_T_INT8,
	RK_T_NUMERIC,
	RK_T_FLOAT4,
	RK_T_FLOAT8,
	RK_T_BOOL,
	RK_T_TEXT,   /* text, varchar, name, citext... bytes as they are */
	RK_T_BPCHAR, /* char(n): trailing spaces removed */
	RK_T_DATE,
	RK_T_TIMESTAMP, /* without time zone, taken as UTC */
	RK_T_TIMESTAMPTZ,
	RK_T_UUID,
	RK_T_OTHER /* PostgreSQL's text output, as is */
} rk_type;

/*
 * How a reader hands a field over.  RK_FORM_TEXT is every reader's form; a
 * PostgreSQL reader streaming binary COPY (rk_scan.binary) delivers the
 * values whose canonical text follows from their stored form already
 * decoded, so neither the server prints them nor reckon parses them.
 */
typedef enum rk_form {
	RK_FORM_TEXT = 0, /* p/len: the value's text, as PostgreSQL prints it */
	RK_FORM_INT,      /* an integer column's value in m; p/len empty */
	RK_FORM_INSTANT,  /* a timestamp's finite instant in m (an rk_wusec: past an
	                    * rk_usec's end for PostgreSQL's last years); p/len empty */
	RK_FORM_CANON     /* p/len its canonical text (digest.md); a numeric's
	                    * value in m and scale when exact is set */
} rk_form;

/*
 * One field of a row as a reader hands it over: in RK_FORM_TEXT the value's
 * text exactly as PostgreSQL's COPY text output or the CSV file holds it
 * (after unquoting / unescaping), not NUL-terminated, valid only during the
 * row callback.
 */
typedef struct rk_field {
	const char *p;
	size_t len;
	bool null;
	bool exact;         /* RK_FORM_CANON: m and scale hold the value */
	unsigned char form; /* rk_form */
	bool large;         /* a text value sent after its row, out of band (io/reader.h,
	                     * rk_scan.large_bound): len is its size in bytes, p holds
	                     * none of it; rk_reader_large_value reads it */
	int32_t scale;
	rk_i128 m;
	/* A binary COPY reader also hands over each value's canonical encoding
	 * (digest.md: 0x00, or 0x01, length, canonical text), the row's fields'
	 * one after the other in one buffer; NULL from other readers. */
	const char *enc;
	size_t enc_len;
} rk_field;

/* A field's decimal integer text (as PostgreSQL prints an int8) to *out:
 * 0, or -1 when it is NULL, empty, not an integer or out of range. */
int rk_field_int64(const rk_field *f, int64_t *out);

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

/*
 * The scale a type name declares for display: numeric(p,s) / decimal(p,s)
 * give s (a negative s gives 0), numeric(p) gives 0, the integer types 0;
 * -1 for an unconstrained numeric and every other type.  Takes what
 * format_type() prints and what --types accepts.
 */
int rk_type_scale(const char *name);

/* A short display name ("integer", "numeric", "timestamptz", ...). */
const char *rk_type_name(rk_type t);

/* True for the types a --sum column may have (integers and numeric). */
bool rk_type_summable(rk_type t);

/* smallint, integer, bigint. */
static inline bool rk_type_is_int(rk_type t)
{
	return t == RK_T_INT2 || t == RK_T_INT4 || t == RK_T_INT8;
}

/* Whether equal values of types a and b are compared as numbers: one an
 * exact number (an integer, numeric), the other a float.  The float type
 * the exact side's values are then encoded as, or RK_T_UNKNOWN. */
static inline rk_type rk_type_numbers_as(rk_type a, rk_type b)
{
	bool ea = rk_type_is_int(a) || a == RK_T_NUMERIC, eb = rk_type_is_int(b) || b == RK_T_NUMERIC;

	if (ea && (b == RK_T_FLOAT4 || b == RK_T_FLOAT8))
		return b;
	if (eb && (a == RK_T_FLOAT4 || a == RK_T_FLOAT8))
		return a;
	return RK_T_UNKNOWN;
}

/* True for the types a --time column may have (date, timestamp, timestamptz). */
bool rk_type_is_time(rk_type t);

/* The family of a type's canonical form: "number" (integers and numeric
 * share theirs), "float", "text", "instant" (timestamps), "date",
 * "boolean", "uuid", "other" or "unknown".  Two columns of different
 * families never hash alike: schema drift. */
const char *rk_type_kind(rk_type t);

#endif
