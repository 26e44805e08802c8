/*
 * check.h - the checker: per-window digests of both sides, then the
 * key-level drilldown of the windows that differ.
 *
 * Layering: uses core/ (windows, canonical encoding, digests) and io/ (the
 * readers); knows nothing of argv or output formats (cli/ and report/).
 */
#ifndef RK_CHECK_H
#define RK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/result.h"
#include "check/spec.h"
#include "core/error.h"

/*
 * Runs the check.  On success *out is a new result owned by the caller
 * (rk_check_result_free) and 0 is returned, whatever the verdict.  On
 * failure -1 with err filled (RK_EXIT_USAGE for bad tables/columns/data,
 * RK_EXIT_RUNTIME for connections and queries).
 */
int rk_check_run(const rk_check_spec *spec, rk_check_result **out, rk_error *err);

/*
 * The key a check of spec would use: spec's own, else the target's primary
 * key, else the source's (docs/reference.md), as written column names.  Opens
 * and closes both sides.  *key is a new array of new strings (free each,
 * then the array).  Returns 0, or -1 with err (RK_EXIT_USAGE when neither
 * side has a primary key).
 */
int rk_check_key(const rk_check_spec *spec, char ***key, size_t *nkey, rk_error *err);

#endif
