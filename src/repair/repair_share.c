/*
 * repair_share.c - what the three ways of repairing do alike
 * (repair_share.h).
 */
#include "repair/repair_share.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/text.h"
#include "core/timeutil.h"
#include "io/copytext.h"
#include "rk_sql.h"

/* Bytes of keys one COPY message carries. */
#define RK_REPAIR_COPY_CHUNK ((size_t)1 << 16)

void rk_repair_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void rk_repair_reset_intervals(rk_repair_interval *iv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		iv[i].state = RK_REPAIR_PENDING;
		iv[i].source_rows = iv[i].deleted_by_time = iv[i].deleted_by_key = iv[i].inserted = 0;
		iv[i].updated = iv[i].moved = iv[i].reset = 0;
		iv[i].reset_keys[0] = '\0';
		iv[i].after_source_rows = iv[i].after_target_rows = 0;
	}
}

void rk_repair_put_interval(rk_buf *b, rk_usec s, rk_usec e)
{
	char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN];

	rk_buf_printf(b, "[%s, %s)", rk_time_format(s, a), rk_time_format(e, z));
}

void rk_repair_put_segment(rk_buf *b, const rk_repair_interval *v)
{
	rk_buf_putc(b, '[');
	if (v->key_start)
		rk_text_escape(b, v->key_start, strlen(v->key_start));
	else
		rk_buf_puts(b, "(first)");
	rk_buf_puts(b, ", ");
	if (v->key_end)
		rk_text_escape(b, v->key_end, strlen(v->key_end));
	else
		rk_buf_puts(b, "(last)");
	rk_buf_putc(b, ')');
}

void rk_repair_put_key(rk_buf *b, char *const *key, size_t nkey)
{
	rk_buf_puts(b, nkey == 1 ? "the key " : "the key (");
	for (size_t k = 0; k < nkey; k++)
		rk_buf_printf(b, "%s%s", k ? ", " : "", key[k]);
	if (nkey != 1)
		rk_buf_putc(b, ')');
}

int rk_repair_key_columns(const rk_check_spec *c, char ***key, size_t *nkey, rk_error *err)
{
	*key = NULL;
	*nkey = 0;
	if (!c->nkey)
		return rk_check_key(c, key, nkey, err);
	*key = rk_xcalloc(c->nkey, sizeof **key);
	for (size_t k = 0; k < c->nkey; k++)
		(*key)[(*nkey)++] = rk_xstrdup(c->key[k]);
	return 0;
}

void rk_repair_wmap_in(rk_wmap_in *in, const rk_check_spec *c, const rk_dest *target, long icol, rk_reader *src,
                       char *const *names, size_t nnames, char *const *key, size_t nkey, const char *place_col)
{
	memset(in, 0, sizeof *in);
	in->cmd = "repair";
	in->target = target;
	in->interval_col = icol;
	in->source = &c->source;
	in->target_side = &c->target;
	in->src_cols = names;
	in->nsrc = nnames;
	in->src_csv = !rk_reader_has(src, RK_CAP_SQL_NAMES);
	in->src_desc = rk_reader_describe(src);
	in->key = (const char *const *)key;
	in->nkey = nkey;
	in->time = place_col;
	in->exclude = c->exclude;
	in->nexclude = c->nexclude;
}

void rk_repair_put_row(rk_buf *b, const rk_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			rk_buf_putc(b, '\t');
		rk_copytext_put(b, fields[i].null ? NULL : fields[i].p, fields[i].len);
	}
	rk_buf_putc(b, '\n');
}

void rk_copy_stream_start(rk_copy_stream *s, rk_pg *tgt)
{
	s->tgt = tgt;
	rk_buf_reset(&s->out);
	s->failed = false;
	rk_error_clear(&s->err);
}

int rk_copy_stream_flush(rk_copy_stream *s, rk_error *err)
{
	if (s->out.len == 0)
		return 0;
	rk_error_clear(&s->err);
	if (rk_pg_copy_in_put(s->tgt, s->out.data, s->out.len, &s->err) < 0) {
		s->failed = true;
		return rk_error_set(err, RK_EXIT_RUNTIME, "sending rows to the target failed");
	}
	rk_buf_reset(&s->out);
	return 0;
}

int rk_copy_stream_row_end(rk_copy_stream *s, rk_error *err)
{
	rk_buf_putc(&s->out, '\n');
	return s->out.len >= RK_REPAIR_FLUSH ? rk_copy_stream_flush(s, err) : 0;
}

static int rk_repair_chunk(void *ctx, const char *p, size_t len, rk_error *err)
{
	rk_copy_stream *s = ctx;

	rk_copytext_put(&s->out, p, len);
	return s->out.len >= RK_REPAIR_FLUSH ? rk_copy_stream_flush(s, err) : 0;
}

int rk_repair_put_field(rk_copy_stream *s, rk_reader *src, size_t col, const char *name, const rk_field *f,
                        rk_error *err)
{
	if (!f->large) {
		rk_copytext_put(&s->out, f->null ? NULL : f->p, f->len);
		return 0;
	}
	return rk_reader_large_value(src, col, name, f->len, rk_repair_chunk, s, err);
}

int rk_repair_put_fields(rk_copy_stream *s, rk_reader *src, const rk_wmap *map, const rk_field *fields,
                         rk_error *err)
{
	for (size_t i = 0; i < map->n; i++) {
		if (i)
			rk_buf_putc(&s->out, '\t');
		if (rk_repair_put_field(s, src, i, map->c[i].logical, &fields[i], err) < 0)
			return -1;
	}
	return 0;
}

bool *rk_repair_large_cols(const rk_wmap *map, const rk_type *types)
{
	bool *large = rk_xcalloc(map->n + 1, sizeof *large);

	for (size_t i = 0; i < map->n; i++)
		large[i] = types[i] == RK_T_TEXT && i != map->time;
	return large;
}

/* Takes one finding's key (nkey texts, none NULL). */
typedef void (*rk_repair_key_fn)(void *ctx, char *const *texts, size_t nkey);

/* rk_repair_take_keys's walk of res's findings: each key a repair may
 * write to put; the refusal and the warning as it says. */
static int rk_repair_keys_walk(const rk_check_result *res, char *const *key, size_t nkey, const char *scope,
                               const char *place, const char *tail, rk_repair_key_fn put, void *ctx,
                               rk_error *err)
{
	size_t skipped = 0;
	const rk_finding *fd;
	rk_fwalk fw;

	rk_fwalk_start(&fw, res);
	while ((fd = rk_fwalk_next(&fw, NULL)) != NULL) {
		bool null = false;

		if (fd->kind == RK_FIND_SOURCE_DUPLICATE) {
			rk_buf b = RK_BUF_INIT, k = RK_BUF_INIT;

			rk_repair_put_key(&b, key, nkey);
			rk_finding_key_text(&k, res, fd);
			rk_buf_printf(&b, " is not unique at the source%s: the source holds %s %u times in %s", scope,
			              rk_buf_cstr(&k), (unsigned)fd->source_copies, place);
			rk_error_set(err, RK_EXIT_USAGE, "%s, so repair cannot tell which copy the target should hold",
			             rk_buf_cstr(&b));
			rk_buf_free(&b);
			rk_buf_free(&k);
			return rk_error_hint(err, "give --key the columns that identify one row (a primary key), and "
			                          "check with the same key");
		}
		for (size_t c = 0; c < nkey; c++)
			null = null || !fd->key[c];
		if (null) {
			skipped++;
			continue;
		}
		put(ctx, fd->key, nkey);
	}
	if (rk_fwalk_end(&fw, err) < 0)
		return -1;
	if (skipped)
		rk_log_warn("%zu finding key%s of %s %s a NULL part: repair leaves %s alone (a NULL key matches no row)%s",
		            skipped, skipped == 1 ? "" : "s", place, skipped == 1 ? "has" : "have",
		            skipped == 1 ? "it" : "them", tail);
	return 0;
}

typedef struct rk_repair_strv {
	char **v;
	size_t n;
} rk_repair_strv;

static void rk_repair_strv_put(void *ctx, char *const *texts, size_t nkey)
{
	rk_repair_strv *w = ctx;

	for (size_t c = 0; c < nkey; c++)
		w->v[w->n * nkey + c] = rk_xstrdup(texts[c]);
	w->n++;
}

int rk_repair_take_keys(const rk_check_result *res, char *const *key, size_t nkey, const char *scope,
                        const char *place, const char *tail, char ***want, size_t *nwant, rk_error *err)
{
	rk_repair_strv w = { rk_xcalloc(res->nfindings * nkey + 1, sizeof *w.v), 0 };
	int rc = rk_repair_keys_walk(res, key, nkey, scope, place, tail, rk_repair_strv_put, &w, err);

	*want = w.v;
	*nwant = w.n;
	return rc;
}

/* The lines keep the order they were added in: none sorts before another. */
static int rk_repair_line_cmp(const void *a, size_t alen, const void *b, size_t blen, void *ctx)
{
	(void)a;
	(void)alen;
	(void)b;
	(void)blen;
	(void)ctx;
	return 0;
}

typedef struct rk_repair_lines {
	rk_repair_keys *k;
	rk_buf line;
	bool failed;
	rk_error err;
} rk_repair_lines;

static void rk_repair_line_put(void *ctx, char *const *texts, size_t nkey)
{
	rk_repair_lines *l = ctx;
	rk_repair_keys *k = l->k;

	rk_buf_reset(&l->line);
	for (size_t c = 0; c < nkey; c++) {
		if (c)
			rk_buf_putc(&l->line, '\t');
		rk_copytext_put(&l->line, texts[c], strlen(texts[c]));
	}
	rk_buf_putc(&l->line, '\n');
	if (!l->failed && rk_spill_add(k->lines, l->line.data, l->line.len, &l->err) < 0)
		l->failed = true;
	if (k->n < RK_REPAIR_KEY_TEXTS) {
		if (!k->text)
			k->text = rk_xcalloc(RK_REPAIR_KEY_TEXTS * nkey, sizeof *k->text);
		for (size_t c = 0; c < nkey; c++)
			k->text[k->n * nkey + c] = rk_xstrdup(texts[c]);
	} else if (k->n == RK_REPAIR_KEY_TEXTS) {
		/* past them no scan is handed the texts: they go */
		rk_repair_strv_free(k->text, k->n * nkey);
		k->text = NULL;
	}
	k->n++;
}

int rk_repair_take_key_lines(const rk_check_result *res, char *const *key, size_t nkey, const char *scope,
                             const char *place, const char *tail, rk_repair_keys *k, rk_error *err)
{
	rk_repair_lines l = { k, RK_BUF_INIT, false, { 0 } };
	int rc;

	rk_repair_keys_free(k, nkey);
	k->lines = rk_spill_new(NULL, rk_spill_share_bound(), rk_repair_line_cmp, NULL);
	rc = rk_repair_keys_walk(res, key, nkey, scope, place, tail, rk_repair_line_put, &l, err);
	rk_buf_free(&l.line);
	if (rc == 0 && l.failed) {
		*err = l.err;
		rc = -1;
	}
	if (rc == 0 && rk_spill_finish(k->lines, err) < 0)
		rc = -1;
	if (rc == 0)
		rk_log_debug("repair: %zu finding key(s) of %s, %llu run(s) of them spilled", k->n, place,
		             (unsigned long long)rk_spill_runs_written(k->lines));
	return rc;
}

void rk_repair_keys_free(rk_repair_keys *k, size_t nkey)
{
	rk_spill_free(k->lines);
	rk_repair_strv_free(k->text, k->text ? k->n * nkey : 0);
	memset(k, 0, sizeof *k);
}

const char *rk_repair_fk_action(char a)
{
	switch (a) {
	case 'c':
		return "ON DELETE CASCADE: they are deleted too";
	case 'n':
		return "ON DELETE SET NULL: their reference is cleared";
	case 'd':
		return "ON DELETE SET DEFAULT: their reference is reset";
	default:
		return "ON DELETE NO ACTION/RESTRICT: the delete fails";
	}
}

int rk_repair_refuse_subscribed(const rk_repair_spec *spec, const rk_dest *dest, rk_pg *tgt, rk_error *err)
{
	char *subs = NULL;

	if (rk_dest_subscriptions(dest, &subs, err) < 0)
		return -1;
	if (!subs)
		return 0;
	if (spec->force) {
		rk_log_warn("target table %s is written by the enabled subscription %s: repairing it anyway (--force)",
		            dest->display, subs);
		free(subs);
		return 0;
	}
	rk_error_set(err, RK_EXIT_USAGE,
	             "target table %s on %s is written by the enabled logical-replication subscription %s: a repair "
	             "racing its apply worker breaks replication (a change still queued for a row repair replaced "
	             "fails with a duplicate key); nothing was changed",
	             dest->display, rk_pg_location(tgt), subs);
	free(subs);
	return rk_error_hint(err, "let the subscription catch up and disable it (ALTER SUBSCRIPTION ... DISABLE) "
	                          "while repairing, or add --force to repair anyway");
}

int rk_repair_refuse_privileges(const rk_repair_spec *spec, const rk_dest *dest, rk_pg *tgt, rk_error *err)
{
	const char *params[2] = { dest->oid, spec->replace_interval ? "INSERT,DELETE" : "INSERT,UPDATE,DELETE" };
	rk_pg_result *res;
	const char *missing;

	if (rk_pg_exec(tgt, "read the target's privileges", rk_sql_repair_privileges, 2, params, RK_PG_ONE_ROW, &res,
	               err) < 0)
		return -1;
	missing = rk_pg_result_value(res, 0, 0);
	if (missing)
		rk_error_set(err, RK_EXIT_USAGE, "the target role may not %s target table %s on %s: repair %s; nothing "
		                                 "was changed",
		             missing, dest->display, rk_pg_location(tgt),
		             spec->replace_interval ? "deletes and inserts rows" : "inserts, updates and deletes rows");
	rk_pg_result_free(res);
	if (missing)
		return rk_error_hint(err, "GRANT the privileges on the table to the target role, or connect as a role "
		                          "that holds them");
	return 0;
}

char *rk_repair_quote_cols(const rk_dest *dest, const rk_wmap *map, const size_t *idx, size_t n, const char *prefix,
                           const char *suffix, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		char *q = rk_dest_quote(dest, map->c[idx ? idx[i] : i].tcol, err);

		if (!q) {
			rk_buf_free(&b);
			return NULL;
		}
		rk_buf_printf(&b, "%s%s%s%s", i ? ", " : "", prefix, q, suffix);
		free(q);
	}
	rk_buf_cstr(&b);
	return b.data;
}

char *rk_repair_render(const char *tpl, const rk_sqlvar *vars, size_t nvars, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;

	if (rk_sql_render(&b, tpl, vars, nvars, err) < 0) {
		rk_buf_free(&b);
		return NULL;
	}
	return b.data;
}

bool rk_repair_mentioned(const char *where, const rk_dest *dest, const rk_wmap *map, long icol, size_t c)
{
	bool written = (long)c == icol;
	size_t len = strlen(dest->cols[c]);

	if (!where)
		return false;
	for (size_t i = 0; i < map->n && !written; i++)
		written = map->c[i].tcol == c;
	if (written || dest->generated[c] || !len)
		return false;
	for (const char *p = where; (p = strstr(p, dest->cols[c])) != NULL; p += len) {
		bool before = p > where && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[len]) || p[len] == '_';

		if (!before && !after)
			return true;
	}
	return false;
}

size_t rk_repair_unfilled(const char *where, const rk_dest *dest, const rk_wmap *map, long icol, rk_buf *b)
{
	size_t n = 0;

	for (size_t c = 0; c < dest->ncols; c++)
		if (rk_repair_mentioned(where, dest, map, icol, c))
			rk_buf_printf(b, "%s%s", n++ ? ", " : "", dest->cols[c]);
	return n;
}

int rk_repair_count_of(rk_pg_result *res, const char *label, uint64_t *out, char **out2, rk_error *err)
{
	const char *v = rk_pg_result_value(res, 0, 0);

	/* a count is never NULL or text: another shape is an error, not a zero */
	if (!v || !*v || strspn(v, "0123456789") != strlen(v)) {
		rk_error_set(err, RK_EXIT_RUNTIME, "%s returned '%s' where a row count was expected", label,
		             v ? v : "NULL");
		rk_pg_result_free(res);
		return -1;
	}
	*out = strtoull(v, NULL, 10);
	if (out2) {
		v = rk_pg_result_value(res, 0, 1);
		*out2 = v ? rk_xstrdup(v) : NULL;
	}
	rk_pg_result_free(res);
	return 0;
}

/* A COPY of the keys that failed: a key the column type refuses is bad
 * input. */
static int rk_repair_copy_keys_failed(rk_error *err)
{
	if (err->sqlstate[0] == '2' && err->sqlstate[1] == '2')
		err->code = RK_EXIT_USAGE;
	return -1;
}

int rk_repair_copy_key_lines(rk_pg *tgt, rk_repair_keys *k, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	const void *rec;
	size_t len;
	int rc = 0, got;

	if (rk_spill_rewind(k->lines, err) < 0)
		return -1;
	if (rk_pg_copy_in_begin(tgt, "stage finding keys", rk_sql_repair_row_want_copy, err) < 0)
		return -1;
	/* sent a bound's worth at a time */
	while (rc == 0 && (got = rk_spill_next(k->lines, &rec, &len, err)) != 0) {
		if (got < 0) {
			rk_pg_copy_in_abort(tgt, "the finding keys could not be read back");
			rk_buf_free(&b);
			return -1;
		}
		rk_buf_append(&b, rec, len);
		if (b.len >= RK_REPAIR_COPY_CHUNK) {
			rc = rk_pg_copy_in_put(tgt, b.data, b.len, err);
			rk_buf_reset(&b);
		}
	}
	if (rc < 0 || (b.len && rk_pg_copy_in_put(tgt, b.data, b.len, err) < 0) || rk_pg_copy_in_end(tgt, err) < 0)
		rc = rk_repair_copy_keys_failed(err);
	rk_buf_free(&b);
	return rc;
}

int rk_repair_copy_keys(rk_pg *tgt, char *const *want, size_t nwant, size_t nkey, rk_error *err)
{
	rk_buf b = RK_BUF_INIT;
	int rc = 0;

	if (rk_pg_copy_in_begin(tgt, "stage finding keys", rk_sql_repair_row_want_copy, err) < 0)
		return -1;
	for (size_t k = 0; k < nwant; k++) {
		for (size_t c = 0; c < nkey; c++) {
			const char *v = want[k * nkey + c];

			if (c)
				rk_buf_putc(&b, '\t');
			rk_copytext_put(&b, v, v ? strlen(v) : 0);
		}
		rk_buf_putc(&b, '\n');
	}
	if ((b.len && rk_pg_copy_in_put(tgt, b.data, b.len, err) < 0) || rk_pg_copy_in_end(tgt, err) < 0)
		rc = rk_repair_copy_keys_failed(err);
	rk_buf_free(&b);
	return rc;
}
