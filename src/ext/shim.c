/*
 * shim.c - makes src/core/buf.c usable inside a PostgreSQL backend.
 *
 * core/buf.c (the rk_buf the canonical encoding grows) aborts the process
 * when malloc fails: right for the command-line tool, wrong in a server
 * backend, where abort() would make the postmaster restart every session.
 * The module is linked with --wrap=malloc,calloc,realloc (src/ext/Makefile),
 * so the core objects' calls land here: same allocation, but a failure is
 * an ordinary "out of memory" ERROR that ends only the statement.  The
 * rk_buf is left as it was (realloc failing keeps the old block), and the
 * memory context callback that owns it frees it when the query ends.
 */
#include "postgres.h"

#include <stdlib.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static void *rkx_checked(void *p, size_t n)
{
	if (!p)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory"),
		                errdetail("reckon failed on a request of %zu bytes.", n)));
	return p;
}

void *__wrap_malloc(size_t n)
{
	return rkx_checked(__real_malloc(n), n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return rkx_checked(__real_calloc(n, size), n * size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return rkx_checked(__real_realloc(p, n), n);
}
