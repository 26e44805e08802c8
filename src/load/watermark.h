/*
 * watermark.h - the watermark table of `reckon load`: one row per load
 * name holding the newest source time the load claims to have written.
 * It starts at -infinity and only ever moves forward (greatest()).
 *
 * The functions take the statement buffer and the template variables of
 * the caller (sqltpl.h), which must define :"watermark_table".  Each call
 * is its own statement: inside the caller's transaction when one is open,
 * else autocommitted.
 */
#ifndef RK_LOAD_WATERMARK_H
#define RK_LOAD_WATERMARK_H

#include "core/buf.h"
#include "core/error.h"
#include "core/timeutil.h"
#include "io/pg.h"
#include "io/sqltpl.h"

/* Creates the table when missing and the load's row (at -infinity). */
int rk_load_watermark_prepare(rk_pg *pg, rk_buf *sql, const rk_sqlvar *vars, size_t nvars, const char *load_name,
                              rk_error *err);

/* Reads the load's watermark into *out. */
int rk_load_watermark_get(rk_pg *pg, rk_buf *sql, const rk_sqlvar *vars, size_t nvars, const char *load_name,
                          rk_usec *out, rk_error *err);

/*
 * Sets the watermark to greatest(stored, newest) and returns the stored
 * value in *out.  newest = RK_USEC_NINF (nothing read) leaves it unchanged.
 */
int rk_load_watermark_advance(rk_pg *pg, rk_buf *sql, const rk_sqlvar *vars, size_t nvars, const char *load_name,
                              rk_usec newest, rk_usec *out, rk_error *err);

#endif
