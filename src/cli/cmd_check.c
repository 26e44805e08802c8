/*
 * cmd_check.c - reckon check: options to a check spec, run, outputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/check.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/tableopts.h"
#include "core/buf.h"
#include "core/log.h"
#include "report/audit.h"
#include "report/report.h"
#include "core/text.h"

int rk_cmd_check(int argc, char **argv)
{
	rk_opts o;
	rk_error err;
	rk_check_spec spec;
	rk_check_result *res = NULL;
	rk_list cols = {NULL, 0};
	char **key_names = NULL, **sum_names = NULL;
	rk_afile *report[RK_REPORT_FILES] = {NULL, NULL, NULL};
	rk_afile *rerun = NULL;
	rk_report_ctx rc_ctx;
	unsigned long ul;
	int status = RK_EXIT_OK;
	bool json, report_made = false;

	rk_error_clear(&err);
	memset(&spec, 0, sizeof spec);
	if (rk_opts_parse(&o, RK_CMD_CHECK, argc, argv, &err) < 0)
		goto fail;
	if (o.help) {
		rk_opts_usage(RK_CMD_CHECK);
		rk_opts_free(&o);
		return RK_EXIT_OK;
	}
	rk_log_level = o.verbose;
	if (o.args.n) {
		rk_error_set(&err, RK_EXIT_USAGE, "unexpected argument '%s'", o.args.items[0]);
		rk_error_hint(&err, "every input of reckon check is an option; see 'reckon check --help'");
		goto fail;
	}
	if (rk_tableopts_sides(&o, &spec.source, &spec.target, &err) < 0 ||
	    rk_opts_require_list(&o.key, "key", &err) < 0 || rk_opts_require(o.time, "time", &err) < 0 ||
	    rk_opts_time(o.from, "from", &spec.from, &err) < 0 || rk_opts_time(o.to, "to", &spec.to, &err) < 0 ||
	    rk_opts_duration(o.window, "window", false, &spec.width, &err) < 0)
		goto fail;
	spec.settle = 10 * 60 * RK_USEC_PER_SEC;
	if (o.settle && rk_opts_duration(o.settle, "settle", true, &spec.settle, &err) < 0)
		goto fail;
	spec.now = rk_time_now();
	if (o.now && rk_opts_time(o.now, "now", &spec.now, &err) < 0)
		goto fail;
	json = o.format && !strcmp(o.format, "json");
	if (o.format && !json && strcmp(o.format, "text")) {
		rk_error_set(&err, RK_EXIT_USAGE, "option --format must be text or json, not '%s'", o.format);
		rk_error_hint(&err, "--format json prints summary.json to stdout");
		goto fail;
	}
	spec.jobs = 1;
	if (o.jobs) {
		if (rk_opts_uint(o.jobs, "jobs", 1, 64, &ul, &err) < 0)
			goto fail;
		spec.jobs = ul;
	}
	if (o.pushdown) {
		if (!strcmp(o.pushdown, "on"))
			spec.pushdown = RK_PUSHDOWN_ON;
		else if (!strcmp(o.pushdown, "auto"))
			spec.pushdown = RK_PUSHDOWN_AUTO;
		else if (strcmp(o.pushdown, "off")) {
			rk_error_set(&err, RK_EXIT_USAGE, "option --pushdown must be on, auto or off, not '%s'", o.pushdown);
			rk_error_hint(&err, "--pushdown alone is on; --pushdown=auto streams the sides without the extension");
			goto fail;
		}
	}
	spec.leaf_rows = RK_CHECK_LEAF_ROWS;
	if (o.leaf_rows) {
		if (rk_opts_uint(o.leaf_rows, "leaf-rows", 1, 100000000, &ul, &err) < 0)
			goto fail;
		spec.leaf_rows = ul;
	}
	spec.key = (const char *const *)o.key.items;
	spec.nkey = o.key.n;
	spec.time = o.time;
	spec.sum = (const char *const *)o.sum.items;
	spec.nsum = o.sum.n;
	spec.types = (const char *const *)o.types.items;
	spec.ntypes = o.types.n;
	rk_tableopts_hashed(&o, &cols);
	spec.columns = (const char *const *)cols.items;
	spec.ncolumns = cols.n;
	spec.findings = true;
	spec.watermark_query = o.watermark_query;

	/* Outputs are opened first: an unwritable path fails before the work. */
	if (o.report) {
		struct stat st;
		report_made = stat(o.report, &st) != 0;
		if (rk_report_dir_open(o.report, report, &err) < 0)
			goto fail;
	}
	if (o.rerun_list && !(rerun = rk_afile_open(o.rerun_list, "rerun list", &err)))
		goto fail;

	if (rk_check_run(&spec, &res, &err) < 0)
		goto fail;

	key_names = rk_xcalloc(spec.nkey, sizeof *key_names);
	sum_names = rk_xcalloc(spec.nsum ? spec.nsum : 1, sizeof *sum_names);
	for (size_t i = 0; i < spec.nkey; i++)
		key_names[i] = rk_ident_unquote(spec.key[i]);
	for (size_t i = 0; i < spec.nsum; i++)
		sum_names[i] = rk_ident_unquote(spec.sum[i]);
	rc_ctx.spec = &spec;
	rc_ctx.key_names = (const char *const *)key_names;
	rc_ctx.sum_names = (const char *const *)sum_names;

	if (o.report) {
		if (rk_report_dir_commit(report, o.report, &rc_ctx, res, &err) < 0)
			goto fail;
	}
	if (rerun) {
		rk_afile *a = rerun;
		rerun = NULL;
		if (rk_report_rerun_commit(a, o.rerun_list, res, &err) < 0)
			goto fail;
	}
	/* recorded once the files it describes are in place */
	if (o.audit && rk_audit_record_check(o.audit, &o, &rc_ctx, res, &err) < 0)
		goto fail;
	if (json)
		rk_report_json(stdout, &rc_ctx, res);
	else
		rk_report_text(stdout, &rc_ctx, res);
	if (fflush(stdout) != 0) {
		rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to standard output");
		goto fail;
	}
	status = res->differ ? RK_EXIT_DIFFER : RK_EXIT_OK;
	goto done;
fail:
	rk_log_error(&err);
	status = err.code ? err.code : RK_EXIT_RUNTIME;
	rk_report_dir_abort(report);
	/* a directory this run created stays only if it holds a report */
	if (report_made)
		rmdir(o.report);
	rk_afile_abort(rerun);
done:
	for (size_t i = 0; key_names && i < spec.nkey; i++)
		free(key_names[i]);
	for (size_t i = 0; sum_names && i < spec.nsum; i++)
		free(sum_names[i]);
	free(key_names);
	free(sum_names);
	free(cols.items);
	rk_check_result_free(res);
	rk_opts_free(&o);
	return status;
}
