/*
 * guard.h - keeps a command that writes (repair, load) in control of its
 * database sessions when it is interrupted or blocked (docs/repair.md,
 * "Interruptions and locks").
 *
 * Interruption.  rk_guard_begin catches SIGINT and SIGTERM.  The first one
 * is noted (rk_guard_signal) and the statement a guarded session is running
 * in a busy stretch is canceled, so the command rolls back the change in
 * flight, prints and records what it did, and exits 128 + the signal
 * (rk_guard_exit_status: 130 for SIGINT, 143 for SIGTERM).  A second signal
 * ends the process at once, as if nothing were caught; the server then
 * rolls back whatever was not committed.
 *
 * Lock waits.  Every session the process opens after rk_guard_begin waits
 * at most the lock timeout for a lock (the server's lock_timeout, given to
 * libpq through PGOPTIONS); a guarded session sets it itself as well, so a
 * conninfo with options of its own cannot lift it.  While a guarded session
 * waits on a lock in a busy stretch, a watcher thread, on a connection of
 * its own opened only then, notes the sessions blocking it
 * (pg_blocking_pids), so that the timeout can name them.
 *
 * The state is the process's (signals are): one begin/end pair per command.
 * Calls other than rk_guard_signal come from the command's thread.
 */
#ifndef RK_LOAD_GUARD_H
#define RK_LOAD_GUARD_H

#include <stdbool.h>

#include "core/error.h"
#include "core/timeutil.h"
#include "io/pg.h"

/* Installs the signal handlers and the lock timeout (0: wait forever).
 * Returns 0, or -1 with err (RK_EXIT_RUNTIME) when the watcher cannot be
 * started. */
int rk_guard_begin(rk_usec lock_timeout, rk_error *err);

/* Stops the watcher, closes its connections and puts the signal handlers
 * and PGOPTIONS back as they were.  Harmless without rk_guard_begin. */
void rk_guard_end(void);

/* The lock timeout rk_guard_begin installed, as the server's lock_timeout
 * takes it ("30000ms"; "0ms": none), written into out. */
const char *rk_guard_lock_timeout_text(char out[32]);

/* The signal caught (SIGINT, SIGTERM), or 0. */
int rk_guard_signal(void);

/* 128 + the signal caught: what an interrupted command exits with. */
int rk_guard_exit_status(void);

/*
 * When a signal was caught: fills err with "interrupted by SIGINT" (code
 * rk_guard_exit_status()) and returns -1; else 0.  The check a command
 * makes between two steps.
 */
int rk_guard_check(rk_error *err);

/* True when err is the error of an interruption (rk_guard_check, or a
 * statement canceled by the guard). */
bool rk_guard_is_interrupt(const rk_error *err);

/*
 * Guards pg: sets its lock timeout and lets the watcher cancel it and name
 * what blocks it.  conninfo is what pg was opened with (the watcher opens
 * its own connection with it, when it needs one).  Call rk_guard_release
 * before closing pg.  Returns 0 or -1 with err.
 */
int rk_guard_session(rk_pg *pg, const char *conninfo, rk_error *err);
void rk_guard_release(rk_pg *pg);

/*
 * Marks the start (busy) or the end of a stretch of statements on pg, such
 * as one interval's transaction: only a busy session is canceled on a
 * signal and watched for lock waits; the blockers noted are forgotten
 * when it ends (explain a lock timeout before).  Returns -1 with err when a signal was
 * caught already (the stretch is not started), else 0.
 */
int rk_guard_busy(rk_pg *pg, rk_error *err);
void rk_guard_idle(rk_pg *pg);

/* True when err is a lock timeout (SQLSTATE 55P03, lock_not_available). */
bool rk_guard_is_lock_timeout(const rk_error *err);

/*
 * Rewrites err, a lock timeout on pg (NULL: on any guarded session in a
 * busy stretch; an unguarded one: no blocker is known), as "waited more than DUR for a lock on WHAT; blocked by pid N
 * (application A, state S, query started T), ..." with the server's
 * message after it; the code is RK_EXIT_RUNTIME.  what names the object
 * ("target table mart.orders").
 */
void rk_guard_explain_lock(rk_pg *pg, const char *what, rk_error *err);

#endif
