/*
 * finding.h - one finding of a check (rk_finding): a key whose copies
 * differ in a window, as the drilldown judged it.  Below the result that
 * holds them (result.h) and the store that holds them past its bound
 * (findstore.h).
 */
#ifndef RK_CHECK_FINDING_H
#define RK_CHECK_FINDING_H

#include <stddef.h>
#include <stdint.h>

#include "core/digest.h"
#include "core/timeutil.h"

typedef enum rk_find_kind {
	RK_FIND_MISSING,
	RK_FIND_EXTRA,
	RK_FIND_DUPLICATED,
	RK_FIND_CHANGED,
	RK_FIND_SOURCE_DUPLICATE,
	RK_FIND_NKINDS
} rk_find_kind;

/* A hash laid on 8 bytes' alignment, where a 16-byte one would round a
 * record of 56 bytes up to 64 (GCC lowers a typedef's alignment; the
 * compiler then moves it in two halves).  Never taken by address. */
typedef rk_u128 rk_u128_a8 __attribute__((aligned(8)));

typedef struct rk_finding {
	/* (the fields lie widest first, what few findings need kept beside
	 * them - rk_fspan, rk_lookup - and the window, kind and flags in one
	 * word: 56 bytes a finding - issue 25: a window whose every row differs
	 * holds millions) */
	rk_u128_a8 key_hash; /* the hash of its canonical key encoding */
	char **key;          /* nkey display texts; NULL entry = SQL NULL; in the
	                      * result's key_pool (rk_keypool_key), freed with it */
	rk_usec source_time; /* time of the (first) source copy, or RK_USEC_NINF */
	rk_usec target_time; /* time of the (first) target copy, or RK_USEC_NINF */
	uint32_t source_copies;
	uint32_t target_copies;
	/* Where its copies lie when source_time cannot say it and the
	 * drilldown's leaves narrowed them: 1 + an index into the result's
	 * spans, 0 for none (rk_finding_span reads either). */
	uint32_t span;
	uint32_t window : 24;     /* index into the windows (at most RK_MAX_WINDOWS, below 2^24) */
	uint32_t kind : 4;        /* rk_find_kind */
	uint32_t same_copies : 1; /* duplicated, one source copy: every target copy is that row */
} rk_finding;

_Static_assert(sizeof(rk_finding) == 56, "rk_finding is 56 bytes (issue 25)");

/* The most windows a finding can name (rk_finding.window's 24 bits). */
#define RK_FINDING_MAX_WINDOWS ((size_t)1 << 24)

#endif
