#include "core/text.h"

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
