/*
 * audit.h - the audit trail: each run, its windows' digests and its
 * findings (check), or what it did to each interval (repair), recorded in
 * schema "reckon" of a PostgreSQL database (--audit, docs/audit.md).  The
 * schema is created on first use by sql/audit_schema.sql and brought up to
 * date by sql/audit_migrate_<N>.sql.  One transaction per run: a crashed
 * run records nothing.
 */
#ifndef RK_AUDIT_H
#define RK_AUDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "check/result.h"
#include "report/report.h"

/* One option of the run as the user gave it; nothing is owned. */
typedef struct rk_audit_option {
	const char *key;          /* the long option name ("source-expr.amount") */
	const char *value;        /* its text; NULL for a list or a flag */
	const char *const *items; /* a list's items (nitems of them), else NULL */
	size_t nitems;
	int flag;  /* a flag's value (0 or 1), or -1 */
	bool conn; /* a connection string: recorded with passwords masked */
} rk_audit_option;

/* The options of a run, as the command hands them over. */
typedef struct rk_audit_options {
	const rk_audit_option *v;
	size_t n;
} rk_audit_options;

/*
 * Records a check run: creates or migrates the schema when needed (its own
 * transaction, under an advisory lock), then the run, all its windows (open
 * ones with NULL digests) and its findings in one transaction.  Conninfos
 * are stored redacted.  Returns 0, or -1 with err and nothing recorded:
 * RK_EXIT_RUNTIME (server, query, schema newer than this reckon), or
 * RK_EXIT_USAGE when the conninfo itself cannot be parsed.
 */
int rk_audit_record_check(const char *conninfo, const rk_audit_options *o, const rk_report_ctx *c,
                          const rk_check_result *r, rk_error *err);

/*
 * Makes sure, before a command changes anything, that the audit database
 * can be reached and holds the schema this reckon writes (creating or
 * migrating it as rk_audit_record_check would), so that a repair is not
 * done unrecorded for want of a reachable audit database.  Connects and
 * disconnects; records nothing.  Returns 0, or -1 with err as for
 * rk_audit_record_check.
 */
int rk_audit_prepare(const char *conninfo, rk_error *err);

/* One interval of a repair run, as the run left it; nothing is owned. */
typedef struct rk_audit_interval {
	rk_usec start, end;
	const char *status; /* reckon.repair_interval.status (docs/audit.md) */
	uint64_t before[6]; /* as the rerun list said: source rows, target rows,
	                                 * missing, extra, duplicated, changed */
	bool counted;       /* the run's counts below are known */
	uint64_t source_rows, deleted_by_time, deleted_by_key, inserted;
	uint64_t updated, moved; /* row by row: updated in place (moved ones included), moved in */
	const char *after;       /* the re-check's verdict ("match", "differ"), or NULL */
	uint64_t after_source_rows, after_target_rows;
} rk_audit_interval;

/* How a repair run ended, as the repair command knows it; nothing is owned. */
typedef struct rk_audit_repair {
	const rk_reader_opts *source; /* the pair, */
	const rk_reader_opts *target;
	const char *const *key; /* its key and sum columns, as written */
	size_t nkey;
	const char *const *sum;
	size_t nsum;
	const rk_audit_interval *iv; /* every interval of the list, in list order */
	size_t n;
	const char *verdict; /* "match", "differ", "planned" or "failed" */
	int exit_status;     /* what reckon repair exits with, this record aside */
	const char *error;   /* why the run stopped (an error message), or NULL */
} rk_audit_repair;

/*
 * Records a repair run, dry runs and runs that stopped part way included:
 * migrates the schema when needed (as rk_audit_record_check), then, in one
 * transaction, the run (command 'repair', options with conninfos redacted,
 * verdict, exit status, error) and one reckon.repair_interval row per
 * interval of the list, done or not.  Returns 0, or -1 with err (as for
 * rk_audit_record_check) and nothing recorded.
 */
int rk_audit_record_repair(const char *conninfo, const rk_audit_options *o, const rk_audit_repair *r, rk_error *err);

#endif
