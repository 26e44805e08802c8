/*
 * history.c - the history of the damaged windows (history.h): asked of the
 * sides that keep a log once the drilldown is done, looked up per window,
 * judged and put in words for the reports and the diagnosis.
 */
#include "check/history.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/timeutil.h"

void rk_history_collect(rk_check_result *res, int s, rk_reader *reader, size_t time_index)
{
	rk_range *ranges;
	size_t n = 0;
	rk_error err;
	int rc;

	if (!rk_reader_has(reader, RK_CAP_HISTORY))
		return;
	ranges = rk_xcalloc(res->nclosed ? res->nclosed : 1, sizeof *ranges);
	for (size_t w = 0; w < res->nclosed; w++)
		if (res->status[w] == RK_WIN_DIFFER)
			ranges[n++] = (rk_range){ rk_check_window_start(res, w), rk_check_window_end(res, w) };
	if (n) {
		rk_error_clear(&err);
		rc = rk_reader_history(reader, time_index, ranges, n, &res->side[s].history, &err);
		if (rc != 0) {
			/* evidence only: the verdict and the findings stand without it */
			res->side[s].history_note = rk_xstrdup(err.msg);
			rk_log_warn("%s: the history of the damaged windows was not read: %s",
			            s ? "target" : "source", err.msg);
		}
	}
	free(ranges);
}

const rk_range_history *rk_history_window(const rk_check_result *res, int s, size_t w)
{
	const rk_history *h = res->side[s].history;
	rk_usec start = rk_check_window_start(res, w);
	size_t a = 0, z = h ? h->nranges : 0;

	/* the ranges are the damaged windows in order */
	while (a < z) {
		size_t mid = a + (z - a) / 2;

		if (h->ranges[mid].range.from < start)
			a = mid + 1;
		else
			z = mid;
	}
	return h && a < h->nranges && h->ranges[a].range.from == start ? &h->ranges[a] : NULL;
}

rk_hist_state rk_history_state(const rk_range_history *rh, const rk_touch **latest)
{
	const rk_touch *last = NULL;
	bool unknown = false;

	for (size_t i = 0; i < rh->ntouch; i++) {
		const rk_touch *t = &rh->touch[i];

		unknown |= t->added_unknown > 0;
		if (t->added || t->removed)
			last = t;
	}
	if (latest)
		*latest = last;
	if (!last)
		return unknown ? RK_HIST_UNKNOWN : RK_HIST_UNWRITTEN;
	if (last->removed && !last->added && !rh->live)
		return RK_HIST_REMOVED;
	if (last->removed && last->added)
		return RK_HIST_REWRITTEN;
	return RK_HIST_WRITTEN;
}

const char *rk_hist_state_name(rk_hist_state s)
{
	static const char *const names[] = { "unwritten", "removed", "rewritten", "written", "unknown" };

	return (size_t)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void rk_touch_name(rk_buf *b, const rk_history *h, const rk_touch *t)
{
	char a[RK_TIME_STRLEN];

	if (t->version < 0) {
		rk_buf_printf(b, "the files of checkpoint %" PRId64 " (added at or before it)", h->base);
		return;
	}
	rk_buf_printf(b, "version %" PRId64 " (%s%s%s%s)", t->version, t->operation[0] ? t->operation : "no operation named",
	              ", ", rk_time_format(t->time, a), t->time_of_file ? ", the commit file's time" : "");
}

static const char *rk_files(uint32_t n)
{
	return n == 1 ? "file" : "files";
}

void rk_touch_did(rk_buf *b, const rk_touch *t)
{
	const char *sep = "";

	if (t->added) {
		rk_buf_printf(b, "added %u %s", t->added, rk_files(t->added));
		if (t->rows_added >= 0)
			rk_buf_printf(b, " (%" PRId64 " row%s)", t->rows_added, t->rows_added == 1 ? "" : "s");
		sep = ", ";
	}
	if (t->added_unknown) {
		rk_buf_printf(b, "%sadded %u %s without statistics of the time column (%s may hold rows of it)", sep,
		              t->added_unknown, rk_files(t->added_unknown), t->added_unknown == 1 ? "it" : "they");
		sep = ", ";
	}
	if (t->removed) {
		rk_buf_printf(b, "%sremoved %u %s", sep, t->removed, rk_files(t->removed));
		sep = ", ";
	}
	if (t->removed_unknown)
		rk_buf_printf(b, "%sremoved %u %s without statistics", sep, t->removed_unknown,
		              rk_files(t->removed_unknown));
}

void rk_history_text(rk_buf *b, const rk_history *h, const rk_range_history *rh, size_t max)
{
	size_t shown = 0;

	if (h->base >= 0)
		rk_buf_printf(b, "versions %" PRId64 " to %" PRId64 ", after checkpoint %" PRId64 " (older commits cleaned up): ",
		              h->first, h->version, h->base);
	else
		rk_buf_printf(b, "versions 0 to %" PRId64 ": ", h->version);
	if (!rh->ntouch) {
		rk_buf_puts(b, "no commit wrote rows of this window");
		return;
	}
	for (size_t i = 0; i < rh->ntouch; i++) {
		const rk_touch *t = &rh->touch[i];

		if (shown == max) {
			rk_buf_printf(b, "; and %zu more commit%s", rh->ntouch - shown, rh->ntouch - shown == 1 ? "" : "s");
			break;
		}
		if (shown++)
			rk_buf_puts(b, "; ");
		rk_touch_name(b, h, t);
		rk_buf_puts(b, t->version < 0 ? ": " : " ");
		rk_touch_did(b, t);
	}
	if (rh->live || rh->live_unknown) {
		rk_buf_printf(b, "; %u %s of version %" PRId64 " hold%s rows of it", rh->live, rk_files(rh->live), h->version,
		              rh->live == 1 ? "s" : "");
		if (rh->live_unknown)
			rk_buf_printf(b, " (and %u without statistics may)", rh->live_unknown);
	} else {
		rk_buf_printf(b, "; no file of version %" PRId64 " holds rows of it", h->version);
	}
}
