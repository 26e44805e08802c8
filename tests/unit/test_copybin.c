/*
 * test_copybin.c - the binary COPY decoder, without a server: streams built
 * here byte by byte as PostgreSQL's send functions write them, fed whole
 * and cut at every position; numerics from their base-10000 digits against
 * the canonical encoding of their text; the errors a damaged stream gets.
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
#include "core/canon.h"
#include "core/digest.h"
#include "io/copybin.h"

/* ------------------------------------------------------------------------
 * building a stream
 * ---------------------------------------------------------------------- */

static void put16(rk_buf *b, uint16_t v)
{
	unsigned char x[2] = { (unsigned char)(v >> 8), (unsigned char)v };

	rk_buf_append(b, x, 2);
}

static void put32(rk_buf *b, uint32_t v)
{
	put16(b, (uint16_t)(v >> 16));
	put16(b, (uint16_t)v);
}

static void put64(rk_buf *b, uint64_t v)
{
	put32(b, (uint32_t)(v >> 32));
	put32(b, (uint32_t)v);
}

static void put_header(rk_buf *b, uint32_t flags, uint32_t ext)
{
	rk_buf_append(b, "PGCOPY\n\377\r\n\0", 11);
	put32(b, flags);
	put32(b, ext);
	for (uint32_t i = 0; i < ext; i++)
		rk_buf_putc(b, 'x');
}

static void put_text(rk_buf *b, const char *s)
{
	put32(b, (uint32_t)strlen(s));
	rk_buf_puts(b, s);
}

/*
 * A numeric as numeric_in and numeric_send make it of decimal text: the
 * digits grouped in fours from the point, weight the first group's power
 * of 10000, dscale the fraction digits written.  With strip, leading and
 * trailing zero groups go (as the server stores them); without, they stay
 * (a layout the decoder must take as well).  extra adds a group of stored
 * digits past dscale (which numeric_out does not print).
 */
static void put_numeric(rk_buf *b, const char *text, bool strip, int extra)
{
	bool neg = text[0] == '-';
	const char *p = text + neg, *dot = strchr(p, '.');
	size_t nint = dot ? (size_t)(dot - p) : strlen(p);
	size_t nfrac = dot ? strlen(dot + 1) : 0;
	char digits[512];
	size_t lead = (4 - nint % 4) % 4, nd, ng, g0 = 0, g1;
	int16_t groups[160];
	int weight;

	/* pad the integer digits on the left to a multiple of 4, the fraction
	 * on the right */
	memset(digits, '0', sizeof digits);
	memcpy(digits + lead, p, nint);
	if (nfrac)
		memcpy(digits + lead + nint, dot + 1, nfrac);
	nd = lead + nint + nfrac;
	nd += (4 - nd % 4) % 4;
	ng = nd / 4;
	for (size_t i = 0; i < ng; i++) {
		groups[i] = 0;
		for (size_t k = 0; k < 4; k++)
			groups[i] = (int16_t)(groups[i] * 10 + (digits[4 * i + k] - '0'));
	}
	if (extra)
		groups[ng++] = (int16_t)extra;
	weight = (int)((lead + nint) / 4) - 1;
	g1 = ng;
	if (strip) {
		while (g0 < ng && groups[g0] == 0) {
			g0++;
			weight--;
		}
		while (g1 > g0 && groups[g1 - 1] == 0)
			g1--;
		if (g0 == g1)
			weight = 0;
	}
	put32(b, (uint32_t)(8 + 2 * (g1 - g0)));
	put16(b, (uint16_t)(g1 - g0));
	put16(b, (uint16_t)(int16_t)weight);
	put16(b, neg ? 0x4000 : 0x0000);
	put16(b, (uint16_t)nfrac);
	for (size_t i = g0; i < g1; i++)
		put16(b, (uint16_t)groups[i]);
}

/* ------------------------------------------------------------------------
 * collecting rows: each as its fields' forms and canonical encodings
 * ---------------------------------------------------------------------- */

typedef struct collect {
	const rk_type *types;
	rk_buf out;
	int rows;
	int fail_at; /* the callback fails on this row (1-based), 0 never */
} collect;

static int collect_row(void *ctx, const rk_field *f, rk_error *err)
{
	collect *c = ctx;
	rk_buf mine = RK_BUF_INIT;
	const char *why;

	c->rows++;
	if (c->fail_at == c->rows)
		return rk_error_set(err, RK_EXIT_RUNTIME, "stop at row %d", c->rows);
	for (size_t i = 0; c->types[i] != RK_T_UNKNOWN; i++) {
		/* the decoder's encoding, made again from the decoded value */
		rk_buf_reset(&mine);
		if (f[i].null) {
			rk_canon_enc_null(&mine);
		} else if (f[i].form == RK_FORM_INT) {
			rk_canon_enc_int64(&mine, (int64_t)f[i].m);
		} else if (f[i].form == RK_FORM_INSTANT && f[i].m > (rk_wusec)RK_USEC_LAST) {
			/* PostgreSQL's last 30 years: a wide instant */
			rk_canon_enc_instant_wide(&mine, f[i].m);
		} else if (f[i].form == RK_FORM_INSTANT) {
			rk_sec_digits sc = { 0 };

			rk_canon_enc_instant(&mine, &sc, (int64_t)f[i].m);
		} else if (f[i].form == RK_FORM_CANON) {
			rk_canon_enc_raw(&mine, f[i].p, f[i].len);
		} else {
			assert_int_equal(rk_canon_enc_value(c->types[i], f[i].p, f[i].len, &mine, &why), 0);
		}
		assert_non_null(f[i].enc);
		assert_int_equal(f[i].enc_len, mine.len);
		assert_memory_equal(f[i].enc, mine.data, mine.len);
		/* one field's encoding follows the other's */
		if (i > 0)
			assert_ptr_equal(f[i].enc, f[i - 1].enc + f[i - 1].enc_len);
		rk_buf_printf(&c->out, "%d:", f[i].form);
		rk_buf_append(&c->out, f[i].enc, f[i].enc_len);
		rk_buf_putc(&c->out, '|');
	}
	rk_buf_putc(&c->out, '\n');
	rk_buf_free(&mine);
	return 0;
}

/* The canonical encodings of text values, in the same layout. */
static void expect_text_row(rk_buf *b, const rk_type *types, const int *forms, const char *const *texts)
{
	const char *why;

	for (size_t i = 0; types[i] != RK_T_UNKNOWN; i++) {
		rk_buf_printf(b, "%d:", forms[i]);
		if (!texts[i])
			rk_canon_enc_null(b);
		else
			assert_int_equal(rk_canon_enc_value(types[i], texts[i], strlen(texts[i]), b, &why), 0);
		rk_buf_putc(b, '|');
	}
	rk_buf_putc(b, '\n');
}

/* Feeds s in chunks of at most step bytes; returns the last feed's result. */
static int feed_chunks(rk_copybin *d, const rk_buf *s, size_t cut, size_t step, collect *c, const char **why)
{
	rk_error err = { 0 };
	size_t at = 0;
	int rc = 0;

	if (cut) {
		rc = rk_copybin_feed(d, s->data, cut, collect_row, c, &err, why);
		at = cut;
	}
	while (rc == 0 && at < s->len) {
		size_t n = s->len - at < step ? s->len - at : step;

		rc = rk_copybin_feed(d, s->data + at, n, collect_row, c, &err, why);
		at += n;
	}
	return rc;
}

/* ------------------------------------------------------------------------
 * tests
 * ---------------------------------------------------------------------- */

static const rk_wire row_wires[] = { RK_WIRE_INT8, RK_WIRE_TIMESTAMP, RK_WIRE_NUMERIC, RK_WIRE_TEXT,
	                             RK_WIRE_INT2, RK_WIRE_INT4, RK_WIRE_BOOL, RK_WIRE_DATE,
	                             RK_WIRE_FLOAT4, RK_WIRE_FLOAT8, RK_WIRE_UUID, RK_WIRE_TEXT };
static const rk_type row_types[] = { RK_T_INT8, RK_T_TIMESTAMPTZ, RK_T_NUMERIC, RK_T_TEXT, RK_T_INT2,
	                             RK_T_INT4, RK_T_BOOL, RK_T_DATE, RK_T_FLOAT4, RK_T_FLOAT8,
	                             RK_T_UUID, RK_T_BPCHAR, RK_T_UNKNOWN };
#define NCOLS 12

/* 2026-03-02 00:00:01.5+00 in PostgreSQL's microseconds since 2000 */
#define TS_2026 INT64_C(825724801500000)

static void build_stream(rk_buf *s, rk_buf *want)
{
	static const int forms1[NCOLS] = { RK_FORM_INT, RK_FORM_INSTANT, RK_FORM_CANON, RK_FORM_TEXT,
		                           RK_FORM_INT, RK_FORM_INT, RK_FORM_TEXT, RK_FORM_CANON,
		                           RK_FORM_CANON, RK_FORM_CANON, RK_FORM_CANON, RK_FORM_TEXT };
	static const int forms2[NCOLS] = { RK_FORM_TEXT, RK_FORM_TEXT, RK_FORM_TEXT, RK_FORM_TEXT,
		                           RK_FORM_INT, RK_FORM_INT, RK_FORM_TEXT, RK_FORM_TEXT,
		                           RK_FORM_TEXT, RK_FORM_CANON, RK_FORM_TEXT, RK_FORM_TEXT };
	static const int forms3[NCOLS] = { RK_FORM_INT, RK_FORM_TEXT, RK_FORM_TEXT, RK_FORM_TEXT,
		                           RK_FORM_INT, RK_FORM_INT, RK_FORM_TEXT, RK_FORM_CANON,
		                           RK_FORM_CANON, RK_FORM_CANON, RK_FORM_CANON, RK_FORM_TEXT };
	const char *row1[NCOLS] = { "-9223372036854775808", "2026-03-02 00:00:01.5+00", "-1234567.80",
		                    "tab\there\\ and \xc3\xa9", "-32768", "2147483647", "t", "2026-03-02",
		                    "0.1", "1.5", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "ab  " };
	const char *row2[NCOLS] = { NULL, "infinity", "NaN", "", "0", "-1", "f", NULL,
		                    NULL, "NaN", NULL, NULL };
	const char *row3[NCOLS] = { "42", "-infinity", "Infinity", "x", "7", "8", "t", "1999-12-31 BC",
		                    "-0", "-Infinity", "00000000-0000-0000-0000-000000000000", "" };
	static const unsigned char uuid1[16] = { 0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8,
		                                 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11 };
	static const unsigned char uuid0[16] = { 0 };

	put_header(s, 0, 3);
	/* row 1: every wire with a value */
	put16(s, NCOLS);
	put32(s, 8);
	put64(s, (uint64_t)INT64_MIN);
	put32(s, 8);
	put64(s, (uint64_t)TS_2026);
	put_numeric(s, "-1234567.80", true, 0);
	put_text(s, "tab\there\\ and \xc3\xa9");
	put32(s, 2);
	put16(s, (uint16_t)INT16_MIN);
	put32(s, 4);
	put32(s, (uint32_t)INT32_MAX);
	put32(s, 1);
	rk_buf_putc(s, 1);
	put32(s, 4);
	put32(s, 9557); /* 2026-03-02, days since 2000-01-01 */
	put32(s, 4);
	put32(s, 0x3dcccccdu); /* 0.1 as a real */
	put32(s, 8);
	put64(s, UINT64_C(0x3ff8000000000000));
	put32(s, 16);
	rk_buf_append(s, uuid1, 16);
	put_text(s, "ab  ");
	/* row 2: NULLs, infinity, NaN, the empty text */
	put16(s, NCOLS);
	put32(s, UINT32_MAX);
	put32(s, 8);
	put64(s, (uint64_t)INT64_MAX);
	put32(s, 8);
	put16(s, 0);
	put16(s, 0);
	put16(s, 0xC000);
	put16(s, 0);
	put_text(s, "");
	put32(s, 2);
	put16(s, 0);
	put32(s, 4);
	put32(s, UINT32_MAX);
	put32(s, 1);
	rk_buf_putc(s, 0);
	put32(s, UINT32_MAX);
	put32(s, UINT32_MAX);
	put32(s, 8);
	put64(s, UINT64_C(0x7ff8000000000001)); /* a NaN with another payload */
	put32(s, UINT32_MAX);
	put32(s, UINT32_MAX);
	/* row 3: the other infinities */
	put16(s, NCOLS);
	put32(s, 8);
	put64(s, 42);
	put32(s, 8);
	put64(s, (uint64_t)INT64_MIN);
	put32(s, 8);
	put16(s, 0);
	put16(s, 0);
	put16(s, 0xD000);
	put16(s, 0);
	put_text(s, "x");
	put32(s, 2);
	put16(s, 7);
	put32(s, 4);
	put32(s, 8);
	put32(s, 1);
	rk_buf_putc(s, 1);
	put32(s, 4);
	put32(s, (uint32_t)-1459875); /* 1999-12-31 BC */
	put32(s, 4);
	put32(s, 0x80000000u); /* -0 */
	put32(s, 8);
	put64(s, UINT64_C(0xfff0000000000000));
	put32(s, 16);
	rk_buf_append(s, uuid0, 16);
	put_text(s, "");
	put16(s, 0xFFFF);
	expect_text_row(want, row_types, forms1, row1);
	expect_text_row(want, row_types, forms2, row2);
	expect_text_row(want, row_types, forms3, row3);
}

/* PostgreSQL's timestamps after an int64 since 1970 ends (microseconds
 * since 2000 reach 30 years further) are wide instants, encoded as the
 * text parser encodes their text, for a timestamp and a timestamptz. */
static void test_timestamps_past_int64(void **state)
{
	static const rk_wire wires[] = { RK_WIRE_TIMESTAMP, RK_WIRE_TIMESTAMP };
	static const rk_type types[] = { RK_T_TIMESTAMPTZ, RK_T_TIMESTAMP, RK_T_UNKNOWN };
	static const int forms[] = { RK_FORM_INSTANT, RK_FORM_INSTANT };
	static const struct {
		int64_t pg; /* since 2000 */
		const char *tz, *ts;
	} cases[] = {
		{ INT64_MAX - RK_PG_EPOCH_USEC - 1, "294247-01-10 04:00:54.775806+00", "294247-01-10 04:00:54.775806" },
		{ INT64_MAX - RK_PG_EPOCH_USEC, "294247-01-10 04:00:54.775807+00", "294247-01-10 04:00:54.775807" },
		{ INT64_C(9223371331199999999), "294276-12-31 23:59:59.999999+00", "294276-12-31 23:59:59.999999" },
		{ INT64_C(-211813488000000000), "4714-11-24 00:00:00+00 BC", "4714-11-24 00:00:00 BC" },
	};
	rk_buf s = RK_BUF_INIT, want = RK_BUF_INIT;
	collect c = { .types = types, .out = RK_BUF_INIT };
	rk_copybin d;
	const char *why = NULL;
	rk_error err = { 0 };

	(void)state;
	put_header(&s, 0, 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *texts[] = { cases[i].tz, cases[i].ts };

		put16(&s, 2);
		put32(&s, 8);
		put64(&s, (uint64_t)cases[i].pg);
		put32(&s, 8);
		put64(&s, (uint64_t)cases[i].pg);
		expect_text_row(&want, types, forms, texts);
	}
	put16(&s, 0xFFFF);
	rk_copybin_init(&d, wires, types, 2);
	assert_int_equal(rk_copybin_feed(&d, s.data, s.len, collect_row, &c, &err, &why), 0);
	assert_int_equal(c.rows, 4);
	assert_int_equal(c.out.len, want.len);
	assert_memory_equal(c.out.data, want.data, want.len);
	rk_copybin_free(&d);
	rk_buf_free(&c.out);
	rk_buf_free(&s);
	rk_buf_free(&want);
}

/* The same rows whether the stream comes whole, a byte at a time, or cut
 * in two at any position. */
static void test_stream_any_chunking(void **state)
{
	rk_buf s = RK_BUF_INIT, want = RK_BUF_INIT;
	const char *why = NULL;

	(void)state;
	build_stream(&s, &want);
	for (size_t cut = 0; cut < s.len; cut++) {
		for (size_t step = 1; step <= s.len; step = step == 1 ? s.len : s.len + 1) {
			rk_copybin d;
			collect c = { row_types, RK_BUF_INIT, 0, 0 };

			rk_copybin_init(&d, row_wires, row_types, NCOLS);
			assert_int_equal(feed_chunks(&d, &s, cut, step, &c, &why), 0);
			assert_int_equal(rk_copybin_finish(&d, &why), 0);
			assert_int_equal(c.rows, 3);
			assert_int_equal(d.rows, 3);
			assert_int_equal(c.out.len, want.len);
			assert_memory_equal(c.out.data, want.data, want.len);
			rk_copybin_free(&d);
			rk_buf_free(&c.out);
		}
	}
	rk_buf_free(&s);
	rk_buf_free(&want);
}

/* A stream that ends early, or goes on after its trailer. */
static void test_stream_ends(void **state)
{
	rk_buf s = RK_BUF_INIT, want = RK_BUF_INIT;
	const char *why = NULL;
	rk_error err = { 0 };

	(void)state;
	build_stream(&s, &want);
	for (size_t len = 0; len < s.len; len++) {
		rk_copybin d;
		collect c = { row_types, RK_BUF_INIT, 0, 0 };

		rk_copybin_init(&d, row_wires, row_types, NCOLS);
		assert_int_equal(rk_copybin_feed(&d, s.data, len, collect_row, &c, &err, &why), 0);
		assert_int_equal(rk_copybin_finish(&d, &why), -1);
		assert_string_equal(why, "the COPY data ended before its end-of-data marker");
		rk_copybin_free(&d);
		rk_buf_free(&c.out);
	}
	{
		rk_copybin d;
		collect c = { row_types, RK_BUF_INIT, 0, 0 };

		rk_copybin_init(&d, row_wires, row_types, NCOLS);
		put16(&s, NCOLS);
		assert_int_equal(rk_copybin_feed(&d, s.data, s.len, collect_row, &c, &err, &why), -1);
		assert_string_equal(why, "data after the end-of-data marker");
		rk_copybin_free(&d);
		rk_buf_free(&c.out);
	}
	rk_buf_free(&s);
	rk_buf_free(&want);
}

/* The callback's error stops the stream and comes back as -2. */
static void test_callback_error(void **state)
{
	rk_buf s = RK_BUF_INIT, want = RK_BUF_INIT;
	const char *why = NULL;
	rk_error err = { 0 };
	rk_copybin d;
	collect c = { row_types, RK_BUF_INIT, 0, 2 };

	(void)state;
	build_stream(&s, &want);
	rk_copybin_init(&d, row_wires, row_types, NCOLS);
	assert_int_equal(rk_copybin_feed(&d, s.data, s.len, collect_row, &c, &err, &why), -2);
	assert_string_equal(err.msg, "stop at row 2");
	assert_int_equal(c.rows, 2);
	rk_copybin_free(&d);
	rk_buf_free(&c.out);
	rk_buf_free(&s);
	rk_buf_free(&want);
}

/* Feeds one malformed one-column stream of type t; returns why and the
 * column blamed, and whether its value was. */
static const char *malformed_typed(rk_wire wire, rk_type t, const rk_buf *s, size_t *bad_col, bool *bad_value)
{
	const char *why = NULL;
	rk_error err = { 0 };
	rk_copybin d;
	rk_type types[] = { t, RK_T_UNKNOWN };
	collect c = { types, RK_BUF_INIT, 0, 0 };
	int rc;

	rk_copybin_init(&d, &wire, types, 1);
	rc = rk_copybin_feed(&d, s->data, s->len, collect_row, &c, &err, &why);
	assert_int_equal(rc, -1);
	assert_int_equal(c.rows, 0);
	*bad_col = d.bad_col;
	*bad_value = d.bad_value;
	rk_copybin_free(&d);
	rk_buf_free(&c.out);
	return why;
}

static const char *malformed(rk_wire wire, const rk_buf *s, size_t *bad_col)
{
	bool bad_value;
	const char *why = malformed_typed(wire, RK_T_TEXT, s, bad_col, &bad_value);

	assert_false(bad_value);
	return why;
}

static void test_malformed(void **state)
{
	rk_buf s = RK_BUF_INIT;
	size_t col;

	(void)state;
	rk_buf_puts(&s, "1\t2\n");
	assert_string_equal(malformed(RK_WIRE_TEXT, &s, &col), "no binary COPY signature");
	assert_int_equal(col, 1);

	rk_buf_reset(&s);
	put_header(&s, 1u << 16, 0);
	assert_string_equal(malformed(RK_WIRE_TEXT, &s, &col), "a binary COPY header with flags reckon does not know");

	rk_buf_reset(&s);
	put_header(&s, 0, 0);
	put16(&s, 2);
	assert_string_equal(malformed(RK_WIRE_TEXT, &s, &col), "a row with another field count than the columns");

	rk_buf_reset(&s);
	put_header(&s, 0, 0);
	put16(&s, 1);
	put32(&s, 4);
	put32(&s, 7);
	assert_string_equal(malformed(RK_WIRE_INT8, &s, &col), "a value of the wrong size for its type");
	assert_int_equal(col, 0);

	rk_buf_reset(&s);
	put_header(&s, 0, 0);
	put16(&s, 1);
	put32(&s, (uint32_t)-5);
	assert_string_equal(malformed(RK_WIRE_TEXT, &s, &col), "a field with a negative length");

	rk_buf_reset(&s);
	put_header(&s, 0, 0);
	put16(&s, 1);
	put32(&s, 10);
	put16(&s, 2); /* two digits announced, one sent */
	put16(&s, 0);
	put16(&s, 0);
	put16(&s, 0);
	put16(&s, 5);
	assert_string_equal(malformed(RK_WIRE_NUMERIC, &s, &col),
	                    "a numeric whose length does not match its digit count");

	rk_buf_reset(&s);
	put_header(&s, 0, 0);
	put16(&s, 1);
	put32(&s, 10);
	put16(&s, 1);
	put16(&s, 0);
	put16(&s, 0);
	put16(&s, 0);
	put16(&s, 10000);
	assert_string_equal(malformed(RK_WIRE_NUMERIC, &s, &col), "a numeric digit outside 0..9999");

	rk_buf_reset(&s);
	put_header(&s, 0, 0);
	put16(&s, 1);
	put32(&s, 8);
	put16(&s, 0);
	put16(&s, 0);
	put16(&s, 0x8000);
	put16(&s, 0);
	assert_string_equal(malformed(RK_WIRE_NUMERIC, &s, &col), "a numeric with an unknown sign word");

	/* a value (here a bool's text) without a canonical form: the data's */
	{
		bool bad_value = false;

		rk_buf_reset(&s);
		put_header(&s, 0, 0);
		put16(&s, 1);
		put_text(&s, "maybe");
		assert_non_null(malformed_typed(RK_WIRE_TEXT, RK_T_BOOL, &s, &col, &bad_value));
		assert_int_equal(col, 0);
		assert_true(bad_value);
	}
	rk_buf_free(&s);
}

/* Every fixed-size wire form refuses a value of another size; a column
 * without a binary form, a numeric's display scale past 0x3FFF and a header
 * extension longer than 2^31 bytes are refused too. */
static void test_malformed_sizes(void **state)
{
	static const struct {
		rk_wire wire;
		uint32_t wrong;
	} sized[] = {
		{ RK_WIRE_INT2, 4 },
		{ RK_WIRE_INT4, 2 },
		{ RK_WIRE_INT8, 4 },
		{ RK_WIRE_TIMESTAMP, 4 },
		{ RK_WIRE_BOOL, 2 },
		{ RK_WIRE_FLOAT4, 8 },
		{ RK_WIRE_FLOAT8, 4 },
		{ RK_WIRE_DATE, 8 },
		{ RK_WIRE_UUID, 15 },
	};
	rk_buf s = RK_BUF_INIT;
	size_t col;

	(void)state;
	for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
		rk_buf_reset(&s);
		put_header(&s, 0, 0);
		put16(&s, 1);
		put32(&s, sized[i].wrong);
		for (uint32_t k = 0; k < sized[i].wrong; k++)
			rk_buf_putc(&s, 0);
		assert_string_equal(malformed(sized[i].wire, &s, &col), "a value of the wrong size for its type");
		assert_int_equal(col, 0);
	}

	rk_buf_reset(&s);
	put_header(&s, 0, 0);
	put16(&s, 1);
	put_text(&s, "x");
	assert_string_equal(malformed(RK_WIRE_NONE, &s, &col), "a column binary COPY cannot carry for reckon");

	rk_buf_reset(&s);
	put_header(&s, 0, 0);
	put16(&s, 1);
	put32(&s, 8);
	put16(&s, 0);
	put16(&s, 0);
	put16(&s, 0);
	put16(&s, 0x4000);
	assert_string_equal(malformed(RK_WIRE_NUMERIC, &s, &col), "a numeric with an invalid display scale");

	rk_buf_reset(&s);
	put_header(&s, 0, 0x80000000u);
	assert_string_equal(malformed(RK_WIRE_TEXT, &s, &col), "a binary COPY header extension of impossible length");
	rk_buf_free(&s);
}

/*
 * Numerics from their digits give the bytes and the value the text path
 * gives for numeric_out's text: stripped and unstripped digit groups,
 * digits past the display scale, short and long values.
 */
static void test_numeric_digits(void **state)
{
	static const struct {
		const char *text; /* as numeric_out prints it */
		int extra;        /* a stored group past dscale */
	} cases[] = {
		{ "0", 0 },
		{ "0.00", 0 },
		{ "-0.00", 0 },
		{ "1", 0 },
		{ "-1", 0 },
		{ "10000", 0 },
		{ "100000000", 0 },
		{ "12.50", 0 },
		{ "0.0001", 0 },
		{ "0.00010", 0 },
		{ "-0.5", 0 },
		{ "9999.9999", 0 },
		{ "1234567890123456", 0 },
		{ "12345678901234567", 0 },
		{ "123456789012345678901234567890", 0 },
		{ "0.000000000000000000000000000001", 0 },
		{ "1.5", 1234 },
		{ "7", 5000 },
		{ "-42.42", 9 },
		{ "100000000000000000000000000000000000000", 0 },
		{ "3.14159265358979323846264338327950288", 0 },
		{ "1000.0000", 0 },
		{ "99999999999999999999.99999999999999999999", 0 },
	};
	rk_buf bin = RK_BUF_INIT, got = RK_BUF_INIT, want = RK_BUF_INIT, scratch = RK_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int strip = 0; strip < 2; strip++) {
			const unsigned char *p;
			rk_canon_dec dec;
			rk_sum a = { 0 }, b = { 0 };
			const char *why;
			size_t ndigits;
			int16_t weight;

			rk_buf_reset(&bin);
			rk_buf_reset(&got);
			rk_buf_reset(&want);
			put_numeric(&bin, cases[i].text, strip, cases[i].extra);
			p = (const unsigned char *)bin.data + 4;
			ndigits = (size_t)(p[0] << 8 | p[1]);
			weight = (int16_t)(p[2] << 8 | p[3]);
			assert_true(rk_canon_enc_numeric_nbase(&got, &scratch, p + 8, ndigits, weight, p[6] << 8 | p[7],
			                                       p[4] == 0x40, true, &dec));
			assert_int_equal(rk_canon_enc_value(RK_T_NUMERIC, cases[i].text, strlen(cases[i].text), &want, &why),
			                 0);
			assert_int_equal(got.len, want.len);
			assert_memory_equal(got.data, want.data, want.len);
			if (dec.ok) {
				/* the value for a sum, as the text would give it */
				assert_int_equal(rk_sum_add_decimal(&a, dec.m, dec.scale, &why), 0);
				assert_int_equal(rk_sum_add(&b, want.data + 5, want.len - 5, &why), 0);
				assert_true(rk_sum_equal(&a, &b));
			} else {
				assert_true(want.len - 5 > 18);
			}
		}
	}
	rk_buf_free(&bin);
	rk_buf_free(&got);
	rk_buf_free(&want);
	rk_buf_free(&scratch);
}

/* The wire forms of the built-in types, and text for anything else. */
static void test_wire_of_type(void **state)
{
	(void)state;
	assert_int_equal(rk_copybin_wire(20, RK_T_INT8), RK_WIRE_INT8);
	assert_int_equal(rk_copybin_wire(23, RK_T_INT4), RK_WIRE_INT4);
	assert_int_equal(rk_copybin_wire(21, RK_T_INT2), RK_WIRE_INT2);
	assert_int_equal(rk_copybin_wire(1700, RK_T_NUMERIC), RK_WIRE_NUMERIC);
	assert_int_equal(rk_copybin_wire(1184, RK_T_TIMESTAMPTZ), RK_WIRE_TIMESTAMP);
	assert_int_equal(rk_copybin_wire(1114, RK_T_TIMESTAMP), RK_WIRE_TIMESTAMP);
	assert_int_equal(rk_copybin_wire(25, RK_T_TEXT), RK_WIRE_TEXT);
	assert_int_equal(rk_copybin_wire(1042, RK_T_BPCHAR), RK_WIRE_TEXT);
	assert_int_equal(rk_copybin_wire(16, RK_T_BOOL), RK_WIRE_BOOL);
	assert_int_equal(rk_copybin_wire(700, RK_T_FLOAT4), RK_WIRE_FLOAT4);
	assert_int_equal(rk_copybin_wire(701, RK_T_FLOAT8), RK_WIRE_FLOAT8);
	assert_int_equal(rk_copybin_wire(1082, RK_T_DATE), RK_WIRE_DATE);
	assert_int_equal(rk_copybin_wire(2950, RK_T_UUID), RK_WIRE_UUID);
	/* a type whose name mapped elsewhere, and types reckon takes as text */
	assert_int_equal(rk_copybin_wire(1184, RK_T_TEXT), RK_WIRE_NONE);
	assert_int_equal(rk_copybin_wire(3802, RK_T_OTHER), RK_WIRE_NONE); /* jsonb */
	assert_int_equal(rk_copybin_wire(869, RK_T_OTHER), RK_WIRE_NONE);  /* inet */
	assert_int_equal(rk_copybin_wire(99999, RK_T_TEXT), RK_WIRE_NONE); /* citext */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_any_chunking),
		cmocka_unit_test(test_timestamps_past_int64),
		cmocka_unit_test(test_stream_ends),
		cmocka_unit_test(test_callback_error),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_malformed_sizes),
		cmocka_unit_test(test_numeric_digits),
		cmocka_unit_test(test_wire_of_type),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
