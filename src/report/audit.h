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

#include "check/check.h"
#include "cli/options.h"
#include "load/repair.h"
#include "report/report.h"
#include "report/rerun.h"

/*
 * Records a check run: creates or migrates the schema when needed (its own
 * transaction, under an advisory lock), then the run, all its windows (open
 * ones with NULL digests) and its findings in one transaction.  Conninfos
 * are stored redacted.  Returns 0, or -1 with err and nothing recorded:
 * RK_EXIT_RUNTIME (server, query, schema newer than this reckon), or
 * RK_EXIT_USAGE when the conninfo itself cannot be parsed.
 */
int rk_audit_record_check(const char *conninfo, const rk_opts *o, const rk_report_ctx *c, const rk_check_result *r,
                          rk_error *err);

/*
 * Makes sure, before a command changes anything, that the audit database
 * can be reached and holds the schema this reckon writes (creating or
 * migrating it as rk_audit_record_check would), so that a repair is not
 * done unrecorded for want of a reachable audit database.  Connects and
 * disconnects; records nothing.  Returns 0, or -1 with err as for
 * rk_audit_record_check.
 */
int rk_audit_prepare(const char *conninfo, rk_error *err);

/* How a repair run ended, as cmd_repair knows it; nothing is owned. */
typedef struct rk_audit_repair {
	const rk_repair_spec *spec;       /* the pair, key and sum columns */
	const rk_rerun_list *list;        /* the rerun list as read (its counts are "before") */
	const rk_repair_interval *iv;     /* list->n results of rk_repair_run, in list order */
	bool complete;                    /* rk_repair_run returned 0 */
	int exit_status;                  /* what reckon repair exits with, this record aside */
	const char *error;                /* why the run stopped (an error message), or NULL */
} rk_audit_repair;

/*
 * Records a repair run, dry runs and runs that stopped part way included:
 * migrates the schema when needed (as rk_audit_record_check), then, in one
 * transaction, the run (command 'repair', options with conninfos redacted,
 * verdict, exit status, error) and one reckon.repair_interval row per
 * interval of the list, done or not.  Returns 0, or -1 with err (as for
 * rk_audit_record_check) and nothing recorded.
 */
int rk_audit_record_repair(const char *conninfo, const rk_opts *o, const rk_audit_repair *r, rk_error *err);

#endif
