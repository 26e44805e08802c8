/*
 * canon.h - the canonical encoding of values, rows and keys (digest.md).
 *
 * Input is the text of one value as PostgreSQL prints it (under any server
 * settings; reckon pins its own session settings anyway) or as a CSV export
 * writes it.  Output bytes are normative: changing them is a format change.
 *
 * None of these functions allocate beyond growing the rk_buf they are given,
 * so a reused buffer keeps the hot path allocation-free.
 */
#ifndef RK_CANON_H
#define RK_CANON_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/timeutil.h"
#include "core/types.h"

/*
 * Appends the canonical text of one non-NULL value of type t to out.
 * Returns 0, or -1 with *why set to a static phrase such as
 * "not a valid integer" (out may then hold a partial append; callers
 * discard it).
 */
int rk_canon_text(rk_type t, const char *p, size_t len, rk_buf *out, const char **why);

/* Appends the encoding of NULL: the single byte 0x00. */
void rk_canon_enc_null(rk_buf *out);

/* Appends the encoding of a value whose canonical text is v in decimal: an
 * integer's, or a timestamp's instant in microseconds (digest.md). */
void rk_canon_enc_int64(rk_buf *out, int64_t v);

/*
 * The encoding of an instant t (decimal microseconds since 1970, the
 * canonical text of a timestamp), with the digits of the last whole second
 * kept in *sc: rows in time order share it, so only the six microsecond
 * digits are printed per row.  Zero-initialise *sc; one per thread.
 */
typedef struct rk_sec_digits {
	int64_t sec;            /* the whole seconds whose digits follow (0: none) */
	size_t n;
	char digits[24];
} rk_sec_digits;

void rk_canon_enc_instant(rk_buf *out, rk_sec_digits *sc, int64_t t);

/* Writes n as the 4-byte little-endian length of a value (digest.md). */
static inline void rk_canon_put_len(char *lp, uint32_t n)
{
	lp[0] = (char)(n & 0xff);
	lp[1] = (char)(n >> 8 & 0xff);
	lp[2] = (char)(n >> 16 & 0xff);
	lp[3] = (char)(n >> 24 & 0xff);
}

/* Makes room in out for a value of n bytes of canonical text, writes its
 * tag and length and returns where the n bytes go; the caller writes them
 * and adds 5 + n to out->len. */
static inline char *rk_canon_enc_begin(rk_buf *out, uint32_t n)
{
	char *w;

	if (out->cap - out->len < 5 + (size_t)n)
		rk_buf_grow(out, 5 + (size_t)n);
	w = out->data + out->len;
	w[0] = '\x01';
	rk_canon_put_len(w + 1, n);
	return w + 5;
}

/* Appends the encoding of a value whose canonical text is p[0..len) as it
 * is (a text; an integer as PostgreSQL prints it).  len < 4 GiB. */
static inline void rk_canon_enc_raw(rk_buf *out, const char *p, size_t len)
{
	memcpy(rk_canon_enc_begin(out, (uint32_t)len), p, len);
	out->len += 5 + len;
}

/* Appends the encoding of a value: 0x01, the 4-byte little-endian length of
 * the canonical text, the canonical text.  Same errors as rk_canon_text; on
 * error out is left exactly as it was before the call. */
int rk_canon_enc_value(rk_type t, const char *p, size_t len, rk_buf *out, const char **why);

/*
 * The instant a time-column value places its row at: timestamptz and
 * timestamp values as parsed by rk_time_parse, a date at midnight UTC.
 * Returns 0 or -1 with *why.
 */
int rk_canon_instant(rk_type t, const char *p, size_t len, rk_usec *out, const char **why);

#endif
