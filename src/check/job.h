/*
 * job.h - the tables of a job (check --job) run at once: up to --parallel
 * threads, the calling thread among them, each taking the next table not
 * yet taken until none is left.  What a table's run does is the caller's
 * (cli/cmd_check.c: parse its options, check it); this module only paces.
 */
#ifndef RK_JOB_H
#define RK_JOB_H

#include <stddef.h>

/* One table's run: i is its index among the job's n tables. */
typedef void rk_job_fn(void *arg, size_t i);

/*
 * Calls fn(arg, i) once for each i in [0, n), the indexes taken in
 * increasing order, on min(parallel, n) threads of which the calling thread
 * is one, and returns once every call has returned.  A thread that cannot
 * be started leaves its share to the others (the calling thread at least).
 * fn runs concurrently with itself for different i: what it writes of arg
 * must be the i-th table's only.
 */
void rk_job_run(size_t n, size_t parallel, rk_job_fn *fn, void *arg);

#endif
