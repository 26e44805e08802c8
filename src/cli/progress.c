/*
 * progress.c - the progress line of a check (progress.h).
 */
#include "cli/progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/options.h"
#include "core/buf.h"
#include "core/timeutil.h"

/* Redraws per second on a terminal; seconds between lines elsewhere. */
#define RK_PROGRESS_TTY_MS 250
#define RK_PROGRESS_PLAIN_MS 5000

struct rk_progress {
	rk_check_meter *m;
	char *label;
	bool tty;
	bool stop;
	rk_usec t0;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* 1234567 -> "1.23M" */
static void rk_progress_count(rk_buf *b, double n)
{
	if (n >= 1e9)
		rk_buf_printf(b, "%.2fG", n / 1e9);
	else if (n >= 1e6)
		rk_buf_printf(b, "%.2fM", n / 1e6);
	else if (n >= 1e4)
		rk_buf_printf(b, "%.1fk", n / 1e3);
	else
		rk_buf_printf(b, "%.0f", n);
}

static void rk_progress_eta(rk_buf *b, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		rk_buf_printf(b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		rk_buf_printf(b, "%ld:%02ld", t / 60, t % 60);
}

/* One line: "source 1.23M rows 410k/s 45%  target ...  ETA 0:12". */
static void rk_progress_line(rk_progress *p, rk_buf *b)
{
	double secs = (double)(rk_time_now() - p->t0) / 1e6, eta = 0;
	int64_t span = atomic_load_explicit(&p->m->span, memory_order_relaxed);
	int phase = atomic_load_explicit(&p->m->phase, memory_order_relaxed);
	bool eta_known = true;

	rk_buf_reset(b);
	if (p->label)
		rk_buf_printf(b, "%s: ", p->label);
	if (phase == RK_PHASE_START) {
		rk_buf_puts(b, "connecting");
		return;
	}
	for (int s = 0; s < 2; s++) {
		double rows = (double)atomic_load_explicit(&p->m->rows[s], memory_order_relaxed);
		double done = (double)atomic_load_explicit(&p->m->done[s], memory_order_relaxed);
		double share = span > 0 ? done / (double)span : 1;

		if (share > 1)
			share = 1;
		rk_buf_printf(b, "%s%s ", s ? "  " : "", s ? "target" : "source");
		rk_progress_count(b, rows);
		rk_buf_puts(b, " rows ");
		rk_progress_count(b, secs > 0 ? rows / secs : 0);
		rk_buf_printf(b, "/s %3.0f%%", share * 100);
		if (share > 0.005) {
			double left = secs * (1 - share) / share;

			if (left > eta)
				eta = left;
		} else {
			eta_known = false;
		}
	}
	if (phase == RK_PHASE_DRILL)
		rk_buf_puts(b, "  finding the damaged keys");
	else if (phase == RK_PHASE_DIGEST && eta_known) {
		rk_buf_puts(b, "  ETA ");
		rk_progress_eta(b, eta);
	}
}

static void rk_progress_draw(rk_progress *p, rk_buf *b)
{
	rk_progress_line(p, b);
	if (p->tty)
		fprintf(stderr, "\r\033[K%s", rk_buf_cstr(b));
	else
		fprintf(stderr, "%s\n", rk_buf_cstr(b));
	fflush(stderr);
}

static void *rk_progress_main(void *arg)
{
	rk_progress *p = arg;
	rk_buf b = RK_BUF_INIT;
	long ms = p->tty ? RK_PROGRESS_TTY_MS : RK_PROGRESS_PLAIN_MS;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += ms % 1000 * 1000000L;
		until.tv_sec += ms / 1000 + until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&p->cv, &p->mu, &until);
		if (!p->stop)
			rk_progress_draw(p, &b);
	}
	pthread_mutex_unlock(&p->mu);
	rk_buf_free(&b);
	return NULL;
}

rk_progress *rk_progress_start(int mode, const char *label, rk_check_meter *m)
{
	rk_progress *p;
	bool tty = isatty(STDERR_FILENO) == 1;

	if (mode == RK_OPT_PROGRESS_NEVER || (mode == RK_OPT_PROGRESS_AUTO && !tty))
		return NULL;
	p = rk_xcalloc(1, sizeof *p);
	p->m = m;
	p->label = label ? rk_xstrdup(label) : NULL;
	p->tty = tty;
	p->t0 = rk_time_now();
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->thread, NULL, rk_progress_main, p) != 0) {
		/* progress is a courtesy: without a thread the check runs on */
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		free(p->label);
		free(p);
		return NULL;
	}
	return p;
}

void rk_progress_stop(rk_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	{
		/* where it ended (also a check quicker than one redraw) */
		rk_buf b = RK_BUF_INIT;

		rk_progress_draw(p, &b);
		rk_buf_free(&b);
	}
	if (p->tty) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->label);
	free(p);
}
