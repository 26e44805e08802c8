/*
 * pglarge.c - large values out of band (docs/performance.md "Large
 * values"): a scan whose rk_scan.large_bound is set selects, for each text
 * column it may send out of band (rk_pgsql_large_col), NULL in place of a
 * value of that many bytes or more, and a marker column naming the row
 * (tableoid, ctid) and the sizes of its large values (rk_pgsql_scan).  Such
 * a row is kept, small, until the COPY ends, then handed to the scan's late
 * callback, which reads each large value in chunks of its bytes by ctid
 * (rk_pgsql_large_value): the reader's one REPEATABLE READ transaction
 * still sees the row version the COPY read.  The value never travels in a
 * COPY row, which libpq would hold whole, and twice.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/env.h"
#include "core/log.h"
#include "io/fault.h"
#include "io/pgreader_impl.h"
#include "rk_sql.h"

int rk_pglarge_probe(rk_pgreader *r, rk_error *err)
{
	const char *params[1] = { r->oid };
	rk_pg_result *res = NULL;
	long long toast = 0, foreign = 0;

	if (!r->large_ok || r->large_toast)
		return 0;
	if (rk_pg_exec(r->pg, "TOAST size", rk_sql_catalog_toast_size, 1, params, RK_PG_ANY_ROWS, &res, err) < 0) {
		rk_pgreader_recover(r);
		return -1;
	}
	if (rk_pg_result_rows(res) == 1) {
		toast = strtoll(rk_pg_result_value(res, 0, 0), NULL, 10);
		foreign = strtoll(rk_pg_result_value(res, 0, 1), NULL, 10);
	}
	rk_pg_result_free(res);
	r->large_toast = toast > 0 ? 1 : -1;
	if (foreign > 0) {
		/* a foreign table's rows have no ctid to read them again by */
		r->large_ok = false;
		rk_log_debug("%s: %lld of its tables are foreign: every value in its row", r->desc, foreign);
		return 0;
	}
	rk_log_debug("%s: %s", r->desc,
	             r->large_toast > 0 ? "its TOAST tables hold data: large values out of band"
	                                : "its TOAST tables are empty: no large value to send out of band");
	return 0;
}

void rk_pglarge_keep(rk_pgreader *r, const rk_field *fields)
{
	const rk_field *mk = &fields[r->ncols];
	rk_pglate *l;

	if (r->nlates == r->caplates) {
		r->caplates = r->caplates ? 2 * r->caplates : 16;
		r->lates = rk_xrealloc(r->lates, r->caplates * sizeof *r->lates);
	}
	if ((r->nlates + 1) * r->ncols > r->caplate_fields) {
		r->caplate_fields = 2 * (r->nlates + 1) * r->ncols;
		r->late_fields = rk_xrealloc(r->late_fields, r->caplate_fields * sizeof *r->late_fields);
	}
	l = &r->lates[r->nlates];
	l->fields = r->nlates * r->ncols;
	l->bytes = r->late_bytes.len;
	for (size_t i = 0; i < r->ncols; i++) {
		rk_field *f = &r->late_fields[l->fields + i];

		*f = fields[i];
		rk_buf_append(&r->late_bytes, fields[i].p, fields[i].len);
		if (fields[i].enc)
			rk_buf_append(&r->late_bytes, fields[i].enc, fields[i].enc_len);
	}
	l->marker = r->late_bytes.len;
	rk_buf_append(&r->late_bytes, mk->p, mk->len);
	rk_buf_putc(&r->late_bytes, '\0');
	r->nlates++;
}

/* The next word of the marker at *p (space-separated), NUL-ended in place. */
static char *rk_pglarge_word(char **p)
{
	char *w = *p, *e = strchr(w, ' ');

	if (e) {
		*e = '\0';
		*p = e + 1;
	} else {
		*p = w + strlen(w);
	}
	return w;
}

/* Late row l's fields into r->late_row, its large values marked from its
 * marker.  0 or -1 with err when the marker is not one this scan asked for. */
static int rk_pglarge_row(rk_pgreader *r, const rk_pglate *l, const rk_scan *scan, rk_error *err)
{
	const char *at = r->late_bytes.data + l->bytes;
	char *p;

	for (size_t i = 0; i < r->ncols; i++) {
		rk_field *f = &r->late_row[i];

		*f = r->late_fields[l->fields + i];
		f->p = at;
		at += f->len;
		if (f->enc) {
			f->enc = at;
			at += f->enc_len;
			if (f->form == RK_FORM_CANON && !f->null)
				f->p = f->enc + RK_CANON_HDR;
		}
	}
	rk_buf_reset(&r->late_marker);
	rk_buf_puts(&r->late_marker, r->late_bytes.data + l->marker);
	rk_buf_cstr(&r->late_marker);
	p = r->late_marker.data;
	r->late_tid[0] = rk_pglarge_word(&p);
	r->late_tid[1] = rk_pglarge_word(&p);
	for (size_t i = 0; i < r->ncols; i++) {
		char *w, *end;
		long long n;

		if (!rk_pgsql_large_col(r, scan, i))
			continue;
		w = rk_pglarge_word(&p);
		errno = 0;
		n = strtoll(w, &end, 10);
		/* (a test's step: a marker the server sent garbled) */
		if (!*w || *end || errno || n < -1 || rk_fault("pglarge-marker") == RK_FAULT_FAIL) {
			rk_pgreader_err(err);
			rk_error_set(err, RK_EXIT_RUNTIME, "%s: a row's large-value marker '%s' has no size for column %s",
			             r->desc, r->late_bytes.data + l->marker, r->cols[i]);
			return rk_error_hint(err, "the marker is not the one reckon's scan selects: set "
			                          "RECKON_LARGE_VALUE past the table's largest value to read every value "
			                          "in its row (reckon(1), ENVIRONMENT), and report it");
		}
		if (n < 0)
			continue;
		r->late_row[i] = (rk_field){ .p = "", .len = (size_t)n, .large = true, .form = RK_FORM_TEXT };
	}
	return 0;
}

int rk_pglarge_deliver(rk_pgreader *r, rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_scan scan;
	int rc = 0;

	if (!r->nlates)
		return 0;
	memset(&scan, 0, sizeof scan);
	scan.large_bound = r->large_bound;
	scan.large_cols = r->large_cols;
	r->late_row = rk_xcalloc(r->ncols, sizeof *r->late_row);
	rk_log_debug("%s: %zu rows with values of %zu bytes or more, read after the scan", r->desc, r->nlates,
	             r->large_bound);
	for (size_t k = 0; k < r->nlates && rc == 0; k++) {
		rc = rk_pglarge_row(r, &r->lates[k], &scan, err);
		if (rc == 0 && fn(ctx, r->late_row, err) < 0)
			rc = rk_error_prefix(err, "%s", r->desc);
	}
	free(r->late_row);
	r->late_row = NULL;
	rk_pglarge_reset(r, false);
	return rc;
}

void rk_pglarge_reset(rk_pgreader *r, bool at_end)
{
	r->nlates = 0;
	rk_buf_reset(&r->late_bytes);
	if (!at_end)
		return;
	free(r->lates);
	free(r->late_fields);
	r->lates = NULL;
	r->late_fields = NULL;
	r->caplates = r->caplate_fields = 0;
	rk_buf_free(&r->late_bytes);
	rk_buf_free(&r->late_marker);
}

/* The chunk size: RK_PGREADER_LARGE_CHUNK_ENV's whole number of bytes, or
 * the default. */
static size_t rk_pglarge_chunk(void)
{
	return rk_env_bytes(RK_PGREADER_LARGE_CHUNK_ENV, RK_PGREADER_LARGE_CHUNK, 1, INT32_MAX);
}

typedef struct rk_pglarge_read {
	rk_chunk_fn fn;
	void *ctx;
	uint64_t total;
} rk_pglarge_read;

static int rk_pglarge_chunk_row(void *ctx, const char *p, size_t len, rk_error *err)
{
	rk_pglarge_read *rd = ctx;

	rd->total += len;
	return p ? rd->fn(rd->ctx, p, len, err) : 0;
}

int rk_pgreader_large_value(void *impl, size_t col, rk_chunk_fn fn, void *ctx, uint64_t *total, rk_error *err)
{
	rk_pgreader *r = impl;
	char chunk[24];
	const char *params[3];
	rk_pglarge_read rd = { fn, ctx, 0 };
	rk_buf sql = RK_BUF_INIT;
	int rc;

	*total = 0;
	params[0] = r->late_tid[0];
	params[1] = r->late_tid[1];
	params[2] = chunk;
	if (!r->late_row || col >= r->ncols || !r->late_row[col].large) {
		rk_pgreader_err(err);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: no value of column %zu sent out of band", r->desc, col);
	}
	snprintf(chunk, sizeof chunk, "%zu", rk_pglarge_chunk());
	rk_pgsql_large_value(r, col, &sql);
	rc = rk_pg_rows_binary(r->pg, "large value", rk_buf_cstr(&sql), 3, params, rk_pglarge_chunk_row, &rd, err);
	rk_buf_free(&sql);
	/* (a test's step: a value read back a byte longer than its marker
	 * said, as a row changed under the snapshot would be) */
	if (rc == 0 && rk_fault("pglarge-read-back") == RK_FAULT_FAIL)
		rd.total++;
	*total = rd.total;
	return rc;
}
