/*
 * options_record.c - what a run records of its options: the audit record
 * (report/audit.h: every option the command took, connections masked) and
 * the repair command a check prints for a table (its table options, the
 * secrets left out).
 */
#include "cli/options.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options_impl.h"
#include "core/buf.h"
#include "core/text.h"
#include "io/pg.h"

void rk_opts_audit(const rk_opts *opts, rk_opts_record *out)
{
	size_t n = 0, cap = 0;
	rk_audit_option *v = NULL;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < RK_O_COUNT; i++) {
		const rk_optdef *d = &rk_optdefs[i];
		const void *field = (const char *)opts + d->offset;
		size_t items = d->kind == RK_OPT_MAP ? ((const rk_map *)field)->n : 1;

		if (!(d->cmds & opts->cmd) || (!opts->set[i] && d->kind != RK_OPT_FLAG))
			continue;
		for (size_t j = 0; j < items; j++) {
			rk_audit_option *op;

			if (n == cap) {
				cap = cap ? cap * 2 : 32;
				v = rk_xrealloc(v, cap * sizeof *v);
			}
			op = &v[n++];
			memset(op, 0, sizeof *op);
			op->key = d->name;
			op->flag = -1;
			op->conn = (d->flags & RK_OPTF_CONN) != 0;
			if (d->kind == RK_OPT_MAP) {
				const rk_map *m = field;
				rk_buf b = RK_BUF_INIT;

				rk_buf_printf(&b, "%s.%s", d->name, m->names[j]);
				out->owned = rk_xrealloc(out->owned, (out->nowned + 1) * sizeof *out->owned);
				out->owned[out->nowned++] = b.data;
				op->key = b.data;
				op->value = m->sql[j];
			} else if (d->kind == RK_OPT_FLAG) {
				op->flag = *(const bool *)field;
			} else if (d->kind == RK_OPT_LIST) {
				const rk_list *l = field;

				op->items = (const char *const *)l->items;
				op->nitems = l->n;
			} else {
				op->value = opts->text[i];
			}
		}
	}
	out->options.v = v;
	out->options.n = n;
}

/* A connection option's value as the repair command carries it: a
 * PostgreSQL conninfo without its secrets, a csv:/delta: path as given. */
static void rk_opts_conn_word(rk_buf *out, const char *conn)
{
	rk_buf pub = RK_BUF_INIT;
	rk_error err;

	rk_error_clear(&err);
	if (strncmp(conn, "csv:", 4) != 0 && strncmp(conn, "delta:", 6) != 0 &&
	    rk_pg_conninfo_public(conn, &pub, &err) == 0) {
		rk_shell_word(out, rk_buf_cstr(&pub));
	} else {
		char red[4096];

		rk_pg_redact(conn, red, sizeof red);
		rk_shell_word(out, red);
	}
	rk_buf_free(&pub);
}

void rk_opts_repair_command(const rk_opts *opts, const char *extra, rk_buf *out)
{
	rk_buf_puts(out, "reckon repair");
	for (size_t i = 0; i < RK_O_COUNT; i++) {
		const rk_optdef *d = &rk_optdefs[i];
		const void *field = (const char *)opts + d->offset;

		/* the table's options; --now is the check's clock, not the repair's */
		if (!(d->cmds & RK_CMD_REPAIR) || !(d->flags & RK_OPTF_TABLE) || i == RK_O_NOW || !opts->set[i])
			continue;
		if (d->kind == RK_OPT_MAP) {
			const rk_map *m = field;

			for (size_t j = 0; j < m->n; j++) {
				rk_buf w = RK_BUF_INIT;

				rk_buf_printf(&w, "%s=%s", m->names[j], m->sql[j]);
				rk_buf_printf(out, " --%s ", d->name);
				rk_shell_word(out, rk_buf_cstr(&w));
				rk_buf_free(&w);
			}
			continue;
		}
		if (d->kind == RK_OPT_FLAG) {
			if (*(const bool *)field)
				rk_buf_printf(out, " --%s", d->name);
			continue;
		}
		rk_buf_printf(out, " --%s ", d->name);
		if (d->kind == RK_OPT_LIST) {
			const rk_list *l = field;
			rk_buf w = RK_BUF_INIT;

			for (size_t j = 0; j < l->n; j++)
				rk_buf_printf(&w, "%s%s", j ? "," : "", l->items[j]);
			rk_shell_word(out, rk_buf_cstr(&w));
			rk_buf_free(&w);
		} else if (d->flags & RK_OPTF_CONN) {
			rk_opts_conn_word(out, opts->text[i] ? opts->text[i] : "");
		} else {
			rk_shell_word(out, opts->text[i] ? opts->text[i] : "");
		}
	}
	if (extra && *extra)
		rk_buf_printf(out, " %s", extra);
	rk_buf_puts(out, " --execute");
}

void rk_opts_record_free(rk_opts_record *r)
{
	for (size_t i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	free((void *)r->options.v);
	memset(r, 0, sizeof *r);
}
