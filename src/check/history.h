/*
 * history.h - the history of the damaged windows on a side that keeps one
 * (RK_CAP_HISTORY: a Delta table's log): which commits wrote their rows and
 * which removed them, read once after the drilldown, named by the reports
 * and weighed by the diagnosis.
 */
#ifndef RK_CHECK_HISTORY_H
#define RK_CHECK_HISTORY_H

#include <stddef.h>

#include "check/result.h"
#include "core/buf.h"
#include "io/reader.h"

/*
 * Reads the history of side s's damaged windows when its reader keeps one
 * (time_index: the bound time column): res->side[s].history, or
 * res->side[s].history_note saying why there is none.  A history that
 * cannot be read never fails the check: the note says what went wrong.
 */
void rk_history_collect(rk_check_result *res, int s, rk_reader *reader, size_t time_index);

/* The history of window w on side s, or NULL (no history, or w not damaged). */
const rk_range_history *rk_history_window(const rk_check_result *res, int s, size_t w);

/* What a window's history says happened to its rows. */
typedef enum rk_hist_state {
	RK_HIST_UNWRITTEN, /* no commit of the history added a file that may hold its rows */
	RK_HIST_REMOVED,   /* its latest commit removed its files and added none back, and no
	                    * file of the snapshot holds rows of it */
	RK_HIST_REWRITTEN, /* its latest commit removed files of it and added others */
	RK_HIST_WRITTEN,   /* commits added its files; none of the above */
	RK_HIST_UNKNOWN    /* only files without statistics of the time column may hold it */
} rk_hist_state;

/* The state of rh; *latest (may be NULL) gets the commit that decides it
 * (the remover, the rewriter, the latest writer), or NULL. */
rk_hist_state rk_history_state(const rk_range_history *rh, const rk_touch **latest);

/* "unwritten", "removed", "rewritten", "written", "unknown" */
const char *rk_hist_state_name(rk_hist_state s);

/* Appends what touch t did to its window: "added 1 file (4 rows), removed
 * 2 files". */
void rk_touch_did(rk_buf *b, const rk_touch *t);

/* Appends "version 4 (DELETE, 2026-03-02T00:04:00Z)", or the base
 * checkpoint's files. */
void rk_touch_name(rk_buf *b, const rk_history *h, const rk_touch *t);

/*
 * Appends the history of one window as the text report and the evidence
 * show it: the versions read, each commit that touched the window with what
 * it did (at most max of them, then "and N more"), and the files of the
 * snapshot that hold its rows.
 */
void rk_history_text(rk_buf *b, const rk_history *h, const rk_range_history *rh, size_t max);

#endif
