/*
 * slurp.h - a whole small file (an INI file, a rerun list) read into
 * memory, with a size limit: a path to /dev/zero or a huge file is a clear
 * error instead of memory growing without end.
 */
#ifndef RK_IO_SLURP_H
#define RK_IO_SLURP_H

#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"

/*
 * Reads path ("-" is standard input) into out (reset first; not
 * NUL-terminated by contract, though a NUL follows the data).  what names
 * the file's role in messages ("config file").  A missing or unreadable
 * file, a directory, or more than max bytes is RK_EXIT_USAGE naming the
 * file; a read error part way is RK_EXIT_RUNTIME.  Returns 0 or -1.
 */
int rk_slurp(const char *path, const char *what, size_t max, rk_buf *out, rk_error *err);

#endif
