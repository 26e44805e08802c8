/*
 * audit.c - the audit trail (--audit): a check run with its windows and its
 * findings, or a repair run with its intervals, recorded in schema "reckon"
 * of a PostgreSQL database (docs/audit.md).
 *
 * Two transactions at most.  The first, only when the schema is missing or
 * older than this reckon, applies the migrations under an advisory lock, so
 * that concurrent first runs do not race on CREATE ... IF NOT EXISTS.  The
 * second records the run: INSERT of the run row RETURNING its id, then the
 * windows and the findings (check) or the intervals (repair) streamed with
 * COPY FROM STDIN (escaped values, never SQL text), then COMMIT.  Any
 * failure leaves nothing recorded.
 *
 * All windows of the range are recorded, open ones too (status 'open',
 * digests and counts NULL), so the history shows when a window closed.
 * Likewise every interval of a repair's list, reached or not.
 */
#include "report/audit.h"

#include <assert.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "core/buf.h"
#include "core/log.h"
#include "io/copytext.h"
#include "io/pg.h"
#include "io/reader.h"
#include "core/text.h"
#include "rk_sql.h"

#ifndef RK_VERSION
#define RK_VERSION "unknown"
#endif

/* The migrations, in order; the last one is the version this reckon writes.
 * A later schema change adds sql/audit_migrate_<N>.sql here: one statement
 * (a DO block when it takes several) that ends by inserting its version
 * into reckon.schema_version. */
static const struct {
	int version;
	const char *sql;
} rk_audit_migrations[] = {
	{ 1, rk_sql_audit_schema },
	{ 2, rk_sql_audit_migrate_2 },
	{ 3, rk_sql_audit_migrate_3 },
	{ 4, rk_sql_audit_migrate_4 },
};
#define RK_AUDIT_NMIGRATIONS (sizeof rk_audit_migrations / sizeof rk_audit_migrations[0])
#define RK_AUDIT_VERSION (rk_audit_migrations[RK_AUDIT_NMIGRATIONS - 1].version)

#define RK_AUDIT_RUN_NPARAMS 36
#define RK_AUDIT_REPAIR_NPARAMS 16
#define RK_AUDIT_MAX_PARAMS RK_AUDIT_RUN_NPARAMS
_Static_assert(RK_AUDIT_REPAIR_NPARAMS <= RK_AUDIT_MAX_PARAMS, "rk_audit_params too small for a repair run");
#define RK_AUDIT_COPY_CHUNK (64 * 1024)

/*
 * reckon.run.started_at is the time the process started: a reckon process
 * runs one command, and this way the command's entry point need not pass
 * the time along.  Without constructor support it is the recording time.
 */
static rk_usec rk_audit_t0;

#if defined(__GNUC__)
__attribute__((constructor)) static void rk_audit_clock_start(void)
{
	rk_audit_t0 = rk_time_now();
}
#endif

/* ------------------------------------------------------------------------
 * Text helpers
 * ---------------------------------------------------------------------- */

/*
 * s as valid UTF-8: invalid bytes become U+FFFD.  A CSV side may hold bytes
 * that are no text in UTF-8; the audit database would refuse them, and
 * losing one run's audit over one bad byte of one key helps nobody.
 * Returns s itself when it is valid, else a new string stored in *own
 * (caller frees *own).
 */
static const char *rk_audit_utf8(const char *s, char **own)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, l;
	rk_buf b = RK_BUF_INIT;

	*own = NULL;
	while (i < n && (l = rk_utf8_seq_len(p + i, n - i)) > 0)
		i += l;
	if (i == n)
		return s;
	rk_buf_append(&b, s, i);
	while (i < n) {
		l = rk_utf8_seq_len(p + i, n - i);
		if (l) {
			rk_buf_append(&b, s + i, l);
			i += l;
		} else {
			rk_buf_puts(&b, "\xEF\xBF\xBD");
			i++;
		}
	}
	rk_buf_cstr(&b);
	*own = b.data;
	return b.data;
}

/* A new copy of s as valid UTF-8 (see rk_audit_utf8); caller frees. */
static char *rk_audit_text(const char *s)
{
	char *own;
	const char *v = rk_audit_utf8(s, &own);

	return own ? own : rk_xstrdup(v);
}

static json_t *rk_audit_json_string(const char *s)
{
	char *own;
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(rk_audit_utf8(s, &own));
	free(own);
	return j ? j : json_null();
}

/* Compact JSON text of j (consumed); caller frees. */
static char *rk_audit_json_dump(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);

	json_decref(j);
	if (!s) {
		fprintf(stderr, "reckon: out of memory\n");
		abort();
	}
	return s;
}

/* A conninfo for the record: passwords masked; "csv:PATH" as it is. */
static char *rk_audit_conn(const char *conn)
{
	size_t sz;
	char *out;

	if (!conn)
		return NULL;
	if (!rk_conn_has(conn, RK_CAP_LIBPQ))
		return rk_xstrdup(conn); /* a path, no password */
	/* a mask of 8 bytes replaces a value of at least "password=" */
	sz = 2 * strlen(conn) + 16;
	out = rk_xmalloc(sz);
	rk_pg_redact(conn, out, sz);
	return out;
}

/* ------------------------------------------------------------------------
 * What is recorded
 * ---------------------------------------------------------------------- */

/* The options of the run as the user gave them (command line and files),
 * by long option name: a list as an array, a flag as a boolean, every
 * connection string redacted. */
static char *rk_audit_options_json(const rk_audit_options *o)
{
	json_t *j = json_object();

	for (size_t i = 0; i < o->n; i++) {
		const rk_audit_option *op = &o->v[i];
		json_t *val;

		if (op->flag >= 0) {
			val = json_boolean(op->flag);
		} else if (op->items) {
			val = json_array();
			for (size_t k = 0; k < op->nitems; k++)
				json_array_append_new(val, rk_audit_json_string(op->items[k]));
		} else if (op->conn) {
			char *red = rk_audit_conn(op->value);

			val = rk_audit_json_string(red);
			free(red);
		} else {
			val = rk_audit_json_string(op->value);
		}
		json_object_set_new(j, op->key, val);
	}
	return rk_audit_json_dump(j);
}

static char *rk_audit_names(const char *const *names, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, rk_audit_json_string(names[i]));
	return rk_audit_json_dump(a);
}

/* The relation a side names, or its "csv:PATH" (never a conninfo). */
static const char *rk_audit_relation(const rk_reader_opts *side)
{
	if (side->table)
		return side->table;
	if (!rk_conn_has(side->conn, RK_CAP_LIBPQ))
		return side->conn;
	return NULL;
}

typedef struct rk_audit_params {
	const char *v[RK_AUDIT_MAX_PARAMS];
	char text[RK_AUDIT_MAX_PARAMS][48];
	int n;
} rk_audit_params;

static void rk_ap_str(rk_audit_params *p, const char *s)
{
	assert(p->n < RK_AUDIT_MAX_PARAMS);
	p->v[p->n++] = s;
}

static void rk_ap_u64(rk_audit_params *p, uint64_t x)
{
	assert(p->n < RK_AUDIT_MAX_PARAMS);
	snprintf(p->text[p->n], sizeof p->text[0], "%" PRIu64, x);
	p->v[p->n] = p->text[p->n];
	p->n++;
}

static void rk_ap_time(rk_audit_params *p, rk_usec t)
{
	assert(p->n < RK_AUDIT_MAX_PARAMS);
	p->v[p->n] = rk_time_format(t, p->text[p->n]);
	p->n++;
}

/* Who recorded a run, from where; the strings are owned. */
typedef struct rk_audit_who {
	char *os_user, *login_user, *host_name;
} rk_audit_who;

static void rk_audit_who_free(rk_audit_who *w)
{
	free(w->os_user);
	free(w->login_user);
	free(w->host_name);
}

/* Appends started_at, finished_at, os_user, login_user, host_name and
 * reckon_version, the first columns of every run row; the user and host
 * names are kept in w until the statement has run. */
static void rk_ap_who(rk_audit_params *p, rk_audit_who *w)
{
	struct passwd *pw = getpwuid(geteuid());
	const char *login = getlogin();
	char host[256];

	memset(w, 0, sizeof *w);
	if (gethostname(host, sizeof host) != 0)
		host[0] = '\0';
	host[sizeof host - 1] = '\0';
	w->os_user = pw && pw->pw_name ? rk_audit_text(pw->pw_name) : NULL;
	w->login_user = login ? rk_audit_text(login) : NULL;
	w->host_name = host[0] ? rk_audit_text(host) : NULL;
	rk_ap_time(p, rk_audit_t0 ? rk_audit_t0 : rk_time_now());
	rk_ap_time(p, rk_time_now());
	rk_ap_str(p, w->os_user);
	rk_ap_str(p, w->login_user);
	rk_ap_str(p, w->host_name);
	rk_ap_str(p, RK_VERSION);
}

/* An exact interval: microseconds, never calendar days. */
static void rk_ap_duration(rk_audit_params *p, rk_usec d)
{
	assert(p->n < RK_AUDIT_MAX_PARAMS);
	snprintf(p->text[p->n], sizeof p->text[0], "%" PRId64 " microseconds", d);
	p->v[p->n] = p->text[p->n];
	p->n++;
}

/* A window's width as an interval: calendar months (a width of -N, as
 * --window Nmo keeps them) as months, not as negative microseconds. */
static void rk_ap_window(rk_audit_params *p, rk_usec w)
{
	if (w >= 0) {
		rk_ap_duration(p, w);
		return;
	}
	assert(p->n < RK_AUDIT_MAX_PARAMS);
	snprintf(p->text[p->n], sizeof p->text[0], "%" PRId64 " mons", -w);
	p->v[p->n] = p->text[p->n];
	p->n++;
}

/* ------------------------------------------------------------------------
 * Schema
 * ---------------------------------------------------------------------- */

static int rk_audit_version(rk_pg *pg, int *version, rk_error *err)
{
	rk_pg_result *res = NULL;
	const char *v;
	bool exists;

	if (rk_pg_exec(pg, "audit schema lookup", rk_sql_audit_schema_exists, 0, NULL, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	v = rk_pg_result_value(res, 0, 0);
	exists = v && !strcmp(v, "t");
	rk_pg_result_free(res);
	*version = 0;
	if (!exists)
		return 0;
	if (rk_pg_exec(pg, "audit schema version", rk_sql_audit_schema_version, 0, NULL, RK_PG_ONE_ROW, &res, err) <
	    0)
		return -1;
	v = rk_pg_result_value(res, 0, 0);
	*version = v ? atoi(v) : 0;
	rk_pg_result_free(res);
	return 0;
}

static void rk_audit_rollback(rk_pg *pg)
{
	rk_error ignored;

	rk_error_clear(&ignored);
	if (rk_pg_command(pg, "audit rollback", rk_sql_audit_rollback, &ignored) < 0)
		rk_log_debug("%s", ignored.msg);
}

static int rk_audit_newer(rk_pg *pg, int version, rk_error *err)
{
	rk_error_set(err, RK_EXIT_RUNTIME,
	             "audit schema 'reckon' on '%s' is at version %d, newer than this reckon %s knows (%d)",
	             rk_pg_describe(pg), version, RK_VERSION, RK_AUDIT_VERSION);
	return rk_error_hint(err, "upgrade reckon, or record into another --audit database");
}

/* Brings the schema up to RK_AUDIT_VERSION (nothing to do most runs). */
static int rk_audit_migrate(rk_pg *pg, rk_error *err)
{
	int version;

	if (rk_audit_version(pg, &version, err) < 0)
		return -1;
	if (version == RK_AUDIT_VERSION)
		return 0;
	if (version > RK_AUDIT_VERSION)
		return rk_audit_newer(pg, version, err);
	if (rk_pg_command(pg, "audit migration begin", rk_sql_audit_begin, err) < 0)
		return -1;
	if (rk_pg_exec(pg, "audit migration quiet", rk_sql_audit_quiet, 0, NULL, RK_PG_ONE_ROW, NULL, err) < 0 ||
	    rk_pg_exec(pg, "audit migration lock", rk_sql_audit_migrate_lock, 0, NULL, RK_PG_ONE_ROW, NULL, err) < 0 ||
	    /* another run may have migrated while we waited for the lock */
	    rk_audit_version(pg, &version, err) < 0)
		goto fail;
	if (version > RK_AUDIT_VERSION) {
		rk_audit_newer(pg, version, err);
		goto fail;
	}
	for (size_t i = 0; i < RK_AUDIT_NMIGRATIONS; i++) {
		char label[64];

		if (rk_audit_migrations[i].version <= version)
			continue;
		snprintf(label, sizeof label, "audit schema migration %d", rk_audit_migrations[i].version);
		rk_log_info("applying %s on %s", label, rk_pg_describe(pg));
		if (rk_pg_command(pg, label, rk_audit_migrations[i].sql, err) < 0) {
			if (!strcmp(err->sqlstate, "42501") && !err->hint[0])
				rk_error_hint(err, "the first run creates schema reckon and needs CREATE on the database, "
				                   "an upgrade needs to own its tables; or have its owner run "
				                   "sql/audit_schema.sql and sql/audit_migrate_*.sql once and grant this "
				                   "role USAGE on schema reckon and INSERT, SELECT on its tables and "
				                   "sequences");
			goto fail;
		}
	}
	return rk_pg_command(pg, "audit migration commit", rk_sql_audit_commit, err);
fail:
	rk_audit_rollback(pg);
	return -1;
}

/* ------------------------------------------------------------------------
 * Recording
 * ---------------------------------------------------------------------- */

static int rk_audit_insert_run(rk_pg *pg, const rk_audit_options *o, const rk_report_ctx *c,
                               const rk_check_result *r, char *run_id, size_t run_id_sz, rk_error *err)
{
	const rk_check_spec *spec = c->spec;
	rk_audit_params p;
	rk_audit_who who;
	rk_pg_result *res = NULL;
	char *options = rk_audit_options_json(o);
	char *keys = rk_audit_names(c->key_names, r->nkey);
	char *sums = rk_audit_names(c->sum_names, spec->nsum);
	char *src = NULL, *tgt = NULL, *own[2] = { NULL };
	size_t count[3] = { 0, 0, 0 };
	const char *v;
	int rc = -1;

	for (size_t w = 0; w < r->nwindows; w++)
		count[r->status[w]]++;

	memset(&p, 0, sizeof p);
	rk_ap_str(&p, "check");
	rk_ap_who(&p, &who);
	rk_ap_str(&p, options);
	/* the readers' descriptions never hold a password */
	rk_ap_str(&p, r->side[0].describe ? rk_audit_utf8(r->side[0].describe, &own[0]) : NULL);
	rk_ap_str(&p, r->side[1].describe ? rk_audit_utf8(r->side[1].describe, &own[1]) : NULL);
	src = rk_audit_conn(rk_audit_relation(&spec->source));
	tgt = rk_audit_conn(rk_audit_relation(&spec->target));
	rk_ap_str(&p, src);
	rk_ap_str(&p, tgt);
	rk_ap_str(&p, keys);
	rk_ap_str(&p, sums);
	rk_ap_time(&p, spec->from);
	rk_ap_time(&p, spec->to);
	rk_ap_window(&p, spec->width);
	rk_ap_time(&p, spec->now);
	rk_ap_duration(&p, spec->settle);
	rk_ap_str(&p, r->differ ? "differ" : "match");
	rk_ap_u64(&p, r->nclosed);
	rk_ap_u64(&p, count[RK_WIN_MATCH]);
	rk_ap_u64(&p, count[RK_WIN_DIFFER]);
	rk_ap_u64(&p, count[RK_WIN_OPEN]);
	for (int k = 0; k < RK_FIND_NKINDS; k++)
		rk_ap_u64(&p, r->kind_count[k]);
	rk_ap_u64(&p, r->side[0].total);
	rk_ap_u64(&p, r->side[1].total);
	rk_ap_u64(&p, r->side[0].null_time);
	rk_ap_u64(&p, r->side[1].null_time);
	if (r->has_watermark) {
		rk_ap_time(&p, r->watermark);
		rk_ap_u64(&p, r->behind_watermark_missing);
	} else {
		rk_ap_str(&p, NULL);
		rk_ap_str(&p, NULL);
	}
	/* what cmd_check returns for this result */
	rk_ap_u64(&p, r->differ ? RK_EXIT_DIFFER : RK_EXIT_OK);
	assert(p.n == RK_AUDIT_RUN_NPARAMS);

	if (rk_pg_exec(pg, "audit insert run", rk_sql_audit_insert_run, p.n, p.v, RK_PG_ONE_ROW, &res, err) < 0)
		goto done;
	v = rk_pg_result_value(res, 0, 0);
	snprintf(run_id, run_id_sz, "%s", v ? v : "");
	rc = 0;
done:
	rk_pg_result_free(res);
	rk_audit_who_free(&who);
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		free(own[i]);
	free(src);
	free(tgt);
	free(options);
	free(keys);
	free(sums);
	return rc;
}

/* Sends what b holds once it is large; everything when all is set. */
static int rk_audit_copy_flush(rk_pg *pg, rk_buf *b, bool all, rk_error *err)
{
	if (b->len == 0 || (!all && b->len < RK_AUDIT_COPY_CHUNK))
		return 0;
	if (rk_pg_copy_in_put(pg, b->data, b->len, err) < 0)
		return -1;
	rk_buf_reset(b);
	return 0;
}

/*
 * Ends a COPY FROM STDIN whose rows were built in b: when the rows were all
 * built (ok), sends what is left and finishes the COPY; otherwise aborts it
 * (the server discards everything).  Frees b either way.
 */
static int rk_audit_copy_finish(rk_pg *pg, rk_buf *b, bool ok, const char *what, rk_error *err)
{
	if (ok && rk_audit_copy_flush(pg, b, true, err) < 0)
		ok = false;
	rk_buf_free(b);
	if (ok)
		return rk_pg_copy_in_end(pg, err);
	rk_pg_copy_in_abort(pg, what);
	return -1;
}

static int rk_audit_copy_windows(rk_pg *pg, const rk_report_ctx *c, const rk_check_result *r, const char *run_id,
                                 rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	char t[RK_TIME_STRLEN];
	int rc = -1;

	if (rk_pg_copy_in_begin(pg, "audit copy windows", rk_sql_audit_copy_window, err) < 0)
		return -1;
	for (size_t w = 0; w < r->nwindows; w++) {
		rk_usec start = rk_check_window_start(r, w);
		bool open = r->status[w] == RK_WIN_OPEN;

		rk_buf_printf(&b, "%s\t", run_id);
		rk_buf_printf(&b, "%s\t", rk_time_format(start, t));
		rk_buf_printf(&b, "%s\t", rk_time_format(rk_check_window_end(r, w), t));
		rk_buf_puts(&b, open ? "open" : r->status[w] == RK_WIN_MATCH ? "match"
		                                                             : "differ");
		if (open) {
			/* rows, hashes, sums, five kinds: unknown while the window is open */
			for (int i = 0; i < 10; i++)
				rk_buf_puts(&b, "\t\\N");
		} else {
			json_t *sums = json_object();
			char *text;

			rk_buf_printf(&b, "\t%" PRIu64 "\t%" PRIu64, r->side[0].rows[w], r->side[1].rows[w]);
			for (int s = 0; s < 2; s++) {
				char hex[33];

				rk_hash_hex(r->side[s].hash[w], hex);
				rk_buf_printf(&b, "\t%s", hex);
			}
			for (size_t i = 0; i < r->nsum; i++) {
				json_t *pair = json_object();
				char sum[RK_SUM_STRLEN];

				for (int s = 0; s < 2; s++)
					json_object_set_new(pair, s ? "target" : "source",
					                    json_string(rk_sum_format(&r->side[s].sums[w * r->nsum + i], sum)));
				{
					char *own;

					json_object_set_new(sums, rk_audit_utf8(c->sum_names[i], &own), pair);
					free(own);
				}
			}
			text = rk_audit_json_dump(sums);
			rk_buf_putc(&b, '\t');
			rk_copytext_put(&b, text, strlen(text));
			free(text);
			for (int k = 0; k < RK_FIND_NKINDS; k++)
				rk_buf_printf(&b, "\t%" PRIu32, r->win_kind[w][k]);
		}
		rk_buf_putc(&b, '\n');
		if (rk_audit_copy_flush(pg, &b, false, err) < 0)
			goto done;
	}
	rc = 0;
done:
	return rk_audit_copy_finish(pg, &b, rc == 0, "reckon could not send the windows", err);
}

/* True when v must be quoted in key_text to read back unambiguously. */
static bool rk_audit_key_needs_quotes(const char *v)
{
	size_t n = strlen(v);

	return n == 0 || strpbrk(v, ",=\"") != NULL || v[0] == ' ' || v[n - 1] == ' ' || !strcasecmp(v, "NULL");
}

/* key_text of a finding: "order_id=3, line_no=2"; NULL for SQL NULL, a
 * value quoted ("...", inner quotes doubled) when it could be misread. */
static void rk_audit_key_text(rk_buf *out, const rk_report_ctx *c, const rk_finding *f, size_t nkey)
{
	rk_buf_reset(out);
	for (size_t k = 0; k < nkey; k++) {
		const char *v = f->key[k];

		if (k)
			rk_buf_puts(out, ", ");
		rk_buf_printf(out, "%s=", c->key_names[k]);
		if (!v) {
			rk_buf_puts(out, "NULL");
		} else if (!rk_audit_key_needs_quotes(v)) {
			rk_buf_puts(out, v);
		} else {
			rk_buf_putc(out, '"');
			for (; *v; v++) {
				if (*v == '"')
					rk_buf_putc(out, '"');
				rk_buf_putc(out, *v);
			}
			rk_buf_putc(out, '"');
		}
	}
	rk_buf_cstr(out);
}

static int rk_audit_copy_findings(rk_pg *pg, const rk_report_ctx *c, const rk_check_result *r, const char *run_id,
                                  rk_error *err)
{
	rk_buf b = RK_BUF_INIT, kt = RK_BUF_INIT;
	char t[RK_TIME_STRLEN];
	const rk_finding *f;
	rk_fwalk fw;
	int rc = -1;

	if (r->nfindings == 0)
		return 0;
	if (rk_pg_copy_in_begin(pg, "audit copy findings", rk_sql_audit_copy_finding, err) < 0)
		return -1;
	rk_fwalk_start(&fw, r);
	while ((f = rk_fwalk_next(&fw, NULL)) != NULL) {
		rk_usec start = rk_check_window_start(r, f->window);
		json_t *key = json_array();
		char *text, *own;
		const char *key_text;

		rk_buf_printf(&b, "%s\t", run_id);
		rk_buf_printf(&b, "%s\t", rk_time_format(start, t));
		rk_buf_printf(&b, "%s\t", rk_time_format(rk_check_window_end(r, f->window), t));
		rk_buf_printf(&b, "%s\t", rk_find_kind_name(f->kind));
		for (size_t k = 0; k < r->nkey; k++)
			json_array_append_new(key, rk_audit_json_string(f->key[k]));
		text = rk_audit_json_dump(key);
		rk_copytext_put(&b, text, strlen(text));
		free(text);
		rk_buf_putc(&b, '\t');
		rk_audit_key_text(&kt, c, f, r->nkey);
		key_text = rk_audit_utf8(kt.data, &own);
		rk_copytext_put(&b, key_text, strlen(key_text));
		free(own);
		rk_buf_printf(&b, "\t%" PRIu32 "\t%" PRIu32 "\t", f->source_copies, f->target_copies);
		if (f->source_time == RK_USEC_NINF)
			rk_buf_puts(&b, "\\N");
		else
			rk_buf_puts(&b, rk_time_format(f->source_time, t));
		rk_buf_putc(&b, '\n');
		if (rk_audit_copy_flush(pg, &b, false, err) < 0)
			goto done;
	}
	/* a failed read aborts the COPY: none of the run is recorded */
	if (rk_fwalk_end(&fw, err) < 0)
		goto done;
	rc = 0;
done:
	rk_buf_free(&kt);
	return rk_audit_copy_finish(pg, &b, rc == 0, "reckon could not send the findings", err);
}

/* Connects and brings the schema up to date; the caller closes. */
static rk_pg *rk_audit_open(const char *conninfo, rk_error *err)
{
	rk_pg *pg = rk_pg_connect(conninfo, "audit", err);

	if (pg && rk_audit_migrate(pg, err) < 0) {
		rk_pg_close(pg);
		return NULL;
	}
	return pg;
}

int rk_audit_prepare(const char *conninfo, rk_error *err)
{
	rk_pg *pg = rk_audit_open(conninfo, err);

	if (!pg)
		return rk_error_prefix(err, "cannot use the audit database");
	rk_pg_close(pg);
	return 0;
}

int rk_audit_record_check(const char *conninfo, const rk_audit_options *o, const rk_report_ctx *c,
                          const rk_check_result *r,
                          rk_error *err)
{
	rk_pg *pg;
	char run_id[32];

	pg = rk_pg_connect(conninfo, "audit", err);
	if (!pg)
		return -1;
	if (rk_audit_migrate(pg, err) < 0)
		goto fail;
	if (rk_pg_command(pg, "audit begin", rk_sql_audit_begin, err) < 0)
		goto fail;
	if (rk_audit_insert_run(pg, o, c, r, run_id, sizeof run_id, err) < 0 ||
	    rk_audit_copy_windows(pg, c, r, run_id, err) < 0 || rk_audit_copy_findings(pg, c, r, run_id, err) < 0 ||
	    rk_pg_command(pg, "audit commit", rk_sql_audit_commit, err) < 0) {
		rk_audit_rollback(pg);
		goto fail;
	}
	rk_log_info("recorded run %s (%zu windows, %zu findings) on %s", run_id, r->nwindows, r->nfindings,
	            rk_pg_describe(pg));
	rk_pg_close(pg);
	return 0;
fail:
	/* nothing was recorded: the transaction, if any, rolled back */
	rk_error_prefix(err, "cannot record the run in the audit database");
	rk_pg_close(pg);
	return -1;
}

/* ------------------------------------------------------------------------
 * Repairs
 * ---------------------------------------------------------------------- */

/* A JSON array of the column names as written, unquoted. */
static char *rk_audit_column_names(const char *const *written, size_t n)
{
	char **names = rk_xcalloc(n ? n : 1, sizeof *names);
	char *json;

	for (size_t i = 0; i < n; i++)
		names[i] = rk_ident_unquote(written[i]);
	json = rk_audit_names((const char *const *)names, n);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return json;
}

static int rk_audit_insert_repair_run(rk_pg *pg, const rk_audit_options *o, const rk_audit_repair *r,
                                      char *run_id, size_t run_id_sz, rk_error *err)
{
	rk_audit_params p;
	rk_audit_who who;
	rk_pg_result *res = NULL;
	char *options = rk_audit_options_json(o);
	char *keys = rk_audit_column_names(r->key, r->nkey);
	char *sums = rk_audit_column_names(r->sum, r->nsum);
	char *src = rk_audit_conn(rk_audit_relation(r->source));
	char *tgt = rk_audit_conn(rk_audit_relation(r->target));
	/* reckon's messages never hold a password */
	char *error = r->error ? rk_audit_text(r->error) : NULL;
	const char *v;
	int rc = -1;

	memset(&p, 0, sizeof p);
	rk_ap_who(&p, &who);
	rk_ap_str(&p, options);
	rk_ap_str(&p, src);
	rk_ap_str(&p, tgt);
	rk_ap_str(&p, keys);
	rk_ap_str(&p, sums);
	/* the list is in time order and disjoint: its span */
	if (r->n) {
		rk_ap_time(&p, r->iv[0].start);
		rk_ap_time(&p, r->iv[r->n - 1].end);
	} else {
		rk_ap_str(&p, NULL);
		rk_ap_str(&p, NULL);
	}
	rk_ap_str(&p, r->verdict);
	rk_ap_u64(&p, (uint64_t)r->exit_status);
	rk_ap_str(&p, error);
	assert(p.n == RK_AUDIT_REPAIR_NPARAMS);

	if (rk_pg_exec(pg, "audit insert repair run", rk_sql_audit_insert_repair_run, p.n, p.v, RK_PG_ONE_ROW, &res,
	               err) < 0)
		goto done;
	v = rk_pg_result_value(res, 0, 0);
	snprintf(run_id, run_id_sz, "%s", v ? v : "");
	rc = 0;
done:
	rk_pg_result_free(res);
	rk_audit_who_free(&who);
	free(error);
	free(src);
	free(tgt);
	free(options);
	free(keys);
	free(sums);
	return rc;
}

static int rk_audit_copy_repair_intervals(rk_pg *pg, const rk_audit_repair *r, const char *run_id, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	char t[RK_TIME_STRLEN];
	int rc = -1;

	if (r->n == 0)
		return 0;
	if (rk_pg_copy_in_begin(pg, "audit copy repair intervals", rk_sql_audit_copy_repair_interval, err) < 0)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		const rk_audit_interval *v = &r->iv[i];
		const uint64_t *c = v->before;

		rk_buf_printf(&b, "%s\t", run_id);
		rk_buf_printf(&b, "%s\t", rk_time_format(v->start, t));
		rk_buf_printf(&b, "%s\t", rk_time_format(v->end, t));
		rk_buf_puts(&b, v->status);
		rk_buf_printf(&b, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, c[0], c[1],
		              c[2], c[3], c[4], c[5]);
		if (v->counted)
			rk_buf_printf(&b, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64,
			              v->source_rows, v->deleted_by_time, v->deleted_by_key, v->inserted, v->updated, v->moved);
		else
			rk_buf_puts(&b, "\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N");
		if (v->after)
			rk_buf_printf(&b, "\t%s\t%" PRIu64 "\t%" PRIu64, v->after, v->after_source_rows, v->after_target_rows);
		else
			rk_buf_puts(&b, "\t\\N\t\\N\t\\N");
		rk_buf_putc(&b, '\n');
		if (rk_audit_copy_flush(pg, &b, false, err) < 0)
			goto fail;
	}
	rc = 0;
fail:
	return rk_audit_copy_finish(pg, &b, rc == 0, "reckon could not send the repair intervals", err);
}

int rk_audit_record_repair(const char *conninfo, const rk_audit_options *o, const rk_audit_repair *r, rk_error *err)
{
	rk_pg *pg;
	char run_id[32];

	assert(r->iv || r->n == 0);
	pg = rk_audit_open(conninfo, err);
	if (!pg)
		goto fail;
	if (rk_pg_command(pg, "audit begin", rk_sql_audit_begin, err) < 0)
		goto fail;
	if (rk_audit_insert_repair_run(pg, o, r, run_id, sizeof run_id, err) < 0 ||
	    rk_audit_copy_repair_intervals(pg, r, run_id, err) < 0 ||
	    rk_pg_command(pg, "audit commit", rk_sql_audit_commit, err) < 0) {
		rk_audit_rollback(pg);
		goto fail;
	}
	rk_log_info("recorded repair run %s (%zu interval%s, %s) on %s", run_id, r->n, r->n == 1 ? "" : "s", r->verdict,
	            rk_pg_describe(pg));
	rk_pg_close(pg);
	return 0;
fail:
	/* nothing was recorded: the transaction, if any, rolled back */
	rk_error_prefix(err, "cannot record the repair in the audit database");
	rk_pg_close(pg);
	return -1;
}
