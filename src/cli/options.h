/*
 * options.h - one option table feeds the parser, the INI readers (--config,
 * --job), --help, the manual pages and the shell completion.
 *
 * Every subcommand parses its arguments into one rk_opts.  Nothing else
 * reads argv.  An option's kind, default, range and allowed values live in
 * the table (options.c; the row's fields: options_impl.h) and nowhere else:
 * the parser checks them and fills the typed field, so a command reads
 * o->jobs as a number that is already in range, o->settle as a duration
 * with its default applied, and so on.
 *
 * Values come in layers, the first that sets an option wins:
 *   the command line,
 *   a job file's [table LABEL] section, then its [defaults] (--job),
 *   the --config file's [COMMAND] section, then its [reckon] section and
 *   its keys before any section,
 *   the table's default.
 * --from/--to and --last exclude each other within one layer; a higher
 * layer's choice of either hides the lower layers' (the command line's
 * --from/--to replace a job's last: a backfill of a nightly job).
 */
#ifndef RK_OPTIONS_H
#define RK_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/ini.h"
#include "core/timeutil.h"
#include "report/audit.h"

/* The commands (bit mask: which commands accept an option). */
enum {
	RK_CMD_CHECK = 1 << 0,
	RK_CMD_REPAIR = 1 << 1,
	RK_CMD_LOAD = 1 << 2,
	RK_CMD_LAB = 1 << 3,
	RK_CMD_RERUN = 1 << 4,
	RK_CMD_INIT = 1 << 5,
	RK_CMD_LATENESS = 1 << 6
};

/* Every option, indexing the table (o->set, rk_opts_is_set). */
typedef enum rk_optid {
	RK_O_SOURCE,
	RK_O_TARGET,
	RK_O_TABLE,
	RK_O_SOURCE_TABLE,
	RK_O_TARGET_TABLE,
	RK_O_KEY,
	RK_O_TIME,
	RK_O_SUM,
	RK_O_COLUMNS,
	RK_O_EXCLUDE_COLUMNS,
	RK_O_SOURCE_EXPR,
	RK_O_TARGET_EXPR,
	RK_O_SOURCE_WHERE,
	RK_O_TARGET_WHERE,
	RK_O_TYPES,
	RK_O_CSV_DELIMITER,
	RK_O_CSV_NULL,
	RK_O_DELTA_PARTITION_ZONE,
	RK_O_FROM,
	RK_O_TO,
	RK_O_LAST,
	RK_O_WINDOW,
	RK_O_TIMEZONE,
	RK_O_TIME_COLUMN_ZONE,
	RK_O_SETTLE,
	RK_O_NOW,
	RK_O_RERUN_LIST,
	RK_O_REPORT,
	RK_O_FORMAT,
	RK_O_JOBS,
	RK_O_PUSHDOWN,
	RK_O_AUDIT,
	RK_O_METRICS,
	RK_O_PROGRESS,
	RK_O_QUIET,
	RK_O_LEAF_ROWS,
	RK_O_WATERMARK_QUERY,
	RK_O_NO_VALUES,
	RK_O_JOB,
	RK_O_ONLY,
	RK_O_PARALLEL,
	RK_O_EXECUTE,
	RK_O_INTERVAL_COLUMN,
	RK_O_ALLOW_OPEN,
	RK_O_REPLACE_INTERVAL,
	RK_O_ALLOW_CASCADE,
	RK_O_LOAD_INTERVAL,
	RK_O_FORCE,
	RK_O_LOCK_TIMEOUT,
	RK_O_STRATEGY,
	RK_O_WATERMARK_TABLE,
	RK_O_LOAD_NAME,
	RK_O_LOOKBACK,
	RK_O_INTERVAL_START,
	RK_O_INTERVAL_END,
	RK_O_CRASH_AT,
	RK_O_UNSAFE,
	RK_O_ENGINE,
	RK_O_SCENARIO,
	RK_O_OUT,
	RK_O_DELTA_DIR,
	RK_O_MERGE,
	RK_O_AS,
	RK_O_DAG,
	RK_O_REPROCESS,
	RK_O_SELECT,
	RK_O_PARTITIONS,
	RK_O_INPUT,
	RK_O_SCHEMA,
	RK_O_SOURCE_SCHEMA,
	RK_O_TARGET_SCHEMA,
	RK_O_CONFIG,
	RK_O_COUNT
} rk_optid;

/* A comma-separated list, split; items owned. */
typedef struct rk_list {
	char **items;
	size_t n;
} rk_list;

/* NAME=SQL mappings (--source-expr); names and SQL owned, names unique. */
typedef struct rk_map {
	char **names;
	char **sql;
	size_t n;
} rk_map;

/* --pushdown */
enum { RK_OPT_PUSHDOWN_OFF,
       RK_OPT_PUSHDOWN_ON,
       RK_OPT_PUSHDOWN_AUTO };
/* --format */
enum { RK_OPT_FORMAT_TEXT,
       RK_OPT_FORMAT_JSON };
/* rerun-list --as */
enum { RK_OPT_AS_AIRFLOW,
       RK_OPT_AS_AIRFLOW3,
       RK_OPT_AS_DAGSTER,
       RK_OPT_AS_DBT,
       RK_OPT_AS_JSON };
/* rerun-list --reprocess-behavior */
enum { RK_OPT_REPROCESS_NONE,
       RK_OPT_REPROCESS_FAILED,
       RK_OPT_REPROCESS_COMPLETED };
/* rerun-list --partitions */
enum { RK_OPT_PARTITIONS_DAILY,
       RK_OPT_PARTITIONS_HOURLY };
/* --progress */
enum { RK_OPT_PROGRESS_AUTO,
       RK_OPT_PROGRESS_ALWAYS,
       RK_OPT_PROGRESS_NEVER };

typedef struct rk_opts {
	unsigned cmd;         /* the RK_CMD_* being parsed */
	const char *cmd_name; /* "check", ... */

	/* table options (docs/reference.md) */
	char *source, *target, *table, *source_table, *target_table;
	rk_list key, sum, columns, exclude_columns, types;
	char *time;
	rk_map source_expr, target_expr;
	char *source_where, *target_where;
	char *csv_delimiter; /* one character, checked */
	char *csv_null;
	char *delta_partition_zone; /* IANA zone of zoneless timestamp partition values */

	/* check */
	rk_usec from, to;       /* set when given (rk_opts_is_set) */
	rk_usec last;           /* --last: 0 when not given; < 0: -N calendar months ("3mo") */
	rk_usec window;         /* 0 when not given; < 0: -N calendar months ("1mo") */
	char *timezone;         /* --timezone ZONE: calendar windows in that zone */
	char *time_column_zone; /* --time-column-zone ZONE: a zoneless time column's zone */
	rk_usec settle;         /* default 10m */
	rk_usec now;            /* set when given; else the caller's clock */
	char *rerun_list, *report, *audit, *watermark_query;
	char *metrics;      /* --metrics FILE */
	int progress;       /* RK_OPT_PROGRESS_* */
	bool quiet;         /* no summary line on stderr when a check differs */
	int format;         /* RK_OPT_FORMAT_* */
	unsigned long jobs; /* >= 1 */
	int pushdown;       /* RK_OPT_PUSHDOWN_* */
	unsigned long leaf_rows;
	bool no_values; /* changed columns named, their values not written */

	/* jobs */
	char *job;
	rk_list only;
	unsigned long parallel; /* >= 1 */

	/* repair */
	bool execute;
	char *interval_column;
	bool allow_open;       /* repair open intervals too */
	bool replace_interval; /* repair: replace whole intervals, not rows */
	bool allow_cascade;    /* repair: deletes may cascade to referencing rows */
	rk_usec load_interval; /* repair: the load's interval width (0: not given) */
	bool force;            /* repair a target a subscription writes into */
	rk_usec lock_timeout;  /* repair, load: 0 = wait forever; default 30s */

	/* load */
	char *strategy, *watermark_table, *load_name, *crash_at;
	rk_usec lookback;
	rk_usec interval_start, interval_end; /* set when given */
	bool unsafe;

	/* lab */
	char *engine, *scenario, *out, *delta_dir;

	/* rerun-list */
	bool merge;
	int as; /* RK_OPT_AS_* (rk_opts_is_set tells whether given) */
	char *dag, *input;
	int reprocess;  /* --reprocess-behavior: RK_OPT_REPROCESS_* (airflow3) */
	char *select;   /* --select (dagster, dbt) */
	int partitions; /* RK_OPT_PARTITIONS_* (dagster) */

	/* init */
	char *schema, *source_schema, *target_schema;

	char *config;
	int verbose; /* -v repeatable */
	bool help;

	/* positional arguments left after options (owned) */
	rk_list args;

	/* bookkeeping: which options a layer set, and the text it gave */
	unsigned char set[RK_O_COUNT];
	char *text[RK_O_COUNT];
} rk_opts;

/*
 * Parses argv (argv[0] = the subcommand name) for command cmd, then the
 * --config file if given, then applies defaults and checks what every
 * command requires of its options (ranges, allowed values, exclusions).
 * Returns 0, or -1 with err (RK_EXIT_USAGE) naming the option (and
 * FILE:LINE for a file's key) with a hint.  When --help is given,
 * opts->help is set and nothing else is checked.  rk_opts_free frees,
 * also after a failure.
 */
int rk_opts_parse(rk_opts *opts, unsigned cmd, int argc, char **argv, rk_error *err);

/*
 * How every command starts: rk_opts_parse, then --help printed, the log
 * level set, and words that are not options refused (args_hint: the hint
 * for them; NULL when the command takes such arguments).  Returns 1 when
 * the command goes on, 0 when it is done (--help), -1 with err.  Either
 * way the caller frees opts; rk_opts_stop does that for a command that
 * ends there.
 */
int rk_opts_start(rk_opts *opts, unsigned cmd, int argc, char **argv, const char *args_hint, rk_error *err);

/* Ends a command that rk_opts_start stopped (rc 0 or -1): prints err,
 * frees opts, and returns the exit status. */
int rk_opts_stop(rk_opts *opts, int rc, const rk_error *err);

/*
 * The same for one table of a job: argv first, then job's [table label]
 * section, then its [defaults], then --config, then defaults.  job is an
 * INI file read by rk_opts_job_read.
 */
int rk_opts_parse_table(rk_opts *opts, unsigned cmd, int argc, char **argv, const rk_ini *job, const char *label,
                        rk_error *err);

/*
 * Reads and checks a job file: sections [defaults] and [table LABEL] only,
 * labels [A-Za-z0-9_.-]+ and unique, every key an option a job's table
 * may set.  *labels receives the labels in file order (borrowed from
 * *job; free the array only).  Returns 0, or -1 with err (RK_EXIT_USAGE).
 */
int rk_opts_job_read(const char *path, unsigned cmd, rk_ini **job, const char ***labels, size_t *nlabels,
                     rk_error *err);

/* Frees everything the parser allocated; the struct is zeroed. */
void rk_opts_free(rk_opts *opts);

/* True when a layer (not the default) set the option. */
bool rk_opts_is_set(const rk_opts *opts, rk_optid id);

/* Prints the usage of command cmd to stdout, generated from the option table. */
void rk_opts_usage(unsigned cmd);

/* Fails with "missing required option --NAME" unless a layer set it. */
int rk_opts_require(const rk_opts *opts, rk_optid id, rk_error *err);

/* An option's long name ("source-table"). */
const char *rk_opts_name(rk_optid id);

/*
 * The options of a run as the audit trail records them: those a layer set,
 * and every flag of the command (false when not given); a mapping as one
 * option "source-expr.NAME" per name.  rk_opts_record_free frees what
 * rk_opts_audit allocated; the strings are borrowed from opts.
 */
typedef struct rk_opts_record {
	rk_audit_options options;
	char **owned;
	size_t nowned;
} rk_opts_record;
void rk_opts_audit(const rk_opts *opts, rk_opts_record *out);
void rk_opts_record_free(rk_opts_record *r);

/*
 * The repair command that replays what this check found, as a user pastes
 * it into a shell: "reckon repair" with every table option a layer set
 * that repair takes too (connection strings without their passwords: the
 * repair finds them where the check did, in ~/.pgpass or a service file),
 * then extra (already shell words: "--rerun-list /abs/rerun.csv"), then
 * --execute.  Appends to out.
 */
void rk_opts_repair_command(const rk_opts *opts, const char *extra, rk_buf *out);

/*
 * Leading options given before the command (`reckon -v check ...`): counts
 * how many of argv[first..] are options and their values, as the table
 * knows which take a value.  The caller moves them after the command.
 */
int rk_opts_leading(int argc, char **argv, int first);

/*
 * What the manual pages and the bash completion are generated from: each
 * option of command cmd with its metavariable, help, default and allowed
 * values.  Calls fn once per option in table order.
 */
typedef struct rk_optinfo {
	const char *name; /* long name without dashes */
	const char *arg;  /* metavariable, or NULL for a flag */
	const char *help;
	const char *def;            /* default as the user would write it, or NULL */
	const char *const *choices; /* allowed values (NULL-terminated), or NULL */
	const char *const *suggest; /* values the completion offers for a free-text value
	                             * (the load strategies), NULL-terminated, or NULL */
	bool optional_value;        /* --NAME alone is allowed (--pushdown) */
	bool repeatable;
} rk_optinfo;
void rk_opts_each(unsigned cmd, void (*fn)(void *ctx, const rk_optinfo *info), void *ctx);

/* The synopsis and one-paragraph description of a command. */
const char *rk_opts_synopsis(unsigned cmd);

/* A command's name ("rerun-list") and one-line summary (a manual page's NAME
 * line), or NULL when cmd is not one RK_CMD_*: the manual pages and the
 * completion find every command by walking the bits from RK_CMD_CHECK up. */
const char *rk_opts_cmd_name(unsigned cmd);
const char *rk_opts_summary(unsigned cmd);

#endif
