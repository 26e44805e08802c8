/*
 * test_rerun.c - the rerun list module: reading and validating (errors name
 * file:line:column), merging touching intervals, and what rerun-list prints
 * (normalised list, merged ranges, Airflow 2 and 3, Dagster, dbt and JSON).
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

#include "report/rerun.h"

#define H RK_RERUN_HEADER "\n"

/* Parses text as a rerun list named "list.csv"; returns the rc. */
static int parse(const char *text, rk_rerun_list **out, rk_error *err)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(fp);
	rk_error_clear(err);
	rc = rk_rerun_read_stream(fp, "list.csv", out, err);
	fclose(fp);
	return rc;
}

/* Expects text to be refused with a message starting with prefix. */
static void refuse(const char *text, const char *prefix)
{
	rk_rerun_list *l = (rk_rerun_list *)1;
	rk_error err;

	assert_int_equal(parse(text, &l, &err), -1);
	assert_null(l);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
		fail_msg("message '%s' does not start with '%s'", err.msg, prefix);
	assert_true(err.hint[0] != '\0');
}

/* What a writer prints, as a new string. */
typedef int (*writer_fn)(FILE *, const rk_rerun_list *);
static char *printed(writer_fn fn, const rk_rerun_list *l)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(fn(fp, l), 0);
	assert_int_equal(fclose(fp), 0);
	return buf;
}

static char *printed_airflow(const rk_rerun_list *l, const char *dag)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(rk_rerun_write_airflow(fp, l, dag), 0);
	assert_int_equal(fclose(fp), 0);
	return buf;
}

/* What one of the other scheduler writers prints, as a new string:
 * which 'a' airflow3, 'g' dagster daily, 'G' dagster hourly, 'd' dbt,
 * 'j' JSON of the list, 'J' JSON of merged ranges.  rc is what it returned. */
static char *printed_as(char which, const rk_rerun_list *l, const char *arg, int *rc, rk_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	rk_error_clear(err);
	switch (which) {
	case 'a': *rc = rk_rerun_write_airflow3(fp, l, arg, "completed"); break;
	case 'g': *rc = rk_rerun_write_dagster(fp, l, arg, false, err); break;
	case 'G': *rc = rk_rerun_write_dagster(fp, l, arg, true, err); break;
	case 'd': *rc = rk_rerun_write_dbt(fp, l, arg, err); break;
	case 'j': *rc = rk_rerun_write_json(fp, l, false, err); break;
	default: *rc = rk_rerun_write_json(fp, l, true, err); break;
	}
	assert_int_equal(fclose(fp), 0);
	return buf;
}

static rk_usec ts(const char *s)
{
	rk_usec t;
	const char *why;

	assert_int_equal(rk_time_parse(s, strlen(s), &t, &why), 0);
	return t;
}

/* ---- reading ---------------------------------------------------------- */

static void test_read_valid(void **state)
{
	rk_rerun_list *l = NULL;
	rk_error err;

	(void)state;
	assert_int_equal(parse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n"
	                         "2026-03-02T12:00:00Z,2026-03-02T13:00:00Z,8,9,0,1,2,3\n",
	                       &l, &err),
	                 0);
	assert_int_equal(l->n, 2);
	assert_string_equal(l->name, "list.csv");
	assert_true(l->items[0].start == ts("2026-03-02T10:00:00Z"));
	assert_true(l->items[0].end == ts("2026-03-02T11:00:00Z"));
	assert_true(l->items[0].last_start == l->items[0].start);
	assert_int_equal(l->items[0].intervals, 1);
	assert_int_equal(l->items[0].line, 2);
	assert_int_equal(l->items[0].count[RK_RERUN_SOURCE_ROWS], 5);
	assert_int_equal(l->items[0].count[RK_RERUN_TARGET_ROWS], 4);
	assert_int_equal(l->items[0].count[RK_RERUN_MISSING], 1);
	assert_int_equal(l->items[1].count[RK_RERUN_EXTRA], 1);
	assert_int_equal(l->items[1].count[RK_RERUN_DUPLICATED], 2);
	assert_int_equal(l->items[1].count[RK_RERUN_CHANGED], 3);
	assert_int_equal(l->items[1].line, 3);
	rk_rerun_free(l);
}

static void test_read_empty_list(void **state)
{
	rk_rerun_list *l = NULL;
	rk_error err;

	(void)state;
	assert_int_equal(parse(H, &l, &err), 0);
	assert_int_equal(l->n, 0);
	rk_rerun_free(l);
	/* header without a line end */
	assert_int_equal(parse(RK_RERUN_HEADER, &l, &err), 0);
	assert_int_equal(l->n, 0);
	rk_rerun_free(l);
}

/* CRLF line ends, a byte order mark, quoted fields, offsets, no final
 * newline, trailing blank lines: all read the same. */
static void test_read_tolerated_forms(void **state)
{
	rk_rerun_list *l = NULL;
	rk_error err;

	(void)state;
	assert_int_equal(parse("\xEF\xBB\xBF" RK_RERUN_HEADER "\r\n"
	                       "\"2026-03-02 11:00:00+01\",2026-03-02T11:00:00Z,\"5\",4,1,0,0,0\r\n"
	                       "2026-03-02T11:00:00Z,2026-03-02T11:30:00.5Z,1,1,0,0,0,1\n\n\n",
	                       &l, &err),
	                 0);
	assert_int_equal(l->n, 2);
	assert_true(l->items[0].start == ts("2026-03-02T10:00:00Z"));
	assert_int_equal(l->items[0].count[RK_RERUN_SOURCE_ROWS], 5);
	assert_true(l->items[1].end == ts("2026-03-02T11:30:00.5Z"));
	rk_rerun_free(l);
	assert_int_equal(parse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0", &l, &err), 0);
	assert_int_equal(l->n, 1);
	rk_rerun_free(l);
}

/* Whether each bound was written with a zone is noted whatever the value's
 * length: a zoneless instant padded with blanks (or fractional zeros) to
 * 64 bytes or more was not looked at and passed for one with a zone. */
static void test_read_zoneless_padded(void **state)
{
	static const char *const zoneless[] = {
		"2026-03-02T10:00:00",
		"2026-03-02T10:00:00                                            ",  /* 63 bytes */
		"2026-03-02T10:00:00                                             ", /* 64 */
		"2026-03-02T10:00:00.000000000000000000000000000000000                  ",
		"                                                 2026-03-02 10:00:00",
	};
	static const char *const zoned[] = {
		"2026-03-02T10:00:00Z",
		"2026-03-02T10:00:00Z                                                        ",
		"2026-03-02T11:00:00.000000000000000000000000000000000+01:00                 ",
	};
	rk_rerun_list *l = NULL;
	rk_error err;
	char text[512];

	(void)state;
	for (size_t i = 0; i < sizeof zoneless / sizeof *zoneless; i++) {
		/* as the start, then as the end */
		snprintf(text, sizeof text, H "%s,2026-03-02T11:00:00Z,5,4,1,0,0,0\n", zoneless[i]);
		assert_int_equal(parse(text, &l, &err), 0);
		assert_true(l->items[0].start == ts("2026-03-02T10:00:00Z"));
		if (!l->items[0].zoneless)
			fail_msg("start '%s' (%zu bytes) passed for an instant with a zone", zoneless[i], strlen(zoneless[i]));
		rk_rerun_free(l);
		snprintf(text, sizeof text, H "2026-03-02T09:00:00Z,%s,5,4,1,0,0,0\n", zoneless[i]);
		assert_int_equal(parse(text, &l, &err), 0);
		assert_true(l->items[0].zoneless);
		rk_rerun_free(l);
	}
	for (size_t i = 0; i < sizeof zoned / sizeof *zoned; i++) {
		snprintf(text, sizeof text, H "%s,2026-03-02T11:00:00Z,5,4,1,0,0,0\n", zoned[i]);
		assert_int_equal(parse(text, &l, &err), 0);
		assert_true(l->items[0].start == ts("2026-03-02T10:00:00Z"));
		if (l->items[0].zoneless)
			fail_msg("start '%s' taken as zoneless", zoned[i]);
		rk_rerun_free(l);
	}
}

static void test_read_header_errors(void **state)
{
	(void)state;
	refuse("", "list.csv:1:1: empty file");
	/* the column of the first byte that differs */
	refuse("interval_start,interval_end,source_rows,target_rows,missing,extra,duplicate,changed\n",
	       "list.csv:1:76: not a rerun list");
	refuse("window_start,window_end,status\n", "list.csv:1:1: not a rerun list");
	refuse(RK_RERUN_HEADER ",extra_column\n", "list.csv:1:85: not a rerun list");
	refuse("range_start,range_end,intervals,source_rows,target_rows,missing,extra,duplicated,changed\n",
	       "list.csv:1:1: not a rerun list");
}

static void test_read_field_errors(void **state)
{
	(void)state;
	refuse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0\n", "list.csv:2:52: 7 fields");
	refuse(H "2026-03-02T10:00:00Z\n", "list.csv:2:21: 1 field where");
	refuse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0,9\n", "list.csv:2:55: too many fields");
	refuse(H "2026-03-02T10:00:00Z,2026-13-02T11:00:00Z,5,4,1,0,0,0\n",
	       "list.csv:2:22: interval_end '2026-13-02T11:00:00Z' is not a timestamp");
	refuse(H "yesterday,2026-03-02T11:00:00Z,5,4,1,0,0,0\n",
	       "list.csv:2:1: interval_start 'yesterday' is not a timestamp");
	refuse(H ",2026-03-02T11:00:00Z,5,4,1,0,0,0\n", "list.csv:2:1: interval_start is empty");
	refuse(H "-infinity,2026-03-02T11:00:00Z,5,4,1,0,0,0\n", "list.csv:2:1: interval_start must be a finite");
	refuse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,-4,1,0,0,0\n",
	       "list.csv:2:45: target_rows must be a non-negative integer, not '-4'");
	refuse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0, 1\n",
	       "list.csv:2:53: changed must be a non-negative integer");
	refuse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,,0,0,0\n", "list.csv:2:47: missing is empty");
	refuse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,9223372036854775808,4,1,0,0,0\n",
	       "list.csv:2:43: source_rows 9223372036854775808 is too large");
	refuse(H "\"2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n", "list.csv:2:1: unterminated quoted field");
	refuse(H "\"2026-03-02T10:00:00Z\"x,2026-03-02T11:00:00Z,5,4,1,0,0,0\n",
	       "list.csv:2:23: unexpected character after a closing quote");
	refuse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n\n"
	         "2026-03-02T12:00:00Z,2026-03-02T13:00:00Z,5,4,1,0,0,0\n",
	       "list.csv:3:1: blank line inside the list");
}

static void test_read_interval_errors(void **state)
{
	(void)state;
	refuse(H "2026-03-02T11:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n",
	       "list.csv:2:22: interval_end 2026-03-02T11:00:00Z is not after interval_start");
	refuse(H "2026-03-02T12:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n",
	       "list.csv:2:22: interval_end 2026-03-02T11:00:00Z is not after");
	refuse(H "2026-03-02T12:00:00Z,2026-03-02T13:00:00Z,5,4,1,0,0,0\n"
	         "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n",
	       "list.csv:3:1: interval_start 2026-03-02T10:00:00Z is before that of the previous interval (line 2");
	refuse(H "2026-03-02T10:00:00Z,2026-03-02T12:00:00Z,5,4,1,0,0,0\n"
	         "2026-03-02T11:00:00Z,2026-03-02T13:00:00Z,5,4,1,0,0,0\n",
	       "list.csv:3:1: interval [2026-03-02T11:00:00Z, 2026-03-02T13:00:00Z) overlaps the previous interval "
	       "[2026-03-02T10:00:00Z, 2026-03-02T12:00:00Z) (line 2)");
	/* the same interval twice is an overlap too */
	refuse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n"
	         "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n",
	       "list.csv:3:1: interval [2026-03-02T10:00:00Z, 2026-03-02T11:00:00Z) overlaps");
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/reckon-test-rerun.XXXXXX";
	int fd = mkstemp(path);
	rk_rerun_list *l = NULL;
	rk_error err;
	const char *text = H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n"
	                     "2026-03-02T11:00:00Z,2026-03-02T12:00:00Z,5,4,1,0,0,x\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rk_error_clear(&err);
	assert_int_equal(rk_rerun_read(path, &l, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	/* the message names the file as given, with line and column */
	assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
	assert_int_equal(strncmp(err.msg + strlen(path), ":3:53: changed", 14), 0);
	unlink(path);

	rk_error_clear(&err);
	assert_int_equal(rk_rerun_read(path, &l, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "cannot open rerun list"));
	assert_null(l);
	rk_rerun_free(NULL);
}

/* Unbounded input: /dev/zero grew one line to hundreds of MB; a directory
 * was a read error (exit 3).  Both are input errors now, naming the file. */
static void test_read_limits(void **state)
{
	rk_rerun_list *l = NULL;
	rk_error err;
	char *text;
	size_t n;

	(void)state;
	rk_error_clear(&err);
	assert_int_equal(rk_rerun_read("/dev/zero", &l, &err), -1);
	assert_null(l);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_string_equal(err.msg, "/dev/zero:1:4097: line longer than 4096 bytes: not a rerun list");

	rk_error_clear(&err);
	assert_int_equal(rk_rerun_read("/tmp", &l, &err), -1);
	assert_null(l);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_string_equal(err.msg, "cannot open rerun list '/tmp': it is a directory");

	/* a data line of RK_RERUN_LINE_MAX bytes is read (and refused for what
	 * it says); one byte more is too long */
	n = strlen(H);
	text = malloc(n + RK_RERUN_LINE_MAX + 3);
	assert_non_null(text);
	memcpy(text, H, n);
	memset(text + n, '1', RK_RERUN_LINE_MAX);
	strcpy(text + n + RK_RERUN_LINE_MAX, "\n");
	refuse(text, "list.csv:2:4097: 1 field where a rerun list line has 8");
	memset(text + n, '1', RK_RERUN_LINE_MAX + 1);
	strcpy(text + n + RK_RERUN_LINE_MAX + 1, "\n");
	refuse(text, "list.csv:2:4097: line longer than 4096 bytes");
	free(text);
}

/* ---- merging and printing --------------------------------------------- */

static const char *const merge_input =
        H "2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,9,8,1,0,0,0\n"
          "2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,9,9,0,0,0,2\n"
          "2026-03-02T02:00:00Z,2026-03-02T03:00:00Z,8,10,0,1,1,0\n"
          "2026-03-02T05:00:00Z,2026-03-02T06:00:00Z,7,7,0,0,0,1\n"
          "2026-03-02T06:00:01Z,2026-03-02T07:00:00Z,1,0,1,0,0,0\n";

static void test_merge(void **state)
{
	rk_rerun_list *l = NULL, *m = NULL;
	rk_error err;

	(void)state;
	assert_int_equal(parse(merge_input, &l, &err), 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	assert_int_equal(m->n, 3);
	/* three touching intervals: one range, counts summed */
	assert_true(m->items[0].start == ts("2026-03-02T00:00:00Z"));
	assert_true(m->items[0].end == ts("2026-03-02T03:00:00Z"));
	assert_true(m->items[0].last_start == ts("2026-03-02T02:00:00Z"));
	assert_int_equal(m->items[0].intervals, 3);
	assert_int_equal(m->items[0].count[RK_RERUN_SOURCE_ROWS], 26);
	assert_int_equal(m->items[0].count[RK_RERUN_TARGET_ROWS], 27);
	assert_int_equal(m->items[0].count[RK_RERUN_MISSING], 1);
	assert_int_equal(m->items[0].count[RK_RERUN_EXTRA], 1);
	assert_int_equal(m->items[0].count[RK_RERUN_DUPLICATED], 1);
	assert_int_equal(m->items[0].count[RK_RERUN_CHANGED], 2);
	/* a gap of one second keeps ranges apart */
	assert_int_equal(m->items[1].intervals, 1);
	assert_int_equal(m->items[2].intervals, 1);
	assert_true(m->items[2].start == ts("2026-03-02T06:00:01Z"));
	rk_rerun_free(m);
	rk_rerun_free(l);
}

static void test_merge_overflow(void **state)
{
	rk_rerun_list *l = NULL, *m = (rk_rerun_list *)1;
	rk_error err;

	(void)state;
	assert_int_equal(parse(H "2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,9223372036854775807,0,0,0,0,0\n"
	                         "2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,1,0,0,0,0,0\n",
	                       &l, &err),
	                 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), -1);
	assert_null(m);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "list.csv:3: source_rows"));
	rk_rerun_free(l);
}

static void test_write_normalised(void **state)
{
	rk_rerun_list *l = NULL;
	rk_error err;
	char *out;

	(void)state;
	assert_int_equal(parse(H "\"2026-03-02 11:00:00+01\",2026-03-02 11:00,5,4,1,0,0,0\r\n"
	                         "2026-03-02T11:00:00Z,2026-03-02T11:30:00.25Z,01,1,0,0,0,1\n",
	                       &l, &err),
	                 0);
	out = printed(rk_rerun_write, l);
	assert_string_equal(out, H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0\n"
	                           "2026-03-02T11:00:00Z,2026-03-02T11:30:00.250000Z,1,1,0,0,0,1\n");
	free(out);
	rk_rerun_free(l);
}

static void test_write_merged(void **state)
{
	rk_rerun_list *l = NULL, *m = NULL;
	rk_error err;
	char *out;

	(void)state;
	assert_int_equal(parse(merge_input, &l, &err), 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	out = printed(rk_rerun_write_merged, m);
	assert_string_equal(out, RK_RERUN_MERGED_HEADER "\n"
	                                                "2026-03-02T00:00:00Z,2026-03-02T03:00:00Z,3,26,27,1,1,1,2\n"
	                                                "2026-03-02T05:00:00Z,2026-03-02T06:00:00Z,1,7,7,0,0,0,1\n"
	                                                "2026-03-02T06:00:01Z,2026-03-02T07:00:00Z,1,1,0,1,0,0,0\n");
	free(out);
	rk_rerun_free(m);
	rk_rerun_free(l);

	/* an empty list: the header alone */
	assert_int_equal(parse(H, &l, &err), 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	out = printed(rk_rerun_write_merged, m);
	assert_string_equal(out, RK_RERUN_MERGED_HEADER "\n");
	free(out);
	rk_rerun_free(m);
	rk_rerun_free(l);
}

/* --end-date is the logical date (= data_interval_start) of the range's
 * last run, not the range's end: the run starting there is undamaged. */
static void test_airflow_commands(void **state)
{
	rk_rerun_list *l = NULL, *m = NULL;
	rk_error err;
	char *out;

	(void)state;
	assert_int_equal(parse(H "2026-03-02T00:00:00Z,2026-03-02T01:00:00Z,9,8,1,0,0,0\n"
	                         "2026-03-02T01:00:00Z,2026-03-02T02:00:00Z,9,9,0,0,0,2\n"
	                         "2026-03-03T00:00:00Z,2026-03-04T00:00:00Z,8,10,0,1,1,0\n",
	                       &l, &err),
	                 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	out = printed_airflow(m, "load_orders");
	assert_string_equal(
	        out,
	        "# 2 ranges of DAG load_orders; logical date = data_interval_start, --end-date is inclusive\n"
	        "# run either the 'tasks clear' lines (the scheduler re-runs the cleared runs) or the\n"
	        "# 'dags backfill' lines (this shell runs them), not both\n"
	        "# [2026-03-02T00:00:00Z, 2026-03-02T02:00:00Z): 2 intervals\n"
	        "airflow tasks clear load_orders --start-date 2026-03-02T00:00:00Z --end-date 2026-03-02T01:00:00Z --yes\n"
	        "airflow dags backfill load_orders --start-date 2026-03-02T00:00:00Z --end-date 2026-03-02T01:00:00Z "
	        "--reset-dagruns --yes\n"
	        "# [2026-03-03T00:00:00Z, 2026-03-04T00:00:00Z): 1 interval\n"
	        "airflow tasks clear load_orders --start-date 2026-03-03T00:00:00Z --end-date 2026-03-03T00:00:00Z --yes\n"
	        "airflow dags backfill load_orders --start-date 2026-03-03T00:00:00Z --end-date 2026-03-03T00:00:00Z "
	        "--reset-dagruns --yes\n");
	free(out);

	/* a DAG id the shell would split or expand is quoted */
	out = printed_airflow(m, "orders $(rm -rf ~)'s");
	assert_non_null(strstr(out, "airflow tasks clear 'orders $(rm -rf ~)'\\''s' --start-date"));
	assert_non_null(strstr(out, "airflow dags backfill 'orders $(rm -rf ~)'\\''s' --start-date"));
	free(out);
	rk_rerun_free(m);
	rk_rerun_free(l);

	/* nothing to re-run: nothing printed */
	assert_int_equal(parse(H, &l, &err), 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	out = printed_airflow(m, "load_orders");
	assert_string_equal(out, "");
	free(out);
	rk_rerun_free(m);
	rk_rerun_free(l);
}

static void test_shell_quote(void **state)
{
	static const char *const cases[][2] = {
		{ "load_orders", "load_orders" },
		{ "team.load-orders_v2", "team.load-orders_v2" },
		{ "", "''" },
		{ "a b", "'a b'" },
		{ "it's", "'it'\\''s'" },
		{ "$HOME", "'$HOME'" },
		{ "a;b", "'a;b'" },
		{ "*", "'*'" },
		{ "~x", "'~x'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *q = rk_rerun_shell_quote(cases[i][0]);
		assert_string_equal(q, cases[i][1]);
		free(q);
	}
}

static void test_check_dag(void **state)
{
	rk_error err;

	(void)state;
	rk_error_clear(&err);
	assert_int_equal(rk_rerun_check_dag("load_orders", &err), 0);
	assert_int_equal(rk_rerun_check_dag("my dag", &err), 0);
	assert_int_equal(rk_rerun_check_dag("", &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_int_equal(rk_rerun_check_dag("--help", &err), -1);
	assert_non_null(strstr(err.msg, "starts with '-'"));
	assert_int_equal(rk_rerun_check_dag("a\nb", &err), -1);
	assert_non_null(strstr(err.msg, "control character"));
}

/* The list the scheduler tests share: two touching days, then a third. */
#define DAYS                                                        \
	H "2026-03-02T00:00:00Z,2026-03-03T00:00:00Z,9,8,1,0,0,0\n" \
	  "2026-03-03T00:00:00Z,2026-03-04T00:00:00Z,9,9,0,0,0,2\n" \
	  "2026-03-06T00:00:00Z,2026-03-07T00:00:00Z,8,10,0,1,1,0\n"

/* Airflow 3: backfill create per range, --to-date the last run's logical date. */
static void test_airflow3_commands(void **state)
{
	rk_rerun_list *l = NULL, *m = NULL;
	rk_error err;
	char *out;
	int rc;

	(void)state;
	assert_int_equal(parse(DAYS, &l, &err), 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	out = printed_as('a', m, "load orders", &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(
	        out,
	        "# 2 ranges of DAG 'load orders' (Airflow 3); logical date = data_interval_start, --to-date is inclusive\n"
	        "# [2026-03-02T00:00:00Z, 2026-03-04T00:00:00Z): 2 intervals\n"
	        "airflow backfill create --dag-id 'load orders' --from-date 2026-03-02T00:00:00Z "
	        "--to-date 2026-03-03T00:00:00Z --reprocess-behavior completed\n"
	        "# [2026-03-06T00:00:00Z, 2026-03-07T00:00:00Z): 1 interval\n"
	        "airflow backfill create --dag-id 'load orders' --from-date 2026-03-06T00:00:00Z "
	        "--to-date 2026-03-06T00:00:00Z --reprocess-behavior completed\n");
	free(out);
	rk_rerun_free(m);
	rk_rerun_free(l);
}

/* Dagster: the first and last partition keys of each range, both
 * inclusive; a range off the partition grid is refused, nothing printed. */
static void test_dagster_commands(void **state)
{
	rk_rerun_list *l = NULL, *m = NULL;
	rk_error err;
	char *out;
	int rc;

	(void)state;
	assert_int_equal(parse(DAYS, &l, &err), 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	out = printed_as('g', m, "orders", &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(out,
	                    "# 2 ranges of daily partitions (UTC keys); --partition-range FIRST...LAST is inclusive\n"
	                    "# [2026-03-02T00:00:00Z, 2026-03-04T00:00:00Z): 2 intervals\n"
	                    "dagster asset materialize --select orders --partition-range 2026-03-02...2026-03-03\n"
	                    "# [2026-03-06T00:00:00Z, 2026-03-07T00:00:00Z): 1 interval\n"
	                    "dagster asset materialize --select orders --partition-range 2026-03-06...2026-03-06\n");
	free(out);
	out = printed_as('G', m, "orders", &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "--partition-range 2026-03-02-00:00...2026-03-03-23:00\n"));
	free(out);
	rk_rerun_free(m);
	rk_rerun_free(l);

	/* an hour is no daily partition */
	assert_int_equal(parse(H "2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,9,8,1,0,0,0\n", &l, &err), 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	out = printed_as('g', m, "orders", &rc, &err);
	assert_int_equal(rc, -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_string_equal(out, "");
	assert_non_null(strstr(err.msg, "does not start and end on daily partition boundaries"));
	assert_non_null(strstr(err.hint, "--partitions hourly"));
	free(out);
	out = printed_as('G', m, "orders", &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "--partition-range 2026-03-02-10:00...2026-03-02-10:00\n"));
	free(out);
	rk_rerun_free(m);
	rk_rerun_free(l);
}

/* dbt: one run per range, the range's ends as vars, quoted for the shell. */
static void test_dbt_commands(void **state)
{
	rk_rerun_list *l = NULL, *m = NULL;
	rk_error err;
	char *out;
	int rc;

	(void)state;
	assert_int_equal(parse(DAYS, &l, &err), 0);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	out = printed_as('d', m, "tag:orders+", &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(out,
	                    "# 2 ranges; each run gets vars start (inclusive) and end (exclusive), UTC\n"
	                    "# [2026-03-02T00:00:00Z, 2026-03-04T00:00:00Z): 2 intervals\n"
	                    "dbt run --select tag:orders+ --vars '{\"start\": \"2026-03-02T00:00:00Z\", \"end\": "
	                    "\"2026-03-04T00:00:00Z\"}'\n"
	                    "# [2026-03-06T00:00:00Z, 2026-03-07T00:00:00Z): 1 interval\n"
	                    "dbt run --select tag:orders+ --vars '{\"start\": \"2026-03-06T00:00:00Z\", \"end\": "
	                    "\"2026-03-07T00:00:00Z\"}'\n");
	free(out);
	rk_rerun_free(m);
	rk_rerun_free(l);
}

/* JSON Lines: one object per interval (or per merged range), every count. */
static void test_json_lines(void **state)
{
	rk_rerun_list *l = NULL, *m = NULL;
	rk_error err;
	char *out;
	int rc;

	(void)state;
	assert_int_equal(parse(DAYS, &l, &err), 0);
	out = printed_as('j', l, NULL, &rc, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(out,
	                    "{\"interval_start\":\"2026-03-02T00:00:00Z\",\"interval_end\":\"2026-03-03T00:00:00Z\","
	                    "\"source_rows\":9,\"target_rows\":8,\"missing\":1,\"extra\":0,\"duplicated\":0,\"changed\":0}\n"
	                    "{\"interval_start\":\"2026-03-03T00:00:00Z\",\"interval_end\":\"2026-03-04T00:00:00Z\","
	                    "\"source_rows\":9,\"target_rows\":9,\"missing\":0,\"extra\":0,\"duplicated\":0,\"changed\":2}\n"
	                    "{\"interval_start\":\"2026-03-06T00:00:00Z\",\"interval_end\":\"2026-03-07T00:00:00Z\","
	                    "\"source_rows\":8,\"target_rows\":10,\"missing\":0,\"extra\":1,\"duplicated\":1,\"changed\":0}\n");
	free(out);
	assert_int_equal(rk_rerun_merge(l, &m, &err), 0);
	out = printed_as('J', m, NULL, &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "{\"range_start\":\"2026-03-02T00:00:00Z\",\"range_end\":\"2026-03-04T00:00:00Z\","
	                            "\"intervals\":2,\"source_rows\":18,\"target_rows\":17,\"missing\":1,"));
	free(out);
	rk_rerun_free(m);
	rk_rerun_free(l);

	/* an empty list: no lines */
	assert_int_equal(parse(H, &l, &err), 0);
	out = printed_as('j', l, NULL, &rc, &err);
	assert_string_equal(out, "");
	free(out);
	rk_rerun_free(l);
}

static void test_check_select(void **state)
{
	rk_error err;

	(void)state;
	rk_error_clear(&err);
	assert_int_equal(rk_rerun_check_select("tag:orders+", "--select", &err), 0);
	assert_int_equal(rk_rerun_check_select("", "--select", &err), -1);
	assert_int_equal(rk_rerun_check_select("--full-refresh", "--select", &err), -1);
	assert_non_null(strstr(err.msg, "starts with '-'"));
	assert_int_equal(rk_rerun_check_select("a\nb", "--select", &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_valid),
		cmocka_unit_test(test_read_empty_list),
		cmocka_unit_test(test_read_tolerated_forms),
		cmocka_unit_test(test_read_zoneless_padded),
		cmocka_unit_test(test_read_header_errors),
		cmocka_unit_test(test_read_field_errors),
		cmocka_unit_test(test_read_interval_errors),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_read_limits),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_overflow),
		cmocka_unit_test(test_write_normalised),
		cmocka_unit_test(test_write_merged),
		cmocka_unit_test(test_airflow_commands),
		cmocka_unit_test(test_airflow3_commands),
		cmocka_unit_test(test_dagster_commands),
		cmocka_unit_test(test_dbt_commands),
		cmocka_unit_test(test_json_lines),
		cmocka_unit_test(test_check_select),
		cmocka_unit_test(test_shell_quote),
		cmocka_unit_test(test_check_dag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
