/*
 * duckrows.c - DuckDB data chunks as rk_fields with canonical encodings
 * (duckrows.h).  The vectors' layouts are those duckdb.h documents: fixed-
 * width values in the vector's data, duckdb_string_t for VARCHAR and BLOB,
 * duckdb_hugeint for 128-bit decimals and UUIDs (whose top bit DuckDB
 * flips so that they sort as unsigned), days since 1970 for DATE,
 * microseconds since 1970 for TIMESTAMP and TIMESTAMP WITH TIME ZONE.
 */
#include "io/duckrows.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeutil.h"

void rk_duckrows_type(duckdb_logical_type lt, rk_type *t, int *scale, rk_dcol *how, const char **cast)
{
	*scale = -1;
	*cast = NULL;
	switch (duckdb_get_type_id(lt)) {
	case DUCKDB_TYPE_BOOLEAN: *t = RK_T_BOOL, *how = RK_DCOL_BOOL; return;
	case DUCKDB_TYPE_SMALLINT: *t = RK_T_INT2, *how = RK_DCOL_INT2, *scale = 0; return;
	case DUCKDB_TYPE_INTEGER: *t = RK_T_INT4, *how = RK_DCOL_INT4, *scale = 0; return;
	case DUCKDB_TYPE_BIGINT: *t = RK_T_INT8, *how = RK_DCOL_INT8, *scale = 0; return;
	case DUCKDB_TYPE_TINYINT:
	case DUCKDB_TYPE_UTINYINT: *t = RK_T_INT2, *how = RK_DCOL_INT2, *scale = 0, *cast = "SMALLINT"; return;
	case DUCKDB_TYPE_USMALLINT: *t = RK_T_INT4, *how = RK_DCOL_INT4, *scale = 0, *cast = "INTEGER"; return;
	case DUCKDB_TYPE_UINTEGER: *t = RK_T_INT8, *how = RK_DCOL_INT8, *scale = 0, *cast = "BIGINT"; return;
	case DUCKDB_TYPE_UBIGINT:
	case DUCKDB_TYPE_HUGEINT:
	case DUCKDB_TYPE_UHUGEINT:
	case DUCKDB_TYPE_BIGNUM:
		/* integers past 64 bits: numerics, by their decimal text */
		*t = RK_T_NUMERIC, *how = RK_DCOL_VARCHAR, *scale = 0, *cast = "VARCHAR";
		return;
	case DUCKDB_TYPE_DECIMAL:
		*t = RK_T_NUMERIC;
		*scale = duckdb_decimal_scale(lt);
		switch (duckdb_decimal_internal_type(lt)) {
		case DUCKDB_TYPE_SMALLINT: *how = RK_DCOL_DEC16; return;
		case DUCKDB_TYPE_INTEGER: *how = RK_DCOL_DEC32; return;
		case DUCKDB_TYPE_BIGINT: *how = RK_DCOL_DEC64; return;
		default: *how = RK_DCOL_DEC128; return;
		}
	case DUCKDB_TYPE_FLOAT: *t = RK_T_FLOAT4, *how = RK_DCOL_FLOAT; return;
	case DUCKDB_TYPE_DOUBLE: *t = RK_T_FLOAT8, *how = RK_DCOL_DOUBLE; return;
	case DUCKDB_TYPE_VARCHAR: *t = RK_T_TEXT, *how = RK_DCOL_VARCHAR; return;
	case DUCKDB_TYPE_ENUM: *t = RK_T_TEXT, *how = RK_DCOL_VARCHAR, *cast = "VARCHAR"; return;
	case DUCKDB_TYPE_BLOB: *t = RK_T_OTHER, *how = RK_DCOL_BLOB; return;
	case DUCKDB_TYPE_DATE: *t = RK_T_DATE, *how = RK_DCOL_DATE; return;
	case DUCKDB_TYPE_TIMESTAMP: *t = RK_T_TIMESTAMP, *how = RK_DCOL_TIMESTAMP; return;
	case DUCKDB_TYPE_TIMESTAMP_S:
	case DUCKDB_TYPE_TIMESTAMP_MS:
	case DUCKDB_TYPE_TIMESTAMP_NS:
		*t = RK_T_TIMESTAMP, *how = RK_DCOL_TIMESTAMP, *cast = "TIMESTAMP";
		return;
	case DUCKDB_TYPE_TIMESTAMP_TZ: *t = RK_T_TIMESTAMPTZ, *how = RK_DCOL_TIMESTAMP; return;
	case DUCKDB_TYPE_UUID: *t = RK_T_UUID, *how = RK_DCOL_UUID; return;
	default:
		/* lists, structs, maps, intervals, times: their text, as is
		 * (digest.md's "anything else") */
		*t = RK_T_OTHER, *how = RK_DCOL_VARCHAR, *cast = "VARCHAR";
		return;
	}
}

void rk_duckrows_init(rk_duckrows *d, const rk_type *types, const int *scales, const rk_dcol *how, size_t ncols)
{
	size_t n = ncols ? ncols : 1;

	memset(d, 0, sizeof *d);
	d->ncols = ncols;
	d->types = types;
	d->scales = scales;
	d->how = how;
	d->fields = rk_xcalloc(n, sizeof *d->fields);
	d->enc_off = rk_xcalloc(n, sizeof *d->enc_off);
	d->text_off = rk_xcalloc(n, sizeof *d->text_off);
	d->sec = rk_xcalloc(n, sizeof *d->sec);
}

void rk_duckrows_free(rk_duckrows *d)
{
	free(d->fields);
	free(d->enc_off);
	free(d->text_off);
	free(d->sec);
	rk_buf_free(&d->enc);
	rk_buf_free(&d->text);
	memset(d, 0, sizeof *d);
}

/* A value handed on as text made here (text[at..)), encoded by its type. */
static int rk_duckrows_made(rk_duckrows *d, size_t i, size_t at, const char **why)
{
	rk_field *f = &d->fields[i];

	f->form = RK_FORM_TEXT;
	d->text_off[i] = at;
	f->len = d->text.len - at;
	return rk_canon_enc_value(d->types[i], d->text.data + at, f->len, &d->enc, why);
}

static int rk_duckrows_word(rk_duckrows *d, size_t i, const char *word, const char **why)
{
	size_t at = d->text.len;

	rk_buf_puts(&d->text, word);
	return rk_duckrows_made(d, i, at, why);
}

/* A decimal m / 10^scale: its canonical text (trailing fraction zeros
 * dropped) as RK_FORM_CANON with its exact value. */
static void rk_duckrows_decimal(rk_duckrows *d, size_t i, rk_i128 m, int scale)
{
	rk_field *f = &d->fields[i];
	char digits[48], *w;
	rk_u128 u;
	size_t nd = 0, len;
	bool neg = m < 0;

	while (scale > 0 && m % 10 == 0) {
		m /= 10;
		scale--;
	}
	u = neg ? (rk_u128)0 - (rk_u128)m : (rk_u128)m;
	do {
		digits[sizeof digits - 1 - nd++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	/* digits[sizeof - nd ..) holds |m|; at least scale + 1 of them shown */
	len = neg + (nd > (size_t)scale ? nd : (size_t)scale + 1) + (scale > 0);
	w = rk_canon_enc_begin(&d->enc, (uint32_t)len);
	if (neg)
		*w++ = '-';
	if (nd > (size_t)scale) {
		memcpy(w, digits + sizeof digits - nd, nd - (size_t)scale);
		w += nd - (size_t)scale;
	} else {
		*w++ = '0';
	}
	if (scale > 0) {
		*w++ = '.';
		if ((size_t)scale > nd) {
			memset(w, '0', (size_t)scale - nd);
			w += (size_t)scale - nd;
		}
		memcpy(w, digits + sizeof digits - (nd < (size_t)scale ? nd : (size_t)scale),
		       nd < (size_t)scale ? nd : (size_t)scale);
	}
	d->enc.len += RK_CANON_HDR + len;
	f->form = RK_FORM_CANON;
	f->exact = true;
	f->m = m;
	f->scale = scale;
}

/*
 * A double (a real widened exactly: single) as PostgreSQL prints it
 * (float8out / float4out with extra_float_digits > 0): the shortest digits
 * that read back as the same value, positional for decimal exponents -4
 * to 14 (-4 to 5 for a real), else d.ddde+XX.  Writes out[32], returns
 * its length.  The shortest digits, when 15 or fewer (6 for a real), are
 * the value rounded to 15 (6) digits with trailing zeros dropped: a
 * normal value is closer to them than half a step of that grid.  So only
 * 15 to 17 digits are tried (6 to 9), all of them from 1 for zero and the
 * subnormals, whose spacing is wider.
 */
static size_t rk_duckrows_float_text(double x, bool single, char *out)
{
	int dig = single ? 6 : 15, most = single ? 9 : 17, p, exp, frac;
	char *e;
	size_t n;

	if (isnan(x))
		return (size_t)snprintf(out, 32, "NaN");
	if (isinf(x))
		return (size_t)snprintf(out, 32, x < 0 ? "-Infinity" : "Infinity");
	for (p = fabs(x) < (single ? FLT_MIN : DBL_MIN) ? 1 : dig; p < most; p++) {
		snprintf(out, 32, "%.*e", p - 1, x);
		if (single ? strtof(out, NULL) == (float)x : strtod(out, NULL) == x)
			break;
	}
	snprintf(out, 32, "%.*e", p - 1, x);
	e = strchr(out, 'e');
	exp = atoi(e + 1);
	if (exp >= -4 && exp < dig) {
		/* positional: an integer of fewer digits than dig is exact */
		frac = p - 1 - exp;
		n = (size_t)snprintf(out, 32, "%.*f", frac > 0 ? frac : 0, x);
		if (frac > 0) {
			while (out[n - 1] == '0')
				n--;
			if (out[n - 1] == '.')
				n--;
		}
		out[n] = 0;
		return n;
	}
	/* d.ddd (trailing zeros dropped) then the exponent as printf writes it */
	n = (size_t)(e - out);
	while (n > 1 && out[n - 1] == '0')
		n--;
	if (out[n - 1] == '.')
		n--;
	memmove(out + n, e, strlen(e) + 1);
	return strlen(out);
}

static void rk_duckrows_double(rk_duckrows *d, size_t i, double x, bool single)
{
	rk_field *f = &d->fields[i];
	size_t at = d->text.len;
	char tmp[32];
	size_t n = rk_duckrows_float_text(x, single, tmp);

	rk_buf_append(&d->text, tmp, n);
	f->form = RK_FORM_TEXT;
	d->text_off[i] = at;
	f->len = d->text.len - at;
	rk_canon_enc_double(&d->enc, x);
}

/* Field i of row r of the chunk's vector data. */
static int rk_duckrows_field(rk_duckrows *d, size_t i, void *data, idx_t r, const char **why)
{
	rk_field *f = &d->fields[i];
	int64_t v;

	switch (d->how[i]) {
	case RK_DCOL_BOOL:
		f->form = RK_FORM_TEXT;
		f->p = ((const bool *)data)[r] ? "t" : "f";
		f->len = 1;
		rk_canon_enc_raw(&d->enc, f->p, 1);
		return 0;
	case RK_DCOL_INT2: v = ((const int16_t *)data)[r]; goto integer;
	case RK_DCOL_INT4: v = ((const int32_t *)data)[r]; goto integer;
	case RK_DCOL_INT8: v = ((const int64_t *)data)[r]; goto integer;
	case RK_DCOL_DEC16: rk_duckrows_decimal(d, i, ((const int16_t *)data)[r], d->scales[i]); return 0;
	case RK_DCOL_DEC32: rk_duckrows_decimal(d, i, ((const int32_t *)data)[r], d->scales[i]); return 0;
	case RK_DCOL_DEC64: rk_duckrows_decimal(d, i, ((const int64_t *)data)[r], d->scales[i]); return 0;
	case RK_DCOL_DEC128: {
		const duckdb_hugeint *h = &((const duckdb_hugeint *)data)[r];

		rk_duckrows_decimal(d, i, (rk_i128)(((rk_u128)(uint64_t)h->upper << 64) | h->lower), d->scales[i]);
		return 0;
	}
	case RK_DCOL_FLOAT: rk_duckrows_double(d, i, (double)((const float *)data)[r], true); return 0;
	case RK_DCOL_DOUBLE: rk_duckrows_double(d, i, ((const double *)data)[r], false); return 0;
	case RK_DCOL_VARCHAR: {
		duckdb_string_t *s = &((duckdb_string_t *)data)[r];

		f->form = RK_FORM_TEXT;
		f->len = duckdb_string_t_length(*s);
		f->p = duckdb_string_t_data(s);
		if (d->types[i] == RK_T_TEXT || d->types[i] == RK_T_OTHER) {
			rk_canon_enc_raw(&d->enc, f->p, f->len);
			return 0;
		}
		return rk_canon_enc_value(d->types[i], f->p, f->len, &d->enc, why);
	}
	case RK_DCOL_BLOB: {
		duckdb_string_t *s = &((duckdb_string_t *)data)[r];
		const unsigned char *b = (const unsigned char *)duckdb_string_t_data(s);
		uint32_t n = duckdb_string_t_length(*s);
		size_t at = d->text.len;

		rk_buf_grow(&d->text, 2 + 2 * (size_t)n);
		rk_buf_append(&d->text, "\\x", 2);
		for (uint32_t k = 0; k < n; k++) {
			d->text.data[d->text.len++] = "0123456789abcdef"[b[k] >> 4];
			d->text.data[d->text.len++] = "0123456789abcdef"[b[k] & 15];
		}
		return rk_duckrows_made(d, i, at, why);
	}
	case RK_DCOL_DATE: {
		int32_t days = ((const int32_t *)data)[r];
		char tmp[RK_TIME_STRLEN];
		size_t n;

		if (days == INT32_MAX || days == -INT32_MAX)
			return rk_duckrows_word(d, i, days > 0 ? "infinity" : "-infinity", why);
		rk_date_format(days, tmp);
		n = strlen(tmp);
		memcpy(rk_canon_enc_begin(&d->enc, (uint32_t)n), tmp, n);
		d->enc.len += RK_CANON_HDR + n;
		f->form = RK_FORM_CANON;
		f->exact = false;
		return 0;
	}
	case RK_DCOL_TIMESTAMP:
		v = ((const int64_t *)data)[r];
		if (v == INT64_MAX || v == -INT64_MAX)
			return rk_duckrows_word(d, i, v > 0 ? "infinity" : "-infinity", why);
		f->form = RK_FORM_INSTANT;
		f->p = "";
		f->len = 0;
		f->m = v;
		rk_canon_enc_instant_inline(&d->enc, &d->sec[i], v);
		return 0;
	case RK_DCOL_UUID: {
		const duckdb_hugeint *h = &((const duckdb_hugeint *)data)[r];
		uint64_t hi = (uint64_t)h->upper ^ UINT64_C(0x8000000000000000), lo = h->lower;
		char *w = rk_canon_enc_begin(&d->enc, 36);
		int k = 0;

		for (int nib = 0; nib < 32; nib++) {
			uint64_t word = nib < 16 ? hi : lo;
			int sh = 60 - 4 * (nib % 16);

			if (nib == 8 || nib == 12 || nib == 16 || nib == 20)
				w[k++] = '-';
			w[k++] = "0123456789abcdef"[(word >> sh) & 15];
		}
		d->enc.len += RK_CANON_HDR + 36;
		f->form = RK_FORM_CANON;
		f->exact = false;
		return 0;
	}
	}
	*why = "a column type reckon does not read";
	return -1;
integer:
	f->form = RK_FORM_INT;
	f->p = "";
	f->len = 0;
	f->m = v;
	rk_canon_enc_int64(&d->enc, v);
	return 0;
}

int rk_duckrows_chunk(rk_duckrows *d, duckdb_data_chunk chunk, rk_row_fn fn, void *ctx, rk_error *err)
{
	idx_t n = duckdb_data_chunk_get_size(chunk);
	size_t ncols = d->ncols;
	void *data[64], **datap = ncols <= 64 ? data : rk_xcalloc(ncols, sizeof *datap);
	uint64_t *valid[64], **validp = ncols <= 64 ? valid : rk_xcalloc(ncols, sizeof *validp);
	int rc = 0;

	for (size_t i = 0; i < ncols; i++) {
		duckdb_vector vec = duckdb_data_chunk_get_vector(chunk, i);

		datap[i] = duckdb_vector_get_data(vec);
		validp[i] = duckdb_vector_get_validity(vec);
	}
	for (idx_t r = 0; r < n && rc == 0; r++) {
		const char *base;

		rk_buf_reset(&d->enc);
		rk_buf_reset(&d->text);
		for (size_t i = 0; i < ncols; i++) {
			rk_field *f = &d->fields[i];
			const char *why = NULL;

			d->enc_off[i] = d->enc.len;
			d->text_off[i] = SIZE_MAX;
			f->exact = false;
			if (validp[i] && !duckdb_validity_row_is_valid(validp[i], r)) {
				f->null = true;
				f->form = RK_FORM_TEXT;
				f->p = "";
				f->len = 0;
				rk_canon_enc_null(&d->enc);
				continue;
			}
			f->null = false;
			if (rk_duckrows_field(d, i, datap[i], r, &why) < 0) {
				d->bad_col = i;
				rc = rk_error_set(err, RK_EXIT_USAGE, "bound column %zu: %s", i + 1, why ? why : "bad value");
				err->field = (int)i;
				break;
			}
		}
		if (rc < 0)
			break;
		/* the buffers are final for this row: point into them */
		base = d->enc.data;
		for (size_t i = 0; i < ncols; i++) {
			rk_field *f = &d->fields[i];
			size_t end = i + 1 < d->ncols ? d->enc_off[i + 1] : d->enc.len;

			f->enc = base + d->enc_off[i];
			f->enc_len = end - d->enc_off[i];
			if (f->null)
				continue;
			if (d->text_off[i] != SIZE_MAX)
				f->p = d->text.data + d->text_off[i];
			else if (f->form == RK_FORM_CANON)
				f->p = f->enc + RK_CANON_HDR, f->len = f->enc_len - RK_CANON_HDR;
		}
		d->rows++;
		rc = fn(ctx, d->fields, err);
	}
	if (datap != data)
		free(datap);
	if (validp != valid)
		free(validp);
	return rc;
}
