/*
 * cmd_init.c - reckon init: a job file for the tables two databases share
 * (docs/reference.md), written to stdout.
 *
 * Each table found by name in the source's and the target's schema gets a
 * [table LABEL] section with its primary key (the target's, else the
 * source's), a time column (by name: updated_at, modified_at,
 * last_modified, ... then created_at, then the first timestamp or date
 * column) and the columns both sides have.  A table without a key or a
 * time column is written commented out, with the reason.  The output,
 * unedited, is a valid job file; connection strings are written without
 * their passwords.
 *
 * Names are written as a user writes them in SQL (double-quoted when
 * needed), which a job file's value carries literally: every character but
 * a line break, since a value is one line (docs/jobs.md, "Names reckon init
 * cannot write").  A table, schema, key or time column whose name holds a
 * line break is written commented out with the reason, another column
 * holding one is left out of columns (and named in a comment); in a
 * comment, control characters are written as '?', so that whatever a name
 * holds, the output parses to exactly the sections init wrote.
 *
 * A side that is one table rather than a database (a Delta table: its
 * driver reads no named relation) is paired with the other side's table
 * that --table names; its columns and types come from the reader (the
 * Delta schema), its key from the other side.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/buf.h"
#include "core/keyspace.h"
#include "core/log.h"
#include "io/pg.h"
#include "io/pgident.h"
#include "io/reader.h"
#include "rk_sql.h"

/* Time column names in order of preference. */
static const char *const rk_init_time_names[] = {
	"updated_at",
	"modified_at",
	"last_modified",
	"last_updated",
	"updated",
	"modified",
	"changed_at",
	"updated_on",
	"modified_on",
	"created_at",
	"created",
	"inserted_at",
	"created_on",
	NULL,
};

typedef struct rk_init_col {
	char *name;
	char *declared;
	bool time;        /* timestamptz, timestamp or date */
	int key_position; /* 1-based place in the primary key, 0: none */
} rk_init_col;

typedef struct rk_init_table {
	char *name;
	rk_init_col *cols;
	size_t ncols;
} rk_init_table;

typedef struct rk_init_side {
	rk_init_table *tables;
	size_t n;
} rk_init_side;

static bool rk_init_is_time(const char *base)
{
	return !strcmp(base, "timestamp with time zone") || !strcmp(base, "timestamp without time zone") ||
	       !strcmp(base, "date");
}

/* Every table and view of schema, with its columns. */
static int rk_init_read(const char *conninfo, const char *what, const char *schema, rk_init_side *side,
                        rk_error *err)
{
	const char *params[1] = { schema };
	rk_pg_result *res = NULL;
	rk_pg *pg = rk_pg_connect(conninfo, what, err);
	int rows;

	memset(side, 0, sizeof *side);
	if (!pg)
		return -1;
	if (rk_pg_exec(pg, "list tables", rk_sql_init_tables, 1, params, RK_PG_ANY_ROWS, &res, err) < 0) {
		rk_pg_close(pg);
		return -1;
	}
	rows = rk_pg_result_rows(res);
	for (int i = 0; i < rows; i++) {
		const char *rel = rk_pg_result_value(res, i, 0);
		rk_init_table *t = side->n ? &side->tables[side->n - 1] : NULL;
		rk_init_col *c;

		if (!t || strcmp(t->name, rel) != 0) {
			side->tables = rk_xrealloc(side->tables, (side->n + 1) * sizeof *side->tables);
			t = &side->tables[side->n++];
			memset(t, 0, sizeof *t);
			t->name = rk_xstrdup(rel);
		}
		t->cols = rk_xrealloc(t->cols, (t->ncols + 1) * sizeof *t->cols);
		c = &t->cols[t->ncols++];
		c->name = rk_xstrdup(rk_pg_result_value(res, i, 1));
		c->declared = rk_xstrdup(rk_pg_result_value(res, i, 2));
		c->time = rk_init_is_time(rk_pg_result_value(res, i, 3));
		c->key_position = atoi(rk_pg_result_value(res, i, 4));
	}
	rk_log_info("%s schema %s: %zu relation%s", what, schema, side->n, side->n == 1 ? "" : "s");
	rk_pg_result_free(res);
	rk_pg_close(pg);
	return 0;
}

/* A side that is one table (conn names no database): that table, named
 * name, with the columns and types its reader gives. */
static int rk_init_read_one(const char *conn, const char *what, const char *name, rk_init_side *side,
                            rk_error *err)
{
	rk_reader_opts ro;
	rk_reader *r;
	char **names = NULL;
	rk_type *types = NULL;
	size_t n = 0;
	rk_init_table *t;
	int rc = -1;

	memset(side, 0, sizeof *side);
	memset(&ro, 0, sizeof ro);
	ro.side = what;
	ro.conn = conn;
	if (!(r = rk_reader_open(&ro, err)) || rk_reader_columns(r, &names, &n, err) < 0)
		goto done;
	types = rk_xcalloc(n ? n : 1, sizeof *types);
	if (n && rk_reader_bind(r, (const char *const *)names, n, types, err) < 0)
		goto done;
	side->tables = rk_xcalloc(1, sizeof *side->tables);
	side->n = 1;
	t = &side->tables[0];
	t->name = rk_xstrdup(name);
	t->cols = rk_xcalloc(n ? n : 1, sizeof *t->cols);
	t->ncols = n;
	for (size_t i = 0; i < n; i++) {
		t->cols[i].name = names[i];
		names[i] = NULL;
		t->cols[i].declared = rk_xstrdup(rk_type_name(types[i]));
		t->cols[i].time = rk_type_is_time(types[i]);
	}
	rk_log_info("%s: %zu columns", rk_reader_describe(r), n);
	rc = 0;
done:
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(types);
	rk_reader_free(r);
	return rc;
}

/* Keeps only the table named name of side s. */
static void rk_init_keep_only(rk_init_side *s, const char *name)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (!strcmp(s->tables[i].name, name)) {
			s->tables[k++] = s->tables[i];
			continue;
		}
		for (size_t c = 0; c < s->tables[i].ncols; c++) {
			free(s->tables[i].cols[c].name);
			free(s->tables[i].cols[c].declared);
		}
		free(s->tables[i].cols);
		free(s->tables[i].name);
	}
	s->n = k;
}

static void rk_init_side_free(rk_init_side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (size_t c = 0; c < s->tables[i].ncols; c++) {
			free(s->tables[i].cols[c].name);
			free(s->tables[i].cols[c].declared);
		}
		free(s->tables[i].cols);
		free(s->tables[i].name);
	}
	free(s->tables);
}

static const rk_init_col *rk_init_find(const rk_init_table *t, const char *name)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].name, name))
			return &t->cols[c];
	return NULL;
}

static const rk_init_table *rk_init_table_find(const rk_init_side *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->tables[i].name, name))
			return &s->tables[i];
	return NULL;
}

/* Appends a column or relation name as a user writes it (quoted only when
 * needed), for a list separated by commas. */
static void rk_init_name(rk_buf *b, const char *name)
{
	rk_pgident_display(b, name);
}

/* The primary key of t in key order, as a list; false when it has none or a
 * key column the other side lacks. */
static bool rk_init_key(const rk_init_table *t, const rk_init_table *other, rk_buf *out)
{
	int n = 0;

	for (int pos = 1;; pos++) {
		const rk_init_col *hit = NULL;

		for (size_t c = 0; c < t->ncols && !hit; c++)
			if (t->cols[c].key_position == pos)
				hit = &t->cols[c];
		if (!hit)
			break;
		if (!rk_init_find(other, hit->name))
			return false;
		if (n++)
			rk_buf_putc(out, ',');
		rk_init_name(out, hit->name);
	}
	return n > 0;
}

/* Whether a job file's value can carry name: a value is one line. */
static bool rk_init_carried(const char *name)
{
	return !strchr(name, '\n');
}

/* Whether the first column of kt's primary key has a type key segments
 * range over (core/keyspace.h) on both sides. */
static bool rk_init_segmentable(const rk_init_table *kt, const rk_init_table *s, const rk_init_table *t)
{
	const rk_init_col *first = NULL;

	for (size_t c = 0; c < kt->ncols && !first; c++)
		if (kt->cols[c].key_position == 1)
			first = &kt->cols[c];
	if (!first)
		return false;
	for (int side = 0; side < 2; side++) {
		const rk_init_col *col = rk_init_find(side ? t : s, first->name);
		rk_keyspace ks;
		rk_type ty;
		const char *why;

		if (!col || !col->declared || rk_type_from_name(col->declared, true, &ty) < 0 ||
		    rk_keyspace_init(&ks, ty, &why) < 0)
			return false;
	}
	return true;
}

/* The time column both sides have with a time type, by preference; one
 * whose name a job file cannot carry is not chosen. */
static const char *rk_init_time(const rk_init_table *s, const rk_init_table *t)
{
	for (int i = 0; rk_init_time_names[i]; i++) {
		const rk_init_col *a = rk_init_find(t, rk_init_time_names[i]), *b = rk_init_find(s, rk_init_time_names[i]);

		if (a && b && a->time && b->time)
			return a->name;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		const rk_init_col *b = rk_init_find(s, t->cols[c].name);

		if (t->cols[c].time && b && b->time && rk_init_carried(t->cols[c].name))
			return t->cols[c].name;
	}
	return NULL;
}

/* Writes one line: the comment prefix c ("" or "; "), then text.  In a
 * comment every control character is written as '?' (a line break would
 * end the comment); an active line never holds a line break (the names
 * in it are carried). */
static void rk_init_line(FILE *out, const char *c, const char *text)
{
	fputs(c, out);
	for (const char *p = text; *p; p++)
		fputc(*c && ((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p, out);
	fputc('\n', out);
}

/* A label from a table name: [A-Za-z0-9_.-], others replaced by '_'. */
static void rk_init_label(rk_buf *b, const char *name)
{
	for (const char *p = name; *p; p++) {
		char c = *p;

		rk_buf_putc(b, (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		                               c == '.' || c == '-'
		                       ? c
		                       : '_');
	}
}

typedef struct rk_init_labels {
	char **v;
	size_t n;
} rk_init_labels;

static bool rk_init_listed(const rk_init_labels *l, const char *label)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], label))
			return true;
	return false;
}

/* One table's section; commented out (with why) when it cannot be checked
 * as it is.  Returns whether it was written active. */
static bool rk_init_section(FILE *out, const char *ss, const char *ts, const rk_init_table *s, const rk_init_table *t,
                            rk_init_labels *labels)
{
	rk_buf key = RK_BUF_INIT, cols = RK_BUF_INIT, lab = RK_BUF_INIT, rel = RK_BUF_INIT, line = RK_BUF_INIT;
	rk_buf dropped = RK_BUF_INIT;
	const char *time = rk_init_time(s, t);
	const char *why = NULL, *c = "";
	bool key_ok = rk_init_key(t, s, &key);
	bool editable = true;        /* an edit of the section makes it checkable */
	const rk_init_table *kt = t; /* the side whose primary key is used */
	bool segments = false;       /* no time column: key segments */
	int ncommon = 0;

	if (!key_ok) {
		rk_buf_reset(&key);
		key_ok = rk_init_key(s, t, &key);
		kt = s;
	}
	for (size_t i = 0; i < t->ncols; i++) {
		if (!rk_init_find(s, t->cols[i].name))
			continue;
		if (!rk_init_carried(t->cols[i].name)) {
			/* checked without it; named in a comment */
			if (dropped.len)
				rk_buf_puts(&dropped, ", ");
			rk_init_name(&dropped, t->cols[i].name);
			continue;
		}
		if (ncommon++)
			rk_buf_putc(&cols, ',');
		rk_init_name(&cols, t->cols[i].name);
	}
	if (!rk_init_carried(ss) || !rk_init_carried(ts) || !rk_init_carried(t->name) ||
	    (key_ok && !rk_init_carried(rk_buf_cstr(&key))))
		editable = false;
	if (key_ok && !rk_init_carried(rk_buf_cstr(&key)))
		why = "a key column's name holds a line break, which a job file cannot carry: rename it to check the "
		      "table";
	else if (!editable)
		why = "its name (or its schema's) holds a line break, which a job file cannot carry: rename it to "
		      "check it";
	else if (!key_ok)
		why = "no primary key on either side: name its key columns";
	else if (!time && !(segments = rk_init_segmentable(kt, s, t)))
		why = "no timestamp or date column on both sides, and its first key column is of a type key segments "
		      "cannot range over: name the time column";
	rk_init_label(&lab, t->name);
	/* labels are unique: two names may map to one label */
	for (int n = 2; rk_init_listed(labels, rk_buf_cstr(&lab)); n++) {
		rk_buf_reset(&lab);
		rk_init_label(&lab, t->name);
		rk_buf_printf(&lab, "_%d", n);
	}
	labels->v = rk_xrealloc(labels->v, (labels->n + 1) * sizeof *labels->v);
	labels->v[labels->n++] = rk_xstrdup(rk_buf_cstr(&lab));
	fputc('\n', out);
	if (why) {
		rk_buf_printf(&line, "[table %s] is left out: %s", rk_buf_cstr(&lab), why);
		if (editable)
			rk_buf_puts(&line, ", then remove the '; '");
		rk_init_line(out, "; ", rk_buf_cstr(&line));
		c = "; ";
	}
	if (dropped.len) {
		rk_buf_reset(&line);
		rk_buf_printf(&line, "not in columns: %s (a name holding a line break, which a job file cannot carry)",
		              rk_buf_cstr(&dropped));
		rk_init_line(out, "; ", rk_buf_cstr(&line));
	}
	rk_buf_reset(&line);
	rk_buf_printf(&line, "[table %s]", rk_buf_cstr(&lab));
	rk_init_line(out, c, rk_buf_cstr(&line));
	if (!strcmp(ss, ts)) {
		rk_buf_puts(&rel, "table = ");
		rk_init_name(&rel, ts);
		rk_buf_putc(&rel, '.');
		rk_init_name(&rel, t->name);
		rk_init_line(out, c, rk_buf_cstr(&rel));
	} else {
		rk_buf_puts(&rel, "source-table = ");
		rk_init_name(&rel, ss);
		rk_buf_putc(&rel, '.');
		rk_init_name(&rel, s->name);
		rk_init_line(out, c, rk_buf_cstr(&rel));
		rk_buf_reset(&rel);
		rk_buf_puts(&rel, "target-table = ");
		rk_init_name(&rel, ts);
		rk_buf_putc(&rel, '.');
		rk_init_name(&rel, t->name);
		rk_init_line(out, c, rk_buf_cstr(&rel));
	}
	rk_buf_reset(&line);
	rk_buf_printf(&line, "key = %s", key_ok ? rk_buf_cstr(&key) : "COLS");
	rk_init_line(out, c, rk_buf_cstr(&line));
	rk_buf_reset(&rel);
	if (segments) {
		rk_init_line(out, "; ", "no time column: checked by key segments of its first key column "
		                        "(docs/key-segments.md)");
	} else {
		rk_buf_puts(&rel, "time = ");
		if (time)
			rk_init_name(&rel, time);
		else
			rk_buf_puts(&rel, "COL");
		rk_init_line(out, c, rk_buf_cstr(&rel));
	}
	rk_buf_reset(&line);
	rk_buf_printf(&line, "columns = %s", rk_buf_cstr(&cols));
	rk_init_line(out, c, rk_buf_cstr(&line));
	rk_buf_free(&key);
	rk_buf_free(&cols);
	rk_buf_free(&lab);
	rk_buf_free(&rel);
	rk_buf_free(&line);
	rk_buf_free(&dropped);
	return why == NULL;
}

/* Reads both sides' tables: a PostgreSQL side's schema (ss, ts), a file
 * side's one table (--table, which it needs); their connections as the
 * job file writes them (no password) into src and tgt.  0 or -1 with err. */
static int rk_init_sides(const rk_opts *o, const char *ss, const char *ts, rk_init_side side[2], rk_buf *src,
                         rk_buf *tgt, rk_error *err)
{
	for (int s = 0; s < 2; s++) {
		const char *conn = s ? o->target : o->source, *what = s ? "target" : "source";
		rk_buf *pub = s ? tgt : src;

		if (rk_conn_has(conn, RK_CAP_RELATION)) {
			if (rk_pg_conninfo_public(conn, pub, err) < 0 || rk_init_read(conn, what, s ? ts : ss, &side[s], err) < 0)
				return -1;
			continue;
		}
		if (!o->table) {
			rk_error_set(err, RK_EXIT_USAGE, "the %s is %s (%s): give --table NAME, the table of the other side "
			                                 "to check it against",
			             what, rk_conn_noun(conn), conn);
			return rk_error_hint(err, "e.g. reckon init --source 'service=oltp' --target delta:/lake/orders --table orders");
		}
		rk_buf_puts(pub, conn); /* a path: no password */
		if (rk_init_read_one(conn, what, o->table, &side[s], err) < 0)
			return -1;
	}
	return 0;
}

/* The source tables without a namesake on the target, named in a comment
 * of the job file, so that a renamed pair is one edit away. */
static void rk_init_unpaired(const rk_init_side side[2])
{
	rk_buf name = RK_BUF_INIT;
	size_t skipped = 0;

	for (size_t i = 0; i < side[0].n; i++)
		if (!rk_init_table_find(&side[1], side[0].tables[i].name))
			skipped++;
	if (!skipped)
		return;
	printf("\n; %zu source table%s without a namesake on the target %s not listed; to check one,\n"
	       "; add a [table LABEL] section with source-table = NAME and target-table = its target:\n",
	       skipped, skipped == 1 ? "" : "s", skipped == 1 ? "is" : "are");
	for (size_t i = 0; i < side[0].n; i++) {
		if (rk_init_table_find(&side[1], side[0].tables[i].name))
			continue;
		rk_buf_reset(&name);
		rk_init_name(&name, side[0].tables[i].name);
		/* a comment is one line, whatever the name holds */
		for (size_t k = 0; k < name.len; k++)
			if ((unsigned char)name.data[k] < 0x20 || name.data[k] == 0x7f)
				name.data[k] = '?';
		printf(";   %s\n", rk_buf_cstr(&name));
	}
	rk_buf_free(&name);
}

int rk_cmd_init(int argc, char **argv)
{
	rk_opts o;
	rk_error err;
	rk_init_side side[2];
	rk_buf src = RK_BUF_INIT, tgt = RK_BUF_INIT, name = RK_BUF_INIT;
	rk_init_labels labels = { NULL, 0 };
	const char *ss, *ts;
	char when[RK_TIME_STRLEN], w[RK_TIME_STRLEN], l[RK_TIME_STRLEN];
	size_t paired = 0, active = 0;
	int status = RK_EXIT_OK;

	memset(side, 0, sizeof side);
	rk_error_clear(&err);
	switch (rk_opts_start(&o, RK_CMD_INIT, argc, argv,
	                      "reckon init writes the job file to stdout: reckon init ... > nightly.ini", &err)) {
	case -1: goto fail;
	case 0: goto done;
	default: break;
	}
	if (o.schema && (o.source_schema || o.target_schema)) {
		rk_error_set(&err, RK_EXIT_USAGE, "option --schema excludes --source-schema and --target-schema");
		rk_error_hint(&err, "give --schema S for both sides, or --source-schema S --target-schema T");
		goto fail;
	}
	ss = o.source_schema ? o.source_schema : o.schema ? o.schema
	                                                  : "public";
	ts = o.target_schema ? o.target_schema : o.schema ? o.schema
	                                                  : "public";
	if (rk_init_sides(&o, ss, ts, side, &src, &tgt, &err) < 0)
		goto fail;
	if (o.table)
		for (int s = 0; s < 2; s++)
			rk_init_keep_only(&side[s], o.table);
	if (!o.window)
		o.window = 3600 * RK_USEC_PER_SEC;
	if (o.window < 0) {
		rk_error_set(&err, RK_EXIT_USAGE, "--window %s: reckon init writes fixed windows", o.text[RK_O_WINDOW]);
		rk_error_hint(&err, "write window = 1mo and timezone = ZONE into the job file's [defaults] afterwards");
		goto fail;
	}

	printf("; reckon job file, written by reckon init on %s\n", rk_time_format(rk_time_now(), when));
	rk_buf_printf(&name, "the tables of schema %s on the source and %s on the target that have the same name", ss,
	              ts);
	rk_init_line(stdout, "; ", rk_buf_cstr(&name));
	printf("; passwords are not written here: give them in ~/.pgpass or a service file\n");
	printf("; run it:  reckon check --job FILE --report DIR\n\n");
	printf("[defaults]\nsource = %s\ntarget = %s\n", rk_buf_cstr(&src), rk_buf_cstr(&tgt));
	printf("window = %s\nlast = %s\nsettle = 10m\n", rk_duration_format(o.window, w),
	       rk_duration_format(24 * o.window, l));
	for (size_t i = 0; i < side[1].n; i++) {
		const rk_init_table *t = &side[1].tables[i], *s = rk_init_table_find(&side[0], t->name);

		if (!s)
			continue;
		active += rk_init_section(stdout, ss, ts, s, t, &labels);
		paired++;
	}
	if (!paired)
		printf("\n; no table of the source has a namesake on the target: add [table LABEL] sections by hand\n");
	rk_init_unpaired(side);
	if (fflush(stdout) != 0) {
		rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to standard output");
		goto fail;
	}
	rk_log_info("%zu table%s paired, %zu ready to check", paired, paired == 1 ? "" : "s", active);
	if (!active) {
		/* what was written is a start, not yet a job file */
		rk_error_set(&err, RK_EXIT_USAGE, "no table of schema %s and %s can be checked as it is (%zu with a namesake, "
		                                  "%zu left out)",
		             ss, ts, paired, paired - active);
		rk_error_hint(&err, "complete the sections left out (key, time), or point --schema at the tables");
		goto fail;
	}
	goto done;
fail:
	rk_log_error(&err);
	status = err.code ? err.code : RK_EXIT_RUNTIME;
done:
	rk_init_side_free(&side[0]);
	rk_init_side_free(&side[1]);
	rk_buf_free(&src);
	rk_buf_free(&tgt);
	rk_buf_free(&name);
	for (size_t i = 0; i < labels.n; i++)
		free(labels.v[i]);
	free(labels.v);
	rk_opts_free(&o);
	return status;
}
