#include "core/text.h"

#include <ctype.h>
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
