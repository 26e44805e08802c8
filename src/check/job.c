/*
 * job.c - a job's tables on up to --parallel threads (job.h).
 */
#include "check/job.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/buf.h"

typedef struct rk_job_pool {
	size_t n;
	size_t next; /* the next table a worker takes */
	pthread_mutex_t lock;
	rk_job_fn *fn;
	void *arg;
} rk_job_pool;

static void *rk_job_worker(void *arg)
{
	rk_job_pool *p = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->lock);
		i = p->next < p->n ? p->next++ : p->n;
		pthread_mutex_unlock(&p->lock);
		if (i == p->n)
			return NULL;
		p->fn(p->arg, i);
	}
}

void rk_job_run(size_t n, size_t parallel, rk_job_fn *fn, void *arg)
{
	rk_job_pool p = { .n = n, .fn = fn, .arg = arg };
	size_t nth = parallel < n ? parallel : n;
	pthread_t *th = rk_xcalloc(nth ? nth : 1, sizeof *th);
	bool *started = rk_xcalloc(nth ? nth : 1, sizeof *started);

	pthread_mutex_init(&p.lock, NULL);
	/* workers 1.. get threads; this thread is worker 0 */
	for (size_t i = 1; i < nth; i++)
		started[i] = pthread_create(&th[i], NULL, rk_job_worker, &p) == 0;
	rk_job_worker(&p);
	for (size_t i = 1; i < nth; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.lock);
	free(started);
	free(th);
}
