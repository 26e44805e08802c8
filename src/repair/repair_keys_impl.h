/*
 * repair_keys_impl.h - what the two files of the repair of key segments
 * share (repair_keys.c: the run, each segment's check and transaction;
 * repair_keys_open.c: what is resolved, refused and rendered before the
 * first change).  Not for use outside src/repair/.
 */
#ifndef RK_REPAIR_KEYS_IMPL_H
#define RK_REPAIR_KEYS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/check.h"
#include "core/buf.h"
#include "core/keyspace.h"
#include "io/pg.h"
#include "io/reader.h"
#include "load/dest.h"
#include "repair/repair.h"
#include "repair/repair_share.h"

/* A foreign key that references the target table. */
typedef struct rk_kfk {
	char *name, *child; /* the constraint, the referencing table (as the server quotes it) */
	char action;        /* on delete: 'a' no action, 'r' restrict, 'c' cascade, 'n' set null, 'd' set default */
	char *sql_count;    /* the referencing rows of the rows the repair deletes */
} rk_kfk;

typedef struct rk_krep {
	const rk_repair_spec *spec;
	rk_repair_interval *iv;
	size_t n;
	char **key; /* the logical key: the spec's, or discovered (rk_check_key) */
	size_t nkey;
	rk_pg *tgt;
	rk_dest dest;
	rk_reader *src;
	rk_wmap map;      /* map.time is the first key column */
	bool *large_cols; /* per written column: a text one but the first key
	                   * column, whose large values the staging scan
	                   * streams (rk_repair_put_field) */
	rk_keyspace kind; /* the first key column's kind, from the target's type */
	bool can_update;  /* some written column is neither key nor identity */
	char *sql_stage, *sql_want, *sql_pair, *sql_pair_range, *sql_diff, *sql_add, *sql_replace;
	char *sql_delete, *sql_update, *sql_insert, *sql_verify;
	/* the dry run's probe of the rows it would insert (a --target-where
	 * testing a column no source column fills), or NULL */
	char *sql_probe_create, *sql_probe_alter, *sql_probe_insert, *sql_probe_check;
	rk_kfk *fk;
	size_t nfk;
	char ***want; /* per segment: the finding keys, nwant[i] * nkey texts (NULL: SQL NULL) */
	size_t *nwant;
	/* the segment being repaired */
	size_t cur;
	rk_keyspace ks;      /* its keyspace (a text key's prefix is the segment's own) */
	int64_t mlo, mhi;    /* its points */
	char *param[2];      /* its bounds as the statements bind them; NULL: an open end */
	rk_copy_stream copy; /* its rows on their way to the target */
	uint64_t rows;
} rk_krep;
/*
 * Connects to the target and the source, resolves the table, its columns
 * and the key, and refuses before any change (RK_EXIT_USAGE): a CSV target,
 * a subscribed one (unless force), missing privileges, a list out of key
 * order or with bounds that are no exact segment bounds, a bad
 * --target-where.  Renders the statements and reads the referencing
 * foreign keys.  0, or -1 with err; r is freed by the caller either way.
 */
int rk_krep_open(rk_krep *r, rk_error *err);

#endif
