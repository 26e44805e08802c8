/*
 * options_parse.c - one rk_opts from its layers: the command line, the
 * --config file's sections, the table's defaults, then the requirements
 * (options.h says which layer wins).  Job files add their layers through
 * options_job.c.
 */
#include "cli/options.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/options_impl.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "io/slurp.h"

/* The option whose name is closest to what the user typed, for the hint. */
static const rk_optdef *rk_opt_suggest(const char *name, size_t len, unsigned cmd)
{
	const rk_optdef *best = NULL;
	size_t bestd = 4;
	char typed[64];

	if (len >= sizeof typed)
		return NULL;
	memcpy(typed, name, len);
	typed[len] = '\0';
	for (size_t i = 0; i < RK_O_COUNT; i++) {
		size_t d;

		if (!(rk_optdefs[i].cmds & cmd))
			continue;
		d = rk_edit_distance(typed, rk_optdefs[i].name);
		if (d < bestd) {
			bestd = d;
			best = &rk_optdefs[i];
		}
	}
	return best;
}

static void rk_list_clear(rk_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

static void rk_list_push(rk_list *l, char *item)
{
	l->items = rk_xrealloc(l->items, (l->n + 1) * sizeof *l->items);
	l->items[l->n++] = item;
}

static void rk_map_clear(rk_map *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->names[i]);
		free(m->sql[i]);
	}
	free(m->names);
	free(m->sql);
	memset(m, 0, sizeof *m);
}

/* Splits "a, b,\"c,d\",numeric(12,2)" on commas outside quotes and
 * parentheses; items are trimmed; an empty item is an error. */
static int rk_list_split(rk_list *l, const char *name, const char *value, rk_error *err)
{
	const char *p = value;

	rk_list_clear(l);
	for (;;) {
		const char *start = p, *end;
		int depth = 0;
		bool quoted = false;

		while (*p && (quoted || depth > 0 || *p != ',')) {
			if (*p == '"')
				quoted = !quoted;
			else if (!quoted && *p == '(')
				depth++;
			else if (!quoted && *p == ')' && depth > 0)
				depth--;
			p++;
		}
		end = p;
		while (start < end && isspace((unsigned char)*start))
			start++;
		while (end > start && isspace((unsigned char)end[-1]))
			end--;
		if (start == end) {
			rk_list_clear(l);
			rk_error_set(err, RK_EXIT_USAGE, "option --%s has an empty item in '%s'", name, value);
			return rk_error_hint(err, "give a comma-separated list of names, e.g. --%s a,b", name);
		}
		rk_list_push(l, rk_xstrndup(start, (size_t)(end - start)));
		if (!*p)
			break;
		p++;
	}
	return 0;
}

/* Longest "option --name" / "FILE:LINE: key name" a message starts with. */
#define RK_OPT_WHERE_MAX 160

/* The "option --name" or "FILE: key name" a message starts with. */
static void rk_opt_where(char *out, size_t n, const rk_optdef *d, const rk_layer *ly)
{
	if (ly->path)
		snprintf(out, n, "%s: key %s", ly->path, d->name);
	else
		snprintf(out, n, "option --%s", d->name);
}

/* Whether a layer may set d now: a higher layer's --from/--to hide this
 * layer's last and the other way round. */
static bool rk_opt_hidden(const rk_optstate *st, const rk_optdef *d, int rank)
{
	rk_optid id = rk_opt_id(d);
	const unsigned char *r = st->rank;

	if (id == RK_O_LAST)
		return (r[RK_O_FROM] && r[RK_O_FROM] < rank) || (r[RK_O_TO] && r[RK_O_TO] < rank);
	if (id == RK_O_FROM || id == RK_O_TO)
		return r[RK_O_LAST] && r[RK_O_LAST] < rank;
	return false;
}

/* The option as a message names it: "--name" on the command line, where
 * ("FILE:LINE: key name") in a file. */
static void rk_opt_label(char *out, size_t n, const rk_optdef *d, const rk_layer *ly, const char *where)
{
	snprintf(out, n, "%s%s", ly->path ? "" : "--", ly->path ? where : d->name);
}

/* A mapping NAME=SQL (or, from a file's "option.NAME" key, NAME given as
 * mapname): the trimmed name, owned by the caller, and where the SQL
 * starts in value (taken as written but its leading blanks).  NULL with
 * err when either is missing. */
static char *rk_opt_map_split(const rk_optdef *d, const char *mapname, const char *value, const char *where,
                              const char **sql, rk_error *err)
{
	char *name, *b, *e;

	*sql = value;
	if (!mapname) {
		const char *eq = strchr(value, '=');

		if (!eq || eq == value) {
			rk_error_set(err, RK_EXIT_USAGE, "%s takes NAME=SQL, not '%s'", where, value);
			rk_error_hint(err, "e.g. --%s 'amount=amount_cents / 100.0'", d->name);
			return NULL;
		}
		name = rk_xstrndup(value, (size_t)(eq - value));
		*sql = eq + 1;
	} else {
		name = rk_xstrdup(mapname);
	}
	/* trim the name; the SQL is taken as written */
	b = name;
	e = name + strlen(name);
	while (*b == ' ' || *b == '\t')
		b++;
	while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	memmove(name, b, (size_t)(e - b));
	name[e - b] = '\0';
	while (**sql == ' ' || **sql == '\t')
		(*sql)++;
	if (!*name || !**sql) {
		rk_error_set(err, RK_EXIT_USAGE, "%s: %s", where, !*name ? "a mapping without a column name" : "a mapping without an expression");
		free(name);
		rk_error_hint(err, "write %s NAME=SQL, e.g. amount=amount_cents / 100.0", d->name);
		return NULL;
	}
	return name;
}

/* RK_OPT_MAP: one NAME=SQL of a mapping; each name has the rank of the
 * layer that mapped it, so a lower layer's mapping of another name adds to
 * a higher one's. */
static int rk_opt_store_map(rk_optstate *st, const rk_optdef *d, const char *mapname, const char *value,
                            const rk_layer *ly, const char *where, rk_error *err)
{
	rk_opts *o = st->opts;
	rk_optid id = rk_opt_id(d);
	rk_map *m = (rk_map *)((char *)o + d->offset);
	const char *sql;
	char *name = rk_opt_map_split(d, mapname, value, where, &sql, err);
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < m->n; i++)
		if (!strcmp(m->names[i], name))
			break;
	if (i < m->n && st->map_rank[id][i] < ly->rank) {
		free(name); /* a higher layer mapped it */
		return 0;
	}
	if (i == m->n) {
		m->names = rk_xrealloc(m->names, (m->n + 1) * sizeof *m->names);
		m->sql = rk_xrealloc(m->sql, (m->n + 1) * sizeof *m->sql);
		if (m->n + 1 > st->map_cap[id]) {
			st->map_cap[id] = (m->n + 1) * 2;
			st->map_rank[id] = rk_xrealloc(st->map_rank[id], st->map_cap[id]);
		}
		m->names[i] = name;
		m->sql[i] = NULL;
		m->n++;
	} else {
		free(name);
	}
	free(m->sql[i]);
	m->sql[i] = rk_xstrdup(sql);
	st->map_rank[id][i] = (unsigned char)ly->rank;
	if (!st->rank[id] || st->rank[id] > ly->rank)
		st->rank[id] = (unsigned char)ly->rank;
	o->set[id] = 1;
	return 0;
}

/* The parsers of one value of each kind but RK_OPT_MAP, into the option's
 * field: 0, or -1 with err (where: rk_opt_where's text). */
typedef int (*rk_opt_storefn)(const rk_optstate *st, const rk_optdef *d, void *field, const char *value,
                              const rk_layer *ly, const char *where, rk_error *err);

static int rk_opt_store_str(const rk_optstate *st, const rk_optdef *d, void *field, const char *value,
                            const rk_layer *ly, const char *where, rk_error *err)
{
	if (d->check && d->check(value, err) < 0) {
		if (ly->path)
			rk_error_prefix(err, "%s", ly->path);
		return -1;
	}
	free(*(char **)field);
	*(char **)field = rk_xstrdup(value);
	return 0;
}

static int rk_opt_store_list(const rk_optstate *st, const rk_optdef *d, void *field, const char *value,
                             const rk_layer *ly, const char *where, rk_error *err)
{
	if (rk_list_split(field, d->name, value, err) < 0) {
		if (ly->path)
			rk_error_prefix(err, "%s", ly->path);
		return -1;
	}
	return 0;
}

/* A flag: no value (the command line), or true/false in a file. */
static int rk_opt_store_flag(const rk_optstate *st, const rk_optdef *d, void *field, const char *value,
                             const rk_layer *ly, const char *where, rk_error *err)
{
	if (!value || !strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcasecmp(value, "on") ||
	    !strcmp(value, "1")) {
		*(bool *)field = true;
	} else if (!strcasecmp(value, "false") || !strcasecmp(value, "no") || !strcasecmp(value, "off") ||
	           !strcmp(value, "0")) {
		*(bool *)field = false;
	} else {
		rk_error_set(err, RK_EXIT_USAGE, "%s takes true or false, not '%s'", where, value);
		return rk_error_hint(err, "write %s = true", d->name);
	}
	return 0;
}

static int rk_opt_store_uint(const rk_optstate *st, const rk_optdef *d, void *field, const char *value,
                             const rk_layer *ly, const char *where, rk_error *err)
{
	char *end = NULL; /* set by strtoul, read only when it ran */
	unsigned long v = 0;

	errno = 0;
	if (isdigit((unsigned char)value[0]))
		v = strtoul(value, &end, 10);
	if (!isdigit((unsigned char)value[0]) || errno || *end || v < d->lo || v > d->hi) {
		rk_error_set(err, RK_EXIT_USAGE, "%s must be an integer from %lu to %lu, not '%s'", where, d->lo, d->hi,
		             value);
		return rk_error_hint(err, "e.g. --%s %s", d->name, d->def ? d->def : "1");
	}
	*(unsigned long *)field = v;
	return 0;
}

/* A duration, or N calendar months stored as -N. */
static int rk_opt_store_cal(const rk_optstate *st, const rk_optdef *d, void *field, const char *value,
                            const rk_layer *ly, const char *where, rk_error *err)
{
	char opt[RK_OPT_WHERE_MAX + 2];
	size_t n = strspn(value, "0123456789");

	rk_opt_label(opt, sizeof opt, d, ly, where);
	if (n > 0 && n < 10 && (!strcmp(value + n, "mo") || !strcmp(value + n, "month") || !strcmp(value + n, "months"))) {
		long months = strtol(value, NULL, 10);

		if (months < 1 || months > 1200) {
			rk_error_set(err, RK_EXIT_USAGE, "invalid %s '%s': 1 to 1200 months", opt, value);
			return rk_error_hint(err, "e.g. %s 1mo (with --timezone)", opt);
		}
		*(rk_usec *)field = -(rk_usec)months;
		return 0;
	}
	if (rk_duration_parse(opt, value, false, (rk_usec *)field, err) < 0)
		return rk_error_hint(err, "write a duration as <number><unit>, units us, ms, s, m, h, d, w, mo "
		                          "(calendar months, with --timezone), e.g. 15m, 1h, 1d, 1mo");
	return 0;
}

/* RK_OPT_DUR and RK_OPT_DUR0. */
static int rk_opt_store_dur(const rk_optstate *st, const rk_optdef *d, void *field, const char *value,
                            const rk_layer *ly, const char *where, rk_error *err)
{
	char opt[RK_OPT_WHERE_MAX + 2];

	rk_opt_label(opt, sizeof opt, d, ly, where);
	if (rk_duration_parse(opt, value, d->kind == RK_OPT_DUR0, (rk_usec *)field, err) < 0)
		return -1;
	return 0;
}

static int rk_opt_store_time(const rk_optstate *st, const rk_optdef *d, void *field, const char *value,
                             const rk_layer *ly, const char *where, rk_error *err)
{
	char opt[RK_OPT_WHERE_MAX + 2];

	rk_opt_label(opt, sizeof opt, d, ly, where);
	if (rk_time_parse_arg(opt, value, (rk_usec *)field, err) < 0)
		return -1;
	return 0;
}

/* One of d->choices, stored as its index. */
static int rk_opt_store_enum(const rk_optstate *st, const rk_optdef *d, void *field, const char *value,
                             const rk_layer *ly, const char *where, rk_error *err)
{
	int k;
	rk_buf b = RK_BUF_INIT;

	for (k = 0; d->choices[k]; k++)
		if (!strcmp(d->choices[k], value)) {
			*(int *)field = k;
			return 0;
		}
	for (int j = 0; d->choices[j]; j++)
		rk_buf_printf(&b, "%s%s", j ? (d->choices[j + 1] ? ", " : " or ") : "", d->choices[j]);
	rk_error_set(err, RK_EXIT_USAGE, "%s must be %s, not '%s'", where, rk_buf_cstr(&b), value);
	rk_buf_free(&b);
	if (d->bare)
		return rk_error_hint(err, "--%s alone means --%s=%s", d->name, d->name, d->bare);
	return rk_error_hint(err, "see 'reckon %s --help'", st->opts->cmd_name);
}

static const rk_opt_storefn rk_opt_stores[] = {
	[RK_OPT_STR] = rk_opt_store_str,
	[RK_OPT_LIST] = rk_opt_store_list,
	[RK_OPT_FLAG] = rk_opt_store_flag,
	[RK_OPT_UINT] = rk_opt_store_uint,
	[RK_OPT_DUR] = rk_opt_store_dur,
	[RK_OPT_DUR0] = rk_opt_store_dur,
	[RK_OPT_CAL] = rk_opt_store_cal,
	[RK_OPT_TIME] = rk_opt_store_time,
	[RK_OPT_ENUM] = rk_opt_store_enum,
};

/* Stores one value of option d given by layer ly, unless a higher layer
 * set it.  For RK_OPT_MAP, mapname is the logical column (from
 * "option.NAME" in a file) or NULL (NAME=SQL in value). */
static int rk_opt_store(rk_optstate *st, const rk_optdef *d, const char *mapname, const char *value,
                        const rk_layer *ly, rk_error *err)
{
	rk_opts *o = st->opts;
	rk_optid id = rk_opt_id(d);
	char where[RK_OPT_WHERE_MAX];

	rk_opt_where(where, sizeof where, d, ly);
	if (d->kind == RK_OPT_MAP)
		return rk_opt_store_map(st, d, mapname, value, ly, where, err);
	if (st->rank[id] && st->rank[id] < ly->rank)
		return 0; /* a higher layer set it */
	if (rk_opt_hidden(st, d, ly->rank))
		return 0;
	if (rk_opt_stores[d->kind](st, d, (char *)o + d->offset, value, ly, where, err) < 0)
		return -1;
	free(o->text[id]);
	o->text[id] = value ? rk_xstrdup(value) : NULL;
	st->rank[id] = (unsigned char)ly->rank;
	o->set[id] = ly->rank != RK_LAYER_BUILTIN;
	return 0;
}

/* --last and --from/--to within one layer. */
static int rk_opt_layer_done(rk_optstate *st, const rk_layer *ly, rk_error *err)
{
	const unsigned char *r = st->rank;

	if (r[RK_O_LAST] == ly->rank && (r[RK_O_FROM] == ly->rank || r[RK_O_TO] == ly->rank)) {
		if (ly->path)
			rk_error_set(err, RK_EXIT_USAGE, "%s: last and from/to exclude each other", ly->path);
		else
			rk_error_set(err, RK_EXIT_USAGE, "options --last and --from/--to exclude each other");
		return rk_error_hint(err, "give either --last DUR or --from TS --to TS");
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * the command line
 * ---------------------------------------------------------------------- */

int rk_opts_argv(rk_optstate *st, int argc, char **argv, rk_error *err)
{
	rk_opts *opts = st->opts;
	rk_layer ly = { RK_LAYER_ARGV, NULL };
	bool only_args = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *name, *eq, *value = NULL;
		const rk_optdef *d;
		size_t nlen;

		if (only_args || a[0] != '-' || a[1] == '\0') {
			rk_list_push(&opts->args, rk_xstrdup(a));
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = true;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			opts->help = true;
			continue;
		}
		if (a[1] == 'v' && strspn(a + 1, "v") == strlen(a + 1)) {
			opts->verbose += (int)strlen(a + 1);
			continue;
		}
		if (!strcmp(a, "--verbose")) {
			opts->verbose++;
			continue;
		}
		if (a[1] != '-') {
			rk_error_set(err, RK_EXIT_USAGE, "unknown option '%s' for reckon %s", a, opts->cmd_name);
			return rk_error_hint(err, "see 'reckon %s --help'", opts->cmd_name);
		}
		name = a + 2;
		eq = strchr(name, '=');
		nlen = eq ? (size_t)(eq - name) : strlen(name);
		d = rk_opt_find(name, nlen);
		if (!d || !(d->cmds & opts->cmd)) {
			const rk_optdef *s = rk_opt_suggest(name, nlen, opts->cmd);

			if (d)
				rk_error_set(err, RK_EXIT_USAGE, "option '--%.*s' does not apply to reckon %s", (int)nlen, name,
				             opts->cmd_name);
			else
				rk_error_set(err, RK_EXIT_USAGE, "unknown option '--%.*s' for reckon %s", (int)nlen, name,
				             opts->cmd_name);
			if (s && !d)
				return rk_error_hint(err, "did you mean --%s? see 'reckon %s --help'", s->name, opts->cmd_name);
			return rk_error_hint(err, "see 'reckon %s --help'", opts->cmd_name);
		}
		if (d->kind == RK_OPT_FLAG) {
			if (eq) {
				rk_error_set(err, RK_EXIT_USAGE, "option --%s takes no value", d->name);
				return rk_error_hint(err, "write just --%s", d->name);
			}
		} else if (eq) {
			value = eq + 1;
		} else if (d->bare) {
			value = d->bare;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			rk_error_set(err, RK_EXIT_USAGE, "option --%s needs a value (%s)", d->name,
			             d->arg ? d->arg : "see --help");
			return rk_error_hint(err, "see 'reckon %s --help'", opts->cmd_name);
		}
		if (rk_opt_store(st, d, NULL, value, &ly, err) < 0)
			return -1;
	}
	return rk_opt_layer_done(st, &ly, err);
}

int rk_opts_leading(int argc, char **argv, int first)
{
	int i = first;

	while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0' && strcmp(argv[i], "--") != 0) {
		const char *a = argv[i];

		if (a[1] == '-' && !strchr(a, '=')) {
			const rk_optdef *d = rk_opt_find(a + 2, strlen(a + 2));

			if (d && d->kind != RK_OPT_FLAG && !d->bare && i + 1 < argc)
				i++; /* its value */
		}
		i++;
	}
	return i - first;
}

/* ------------------------------------------------------------------------
 * INI layers
 * ---------------------------------------------------------------------- */

/* One section of an INI file as a layer (options_impl.h). */
int rk_opts_section(rk_optstate *st, const rk_ini *ini, const char *section, int rank, bool table_only,
                    bool own, rk_error *err)
{
	rk_layer ly = { rank, ini->path };

	for (size_t i = 0; i < ini->nentries; i++) {
		const rk_ini_entry *e = &ini->entries[i];
		const char *dot = strchr(e->key, '.');
		size_t klen = dot ? (size_t)(dot - e->key) : strlen(e->key);
		const rk_optdef *d;
		char path[512];

		if (section && strcmp(e->section, section) != 0)
			continue;
		snprintf(path, sizeof path, "%s:%d", ini->path, e->line);
		ly.path = path;
		d = rk_opt_find(e->key, klen);
		if (!d || (d->flags & RK_OPTF_NOFILE) || (dot && d->kind != RK_OPT_MAP) ||
		    (table_only && !(d->flags & RK_OPTF_TABLE))) {
			rk_error_set(err, RK_EXIT_USAGE, "%s: unknown key '%s'%s%s%s", path, e->key, *e->section ? " in [" : "",
			             e->section, *e->section ? "]" : "");
			if (d && table_only)
				return rk_error_hint(err, "a job's sections hold table options; give --%s on the command line",
				                     d->name);
			if (d && dot)
				return rk_error_hint(err, "only source-expr.NAME and target-expr.NAME take a column name");
			if (d && (d->flags & RK_OPTF_NOFILE))
				return rk_error_hint(err, "%s is given on the command line only", d->name);
			return rk_error_hint(err, "keys are the long option names without dashes, e.g. window = 1h");
		}
		if (d->kind == RK_OPT_MAP && (!dot || !dot[1])) {
			rk_error_set(err, RK_EXIT_USAGE, "%s: key '%s' needs the logical column's name", path, e->key);
			return rk_error_hint(err, "write %s.NAME = SQL, e.g. %s.amount = amount_cents / 100.0", d->name, d->name);
		}
		if (!(d->cmds & st->opts->cmd)) {
			if (own && !table_only) {
				rk_error_set(err, RK_EXIT_USAGE, "%s: '%s' is not an option of reckon %s", path, d->name,
				             st->opts->cmd_name);
				return rk_error_hint(err, "move it to the section of the command that takes it, or to [reckon]");
			}
			continue; /* shared: another command's key */
		}
		if (rk_opt_store(st, d, dot ? dot + 1 : NULL, e->value, &ly, err) < 0)
			return -1;
	}
	ly.path = ini->path;
	/* every section at once (rk_opts_job_read's check of the keys): the
	 * exclusions are each section's, checked when its table is parsed */
	return section ? rk_opt_layer_done(st, &ly, err) : 0;
}

/* An INI file is capped: a configuration is small, and /dev/zero must not
 * spin. */
#define RK_OPTS_INI_MAX (16u << 20)

rk_ini *rk_opts_ini_read(const char *path, const char *what, rk_error *err)
{
	rk_buf data = RK_BUF_INIT;
	rk_ini *ini;

	if (rk_slurp(path, what, RK_OPTS_INI_MAX, &data, err) < 0) {
		rk_buf_free(&data);
		return NULL;
	}
	ini = rk_ini_parse(path, data.data ? data.data : "", data.len, err);
	rk_buf_free(&data);
	return ini;
}

int rk_opts_config(rk_optstate *st, rk_error *err)
{
	const char *cmd = st->opts->cmd_name;
	rk_ini *ini = rk_opts_ini_read(st->opts->config, "config file", err);
	int rc = -1;

	if (!ini)
		return -1;
	for (size_t i = 0; i < ini->nsections; i++) {
		const char *s = ini->sections[i].name;
		bool known = !strcmp(s, "reckon");

		for (unsigned c = 1; c <= RK_CMD_LATENESS && !known; c <<= 1)
			known = !strcmp(s, rk_opt_cmd_label(c));
		if (!known) {
			rk_error_set(err, RK_EXIT_USAGE, "%s:%d: unknown section [%s]", ini->path, ini->sections[i].line, s);
			if (!strcmp(s, "defaults") || !strncmp(s, "table ", 6))
				rk_error_hint(err, "a job file is read with --job FILE, not --config");
			else
				rk_error_hint(err, "sections are [reckon] or a command name such as [check]");
			goto done;
		}
	}
	if (rk_opts_section(st, ini, cmd, RK_LAYER_CMD_SECTION, false, true, err) < 0 ||
	    rk_opts_section(st, ini, "reckon", RK_LAYER_RECKON_SECTION, false, false, err) < 0 ||
	    rk_opts_section(st, ini, "", RK_LAYER_TOP, false, false, err) < 0)
		goto done;
	rc = 0;
done:
	rk_ini_free(ini);
	return rc;
}

/* ------------------------------------------------------------------------
 * defaults, requirements, the entry points
 * ---------------------------------------------------------------------- */

int rk_opts_finish(rk_optstate *st, rk_error *err)
{
	rk_opts *o = st->opts;
	rk_layer ly = { RK_LAYER_BUILTIN, NULL };

	for (size_t i = 0; i < RK_O_COUNT; i++) {
		const rk_optdef *d = &rk_optdefs[i];

		if (!(d->cmds & o->cmd) || !d->def || st->rank[i])
			continue;
		if (d->def_cmds && !(d->def_cmds & o->cmd))
			continue;
		if (rk_opt_store(st, d, NULL, d->def, &ly, err) < 0)
			return -1; /* a default the table itself got wrong */
	}
	for (size_t i = 0; i < RK_O_COUNT; i++) {
		if ((rk_optdefs[i].flags & RK_OPTF_JOBONLY) && o->set[i] && !o->job) {
			rk_error_set(err, RK_EXIT_USAGE, "option --%s needs --job FILE", rk_optdefs[i].name);
			return rk_error_hint(err, "--only and --parallel choose and pace the tables of a job file");
		}
	}
	for (size_t i = 0; i < RK_O_COUNT; i++) {
		const rk_optdef *d = &rk_optdefs[i];

		if (!(d->required & o->cmd) || o->set[i])
			continue;
		if (st->tables && (d->flags & RK_OPTF_TABLE))
			continue; /* each table of the job needs it */
		rk_error_set(err, RK_EXIT_USAGE, "missing required option --%s", d->name);
		return rk_error_hint(err, "see 'reckon %s --help' for what --%s takes", o->cmd_name, d->name);
	}
	/* a check's windows need a width; without --time it has key segments */
	if (o->cmd == RK_CMD_CHECK && o->set[RK_O_TIME] && !o->set[RK_O_WINDOW] && !st->tables) {
		rk_error_set(err, RK_EXIT_USAGE, "missing required option --window");
		return rk_error_hint(err, "--time checks time windows of a width, e.g. --window 1h; without --time the "
		                          "table is checked by key segments");
	}
	return 0;
}

void rk_opts_begin(rk_optstate *st, rk_opts *opts, unsigned cmd)
{
	memset(opts, 0, sizeof *opts);
	memset(st, 0, sizeof *st);
	st->opts = opts;
	opts->cmd = cmd;
	opts->cmd_name = rk_opt_cmd_label(cmd);
}

void rk_opts_end(rk_optstate *st)
{
	for (size_t i = 0; i < RK_O_COUNT; i++)
		free(st->map_rank[i]);
}

int rk_opts_parse(rk_opts *opts, unsigned cmd, int argc, char **argv, rk_error *err)
{
	rk_optstate st;
	int rc = -1;

	rk_opts_begin(&st, opts, cmd);
	if (rk_opts_argv(&st, argc, argv, err) < 0)
		goto done;
	if (opts->help) {
		rc = 0;
		goto done;
	}
	st.tables = opts->job != NULL;
	if (opts->config && rk_opts_config(&st, err) < 0)
		goto done;
	rc = rk_opts_finish(&st, err);
done:
	rk_opts_end(&st);
	return rc;
}

int rk_opts_start(rk_opts *opts, unsigned cmd, int argc, char **argv, const char *args_hint, rk_error *err)
{
	if (rk_opts_parse(opts, cmd, argc, argv, err) < 0)
		return -1;
	if (opts->help) {
		rk_opts_usage(cmd);
		return 0;
	}
	rk_log_level = opts->verbose;
	if (args_hint && opts->args.n) {
		rk_error_set(err, RK_EXIT_USAGE, "unexpected argument '%s'", opts->args.items[0]);
		return rk_error_hint(err, "%s", args_hint);
	}
	return 1;
}

int rk_opts_stop(rk_opts *opts, int rc, const rk_error *err)
{
	rk_opts_free(opts);
	if (rc == 0)
		return RK_EXIT_OK;
	rk_log_error(err);
	return err->code ? err->code : RK_EXIT_USAGE;
}

void rk_opts_free(rk_opts *opts)
{
	for (size_t i = 0; i < RK_O_COUNT; i++) {
		void *field = (char *)opts + rk_optdefs[i].offset;

		switch (rk_optdefs[i].kind) {
		case RK_OPT_STR:
			free(*(char **)field);
			break;
		case RK_OPT_LIST:
			rk_list_clear(field);
			break;
		case RK_OPT_MAP:
			rk_map_clear(field);
			break;
		default:
			break;
		}
		free(opts->text[i]);
	}
	rk_list_clear(&opts->args);
	memset(opts, 0, sizeof *opts);
}

bool rk_opts_is_set(const rk_opts *opts, rk_optid id)
{
	return id < RK_O_COUNT && opts->set[id];
}

int rk_opts_require(const rk_opts *opts, rk_optid id, rk_error *err)
{
	if (rk_opts_is_set(opts, id))
		return 0;
	rk_error_set(err, RK_EXIT_USAGE, "missing required option --%s", rk_optdefs[id].name);
	return rk_error_hint(err, "see 'reckon %s --help' for what --%s takes", opts->cmd_name, rk_optdefs[id].name);
}
