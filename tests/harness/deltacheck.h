/*
 * deltacheck.h - the tests' checker of a Delta table that reckon wrote
 * (test code, linked into the unit tests and into rk-deltacheck for the
 * integration tests; never into reckon).
 *
 * rk_test_delta_check(root) checks the table's log for the protocol's
 * rules (PROTOCOL.md of delta-io/delta) and its data three ways:
 *
 *   - the commits are NNNNNNNNNNNNNNNNNNNN.json, contiguous from version 0;
 *   - version 0 holds exactly one protocol and one metaData; no commit
 *     holds two of either; every commit holds exactly one commitInfo, with
 *     an operation and a timestamp;
 *   - replayed in order, no (path, deletion vector) is added while it is
 *     live (added twice without a remove between), and no remove names a
 *     file that is not live; every remove has a deletionTimestamp;
 *   - every add has stats with numRecords, minValues, maxValues and
 *     nullCount, and a size; its data file exists;
 *   - every live data file, read by DuckDB's own Parquet reader: its row
 *     count is numRecords, and for every column with stats, nullCount is
 *     its NULL count and its values lie within [minValues, maxValues];
 *   - the table read by reckon's Delta reader (io/delta.h) holds exactly
 *     the rows of its live data files read by DuckDB's Parquet reader
 *     (deletion vectors applied, partition columns from the log), and as
 *     many as the stats say.
 *
 * Returns the number of violations (0: the table passes), each described
 * on a line of *report (appended); -1 when the check itself could not run
 * (the reason in *report).
 */
#ifndef RK_TESTS_DELTACHECK_H
#define RK_TESTS_DELTACHECK_H

#include "core/buf.h"

int rk_test_delta_check(const char *root, rk_buf *report);

#endif
