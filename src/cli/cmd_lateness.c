/*
 * cmd_lateness.c - reckon lateness: how long after their time column the
 * source's rows committed (docs/reference.md), per window and overall, what a
 * load with a given margin would have missed, and the margin that would
 * have covered every row seen.  One statement, one scan of the range.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/tableopts.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "io/reader.h"

/* The margins every report shows, besides the --settle given. */
static const rk_usec rk_lateness_margins[] = { 0, 60 * RK_USEC_PER_SEC, 600 * RK_USEC_PER_SEC };
#define RK_LATENESS_NFIXED (sizeof rk_lateness_margins / sizeof rk_lateness_margins[0])

typedef struct rk_lateness {
	rk_usec from, to, width;
	rk_usec margins[RK_LAG_MAX_MARGINS];
	size_t nmargins;
	rk_lag_stats all;
	rk_lag_stats *win;
	size_t nwin;
} rk_lateness;

/* A lag in seconds as JSON: null when no row has a known commit time. */
static json_t *rk_lag_json(const rk_lag_stats *st, double v)
{
	return st->known ? json_real(v) : json_null();
}

static void rk_lateness_json(FILE *out, const rk_lateness *l)
{
	json_t *root = json_object(), *lag = json_object(), *missed = json_object(), *wins = json_array();
	char d[RK_TIME_STRLEN];

	json_object_set_new(root, "rows", json_integer((json_int_t)l->all.rows));
	json_object_set_new(root, "unknown_commit_time", json_integer((json_int_t)(l->all.rows - l->all.known)));
	json_object_set_new(lag, "p50", rk_lag_json(&l->all, l->all.p50));
	json_object_set_new(lag, "p90", rk_lag_json(&l->all, l->all.p90));
	json_object_set_new(lag, "p99", rk_lag_json(&l->all, l->all.p99));
	json_object_set_new(lag, "p999", rk_lag_json(&l->all, l->all.p999));
	json_object_set_new(lag, "max", rk_lag_json(&l->all, l->all.max));
	json_object_set_new(root, "lag_seconds", lag);
	for (size_t k = 0; k < l->nmargins; k++)
		json_object_set_new(missed, rk_duration_format(l->margins[k], d), json_integer((json_int_t)l->all.missed[k]));
	json_object_set_new(root, "missed", missed);
	json_object_set_new(root, "covering_margin_seconds",
	                    rk_lag_json(&l->all, l->all.max > 0 ? l->all.max : 0));
	for (size_t w = 0; w < l->nwin; w++) {
		json_t *it = json_object();

		json_object_set_new(it, "start", json_string(rk_time_format(l->from + (rk_usec)w * l->width, d)));
		json_object_set_new(it, "rows", json_integer((json_int_t)l->win[w].rows));
		json_object_set_new(it, "max_lag_seconds", rk_lag_json(&l->win[w], l->win[w].max));
		json_array_append_new(wins, it);
	}
	json_object_set_new(root, "windows", wins);
	json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	fputc('\n', out);
	json_decref(root);
}

static void rk_lateness_row(FILE *out, const char *label, const rk_lag_stats *st)
{
	fprintf(out, "%-22s %10llu %8llu", label, (unsigned long long)st->rows,
	        (unsigned long long)(st->rows - st->known));
	if (st->known)
		fprintf(out, " %10.3f %10.3f %10.3f %10.3f %10.3f\n", st->p50, st->p90, st->p99, st->p999, st->max);
	else
		fprintf(out, " %10s %10s %10s %10s %10s\n", "-", "-", "-", "-", "-");
}

static void rk_lateness_text(FILE *out, const char *describe, const rk_lateness *l)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], d[RK_TIME_STRLEN];

	fprintf(out, "source: %s\nrange:  [%s, %s)  window %s\n\n", describe, rk_time_format(l->from, a),
	        rk_time_format(l->to, b), rk_duration_format(l->width, d));
	fprintf(out, "commit lag in seconds (commit time - time column), over the rows whose commit time is known:\n");
	fprintf(out, "%-22s %10s %8s %10s %10s %10s %10s %10s\n", "window start", "rows", "unknown", "p50", "p90", "p99",
	        "p99.9", "max");
	for (size_t w = 0; w < l->nwin; w++)
		rk_lateness_row(out, rk_time_format(l->from + (rk_usec)w * l->width, a), &l->win[w]);
	rk_lateness_row(out, "all", &l->all);
	fprintf(out, "\nrows a load would have read before they committed, by margin:");
	for (size_t k = 0; k < l->nmargins; k++)
		fprintf(out, "%s %s %llu", k ? "," : "", rk_duration_format(l->margins[k], d),
		        (unsigned long long)l->all.missed[k]);
	fputc('\n', out);
	if (l->all.known) {
		double cover = l->all.max > 0 ? l->all.max : 0;

		/* the suggestion in whole seconds, as --settle reads it: "10m42s" */
		fprintf(out, "the smallest margin that covers every row seen: %.6fs (e.g. --settle %s)\n", cover,
		        rk_duration_format((rk_usec)ceil(cover) * RK_USEC_PER_SEC, d));
	} else {
		fprintf(out, "no row of the range has a known commit time\n");
	}
	if (l->all.rows > l->all.known)
		fprintf(out, "%llu row%s without a known commit time (frozen, or written before track_commit_timestamp "
		             "was on) are not in the lags\n",
		        (unsigned long long)(l->all.rows - l->all.known),
		        l->all.rows - l->all.known == 1 ? "" : "s");
}

/* The range, window and margins from the options. */
static int rk_lateness_setup(const rk_opts *o, rk_lateness *l, rk_error *err)
{
	rk_usec now = rk_opts_is_set(o, RK_O_NOW) ? o->now : rk_time_now();
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], w[RK_TIME_STRLEN];

	l->width = o->window;
	if (o->window < 0 || (rk_opts_is_set(o, RK_O_LAST) && o->last < 0)) {
		rk_error_set(err, RK_EXIT_USAGE, "reckon lateness measures fixed windows, not calendar months");
		return rk_error_hint(err, "give --window and --last as durations, e.g. --window 1h --last 7d");
	}
	if (rk_opts_is_set(o, RK_O_LAST)) {
		if (rk_tableopts_last(o->last, o->window, now, o->settle, &l->from, &l->to, err) < 0)
			return -1;
	} else if (!rk_opts_is_set(o, RK_O_FROM) && !rk_opts_is_set(o, RK_O_TO)) {
		rk_error_set(err, RK_EXIT_USAGE, "missing the range: --from and --to, or --last");
		return rk_error_hint(err, "e.g. --last 7d for the latest week of closed windows");
	} else if (rk_opts_require(o, RK_O_FROM, err) < 0 || rk_opts_require(o, RK_O_TO, err) < 0) {
		return -1;
	} else {
		l->from = o->from;
		l->to = o->to;
	}
	if (l->from >= l->to) {
		rk_error_set(err, RK_EXIT_USAGE, "--from %s is not before --to %s", rk_time_format(l->from, a),
		             rk_time_format(l->to, b));
		return rk_error_hint(err, "the range is [from, to): give a later --to");
	}
	if ((l->to - l->from) % l->width != 0) {
		rk_error_set(err, RK_EXIT_USAGE, "the range [%s, %s) is not a whole number of %s windows",
		             rk_time_format(l->from, a), rk_time_format(l->to, b), rk_duration_format(l->width, w));
		return rk_error_hint(err, "move --to so that to - from is a multiple of --window");
	}
	l->nwin = (size_t)((l->to - l->from) / l->width);
	for (size_t k = 0; k < RK_LATENESS_NFIXED; k++)
		l->margins[l->nmargins++] = rk_lateness_margins[k];
	if (rk_opts_is_set(o, RK_O_SETTLE)) {
		bool have = false;

		for (size_t k = 0; k < l->nmargins; k++)
			have |= l->margins[k] == o->settle;
		if (!have)
			l->margins[l->nmargins++] = o->settle;
	}
	return 0;
}

int rk_cmd_lateness(int argc, char **argv)
{
	rk_opts o;
	rk_error err;
	rk_lateness l;
	rk_reader *rd = NULL;
	rk_reader_opts ro;
	const char *cols[1];
	rk_type type;
	rk_lag_query q;
	int status = RK_EXIT_OK, rc;

	rk_error_clear(&err);
	memset(&l, 0, sizeof l);
	rc = rk_opts_start(&o, RK_CMD_LATENESS, argc, argv,
	                   "every input of reckon lateness is an option; see 'reckon lateness --help'", &err);
	if (rc <= 0)
		return rk_opts_stop(&o, rc, &err);
	if (rk_opts_require(&o, RK_O_TABLE, &err) < 0 || rk_lateness_setup(&o, &l, &err) < 0)
		goto fail;
	if (!rk_conn_has(o.source, RK_CAP_COMMIT_TIMES)) {
		rk_error_set(&err, RK_EXIT_USAGE, "reckon lateness needs a PostgreSQL source, not %s", o.source);
		rk_error_hint(&err, "commit times live in the source database (track_commit_timestamp)");
		goto fail;
	}
	memset(&ro, 0, sizeof ro);
	ro.side = "source";
	ro.conn = o.source;
	ro.table = o.table;
	ro.where = o.source_where;
	cols[0] = o.time;
	if (!(rd = rk_reader_open(&ro, &err)) || rk_reader_bind(rd, cols, 1, &type, &err) < 0)
		goto fail;
	if (!rk_type_is_time(type)) {
		rk_error_set(&err, RK_EXIT_USAGE, "time column %s has type %s on the source; it must be timestamptz, "
		                                  "timestamp or date",
		             o.time, rk_type_name(type));
		rk_error_hint(&err, "choose another --time column");
		goto fail;
	}
	l.win = rk_xcalloc(l.nwin, sizeof *l.win);
	q.time_index = 0;
	q.from = l.from;
	q.to = l.to;
	q.width = l.width;
	q.margins = l.margins;
	q.nmargins = l.nmargins;
	rc = rk_reader_lateness(rd, &q, &l.all, l.win, &err);
	if (rc != 0) {
		if (rc > 0)
			err.code = RK_EXIT_USAGE;
		goto fail;
	}
	if (o.format == RK_OPT_FORMAT_JSON)
		rk_lateness_json(stdout, &l);
	else
		rk_lateness_text(stdout, rk_reader_describe(rd), &l);
	if (fflush(stdout) != 0) {
		rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to standard output");
		goto fail;
	}
	goto done;
fail:
	rk_log_error(&err);
	status = err.code ? err.code : RK_EXIT_RUNTIME;
done:
	rk_reader_free(rd);
	free(l.win);
	rk_opts_free(&o);
	return status;
}
