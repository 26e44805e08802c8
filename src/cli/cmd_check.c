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
	rk_afile *report[RK_REPORT_FILES] = {NULL, NULL, NULL};
	rk_afile *rerun = NULL;
	rk_report_ctx rc_ctx;
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
	if (rk_tableopts_pair(&o, &spec, &err) < 0 || rk_tableopts_check(&o, rk_time_now(), &spec, &err) < 0)
		goto fail;
	json = o.format == RK_OPT_FORMAT_JSON;

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

	rc_ctx.spec = &spec;
	rc_ctx.key_names = (const char *const *)res->key_names;
	rc_ctx.sum_names = (const char *const *)res->sum_names;

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
	if (o.audit) {
		rk_opts_record rec;
		int arc;

		rk_opts_audit(&o, &rec);
		arc = rk_audit_record_check(o.audit, &rec.options, &rc_ctx, res, &err);
		rk_opts_record_free(&rec);
		if (arc < 0)
			goto fail;
	}
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
	rk_check_result_free(res);
	rk_opts_free(&o);
	return status;
}
