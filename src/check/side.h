/*
 * side.h - one side of a check as the digest pass (check.c), the server's
 * digests (pushdown.c) and the drilldown (drill.c) all see it: the columns
 * it is bound to and their roles (rk_plan), its reader, and the row
 * encoding they share.  Not for use outside src/check/.
 */
#ifndef RK_CHECK_SIDE_H
#define RK_CHECK_SIDE_H

#include "check/result.h"
#include "check/spec.h"
#include "core/buf.h"
#include "core/canon.h"
#include "core/digest.h"
#include "core/tz.h"

/* The columns a side is bound to, and the role of each. */
typedef struct rk_plan {
	char **cols; /* distinct column names as the user wrote them */
	size_t ncols;
	size_t *hash_idx; /* hashed columns, --columns order */
	size_t nhash;
	size_t *key_idx; /* key columns, --key order */
	size_t nkey;
	size_t time_idx;
	size_t *sum_idx;
	size_t nsum;
	long *sum_hashpos; /* per sum column: its position among the hashed columns, or -1 */
	long time_hashpos; /* the time column's position among the hashed columns, or -1 */
	bool hash_is_row;  /* the hashed columns are the bound ones, in order */
	/* Columns one side holds as exact numbers (integers, numeric) and the
	 * other as floats are compared as numbers: per side and bound column,
	 * the float type its exact values are encoded as (RK_T_UNKNOWN: none;
	 * set by rk_plan_numbers), and whether a side has any. */
	rk_type *as_float[2];
	bool convert[2];
} rk_plan;

/* Fills plan->as_float from the two sides' types (rk_pair_kinds reports
 * the same columns under schema drift). */
void rk_plan_numbers(rk_plan *p, const rk_type *const types[2]);

/* Bytes of bound column col's value sent out of band, in order. */
typedef void (*rk_side_tap)(void *ctx, size_t col, const char *p, size_t len);

/* One side's reader and the state its row callbacks need. */
typedef struct rk_side {
	int idx;          /* 0 source, 1 target */
	const char *name; /* "source" / "target" */
	rk_reader *reader;
	rk_type *types; /* [plan->ncols] */
	const rk_plan *plan;
	rk_check_result *res;
	rk_usec lo, hi;           /* rows outside [lo, hi) are skipped */
	rk_usec win_lo, win_hi;   /* the last row's slice [win_lo, win_hi) (empty at */
	size_t win, slice;        /* first: zeroed), its window and its index (rk_digest_row) */
	rk_sec_digits sec_digits; /* the last instant's whole seconds (rk_canon_enc_instant) */
	bool null_rows;           /* this reader counts the rows with a NULL time */
	rk_pushdown pushdown;     /* digest pass: server-side digests wanted (pushdown.c) */
	bool server_text;         /* values are PostgreSQL's output text (RK_CAP_CANON_INTS): its
	                         * integers are canonical already (rk_side_encode_row) */
	bool whole_windows;       /* its digests came per window, not per slice; merged */
	uint64_t rows_read;       /* rows delivered to this side object; merged */
	uint64_t null_time;       /* into res->side[idx] after each parallel run */
	uint64_t total;
	rk_buf enc;              /* row / key encoding scratch */
	rk_buf tmp;              /* canonical text scratch */
	size_t *canon_off;       /* per hashed column: where its canonical text starts in enc */
	uint32_t *canon_len;     /* ... and its length (NULL columns: not set) */
	size_t large_value;      /* a text value this long or longer is hashed where it
	                          * lies, not copied into enc (rk_side_hash_row) */
	bool late;               /* the row in hand is a late one: it holds values sent out
	                          * of band (rk_field.large), read by rk_side_hash_row */
	bool *large_cols;        /* rk_side_large_cols's answer */
	rk_side_tap tap;         /* when set: also given each out-of-band value's bytes */
	void *tap_ctx;           /* as rk_side_hash_row pulls them (keys.c) */
	rk_canon_dec *canon_dec; /* ... and a numeric's value, when its encoder had it
	                          * (ok), so that a summed one is not parsed again */
	rk_check_meter *meter;   /* progress counters (spec->meter), or NULL */
	uint64_t meter_rows;     /* what this side object has added to them so far */
	rk_usec meter_done;
	bool zoned;               /* the time column is zoneless and read in spec->time_zone */
	rk_tz_placer placer;      /* ... its placement (this thread's cache) */
	rk_usec time_raw;         /* the last rk_side_time's value as read (UTC-taken) */
	rk_tz_fit time_fit;       /* ... and how its wall-clock time fit the zone */
	uint64_t dst_ambiguous;   /* digest pass rows in range: ambiguous, nonexistent wall */
	uint64_t dst_nonexistent; /* clock times; into res->side[idx] after each parallel run */
	rk_error err;             /* the thread's error */
	int rc;
	void *drill; /* drilldown pass state (drill.c) */
} rk_side;

/* Lays out the columns of spec: the hashed ones first (in --columns order),
 * then the key, time and sum columns not among them.  rk_plan_free frees. */
void rk_plan_init(rk_plan *p, const rk_check_spec *spec);
void rk_plan_free(rk_plan *p);

/* Sets up side object s (index idx: 0 source, 1 target) for plan and res;
 * its reader and types are the caller's to set.  rk_side_release frees
 * what rk_side_init allocated, and the reader (NULL harmless). */
void rk_side_init(rk_side *s, int idx, const rk_plan *plan, rk_check_result *res, rk_pushdown pushdown);
void rk_side_release(rk_side *s);

/* A rejected value: fills err naming the column, its type and the reason. */
int rk_side_bad_value(const rk_side *s, size_t col, const rk_field *f, const char *why, rk_error *err);

/* Encodes the hashed columns of a row into s->enc, noting where each
 * column's canonical text lies.  t is the row's instant, already parsed
 * from the time column (its canonical text is derived, not re-parsed). */
int rk_side_encode_row(rk_side *s, const rk_field *f, rk_usec t, rk_error *err);

/* The row hash of the row rk_side_encode_row encodes, as rk_row_hash of
 * that encoding; a text value of s->large_value bytes or more is hashed
 * where the reader left it (XXH3's streaming state), so it is never copied
 * into s->enc, and one sent out of band (s->late, f->large) as the reader
 * reads it back in chunks (rk_reader_large_value).  s->enc then lacks those values: only the sums' columns may
 * be read from it (s->canon_off). */
int rk_side_hash_row(rk_side *s, const rk_field *f, rk_usec t, rk_u128 *h, rk_error *err);

/* The bound columns whose large values the digest pass may have sent out of
 * band (rk_scan.large_cols): the text columns that are neither the time
 * column nor summed, none when the side's numbers are re-encoded as floats
 * (which reads every value back from s->enc).  Owned by s. */
const bool *rk_side_large_cols(rk_side *s);

/* Sets scan up to send s's large values out of band as the digest pass
 * does, but for rk_side_large_cols's columns that are not key columns
 * (the drilldown and the changed values show keys, so they stay in the
 * row), with late as the late callback: rows whose values came out of
 * band, which it hands on to rk_side_late (docs/performance.md "Large
 * values"). */
void rk_side_large_scan(rk_side *s, rk_scan *scan, rk_row_fn late);

/* Runs the row callback fn on late row f with s->late set (s is fn's
 * context): its rk_side_hash_row pulls the values sent out of band. */
int rk_side_late(rk_side *s, const rk_field *f, rk_row_fn fn, rk_error *err);

/* The environment variable that sets the bound of a large value in bytes
 * (default RK_LARGE_VALUE_DEFAULT): tests set it small to run the large
 * values' path on small ones. */
#define RK_LARGE_VALUE_ENV "RECKON_LARGE_VALUE"
#define RK_LARGE_VALUE_DEFAULT ((size_t)1 << 20)

/* The bound RK_LARGE_VALUE_ENV sets, or the default (a value that is not a
 * whole number >= 1 is not used: the default is, with a warning,
 * core/env.h). */
size_t rk_large_value_bound(void);

/* Encodes the key columns of a row into s->enc. */
int rk_side_encode_key(rk_side *s, const rk_field *f, rk_error *err);

/* The instant of a row's time field tf (not NULL): decoded by a binary
 * COPY reader, or parsed from its text; a zoneless one read in the time
 * column's zone (s->zoned) placed by rk_tz_utc's rule, the value as read
 * kept in s->time_raw and its fit in s->time_fit.  0 or -1 with err.
 * Inline: the digest pass runs it once a row. */
static inline int rk_side_time(rk_side *s, const rk_field *tf, rk_usec *t, rk_error *err)
{
	const char *why;

	if (s->res->keyed) {
		/* key segments: the first key column's point (core/keyspace.h) */
		if (rk_keyspace_point(&s->res->keyspace, tf, t, &why) < 0)
			return rk_side_bad_value(s, s->plan->time_idx, tf, why, err);
		return 0;
	}
	if (tf->form == RK_FORM_INSTANT) {
		*t = rk_usec_place(tf->m);
	} else if (rk_canon_instant(s->types[s->plan->time_idx], tf->p, tf->len, t, &why) < 0) {
		return rk_side_bad_value(s, s->plan->time_idx, tf, why, err);
	}
	if (s->zoned) {
		s->time_raw = *t;
		if (*t != RK_USEC_PINF && *t != RK_USEC_NINF)
			*t = rk_tz_place(&s->placer, *t, &s->time_fit);
	}
	return 0;
}

/* Sets s->zoned from spec and the side's types (after bind and type
 * assignment): a `timestamp` time column with a --time-column-zone that is
 * not UTC. */
void rk_side_zone(rk_side *s, const rk_check_spec *spec);

/* rk_reader_scan of s's reader; for a zoned side the ranges (instants)
 * become the wall-clock times that hold them (rk_tz_wall_range), a superset
 * the row callbacks filter by their placed instant. */
int rk_side_scan(rk_side *s, const rk_scan *scan, rk_row_fn fn, void *ctx, rk_error *err);

/* Adds what s read since its last call to its meter: rows, and the span
 * of [lo, hi) up to the window of the row read last (rows mostly come in
 * time order).  at_end: the whole span is done. */
void rk_side_meter(rk_side *s, bool at_end);

/* Runs fn on every side object concurrently, one thread each, then adds
 * their counters to the result; returns 0 or -1 with err set to the first
 * failure in list order. */
int rk_sides_parallel(rk_side *const *list, size_t n, int (*fn)(rk_side *s), rk_error *err);

#endif
