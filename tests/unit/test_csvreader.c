/*
 * test_csvreader.c - the CSV reader against small files in a temporary
 * directory: header mapping, dialect, NULL conventions, error locations.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/buf.h"
#include "io/reader_impl.h"

static char tmpdir[64];

/* Writes PATH (relative to tmpdir) with exactly these bytes; returns the full path. */
static const char *put(const char *name, const char *content)
{
	static char path[4][256];
	static int next;
	char *p = path[next++ % 4];
	FILE *fp;

	snprintf(p, 256, "%s/%s", tmpdir, name);
	fp = fopen(p, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(content, 1, strlen(content), fp), strlen(content));
	assert_int_equal(fclose(fp), 0);
	return p;
}

/* put() for content that may hold NUL bytes. */
static const char *put_bytes(const char *name, const char *content, size_t n)
{
	static char p[256];
	FILE *fp;

	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	fp = fopen(p, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(content, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
	return p;
}

static const char *sub(const char *name)
{
	static char p[256];

	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	return p;
}

/* One open-bind-scan: rows collected as "v1|v2|...\n", NULL shown as <null>. */
typedef struct run {
	rk_buf out;
	size_t rows;
	size_t ncolumns;
	int fail_row;   /* 1-based row whose callback fails, 0 = none */
	int fail_field; /* err->field the failing callback reports */
	rk_error err;
	int rc; /* -1 if open, bind or scan failed */
} run;

static int collect_row(void *ctx, const rk_field *f, rk_error *err)
{
	run *r = ctx;

	r->rows++;
	if (r->fail_row && (size_t)r->fail_row == r->rows) {
		const rk_field *bad = &f[r->fail_field < 0 ? 0 : r->fail_field];

		err->field = r->fail_field;
		return rk_error_set(err, RK_EXIT_USAGE, "value '%.*s' is not a valid integer for column x",
		                    (int)bad->len, bad->p);
	}
	for (size_t i = 0; i < r->ncolumns; i++) {
		if (i)
			rk_buf_putc(&r->out, '|');
		if (f[i].null)
			rk_buf_puts(&r->out, "<null>");
		else
			rk_buf_append(&r->out, f[i].p, f[i].len);
	}
	rk_buf_putc(&r->out, '\n');
	return 0;
}

/* Opens path with the options, binds cols (comma-separated), scans; fills r. */
static void scan_path(run *r, const char *path, char delim, const char *null_marker, const char *cols, int fail_row,
                      int fail_field)
{
	rk_reader_opts o = { .side = "source", .conn = NULL, .table = NULL };
	char delim_s[2] = { delim, 0 };
	const char *names[16];
	rk_type types[16];
	char buf[256];
	void *impl;
	rk_scan sc = { 0 };

	memset(r, 0, sizeof *r);
	rk_error_clear(&r->err);
	r->fail_row = fail_row;
	r->fail_field = fail_field;
	snprintf(buf, sizeof buf, "%s", cols);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
		names[r->ncolumns++] = tok;
	for (size_t i = 0; i < r->ncolumns; i++)
		types[i] = RK_T_INT4;

	rk_reader_setting_add(&o, "csv-delimiter", delim_s);
	rk_reader_setting_add(&o, "csv-null", null_marker);
	r->rc = -1;
	impl = rk_csvreader_open(&o, path, &r->err);
	if (!impl)
		return;
	if (rk_csvreader_ops.bind(impl, names, r->ncolumns, types, &r->err) == 0) {
		for (size_t i = 0; i < r->ncolumns; i++)
			assert_int_equal(types[i], RK_T_UNKNOWN);
		r->rc = rk_csvreader_ops.scan(impl, &sc, collect_row, r, &r->err);
	}
	rk_csvreader_ops.free(impl);
}

static void run_done(run *r)
{
	rk_buf_free(&r->out);
}

static const char *out(run *r)
{
	return r->out.len ? rk_buf_cstr(&r->out) : "";
}

#define assert_ok(r)                                                    \
	do {                                                            \
		if ((r)->rc != 0)                                       \
			fail_msg("unexpected error: %s", (r)->err.msg); \
	} while (0)

static int setup(void **state)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/rk_csvtest.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Each test gets a fresh directory. */
static int each(void **state)
{
	teardown(state);
	return setup(state);
}

static void test_single_file(void **state)
{
	run r;
	const char *p = put("a.csv", "id,ts,amount\n1,2026-01-01,10\n2,2026-01-02,20\n");

	scan_path(&r, p, 0, NULL, "amount,id", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "10|1\n20|2\n");
	run_done(&r);
}

static void test_directory_name_order_and_column_orders(void **state)
{
	run r;

	assert_int_equal(mkdir(sub("d"), 0700), 0);
	put("d/b.csv", "amount,id\n30,3\n");
	put("d/a.csv", "id,amount,extra\n1,10,x\n2,20,y\n");
	put("d/c.txt", "not,csv\n");
	put("d/.hidden.csv", "junk\n");
	put("d/B.csv", "AMOUNT,Id\n40,4\n"); /* 'B' < 'a' in strcmp order; names case-insensitive */
	scan_path(&r, sub("d"), 0, NULL, "id,amount", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "4|40\n1|10\n2|20\n3|30\n");
	run_done(&r);
}

static void test_directory_missing_column_in_one_file(void **state)
{
	run r;
	char want[512];

	assert_int_equal(mkdir(sub("d"), 0700), 0);
	put("d/1.csv", "id,amount\n1,10\n");
	put("d/2.csv", "id,amt\n2,20\n");
	scan_path(&r, sub("d"), 0, NULL, "id,amount", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	snprintf(want, sizeof want, "source csv file '%s/d/2.csv' has no column 'amount' (its columns: 'id', 'amt')",
	         tmpdir);
	assert_string_equal(r.err.msg, want);
	assert_true(r.err.hint[0] != '\0');
	assert_int_equal(r.rows, 0);
	run_done(&r);
}

static void test_bom(void **state)
{
	run r;
	const char *p = put("bom.csv", "\xEF\xBB\xBFid,name\n1,\xC3\xA9t\xC3\xA9\n");

	scan_path(&r, p, 0, NULL, "id,name", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "1|\xC3\xA9t\xC3\xA9\n");
	run_done(&r);
}

static void test_null_default(void **state)
{
	run r;
	const char *p = put("n.csv", "a,b,c\n,\"\",x\n\\N,NULL,\"\"\n");

	scan_path(&r, p, 0, NULL, "a,b,c", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "<null>||x\n\\N|NULL|\n");
	run_done(&r);
}

static void test_null_marker(void **state)
{
	run r;
	const char *p = put("n.csv", "a,b,c,d\n\\N,\"\\N\",,\"\"\nx\\N,\\Nx, \\N,\\N\n");

	scan_path(&r, p, 0, "\\N", "a,b,c,d", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "<null>|\\N||\nx\\N|\\Nx| \\N|<null>\n");
	run_done(&r);

	p = put("m.csv", "a,b\nNULL,\"NULL\"\n,null\n");
	scan_path(&r, p, 0, "NULL", "a,b", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "<null>|NULL\n|null\n");
	run_done(&r);
}

static void test_quoting_and_non_ascii(void **state)
{
	run r;
	const char *p = put("q.csv",
	                    "id,\"the text\"\n"
	                    "1,\"a,b\"\n"
	                    "2,\"say \"\"hi\"\"\"\n"
	                    "3,\"line1\nline2\r\nline3\"\n"
	                    "4,\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80\n"
	                    "5,  spaced  \n"
	                    "6,\"\"\"\"\n");

	scan_path(&r, p, 0, NULL, "id,the text", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r),
	                    "1|a,b\n"
	                    "2|say \"hi\"\n"
	                    "3|line1\nline2\r\nline3\n"
	                    "4|\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80\n"
	                    "5|  spaced  \n"
	                    "6|\"\n");
	run_done(&r);
}

static void test_crlf_and_no_trailing_newline(void **state)
{
	run r;
	char want[512];
	const char *p = put("crlf.csv", "id,v\r\n1,a\r\n2,\"x\r\ny\"\r\n3,c");

	scan_path(&r, p, 0, NULL, "v,id", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "a|1\nx\r\ny|2\nc|3\n");
	run_done(&r);

	/* line numbers count CRLF once */
	p = put("crlf2.csv", "id,v\r\n1,a\r\n2,\"x\r\ny\"\r\n3\r\n");
	scan_path(&r, p, 0, NULL, "v,id", 0, 0);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want, "%s:5:2: row has 1 field, header has 2", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);
}

static void test_semicolon(void **state)
{
	run r;
	const char *p = put("semi.csv", "id;amount;note\n1;10,5;\"a;b\"\n2;;x\n");

	scan_path(&r, p, ';', NULL, "id,amount,note", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "1|10,5|a;b\n2|<null>|x\n");
	run_done(&r);
}

static void test_wrong_field_count(void **state)
{
	run r;
	char want[512];
	/* the quoted line break makes the bad row start on physical line 5 */
	const char *p = put("w.csv", "a,b,c,d,e\n1,2,3,4,5\n1,\"x\ny\",3,4,5\n1,2,3,4\n");

	scan_path(&r, p, 0, NULL, "a,e", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	snprintf(want, sizeof want, "%s:5:5: row has 4 fields, header has 5", p);
	assert_string_equal(r.err.msg, want);
	assert_int_equal(r.rows, 2);
	run_done(&r);

	p = put("w2.csv", "a,b\n1,2\n1,2,3\n");
	scan_path(&r, p, 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want, "%s:3:3: row has 3 fields, header has 2", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);
}

static void test_blank_lines(void **state)
{
	run r;
	char want[512];
	const char *p;

	/* blank lines at the end are ignored */
	p = put("b1.csv", "a,b\n1,2\n\n\r\n\n");
	scan_path(&r, p, 0, NULL, "a,b", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "1|2\n");
	run_done(&r);

	/* a blank line followed by a row is an error at the blank line */
	p = put("b2.csv", "a,b\n1,2\n\n3,4\n");
	scan_path(&r, p, 0, NULL, "a,b", 0, 0);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want, "%s:3:1: blank line, header has 2 fields", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);

	/* one column: a blank line is a NULL, as PostgreSQL's COPY reads it */
	p = put("b3.csv", "a\n1\n\n\"\"\n2\n");
	scan_path(&r, p, 0, NULL, "a", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "1\n<null>\n\n2\n");
	run_done(&r);

	/* ... and the empty string when a NULL marker is given */
	scan_path(&r, p, 0, "\\N", "a", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "1\n\n\n2\n");
	run_done(&r);
}

static void test_bad_quoting(void **state)
{
	run r;
	char want[512];
	const char *p;

	p = put("bq.csv", "a,b\n1,2\n\"multi\nline\",ab\"c\n");
	scan_path(&r, p, 0, NULL, "a,b", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	snprintf(want, sizeof want,
	         "%s:4:2: bad quoting: a quote inside an unquoted field, or text after a closing quote", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);

	p = put("bq2.csv", "a,b\n1,\"x\ny\"z\n");
	scan_path(&r, p, 0, NULL, "a,b", 0, 0);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want,
	         "%s:3:2: bad quoting: a quote inside an unquoted field, or text after a closing quote", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);

	p = put("bq3.csv", "a,b\n1,2\n3,\"open\nnever closed\n");
	scan_path(&r, p, 0, NULL, "a,b", 0, 0);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want, "%s:3:2: unterminated quoted field: its closing quote is missing", p);
	assert_string_equal(r.err.msg, want);
	assert_int_equal(r.rows, 1);
	run_done(&r);
}

static void test_callback_error_location(void **state)
{
	run r;
	char want[512];
	const char *p = put("cb.csv", "note,id,amount\n\"a\nb\",1,10\nx,2,abc\n");

	/* bound column 1 (amount) is field 3 of the file */
	scan_path(&r, p, 0, NULL, "id,amount", 2, 1);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want, "%s:4:3: value 'abc' is not a valid integer for column x", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);

	/* no field to blame: FILE:LINE of the row */
	scan_path(&r, p, 0, NULL, "id,amount", 2, -1);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want, "%s:4: value '2' is not a valid integer for column x", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);
}

static void test_missing_file_and_empty_dir(void **state)
{
	run r;
	char want[512];

	scan_path(&r, sub("nope.csv"), 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	snprintf(want, sizeof want, "source csv file '%s/nope.csv' does not exist", tmpdir);
	assert_string_equal(r.err.msg, want);
	assert_true(r.err.hint[0] != '\0');
	run_done(&r);

	assert_int_equal(mkdir(sub("empty"), 0700), 0);
	put("empty/readme.txt", "x\n");
	scan_path(&r, sub("empty"), 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	snprintf(want, sizeof want, "source csv directory '%s/empty' holds no *.csv files", tmpdir);
	assert_string_equal(r.err.msg, want);
	run_done(&r);
}

static void test_unreadable_file(void **state)
{
	run r;
	const char *p = put("secret.csv", "a\n1\n");

	if (geteuid() == 0)
		skip(); /* root reads anything */
	assert_int_equal(chmod(p, 0), 0);
	scan_path(&r, p, 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(r.err.msg, "cannot be read"));
	run_done(&r);
}

static void test_empty_file_and_header_only(void **state)
{
	run r;
	char want[512];
	const char *p = put("e.csv", "");

	scan_path(&r, p, 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want, "source csv file '%s' is empty: a header line is required", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);

	p = put("h.csv", "a,b");
	scan_path(&r, p, 0, NULL, "b", 0, 0);
	assert_ok(&r);
	assert_int_equal(r.rows, 0);
	run_done(&r);
}

static void test_duplicate_and_ambiguous_columns(void **state)
{
	run r;
	char want[512];
	const char *p = put("dup.csv", "id,x,id,Amount,AMOUNT\n1,2,3,4,5\n");

	/* an unbound duplicate is harmless */
	scan_path(&r, p, 0, NULL, "x", 0, 0);
	assert_ok(&r);
	run_done(&r);

	scan_path(&r, p, 0, NULL, "id", 0, 0);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want, "source csv file '%s' has column 'id' more than once (fields 1 and 3)", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);

	scan_path(&r, p, 0, NULL, "amount", 0, 0);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want, "column 'amount' is ambiguous in source csv file '%s': it matches 'Amount' and 'AMOUNT'",
	         p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);

	/* the exact spelling wins over case-insensitive ones */
	scan_path(&r, p, 0, NULL, "AMOUNT,Amount,x,x", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), "5|4|2|2\n");
	run_done(&r);
}

/* Rows and fields that straddle the 256 KiB read blocks. */
static void test_large(void **state)
{
	run r;
	rk_buf b = RK_BUF_INIT;
	rk_buf want = RK_BUF_INIT;
	char *bigval = malloc(300000);
	const char *p;

	memset(bigval, 'z', 300000);
	rk_buf_puts(&b, "id,v,pad\n");
	for (int i = 0; i < 40000; i++) {
		rk_buf_printf(&b, "%d,\"v,%d\",padding-padding\n", i, i);
		rk_buf_printf(&want, "%d|v,%d\n", i, i);
	}
	rk_buf_puts(&b, "40000,\"");
	rk_buf_append(&b, bigval, 300000);
	rk_buf_puts(&b, "\",p\n40001,last,p\n");
	rk_buf_puts(&want, "40000|");
	rk_buf_append(&want, bigval, 300000);
	rk_buf_puts(&want, "\n40001|last\n");
	p = put("big.csv", rk_buf_cstr(&b));

	scan_path(&r, p, 0, NULL, "id,v", 0, 0);
	assert_ok(&r);
	assert_int_equal(r.rows, 40002);
	assert_true(r.out.len == want.len && memcmp(r.out.data, want.data, want.len) == 0);
	run_done(&r);
	rk_buf_free(&b);
	rk_buf_free(&want);
	free(bigval);
}

/*
 * Random fields full of spaces, tabs, quotes, delimiters and line breaks,
 * quoted only when they must be or at random: the reader must give back
 * every value exactly (leading and trailing spaces included), across the
 * read blocks and the stretches it hands to libcsv with and without its
 * space function.
 */
static void random_round_trip(char delim)
{
	static const char alphabet[] = "ab  \t,;\"\n\r\xC3\xA9";
	rk_buf csv = RK_BUF_INIT;
	rk_buf want = RK_BUF_INIT;
	const char *p;
	run r;

	srand(42);
	rk_buf_printf(&csv, "x%cy%cz\n", delim, delim);
	for (int row = 0; row < 60000; row++) {
		for (int col = 0; col < 3; col++) {
			char v[16];
			int len = rand() % 8;
			bool null = rand() % 10 == 0;
			bool quote;

			for (int i = 0; i < len; i++)
				v[i] = alphabet[rand() % (sizeof alphabet - 1)];
			quote = !null && (len == 0 || memchr(v, delim, len) || memchr(v, '"', len) ||
			                  memchr(v, '\n', len) || memchr(v, '\r', len) || rand() % 3 == 0);
			if (col)
				rk_buf_putc(&csv, delim);
			if (quote) {
				rk_buf_putc(&csv, '"');
				for (int i = 0; i < len; i++) {
					if (v[i] == '"')
						rk_buf_putc(&csv, '"');
					rk_buf_putc(&csv, v[i]);
				}
				rk_buf_putc(&csv, '"');
			} else if (!null) {
				rk_buf_append(&csv, v, len);
			}
			if (col)
				rk_buf_putc(&want, '|');
			if (null)
				rk_buf_puts(&want, "<null>");
			else
				rk_buf_append(&want, v, len);
		}
		rk_buf_puts(&csv, rand() % 4 ? "\n" : "\r\n");
		rk_buf_putc(&want, '\n');
	}
	assert_true(csv.len > 3 * 256 * 1024);
	p = put("random.csv", rk_buf_cstr(&csv));
	scan_path(&r, p, delim, NULL, "x,y,z", 0, 0);
	assert_ok(&r);
	assert_int_equal(r.rows, 60000);
	assert_int_equal(r.out.len, want.len);
	assert_memory_equal(r.out.data, want.data, want.len);
	run_done(&r);
	rk_buf_free(&csv);
	rk_buf_free(&want);
}

static void test_random_round_trip(void **state)
{
	random_round_trip(',');
	random_round_trip('\t');
	random_round_trip(';');
}

static void test_spaces_kept(void **state)
{
	run r;
	char want[512];
	const char *p = put("sp.csv", " a , b ,\t\n  ,\" q \", \n");

	scan_path(&r, p, 0, NULL, "a,b,", 0, 0);
	assert_int_equal(r.rc, -1); /* header " a " has no column 'a' */
	run_done(&r);

	p = put("sp2.csv", "a,b,c\n x , y ,\t\n  ,\" q \", \n");
	scan_path(&r, p, 0, NULL, "a,b,c", 0, 0);
	assert_ok(&r);
	assert_string_equal(out(&r), " x | y |\t\n  | q | \n");
	run_done(&r);

	/* a space between a closing quote and the delimiter is bad quoting */
	p = put("sp3.csv", "a,b\n\"x\" ,y\n");
	scan_path(&r, p, 0, NULL, "a,b", 0, 0);
	assert_int_equal(r.rc, -1);
	snprintf(want, sizeof want,
	         "%s:2:1: bad quoting: a quote inside an unquoted field, or text after a closing quote", p);
	assert_string_equal(r.err.msg, want);
	run_done(&r);
}

static void test_describe_and_rescan(void **state)
{
	rk_reader_opts o = { .side = "target", .settings = { { "csv-delimiter", "," } }, .nsettings = 1 };
	const char *names[] = { "b" };
	rk_type types[1];
	rk_scan sc = { 0 };
	const char *p = put("r.csv", "a,b\n1,2\n3,4\n");
	char want[256];
	void *impl;
	run r;

	memset(&r, 0, sizeof r);
	r.ncolumns = 1;
	rk_error_clear(&r.err);
	impl = rk_csvreader_open(&o, p, &r.err);
	assert_non_null(impl);
	snprintf(want, sizeof want, "target csv:%s", p);
	assert_string_equal(rk_csvreader_ops.describe(impl), want);
	assert_int_equal(rk_csvreader_ops.bind(impl, names, 1, types, &r.err), 0);
	assert_int_equal(rk_csvreader_ops.scan(impl, &sc, collect_row, &r, &r.err), 0);
	assert_int_equal(rk_csvreader_ops.scan(impl, &sc, collect_row, &r, &r.err), 0);
	assert_string_equal(out(&r), "2\n4\n2\n4\n");
	run_done(&r);

	/* a header that changes between open and scan is caught */
	put("r.csv", "b,a\n1,2\n");
	assert_int_equal(rk_csvreader_ops.scan(impl, &sc, collect_row, &r, &r.err), -1);
	assert_int_equal(r.err.code, RK_EXIT_RUNTIME);
	assert_non_null(strstr(r.err.msg, "changed while reckon was reading it"));
	run_done(&r);
	rk_csvreader_ops.free(impl);
	rk_csvreader_ops.free(NULL);
}

/* A NUL byte in a header name was cut there silently ("a\0b" named the
 * column "a"); it is an error naming the place.  In data it is a byte. */
static void test_nul_in_header(void **state)
{
	static const char first[] = "a\0b,c\n1,2\n";
	static const char second[] = "a,\"c\0\"\n1,2\n";
	static const char data[] = "a,c\n1,x\0y\n";
	run r;

	scan_path(&r, put_bytes("n1.csv", first, sizeof first - 1), 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(r.err.msg, "n1.csv:1:1: NUL byte in the name of column 1 of the header"));
	run_done(&r);
	scan_path(&r, put_bytes("n2.csv", second, sizeof second - 1), 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_non_null(strstr(r.err.msg, "n2.csv:1:2: NUL byte in the name of column 2"));
	run_done(&r);
	scan_path(&r, put_bytes("n3.csv", data, sizeof data - 1), 0, NULL, "c", 0, 0);
	assert_ok(&r);
	assert_int_equal(r.out.len, 4);
	assert_memory_equal(r.out.data, "x\0y\n", 4);
	run_done(&r);
}

/* csv:/dev/zero grew one field without end; a row longer than 64 MiB is an
 * error naming the file and the limit, while a long row below it is read
 * whole (its field grows across many read blocks). */
static void test_row_limit(void **state)
{
	size_t big = (size_t)5 * 1024 * 1024 + 7;
	char *content = malloc(big + 32);
	run r;
	size_t n;

	scan_path(&r, "/dev/zero", 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(r.err.msg, "/dev/zero:1:1: source csv row longer than 64 MiB"));
	run_done(&r);

	assert_non_null(content);
	n = (size_t)sprintf(content, "a,b\n1,\"");
	memset(content + n, 'x', big);
	n += big;
	n += (size_t)sprintf(content + n, "\"\n2,y\n");
	scan_path(&r, put_bytes("long.csv", content, n), 0, NULL, "a,b", 0, 0);
	assert_ok(&r);
	assert_int_equal(r.rows, 2);
	assert_int_equal(r.out.len, 2 + big + 1 + 4);
	assert_memory_equal(r.out.data + r.out.len - 4, "2|y\n", 4);
	run_done(&r);
	free(content);
}

/* Options and paths at the edges: a delimiter that cannot be one, a path
 * the system cannot resolve, a directory named with a trailing slash and
 * holding a directory named like a csv file, a header that starts with a
 * blank line, a callback that fails without saying how. */
static void test_open_edges(void **state)
{
	rk_reader_opts o = { .side = "target", .settings = { { "csv-delimiter", "\"" } }, .nsettings = 1 };
	char *longpath;
	run r;

	rk_error_clear(&r.err);
	assert_null(rk_csvreader_open(&o, put("q.csv", "a\n"), &r.err));
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	assert_string_equal(r.err.msg, "the csv delimiter cannot be a double quote or a line break");

	/* one name longer than NAME_MAX */
	longpath = malloc(300);
	assert_non_null(longpath);
	memset(longpath, 'x', 299);
	longpath[299] = '\0';
	scan_path(&r, longpath, 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_int_equal(r.err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(r.err.msg, "cannot be read: File name too long"));
	run_done(&r);
	free(longpath);

	assert_int_equal(mkdir(sub("d"), 0700), 0);
	assert_int_equal(mkdir(sub("d/sub.csv"), 0700), 0);
	put("d/a.csv", "a\n1\n");
	{
		char dir[300];

		snprintf(dir, sizeof dir, "%s//", sub("d"));
		scan_path(&r, dir, 0, NULL, "a", 0, 0);
	}
	assert_ok(&r);
	assert_string_equal(out(&r), "1\n");
	run_done(&r);

	scan_path(&r, put("blank.csv", "\na,b\n"), 0, NULL, "a", 0, 0);
	assert_int_equal(r.rc, -1);
	assert_non_null(strstr(r.err.msg, "blank.csv:1:1: blank line where the header line should be"));
	run_done(&r);
}

/* A row callback that returns -1 without an exit code: the error is the
 * input's (2), with the row's place. */
static int fail_silently(void *ctx, const rk_field *f, rk_error *err)
{
	(void)ctx;
	(void)f;
	err->code = 0;
	snprintf(err->msg, sizeof err->msg, "%s", "refused");
	return -1;
}

static void test_callback_without_code(void **state)
{
	rk_reader_opts o = { .side = "source" };
	const char *cols[] = { "a" };
	rk_type types[1];
	rk_scan sc = { 0 };
	rk_error err;
	void *impl;

	rk_error_clear(&err);
	impl = rk_csvreader_open(&o, put("c.csv", "a\n1\n"), &err);
	assert_non_null(impl);
	assert_int_equal(rk_csvreader_ops.bind(impl, cols, 1, types, &err), 0);
	assert_int_equal(rk_csvreader_ops.scan(impl, &sc, fail_silently, NULL, &err), -1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "c.csv:2: refused"));
	rk_csvreader_ops.free(impl);
}

/* The dispatching layer (io/reader.c) over a CSV side: what a CSV reader
 * has (columns, rows) and what it has not (primary key, snapshot, digests
 * computed by a server). */
static void test_reader_dispatch(void **state)
{
	rk_reader_opts o = { .side = "source", .conn = "csv:" };
	rk_digest_query q = { 0 };
	const char *cols[] = { "b" };
	rk_type types[1];
	char **names = NULL, conn[300];
	size_t n = 9;
	rk_reader *r;
	rk_error err;
	run rr;

	rk_error_clear(&err);
	assert_null(rk_reader_open(&o, &err));
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_string_equal(err.msg, "--source csv: needs a path");

	snprintf(conn, sizeof conn, "csv:%s", put("d.csv", "a,b\n1,2\n"));
	o.conn = conn;
	r = rk_reader_open(&o, &err);
	assert_non_null(r);
	assert_false(rk_reader_has(r, RK_CAP_TYPED));
	assert_false(rk_reader_has(r, RK_CAP_SQL_NAMES));
	assert_false(rk_reader_has(r, RK_CAP_EXPRESSIONS));
	assert_false(rk_reader_has(r, RK_CAP_RANGE_SCAN));
	assert_false(rk_conn_has(conn, RK_CAP_LIBPQ));
	assert_true(rk_conn_has("host=h dbname=d", RK_CAP_LIBPQ | RK_CAP_PUSHDOWN | RK_CAP_RELATION));
	assert_string_equal(rk_conn_noun(conn), "CSV data");
	assert_non_null(strstr(rk_reader_describe(r), "source csv:"));
	assert_null(rk_reader_snapshot(r));
	assert_int_equal(rk_reader_primary_key(r, &names, &n, &err), 0);
	assert_null(names);
	assert_int_equal(n, 0);
	assert_int_equal(rk_reader_columns(r, &names, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[1], "b");
	free(names[0]);
	free(names[1]);
	free(names);
	assert_int_equal(rk_reader_digest(r, &q, collect_row, &rr, &err), 1);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "window digests of CSV data are computed by reckon"));
	memset(&rr, 0, sizeof rr);
	rr.ncolumns = 1;
	assert_int_equal(rk_reader_bind(r, cols, 1, types, &err), 0);
	assert_int_equal(rk_reader_scan(r, &(rk_scan){ 0 }, collect_row, &rr, &err), 0);
	assert_string_equal(out(&rr), "2\n");
	run_done(&rr);
	rk_reader_free(r);
	rk_reader_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_single_file, each),
		cmocka_unit_test_setup(test_directory_name_order_and_column_orders, each),
		cmocka_unit_test_setup(test_directory_missing_column_in_one_file, each),
		cmocka_unit_test_setup(test_bom, each),
		cmocka_unit_test_setup(test_null_default, each),
		cmocka_unit_test_setup(test_null_marker, each),
		cmocka_unit_test_setup(test_quoting_and_non_ascii, each),
		cmocka_unit_test_setup(test_crlf_and_no_trailing_newline, each),
		cmocka_unit_test_setup(test_semicolon, each),
		cmocka_unit_test_setup(test_wrong_field_count, each),
		cmocka_unit_test_setup(test_blank_lines, each),
		cmocka_unit_test_setup(test_bad_quoting, each),
		cmocka_unit_test_setup(test_callback_error_location, each),
		cmocka_unit_test_setup(test_missing_file_and_empty_dir, each),
		cmocka_unit_test_setup(test_unreadable_file, each),
		cmocka_unit_test_setup(test_empty_file_and_header_only, each),
		cmocka_unit_test_setup(test_duplicate_and_ambiguous_columns, each),
		cmocka_unit_test_setup(test_large, each),
		cmocka_unit_test_setup(test_random_round_trip, each),
		cmocka_unit_test_setup(test_spaces_kept, each),
		cmocka_unit_test_setup(test_describe_and_rescan, each),
		cmocka_unit_test_setup(test_nul_in_header, each),
		cmocka_unit_test_setup(test_row_limit, each),
		cmocka_unit_test_setup(test_reader_dispatch, each),
		cmocka_unit_test_setup(test_open_edges, each),
		cmocka_unit_test_setup(test_callback_without_code, each),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
