/*
 * deltawriter_impl.h - what the Delta writer's files share: deltawriter.c
 * (which tables it may write, their columns, a new table, deletes and the
 * commit protocol) and deltawriter_data.c (the data files and their
 * statistics).  Not for other modules: they use deltawriter.h.
 */
#ifndef RK_IO_DELTAWRITER_IMPL_H
#define RK_IO_DELTAWRITER_IMPL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "io/delta_impl.h"
#include "io/deltawriter.h"
#include "io/duck.h"

/* One column of the table being written. */
typedef struct dw_col {
	char *name;      /* logical = physical (no column mapping) */
	char *duck_type; /* DuckDB type rows are cast to */
	char *delta_type;
	rk_delta_kind kind;
	bool partition;
} dw_col;

/* One data file written by this transaction. */
typedef struct dw_file {
	char *abs_path;
	json_t *add; /* the add action's body */
} dw_file;

struct rk_dw {
	rk_duck *duck;
	char *root;     /* absolute, no trailing '/' */
	char *display;  /* the root as given, for messages */
	rk_delta *snap; /* NULL: a new table */
	int max_retries;
	/* the table's columns (from the snapshot or rk_dw_create) */
	dw_col *cols;
	size_t ncols;
	bool creating;    /* rk_dw_create called: protocol and metaData to write */
	json_t *protocol; /* when creating */
	json_t *metadata; /* when creating */
	bool append_only; /* delta.appendOnly=true */
	bool has_float;   /* a float/double column: no dictionary pages (duckdb -0.0) */
	/* the transaction */
	json_t *removes; /* array of remove action bodies */
	dw_file *added;
	size_t nadded;
	int64_t rows_added;
	char **read; /* URI-decoded paths of the files read */
	size_t nread;
	bool read_all;
	bool done;
};

/* A random (version 4) UUID, as text. */
int rk_dw_uuid4(char out[37], rk_error *err);

/* Runs sql on the writer's DuckDB connection (rk_duck_query). */
int rk_dw_query(rk_dw *w, const char *sql, duckdb_result *res, int code, const char *what, rk_error *err);

/* Writes the rows of relation from (its columns already the table's) as
 * new data files, their add actions part of the transaction; *rows is
 * how many (deltawriter_data.c).  Returns 0 or -1. */
int rk_dw_write_rows(rk_dw *w, const char *from, int64_t *rows, rk_error *err);

#endif
