/*
 * cmd_rerun_list.c - reckon rerun-list: validates a rerun list and prints
 * it normalised, merged into ranges (--merge) or as scheduler commands
 * (--as airflow --dag DAG).  The work is in report/rerun.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/log.h"
#include "report/rerun.h"

/* The input: --input FILE or the one positional argument ("-" = stdin). */
static int rk_rerun_input(const rk_opts *o, const char **path, rk_error *err)
{
	if (o->input && o->args.n) {
		rk_error_set(err, RK_EXIT_USAGE, "two rerun lists given: --input '%s' and '%s'", o->input,
		             o->args.items[0]);
		return rk_error_hint(err, "give the rerun list once, as --input FILE or as the argument");
	}
	if (o->args.n > 1) {
		rk_error_set(err, RK_EXIT_USAGE, "unexpected argument '%s'", o->args.items[1]);
		return rk_error_hint(err, "reckon rerun-list reads one rerun list; merge lists with reckon check over "
		                          "the whole range instead");
	}
	*path = o->input ? o->input : o->args.n ? o->args.items[0] : NULL;
	if (!*path || !**path) {
		rk_error_set(err, RK_EXIT_USAGE, "missing rerun list");
		return rk_error_hint(err, "give the file written by reckon check --rerun-list: 'reckon rerun-list "
		                          "FILE' ('-' reads standard input)");
	}
	return 0;
}

int rk_cmd_rerun_list(int argc, char **argv)
{
	rk_opts o;
	rk_error err;
	rk_rerun_list *list = NULL, *merged = NULL;
	const char *path = NULL;
	int status = RK_EXIT_OK, rc;
	bool airflow = false;

	rk_error_clear(&err);
	rc = rk_opts_start(&o, RK_CMD_RERUN, argc, argv, NULL, &err);
	if (rc <= 0)
		return rk_opts_stop(&o, rc, &err);
	if (o.as) {
		if (strcmp(o.as, "airflow") != 0) {
			rk_error_set(&err, RK_EXIT_USAGE, "option --as must be airflow, not '%s'", o.as);
			rk_error_hint(&err, "--as airflow --dag DAG prints airflow tasks clear / dags backfill commands");
			goto fail;
		}
		airflow = true;
		if (rk_opts_require(&o, RK_O_DAG, &err) < 0 || rk_rerun_check_dag(o.dag, &err) < 0)
			goto fail;
	} else if (o.dag) {
		rk_error_set(&err, RK_EXIT_USAGE, "option --dag needs --as airflow");
		rk_error_hint(&err, "write --as airflow --dag %s", o.dag);
		goto fail;
	}
	if (rk_rerun_input(&o, &path, &err) < 0 || rk_rerun_read(path, &list, &err) < 0)
		goto fail;
	rk_log_info("%s: %zu interval%s", list->name, list->n, list->n == 1 ? "" : "s");
	if (o.merge || airflow) {
		if (rk_rerun_merge(list, &merged, &err) < 0)
			goto fail;
		rk_log_info("%s: %zu range%s after merging touching intervals", list->name, merged->n,
		            merged->n == 1 ? "" : "s");
	}
	if (airflow)
		rc = rk_rerun_write_airflow(stdout, merged, o.dag);
	else if (o.merge)
		rc = rk_rerun_write_merged(stdout, merged);
	else
		rc = rk_rerun_write(stdout, list);
	if (rc < 0 || fflush(stdout) != 0) {
		rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to standard output");
		goto fail;
	}
	goto done;
fail:
	rk_log_error(&err);
	status = err.code ? err.code : RK_EXIT_RUNTIME;
done:
	rk_rerun_free(merged);
	rk_rerun_free(list);
	rk_opts_free(&o);
	return status;
}
