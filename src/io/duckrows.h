/*
 * duckrows.h - the rows of a DuckDB result as rk_fields, with their
 * canonical encodings (digest.md) made from DuckDB's own vectors.
 *
 * What copybin.c is to PostgreSQL's binary COPY, this is to DuckDB's data
 * chunks: an integer comes as RK_FORM_INT, a timestamp as RK_FORM_INSTANT,
 * a decimal as RK_FORM_CANON with its exact value, and every field carries
 * its encoding, the row's encodings one after the other in one buffer, so
 * a Delta table and a PostgreSQL table of the same rows hash alike without
 * either side printing or parsing a value.  Floats come as the text
 * PostgreSQL prints for them (the shortest that reads back as the same
 * double) with the encoding of their bits; types reckon has no canonical
 * form for are cast to text by the query (rk_duckrows_type).
 */
#ifndef RK_DUCKROWS_H
#define RK_DUCKROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/canon.h"
#include "core/error.h"
#include "core/types.h"
#include "io/duck.h"
#include "io/reader.h"

/* How one column of the result is read. */
typedef enum rk_dcol {
	RK_DCOL_BOOL,
	RK_DCOL_INT2,
	RK_DCOL_INT4,
	RK_DCOL_INT8,
	RK_DCOL_DEC16, /* DECIMAL by its storage width */
	RK_DCOL_DEC32,
	RK_DCOL_DEC64,
	RK_DCOL_DEC128,
	RK_DCOL_FLOAT,
	RK_DCOL_DOUBLE,
	RK_DCOL_VARCHAR, /* the bytes, encoded by the column's rk_type */
	RK_DCOL_BLOB,    /* as PostgreSQL prints a bytea: \x and hex digits */
	RK_DCOL_DATE,
	RK_DCOL_TIMESTAMP, /* microseconds since 1970 (naive: taken as UTC) */
	RK_DCOL_UUID
} rk_dcol;

/*
 * How a column of DuckDB type lt is read: its rk_type, its declared scale
 * (decimals; -1 otherwise), how its vector is decoded, and the type the
 * query must cast it to first (NULL: none; "VARCHAR" for the types reckon
 * reads as text, "TIMESTAMP" for second, millisecond and nanosecond
 * timestamps, "SMALLINT"/"INTEGER"/"BIGINT" for the narrow and unsigned
 * integers).  A cast column's type is that of the cast, read again.
 */
void rk_duckrows_type(duckdb_logical_type lt, rk_type *t, int *scale, rk_dcol *how, const char **cast);

typedef struct rk_duckrows {
	size_t ncols;
	const rk_type *types; /* kept, not copied */
	const int *scales;    /* each column's declared scale (rk_duckrows_type) */
	const rk_dcol *how;
	rk_field *fields;   /* one row's, reused */
	size_t *enc_off;    /* where each field's encoding starts in enc */
	size_t *text_off;   /* where a field's text starts in text, or SIZE_MAX */
	rk_sec_digits *sec; /* per column: a timestamp's last whole second */
	rk_buf enc;         /* one row's encodings */
	rk_buf text;        /* one row's made texts (floats, blobs, special values) */
	size_t bad_col;     /* the column to blame for a value error */
	uint64_t rows;      /* rows delivered */
} rk_duckrows;

/* types, scales and how: each column's, as rk_duckrows_type gave them for
 * the result's columns; kept, not copied (they outlive d). */
void rk_duckrows_init(rk_duckrows *d, const rk_type *types, const int *scales, const rk_dcol *how, size_t ncols);
void rk_duckrows_free(rk_duckrows *d);

/*
 * Calls fn for each row of chunk (ncols columns in the order given to
 * init).  Returns 0, or -1 with err filled: fn's error (err->field names
 * the field), or a value with no canonical form (RK_EXIT_USAGE naming the
 * column by index in d->bad_col).
 */
int rk_duckrows_chunk(rk_duckrows *d, duckdb_data_chunk chunk, rk_row_fn fn, void *ctx, rk_error *err);

#endif
