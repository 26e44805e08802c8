/*
 * audit.h - the audit trail: each run, its windows' digests and its
 * findings recorded in schema "reckon" of a PostgreSQL database (--audit).
 * The schema is created on first use by sql/audit_schema.sql.  One
 * transaction per run: a crashed run records nothing.
 */
#ifndef RK_AUDIT_H
#define RK_AUDIT_H

#include "check/check.h"
#include "cli/options.h"
#include "report/report.h"

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

#endif
