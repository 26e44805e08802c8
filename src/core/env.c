/*
 * env.c - byte counts from the environment (env.h).
 */
#include "core/env.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* The variables already warned of (a reader asks once a value, a spill once
 * a store: one warning says it); past the table's room, or for a longer
 * name, each call warns. */
#define RK_ENV_WARNED_MAX 8
static char rk_env_warned[RK_ENV_WARNED_MAX][64];
static size_t rk_env_nwarned;
static pthread_mutex_t rk_env_lock = PTHREAD_MUTEX_INITIALIZER;

static bool rk_env_first_warning(const char *name)
{
	bool first = true;

	pthread_mutex_lock(&rk_env_lock);
	for (size_t i = 0; i < rk_env_nwarned && first; i++)
		first = strcmp(rk_env_warned[i], name) != 0;
	if (first && rk_env_nwarned < RK_ENV_WARNED_MAX && strlen(name) < sizeof *rk_env_warned)
		strcpy(rk_env_warned[rk_env_nwarned++], name);
	pthread_mutex_unlock(&rk_env_lock);
	return first;
}

size_t rk_env_bytes(const char *name, size_t dflt, size_t min, size_t max)
{
	const char *v = getenv(name);
	unsigned long long n;

	if (!v || !*v)
		return dflt;
	errno = 0;
	n = strtoull(v, NULL, 10);
	if (v[strspn(v, "0123456789")] == '\0' && !errno && n >= min && n <= max)
		return (size_t)n;
	if (rk_env_first_warning(name))
		rk_log_warn("%s=%s is not a byte count from %zu to %zu: using the default, %zu", name, v, min, max, dflt);
	return dflt;
}
