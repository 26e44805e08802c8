/*
 * reader_extra.c - the product's side of rk_reader_extra_for
 * (io/reader_impl.h): no driver but the built-in ones.  The test build links
 * tests/hooks/reader_extra.c in place of this file.
 */
#include "io/reader_impl.h"

const rk_reader_driver *rk_reader_extra_for(const char *conn)
{
	(void)conn;
	return NULL;
}
