/*
 * target.c - the destination of a load, dispatched to its driver (see
 * target.h): the list of drivers, first match wins; PostgreSQL last, as it
 * takes any connection string.
 */
#include "load/target_impl.h"

#include <stdlib.h>
#include <string.h>

static const rk_target_ops *const drivers[] = {
	&rk_target_delta_ops,
	&rk_target_pg_ops,
};

bool rk_target_is_delta(const char *conn)
{
	return rk_target_delta_ops.accepts(conn);
}

int rk_target_open(const char *conn, const char *table, const rk_dest *src_dest, const char *partition_zone,
                   rk_target **out, rk_error *err)
{
	rk_target *t = rk_xcalloc(1, sizeof *t);

	*out = t;
	for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
		if (drivers[i]->accepts(conn)) {
			t->ops = drivers[i];
			break;
		}
	}
	return t->ops->open(t, conn, table, src_dest, partition_zone, err);
}

void rk_target_close(rk_target *t)
{
	if (!t)
		return;
	if (t->ops)
		t->ops->close(t);
	rk_dest_free(&t->dest);
	free(t->display);
	free(t);
}

const char *rk_target_kind(const rk_target *t)
{
	return t->ops->kind;
}

unsigned rk_target_caps(const rk_target *t)
{
	return t->ops->caps;
}

const rk_dest *rk_target_dest(const rk_target *t)
{
	return &t->dest;
}

rk_pg *rk_target_pg(rk_target *t)
{
	return t->pg;
}

const char *rk_target_display(const rk_target *t)
{
	return t->display ? t->display : "";
}

int rk_target_newest(rk_target *t, const rk_target_write_in *in, size_t time_col, rk_usec lookback, rk_usec *out,
                     const char **how, rk_error *err)
{
	return t->ops->newest(t, in, time_col, lookback, out, how, err);
}

int rk_target_write(rk_target *t, const rk_target_write_in *in, long *deleted, long *written, rk_error *err)
{
	*deleted = *written = 0;
	if (in->mode == RK_TARGET_REPLACE_ROWS && !(t->ops->caps & RK_TARGET_ROW_REPLACE))
		return rk_error_set(err, RK_EXIT_USAGE, "a %s target cannot replace rows by key this way", t->ops->kind);
	return t->ops->write(t, in, deleted, written, err);
}

int rk_target_plan_write(rk_target *t, const rk_target_write_in *in, rk_target_plan *out, rk_error *err)
{
	memset(out, 0, sizeof *out);
	out->version = -1;
	if (!t->ops->plan)
		return rk_error_set(err, RK_EXIT_USAGE, "a %s target cannot plan a write", t->ops->kind);
	return t->ops->plan(t, in, out, err);
}

void rk_target_plan_free(rk_target_plan *p)
{
	for (size_t i = 0; p && i < p->nfiles; i++)
		free(p->files[i].path);
	if (p)
		free(p->files);
}

long long rk_target_version(const rk_target *t)
{
	return t->ops->version ? t->ops->version(t) : -1;
}

int rk_target_commit(rk_target *t, const rk_target_write_in *in, long long *version, rk_error *err)
{
	*version = -1;
	return t->ops->commit(t, in, version, err);
}
