#include "io/sqltpl.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/pgident.h"

static const char *rk_sqlvar_find(const rk_sqlvar *vars, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(vars[i].name) == len && memcmp(vars[i].name, name, len) == 0)
			return vars[i].sql;
	return NULL;
}

static size_t rk_sql_skip_quoted(const char *s, size_t i, char q)
{
	/* s[i] is the opening quote; a doubled quote is an escaped one */
	for (i++; s[i]; i++) {
		if (s[i] == q) {
			if (s[i + 1] == q) {
				i++;
				continue;
			}
			return i + 1;
		}
	}
	return i;
}

int rk_sql_render(rk_buf *out, const char *tpl, const rk_sqlvar *vars, size_t nvars, rk_error *err)
{
	size_t i = 0;

	rk_buf_reset(out);
	while (tpl[i]) {
		char c = tpl[i];

		if (c == '\'' || c == '"') {
			size_t e = rk_sql_skip_quoted(tpl, i, c);

			rk_buf_append(out, tpl + i, e - i);
			i = e;
		} else if (c == '-' && tpl[i + 1] == '-') {
			size_t e = i;

			while (tpl[e] && tpl[e] != '\n')
				e++;
			rk_buf_append(out, tpl + i, e - i);
			i = e;
		} else if (c == ':' && tpl[i + 1] == ':') {
			rk_buf_append(out, "::", 2);
			i += 2;
		} else if (c == ':' && (tpl[i + 1] == '"' || isalpha((unsigned char)tpl[i + 1]) || tpl[i + 1] == '_')) {
			bool quoted = tpl[i + 1] == '"';
			size_t b = i + 1 + (quoted ? 1 : 0), e = b;
			const char *v;

			while (isalnum((unsigned char)tpl[e]) || tpl[e] == '_')
				e++;
			if (quoted && tpl[e] != '"')
				return rk_error_set(err, RK_EXIT_RUNTIME, "malformed placeholder in sql template near \"%.20s\"",
				                    tpl + i);
			v = rk_sqlvar_find(vars, nvars, tpl + b, e - b);
			if (!v)
				return rk_error_set(err, RK_EXIT_RUNTIME, "sql template placeholder :%.*s has no value",
				                    (int)(e - b), tpl + b);
			rk_buf_puts(out, v);
			i = e + (quoted ? 1 : 0);
		} else {
			rk_buf_putc(out, c);
			i++;
		}
	}
	/* psql wants the terminating semicolon; libpq does not mind it */
	rk_buf_cstr(out);
	return 0;
}

/* Parses a user-written name into at most maxparts parts, PostgreSQL's
 * way (unquoted parts folded to lower case), and quotes each part. */
static char *rk_sql_quote_parts(rk_pg *pg, const char *name, size_t maxparts, rk_error *err)
{
	char *parts[3];
	size_t n = 0;
	const char *why = NULL;
	rk_buf b = RK_BUF_INIT;
	bool ok = true;

	if (rk_pgident_parse(name, parts, maxparts, &n, &why) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "malformed name \"%s\": %s", name, why ? why : "bad identifier");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		char *q = ok ? rk_pg_quote_ident(pg, parts[i], err) : NULL;

		if (!q)
			ok = false;
		else {
			if (i)
				rk_buf_putc(&b, '.');
			rk_buf_puts(&b, q);
			free(q);
		}
		free(parts[i]);
	}
	if (!ok) {
		rk_buf_free(&b);
		return NULL;
	}
	rk_buf_cstr(&b);
	return b.data;
}

char *rk_sql_filter(const char *where)
{
	rk_buf b = RK_BUF_INIT;

	if (where && *where)
		rk_buf_printf(&b, "(%s\n)", where);
	else
		rk_buf_puts(&b, "true");
	rk_buf_cstr(&b);
	return b.data;
}

char *rk_sql_quote_name(rk_pg *pg, const char *name, rk_error *err)
{
	return rk_sql_quote_parts(pg, name, 3, err);
}

char *rk_sql_quote_list(rk_pg *pg, char *const *items, size_t n, const char *prefix, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		char *q = rk_sql_quote_parts(pg, items[i], 1, err);

		if (!q) {
			rk_buf_free(&b);
			return NULL;
		}
		if (i)
			rk_buf_puts(&b, ", ");
		if (prefix)
			rk_buf_puts(&b, prefix);
		rk_buf_puts(&b, q);
		free(q);
	}
	rk_buf_cstr(&b);
	return b.data;
}
