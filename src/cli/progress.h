/*
 * progress.h - a check's progress on stderr (--progress auto|always|never).
 *
 * A thread reads the check's meter (check.h) a few times a second and
 * prints, per side, the rows read, the rate, the share of the range done
 * and the time left.  On a terminal it redraws one line and erases it at
 * the end; with --progress always and no terminal it prints a plain line
 * every few seconds instead.  auto prints only when stderr is a terminal,
 * so a cron run prints nothing.
 */
#ifndef RK_CLI_PROGRESS_H
#define RK_CLI_PROGRESS_H

#include "check/check.h"

typedef struct rk_progress rk_progress;

/*
 * Starts showing m for mode (RK_OPT_PROGRESS_*); label names a job's
 * table (NULL for a single check).  Returns a new handle, or NULL when
 * nothing is to be shown (then rk_progress_stop(NULL) is harmless).  m
 * must outlive the handle.
 */
rk_progress *rk_progress_start(int mode, const char *label, rk_check_meter *m);

/* Stops the thread and erases the line; frees the handle.  NULL is harmless. */
void rk_progress_stop(rk_progress *p);

#endif
