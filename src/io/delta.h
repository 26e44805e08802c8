/*
 * delta.h - a Delta Lake table's snapshot, read as PROTOCOL.md of
 * delta-io/delta defines it (section names below are that document's).
 *
 * What it does, in order (rk_delta_open):
 *   1. lists _delta_log/ (the listing decides; `_last_checkpoint` is only a
 *      hint and is not needed: "Last Checkpoint File");
 *   2. picks the newest complete checkpoint at or before the version asked
 *      for: classic, multi-part (all parts present) or UUID-named v2 (JSON or
 *      parquet, with its sidecars) ("Checkpoints", "Checkpoint Naming
 *      Scheme", "V2 Spec");
 *   3. replays the JSON commits after it, which must be contiguous up to the
 *      version ("Delta Log Entries");
 *   4. reconciles add and remove actions by (path, deletion vector unique
 *      id) ("Action Reconciliation"), keeping the newest protocol and
 *      metaData;
 *   5. refuses reader features it does not implement ("Table Features",
 *      "Reader Version Requirements");
 *   6. parses the schema ("Schema Serialization Format"), column mapping
 *      ("Column Mapping"), partition values ("Partition Value
 *      Serialization"), stats ("Per-file Statistics") and loads each live
 *      file's deletion vector ("Deletion Vectors", "Deletion Vector
 *      Format").
 * Checkpoints and data files are Parquet, read through DuckDB (io/duck.h),
 * never decoded here.
 *
 * What a caller does with it: look at the columns and files, then
 * rk_delta_view() makes a DuckDB view of the live rows under the logical
 * column names and types, to run SQL over.  In short:
 *
 *     rk_delta_spec spec;  rk_duck *duck;  rk_delta *d;  rk_error err;
 *     rk_delta_spec_parse("delta:/lake/orders@42", "--target", &spec, &err);
 *     rk_duck_open(&duck, 0, &err);
 *     rk_delta_open(duck, &spec, NULL, &d, &err);          // exit 2 / 3 on failure
 *     for (i < rk_delta_ncolumns(d)) rk_delta_column_at(d, i)->name, ->kind ...
 *     for (i < rk_delta_nfiles(d))   rk_delta_file_at(d, i)->min[col].num ...   // skip files
 *     rk_delta_view(d, rk_duck_conn(duck), "side", kept, nkept, &err);
 *     SELECT ... FROM "side" WHERE ...                       // DuckDB SQL
 *     rk_delta_free(d); rk_duck_free(duck); rk_delta_spec_clear(&spec);
 *
 * (each call returns -1 with err filled on failure: check every one).
 *
 * Errors (rk_error, the project's exit statuses):
 *   RK_EXIT_USAGE (2)   not a Delta table, a malformed log, a version or
 *                       timestamp the table does not have, a reader feature
 *                       or type this reader does not implement (the
 *                       message names it);
 *   RK_EXIT_RUNTIME (3) a version missing from the log, a file the log
 *                       names that the disk lacks (named), a deletion
 *                       vector that fails its checksum or does not parse,
 *                       an I/O error.
 *
 * Thread safety: a snapshot is immutable after rk_delta_open; reading it
 * from several threads is safe.  rk_delta_view uses only the connection
 * it is given.
 */
#ifndef RK_IO_DELTA_H
#define RK_IO_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/timeutil.h"
#include "io/duck.h"

/* ---- delta:PATH[@VERSION|@TIMESTAMP] ---------------------------------- */

/* The prefix a side's connection string starts with to name a Delta table. */
#define RK_DELTA_PREFIX "delta:"

typedef struct rk_delta_spec {
	char *path;      /* the table root (owned), as written (not made absolute) */
	int64_t version; /* @VERSION, or -1 */
	bool has_time;   /* @TIMESTAMP given */
	rk_usec time;    /* @TIMESTAMP: the newest version committed at or before it */
} rk_delta_spec;

/* True when conn names a Delta table (starts with "delta:"). */
bool rk_delta_is_spec(const char *conn);

/*
 * Parses "delta:PATH", "delta:PATH@42" or "delta:PATH@2026-03-02T10:00:00Z"
 * (an instant with 'Z' or an offset, as --from takes).  The last '@' starts
 * the suffix only when what follows is a version number or such an
 * instant; otherwise the '@' is part of the path.  Errors
 * (RK_EXIT_USAGE) name what: the option ("--source").  The caller frees
 * with rk_delta_spec_clear.  Returns 0 or -1.
 */
int rk_delta_spec_parse(const char *conn, const char *what, rk_delta_spec *out, rk_error *err);
void rk_delta_spec_clear(rk_delta_spec *spec);

/* ---- the snapshot ------------------------------------------------------ */

/* A column's Delta type ("Primitive Types", nested types). */
typedef enum rk_delta_kind {
	RK_DELTA_STRING,
	RK_DELTA_LONG,
	RK_DELTA_INTEGER,
	RK_DELTA_SHORT,
	RK_DELTA_BYTE,
	RK_DELTA_FLOAT,
	RK_DELTA_DOUBLE,
	RK_DELTA_DECIMAL, /* precision, scale */
	RK_DELTA_BOOLEAN,
	RK_DELTA_BINARY,
	RK_DELTA_DATE,
	RK_DELTA_TIMESTAMP,     /* an instant (microseconds, UTC) */
	RK_DELTA_TIMESTAMP_NTZ, /* a wall-clock time without zone */
	RK_DELTA_STRUCT,        /* nested: the view carries DuckDB STRUCT/LIST/MAP */
	RK_DELTA_ARRAY,
	RK_DELTA_MAP
} rk_delta_kind;

/* One top-level column of the table's schema, in schema order. */
typedef struct rk_delta_column {
	const char *name; /* logical name: the view's column name */
	rk_delta_kind kind;
	const char *type;          /* the Delta type as the schema names it: "long",
				      "decimal(12,2)", "timestamp_ntz"; "struct",
				      "array", "map" for nested ones */
	int precision, scale;      /* RK_DELTA_DECIMAL only (precision <= 38) */
	const char *duck_type;     /* its type in the view: BIGINT, DECIMAL(12,2),
				      TIMESTAMPTZ (timestamp), TIMESTAMP
				      (timestamp_ntz), VARCHAR, BLOB, DATE,
				      STRUCT(...), INTEGER[], MAP(...) ... */
	const char *physical_name; /* its name in the data files and in
				      partitionValues and stats: the column mapping
				      physical name, else the logical name */
	int64_t field_id;          /* delta.columnMapping.id, or -1 */
	bool partition;            /* a partition column: its values come from the
				      log (rk_delta_file.part), not the files */
	bool nullable;
} rk_delta_column;

/* A typed value from the log: a partition value or a min/max statistic. */
typedef struct rk_delta_value {
	bool present;     /* false: NULL partition value / no such statistic */
	const char *text; /* normalised text, DuckDB-castable to duck_type:
			     integers and decimals as written, booleans
			     "true"/"false", dates "YYYY-MM-DD", timestamps as
			     an instant "YYYY-MM-DD HH:MM:SS[.ffffff]+00" (a
			     partition value without zone taken in the writer's
			     zone, rk_delta_options), timestamp_ntz
			     "YYYY-MM-DD HH:MM:SS[.ffffff]", strings verbatim */
	int64_t num;      /* integers, booleans (0/1): the value; date: days
			     since 1970-01-01; timestamp and timestamp_ntz:
			     microseconds since 1970-01-01 00:00 (UTC for
			     timestamp); other types 0 */
} rk_delta_value;

/* One live logical file: a data file minus its deletion vector. */
typedef struct rk_delta_file {
	const char *path;           /* absolute, URI-decoded: what DuckDB opens */
	const char *log_path;       /* the add action's path, as the log has it */
	int64_t size;               /* bytes, from the add action */
	int64_t modification_time;  /* ms since the epoch, from the add action */
	int64_t added_version;      /* the commit whose add action this is; -1 when
				    it came from the checkpoint (older) */
	const rk_delta_value *part; /* [ncolumns]; present only for partition
				       columns with a non-NULL value */
	/* Deletion vector: the rows of the data file (0-based, in file order)
	 * that are not part of the table.  Sorted ascending, no duplicates. */
	const char *dv_id; /* its unique id (storageType + pathOrInlineDv
				    [+ "@" offset]), NULL without one */
	const uint64_t *dv_rows;
	size_t dv_count;
	/* Statistics ("Per-file Statistics"), from the add action's stats
	 * JSON; absent ones are -1 / not present. */
	int64_t num_records;             /* rows in the data file, deleted ones included */
	bool tight_bounds;               /* false: min/max may be wider than the live rows */
	const rk_delta_value *min, *max; /* [ncolumns]; top-level primitive
					    columns only */
	const int64_t *null_count;       /* [ncolumns]; -1 when absent */
} rk_delta_file;

typedef struct rk_delta_options {
	/* IANA zone in which partition values of `timestamp` columns written
	 * without a zone are read ("Partition Value Serialization": in the
	 * zone of the system that wrote the table); NULL: UTC.  Values with
	 * 'Z' or an offset are instants whatever this says. */
	const char *partition_zone;
	/* Also read the table's history (rk_delta_ncommits, rk_delta_life_at):
	 * every commit the log still has up to the version, with its
	 * commitInfo, and every add action's file from when it was added to
	 * when it was removed.  The commits are then replayed from version 0
	 * when the log has them all, not from the newest checkpoint (the
	 * snapshot is the same). */
	bool history;
} rk_delta_options;

typedef struct rk_delta rk_delta;

/*
 * Reads the snapshot of spec (latest version, spec->version, or the newest
 * version committed at or before spec->time: the commit's
 * inCommitTimestamp when the commit has one, else its file's modification
 * time, "In-Commit Timestamps").  duck reads the checkpoints and converts
 * zoned partition values; it is not kept.  opt may be NULL.  Errors as
 * above.  The caller owns *out (rk_delta_free).  Returns 0 or -1.
 */
int rk_delta_open(rk_duck *duck, const rk_delta_spec *spec, const rk_delta_options *opt, rk_delta **out,
                  rk_error *err);

/* Frees the snapshot; rk_delta_free(NULL) is harmless. */
void rk_delta_free(rk_delta *d);

/* The snapshot's version. */
int64_t rk_delta_version(const rk_delta *d);

/* The columns, in schema order: valid until rk_delta_free. */
size_t rk_delta_ncolumns(const rk_delta *d);
const rk_delta_column *rk_delta_column_at(const rk_delta *d, size_t i);
/* The index of the column named name (exactly), or -1. */
int rk_delta_column_index(const rk_delta *d, const char *name);

/* The live files, in log path order: valid until rk_delta_free. */
size_t rk_delta_nfiles(const rk_delta *d);
const rk_delta_file *rk_delta_file_at(const rk_delta *d, size_t i);

/* "none", "name" or "id" (metaData.configuration delta.columnMapping.mode). */
const char *rk_delta_column_mapping(const rk_delta *d);

/* ---- the history ("Commit Provenance Information") --------------------- */

/* One commit of the history. */
typedef struct rk_delta_commit {
	int64_t version;
	const char *operation; /* commitInfo.operation ("WRITE", "DELETE", "MERGE"...);
				  "" when the commit has no commitInfo or names none */
	int64_t time_ms;       /* ms since the epoch: commitInfo.inCommitTimestamp, else
				  commitInfo.timestamp (the writer's clock), else the
				  commit file's modification time (time_of_file) */
	bool time_of_file;
	size_t files_added, files_removed; /* its add and remove actions */
	/* the numRecords of the files it added; -1 when one has none */
	int64_t rows_added;
} rk_delta_commit;

/* One life of a data file: from the add action that put it in the table to
 * the remove action (or the next add of the same path and deletion vector)
 * that took it out. */
typedef struct rk_delta_life {
	rk_delta_file file; /* its add action's path, size, partition values and
			       stats (dv_id only: the deletion vector's rows are
			       not loaded, nor the file looked for on disk) */
	int64_t added;      /* the version of its add action; -1 when it came from
			       the checkpoint the history starts at
			       (rk_delta_history_base) */
	int64_t removed;    /* the version that took it out; -1: live in the snapshot */
} rk_delta_life;

/*
 * With rk_delta_options.history: the commits read, by version (every
 * version from 0, or from the base checkpoint's plus one, to the
 * snapshot's), and the files' lives, in log path order.  Without it: none.
 * Valid until rk_delta_free.
 */
size_t rk_delta_ncommits(const rk_delta *d);
const rk_delta_commit *rk_delta_commit_at(const rk_delta *d, size_t i);
size_t rk_delta_nlives(const rk_delta *d);
const rk_delta_life *rk_delta_life_at(const rk_delta *d, size_t i);

/* -1 when the history starts at version 0; else the version of the
 * checkpoint it starts from (the commits before it were cleaned up: what
 * they did is known only as the files live at the checkpoint). */
int64_t rk_delta_history_base(const rk_delta *d);

/* ---- the rows ---------------------------------------------------------- */

/*
 * Creates (or replaces) TEMPORARY view `name` on con holding the live rows
 * of the files whose indexes are files[0..nfiles) (files NULL: every live
 * file): one column per rk_delta_column, named and typed as the column says
 * (logical names, nested fields too; partition columns from the log;
 * deletion vectors applied; INT96 and timestamps as TIMESTAMPTZ, UTC;
 * timestamp_ntz as TIMESTAMP).  Helper temporary tables named
 * "<name>__files" and "<name>__dv" are created beside it; they and the
 * view live until the connection closes or the next rk_delta_view with the
 * same name.  A temporary view is the connection's own: a caller with
 * several connections calls this on each.  Data files are not opened
 * here (their footers are: to learn which physical columns exist, and in
 * id mode their field ids), so a
 * missing data file is reported here (RK_EXIT_RUNTIME naming it) and a
 * file vanishing later fails the caller's query.  With an empty file set
 * (files non-NULL, nfiles 0) the view has the columns and no rows, and no
 * file is opened.  A data file with a column named file_index or
 * file_row_number (DuckDB's own names for the position the view joins on)
 * is refused when partition columns or deletion vectors need them
 * (RK_EXIT_USAGE).  Returns 0 or -1.
 */
int rk_delta_view(const rk_delta *d, duckdb_connection con, const char *name, const size_t *files, size_t nfiles,
                  rk_error *err);

#endif
