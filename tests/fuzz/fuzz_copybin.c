/*
 * fuzz_copybin.c - libFuzzer harness for the binary COPY decoder
 * (io/copybin.c).
 *
 * Input: one byte for the column count (1..4), one byte per column choosing
 * its wire form and type, one byte choosing how the stream is cut into
 * chunks, then the stream.  The decoder is fed the chunks (so rows and the
 * header split across calls take the pending-bytes path) and then finished.
 * For every row delivered, each field must be consistent: its encoding is
 * 0x00 for NULL or 0x01, a 4-byte length and that many bytes, and a field
 * in canonical form carries that text; a numeric's canonical text encodes
 * to the same bytes through rk_canon_enc_value, the text path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/canon.h"
#include "io/copybin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RK_FUZZ_CHECK(cond) \
	do {                    \
		if (!(cond))        \
			abort();        \
	} while (0)

static const struct {
	rk_wire wire;
	rk_type type;
} rk_fz_cols[] = {
	{ RK_WIRE_INT2, RK_T_INT2 },        { RK_WIRE_INT4, RK_T_INT4 },
	{ RK_WIRE_INT8, RK_T_INT8 },        { RK_WIRE_NUMERIC, RK_T_NUMERIC },
	{ RK_WIRE_TIMESTAMP, RK_T_TIMESTAMPTZ }, { RK_WIRE_TIMESTAMP, RK_T_TIMESTAMP },
	{ RK_WIRE_BOOL, RK_T_BOOL },        { RK_WIRE_TEXT, RK_T_TEXT },
	{ RK_WIRE_TEXT, RK_T_BPCHAR },      { RK_WIRE_FLOAT4, RK_T_FLOAT4 },
	{ RK_WIRE_FLOAT8, RK_T_FLOAT8 },    { RK_WIRE_DATE, RK_T_DATE },
	{ RK_WIRE_UUID, RK_T_UUID },        { RK_WIRE_NONE, RK_T_OTHER },
};
#define RK_FZ_NKINDS (sizeof rk_fz_cols / sizeof rk_fz_cols[0])

typedef struct rk_fz_ctx {
	const rk_type *types;
	size_t ncols;
	rk_buf check;
} rk_fz_ctx;

static int rk_fz_row(void *ctx, const rk_field *f, rk_error *err)
{
	rk_fz_ctx *c = ctx;

	(void)err;
	for (size_t i = 0; i < c->ncols; i++) {
		uint32_t n;

		RK_FUZZ_CHECK(f[i].enc != NULL && f[i].enc_len >= 1);
		if (f[i].null) {
			RK_FUZZ_CHECK(f[i].enc_len == 1 && f[i].enc[0] == '\0');
			continue;
		}
		RK_FUZZ_CHECK(f[i].enc[0] == '\x01' && f[i].enc_len >= 5);
		n = (uint32_t)(unsigned char)f[i].enc[1] | (uint32_t)(unsigned char)f[i].enc[2] << 8 |
		    (uint32_t)(unsigned char)f[i].enc[3] << 16 | (uint32_t)(unsigned char)f[i].enc[4] << 24;
		RK_FUZZ_CHECK(f[i].enc_len == 5 + (size_t)n);
		if (f[i].form == RK_FORM_CANON) {
			RK_FUZZ_CHECK(f[i].len == n && (n == 0 || memcmp(f[i].p, f[i].enc + 5, n) == 0));
		} else if (f[i].form == RK_FORM_TEXT && f[i].len) {
			/* touch every byte: the pointer must be live */
			volatile char sink = 0;

			for (size_t k = 0; k < f[i].len; k++)
				sink ^= f[i].p[k];
			(void)sink;
		}
		if (c->types[i] == RK_T_NUMERIC && f[i].form == RK_FORM_CANON) {
			const char *why = NULL;

			rk_buf_reset(&c->check);
			RK_FUZZ_CHECK(rk_canon_enc_value(RK_T_NUMERIC, f[i].p, f[i].len, &c->check, &why) == 0);
			RK_FUZZ_CHECK(c->check.len == f[i].enc_len && memcmp(c->check.data, f[i].enc, f[i].enc_len) == 0);
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_wire wires[4];
	rk_type types[4];
	rk_fz_ctx ctx;
	rk_copybin d;
	rk_error err;
	const char *why = NULL;
	size_t ncols, step, at, len;
	char *stream;
	int rc = 0;

	if (size < 2)
		return 0;
	ncols = (size_t)data[0] % 4 + 1;
	if (size < 2 + ncols)
		return 0;
	for (size_t i = 0; i < ncols; i++) {
		wires[i] = rk_fz_cols[data[1 + i] % RK_FZ_NKINDS].wire;
		types[i] = rk_fz_cols[data[1 + i] % RK_FZ_NKINDS].type;
	}
	/* 0: the whole stream in one call; else chunks of 1..255 bytes */
	step = data[1 + ncols];
	at = 2 + ncols;
	len = size - at;
	stream = malloc(len ? len : 1);
	if (!stream)
		abort();
	memcpy(stream, data + at, len);

	memset(&ctx, 0, sizeof ctx);
	ctx.types = types;
	ctx.ncols = ncols;
	rk_error_clear(&err);
	rk_copybin_init(&d, wires, types, ncols);
	for (size_t off = 0; off < len && rc == 0;) {
		size_t n = step == 0 || len - off < step ? len - off : step;

		rc = rk_copybin_feed(&d, stream + off, n, rk_fz_row, &ctx, &err, &why);
		off += n;
	}
	if (rc == -1)
		RK_FUZZ_CHECK(why != NULL && d.bad_col <= ncols);
	else if (rk_copybin_finish(&d, &why) < 0)
		RK_FUZZ_CHECK(why != NULL);
	rk_copybin_free(&d);
	rk_buf_free(&ctx.check);
	free(stream);
	return 0;
}
