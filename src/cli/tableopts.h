/*
 * tableopts.h - one builder of a table pair's spec from the parsed options,
 * for every command that compares or writes a pair (check, repair, load, and
 * each table of a job): which relation on which side, the CSV dialect, the
 * mappings and filters, the logical columns and their roles, and check's
 * range and grid.
 */
#ifndef RK_TABLEOPTS_H
#define RK_TABLEOPTS_H

#include "check/check.h"
#include "cli/options.h"
#include "core/error.h"

struct rk_ini;

/*
 * Fills the pair part of spec from o: source and target (a PostgreSQL side
 * needs --table or --source-table/--target-table; a CSV side takes no
 * expression and no filter), the mappings and filters, key, time, sum,
 * columns, exclude-columns and types.  The strings and arrays are borrowed
 * from o, which must outlive spec.  Returns 0, or -1 with a usage error
 * naming the option.
 */
int rk_tableopts_pair(const rk_opts *o, rk_check_spec *spec, rk_error *err);

/*
 * Fills check's part: the range (--from/--to, or --last counted back from
 * the latest closed window boundary on the grid anchored at the epoch), the
 * window, settle and clock (--now, else now), --jobs, --pushdown,
 * --leaf-rows and --watermark-query.  now is the current time, used when
 * --now is not given.
 *
 * With --timezone ZONE: dates in --from/--to/--now are ZONE's midnights;
 * d, w and mo windows are ZONE's calendar units (spec->bounds, a new array
 * rk_tableopts_free releases) and --last counts them back from the latest
 * closed one; h/m/s windows of --last are anchored on ZONE's midnight.
 * Load the zone before starting threads (core/tz.h): rk_tableopts_preload.
 */
/* Set to "off" in the environment, check names no likely causes and asks
 * the source nothing for its warnings (docs/runbook.md). */
#define RK_TABLEOPTS_DIAGNOSE_ENV "RECKON_DIAGNOSE"

int rk_tableopts_check(const rk_opts *o, rk_usec now, rk_check_spec *spec, rk_error *err);

/* An instant option id given as a bare date (--from 2026-03-29): with a
 * zone tz, *t becomes tz's midnight of that day (without, the option's
 * value, UTC's midnight, stays). */
struct rk_tz;
void rk_tableopts_local_date(const rk_opts *o, rk_optid id, const struct rk_tz *tz, rk_usec *t);

/* Releases what rk_tableopts_check allocated in spec (its bounds). */
void rk_tableopts_free(rk_check_spec *spec);

/* Loads the zones a command line and a job file name (--timezone, every
 * `timezone` key), so that threads checking its tables find them loaded.
 * Errors are left to each table's own parse; job may be NULL. */
void rk_tableopts_preload(const rk_opts *o, const struct rk_ini *job);

/*
 * The range of --last on the epoch grid: to = floor((now - settle) / width)
 * * width, from = to - last.  last must be a whole number of windows.
 */
int rk_tableopts_last(rk_usec last, rk_usec width, rk_usec now, rk_usec settle, rk_usec *from, rk_usec *to,
                      rk_error *err);

#endif
