/*
 * env.h - the tuning variables of the environment that hold a byte count
 * (RECKON_LARGE_VALUE, RECKON_LARGE_CHUNK, RK_SPILL_BYTES), read one way.
 */
#ifndef RK_CORE_ENV_H
#define RK_CORE_ENV_H

#include <stddef.h>

/*
 * The byte count the variable name holds: a whole number of bytes in
 * [min, max] (decimal digits only), or dflt when it is unset or empty.  A
 * value that is not such a number (letters, a sign, 0 below min, too
 * large) is not used: dflt is, and a warning names the variable, its value,
 * the range and the default once per variable and process.
 */
size_t rk_env_bytes(const char *name, size_t dflt, size_t min, size_t max);

#endif
