/*
 * cmd_load.c - `reckon load`: one incremental load run (docs/loader.md).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/tableopts.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "core/tz.h"
#include "io/reader.h"
#include "load/child.h"
#include "load/guard.h"
#include "load/strategy.h"
#include "load/target.h"

static int rk_load_report_fd(rk_error *err)
{
	const char *v = getenv(RK_CHILD_REPORT_ENV);
	char *end;
	long fd;

	if (!v || !*v)
		return -1;
	fd = strtol(v, &end, 10);
	if (*end || fd < 0 || fd > 1024) {
		rk_error_set(err, RK_EXIT_USAGE, "%s=%s is not a file descriptor", RK_CHILD_REPORT_ENV, v);
		return -2;
	}
	return (int)fd;
}

/* Fills spec from opts through the pair builder every table command uses;
 * the columns written are --columns (with the key and the time), else the
 * whole row, as check compares it. */
static int rk_load_spec_from_opts(rk_opts *o, rk_load_spec *s, rk_check_spec *pair, rk_error *err)
{
	const char *reason;

	memset(pair, 0, sizeof *pair);
	if (rk_load_strategy_parse(o->strategy, &s->strategy, err) < 0 || rk_tableopts_pair(o, pair, err) < 0)
		return -1;
	reason = rk_load_strategy_unsafe_reason(s->strategy);
	if (reason && !o->unsafe) {
		rk_error_set(err, RK_EXIT_USAGE, "strategy %s is unsafe: %s", o->strategy, reason);
		return rk_error_hint(err, "it exists to demonstrate the failure; add --unsafe to run it anyway");
	}
	if (reason)
		rk_log_warn("running the unsafe strategy %s: %s", o->strategy, reason);
	if (!rk_conn_has(pair->target.conn, RK_CAP_LIBPQ) && !rk_target_is_delta(pair->target.conn))
		return rk_error_set(err, RK_EXIT_USAGE, "reckon load writes to PostgreSQL or a Delta table (delta:PATH), "
		                                        "not --target %s",
		                    pair->target.conn);
	if (!rk_conn_has(pair->source.conn, RK_CAP_LIBPQ))
		return rk_error_set(err, RK_EXIT_USAGE, "reckon load reads from PostgreSQL only, not --source %s",
		                    pair->source.conn);
	s->pair = pair;
	s->columns = (const char *const *)o->columns.items;
	s->ncolumns = o->columns.n;
	s->watermark_table = o->watermark_table;
	s->load_name = o->load_name;
	s->lookback = o->lookback;
	if (rk_opts_is_set(o, RK_O_INTERVAL_START) || rk_opts_is_set(o, RK_O_INTERVAL_END)) {
		if (rk_opts_require(o, RK_O_INTERVAL_START, err) < 0 || rk_opts_require(o, RK_O_INTERVAL_END, err) < 0)
			return -1;
		s->interval_start = o->interval_start;
		s->interval_end = o->interval_end;
		s->has_interval = true;
		/* --timezone: dates are the zone's midnights (a scheduler's
		 * {{ ds }} of a timetable in that zone) */
		if (o->timezone) {
			const rk_tz *tz = rk_tz_get(o->timezone, "--timezone", err);
			char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];

			if (!tz)
				return -1;
			rk_tableopts_local_date(o, RK_O_INTERVAL_START, tz, &s->interval_start);
			rk_tableopts_local_date(o, RK_O_INTERVAL_END, tz, &s->interval_end);
			rk_log_info("interval [%s, %s) in %s", rk_tz_format(tz, s->interval_start, a),
			            rk_tz_format(tz, s->interval_end, b), rk_tz_name(tz));
		}
	}
	s->interval_column = o->interval_column && *o->interval_column ? o->interval_column : NULL;
	s->crash_at = RK_CRASH_NONE;
	if (o->crash_at && rk_load_crash_parse(o->crash_at, &s->crash_at, err) < 0)
		return -1;
	s->report_fd = rk_load_report_fd(err);
	if (s->report_fd == -2)
		return -1;
	return 0;
}

/* The one result line of a run. */
static void rk_load_print(const rk_load_result *res)
{
	char wm[RK_TIME_STRLEN];

	printf("rows_read=%ld rows_replaced=%ld rows_written=%ld watermark=%s", res->rows_read, res->rows_deleted,
	       res->rows_written, res->has_watermark ? rk_time_format(res->watermark, wm) : "none");
	/* a Delta target says where its newest time came from */
	if (res->newest_from)
		printf(" newest_from=%s", res->newest_from);
	if (res->version >= 0)
		printf(" version=%lld", res->version);
	if (rk_guard_signal())
		printf(" interrupted=%s committed=%s", rk_guard_signal() == SIGINT ? "SIGINT" : "SIGTERM",
		       res->committed ? "yes" : "no");
	printf("\n");
}

int rk_cmd_load(int argc, char **argv)
{
	rk_opts opts;
	rk_error err;
	rk_load_spec spec;
	rk_check_spec pair;
	rk_load_result res;
	int rc = RK_EXIT_OK;

	memset(&opts, 0, sizeof opts);
	memset(&spec, 0, sizeof spec);
	memset(&res, 0, sizeof res);
	rk_error_clear(&err);
	rc = rk_opts_start(&opts, RK_CMD_LOAD, argc, argv,
	                   "every input of reckon load is an option; see 'reckon load --help'", &err);
	if (rc <= 0)
		return rk_opts_stop(&opts, rc, &err);
	rc = RK_EXIT_OK;
	if (rk_load_spec_from_opts(&opts, &spec, &pair, &err) < 0 || rk_guard_begin(opts.lock_timeout, &err) < 0) {
		rk_log_error(&err);
		rk_opts_free(&opts);
		return err.code ? err.code : RK_EXIT_RUNTIME;
	}
	if (rk_load_run(&spec, &res, &err) < 0) {
		/* an interrupted run says what it did, committed or not */
		if (rk_guard_signal())
			rk_load_print(&res);
		rk_log_error(&err);
		rc = err.code ? err.code : RK_EXIT_RUNTIME;
	} else {
		/* one result line per run */
		rk_load_print(&res);
		if (rk_guard_signal())
			rc = rk_guard_exit_status();
	}
	if (fflush(stdout) != 0) {
		rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to stdout");
		rk_log_error(&err);
		if (rc < RK_EXIT_RUNTIME)
			rc = RK_EXIT_RUNTIME;
	}
	rk_guard_end();
	rk_opts_free(&opts);
	return rc;
}
