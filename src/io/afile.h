/*
 * afile.h - files written atomically: to a temporary name in the same
 * directory, then fsync'd and renamed into place.  A failed or interrupted
 * run never leaves a half-written file under the final name; temporary
 * files are removed on error and on SIGINT/SIGTERM/SIGHUP.
 */
#ifndef RK_AFILE_H
#define RK_AFILE_H

#include <stdio.h>

#include "core/error.h"

typedef struct rk_afile rk_afile;

/* Creates the temporary file for path.  what names the file's role in
 * messages ("rerun list", "report").  Failure is RK_EXIT_RUNTIME.
 * Returns a new handle (commit or abort it), or NULL. */
rk_afile *rk_afile_open(const char *path, const char *what, rk_error *err);

/* The stream to write to; owned by the handle. */
FILE *rk_afile_stream(rk_afile *af);

/* Flushes, fsyncs, closes and renames into place; frees the handle whatever
 * the outcome (removing the temporary file on failure). */
int rk_afile_commit(rk_afile *af, rk_error *err);

/* Closes and removes the temporary file; frees the handle.  NULL is harmless. */
void rk_afile_abort(rk_afile *af);

/* Creates directory path if it does not exist (one level). */
int rk_afile_mkdir(const char *path, const char *what, rk_error *err);

#endif
