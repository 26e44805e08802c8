/*
 * child.h - runs another reckon process (the lab's load, check and repair
 * steps) and collects what it said and how it ended.
 *
 * Crashes in the lab are real process deaths, so each step is its own
 * process.  The child's stdout and stderr are captured, and a third channel,
 * descriptor 3 announced in RECKON_REPORT_FD, carries its progress lines
 * ("rows_read=N"): they are written unbuffered, so they survive a SIGKILL.
 */
#ifndef RK_LOAD_CHILD_H
#define RK_LOAD_CHILD_H

#include <stdbool.h>

#include "core/buf.h"
#include "core/error.h"

#define RK_CHILD_REPORT_FD 3
#define RK_CHILD_REPORT_ENV "RECKON_REPORT_FD"
/* A step still running after this long is killed and reported. */
#define RK_CHILD_TIMEOUT_SEC 600

typedef struct rk_lab_child {
	bool exited; /* ended by exit(): code is valid */
	int code;
	bool signaled; /* killed: signo is valid */
	int signo;
	rk_buf out;    /* captured stdout, NUL-terminated */
	rk_buf err;    /* captured stderr, NUL-terminated */
	rk_buf report; /* what arrived on the report descriptor, NUL-terminated */
} rk_lab_child;

#define RK_LAB_CHILD_INIT                                                 \
	{                                                                 \
		false, 0, false, 0, RK_BUF_INIT, RK_BUF_INIT, RK_BUF_INIT \
	}

/*
 * Runs path with argv (NULL-terminated, argv[0] included) and waits for it.
 * Returns 0 when the process ran (whatever its status), -1 with err when it
 * could not be started or waited for, or ran longer than RK_CHILD_TIMEOUT_SEC
 * (it is then killed).  c must be initialised (RK_LAB_CHILD_INIT);
 * its buffers are reset first.
 */
int rk_lab_child_run(const char *path, char *const *argv, rk_lab_child *c, rk_error *err);

/* Looks up "name=value" in the report; returns the value (a new string the
 * caller frees) or NULL. */
char *rk_lab_child_report_value(const rk_lab_child *c, const char *name);

/* "exit status N" or "killed by signal N (SIGKILL)" into out. */
void rk_lab_child_describe(const rk_lab_child *c, char *out, size_t outsz);

void rk_lab_child_free(rk_lab_child *c);

#endif
