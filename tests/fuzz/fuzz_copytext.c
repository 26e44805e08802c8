/*
 * fuzz_copytext.c - libFuzzer harness for the COPY text row splitter
 * (io/copytext.c), the PostgreSQL reader's hot path.
 *
 * Input: one byte choosing the column count (1..16), then the row.  The row
 * lives in a buffer of exactly its size, so reading past it is an
 * AddressSanitizer report.  A row that splits must survive a round trip:
 * its fields written again as COPY text (rk_copytext_put) split into the
 * same fields.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "io/copytext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RK_FUZZ_CHECK(cond) \
	do {                    \
		if (!(cond))        \
			abort();        \
	} while (0)

#define RK_FZ_MAXCOLS 16

/* COPY text of fields, by the writer repair and the audit trail use
 * (rk_copytext_put): the round trip tests both directions. */
static void rk_fz_escape(rk_buf *out, const rk_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			rk_buf_putc(out, '\t');
		rk_copytext_put(out, f[i].null ? NULL : f[i].p, f[i].len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_field f[RK_FZ_MAXCOLS], g[RK_FZ_MAXCOLS];
	rk_buf scratch = RK_BUF_INIT, scratch2 = RK_BUF_INIT, again = RK_BUF_INIT;
	const char *why = NULL;
	size_t ncols, len;
	char *row;

	if (size < 1)
		return 0;
	ncols = (size_t)data[0] % RK_FZ_MAXCOLS + 1;
	len = size - 1;
	row = malloc(len ? len : 1);
	if (!row)
		abort();
	memcpy(row, data + 1, len);
	if (rk_copytext_split(row, len, f, ncols, &scratch, &why) < 0) {
		RK_FUZZ_CHECK(why != NULL);
		goto done;
	}
	for (size_t i = 0; i < ncols; i++) {
		bool in_row = f[i].p >= row && f[i].p + f[i].len <= row + len;
		bool in_scratch = scratch.data && f[i].p >= scratch.data && f[i].p + f[i].len <= scratch.data + scratch.len;

		RK_FUZZ_CHECK(!f[i].null || f[i].len == 0);
		RK_FUZZ_CHECK(in_row || in_scratch);
	}
	rk_fz_escape(&again, f, ncols);
	RK_FUZZ_CHECK(rk_copytext_split(again.data ? again.data : "", again.len, g, ncols, &scratch2, &why) == 0);
	for (size_t i = 0; i < ncols; i++) {
		RK_FUZZ_CHECK(f[i].null == g[i].null && f[i].len == g[i].len);
		RK_FUZZ_CHECK(f[i].len == 0 || memcmp(f[i].p, g[i].p, f[i].len) == 0);
	}
done:
	free(row);
	rk_buf_free(&scratch);
	rk_buf_free(&scratch2);
	rk_buf_free(&again);
	return 0;
}
