/*
 * digest.h - row hashes, the 128-bit modular window hash and exact sums.
 */
#ifndef RK_DIGEST_H
#define RK_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/types.h"

/* XXH3_128bits(enc, len), default secret, seed 0, as one 128-bit integer
 * (high64 << 64 | low64). */
rk_u128 rk_row_hash(const void *enc, size_t len);

/*
 * The same hash over an encoding that arrives in pieces (XXH3's streaming
 * state): reset, feed the pieces in order, then final gives exactly
 * rk_row_hash of their concatenation, however they were split.  A large
 * value is then hashed where it lies, never copied into the row's encoding
 * (docs/performance.md "Large values").  The state is opaque; it is about
 * 600 bytes, aligned as XXH3 wants it.
 */
typedef struct rk_row_hasher {
	_Alignas(64) unsigned char state[640];
} rk_row_hasher;

void rk_row_hasher_reset(rk_row_hasher *h);
void rk_row_hasher_update(rk_row_hasher *h, const void *p, size_t len);
/* The header of a non-NULL value of len bytes of canonical text (digest.md:
 * 0x01, then len, 4 bytes little-endian); its text follows by update. */
void rk_row_hasher_value(rk_row_hasher *h, uint32_t len);
rk_u128 rk_row_hasher_final(rk_row_hasher *h);

/* Whether key is among the n row hashes of set, sorted ascending (a binary
 * search: the drilldown's and the changed values' key sets). */
bool rk_hash_set_has(const rk_u128 *set, size_t n, rk_u128 key);

/* qsort order of row hashes, ascending (the order rk_hash_set_has wants). */
int rk_hash_cmp(const void *a, const void *b);

/* 32 lowercase hex digits, high 64 bits first, NUL-terminated. */
void rk_hash_hex(rk_u128 h, char out[33]);

/* Parses 32 hex digits back (for tests and the audit trail); 0 or -1. */
int rk_hash_parse(const char *hex, rk_u128 *out);

/*
 * An exact sum of a numeric or integer column: value = v / 10^scale, plus
 * counts of the special values numeric allows.  NULLs are skipped (as SQL).
 * Zero-initialise to start.
 */
typedef struct rk_sum {
	rk_i128 v;
	int32_t scale; /* digits after the point held in v */
	uint32_t nan;  /* count of NaN values added */
	uint32_t pinf; /* count of Infinity */
	uint32_t ninf; /* count of -Infinity */
} rk_sum;

/*
 * Adds one value, given as canonical numeric text (digest.md: "12.5",
 * "-3", "NaN", "Infinity", "-Infinity").  Returns 0, or -1 with *why set
 * when the exact result would not fit 128 bits ("sum overflows 128 bits").
 */
int rk_sum_add(rk_sum *s, const char *canon, size_t len, const char **why);

/*
 * Adds m / 10^scale (0 <= scale <= 38): what rk_sum_add does with a value
 * once it has read its digits (m the digits as an integer, with its sign;
 * scale the count of fraction digits, trailing zeros dropped), for a caller
 * that has them already.  0, or -1 with *why set on overflow.
 */
int rk_sum_add_decimal_rescaled(rk_sum *s, rk_i128 m, int32_t scale, const char **why);

/* Inline for the usual value, of the sum's own scale: one 128-bit add. */
static inline int rk_sum_add_decimal(rk_sum *s, rk_i128 m, int32_t scale, const char **why)
{
	rk_i128 r;

	if (scale == s->scale && !__builtin_add_overflow(s->v, m, &r)) {
		s->v = r;
		return 0;
	}
	return rk_sum_add_decimal_rescaled(s, m, scale, why);
}

/* a += b; 0 or -1 on overflow. */
int rk_sum_merge(rk_sum *a, const rk_sum *b, const char **why);

/* True when both denote the same value (scales may differ). */
bool rk_sum_equal(const rk_sum *a, const rk_sum *b);

/* Canonical decimal text of the sum ("NaN" when any NaN or both infinities,
 * else "Infinity"/"-Infinity" when present).  out must hold RK_SUM_STRLEN. */
#define RK_SUM_STRLEN 96
char *rk_sum_format(const rk_sum *s, char out[RK_SUM_STRLEN]);

/* The sum as people read it: at least scale digits after the point
 * (numeric(12,2): "2030874.80"), never fewer than the value has, so no
 * digit is hidden; scale < 0 (unknown) is the canonical form. */
char *rk_sum_format_scale(const rk_sum *s, int scale, char out[RK_SUM_STRLEN]);

/* The most windows one state of the extension's reckon_windows holds
 * (src/ext/window.c): reckon check --pushdown groups reckon_window by
 * window for a range of more (src/io/pgreader.c). */
#define RK_PUSHDOWN_MAX_WINDOWS (1 << 20)

#endif
