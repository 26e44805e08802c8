/*
 * repair.c - replaces the intervals of a rerun list in the target
 * (repair.h).
 *
 * One source reader (one REPEATABLE READ snapshot) reads the rows of every
 * interval to replace in one scan, streamed straight into the target's
 * staging table through a reused buffer: no per-row allocation, memory
 * independent of the intervals' size.  The reader is closed once the rows
 * are staged, so the source's snapshot is not held while the target is
 * written.  One target connection holds the staging tables and runs one
 * transaction per interval.
 */
#include "repair/repair.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
#include "rk_sql.h"

/* COPY data is sent in chunks of about this size. */
#define RK_REPAIR_FLUSH (256 * 1024)

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

typedef struct rk_repair {
	const rk_repair_spec *spec;
	char **key; /* the logical key: the spec's, or discovered (rk_check_key) */
	size_t nkey;
	rk_pg *tgt;
	rk_dest dest; /* the target table */
	rk_reader *src;
	long interval_col; /* target column, or -1 */
	rk_wmap map;       /* the columns written, and the source's names for them */
	rk_type time_type; /* how the source's time text is read */

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
	bool can_update; /* some written column is neither key nor identity */
	char ***want;    /* per interval: the finding keys, nwant[i] * nkey texts (NULL: SQL NULL) */
	size_t *nwant;
	char **icol_value; /* per interval: the interval column's value (no --load-interval) */
	size_t cur;        /* the interval a row-level scan stages */
	rk_repair_fk *fk;  /* the foreign keys that reference the target */
	size_t nfk;

	/* the scan being staged */
	rk_stage_what what;
	rk_buf out;
	uint64_t rows;
	bool copy_failed;  /* the target side of the stream failed ... */
	rk_error copy_err; /* ... with this error */
	bool staged;       /* the staging table holds the rows */
} rk_repair;

static const struct {
	const char *name, *key;
} rk_repair_states[] = {
	[RK_REPAIR_PENDING] = { "pending", "pending" },
	[RK_REPAIR_FAILED] = { "failed", "failed" },
	[RK_REPAIR_UNKNOWN] = { "unknown", "unknown" },
	[RK_REPAIR_ALREADY] = { "already matches", "already_matches" },
	[RK_REPAIR_PLANNED] = { "planned", "planned" },
	[RK_REPAIR_COMMITTED] = { "unverified", "unverified" },
	[RK_REPAIR_MATCH] = { "match", "match" },
	[RK_REPAIR_DIFFER] = { "differ", "differ" },
};

const char *rk_repair_state_name(rk_repair_state s)
{
	return (unsigned)s <= RK_REPAIR_DIFFER ? rk_repair_states[s].name : "?";
}

const char *rk_repair_state_key(rk_repair_state s)
{
	return (unsigned)s <= RK_REPAIR_DIFFER ? rk_repair_states[s].key : "?";
}

bool rk_repair_state_done(rk_repair_state s)
{
	return s == RK_REPAIR_COMMITTED || s == RK_REPAIR_MATCH || s == RK_REPAIR_DIFFER;
}

void rk_repair_result_free(rk_repair_result *res)
{
	free(res->touched);
	free(res->reset_columns);
	rk_repair_delta_free(res);
	memset(res, 0, sizeof *res);
}

static void rk_repair_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static void rk_repair_close(rk_repair *r)
{
	rk_repair_strv_free(r->key, r->nkey);
	rk_reader_free(r->src);
	rk_guard_release(r->tgt);
	rk_pg_close(r->tgt);
	rk_dest_free(&r->dest);
	rk_wmap_free(&r->map);
	free(r->todo);
	free(r->sql_stage_create);
	free(r->sql_keys_create);
	free(r->sql_twice);
	free(r->sql_reach);
	free(r->sql_refuse);
	free(r->sql_unbounded);
	free(r->sql_plan_time);
	free(r->sql_plan_key);
	free(r->sql_delete_time);
	free(r->sql_delete_key);
	free(r->sql_insert);
	free(r->sql_icol_probe);
	free(r->sql_plan_reset);
	free(r->reset_columns);
	free(r->sql_row_stage);
	free(r->sql_row_want);
	free(r->sql_row_pair);
	free(r->sql_row_inside);
	free(r->sql_row_moved);
	free(r->sql_row_add);
	free(r->sql_row_delete);
	free(r->sql_row_update);
	free(r->sql_row_insert);
	free(r->sql_row_verify);
	free(r->sql_probe_create);
	free(r->sql_probe_alter);
	free(r->sql_probe_insert);
	free(r->sql_probe_check);
	for (size_t i = 0; r->want && i < r->n; i++) {
		rk_repair_strv_free(r->want[i], r->nwant[i] * r->nkey);
	}
	free(r->want);
	free(r->nwant);
	rk_repair_strv_free(r->icol_value, r->icol_value ? r->n : 0);
	for (size_t i = 0; i < r->nfk; i++) {
		free(r->fk[i].name);
		free(r->fk[i].child);
		free(r->fk[i].sql_count);
	}
	free(r->fk);
	rk_buf_free(&r->out);
}

/* "[2026-03-02T10:00:00Z, 2026-03-02T11:00:00Z)" */
static void rk_repair_put_interval(rk_buf *b, rk_usec s, rk_usec e)
{
	char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN];

	rk_buf_printf(b, "[%s, %s)", rk_time_format(s, a), rk_time_format(e, z));
}

/* "the key (order_id, line_no)" for messages */
static void rk_repair_put_key(const rk_repair *r, rk_buf *b)
{
	rk_buf_puts(b, r->nkey == 1 ? "the key " : "the key (");
	for (size_t k = 0; k < r->nkey; k++)
		rk_buf_printf(b, "%s%s", k ? ", " : "", r->key[k]);
	if (r->nkey != 1)
		rk_buf_putc(b, ')');
}

/* ------------------------------------------------------------------------
 * before anything: what is refused without a connection
 * ---------------------------------------------------------------------- */

/* An interval whose end is after now - settle may still receive rows: its
 * repair would be out of date at once (docs/reference.md closed windows). */
static int rk_repair_refuse_open(const rk_repair_spec *spec, const rk_repair_interval *iv, size_t n, rk_error *err)
{
	rk_usec closed = spec->check.now - spec->check.settle;
	size_t open = 0, first = 0;
	rk_buf b = RK_BUF_INIT;
	char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN], d[RK_TIME_STRLEN];

	for (size_t i = 0; i < n; i++)
		if (iv[i].end > closed && open++ == 0)
			first = i;
	if (!open)
		return 0;
	if (spec->allow_open) {
		rk_log_warn("%zu interval%s of the list %s open (end after %s): repairing as --allow-open says", open,
		            open == 1 ? "" : "s", open == 1 ? "is" : "are", rk_time_format(closed, a));
		return 0;
	}
	rk_repair_put_interval(&b, iv[first].start, iv[first].end);
	rk_error_set(err, RK_EXIT_USAGE, "%zu interval%s of the list %s open: %s ends after %s (now %s minus --settle "
	                                 "%s); nothing was changed",
	             open, open == 1 ? "" : "s", open == 1 ? "is" : "are", rk_buf_cstr(&b),
	             rk_time_format(closed, a), rk_time_format(spec->check.now, z),
	             rk_duration_format(spec->check.settle, d));
	rk_buf_free(&b);
	return rk_error_hint(err, "an open window may still receive rows; repair it once it is closed, or add "
	                          "--allow-open to repair it now");
}

/* ------------------------------------------------------------------------
 * the target, the source, the columns
 * ---------------------------------------------------------------------- */

static int rk_repair_subscribed(rk_repair *r, rk_error *err)
{
	char *subs = NULL;

	if (rk_dest_subscriptions(&r->dest, &subs, err) < 0)
		return -1;
	if (!subs)
		return 0;
	if (r->spec->force) {
		rk_log_warn("target table %s is written by the enabled subscription %s: repairing it anyway (--force)",
		            r->dest.display, subs);
		free(subs);
		return 0;
	}
	rk_error_set(err, RK_EXIT_USAGE, "target table %s on %s is written by the enabled logical-replication "
	                                 "subscription %s: a repair racing its apply worker breaks replication (a change still queued "
	                                 "for a row repair replaced fails with a duplicate key); nothing was changed",
	             r->dest.display,
	             rk_pg_location(r->tgt), subs);
	free(subs);
	return rk_error_hint(err, "let the subscription catch up and disable it (ALTER SUBSCRIPTION ... DISABLE) "
	                          "while repairing, or add --force to repair anyway");
}

/* Checks --target-where on no rows, so a mistake is an input error before
 * anything is staged, with the server's own words. */
static int rk_repair_check_filter(rk_repair *r, const char *filter, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc;

	rk_buf_printf(&b, "SELECT 1 FROM %s WHERE %s LIMIT 0", r->dest.qualified, filter);
	rc = rk_pg_exec(r->tgt, "target filter", rk_buf_cstr(&b), 0, NULL, RK_PG_ANY_ROWS, NULL, err);
	rk_buf_free(&b);
	if (rc < 0) {
		err->code = RK_EXIT_USAGE;
		rk_error_prefix(err, "--target-where %s", r->spec->check.target.where);
		return rk_error_hint(err, "write a condition on the columns of %s, e.g. 'not is_test'", r->dest.display);
	}
	return 0;
}

static int rk_repair_count(rk_repair *r, const char *label, const char *sql, int nparams, const char *const *params,
                           uint64_t *out, char **out2, rk_error *err);
static int rk_repair_refuse_unfilled(rk_repair *r, size_t i, rk_error *err);

/* What a delete does to the rows that reference a deleted row. */
static const char *rk_repair_fk_action(char a)
{
	switch (a) {
	case 'c':
		return "ON DELETE CASCADE: they are deleted too";
	case 'n':
		return "ON DELETE SET NULL: their reference is cleared";
	case 'd':
		return "ON DELETE SET DEFAULT: their reference is reset";
	default:
		return "ON DELETE NO ACTION/RESTRICT: the delete fails";
	}
}

static bool rk_repair_fk_cascades(char a)
{
	return a == 'c' || a == 'n' || a == 'd';
}

/* Refuses, before any change, a target role that may not write what the
 * repair writes. */
static int rk_repair_privileges(rk_repair *r, rk_error *err)
{
	const char *params[2] = { r->dest.oid, r->spec->replace_interval ? "INSERT,DELETE" : "INSERT,UPDATE,DELETE" };
	rk_pg_result *res;
	const char *missing;

	if (rk_pg_exec(r->tgt, "read the target's privileges", rk_sql_repair_privileges, 2, params, RK_PG_ONE_ROW, &res,
	               err) < 0)
		return -1;
	missing = rk_pg_result_value(res, 0, 0);
	if (missing) {
		rk_error_set(err, RK_EXIT_USAGE, "the target role may not %s target table %s on %s: repair %s; nothing "
		                                 "was changed",
		             missing, r->dest.display, rk_pg_location(r->tgt),
		             r->spec->replace_interval ? "deletes and inserts rows" : "inserts, updates and deletes rows");
		rk_pg_result_free(res);
		return rk_error_hint(err, "GRANT the privileges on the table to the target role, or connect as a role "
		                          "that holds them");
	}
	rk_pg_result_free(res);
	return 0;
}

/* Reads the foreign keys that reference the target.  --replace-interval
 * deletes every row of an interval: a cascading one is refused before any
 * change unless --allow-cascade, a blocking one named.  Row by row, the
 * referencing rows of the rows to delete are counted per interval. */
static int rk_repair_referencing(rk_repair *r, rk_error *err)
{
	const char *params[1] = { r->dest.oid };
	rk_pg_result *res;
	rk_buf names = RK_BUF_INIT;
	size_t ncascade = 0;

	if (rk_pg_exec(r->tgt, "read the referencing foreign keys", rk_sql_repair_referencing, 1, params,
	               RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	r->nfk = (size_t)rk_pg_result_rows(res);
	r->fk = rk_xcalloc(r->nfk + 1, sizeof *r->fk);
	for (size_t i = 0; i < r->nfk; i++) {
		rk_repair_fk *f = &r->fk[i];
		const char *a = rk_pg_result_value(res, (int)i, 2);
		rk_buf q = RK_BUF_INIT;

		f->name = rk_xstrdup(rk_pg_result_value(res, (int)i, 0));
		f->child = rk_xstrdup(rk_pg_result_value(res, (int)i, 1));
		f->action = a ? a[0] : 'a';
		rk_buf_printf(&q, "SELECT count(*) FROM %s AS c WHERE (%s) IN (SELECT %s FROM %s AS t JOIN "
		                  "reckon_repair_diff AS d ON t.tableoid = d.relid AND t.ctid = d.row_id WHERE d.act = 'd')",
		              f->child, rk_pg_result_value(res, (int)i, 3), rk_pg_result_value(res, (int)i, 4),
		              r->dest.qualified);
		f->sql_count = rk_xstrdup(rk_buf_cstr(&q));
		rk_buf_free(&q);
		if (rk_repair_fk_cascades(f->action)) {
			rk_buf_printf(&names, "%s%s on %s (%s)", ncascade ? "; " : "", f->name, f->child,
			              rk_repair_fk_action(f->action));
			ncascade++;
		}
	}
	rk_pg_result_free(res);
	if (r->spec->replace_interval && ncascade && !r->spec->allow_cascade) {
		rk_error_set(err, RK_EXIT_USAGE, "--replace-interval deletes every target row of an interval, and %zu "
		                                 "foreign key%s reference%s target table %s: %s; nothing was changed",
		             ncascade,
		             ncascade == 1 ? "" : "s", ncascade == 1 ? "s" : "", r->dest.display, rk_buf_cstr(&names));
		rk_buf_free(&names);
		return rk_error_hint(err, "repair row by row (leave --replace-interval out): only rows that differ are "
		                          "deleted; or add --allow-cascade if the referencing rows may go");
	}
	if (r->spec->replace_interval)
		for (size_t i = 0; i < r->nfk; i++)
			if (!rk_repair_fk_cascades(r->fk[i].action))
				rk_log_warn("foreign key %s on %s references target table %s (%s): --replace-interval fails on "
				            "a row that is referenced",
				            r->fk[i].name, r->fk[i].child, r->dest.display,
				            rk_repair_fk_action(r->fk[i].action));
	if (ncascade && r->spec->allow_cascade)
		rk_log_warn("foreign keys referencing %s: %s; deleting anyway (--allow-cascade)", r->dest.display,
		            rk_buf_cstr(&names));
	rk_buf_free(&names);
	return 0;
}

/* Row by row: refuses, in the interval's transaction before its writes
 * (the dry run: in its plan), deleting rows that other rows reference -
 * the delete would fail (NO ACTION, RESTRICT) or reach them (CASCADE, SET
 * NULL, SET DEFAULT; allowed with --allow-cascade) - and moving a row whose
 * time is out of reckon's range. */
static int rk_repair_row_refuse(rk_repair *r, size_t i, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	uint64_t n = 0;
	char *example = NULL;

	rk_repair_put_interval(&b, r->iv[i].start, r->iv[i].end);
	if (rk_repair_count(r, "rows moved from out of range", rk_sql_repair_row_unbounded, 0, NULL, &n, &example,
	                    err) < 0)
		goto fail;
	if (n) {
		rk_error_set(err, RK_EXIT_USAGE, "the target holds %llu row%s of a missing key of %s at +-infinity or out "
		                                 "of reckon's time range (e.g. %s): its window cannot be checked again; nothing was changed",
		             (unsigned long long)n, n == 1 ? "" : "s", rk_buf_cstr(&b), example ? example : "?");
		rk_error_hint(err, "correct or delete those rows' time first; reckon checks windows of finite times only");
		goto fail;
	}
	for (size_t f = 0; r->iv[i].deleted_by_time && f < r->nfk; f++) {
		if (rk_repair_count(r, "count referencing rows", r->fk[f].sql_count, 0, NULL, &n, NULL, err) < 0)
			goto fail;
		if (!n || (rk_repair_fk_cascades(r->fk[f].action) && r->spec->allow_cascade))
			continue;
		rk_error_set(err, RK_EXIT_USAGE, "repairing %s deletes %llu target row%s that %llu row%s of %s "
		                                 "reference%s through foreign key %s (%s); nothing was changed in it",
		             rk_buf_cstr(&b),
		             (unsigned long long)r->iv[i].deleted_by_time, r->iv[i].deleted_by_time == 1 ? "" : "s",
		             (unsigned long long)n, n == 1 ? "" : "s", r->fk[f].child, n == 1 ? "s" : "",
		             r->fk[f].name, rk_repair_fk_action(r->fk[f].action));
		if (rk_repair_fk_cascades(r->fk[f].action))
			rk_error_hint(err, "add --allow-cascade if the referencing rows may go with the extra rows");
		else
			rk_error_hint(err, "delete or re-point the referencing rows first, or repair that interval by hand");
		goto fail;
	}
	free(example);
	rk_buf_free(&b);
	return 0;
fail:
	free(example);
	rk_buf_free(&b);
	return -1;
}

/* Binds the source reader to the written columns and learns how to read
 * its time. */
static int rk_repair_bind(rk_repair *r, rk_error *err)
{
	const char **names = rk_xcalloc(r->map.n + 1, sizeof *names);
	rk_type *types = rk_xcalloc(r->map.n + 1, sizeof *types);
	const rk_wcol *tc = &r->map.c[r->map.time];
	int rc = -1;

	for (size_t i = 0; i < r->map.n; i++)
		names[i] = r->map.c[i].bind;
	if (rk_reader_bind(r->src, names, r->map.n, types, err) < 0)
		goto done;
	if (!rk_reader_has(r->src, RK_CAP_TYPED)) {
		/* untyped (CSV) text is read with the target column's type */
		if (rk_type_from_name(r->dest.base[tc->tcol], true, &r->time_type) < 0)
			r->time_type = RK_T_OTHER;
	} else {
		r->time_type = types[r->map.time];
	}
	if (!rk_type_is_time(r->time_type)) {
		rk_error_set(err, RK_EXIT_USAGE, "time column '%s' of %s is %s, not a timestamp or date", tc->logical,
		             !rk_reader_has(r->src, RK_CAP_TYPED) ? r->dest.display : rk_reader_describe(r->src),
		             !rk_reader_has(r->src, RK_CAP_TYPED) ? r->dest.base[tc->tcol] : rk_type_name(r->time_type));
		rk_error_hint(err, "--time names a timestamptz, timestamp or date column (or expression) on both sides");
		goto done;
	}
	{
		rk_type tt = RK_T_OTHER;

		if (rk_type_from_name(r->dest.base[tc->tcol], true, &tt) < 0 || !rk_type_is_time(tt)) {
			rk_error_set(err, RK_EXIT_USAGE, "time column '%s' of target table %s is %s, not a timestamp or "
			                                 "date",
			             tc->logical, r->dest.display, r->dest.base[tc->tcol]);
			rk_error_hint(err, "--time names a timestamptz, timestamp or date column");
			goto done;
		}
	}
	rc = 0;
done:
	free(names);
	free(types);
	return rc;
}

/* Quoted target columns of the written entries idx[0..n) (NULL: all of
 * them), joined by ", ", each prefixed and suffixed. */
static char *rk_repair_list2(rk_repair *r, const size_t *idx, size_t n, const char *prefix, const char *suffix,
                             rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		char *q = rk_dest_quote(&r->dest, r->map.c[idx ? idx[i] : i].tcol, err);

		if (!q) {
			rk_buf_free(&b);
			return NULL;
		}
		rk_buf_printf(&b, "%s%s%s%s", i ? ", " : "", prefix, q, suffix);
		free(q);
	}
	rk_buf_cstr(&b);
	return b.data;
}

/* The same, each only prefixed. */
static char *rk_repair_list(rk_repair *r, const size_t *idx, size_t n, const char *prefix, rk_error *err)
{
	return rk_repair_list2(r, idx, n, prefix, "", err);
}

/* The value the load would have written into the interval column for a
 * row whose time is the SQL expression time, into b: with --load-interval,
 * the start of the load interval holding it - on the grid counted from the
 * epoch (parameter param: the width in microseconds), or with --timezone
 * among the starts of the zone's units that cover the interval (parameter
 * param: a timestamptz[] of them, rk_repair_icol_bounds); without,
 * parameter param itself (the one value the target's rows of the interval
 * record). */
static void rk_repair_icol_expr(const rk_repair *r, rk_buf *b, const char *time, int param)
{
	if (r->spec->load_interval && r->spec->check.tz)
		rk_buf_printf(b, "(($%d::pg_catalog.timestamptz[])[pg_catalog.width_bucket((%s)::pg_catalog.timestamptz, "
		                 "$%d::pg_catalog.timestamptz[])])",
		              param, time, param);
	else if (r->spec->load_interval)
		rk_buf_printf(b, "pg_catalog.to_timestamp(floor(extract(epoch FROM %s) / ($%d::numeric / 1000000)) * "
		                 "($%d::numeric / 1000000))",
		              time, param, param);
	else
		rk_buf_printf(b, "$%d", param);
}

/* The parameter rk_repair_icol_expr's expression takes for interval i
 * (li: room for the width). */
static const char *rk_repair_icol_param(const rk_repair *r, size_t i, char li[32])
{
	if (!r->spec->load_interval || r->spec->check.tz)
		return r->icol_value[i];
	snprintf(li, 32, "%lld", (long long)r->spec->load_interval);
	return li;
}

/* The most load intervals one repair interval may cover with --timezone. */
#define RK_REPAIR_MAX_LOAD_INTERVALS 100000

/*
 * --load-interval with --timezone: the starts of the load intervals that
 * cover interval i, and the end of the last, as a timestamptz[] literal,
 * into r->icol_value[i].  They are aligned as --last aligns windows: days,
 * weeks and months of the zone (rk_tz_floor), h/m/s widths from the local
 * midnight of the interval's start.
 */
static int rk_repair_icol_bounds(rk_repair *r, size_t i, rk_error *err)
{
	const rk_tz *tz = r->spec->check.tz;
	const rk_repair_interval *v = &r->iv[i];
	rk_usec li = r->spec->load_interval, b;
	bool calendar = li < 0 || li % RK_USEC_PER_DAY == 0;
	rk_calunit unit = { li < 0 ? (int32_t)-li : 0, li > 0 ? (int32_t)(li / RK_USEC_PER_DAY) : 0 };
	rk_buf out = RK_BUF_INIT;
	size_t n = 0;

	if (calendar) {
		b = rk_tz_floor(tz, unit, v->start);
	} else {
		rk_usec mid = rk_tz_midnight(tz, v->start);

		b = mid + (v->start - mid) / li * li;
	}
	rk_buf_putc(&out, '{');
	for (;;) {
		char t[RK_TIME_STRLEN];

		if (++n > RK_REPAIR_MAX_LOAD_INTERVALS) {
			rk_buf_free(&out);
			rk_error_set(err, RK_EXIT_USAGE, "--load-interval: interval %zu of the rerun list holds more than %d "
			                                 "load intervals; nothing was changed",
			             i + 1, RK_REPAIR_MAX_LOAD_INTERVALS);
			return rk_error_hint(err, "give the width the load's intervals have");
		}
		rk_buf_printf(&out, "%s%s", n > 1 ? "," : "", rk_time_format(b, t));
		if (b >= v->end)
			break;
		b = calendar ? rk_tz_step(tz, unit, b, 1) : b + li;
	}
	rk_buf_putc(&out, '}');
	rk_buf_cstr(&out);
	r->icol_value[i] = out.data;
	return 0;
}

static char *rk_repair_render(const char *tpl, const rk_sqlvar *vars, size_t nvars, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	if (rk_sql_render(&b, tpl, vars, nvars, err) < 0) {
		rk_buf_free(&b);
		return NULL;
	}
	return b.data;
}

static bool rk_repair_mentioned(const rk_repair *r, size_t c);

/* The dry run's probe of the rows it would insert, when --target-where
 * tests a target column no source column fills: a table like the target
 * whose columns keep their defaults only where the filter tests them (no
 * sequence is advanced by the others), none NOT NULL. */
static int rk_repair_probe_statements(rk_repair *r, const rk_sqlvar *vars, size_t nv, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	size_t n = 0;
	bool any = false;

	for (size_t c = 0; c < r->dest.ncols; c++)
		any = any || rk_repair_mentioned(r, c);
	if (!any)
		return 0;
	rk_buf_puts(&b, "ALTER TABLE reckon_repair_probe");
	for (size_t c = 0; c < r->dest.ncols; c++) {
		char *q;

		if (r->dest.generated[c])
			continue;
		if (!(q = rk_dest_quote(&r->dest, c, err))) {
			rk_buf_free(&b);
			return -1;
		}
		rk_buf_printf(&b, "%s ALTER COLUMN %s DROP NOT NULL", n++ ? "," : "", q);
		if (!rk_repair_mentioned(r, c))
			rk_buf_printf(&b, ", ALTER COLUMN %s DROP DEFAULT", q);
		free(q);
	}
	r->sql_probe_alter = n ? rk_xstrdup(rk_buf_cstr(&b)) : NULL;
	rk_buf_free(&b);
	if (!(r->sql_probe_create = rk_repair_render(rk_sql_repair_row_probe_create, vars, nv, err)) ||
	    !(r->sql_probe_insert = rk_repair_render(r->spec->replace_interval ? rk_sql_repair_plan_probe_insert
	                                                                       : rk_sql_repair_row_probe_insert,
	                                             vars, nv, err)) ||
	    !(r->sql_probe_check = rk_repair_render(rk_sql_repair_row_probe_check, vars, nv, err)))
		return -1;
	return 0;
}

/*
 * Renders the statements of a row-level repair.  Only the pair statement
 * and the verification hold the user's filter text (rk_sql_filter), each as
 * one boolean column of a subquery in a statement that writes nothing but
 * reckon's temporary tables; every write applies the interval and the
 * finding keys itself.
 */
static int rk_repair_row_statements(rk_repair *r, const char *filter, const char *icol, rk_error *err)
{
	size_t *set = rk_xcalloc(r->map.n + 1, sizeof *set), nset = 0;
	char *columns = NULL, *s_columns = NULL, *keys = NULL, *t_keys = NULL, *s_keys = NULL, *tk = NULL;
	char *t_time = NULL, *s_time = NULL, *set_cols = NULL, *s_set = NULL, *t_cmp = NULL, *s_cmp = NULL;
	rk_buf tq = RK_BUF_INIT, same = RK_BUF_INIT, extra = RK_BUF_INIT, ival = RK_BUF_INIT, ic = RK_BUF_INIT;
	rk_buf icv = RK_BUF_INIT;
	int rc = -1;

	for (size_t i = 0; i < r->map.n; i++) {
		bool is_key = false;

		for (size_t k = 0; k < r->map.nkey; k++)
			is_key = is_key || r->map.key[k] == i;
		/* an update leaves the key, identity values and target-only columns */
		if (!is_key && !r->dest.identity[r->map.c[i].tcol])
			set[nset++] = i;
	}
	r->can_update = nset > 0;
	rk_buf_printf(&tq, "%s.", r->dest.qualified);
	if (!(columns = rk_repair_list(r, NULL, r->map.n, "", err)) ||
	    !(s_columns = rk_repair_list(r, NULL, r->map.n, "s.", err)) ||
	    !(keys = rk_repair_list(r, r->map.key, r->map.nkey, "", err)) ||
	    !(t_keys = rk_repair_list(r, r->map.key, r->map.nkey, "t.", err)) ||
	    !(s_keys = rk_repair_list(r, r->map.key, r->map.nkey, "s.", err)) ||
	    !(tk = rk_repair_list(r, r->map.key, r->map.nkey, rk_buf_cstr(&tq), err)) ||
	    !(t_time = rk_repair_list(r, &r->map.time, 1, "t.", err)) ||
	    !(s_time = rk_repair_list(r, &r->map.time, 1, "s.", err)) ||
	    !(set_cols = rk_repair_list(r, set, nset, "", err)) ||
	    !(s_set = rk_repair_list(r, set, nset, "s.", err)) ||
	    !(t_cmp = rk_repair_list2(r, set, nset, "t.", "::text", err)) ||
	    !(s_cmp = rk_repair_list2(r, set, nset, "s.", "::text", err)))
		goto done;
	if (nset)
		rk_buf_printf(&same, "(ROW(%s) IS NOT DISTINCT FROM ROW(%s))", t_cmp, s_cmp);
	else
		rk_buf_puts(&same, "true");
	if (icol) {
		/* the value the load would have written ($3) */
		rk_repair_icol_expr(r, &ival, s_time, 3);
		rk_buf_printf(&ic, ", %s", icol);
		rk_buf_printf(&icv, ", %s", rk_buf_cstr(&ival));
		rk_buf_printf(&extra, ", %s = CASE WHEN d.act = 'm' THEN %s ELSE t.%s END", icol, rk_buf_cstr(&ival), icol);
	}
	{
		const rk_sqlvar vars[] = {
			{ "target_table", r->dest.qualified },
			{ "target_filter", filter },
			{ "target_keys", tk },
			{ "columns", columns },
			{ "s_columns", s_columns },
			{ "keys", keys },
			{ "t_keys", t_keys },
			{ "s_keys", s_keys },
			{ "t_time", t_time },
			{ "s_time", s_time },
			{ "same", rk_buf_cstr(&same) },
			{ "set_columns", set_cols },
			{ "s_set_columns", s_set },
			{ "set_extra", rk_buf_cstr(&extra) },
			{ "icol", rk_buf_cstr(&ic) },
			{ "icol_value", rk_buf_cstr(&icv) },
		};
		size_t nv = sizeof vars / sizeof vars[0];

		rc = 0;
		if (!(r->sql_row_stage = rk_repair_render(rk_sql_repair_row_stage_create, vars, nv, err)) ||
		    !(r->sql_row_want = rk_repair_render(rk_sql_repair_row_want_create, vars, nv, err)) ||
		    !(r->sql_row_pair = rk_repair_render(rk_sql_repair_row_pair, vars, nv, err)) ||
		    !(r->sql_row_inside = rk_repair_render(rk_sql_repair_row_diff_inside, vars, nv, err)) ||
		    !(r->sql_row_moved = rk_repair_render(rk_sql_repair_row_diff_moved, vars, nv, err)) ||
		    !(r->sql_row_add = rk_repair_render(rk_sql_repair_row_diff_insert, vars, nv, err)) ||
		    !(r->sql_row_delete = rk_repair_render(rk_sql_repair_row_delete, vars, nv, err)) ||
		    (nset && !(r->sql_row_update = rk_repair_render(rk_sql_repair_row_update, vars, nv, err))) ||
		    !(r->sql_row_insert = rk_repair_render(rk_sql_repair_row_insert, vars, nv, err)) ||
		    !(r->sql_row_verify = rk_repair_render(rk_sql_repair_row_verify, vars, nv, err)))
			rc = -1;
		if (rc == 0 && !r->spec->execute && rk_repair_probe_statements(r, vars, nv, err) < 0)
			rc = -1;
	}
done:
	free(set);
	free(columns);
	free(s_columns);
	free(keys);
	free(t_keys);
	free(s_keys);
	free(tk);
	free(t_time);
	free(s_time);
	free(set_cols);
	free(s_set);
	free(t_cmp);
	free(s_cmp);
	rk_buf_free(&tq);
	rk_buf_free(&same);
	rk_buf_free(&extra);
	rk_buf_free(&ival);
	rk_buf_free(&ic);
	rk_buf_free(&icv);
	return rc;
}

/* Renders every statement that names the user's table and columns. */
static int rk_repair_statements(rk_repair *r, rk_error *err)
{
	char *columns = NULL, *keys = NULL, *skeys = NULL, *okeys = NULL, *tkeys = NULL, *tcol = NULL, *ttime = NULL;
	char *icol = NULL, *filter = rk_sql_filter(r->spec->check.target.where);
	rk_buf b = RK_BUF_INIT, iv = RK_BUF_INIT, ti = RK_BUF_INIT;
	int rc = -1;

	rk_buf_printf(&b, "%s.", r->dest.qualified);
	if (!(columns = rk_repair_list(r, NULL, r->map.n, "", err)) ||
	    !(keys = rk_repair_list(r, r->map.key, r->map.nkey, "", err)) ||
	    !(skeys = rk_repair_list(r, r->map.key, r->map.nkey, "s.", err)) ||
	    !(okeys = rk_repair_list(r, r->map.key, r->map.nkey, "o.", err)) ||
	    !(tkeys = rk_repair_list(r, r->map.key, r->map.nkey, rk_buf_cstr(&b), err)) ||
	    !(tcol = rk_repair_list(r, &r->map.time, 1, "", err)) ||
	    !(ttime = rk_repair_list(r, &r->map.time, 1, rk_buf_cstr(&b), err)))
		goto done;
	if (r->interval_col >= 0 && !(icol = rk_dest_quote(&r->dest, (size_t)r->interval_col, err)))
		goto done;
	if (r->spec->check.target.where && rk_repair_check_filter(r, filter, err) < 0)
		goto done;
	if (rk_repair_row_statements(r, filter, icol, err) < 0)
		goto done;
	if (icol) {
		/* the value the load would have written ($2) */
		rk_buf_puts(&iv, ", ");
		rk_repair_icol_expr(r, &iv, tcol, 2);
		rk_buf_printf(&ti, "%s%s", rk_buf_cstr(&b), icol);
	}
	{
		const rk_sqlvar vars[] = {
			{ "icol_value", rk_buf_cstr(&iv) },
			{ "t_icol", rk_buf_cstr(&ti) },
			{ "target_table", r->dest.qualified },
			{ "columns", columns },
			{ "keys", keys },
			{ "staged_keys", skeys },
			{ "outside_keys", okeys },
			{ "target_keys", tkeys },
			{ "time", tcol },
			{ "target_time", ttime },
			{ "target_filter", filter },
			{ "interval_column", icol ? icol : "" },
		};
		size_t nv = sizeof vars / sizeof vars[0];

		if (!(r->sql_stage_create = rk_repair_render(rk_sql_repair_stage_create, vars, nv, err)) ||
		    !(r->sql_keys_create = rk_repair_render(rk_sql_repair_keys_create, vars, nv, err)) ||
		    !(r->sql_twice = rk_repair_render(rk_sql_repair_survey_twice, vars, nv, err)) ||
		    !(r->sql_reach = rk_repair_render(rk_sql_repair_survey_reach, vars, nv, err)) ||
		    !(r->sql_refuse = rk_repair_render(rk_sql_repair_survey_refuse, vars, nv, err)) ||
		    !(r->sql_unbounded = rk_repair_render(rk_sql_repair_survey_unbounded, vars, nv, err)) ||
		    !(r->sql_plan_time = rk_repair_render(rk_sql_repair_plan_by_time, vars, nv, err)) ||
		    !(r->sql_plan_key = rk_repair_render(rk_sql_repair_plan_by_key, vars, nv, err)) ||
		    !(r->sql_plan_reset = rk_repair_render(rk_sql_repair_plan_reset, vars, nv, err)) ||
		    !(r->sql_delete_time = rk_repair_render(rk_sql_repair_delete_by_time, vars, nv, err)) ||
		    !(r->sql_delete_key = rk_repair_render(rk_sql_repair_delete_by_key, vars, nv, err)) ||
		    !(r->sql_insert = rk_repair_render(icol ? rk_sql_repair_insert_interval : rk_sql_repair_insert, vars,
		                                       nv, err)) ||
		    (icol && !(r->sql_icol_probe = rk_repair_render(rk_sql_repair_icol_probe, vars, nv, err))))
			goto done;
	}
	rc = 0;
done:
	free(columns);
	free(keys);
	free(skeys);
	free(okeys);
	free(tkeys);
	free(tcol);
	free(ttime);
	free(icol);
	free(filter);
	rk_buf_free(&b);
	rk_buf_free(&iv);
	rk_buf_free(&ti);
	return rc;
}

/* --replace-interval stages the written columns beside the interval's
 * start (sql/repair_stage_create.sql): refused, before anything is
 * staged, when that table would have more columns than PostgreSQL allows
 * (row by row, the staging table has only the written columns). */
static int rk_repair_column_limit(rk_repair *r, rk_error *err)
{
	if (!r->spec->replace_interval || r->map.n + 1 <= RK_REPAIR_PG_MAX_COLUMNS)
		return 0;
	rk_error_set(err, RK_EXIT_USAGE, "--replace-interval stages the %zu written columns of target table %s and the "
	                                 "interval's start: %zu columns, more than the %d a PostgreSQL table may have; "
	                                 "nothing was changed",
	             r->map.n, r->dest.display, r->map.n + 1, RK_REPAIR_PG_MAX_COLUMNS);
	return rk_error_hint(err, "repair row by row (leave --replace-interval out), or leave a column out with "
	                          "--exclude-columns");
}

/* --replace-interval: the target columns an inserted row takes its
 * default (or a new identity value) in - neither written nor generated
 * nor the interval column - which every replaced row loses. */
static void rk_repair_reset_columns(rk_repair *r)
{
	rk_buf b = RK_BUF_INIT;

	if (!r->spec->replace_interval)
		return;
	for (size_t c = 0; c < r->dest.ncols; c++) {
		bool written = (long)c == r->interval_col || r->dest.generated[c];

		for (size_t i = 0; i < r->map.n && !written; i++)
			written = r->map.c[i].tcol == c;
		if (!written)
			rk_buf_printf(&b, "%s%s", b.len ? ", " : "", r->dest.cols[c]);
	}
	if (b.len)
		r->reset_columns = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
}

/* Connects, resolves and checks everything before the first change. */
static int rk_repair_open(rk_repair *r, rk_error *err)
{
	const rk_check_spec *c = &r->spec->check;
	char **names = NULL;
	size_t nnames = 0;
	rk_wmap_in in;
	int rc = -1;

	r->interval_col = -1;
	if (!rk_conn_has(c->target.conn, RK_CAP_LIBPQ)) {
		rk_error_set(err, RK_EXIT_USAGE, "--target %s is %s: repair writes into a PostgreSQL table or a Delta table", c->target.conn,
		             rk_conn_noun(c->target.conn));
		return rk_error_hint(err, "give the target as a libpq conninfo or URI, or delta:PATH; a CSV source is fine");
	}
	if (!c->target.table || !*c->target.table) {
		rk_error_set(err, RK_EXIT_USAGE, "no target table named");
		return rk_error_hint(err, "give --table NAME (or --target-table NAME)");
	}
	if (!c->time) {
		rk_error_set(err, RK_EXIT_USAGE, "repair needs --time");
		return rk_error_hint(err, "the same table options as reckon check");
	}
	if (c->nkey) {
		r->key = rk_xcalloc(c->nkey, sizeof *r->key);
		for (size_t k = 0; k < c->nkey; k++)
			r->key[r->nkey++] = rk_xstrdup(c->key[k]);
	} else if (rk_check_key(c, &r->key, &r->nkey, err) < 0) {
		return -1;
	}
	if (!(r->tgt = rk_pg_connect(c->target.conn, "target", err)) ||
	    rk_guard_session(r->tgt, c->target.conn, err) < 0 ||
	    rk_dest_open(&r->dest, r->tgt, "target", c->target.table, true, err) < 0)
		return -1;
	/* the dry run refuses too: its plan is what --execute would refuse */
	if (rk_repair_subscribed(r, err) < 0)
		return -1;
	if (r->spec->interval_column) {
		long t = rk_dest_column(&r->dest, r->spec->interval_column);

		if (t < 0) {
			rk_error_set(err, RK_EXIT_USAGE, "interval column '%s' does not exist in target table %s on %s",
			             r->spec->interval_column, r->dest.display, rk_pg_location(r->tgt));
			rk_dest_hint_columns(&r->dest, err);
			return -1;
		}
		if (r->dest.generated[t]) {
			rk_error_set(err, RK_EXIT_USAGE, "--interval-column %s is a generated column of %s",
			             r->spec->interval_column, r->dest.display);
			return rk_error_hint(err, "name a column repair can write");
		}
		r->interval_col = t;
	}
	if (rk_repair_privileges(r, err) < 0 || rk_repair_referencing(r, err) < 0)
		return -1;
	/* the source's snapshot starts here and serves every interval */
	if (!(r->src = rk_reader_open(&c->source, err)) || rk_reader_columns(r->src, &names, &nnames, err) < 0)
		return -1;
	memset(&in, 0, sizeof in);
	in.cmd = "repair";
	in.target = &r->dest;
	in.interval_col = r->interval_col;
	in.source = &c->source;
	in.target_side = &c->target;
	in.src_cols = names;
	in.nsrc = nnames;
	in.src_csv = !rk_reader_has(r->src, RK_CAP_SQL_NAMES);
	in.src_desc = rk_reader_describe(r->src);
	in.key = (const char *const *)r->key;
	in.nkey = r->nkey;
	in.time = c->time;
	in.exclude = c->exclude;
	in.nexclude = c->nexclude;
	if (rk_wmap_build(&in, &r->map, err) < 0 || rk_repair_column_limit(r, err) < 0 || rk_repair_bind(r, err) < 0 ||
	    rk_repair_statements(r, err) < 0)
		goto done;
	rk_log_info("repair writes %zu column%s of %s", r->map.n, r->map.n == 1 ? "" : "s", r->dest.display);
	rk_repair_reset_columns(r);
	rc = 0;
done:
	rk_repair_strv_free(names, nnames);
	return rc;
}

/* ------------------------------------------------------------------------
 * statements of the target, under the guard
 * ---------------------------------------------------------------------- */

/* Fills in what the guard knows when a statement failed on a lock wait or
 * was canceled by a signal. */
static int rk_repair_tgt_fail(rk_repair *r, rk_error *err)
{
	if (rk_guard_is_interrupt(err))
		rk_guard_check(err);
	else if (rk_guard_is_lock_timeout(err)) {
		char what[600];

		snprintf(what, sizeof what, "target table %s", r->dest.display);
		rk_guard_explain_lock(r->tgt, what, err);
	}
	return -1;
}

static int rk_repair_cmd(rk_repair *r, const char *label, const char *sql, rk_error *err)
{
	if (rk_pg_command(r->tgt, label, sql, err) < 0)
		return rk_repair_tgt_fail(r, err);
	return 0;
}

/* Runs a statement returning one count (and, when out2 is given, a second
 * value, NULL or text). */
static int rk_repair_count(rk_repair *r, const char *label, const char *sql, int nparams, const char *const *params,
                           uint64_t *out, char **out2, rk_error *err)
{
	rk_pg_result *res;
	const char *v;

	if (rk_pg_exec(r->tgt, label, sql, nparams, params, RK_PG_ONE_ROW, &res, err) < 0)
		return rk_repair_tgt_fail(r, err);
	v = rk_pg_result_value(res, 0, 0);
	/* a count is never NULL or text: another shape is an error, not a zero */
	if (!v || !*v || strspn(v, "0123456789") != strlen(v)) {
		rk_error_set(err, RK_EXIT_RUNTIME, "%s returned '%s' where a row count was expected", label,
		             v ? v : "NULL");
		rk_pg_result_free(res);
		return -1;
	}
	*out = strtoull(v, NULL, 10);
	if (out2) {
		v = rk_pg_result_value(res, 0, 1);
		*out2 = v ? rk_xstrdup(v) : NULL;
	}
	rk_pg_result_free(res);
	return 0;
}

/* ------------------------------------------------------------------------
 * staging
 * ---------------------------------------------------------------------- */

/* Appends one field in COPY text format. */
static void rk_repair_put(rk_buf *b, const rk_field *f)
{
	rk_copytext_put(b, f->null ? NULL : f->p, f->len);
}

/* Sends what is buffered; a failure is kept apart from the reader's errors
 * (the reader would blame the source for it). */
static int rk_repair_flush(rk_repair *r, rk_error *err)
{
	if (r->out.len == 0)
		return 0;
	rk_error_clear(&r->copy_err);
	if (rk_pg_copy_in_put(r->tgt, r->out.data, r->out.len, &r->copy_err) < 0) {
		r->copy_failed = true;
		return rk_error_set(err, RK_EXIT_RUNTIME, "sending rows to the target failed");
	}
	rk_buf_reset(&r->out);
	return 0;
}

/* The interval to replace that holds t, or -1 (binary search: they are in
 * time order and disjoint). */
static long rk_repair_find(const rk_repair *r, rk_usec t)
{
	size_t lo = 0, hi = r->ntodo;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const rk_repair_interval *v = &r->iv[r->todo[mid]];

		if (t < v->start)
			hi = mid;
		else if (t >= v->end)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

/* A source row: staged with its interval's start (rows), or its key when
 * it lies outside every interval to replace (keys).  A CSV reader delivers
 * every row; this filters. */
static int rk_repair_row(void *ctx, const rk_field *fields, rk_error *err)
{
	rk_repair *r = ctx;
	const rk_field *tf = &fields[r->map.time];
	const char *why = NULL;
	rk_usec t = 0;
	long hit = -1;

	if (rk_guard_check(err) < 0)
		return -1;
	if (!tf->null) {
		if (rk_canon_instant(r->time_type, tf->p, tf->len, &t, &why) < 0) {
			rk_error_set(err, RK_EXIT_USAGE, "time value '%.*s' is not a valid %s: %s",
			             (int)(tf->len > 64 ? 64 : tf->len), tf->p, rk_type_name(r->time_type),
			             why ? why : "bad value");
			err->field = (int)r->map.time;
			return -1;
		}
		hit = r->what == RK_STAGE_ONE ? -1 : rk_repair_find(r, t);
	}
	if (r->what == RK_STAGE_ONE) {
		const rk_repair_interval *v = &r->iv[r->cur];

		if (tf->null || t < v->start || t >= v->end)
			return 0;
		for (size_t i = 0; i < r->map.n; i++) {
			if (i)
				rk_buf_putc(&r->out, '\t');
			rk_repair_put(&r->out, &fields[i]);
		}
	} else if (r->what == RK_STAGE_ROWS) {
		char s[RK_TIME_STRLEN];
		rk_repair_interval *v;

		if (hit < 0)
			return 0;
		v = &r->iv[r->todo[hit]];
		rk_buf_puts(&r->out, rk_time_format_sql(v->start, true, s));
		for (size_t i = 0; i < r->map.n; i++) {
			rk_buf_putc(&r->out, '\t');
			rk_repair_put(&r->out, &fields[i]);
		}
		v->source_rows++;
	} else {
		if (hit >= 0)
			return 0;
		for (size_t k = 0; k < r->map.nkey; k++) {
			if (k)
				rk_buf_putc(&r->out, '\t');
			rk_repair_put(&r->out, &fields[r->map.key[k]]);
		}
	}
	rk_buf_putc(&r->out, '\n');
	r->rows++;
	if (r->out.len >= RK_REPAIR_FLUSH)
		return rk_repair_flush(r, err);
	return 0;
}

/* One scan of the source into the target table the COPY statement copy
 * fills: the intervals to replace (rows), or everything else (keys). */
static int rk_repair_scan(rk_repair *r, rk_stage_what what, const char *copy, rk_error *err)
{
	rk_range *ranges = rk_xcalloc(r->ntodo + 2, sizeof *ranges);
	size_t nr = 0;
	rk_scan scan;
	int rc = -1;

	if (what == RK_STAGE_ONE) {
		ranges[nr++] = (rk_range){ r->iv[r->cur].start, r->iv[r->cur].end };
	} else if (what == RK_STAGE_ROWS) {
		for (size_t i = 0; i < r->ntodo; i++)
			ranges[nr++] = (rk_range){ r->iv[r->todo[i]].start, r->iv[r->todo[i]].end };
	} else {
		rk_usec from = RK_USEC_NINF;

		for (size_t i = 0; i < r->ntodo; i++) {
			if (r->iv[r->todo[i]].start > from)
				ranges[nr++] = (rk_range){ from, r->iv[r->todo[i]].start };
			from = r->iv[r->todo[i]].end;
		}
		ranges[nr++] = (rk_range){ from, RK_USEC_PINF };
	}
	memset(&scan, 0, sizeof scan);
	scan.time_index = r->map.time;
	scan.ranges = ranges;
	scan.nranges = nr;
	scan.include_null_time = what == RK_STAGE_KEYS;
	if (what == RK_STAGE_ONE) {
		/* a hint: a PostgreSQL source asks for the finding keys only */
		scan.key_index = r->map.key;
		scan.nkey = r->map.nkey;
		scan.key_text = (const char *const *)r->want[r->cur];
		scan.nkeys = r->nwant[r->cur];
	}
	r->what = what;
	r->rows = 0;
	r->copy_failed = false;
	rk_buf_reset(&r->out);
	if (rk_pg_copy_in_begin(r->tgt, what == RK_STAGE_KEYS ? "stage keys" : "stage rows", copy, err) < 0) {
		rk_repair_tgt_fail(r, err);
		goto done;
	}
	if (rk_reader_scan(r->src, &scan, rk_repair_row, r, err) < 0 || rk_repair_flush(r, err) < 0) {
		if (r->copy_failed)
			*err = r->copy_err;
		rk_pg_copy_in_abort(r->tgt, "the source read failed");
		goto done;
	}
	if (rk_pg_copy_in_end(r->tgt, err) < 0) {
		/* a value the target's column type refuses is bad input */
		if (err->sqlstate[0] == '2' && err->sqlstate[1] == '2')
			err->code = RK_EXIT_USAGE;
		rk_repair_tgt_fail(r, err);
		goto done;
	}
	rc = 0;
done:
	free(ranges);
	return rc;
}

/* The intervals to replace, for the statements that tell a row inside its
 * interval from one outside. */
static int rk_repair_stage_intervals(rk_repair *r, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc = -1;

	if (rk_repair_cmd(r, "create interval table", rk_sql_repair_intervals_create, err) < 0 ||
	    rk_pg_copy_in_begin(r->tgt, "stage intervals", rk_sql_repair_intervals_copy, err) < 0)
		goto done;
	for (size_t i = 0; i < r->ntodo; i++) {
		char s[RK_TIME_STRLEN], e[RK_TIME_STRLEN];
		const rk_repair_interval *v = &r->iv[r->todo[i]];

		rk_buf_printf(&b, "%s\t%s\n", rk_time_format_sql(v->start, true, s), rk_time_format_sql(v->end, true, e));
	}
	if ((b.len && rk_pg_copy_in_put(r->tgt, b.data, b.len, err) < 0) || rk_pg_copy_in_end(r->tgt, err) < 0)
		goto done;
	rc = 0;
done:
	rk_buf_free(&b);
	return rc;
}

/* Reads the rows of every interval to replace into the staging table. */
static int rk_repair_stage(rk_repair *r, rk_error *err)
{
	if (rk_repair_scan(r, RK_STAGE_ROWS, rk_sql_repair_stage_copy, err) < 0 ||
	    rk_repair_cmd(r, "index staging table", rk_sql_repair_stage_index, err) < 0 ||
	    rk_repair_cmd(r, "analyze staging table", rk_sql_repair_stage_analyze, err) < 0 ||
	    rk_repair_stage_intervals(r, err) < 0)
		return -1;
	rk_log_info("staged %llu source row%s of %zu interval%s", (unsigned long long)r->rows, r->rows == 1 ? "" : "s",
	            r->ntodo, r->ntodo == 1 ? "" : "s");
	r->staged = true;
	return 0;
}

/*
 * Refuses a key the source does not hold uniquely, when that would make a
 * delete by key remove rows it must not: the source holds one key in two
 * of the intervals (the later delete would remove what the earlier insert
 * wrote), or a delete by key would reach target rows outside an interval
 * whose key the source also holds outside it (legitimate copies, not stale
 * ones).  The source's keys outside the intervals are read only when some
 * delete by key reaches outside at all.
 */
static int rk_repair_survey(rk_repair *r, rk_error *err)
{
	uint64_t twice = 0, reach = 0, bad = 0;
	char *example = NULL;
	rk_buf b = RK_BUF_INIT;

	if (rk_repair_count(r, "keys in two intervals", r->sql_twice, 0, NULL, &twice, &example, err) < 0)
		return -1;
	if (twice) {
		rk_repair_put_key(r, &b);
		rk_error_set(err, RK_EXIT_USAGE, "%s is not unique at the source: %llu key%s %s in more than one of the "
		                                 "intervals (e.g. %s), so the delete by key of one would remove the rows another inserts",
		             rk_buf_cstr(&b), (unsigned long long)twice, twice == 1 ? "" : "s",
		             twice == 1 ? "is" : "are", example ? example : "?");
		goto refuse;
	}
	if (rk_repair_count(r, "rows a delete by key reaches", r->sql_reach, 0, NULL, &reach, NULL, err) < 0)
		return -1;
	if (!reach)
		return 0;
	if (rk_repair_count(r, "rows a delete by key reaches out of range", r->sql_unbounded, 0, NULL, &bad, &example,
	                    err) < 0)
		return -1;
	if (bad) {
		rk_error_set(err, RK_EXIT_USAGE, "the delete by key would remove %llu stale target row%s at +-infinity or "
		                                 "out of reckon's time range (e.g. %s): the window %s left cannot be checked again; "
		                                 "nothing was changed",
		             (unsigned long long)bad, bad == 1 ? "" : "s", example ? example : "?",
		             bad == 1 ? "it" : "they");
		free(example);
		return rk_error_hint(err, "correct or delete those rows' time first; reckon checks windows of finite "
		                          "times only");
	}
	free(example);
	example = NULL;
	rk_log_info("the deletes by key reach %llu target row%s outside their intervals: reading the source's other "
	            "keys",
	            (unsigned long long)reach, reach == 1 ? "" : "s");
	if (rk_repair_cmd(r, "create key table", r->sql_keys_create, err) < 0 ||
	    rk_repair_scan(r, RK_STAGE_KEYS, rk_sql_repair_keys_copy, err) < 0 ||
	    rk_repair_cmd(r, "analyze key table", rk_sql_repair_keys_analyze, err) < 0 ||
	    rk_repair_count(r, "rows the source also holds elsewhere", r->sql_refuse, 0, NULL, &bad, &example, err) < 0)
		return -1;
	if (!bad) {
		free(example);
		return 0;
	}
	rk_repair_put_key(r, &b);
	rk_error_set(err, RK_EXIT_USAGE, "%s is not unique at the source: the delete by key would remove %llu target "
	                                 "row%s outside %s interval%s whose key%s the source also holds outside %s (e.g. %s)",
	             rk_buf_cstr(&b), (unsigned long long)bad, bad == 1 ? "" : "s",
	             r->ntodo == 1 ? "the" : "their", r->ntodo == 1 ? "" : "s", bad == 1 ? "" : "s",
	             r->ntodo == 1 ? "it" : "them", example ? example : "?");
refuse:
	free(example);
	rk_buf_free(&b);
	return rk_error_hint(err, "repair replaces rows by key: give --key the columns that identify one row (a "
	                          "primary key), and check with the same key");
}

/* ------------------------------------------------------------------------
 * one interval
 * ---------------------------------------------------------------------- */

/* The grid the windows outside interval v are counted on, as the width in
 * microseconds the by-key statements group by (their $2): the interval's
 * own width, or with --timezone, for an interval of whole calendar units
 * of the zone (*unit), one second, each group then placed in its unit. */
static rk_usec rk_repair_grid(const rk_repair *r, const rk_repair_interval *v, bool *calendar, rk_calunit *unit)
{
	const rk_tz *tz = r->spec->check.tz;

	*calendar = tz && rk_tz_unit_of(tz, v->start, v->end, unit);
	return *calendar ? RK_USEC_PER_SEC : v->end - v->start;
}

/* Notes the windows a delete by key reached (rows: window index, count;
 * NULL index: rows without a time). */
static int rk_repair_touch(rk_repair *r, size_t i, const rk_pg_result *res, rk_repair_state state,
                           rk_repair_result *out, uint64_t *total, rk_error *err)
{
	const rk_repair_interval *v = &r->iv[i];
	rk_calunit unit;
	bool calendar;
	rk_usec w = rk_repair_grid(r, v, &calendar, &unit);

	*total = 0;
	for (int row = 0; row < rk_pg_result_rows(res); row++) {
		const char *idx = rk_pg_result_value(res, row, 0), *cnt = rk_pg_result_value(res, row, 1);
		uint64_t c = cnt ? strtoull(cnt, NULL, 10) : 0;
		long long k;
		rk_usec s, e;
		size_t j;

		*total += c;
		if (!idx) {
			out->null_time_deleted += c;
			continue;
		}
		k = strtoll(idx, NULL, 10);
		if (k == 0)
			continue; /* the interval itself: not reached by the delete by key after the one by time */
		/* the window [s, s + w) must be instants reckon can write */
		if (__builtin_mul_overflow((rk_usec)k, w, &s) || __builtin_add_overflow(s, v->start, &s) ||
		    s == RK_USEC_NINF || s > RK_USEC_PINF - w)
			return rk_error_set(err, RK_EXIT_RUNTIME, "a row the delete by key reached lies out of reckon's time "
			                                          "range");
		e = s + w;
		if (calendar) {
			/* the second's calendar unit, counted from the interval */
			int64_t u = rk_tz_units_between(r->spec->check.tz, unit, v->start, s);

			if (u == 0)
				continue;
			s = rk_tz_step(r->spec->check.tz, unit, v->start, u);
			e = rk_tz_step(r->spec->check.tz, unit, v->start, u + 1);
		}
		for (j = 0; j < out->ntouched; j++)
			if (out->touched[j].start == s && out->touched[j].end == e)
				break;
		if (j == out->ntouched) {
			out->touched = rk_xrealloc(out->touched, (out->ntouched + 1) * sizeof *out->touched);
			memset(&out->touched[j], 0, sizeof out->touched[j]);
			out->touched[j].start = s;
			out->touched[j].end = e;
			out->ntouched++;
		}
		out->touched[j].interval = i;
		out->touched[j].deleted += c;
		out->touched[j].state = state;
	}
	return 0;
}

/* Takes the target's write lock (rk_dest_lock), which loads take too. */
static int rk_repair_lock(rk_repair *r, rk_error *err)
{
	if (rk_dest_lock(&r->dest, "repair", err) < 0)
		return rk_repair_tgt_fail(r, err);
	return 0;
}

/* Adds the windows one interval touched to the run's. */
static void rk_repair_merge(rk_repair_result *out, rk_repair_result *mine)
{
	for (size_t j = 0; j < mine->ntouched; j++) {
		rk_repair_touched *t = &mine->touched[j];
		size_t k;

		for (k = 0; k < out->ntouched; k++)
			if (out->touched[k].start == t->start && out->touched[k].end == t->end)
				break;
		if (k == out->ntouched) {
			out->touched = rk_xrealloc(out->touched, (out->ntouched + 1) * sizeof *out->touched);
			out->touched[k] = *t;
			out->touched[k].deleted = 0;
			out->ntouched++;
		}
		out->touched[k].interval = t->interval;
		out->touched[k].state = t->state;
		out->touched[k].deleted += t->deleted;
	}
	out->null_time_deleted += mine->null_time_deleted;
	rk_repair_result_free(mine);
}

/* Runs one of the by-key statements (they return window, count rows),
 * noting the windows it reached in *out (the interval's own). */
static int rk_repair_by_key(rk_repair *r, size_t i, const char *label, const char *sql, rk_repair_state state,
                            rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char s[RK_TIME_STRLEN], w[32];
	const char *params[2] = { rk_time_format_sql(v->start, true, s), w };
	rk_pg_result *res = NULL;
	int rc;

	{
		rk_calunit unit;
		bool calendar;

		snprintf(w, sizeof w, "%lld", (long long)rk_repair_grid(r, v, &calendar, &unit));
	}
	if (rk_pg_exec(r->tgt, label, sql, 2, params, RK_PG_ANY_ROWS, &res, err) < 0)
		return rk_repair_tgt_fail(r, err);
	rc = rk_repair_touch(r, i, res, state, out, &v->deleted_by_key, err);
	rk_pg_result_free(res);
	return rc;
}

static void rk_repair_rollback(rk_repair *r)
{
	rk_error scratch;

	rk_guard_idle(r->tgt);
	rk_error_clear(&scratch);
	if (rk_pg_command(r->tgt, "roll back", rk_sql_repair_rollback, &scratch) < 0)
		rk_log_debug("rollback after a failed interval: %s", scratch.msg);
}

/* Opens an interval's transaction with the statement begin, the target
 * session marked busy for the guard. */
static int rk_repair_begin(rk_repair *r, const char *label, const char *begin, rk_error *err)
{
	if (rk_guard_busy(r->tgt, err) < 0)
		return -1;
	if (rk_repair_cmd(r, label, begin, err) < 0) {
		rk_guard_idle(r->tgt);
		return -1;
	}
	return 0;
}

/* Commits interval v's writes: COMMITTED, and the windows it touched
 * (mine) added to out's; else rolled back (FAILED), or UNKNOWN when the
 * connection was lost during COMMIT. */
static int rk_repair_commit(rk_repair *r, rk_repair_interval *v, rk_repair_result *mine, rk_repair_result *out,
                            rk_error *err)
{
	if (rk_pg_command(r->tgt, "commit repair", rk_sql_repair_commit, err) < 0) {
		rk_guard_idle(r->tgt);
		rk_repair_result_free(mine);
		/* a lost connection leaves the outcome of COMMIT unknown; any
		 * other failure (a deferred constraint, a cancel) rolled it back */
		if (rk_pg_error_is_connection(err))
			v->state = RK_REPAIR_UNKNOWN;
		return rk_repair_tgt_fail(r, err);
	}
	rk_guard_idle(r->tgt);
	v->state = RK_REPAIR_COMMITTED;
	rk_repair_merge(out, mine);
	return 0;
}

/* One interval replaced in one transaction; v->state says how it ended. */
static int rk_repair_execute(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN];
	const char *bounds[2] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb) };
	char li[32];
	const char *ins[2] = { bounds[0], r->interval_col >= 0 ? rk_repair_icol_param(r, i, li) : NULL };
	rk_repair_result mine;

	memset(&mine, 0, sizeof mine);
	v->state = RK_REPAIR_FAILED;
	if (rk_repair_begin(r, "begin repair", rk_sql_repair_begin, err) < 0)
		return -1;
	if (rk_repair_lock(r, err) < 0 ||
	    rk_repair_count(r, "delete by time", r->sql_delete_time, 2, bounds, &v->deleted_by_time, NULL, err) < 0 ||
	    rk_repair_by_key(r, i, "delete by key", r->sql_delete_key, RK_REPAIR_COMMITTED, &mine, err) < 0 ||
	    rk_repair_count(r, "insert rows", r->sql_insert, r->interval_col >= 0 ? 2 : 1, ins, &v->inserted, NULL,
	                    err) < 0 ||
	    rk_guard_check(err) < 0) {
		rk_repair_result_free(&mine);
		rk_repair_rollback(r);
		return -1;
	}
	return rk_repair_commit(r, v, &mine, out, err);
}

/* The rows of interval i the plan deletes and inserts again: their
 * target-only columns are reset (none to reset: nothing counted). */
static int rk_repair_plan_reset(rk_repair *r, size_t i, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char s[RK_TIME_STRLEN];
	const char *params[1] = { rk_time_format_sql(v->start, true, s) };
	char *keys = NULL;

	v->reset = 0;
	v->reset_keys[0] = '\0';
	if (!r->reset_columns)
		return 0;
	if (rk_repair_count(r, "count rows reset", r->sql_plan_reset, 1, params, &v->reset, &keys, err) < 0)
		return -1;
	if (keys)
		snprintf(v->reset_keys, sizeof v->reset_keys, "%s", keys);
	free(keys);
	return 0;
}

/* One interval counted as the execution would change it, in a read-only
 * transaction that marks what it counts as deleted. */
static int rk_repair_plan(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN];
	const char *bounds[2] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb) };
	rk_repair_result mine;

	memset(&mine, 0, sizeof mine);
	v->state = RK_REPAIR_FAILED;
	if (rk_repair_begin(r, "begin the plan", rk_sql_repair_plan_begin, err) < 0)
		return -1;
	v->inserted = v->source_rows;
	if ((r->sql_probe_create && (rk_repair_cmd(r, "create probe table", r->sql_probe_create, err) < 0 ||
	                             (r->sql_probe_alter &&
	                              rk_repair_cmd(r, "shape probe table", r->sql_probe_alter, err) < 0))) ||
	    rk_repair_cmd(r, "make the plan read-only", rk_sql_repair_plan_read_only, err) < 0 ||
	    rk_repair_count(r, "count rows by time", r->sql_plan_time, 2, bounds, &v->deleted_by_time, NULL, err) < 0 ||
	    rk_repair_by_key(r, i, "count rows by key", r->sql_plan_key, RK_REPAIR_PLANNED, &mine, err) < 0 ||
	    rk_repair_plan_reset(r, i, err) < 0 || rk_repair_refuse_unfilled(r, i, err) < 0) {
		rk_repair_result_free(&mine);
		rk_repair_rollback(r);
		return -1;
	}
	if (rk_repair_cmd(r, "end the plan", rk_sql_repair_commit, err) < 0) {
		rk_guard_idle(r->tgt);
		rk_repair_result_free(&mine);
		return -1;
	}
	rk_guard_idle(r->tgt);
	rk_repair_merge(out, &mine);
	v->state = RK_REPAIR_PLANNED;
	return 0;
}

/* ------------------------------------------------------------------------
 * row-level repair (the default): one interval, one transaction, only the
 * rows of its finding keys
 * ---------------------------------------------------------------------- */

/* The transaction's own settings (nothing is kept in the session, so a
 * transaction pooler may hand each transaction to another server session). */
static int rk_repair_row_settings(rk_repair *r, rk_error *err)
{
	char ms[32];
	const char *params[1] = { rk_guard_lock_timeout_text(ms) };

	if (rk_pg_exec(r->tgt, "transaction settings", rk_sql_repair_row_settings, 1, params, RK_PG_ONE_ROW, NULL,
	               err) < 0)
		return rk_repair_tgt_fail(r, err);
	return 0;
}

/* The interval's finding keys and source rows, staged in the transaction's
 * own temporary tables, and the tables the plan is worked out in. */
static int rk_repair_row_stage(rk_repair *r, size_t i, bool plan, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc = -1;

	if (rk_repair_cmd(r, "create staging table", r->sql_row_stage, err) < 0 ||
	    rk_repair_cmd(r, "create key table", r->sql_row_want, err) < 0 ||
	    rk_repair_cmd(r, "create pair table", rk_sql_repair_row_pair_create, err) < 0 ||
	    rk_repair_cmd(r, "create plan table", rk_sql_repair_row_diff_create, err) < 0 ||
	    rk_repair_cmd(r, "create written table", rk_sql_repair_row_written_create, err) < 0)
		goto done;
	if (rk_pg_copy_in_begin(r->tgt, "stage finding keys", rk_sql_repair_row_want_copy, err) < 0) {
		rk_repair_tgt_fail(r, err);
		goto done;
	}
	for (size_t k = 0; k < r->nwant[i]; k++) {
		for (size_t c = 0; c < r->nkey; c++) {
			const char *v = r->want[i][k * r->nkey + c];

			if (c)
				rk_buf_putc(&b, '\t');
			rk_copytext_put(&b, v, v ? strlen(v) : 0);
		}
		rk_buf_putc(&b, '\n');
	}
	if ((b.len && rk_pg_copy_in_put(r->tgt, b.data, b.len, err) < 0) || rk_pg_copy_in_end(r->tgt, err) < 0) {
		if (err->sqlstate[0] == '2' && err->sqlstate[1] == '2')
			err->code = RK_EXIT_USAGE;
		rk_repair_tgt_fail(r, err);
		goto done;
	}
	r->cur = i;
	if (rk_repair_scan(r, RK_STAGE_ONE, rk_sql_repair_row_stage_copy, err) < 0)
		goto done;
	if (plan && r->sql_probe_create &&
	    (rk_repair_cmd(r, "create probe table", r->sql_probe_create, err) < 0 ||
	     (r->sql_probe_alter && rk_repair_cmd(r, "shape probe table", r->sql_probe_alter, err) < 0)))
		goto done;
	if (plan && rk_repair_cmd(r, "make the plan read-only", rk_sql_repair_plan_read_only, err) < 0)
		goto done;
	rc = 0;
done:
	rk_buf_free(&b);
	return rc;
}

/* Works out what the interval's repair writes (reckon_repair_diff), counts
 * it into the interval, and notes the windows the moved rows leave. */
static int rk_repair_row_diff(rk_repair *r, size_t i, rk_repair_state state, rk_repair_result *mine, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN], w[32];
	const char *bounds[2] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb) };
	const char *grid[2] = { bounds[0], w };
	rk_pg_result *res = NULL;
	uint64_t n[4];
	uint64_t total;
	int rc;

	{
		rk_calunit unit;
		bool calendar;

		snprintf(w, sizeof w, "%lld", (long long)rk_repair_grid(r, v, &calendar, &unit));
	}
	if (rk_pg_exec(r->tgt, "select the pair's rows", r->sql_row_pair, 0, NULL, RK_PG_COMMAND, NULL, err) < 0 ||
	    rk_pg_exec(r->tgt, "compare the interval's rows", r->sql_row_inside, 2, bounds, RK_PG_COMMAND, NULL,
	               err) < 0 ||
	    (r->can_update && rk_pg_exec(r->tgt, "find moved rows", r->sql_row_moved, 2, bounds, RK_PG_COMMAND, NULL,
	                                 err) < 0) ||
	    rk_pg_exec(r->tgt, "find missing rows", r->sql_row_add, 0, NULL, RK_PG_COMMAND, NULL, err) < 0 ||
	    rk_pg_exec(r->tgt, "count the plan", rk_sql_repair_row_counts, 0, NULL, RK_PG_ONE_ROW, &res, err) < 0)
		return rk_repair_tgt_fail(r, err);
	for (int c = 0; c < 4; c++) {
		const char *x = rk_pg_result_value(res, 0, c);

		n[c] = x ? strtoull(x, NULL, 10) : 0;
	}
	rk_pg_result_free(res);
	v->inserted = n[0];
	v->updated = n[1] + n[3];
	v->deleted_by_time = n[2];
	v->moved = n[3];
	if (!n[3])
		return 0;
	if (rk_pg_exec(r->tgt, "windows of moved rows", rk_sql_repair_row_moved_windows, 2, grid, RK_PG_ANY_ROWS, &res,
	               err) < 0)
		return rk_repair_tgt_fail(r, err);
	rc = rk_repair_touch(r, i, res, state, mine, &total, err);
	rk_pg_result_free(res);
	return rc;
}

/* Whether target column c is one --target-where mentions (a word of the
 * condition equal to the column's name) that repair does not write. */
static bool rk_repair_mentioned(const rk_repair *r, size_t c)
{
	const char *w = r->spec->check.target.where;
	bool written = (long)c == r->interval_col;
	size_t len = strlen(r->dest.cols[c]);

	if (!w)
		return false;
	for (size_t i = 0; i < r->map.n && !written; i++)
		written = r->map.c[i].tcol == c;
	if (written || r->dest.generated[c] || !len)
		return false;
	for (const char *p = w; (p = strstr(p, r->dest.cols[c])) != NULL; p += len) {
		bool before = p > w && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[len]) || p[len] == '_';

		if (!before && !after)
			return true;
	}
	return false;
}

/* Names the target columns --target-where mentions that repair does not
 * write, ", "-joined into b; returns how many. */
static size_t rk_repair_unfilled(const rk_repair *r, rk_buf *b)
{
	size_t n = 0;

	for (size_t c = 0; c < r->dest.ncols; c++)
		if (rk_repair_mentioned(r, c))
			rk_buf_printf(b, "%s%s", n++ ? ", " : "", r->dest.cols[c]);
	return n;
}

/* Every row the repair inserted or updated is a row of the pair: else the
 * interval is rolled back (a column the filter needs that no source column
 * fills takes its default, perhaps another owner's value). */
static int rk_repair_row_verify(rk_repair *r, size_t i, rk_error *err)
{
	uint64_t bad = 0;
	rk_buf b = RK_BUF_INIT, cols = RK_BUF_INIT;
	size_t ncols;

	if (!r->spec->check.target.where)
		return 0;
	if (rk_repair_count(r, "check the written rows", r->sql_row_verify, 0, NULL, &bad, NULL, err) < 0)
		return -1;
	if (!bad)
		return 0;
	rk_repair_put_interval(&b, r->iv[i].start, r->iv[i].end);
	ncols = rk_repair_unfilled(r, &cols);
	rk_error_set(err, RK_EXIT_USAGE, "%llu row%s repair wrote into %s %s not selected by --target-where %s: "
	                                 "the interval was rolled back",
	             (unsigned long long)bad, bad == 1 ? "" : "s", rk_buf_cstr(&b),
	             bad == 1 ? "is" : "are", r->spec->check.target.where);
	if (ncols)
		rk_error_hint(err, "no source column fills %s %s, so written rows take %s default; map %s with "
		                   "--source-expr %s=SQL",
		              ncols == 1 ? "the target column" : "the target columns",
		              rk_buf_cstr(&cols), ncols == 1 ? "its" : "their", ncols == 1 ? "it" : "them",
		              ncols == 1 ? rk_buf_cstr(&cols) : "COL");
	else
		rk_error_hint(err, "the source's rows of the pair must satisfy --target-where once written: map the "
		                   "columns it tests with --source-expr COL=SQL");
	rk_buf_free(&b);
	rk_buf_free(&cols);
	return -1;
}

/* The dry run of interval i, which would insert rows, with a
 * --target-where that tests a target column no source column fills: the
 * rows are inserted into the probe instead (each takes the defaults the
 * target would give it) and refused, naming the column, when the filter
 * does not select one.  --execute checks the rows it wrote inside the
 * transaction instead. */
static int rk_repair_refuse_unfilled(rk_repair *r, size_t i, rk_error *err)
{
	rk_buf b = RK_BUF_INIT, cols = RK_BUF_INIT;
	char s[RK_TIME_STRLEN];
	const char *params[1] = { rk_time_format_sql(r->iv[i].start, true, s) };
	uint64_t bad = 0;
	size_t ncols;
	rk_error scratch;

	if (!r->sql_probe_check || !r->iv[i].inserted)
		return 0;
	rk_error_clear(&scratch);
	if (rk_repair_cmd(r, "probe savepoint", rk_sql_repair_row_probe_savepoint, err) < 0)
		return -1;
	if (rk_pg_exec(r->tgt, "probe the inserted rows", r->sql_probe_insert, r->spec->replace_interval ? 1 : 0, params,
	               RK_PG_COMMAND, NULL, &scratch) < 0 ||
	    rk_repair_count(r, "check the probed rows", r->sql_probe_check, 0, NULL, &bad, NULL, &scratch) < 0) {
		/* a filter the probe cannot evaluate: --execute checks the
		 * rows it writes */
		rk_log_info("the dry run could not try --target-where on the rows it would insert: %s", scratch.msg);
		bad = 0;
	}
	if (rk_repair_cmd(r, "end the probe", rk_sql_repair_row_probe_rollback, err) < 0)
		return -1;
	if (!bad)
		return 0;
	ncols = rk_repair_unfilled(r, &cols);
	rk_repair_put_interval(&b, r->iv[i].start, r->iv[i].end);
	rk_error_set(err, RK_EXIT_USAGE, "--target-where %s tests %s %s, which no source column fills: %llu of the %llu "
	                                 "row%s repair would insert into %s would take %s default and not be selected by it",
	             r->spec->check.target.where, ncols == 1 ? "the target column" : "the target columns",
	             rk_buf_cstr(&cols), (unsigned long long)bad, (unsigned long long)r->iv[i].inserted,
	             r->iv[i].inserted == 1 ? "" : "s", rk_buf_cstr(&b), ncols == 1 ? "its" : "their");
	rk_error_hint(err, "map %s with --source-expr %s=SQL (the value the load writes)", ncols == 1 ? "it" : "them",
	              ncols == 1 ? rk_buf_cstr(&cols) : "COL");
	rk_buf_free(&b);
	rk_buf_free(&cols);
	return -1;
}

/* One interval repaired row by row in one transaction. */
static int rk_repair_row_execute(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN], li[32];
	const char *params[3] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb),
		                  r->interval_col >= 0 ? rk_repair_icol_param(r, i, li) : NULL };
	int np = r->interval_col >= 0 ? 3 : 2;
	rk_repair_result mine;
	uint64_t deleted = 0, updated = 0, inserted = 0;

	memset(&mine, 0, sizeof mine);
	v->state = RK_REPAIR_FAILED;
	if (rk_repair_begin(r, "begin repair", rk_sql_repair_begin, err) < 0)
		return -1;
	if (rk_repair_row_settings(r, err) < 0 || rk_repair_lock(r, err) < 0 || rk_repair_row_stage(r, i, false, err) < 0 ||
	    rk_repair_row_diff(r, i, RK_REPAIR_COMMITTED, &mine, err) < 0 || rk_repair_row_refuse(r, i, err) < 0 ||
	    rk_repair_count(r, "delete rows", r->sql_row_delete, 2, params, &deleted, NULL, err) < 0 ||
	    (r->sql_row_update &&
	     rk_repair_count(r, "update rows", r->sql_row_update, np, params, &updated, NULL, err) < 0) ||
	    rk_repair_count(r, "insert rows", r->sql_row_insert, np, params, &inserted, NULL, err) < 0 ||
	    rk_repair_row_verify(r, i, err) < 0 || rk_guard_check(err) < 0) {
		rk_repair_result_free(&mine);
		rk_repair_rollback(r);
		return -1;
	}
	v->deleted_by_time = deleted;
	v->updated = updated;
	v->inserted = inserted;
	return rk_repair_commit(r, v, &mine, out, err);
}

/* One interval's row-level plan, in a transaction rolled back at the end. */
static int rk_repair_row_plan(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	rk_repair_result mine;

	memset(&mine, 0, sizeof mine);
	v->state = RK_REPAIR_FAILED;
	if (rk_repair_begin(r, "begin the plan", rk_sql_repair_plan_begin, err) < 0)
		return -1;
	if (rk_repair_row_settings(r, err) < 0 || rk_repair_row_stage(r, i, true, err) < 0 ||
	    rk_repair_row_diff(r, i, RK_REPAIR_PLANNED, &mine, err) < 0 || rk_repair_row_refuse(r, i, err) < 0 ||
	    rk_repair_refuse_unfilled(r, i, err) < 0) {
		rk_repair_result_free(&mine);
		rk_repair_rollback(r);
		return -1;
	}
	rk_repair_rollback(r);
	rk_repair_merge(out, &mine);
	v->state = RK_REPAIR_PLANNED;
	return 0;
}

/* Checks [start, end) as `reckon check` would: *match, and the counts;
 * with keep, the key-level findings too, and the result is kept there. */
static int rk_repair_check_window2(rk_repair *r, rk_usec start, rk_usec end, bool *match, uint64_t *srows,
                                   uint64_t *trows, rk_check_result **keep, rk_error *err)
{
	rk_check_spec cs = r->spec->check;
	rk_check_result *res = NULL;

	cs.key = (const char *const *)r->key;
	cs.nkey = r->nkey;
	cs.from = start;
	cs.to = end;
	cs.width = end - start;
	cs.settle = 0;
	cs.now = end;
	cs.findings = keep != NULL;
	cs.diagnose = false;
	cs.watermark_query = NULL;
	if (rk_check_run(&cs, &res, err) < 0) {
		if (rk_guard_is_lock_timeout(err)) {
			char what[600];

			snprintf(what, sizeof what, "the pair's tables (checking %s)", r->dest.display);
			rk_guard_explain_lock(NULL, what, err);
		}
		return -1;
	}
	*srows = res->side[0].rows[0];
	*trows = res->side[1].rows[0];
	/* the window's own verdict: NULL-time rows elsewhere in the table make
	 * the run's verdict differ but are no business of this interval */
	*match = res->status[0] == RK_WIN_MATCH;
	if (keep)
		*keep = res;
	else
		rk_check_result_free(res);
	return 0;
}

static int rk_repair_check_window(rk_repair *r, rk_usec start, rk_usec end, bool *match, uint64_t *srows,
                                  uint64_t *trows, rk_error *err)
{
	return rk_repair_check_window2(r, start, end, match, srows, trows, NULL, err);
}

/* Takes interval i's finding keys from its check: the keys a row-level
 * repair may write.  A key the source holds twice in the interval is
 * refused (which copy would the target hold?); a key with a NULL part is
 * left out (it matches no row by "="). */
static int rk_repair_want(rk_repair *r, size_t i, const rk_check_result *res, rk_error *err)
{
	size_t n = 0, skipped = 0;

	r->want[i] = rk_xcalloc(res->nfindings * r->nkey + 1, sizeof *r->want[i]);
	for (size_t f = 0; f < res->nfindings; f++) {
		const rk_finding *fd = &res->findings[f];
		bool null = false;

		if (fd->kind == RK_FIND_SOURCE_DUPLICATE) {
			rk_buf b = RK_BUF_INIT, k = RK_BUF_INIT;

			rk_repair_put_key(r, &b);
			rk_finding_key_text(&k, res, fd);
			r->nwant[i] = n;
			rk_buf_printf(&b, " is not unique at the source within an interval: the source holds %s %u times "
			                  "in ",
			              rk_buf_cstr(&k), (unsigned)fd->source_copies);
			rk_repair_put_interval(&b, r->iv[i].start, r->iv[i].end);
			rk_error_set(err, RK_EXIT_USAGE, "%s, so repair cannot tell which copy the target should hold",
			             rk_buf_cstr(&b));
			rk_buf_free(&b);
			rk_buf_free(&k);
			return rk_error_hint(err, "give --key the columns that identify one row (a primary key), and "
			                          "check with the same key");
		}
		for (size_t c = 0; c < r->nkey; c++)
			null = null || !fd->key[c];
		if (null) {
			skipped++;
			continue;
		}
		for (size_t c = 0; c < r->nkey; c++)
			r->want[i][n * r->nkey + c] = rk_xstrdup(fd->key[c]);
		n++;
	}
	r->nwant[i] = n;
	if (skipped) {
		rk_buf b = RK_BUF_INIT;

		rk_repair_put_interval(&b, r->iv[i].start, r->iv[i].end);
		rk_log_warn("%zu finding key%s of %s %s a NULL part: repair leaves %s alone (a NULL key matches no "
		            "row); --replace-interval replaces the whole interval",
		            skipped, skipped == 1 ? "" : "s",
		            rk_buf_cstr(&b), skipped == 1 ? "has" : "have", skipped == 1 ? "it" : "them");
		rk_buf_free(&b);
	}
	return 0;
}

/* --interval-column without --load-interval: the value the target's rows
 * of interval i record, or a refusal when they record none or several. */
static int rk_repair_icol_probe(rk_repair *r, size_t i, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	char sa[RK_TIME_STRLEN], sb[RK_TIME_STRLEN];
	const char *bounds[2] = { rk_time_format_sql(v->start, true, sa), rk_time_format_sql(v->end, true, sb) };
	uint64_t distinct = 0;
	char *value = NULL;
	rk_buf b = RK_BUF_INIT;

	if (rk_repair_count(r, "read the interval column", r->sql_icol_probe, 2, bounds, &distinct, &value, err) < 0)
		return -1;
	if (distinct == 1) {
		r->icol_value[i] = value;
		return 0;
	}
	free(value);
	rk_repair_put_interval(&b, v->start, v->end);
	rk_error_set(err, RK_EXIT_USAGE, "--interval-column %s: cannot tell the load's interval for %s: the target's "
	                                 "rows of it record %s; nothing was changed",
	             r->spec->interval_column, rk_buf_cstr(&b),
	             distinct ? "several different values" : "none");
	rk_buf_free(&b);
	return rk_error_hint(err, "give --load-interval DUR, the width of the load's intervals: a row then records the "
	                          "start of the DUR-wide interval holding its time");
}

/* Checks the replaced interval again, then the windows its delete by key
 * reached. */
static int rk_repair_verify(rk_repair *r, size_t i, rk_repair_result *out, rk_error *err)
{
	rk_repair_interval *v = &r->iv[i];
	bool match;

	if (rk_repair_check_window(r, v->start, v->end, &match, &v->after_source_rows, &v->after_target_rows, err) < 0)
		return -1;
	v->state = match ? RK_REPAIR_MATCH : RK_REPAIR_DIFFER;
	for (size_t j = 0; j < out->ntouched; j++) {
		rk_repair_touched *t = &out->touched[j];

		if (t->interval != i || t->state != RK_REPAIR_COMMITTED)
			continue;
		if (rk_repair_check_window(r, t->start, t->end, &match, &t->after_source_rows, &t->after_target_rows,
		                           err) < 0)
			return -1;
		t->state = match ? RK_REPAIR_MATCH : RK_REPAIR_DIFFER;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * the run
 * ---------------------------------------------------------------------- */

/* Rewrites err as "repaired D of N intervals: [..), [..); interval [..) was
 * not changed: <cause>", keeping the cause's code, SQLSTATE and hint.
 * failed == n: the run stopped before any interval. */
static void rk_repair_explain(const rk_repair_spec *spec, const rk_repair_interval *iv, size_t n, size_t failed,
                              rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	size_t done = 0, others = 0, listed = 0, later = 0;
	char hint[sizeof err->hint];
	char cause[sizeof err->msg];
	int code = err->code ? err->code : RK_EXIT_RUNTIME;

	memcpy(hint, err->hint, sizeof hint);
	memcpy(cause, err->msg, sizeof cause);
	for (size_t i = 0; i < n; i++) {
		if (rk_repair_state_done(iv[i].state)) {
			done++;
			if (i != failed)
				others++;
		}
		if (i > failed && iv[i].state == RK_REPAIR_PENDING)
			later++;
	}
	if (failed == n) {
		rk_buf_puts(&b, "nothing was changed");
	} else if (!spec->execute) {
		rk_buf_puts(&b, "dry run of interval ");
		rk_repair_put_interval(&b, iv[failed].start, iv[failed].end);
		rk_buf_puts(&b, " failed; nothing was changed");
	} else {
		rk_buf_printf(&b, "repaired %zu of %zu interval%s", done, n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n && listed < others; i++) {
			if (!rk_repair_state_done(iv[i].state) || i == failed)
				continue;
			if (listed == RK_REPAIR_LIST_MAX) {
				rk_buf_printf(&b, ", and %zu more", others - listed);
				break;
			}
			rk_buf_puts(&b, listed ? ", " : ": ");
			rk_repair_put_interval(&b, iv[i].start, iv[i].end);
			listed++;
		}
		rk_buf_puts(&b, "; interval ");
		rk_repair_put_interval(&b, iv[failed].start, iv[failed].end);
		switch (iv[failed].state) {
		case RK_REPAIR_UNKNOWN:
			rk_buf_puts(&b, " may or may not have been replaced (the connection was lost during its commit)");
			break;
		case RK_REPAIR_COMMITTED:
			rk_buf_puts(&b, " was replaced but could not be checked again");
			break;
		default:
			rk_buf_puts(&b, " was not changed");
			break;
		}
		if (later)
			rk_buf_printf(&b, "; %zu later interval%s not started", later, later == 1 ? " was" : "s were");
	}
	rk_buf_printf(&b, ": %s", cause);
	rk_error_set(err, code, "%s", rk_buf_cstr(&b));
	if (spec->execute && failed < n)
		rk_error_hint(err, "%s%srepair is idempotent: run the same command again to finish", hint,
		              hint[0] ? "; " : "");
	else if (hint[0])
		rk_error_hint(err, "%s", hint);
	rk_buf_free(&b);
}

/* Checks every interval first; those that match are left alone.  Row by
 * row, takes the others' finding keys; with --replace-interval, stages the
 * others and refuses what must be refused. */
static int rk_repair_prepare(rk_repair *r, rk_error *err)
{
	bool rows = !r->spec->replace_interval;

	/* the staging table is made first: referring to the target, it waits
	 * (under the guard) for whoever holds the table exclusively, before a
	 * check's reader would wait where no one can name the blocker */
	if (!rows) {
		if (rk_guard_busy(r->tgt, err) < 0)
			return -1;
		if (rk_repair_cmd(r, "create staging table", r->sql_stage_create, err) < 0 ||
		    (!r->spec->execute && rk_repair_cmd(r, "create plan table", rk_sql_repair_gone_create, err) < 0)) {
			rk_guard_idle(r->tgt);
			return -1;
		}
		rk_guard_idle(r->tgt);
	} else {
		/* row by row it lives in a transaction: made and rolled back */
		if (rk_repair_begin(r, "begin the first transaction", rk_sql_repair_plan_begin, err) < 0)
			return -1;
		if (rk_repair_row_settings(r, err) < 0 ||
		    rk_repair_cmd(r, "create staging table", r->sql_row_stage, err) < 0) {
			rk_repair_rollback(r);
			return -1;
		}
		rk_repair_rollback(r);
		r->want = rk_xcalloc(r->n + 1, sizeof *r->want);
		r->nwant = rk_xcalloc(r->n + 1, sizeof *r->nwant);
	}
	r->todo = rk_xcalloc(r->n + 1, sizeof *r->todo);
	for (size_t i = 0; i < r->n; i++) {
		rk_repair_interval *v = &r->iv[i];
		rk_check_result *res = NULL;
		bool match;

		if (rk_guard_check(err) < 0 ||
		    rk_repair_check_window2(r, v->start, v->end, &match, &v->after_source_rows, &v->after_target_rows,
		                            rows ? &res : NULL, err) < 0)
			return -1;
		if (match) {
			rk_check_result_free(res);
			v->state = RK_REPAIR_ALREADY;
			continue;
		}
		if (rows) {
			int rc;

			v->source_rows = v->after_source_rows;
			rc = rk_repair_want(r, i, res, err);
			rk_check_result_free(res);
			if (rc < 0)
				return -1;
		}
		v->after_source_rows = v->after_target_rows = 0;
		r->todo[r->ntodo++] = i;
	}
	if (!r->ntodo)
		return 0;
	if (r->interval_col >= 0 && !r->spec->load_interval) {
		/* the values are read before any change removes them */
		r->icol_value = rk_xcalloc(r->n + 1, sizeof *r->icol_value);
		for (size_t k = 0; k < r->ntodo; k++)
			if (rk_repair_icol_probe(r, r->todo[k], err) < 0)
				return -1;
	} else if (r->interval_col >= 0 && r->spec->check.tz) {
		r->icol_value = rk_xcalloc(r->n + 1, sizeof *r->icol_value);
		for (size_t k = 0; k < r->ntodo; k++)
			if (rk_repair_icol_bounds(r, r->todo[k], err) < 0)
				return -1;
	}
	if (rows)
		return 0;
	if (rk_guard_busy(r->tgt, err) < 0)
		return -1;
	if (rk_repair_stage(r, err) < 0 || rk_repair_survey(r, err) < 0) {
		rk_guard_idle(r->tgt);
		return -1;
	}
	rk_guard_idle(r->tgt);
	/* the source's snapshot is no longer needed: do not hold it while the
	 * target is written */
	rk_reader_free(r->src);
	r->src = NULL;
	return 0;
}

int rk_repair_run(const rk_repair_spec *spec, rk_repair_interval *iv, size_t n, rk_repair_result *res,
                  rk_error *err)
{
	rk_repair r;
	int rc = 0, opened;

	memset(res, 0, sizeof *res);
	memset(&r, 0, sizeof r);
	r.spec = spec;
	r.iv = iv;
	r.n = n;
	for (size_t i = 0; i < n; i++) {
		iv[i].state = RK_REPAIR_PENDING;
		iv[i].source_rows = iv[i].deleted_by_time = iv[i].deleted_by_key = iv[i].inserted = 0;
		iv[i].updated = iv[i].moved = iv[i].reset = 0;
		iv[i].reset_keys[0] = '\0';
		iv[i].after_source_rows = iv[i].after_target_rows = 0;
	}
	if (rk_repair_refuse_open(spec, iv, n, err) < 0)
		return -1;
	if (rk_target_is_delta(spec->check.target.conn)) {
		size_t failed = n;

		/* a Delta target: one commit per interval (repair_delta.h) */
		rc = rk_repair_delta_run(spec, iv, n, res, &failed, err);
		if (rc < 0 && failed < n) {
			if (rk_guard_signal())
				rk_guard_check(err);
			rk_repair_explain(spec, iv, n, failed, err);
		}
		return rc;
	}
	opened = rk_repair_open(&r, err);
	if (opened == 0 && r.reset_columns)
		res->reset_columns = rk_xstrdup(r.reset_columns);
	if (opened < 0 || rk_repair_prepare(&r, err) < 0) {
		if (rk_guard_signal())
			rk_guard_check(err);
		if (rk_guard_is_interrupt(err) || rk_guard_is_lock_timeout(err) || r.todo)
			rk_repair_explain(spec, iv, n, n, err);
		rk_repair_close(&r);
		return -1;
	}
	for (size_t k = 0; k < r.ntodo; k++) {
		size_t i = r.todo[k];
		rk_buf b = RK_BUF_INIT;

		rk_repair_put_interval(&b, iv[i].start, iv[i].end);
		rk_log_info("%s interval %s of %s", spec->execute ? "repairing" : "planning", rk_buf_cstr(&b),
		            r.dest.display);
		rk_buf_free(&b);
		if (spec->execute ? (spec->replace_interval ? rk_repair_execute(&r, i, res, err)
		                                            : rk_repair_row_execute(&r, i, res, err)) < 0 ||
		                            rk_repair_verify(&r, i, res, err) < 0
		                  : (spec->replace_interval ? rk_repair_plan(&r, i, res, err)
		                                            : rk_repair_row_plan(&r, i, res, err)) < 0) {
			if (rk_guard_signal())
				rk_guard_check(err);
			rk_repair_explain(spec, iv, n, i, err);
			rc = -1;
			break;
		}
	}
	rk_repair_close(&r);
	return rc;
}
