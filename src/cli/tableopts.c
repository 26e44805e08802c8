/*
 * tableopts.c - the one builder of a pair's spec from the options.
 */
#include "cli/tableopts.h"

#include <stdlib.h>

#include <string.h>

#include "core/buf.h"
#include "core/ini.h"
#include "core/log.h"
#include "core/tz.h"
#include "io/reader.h"

/* More calendar windows than this is a mistake in --window (check.c has
 * the same bound for fixed ones). */
#define RK_TABLEOPTS_MAX_WINDOWS 10000000

/* A side's conn, relation and driver settings; a side that takes no SQL
 * (CSV) refuses expressions and filters. */
static int rk_tableopts_side(const rk_opts *o, int s, rk_reader_opts *r, rk_error *err)
{
	const rk_map *m = s ? &o->target_expr : &o->source_expr;
	const char *where = s ? o->target_where : o->source_where;
	const char *side = s ? "target" : "source";

	r->side = side;
	r->conn = s ? o->target : o->source;
	if (s && !r->conn && o->cmd == RK_CMD_LOAD)
		r->conn = o->source; /* a load within one database */
	r->table = (s ? o->target_table : o->source_table) ? (s ? o->target_table : o->source_table) : o->table;
	/* the options a driver reads itself, by option name (the CSV dialect) */
	r->nsettings = 0;
	rk_reader_setting_add(r, "csv-delimiter", o->csv_delimiter);
	rk_reader_setting_add(r, "csv-null", o->csv_null);
	rk_reader_setting_add(r, "delta-partition-zone", o->delta_partition_zone);
	r->expr_names = (const char *const *)m->names;
	r->expr_sql = (const char *const *)m->sql;
	r->nexpr = m->n;
	r->where = where;
	if (!rk_conn_has(r->conn, RK_CAP_EXPRESSIONS) && (m->n || where)) {
		rk_error_set(err, RK_EXIT_USAGE, "the %s is %s (%s), which takes no SQL: --%s-%s", side,
		             rk_conn_noun(r->conn), r->conn, side, m->n ? "expr" : "where");
		return rk_error_hint(err, "map and filter %s before the check, or load it into a table",
		                     rk_conn_noun(r->conn));
	}
	if (rk_conn_has(r->conn, RK_CAP_RELATION) && (!r->table || !*r->table)) {
		rk_error_set(err, RK_EXIT_USAGE, "missing required option --table (or --%s-table)", side);
		return rk_error_hint(err, "name the relation, e.g. --table mart.orders");
	}
	return 0;
}

int rk_tableopts_pair(const rk_opts *o, rk_check_spec *spec, rk_error *err)
{
	if (rk_opts_require(o, RK_O_SOURCE, err) < 0 ||
	    (o->cmd != RK_CMD_LOAD && rk_opts_require(o, RK_O_TARGET, err) < 0) ||
	    (o->cmd != RK_CMD_CHECK && o->cmd != RK_CMD_REPAIR && rk_opts_require(o, RK_O_TIME, err) < 0))
		return -1;
	if (rk_tableopts_side(o, 0, &spec->source, err) < 0 || rk_tableopts_side(o, 1, &spec->target, err) < 0)
		return -1;
	spec->key = (const char *const *)o->key.items;
	spec->nkey = o->key.n;
	spec->time = o->time;
	spec->sum = (const char *const *)o->sum.items;
	spec->nsum = o->sum.n;
	spec->columns = (const char *const *)o->columns.items;
	spec->ncolumns = o->columns.n;
	spec->exclude = (const char *const *)o->exclude_columns.items;
	spec->nexclude = o->exclude_columns.n;
	spec->types = (const char *const *)o->types.items;
	spec->ntypes = o->types.n;
	if (o->time_column_zone && !(spec->time_zone = rk_tz_get(o->time_column_zone, "--time-column-zone", err)))
		return -1;
	if (o->columns.n && o->exclude_columns.n) {
		rk_error_set(err, RK_EXIT_USAGE, "options --columns and --exclude-columns exclude each other");
		return rk_error_hint(err, "--exclude-columns trims the default whole row; with --columns, list only the "
		                          "columns to hash");
	}
	return 0;
}

int rk_tableopts_last(rk_usec last, rk_usec width, rk_usec now, rk_usec settle, rk_usec *from, rk_usec *to,
                      rk_error *err)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];
	rk_usec closed = now - settle, q;

	if (last % width != 0) {
		rk_error_set(err, RK_EXIT_USAGE, "--last %s is not a whole number of %s windows", rk_duration_format(last, a),
		             rk_duration_format(width, b));
		return rk_error_hint(err, "give --last as a multiple of --window, e.g. --last 1d --window 1h");
	}
	/* floor, also before 1970 */
	q = closed / width;
	if (closed % width != 0 && closed < 0)
		q--;
	*to = q * width;
	*from = *to - last;
	return 0;
}

void rk_tableopts_free(rk_check_spec *spec)
{
	free((char *)spec->range_warning);
	spec->range_warning = NULL;
	free(spec->bounds);
	spec->bounds = NULL;
	spec->nbounds = 0;
}

void rk_tableopts_preload(const rk_opts *o, const rk_ini *job)
{
	rk_error err;

	if (o->timezone)
		(void)rk_tz_get(o->timezone, "--timezone", &err);
	if (o->time_column_zone)
		(void)rk_tz_get(o->time_column_zone, "--time-column-zone", &err);
	for (size_t i = 0; job && i < job->nentries; i++)
		if (strcmp(job->entries[i].key, "timezone") == 0 || strcmp(job->entries[i].key, "time-column-zone") == 0)
			(void)rk_tz_get(job->entries[i].value, job->entries[i].key, &err);
}

void rk_tableopts_local_date(const rk_opts *o, rk_optid id, const rk_tz *tz, rk_usec *t)
{
	int64_t days;

	if (tz && rk_opts_is_set(o, id) && rk_time_arg_date(o->text[id], &days))
		*t = rk_tz_utc(tz, days * RK_USEC_PER_DAY, NULL);
}

/*
 * The warning a check of a zoneless time column gives when an end of its
 * range was given in another offset than the column's zone has there: a
 * time with an offset (--from 2026-03-28T00:00:00+01:00), or a date with
 * --timezone.  A new string, or NULL.
 */
static char *rk_tableopts_range_warning(const rk_opts *o, const rk_tz *tz, const rk_check_spec *spec)
{
	static const rk_optid ids[2] = { RK_O_FROM, RK_O_TO };
	const rk_tz *col = spec->time_zone;

	for (int i = 0; i < 2; i++) {
		rk_usec t = i ? spec->to : spec->from;
		int32_t given, has = col ? rk_tz_offset(col, t) : 0;
		int64_t days;
		char a[RK_TIME_STRLEN];
		rk_buf b = RK_BUF_INIT;

		if (!rk_opts_is_set(o, ids[i]))
			continue;
		if (rk_time_arg_date(o->text[ids[i]], &days)) {
			if (!tz)
				continue; /* UTC's midnight */
			given = rk_tz_offset(tz, t);
		} else if (!rk_time_text_offset(o->text[ids[i]], &given)) {
			continue;
		}
		if (given == has)
			continue;
		rk_buf_printf(&b, "--%s %s is given at UTC%c%02d:%02d, but the time column's zoneless times are read in "
		                  "%s (UTC%c%02d:%02d at %s): the windows may be shifted by the difference; give "
		                  "--time-column-zone the zone the column's times are written in",
		              i ? "to" : "from", o->text[ids[i]], given < 0 ? '-' : '+', abs(given) / 3600,
		              abs(given) / 60 % 60, col ? rk_tz_name(col) : "UTC", has < 0 ? '-' : '+', abs(has) / 3600,
		              abs(has) / 60 % 60, rk_time_format(t, a));
		return rk_buf_cstr(&b), b.data;
	}
	return NULL;
}

/* --last with --timezone: calendar units back from the latest closed
 * boundary, or fixed widths on the grid of the zone's midnight. */
static int rk_tableopts_last_zone(const rk_opts *o, const rk_tz *tz, bool calendar, rk_calunit unit,
                                  rk_check_spec *spec, rk_error *err)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];
	rk_usec closed = spec->now - spec->settle;
	const char *lt = o->text[RK_O_LAST], *wt = o->text[RK_O_WINDOW];

	if (calendar) {
		int64_t count;

		if (unit.months ? o->last >= 0 || -o->last % unit.months != 0
		                : o->last < 0 || o->last % RK_USEC_PER_DAY != 0 ||
		                          (o->last / RK_USEC_PER_DAY) % unit.days != 0) {
			rk_error_set(err, RK_EXIT_USAGE, "--last %s is not a whole number of %s windows", lt, wt);
			return rk_error_hint(err, "give --last in the window's calendar unit, e.g. --last 7d --window 1d, "
			                          "--last 3mo --window 1mo");
		}
		count = unit.months ? -o->last / unit.months : o->last / RK_USEC_PER_DAY / unit.days;
		spec->to = rk_tz_floor(tz, unit, closed);
		spec->from = rk_tz_step(tz, unit, spec->to, -count);
		return 0;
	}
	if (o->last < 0 || o->last % o->window != 0) {
		rk_error_set(err, RK_EXIT_USAGE, "--last %s is not a whole number of %s windows", lt, wt);
		return rk_error_hint(err, "give --last as a multiple of --window, e.g. --last 1d --window 1h");
	}
	{
		rk_usec mid = rk_tz_midnight(tz, closed);

		spec->to = mid + (closed - mid) / o->window * o->window;
		spec->from = spec->to - o->last;
	}
	rk_log_debug("--last %s in %s: [%s, %s)", lt, rk_tz_name(tz), rk_time_format(spec->from, a),
	             rk_time_format(spec->to, b));
	return 0;
}

/* The options of a check that share nothing with key segments. */
static const rk_optid rk_tableopts_time_only[] = { RK_O_WINDOW, RK_O_FROM, RK_O_TO, RK_O_LAST, RK_O_TIMEZONE,
	                                           RK_O_WATERMARK_QUERY, RK_O_TIME_COLUMN_ZONE };

/* A check without --time: key segments (docs/key-segments.md).  Nothing
 * is open, so settle and now play no part. */
static int rk_tableopts_segments(const rk_opts *o, rk_usec now, rk_check_spec *spec, rk_error *err)
{
	for (size_t i = 0; i < sizeof rk_tableopts_time_only / sizeof *rk_tableopts_time_only; i++) {
		rk_optid id = rk_tableopts_time_only[i];

		/* a job's [defaults] window and range are for its tables with a
		 * time column */
		if (!rk_opts_is_set(o, id) || o->job)
			continue;
		rk_error_set(err, RK_EXIT_USAGE, "option --%s needs --time: without it the table is checked by key "
		                                 "segments",
		             rk_opts_name(id));
		return rk_error_hint(err, "add --time COL to check time windows, or drop --%s", rk_opts_name(id));
	}
	if (o->pushdown == RK_OPT_PUSHDOWN_ON) {
		rk_error_set(err, RK_EXIT_USAGE, "--pushdown on needs --time: key segments are digested by reckon");
		return rk_error_hint(err, "drop --pushdown, or use --pushdown auto");
	}
	spec->time = NULL;
	spec->settle = 0;
	spec->now = now;
	spec->jobs = o->jobs;
	spec->pushdown = RK_PUSHDOWN_OFF;
	spec->leaf_rows = o->leaf_rows;
	spec->no_values = o->no_values;
	spec->findings = true;
	spec->diagnose = false;
	return 0;
}

int rk_tableopts_check(const rk_opts *o, rk_usec now, rk_check_spec *spec, rk_error *err)
{
	const rk_tz *tz = NULL;
	rk_calunit unit = { 0, 0 };
	bool calendar = false;

	if (!o->time)
		return rk_tableopts_segments(o, now, spec, err);
	spec->width = o->window;
	/* (a default, as lateness has, counts as given) */
	if (!o->window && rk_opts_require(o, RK_O_WINDOW, err) < 0)
		return -1;
	if (o->timezone && !(tz = rk_tz_get(o->timezone, "--timezone", err)))
		return -1;
	if (!tz && (o->window < 0 || (rk_opts_is_set(o, RK_O_LAST) && o->last < 0))) {
		rk_error_set(err, RK_EXIT_USAGE, "--%s %s is a calendar unit: it needs --timezone",
		             o->window < 0 ? "window" : "last", o->text[o->window < 0 ? RK_O_WINDOW : RK_O_LAST]);
		return rk_error_hint(err, "add --timezone ZONE (e.g. Europe/Berlin, or UTC for UTC months)");
	}
	if (tz) {
		calendar = o->window < 0 || o->window % RK_USEC_PER_DAY == 0;
		if (o->window < 0)
			unit.months = (int32_t)-o->window;
		else if (calendar && o->window / RK_USEC_PER_DAY > 100000)
			return rk_error_set(err, RK_EXIT_USAGE, "--window %s is too long", o->text[RK_O_WINDOW]);
		else if (calendar)
			unit.days = (int32_t)(o->window / RK_USEC_PER_DAY);
		spec->tz = tz;
		spec->window_text = o->text[RK_O_WINDOW];
	}
	spec->settle = o->settle;
	spec->now = rk_opts_is_set(o, RK_O_NOW) ? o->now : now;
	rk_tableopts_local_date(o, RK_O_NOW, tz, &spec->now);
	if (tz && rk_opts_is_set(o, RK_O_LAST)) {
		if (rk_tableopts_last_zone(o, tz, calendar, unit, spec, err) < 0)
			return -1;
	} else if (rk_opts_is_set(o, RK_O_LAST)) {
		if (rk_tableopts_last(o->last, o->window, spec->now, spec->settle, &spec->from, &spec->to, err) < 0)
			return -1;
	} else if (!rk_opts_is_set(o, RK_O_FROM) && !rk_opts_is_set(o, RK_O_TO)) {
		rk_error_set(err, RK_EXIT_USAGE, "missing the check range: --from and --to, or --last");
		return rk_error_hint(err, "e.g. --last 1d for the latest closed day of windows");
	} else if (rk_opts_require(o, RK_O_FROM, err) < 0 || rk_opts_require(o, RK_O_TO, err) < 0) {
		return -1;
	} else {
		spec->from = o->from;
		spec->to = o->to;
		rk_tableopts_local_date(o, RK_O_FROM, tz, &spec->from);
		rk_tableopts_local_date(o, RK_O_TO, tz, &spec->to);
	}
	if (calendar) {
		char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];

		if (spec->from >= spec->to) {
			rk_error_set(err, RK_EXIT_USAGE, "--from %s is not before --to %s", rk_tz_format(tz, spec->from, a),
			             rk_tz_format(tz, spec->to, b));
			return rk_error_hint(err, "the check range is [from, to): give a later --to");
		}
		if (rk_tz_bounds(tz, unit, spec->from, spec->to, RK_TABLEOPTS_MAX_WINDOWS, &spec->bounds, &spec->nbounds,
		                 err) < 0)
			return -1;
	}
	spec->range_warning = rk_tableopts_range_warning(o, tz, spec);
	spec->jobs = o->jobs;
	spec->pushdown = o->pushdown == RK_OPT_PUSHDOWN_ON     ? RK_PUSHDOWN_ON
	                 : o->pushdown == RK_OPT_PUSHDOWN_AUTO ? RK_PUSHDOWN_AUTO
	                                                       : RK_PUSHDOWN_OFF;
	spec->leaf_rows = o->leaf_rows;
	spec->watermark_query = o->watermark_query;
	spec->no_values = o->no_values;
	spec->findings = true;
	/* RECKON_DIAGNOSE=off leaves the likely causes and warnings out: a
	 * diagnostic switch the drilldown benchmark measures the diagnosis with */
	{
		const char *dg = getenv(RK_TABLEOPTS_DIAGNOSE_ENV);

		spec->diagnose = !(dg && strcmp(dg, "off") == 0);
	}
	return 0;
}
