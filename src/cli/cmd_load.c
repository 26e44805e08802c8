/*
 * cmd_load.c - `reckon load`: one incremental load run (lab.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/tableopts.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "io/reader.h"
#include "load/strategy.h"

/* The lab reads a killed child's progress from this descriptor. */
#define RK_LOAD_REPORT_ENV "RECKON_REPORT_FD"

static int rk_load_report_fd(rk_error *err)
{
	const char *v = getenv(RK_LOAD_REPORT_ENV);
	char *end;
	long fd;

	if (!v || !*v)
		return -1;
	fd = strtol(v, &end, 10);
	if (*end || fd < 0 || fd > 1024) {
		rk_error_set(err, RK_EXIT_USAGE, "%s=%s is not a file descriptor", RK_LOAD_REPORT_ENV, v);
		return -2;
	}
	return (int)fd;
}

/* Fills spec from opts through the pair builder every table command uses;
 * the default column list is key, time, sum columns. */
static int rk_load_spec_from_opts(rk_opts *o, rk_load_spec *s, rk_list *cols, rk_error *err)
{
	rk_check_spec pair;
	const char *reason;

	memset(&pair, 0, sizeof pair);
	if (rk_load_strategy_parse(o->strategy, &s->strategy, err) < 0 || rk_tableopts_pair(o, &pair, err) < 0)
		return -1;
	reason = rk_load_strategy_unsafe_reason(s->strategy);
	if (reason && !o->unsafe) {
		rk_error_set(err, RK_EXIT_USAGE, "strategy %s is unsafe: %s", o->strategy, reason);
		return rk_error_hint(err, "it exists to demonstrate the failure; add --unsafe to run it anyway");
	}
	if (reason)
		rk_log_warn("running the unsafe strategy %s: %s", o->strategy, reason);
	if (rk_reader_conn_is_csv(pair.target.conn))
		return rk_error_set(err, RK_EXIT_USAGE, "reckon load writes to PostgreSQL only, not --target %s",
		                    pair.target.conn);
	if (rk_reader_conn_is_csv(pair.source.conn))
		return rk_error_set(err, RK_EXIT_USAGE, "reckon load reads from PostgreSQL only, not --source csv:");
	if (pair.source.nexpr || pair.target.nexpr || pair.source.where || pair.target.where) {
		rk_error_set(err, RK_EXIT_USAGE, "reckon load does not map or filter columns yet");
		return rk_error_hint(err, "load from a view that renames and filters the source's rows");
	}
	s->source = pair.source.conn;
	s->target = pair.target.conn;
	s->source_table = pair.source.table;
	s->target_table = pair.target.table;
	s->key = o->key.items;
	s->nkey = o->key.n;
	s->time = o->time;

	if (o->columns.n) {
		s->columns = o->columns.items;
		s->ncolumns = o->columns.n;
	} else {
		/* borrowed pointers; only the array is ours */
		size_t n = 0, max = o->key.n + 1 + o->sum.n;

		cols->items = rk_xcalloc(max, sizeof *cols->items);
		for (size_t i = 0; i < o->key.n; i++)
			cols->items[n++] = o->key.items[i];
		cols->items[n++] = o->time;
		for (size_t i = 0; i < o->sum.n; i++)
			cols->items[n++] = o->sum.items[i];
		/* a time column that is also a key is copied once */
		for (size_t i = 0; i < o->key.n; i++)
			if (strcmp(o->key.items[i], o->time) == 0) {
				memmove(&cols->items[o->key.n], &cols->items[o->key.n + 1],
				        (n - o->key.n - 1) * sizeof *cols->items);
				n--;
				break;
			}
		cols->n = n;
		s->columns = cols->items;
		s->ncolumns = n;
	}

	s->watermark_table = o->watermark_table;
	s->load_name = o->load_name;
	s->lookback = o->lookback;
	if (rk_opts_is_set(o, RK_O_INTERVAL_START) || rk_opts_is_set(o, RK_O_INTERVAL_END)) {
		if (rk_opts_require(o, RK_O_INTERVAL_START, err) < 0 || rk_opts_require(o, RK_O_INTERVAL_END, err) < 0)
			return -1;
		s->interval_start = o->interval_start;
		s->interval_end = o->interval_end;
		s->has_interval = true;
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

int rk_cmd_load(int argc, char **argv)
{
	rk_opts opts;
	rk_error err;
	rk_load_spec spec;
	rk_load_result res;
	rk_list cols = { NULL, 0 };
	int rc = RK_EXIT_OK;

	memset(&opts, 0, sizeof opts);
	memset(&spec, 0, sizeof spec);
	rk_error_clear(&err);
	if (rk_opts_parse(&opts, RK_CMD_LOAD, argc, argv, &err) < 0) {
		rk_log_error(&err);
		rk_opts_free(&opts);
		return err.code;
	}
	rk_log_level = opts.verbose;
	if (opts.help) {
		rk_opts_usage(RK_CMD_LOAD);
		rk_opts_free(&opts);
		return RK_EXIT_OK;
	}
	if (rk_load_spec_from_opts(&opts, &spec, &cols, &err) < 0 || rk_load_run(&spec, &res, &err) < 0) {
		rk_log_error(&err);
		rc = err.code ? err.code : RK_EXIT_RUNTIME;
	} else {
		char wm[RK_TIME_STRLEN];

		/* one result line per run */
		printf("rows_read=%ld rows_replaced=%ld rows_written=%ld watermark=%s\n", res.rows_read, res.rows_deleted,
		       res.rows_written, res.has_watermark ? rk_time_format(res.watermark, wm) : "none");
		if (fflush(stdout) != 0) {
			rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to stdout");
			rk_log_error(&err);
			rc = RK_EXIT_RUNTIME;
		}
	}
	free(cols.items);
	rk_opts_free(&opts);
	return rc;
}
