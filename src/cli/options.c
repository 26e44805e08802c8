/*
 * options.c - the one option table, and the parser of the command line and
 * of the INI layers (--config, --job) it drives.
 */
#include "cli/options.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "io/pg.h"
#include "io/slurp.h"
#include "load/strategy.h"

typedef enum rk_optkind {
	RK_OPT_STR,  /* text */
	RK_OPT_LIST, /* comma-separated list */
	RK_OPT_FLAG, /* no value on the command line; true/false in a file */
	RK_OPT_UINT, /* an integer in [lo, hi] */
	RK_OPT_DUR,  /* a duration greater than zero */
	RK_OPT_DUR0, /* a duration, zero allowed */
	RK_OPT_CAL,  /* a duration, or N calendar months ("1mo", stored as -N) */
	RK_OPT_TIME, /* an instant, ISO-8601 with a zone */
	RK_OPT_ENUM, /* one of choices, stored as its index */
	RK_OPT_MAP   /* NAME=SQL, repeatable; in a file one key per NAME: option.NAME */
} rk_optkind;

/* Option flags. */
enum {
	RK_OPTF_TABLE = 1 << 0,  /* a job's [defaults] and [table LABEL] may set it */
	RK_OPTF_NOFILE = 1 << 1, /* the command line only (--config, --job) */
	RK_OPTF_CONN = 1 << 2,   /* a connection string: shown with passwords masked */
	RK_OPTF_JOBONLY = 1 << 3 /* only with --job */
};

typedef struct rk_optdef {
	const char *name;
	rk_optkind kind;
	size_t offset;     /* its field in rk_opts */
	unsigned cmds;     /* commands that take it */
	unsigned required; /* commands that need it (checked after every layer) */
	unsigned flags;
	const char *arg; /* metavariable shown in --help */
	const char *help;
	const char *def;                                /* default, applied when no layer sets it */
	unsigned def_cmds;                              /* ... for these commands (0: every command that takes it) */
	unsigned long lo, hi;                           /* RK_OPT_UINT */
	const char *const *choices;                     /* RK_OPT_ENUM, NULL-terminated */
	const char *bare;                               /* the value of --NAME given alone, or NULL when a value is needed */
	int (*check)(const char *value, rk_error *err); /* more checks of a STR value */
	const char *const *(*suggest)(void);            /* names the completion offers (rk_optinfo) */
} rk_optdef;

#define OFF(f) offsetof(rk_opts, f)
#define PAIR (RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LOAD)
#define ALL (RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LOAD | RK_CMD_LAB | RK_CMD_RERUN | RK_CMD_INIT | RK_CMD_LATENESS)

static int rk_opt_check_delimiter(const char *v, rk_error *err);

static const char *const *rk_suggest_strategies(void);
static const char *const *rk_suggest_crash_points(void);

static const char *const rk_choices_format[] = { "text", "json", NULL };
static const char *const rk_choices_pushdown[] = { "off", "on", "auto", NULL };
static const char *const rk_choices_progress[] = { "auto", "always", "never", NULL };
static const char *const rk_choices_as[] = { "airflow", "airflow3", "dagster", "dbt", "json", NULL };
static const char *const rk_choices_reprocess[] = { "none", "failed", "completed", NULL };
static const char *const rk_choices_partitions[] = { "daily", "hourly", NULL };

/* The one option table: parser, INI readers, --help, manual pages and
 * completion all read it.  Order is the order of --help. */
static const rk_optdef rk_optdefs[RK_O_COUNT] = {
	[RK_O_SOURCE] = { "source", RK_OPT_STR, OFF(source), PAIR | RK_CMD_LAB | RK_CMD_INIT | RK_CMD_LATENESS,
	                  PAIR | RK_CMD_LAB | RK_CMD_INIT | RK_CMD_LATENESS, RK_OPTF_TABLE | RK_OPTF_CONN, "CONN",
	                  "source: libpq conninfo or URI, or csv:PATH (a file, or a directory of *.csv read in name order)" },
	[RK_O_TARGET] = { "target", RK_OPT_STR, OFF(target), PAIR | RK_CMD_LAB | RK_CMD_INIT,
	                  RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_INIT, RK_OPTF_TABLE | RK_OPTF_CONN, "CONN",
	                  "target: same forms (repair and load: PostgreSQL only; load: default the source)" },
	[RK_O_TABLE] = { "table", RK_OPT_STR, OFF(table), PAIR | RK_CMD_LATENESS | RK_CMD_INIT, 0, RK_OPTF_TABLE, "NAME",
	                 "relation name on both sides (schema-qualified allowed)" },
	[RK_O_SOURCE_TABLE] = { "source-table", RK_OPT_STR, OFF(source_table), PAIR, 0, RK_OPTF_TABLE, "NAME",
	                        "source relation when the names differ" },
	[RK_O_TARGET_TABLE] = { "target-table", RK_OPT_STR, OFF(target_table), PAIR, 0, RK_OPTF_TABLE, "NAME",
	                        "target relation when the names differ" },
	[RK_O_KEY] = { "key", RK_OPT_LIST, OFF(key), PAIR, RK_CMD_LOAD, RK_OPTF_TABLE, "COLS",
	               "comma-separated key columns (default: the target's primary key, else the source's)" },
	[RK_O_TIME] = { "time", RK_OPT_STR, OFF(time), PAIR | RK_CMD_LATENESS, RK_CMD_REPAIR | RK_CMD_LOAD | RK_CMD_LATENESS,
	                RK_OPTF_TABLE, "COL", "the time column: timestamptz, timestamp (in --time-column-zone, default "
	                                      "UTC) or date (check without it: by key segments)" },
	[RK_O_SUM] = { "sum", RK_OPT_LIST, OFF(sum), PAIR, 0, RK_OPTF_TABLE, "COLS",
	               "integer or numeric columns summed exactly per window (not floats: docs/reference.md)" },
	[RK_O_COLUMNS] = { "columns", RK_OPT_LIST, OFF(columns), PAIR, 0, RK_OPTF_TABLE, "COLS",
	                   "columns hashed per row, in this order (default: the whole row: every column both sides "
	                   "have, in the target's order)" },
	[RK_O_EXCLUDE_COLUMNS] = { "exclude-columns", RK_OPT_LIST, OFF(exclude_columns), PAIR, 0, RK_OPTF_TABLE, "COLS",
	                           "columns left out of the default whole-row hash (loaded_at-like columns)" },
	[RK_O_SOURCE_EXPR] = { "source-expr", RK_OPT_MAP, OFF(source_expr), PAIR, 0, RK_OPTF_TABLE, "NAME=SQL",
	                       "the source's column or SQL expression for logical column NAME (repeatable; in a file: "
	                       "source-expr.NAME = SQL)" },
	[RK_O_TARGET_EXPR] = { "target-expr", RK_OPT_MAP, OFF(target_expr), PAIR, 0, RK_OPTF_TABLE, "NAME=SQL",
	                       "the target's column or SQL expression for logical column NAME (repeatable)" },
	[RK_O_SOURCE_WHERE] = { "source-where", RK_OPT_STR, OFF(source_where), PAIR | RK_CMD_LATENESS, 0, RK_OPTF_TABLE,
	                        "SQL", "only the source rows the load is meant to carry (e.g. 'not is_test')" },
	[RK_O_TARGET_WHERE] = { "target-where", RK_OPT_STR, OFF(target_where), PAIR, 0, RK_OPTF_TABLE, "SQL",
	                        "only these target rows belong to the pair" },
	[RK_O_TYPES] = { "types", RK_OPT_LIST, OFF(types), PAIR, 0, RK_OPTF_TABLE, "COL:TYPE,...",
	                 "column types for CSV data (default: the PostgreSQL side's catalog types)" },
	[RK_O_CSV_DELIMITER] = { "csv-delimiter", RK_OPT_STR, OFF(csv_delimiter), PAIR, 0, RK_OPTF_TABLE, "C",
	                         "CSV field delimiter", ",", .check = rk_opt_check_delimiter },
	[RK_O_CSV_NULL] = { "csv-null", RK_OPT_STR, OFF(csv_null), PAIR, 0, RK_OPTF_TABLE, "S",
	                    "CSV NULL marker (default: an unquoted empty field is NULL, \"\" the empty string)" },
	[RK_O_DELTA_PARTITION_ZONE] = { "delta-partition-zone", RK_OPT_STR, OFF(delta_partition_zone), PAIR, 0,
	                                RK_OPTF_TABLE, "ZONE",
	                                "IANA zone of a Delta table's timestamp partition values written without "
	                                "a zone: the writer's zone (default UTC)" },
	[RK_O_FROM] = { "from", RK_OPT_TIME, OFF(from), RK_CMD_CHECK | RK_CMD_LATENESS, 0, RK_OPTF_TABLE, "TS",
	                "start of the range, ISO-8601 with Z or an offset (or --last)" },
	[RK_O_TO] = { "to", RK_OPT_TIME, OFF(to), RK_CMD_CHECK | RK_CMD_LATENESS, 0, RK_OPTF_TABLE, "TS",
	              "end of the range, exclusive" },
	[RK_O_LAST] = { "last", RK_OPT_CAL, OFF(last), RK_CMD_CHECK | RK_CMD_LATENESS, 0, RK_OPTF_TABLE, "DUR",
	                "the range is the latest closed windows covering DUR, on the grid counted from "
	                "1970-01-01T00:00:00Z, or with --timezone the zone's calendar (instead of --from/--to)" },
	[RK_O_WINDOW] = { "window", RK_OPT_CAL, OFF(window), RK_CMD_CHECK | RK_CMD_INIT | RK_CMD_LATENESS, 0,
	                  RK_OPTF_TABLE, "DUR", "window width: 90s, 15m, 1h, 1d; with --timezone also 1w, 1mo "
	                                        "(calendar units)",
	                  "1h", RK_CMD_LATENESS },
	[RK_O_TIMEZONE] = { "timezone", RK_OPT_STR, OFF(timezone),
	                    RK_CMD_CHECK | RK_CMD_LATENESS | RK_CMD_REPAIR | RK_CMD_LOAD, 0, RK_OPTF_TABLE, "ZONE",
	                    "an IANA zone (Europe/Berlin): d/w/mo windows are its calendar days, weeks and months, "
	                    "h/m/s windows start at its midnight, dates (--from/--to, --interval-start/-end) are its "
	                    "midnights, --load-interval follows its calendar; local times shown beside UTC" },
	[RK_O_TIME_COLUMN_ZONE] = { "time-column-zone", RK_OPT_STR, OFF(time_column_zone),
	                            RK_CMD_CHECK | RK_CMD_REPAIR, 0, RK_OPTF_TABLE, "ZONE",
	                            "the IANA zone whose wall-clock times a timestamp (without time zone) time "
	                            "column holds (default UTC); the DST hour placed as AT TIME ZONE does" },
	[RK_O_SETTLE] = { "settle", RK_OPT_DUR0, OFF(settle), RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LATENESS, 0,
	                  RK_OPTF_TABLE, "DUR", "closedness margin: a window is closed when end <= now - settle "
	                                        "(repair: an interval too)",
	                  "10m" },
	[RK_O_NOW] = { "now", RK_OPT_TIME, OFF(now), RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LATENESS, 0, RK_OPTF_TABLE,
	               "TS", "the clock used for closedness (default: the current time)" },
	[RK_O_RERUN_LIST] = { "rerun-list", RK_OPT_STR, OFF(rerun_list), RK_CMD_CHECK | RK_CMD_REPAIR, 0, 0, "FILE",
	                      "check: write the rerun list (CSV); repair: the rerun list to replay" },
	[RK_O_REPORT] = { "report", RK_OPT_STR, OFF(report), RK_CMD_CHECK | RK_CMD_REPAIR, 0, 0, "DIR",
	                  "check: write windows.csv, findings.csv, changes.csv, rerun.csv, summary.json and report.html into DIR, "
	                  "replaced as one set (a job: DIR/LABEL/ each); "
	                  "repair --job: the job's report directory" },
	[RK_O_FORMAT] = { "format", RK_OPT_ENUM, OFF(format), RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LATENESS, 0, 0,
	                  NULL, "what goes to stdout", "text", .choices = rk_choices_format },
	[RK_O_JOBS] = { "jobs", RK_OPT_UINT, OFF(jobs), RK_CMD_CHECK, 0, RK_OPTF_TABLE, "N",
	                "parallel readers per PostgreSQL side, in one snapshot", "1", .lo = 1, .hi = 64 },
	[RK_O_PUSHDOWN] = { "pushdown", RK_OPT_ENUM, OFF(pushdown), RK_CMD_CHECK | RK_CMD_REPAIR, 0, RK_OPTF_TABLE, NULL,
	                    "compute PostgreSQL sides' window digests in the server (reckon extension, docs/pushdown.md); "
	                    "auto: stream the sides without it (repair's checks: auto unless given)",
	                    "off", RK_CMD_CHECK, .choices = rk_choices_pushdown, .bare = "on" },
	[RK_O_AUDIT] = { "audit", RK_OPT_STR, OFF(audit), RK_CMD_CHECK | RK_CMD_REPAIR, 0, RK_OPTF_CONN, "CONN",
	                 "record the run in schema reckon of that database (check: windows, findings; repair: intervals)" },
	[RK_O_METRICS] = { "metrics", RK_OPT_STR, OFF(metrics), RK_CMD_CHECK, 0, 0, "FILE",
	                   "write the run's metrics in Prometheus text format, atomically (node_exporter's textfile "
	                   "collector: docs/cron.md)" },
	[RK_O_PROGRESS] = { "progress", RK_OPT_ENUM, OFF(progress), RK_CMD_CHECK, 0, 0, NULL,
	                    "progress on stderr: rows read per side, rate, share of the range, ETA (auto: when stderr is "
	                    "a terminal)",
	                    "auto", .choices = rk_choices_progress },
	[RK_O_QUIET] = { "quiet", RK_OPT_FLAG, OFF(quiet), RK_CMD_CHECK, 0, 0, NULL,
	                 "print no summary line on stderr when differences are found (by default a check that "
	                 "differs says so there, so that cron mails it even with stdout discarded)" },
	[RK_O_LEAF_ROWS] = { "leaf-rows", RK_OPT_UINT, OFF(leaf_rows), RK_CMD_CHECK, 0, RK_OPTF_TABLE, "N",
	                     "most rows per side the key-level drilldown holds at once", "200000", .lo = 1,
	                     .hi = 100000000 },
	[RK_O_WATERMARK_QUERY] = { "watermark-query", RK_OPT_STR, OFF(watermark_query), RK_CMD_CHECK, 0, RK_OPTF_TABLE,
	                           "SQL", "source query returning one timestamp, run as written in a read-only "
	                                  "transaction: audit the watermark's claim" },
	[RK_O_NO_VALUES] = { "no-values", RK_OPT_FLAG, OFF(no_values), RK_CMD_CHECK, 0, RK_OPTF_TABLE, NULL,
	                     "name the columns a changed row differs in, without their values (tables holding "
	                     "personal data)" },
	[RK_O_JOB] = { "job", RK_OPT_STR, OFF(job), RK_CMD_CHECK | RK_CMD_REPAIR, 0, RK_OPTF_NOFILE, "FILE",
	               "a job file: [defaults] and one [table LABEL] section per table pair (docs/jobs.md)" },
	[RK_O_ONLY] = { "only", RK_OPT_LIST, OFF(only), RK_CMD_CHECK | RK_CMD_REPAIR, 0, RK_OPTF_JOBONLY, "LABELS",
	                "with --job: only these tables" },
	[RK_O_PARALLEL] = { "parallel", RK_OPT_UINT, OFF(parallel), RK_CMD_CHECK, 0, RK_OPTF_JOBONLY, "N",
	                    "with --job: tables checked at once", "1", .lo = 1, .hi = 64 },
	[RK_O_EXECUTE] = { "execute", RK_OPT_FLAG, OFF(execute), RK_CMD_REPAIR, 0, 0, NULL,
	                   "really change the target (default: print the plan only)" },
	[RK_O_INTERVAL_COLUMN] = { "interval-column", RK_OPT_STR, OFF(interval_column), RK_CMD_REPAIR | RK_CMD_LOAD, 0,
	                           RK_OPTF_TABLE, "COL", "target column recording each row's load interval start" },
	[RK_O_ALLOW_OPEN] = { "allow-open", RK_OPT_FLAG, OFF(allow_open), RK_CMD_REPAIR, 0, 0, NULL,
	                      "repair open intervals too (end after now - settle), which may still receive rows" },
	[RK_O_REPLACE_INTERVAL] = { "replace-interval", RK_OPT_FLAG, OFF(replace_interval), RK_CMD_REPAIR, 0,
	                            RK_OPTF_TABLE, NULL, "replace every target row of each interval (for loads that "
	                                                 "own whole intervals) instead of changing only the rows that differ" },
	[RK_O_ALLOW_CASCADE] = { "allow-cascade", RK_OPT_FLAG, OFF(allow_cascade), RK_CMD_REPAIR, 0, RK_OPTF_TABLE,
	                         NULL, "let repair delete target rows that other rows reference through an ON DELETE "
	                               "CASCADE, SET NULL or SET DEFAULT foreign key (they change with them)" },
	[RK_O_LOAD_INTERVAL] = { "load-interval", RK_OPT_CAL, OFF(load_interval), RK_CMD_REPAIR, 0, RK_OPTF_TABLE,
	                         "DUR", "with --interval-column: the load's interval width; a row records the start "
	                                "of the DUR-wide interval holding its time, on the grid counted from "
	                                "1970-01-01T00:00:00Z, or with --timezone the zone's calendar (1d, 1w, 1mo)" },
	[RK_O_FORCE] = { "force", RK_OPT_FLAG, OFF(force), RK_CMD_REPAIR, 0, 0, NULL,
	                 "repair a target table that an enabled logical-replication subscription writes into" },
	[RK_O_LOCK_TIMEOUT] = { "lock-timeout", RK_OPT_DUR0, OFF(lock_timeout), RK_CMD_REPAIR | RK_CMD_LOAD, 0, 0, "DUR",
	                        "longest wait for another session's lock before giving up, nothing changed (0: no "
	                        "limit)",
	                        "30s" },
	[RK_O_STRATEGY] = { "strategy", RK_OPT_STR, OFF(strategy), RK_CMD_LOAD, RK_CMD_LOAD, 0, "NAME",
	                    "load strategy (docs/loader.md)", .suggest = rk_suggest_strategies },
	[RK_O_WATERMARK_TABLE] = { "watermark-table", RK_OPT_STR, OFF(watermark_table), RK_CMD_LOAD, 0, 0, "NAME",
	                           "the watermark table (one row per load name)" },
	[RK_O_LOAD_NAME] = { "load-name", RK_OPT_STR, OFF(load_name), RK_CMD_LOAD, 0, 0, "NAME",
	                     "the watermark row this load owns" },
	[RK_O_LOOKBACK] = { "lookback", RK_OPT_DUR0, OFF(lookback), RK_CMD_LOAD, 0, 0, "DUR",
	                    "re-read this far behind the watermark (keyed strategies)", "0" },
	[RK_O_INTERVAL_START] = { "interval-start", RK_OPT_TIME, OFF(interval_start), RK_CMD_LOAD, 0, 0, "TS",
	                          "start of the data interval of this run" },
	[RK_O_INTERVAL_END] = { "interval-end", RK_OPT_TIME, OFF(interval_end), RK_CMD_LOAD, 0, 0, "TS",
	                        "end of the data interval of this run" },
	[RK_O_CRASH_AT] = { "crash-at", RK_OPT_STR, OFF(crash_at), RK_CMD_LOAD, 0, 0, "POINT",
	                    "fault injection: SIGKILL this process at POINT", .suggest = rk_suggest_crash_points },
	[RK_O_UNSAFE] = { "unsafe", RK_OPT_FLAG, OFF(unsafe), RK_CMD_LOAD, 0, 0, NULL,
	                  "allow the strategies that lose or duplicate rows" },
	[RK_O_ENGINE] = { "engine", RK_OPT_STR, OFF(engine), RK_CMD_LAB, 0, 0, "postgres|split|all", "lab engines", "all" },
	[RK_O_SCENARIO] = { "scenario", RK_OPT_STR, OFF(scenario), RK_CMD_LAB, 0, 0, "NAME|all", "lab scenario", "all" },
	[RK_O_OUT] = { "out", RK_OPT_STR, OFF(out), RK_CMD_LAB, 0, 0, "DIR", "lab output directory", "out" },
	[RK_O_MERGE] = { "merge", RK_OPT_FLAG, OFF(merge), RK_CMD_RERUN, 0, 0, NULL, "merge adjacent intervals into ranges" },
	[RK_O_AS] = { "as", RK_OPT_ENUM, OFF(as), RK_CMD_RERUN, 0, 0, NULL,
	              "print scheduler commands: airflow (Airflow 2), airflow3, dagster, dbt, or json (one object per "
	              "interval)",
	              .choices = rk_choices_as },
	[RK_O_DAG] = { "dag", RK_OPT_STR, OFF(dag), RK_CMD_RERUN, 0, 0, "DAG",
	               "the Airflow DAG id (with --as airflow or airflow3)" },
	[RK_O_REPROCESS] = { "reprocess-behavior", RK_OPT_ENUM, OFF(reprocess), RK_CMD_RERUN, 0, 0, NULL,
	                     "with --as airflow3: which existing runs the backfill runs again (completed: every one, "
	                     "as damaged data needs)",
	                     "completed", .choices = rk_choices_reprocess },
	[RK_O_SELECT] = { "select", RK_OPT_STR, OFF(select), RK_CMD_RERUN, 0, 0, "SELECTOR",
	                  "with --as dagster: the assets to materialize; with --as dbt: the models to run" },
	[RK_O_PARTITIONS] = { "partitions", RK_OPT_ENUM, OFF(partitions), RK_CMD_RERUN, 0, 0, NULL,
	                      "with --as dagster: the assets' time partitions (UTC keys)", "daily",
	                      .choices = rk_choices_partitions },
	[RK_O_INPUT] = { "input", RK_OPT_STR, OFF(input), RK_CMD_RERUN, 0, 0, "FILE",
	                 "the rerun list to read (default: the first argument)" },
	[RK_O_SCHEMA] = { "schema", RK_OPT_STR, OFF(schema), RK_CMD_INIT, 0, 0, "S",
	                  "the schema to pair on both sides (default public)" },
	[RK_O_SOURCE_SCHEMA] = { "source-schema", RK_OPT_STR, OFF(source_schema), RK_CMD_INIT, 0, 0, "S",
	                         "the source's schema when the names differ" },
	[RK_O_TARGET_SCHEMA] = { "target-schema", RK_OPT_STR, OFF(target_schema), RK_CMD_INIT, 0, 0, "S",
	                         "the target's schema when the names differ" },
	[RK_O_CONFIG] = { "config", RK_OPT_STR, OFF(config), ALL, 0, RK_OPTF_NOFILE, "FILE",
	                  "INI file with the same keys ([reckon] and [COMMAND] sections; the command line wins)" },
};

/* Layers, highest first (options.h). */
enum {
	RK_LAYER_ARGV = 1,
	RK_LAYER_TABLE,
	RK_LAYER_DEFAULTS,
	RK_LAYER_CMD_SECTION,
	RK_LAYER_RECKON_SECTION,
	RK_LAYER_TOP,
	RK_LAYER_BUILTIN
};

/* A layer being applied: where its values come from, for messages. */
typedef struct rk_layer {
	int rank;         /* RK_LAYER_* */
	const char *path; /* the file, or NULL for the command line */
} rk_layer;

static const char *rk_cmd_label(unsigned cmd)
{
	switch (cmd) {
	case RK_CMD_CHECK: return "check";
	case RK_CMD_REPAIR: return "repair";
	case RK_CMD_LOAD: return "load";
	case RK_CMD_LAB: return "lab";
	case RK_CMD_RERUN: return "rerun-list";
	case RK_CMD_INIT: return "init";
	case RK_CMD_LATENESS: return "lateness";
	default: return "?";
	}
}

const char *rk_opts_name(rk_optid id)
{
	return id < RK_O_COUNT ? rk_optdefs[id].name : "?";
}

static const rk_optdef *rk_opt_find(const char *name, size_t len)
{
	for (size_t i = 0; i < RK_O_COUNT; i++)
		if (strlen(rk_optdefs[i].name) == len && memcmp(rk_optdefs[i].name, name, len) == 0)
			return &rk_optdefs[i];
	return NULL;
}

static rk_optid rk_opt_id(const rk_optdef *d)
{
	return (rk_optid)(d - rk_optdefs);
}

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

static int rk_opt_check_delimiter(const char *v, rk_error *err)
{
	if (strlen(v) == 1 && v[0] != '"' && v[0] != '\n' && v[0] != '\r')
		return 0;
	rk_error_set(err, RK_EXIT_USAGE, "option --csv-delimiter must be one character other than a quote or newline, "
	                                 "not '%s'",
	             v);
	return rk_error_hint(err, "e.g. --csv-delimiter ';'");
}

typedef struct rk_optstate {
	rk_opts *opts;
	unsigned char rank[RK_O_COUNT];      /* the layer that set each option (0: none) */
	unsigned char *map_rank[RK_O_COUNT]; /* per mapping name, for RK_OPT_MAP */
	size_t map_cap[RK_O_COUNT];
	bool tables; /* parsing the base of a job: table options not required */
} rk_optstate;

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

/* Stores one value of option d given by layer ly.  For RK_OPT_MAP, name is
 * the logical column (from "option.NAME" in a file) or NULL (NAME=SQL in
 * value). */
static int rk_opt_store(rk_optstate *st, const rk_optdef *d, const char *mapname, const char *value,
                        const rk_layer *ly, rk_error *err)
{
	rk_opts *o = st->opts;
	rk_optid id = rk_opt_id(d);
	void *field = (char *)o + d->offset;
	char where[160];
	const char *why;

	rk_opt_where(where, sizeof where, d, ly);
	if (d->kind == RK_OPT_MAP) {
		rk_map *m = field;
		const char *sql = value;
		char *name;
		size_t i;

		if (!mapname) {
			const char *eq = strchr(value, '=');

			if (!eq || eq == value) {
				rk_error_set(err, RK_EXIT_USAGE, "%s takes NAME=SQL, not '%s'", where, value);
				return rk_error_hint(err, "e.g. --%s 'amount=amount_cents / 100.0'", d->name);
			}
			name = rk_xstrndup(value, (size_t)(eq - value));
			sql = eq + 1;
		} else {
			name = rk_xstrdup(mapname);
		}
		{
			/* trim the name; the SQL is taken as written */
			char *b = name, *e = name + strlen(name);
			while (*b == ' ' || *b == '\t')
				b++;
			while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			memmove(name, b, (size_t)(e - b));
			name[e - b] = '\0';
		}
		while (*sql == ' ' || *sql == '\t')
			sql++;
		if (!*name || !*sql) {
			rk_error_set(err, RK_EXIT_USAGE, "%s: %s", where, !*name ? "a mapping without a column name" : "a mapping without an expression");
			free(name);
			return rk_error_hint(err, "write %s NAME=SQL, e.g. amount=amount_cents / 100.0", d->name);
		}
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
	if (st->rank[id] && st->rank[id] < ly->rank)
		return 0; /* a higher layer set it */
	if (rk_opt_hidden(st, d, ly->rank))
		return 0;
	switch (d->kind) {
	case RK_OPT_STR:
		if (d->check && d->check(value, err) < 0) {
			if (ly->path)
				rk_error_prefix(err, "%s", ly->path);
			return -1;
		}
		free(*(char **)field);
		*(char **)field = rk_xstrdup(value);
		break;
	case RK_OPT_LIST:
		if (rk_list_split(field, d->name, value, err) < 0) {
			if (ly->path)
				rk_error_prefix(err, "%s", ly->path);
			return -1;
		}
		break;
	case RK_OPT_FLAG:
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
		break;
	case RK_OPT_UINT: {
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
		break;
	}
	case RK_OPT_CAL: {
		char opt[sizeof where + 2];
		size_t n = strspn(value, "0123456789");

		snprintf(opt, sizeof opt, "%s%s", ly->path ? "" : "--", ly->path ? where : d->name);
		if (n > 0 && n < 10 && (!strcmp(value + n, "mo") || !strcmp(value + n, "month") || !strcmp(value + n, "months"))) {
			long months = strtol(value, NULL, 10);

			if (months < 1 || months > 1200) {
				rk_error_set(err, RK_EXIT_USAGE, "invalid %s '%s': 1 to 1200 months", opt, value);
				return rk_error_hint(err, "e.g. %s 1mo (with --timezone)", opt);
			}
			*(rk_usec *)field = -(rk_usec)months;
			break;
		}
		if (rk_duration_parse(opt, value, false, (rk_usec *)field, err) < 0)
			return rk_error_hint(err, "write a duration as <number><unit>, units us, ms, s, m, h, d, w, mo "
			                          "(calendar months, with --timezone), e.g. 15m, 1h, 1d, 1mo");
		break;
	}
	case RK_OPT_DUR:
	case RK_OPT_DUR0: {
		char opt[sizeof where + 2];

		snprintf(opt, sizeof opt, "%s%s", ly->path ? "" : "--", ly->path ? where : d->name);
		if (rk_duration_parse(opt, value, d->kind == RK_OPT_DUR0, (rk_usec *)field, err) < 0)
			return -1;
		break;
	}
	case RK_OPT_TIME: {
		char opt[sizeof where + 2];

		snprintf(opt, sizeof opt, "%s%s", ly->path ? "" : "--", ly->path ? where : d->name);
		if (rk_time_parse_arg(opt, value, (rk_usec *)field, err) < 0)
			return -1;
		break;
	}
	case RK_OPT_ENUM: {
		int k;

		for (k = 0; d->choices[k]; k++)
			if (!strcmp(d->choices[k], value))
				break;
		if (!d->choices[k]) {
			rk_buf b = RK_BUF_INIT;

			for (int j = 0; d->choices[j]; j++)
				rk_buf_printf(&b, "%s%s", j ? (d->choices[j + 1] ? ", " : " or ") : "", d->choices[j]);
			rk_error_set(err, RK_EXIT_USAGE, "%s must be %s, not '%s'", where, rk_buf_cstr(&b), value);
			rk_buf_free(&b);
			if (d->bare)
				return rk_error_hint(err, "--%s alone means --%s=%s", d->name, d->name, d->bare);
			return rk_error_hint(err, "see 'reckon %s --help'", st->opts->cmd_name);
		}
		*(int *)field = k;
		break;
	}
	case RK_OPT_MAP:
		break;
	}
	(void)why;
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

static int rk_opts_argv(rk_optstate *st, int argc, char **argv, rk_error *err)
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

/* Applies the entries of one section of ini (NULL: of every section) as
 * layer rank.  table_only:
 * only options a job's table may set (a job file); own: the command's own
 * section, where a key of another command is an error rather than
 * skipped. */
static int rk_opts_section(rk_optstate *st, const rk_ini *ini, const char *section, int rank, bool table_only,
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

/* Reads an INI file, capped: a configuration is small, and /dev/zero must
 * not spin. */
#define RK_OPTS_INI_MAX (16u << 20)

static rk_ini *rk_opts_ini_read(const char *path, const char *what, rk_error *err)
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

static int rk_opts_config(rk_optstate *st, rk_error *err)
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
			known = !strcmp(s, rk_cmd_label(c));
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

static int rk_opts_finish(rk_optstate *st, rk_error *err)
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

static void rk_opts_begin(rk_optstate *st, rk_opts *opts, unsigned cmd)
{
	memset(opts, 0, sizeof *opts);
	memset(st, 0, sizeof *st);
	st->opts = opts;
	opts->cmd = cmd;
	opts->cmd_name = rk_cmd_label(cmd);
}

static void rk_opts_end(rk_optstate *st)
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

int rk_opts_parse_table(rk_opts *opts, unsigned cmd, int argc, char **argv, const rk_ini *job, const char *label,
                        rk_error *err)
{
	rk_optstate st;
	char section[256];
	int rc = -1;

	snprintf(section, sizeof section, "table %s", label);
	rk_opts_begin(&st, opts, cmd);
	if (rk_opts_argv(&st, argc, argv, err) < 0 ||
	    rk_opts_section(&st, job, section, RK_LAYER_TABLE, true, false, err) < 0 ||
	    rk_opts_section(&st, job, "defaults", RK_LAYER_DEFAULTS, true, false, err) < 0)
		goto done;
	if (opts->config && rk_opts_config(&st, err) < 0)
		goto done;
	if (rk_opts_finish(&st, err) < 0) {
		rk_error_prefix(err, "table %s", label);
		goto done;
	}
	rc = 0;
done:
	rk_opts_end(&st);
	return rc;
}

/* [A-Za-z0-9_.-]+ */
static bool rk_opts_label_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

int rk_opts_job_read(const char *path, unsigned cmd, rk_ini **job, const char ***labels, size_t *nlabels,
                     rk_error *err)
{
	rk_ini *ini = rk_opts_ini_read(path, "job file", err);
	const char **l = NULL;
	size_t n = 0;

	*job = NULL;
	*labels = NULL;
	*nlabels = 0;
	if (!ini)
		return -1;
	for (size_t i = 0; i < ini->nsections; i++) {
		const char *s = ini->sections[i].name;

		if (ini->sections[i].again) {
			rk_error_set(err, RK_EXIT_USAGE, "%s:%d: [%s] again (first at line %d)", path, ini->sections[i].again, s,
			             ini->sections[i].line);
			rk_error_hint(err, "each table has one section with a label of its own");
			goto fail;
		}
		if (!strcmp(s, "defaults"))
			continue;
		if (strncmp(s, "table ", 6) != 0 || !rk_opts_label_ok(s + 6)) {
			rk_error_set(err, RK_EXIT_USAGE, "%s:%d: %s [%s]", path, ini->sections[i].line,
			             strncmp(s, "table ", 6) ? "unknown section" : "invalid table label in", s);
			rk_error_hint(err, "a job file holds [defaults] and [table LABEL] sections; a label is letters, "
			                   "digits, '_', '.' and '-'");
			goto fail;
		}
		l = rk_xrealloc(l, (n + 1) * sizeof *l);
		l[n++] = s + 6;
	}
	for (size_t i = 0; i < ini->nentries; i++)
		if (!ini->entries[i].section[0]) {
			rk_error_set(err, RK_EXIT_USAGE, "%s:%d: key '%s' outside any section", path, ini->entries[i].line,
			             ini->entries[i].key);
			rk_error_hint(err, "put options every table shares under [defaults]");
			goto fail;
		}
	if (n == 0) {
		rk_error_set(err, RK_EXIT_USAGE, "%s: no [table LABEL] section", path);
		rk_error_hint(err, "'reckon init --source ... --target ...' writes a job file to start from");
		goto fail;
	}
	/* every key of every section, checked once against the table (a
	 * table's own parse would only meet them one table at a time) */
	{
		rk_optstate st;
		rk_opts tmp;
		int rc;

		rk_opts_begin(&st, &tmp, cmd);
		rc = rk_opts_section(&st, ini, NULL, RK_LAYER_TABLE, true, false, err);
		rk_opts_end(&st);
		rk_opts_free(&tmp);
		if (rc < 0)
			goto fail;
	}
	*job = ini;
	*labels = l;
	*nlabels = n;
	return 0;
fail:
	free(l);
	rk_ini_free(ini);
	return -1;
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

void rk_opts_audit(const rk_opts *opts, rk_opts_record *out)
{
	size_t n = 0, cap = 0;
	rk_audit_option *v = NULL;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < RK_O_COUNT; i++) {
		const rk_optdef *d = &rk_optdefs[i];
		const void *field = (const char *)opts + d->offset;
		size_t items = d->kind == RK_OPT_MAP ? ((const rk_map *)field)->n : 1;

		if (!(d->cmds & opts->cmd) || (!opts->set[i] && d->kind != RK_OPT_FLAG))
			continue;
		for (size_t j = 0; j < items; j++) {
			rk_audit_option *op;

			if (n == cap) {
				cap = cap ? cap * 2 : 32;
				v = rk_xrealloc(v, cap * sizeof *v);
			}
			op = &v[n++];
			memset(op, 0, sizeof *op);
			op->key = d->name;
			op->flag = -1;
			op->conn = (d->flags & RK_OPTF_CONN) != 0;
			if (d->kind == RK_OPT_MAP) {
				const rk_map *m = field;
				rk_buf b = RK_BUF_INIT;

				rk_buf_printf(&b, "%s.%s", d->name, m->names[j]);
				out->owned = rk_xrealloc(out->owned, (out->nowned + 1) * sizeof *out->owned);
				out->owned[out->nowned++] = b.data;
				op->key = b.data;
				op->value = m->sql[j];
			} else if (d->kind == RK_OPT_FLAG) {
				op->flag = *(const bool *)field;
			} else if (d->kind == RK_OPT_LIST) {
				const rk_list *l = field;

				op->items = (const char *const *)l->items;
				op->nitems = l->n;
			} else {
				op->value = opts->text[i];
			}
		}
	}
	out->options.v = v;
	out->options.n = n;
}

/* A connection option's value as the repair command carries it: a
 * PostgreSQL conninfo without its secrets, a csv:/delta: path as given. */
static void rk_opts_conn_word(rk_buf *out, const char *conn)
{
	rk_buf pub = RK_BUF_INIT;
	rk_error err;

	rk_error_clear(&err);
	if (strncmp(conn, "csv:", 4) != 0 && strncmp(conn, "delta:", 6) != 0 &&
	    rk_pg_conninfo_public(conn, &pub, &err) == 0) {
		rk_shell_word(out, rk_buf_cstr(&pub));
	} else {
		char red[4096];

		rk_pg_redact(conn, red, sizeof red);
		rk_shell_word(out, red);
	}
	rk_buf_free(&pub);
}

void rk_opts_repair_command(const rk_opts *opts, const char *extra, rk_buf *out)
{
	rk_buf_puts(out, "reckon repair");
	for (size_t i = 0; i < RK_O_COUNT; i++) {
		const rk_optdef *d = &rk_optdefs[i];
		const void *field = (const char *)opts + d->offset;

		/* the table's options; --now is the check's clock, not the repair's */
		if (!(d->cmds & RK_CMD_REPAIR) || !(d->flags & RK_OPTF_TABLE) || i == RK_O_NOW || !opts->set[i])
			continue;
		if (d->kind == RK_OPT_MAP) {
			const rk_map *m = field;

			for (size_t j = 0; j < m->n; j++) {
				rk_buf w = RK_BUF_INIT;

				rk_buf_printf(&w, "%s=%s", m->names[j], m->sql[j]);
				rk_buf_printf(out, " --%s ", d->name);
				rk_shell_word(out, rk_buf_cstr(&w));
				rk_buf_free(&w);
			}
			continue;
		}
		if (d->kind == RK_OPT_FLAG) {
			if (*(const bool *)field)
				rk_buf_printf(out, " --%s", d->name);
			continue;
		}
		rk_buf_printf(out, " --%s ", d->name);
		if (d->kind == RK_OPT_LIST) {
			const rk_list *l = field;
			rk_buf w = RK_BUF_INIT;

			for (size_t j = 0; j < l->n; j++)
				rk_buf_printf(&w, "%s%s", j ? "," : "", l->items[j]);
			rk_shell_word(out, rk_buf_cstr(&w));
			rk_buf_free(&w);
		} else if (d->flags & RK_OPTF_CONN) {
			rk_opts_conn_word(out, opts->text[i] ? opts->text[i] : "");
		} else {
			rk_shell_word(out, opts->text[i] ? opts->text[i] : "");
		}
	}
	if (extra && *extra)
		rk_buf_printf(out, " %s", extra);
	rk_buf_puts(out, " --execute");
}

void rk_opts_record_free(rk_opts_record *r)
{
	for (size_t i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	free((void *)r->options.v);
	memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------------
 * help, manual pages, completion
 * ---------------------------------------------------------------------- */

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
		       "              --time COL [--execute] [options]\n"
		       "reckon repair --job FILE --report DIR [--only LABELS] [--execute]\n\n"
		       "Replaces the intervals of a rerun list in the target, one transaction per\n"
		       "interval, then re-checks each.  Without --execute only prints the plan.";
	case RK_CMD_LOAD:
		return "reckon load --strategy NAME --source CONN --target CONN --table NAME\n"
		       "            --key COLS --time COL [options]\n\n"
		       "Runs one incremental load with the named strategy (the loader module).";
	case RK_CMD_LAB:
		return "reckon lab --source CONN [--target CONN] [--engine postgres|split|all]\n"
		       "           [--scenario NAME|all] [--out DIR]\n\n"
		       "Reproduces the load failure scenarios on a real PostgreSQL, then checks and\n"
		       "repairs each.";
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
	return rk_opts_summary(cmd) ? rk_cmd_label(cmd) : NULL;
}

const char *rk_opts_summary(unsigned cmd)
{
	switch (cmd) {
	case RK_CMD_CHECK: return "compare source and target per closed window";
	case RK_CMD_REPAIR: return "replace the intervals of a rerun list in the target, idempotently";
	case RK_CMD_LOAD: return "run one incremental load with a named strategy (loader module)";
	case RK_CMD_LAB: return "reproduce the load failure scenarios on a real PostgreSQL";
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

/* The names of src/load/strategy.c, NULL-terminated, for the completion. */
static const char *const *rk_suggest_strategies(void)
{
	static const char *names[RK_LOAD_NSTRATEGIES + 1];

	for (int i = 0; i < RK_LOAD_NSTRATEGIES; i++)
		names[i] = rk_load_strategy_name((rk_load_strategy)i);
	return names;
}

static const char *const *rk_suggest_crash_points(void)
{
	static const char *names[RK_CRASH_AFTER_WRITE_COMMIT + 2];

	for (int i = 0; i <= RK_CRASH_AFTER_WRITE_COMMIT; i++)
		names[i] = rk_load_crash_name((rk_load_crash)i);
	return names;
}

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
