/*
 * repair_impl.h - what the files of src/repair share (repair.h is the
 * interface): the run's state and the functions one file calls in another.
 *
 *   repair.c          the run: states, refusals without a connection, the
 *                     checks first, the loop over the intervals, the message
 *                     of a run that stopped
 *   repair_open.c     the target, the source, the columns, the statements
 *   repair_check.c    the checks before and after each interval
 *   repair_target.c   the target's statements and transactions, both modes
 *   repair_stage.c    the source's rows streamed into the staging tables
 *   repair_rows.c     row by row (the default): plan, writes, verification
 *   repair_replace.c  --replace-interval: plan and replacement
 *
 * (A Delta target is repair_delta.c's, with an interface of its own.)
 */
#ifndef RK_REPAIR_IMPL_H
#define RK_REPAIR_IMPL_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repair/repair.h"
#include "check/check.h"
#include "check/side.h"
#include "core/buf.h"
#include "core/canon.h"
#include "core/log.h"
#include "core/tz.h"
#include "io/copytext.h"
#include "io/pg.h"
#include "io/pgident.h"
#include "io/reader.h"
#include "io/sqltpl.h"
#include "load/dest.h"
#include "load/guard.h"
#include "load/target.h"
#include "repair/repair_delta.h"
#include "repair/repair_share.h"
#include "rk_sql.h"

/* The most columns a PostgreSQL table may have (MaxHeapAttributeNumber). */
#define RK_REPAIR_PG_MAX_COLUMNS 1600

/* How many intervals a failure message names before summarising. */
#define RK_REPAIR_LIST_MAX 6

/* What a scan of the source stages. */
typedef enum rk_stage_what {
	RK_STAGE_ROWS, /* the rows of the intervals to replace */
	RK_STAGE_KEYS, /* the keys outside them */
	RK_STAGE_ONE   /* the rows of one interval (row-level), untagged */
} rk_stage_what;

/* A foreign key that references the target table. */
typedef struct rk_repair_fk {
	char *name, *child; /* the constraint, the referencing table (as the server quotes it) */
	char action;        /* on delete: 'a' no action, 'r' restrict, 'c' cascade, 'n' set null, 'd' set default */
	char *sql_count;    /* the referencing rows of the rows a row-level repair deletes */
} rk_repair_fk;

/* Row by row: an interval's digest at the source, from its check before
 * the change, in the run's one source snapshot (the check after the change
 * compares the target with it). */
typedef struct rk_repair_seen {
	uint64_t rows, null_time;
	rk_u128 hash;
	rk_sum *sums; /* [nsum] */
} rk_repair_seen;

typedef struct rk_repair {
	const rk_repair_spec *spec;
	char **key; /* the logical key: the spec's, or discovered (rk_check_key) */
	size_t nkey;
	rk_pg *tgt;
	rk_dest dest; /* the target table */
	rk_reader *src;
	rk_reader *ck[2];  /* the checks' readers (source, target), kept open between them */
	bool src_rebound;  /* a check bound src to its columns: staging binds it again */
	long interval_col; /* target column, or -1 */
	rk_wmap map;       /* the columns written, and the source's names for them */
	rk_type time_type; /* how the source's time text is read */
	bool *large_cols;  /* per written column: a text one, whose large values the
	                    * staging scan takes out of band (rk_repair_scan) */

	/* the intervals being replaced: indexes into the caller's, in order */
	rk_repair_interval *iv;
	size_t n;
	size_t *todo;
	size_t ntodo;

	/* statements, rendered once */
	char *sql_stage_create, *sql_keys_create;
	char *sql_twice, *sql_reach, *sql_refuse, *sql_unbounded;
	char *sql_plan_time, *sql_plan_key;
	char *sql_delete_time, *sql_delete_key, *sql_insert;
	char *sql_icol_probe, *sql_plan_reset;
	char *reset_columns; /* the target-only columns --replace-interval resets, or NULL */
	/* row-level repair (the default) */
	char *sql_row_stage, *sql_row_want, *sql_row_pair, *sql_row_inside, *sql_row_moved, *sql_row_add;
	char *sql_row_delete, *sql_row_update, *sql_row_insert, *sql_row_verify;
	/* the dry run's probe of the rows it would insert (a --target-where
	 * testing a column no source column fills), or NULL */
	char *sql_probe_create, *sql_probe_alter, *sql_probe_insert, *sql_probe_check;
	bool can_update;      /* some written column is neither key nor identity */
	rk_repair_keys *want; /* per interval: the finding keys (rk_repair_take_key_lines) */
	char **icol_value;    /* per interval: the interval column's value (no --load-interval) */
	rk_repair_seen *seen; /* per interval, row by row: the source's digest of it */
	size_t cur;           /* the interval a row-level scan stages */
	rk_repair_fk *fk;     /* the foreign keys that reference the target */
	size_t nfk;

	/* the scan being staged */
	rk_stage_what what;
	rk_copy_stream copy; /* its rows on their way to the target */
	uint64_t rows;
	bool staged; /* the staging table holds the rows */
} rk_repair;

/* the run (repair.c) */

/* the target, the source, the columns (repair_open.c) */
bool rk_repair_fk_cascades(char a);
const char *rk_repair_icol_param(const rk_repair *r, size_t i, char li[32]);
int rk_repair_icol_bounds(rk_repair *r, size_t i, rk_error *err);
int rk_repair_bind(rk_repair *r, rk_error *err);
int rk_repair_open(rk_repair *r, rk_error *err);

/* the checks (repair_check.c) */
int rk_repair_check_readers(rk_repair *r, rk_reader *rd[2], rk_error *err);
int rk_repair_check_window2(rk_repair *r, rk_usec start, rk_usec end, bool *match, uint64_t *srows,
                            uint64_t *trows, rk_check_result **keep, const rk_check_known *known,
                            rk_error *err);
void rk_repair_keep_seen(rk_repair *r, size_t i, const rk_check_result *res);
int rk_repair_want(rk_repair *r, size_t i, const rk_check_result *res, rk_error *err);
int rk_repair_icol_probe(rk_repair *r, size_t i, rk_error *err);
int rk_repair_verify(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err);

/* the target's statements (repair_target.c) */
int rk_repair_tgt_fail(rk_repair *r, rk_error *err);
int rk_repair_cmd(rk_repair *r, const char *label, const char *sql, rk_error *err);
int rk_repair_count(rk_repair *r, const char *label, const char *sql, int nparams, const char *const *params,
                    uint64_t *out, char **out2, rk_error *err);
rk_usec rk_repair_grid(const rk_repair *r, const rk_repair_interval *v, bool *calendar, rk_calunit *unit);
int rk_repair_touch(rk_repair *r, size_t i, const rk_pg_result *res, rk_repair_state state,
                    rk_repair_result *out, uint64_t *total, rk_error *err);
int rk_repair_lock(rk_repair *r, rk_error *err);
void rk_repair_merge(rk_repair_result *out, rk_repair_result *mine);
void rk_repair_rollback(rk_repair *r);
int rk_repair_begin(rk_repair *r, const char *label, const char *begin, rk_error *err);
int rk_repair_commit(rk_repair *r, rk_repair_interval *v, rk_repair_result *mine, rk_repair_result *out,
                     rk_error *err);

/* staging (repair_stage.c) */
int rk_repair_scan(rk_repair *r, rk_stage_what what, const char *copy, rk_error *err);
int rk_repair_stage(rk_repair *r, rk_error *err);
int rk_repair_survey(rk_repair *r, rk_error *err);

/* row by row (repair_rows.c) */
int rk_repair_row_settings(rk_repair *r, rk_error *err);
int rk_repair_refuse_unfilled(rk_repair *r, size_t i, rk_error *err);
int rk_repair_row_execute(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err);
int rk_repair_row_plan(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err);

/* --replace-interval (repair_replace.c) */
int rk_repair_execute(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err);
int rk_repair_plan(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err);

#endif
