/*
 * options.h - one option table feeds the parser, the INI reader and --help.
 *
 * Every subcommand parses argv (and an optional --config INI file) into one
 * rk_opts.  Nothing else reads argv.  Values are kept as the user wrote them
 * (owned strings) plus, for the ones every command needs, parsed forms.
 * Command-line options win over the config file.
 */
#ifndef RK_OPTIONS_H
#define RK_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/timeutil.h"

/* Which subcommands accept an option (bit mask). */
enum {
	RK_CMD_CHECK = 1 << 0,
	RK_CMD_REPAIR = 1 << 1,
	RK_CMD_LOAD = 1 << 2,
	RK_CMD_LAB = 1 << 3,
	RK_CMD_RERUN = 1 << 4
};

/* A comma-separated list, split; items owned. */
typedef struct rk_list {
	char **items;
	size_t n;
} rk_list;

typedef struct rk_opts {
	unsigned cmd;            /* the RK_CMD_* being parsed */
	const char *cmd_name;    /* "check", ... */

	/* table options (product.md 2.1) */
	char *source, *target, *table, *source_table, *target_table;
	rk_list key, sum, columns, types;
	char *time;
	char *csv_delimiter;     /* one character */
	char *csv_null;
	char *config;

	/* check (2.2) */
	char *from, *to, *window, *settle, *now;
	char *rerun_list, *report, *format, *jobs, *audit, *leaf_rows, *watermark_query;
	char *pushdown;          /* on, auto or off; bare --pushdown is on */

	/* repair (2.4) */
	bool execute;
	char *interval_column;

	/* load (lab.md) */
	char *strategy, *watermark_table, *load_name, *lookback, *interval_start, *interval_end, *crash_at;
	bool unsafe;

	/* lab */
	char *engine, *scenario, *out;

	/* rerun-list */
	bool merge;
	char *as, *dag, *input;

	int verbose;             /* -v repeatable */
	bool help;

	/* positional arguments left after options (owned) */
	rk_list args;
} rk_opts;

/*
 * Parses argv (argv[0] = the subcommand name) for command cmd, then the
 * --config file if given (its keys are long option names without dashes,
 * top level or under [reckon] or [<command>]; unknown keys are errors with
 * file:line).  Returns 0, or -1 with err (RK_EXIT_USAGE) naming the option
 * and a hint.  When --help is given, opts->help is set and nothing is
 * required.
 */
int rk_opts_parse(rk_opts *opts, unsigned cmd, int argc, char **argv, rk_error *err);

/* Frees everything the parser allocated; the struct is zeroed. */
void rk_opts_free(rk_opts *opts);

/* Prints the usage of command cmd to stdout, generated from the option table. */
void rk_opts_usage(unsigned cmd);

/* Fails with "missing required option --NAME" when value is NULL/empty. */
int rk_opts_require(const char *value, const char *name, rk_error *err);
int rk_opts_require_list(const rk_list *l, const char *name, rk_error *err);

/* Parses an instant / duration option, error naming the option. */
int rk_opts_time(const char *value, const char *name, rk_usec *out, rk_error *err);
int rk_opts_duration(const char *value, const char *name, bool allow_zero, rk_usec *out, rk_error *err);

/* Parses a positive integer option; error naming the option. */
int rk_opts_uint(const char *value, const char *name, unsigned long lo, unsigned long hi, unsigned long *out,
                 rk_error *err);

/* Builds an argv for re-running reckon (the lab spawns `reckon load`). */

#endif
