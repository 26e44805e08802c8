/*
 * deltawriter.h - writing a Delta Lake table: one transaction, then one
 * commit, as PROTOCOL.md of delta-io/delta describes them (section names
 * below are that document's).  Parquet files are written by DuckDB
 * (io/duck.h, `COPY ... (FORMAT parquet, RETURN_STATS)`); the log, the
 * statistics and the commit protocol are reckon's own.
 *
 * A transaction, in short:
 *
 *     rk_dw *w;  rk_dw_result res;  rk_error err;
 *     rk_dw_open(duck, "/lake/orders", &opt, &w, &err);   // reads the latest snapshot
 *     if (!rk_dw_snapshot(w))                              // no table yet
 *         rk_dw_create(w, "batch", NULL, 0, &err);         // schema from a DuckDB relation
 *     rk_dw_delete(w, "id IN (SELECT id FROM batch)", NULL, 0, &n, &err);
 *     rk_dw_append(w, "batch", &n, &err);
 *     rk_dw_commit(w, "MERGE", params, &res, &err);        // res.version, or -1: nothing to commit
 *     rk_dw_free(w);
 *
 * (each call returns -1 with err filled on failure: check every one).
 * "batch" is any relation on rk_duck_conn(duck): a table, a view, or
 * "(SELECT ...)"; its columns are matched to the table's by name.
 *
 * What a commit holds ("Delta Log Entries"): commitInfo first (timestamp,
 * operation, operationParameters, readVersion, isBlindAppend,
 * operationMetrics, engineInfo "reckon/VERSION"); for a new table the
 * protocol (1/2, or 3/7 with timestampNtz when a column needs it) and the
 * metaData (id, schemaString, partitionColumns, createdTime); then the
 * removes (deletionTimestamp, dataChange, the file's deletion vector) and the
 * adds (a unique part-00000-<uuid>-c000.snappy.parquet, partitionValues,
 * size, modificationTime, dataChange, stats with numRecords and, per
 * top-level primitive column, minValues, maxValues and nullCount).
 *
 * Deletes rewrite files: a file holding a row the predicate matches is
 * removed, and its other live rows (its deletion vector applied) are added
 * back as a new file in the same commit; files without a match are not
 * touched.
 *
 * The commit is atomic ("Delta Log Entries": a version is written once):
 * the actions go to a temporary file in _delta_log/, which is then linked
 * to NNNNNNNNNNNNNNNNNNNN.json (link(2) fails when the name exists: a
 * put-if-absent).  A version taken by another writer in the meantime is
 * never overwritten.  The winner's commit is read: when it does not touch
 * what this transaction read (no metaData or protocol change; no remove of
 * a file this transaction read or removed; no add when this transaction
 * read the table, i.e. deleted or called rk_dw_read_all), the same actions
 * are put at the next version; otherwise the commit fails with
 * RK_EXIT_RUNTIME naming the conflicting version, and the data files this
 * transaction wrote are removed.  A process killed before the link leaves
 * the table as it was (data files no log entry names, and a temporary file
 * in _delta_log/ that readers ignore).
 *
 * Refused tables (RK_EXIT_USAGE, naming them): writer features this writer
 * does not implement ("Table Features"): anything listed in writerFeatures
 * but appendOnly, deletionVectors, timestampNtz, v2Checkpoint,
 * vacuumProtocolCheck, domainMetadata and columnMapping in mode none;
 * with a legacy writer version, the features that version implies and the
 * table uses (invariants, checkConstraints, generatedColumns,
 * changeDataFeed enabled, columnMapping, identityColumns); a writer version
 * above 7.  Deletes on a table with delta.appendOnly=true.  Everything the
 * reader refuses (delta.h).
 *
 * Test hooks (io/fault.h): "delta-files-written" after the data files, before
 * the log entry; "delta-commit-staged" after the temporary log file, before
 * the link.
 */
#ifndef RK_IO_DELTAWRITER_H
#define RK_IO_DELTAWRITER_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "io/delta.h"
#include "io/duck.h"

typedef struct rk_dw rk_dw;

typedef struct rk_dw_options {
	/* Lost races retried at most this many times (0: 20). */
	int max_retries;
	/* Zone of zoneless timestamp partition values (delta.h); NULL: UTC. */
	const char *partition_zone;
} rk_dw_options;

/*
 * Starts a transaction on the table rooted at root: reads its latest
 * snapshot (delta.h), or notes that there is none (root missing, or no
 * commit in root/_delta_log: rk_dw_create makes one), and refuses the
 * table as above.  duck must outlive w; its connection is used for every
 * statement (temporary views named rk_dw_*).  opt may be NULL.
 * Returns 0 (the caller owns *out: rk_dw_free) or -1.
 */
int rk_dw_open(rk_duck *duck, const char *root, const rk_dw_options *opt, rk_dw **out, rk_error *err);

/* Frees w; data files written and not committed are removed (w_free(NULL) is harmless). */
void rk_dw_free(rk_dw *w);

/* The snapshot the transaction reads, NULL when the table does not exist yet. */
const rk_delta *rk_dw_snapshot(const rk_dw *w);

/*
 * A new table (only when rk_dw_snapshot is NULL): its schema is the columns
 * of relation (names and DuckDB types: BIGINT, INTEGER, SMALLINT, TINYINT,
 * DOUBLE, FLOAT, DECIMAL(p,s), BOOLEAN, VARCHAR, BLOB, DATE, TIMESTAMPTZ,
 * TIMESTAMP; another type is RK_EXIT_USAGE naming the column), partition
 * columns partition[0..npart) (each one of them).  No rows are written:
 * rk_dw_append does.  Returns 0 or -1.
 */
int rk_dw_create(rk_dw *w, const char *relation, const char *const *partition, size_t npart, rk_error *err);

/*
 * Writes the rows of relation as new data files (one per partition value),
 * cast to the table's column types; a table column relation lacks is NULL,
 * a relation column the table lacks is RK_EXIT_USAGE (no schema
 * evolution).  *rows (may be NULL) gets the number of rows.  Returns 0 or -1.
 */
int rk_dw_append(rk_dw *w, const char *relation, int64_t *rows, rk_error *err);

/*
 * Deletes the live rows for which predicate (DuckDB SQL over the table's
 * logical columns; it may name other relations of the connection) is true,
 * among the snapshot's files files[0..nfiles) (files NULL: every live
 * file), by rewriting the files that hold one.  The predicate is evaluated
 * over one file's live rows at a time, the relation rk_dw_file (a
 * correlated subquery names its columns rk_dw_file."col").  Every file looked at joins
 * the read set.  *rows (may be NULL) gets the number of rows deleted.
 * RK_EXIT_USAGE for an append-only table that would lose a row, or
 * predicate SQL DuckDB refuses.  Returns 0 or -1.
 */
int rk_dw_delete(rk_dw *w, const char *predicate, const size_t *files, size_t nfiles, int64_t *rows,
                 rk_error *err);

/* Adds the snapshot's files files[0..nfiles) to the read set (read by the
 * caller to decide the write, as a delete's files are): a concurrent
 * commit that removes one then conflicts with this one. */
void rk_dw_read_files(rk_dw *w, const size_t *files, size_t nfiles);

/* Marks the whole table read (a scan the writes depend on): a concurrent
 * commit that adds or removes files then conflicts with this one. */
void rk_dw_read_all(rk_dw *w);

typedef struct rk_dw_result {
	int64_t version; /* the version committed; -1: nothing to commit, no commit made */
	int retries;     /* lost races retried */
	size_t files_added, files_removed;
	int64_t rows_added; /* rows in the added files */
} rk_dw_result;

/*
 * Commits the transaction as operation ("WRITE", "DELETE", "MERGE",
 * "CREATE TABLE", ...) with operationParameters params (name, value pairs,
 * NULL-terminated; params NULL: none).  A transaction with no add and no
 * remove that does not create the table makes no commit (res->version -1).
 * A lost race is retried or refused as above (RK_EXIT_RUNTIME: "version N
 * of T, committed by another writer (OPERATION), conflicts with this
 * write: ...").  After a commit (or its failure) only rk_dw_free may be
 * called.  Returns 0 or -1.
 */
int rk_dw_commit(rk_dw *w, const char *operation, const char *const *params, rk_dw_result *res, rk_error *err);

#endif
