/*
 * pgreader.c - one side of a table pair read from PostgreSQL.
 *
 * A reader is one connection holding one REPEATABLE READ READ ONLY
 * transaction for its whole life, so every scan sees the same snapshot.  The
 * relation and its columns are resolved through the catalog with bound
 * parameters.  A digest pass streams COPY ... TO STDOUT (FORMAT binary) when
 * every column has a binary form reckon reads (io/copybin.h); other scans,
 * and every scan of such a relation, stream COPY text rows, split in place.
 * The other jobs of this driver have files of their own (pgreader_impl.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "io/copybin.h"
#include "io/copytext.h"
#include "io/pg.h"
#include "io/pgident.h"
#include "io/pgreader_impl.h"
#include "io/sqltpl.h"
#include "rk_sql.h"

/* How many relation names a "does not exist" hint lists. */
#define RK_PGREADER_HINT_NAMES 10

static void rk_pgreader_free(void *impl);

void rk_pgreader_err(rk_error *err)
{
	err->field = -1;
	err->sqlstate[0] = '\0';
}

int rk_pgreader_sql_error(rk_pgreader *r, const char *what, const char *sql, rk_error *err)
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

void rk_pgreader_recover(rk_pgreader *r)
{
	rk_error rerr;

	rk_error_clear(&rerr);
	if (rk_pg_command(r->pg, "scan rollback", rk_sql_session_scan_rollback, &rerr) < 0) {
		r->broken = true;
		rk_log_debug("%s: %s", r->desc, rerr.msg);
	}
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
	/* a row of a table is read again by its tableoid and ctid in this
	 * snapshot, a partition's too; a view's rows have none, nor a foreign
	 * table's (rk_pglarge_probe asks about the tables under it) */
	if (rc == 0)
		r->large_ok = (r->relkind == 'r' || r->relkind == 'm' || r->relkind == 'p') && rk_pg_server_utf8(r->pg);
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

long rk_pgreader_expr_of(const rk_pgreader *r, const char *name)
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
	/* one more: a scan's marker of large values (pglarge.c), text */
	r->types = rk_xcalloc(ncolumns + 1, sizeof *r->types);
	r->scales = rk_xcalloc(ncolumns, sizeof *r->scales);
	r->wires = rk_xcalloc(ncolumns + 1, sizeof *r->wires);
	r->fields = rk_xcalloc(ncolumns + 1, sizeof *r->fields);
	r->types[ncolumns] = RK_T_TEXT;
	r->wires[ncolumns] = RK_WIRE_TEXT;
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
	if (rk_copytext_split(row, len, r->fields, r->ncols + (r->large_bound > 0), &r->scratch, &why) < 0) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: row %llu of the COPY output has %s", r->desc,
		                    (unsigned long long)r->rows, why);
	}
	if (r->large_bound && !r->fields[r->ncols].null) {
		rk_pglarge_keep(r, r->fields);
		return 0;
	}
	if (r->fn(r->ctx, r->fields, err) < 0)
		return rk_error_prefix(err, "%s", r->desc);
	return 0;
}

static int rk_pgreader_bin_row(void *ctx, const rk_field *fields, rk_error *err)
{
	rk_pgreader *r = ctx;

	if (r->large_bound && !fields[r->ncols].null) {
		rk_pglarge_keep(r, fields);
		return 0;
	}
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

	rk_copybin_init(&r->bin, r->wires, r->types, r->ncols + (r->large_bound > 0));
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
	if (scan->large_bound && rk_pglarge_probe(r, err) < 0)
		return -1;
	rk_pgsql_scan(r, scan, binary, &r->sql, &empty);
	if (empty)
		return 0;
	if (scan->serial && rk_pg_script(r->pg, "serial scan settings", rk_sql_session_scan_serial, err) < 0)
		goto failed;
	r->fn = fn;
	r->ctx = ctx;
	r->rows = 0;
	r->large_bound = 0;
	r->large_cols = scan->large_cols;
	for (size_t i = 0; i < r->ncols; i++)
		if (rk_pgsql_large_col(r, scan, i))
			r->large_bound = scan->large_bound;
	rc = binary ? rk_pgreader_copy_binary(r, err) : rk_pg_copy_out(r->pg, r->label, r->sql.data, rk_pgreader_row, r, err);
	if (rc == 0)
		rc = rk_pglarge_deliver(r, scan->late ? scan->late : fn, ctx, err);
	rk_pglarge_reset(r, false);
	r->large_bound = 0;
	if (rc == 0 && scan->serial &&
	    rk_pg_script(r->pg, "serial scan settings", rk_sql_session_scan_serial_reset, err) < 0)
		rc = -1;
	if (rc == 0) {
		rk_log_debug("%s: %llu rows", r->desc, (unsigned long long)r->rows);
		return 0;
	}
failed:
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
	rk_pglarge_reset(r, true);
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

/* rk_reader_renew: the transaction ends (with its snapshot and the locks
 * its scans took) and another begins, whose snapshot its first statement
 * takes.  The relation, the bound columns, the filter and what the probe
 * of the extension found stay: they are the database's, not the
 * snapshot's. */
static int rk_pgreader_renew(void *impl, rk_error *err)
{
	rk_pgreader *r = impl;

	rk_buf sql = RK_BUF_INIT;
	int rc;

	if (r->snapshot)
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: a reader whose snapshot others share keeps it", r->desc);
	/* one round trip: the end, the begin with its settings, the savepoint */
	rk_buf_puts(&sql, rk_sql_session_end_snapshot);
	rk_buf_puts(&sql, rk_sql_session_begin_snapshot);
	rk_buf_puts(&sql, rk_sql_session_settings_local);
	rk_buf_puts(&sql, rk_sql_session_scan_savepoint);
	rc = rk_pg_script(r->pg, "new snapshot", rk_buf_cstr(&sql), err);
	rk_buf_free(&sql);
	if (rc == 0)
		r->broken = false;
	return rc;
}

static int rk_pgreader_backend_pid(const void *impl)
{
	const rk_pgreader *r = impl;

	return rk_pg_backend_pid(r->pg);
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
	.large_value = rk_pgreader_large_value,
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
	.renew = rk_pgreader_renew,
	.watermark = rk_pgreader_watermark,
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
