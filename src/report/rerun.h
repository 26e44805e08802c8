/*
 * rerun.h - the rerun list (docs/reference.md): reading and validating it,
 * merging touching intervals into ranges, and what `reckon rerun-list`
 * prints (the list normalised, the merged ranges, Airflow commands).
 * `reckon repair` reads its input with rk_rerun_read.
 *
 * A valid list has the exact header RK_RERUN_HEADER, then one line per
 * interval [interval_start, interval_end): instants as rk_time_parse reads
 * them (reckon writes "YYYY-MM-DDTHH:MM:SSZ"), finite, start < end, in time
 * order and not overlapping; counts are non-negative integers that fit a
 * PostgreSQL bigint.
 *
 * A list of key segments has the header RK_RERUN_KEY_HEADER and a ninth
 * field, kind, "key" on every line; its bounds are key values (CSV-quoted
 * when they must be; "" is the empty text), an empty unquoted field an open
 * end: the first segment's start and the last one's end only.  The type of
 * the key is not in the file, so their order is checked by whoever knows it
 * (reckon repair); here a segment must not be empty (start == end).
 */
#ifndef RK_RERUN_H
#define RK_RERUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/timeutil.h"

#define RK_RERUN_HEADER "interval_start,interval_end,source_rows,target_rows,missing,extra,duplicated,changed"
#define RK_RERUN_MERGED_HEADER \
	"range_start,range_end,intervals,source_rows,target_rows,missing,extra,duplicated,changed"
/* A list of key segments (docs/key-segments.md) adds a last column, kind,
 * "key" on every line. */
#define RK_RERUN_KEY_HEADER RK_RERUN_HEADER ",kind"
#define RK_RERUN_MERGED_KEY_HEADER RK_RERUN_MERGED_HEADER ",kind"

/* What a rerun list may hold: a line is two instants and six counts (a
 * couple of hundred bytes; a longer one is not a rerun list, /dev/zero
 * included), and as many intervals as one check has windows. */
#define RK_RERUN_LINE_MAX 4096
#define RK_RERUN_MAX_INTERVALS 10000000

/* The counts of the list's columns, in file order. */
enum { RK_RERUN_SOURCE_ROWS,
       RK_RERUN_TARGET_ROWS,
       RK_RERUN_MISSING,
       RK_RERUN_EXTRA,
       RK_RERUN_DUPLICATED,
       RK_RERUN_CHANGED,
       RK_RERUN_NCOUNTS };

/* One interval of a list, or one range of a merged list. */
typedef struct rk_rerun_interval {
	rk_usec start;                    /* inclusive */
	rk_usec end;                      /* exclusive */
	rk_usec last_start;               /* start of the last list interval in [start, end)
	                                   * (== start for a list as read) */
	size_t intervals;                 /* list intervals covered (1 for a list as read) */
	uint64_t count[RK_RERUN_NCOUNTS]; /* source_rows, target_rows, missing, extra,
	                                   * duplicated, changed (summed when merged) */
	unsigned long line;               /* line in the file (of the first interval) */
	bool zoneless;                    /* a bound was written without a zone (taken as UTC),
	                                   * which --from would refuse */
	char *key_start, *key_end;        /* a key list: the segment's bounds, values of the first
	                                   * key column as text (owned by the list); NULL: an
	                                   * open end.  A time list: NULL, and start/end hold it */
} rk_rerun_interval;

typedef struct rk_rerun_list {
	rk_rerun_interval *items; /* n items in time order, disjoint; owned */
	size_t n;
	char *name; /* the file as named in messages; owned */
	bool keyed; /* a list of key segments (header RK_RERUN_KEY_HEADER): start, end and
	             * last_start are 0, key_start/key_end hold the bounds */
} rk_rerun_list;

/*
 * Reads and validates the rerun list at path ("-" = standard input).
 * On success *out is a new list owned by the caller (rk_rerun_free) and 0
 * is returned; an empty list (header only) is valid.  On failure -1 with
 * err naming "FILE:LINE:COLUMN" (columns count bytes from 1) and a hint:
 * RK_EXIT_USAGE for a missing file, a directory or bad content (a line
 * longer than RK_RERUN_LINE_MAX, more than RK_RERUN_MAX_INTERVALS lines),
 * RK_EXIT_RUNTIME for a read error.
 */
int rk_rerun_read(const char *path, rk_rerun_list **out, rk_error *err);

/* Same, from an open stream (not closed); name is used in messages. */
int rk_rerun_read_stream(FILE *fp, const char *name, rk_rerun_list **out, rk_error *err);

/* Frees a list; NULL is harmless. */
void rk_rerun_free(rk_rerun_list *l);

/*
 * Joins intervals that touch (one ends where the next starts) into ranges,
 * summing their counts.  *out is a new list owned by the caller.  Fails
 * (RK_EXIT_USAGE) only when a summed count would exceed the bigint range.
 */
int rk_rerun_merge(const rk_rerun_list *l, rk_rerun_list **out, rk_error *err);

/* Writes the list as a rerun list (header, then one line per interval;
 * a key list with its kind column and its bounds CSV-quoted as needed).
 * Returns 0, or -1 on a write error (errno set). */
int rk_rerun_write(FILE *out, const rk_rerun_list *l);

/* Writes a merged list: RK_RERUN_MERGED_HEADER (a key list:
 * RK_RERUN_MERGED_KEY_HEADER), then one line per range. */
int rk_rerun_write_merged(FILE *out, const rk_rerun_list *merged);

/*
 * Checks an Airflow DAG id for use in a command line: not empty, no
 * control characters, not starting with '-' (the CLI would take it for an
 * option).  0, or -1 with err (RK_EXIT_USAGE).
 */
int rk_rerun_check_dag(const char *dag, rk_error *err);

/*
 * Writes Airflow 2 CLI commands for a merged list, two per range: an
 * `airflow tasks clear` line (the scheduler re-runs the cleared runs) and
 * an `airflow dags backfill --reset-dagruns` line (runs them from the
 * shell); they are alternatives, as a comment at the top says.  The
 * DAG's runs are taken to have logical date = data_interval_start, so a
 * range's runs are those with logical dates in [start, last_start]: both
 * --end-date options are inclusive, and the end of the range is the start
 * of the next, undamaged interval.  An empty list writes nothing.
 * Returns 0, or -1 on a write error.
 */
int rk_rerun_write_airflow(FILE *out, const rk_rerun_list *merged, const char *dag);

/*
 * Writes Airflow 3 CLI commands for a merged list, one per range:
 * `airflow backfill create --dag-id DAG --from-date S --to-date L
 * --reprocess-behavior R`, L the start of the range's last interval (Airflow
 * 3's --to-date is the latest logical date, inclusive, as in Airflow 2).
 * reprocess is "none", "failed" or "completed".  An empty list writes
 * nothing.  Returns 0, or -1 on a write error.
 */
int rk_rerun_write_airflow3(FILE *out, const rk_rerun_list *merged, const char *dag, const char *reprocess);

/*
 * Writes Dagster CLI commands for a merged list, one per range:
 * `dagster asset materialize --select SEL --partition-range FIRST...LAST`,
 * the range's first and last partition keys (both inclusive) of daily
 * ("YYYY-MM-DD") or hourly ("YYYY-MM-DD-HH:MM") partitions in UTC.  A range
 * whose ends are not partition boundaries is refused (RK_EXIT_USAGE, -1 with
 * err, nothing written); an empty list writes nothing.  Returns 0, -1 (err
 * code 0 on a write error).
 */
int rk_rerun_write_dagster(FILE *out, const rk_rerun_list *merged, const char *select, bool hourly, rk_error *err);

/*
 * Writes dbt CLI commands for a merged list, one per range:
 * `dbt run --select SEL --vars '{"start": "S", "end": "E"}'`, start
 * inclusive and end exclusive, as the list's instants (UTC).  A key list:
 * `--vars '{"key_start": K, "key_end": K}'`, the bounds as JSON strings
 * (null: an open end).  An empty list writes nothing.  Returns 0, or -1
 * (err set: RK_EXIT_USAGE for a key that is not valid UTF-8; code 0 on a
 * write error).
 */
int rk_rerun_write_dbt(FILE *out, const rk_rerun_list *merged, const char *select, rk_error *err);

/*
 * Whether --as FORMAT can express the list: Airflow's and Dagster's
 * commands take dates, which a key list does not hold.  0, or -1 with err
 * (RK_EXIT_USAGE) naming the format and the file.
 */
int rk_rerun_check_format(const rk_rerun_list *l, const char *format, rk_error *err);

/*
 * Writes one JSON object per line (JSON Lines) for each item of l: a list
 * as read gives {"interval_start", "interval_end", the six counts}; a
 * merged list (merged true) gives {"range_start", "range_end", "intervals",
 * the six counts}.  Instants as rk_time_format writes them, counts as JSON
 * integers.  A key list's objects start with "kind": "key" and hold the
 * bounds as JSON strings (null: an open end).  An empty list writes
 * nothing.  Returns 0, or -1 (err as rk_rerun_write_dbt's).
 */
int rk_rerun_write_json(FILE *out, const rk_rerun_list *l, bool merged, rk_error *err);

/*
 * Checks a dbt or Dagster selection for use in a command line: not empty,
 * no control characters, not starting with '-'.  option names it in
 * messages.  0, or -1 with err (RK_EXIT_USAGE).
 */
int rk_rerun_check_select(const char *select, const char *option, rk_error *err);

/* s as one POSIX shell word (rk_shell_word), a new string.  Caller frees. */
char *rk_rerun_shell_quote(const char *s);

#endif
