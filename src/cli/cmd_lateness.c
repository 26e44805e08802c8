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
#include "core/tz.h"
#include "io/reader.h"

/* The margins every report shows, besides the --settle given. */
static const rk_usec rk_lateness_margins[] = { 0, 60 * RK_USEC_PER_SEC, 600 * RK_USEC_PER_SEC };
#define RK_LATENESS_NFIXED (sizeof rk_lateness_margins / sizeof rk_lateness_margins[0])

typedef struct rk_lateness {
	rk_usec from, to, width;
	const rk_tz *tz;       /* --timezone: local times beside UTC; or NULL */
	const rk_usec *bounds; /* calendar windows: [nwin + 1] boundaries; or NULL */
	const char *window_text;
	char window_buf[RK_TIME_STRLEN];
	rk_usec margins[RK_LAG_MAX_MARGINS];
	size_t nmargins;
	rk_lag_stats all;
	rk_lag_stats *win;
	size_t nwin;
} rk_lateness;

/* The start of window w. */
static rk_usec rk_lateness_start(const rk_lateness *l, size_t w)
{
	return l->bounds ? l->bounds[w] : l->from + (rk_usec)w * l->width;
}

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

		json_object_set_new(it, "start", json_string(rk_time_format(rk_lateness_start(l, w), d)));
		if (l->tz)
			json_object_set_new(it, "start_local", json_string(rk_tz_format(l->tz, rk_lateness_start(l, w), d)));
		json_object_set_new(it, "rows", json_integer((json_int_t)l->win[w].rows));
		json_object_set_new(it, "max_lag_seconds", rk_lag_json(&l->win[w], l->win[w].max));
		json_array_append_new(wins, it);
	}
	json_object_set_new(root, "windows", wins);
	json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	fputc('\n', out);
	json_decref(root);
}

static void rk_lateness_row(FILE *out, int width, const char *label, const rk_lag_stats *st)
{
	fprintf(out, "%-*s %10llu %8llu", width, label, (unsigned long long)st->rows,
	        (unsigned long long)(st->rows - st->known));
	if (st->known)
		fprintf(out, " %10.3f %10.3f %10.3f %10.3f %10.3f\n", st->p50, st->p90, st->p99, st->p999, st->max);
	else
		fprintf(out, " %10s %10s %10s %10s %10s\n", "-", "-", "-", "-", "-");
}

static void rk_lateness_text(FILE *out, const char *describe, const rk_lateness *l)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], d[RK_TIME_STRLEN];

	fprintf(out, "source: %s\nrange:  [%s, %s)  window %s\n", describe, rk_time_format(l->from, a),
	        rk_time_format(l->to, b), l->window_text);
	if (l->tz)
		fprintf(out, "local:  [%s, %s)  in %s (%s)\n", rk_tz_format(l->tz, l->from, a), rk_tz_format(l->tz, l->to, b),
		        rk_tz_name(l->tz), l->bounds ? "calendar windows" : "fixed widths from its midnight");
	fprintf(out, "\ncommit lag in seconds (commit time - time column), over the rows whose commit time is known:\n");
	if (l->tz)
		fprintf(out, "%-22s %-26s %10s %8s %10s %10s %10s %10s %10s\n", "window start", "local start", "rows",
		        "unknown", "p50", "p90", "p99", "p99.9", "max");
	else
		fprintf(out, "%-22s %10s %8s %10s %10s %10s %10s %10s\n", "window start", "rows", "unknown", "p50", "p90",
		        "p99", "p99.9", "max");
	for (size_t w = 0; w < l->nwin; w++) {
		char label[2 * RK_TIME_STRLEN + 2];

		if (l->tz)
			snprintf(label, sizeof label, "%-22s %-26s", rk_time_format(rk_lateness_start(l, w), a),
			         rk_tz_format(l->tz, rk_lateness_start(l, w), b));
		else
			snprintf(label, sizeof label, "%s", rk_time_format(rk_lateness_start(l, w), a));
		rk_lateness_row(out, l->tz ? 49 : 22, label, &l->win[w]);
	}
	rk_lateness_row(out, l->tz ? 49 : 22, "all", &l->all);
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

/* The range, window and margins from the options: the range as check
 * reads it (rk_tableopts_check: --from/--to or --last, and with --timezone
 * calendar windows, dates and --last in its units), into spec. */
static int rk_lateness_setup(const rk_opts *o, rk_lateness *l, rk_check_spec *spec, rk_error *err)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], w[RK_TIME_STRLEN];

	if (rk_tableopts_check(o, rk_time_now(), spec, err) < 0)
		return -1;
	l->from = spec->from;
	l->to = spec->to;
	l->width = o->window;
	l->tz = spec->tz;
	l->bounds = spec->bounds;
	l->window_text = o->text[RK_O_WINDOW] ? o->text[RK_O_WINDOW] : rk_duration_format(o->window, l->window_buf);
	if (l->from >= l->to) {
		rk_error_set(err, RK_EXIT_USAGE, "--from %s is not before --to %s", rk_time_format(l->from, a),
		             rk_time_format(l->to, b));
		return rk_error_hint(err, "the range is [from, to): give a later --to");
	}
	if (spec->bounds) {
		l->nwin = spec->nbounds - 1;
	} else if ((l->to - l->from) % l->width != 0) {
		rk_error_set(err, RK_EXIT_USAGE, "the range [%s, %s) is not a whole number of %s windows",
		             rk_time_format(l->from, a), rk_time_format(l->to, b), rk_duration_format(l->width, w));
		return rk_error_hint(err, "move --to so that to - from is a multiple of --window");
	} else {
		l->nwin = (size_t)((l->to - l->from) / l->width);
	}
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
	rk_check_spec spec;
	int status = RK_EXIT_OK, rc;

	rk_error_clear(&err);
	memset(&l, 0, sizeof l);
	memset(&spec, 0, sizeof spec);
	rc = rk_opts_start(&o, RK_CMD_LATENESS, argc, argv,
	                   "every input of reckon lateness is an option; see 'reckon lateness --help'", &err);
	if (rc <= 0)
		return rk_opts_stop(&o, rc, &err);
	if (rk_opts_require(&o, RK_O_TABLE, &err) < 0 || rk_lateness_setup(&o, &l, &spec, &err) < 0)
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
	q.bounds = l.bounds;
	q.nbounds = l.bounds ? l.nwin + 1 : 0;
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
	rk_tableopts_free(&spec);
	rk_opts_free(&o);
	return status;
}
