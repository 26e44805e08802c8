/*
 * ini.c - the INI reader of --config and --job files (rules in ini.h).
 *
 * One walk over the buffer; the strings go into one arena, so the result
 * is a few allocations whatever the file's size.
 */
#include "core/ini.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

static bool rk_ini_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Trims blanks off [*b, *e). */
static void rk_ini_trim(const char **b, const char **e)
{
	while (*b < *e && rk_ini_blank(**b))
		(*b)++;
	while (*e > *b && rk_ini_blank((*e)[-1]))
		(*e)--;
}

/* Copies [b, e) into the arena, folding runs of blanks to one space when
 * fold is set; returns the copy's offset (the arena moves while it grows:
 * offsets become pointers once it is complete). */
static size_t rk_ini_put(rk_buf *arena, const char *b, const char *e, bool fold)
{
	size_t at = arena->len;

	for (const char *p = b; p < e; p++) {
		if (fold && rk_ini_blank(*p)) {
			if (p > b && !rk_ini_blank(p[-1]))
				rk_buf_putc(arena, ' ');
			continue;
		}
		rk_buf_putc(arena, *p);
	}
	rk_buf_putc(arena, '\0');
	return at;
}

/* An entry or section while parsing: offsets into the arena. */
typedef struct rk_ini_raw {
	size_t section, key, value;
	int line;
	int again; /* a section: where its header repeats */
} rk_ini_raw;

/* Sections seen so far, by name: an open-addressing table of indexes into
 * the section list, so that a file of many sections is not quadratic. */
typedef struct rk_ini_index {
	size_t *slot; /* index + 1, 0 = empty */
	size_t cap;   /* a power of two */
} rk_ini_index;

static size_t rk_ini_hash(const char *s)
{
	size_t h = 1469598103934665603u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* The section named name, or (size_t)-1; adds it as index add when it is
 * not there and add is not (size_t)-1. */
static size_t rk_ini_index_find(rk_ini_index *ix, const rk_buf *arena, const rk_ini_raw *secs, size_t nsecs,
                                const char *name, size_t add)
{
	size_t i;

	if (add != (size_t)-1 && (nsecs + 1) * 2 > ix->cap) {
		size_t ncap = ix->cap ? ix->cap * 2 : 16;
		size_t *ns = rk_xcalloc(ncap, sizeof *ns);

		for (size_t k = 0; k < nsecs; k++) {
			i = rk_ini_hash(arena->data + secs[k].section) & (ncap - 1);
			while (ns[i])
				i = (i + 1) & (ncap - 1);
			ns[i] = k + 1;
		}
		free(ix->slot);
		ix->slot = ns;
		ix->cap = ncap;
	}
	if (!ix->cap)
		return (size_t)-1;
	for (i = rk_ini_hash(name) & (ix->cap - 1); ix->slot[i]; i = (i + 1) & (ix->cap - 1))
		if (!strcmp(arena->data + secs[ix->slot[i] - 1].section, name))
			return ix->slot[i] - 1;
	if (add != (size_t)-1)
		ix->slot[i] = add + 1;
	return (size_t)-1;
}

/* qsort context: qsort has none, and the arena is per call */
typedef struct rk_ini_ord {
	const char *arena;
	const rk_ini_raw *e;
} rk_ini_ord;

static int rk_ini_ord_cmp(const void *a, const void *b)
{
	const rk_ini_ord *x = a, *y = b;
	int c;

	if (x->e->section != y->e->section)
		return x->e->section < y->e->section ? -1 : 1;
	if ((c = strcmp(x->arena + x->e->key, y->arena + y->e->key)) != 0)
		return c;
	return x->e->line < y->e->line ? -1 : x->e->line > y->e->line;
}

/* A key given twice in one section: the first repetition in file order is
 * reported, with the line it repeats.  Sorting keeps a file of many keys
 * from costing the square of their number. */
static int rk_ini_duplicates(const char *path, const rk_buf *arena, const rk_ini_raw *ents, size_t n, rk_error *err)
{
	rk_ini_ord *ord = rk_xcalloc(n ? n : 1, sizeof *ord);
	const rk_ini_raw *dup = NULL, *first = NULL;

	for (size_t i = 0; i < n; i++) {
		ord[i].arena = arena->data;
		ord[i].e = &ents[i];
	}
	qsort(ord, n, sizeof *ord, rk_ini_ord_cmp);
	for (size_t i = 1; i < n; i++) {
		if (ord[i].e->section != ord[i - 1].e->section ||
		    strcmp(arena->data + ord[i].e->key, arena->data + ord[i - 1].e->key) != 0)
			continue;
		if (!dup || ord[i].e->line < dup->line) {
			dup = ord[i].e;
			first = ord[i - 1].e;
			/* the earliest line of this key is the one repeated */
			for (size_t j = i - 1; j > 0 && ord[j - 1].e->section == dup->section &&
			                       !strcmp(arena->data + ord[j - 1].e->key, arena->data + dup->key);
			     j--)
				first = ord[j - 1].e;
		}
	}
	free(ord);
	if (!dup)
		return 0;
	{
		const char *sn = arena->data + dup->section;

		rk_error_set(err, RK_EXIT_USAGE, "%s:%d: key '%s' is given twice%s%s%s (first at line %d)", path, dup->line,
		             arena->data + dup->key, *sn ? " in [" : "", sn, *sn ? "]" : "", first->line);
		return rk_error_hint(err, "keep one of the two lines");
	}
}

static int rk_ini_fail_header(rk_error *err, const char *path, int line, const char *b, const char *e)
{
	rk_error_set(err, RK_EXIT_USAGE, "%s:%d: malformed section header '%.*s'", path, line,
	             (int)(e - b > 80 ? 80 : e - b), b);
	return rk_error_hint(err, "write [name] alone on its line");
}

/* A parse under way: the arena of texts, the entries and sections as
 * offsets into it, and where the parse is. */
typedef struct rk_ini_parser {
	const char *path;
	rk_buf arena;
	rk_ini_raw *ents, *secs;
	rk_ini_index index;
	size_t nents, cap, nsecs, scap;
	size_t section; /* the current section's name */
	int line;
} rk_ini_parser;

/* The section header [b, e) (trimmed, from '[' to ']'): the section it
 * opens, or the earlier one of that name again.  0, or -1 with err. */
static int rk_ini_header(rk_ini_parser *ps, const char *b, const char *e, rk_error *err)
{
	const char *hb = b, *he = e;
	size_t mark = ps->arena.len, i;

	if (e - b < 3 || e[-1] != ']')
		return rk_ini_fail_header(err, ps->path, ps->line, hb, he);
	b++;
	e--;
	rk_ini_trim(&b, &e);
	if (b == e || memchr(b, '[', (size_t)(e - b)) || memchr(b, ']', (size_t)(e - b)))
		return rk_ini_fail_header(err, ps->path, ps->line, hb, he);
	ps->section = rk_ini_put(&ps->arena, b, e, true);
	i = rk_ini_index_find(&ps->index, &ps->arena, ps->secs, ps->nsecs, ps->arena.data + ps->section, ps->nsecs);
	if (i != (size_t)-1) {
		/* the same header again: its keys add to the first one's */
		ps->arena.len = mark;
		ps->section = ps->secs[i].section;
		if (!ps->secs[i].again)
			ps->secs[i].again = ps->line;
		return 0;
	}
	if (ps->nsecs == ps->scap) {
		ps->scap = ps->scap ? ps->scap * 2 : 8;
		ps->secs = rk_xrealloc(ps->secs, ps->scap * sizeof *ps->secs);
	}
	ps->secs[ps->nsecs].section = ps->section;
	ps->secs[ps->nsecs].line = ps->line;
	ps->secs[ps->nsecs].again = 0;
	ps->nsecs++;
	return 0;
}

/* The line [b, e) (trimmed) as key = value, an entry of the current
 * section.  0, or -1 with err. */
static int rk_ini_entry_line(rk_ini_parser *ps, const char *b, const char *e, rk_error *err)
{
	const char *eq = memchr(b, '=', (size_t)(e - b));
	const char *kb = b, *ke = eq, *vb, *ve = e;

	if (!eq) {
		rk_error_set(err, RK_EXIT_USAGE, "%s:%d: expected 'key = value', '[section]' or a comment", ps->path,
		             ps->line);
		return rk_error_hint(err, "comments start a line with ; or #");
	}
	rk_ini_trim(&kb, &ke);
	vb = eq + 1;
	rk_ini_trim(&vb, &ve);
	if (kb == ke) {
		rk_error_set(err, RK_EXIT_USAGE, "%s:%d: a value without a key", ps->path, ps->line);
		return rk_error_hint(err, "write key = value");
	}
	if (ps->nents == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 16;
		ps->ents = rk_xrealloc(ps->ents, ps->cap * sizeof *ps->ents);
	}
	ps->ents[ps->nents].section = ps->section;
	ps->ents[ps->nents].key = rk_ini_put(&ps->arena, kb, ke, false);
	ps->ents[ps->nents].value = rk_ini_put(&ps->arena, vb, ve, false);
	ps->ents[ps->nents].line = ps->line;
	ps->nents++;
	return 0;
}

/* The parse's arena moved into ini, its offsets become pointers. */
static void rk_ini_finish(rk_ini *ini, rk_ini_parser *ps)
{
	ini->arena = ps->arena.data;
	ini->entries = rk_xcalloc(ps->nents ? ps->nents : 1, sizeof *ini->entries);
	for (size_t i = 0; i < ps->nents; i++) {
		ini->entries[i].section = ini->arena + ps->ents[i].section;
		ini->entries[i].key = ini->arena + ps->ents[i].key;
		ini->entries[i].value = ini->arena + ps->ents[i].value;
		ini->entries[i].line = ps->ents[i].line;
	}
	ini->nentries = ps->nents;
	ini->sections = rk_xcalloc(ps->nsecs ? ps->nsecs : 1, sizeof *ini->sections);
	for (size_t i = 0; i < ps->nsecs; i++) {
		ini->sections[i].name = ini->arena + ps->secs[i].section;
		ini->sections[i].line = ps->secs[i].line;
		ini->sections[i].again = ps->secs[i].again;
	}
	ini->nsections = ps->nsecs;
}

rk_ini *rk_ini_parse(const char *path, const char *data, size_t len, rk_error *err)
{
	rk_ini *ini = rk_xcalloc(1, sizeof *ini);
	rk_ini_parser ps;
	const char *p = data, *end = data + len;

	memset(&ps, 0, sizeof ps);
	ps.path = path;
	ini->path = rk_xstrdup(path);
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	ps.section = rk_ini_put(&ps.arena, "", "", false);
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *b = p, *e = eol ? eol : end;

		ps.line++;
		p = eol ? eol + 1 : end;
		if (memchr(b, '\0', (size_t)(e - b))) {
			rk_error_set(err, RK_EXIT_USAGE, "%s:%d: a NUL byte in the line", path, ps.line);
			rk_error_hint(err, "INI files are text; is this the right file?");
			goto fail;
		}
		rk_ini_trim(&b, &e);
		if (b == e || *b == ';' || *b == '#')
			continue;
		if (*b == '[' ? rk_ini_header(&ps, b, e, err) < 0 : rk_ini_entry_line(&ps, b, e, err) < 0)
			goto fail;
	}
	if (rk_ini_duplicates(path, &ps.arena, ps.ents, ps.nents, err) < 0)
		goto fail;
	rk_ini_finish(ini, &ps);
	free(ps.ents);
	free(ps.secs);
	free(ps.index.slot);
	return ini;
fail:
	rk_buf_free(&ps.arena);
	free(ps.ents);
	free(ps.secs);
	free(ps.index.slot);
	rk_ini_free(ini);
	return NULL;
}

const rk_ini_entry *rk_ini_get(const rk_ini *ini, const char *section, const char *key)
{
	for (size_t i = 0; i < ini->nentries; i++)
		if (!strcmp(ini->entries[i].section, section) && !strcmp(ini->entries[i].key, key))
			return &ini->entries[i];
	return NULL;
}

const rk_ini_section *rk_ini_section_find(const rk_ini *ini, const char *name)
{
	for (size_t i = 0; i < ini->nsections; i++)
		if (!strcmp(ini->sections[i].name, name))
			return &ini->sections[i];
	return NULL;
}

void rk_ini_free(rk_ini *ini)
{
	if (!ini)
		return;
	free(ini->path);
	free(ini->entries);
	free(ini->sections);
	free(ini->arena);
	free(ini);
}
