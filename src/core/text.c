#include "core/text.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "core/buf.h"

char *rk_ident_unquote(const char *raw)
{
	size_t n = strlen(raw);
	char *out, *o;

	if (n < 2 || raw[0] != '"' || raw[n - 1] != '"')
		return rk_xstrdup(raw);
	out = o = rk_xmalloc(n);
	for (size_t i = 1; i + 1 < n; i++) {
		*o++ = raw[i];
		if (raw[i] == '"' && raw[i + 1] == '"')
			i++;
	}
	*o = '\0';
	return out;
}

size_t rk_edit_distance(const char *a, const char *b)
{
	size_t row[RK_EDIT_DISTANCE_MAX + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > RK_EDIT_DISTANCE_MAX)
		la = RK_EDIT_DISTANCE_MAX;
	if (lb > RK_EDIT_DISTANCE_MAX)
		lb = RK_EDIT_DISTANCE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));

			if (up + 1 < cost)
				cost = up + 1;
			if (row[j - 1] + 1 < cost)
				cost = row[j - 1] + 1;
			row[j] = cost;
			diag = up;
		}
	}
	return row[lb];
}

size_t rk_utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return len;
}
