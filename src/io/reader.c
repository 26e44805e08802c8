#include "io/reader.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "io/reader_impl.h"

struct rk_reader {
	const rk_reader_driver *driver;
	const rk_reader_ops *ops;
	void *impl;
	/* the last key_unique answer and the key it was for: the drilldown
	 * and the diagnosis both ask, of the same key */
	size_t *unique_key;
	size_t unique_nkey;
	bool unique;
};

/* Every kind of source, tried in this order; PostgreSQL's empty prefix
 * takes whatever no other driver claims, so it stays last. */
static const rk_reader_driver *const rk_reader_drivers[] = {
	&rk_csvreader_driver,
	&rk_deltareader_driver,
	&rk_pgreader_driver,
};

static bool rk_driver_takes(const rk_reader_driver *d, const char *conn)
{
	return !strncmp(conn ? conn : "", d->prefix, strlen(d->prefix));
}

/* The driver that reads conn. */
static const rk_reader_driver *rk_driver_for(const char *conn)
{
	const rk_reader_driver *extra = rk_reader_extra_for(conn);

	if (extra)
		return extra;
	for (size_t i = 0; i < sizeof rk_reader_drivers / sizeof *rk_reader_drivers; i++)
		if (rk_driver_takes(rk_reader_drivers[i], conn))
			return rk_reader_drivers[i];
	return &rk_pgreader_driver;
}

bool rk_conn_has(const char *conn, unsigned caps)
{
	return (rk_driver_for(conn)->caps & caps) == caps;
}

const char *rk_conn_noun(const char *conn)
{
	return rk_driver_for(conn)->noun;
}

void rk_reader_exprs_copy(rk_reader_exprs *x, const rk_reader_opts *o)
{
	memset(x, 0, sizeof *x);
	if (!o->nexpr)
		return;
	x->names = rk_xcalloc(o->nexpr, sizeof *x->names);
	x->sql = rk_xcalloc(o->nexpr, sizeof *x->sql);
	for (size_t i = 0; i < o->nexpr; i++) {
		x->names[i] = rk_xstrdup(o->expr_names[i]);
		x->sql[i] = rk_xstrdup(o->expr_sql[i]);
	}
	x->n = o->nexpr;
}

void rk_reader_exprs_free(rk_reader_exprs *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->names[i]);
		free(x->sql[i]);
	}
	free(x->names);
	free(x->sql);
	memset(x, 0, sizeof *x);
}

const char *rk_reader_setting_of(const rk_reader_opts *o, const char *name)
{
	for (size_t i = 0; i < o->nsettings; i++)
		if (!strcmp(o->settings[i].name, name))
			return o->settings[i].value;
	return NULL;
}

int rk_reader_setting_add(rk_reader_opts *o, const char *name, const char *value)
{
	if (!value)
		return 0;
	if (o->nsettings == RK_READER_MAX_SETTINGS)
		return -1;
	o->settings[o->nsettings].name = name;
	o->settings[o->nsettings].value = value;
	o->nsettings++;
	return 0;
}

rk_reader *rk_reader_new(const rk_reader_driver *d, void *impl)
{
	rk_reader *r = rk_xcalloc(1, sizeof *r);

	r->driver = d;
	r->ops = d->ops;
	r->impl = impl;
	return r;
}

rk_reader *rk_reader_open(const rk_reader_opts *o, rk_error *err)
{
	const rk_reader_driver *d = rk_driver_for(o->conn);
	void *impl = d->open(o, o->conn ? o->conn + strlen(d->prefix) : NULL, err);

	return impl ? rk_reader_new(d, impl) : NULL;
}

bool rk_reader_has(const rk_reader *r, unsigned caps)
{
	return (r->driver->caps & caps) == caps;
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

bool rk_reader_io(const rk_reader *r, uint64_t *files, uint64_t *bytes)
{
	*files = *bytes = 0;
	if (!r->ops->io)
		return false;
	r->ops->io(r->impl, files, bytes);
	return true;
}

void rk_reader_keyspace(rk_reader *r, size_t col, const rk_keyspace *ks)
{
	if (r->ops->keyspace)
		r->ops->keyspace(r->impl, col, ks);
}

int rk_reader_sample(rk_reader *r, size_t col, uint64_t every, uint64_t min_rows, uint64_t *rows, rk_row_fn fn,
                     void *ctx, rk_error *err)
{
	*rows = 0;
	if (!r->ops->sample)
		return 1;
	return r->ops->sample(r->impl, col, every, min_rows, rows, fn, ctx, err);
}

int rk_reader_history(rk_reader *r, size_t time_index, const rk_range *ranges, size_t nranges, rk_history **out,
                      rk_error *err)
{
	*out = NULL;
	if (!r->ops->history) {
		rk_error_set(err, RK_EXIT_USAGE, "%s keeps no log of the commits that wrote it", rk_reader_describe(r));
		return 1;
	}
	return r->ops->history(r->impl, time_index, ranges, nranges, out, err);
}

void rk_history_free(rk_history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nranges; i++) {
		for (size_t k = 0; k < h->ranges[i].ntouch; k++)
			free(h->ranges[i].touch[k].operation);
		free(h->ranges[i].touch);
	}
	free(h->ranges);
	free(h);
}

int rk_reader_scan(rk_reader *r, const rk_scan *scan, rk_row_fn fn, void *ctx, rk_error *err)
{
	return r->ops->scan(r->impl, scan, fn, ctx, err);
}

int rk_reader_large_value(rk_reader *r, size_t col, const char *name, size_t len, rk_chunk_fn fn, void *ctx,
                          rk_error *err)
{
	uint64_t got = 0;

	if (!r->ops->large_value)
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s sends no value out of band", r->ops->describe(r->impl));
	if (r->ops->large_value(r->impl, col, fn, ctx, &got, err) < 0)
		return -1;
	if (got != len) {
		rk_error_set(err, RK_EXIT_RUNTIME, "column %s: a value of %zu bytes was read back as %llu", name, len,
		             (unsigned long long)got);
		return rk_error_hint(err, "the row changed under the read's snapshot, which should not happen: run it "
		                          "again; if it repeats, set RECKON_LARGE_VALUE past the value's size to read "
		                          "it in its row (reckon(1), ENVIRONMENT), and report it");
	}
	return 0;
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
		rk_error_set(err, RK_EXIT_USAGE, "%s: window digests of %s are computed by reckon, not pushed down",
		             r->ops->describe(r->impl), r->driver->noun);
		return 1;
	}
	return r->ops->digest(r->impl, q, fn, ctx, err);
}

/* An operation a reader does not have: 1, with why ("<its noun> what",
 * reader.h). */
static int rk_reader_cannot(const rk_reader *r, const char *what, rk_error *err)
{
	rk_error_set(err, RK_EXIT_USAGE, "%s: %s %s", r->ops->describe(r->impl), r->driver->noun, what);
	return 1;
}

int rk_reader_commit_times(rk_reader *r, const rk_key_query *q, rk_usec *commit, uint32_t *xid, bool *known,
                           rk_error *err)
{
	if (!r->ops->commit_times)
		return rk_reader_cannot(r, "keeps no commit times", err);
	return r->ops->commit_times(r->impl, q, commit, xid, known, err);
}

int rk_reader_xact_rows(rk_reader *r, const rk_xact_query *q, uint64_t *rows, rk_error *err)
{
	if (!r->ops->xact_rows)
		return rk_reader_cannot(r, "keeps no transaction ids", err);
	return r->ops->xact_rows(r->impl, q, rows, err);
}

int rk_reader_key_unique(rk_reader *r, const size_t *key_index, size_t nkey, bool *unique, rk_error *err)
{
	if (!r->ops->key_unique)
		return rk_reader_cannot(r, "has no unique index", err);
	if (r->unique_key && r->unique_nkey == nkey && !memcmp(r->unique_key, key_index, nkey * sizeof *key_index)) {
		*unique = r->unique;
		return 0;
	}
	int rc = r->ops->key_unique(r->impl, key_index, nkey, unique, err);

	if (rc != 0)
		return rc;
	free(r->unique_key);
	r->unique_key = rk_xcalloc(nkey ? nkey : 1, sizeof *key_index);
	if (nkey)
		memcpy(r->unique_key, key_index, nkey * sizeof *key_index);
	r->unique_nkey = nkey;
	r->unique = *unique;
	return 0;
}

int rk_reader_open_xacts(rk_reader *r, rk_usec before, const int *skip_pids, size_t nskip, rk_open_xacts *out,
                         rk_error *err)
{
	if (!r->ops->open_xacts)
		return rk_reader_cannot(r, "has no sessions", err);
	return r->ops->open_xacts(r->impl, before, skip_pids, nskip, out, err);
}

int rk_reader_backend_pid(const rk_reader *r)
{
	return r->ops->backend_pid ? r->ops->backend_pid(r->impl) : 0;
}

int rk_reader_lateness(rk_reader *r, const rk_lag_query *q, rk_lag_stats *all, rk_lag_stats *win, rk_error *err)
{
	if (!r->ops->lateness)
		return rk_reader_cannot(r, "keeps no commit times", err);
	return r->ops->lateness(r->impl, q, all, win, err);
}

int rk_reader_drill_digest(rk_reader *r, const rk_drill_query *q, rk_row_fn fn, void *ctx, rk_error *err)
{
	if (!r->ops->drill_digest) {
		rk_error_set(err, RK_EXIT_USAGE, "%s: %s is narrowed down by reckon, not in a database",
		             r->ops->describe(r->impl), r->driver->noun);
		return 1;
	}
	return r->ops->drill_digest(r->impl, q, fn, ctx, err);
}

int rk_reader_renew(rk_reader *r, rk_error *err)
{
	return r->ops->renew ? r->ops->renew(r->impl, err) : 0;
}

int rk_reader_watermark(const rk_reader_opts *o, const char *query, rk_usec *at, rk_error *err)
{
	const rk_reader_driver *d = rk_driver_for(o->conn);

	*at = RK_USEC_NINF;
	if (!d->ops->watermark) {
		rk_error_set(err, RK_EXIT_USAGE, "%s runs no SQL of reckon's", d->noun);
		return 1;
	}
	return d->ops->watermark(o, query, at, err);
}

void rk_reader_free(rk_reader *r)
{
	if (!r)
		return;
	r->ops->free(r->impl);
	free(r->unique_key);
	free(r);
}
