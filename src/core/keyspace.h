/*
 * keyspace.h - key segments (a check without --time, docs/key-segments.md):
 * the first key column's values laid on a line of 64-bit points, so that
 * the window machinery (a row's window found from one integer, ranges
 * [lo, hi) split into pieces, shrunk to the rows in them) works on key
 * ranges as it does on time.
 *
 * The map from a key to its point is monotone: a <= b (in the key's order:
 * integers by value, uuids and texts byte by byte, as COLLATE "C" compares
 * UTF-8) gives point(a) <= point(b).  It need not be one to one: keys that
 * share a point are told apart by the drilldown's key-hash split.  What
 * makes a range of points a key range is rk_keyspace_bound: for every point
 * m, "point(k) >= m" holds exactly for the keys k >= the bound's value, so
 * the rows of [lo, hi) are those with bound(lo) <= k < bound(hi), a
 * condition a database evaluates on the key column itself.
 */
#ifndef RK_KEYSPACE_H
#define RK_KEYSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/types.h"

typedef enum rk_ks_kind {
	RK_KS_INT,  /* smallint, integer, bigint: the value (clamped to the span) */
	RK_KS_UUID, /* the first 61 bits of its 16 bytes */
	RK_KS_TEXT  /* text, varchar: 7 bytes after the prefix the keys share */
} rk_ks_kind;

/* Longest common prefix a text keyspace skips, in bytes. */
#define RK_KS_PREFIX_MAX 64

/* Every point lies in [RK_KS_MIN, RK_KS_MAX]: the distance of any two fits
 * an int64, as the drilldown's piece arithmetic needs. */
#define RK_KS_MIN (-(INT64_C(1) << 61))
#define RK_KS_MAX ((INT64_C(1) << 61) - 1)

typedef struct rk_keyspace {
	rk_ks_kind kind;
	rk_type type; /* the key column's type */
	size_t nprefix;
	unsigned char prefix[RK_KS_PREFIX_MAX]; /* RK_KS_TEXT: the bytes every key of the middle region starts with */
} rk_keyspace;

/* Sets up ks for a first key column of type t, with no prefix.  -1 when
 * keys of that type cannot be segmented (*why says which types can). */
int rk_keyspace_init(rk_keyspace *ks, rk_type t, const char **why);

/* RK_KS_TEXT: the prefix becomes the longest common prefix of lo and hi
 * (the smallest and largest key seen), cut to whole UTF-8 characters and
 * to RK_KS_PREFIX_MAX bytes.  Other kinds: nothing. */
void rk_keyspace_prefix(rk_keyspace *ks, const char *lo, size_t nlo, const char *hi, size_t nhi);

/* The point of the key whose text (as PostgreSQL prints it, or its
 * canonical text) is p/len.  0, or -1 with *why (not an integer, not a
 * uuid). */
int rk_keyspace_point_text(const rk_keyspace *ks, const char *p, size_t len, int64_t *m, const char **why);

/* The point of a field as a reader hands it over (not NULL): an integer
 * decoded by a binary COPY reader, or any text form. */
int rk_keyspace_point(const rk_keyspace *ks, const rk_field *f, int64_t *m, const char **why);

typedef enum rk_ks_bound {
	RK_KSB_ALL,  /* every key has point >= m: no condition */
	RK_KSB_NONE, /* no key has: the condition is false */
	RK_KSB_VALUE /* exactly the keys >= *value */
} rk_ks_bound;

/*
 * The lower bound of point m as a key value: for RK_KSB_VALUE, value
 * receives (reset first) the integer's decimal text, the uuid's canonical
 * text, or the text's bytes (which, inside the drilldown, need not be
 * valid UTF-8: compare them as bytes).
 */
rk_ks_bound rk_keyspace_bound(const rk_keyspace *ks, int64_t m, rk_buf *value);

/* A point at or below m whose bound is a key one may print and paste:
 * for a text keyspace the bound's bytes cut back to whole characters; m
 * itself for other kinds.  Segment boundaries are snapped so. */
int64_t rk_keyspace_snap(const rk_keyspace *ks, int64_t m);

/* The bytes of a text compared as COLLATE "C" compares UTF-8: <0, 0, >0. */
int rk_keyspace_cmp_bytes(const char *a, size_t na, const char *b, size_t nb);

/*
 * One key range [lo, hi) given as key texts (NULL: an open end), as a
 * rerun list of key segments holds it: sets up ks (of its kind) so that
 * both bounds are points whose rk_keyspace_bound is exactly that key -
 * for a text keyspace the prefix is chosen so - and sets *mlo, *mhi
 * (RK_USEC_NINF / RK_USEC_PINF, i.e. INT64_MIN / INT64_MAX, for an open
 * end).  -1 with *why when a bound is no key of the type, no point can
 * hold it exactly (an integer beyond +-2^61, a uuid with bits past the
 * first 61 set, a text key whose bounds share too short a prefix), or the
 * range is empty (lo >= hi).
 */
int rk_keyspace_fit(rk_keyspace *ks, const char *lo, const char *hi, int64_t *mlo, int64_t *mhi, const char **why);

/* Compares two key texts in ks's order (integers by value, uuids and
 * texts byte by byte): *cmp <0, 0, >0.  -1 with *why when one is no key
 * of the type. */
int rk_keyspace_cmp_keys(const rk_keyspace *ks, const char *a, const char *b, int *cmp, const char **why);

#endif
