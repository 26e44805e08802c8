/*
 * cmd_rerun_list.c - reckon rerun-list: validates a rerun list and prints
 * it normalised, merged into ranges (--merge) or as scheduler commands
 * (--as airflow|airflow3 --dag DAG, --as dagster|dbt --select SEL, --as json).
 * The work is in report/rerun.c.
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
	*path = o->input ? o->input : o->args.n ? o->args.items[0]
	                                        : NULL;
	if (!*path || !**path) {
		rk_error_set(err, RK_EXIT_USAGE, "missing rerun list");
		return rk_error_hint(err, "give the file written by reckon check --rerun-list: 'reckon rerun-list "
		                          "FILE' ('-' reads standard input)");
	}
	return 0;
}

/* The options each --as needs, and refuses: --dag for Airflow, --select for
 * Dagster and dbt; the others only with the --as they belong to. */
static int rk_rerun_as_opts(const rk_opts *o, rk_error *err)
{
	bool as = rk_opts_is_set(o, RK_O_AS);
	bool airflow = as && (o->as == RK_OPT_AS_AIRFLOW || o->as == RK_OPT_AS_AIRFLOW3);
	bool select = as && (o->as == RK_OPT_AS_DAGSTER || o->as == RK_OPT_AS_DBT);

	if (airflow && (rk_opts_require(o, RK_O_DAG, err) < 0 || rk_rerun_check_dag(o->dag, err) < 0))
		return -1;
	if (select && (rk_opts_require(o, RK_O_SELECT, err) < 0 || rk_rerun_check_select(o->select, "--select", err) < 0))
		return -1;
	if (o->dag && !airflow) {
		rk_error_set(err, RK_EXIT_USAGE, "option --dag needs --as airflow or --as airflow3");
		return rk_error_hint(err, "write --as airflow3 --dag %s (Airflow 3) or --as airflow --dag %s (Airflow 2)",
		                     o->dag, o->dag);
	}
	if (o->select && !select) {
		rk_error_set(err, RK_EXIT_USAGE, "option --select needs --as dagster or --as dbt");
		return rk_error_hint(err, "write --as dbt --select %s or --as dagster --select %s", o->select, o->select);
	}
	if (rk_opts_is_set(o, RK_O_REPROCESS) && !(as && o->as == RK_OPT_AS_AIRFLOW3)) {
		rk_error_set(err, RK_EXIT_USAGE, "option --reprocess-behavior needs --as airflow3");
		return rk_error_hint(err, "Airflow 2's commands (--as airflow) always reset the runs they clear");
	}
	if (rk_opts_is_set(o, RK_O_PARTITIONS) && !(as && o->as == RK_OPT_AS_DAGSTER)) {
		rk_error_set(err, RK_EXIT_USAGE, "option --partitions needs --as dagster");
		return rk_error_hint(err, "write --as dagster --select ASSETS --partitions daily|hourly");
	}
	return 0;
}

int rk_cmd_rerun_list(int argc, char **argv)
{
	static const char *const reprocess[] = { "none", "failed", "completed" };
	rk_opts o;
	rk_error err;
	rk_rerun_list *list = NULL, *merged = NULL;
	const char *path = NULL;
	int status = RK_EXIT_OK, rc;
	bool as, json;

	rk_error_clear(&err);
	rc = rk_opts_start(&o, RK_CMD_RERUN, argc, argv, NULL, &err);
	if (rc <= 0)
		return rk_opts_stop(&o, rc, &err);
	as = rk_opts_is_set(&o, RK_O_AS);
	json = as && o.as == RK_OPT_AS_JSON;
	if (rk_rerun_as_opts(&o, &err) < 0)
		goto fail;
	if (rk_rerun_input(&o, &path, &err) < 0 || rk_rerun_read(path, &list, &err) < 0)
		goto fail;
	rk_log_info("%s: %zu %s%s", list->name, list->n, list->keyed ? "key segment" : "interval",
	            list->n == 1 ? "" : "s");
	/* Airflow's and Dagster's commands take dates: a key list has none */
	if (as && (o.as == RK_OPT_AS_AIRFLOW || o.as == RK_OPT_AS_AIRFLOW3 || o.as == RK_OPT_AS_DAGSTER) &&
	    rk_rerun_check_format(list, o.text[RK_O_AS], &err) < 0)
		goto fail;
	/* scheduler commands always take the merged ranges; JSON only when asked */
	if (o.merge || (as && !json)) {
		if (rk_rerun_merge(list, &merged, &err) < 0)
			goto fail;
		rk_log_info("%s: %zu range%s after merging touching intervals", list->name, merged->n,
		            merged->n == 1 ? "" : "s");
	}
	err.code = 0;
	if (!as)
		rc = o.merge ? rk_rerun_write_merged(stdout, merged) : rk_rerun_write(stdout, list);
	else if (o.as == RK_OPT_AS_AIRFLOW)
		rc = rk_rerun_write_airflow(stdout, merged, o.dag);
	else if (o.as == RK_OPT_AS_AIRFLOW3)
		rc = rk_rerun_write_airflow3(stdout, merged, o.dag, reprocess[o.reprocess]);
	else if (o.as == RK_OPT_AS_DAGSTER)
		rc = rk_rerun_write_dagster(stdout, merged, o.select, o.partitions == RK_OPT_PARTITIONS_HOURLY, &err);
	else if (o.as == RK_OPT_AS_DBT)
		rc = rk_rerun_write_dbt(stdout, merged, o.select, &err);
	else
		rc = rk_rerun_write_json(stdout, o.merge ? merged : list, o.merge, &err);
	if (rc < 0 && err.code)
		goto fail;
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
