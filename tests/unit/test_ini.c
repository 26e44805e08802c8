/*
 * test_ini.c - the INI reader of --config and --job (core/ini.c): lines of
 * any length, comments only at the start of a line, values taken
 * literally, a repeated key named with both lines, sections folded and
 * merged.  No server needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/buf.h"
#include "core/ini.h"

static rk_ini *parse(const char *text, rk_error *err)
{
	rk_error_clear(err);
	return rk_ini_parse("t.ini", text, strlen(text), err);
}

static const char *get(const rk_ini *ini, const char *section, const char *key)
{
	const rk_ini_entry *e = rk_ini_get(ini, section, key);

	return e ? e->value : NULL;
}

static void refuse(const char *text, const char *msg)
{
	rk_error err;
	rk_ini *ini = parse(text, &err);

	assert_null(ini);
	assert_int_equal(err.code, RK_EXIT_USAGE);
	assert_string_equal(err.msg, msg);
}

static void test_sections_keys_values(void **state)
{
	rk_error err;
	rk_ini *ini = parse("top = 1\n"
	                    "[reckon]\n"
	                    "  source = host=a dbname=b   \n"
	                    "\n"
	                    "[check]\r\n"
	                    "window=1h\r\n",
	                    &err);

	(void)state;
	assert_non_null(ini);
	assert_string_equal(get(ini, "", "top"), "1");
	assert_string_equal(get(ini, "reckon", "source"), "host=a dbname=b");
	assert_string_equal(get(ini, "check", "window"), "1h");
	assert_null(get(ini, "check", "source"));
	assert_int_equal(ini->nentries, 3);
	assert_int_equal(ini->entries[1].line, 3);
	assert_int_equal(ini->entries[2].line, 6);
	assert_int_equal(ini->nsections, 2);
	assert_string_equal(ini->sections[1].name, "check");
	assert_int_equal(ini->sections[1].line, 5);
	rk_ini_free(ini);
}

/* ';' and '#' begin a comment only as a line's first non-blank character;
 * inside a value they are the value's (a conninfo, SQL). */
static void test_comments_only_at_line_start(void **state)
{
	rk_error err;
	rk_ini *ini = parse("; comment\n"
	                    "   # indented comment\n"
	                    "[t]\n"
	                    "a = x ; not a comment\n"
	                    "b = note <> '#1'\n"
	                    "c = \"Quoted Name\"\n"
	                    "d = k=v=w\n",
	                    &err);

	(void)state;
	assert_non_null(ini);
	assert_int_equal(ini->nentries, 4);
	assert_string_equal(get(ini, "t", "a"), "x ; not a comment");
	assert_string_equal(get(ini, "t", "b"), "note <> '#1'");
	assert_string_equal(get(ini, "t", "c"), "\"Quoted Name\"");
	assert_string_equal(get(ini, "t", "d"), "k=v=w");
	rk_ini_free(ini);
}

/* A line of 100 kB (an SQL filter) is read whole; the packaged inih
 * stopped at 200 bytes. */
static void test_long_lines(void **state)
{
	rk_buf b = RK_BUF_INIT;
	rk_error err;
	rk_ini *ini;

	(void)state;
	rk_buf_puts(&b, "[table big]\nsource-where = id in (");
	for (int i = 0; i < 20000; i++)
		rk_buf_printf(&b, "%s%d", i ? "," : "", i);
	rk_buf_puts(&b, ")\ntime = ts");
	ini = parse(rk_buf_cstr(&b), &err);
	assert_non_null(ini);
	assert_true(strlen(get(ini, "table big", "source-where")) > 100000);
	assert_string_equal(get(ini, "table big", "time"), "ts");
	assert_int_equal(rk_ini_get(ini, "table big", "time")->line, 3);
	rk_ini_free(ini);
	rk_buf_free(&b);
}

static void test_duplicate_key_names_both_lines(void **state)
{
	(void)state;
	refuse("[check]\nwindow = 1h\n\nwindow = 2h\n", "t.ini:4: key 'window' is given twice in [check] (first at line 2)");
	refuse("a = 1\na = 2\n", "t.ini:2: key 'a' is given twice (first at line 1)");
	/* a section given again adds to the first: still the same section */
	refuse("[check]\nwindow = 1h\n[reckon]\n[check]\nwindow = 2h\n",
	       "t.ini:5: key 'window' is given twice in [check] (first at line 2)");
}

static void test_same_key_in_two_sections(void **state)
{
	rk_error err;
	rk_ini *ini = parse("[reckon]\nwindow = 1h\n[check]\nwindow = 2h\n", &err);

	(void)state;
	assert_non_null(ini);
	assert_string_equal(get(ini, "reckon", "window"), "1h");
	assert_string_equal(get(ini, "check", "window"), "2h");
	rk_ini_free(ini);
}

static void test_section_names_folded_and_merged(void **state)
{
	rk_error err;
	rk_ini *ini = parse("[ table   orders ]\nkey = id\n[defaults]\n[table orders]\ntime = ts\n", &err);

	(void)state;
	assert_non_null(ini);
	assert_int_equal(ini->nsections, 2);
	assert_string_equal(ini->sections[0].name, "table orders");
	assert_int_equal(ini->sections[0].line, 1);
	assert_string_equal(get(ini, "table orders", "key"), "id");
	assert_string_equal(get(ini, "table orders", "time"), "ts");
	assert_non_null(rk_ini_section_find(ini, "defaults"));
	assert_null(rk_ini_section_find(ini, "table"));
	rk_ini_free(ini);
}

/* Many sections: each found again by name, a repeated one noted (the
 * lookup is by hash: 100,000 sections once took 45 s) */
static void test_many_sections(void **state)
{
	rk_buf b = RK_BUF_INIT;
	rk_error err;
	rk_ini *ini;

	(void)state;
	for (int i = 0; i < 20000; i++)
		rk_buf_printf(&b, "[table t%d]\nkey = k%d\n", i, i);
	rk_buf_puts(&b, "[table t777]\ntime = ts\n");
	ini = parse(rk_buf_cstr(&b), &err);
	assert_non_null(ini);
	assert_int_equal(ini->nsections, 20000);
	assert_string_equal(get(ini, "table t19999", "key"), "k19999");
	assert_string_equal(get(ini, "table t777", "time"), "ts");
	assert_int_equal(rk_ini_section_find(ini, "table t777")->again, 40001);
	assert_int_equal(rk_ini_section_find(ini, "table t778")->again, 0);
	rk_ini_free(ini);
	rk_buf_free(&b);
}

static void test_malformed_lines(void **state)
{
	rk_error err;
	rk_ini *ini;

	(void)state;
	refuse("[check\n", "t.ini:1: malformed section header '[check'");
	refuse("[]\n", "t.ini:1: malformed section header '[]'");
	refuse("[a]b]\n", "t.ini:1: malformed section header '[a]b]'");
	refuse("ok = 1\njust words\n", "t.ini:2: expected 'key = value', '[section]' or a comment");
	refuse(" = value\n", "t.ini:1: a value without a key");
	ini = rk_ini_parse("t.ini", "a = 1\nb = x\0y\n", 12, &err);
	assert_null(ini);
	assert_string_equal(err.msg, "t.ini:2: a NUL byte in the line");
}

static void test_bom_and_empty(void **state)
{
	rk_error err;
	rk_ini *ini = parse("\xEF\xBB\xBF[check]\nwindow = 1h", &err);

	(void)state;
	assert_non_null(ini);
	assert_string_equal(get(ini, "check", "window"), "1h");
	rk_ini_free(ini);
	ini = parse("", &err);
	assert_non_null(ini);
	assert_int_equal(ini->nentries, 0);
	assert_int_equal(ini->nsections, 0);
	rk_ini_free(ini);
	/* an empty value is a value */
	ini = parse("csv-null =\n", &err);
	assert_non_null(ini);
	assert_string_equal(get(ini, "", "csv-null"), "");
	rk_ini_free(ini);
	rk_ini_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections_keys_values),
		cmocka_unit_test(test_comments_only_at_line_start),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_duplicate_key_names_both_lines),
		cmocka_unit_test(test_same_key_in_two_sections),
		cmocka_unit_test(test_section_names_folded_and_merged),
		cmocka_unit_test(test_many_sections),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_bom_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
