/*
 * fuzz_deltadv.c - libFuzzer harness for the Delta deletion vector
 * decoders (io/delta_impl.h): the RoaringBitmapArray parser, which reads
 * bytes from the log (inline DVs) and from DV files, and Z85.
 *
 * Input: the bytes of a serialized RoaringBitmapArray ("Deletion Vector
 * Format").  Properties:
 *  - a refused input leaves no rows and an error message;
 *  - an accepted one gives rows strictly ascending (a set, sorted), each
 *    below 2^63 (bucket keys have their top bit clear);
 *  - Z85 of the same bytes (when a multiple of 5 long) decodes or is
 *    refused, never reads or writes out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/delta_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RK_FUZZ_CHECK(cond) \
	do {                    \
		if (!(cond))        \
			abort();        \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = malloc(size ? size : 1), *z85;
	uint64_t *rows = NULL;
	size_t n = 0;
	rk_error err;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	rk_error_clear(&err);
	if (rk_delta_dv_bitmap_parse(copy, size, "fuzz", &rows, &n, &err) < 0) {
		RK_FUZZ_CHECK(rows == NULL && n == 0 && err.msg[0] != '\0');
	} else {
		for (size_t i = 0; i < n; i++) {
			RK_FUZZ_CHECK(rows[i] < (UINT64_C(1) << 63));
			RK_FUZZ_CHECK(i == 0 || rows[i - 1] < rows[i]);
		}
		free(rows);
	}
	z85 = malloc(size / 5 * 4 + 1);
	if (!z85)
		abort();
	(void)rk_delta_z85_decode((const char *)copy, size - size % 5, z85);
	free(z85);
	free(copy);
	return 0;
}
