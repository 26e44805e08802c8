/*
 * test_pg_redact.c - the pieces of the PostgreSQL layer that need no server:
 * password redaction of conninfo strings and URIs, the parser of the
 * identifiers users write (--table, --key...), and the COPY text row
 * splitter that is the reader's hot path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libpq-fe.h>

#include "core/buf.h"
#include "io/copytext.h"
#include "io/pg.h"
#include "io/pgident.h"

/* ------------------------------------------------------------------------
 * redaction
 * ---------------------------------------------------------------------- */

static void assert_redacts(const char *in, const char *want, const char *secret)
{
	char out[512];

	rk_pg_redact(in, out, sizeof out);
	assert_string_equal(out, want);
	if (secret)
		assert_null(strstr(out, secret));
}

static void test_redact_keyvalue(void **state)
{
	(void)state;
	assert_redacts("host=db1 port=5432 user=app password=s3cret dbname=shop",
	               "host=db1 port=5432 user=app password=******** dbname=shop", "s3cret");
	assert_redacts("password=s3cret", "password=********", "s3cret");
	assert_redacts("host=db1 PASSWORD=s3cret", "host=db1 PASSWORD=********", "s3cret");
	assert_redacts("host=db1 password = s3cret dbname=shop", "host=db1 password = ******** dbname=shop",
	               "s3cret");
	/* nothing to hide: unchanged */
	assert_redacts("host=db1 dbname=shop user=app", "host=db1 dbname=shop user=app", NULL);
	assert_redacts("", "", NULL);
	assert_redacts("shop", "shop", NULL);
}

static void test_redact_quoted(void **state)
{
	(void)state;
	assert_redacts("host=db1 password='with spaces inside' dbname=shop",
	               "host=db1 password=******** dbname=shop", "spaces");
	assert_redacts("password='it\\'s a secret' host=h", "password=******** host=h", "secret");
	assert_redacts("password='' host=h", "password=******** host=h", NULL);
	/* unterminated: everything after password= is hidden */
	assert_redacts("host=h password='abc def host=x", "host=h password=********", "abc");
	/* escaped blank in an unquoted value */
	assert_redacts("password=abc\\ def host=h", "password=******** host=h", "def");
}

static void test_redact_malformed(void **state)
{
	(void)state;
	/* an unquoted password with a blank: the second word is likely part of it */
	assert_redacts("host=h password=two words dbname=d", "host=h password=******** dbname=d", "words");
	/* misspelled keys libpq refuses (and would quote back) */
	assert_redacts("host=h passwd=s3cret", "host=h passwd=********", "s3cret");
	assert_redacts("host=h pwd=s3cret", "host=h pwd=********", "s3cret");
	assert_redacts("host=h client_secret=s3cret", "host=h client_secret=********", "s3cret");
	/* passfile names a file, not a secret */
	assert_redacts("host=h passfile=/etc/pgpass", "host=h passfile=/etc/pgpass", NULL);
}

static void test_redact_uri(void **state)
{
	(void)state;
	assert_redacts("postgresql://app:s3cret@db1:5432/shop", "postgresql://app:********@db1:5432/shop", "s3cret");
	assert_redacts("postgres://app:s3cret@db1/shop?sslmode=require",
	               "postgres://app:********@db1/shop?sslmode=require", "s3cret");
	assert_redacts("postgresql://app@db1/shop", "postgresql://app@db1/shop", NULL);
	assert_redacts("postgresql://db1:5432/shop", "postgresql://db1:5432/shop", NULL);
	assert_redacts("postgresql://", "postgresql://", NULL);
	assert_redacts("  postgresql://app:s3cret@db1/shop", "  postgresql://app:********@db1/shop", "s3cret");
	/* the scheme in capitals is not a URI to libpq, but still hidden */
	assert_redacts("POSTGRESQL://app:s3cret@db1/shop", "POSTGRESQL://app:********@db1/shop", "s3cret");
	/* empty password */
	assert_redacts("postgresql://app:@db1/shop", "postgresql://app:********@db1/shop", NULL);
}

static void test_redact_uri_encoded(void **state)
{
	(void)state;
	assert_redacts("postgresql://app:p%40ss%2Fw%3Ard@db1/shop", "postgresql://app:********@db1/shop", "p%40ss");
	/* an '@' left unencoded in the password: hide up to the last '@' */
	assert_redacts("postgresql://app:p@ss@db1/shop", "postgresql://app:********@db1/shop", "ss@");
	/* multiple hosts */
	assert_redacts("postgresql://app:s3cret@db1:5432,db2:5433/shop",
	               "postgresql://app:********@db1:5432,db2:5433/shop", "s3cret");
}

static void test_redact_uri_param(void **state)
{
	(void)state;
	assert_redacts("postgresql://db1/shop?password=s3cret", "postgresql://db1/shop?password=********", "s3cret");
	assert_redacts("postgresql://db1/shop?user=app&password=s3cret&sslmode=require",
	               "postgresql://db1/shop?user=app&password=********&sslmode=require", "s3cret");
	/* a percent-encoded key is still the password */
	assert_redacts("postgresql://db1/shop?pass%77ord=s3cret", "postgresql://db1/shop?pass%77ord=********",
	               "s3cret");
	assert_redacts("postgresql://db1/shop?PASSWORD=s3cret", "postgresql://db1/shop?PASSWORD=********", "s3cret");
	/* both forms at once */
	assert_redacts("postgresql://app:one1@db1/shop?password=two2", "postgresql://app:********@db1/shop?password=********",
	               "two2");
	assert_redacts("postgresql://db1/shop?sslmode=require", "postgresql://db1/shop?sslmode=require", NULL);
}

/* The secrets are libpq's own: every keyword PQconndefaults() marks with
 * dispchar "*" (password, sslpassword, ...) is hidden, in a conninfo and in a
 * URI, and every other keyword it knows is shown. */
static void test_redact_libpq_secrets(void **state)
{
	PQconninfoOption *opts = PQconndefaults();
	size_t nsecret = 0;

	(void)state;
	assert_non_null(opts);
	for (const PQconninfoOption *o = opts; o->keyword; o++) {
		bool secret = o->dispchar && strchr(o->dispchar, '*');
		char in[256], want[256];

		snprintf(in, sizeof in, "host=h %s=s3cret dbname=d", o->keyword);
		snprintf(want, sizeof want, "host=h %s=%s dbname=d", o->keyword, secret ? "********" : "s3cret");
		assert_redacts(in, want, secret ? "s3cret" : NULL);
		snprintf(in, sizeof in, "postgresql://db1/shop?%s=s3cret&port=5", o->keyword);
		snprintf(want, sizeof want, "postgresql://db1/shop?%s=%s&port=5", o->keyword, secret ? "********" : "s3cret");
		assert_redacts(in, want, secret ? "s3cret" : NULL);
		nsecret += secret;
	}
	PQconninfoFree(opts);
	assert_true(nsecret >= 2);
	/* the one the name pattern missed, spelled out */
	assert_redacts("host=db1 sslpassword=s3cret sslkey=/k.pem", "host=db1 sslpassword=******** sslkey=/k.pem", "s3cret");
	assert_redacts("postgresql://app@db1/shop?sslpassword=s3cret", "postgresql://app@db1/shop?sslpassword=********",
	               "s3cret");
	/* the URI's ssl=true alias is not a secret */
	assert_redacts("postgresql://db1/shop?ssl=true", "postgresql://db1/shop?ssl=true", NULL);
}

static void test_redact_truncated(void **state)
{
	char out[16];

	(void)state;
	rk_pg_redact("host=db1 password=s3cret dbname=shop", out, sizeof out);
	assert_int_equal(strlen(out), sizeof out - 1);
	assert_null(strstr(out, "s3c"));
	rk_pg_redact("postgresql://a:s3cret@h/d", out, 1);
	assert_string_equal(out, "");
	rk_pg_redact(NULL, out, sizeof out);
	assert_string_equal(out, "");
}

/* ------------------------------------------------------------------------
 * identifiers
 * ---------------------------------------------------------------------- */

static void assert_ident(const char *in, size_t maxparts, size_t n, const char *p0, const char *p1)
{
	char *parts[2] = { NULL, NULL };
	size_t got = 99;
	const char *why = NULL;

	assert_int_equal(rk_pgident_parse(in, parts, maxparts, &got, &why), 0);
	assert_int_equal(got, n);
	assert_string_equal(parts[0], p0);
	if (n > 1)
		assert_string_equal(parts[1], p1);
	free(parts[0]);
	free(parts[1]);
}

static void assert_ident_bad(const char *in, size_t maxparts)
{
	char *parts[2] = { NULL, NULL };
	size_t got = 99;
	const char *why = NULL;

	assert_int_equal(rk_pgident_parse(in, parts, maxparts, &got, &why), -1);
	assert_non_null(why);
	assert_int_equal(got, 0);
	assert_null(parts[0]);
	assert_null(parts[1]);
}

static void test_ident_plain(void **state)
{
	(void)state;
	assert_ident("orders", 2, 1, "orders", NULL);
	assert_ident("Orders", 2, 1, "orders", NULL);
	assert_ident("mart.orders", 2, 2, "mart", "orders");
	assert_ident("MART.Orders", 2, 2, "mart", "orders");
	assert_ident(" mart . orders ", 2, 2, "mart", "orders");
	assert_ident("order_id", 1, 1, "order_id", NULL);
	assert_ident("ÄBC", 1, 1, "Äbc", NULL); /* only ASCII folds, as in the server */
}

static void test_ident_quoted(void **state)
{
	(void)state;
	assert_ident("\"My Table\"", 2, 1, "My Table", NULL);
	assert_ident("\"s\".\"t.x\"", 2, 2, "s", "t.x");
	assert_ident("Mart.\"Orders\"", 2, 2, "mart", "Orders");
	assert_ident("\"Mart\".orders", 2, 2, "Mart", "orders");
	assert_ident("\"a\"\"b\"", 1, 1, "a\"b", NULL);
	assert_ident("\"\"\"\"", 1, 1, "\"", NULL);
	assert_ident("\"x\" . \"y\"", 2, 2, "x", "y");
}

static void test_ident_errors(void **state)
{
	(void)state;
	assert_ident_bad("", 2);
	assert_ident_bad("   ", 2);
	assert_ident_bad("mart.", 2);
	assert_ident_bad(".orders", 2);
	assert_ident_bad("a.b.c", 2);
	assert_ident_bad("t.col", 1);
	assert_ident_bad("\"unterminated", 2);
	assert_ident_bad("\"\"", 2);
	assert_ident_bad("my table", 2);
	assert_ident_bad("a\"b\"", 2);
	assert_ident_bad("\"a\"b", 2);
	assert_ident_bad("\"s\".\"t\"x", 2);
}

static void test_ident_truncate(void **state)
{
	char in[128], want[128];

	(void)state;
	memset(in, 'A', 70);
	in[70] = '\0';
	memset(want, 'a', 63);
	want[63] = '\0';
	assert_ident(in, 1, 1, want, NULL);
	/* never in the middle of a UTF-8 character: 62 bytes + a 2-byte one */
	memset(in, 'a', 62);
	strcpy(in + 62, "é");
	memset(want, 'a', 62);
	want[62] = '\0';
	assert_ident(in, 1, 1, want, NULL);
}

static void assert_display(const char *name, const char *want)
{
	rk_buf b = RK_BUF_INIT;

	rk_pgident_display(&b, name);
	assert_string_equal(rk_buf_cstr(&b), want);
	rk_buf_free(&b);
}

static void test_ident_display(void **state)
{
	(void)state;
	assert_display("orders", "orders");
	assert_display("order_2", "order_2");
	assert_display("My Table", "\"My Table\"");
	assert_display("Orders", "\"Orders\"");
	assert_display("t.x", "\"t.x\"");
	assert_display("a\"b", "\"a\"\"b\"");
	assert_display("1abc", "\"1abc\"");
}

/* ------------------------------------------------------------------------
 * COPY text rows
 * ---------------------------------------------------------------------- */

static void assert_field(const rk_field *f, const char *want, size_t len)
{
	if (!want) {
		assert_true(f->null);
		return;
	}
	assert_false(f->null);
	assert_int_equal(f->len, len);
	assert_memory_equal(f->p, want, len);
}

#define ROW(s) (s), (sizeof(s) - 1)
#define FIELD(f, s) assert_field((f), (s), sizeof(s) - 1)

static void test_copy_plain(void **state)
{
	rk_field f[4];
	rk_buf scratch = RK_BUF_INIT;
	const char *why;
	static const char row[] = "1\tabc\t\\N\t2026-03-02 10:58:00+00";

	(void)state;
	assert_int_equal(rk_copytext_split(ROW(row), f, 4, &scratch, &why), 0);
	FIELD(&f[0], "1");
	FIELD(&f[1], "abc");
	assert_field(&f[2], NULL, 0);
	FIELD(&f[3], "2026-03-02 10:58:00+00");
	/* fields without escapes point into the row: nothing was copied */
	assert_ptr_equal(f[1].p, row + 2);
	assert_null(scratch.data);

	assert_int_equal(rk_copytext_split(ROW(""), f, 1, &scratch, &why), 0);
	FIELD(&f[0], "");
	assert_int_equal(rk_copytext_split(ROW("\t"), f, 2, &scratch, &why), 0);
	FIELD(&f[0], "");
	FIELD(&f[1], "");
	assert_int_equal(rk_copytext_split(ROW("\\N"), f, 1, &scratch, &why), 0);
	assert_field(&f[0], NULL, 0);
	assert_int_equal(rk_copytext_split(ROW("\\N\t\\N"), f, 2, &scratch, &why), 0);
	assert_field(&f[0], NULL, 0);
	assert_field(&f[1], NULL, 0);
	rk_buf_free(&scratch);
}

static void test_copy_escapes(void **state)
{
	rk_field f[4];
	rk_buf scratch = RK_BUF_INIT;
	const char *why;

	(void)state;
	assert_int_equal(rk_copytext_split(ROW("a\\tb\tc\\\\d\t\\n\tx\\b\\f\\r\\v"), f, 4, &scratch, &why), 0);
	FIELD(&f[0], "a\tb");
	FIELD(&f[1], "c\\d");
	FIELD(&f[2], "\n");
	FIELD(&f[3], "x\b\f\r\v");
	/* octal and hex; a non-hex after \x is a plain x */
	assert_int_equal(rk_copytext_split(ROW("\\101\\0\\7x\t\\x41\\x4a\\xz\t\\1012"), f, 3, &scratch, &why), 0);
	FIELD(&f[0], "A\0\7x");
	FIELD(&f[1], "AJxz");
	FIELD(&f[2], "A2");
	/* \N is NULL only as a whole field; elsewhere N stands for itself */
	assert_int_equal(rk_copytext_split(ROW("a\\Nb\t\\Nx\t\\N\\N\t\\\\N"), f, 4, &scratch, &why), 0);
	FIELD(&f[0], "aNb");
	FIELD(&f[1], "Nx");
	FIELD(&f[2], "NN");
	FIELD(&f[3], "\\N");
	/* a backslash before a real tab escapes it */
	assert_int_equal(rk_copytext_split(ROW("a\\\tb\tc"), f, 2, &scratch, &why), 0);
	FIELD(&f[0], "a\tb");
	FIELD(&f[1], "c");
	rk_buf_free(&scratch);
}

/* The writer: what it escapes, and a round trip through the splitter. */
static void test_copy_put(void **state)
{
	static const char v[] = "a\tb\\c\nd\re\bf";
	rk_buf b = RK_BUF_INIT, scratch = RK_BUF_INIT;
	rk_field f[3];
	const char *why;

	(void)state;
	rk_copytext_put(&b, v, sizeof v - 1);
	rk_buf_putc(&b, '\t');
	rk_copytext_put(&b, NULL, 0);
	rk_buf_putc(&b, '\t');
	rk_copytext_put(&b, "", 0);
	assert_string_equal(rk_buf_cstr(&b), "a\\tb\\\\c\\nd\\re\bf\t\\N\t");
	assert_int_equal(rk_copytext_split(b.data, b.len, f, 3, &scratch, &why), 0);
	assert_field(&f[0], v, sizeof v - 1);
	assert_field(&f[1], NULL, 0);
	assert_field(&f[2], "", 0);
	rk_buf_free(&b);
	rk_buf_free(&scratch);
}

static void test_copy_errors(void **state)
{
	rk_field f[3];
	rk_buf scratch = RK_BUF_INIT;
	const char *why = NULL;

	(void)state;
	assert_int_equal(rk_copytext_split(ROW("1\t2\t3"), f, 2, &scratch, &why), -1);
	assert_non_null(why);
	why = NULL;
	assert_int_equal(rk_copytext_split(ROW("1\t2"), f, 3, &scratch, &why), -1);
	assert_non_null(why);
	why = NULL;
	assert_int_equal(rk_copytext_split(ROW("abc\\"), f, 1, &scratch, &why), -1);
	assert_non_null(why);
	rk_buf_free(&scratch);
}

/* PostgreSQL's CopyAttributeOutText, for the round trip below. */
static void copy_encode(rk_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = NULL;

		switch (c) {
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\v': e = "\\v"; break;
		case '\\': e = "\\\\"; break;
		default: break;
		}
		if (e)
			rk_buf_puts(b, e);
		else
			rk_buf_putc(b, (char)c);
	}
}

/*
 * Random rows through encode + split: every field length around the 8-byte
 * steps of the scanner, every separator position, escapes near the ends,
 * earlier decoded fields still intact after later ones, scratch reused.
 */
static void test_copy_roundtrip(void **state)
{
	enum { NF = 7,
	       ROUNDS = 20000 };
	static const char alphabet[] = "ab\t\\\nN\r01x\b\f\v7Z";
	char val[NF][40];
	size_t len[NF];
	bool null[NF];
	rk_field f[NF];
	rk_buf row = RK_BUF_INIT, scratch = RK_BUF_INIT;
	const char *why;
	uint32_t seed = 12345;

	(void)state;
	for (int r = 0; r < ROUNDS; r++) {
		rk_buf_reset(&row);
		for (int i = 0; i < NF; i++) {
			seed = seed * 1103515245u + 12345u;
			null[i] = (seed >> 16) % 9 == 0;
			seed = seed * 1103515245u + 12345u;
			/* up to 39 bytes: fields that span 16-byte (SSE2) and
			 * 8-byte (SWAR) blocks and end in their tails */
			len[i] = (seed >> 16) % 40;
			for (size_t k = 0; k < len[i]; k++) {
				seed = seed * 1103515245u + 12345u;
				/* mostly plain letters, so long runs happen */
				val[i][k] = (seed >> 16) % 4 ? (char)('c' + (seed >> 20) % 20)
				                             : alphabet[(seed >> 18) % (sizeof alphabet - 1)];
			}
			if (i)
				rk_buf_putc(&row, '\t');
			if (null[i])
				rk_buf_puts(&row, "\\N");
			else
				copy_encode(&row, val[i], len[i]);
		}
		assert_int_equal(rk_copytext_split(row.data, row.len, f, NF, &scratch, &why), 0);
		for (int i = 0; i < NF; i++) {
			assert_int_equal(f[i].null, null[i]);
			if (!null[i]) {
				assert_int_equal(f[i].len, len[i]);
				assert_memory_equal(f[i].p, val[i], len[i]);
			}
		}
	}
	rk_buf_free(&row);
	rk_buf_free(&scratch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redact_keyvalue),
		cmocka_unit_test(test_redact_quoted),
		cmocka_unit_test(test_redact_malformed),
		cmocka_unit_test(test_redact_uri),
		cmocka_unit_test(test_redact_uri_encoded),
		cmocka_unit_test(test_redact_uri_param),
		cmocka_unit_test(test_redact_libpq_secrets),
		cmocka_unit_test(test_redact_truncated),
		cmocka_unit_test(test_ident_plain),
		cmocka_unit_test(test_ident_quoted),
		cmocka_unit_test(test_ident_errors),
		cmocka_unit_test(test_ident_truncate),
		cmocka_unit_test(test_ident_display),
		cmocka_unit_test(test_copy_plain),
		cmocka_unit_test(test_copy_escapes),
		cmocka_unit_test(test_copy_put),
		cmocka_unit_test(test_copy_errors),
		cmocka_unit_test(test_copy_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
