/*
 * reader_extra.c - the test build's side of rk_reader_extra_for
 * (io/reader_impl.h), linked into the unit tests and
 * $(BUILD)/tests/reckon-faults in place of src/io/reader_extra.c (never
 * into the product): the drivers a test registers (rk_reader_register,
 * hooks.h), each taking the conns that start with its prefix.
 */
#include <string.h>

#include "hooks.h"
#include "io/reader_impl.h"

static const rk_reader_driver *registered[RK_READER_MAX_REGISTERED];
static size_t nregistered;

int rk_reader_register(const rk_reader_driver *d)
{
	if (nregistered == RK_READER_MAX_REGISTERED)
		return -1;
	registered[nregistered++] = d;
	return 0;
}

const rk_reader_driver *rk_reader_extra_for(const char *conn)
{
	for (size_t i = 0; i < nregistered; i++)
		if (!strncmp(conn ? conn : "", registered[i]->prefix, strlen(registered[i]->prefix)))
			return registered[i];
	return NULL;
}
