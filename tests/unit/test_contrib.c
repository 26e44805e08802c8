/*
 * test_contrib.c - the job file of the systemd example
 * (contrib/systemd/nightly.ini) is one that reckon check --job accepts: read
 * by the job reader and each table parsed as a run parses it, with the
 * service's own command-line options.  make runs the unit tests from the top
 * of the source tree, where the path below is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/options.h"

#define NIGHTLY "contrib/systemd/nightly.ini"
#define HOUR (3600 * (rk_usec)1000000)

static void test_nightly_job_reads_and_every_table_parses(void **state)
{
	char *argv[] = { "check", "--job", NIGHTLY, "--last", "1d", "--report", "/var/lib/reckon/nightly" };
	const char **labels = NULL;
	size_t nlabels = 0;
	rk_ini *job = NULL;
	rk_error err;

	(void)state;
	rk_error_clear(&err);
	if (rk_opts_job_read(NIGHTLY, RK_CMD_CHECK, &job, &labels, &nlabels, &err) < 0)
		fail_msg("%s: %s (%s)", NIGHTLY, err.msg, err.hint);
	assert_int_equal(nlabels, 2);
	assert_string_equal(labels[0], "orders");
	assert_string_equal(labels[1], "customers");
	for (size_t i = 0; i < nlabels; i++) {
		rk_opts o;

		if (rk_opts_parse_table(&o, RK_CMD_CHECK, (int)(sizeof argv / sizeof argv[0]), argv, job, labels[i],
		                        &err) < 0)
			fail_msg("table %s: %s (%s)", labels[i], err.msg, err.hint);
		/* [defaults] reach every table; the command line's --last too */
		assert_string_equal(o.source, "service=oltp_ro");
		assert_string_equal(o.target, "service=dwh_ro");
		assert_int_equal(o.window, HOUR);
		assert_int_equal(o.settle, HOUR / 4);
		assert_int_equal(o.last, 24 * HOUR);
		assert_non_null(o.time);
		assert_true(o.key.n >= 1);
		if (!strcmp(labels[i], "customers")) {
			assert_int_equal(o.source_expr.n, 2);
			assert_string_equal(o.source_where, "not is_test");
		}
		rk_opts_free(&o);
	}
	free(labels);
	rk_ini_free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nightly_job_reads_and_every_table_parses),
	};

	return cmocka_run_group_tests_name("contrib", tests, NULL, NULL);
}
