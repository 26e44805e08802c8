#include "cli/tableopts.h"

#include <string.h>

#include "core/buf.h"

int rk_tableopts_sides(const rk_opts *o, rk_reader_opts *src, rk_reader_opts *tgt, rk_error *err)
{
	if (rk_opts_require(o->source, "source", err) < 0 || rk_opts_require(o->target, "target", err) < 0)
		return -1;
	src->side = "source";
	tgt->side = "target";
	src->conn = o->source;
	tgt->conn = o->target;
	src->table = o->source_table ? o->source_table : o->table;
	tgt->table = o->target_table ? o->target_table : o->table;
	for (int s = 0; s < 2; s++) {
		rk_reader_opts *r = s ? tgt : src;
		if (!rk_reader_conn_is_csv(r->conn) && !r->table) {
			rk_error_set(err, RK_EXIT_USAGE, "missing required option --table (or --%s-table)", r->side);
			return rk_error_hint(err, "name the relation, e.g. --table mart.orders");
		}
		r->csv_delim = ',';
		if (o->csv_delimiter) {
			if (strlen(o->csv_delimiter) != 1 || o->csv_delimiter[0] == '"' || o->csv_delimiter[0] == '\n') {
				rk_error_set(err, RK_EXIT_USAGE, "option --csv-delimiter must be one character other than a "
				                                 "quote or newline, not '%s'", o->csv_delimiter);
				return rk_error_hint(err, "e.g. --csv-delimiter ';'");
			}
			r->csv_delim = o->csv_delimiter[0];
		}
		r->csv_null = o->csv_null;
	}
	return 0;
}

static void rk_tableopts_push(rk_list *l, const char *item)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i], item))
			return;
	l->items = rk_xrealloc(l->items, (l->n + 1) * sizeof *l->items);
	l->items[l->n++] = (char *)item;   /* borrowed from the options */
}

void rk_tableopts_hashed(const rk_opts *o, rk_list *cols)
{
	cols->items = NULL;
	cols->n = 0;
	if (o->columns.n) {
		/* as given: the checker judges a repeated column itself */
		cols->items = rk_xcalloc(o->columns.n, sizeof *cols->items);
		for (size_t i = 0; i < o->columns.n; i++)
			cols->items[i] = o->columns.items[i];
		cols->n = o->columns.n;
		return;
	}
	for (size_t i = 0; i < o->key.n; i++)
		rk_tableopts_push(cols, o->key.items[i]);
	if (o->time)
		rk_tableopts_push(cols, o->time);
	for (size_t i = 0; i < o->sum.n; i++)
		rk_tableopts_push(cols, o->sum.items[i]);
}
