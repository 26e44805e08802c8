/*
 * pgreader.c - one side of a table pair read from PostgreSQL.
 *
 * A reader is one connection holding one REPEATABLE READ READ ONLY
 * transaction for its whole life, so every scan sees the same snapshot.  The
 * relation and its columns are resolved through the catalog with bound
 * parameters.  A digest pass streams COPY ... TO STDOUT (FORMAT binary) when
 * every column has a binary form reckon reads (io/copybin.h); other scans,
 * and every scan of such a relation, stream COPY text rows, split in place.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/digest.h"
#include "core/log.h"
#include "core/text.h"
#include "io/copybin.h"
#include "io/copytext.h"
#include "io/pg.h"
#include "io/pgident.h"
#include "io/reader_impl.h"
#include "io/sqltpl.h"
#include "rk_sql.h"

/* More ranges than this become one [min, max) range filtered by the caller:
 * a long OR list costs the planner more than it saves. */
#define RK_PGREADER_MAX_RANGES 64

/* Set to "text" in the environment, readers never stream binary COPY: a
 * diagnostic switch (docs/runbook.md); the digests are the same either way. */
#define RK_PGREADER_COPY_FORMAT_ENV "RECKON_COPY_FORMAT"

/* How many relation names a "does not exist" hint lists. */
#define RK_PGREADER_HINT_NAMES 10

typedef struct rk_pgreader {
	rk_pg *pg;
	char *side;      /* "source" / "target" */
	char *oid;       /* the relation's oid, as text for $1 */
	char relkind;    /* pg_class.relkind: 'r' table, 'p' partitioned, 'f' foreign, ... */
	char *display;   /* schema.name for messages */
	char *qualified; /* "schema"."name" for SQL (PQescapeIdentifier) */
	char *desc;      /* "source table mart.orders on host=... dbname=..." */
	char *snapshot;  /* exported snapshot id, when asked for */

	/* the side's mapping and filter (--source-expr, --source-where) */
	rk_reader_exprs expr; /* the side's mapping expressions */
	char *filter;         /* "(<where>\n)", or NULL */

	size_t ncols;    /* bound columns */
	char **cols;     /* their catalog names (an expression's: the logical name) */
	char **quoted;   /* ... as SQL: the quoted name, or "(<expression>\n)" */
	char **typnames; /* ... their declared types, to cast a bound value to (diagnosis) */
	rk_type *types;
	int *scales;      /* each column's declared scale (rk_type_scale), or -1 */
	rk_wire *wires;   /* each column's binary COPY form */
	bool binary_ok;   /* every column has one: digest passes stream binary */
	rk_copybin bin;   /* the binary scan in progress */
	rk_field *fields; /* one row's fields, reused for every row */
	rk_buf scratch;   /* unescaped field text, reused for every row */
	rk_buf sql;
	char label[160]; /* "scan of mart.orders" */

	bool broken; /* the transaction could not be recovered */

	/* pushdown digests (rk_pgreader_digest) */
	int digest_state;    /* 0 not probed yet, 1 the reckon extension is usable, -1 not */
	char *digest_schema; /* its schema, quoted for SQL */
	bool has_windows;    /* it has reckon_windows (extension 1.2) */
	bool has_key_hash;   /* it has reckon_key_hash (extension 1.3): the drilldown
	                      * narrows in the database */
	char **leaves;       /* a partitioned table with foreign leaves: every leaf, */
	size_t nleaves;      /* quoted for SQL, aggregated one by one (else none) */
	bool *leaf_foreign;  /* ... and which of them are foreign tables */
	rk_error digest_why; /* why not, when digest_state is -1 */

	/* key segments: scans of column ks_col take ranges of ks's points */
	const rk_keyspace *ks;
	size_t ks_col;

	/* the scan in progress */
	rk_row_fn fn;
	void *ctx;
	uint64_t rows;
} rk_pgreader;

static void rk_pgreader_free(void *impl);

static void rk_pgreader_err(rk_error *err)
{
	err->field = -1;
	err->sqlstate[0] = '\0';
}

static int rk_pgreader_sql_error(rk_pgreader *r, const char *what, const char *sql, rk_error *err)
{
	rk_error rerr;
	char cause[sizeof err->msg];

	snprintf(cause, sizeof cause, "%s", err->msg);
	rk_error_clear(&rerr);
	if (rk_pg_command(r->pg, "scan rollback", rk_sql_session_scan_rollback, &rerr) < 0)
		r->broken = true;
	if (rk_pg_error_is_connection(err))
		return -1;
	err->code = RK_EXIT_USAGE;
	rk_error_set(err, RK_EXIT_USAGE, "the %s %s '%.200s%s'%s does not work on %s: %s", r->side, what, sql,
	             strlen(sql) > 200 ? "..." : "", strcmp(what, "filter") ? "," : "", r->display ? r->display : "the table",
	             cause);
	return rk_error_hint(err, "it is SQL run on the %s's relation as written: test it with psql, SELECT %s FROM "
	                          "the table",
	                     r->side, strcmp(what, "filter") ? "(expression)" : "1 ... WHERE (filter)");
}

/* ------------------------------------------------------------------------
 * "does not exist" hints
 * ---------------------------------------------------------------------- */

typedef struct rk_pgreader_cand {
	const char *nsp;
	const char *rel;
	bool visible;
	size_t dist;
} rk_pgreader_cand;

static int rk_pgreader_cand_cmp(const void *pa, const void *pb)
{
	const rk_pgreader_cand *a = pa, *b = pb;
	int c;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	if (a->visible != b->visible)
		return a->visible ? -1 : 1;
	if ((c = strcmp(a->nsp, b->nsp)) != 0)
		return c;
	return strcmp(a->rel, b->rel);
}

/* Fills err's hint with the relations the user may have meant; best effort
 * (a failure here only loses the hint). */
static void rk_pgreader_hint_tables(rk_pg *pg, const char *schema, const char *relname, rk_error *err)
{
	const char *params[1] = { schema };
	rk_pg_result *res = NULL;
	rk_error lerr;
	rk_pgreader_cand *c;
	rk_buf b = RK_BUF_INIT;
	int n;

	rk_error_clear(&lerr);
	if (rk_pg_exec(pg, "list tables", rk_sql_catalog_list_tables, 1, params, RK_PG_ANY_ROWS, &res, &lerr) < 0) {
		rk_log_debug("no table hint: %s", lerr.msg);
		return;
	}
	n = rk_pg_result_rows(res);
	if (n == 0) {
		if (schema) {
			rk_buf_puts(&b, "schema ");
			rk_pgident_display(&b, schema);
			rk_buf_puts(&b, " holds no table or view (is the schema name right?)");
		} else {
			rk_buf_puts(&b, "the database holds no table or view outside the system schemas "
			                "(is it the right database?)");
		}
		rk_error_hint(err, "%s", rk_buf_cstr(&b));
		rk_buf_free(&b);
		rk_pg_result_free(res);
		return;
	}
	c = rk_xcalloc((size_t)n, sizeof *c);
	for (int i = 0; i < n; i++) {
		const char *vis = rk_pg_result_value(res, i, 2);

		c[i].nsp = rk_pg_result_value(res, i, 0);
		c[i].rel = rk_pg_result_value(res, i, 1);
		c[i].visible = vis && vis[0] == 't';
		c[i].dist = rk_edit_distance(relname, c[i].rel);
	}
	qsort(c, (size_t)n, sizeof *c, rk_pgreader_cand_cmp);
	if (n <= RK_PGREADER_HINT_NAMES)
		rk_buf_puts(&b, schema ? "relations in schema " : "relations that exist: ");
	else
		rk_buf_printf(&b, "closest of the %d relations %s", n, schema ? "in schema " : "that exist: ");
	if (schema) {
		rk_pgident_display(&b, schema);
		rk_buf_puts(&b, ": ");
	}
	for (int i = 0; i < n && i < RK_PGREADER_HINT_NAMES; i++) {
		if (i)
			rk_buf_puts(&b, ", ");
		if (!schema && !c[i].visible) {
			rk_pgident_display(&b, c[i].nsp);
			rk_buf_putc(&b, '.');
		}
		rk_pgident_display(&b, c[i].rel);
		if (!schema && !c[i].visible && c[i].dist == 0)
			rk_buf_puts(&b, " (not on the search_path: qualify the name)");
	}
	rk_error_hint(err, "%s", rk_buf_cstr(&b));
	rk_buf_free(&b);
	free(c);
	rk_pg_result_free(res);
}

/* ------------------------------------------------------------------------
 * open
 * ---------------------------------------------------------------------- */

static int rk_pgreader_resolve(rk_pgreader *r, const char *table, const char *schema, const char *relname,
                               rk_error *err)
{
	const char *params[2] = { schema, relname };
	rk_pg_result *res;
	char *qs, *qr;
	rk_buf b = RK_BUF_INIT;

	if (rk_pg_exec(r->pg, "resolve table", rk_sql_catalog_resolve_table, 2, params, RK_PG_ANY_ROWS, &res,
	               err) < 0)
		return -1;
	if (rk_pg_result_rows(res) != 1) {
		int n = rk_pg_result_rows(res);

		rk_pg_result_free(res);
		rk_pgreader_err(err);
		if (n > 1)
			return rk_error_set(err, RK_EXIT_RUNTIME, "%s table '%s' resolves to %d relations on %s", r->side,
			                    table, n, rk_pg_location(r->pg));
		rk_error_set(err, RK_EXIT_USAGE, "%s table '%s' does not exist on %s", r->side, table,
		             rk_pg_location(r->pg));
		rk_pgreader_hint_tables(r->pg, schema, relname, err);
		return -1;
	}
	r->oid = rk_xstrdup(rk_pg_result_value(res, 0, 0));
	r->relkind = rk_pg_result_value(res, 0, 3)[0];
	rk_pgident_display(&b, rk_pg_result_value(res, 0, 1));
	rk_buf_putc(&b, '.');
	rk_pgident_display(&b, rk_pg_result_value(res, 0, 2));
	r->display = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
	qs = rk_pg_quote_ident(r->pg, rk_pg_result_value(res, 0, 1), err);
	qr = qs ? rk_pg_quote_ident(r->pg, rk_pg_result_value(res, 0, 2), err) : NULL;
	rk_pg_result_free(res);
	if (!qr) {
		free(qs);
		return -1;
	}
	rk_buf_puts(&b, qs);
	rk_buf_putc(&b, '.');
	rk_buf_puts(&b, qr);
	r->qualified = rk_xstrdup(rk_buf_cstr(&b));
	rk_buf_free(&b);
	free(qs);
	free(qr);
	return 0;
}

/* Parallel readers of one side share the first reader's snapshot, so the
 * side stays one consistent picture however many sessions read it. */
static int rk_pgreader_export_snapshot(rk_pgreader *r, rk_error *err)
{
	rk_pg_result *res = NULL;
	const char *id;

	if (rk_pg_exec(r->pg, "export snapshot", rk_sql_session_export_snapshot, 0, NULL, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	id = rk_pg_result_value(res, 0, 0);
	r->snapshot = rk_xstrdup(id ? id : "");
	rk_pg_result_free(res);
	return 0;
}

static int rk_pgreader_import_snapshot(rk_pgreader *r, const char *id, rk_error *err)
{
	/* SET TRANSACTION SNAPSHOT is a utility statement: it takes no
	 * parameters, so the id is passed as an escaped literal */
	char *lit = rk_pg_quote_literal(r->pg, id, err);
	rk_buf sql = RK_BUF_INIT;
	int rc;

	if (!lit)
		return -1;
	rk_buf_printf(&sql, "SET TRANSACTION SNAPSHOT %s", lit);
	rc = rk_pg_command(r->pg, "import snapshot", rk_buf_cstr(&sql), err);
	free(lit);
	rk_buf_free(&sql);
	return rc;
}

/* A statement of the user's SQL failed: the transaction goes back to the
 * scan savepoint, and the error is the user's to fix. */
static int rk_pgreader_sql_error(rk_pgreader *r, const char *what, const char *sql, rk_error *err);

/*
 * Checks --source-where by running it on no rows (the extended protocol
 * takes one statement only, so SQL cannot close the condition and start
 * another), and keeps it for every statement of the reader.  A line break
 * follows it there, so that a "--" comment in it cannot swallow the rest.
 */
static int rk_pgreader_filter(rk_pgreader *r, const char *where, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc;

	rk_buf_printf(&b, "SELECT 1 FROM %s WHERE (%s\n) LIMIT 0", r->qualified, where);
	rc = rk_pg_exec(r->pg, "check the row filter", rk_buf_cstr(&b), 0, NULL, RK_PG_ANY_ROWS, NULL, err);
	rk_buf_free(&b);
	if (rc < 0)
		return rk_pgreader_sql_error(r, "filter", where, err);
	r->filter = rk_sql_filter(where);
	rk_log_debug("%s: rows filtered by %s", r->desc ? r->desc : r->side, where);
	return 0;
}

void *rk_pgreader_open(const rk_reader_opts *o, rk_error *err)
{
	const char *side = o->side ? o->side : "source";
	char *parts[2] = { NULL, NULL };
	size_t nparts;
	const char *why;
	rk_pgreader *r;
	rk_buf b = RK_BUF_INIT;
	int rc;

	if (!o->table || !*o->table) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_USAGE, "no %s table named", side);
		rk_error_hint(err, "give --table NAME (or --%s-table NAME)", side);
		return NULL;
	}
	/* a malformed name is refused before connecting */
	if (rk_pgident_parse(o->table, parts, 2, &nparts, &why) < 0) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_USAGE, "invalid %s table name '%s': %s", side, o->table, why);
		rk_error_hint(err, "write name, schema.name, or double-quote parts with capitals, blanks or dots: "
		                   "'\"My Schema\".\"Orders\"'");
		return NULL;
	}
	r = rk_xcalloc(1, sizeof *r);
	r->side = rk_xstrdup(side);
	rk_reader_exprs_copy(&r->expr, o);
	r->pg = rk_pg_connect(o->conn, side, err);
	if (!r->pg) {
		rc = -1;
		goto done;
	}
	rc = rk_pg_command(r->pg, "begin snapshot", rk_sql_session_begin_snapshot, err);
	if (rc == 0 && o->snapshot)
		rc = rk_pgreader_import_snapshot(r, o->snapshot, err);
	else if (rc == 0 && o->export_snapshot)
		rc = rk_pgreader_export_snapshot(r, err);
	if (rc == 0)
		rc = rk_pgreader_resolve(r, o->table, nparts == 2 ? parts[0] : NULL, parts[nparts - 1], err);
	if (rc == 0)
		rc = rk_pg_command(r->pg, "scan savepoint", rk_sql_session_scan_savepoint, err);
	if (rc == 0 && o->where)
		rc = rk_pgreader_filter(r, o->where, err);
	if (rc == 0) {
		rk_buf_printf(&b, "%s table %s on %s", side, r->display, rk_pg_location(r->pg));
		r->desc = rk_xstrdup(rk_buf_cstr(&b));
		snprintf(r->label, sizeof r->label, "scan of %s", r->display);
		rk_buf_free(&b);
		rk_log_info("%s: relation oid %s", r->desc, r->oid);
	}
done:
	free(parts[0]);
	free(parts[1]);
	if (rc < 0) {
		rk_pgreader_free(r);
		return NULL;
	}
	return r;
}

/* ------------------------------------------------------------------------
 * bind
 * ---------------------------------------------------------------------- */

static void rk_pgreader_unbind(rk_pgreader *r)
{
	for (size_t i = 0; i < r->ncols; i++) {
		free(r->cols[i]);
		free(r->quoted[i]);
		free(r->typnames[i]);
	}
	free(r->cols);
	free(r->quoted);
	free(r->typnames);
	free(r->types);
	free(r->scales);
	free(r->wires);
	free(r->fields);
	r->cols = r->quoted = r->typnames = NULL;
	r->types = NULL;
	r->scales = NULL;
	r->wires = NULL;
	r->binary_ok = false;
	r->fields = NULL;
	r->ncols = 0;
}

static rk_type rk_pgreader_map_type(const char *base)
{
	size_t n = strlen(base);
	rk_type t = RK_T_OTHER;

	/* an array's text output is not its element type's */
	if (n >= 2 && strcmp(base + n - 2, "[]") == 0)
		return RK_T_OTHER;
	if (rk_type_from_name(base, true, &t) < 0)
		return RK_T_OTHER;
	return t;
}

static int rk_pgreader_unknown_column(rk_pgreader *r, const char *requested, const char *name,
                                      const rk_pg_result *res, rk_error *err)
{
	int n = rk_pg_result_rows(res);
	rk_buf b = RK_BUF_INIT;
	const char *fold = NULL;

	rk_pgreader_err(err);
	rk_error_set(err, RK_EXIT_USAGE, "column '%s' does not exist in %s", requested, r->desc);
	for (int i = 0; i < n && !fold; i++)
		if (strcasecmp(rk_pg_result_value(res, i, 0), name) == 0)
			fold = rk_pg_result_value(res, i, 0);
	if (fold) {
		rk_buf_puts(&b, "names with capitals must be double-quoted: write ");
		rk_pgident_display(&b, fold);
		rk_buf_puts(&b, "; ");
	}
	rk_buf_printf(&b, "%s has %d column%s: ", r->display, n, n == 1 ? "" : "s");
	for (int i = 0; i < n; i++) {
		size_t mark = b.len;

		if (i)
			rk_buf_puts(&b, ", ");
		rk_pgident_display(&b, rk_pg_result_value(res, i, 0));
		rk_buf_putc(&b, ' ');
		rk_buf_puts(&b, rk_pg_result_value(res, i, 1));
		if (b.len > sizeof err->hint - 8) {
			b.len = mark;
			rk_buf_puts(&b, ", ...");
			break;
		}
	}
	rk_error_hint(err, "%s", rk_buf_cstr(&b));
	rk_buf_free(&b);
	return -1;
}

/* The mapping of a logical column (catalog spelling), or -1. */
static long rk_pgreader_expr_of(const rk_pgreader *r, const char *name)
{
	for (size_t k = 0; k < r->expr.n; k++) {
		char *en = NULL;
		size_t np;
		const char *why;
		bool same;

		if (rk_pgident_parse(r->expr.names[k], &en, 1, &np, &why) < 0)
			continue;
		same = strcmp(en, name) == 0;
		free(en);
		if (same)
			return (long)k;
	}
	return -1;
}

/*
 * Binds column i to the expression sql for logical column name: its type is
 * the one the server gives the statement's result (described on no rows),
 * a domain read as its base type, exactly as a column of that type.
 */
static int rk_pgreader_bind_expr(rk_pgreader *r, size_t i, const char *name, const char *sql, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	rk_pg_result *res = NULL, *tres = NULL;
	char oid[16], mod[16];
	const char *params[2] = { oid, mod };
	int rc;

	rk_buf_printf(&b, "SELECT (%s\n) FROM %s LIMIT 0", sql, r->qualified);
	rc = rk_pg_exec(r->pg, "describe an expression", rk_buf_cstr(&b), 0, NULL, RK_PG_ANY_ROWS, &res, err);
	if (rc < 0) {
		rk_buf_reset(&b);
		rk_buf_printf(&b, "expression for column %s,", name);
		rc = rk_pgreader_sql_error(r, rk_buf_cstr(&b), sql, err);
		rk_buf_free(&b);
		return rc;
	}
	snprintf(oid, sizeof oid, "%u", rk_pg_result_type(res, 0));
	snprintf(mod, sizeof mod, "%d", rk_pg_result_typmod(res, 0));
	rk_pg_result_free(res);
	if (rk_pg_exec(r->pg, "type of an expression", rk_sql_catalog_type, 2, params, RK_PG_ONE_ROW, &tres, err) < 0) {
		rk_buf_free(&b);
		return -1;
	}
	r->cols[i] = rk_xstrdup(name);
	r->typnames[i] = rk_xstrdup(rk_pg_result_value(tres, 0, 0));
	r->types[i] = rk_pgreader_map_type(rk_pg_result_value(tres, 0, 1));
	r->scales[i] = rk_type_scale(rk_pg_result_value(tres, 0, 1));
	r->wires[i] = rk_copybin_wire(strtoul(rk_pg_result_value(tres, 0, 2), NULL, 10), r->types[i]);
	if (r->wires[i] == RK_WIRE_NONE)
		r->binary_ok = false;
	rk_buf_reset(&b);
	rk_buf_printf(&b, "(%s\n)", sql);
	r->quoted[i] = rk_xstrdup(rk_buf_cstr(&b));
	rk_log_debug("%s: column %s is the expression %s, of type %s (%s%s)", r->desc, name, sql,
	             rk_pg_result_value(tres, 0, 0), rk_type_name(r->types[i]),
	             r->wires[i] == RK_WIRE_NONE ? ", no binary COPY form" : "");
	rk_pg_result_free(tres);
	rk_buf_free(&b);
	return 0;
}

static int rk_pgreader_bind(void *impl, const char *const *columns, size_t ncolumns, rk_type *types,
                            rk_error *err)
{
	rk_pgreader *r = impl;
	const char *params[1] = { r->oid };
	rk_pg_result *res;
	const char *binary_env;
	int n;

	rk_pgreader_unbind(r);
	if (ncolumns == 0) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_USAGE, "no columns to read from %s", r->desc);
	}
	if (rk_pg_exec(r->pg, "list columns", rk_sql_catalog_columns, 1, params, RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	n = rk_pg_result_rows(res);
	r->cols = rk_xcalloc(ncolumns, sizeof *r->cols);
	r->quoted = rk_xcalloc(ncolumns, sizeof *r->quoted);
	r->typnames = rk_xcalloc(ncolumns, sizeof *r->typnames);
	r->types = rk_xcalloc(ncolumns, sizeof *r->types);
	r->scales = rk_xcalloc(ncolumns, sizeof *r->scales);
	r->wires = rk_xcalloc(ncolumns, sizeof *r->wires);
	r->fields = rk_xcalloc(ncolumns, sizeof *r->fields);
	r->ncols = ncolumns;
	r->binary_ok = true;
	for (size_t i = 0; i < ncolumns; i++) {
		char *name = NULL;
		size_t nparts;
		const char *why;
		int found = -1;

		if (rk_pgident_parse(columns[i], &name, 1, &nparts, &why) < 0) {
			rk_pgreader_err(err);
			rk_error_set(err, RK_EXIT_USAGE, "invalid column name '%s' for %s: %s", columns[i], r->desc, why);
			rk_error_hint(err, "double-quote names with capitals, blanks or dots: '\"Order Id\"'");
			goto fail;
		}
		{
			long e = rk_pgreader_expr_of(r, name);

			if (e >= 0) {
				int erc = rk_pgreader_bind_expr(r, i, name, r->expr.sql[e], err);

				free(name);
				if (erc < 0)
					goto fail;
				types[i] = r->types[i];
				continue;
			}
		}
		for (int j = 0; j < n && found < 0; j++)
			if (strcmp(rk_pg_result_value(res, j, 0), name) == 0)
				found = j;
		if (found < 0) {
			rk_pgreader_unknown_column(r, columns[i], name, res, err);
			free(name);
			goto fail;
		}
		free(name);
		r->cols[i] = rk_xstrdup(rk_pg_result_value(res, found, 0));
		r->typnames[i] = rk_xstrdup(rk_pg_result_value(res, found, 1));
		r->types[i] = rk_pgreader_map_type(rk_pg_result_value(res, found, 2));
		r->scales[i] = rk_type_scale(rk_pg_result_value(res, found, 2));
		r->quoted[i] = rk_pg_quote_ident(r->pg, r->cols[i], err);
		if (!r->quoted[i])
			goto fail;
		types[i] = r->types[i];
		r->wires[i] = rk_copybin_wire(strtoul(rk_pg_result_value(res, found, 3), NULL, 10), r->types[i]);
		if (r->wires[i] == RK_WIRE_NONE)
			r->binary_ok = false;
		rk_log_debug("%s: column %s is %s (%s%s)", r->desc, r->cols[i], rk_pg_result_value(res, found, 1),
		             rk_type_name(r->types[i]), r->wires[i] == RK_WIRE_NONE ? ", no binary COPY form" : "");
	}
	rk_pg_result_free(res);
	binary_env = getenv(RK_PGREADER_COPY_FORMAT_ENV);
	if (binary_env && strcmp(binary_env, "text") == 0)
		r->binary_ok = false;
	rk_log_debug("%s: digest passes stream COPY %s", r->desc, r->binary_ok ? "binary" : "text");
	return 0;
fail:
	rk_pg_result_free(res);
	rk_pgreader_unbind(r);
	return -1;
}

/* The first column of a catalog statement about the relation, one name a
 * row, as new strings. */
static int rk_pgreader_names(rk_pgreader *r, const char *label, const char *sql, char ***names, size_t *n,
                             rk_error *err)
{
	const char *params[1] = { r->oid };
	rk_pg_result *res;
	int rows;

	if (rk_pg_exec(r->pg, label, sql, 1, params, RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	rows = rk_pg_result_rows(res);
	*names = rk_xcalloc(rows ? (size_t)rows : 1, sizeof **names);
	for (int i = 0; i < rows; i++)
		(*names)[i] = rk_xstrdup(rk_pg_result_value(res, i, 0));
	*n = (size_t)rows;
	rk_pg_result_free(res);
	return 0;
}

static int rk_pgreader_columns(void *impl, char ***names, size_t *n, rk_error *err)
{
	return rk_pgreader_names(impl, "list columns", rk_sql_catalog_columns, names, n, err);
}

static int rk_pgreader_primary_key(void *impl, char ***names, size_t *n, rk_error *err)
{
	return rk_pgreader_names(impl, "primary key", rk_sql_catalog_primary_key, names, n, err);
}

/* ------------------------------------------------------------------------
 * scan
 * ---------------------------------------------------------------------- */

static int rk_pgreader_row(void *ctx, const char *row, size_t len, rk_error *err)
{
	rk_pgreader *r = ctx;
	const char *why;

	r->rows++;
	if (rk_copytext_split(row, len, r->fields, r->ncols, &r->scratch, &why) < 0) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: row %llu of the COPY output has %s", r->desc,
		                    (unsigned long long)r->rows, why);
	}
	if (r->fn(r->ctx, r->fields, err) < 0)
		return rk_error_prefix(err, "%s", r->desc);
	return 0;
}

/* Appends "<col> <op> '<instant>'::<cast>" to the statement. */
static int rk_pgreader_bound(rk_pgreader *r, const char *col, const char *op, rk_usec t, bool with_zone,
                             rk_error *err)
{
	char text[RK_TIME_STRLEN];
	char *lit = rk_pg_quote_literal(r->pg, rk_time_format_sql(t, with_zone, text), err);

	if (!lit)
		return -1;
	rk_buf_printf(&r->sql, "%s %s %s::%s", col, op, lit, with_zone ? "timestamptz" : "timestamp");
	free(lit);
	return 0;
}

/* Appends the condition "point of <col> <op> m" of key segments as one on
 * the key column itself (core/keyspace.h): integers by value, uuids as
 * uuids, texts as their UTF-8 bytes (as COLLATE "C" orders them, whatever
 * the column's collation). */
static int rk_pgreader_key_bound(rk_pgreader *r, const char *col, const char *op, rk_usec m, rk_error *err)
{
	rk_buf v = RK_BUF_INIT, hex = RK_BUF_INIT;
	rk_ks_bound b = rk_keyspace_bound(r->ks, m, &v);
	char *lit = NULL;

	if (b != RK_KSB_VALUE) {
		rk_buf_puts(&r->sql, (b == RK_KSB_ALL) == (op[0] == '>') ? "true" : "false");
		rk_buf_free(&v);
		return 0;
	}
	if (r->ks->kind == RK_KS_TEXT) {
		rk_buf_puts(&hex, "\\x");
		for (size_t i = 0; i < v.len; i++)
			rk_buf_printf(&hex, "%02x", (unsigned char)v.data[i]);
		lit = rk_pg_quote_literal(r->pg, rk_buf_cstr(&hex), err);
		if (lit)
			rk_buf_printf(&r->sql, "convert_to(%s, 'UTF8') %s %s::bytea", col, op, lit);
	} else {
		lit = rk_pg_quote_literal(r->pg, rk_buf_cstr(&v), err);
		if (lit)
			rk_buf_printf(&r->sql, "%s %s %s::%s", col, op, lit, r->ks->kind == RK_KS_UUID ? "uuid" : "bigint");
	}
	rk_buf_free(&v);
	rk_buf_free(&hex);
	if (!lit)
		return -1;
	free(lit);
	return 0;
}

/* Appends "(<key hash> & mask) = hval" for keybits kb (reckon extension 1.3). */
static void rk_pgreader_keybits(rk_pgreader *r, const rk_scan *scan, const rk_keybits *kb)
{
	uint64_t mask = kb->bits >= 64 ? UINT64_MAX : (UINT64_C(1) << kb->bits) - 1;

	rk_buf_printf(&r->sql, "(%s.reckon_key_hash(", r->digest_schema);
	for (size_t i = 0; i < scan->nkey; i++)
		rk_buf_printf(&r->sql, "%s%s", i ? ", " : "", r->quoted[scan->key_index[i]]);
	rk_buf_printf(&r->sql, ") & (%lld)::pg_catalog.int8) = (%lld)::pg_catalog.int8", (long long)(int64_t)mask,
	              (long long)(int64_t)kb->hval);
}

/* Whether s is valid UTF-8 (a key read from CSV data need not be, and the
 * database would refuse the statement). */
static bool rk_pgreader_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;

	while (p < e) {
		size_t k = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1
		                   : (*p & 0xF0) == 0xE0       ? 2
		                   : (*p & 0xF8) == 0xF0       ? 3
		                                               : 4;

		if (k == 4 || (k == 1 && *p < 0xC2) || (size_t)(e - p) <= k)
			return false;
		for (size_t i = 1; i <= k; i++)
			if ((p[i] & 0xC0) != 0x80)
				return false;
		p += k + 1;
	}
	return true;
}

/* The most keys a scan asks the database for by value (rk_scan.key_text):
 * past that the condition costs the planner more than it saves. */
#define RK_PGREADER_MAX_KEYS 256

/*
 * The literal text of key text v for column c, into out: a value the
 * column's input function reads back as the key's value, checked to be one
 * (a key from the other side may hold what this column cannot: then no
 * row here holds it, and false says to ask without keys).  Timestamps come
 * as findings show them (ISO-8601 in UTC) and go back as the bounds do.
 */
static bool rk_pgreader_key_literal(const rk_pgreader *r, size_t c, const char *v, rk_buf *out)
{
	size_t n = strlen(v);
	char tmp[RK_TIME_STRLEN], *end;
	const char *why;
	rk_wusec t;
	long long x;

	rk_buf_reset(out);
	switch (r->types[c]) {
	case RK_T_INT2:
	case RK_T_INT4:
	case RK_T_INT8:
		x = strtoll(v, &end, 10);
		if (!n || *end || (r->types[c] == RK_T_INT2 && (x < INT16_MIN || x > INT16_MAX)) ||
		    (r->types[c] == RK_T_INT4 && (x < INT32_MIN || x > INT32_MAX)))
			return false;
		break;
	case RK_T_NUMERIC:
		if (strcmp(v, "NaN") && strcmp(v, "Infinity") && strcmp(v, "-Infinity") &&
		    (!n || strspn(v, "-.0123456789") != n))
			return false;
		break;
	case RK_T_BOOL:
		if (strcmp(v, "t") && strcmp(v, "f"))
			return false;
		break;
	case RK_T_UUID:
		if (n != 36 || strspn(v, "0123456789abcdef-") != n)
			return false;
		break;
	case RK_T_DATE:
		if (strcmp(v, "infinity") && strcmp(v, "-infinity") && (n < 10 || strspn(v, "0123456789- BC") != n))
			return false;
		break;
	case RK_T_TIMESTAMP:
	case RK_T_TIMESTAMPTZ:
		if (rk_time_parse_wide(v, n, false, &t, &why) < 0)
			return false;
		v = rk_time_format_sql_wide(t, r->types[c] == RK_T_TIMESTAMPTZ, tmp);
		break;
	case RK_T_TEXT:
	case RK_T_BPCHAR:
		if (!rk_pgreader_utf8(v, n))
			return false;
		break;
	default:
		/* "=" of another type need not hold for equal text */
		return false;
	}
	rk_buf_puts(out, v);
	return true;
}

/*
 * Appends "(k1 = '...' AND k2 IS NULL) OR ..." selecting scan's keys, or
 * nothing (returns 0) when they cannot be asked for by value; 1 when
 * appended, -1 on error.
 */
static int rk_pgreader_keys(rk_pgreader *r, const rk_scan *scan, rk_buf *out, rk_error *err)
{
	rk_buf lit = RK_BUF_INIT;
	int rc = 1;

	if (!scan->key_text || !scan->nkeys || !scan->nkey || scan->nkeys > RK_PGREADER_MAX_KEYS)
		return 0;
	for (size_t k = 0; k < scan->nkeys && rc == 1; k++) {
		rk_buf_puts(out, k ? " OR (" : "(");
		for (size_t i = 0; i < scan->nkey && rc == 1; i++) {
			size_t c = scan->key_index[i];
			const char *v = scan->key_text[k * scan->nkey + i];
			char *q;

			if (i)
				rk_buf_puts(out, " AND ");
			if (!v) {
				rk_buf_printf(out, "(%s) IS NULL", r->quoted[c]);
				continue;
			}
			if (!rk_pgreader_key_literal(r, c, v, &lit)) {
				rc = 0;
				break;
			}
			q = rk_pg_quote_literal(r->pg, rk_buf_cstr(&lit), err);
			if (!q) {
				rc = -1;
				break;
			}
			rk_buf_printf(out, "(%s) = %s", r->quoted[c], q);
			free(q);
		}
		rk_buf_putc(out, ')');
	}
	rk_buf_free(&lit);
	if (rc <= 0)
		rk_buf_reset(out);
	return rc;
}

/*
 * Appends the WHERE clause selecting scan's rows to r->sql (nothing when the
 * time column has no time type and no key is asked for).  *empty is set,
 * and nothing appended, when no row can be wanted (no ranges, no NULL
 * times).  The bounds cannot be bound parameters (COPY takes none), so they
 * are formatted by reckon and escaped.  Ranges with key bits (the reckon
 * extension 1.3) are taken one by one; others merge where they touch.
 */
static int rk_pgreader_where(rk_pgreader *r, const rk_scan *scan, bool *empty, rk_error *err)
{
	rk_type tt = r->types[scan->time_index];
	const char *tcol = r->quoted[scan->time_index];
	bool with_zone = tt == RK_T_TIMESTAMPTZ;
	bool keyed = r->ks && scan->time_index == r->ks_col;
	bool filter = keyed || tt == RK_T_TIMESTAMPTZ || tt == RK_T_TIMESTAMP || tt == RK_T_DATE;
	bool bits = scan->keybits && r->has_key_hash && scan->nranges <= RK_PGREADER_MAX_RANGES;
	rk_range merged[RK_PGREADER_MAX_RANGES];
	const rk_keybits *kb[RK_PGREADER_MAX_RANGES];
	rk_range hull = { RK_USEC_PINF, RK_USEC_NINF };
	bool too_many = false;
	size_t nm = 0;
	rk_buf keys = RK_BUF_INIT;
	int nk;

	*empty = false;
	/* adjacent or overlapping ranges become one; too many become their hull
	 * (the caller filters what the hull lets through) */
	for (size_t i = 0; i < scan->nranges && filter; i++) {
		rk_range g = scan->ranges[i];

		if (g.from >= g.to)
			continue;
		if (g.from < hull.from)
			hull.from = g.from;
		if (g.to > hull.to)
			hull.to = g.to;
		if (too_many)
			continue;
		if (!bits && nm > 0 && g.from <= merged[nm - 1].to && g.to >= merged[nm - 1].from) {
			if (g.from < merged[nm - 1].from)
				merged[nm - 1].from = g.from;
			if (g.to > merged[nm - 1].to)
				merged[nm - 1].to = g.to;
		} else if (nm == RK_PGREADER_MAX_RANGES) {
			too_many = true;
		} else {
			kb[nm] = bits && scan->keybits[i].bits ? &scan->keybits[i] : NULL;
			merged[nm++] = g;
		}
	}
	if (too_many) {
		merged[0] = hull;
		kb[0] = NULL;
		nm = 1;
	}
	if (filter && nm == 0 && !scan->include_null_time) {
		*empty = true;
		return 0;
	}
	nk = rk_pgreader_keys(r, scan, &keys, err);
	if (nk < 0)
		goto fail;
	/* the side's row filter, the ranges, the keys: each one condition */
	if (r->filter || filter || nk)
		rk_buf_puts(&r->sql, " WHERE ");
	if (r->filter)
		rk_buf_printf(&r->sql, "%s%s", r->filter, filter || nk ? " AND " : "");
	if (filter) {
		rk_buf_putc(&r->sql, '(');
		for (size_t i = 0; i < nm; i++) {
			bool lo = merged[i].from != RK_USEC_NINF;
			bool hi = merged[i].to != RK_USEC_PINF;

			if (i)
				rk_buf_puts(&r->sql, " OR ");
			rk_buf_putc(&r->sql, '(');
			if (lo && (keyed ? rk_pgreader_key_bound(r, tcol, ">=", merged[i].from, err)
			                 : rk_pgreader_bound(r, tcol, ">=", merged[i].from, with_zone, err)) < 0)
				goto fail;
			if (lo && hi)
				rk_buf_puts(&r->sql, " AND ");
			if (hi && (keyed ? rk_pgreader_key_bound(r, tcol, "<", merged[i].to, err)
			                 : rk_pgreader_bound(r, tcol, "<", merged[i].to, with_zone, err)) < 0)
				goto fail;
			if (!lo && !hi)
				rk_buf_printf(&r->sql, "%s IS NOT NULL", tcol);
			if (kb[i]) {
				rk_buf_puts(&r->sql, " AND ");
				rk_pgreader_keybits(r, scan, kb[i]);
			}
			rk_buf_putc(&r->sql, ')');
		}
		if (scan->include_null_time)
			rk_buf_printf(&r->sql, "%s%s IS NULL", nm ? " OR " : "", tcol);
		rk_buf_puts(&r->sql, nk ? ") AND " : ")");
	}
	if (nk)
		rk_buf_printf(&r->sql, "(%s)", rk_buf_cstr(&keys));
	rk_buf_free(&keys);
	return 0;
fail:
	rk_buf_free(&keys);
	return -1;
}

/* Builds the COPY statement of a scan into r->sql, in binary or text
 * format; *empty as above. */
static int rk_pgreader_build(rk_pgreader *r, const rk_scan *scan, bool binary, bool *empty, rk_error *err)
{
	rk_buf_reset(&r->sql);
	rk_buf_puts(&r->sql, "COPY (SELECT ");
	for (size_t i = 0; i < r->ncols; i++) {
		if (i)
			rk_buf_puts(&r->sql, ", ");
		rk_buf_puts(&r->sql, r->quoted[i]);
	}
	rk_buf_puts(&r->sql, " FROM ");
	rk_buf_puts(&r->sql, r->qualified);
	if (rk_pgreader_where(r, scan, empty, err) < 0)
		return -1;
	rk_buf_puts(&r->sql, binary ? ") TO STDOUT (FORMAT binary)" : ") TO STDOUT");
	rk_buf_cstr(&r->sql);
	return 0;
}

static int rk_pgreader_bin_row(void *ctx, const rk_field *fields, rk_error *err)
{
	rk_pgreader *r = ctx;

	if (r->fn(r->ctx, fields, err) < 0)
		return rk_error_prefix(err, "%s", r->desc);
	return 0;
}

/* A binary COPY stream reckon cannot decode: a value without a canonical
 * form is the data's (usage, as the text path says it, rk_side_bad_value),
 * anything else the server's or reckon's. */
static int rk_pgreader_bin_error(rk_pgreader *r, const char *why, rk_error *err)
{
	size_t c = r->bin.bad_col;
	unsigned long long row = (unsigned long long)r->bin.rows + 1;

	rk_pgreader_err(err);
	if (c < r->ncols && r->bin.bad_value) {
		const rk_field *f = &r->bin.fields[c];
		int shown = f->len > 80 ? 80 : (int)f->len;

		if (f->len)
			rk_error_set(err, RK_EXIT_USAGE, "%s: value '%.*s%s' in column %s is not a valid %s: %s", r->desc,
			             shown, f->p, f->len > 80 ? "..." : "", r->cols[c], rk_type_name(r->types[c]), why);
		else
			rk_error_set(err, RK_EXIT_USAGE, "%s: row %llu: a value in column %s is not a valid %s: %s", r->desc,
			             row, r->cols[c], rk_type_name(r->types[c]), why);
		rk_error_hint(err, "fix the data");
		err->field = (int)c;
		return -1;
	}
	if (c < r->ncols)
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: row %llu of the binary COPY output, column %s: %s", r->desc, row,
		             r->cols[c], why);
	else
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: row %llu of the binary COPY output: %s", r->desc, row, why);
	return rk_error_hint(err, "run again with %s=text in the environment to read COPY text, and report this",
	                     RK_PGREADER_COPY_FORMAT_ENV);
}

static int rk_pgreader_chunk(void *ctx, const char *buf, size_t len, rk_error *err)
{
	rk_pgreader *r = ctx;
	const char *why = "";
	int rc = rk_copybin_feed(&r->bin, buf, len, rk_pgreader_bin_row, r, err, &why);

	if (rc == -1)
		return rk_pgreader_bin_error(r, why, err);
	return rc < 0 ? -1 : 0;
}

/* Streams the binary COPY in r->sql through r->bin. */
static int rk_pgreader_copy_binary(rk_pgreader *r, rk_error *err)
{
	const char *why = "";
	int rc;

	rk_copybin_init(&r->bin, r->wires, r->types, r->ncols);
	rc = rk_pg_copy_out_binary(r->pg, r->label, r->sql.data, rk_pgreader_chunk, r, err);
	if (rc == 0 && rk_copybin_finish(&r->bin, &why) < 0)
		rc = rk_pgreader_bin_error(r, why, err);
	r->rows = r->bin.rows;
	rk_copybin_free(&r->bin);
	return rc;
}

static int rk_pgreader_scan(void *impl, const rk_scan *scan, rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_pgreader *r = impl;
	bool empty, binary = scan->binary && r->binary_ok;
	rk_error rerr;
	int rc;

	if (r->ncols == 0 || scan->time_index >= r->ncols) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: scan before bind or time column out of range", r->desc);
	}
	if (r->broken) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: the reader's transaction was lost after an earlier failure",
		             r->desc);
		return rk_error_hint(err, "run again; the first error reported is the cause");
	}
	if (rk_pgreader_build(r, scan, binary, &empty, err) < 0)
		return -1;
	if (empty)
		return 0;
	r->fn = fn;
	r->ctx = ctx;
	r->rows = 0;
	rc = binary ? rk_pgreader_copy_binary(r, err) : rk_pg_copy_out(r->pg, r->label, r->sql.data, rk_pgreader_row, r, err);
	if (rc == 0) {
		rk_log_debug("%s: %llu rows", r->desc, (unsigned long long)r->rows);
		return 0;
	}
	if (strcmp(err->sqlstate, "42501") == 0) {
		/* the relation the user named cannot be read: configuration */
		err->code = RK_EXIT_USAGE;
		if (!err->hint[0])
			rk_error_hint(err, "the %s role needs USAGE on the schema and SELECT on %s", r->side, r->display);
	}
	/* the COPY failed or was cancelled: bring the transaction back to the
	 * savepoint so the snapshot stays usable for later scans */
	rk_error_clear(&rerr);
	if (rk_pg_command(r->pg, "scan rollback", rk_sql_session_scan_rollback, &rerr) < 0) {
		r->broken = true;
		rk_log_debug("%s: %s", r->desc, rerr.msg);
	}
	return -1;
}

/* ------------------------------------------------------------------------
 * key segments (docs/key-segments.md)
 * ---------------------------------------------------------------------- */

static void rk_pgreader_recover(rk_pgreader *r);

static void rk_pgreader_keyspace(void *impl, size_t col, const rk_keyspace *ks)
{
	rk_pgreader *r = impl;

	r->ks = ks;
	r->ks_col = col;
}

/* One sampled value: a COPY text row of one field. */
static int rk_pgreader_sample_row(void *ctx, const char *row, size_t len, rk_error *err)
{
	rk_pgreader *r = ctx;
	rk_field f;
	const char *why;

	memset(&f, 0, sizeof f);
	if (rk_copytext_split(row, len, &f, 1, &r->scratch, &why) < 0) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: a sampled row of the COPY output has %s", r->desc, why);
	}
	return r->fn(r->ctx, &f, err);
}

/* The side's row count: the planner's estimate of an analyzed table
 * without a filter, else counted. */
static int rk_pgreader_estimate(rk_pgreader *r, double *rows, double *pages, char *relkind, rk_error *err)
{
	const char *params[1] = { r->oid };
	rk_pg_result *res;
	const char *v;

	if (rk_pg_exec(r->pg, "row estimate", rk_sql_catalog_row_estimate, 1, params, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	*rows = strtod(rk_pg_result_value(res, 0, 0), NULL);
	*relkind = rk_pg_result_value(res, 0, 1)[0];
	*pages = strtod(rk_pg_result_value(res, 0, 2), NULL);
	rk_pg_result_free(res);
	if (*rows > 0 && !r->filter)
		return 0;
	rk_buf_reset(&r->sql);
	rk_buf_printf(&r->sql, "SELECT count(*) FROM %s", r->qualified);
	if (r->filter)
		rk_buf_printf(&r->sql, " WHERE %s", r->filter);
	if (rk_pg_exec(r->pg, "row count", rk_buf_cstr(&r->sql), 0, NULL, RK_PG_ONE_ROW, &res, err) < 0) {
		rk_pgreader_recover(r);
		return r->filter && !rk_pg_error_is_connection(err) ? rk_pgreader_sql_error(r, "filter", r->filter, err)
		                                                    : -1;
	}
	v = rk_pg_result_value(res, 0, 0);
	*rows = v ? strtod(v, NULL) : 0;
	rk_pg_result_free(res);
	return 0;
}

/* Pages drawn at random (TABLESAMPLE SYSTEM, the same pages every run of an
 * unchanged table): cheap, and enough for segment boundaries, which need
 * not be exact quantiles.  Rows of one page are alike (neighbours in
 * insertion order), so at least RK_PGREADER_SAMPLE_PAGES pages are drawn
 * whatever `every` asks. */
#define RK_PGREADER_SAMPLE_PAGES 500.0
static int rk_pgreader_sample(void *impl, size_t col, uint64_t every, uint64_t min_rows, uint64_t *rows,
                              rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_pgreader *r = impl;
	double est, pages, pct;
	char relkind;
	int rc;

	if (col >= r->ncols) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: sample before bind or column out of range", r->desc);
	}
	if (rk_pgreader_estimate(r, &est, &pages, &relkind, err) < 0)
		return -1;
	*rows = est > 0 ? (uint64_t)est : 0;
	if (relkind != 'r' && relkind != 'm' && relkind != 'p') {
		*rows = 0;
		return 1; /* views and foreign tables take no TABLESAMPLE */
	}
	if (*rows < min_rows || every == 0)
		return 0;
	pct = 100.0 / (double)every;
	if (pages > 0 && pct < 100.0 * RK_PGREADER_SAMPLE_PAGES / pages)
		pct = 100.0 * RK_PGREADER_SAMPLE_PAGES / pages;
	rk_buf_reset(&r->sql);
	rk_buf_printf(&r->sql, "COPY (SELECT %s FROM %s TABLESAMPLE SYSTEM (%.6f) REPEATABLE (0) WHERE %s IS NOT NULL",
	              r->quoted[col], r->qualified, pct < 100 ? pct : 100.0, r->quoted[col]);
	if (r->filter)
		rk_buf_printf(&r->sql, " AND %s", r->filter);
	rk_buf_puts(&r->sql, ") TO STDOUT");
	r->fn = fn;
	r->ctx = ctx;
	rc = rk_pg_copy_out(r->pg, "key sample", rk_buf_cstr(&r->sql), rk_pgreader_sample_row, r, err);
	if (rc < 0)
		rk_pgreader_recover(r);
	return rc;
}

/* ------------------------------------------------------------------------
 * pushdown digests (reckon check --pushdown, docs/pushdown.md)
 * ---------------------------------------------------------------------- */

/* The digest format of the reckon extension this client works with (its
 * reckon_pushdown_version(), src/ext/reckon.c). */
#define RK_PGREADER_PUSHDOWN_VERSION "2"

/* reckon_window takes the hashed and summed columns as arguments, and a
 * function takes at most 100 (FUNC_MAX_ARGS): its transition function's
 * state and roles are two. */
#define RK_PGREADER_PUSHDOWN_MAX_COLS 98

/* A failed statement aborted the transaction: back to the scan savepoint. */
static void rk_pgreader_recover(rk_pgreader *r)
{
	rk_error rerr;

	rk_error_clear(&rerr);
	if (rk_pg_command(r->pg, "scan rollback", rk_sql_session_scan_rollback, &rerr) < 0) {
		r->broken = true;
		rk_log_debug("%s: %s", r->desc, rerr.msg);
	}
}

/* After r->digest_why got its message: this database cannot compute
 * digests; returns 0. */
static int rk_pgreader_no_digest(rk_pgreader *r, const char *hint)
{
	rk_error_hint(&r->digest_why, "%s", hint);
	r->digest_state = -1;
	return 0;
}

/*
 * A partitioned table: when some of its leaf partitions are foreign tables
 * and this role may read every leaf, r->leaves lists them all, so that the
 * digest statement aggregates each leaf by name and postgres_fdw sends each
 * foreign leaf's aggregate to its server (PostgreSQL 15 pushes a grouped
 * aggregate down only for a foreign table on its own, not for a partition
 * reached through its parent).  Otherwise the parent is aggregated as one.
 * Returns 0, or -1 when the catalog could not be read.
 */
static int rk_pgreader_leaves(rk_pgreader *r, rk_error *err)
{
	const char *params[1] = { r->oid };
	rk_pg_result *res = NULL;
	size_t n, nforeign = 0, unreadable = 0;
	rk_buf b = RK_BUF_INIT;

	if (rk_pg_exec(r->pg, "list leaf partitions", rk_sql_pushdown_leaves, 1, params, RK_PG_ANY_ROWS, &res, err) < 0) {
		rk_pgreader_recover(r);
		return -1;
	}
	n = (size_t)rk_pg_result_rows(res);
	for (size_t i = 0; i < n; i++) {
		nforeign += rk_pg_result_value(res, (int)i, 2)[0] == 't';
		unreadable += rk_pg_result_value(res, (int)i, 3)[0] != 't';
	}
	if (nforeign == 0 || unreadable > 0) {
		if (nforeign > 0)
			rk_log_info("%s: %zu of %zu leaf partitions cannot be read by their own name: the window digests are "
			            "computed through the parent, and the foreign ones' rows travel to this server",
			            r->desc, unreadable, n);
		rk_pg_result_free(res);
		return 0;
	}
	r->leaves = rk_xcalloc(n, sizeof *r->leaves);
	r->leaf_foreign = rk_xcalloc(n, sizeof *r->leaf_foreign);
	for (size_t i = 0; i < n; i++) {
		char *qs = rk_pg_quote_ident(r->pg, rk_pg_result_value(res, (int)i, 0), err);
		char *qr = qs ? rk_pg_quote_ident(r->pg, rk_pg_result_value(res, (int)i, 1), err) : NULL;

		if (!qr) {
			free(qs);
			rk_pg_result_free(res);
			rk_buf_free(&b);
			return -1;
		}
		rk_buf_reset(&b);
		rk_buf_printf(&b, "%s.%s", qs, qr);
		r->leaf_foreign[r->nleaves] = rk_pg_result_value(res, (int)i, 2)[0] == 't';
		r->leaves[r->nleaves++] = rk_xstrdup(rk_buf_cstr(&b));
		free(qs);
		free(qr);
	}
	rk_pg_result_free(res);
	rk_buf_free(&b);
	rk_log_info("%s: partitioned, %zu of its %zu leaf partitions foreign: window digests computed per partition, "
	            "each foreign one on its server",
	            r->desc, nforeign, n);
	return 0;
}

/*
 * Finds the reckon extension (once per reader): 1 when its functions are
 * there in this client's format version, 0 when not (r->digest_why says
 * why), -1 when the catalog could not be read.
 */
static int rk_pgreader_probe(rk_pgreader *r, rk_error *err)
{
	static const char install[] = "install it on the database server (make ext-install, as root) and run "
	                              "CREATE EXTENSION reckon in the database; or use --pushdown=auto to stream "
	                              "the sides that do not have it (docs/pushdown.md)";
	rk_pg_result *res = NULL;
	rk_buf sql = RK_BUF_INIT;
	rk_error verr;
	const char *v;
	bool has_window;
	int rc;

	if (r->digest_state)
		return r->digest_state > 0;
	if (rk_pg_exec(r->pg, "find the reckon extension", rk_sql_pushdown_probe, 0, NULL, RK_PG_ANY_ROWS, &res,
	               err) < 0) {
		rk_pgreader_recover(r);
		return -1;
	}
	if (rk_pg_result_rows(res) == 0) {
		rk_pg_result_free(res);
		rk_error_set(&r->digest_why, RK_EXIT_USAGE, "the reckon extension is not installed in the %s database %s",
		             r->side, rk_pg_location(r->pg));
		return rk_pgreader_no_digest(r, install);
	}
	r->digest_schema = rk_pg_quote_ident(r->pg, rk_pg_result_value(res, 0, 0), err);
	has_window = rk_pg_result_value(res, 0, 1) && strcmp(rk_pg_result_value(res, 0, 1), "t") == 0;
	r->has_windows = rk_pg_result_value(res, 0, 2) && strcmp(rk_pg_result_value(res, 0, 2), "t") == 0;
	r->has_key_hash = rk_pg_result_value(res, 0, 3) && strcmp(rk_pg_result_value(res, 0, 3), "t") == 0;
	rk_pg_result_free(res);
	if (!r->digest_schema)
		return -1;
	rk_buf_printf(&sql, "SELECT %s.reckon_pushdown_version()", r->digest_schema);
	rk_error_clear(&verr);
	rc = rk_pg_exec(r->pg, "reckon extension version", rk_buf_cstr(&sql), 0, NULL, RK_PG_ONE_ROW, &res, &verr);
	rk_buf_free(&sql);
	if (rc < 0) {
		/* e.g. the SQL objects are there but the module is not */
		rk_pgreader_recover(r);
		rk_error_set(&r->digest_why, RK_EXIT_USAGE, "the reckon extension in the %s database cannot be used: %s",
		             r->side, verr.msg);
		return rk_pgreader_no_digest(r, install);
	}
	v = rk_pg_result_value(res, 0, 0);
	if (!v || strcmp(v, RK_PGREADER_PUSHDOWN_VERSION) != 0) {
		rk_error_set(&r->digest_why, RK_EXIT_USAGE,
		             "the reckon extension in the %s database computes digest format %s; this reckon needs format " RK_PGREADER_PUSHDOWN_VERSION, r->side, v ? v : "NULL");
		rk_pg_result_free(res);
		return rk_pgreader_no_digest(r, "install the extension built from this reckon's sources (make ext-install), "
		                                "then ALTER EXTENSION reckon UPDATE or re-create it");
	}
	rk_pg_result_free(res);
	if (!has_window) {
		/* the module of 1.1 under the SQL objects of 1.0 */
		rk_error_set(&r->digest_why, RK_EXIT_USAGE,
		             "the reckon extension in the %s database is version 1.0, without reckon_window", r->side);
		return rk_pgreader_no_digest(r, "run ALTER EXTENSION reckon UPDATE in that database (docs/pushdown.md)");
	}
	rk_log_debug("%s: reckon extension in schema %s%s", r->desc, r->digest_schema,
	             r->has_windows ? "" : ", version 1.1: digests grouped by window (ALTER EXTENSION reckon UPDATE "
	                                   "for reckon_windows, which needs no GROUP BY)");
	if (r->relkind == 'p' && rk_pgreader_leaves(r, err) < 0)
		return -1;
	r->digest_state = 1;
	return 1;
}

typedef struct rk_pgreader_dctx {
	rk_pgreader *r;
	rk_field *fields;
	size_t nfields;
	rk_row_fn fn;
	void *ctx;
} rk_pgreader_dctx;

static int rk_pgreader_digest_row(void *ctx, const char *row, size_t len, rk_error *err)
{
	rk_pgreader_dctx *d = ctx;
	const char *why;

	d->r->rows++;
	if (rk_copytext_split(row, len, d->fields, d->nfields, &d->r->scratch, &why) < 0) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: row %llu of the window digests has %s", d->r->desc,
		                    (unsigned long long)d->r->rows, why);
	}
	return d->fn(d->ctx, d->fields, err);
}

/*
 * The GROUP BY statement: one row per window, computed in the reader's
 * snapshot by the extension's reckon_window aggregate (qualified with its
 * schema), whose {count, hash, sums} array the outer query spreads over the
 * fields the caller reads.  The aggregate takes the hashed columns in their
 * order, each marked h (hashed) or b (hashed and summed), then the summed
 * columns that are not hashed (s); its sums come in the order of those
 * arguments, so field 3 + j picks sum j's element.  The WHERE clause is the
 * scan's, so an index on the time column serves both.
 *
 * rk_pgreader_digest_args lays out those arguments once per statement.
 */
typedef struct rk_pgreader_wargs {
	size_t *col; /* argument a's column */
	char *roles; /* its letter: h hashed, b hashed and summed, s summed */
	size_t n;
} rk_pgreader_wargs;

static void rk_pgreader_digest_args(const rk_digest_query *q, rk_pgreader_wargs *wa)
{
	wa->col = rk_xcalloc(q->nhash + q->nsum, sizeof *wa->col);
	wa->roles = rk_xcalloc(q->nhash + q->nsum + 1, 1);
	wa->n = q->nhash;
	for (size_t i = 0; i < q->nhash; i++) {
		wa->col[i] = q->hash_index[i];
		wa->roles[i] = 'h';
	}
	for (size_t j = 0; j < q->nsum; j++) {
		size_t a = 0;

		while (a < wa->n && wa->col[a] != q->sum_index[j])
			a++;
		if (a == wa->n) {
			wa->col[wa->n] = q->sum_index[j];
			wa->roles[wa->n++] = 's';
		} else if (wa->roles[a] == 'h') {
			wa->roles[a] = 'b';
		}
	}
}

/* Appends the reckon_window(...) call of these arguments. */
static void rk_pgreader_digest_agg(rk_pgreader *r, const rk_pgreader_wargs *wa)
{
	rk_buf_printf(&r->sql, "%s.reckon_window('%s'::pg_catalog.bytea", r->digest_schema, wa->roles);
	for (size_t a = 0; a < wa->n; a++)
		rk_buf_printf(&r->sql, ", %s", r->quoted[wa->col[a]]);
	rk_buf_putc(&r->sql, ')');
}

/*
 * A foreign leaf partition: one aggregate without GROUP BY per window (and
 * one for the NULL times when asked), which postgres_fdw always sends to the
 * leaf's server, where a grouped one is sent only when the planner expects
 * the grouping to save rows (it estimates the windows from the time
 * column's distinct values, and with statistics of a foreign table that is
 * about one group per row).  Windows without rows come back with count 0.
 * Returns 1, appending nothing, when there are too many windows for one
 * statement (the caller then groups) or the time column has no time type;
 * 0 when appended; -1 on error.
 */
#define RK_PGREADER_MAX_WINDOW_BRANCHES 512

static int rk_pgreader_digest_windows(rk_pgreader *r, const rk_digest_query *q, const char *rel,
                                      const rk_pgreader_wargs *wa, rk_error *err)
{
	rk_type tt = r->types[q->scan->time_index];
	const char *tcol = r->quoted[q->scan->time_index];
	bool with_zone = tt == RK_T_TIMESTAMPTZ;
	const rk_range *g = &q->scan->ranges[0];
	int64_t k0 = (g->from - q->from) / q->width, k1 = (g->to - q->from) / q->width;
	bool first = true;

	if (!(tt == RK_T_TIMESTAMPTZ || tt == RK_T_TIMESTAMP || tt == RK_T_DATE))
		return 1;
	if (k1 - k0 > RK_PGREADER_MAX_WINDOW_BRANCHES) {
		rk_log_info("%s: %lld windows, more than %d: foreign partition %s is grouped by window, which its server "
		            "computes only when the planner expects that to save rows",
		            r->desc, (long long)(k1 - k0),
		            RK_PGREADER_MAX_WINDOW_BRANCHES, rel);
		return 1;
	}
	for (int64_t k = k0; k < k1; k++) {
		rk_buf_printf(&r->sql, "%sSELECT (%lld)::pg_catalog.int8 AS w, ", first ? "" : " UNION ALL ", (long long)k);
		rk_pgreader_digest_agg(r, wa);
		rk_buf_printf(&r->sql, " AS d FROM %s WHERE %s%s", rel, r->filter ? r->filter : "", r->filter ? " AND " : "");
		if (rk_pgreader_bound(r, tcol, ">=", q->from + k * q->width, with_zone, err) < 0)
			return -1;
		rk_buf_puts(&r->sql, " AND ");
		if (rk_pgreader_bound(r, tcol, "<", q->from + (k + 1) * q->width, with_zone, err) < 0)
			return -1;
		first = false;
	}
	if (q->scan->include_null_time) {
		rk_buf_printf(&r->sql, "%sSELECT NULL::pg_catalog.int8 AS w, ", first ? "" : " UNION ALL ");
		rk_pgreader_digest_agg(r, wa);
		rk_buf_printf(&r->sql, " AS d FROM %s WHERE %s%s%s IS NULL", rel, r->filter ? r->filter : "",
		              r->filter ? " AND " : "", tcol);
		first = false;
	}
	if (first) {
		/* nothing asked of this leaf: a branch of no rows */
		rk_buf_puts(&r->sql, "SELECT NULL::pg_catalog.int8 AS w, NULL::pg_catalog.text[] AS d WHERE false");
	}
	return 0;
}

/*
 * Whether a local table (or leaf) is aggregated by reckon_windows: every
 * window in one aggregate without GROUP BY, each row put in its window by
 * the module itself (extension 1.2).  It saves the hash aggregate's lookup
 * of every row's group and the window expression the executor evaluates
 * for it, more than a quarter of the grouped statement's work per row
 * (docs/performance.md).  Not with extension 1.1, nor past the windows one
 * of its states holds, RK_PUSHDOWN_MAX_WINDOWS (then the statement groups
 * reckon_window by window).
 */
static bool rk_pgreader_digest_ungrouped(const rk_pgreader *r, const rk_digest_query *q, rk_usec unit)
{
	rk_type tt = r->types[q->scan->time_index];
	const rk_range *g = &q->scan->ranges[0];

	return r->has_windows && (tt == RK_T_TIMESTAMPTZ || tt == RK_T_TIMESTAMP || tt == RK_T_DATE) &&
	       g->from >= q->from && (g->to - q->from) / unit <= RK_PUSHDOWN_MAX_WINDOWS;
}

static int rk_pgreader_digest_build(rk_pgreader *r, rk_digest_query *q, const rk_pgreader_wargs *wa,
                                    bool *empty, rk_error *err)
{
	const char *sch = r->digest_schema;
	rk_usec unit;
	int rc = 0;

	/* per slice, as the caller asks, except over foreign leaves: their
	 * statement has a branch per group (rk_pgreader_digest_windows), which
	 * slices would multiply past what one statement takes */
	if (q->slices < 1 || r->nleaves)
		q->slices = 1;
	unit = q->width / (rk_usec)q->slices;
	*empty = false;
	rk_buf_reset(&r->sql);
	rk_buf_puts(&r->sql, "COPY (SELECT w, d[1], d[2]");
	/* sum j: the element of its argument among the summed ones */
	for (size_t j = 0; j < q->nsum; j++) {
		size_t k = 0;

		for (size_t a = 0; a < wa->n && wa->col[a] != q->sum_index[j]; a++)
			k += wa->roles[a] != 'h';
		rk_buf_printf(&r->sql, ", d[%zu]", 3 + k);
	}
	rk_buf_puts(&r->sql, " FROM (");
	/* the table, or each of its leaf partitions (rk_pgreader_leaves): the
	 * client adds up a window's rows from every leaf */
	for (size_t l = 0; l < (r->nleaves ? r->nleaves : 1) && rc == 0; l++) {
		const char *rel = r->nleaves ? r->leaves[l] : r->qualified;

		if (l)
			rk_buf_puts(&r->sql, " UNION ALL ");
		if (r->nleaves && r->leaf_foreign[l]) {
			int wr = rk_pgreader_digest_windows(r, q, rel, wa, err);

			if (wr < 0)
				rc = -1;
			if (wr <= 0)
				continue;
		}
		if (rk_pgreader_digest_ungrouped(r, q, unit)) {
			/* reckon_windows: one aggregate over the rows, its
			 * result's rows spread as the grouped statement's.  Its
			 * elements are taken in one pass (unnest), row r's column c
			 * at ordinality r * (3 + nsum) + c + 1: a subscript d[i][k]
			 * walks the array from its start, which over a window's
			 * slices grows with their square */
			size_t ncol = 3 + q->nsum;

			rk_buf_puts(&r->sql, "SELECT (max(v) FILTER (WHERE c = 0))::pg_catalog.int8 AS w, "
			                     "ARRAY[max(v) FILTER (WHERE c = 1), max(v) FILTER (WHERE c = 2)");
			for (size_t k = 0; k < q->nsum; k++)
				rk_buf_printf(&r->sql, ", max(v) FILTER (WHERE c = %zu)", 3 + k);
			rk_buf_printf(&r->sql, "] AS d FROM (SELECT (u.o - 1) / %zu AS r, (u.o - 1) %% %zu AS c, u.v FROM "
			                       "(SELECT %s.reckon_windows((%lld)::pg_catalog.int8, ",
			              ncol, ncol, sch, (long long)q->from);
			rk_buf_printf(&r->sql, "(%lld)::pg_catalog.int8, '%s'::pg_catalog.bytea, %s", (long long)unit, wa->roles,
			              r->quoted[q->scan->time_index]);
			for (size_t a = 0; a < wa->n; a++)
				rk_buf_printf(&r->sql, ", %s", r->quoted[wa->col[a]]);
			rk_buf_printf(&r->sql, ") AS d FROM %s", rel);
			if (rk_pgreader_where(r, q->scan, empty, err) < 0)
				rc = -1;
			else
				rk_buf_puts(&r->sql, ") AS x, pg_catalog.unnest(x.d) WITH ORDINALITY AS u(v, o)) AS y GROUP BY r");
			continue;
		}
		rk_buf_printf(&r->sql,
		              "SELECT (%s.reckon_instant(%s) - (%lld)::pg_catalog.int8) / (%lld)::pg_catalog.int8 AS w, ",
		              sch, r->quoted[q->scan->time_index], (long long)q->from, (long long)unit);
		rk_pgreader_digest_agg(r, wa);
		rk_buf_printf(&r->sql, " AS d FROM %s", rel);
		if (rk_pgreader_where(r, q->scan, empty, err) < 0)
			rc = -1;
		else
			rk_buf_puts(&r->sql, " GROUP BY 1");
	}
	if (rc == 0)
		rk_buf_puts(&r->sql, ") AS s) TO STDOUT");
	rk_buf_cstr(&r->sql);
	return rc;
}

static int rk_pgreader_digest(void *impl, rk_digest_query *q, rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_pgreader *r = impl;
	rk_pgreader_dctx d = { r, NULL, 3 + q->nsum, fn, ctx };
	rk_pgreader_wargs wa;
	char label[200];
	bool empty = false;
	int rc;

	if (r->ncols == 0 || q->scan->time_index >= r->ncols || q->scan->nranges > 1 || q->nhash == 0) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: digest query before bind, or not one range of whole windows",
		                    r->desc);
	}
	if (r->broken) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: the reader's transaction was lost after an earlier failure",
		             r->desc);
		return rk_error_hint(err, "run again; the first error reported is the cause");
	}
	rk_pgreader_digest_args(q, &wa);
	if (wa.n > RK_PGREADER_PUSHDOWN_MAX_COLS) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_USAGE, "%s: %zu hashed and summed columns; the reckon extension takes at most %d",
		             r->desc, wa.n, RK_PGREADER_PUSHDOWN_MAX_COLS);
		rk_error_hint(err, "hash fewer --columns, or leave out --pushdown");
		rc = 1;
	} else if ((rc = rk_pgreader_probe(r, err)) <= 0) {
		if (rc == 0)
			*err = r->digest_why;
		rc = rc < 0 ? -1 : 1;
	} else {
		rc = rk_pgreader_digest_build(r, q, &wa, &empty, err);
	}
	free(wa.col);
	free(wa.roles);
	if (rc != 0)
		return rc; /* 1: this reader cannot compute digests; -1: error */
	if (empty)
		return 0;
	snprintf(label, sizeof label, "window digests of %s", r->display);
	d.fields = rk_xcalloc(d.nfields, sizeof *d.fields);
	r->rows = 0;
	rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_hash, err);
	if (rc == 0 && r->nleaves)
		rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_leaves, err);
	if (rc == 0)
		rc = rk_pg_copy_out(r->pg, label, r->sql.data, rk_pgreader_digest_row, &d, err);
	if (rc == 0)
		rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_reset, err);
	if (rc == 0 && r->nleaves)
		rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_leaves_reset, err);
	free(d.fields);
	if (rc == 0) {
		rk_log_debug("%s: %llu window digests", r->desc, (unsigned long long)r->rows);
		return 0;
	}
	/* a value the extension refused, a setting, a privilege: the user's to fix */
	if (err->sqlstate[0] && rk_pg_error_is_usage(err))
		err->code = RK_EXIT_USAGE;
	rk_pgreader_recover(r);
	return -1;
}

/* ------------------------------------------------------------------------
 * what the diagnosis asks of a source (reader.h)
 * ---------------------------------------------------------------------- */

/* Appends a text[] literal of values v[i * stride + off], i < n. */
static void rk_pgreader_text_array(rk_buf *b, const char *const *v, size_t n, size_t stride, size_t off)
{
	rk_buf_putc(b, '{');
	for (size_t i = 0; i < n; i++) {
		const char *p = v[i * stride + off];

		if (i)
			rk_buf_putc(b, ',');
		if (!p) {
			rk_buf_puts(b, "NULL");
			continue;
		}
		rk_buf_putc(b, '"');
		for (; *p; p++) {
			if (*p == '"' || *p == '\\')
				rk_buf_putc(b, '\\');
			rk_buf_putc(b, *p);
		}
		rk_buf_putc(b, '"');
	}
	rk_buf_putc(b, '}');
}

/* 0 when the server keeps commit times, 1 (err says so) when it does not. */
static int rk_pgreader_commit_on(rk_pgreader *r, rk_error *err)
{
	rk_pg_result *res = NULL;
	const char *v;
	bool on;

	if (rk_pg_exec(r->pg, "track_commit_timestamp", rk_sql_diagnose_commit_ts_on, 0, NULL, RK_PG_ONE_ROW, &res,
	               err) < 0) {
		rk_pgreader_recover(r);
		return -1;
	}
	v = rk_pg_result_value(res, 0, 0);
	on = v && v[0] == 't';
	rk_pg_result_free(res);
	if (on)
		return 0;
	rk_pgreader_err(err);
	rk_error_set(err, RK_EXIT_USAGE, "track_commit_timestamp is off on %s: the server keeps no commit times",
	             rk_pg_location(r->pg));
	rk_error_hint(err, "set track_commit_timestamp = on in postgresql.conf and restart the server; rows written "
	                   "before that have no commit time");
	return 1;
}

/* A statement on the relation's xmin failed: a relation without one (a view)
 * is a fact (1), anything else an error. */
static int rk_pgreader_xmin_failed(rk_pgreader *r, rk_error *err)
{
	rk_pgreader_recover(r);
	if (strcmp(err->sqlstate, "42703") != 0)
		return -1;
	rk_pgreader_err(err);
	rk_error_set(err, RK_EXIT_USAGE, "%s has no xmin (a view or a foreign table): its rows' commit times cannot be "
	                                 "read",
	             r->display);
	rk_error_hint(err, "point the source at the table itself");
	return 1;
}

static int rk_pgreader_commit_times(void *impl, const rk_key_query *q, rk_usec *commit, uint32_t *xid, bool *known,
                                    rk_error *err)
{
	rk_pgreader *r = impl;
	rk_buf keys = RK_BUF_INIT, match = RK_BUF_INIT;
	rk_buf *arrays = rk_xcalloc(q->nkey + 2, sizeof *arrays);
	const char **params = rk_xcalloc(q->nkey + 2, sizeof *params);
	rk_type tt = r->types[q->time_index];
	bool with_zone = tt == RK_T_TIMESTAMPTZ;
	/* a time column of no time type is not compared (as in a scan) */
	bool span = q->lo && q->hi && (tt == RK_T_TIMESTAMPTZ || tt == RK_T_TIMESTAMP || tt == RK_T_DATE);
	size_t nparams = q->nkey + (span ? 2 : 0);
	rk_pg_result *res = NULL;
	rk_sqlvar vars[3];
	int rc;

	for (size_t i = 0; i < q->nrows; i++) {
		commit[i] = 0;
		xid[i] = 0;
		known[i] = false;
	}
	rc = q->nrows ? rk_pgreader_commit_on(r, err) : 0;
	if (rc != 0 || !q->nrows)
		goto done;
	rk_buf_puts(&keys, "unnest(");
	for (size_t c = 0; c < q->nkey; c++) {
		size_t col = q->key_index[c];

		rk_buf_printf(&keys, "%s$%zu::pg_catalog.text[]", c ? ", " : "", c + 1);
		rk_buf_printf(&match, "%s%s = k.reckon_k%zu::%s", c ? " AND " : "", r->quoted[col], c + 1, r->typnames[col]);
		rk_pgreader_text_array(&arrays[c], q->values, q->nrows, q->nkey, c);
		params[c] = rk_buf_cstr(&arrays[c]);
	}
	if (span) {
		/* the rows' time span, as the scans bound their ranges */
		const char *type = with_zone ? "timestamptz" : "timestamp";
		const char *tcol = r->quoted[q->time_index];

		for (size_t e = 0; e < 2; e++) {
			rk_buf *a = &arrays[q->nkey + e];
			char text[RK_TIME_STRLEN];

			rk_buf_putc(a, '{');
			for (size_t i = 0; i < q->nrows; i++)
				rk_buf_printf(a, "%s\"%s\"", i ? "," : "", rk_time_format_sql(e ? q->hi[i] : q->lo[i], with_zone, text));
			rk_buf_putc(a, '}');
			params[q->nkey + e] = rk_buf_cstr(a);
			rk_buf_printf(&keys, ", $%zu::pg_catalog.%s[]", q->nkey + e + 1, type);
		}
		rk_buf_printf(&match, " AND %s >= k.reckon_lo AND %s <= k.reckon_hi", tcol, tcol);
	}
	rk_buf_puts(&keys, ") WITH ORDINALITY AS k(");
	for (size_t c = 0; c < q->nkey; c++)
		rk_buf_printf(&keys, "reckon_k%zu, ", c + 1);
	rk_buf_puts(&keys, span ? "reckon_lo, reckon_hi, reckon_n)" : "reckon_n)");
	vars[0] = (rk_sqlvar){ "keys", rk_buf_cstr(&keys) };
	vars[1] = (rk_sqlvar){ "source_table", r->qualified };
	vars[2] = (rk_sqlvar){ "key_match", rk_buf_cstr(&match) };
	rc = rk_sql_render(&r->sql, rk_sql_diagnose_commit_times, vars, 3, err);
	if (rc == 0 && span && rk_pg_command(r->pg, "commit times planner settings", rk_sql_diagnose_plan, err) < 0) {
		rk_pgreader_recover(r);
		rc = -1;
	}
	if (rc == 0 && rk_pg_exec(r->pg, "commit times", r->sql.data, (int)nparams, params, RK_PG_ANY_ROWS, &res,
	                          err) < 0)
		rc = rk_pgreader_xmin_failed(r, err);
	if (rc == 0 && span &&
	    rk_pg_command(r->pg, "commit times planner settings", rk_sql_diagnose_plan_reset, err) < 0) {
		rk_pgreader_recover(r);
		rc = -1;
	}
	for (int i = 0; rc == 0 && i < rk_pg_result_rows(res); i++) {
		const char *n = rk_pg_result_value(res, i, 0), *ts = rk_pg_result_value(res, i, 1), *why;
		const char *x = rk_pg_result_value(res, i, 2);
		unsigned long long k = n ? strtoull(n, NULL, 10) : 0;
		rk_usec t;

		if (!ts || k < 1 || k > q->nrows)
			continue;
		if (rk_time_parse(ts, strlen(ts), &t, &why) < 0) {
			rk_pgreader_err(err);
			rc = rk_error_set(err, RK_EXIT_RUNTIME, "%s: commit time '%s' is not a timestamp: %s", r->desc, ts, why);
			break;
		}
		commit[k - 1] = t;
		xid[k - 1] = x ? (uint32_t)strtoul(x, NULL, 10) : 0;
		known[k - 1] = true;
	}
done:
	rk_pg_result_free(res);
	for (size_t c = 0; c < q->nkey + 2; c++)
		rk_buf_free(&arrays[c]);
	free(arrays);
	free(params);
	rk_buf_free(&keys);
	rk_buf_free(&match);
	return rc;
}

static int rk_pgreader_xact_rows(void *impl, const rk_xact_query *q, uint64_t *rows, rk_error *err)
{
	rk_pgreader *r = impl;
	rk_buf arrays[4] = { RK_BUF_INIT, RK_BUF_INIT, RK_BUF_INIT, RK_BUF_INIT };
	const char *params[4];
	rk_pg_result *res = NULL;
	rk_sqlvar vars[3];
	rk_type tt = q->time_index < r->ncols ? r->types[q->time_index] : RK_T_UNKNOWN;
	int rc = 0;

	for (size_t i = 0; i < q->n; i++)
		rows[i] = 0;
	if (!q->n)
		return 0;
	if (tt != RK_T_TIMESTAMPTZ && tt != RK_T_TIMESTAMP && tt != RK_T_DATE) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_USAGE, "the time column of %s has no time type: its rows' transactions were not "
		                                 "asked about",
		             r->display);
		return 1;
	}
	for (int a = 0; a < 4; a++)
		rk_buf_putc(&arrays[a], '{');
	for (size_t i = 0; i < q->n; i++) {
		char lo[RK_TIME_STRLEN], hi[RK_TIME_STRLEN];
		const char *sep = i ? "," : "";

		rk_buf_printf(&arrays[0], "%s%lu", sep, (unsigned long)q->xid[i]);
		rk_buf_printf(&arrays[1], "%s\"%s\"", sep, rk_time_format_sql(q->lo[i], true, lo));
		rk_buf_printf(&arrays[2], "%s\"%s\"", sep, rk_time_format_sql(q->hi[i], true, hi));
		rk_buf_printf(&arrays[3], "%s%llu", sep, (unsigned long long)q->cap[i]);
	}
	for (int a = 0; a < 4; a++) {
		rk_buf_putc(&arrays[a], '}');
		params[a] = rk_buf_cstr(&arrays[a]);
	}
	vars[0] = (rk_sqlvar){ "source_table", r->qualified };
	vars[1] = (rk_sqlvar){ "time_column", r->quoted[q->time_index] };
	vars[2] = (rk_sqlvar){ "filter", r->filter ? r->filter : "true" };
	rc = rk_sql_render(&r->sql, rk_sql_diagnose_xact_rows, vars, 3, err);
	/* the spans come with the query: the planner would rather scan */
	if (rc == 0 && rk_pg_command(r->pg, "transactions' rows planner settings", rk_sql_diagnose_plan, err) < 0) {
		rk_pgreader_recover(r);
		rc = -1;
	}
	if (rc == 0 && rk_pg_exec(r->pg, "transactions' rows", r->sql.data, 4, params, RK_PG_ANY_ROWS, &res, err) < 0)
		rc = rk_pgreader_xmin_failed(r, err);
	else if (rc == 0 &&
	         rk_pg_command(r->pg, "transactions' rows planner settings", rk_sql_diagnose_plan_reset, err) < 0) {
		rk_pgreader_recover(r);
		rc = -1;
	}
	for (int i = 0; rc == 0 && i < rk_pg_result_rows(res); i++) {
		const char *n = rk_pg_result_value(res, i, 0), *c = rk_pg_result_value(res, i, 1);
		unsigned long long k = n ? strtoull(n, NULL, 10) : 0;

		if (c && k >= 1 && k <= q->n)
			rows[k - 1] = strtoull(c, NULL, 10);
	}
	rk_pg_result_free(res);
	for (int a = 0; a < 4; a++)
		rk_buf_free(&arrays[a]);
	return rc;
}

static int rk_pgreader_key_unique(void *impl, const size_t *key_index, size_t nkey, bool *unique, rk_error *err)
{
	rk_pgreader *r = impl;
	const char **names = rk_xcalloc(nkey ? nkey : 1, sizeof *names);
	char **owned = rk_xcalloc(nkey ? nkey : 1, sizeof *owned);
	const char *params[2];
	rk_buf arr = RK_BUF_INIT;
	rk_pg_result *res = NULL;
	int rc = 0;

	*unique = false;
	for (size_t c = 0; c < nkey; c++) {
		long k = rk_pgreader_expr_of(r, r->cols[key_index[c]]);
		char *bare[1] = { NULL };
		size_t np = 0;
		const char *why;

		names[c] = r->cols[key_index[c]];
		if (k < 0)
			continue;
		/* a key mapped to a column as it is (id = customer_id) is that
		 * column; a computed one is backed by no index reckon can see */
		if (rk_pgident_parse(r->expr.sql[k], bare, 1, &np, &why) < 0 || np != 1) {
			free(bare[0]);
			goto done;
		}
		owned[c] = bare[0];
		names[c] = bare[0];
	}
	rk_pgreader_text_array(&arr, names, nkey, 1, 0);
	params[0] = r->oid;
	params[1] = rk_buf_cstr(&arr);
	rc = rk_pg_exec(r->pg, "unique key", rk_sql_diagnose_key_unique, 2, params, RK_PG_ONE_ROW, &res, err);
	if (rc < 0)
		rk_pgreader_recover(r);
	if (rc == 0) {
		const char *v = rk_pg_result_value(res, 0, 0);
		*unique = v && v[0] == 't';
	}
done:
	rk_pg_result_free(res);
	rk_buf_free(&arr);
	for (size_t c = 0; c < nkey; c++)
		free(owned[c]);
	free(owned);
	free(names);
	return rc;
}

static int rk_pgreader_open_xacts(void *impl, rk_usec before, const int *skip_pids, size_t nskip, rk_open_xacts *out,
                                  rk_error *err)
{
	rk_pgreader *r = impl;
	char ts[RK_TIME_STRLEN];
	const char *params[2], *v, *why;
	rk_buf pids = RK_BUF_INIT;
	rk_pg_result *res = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	out->oldest = RK_USEC_PINF;
	rk_buf_putc(&pids, '{');
	for (size_t i = 0; i < nskip; i++)
		rk_buf_printf(&pids, "%s%d", i ? "," : "", skip_pids[i]);
	rk_buf_putc(&pids, '}');
	params[0] = rk_time_format(before, ts);
	params[1] = rk_buf_cstr(&pids);
	rc = rk_pg_exec(r->pg, "open transactions", rk_sql_diagnose_open_transactions, 2, params, RK_PG_ONE_ROW, &res,
	                err);
	if (rc < 0)
		rk_pgreader_recover(r);
	if (rc == 0) {
		out->count = strtoull(rk_pg_result_value(res, 0, 0), NULL, 10);
		v = rk_pg_result_value(res, 0, 1);
		if (v && rk_time_parse(v, strlen(v), &out->oldest, &why) < 0)
			out->oldest = RK_USEC_PINF;
		v = rk_pg_result_value(res, 0, 2);
		out->oldest_pid = v ? atoi(v) : 0;
		v = rk_pg_result_value(res, 0, 3);
		snprintf(out->oldest_app, sizeof out->oldest_app, "%s", v ? v : "");
		v = rk_pg_result_value(res, 0, 4);
		out->sees_all = v && v[0] == 't';
	}
	rk_pg_result_free(res);
	rk_buf_free(&pids);
	return rc;
}

static int rk_pgreader_backend_pid(const void *impl)
{
	const rk_pgreader *r = impl;

	return rk_pg_backend_pid(r->pg);
}

/* "12.5" -> 12.5; NULL -> 0 */
static double rk_pgreader_num(const char *v)
{
	return v ? strtod(v, NULL) : 0;
}

static int rk_pgreader_lateness(void *impl, const rk_lag_query *q, rk_lag_stats *all, rk_lag_stats *win,
                                rk_error *err)
{
	rk_pgreader *r = impl;
	char from[RK_TIME_STRLEN], to[RK_TIME_STRLEN], width[32];
	const char *params[4];
	rk_buf margins = RK_BUF_INIT;
	rk_pg_result *res = NULL;
	rk_sqlvar vars[4];
	size_t nwin = q->bounds ? q->nbounds - 1 : q->width > 0 ? (size_t)((q->to - q->from) / q->width)
	                                                        : 0;
	rk_buf bounds = RK_BUF_INIT;
	int rc;

	if (q->nmargins > RK_LAG_MAX_MARGINS || q->time_index >= r->ncols) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: lateness query out of range", r->desc);
	}
	if ((rc = rk_pgreader_commit_on(r, err)) != 0)
		return rc;
	rk_buf_putc(&margins, '{');
	for (size_t k = 0; k < q->nmargins; k++)
		rk_buf_printf(&margins, "%s%lld.%06lld", k ? "," : "", (long long)(q->margins[k] / RK_USEC_PER_SEC),
		              (long long)(q->margins[k] % RK_USEC_PER_SEC));
	rk_buf_putc(&margins, '}');
	snprintf(width, sizeof width, "%lld", (long long)q->width);
	/* calendar windows: $3 is their boundaries, a row's window its
	 * bucket among them */
	rk_buf_putc(&bounds, '{');
	for (size_t k = 0; q->bounds && k < q->nbounds; k++) {
		char b[RK_TIME_STRLEN];

		rk_buf_printf(&bounds, "%s%s", k ? "," : "", rk_time_format(q->bounds[k], b));
	}
	rk_buf_putc(&bounds, '}');
	params[0] = rk_time_format(q->from, from);
	params[1] = rk_time_format(q->to, to);
	params[2] = q->bounds ? rk_buf_cstr(&bounds) : width;
	params[3] = rk_buf_cstr(&margins);
	vars[0] = (rk_sqlvar){ "source_table", r->qualified };
	vars[1] = (rk_sqlvar){ "time_column", r->quoted[q->time_index] };
	vars[2] = (rk_sqlvar){ "filter", r->filter ? r->filter : "true" };
	vars[3] = (rk_sqlvar){ "window_of",
		               q->bounds ? "pg_catalog.width_bucket(r.at, $3::pg_catalog.timestamptz[]) - 1"
		                         : "(extract(epoch FROM r.at - $1::pg_catalog.timestamptz) * 1000000)::pg_catalog.int8 "
		                           "/ $3::pg_catalog.int8" };
	rc = rk_sql_render(&r->sql, rk_sql_lateness, vars, 4, err);
	if (rc == 0 && rk_pg_exec(r->pg, "lateness", r->sql.data, 4, params, RK_PG_ANY_ROWS, &res, err) < 0)
		rc = rk_pgreader_xmin_failed(r, err);
	for (int i = 0; rc == 0 && i < rk_pg_result_rows(res); i++) {
		const char *w = rk_pg_result_value(res, i, 0);
		rk_lag_stats *st;

		if (w) {
			long long k = strtoll(w, NULL, 10);
			if (k < 0 || (size_t)k >= nwin)
				continue;
			st = &win[k];
		} else {
			st = all;
		}
		st->rows = strtoull(rk_pg_result_value(res, i, 1), NULL, 10);
		st->known = strtoull(rk_pg_result_value(res, i, 2), NULL, 10);
		st->p50 = rk_pgreader_num(rk_pg_result_value(res, i, 3));
		st->p90 = rk_pgreader_num(rk_pg_result_value(res, i, 4));
		st->p99 = rk_pgreader_num(rk_pg_result_value(res, i, 5));
		st->p999 = rk_pgreader_num(rk_pg_result_value(res, i, 6));
		st->max = rk_pgreader_num(rk_pg_result_value(res, i, 7));
		for (size_t k = 0; k < q->nmargins; k++)
			st->missed[k] = strtoull(rk_pg_result_value(res, i, 8 + (int)k), NULL, 10);
	}
	rk_pg_result_free(res);
	rk_buf_free(&margins);
	rk_buf_free(&bounds);
	return rc;
}

/* ------------------------------------------------------------------------
 * the drilldown's sub-digests (rk_reader_drill_digest)
 * ---------------------------------------------------------------------- */

/* The most parts one statement takes; more go in further statements. */
#define RK_PGREADER_DRILL_PARTS 128

/*
 * One part: its pieces' {count, hash} by reckon_window over the hashed
 * columns, and the span of their instants, grouped by piece: the piece of
 * a time split is (instant - lo) / width, of a key-hash split the next
 * bits of reckon_key_hash.  The WHERE clause is the scan's for the part's
 * range (and key bits), so the time index serves it.
 */
static int rk_pgreader_drill_part(rk_pgreader *r, const rk_drill_query *q, size_t i, rk_error *err)
{
	const rk_drill_part *pt = &q->parts[i];
	const char *sch = r->digest_schema, *tcol = r->quoted[q->time_index];
	rk_range range = { pt->lo, pt->hi };
	rk_scan scan;
	bool empty;

	memset(&scan, 0, sizeof scan);
	scan.time_index = q->time_index;
	scan.ranges = &range;
	scan.nranges = 1;
	scan.key_index = q->key_index;
	scan.nkey = q->nkey;
	scan.keybits = pt->keybits.bits ? &pt->keybits : NULL;
	rk_buf_printf(&r->sql, "SELECT (%zu)::pg_catalog.int8 AS n, ", i);
	if (pt->width > 0) {
		rk_buf_printf(&r->sql, "(%s.reckon_instant(%s) - (%lld)::pg_catalog.int8) / (%lld)::pg_catalog.int8", sch,
		              tcol, (long long)pt->lo, (long long)pt->width);
	} else {
		rk_buf_printf(&r->sql, "(%s.reckon_key_hash(", sch);
		for (size_t k = 0; k < q->nkey; k++)
			rk_buf_printf(&r->sql, "%s%s", k ? ", " : "", r->quoted[q->key_index[k]]);
		rk_buf_printf(&r->sql, ") >> %u) & (%lld)::pg_catalog.int8", pt->keybits.bits,
		              (long long)((INT64_C(1) << pt->more) - 1));
	}
	rk_buf_printf(&r->sql, " AS p, %s.reckon_window('", sch);
	for (size_t k = 0; k < q->nhash; k++)
		rk_buf_putc(&r->sql, 'h');
	rk_buf_puts(&r->sql, "'::pg_catalog.bytea");
	for (size_t k = 0; k < q->nhash; k++)
		rk_buf_printf(&r->sql, ", %s", r->quoted[q->hash_index[k]]);
	rk_buf_printf(&r->sql, ") AS d, min(%s.reckon_instant(%s)) AS a, max(%s.reckon_instant(%s)) AS b FROM %s", sch,
	              tcol, sch, tcol, r->qualified);
	if (rk_pgreader_where(r, &scan, &empty, err) < 0)
		return -1;
	rk_buf_puts(&r->sql, empty ? " WHERE false GROUP BY 2" : " GROUP BY 2");
	return 0;
}

static int rk_pgreader_drill_digest(void *impl, const rk_drill_query *q, rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_pgreader *r = impl;
	rk_pgreader_dctx d = { r, NULL, 6, fn, ctx };
	rk_type tt;
	char label[200];
	int rc;

	if (r->ncols == 0 || q->time_index >= r->ncols || (q->nparts && q->nhash == 0)) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: drilldown digests before bind", r->desc);
	}
	if (r->broken) {
		rk_pgreader_err(err);
		rk_error_set(err, RK_EXIT_RUNTIME, "%s: the reader's transaction was lost after an earlier failure",
		             r->desc);
		return rk_error_hint(err, "run again; the first error reported is the cause");
	}
	rc = rk_pgreader_probe(r, err);
	if (rc <= 0) {
		if (rc == 0)
			*err = r->digest_why;
		return rc < 0 ? -1 : 1;
	}
	tt = r->types[q->time_index];
	rk_pgreader_err(err);
	if (!r->has_key_hash) {
		rk_error_set(err, RK_EXIT_USAGE, "the reckon extension in the %s database is older than 1.3, without "
		                                 "reckon_key_hash",
		             r->side);
		return rk_error_hint(err, "run ALTER EXTENSION reckon UPDATE in that database (docs/pushdown.md)");
	}
	if (!(tt == RK_T_TIMESTAMPTZ || tt == RK_T_TIMESTAMP || tt == RK_T_DATE)) {
		rk_error_set(err, RK_EXIT_USAGE, "the time column of %s has no time type", r->desc);
		return 1;
	}
	if (q->nhash + 1 > RK_PGREADER_PUSHDOWN_MAX_COLS || q->nkey > RK_PGREADER_PUSHDOWN_MAX_COLS) {
		rk_error_set(err, RK_EXIT_USAGE, "%s: too many columns for the reckon extension's functions", r->desc);
		return 1;
	}
	if (q->nparts == 0)
		return 0;
	snprintf(label, sizeof label, "drilldown digests of %s", r->display);
	d.fields = rk_xcalloc(d.nfields, sizeof *d.fields);
	rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_hash, err);
	for (size_t at = 0; at < q->nparts && rc == 0; at += RK_PGREADER_DRILL_PARTS) {
		rk_buf_reset(&r->sql);
		rk_buf_puts(&r->sql, "COPY (SELECT n, p, d[1], d[2], a, b FROM (");
		for (size_t i = at; i < q->nparts && i < at + RK_PGREADER_DRILL_PARTS && rc == 0; i++) {
			if (i > at)
				rk_buf_puts(&r->sql, " UNION ALL ");
			rc = rk_pgreader_drill_part(r, q, i, err);
		}
		rk_buf_puts(&r->sql, ") AS s) TO STDOUT");
		r->rows = 0;
		if (rc == 0)
			rc = rk_pg_copy_out(r->pg, label, rk_buf_cstr(&r->sql), rk_pgreader_digest_row, &d, err);
	}
	if (rc == 0)
		rc = rk_pg_command(r->pg, "pushdown planner settings", rk_sql_pushdown_plan_reset, err);
	free(d.fields);
	if (rc == 0)
		return 0;
	if (err->sqlstate[0] && rk_pg_error_is_usage(err))
		err->code = RK_EXIT_USAGE;
	rk_pgreader_recover(r);
	return -1;
}

/* ------------------------------------------------------------------------ */

static const char *rk_pgreader_describe(const void *impl)
{
	const rk_pgreader *r = impl;

	return r->desc;
}

static void rk_pgreader_free(void *impl)
{
	rk_pgreader *r = impl;

	if (!r)
		return;
	/* closing the connection ends the read-only transaction */
	rk_pg_close(r->pg);
	rk_pgreader_unbind(r);
	rk_buf_free(&r->scratch);
	rk_buf_free(&r->sql);
	free(r->side);
	free(r->oid);
	free(r->display);
	free(r->qualified);
	for (size_t i = 0; i < r->nleaves; i++)
		free(r->leaves[i]);
	free(r->leaves);
	free(r->leaf_foreign);
	free(r->desc);
	free(r->snapshot);
	free(r->digest_schema);
	rk_reader_exprs_free(&r->expr);
	free(r->filter);
	free(r);
}

static const char *rk_pgreader_snapshot(const void *impl)
{
	const rk_pgreader *r = impl;

	return r->snapshot;
}

static int rk_pgreader_scale(const void *impl, size_t col)
{
	const rk_pgreader *r = impl;

	return col < r->ncols && r->scales ? r->scales[col] : -1;
}

const rk_reader_ops rk_pgreader_ops = {
	.bind = rk_pgreader_bind,
	.scan = rk_pgreader_scan,
	.describe = rk_pgreader_describe,
	.free = rk_pgreader_free,
	.columns = rk_pgreader_columns,
	.primary_key = rk_pgreader_primary_key,
	.snapshot = rk_pgreader_snapshot,
	.digest = rk_pgreader_digest,
	.commit_times = rk_pgreader_commit_times,
	.xact_rows = rk_pgreader_xact_rows,
	.key_unique = rk_pgreader_key_unique,
	.open_xacts = rk_pgreader_open_xacts,
	.backend_pid = rk_pgreader_backend_pid,
	.lateness = rk_pgreader_lateness,
	.drill_digest = rk_pgreader_drill_digest,
	.scale = rk_pgreader_scale,
	.keyspace = rk_pgreader_keyspace,
	.sample = rk_pgreader_sample,
};

/* Every conn no other driver claims: a libpq conninfo or URI. */
static void *rk_pg_driver_open(const rk_reader_opts *o, const char *conninfo, rk_error *err)
{
	(void)conninfo; /* o->conn, whole */
	return rk_pgreader_open(o, err);
}

const rk_reader_driver rk_pgreader_driver = {
	.prefix = "",
	.noun = "a PostgreSQL table",
	.caps = RK_CAP_TYPED | RK_CAP_SQL_NAMES | RK_CAP_EXPRESSIONS | RK_CAP_RELATION | RK_CAP_RANGE_SCAN | RK_CAP_KEY_RANGES |
	        RK_CAP_CANON_INTS | RK_CAP_PUSHDOWN | RK_CAP_COMMIT_TIMES | RK_CAP_LIBPQ,
	.open = rk_pg_driver_open,
	.ops = &rk_pgreader_ops,
};
