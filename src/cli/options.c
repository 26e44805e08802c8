/*
 * options.c - the one option table: the parser (options_parse.c), the job
 * files (options_job.c), the audit record (options_record.c), --help, the
 * manual pages and the completion (options_usage.c) all read it.
 */
#include "cli/options.h"

#include <stddef.h>
#include <string.h>

#include "cli/options_impl.h"
#include "core/error.h"
#include "load/strategy.h"

#define OFF(f) offsetof(rk_opts, f)
#define PAIR (RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LOAD)
#define ALL (RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LOAD | RK_CMD_LAB | RK_CMD_RERUN | RK_CMD_INIT | RK_CMD_LATENESS)

static int rk_opt_check_delimiter(const char *v, rk_error *err)
{
	if (strlen(v) == 1 && v[0] != '"' && v[0] != '\n' && v[0] != '\r')
		return 0;
	rk_error_set(err, RK_EXIT_USAGE, "option --csv-delimiter must be one character other than a quote or newline, "
	                                 "not '%s'",
	             v);
	return rk_error_hint(err, "e.g. --csv-delimiter ';'");
}

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

static const char *const rk_choices_format[] = { "text", "json", NULL };
static const char *const rk_choices_pushdown[] = { "off", "on", "auto", NULL };
static const char *const rk_choices_progress[] = { "auto", "always", "never", NULL };
static const char *const rk_choices_as[] = { "airflow", "airflow3", "dagster", "dbt", "json", NULL };
static const char *const rk_choices_reprocess[] = { "none", "failed", "completed", NULL };
static const char *const rk_choices_partitions[] = { "daily", "hourly", NULL };

/* The one option table: parser, INI readers, --help, manual pages and
 * completion all read it.  Order is the order of --help.  A row names the
 * fields it sets (rk_optdef, options_impl.h); the others are zero. */
const rk_optdef rk_optdefs[RK_O_COUNT] = {
	[RK_O_SOURCE] = {
	        .name = "source",
	        .kind = RK_OPT_STR,
	        .offset = OFF(source),
	        .cmds = PAIR | RK_CMD_LAB | RK_CMD_INIT | RK_CMD_LATENESS,
	        .required = PAIR | RK_CMD_LAB | RK_CMD_INIT | RK_CMD_LATENESS,
	        .flags = RK_OPTF_TABLE | RK_OPTF_CONN,
	        .arg = "CONN",
	        .help = "source: libpq conninfo or URI, or csv:PATH (a file, or a directory of *.csv read in name order)",
	},
	[RK_O_TARGET] = {
	        .name = "target",
	        .kind = RK_OPT_STR,
	        .offset = OFF(target),
	        .cmds = PAIR | RK_CMD_LAB | RK_CMD_INIT,
	        .required = RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_INIT,
	        .flags = RK_OPTF_TABLE | RK_OPTF_CONN,
	        .arg = "CONN",
	        .help = "target: same forms (repair and load: PostgreSQL only; load: default the source)",
	},
	[RK_O_TABLE] = {
	        .name = "table",
	        .kind = RK_OPT_STR,
	        .offset = OFF(table),
	        .cmds = PAIR | RK_CMD_LATENESS | RK_CMD_INIT,
	        .flags = RK_OPTF_TABLE,
	        .arg = "NAME",
	        .help = "relation name on both sides (schema-qualified allowed)",
	},
	[RK_O_SOURCE_TABLE] = {
	        .name = "source-table",
	        .kind = RK_OPT_STR,
	        .offset = OFF(source_table),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "NAME",
	        .help = "source relation when the names differ",
	},
	[RK_O_TARGET_TABLE] = {
	        .name = "target-table",
	        .kind = RK_OPT_STR,
	        .offset = OFF(target_table),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "NAME",
	        .help = "target relation when the names differ",
	},
	[RK_O_KEY] = {
	        .name = "key",
	        .kind = RK_OPT_LIST,
	        .offset = OFF(key),
	        .cmds = PAIR,
	        .required = RK_CMD_LOAD,
	        .flags = RK_OPTF_TABLE,
	        .arg = "COLS",
	        .help = "comma-separated key columns (default: the target's primary key, else the source's)",
	},
	[RK_O_TIME] = {
	        .name = "time",
	        .kind = RK_OPT_STR,
	        .offset = OFF(time),
	        .cmds = PAIR | RK_CMD_LATENESS,
	        .required = RK_CMD_LOAD | RK_CMD_LATENESS,
	        .flags = RK_OPTF_TABLE,
	        .arg = "COL",
	        .help = "the time column: timestamptz, timestamp (in --time-column-zone, default UTC) or date (check "
	                "and repair without it: by key segments)",
	},
	[RK_O_SUM] = {
	        .name = "sum",
	        .kind = RK_OPT_LIST,
	        .offset = OFF(sum),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "COLS",
	        .help = "integer or numeric columns summed exactly per window (not floats: docs/reference.md)",
	},
	[RK_O_COLUMNS] = {
	        .name = "columns",
	        .kind = RK_OPT_LIST,
	        .offset = OFF(columns),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "COLS",
	        .help = "columns hashed per row, in this order (default: the whole row: every column both sides have, in "
	                "the target's order)",
	},
	[RK_O_EXCLUDE_COLUMNS] = {
	        .name = "exclude-columns",
	        .kind = RK_OPT_LIST,
	        .offset = OFF(exclude_columns),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "COLS",
	        .help = "columns left out of the default whole-row hash (loaded_at-like columns)",
	},
	[RK_O_SOURCE_EXPR] = {
	        .name = "source-expr",
	        .kind = RK_OPT_MAP,
	        .offset = OFF(source_expr),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "NAME=SQL",
	        .help = "the source's column or SQL expression for logical column NAME (repeatable; in a file: "
	                "source-expr.NAME = SQL)",
	},
	[RK_O_TARGET_EXPR] = {
	        .name = "target-expr",
	        .kind = RK_OPT_MAP,
	        .offset = OFF(target_expr),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "NAME=SQL",
	        .help = "the target's column or SQL expression for logical column NAME (repeatable)",
	},
	[RK_O_SOURCE_WHERE] = {
	        .name = "source-where",
	        .kind = RK_OPT_STR,
	        .offset = OFF(source_where),
	        .cmds = PAIR | RK_CMD_LATENESS,
	        .flags = RK_OPTF_TABLE,
	        .arg = "SQL",
	        .help = "only the source rows the load is meant to carry (e.g. 'not is_test')",
	},
	[RK_O_TARGET_WHERE] = {
	        .name = "target-where",
	        .kind = RK_OPT_STR,
	        .offset = OFF(target_where),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "SQL",
	        .help = "only these target rows belong to the pair",
	},
	[RK_O_TYPES] = {
	        .name = "types",
	        .kind = RK_OPT_LIST,
	        .offset = OFF(types),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "COL:TYPE,...",
	        .help = "column types for CSV data (default: the PostgreSQL side's catalog types)",
	},
	[RK_O_CSV_DELIMITER] = {
	        .name = "csv-delimiter",
	        .kind = RK_OPT_STR,
	        .offset = OFF(csv_delimiter),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "C",
	        .help = "CSV field delimiter",
	        .def = ",",
	        .check = rk_opt_check_delimiter,
	},
	[RK_O_CSV_NULL] = {
	        .name = "csv-null",
	        .kind = RK_OPT_STR,
	        .offset = OFF(csv_null),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "S",
	        .help = "CSV NULL marker (default: an unquoted empty field is NULL, \"\" the empty string)",
	},
	[RK_O_DELTA_PARTITION_ZONE] = {
	        .name = "delta-partition-zone",
	        .kind = RK_OPT_STR,
	        .offset = OFF(delta_partition_zone),
	        .cmds = PAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "ZONE",
	        .help = "IANA zone of a Delta table's timestamp partition values written without a zone: the writer's "
	                "zone (default UTC)",
	},
	[RK_O_FROM] = {
	        .name = "from",
	        .kind = RK_OPT_TIME,
	        .offset = OFF(from),
	        .cmds = RK_CMD_CHECK | RK_CMD_LATENESS,
	        .flags = RK_OPTF_TABLE,
	        .arg = "TS",
	        .help = "start of the range, ISO-8601 with Z or an offset (or --last)",
	},
	[RK_O_TO] = {
	        .name = "to",
	        .kind = RK_OPT_TIME,
	        .offset = OFF(to),
	        .cmds = RK_CMD_CHECK | RK_CMD_LATENESS,
	        .flags = RK_OPTF_TABLE,
	        .arg = "TS",
	        .help = "end of the range, exclusive",
	},
	[RK_O_LAST] = {
	        .name = "last",
	        .kind = RK_OPT_CAL,
	        .offset = OFF(last),
	        .cmds = RK_CMD_CHECK | RK_CMD_LATENESS,
	        .flags = RK_OPTF_TABLE,
	        .arg = "DUR",
	        .help = "the range is the latest closed windows covering DUR, on the grid counted from "
	                "1970-01-01T00:00:00Z, or with --timezone the zone's calendar (instead of --from/--to)",
	},
	[RK_O_WINDOW] = {
	        .name = "window",
	        .kind = RK_OPT_CAL,
	        .offset = OFF(window),
	        .cmds = RK_CMD_CHECK | RK_CMD_INIT | RK_CMD_LATENESS,
	        .flags = RK_OPTF_TABLE,
	        .arg = "DUR",
	        .help = "window width: 90s, 15m, 1h, 1d; with --timezone also 1w, 1mo (calendar units)",
	        .def = "1h",
	        .def_cmds = RK_CMD_LATENESS,
	},
	[RK_O_TIMEZONE] = {
	        .name = "timezone",
	        .kind = RK_OPT_STR,
	        .offset = OFF(timezone),
	        .cmds = RK_CMD_CHECK | RK_CMD_LATENESS | RK_CMD_REPAIR | RK_CMD_LOAD,
	        .flags = RK_OPTF_TABLE,
	        .arg = "ZONE",
	        .help = "an IANA zone (Europe/Berlin): d/w/mo windows are its calendar days, weeks and months, h/m/s "
	                "windows start at its midnight, dates (--from/--to, --interval-start/-end) are its midnights, "
	                "--load-interval follows its calendar; local times shown beside UTC",
	},
	[RK_O_TIME_COLUMN_ZONE] = {
	        .name = "time-column-zone",
	        .kind = RK_OPT_STR,
	        .offset = OFF(time_column_zone),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "ZONE",
	        .help = "the IANA zone whose wall-clock times a timestamp (without time zone) time column holds (default "
	                "UTC); the DST hour placed as AT TIME ZONE does",
	},
	[RK_O_SETTLE] = {
	        .name = "settle",
	        .kind = RK_OPT_DUR0,
	        .offset = OFF(settle),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LATENESS,
	        .flags = RK_OPTF_TABLE,
	        .arg = "DUR",
	        .help = "closedness margin: a window is closed when end <= now - settle (repair: an interval too)",
	        .def = "10m",
	},
	[RK_O_NOW] = {
	        .name = "now",
	        .kind = RK_OPT_TIME,
	        .offset = OFF(now),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LATENESS,
	        .flags = RK_OPTF_TABLE,
	        .arg = "TS",
	        .help = "the clock used for closedness (default: the current time)",
	},
	[RK_O_RERUN_LIST] = {
	        .name = "rerun-list",
	        .kind = RK_OPT_STR,
	        .offset = OFF(rerun_list),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR,
	        .arg = "FILE",
	        .help = "check: write the rerun list (CSV); repair: the rerun list to replay",
	},
	[RK_O_REPORT] = {
	        .name = "report",
	        .kind = RK_OPT_STR,
	        .offset = OFF(report),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR,
	        .arg = "DIR",
	        .help = "check: write windows.csv, findings.csv, changes.csv, rerun.csv, summary.json and report.html "
	                "into DIR, replaced as one set (a job: DIR/LABEL/ each); repair --job: the job's report directory",
	},
	[RK_O_FORMAT] = {
	        .name = "format",
	        .kind = RK_OPT_ENUM,
	        .offset = OFF(format),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR | RK_CMD_LATENESS,
	        .help = "what goes to stdout",
	        .def = "text",
	        .choices = rk_choices_format,
	},
	[RK_O_JOBS] = {
	        .name = "jobs",
	        .kind = RK_OPT_UINT,
	        .offset = OFF(jobs),
	        .cmds = RK_CMD_CHECK,
	        .flags = RK_OPTF_TABLE,
	        .arg = "N",
	        .help = "parallel readers per PostgreSQL side, in one snapshot",
	        .def = "1",
	        .lo = 1,
	        .hi = 64,
	},
	[RK_O_PUSHDOWN] = {
	        .name = "pushdown",
	        .kind = RK_OPT_ENUM,
	        .offset = OFF(pushdown),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR,
	        .flags = RK_OPTF_TABLE,
	        .help = "compute PostgreSQL sides' window digests in the server (reckon extension, docs/pushdown.md); "
	                "auto: stream the sides without it (repair's checks: auto unless given)",
	        .def = "off",
	        .def_cmds = RK_CMD_CHECK,
	        .choices = rk_choices_pushdown,
	        .bare = "on",
	},
	[RK_O_AUDIT] = {
	        .name = "audit",
	        .kind = RK_OPT_STR,
	        .offset = OFF(audit),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR,
	        .flags = RK_OPTF_CONN,
	        .arg = "CONN",
	        .help = "record the run in schema reckon of that database (check: windows, findings; repair: intervals)",
	},
	[RK_O_METRICS] = {
	        .name = "metrics",
	        .kind = RK_OPT_STR,
	        .offset = OFF(metrics),
	        .cmds = RK_CMD_CHECK,
	        .arg = "FILE",
	        .help = "write the run's metrics in Prometheus text format, atomically (node_exporter's textfile "
	                "collector: docs/cron.md)",
	},
	[RK_O_PROGRESS] = {
	        .name = "progress",
	        .kind = RK_OPT_ENUM,
	        .offset = OFF(progress),
	        .cmds = RK_CMD_CHECK,
	        .help = "progress on stderr: rows read per side, rate, share of the range, ETA (auto: when stderr is a "
	                "terminal)",
	        .def = "auto",
	        .choices = rk_choices_progress,
	},
	[RK_O_QUIET] = {
	        .name = "quiet",
	        .kind = RK_OPT_FLAG,
	        .offset = OFF(quiet),
	        .cmds = RK_CMD_CHECK,
	        .help = "print no summary line on stderr when differences are found (by default a check that differs says "
	                "so there, so that cron mails it even with stdout discarded)",
	},
	[RK_O_LEAF_ROWS] = {
	        .name = "leaf-rows",
	        .kind = RK_OPT_UINT,
	        .offset = OFF(leaf_rows),
	        .cmds = RK_CMD_CHECK,
	        .flags = RK_OPTF_TABLE,
	        .arg = "N",
	        .help = "most rows per side the key-level drilldown holds at once",
	        .def = "200000",
	        .lo = 1,
	        .hi = 100000000,
	},
	[RK_O_WATERMARK_QUERY] = {
	        .name = "watermark-query",
	        .kind = RK_OPT_STR,
	        .offset = OFF(watermark_query),
	        .cmds = RK_CMD_CHECK,
	        .flags = RK_OPTF_TABLE,
	        .arg = "SQL",
	        .help = "source query returning one timestamp, run as written in a read-only transaction: audit the "
	                "watermark's claim",
	},
	[RK_O_NO_VALUES] = {
	        .name = "no-values",
	        .kind = RK_OPT_FLAG,
	        .offset = OFF(no_values),
	        .cmds = RK_CMD_CHECK,
	        .flags = RK_OPTF_TABLE,
	        .help = "name the columns a changed row differs in, without their values (tables holding personal data)",
	},
	[RK_O_JOB] = {
	        .name = "job",
	        .kind = RK_OPT_STR,
	        .offset = OFF(job),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR,
	        .flags = RK_OPTF_NOFILE,
	        .arg = "FILE",
	        .help = "a job file: [defaults] and one [table LABEL] section per table pair (docs/jobs.md)",
	},
	[RK_O_ONLY] = {
	        .name = "only",
	        .kind = RK_OPT_LIST,
	        .offset = OFF(only),
	        .cmds = RK_CMD_CHECK | RK_CMD_REPAIR,
	        .flags = RK_OPTF_JOBONLY,
	        .arg = "LABELS",
	        .help = "with --job: only these tables",
	},
	[RK_O_PARALLEL] = {
	        .name = "parallel",
	        .kind = RK_OPT_UINT,
	        .offset = OFF(parallel),
	        .cmds = RK_CMD_CHECK,
	        .flags = RK_OPTF_JOBONLY,
	        .arg = "N",
	        .help = "with --job: tables checked at once",
	        .def = "1",
	        .lo = 1,
	        .hi = 64,
	},
	[RK_O_EXECUTE] = {
	        .name = "execute",
	        .kind = RK_OPT_FLAG,
	        .offset = OFF(execute),
	        .cmds = RK_CMD_REPAIR,
	        .help = "really change the target (default: print the plan only)",
	},
	[RK_O_INTERVAL_COLUMN] = {
	        .name = "interval-column",
	        .kind = RK_OPT_STR,
	        .offset = OFF(interval_column),
	        .cmds = RK_CMD_REPAIR | RK_CMD_LOAD,
	        .flags = RK_OPTF_TABLE,
	        .arg = "COL",
	        .help = "target column recording each row's load interval start",
	},
	[RK_O_ALLOW_OPEN] = {
	        .name = "allow-open",
	        .kind = RK_OPT_FLAG,
	        .offset = OFF(allow_open),
	        .cmds = RK_CMD_REPAIR,
	        .help = "repair open intervals too (end after now - settle), which may still receive rows",
	},
	[RK_O_REPLACE_INTERVAL] = {
	        .name = "replace-interval",
	        .kind = RK_OPT_FLAG,
	        .offset = OFF(replace_interval),
	        .cmds = RK_CMD_REPAIR,
	        .flags = RK_OPTF_TABLE,
	        .help = "replace every target row of each interval (for loads that own whole intervals) instead of "
	                "changing only the rows that differ",
	},
	[RK_O_ALLOW_CASCADE] = {
	        .name = "allow-cascade",
	        .kind = RK_OPT_FLAG,
	        .offset = OFF(allow_cascade),
	        .cmds = RK_CMD_REPAIR,
	        .flags = RK_OPTF_TABLE,
	        .help = "let repair delete target rows that other rows reference through an ON DELETE CASCADE, SET NULL "
	                "or SET DEFAULT foreign key (they change with them)",
	},
	[RK_O_LOAD_INTERVAL] = {
	        .name = "load-interval",
	        .kind = RK_OPT_CAL,
	        .offset = OFF(load_interval),
	        .cmds = RK_CMD_REPAIR,
	        .flags = RK_OPTF_TABLE,
	        .arg = "DUR",
	        .help = "with --interval-column: the load's interval width; a row records the start of the DUR-wide "
	                "interval holding its time, on the grid counted from 1970-01-01T00:00:00Z, or with --timezone the "
	                "zone's calendar (1d, 1w, 1mo)",
	},
	[RK_O_FORCE] = {
	        .name = "force",
	        .kind = RK_OPT_FLAG,
	        .offset = OFF(force),
	        .cmds = RK_CMD_REPAIR,
	        .help = "repair a target table that an enabled logical-replication subscription writes into",
	},
	[RK_O_LOCK_TIMEOUT] = {
	        .name = "lock-timeout",
	        .kind = RK_OPT_DUR0,
	        .offset = OFF(lock_timeout),
	        .cmds = RK_CMD_REPAIR | RK_CMD_LOAD,
	        .arg = "DUR",
	        .help = "longest wait for another session's lock before giving up, nothing changed (0: no limit)",
	        .def = "30s",
	},
	[RK_O_STRATEGY] = {
	        .name = "strategy",
	        .kind = RK_OPT_STR,
	        .offset = OFF(strategy),
	        .cmds = RK_CMD_LOAD,
	        .required = RK_CMD_LOAD,
	        .arg = "NAME",
	        .help = "load strategy (docs/loader.md)",
	        .suggest = rk_suggest_strategies,
	},
	[RK_O_WATERMARK_TABLE] = {
	        .name = "watermark-table",
	        .kind = RK_OPT_STR,
	        .offset = OFF(watermark_table),
	        .cmds = RK_CMD_LOAD,
	        .arg = "NAME",
	        .help = "the watermark table (one row per load name)",
	},
	[RK_O_LOAD_NAME] = {
	        .name = "load-name",
	        .kind = RK_OPT_STR,
	        .offset = OFF(load_name),
	        .cmds = RK_CMD_LOAD,
	        .arg = "NAME",
	        .help = "the watermark row this load owns",
	},
	[RK_O_LOOKBACK] = {
	        .name = "lookback",
	        .kind = RK_OPT_DUR0,
	        .offset = OFF(lookback),
	        .cmds = RK_CMD_LOAD,
	        .arg = "DUR",
	        .help = "re-read this far behind the watermark (keyed strategies)",
	        .def = "0",
	},
	[RK_O_INTERVAL_START] = {
	        .name = "interval-start",
	        .kind = RK_OPT_TIME,
	        .offset = OFF(interval_start),
	        .cmds = RK_CMD_LOAD,
	        .arg = "TS",
	        .help = "start of the data interval of this run",
	},
	[RK_O_INTERVAL_END] = {
	        .name = "interval-end",
	        .kind = RK_OPT_TIME,
	        .offset = OFF(interval_end),
	        .cmds = RK_CMD_LOAD,
	        .arg = "TS",
	        .help = "end of the data interval of this run",
	},
	[RK_O_CRASH_AT] = {
	        .name = "crash-at",
	        .kind = RK_OPT_STR,
	        .offset = OFF(crash_at),
	        .cmds = RK_CMD_LOAD,
	        .arg = "POINT",
	        .help = "fault injection: SIGKILL this process at POINT",
	        .suggest = rk_suggest_crash_points,
	},
	[RK_O_UNSAFE] = {
	        .name = "unsafe",
	        .kind = RK_OPT_FLAG,
	        .offset = OFF(unsafe),
	        .cmds = RK_CMD_LOAD,
	        .help = "allow the strategies that lose or duplicate rows",
	},
	[RK_O_ENGINE] = {
	        .name = "engine",
	        .kind = RK_OPT_STR,
	        .offset = OFF(engine),
	        .cmds = RK_CMD_LAB,
	        .arg = "postgres|split|delta|all",
	        .help = "lab engines",
	        .def = "all",
	},
	[RK_O_SCENARIO] = {
	        .name = "scenario",
	        .kind = RK_OPT_STR,
	        .offset = OFF(scenario),
	        .cmds = RK_CMD_LAB,
	        .arg = "NAME|all",
	        .help = "lab scenario",
	        .def = "all",
	},
	[RK_O_OUT] = {
	        .name = "out",
	        .kind = RK_OPT_STR,
	        .offset = OFF(out),
	        .cmds = RK_CMD_LAB,
	        .arg = "DIR",
	        .help = "lab output directory",
	        .def = "out",
	},
	[RK_O_DELTA_DIR] = {
	        .name = "delta-dir",
	        .kind = RK_OPT_STR,
	        .offset = OFF(delta_dir),
	        .cmds = RK_CMD_LAB,
	        .arg = "DIR",
	        .help = "engine delta: the Delta tables, DIR/SCENARIO (default OUT/delta/SCENARIO/table)",
	},
	[RK_O_MERGE] = {
	        .name = "merge",
	        .kind = RK_OPT_FLAG,
	        .offset = OFF(merge),
	        .cmds = RK_CMD_RERUN,
	        .help = "merge adjacent intervals into ranges",
	},
	[RK_O_AS] = {
	        .name = "as",
	        .kind = RK_OPT_ENUM,
	        .offset = OFF(as),
	        .cmds = RK_CMD_RERUN,
	        .help = "print scheduler commands: airflow (Airflow 2), airflow3, dagster, dbt, or json (one object per "
	                "interval)",
	        .choices = rk_choices_as,
	},
	[RK_O_DAG] = {
	        .name = "dag",
	        .kind = RK_OPT_STR,
	        .offset = OFF(dag),
	        .cmds = RK_CMD_RERUN,
	        .arg = "DAG",
	        .help = "the Airflow DAG id (with --as airflow or airflow3)",
	},
	[RK_O_REPROCESS] = {
	        .name = "reprocess-behavior",
	        .kind = RK_OPT_ENUM,
	        .offset = OFF(reprocess),
	        .cmds = RK_CMD_RERUN,
	        .help = "with --as airflow3: which existing runs the backfill runs again (completed: every one, as "
	                "damaged data needs)",
	        .def = "completed",
	        .choices = rk_choices_reprocess,
	},
	[RK_O_SELECT] = {
	        .name = "select",
	        .kind = RK_OPT_STR,
	        .offset = OFF(select),
	        .cmds = RK_CMD_RERUN,
	        .arg = "SELECTOR",
	        .help = "with --as dagster: the assets to materialize; with --as dbt: the models to run",
	},
	[RK_O_PARTITIONS] = {
	        .name = "partitions",
	        .kind = RK_OPT_ENUM,
	        .offset = OFF(partitions),
	        .cmds = RK_CMD_RERUN,
	        .help = "with --as dagster: the assets' time partitions (UTC keys)",
	        .def = "daily",
	        .choices = rk_choices_partitions,
	},
	[RK_O_INPUT] = {
	        .name = "input",
	        .kind = RK_OPT_STR,
	        .offset = OFF(input),
	        .cmds = RK_CMD_RERUN,
	        .arg = "FILE",
	        .help = "the rerun list to read (default: the first argument)",
	},
	[RK_O_SCHEMA] = {
	        .name = "schema",
	        .kind = RK_OPT_STR,
	        .offset = OFF(schema),
	        .cmds = RK_CMD_INIT,
	        .arg = "S",
	        .help = "the schema to pair on both sides (default public)",
	},
	[RK_O_SOURCE_SCHEMA] = {
	        .name = "source-schema",
	        .kind = RK_OPT_STR,
	        .offset = OFF(source_schema),
	        .cmds = RK_CMD_INIT,
	        .arg = "S",
	        .help = "the source's schema when the names differ",
	},
	[RK_O_TARGET_SCHEMA] = {
	        .name = "target-schema",
	        .kind = RK_OPT_STR,
	        .offset = OFF(target_schema),
	        .cmds = RK_CMD_INIT,
	        .arg = "S",
	        .help = "the target's schema when the names differ",
	},
	[RK_O_CONFIG] = {
	        .name = "config",
	        .kind = RK_OPT_STR,
	        .offset = OFF(config),
	        .cmds = ALL,
	        .flags = RK_OPTF_NOFILE,
	        .arg = "FILE",
	        .help = "INI file with the same keys ([reckon] and [COMMAND] sections; the command line wins)",
	},
};

const char *rk_opt_cmd_label(unsigned cmd)
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

const rk_optdef *rk_opt_find(const char *name, size_t len)
{
	for (size_t i = 0; i < RK_O_COUNT; i++)
		if (strlen(rk_optdefs[i].name) == len && memcmp(rk_optdefs[i].name, name, len) == 0)
			return &rk_optdefs[i];
	return NULL;
}

rk_optid rk_opt_id(const rk_optdef *d)
{
	return (rk_optid)(d - rk_optdefs);
}
