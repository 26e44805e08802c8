/*
 * duckapi.c - libduckdb loaded on first use (see duckapi.h).
 */
#define _GNU_SOURCE /* dlinfo */
#define RK_DUCKAPI_NO_NAMES
#include "io/duckapi.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rk_duckapi rk_duckapi;

static pthread_once_t rk_duckapi_once = PTHREAD_ONCE_INIT;
/* The first load's failure, handed to every later caller; empty: loaded. */
static char rk_duckapi_failed[sizeof((rk_error *)0)->msg];

/* The directories the loader searches for a bare name from this binary (its
 * rpath, LD_LIBRARY_PATH, the system's), in its order; NULL when it cannot
 * say.  The caller frees it. */
static Dl_serinfo *rk_duckapi_serinfo(void)
{
	void *self = dlopen(NULL, RTLD_NOW);
	Dl_serinfo probe;
	Dl_serinfo *info;

	if (!self || dlinfo(self, RTLD_DI_SERINFOSIZE, &probe) != 0 || (info = malloc(probe.dls_size)) == NULL)
		return NULL;
	if (dlinfo(self, RTLD_DI_SERINFOSIZE, info) != 0 || dlinfo(self, RTLD_DI_SERINFO, info) != 0) {
		free(info);
		return NULL;
	}
	return info;
}

/* Those directories, ", "-separated, for the error message. */
static void rk_duckapi_search_path(char *out, size_t size)
{
	Dl_serinfo *info = rk_duckapi_serinfo();
	size_t used = 0;

	out[0] = '\0';
	for (unsigned i = 0; info && i < info->dls_cnt && used < size; i++) {
		int n = snprintf(out + used, size - used, "%s%s", i ? ", " : "", info->dls_serpath[i].dls_name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	free(info);
}

/* dlopen(name) searched in this binary's own search path, directory by
 * directory.  A bare name is searched from the caller's RUNPATH, and the
 * caller is not always reckon: AddressSanitizer intercepts dlopen, so that
 * the search would start from libasan's and miss the rpath.  NULL: in none
 * of them (dlopen(name) then says why). */
static void *rk_duckapi_open_searched(const char *name)
{
	Dl_serinfo *info = rk_duckapi_serinfo();
	void *h = NULL;

	for (unsigned i = 0; info && i < info->dls_cnt && !h; i++) {
		char path[4096];

		if ((size_t)snprintf(path, sizeof path, "%s/%s", info->dls_serpath[i].dls_name, name) < sizeof path)
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	free(info);
	return h;
}

static void rk_duckapi_open(void)
{
	const char *env = getenv("RECKON_DUCKDB_LIB");
	const char *name = env && *env ? env : "libduckdb.so";
	void *h = env && *env ? NULL : rk_duckapi_open_searched(name);

	if (!h)
		h = dlopen(name, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		/* copied before the search path's dlopen and dlinfo reset it */
		const char *e = dlerror();
		char what[512];
		char where[768];

		snprintf(what, sizeof what, "%s", e ? e : "unknown error");
		if (env && *env)
			snprintf(where, sizeof where, "RECKON_DUCKDB_LIB=%s", env);
		else
			rk_duckapi_search_path(where, sizeof where);
		snprintf(rk_duckapi_failed, sizeof rk_duckapi_failed,
		         "duckdb: cannot load %s, which Delta tables need: %s (looked in %s)", name, what,
		         where[0] ? where : "the loader's default places");
		return;
	}
#define RK_DUCKAPI_SYM(f)                                                                                     \
	if ((*(void **)&rk_duckapi.p_##f = dlsym(h, #f)) == NULL) {                                           \
		snprintf(rk_duckapi_failed, sizeof rk_duckapi_failed,                                         \
		         "duckdb: %s has no function %s: not the DuckDB reckon was built against", name, #f); \
		memset(&rk_duckapi, 0, sizeof rk_duckapi);                                                    \
		dlclose(h);                                                                                   \
		return;                                                                                       \
	}
	RK_DUCKAPI_FUNCS(RK_DUCKAPI_SYM)
#undef RK_DUCKAPI_SYM
}

int rk_duckapi_load(rk_error *err)
{
	pthread_once(&rk_duckapi_once, rk_duckapi_open);
	if (rk_duckapi_failed[0]) {
		rk_error_set(err, RK_EXIT_RUNTIME, "%s", rk_duckapi_failed);
		return rk_error_hint(err, "in a build tree `make deps` fetches DuckDB into .cache/; the package "
		                          "installs it as /usr/lib/reckon/libduckdb.so; RECKON_DUCKDB_LIB=PATH "
		                          "names another copy");
	}
	return 0;
}
