/*
 * status.c - the windows' status as every output names and counts it
 * (status.h), and the outcome in one phrase (rk_report_brief,
 * rk_report_job_counts, rk_report_thousands).
 */
#include "report/status.h"

#include <stdbool.h>
#include <stdio.h>

#include "core/buf.h"

const char *rk_report_status_name(rk_win_status s)
{
	return s == RK_WIN_MATCH ? "match" : s == RK_WIN_DIFFER ? "differ"
	                                                        : "open";
}

size_t rk_report_count_status(const rk_check_result *r, rk_win_status s)
{
	size_t n = 0;

	for (size_t w = 0; w < r->nwindows; w++)
		n += r->status[w] == s;
	return n;
}

const char *rk_report_window(const rk_check_spec *sp, char out[RK_TIME_STRLEN])
{
	return sp->window_text ? sp->window_text : rk_duration_format(sp->width, out);
}

bool rk_report_win_rerun(const rk_check_result *r, size_t w)
{
	return r->status[w] == RK_WIN_DIFFER;
}

/* ------------------------------------------------------------------------
 * the outcome in a phrase (headlines, the line on stderr)
 * ---------------------------------------------------------------------- */

char *rk_report_thousands(uint64_t n, char out[32])
{
	char digits[24];
	int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n), o = 0;

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	return out;
}

static const char *rk_report_num(uint64_t n, bool sep, char out[32])
{
	if (sep)
		return rk_report_thousands(n, out);
	snprintf(out, 32, "%llu", (unsigned long long)n);
	return out;
}

void rk_report_brief(rk_buf *b, const rk_check_result *r, bool sep)
{
	size_t ndiff = rk_report_count_status(r, RK_WIN_DIFFER);
	uint64_t nulls = r->side[0].null_time + r->side[1].null_time;
	char x[32], y[32];
	bool first = true;

	if (!ndiff && !r->differ) {
		rk_buf_printf(b, "all %s closed windows match", rk_report_num(r->nclosed, sep, x));
		return;
	}
	if (ndiff) {
		rk_buf_printf(b, "%s of %s closed window%s differ%s", rk_report_num(ndiff, sep, x),
		              rk_report_num(r->nclosed, sep, y), r->nclosed == 1 ? "" : "s", ndiff == 1 ? "s" : "");
		for (int k = 0; k < RK_FIND_NKINDS; k++) {
			if (!r->kind_count[k])
				continue;
			rk_buf_printf(b, "%s%s %s", first ? ": " : ", ", rk_report_num(r->kind_count[k], sep, x),
			              rk_find_kind_name((rk_find_kind)k));
			first = false;
		}
	} else {
		rk_buf_printf(b, "every closed window matches, but");
	}
	if (nulls)
		rk_buf_printf(b, "%s%s row%s with a NULL time", ndiff ? "; " : " ", rk_report_num(nulls, sep, x),
		              nulls == 1 ? "" : "s");
	if (r->has_watermark && r->behind_watermark_missing)
		rk_buf_printf(b, "%sthe watermark claims %s row%s the target lacks", ndiff || nulls ? "; " : " ",
		              rk_report_num(r->behind_watermark_missing, sep, x), r->behind_watermark_missing == 1 ? "" : "s");
}

void rk_report_job_counts(rk_buf *b, size_t match, size_t differ, size_t failed)
{
	size_t n = match + differ + failed;

	if (n == 1 && match) {
		rk_buf_puts(b, "the table matches");
		return;
	}
	if (n == match) {
		rk_buf_printf(b, "all %zu tables match", n);
		return;
	}
	if (differ)
		rk_buf_printf(b, "%zu differ%s", differ, differ == 1 ? "s" : "");
	if (failed)
		rk_buf_printf(b, "%s%zu failed", differ ? ", " : "", failed);
	if (match)
		rk_buf_printf(b, ", %zu match%s", match, match == 1 ? "es" : "");
}
