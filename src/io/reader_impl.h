/*
 * reader_impl.h - the contract between reader.c (dispatch) and the reader
 * drivers, one file each (pgreader.c, csvreader.c).  Not for use outside
 * src/io/ (and tests).
 */
#ifndef RK_READER_IMPL_H
#define RK_READER_IMPL_H

#include "io/reader.h"

typedef struct rk_reader_ops {
	int (*bind)(void *impl, const char *const *columns, size_t ncolumns, rk_type *types, rk_error *err);
	int (*scan)(void *impl, const rk_scan *scan, rk_row_fn fn, void *ctx, rk_error *err);
	/* optional: a value a scan sent out of band (rk_reader_large_value) */
	int (*large_value)(void *impl, size_t col, rk_chunk_fn fn, void *ctx, uint64_t *total, rk_error *err);
	const char *(*describe)(const void *impl);
	void (*free)(void *impl);
	/* optional: every column the relation / CSV header has, in order */
	int (*columns)(void *impl, char ***names, size_t *n, rk_error *err);
	/* optional: the primary key's columns (none: no primary key) */
	int (*primary_key)(void *impl, char ***names, size_t *n, rk_error *err);
	/* optional: the exported snapshot id (opts.export_snapshot), or NULL */
	const char *(*snapshot)(const void *impl);
	/* optional: window digests computed by the server (rk_reader_digest) */
	int (*digest)(void *impl, rk_digest_query *q, rk_row_fn fn, void *ctx, rk_error *err);
	/* optional: the drilldown's sub-digests computed by the server (rk_reader_drill_digest) */
	int (*drill_digest)(void *impl, const rk_drill_query *q, rk_row_fn fn, void *ctx, rk_error *err);
	/* optional: what the diagnosis asks of a source (reader.h) */
	int (*commit_times)(void *impl, const rk_key_query *q, rk_usec *commit, uint32_t *xid, bool *known,
	                    rk_error *err);
	int (*xact_rows)(void *impl, const rk_xact_query *q, uint64_t *rows, rk_error *err);
	int (*key_unique)(void *impl, const size_t *key_index, size_t nkey, bool *unique, rk_error *err);
	int (*open_xacts)(void *impl, rk_usec before, const int *skip_pids, size_t nskip, rk_open_xacts *out,
	                  rk_error *err);
	int (*backend_pid)(const void *impl);
	int (*lateness)(void *impl, const rk_lag_query *q, rk_lag_stats *all, rk_lag_stats *win, rk_error *err);
	/* optional: the display scale of bound column col (rk_reader_scale) */
	int (*scale)(const void *impl, size_t col);
	/* optional: key segments (rk_reader_keyspace, rk_reader_sample) */
	void (*keyspace)(void *impl, size_t col, const rk_keyspace *ks);
	int (*sample)(void *impl, size_t col, uint64_t every, uint64_t min_rows, uint64_t *rows, rk_row_fn fn,
	              void *ctx, rk_error *err);
	/* optional: the files and bytes the scans have read so far (rk_reader_io) */
	void (*io)(const void *impl, uint64_t *files, uint64_t *bytes);
	/* optional (RK_CAP_LIBPQ): the user's watermark query (rk_reader_watermark),
	 * before the side's reader opens: it takes the options, not a reader */
	int (*watermark)(const rk_reader_opts *o, const char *query, rk_usec *at, rk_error *err);
	/* optional (RK_CAP_HISTORY): the commits that wrote ranges (rk_reader_history) */
	int (*history)(void *impl, size_t time_index, const rk_range *ranges, size_t nranges, rk_history **out,
	               rk_error *err);
	/* optional: a new snapshot for the next scans (rk_reader_renew); none:
	 * the data a reader reads does not change under it */
	int (*renew)(void *impl, rk_error *err);
} rk_reader_ops;

/*
 * A kind of source: the conns it takes (those starting with prefix; the
 * driver with the empty prefix, PostgreSQL's, takes the rest), what its
 * data is called in messages, what it can do (RK_CAP_*), how it opens
 * (open gets the conn after the prefix and returns a new implementation
 * object or NULL with err filled) and its operations.
 */
typedef void *(*rk_reader_open_fn)(const rk_reader_opts *o, const char *rest, rk_error *err);
typedef struct rk_reader_driver {
	const char *prefix; /* "csv:" */
	const char *noun;   /* "CSV data" */
	unsigned caps;
	rk_reader_open_fn open;
	const rk_reader_ops *ops;
} rk_reader_driver;

/* A driver's own copy of the side's mapping expressions (rk_reader_opts
 * expr_names / expr_sql, RK_CAP_EXPRESSIONS), kept after open. */
typedef struct rk_reader_exprs {
	char **names; /* the logical columns computed by an expression, as written */
	char **sql;   /* ... and their SQL */
	size_t n;
} rk_reader_exprs;

void rk_reader_exprs_copy(rk_reader_exprs *x, const rk_reader_opts *o);
void rk_reader_exprs_free(rk_reader_exprs *x);

/* The built-in drivers, each defined in its own file and listed once in
 * reader.c (rk_reader_drivers). */
extern const rk_reader_driver rk_csvreader_driver;
extern const rk_reader_driver rk_deltareader_driver;
extern const rk_reader_driver rk_pgreader_driver;

/*
 * A reader of driver d over implementation impl, owned by the caller
 * (rk_reader_free calls d->ops->free(impl)): how rk_reader_open makes
 * readers, and how a test puts a reader of its own behind the API.
 */
rk_reader *rk_reader_new(const rk_reader_driver *d, void *impl);

/*
 * A driver besides the built-in ones that reads conn, tried before them, or
 * NULL.  The product's (src/io/reader_extra.c) never has one; the test
 * build links tests/hooks/reader_extra.c in its place, whose
 * rk_reader_register (tests/hooks/hooks.h) puts a test's own readers behind
 * rk_check_run.
 */
const rk_reader_driver *rk_reader_extra_for(const char *conn);

/* Each returns a new implementation object or NULL with err filled. */
void *rk_pgreader_open(const rk_reader_opts *o, rk_error *err);
void *rk_csvreader_open(const rk_reader_opts *o, const char *path, rk_error *err);

extern const rk_reader_ops rk_pgreader_ops;
extern const rk_reader_ops rk_csvreader_ops;

#endif
