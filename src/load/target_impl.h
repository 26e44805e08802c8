/*
 * target_impl.h - what a destination driver of target.h implements
 * (target_pg.c, target_delta.c).  Not for other modules.
 */
#ifndef RK_LOAD_TARGET_IMPL_H
#define RK_LOAD_TARGET_IMPL_H

#include "load/target.h"

typedef struct rk_target_ops {
	const char *kind;
	unsigned caps;
	bool (*accepts)(const char *conn);
	int (*open)(rk_target *t, const char *conn, const char *table, const rk_dest *src, const char *zone,
	            rk_error *err);
	int (*newest)(rk_target *t, const rk_target_write_in *in, size_t time_col, rk_usec lookback, rk_usec *out,
	              const char **how, rk_error *err);
	int (*write)(rk_target *t, const rk_target_write_in *in, long *deleted, long *written, rk_error *err);
	int (*commit)(rk_target *t, const rk_target_write_in *in, long long *version, rk_error *err);
	/* optional (RK_TARGET_ROW_REPLACE): */
	int (*plan)(rk_target *t, const rk_target_write_in *in, rk_target_plan *out, rk_error *err);
	long long (*version)(const rk_target *t);
	void (*close)(rk_target *t);
} rk_target_ops;

struct rk_target {
	const rk_target_ops *ops;
	rk_dest dest;  /* the columns */
	rk_pg *pg;     /* PostgreSQL only */
	char *display; /* the table or the path */
	void *impl;    /* the driver's own state */
};

extern const rk_target_ops rk_target_pg_ops;
extern const rk_target_ops rk_target_delta_ops;

#endif
