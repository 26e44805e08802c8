#include "cli/options.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

/* RK_OPT_MODE: a string whose value may be left out on the command line,
 * where a bare --NAME means --NAME=on (a config file always gives one). */
typedef enum rk_optkind { RK_OPT_STR, RK_OPT_LIST, RK_OPT_FLAG, RK_OPT_MODE } rk_optkind;

typedef struct rk_optdef {
	const char *name;
	rk_optkind kind;
	size_t offset;
	unsigned cmds;
	const char *arg;   /* metavariable shown in --help */
	const char *help;
} rk_optdef;

#define OFF(f) offsetof(rk_opts, f)
#define TABLE (RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LOAD)
#define ANY (RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LOAD | RK_CMD_LAB | RK_CMD_RERUN)

/* The one option table: parser, INI reader and --help all read it. */
static const rk_optdef rk_optdefs[] = {
	{"source", RK_OPT_STR, OFF(source), TABLE | RK_CMD_LAB, "CONN",
	 "source: libpq conninfo or URI, or csv:PATH (a file, or a directory of *.csv read in name order)"},
	{"target", RK_OPT_STR, OFF(target), TABLE | RK_CMD_LAB, "CONN",
	 "target: same forms (repair and load: PostgreSQL only)"},
	{"table", RK_OPT_STR, OFF(table), TABLE, "NAME", "relation name on both sides (schema-qualified allowed)"},
	{"source-table", RK_OPT_STR, OFF(source_table), TABLE, "NAME", "source relation when the names differ"},
	{"target-table", RK_OPT_STR, OFF(target_table), TABLE, "NAME", "target relation when the names differ"},
	{"key", RK_OPT_LIST, OFF(key), TABLE, "COLS", "comma-separated key columns (required)"},
	{"time", RK_OPT_STR, OFF(time), TABLE, "COL", "the time column: timestamptz, timestamp (taken as UTC) or date (required)"},
	{"sum", RK_OPT_LIST, OFF(sum), TABLE, "COLS", "measure columns summed exactly per window"},
	{"columns", RK_OPT_LIST, OFF(columns), TABLE, "COLS",
	 "columns hashed per row, in this order (default: key, time, then sum columns)"},
	{"types", RK_OPT_LIST, OFF(types), TABLE, "COL:TYPE,...",
	 "column types for CSV data (default: the PostgreSQL side's catalog types)"},
	{"csv-delimiter", RK_OPT_STR, OFF(csv_delimiter), TABLE, "C", "CSV field delimiter (default ,)"},
	{"csv-null", RK_OPT_STR, OFF(csv_null), TABLE, "S",
	 "CSV NULL marker (default: unquoted empty field is NULL, \"\" is the empty string)"},
	{"from", RK_OPT_STR, OFF(from), RK_CMD_CHECK, "TS", "start of the check range, ISO-8601 with Z or an offset (required)"},
	{"to", RK_OPT_STR, OFF(to), RK_CMD_CHECK, "TS", "end of the check range, exclusive (required)"},
	{"window", RK_OPT_STR, OFF(window), RK_CMD_CHECK, "DUR", "window width: 90s, 15m, 1h, 1d (required)"},
	{"settle", RK_OPT_STR, OFF(settle), RK_CMD_CHECK, "DUR", "closedness margin: a window is closed when end <= now - settle (default 10m)"},
	{"now", RK_OPT_STR, OFF(now), RK_CMD_CHECK, "TS", "the clock used for closedness (default: the current time)"},
	{"rerun-list", RK_OPT_STR, OFF(rerun_list), RK_CMD_CHECK | RK_CMD_REPAIR, "FILE",
	 "check: write the rerun list (CSV); repair: the rerun list to replay"},
	{"report", RK_OPT_STR, OFF(report), RK_CMD_CHECK, "DIR", "write windows.csv, findings.csv and summary.json into DIR"},
	{"format", RK_OPT_STR, OFF(format), RK_CMD_CHECK | RK_CMD_REPAIR, "text|json", "what goes to stdout (default text)"},
	{"jobs", RK_OPT_STR, OFF(jobs), RK_CMD_CHECK, "N", "parallel readers per side (default 1)"},
	{"pushdown", RK_OPT_MODE, OFF(pushdown), RK_CMD_CHECK, "auto",
	 "compute PostgreSQL sides' window digests in the server (reckon extension, docs/pushdown.md); "
	 "=auto: stream the sides without it"},
	{"audit", RK_OPT_STR, OFF(audit), RK_CMD_CHECK | RK_CMD_REPAIR, "CONN",
	 "record the run in schema reckon of that database (check: windows, findings; repair: intervals)"},
	{"leaf-rows", RK_OPT_STR, OFF(leaf_rows), RK_CMD_CHECK | RK_CMD_REPAIR, "N",
	 "most rows per side the key-level drilldown holds at once (default 200000)"},
	{"watermark-query", RK_OPT_STR, OFF(watermark_query), RK_CMD_CHECK, "SQL",
	 "source query returning one timestamp, run as written in a read-only transaction: audit the watermark's claim"},
	{"execute", RK_OPT_FLAG, OFF(execute), RK_CMD_REPAIR, NULL, "really change the target (default: print the plan only)"},
	{"interval-column", RK_OPT_STR, OFF(interval_column), RK_CMD_REPAIR | RK_CMD_LOAD, "COL",
	 "target column recording each row's load interval start"},
	{"strategy", RK_OPT_STR, OFF(strategy), RK_CMD_LOAD, "NAME", "load strategy (see docs/loader.md)"},
	{"watermark-table", RK_OPT_STR, OFF(watermark_table), RK_CMD_LOAD, "NAME", "the watermark table (one row per load name)"},
	{"load-name", RK_OPT_STR, OFF(load_name), RK_CMD_LOAD, "NAME", "the watermark row this load owns"},
	{"lookback", RK_OPT_STR, OFF(lookback), RK_CMD_LOAD, "DUR", "re-read this far behind the watermark (keyed strategies)"},
	{"interval-start", RK_OPT_STR, OFF(interval_start), RK_CMD_LOAD, "TS", "start of the data interval of this run"},
	{"interval-end", RK_OPT_STR, OFF(interval_end), RK_CMD_LOAD, "TS", "end of the data interval of this run"},
	{"crash-at", RK_OPT_STR, OFF(crash_at), RK_CMD_LOAD, "POINT", "fault injection: SIGKILL this process at POINT"},
	{"unsafe", RK_OPT_FLAG, OFF(unsafe), RK_CMD_LOAD, NULL, "allow the strategies that lose or duplicate rows"},
	{"engine", RK_OPT_STR, OFF(engine), RK_CMD_LAB, "postgres|split|all", "lab engines (default all)"},
	{"scenario", RK_OPT_STR, OFF(scenario), RK_CMD_LAB, "NAME|all", "lab scenario (default all)"},
	{"out", RK_OPT_STR, OFF(out), RK_CMD_LAB, "DIR", "lab output directory (default out)"},
	{"merge", RK_OPT_FLAG, OFF(merge), RK_CMD_RERUN, NULL, "merge adjacent intervals into ranges"},
	{"as", RK_OPT_STR, OFF(as), RK_CMD_RERUN, "airflow", "print scheduler commands"},
	{"dag", RK_OPT_STR, OFF(dag), RK_CMD_RERUN, "DAG", "the Airflow DAG id (with --as airflow)"},
	{"input", RK_OPT_STR, OFF(input), RK_CMD_RERUN, "FILE", "the rerun list to read (default: the first argument)"},
	{"config", RK_OPT_STR, OFF(config), ANY, "FILE", "INI file with the same keys (command-line options win)"},
};

#define RK_NOPTS (sizeof rk_optdefs / sizeof rk_optdefs[0])

static const char *rk_cmd_label(unsigned cmd)
{
	switch (cmd) {
	case RK_CMD_CHECK: return "check";
	case RK_CMD_REPAIR: return "repair";
	case RK_CMD_LOAD: return "load";
	case RK_CMD_LAB: return "lab";
	case RK_CMD_RERUN: return "rerun-list";
	default: return "?";
	}
}

static const rk_optdef *rk_opt_find(const char *name, size_t len)
{
	for (size_t i = 0; i < RK_NOPTS; i++)
		if (strlen(rk_optdefs[i].name) == len && memcmp(rk_optdefs[i].name, name, len) == 0)
			return &rk_optdefs[i];
	return NULL;
}

/* The option whose name is closest to what the user typed, for the hint. */
static const rk_optdef *rk_opt_suggest(const char *name, size_t len, unsigned cmd)
{
	const rk_optdef *best = NULL;
	size_t bestd = 4;

	for (size_t i = 0; i < RK_NOPTS; i++) {
		const char *o = rk_optdefs[i].name;
		size_t olen = strlen(o), d;
		size_t prev[64], cur[64];

		if (!(rk_optdefs[i].cmds & cmd) || olen >= 63 || len >= 63)
			continue;
		for (size_t j = 0; j <= olen; j++)
			prev[j] = j;
		for (size_t a = 1; a <= len; a++) {
			cur[0] = a;
			for (size_t b = 1; b <= olen; b++) {
				size_t c = prev[b - 1] + (name[a - 1] != o[b - 1]);
				if (prev[b] + 1 < c)
					c = prev[b] + 1;
				if (cur[b - 1] + 1 < c)
					c = cur[b - 1] + 1;
				cur[b] = c;
			}
			memcpy(prev, cur, (olen + 1) * sizeof prev[0]);
		}
		d = prev[olen];
		if (d < bestd) {
			bestd = d;
			best = &rk_optdefs[i];
		}
	}
	return best;
}

static void rk_list_free(rk_list *l)
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

/* Splits "a, b,\"c,d\",numeric(12,2)" on commas outside quotes and
 * parentheses; items are trimmed; an empty item is an error. */
static int rk_list_split(rk_list *l, const char *name, const char *value, rk_error *err)
{
	const char *p = value;

	rk_list_free(l);
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
			rk_list_free(l);
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

typedef struct rk_optstate {
	rk_opts *opts;
	unsigned char set[RK_NOPTS];   /* given on the command line */
} rk_optstate;

static int rk_opt_store(rk_optstate *st, const rk_optdef *d, const char *value, bool from_config, rk_error *err)
{
	void *field = (char *)st->opts + d->offset;
	size_t idx = (size_t)(d - rk_optdefs);

	if (from_config && st->set[idx])
		return 0; /* the command line wins */
	st->set[idx] = 1;
	switch (d->kind) {
	case RK_OPT_STR:
	case RK_OPT_MODE: {
		char **s = field;
		free(*s);
		*s = rk_xstrdup(value);
		return 0;
	}
	case RK_OPT_LIST:
		return rk_list_split(field, d->name, value, err);
	case RK_OPT_FLAG: {
		bool *b = field;
		if (!value || !strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcasecmp(value, "on") ||
		    !strcmp(value, "1")) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(value, "false") || !strcasecmp(value, "no") || !strcasecmp(value, "off") || !strcmp(value, "0")) {
			*b = false;
			return 0;
		}
		rk_error_set(err, RK_EXIT_USAGE, "option %s takes true or false, not '%s'", d->name, value);
		return rk_error_hint(err, "write %s = true", d->name);
	}
	}
	return 0;
}

typedef struct rk_inictx {
	rk_optstate *st;
	const char *path;
	rk_error *err;
	bool failed;
	int line;
} rk_inictx;

static int rk_ini_handler(void *user, const char *section, const char *name, const char *value)
{
	rk_inictx *c = user;
	const rk_optdef *d;
	const char *cmdname = rk_cmd_label(c->st->opts->cmd);

	if (c->failed)
		return 1;
	/* Sections let one file serve several commands: top level and [reckon]
	 * apply to all, [check] only to check, and so on. */
	if (section[0] && strcmp(section, "reckon") && strcmp(section, cmdname)) {
		if (strcmp(section, "check") && strcmp(section, "repair") && strcmp(section, "load") &&
		    strcmp(section, "lab") && strcmp(section, "rerun-list")) {
			rk_error_set(c->err, RK_EXIT_USAGE, "%s: unknown section [%s]", c->path, section);
			rk_error_hint(c->err, "sections are [reckon] or a command name such as [check]");
			c->failed = true;
			return 0;
		}
		return 1;
	}
	d = rk_opt_find(name, strlen(name));
	if (!d || !strcmp(name, "config")) {
		rk_error_set(c->err, RK_EXIT_USAGE, "%s: unknown key '%s'", c->path, name);
		rk_error_hint(c->err, "keys are the long option names without dashes, e.g. source = host=... dbname=...");
		c->failed = true;
		return 0;
	}
	if (!(d->cmds & c->st->opts->cmd)) {
		/* A key for another command in a shared section is not an error. */
		return 1;
	}
	if (rk_opt_store(c->st, d, value, true, c->err) < 0) {
		rk_error_prefix(c->err, "%s", c->path);
		c->failed = true;
		return 0;
	}
	return 1;
}

static int rk_opts_load_config(rk_optstate *st, rk_error *err)
{
	rk_inictx c = {st, st->opts->config, err, false, 0};
	FILE *f = fopen(st->opts->config, "r");
	int rc;

	if (!f) {
		rk_error_set(err, RK_EXIT_USAGE, "cannot read config file '%s': %s", st->opts->config, strerror(errno));
		return rk_error_hint(err, "check the path given to --config");
	}
	rc = ini_parse_file(f, rk_ini_handler, &c);
	fclose(f);
	if (rc != 0) {
		if (c.failed) {
			/* the handler's message; add the line inih reports */
			char tmp[sizeof err->msg];
			snprintf(tmp, sizeof tmp, "%s", err->msg);
			if (rc > 0 && strncmp(tmp, st->opts->config, strlen(st->opts->config)) == 0)
				snprintf(err->msg, sizeof err->msg, "%s:%d%s", st->opts->config, rc,
				         tmp + strlen(st->opts->config));
			return -1;
		}
		rk_error_set(err, RK_EXIT_USAGE, "%s:%d: malformed line", st->opts->config, rc);
		return rk_error_hint(err, "lines are 'key = value', '[section]' or comments starting with ; or #");
	}
	return 0;
}

int rk_opts_parse(rk_opts *opts, unsigned cmd, int argc, char **argv, rk_error *err)
{
	rk_optstate st;
	bool only_args = false;

	memset(opts, 0, sizeof *opts);
	memset(&st, 0, sizeof st);
	st.opts = opts;
	opts->cmd = cmd;
	opts->cmd_name = rk_cmd_label(cmd);

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
		if (!d || !(d->cmds & cmd)) {
			const rk_optdef *s = rk_opt_suggest(name, nlen, cmd);
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
		} else if (d->kind == RK_OPT_MODE) {
			value = "on";
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			rk_error_set(err, RK_EXIT_USAGE, "option --%s needs a value (%s)", d->name, d->arg);
			return rk_error_hint(err, "see 'reckon %s --help'", opts->cmd_name);
		}
		if (rk_opt_store(&st, d, value, false, err) < 0)
			return -1;
	}
	if (opts->help)
		return 0;
	if (opts->config && rk_opts_load_config(&st, err) < 0)
		return -1;
	return 0;
}

void rk_opts_free(rk_opts *opts)
{
	for (size_t i = 0; i < RK_NOPTS; i++) {
		void *field = (char *)opts + rk_optdefs[i].offset;
		if (rk_optdefs[i].kind == RK_OPT_STR || rk_optdefs[i].kind == RK_OPT_MODE) {
			free(*(char **)field);
		} else if (rk_optdefs[i].kind == RK_OPT_LIST) {
			rk_list_free(field);
		}
	}
	rk_list_free(&opts->args);
	memset(opts, 0, sizeof *opts);
}

static const char *rk_cmd_synopsis(unsigned cmd)
{
	switch (cmd) {
	case RK_CMD_CHECK:
		return "reckon check --source CONN --target CONN --table NAME --key COLS --time COL\n"
		       "             --from TS --to TS --window DUR [options]\n\n"
		       "Compares source and target per closed window [start, end): row count, exact sums\n"
		       "and an order-independent hash of the rows; names the damaged keys and writes a\n"
		       "rerun list of the windows to redo.";
	case RK_CMD_REPAIR:
		return "reckon repair --rerun-list FILE --source CONN --target CONN --table NAME --key COLS\n"
		       "              --time COL [--execute] [options]\n\n"
		       "Replaces the intervals of a rerun list in the target, one transaction per\n"
		       "interval, then re-checks each.  Without --execute only prints the plan.";
	case RK_CMD_LOAD:
		return "reckon load --strategy NAME --source CONN --target CONN --table NAME --key COLS\n"
		       "            --time COL [options]\n\n"
		       "Runs one incremental load with the named strategy (the loader module).";
	case RK_CMD_LAB:
		return "reckon lab --source CONN [--target CONN] [--engine postgres|split|all]\n"
		       "           [--scenario NAME|all] [--out DIR]\n\n"
		       "Reproduces the load failure scenarios on a real PostgreSQL, then checks and\n"
		       "repairs each.";
	case RK_CMD_RERUN:
		return "reckon rerun-list [--merge | --as airflow --dag DAG] FILE\n\n"
		       "Reads a rerun list: merges adjacent intervals into ranges, or prints the\n"
		       "scheduler commands that re-run them.";
	default:
		return "";
	}
}

void rk_opts_usage(unsigned cmd)
{
	printf("usage: %s\n\noptions:\n", rk_cmd_synopsis(cmd));
	for (size_t i = 0; i < RK_NOPTS; i++) {
		const rk_optdef *d = &rk_optdefs[i];
		char left[64];

		if (!(d->cmds & cmd))
			continue;
		if (d->kind == RK_OPT_MODE)
			snprintf(left, sizeof left, "--%s[=%s]", d->name, d->arg);
		else if (d->arg)
			snprintf(left, sizeof left, "--%s %s", d->name, d->arg);
		else
			snprintf(left, sizeof left, "--%s", d->name);
		if (strlen(left) > 24)
			printf("  %s\n  %-24s %s\n", left, "", d->help);
		else
			printf("  %-24s %s\n", left, d->help);
	}
	printf("  %-24s %s\n  %-24s %s\n", "-v, --verbose", "more diagnostics on stderr (repeat for debug)", "-h, --help",
	       "this help");
	printf("\nexit status: 0 match / success, 1 differences found, 2 usage or input error,\n"
	       "3 runtime error (connection, query, file)\n");
}

int rk_opts_require(const char *value, const char *name, rk_error *err)
{
	if (value && *value)
		return 0;
	rk_error_set(err, RK_EXIT_USAGE, "missing required option --%s", name);
	return rk_error_hint(err, "see --help for what --%s takes", name);
}

int rk_opts_require_list(const rk_list *l, const char *name, rk_error *err)
{
	return rk_opts_require(l->n ? l->items[0] : NULL, name, err);
}

int rk_opts_time(const char *value, const char *name, rk_usec *out, rk_error *err)
{
	char opt[64];

	if (rk_opts_require(value, name, err) < 0)
		return -1;
	snprintf(opt, sizeof opt, "--%s", name);
	return rk_time_parse_arg(opt, value, out, err);
}

int rk_opts_duration(const char *value, const char *name, bool allow_zero, rk_usec *out, rk_error *err)
{
	char opt[64];

	if (rk_opts_require(value, name, err) < 0)
		return -1;
	snprintf(opt, sizeof opt, "--%s", name);
	return rk_duration_parse(opt, value, allow_zero, out, err);
}

int rk_opts_uint(const char *value, const char *name, unsigned long lo, unsigned long hi, unsigned long *out,
                 rk_error *err)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (!value || !isdigit((unsigned char)value[0]))
		goto bad;
	v = strtoul(value, &end, 10);
	if (errno || *end || v < lo || v > hi)
		goto bad;
	*out = v;
	return 0;
bad:
	rk_error_set(err, RK_EXIT_USAGE, "option --%s must be an integer from %lu to %lu, not '%s'", name, lo, hi,
	             value ? value : "");
	return rk_error_hint(err, "e.g. --%s %lu", name, lo);
}
