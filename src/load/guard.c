/*
 * guard.c - signals, lock timeouts and the watcher that names what blocks
 * a session (guard.h).
 *
 * The signal handler only notes the signal: everything else (canceling,
 * watching) happens on the watcher thread, which wakes every
 * RK_GUARD_TICK_MS.  The watcher connects to a guarded session's server only
 * when that session has been busy for RK_GUARD_WATCH_AFTER, so a run whose
 * statements never wait opens no extra connection.
 */
#include "load/guard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/log.h"
#include "rk_sql.h"

#define RK_GUARD_MAX 4                    /* sessions guarded at once */
#define RK_GUARD_TICK_MS 100              /* how often the watcher wakes */
#define RK_GUARD_WATCH_AFTER (250 * 1000) /* usec busy before it looks */
#define RK_GUARD_WATCH_EVERY (250 * 1000) /* usec between two looks */
#define RK_GUARD_BLOCKERS 1024            /* the blockers' description */

typedef struct rk_gsess {
	rk_pg *pg; /* NULL: a free slot */
	char *conninfo;
	int pid; /* pg's backend */
	bool busy;
	rk_usec busy_since;
	unsigned stretch; /* counts busy stretches: a look belongs to one */
	bool polling;     /* the watcher is looking, without the mutex */
	rk_usec last_look;
	rk_pg *monitor;      /* the watcher's connection (the watcher's only) */
	bool monitor_failed; /* do not try to connect again */
	char blockers[RK_GUARD_BLOCKERS];
} rk_gsess;

static volatile sig_atomic_t rk_guard_caught;
static volatile sig_atomic_t rk_guard_int_ignored;

static struct {
	bool on;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool stop;
	rk_usec lock_timeout;
	char *pgoptions; /* PGOPTIONS before begin, or NULL */
	bool had_pgoptions;
	struct sigaction old_int, old_term;
	rk_gsess s[RK_GUARD_MAX];
} rk_guard = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static void rk_guard_on_signal(int sig)
{
	if (!rk_guard_caught)
		rk_guard_caught = sig;
	/* the second signal takes the default action: the process ends */
	if (!rk_guard_int_ignored)
		signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

int rk_guard_signal(void)
{
	return rk_guard_caught;
}

int rk_guard_exit_status(void)
{
	return rk_guard_caught ? 128 + rk_guard_caught : RK_EXIT_RUNTIME;
}

int rk_guard_check(rk_error *err)
{
	int sig = rk_guard_caught;

	if (!sig)
		return 0;
	rk_error_set(err, 128 + sig, "interrupted by %s", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM"
	                                                                                            : "a signal");
	err->sqlstate[0] = '\0';
	return rk_error_hint(err, "the change in flight was rolled back; what was committed before stays");
}

bool rk_guard_is_interrupt(const rk_error *err)
{
	return rk_guard_caught && (err->code == 128 + rk_guard_caught || !strcmp(err->sqlstate, "57014"));
}

bool rk_guard_is_lock_timeout(const rk_error *err)
{
	return !strcmp(err->sqlstate, "55P03");
}

/* The lock timeout as lock_timeout takes it: whole milliseconds, rounded up
 * so that 1us still means "a little", not "forever". */
static void rk_guard_ms(rk_usec d, char *out, size_t n)
{
	snprintf(out, n, "%lldms", (long long)((d + 999) / 1000));
}

const char *rk_guard_lock_timeout_text(char out[32])
{
	rk_guard_ms(rk_guard.on ? rk_guard.lock_timeout : 0, out, 32);
	return out;
}

/* ------------------------------------------------------------------------
 * the watcher
 * ---------------------------------------------------------------------- */

/* Describes the sessions blocking pid, as the server lists them, into out
 * (empty when none). */
static void rk_guard_look(rk_pg *monitor, int pid, char *out, size_t n)
{
	char p[16];
	const char *params[1] = { p };
	rk_pg_result *res = NULL;
	rk_error err;
	rk_buf b = RK_BUF_INIT;

	out[0] = '\0';
	snprintf(p, sizeof p, "%d", pid);
	rk_error_clear(&err);
	if (rk_pg_exec(monitor, "blocking sessions", rk_sql_guard_blockers, 1, params, RK_PG_ANY_ROWS, &res, &err) < 0) {
		rk_log_debug("lock watcher: %s", err.msg);
		return;
	}
	for (int i = 0; i < rk_pg_result_rows(res); i++) {
		const char *app = rk_pg_result_value(res, i, 1), *state = rk_pg_result_value(res, i, 2);
		const char *started = rk_pg_result_value(res, i, 3), *user = rk_pg_result_value(res, i, 4);

		rk_buf_printf(&b, "%spid %s (application '%s', user %s, %s, query started %s)", i ? "; " : "",
		              rk_pg_result_value(res, i, 0), app ? app : "?", user ? user : "?",
		              state ? state : "state not visible", started ? started : "?");
	}
	rk_pg_result_free(res);
	snprintf(out, n, "%s", rk_buf_cstr(&b));
	rk_buf_free(&b);
}

static void *rk_guard_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&rk_guard.mu);
	while (!rk_guard.stop) {
		struct timespec until;
		rk_usec now;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += RK_GUARD_TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&rk_guard.cv, &rk_guard.mu, &until);
		if (rk_guard.stop)
			break;
		now = rk_time_now();
		for (size_t i = 0; i < RK_GUARD_MAX; i++) {
			rk_gsess *s = &rk_guard.s[i];
			char text[RK_GUARD_BLOCKERS];
			unsigned stretch;
			rk_pg *monitor;

			if (!s->pg || !s->busy)
				continue;
			if (rk_guard_caught) {
				/* again at every tick: a cancel that reaches the
				 * session between two statements does nothing */
				rk_pg_cancel(s->pg);
				continue;
			}
			if (s->polling || s->monitor_failed || now - s->busy_since < RK_GUARD_WATCH_AFTER ||
			    now - s->last_look < RK_GUARD_WATCH_EVERY)
				continue;
			s->polling = true;
			stretch = s->stretch;
			monitor = s->monitor;
			pthread_mutex_unlock(&rk_guard.mu);
			if (!monitor) {
				rk_error err;

				rk_error_clear(&err);
				if (!(monitor = rk_pg_connect(s->conninfo, "lock watcher", &err)))
					rk_log_debug("lock watcher: %s", err.msg);
			}
			text[0] = '\0';
			if (monitor)
				rk_guard_look(monitor, s->pid, text, sizeof text);
			pthread_mutex_lock(&rk_guard.mu);
			s->monitor = monitor;
			s->monitor_failed = monitor == NULL;
			s->polling = false;
			s->last_look = rk_time_now();
			/* a blocker seen is kept until the stretch ends: the
			 * timeout's message needs the last one seen */
			if (stretch == s->stretch && text[0])
				memcpy(s->blockers, text, sizeof text);
			pthread_cond_broadcast(&rk_guard.cv);
		}
	}
	pthread_mutex_unlock(&rk_guard.mu);
	return NULL;
}

/* ------------------------------------------------------------------------
 * begin, end
 * ---------------------------------------------------------------------- */

int rk_guard_begin(rk_usec lock_timeout, rk_error *err)
{
	struct sigaction sa;
	const char *old = getenv("PGOPTIONS");
	int rc;

	if (rk_guard.on)
		return 0;
	rk_guard.lock_timeout = lock_timeout;
	rk_guard.had_pgoptions = old != NULL;
	rk_guard.pgoptions = old ? rk_xstrdup(old) : NULL;
	if (lock_timeout > 0) {
		/* every session libpq opens from here on, readers included */
		rk_buf b = RK_BUF_INIT;
		char ms[32];

		rk_guard_ms(lock_timeout, ms, sizeof ms);
		rk_buf_printf(&b, "%s%s-c lock_timeout=%s", old ? old : "", old && *old ? " " : "", ms);
		setenv("PGOPTIONS", rk_buf_cstr(&b), 1);
		rk_buf_free(&b);
	}
	rk_guard_caught = 0;
	rk_guard.stop = false;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = rk_guard_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;
	sigaction(SIGINT, NULL, &rk_guard.old_int);
	sigaction(SIGTERM, &sa, &rk_guard.old_term);
	/* a SIGINT ignored on entry (a background job of a script) stays
	 * ignored, as the shell meant */
	rk_guard_int_ignored = rk_guard.old_int.sa_handler == SIG_IGN;
	if (!rk_guard_int_ignored)
		sigaction(SIGINT, &sa, NULL);
	if ((rc = pthread_create(&rk_guard.thread, NULL, rk_guard_main, NULL)) != 0) {
		sigaction(SIGINT, &rk_guard.old_int, NULL);
		sigaction(SIGTERM, &rk_guard.old_term, NULL);
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot start the lock watcher: %s", strerror(rc));
	}
	rk_guard.on = true;
	return 0;
}

void rk_guard_end(void)
{
	if (!rk_guard.on)
		return;
	pthread_mutex_lock(&rk_guard.mu);
	rk_guard.stop = true;
	pthread_cond_broadcast(&rk_guard.cv);
	pthread_mutex_unlock(&rk_guard.mu);
	pthread_join(rk_guard.thread, NULL);
	for (size_t i = 0; i < RK_GUARD_MAX; i++)
		if (rk_guard.s[i].pg)
			rk_guard_release(rk_guard.s[i].pg);
	/* a caught signal keeps its default action from here on */
	if (!rk_guard_caught) {
		sigaction(SIGINT, &rk_guard.old_int, NULL);
		sigaction(SIGTERM, &rk_guard.old_term, NULL);
	}
	if (rk_guard.had_pgoptions)
		setenv("PGOPTIONS", rk_guard.pgoptions, 1);
	else
		unsetenv("PGOPTIONS");
	free(rk_guard.pgoptions);
	rk_guard.pgoptions = NULL;
	rk_guard.on = false;
}

/* ------------------------------------------------------------------------
 * sessions
 * ---------------------------------------------------------------------- */

static rk_gsess *rk_guard_find(const rk_pg *pg)
{
	for (size_t i = 0; i < RK_GUARD_MAX; i++)
		if (pg && rk_guard.s[i].pg == pg)
			return &rk_guard.s[i];
	return NULL;
}

int rk_guard_session(rk_pg *pg, const char *conninfo, rk_error *err)
{
	rk_gsess *s;
	char ms[32];
	const char *params[1] = { ms };

	if (!rk_guard.on)
		return 0;
	if (rk_guard.lock_timeout > 0) {
		rk_guard_ms(rk_guard.lock_timeout, ms, sizeof ms);
		if (rk_pg_exec(pg, "set the lock timeout", rk_sql_guard_lock_timeout, 1, params, RK_PG_ONE_ROW, NULL,
		               err) < 0)
			return -1;
	}
	pthread_mutex_lock(&rk_guard.mu);
	s = NULL;
	for (size_t i = 0; i < RK_GUARD_MAX && !s; i++)
		if (!rk_guard.s[i].pg)
			s = &rk_guard.s[i];
	if (s) {
		memset(s, 0, sizeof *s);
		s->pg = pg;
		s->pid = rk_pg_backend_pid(pg);
		s->conninfo = rk_xstrdup(conninfo ? conninfo : "");
	}
	pthread_mutex_unlock(&rk_guard.mu);
	if (!s)
		rk_log_debug("guard: more than %d sessions; this one is not watched", RK_GUARD_MAX);
	return 0;
}

void rk_guard_release(rk_pg *pg)
{
	rk_gsess *s;
	rk_pg *monitor = NULL;
	char *conninfo = NULL;

	if (!rk_guard.on || !pg)
		return;
	pthread_mutex_lock(&rk_guard.mu);
	if ((s = rk_guard_find(pg))) {
		while (s->polling)
			pthread_cond_wait(&rk_guard.cv, &rk_guard.mu);
		monitor = s->monitor;
		conninfo = s->conninfo;
		memset(s, 0, sizeof *s);
	}
	pthread_mutex_unlock(&rk_guard.mu);
	rk_pg_close(monitor);
	free(conninfo);
}

int rk_guard_busy(rk_pg *pg, rk_error *err)
{
	rk_gsess *s;

	if (rk_guard_check(err) < 0)
		return -1;
	pthread_mutex_lock(&rk_guard.mu);
	if ((s = rk_guard_find(pg))) {
		s->busy = true;
		s->busy_since = rk_time_now();
		s->last_look = 0;
		s->stretch++;
		s->blockers[0] = '\0';
	}
	pthread_mutex_unlock(&rk_guard.mu);
	return 0;
}

void rk_guard_idle(rk_pg *pg)
{
	rk_gsess *s;

	pthread_mutex_lock(&rk_guard.mu);
	if ((s = rk_guard_find(pg))) {
		s->busy = false;
		s->blockers[0] = '\0';
	}
	pthread_mutex_unlock(&rk_guard.mu);
}

void rk_guard_explain_lock(rk_pg *pg, const char *what, rk_error *err)
{
	char blockers[RK_GUARD_BLOCKERS] = "";
	char cause[sizeof err->msg];
	char dur[RK_TIME_STRLEN];
	rk_gsess *s;

	pthread_mutex_lock(&rk_guard.mu);
	if ((s = rk_guard_find(pg)))
		memcpy(blockers, s->blockers, sizeof blockers);
	for (size_t i = 0; !pg && !blockers[0] && i < RK_GUARD_MAX; i++)
		if (rk_guard.s[i].pg && rk_guard.s[i].busy)
			memcpy(blockers, rk_guard.s[i].blockers, sizeof blockers);
	pthread_mutex_unlock(&rk_guard.mu);
	memcpy(cause, err->msg, sizeof cause);
	rk_duration_format(rk_guard.lock_timeout, dur);
	if (blockers[0])
		rk_error_set(err, RK_EXIT_RUNTIME, "waited more than --lock-timeout %s for a lock on %s; blocked by %s: %s",
		             dur, what, blockers, cause);
	else
		rk_error_set(err, RK_EXIT_RUNTIME, "waited more than --lock-timeout %s for a lock on %s: %s", dur, what,
		             cause);
	memcpy(err->sqlstate, "55P03", 6);
	rk_error_hint(err, "end or wait for the blocking sessions (pg_blocking_pids, pg_stat_activity), or give "
	                   "a longer --lock-timeout");
}
