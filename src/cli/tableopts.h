/*
 * tableopts.h - the table options every table-pair command shares
 * (product.md 2.1): which relation on which side, and the CSV dialect.
 */
#ifndef RK_TABLEOPTS_H
#define RK_TABLEOPTS_H

#include "cli/options.h"
#include "core/error.h"
#include "io/reader.h"

/*
 * Fills the reader options of both sides from the parsed options: --source
 * and --target (required), --table or the per-side --source-table /
 * --target-table (required for a PostgreSQL side), --csv-delimiter and
 * --csv-null.  The strings stay owned by o.  Returns 0, or -1 with a usage
 * error naming the option.
 */
int rk_tableopts_sides(const rk_opts *o, rk_reader_opts *src, rk_reader_opts *tgt, rk_error *err);

/*
 * The columns hashed per row: --columns when given, else the key columns,
 * then the time column, then the sum columns, each once.  *cols receives
 * an array the caller frees (free(cols->items)); its strings are borrowed
 * from o.
 */
void rk_tableopts_hashed(const rk_opts *o, rk_list *cols);

#endif
