#include "io/copytext.h"
#include "core/text.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/*
 * The first tab or backslash in [p, end), or end.  Sixteen bytes at a time
 * with SSE2 (every x86-64 has it): compare with both separators, one bit
 * per byte, ctz finds the first.  Then, or elsewhere, eight bytes at a time
 * where the compiler and byte order allow: the classic "has a zero byte"
 * test on the word xor'ed with each separator; on little-endian the lowest
 * flagged byte is always a true match, so ctz finds the first one.
 */
static inline const char *rk_copytext_special(const char *p, const char *end)
{
#if defined(__GNUC__) && defined(__SSE2__)
	const __m128i tab = _mm_set1_epi8('\t'), bsl = _mm_set1_epi8('\\');

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, bsl)));

		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t highs = UINT64_C(0x8080808080808080);

	while (end - p >= 8) {
		uint64_t w, t, b, m;

		memcpy(&w, p, 8);
		t = w ^ (ones * '\t');
		b = w ^ (ones * '\\');
		m = (((t - ones) & ~t) | ((b - ones) & ~b)) & highs;
		if (m)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
#endif
	while (p < end && *p != '\t' && *p != '\\')
		p++;
	return p;
}

/*
 * Decodes the escaped field that starts at start (whose first backslash is at
 * bs) into scratch.  Returns the position of the tab or end that ends it, or
 * NULL for a dangling backslash.
 */
static const char *rk_copytext_decode(const char *start, const char *bs, const char *end, rk_buf *scratch,
                                      rk_field *f)
{
	char *out = scratch->data + scratch->len;
	char *o = out;
	const char *p = bs;

	for (const char *q = start; q < bs; q++)
		*o++ = *q;
	while (p < end && *p != '\t') {
		char c = *p++;
		int v, d;

		if (c != '\\') {
			*o++ = c;
			continue;
		}
		if (p == end)
			return NULL;
		c = *p++;
		switch (c) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'v': *o++ = '\v'; break;
		case '0':
		case '1':
		case '2':
		case '3':
		case '4':
		case '5':
		case '6':
		case '7':
			v = c - '0';
			for (int k = 0; k < 2 && p < end && *p >= '0' && *p <= '7'; k++)
				v = v * 8 + (*p++ - '0');
			*o++ = (char)(v & 0xFF);
			break;
		case 'x':
			if (p < end && (d = rk_hexval(*p)) >= 0) {
				v = d;
				p++;
				if (p < end && (d = rk_hexval(*p)) >= 0) {
					v = v * 16 + d;
					p++;
				}
				*o++ = (char)v;
			} else {
				*o++ = 'x';
			}
			break;
		default:
			*o++ = c;
			break;
		}
	}
	f->p = out;
	f->len = (size_t)(o - out);
	f->null = false;
	scratch->len += f->len;
	return p;
}

int rk_copytext_split(const char *row, size_t len, rk_field *fields, size_t nfields, rk_buf *scratch,
                      const char **why)
{
	const char *p = row;
	const char *end = row + len;
	bool reserved = false;
	size_t i = 0;

	for (;;) {
		const char *start = p;
		rk_field *f;

		p = rk_copytext_special(p, end);
		if (i == nfields) {
			*why = "more fields than columns";
			return -1;
		}
		f = &fields[i++];
		if (p == end || *p == '\t') {
			f->p = start;
			f->len = (size_t)(p - start);
			f->null = false;
		} else if (p == start && p + 1 < end && p[1] == 'N' && (p + 2 == end || p[2] == '\t')) {
			f->p = start;
			f->len = 0;
			f->null = true;
			p += 2;
		} else {
			/* decoded text is never longer than the row, so reserving the
			 * row's length once keeps earlier fields' pointers valid */
			if (!reserved) {
				rk_buf_reset(scratch);
				if (scratch->cap < len + 1)
					rk_buf_grow(scratch, len);
				reserved = true;
			}
			p = rk_copytext_decode(start, p, end, scratch, f);
			if (!p) {
				*why = "a backslash at the end of a field";
				return -1;
			}
		}
		if (p == end)
			break;
		p++;
	}
	if (i != nfields) {
		*why = "fewer fields than columns";
		return -1;
	}
	return 0;
}

void rk_copytext_put(rk_buf *b, const char *p, size_t len)
{
	const char *run, *end;

	if (!p) {
		rk_buf_append(b, "\\N", 2);
		return;
	}
	for (run = p, end = p + len; p < end; p++) {
		const char *esc;

		switch (*p) {
		case '\\': esc = "\\\\"; break;
		case '\t': esc = "\\t"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		default: continue;
		}
		rk_buf_append(b, run, (size_t)(p - run));
		rk_buf_append(b, esc, 2);
		run = p + 1;
	}
	rk_buf_append(b, run, (size_t)(end - run));
}
