/*
 * test_options.c - the option table and its layers (cli/options.c): the
 * command line over a job's [table] over its [defaults] over --config's
 * [command] over [reckon] over keys before any section over the table's
 * defaults; --last against --from/--to; ranges, choices, mappings, flags;
 * what --help, the audit record and the manual pages read from the table.
 * No server needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/options.h"
#include "core/buf.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
static int argc_of(char **v)
{
	int n = 0;

	while (v[n])
		n++;
	return n;
}
#define ARGC(v) argc_of(v)

static char cfg_path[64];

static void write_file(const char *text)
{
	FILE *f;

	snprintf(cfg_path, sizeof cfg_path, "/tmp/rk-test-options.%d.ini", (int)getpid());
	f = fopen(cfg_path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static rk_ini *ini_of(const char *text)
{
	rk_error err;
	rk_ini *ini = rk_ini_parse("job.ini", text, strlen(text), &err);

	assert_non_null(ini);
	return ini;
}

static void test_defaults_from_the_table(void **state)
{
	char **v = ARGV("check", "--source", "s", "--target", "t", "--table", "x", "--time", "ts", "--window", "1h");
	rk_opts o;
	rk_error err;

	(void)state;
	assert_int_equal(rk_opts_parse(&o, RK_CMD_CHECK, ARGC(v), v, &err), 0);
	assert_int_equal(o.settle, 10 * 60 * RK_USEC_PER_SEC);
	assert_int_equal(o.jobs, 1);
	assert_int_equal(o.parallel, 1);
	assert_int_equal(o.leaf_rows, 200000);
	assert_int_equal(o.pushdown, RK_OPT_PUSHDOWN_OFF);
	assert_int_equal(o.format, RK_OPT_FORMAT_TEXT);
	assert_string_equal(o.csv_delimiter, ",");
	assert_int_equal(o.window, 3600 * RK_USEC_PER_SEC);
	/* a default is not "given" */
	assert_false(rk_opts_is_set(&o, RK_O_SETTLE));
	assert_true(rk_opts_is_set(&o, RK_O_WINDOW));
	assert_false(rk_opts_is_set(&o, RK_O_NOW));
	rk_opts_free(&o);
	/* a default for one command only: lateness's window */
	{
		char **w = ARGV("lateness", "--source", "s", "--time", "ts", "--last", "1d");

		assert_int_equal(rk_opts_parse(&o, RK_CMD_LATENESS, ARGC(w), w, &err), 0);
		assert_int_equal(o.window, 3600 * RK_USEC_PER_SEC);
		rk_opts_free(&o);
	}
}

static void refuse(unsigned cmd, char **argv, const char *msg)
{
	int argc = argc_of(argv);
	rk_opts o;
	rk_error err;

	assert_int_equal(rk_opts_parse(&o, cmd, argc, argv, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	if (!strstr(err.msg, msg))
		fail_msg("message '%s' does not contain '%s'", err.msg, msg);
	rk_opts_free(&o);
}

static void test_ranges_and_choices(void **state)
{
	(void)state;
	refuse(RK_CMD_CHECK, ARGV("check", "--jobs", "0"), "option --jobs must be an integer from 1 to 64, not '0'");
	refuse(RK_CMD_CHECK, ARGV("check", "--jobs", "65"), "from 1 to 64");
	refuse(RK_CMD_CHECK, ARGV("check", "--leaf-rows", "-5"), "option --leaf-rows must be an integer");
	refuse(RK_CMD_CHECK, ARGV("check", "--format", "xml"), "option --format must be text or json, not 'xml'");
	refuse(RK_CMD_CHECK, ARGV("check", "--pushdown=maybe"), "must be off, on or auto, not 'maybe'");
	refuse(RK_CMD_CHECK, ARGV("check", "--window", "1fortnight"), "--window");
	refuse(RK_CMD_CHECK, ARGV("check", "--settle", "-1m"), "--settle");
	refuse(RK_CMD_CHECK, ARGV("check", "--from", "2026-03-02 10:00"), "--from");
	refuse(RK_CMD_CHECK, ARGV("check", "--csv-delimiter", "ab"), "must be one character");
	refuse(RK_CMD_CHECK, ARGV("check", "--execute"), "option '--execute' does not apply to reckon check");
	refuse(RK_CMD_CHECK, ARGV("check", "--windwo", "1h"), "unknown option '--windwo'");
	refuse(RK_CMD_CHECK, ARGV("check", "--source-expr", "amount"), "takes NAME=SQL");
	refuse(RK_CMD_CHECK, ARGV("check", "--key", "a,,b"), "empty item");
	refuse(RK_CMD_CHECK, ARGV("check", "--source", "s", "--target", "t", "--time", "ts", "--window", "1h", "--last", "1d", "--from", "2026-03-02T00:00:00Z"), "--last and --from/--to exclude each other");
	refuse(RK_CMD_CHECK, ARGV("check", "--source", "s", "--target", "t", "--time", "ts", "--window", "1h", "--only", "a"), "option --only needs --job FILE");
	refuse(RK_CMD_CHECK, ARGV("check", "--source", "s"), "missing required option --target");
	refuse(RK_CMD_REPAIR, ARGV("repair", "--window", "1h"), "does not apply to reckon repair");
}

static void test_values_parsed(void **state)
{
	char **v = ARGV("check", "--source", "s", "--target", "t", "--time", "ts", "--window", "60min", "--settle", "0",
	                "--pushdown", "--format=json", "--jobs", "4", "--key", "a, \"B c\",d", "--source-expr",
	                "amount=amount_cents / 100.0", "--source-expr", "name = full_name", "--source-expr",
	                "amount=cents::numeric", "--now", "2026-03-02T10:00:00+02:00");
	rk_opts o;
	rk_error err;

	(void)state;
	assert_int_equal(rk_opts_parse(&o, RK_CMD_CHECK, ARGC(v), v, &err), 0);
	assert_int_equal(o.window, 3600 * RK_USEC_PER_SEC);
	assert_int_equal(o.settle, 0);
	assert_int_equal(o.pushdown, RK_OPT_PUSHDOWN_ON);
	assert_int_equal(o.format, RK_OPT_FORMAT_JSON);
	assert_int_equal(o.jobs, 4);
	assert_int_equal(o.key.n, 3);
	assert_string_equal(o.key.items[1], "\"B c\"");
	/* a mapping repeated for one name: the later wins, names stay unique */
	assert_int_equal(o.source_expr.n, 2);
	assert_string_equal(o.source_expr.names[0], "amount");
	assert_string_equal(o.source_expr.sql[0], "cents::numeric");
	assert_string_equal(o.source_expr.names[1], "name");
	assert_string_equal(o.source_expr.sql[1], "full_name");
	assert_true(o.now == (rk_usec)1772438400 * RK_USEC_PER_SEC);
	rk_opts_free(&o);
}

/* The command line, then --config's [check], [reckon] and the top. */
static void test_config_layers(void **state)
{
	rk_opts o;
	rk_error err;

	(void)state;
	write_file("window = 4h\nsettle = 1m\njobs = 3\nleaf-rows = 7\n"
	           "[reckon]\nwindow = 2h\nsettle = 2m\nsource = s\ntarget = t\ntime = ts\nexecute = true\n"
	           "[check]\nwindow = 1h\n[repair]\nexecute = false\n");
	{
		char **v = ARGV("check", "--config", cfg_path, "--jobs", "5");

		assert_int_equal(rk_opts_parse(&o, RK_CMD_CHECK, ARGC(v), v, &err), 0);
		assert_int_equal(o.window, 3600 * RK_USEC_PER_SEC); /* [check] */
		assert_int_equal(o.settle, 120 * RK_USEC_PER_SEC);  /* [reckon] */
		assert_int_equal(o.leaf_rows, 7);                   /* top */
		assert_int_equal(o.jobs, 5);                        /* command line */
		assert_string_equal(o.source, "s");
		rk_opts_free(&o);
	}
	/* a key of another command: skipped in [reckon], an error in [check] */
	write_file("[check]\nsource = s\ntarget = t\ntime = ts\nwindow = 1h\nexecute = true\n");
	{
		char **v = ARGV("check", "--config", cfg_path);

		refuse(RK_CMD_CHECK, v, ":6: 'execute' is not an option of reckon check");
	}
	write_file("[check]\nwindow = 1h\n[table x]\n");
	{
		char **v = ARGV("check", "--config", cfg_path);

		refuse(RK_CMD_CHECK, v, ":3: unknown section [table x]");
	}
	write_file("source = s\nsource-expr.amount = cents\nconfig = other.ini\n");
	{
		char **v = ARGV("check", "--config", cfg_path);

		refuse(RK_CMD_CHECK, v, ":3: unknown key 'config'");
	}
	unlink(cfg_path);
}

/* A job's table: the command line, its [table], [defaults], --config. */
static void test_job_table_layers(void **state)
{
	rk_ini *job = ini_of("[defaults]\nsource = s\ntarget = t\nwindow = 1h\nlast = 1d\nsettle = 5m\n"
	                     "source-expr.amount = cents / 100.0\nsource-expr.name = full_name\n"
	                     "[table a]\ntable = x\ntime = ts\nsettle = 7m\nsource-expr.amount = cents::numeric\n"
	                     "[table b]\ntable = y\ntime = ts\nfrom = 2026-03-01T00:00:00Z\nto = 2026-03-02T00:00:00Z\n");
	rk_opts o;
	rk_error err;

	(void)state;
	write_file("[check]\nsettle = 9m\njobs = 2\n");
	{
		char **v = ARGV("check", "--job", "job.ini", "--config", cfg_path);

		assert_int_equal(rk_opts_parse_table(&o, RK_CMD_CHECK, ARGC(v), v, job, "a", &err), 0);
		assert_int_equal(o.settle, 7 * 60 * RK_USEC_PER_SEC); /* [table a] over [defaults] and --config */
		assert_int_equal(o.jobs, 2);                          /* --config under the job */
		assert_int_equal(o.last, 86400 * RK_USEC_PER_SEC);    /* [defaults] */
		assert_int_equal(o.source_expr.n, 2);                 /* merged per name */
		assert_string_equal(o.source_expr.sql[0], "cents::numeric");
		assert_string_equal(o.source_expr.sql[1], "full_name");
		rk_opts_free(&o);
	}
	/* b's from/to hide [defaults]' last */
	{
		char **v = ARGV("check", "--job", "job.ini");

		assert_int_equal(rk_opts_parse_table(&o, RK_CMD_CHECK, ARGC(v), v, job, "b", &err), 0);
		assert_false(rk_opts_is_set(&o, RK_O_LAST));
		assert_true(rk_opts_is_set(&o, RK_O_FROM));
		rk_opts_free(&o);
	}
	/* the command line's --from/--to replace a's last (a backfill) */
	{
		char **v = ARGV("check", "--job", "job.ini", "--from", "2026-02-01T00:00:00Z", "--to", "2026-02-02T00:00:00Z",
		                "--settle", "0");

		assert_int_equal(rk_opts_parse_table(&o, RK_CMD_CHECK, ARGC(v), v, job, "a", &err), 0);
		assert_false(rk_opts_is_set(&o, RK_O_LAST));
		assert_int_equal(o.settle, 0);
		rk_opts_free(&o);
	}
	/* and --last on the command line hides b's from/to */
	{
		char **v = ARGV("check", "--job", "job.ini", "--last", "2h");

		assert_int_equal(rk_opts_parse_table(&o, RK_CMD_CHECK, ARGC(v), v, job, "b", &err), 0);
		assert_int_equal(o.last, 7200 * RK_USEC_PER_SEC);
		assert_false(rk_opts_is_set(&o, RK_O_FROM));
		rk_opts_free(&o);
	}
	/* a table missing what it needs: named with its label */
	{
		rk_ini *bad = ini_of("[defaults]\nsource = s\ntarget = t\n[table c]\ntable = z\ntime = ts\n");
		char **v = ARGV("check", "--job", "job.ini");

		assert_int_equal(rk_opts_parse_table(&o, RK_CMD_CHECK, ARGC(v), v, bad, "c", &err), -1);
		assert_string_equal(err.msg, "table c: missing required option --window");
		rk_opts_free(&o);
		rk_ini_free(bad);
	}
	unlink(cfg_path);
	rk_ini_free(job);
}

static void test_job_file_checks(void **state)
{
	rk_ini *job;
	const char **labels;
	size_t n;
	rk_error err;

	(void)state;
	write_file("[defaults]\nwindow = 1h\n[table b]\ntime = ts\n[table a.1-x_y]\ntime = ts\n");
	assert_int_equal(rk_opts_job_read(cfg_path, RK_CMD_CHECK, &job, &labels, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(labels[0], "b");
	assert_string_equal(labels[1], "a.1-x_y");
	free(labels);
	rk_ini_free(job);
	/* repair reads the same file: check-only keys are skipped, not errors */
	assert_int_equal(rk_opts_job_read(cfg_path, RK_CMD_REPAIR, &job, &labels, &n, &err), 0);
	free(labels);
	rk_ini_free(job);
	write_file("[defaults]\nformat = json\n[table b]\ntime = ts\n");
	assert_int_equal(rk_opts_job_read(cfg_path, RK_CMD_CHECK, &job, &labels, &n, &err), -1);
	assert_non_null(strstr(err.msg, ":2: unknown key 'format' in [defaults]"));
	write_file("[table b]\ntime = ts\n[table b]\nkey = id\n");
	assert_int_equal(rk_opts_job_read(cfg_path, RK_CMD_CHECK, &job, &labels, &n, &err), -1);
	assert_non_null(strstr(err.msg, ":3: [table b] again (first at line 1)"));
	write_file("window = 1h\n[table b]\n");
	assert_int_equal(rk_opts_job_read(cfg_path, RK_CMD_CHECK, &job, &labels, &n, &err), -1);
	assert_non_null(strstr(err.msg, ":1: key 'window' outside any section"));
	write_file("[table b]\nsource-where.x = 1\n");
	assert_int_equal(rk_opts_job_read(cfg_path, RK_CMD_CHECK, &job, &labels, &n, &err), -1);
	assert_non_null(strstr(err.msg, "unknown key 'source-where.x'"));
	unlink(cfg_path);
}

/* What the audit trail records: given options (flags always), lists as
 * items, mappings one per name, connection strings marked. */
static void test_audit_record(void **state)
{
	char **v = ARGV("repair", "--source", "host=a password=x", "--target", "t", "--table", "x", "--time", "ts",
	                "--key", "a,b", "--rerun-list", "r.csv", "--source-expr", "a=a1");
	rk_opts o;
	rk_opts_record rec;
	rk_error err;
	bool saw_execute = false, saw_map = false, saw_conn = false;

	(void)state;
	assert_int_equal(rk_opts_parse(&o, RK_CMD_REPAIR, ARGC(v), v, &err), 0);
	rk_opts_audit(&o, &rec);
	for (size_t i = 0; i < rec.options.n; i++) {
		const rk_audit_option *op = &rec.options.v[i];

		if (!strcmp(op->key, "execute")) {
			saw_execute = true;
			assert_int_equal(op->flag, 0);
		} else if (!strcmp(op->key, "source-expr.a")) {
			saw_map = true;
			assert_string_equal(op->value, "a1");
		} else if (!strcmp(op->key, "source")) {
			saw_conn = op->conn;
		} else if (!strcmp(op->key, "key")) {
			assert_int_equal(op->nitems, 2);
			assert_string_equal(op->items[1], "b");
		} else {
			/* defaults are not recorded as given */
			assert_string_not_equal(op->key, "format");
		}
	}
	assert_true(saw_execute);
	assert_true(saw_map);
	assert_true(saw_conn);
	rk_opts_record_free(&rec);
	rk_opts_free(&o);
}

static void count_option(void *ctx, const rk_optinfo *in)
{
	int *n = ctx;

	(*n)++;
	assert_non_null(in->name);
	assert_non_null(in->help);
	if (!strcmp(in->name, "settle"))
		assert_string_equal(in->def, "10m");
	if (!strcmp(in->name, "pushdown"))
		assert_true(in->optional_value);
}

static void test_table_feeds_help(void **state)
{
	int n = 0;

	(void)state;
	rk_opts_each(RK_CMD_CHECK, count_option, &n);
	assert_true(n > 30);
	assert_non_null(strstr(rk_opts_synopsis(RK_CMD_CHECK), "--job FILE"));
	assert_string_equal(rk_opts_name(RK_O_EXCLUDE_COLUMNS), "exclude-columns");
}

/* Options before the command: how many words are theirs. */
static void test_leading_options(void **state)
{
	char **v1 = ARGV("reckon", "-v", "--config", "c.ini", "check", "--window", "1h");
	char **v2 = ARGV("reckon", "--pushdown", "check");
	char **v3 = ARGV("reckon", "check");

	(void)state;
	assert_int_equal(rk_opts_leading(ARGC(v1), v1, 1), 3);
	assert_int_equal(rk_opts_leading(ARGC(v2), v2, 1), 1);
	assert_int_equal(rk_opts_leading(ARGC(v3), v3, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_from_the_table),
		cmocka_unit_test(test_ranges_and_choices),
		cmocka_unit_test(test_values_parsed),
		cmocka_unit_test(test_config_layers),
		cmocka_unit_test(test_job_table_layers),
		cmocka_unit_test(test_job_file_checks),
		cmocka_unit_test(test_audit_record),
		cmocka_unit_test(test_table_feeds_help),
		cmocka_unit_test(test_leading_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
