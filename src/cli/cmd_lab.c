/*
 * cmd_lab.c - `reckon lab`: the load failure scenarios on a real PostgreSQL
 * (docs/loader.md).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/log.h"
#include "lab/lab.h"

int rk_cmd_lab(int argc, char **argv)
{
	rk_opts opts;
	rk_error err;
	rk_lab_spec spec;
	char self[PATH_MAX];
	ssize_t n;
	int rc;

	memset(&opts, 0, sizeof opts);
	rk_error_clear(&err);
	rc = rk_opts_start(&opts, RK_CMD_LAB, argc, argv, "every input of reckon lab is an option; see 'reckon lab --help'",
	                   &err);
	if (rc <= 0)
		return rk_opts_stop(&opts, rc, &err);
	/* every step is a fresh process of this very binary */
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		rk_error_set(&err, RK_EXIT_RUNTIME, "cannot find the reckon binary (/proc/self/exe)");
		rk_log_error(&err);
		rk_opts_free(&opts);
		return err.code;
	}
	self[n] = '\0';

	memset(&spec, 0, sizeof spec);
	spec.source = opts.source;
	spec.target = opts.target;
	spec.engine = opts.engine;
	spec.scenario = opts.scenario;
	spec.out = opts.out;
	spec.delta_dir = opts.delta_dir;
	spec.reckon = self;
	spec.verbose = opts.verbose;
	rc = rk_lab_run(&spec, &err);
	if (err.code)
		rk_log_error(&err);
	rk_opts_free(&opts);
	return rc;
}
