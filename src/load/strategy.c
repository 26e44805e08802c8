#include "load/strategy.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/log.h"
#include "io/pg.h"
#include "io/sqltpl.h"
#include "load/dest.h"
#include "load/guard.h"
#include "load/target.h"
#include "load/watermark.h"
#include "rk_sql.h"

static const char *const rk_load_strategy_names[RK_LOAD_NSTRATEGIES] = {
	"watermark-first",
	"write-first-append",
	"write-first-keyed",
	"one-transaction",
	"interval",
	"interval-closed",
	"target-watermark",
};

static const char *const rk_load_crash_names[] = {
	"none",
	"after-read",
	"after-watermark-commit",
	"before-write",
	"inside-transaction",
	"after-write-commit",
};
#define RK_LOAD_NCRASH (sizeof rk_load_crash_names / sizeof rk_load_crash_names[0])

int rk_load_strategy_parse(const char *name, rk_load_strategy *out, rk_error *err)
{
	for (int i = 0; i < RK_LOAD_NSTRATEGIES; i++) {
		if (strcmp(name, rk_load_strategy_names[i]) == 0) {
			*out = (rk_load_strategy)i;
			return 0;
		}
	}
	rk_error_set(err, RK_EXIT_USAGE, "unknown strategy \"%s\" for --strategy", name);
	return rk_error_hint(err,
	                     "one of watermark-first, write-first-append, write-first-keyed, one-transaction, "
	                     "interval, interval-closed, target-watermark");
}

const char *rk_load_strategy_name(rk_load_strategy s)
{
	return (unsigned)s < RK_LOAD_NSTRATEGIES ? rk_load_strategy_names[s] : "?";
}

int rk_load_crash_parse(const char *name, rk_load_crash *out, rk_error *err)
{
	for (size_t i = 1; i < RK_LOAD_NCRASH; i++) {
		if (strcmp(name, rk_load_crash_names[i]) == 0) {
			*out = (rk_load_crash)i;
			return 0;
		}
	}
	rk_error_set(err, RK_EXIT_USAGE, "unknown crash point \"%s\" for --crash-at", name);
	return rk_error_hint(err, "one of after-read, after-watermark-commit, before-write, inside-transaction, "
	                          "after-write-commit");
}

const char *rk_load_crash_name(rk_load_crash c)
{
	return (size_t)c < RK_LOAD_NCRASH ? rk_load_crash_names[c] : "?";
}

const char *rk_load_strategy_unsafe_reason(rk_load_strategy s)
{
	switch (s) {
	case RK_LOAD_WATERMARK_FIRST:
		return "it commits the watermark before the rows are written, so a crash between the two commits "
		       "loses those rows for good (the retry starts after the moved watermark)";
	case RK_LOAD_WRITE_FIRST_APPEND:
		return "it appends the rows before moving the watermark, so a crash between the two commits makes "
		       "the retry append the same rows again (duplicates)";
	case RK_LOAD_INTERVAL_CLOSED:
		return "its interval includes both ends (BETWEEN), so a row stamped exactly on a boundary is loaded "
		       "by two runs (duplicates)";
	default:
		return NULL;
	}
}

bool rk_load_strategy_has_watermark_table(rk_load_strategy s)
{
	return s == RK_LOAD_WATERMARK_FIRST || s == RK_LOAD_WRITE_FIRST_APPEND || s == RK_LOAD_WRITE_FIRST_KEYED ||
	       s == RK_LOAD_ONE_TRANSACTION;
}

bool rk_load_strategy_is_keyed(rk_load_strategy s)
{
	return s == RK_LOAD_WRITE_FIRST_KEYED || s == RK_LOAD_ONE_TRANSACTION || s == RK_LOAD_TARGET_WATERMARK;
}

bool rk_load_strategy_is_interval(rk_load_strategy s)
{
	return s == RK_LOAD_INTERVAL || s == RK_LOAD_INTERVAL_CLOSED;
}

bool rk_load_strategy_passes(rk_load_strategy s, rk_load_crash c)
{
	if (c == RK_CRASH_NONE)
		return true;
	if (c == RK_CRASH_AFTER_WATERMARK_COMMIT)
		return rk_load_strategy_has_watermark_table(s);
	return true;
}

int rk_load_validate(const rk_load_spec *s, rk_error *err)
{
	const char *name = rk_load_strategy_name(s->strategy);

	if (rk_load_strategy_has_watermark_table(s->strategy)) {
		if (!s->watermark_table || !*s->watermark_table) {
			rk_error_set(err, RK_EXIT_USAGE, "strategy %s needs --watermark-table", name);
			return rk_error_hint(err, "name a table in the source database, e.g. --watermark-table "
			                          "etl_watermark (created when missing)");
		}
		if (!s->load_name || !*s->load_name)
			return rk_error_set(err, RK_EXIT_USAGE, "strategy %s needs --load-name", name);
	}
	if (s->lookback > 0 && !rk_load_strategy_is_keyed(s->strategy)) {
		rk_error_set(err, RK_EXIT_USAGE, "--lookback needs a keyed strategy, not %s", name);
		return rk_error_hint(err, rk_load_strategy_is_interval(s->strategy)
		                                  ? "an interval load re-reads late rows by re-running its interval"
		                                  : "re-reading rows behind the watermark only works when the write "
		                                    "replaces them by key (write-first-keyed, one-transaction, "
		                                    "target-watermark)");
	}
	if (rk_load_strategy_is_interval(s->strategy)) {
		if (!s->has_interval) {
			rk_error_set(err, RK_EXIT_USAGE, "strategy %s needs --interval-start and --interval-end", name);
			return rk_error_hint(err, "pass the data interval the scheduler assigned to this run");
		}
	}
	if (s->has_interval && !rk_load_strategy_is_interval(s->strategy) && !s->interval_column) {
		rk_error_set(err, RK_EXIT_USAGE, "strategy %s does not read by interval: --interval-start and "
		                                 "--interval-end would be ignored",
		             name);
		return rk_error_hint(err, "add --interval-column COL to record the interval in the target, or drop them");
	}
	if (s->has_interval && s->interval_start >= s->interval_end)
		return rk_error_set(err, RK_EXIT_USAGE, "--interval-start must be before --interval-end");
	if (s->interval_column && !s->has_interval) {
		rk_error_set(err, RK_EXIT_USAGE, "--interval-column needs --interval-start and --interval-end");
		return rk_error_hint(err, "the column records the start of the run's data interval");
	}
	if (!rk_load_strategy_passes(s->strategy, s->crash_at)) {
		rk_error_set(err, RK_EXIT_USAGE, "strategy %s never reaches crash point %s", name,
		             rk_load_crash_name(s->crash_at));
		return rk_error_hint(err, "it keeps no watermark table");
	}
	return 0;
}

/* ---------------------------------------------------------------- run */

typedef struct rk_load_run_ctx {
	const rk_load_spec *spec;
	rk_pg *src, *tgt;      /* tgt: a PostgreSQL target's connection, else NULL */
	rk_target *t;          /* the destination (target.h) */
	rk_dest source;        /* the source relation */
	const rk_dest *target; /* the target's columns (the destination's) */
	rk_wmap map;           /* the target columns written, and from what */
	rk_buf sql;
	rk_buf rows; /* the rows read, in COPY text format */
	/* SQL fragments, quoted or the user's expressions in parentheses */
	char *q_source_columns, *q_source_time, *q_source_keys, *q_source_filter;
	char *q_columns, *q_keys, *q_time, *q_target_filter, *q_wm_table, *q_interval_column;
	rk_sqlvar vars[12];
	size_t nvars;
	long interval_col; /* the target's interval column, or -1 */
} rk_load_run_ctx;

static void rk_load_report(const rk_load_spec *spec, const char *fmt, ...) RK_PRINTF(2, 3);

static void rk_load_report(const rk_load_spec *spec, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;
	size_t off = 0;

	if (spec->report_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	while (off < (size_t)n) {
		ssize_t w = write(spec->report_fd, line + off, (size_t)n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* a closed report channel must not fail the load */
		off += (size_t)w;
	}
}

/* Fault injection: a real process death, not an error path.  Whatever was
 * committed stays; PostgreSQL rolls back what was not. */
static void rk_load_crash_point(const rk_load_spec *spec, rk_load_crash point)
{
	if (spec->crash_at != point)
		return;
	rk_log_info("crash point %s reached: killing the process", rk_load_crash_name(point));
	fflush(NULL);
	raise(SIGKILL);
}

static int rk_load_render(rk_load_run_ctx *c, const char *tpl, rk_error *err)
{
	return rk_sql_render(&c->sql, tpl, c->vars, c->nvars, err);
}

static void rk_load_var(rk_load_run_ctx *c, const char *name, const char *sql)
{
	if (sql)
		c->vars[c->nvars++] = (rk_sqlvar){ name, sql };
}

/* The written columns idx[0..n) (all when idx is NULL) joined by ", ": the
 * target's quoted names, or the source's quoted names and expressions. */
static char *rk_load_list(rk_load_run_ctx *c, const size_t *idx, size_t n, bool source, rk_error *err)
{
	const rk_reader_opts *so = &c->spec->pair->source;
	rk_buf b = RK_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const rk_wcol *w = &c->map.c[idx ? idx[i] : i];
		char *q = NULL;

		if (i)
			rk_buf_puts(&b, ", ");
		if (source && w->sexpr >= 0) {
			rk_buf_printf(&b, "(%s\n)", so->expr_sql[w->sexpr]);
			continue;
		}
		q = source ? rk_dest_quote(&c->source, (size_t)w->scol, err) : rk_dest_quote(c->target, w->tcol, err);
		if (!q) {
			rk_buf_free(&b);
			return NULL;
		}
		rk_buf_puts(&b, q);
		free(q);
	}
	rk_buf_cstr(&b);
	return b.data;
}

/* Resolves both relations, decides the columns written (the whole row by
 * default, as check compares it) and renders the SQL fragments. */
static int rk_load_columns(rk_load_run_ctx *c, rk_error *err)
{
	const rk_load_spec *s = c->spec;
	const rk_check_spec *p = s->pair;
	rk_wmap_in in;
	long icol = -1;

	if (rk_dest_open(&c->source, c->src, "source", p->source.table, false, err) < 0 ||
	    rk_target_open(p->target.conn, p->target.table, &c->source, NULL, &c->t, err) < 0)
		return -1;
	c->target = rk_target_dest(c->t);
	c->tgt = rk_target_pg(c->t);
	if (s->interval_column && (icol = rk_dest_column(c->target, s->interval_column)) < 0) {
		rk_error_set(err, RK_EXIT_USAGE, "interval column '%s' does not exist in target table %s",
		             s->interval_column, c->target->display);
		rk_dest_hint_columns(c->target, err);
		return -1;
	}
	c->interval_col = icol;
	memset(&in, 0, sizeof in);
	in.cmd = "load";
	in.target = c->target;
	in.interval_col = icol;
	in.source = &p->source;
	in.target_side = &p->target;
	in.src_cols = c->source.cols;
	in.nsrc = c->source.ncols;
	in.src_desc = c->source.display;
	in.key = p->key;
	in.nkey = p->nkey;
	in.time = p->time;
	in.only = s->columns;
	in.nonly = s->ncolumns;
	in.exclude = p->exclude;
	in.nexclude = p->nexclude;
	if (rk_wmap_build(&in, &c->map, err) < 0)
		return -1;
	rk_log_info("load writes %zu column%s of %s", c->map.n, c->map.n == 1 ? "" : "s", c->target->display);
	if (!(c->q_source_columns = rk_load_list(c, NULL, c->map.n, true, err)) ||
	    !(c->q_source_time = rk_load_list(c, &c->map.time, 1, true, err)) ||
	    !(c->q_source_keys = rk_load_list(c, c->map.key, c->map.nkey, true, err)) ||
	    !(c->q_columns = rk_load_list(c, NULL, c->map.n, false, err)) ||
	    !(c->q_time = rk_load_list(c, &c->map.time, 1, false, err)) ||
	    !(c->q_keys = rk_load_list(c, c->map.key, c->map.nkey, false, err)))
		return -1;
	if (icol >= 0 && !(c->q_interval_column = rk_dest_quote(c->target, (size_t)icol, err)))
		return -1;
	c->q_source_filter = rk_sql_filter(p->source.where);
	c->q_target_filter = rk_sql_filter(p->target.where);
	return 0;
}

static int rk_load_quote_all(rk_load_run_ctx *c, rk_error *err)
{
	const rk_load_spec *s = c->spec;

	if (rk_load_columns(c, err) < 0)
		return -1;
	if (s->watermark_table && rk_load_strategy_has_watermark_table(s->strategy) &&
	    !(c->q_wm_table = rk_sql_quote_name(c->src, s->watermark_table, err)))
		return -1;
	rk_load_var(c, "source_table", c->source.qualified);
	rk_load_var(c, "target_table", c->target->qualified);
	rk_load_var(c, "source_columns", c->q_source_columns);
	rk_load_var(c, "source_time", c->q_source_time);
	rk_load_var(c, "source_keys", c->q_source_keys);
	rk_load_var(c, "source_filter", c->q_source_filter);
	rk_load_var(c, "columns", c->q_columns);
	rk_load_var(c, "time", c->q_time);
	rk_load_var(c, "keys", c->q_keys);
	rk_load_var(c, "target_filter", c->q_target_filter);
	rk_load_var(c, "watermark_table", c->q_wm_table);
	rk_load_var(c, "interval_column", c->q_interval_column);
	return 0;
}

/* Appends one value in COPY text format. */
static void rk_load_copy_value(rk_buf *b, const char *v)
{
	if (!v) {
		rk_buf_append(b, "\\N", 2);
		return;
	}
	for (; *v; v++) {
		switch (*v) {
		case '\\': rk_buf_append(b, "\\\\", 2); break;
		case '\t': rk_buf_append(b, "\\t", 2); break;
		case '\n': rk_buf_append(b, "\\n", 2); break;
		case '\r': rk_buf_append(b, "\\r", 2); break;
		default: rk_buf_putc(b, *v); break;
		}
	}
}

static int rk_load_parse_time(const char *what, const char *text, rk_usec *out, rk_error *err)
{
	const char *why = NULL;

	/* a row after 294247-01-10 (PostgreSQL's last years) is newer than any
	 * instant reckon holds: 'infinity', as the data's own max says */
	if (rk_time_parse_placed(text, strlen(text), false, out, &why) < 0)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot read %s \"%s\": %s", what, text, why ? why : "malformed");
	return 0;
}

/*
 * Reads the batch from the source: rows in c->rows, count and newest time
 * in *n / *newest (RK_USEC_NINF when nothing was read).
 */
static int rk_load_read(rk_load_run_ctx *c, const char *lower, rk_usec lookback, long *n, rk_usec *newest,
                        rk_error *err)
{
	const rk_load_spec *s = c->spec;
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], lb[64];
	const char *params[2];
	const char *tpl;
	rk_pg_result *res = NULL;
	int rows, cols;

	if (rk_load_strategy_is_interval(s->strategy)) {
		tpl = s->strategy == RK_LOAD_INTERVAL ? rk_sql_load_read_interval : rk_sql_load_read_interval_closed;
		params[0] = rk_time_format_sql(s->interval_start, true, a);
		params[1] = rk_time_format_sql(s->interval_end, true, b);
	} else {
		tpl = rk_sql_load_read_after;
		snprintf(lb, sizeof lb, "%" PRId64 " microseconds", (int64_t)lookback);
		params[0] = lower;
		params[1] = lb;
	}
	if (rk_load_render(c, tpl, err) < 0 ||
	    rk_pg_exec(c->src, "read source rows", c->sql.data, 2, params, RK_PG_ANY_ROWS, &res, err) < 0)
		return rk_error_prefix(err, "cannot read %s", c->source.display);
	rows = rk_pg_result_rows(res);
	cols = rk_pg_result_cols(res);
	*newest = RK_USEC_NINF;
	rk_buf_reset(&c->rows);
	for (int r = 0; r < rows; r++) {
		for (int f = 0; f + 1 < cols; f++) {
			if (f)
				rk_buf_putc(&c->rows, '\t');
			rk_load_copy_value(&c->rows, rk_pg_result_value(res, r, f));
		}
		rk_buf_putc(&c->rows, '\n');
	}
	if (rows > 0 && rk_pg_result_value(res, 0, cols - 1) &&
	    rk_load_parse_time("newest time read", rk_pg_result_value(res, 0, cols - 1), newest, err) < 0) {
		rk_pg_result_free(res);
		return -1;
	}
	rk_pg_result_free(res);
	*n = rows;
	return 0;
}

/* What the destination writes (target.h). */
static void rk_load_write_in(rk_load_run_ctx *c, rk_target_write_in *in)
{
	const rk_load_spec *s = c->spec;

	memset(in, 0, sizeof *in);
	in->mode = rk_load_strategy_is_keyed(s->strategy)      ? RK_TARGET_REPLACE_KEYS
	           : rk_load_strategy_is_interval(s->strategy) ? RK_TARGET_REPLACE_INTERVAL
	                                                       : RK_TARGET_APPEND;
	in->map = &c->map;
	in->rows = &c->rows;
	in->has_interval = s->has_interval;
	in->start = s->interval_start;
	in->end = s->interval_end;
	in->closed = s->strategy == RK_LOAD_INTERVAL_CLOSED;
	in->interval_col = c->interval_col;
	in->target_where = s->pair->target.where;
	in->vars = c->vars;
	in->nvars = c->nvars;
	in->strategy = rk_load_strategy_name(s->strategy);
}

int rk_load_same_database(rk_pg *a, rk_pg *b, bool *same, rk_error *err)
{
	char tag[64], pid[16];
	const char *p[2];
	long n = 0;
	rk_pg_result *res = NULL;

	/* b must see a's session, tagged with a unique name, in its own
	 * database's pg_stat_activity */
	snprintf(tag, sizeof tag, "reckon %ld.%lld", (long)getpid(), (long long)rk_time_now());
	snprintf(pid, sizeof pid, "%d", rk_pg_backend_pid(a));
	p[0] = tag;
	if (rk_pg_exec(a, "tag session", rk_sql_load_session_tag, 1, p, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	rk_pg_result_free(res);
	p[0] = pid;
	p[1] = tag;
	if (rk_pg_exec_long(b, "compare databases", rk_sql_load_same_database, 2, p, &n, err) < 0)
		return -1;
	*same = n == 1;
	return 0;
}

/* The run's first commit: from here on it finishes its steps. */
static void rk_load_committed(rk_load_run_ctx *c, rk_load_result *out)
{
	out->committed = true;
	rk_guard_idle(c->src);
	if (c->tgt)
		rk_guard_idle(c->tgt);
}

/* Connects to the source and quotes the spec's names; until the first
 * commit a signal cancels what runs and the run rolls back, after it the run
 * finishes its remaining steps. */
static int rk_load_open(rk_load_run_ctx *c, rk_error *err)
{
	const rk_load_spec *s = c->spec;

	if (!(c->src = rk_pg_connect(s->pair->source.conn, "source", err)) ||
	    rk_guard_session(c->src, s->pair->source.conn, err) < 0)
		return -1;
	if (rk_guard_busy(c->src, err) < 0 || rk_load_quote_all(c, err) < 0 ||
	    (c->tgt && rk_guard_busy(c->tgt, err) < 0))
		return -1;
	return 0;
}

/* One run per load at a time; the lock dies with the session. */
static int rk_load_lock(rk_load_run_ctx *c, rk_error *err)
{
	const rk_load_spec *s = c->spec;
	const char *lock_params[1];
	char lock_name[512];
	rk_pg_result *res = NULL;

	snprintf(lock_name, sizeof lock_name, "reckon load %s",
	         rk_load_strategy_has_watermark_table(s->strategy) ? s->load_name : rk_target_display(c->t));
	lock_params[0] = lock_name;
	if (rk_pg_exec(c->src, "lock load", rk_sql_load_lock, 1, lock_params, RK_PG_ONE_ROW, &res, err) < 0)
		return -1;
	rk_pg_result_free(res);
	return 0;
}

/* Strategy one-transaction: refused unless the write and the watermark
 * update can commit in one transaction (the target is in the watermark's
 * database). */
static int rk_load_check_one_transaction(rk_load_run_ctx *c, rk_error *err)
{
	bool same = false;

	if (!(rk_target_caps(c->t) & RK_TARGET_SPANS_WATERMARK)) {
		rk_error_set(err, RK_EXIT_USAGE,
		             "strategy one-transaction needs the write and the watermark update in one transaction, "
		             "and no transaction spans a %s target and the watermark's PostgreSQL database",
		             rk_target_kind(c->t));
		return rk_error_hint(err, "use write-first-keyed --lookback (write first, then move the watermark), "
		                          "or target-watermark");
	}
	if (rk_load_same_database(c->src, c->tgt, &same, err) < 0)
		return -1;
	if (!same) {
		rk_error_set(err, RK_EXIT_USAGE,
		             "strategy one-transaction needs the target in the watermark's database, but %s is "
		             "another database than %s: no transaction can span both, so the write and the "
		             "watermark update could not commit together",
		             rk_pg_describe(c->tgt), rk_pg_describe(c->src));
		return rk_error_hint(err, "point --target at the source database, or use write-first-keyed "
		                          "--lookback (write first, then move the watermark)");
	}
	return 0;
}

/* Where the batch starts: *lower from the watermark table or the target's
 * newest time (then *lookback is already subtracted and becomes 0), and the
 * log line of what is read. */
static int rk_load_batch_start(rk_load_run_ctx *c, rk_pg *wm_pg, rk_target_write_in *win, rk_load_result *out,
                               rk_usec *lower, rk_usec *lookback, rk_error *err)
{
	const rk_load_spec *s = c->spec;
	rk_load_strategy st = s->strategy;
	char tbuf[RK_TIME_STRLEN], tbuf2[RK_TIME_STRLEN];
	const char *how = NULL;

	if (rk_load_strategy_has_watermark_table(st)) {
		if (rk_load_watermark_prepare(wm_pg, &c->sql, c->vars, c->nvars, s->load_name, err) < 0 ||
		    rk_load_watermark_get(wm_pg, &c->sql, c->vars, c->nvars, s->load_name, lower, err) < 0)
			return -1;
	} else if (st == RK_LOAD_TARGET_WATERMARK) {
		if (rk_target_newest(c->t, win, c->map.c[c->map.time].tcol, *lookback, lower, &how, err) < 0)
			return -1;
		rk_log_info("newest time in %s from %s: %s", rk_target_display(c->t), how,
		            *lower == RK_USEC_NINF ? "none" : rk_time_format(*lower + *lookback, tbuf));
		/* a Delta target says where the time came from (a static string:
		 * how lives in the destination, closed before the result is printed) */
		out->newest_from = strcmp(how, "the files' stats") == 0 ? "stats"
		                   : strncmp(how, "a scan", 6) == 0     ? "scan"
		                                                        : NULL;
		*lookback = 0; /* already subtracted */
	}
	if (rk_load_strategy_is_interval(st))
		rk_log_info("reading %s for [%s, %s%c", c->source.display, rk_time_format(s->interval_start, tbuf),
		            rk_time_format(s->interval_end, tbuf2), st == RK_LOAD_INTERVAL ? ')' : ']');
	else
		rk_log_info("reading %s after %s minus lookback %s", c->source.display, rk_time_format(*lower, tbuf),
		            *lookback > 0 ? rk_duration_format(*lookback, tbuf2) : "none");
	return 0;
}

/* The batch written and committed, with the watermark moved before the
 * write, in its transaction or after it as the strategy orders. */
static int rk_load_write_batch(rk_load_run_ctx *c, rk_pg *wm_pg, rk_target_write_in *win, rk_usec newest,
                               rk_load_result *out, rk_error *err)
{
	const rk_load_spec *s = c->spec;
	rk_load_strategy st = s->strategy;
	bool one_tx = st == RK_LOAD_ONE_TRANSACTION;
	char tbuf[RK_TIME_STRLEN];
	long long version = -1;

	if (st == RK_LOAD_WATERMARK_FIRST) {
		/* the unsafe order: the claim "written up to here" before the write */
		if (rk_load_watermark_advance(wm_pg, &c->sql, c->vars, c->nvars, s->load_name, newest, &out->watermark,
		                              err) < 0)
			return -1;
		rk_load_committed(c, out);
		rk_load_report(s, "watermark=%s", rk_time_format(out->watermark, tbuf));
		rk_load_crash_point(s, RK_CRASH_AFTER_WATERMARK_COMMIT);
	}

	rk_load_crash_point(s, RK_CRASH_BEFORE_WRITE);
	if (rk_target_write(c->t, win, &out->rows_deleted, &out->rows_written, err) < 0)
		return -1;
	rk_load_crash_point(s, RK_CRASH_INSIDE_TRANSACTION);
	if (one_tx && rk_load_watermark_advance(c->tgt, &c->sql, c->vars, c->nvars, s->load_name, newest,
	                                        &out->watermark, err) < 0)
		return -1;
	if ((!out->committed && rk_guard_check(err) < 0) || rk_target_commit(c->t, win, &version, err) < 0)
		return -1;
	out->version = version;
	rk_load_committed(c, out);
	rk_load_report(s, "rows_written=%ld", out->rows_written);
	if (one_tx)
		rk_load_report(s, "watermark=%s", rk_time_format(out->watermark, tbuf));
	rk_load_crash_point(s, RK_CRASH_AFTER_WRITE_COMMIT);

	if (st == RK_LOAD_WRITE_FIRST_APPEND || st == RK_LOAD_WRITE_FIRST_KEYED) {
		if (rk_load_watermark_advance(wm_pg, &c->sql, c->vars, c->nvars, s->load_name, newest, &out->watermark,
		                              err) < 0)
			return -1;
		rk_load_report(s, "watermark=%s", rk_time_format(out->watermark, tbuf));
	}
	if (rk_load_strategy_has_watermark_table(st) && st != RK_LOAD_WATERMARK_FIRST)
		rk_load_crash_point(s, RK_CRASH_AFTER_WATERMARK_COMMIT);
	return 0;
}

static int rk_load_run_inner(rk_load_run_ctx *c, rk_load_result *out, rk_error *err)
{
	const rk_load_spec *s = c->spec;
	rk_load_strategy st = s->strategy;
	bool one_tx = st == RK_LOAD_ONE_TRANSACTION;
	rk_pg *wm_pg;
	rk_usec lower = RK_USEC_NINF, newest = RK_USEC_NINF, lookback = s->lookback;
	char lower_txt[RK_TIME_STRLEN];
	rk_target_write_in win;

	if (rk_load_open(c, err) < 0)
		return -1;
	rk_load_write_in(c, &win);
	if (rk_load_lock(c, err) < 0 || (one_tx && rk_load_check_one_transaction(c, err) < 0))
		return -1;

	wm_pg = one_tx ? c->tgt : c->src;
	if (rk_load_batch_start(c, wm_pg, &win, out, &lower, &lookback, err) < 0)
		return -1;
	rk_time_format_sql(lower, true, lower_txt);
	if (rk_load_read(c, lower_txt, lookback, &out->rows_read, &newest, err) < 0)
		return -1;
	rk_load_report(s, "rows_read=%ld", out->rows_read);
	rk_load_crash_point(s, RK_CRASH_AFTER_READ);
	if (rk_guard_check(err) < 0)
		return -1;

	out->has_watermark = rk_load_strategy_has_watermark_table(st) || st == RK_LOAD_TARGET_WATERMARK;
	out->watermark = lower;
	if (st == RK_LOAD_TARGET_WATERMARK) {
		/* the next run's starting point: the newest time in the target */
		rk_usec before = lower == RK_USEC_NINF ? RK_USEC_NINF : lower + s->lookback;

		out->watermark = newest > before ? newest : before;
	}
	return rk_load_write_batch(c, wm_pg, &win, newest, out, err);
}

int rk_load_run(const rk_load_spec *spec, rk_load_result *out, rk_error *err)
{
	rk_load_run_ctx c;
	int rc;

	memset(out, 0, sizeof *out);
	out->version = -1;
	if (rk_load_validate(spec, err) < 0)
		return -1;
	memset(&c, 0, sizeof c);
	c.spec = spec;
	rc = rk_load_run_inner(&c, out, err);
	if (rc < 0 && rk_guard_signal() && !out->committed) {
		rk_guard_check(err);
		rk_error_prefix(err, "load %s: nothing was committed", rk_load_strategy_name(spec->strategy));
	} else if (rc < 0 && rk_guard_is_lock_timeout(err)) {
		rk_guard_explain_lock(NULL, "the load's tables", err);
		if (!out->committed)
			rk_error_prefix(err, "nothing was committed");
	} else if (rc < 0 && err->code == RK_EXIT_RUNTIME && rk_pg_error_is_usage(err)) {
		/* a table or column the user named does not exist, or is not theirs */
		err->code = RK_EXIT_USAGE;
		if (!err->hint[0])
			rk_error_hint(err, "check --table/--source-table/--target-table, --key, --time, --columns, the "
			                   "mappings and filters and --interval-column against both databases");
	}
	/* closing an open transaction's connection rolls it back */
	rk_target_close(c.t);
	rk_guard_release(c.src);
	rk_pg_close(c.src);
	rk_dest_free(&c.source);
	rk_wmap_free(&c.map);
	rk_buf_free(&c.sql);
	rk_buf_free(&c.rows);
	free(c.q_source_columns);
	free(c.q_source_time);
	free(c.q_source_keys);
	free(c.q_source_filter);
	free(c.q_columns);
	free(c.q_time);
	free(c.q_keys);
	free(c.q_target_filter);
	free(c.q_wm_table);
	free(c.q_interval_column);
	return rc;
}
