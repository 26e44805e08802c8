/*
 * pair.c - the logical columns of a pair: key discovery, the whole-row
 * default and schema drift (pair.h).
 */
#include "check/pair.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "io/pgident.h"

/* One side as the resolution sees it: its relation's columns and its
 * mappings. */
typedef struct rk_pside {
	const char *name; /* "source" / "target" */
	bool header;      /* names match as a header's: no RK_CAP_SQL_NAMES (CSV) */
	char **phys;      /* the relation's columns (CSV: the header) */
	size_t nphys;
	bool *used; /* [nphys] a logical column reads it */
	const char *const *map_names;
	const char *const *map_sql;
	size_t nmap;
} rk_pside;

/* The catalog spelling of a written name (unquoted folds to lower case),
 * new; NULL when it is not a plain name. */
static char *rk_pair_fold(const char *written)
{
	char *name = NULL;
	size_t np;
	const char *why;

	if (rk_pgident_parse(written, &name, 1, &np, &why) < 0)
		return NULL;
	return name;
}

bool rk_pair_same_name(const char *a, const char *b)
{
	char *fa = rk_pair_fold(a), *fb = rk_pair_fold(b);
	bool same = fa && fb ? strcmp(fa, fb) == 0 : strcmp(a, b) == 0;

	free(fa);
	free(fb);
	return same;
}

/* A physical name as a user would write it. */
static char *rk_pair_written(const char *phys)
{
	rk_buf b = RK_BUF_INIT;

	rk_pgident_display(&b, phys);
	rk_buf_cstr(&b);
	return b.data;
}

/* The index of name among cols[0..n): the column of that name exactly,
 * else (fold) the one column that differs from it only in case; -1 when
 * none does, or several do. */
static long rk_pair_match(char *const *cols, size_t n, const char *name, bool fold)
{
	long ci = -1;
	size_t nci = 0;

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(cols[i], name))
			return (long)i;
		if (fold && !strcasecmp(cols[i], name)) {
			ci = (long)i;
			nci++;
		}
	}
	return nci == 1 ? ci : -1;
}

long rk_pair_find(char *const *cols, size_t n, const char *written, bool header)
{
	char *name = header ? rk_ident_unquote(written) : rk_pair_fold(written);
	long hit;

	if (!name)
		return -1;
	hit = rk_pair_match(cols, n, name, header);
	free(name);
	return hit;
}

/* True when name differs only in case from no other of cols[0..n). */
static bool rk_pair_folds_once(char *const *cols, size_t n, const char *name)
{
	size_t hits = 0;

	for (size_t i = 0; i < n; i++)
		hits += strcasecmp(cols[i], name) == 0;
	return hits <= 1;
}

/* The physical column a written name names on side s, or -1. */
static long rk_pside_find(const rk_pside *s, const char *written)
{
	return rk_pair_find(s->phys, s->nphys, written, s->header);
}

/* The mapping of a logical column on side s, or -1. */
static long rk_pside_map(const rk_pside *s, const char *written)
{
	for (size_t i = 0; i < s->nmap; i++)
		if (rk_pair_same_name(s->map_names[i], written))
			return (long)i;
	return -1;
}

static bool rk_pside_has(const rk_pside *s, const char *written)
{
	return rk_pside_map(s, written) >= 0 || rk_pside_find(s, written) >= 0;
}

/* The physical column an expression is, when it is a bare column name. */
static long rk_pside_bare(const rk_pside *s, const char *sql)
{
	const char *b = sql, *e = sql + strlen(sql);
	char *w;
	long hit;

	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	w = rk_xstrndup(b, (size_t)(e - b));
	hit = s->header ? -1 : rk_pside_find(s, w);
	if (hit >= 0) {
		/* "a b" is not one name: find() folded it only if it parses */
		char *f = rk_pair_fold(w);

		if (!f)
			hit = -1;
		free(f);
	}
	free(w);
	return hit;
}

/*
 * Marks the physical columns an SQL expression mentions: every unquoted
 * word (folded) or double-quoted name outside string literals that names a
 * column of the side.  A column named only inside a function's string
 * argument is missed; drift is advice, never the verdict.
 */
static void rk_pside_mark_sql(rk_pside *s, const char *sql)
{
	const char *p = sql;

	while (*p) {
		if (*p == '\'') {
			for (p++; *p; p++)
				if (*p == '\'' && p[1] != '\'')
					break;
				else if (*p == '\'')
					p++;
			if (*p)
				p++;
		} else if (*p == '"') {
			rk_buf b = RK_BUF_INIT;

			for (p++; *p; p++) {
				if (*p == '"' && p[1] == '"') {
					rk_buf_putc(&b, '"');
					p++;
				} else if (*p == '"') {
					break;
				} else {
					rk_buf_putc(&b, *p);
				}
			}
			if (*p)
				p++;
			for (size_t i = 0; i < s->nphys; i++)
				if (!strcmp(s->phys[i], rk_buf_cstr(&b)))
					s->used[i] = true;
			rk_buf_free(&b);
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			const char *w = p;
			char word[128];
			size_t n;

			while (isalnum((unsigned char)*p) || *p == '_' || *p == '$')
				p++;
			n = (size_t)(p - w) < sizeof word ? (size_t)(p - w) : sizeof word - 1;
			for (size_t i = 0; i < n; i++)
				word[i] = (char)tolower((unsigned char)w[i]);
			word[n] = '\0';
			for (size_t i = 0; i < s->nphys; i++)
				if (!strcmp(s->phys[i], word))
					s->used[i] = true;
		} else {
			p++;
		}
	}
}

/* Marks what logical column written reads on side s. */
static void rk_pside_mark(rk_pside *s, const char *written)
{
	long m = rk_pside_map(s, written), f;

	if (m >= 0) {
		rk_pside_mark_sql(s, s->map_sql[m]);
		return;
	}
	f = rk_pside_find(s, written);
	if (f >= 0)
		s->used[f] = true;
}

static void rk_pair_push(char ***v, size_t *n, char *item)
{
	*v = rk_xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = item;
}

static bool rk_pair_listed(char *const *v, size_t n, const char *written)
{
	for (size_t i = 0; i < n; i++)
		if (rk_pair_same_name(v[i], written))
			return true;
	return false;
}

/* The key from side s's primary key, written as logical columns: a key
 * column some mapping reads as it is goes by that mapping's name. */
static int rk_pair_pk(rk_reader *r, const rk_pside *s, rk_pair *out, rk_error *err)
{
	char **pk = NULL;
	size_t npk = 0;

	if (rk_reader_primary_key(r, &pk, &npk, err) < 0)
		return -1;
	for (size_t i = 0; i < npk; i++) {
		char *name = NULL;

		for (size_t m = 0; m < s->nmap && !name; m++) {
			long b = rk_pside_bare(s, s->map_sql[m]);

			if (b >= 0 && !strcmp(s->phys[b], pk[i]))
				name = rk_xstrdup(s->map_names[m]);
		}
		rk_pair_push(&out->key, &out->nkey, name ? name : rk_pair_written(pk[i]));
		free(pk[i]);
	}
	free(pk);
	return 0;
}

/*
 * The whole row: the target's columns in its order that the source has too
 * (by name or by a mapping); a target column some target mapping reads as
 * it is goes by that mapping's name; then the target's other mapped
 * logical columns the source has; less --exclude-columns.
 */
static int rk_pair_whole_row(const rk_check_spec *spec, const rk_pside *src, const rk_pside *tgt, rk_pair *out,
                             rk_error *err)
{
	for (size_t e = 0; e < spec->nexclude; e++) {
		if (!rk_pside_has(src, spec->exclude[e]) && !rk_pside_has(tgt, spec->exclude[e])) {
			rk_error_set(err, RK_EXIT_USAGE, "option --exclude-columns names '%s', which neither side has",
			             spec->exclude[e]);
			return rk_error_hint(err, "list columns of the tables (or mapped logical columns)");
		}
	}
	for (size_t t = 0; t <= tgt->nphys + tgt->nmap; t++) {
		char *written = NULL;

		if (t < tgt->nphys) {
			for (size_t m = 0; m < tgt->nmap && !written; m++)
				if (rk_pside_bare(tgt, tgt->map_sql[m]) == (long)t)
					written = rk_xstrdup(tgt->map_names[m]);
			if (!written) {
				/* a CSV target's header written the way the source spells it:
				 * the same name exactly, else the one source column that
				 * differs only in case - when no other header does too
				 * ("Value" and value are two columns, never one) */
				long sf = -1;

				if (!src->header && !tgt->header)
					sf = rk_pside_find(src, tgt->phys[t]);
				else if (!src->header)
					sf = rk_pair_match(src->phys, src->nphys, tgt->phys[t],
					                   rk_pair_folds_once(tgt->phys, tgt->nphys, tgt->phys[t]));
				written = rk_pair_written(tgt->header && sf >= 0 ? src->phys[sf] : tgt->phys[t]);
			}
		} else if (t < tgt->nphys + tgt->nmap) {
			written = rk_xstrdup(tgt->map_names[t - tgt->nphys]);
		} else {
			break;
		}
		if (rk_pair_listed(out->columns, out->ncolumns, written) || !rk_pside_has(src, written) ||
		    rk_pair_listed((char *const *)spec->exclude, spec->nexclude, written)) {
			free(written);
			continue;
		}
		rk_pair_push(&out->columns, &out->ncolumns, written);
	}
	if (out->ncolumns == 0) {
		rk_error_set(err, RK_EXIT_USAGE, "the source and the target have no column in common");
		return rk_error_hint(err, "map the target's columns with --source-expr NAME=SQL, or name them with --columns");
	}
	out->whole_row = true;
	return 0;
}

static int rk_pside_load(rk_pside *s, const char *name, rk_reader *r, const rk_reader_opts *o, rk_error *err)
{
	memset(s, 0, sizeof *s);
	s->name = name;
	s->header = !rk_reader_has(r, RK_CAP_SQL_NAMES);
	if (rk_reader_columns(r, &s->phys, &s->nphys, err) < 0)
		return -1;
	s->used = rk_xcalloc(s->nphys ? s->nphys : 1, sizeof *s->used);
	s->map_names = o->expr_names;
	s->map_sql = o->expr_sql;
	s->nmap = o->nexpr;
	return 0;
}

static void rk_pside_free(rk_pside *s)
{
	for (size_t i = 0; i < s->nphys; i++)
		free(s->phys[i]);
	free(s->phys);
	free(s->used);
}

int rk_pair_resolve(const rk_check_spec *spec, rk_reader *src, rk_reader *tgt, rk_pair *out, rk_error *err)
{
	rk_pside side[2];
	int rc = -1;

	memset(out, 0, sizeof *out);
	memset(side, 0, sizeof side);
	if (rk_pside_load(&side[0], "source", src, &spec->source, err) < 0 ||
	    rk_pside_load(&side[1], "target", tgt, &spec->target, err) < 0)
		goto done;

	if (spec->nkey) {
		for (size_t i = 0; i < spec->nkey; i++)
			rk_pair_push(&out->key, &out->nkey, rk_xstrdup(spec->key[i]));
		out->key_origin = "--key";
	} else {
		if (rk_pair_pk(tgt, &side[1], out, err) < 0)
			goto done;
		out->key_origin = "the target's primary key";
		if (!out->nkey) {
			if (rk_pair_pk(src, &side[0], out, err) < 0)
				goto done;
			out->key_origin = "the source's primary key";
		}
		if (!out->nkey) {
			rk_error_set(err, RK_EXIT_USAGE, "no --key given, and neither %s nor %s has a primary key",
			             rk_reader_describe(tgt), rk_reader_describe(src));
			rk_error_hint(err, "name the columns that identify a row: --key COLS");
			goto done;
		}
		rk_log_info("key: %s", out->key_origin);
	}

	if (spec->ncolumns) {
		for (size_t i = 0; i < spec->ncolumns; i++)
			rk_pair_push(&out->columns, &out->ncolumns, rk_xstrdup(spec->columns[i]));
	} else if (rk_pair_whole_row(spec, &side[0], &side[1], out, err) < 0) {
		goto done;
	}

	/* what each side reads, then what it has that nothing reads and the
	 * other side does not have either */
	for (int s = 0; s < 2; s++) {
		rk_pside *me = &side[s], *other = &side[1 - s];

		for (size_t i = 0; i < out->nkey; i++)
			rk_pside_mark(me, out->key[i]);
		for (size_t i = 0; i < out->ncolumns; i++)
			rk_pside_mark(me, out->columns[i]);
		for (size_t i = 0; i < spec->nsum; i++)
			rk_pside_mark(me, spec->sum[i]);
		if (spec->time)
			rk_pside_mark(me, spec->time);
		for (size_t m = 0; m < me->nmap; m++)
			rk_pside_mark_sql(me, me->map_sql[m]);
		if ((s ? spec->target.where : spec->source.where) != NULL)
			rk_pside_mark_sql(me, s ? spec->target.where : spec->source.where);
		for (size_t i = 0; i < me->nphys; i++) {
			char *w;

			if (me->used[i])
				continue;
			w = rk_pair_written(me->phys[i]);
			/* a CSV header is matched in another case only when no other
			 * header differs from it in case alone */
			if (!rk_pside_has(other, w) &&
			    (!rk_pside_has(other, me->phys[i]) ||
			     (me->header && !rk_pair_folds_once(me->phys, me->nphys, me->phys[i]))))
				rk_pair_push(&out->drift.only[s], &out->drift.nonly[s], rk_xstrdup(me->phys[i]));
			free(w);
		}
	}
	rc = 0;
done:
	rk_pside_free(&side[0]);
	rk_pside_free(&side[1]);
	if (rc < 0)
		rk_pair_free(out);
	return rc;
}

/* A kind whose canonical form is text as PostgreSQL prints it: text as it
 * is, a uuid's lowercase 8-4-4-4-12, another type's output text. */
static bool rk_pair_textual(rk_type t)
{
	return t == RK_T_TEXT || t == RK_T_BPCHAR || t == RK_T_UUID || t == RK_T_OTHER;
}

/* Whether equal values of these two types hash alike: the same kind, or
 * two textual ones (a uuid kept as text, as PostgreSQL prints it, is the
 * same text). */
static bool rk_pair_kinds_alike(rk_type a, rk_type b)
{
	return !strcmp(rk_type_kind(a), rk_type_kind(b)) || (rk_pair_textual(a) && rk_pair_textual(b));
}

void rk_pair_kinds(rk_pair *pair, const char *const *names, size_t n, const rk_type *const types[2])
{
	for (size_t i = 0; i < n; i++) {
		rk_drift_kind *k;

		if (rk_pair_kinds_alike(types[0][i], types[1][i]))
			continue;
		pair->drift.kinds = rk_xrealloc(pair->drift.kinds, (pair->drift.nkinds + 1) * sizeof *pair->drift.kinds);
		k = &pair->drift.kinds[pair->drift.nkinds++];
		k->name = rk_ident_unquote(names[i]);
		k->source_type = rk_xstrdup(rk_type_name(types[0][i]));
		k->target_type = rk_xstrdup(rk_type_name(types[1][i]));
		k->as_numbers = rk_type_numbers_as(types[0][i], types[1][i]) != RK_T_UNKNOWN;
	}
}

void rk_drift_take(rk_drift *out, rk_pair *pair)
{
	*out = pair->drift;
	memset(&pair->drift, 0, sizeof pair->drift);
}

void rk_pair_free(rk_pair *pair)
{
	for (size_t i = 0; i < pair->nkey; i++)
		free(pair->key[i]);
	free(pair->key);
	for (size_t i = 0; i < pair->ncolumns; i++)
		free(pair->columns[i]);
	free(pair->columns);
	rk_drift_free(&pair->drift);
	memset(pair, 0, sizeof *pair);
}
