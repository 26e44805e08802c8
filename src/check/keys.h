/*
 * keys.h - after the drilldown, the damaged keys' own rows, asked for by
 * key (keys.c): which columns of each changed key differ, with both
 * sides' values, and where the source and the target hold an extra key
 * outside its window (the diagnosis's deleted_at_source and
 * appended_update).  Not for use outside src/check/.
 */
#ifndef RK_CHECK_KEYS_H
#define RK_CHECK_KEYS_H

#include "check/side.h"

/* Keys one scan asks a PostgreSQL side for by value (its reader's bound). */
#define RK_KEYS_BATCH 256
/* Changed findings whose columns are read: past that, counted in
 * rk_check_result.changed_unread. */
#define RK_KEYS_CHANGED_MAX 4096
/* Extra keys looked up over all time: past that, not looked up. */
#define RK_KEYS_EXTRA_MAX 1024

/*
 * Fills res->changes for the changed findings (each side's rows of those
 * keys in their windows, one scan per side and batch, their per-column
 * hashes compared), and, where both sides are PostgreSQL tables whose key a
 * unique index backs, looks the extra keys up over all time (the finding's
 * rk_lookup: rk_finding_lookup).  0, or -1 with err.
 */
int rk_keys_run(rk_side sides[2], const rk_check_spec *spec, rk_check_result *res, rk_error *err);

/*
 * The pure part, for the unit tests: the copies of one (window, key) per
 * side, each a row hash and per column a hash, NULL flag and text, turned
 * into changes of finding fi appended to res.  Copies whose row hashes
 * agree pair off first; the rest pair in row hash order.
 */
typedef struct rk_kcopy {
	rk_u128 row;
	const rk_u128 *col;      /* [ncol] each column's hash (of its canonical encoding) */
	const bool *null;        /* [ncol] */
	const char *const *text; /* [ncol] its text as read (NULL: SQL NULL) ... */
	const bool *cut;         /* [ncol] ... already cut (or NULL: none) */
} rk_kcopy;

void rk_keys_compare(rk_check_result *res, size_t fi, size_t ncol, const rk_kcopy *src, size_t ns,
                     const rk_kcopy *tgt, size_t nt, bool values);

#endif
