/*
 * tz.h - IANA time zones (the system's zoneinfo, Debian's tzdata) and the
 * calendar windows of `--timezone ZONE` (docs/how-it-works.md).
 *
 * A zone is read once through the C library (localtime_r under TZ=ZONE) into
 * a table of its UTC offset changes, 1900 to 2200; every question after that
 * is answered from the table, so a zone may be used by any number of threads
 * at once.  Reading one sets and restores TZ, which is process-global: load
 * zones (rk_tz_get) before starting threads.  Offset changes less than 7
 * days apart are not told apart (the table probes weekly, then bisects each
 * change to the second); tzdata has none after 1950 in the zones in use.
 *
 * Local times are "wall-clock instants": microseconds since
 * 1970-01-01T00:00:00 of the local calendar, as rk_usec, so that the
 * calendar arithmetic of timeutil.h works on them unchanged.
 */
#ifndef RK_TZ_H
#define RK_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/timeutil.h"

typedef struct rk_tz rk_tz;

/*
 * The zone named name (an IANA name such as "Europe/Berlin", or "UTC"),
 * loaded on first use and kept for the life of the process (the caller
 * never frees it).  Not thread-safe on a zone's first use (TZ, above); a
 * zone already loaded is returned under a lock.  NULL with err
 * (RK_EXIT_USAGE, naming option) when the name is not a zone of the system's
 * zoneinfo ($TZDIR, else /usr/share/zoneinfo).
 */
const rk_tz *rk_tz_get(const char *name, const char *option, rk_error *err);

/* The zone's name as given. */
const char *rk_tz_name(const rk_tz *z);

/* The zone's offset east of UTC, in seconds, at instant t. */
int32_t rk_tz_offset(const rk_tz *z, rk_usec t);

/* The wall-clock instant (above) of instant t in zone z. */
static inline rk_usec rk_tz_local(const rk_tz *z, rk_usec t)
{
	return t + (rk_usec)rk_tz_offset(z, t) * RK_USEC_PER_SEC;
}

/* How a wall-clock time fits the zone. */
typedef enum rk_tz_fit {
	RK_TZ_EXACT,     /* one instant has it */
	RK_TZ_AMBIGUOUS, /* two instants have it (a fall-back hour) */
	RK_TZ_GAP        /* none has it (a spring-forward hour) */
} rk_tz_fit;

/*
 * The instant of wall-clock time local in zone z, placed by PostgreSQL's own
 * rule (so that `col AT TIME ZONE 'Z'` in SQL agrees): an ambiguous time
 * takes the offset in force after the change (the later instant: 02:30 of
 * Berlin's October night is 01:30Z), a time in a gap the offset in force
 * before it (02:30 of Berlin's March night is 01:30Z, i.e. 03:30 CEST).
 * *fit (may be NULL) says which case it was.
 */
rk_usec rk_tz_utc(const rk_tz *z, rk_usec local, rk_tz_fit *fit);

/*
 * Instant t as local time with its offset: "2026-03-29T03:00:00+02:00"
 * (".ffffff" only when not zero).  Returns out.
 */
char *rk_tz_format(const rk_tz *z, rk_usec t, char out[RK_TIME_STRLEN]);

/*
 * A calendar window: months (1mo, 3mo) or days (1d, 7d; 1w is 7 days), as
 * rk_calendar_parse reads them.  Exactly one of the two is non-zero.
 */
typedef struct rk_calunit {
	int32_t months;
	int32_t days;
} rk_calunit;

/*
 * The calendar windows of [from, to) in zone z, each unit long, from `from`
 * on: *bounds is a new array (caller frees) of *n instants, bounds[0] = from,
 * bounds[*n - 1] = to, each the previous one's local midnight plus the unit.
 * from must be a local midnight (and, for months, the first of a month);
 * to must be one of the boundaries.  At most max windows.  Returns 0, or -1
 * with err (RK_EXIT_USAGE) saying which and how to fix it.
 */
int rk_tz_bounds(const rk_tz *z, rk_calunit unit, rk_usec from, rk_usec to, size_t max, rk_usec **bounds,
                 size_t *n, rk_error *err);

/*
 * The latest calendar boundary at or before instant t: the local midnight
 * of t's day (days == 1), of the latest Monday-anchored run of `days` days
 * (days 7: the Monday; counted from Monday 1970-01-05), or of the first day
 * of the latest run of `months` months counted from January 1970.
 */
rk_usec rk_tz_floor(const rk_tz *z, rk_calunit unit, rk_usec t);

/* Boundary b moved by k units (k may be negative): local midnight of b's
 * local date plus k * unit. */
rk_usec rk_tz_step(const rk_tz *z, rk_calunit unit, rk_usec b, int64_t k);

/* The local midnight at or before instant t (the start of t's local day). */
rk_usec rk_tz_midnight(const rk_tz *z, rk_usec t);

/*
 * Whether [start, end) is one calendar unit of the zone: both local
 * midnights, end whole months after start when both are firsts of a month
 * (*unit months), else whole days (*unit days).
 */
bool rk_tz_unit_of(const rk_tz *z, rk_usec start, rk_usec end, rk_calunit *unit);

/* The number k of units from boundary anchor to the unit holding instant
 * t: t lies in [rk_tz_step(anchor, k), rk_tz_step(anchor, k + 1)). */
int64_t rk_tz_units_between(const rk_tz *z, rk_calunit unit, rk_usec anchor, rk_usec t);

/*
 * --time-column-zone: a zoneless `timestamp` value (a wall-clock instant of
 * its zone, read as if it were UTC) placed at its instant by rk_tz_utc's
 * rule, with a cache of the span of wall-clock times one offset maps
 * exactly, so that a column read in time order costs a compare per row.
 * A placer belongs to one thread; zeroed, then rk_tz_placer_init.
 */
typedef struct rk_tz_placer {
	const rk_tz *z;
	rk_usec lo, hi; /* wall-clock times in [lo, hi) are EXACT at offset off */
	rk_usec off;    /* microseconds */
} rk_tz_placer;

void rk_tz_placer_init(rk_tz_placer *p, const rk_tz *z);

/* Refills the cache around local; what rk_tz_place does on a miss. */
rk_usec rk_tz_place_slow(rk_tz_placer *p, rk_usec local, rk_tz_fit *fit);

/* rk_tz_utc(p->z, local, fit), the same instant and fit. */
static inline rk_usec rk_tz_place(rk_tz_placer *p, rk_usec local, rk_tz_fit *fit)
{
	if (local >= p->lo && local < p->hi) {
		*fit = RK_TZ_EXACT;
		return local - p->off;
	}
	return rk_tz_place_slow(p, local, fit);
}

/*
 * The wall-clock times (as rk_usec, read as if UTC) a zoneless column must
 * hold for rk_tz_utc to place them in [from, to): a superset, [*lo, *hi),
 * at most the zone's offset changes wider than exact (the rule sends a
 * spring-forward hour's times an hour on, so the exact set need not be one
 * span).  Callers filter the rows by their placed instant.  Infinite bounds
 * stay infinite.
 */
void rk_tz_wall_range(const rk_tz *z, rk_usec from, rk_usec to, rk_usec *lo, rk_usec *hi);

/* Whether the zone's offset is 0 at every instant (UTC, Etc/UTC, ...). */
bool rk_tz_is_utc(const rk_tz *z);

/*
 * The offset east of UTC, in seconds, that an ISO-8601 instant text ends
 * with ("Z": 0, "+02:00": 7200); false when it names none (a bare date, a
 * zoneless time).
 */
bool rk_time_text_offset(const char *text, int32_t *off);

#endif
