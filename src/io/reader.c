#include "io/reader.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "io/reader_impl.h"

struct rk_reader {
	rk_reader_kind kind;
	const rk_reader_ops *ops;
	void *impl;
};

/* Readers of tests' own kinds (rk_reader_register). */
static struct rk_reader_registered {
	const char *prefix;
	rk_reader_kind kind;
	const rk_reader_ops *ops;
	rk_reader_open_fn open;
} rk_reader_registered[RK_READER_MAX_REGISTERED];
static size_t rk_reader_nregistered;

int rk_reader_register(const char *prefix, rk_reader_kind kind, const rk_reader_ops *ops, rk_reader_open_fn open)
{
	if (rk_reader_nregistered == RK_READER_MAX_REGISTERED)
		return -1;
	rk_reader_registered[rk_reader_nregistered].prefix = prefix;
	rk_reader_registered[rk_reader_nregistered].kind = kind;
	rk_reader_registered[rk_reader_nregistered].ops = ops;
	rk_reader_registered[rk_reader_nregistered].open = open;
	rk_reader_nregistered++;
	return 0;
}

rk_reader *rk_reader_new(rk_reader_kind kind, const rk_reader_ops *ops, void *impl)
{
	rk_reader *r = rk_xcalloc(1, sizeof *r);

	r->kind = kind;
	r->ops = ops;
	r->impl = impl;
	return r;
}

bool rk_reader_conn_is_csv(const char *conn)
{
	return conn && strncmp(conn, RK_READER_CSV_PREFIX, sizeof RK_READER_CSV_PREFIX - 1) == 0;
}

const char *rk_reader_csv_path(const char *conn)
{
	return rk_reader_conn_is_csv(conn) ? conn + sizeof RK_READER_CSV_PREFIX - 1 : NULL;
}

rk_reader *rk_reader_open(const rk_reader_opts *o, rk_error *err)
{
	void *impl;
	const char *path = rk_reader_csv_path(o->conn);
	bool csv = path != NULL;

	for (size_t i = 0; o->conn && i < rk_reader_nregistered; i++) {
		const struct rk_reader_registered *g = &rk_reader_registered[i];
		size_t n = strlen(g->prefix);

		if (strncmp(o->conn, g->prefix, n) == 0) {
			impl = g->open(o, o->conn + n, err);
			return impl ? rk_reader_new(g->kind, g->ops, impl) : NULL;
		}
	}

	if (csv && !*path) {
		rk_error_set(err, RK_EXIT_USAGE, "--%s csv: needs a path", o->side);
		rk_error_hint(err, "write csv:FILE.csv or csv:DIRECTORY");
		return NULL;
	}
	impl = csv ? rk_csvreader_open(o, path, err) : rk_pgreader_open(o, err);
	if (!impl)
		return NULL;
	return rk_reader_new(csv ? RK_READER_CSV : RK_READER_PG, csv ? &rk_csvreader_ops : &rk_pgreader_ops, impl);
}

rk_reader_kind rk_reader_kind_of(const rk_reader *r)
{
	return r->kind;
}

const char *rk_reader_describe(const rk_reader *r)
{
	return r->ops->describe(r->impl);
}

int rk_reader_bind(rk_reader *r, const char *const *columns, size_t ncolumns, rk_type *types, rk_error *err)
{
	return r->ops->bind(r->impl, columns, ncolumns, types, err);
}

int rk_reader_scale(const rk_reader *r, size_t col)
{
	return r->ops->scale ? r->ops->scale(r->impl, col) : -1;
}

int rk_reader_scan(rk_reader *r, const rk_scan *scan, rk_row_fn fn, void *ctx, rk_error *err)
{
	return r->ops->scan(r->impl, scan, fn, ctx, err);
}

int rk_reader_columns(rk_reader *r, char ***names, size_t *n, rk_error *err)
{
	if (!r->ops->columns)
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s cannot list its columns", r->ops->describe(r->impl));
	return r->ops->columns(r->impl, names, n, err);
}

int rk_reader_primary_key(rk_reader *r, char ***names, size_t *n, rk_error *err)
{
	*names = NULL;
	*n = 0;
	if (!r->ops->primary_key)
		return 0;
	return r->ops->primary_key(r->impl, names, n, err);
}

const char *rk_reader_snapshot(const rk_reader *r)
{
	return r->ops->snapshot ? r->ops->snapshot(r->impl) : NULL;
}

int rk_reader_digest(rk_reader *r, rk_digest_query *q, rk_row_fn fn, void *ctx, rk_error *err)
{
	if (!r->ops->digest) {
		rk_error_set(err, RK_EXIT_USAGE, "%s: window digests of CSV data are computed by reckon, not pushed down",
		             r->ops->describe(r->impl));
		return 1;
	}
	return r->ops->digest(r->impl, q, fn, ctx, err);
}

/* An operation a reader does not have: 1, with why (reader.h). */
static int rk_reader_cannot(const rk_reader *r, const char *what, rk_error *err)
{
	rk_error_set(err, RK_EXIT_USAGE, "%s: %s", r->ops->describe(r->impl), what);
	return 1;
}

int rk_reader_commit_times(rk_reader *r, const rk_key_query *q, rk_usec *commit, bool *known, rk_error *err)
{
	if (!r->ops->commit_times)
		return rk_reader_cannot(r, "CSV data keeps no commit times", err);
	return r->ops->commit_times(r->impl, q, commit, known, err);
}

int rk_reader_key_unique(rk_reader *r, const size_t *key_index, size_t nkey, bool *unique, rk_error *err)
{
	if (!r->ops->key_unique)
		return rk_reader_cannot(r, "CSV data has no unique index", err);
	return r->ops->key_unique(r->impl, key_index, nkey, unique, err);
}

int rk_reader_open_xacts(rk_reader *r, rk_usec before, const int *skip_pids, size_t nskip, rk_open_xacts *out,
                         rk_error *err)
{
	if (!r->ops->open_xacts)
		return rk_reader_cannot(r, "CSV data has no sessions", err);
	return r->ops->open_xacts(r->impl, before, skip_pids, nskip, out, err);
}

int rk_reader_backend_pid(const rk_reader *r)
{
	return r->ops->backend_pid ? r->ops->backend_pid(r->impl) : 0;
}

int rk_reader_lateness(rk_reader *r, const rk_lag_query *q, rk_lag_stats *all, rk_lag_stats *win, rk_error *err)
{
	if (!r->ops->lateness)
		return rk_reader_cannot(r, "CSV data keeps no commit times", err);
	return r->ops->lateness(r->impl, q, all, win, err);
}

int rk_reader_drill_digest(rk_reader *r, const rk_drill_query *q, rk_row_fn fn, void *ctx, rk_error *err)
{
	if (!r->ops->drill_digest) {
		rk_error_set(err, RK_EXIT_USAGE, "%s: CSV data is narrowed down by reckon, not in a database",
		             r->ops->describe(r->impl));
		return 1;
	}
	return r->ops->drill_digest(r->impl, q, fn, ctx, err);
}

void rk_reader_free(rk_reader *r)
{
	if (!r)
		return;
	r->ops->free(r->impl);
	free(r);
}
