/*
 * tpl.c - the HTML template renderer (tpl.h).
 */
#include "report/tpl.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"

/* The contexts a name is looked up in, innermost last. */
#define RK_TPL_DEPTH 16

typedef struct rk_tpl {
	rk_buf *out;
	const char *src; /* the whole template, for line numbers */
	const json_t *ctx[RK_TPL_DEPTH];
	int depth;
	rk_error *err;
} rk_tpl;

void rk_tpl_escape(rk_buf *out, const char *s, size_t len)
{
	size_t run = 0;

	for (size_t i = 0; i < len; i++) {
		const char *ent;

		switch (s[i]) {
		case '&': ent = "&amp;"; break;
		case '<': ent = "&lt;"; break;
		case '>': ent = "&gt;"; break;
		case '"': ent = "&quot;"; break;
		case '\'': ent = "&#39;"; break;
		default: continue;
		}
		rk_buf_append(out, s + run, i - run);
		rk_buf_puts(out, ent);
		run = i + 1;
	}
	rk_buf_append(out, s + run, len - run);
}

json_t *rk_tpl_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;
	rk_buf b = RK_BUF_INIT;
	json_t *j;

	while (i < n) {
		size_t l = rk_utf8_seq_len(p + i, n - i);

		if (l == 0 || p[i] < 0x20 || p[i] == 0x7f) {
			rk_buf_printf(&b, "\\x%02x", p[i]);
			i++;
			continue;
		}
		rk_buf_append(&b, p + i, l);
		i += l;
	}
	j = json_stringn(b.data ? b.data : "", b.len);
	rk_buf_free(&b);
	return j;
}

static int rk_tpl_line(const rk_tpl *t, const char *at)
{
	int line = 1;

	for (const char *p = t->src; p < at; p++)
		line += *p == '\n';
	return line;
}

/* The value of name (len bytes) in the contexts, or NULL. */
static const json_t *rk_tpl_lookup(const rk_tpl *t, const char *name, size_t len)
{
	const char *dot = memchr(name, '.', len);
	size_t first = dot ? (size_t)(dot - name) : len;
	const json_t *v = NULL;
	char key[128];

	if (len == 1 && name[0] == '.')
		return t->ctx[t->depth - 1];
	if (first >= sizeof key)
		return NULL;
	memcpy(key, name, first);
	key[first] = '\0';
	for (int d = t->depth - 1; d >= 0 && !v; d--)
		if (json_is_object(t->ctx[d]))
			v = json_object_get(t->ctx[d], key);
	while (v && dot) {
		const char *next;

		name = dot + 1;
		len -= first + 1;
		next = memchr(name, '.', len);
		first = next ? (size_t)(next - name) : len;
		if (first >= sizeof key)
			return NULL;
		memcpy(key, name, first);
		key[first] = '\0';
		v = json_is_object(v) ? json_object_get(v, key) : NULL;
		dot = next;
	}
	return v;
}

static bool rk_tpl_truthy(const json_t *v)
{
	if (!v)
		return false;
	switch (json_typeof(v)) {
	case JSON_ARRAY: return json_array_size(v) > 0;
	case JSON_STRING: return json_string_length(v) > 0;
	case JSON_INTEGER: return json_integer_value(v) != 0;
	case JSON_REAL: return json_real_value(v) != 0;
	case JSON_TRUE:
	case JSON_OBJECT: return true;
	default: return false;
	}
}

/* One tag found at p: its sigil ('#', '^', '/', '!' or 0), its name, and
 * where the text after it starts. */
typedef struct rk_tpl_tag {
	const char *open; /* "{{" */
	char sigil;
	const char *name;
	size_t len;
	const char *after;
} rk_tpl_tag;

/* The next tag in [p, end), or false. */
static bool rk_tpl_next(const char *p, const char *end, rk_tpl_tag *tag)
{
	const char *o, *c;

	for (o = p; o + 1 < end; o++)
		if (o[0] == '{' && o[1] == '{')
			break;
	if (o + 1 >= end)
		return false;
	c = strstr(o + 2, "}}");
	if (!c || c >= end)
		return false;
	tag->open = o;
	tag->after = c + 2;
	tag->name = o + 2;
	tag->sigil = 0;
	if (*tag->name == '#' || *tag->name == '^' || *tag->name == '/' || *tag->name == '!')
		tag->sigil = *tag->name++;
	while (tag->name < c && *tag->name == ' ')
		tag->name++;
	tag->len = (size_t)(c - tag->name);
	while (tag->len && tag->name[tag->len - 1] == ' ')
		tag->len--;
	return true;
}

/* The {{/name}} closing the section whose body starts at p. */
static bool rk_tpl_close(const char *p, const char *end, rk_tpl_tag *close)
{
	int depth = 0;

	while (rk_tpl_next(p, end, close)) {
		if (close->sigil == '#' || close->sigil == '^') {
			depth++;
		} else if (close->sigil == '/') {
			if (depth-- == 0)
				return true;
		}
		p = close->after;
	}
	return false;
}

static int rk_tpl_span(rk_tpl *t, const char *p, const char *end);

static int rk_tpl_fail(rk_tpl *t, const rk_tpl_tag *tag, const char *what)
{
	return rk_error_set(t->err, RK_EXIT_RUNTIME, "html template line %d: %s {{%c%.*s}}", rk_tpl_line(t, tag->open),
	                    what, tag->sigil ? tag->sigil : ' ', (int)tag->len, tag->name);
}

static int rk_tpl_push(rk_tpl *t, const json_t *v, const char *body, const char *end, const rk_tpl_tag *tag)
{
	int rc;

	if (t->depth == RK_TPL_DEPTH)
		return rk_tpl_fail(t, tag, "sections nested too deep at");
	t->ctx[t->depth++] = v;
	rc = rk_tpl_span(t, body, end);
	t->depth--;
	return rc;
}

static int rk_tpl_section(rk_tpl *t, const rk_tpl_tag *tag, const char *body, const char *end)
{
	const json_t *v = rk_tpl_lookup(t, tag->name, tag->len);

	if (tag->sigil == '^')
		return rk_tpl_truthy(v) ? 0 : rk_tpl_span(t, body, end);
	if (!rk_tpl_truthy(v))
		return 0;
	if (json_is_array(v)) {
		size_t i;
		const json_t *e;

		json_array_foreach(v, i, e) if (rk_tpl_push(t, e, body, end, tag) < 0) return -1;
		return 0;
	}
	return rk_tpl_push(t, v, body, end, tag);
}

static int rk_tpl_value(rk_tpl *t, const rk_tpl_tag *tag)
{
	const json_t *v = rk_tpl_lookup(t, tag->name, tag->len);
	char num[48];

	if (!v)
		return rk_tpl_fail(t, tag, "the view has no value for");
	switch (json_typeof(v)) {
	case JSON_STRING:
		rk_tpl_escape(t->out, json_string_value(v), json_string_length(v));
		return 0;
	case JSON_INTEGER:
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		rk_buf_puts(t->out, num);
		return 0;
	case JSON_REAL:
		snprintf(num, sizeof num, "%.3f", json_real_value(v));
		rk_buf_puts(t->out, num);
		return 0;
	case JSON_TRUE:
		rk_buf_puts(t->out, "true");
		return 0;
	case JSON_FALSE:
	case JSON_NULL:
		return 0;
	default:
		return rk_tpl_fail(t, tag, "an object or array where a value belongs:");
	}
}

static int rk_tpl_span(rk_tpl *t, const char *p, const char *end)
{
	rk_tpl_tag tag, close;

	while (rk_tpl_next(p, end, &tag)) {
		rk_buf_append(t->out, p, (size_t)(tag.open - p));
		p = tag.after;
		switch (tag.sigil) {
		case '!':
			break;
		case '#':
		case '^':
			if (!rk_tpl_close(p, end, &close) || close.len != tag.len || memcmp(close.name, tag.name, tag.len) != 0)
				return rk_tpl_fail(t, &tag, "no matching close for");
			if (rk_tpl_section(t, &tag, p, close.open) < 0)
				return -1;
			p = close.after;
			break;
		case '/':
			return rk_tpl_fail(t, &tag, "a close without an open section:");
		default:
			if (rk_tpl_value(t, &tag) < 0)
				return -1;
		}
	}
	rk_buf_append(t->out, p, (size_t)(end - p));
	return 0;
}

int rk_tpl_render(rk_buf *out, const char *tpl, const json_t *view, rk_error *err)
{
	rk_tpl t;

	memset(&t, 0, sizeof t);
	t.out = out;
	t.src = tpl;
	t.err = err;
	t.ctx[t.depth++] = view;
	return rk_tpl_span(&t, tpl, tpl + strlen(tpl));
}
