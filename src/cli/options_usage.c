/*
 * options_usage.c - what the table says to a reader: --help, the commands'
 * synopses and summaries, and rk_opts_each, the walk from which docgen
 * writes the manual pages and the completion.
 */
#include "cli/options.h"

#include <stdio.h>
#include <string.h>

#include "cli/options_impl.h"
#include "core/buf.h"

const char *rk_opts_synopsis(unsigned cmd)
{
	switch (cmd) {
	case RK_CMD_CHECK:
		return "reckon check --source CONN --target CONN --table NAME --time COL --window DUR\n"
		       "             (--from TS --to TS | --last DUR) [options]\n"
		       "reckon check --job FILE [--only LABELS] [--parallel N] [--report DIR]\n"
		       "             [options]\n\n"
		       "Compares source and target per closed window [start, end): row count, exact sums\n"
		       "and an order-independent hash of the rows; names the damaged keys and writes a\n"
		       "rerun list of the windows to redo.";
	case RK_CMD_REPAIR:
		return "reckon repair --rerun-list FILE --source CONN --target CONN --table NAME\n"
		       "              [--time COL] [--execute] [options]\n"
		       "reckon repair --job FILE --report DIR [--only LABELS] [--execute]\n\n"
		       "Repairs the intervals (or key segments) of a rerun list in the target, one\n"
		       "transaction or Delta commit each, changing only the rows that differ (whole\n"
		       "intervals with --replace-interval), then re-checks each.  Without --execute\n"
		       "only prints the plan.";
	case RK_CMD_LOAD:
		return "reckon load --strategy NAME --source CONN --target CONN --table NAME\n"
		       "            --key COLS --time COL [options]\n\n"
		       "Runs one incremental load with the named strategy (the loader module).";
	case RK_CMD_LAB:
		return "reckon lab --source CONN [--target CONN] [--engine postgres|split|delta|all]\n"
		       "           [--scenario NAME|all] [--out DIR] [--delta-dir DIR]\n\n"
		       "Reproduces the load failure scenarios on a real PostgreSQL and, with engine\n"
		       "delta, on a Delta table, then checks and repairs each.";
	case RK_CMD_RERUN:
		return "reckon rerun-list [--merge] FILE\n"
		       "reckon rerun-list --as airflow|airflow3 --dag DAG FILE\n"
		       "reckon rerun-list --as dagster|dbt --select SELECTOR FILE\n"
		       "reckon rerun-list --as json [--merge] FILE\n\n"
		       "Reads a rerun list: merges adjacent intervals into ranges, or prints the\n"
		       "scheduler commands that re-run them.";
	case RK_CMD_INIT:
		return "reckon init --source CONN --target CONN\n"
		       "            [--schema S | --source-schema S --target-schema T] [--window DUR]\n\n"
		       "Writes a job file to stdout for the tables both sides have, each with its\n"
		       "primary key, a time column and the columns both sides share.";
	case RK_CMD_LATENESS:
		return "reckon lateness --source CONN --table NAME --time COL\n"
		       "                (--last DUR | --from TS --to TS) [--window DUR] [--settle DUR]\n"
		       "                [--format text|json]\n\n"
		       "Measures how long after their time column the source's rows committed\n"
		       "(track_commit_timestamp), to choose --settle.";
	default:
		return "";
	}
}

const char *rk_opts_cmd_name(unsigned cmd)
{
	return rk_opts_summary(cmd) ? rk_opt_cmd_label(cmd) : NULL;
}

const char *rk_opts_summary(unsigned cmd)
{
	switch (cmd) {
	case RK_CMD_CHECK: return "compare source and target per closed window";
	case RK_CMD_REPAIR: return "repair what differs in a rerun list's windows, idempotently";
	case RK_CMD_LOAD: return "run one incremental load with a named strategy (loader module)";
	case RK_CMD_LAB: return "reproduce the load failure scenarios (PostgreSQL, Delta Lake)";
	case RK_CMD_RERUN: return "merge a rerun list into ranges, or print scheduler commands";
	case RK_CMD_INIT: return "write a job file for the tables two databases share";
	case RK_CMD_LATENESS: return "measure how late the source's rows commit, to choose --settle";
	default: return NULL;
	}
}

/* An option's help where the table's text would say more than one command
 * needs (which other commands do with it): the text for these commands. */
typedef struct rk_opthelp {
	rk_optid id;
	unsigned cmds;
	const char *help;
} rk_opthelp;

static const rk_opthelp rk_opthelps[] = {
	{ RK_O_TARGET, RK_CMD_CHECK, "target: same forms as --source" },
	{ RK_O_TARGET, RK_CMD_REPAIR, "target: the PostgreSQL database whose intervals are replaced" },
	{ RK_O_TARGET, RK_CMD_LOAD, "target: a PostgreSQL database (default: the source)" },
	{ RK_O_KEY, RK_CMD_LOAD, "comma-separated key columns" },
	{ RK_O_SETTLE, RK_CMD_CHECK, "closedness margin: a window is closed when end <= now - settle" },
	{ RK_O_SETTLE, RK_CMD_REPAIR, "closedness margin: an interval is replaced only when end <= now - settle" },
	{ RK_O_SETTLE, RK_CMD_LATENESS, "a load margin whose missed rows are counted beside 0s, 1m and 10m" },
	{ RK_O_WINDOW, RK_CMD_INIT, "the window width the job file's [defaults] get" },
	{ RK_O_WINDOW, RK_CMD_LATENESS, "width of the windows the lag is given for" },
	{ RK_O_RERUN_LIST, RK_CMD_CHECK, "write the rerun list (CSV) to FILE" },
	{ RK_O_RERUN_LIST, RK_CMD_REPAIR, "the rerun list to replay (CSV, as reckon check writes it)" },
	{ RK_O_REPORT, RK_CMD_CHECK, "write windows.csv, findings.csv, rerun.csv, summary.json and report.html "
	                             "into DIR, replaced as one set (a job: DIR/LABEL/ each)" },
	{ RK_O_REPORT, RK_CMD_REPAIR, "with --job: the job's report directory, whose DIR/LABEL/rerun.csv are replayed" },
	{ RK_O_AUDIT, RK_CMD_CHECK, "record the run, its windows and findings in schema reckon of that database" },
	{ RK_O_AUDIT, RK_CMD_REPAIR, "record the run and its intervals in schema reckon of that database" },
};

static const char *rk_opts_help_for(rk_optid id, unsigned cmd)
{
	for (size_t i = 0; i < sizeof rk_opthelps / sizeof rk_opthelps[0]; i++)
		if (rk_opthelps[i].id == id && (rk_opthelps[i].cmds & cmd))
			return rk_opthelps[i].help;
	return rk_optdefs[id].help;
}

void rk_opts_each(unsigned cmd, void (*fn)(void *ctx, const rk_optinfo *info), void *ctx)
{
	for (size_t i = 0; i < RK_O_COUNT; i++) {
		const rk_optdef *d = &rk_optdefs[i];
		rk_optinfo info;

		if (!(d->cmds & cmd))
			continue;
		info.name = d->name;
		info.arg = d->arg;
		info.help = rk_opts_help_for((rk_optid)i, cmd);
		info.def = d->def && (!d->def_cmds || (d->def_cmds & cmd)) ? d->def : NULL;
		info.choices = d->choices;
		info.suggest = d->suggest ? d->suggest() : NULL;
		info.optional_value = d->bare != NULL;
		info.repeatable = d->kind == RK_OPT_MAP;
		if (d->kind == RK_OPT_ENUM && !d->arg)
			info.arg = NULL;
		fn(ctx, &info);
	}
}

/* One option's left column: "--name ARG", "--name[=a|b]", "--name a|b". */
static void rk_opts_usage_left(const rk_optinfo *in, rk_buf *b)
{
	rk_buf_printf(b, "--%s", in->name);
	if (in->choices) {
		rk_buf_puts(b, in->optional_value ? "[=" : " ");
		for (int j = 0; in->choices[j]; j++)
			rk_buf_printf(b, "%s%s", j ? "|" : "", in->choices[j]);
		if (in->optional_value)
			rk_buf_putc(b, ']');
	} else if (in->arg) {
		rk_buf_printf(b, " %s", in->arg);
	}
}

/* --help fits a terminal of RK_HELP_COLUMNS: the option in a left column of
 * RK_HELP_LEFT, its help word-wrapped to the right of it. */
#define RK_HELP_COLUMNS 80
#define RK_HELP_LEFT 24

/* Prints "  LEFT  text" with text wrapped at spaces under its own first
 * column (a word longer than the line stays whole). */
static void rk_opts_usage_entry(const char *left, const char *text)
{
	const int indent = 2 + RK_HELP_LEFT + 1, width = RK_HELP_COLUMNS - indent;
	const char *p = text;

	if (strlen(left) > RK_HELP_LEFT)
		printf("  %s\n%*s", left, indent, "");
	else
		printf("  %-*s ", RK_HELP_LEFT, left);
	while (*p) {
		int n = (int)strlen(p), cut = n;

		if (n > width) {
			for (cut = width; cut > 0 && p[cut] != ' '; cut--)
				;
			if (cut == 0)
				for (cut = width; p[cut] && p[cut] != ' '; cut++)
					;
		}
		printf("%.*s\n", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		if (*p)
			printf("%*s", indent, "");
	}
	if (!*text)
		putchar('\n');
}

static void rk_opts_usage_one(void *ctx, const rk_optinfo *in)
{
	rk_buf left = RK_BUF_INIT, text = RK_BUF_INIT;

	(void)ctx;
	rk_opts_usage_left(in, &left);
	rk_buf_puts(&text, in->help);
	if (in->def)
		rk_buf_printf(&text, " (default %s)", in->def);
	for (size_t i = 0; in->suggest && in->suggest[i]; i++)
		rk_buf_printf(&text, "%s%s", i ? ", " : ": ", in->suggest[i]);
	rk_opts_usage_entry(rk_buf_cstr(&left), rk_buf_cstr(&text));
	rk_buf_free(&left);
	rk_buf_free(&text);
}

void rk_opts_usage(unsigned cmd)
{
	const char *syn = rk_opts_synopsis(cmd), *para = strstr(syn, "\n\n");

	/* the synopsis lines indented under "usage:", then the description */
	printf("usage:\n");
	for (const char *p = syn; p < (para ? para : syn + strlen(syn));) {
		const char *nl = strchr(p, '\n');
		int n = (int)((nl && (!para || nl <= para) ? nl : para ? para
		                                                       : syn + strlen(syn)) -
		              p);

		printf("  %.*s\n", n, p);
		p += n + 1;
	}
	printf("%s\n\noptions:\n", para ? para + 1 : "");
	rk_opts_each(cmd, rk_opts_usage_one, NULL);
	rk_opts_usage_entry("-v, --verbose", "more diagnostics on stderr (repeat for debug)");
	rk_opts_usage_entry("-h, --help", "this help");
	printf("\nexit status: 0 match / success, 1 differences found, 2 usage or input error,\n"
	       "3 runtime error (connection, query, file%s)\n",
	       cmd & (RK_CMD_REPAIR | RK_CMD_LOAD) ? ", lock timeout" : "");
	if (cmd & (RK_CMD_REPAIR | RK_CMD_LOAD))
		printf("130 / 143 interrupted by SIGINT / SIGTERM (what was done is kept and said)\n");
}
