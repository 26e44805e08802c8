/*
 * afile.h - files and directories written atomically.
 *
 * A file is written to a temporary name beside it, fsync'd and renamed into
 * place; a directory of files (a report) is built beside it and swapped in
 * with one rename.  A failed or interrupted run never leaves a half-written
 * file or a mixed set under the final name.
 *
 * Temporaries are named "<path>.tmp.reckon-<pid>-XXXXXX": recognisably
 * reckon's, and saying which process wrote them.  They are removed on error
 * and on SIGINT/SIGTERM/SIGHUP; what a SIGKILL (or a power cut) leaves
 * behind is removed by the next run that writes the same path, once the
 * writer's process is gone.
 */
#ifndef RK_AFILE_H
#define RK_AFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/error.h"

typedef struct rk_afile rk_afile;

/* Creates the temporary file for path (removing stale temporaries of path
 * that dead runs left).  what names the file's role in messages ("rerun
 * list", "metrics file").  Failure is RK_EXIT_RUNTIME.  Returns a new
 * handle (commit or abort it), or NULL. */
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

/*
 * A directory replaced as one set: its files are written into a staging
 * directory beside it ("<path>.tmp.reckon-<pid>-XXXXXX"), which then takes
 * path's place in one rename (renameat2 RENAME_EXCHANGE when path exists,
 * the old directory then removed).  Readers of path see the old set or the
 * new one, never a mix; a failure or a signal leaves path as it was.
 */
typedef struct rk_adir rk_adir;

/* Creates the staging directory for path (its parent must exist) and
 * removes stale ones of dead runs.  path must be absent or a directory
 * (a symbolic link to one is followed: the directory it names is
 * replaced).  Failure is RK_EXIT_RUNTIME.  Returns a new handle (commit or
 * abort it), or NULL. */
rk_adir *rk_adir_open(const char *path, const char *what, rk_error *err);

/* The staging directory: write the set's files (and subdirectories) into
 * it under their final names.  Owned by the handle. */
const char *rk_adir_stage(const rk_adir *d);

/* The directory the set replaces (path, or where its link points). */
const char *rk_adir_path(const rk_adir *d);

/* Creates file name in the staging directory (name may be "sub/file"
 * once rk_adir_mkdir made sub) for writing.  NULL with err on failure. */
FILE *rk_adir_fopen(rk_adir *d, const char *name, rk_error *err);

/* Flushes, fsyncs and closes a file of rk_adir_fopen; name for messages.
 * f is closed whatever the outcome.  0 or -1 with err (RK_EXIT_RUNTIME). */
int rk_adir_fclose(rk_adir *d, FILE *f, const char *name, rk_error *err);

/* Creates subdirectory name of the staging directory (a job's tables). */
int rk_adir_mkdir(rk_adir *d, const char *name, rk_error *err);

/* Keeps subdirectory name of the set being replaced (a job's LABEL/ that
 * this run does not rewrite): its regular files are hard-linked (copied
 * where links are not possible) into the staging directory, so the swap
 * carries them over unchanged.  0, or -1 with err (RK_EXIT_RUNTIME). */
int rk_adir_keep(rk_adir *d, const char *name, rk_error *err);

/* Swaps the staging directory in and removes the old set; frees the
 * handle whatever the outcome (removing the staging directory on failure).
 * The test build can break it at two points (io/fault.h). */
int rk_adir_commit(rk_adir *d, rk_error *err);

/* Removes the staging directory and what it holds; frees the handle.  NULL
 * is harmless. */
void rk_adir_abort(rk_adir *d);

#endif
