/*
 * pair.h - the logical columns of a table pair, resolved against both
 * sides' relations (docs/reference.md): the key (given, or discovered
 * from a primary key), the hashed columns (given, or the whole row), and
 * the schema drift a check reports beside its verdict.
 *
 * A logical column is written as a user writes a column name (unquoted
 * names fold to lower case, double quotes keep case and blanks).  On each
 * side it is that side's column of the same name unless the side maps it
 * to a column or SQL expression (--source-expr/--target-expr).
 */
#ifndef RK_CHECK_PAIR_H
#define RK_CHECK_PAIR_H

#include <stdbool.h>
#include <stddef.h>

#include "check/result.h"
#include "check/spec.h"
#include "io/reader.h"

typedef struct rk_pair {
	char **key; /* the key columns, as written */
	size_t nkey;
	const char *key_origin; /* "--key", "the target's primary key", "the source's primary key" */
	char **columns;         /* the hashed columns, as written, in order */
	size_t ncolumns;
	bool whole_row; /* columns is the default whole row */
	rk_drift drift; /* one-side columns (kinds: rk_pair_kinds) */
} rk_pair;

/*
 * Resolves spec's key and hashed columns on the two open readers (not yet
 * bound), and the columns one side only has.  A missing key with no
 * primary key on either side, a whole row with no column in common, or an
 * --exclude-columns name that neither side has: RK_EXIT_USAGE.  Returns 0
 * (rk_pair_free frees *out) or -1 with err.
 */
int rk_pair_resolve(const rk_check_spec *spec, rk_reader *src, rk_reader *tgt, rk_pair *out, rk_error *err);

/*
 * Adds to pair's drift the logical columns whose bound types differ in
 * kind between the sides: names[i] with types[0][i] and types[1][i].
 */
void rk_pair_kinds(rk_pair *pair, const char *const *names, size_t n, const rk_type *const types[2]);

void rk_pair_free(rk_pair *pair);

/* Moves the drift out of pair (into *out, which must be empty). */
void rk_drift_take(rk_drift *out, rk_pair *pair);
void rk_drift_free(rk_drift *d);

/* True when two written column names name the same column. */
bool rk_pair_same_name(const char *a, const char *b);

/*
 * The column of cols[0..n) a written name names, or -1: PostgreSQL's
 * (header false: SQL names) folded as a query would fold it; a header's
 * (CSV) exactly, else case-insensitively when that is unique (as the CSV
 * reader binds).
 */
long rk_pair_find(char *const *cols, size_t n, const char *written, bool header);

#endif
