/*
 * copybin.h - rows of COPY ... TO STDOUT (FORMAT binary), decoded.
 *
 * The streaming check reads tables whose compared columns all have types
 * whose canonical text (digest.md) follows from their stored form in
 * PostgreSQL's binary COPY format: a timestamp is its microsecond count, a
 * numeric its base-10000 digits, an integer or a float its bytes, a date its
 * day number, a text its bytes.  The server then skips their output
 * functions and COPY's escaping, and reckon its parsers
 * (docs/performance.md).  Tables with other types are read as COPY text.
 *
 * The decoder needs no server: it takes the byte stream in chunks of any
 * size (the server sends one CopyData message per row, the file header with
 * the first, but the protocol does not promise it) and calls back once per
 * row with the fields in rk_field's forms and with their canonical
 * encodings (digest.md), made as it reads them: the row's fields' encodings
 * follow each other in one buffer, so a check that hashes every bound
 * column in order hashes that buffer as it is.
 */
#ifndef RK_COPYBIN_H
#define RK_COPYBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/canon.h"
#include "core/error.h"
#include "core/types.h"

/* How one column comes over the wire, and in which rk_form it is handed on. */
typedef enum rk_wire {
	RK_WIRE_NONE = 0, /* no binary form reckon reads: the scan takes COPY text */
	RK_WIRE_INT2,     /* int2/int4/int8: big-endian two's complement, RK_FORM_INT */
	RK_WIRE_INT4,
	RK_WIRE_INT8,
	RK_WIRE_NUMERIC,   /* ndigits, weight, sign, dscale, digits: RK_FORM_CANON
	                     * (NaN and the infinities as their words, RK_FORM_TEXT) */
	RK_WIRE_TIMESTAMP, /* timestamp[tz]: int64 microseconds since 2000-01-01,
	                     * RK_FORM_INSTANT (infinities as the words, RK_FORM_TEXT) */
	RK_WIRE_BOOL,      /* one byte: "t" or "f", RK_FORM_TEXT */
	RK_WIRE_TEXT,      /* text, varchar, char(n), name: the bytes, RK_FORM_TEXT */
	RK_WIRE_FLOAT4,    /* IEEE binary32 / binary64 bits: RK_FORM_CANON */
	RK_WIRE_FLOAT8,
	RK_WIRE_DATE, /* int32 days since 2000-01-01: RK_FORM_CANON
	                     * (infinities as the words, RK_FORM_TEXT) */
	RK_WIRE_UUID  /* 16 bytes: RK_FORM_CANON */
} rk_wire;

/* The wire form for a column whose (base) type has oid typid and maps to
 * rk_type t; RK_WIRE_NONE when binary COPY cannot carry it for reckon. */
rk_wire rk_copybin_wire(unsigned long typid, rk_type t);

/* Called once per row; as rk_row_fn (io/reader.h). */
typedef int (*rk_copybin_row_fn)(void *ctx, const rk_field *fields, rk_error *err);

typedef struct rk_copybin {
	const rk_wire *wires;
	const rk_type *types; /* each column's type, for its canonical encoding */
	size_t ncols;
	rk_field *fields;   /* one row's fields, reused */
	size_t *enc_off;    /* where each field's encoding starts in enc */
	rk_sec_digits *sec; /* per column: a timestamp's last whole second */
	rk_buf enc;         /* one row's encodings */
	rk_buf numscratch;  /* digit strings of numerics past 64 digits */
	rk_buf pending;     /* bytes of a row (or header) split across chunks */
	int state;          /* 0 before the header, 1 rows, 2 after the trailer */
	uint64_t rows;      /* rows decoded */
	size_t bad_col;     /* the column to blame for a decoding error */
	bool bad_value;     /* ... whose value has no canonical form: the
	                       * data's fault (fields[bad_col].p/len its text,
	                       * empty when it came as a number) */
} rk_copybin;

/* wires and types: ncols each, kept (not copied) while d is in use. */
void rk_copybin_init(rk_copybin *d, const rk_wire *wires, const rk_type *types, size_t ncols);
void rk_copybin_free(rk_copybin *d);

/*
 * Decodes the next len bytes of the stream, calling fn for every row they
 * complete.  Returns 0; -1 with *why a static phrase when the bytes are not
 * a binary COPY of these columns (d->bad_col names a column when one is to
 * blame, else it is ncols); -2 when fn returned -1 (err is fn's error).
 */
int rk_copybin_feed(rk_copybin *d, const char *buf, size_t len, rk_copybin_row_fn fn, void *ctx, rk_error *err,
                    const char **why);

/* At the end of the stream: 0 when it ended with the trailer and nothing
 * after it, else -1 with *why. */
int rk_copybin_finish(const rk_copybin *d, const char **why);

#endif
